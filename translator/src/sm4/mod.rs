//! The Shader Model 4/5 token format (SHDR/SHEX chunk contents): decoder, encoder, opcode
//! table and fxc-style disassembler.
//!
//! [`decode`] turns a chunk's dwords into a typed [`Program`] that keeps every encoding
//! detail, [`encode`] turns a `Program` back into the identical dwords, and `Display` for
//! `Program` prints the fxc-style listing documented in `docs/disassembly.md`. The opcode
//! table ([`opcodes`]) is data shared by all three.
//!
//! Reading a program:
//!
//! ```ignore
//! let program = sm4::decode(chunk.data, chunk.offset)?;
//! for inst in program.iter() {
//!     match inst.opcode {
//!         Opcode::Add => { let (dst, a, b) = (&inst.operands[0], &inst.operands[1], &inst.operands[2]); }
//!         Opcode::DclResource => { let decl = inst.decl().unwrap(); /* … */ }
//!         _ => {}
//!     }
//! }
//! ```

mod decl;
mod decode;
mod disasm;
mod encode;
mod enums;
mod error;
mod instruction;
pub mod opcodes;
mod operand;

#[cfg(test)]
mod tests;

pub use decl::{CustomData, Declaration, NameToken, ReturnTypeToken, UavFlags};
pub use decode::{MAX_RELATIVE_DEPTH, decode, decode_reusing};
pub use disasm::{format_f32, format_f64};
pub use encode::{EncodeError, encode, encode_chunk, encode_instruction, encode_operand};
pub use enums::*;
pub use error::{DecodeError, DecodeErrorKind};
pub use instruction::{
    ExtOpcode, ExtOpcodes, InstData, InstRef, Instruction, OpControl, Program, Version,
};
pub use opcodes::{DataType, Opcode, OpcodeInfo};
pub use operand::{Components, Index, Operand};
