//! Runtime benchmark of translated shaders (`vk-bench`): each compute or pixel shader, translated
//! by two backends (ours and vkd3d-shader's), runs many times on the device between two GPU
//! timestamps (or, for a CPU driver, measured by the process's CPU time), in alternating rounds, and the best round of each gives its time per
//! dispatch/draw. Resources are stand-ins made from the reflections ([`dummies`]); a pixel
//! shader is fed by a generated full-screen vertex shader ([`fullscreen_vs`]) and writes
//! render targets made from its outputs.

pub mod dummies;
pub mod fullscreen_vs;

use crate::backend::{Backend, spirv_info};
use crate::parse::format::Format;
use crate::parse::{Dimensions, ResourceDecl, ResourceKind, Topology};
use crate::vk::bind::{self, RunError};
use crate::vk::context::Gpu;
use crate::vk::pipeline::{self, Attachment, DrawState};
use crate::vk::resource::{GpuObject, TestResource};
use crate::vk::timing::Timer;
use ash::vk;
use dummies::Dummies;
use translator::Translation;
use translator::reflect::{ComponentType, InterfacePlacement, ShaderStage};

/// How much work each measurement does.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Dispatches or draws between the two timestamps.
    pub repeat: u32,
    /// Timed rounds per backend (alternating; the best counts).
    pub rounds: u32,
    /// Render target width and height for pixel shaders.
    pub size: u32,
    /// Invocations per compute dispatch (about: whole workgroups).
    pub threads: u32,
    /// Time by the CPU time all threads of this process spent (Linux: the sum of
    /// `/proc/self/task/*/schedstat`) instead of GPU timestamps: for a CPU driver (lavapipe)
    /// on a machine other work also loads, where the wall time timestamps measure counts the
    /// time the driver's threads waited for a core.
    pub cpu_clock: bool,
}

/// CPU nanoseconds all threads of this process have run so far.
fn process_cpu_ns() -> Result<u64, String> {
    let tasks =
        std::fs::read_dir("/proc/self/task").map_err(|e| format!("/proc/self/task: {e}"))?;
    let mut sum = 0;
    for t in tasks.flatten() {
        // A thread that ended meanwhile is simply gone.
        if let Ok(s) = std::fs::read_to_string(t.path().join("schedstat")) {
            sum += s
                .split_whitespace()
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    Ok(sum)
}

/// Best time per dispatch/draw of each backend (GPU timestamps or CPU time), in nanoseconds.
#[derive(Debug, Clone)]
pub struct Timing {
    pub stage: ShaderStage,
    pub ns: Vec<f64>,
}

/// Times one DXBC shader with every backend. Shaders other than compute and pixel shaders
/// are refused (Skip). `replace[i]`, when given, is run instead of backend i's SPIR-V (with that
/// backend's reflection): for A/B experiments with edited modules.
pub fn bench_shader(
    gpu: &Gpu,
    backends: &[&Backend],
    replace: &[Option<Vec<u32>>],
    dxbc: &[u8],
    s: &Settings,
) -> Result<Timing, RunError> {
    let mut mods = Vec::new();
    for (i, b) in backends.iter().enumerate() {
        let mut t = b
            .translate(
                dxbc,
                &Default::default(),
                Default::default(),
                Default::default(),
                None,
                None,
                &Default::default(),
            )
            .map_err(|e| RunError::Fail(format!("{}: {e}", b.name())))?;
        if let Some(Some(words)) = replace.get(i) {
            t.spirv = words.clone();
        }
        mods.push(t);
    }
    let stage = mods[0].reflection.stage;
    if !matches!(stage, ShaderStage::Compute | ShaderStage::Pixel) {
        return Err(RunError::Skip(format!(
            "{stage:?} shader: only compute and pixel shaders are timed"
        )));
    }
    let refls: Vec<_> = mods.iter().map(|m| &m.reflection).collect();
    bind::check_features(gpu, &refls)?;
    let mod_refs: Vec<&Translation> = mods.iter().collect();
    let mut dummies = Dummies::new(gpu, &mod_refs)?;
    let timer = Timer::new(gpu)?;
    let mut runs: Vec<Run<'_>> = Vec::new();
    match stage {
        ShaderStage::Compute => {
            for m in &mods {
                runs.push(compute_run(gpu, m, &mut dummies, s, &timer)?);
            }
        }
        _ => {
            let targets = Targets::new(gpu, &mods, s.size)?;
            let targets = std::rc::Rc::new(std::cell::RefCell::new(targets));
            for m in &mods {
                runs.push(pixel_run(gpu, m, &mut dummies, targets.clone(), &timer)?);
            }
        }
    }
    // Warm-up (pipeline caches, first-use costs), then alternating timed rounds.
    for r in runs.iter_mut() {
        r(1)?;
    }
    let mut best = vec![f64::INFINITY; runs.len()];
    for round in 0..s.rounds {
        let n = runs.len();
        for k in 0..n {
            let i = if round % 2 == 0 { k } else { n - 1 - k };
            let cpu0 = if s.cpu_clock { process_cpu_ns()? } else { 0 };
            let gpu_ns = runs[i](s.repeat)?;
            let ns = if s.cpu_clock {
                // A thread that ended during the run takes its time with it: never below 0.
                process_cpu_ns()?.saturating_sub(cpu0) as f64
            } else {
                gpu_ns
            } / f64::from(s.repeat.max(1));
            best[i] = best[i].min(ns);
        }
    }
    Ok(Timing { stage, ns: best })
}

type Run<'a> = Box<dyn FnMut(u32) -> Result<f64, RunError> + 'a>;

fn compute_run<'a>(
    gpu: &'a Gpu,
    m: &'a Translation,
    dummies: &mut Dummies,
    s: &Settings,
    timer: &'a Timer,
) -> Result<Run<'a>, RunError> {
    let bound = bind::bind(gpu, &[&m.reflection], &mut dummies.sources())?;
    let p = pipeline::compute_pipeline(gpu, m, &bound)?;
    let groups = dispatch_size(m.reflection.workgroup_size.unwrap_or([1, 1, 1]), s.threads);
    Ok(Box::new(move |repeat| {
        pipeline::dispatch_timed(gpu, &p, &bound, groups, repeat, timer)
    }))
}

