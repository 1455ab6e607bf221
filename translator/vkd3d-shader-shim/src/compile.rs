//! `vkd3d_shader_compile` for DXBC (`DXBC_TPF`) and Direct3D 9 (`D3D_BYTECODE`) sources to
//! `SPIRV_BINARY`: the chain read ([`crate::chain`]) and planned ([`crate::plan`]), the
//! translator run, its module checked against what the caller allows (SPIR-V extensions,
//! device features, Direct3D 9 parameters), the signatures filled, and the SPIR-V handed back `malloc`ed (vkd3d frees it
//! with `free`).

use std::cell::RefCell;

use translator::reflect::{Reflection, ShaderStage};
use translator::{Translation, Translator};

use crate::abi;
use crate::chain::Chain;
use crate::plan::{self, Checks, Source};
use crate::report::Failure;

/// The largest source accepted (vkd3d lets a Direct3D 9 caller pass `~0` and relies on the
/// end token; the stand-in needs the real size).
pub const MAX_SOURCE: usize = 256 << 20;

thread_local! {
    /// Each thread's translator, keeping its buffers between compiles.
    static TRANSLATOR: RefCell<Translator> = RefCell::new(Translator::new());
}

/// A successful compile: the words, and notes for the caller's messages.
pub struct Compiled {
    pub spirv: Vec<u32>,
    pub notes: Vec<String>,
    pub stage: ShaderStage,
}

/// The stage and version of the source, checking it is what `source_type` says.
fn source_facts(bytes: &[u8], source_type: u32) -> Result<Source, Failure> {
    let d3d9 = translator::d3dbc::is_d3dbc(bytes);
    if source_type == abi::SOURCE_D3D_BYTECODE {
        if !d3d9 {
            return Err(Failure::invalid_shader(
                "the source is not a Direct3D 9 token stream (its first token is not a \
                 vs_/ps_ version)",
            ));
        }
        let token = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        return Ok(Source {
            stage: if token >> 16 == 0xfffe {
                ShaderStage::Vertex
            } else {
                ShaderStage::Pixel
            },
            d3d9: true,
            major: ((token >> 8) & 0xff) as u8,
        });
    }
    if d3d9 {
        return Err(Failure::invalid_shader(
            "the source is a Direct3D 9 token stream, not a DXBC container",
        ));
    }
    let c = translator::container::Container::parse(bytes)
        .map_err(|e| Failure::invalid_shader(format!("container: {e}")))?;
    let v = c
        .shader_version()
        .map_err(|e| Failure::invalid_shader(format!("container: {e}")))?;
    Ok(Source {
        stage: v.stage,
        d3d9: false,
        major: v.major,
    })
}

/// SPIR-V extension names of vkd3d's `vkd3d_shader_spirv_extension`.
const GOVERNED_EXTENSIONS: &[(&str, u32)] = &[
    (
        "SPV_EXT_demote_to_helper_invocation",
        abi::SPIRV_EXTENSION_EXT_DEMOTE_TO_HELPER_INVOCATION,
    ),
    (
        "SPV_EXT_descriptor_indexing",
        abi::SPIRV_EXTENSION_EXT_DESCRIPTOR_INDEXING,
    ),
    (
        "SPV_EXT_shader_stencil_export",
        abi::SPIRV_EXTENSION_EXT_STENCIL_EXPORT,
    ),
    (
        "SPV_EXT_shader_viewport_index_layer",
        abi::SPIRV_EXTENSION_EXT_VIEWPORT_INDEX_LAYER,
    ),
    (
        "SPV_EXT_fragment_shader_interlock",
        abi::SPIRV_EXTENSION_EXT_FRAGMENT_SHADER_INTERLOCK,
    ),
    (
        "SPV_KHR_float_controls",
        abi::SPIRV_EXTENSION_KHR_FLOAT_CONTROLS,
    ),
];

/// Checks the module against what the caller allows.
fn check(refl: &Reflection, checks: &Checks, stage: ShaderStage) -> Result<(), Failure> {
    for ext in &refl.extensions {
        if let Some((_, e)) = GOVERNED_EXTENSIONS.iter().find(|(n, _)| n == ext)
            && !checks.extensions.contains(e)
        {
            return Err(Failure::not_expressible(format!(
                "the module needs {ext}, which the SPIR-V target info does not list"
            )));
        }
    }
    let need = |flag: u32, what: &str| -> Result<(), Failure> {
        if checks.features & flag == 0 {
            Err(Failure::not_expressible(format!(
                "the module needs {what}, which VKD3D_SHADER_COMPILE_OPTION_FEATURE does not \
                 grant"
            )))
        } else {
            Ok(())
        }
    };
    if refl.vulkan_features.iter().any(|f| f == "shaderFloat64") {
        need(abi::FEATURE_FLOAT64, "64-bit floats (shaderFloat64)")?;
    }
    if refl.capabilities.iter().any(|c| c == "Int64") {
        need(abi::FEATURE_INT64, "64-bit integers (shaderInt64)")?;
    }
    if refl
        .capabilities
        .iter()
        .any(|c| c.starts_with("GroupNonUniform"))
    {
        need(abi::FEATURE_WAVE_OPS, "wave operations")?;
    }
    if refl
        .vulkan_features
        .iter()
        .any(|f| f == "shaderZeroInitializeWorkgroupMemory")
    {
        need(
            abi::FEATURE_ZERO_INITIALIZE_WORKGROUP_MEMORY,
            "zero-initialised workgroup memory",
        )?;
    }
    if !checks.d3d9_only_params.is_empty() {
        return Err(Failure::not_expressible(format!(
            "Direct3D 9 fixed-function parameters ({}) for a Shader Model {} shader: the \
             translator compiles them into Direct3D 9 shaders only",
            checks.d3d9_only_params.join(", "),
            if stage == ShaderStage::Pixel {
                "4+ pixel"
            } else {
                "4+"
            }
        )));
    }
    Ok(())
}

