//! The D3D12 work behind `[test]` lines: dispatch and draw (root signature, pipeline state,
//! descriptors, command list), clear, copy and probe.

use super::bind::{self, Heaps, Sources};
use super::ffi::types::*;
use super::ffi::{D3d12, GraphicsPso, InputElement as PsoInput, SoEntry};
use super::resource::{self, TestResource};
use super::run::FileState;
use super::scan::{self, Decl};
use super::shaders::{self, Compiler};
use crate::parse::format::{DataKind, Format};
use crate::parse::qualifier::{QualContext, ShaderModel};
use crate::parse::{
    CompareFunc, Dimensions, InputElement, Probe, Region, ResourceDecl, ResourceKind, ResourceRef,
    Stage, Topology,
};
use crate::run::compare;
use crate::vk::bind::RunError;
use std::rc::Rc;

/// What every piece of work needs.
pub struct Exec<'a> {
    pub dev: &'a D3d12,
    pub heaps: &'a Heaps,
    pub compiler: Compiler<'a>,
}

/// What an explicit `draw` line asks for.
#[derive(Debug, Clone, Copy)]
pub struct DrawCounts {
    pub topology: Topology,
    pub vertices: u32,
    pub instances: u32,
    pub start: [u32; 2],
}

fn fail(e: String) -> RunError {
    RunError::Fail(e)
}

fn existing(st: &FileState, key: (ResourceKind, u32, u32)) -> Result<(), RunError> {
    match st.resource_errors.get(&key) {
        Some(e) => Err(e.clone()),
        None => Ok(()),
    }
}

/// A stage's bytecode and declarations.
struct Stage12 {
    code: Rc<[u8]>,
    decls: Vec<Decl>,
}

fn stage(
    x: &Exec<'_>,
    st: &mut FileState,
    s: Stage,
    model: ShaderModel,
    ctx: &dyn QualContext,
) -> Result<Option<Stage12>, RunError> {
    let Some((line, section)) = st.shaders.get(&s).cloned() else {
        return Ok(None);
    };
    let options = st.require.options.clone();
    let code = st
        .cache
        .get(&x.compiler, line, &section, model, ctx, &options)?;
    let decls = scan::scan(&code)
        .map_err(|e| fail(format!("the {} shader at line {line}: {e}", s.name())))?;
    Ok(Some(Stage12 { code, decls }))
}

fn sources(st: &FileState) -> Sources<'_> {
    Sources {
        resources: &st.resources,
        resource_errors: &st.resource_errors,
        samplers: &st.samplers,
        cbuffers: &st.cbuffers,
        descriptors: &st.descriptors,
    }
}

pub fn dispatch(
    x: &Exec<'_>,
    st: &mut FileState,
    model: ShaderModel,
    ctx: &dyn QualContext,
    groups: [u32; 3],
) -> Result<(), RunError> {
    let cs = stage(x, st, Stage::Compute, model, ctx)?
        .ok_or_else(|| fail("no [compute shader] declared".into()))?;
    let bound = bind::bind(x.dev, x.heaps, &[&cs.decls], &sources(st), 0)?;
    let pso = x
        .dev
        .create_compute_pso(&bound.root, &cs.code)
        .map_err(fail)?;
    x.dev
        .submit(|rec| {
            bound.record(rec, x.heaps, true)?;
            rec.set_pipeline_state(&pso);
            rec.dispatch(groups[0], groups[1], groups[2]);
            Ok(())
        })
        .map_err(fail)
}

