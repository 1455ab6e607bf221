//! Following the program's structure: blocks, `if`s, switches, `break`/`continue`/`ret`/
//! `discard`, subroutine calls and barriers. Each splits the running threads by the
//! condition's per-thread value where it is known, marks what runs under a condition that
//! depends on the order, and joins the paths again where they meet.

use super::{LoopCtx, MAX_CALL_DEPTH, Mask, Run, SITE_EPOCH, State};
use crate::diff::order::Why;
use crate::diff::order::flow::{Block, Stmt};
use crate::diff::order::value::Val;
use std::rc::Rc;
use translator::sm4::{Opcode as O, OperandType as T, sync_flags};

impl<'a> Run<'a> {
    pub(super) fn block(&mut self, b: &Block, mut st: State) -> State {
        for s in b {
            if st.mask.is_empty() || self.failed.is_some() {
                break;
            }
            st = self.stmt(s, st);
        }
        st
    }

    /// The threads of `mask` for which `cond` (component 0 of the operand) passes the test,
    /// and those for which it fails; an unknown condition may go either way.
    fn split(&self, mask: &Mask, cond: &Val, nonzero: bool) -> (Mask, Mask) {
        let Some(k) = &cond.known else {
            return (mask.clone(), mask.clone());
        };
        let (mut yes, mut no) = (mask.none(), mask.none());
        for t in mask.iter() {
            if (k.at(t) != 0) == nonzero {
                yes.set(t);
            } else {
                no.set(t);
            }
        }
        (yes, no)
    }

    fn cond(&mut self, st: &State, i: usize) -> (Val, bool) {
        let inst = self.inst(i);
        let nonzero = inst.test_nonzero().unwrap_or(true);
        let v = self.read(st, &inst, inst.info().dsts(), 0);
        (v, nonzero)
    }

