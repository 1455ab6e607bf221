//! Decoded operands: register file, indices, component selection, modifiers, immediates.
//!
//! An [`Operand`] keeps every detail of its tokens (selection mode, index representations,
//! whether an extended operand token was present, reserved bits) so that the encoder can
//! rebuild the exact tokens, and offers the helpers a translator wants (`mask()`,
//! `swizzle()`, `register()`, `immediates()`).

use super::enums::{IndexRepr, MinPrecision, Modifier, OperandType};

/// Which components an operand selects (operand token bits 0–11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Components {
    /// No components (e.g. samplers, resources in declarations).
    Zero,
    /// One component (scalars like `vPrim`, `oDepth`; 1-value immediates).
    One,
    /// Four components, write mask mode: bit 0 = x … bit 3 = w.
    Mask(u8),
    /// Four components, swizzle mode: source component for x, y, z, w (0–3 each).
    Swizzle([u8; 4]),
    /// Four components, select-1 mode: the one component read (0–3).
    Select1(u8),
    /// "N components": defined by the format as a count but never given a layout.
    N,
}

impl Components {
    /// Operand token bits 0–11 for this selection.
    pub const fn to_bits(self) -> u32 {
        match self {
            Self::Zero => 0,
            Self::One => 1,
            Self::Mask(m) => 2 | ((m as u32 & 0xf) << 4),
            Self::Swizzle(s) => {
                2 | (1 << 2)
                    | ((s[0] as u32 & 3) << 4)
                    | ((s[1] as u32 & 3) << 6)
                    | ((s[2] as u32 & 3) << 8)
                    | ((s[3] as u32 & 3) << 10)
            }
            Self::Select1(c) => 2 | (2 << 2) | ((c as u32 & 3) << 4),
            Self::N => 3,
        }
    }

    /// The operand token bits this selection defines (the rest of bits 0–11 are reserved).
    pub const fn defined_bits(self) -> u32 {
        match self {
            Self::Zero | Self::One | Self::N => 0x3,
            Self::Mask(_) => 0xff,
            Self::Swizzle(_) => 0xfff,
            Self::Select1(_) => 0x3f,
        }
    }

    /// Number of components the token format says the operand has (0, 1, 4; N counts as 4).
    pub const fn count(self) -> usize {
        match self {
            Self::Zero => 0,
            Self::One => 1,
            _ => 4,
        }
    }
}

/// One index of an operand (`r5`, `cb0[r1.x + 4]`, …).
#[derive(Debug, Clone, PartialEq)]
pub struct Index {
    /// How the index was encoded.
    pub repr: IndexRepr,
    /// The immediate part (0 when the representation has none). 32-bit representations
    /// hold at most `u32::MAX`; 64-bit ones hold the value as (first dword << 32) | second
    /// dword, the format's HI:LO order.
    pub value: u64,
    /// The relative part, a full operand, for the `*Relative` representations.
    pub relative: Option<Box<Operand>>,
}

impl Default for Index {
    fn default() -> Self {
        Index::imm(0)
    }
}

impl Index {
    /// An immediate 32-bit index.
    pub fn imm(value: u32) -> Self {
        Index {
            repr: IndexRepr::Imm32,
            value: value as u64,
            relative: None,
        }
    }

    /// The immediate part as u32 (truncating 64-bit values, which fxc never emits).
    pub fn imm32(&self) -> u32 {
        self.value as u32
    }

    /// The relative part, if any.
    pub fn rel(&self) -> Option<&Operand> {
        self.relative.as_deref()
    }

    /// The value when the index is purely immediate.
    pub fn as_immediate(&self) -> Option<u64> {
        (!self.repr.has_relative()).then_some(self.value)
    }
}

