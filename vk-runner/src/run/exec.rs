//! The device work behind `[test]` lines: dispatch, draw, clear, copy, probe.

use super::FileState;
use super::compare;
use super::shaders::{QUAD_VS, Translator};
use crate::parse::format::{DataKind, Format};
use crate::parse::qualifier::{QualContext, ShaderModel};
use crate::parse::{
    self, Dimensions, InputElement, Probe, Region, ResourceDecl, ResourceKind, ResourceRef,
    ShaderSection, ShaderSource, Stage, Topology,
};
use crate::vk::bind::{self, BindSources, RunError};
use crate::vk::context::Gpu;
use crate::vk::memory::Buffer;
use crate::vk::pipeline::{self, Attachment, DrawState};
use crate::vk::resource::{GpuObject, TestResource};
use ash::vk;
use std::rc::Rc;
use translator::Translation;

fn module(
    st: &mut FileState,
    t: &Translator<'_>,
    stage: Stage,
    model: ShaderModel,
    ctx: &dyn QualContext,
    xfb: bool,
) -> Result<Option<Rc<Translation>>, RunError> {
    let Some((line, section)) = st.shader(stage).cloned() else {
        return Ok(None);
    };
    let options = st.require.options.clone();
    st.cache
        .get(t, line, &section, model, ctx, &options, xfb)
        .map(Some)
}

/// The stage a `[stream output]` declaration applies to: the last one before rasterization.
fn xfb_stage(st: &FileState) -> Stage {
    if st.shader(Stage::Geometry).is_some() {
        Stage::Geometry
    } else if st.shader(Stage::Domain).is_some() {
        Stage::Domain
    } else {
        Stage::Vertex
    }
}

/// Bit N set when `[srv N]` (space 0, N < 16) is a depth texture.
pub fn depth_textures(st: &FileState) -> u16 {
    st.resources
        .iter()
        .filter(|((kind, space, slot), r)| {
            *kind == ResourceKind::Srv && *space == 0 && *slot < 16 && r.decl.format.is_depth()
        })
        .fold(0, |m, ((_, _, slot), _)| m | (1 << slot))
}

fn existing(st: &FileState, key: (ResourceKind, u32, u32)) -> Result<(), RunError> {
    match st.resource_errors.get(&key) {
        Some(e) => Err(e.clone()),
        None => Ok(()),
    }
}

pub fn dispatch(
    gpu: &Gpu,
    st: &mut FileState,
    t: &Translator<'_>,
    model: ShaderModel,
    ctx: &dyn QualContext,
    groups: [u32; 3],
) -> Result<(), RunError> {
    let cs = module(st, t, Stage::Compute, model, ctx, false)?
        .ok_or_else(|| RunError::Fail("no [compute shader] declared".into()))?;
    bind::check_features(gpu, &[&cs.reflection])?;
    check_bound_resources(st, &[&cs])?;
    let bound = {
        let mut src = BindSources {
            resources: &mut st.resources,
            samplers: &st.samplers,
            cbuffers: &st.cbuffers,
            descriptors: &st.descriptors,
            d3d9_state: None,
        };
        bind::bind(gpu, &[&cs.reflection], &mut src)?
    };
    let p = pipeline::compute_pipeline(gpu, &cs, &bound)?;
    pipeline::dispatch(gpu, &p, &bound, groups)
}

/// Fails early with the creation error of a resource or sampler the modules use.
fn check_bound_resources(st: &FileState, mods: &[&Translation]) -> Result<(), RunError> {
    use translator::reflect::RegisterClass;
    for m in mods {
        for d in &m.reflection.descriptors {
            let space = d.origin.space;
            let failed = |kind: Option<ResourceKind>, reg: u32| -> Result<(), RunError> {
                match kind {
                    Some(k) => existing(st, bind::resource_key(&st.descriptors, k, space, reg)),
                    None => match st.sampler_errors.get(&(space, reg)) {
                        Some(e) => Err(RunError::Skip(format!("sampler {reg}: {e}"))),
                        None => Ok(()),
                    },
                }
            };
            let kind = match d.origin.class {
                RegisterClass::T => Some(ResourceKind::Srv),
                RegisterClass::U => Some(ResourceKind::Uav),
                RegisterClass::S => None,
                RegisterClass::B => continue,
            };
            match d.origin.upper {
                Some(u) => {
                    for reg in d.origin.lower..=u.min(d.origin.lower.saturating_add(1023)) {
                        failed(kind, reg)?;
                    }
                }
                // Unbounded: whatever the test declared in the space from `lower` on.
                None => {
                    for reg in st
                        .resource_errors
                        .keys()
                        .filter(|(k, s, r)| Some(*k) == kind && *s == space && *r >= d.origin.lower)
                        .map(|(_, _, r)| *r)
                        .chain(
                            st.sampler_errors
                                .keys()
                                .filter(|(s, r)| {
                                    kind.is_none() && *s == space && *r >= d.origin.lower
                                })
                                .map(|(_, r)| *r),
                        )
                    {
                        failed(kind, reg)?;
                    }
                }
            }
        }
    }
    Ok(())
}

