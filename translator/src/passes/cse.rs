//! Common-subexpression elimination over the dominator tree.
//!
//! D3D programs re-read the same constant-buffer element, re-extract the same components and
//! re-derive the same booleans many times; after lowering and simplification these are
//! identical pure instructions. An instruction identical to one in a dominating position is
//! replaced by it. Loads count as pure when they read memory nothing writes (constant buffers,
//! stage inputs, images and samplers, the immediate constant buffer). `OpSampledImage` and
//! derivatives are only merged within a block (SPIR-V requires sampled images to be used in the
//! block that makes them; derivatives must not move across control flow).

use spirv::{Op, StorageClass};

use super::cfg::DomTree;
use super::dce::has_side_effects;
use super::repl::Replacements;
use crate::ir::{BlockId, Function, Global, Operand, TypeId, ValueId};

/// An operand as one word of an instruction's key: its kind in the top three bits, its index
/// or literal below. `None` for operands that are never merged (variables, indices from 2^29).
#[inline]
fn key_word(a: Operand) -> Option<u32> {
    let (tag, x) = match a {
        Operand::Value(v) => (0, v.0),
        Operand::Const(c) => (1, c.0),
        Operand::Global(g) => (2, g.0),
        Operand::Block(b) => (3, b.0),
        Operand::Lit(l) => (4, l),
        Operand::Var(_) => return None,
    };
    (x < 1 << 29).then_some((tag << 29) | x)
}

