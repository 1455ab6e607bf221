//! Direct3D shader bytecode → SPIR-V translation, for DXBC and for Direct3D 9.
//!
//! The crate reads Direct3D shader bytecode and turns it into SPIR-V modules for Vulkan:
//!
//! - **DXBC** containers holding Shader Model 4.0–5.1 programs (vertex, hull, domain,
//!   geometry, pixel and compute shaders), as compiled by fxc;
//! - **Direct3D 9** token streams ("d3dbc": vs 1.0–3.0, ps 1.0–3.0, with the fixed-function
//!   render state the shader depends on compiled in as chosen), the bytecode of Direct3D 8 and 9.
//!
//! [`translate`] takes either (it tells them apart by their first bytes) and returns the SPIR-V
//! words and a [`Reflection`]: what the module expects from its pipeline (interface
//! locations, descriptor sets and bindings, push constants, specialization constants). To
//! translate many shaders, keep a [`Translator`] (one per thread): same results, with its
//! working buffers reused. The pipeline, one module per step, is:
//!
//! 1. [`container`] — the DXBC container: header, chunk table, checksum, signatures, RDEF, …;
//!    [`d3dbc`] — the Direct3D 9 token format, its decoder, disassembler and assembler.
//! 2. [`sm4`] — the SM4/5 token format: opcode table as data, decoder to typed instructions,
//!    and an fxc-style disassembler (`Display`); [`asm`] assembles that syntax back.
//! 3. IR, passes and SPIR-V emission (see `docs/architecture.md`; `docs/d3d9.md` for the
//!    Direct3D 9 front end).
//!
//! # Translating a DXBC shader
//!
//! ```
//! use translator::reflect::DescriptorType;
//! use translator::{Options, ShaderStage};
//!
//! // A pixel shader compiled by an HLSL compiler (shaders/examples/ps_texture.hlsl): a
//! // constant buffer, a texture and a sampler.
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shaders/examples/ps_texture.dxbc");
//! let dxbc = std::fs::read(path)?;
//! let t = translator::translate(&dxbc, &Options::default())?;
//!
//! assert_eq!(t.spirv[0], 0x0723_0203); // the SPIR-V magic number
//! assert_eq!(t.reflection.stage, ShaderStage::Pixel);
//! let types: Vec<DescriptorType> =
//!     t.reflection.descriptors.iter().map(|d| d.descriptor_type).collect();
//! assert!(types.contains(&DescriptorType::UniformBuffer)); // cbuffer Material : b0
//! assert!(types.contains(&DescriptorType::SampledImage)); // Texture2D diffuse : t0
//! assert!(types.contains(&DescriptorType::Sampler)); // SamplerState : s0
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Translating a Direct3D 9 shader
//!
//! The same call takes a Direct3D 9 token stream; here one made by the crate's own assembler
//! ([`d3dbc::asm`], Microsoft's assembly syntax):
//!
//! ```
//! use translator::reflect::D3d9ConstantKind;
//! use translator::{Options, ShaderStage, Translator};
//!
//! let d3d9 = translator::d3dbc::asm::assemble(
//!     "vs_2_0\n\
//!      dcl_position v0\n\
//!      dcl_texcoord v1\n\
//!      m4x4 oPos, v0, c0\n\
//!      mov oT0.xy, v1\n",
//! )?;
//! assert_eq!(&d3d9[..4], &[0x00, 0x02, 0xfe, 0xff]); // version token: vs_2_0
//!
//! // A Translator reuses its buffers from one shader to the next.
//! let mut translator = Translator::new();
//! let t = translator.translate(&d3d9, &Options::default())?;
//! assert_eq!(t.spirv[0], 0x0723_0203);
//! assert_eq!(t.reflection.stage, ShaderStage::Vertex);
//! // What the caller provides: the float constants c0-c3 the matrix reads, in a uniform
//! // buffer at the `b#` register the reflection names.
//! let d3d9_info = t.reflection.d3d9.as_ref().expect("a Direct3D 9 program");
//! let floats = &d3d9_info.constants[0];
//! assert_eq!(floats.kind, D3d9ConstantKind::Float);
//! assert_eq!(floats.used, Some([0, 3]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Errors are values ([`Error`]): malformed input is refused with the byte offset and what was
//! wrong, never a panic.

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
pub mod stage_times;

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
pub use reflect::{Name, Reflection};
pub use stage::ShaderStage;
pub use translate::{Error, Translation, Translator, translate};
