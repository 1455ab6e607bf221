//! Runs a parsed test file through the D3D12 executor: the same passes, blocks, line
//! semantics and check reporting as the direct executor (`crate::run`), with the work done
//! through vkd3d's D3D12 API.
//!
//! What differs is what Direct3D 12 is: the SM1–3 pass does not run (D3D12 has no Direct3D 9
//! shaders; its checks skip naming that), and the sections that steer our translator's own
//! output (`[binding layout]`, `[binding policy]`, `[icb uniform-buffer]`,
//! `[min-precision]`) have no meaning, since vkd3d places descriptors and chooses precision
//! itself.

use super::exec::{self, DrawCounts, Exec};
use super::ffi::D3d12;
use super::ffi::types::*;
use super::resource::{TestResource, dxgi_format};
use super::shaders::BytecodeCache;
use crate::parse::qualifier::ShaderModel;
use crate::parse::{
    self, CompareFunc, DescriptorMap, Directive, Require, ResourceKind, SamplerDecl, SectionKind,
    ShaderSection, Stage, TestLine,
};
use crate::report::{Check, Report, Status};
use crate::run::{Ctx, block_model, check_kind, file_passes, is_d3d9, line_todo, set_uniform};
use crate::vk::bind::RunError;
use std::collections::HashMap;
use std::path::Path;

/// A file pass's state.
pub struct FileState {
    pub name: String,
    pub require: Require,
    pub shaders: HashMap<Stage, (u32, ShaderSection)>,
    /// Test resources by (kind, register space, slot).
    pub resources: HashMap<(ResourceKind, u32, u32), TestResource>,
    pub resource_errors: HashMap<(ResourceKind, u32, u32), RunError>,
    /// `[sampler]` sections by (register space, slot).
    pub samplers: HashMap<(u32, u32), SamplerDecl>,
    pub layout: Vec<parse::InputElement>,
    /// Constant buffer contents by (register space, register).
    pub cbuffers: HashMap<(u32, u32), Vec<u32>>,
    pub taint: Option<String>,
    pub last_failure: Option<(u32, String)>,
    pub cache: BytecodeCache,
    pub depth_func: CompareFunc,
    pub sample_mask: u32,
    pub viewports: Vec<[f32; 4]>,
    pub depth_bounds: Option<(f32, f32)>,
    pub test_models: Vec<ShaderModel>,
    pub descriptors: Vec<DescriptorMap>,
    pub stream_output: Option<translator::StreamOutput>,
    /// The file's `[translator options]`: dual-source blending becomes the blend state;
    /// output swizzles, which D3D12 cannot ask for, make draws skip.
    pub layer: parse::LayerOptions,
    pub pass: (ShaderModel, ShaderModel),
}

/// What stays the same for a run of the D3D12 executor.
pub struct Runner<'a> {
    /// The device, or why there is none.
    pub device: Result<(&'a D3d12, &'a super::bind::Heaps), String>,
    pub compiler: super::shaders::Compiler<'a>,
    pub tags: Vec<(String, [u32; 3])>,
    pub min_model: ShaderModel,
    pub max_model: ShaderModel,
    pub header_selects_d3d9: bool,
}

fn check(file: &str, line: u32, status: Status, kind: &'static str, message: String) -> Check {
    Check {
        file: file.to_string(),
        line,
        status,
        todo: false,
        kind,
        message,
    }
}

