//! Descriptor set layouts, pipeline layout, descriptor sets and push constants, all derived
//! from the stages' [`Reflection`]s.
//!
//! Each reflected descriptor's D3D origin (register class, space, register range) names the
//! test resource bound to it: `b#` → the constant-buffer data set by `uniform`/`write`,
//! `t#` → `[srv #]`, `u#` → `[uav #]`, `s#` → `[sampler #]`. The Vulkan descriptor type comes
//! from the reflection; the view (image view type, texel-buffer format) from its resource shape.

use super::context::Gpu;
use super::memory::Buffer;
use super::resource::{GpuObject, TestResource};
use crate::parse::ResourceKind;
use ash::vk;
use std::collections::{BTreeMap, HashMap};
use translator::reflect::*;

/// Why something could not run: the test cannot run here (skip) or something is wrong (fail).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    Skip(String),
    Fail(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Skip(m) | RunError::Fail(m) => f.write_str(m),
        }
    }
}

impl From<String> for RunError {
    fn from(s: String) -> Self {
        RunError::Fail(s)
    }
}

/// What the runner binds from.
pub struct BindSources<'a> {
    pub resources: &'a mut HashMap<(ResourceKind, u32), TestResource>,
    pub samplers: &'a HashMap<u32, vk::Sampler>,
    pub cbuffers: &'a HashMap<u32, Vec<u32>>,
}

/// A pipeline layout with its sets written, ready to bind.
pub struct Bound {
    device: ash::Device,
    pub set_layouts: Vec<vk::DescriptorSetLayout>,
    pub layout: vk::PipelineLayout,
    pool: vk::DescriptorPool,
    pub sets: Vec<vk::DescriptorSet>,
    /// (stages, offset, bytes) to push.
    pub push: Vec<(vk::ShaderStageFlags, u32, Vec<u8>)>,
    _cbuffers: Vec<Buffer>,
}

impl Drop for Bound {
    fn drop(&mut self) {
        // SAFETY: created by this device; the runner waits for the queue before dropping.
        unsafe {
            if self.pool != vk::DescriptorPool::null() {
                self.device.destroy_descriptor_pool(self.pool, None);
            }
            self.device.destroy_pipeline_layout(self.layout, None);
            for l in &self.set_layouts {
                self.device.destroy_descriptor_set_layout(*l, None);
            }
        }
    }
}

pub fn stage_flags(s: ShaderStage) -> vk::ShaderStageFlags {
    match s {
        ShaderStage::Vertex => vk::ShaderStageFlags::VERTEX,
        ShaderStage::Pixel => vk::ShaderStageFlags::FRAGMENT,
        ShaderStage::Geometry => vk::ShaderStageFlags::GEOMETRY,
        ShaderStage::Hull => vk::ShaderStageFlags::TESSELLATION_CONTROL,
        ShaderStage::Domain => vk::ShaderStageFlags::TESSELLATION_EVALUATION,
        ShaderStage::Compute => vk::ShaderStageFlags::COMPUTE,
    }
}

fn vk_type(t: DescriptorType) -> vk::DescriptorType {
    match t {
        DescriptorType::Sampler => vk::DescriptorType::SAMPLER,
        DescriptorType::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
        DescriptorType::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
        DescriptorType::UniformTexelBuffer => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
        DescriptorType::StorageTexelBuffer => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
        DescriptorType::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        DescriptorType::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
    }
}

fn view_type(dim: ResourceDim) -> vk::ImageViewType {
    match dim {
        ResourceDim::Texture1D => vk::ImageViewType::TYPE_1D,
        ResourceDim::Texture1DArray => vk::ImageViewType::TYPE_1D_ARRAY,
        ResourceDim::Texture2D | ResourceDim::Texture2DMS => vk::ImageViewType::TYPE_2D,
        ResourceDim::Texture2DArray | ResourceDim::Texture2DMSArray => {
            vk::ImageViewType::TYPE_2D_ARRAY
        }
        ResourceDim::Texture3D => vk::ImageViewType::TYPE_3D,
        ResourceDim::TextureCube => vk::ImageViewType::CUBE,
        ResourceDim::TextureCubeArray => vk::ImageViewType::CUBE_ARRAY,
        ResourceDim::Buffer => vk::ImageViewType::TYPE_2D,
    }
}

/// Checks that the device has every feature the modules need.
pub fn check_features(gpu: &Gpu, reflections: &[&Reflection]) -> Result<(), RunError> {
    for r in reflections {
        for f in &r.vulkan_features {
            match gpu.enabled.get(f) {
                Some(true) => {}
                Some(false) => return Err(RunError::Skip(format!("the device lacks {f}"))),
                None => {
                    return Err(RunError::Skip(format!(
                        "unknown Vulkan feature {f} requested"
                    )));
                }
            }
        }
    }
    Ok(())
}