fn default_target(gpu: &Gpu, st: &mut FileState) -> Result<(), RunError> {
    let has_target = st.resources.contains_key(&(ResourceKind::Rtv, 0, 0))
        || st.resources.contains_key(&(ResourceKind::Dsv, 0, 0));
    if has_target {
        return Ok(());
    }
    existing(st, (ResourceKind::Rtv, 0, 0))?;
    let decl = ResourceDecl {
        kind: ResourceKind::Rtv,
        slot: 0,
        space: 0,
        format: Format::RGBA32F,
        explicit_format: false,
        stride: None,
        dims: Dimensions::Tex2d {
            width: crate::vk::resource::RT_WIDTH,
            height: crate::vk::resource::RT_HEIGHT,
        },
        levels: 1,
        data: Vec::new(),
    };
    let r = TestResource::create(gpu, &decl)?;
    st.resources.insert((ResourceKind::Rtv, 0, 0), r);
    Ok(())
}

/// What an explicit `draw` line asks for.
#[derive(Debug, Clone, Copy)]
pub struct DrawCounts {
    pub topology: Topology,
    pub vertices: u32,
    pub instances: u32,
    /// First vertex and first instance.
    pub start: [u32; 2],
}

/// The draw's counts, input layout and vertex buffers by slot.
type DrawInputs<'a> = (DrawCounts, &'a [InputElement], Vec<(u32, &'a Buffer)>);

pub fn draw(
    gpu: &Gpu,
    st: &mut FileState,
    t: &Translator<'_>,
    model: ShaderModel,
    ctx: &dyn QualContext,
    explicit: Option<DrawCounts>,
) -> Result<(), RunError> {
    if st.shader(Stage::Hull).is_some() != st.shader(Stage::Domain).is_some() {
        return Err(RunError::Fail(
            "a hull shader needs a domain shader and the reverse".into(),
        ));
    }
    let quad = explicit.is_none();
    // SM1–3: the translator's deliveries of the D3D9 state (flat shading is baked); a depth
    // texture bound to sampler N makes its samples compare (D3D9 shadow sampling).
    st.d3d9_state.set_depth_textures(depth_textures(st));
    st.cache.d3d9_state = st.d3d9_state.options();
    let so_stage = st.stream_output.is_some().then(|| xfb_stage(st));
    let vs = match module(
        st,
        t,
        Stage::Vertex,
        model,
        ctx,
        so_stage == Some(Stage::Vertex),
    )? {
        Some(v) => v,
        None if quad => {
            let section = ShaderSection {
                stage: Stage::Vertex,
                source: ShaderSource::Hlsl(QUAD_VS.to_string()),
                fail: None,
                notimpl: None,
                todo: None,
                entry: "main".into(),
            };
            let xfb = so_stage == Some(Stage::Vertex);
            st.cache.get(t, 0, &section, model, ctx, &[], xfb)?
        }
        None => return Err(RunError::Fail("draw without a [vertex shader]".into())),
    };
    let mut rest = Vec::new();
    for s in [Stage::Hull, Stage::Domain, Stage::Geometry, Stage::Pixel] {
        if let Some(m) = module(st, t, s, model, ctx, so_stage == Some(s))? {
            rest.push(m);
        }
    }
    let mut mods: Vec<&Translation> = vec![&vs];
    mods.extend(rest.iter().map(|m| &**m));
    let refls: Vec<_> = mods.iter().map(|m| &m.reflection).collect();
    bind::check_features(gpu, &refls)?;
    let feature = |name: &str| gpu.enabled.get(name) == Some(true);
    if st.viewports.len() > 1 && !feature("multiViewport") {
        return Err(RunError::Skip(format!(
            "{} viewports: the device lacks multiViewport",
            st.viewports.len()
        )));
    }
    if st.depth_bounds.is_some()
        && st.resources.contains_key(&(ResourceKind::Dsv, 0, 0))
        && !feature("depthBounds")
    {
        return Err(RunError::Skip(
            "depth-bounds: the device lacks depthBounds".into(),
        ));
    }
    check_bound_resources(st, &mods)?;
    let xfb_layout = mods.iter().find_map(|m| m.reflection.xfb.as_ref());
    if xfb_layout.is_some() && gpu.xfb.is_none() {
        return Err(RunError::Skip(
            "[stream output]: the device lacks transformFeedback (VK_EXT_transform_feedback)"
                .into(),
        ));
    }
    for b in xfb_layout.iter().flat_map(|x| &x.buffers) {
        let key = (ResourceKind::StreamOutput, 0, b.slot);
        existing(st, key)?;
        if !st.resources.contains_key(&key) {
            return Err(RunError::Fail(format!(
                "the stream-output declaration writes buffer {} but the test declares no [so {}]",
                b.slot, b.slot
            )));
        }
    }
    default_target(gpu, st)?;
    // D3D9 programs: the integer and boolean sets (b1, b2) read 0 until a test writes them
    // (`write cbv-i32`), as a fresh D3D9 device's constants do; the float set is `uniform`'s.
    let d3d9 = refls.iter().any(|r| r.d3d9.is_some());
    let mut d3d9_cbuffers;
    let cbuffers = if d3d9 {
        d3d9_cbuffers = st.cbuffers.clone();
        for reg in 0..3 {
            d3d9_cbuffers.entry((0, reg)).or_insert_with(|| vec![0; 4]);
        }
        // The bump-environment buffer (b3) holds the `bump` directives' matrices.
        d3d9_cbuffers.entry((0, 3)).or_insert_with(|| {
            st.d3d9_state
                .bump
                .iter()
                .flatten()
                .map(|x| x.to_bits())
                .collect()
        });
        &d3d9_cbuffers
    } else {
        &st.cbuffers
    };
    let bound = {
        let mut src = BindSources {
            resources: &mut st.resources,
            samplers: &st.samplers,
            cbuffers,
            descriptors: &st.descriptors,
            d3d9_state: d3d9.then_some(&st.d3d9_state),
        };
        bind::bind(gpu, &refls, &mut src)?
    };

    // Render targets are taken out of the map while they are borrowed mutably.
    let rt_slots: Vec<u32> = st
        .resources
        .keys()
        .filter(|(k, _, _)| *k == ResourceKind::Rtv)
        .map(|(_, _, s)| *s)
        .collect();
    let mut rts: Vec<(u32, TestResource)> = rt_slots
        .iter()
        .map(|s| {
            (
                *s,
                st.resources
                    .remove(&(ResourceKind::Rtv, 0, *s))
                    .expect("listed"),
            )
        })
        .collect();
    let mut dsv = st.resources.remove(&(ResourceKind::Dsv, 0, 0));
    let result = (|| {
        let quad_vb;
        let quad_layout;
        let (counts, layout, mut vbs): DrawInputs<'_> = match explicit {
            None => {
                let data: Vec<u8> = [-2.0f32, -2.0, -2.0, 4.0, 4.0, -2.0]
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect();
                quad_vb = gpu.buffer_with_data(
                    data.len() as u64,
                    vk::BufferUsageFlags::VERTEX_BUFFER,
                    &data,
                )?;
                quad_layout = [InputElement {
                    slot: 0,
                    format: Format::by_name("r32g32-float").expect("known format"),
                    semantic: "position".into(),
                    index: 0,
                }];
                (
                    DrawCounts {
                        topology: Topology::TriangleList,
                        vertices: 3,
                        instances: 1,
                        start: [0, 0],
                    },
                    &quad_layout[..],
                    vec![(0, &quad_vb)],
                )
            }
            Some(c) => (c, &st.layout[..], Vec::new()),
        };
        if !quad {
            for ((kind, _, slot), r) in &st.resources {
                if *kind == ResourceKind::VertexBuffer
                    && let GpuObject::Buffer(b) = &r.obj
                {
                    vbs.push((*slot, b));
                }
            }
        }
        let max_slot = rts.iter().map(|(s, _)| *s).max();
        let mut colors: Vec<Option<Attachment<'_>>> = Vec::new();
        if let Some(max) = max_slot {
            colors.resize_with(max as usize + 1, || None);
        }
        for (slot, r) in rts.iter_mut() {
            match &mut r.obj {
                GpuObject::Image(img) => colors[*slot as usize] = Some(Attachment { image: img }),
                GpuObject::Buffer(_) => {
                    return Err(RunError::Fail(format!("rtv {slot} is a buffer")));
                }
            }
        }
        let depth = match dsv.as_mut() {
            Some(r) => match &mut r.obj {
                GpuObject::Image(img) => Some(Attachment { image: img }),
                GpuObject::Buffer(_) => return Err(RunError::Fail("dsv is a buffer".into())),
            },
            None => None,
        };
        let mut xfb = None;
        if let Some(x) = xfb_layout {
            let mut buffers = Vec::new();
            for b in &x.buffers {
                match st
                    .resources
                    .get(&(ResourceKind::StreamOutput, 0, b.slot))
                    .map(|r| &r.obj)
                {
                    Some(GpuObject::Buffer(buf)) => buffers.push((b.slot, buf)),
                    _ => return Err(RunError::Fail(format!("so {} is not a buffer", b.slot))),
                }
            }
            xfb = Some(pipeline::XfbDraw {
                buffers,
                rasterized_stream: x.rasterized_stream,
            });
        }
        let mut state = DrawState {
            topology: counts.topology,
            vertices: counts.vertices,
            instances: counts.instances,
            start: counts.start,
            layout,
            vertex_buffers: vbs,
            colors,
            depth,
            depth_func: st.depth_func,
            sample_mask: st.sample_mask,
            viewports: st.viewports.clone(),
            depth_bounds: st.depth_bounds,
            xfb,
            d3d9_pixel_centres: d3d9,
            dual_source_blending: st.layer.dual_source_blending,
            d3d9_state: d3d9.then_some(&st.d3d9_state),
            timed: None,
        };
        pipeline::draw(gpu, &mods, &bound, &mut state)
    })();
    for (s, r) in rts {
        st.resources.insert((ResourceKind::Rtv, 0, s), r);
    }
    if let Some(d) = dsv {
        st.resources.insert((ResourceKind::Dsv, 0, 0), d);
    }
    result
}