/// Creates `[rtv 0]` (640x480 RGBA32F, as vkd3d's runner) when the test declares no render
/// target or depth buffer.
fn default_target(x: &Exec<'_>, st: &mut FileState) -> Result<(), RunError> {
    if st.resources.contains_key(&(ResourceKind::Rtv, 0, 0))
        || st.resources.contains_key(&(ResourceKind::Dsv, 0, 0))
    {
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
    let r = TestResource::create(x.dev, &decl).map_err(fail)?;
    st.resources.insert((ResourceKind::Rtv, 0, 0), r);
    Ok(())
}

fn topology(t: Topology) -> (u32, u32) {
    match t {
        Topology::TriangleList => (
            PRIMITIVE_TOPOLOGY_TRIANGLELIST,
            PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE,
        ),
        Topology::TriangleStrip => (
            PRIMITIVE_TOPOLOGY_TRIANGLESTRIP,
            PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE,
        ),
        Topology::PointList => (PRIMITIVE_TOPOLOGY_POINTLIST, PRIMITIVE_TOPOLOGY_TYPE_POINT),
        Topology::LineList => (PRIMITIVE_TOPOLOGY_LINELIST, PRIMITIVE_TOPOLOGY_TYPE_LINE),
        Topology::LineStrip => (PRIMITIVE_TOPOLOGY_LINESTRIP, PRIMITIVE_TOPOLOGY_TYPE_LINE),
        Topology::PatchList(n) => (
            PRIMITIVE_TOPOLOGY_1_CONTROL_POINT_PATCHLIST + n.max(1) - 1,
            PRIMITIVE_TOPOLOGY_TYPE_PATCH,
        ),
    }
}

fn compare_func(f: CompareFunc) -> u32 {
    COMPARISON_FUNC_NEVER + f as u32
}

/// The stream-output entries, per-slot strides and rasterized stream of a declaration (D3D12
/// applies it to the last stage before the rasterizer, as the declaration means).
fn stream_output(so: &translator::StreamOutput) -> Result<(Vec<SoEntry>, Vec<u32>, u32), String> {
    let mut entries = Vec::new();
    let mut packed = [0u32; 4];
    for e in &so.entries {
        if e.output_slot > 3 {
            return Err(format!(
                "stream-output slot {} (D3D12 has 4)",
                e.output_slot
            ));
        }
        let gap = e
            .semantic_name
            .as_deref()
            .is_none_or(|n| n.eq_ignore_ascii_case("$SKIP"));
        entries.push(SoEntry {
            stream: e.stream,
            semantic: (!gap).then(|| e.semantic_name.clone().unwrap_or_default()),
            index: e.semantic_index,
            start_component: e.start_component,
            component_count: e.component_count,
            slot: e.output_slot as u8,
        });
        packed[e.output_slot as usize] += 4 * u32::from(e.component_count);
    }
    let used = so
        .entries
        .iter()
        .map(|e| e.output_slot as usize + 1)
        .max()
        .unwrap_or(0);
    let strides = (0..used)
        .map(|i| {
            if so.strides[i] != 0 {
                so.strides[i]
            } else {
                packed[i]
            }
        })
        .collect();
    Ok((entries, strides, so.rasterized_stream.unwrap_or(u32::MAX)))
}

pub fn draw(
    x: &Exec<'_>,
    st: &mut FileState,
    model: ShaderModel,
    ctx: &dyn QualContext,
    explicit: Option<DrawCounts>,
) -> Result<(), RunError> {
    if st.shaders.contains_key(&Stage::Hull) != st.shaders.contains_key(&Stage::Domain) {
        return Err(fail(
            "a hull shader needs a domain shader and the reverse".into(),
        ));
    }
    let quad = explicit.is_none();
    let vs = match stage(x, st, Stage::Vertex, model, ctx)? {
        Some(v) => v,
        None if quad => {
            let code = st
                .cache
                .get(&x.compiler, 0, &shaders::quad_vs(), model, ctx, &[])?;
            let decls = scan::scan(&code).map_err(fail)?;
            Stage12 { code, decls }
        }
        None => return Err(fail("draw without a [vertex shader]".into())),
    };
    let hs = stage(x, st, Stage::Hull, model, ctx)?;
    let ds = stage(x, st, Stage::Domain, model, ctx)?;
    let gs = stage(x, st, Stage::Geometry, model, ctx)?;
    let ps = stage(x, st, Stage::Pixel, model, ctx)?;
    let counts = explicit.unwrap_or(DrawCounts {
        topology: Topology::TriangleList,
        vertices: 3,
        instances: 1,
        start: [0, 0],
    });
    let depth_bounds = st
        .depth_bounds
        .filter(|_| st.resources.contains_key(&(ResourceKind::Dsv, 0, 0)));
    if depth_bounds.is_some()
        && x.dev
            .features
            .options2
            .is_none_or(|o| o.depth_bounds_test_supported == 0)
    {
        return Err(RunError::Skip(
            "depth-bounds: the device lacks DepthBoundsTestSupported".into(),
        ));
    }
    if st.viewports.len() > 16 {
        return Err(fail(format!(
            "{} viewports (D3D12 has 16)",
            st.viewports.len()
        )));
    }
    // Stream output.
    let so = match &st.stream_output {
        Some(so) => Some(stream_output(so).map_err(fail)?),
        None => None,
    };
    // vkd3d rasterizes stream 0 whatever `RasterizedStream` says on a device that cannot
    // select the stream (it logs a FIXME), so such a draw could not show what it asks.
    if let Some(n) = st
        .stream_output
        .as_ref()
        .and_then(|so| so.rasterized_stream)
        .filter(|&n| n != 0)
        && !x
            .dev
            .vulkan
            .as_ref()
            .is_some_and(|v| v.rasterization_stream_select)
    {
        return Err(RunError::Skip(format!(
            "rasterized stream {n}: the Vulkan device under vkd3d lacks transformFeedbackRasterizationStreamSelect"
        )));
    }
    if let Some((_, strides, _)) = &so {
        for slot in 0..strides.len() as u32 {
            let key = (ResourceKind::StreamOutput, 0, slot);
            existing(st, key)?;
            if !st.resources.contains_key(&key) {
                return Err(fail(format!(
                    "the stream-output declaration writes buffer {slot} but the test declares no [so {slot}]"
                )));
            }
        }
    }
    default_target(x, st)?;
    // Render targets and depth buffer.
    let rt_slots: Vec<u32> = {
        let mut v: Vec<u32> = st
            .resources
            .keys()
            .filter(|(k, _, _)| *k == ResourceKind::Rtv)
            .map(|(_, _, s)| *s)
            .collect();
        v.sort();
        v
    };
    let rt_count = rt_slots.last().map_or(0, |m| m + 1);
    if rt_count > 8 {
        return Err(fail(format!(
            "rtv {}: D3D12 has 8 render targets",
            rt_count - 1
        )));
    }
    if rt_slots.len() as u32 != rt_count {
        return Err(RunError::Skip(
            "render targets with gaps between slots (the d3d12 executor binds them in order)"
                .into(),
        ));
    }
    if st
        .layer
        .output_swizzles
        .iter()
        .any(|s| *s != translator::SwizzleComponent::IDENTITY)
    {
        return Err(RunError::Skip(
            "[translator options] output-swizzles: Direct3D 12 has no way to ask for them \
             (vkd3d chooses swizzles itself, for render-target formats it emulates)"
                .into(),
        ));
    }
    let rts: Vec<&TestResource> = rt_slots
        .iter()
        .map(|s| &st.resources[&(ResourceKind::Rtv, 0, *s)])
        .collect();
    let dsv = st.resources.get(&(ResourceKind::Dsv, 0, 0));
    let sample_count = rts
        .iter()
        .chain(dsv.iter())
        .map(|r| r.res.desc.sample_desc.count)
        .max()
        .unwrap_or(1);
    let area = rts
        .first()
        .or(dsv.as_ref())
        .map(|r| (r.res.desc.width as u32, r.res.desc.height))
        .unwrap_or((
            crate::vk::resource::RT_WIDTH,
            crate::vk::resource::RT_HEIGHT,
        ));
    // Input layout: the test's, packed per slot in order (the quad's: a float2 position).
    let quad_layout = [InputElement {
        slot: 0,
        format: Format::by_name("r32g32-float").expect("known format"),
        semantic: "position".into(),
        index: 0,
    }];
    let layout: &[InputElement] = if quad { &quad_layout } else { &st.layout };
    let mut strides: std::collections::BTreeMap<u32, u32> = Default::default();
    let mut input = Vec::new();
    for e in layout {
        let off = strides.entry(e.slot).or_insert(0);
        input.push(PsoInput {
            semantic: e.semantic.clone(),
            index: e.index,
            format: resource::dxgi_format(&e.format).map_err(fail)?,
            slot: e.slot,
            offset: *off,
        });
        *off += e.format.texel_size;
    }
    let quad_vb = if quad {
        let data: Vec<u8> = [-2.0f32, -2.0, -2.0, 4.0, 4.0, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let vb = x
            .dev
            .create_buffer(
                HEAP_TYPE_UPLOAD,
                data.len() as u64,
                0,
                RESOURCE_STATE_GENERIC_READ,
            )
            .map_err(fail)?;
        vb.write(0, &data).map_err(fail)?;
        Some(vb)
    } else {
        None
    };
    let mut vbs = Vec::new();
    for (&slot, &stride) in &strides {
        let buf = match &quad_vb {
            Some(vb) => vb,
            None => {
                let key = (ResourceKind::VertexBuffer, 0, slot);
                existing(st, key)?;
                match st.resources.get(&key) {
                    Some(r) => &r.res,
                    None => {
                        return Err(fail(format!(
                            "the input layout uses vertex buffer {slot} but the test declares no [vb {slot}]"
                        )));
                    }
                }
            }
        };
        vbs.push((slot, buf, stride));
    }
    // Root signature and descriptors.
    let decls: Vec<&[Decl]> = [
        Some(&vs),
        hs.as_ref(),
        ds.as_ref(),
        gs.as_ref(),
        ps.as_ref(),
    ]
    .into_iter()
    .flatten()
    .map(|s| &s.decls[..])
    .collect();
    let mut flags = ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT;
    if so.is_some() {
        flags |= ROOT_SIGNATURE_FLAG_ALLOW_STREAM_OUTPUT;
    }
    let bound = bind::bind(x.dev, x.heaps, &decls, &sources(st), flags)?;
    let (ia_topology, topology_type) = topology(counts.topology);
    let rtv_formats: Vec<u32> = rts.iter().map(|r| r.format).collect();
    let no_so = (Vec::new(), Vec::new(), 0);
    let (so_entries, so_strides, rasterized) = so.as_ref().unwrap_or(&no_so);
    fn code(s: &Option<Stage12>) -> Option<&[u8]> {
        s.as_ref().map(|s| &s.code[..])
    }
    let pso = x
        .dev
        .create_graphics_pso(&GraphicsPso {
            root: &bound.root,
            vs: &vs.code,
            hs: code(&hs),
            ds: code(&ds),
            gs: code(&gs),
            ps: code(&ps),
            input: &input,
            stream_output: so_entries,
            so_strides,
            rasterized_stream: *rasterized,
            topology_type,
            rtv_formats: &rtv_formats,
            dsv_format: dsv.map_or(FORMAT_UNKNOWN, |d| d.format),
            depth_func: compare_func(st.depth_func),
            sample_count,
            sample_mask: st.sample_mask,
            depth_bounds: depth_bounds.is_some(),
            dual_source_blending: st.layer.dual_source_blending,
        })
        .map_err(fail)?;
    // Render target and depth views.
    for (i, r) in rts.iter().enumerate() {
        x.dev
            .create_rtv(&r.res, x.heaps.rtv.cpu(i as u32).map_err(fail)?);
    }
    if let Some(d) = dsv {
        x.dev.create_dsv(&d.res, x.heaps.dsv.cpu(0).map_err(fail)?);
    }
    let rtv_handles = (0..rts.len() as u32)
        .map(|i| x.heaps.rtv.cpu(i))
        .collect::<Result<Vec<_>, _>>()
        .map_err(fail)?;
    let dsv_handle = match dsv {
        Some(_) => Some(x.heaps.dsv.cpu(0).map_err(fail)?),
        None => None,
    };
    let (viewports, scissors) = viewports_and_scissors(&st.viewports, area);
    // Stream-output buffers, with zeroed filled-size counters.
    let so_buffers: Vec<&TestResource> = (0..so_strides.len() as u32)
        .map(|slot| &st.resources[&(ResourceKind::StreamOutput, 0, slot)])
        .collect();
    let so_counters = if so_buffers.is_empty() {
        None
    } else {
        let size = 16 * so_buffers.len() as u64;
        let c = x
            .dev
            .create_buffer(HEAP_TYPE_DEFAULT, size, 0, RESOURCE_STATE_COPY_DEST)
            .map_err(fail)?;
        let z = x
            .dev
            .create_buffer(HEAP_TYPE_UPLOAD, size, 0, RESOURCE_STATE_GENERIC_READ)
            .map_err(fail)?;
        z.write(0, &vec![0u8; size as usize]).map_err(fail)?;
        Some((c, z, size))
    };
    x.dev
        .submit(|rec| {
            if let Some((c, z, size)) = &so_counters {
                rec.copy_buffer(c, 0, z, 0, *size);
                rec.transition(c, RESOURCE_STATE_COPY_DEST, RESOURCE_STATE_STREAM_OUT);
                let targets: Vec<_> = so_buffers
                    .iter()
                    .enumerate()
                    .map(|(i, b)| (i as u32, &b.res, c, 16 * i as u64))
                    .collect();
                rec.set_so_targets(&targets);
            }
            bound.record(rec, x.heaps, false)?;
            rec.set_vertex_buffers(&vbs);
            rec.set_render_targets(&rtv_handles, dsv_handle);
            rec.set_viewports(&viewports, &scissors);
            rec.set_topology(ia_topology);
            if let Some((min, max)) = depth_bounds {
                rec.set_depth_bounds(min, max)?;
            }
            rec.set_pipeline_state(&pso);
            rec.draw(
                counts.vertices,
                counts.instances,
                counts.start[0],
                counts.start[1],
            );
            Ok(())
        })
        .map_err(fail)
}

/// D3D12 viewports for the test's (x, y, width, height) rectangles, each with a scissor of
/// the whole render area; none given: one over the area. A viewport of zero size (an index
/// below the highest one set and never set itself) gets an empty scissor, as with the direct
/// executor: nothing is drawn there.
fn viewports_and_scissors(rects: &[[f32; 4]], (w, h): (u32, u32)) -> (Vec<Viewport>, Vec<Rect>) {
    let full = [0.0, 0.0, w as f32, h as f32];
    let rects = if rects.is_empty() { &[full][..] } else { rects };
    rects
        .iter()
        .map(|&[x, y, vw, vh]| {
            let empty = vw <= 0.0 || vh <= 0.0;
            let v = Viewport {
                top_left_x: if empty { 0.0 } else { x },
                top_left_y: if empty { 0.0 } else { y },
                width: if empty { 1.0 } else { vw },
                height: if empty { 1.0 } else { vh },
                min_depth: 0.0,
                max_depth: 1.0,
            };
            let s = if empty {
                Rect::default()
            } else {
                Rect {
                    left: 0,
                    top: 0,
                    right: w as i32,
                    bottom: h as i32,
                }
            };
            (v, s)
        })
        .unzip()
}

pub fn clear(
    x: &Exec<'_>,
    st: &mut FileState,
    target: ResourceRef,
    value: [f32; 4],
) -> Result<(), RunError> {
    if target.kind == ResourceKind::Rtv && target.slot == 0 {
        default_target(x, st)?;
    }
    let key = (target.kind, 0, target.slot);
    existing(st, key)?;
    let r = st.resources.get(&key).ok_or_else(|| {
        fail(format!(
            "clear of undeclared {} {}",
            target.kind.name(),
            target.slot
        ))
    })?;
    match target.kind {
        ResourceKind::Rtv => {
            let h = x.heaps.rtv.cpu(0).map_err(fail)?;
            x.dev.create_rtv(&r.res, h);
            x.dev.submit(|rec| {
                rec.clear_rtv(h, value);
                Ok(())
            })
        }
        ResourceKind::Dsv => {
            let h = x.heaps.dsv.cpu(0).map_err(fail)?;
            x.dev.create_dsv(&r.res, h);
            x.dev.submit(|rec| {
                rec.clear_dsv(h, value[0]);
                Ok(())
            })
        }
        ResourceKind::Uav => {
            let kind = if r.res.desc.dimension == RESOURCE_DIMENSION_BUFFER {
                if r.format == FORMAT_UNKNOWN || r.format == FORMAT_R32_TYPELESS {
                    scan::Kind::Raw
                } else {
                    scan::Kind::Typed(translator::sm4::ResourceDimension::Buffer)
                }
            } else if r.res.desc.dimension == RESOURCE_DIMENSION_TEXTURE3D {
                scan::Kind::Typed(translator::sm4::ResourceDimension::Texture3D)
            } else {
                scan::Kind::Typed(translator::sm4::ResourceDimension::Texture2DArray)
            };
            let desc = super::views::uav_desc(Some(r), kind, None).map_err(fail)?;
            let gpu_at = x.heaps.view.cpu(0).map_err(fail)?;
            let cpu_at = x.heaps.cpu_view.cpu(0).map_err(fail)?;
            x.dev.create_uav(Some(&r.res), None, &desc, gpu_at);
            x.dev.create_uav(Some(&r.res), None, &desc, cpu_at);
            let v = match r.decl.format.kind {
                DataKind::Uint | DataKind::Sint | DataKind::Raw => {
                    super::ffi::ClearValue::Uint(value.map(|f| f as i64 as u32))
                }
                _ => super::ffi::ClearValue::Float(value),
            };
            x.dev.submit(|rec| {
                rec.set_descriptor_heaps(&[&x.heaps.view]);
                rec.clear_uav(x.heaps.view.gpu(0)?, cpu_at, &r.res, v)
            })
        }
        k => Err(format!("D3D12 has no clear for a {} resource", k.name())),
    }
    .map_err(fail)
}

/// `copy SRC DST`: CopyResource between resources of the same shape.
pub fn copy(
    x: &Exec<'_>,
    st: &mut FileState,
    src: ResourceRef,
    dst: ResourceRef,
) -> Result<(), RunError> {
    for r in [src, dst] {
        if r.kind == ResourceKind::Rtv && r.slot == 0 {
            default_target(x, st)?;
        }
        existing(st, (r.kind, 0, r.slot))?;
    }
    let get = |r: ResourceRef| {
        st.resources
            .get(&(r.kind, 0, r.slot))
            .ok_or_else(|| fail(format!("copy of undeclared {} {}", r.kind.name(), r.slot)))
    };
    let (a, b) = (get(src)?, get(dst)?);
    let (da, db) = (a.res.desc, b.res.desc);
    let buffers =
        da.dimension == RESOURCE_DIMENSION_BUFFER && db.dimension == RESOURCE_DIMENSION_BUFFER;
    if da.dimension != db.dimension {
        return Err(fail("copy between a buffer and a texture".into()));
    }
    if buffers {
        let bytes = da.width.min(db.width);
        return x
            .dev
            .submit(|rec| {
                rec.transition(&a.res, a.state, RESOURCE_STATE_COPY_SOURCE);
                rec.transition(&b.res, b.state, RESOURCE_STATE_COPY_DEST);
                rec.copy_buffer(&b.res, 0, &a.res, 0, bytes);
                rec.transition(&a.res, RESOURCE_STATE_COPY_SOURCE, a.state);
                rec.transition(&b.res, RESOURCE_STATE_COPY_DEST, b.state);
                Ok(())
            })
            .map_err(fail);
    }
    if (
        da.width,
        da.height,
        da.depth_or_array_size,
        da.mip_levels,
        da.sample_desc,
    ) != (
        db.width,
        db.height,
        db.depth_or_array_size,
        db.mip_levels,
        db.sample_desc,
    ) || a.decl.format.texel_size != b.decl.format.texel_size
    {
        return Err(fail("copy between resources of different shapes".into()));
    }
    if a.decl.format.is_depth() != b.decl.format.is_depth() {
        return Err(RunError::Skip(
            "copy between depth and colour textures (D3D12 copies only between compatible formats)"
                .into(),
        ));
    }
    x.dev
        .submit(|rec| {
            rec.transition(&a.res, a.state, RESOURCE_STATE_COPY_SOURCE);
            rec.transition(&b.res, b.state, RESOURCE_STATE_COPY_DEST);
            rec.copy_resource(&b.res, &a.res);
            rec.transition(&a.res, RESOURCE_STATE_COPY_SOURCE, a.state);
            rec.transition(&b.res, RESOURCE_STATE_COPY_DEST, b.state);
            Ok(())
        })
        .map_err(fail)
}

pub fn probe(x: &Exec<'_>, st: &mut FileState, p: &Probe) -> Result<(), RunError> {
    let key = (p.target.kind, 0, p.target.slot);
    existing(st, key)?;
    let r = st.resources.get(&key).ok_or_else(|| {
        fail(format!(
            "probe of undeclared {} {}",
            p.target.kind.name(),
            p.target.slot
        ))
    })?;
    let fmt = r.decl.format;
    let desc = r.res.desc;
    if desc.dimension == RESOURCE_DIMENSION_BUFFER {
        let rb = resource::read_back(x.dev, r, 0).map_err(fail)?;
        return compare::probe_buffer(&fmt, &rb.data, p);
    }
    if desc.sample_desc.count > 1
        && (!matches!(
            fmt.kind,
            DataKind::Float | DataKind::Unorm | DataKind::Snorm
        ) || fmt.is_depth())
    {
        return Err(RunError::Skip(format!(
            "probing multisampled {} resources is not supported",
            fmt.name
        )));
    }
    let layer = match p.region {
        Region::Point { layer, .. } => layer,
        _ => 0,
    };
    let three_d = desc.dimension == RESOURCE_DIMENSION_TEXTURE3D;
    if layer >= u32::from(desc.depth_or_array_size) {
        return Err(fail(format!("probe layer {layer} out of range")));
    }
    let rb = resource::read_back(x.dev, r, if three_d { 0 } else { layer }).map_err(fail)?;
    let z_offset = if three_d {
        u64::from(layer) * u64::from(rb.width) * u64::from(rb.height)
    } else {
        0
    };
    compare::probe_texels(&fmt, &rb.data, rb.width, rb.height, z_offset, p)
}
