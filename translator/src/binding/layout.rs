//! A caller's binding layout: rules from D3D register ranges to Vulkan descriptor set,
//! binding and array element, and from constant buffers to push-constant ranges. It is a
//! D3D12 root signature written down (descriptor table ranges, root descriptors, root
//! constants), read from TOML or JSON and validated before use, so that a malformed file is
//! an error naming the rule, never a surprise at translation time.

use serde::{Deserialize, Serialize};

use super::{BindingError, Placement, RangeRequest};
use crate::reflect::{DescriptorType, RegisterClass};

/// Rules placing every register range a program may declare.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BindingLayout {
    /// Descriptor ranges (`[[descriptors]]` in TOML).
    #[serde(default)]
    pub descriptors: Vec<DescriptorRule>,
    /// Constant buffers held in push constants (`[[push_constants]]`).
    #[serde(default)]
    pub push_constants: Vec<PushConstantRule>,
}

/// Registers `register .. register + count` of `class` in `space` live in binding `binding`
/// of set `set`, register `register + i` at array element `array_offset + i`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DescriptorRule {
    pub class: RegisterClass,
    #[serde(default)]
    pub space: u32,
    /// First register the rule covers.
    #[serde(default)]
    pub register: u32,
    /// Registers covered: a number (default 1) or `"unbounded"` (to the end of the space).
    #[serde(default)]
    pub count: Count,
    pub set: u32,
    pub binding: u32,
    /// Array element of the binding that holds `register` (a D3D12 descriptor range's
    /// offset in its table, when a table is one binding).
    #[serde(default)]
    pub array_offset: u32,
    /// The rule places the hidden counters of UAVs (`class = "u"`), not the UAVs.
    #[serde(default)]
    pub counter: bool,
    /// Only ranges whose Vulkan descriptor type is one of these (empty: any). Lets one
    /// register range go to different bindings for buffers and images, as a D3D12 layer
    /// must when one SRV table holds both.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<DescriptorType>,
    /// Byte offset (a multiple of 4) in the push-constant block of a `u32` added to the array
    /// element at run time (a D3D12 descriptor table's heap offset; see
    /// [`Placement::Descriptor`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic_offset: Option<u32>,
    /// The binding is mutable (VK_EXT_mutable_descriptor_type): ranges of different
    /// descriptor types placed there by mutable rules may share it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mutable: bool,
}

/// Constant buffer `b{register}` of `space` is `size` bytes of push constants at `offset`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PushConstantRule {
    #[serde(default)]
    pub space: u32,
    pub register: u32,
    /// Byte offset in the push-constant block (a multiple of 4).
    pub offset: u32,
    /// Bytes (a multiple of 4). Reads past them return 0.
    pub size: u32,
}

/// How many registers a rule covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    Bounded(u32),
    Unbounded,
}

impl Default for Count {
    fn default() -> Self {
        Count::Bounded(1)
    }
}

