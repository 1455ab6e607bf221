//! Control flow: D3D's structured flow instructions become plain blocks and branches.
//!
//! Nothing here produces SPIR-V structure (merge and continue blocks); the structurizer
//! rebuilds it from the graph. What this module guarantees is the shape the structurizer
//! relies on: each `loop` gets a fresh header block, each `endif`/`endloop`/`endswitch` a fresh
//! join block, `ret` and `retc` end in blocks of their own that store the outputs and return,
//! and code after an unconditional jump lands in a fresh (unreachable) block that is dropped.
//!
//! Subroutines (`call`/`callc` to `label`) are inlined at each call site: D3D subroutines share
//! the caller's registers, so inlining keeps every register promotable to SSA. A `ret` inside a
//! subroutine branches to the code after the call. Recursion (which D3D forbids) and call depth
//! beyond 32 are errors.

use spirv::Op;

use super::{Lowerer, R};
use crate::ir::structured::IfFrame;
use crate::ir::{BlockId, Operand, Scalar, Terminator, TypeId};
use crate::sm4::{InstRef, Opcode, OperandType};

/// An open construct of the D3D program.
#[derive(Debug, Clone)]
pub(crate) enum Frame {
    If(IfFrame),
    Loop {
        header: BlockId,
        exit: BlockId,
        /// A `ret` of the inlined subroutine left this loop (see [`CallCtx::flag`]).
        returned: bool,
    },
    Switch {
        block: BlockId,
        exit: BlockId,
        default: Option<BlockId>,
        cases: Vec<(u32, BlockId)>,
        /// The case values seen (the first label of a value wins), filled once there are
        /// sixteen cases (`cases` is searched before).
        values: rustc_hash::FxHashSet<u32>,
        case_block: Option<BlockId>,
        /// A `ret` of the inlined subroutine left this switch.
        returned: bool,
    },
}

/// A subroutine being inlined.
#[derive(Debug, Clone)]
pub(crate) struct CallCtx {
    /// The subroutine: `label l#` or function body `label fb#` (its operand type and number).
    pub label: (OperandType, u32),
    /// Where the code after the call starts.
    pub after: BlockId,
    /// For a subroutine that returns from inside a loop or switch: its body is wrapped in a
    /// one-trip loop exiting to `after`, and `ret` sets this flag and breaks out, construct by
    /// construct (a branch straight to `after` would leave those constructs unstructured).
    pub flag: Option<crate::ir::VarId>,
}

/// The flow-control state of the lowering; private to this module except `labels`, which class
/// linkage (`classes`) reads.
#[derive(Debug, Default)]
pub(crate) struct FlowState {
    frames: Vec<Frame>,
    /// Instruction index ranges of subroutine bodies (`l#`) and function bodies (`fb#`), by
    /// label operand type and number.
    pub labels: Vec<((OperandType, u32), std::ops::Range<usize>)>,
    /// Subroutines being inlined, innermost last.
    calls: Vec<CallCtx>,
    /// Frame depth at which the innermost call started (frames below belong to callers).
    call_frame_base: Vec<usize>,
    /// The block begun after the last `ret` (no branch reaches it).
    dead: Option<BlockId>,
    /// Instructions lowered as inlined subroutine bodies so far (see [`MAX_INLINED`]).
    inlined: usize,
}

impl FlowState {
    /// Empties this state in place for the next program (what `default()` makes), keeping its
    /// lists' allocations.
    pub fn recycle(&mut self) {
        let FlowState {
            frames,
            labels,
            calls,
            call_frame_base,
            dead,
            inlined,
        } = self;
        frames.clear();
        labels.clear();
        calls.clear();
        call_frame_base.clear();
        *dead = None;
        *inlined = 0;
    }
}

/// Most instructions lowered from inlined subroutine bodies, all calls together. Subroutines
/// are inlined at each call, so a chain of labels each calling the next twice doubles the
/// code per level: without a bound, 30 levels of a few instructions cost gigabytes.
const MAX_INLINED: usize = 1 << 18;

const MAX_CALL_DEPTH: usize = 32;

