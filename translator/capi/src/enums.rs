//! Enumerations several calls share: stages, register classes, descriptor types.
//!
//! Each is a `uint32_t` typedef with `#define`d values rather than a C `enum`, so that the
//! size is fixed and a value the caller made up is an error the library can report rather than
//! undefined behaviour in Rust.

use translator::reflect::{DescriptorType, RegisterClass};

/// A pipeline stage.
pub type dxbc_spirv_stage = u32;
pub const DXBC_SPIRV_STAGE_VERTEX: dxbc_spirv_stage = 0;
pub const DXBC_SPIRV_STAGE_HULL: dxbc_spirv_stage = 1;
pub const DXBC_SPIRV_STAGE_DOMAIN: dxbc_spirv_stage = 2;
pub const DXBC_SPIRV_STAGE_GEOMETRY: dxbc_spirv_stage = 3;
pub const DXBC_SPIRV_STAGE_PIXEL: dxbc_spirv_stage = 4;
pub const DXBC_SPIRV_STAGE_COMPUTE: dxbc_spirv_stage = 5;

pub(crate) fn stage(s: translator::container::ShaderStage) -> dxbc_spirv_stage {
    use translator::container::ShaderStage as S;
    match s {
        S::Vertex => DXBC_SPIRV_STAGE_VERTEX,
        S::Hull => DXBC_SPIRV_STAGE_HULL,
        S::Domain => DXBC_SPIRV_STAGE_DOMAIN,
        S::Geometry => DXBC_SPIRV_STAGE_GEOMETRY,
        S::Pixel => DXBC_SPIRV_STAGE_PIXEL,
        S::Compute => DXBC_SPIRV_STAGE_COMPUTE,
    }
}

pub(crate) fn reflect_stage(s: translator::reflect::ShaderStage) -> dxbc_spirv_stage {
    use translator::reflect::ShaderStage as S;
    match s {
        S::Vertex => DXBC_SPIRV_STAGE_VERTEX,
        S::Hull => DXBC_SPIRV_STAGE_HULL,
        S::Domain => DXBC_SPIRV_STAGE_DOMAIN,
        S::Geometry => DXBC_SPIRV_STAGE_GEOMETRY,
        S::Pixel => DXBC_SPIRV_STAGE_PIXEL,
        S::Compute => DXBC_SPIRV_STAGE_COMPUTE,
    }
}

/// A D3D register class; UAV counters are a class of their own (they get their own binding).
pub type dxbc_spirv_register_class = u32;
/// `b#`: constant buffers (CBV).
pub const DXBC_SPIRV_REGISTER_CLASS_CBV: dxbc_spirv_register_class = 0;
/// `t#`: shader resource views (SRV).
pub const DXBC_SPIRV_REGISTER_CLASS_SRV: dxbc_spirv_register_class = 1;
/// `s#`: samplers.
pub const DXBC_SPIRV_REGISTER_CLASS_SAMPLER: dxbc_spirv_register_class = 2;
/// `u#`: unordered access views (UAV).
pub const DXBC_SPIRV_REGISTER_CLASS_UAV: dxbc_spirv_register_class = 3;
/// The hidden counter of a `u#` (`imm_atomic_alloc/consume`, append/consume buffers).
pub const DXBC_SPIRV_REGISTER_CLASS_UAV_COUNTER: dxbc_spirv_register_class = 4;

pub(crate) fn register_class(c: RegisterClass, counter: bool) -> dxbc_spirv_register_class {
    match (c, counter) {
        (_, true) => DXBC_SPIRV_REGISTER_CLASS_UAV_COUNTER,
        (RegisterClass::B, _) => DXBC_SPIRV_REGISTER_CLASS_CBV,
        (RegisterClass::T, _) => DXBC_SPIRV_REGISTER_CLASS_SRV,
        (RegisterClass::S, _) => DXBC_SPIRV_REGISTER_CLASS_SAMPLER,
        (RegisterClass::U, _) => DXBC_SPIRV_REGISTER_CLASS_UAV,
    }
}

