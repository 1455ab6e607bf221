//! The Direct3D 9 shader token format (shader models 1.x–3.0, "d3dbc"): opcode table,
//! decoder, encoder, Microsoft-syntax disassembler and assembler.
//!
//! A D3D9 shader is a bare stream of little-endian dwords — version token, instructions and
//! comments, END — with no container. [`decode`] turns it into a typed [`Program`]
//! (registers, modifiers as enums, instructions with byte offsets) that keeps every encoding
//! detail, [`encode`] turns it back into the identical bytes, `Display` for `Program` prints
//! Microsoft's assembly syntax and [`asm::assemble`] reads that syntax back. The opcode table
//! ([`opcodes`]) is data shared by all of them; `docs/d3d9.md` documents the format, the
//! syntax and the decisions.
//!
//! ```
//! use translator::d3dbc;
//! let bytes = d3dbc::asm::assemble("vs_2_0\ndcl_position v0\nmov oPos, v0\n").unwrap();
//! let program = d3dbc::decode(&bytes).unwrap();
//! assert_eq!(program.to_string(), "vs_2_0\ndcl_position v0\nmov oPos, v0\n");
//! ```

pub mod asm;
pub mod ctab;
mod decode;
mod disasm;
mod encode;
mod error;
pub mod opcodes;
mod types;

#[cfg(test)]
mod tests;

pub use decode::{END_TOKEN, decode, decode_reusing, is_d3dbc};
pub use disasm::{format_f32, register_name, register_number};
pub use encode::{EncodeError, encode};
pub use error::{DecodeError, DecodeErrorKind};
pub use opcodes::{Opcode, OpcodeInfo};
pub use types::*;
