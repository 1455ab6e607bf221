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
use crate::ir::{ConstTable, Function, Inst, Operand, TypeId, TypeTable, ValueId};

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
pub struct Scratch {}

/// Retypes phi webs of `f` (see the module documentation).
#[inline(never)] // a frame of its own in profiles (called once per function)
pub fn retype_phis(
    f: &mut Function,
    types: &TypeTable,
    consts: &mut ConstTable,
    repl: &mut Replacements,
    _scratch: &mut Scratch,
) {
    // Phis in layout order, with their block.
    let mut phis: Vec<(ValueId, crate::ir::BlockId, TypeId)> = Vec::new();
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
    let mut slot = vec![u32::MAX; f.insts.len()];
    for (i, &(v, _, _)) in phis.iter().enumerate() {
        slot[v.0 as usize] = i as u32;
    }
    let n = phis.len();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    for (i, &(v, _, _)) in phis.iter().enumerate() {
        for pair in f.inst(v).args.chunks(2) {
            if let Operand::Value(a) = pair[0]
                && slot[a.0 as usize] != u32::MAX
            {
                let (x, y) = (
                    find(&mut parent, i as u32),
                    find(&mut parent, slot[a.0 as usize]),
                );
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
    let mut web_ty = vec![UNDECIDED; n];
    for (i, &(v, _, _)) in phis.iter().enumerate() {
        let root = find(&mut parent, i as u32) as usize;
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
    let mut new_ty: Vec<Option<TypeId>> = vec![None; n];
    for (i, &(v, _, _)) in phis.iter().enumerate() {
        let root = find(&mut parent, i as u32) as usize;
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
        let mut args = f.inst(v).args.clone();
        for k in (0..args.len()).step_by(2) {
            args[k] = match args[k] {
                Operand::Value(a) if slot[a.0 as usize] != u32::MAX => args[k],
                Operand::Value(a) if f.inst(a).op == Op::Bitcast => f.inst(a).args[0],
                Operand::Const(c) => Operand::Const(recast_const(consts, types, c, t).unwrap_or(c)),
                other => other,
            };
        }
        let inst = f.inst_mut(v);
        inst.args = args;
        inst.ty = t;
    }
    // Rewrite uses: bitcasts to the new type vanish; other users get one bitcast back.
    repl.reset(f.insts.len());
    let mut back: Vec<Option<ValueId>> = vec![None; n];
    let mut insts: Vec<ValueId> = Vec::new();
    for bi in 0..f.layout.len() {
        let b = f.layout[bi];
        insts.clear();
        insts.extend_from_slice(&f.block(b).insts);
        for &v in &insts {
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
            let inst = f.inst(v).clone();
            if inst.op == Op::Phi {
                // Phis in the same web already agree; phis outside it need the old type.
                let me = slot[v.0 as usize];
                for k in (0..inst.args.len()).step_by(2) {
                    let Operand::Value(a) = inst.args[k] else {
                        continue;
                    };
                    let s = slot[a.0 as usize];
                    if s == u32::MAX || new_ty[s as usize].is_none() {
                        continue;
                    }
                    let same_web = me != u32::MAX && find(&mut parent, me) == find(&mut parent, s);
                    if !same_web {
                        let bc = back_cast(f, &phis, &mut back, s as usize);
                        f.inst_mut(v).args[k] = Operand::Value(bc);
                    }
                }
                continue;
            }
            for k in 0..inst.args.len() {
                let Operand::Value(a) = inst.args[k] else {
                    continue;
                };
                let s = slot[a.0 as usize];
                if s == u32::MAX {
                    continue;
                }
                let Some(t) = new_ty[s as usize] else {
                    continue;
                };
                if inst.op == Op::Bitcast && inst.ty == t {
                    repl.set(v, Operand::Value(a));
                    continue;
                }
                if inst.op == Op::Bitcast {
                    continue; // bitcast from the new type is as valid
                }
                let bc = back_cast(f, &phis, &mut back, s as usize);
                f.inst_mut(v).args[k] = Operand::Value(bc);
            }
            resolve_args(f, v, repl);
        }
        // Terminator operands (branch conditions are bool, selectors integer).
        let mut term = f.block(b).term.clone();
        let fix = |o: &mut Operand, f: &mut Function, back: &mut Vec<Option<ValueId>>| {
            if let Operand::Value(a) = *o {
                let s = slot[a.0 as usize];
                if s != u32::MAX && new_ty[s as usize].is_some() {
                    *o = Operand::Value(back_cast(f, &phis, back, s as usize));
                }
            }
        };
        match &mut term {
            crate::ir::Terminator::CondBranch { cond, .. } => {
                fix(cond, f, &mut back);
                *cond = repl.resolve(*cond);
            }
            crate::ir::Terminator::Switch { selector, .. } => {
                fix(selector, f, &mut back);
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
    phis: &[(ValueId, crate::ir::BlockId, TypeId)],
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
