//! What kind of failure an error is, whichever stage found it: [`ErrorKind`], which callers
//! (the CLI, the C API, tests) branch on instead of reading message text. A leaf module: each
//! stage's error type (`ContainerError`, `DecodeError`, `LowerError`, `PassError`,
//! `EmitError`) says its kind through it, and `crate::Error` (in `translate.rs`, the
//! orchestrator that knows every stage) wraps them.

/// What kind of failure a [`crate::Error`] is, whichever stage found it.
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
    /// The caller's stream-output declaration is malformed or does not fit the shader
    /// (`Options::stream_output`).
    StreamOutput,
    /// A bug in the translator: one of its own invariants did not hold.
    Internal,
}