/// One step of the key's hash (the Fx hash's step: rotate, xor, multiply).
#[inline]
fn mix(h: u64, w: u32) -> u64 {
    (h.rotate_left(5) ^ u64::from(w)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

/// Whether two instructions compute the same thing (same opcode, flags, type and operands).
#[inline]
fn same_inst(f: &Function, a: ValueId, b: ValueId) -> bool {
    let (x, y) = (f.inst(a), f.inst(b));
    x.op == y.op && x.flags == y.flags && x.ty == y.ty && x.args == y.args
}

fn block_local(op: Op) -> bool {
    matches!(
        op,
        Op::SampledImage
            | Op::DPdx
            | Op::DPdy
            | Op::DPdxCoarse
            | Op::DPdyCoarse
            | Op::DPdxFine
            | Op::DPdyFine
            | Op::Fwidth
            | Op::ImageSampleImplicitLod
            | Op::ImageSampleDrefImplicitLod
            | Op::ImageSparseSampleImplicitLod
            | Op::ImageSparseSampleDrefImplicitLod
            | Op::ImageQueryLod
    )
}

/// Ops never merged: their results depend on memory or on the invocation's state.
fn never(op: Op) -> bool {
    matches!(
        op,
        Op::Phi
            | Op::Variable
            | Op::ImageRead
            | Op::ImageSparseRead
            | Op::ImageTexelPointer
            | Op::IsHelperInvocationEXT
            | Op::ReadClockKHR
            | Op::FunctionCall
            | Op::Nop
    ) || has_side_effects(op)
}

/// How CSE treats an opcode: never merged, merged only within a block, or merged anywhere.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Never,
    Local,
    Anywhere,
}

/// The opcodes below this have their [`Kind`] in [`KINDS`]; the rest (extension opcodes,
/// numbered from 4400) are classified by [`kind_of`] each time.
const TABLED: usize = 512;

/// [`kind_of`] of every opcode below [`TABLED`], computed once: one load per instruction
/// instead of the two `matches!` trees.
static KINDS: std::sync::LazyLock<[Kind; TABLED]> = std::sync::LazyLock::new(|| {
    std::array::from_fn(|i| Op::from_u32(i as u32).map_or(Kind::Never, kind_of))
});

fn kind_of(op: Op) -> Kind {
    if never(op) {
        Kind::Never
    } else if block_local(op) {
        Kind::Local
    } else {
        Kind::Anywhere
    }
}

#[inline]
fn kind(op: Op) -> Kind {
    match KINDS.get(op as usize) {
        Some(&k) => k,
        None => kind_of(op),
    }
}

/// Storage classes whose memory a shader cannot write.
fn read_only(storage: StorageClass) -> bool {
    matches!(
        storage,
        StorageClass::Uniform
            | StorageClass::UniformConstant
            | StorageClass::Input
            | StorageClass::PushConstant
    )
}

/// This pass's working buffers, kept across functions and translations (see
/// [`super::Scratch`]).
#[derive(Debug, Default)]
pub struct Scratch {
    /// The available instructions: an open-addressed table (linear probing over its first
    /// power of two at least twice the function's placed instructions, so never full). A slot
    /// is 16 bits of the key's hash, the generation (below) that filled it, and the
    /// instruction's value index plus one. Slots of another generation are empty, so the table
    /// is not cleared between functions.
    table: Vec<u64>,
    /// This function's generation (never 0: a zeroed slot is always empty); when it wraps,
    /// the table is cleared.
    generation: u16,
    /// Per value in the table: the block it was placed in (only read for values in the table;
    /// grown, never cleared).
    block_of: Vec<u32>,
    /// A copy of the list of the block being rebuilt (the block's own vector is refilled).
    insts: Vec<ValueId>,
    /// The blocks still to visit (dominator-tree pre-order).
    stack: Vec<BlockId>,
    /// Per global: whether the function writes it (private globals only).
    written: Vec<bool>,
}

/// Removes repeated pure computations from `f`.
#[inline(never)] // a frame of its own in profiles (called once per function)
pub fn eliminate_common_subexpressions(
    f: &mut Function,
    globals: &[Global],
    dom: &DomTree,
    repl: &mut Replacements,
    scratch: &mut Scratch,
) {
    let Scratch {
        table,
        generation,
        block_of,
        insts,
        stack,
        written,
    } = scratch;
    let base_global = |f: &Function, mut o: Operand| -> Option<u32> {
        loop {
            match o {
                Operand::Global(g) => return Some(g.0),
                Operand::Value(v)
                    if matches!(f.inst(v).op, Op::AccessChain | Op::InBoundsAccessChain) =>
                {
                    o = f.inst(v).args[0]
                }
                _ => return None,
            }
        }
    };
    // Private globals written somewhere (their loads are not pure); most programs have no
    // private globals, and then nothing needs scanning.
    written.clear();
    if globals.iter().any(|g| g.storage == StorageClass::Private) {
        written.resize(globals.len(), false);
        for &b in &f.layout {
            for &v in &f.block(b).insts {
                let i = f.inst(v);
                if has_side_effects(i.op)
                    && let Some(g) = i.args.first().and_then(|&a| base_global(f, a))
                {
                    written[g as usize] = true;
                }
            }
        }
    }
    let pure_load = |f: &Function, ptr: Operand| -> bool {
        match base_global(f, ptr) {
            Some(g) => {
                let gl = &globals[g as usize];
                read_only(gl.storage)
                    || (gl.storage == StorageClass::Private && !written[g as usize])
            }
            None => false,
        }
    };

    // Blocks are visited in dominator-tree pre-order. An entry is valid for a block when the
    // block that made it dominates this one; an entry from a subtree already left is stale and
    // is simply overwritten (no ancestor can hold the same key: its instruction would have been
    // merged into the ancestor's), so the table needs no undo log. The table holds one entry
    // per key (opcode, flags, type, operands); a key is hashed from its words, and entries
    // compare the instructions themselves.
    repl.reset(f.insts.len());
    // Every block's instructions (a superset of those the walk inserts), so the table is at
    // most half full.
    let placed: usize = f.blocks.iter().map(|b| b.insts.len()).sum();
    let size = (2 * placed).next_power_of_two().max(16);
    *generation = generation.wrapping_add(1);
    if *generation == 0 {
        table.fill(0);
        *generation = 1;
    }
    if table.len() < size {
        table.resize(size, 0);
    }
    let generation = u64::from(*generation);
    if block_of.len() < f.insts.len() {
        block_of.resize(f.insts.len(), 0);
    }
    let mask = size - 1;
    stack.clear();
    stack.push(dom.root());
    while let Some(b) = stack.pop() {
        // The block's list is copied out and its own vector refilled (it only shrinks).
        let mut kept = std::mem::take(&mut f.block_mut(b).insts);
        insts.clear();
        insts.extend_from_slice(&kept);
        kept.clear();
        for &v in insts.iter() {
            // Operands are resolved through earlier merges, and hashed into the key of a
            // candidate: a pure instruction with a result whose operands all have a key word.
            let resolve = !repl.is_empty();
            let inst = f.inst_mut(v);
            let op_kind = kind(inst.op);
            let mut candidate =
                op_kind != Kind::Never && inst.ty != TypeId::VOID && inst.args.len() <= 6;
            let mut h = mix(
                mix(0, inst.op as u32 | u32::from(inst.flags) << 24),
                inst.ty.0,
            );
            for a in inst.args.iter_mut() {
                if resolve && let Operand::Value(_) = *a {
                    *a = repl.resolve(*a);
                }
                if candidate {
                    match key_word(*a) {
                        Some(w) => h = mix(h, w),
                        None => candidate = false,
                    }
                }
            }
            let inst = f.inst(v);
            // The value index plus one marks a used slot (an arena of 2^32 values cannot
            // exist, but such a value would simply not be merged).
            let mark = match v.0.checked_add(1) {
                Some(m) if candidate && (inst.op != Op::Load || pure_load(f, inst.args[0])) => m,
                _ => {
                    kept.push(v);
                    continue;
                }
            };
            let local = op_kind == Kind::Local;
            let hash = h >> 48;
            let new = hash << 48 | generation << 32 | u64::from(mark);
            let mut i = (h >> 32) as usize & mask;
            loop {
                let s = table[i];
                if (s >> 32) & 0xffff != generation {
                    table[i] = new;
                    block_of[v.0 as usize] = b.0;
                    kept.push(v);
                    break;
                }
                let prev = ValueId(s as u32 - 1);
                if s >> 48 == hash && same_inst(f, prev, v) {
                    let pb = BlockId(block_of[prev.0 as usize]);
                    if if local { pb == b } else { dom.dominates(pb, b) } {
                        repl.set(v, Operand::Value(prev));
                    } else {
                        table[i] = new;
                        block_of[v.0 as usize] = b.0;
                        kept.push(v);
                    }
                    break;
                }
                i = (i + 1) & mask;
            }
        }
        f.block_mut(b).insts = kept;
        if !repl.is_empty() {
            let mut term = std::mem::replace(&mut f.block_mut(b).term, crate::ir::Terminator::Open);
            match &mut term {
                crate::ir::Terminator::CondBranch { cond, .. } => *cond = repl.resolve(*cond),
                crate::ir::Terminator::Switch { selector, .. } => {
                    *selector = repl.resolve(*selector)
                }
                _ => {}
            }
            f.block_mut(b).term = term;
        }
        for &c in dom.children(b).iter().rev() {
            stack.push(c);
        }
    }
    // Phis name values from blocks visited later.
    repl.apply_to_phis(f);
    // A huge function's table is not kept for the next ones (768 KiB at most stays).
    if table.len() > 1 << 16 {
        *table = Vec::new();
        *block_of = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table gives every opcode the kind the classification does, and leaves none of the
    /// never-merged ones mergeable.
    #[test]
    fn the_kind_table_agrees_with_the_classification() {
        for i in 0..6000 {
            if let Some(op) = Op::from_u32(i) {
                assert!(kind(op) == kind_of(op), "{op:?}");
            }
        }
        assert!(kind(Op::Store) == Kind::Never);
        assert!(kind(Op::Phi) == Kind::Never);
        assert!(kind(Op::DemoteToHelperInvocation) == Kind::Never);
        assert!(kind(Op::SampledImage) == Kind::Local);
        assert!(kind(Op::FAdd) == Kind::Anywhere);
    }
}
