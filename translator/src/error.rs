//! The crate's error type: each stage's own error, wrapped, with one [`ErrorKind`] that callers
//! (the CLI, the C API, tests) branch on instead of reading message text.
//!
//! Each stage owns its error type beside its code (container, decoder, lowering, passes,
//! emission), with what it knows as data: the byte offset of the instruction for lowering, the
//! pass name for the passes, the SPIR-V opcode for emission. This module only wraps them; it
//! imports no stage's logic, so no stage depends on the orchestrator.

use crate::container::{ContainerError, ContainerErrorKind};
use crate::emit::EmitError;
use crate::lower::LowerError;
use crate::passes::PassError;
use crate::sm4::{DecodeError, DecodeErrorKind};

/// Any error the crate reports, by the step that found it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The DXBC container (header, chunk table, chunk contents) is malformed.
    #[error("container: {0}")]
    Container(#[from] ContainerError),
    /// The SM4/5 program token stream is malformed.
    #[error("decode: {0}")]
    Decode(#[from] DecodeError),
    /// Lowering found the program unsupported or invalid, or the binding layout has no place
    /// for one of its registers.
    #[error("translate: {0}")]
    Lower(#[from] LowerError),
    /// A pass over the IR could not handle the program (or found a bug of its own).
    #[error("translate: {0}")]
    Pass(#[from] PassError),
    /// The module cannot be written as SPIR-V (an instruction over SPIR-V's limits).
    #[error("translate: {0}")]
    Emit(#[from] EmitError),
}

/// What kind of failure an [`Error`] is, whichever stage found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The bytes are not a well-formed shader (container or token stream).
    Malformed,
    /// A well-formed program that breaks a rule of its shader model.
    Invalid,
    /// A valid program using something the translator does not implement (or beyond a limit
    /// it sets, or beyond SPIR-V's limits).
    Unsupported,
    /// The caller's binding layout or policy has no place for a declared register range.
    Binding,
    /// A bug in the translator: one of its own invariants did not hold.
    Internal,
}

impl Error {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Container(e) => match e.kind {
                ContainerErrorKind::TooComplex => ErrorKind::Unsupported,
                _ => ErrorKind::Malformed,
            },
            Error::Decode(e) => match e.kind {
                DecodeErrorKind::UnsupportedVersion { .. } => ErrorKind::Unsupported,
                _ => ErrorKind::Malformed,
            },
            Error::Lower(e) => e.kind(),
            Error::Pass(e) => e.kind(),
            Error::Emit(e) => e.kind(),
        }
    }

    /// Whether the input is a program the translator does not (yet) handle, as opposed to bad
    /// input, a binding problem or a bug.
    pub fn is_unsupported(&self) -> bool {
        self.kind() == ErrorKind::Unsupported
    }

    /// The byte offset in the input where the problem was found, when one is known.
    pub fn offset(&self) -> Option<usize> {
        match self {
            Error::Container(e) => Some(e.offset),
            Error::Decode(e) => Some(e.offset),
            Error::Lower(e) => e.offset(),
            Error::Pass(_) | Error::Emit(_) => None,
        }
    }
}