/// Deepest nesting of `if`/`loop`/`switch` accepted, counting the constructs of callers around
/// an inlined subroutine. D3D allows 64 of flow control
/// (D3D11_COMMONSHADER_FLOWCONTROL_NESTING_LIMIT); this is four times that, and keeps the
/// structurizer's work per block (one step per enclosing construct) bounded.
pub(crate) const MAX_FLOW_DEPTH: usize = 256;

impl<'p, 'm> Lowerer<'p, 'm> {
    /// Reads a condition operand as a bool (`_nz`: != 0, `_z`: == 0).
    pub fn condition(&mut self, inst: &InstRef<'p>, op_index: usize) -> R<Operand> {
        let op = inst
            .operands
            .get(op_index)
            .ok_or_else(|| self.invalid("missing condition operand"))?;
        let x = self.read_scalar(op, Scalar::U32)?;
        let zero = self.b.u32c(0);
        let nz = inst.test_nonzero().unwrap_or(true);
        Ok(self.b.op(
            if nz { Op::INotEqual } else { Op::IEqual },
            TypeId::BOOL,
            &[x, zero],
        ))
    }

    /// Starts a fresh block for code that follows an unconditional jump.
    fn begin_dead(&mut self) {
        let b = self.b.new_block();
        self.b.begin(b);
        self.flow.dead = Some(b);
    }

    /// Ends the current block with a return, storing the outputs first — or, inside an
    /// inlined subroutine, with a branch back to the caller.
    pub fn emit_return(&mut self) -> R<()> {
        if let Some(call) = self.flow.calls.last().cloned() {
            match call.flag {
                None => self.b.terminate(Terminator::Branch(call.after)),
                Some(flag) => {
                    let one = self.b.u32c(1);
                    self.b.store_var(flag, one);
                    let target = self.return_target(call.after, true);
                    self.b.terminate(Terminator::Branch(target));
                }
            }
            return Ok(());
        }
        // A geometry shader's outputs leave only through `emit`; a hull shader's phases
        // store their outputs where each phase ends.
        if !matches!(
            self.stage,
            crate::reflect::ShaderStage::Geometry | crate::reflect::ShaderStage::Hull
        ) {
            self.store_outputs()?;
        } else if self.stage == crate::reflect::ShaderStage::Geometry
            && self.stage_info.gs_output.is_none()
        {
            // A geometry shader without an output topology never emits (rules: stage
            // declaration); it becomes a point-list shader, and Vulkan wants a point-list
            // shader's PointSize written when the device draws sized points
            // (VUID-VkGraphicsPipelineCreateInfo-Geometry-07725), emitted or not.
            let stream = self.rasterized_stream();
            self.store_point_size(stream);
        }
        self.b.terminate(Terminator::Return);
        Ok(())
    }

    /// Where a `ret` of a wrapped subroutine goes: out of the innermost loop or switch of the
    /// subroutine (marking it so that its end passes the return on), else to `after`.
    fn return_target(&mut self, after: BlockId, mark: bool) -> BlockId {
        let base = self.flow.call_frame_base.last().copied().unwrap_or(0);
        for f in self.flow.frames[base..].iter_mut().rev() {
            match f {
                Frame::Loop { exit, returned, .. } | Frame::Switch { exit, returned, .. } => {
                    if mark {
                        *returned = true;
                    }
                    return *exit;
                }
                Frame::If { .. } => {}
            }
        }
        after
    }

    /// After a loop or switch of a wrapped subroutine that a `ret` left: leave the next
    /// construct too when the return flag is set.
    fn pass_return_on(&mut self) {
        let Some(call) = self.flow.calls.last().cloned() else {
            return;
        };
        let Some(flag) = call.flag else { return };
        let target = self.return_target(call.after, true);
        let f = self.b.load_var(flag);
        let cond = self.nonzero(f, 1);
        let next = self.b.new_block();
        self.cond_branch(cond, target, next, next);
        self.b.begin(next);
    }

    /// Ends the current block with a conditional branch and records where its paths rejoin.
    pub fn cond_branch(
        &mut self,
        cond: Operand,
        on_true: BlockId,
        on_false: BlockId,
        join: BlockId,
    ) {
        let cur = self.b.current();
        if self.b.is_open() {
            self.b.terminate(Terminator::CondBranch {
                cond,
                on_true,
                on_false,
            });
            self.b.f.block_mut(cur).join = Some(join);
        }
    }

