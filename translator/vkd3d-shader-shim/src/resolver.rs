//! Where each register range of a shader goes, answered from vkd3d's interface description:
//! `vkd3d_shader_interface_info`'s resource bindings (type, register space and index, count,
//! shader visibility, buffer/image flags), push-constant buffers (root constants), UAV
//! counters and combined samplers, with `vkd3d_shader_descriptor_offset_info`'s static
//! offsets. It implements the translator's [`Resolver`], so the translator asks it range by
//! range and checks its answers like a binding layout's.
//!
//! A range matches the first binding vkd3d's own lookup would take: same descriptor type and
//! space, visible to the stage, carrying the buffer or image flag the range's descriptor needs,
//! and covering the range's registers. Register `r` of a binding starting at register `base`
//! is array element `r - base + static_offset`. What vkd3d asks that the translator cannot
//! express yet is refused with the reason: descriptor indices taken from push constants
//! (`dynamic_offset_index`), raw and structured buffers and UAV counters as texel buffers,
//! atomic-counter offsets.

use translator::binding::{Placement, RangeRequest, Resolver};
use translator::reflect::{DescriptorType, RegisterClass, ShaderStage};

use crate::abi;

/// The bindings of one compile, copied out of the caller's arrays.
#[derive(Debug, Clone, Default)]
pub struct Interface {
    /// Each resource binding with its descriptor offset (from descriptor_offset_info).
    pub bindings: Vec<(abi::ResourceBinding, abi::DescriptorOffset)>,
    pub push_constants: Vec<abi::PushConstantBuffer>,
    pub counters: Vec<(abi::UavCounterBinding, abi::DescriptorOffset)>,
    pub combined: Vec<abi::CombinedResourceSampler>,
    /// The stage's `vkd3d_shader_visibility`.
    pub visibility: u32,
    /// `VKD3D_SHADER_COMPILE_OPTION_BUFFER_UAV` is `STORAGE_BUFFER`: raw and structured UAVs
    /// and UAV counters are storage buffers, as the translator declares them.
    pub buffer_uav_storage: bool,
}

/// The `vkd3d_shader_visibility` of a stage.
pub fn visibility(stage: ShaderStage) -> u32 {
    match stage {
        ShaderStage::Vertex => abi::VISIBILITY_VERTEX,
        ShaderStage::Hull => abi::VISIBILITY_HULL,
        ShaderStage::Domain => abi::VISIBILITY_DOMAIN,
        ShaderStage::Geometry => abi::VISIBILITY_GEOMETRY,
        ShaderStage::Pixel => abi::VISIBILITY_PIXEL,
        ShaderStage::Compute => abi::VISIBILITY_COMPUTE,
    }
}

/// A descriptor offset meaning "none": static 0, no dynamic index.
pub const NO_OFFSET: abi::DescriptorOffset = abi::DescriptorOffset {
    static_offset: 0,
    dynamic_offset_index: u32::MAX,
};

impl Interface {
    fn visible(&self, v: u32) -> bool {
        v == abi::VISIBILITY_ALL || v == self.visibility
    }

    /// Array element of register `lower` in a binding starting at `base`, plus the offset.
    fn element(
        &self,
        range: &RangeRequest,
        base: u32,
        count: u32,
        off: abi::DescriptorOffset,
    ) -> Result<Option<u32>, String> {
        if range.lower < base {
            return Ok(None);
        }
        let end = u64::from(base) + u64::from(count);
        let covered = count == u32::MAX
            || match range.upper {
                Some(u) => u64::from(u) < end,
                // An unbounded shader range is a runtime array from its first register.
                None => u64::from(range.lower) < end,
            };
        if !covered {
            return Ok(None);
        }
        if off.dynamic_offset_index != u32::MAX {
            return Err(format!(
                "vkd3d takes its descriptor index from push constants (dynamic offset index \
                 {}, VKD3D_CONFIG's default descriptor heaps); the translator cannot express \
                 push-constant descriptor indices yet (try VKD3D_CONFIG=virtual_heaps)",
                off.dynamic_offset_index
            ));
        }
        let e = u64::from(range.lower - base) + u64::from(off.static_offset);
        u32::try_from(e)
            .map(Some)
            .map_err(|_| format!("array element {e} is past 2^32"))
    }

    fn place_counter(&self, range: &RangeRequest) -> Result<Placement, String> {
        if !self.buffer_uav_storage {
            return Err(
                "vkd3d binds UAV counters as R32_UINT storage texel buffers \
                 (VKD3D_SHADER_COMPILE_OPTION_BUFFER_UAV is STORAGE_TEXEL_BUFFER); the \
                 translator's counters are storage buffers and cannot be texel buffers yet"
                    .into(),
            );
        }
        for (c, off) in &self.counters {
            if c.register_space != range.space || !self.visible(c.shader_visibility) {
                continue;
            }
            let Some(elem) = self.element(range, c.register_index, c.binding.count, *off)? else {
                continue;
            };
            if c.offset != 0 {
                return Err(format!(
                    "the UAV counter binding has an atomic-counter offset ({}), which only \
                     OpenGL targets use",
                    c.offset
                ));
            }
            return Ok(Placement::Descriptor {
                dynamic_offset: None,
                mutable: false,
                set: c.binding.set,
                binding: c.binding.binding,
                array_offset: elem,
            });
        }
        Err("no UAV counter binding of the interface covers it".into())
    }