/// (class, counter) of a C register class; `None` for values the API does not define.
pub(crate) fn from_register_class(c: dxbc_spirv_register_class) -> Option<(RegisterClass, bool)> {
    Some(match c {
        DXBC_SPIRV_REGISTER_CLASS_CBV => (RegisterClass::B, false),
        DXBC_SPIRV_REGISTER_CLASS_SRV => (RegisterClass::T, false),
        DXBC_SPIRV_REGISTER_CLASS_SAMPLER => (RegisterClass::S, false),
        DXBC_SPIRV_REGISTER_CLASS_UAV => (RegisterClass::U, false),
        DXBC_SPIRV_REGISTER_CLASS_UAV_COUNTER => (RegisterClass::U, true),
        _ => return None,
    })
}

/// A Vulkan descriptor type, numbered as `VkDescriptorType`.
pub type dxbc_spirv_descriptor_type = u32;
pub const DXBC_SPIRV_DESCRIPTOR_TYPE_SAMPLER: dxbc_spirv_descriptor_type = 0;
/// An image and its sampler in one descriptor (Direct3D 9 `s#` with combined samplers).
pub const DXBC_SPIRV_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER: dxbc_spirv_descriptor_type = 1;
pub const DXBC_SPIRV_DESCRIPTOR_TYPE_SAMPLED_IMAGE: dxbc_spirv_descriptor_type = 2;
pub const DXBC_SPIRV_DESCRIPTOR_TYPE_STORAGE_IMAGE: dxbc_spirv_descriptor_type = 3;
pub const DXBC_SPIRV_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER: dxbc_spirv_descriptor_type = 4;
pub const DXBC_SPIRV_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER: dxbc_spirv_descriptor_type = 5;
pub const DXBC_SPIRV_DESCRIPTOR_TYPE_UNIFORM_BUFFER: dxbc_spirv_descriptor_type = 6;
pub const DXBC_SPIRV_DESCRIPTOR_TYPE_STORAGE_BUFFER: dxbc_spirv_descriptor_type = 7;

const DESCRIPTOR_TYPES: [(DescriptorType, dxbc_spirv_descriptor_type); 8] = [
    (DescriptorType::Sampler, DXBC_SPIRV_DESCRIPTOR_TYPE_SAMPLER),
    (
        DescriptorType::CombinedImageSampler,
        DXBC_SPIRV_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
    ),
    (
        DescriptorType::SampledImage,
        DXBC_SPIRV_DESCRIPTOR_TYPE_SAMPLED_IMAGE,
    ),
    (
        DescriptorType::StorageImage,
        DXBC_SPIRV_DESCRIPTOR_TYPE_STORAGE_IMAGE,
    ),
    (
        DescriptorType::UniformTexelBuffer,
        DXBC_SPIRV_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
    ),
    (
        DescriptorType::StorageTexelBuffer,
        DXBC_SPIRV_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER,
    ),
    (
        DescriptorType::UniformBuffer,
        DXBC_SPIRV_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
    ),
    (
        DescriptorType::StorageBuffer,
        DXBC_SPIRV_DESCRIPTOR_TYPE_STORAGE_BUFFER,
    ),
];

pub(crate) fn descriptor_type(t: DescriptorType) -> dxbc_spirv_descriptor_type {
    DESCRIPTOR_TYPES
        .iter()
        .find(|(d, _)| *d == t)
        .map_or(u32::MAX, |(_, c)| *c)
}

/// The descriptor types whose bits `mask` sets (bit `1 << DXBC_SPIRV_DESCRIPTOR_TYPE_*`);
/// `None` when it sets a bit no type has.
pub(crate) fn descriptor_types_in_mask(mask: u32) -> Option<Vec<DescriptorType>> {
    let known = DESCRIPTOR_TYPES.iter().fold(0u32, |m, (_, c)| m | 1 << c);
    if mask & !known != 0 {
        return None;
    }
    Some(
        DESCRIPTOR_TYPES
            .iter()
            .filter(|(_, c)| mask & (1 << c) != 0)
            .map(|(d, _)| *d)
            .collect(),
    )
}