    fn innermost_breakable(&self) -> R<BlockId> {
        let base = self.flow.call_frame_base.last().copied().unwrap_or(0);
        for f in self.flow.frames[base..].iter().rev() {
            match f {
                Frame::Loop { exit, .. } | Frame::Switch { exit, .. } => return Ok(*exit),
                Frame::If { .. } => {}
            }
        }
        Err(self.invalid("break outside of a loop or switch"))
    }

    fn innermost_loop(&self) -> R<BlockId> {
        let base = self.flow.call_frame_base.last().copied().unwrap_or(0);
        for f in self.flow.frames[base..].iter().rev() {
            if let Frame::Loop { header, .. } = f {
                return Ok(*header);
            }
        }
        Err(self.invalid("continue outside of a loop"))
    }

    /// Lowers the program body starting at instruction `start`: the main program up to the
    /// first `label`, then the final return.
    pub fn lower_body(&mut self, start: usize) -> R<()> {
        let main_end = self.scan_labels(start)?;
        self.lower_range(start..main_end)?;
        if !self.flow.frames.is_empty() {
            return Err(self.invalid("program ends inside an if, loop or switch"));
        }
        // Falling off the end returns (after a final `ret`, nothing reaches the end).
        if self.b.is_open() {
            if self.flow.dead == Some(self.b.current()) {
                self.b.terminate(Terminator::Unreachable);
            } else {
                self.emit_return()?;
            }
        }
        Ok(())
    }

    /// Finds the subroutine bodies at or after instruction `start` (`label lN` starts one
    /// that runs to the next label or the end) and returns where the main program ends.
    pub(super) fn scan_labels(&mut self, start: usize) -> R<usize> {
        let n = self.prog.instructions.len();
        let mut main_end = n;
        let mut labels = std::mem::take(&mut self.flow.labels);
        labels.clear();
        for i in start..n {
            // The opcode alone first: most programs have no label.
            if self.prog.instructions[i].opcode != Opcode::Label {
                continue;
            }
            let inst = self.prog.get(i).expect("in range");
            let id = inst
                .operands
                .first()
                .and_then(|o| Some((o.ty, o.register()?)))
                .ok_or_else(|| self.invalid("label without a number"))?;
            if let Some(last) = labels.last_mut() {
                last.1.end = i;
            } else {
                main_end = i;
            }
            labels.push((id, i + 1..n));
        }
        self.flow.labels = labels;
        Ok(main_end)
    }

    /// Lowers one instance of a hull shader phase: like an inlined subroutine, its `ret`
    /// ends the instance, and lowering continues after it in a block of its own. A phase
    /// whose only `ret` is its last instruction needs no block of its own.
    pub(super) fn lower_phase(&mut self, range: std::ops::Range<usize>) -> R<()> {
        let prog = self.prog;
        let is_ret = |i: usize| prog.get(i).is_some_and(|x| x.opcode == Opcode::Ret);
        let body = if !range.is_empty() && is_ret(range.end - 1) {
            range.start..range.end - 1
        } else {
            range.clone()
        };
        let early_exit = body.clone().any(|i| {
            prog.get(i)
                .is_some_and(|x| matches!(x.opcode, Opcode::Ret | Opcode::Retc))
        });
        if !early_exit {
            let depth = self.flow.frames.len();
            self.lower_range(body)?;
            if self.flow.frames.len() != depth {
                return Err(self.invalid("hull shader phase ends inside an if, loop or switch"));
            }
            return Ok(());
        }
        // No label has this number (`label` operands are register indices).
        self.lower_inlined((OperandType::Label, u32::MAX), range, "hull shader phase")
    }

