//! The shader model's rules, checked on a decoded program before it is lowered.
//!
//! Why: the decoder checks the token format, not what D3D's runtime validation requires of a
//! program (a system value only in the stages that have it, a thread-group size in every
//! compute shader, declared registers within their counts, a resource used only by the
//! instructions its kind allows, ...). A corrupt-yet-decodable program that breaks such a rule
//! would otherwise be lowered into SPIR-V that Vulkan forbids, and a driver handed invalid
//! SPIR-V may crash. Each rule is a [`Rule`]; [`check`] returns the first [`Violation`] with the
//! rule, what broke it and the byte offset of the instruction. Every rule names the Direct3D
//! text that backs it ([`Rule::source`], listed in `docs/rules.md`); where Direct3D accepts a
//! program that cannot be lowered as written, [`relax`] rewrites it to D3D's behaviour instead
//! of refusing it. Rules that only lowering can see stay in lowering.

pub mod d3d9;
pub mod doc;
pub mod relax;
mod sources;
#[cfg(test)]
mod tests;

use crate::TranslateError;
use crate::container::signature::{ComponentType, Signature, SystemValue};
use crate::lower::Signatures;
use crate::sm4::{
    Declaration, InstRef, Opcode, Operand, OperandType as T, Primitive, Program, ProgramType,
    ResourceDimension as Dim, SystemName,
};

/// A rule of the shader model that a program can break.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// `dcl_input*` declares an input register file, `dcl_output*` an output one.
    DeclRegisterFile,
    /// A register file used in a stage that has it (`oDepth` in pixel shaders, `g#` in
    /// compute shaders, `vicp` in hull and domain shaders, ...).
    RegisterFileInStage,
    /// A system value declared in a stage and direction that has it (no `position` output
    /// from a pixel or compute shader, no `vertex_id` outside vertex shader inputs, ...).
    SystemValueInStage,
    /// A signature element's system value belongs to the signature's stage and direction.
    SignatureSystemValue,
    /// Elements of one signature and stream do not share a register component.
    SignatureOverlap,
    /// A signature element's component type is one D3D defines (unknown, uint, int, float).
    SignatureComponentType,
    /// Signature streams are 0–3, and only geometry shader outputs have other than 0.
    SignatureStream,
    /// Declarations of one register file (in one hull shader phase, one stream) do not share
    /// a component.
    DeclOverlap,
    /// A compute shader declares its thread-group size once, within D3D's limits; other
    /// stages do not declare one.
    ThreadGroupSize,
    /// Stage state declared where required and only in its stage: a geometry shader's input
    /// primitive and vertex count, and its output topology when it declares streams or emits;
    /// a hull shader's control point counts and tessellator domain, partitioning and output
    /// primitive; a domain shader's domain.
    StageDeclaration,
    /// At most one depth output (`oDepth`, `oDepthGE`, `oDepthLE`), and the special pixel
    /// shader outputs are declared before they are written.
    DepthOutput,
    /// A store's UAV or shared-memory destination names at least one component (an empty
    /// mask on a register destination writes nothing: [`relax`] makes it `null`; an atomic's
    /// memory destination has no components to select).
    DestinationMask,
    /// `r#` below the phase's `dcl_temps` count; `x#` declared, with constant indices below
    /// its size.
    TempRange,
    /// Register index dimensions as the stage defines them (`v[vertex][register]` in
    /// geometry shaders, `v#` in vertex and pixel shaders, `o#` everywhere).
    IndexDimension,
    /// Constant vertex and control point indices below the declared counts; no register
    /// index (of a 64-bit representation) above 2^32 - 1.
    IndexRange,
    /// A resource or UAV used only by instructions its declared kind allows (`sample` on a
    /// texture, `ld_raw` on a raw buffer, `ld2dms` on a multisampled texture, ...).
    ResourceKind,
    /// Streams (`m#`) 0–3.
    StreamIndex,
    /// Declarations come before the code of the program (of the phase, in a hull shader).
    DeclarationOrder,
}

impl Rule {
    /// The rule's name, as errors print it.
    pub fn name(self) -> &'static str {
        match self {
            Rule::DeclRegisterFile => "decl-register-file",
            Rule::RegisterFileInStage => "register-file-in-stage",
            Rule::SystemValueInStage => "system-value-in-stage",
            Rule::SignatureSystemValue => "signature-system-value",
            Rule::SignatureOverlap => "signature-overlap",
            Rule::SignatureComponentType => "signature-component-type",
            Rule::SignatureStream => "signature-stream",
            Rule::DeclOverlap => "decl-overlap",
            Rule::ThreadGroupSize => "thread-group-size",
            Rule::StageDeclaration => "stage-declaration",
            Rule::DepthOutput => "depth-output",
            Rule::DestinationMask => "destination-mask",
            Rule::TempRange => "temp-range",
            Rule::IndexDimension => "index-dimension",
            Rule::IndexRange => "index-range",
            Rule::ResourceKind => "resource-kind",
            Rule::StreamIndex => "stream-index",
            Rule::DeclarationOrder => "declaration-order",
        }
    }
}

