//! Lowering: a decoded SM4/5 program becomes an IR module.
//!
//! One walk over the instructions. Declarations create globals (stage inputs and outputs from
//! the signatures, resources, constant buffers, indexable temps) and record reflection; every
//! other instruction appends typed IR to the current block. D3D's untyped `r#`/`o#` register
//! components become promotable `u32` variables that the SSA pass removes; values are bitcast
//! to the type each instruction needs and the simplifier removes the round trips. Control flow
//! becomes plain blocks and branches (see [`flow`]); the structurizer rebuilds SPIR-V's
//! structure afterwards.
//!
//! The work is split by topic: [`io`] (declarations, interface variables, built-ins, entry
//! loads, register access, exit stores; one module each),
//! [`regs`] (reading and writing operands), [`flow`], [`alu`], [`resources`]. The
//! geometry and tessellation stages add [`stage_io`] (per-vertex arrays, patch constants,
//! their system values), [`geometry`] (GS declarations, emit/cut, streams), [`tess`]
//! (tessellator declarations and tessellation factors) and [`hull`] (the hull shader's
//! phases as one tessellation control shader).

mod alu;
mod alu_bits;
mod alu_convert;
mod alu_double;
mod classes;
mod error;
mod eval;
mod flow;
mod geometry;
mod hull;
mod icb_buffer;
mod io;
mod memory;
mod query;
mod regs;
mod resources;
mod route;
mod rov;
mod stage_io;
mod tess;
mod texel_views;
mod texture;

use crate::container::signature::Signature;
use crate::ir::builder::FnBuilder;
use crate::ir::{GlobalId, Module, VarId};
use crate::options::Options;
use crate::reflect::{Name, Reflection, ShaderStage};
use crate::sm4::{InstRef, Program};
pub(crate) use flow::{declare_demote, demote};
use route::Topic;

pub use error::LowerError;
#[cfg(test)]
pub(crate) use flow::MAX_FLOW_DEPTH;
pub(crate) use io::IoState;
pub(crate) use resources::ResourceState;

/// The signatures of a program (each may be absent).
#[derive(Debug, Default, Clone, Copy)]
pub struct Signatures<'s> {
    pub input: Option<&'s Signature<'s>>,
    pub output: Option<&'s Signature<'s>>,
    pub patch: Option<&'s Signature<'s>>,
}

type R<T> = Result<T, LowerError>;

/// The globals behind reflection entries, parallel to the reflection's lists.
#[derive(Debug, Default, Clone)]
pub struct ReflectionGlobals {
    pub inputs: Vec<GlobalId>,
    pub outputs: Vec<GlobalId>,
    pub patch_constants: Vec<GlobalId>,
    pub descriptors: Vec<GlobalId>,
}

/// The lowering's per-program state kept from one translation to the next (by the
/// [`Translator`](crate::Translator)), so that its lists and maps keep their allocations. Each part
/// is emptied ([`IoState::recycled`] and the like) before the next program uses it: no
/// program state crosses translations.
#[derive(Debug, Default)]
pub(crate) struct LowerScratch {
    temps: Vec<[Option<VarId>; 4]>,
    io: IoState,
    res: ResourceState,
    flow: flow::FlowState,
    refl_globals: ReflectionGlobals,
}

impl LowerScratch {
    /// Keeps the buffers of a finished translation's reflection globals for the next.
    pub(crate) fn keep_globals(&mut self, globals: ReflectionGlobals) {
        self.refl_globals = globals;
    }

    /// Empties the lowering's state in place for the next program (the reflection globals'
    /// lists are emptied where they are taken), keeping the allocations.
    pub(crate) fn recycle(&mut self) {
        self.temps.clear();
        self.io.recycle();
        self.res.recycle();
        self.flow.recycle();
    }

