//! Common-subexpression elimination over the dominator tree.
//!
//! D3D programs re-read the same constant-buffer element, re-extract the same components and
//! re-derive the same booleans many times; after lowering and simplification these are
//! identical pure instructions. An instruction identical to one in a dominating position is
//! replaced by it. Loads count as pure when they read memory nothing writes (constant buffers,
//! stage inputs, images and samplers, the immediate constant buffer). `OpSampledImage` and
//! derivatives are only merged within a block (SPIR-V requires sampled images to be used in the
//! block that makes them; derivatives must not move across control flow).

use rustc_hash::FxHashMap as HashMap;

use spirv::{Op, StorageClass};

use super::cfg::DomTree;
use super::dce::has_side_effects;
use super::ssa::Replacements;
use crate::ir::{BlockId, Function, Global, Operand, TypeId, ValueId};

/// An instruction packed into words: opcode and flags, result type and up to six operands,
/// each operand tagged in its top three bits. Instructions that do not fit are never merged.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key([u32; 8]);

impl std::hash::Hash for Key {
    /// Four 64-bit words: cheaper to hash than the bytes of the array.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for pair in self.0.chunks_exact(2) {
            state.write_u64((pair[0] as u64) << 32 | pair[1] as u64);
        }
    }
}

fn pack(op: Op, flags: u8, ty: TypeId, args: &[Operand]) -> Option<Key> {
    if args.len() > 6 {
        return None;
    }
    let mut k = [u32::MAX; 8];
    k[0] = op as u32 | (flags as u32) << 24;
    k[1] = ty.0;
    for (i, a) in args.iter().enumerate() {
        let (tag, x) = match *a {
            Operand::Value(v) => (0, v.0),
            Operand::Const(c) => (1, c.0),
            Operand::Global(g) => (2, g.0),
            Operand::Block(b) => (3, b.0),
            Operand::Lit(l) => (4, l),
            Operand::Var(_) => return None,
        };
        if x >= 1 << 29 {
            return None;
        }
        k[2 + i] = (tag << 29) | x;
    }
    Some(Key(k))
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
    ) || has_side_effects(op)
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
pub struct Scratch {}

/// Removes repeated pure computations from `f`.
#[inline(never)] // a frame of its own in profiles (called once per function)
pub fn eliminate_common_subexpressions(
    f: &mut Function,
    globals: &[Global],
    dom: &DomTree,
    repl: &mut Replacements,
    _scratch: &mut Scratch,
) {
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
    let mut written = Vec::new();
    if globals.iter().any(|g| g.storage == StorageClass::Private) {
        written = vec![false; globals.len()];
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
    // merged into the ancestor's), so the table needs no undo log.
    repl.reset(f.insts.len());
    let placed: usize = f.layout.iter().map(|&b| f.block(b).insts.len()).sum();
    let mut table: HashMap<Key, (ValueId, BlockId)> =
        HashMap::with_capacity_and_hasher(placed, Default::default());
    let mut spare: Vec<ValueId> = Vec::new();
    let mut stack: Vec<BlockId> = vec![dom.root()];
    while let Some(b) = stack.pop() {
        // The block's list is rebuilt in a spare vector; the old one becomes the next spare.
        let insts = std::mem::replace(&mut f.block_mut(b).insts, std::mem::take(&mut spare));
        let mut kept = std::mem::take(&mut f.block_mut(b).insts);
        kept.clear();
        kept.reserve(insts.len());
        for &v in &insts {
            if !repl.is_empty() {
                for a in f.inst_mut(v).args.iter_mut() {
                    if let Operand::Value(_) = *a {
                        *a = repl.resolve(*a);
                    }
                }
            }
            let inst = f.inst(v);
            let mergeable = !never(inst.op)
                && inst.ty != TypeId::VOID
                && (inst.op != Op::Load || pure_load(f, inst.args[0]));
            if !mergeable {
                kept.push(v);
                continue;
            }
            let Some(key) = pack(inst.op, inst.flags, inst.ty, &inst.args) else {
                kept.push(v);
                continue;
            };
            let local = block_local(inst.op);
            match table.entry(key) {
                std::collections::hash_map::Entry::Occupied(mut e) => {
                    let (prev, pb) = *e.get();
                    if if local { pb == b } else { dom.dominates(pb, b) } {
                        repl.set(v, Operand::Value(prev));
                    } else {
                        e.insert((v, b));
                        kept.push(v);
                    }
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert((v, b));
                    kept.push(v);
                }
            }
        }
        f.block_mut(b).insts = kept;
        spare = insts;
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
}
