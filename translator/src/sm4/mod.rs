//! The Shader Model 4/5 token format (SHDR/SHEX chunk contents).
//!
//! (Placeholder API; the decoder, opcode table and disassembler live here.)

use std::fmt;

/// A malformed token stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte offset {offset:#x}: {what}")]
pub struct DecodeError {
    /// Byte offset in the container (chunk data offset + offset in the chunk).
    pub offset: usize,
    pub what: String,
}

/// A decoded program.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {}

impl fmt::Display for Program {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Ok(())
    }
}

/// Decodes a SHDR/SHEX chunk's data; `base_offset` is the byte offset of `data` in the
/// container, used in error messages and instruction offsets.
pub fn decode(data: &[u8], base_offset: usize) -> Result<Program, DecodeError> {
    let _ = data;
    Err(DecodeError { offset: base_offset, what: "decoder not implemented yet".into() })
}
