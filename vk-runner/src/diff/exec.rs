//! One side of a differential run: translate the shader with one backend, build a pipeline
//! around it from its own declarations (a generated vertex stage for a pixel shader, a
//! generated capturing geometry stage for a vertex shader, the declared group shape for a
//! compute shader), bind the seeded inputs, run it once and read every output back.

use super::inject::Inject;
use super::inputs::{self, Inputs, Sizes, TARGET, VERTICES};
use super::outputs::{Output, SideResult, Source, Unit};
use super::shader::{Kind, ScalarKind, Shader};
use super::spirv_io::{self, Leaf, Place};
use super::stages;
use crate::backend::Backend;
use crate::parse::format::Format;
use crate::parse::{Dimensions, InputElement, ResourceDecl, ResourceKind, Topology};
use crate::vk::bind::{self, BindSources, RunError};
use crate::vk::context::Gpu;
use crate::vk::pipeline::{self, Attachment, DrawState};
use crate::vk::resource::{GpuObject, TestResource};
use ash::vk;
use spirv::{BuiltIn, StorageClass};
use translator::Translation;
use translator::reflect::*;

/// The register space of the capture buffer (far from any a shader uses).
const CAPTURE_SPACE: u32 = 0x7fff_0000;

fn not_run(reason: impl Into<String>, unsupported: bool) -> SideResult {
    SideResult::NotRun {
        reason: reason.into(),
        unsupported,
    }
}

impl From<RunError> for SideResult {
    fn from(e: RunError) -> Self {
        match e {
            RunError::Skip(m) => not_run(m, true),
            RunError::Fail(m) => not_run(m, false),
        }
    }
}

/// Runs `shader` through `backend` on `gpu`.
pub fn run(
    gpu: &Gpu,
    backend: &Backend,
    shader: &Shader,
    seed: u64,
    inject: Option<&Inject>,
) -> SideResult {
    let mut t = match backend.translate(
        &shader.bytes,
        &Default::default(),
        Default::default(),
        Default::default(),
        None,
        None,
        &Default::default(),
    ) {
        Ok(t) => t,
        Err(e) => return not_run(format!("translation failed: {e}"), false),
    };
    if let Some(i) = inject {
        match i.apply(&t.spirv) {
            Ok(w) => t.spirv = w,
            Err(e) => return not_run(format!("--inject-miscompile: {e}"), true),
        }
    }
    if shader.consumes {
        return not_run(
            "the program consumes from a UAV counter, which starts at 0 here: the underflow is undefined",
            true,
        );
    }
    if let Err(e) = bind::check_features(gpu, &[&t.reflection]) {
        return e.into();
    }
    let bool_stride = if backend.is_ours() { 1 } else { 4 };
    let r = match shader.stage {
        ShaderStage::Compute => run_cs(gpu, shader, &t, seed),
        ShaderStage::Pixel => run_ps(gpu, shader, &t, seed, bool_stride),
        ShaderStage::Vertex => run_vs(gpu, shader, &t, seed, bool_stride),
        ShaderStage::Geometry => super::gs::run(gpu, shader, &t, seed),
        s => Err(RunError::Skip(format!(
            "{s:?} shaders are not run yet (only vertex, pixel, geometry and compute shaders)"
        ))),
    };
    match r {
        Ok(r) => r,
        Err(e) => e.into(),
    }
}

fn descriptors(t: &Translation) -> Vec<&Descriptor> {
    t.reflection.descriptors.iter().collect()
}

pub(super) fn sources(inp: &mut Inputs) -> BindSources<'_> {
    BindSources {
        resources: &mut inp.resources,
        samplers: &inp.samplers,
        cbuffers: &inp.cbuffers,
        descriptors: &[],
        d3d9_state: None,
    }
}