    fn stmt(&mut self, s: &Stmt, mut st: State) -> State {
        match s {
            Stmt::Op(i) => {
                self.op(*i, &mut st);
                st
            }
            Stmt::If { at, then, els } => {
                let (c, nz) = self.cond(&st, *at);
                let (tm, em) = self.split(&st.mask, &c, nz);
                let ctl = st.ctl;
                let mut a = st.clone();
                a.mask = tm;
                a.ctl |= c.od;
                let mut b = st;
                b.mask = em;
                b.ctl |= c.od;
                let a = self.block(then, a);
                let b = self.block(els, b);
                let mut m = self.merge(vec![a, b]);
                m.ctl = ctl;
                m
            }
            Stmt::Loop(body) => self.run_loop(body, st),
            Stmt::Switch { at, cases } => {
                let inst = self.inst(*at);
                let sel = self.read(&st, &inst, 0, 0);
                let all: Vec<u32> = cases.iter().flat_map(|c| c.values.clone()).collect();
                let ctl = st.ctl;
                let mut exits = Vec::new();
                let mut fall: Option<State> = None;
                let mut any_default = false;
                for case in cases {
                    any_default |= case.default;
                    let mut entry = st.clone();
                    entry.ctl |= sel.od;
                    if let Some(k) = &sel.known {
                        let mut m = st.mask.none();
                        for t in st.mask.iter() {
                            let v = k.at(t);
                            if case.values.contains(&v) || (case.default && !all.contains(&v)) {
                                m.set(t);
                            }
                        }
                        entry.mask = m;
                    }
                    let start = match fall.take() {
                        Some(f) => self.merge(vec![entry, f]),
                        None => entry,
                    };
                    self.loops.push(LoopCtx {
                        switch: true,
                        breaks: Vec::new(),
                        continues: Vec::new(),
                    });
                    let end = self.block(&case.body, start);
                    let ctx = self.loops.pop().expect("pushed");
                    exits.extend(ctx.breaks);
                    fall = Some(end);
                }
                exits.extend(fall);
                if !any_default {
                    let mut skip = st.clone();
                    if let Some(k) = &sel.known {
                        let mut m = st.mask.none();
                        for t in st.mask.iter() {
                            if !all.contains(&k.at(t)) {
                                m.set(t);
                            }
                        }
                        skip.mask = m;
                    }
                    exits.push(skip);
                }
                exits.push(State {
                    mask: st.mask.none(),
                    ..st
                });
                let mut m = self.merge(exits);
                m.ctl = ctl;
                m
            }
            Stmt::Break(c) | Stmt::Continue(c) => {
                let is_break = matches!(s, Stmt::Break(_));
                let (leave, stay, decided) = self.leaving(&st, *c);
                let mut l = st.clone();
                l.mask = leave;
                l.sticky |= decided;
                let ctx = if is_break {
                    self.loops.last_mut()
                } else {
                    self.loops.iter_mut().rev().find(|c| !c.switch)
                };
                match ctx {
                    Some(ctx) if is_break => ctx.breaks.push(l),
                    Some(ctx) => ctx.continues.push(l),
                    None => self.fail("break or continue outside a loop"),
                }
                st.mask = stay;
                st.sticky |= decided;
                st
            }
            Stmt::Ret(c) => {
                let (leave, stay, decided) = self.leaving(&st, *c);
                if let Some(f) = self.frames.last_mut() {
                    let mut l = st.clone();
                    l.mask = leave;
                    l.sticky |= decided;
                    f.push(l);
                }
                st.mask = stay;
                st.sticky |= decided;
                st
            }
            Stmt::Discard(i) => {
                let (_, stay, decided) = self.leaving(&st, Some(*i));
                // A discarded pixel writes no output.
                if decided {
                    self.all_od.get_or_insert(Why::Discard);
                }
                st.mask = stay;
                st.sticky |= decided;
                st
            }
            Stmt::Call(i) => self.call(*i, st),
            Stmt::Sync(at, flags) => {
                if flags & sync_flags::THREADS_IN_GROUP != 0 {
                    // In a loop iterated to a fixed point one id stands for every pass.
                    let id = if self.fixpoint > 0 {
                        SITE_EPOCH + *at as u32
                    } else {
                        self.next_epoch += 1;
                        self.next_epoch
                    };
                    if flags & sync_flags::THREAD_GROUP_SHARED_MEMORY != 0 {
                        st.ep_g = Rc::new([id].into());
                    }
                    if flags & (sync_flags::UAV_MEMORY_GROUP | sync_flags::UAV_MEMORY_GLOBAL) != 0 {
                        st.ep_u = Rc::new([id].into());
                    }
                }
                st
            }
            Stmt::Unsupported(i) => {
                let name = self.inst(*i).info().name;
                self.fail(format!("{name} is not followed"));
                st
            }
        }
    }

    /// For break/continue/ret/discard: (threads that leave, threads that stay, whether the
    /// decision depends on the order threads run in).
    fn leaving(&mut self, st: &State, c: Option<usize>) -> (Mask, Mask, bool) {
        let decided_by_order = st.ctl;
        match c {
            None => (st.mask.clone(), st.mask.none(), decided_by_order),
            Some(i) => {
                let (v, nz) = self.cond(st, i);
                let (yes, no) = self.split(&st.mask, &v, nz);
                (yes, no, decided_by_order || v.od)
            }
        }
    }

    fn call(&mut self, i: usize, st: State) -> State {
        let inst = self.inst(i);
        let (taken, skipped) = if inst.opcode == O::Callc {
            let (c, nz) = self.cond(&st, i);
            let (yes, no) = self.split(&st.mask, &c, nz);
            let mut a = st.clone();
            a.mask = yes;
            a.ctl |= c.od;
            let mut b = st.clone();
            b.mask = no;
            (a, Some(b))
        } else {
            (st.clone(), None)
        };
        let label = inst
            .operands
            .iter()
            .find(|o| o.ty == T::Label)
            .and_then(|o| o.register());
        let Some(body) = label.and_then(|l| self.flow.functions.get(&l)) else {
            self.fail("a call to a missing subroutine");
            return st;
        };
        if self.frames.len() >= MAX_CALL_DEPTH {
            self.fail("calls nested too deep");
            return st;
        }
        let loops = std::mem::take(&mut self.loops);
        self.frames.push(Vec::new());
        let end = self.block(body, taken);
        let mut parts = self.frames.pop().expect("pushed");
        self.loops = loops;
        parts.push(end);
        parts.extend(skipped);
        let mut m = self.merge(parts);
        m.ctl = st.ctl;
        m
    }
}
