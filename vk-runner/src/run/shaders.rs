//! Getting a stage's module for a `[test]` block: HLSL → DXBC at the block's shader model
//! (or the DXBC given as hex), then DXBC → SPIR-V + reflection through the backend.

use crate::backend::Backend;
use crate::hlsl::{CompileError, HlslCompiler};
use crate::parse::qualifier::{QualContext, ShaderModel};
use crate::parse::{ShaderSection, ShaderSource, Stage};
use crate::vk::bind::RunError;
use std::collections::HashMap;
use std::rc::Rc;
use translator::Translation;
use translator::reflect::ShaderStage;

/// The vertex shader `draw quad` uses when the test has none (as vkd3d's runner does).
pub const QUAD_VS: &str =
    "float4 main(float4 pos : position) : sv_position\n{\n    return pos;\n}\n";

/// A cached translation: (section line, model, translated with the stream-output declaration,
/// the D3D9 deliveries that change the module: bit 0 flat shading, bit 1 + N depth compare of
/// sampler N delivered at run time).
type CacheKey = (u32, ShaderModel, bool, u32);

/// Caches translations per (section line, model) for one file.
#[derive(Default)]
pub struct ShaderCache {
    /// By [`CacheKey`].
    map: HashMap<CacheKey, Result<Rc<Translation>, RunError>>,
    /// The D3D9 state deliveries of SM1–3 translations (set from the file's state before each
    /// draw).
    pub d3d9_state: translator::d3d9_state::StateOptions,
}

fn reflect_stage(s: Stage) -> ShaderStage {
    match s {
        Stage::Vertex => ShaderStage::Vertex,
        Stage::Hull => ShaderStage::Hull,
        Stage::Domain => ShaderStage::Domain,
        Stage::Geometry => ShaderStage::Geometry,
        Stage::Pixel => ShaderStage::Pixel,
        Stage::Compute => ShaderStage::Compute,
    }
}

/// What a translation needs.
pub struct Translator<'a> {
    pub backend: &'a Backend,
    pub hlsl: Option<&'a HlslCompiler>,
    pub hlsl_error: Option<&'a str>,
    /// Where descriptors go (the file's `[binding layout]` / `[binding policy]`).
    pub binding: translator::binding::Binding,
    /// Where the immediate constant buffer goes (the file's `[icb uniform-buffer ...]`).
    pub icb: translator::IcbMode,
    /// How minimum precision is computed (the file's `[min-precision ...]`).
    pub min_precision: translator::MinPrecisionMode,
    /// The file's `[stream output]` declaration, for the last vertex-processing stage.
    pub stream_output: Option<translator::StreamOutput>,
    /// The file's `[translator options]`.
    pub layer: crate::parse::LayerOptions,
}

impl ShaderCache {
    /// Returns the module for `section` (declared at `line`) at `model`; `xfb`: translated
    /// with the stream-output declaration.
    #[allow(clippy::too_many_arguments)]
    pub fn get(
        &mut self,
        t: &Translator<'_>,
        line: u32,
        section: &ShaderSection,
        model: ShaderModel,
        ctx: &dyn QualContext,
        options: &[String],
        xfb: bool,
    ) -> Result<Rc<Translation>, RunError> {
        let expected_to_fail = [section.fail.as_ref(), section.notimpl.as_ref()]
            .into_iter()
            .flatten()
            .any(|q| q.holds(ctx));
        if expected_to_fail {
            return Err(RunError::Skip(format!(
                "the {} shader at line {line} is expected not to compile at shader model {model}",
                section.stage.name()
            )));
        }
        use translator::d3d9_state::{StateItem, default_delivery};
        let changed = |i: StateItem| self.d3d9_state.delivery(i) != default_delivery(i);
        let variant = (0..translator::d3d9_state::STATE_SAMPLERS)
            .filter(|&n| changed(StateItem::DepthCompare(n)))
            .fold(u32::from(changed(StateItem::FlatShading)), |k, n| {
                k | (2 << n)
            });
        if let Some(r) = self.map.get(&(line, model, xfb, variant)) {
            return r.clone();
        }
        let so = if xfb { t.stream_output.as_ref() } else { None };
        let state = super::is_d3d9(model).then_some(&self.d3d9_state);
        let mut r = translate(t, line, section, model, options, so, state).map(Rc::new);
        // `[... shader todo]`: the HLSL compiler is known not to handle it yet; that is no
        // verdict on the translator.
        if let Err(RunError::Fail(m)) = &r
            && m.contains("does not compile")
            && section.todo.as_ref().is_some_and(|q| q.holds(ctx))
        {
            r = Err(RunError::Skip(format!(
                "{m} (the section is marked todo for the HLSL compiler)"
            )));
        }
        self.map.insert((line, model, xfb, variant), r.clone());
        r
    }
}