/// Reads every UAV back.
pub(super) fn read_uavs(gpu: &Gpu, inp: &Inputs, out: &mut Vec<Output>) -> Result<(), String> {
    for rb in &inp.readbacks {
        let Some(res) = inp.resources.get(&rb.key) else {
            continue;
        };
        let (words, unit) = match &res.obj {
            GpuObject::Buffer(b) => (bytes_to_words(&gpu.read_buffer(b)?), Unit::Element),
            GpuObject::Image(img) => {
                let mut w = Vec::new();
                let ts = res.decl.format.texel_size;
                for layer in 0..img.layers {
                    w.extend(bytes_to_words(&gpu.read_image(img, 0, layer, ts)?));
                }
                (
                    w,
                    Unit::Texel {
                        width: img.extent.width,
                        height: img.extent.height,
                    },
                )
            }
        };
        out.push(Output {
            name: rb.name.clone(),
            source: Source::Uav {
                register: rb.key.2,
                space: rb.key.1,
            },
            unit,
            comps: rb.channels,
            kinds: vec![rb.kind; rb.channels as usize],
            mask: (1 << rb.channels) - 1,
            data: words,
            unordered: rb.record,
        });
    }
    Ok(())
}

pub(super) fn bytes_to_words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The groups a compute run dispatches for a thread group of shape `wg`: two along x (one
/// when the group has more than 256 threads). The order analysis assumes the same.
pub fn cs_groups(wg: [u32; 3]) -> [u32; 3] {
    let threads = wg.iter().product::<u32>().max(1);
    if threads <= 256 { [2, 1, 1] } else { [1, 1, 1] }
}

fn run_cs(gpu: &Gpu, shader: &Shader, t: &Translation, seed: u64) -> Result<SideResult, RunError> {
    let wg = t.reflection.workgroup_size.unwrap_or(shader.workgroup);
    let threads = wg.iter().product::<u32>().max(1);
    let groups = cs_groups(wg);
    let sizes = Sizes {
        invocations: threads * groups[0],
        grid: [wg[0] * groups[0], wg[1], wg[2]],
        bool_stride: 1,
    };
    let mut inp = Inputs::new(gpu, shader, &descriptors(t), seed, sizes)?;
    let bound = bind::bind(gpu, &[&t.reflection], &mut sources(&mut inp))?;
    let p = pipeline::compute_pipeline(gpu, t, &bound)?;
    pipeline::dispatch(gpu, &p, &bound, groups)?;
    let mut outputs = Vec::new();
    read_uavs(gpu, &inp, &mut outputs)?;
    Ok(SideResult::Ran {
        outputs,
        inputs: inp.described.clone(),
    })
}

fn scalar_of(c: ComponentType) -> ScalarKind {
    match c {
        ComponentType::Uint => ScalarKind::U32,
        ComponentType::Sint => ScalarKind::I32,
        _ => ScalarKind::F32,
    }
}

/// The (semantic name, index, component) a module's `Location` scalar belongs to, and the
/// scalar type D3D gives it: from the side's reflection, else from the program's signature by
/// register (both translators place DXBC varyings at their register), else named after the
/// location. The type comes from the signature where it has the element (a module may declare
/// a register of mixed types as one vector of one type).
pub(super) fn semantic_at(
    vars: &[InterfaceVar],
    sig: &[super::shader::SigElem],
    kind: Kind,
    location: u32,
    component: u32,
) -> (String, u32, u32, Option<ScalarKind>) {
    let by_reg = sig
        .iter()
        .find(|e| kind == Kind::Dxbc && e.register == location && e.mask & (1 << component) != 0);
    for v in vars {
        if let InterfacePlacement::Location {
            location: l,
            component: c0,
        } = v.placement
            && l == location
        {
            let width = v.mask.count_ones().max(1);
            let covers = v.mask & (1 << component) != 0
                || (kind == Kind::D3d9 && component >= c0 && component < c0 + width);
            if covers {
                let name = v.semantic_name.to_ascii_uppercase();
                let k = sig
                    .iter()
                    .find(|e| e.name == name && e.index == v.semantic_index)
                    .map(|e| e.kind);
                return (name, v.semantic_index, component, k);
            }
        }
    }
    if let Some(e) = by_reg {
        return (e.name.clone(), e.index, component, Some(e.kind));
    }
    (format!("LOCATION{location}"), 0, component, None)
}

/// A vertex-stage reflection with no resources.
pub(super) fn bare_reflection(stage: ShaderStage) -> Reflection {
    Reflection {
        capabilities: vec!["Shader".into()],
        ..Reflection::empty(stage)
    }
}

pub(super) fn target(
    gpu: &Gpu,
    slot: u32,
    format: &str,
    size: u32,
    kind: ResourceKind,
) -> Result<TestResource, String> {
    TestResource::create(
        gpu,
        &ResourceDecl {
            kind,
            slot,
            space: 0,
            format: Format::by_name(format).expect("a format vk-runner knows"),
            explicit_format: true,
            stride: None,
            dims: Dimensions::Tex2d {
                width: size,
                height: size,
            },
            levels: 1,
            data: Vec::new(),
        },
    )
}

pub(super) fn attachment(r: &mut TestResource) -> Result<Attachment<'_>, RunError> {
    match &mut r.obj {
        GpuObject::Image(image) => Ok(Attachment { image }),
        GpuObject::Buffer(_) => Err(RunError::Fail("a render target is a buffer".into())),
    }
}