    /// What the kept state holds, as text (contents, not capacities; tests of `recycle`).
    #[cfg(test)]
    pub(crate) fn contents(&self) -> String {
        format!(
            "{:?}\n{:?}\n{:?}\n{:?}",
            self.temps, self.io, self.res, self.flow
        )
    }

    /// The kept reflection globals' lists, emptied (for the D3D9 lowering; the SM4 lowering
    /// takes them itself).
    pub(crate) fn take_globals(&mut self) -> ReflectionGlobals {
        std::mem::take(&mut self.refl_globals).recycled()
    }
}

/// Collections emptied with their allocations kept (state recycled for the next program).
pub(crate) trait Emptied {
    /// `self` with no contents and its allocation kept.
    fn emptied(self) -> Self;
}

impl<T> Emptied for Vec<T> {
    fn emptied(mut self) -> Self {
        self.clear();
        self
    }
}

impl<K, V, S> Emptied for std::collections::HashMap<K, V, S> {
    fn emptied(mut self) -> Self {
        self.clear();
        self
    }
}

impl<T, S> Emptied for std::collections::HashSet<T, S> {
    fn emptied(mut self) -> Self {
        self.clear();
        self
    }
}

impl ReflectionGlobals {
    /// These lists emptied, their allocations kept.
    fn recycled(self) -> Self {
        let ReflectionGlobals {
            inputs,
            outputs,
            patch_constants,
            descriptors,
        } = self;
        ReflectionGlobals {
            inputs: inputs.emptied(),
            outputs: outputs.emptied(),
            patch_constants: patch_constants.emptied(),
            descriptors: descriptors.emptied(),
        }
    }
}

/// State of the lowering of one program. Its fields are private to `lower`; the state of the
/// I/O and flow components (`io`, `flow`) is private to them, used elsewhere through methods
/// (`res` and `stage_info` still expose their fields to the modules that share them).
pub(crate) struct Lowerer<'p, 'm> {
    b: FnBuilder<'m>,
    prog: &'p Program,
    sigs: Signatures<'p>,
    opts: &'p Options,
    stage: ShaderStage,
    /// `r#` components as promotable variables, created on first use.
    temps: &'m mut Vec<[Option<VarId>; 4]>,
    io: &'m mut IoState,
    res: &'m mut ResourceState,
    flow: &'m mut flow::FlowState,
    refl: &'m mut Reflection,
    /// Byte offset of the instruction being lowered (for errors).
    offset: usize,
    /// The opcode of the instruction being lowered, when one is at fault (for errors; see
    /// [`Lowerer::at`]).
    opcode: Option<crate::sm4::Opcode>,
    /// The globals behind reflection entries (parallel to `refl`'s lists), so that entries
    /// whose variable the finished module does not use can be marked or dropped.
    refl_globals: ReflectionGlobals,
    /// Geometry and tessellation stage facts (primitive types, control point counts,
    /// tessellator modes) and the hull shader's phase state.
    stage_info: stage_io::StageInfo,
    /// Every declaration has been processed already (hull shaders: declarations of all phases
    /// are read before any code), so declarations met in code are skipped.
    decls_done: bool,
    /// The program lacks `refactoringAllowed` (fxc /Gis): all float arithmetic is `precise`.
    all_precise: bool,
    /// Class linkage: interfaces, function tables and bodies, the class-instance buffer.
    classes: classes::ClassState,
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// An unsupported error at the instruction being lowered.
    pub fn unsupported(&self, what: impl Into<String>) -> LowerError {
        LowerError::Unsupported {
            what: what.into(),
            offset: self.offset,
            opcode: self.opcode.map(|o| o.info().name),
        }
    }

    /// An invalid-program error at the instruction being lowered.
    pub fn invalid(&self, what: impl Into<String>) -> LowerError {
        LowerError::Invalid {
            what: what.into(),
            offset: self.offset,
            opcode: self.opcode.map(|o| o.info().name),
            rule: None,
        }
    }

