//! Decoded instructions and programs.
//!
//! A [`Program`] is the version, the instructions in token order (declarations, custom data,
//! HS phase markers and executable instructions alike) and one flat operand array that the
//! instructions index into: decoding allocates a handful of vectors per program, not one per
//! instruction. [`Program::iter`] yields [`InstRef`]s, which read like the instruction itself
//! (`inst.opcode`, `inst.saturate`, …) plus `inst.operands`.

use std::ops::{Deref, Range};

use super::decl::{CustomData, Declaration};
use super::enums::{ProgramType, ResInfoReturnType, ResourceDimension, ReturnType};
use super::opcodes::{Opcode, OpcodeInfo};
use super::operand::{Index, Operand};

/// The version token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Version {
    pub program_type: ProgramType,
    pub major: u8,
    pub minor: u8,
    /// Bits 8–15 of the version token (reserved, normally 0).
    pub reserved: u8,
}

impl Version {
    /// Whether SM5.1 rules apply (descriptor ranges, register spaces).
    pub fn is_sm51(&self) -> bool {
        (self.major, self.minor) >= (5, 1)
    }

    /// The version token.
    pub fn to_token(self) -> u32 {
        (self.program_type.to_u32() << 16)
            | ((self.reserved as u32) << 8)
            | ((self.major as u32 & 0xf) << 4)
            | (self.minor as u32 & 0xf)
    }
}

/// An extended opcode token (the chain that follows an opcode token with bit 31 set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtOpcode {
    /// `_aoffimmi(u,v,w)`: immediate texel offsets, each −8…7.
    SampleControls {
        offsets: [i8; 3],
        /// Token bits 6–8 and 21–30 (reserved, normally 0).
        reserved: u32,
    },
    /// `_indexable(dim[, stride=n])`: the resource dimension (and structure stride).
    ResourceDim {
        dim: ResourceDimension,
        /// Structure stride in bytes (12 bits).
        stride: u16,
        /// Token bits 23–30 (reserved, normally 0).
        reserved: u32,
    },
    /// `(type,type,type,type)`: the resource return type.
    ReturnType {
        types: [ReturnType; 4],
        /// Token bits 22–30 (reserved, normally 0).
        reserved: u32,
    },
}

impl ExtOpcode {
    /// Every extended opcode token kind the decoder accepts (token bits 0–5), with its
    /// disassembly spelling.
    pub const KINDS: [(u32, &'static str); 3] = [
        (1, "_aoffimmi(u,v,w)"),
        (2, "_indexable(dim[, stride])"),
        (3, "(type,type,type,type)"),
    ];

    /// The token (without the "another token follows" bit 31).
    pub fn to_token(self) -> u32 {
        match self {
            ExtOpcode::SampleControls { offsets, reserved } => {
                1 | ((offsets[0] as u32 & 0xf) << 9)
                    | ((offsets[1] as u32 & 0xf) << 13)
                    | ((offsets[2] as u32 & 0xf) << 17)
                    | (reserved & 0x7fe0_01c0)
            }
            ExtOpcode::ResourceDim {
                dim,
                stride,
                reserved,
            } => 2 | dim.to_u32() << 6 | ((stride as u32 & 0xfff) << 11) | (reserved & 0x7f80_0000),
            ExtOpcode::ReturnType { types, reserved } => {
                let bits = types
                    .iter()
                    .enumerate()
                    .fold(0, |acc, (i, t)| acc | t.to_u32() << (4 * i));
                3 | bits << 6 | (reserved & 0x7fc0_0000)
            }
        }
    }

    /// Decodes a token (bit 31 ignored); on failure, the field that is invalid and its value.
    pub fn from_token(t: u32) -> Result<Self, (&'static str, u32)> {
        let return_type = |shift: u32| {
            let v = (t >> shift) & 0xf;
            ReturnType::from_u32(v).ok_or((ReturnType::WHAT, v))
        };
        Ok(match t & 0x3f {
            1 => {
                let offset = |shift: u32| (((t >> shift) & 0xf) as i8) << 4 >> 4;
                ExtOpcode::SampleControls {
                    offsets: [offset(9), offset(13), offset(17)],
                    reserved: t & 0x7fe0_01c0,
                }
            }
            2 => {
                let d = (t >> 6) & 0x1f;
                ExtOpcode::ResourceDim {
                    dim: ResourceDimension::from_u32(d).ok_or((ResourceDimension::WHAT, d))?,
                    stride: ((t >> 11) & 0xfff) as u16,
                    reserved: t & 0x7f80_0000,
                }
            }
            3 => ExtOpcode::ReturnType {
                types: [
                    return_type(6)?,
                    return_type(10)?,
                    return_type(14)?,
                    return_type(18)?,
                ],
                reserved: t & 0x7fc0_0000,
            },
            other => return Err(("extended opcode type", other)),
        })
    }

    fn kind(t: u32) -> u32 {
        t & 0x3f
    }
}

/// The extended opcode tokens of an instruction, in token order (at most 3, one per kind),
/// kept as their tokens (without bit 31).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExtOpcodes {
    tokens: [u32; 3],
    len: u8,
}

