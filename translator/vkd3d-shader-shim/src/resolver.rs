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
//! is array element `r - base + static_offset`, plus, with a `dynamic_offset_index` `k`, the
//! 32-bit word at byte `descriptor_table_offset + 4k` of the push constants (the placement's
//! `dynamic_offset`). A Vulkan binding that several entries of different descriptor types
//! share, or one entry flagged both buffer and image, is a mutable binding
//! (VK_EXT_mutable_descriptor_type, vkd3d's default descriptor heaps). Atomic-counter offsets
//! (OpenGL) are refused.

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
    /// `descriptor_offset_info.descriptor_table_offset`: byte offset in the push constants of
    /// the 32-bit descriptor offsets that `dynamic_offset_index` selects.
    pub descriptor_table_offset: u32,
    /// `descriptor_offset_info.descriptor_table_count`: how many there are.
    pub descriptor_table_count: u32,
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

    /// Where register `lower` of `range` lands in a binding starting at `base` with `count`
    /// registers and descriptor offset `off`: its array element and the push-constant byte
    /// offset of the word added to it; `None` when the binding does not cover the range.
    fn element(
        &self,
        range: &RangeRequest,
        base: u32,
        count: u32,
        off: abi::DescriptorOffset,
    ) -> Result<Option<(u32, Option<u32>)>, String> {
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
        let dynamic = if off.dynamic_offset_index == u32::MAX {
            None
        } else {
            if off.dynamic_offset_index >= self.descriptor_table_count {
                return Err(format!(
                    "the binding's dynamic offset index {} is past descriptor_offset_info's \
                     descriptor_table_count {}",
                    off.dynamic_offset_index, self.descriptor_table_count
                ));
            }
            let byte =
                u64::from(self.descriptor_table_offset) + 4 * u64::from(off.dynamic_offset_index);
            Some(
                u32::try_from(byte)
                    .map_err(|_| format!("push-constant byte offset {byte} is past 2^32"))?,
            )
        };
        let e = u64::from(range.lower - base) + u64::from(off.static_offset);
        u32::try_from(e)
            .map(|e| Some((e, dynamic)))
            .map_err(|_| format!("array element {e} is past 2^32"))
    }

    /// Whether Vulkan binding (`set`, `binding`) holds several descriptor types: entries of
    /// different vkd3d types (or of one type, some flagged buffer and some image) share it,
    /// one entry is flagged both buffer and image, or UAV counters share it with resources.
    fn mutable(&self, set: u32, binding: u32) -> bool {
        const BOTH: u32 = abi::BINDING_FLAG_BUFFER | abi::BINDING_FLAG_IMAGE;
        let kind = |b: &abi::ResourceBinding| {
            if b.ty == abi::DESCRIPTOR_TYPE_SAMPLER {
                (b.ty, 0)
            } else {
                (b.ty, b.flags & BOTH)
            }
        };
        let mut first = None;
        for (b, _) in &self.bindings {
            if b.binding.set != set || b.binding.binding != binding {
                continue;
            }
            let k = kind(b);
            if k.0 != abi::DESCRIPTOR_TYPE_SAMPLER && k.1 == BOTH {
                return true;
            }
            match first {
                None => first = Some(k),
                Some(f) if f != k => return true,
                Some(_) => {}
            }
        }
        // A counter in a binding that resource entries use too.
        first.is_some()
            && self
                .counters
                .iter()
                .any(|(c, _)| c.binding.set == set && c.binding.binding == binding)
    }

    fn descriptor(&self, set: u32, binding: u32, (elem, dynamic): (u32, Option<u32>)) -> Placement {
        Placement::Descriptor {
            set,
            binding,
            array_offset: elem,
            dynamic_offset: dynamic,
            mutable: self.mutable(set, binding),
        }
    }

    fn place_counter(&self, range: &RangeRequest) -> Result<Placement, String> {
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
            return Ok(self.descriptor(c.binding.set, c.binding.binding, elem));
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
            if let Some((elem, _)) =
                self.element(range, c.sampler_index, c.binding.count, NO_OFFSET)?
            {
                return Ok(Placement::descriptor(
                    c.binding.set,
                    c.binding.binding,
                    elem,
                ));
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
            // Raw and structured SRVs as storage buffers: vkd3d always asks for texel
            // buffers (`plan`), so these come only from other callers of the resolver.
            (RegisterClass::T, DescriptorType::StorageBuffer) => {
                (abi::DESCRIPTOR_TYPE_SRV, abi::BINDING_FLAG_BUFFER)
            }
            (RegisterClass::U, DescriptorType::StorageImage) => {
                (abi::DESCRIPTOR_TYPE_UAV, abi::BINDING_FLAG_IMAGE)
            }
            (RegisterClass::U, DescriptorType::StorageTexelBuffer) => {
                (abi::DESCRIPTOR_TYPE_UAV, abi::BINDING_FLAG_BUFFER)
            }
            // Raw and structured UAVs as storage buffers (`BUFFER_UAV = STORAGE_BUFFER`).
            (RegisterClass::U, DescriptorType::StorageBuffer) => {
                (abi::DESCRIPTOR_TYPE_UAV, abi::BINDING_FLAG_BUFFER)
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
                return Ok(self.descriptor(b.binding.set, b.binding.binding, elem));
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
