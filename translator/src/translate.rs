//! The public translation API: options in, SPIR-V words and reflection out.

use crate::container::{ContainerError, ContainerErrorKind};
use crate::emit::EmitError;
use crate::error::ErrorKind;
use crate::lower::LowerError;
use crate::options::Options;
use crate::passes::PassError;
use crate::reflect::Reflection;
use crate::sm4::{DecodeError, DecodeErrorKind};

/// Any error the crate reports, by the step that found it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The DXBC container (header, chunk table, chunk contents) is malformed.
    #[error("container: {0}")]
    Container(#[from] ContainerError),
    /// The SM4/5 program token stream is malformed.
    #[error("decode: {0}")]
    Decode(#[from] DecodeError),
    /// The Direct3D 9 (SM1–3) token stream is malformed.
    #[error("decode: {0}")]
    D3d9Decode(#[from] crate::d3dbc::DecodeError),
    /// Lowering found the program unsupported or invalid, or the binding layout has no place
    /// for one of its registers.
    #[error("translate: {0}")]
    Lower(#[from] LowerError),
    /// A pass over the IR could not handle the program (or found a bug of its own).
    #[error("translate: {0}")]
    Pass(#[from] PassError),
    /// The module cannot be written as SPIR-V (an instruction over SPIR-V's limits).
    #[error("translate: {0}")]
    Emit(#[from] EmitError),
}

impl Error {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Container(e) => match e.kind {
                ContainerErrorKind::TooComplex => ErrorKind::Unsupported,
                _ => ErrorKind::Malformed,
            },
            Error::Decode(e) => match e.kind {
                DecodeErrorKind::UnsupportedVersion { .. } => ErrorKind::Unsupported,
                _ => ErrorKind::Malformed,
            },
            Error::D3d9Decode(e) => match e.kind {
                crate::d3dbc::DecodeErrorKind::UnsupportedVersion { .. } => ErrorKind::Unsupported,
                _ => ErrorKind::Malformed,
            },
            Error::Lower(e) => e.kind(),
            Error::Pass(e) => e.kind(),
            Error::Emit(e) => e.kind(),
        }
    }

    /// Whether the input is a program the translator does not (yet) handle, as opposed to bad
    /// input, a binding problem or a bug.
    pub fn is_unsupported(&self) -> bool {
        self.kind() == ErrorKind::Unsupported
    }

    /// The byte offset in the input where the problem was found, when one is known.
    pub fn offset(&self) -> Option<usize> {
        match self {
            Error::Container(e) => Some(e.offset),
            Error::Decode(e) => Some(e.offset),
            Error::D3d9Decode(e) => Some(e.offset),
            Error::Lower(e) => e.offset(),
            Error::Pass(_) | Error::Emit(_) => None,
        }
    }

    /// The name of the opcode of the instruction at fault (`"dcl_stream"`, `"sample_b"`),
    /// when the error is about one instruction.
    pub fn opcode(&self) -> Option<&'static str> {
        match self {
            Error::Lower(e) => e.opcode(),
            _ => None,
        }
    }

    /// The name of the shader-model rule the program breaks, when one was found.
    pub fn rule(&self) -> Option<&'static str> {
        match self {
            Error::Lower(e) => e.rule(),
            _ => None,
        }
    }
}

/// A translated module.
#[derive(Debug, Clone)]
pub struct Translation {
    /// The SPIR-V module, as 32-bit words.
    pub spirv: Vec<u32>,
    /// What the module expects from its caller.
    pub reflection: Reflection,
}

/// Translates a DXBC container or a Direct3D 9 token stream (told apart by their first bytes)
/// to SPIR-V.
///
/// A one-shot [`Translator`]: a caller translating many shaders saves allocations by keeping
/// one `Translator` (per thread) instead.
pub fn translate(dxbc: &[u8], options: &Options) -> Result<Translation, crate::Error> {
    Translator::new().translate(dxbc, options)
}

/// A translator that keeps its working buffers (the IR module's tables and spare function
/// lists, the SM4 lowering's state, the decoded SM4 program, the passes' scratch buffers, the
/// SPIR-V writer's sections and id maps) from one translation to the next, so that translating
/// many shaders allocates less than calling [`translate`] for each. Its results are exactly
/// those of [`translate`]: nothing it keeps is read by a later translation, so any shader and
/// options may follow any other. It keeps the buffers of the largest shader it translated
/// (within caps on the largest tables) until it is dropped.
#[derive(Default)]
pub struct Translator {
    /// The module of the last translation, reset for the next.
    module: Option<Box<crate::ir::Module>>,
    /// The decoded program of the last DXBC translation and the rule checker's lists, reused
    /// by the next.
    sm4: Sm4Scratch,
    /// The SM4 lowering's maps and lists, emptied by the next lowering.
    lower: crate::lower::LowerScratch,
    /// What the D3D9 lowering leaves for after the passes (its state code's placeholders).
    d3d9: crate::lower_d3d9::Kept,
    passes: crate::passes::Scratch,
    emit: crate::emit::EmitScratch,
}

impl std::fmt::Debug for Translator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Translator").finish_non_exhaustive()
    }
}

