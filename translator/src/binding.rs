//! Where D3D resource registers go in Vulkan: descriptor set and binding numbers.
//!
//! D3D names a resource by register class (`b`, `t`, `s`, `u`), register number and (SM5.1)
//! register space; Vulkan by descriptor set and binding. The translator asks a
//! [`BindingPolicy`] for the place of every declared range. The default policy,
//! [`BindingPolicy::ClassOffsets`], is documented in `docs/bindings.md`: set = space, and each
//! register class occupies its own block of binding numbers so that classes never collide.

use crate::reflect::RegisterClass;

/// How D3D registers map to Vulkan descriptor sets and bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BindingPolicy {
    /// set = register space; binding = class base + register, with bases
    /// b: 0, s: 16, t: 32, u: 160, UAV counters: 224 (D3D11's per-stage limits are 14
    /// constant buffers, 16 samplers, 128 SRVs and 64 UAVs, so the blocks never overlap).
    #[default]
    ClassOffsets,
}

/// A descriptor's place in Vulkan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub set: u32,
    pub binding: u32,
}

/// Why a register range could not be placed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no binding for {class}{register} in space {space}: {why}")]
pub struct BindingError {
    pub class: char,
    pub register: u32,
    pub space: u32,
    pub why: String,
}

impl BindingPolicy {
    /// Base binding of a register class (and of UAV counters) under `ClassOffsets`.
    pub fn class_base(class: RegisterClass, counter: bool) -> (u32, u32) {
        match (class, counter) {
            (_, true) => (224, 64),
            (RegisterClass::B, _) => (0, 16),
            (RegisterClass::S, _) => (16, 16),
            (RegisterClass::T, _) => (32, 128),
            (RegisterClass::U, _) => (160, 64),
        }
    }

    /// Places the range `lower..=upper` (`None` = unbounded) of `class` in `space`.
    pub fn place(
        self,
        class: RegisterClass,
        space: u32,
        lower: u32,
        upper: Option<u32>,
        counter: bool,
    ) -> Result<Placement, BindingError> {
        match self {
            BindingPolicy::ClassOffsets => {
                let (base, count) = Self::class_base(class, counter);
                let fits = match upper {
                    Some(u) => u >= lower && u < count,
                    None => false,
                };
                if !fits {
                    return Err(BindingError {
                        class: class.letter(),
                        register: lower,
                        space,
                        why: format!(
                            "the class-offsets policy holds registers 0..{count} of this class; use a binding layout for larger or unbounded ranges"
                        ),
                    });
                }
                Ok(Placement {
                    set: space,
                    binding: base + lower,
                })
            }
        }
    }
}
