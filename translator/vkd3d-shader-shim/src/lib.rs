//! A stand-in for `libvkd3d-shader.so.1`, vkd3d's shader compiler, so that vkd3d (Wine's
//! D3D12-on-Vulkan library) and other callers of vkd3d-shader's C ABI (wined3d's Vulkan
//! renderer) compile their DXBC and Direct3D 9 shaders with this translator.
//!
//! It has the real library's SONAME and its exports versioned `VKD3D_1_0` (build.rs), so a
//! preloaded copy takes the real one's place. `vkd3d_shader_compile` of `DXBC_TPF` and
//! `D3D_BYTECODE` sources to `SPIRV_BINARY` runs the translator, honouring every chained
//! structure the caller passes or refusing it by name ([`plan`], [`resolver`], [`params`]);
//! a refused shader fails with vkd3d's error convention and a logged line ([`report`]), and
//! reaches the real compiler only when `DXBC_SPIRV_VKD3D_FORWARD_REFUSED=1`. Scans of DXBC
//! and Direct3D 9 bytecode are answered by the stand-in too ([`scan`]). Everything else
//! (HLSL, DXIL, root signatures, DXBC parsing) goes to the real library ([`real`]).
//! `docs/vkd3d.md` says how to use it and what is supported.

pub mod abi;
pub mod chain;
pub mod compile;
pub mod exports;
pub mod params;
pub mod plan;
pub mod real;
pub mod report;
pub mod resolver;
pub mod scan;
pub mod signature;
