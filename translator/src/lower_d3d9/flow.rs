//! D3D9 flow control: `if` (on `b#`, `p0`) / `ifc` / `else` / `endif`, `loop aL, i#` and
//! `rep i#` with their own iteration counters, `break`/`breakc`/`breakp`, subroutines
//! (`call`, `callnz`, `label`, `ret`) inlined at each call, and the end of the program.
//!
//! As in the SM4 lowering, this makes plain blocks and branches (a fresh header per loop, a
//! fresh join per `endif`) and the structurizer rebuilds SPIR-V's structure. A loop counts its
//! iterations in a variable of its own, so a zero step or a count past 255 (both outside
//! D3D9's ranges; the count is clamped to 255) cannot make it endless; `aL` is the innermost
//! loop's counter and the outer one's comes back after `endloop`.
//!
//! A `ret` inside an `if`/`loop`/`rep` of a subroutine cannot branch straight to the code
//! after the call (that would leave a structured construct sideways). It sets the call's
//! *returned* flag and leaves the innermost loop of the subroutine (a `break`), or, with no
//! loop open, skips the rest of its branch; from then on the code after each construct the
//! subroutine closes runs only while the flag is clear (a guard: `if !returned`).

use spirv::Op;

use super::{D9, R};
use crate::d3dbc::{Comparison, Controls, Instruction, Opcode, RegisterType as RT, Source};
use crate::ir::structured::IfFrame;
use crate::ir::{BlockId, Operand, Terminator, TypeId, VarId};

#[derive(Debug, Clone)]
pub(crate) enum Frame {
    If(IfFrame),
    Loop {
        header: BlockId,
        exit: BlockId,
        /// Iteration counter.
        counter: VarId,
        /// `loop`: the step added to `aL`, and the outer loop's `aL` to restore.
        al: Option<(Operand, VarId)>,
    },
    /// `if !returned` around the rest of a subroutine's construct after a nested `ret`.
    Guard {
        join: BlockId,
    },
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct CallCtx {
    /// Where the code after the call goes on.
    pub after: BlockId,
    /// Frames open when the call started (deeper ones belong to the subroutine).
    pub frame_base: usize,
    /// Set by a `ret` inside the subroutine's flow control (false at the call).
    pub returned: VarId,
    /// Whether such a `ret` has been lowered (the code after each construct is guarded).
    pub guarded: bool,
}

#[derive(Debug, Default)]
pub(crate) struct FlowState {
    pub frames: Vec<Frame>,
    pub calls: Vec<CallCtx>,
    /// Instructions lowered from inlined subroutines so far.
    pub inlined: usize,
}

/// Deepest nesting of `if`/`loop`/`rep` (subroutines' included) accepted; D3D9 allows 24.
const MAX_FLOW_DEPTH: usize = 64;

impl FlowState {
    /// Whether lowering is in the main program, outside every `if`, loop and subroutine.
    pub fn at_top_level(&self) -> bool {
        self.frames.is_empty() && self.calls.is_empty()
    }
}
/// Deepest subroutine nesting accepted; D3D9 allows 4 (2.0) to 4 (3.0) levels of `call`.
const MAX_CALL_DEPTH: usize = 16;
/// Most instructions lowered from inlined subroutine bodies, all calls together (a chain of
/// subroutines each calling the next twice doubles the code per level).
const MAX_INLINED: usize = 1 << 16;

impl<'p, 'm> D9<'p, 'm> {
    /// Lowers the main program (up to the first `label`) and returns at its end.
    pub(super) fn lower_main(&mut self) -> R<()> {
        let end = self.decl.main_end;
        self.lower_range(0..end)?;
        if !self.flow.frames.is_empty() {
            self.offset = self.prog.end_offset;
            return Err(self.invalid("the program ends inside an if, loop or rep"));
        }
        self.emit_return()
    }