fn translate(
    t: &Translator<'_>,
    line: u32,
    section: &ShaderSection,
    model: ShaderModel,
    options: &[String],
    stream_output: Option<&translator::StreamOutput>,
    d3d9_state: Option<&translator::d3d9_state::StateOptions>,
) -> Result<Translation, RunError> {
    let dxbc = match &section.source {
        ShaderSource::Hlsl(_)
            if super::is_d3d9(model) && !matches!(section.stage, Stage::Vertex | Stage::Pixel) =>
        {
            return Err(RunError::Skip(format!(
                "shader model {model} has no {} shaders",
                section.stage.name()
            )));
        }
        ShaderSource::Hlsl(src) => {
            // Said once at the start of the run; the check did not run, which is no verdict.
            let Some(hlsl) = t.hlsl else {
                return Err(RunError::Skip(format!(
                    "cannot compile HLSL: {}",
                    t.hlsl_error.unwrap_or("no HLSL compiler")
                )));
            };
            for o in options {
                if crate::hlsl::option_args(o).is_none() {
                    return Err(RunError::Skip(format!(
                        "compile option '{o}' is not supported"
                    )));
                }
            }
            let profile = format!("{}_{}", section.stage.prefix(), model.profile_suffix());
            match hlsl.compile(src, &profile, &section.entry, options) {
                Ok(d) => d,
                Err(CompileError::Rejected(m)) => {
                    return Err(RunError::Fail(format!(
                        "the {} shader at line {line} does not compile ({profile}): {m}",
                        section.stage.name()
                    )));
                }
                Err(CompileError::Tool(m)) => return Err(RunError::Fail(m)),
            }
        }
        ShaderSource::DxbcHex(bytes) => bytes.clone(),
        ShaderSource::Unsupported { reason, .. } => return Err(RunError::Skip(reason.clone())),
    };
    if !matches!(t.backend, Backend::Ours { .. }) && t.binding != Default::default() {
        return Err(RunError::Skip(format!(
            "the {} backend places descriptors its own way; the test sets a binding layout or policy",
            t.backend.name()
        )));
    }
    if !matches!(t.backend, Backend::Ours { .. }) && t.icb != translator::IcbMode::default() {
        return Err(RunError::Skip(format!(
            "the {} backend has no uniform-buffer ICB option; the test sets [icb uniform-buffer]",
            t.backend.name()
        )));
    }
    if !matches!(t.backend, Backend::Ours { .. }) && t.layer != Default::default() {
        return Err(RunError::Skip(format!(
            "the {} backend takes no [translator options]",
            t.backend.name()
        )));
    }
    if !matches!(t.backend, Backend::Ours { .. }) && stream_output.is_some() {
        return Err(RunError::Skip(format!(
            "the {} backend takes no stream-output declaration",
            t.backend.name()
        )));
    }
    let tr = t
        .backend
        .translate(
            &dxbc,
            &t.binding,
            t.icb,
            t.min_precision,
            stream_output,
            d3d9_state,
            &t.layer,
        )
        .map_err(|e| {
            RunError::Fail(format!(
                "{} backend: the {} shader at line {line}: {e}",
                t.backend.name(),
                section.stage.name()
            ))
        })?;
    if tr.reflection.stage != reflect_stage(section.stage) {
        return Err(RunError::Fail(format!(
            "the {} shader section at line {line} holds a {:?} shader",
            section.stage.name(),
            tr.reflection.stage
        )));
    }
    Ok(tr)
}
