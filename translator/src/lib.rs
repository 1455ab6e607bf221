//! DXBC → SPIR-V translation.
//!
//! The crate reads Direct3D shader containers (DXBC) holding Shader Model 4.0–5.1 programs and
//! turns them into SPIR-V modules for Vulkan. The pipeline, one module per step, is:
//!
//! 1. [`container`] — the DXBC container: header, chunk table, checksum, signatures, RDEF, …
//! 2. [`sm4`] — the SM4/5 token format: opcode table as data, decoder to typed instructions,
//!    and an fxc-style disassembler (`Display`).
//! 3. IR, passes and SPIR-V emission (see `docs/architecture.md`).
//!
//! The public entry point for translation is [`translate`]; [`reflect`] describes what a
//! translated module expects from its caller (interface, descriptors, push constants).

#![forbid(unsafe_code)]
// A library reports through its return values: no printing (the IR dump that DXBC_DUMP_IR asks
// for is the one allowed exception) and no unwrap outside tests.
#![cfg_attr(
    not(test),
    warn(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)
)]

pub mod asm;
pub mod binding;
pub mod container;
pub mod d3d9_state;
pub mod d3dbc;
pub mod debug;
pub mod dispositions;
mod emit;
mod error;
mod ir;
mod lower;
mod lower_d3d9;
mod options;
mod passes;
pub mod reflect;
pub mod rules;
pub mod sm4;
mod stage;

mod translate;

#[cfg(test)]
mod pipeline_tests;

pub use emit::EmitError;
pub use error::ErrorKind;
pub use lower::LowerError;
/// The lowering error under its earlier name (callers matched `TranslateError::Binding` and
/// `TranslateError::Unsupported` before each stage had its own error type).
pub use lower::LowerError as TranslateError;
pub use options::{
    D3d9Options, DeviceFeatures, IcbMode, MinPrecisionMode, Options, PointSize, RawFeedback,
    RovMode, StreamOutput, StreamOutputEntry, SwizzleComponent, TargetEnv, TexelBuffers,
    TypedUavRead, VaryingLocation,
};
pub use passes::PassError;
pub use reflect::Reflection;
pub use stage::ShaderStage;
pub use translate::{Error, Translation, Translator, translate};