pub fn clear(
    gpu: &Gpu,
    st: &mut FileState,
    target: ResourceRef,
    value: [f32; 4],
) -> Result<(), RunError> {
    if target.kind == ResourceKind::Rtv && target.slot == 0 {
        default_target(gpu, st)?;
    }
    existing(st, (target.kind, 0, target.slot))?;
    let r = st
        .resources
        .get(&(target.kind, 0, target.slot))
        .ok_or_else(|| {
            RunError::Fail(format!(
                "clear of undeclared {} {}",
                target.kind.name(),
                target.slot
            ))
        })?;
    let GpuObject::Image(img) = &r.obj else {
        return Err(RunError::Fail("clear of a buffer".into()));
    };
    let fmt = r.decl.format;
    let range = img.full_range();
    gpu.submit(|cb| {
        // SAFETY: the image is in GENERAL layout and cb is recording.
        unsafe {
            if img.aspect == vk::ImageAspectFlags::DEPTH {
                let v = vk::ClearDepthStencilValue {
                    depth: value[0],
                    stencil: 0,
                };
                gpu.device.cmd_clear_depth_stencil_image(
                    cb,
                    img.image,
                    vk::ImageLayout::GENERAL,
                    &v,
                    &[range],
                );
            } else {
                let v = match fmt.kind {
                    parse::format::DataKind::Uint => vk::ClearColorValue {
                        uint32: value.map(|f| f as u32),
                    },
                    parse::format::DataKind::Sint => vk::ClearColorValue {
                        int32: value.map(|f| f as i32),
                    },
                    _ => vk::ClearColorValue { float32: value },
                };
                gpu.device.cmd_clear_color_image(
                    cb,
                    img.image,
                    vk::ImageLayout::GENERAL,
                    &v,
                    &[range],
                );
            }
        }
    })?;
    Ok(())
}

