//! The Shader Model 4/5 token format.

/// A malformed token stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte offset {offset:#x}: {what}")]
pub struct DecodeError {
    pub offset: usize,
    pub what: String,
}