enum Write {
    Image(vk::DescriptorImageInfo),
    Buffer(vk::DescriptorBufferInfo),
    Texel(vk::BufferView),
}

/// Builds layouts and writes descriptor sets for the given stages.
pub fn bind(
    gpu: &Gpu,
    stages: &[&Reflection],
    src: &mut BindSources<'_>,
) -> Result<Bound, RunError> {
    // Merge the stages' descriptors by (set, binding).
    let mut merged: BTreeMap<(u32, u32), (Descriptor, vk::ShaderStageFlags)> = BTreeMap::new();
    for r in stages {
        let flags = stage_flags(r.stage);
        for d in &r.descriptors {
            match merged.get_mut(&(d.set, d.binding)) {
                Some((prev, f)) => {
                    if prev.descriptor_type != d.descriptor_type
                        || prev.count != d.count
                        || prev.origin != d.origin
                    {
                        return Err(RunError::Fail(format!(
                            "set {} binding {} is declared differently by two stages",
                            d.set, d.binding
                        )));
                    }
                    *f |= flags;
                }
                None => {
                    merged.insert((d.set, d.binding), (d.clone(), flags));
                }
            }
        }
    }
    let max_set = merged.keys().map(|(s, _)| *s).max();
    if max_set.is_some_and(|s| s > 31) {
        return Err(RunError::Fail("descriptor set index above 31".into()));
    }
    let set_count = max_set.map_or(0, |s| s + 1) as usize;

    // Resolve what each descriptor element binds.
    let mut cb_buffers = Vec::new();
    let mut writes: Vec<((u32, u32), u32, vk::DescriptorType, Write)> = Vec::new();
    let mut counts: Vec<((u32, u32), u32)> = Vec::new();
    for (&(set, binding), (d, _)) in &merged {
        let count = match d.count {
            Some(n) => n,
            None => {
                return Err(RunError::Skip(format!(
                    "unbounded descriptor array {}{}",
                    d.origin.class.letter(),
                    d.origin.lower
                )));
            }
        };
        if count > 64 {
            return Err(RunError::Fail(format!(
                "descriptor array of {count} at set {set} binding {binding}"
            )));
        }
        counts.push(((set, binding), count));
        if d.origin.uav_counter {
            // The hidden counter of each UAV: a zeroed 32-bit word (every draw or dispatch
            // starts its UAV counters at 0).
            if d.descriptor_type != DescriptorType::StorageBuffer {
                return Err(RunError::Fail(format!(
                    "counter of u{} reflected as {:?}",
                    d.origin.lower, d.descriptor_type
                )));
            }
            for i in 0..count {
                let buf = gpu.buffer_with_data(4, vk::BufferUsageFlags::STORAGE_BUFFER, &[0; 4])?;
                let info = vk::DescriptorBufferInfo {
                    buffer: buf.buffer,
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                };
                cb_buffers.push(buf);
                let ty = vk_type(d.descriptor_type);
                writes.push(((set, binding), i, ty, Write::Buffer(info)));
            }
            continue;
        }
        if d.origin.space != 0 {
            return Err(RunError::Fail(format!(
                "{}{} is in space {}; tests bind only space 0",
                d.origin.class.letter(),
                d.origin.lower,
                d.origin.space
            )));
        }
        for i in 0..count {
            let reg = d.origin.lower + i;
            let name = format!("{}{}", d.origin.class.letter(), reg);
            let ty = vk_type(d.descriptor_type);
            let w = match d.origin.class {
                RegisterClass::B => {
                    let data = src.cbuffers.get(&reg).ok_or_else(|| {
                        RunError::Fail(format!(
                            "the shader reads {name} but the test sets no constants for it"
                        ))
                    })?;
                    let declared = match d.shape {
                        ResourceShape::ConstantBuffer { size_bytes } => size_bytes,
                        _ => 0,
                    };
                    let size = (declared.max(data.len() as u32 * 4).max(16) + 15) & !15;
                    let bytes: Vec<u8> = data.iter().flat_map(|w| w.to_le_bytes()).collect();
                    let usage = match d.descriptor_type {
                        DescriptorType::UniformBuffer => vk::BufferUsageFlags::UNIFORM_BUFFER,
                        DescriptorType::StorageBuffer => vk::BufferUsageFlags::STORAGE_BUFFER,
                        t => return Err(RunError::Fail(format!("{name} reflected as {t:?}"))),
                    };
                    let buf = gpu.buffer_with_data(u64::from(size), usage, &bytes)?;
                    let info = vk::DescriptorBufferInfo {
                        buffer: buf.buffer,
                        offset: 0,
                        range: vk::WHOLE_SIZE,
                    };
                    cb_buffers.push(buf);
                    Write::Buffer(info)
                }
                RegisterClass::S => {
                    let s = src.samplers.get(&reg).ok_or_else(|| {
                        RunError::Fail(format!(
                            "the shader uses {name} but the test declares no [sampler {reg}]"
                        ))
                    })?;
                    if d.descriptor_type != DescriptorType::Sampler {
                        return Err(RunError::Fail(format!(
                            "{name} reflected as {:?}",
                            d.descriptor_type
                        )));
                    }
                    Write::Image(vk::DescriptorImageInfo {
                        sampler: *s,
                        ..Default::default()
                    })
                }
                RegisterClass::T | RegisterClass::U => {
                    let kind = if d.origin.class == RegisterClass::T {
                        ResourceKind::Srv
                    } else {
                        ResourceKind::Uav
                    };
                    let res = src.resources.get_mut(&(kind, reg)).ok_or_else(|| {
                        RunError::Fail(format!(
                            "the shader uses {name} but the test declares no [{} {reg}]",
                            kind.name()
                        ))
                    })?;
                    resource_write(gpu, &name, d, res)?
                }
            };
            writes.push(((set, binding), i, ty, w));
        }
    }

    // Layouts.
    let mut set_layouts = Vec::with_capacity(set_count);
    let device = gpu.device.clone();
    let cleanup = |layouts: &[vk::DescriptorSetLayout]| {
        // SAFETY: layouts were created by this device and are not in use.
        unsafe {
            layouts
                .iter()
                .for_each(|l| device.destroy_descriptor_set_layout(*l, None))
        }
    };
    for s in 0..set_count as u32 {
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = merged
            .iter()
            .filter(|((set, _), _)| *set == s)
            .map(|(&(_, b), (d, flags))| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b)
                    .descriptor_type(vk_type(d.descriptor_type))
                    .descriptor_count(d.count.unwrap_or(1))
                    .stage_flags(*flags)
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: valid device and create info.
        match unsafe { gpu.device.create_descriptor_set_layout(&info, None) } {
            Ok(l) => set_layouts.push(l),
            Err(e) => {
                cleanup(&set_layouts);
                return Err(RunError::Fail(format!("vkCreateDescriptorSetLayout: {e}")));
            }
        }
    }

    // Push constants: root constants replacing b# registers.
    let mut ranges = Vec::new();
    let mut push = Vec::new();
    for r in stages {
        for pc in &r.push_constants {
            let flags = stage_flags(r.stage);
            ranges.push(vk::PushConstantRange {
                stage_flags: flags,
                offset: pc.offset,
                size: pc.size,
            });
            let data = src.cbuffers.get(&pc.register).cloned().unwrap_or_default();
            let mut bytes: Vec<u8> = data.iter().flat_map(|w| w.to_le_bytes()).collect();
            bytes.resize(pc.size as usize, 0);
            push.push((flags, pc.offset, bytes));
        }
    }
    let info = vk::PipelineLayoutCreateInfo::default()
        .set_layouts(&set_layouts)
        .push_constant_ranges(&ranges);
    // SAFETY: valid device and create info.
    let layout = match unsafe { gpu.device.create_pipeline_layout(&info, None) } {
        Ok(l) => l,
        Err(e) => {
            cleanup(&set_layouts);
            return Err(RunError::Fail(format!("vkCreatePipelineLayout: {e}")));
        }
    };
    let mut bound = Bound {
        device: gpu.device.clone(),
        set_layouts,
        layout,
        pool: vk::DescriptorPool::null(),
        sets: Vec::new(),
        push,
        _cbuffers: cb_buffers,
    };
    if set_count == 0 {
        return Ok(bound);
    }

    // Pool and sets.
    let mut sizes: HashMap<vk::DescriptorType, u32> = HashMap::new();
    for ((key, count), _) in counts.iter().zip(0..) {
        let ty = vk_type(merged[&key.clone()].0.descriptor_type);
        *sizes.entry(ty).or_default() += count;
    }
    let pool_sizes: Vec<vk::DescriptorPoolSize> = sizes
        .iter()
        .map(|(t, n)| vk::DescriptorPoolSize {
            ty: *t,
            descriptor_count: *n,
        })
        .collect();
    let pool_info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(set_count as u32)
        .pool_sizes(&pool_sizes);
    // SAFETY: valid device; the pool is owned by `bound` and destroyed with it.
    unsafe {
        bound.pool = gpu
            .device
            .create_descriptor_pool(&pool_info, None)
            .map_err(|e| format!("vkCreateDescriptorPool: {e}"))?;
        let alloc = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(bound.pool)
            .set_layouts(&bound.set_layouts);
        bound.sets = gpu
            .device
            .allocate_descriptor_sets(&alloc)
            .map_err(|e| format!("vkAllocateDescriptorSets: {e}"))?;
        // Keep the infos alive in vectors while building the writes.
        let images: Vec<[vk::DescriptorImageInfo; 1]> = writes
            .iter()
            .map(|w| match &w.3 {
                Write::Image(i) => [*i],
                _ => [vk::DescriptorImageInfo::default()],
            })
            .collect();
        let buffers: Vec<[vk::DescriptorBufferInfo; 1]> = writes
            .iter()
            .map(|w| match &w.3 {
                Write::Buffer(b) => [*b],
                _ => [vk::DescriptorBufferInfo::default()],
            })
            .collect();
        let texels: Vec<[vk::BufferView; 1]> = writes
            .iter()
            .map(|w| match &w.3 {
                Write::Texel(v) => [*v],
                _ => [vk::BufferView::null()],
            })
            .collect();
        let vk_writes: Vec<vk::WriteDescriptorSet> = writes
            .iter()
            .enumerate()
            .map(|(i, ((set, binding), elem, ty, w))| {
                let base = vk::WriteDescriptorSet::default()
                    .dst_set(bound.sets[*set as usize])
                    .dst_binding(*binding)
                    .dst_array_element(*elem)
                    .descriptor_type(*ty);
                match w {
                    Write::Image(_) => base.image_info(&images[i]),
                    Write::Buffer(_) => base.buffer_info(&buffers[i]),
                    Write::Texel(_) => base.texel_buffer_view(&texels[i]),
                }
            })
            .collect();
        gpu.device.update_descriptor_sets(&vk_writes, &[]);
    }
    Ok(bound)
}