    /// Stores the outputs and returns (or, in a subroutine, goes back to the caller).
    fn emit_return(&mut self) -> R<()> {
        self.flush_pending();
        if let Some(call) = self.flow.calls.last().copied() {
            if self.flow.frames.len() == call.frame_base {
                self.b.terminate(Terminator::Branch(call.after));
                return Ok(());
            }
            // Inside the subroutine's flow control: set the flag, then leave the guard this
            // code is in, or the innermost loop, or skip the rest of this branch.
            let t = self.b.boolc(true);
            self.b.store_var(call.returned, t);
            self.flow.calls.last_mut().expect("checked above").guarded = true;
            let in_loop = self.flow.frames[call.frame_base..]
                .iter()
                .any(|f| matches!(f, Frame::Loop { .. }));
            if let Some(&Frame::Guard { join }) = self.flow.frames.last() {
                self.b.terminate(Terminator::Branch(join));
                self.begin_dead();
            } else if in_loop {
                let exit = self.innermost_loop_exit()?;
                self.b.terminate(Terminator::Branch(exit));
                self.begin_dead();
            } else {
                self.open_guard(call.returned);
            }
            return Ok(());
        }
        if self.b.is_open() {
            self.store_outputs()?;
            self.b.terminate(Terminator::Return);
        }
        Ok(())
    }

    /// Opens `if !returned` (a [`Frame::Guard`]).
    fn open_guard(&mut self, returned: VarId) {
        let r = self.b.load_var(returned);
        let go = self.b.op(Op::LogicalNot, TypeId::BOOL, &[r]);
        let header = self.b.current();
        let body = self.b.new_block();
        let join = self.b.new_block();
        self.b.terminate(Terminator::CondBranch {
            cond: go,
            on_true: body,
            on_false: join,
        });
        self.b.f.block_mut(header).join = Some(join);
        self.b.begin(body);
        self.flow.frames.push(Frame::Guard { join });
    }

    /// Closes the guards on top of the frames (before the construct they sit in closes).
    fn close_guards(&mut self) {
        while let Some(&Frame::Guard { join, .. }) = self.flow.frames.last() {
            self.flow.frames.pop();
            self.b.branch_and_begin(join);
        }
    }

    /// After a subroutine's construct closes: guard the rest if a nested `ret` was lowered
    /// (and no guard already holds this code, so guards never nest deeper than the
    /// constructs).
    fn guard_rest(&mut self) {
        if let Some(call) = self.flow.calls.last().copied()
            && call.guarded
            && !matches!(self.flow.frames.last(), Some(Frame::Guard { .. }))
        {
            self.open_guard(call.returned);
        }
    }

    fn begin_dead(&mut self) {
        let b = self.b.new_block();
        self.b.begin(b);
    }

    fn compare(&mut self, c: Controls, a: Operand, b: Operand) -> R<Operand> {
        let Controls::Compare(c) = c else {
            return Err(self.invalid("a comparison without its controls"));
        };
        let op = match c {
            Comparison::Gt => Op::FOrdGreaterThan,
            Comparison::Eq => Op::FOrdEqual,
            Comparison::Ge => Op::FOrdGreaterThanEqual,
            Comparison::Lt => Op::FOrdLessThan,
            Comparison::Ne => Op::FUnordNotEqual,
            Comparison::Le => Op::FOrdLessThanEqual,
        };
        let ty = self.b.type_of(a);
        let rty = if ty == TypeId::F32 {
            TypeId::BOOL
        } else {
            super::regs::BVEC4
        };
        Ok(self.b.op(op, rty, &[a, b]))
    }

    /// The comparison of `ifc`/`breakc`: first component of each (swizzled) source.
    fn compare_sources(&mut self, inst: &Instruction) -> R<Operand> {
        let a = self.read_src(inst, 0)?;
        let b = self.read_src(inst, 1)?;
        let a = self.b.extract(a, 0);
        let b = self.b.extract(b, 0);
        self.compare(inst.controls, a, b)
    }

    fn innermost_loop_exit(&self) -> R<BlockId> {
        let base = self.flow.calls.last().map_or(0, |c| c.frame_base);
        self.flow.frames[base..]
            .iter()
            .rev()
            .find_map(|f| match f {
                Frame::Loop { exit, .. } => Some(*exit),
                Frame::If { .. } | Frame::Guard { .. } => None,
            })
            .ok_or_else(|| self.invalid("break outside a loop or rep"))
    }

    fn open_if(&mut self, cond: Operand) {
        let frame = self.b.open_if(cond);
        self.flow.frames.push(Frame::If(frame));
    }

