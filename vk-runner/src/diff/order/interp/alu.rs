//! What an instruction does to the walk's values: memory instructions go to [`super::memory`];
//! any other computes known results where every source is known and the operation is exact,
//! else an unknown value as uniform and as order-dependent as its sources.

use super::operands::comps;
use super::{MAX_STEPS, Run, State};
use crate::diff::order::value::{Known, Level, Val, eval};
use translator::sm4::{InstRef, Opcode as O, OperandType as T};

impl<'a> Run<'a> {
    pub(super) fn op(&mut self, i: usize, st: &mut State) {
        self.steps += self.s.n as u64;
        if self.steps > MAX_STEPS {
            self.fail("the program takes too long to follow");
            return;
        }
        let inst = self.inst(i);
        match inst.opcode {
            O::LdRaw
            | O::LdStructured
            | O::LdUavTyped
            | O::LdRawS
            | O::LdStructuredS
            | O::LdUavTypedS => self.load(i, &inst, st),
            O::StoreRaw | O::StoreStructured | O::StoreUavTyped => self.store(i, &inst, st),
            op if op.is_atomic() => self.atomic(i, &inst, st),
            O::ImmAtomicAlloc | O::ImmAtomicConsume => {
                let mem = inst
                    .operands
                    .get(1)
                    .map(|o| self.s.mems_of(o))
                    .and_then(|m| m.first().copied());
                let mut v = Val::unknown(Level::Varying, inst.opcode == O::ImmAtomicConsume);
                if inst.opcode == O::ImmAtomicAlloc {
                    v.alloc = mem;
                    v.od |= mem.is_none();
                }
                if let Some(d) = inst.operands.first() {
                    for c in comps(d) {
                        self.write(st, &inst, d, c, v.clone());
                    }
                }
            }
            _ => self.generic(&inst, st),
        }
    }

    fn is_supported(&mut self, op: O) -> bool {
        *self
            .supported
            .entry(op)
            .or_insert_with(|| eval(op, 0, &[0; 4]).is_some())
    }

    /// Any other instruction: known results where every source is known and the operation
    /// is exact, else unknown with the sources' uniformity and order dependence.
    pub(super) fn generic(&mut self, inst: &InstRef<'a>, st: &mut State) {
        let nd = inst.info().dsts().min(inst.operands.len());
        let op = inst.opcode;
        let componentwise = crate::diff::tolerance::componentwise(op);
        let exact = componentwise && self.is_supported(op);
        let n = self.s.n;
        for j in 0..nd {
            let d = inst.operands[j];
            if d.ty == T::Null {
                continue;
            }
            for c in comps(&d) {
                let srcs: Vec<Val> = if componentwise {
                    (nd..inst.operands.len())
                        .map(|k| self.read(st, inst, k, c as usize))
                        .collect()
                } else {
                    (nd..inst.operands.len())
                        .flat_map(|k| (0..4).map(move |c| (k, c)))
                        .map(|(k, c)| self.read(st, inst, k, c))
                        .collect()
                };
                let od = srcs
                    .iter()
                    .any(|v| v.od || (v.alloc.is_some() && op != O::Mov));
                let mut v = None;
                if exact && srcs.iter().all(|v| v.known.is_some()) {
                    let args: Vec<&Known> = srcs.iter().filter_map(|v| v.known.as_ref()).collect();
                    let sat = inst.saturate;
                    let k = Known::map(&args, n, |a| {
                        let r = eval(op, j, a).unwrap_or(0);
                        if sat { saturate(r) } else { r }
                    });
                    let mut val = Val::known(k);
                    val.od = od;
                    v = Some(val);
                }
                let v = v.unwrap_or_else(|| {
                    let level = srcs
                        .iter()
                        .map(|v| v.level_in(&self.s.group))
                        .max()
                        .unwrap_or(Level::Uniform);
                    let mut u = Val::unknown(level, od);
                    if op == O::Mov {
                        u.alloc = srcs.first().and_then(|s| s.alloc);
                    }
                    u
                });
                self.write(st, inst, &d, c, v);
            }
        }
    }
}

fn saturate(x: u32) -> u32 {
    let f = f32::from_bits(x);
    if f.is_nan() {
        0
    } else {
        f.clamp(0.0, 1.0).to_bits()
    }
}
