//! `libdxbc_spirv`: the translator's C API, for D3D-on-Vulkan layers written in C and C++
//! (DXVK, vkd3d-proton, Wine).
//!
//! The layers cannot call Rust, so this crate wraps the translator in `extern "C"` functions
//! and `#[repr(C)]` structs, from which cbindgen writes `include/dxbc_spirv.h`. Its shape
//! follows vkd3d-shader's API (chained input structs with a structure type and a `next`
//! pointer, separate scan and translate calls, a matching free function for every output) with
//! DXVK's and dxil-spirv's binding callbacks beside vkd3d's binding tables; `docs/capi.md` maps
//! one onto the other.
//!
//! Rules every entry point keeps: it returns a [`dxbc_spirv_status`] and, through an optional
//! `char **error_message`, a message the caller frees with [`dxbc_spirv_free_message`]; it
//! checks pointer arguments for null and alignment; it never lets a panic cross the boundary
//! (`status::guard`); it keeps no pointer the caller passed in after it returns. Everything it
//! returns belongs to the caller until given to the matching `dxbc_spirv_free_*` or
//! `dxbc_spirv_shader_destroy`, exactly once.
//!
//! Modules: [`status`] (codes, messages, the panic guard), [`chain`] (reading the chained
//! input structs), [`enums`] (the enumerations several calls share), [`shader`] (the shader handle), [`scan`] (what a layer checks before
//! creating a shader), [`translate`] (SPIR-V out, bindings and parameters in),
//! [`stream_output`] (a stream-output declaration in), [`layer`] (what D3D12 layers ask
//! beyond a binding table: dynamic descriptor offsets, mutable bindings, output swizzles,
//! device features),
//! [`reflection`] (the translation's reflection as C structs).

#![allow(non_camel_case_types)]

pub mod chain;
pub mod d3d9_state;
pub mod enums;
pub mod layer;
pub mod reflection;
pub mod scan;
pub mod shader;
pub mod status;
pub mod stream_output;
pub mod translate;

pub use status::*;

/// A C boolean: 0 is false, anything else true.
pub type dxbc_spirv_bool = u32;

/// The version of this API, `major << 22 | minor << 12 | patch` (Vulkan's packing). A caller
/// may compare `dxbc_spirv_get_api_version()` with the value it was compiled against.
pub const DXBC_SPIRV_API_VERSION: u32 = 1 << 12;

/// Marks an unbounded register range (`t10..`, SM5.1) and a runtime-sized descriptor array.
pub const DXBC_SPIRV_UNBOUNDED: u32 = 0xffff_ffff;

/// The API version this library implements (`DXBC_SPIRV_API_VERSION` when it was built).
#[unsafe(no_mangle)]
pub extern "C" fn dxbc_spirv_get_api_version() -> u32 {
    DXBC_SPIRV_API_VERSION
}

/// The library's version as text (e.g. `"0.1.0"`); a static string, not to be freed.
#[unsafe(no_mangle)]
pub extern "C" fn dxbc_spirv_get_version_string() -> *const std::ffi::c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
