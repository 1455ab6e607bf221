//! Compute and graphics pipelines from translated modules, and the commands that run them.
//!
//! Graphics state follows what vkd3d's runner gives D3D: no culling, clockwise front faces,
//! blending off, every render target written, and a viewport covering render target 0 with a
//! negative height, so D3D's y-up clip space needs no flip in the shader (the translator must
//! not flip `SV_Position.y`). Vertex input comes from the vertex shader's reflected inputs
//! matched by semantic to the test's `[input layout]`.

use super::bind::{Bound, RunError, stage_flags};
use super::context::Gpu;
use super::memory::{Buffer, Image, full_barrier};
use super::timing::Timer;
use crate::parse::{InputElement, Topology};
use ash::vk;
use std::ffi::CString;
use translator::Translation;
use translator::reflect::{InterfacePlacement, ShaderStage};

/// Owns a pipeline and its shader modules.
pub struct Pipeline {
    device: ash::Device,
    pub pipeline: vk::Pipeline,
    modules: Vec<vk::ShaderModule>,
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        // SAFETY: created by this device; the runner waits for the queue before dropping.
        unsafe {
            self.device.destroy_pipeline(self.pipeline, None);
            for m in &self.modules {
                self.device.destroy_shader_module(*m, None);
            }
        }
    }
}

fn module(gpu: &Gpu, t: &Translation) -> Result<vk::ShaderModule, RunError> {
    let info = vk::ShaderModuleCreateInfo::default().code(&t.spirv);
    // SAFETY: valid device; the code slice outlives the call.
    unsafe { gpu.device.create_shader_module(&info, None) }
        .map_err(|e| RunError::Fail(format!("vkCreateShaderModule: {e}")))
}

fn destroy_modules(gpu: &Gpu, m: &[vk::ShaderModule]) {
    // SAFETY: modules created above and not in use.
    unsafe {
        m.iter()
            .for_each(|m| gpu.device.destroy_shader_module(*m, None))
    }
}

pub fn compute_pipeline(gpu: &Gpu, t: &Translation, bound: &Bound) -> Result<Pipeline, RunError> {
    let m = module(gpu, t)?;
    let name = CString::new(t.reflection.entry_point.as_str())
        .map_err(|_| "entry point name has a NUL".to_string())?;
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(m)
        .name(&name);
    let info = [vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(bound.layout)];
    // SAFETY: valid device, module and layout.
    match unsafe {
        gpu.device
            .create_compute_pipelines(vk::PipelineCache::null(), &info, None)
    } {
        Ok(p) => Ok(Pipeline {
            device: gpu.device.clone(),
            pipeline: p[0],
            modules: vec![m],
        }),
        Err((_, e)) => {
            destroy_modules(gpu, &[m]);
            Err(RunError::Fail(format!("vkCreateComputePipelines: {e}")))
        }
    }
}

/// Records a dispatch and runs it.
pub fn dispatch(gpu: &Gpu, p: &Pipeline, bound: &Bound, groups: [u32; 3]) -> Result<(), RunError> {
    let limits = gpu.props.limits.max_compute_work_group_count;
    if groups.iter().zip(limits).any(|(g, l)| *g > l) {
        return Err(RunError::Skip(format!(
            "dispatch {groups:?} exceeds the device limits {limits:?}"
        )));
    }
    gpu.submit(|cb| {
        // SAFETY: cb is recording; all handles are valid for the submission.
        unsafe {
            gpu.device
                .cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p.pipeline);
            bind_common(gpu, cb, vk::PipelineBindPoint::COMPUTE, bound);
            gpu.device.cmd_dispatch(cb, groups[0], groups[1], groups[2]);
        }
    })
    .map_err(RunError::Fail)
}

