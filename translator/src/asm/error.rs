//! The assembler's error type: where in the text (line and column) and what was expected.

use std::fmt;

/// An assembly text that cannot be assembled. Lines and columns count from 1; columns count
/// characters, not bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl AsmError {
    pub fn new(line: u32, column: u32, message: impl Into<String>) -> Self {
        AsmError {
            line,
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for AsmError {}

pub type Result<T> = std::result::Result<T, AsmError>;