/// A broken rule: which, what broke it, and the byte offset of the instruction (or of the
/// program, for rules about the whole program or its signatures) with its opcode's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub rule: Rule,
    pub what: String,
    pub offset: usize,
    pub opcode: Option<&'static str>,
}

impl From<Violation> for TranslateError {
    fn from(v: Violation) -> Self {
        TranslateError::Invalid {
            what: v.what,
            offset: v.offset,
            opcode: v.opcode,
            rule: Some(v.rule.name()),
        }
    }
}

type R = Result<(), Violation>;

fn fail(rule: Rule, offset: usize, what: impl Into<String>) -> R {
    Err(Violation {
        rule,
        what: what.into(),
        offset,
        opcode: None,
    })
}

/// Checks `prog` and its signatures against the shader model's rules.
pub fn check(prog: &Program, sigs: Signatures<'_>) -> R {
    check_with(prog, sigs, &mut Scratch::default())
}

/// What [`check`] keeps from one program to the next (a [`crate::Translator`] holds one):
/// the lists of what the walk has seen, emptied before each program.
#[derive(Default)]
pub struct Scratch(Seen);

impl Scratch {
    /// Whether the program last checked has a register destination whose write mask names no
    /// component: the form [`relax::relax`] rewrites, which it then needs to run for.
    pub fn has_empty_destination(&self) -> bool {
        self.0.empty_destination
    }
}

/// [`check`], with the lists of `scratch` (their allocations kept for the next program).
pub fn check_with(prog: &Program, sigs: Signatures<'_>, scratch: &mut Scratch) -> R {
    let stage = prog.version.program_type;
    check_signatures(stage, sigs, prog.base_offset)?;
    scratch.0.reset();
    let mut c = Checker {
        stage,
        seen: &mut scratch.0,
    };
    for inst in prog.iter() {
        c.instruction(&inst).map_err(|mut v| {
            if v.offset == inst.offset {
                v.opcode = Some(inst.opcode.info().name);
            }
            v
        })?;
    }
    c.finish(prog.base_offset)
}

struct Checker<'s> {
    stage: ProgramType,
    seen: &'s mut Seen,
}

/// What the walk over the instructions has seen so far.
#[derive(Debug, Default)]
struct Seen {
    /// Hull shader phase number (0: declarations, then one per phase marker); every phase has
    /// its own temps and I/O declarations.
    phase: u32,
    stream: u32,
    temps: u32,
    /// Indexable temps of the phase: (register, size).
    indexable: Vec<(u32, u32)>,
    /// Declared input/output components: (phase, stream, is output, register) → mask.
    io_masks: Vec<((u32, u32, bool, u32), u8)>,
    thread_groups: u32,
    gs_input: Option<Primitive>,
    gs_topology: bool,
    gs_maxout: bool,
    /// An `emit*` instruction was seen (its vertices need an output topology).
    gs_emits: bool,
    /// A register destination writes no component (see [`Scratch::has_empty_destination`]).
    empty_destination: bool,
    input_cp: Option<u32>,
    output_cp: Option<u32>,
    tess_domain: bool,
    tess_partitioning: bool,
    tess_output: bool,
    has_cp_phase: bool,
    /// In a hull shader's control point phase.
    in_cp_phase: bool,
    /// Code (a non-declaration) seen in this phase.
    code_seen: bool,
    /// Declared special pixel outputs.
    depth_declared: Option<T>,
    special_outputs: Vec<T>,
    streams: Vec<u32>,
    /// Declared resources (`t#`, `u#`, `g#`) by file and first index: their kind.
    resources: Vec<((T, u32), Kind)>,
}

impl Seen {
    /// Empties this record in place for the next program (what `default()` makes), keeping
    /// its lists' allocations.
    fn reset(&mut self) {
        // Every field named, so that a new one cannot be left out.
        let Seen {
            phase,
            stream,
            temps,
            indexable,
            io_masks,
            thread_groups,
            gs_input,
            gs_topology,
            gs_maxout,
            gs_emits,
            empty_destination,
            input_cp,
            output_cp,
            tess_domain,
            tess_partitioning,
            tess_output,
            has_cp_phase,
            in_cp_phase,
            code_seen,
            depth_declared,
            special_outputs,
            streams,
            resources,
        } = self;
        *phase = 0;
        *stream = 0;
        *temps = 0;
        indexable.clear();
        io_masks.clear();
        *thread_groups = 0;
        *gs_input = None;
        *gs_topology = false;
        *gs_maxout = false;
        *gs_emits = false;
        *empty_destination = false;
        *input_cp = None;
        *output_cp = None;
        *tess_domain = false;
        *tess_partitioning = false;
        *tess_output = false;
        *has_cp_phase = false;
        *in_cp_phase = false;
        *code_seen = false;
        *depth_declared = None;
        special_outputs.clear();
        streams.clear();
        resources.clear();
    }
}

/// What a declared resource, UAV or shared-memory region is, for the instructions on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Typed(Dim),
    Raw,
    Structured,
}

