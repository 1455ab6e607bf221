//! Phi retyping ("type propagation"): register phis take the type of the values they carry.
//!
//! D3D registers are untyped, so SSA construction makes every phi `u32` and every value that
//! flows through a loop or a join is bitcast to `u32` on the way in and back to, say, `f32` on
//! the way out. This pass groups phis that feed each other into webs and gives each web the
//! one type its incoming values have once bitcasts are looked through (constants adapt to any
//! type). Bitcasts into the web disappear; uses that wanted the old type get one bitcast
//! placed after the phis.

use smallvec::SmallVec;
use spirv::Op;

use super::ssa::Replacements;
use crate::ir::builder::recast_const;
use crate::ir::{BlockId, ConstTable, Function, Inst, Operand, TypeId, TypeTable, ValueId};

fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let p = parent[x as usize];
        parent[x as usize] = parent[p as usize];
        x = p;
    }
    x
}

/// This pass's working buffers, kept across functions and translations (see
/// [`super::Scratch`]).
#[derive(Debug, Default)]
pub struct Scratch {
    /// Phis in layout order, with their block and old type.
    phis: Vec<(ValueId, BlockId, TypeId)>,
    /// Per value of the arena: its index in `phis`, or `u32::MAX`.
    slot: Vec<u32>,
    /// Union-find parents of the phis (webs).
    parent: Vec<u32>,
    /// Per web root: the web's type (see `UNDECIDED`, `CONFLICT`).
    web_ty: Vec<u32>,
    /// Per phi: its new type, if it changes.
    new_ty: Vec<Option<TypeId>>,
    /// Per phi: its bitcast back to the old type, once made.
    back: Vec<Option<ValueId>>,
    /// A copy of the block list being rewritten.
    insts: Vec<ValueId>,
}