    fn place_combined(&self, range: &RangeRequest) -> Result<Placement, String> {
        for c in &self.combined {
            if c.resource_space != range.space
                || c.sampler_space != range.space
                || c.resource_index != c.sampler_index
                || !self.visible(c.shader_visibility)
            {
                continue;
            }
            if let Some(elem) = self.element(range, c.sampler_index, c.binding.count, NO_OFFSET)? {
                return Ok(Placement::Descriptor {
                    dynamic_offset: None,
                    mutable: false,
                    set: c.binding.set,
                    binding: c.binding.binding,
                    array_offset: elem,
                });
            }
        }
        Err(
            "no combined resource-sampler binding of the interface pairs texture and \
             sampler of this register"
                .into(),
        )
    }
}

impl Resolver for Interface {
    fn place(&self, range: &RangeRequest) -> Result<Placement, String> {
        if range.counter {
            return self.place_counter(range);
        }
        let (ty, flag) = match (range.class, range.descriptor_type) {
            (RegisterClass::B, DescriptorType::UniformBuffer) => {
                for p in &self.push_constants {
                    if p.register_space == range.space
                        && p.register_index == range.lower
                        && range.upper == Some(range.lower)
                        && self.visible(p.shader_visibility)
                    {
                        return Ok(Placement::PushConstant {
                            offset: p.offset,
                            size: p.size,
                        });
                    }
                }
                (abi::DESCRIPTOR_TYPE_CBV, abi::BINDING_FLAG_BUFFER)
            }
            (RegisterClass::T, DescriptorType::SampledImage) => {
                (abi::DESCRIPTOR_TYPE_SRV, abi::BINDING_FLAG_IMAGE)
            }
            (RegisterClass::T, DescriptorType::UniformTexelBuffer) => {
                (abi::DESCRIPTOR_TYPE_SRV, abi::BINDING_FLAG_BUFFER)
            }
            (RegisterClass::T, DescriptorType::StorageBuffer) => {
                return Err(
                    "vkd3d binds raw and structured buffer SRVs as R32_UINT uniform \
                     texel buffers; the translator declares them as storage buffers and \
                     cannot read them through texel buffers yet"
                        .into(),
                );
            }
            (RegisterClass::U, DescriptorType::StorageImage) => {
                (abi::DESCRIPTOR_TYPE_UAV, abi::BINDING_FLAG_IMAGE)
            }
            (RegisterClass::U, DescriptorType::StorageTexelBuffer) => {
                (abi::DESCRIPTOR_TYPE_UAV, abi::BINDING_FLAG_BUFFER)
            }
            (RegisterClass::U, DescriptorType::StorageBuffer) if self.buffer_uav_storage => {
                (abi::DESCRIPTOR_TYPE_UAV, abi::BINDING_FLAG_BUFFER)
            }
            (RegisterClass::U, DescriptorType::StorageBuffer) => {
                return Err(
                    "vkd3d binds raw and structured buffer UAVs as R32_UINT storage \
                     texel buffers (VKD3D_SHADER_COMPILE_OPTION_BUFFER_UAV is \
                     STORAGE_TEXEL_BUFFER); the translator declares them as storage buffers \
                     and cannot access them through texel buffers yet"
                        .into(),
                );
            }
            (RegisterClass::S, DescriptorType::CombinedImageSampler) => {
                return self.place_combined(range);
            }
            // Samplers: vkd3d's callers flag them IMAGE or not at all; the flag is not read.
            (RegisterClass::S, DescriptorType::Sampler) => (abi::DESCRIPTOR_TYPE_SAMPLER, 0),
            (class, t) => {
                return Err(format!(
                    "a {t:?} descriptor for register class {} has no vkd3d binding type",
                    class.letter()
                ));
            }
        };
        for (b, off) in &self.bindings {
            if b.ty != ty
                || b.register_space != range.space
                || !self.visible(b.shader_visibility)
                || (flag != 0 && b.flags & flag == 0)
            {
                continue;
            }
            if let Some(elem) = self.element(range, b.register_index, b.binding.count, *off)? {
                return Ok(Placement::Descriptor {
                    dynamic_offset: None,
                    mutable: false,
                    set: b.binding.set,
                    binding: b.binding.binding,
                    array_offset: elem,
                });
            }
        }
        Err(format!(
            "no {} binding of the interface{} covers it",
            match ty {
                abi::DESCRIPTOR_TYPE_CBV => "CBV (or push-constant buffer)",
                abi::DESCRIPTOR_TYPE_SRV => "SRV",
                abi::DESCRIPTOR_TYPE_UAV => "UAV",
                _ => "sampler",
            },
            match flag {
                abi::BINDING_FLAG_BUFFER => " flagged BUFFER",
                abi::BINDING_FLAG_IMAGE => " flagged IMAGE",
                _ => "",
            }
        ))
    }
}
