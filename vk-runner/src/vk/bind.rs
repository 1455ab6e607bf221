//! Descriptor set layouts, pipeline layout, descriptor sets and push constants, all derived
//! from the stages' [`Reflection`]s.
//!
//! Each reflected descriptor's D3D origin (register class, space, register range) names the
//! test resources bound to its elements: `b#` → the constant-buffer data set by
//! `uniform`/`write cbv-#`, `t#` → `[srv #]`, `u#` → `[uav #]`, `s#` → `[sampler #]` (with
//! `space S` for other register spaces). Several ranges may share a binding at different
//! array elements; unbounded ranges become runtime arrays sized by the registers the test
//! provides. The Vulkan descriptor type comes from the reflection; the view (image view
//! type, texel-buffer format) from its resource shape. Push constants are in [`super::push`].

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
    /// Test resources by (kind, register space, slot).
    pub resources: &'a mut HashMap<(ResourceKind, u32, u32), TestResource>,
    /// Samplers by (register space, slot).
    pub samplers: &'a HashMap<(u32, u32), vk::Sampler>,
    /// Constant buffer words by (register space, register).
    pub cbuffers: &'a HashMap<(u32, u32), Vec<u32>>,
    /// `[descriptors]` lines: SRV/UAV registers they cover bind the resource they name
    /// (`t[1:1], space 0, srv 2`: t1 binds `[srv 2]`); others bind their own register.
    pub descriptors: &'a [crate::parse::DescriptorMap],
    /// D3D9 fixed-function state: the values of the items the modules read from push or
    /// specialization constants (SM1–3 draws).
    pub d3d9_state: Option<&'a crate::run::d3d9_state::D3d9State>,
}