pub(super) fn draw_state<'a>(
    topology: Topology,
    vertices: u32,
    layout: &'a [InputElement],
    vbs: Vec<(u32, &'a crate::vk::memory::Buffer)>,
    colors: Vec<Option<Attachment<'a>>>,
    depth: Option<Attachment<'a>>,
    d3d9: bool,
) -> DrawState<'a> {
    DrawState {
        topology,
        vertices,
        instances: 1,
        start: [0, 0],
        layout,
        vertex_buffers: vbs,
        colors,
        depth,
        depth_func: vk::CompareOp::ALWAYS,
        sample_mask: !0,
        viewports: Vec::new(),
        depth_bounds: None,
        d3d9_pixel_centres: d3d9,
        dual_source_blending: false,
        timed: None,
        xfb: None,
        d3d9_state: None,
    }
}

fn run_ps(
    gpu: &Gpu,
    shader: &Shader,
    t: &Translation,
    seed: u64,
    bool_stride: u32,
) -> Result<SideResult, RunError> {
    let vars = spirv_io::interface(&t.spirv, StorageClass::Input)?;
    let d3d9_ps1 = shader.kind == Kind::D3d9 && shader.model.starts_with("ps_1");
    let refl_in = &t.reflection.inputs;
    let value = |leaf: &Leaf| {
        let Place::Location {
            location,
            component,
        } = leaf.at
        else {
            return inputs::Varying::Int(0);
        };
        let (name, index, comp, kind) =
            semantic_at(refl_in, &shader.inputs, shader.kind, location, component);
        let unit = d3d9_ps1 || (shader.kind == Kind::D3d9 && name == "COLOR");
        inputs::varying(seed, &name, index, comp, kind.unwrap_or(leaf.kind), unit)
    };
    let vs = Translation {
        spirv: stages::feed_vs(&vars, &value)?,
        reflection: bare_reflection(ShaderStage::Vertex),
    };
    // Targets: one RGBA32 image per located output, typed as the output; depth when written.
    let mut colors: Vec<Option<TestResource>> = Vec::new();
    let mut names: Vec<(u32, String, Source, ScalarKind, u32)> = Vec::new();
    let mut depth = None;
    for o in &t.reflection.outputs {
        match &o.placement {
            InterfacePlacement::Location { location, .. } => {
                let l = *location as usize;
                if colors.len() <= l {
                    colors.resize_with(l + 1, || None);
                }
                let k = scalar_of(o.component_type);
                if colors[l].is_none() {
                    let f = match k {
                        ScalarKind::U32 => "r32g32b32a32-uint",
                        ScalarKind::I32 => "r32g32b32a32-sint",
                        ScalarKind::F32 => "r32g32b32a32-float",
                    };
                    colors[l] = Some(target(gpu, l as u32, f, TARGET, ResourceKind::Rtv)?);
                    let source = match (shader.kind, o.register) {
                        (Kind::Dxbc, Some(r)) => Source::Register(r),
                        _ => Source::Any,
                    };
                    let mask = if shader.kind == Kind::Dxbc {
                        u32::from(o.mask)
                    } else {
                        0xf
                    };
                    names.push((
                        *location,
                        format!(
                            "{}{}",
                            o.semantic_name.to_ascii_uppercase(),
                            o.semantic_index
                        ),
                        source,
                        k,
                        mask,
                    ));
                }
            }
            InterfacePlacement::BuiltIn { builtin }
                if builtin == "FragDepth" && depth.is_none() =>
            {
                depth = Some(target(gpu, 0, "d32-float", TARGET, ResourceKind::Dsv)?);
            }
            _ => {}
        }
    }
    if colors.is_empty() && depth.is_none() {
        colors.push(Some(target(
            gpu,
            0,
            "r32g32b32a32-float",
            TARGET,
            ResourceKind::Rtv,
        )?));
    }
    let sizes = Sizes {
        invocations: TARGET * TARGET,
        grid: [TARGET, TARGET, 1],
        bool_stride,
    };
    let mut inp = Inputs::new(gpu, shader, &descriptors(t), seed, sizes)?;
    let bound = bind::bind(
        gpu,
        &[&vs.reflection, &t.reflection],
        &mut sources(&mut inp),
    )?;
    {
        let cols = colors
            .iter_mut()
            .map(|c| c.as_mut().map(attachment).transpose())
            .collect::<Result<Vec<_>, _>>()?;
        let dep = depth.as_mut().map(attachment).transpose()?;
        let mut st = draw_state(
            Topology::TriangleList,
            3,
            &[],
            Vec::new(),
            cols,
            dep,
            shader.kind == Kind::D3d9,
        );
        pipeline::draw(gpu, &[&vs, t], &bound, &mut st)?;
    }
    let mut outputs = Vec::new();
    for (location, name, source, kind, mask) in names {
        let Some(Some(r)) = colors.get(location as usize) else {
            continue;
        };
        let GpuObject::Image(img) = &r.obj else {
            continue;
        };
        let data = bytes_to_words(&gpu.read_image(img, 0, 0, 16)?);
        outputs.push(Output {
            name,
            source,
            unit: Unit::Pixel { width: TARGET },
            comps: 4,
            kinds: vec![kind; 4],
            mask,
            data,
            unordered: None,
        });
    }
    if let Some(d) = &depth
        && let GpuObject::Image(img) = &d.obj
    {
        let data = bytes_to_words(&gpu.read_image(img, 0, 0, 4)?);
        outputs.push(Output {
            name: "DEPTH".into(),
            source: if shader.kind == Kind::Dxbc {
                Source::Depth
            } else {
                Source::Any
            },
            unit: Unit::Pixel { width: TARGET },
            comps: 1,
            kinds: vec![ScalarKind::F32],
            mask: 1,
            data,
            unordered: None,
        });
    }
    read_uavs(gpu, &inp, &mut outputs)?;
    Ok(SideResult::Ran {
        outputs,
        inputs: inp.described.clone(),
    })
}