    /// Errors from now on are at `inst` (its offset and opcode).
    pub fn at(&mut self, inst: &crate::sm4::Instruction) {
        self.offset = inst.offset;
        self.opcode = Some(inst.opcode);
    }

    /// The variable holding component `c` of `r{reg}`.
    #[inline]
    pub fn temp_var(&mut self, reg: u32, c: u8) -> R<VarId> {
        // Nearly always the variable exists already: that check stays inline at the caller.
        if let Some(&Some(v)) = self.temps.get(reg as usize).map(|t| &t[c as usize]) {
            return Ok(v);
        }
        self.new_temp_var(reg, c)
    }

    /// [`Lowerer::temp_var`] of a component not used before: its variable, made now.
    #[inline(never)]
    fn new_temp_var(&mut self, reg: u32, c: u8) -> R<VarId> {
        let reg = reg as usize;
        if reg >= self.temps.len() {
            // dcl_temps bounds the register count; be lenient but bounded.
            if reg >= 65536 {
                return Err(self.invalid(format!("temp register r{reg} out of range")));
            }
            self.temps.resize(reg + 1, [None; 4]);
        }
        if let Some(v) = self.temps[reg][c as usize] {
            return Ok(v);
        }
        let v = self.b.f.new_var(crate::ir::TypeId::U32);
        self.temps[reg][c as usize] = Some(v);
        Ok(v)
    }

    /// Lowers one instruction or declaration through the topic [`route::topic`] gives its
    /// opcode. A handler returns false for what it does not lower (an opcode it is routed but
    /// cannot take in this form), which is then refused as unsupported.
    fn lower_instruction(&mut self, inst: InstRef<'p>) -> R<()> {
        self.at(&inst);
        let topic = route::topic(inst.opcode);
        if topic.is_declaration() && self.decls_done {
            return Ok(());
        }
        if let Some(pos) = self.register_chosen_operand(&inst) {
            return self.lower_by_register(inst, pos);
        }
        let lowered = match topic {
            // Recorded; I/O globals are created in `finish_io_declarations`.
            Topic::IoDecl => self
                .io
                .declaration(inst, self.stage)
                .map_err(|e| e.with_opcode(inst.opcode.info().name))?,
            Topic::ResourceDecl => self.resource_declaration(inst)?,
            Topic::StageDecl => self.stage_declaration(inst)?,
            Topic::ClassDecl => self.class_declaration(inst)?,
            Topic::Flow => self.flow(inst)?,
            Topic::Geometry => self.geometry_op(inst)?,
            Topic::Alu => self.alu(inst)?,
            Topic::AluBits => self.alu_bits(&inst)?,
            Topic::AluConvert => self.alu_convert(&inst)?,
            Topic::AluDouble => self.alu_double(&inst)?,
            Topic::Texture => self.resource_op(inst)?,
            Topic::Memory => self.memory_op(inst)?,
            Topic::Nop => true,
            // Hull phase markers are consumed by `lower_hull`; anywhere else they are refused.
            Topic::HullPhase | Topic::Unsupported => false,
        };
        if lowered {
            return Ok(());
        }
        let kind = if inst.opcode.is_declaration() {
            "declaration"
        } else {
            "instruction"
        };
        Err(self.unsupported(format!("{kind} {}", inst.opcode.info().name)))
    }