    fn lower_range(&mut self, range: std::ops::Range<usize>) -> R<()> {
        for i in range {
            let inst = self.prog.get(i).expect("in range");
            let before = self.b.f.insts.len();
            self.lower_instruction(inst)?;
            if inst.precise != 0 || self.all_precise {
                for v in before..self.b.f.insts.len() {
                    let i = &self.b.f.insts[v];
                    // Float results only: an integer `ExtInst` (UMin, FindILsb...) has
                    // nothing to contract.
                    // The opcode first: most instructions are not arithmetic.
                    if is_float_arith(i.op)
                        && matches!(self.b.m.types.scalar(i.ty), Some(Scalar::F32 | Scalar::F64))
                    {
                        self.b.f.insts[v].flags |= crate::ir::flags::PRECISE;
                    }
                }
            }
            // Minimum precision (fxc marks the destination and sources): computed at 32 bits,
            // which D3D allows, and decorated so that a driver may use less. Only results of
            // the destination's kind: helper arithmetic of another kind (ftoi's range clamp)
            // keeps full precision.
            if let Some(p) = inst
                .dsts()
                .iter()
                .map(|d| d.min_precision)
                .find(|&p| p != crate::sm4::MinPrecision::Default)
            {
                use crate::ir::flags;
                use crate::sm4::MinPrecision as P;
                let float_dst = matches!(p, P::Float16 | P::Float2_8);
                // Native 16-bit arithmetic (an option): `passes::min16` rewrites what is
                // flagged here; a min16int result is sign-extended back, a min16uint one not.
                let half = match self.opts.min_precision {
                    crate::MinPrecisionMode::Relaxed32 => 0,
                    crate::MinPrecisionMode::Native16 if p == P::Sint16 => {
                        flags::HALF | flags::HALF_SIGNED
                    }
                    crate::MinPrecisionMode::Native16 => flags::HALF,
                };
                for v in before..self.b.f.insts.len() {
                    let i = &self.b.f.insts[v];
                    if is_relaxable(i.op, self.b.m.types.scalar(i.ty), float_dst) {
                        let h = if i.narrowable_to_16() { half } else { 0 };
                        self.b.f.insts[v].flags |= flags::RELAXED | h;
                    }
                }
            }
        }
        Ok(())
    }

    /// Refuses a call of `key` that would recurse (D3D forbids it) or nest too deep.
    pub(super) fn check_call(&self, key: (OperandType, u32)) -> R<()> {
        if self.flow.calls.iter().any(|c| c.label == key) {
            return Err(self.invalid(format!("recursive call to {}{}", key.0.name(), key.1)));
        }
        if self.flow.calls.len() >= MAX_CALL_DEPTH {
            return Err(self.unsupported(format!(
                "subroutine calls nested deeper than {MAX_CALL_DEPTH}"
            )));
        }
        Ok(())
    }

    fn call(&mut self, label: u32) -> R<()> {
        let key = (OperandType::Label, label);
        self.check_call(key)?;
        let body = self
            .flow
            .labels
            .iter()
            .find(|l| l.0 == key)
            .map(|l| l.1.clone())
            .ok_or_else(|| self.invalid(format!("call to undefined label {label}")))?;
        self.lower_inlined(key, body, "subroutine")
    }

    /// Lowers `body` in place as a subroutine `label` whose `ret` continues after it.
    pub(super) fn lower_inlined(
        &mut self,
        label: (OperandType, u32),
        body: std::ops::Range<usize>,
        what: &str,
    ) -> R<()> {
        // Not plain flow: a `ret` in the body leaves for the code after the call, through a
        // one-trip loop when it returns from inside a construct.
        self.b.f.plain_flow = false;
        self.flow.inlined += body.len();
        if self.flow.inlined > MAX_INLINED {
            return Err(self.unsupported(format!(
                "{what} inlining of more than {MAX_INLINED} instructions in all"
            )));
        }
        let after = self.b.new_block();
        let wrap = self.returns_from_inside_a_construct(body.clone());
        let flag = if wrap {
            // `loop { body }` that runs once: a real loop for the structurizer, so that a
            // `ret` anywhere in the body is a `break` out of it (see `CallCtx::flag`).
            let flag = self.b.f.new_var(TypeId::U32);
            let zero = self.b.u32c(0);
            self.b.store_var(flag, zero);
            // The back edge is a branch on a constant never taken, placed first so that it
            // stays reachable whatever the body does.
            let header = self.b.new_block();
            let body_block = self.b.new_block();
            let latch = self.b.new_block();
            self.b.begin_loop(header, after);
            let t = self.b.boolc(true);
            self.b.terminate(Terminator::CondBranch {
                cond: t,
                on_true: body_block,
                on_false: latch,
            });
            self.b.begin(latch);
            self.b.terminate(Terminator::Branch(header));
            self.b.begin(body_block);
            Some((flag, header))
        } else {
            None
        };
        self.flow.calls.push(CallCtx {
            label,
            after,
            flag: flag.map(|f| f.0),
        });
        self.flow.call_frame_base.push(self.flow.frames.len());
        let saved_at = (self.offset, self.opcode);
        self.lower_range(body)?;
        (self.offset, self.opcode) = saved_at;
        if Some(&self.flow.frames.len()) != self.flow.call_frame_base.last() {
            return Err(self.invalid(format!("{what} ends inside an if, loop or switch")));
        }
        self.flow.call_frame_base.pop();
        self.flow.calls.pop();
        self.b.branch_and_begin(after);
        Ok(())
    }