/// Records `repeat` dispatches (each ordered after the previous one by a barrier) between the
/// two timestamps of `timer`, runs them and returns the GPU nanoseconds they took.
pub fn dispatch_timed(
    gpu: &Gpu,
    p: &Pipeline,
    bound: &Bound,
    groups: [u32; 3],
    repeat: u32,
    timer: &Timer,
) -> Result<f64, RunError> {
    let limits = gpu.props.limits.max_compute_work_group_count;
    if groups.iter().zip(limits).any(|(g, l)| *g > l) {
        return Err(RunError::Skip(format!(
            "dispatch {groups:?} exceeds the device limits {limits:?}"
        )));
    }
    gpu.submit(|cb| {
        // SAFETY: cb is recording; all handles are valid for the submission.
        unsafe {
            gpu.device
                .cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, p.pipeline);
            bind_common(gpu, cb, vk::PipelineBindPoint::COMPUTE, bound);
            timer.start(cb);
            for i in 0..repeat {
                if i > 0 {
                    full_barrier(&gpu.device, cb);
                }
                gpu.device.cmd_dispatch(cb, groups[0], groups[1], groups[2]);
            }
            timer.stop(cb);
        }
    })
    .map_err(RunError::Fail)?;
    Ok(timer.nanoseconds()?)
}

unsafe fn bind_common(
    gpu: &Gpu,
    cb: vk::CommandBuffer,
    point: vk::PipelineBindPoint,
    bound: &Bound,
) {
    // SAFETY: forwarded from the callers.
    unsafe {
        if !bound.sets.is_empty() {
            gpu.device
                .cmd_bind_descriptor_sets(cb, point, bound.layout, 0, &bound.sets, &[]);
        }
        for (flags, offset, bytes) in &bound.push {
            gpu.device
                .cmd_push_constants(cb, bound.layout, *flags, *offset, bytes);
        }
    }
}

/// A render target or depth attachment of a draw.
pub struct Attachment<'a> {
    pub image: &'a mut Image,
}