    /// Declarations that set execution modes and other stage-wide facts.
    fn stage_declaration(&mut self, inst: InstRef<'p>) -> R<bool> {
        use crate::sm4::Declaration as D;
        let Some(decl) = inst.decl() else {
            return Ok(false);
        };
        match decl {
            D::Temps(n) => {
                let n = (*n).min(65536) as usize;
                if n > self.temps.len() {
                    self.temps.resize(n, [None; 4]);
                }
            }
            D::GlobalFlags(flags) => {
                // `[earlydepthstencil]`: depth/stencil tests (and their writes) happen before
                // the pixel shader runs, so a discarded or occluded pixel's UAV writes do not
                // happen. The other flags change no SPIR-V (refactoring, doubles, raw and
                // structured buffers in non-CS stages, skip optimisation, ...).
                if flags & crate::sm4::global_flags::FORCE_EARLY_DEPTH_STENCIL != 0
                    && self.stage == ShaderStage::Pixel
                {
                    self.b
                        .m
                        .execution_mode(spirv::ExecutionMode::EarlyFragmentTests, &[]);
                }
            }
            D::ThreadGroup(size) => {
                if size.contains(&0) {
                    return Err(self.invalid("thread group size of zero"));
                }
                self.b
                    .m
                    .execution_mode(spirv::ExecutionMode::LocalSize, size);
                self.refl.workgroup_size = Some(*size);
            }
            _ => return Ok(self.geometry_declaration(decl)? || self.tess_declaration(decl)?),
        }
        Ok(true)
    }
}

/// Lowers `prog` to an IR module and its reflection, written into `refl` (an empty one: its
/// stage is set here).
///
/// `reuse`: a module from an earlier translation whose tables are reset and refilled (fewer
/// allocations); `None` makes a new one.
pub fn lower<'p>(
    prog: &'p Program,
    sigs: Signatures<'p>,
    opts: &'p Options,
    reuse: Option<Box<Module>>,
    kept: &mut LowerScratch,
    refl: &mut Reflection,
) -> R<(Box<Module>, ReflectionGlobals)> {
    let stage = match prog.version.program_type {
        crate::sm4::ProgramType::Vertex => ShaderStage::Vertex,
        crate::sm4::ProgramType::Pixel => ShaderStage::Pixel,
        crate::sm4::ProgramType::Geometry => ShaderStage::Geometry,
        crate::sm4::ProgramType::Hull => ShaderStage::Hull,
        crate::sm4::ProgramType::Domain => ShaderStage::Domain,
        crate::sm4::ProgramType::Compute => ShaderStage::Compute,
    };
    // Signature masks name components x..w: higher bits (a corrupt signature) would make
    // vectors of more than four components. Registers, like declared ones, are below 4096
    // (interface locations are sums of them).
    for sig in [sigs.input, sigs.output, sigs.patch].into_iter().flatten() {
        if let Some(e) = sig
            .elements
            .iter()
            .find(|e| !e.has_no_register() && e.register >= 4096)
        {
            return Err(LowerError::invalid(
                prog.base_offset,
                format!(
                    "signature element {}{} names register {} (at most 4095)",
                    e.semantic_name.escape_debug(),
                    e.semantic_index,
                    e.register
                ),
            ));
        }
        if let Some(e) = sig
            .elements
            .iter()
            .find(|e| (e.mask | e.rw_mask) & 0xf0 != 0)
        {
            return Err(LowerError::invalid(
                prog.base_offset,
                format!(
                    "signature element {}{} (register {}) has component mask {:#x} beyond xyzw",
                    e.semantic_name.escape_debug(),
                    e.semantic_index,
                    e.register,
                    e.mask
                ),
            ));
        }
    }
    io::check_stream_output_stage(stage, opts.stream_output.as_ref())?;
    let mut module = Module::reuse_or_new(reuse, stage);
    module.keep_names = opts.debug_names;
    // The state kept from the last translation, emptied in place (field by field: the
    // allocations stay where they are) and borrowed by the lowering.
    kept.recycle();
    let LowerScratch {
        temps,
        io,
        res,
        flow,
        refl_globals,
    } = kept;
    let refl_globals = std::mem::take(refl_globals);
    refl.stage = stage;
    let mut l = Lowerer {
        b: FnBuilder::new(&mut module, prog.instructions.len() * 4 + 64),
        prog,
        sigs,
        opts,
        stage,
        temps,
        io,
        res,
        flow,
        refl,
        offset: prog.base_offset,
        opcode: None,
        refl_globals: refl_globals.recycled(),
        stage_info: stage_io::StageInfo::default(),
        decls_done: false,
        all_precise: !refactoring_allowed(prog),
        classes: classes::ClassState::default(),
    };
    l.check_class_operands()?;
    l.init_stage();
    crate::stage_times::end(crate::stage_times::Stage::LowerSetup);
    if stage == ShaderStage::Hull {
        l.lower_hull()?;
        crate::stage_times::end(crate::stage_times::Stage::LowerBody);
    } else {
        l.lower_declarations_and_body()?;
    }
    l.rasterizer_ordered_views();
    let (func, globals) = l.finish()?;
    module.functions.push(func);
    crate::stage_times::end(crate::stage_times::Stage::LowerFinish);
    Ok((module, globals))
}

