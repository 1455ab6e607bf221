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

pub mod asm;
pub mod binding;
pub mod container;
pub mod debug;
pub mod emit;
pub mod ir;
mod lower;
pub mod passes;
pub mod reflect;
pub mod rules;
pub mod sm4;

mod translate;

pub use reflect::Reflection;
pub use translate::{Options, TargetEnv, TranslateError, Translation, translate};

/// Any error the crate reports, by the step that found it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The DXBC container (header, chunk table, chunk contents) is malformed.
    #[error("container: {0}")]
    Container(#[from] container::ContainerError),
    /// The SM4/5 program token stream is malformed.
    #[error("decode: {0}")]
    Decode(#[from] sm4::DecodeError),
    /// The program is well formed but cannot be translated.
    #[error("translate: {0}")]
    Translate(#[from] TranslateError),
}