/// `copy SRC DST`: D3D's CopyResource. Both must have the same shape (vkd3d's runner refuses
/// others too): buffers copy min(size) bytes, images every level and layer.
pub fn copy(
    gpu: &Gpu,
    st: &mut FileState,
    src: ResourceRef,
    dst: ResourceRef,
) -> Result<(), RunError> {
    for r in [src, dst] {
        if r.kind == ResourceKind::Rtv && r.slot == 0 {
            default_target(gpu, st)?;
        }
        existing(st, (r.kind, 0, r.slot))?;
    }
    let get = |r: ResourceRef| {
        st.resources.get(&(r.kind, 0, r.slot)).ok_or_else(|| {
            RunError::Fail(format!("copy of undeclared {} {}", r.kind.name(), r.slot))
        })
    };
    let (a, b) = (get(src)?, get(dst)?);
    match (&a.obj, &b.obj) {
        (GpuObject::Buffer(x), GpuObject::Buffer(y)) => {
            let region = vk::BufferCopy::default().size(x.size.min(y.size));
            gpu.submit(|cb| {
                // SAFETY: cb is recording; both buffers live until the submission ends.
                unsafe {
                    gpu.device
                        .cmd_copy_buffer(cb, x.buffer, y.buffer, &[region])
                }
            })?;
            Ok(())
        }
        (GpuObject::Image(x), GpuObject::Image(y)) => {
            if x.extent != y.extent
                || x.levels != y.levels
                || x.layers != y.layers
                || x.samples != y.samples
                || a.decl.format.texel_size != b.decl.format.texel_size
            {
                return Err(RunError::Fail(
                    "copy between resources of different shapes".into(),
                ));
            }
            if x.aspect != y.aspect {
                return Err(RunError::Skip(
                    "copy between depth and colour images (Vulkan copies only between like \
                     aspects)"
                        .into(),
                ));
            }
            let regions: Vec<vk::ImageCopy> = (0..x.levels)
                .map(|level| {
                    let sub = vk::ImageSubresourceLayers::default()
                        .aspect_mask(x.aspect)
                        .mip_level(level)
                        .base_array_layer(0)
                        .layer_count(x.layers);
                    vk::ImageCopy::default()
                        .src_subresource(sub)
                        .dst_subresource(sub.aspect_mask(y.aspect))
                        .extent(x.level_extent(level))
                })
                .collect();
            gpu.submit(|cb| {
                // SAFETY: both images are in GENERAL layout and live until the submission ends.
                unsafe {
                    gpu.device.cmd_copy_image(
                        cb,
                        x.image,
                        vk::ImageLayout::GENERAL,
                        y.image,
                        vk::ImageLayout::GENERAL,
                        &regions,
                    )
                }
            })?;
            Ok(())
        }
        _ => Err(RunError::Fail("copy between a buffer and a texture".into())),
    }
}

