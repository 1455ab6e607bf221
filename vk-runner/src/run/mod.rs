//! Executes parsed test files: keeps the file's state (resources, shaders, constants, input
//! layout, `[require]`), runs each `[test]` block at the lowest shader model of the pass
//! (SM2.0–3.0: D3D9 bytecode; SM4.0–5.1: DXBC) that its `[require]` admits, and reports every
//! check. A file runs once per pass the run's model range (and its `[header]`) selects.
//!
//! Semantics follow vkd3d's runner: state declared earlier stays in effect; `if(...)` lines
//! that do not hold are not run; a probe after a draw/dispatch that failed or was skipped is
//! skipped; `todo` marks a check but does not change how it counts.

pub mod compare;
pub mod d3d9_state;
mod exec;
pub mod shaders;

use crate::backend::Backend;
use crate::hlsl::HlslCompiler;
use crate::parse::qualifier::{QualContext, ShaderModel};
use crate::parse::{
    self, Directive, Require, ResourceKind, SectionKind, ShaderSection, Stage, TestLine,
};
use crate::report::{Check, Report, Status};
use crate::vk::bind::RunError;
use crate::vk::context::Gpu;
use crate::vk::resource::TestResource;
use ash::vk;
use shaders::{ShaderCache, Translator};
use std::collections::HashMap;
use std::path::Path;

/// The shader models the runner compiles for (D3D9 SM2–3, DXBC SM4/5).
pub const MODELS: [ShaderModel; 6] = [
    ShaderModel::new(2, 0),
    ShaderModel::new(3, 0),
    ShaderModel::new(4, 0),
    ShaderModel::new(4, 1),
    ShaderModel::new(5, 0),
    ShaderModel::new(5, 1),
];

/// The passes a file can run in: SM1–3 (HLSL compiled to D3D9 bytecode) and SM4–5 (DXBC).
pub const PASSES: [(ShaderModel, ShaderModel); 2] = [
    (ShaderModel::new(2, 0), ShaderModel::new(3, 0)),
    (ShaderModel::new(4, 0), ShaderModel::new(5, 1)),
];

/// Whether `model` is an SM1–3 (D3D9) one.
pub fn is_d3d9(model: ShaderModel) -> bool {
    model < ShaderModel::new(4, 0)
}

/// What stays the same for a whole run.
pub struct Runner<'a> {
    pub gpu: Option<&'a Gpu>,
    /// Why there is no GPU (reported on every skipped check).
    pub no_gpu_reason: String,
    pub backend: &'a Backend,
    pub hlsl: Option<&'a HlslCompiler>,
    pub hlsl_error: Option<String>,
    pub tags: Vec<(String, [u32; 3])>,
    /// Blocks run at the lowest shader model their `[require]` admits from this one on...
    pub min_model: ShaderModel,
    /// ... up to this one (`--max-shader-model`).
    pub max_model: ShaderModel,
    /// `--shader-model` was not given: a file whose `[header]` lists an SM1–3 model also runs
    /// the SM1–3 pass (the default range 4.0–5.1 would leave it out).
    pub header_selects_d3d9: bool,
}

/// What `if(...)`, `todo(...)` and tag requirements are evaluated against.
pub(crate) struct Ctx<'a> {
    pub model: ShaderModel,
    pub tags: &'a [(String, [u32; 3])],
}

impl QualContext for Ctx<'_> {
    fn shader_model(&self) -> ShaderModel {
        self.model
    }
    fn tag(&self, name: &str) -> Option<[u32; 3]> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
}