/// Everything a draw needs besides the modules.
pub struct DrawState<'a> {
    pub topology: Topology,
    pub vertices: u32,
    pub instances: u32,
    /// First vertex and first instance (D3D's StartVertexLocation, StartInstanceLocation).
    pub start: [u32; 2],
    pub layout: &'a [InputElement],
    /// Vertex buffers by slot.
    pub vertex_buffers: Vec<(u32, &'a Buffer)>,
    /// Color attachments by slot (None for gaps).
    pub colors: Vec<Option<Attachment<'a>>>,
    pub depth: Option<Attachment<'a>>,
    /// Depth test function (`depth` directive), used when there is a depth attachment.
    pub depth_func: vk::CompareOp,
    /// Sample mask (bit i enables sample i).
    pub sample_mask: u32,
    /// `viewport N (x, y, w, h)` rectangles in D3D's pixel coordinates (y down), by index;
    /// empty: one viewport covering the render area.
    pub viewports: Vec<[f32; 4]>,
    /// Depth bounds test range (`depth-bounds MIN MAX`), used with a depth attachment.
    pub depth_bounds: Option<(f32, f32)>,
    /// D3D9's rasterisation: pixel centres at integer window coordinates, so every viewport
    /// moves by half a pixel right and down (what D3D9 samples at (x, y) Vulkan samples at
    /// (x + 0.5, y + 0.5)).
    pub d3d9_pixel_centres: bool,
    /// `[translator options] dual-source-blending = on`: render target 0 is blended as
    /// `src0 × src1` (colour `SRC1_COLOR × src + ZERO × dst`, alpha likewise), so that a
    /// probe sees both of the pixel shader's colours.
    pub dual_source_blending: bool,
    /// Benchmarking: draw this many times between the timer's two timestamps (None: once,
    /// untimed).
    pub timed: Option<(u32, &'a Timer)>,
    /// Transform feedback, when the last vertex-processing stage has a stream-output layout.
    pub xfb: Option<XfbDraw<'a>>,
    /// D3D9 fixed-function state whose items the modules read from specialization constants.
    pub d3d9_state: Option<&'a crate::run::d3d9_state::D3d9State>,
}

/// The transform-feedback side of a draw.
pub struct XfbDraw<'a> {
    /// The `[so N]` buffers by slot, bound whole from offset 0.
    pub buffers: Vec<(u32, &'a Buffer)>,
    /// The reflection's rasterized stream (`None`: rasterizer discard).
    pub rasterized_stream: Option<u32>,
}

/// The specialization constants of one stage, set from the pipeline state they stand for.
struct Specialization {
    entries: Vec<vk::SpecializationMapEntry>,
    /// The values, native-endian, as Vulkan reads specialization data.
    data: Vec<u8>,
}

impl Specialization {
    fn new(
        refl: &translator::reflect::Reflection,
        samples: vk::SampleCountFlags,
        d3d9_state: Option<&crate::run::d3d9_state::D3d9State>,
    ) -> Self {
        use translator::d3d9_state::StateDelivery;
        use translator::reflect::SpecConstantMeaning;
        let mut entries = Vec::new();
        let mut data: Vec<u8> = Vec::new();
        let mut add = |id: u32, value: u32| {
            entries.push(vk::SpecializationMapEntry {
                constant_id: id,
                offset: data.len() as u32,
                size: 4,
            });
            data.extend_from_slice(&value.to_ne_bytes());
        };
        for c in &refl.spec_constants {
            let value = match c.meaning {
                SpecConstantMeaning::RasterizerSampleCount => samples.as_raw(),
            };
            add(c.id, value);
        }
        // D3D9 state items delivered as specialization constants: one per word.
        for e in refl.d3d9.iter().flat_map(|d| &d.state) {
            if let StateDelivery::Spec {
                first_id: Some(first),
            } = e.delivery
            {
                let words =
                    d3d9_state.map_or_else(|| e.item.default_words().to_vec(), |s| s.words(e.item));
                for (k, w) in words.into_iter().enumerate() {
                    add(first + k as u32, w);
                }
            }
        }
        Specialization { entries, data }
    }

    fn info(&self) -> vk::SpecializationInfo<'_> {
        vk::SpecializationInfo::default()
            .map_entries(&self.entries)
            .data(&self.data)
    }
}

