//! Accesses to shared memory (UAVs and group shared memory): loads, stores and atomics,
//! recorded with the threads that make them, their per-thread addresses, the operands that
//! define what they write and the barrier interval they fall in, for [`crate::diff::order::races`]
//! to find the racing ones. An atomic's return value and a racing load's result depend on
//! the order threads run in.

use super::operands::comps;
use super::{MAX_ACCESSES, Mask, Run, State};
use crate::diff::order::setup::Layout;
use crate::diff::order::value::{Known, Level, Val};
use std::collections::BTreeSet;
use std::rc::Rc;
use translator::sm4::{InstRef, Opcode as O};

/// Barrier intervals: a set of ids; two accesses of one group can race only where their sets
/// meet (no barrier of the memory's kind between them on some path).
pub type Epochs = Rc<BTreeSet<u32>>;

/// What a write does to a memory word, for telling which writes commute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Stores and exchanges: the word becomes the operand.
    Store,
    /// Compare-and-store (`cmp_store`, `cmp_exch`).
    Cmp,
    /// An atomic of this kind: add, and, or, xor, min or max (each commutes with itself).
    Commute(O),
}

/// Where an access goes.
#[derive(Debug, Clone)]
pub enum Addr {
    /// Per thread: first word (buffers) or texel coordinates (typed); cells add to the first.
    Known([Known; 3]),
    Unknown,
    /// An element a UAV counter handed out: no other thread's, but which is not known.
    Unique,
}

/// One access to shared memory, by the threads of `mask`.
#[derive(Debug, Clone)]
pub struct Access {
    pub id: u32,
    pub mem: usize,
    pub site: usize,
    pub mask: Mask,
    pub addr: Addr,
    /// Word offsets from the address, with the operands that define what is written there.
    pub cells: Vec<(u32, Vec<Val>)>,
    /// A load (whose result must not race).
    pub read: bool,
    pub write: Option<Effect>,
    /// Where it goes, or whether it happens, depends on the order threads run in (what a
    /// cell receives is judged by its operands).
    pub od: bool,
    /// Made in a loop iterated to a fixed point: stands for every iteration.
    pub fixpoint: bool,
    pub epochs: Epochs,
}

impl<'a> Run<'a> {
    /// The per-thread address of an access to memory `m` from the address operands
    /// (raw: a byte address; structured: index and byte offset; typed: coordinates), with
    /// its uniformity and order dependence; `unique` for an index a counter gave out.
    fn address(
        &mut self,
        st: &State,
        inst: &InstRef<'a>,
        m: usize,
        srcs: &[(usize, usize)],
    ) -> (Addr, Val) {
        let n = self.s.n;
        let vals: Vec<Val> = srcs
            .iter()
            .map(|&(k, c)| self.read(st, inst, k, c))
            .collect();
        let mem = &self.s.mems[m];
        let mut flags = Val::unknown(
            vals.iter()
                .map(|v| v.level_in(&self.s.group))
                .max()
                .unwrap_or(Level::Uniform),
            vals.iter().any(|v| v.od),
        );
        // An element index from this UAV's counter, used as it is: appended elements are
        // compared as a multiset, so which one each thread got does not matter.
        if let Layout::Structured(_) = mem.layout
            && vals[0].alloc == Some(m)
            && mem.appended
            && !vals[0].od
            && vals.iter().skip(1).all(|v| v.alloc.is_none())
        {
            return (Addr::Unique, flags);
        }
        flags.od |= vals.iter().any(|v| v.alloc.is_some());
        if vals.iter().any(|v| v.known.is_none()) {
            return (Addr::Unknown, flags);
        }
        let k: Vec<&Known> = vals.iter().filter_map(|v| v.known.as_ref()).collect();
        let addr = match mem.layout {
            Layout::Raw => [
                Known::map(&k[..1], n, |a| a[0] >> 2),
                Known::C(0),
                Known::C(0),
            ],
            Layout::Structured(stride) => [
                Known::map(&k[..2], n, |a| {
                    a[0].wrapping_mul(stride).wrapping_add(a[1]) >> 2
                }),
                Known::C(0),
                Known::C(0),
            ],
            Layout::Typed(_) => {
                let at = |i: usize| k.get(i).map_or(Known::C(0), |x| (*x).clone());
                [at(0), at(1), at(2)]
            }
        };
        (Addr::Known(addr), flags)
    }