/// A file's mutable state.
pub(crate) struct FileState {
    pub name: String,
    pub require: Require,
    pub shaders: HashMap<Stage, (u32, ShaderSection)>,
    /// Test resources by (kind, register space, slot).
    pub resources: HashMap<(ResourceKind, u32, u32), TestResource>,
    pub resource_errors: HashMap<(ResourceKind, u32, u32), RunError>,
    /// Samplers by (register space, slot).
    pub samplers: HashMap<(u32, u32), vk::Sampler>,
    pub sampler_errors: HashMap<(u32, u32), String>,
    pub layout: Vec<parse::InputElement>,
    /// Constant buffer contents by (register space, register).
    pub cbuffers: HashMap<(u32, u32), Vec<u32>>,
    /// Where the translator places descriptors (`[binding layout]`, `[binding policy]`).
    pub binding: translator::binding::Binding,
    /// Where the immediate constant buffer goes (`[icb uniform-buffer ...]`).
    pub icb: translator::IcbMode,
    /// How minimum precision is computed (`[min-precision ...]`).
    pub min_precision: translator::MinPrecisionMode,
    /// Set when a line changes state in a way the runner does not support.
    pub taint: Option<String>,
    /// Outcome of the last draw/dispatch: (line, error) when it did not run.
    pub last_failure: Option<(u32, String)>,
    pub cache: ShaderCache,
    pub depth_func: vk::CompareOp,
    /// `sample mask` of later draws (all samples by default).
    pub sample_mask: u32,
    /// `viewport N (...)` rectangles by index (unset ones below the highest are empty, as in
    /// vkd3d's runner); empty: the default viewport.
    pub viewports: Vec<[f32; 4]>,
    /// `depth-bounds MIN MAX` of later draws.
    pub depth_bounds: Option<(f32, f32)>,
    /// `[header] test-shader-models (...)`: models the file asks to be tested at.
    pub test_models: Vec<ShaderModel>,
    /// The last `[descriptors]` section's register-to-resource mapping.
    pub descriptors: Vec<parse::DescriptorMap>,
    /// The last `[stream output]` section's declaration.
    pub stream_output: Option<translator::StreamOutput>,
    /// The last `[translator options]` section's options.
    pub layer: parse::LayerOptions,
    /// The models of this pass (SM2.0–3.0 or SM4.0–5.1, within the run's range).
    pub pass: (ShaderModel, ShaderModel),
    /// D3D9 fixed-function state set by `alpha test`, `fog`, ...: directive word → (line,
    /// whether it is D3D9's initial state).
    pub fixed_function: std::collections::BTreeMap<String, (u32, bool)>,
    /// The values of that state, which SM1–3 draws compile in.
    pub d3d9_state: d3d9_state::D3d9State,
}