/// The test resource (kind, space, slot) bound to register `reg` of `kind` in `space`.
pub fn resource_key(
    descriptors: &[crate::parse::DescriptorMap],
    kind: ResourceKind,
    space: u32,
    reg: u32,
) -> (ResourceKind, u32, u32) {
    match descriptors.iter().find_map(|m| m.resolve(kind, space, reg)) {
        Some(slot) => (kind, 0, slot),
        None => (kind, space, reg),
    }
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
        DescriptorType::CombinedImageSampler => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
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

/// Most descriptors one binding may hold here (a test's arrays are small).
const MAX_ARRAY: u32 = 1024;

/// One Vulkan binding and what goes in its elements.
struct BindingPlan {
    /// The descriptor types of the ranges placed there (several only in a mutable binding).
    types: Vec<DescriptorType>,
    /// Every range placed there said the binding is mutable.
    mutable: bool,
    flags: vk::ShaderStageFlags,
    /// descriptorCount of the layout binding.
    count: u32,
    /// Element → (the descriptor that reads it, the D3D register it holds).
    elems: BTreeMap<u32, (Descriptor, u32)>,
}

fn describe(d: &Descriptor, reg: u32) -> String {
    let o = &d.origin;
    let c = o.class.letter();
    let sp = if o.space != 0 {
        format!(" (space {})", o.space)
    } else {
        String::new()
    };
    if o.uav_counter {
        format!("the counter of u{reg}{sp}")
    } else {
        format!("{c}{reg}{sp}")
    }
}

/// Registers of `class` in `space` at or above `lower` that the test provides (the elements
/// of an unbounded range the runner can fill).
fn provided_registers(src: &BindSources<'_>, d: &Descriptor) -> Vec<u32> {
    let (class, space, lower) = (d.origin.class, d.origin.space, d.origin.lower);
    let mut regs: Vec<u32> = match class {
        RegisterClass::B => src
            .cbuffers
            .keys()
            .filter(|(s, _)| *s == space)
            .map(|(_, r)| *r)
            .collect(),
        RegisterClass::S => src
            .samplers
            .keys()
            .filter(|(s, _)| *s == space)
            .map(|(_, r)| *r)
            .collect(),
        RegisterClass::T | RegisterClass::U => {
            let kind = if class == RegisterClass::T {
                ResourceKind::Srv
            } else {
                ResourceKind::Uav
            };
            src.resources
                .keys()
                .filter(|(k, s, _)| *k == kind && *s == space)
                .map(|(_, _, r)| *r)
                .collect()
        }
    };
    regs.retain(|r| *r >= lower);
    regs.sort_unstable();
    regs
}

/// Merges the stages' descriptors into bindings (several ranges may share one binding at
/// different array elements) and decides which register each element holds. A descriptor
/// with a dynamic offset starts at the value the runner pushes for it (`dynamic`, by byte
/// offset).
fn plan_bindings(
    stages: &[&Reflection],
    src: &BindSources<'_>,
    dynamic: &HashMap<u32, u32>,
) -> Result<BTreeMap<(u32, u32), BindingPlan>, RunError> {
    let mut plans: BTreeMap<(u32, u32), BindingPlan> = BTreeMap::new();
    for r in stages {
        let flags = stage_flags(r.stage);
        for d in &r.descriptors {
            // (element, register) pairs this range occupies.
            let regs: Vec<u32> = match (d.count, d.origin.upper) {
                // Elements past MAX_ARRAY fail below; never list more than that.
                (_, Some(u)) if d.dynamic_offset.is_some() || d.count.is_some() => {
                    (d.origin.lower..=u).take(MAX_ARRAY as usize + 1).collect()
                }
                _ => provided_registers(src, d),
            };
            let shift = match d.dynamic_offset {
                Some(at) => *dynamic.get(&at).ok_or_else(|| {
                    RunError::Fail(format!(
                        "set {} binding {}: dynamic offset at push-constant byte {at} is not pushed",
                        d.set, d.binding
                    ))
                })?,
                None => 0,
            };
            let plan = plans
                .entry((d.set, d.binding))
                .or_insert_with(|| BindingPlan {
                    types: Vec::new(),
                    mutable: true,
                    flags: vk::ShaderStageFlags::empty(),
                    count: 0,
                    elems: BTreeMap::new(),
                });
            plan.mutable &= d.mutable;
            if !plan.types.contains(&d.descriptor_type) {
                plan.types.push(d.descriptor_type);
            }
            if plan.types.len() > 1 && !plan.mutable {
                return Err(RunError::Fail(format!(
                    "set {} binding {} is both {:?} and {:?} (and not mutable)",
                    d.set, d.binding, plan.types[0], d.descriptor_type
                )));
            }
            plan.flags |= flags;
            let mut need = match d.count {
                Some(n) => n.saturating_add(shift),
                None => d.array_offset.saturating_add(shift).saturating_add(1),
            };
            for reg in regs {
                let elem = shift as u64 + d.array_offset as u64 + (reg - d.origin.lower) as u64;
                if elem >= MAX_ARRAY as u64 {
                    break;
                }
                let elem = elem as u32;
                need = need.max(elem + 1);
                match plan.elems.get(&elem) {
                    Some((o, oreg))
                        if *oreg != reg
                            || o.origin.class != d.origin.class
                            || o.origin.space != d.origin.space
                            || o.origin.uav_counter != d.origin.uav_counter =>
                    {
                        return Err(RunError::Fail(format!(
                            "set {} binding {} element {elem} would hold both {} and {}",
                            d.set,
                            d.binding,
                            describe(o, *oreg),
                            describe(d, reg)
                        )));
                    }
                    Some(_) => {}
                    None => {
                        plan.elems.insert(elem, (d.clone(), reg));
                    }
                }
            }
            if need > MAX_ARRAY {
                return Err(RunError::Fail(format!(
                    "descriptor array of {need} at set {} binding {} (the runner binds at most {MAX_ARRAY})",
                    d.set, d.binding
                )));
            }
            plan.count = plan.count.max(need);
        }
    }
    Ok(plans)
}

/// The write for element `reg` of `d`, or `None` when the test provides no such resource.
fn element_write(
    gpu: &Gpu,
    d: &Descriptor,
    reg: u32,
    src: &mut BindSources<'_>,
    keep: &mut Vec<Buffer>,
) -> Result<Option<Write>, RunError> {
    let name = describe(d, reg);
    let space = d.origin.space;
    if d.origin.uav_counter {
        // The hidden counter of each UAV: a zeroed 32-bit word (every draw or dispatch
        // starts its UAV counters at 0; the counter cannot be probed), in a storage buffer
        // or an R32_UINT storage texel buffer as reflected.
        match d.descriptor_type {
            DescriptorType::StorageBuffer => {
                let buf = gpu.buffer_with_data(4, vk::BufferUsageFlags::STORAGE_BUFFER, &[0; 4])?;
                let info = vk::DescriptorBufferInfo {
                    buffer: buf.buffer,
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                };
                keep.push(buf);
                return Ok(Some(Write::Buffer(info)));
            }
            DescriptorType::StorageTexelBuffer => {
                let mut buf =
                    gpu.buffer_with_data(4, vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER, &[0; 4])?;
                let view = gpu.buffer_view(&mut buf, vk::Format::R32_UINT)?;
                keep.push(buf);
                return Ok(Some(Write::Texel(view)));
            }
            t => return Err(RunError::Fail(format!("{name} reflected as {t:?}"))),
        }
    }
    Ok(Some(match d.origin.class {
        RegisterClass::B => {
            // The immediate constant buffer as a uniform buffer: the data is the module's.
            let data = match &d.shape {
                ResourceShape::ImmediateConstantBuffer { data } => data,
                _ => match src.cbuffers.get(&(space, reg)) {
                    Some(data) => data,
                    None => return Ok(None),
                },
            };
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
            keep.push(buf);
            Write::Buffer(info)
        }
        RegisterClass::S => {
            let Some(s) = src.samplers.get(&(space, reg)) else {
                return Ok(None);
            };
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
            let key = resource_key(src.descriptors, kind, space, reg);
            let Some(res) = src.resources.get_mut(&key) else {
                return Ok(None);
            };
            resource_write(gpu, &name, d, res)?
        }
    }))
}

/// What the test must declare for a missing single descriptor.
fn missing(d: &Descriptor, reg: u32) -> String {
    let sp = if d.origin.space != 0 {
        format!(" space {}", d.origin.space)
    } else {
        String::new()
    };
    let name = describe(d, reg);
    match d.origin.class {
        RegisterClass::B => format!(
            "the shader reads {name} but the test sets no constants for it (write cbv-{reg}{sp})"
        ),
        RegisterClass::S => {
            format!("the shader uses {name} but the test declares no [sampler {reg}{sp}]")
        }
        RegisterClass::T => {
            format!("the shader uses {name} but the test declares no [srv {reg}{sp}]")
        }
        RegisterClass::U => {
            format!("the shader uses {name} but the test declares no [uav {reg}{sp}]")
        }
    }
}

/// Builds layouts and writes descriptor sets for the given stages.
///
/// Each reflected descriptor binds, at element `array_offset + i`, the test resource of
/// register `lower + i` in its space; an unbounded range binds every register the test
/// provides from `lower` on. A single descriptor the test does not provide fails the check;
/// array elements it does not provide stay unwritten (the binding is partially bound).
pub fn bind(
    gpu: &Gpu,
    stages: &[&Reflection],
    src: &mut BindSources<'_>,
) -> Result<Bound, RunError> {
    // Push constants first: root constants replacing b# registers, and the descriptor
    // offsets the elements below are placed by.
    let push = super::push::push_constants(
        stages,
        src.cbuffers,
        src.d3d9_state,
        gpu.props.limits.max_push_constants_size,
    )?;
    let plans = plan_bindings(stages, src, &push.dynamic)?;
    let max_set = plans.keys().map(|(s, _)| *s).max();
    if max_set.is_some_and(|s| s >= gpu.props.limits.max_bound_descriptor_sets) {
        return Err(RunError::Skip(format!(
            "descriptor set {} is past the device's maxBoundDescriptorSets ({})",
            max_set.unwrap_or(0),
            gpu.props.limits.max_bound_descriptor_sets
        )));
    }
    let set_count = max_set.map_or(0, |s| s + 1) as usize;

    // Resolve what each element binds.
    let mut keep = Vec::new();
    let mut writes: Vec<((u32, u32), u32, vk::DescriptorType, Write)> = Vec::new();
    let mut partial: Vec<(u32, u32)> = Vec::new();
    for (&(set, binding), plan) in &plans {
        let mut written = 0;
        for (&elem, (d, reg)) in &plan.elems {
            match element_write(gpu, d, *reg, src, &mut keep)? {
                Some(w) => {
                    writes.push(((set, binding), elem, vk_type(d.descriptor_type), w));
                    written += 1;
                }
                None if plan.count == 1 && d.count == Some(1) => {
                    return Err(RunError::Fail(missing(d, *reg)));
                }
                None => {}
            }
        }
        if written < plan.count {
            partial.push((set, binding));
        }
    }
    if !partial.is_empty() && gpu.enabled.get("descriptorBindingPartiallyBound") != Some(true) {
        let (s, b) = partial[0];
        return Err(RunError::Skip(format!(
            "the test leaves elements of set {s} binding {b} unbound and the device lacks descriptorBindingPartiallyBound"
        )));
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
        let in_set: Vec<(&(u32, u32), &BindingPlan)> =
            plans.iter().filter(|((set, _), _)| *set == s).collect();
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = in_set
            .iter()
            .map(|((_, b), p)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(*b)
                    .descriptor_type(binding_type(p))
                    .descriptor_count(p.count)
                    .stage_flags(p.flags)
            })
            .collect();
        // VK_EXT_mutable_descriptor_type: the types each mutable binding may hold.
        let type_lists: Vec<Vec<vk::DescriptorType>> =
            in_set.iter().map(|(_, p)| mutable_types(p)).collect();
        let lists: Vec<vk::MutableDescriptorTypeListEXT> = type_lists
            .iter()
            .map(|t| vk::MutableDescriptorTypeListEXT::default().descriptor_types(t))
            .collect();
        let mut mutable_info =
            vk::MutableDescriptorTypeCreateInfoEXT::default().mutable_descriptor_type_lists(&lists);
        let flags: Vec<vk::DescriptorBindingFlags> = in_set
            .iter()
            .map(|(key, _)| {
                if partial.contains(key) {
                    vk::DescriptorBindingFlags::PARTIALLY_BOUND
                } else {
                    vk::DescriptorBindingFlags::empty()
                }
            })
            .collect();
        let mut flag_info =
            vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&flags);
        let mut info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        if !partial.is_empty() {
            info = info.push_next(&mut flag_info);
        }
        if type_lists.iter().any(|t| !t.is_empty()) {
            info = info.push_next(&mut mutable_info);
        }
        // SAFETY: valid device and create info.
        match unsafe { gpu.device.create_descriptor_set_layout(&info, None) } {
            Ok(l) => set_layouts.push(l),
            Err(e) => {
                cleanup(&set_layouts);
                return Err(RunError::Fail(format!("vkCreateDescriptorSetLayout: {e}")));
            }
        }
    }

    let ranges: Vec<vk::PushConstantRange> = push.range.into_iter().collect();
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
        push: push
            .range
            .map(|r| (r.stage_flags, r.offset, push.bytes))
            .into_iter()
            .collect(),
        _cbuffers: keep,
    };
    if set_count == 0 {
        return Ok(bound);
    }

    // Pool and sets: one pool size per plain type, one per mutable binding's type list.
    let mut sizes: Vec<(vk::DescriptorType, Vec<vk::DescriptorType>, u32)> = Vec::new();
    for p in plans.values() {
        let (ty, list) = (binding_type(p), mutable_types(p));
        match sizes.iter_mut().find(|s| s.0 == ty && s.1 == list) {
            Some(s) => s.2 += p.count,
            None => sizes.push((ty, list, p.count)),
        }
    }
    let pool_sizes: Vec<vk::DescriptorPoolSize> = sizes
        .iter()
        .map(|(t, _, n)| vk::DescriptorPoolSize {
            ty: *t,
            descriptor_count: *n,
        })
        .collect();
    let pool_lists: Vec<vk::MutableDescriptorTypeListEXT> = sizes
        .iter()
        .map(|(_, l, _)| vk::MutableDescriptorTypeListEXT::default().descriptor_types(l))
        .collect();
    let mut pool_mutable = vk::MutableDescriptorTypeCreateInfoEXT::default()
        .mutable_descriptor_type_lists(&pool_lists);
    let mut pool_info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(set_count as u32)
        .pool_sizes(&pool_sizes);
    if sizes.iter().any(|s| !s.1.is_empty()) {
        pool_info = pool_info.push_next(&mut pool_mutable);
    }
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

/// The layout type of a binding: its descriptors' type, or `MUTABLE_EXT` when it holds
/// several.
fn binding_type(p: &BindingPlan) -> vk::DescriptorType {
    match p.types.as_slice() {
        [t] => vk_type(*t),
        _ => vk::DescriptorType::MUTABLE_EXT,
    }
}

/// The types a mutable binding holds (empty for a plain binding).
fn mutable_types(p: &BindingPlan) -> Vec<vk::DescriptorType> {
    if p.types.len() > 1 {
        p.types.iter().map(|t| vk_type(*t)).collect()
    } else {
        Vec::new()
    }
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