    /// Whether a subroutine body returns from inside one of its own constructs (`retc` always
    /// opens one): then a `ret` cannot simply branch to the code after the call.
    fn returns_from_inside_a_construct(&self, body: std::ops::Range<usize>) -> bool {
        let mut depth = 0usize;
        for i in body {
            let Some(inst) = self.prog.get(i) else { break };
            match inst.opcode {
                Opcode::If | Opcode::Loop | Opcode::Switch => depth += 1,
                Opcode::EndIf | Opcode::EndLoop | Opcode::EndSwitch => {
                    depth = depth.saturating_sub(1)
                }
                Opcode::Retc => return true,
                Opcode::Ret if depth > 0 => return true,
                _ => {}
            }
        }
        false
    }

    /// Lowers a control-flow instruction; false when `inst` is not one.
    pub fn flow(&mut self, inst: InstRef<'p>) -> R<bool> {
        if matches!(inst.opcode, Opcode::If | Opcode::Loop | Opcode::Switch)
            && self.flow.frames.len() >= MAX_FLOW_DEPTH
        {
            return Err(
                self.unsupported(format!("flow control nested deeper than {MAX_FLOW_DEPTH}"))
            );
        }
        match inst.opcode {
            Opcode::If => {
                let cond = self.condition(&inst, 0)?;
                let frame = self.b.open_if(cond);
                self.flow.frames.push(Frame::If(frame));
            }
            Opcode::Else => {
                let Some(&Frame::If(mut frame @ IfFrame { end: None, .. })) =
                    self.flow.frames.last()
                else {
                    return Err(self.invalid("else without a matching if"));
                };
                self.b.begin_else(&mut frame);
                *self.flow.frames.last_mut().expect("matched above") = Frame::If(frame);
            }
            Opcode::EndIf => {
                let Some(Frame::If(frame)) = self.flow.frames.pop() else {
                    return Err(self.invalid("endif without a matching if"));
                };
                self.b.close_if(frame);
            }
            Opcode::Loop => {
                let header = self.b.new_block();
                let exit = self.b.new_block();
                self.b.begin_loop(header, exit);
                self.b.f.block_mut(header).dont_unroll = true;
                self.flow.frames.push(Frame::Loop {
                    header,
                    exit,
                    returned: false,
                });
            }
            Opcode::EndLoop => {
                let Some(Frame::Loop {
                    header,
                    exit,
                    returned,
                }) = self.flow.frames.pop()
                else {
                    return Err(self.invalid("endloop without a matching loop"));
                };
                self.b.terminate(Terminator::Branch(header));
                self.b.begin(exit);
                if returned {
                    self.pass_return_on();
                }
            }
            Opcode::Break => {
                let exit = self.innermost_breakable()?;
                self.b.terminate(Terminator::Branch(exit));
                self.begin_dead();
            }
            Opcode::Breakc => {
                let exit = self.innermost_breakable()?;
                let cond = self.condition(&inst, 0)?;
                let next = self.b.new_block();
                self.cond_branch(cond, exit, next, next);
                self.b.begin(next);
            }
            Opcode::Continue => {
                let header = self.innermost_loop()?;
                self.b.terminate(Terminator::Branch(header));
                self.begin_dead();
            }
            Opcode::Continuec => {
                let header = self.innermost_loop()?;
                let cond = self.condition(&inst, 0)?;
                let next = self.b.new_block();
                self.cond_branch(cond, header, next, next);
                self.b.begin(next);
            }
            Opcode::Switch => {
                let sel = inst
                    .operands
                    .first()
                    .ok_or_else(|| self.invalid("switch without a selector"))?;
                let selector = self.read_scalar(sel, Scalar::U32)?;
                let block = self.b.current();
                let exit = self.b.new_block();
                // The edges are made as the cases come (and to `exit` at the end when no
                // `default` takes it).
                self.b.terminate_edges_later(Terminator::Switch {
                    selector,
                    default: exit,
                    cases: Vec::new(),
                });
                self.b.f.block_mut(block).join = Some(exit);
                self.begin_dead();
                self.flow.frames.push(Frame::Switch {
                    block,
                    exit,
                    default: None,
                    // Room for a typical switch's cases in one allocation.
                    cases: Vec::with_capacity(8),
                    values: Default::default(),
                    case_block: None,
                    returned: false,
                });
            }
            Opcode::Case | Opcode::Default => {
                let value = if inst.opcode == Opcode::Case {
                    let op = inst
                        .operands
                        .first()
                        .ok_or_else(|| self.invalid("case without a value"))?;
                    if op.ty != OperandType::Immediate32 {
                        return Err(self.invalid("case value is not an immediate"));
                    }
                    Some(op.immediates().first().copied().unwrap_or(0))
                } else {
                    None
                };
                let cur = self.b.current();
                let Some(Frame::Switch {
                    case_block,
                    block: switch_block,
                    cases,
                    values,
                    default,
                    ..
                }) = self.flow.frames.last_mut()
                else {
                    return Err(self.invalid("case outside of a switch"));
                };
                let (case_block, switch_block) = (*case_block, *switch_block);
                // Only a new label (a value not seen yet, the first `default`) makes the
                // switch branch to its block: the first label of a value wins. A few cases
                // are searched; the set of values is filled from the sixteenth on (a switch
                // may have thousands).
                let new = match value {
                    Some(v) if cases.len() < 16 => !cases.iter().any(|&(c, _)| c == v),
                    Some(v) => {
                        if values.is_empty() {
                            values.extend(cases.iter().map(|&(c, _)| c));
                        }
                        !values.contains(&v)
                    }
                    None => default.is_none(),
                };
                let from = new.then_some(switch_block);
                // Consecutive labels share one block (still untouched: labels have no
                // code). After a `break` (or the `switch` itself) the untouched block for the
                // code after it is the case's block; otherwise start a new one (falling
                // through into it from the previous case if that did not break).
                let target = match case_block {
                    Some(b) if b == cur && self.b.enter_untouched(from) => b,
                    _ if self.flow.dead == Some(cur) && self.b.enter_untouched(from) => cur,
                    _ => {
                        // The previous case falls through into this one.
                        self.b.f.plain_flow = false;
                        let b = self.b.new_block();
                        self.b.terminate(Terminator::Branch(b));
                        if let Some(s) = from {
                            self.b.add_edge(s, b);
                        }
                        self.b.begin(b);
                        b
                    }
                };
                if new && self.flow.dead == Some(target) {
                    // The switch reaches it now.
                    self.flow.dead = None;
                }
                if let Some(Frame::Switch {
                    cases,
                    values,
                    default,
                    case_block,
                    ..
                }) = self.flow.frames.last_mut()
                {
                    if new {
                        match value {
                            Some(v) => {
                                cases.push((v, target));
                                if !values.is_empty() {
                                    values.insert(v);
                                }
                            }
                            None => *default = Some(target),
                        }
                    }
                    *case_block = Some(target);
                }
            }
            Opcode::EndSwitch => {
                let Some(Frame::Switch {
                    block,
                    exit,
                    default,
                    cases,
                    returned,
                    ..
                }) = self.flow.frames.pop()
                else {
                    return Err(self.invalid("endswitch without a matching switch"));
                };
                self.b.terminate(Terminator::Branch(exit));
                if default.is_none() {
                    self.b.add_edge(block, exit);
                }
                if let Terminator::Switch {
                    default: d,
                    cases: c,
                    ..
                } = &mut self.b.f.block_mut(block).term
                {
                    *d = default.unwrap_or(exit);
                    *c = cases;
                }
                self.b.begin(exit);
                if returned {
                    self.pass_return_on();
                }
            }
            Opcode::Ret => {
                self.emit_return()?;
                self.begin_dead();
            }
            Opcode::Retc => {
                let cond = self.condition(&inst, 0)?;
                let ret = self.b.new_block();
                let next = self.b.new_block();
                self.cond_branch(cond, ret, next, next);
                self.b.begin(ret);
                self.emit_return()?;
                self.b.begin(next);
            }
            Opcode::Discard => {
                if self.stage != crate::reflect::ShaderStage::Pixel {
                    return Err(self.invalid("discard outside a pixel shader"));
                }
                let cond = self.condition(&inst, 0)?;
                let kill = self.b.new_block();
                let next = self.b.new_block();
                self.cond_branch(cond, kill, next, next);
                self.b.begin(kill);
                self.demote();
                self.b.terminate(Terminator::Branch(next));
                self.b.begin(next);
            }
            Opcode::Call => {
                let label = inst
                    .operands
                    .first()
                    .and_then(|o| o.register())
                    .ok_or_else(|| self.invalid("call without a label"))?;
                self.call(label)?;
            }
            Opcode::Callc => {
                let label = inst
                    .operands
                    .get(1)
                    .and_then(|o| o.register())
                    .ok_or_else(|| self.invalid("callc without a label"))?;
                let cond = self.condition(&inst, 0)?;
                let body = self.b.new_block();
                let next = self.b.new_block();
                self.cond_branch(cond, body, next, next);
                self.b.begin(body);
                self.call(label)?;
                self.b.branch_and_begin(next);
            }
            Opcode::InterfaceCall => {
                self.b.f.plain_flow = false;
                self.fcall(&inst)?
            }
            Opcode::Label => return Err(self.invalid("label inside the main program")),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Turns the invocation into a helper (D3D `discard`: derivatives stay valid).
    pub fn demote(&mut self) {
        demote(&mut self.b, self.refl, self.opts.target_env);
    }
}

/// Turns the invocation into a helper, with the capability, extension and Vulkan feature
/// that needs: D3D's `discard`, D3D9's `texkill` and alpha test (derivatives stay valid).
pub(crate) fn demote(
    b: &mut crate::ir::builder::FnBuilder<'_>,
    refl: &mut crate::reflect::Reflection,
    env: crate::options::TargetEnv,
) {
    declare_demote(b.m, refl, env);
    b.op_void(Op::DemoteToHelperInvocation, &[]);
}

/// The capability, extension and Vulkan feature [`demote`] needs.
pub(crate) fn declare_demote(
    m: &mut crate::ir::Module,
    refl: &mut crate::reflect::Reflection,
    env: crate::options::TargetEnv,
) {
    m.capability(spirv::Capability::DemoteToHelperInvocation);
    if env.spirv_version() < (1, 6) {
        m.extension("SPV_EXT_demote_to_helper_invocation");
    }
    refl.need_feature("shaderDemoteToHelperInvocation");
}

/// Whether `RelaxedPrecision` may decorate the result of `op` (of scalar kind `s`) lowered
/// for a minimum-precision destination (float when `float_dst`, else integer): arithmetic
/// of the destination's kind, never loads, stores, bit casts or shuffles, whose values
/// must stay exact.
fn is_relaxable(op: Op, s: Option<Scalar>, float_dst: bool) -> bool {
    match s {
        Some(Scalar::F32) => {
            float_dst && (is_float_arith(op) || matches!(op, Op::ConvertSToF | Op::ConvertUToF))
        }
        Some(Scalar::I32 | Scalar::U32) => {
            !float_dst
                && matches!(
                    op,
                    Op::IAdd
                        | Op::ISub
                        | Op::IMul
                        | Op::SDiv
                        | Op::UDiv
                        | Op::UMod
                        | Op::SNegate
                        | Op::ConvertFToS
                        | Op::ConvertFToU
                )
        }
        _ => false,
    }
}

fn is_float_arith(op: Op) -> bool {
    matches!(
        op,
        Op::FAdd
            | Op::FSub
            | Op::FMul
            | Op::FDiv
            | Op::FRem
            | Op::FMod
            | Op::FNegate
            | Op::Dot
            | Op::VectorTimesScalar
            | Op::ExtInst
    )
}
