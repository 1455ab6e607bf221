//! Hull shaders: the phases of a D3D hull shader become one tessellation control shader.
//!
//! D3D runs the control-point phase once per output control point, then every instance of
//! every fork phase, then every instance of every join phase, each phase instance with its own
//! temporaries; `ret` ends one phase instance. Vulkan runs the tessellation control shader once
//! per output control point, so:
//!
//! * every invocation runs the control-point phase (`vOutputControlPointID` = `InvocationId`)
//!   and stores its outputs at `out[InvocationId]`; without a control-point phase it copies
//!   `in[InvocationId]` to `out[InvocationId]` for every register of the output signature;
//! * a barrier follows when a later phase reads `vocp` (other invocations' outputs);
//! * invocation 0 alone then runs the fork phases and the join phases, instance by instance
//!   (up to 4 instances unrolled with a constant instance ID, more in a loop), and stores the
//!   patch constants: the fork and join phases write one shared set of `o#` registers; the join
//!   phases read the fork phases' results as `vpc`, a copy taken when they start.
//!
//! Declarations of every phase are read before any code (the interface is one for all
//! phases); indexable temps and the immediate constant buffer belong to their phase and are
//! declared again when it starts. Resource declarations repeated by several phases declare
//! the resource once.

use spirv::Op;

use super::io::IoFile;
use super::regs::Idx;
use super::{Lowerer, R};
use crate::ir::{Operand, Terminator, TypeId};
use crate::sm4::{Declaration, Opcode, OperandType};

/// Fork and join phases with more instances than this run in a loop.
const MAX_UNROLLED_INSTANCES: u32 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PhaseKind {
    ControlPoint,
    Fork,
    Join,
}

/// One phase of a hull shader program.
#[derive(Debug, Clone)]
struct Phase {
    kind: PhaseKind,
    /// Instruction range of its code (declarations excluded).
    code: std::ops::Range<usize>,
    /// Declarations processed again when the phase starts (`x#`, `icb`).
    local_decls: Vec<usize>,
    instances: u32,
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// Lowers a whole hull shader program.
    pub(super) fn lower_hull(&mut self) -> R<()> {
        let phases = self.scan_hull_phases()?;
        self.stage_info.has_control_point_phase =
            phases.iter().any(|p| p.kind == PhaseKind::ControlPoint);
        self.io.set_patch_phase(false);
        self.finish_io_declarations()?;
        self.decls_done = true;

        let (id, _) = self.read_special(OperandType::OutputControlPointId, 0)?;
        let invocation = self.b.bitcast(TypeId::U32, id);

        // Control points.
        self.io.set_patch_phase(false);
        if let Some(cp) = phases.iter().find(|p| p.kind == PhaseKind::ControlPoint) {
            self.begin_phase(cp)?;
            self.lower_phase(cp.code.clone())?;
        } else {
            self.pass_through(invocation)?;
        }
        self.store_output_file(IoFile::Output, 0, Some(invocation))?;

        // Patch constants, in invocation 0.
        let patch: Vec<&Phase> = phases
            .iter()
            .filter(|p| p.kind != PhaseKind::ControlPoint)
            .collect();
        if !patch.is_empty() {
            if patch.iter().any(|p| self.reads_output_control_points(p)) {
                // Execution scope Workgroup, memory scope Invocation, no semantics: what
                // GLSL's barrier() is in a tessellation control shader.
                let wg = self.b.u32c(spirv::Scope::Workgroup as u32);
                let inv = self.b.u32c(spirv::Scope::Invocation as u32);
                let none = self.b.u32c(0);
                self.b.op_void(Op::ControlBarrier, &[wg, inv, none]);
            }
            let body = self.b.new_block();
            let end = self.b.new_block();
            let zero = self.b.u32c(0);
            let first = self.b.op(Op::IEqual, TypeId::BOOL, &[invocation, zero]);
            self.cond_branch(first, body, end, end);
            self.b.begin(body);
            self.io.set_patch_phase(true);
            let mut joined = false;
            for phase in patch {
                if phase.kind == PhaseKind::Join && !joined {
                    self.snapshot_patch_constants();
                    joined = true;
                }
                self.lower_instances(phase)?;
            }
            self.store_output_file(IoFile::PatchOutput, 0, None)?;
            self.b.branch_and_begin(end);
        }
        self.b.terminate(Terminator::Return);
        Ok(())
    }