/// Retypes phi webs of `f` (see the module documentation).
#[inline(never)] // a frame of its own in profiles (called once per function)
pub fn retype_phis(
    f: &mut Function,
    types: &TypeTable,
    consts: &mut ConstTable,
    repl: &mut Replacements,
    scratch: &mut Scratch,
) {
    let Scratch {
        phis,
        slot,
        parent,
        web_ty,
        new_ty,
        back,
        insts,
    } = scratch;
    // Phis in layout order, with their block.
    phis.clear();
    for &b in &f.layout {
        for &v in &f.block(b).insts {
            if f.inst(v).op == Op::Phi {
                phis.push((v, b, f.inst(v).ty));
            } else {
                break;
            }
        }
    }
    if phis.is_empty() {
        return;
    }
    slot.clear();
    slot.resize(f.insts.len(), u32::MAX);
    for (i, &(v, _, _)) in phis.iter().enumerate() {
        slot[v.0 as usize] = i as u32;
    }
    let n = phis.len();
    parent.clear();
    parent.extend(0..n as u32);
    for (i, &(v, _, _)) in phis.iter().enumerate() {
        for pair in f.inst(v).args.chunks(2) {
            if let Operand::Value(a) = pair[0]
                && slot[a.0 as usize] != u32::MAX
            {
                let (x, y) = (find(parent, i as u32), find(parent, slot[a.0 as usize]));
                if x != y {
                    parent[x as usize] = y;
                }
            }
        }
    }
    // The type of each web: the common type of incoming values behind bitcasts.
    // u32::MAX = undecided, u32::MAX - 1 = conflicting.
    const UNDECIDED: u32 = u32::MAX;
    const CONFLICT: u32 = u32::MAX - 1;
    web_ty.clear();
    web_ty.resize(n, UNDECIDED);
    for (i, &(v, _, _)) in phis.iter().enumerate() {
        let root = find(parent, i as u32) as usize;
        let phi_ty = f.inst(v).ty;
        if types.shape(phi_ty).is_none_or(|(_, w)| w != 1) {
            web_ty[root] = CONFLICT;
        }
        for pair in f.inst(v).args.chunks(2) {
            let t = match pair[0] {
                Operand::Value(a) if slot[a.0 as usize] != u32::MAX => continue,
                Operand::Value(a) => {
                    let ai = f.inst(a);
                    if ai.op == Op::Bitcast {
                        match ai.args[0] {
                            Operand::Value(x) => f.inst(x).ty,
                            Operand::Const(c) => consts.get(c).ty(),
                            _ => ai.ty,
                        }
                    } else {
                        ai.ty
                    }
                }
                _ => continue,
            };
            web_ty[root] = match web_ty[root] {
                UNDECIDED => t.0,
                CONFLICT => CONFLICT,
                cur if cur == t.0 => cur,
                _ => CONFLICT,
            };
        }
    }
    // Which phis change type.
    new_ty.clear();
    new_ty.resize(n, None);
    for (i, &(v, _, _)) in phis.iter().enumerate() {
        let root = find(parent, i as u32) as usize;
        let t = web_ty[root];
        if t == UNDECIDED || t == CONFLICT {
            continue;
        }
        let t = TypeId(t);
        let old = f.inst(v).ty;
        if t == old
            || types.shape(t).is_none_or(|(s, w)| {
                w != 1 || matches!(s, crate::ir::Scalar::Bool | crate::ir::Scalar::F64)
            })
        {
            continue;
        }
        new_ty[i] = Some(t);
    }
    if new_ty.iter().all(Option::is_none) {
        return;
    }
    // Rewrite incoming values.
    for (i, &(v, _, _)) in phis.iter().enumerate() {
        let Some(t) = new_ty[i] else { continue };
        // In place: each operand is read before it is rewritten, and a phi's own result is
        // never looked into (it is in the web).
        for k in (0..f.inst(v).args.len()).step_by(2) {
            let o = f.inst(v).args[k];
            f.inst_mut(v).args[k] = match o {
                Operand::Value(a) if slot[a.0 as usize] != u32::MAX => o,
                Operand::Value(a) if f.inst(a).op == Op::Bitcast => f.inst(a).args[0],
                Operand::Const(c) => Operand::Const(recast_const(consts, types, c, t).unwrap_or(c)),
                other => other,
            };
        }
        f.inst_mut(v).ty = t;
    }
    // Rewrite uses: bitcasts to the new type vanish; other users get one bitcast back.
    repl.reset(f.insts.len());
    back.clear();
    back.resize(n, None);
    for bi in 0..f.layout.len() {
        let b = f.layout[bi];
        insts.clear();
        insts.extend_from_slice(&f.block(b).insts);
        for &v in insts.iter() {
            // Phis and instructions using a retyped phi are the only ones rewritten.
            let uses_phi = f
                .inst(v)
                .args
                .iter()
                .any(|a| matches!(a, Operand::Value(x) if slot[x.0 as usize] != u32::MAX));
            if !uses_phi {
                resolve_args(f, v, repl);
                continue;
            }
            // Operands are read one at a time: each is rewritten only after it is read.
            let (op, ty, nargs) = {
                let i = f.inst(v);
                (i.op, i.ty, i.args.len())
            };
            if op == Op::Phi {
                // Phis in the same web already agree; phis outside it need the old type.
                let me = slot[v.0 as usize];
                for k in (0..nargs).step_by(2) {
                    let Operand::Value(a) = f.inst(v).args[k] else {
                        continue;
                    };
                    let s = slot[a.0 as usize];
                    if s == u32::MAX || new_ty[s as usize].is_none() {
                        continue;
                    }
                    let same_web = me != u32::MAX && find(parent, me) == find(parent, s);
                    if !same_web {
                        let bc = back_cast(f, phis, back, s as usize);
                        f.inst_mut(v).args[k] = Operand::Value(bc);
                    }
                }
                continue;
            }
            for k in 0..nargs {
                let Operand::Value(a) = f.inst(v).args[k] else {
                    continue;
                };
                let s = slot[a.0 as usize];
                if s == u32::MAX {
                    continue;
                }
                let Some(t) = new_ty[s as usize] else {
                    continue;
                };
                if op == Op::Bitcast && ty == t {
                    repl.set(v, Operand::Value(a));
                    continue;
                }
                if op == Op::Bitcast {
                    continue; // bitcast from the new type is as valid
                }
                let bc = back_cast(f, phis, back, s as usize);
                f.inst_mut(v).args[k] = Operand::Value(bc);
            }
            resolve_args(f, v, repl);
        }
        // Terminator operands (branch conditions are bool, selectors integer).
        let mut term = std::mem::replace(&mut f.block_mut(b).term, crate::ir::Terminator::Open);
        let fix = |o: &mut Operand, f: &mut Function, back: &mut Vec<Option<ValueId>>| {
            if let Operand::Value(a) = *o {
                let s = slot[a.0 as usize];
                if s != u32::MAX && new_ty[s as usize].is_some() {
                    *o = Operand::Value(back_cast(f, phis, back, s as usize));
                }
            }
        };
        match &mut term {
            crate::ir::Terminator::CondBranch { cond, .. } => {
                fix(cond, f, back);
                *cond = repl.resolve(*cond);
            }
            crate::ir::Terminator::Switch { selector, .. } => {
                fix(selector, f, back);
                *selector = repl.resolve(*selector);
            }
            _ => {}
        }
        f.block_mut(b).term = term;
    }
    // Uses of a vanished bitcast were rewritten in the walk above (the layout puts every
    // definition before its uses), but for phis, which may use one from a later block.
    repl.apply_to_phis(f);
}

/// Rewrites the operands of `v` through `repl` (the bitcasts that vanished so far).
fn resolve_args(f: &mut Function, v: ValueId, repl: &mut Replacements) {
    if repl.is_empty() || f.inst(v).op == Op::Phi {
        return;
    }
    for a in f.inst_mut(v).args.iter_mut() {
        if let Operand::Value(_) = *a {
            *a = repl.resolve(*a);
        }
    }
}

/// A bitcast of retyped phi `i` back to its old type (`u32`), placed after the phis of its block.
fn back_cast(
    f: &mut Function,
    phis: &[(ValueId, BlockId, TypeId)],
    back: &mut [Option<ValueId>],
    i: usize,
) -> ValueId {
    if let Some(v) = back[i] {
        return v;
    }
    let (phi, block, old_ty) = phis[i];
    let v = f.add_inst(Inst::new(
        Op::Bitcast,
        old_ty,
        SmallVec::from_slice(&[Operand::Value(phi)]),
    ));
    let first_non_phi = {
        let insts = &f.block(block).insts;
        insts
            .iter()
            .position(|&x| f.inst(x).op != Op::Phi)
            .unwrap_or(insts.len())
    };
    f.block_mut(block).insts.insert(first_non_phi, v);
    back[i] = Some(v);
    v
}