/// Whether `dcl_globalFlags` allows refactoring. Without it D3D forbids changing float
/// results by refactoring (fused multiply-add, reassociation): every operation is `precise`.
fn refactoring_allowed(prog: &Program) -> bool {
    prog.iter().any(|inst| {
        matches!(inst.decl(), Some(crate::sm4::Declaration::GlobalFlags(f))
            if f & crate::sm4::global_flags::REFACTORING_ALLOWED != 0)
    })
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// VS/PS/GS/DS/CS: declarations (which precede code), the I/O globals they imply, then
    /// the code.
    fn lower_declarations_and_body(&mut self) -> R<()> {
        let prog = self.prog;
        let n = prog.instructions.len();
        let mut i = 0;
        while i < n {
            let inst = prog.get(i).expect("index in range");
            if !inst.opcode.is_declaration() {
                break;
            }
            self.lower_instruction(inst)?;
            i += 1;
        }
        let xfb = self.prepare_xfb()?;
        self.finish_io_declarations()?;
        if let Some(plan) = xfb {
            self.apply_xfb(plan)?;
        }
        crate::stage_times::end(crate::stage_times::Stage::LowerDeclarations);
        // Plain until a construct that is not (see `Function::plain_flow`): `lower::flow`
        // clears it at a case falling through, a call or an interface call.
        self.b.f.plain_flow = true;
        let body = self.lower_body(i);
        crate::stage_times::end(crate::stage_times::Stage::LowerBody);
        body
    }

    /// The entry function and reflection globals of the finished lowering (the reflection is
    /// the caller's; the state's buffers stay in the caller's `LowerScratch` for the next; the
    /// globals' come back through the caller).
    fn finish(mut self) -> R<(crate::ir::Function, ReflectionGlobals)> {
        self.refl.class_linkage = self.classes.reflection();
        finish_lowering(&mut self.b, self.refl, &mut self.refl_globals)
    }
}

/// Fast-math flags of the operations D3D lets a driver refactor (`dcl_globalFlags
/// refactoringAllowed`, and Direct3D 9): contraction (fused multiply-add) and reassociation.
/// NaNs, infinities and signed zeros keep their meaning either way.
pub(crate) const REFACTORABLE: u32 =
    spirv::FPFastMathMode::ALLOW_CONTRACT.bits() | spirv::FPFastMathMode::ALLOW_REASSOC.bits();

/// Declares `SPV_KHR_float_controls2` form of the precision rules
/// ([`Options::float_controls2`]): the capability, extension and Vulkan feature, and the
/// module's default fast-math flags — none when every float operation is precise, else
/// [`REFACTORABLE`].
pub(crate) fn declare_float_controls2(m: &mut Module, refl: &mut Reflection, all_precise: bool) {
    m.capability(spirv::Capability::FloatControls2);
    m.extension("SPV_KHR_float_controls2");
    refl.need_feature("shaderFloatControls2");
    let mask = if all_precise { 0 } else { REFACTORABLE };
    m.float_controls2 = Some(crate::ir::FastMathDefault {
        mask,
        constant: m.consts.u32(mask),
    });
}

