//! Lowering's error: why a well-formed program could not become IR, with the byte offset of
//! the instruction (or signature) at fault, the instruction's opcode where one is at fault and
//! the shader-model rule a program breaks, all as data, so that callers and tests match fields,
//! not message text.

/// Why lowering could not translate a well-formed program.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    /// The program uses something the translator does not implement.
    #[error("unsupported {what} at byte offset {offset:#x}")]
    Unsupported {
        what: String,
        offset: usize,
        /// The name of the instruction's opcode (`"dcl_stream"`, `"sample_b"`), when an
        /// instruction is at fault.
        opcode: Option<&'static str>,
    },
    /// A bug in the translator: an invariant of its own IR did not hold.
    #[error("internal error: {what}")]
    Internal { what: String },
    /// The program breaks a rule of the shader model.
    #[error("invalid program at byte offset {offset:#x}: {what}{}", rule_suffix(*.rule))]
    Invalid {
        what: String,
        offset: usize,
        /// The name of the instruction's opcode, when an instruction is at fault.
        opcode: Option<&'static str>,
        /// The rule broken, when [`crate::rules::check`] found it: [`crate::rules::Rule::name`].
        rule: Option<&'static str>,
    },
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
    /// An [`LowerError::Invalid`] at `offset` (no opcode or rule; see [`Self::with_opcode`]).
    pub fn invalid(offset: usize, what: impl Into<String>) -> Self {
        LowerError::Invalid {
            what: what.into(),
            offset,
            opcode: None,
            rule: None,
        }
    }

    /// An [`LowerError::Unsupported`] at `offset` (no opcode; see [`Self::with_opcode`]).
    pub fn unsupported(offset: usize, what: impl Into<String>) -> Self {
        LowerError::Unsupported {
            what: what.into(),
            offset,
            opcode: None,
        }
    }

    /// The error with the name of the opcode at fault (unsupported and invalid errors; others
    /// are returned as they are).
    pub fn with_opcode(mut self, name: &'static str) -> Self {
        if let LowerError::Unsupported { opcode, .. } | LowerError::Invalid { opcode, .. } =
            &mut self
        {
            *opcode = Some(name);
        }
        self
    }

    /// The error with the name of the rule the program breaks (invalid errors; others are
    /// returned as they are).
    pub fn with_rule(mut self, name: &'static str) -> Self {
        if let LowerError::Invalid { rule, .. } = &mut self {
            *rule = Some(name);
        }
        self
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

    /// The name of the opcode of the instruction at fault, when one is.
    pub fn opcode(&self) -> Option<&'static str> {
        match *self {
            LowerError::Unsupported { opcode, .. } | LowerError::Invalid { opcode, .. } => opcode,
            LowerError::Internal { .. }
            | LowerError::Binding { .. }
            | LowerError::StreamOutput { .. } => None,
        }
    }

    /// The shader-model rule the program breaks, when the rule check found it.
    pub fn rule(&self) -> Option<&'static str> {
        match *self {
            LowerError::Invalid { rule, .. } => rule,
            _ => None,
        }
    }
}

/// ` (rule NAME)` after an invalid program's message when a rule is named.
fn rule_suffix(rule: Option<&'static str>) -> String {
    rule.map(|r| format!(" (rule {r})")).unwrap_or_default()
}