const INPUT_FILES: &[T] = &[
    T::Input,
    T::InputPrimitiveId,
    T::InputCoverageMask,
    T::InputThreadId,
    T::InputThreadGroupId,
    T::InputThreadIdInGroup,
    T::InputThreadIdInGroupFlattened,
    T::InputControlPoint,
    T::OutputControlPoint,
    T::InputPatchConstant,
    T::InputDomainPoint,
    T::OutputControlPointId,
    T::InputForkInstanceId,
    T::InputJoinInstanceId,
    T::InputGsInstanceId,
    T::InnerCoverage,
    T::CycleCounter,
];

const OUTPUT_FILES: &[T] = &[
    T::Output,
    T::OutputDepth,
    T::OutputDepthGreaterEqual,
    T::OutputDepthLessEqual,
    T::OutputCoverageMask,
    T::OutputStencilRef,
];

/// The stages a register file exists in, one bit per stage (`1 << ProgramType`); every bit
/// set for files every stage has. A bit mask (rather than a list to search) because every
/// operand of the program is looked up.
fn file_stages(ty: T) -> u8 {
    use ProgramType::*;
    const fn mask(stages: &[ProgramType]) -> u8 {
        let mut m = 0;
        let mut i = 0;
        while i < stages.len() {
            m |= 1 << stages[i] as u8;
            i += 1;
        }
        m
    }
    match ty {
        T::OutputDepth
        | T::OutputDepthGreaterEqual
        | T::OutputDepthLessEqual
        | T::OutputCoverageMask
        | T::OutputStencilRef
        | T::InputCoverageMask
        | T::InnerCoverage => const { mask(&[Pixel]) },
        T::InputThreadId
        | T::InputThreadGroupId
        | T::InputThreadIdInGroup
        | T::InputThreadIdInGroupFlattened
        | T::ThreadGroupSharedMemory => const { mask(&[Compute]) },
        T::OutputControlPointId
        | T::InputForkInstanceId
        | T::InputJoinInstanceId
        | T::OutputControlPoint => const { mask(&[Hull]) },
        T::InputControlPoint | T::InputPatchConstant => const { mask(&[Hull, Domain]) },
        T::InputDomainPoint => const { mask(&[Domain]) },
        T::InputGsInstanceId | T::Stream => const { mask(&[Geometry]) },
        T::InputPrimitiveId => const { mask(&[Geometry, Hull, Domain, Pixel]) },
        T::Input => const { mask(&[Vertex, Pixel, Geometry, Hull]) },
        T::Output => const { mask(&[Vertex, Pixel, Geometry, Hull, Domain]) },
        _ => u8::MAX,
    }
}

/// The system values a stage may declare on its inputs (`output` false) or outputs, by
/// declaration name (`docs/rules.md`, `system-value-in-stage`). The system-interpreted values
/// (position, clip and cull distances, render-target and viewport indices) are allowed on every
/// input and output of the vertex-processing stages and on pixel shader inputs: where nothing
/// interprets them D3D passes them along as unnamed data (D3D11.3 §24.1–24.5), and so does
/// lowering. Pixel shader outputs have none (§22.3.32); the system-generated values are allowed
/// where §23 says the stage receives them, and `primitive_id` as a geometry shader output
/// (§22.3.33).
fn system_name_allowed(stage: ProgramType, output: bool, name: SystemName) -> bool {
    use ProgramType::*;
    use SystemName as N;
    let interpreted = matches!(
        name,
        N::Position
            | N::ClipDistance
            | N::CullDistance
            | N::RenderTargetArrayIndex
            | N::ViewportArrayIndex
    );
    let tess_factor = (N::FinalQuadUEq0EdgeTessFactor as u32
        ..=N::FinalLineDensityTessFactor as u32)
        .contains(&(name as u32));
    match (stage, output) {
        (_, _) if name == N::Undefined => true,
        (Compute, _) | (Pixel, true) => false,
        (_, _) if interpreted => true,
        (Vertex, false) => matches!(name, N::VertexId | N::InstanceId),
        (Vertex | Domain, true) => false,
        (Hull, true) => tess_factor,
        (Hull | Domain, false) => tess_factor || name == N::PrimitiveId,
        (Geometry, _) => name == N::PrimitiveId,
        (Pixel, false) => matches!(
            name,
            N::PrimitiveId
                | N::IsFrontFace
                | N::SampleIndex
                | N::Barycentrics
                | N::ShadingRate
                | N::CullPrimitive
        ),
    }
}

