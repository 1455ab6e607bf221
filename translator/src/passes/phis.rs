//! Keeping phis true to the graph when the structurizer moves edges.
//!
//! Lowering builds SSA form as it goes (`ir::ssa`), so the functions the structurizer reshapes
//! already have phis, each with one input per predecessor. The structurizer makes new blocks
//! in the middle of edges (a loop's continue block, a forwarding block before a merge) and
//! splits loop headers; these helpers bring the phis along: inputs from the blocks whose edges
//! now go through a new block become one input from that block (a new phi there when they
//! differ), and a split header's successors name the block that now branches to them.

use smallvec::SmallVec;
use spirv::Op;

use crate::ir::{Args, BlockId, Function, Inst, Operand};

/// How many phis open block `b`.
pub fn count(f: &Function, b: BlockId) -> usize {
    let insts = &f.block(b).insts;
    insts
        .iter()
        .position(|&v| f.inst(v).op != Op::Phi)
        .unwrap_or(insts.len())
}

/// The edges into `target` from the blocks `moved` now go to `fwd`, a new block that branches
/// to `target`: each phi of `target` takes one input from `fwd` in place of theirs, their one
/// value or a new phi of `fwd` choosing among them.
/// `mark` is a working buffer (all false on entry and on return).
pub fn forward(
    f: &mut Function,
    target: BlockId,
    fwd: BlockId,
    moved: &[BlockId],
    mark: &mut Vec<bool>,
) {
    if moved.is_empty() || count(f, target) == 0 {
        return;
    }
    if mark.len() < f.blocks.len() {
        mark.resize(f.blocks.len(), false);
    }
    for &b in moved {
        mark[b.0 as usize] = true;
    }
    for k in 0..count(f, target) {
        let phi = f.block(target).insts[k];
        let mut from: SmallVec<[Operand; 8]> = SmallVec::new();
        let mut kept = Args::new();
        for pair in f.inst(phi).args.chunks(2) {
            let pred = pair[1].block().expect("phi inputs name their block");
            if mark[pred.0 as usize] {
                from.extend_from_slice(pair);
            } else {
                kept.extend_from_slice(pair);
            }
        }
        if from.is_empty() {
            continue;
        }
        let first = from[0];
        let v = if from.chunks(2).all(|p| p[0] == first) {
            first
        } else {
            let ty = f.inst(phi).ty;
            let p = f.add_inst(Inst::new(Op::Phi, ty, Args::from_slice(&from)));
            let at = count(f, fwd);
            f.block_mut(fwd).insts.insert(at, p);
            Operand::Value(p)
        };
        kept.push(v);
        kept.push(Operand::Block(fwd));
        f.inst_mut(phi).args = kept;
    }
    for &b in moved {
        mark[b.0 as usize] = false;
    }
}

/// The phis of `s` that name `from` as a predecessor name `to` instead.
pub fn rename_pred(f: &mut Function, s: BlockId, from: BlockId, to: BlockId) {
    for k in 0..count(f, s) {
        let phi = f.block(s).insts[k];
        for a in f.inst_mut(phi).args.iter_mut().skip(1).step_by(2) {
            if *a == Operand::Block(from) {
                *a = Operand::Block(to);
            }
        }
    }
}