/// Builds a graphics pipeline for `stages` and draws.
pub fn draw(
    gpu: &Gpu,
    stages: &[&Translation],
    bound: &Bound,
    st: &mut DrawState<'_>,
) -> Result<(), RunError> {
    let mut modules = Vec::new();
    let mut names = Vec::new();
    for t in stages {
        if t.reflection.stage == ShaderStage::Compute {
            destroy_modules(gpu, &modules);
            return Err(RunError::Fail(
                "a compute shader in a graphics pipeline".into(),
            ));
        }
        match module(gpu, t) {
            Ok(m) => modules.push(m),
            Err(e) => {
                destroy_modules(gpu, &modules);
                return Err(e);
            }
        }
        names.push(
            CString::new(t.reflection.entry_point.as_str())
                .map_err(|_| "entry point name has a NUL".to_string())?,
        );
    }
    let samples = st
        .colors
        .iter()
        .flatten()
        .map(|a| a.image.samples)
        .chain(st.depth.iter().map(|a| a.image.samples))
        .max_by_key(|s| s.as_raw())
        .unwrap_or(vk::SampleCountFlags::TYPE_1);
    let specs: Vec<Specialization> = stages
        .iter()
        .map(|t| Specialization::new(&t.reflection, samples, st.d3d9_state))
        .collect();
    let spec_infos: Vec<vk::SpecializationInfo> = specs.iter().map(|s| s.info()).collect();
    let stage_infos: Vec<vk::PipelineShaderStageCreateInfo> = stages
        .iter()
        .zip(&modules)
        .zip(&names)
        .zip(&spec_infos)
        .map(|(((t, m), n), si)| {
            let info = vk::PipelineShaderStageCreateInfo::default()
                .stage(stage_flags(t.reflection.stage))
                .module(*m)
                .name(n);
            if si.map_entry_count > 0 {
                info.specialization_info(si)
            } else {
                info
            }
        })
        .collect();
    let result = (|| {
        // Vertex input: reflected VS inputs matched to the input layout by semantic.
        let vs = stages
            .iter()
            .find(|t| t.reflection.stage == ShaderStage::Vertex)
            .ok_or("no vertex shader")?;
        let mut attrs = Vec::new();
        let mut strides: std::collections::BTreeMap<u32, u32> = std::collections::BTreeMap::new();
        let mut offsets = Vec::new();
        for e in st.layout {
            let off = strides.entry(e.slot).or_insert(0);
            offsets.push(*off);
            *off += e.format.texel_size;
        }
        for input in &vs.reflection.inputs {
            let InterfacePlacement::Location { location, .. } = input.placement else {
                continue;
            };
            let found = st.layout.iter().zip(&offsets).find(|(e, _)| {
                e.semantic.eq_ignore_ascii_case(&input.semantic_name)
                    && e.index == input.semantic_index
            });
            let Some((e, off)) = found else {
                return Err(RunError::Fail(format!(
                    "vertex shader input {}{} has no [input layout] element",
                    input.semantic_name, input.semantic_index
                )));
            };
            if attrs
                .iter()
                .any(|a: &vk::VertexInputAttributeDescription| a.location == location)
            {
                return Err(RunError::Skip(format!(
                    "two vertex inputs share location {location}"
                )));
            }
            attrs.push(vk::VertexInputAttributeDescription {
                location,
                binding: e.slot,
                format: e.format.vk,
                offset: *off,
            });
        }
        let used_slots: std::collections::BTreeSet<u32> = attrs.iter().map(|a| a.binding).collect();
        let mut bindings = Vec::new();
        for slot in &used_slots {
            if !st.vertex_buffers.iter().any(|(s, _)| s == slot) {
                return Err(RunError::Fail(format!(
                    "the input layout uses vertex buffer {slot} but the test declares no [vb {slot}]"
                )));
            }
            bindings.push(vk::VertexInputBindingDescription {
                binding: *slot,
                stride: strides[slot],
                input_rate: vk::VertexInputRate::VERTEX,
            });
        }
        let vi = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&bindings)
            .vertex_attribute_descriptions(&attrs);
        let (topology, restart) = match st.topology {
            Topology::TriangleList => (vk::PrimitiveTopology::TRIANGLE_LIST, false),
            Topology::TriangleStrip => (vk::PrimitiveTopology::TRIANGLE_STRIP, false),
            Topology::PointList => (vk::PrimitiveTopology::POINT_LIST, false),
            Topology::LineList => (vk::PrimitiveTopology::LINE_LIST, false),
            Topology::LineStrip => (vk::PrimitiveTopology::LINE_STRIP, false),
            Topology::PatchList(_) => (vk::PrimitiveTopology::PATCH_LIST, false),
        };
        let tessellating = stages
            .iter()
            .any(|t| t.reflection.stage == ShaderStage::Hull);
        let control_points = match st.topology {
            Topology::PatchList(n) => n,
            _ => 0,
        };
        if tessellating != (control_points > 0) {
            return Err(RunError::Fail(
                "hull/domain shaders need a patch-list topology and the reverse".into(),
            ));
        }
        let ts =
            vk::PipelineTessellationStateCreateInfo::default().patch_control_points(control_points);
        let ia = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(topology)
            .primitive_restart_enable(restart);
        let viewport_count = st.viewports.len().max(1) as u32;
        let vp = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(viewport_count)
            .scissor_count(viewport_count);
        let mut rs = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .front_face(vk::FrontFace::CLOCKWISE)
            .line_width(1.0);
        let mut rs_stream = vk::PipelineRasterizationStateStreamCreateInfoEXT::default();
        // A pixel shader reading SV_InnerCoverage (FullyCoveredEXT) runs under conservative
        // rasterization, as D3D requires of it (the rasterizer state's ConservativeRaster).
        let mut rs_conservative =
            vk::PipelineRasterizationConservativeStateCreateInfoEXT::default()
                .conservative_rasterization_mode(
                    vk::ConservativeRasterizationModeEXT::OVERESTIMATE,
                );
        if stages.iter().any(|t| {
            t.reflection
                .extensions
                .iter()
                .any(|e| e == "SPV_EXT_fragment_fully_covered")
        }) {
            if !gpu.fully_covered {
                return Err(RunError::Skip(
                    "SV_InnerCoverage: the device lacks VK_EXT_conservative_rasterization with fullyCoveredFragmentShaderInputVariable".into(),
                ));
            }
            rs = rs.push_next(&mut rs_conservative);
        }
        if let Some(x) = &st.xfb {
            let props = gpu.xfb.as_ref().map(|(_, p)| *p).unwrap_or_default();
            match x.rasterized_stream {
                None => rs = rs.rasterizer_discard_enable(true),
                Some(0) => {}
                Some(n) => {
                    if props.transform_feedback_rasterization_stream_select == 0 {
                        return Err(RunError::Skip(format!(
                            "rasterized stream {n}: the device lacks transformFeedbackRasterizationStreamSelect"
                        )));
                    }
                    rs_stream = rs_stream.rasterization_stream(n);
                    rs = rs.push_next(&mut rs_stream);
                }
            }
            if let Some((slot, _)) = x
                .buffers
                .iter()
                .find(|(s, _)| *s >= props.max_transform_feedback_buffers)
            {
                return Err(RunError::Skip(format!(
                    "stream-output buffer {slot}: the device has {} transform feedback buffers",
                    props.max_transform_feedback_buffers
                )));
            }
        }
        let sample_mask = [st.sample_mask];
        let ms = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(samples)
            .sample_mask(&sample_mask);
        let blend: Vec<vk::PipelineColorBlendAttachmentState> = st
            .colors
            .iter()
            .enumerate()
            .map(|(i, _)| {
                let b = vk::PipelineColorBlendAttachmentState::default()
                    .color_write_mask(vk::ColorComponentFlags::RGBA);
                if st.dual_source_blending && i == 0 {
                    b.blend_enable(true)
                        .src_color_blend_factor(vk::BlendFactor::SRC1_COLOR)
                        .dst_color_blend_factor(vk::BlendFactor::ZERO)
                        .color_blend_op(vk::BlendOp::ADD)
                        .src_alpha_blend_factor(vk::BlendFactor::SRC1_ALPHA)
                        .dst_alpha_blend_factor(vk::BlendFactor::ZERO)
                        .alpha_blend_op(vk::BlendOp::ADD)
                } else {
                    b
                }
            })
            .collect();
        let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
        let mut ds = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(st.depth.is_some())
            .depth_write_enable(st.depth.is_some())
            .depth_compare_op(st.depth_func);
        if let (Some((min, max)), Some(_)) = (st.depth_bounds, st.depth.as_ref()) {
            // Checked against the device's `depthBounds` feature by the caller.
            ds = ds
                .depth_bounds_test_enable(true)
                .min_depth_bounds(min)
                .max_depth_bounds(max);
        }
        let dyn_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dyn_states);
        let color_formats: Vec<vk::Format> = st
            .colors
            .iter()
            .map(|c| c.as_ref().map_or(vk::Format::UNDEFINED, |a| a.image.format))
            .collect();
        let depth_format = st
            .depth
            .as_ref()
            .map_or(vk::Format::UNDEFINED, |a| a.image.format);
        let mut rendering = vk::PipelineRenderingCreateInfo::default()
            .color_attachment_formats(&color_formats)
            .depth_attachment_format(depth_format);
        let mut info = [vk::GraphicsPipelineCreateInfo::default()
            .stages(&stage_infos)
            .vertex_input_state(&vi)
            .input_assembly_state(&ia)
            .viewport_state(&vp)
            .rasterization_state(&rs)
            .multisample_state(&ms)
            .color_blend_state(&cb)
            .depth_stencil_state(&ds)
            .dynamic_state(&dy)
            .layout(bound.layout)
            .push_next(&mut rendering)];
        if tessellating {
            info[0] = info[0].tessellation_state(&ts);
        }
        // SAFETY: all create-info structs above are alive for the call.
        let pipeline = unsafe {
            gpu.device
                .create_graphics_pipelines(vk::PipelineCache::null(), &info, None)
        }
        .map_err(|(_, e)| RunError::Fail(format!("vkCreateGraphicsPipelines: {e}")))?[0];
        let pipeline = Pipeline {
            device: gpu.device.clone(),
            pipeline,
            modules: std::mem::take(&mut modules),
        };

        // Render area: the smallest attachment, as in vkd3d's runner.
        let extent = st
            .colors
            .iter()
            .flatten()
            .map(|a| a.image.extent)
            .chain(st.depth.as_ref().map(|a| a.image.extent))
            .reduce(|a, b| vk::Extent3D {
                width: a.width.min(b.width),
                height: a.height.min(b.height),
                depth: 1,
            })
            .ok_or("a draw needs a render target or depth buffer")?;
        let area = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: extent.width,
                height: extent.height,
            },
        };
        // Array targets are bound whole (a geometry shader picks the slice with
        // SV_RenderTargetArrayIndex); rendering covers the layers every target has.
        let layers = st
            .colors
            .iter()
            .flatten()
            .map(|a| a.image.layers)
            .chain(st.depth.as_ref().map(|a| a.image.layers))
            .min()
            .unwrap_or(1)
            .max(1);
        let view_type = |layers: u32| {
            if layers > 1 {
                vk::ImageViewType::TYPE_2D_ARRAY
            } else {
                vk::ImageViewType::TYPE_2D
            }
        };
        let mut views = Vec::new();
        for c in st.colors.iter_mut() {
            views.push(match c {
                Some(a) => {
                    let f = a.image.format;
                    let t = view_type(a.image.layers);
                    Some(gpu.image_view(a.image, t, f, Some(0))?)
                }
                None => None,
            });
        }
        let depth_view = match st.depth.as_mut() {
            Some(a) => {
                let f = a.image.format;
                let t = view_type(a.image.layers);
                Some(gpu.image_view(a.image, t, f, Some(0))?)
            }
            None => None,
        };
        let color_atts: Vec<vk::RenderingAttachmentInfo> = views
            .iter()
            .map(|v| {
                vk::RenderingAttachmentInfo::default()
                    .image_view(v.unwrap_or(vk::ImageView::null()))
                    .image_layout(vk::ImageLayout::GENERAL)
                    .load_op(vk::AttachmentLoadOp::LOAD)
                    .store_op(vk::AttachmentStoreOp::STORE)
            })
            .collect();
        let depth_att = depth_view.map(|v| {
            vk::RenderingAttachmentInfo::default()
                .image_view(v)
                .image_layout(vk::ImageLayout::GENERAL)
                .load_op(vk::AttachmentLoadOp::LOAD)
                .store_op(vk::AttachmentStoreOp::STORE)
        });
        let (mut viewports, scissors) = viewports_and_scissors(&st.viewports, area);
        if st.d3d9_pixel_centres {
            for v in &mut viewports {
                v.x += 0.5;
                v.y += 0.5;
            }
        }
        gpu.submit(|cmd| {
            // SAFETY: cmd is recording; every handle is valid for the submission.
            unsafe {
                let mut ri = vk::RenderingInfo::default()
                    .render_area(area)
                    .layer_count(layers)
                    .color_attachments(&color_atts);
                if let Some(d) = depth_att.as_ref() {
                    ri = ri.depth_attachment(d);
                }
                if let Some((_, timer)) = st.timed {
                    timer.start(cmd);
                }
                gpu.device.cmd_begin_rendering(cmd, &ri);
                gpu.device.cmd_bind_pipeline(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    pipeline.pipeline,
                );
                bind_common(gpu, cmd, vk::PipelineBindPoint::GRAPHICS, bound);
                gpu.device.cmd_set_viewport(cmd, 0, &viewports);
                gpu.device.cmd_set_scissor(cmd, 0, &scissors);
                for (slot, buf) in &st.vertex_buffers {
                    if used_slots.contains(slot) {
                        gpu.device
                            .cmd_bind_vertex_buffers(cmd, *slot, &[buf.buffer], &[0]);
                    }
                }
                let xfb = st.xfb.as_ref().zip(gpu.xfb.as_ref().map(|(d, _)| d));
                // ash 0.38 has no wrappers for VK_EXT_transform_feedback: its function
                // pointers are called directly (no counter buffers: capture from offset 0).
                if let Some((x, dev)) = xfb {
                    for (slot, buf) in &x.buffers {
                        let offset: vk::DeviceSize = 0;
                        (dev.fp().cmd_bind_transform_feedback_buffers_ext)(
                            cmd,
                            *slot,
                            1,
                            &buf.buffer,
                            &offset,
                            std::ptr::null(),
                        );
                    }
                    (dev.fp().cmd_begin_transform_feedback_ext)(
                        cmd,
                        0,
                        0,
                        std::ptr::null(),
                        std::ptr::null(),
                    );
                }
                for _ in 0..st.timed.map_or(1, |(n, _)| n) {
                    gpu.device
                        .cmd_draw(cmd, st.vertices, st.instances, st.start[0], st.start[1]);
                }
                if let Some((_, dev)) = xfb {
                    (dev.fp().cmd_end_transform_feedback_ext)(
                        cmd,
                        0,
                        0,
                        std::ptr::null(),
                        std::ptr::null(),
                    );
                }
                gpu.device.cmd_end_rendering(cmd);
                if let Some((_, timer)) = st.timed {
                    timer.stop(cmd);
                }
            }
        })?;
        drop(pipeline);
        Ok(())
    })();
    if !modules.is_empty() {
        destroy_modules(gpu, &modules);
    }
    result
}