impl<'a> Runner<'a> {
    /// Runs one file, adding its checks to `report`.
    pub fn run_file(&self, path: &Path, report: &mut Report) {
        let name = path.display().to_string();
        let text = match std::fs::read(path) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                report.add(Check {
                    file: name,
                    line: 0,
                    status: Status::Fail,
                    todo: false,
                    kind: "file",
                    message: format!("cannot read: {e}"),
                });
                return;
            }
        };
        let file = parse::parse(&text);
        for (line, msg) in &file.errors {
            report.add(Check {
                file: name.clone(),
                line: *line,
                status: Status::Fail,
                todo: false,
                kind: "parse",
                message: msg.clone(),
            });
        }
        for pass in file_passes(
            &file,
            self.min_model,
            self.max_model,
            self.header_selects_d3d9,
        ) {
            self.run_pass(path, &file, pass, report);
        }
    }

    /// Runs one pass of a parsed file.
    fn run_pass(
        &self,
        path: &Path,
        file: &parse::TestFile,
        pass: (ShaderModel, ShaderModel),
        report: &mut Report,
    ) {
        let name = path.display().to_string();
        let mut st = FileState {
            name: name.clone(),
            require: Require::default(),
            shaders: HashMap::new(),
            resources: HashMap::new(),
            resource_errors: HashMap::new(),
            samplers: HashMap::new(),
            sampler_errors: HashMap::new(),
            layout: Vec::new(),
            cbuffers: HashMap::new(),
            binding: Default::default(),
            icb: Default::default(),
            min_precision: Default::default(),
            taint: None,
            last_failure: None,
            cache: ShaderCache::default(),
            depth_func: vk::CompareOp::ALWAYS,
            sample_mask: !0,
            viewports: Vec::new(),
            depth_bounds: None,
            test_models: Vec::new(),
            descriptors: Vec::new(),
            stream_output: None,
            layer: Default::default(),
            pass,
            fixed_function: Default::default(),
            d3d9_state: Default::default(),
        };
        for section in &file.sections {
            match &section.kind {
                SectionKind::Require(r) => st.require = r.clone(),
                SectionKind::Shader(s) => {
                    st.shaders.insert(s.stage, (section.line, s.clone()));
                }
                SectionKind::Resource(r) => {
                    let key = (r.kind, r.space, r.slot);
                    st.resources.remove(&key);
                    st.resource_errors.remove(&key);
                    if let Some(gpu) = self.gpu {
                        match TestResource::create(gpu, r) {
                            Ok(res) => {
                                st.resources.insert(key, res);
                            }
                            Err(e) => {
                                st.resource_errors.insert(
                                    key,
                                    RunError::Fail(format!(
                                        "[{} {}] at line {}: {e}",
                                        r.kind.name(),
                                        r.slot,
                                        section.line
                                    )),
                                );
                            }
                        }
                    }
                }
                SectionKind::Sampler(s) => {
                    if let Some(gpu) = self.gpu {
                        let key = (s.space, s.slot);
                        if let Some(old) = st.samplers.remove(&key) {
                            // SAFETY: no work is in flight between test lines.
                            unsafe { gpu.device.destroy_sampler(old, None) };
                        }
                        st.sampler_errors.remove(&key);
                        match crate::vk::sampler::create_sampler(gpu, s) {
                            Ok(v) => {
                                st.samplers.insert(key, v);
                            }
                            Err(e) => {
                                st.sampler_errors.insert(key, e);
                            }
                        }
                    }
                }
                SectionKind::InputLayout(v) => st.layout = v.clone(),
                SectionKind::Test(lines) => self.run_block(&mut st, lines, report),
                SectionKind::Ignored(_) => {}
                SectionKind::Header(models) => st.test_models = models.clone(),
                SectionKind::Descriptors(v) => st.descriptors = v.clone(),
                SectionKind::Icb(m) => {
                    st.icb = *m;
                    st.cache = ShaderCache::default();
                }
                SectionKind::MinPrecision(m) => {
                    st.min_precision = *m;
                    st.cache = ShaderCache::default();
                }
                SectionKind::TranslatorOptions(o) => {
                    st.layer = o.clone();
                    st.cache = ShaderCache::default();
                }
                SectionKind::StreamOutput(so) => {
                    st.stream_output = Some(so.clone());
                    // Translations made under another declaration are stale.
                    st.cache = ShaderCache::default();
                }
                SectionKind::Binding(b) => {
                    st.binding = b.clone();
                    // Translations made under another placement are stale.
                    st.cache = ShaderCache::default();
                }
                SectionKind::BindingLayoutFile(f) => {
                    let at = path.parent().unwrap_or(Path::new(".")).join(f);
                    let layout = std::fs::read_to_string(&at)
                        .map_err(|e| e.to_string())
                        .and_then(|t| {
                            translator::binding::BindingLayout::parse(&t).map_err(|e| e.to_string())
                        });
                    st.cache = ShaderCache::default();
                    match layout {
                        Ok(l) => st.binding = l.into(),
                        Err(e) => {
                            report.add(Check {
                                file: name.clone(),
                                line: section.line,
                                status: Status::Fail,
                                todo: false,
                                kind: "parse",
                                message: format!("{}: {e}", at.display()),
                            });
                            st.taint.get_or_insert_with(|| {
                                format!("line {}: the binding layout did not load", section.line)
                            });
                        }
                    }
                }
                SectionKind::Unsupported(reason) => {
                    st.taint
                        .get_or_insert_with(|| format!("line {}: {reason}", section.line));
                }
            }
        }
        if let Some(gpu) = self.gpu {
            // SAFETY: waiting idle before destroying what the file created.
            unsafe {
                let _ = gpu.device.device_wait_idle();
                for (_, s) in st.samplers.drain() {
                    gpu.device.destroy_sampler(s, None);
                }
            }
        }
    }

    fn caps_problem(&self, st: &FileState, model: ShaderModel) -> Option<String> {
        let ctx = Ctx {
            model,
            tags: &self.tags,
        };
        for (text, q) in &st.require.tag_conditions {
            if !q.holds(&ctx) {
                return Some(format!("[require] {text} does not hold here"));
            }
        }
        let gpu = self.gpu?;
        for cap in &st.require.caps {
            let feature = |name: &str| gpu.enabled.get(name) == Some(true);
            let ok = match cap.as_str() {
                // Our translator compiles the D3D9 state in (`d3d9_state`); user clip planes
                // need ClipDistance.
                "fog" | "point-size" if is_d3d9(model) && self.backend.is_ours() => true,
                "clip-planes" if is_d3d9(model) && self.backend.is_ours() => {
                    feature("shaderClipDistance")
                }
                "float64" => feature("shaderFloat64"),
                "int64" => feature("shaderInt64"),
                "cull-distance" => feature("shaderCullDistance"),
                "denorm-flush-f32" => gpu.denorm_flush_f32,
                "filter-minmax" => feature("samplerFilterMinmax"),
                "rt-vp-array-index" => {
                    feature("shaderOutputLayer") && feature("shaderOutputViewportIndex")
                }
                "geometry-shader" => feature("geometryShader"),
                "depth-bounds" => feature("depthBounds"),
                // Explicit descriptor mappings (`[descriptors]`) are honoured.
                "descriptors" => true,
                // Rasterizer-ordered views: SPV_EXT_fragment_shader_interlock.
                "rov" => {
                    if !feature("fragmentShaderPixelInterlock") {
                        return Some(
                            "[require] rov: the device lacks fragmentShaderPixelInterlock".into(),
                        );
                    }
                    if !self.backend.supports_rov() {
                        return Some("[require] rov: the translator runs ROVs unordered".into());
                    }
                    true
                }
                // SV_InnerCoverage: conservative rasterization with FullyCoveredEXT.
                "inner-coverage" => {
                    if !gpu.fully_covered {
                        return Some(
                            "[require] inner-coverage: the device lacks VK_EXT_conservative_rasterization with fullyCoveredFragmentShaderInputVariable".into(),
                        );
                    }
                    true
                }
                "tessellation-shader" => feature("tessellationShader"),
                c if c.starts_with("format ") => {
                    let mut it = c.split_whitespace().skip(1);
                    let fmt = it.next().and_then(parse::format::Format::by_name);
                    let what = it.next().unwrap_or("");
                    match (fmt, what) {
                        (Some(f), "uav-load") => {
                            let feats = gpu.format_features(f.vk).optimal_tiling_features;
                            // D3D guarantees typed UAV loads of R32 formats; a translator can
                            // declare those formats in SPIR-V, so only others need the
                            // read-without-format feature (modules that need it anyway say
                            // so in their reflection).
                            let r32 = matches!(f.name, "r32-float" | "r32-uint" | "r32-sint");
                            feats.contains(vk::FormatFeatureFlags::STORAGE_IMAGE)
                                && (r32 || feature("shaderStorageImageReadWithoutFormat"))
                        }
                        _ => false,
                    }
                }
                _ => false,
            };
            if !ok {
                let why = match cap.as_str() {
                    "clip-planes" if is_d3d9(model) && self.backend.is_ours() => {
                        "the device lacks shaderClipDistance"
                    }
                    "clip-planes" | "fog" | "point-size" if is_d3d9(model) => {
                        "fixed-function D3D9 state, which only our translator compiles in"
                    }
                    "clip-planes" | "fog" | "point-size" => {
                        "fixed-function D3D9 state, which the runner does not emulate for D3D10+ shaders"
                    }
                    "wave-ops" | "native-16-bit" => "it needs SM6",
                    c if c.starts_with("unknown ") => "the runner does not know this requirement",
                    _ => "the device lacks it",
                };
                return Some(format!("[require] {cap}: {why}"));
            }
        }
        None
    }

    fn run_block(&self, st: &mut FileState, lines: &[TestLine], report: &mut Report) {
        let model = block_model(&st.require, st.pass, &st.test_models);
        let eval_model = *model
            .as_ref()
            .unwrap_or(&st.require.min_model.clamp(st.pass.0, st.pass.1));
        let mut skip_reason = match &model {
            Err(e) => Some(e.clone()),
            Ok(m) => self.caps_problem(st, *m),
        };
        // Why the block's requirements keep it from running (not the missing device).
        let block_skip = skip_reason.clone();
        if skip_reason.is_none() && self.gpu.is_none() {
            skip_reason = Some(self.no_gpu_reason.clone());
        }
        st.last_failure = None;
        let translator = Translator {
            backend: self.backend,
            hlsl: self.hlsl,
            hlsl_error: self.hlsl_error.as_deref(),
            binding: st.binding.clone(),
            icb: st.icb,
            min_precision: st.min_precision,
            stream_output: st.stream_output.clone(),
            layer: st.layer.clone(),
        };
        let file = st.name.clone();
        for tl in lines {
            let ctx = Ctx {
                model: eval_model,
                tags: &self.tags,
            };
            let Some(todo) = line_todo(tl, &ctx) else {
                continue;
            };
            let kind = check_kind(&tl.directive);
            let mut add = |status: Status, message: String| {
                report.add(Check {
                    file: file.clone(),
                    line: tl.line,
                    status,
                    todo,
                    kind,
                    message,
                });
            };
            match &tl.directive {
                Directive::Uniform {
                    cbuffer,
                    space,
                    offset,
                    words,
                } => {
                    set_uniform(&mut st.cbuffers, (*space, *cbuffer), *offset, words);
                    continue;
                }
                Directive::Depth(f) => {
                    st.depth_func = crate::vk::sampler::compare_op(*f);
                    continue;
                }
                Directive::SampleMask(m) => {
                    st.sample_mask = *m;
                    continue;
                }
                Directive::DepthBounds(min, max) => {
                    st.depth_bounds = Some((*min, *max));
                    continue;
                }
                Directive::Viewport { index, rect } => {
                    let i = *index as usize;
                    if st.viewports.len() <= i {
                        st.viewports.resize(i + 1, [0.0; 4]);
                    }
                    st.viewports[i] = *rect;
                    continue;
                }
                Directive::Malformed(e) => {
                    match &block_skip {
                        Some(reason) => add(
                            Status::Skip,
                            format!("{reason} (and the line does not parse: {e})"),
                        ),
                        None => add(Status::Fail, e.clone()),
                    }
                    continue;
                }
                Directive::NoMeaning(_) => continue,
                // D3D9 fixed-function state: no meaning for SM4-5 shaders; judged at SM1-3
                // draws.
                Directive::FixedFunction {
                    what,
                    default,
                    change,
                } => {
                    st.fixed_function.insert(what.clone(), (tl.line, *default));
                    if let Some(c) = change {
                        st.d3d9_state.apply(c);
                    }
                    continue;
                }
                Directive::Unsupported(what) => {
                    st.taint.get_or_insert_with(|| {
                        format!(
                            "line {} uses {what}, which the runner does not support",
                            tl.line
                        )
                    });
                    continue;
                }
                _ => {}
            }
            let reason = skip_reason.clone().or_else(|| st.taint.clone());
            if let Some(reason) = reason {
                if tl.directive.is_check() {
                    add(Status::Skip, reason);
                }
                continue;
            }
            let gpu = self.gpu.expect("checked above");
            let model = *model.as_ref().expect("checked above");
            let result = match &tl.directive {
                Directive::Clear { target, value } => {
                    if let Err(e) = exec::clear(gpu, st, *target, *value) {
                        st.taint
                            .get_or_insert_with(|| format!("line {}: clear failed: {e}", tl.line));
                    }
                    continue;
                }
                Directive::Dispatch(groups) => {
                    exec::dispatch(gpu, st, &translator, model, &ctx, *groups)
                }
                Directive::DrawQuad | Directive::Draw { .. }
                    if let Some(why) = fixed_function_problem(st, model, self.backend) =>
                {
                    Err(RunError::Skip(why))
                }
                Directive::DrawQuad => exec::draw(gpu, st, &translator, model, &ctx, None),
                Directive::Copy { src, dst } => exec::copy(gpu, st, *src, *dst),
                Directive::Draw {
                    topology,
                    vertices,
                    instances,
                    start_vertex,
                    start_instance,
                } => exec::draw(
                    gpu,
                    st,
                    &translator,
                    model,
                    &ctx,
                    Some(exec::DrawCounts {
                        topology: *topology,
                        vertices: *vertices,
                        instances: *instances,
                        start: [*start_vertex, *start_instance],
                    }),
                ),
                Directive::Probe(p) => {
                    if let Some((line, why)) = &st.last_failure {
                        add(
                            Status::Skip,
                            format!("the draw/dispatch at line {line} did not run ({why})"),
                        );
                        continue;
                    }
                    exec::probe(gpu, st, p)
                }
                Directive::Uniform { .. }
                | Directive::Depth(_)
                | Directive::SampleMask(_)
                | Directive::DepthBounds(..)
                | Directive::Viewport { .. }
                | Directive::NoMeaning(_)
                | Directive::FixedFunction { .. }
                | Directive::Unsupported(_)
                | Directive::Malformed(_) => {
                    unreachable!("handled above")
                }
            };
            let is_run = matches!(
                tl.directive,
                Directive::Dispatch(_) | Directive::DrawQuad | Directive::Draw { .. }
            );
            match result {
                Ok(()) => {
                    if is_run {
                        st.last_failure = None;
                    }
                    add(Status::Pass, String::new());
                }
                Err(RunError::Skip(m)) => {
                    if is_run {
                        st.last_failure = Some((tl.line, "skipped".into()));
                    }
                    add(Status::Skip, m);
                }
                Err(RunError::Fail(m)) => {
                    if is_run {
                        st.last_failure = Some((tl.line, "failed".into()));
                    }
                    add(Status::Fail, m);
                }
            }
        }
    }
}

