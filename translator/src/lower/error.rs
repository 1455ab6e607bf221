//! Lowering's error: why a well-formed program could not become IR, with the byte offset of
//! the instruction (or signature) at fault as data.

/// Why lowering could not translate a well-formed program.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    /// The program uses something the translator does not implement.
    #[error("unsupported {what} at byte offset {offset:#x}")]
    Unsupported { what: String, offset: usize },
    /// A bug in the translator: an invariant of its own IR did not hold.
    #[error("internal error: {what}")]
    Internal { what: String },
    /// The program breaks a rule of the shader model.
    #[error("invalid program at byte offset {offset:#x}: {what}")]
    Invalid { what: String, offset: usize },
    /// A declared register range has no place under the binding policy or layout.
    #[error("at byte offset {offset:#x}: {error}")]
    Binding {
        error: crate::binding::BindingError,
        offset: usize,
    },
    /// The stream-output declaration is malformed or does not fit the shader: `entry` is the
    /// index of the entry at fault (none: the declaration as a whole, e.g. a stride).
    #[error("stream-output declaration{}: {what}", entry.map(|i| format!(" entry {i}")).unwrap_or_default())]
    StreamOutput { entry: Option<usize>, what: String },
}

impl LowerError {
    /// An [`LowerError::Invalid`] at `offset`.
    pub fn invalid(offset: usize, what: impl Into<String>) -> Self {
        LowerError::Invalid {
            what: what.into(),
            offset,
        }
    }

    /// An [`LowerError::Unsupported`] at `offset`.
    pub fn unsupported(offset: usize, what: impl Into<String>) -> Self {
        LowerError::Unsupported {
            what: what.into(),
            offset,
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> crate::ErrorKind {
        use crate::ErrorKind as K;
        match self {
            LowerError::Unsupported { .. } => K::Unsupported,
            LowerError::Internal { .. } => K::Internal,
            LowerError::Invalid { .. } => K::Invalid,
            LowerError::Binding { .. } => K::Binding,
            LowerError::StreamOutput { .. } => K::StreamOutput,
        }
    }

    /// The byte offset of the instruction or signature at fault, when there is one.
    pub fn offset(&self) -> Option<usize> {
        match *self {
            LowerError::Unsupported { offset, .. }
            | LowerError::Invalid { offset, .. }
            | LowerError::Binding { offset, .. } => Some(offset),
            LowerError::Internal { .. } | LowerError::StreamOutput { .. } => None,
        }
    }
}
