//! The bytecode of a stage for a `[test]` block: HLSL compiled to DXBC at the block's shader
//! model by vk-runner's HLSL compiler (as for the direct executor), or the DXBC a section
//! gives as hex or assembly. The D3D12 executor hands this DXBC to vkd3d unchanged; vkd3d
//! translates it with whichever libvkd3d-shader is loaded.

use crate::hlsl::{CompileError, HlslCompiler};
use crate::parse::qualifier::{QualContext, ShaderModel};
use crate::parse::{ShaderSection, ShaderSource, Stage};
use crate::vk::bind::RunError;
use std::collections::HashMap;
use std::rc::Rc;

/// A stage's bytecode, or why there is none.
pub type Bytecode = Result<Rc<[u8]>, RunError>;

/// Compiled bytecode by (section line, model), for one file pass.
#[derive(Default)]
pub struct BytecodeCache {
    map: HashMap<(u32, ShaderModel), Bytecode>,
}

/// What compiling needs.
pub struct Compiler<'a> {
    pub hlsl: Option<&'a HlslCompiler>,
    pub hlsl_error: Option<&'a str>,
}

impl BytecodeCache {
    /// The DXBC of `section` (declared at `line`) at `model`.
    pub fn get(
        &mut self,
        c: &Compiler<'_>,
        line: u32,
        section: &ShaderSection,
        model: ShaderModel,
        ctx: &dyn QualContext,
        options: &[String],
    ) -> Result<Rc<[u8]>, RunError> {
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
        if let Some(r) = self.map.get(&(line, model)) {
            return r.clone();
        }
        let mut r: Bytecode = compile(c, line, section, model, options).map(Rc::from);
        // `[... shader todo]`: the HLSL compiler is known not to handle it yet.
        if let Err(RunError::Fail(m)) = &r
            && m.contains("does not compile")
            && section.todo.as_ref().is_some_and(|q| q.holds(ctx))
        {
            r = Err(RunError::Skip(format!(
                "{m} (the section is marked todo for the HLSL compiler)"
            )));
        }
        self.map.insert((line, model), r.clone());
        r
    }
}

fn compile(
    c: &Compiler<'_>,
    line: u32,
    section: &ShaderSection,
    model: ShaderModel,
    options: &[String],
) -> Result<Vec<u8>, RunError> {
    let bytes = match &section.source {
        ShaderSource::Hlsl(src) => {
            // Said once at the start of the run; the check did not run, which is no verdict.
            let Some(hlsl) = c.hlsl else {
                return Err(RunError::Skip(format!(
                    "cannot compile HLSL: {}",
                    c.hlsl_error.unwrap_or("no HLSL compiler")
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
    if translator::d3dbc::is_d3dbc(&bytes) {
        return Err(RunError::Skip(format!(
            "the {} shader at line {line} is Direct3D 9 bytecode, which Direct3D 12 does not run",
            section.stage.name()
        )));
    }
    Ok(bytes)
}

/// The vertex shader `draw quad` uses when the test has none (the direct executor's).
pub fn quad_vs() -> ShaderSection {
    ShaderSection {
        stage: Stage::Vertex,
        source: ShaderSource::Hlsl(crate::run::shaders::QUAD_VS.to_string()),
        fail: None,
        notimpl: None,
        todo: None,
        entry: "main".into(),
    }
}
