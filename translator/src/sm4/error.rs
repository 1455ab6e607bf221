//! The decoder's error type: what was wrong and at which byte offset of the container.

/// A malformed token stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte offset {offset:#x}: {kind}")]
pub struct DecodeError {
    /// Byte offset in the container (chunk data offset + offset in the chunk) of the token
    /// that is wrong or missing.
    pub offset: usize,
    pub kind: DecodeErrorKind,
}

/// What was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeErrorKind {
    /// The data ended (or the instruction's length ran out) where a token was expected.
    #[error("truncated: expected {0}")]
    Truncated(&'static str),
    /// The length token is smaller than the version and length tokens or larger than the chunk.
    #[error("program length {declared} dwords does not fit a chunk of {available} dwords")]
    ProgramLength { declared: u32, available: usize },
    /// Not SM4.0, 4.1, 5.0 or 5.1.
    #[error("unsupported shader model {major}.{minor}")]
    UnsupportedVersion { major: u8, minor: u8 },
    /// A field holds a value its enumeration does not define.
    #[error("invalid {what} {value}")]
    BadValue { what: &'static str, value: u32 },
    /// An opcode number the format does not define (or a reserved one).
    #[error("unknown opcode {0} ({0:#x})")]
    UnknownOpcode(u32),
    /// An instruction whose length is too small to hold its own opcode (and length) tokens.
    #[error("instruction length {0} is too small")]
    BadLength(u32),
    /// An instruction whose length runs past the end of the program.
    #[error(
        "instruction length {length} dwords runs past the end of the program ({remaining} dwords left)"
    )]
    InstructionPastEnd { length: u32, remaining: usize },
    /// Relative index operands nested deeper than the decoder allows.
    #[error("relative index operands nested more than {0} deep")]
    NestingTooDeep(u32),
    /// Two extended opcode tokens of the same kind (so more than three in all).
    #[error("extended opcode token repeats a kind already present")]
    ExtendedOpcodes,
    /// An extended operand token with its "extended" bit set (no second-order extended
    /// operand tokens are defined).
    #[error("chained extended operand tokens are not defined")]
    ChainedExtendedOperand,
    /// A count field larger than the instruction could hold.
    #[error("{what} count {count} exceeds the {available} dword(s) left in the instruction")]
    CountTooLarge {
        what: &'static str,
        count: u32,
        available: usize,
    },
}

impl DecodeError {
    pub fn new(offset: usize, kind: DecodeErrorKind) -> Self {
        DecodeError { offset, kind }
    }
}