/// The descriptor write for an SRV or UAV.
fn resource_write(
    gpu: &Gpu,
    name: &str,
    d: &Descriptor,
    res: &mut TestResource,
) -> Result<Write, RunError> {
    let fmt = res.decl.format;
    match (&mut res.obj, d.descriptor_type) {
        (
            GpuObject::Buffer(buf),
            DescriptorType::UniformTexelBuffer | DescriptorType::StorageTexelBuffer,
        ) => {
            let view_format = match d.shape {
                ResourceShape::RawBuffer
                | ResourceShape::StructuredBuffer { .. }
                | ResourceShape::Counter => vk::Format::R32_UINT,
                _ if fmt.texel_size == 0 => {
                    return Err(RunError::Fail(format!(
                        "{name} is a typed buffer but the test gives no format"
                    )));
                }
                _ => fmt.vk,
            };
            let storage = d.descriptor_type == DescriptorType::StorageTexelBuffer;
            let feats = gpu.format_features(view_format).buffer_features;
            let need = if storage {
                vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER
            } else {
                vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER
            };
            if !feats.contains(need) {
                return Err(RunError::Skip(format!(
                    "{view_format:?} texel buffers are not supported ({name})"
                )));
            }
            Ok(Write::Texel(gpu.buffer_view(buf, view_format)?))
        }
        (GpuObject::Buffer(buf), DescriptorType::StorageBuffer | DescriptorType::UniformBuffer) => {
            Ok(Write::Buffer(vk::DescriptorBufferInfo {
                buffer: buf.buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }))
        }
        (GpuObject::Image(img), DescriptorType::SampledImage | DescriptorType::StorageImage) => {
            let ResourceShape::Image { dim, .. } = d.shape else {
                return Err(RunError::Fail(format!(
                    "{name} is an image descriptor with shape {:?}",
                    d.shape
                )));
            };
            let storage = d.descriptor_type == DescriptorType::StorageImage;
            let need = if storage {
                vk::ImageUsageFlags::STORAGE
            } else {
                vk::ImageUsageFlags::SAMPLED
            };
            if !img.usage.contains(need) {
                return Err(RunError::Skip(format!(
                    "format {} cannot be used as {:?} here ({name})",
                    fmt.name, need
                )));
            }
            let vt = view_type(dim);
            if matches!(vt, vk::ImageViewType::CUBE | vk::ImageViewType::CUBE_ARRAY)
                && img.layers % 6 != 0
            {
                return Err(RunError::Fail(format!(
                    "{name} is a cube texture but [{}] is not a cube",
                    res.decl.kind.name()
                )));
            }
            let level = if storage { Some(0) } else { None };
            let view = gpu.image_view(img, vt, img.format, level)?;
            Ok(Write::Image(vk::DescriptorImageInfo {
                sampler: vk::Sampler::null(),
                image_view: view,
                image_layout: vk::ImageLayout::GENERAL,
            }))
        }
        (GpuObject::Image(_), t) => Err(RunError::Fail(format!(
            "{name} is a texture in the test but the shader binds it as {t:?}"
        ))),
        (GpuObject::Buffer(_), t) => Err(RunError::Fail(format!(
            "{name} is a buffer in the test but the shader binds it as {t:?}"
        ))),
    }
}