/// Whether a built-in a vertex shader's module writes is a D3D output: a module may write
/// `PointSize` for Vulkan's sake (D3D10+ has none; a D3D9 shader has one only if it writes
/// `oPts`).
pub(super) fn d3d_output(shader: &Shader, b: BuiltIn) -> bool {
    if b != BuiltIn::PointSize {
        return true;
    }
    match &shader.program {
        super::shader::Program::D3d9(p) => p.instructions().any(|i| {
            i.dst.as_ref().is_some_and(|d| {
                d.reg.ty == translator::d3dbc::RegisterType::RastOut && d.reg.num == 2
            })
        }),
        super::shader::Program::Sm4(_) => false,
    }
}

fn builtin_name(b: BuiltIn) -> String {
    format!("{b:?}").to_ascii_uppercase()
}

fn run_vs(
    gpu: &Gpu,
    shader: &Shader,
    t: &Translation,
    seed: u64,
    bool_stride: u32,
) -> Result<SideResult, RunError> {
    let outs = spirv_io::interface(&t.spirv, StorageClass::Output)?;
    let set = t
        .reflection
        .descriptors
        .iter()
        .map(|d| d.set + 1)
        .max()
        .unwrap_or(0);
    let cap = stages::capture_gs(&outs, set)?;
    let mut gs_refl = bare_reflection(ShaderStage::Geometry);
    gs_refl.vulkan_features = vec![
        "geometryShader".into(),
        "vertexPipelineStoresAndAtomics".into(),
    ];
    gs_refl.descriptors.push(Descriptor {
        set,
        binding: 0,
        dynamic_offset: None,
        mutable: false,
        descriptor_type: DescriptorType::StorageBuffer,
        count: Some(1),
        array_offset: 0,
        origin: D3dOrigin {
            class: RegisterClass::U,
            space: CAPTURE_SPACE,
            lower: 0,
            upper: Some(0),
            range_id: 0,
            uav_counter: false,
        },
        shape: ResourceShape::RawBuffer,
        writable: true,
    });
    bind::check_features(gpu, &[&gs_refl])?;
    let gs = Translation {
        spirv: cap.spirv.clone(),
        reflection: gs_refl,
    };
    let sizes = Sizes {
        invocations: VERTICES,
        grid: [VERTICES, 1, 1],
        bool_stride,
    };
    let mut inp = Inputs::new(gpu, shader, &descriptors(t), seed, sizes)?;
    let words = VERTICES * cap.stride;
    let capture = TestResource::create(
        gpu,
        &ResourceDecl {
            kind: ResourceKind::Uav,
            slot: 0,
            space: CAPTURE_SPACE,
            format: Format::RAW,
            explicit_format: false,
            stride: None,
            dims: Dimensions::RawBuffer { bytes: words * 4 },
            levels: 1,
            data: vec![0xdead_beef; words as usize],
        },
    )?;
    inp.resources
        .insert((ResourceKind::Uav, CAPTURE_SPACE, 0), capture);
    // Vertex input: one buffer per located input, RGBA32 of the input's type.
    let mut layout = Vec::new();
    let mut vbs = Vec::new();
    for (slot, i) in t
        .reflection
        .inputs
        .iter()
        .filter(|i| matches!(i.placement, InterfacePlacement::Location { .. }))
        .enumerate()
    {
        let kind = scalar_of(i.component_type);
        let fmt = match kind {
            ScalarKind::U32 => "r32g32b32a32-uint",
            ScalarKind::I32 => "r32g32b32a32-sint",
            ScalarKind::F32 => "r32g32b32a32-float",
        };
        let format = Format::by_name(fmt).expect("a format vk-runner knows");
        layout.push(InputElement {
            slot: slot as u32,
            format,
            semantic: i.semantic_name.to_string(),
            index: i.semantic_index,
        });
        let data: Vec<u32> = (0..VERTICES)
            .flat_map(|v| {
                (0..4).map(move |c| {
                    inputs::vertex_value(seed, &i.semantic_name, i.semantic_index, kind, v, c)
                })
            })
            .collect();
        let decl = ResourceDecl {
            kind: ResourceKind::VertexBuffer,
            slot: slot as u32,
            space: 0,
            format,
            explicit_format: true,
            stride: None,
            dims: Dimensions::Unspecified,
            levels: 1,
            data,
        };
        vbs.push(TestResource::create(gpu, &decl)?);
    }
    let mut rt = target(gpu, 0, "r32g32b32a32-float", 1, ResourceKind::Rtv)?;
    let bound = bind::bind(
        gpu,
        &[&t.reflection, &gs.reflection],
        &mut sources(&mut inp),
    )?;
    {
        let bufs: Vec<(u32, &crate::vk::memory::Buffer)> = vbs
            .iter()
            .enumerate()
            .filter_map(|(k, r)| match &r.obj {
                GpuObject::Buffer(b) => Some((k as u32, b)),
                GpuObject::Image(_) => None,
            })
            .collect();
        let mut st = draw_state(
            Topology::PointList,
            VERTICES,
            &layout,
            bufs,
            vec![Some(attachment(&mut rt)?)],
            None,
            shader.kind == Kind::D3d9,
        );
        pipeline::draw(gpu, &[t, &gs], &bound, &mut st)?;
    }
    let cap_words = match &inp.resources[&(ResourceKind::Uav, CAPTURE_SPACE, 0)].obj {
        GpuObject::Buffer(b) => bytes_to_words(&gpu.read_buffer(b)?),
        GpuObject::Image(_) => Vec::new(),
    };
    if cap_words.len() < words as usize {
        return Err(RunError::Fail("the capture buffer came back short".into()));
    }
    let mut outputs = record_outputs(shader, t, &cap, VERTICES, &cap_words);
    inp.readbacks.retain(|r| r.key.1 != CAPTURE_SPACE);
    read_uavs(gpu, &inp, &mut outputs)?;
    Ok(SideResult::Ran {
        outputs,
        inputs: inp.described.clone(),
    })
}

