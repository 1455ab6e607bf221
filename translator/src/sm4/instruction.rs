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
use super::operand::Operand;

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

/// The extended opcode tokens of an instruction, in token order (at most 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExtOpcodes {
    items: [Option<ExtOpcode>; 3],
}

impl ExtOpcodes {
    /// Maximum number of extended opcode tokens kept (the format's
    /// `D3D11_SB_MAX_SIMULTANEOUS_EXTENDED_OPCODES`).
    pub const MAX: usize = 3;

    /// Appends a token; false when full or when a token of the same kind is already there.
    pub fn push(&mut self, ext: ExtOpcode) -> bool {
        if self
            .iter()
            .any(|e| std::mem::discriminant(e) == std::mem::discriminant(&ext))
        {
            return false;
        }
        match self.items.iter_mut().find(|i| i.is_none()) {
            Some(slot) => {
                *slot = Some(ext);
                true
            }
            None => false,
        }
    }

    /// The tokens in order.
    pub fn iter(&self) -> impl Iterator<Item = &ExtOpcode> {
        self.items.iter().map_while(Option::as_ref)
    }

    pub fn len(&self) -> usize {
        self.iter().count()
    }

    pub fn is_empty(&self) -> bool {
        self.items[0].is_none()
    }
}

/// Opcode-specific control bits of an executable instruction (besides saturate/precise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpControl {
    None,
    /// Conditional instructions (`if`, `breakc`, `discard`, …): true = `_nz`, false = `_z`.
    Test {
        nonzero: bool,
    },
    /// `resinfo` return type.
    ResInfo(ResInfoReturnType),
    /// `sampleinfo`: true = `_uint`.
    SampleInfo {
        uint: bool,
    },
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
    pub padding: Vec<u32>,
    /// This instruction's operands in [`Program::operands`].
    pub operand_range: Range<u32>,
}

impl Instruction {
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
                ExtOpcode::SampleControls { offsets, .. } => Some(*offsets),
                _ => None,
            })
            .unwrap_or([0; 3])
    }

    /// Resource dimension and structure stride from an extended opcode token.
    pub fn resource_dim(&self) -> Option<(ResourceDimension, u16)> {
        self.ext.iter().find_map(|e| match e {
            ExtOpcode::ResourceDim { dim, stride, .. } => Some((*dim, *stride)),
            _ => None,
        })
    }

    /// Resource return types from an extended opcode token.
    pub fn resource_return_type(&self) -> Option<[ReturnType; 4]> {
        self.ext.iter().find_map(|e| match e {
            ExtOpcode::ReturnType { types, .. } => Some(*types),
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
}

impl Deref for InstRef<'_> {
    type Target = Instruction;
    fn deref(&self) -> &Instruction {
        self.inst
    }
}

impl InstRef<'_> {
    /// Destination operands of a fixed-layout instruction.
    pub fn dsts(&self) -> &[Operand] {
        &self.operands[..self.info().dsts().min(self.operands.len())]
    }

    /// Source operands of a fixed-layout instruction.
    pub fn srcs(&self) -> &[Operand] {
        &self.operands[self.info().dsts().min(self.operands.len())..]
    }
}

impl Program {
    /// The operands of one instruction.
    pub fn operands_of(&self, inst: &Instruction) -> &[Operand] {
        &self.operands[inst.operand_range.start as usize..inst.operand_range.end as usize]
    }

    /// The instructions with their operands, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = InstRef<'_>> + '_ {
        self.instructions.iter().map(|inst| InstRef {
            inst,
            operands: self.operands_of(inst),
        })
    }

    /// Instruction `i` with its operands.
    pub fn get(&self, i: usize) -> Option<InstRef<'_>> {
        let inst = self.instructions.get(i)?;
        Some(InstRef {
            inst,
            operands: self.operands_of(inst),
        })
    }

    /// The declarations (including custom data) in order.
    pub fn declarations(&self) -> impl Iterator<Item = InstRef<'_>> + '_ {
        self.iter().filter(|i| i.opcode.is_declaration())
    }
}
