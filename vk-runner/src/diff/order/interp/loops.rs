//! Loops: unrolled while every thread's exit is known, so each iteration's accesses and
//! barriers are its own; else iterated to a fixed point, where one pass stands for every
//! iteration.

use super::{LoopCtx, MAX_FIXPOINT, MAX_UNROLL, Run, State};
use crate::diff::order::flow::Block;

impl<'a> Run<'a> {
    pub(super) fn run_loop(&mut self, body: &Block, st: State) -> State {
        // Unrolled, while every thread's exit is known (each iteration's own accesses, and
        // barrier ids of its own).
        let mark = self.accesses.len();
        let mut cur = st.clone();
        let mut exits = Vec::new();
        let mut unrolled = false;
        for _ in 0..MAX_UNROLL {
            if cur.mask.is_empty() || self.failed.is_some() {
                unrolled = true;
                break;
            }
            let (end, ctx) = self.iteration(body, cur);
            let mut next = ctx.continues;
            next.push(end);
            cur = self.merge(next);
            // A thread that may both leave and go on: its exit is not known.
            let mut left = cur.mask.none();
            for b in &ctx.breaks {
                left.or(&b.mask);
            }
            exits.extend(ctx.breaks);
            if left.0.iter().zip(&cur.mask.0).any(|(a, b)| a & b != 0) {
                break;
            }
        }
        if unrolled {
            exits.push(cur);
            return self.merge(exits);
        }
        // Iterated to a fixed point: each value at the head joins every iteration's.
        self.accesses.truncate(mark);
        let recording = self.recording;
        self.recording = false;
        self.fixpoint += 1;
        let mut head = st.clone();
        let mut stable = false;
        for _ in 0..MAX_FIXPOINT {
            if self.failed.is_some() {
                break;
            }
            let (end, ctx) = self.iteration(body, head.clone());
            let mut parts = vec![st.clone(), end];
            parts.extend(ctx.continues);
            let next = self.merge(parts);
            if next == head {
                stable = true;
                break;
            }
            head = next;
        }
        if !stable {
            self.fail("a loop whose values do not settle");
        }
        self.recording = recording;
        let (end, ctx) = self.iteration(body, head);
        self.fixpoint -= 1;
        let mut exits = ctx.breaks;
        exits.push(State {
            mask: end.mask.none(),
            ..end
        });
        self.merge(exits)
    }

    fn iteration(&mut self, body: &Block, st: State) -> (State, LoopCtx) {
        self.loops.push(LoopCtx {
            switch: false,
            breaks: Vec::new(),
            continues: Vec::new(),
        });
        let end = self.block(body, st);
        (end, self.loops.pop().expect("pushed"))
    }
}
