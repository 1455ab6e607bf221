//! The public translation API: options in, SPIR-V words and reflection out.

use crate::reflect::Reflection;

/// Vulkan target environment; it fixes the SPIR-V version emitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TargetEnv {
    /// Vulkan 1.1, SPIR-V 1.3.
    Vulkan1_1,
    /// Vulkan 1.2, SPIR-V 1.5.
    Vulkan1_2,
    /// Vulkan 1.3, SPIR-V 1.6.
    #[default]
    Vulkan1_3,
}

impl TargetEnv {
    /// SPIR-V version as (major, minor).
    pub fn spirv_version(self) -> (u8, u8) {
        match self {
            TargetEnv::Vulkan1_1 => (1, 3),
            TargetEnv::Vulkan1_2 => (1, 5),
            TargetEnv::Vulkan1_3 => (1, 6),
        }
    }

    /// The name spirv-val uses for `--target-env`.
    pub fn spirv_val_name(self) -> &'static str {
        match self {
            TargetEnv::Vulkan1_1 => "vulkan1.1",
            TargetEnv::Vulkan1_2 => "vulkan1.2",
            TargetEnv::Vulkan1_3 => "vulkan1.3",
        }
    }
}

/// How to translate.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub target_env: TargetEnv,
    /// Emit OpName/OpMemberName debug names.
    pub debug_names: bool,
    /// Where D3D registers go in Vulkan descriptor sets, bindings and push constants: a
    /// built-in policy (default `ClassOffsets`) or a caller's layout.
    pub binding: crate::binding::Binding,
    /// Ask for 32-bit float denormals to be flushed to zero, as D3D requires of fp32 math
    /// (`DenormFlushToZero` execution mode). Set it only when the device reports
    /// `shaderDenormFlushToZeroFloat32` (VkPhysicalDeviceFloatControlsProperties); without it
    /// the driver's default applies.
    pub denorm_flush_f32: bool,
    /// The SpecId of the specialization constant that holds the rasterizer's sample count,
    /// which `sampleinfo`/`samplepos` on `rasterizer` (HLSL `GetRenderTargetSampleCount`,
    /// `GetRenderTargetSamplePosition`) read. Default 0. The reflection lists it
    /// ([`crate::reflect::SpecConstant`]) when the module uses it; the pipeline sets it to
    /// `VkPipelineMultisampleStateCreateInfo::rasterizationSamples` (it defaults to 1).
    pub rasterizer_sample_count_spec_id: u32,
}

/// A translated module.
#[derive(Debug, Clone)]
pub struct Translation {
    /// The SPIR-V module, as 32-bit words.
    pub spirv: Vec<u32>,
    /// What the module expects from its caller.
    pub reflection: Reflection,
}

/// Why a well-formed program could not be translated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranslateError {
    /// The program uses something the translator does not implement.
    #[error("unsupported {what} at byte offset {offset:#x}")]
    Unsupported { what: String, offset: usize },
    /// A bug in the translator: an invariant of its own IR did not hold.
    #[error("internal error: {what}")]
    Internal { what: String },
    /// The program breaks a rule of the shader model.
    #[error("invalid program at byte offset {offset:#x}: {what}")]
    Invalid { what: String, offset: usize },
    /// A declared register range has no place under the binding policy or layout.
    #[error("at byte offset {offset:#x}: {error}")]
    Binding {
        error: crate::binding::BindingError,
        offset: usize,
    },
}

/// Translates a DXBC container to SPIR-V.
pub fn translate(dxbc: &[u8], options: &Options) -> Result<Translation, crate::Error> {
    let (mut module, mut reflection, globals) = lower_container_with_reflection(dxbc, options)?;
    crate::passes::run(&mut module)?;
    let (spirv, used) = crate::emit::emit_with_usage(
        &module,
        crate::emit::EmitOptions {
            version: options.target_env.spirv_version(),
            debug_names: options.debug_names,
        },
    )?;
    sync_reflection(&used, &mut reflection, &globals);
    Ok(Translation { spirv, reflection })
}

/// Parses, decodes and lowers a container to IR (no passes run).
pub(crate) fn lower_container(
    dxbc: &[u8],
    options: &Options,
) -> Result<crate::ir::Module, crate::Error> {
    Ok(lower_container_with_reflection(dxbc, options)?.0)
}

/// Makes the reflection say what the finished module holds (`used`: per global, whether the
/// module uses it): descriptors it does not use are dropped, interface variables it does not
/// use are marked unused. Descriptors are then sorted by (set, binding).
fn sync_reflection(
    used: &[bool],
    refl: &mut Reflection,
    globals: &crate::lower::ReflectionGlobals,
) {
    let is_used = |g: &crate::ir::GlobalId| used.get(g.0 as usize).copied().unwrap_or(false);
    let mut keep = globals.descriptors.iter().map(is_used);
    refl.descriptors.retain(|_| keep.next().unwrap_or(true));
    for (var, g) in refl
        .inputs
        .iter_mut()
        .zip(&globals.inputs)
        .chain(refl.outputs.iter_mut().zip(&globals.outputs))
    {
        if !is_used(g) {
            var.placement = crate::reflect::InterfacePlacement::Unused;
        }
    }
    refl.descriptors
        .sort_by_key(|d| (d.set, d.binding, d.array_offset));
    refl.push_constants.sort_by_key(|p| p.offset);
}

fn lower_container_with_reflection(
    dxbc: &[u8],
    options: &Options,
) -> Result<
    (
        crate::ir::Module,
        Reflection,
        crate::lower::ReflectionGlobals,
    ),
    crate::Error,
> {
    use crate::container::signature::Signature;
    let container = crate::container::Container::parse(dxbc)?;
    let chunk = container
        .shader_chunk()
        .ok_or_else(|| TranslateError::Invalid {
            what: "no SHDR or SHEX chunk".into(),
            offset: 0,
        })?;
    let program = crate::sm4::decode(chunk.data, chunk.offset)?;
    let sig = |tags: &[&[u8; 4]]| -> Result<Option<Signature<'_>>, crate::Error> {
        match container.chunk_any(tags) {
            Some(c) => Ok(Some(Signature::parse(c)?)),
            None => Ok(None),
        }
    };
    let input = sig(&[b"ISG1", b"ISGN"])?;
    let output = sig(&[b"OSG1", b"OSG5", b"OSGN"])?;
    let patch = sig(&[b"PSG1", b"PCSG"])?;
    let sigs = crate::lower::Signatures {
        input: input.as_ref(),
        output: output.as_ref(),
        patch: patch.as_ref(),
    };
    crate::rules::check(&program, sigs).map_err(TranslateError::from)?;
    Ok(crate::lower::lower(&program, sigs, options)?)
}