impl Serialize for Count {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Count::Bounded(n) => s.serialize_u32(*n),
            Count::Unbounded => s.serialize_str("unbounded"),
        }
    }
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Count;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a register count (1 to 4294967295) or \"unbounded\"")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Count, E> {
                match u32::try_from(v) {
                    Ok(n) if n > 0 => Ok(Count::Bounded(n)),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Unsigned(v), &self)),
                }
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Count, E> {
                match u64::try_from(v) {
                    Ok(u) => self.visit_u64(u),
                    Err(_) => Err(E::invalid_value(serde::de::Unexpected::Signed(v), &self)),
                }
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Count, E> {
                if v == "unbounded" {
                    Ok(Count::Unbounded)
                } else {
                    Err(E::invalid_value(serde::de::Unexpected::Str(v), &self))
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// Why a layout file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("binding layout: {0}")]
pub struct LayoutError(pub String);

impl DescriptorRule {
    /// Last register covered, `None` when unbounded.
    fn last(&self) -> Option<u32> {
        match self.count {
            Count::Bounded(n) => Some(self.register.saturating_add(n.saturating_sub(1))),
            Count::Unbounded => None,
        }
    }

    fn accepts(&self, t: DescriptorType) -> bool {
        self.types.is_empty() || self.types.contains(&t)
    }

    fn describe(&self, i: usize) -> String {
        let c = self.class.letter();
        let regs = match self.last() {
            Some(l) if l == self.register => format!("{c}{}", self.register),
            Some(l) => format!("{c}{}..{c}{l}", self.register),
            None => format!("{c}{}..", self.register),
        };
        format!(
            "descriptors[{i}] ({}{regs} space {} -> set {} binding {})",
            if self.counter { "counters of " } else { "" },
            self.space,
            self.set,
            self.binding
        )
    }
}

impl BindingLayout {
    /// Reads and validates a layout from TOML.
    pub fn from_toml(text: &str) -> Result<Self, LayoutError> {
        let l: BindingLayout =
            toml::from_str(text).map_err(|e| LayoutError(format!("TOML: {e}")))?;
        l.validate()?;
        Ok(l)
    }

    /// Reads and validates a layout from JSON.
    pub fn from_json(text: &str) -> Result<Self, LayoutError> {
        let l: BindingLayout =
            serde_json::from_str(text).map_err(|e| LayoutError(format!("JSON: {e}")))?;
        l.validate()?;
        Ok(l)
    }

    /// Reads a layout from JSON when the text starts with `{`, else from TOML.
    pub fn parse(text: &str) -> Result<Self, LayoutError> {
        if text.trim_start().starts_with('{') {
            Self::from_json(text)
        } else {
            Self::from_toml(text)
        }
    }

    /// Checks that the rules make sense together: counts and offsets fit in 32 bits,
    /// counters only for UAVs, no register covered twice, push-constant ranges aligned,
    /// disjoint and not also descriptors.
    pub fn validate(&self) -> Result<(), LayoutError> {
        let err = |s: String| Err(LayoutError(s));
        for (i, r) in self.descriptors.iter().enumerate() {
            if let Count::Bounded(n) = r.count {
                if n == 0 {
                    return err(format!("{}: count must be at least 1", r.describe(i)));
                }
                if r.register.checked_add(n - 1).is_none() {
                    return err(format!("{}: registers run past 2^32", r.describe(i)));
                }
                if r.array_offset.checked_add(n - 1).is_none() {
                    return err(format!("{}: array elements run past 2^32", r.describe(i)));
                }
            }
            if let Some(o) = r.dynamic_offset
                && (!o.is_multiple_of(4) || o > u32::MAX - 3)
            {
                return err(format!(
                    "{}: dynamic_offset {o} must be a multiple of 4 below 2^32 - 4",
                    r.describe(i)
                ));
            }
            if r.counter && r.class != RegisterClass::U {
                return err(format!(
                    "{}: only UAVs (class \"u\") have counters",
                    r.describe(i)
                ));
            }
            for (j, o) in self.descriptors.iter().enumerate().take(i) {
                let same = o.class == r.class && o.space == r.space && o.counter == r.counter;
                let types_meet = o.types.is_empty()
                    || r.types.is_empty()
                    || o.types.iter().any(|t| r.types.contains(t));
                let overlap = o.register <= r.last().unwrap_or(u32::MAX)
                    && r.register <= o.last().unwrap_or(u32::MAX);
                if same && types_meet && overlap {
                    return err(format!(
                        "{} and {} cover the same registers",
                        o.describe(j),
                        r.describe(i)
                    ));
                }
            }
        }
        for (i, p) in self.push_constants.iter().enumerate() {
            let name = format!(
                "push_constants[{i}] (b{} space {} -> bytes {}..{})",
                p.register,
                p.space,
                p.offset,
                p.offset as u64 + p.size as u64
            );
            if p.size == 0 || !p.size.is_multiple_of(4) || !p.offset.is_multiple_of(4) {
                return err(format!(
                    "{name}: offset and size must be multiples of 4 and the size at least 4"
                ));
            }
            if p.offset.checked_add(p.size).is_none() {
                return err(format!("{name}: runs past 2^32 bytes"));
            }
            for (j, o) in self.push_constants.iter().enumerate().take(i) {
                if o.space == p.space && o.register == p.register {
                    return err(format!(
                        "{name}: push_constants[{j}] already holds b{} in space {}",
                        p.register, p.space
                    ));
                }
                if o.offset < p.offset + p.size && p.offset < o.offset + o.size {
                    return err(format!("{name}: overlaps the bytes of push_constants[{j}]"));
                }
            }
            if let Some((j, d)) = self.descriptors.iter().enumerate().find(|(_, d)| {
                d.class == RegisterClass::B
                    && d.space == p.space
                    && d.register <= p.register
                    && d.last().is_none_or(|l| p.register <= l)
            }) {
                return err(format!(
                    "{name}: {} also places b{}",
                    d.describe(j),
                    p.register
                ));
            }
        }
        Ok(())
    }

    /// Places one range: a push-constant rule for a constant buffer, else the one
    /// descriptor rule that holds the whole range.
    pub(super) fn place(&self, r: &RangeRequest) -> Result<Placement, BindingError> {
        if r.class == RegisterClass::B
            && !r.counter
            && let Some(p) = self
                .push_constants
                .iter()
                .find(|p| p.space == r.space && p.register == r.lower)
        {
            if r.upper != Some(r.lower) {
                return Err(BindingError::new(
                    r,
                    format!(
                        "b{} is a push-constant range in the layout, but the shader declares an array of constant buffers there",
                        r.lower
                    ),
                ));
            }
            return Ok(Placement::PushConstant {
                offset: p.offset,
                size: p.size,
            });
        }
        let covers = |d: &DescriptorRule| {
            d.class == r.class
                && d.space == r.space
                && d.counter == r.counter
                && d.register <= r.lower
                && d.last().is_none_or(|l| r.lower <= l)
        };
        let Some(rule) = self
            .descriptors
            .iter()
            .find(|d| covers(d) && d.accepts(r.descriptor_type))
        else {
            let why = match self.descriptors.iter().enumerate().find(|(_, d)| covers(d)) {
                Some((i, d)) => format!(
                    "{} covers it, but only for {:?} descriptors and this is a {:?}",
                    d.describe(i),
                    d.types,
                    r.descriptor_type
                ),
                None if r.counter => "no UAV counter rule of the layout covers it".to_string(),
                None => "no descriptor rule of the layout covers it".to_string(),
            };
            return Err(BindingError::new(r, why));
        };
        let fits = match (rule.last(), r.upper) {
            (None, _) => true,
            (Some(l), Some(u)) => u <= l,
            (Some(_), None) => false,
        };
        if !fits {
            let i = self
                .descriptors
                .iter()
                .position(|d| std::ptr::eq(d, rule))
                .unwrap_or(0);
            return Err(BindingError::new(
                r,
                format!(
                    "the range runs past the end of {} (a shader range must lie inside one rule)",
                    rule.describe(i)
                ),
            ));
        }
        let array_offset = rule
            .array_offset
            .checked_add(r.lower - rule.register)
            .ok_or_else(|| BindingError::new(r, "its array element is past 2^32"))?;
        Ok(Placement::Descriptor {
            set: rule.set,
            binding: rule.binding,
            array_offset,
            dynamic_offset: rule.dynamic_offset,
            mutable: rule.mutable,
        })
    }
}