impl Translator {
    /// Block instruction lists the kept module holds: its functions' blocks, which the next
    /// translation reuses, and the builder's pool (tests: bounded, not growing per translation).
    #[cfg(test)]
    pub(crate) fn kept_block_lists(&self) -> usize {
        self.module.as_ref().map_or(0, |m| {
            let blocks: usize = m.functions.iter().map(|f| f.blocks.len()).sum();
            blocks + m.spare.function.blocks.len() + m.spare.builder.pooled_block_lists()
        })
    }

    /// A translator with no buffers yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Translates a DXBC container (or a Direct3D 9 token stream) to SPIR-V, like
    /// [`translate`].
    pub fn translate(
        &mut self,
        dxbc: &[u8],
        options: &Options,
    ) -> Result<Translation, crate::Error> {
        let r = self.translate_kept(dxbc, options);
        self.tidy();
        r
    }

    /// Drops what this translation left in the biggest kept buffers (their allocations stay):
    /// the module's tables and function, the decoded program. Each translation so pays for
    /// its own leftovers, while they are in cache, rather than the next one, which may be a
    /// much smaller shader. (The lowering's few maps are emptied as the next lowering begins.)
    fn tidy(&mut self) {
        if let Some(m) = self.module.as_mut() {
            m.reset_kept();
        }
        if let Some(p) = self.sm4.program.as_mut() {
            p.clear();
        }
    }

    /// [`Translator::translate`] without the tidying after it.
    fn translate_kept(
        &mut self,
        dxbc: &[u8],
        options: &Options,
    ) -> Result<Translation, crate::Error> {
        crate::stage_times::start();
        self.d3d9.clear();
        // Filled in place by the lowering (its stage set there), then moved out once.
        let mut reflection = Reflection::empty(crate::reflect::ShaderStage::Vertex);
        let (mut module, globals) = lower_reusing(
            dxbc,
            options,
            self.module.take(),
            &mut self.sm4,
            &mut self.lower,
            &mut self.d3d9,
            &mut reflection,
        )?;
        let r = self.finish(&mut module, &mut reflection, &globals, options);
        // The lists of the reflection globals serve the next lowering.
        self.lower.keep_globals(globals);
        self.module = Some(module);
        let spirv = r?;
        if let Some(f) = options.device_features {
            // Whatever path asked for it: a feature the caller says the device lacks.
            for (has, name) in [(f.float64, "shaderFloat64"), (f.int64, "shaderInt64")] {
                if !has && reflection.vulkan_features.iter().any(|v| v == name) {
                    return Err(LowerError::unsupported(
                        0,
                        format!(
                            "a module that needs {name}, which the device lacks (DeviceFeatures)"
                        ),
                    )
                    .into());
                }
            }
        }
        Ok(Translation { spirv, reflection })
    }