    /// `loop` (with `aL`) or `rep`: count from `i#`.
    fn open_loop(&mut self, inst: &Instruction, with_al: bool) -> R<()> {
        let i = if with_al { 1 } else { 0 };
        let s = self.src(inst, i)?;
        if s.reg.ty != RT::ConstInt {
            return Err(self.invalid("loop/rep without an i# operand"));
        }
        let iv = self.int_const(s.reg.num);
        let count = self.b.extract(iv, 0);
        let lo = self.b.i32c(0);
        let hi = self.b.i32c(255);
        let count = self
            .b
            .glsl(spirv::GlslStd450Op::SClamp, TypeId::I32, &[count, lo, hi]);
        let counter = self.b.f.new_var(TypeId::I32);
        let zero = self.b.i32c(0);
        self.b.store_var(counter, zero);
        let al = if with_al {
            let al_var = self
                .regs
                .get(&(RT::Loop, 0))
                .map(|v| v[0])
                .ok_or_else(|| self.invalid("loop without aL"))?;
            let start = self.b.extract(iv, 1);
            let step = self.b.extract(iv, 2);
            let saved = self.b.f.new_var(TypeId::I32);
            let old = self.b.load_var(al_var);
            self.b.store_var(saved, old);
            self.b.store_var(al_var, start);
            Some((step, saved))
        } else {
            None
        };
        let header = self.b.new_block();
        let body = self.b.new_block();
        let exit = self.b.new_block();
        self.b.begin_loop(header, exit);
        let n = self.b.load_var(counter);
        let go = self.b.op(Op::SLessThan, TypeId::BOOL, &[n, count]);
        self.b.terminate(Terminator::CondBranch {
            cond: go,
            on_true: body,
            on_false: exit,
        });
        self.b.begin(body);
        self.flow.frames.push(Frame::Loop {
            header,
            exit,
            counter,
            al,
        });
        Ok(())
    }

    fn close_loop(&mut self, what: &str) -> R<()> {
        self.close_guards();
        let base = self.flow.calls.last().map_or(0, |c| c.frame_base);
        if self.flow.frames.len() <= base {
            return Err(self.invalid(format!("{what} without its loop")));
        }
        let Some(Frame::Loop {
            header,
            exit,
            counter,
            al,
        }) = self.flow.frames.pop()
        else {
            return Err(self.invalid(format!("{what} closes an if")));
        };
        if (what == "endloop") != al.is_some() {
            return Err(self.invalid(format!("{what} closes the wrong kind of loop")));
        }
        let al_var = self.regs.get(&(RT::Loop, 0)).map(|v| v[0]);
        if self.b.is_open() {
            if let (Some((step, _)), Some(v)) = (al, al_var) {
                let x = self.b.load_var(v);
                let x = self.b.op(Op::IAdd, TypeId::I32, &[x, step]);
                self.b.store_var(v, x);
            }
            let n = self.b.load_var(counter);
            let one = self.b.i32c(1);
            let n = self.b.op(Op::IAdd, TypeId::I32, &[n, one]);
            self.b.store_var(counter, n);
            self.b.terminate(Terminator::Branch(header));
        }
        self.b.begin(exit);
        if let (Some((_, saved)), Some(v)) = (al, al_var) {
            let x = self.b.load_var(saved);
            self.b.store_var(v, x);
        }
        self.guard_rest();
        Ok(())
    }

    /// Inlines subroutine `l#` here.
    fn call(&mut self, label: &Source) -> R<()> {
        if label.reg.ty != RT::Label {
            return Err(self.invalid("call without an l# operand"));
        }
        let Some(&start) = self.decl.labels.get(&label.reg.num) else {
            return Err(self.invalid(format!(
                "call to l{}, which no label defines",
                label.reg.num
            )));
        };
        if self.flow.calls.len() >= MAX_CALL_DEPTH {
            return Err(self.unsupported(format!(
                "subroutine calls nested deeper than {MAX_CALL_DEPTH} (or recursive)"
            )));
        }
        let end = (start + 1..self.insts.len())
            .find(|&i| self.insts[i].opcode == Opcode::Label)
            .unwrap_or(self.insts.len());
        self.flow.inlined += end - start;
        if self.flow.inlined > MAX_INLINED {
            return Err(self.unsupported(format!(
                "more than {MAX_INLINED} instructions of inlined subroutines"
            )));
        }
        let offset = self.offset;
        self.flush_pending();
        let after = self.b.new_block();
        let returned = self.b.f.new_var(TypeId::BOOL);
        let f = self.b.boolc(false);
        self.b.store_var(returned, f);
        self.flow.calls.push(CallCtx {
            after,
            frame_base: self.flow.frames.len(),
            returned,
            guarded: false,
        });
        self.lower_range(start + 1..end)?;
        self.close_guards();
        let base = self.flow.calls.last().map_or(0, |c| c.frame_base);
        if self.flow.frames.len() != base {
            return Err(self.invalid("a subroutine ends inside an if, loop or rep"));
        }
        self.flow.calls.pop();
        self.b.terminate(Terminator::Branch(after));
        self.b.begin(after);
        self.offset = offset;
        Ok(())
    }