/// The caller's source as bytes, checked non-empty and within [`MAX_SOURCE`].
///
/// # Safety
/// `info.source` must point to `size` readable bytes when non-null.
unsafe fn source_bytes(info: &abi::CompileInfo) -> Result<&[u8], Failure> {
    if info.source.code.is_null() || info.source.size == 0 {
        return Err(Failure::invalid_argument(
            "the source is empty or a null pointer",
        ));
    }
    if info.source.size > MAX_SOURCE {
        return Err(Failure::invalid_argument(format!(
            "the source's size {} is over the stand-in's limit of {MAX_SOURCE} bytes",
            info.source.size
        )));
    }
    // SAFETY: non-null; the caller vouches for `size` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(info.source.code.cast::<u8>(), info.source.size) })
}

/// `vkd3d_shader_scan` of DXBC or Direct3D 9 bytecode: the chain's scan outputs and
/// signatures filled by [`crate::scan`] (a Direct3D 9 shader is translated for its
/// reflection, as vkd3d-shader parses it for its scan).
///
/// # Safety
/// As [`compile`]'s, with the chain's output structures writable.
pub unsafe fn scan(info: &abi::CompileInfo) -> Result<(), Failure> {
    // SAFETY: as this function's.
    let bytes = unsafe { source_bytes(info) }?;
    let src = source_facts(bytes, info.source_type)?;
    // SAFETY: the chain's links are checked as they are read.
    let chain = unsafe { Chain::walk(info.next) }?;
    // SAFETY: checked by `slice`.
    let opts = unsafe { crate::chain::slice(info.options, info.option_count, "options") }?;
    if !src.d3d9 {
        // SAFETY: the chain's outputs, checked by its walk.
        return unsafe { crate::scan::fill(&chain, crate::scan::Source::Dxbc(bytes), opts) };
    }
    let mut options = translator::Options::default();
    options.d3d9.relaxed_limits = true;
    options.d3d9.bool_constant_rows = true;
    options.binding = translator::binding::BindingPolicy::Vkd3d.into();
    let t = TRANSLATOR
        .with(|t| match t.try_borrow_mut() {
            Ok(mut t) => t.translate(bytes, &options),
            Err(_) => translator::translate(bytes, &options),
        })
        .map_err(|e| Failure::from_translator(&e))?;
    // SAFETY: the chain's outputs, checked by its walk.
    unsafe {
        crate::scan::fill(
            &chain,
            crate::scan::Source::D3d9(bytes, &t.reflection),
            opts,
        )
    }
}

/// Compiles with the translator.
///
/// # Safety
/// `info` and everything its chain points to must be valid where [`crate::chain`]'s checks
/// pass.
pub unsafe fn compile(info: &abi::CompileInfo, chain: &Chain) -> Result<Compiled, Failure> {
    // SAFETY: as this function's.
    let bytes = unsafe { source_bytes(info) }?;
    let src = source_facts(bytes, info.source_type)?;
    // SAFETY: as this function's.
    let plan = unsafe { plan::plan(info, chain, &src) }?;
    let t: Translation = TRANSLATOR
        .with(|t| match t.try_borrow_mut() {
            Ok(mut t) => t.translate(bytes, &plan.options),
            // A compile from inside a compile (a log callback that compiles): a fresh one.
            Err(_) => translator::translate(bytes, &plan.options),
        })
        .map_err(|e| Failure::from_translator(&e))?;
    check(&t.reflection, &plan.checks, src.stage)?;
    // The scan outputs and signatures asked of the compile, from the same source.
    let source = if src.d3d9 {
        crate::scan::Source::D3d9(bytes, &t.reflection)
    } else {
        crate::scan::Source::Dxbc(bytes)
    };
    // SAFETY: as this function's.
    let opts = unsafe { crate::chain::slice(info.options, info.option_count, "options") }?;
    // SAFETY: the chain's outputs, checked by its walk.
    unsafe { crate::scan::fill(chain, source, opts) }?;
    Ok(Compiled {
        spirv: t.spirv,
        notes: plan.notes,
        stage: src.stage,
    })
}
