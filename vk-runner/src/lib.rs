//! vk-runner: runs translated D3D shaders on a Vulkan device and checks their results.
//!
//! Test files use vkd3d's `.shader_test` format ([`parse`]). HLSL sections are compiled to DXBC
//! by an external compiler ([`hlsl`]), DXBC is turned into SPIR-V plus a
//! [`translator::Reflection`] by a [`backend`] (our translator, or vkd3d-compiler for
//! cross-checking), and [`run`] executes the test lines on a Vulkan device ([`vk`]), building
//! every descriptor set layout, pipeline layout and vertex input from the reflection. [`mod@bench`]
//! times translated shaders on the device (the `vk-bench` binary). [`d3d12`] is the other
//! executor: the same files through vkd3d's Direct3D 12 API, with vkd3d translating the DXBC.
//! [`diff`] runs shaders through two translators on the device and compares their outputs
//! (`vk-runner diff`).

pub mod backend;
pub mod bench;
pub mod cache;
pub mod d3d12;
pub mod diff;
pub mod hlsl;
pub mod isolate;
pub mod parse;
pub mod report;
pub mod run;
pub mod vk;