/// The entry function and reflection globals of a finished lowering, of either front end; its
/// reflection (the caller's, filled in place) gets the module's capabilities and extensions
/// and its Vulkan features in order.
pub(crate) fn finish_lowering(
    b: &mut FnBuilder<'_>,
    refl: &mut Reflection,
    globals: &mut ReflectionGlobals,
) -> Result<(crate::ir::Function, ReflectionGlobals), LowerError> {
    if !b.finish_ssa() {
        return Err(LowerError::Internal {
            what: "a block gained a predecessor after it began (SSA construction)".into(),
        });
    }
    refl.capabilities =
        b.m.capabilities
            .iter()
            .map(|&c| crate::reflect::names::capability(c))
            .collect();
    refl.extensions = b.m.extensions.iter().map(|&e| Name::Borrowed(e)).collect();
    refl.vulkan_features.sort();
    refl.vulkan_features.dedup();
    let func = std::mem::take(&mut b.f);
    Ok((func, std::mem::take(globals)))
}

impl Reflection {
    /// Records that the module needs a Vulkan device feature (once).
    pub(crate) fn need_feature(&mut self, name: &'static str) {
        if !self.vulkan_features.iter().any(|f| f == name) {
            self.vulkan_features.push(Name::Borrowed(name));
        }
    }

    /// An empty reflection for `stage`.
    pub fn empty(stage: ShaderStage) -> Self {
        Reflection {
            entry_point: "main".into(),
            ..Self::unnamed(stage)
        }
    }

    /// [`Reflection::empty`] without its entry point's name (no allocation: what a finished
    /// lowering leaves behind).
    fn unnamed(stage: ShaderStage) -> Self {
        Reflection {
            stage,
            entry_point: String::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            patch_constants: Vec::new(),
            descriptors: Vec::new(),
            push_constants: Vec::new(),
            dynamic_offsets: Vec::new(),
            workgroup_size: None,
            capabilities: Vec::new(),
            extensions: Vec::new(),
            vulkan_features: Vec::new(),
            spec_constants: Vec::new(),
            class_linkage: None,
            d3d9: None,
            xfb: None,
        }
    }
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// Stage-wide execution modes and capabilities.
    fn init_stage(&mut self) {
        if self.stage == ShaderStage::Pixel {
            self.b
                .m
                .execution_mode(spirv::ExecutionMode::OriginUpperLeft, &[]);
        }
        if self.opts.denorm_flush_f32 {
            // D3D flushes fp32 denormals in arithmetic (§3.1.3.2; trap 10).
            self.b.m.capability(spirv::Capability::DenormFlushToZero);
            if self.opts.target_env.spirv_version() < (1, 4) {
                self.b.m.extension("SPV_KHR_float_controls");
            }
            self.b
                .m
                .execution_mode(spirv::ExecutionMode::DenormFlushToZero, &[32]);
            self.need_feature("shaderDenormFlushToZeroFloat32");
        }
        if self.opts.float_controls2 {
            declare_float_controls2(self.b.m, self.refl, self.all_precise);
        }
    }

    /// Records an interface variable in the reflection, with the global that holds it.
    pub fn reflect_io(&mut self, output: bool, var: crate::reflect::InterfaceVar, g: GlobalId) {
        if output {
            self.refl.outputs.push(var);
            self.refl_globals.outputs.push(g);
        } else {
            self.refl.inputs.push(var);
            self.refl_globals.inputs.push(g);
        }
    }

    /// Records a descriptor in the reflection, with the global that holds it.
    pub fn reflect_descriptor(&mut self, g: GlobalId, d: crate::reflect::Descriptor) {
        self.refl.descriptors.push(d);
        self.refl_globals.descriptors.push(g);
    }

    /// Records that the module needs a Vulkan device feature.
    pub fn need_feature(&mut self, name: &'static str) {
        self.refl.need_feature(name);
    }
}
