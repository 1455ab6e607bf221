//! Operands: reading a source (registers, thread ids, inputs, constant buffers, with
//! relative indices, swizzles and modifiers) as the walk's values, and writing a
//! destination, noting outputs that receive an order-dependent value.

use super::{OUT, Run, State, TEMP, XTEMP};
use crate::diff::order::Why;
use crate::diff::order::value::{Known, Level, Val};
use translator::sm4::{self, InstRef, OperandType as T};

impl<'a> Run<'a> {
    /// Source operand `k` for destination component `c` (swizzle and modifier applied).
    pub(super) fn read(&self, st: &State, inst: &InstRef<'a>, k: usize, c: usize) -> Val {
        let Some(op) = inst.operands.get(k) else {
            return Val::uninit();
        };
        let comp = op.swizzle()[c.min(3)];
        let mut v = self.read_raw(st, inst, op, comp);
        let m = op.modifier;
        if (m.neg() || m.abs())
            && let Some(kn) = &v.known
        {
            let float = !matches!(
                inst.info().operand_type(k),
                sm4::DataType::Int | sm4::DataType::Uint
            );
            let (neg, abs) = (m.neg(), m.abs());
            v.known = Some(Known::map(&[kn], self.s.n, |a| {
                let x = a[0];
                match (float, abs, neg) {
                    (true, true, true) => x | 0x8000_0000,
                    (true, true, false) => x & 0x7fff_ffff,
                    (true, false, _) => x ^ 0x8000_0000,
                    (false, true, _) => (x as i32).unsigned_abs(),
                    (false, false, _) => x.wrapping_neg(),
                }
            }));
        }
        v
    }

    /// Index `i` of an operand: its immediate part plus its relative part.
    fn index(&self, st: &State, inst: &InstRef<'a>, op: &sm4::Operand, i: usize) -> Val {
        let Some(ix) = op.index(i) else {
            return Val::konst(0);
        };
        let imm = ix.imm32();
        let Some(rel) = inst.rel(&ix) else {
            return Val::konst(imm);
        };
        let rc = match rel.components {
            sm4::Components::Select1(c) => c,
            _ => rel.swizzle()[0],
        };
        let r = self.read_raw(st, inst, rel, rc);
        match &r.known {
            Some(k) => {
                let mut v = Val::known(Known::map(&[k], self.s.n, |a| a[0].wrapping_add(imm)));
                v.od = r.od;
                v
            }
            None => r,
        }
    }

    fn read_raw(&self, st: &State, inst: &InstRef<'a>, op: &sm4::Operand, comp: u8) -> Val {
        let reg = op.imm_index(0).unwrap_or(0) as u32;
        let env = |file: u8| {
            st.env
                .get(&(file, reg, comp))
                .cloned()
                .unwrap_or_else(Val::uninit)
        };
        let c = comp as usize;
        match op.ty {
            T::Temp => env(TEMP),
            T::IndexableTemp => {
                let ix = self.index(st, inst, op, 1);
                let v = env(XTEMP);
                Val::unknown(Level::Varying, v.od || ix.od)
            }
            T::Output => env(OUT),
            T::Immediate32 => {
                let imm = op.immediates();
                Val::konst(imm.get(c).or(imm.first()).copied().unwrap_or(0))
            }
            T::Input => {
                let known = (op.index_dim() == 1)
                    .then(|| self.s.inputs.get(&(reg, comp)))
                    .flatten();
                match known {
                    Some(k) => Val::known(k.clone()),
                    None => Val::unknown(Level::Varying, false),
                }
            }
            T::InputThreadId => Val::known(self.s.thread_id[c.min(2)].clone()),
            T::InputThreadGroupId => Val::known(self.s.group_id[c.min(2)].clone()),
            T::InputThreadIdInGroup => Val::known(self.s.in_group[c.min(2)].clone()),
            T::InputThreadIdInGroupFlattened => Val::known(self.s.flat.clone()),
            T::ConstantBuffer | T::ImmediateConstantBuffer => self.constant(st, inst, op, c),
            T::CycleCounter => Val::unknown(Level::Varying, true),
            T::Resource | T::Sampler | T::UnorderedAccessView | T::ThreadGroupSharedMemory => {
                Val::unknown(Level::Uniform, false)
            }
            _ => Val::unknown(Level::Varying, false),
        }
    }

    /// A constant buffer or immediate constant buffer word, known where the buffer's
    /// contents (as the run fills it) and the row are.
    fn constant(&self, st: &State, inst: &InstRef<'a>, op: &sm4::Operand, c: usize) -> Val {
        let (data, row): (Option<&[u32]>, Val) = if op.ty == T::ImmediateConstantBuffer {
            (Some(&self.s.icb[..]), self.index(st, inst, op, 0))
        } else {
            let id = op.imm_index(0).unwrap_or(0) as u32;
            let (space, reg, row) = if self.s.sm51 {
                let space = self.s.cb_ranges.get(&id).map_or(0, |r| r.0);
                (
                    space,
                    op.imm_index(1).map(|r| r as u32),
                    self.index(st, inst, op, 2),
                )
            } else {
                (0, Some(id), self.index(st, inst, op, 1))
            };
            (
                reg.and_then(|r| self.s.cbs.get(&(space, r)))
                    .map(|v| &v[..]),
                row,
            )
        };
        let unknown = |row: &Val| Val::unknown(row.level_in(&self.s.group), row.od);
        let (Some(data), Some(k)) = (data, &row.known) else {
            return unknown(&row);
        };
        let word = |t: usize| (k.at(t) as usize).checked_mul(4).map(|w| w + c);
        let n = self.s.n;
        let in_range = match k {
            Known::C(_) => word(0).is_some_and(|w| w < data.len()),
            Known::V(_) => (0..n).all(|t| word(t).is_some_and(|w| w < data.len())),
        };
        if !in_range {
            return unknown(&row);
        }
        let mut v = Val::known(Known::map(&[k], n, |a| data[a[0] as usize * 4 + c]));
        v.od = row.od;
        v
    }

    pub(super) fn write(
        &mut self,
        st: &mut State,
        inst: &InstRef<'a>,
        d: &sm4::Operand,
        c: u8,
        mut v: Val,
    ) {
        v.od |= st.ctl || st.sticky;
        let reg = d.imm_index(0).unwrap_or(0) as u32;
        match d.ty {
            T::Temp => {
                st.env.insert((TEMP, reg, c), v);
            }
            T::IndexableTemp => {
                // One value for the whole array: every write joins it.
                let ix = self.index(st, inst, d, 1);
                let old = st.env.get(&(XTEMP, reg, c)).is_some_and(|o| o.od);
                let od = v.od || ix.od || old || v.alloc.is_some();
                st.env
                    .insert((XTEMP, reg, c), Val::unknown(Level::Varying, od));
            }
            T::Output => {
                if d.index(0).is_some_and(|i| i.relative.is_some()) {
                    if v.od {
                        self.all_od.get_or_insert(Why::OrderDependentValue);
                    }
                    return;
                }
                if v.od {
                    self.out_od.insert((reg, u32::from(c)));
                }
                st.env.insert((OUT, reg, c), v);
            }
            T::OutputDepth | T::OutputDepthGreaterEqual | T::OutputDepthLessEqual => {
                self.depth_od |= v.od;
            }
            _ => {}
        }
    }
}

/// The components a destination writes.
pub(super) fn comps(d: &sm4::Operand) -> impl Iterator<Item = u8> + use<> {
    let m = d.mask();
    (0..4u8).filter(move |c| m & (1 << c) != 0)
}