impl Runner<'_> {
    /// Runs one file, adding its checks to `report`.
    pub fn run_file(&self, path: &Path, report: &mut Report) {
        let name = path.display().to_string();
        let text = match std::fs::read(path) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                report.add(check(
                    &name,
                    0,
                    Status::Fail,
                    "file",
                    format!("cannot read: {e}"),
                ));
                return;
            }
        };
        let file = parse::parse(&text);
        for (line, msg) in &file.errors {
            report.add(check(&name, *line, Status::Fail, "parse", msg.clone()));
        }
        for pass in file_passes(
            &file,
            self.min_model,
            self.max_model,
            self.header_selects_d3d9,
        ) {
            self.run_pass(&name, path, &file, pass, report);
        }
    }

    fn run_pass(
        &self,
        name: &str,
        path: &Path,
        file: &parse::TestFile,
        pass: (ShaderModel, ShaderModel),
        report: &mut Report,
    ) {
        let mut st = FileState {
            name: name.to_string(),
            require: Require::default(),
            shaders: HashMap::new(),
            resources: HashMap::new(),
            resource_errors: HashMap::new(),
            samplers: HashMap::new(),
            layout: Vec::new(),
            cbuffers: HashMap::new(),
            taint: None,
            last_failure: None,
            cache: BytecodeCache::default(),
            depth_func: CompareFunc::Always,
            sample_mask: !0,
            viewports: Vec::new(),
            depth_bounds: None,
            test_models: Vec::new(),
            descriptors: Vec::new(),
            stream_output: None,
            layer: parse::LayerOptions::default(),
            pass,
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
                    // The SM1–3 pass runs nothing: no device work for it either.
                    if let (Ok((dev, _)), false) = (&self.device, is_d3d9(pass.0)) {
                        match TestResource::create(dev, r) {
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
                    st.samplers.insert((s.space, s.slot), s.clone());
                }
                SectionKind::InputLayout(v) => st.layout = v.clone(),
                SectionKind::Test(lines) => self.run_block(&mut st, lines, report),
                SectionKind::Header(models) => st.test_models = models.clone(),
                SectionKind::Descriptors(v) => st.descriptors = v.clone(),
                SectionKind::StreamOutput(so) => st.stream_output = Some(so.clone()),
                // Layer options: vkd3d passes its own to the compiler, from the pipeline
                // state (dual-source blending from the blend state) and the device.
                SectionKind::TranslatorOptions(o) => st.layer = o.clone(),
                // Our translator's own options: vkd3d places descriptors, the immediate
                // constant buffer and precision itself.
                SectionKind::Binding(_)
                | SectionKind::Icb(_)
                | SectionKind::MinPrecision(_)
                | SectionKind::Ignored(_) => {}
                SectionKind::BindingLayoutFile(f) => {
                    // Not used here, but a layout that does not load is still the file's error.
                    let at = path.parent().unwrap_or(Path::new(".")).join(f);
                    if let Err(e) = std::fs::read_to_string(&at)
                        .map_err(|e| e.to_string())
                        .and_then(|t| {
                            translator::binding::BindingLayout::parse(&t).map_err(|e| e.to_string())
                        })
                    {
                        report.add(check(
                            name,
                            section.line,
                            Status::Fail,
                            "parse",
                            format!("{}: {e}", at.display()),
                        ));
                        st.taint.get_or_insert_with(|| {
                            format!("line {}: the binding layout did not load", section.line)
                        });
                    }
                }
                SectionKind::Unsupported(reason) => {
                    st.taint
                        .get_or_insert_with(|| format!("line {}: {reason}", section.line));
                }
            }
        }
    }

    /// Why the device keeps a block at `model` from running (a `[require]` it lacks).
    fn caps_problem(&self, dev: &D3d12, st: &FileState, model: ShaderModel) -> Option<String> {
        let ctx = Ctx {
            model,
            tags: &self.tags,
        };
        for (text, q) in &st.require.tag_conditions {
            if !q.holds(&ctx) {
                return Some(format!("[require] {text} does not hold here"));
            }
        }
        let f = &dev.features;
        let vk = dev.vulkan.as_ref();
        for cap in &st.require.caps {
            let lacks = |what: &str| Some(format!("[require] {cap}: the device lacks {what}"));
            let problem = match cap.as_str() {
                "float64" if f.options.double_precision_float_shader_ops == 0 => {
                    lacks("DoublePrecisionFloatShaderOps")
                }
                "int64" if f.options1.int64_shader_ops == 0 => lacks("Int64ShaderOps"),
                "rov" if f.options.rovs_supported == 0 => lacks("ROVsSupported"),
                "rt-vp-array-index"
                    if f.options
                        .vp_and_rt_array_index_from_any_shader_feeding_rasterizer_supported_without_gs_emulation
                        == 0 =>
                {
                    lacks("VPAndRTArrayIndexFromAnyShaderFeedingRasterizer")
                }
                "inner-coverage" if f.options.conservative_rasterization_tier < 3 => {
                    lacks("conservative rasterization tier 3")
                }
                "inner-coverage" => Some(
                    "[require] inner-coverage: the d3d12 executor does not turn on conservative rasterization".into(),
                ),
                "depth-bounds" if f.options2.is_none_or(|o| o.depth_bounds_test_supported == 0) => {
                    lacks("DepthBoundsTestSupported")
                }
                "denorm-flush-f32" if !vk.is_some_and(|v| v.denorm_flush_f32) => {
                    lacks("shaderDenormFlushToZeroFloat32 (Vulkan)")
                }
                "filter-minmax" if !vk.is_some_and(|v| v.filter_minmax) => {
                    lacks("samplerFilterMinmax (Vulkan)")
                }
                "float64" | "int64" | "rov" | "rt-vp-array-index" | "depth-bounds"
                | "denorm-flush-f32" | "filter-minmax" => None,
                // Feature level 11.0 has these.
                "geometry-shader" | "tessellation-shader" | "cull-distance" | "descriptors" => None,
                "clip-planes" | "fog" | "point-size" => Some(format!(
                    "[require] {cap}: fixed-function Direct3D 9 state, which Direct3D 12 does not have"
                )),
                "wave-ops" | "native-16-bit" => Some(format!("[require] {cap}: it needs SM6")),
                c if c.starts_with("format ") => {
                    let mut it = c.split_whitespace().skip(1);
                    let fmt = it.next().and_then(parse::format::Format::by_name);
                    match (fmt.map(|f| dxgi_format(&f)), it.next()) {
                        (Some(Ok(dxgi)), Some("uav-load")) => {
                            let (s1, s2) = dev.format_support(dxgi);
                            let ok = s1 & FORMAT_SUPPORT1_TYPED_UNORDERED_ACCESS_VIEW != 0
                                && s2 & FORMAT_SUPPORT2_UAV_TYPED_LOAD != 0;
                            (!ok).then(|| format!("[require] {cap}: the device lacks it"))
                        }
                        _ => Some(format!("[require] {cap}: the runner does not know this requirement")),
                    }
                }
                c if c.starts_with("unknown ") => Some(format!(
                    "[require] {cap}: the runner does not know this requirement"
                )),
                _ => Some(format!("[require] {cap}: the runner does not know this requirement")),
            };
            if problem.is_some() {
                return problem;
            }
        }
        None
    }

    fn run_block(&self, st: &mut FileState, lines: &[TestLine], report: &mut Report) {
        let model = block_model(&st.require, st.pass, &st.test_models);
        let eval_model = *model
            .as_ref()
            .unwrap_or(&st.require.min_model.clamp(st.pass.0, st.pass.1));
        let mut skip_reason = match (&model, &self.device) {
            (Err(e), _) => Some(e.clone()),
            (Ok(m), _) if is_d3d9(*m) => Some(format!(
                "shader model {m}: Direct3D 12 runs shader models 4.0-5.1 only (this is the \
                 SM1-3 pass, which needs Direct3D 9)"
            )),
            (Ok(m), Ok((dev, _))) => self.caps_problem(dev, st, *m),
            (Ok(_), Err(_)) => None,
        };
        let block_skip = skip_reason.clone();
        if skip_reason.is_none()
            && let Err(e) = &self.device
        {
            skip_reason = Some(e.clone());
        }
        st.last_failure = None;
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
                    st.depth_func = *f;
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
                // D3D9 fixed-function state: no meaning for SM4-5 shaders, and the SM1-3 pass
                // does not run here.
                Directive::NoMeaning(_) | Directive::FixedFunction { .. } => continue,
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
            let Ok((dev, heaps)) = &self.device else {
                unreachable!("no device is a skip reason")
            };
            let x = Exec {
                dev,
                heaps,
                compiler: super::shaders::Compiler {
                    hlsl: self.compiler.hlsl,
                    hlsl_error: self.compiler.hlsl_error,
                },
            };
            let model = *model.as_ref().expect("checked above");
            let result = match &tl.directive {
                Directive::Clear { target, value } => {
                    if let Err(e) = exec::clear(&x, st, *target, *value) {
                        st.taint
                            .get_or_insert_with(|| format!("line {}: clear failed: {e}", tl.line));
                    }
                    continue;
                }
                Directive::Dispatch(groups) => exec::dispatch(&x, st, model, &ctx, *groups),
                Directive::DrawQuad => exec::draw(&x, st, model, &ctx, None),
                Directive::Draw {
                    topology,
                    vertices,
                    instances,
                    start_vertex,
                    start_instance,
                } => exec::draw(
                    &x,
                    st,
                    model,
                    &ctx,
                    Some(DrawCounts {
                        topology: *topology,
                        vertices: *vertices,
                        instances: *instances,
                        start: [*start_vertex, *start_instance],
                    }),
                ),
                Directive::Copy { src, dst } => exec::copy(&x, st, *src, *dst),
                Directive::Probe(p) => {
                    if let Some((line, why)) = &st.last_failure {
                        add(
                            Status::Skip,
                            format!("the draw/dispatch at line {line} did not run ({why})"),
                        );
                        continue;
                    }
                    exec::probe(&x, st, p)
                }
                _ => unreachable!("handled above"),
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

/// The tags `if(...)` and `[require]` lines test under the D3D12 executor: `d3d12`, and
/// those of the Vulkan device vkd3d runs on (`llvmpipe`, `mesa` with its version, vendors).
pub fn tags(dev: &D3d12) -> Vec<(String, [u32; 3])> {
    let mut t = vec![("d3d12".to_string(), [0; 3])];
    if let Some(v) = &dev.vulkan {
        t.extend(crate::vk::context::device_tags(
            &v.name,
            &v.driver_info,
            v.driver_id,
            v.vendor_id,
        ));
        t.retain(|(n, _)| n != "vulkan");
    }
    t.dedup();
    t
}
