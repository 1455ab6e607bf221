//! The decoder's error type: what was wrong and at which byte offset of the token stream.

/// A malformed D3D9 token stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte offset {offset:#x}: {kind}")]
pub struct DecodeError {
    /// Byte offset (from the start of the stream, the version token) of the token that is
    /// wrong or missing.
    pub offset: usize,
    pub kind: DecodeErrorKind,
}

/// What was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeErrorKind {
    /// The data ended where a token was expected.
    #[error("truncated: expected {0}")]
    Truncated(&'static str),
    /// The first token is not a vertex (0xFFFE) or pixel (0xFFFF) shader version token.
    #[error("not a Direct3D 9 shader: version token {0:#010x}")]
    NotD3d9(u32),
    /// A version D3D9 does not define.
    #[error("unsupported shader version {stage}_{major}.{minor}")]
    UnsupportedVersion {
        stage: &'static str,
        major: u8,
        minor: u8,
    },
    /// An opcode number the format does not define.
    #[error("unknown opcode {0:#06x}")]
    UnknownOpcode(u32),
    /// A field holds a value its enumeration does not define.
    #[error("invalid {what} {value:#x}")]
    BadValue { what: &'static str, value: u32 },
    /// Bits that must be zero (or one) are not.
    #[error("{what} token {token:#010x} has reserved bits set ({bits:#010x})")]
    ReservedBits {
        what: &'static str,
        token: u32,
        bits: u32,
    },
    /// An instruction's operand count does not fit its opcode.
    #[error("{opcode} takes {expected} operand tokens, the instruction has {found}")]
    OperandCount {
        opcode: &'static str,
        expected: &'static str,
        found: usize,
    },
    /// The 2.0+ length field runs past the end of the data.
    #[error("instruction length {length} dwords runs past the end of the data ({remaining} left)")]
    InstructionPastEnd { length: u32, remaining: usize },
    /// A relative-address token runs past the instruction's length.
    #[error("{0} runs past the end of the instruction")]
    OperandPastEnd(&'static str),
    /// A feature used where the version does not allow its encoding.
    #[error("{what} is not allowed in {version}")]
    NotInVersion { what: &'static str, version: String },
    /// A comment whose length runs past the end of the data.
    #[error("comment of {length} dwords runs past the end of the data ({remaining} left)")]
    CommentPastEnd { length: u32, remaining: usize },
}

impl DecodeError {
    pub fn new(offset: usize, kind: DecodeErrorKind) -> Self {
        DecodeError { offset, kind }
    }
}