/// The same for a signature element's stored system value (`output` false: input signature).
fn system_value_allowed(stage: ProgramType, output: bool, sv: SystemValue) -> bool {
    use ProgramType::*;
    use SystemValue as V;
    let name = match sv {
        V::Undefined => return true,
        V::Target
        | V::Depth
        | V::Coverage
        | V::DepthGreaterEqual
        | V::DepthLessEqual
        | V::StencilRef => return stage == Pixel && output,
        V::InnerCoverage => return stage == Pixel && !output,
        V::Position => SystemName::Position,
        V::ClipDistance => SystemName::ClipDistance,
        V::CullDistance => SystemName::CullDistance,
        V::RenderTargetArrayIndex => SystemName::RenderTargetArrayIndex,
        V::ViewportArrayIndex => SystemName::ViewportArrayIndex,
        V::VertexId => SystemName::VertexId,
        V::PrimitiveId => SystemName::PrimitiveId,
        V::InstanceId => SystemName::InstanceId,
        V::IsFrontFace => SystemName::IsFrontFace,
        V::SampleIndex => SystemName::SampleIndex,
        V::FinalQuadEdgeTessFactor
        | V::FinalQuadInsideTessFactor
        | V::FinalTriEdgeTessFactor
        | V::FinalTriInsideTessFactor
        | V::FinalLineDetailTessFactor
        | V::FinalLineDensityTessFactor => SystemName::FinalTriInsideTessFactor,
        V::Barycentrics => SystemName::Barycentrics,
        V::ShadingRate => SystemName::ShadingRate,
        V::CullPrimitive => SystemName::CullPrimitive,
        V::Other(_) => return false,
    };
    system_name_allowed(stage, output, name)
}

fn check_signatures(stage: ProgramType, sigs: Signatures<'_>, offset: usize) -> R {
    let all = [
        (sigs.input, false),
        (sigs.output, true),
        // Patch constants: hull shader outputs, domain shader inputs.
        (sigs.patch, stage == ProgramType::Hull),
    ];
    for (sig, output) in all {
        let Some(sig) = sig else { continue };
        check_signature(stage, sig, output, offset)?;
    }
    Ok(())
}

fn check_signature(stage: ProgramType, sig: &Signature<'_>, output: bool, offset: usize) -> R {
    let name = |e: &crate::container::signature::SignatureElement<'_>| {
        format!(
            "{} element {}{}",
            sig.tag,
            e.semantic_name.escape_debug(),
            e.semantic_index
        )
    };
    for (i, e) in sig.elements.iter().enumerate() {
        if e.stream > 3 || (e.stream != 0 && !(stage == ProgramType::Geometry && output)) {
            return fail(
                Rule::SignatureStream,
                offset,
                format!("{} is on stream {}", name(e), e.stream),
            );
        }
        if !system_value_allowed(stage, output, e.system_value) {
            return fail(
                Rule::SignatureSystemValue,
                offset,
                format!(
                    "{} has system value {:?}, which a {} {} cannot have",
                    name(e),
                    e.system_value,
                    stage.name(),
                    if output { "output" } else { "input" }
                ),
            );
        }
        if let ComponentType::Other(t) = e.component_type {
            return fail(
                Rule::SignatureComponentType,
                offset,
                format!("{} has component type {t}", name(e)),
            );
        }
        if e.has_no_register() {
            continue;
        }
        if let Some(o) = sig.elements[..i].iter().find(|o| {
            !o.has_no_register()
                && o.stream == e.stream
                && o.register == e.register
                && o.mask & e.mask & 0xf != 0
        }) {
            return fail(
                Rule::SignatureOverlap,
                offset,
                format!(
                    "{} and {} share components of register {}",
                    name(o),
                    name(e),
                    e.register
                ),
            );
        }
    }
    Ok(())
}