impl ExtOpcodes {
    /// No extended opcode tokens.
    pub const EMPTY: ExtOpcodes = ExtOpcodes {
        tokens: [0; 3],
        len: 0,
    };

    /// Maximum number of extended opcode tokens (one per defined kind; the format's
    /// `D3D11_SB_MAX_SIMULTANEOUS_EXTENDED_OPCODES`).
    pub const MAX: usize = 3;

    /// Appends a token; false when a token of the same kind is already there.
    pub fn push(&mut self, ext: ExtOpcode) -> bool {
        self.push_token(ext.to_token())
    }

    /// Appends a validated token (see [`ExtOpcode::from_token`]).
    pub(super) fn push_token(&mut self, token: u32) -> bool {
        let token = token & 0x7fff_ffff;
        if self.len as usize >= Self::MAX
            || self
                .tokens()
                .iter()
                .any(|&t| ExtOpcode::kind(t) == ExtOpcode::kind(token))
        {
            return false;
        }
        self.tokens[self.len as usize] = token;
        self.len += 1;
        true
    }

    /// The tokens, in order, without bit 31.
    pub fn tokens(&self) -> &[u32] {
        &self.tokens[..self.len as usize]
    }

    /// The decoded tokens in order.
    pub fn iter(&self) -> impl Iterator<Item = ExtOpcode> + '_ {
        self.tokens()
            .iter()
            .filter_map(|&t| ExtOpcode::from_token(t).ok())
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Opcode-specific control bits of an executable instruction (besides saturate/precise).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OpControl {
    #[default]
    None,
    /// Conditional instructions (`if`, `breakc`, `discard`, …): true = `_nz`, false = `_z`.
    Test { nonzero: bool },
    /// `resinfo` return type.
    ResInfo(ResInfoReturnType),
    /// `sampleinfo`: true = `_uint`.
    SampleInfo { uint: bool },
    /// `sync` flags (see [`super::enums::sync_flags`]).
    Sync(u32),
}

/// What an instruction carries besides its operands.
#[derive(Debug, Clone, PartialEq)]
pub enum InstData {
    None,
    Decl(Declaration),
    CustomData(CustomData),
    /// `fcall`: the function table entry to call.
    FunctionIndex(u32),
}

/// One decoded instruction (or declaration, custom-data block, HS phase marker).
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    pub opcode: Opcode,
    /// Byte offset of the opcode token in the container.
    pub offset: usize,
    /// `_sat` (bit 13).
    pub saturate: bool,
    /// Precise mask (bits 19–22; bit 0 = x).
    pub precise: u8,
    /// Test, resinfo/sampleinfo return type or sync flags.
    pub control: OpControl,
    /// Opcode token bits 11–23 that no field accounts for, in place (normally 0).
    pub reserved_control: u32,
    /// Extended opcode tokens (sample offsets, resource dimension, return type).
    pub ext: ExtOpcodes,
    /// The instruction length was encoded as 0 in the opcode token with the real length in
    /// the next dword (needed for instructions longer than 127 dwords).
    pub long_length: bool,
    pub data: InstData,
    /// Dwords after the last operand that the instruction length still covers (fxc pads
    /// `samplepos` with one zero dword); normally empty.
    pub padding: Box<[u32]>,
    /// This instruction's operands in [`Program::operands`].
    pub operand_range: Range<u32>,
}

impl Instruction {
    /// An instruction with this opcode and offset and every other field empty/default.
    #[inline(always)]
    pub fn new(opcode: Opcode, offset: usize) -> Self {
        Instruction {
            opcode,
            offset,
            saturate: false,
            precise: 0,
            control: OpControl::None,
            reserved_control: 0,
            ext: ExtOpcodes::EMPTY,
            long_length: false,
            data: InstData::None,
            padding: Box::default(),
            operand_range: 0..0,
        }
    }