    /// Splits the program into phases and processes every declaration.
    fn scan_hull_phases(&mut self) -> R<Vec<Phase>> {
        let prog = self.prog;
        let main_end = self.scan_labels(0)?;
        let mut phases: Vec<Phase> = Vec::new();
        let mut resources: Vec<(Opcode, Option<u32>)> = Vec::new();
        for i in 0..main_end {
            let inst = prog.get(i).expect("in range");
            self.at(&inst);
            let kind = match inst.opcode {
                Opcode::HsDecls => {
                    if !phases.is_empty() {
                        return Err(self.invalid("hs_decls after a phase"));
                    }
                    continue;
                }
                Opcode::HsControlPointPhase => Some(PhaseKind::ControlPoint),
                Opcode::HsForkPhase => Some(PhaseKind::Fork),
                Opcode::HsJoinPhase => Some(PhaseKind::Join),
                _ => None,
            };
            if let Some(kind) = kind {
                if let Some(last) = phases.last() {
                    let order = |k: PhaseKind| k as u8;
                    if order(kind) < order(last.kind) || (kind == PhaseKind::ControlPoint) {
                        return Err(self.invalid("hull shader phases out of order"));
                    }
                }
                phases.push(Phase {
                    kind,
                    code: i + 1..i + 1,
                    local_decls: Vec::new(),
                    instances: 1,
                });
                self.io.set_patch_phase(kind != PhaseKind::ControlPoint);
                continue;
            }
            if !inst.opcode.is_declaration() {
                let Some(phase) = phases.last_mut() else {
                    return Err(self.invalid(format!(
                        "instruction {} outside a hull shader phase",
                        inst.opcode.info().name
                    )));
                };
                if phase.code.is_empty() {
                    phase.code.start = i;
                }
                phase.code.end = i + 1;
                continue;
            }
            let decl = inst.decl();
            match decl {
                Some(
                    Declaration::HsForkPhaseInstanceCount(n)
                    | Declaration::HsJoinPhaseInstanceCount(n),
                ) => {
                    let want = if matches!(decl, Some(Declaration::HsForkPhaseInstanceCount(_))) {
                        PhaseKind::Fork
                    } else {
                        PhaseKind::Join
                    };
                    match phases.last_mut() {
                        Some(p) if p.kind == want && (1..=128).contains(n) => p.instances = *n,
                        _ => {
                            return Err(self.invalid(
                                "phase instance count outside its phase or not 1 to 128",
                            ));
                        }
                    }
                    continue;
                }
                Some(Declaration::IndexableTemp { .. }) => {
                    match phases.last_mut() {
                        Some(p) => p.local_decls.push(i),
                        None => {
                            return Err(self.invalid("indexable temp outside a hull shader phase"));
                        }
                    }
                    continue;
                }
                Some(
                    Declaration::ConstantBuffer { .. }
                    | Declaration::Sampler { .. }
                    | Declaration::Resource { .. }
                    | Declaration::ResourceRaw { .. }
                    | Declaration::ResourceStructured { .. }
                    | Declaration::UavTyped { .. }
                    | Declaration::UavRaw { .. }
                    | Declaration::UavStructured { .. }
                    | Declaration::TgsmRaw { .. }
                    | Declaration::TgsmStructured { .. },
                ) => {
                    let key = (
                        inst.opcode,
                        inst.operands.first().and_then(|o| o.register()),
                    );
                    if resources.contains(&key) {
                        continue;
                    }
                    resources.push(key);
                }
                _ => {}
            }
            if inst.custom_data().is_some()
                && let Some(p) = phases.last_mut()
            {
                // The immediate constant buffer (and comments) of one phase.
                p.local_decls.push(i);
                continue;
            }
            self.lower_instruction(inst)?;
        }
        Ok(phases)
    }