impl FileState {
    pub(crate) fn shader(&self, stage: Stage) -> Option<&(u32, ShaderSection)> {
        self.shaders.get(&stage)
    }
}

/// Why an SM1–3 draw cannot honour the D3D9 fixed-function state set before it: only our
/// translator compiles alpha test, fog, clip planes, point size and sprites, flat shading and
/// projected sampling into a module (`d3d9_state`); the vkd3d backend gets none of it.
fn fixed_function_problem(
    st: &FileState,
    model: ShaderModel,
    backend: &crate::backend::Backend,
) -> Option<String> {
    if !is_d3d9(model) || backend.is_ours() {
        return None;
    }
    let mut set: Vec<String> = st
        .fixed_function
        .iter()
        .filter(|(_, (_, default))| !default)
        .map(|(what, (line, _))| format!("`{what}` (line {line})"))
        .collect();
    let depth = exec::depth_textures(st);
    if depth != 0 {
        set.push(format!(
            "depth compare (a depth texture bound to samplers {depth:#06x})"
        ));
    }
    (!set.is_empty()).then(|| {
        format!(
            "D3D9 fixed-function state {}: the {} backend does not compile it in",
            set.join(", "),
            backend.name()
        )
    })
}

/// The passes a file runs in: SM1–3 and SM4–5, each within `min_model..=max_model`; a file
/// whose `[header]` (or `[require] compile shader model`) lists an SM1–3 model runs its SM1–3
/// pass too when `header_selects_d3d9`, and a `[header]` listing models we compile for
/// names the passes to run.
pub(crate) fn file_passes(
    file: &parse::TestFile,
    min_model: ShaderModel,
    max_model: ShaderModel,
    header_selects_d3d9: bool,
) -> Vec<(ShaderModel, ShaderModel)> {
    let header: Vec<ShaderModel> = file
        .sections
        .iter()
        .find_map(|s| match &s.kind {
            SectionKind::Header(m) => Some(m.clone()),
            _ => None,
        })
        .unwrap_or_default();
    // `[require] compile shader model X` lines name models to test at, as the header does.
    let compile_models = file.sections.iter().flat_map(|s| match &s.kind {
        SectionKind::Require(r) => r.compile_models.clone(),
        _ => Vec::new(),
    });
    let wants_d3d9 = header.iter().copied().chain(compile_models).any(is_d3d9);
    let min_model = if header_selects_d3d9 && wants_d3d9 {
        MODELS[0]
    } else {
        min_model
    };
    let mut out = Vec::new();
    for (lo, hi) in PASSES {
        let pass = (lo.max(min_model), hi.min(max_model));
        let listed = |m: &ShaderModel| MODELS.contains(m);
        // A `[header]` listing models we compile for names the passes to run.
        let unlisted = header.iter().any(listed)
            && !header
                .iter()
                .any(|m| listed(m) && *m >= pass.0 && *m <= pass.1);
        if pass.0 <= pass.1 && !unlisted {
            out.push(pass);
        }
    }
    out
}