/// Groups captured records (`records` of them, `cap.stride` words each) into outputs named by
/// semantic (located outputs) or built-in: a vertex shader's via the geometry stage, a geometry
/// shader's via transform feedback.
pub(super) fn record_outputs(
    shader: &Shader,
    t: &Translation,
    cap: &stages::Capture,
    records: u32,
    words: &[u32],
) -> Vec<Output> {
    use std::collections::BTreeMap;
    // name → (source, mask, component → (leaf kind, offset)).
    type Slots = BTreeMap<u32, (ScalarKind, u32)>;
    let mut groups: BTreeMap<String, (Source, u32, Slots)> = BTreeMap::new();
    for (leaf, off) in &cap.leaves {
        let (name, source, comp, mask) = match &leaf.at {
            Place::Location {
                location,
                component,
            } => {
                let (n, i, c, _) = semantic_at(
                    &t.reflection.outputs,
                    &shader.outputs,
                    shader.kind,
                    *location,
                    *component,
                );
                let sig = shader.outputs.iter().find(|e| e.name == n && e.index == i);
                let source = match (shader.kind, sig) {
                    (Kind::Dxbc, Some(e)) => Source::Register(e.register),
                    _ => Source::Any,
                };
                let mask = match (shader.kind, sig) {
                    (Kind::Dxbc, Some(e)) => u32::from(e.mask),
                    _ => 0xf,
                };
                (format!("{n}{i}"), source, c, mask)
            }
            Place::BuiltIn { builtin, .. } if !d3d_output(shader, *builtin) => continue,
            Place::BuiltIn { builtin, index } => {
                let sv = match builtin {
                    BuiltIn::Position => Some("SV_POSITION"),
                    BuiltIn::ClipDistance => Some("SV_CLIPDISTANCE"),
                    BuiltIn::CullDistance => Some("SV_CULLDISTANCE"),
                    _ => None,
                };
                let source = match sv.and_then(|s| {
                    shader
                        .outputs
                        .iter()
                        .find(|e| e.name == s && e.index == index / 4)
                }) {
                    Some(e) if shader.kind == Kind::Dxbc && *builtin == BuiltIn::Position => {
                        Source::Register(e.register)
                    }
                    _ => Source::Any,
                };
                (builtin_name(*builtin), source, *index, u32::MAX)
            }
        };
        let g = groups
            .entry(name)
            .or_insert_with(|| (source, mask, BTreeMap::new()));
        g.2.insert(comp, (leaf.kind, *off));
    }
    let mut out = Vec::new();
    for (name, (source, mask, slots)) in groups {
        let comps = slots.keys().max().map_or(0, |m| m + 1).max(1);
        let mut kinds = vec![ScalarKind::F32; comps as usize];
        let mut present = 0u32;
        for (c, (k, _)) in &slots {
            kinds[*c as usize] = *k;
            if *c < 32 {
                present |= 1 << c;
            }
        }
        let mut data = Vec::with_capacity((records * comps) as usize);
        for v in 0..records {
            for c in 0..comps {
                data.push(match slots.get(&c) {
                    Some((_, off)) => words
                        .get((v * cap.stride + off) as usize)
                        .copied()
                        .unwrap_or(0),
                    None => 0,
                });
            }
        }
        out.push(Output {
            name,
            source,
            unit: Unit::Vertex,
            comps,
            kinds,
            mask: mask & present,
            data,
            unordered: None,
        });
    }
    out
}
