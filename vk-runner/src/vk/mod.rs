//! Vulkan: device setup, memory, resources, samplers, descriptor binding from reflection, and
//! pipelines, and GPU timestamps for benchmarking.

pub mod bind;
pub mod context;
pub mod features;
pub mod memory;
pub mod pipeline;
pub mod push;
pub mod resource;
pub mod sampler;
pub mod timing;
