//! Decoded operands: register file, indices, component selection, modifiers, immediates.
//!
//! An [`Operand`] keeps every detail of its tokens (selection mode, index representations,
//! whether an extended operand token was present, reserved bits) so that the encoder can
//! rebuild the exact tokens, and offers the helpers a translator wants (`mask()`,
//! `swizzle()`, `register()`, `immediates()`). Operands are plain `Copy` data: the operand
//! of a relative index lives in the program's [`Program::relative`] pool and is referred
//! to by position, so decoding allocates no memory per operand and dropping a program
//! does not walk its operands.
//!
//! [`Program::relative`]: super::Program::relative

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

/// One index of an operand (`r5`, `cb0[r1.x + 4]`, …), as a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Index {
    /// How the index was encoded.
    pub repr: IndexRepr,
    /// The immediate part (0 when the representation has none). 32-bit representations
    /// hold at most `u32::MAX`; 64-bit ones hold the value as (first dword << 32) | second
    /// dword, the format's HI:LO order.
    pub value: u64,
    /// The relative part, for the `*Relative` representations: the position of a full
    /// operand in [`Program::relative`](super::Program::relative) (use
    /// [`InstRef::rel`](super::InstRef::rel) or [`Program::rel`](super::Program::rel)).
    pub relative: Option<u32>,
}

impl Index {
    /// The immediate 32-bit index 0.
    pub const ZERO: Index = Index {
        repr: IndexRepr::Imm32,
        value: 0,
        relative: None,
    };

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

    /// The value when the index is purely immediate.
    pub fn as_immediate(&self) -> Option<u64> {
        (!self.repr.has_relative()).then_some(self.value)
    }
}

/// Marks "no relative operand" in [`Operand`]'s compact index storage.
const NO_RELATIVE: u32 = u32::MAX;

/// A decoded operand (60 bytes, `Copy`).
///
/// Indices and immediate values share compact private storage; read them with
/// [`Operand::index`]/[`Operand::indices`] and [`Operand::immediates`], build them with
/// [`Operand::push_index`] and [`Operand::set_immediates`]. An operand has either indices
/// (registers) or immediate values (`l(…)`, `d(…)`), never both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operand {
    /// Register file.
    pub ty: OperandType,
    /// Component count and selection.
    pub components: Components,
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
    index_dim: u8,
    reprs: [IndexRepr; 3],
    /// Operand token bits that no field of this operand accounts for (normally 0): selection
    /// bits beyond the selection mode's field, index representation bits of absent indices.
    pub reserved: u32,
    /// Extended operand token bits 18–30 (reserved, normally 0).
    pub ext_reserved: u32,
    /// Immediate operands: the value dwords. Registers: the immediate index parts, low
    /// dwords in 0..3 and high dwords (64-bit representations) in 3..6.
    pub(super) data: [u32; 6],
    /// Positions of relative index operands, `NO_RELATIVE` when none (always for the
    /// indices past `index_dim`: nothing removes an index).
    rel: [u32; 3],
}

impl Operand {
    /// A `null` operand with no components, indices, modifiers or immediates.
    pub const EMPTY: Operand = Operand {
        ty: OperandType::Null,
        components: Components::Zero,
        modifier: Modifier::None,
        min_precision: MinPrecision::Default,
        non_uniform: false,
        extended: false,
        index_dim: 0,
        reprs: [IndexRepr::Imm32; 3],
        reserved: 0,
        ext_reserved: 0,
        data: [0; 6],
        rel: [NO_RELATIVE; 3],
    };

    /// A register operand with no indices yet (a building block for tests and assemblers).
    pub fn new(ty: OperandType, components: Components) -> Self {
        Operand {
            ty,
            components,
            ..Operand::EMPTY
        }
    }