    /// This opcode's table entry.
    pub fn info(&self) -> &'static OpcodeInfo {
        self.opcode.info()
    }

    /// The declaration payload, for declarations.
    pub fn decl(&self) -> Option<&Declaration> {
        match &self.data {
            InstData::Decl(d) => Some(d),
            _ => None,
        }
    }

    /// The custom-data block, for `customdata`.
    pub fn custom_data(&self) -> Option<&CustomData> {
        match &self.data {
            InstData::CustomData(c) => Some(c),
            _ => None,
        }
    }

    /// For conditional instructions: whether the test is "non-zero".
    pub fn test_nonzero(&self) -> Option<bool> {
        match self.control {
            OpControl::Test { nonzero } => Some(nonzero),
            _ => None,
        }
    }

    /// Immediate texel offsets (`_aoffimmi`), zero when absent.
    pub fn texel_offsets(&self) -> [i8; 3] {
        self.ext
            .iter()
            .find_map(|e| match e {
                ExtOpcode::SampleControls { offsets, .. } => Some(offsets),
                _ => None,
            })
            .unwrap_or([0; 3])
    }

    /// Resource dimension and structure stride from an extended opcode token.
    pub fn resource_dim(&self) -> Option<(ResourceDimension, u16)> {
        self.ext.iter().find_map(|e| match e {
            ExtOpcode::ResourceDim { dim, stride, .. } => Some((dim, stride)),
            _ => None,
        })
    }

    /// Resource return types from an extended opcode token.
    pub fn resource_return_type(&self) -> Option<[ReturnType; 4]> {
        self.ext.iter().find_map(|e| match e {
            ExtOpcode::ReturnType { types, .. } => Some(types),
            _ => None,
        })
    }
}

/// A decoded SHDR/SHEX program.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub version: Version,
    /// Byte offset of the chunk data in the container (instruction offsets include it).
    pub base_offset: usize,
    pub instructions: Vec<Instruction>,
    /// All operands, in token order; each instruction owns `operand_range`.
    pub operands: Vec<Operand>,
    /// Operands of relative indices (`r1.x` in `cb0[r1.x + 4]`), referred to by
    /// [`Index::relative`](super::Index::relative).
    pub relative: Vec<Operand>,
    /// Bytes of the chunk after the program's declared length (normally none).
    pub trailing: Vec<u8>,
}

/// An instruction together with its operands.
#[derive(Debug, Clone, Copy)]
pub struct InstRef<'a> {
    pub inst: &'a Instruction,
    /// Destinations first, then sources, in token order (for declarations: the declared
    /// register; for `fcall`: the interface operand).
    pub operands: &'a [Operand],
    /// The program's relative index operands (see [`InstRef::rel`]).
    pub relative: &'a [Operand],
}

impl Deref for InstRef<'_> {
    type Target = Instruction;
    fn deref(&self) -> &Instruction {
        self.inst
    }
}

impl<'a> InstRef<'a> {
    /// Destination operands of a fixed-layout instruction.
    pub fn dsts(&self) -> &[Operand] {
        &self.operands[..self.info().dsts().min(self.operands.len())]
    }

    /// Source operands of a fixed-layout instruction.
    pub fn srcs(&self) -> &[Operand] {
        &self.operands[self.info().dsts().min(self.operands.len())..]
    }

    /// The operand of a relative index (`r1.x` of `cb0[r1.x + 4]`).
    pub fn rel(&self, index: &Index) -> Option<&'a Operand> {
        self.relative.get(index.relative? as usize)
    }
}

impl Program {
    /// Drops the instructions, operands and trailing bytes, keeping the vectors' allocations
    /// (a program kept for decoding the next one into).
    pub fn clear(&mut self) {
        self.instructions.clear();
        self.operands.clear();
        self.relative.clear();
        self.trailing.clear();
    }

    /// The operands of one instruction.
    /// (Empty when the range is out of bounds, which only a hand-built program can have;
    /// the encoder reports that.)
    pub fn operands_of(&self, inst: &Instruction) -> &[Operand] {
        let range = inst.operand_range.start as usize..inst.operand_range.end as usize;
        self.operands.get(range).unwrap_or(&[])
    }

    /// The instructions with their operands, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = InstRef<'_>> + '_ {
        self.instructions.iter().map(|inst| InstRef {
            inst,
            operands: self.operands_of(inst),
            relative: &self.relative,
        })
    }

    /// Instruction `i` with its operands.
    pub fn get(&self, i: usize) -> Option<InstRef<'_>> {
        let inst = self.instructions.get(i)?;
        Some(InstRef {
            inst,
            operands: self.operands_of(inst),
            relative: &self.relative,
        })
    }

    /// The operand of a relative index.
    pub fn rel(&self, index: &Index) -> Option<&Operand> {
        self.relative.get(index.relative? as usize)
    }

    /// The declarations (including custom data) in order.
    pub fn declarations(&self) -> impl Iterator<Item = InstRef<'_>> + '_ {
        self.iter().filter(|i| i.opcode.is_declaration())
    }
}