    /// The address operand components of an access to `m` whose address is operand `k`
    /// (and `k + 1` for a structured load/store's offset).
    fn addr_operands(&self, m: usize, k: usize, atomic: bool) -> Vec<(usize, usize)> {
        match self.s.mems[m].layout {
            Layout::Raw => vec![(k, 0)],
            Layout::Structured(_) if atomic => vec![(k, 0), (k, 1)],
            Layout::Structured(_) => vec![(k, 0), (k + 1, 0)],
            Layout::Typed(n) => (0..n).map(|c| (k, c)).collect(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        st: &State,
        m: usize,
        site: usize,
        addr: Addr,
        cells: Vec<(u32, Vec<Val>)>,
        read: bool,
        write: Option<Effect>,
        od: bool,
    ) {
        if !self.recording {
            return;
        }
        if self.accesses.len() >= MAX_ACCESSES {
            self.fail("too many memory accesses to follow");
            return;
        }
        let uav = self.s.mems[m].uav;
        self.accesses.push(Access {
            id: self.accesses.len() as u32,
            mem: m,
            site,
            mask: st.mask.clone(),
            addr,
            cells,
            read,
            write,
            od: od || st.ctl || st.sticky,
            fixpoint: self.fixpoint > 0,
            epochs: if uav {
                st.ep_u.clone()
            } else {
                st.ep_g.clone()
            },
        });
    }

    pub(super) fn load(&mut self, i: usize, inst: &InstRef<'a>, st: &mut State) {
        let nd = inst.info().dsts().min(inst.operands.len());
        let Some(res) = inst.operands.last().copied() else {
            return;
        };
        let mems = self.s.mems_of(&res);
        if mems.is_empty() {
            // A shader resource (t#): nothing writes it.
            return self.generic(inst, st);
        }
        let d = inst.operands[0];
        let sw = res.swizzle();
        let mut level = Level::Uniform;
        let mut od = self.od_reads.contains(&i);
        for &m in &mems {
            let ops = self.addr_operands(m, nd, false);
            let (addr, flags) = self.address(st, inst, m, &ops);
            let mem = &self.s.mems[m];
            level = level.max(flags.level).max(match (mem.written, mem.uav) {
                (false, _) => Level::Uniform,
                (true, false) => Level::Group,
                (true, true) => Level::Varying,
            });
            od |= flags.od;
            let cells = match mem.layout {
                Layout::Typed(_) => vec![(0, Vec::new())],
                _ => {
                    let mut w: Vec<u32> = comps(&d).map(|c| u32::from(sw[c as usize])).collect();
                    w.sort_unstable();
                    w.dedup();
                    w.into_iter().map(|c| (c, Vec::new())).collect()
                }
            };
            self.record(st, m, i, addr, cells, true, None, flags.od);
        }
        let v = Val::unknown(level, od);
        for j in 0..nd {
            let d = inst.operands[j];
            for c in comps(&d) {
                self.write(st, inst, &d, c, v.clone());
            }
        }
    }

    pub(super) fn store(&mut self, i: usize, inst: &InstRef<'a>, st: &mut State) {
        let Some(d) = inst.operands.first().copied() else {
            return;
        };
        let mems = self.s.mems_of(&d);
        let value = inst.operands.len() - 1;
        for m in mems {
            let ops = self.addr_operands(m, 1, false);
            let (addr, flags) = self.address(st, inst, m, &ops);
            let cells: Vec<(u32, Vec<Val>)> = match self.s.mems[m].layout {
                Layout::Typed(_) => {
                    vec![(0, (0..4).map(|c| self.read(st, inst, value, c)).collect())]
                }
                _ => comps(&d)
                    .map(|c| (u32::from(c), vec![self.read(st, inst, value, c as usize)]))
                    .collect(),
            };
            // What each cell receives is judged by its own operands (races::cell_od).
            self.record(st, m, i, addr, cells, false, Some(Effect::Store), flags.od);
        }
    }

    pub(super) fn atomic(&mut self, i: usize, inst: &InstRef<'a>, st: &mut State) {
        let nd = inst.info().dsts().min(inst.operands.len());
        let imm = nd == 2;
        let mem_op = inst.operands[nd - 1];
        let effect = match inst.opcode {
            O::ImmAtomicExch => Effect::Store,
            O::AtomicCmpStore | O::ImmAtomicCmpExch => Effect::Cmp,
            O::AtomicIAdd | O::ImmAtomicIAdd => Effect::Commute(O::AtomicIAdd),
            O::AtomicAnd | O::ImmAtomicAnd => Effect::Commute(O::AtomicAnd),
            O::AtomicOr | O::ImmAtomicOr => Effect::Commute(O::AtomicOr),
            O::AtomicXor | O::ImmAtomicXor => Effect::Commute(O::AtomicXor),
            O::AtomicIMax | O::ImmAtomicIMax => Effect::Commute(O::AtomicIMax),
            O::AtomicIMin | O::ImmAtomicIMin => Effect::Commute(O::AtomicIMin),
            O::AtomicUMax | O::ImmAtomicUMax => Effect::Commute(O::AtomicUMax),
            _ => Effect::Commute(O::AtomicUMin),
        };
        for m in self.s.mems_of(&mem_op) {
            let ops = self.addr_operands(m, nd, true);
            let (addr, flags) = self.address(st, inst, m, &ops);
            let operands: Vec<Val> = (nd + 1..inst.operands.len())
                .map(|k| self.read(st, inst, k, 0))
                .collect();
            let cells = vec![(0, operands)];
            self.record(st, m, i, addr, cells, false, Some(effect), flags.od);
        }
        if imm {
            // The old value: which thread's update came first.
            let d = inst.operands[0];
            for c in comps(&d) {
                self.write(st, inst, &d, c, Val::unknown(Level::Varying, true));
            }
        }
    }
}