    /// The flow-control instructions.
    pub(super) fn flow_op(&mut self, inst: &Instruction) -> R<()> {
        if matches!(
            inst.opcode,
            Opcode::If | Opcode::IfC | Opcode::Loop | Opcode::Rep
        ) && self.flow.frames.len() >= MAX_FLOW_DEPTH
        {
            return Err(
                self.unsupported(format!("flow control nested deeper than {MAX_FLOW_DEPTH}"))
            );
        }
        self.flush_pending();
        match inst.opcode {
            Opcode::If => {
                let s = self.src(inst, 0)?;
                let c = self.condition(&s)?;
                self.open_if(c);
            }
            Opcode::IfC => {
                let c = self.compare_sources(inst)?;
                self.open_if(c);
            }
            Opcode::Else => {
                self.close_guards();
                let base = self.flow.calls.last().map_or(0, |c| c.frame_base);
                let Some(&Frame::If(mut frame @ IfFrame { end: None, .. })) = self
                    .flow
                    .frames
                    .last()
                    .filter(|_| self.flow.frames.len() > base)
                else {
                    return Err(self.invalid("else without its if"));
                };
                self.b.begin_else(&mut frame);
                *self.flow.frames.last_mut().expect("matched above") = Frame::If(frame);
            }
            Opcode::EndIf => {
                self.close_guards();
                let base = self.flow.calls.last().map_or(0, |c| c.frame_base);
                if self.flow.frames.len() <= base {
                    return Err(self.invalid("endif without its if"));
                }
                let Some(Frame::If(frame)) = self.flow.frames.pop() else {
                    return Err(self.invalid("endif closes a loop"));
                };
                self.b.close_if(frame);
                self.guard_rest();
            }
            Opcode::Loop => self.open_loop(inst, true)?,
            Opcode::Rep => self.open_loop(inst, false)?,
            Opcode::EndLoop => self.close_loop("endloop")?,
            Opcode::EndRep => self.close_loop("endrep")?,
            Opcode::Break => {
                let exit = self.innermost_loop_exit()?;
                self.b.terminate(Terminator::Branch(exit));
                self.begin_dead();
            }
            Opcode::BreakC | Opcode::BreakP => {
                let exit = self.innermost_loop_exit()?;
                let cond = if inst.opcode == Opcode::BreakC {
                    self.compare_sources(inst)?
                } else {
                    let s = self.src(inst, 0)?;
                    self.condition(&s)?
                };
                let next = self.b.new_block();
                let header = self.b.current();
                self.b.terminate(Terminator::CondBranch {
                    cond,
                    on_true: exit,
                    on_false: next,
                });
                self.b.f.block_mut(header).join = Some(next);
                self.b.begin(next);
            }
            Opcode::Call => {
                let l = self.src(inst, 0)?;
                self.call(&l)?;
            }
            Opcode::CallNz => {
                let l = self.src(inst, 0)?;
                let s = self.src(inst, 1)?;
                let cond = self.condition(&s)?;
                let header = self.b.current();
                let then_block = self.b.new_block();
                let join = self.b.new_block();
                self.b.terminate(Terminator::CondBranch {
                    cond,
                    on_true: then_block,
                    on_false: join,
                });
                self.b.f.block_mut(header).join = Some(join);
                self.b.begin(then_block);
                self.call(&l)?;
                self.b.branch_and_begin(join);
            }
            Opcode::Ret => {
                self.emit_return()?;
                if !self.b.is_open() {
                    self.begin_dead();
                }
            }
            Opcode::Label => return Err(self.invalid("label inside the code it ends")),
            _ => return Err(self.invalid("not a flow-control instruction")),
        }
        Ok(())
    }
}