/// Workgroup counts for about `threads` invocations: a square grid when the workgroup has a
/// second dimension (2D thread IDs index images), else a row.
fn dispatch_size(wg: [u32; 3], threads: u32) -> [u32; 3] {
    let per_group = (wg[0] * wg[1] * wg[2]).max(1);
    if wg[1] > 1 {
        let side = f64::from(threads).sqrt() as u32;
        [(side / wg[0]).max(1), (side / wg[1]).max(1), 1]
    } else {
        [(threads / per_group).max(1), 1, 1]
    }
}

/// Render targets for a pixel shader: one per output location (32-bit, four channels, of the
/// output's scalar type) and a depth buffer when it writes depth.
struct Targets {
    colors: Vec<Option<TestResource>>,
    depth: Option<TestResource>,
}

impl Targets {
    fn new(gpu: &Gpu, mods: &[Translation], size: u32) -> Result<Targets, RunError> {
        let mut colors: Vec<Option<TestResource>> = Vec::new();
        let mut depth = None;
        let decl = |kind, slot, format: &str| ResourceDecl {
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
        };
        for m in mods {
            for o in &m.reflection.outputs {
                match &o.placement {
                    InterfacePlacement::Location { location, .. } => {
                        let l = *location as usize;
                        if colors.len() <= l {
                            colors.resize_with(l + 1, || None);
                        }
                        if colors[l].is_none() {
                            let f = match o.component_type {
                                ComponentType::Uint => "r32g32b32a32-uint",
                                ComponentType::Sint => "r32g32b32a32-sint",
                                _ => "r32g32b32a32-float",
                            };
                            colors[l] = Some(TestResource::create(
                                gpu,
                                &decl(ResourceKind::Rtv, l as u32, f),
                            )?);
                        }
                    }
                    InterfacePlacement::BuiltIn { builtin }
                        if builtin == "FragDepth" && depth.is_none() =>
                    {
                        depth = Some(TestResource::create(
                            gpu,
                            &decl(ResourceKind::Dsv, 0, "d32-float"),
                        )?);
                    }
                    _ => {}
                }
            }
        }
        if colors.is_empty() && depth.is_none() {
            colors.push(Some(TestResource::create(
                gpu,
                &decl(ResourceKind::Rtv, 0, "r32g32b32a32-float"),
            )?));
        }
        Ok(Targets { colors, depth })
    }
}

fn image(r: &mut TestResource) -> Result<Attachment<'_>, RunError> {
    match &mut r.obj {
        GpuObject::Image(image) => Ok(Attachment { image }),
        GpuObject::Buffer(_) => Err(RunError::Fail("a render target is a buffer".into())),
    }
}

fn pixel_run<'a>(
    gpu: &'a Gpu,
    ps: &'a Translation,
    dummies: &mut Dummies,
    targets: std::rc::Rc<std::cell::RefCell<Targets>>,
    timer: &'a Timer,
) -> Result<Run<'a>, RunError> {
    let info = spirv_info::read(&ps.spirv)?;
    let vs = Translation {
        spirv: fullscreen_vs::build(&info.inputs)?,
        reflection: translator::reflect::Reflection {
            capabilities: vec!["Shader".into()],
            ..translator::reflect::Reflection::empty(ShaderStage::Vertex)
        },
    };
    let bound = bind::bind(
        gpu,
        &[&vs.reflection, &ps.reflection],
        &mut dummies.sources(),
    )?;
    Ok(Box::new(move |repeat| {
        let mut t = targets.borrow_mut();
        let Targets { colors, depth } = &mut *t;
        let mut state = DrawState {
            topology: Topology::TriangleList,
            vertices: 3,
            instances: 1,
            start: [0, 0],
            layout: &[],
            vertex_buffers: Vec::new(),
            colors: colors
                .iter_mut()
                .map(|c| c.as_mut().map(image).transpose())
                .collect::<Result<_, _>>()?,
            depth: depth.as_mut().map(image).transpose()?,
            depth_func: vk::CompareOp::ALWAYS,
            sample_mask: !0,
            viewports: Vec::new(),
            depth_bounds: None,
            d3d9_pixel_centres: false,
            dual_source_blending: false,
            timed: Some((repeat, timer)),
            xfb: None,
            d3d9_state: None,
        };
        pipeline::draw(gpu, &[&vs, ps], &bound, &mut state)?;
        Ok(timer.nanoseconds()?)
    }))
}