/// Vulkan viewports and scissors for D3D viewports (x, y, width, height; y down). Each has a
/// negative height (y = top + height) so that D3D clip space maps to the same pixels without
/// flipping. No viewports: one covering `area`. A viewport of zero size (an index below the
/// highest one set and never set itself, as vkd3d leaves it) gets an empty scissor: Vulkan
/// needs a positive width, D3D draws nothing there.
fn viewports_and_scissors(
    rects: &[[f32; 4]],
    area: vk::Rect2D,
) -> (Vec<vk::Viewport>, Vec<vk::Rect2D>) {
    let full = [
        area.offset.x as f32,
        area.offset.y as f32,
        area.extent.width as f32,
        area.extent.height as f32,
    ];
    let rects = if rects.is_empty() { &[full][..] } else { rects };
    rects
        .iter()
        .map(|&[x, y, w, h]| {
            if w <= 0.0 || h <= 0.0 {
                let v = vk::Viewport {
                    x: 0.0,
                    y: 1.0,
                    width: 1.0,
                    height: -1.0,
                    min_depth: 0.0,
                    max_depth: 1.0,
                };
                return (v, vk::Rect2D::default());
            }
            let v = vk::Viewport {
                x,
                y: y + h,
                width: w,
                height: -h,
                min_depth: 0.0,
                max_depth: 1.0,
            };
            (v, area)
        })
        .unzip()
}

impl From<&str> for RunError {
    fn from(s: &str) -> Self {
        RunError::Fail(s.to_string())
    }
}