    /// Runs the passes on the lowered module and writes it; the reflection is brought in
    /// line with what it holds.
    fn finish(
        &mut self,
        module: &mut crate::ir::Module,
        reflection: &mut Reflection,
        globals: &crate::lower::ReflectionGlobals,
        options: &Options,
    ) -> Result<Vec<u32>, crate::Error> {
        crate::passes::run_with(module, &mut self.passes)?;
        // D3D9 state code the passes need not see (`lower_d3d9::tail`).
        crate::lower_d3d9::expand_tails(module, &mut self.d3d9, options);
        crate::passes::validate(module, "d3d9 state code")?;
        if options.min_precision == crate::MinPrecisionMode::Native16 {
            let used = crate::passes::run_min16(module, &mut self.passes)?;
            for (on, cap, feature) in [
                (used.float16, spirv::Capability::Float16, "shaderFloat16"),
                (used.int16, spirv::Capability::Int16, "shaderInt16"),
            ] {
                if on {
                    module.capability(cap);
                    reflection
                        .capabilities
                        .push(crate::reflect::names::capability(cap));
                    reflection.vulkan_features.push(feature.into());
                    reflection.vulkan_features.sort();
                }
            }
        }
        crate::stage_times::end(crate::stage_times::Stage::Late);
        let (spirv, used) = crate::emit::emit_with_usage(
            module,
            crate::emit::EmitOptions {
                version: options.target_env.spirv_version(),
                debug_names: options.debug_names,
            },
            &mut self.emit,
            &self.d3d9,
        )?;
        sync_reflection(used, reflection, globals);
        if module.interlock {
            // The emitter chose the interlock's kind from the globals the module uses.
            let (cap, _, feature) = module.interlock_kind(used);
            reflection
                .capabilities
                .push(crate::reflect::names::capability(cap));
            reflection.vulkan_features.push(feature.into());
            reflection.vulkan_features.sort();
        }
        crate::stage_times::end(crate::stage_times::Stage::Emit);
        Ok(spirv)
    }
}

/// Parses, decodes and lowers a container to IR (no passes run).
pub(crate) fn lower_container(
    dxbc: &[u8],
    options: &Options,
) -> Result<crate::ir::Module, crate::Error> {
    lower_container_with(dxbc, options, &mut crate::lower::LowerScratch::default())
}

/// [`lower_container`] with the SM4 lowering's kept state `kept` (left there, as a
/// [`Translator`] leaves it for its next translation).
pub(crate) fn lower_container_with(
    dxbc: &[u8],
    options: &Options,
    kept: &mut crate::lower::LowerScratch,
) -> Result<crate::ir::Module, crate::Error> {
    let mut d3d9 = crate::lower_d3d9::Kept::default();
    let mut refl = Reflection::empty(crate::reflect::ShaderStage::Vertex);
    Ok(*lower_reusing(
        dxbc,
        options,
        None,
        &mut Sm4Scratch::default(),
        kept,
        &mut d3d9,
        &mut refl,
    )?
    .0)
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
    // Descriptors of different types at one binding (placements that said it is mutable).
    if refl
        .descriptors
        .chunk_by(|a, b| (a.set, a.binding) == (b.set, b.binding))
        .any(|g| g.iter().any(|d| d.descriptor_type != g[0].descriptor_type))
    {
        refl.need_feature("mutableDescriptorType");
        refl.vulkan_features.sort();
    }
}

/// What a DXBC translation keeps for the next: the decoded program's vectors and the rule
/// checker's lists.
#[derive(Default)]
struct Sm4Scratch {
    program: Option<crate::sm4::Program>,
    rules: crate::rules::Scratch,
}