/// A decoded operand.
#[derive(Debug, Clone, PartialEq)]
pub struct Operand {
    /// Register file.
    pub ty: OperandType,
    /// Component count and selection.
    pub components: Components,
    /// Number of indices (0–3); `indices[..index_dim]` are meaningful.
    pub index_dim: u8,
    pub indices: [Index; 3],
    /// Source modifier (from the extended operand token).
    pub modifier: Modifier,
    /// Minimum precision (from the extended operand token).
    pub min_precision: MinPrecision,
    /// SM5.1 `NonUniformResourceIndex` marker (from the extended operand token).
    pub non_uniform: bool,
    /// Whether an extended operand token (type "modifier") was present. It is required when
    /// any of `modifier`, `min_precision`, `non_uniform`, `ext_reserved` is non-default, and
    /// may also be present with all of them default.
    pub extended: bool,
    /// Operand token bits that no field of this operand accounts for (normally 0): selection
    /// bits beyond the selection mode's field, index representation bits of absent indices.
    pub reserved: u32,
    /// Extended operand token bits 18–30 (reserved, normally 0).
    pub ext_reserved: u32,
    /// Immediate dwords: `Immediate32` has 1 or 4 values, `Immediate64` 1 or 2 doubles
    /// stored as 2 or 4 dwords (low dword first). Unused entries are 0.
    pub imm: [u32; 4],
}

impl Operand {
    /// A register operand with no indices yet (a building block for tests and assemblers).
    pub fn new(ty: OperandType, components: Components) -> Self {
        Operand {
            ty,
            components,
            index_dim: 0,
            indices: Default::default(),
            modifier: Modifier::None,
            min_precision: MinPrecision::Default,
            non_uniform: false,
            extended: false,
            reserved: 0,
            ext_reserved: 0,
            imm: [0; 4],
        }
    }

    /// The meaningful indices.
    pub fn indices(&self) -> &[Index] {
        &self.indices[..self.index_dim as usize]
    }

    /// The first index's immediate value when it is purely immediate (`r5` → 5, `cb2[7]`
    /// → 2, `v[3][1]` → 3). For SM5.1 descriptors this is the range ID.
    pub fn register(&self) -> Option<u32> {
        let first = self.indices().first()?;
        first.as_immediate().map(|v| v as u32)
    }

    /// The write mask (bit 0 = x): the mask in mask mode, the selected components otherwise.
    pub fn mask(&self) -> u8 {
        match self.components {
            Components::Zero => 0,
            Components::One => 1,
            Components::Mask(m) => m,
            Components::Swizzle(s) => s.iter().fold(0, |m, &c| m | 1 << c),
            Components::Select1(c) => 1 << c,
            Components::N => 0xf,
        }
    }

    /// The swizzle (source component read for x, y, z, w). Mask mode and scalars read
    /// components in place (`[0, 1, 2, 3]`); select-1 replicates its component.
    pub fn swizzle(&self) -> [u8; 4] {
        match self.components {
            Components::Swizzle(s) => s,
            Components::Select1(c) => [c; 4],
            Components::One => [0; 4],
            _ => [0, 1, 2, 3],
        }
    }

    /// Number of immediate dwords following the operand's tokens.
    pub fn immediate_dwords(&self) -> usize {
        match (self.ty, self.components) {
            (OperandType::Immediate32, Components::One) => 1,
            (OperandType::Immediate32, _) => 4,
            (OperandType::Immediate64, Components::One) => 2,
            (OperandType::Immediate64, _) => 4,
            _ => 0,
        }
    }

    /// The 32-bit immediate values (`l(…)`), empty for other operands.
    pub fn immediates(&self) -> &[u32] {
        match self.ty {
            OperandType::Immediate32 => &self.imm[..self.immediate_dwords()],
            _ => &[],
        }
    }

    /// The 64-bit immediate values (`d(…)`), as bit patterns.
    pub fn immediates64(&self) -> impl Iterator<Item = u64> + '_ {
        let n = match self.ty {
            OperandType::Immediate64 => self.immediate_dwords() / 2,
            _ => 0,
        };
        (0..n).map(|i| self.imm[2 * i] as u64 | (self.imm[2 * i + 1] as u64) << 32)
    }

    /// Whether this is an `l(…)`/`d(…)` immediate.
    pub fn is_immediate(&self) -> bool {
        self.ty.is_immediate()
    }

    /// Whether any index has a relative part.
    pub fn is_relative(&self) -> bool {
        self.indices().iter().any(|i| i.relative.is_some())
    }

    /// Whether the extended operand token carries anything besides its presence.
    pub fn has_ext_content(&self) -> bool {
        self.modifier != Modifier::None
            || self.min_precision != MinPrecision::Default
            || self.non_uniform
            || self.ext_reserved != 0
    }
}