    /// An operand from decoded parts (the decoder builds each operand once and pushes it
    /// whole). `data` and `rel` follow the private layout described on the fields.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn from_parts(
        ty: OperandType,
        components: Components,
        index_dim: u8,
        reprs: [IndexRepr; 3],
        data: [u32; 6],
        rel: [u32; 3],
        reserved: u32,
        ext: (bool, Modifier, MinPrecision, bool, u32),
    ) -> Self {
        let (extended, modifier, min_precision, non_uniform, ext_reserved) = ext;
        Operand {
            ty,
            components,
            modifier,
            min_precision,
            non_uniform,
            extended,
            index_dim,
            reprs,
            reserved,
            ext_reserved,
            data,
            rel,
        }
    }

    /// Number of indices (0–3).
    pub fn index_dim(&self) -> usize {
        self.index_dim as usize
    }

    /// Index `i`, if the operand has that many.
    pub fn index(&self, i: usize) -> Option<Index> {
        if i >= self.index_dim as usize {
            return None;
        }
        let repr = self.reprs[i];
        let lo = self.data[i] as u64;
        let value = if repr.immediate_dwords() == 2 {
            (self.data[3 + i] as u64) << 32 | lo
        } else {
            lo
        };
        let relative = (self.rel[i] != NO_RELATIVE).then_some(self.rel[i]);
        Some(Index {
            repr,
            value,
            relative,
        })
    }

    /// Index `i`'s immediate value when it has no relative part (`None` past the last
    /// index): [`Operand::index`] without building the whole [`Index`].
    #[inline]
    pub fn imm_index(&self, i: usize) -> Option<u64> {
        if i >= self.index_dim as usize || self.rel[i] != NO_RELATIVE {
            return None;
        }
        let lo = self.data[i] as u64;
        Some(if self.reprs[i].immediate_dwords() == 2 {
            (self.data[3 + i] as u64) << 32 | lo
        } else {
            lo
        })
    }

    /// The first index value above `u32::MAX` (only a 64-bit representation can hold one).
    #[inline]
    pub fn wide_index(&self) -> Option<u64> {
        if self.data[3] | self.data[4] | self.data[5] == 0 {
            return None;
        }
        (0..self.index_dim as usize)
            .find(|&i| self.reprs[i].immediate_dwords() == 2 && self.data[3 + i] != 0)
            .map(|i| (self.data[3 + i] as u64) << 32 | self.data[i] as u64)
    }

    /// The indices in order.
    pub fn indices(&self) -> impl ExactSizeIterator<Item = Index> + '_ {
        (0..self.index_dim as usize).map(|i| self.index(i).expect("within index_dim"))
    }

    /// Appends an index; false when the operand already has 3 or is an immediate. The
    /// relative part must agree with the representation (checked when encoding).
    pub fn push_index(&mut self, index: Index) -> bool {
        let i = self.index_dim as usize;
        if i >= 3 || self.ty.is_immediate() {
            return false;
        }
        self.reprs[i] = index.repr;
        self.data[i] = index.value as u32;
        self.data[3 + i] = (index.value >> 32) as u32;
        self.rel[i] = index.relative.unwrap_or(NO_RELATIVE);
        self.index_dim += 1;
        true
    }

    /// The first index's immediate value when it is purely immediate (`r5` → 5, `cb2[7]`
    /// → 2, `v[3][1]` → 3). For SM5.1 descriptors this is the range ID.
    #[inline]
    pub fn register(&self) -> Option<u32> {
        // `index(0)?.as_immediate()` truncated to 32 bits, without building the `Index`.
        (self.index_dim > 0 && !self.reprs[0].has_relative()).then_some(self.data[0])
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

    /// Number of immediate dwords following the operand's tokens (0 for registers).
    pub fn immediate_dwords(&self) -> usize {
        match (self.ty, self.components) {
            (OperandType::Immediate32, Components::One) => 1,
            (OperandType::Immediate64, Components::One) => 2,
            (OperandType::Immediate32 | OperandType::Immediate64, _) => 4,
            _ => 0,
        }
    }

    /// The immediate dwords: `l(…)` values, or `d(…)` values as (low, high) dword pairs.
    /// Empty for registers.
    pub fn immediate_words(&self) -> &[u32] {
        &self.data[..self.immediate_dwords()]
    }

    /// The 32-bit immediate values (`l(…)`), empty for other operands.
    pub fn immediates(&self) -> &[u32] {
        match self.ty {
            OperandType::Immediate32 => self.immediate_words(),
            _ => &[],
        }
    }

    /// The 64-bit immediate values (`d(…)`), as bit patterns.
    pub fn immediates64(&self) -> impl Iterator<Item = u64> + '_ {
        let words = match self.ty {
            OperandType::Immediate64 => self.immediate_words(),
            _ => &[],
        };
        words
            .chunks_exact(2)
            .map(|w| w[0] as u64 | (w[1] as u64) << 32)
    }

    /// Sets the immediate dwords of an `l(…)`/`d(…)` operand (at most 4; the component
    /// count decides how many are encoded).
    pub fn set_immediates(&mut self, words: &[u32]) {
        let n = words.len().min(4);
        self.data[..n].copy_from_slice(&words[..n]);
    }

    /// Whether this is an `l(…)`/`d(…)` immediate.
    pub fn is_immediate(&self) -> bool {
        self.ty.is_immediate()
    }

    /// Whether any index has a relative part.
    pub fn is_relative(&self) -> bool {
        // Absent indices have no relative part, and a position is below `NO_RELATIVE`
        // (all bits set): the AND keeps every bit only when no index has one.
        self.rel[0] & self.rel[1] & self.rel[2] != NO_RELATIVE
    }

    /// Whether the extended operand token carries anything besides its presence.
    pub fn has_ext_content(&self) -> bool {
        self.modifier != Modifier::None
            || self.min_precision != MinPrecision::Default
            || self.non_uniform
            || self.ext_reserved != 0
    }
}