/// Parses, decodes and lowers a container to IR and its reflection (`refl`, an empty one,
/// filled in place), reusing the tables of `reuse` (a module of an earlier translation) when
/// given, the decoded program's vectors and the rule checker's lists of `kept` (left there for
/// the next translation), the SM4 lowering's buffers of `scratch`, and leaving in `d3d9` what
/// a D3D9 lowering leaves for after the passes.
fn lower_reusing(
    dxbc: &[u8],
    options: &Options,
    reuse: Option<Box<crate::ir::Module>>,
    kept: &mut Sm4Scratch,
    scratch: &mut crate::lower::LowerScratch,
    d3d9: &mut crate::lower_d3d9::Kept,
    refl: &mut Reflection,
) -> Result<(Box<crate::ir::Module>, crate::lower::ReflectionGlobals), crate::Error> {
    use crate::container::signature::Signature;
    if crate::d3dbc::is_d3dbc(dxbc) {
        let program = crate::d3dbc::decode_reusing(dxbc, d3d9.take_items())?;
        crate::stage_times::end(crate::stage_times::Stage::Parse);
        if options.stream_output.is_some() {
            // D3D9 has no stream output; a declaration for one is the caller's mistake.
            return Err(LowerError::StreamOutput {
                entry: None,
                what: format!("{} shaders have no stream output", program.version),
            }
            .into());
        }
        let globals = scratch.take_globals();
        let lowered = crate::lower_d3d9::lower(&program, options, reuse, d3d9, refl, globals);
        crate::stage_times::end(crate::stage_times::Stage::LowerBody);
        d3d9.keep_items(program.items);
        return Ok(lowered?);
    }
    let container = crate::container::Container::parse(dxbc)?;
    let chunk = container.shader_chunk().ok_or_else(|| {
        crate::container::ContainerError::new(0, "the container has no SHDR or SHEX chunk")
    })?;
    let mut program = crate::sm4::decode_reusing(chunk.data, chunk.offset, kept.program.take())?;
    crate::stage_times::end(crate::stage_times::Stage::Parse);
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
    crate::rules::check_with(&program, sigs, &mut kept.rules)
        .map_err(crate::TranslateError::from)?;
    if kept.rules.has_empty_destination() {
        crate::rules::relax::relax(&mut program);
    }
    crate::stage_times::end(crate::stage_times::Stage::Rules);
    let lowered = crate::lower::lower(&program, sigs, options, reuse, scratch, refl)?;
    kept.program = Some(program);
    if let (Some(linkage), Some(chunk)) =
        (refl.class_linkage.as_mut(), container.chunk_any(&[b"IFCE"]))
    {
        let ifce = crate::container::Interfaces::parse(chunk)?;
        set_class_interfaces(linkage, &ifce);
    }
    Ok(lowered)
}

/// Copies the IFCE chunk's class types, declared instances and slot tables into the
/// reflection's class linkage (slots bounded by the chunk's slot total).
fn set_class_interfaces(
    linkage: &mut crate::reflect::ClassLinkage,
    ifce: &crate::container::Interfaces<'_>,
) {
    use crate::reflect::{ClassInstance, ClassType, SlotTables};
    linkage.class_types = ifce
        .class_types
        .iter()
        .map(|t| ClassType {
            name: t.name.to_string(),
            id: t.id.into(),
            constant_buffer_stride: t.constant_buffer_stride.into(),
            texture_count: t.texture_count.into(),
            sampler_count: t.sampler_count.into(),
        })
        .collect();
    linkage.class_instances = ifce
        .class_instances
        .iter()
        .map(|i| ClassInstance {
            name: i.name.to_string(),
            type_id: i.type_id.into(),
            constant_buffer: i.constant_buffer.into(),
            constant_buffer_offset: i.constant_buffer_offset.into(),
            texture: i.texture.into(),
            sampler: i.sampler.into(),
        })
        .collect();
    let total = ifce.slot_count.min(crate::reflect::CLASS_MAX_SLOTS);
    linkage.slot_tables = ifce
        .slots
        .iter()
        .flat_map(|s| {
            let entries: Vec<(u32, u32)> = s
                .entries
                .iter()
                .map(|e| (u32::from(e.type_id), e.table_id))
                .collect();
            let end = s.first.saturating_add(s.count).min(total);
            (s.first.min(end)..end).map(move |slot| SlotTables {
                slot,
                entries: entries.clone(),
            })
        })
        .collect();
}