pub fn probe(gpu: &Gpu, st: &mut FileState, p: &Probe) -> Result<(), RunError> {
    let key = (p.target.kind, 0, p.target.slot);
    existing(st, key)?;
    let r = st.resources.get(&key).ok_or_else(|| {
        RunError::Fail(format!(
            "probe of undeclared {} {}",
            p.target.kind.name(),
            p.target.slot
        ))
    })?;
    let fmt = r.decl.format;
    match &r.obj {
        GpuObject::Image(img) => {
            // Multisampled targets are resolved (averaged) first, as D3D's readback through
            // ResolveSubresource would; integer and depth formats cannot be averaged.
            let resolved;
            let img = if img.samples != vk::SampleCountFlags::TYPE_1 {
                if !matches!(
                    fmt.kind,
                    DataKind::Float | DataKind::Unorm | DataKind::Snorm
                ) || fmt.is_depth()
                {
                    return Err(RunError::Skip(format!(
                        "probing multisampled {} resources is not supported",
                        fmt.name
                    )));
                }
                resolved = gpu.resolve_image(img)?;
                &resolved
            } else {
                img
            };
            let layer = match p.region {
                Region::Point { layer, .. } => layer,
                _ => 0,
            };
            if layer >= img.layers.max(img.extent.depth) {
                return Err(RunError::Fail(format!("probe layer {layer} out of range")));
            }
            let (w, h) = (img.extent.width, img.extent.height);
            let (data, z_offset) = if img.extent.depth > 1 {
                (
                    gpu.read_image(img, 0, 0, fmt.texel_size)?,
                    u64::from(layer) * u64::from(w) * u64::from(h),
                )
            } else {
                (gpu.read_image(img, 0, layer, fmt.texel_size)?, 0)
            };
            compare::probe_texels(&fmt, &data, w, h, z_offset, p)
        }
        GpuObject::Buffer(buf) => {
            let data = gpu.read_buffer(buf)?;
            compare::probe_buffer(&fmt, &data, p)
        }
    }
}