impl Checker<'_> {
    fn instruction(&mut self, inst: &InstRef<'_>) -> R {
        let at = inst.offset;
        match inst.opcode {
            Opcode::HsDecls => self.seen.phase = 0,
            Opcode::HsControlPointPhase | Opcode::HsForkPhase | Opcode::HsJoinPhase => {
                self.seen.phase += 1;
                self.seen.temps = 0;
                self.seen.indexable.clear();
                self.seen.in_cp_phase = inst.opcode == Opcode::HsControlPointPhase;
                self.seen.has_cp_phase |= self.seen.in_cp_phase;
                self.seen.code_seen = false;
            }
            Opcode::Emit | Opcode::EmitStream | Opcode::EmitThenCut | Opcode::EmitThenCutStream => {
                self.seen.gs_emits = true
            }
            _ => {}
        }
        let info = inst.info();
        let decl = info.is_declaration();
        if self.seen.code_seen && inst.decl().is_some() {
            return fail(
                Rule::DeclarationOrder,
                at,
                format!("{} after code", info.name),
            );
        }
        if !decl
            && !matches!(
                inst.opcode,
                Opcode::HsDecls
                    | Opcode::HsControlPointPhase
                    | Opcode::HsForkPhase
                    | Opcode::HsJoinPhase
            )
        {
            self.seen.code_seen = true;
        }
        // A declaration's first index of a vertex or control point array is the count.
        for op in inst.operands {
            self.operand(op, decl, at)?;
            if op.is_relative() {
                for i in op.indices() {
                    if let Some(rel) = inst.rel(&i) {
                        self.operand(rel, false, at)?;
                    }
                }
            }
        }
        if let Some(d) = inst.decl() {
            return self.declaration(inst, d);
        }
        if decl {
            return Ok(());
        }
        let n_dsts = info.dsts().min(inst.operands.len());
        for op in &inst.operands[..n_dsts] {
            self.seen.empty_destination |= relax::writes_nothing(op);
            if let crate::sm4::Components::Mask(0) = op.components
                && matches!(op.ty, T::UnorderedAccessView | T::ThreadGroupSharedMemory)
                && matches!(
                    inst.opcode,
                    Opcode::StoreRaw | Opcode::StoreStructured | Opcode::StoreUavTyped
                )
            {
                return fail(
                    Rule::DestinationMask,
                    at,
                    format!("{} writes no component", info.name),
                );
            }
            if matches!(
                op.ty,
                T::OutputDepth
                    | T::OutputDepthGreaterEqual
                    | T::OutputDepthLessEqual
                    | T::OutputCoverageMask
                    | T::OutputStencilRef
            ) && !self.seen.special_outputs.contains(&op.ty)
            {
                return fail(
                    Rule::DepthOutput,
                    at,
                    format!("{} written but not declared", op.ty.name()),
                );
            }
        }
        self.resource_use(inst)
    }

    /// Rules on one operand wherever it appears. The shapes nearly every operand has (an
    /// immediate, `r#` below the temp count, `cb#`/`icb`/`t#`/`s#`/`u#` with 32-bit indices,
    /// `v#`/`o#` with one index in a stage where that is their form) pass here with the few
    /// tests that decide them; the rest get [`Checker::operand_full`]. Debug builds (the tests)
    /// check every fast pass against the full rules, so the two cannot drift apart unseen.
    #[inline(always)]
    fn operand(&self, op: &Operand, decl: bool, at: usize) -> R {
        let dims = op.index_dim();
        let passes = match op.ty {
            T::Immediate32 | T::Immediate64 | T::Null => dims == 0,
            T::Temp => dims == 1 && op.imm_index(0).is_some_and(|r| r < self.seen.temps as u64),
            T::ConstantBuffer
            | T::ImmediateConstantBuffer
            | T::Resource
            | T::Sampler
            | T::UnorderedAccessView => op.wide_index().is_none(),
            T::Output => {
                dims == 1 && self.stage != ProgramType::Compute && op.wide_index().is_none()
            }
            T::Input => {
                dims == 1
                    && matches!(self.stage, ProgramType::Vertex | ProgramType::Pixel)
                    && op.wide_index().is_none()
            }
            _ => false,
        };
        if passes {
            debug_assert!(
                self.operand_full(op, decl, at).is_ok(),
                "rules: the fast path passed an operand the full rules refuse: {op:?}"
            );
            Ok(())
        } else {
            self.operand_full(op, decl, at)
        }
    }

    /// Every rule on one operand.
    #[inline(never)]
    fn operand_full(&self, op: &Operand, decl: bool, at: usize) -> R {
        if file_stages(op.ty) & (1 << self.stage as u8) == 0 {
            return fail(
                Rule::RegisterFileInStage,
                at,
                format!(
                    "register file {} in a {} program",
                    op.ty.name(),
                    self.stage.name()
                ),
            );
        }
        if op.ty == T::Input && self.stage == ProgramType::Hull && !self.seen.in_cp_phase {
            return fail(
                Rule::RegisterFileInStage,
                at,
                "v# outside a hull shader's control point phase",
            );
        }
        let dims = op.index_dim();
        let want = match (op.ty, self.stage) {
            (T::Input, ProgramType::Geometry) => Some(2),
            (T::Input, ProgramType::Vertex | ProgramType::Pixel) => Some(1),
            (T::Input, ProgramType::Hull) => Some(2),
            (T::Output, _) | (T::Temp, _) | (T::InputPatchConstant, _) => Some(1),
            (T::InputControlPoint | T::OutputControlPoint | T::IndexableTemp, _) => Some(2),
            _ => None,
        };
        if let Some(want) = want
            && dims != want
        {
            return fail(
                Rule::IndexDimension,
                at,
                format!(
                    "{} register with {dims} indices (a {} program's have {want})",
                    op.ty.name(),
                    self.stage.name()
                ),
            );
        }
        if let Some(big) = op.wide_index() {
            // A 64-bit index representation may hold more than any register file has; the
            // translator reads indices as 32 bits, so a larger one must not be truncated.
            return fail(
                Rule::IndexRange,
                at,
                format!("{} register index {} (above 2^32 - 1)", op.ty.name(), big),
            );
        }
        let imm = |i: usize| op.imm_index(i);
        match op.ty {
            T::Temp => {
                if let Some(r) = imm(0)
                    && r >= self.seen.temps as u64
                {
                    return fail(
                        Rule::TempRange,
                        at,
                        format!("r{r} beyond dcl_temps {}", self.seen.temps),
                    );
                }
            }
            T::IndexableTemp => {
                let Some(r) = imm(0) else { return Ok(()) };
                let Some(&(_, size)) = self.seen.indexable.iter().find(|(x, _)| *x as u64 == r)
                else {
                    return fail(Rule::TempRange, at, format!("x{r} not declared"));
                };
                if let Some(i) = imm(1)
                    && i >= size as u64
                {
                    return fail(
                        Rule::TempRange,
                        at,
                        format!("x{r}[{i}] beyond its size {size}"),
                    );
                }
            }
            _ if decl => {}
            T::Input if self.stage == ProgramType::Geometry => {
                let count = self.seen.gs_input.and_then(vertex_count);
                if let (Some(v), Some(n)) = (imm(0), count)
                    && v >= n as u64
                {
                    return fail(
                        Rule::IndexRange,
                        at,
                        format!("input vertex {v} of a {n}-vertex primitive"),
                    );
                }
            }
            T::InputControlPoint | T::OutputControlPoint => {
                let count = if op.ty == T::InputControlPoint {
                    self.seen.input_cp
                } else {
                    self.seen.output_cp
                };
                if let (Some(v), Some(n)) = (imm(0), count)
                    && v >= n as u64
                {
                    return fail(
                        Rule::IndexRange,
                        at,
                        format!("control point {v} of {n} ({})", op.ty.name()),
                    );
                }
            }
            T::Stream => {
                if let Some(m) = imm(0)
                    && m > 3
                {
                    return fail(Rule::StreamIndex, at, format!("stream m{m} (at most m3)"));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn declaration(&mut self, inst: &InstRef<'_>, decl: &Declaration) -> R {
        use Declaration as D;
        use ProgramType::*;
        let at = inst.offset;
        let reg = inst.operands.first();
        let stage_only = |stages: &[ProgramType]| -> R {
            if stages.contains(&self.stage) {
                Ok(())
            } else {
                fail(
                    Rule::StageDeclaration,
                    at,
                    format!("{} in a {} program", inst.info().name, self.stage.name()),
                )
            }
        };
        match decl {
            D::Input
            | D::InputSgv(_)
            | D::InputSiv(_)
            | D::InputPs(_)
            | D::InputPsSgv(..)
            | D::InputPsSiv(..)
            | D::Output
            | D::OutputSgv(_)
            | D::OutputSiv(_) => {
                let output = matches!(decl, D::Output | D::OutputSgv(_) | D::OutputSiv(_));
                let Some(reg) = reg else { return Ok(()) };
                let files = if output { OUTPUT_FILES } else { INPUT_FILES };
                if !files.contains(&reg.ty) {
                    return fail(
                        Rule::DeclRegisterFile,
                        at,
                        format!(
                            "{} declares register file {}",
                            inst.info().name,
                            reg.ty.name()
                        ),
                    );
                }
                if matches!(decl, D::InputPs(_) | D::InputPsSgv(..) | D::InputPsSiv(..))
                    && self.stage != Pixel
                {
                    stage_only(&[Pixel])?;
                }
                if let Some(name) = decl.system_name()
                    && !system_name_allowed(self.stage, output, name)
                {
                    return fail(
                        Rule::SystemValueInStage,
                        at,
                        format!(
                            "{} {}, which a {} program cannot have",
                            if output { "output" } else { "input" },
                            name.name(),
                            self.stage.name()
                        ),
                    );
                }
                self.io_declaration(reg, output, at)?;
            }
            D::Temps(n) => self.seen.temps = *n,
            D::IndexableTemp { register, size, .. } => {
                self.seen.indexable.push((*register, *size));
            }
            D::ThreadGroup(size) => {
                stage_only(&[Compute])?;
                self.seen.thread_groups += 1;
                let [x, y, z] = *size;
                let ok = self.seen.thread_groups == 1
                    && size.iter().all(|&n| n >= 1)
                    && x <= 1024
                    && y <= 1024
                    && z <= 64
                    && (x as u64) * (y as u64) * (z as u64) <= 1024;
                if !ok {
                    return fail(
                        Rule::ThreadGroupSize,
                        at,
                        format!(
                            "thread group {x}×{y}×{z} (declared {} times; each of x, y at most 1024, z at most 64, at most 1024 threads)",
                            self.seen.thread_groups
                        ),
                    );
                }
            }
            D::GsInputPrimitive(p) => {
                stage_only(&[Geometry])?;
                self.seen.gs_input = Some(*p);
            }
            D::GsOutputTopology(_) => {
                stage_only(&[Geometry])?;
                self.seen.gs_topology = true;
            }
            D::MaxOutputVertexCount(_) => {
                stage_only(&[Geometry])?;
                self.seen.gs_maxout = true;
            }
            D::GsInstanceCount(_) => stage_only(&[Geometry])?,
            D::Stream => {
                stage_only(&[Geometry])?;
                if let Some(m) = reg.and_then(Operand::register) {
                    self.seen.stream = m;
                    self.seen.streams.push(m);
                }
            }
            D::InputControlPointCount(n) => {
                stage_only(&[Hull, Domain])?;
                self.seen.input_cp = Some(*n as u32);
            }
            D::OutputControlPointCount(n) => {
                stage_only(&[Hull])?;
                self.seen.output_cp = Some(*n as u32);
            }
            D::TessDomain(_) => {
                stage_only(&[Hull, Domain])?;
                self.seen.tess_domain = true;
            }
            D::TessPartitioning(_) => {
                stage_only(&[Hull])?;
                self.seen.tess_partitioning = true;
            }
            D::TessOutputPrimitive(_) => {
                stage_only(&[Hull])?;
                self.seen.tess_output = true;
            }
            D::HsMaxTessFactor(_)
            | D::HsForkPhaseInstanceCount(_)
            | D::HsJoinPhaseInstanceCount(_) => stage_only(&[Hull])?,
            D::TgsmRaw { .. } | D::TgsmStructured { .. } => {
                stage_only(&[Compute])?;
                self.resource_declaration(reg, decl);
            }
            D::Resource { .. }
            | D::ResourceRaw { .. }
            | D::ResourceStructured { .. }
            | D::UavTyped { .. }
            | D::UavRaw { .. }
            | D::UavStructured { .. } => self.resource_declaration(reg, decl),
            _ => {}
        }
        Ok(())
    }

    /// Records a declared `v#`/`o#` (and the special pixel outputs), rejecting components
    /// declared twice in one phase and stream.
    fn io_declaration(&mut self, reg: &Operand, output: bool, at: usize) -> R {
        if matches!(
            reg.ty,
            T::OutputDepth | T::OutputDepthGreaterEqual | T::OutputDepthLessEqual
        ) {
            if let Some(d) = self.seen.depth_declared
                && d != reg.ty
            {
                return fail(
                    Rule::DepthOutput,
                    at,
                    format!("{} declared besides {}", reg.ty.name(), d.name()),
                );
            }
            self.seen.depth_declared = Some(reg.ty);
        }
        if OUTPUT_FILES[1..].contains(&reg.ty) {
            self.seen.special_outputs.push(reg.ty);
            return Ok(());
        }
        if !matches!(reg.ty, T::Input | T::Output) {
            return Ok(());
        }
        // The register is the last index (`v[3][1]`: register 1 of 3 vertices).
        let Some(r) = reg
            .index(reg.index_dim().saturating_sub(1))
            .and_then(|i| i.as_immediate())
        else {
            return Ok(());
        };
        let mask = reg.mask();
        let key = (self.seen.phase, self.seen.stream, output, r as u32);
        match self.seen.io_masks.iter_mut().find(|(k, _)| *k == key) {
            Some((_, m)) if *m & mask != 0 => fail(
                Rule::DeclOverlap,
                at,
                format!(
                    "components of {}{r} declared twice",
                    if output { "o" } else { "v" }
                ),
            ),
            Some((_, m)) => {
                *m |= mask;
                Ok(())
            }
            None => {
                self.seen.io_masks.push((key, mask));
                Ok(())
            }
        }
    }

    fn resource_declaration(&mut self, reg: Option<&Operand>, decl: &Declaration) {
        use Declaration as D;
        let Some(reg) = reg else { return };
        let Some(id) = reg.register() else { return };
        let kind = match decl {
            D::Resource { dim, .. } | D::UavTyped { dim, .. } => Kind::Typed(*dim),
            D::ResourceRaw { .. } | D::UavRaw { .. } | D::TgsmRaw { .. } => Kind::Raw,
            _ => Kind::Structured,
        };
        self.seen.resources.push(((reg.ty, id), kind));
    }

    /// The kind of the resource operand `op`, when it is a declared `t#`, `u#` or `g#`.
    fn kind_of(&self, op: &Operand) -> Option<Kind> {
        let id = op.register()?;
        self.seen
            .resources
            .iter()
            .find(|(k, _)| *k == (op.ty, id))
            .map(|(_, kind)| *kind)
    }

    fn resource_use(&self, inst: &InstRef<'_>) -> R {
        use Opcode as O;
        let at = inst.offset;
        const TEX: &[T] = &[T::Resource];
        const UAV: &[T] = &[T::UnorderedAccessView];
        const STORE: &[T] = &[T::UnorderedAccessView, T::ThreadGroupSharedMemory];
        const VIEW: &[T] = &[T::Resource, T::UnorderedAccessView];
        const ANY: &[T] = &[
            T::Resource,
            T::UnorderedAccessView,
            T::ThreadGroupSharedMemory,
        ];
        let sampled = |k: Kind| matches!(k, Kind::Typed(d) if texture_dim(d));
        let (files, allowed): (&[T], fn(Kind) -> bool) = match inst.opcode {
            O::Sample
            | O::SampleC
            | O::SampleCLz
            | O::SampleL
            | O::SampleD
            | O::SampleB
            | O::Lod
            | O::SampleLS
            | O::SampleCLzS
            | O::SampleClampS
            | O::SampleBClampS
            | O::SampleDClampS
            | O::SampleCClampS => (TEX, sampled),
            O::Gather4
            | O::Gather4C
            | O::Gather4Po
            | O::Gather4PoC
            | O::Gather4S
            | O::Gather4CS
            | O::Gather4PoS
            | O::Gather4PoCS => (TEX, |k| {
                matches!(
                    k,
                    Kind::Typed(
                        Dim::Texture2D
                            | Dim::Texture2DArray
                            | Dim::TextureCube
                            | Dim::TextureCubeArray
                    )
                )
            }),
            O::Ld | O::LdS => (TEX, |k| {
                matches!(
                    k,
                    Kind::Typed(
                        Dim::Buffer
                            | Dim::Texture1D
                            | Dim::Texture2D
                            | Dim::Texture3D
                            | Dim::Texture1DArray
                            | Dim::Texture2DArray
                    )
                )
            }),
            O::LdMs | O::LdMsS => (TEX, |k| matches!(k, Kind::Typed(d) if d.is_multisampled())),
            O::ResInfo => (VIEW, |k| {
                matches!(k, Kind::Typed(d) if d != Dim::Buffer && d != Dim::Unknown
                    && d != Dim::RawBuffer && d != Dim::StructuredBuffer)
            }),
            O::BufInfo => (VIEW, |k| {
                matches!(k, Kind::Typed(Dim::Buffer) | Kind::Raw | Kind::Structured)
            }),
            O::LdUavTyped | O::LdUavTypedS | O::StoreUavTyped => {
                (UAV, |k| matches!(k, Kind::Typed(d) if d != Dim::Unknown))
            }
            O::LdRaw | O::LdRawS => (ANY, |k| k == Kind::Raw),
            O::StoreRaw => (STORE, |k| k == Kind::Raw),
            O::LdStructured | O::LdStructuredS => (ANY, |k| k == Kind::Structured),
            O::StoreStructured => (STORE, |k| k == Kind::Structured),
            O::ImmAtomicAlloc | O::ImmAtomicConsume => (UAV, |k| k == Kind::Structured),
            _ => return Ok(()),
        };
        for op in inst.operands {
            if !matches!(
                op.ty,
                T::Resource | T::UnorderedAccessView | T::ThreadGroupSharedMemory
            ) {
                continue;
            }
            if !files.contains(&op.ty) {
                return fail(
                    Rule::ResourceKind,
                    at,
                    format!("{} on register file {}", inst.info().name, op.ty.name()),
                );
            }
            if let Some(kind) = self.kind_of(op)
                && !allowed(kind)
            {
                return fail(
                    Rule::ResourceKind,
                    at,
                    format!(
                        "{} on {}{} declared as {}",
                        inst.info().name,
                        op.ty.name(),
                        op.register().unwrap_or_default(),
                        match kind {
                            Kind::Typed(d) => d.name(),
                            Kind::Raw => "raw",
                            Kind::Structured => "structured",
                        }
                    ),
                );
            }
        }
        Ok(())
    }

    /// Rules on the whole program, after the walk.
    fn finish(&self, at: usize) -> R {
        use ProgramType::*;
        let missing = |what: &str| {
            fail(
                Rule::StageDeclaration,
                at,
                format!("a {} program without {what}", self.stage.name()),
            )
        };
        match self.stage {
            Compute if self.seen.thread_groups == 0 => {
                return fail(
                    Rule::ThreadGroupSize,
                    at,
                    "a compute program without dcl_thread_group",
                );
            }
            Geometry if self.seen.gs_input.is_none() => return missing("dcl_inputprimitive"),
            // D3D creates a geometry shader that neither emits nor declares streams without an
            // output topology (fxc leaves it out when there is no stream object); lowering
            // makes it a point-list shader with no output.
            Geometry if !self.seen.gs_topology && !self.seen.streams.is_empty() => {
                return missing("dcl_outputtopology (it declares streams)");
            }
            Geometry if !self.seen.gs_topology && self.seen.gs_emits => {
                return missing("dcl_outputtopology (it emits vertices)");
            }
            Geometry if !self.seen.gs_maxout => return missing("dcl_maxout"),
            Hull if self.seen.input_cp.is_none() => {
                return missing("dcl_input_control_point_count");
            }
            Hull if !self.seen.tess_domain => return missing("dcl_tessellator_domain"),
            Hull if !self.seen.tess_partitioning => return missing("dcl_tessellator_partitioning"),
            Hull if !self.seen.tess_output => return missing("dcl_tessellator_output_primitive"),
            Domain if !self.seen.tess_domain => return missing("dcl_tessellator_domain"),
            _ => {}
        }
        Ok(())
    }
}

fn texture_dim(d: Dim) -> bool {
    matches!(
        d,
        Dim::Texture1D
            | Dim::Texture2D
            | Dim::Texture3D
            | Dim::TextureCube
            | Dim::Texture1DArray
            | Dim::Texture2DArray
            | Dim::TextureCubeArray
    )
}

/// Vertices of a geometry shader's input primitive.
fn vertex_count(p: Primitive) -> Option<u32> {
    Some(match p {
        Primitive::Point => 1,
        Primitive::Line => 2,
        Primitive::Triangle => 3,
        Primitive::LineAdj => 4,
        Primitive::TriangleAdj => 6,
        Primitive::Patch(n) => n as u32,
        Primitive::Undefined => return None,
    })
}