/// Why a block cannot run at all, or the model it runs at: the lowest one of the pass
/// (2.0–3.0 or 4.0–5.1, within the run's range) that its `[require]` admits — or, when
/// the file's `[header]` lists models (`test-shader-models`), the lowest of those admitted
/// (vkd3d's runner then tests the listed models instead of the lowest).
pub(crate) fn block_model(
    r: &Require,
    (lo, hi): (ShaderModel, ShaderModel),
    test_models: &[ShaderModel],
) -> Result<ShaderModel, String> {
    let admitted = |m: &ShaderModel| *m >= r.min_model && *m <= r.max_model && *m >= lo && *m <= hi;
    let listed: Vec<ShaderModel> = MODELS
        .iter()
        .copied()
        .filter(|m| test_models.contains(m))
        .collect();
    let candidates = if listed.is_empty() {
        &MODELS[..]
    } else {
        &listed[..]
    };
    let Some(model) = candidates.iter().copied().find(admitted) else {
        return Err(format!(
            "requires shader model {}..{}; this pass compiles {} for {}..{}{}",
            r.min_model,
            r.max_model,
            if is_d3d9(lo) { "D3D9 bytecode" } else { "DXBC" },
            lo,
            hi,
            if listed.is_empty() {
                String::new()
            } else {
                let l: Vec<String> = listed.iter().map(|m| m.to_string()).collect();
                format!(" (the [header] lists {})", l.join(" "))
            }
        ));
    };
    Ok(model)
}

