//! Dead-code elimination: drops every instruction whose result nothing needs.
//!
//! Lowering is free to produce values speculatively (all components of an input register, both
//! halves of a `umul`, bitcasts a later fold makes redundant); this pass removes what no side
//! effect, terminator or live value depends on, phis included (a phi web that only feeds itself
//! dies too, because liveness starts from the roots rather than from use counts).

use spirv::Op;

use crate::ir::{Function, Operand, Terminator, ValueId};

/// True for instructions that must stay even when their result is unused (and for a
/// placeholder, `Op::Nop`, which [`eliminate_dead_code`] keeps too: see `ir::Inst`).
pub fn has_side_effects(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        Store
            | ImageWrite
            | AtomicLoad
            | AtomicStore
            | AtomicExchange
            | AtomicCompareExchange
            | AtomicIIncrement
            | AtomicIDecrement
            | AtomicIAdd
            | AtomicISub
            | AtomicSMin
            | AtomicUMin
            | AtomicSMax
            | AtomicUMax
            | AtomicAnd
            | AtomicOr
            | AtomicXor
            | ControlBarrier
            | MemoryBarrier
            | EmitVertex
            | EndPrimitive
            | EmitStreamVertex
            | EndStreamPrimitive
            | DemoteToHelperInvocation
            | FunctionCall
            | CopyMemory
            | BeginInvocationInterlockEXT
            | EndInvocationInterlockEXT
    )
}

/// This pass's working buffers, kept across functions and translations (see
/// [`super::Scratch`]).
#[derive(Debug, Default)]
pub struct Scratch {
    /// Per value of the arena: whether it is live.
    live: Vec<bool>,
    /// Live values whose operands are still to be marked.
    work: Vec<ValueId>,
}

/// Removes dead instructions from `f`'s blocks.
pub fn eliminate_dead_code(f: &mut Function, scratch: &mut Scratch) {
    let n = f.insts.len();
    let Scratch { live, work } = scratch;
    live.clear();
    live.resize(n, false);
    work.clear();
    let mark = |o: &Operand, live: &mut [bool], work: &mut Vec<ValueId>| {
        if let Operand::Value(v) = *o
            && !live[v.0 as usize]
        {
            live[v.0 as usize] = true;
            work.push(v);
        }
    };
    for &b in &f.layout {
        let blk = f.block(b);
        for &v in &blk.insts {
            let op = f.inst(v).op;
            if (has_side_effects(op) || op == Op::Nop) && !live[v.0 as usize] {
                live[v.0 as usize] = true;
                work.push(v);
            }
        }
        match &blk.term {
            Terminator::CondBranch { cond, .. } => mark(cond, live, work),
            Terminator::Switch { selector, .. } => mark(selector, live, work),
            _ => {}
        }
    }
    while let Some(v) = work.pop() {
        // Split borrow: args are read from the arena while `live` is updated.
        let args = &f.insts[v.0 as usize].args;
        for a in args {
            mark(a, live, work);
        }
    }
    for bi in 0..f.layout.len() {
        let b = f.layout[bi];
        let blk = &mut f.blocks[b.0 as usize];
        blk.insts.retain(|v| live[v.0 as usize]);
    }
}
