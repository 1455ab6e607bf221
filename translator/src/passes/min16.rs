//! Native 16-bit minimum precision (`MinPrecisionMode::Native16`): the arithmetic that
//! lowering flagged [`flags::HALF`] is rewritten to run on 16-bit types.
//!
//! D3D lets a device compute `min16float`/`min10float`/`min16int`/`min16uint` operands at any
//! precision at least the one asked for, so the default (32-bit, `RelaxedPrecision`) is always
//! correct; this pass exists for devices where 16-bit arithmetic is faster. It is kept local
//! so that it cannot break anything else: each flagged instruction gets its operands
//! converted to 16 bits (`FConvert`, or `SConvert`/`UConvert` truncation) right before it and
//! its result converted back to the 32-bit type it had (`FConvert`, sign or zero extension)
//! under its own value id, so every register, variable, interface and resource access stays
//! 32-bit and no 16-bit storage capability is needed. A 16-bit result feeding another flagged
//! instruction is used directly, without the round trip, and a block narrows each value only
//! once. The pass runs after the pipeline (`translate.rs`), followed by a dead-code sweep for
//! the round trips it made unused.

use rustc_hash::FxHashMap as HashMap;
use smallvec::smallvec;
use spirv::Op;

use crate::ir::{ConstTable, Function, Inst, Operand, Scalar, TypeId, TypeTable, ValueId, flags};

/// Which 16-bit kinds a module's rewritten code uses (each needs its capability and device
/// feature).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Used {
    pub float16: bool,
    pub int16: bool,
}

/// Rewrites the flagged instructions of `f`; says which 16-bit kinds it used.
pub fn narrow(f: &mut Function, types: &TypeTable, consts: &ConstTable) -> Used {
    let mut used = Used::default();
    // The 16-bit twin of each rewritten value.
    let mut half_of: Vec<Option<ValueId>> = vec![None; f.insts.len()];
    for bi in 0..f.layout.len() {
        let b = f.layout[bi];
        let old = std::mem::take(&mut f.block_mut(b).insts);
        let mut out = Vec::with_capacity(old.len());
        // Narrowing conversions made in this block, reused by later operands.
        let mut narrowed: HashMap<(Operand, TypeId), ValueId> = HashMap::default();
        for v in old {
            let inst = f.inst(v).clone();
            if inst.flags & flags::HALF == 0 || !inst.narrowable_to_16() {
                out.push(v);
                continue;
            }
            let Some((s, n)) = types.shape(inst.ty) else {
                out.push(v);
                continue;
            };
            let float = match s {
                Scalar::F32 => true,
                Scalar::I32 | Scalar::U32 => false,
                _ => {
                    out.push(v);
                    continue;
                }
            };
            let signed = inst.flags & flags::HALF_SIGNED != 0;
            let narrow_s = match (float, signed) {
                (true, _) => Scalar::F16,
                (false, true) => Scalar::I16,
                (false, false) => Scalar::U16,
            };
            let type_of = |f: &Function, o: &Operand| -> Option<TypeId> {
                match *o {
                    Operand::Value(x) => Some(f.inst(x).ty),
                    Operand::Const(c) => Some(consts.get(c).ty()),
                    _ => None,
                }
            };
            // Every operand (but the GLSL opcode) must be of the result's kind.
            let kind_ok = inst.args.iter().all(|a| match a {
                Operand::Lit(_) => inst.op == Op::ExtInst,
                a => type_of(f, a)
                    .and_then(|t| types.shape(t))
                    .is_some_and(|(as_, _)| {
                        if float {
                            as_ == Scalar::F32
                        } else {
                            matches!(as_, Scalar::I32 | Scalar::U32)
                        }
                    }),
            });
            if !kind_ok {
                out.push(v);
                continue;
            }
            let mut args = inst.args.clone();
            for a in args.iter_mut() {
                if matches!(a, Operand::Lit(_)) {
                    continue;
                }
                let t = type_of(f, a).expect("checked above");
                let width = types.width(t);
                let want = TypeTable::vec(narrow_s, width);
                if let Operand::Value(x) = *a
                    && let Some(Some(h)) = half_of.get(x.0 as usize)
                    && f.inst(*h).ty == want
                {
                    *a = Operand::Value(*h);
                    continue;
                }
                if let Some(&c) = narrowed.get(&(*a, want)) {
                    *a = Operand::Value(c);
                    continue;
                }
                let op = match narrow_s {
                    Scalar::F16 => Op::FConvert,
                    Scalar::I16 => Op::SConvert,
                    _ => Op::UConvert,
                };
                let c = f.add_inst(Inst::new(op, want, smallvec![*a]));
                out.push(c);
                narrowed.insert((*a, want), c);
                *a = Operand::Value(c);
            }
            let mut wide = Inst::new(inst.op, TypeTable::vec(narrow_s, n), args);
            wide.flags = inst.flags & (flags::PRECISE | flags::RELAXED);
            let w = f.add_inst(wide);
            out.push(w);
            // The original value becomes the conversion back, so its users see no change.
            let back = match (float, signed) {
                (true, _) => Inst::new(Op::FConvert, inst.ty, smallvec![Operand::Value(w)]),
                (false, true) => Inst::new(Op::SConvert, inst.ty, smallvec![Operand::Value(w)]),
                (false, false) if s == Scalar::U32 => {
                    Inst::new(Op::UConvert, inst.ty, smallvec![Operand::Value(w)])
                }
                (false, false) => {
                    // UConvert's result must be unsigned: extend, then reinterpret.
                    let u = f.add_inst(Inst::new(
                        Op::UConvert,
                        TypeTable::vec(Scalar::U32, n),
                        smallvec![Operand::Value(w)],
                    ));
                    out.push(u);
                    Inst::new(Op::Bitcast, inst.ty, smallvec![Operand::Value(u)])
                }
            };
            *f.inst_mut(v) = back;
            out.push(v);
            if half_of.len() <= v.0 as usize {
                half_of.resize(v.0 as usize + 1, None);
            }
            half_of[v.0 as usize] = Some(w);
            if float {
                used.float16 = true;
            } else {
                used.int16 = true;
            }
        }
        f.block_mut(b).insts = out;
    }
    used
}
