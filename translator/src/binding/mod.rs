//! Where D3D resource registers go in Vulkan: descriptor sets, bindings, array elements and
//! push constants.
//!
//! D3D names a resource by register class (`b`, `t`, `s`, `u`), register number and (SM5.1)
//! register space; Vulkan by descriptor set, binding and array element, or by a byte range of
//! the push-constant block. The translator collects every declared register range of a
//! program (a [`RangeRequest`]) and asks a [`Binding`] for all their [`Placement`]s at once:
//! either a built-in [`BindingPolicy`] (for callers without a root signature of their own) or
//! a caller's [`BindingLayout`] (TOML or JSON; a D3D12 root signature written down). Both are
//! documented in `docs/bindings.md`, or a caller's [`Resolver`] asked range by range (the C
//! API's binding callback). SM4.0–5.0 programs go through the same machinery with
//! every register in space 0 and every range one register long.

mod layout;
mod plan;
mod policy;

use std::sync::Arc;

pub use layout::{BindingLayout, Count, DescriptorRule, LayoutError, PushConstantRule};
pub use policy::{BindingPolicy, HIGHEST_REGISTER};

use crate::reflect::{DescriptorType, RegisterClass};

/// How the translator places descriptors: a built-in policy, a caller's layout or a caller's
/// resolver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binding {
    Policy(BindingPolicy),
    /// Behind an `Arc` so that `Options` stays cheap to clone.
    Layout(Arc<BindingLayout>),
    /// Asks the caller for each range (see [`Resolver`]).
    Resolver(ResolverRef),
}

/// A caller's rule placing one register range at a time, for embedders whose binding model is
/// code rather than a table (DXVK's and dxil-spirv's remap callbacks). The translator asks once
/// per declared range (and UAV counter) of a program, in declaration order, before lowering.
/// (`RefUnwindSafe` keeps `Options` usable across `catch_unwind`, as the robustness tests use
/// it.)
pub trait Resolver: Send + Sync + std::panic::RefUnwindSafe {
    /// Where `range` goes, or why it has none (the translation then fails with a
    /// [`BindingError`] naming the register, space and this reason).
    fn place(&self, range: &RangeRequest) -> Result<Placement, String>;
}

/// A shared [`Resolver`]; equal to another only when it is the same object.
#[derive(Clone)]
pub struct ResolverRef(pub Arc<dyn Resolver>);

impl std::fmt::Debug for ResolverRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Resolver(..)")
    }
}

impl PartialEq for ResolverRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ResolverRef {}

impl<R: Resolver + 'static> From<R> for Binding {
    fn from(r: R) -> Self {
        Binding::Resolver(ResolverRef(Arc::new(r)))
    }
}

impl Default for Binding {
    fn default() -> Self {
        Binding::Policy(BindingPolicy::default())
    }
}

impl From<BindingPolicy> for Binding {
    fn from(p: BindingPolicy) -> Self {
        Binding::Policy(p)
    }
}

impl From<BindingLayout> for Binding {
    fn from(l: BindingLayout) -> Self {
        Binding::Layout(Arc::new(l))
    }
}

/// One register range a program declares, as the translator asks about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RangeRequest {
    pub class: RegisterClass,
    pub space: u32,
    /// First register of the range.
    pub lower: u32,
    /// Last register, inclusive; `None` when unbounded (`t1[10:*]`).
    pub upper: Option<u32>,
    /// The hidden counter of a `u#` range rather than the UAV itself.
    pub counter: bool,
    /// The Vulkan descriptor type the translator gives the range.
    pub descriptor_type: DescriptorType,
}

impl RangeRequest {
    /// Registers in the range, `None` when unbounded.
    pub fn count(&self) -> Option<u32> {
        self.upper
            .map(|u| u.saturating_sub(self.lower).saturating_add(1))
    }

    /// `t10`, `t10..t17` or `t10..` (unbounded), with ` counter` for UAV counters.
    pub fn describe(&self) -> String {
        let c = self.class.letter();
        let regs = match self.upper {
            Some(u) if u == self.lower => format!("{c}{}", self.lower),
            Some(u) => format!("{c}{}..{c}{u}", self.lower),
            None => format!("{c}{}.. (unbounded)", self.lower),
        };
        if self.counter {
            format!("the counter of {regs}")
        } else {
            regs
        }
    }
}

/// Where one register range lives in Vulkan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Register `lower + i` of the range is array element `array_offset + i` of the binding,
    /// plus, with a `dynamic_offset`, the 32-bit value the program reads at that byte offset
    /// of the push-constant block (a D3D12 descriptor table's offset in a descriptor heap,
    /// set per draw: vkd3d's `descriptor_offset_info`). The variable is then a runtime array
    /// (the binding must hold every element the offsets reach).
    Descriptor {
        set: u32,
        binding: u32,
        array_offset: u32,
        /// Byte offset (a multiple of 4) in the push-constant block of a `u32` added to the
        /// array element; `None`: the element is `array_offset + i` as it is.
        dynamic_offset: Option<u32>,
        /// The binding is a mutable one (VK_EXT_mutable_descriptor_type): ranges of different
        /// descriptor types may share it when every one of them placed there says so.
        mutable: bool,
    },
    /// A constant buffer held in the push-constant block: `size` bytes at byte `offset`
    /// (D3D12 root constants).
    PushConstant { offset: u32, size: u32 },
}

impl Placement {
    /// A plain descriptor placement: register `lower + i` at element `array_offset + i` of
    /// `binding` in `set`, no dynamic offset, not mutable.
    pub fn descriptor(set: u32, binding: u32, array_offset: u32) -> Self {
        Placement::Descriptor {
            set,
            binding,
            array_offset,
            dynamic_offset: None,
            mutable: false,
        }
    }
}

/// Why a register range could not be placed. Names the D3D register and space.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no binding for {what} in space {space}: {why}")]
pub struct BindingError {
    /// The range as [`RangeRequest::describe`] writes it (`t10..t17`).
    pub what: String,
    pub class: char,
    /// First register of the range.
    pub register: u32,
    pub space: u32,
    pub why: String,
}

impl BindingError {
    pub(crate) fn new(r: &RangeRequest, why: impl Into<String>) -> Self {
        BindingError {
            what: r.describe(),
            class: r.class.letter(),
            register: r.lower,
            space: r.space,
            why: why.into(),
        }
    }
}

impl Binding {
    /// Places every range of a program. `ranges` are in declaration order, each UAV counter
    /// right after its UAV (the `vkd3d` policy numbers bindings in this order). The result
    /// is parallel to `ranges`.
    pub fn place_all(&self, ranges: &[RangeRequest]) -> Result<Vec<Placement>, BindingError> {
        let places = match self {
            Binding::Policy(p) => p.place_all(ranges)?,
            Binding::Layout(l) => ranges
                .iter()
                .map(|r| l.place(r))
                .collect::<Result<Vec<_>, _>>()?,
            Binding::Resolver(r) => ranges
                .iter()
                .map(|range| {
                    r.0.place(range)
                        .map_err(|why| BindingError::new(range, why))
                })
                .collect::<Result<Vec<_>, _>>()?,
        };
        plan::check_consistent(ranges, &places)?;
        Ok(places)
    }
}

#[cfg(test)]
mod tests;