/// Whether a test line applies under `ctx` (its conditions hold): `Some(todo)`, where `todo`
/// says a failure there is expected (`todo` or `bug` qualifier), or `None` to skip the line.
/// Shared by both executors.
pub(crate) fn line_todo(tl: &TestLine, ctx: &Ctx) -> Option<bool> {
    if !tl.conditions.iter().all(|q| q.holds(ctx)) {
        return None;
    }
    Some(
        tl.todo.as_ref().is_some_and(|q| q.holds(ctx))
            || tl.bug.as_ref().is_some_and(|q| q.holds(ctx)),
    )
}

/// The report's kind of check a directive makes (`""` for one that makes none).
pub(crate) fn check_kind(d: &Directive) -> &'static str {
    match d {
        Directive::Dispatch(_) => "dispatch",
        Directive::DrawQuad | Directive::Draw { .. } => "draw",
        Directive::Probe(_) => "probe",
        Directive::Copy { .. } => "copy",
        Directive::Malformed(_) => "parse",
        _ => "",
    }
}

/// A `uniform` directive: `words` at dword `offset` of the constant buffer `key` (space,
/// register), grown to whole rows filled with a recognisable pattern.
pub(crate) fn set_uniform(
    cbuffers: &mut HashMap<(u32, u32), Vec<u32>>,
    key: (u32, u32),
    offset: u32,
    words: &[u32],
) {
    let cb = cbuffers.entry(key).or_default();
    let (start, end) = (offset as usize, offset as usize + words.len());
    if cb.len() < end.div_ceil(4) * 4 {
        cb.resize(end.div_ceil(4) * 4, 0x7f7f_7f7f);
    }
    cb[start..end].copy_from_slice(words);
}