    /// Starts a phase instance: fresh temporaries, the phase's own `x#` and `icb`.
    fn begin_phase(&mut self, phase: &Phase) -> R<()> {
        self.temps.clear();
        let prog = self.prog;
        for &i in &phase.local_decls {
            let inst = prog.get(i).expect("in range");
            self.at(&inst);
            if !self.resource_declaration(inst)? && inst.custom_data().is_none() {
                return Err(self.unsupported(format!("declaration {}", inst.opcode.info().name)));
            }
        }
        Ok(())
    }

    /// Every instance of a fork or join phase, in order.
    fn lower_instances(&mut self, phase: &Phase) -> R<()> {
        let n = phase.instances;
        self.stage_info.join_phase = phase.kind == PhaseKind::Join;
        if n <= MAX_UNROLLED_INSTANCES {
            for k in 0..n {
                self.stage_info.instance_id = Some(self.b.u32c(k));
                self.begin_phase(phase)?;
                self.lower_phase(phase.code.clone())?;
            }
        } else {
            let counter = self.b.f.new_var(TypeId::U32);
            let zero = self.b.u32c(0);
            self.b.store_var(counter, zero);
            let header = self.b.new_block();
            let body = self.b.new_block();
            let latch = self.b.new_block();
            let exit = self.b.new_block();
            self.b.begin_loop(header, exit);
            let i = self.b.load_var(counter);
            let count = self.b.u32c(n);
            let more = self.b.op(Op::ULessThan, TypeId::BOOL, &[i, count]);
            // Like `breakc_z`: the loop goes on in `body`.
            self.cond_branch(more, body, exit, body);
            self.b.begin(body);
            self.stage_info.instance_id = Some(i);
            self.begin_phase(phase)?;
            self.lower_phase(phase.code.clone())?;
            self.b.branch_and_begin(latch);
            let one = self.b.u32c(1);
            let next = self.b.op(Op::IAdd, TypeId::U32, &[i, one]);
            self.b.store_var(counter, next);
            self.b.terminate(Terminator::Branch(header));
            self.b.begin(exit);
        }
        self.stage_info.instance_id = None;
        self.stage_info.join_phase = false;
        Ok(())
    }

    /// No control-point phase: each invocation copies its input control point to its output
    /// control point, register by register.
    fn pass_through(&mut self, invocation: Operand) -> R<()> {
        for reg in 0..self.io.file(IoFile::Output).len() as u32 {
            let slot = &self.io.file(IoFile::Output)[reg as usize];
            if !slot.declared {
                continue;
            }
            let comps: Vec<u8> = slot
                .parts
                .iter()
                .flat_map(|p| p.first..p.first + p.count)
                .collect();
            for c in comps {
                let v =
                    self.vertex_register_component(IoFile::Input, Idx::Dyn(invocation), reg, c)?;
                let var = self.output_var(reg, c)?;
                self.b.store_var(var, v);
            }
        }
        Ok(())
    }

    /// Whether a phase reads `vocp` (other invocations' output control points).
    fn reads_output_control_points(&self, phase: &Phase) -> bool {
        let prog = self.prog;
        phase.code.clone().any(|i| {
            prog.get(i).is_some_and(|inst| {
                inst.operands
                    .iter()
                    .any(|o| o.ty == OperandType::OutputControlPoint)
            })
        })
    }

    /// Join phases read the fork phases' outputs as `vpc`: a copy of the patch-constant
    /// registers as the fork phases left them.
    fn snapshot_patch_constants(&mut self) {
        let n = self.io.file(IoFile::PatchOutput).len();
        let mut vpc = vec![[None; 4]; n];
        for (reg, row) in vpc.iter_mut().enumerate() {
            let vars = self.io.file(IoFile::PatchOutput)[reg].vars;
            for (slot, var) in row.iter_mut().zip(vars) {
                if let Some(var) = var {
                    let v = self.b.load_var(var);
                    let copy = self.b.f.new_var(TypeId::U32);
                    self.b.store_var(copy, v);
                    *slot = Some(copy);
                }
            }
        }
        self.stage_info.vpc = vpc;
    }
}
