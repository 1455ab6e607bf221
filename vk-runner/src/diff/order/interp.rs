//! The order analysis's walk: executes the program for all threads of the run at once, on
//! [`Val`]s instead of values. A thread's values are known where they follow from its
//! identity and the run's constants, so branches and loops on them are followed thread by
//! thread (loops unrolled while every thread's exit is known, else iterated to a fixed
//! point); what is not known is tracked by how uniform it is. On the way it records every
//! access to shared memory (which threads may make it, at which addresses, with which
//! operands, between which barriers) and which outputs receive a value that depends on the
//! order threads run in: the return value of an atomic, a read that [`super::races`] found
//! racing, anything computed from those or decided by them.

use super::Why;
use super::flow::{Block, Flow, Stmt};
use super::setup::{Layout, Setup};
use super::value::{Known, Level, Val, eval};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;
use translator::sm4::{self, InstRef, Opcode as O, OperandType as T, sync_flags};

/// A register component: (file, register, component).
type Node = (u8, u32, u8);
const TEMP: u8 = 0;
const XTEMP: u8 = 1;
const OUT: u8 = 2;

/// Work limits: beyond them the analysis gives up (and the shader's outputs go uncompared).
const MAX_STEPS: u64 = 60_000_000;
const MAX_UNROLL: usize = 256;
const MAX_FIXPOINT: usize = 64;
const MAX_ACCESSES: usize = 20_000;
const MAX_CALL_DEPTH: usize = 16;
/// Barrier ids inside loops iterated to a fixed point: one per barrier instruction.
const SITE_EPOCH: u32 = 1 << 30;

/// A set of threads.
#[derive(Debug, Clone, PartialEq)]
pub struct Mask(Vec<u64>);

impl Mask {
    pub fn full(n: usize) -> Mask {
        let mut m = Mask(vec![0; n.div_ceil(64)]);
        for t in 0..n {
            m.set(t);
        }
        m
    }

    fn set(&mut self, t: usize) {
        self.0[t / 64] |= 1 << (t % 64);
    }

    pub fn get(&self, t: usize) -> bool {
        self.0.get(t / 64).is_some_and(|w| w & (1 << (t % 64)) != 0)
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    fn none(&self) -> Mask {
        Mask(vec![0; self.0.len()])
    }

    fn or(&mut self, o: &Mask) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(i, w)| {
            (0..64)
                .filter(move |b| w & (1 << b) != 0)
                .map(move |b| i * 64 + b)
        })
    }
}

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

#[derive(Clone, PartialEq)]
struct State {
    env: HashMap<Node, Val>,
    mask: Mask,
    /// Executing under a condition that depends on the order threads run in.
    ctl: bool,
    /// Some thread left (returned, broke out, was discarded) by such a condition.
    sticky: bool,
    ep_g: Epochs,
    ep_u: Epochs,
}

struct LoopCtx {
    switch: bool,
    breaks: Vec<State>,
    continues: Vec<State>,
}

/// One walk over the program.
pub struct Run<'a> {
    s: &'a Setup<'a>,
    flow: &'a Flow,
    /// Loads found racing in an earlier walk (instruction index).
    od_reads: &'a HashSet<usize>,
    pub accesses: Vec<Access>,
    /// Output register components given an order-dependent value.
    pub out_od: HashSet<(u32, u32)>,
    pub depth_od: bool,
    /// Every output (a pixel discarded by an order-dependent condition; an output written
    /// through a dynamic index with an order-dependent value).
    pub all_od: Option<Why>,
    pub failed: Option<String>,
    recording: bool,
    fixpoint: usize,
    next_epoch: u32,
    steps: u64,
    loops: Vec<LoopCtx>,
    frames: Vec<Vec<State>>,
    supported: HashMap<O, bool>,
}

impl<'a> Run<'a> {
    pub fn walk(s: &'a Setup<'a>, flow: &'a Flow, od_reads: &'a HashSet<usize>) -> Run<'a> {
        let mut r = Run {
            s,
            flow,
            od_reads,
            accesses: Vec::new(),
            out_od: HashSet::new(),
            depth_od: false,
            all_od: None,
            failed: None,
            recording: true,
            fixpoint: 0,
            next_epoch: 1,
            steps: 0,
            loops: Vec::new(),
            frames: Vec::new(),
            supported: HashMap::new(),
        };
        let start = State {
            env: HashMap::new(),
            mask: Mask::full(s.n),
            ctl: false,
            sticky: false,
            ep_g: Rc::new([0].into()),
            ep_u: Rc::new([0].into()),
        };
        r.block(&flow.main, start);
        r
    }

    fn fail(&mut self, why: impl Into<String>) {
        if self.failed.is_none() {
            self.failed = Some(why.into());
        }
    }

    fn block(&mut self, b: &Block, mut st: State) -> State {
        for s in b {
            if st.mask.is_empty() || self.failed.is_some() {
                break;
            }
            st = self.stmt(s, st);
        }
        st
    }

    fn inst(&self, i: usize) -> InstRef<'a> {
        self.s.prog.get(i).expect("an instruction of the program")
    }

    /// The threads of `mask` for which `cond` (component 0 of the operand) passes the test,
    /// and those for which it fails; an unknown condition may go either way.
    fn split(&self, mask: &Mask, cond: &Val, nonzero: bool) -> (Mask, Mask) {
        let Some(k) = &cond.known else {
            return (mask.clone(), mask.clone());
        };
        let (mut yes, mut no) = (mask.none(), mask.none());
        for t in mask.iter() {
            if (k.at(t) != 0) == nonzero {
                yes.set(t);
            } else {
                no.set(t);
            }
        }
        (yes, no)
    }

    fn cond(&mut self, st: &State, i: usize) -> (Val, bool) {
        let inst = self.inst(i);
        let nonzero = inst.test_nonzero().unwrap_or(true);
        let v = self.read(st, &inst, inst.info().dsts(), 0);
        (v, nonzero)
    }

    fn stmt(&mut self, s: &Stmt, mut st: State) -> State {
        match s {
            Stmt::Op(i) => {
                self.op(*i, &mut st);
                st
            }
            Stmt::If { at, then, els } => {
                let (c, nz) = self.cond(&st, *at);
                let (tm, em) = self.split(&st.mask, &c, nz);
                let ctl = st.ctl;
                let mut a = st.clone();
                a.mask = tm;
                a.ctl |= c.od;
                let mut b = st;
                b.mask = em;
                b.ctl |= c.od;
                let a = self.block(then, a);
                let b = self.block(els, b);
                let mut m = self.merge(vec![a, b]);
                m.ctl = ctl;
                m
            }
            Stmt::Loop(body) => self.run_loop(body, st),
            Stmt::Switch { at, cases } => {
                let inst = self.inst(*at);
                let sel = self.read(&st, &inst, 0, 0);
                let all: Vec<u32> = cases.iter().flat_map(|c| c.values.clone()).collect();
                let ctl = st.ctl;
                let mut exits = Vec::new();
                let mut fall: Option<State> = None;
                let mut any_default = false;
                for case in cases {
                    any_default |= case.default;
                    let mut entry = st.clone();
                    entry.ctl |= sel.od;
                    if let Some(k) = &sel.known {
                        let mut m = st.mask.none();
                        for t in st.mask.iter() {
                            let v = k.at(t);
                            if case.values.contains(&v) || (case.default && !all.contains(&v)) {
                                m.set(t);
                            }
                        }
                        entry.mask = m;
                    }
                    let start = match fall.take() {
                        Some(f) => self.merge(vec![entry, f]),
                        None => entry,
                    };
                    self.loops.push(LoopCtx {
                        switch: true,
                        breaks: Vec::new(),
                        continues: Vec::new(),
                    });
                    let end = self.block(&case.body, start);
                    let ctx = self.loops.pop().expect("pushed");
                    exits.extend(ctx.breaks);
                    fall = Some(end);
                }
                exits.extend(fall);
                if !any_default {
                    let mut skip = st.clone();
                    if let Some(k) = &sel.known {
                        let mut m = st.mask.none();
                        for t in st.mask.iter() {
                            if !all.contains(&k.at(t)) {
                                m.set(t);
                            }
                        }
                        skip.mask = m;
                    }
                    exits.push(skip);
                }
                exits.push(State {
                    mask: st.mask.none(),
                    ..st
                });
                let mut m = self.merge(exits);
                m.ctl = ctl;
                m
            }
            Stmt::Break(c) | Stmt::Continue(c) => {
                let is_break = matches!(s, Stmt::Break(_));
                let (leave, stay, decided) = self.leaving(&st, *c);
                let mut l = st.clone();
                l.mask = leave;
                l.sticky |= decided;
                let ctx = if is_break {
                    self.loops.last_mut()
                } else {
                    self.loops.iter_mut().rev().find(|c| !c.switch)
                };
                match ctx {
                    Some(ctx) if is_break => ctx.breaks.push(l),
                    Some(ctx) => ctx.continues.push(l),
                    None => self.fail("break or continue outside a loop"),
                }
                st.mask = stay;
                st.sticky |= decided;
                st
            }
            Stmt::Ret(c) => {
                let (leave, stay, decided) = self.leaving(&st, *c);
                if let Some(f) = self.frames.last_mut() {
                    let mut l = st.clone();
                    l.mask = leave;
                    l.sticky |= decided;
                    f.push(l);
                }
                st.mask = stay;
                st.sticky |= decided;
                st
            }
            Stmt::Discard(i) => {
                let (_, stay, decided) = self.leaving(&st, Some(*i));
                // A discarded pixel writes no output.
                if decided {
                    self.all_od.get_or_insert(Why::Discard);
                }
                st.mask = stay;
                st.sticky |= decided;
                st
            }
            Stmt::Call(i) => self.call(*i, st),
            Stmt::Sync(at, flags) => {
                if flags & sync_flags::THREADS_IN_GROUP != 0 {
                    // In a loop iterated to a fixed point one id stands for every pass.
                    let id = if self.fixpoint > 0 {
                        SITE_EPOCH + *at as u32
                    } else {
                        self.next_epoch += 1;
                        self.next_epoch
                    };
                    if flags & sync_flags::THREAD_GROUP_SHARED_MEMORY != 0 {
                        st.ep_g = Rc::new([id].into());
                    }
                    if flags & (sync_flags::UAV_MEMORY_GROUP | sync_flags::UAV_MEMORY_GLOBAL) != 0 {
                        st.ep_u = Rc::new([id].into());
                    }
                }
                st
            }
            Stmt::Unsupported(i) => {
                let name = self.inst(*i).info().name;
                self.fail(format!("{name} is not followed"));
                st
            }
        }
    }

    /// For break/continue/ret/discard: (threads that leave, threads that stay, whether the
    /// decision depends on the order threads run in).
    fn leaving(&mut self, st: &State, c: Option<usize>) -> (Mask, Mask, bool) {
        let decided_by_order = st.ctl;
        match c {
            None => (st.mask.clone(), st.mask.none(), decided_by_order),
            Some(i) => {
                let (v, nz) = self.cond(st, i);
                let (yes, no) = self.split(&st.mask, &v, nz);
                (yes, no, decided_by_order || v.od)
            }
        }
    }

    fn call(&mut self, i: usize, st: State) -> State {
        let inst = self.inst(i);
        let (taken, skipped) = if inst.opcode == O::Callc {
            let (c, nz) = self.cond(&st, i);
            let (yes, no) = self.split(&st.mask, &c, nz);
            let mut a = st.clone();
            a.mask = yes;
            a.ctl |= c.od;
            let mut b = st.clone();
            b.mask = no;
            (a, Some(b))
        } else {
            (st.clone(), None)
        };
        let label = inst
            .operands
            .iter()
            .find(|o| o.ty == T::Label)
            .and_then(|o| o.register());
        let Some(body) = label.and_then(|l| self.flow.functions.get(&l)) else {
            self.fail("a call to a missing subroutine");
            return st;
        };
        if self.frames.len() >= MAX_CALL_DEPTH {
            self.fail("calls nested too deep");
            return st;
        }
        let loops = std::mem::take(&mut self.loops);
        self.frames.push(Vec::new());
        let end = self.block(body, taken);
        let mut parts = self.frames.pop().expect("pushed");
        self.loops = loops;
        parts.push(end);
        parts.extend(skipped);
        let mut m = self.merge(parts);
        m.ctl = st.ctl;
        m
    }

    fn run_loop(&mut self, body: &Block, st: State) -> State {
        // Unrolled, while every thread's exit is known (each iteration's own accesses, and
        // barrier ids of its own).
        let mark = self.accesses.len();
        let mut cur = st.clone();
        let mut exits = Vec::new();
        let mut unrolled = false;
        for _ in 0..MAX_UNROLL {
            if cur.mask.is_empty() || self.failed.is_some() {
                unrolled = true;
                break;
            }
            let (end, ctx) = self.iteration(body, cur);
            let mut next = ctx.continues;
            next.push(end);
            cur = self.merge(next);
            // A thread that may both leave and go on: its exit is not known.
            let mut left = cur.mask.none();
            for b in &ctx.breaks {
                left.or(&b.mask);
            }
            exits.extend(ctx.breaks);
            if left.0.iter().zip(&cur.mask.0).any(|(a, b)| a & b != 0) {
                break;
            }
        }
        if unrolled {
            exits.push(cur);
            return self.merge(exits);
        }
        // Iterated to a fixed point: each value at the head joins every iteration's.
        self.accesses.truncate(mark);
        let recording = self.recording;
        self.recording = false;
        self.fixpoint += 1;
        let mut head = st.clone();
        let mut stable = false;
        for _ in 0..MAX_FIXPOINT {
            if self.failed.is_some() {
                break;
            }
            let (end, ctx) = self.iteration(body, head.clone());
            let mut parts = vec![st.clone(), end];
            parts.extend(ctx.continues);
            let next = self.merge(parts);
            if next == head {
                stable = true;
                break;
            }
            head = next;
        }
        if !stable {
            self.fail("a loop whose values do not settle");
        }
        self.recording = recording;
        let (end, ctx) = self.iteration(body, head);
        self.fixpoint -= 1;
        let mut exits = ctx.breaks;
        exits.push(State {
            mask: end.mask.none(),
            ..end
        });
        self.merge(exits)
    }

    fn iteration(&mut self, body: &Block, st: State) -> (State, LoopCtx) {
        self.loops.push(LoopCtx {
            switch: false,
            breaks: Vec::new(),
            continues: Vec::new(),
        });
        let end = self.block(body, st);
        (end, self.loops.pop().expect("pushed"))
    }

    /// The state after paths that meet: each thread takes its values from the paths it
    /// may be on; where those disagree, the value is unknown.
    fn merge(&mut self, parts: Vec<State>) -> State {
        let (mut live, dead): (Vec<State>, Vec<State>) =
            parts.into_iter().partition(|p| !p.mask.is_empty());
        if live.is_empty() {
            return dead.into_iter().next().expect("merge of no state");
        }
        if live.len() == 1 {
            return live.pop().expect("one");
        }
        let mut mask = live[0].mask.clone();
        let mut ep_g: BTreeSet<u32> = BTreeSet::new();
        let mut ep_u: BTreeSet<u32> = BTreeSet::new();
        for p in &live {
            mask.or(&p.mask);
            ep_g.extend(p.ep_g.iter());
            ep_u.extend(p.ep_u.iter());
        }
        let mut keys: Vec<Node> = live.iter().flat_map(|p| p.env.keys().copied()).collect();
        keys.sort_unstable();
        keys.dedup();
        let mut env = HashMap::with_capacity(keys.len());
        for k in keys {
            let vals: Vec<Option<&Val>> = live.iter().map(|p| p.env.get(&k)).collect();
            let v = match vals[0] {
                Some(first) if vals.iter().all(|v| *v == Some(first)) => first.clone(),
                _ => {
                    self.steps += self.s.n as u64;
                    join(&vals, &live, &mask, &self.s.group)
                }
            };
            env.insert(k, v);
        }
        let pick = |e: &Epochs, all: BTreeSet<u32>| {
            if **e == all { e.clone() } else { Rc::new(all) }
        };
        State {
            ep_g: pick(&live[0].ep_g, ep_g),
            ep_u: pick(&live[0].ep_u, ep_u),
            env,
            mask,
            ctl: live.iter().any(|p| p.ctl),
            sticky: live.iter().any(|p| p.sticky),
        }
    }

    // ---- instructions ----

    fn op(&mut self, i: usize, st: &mut State) {
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
    fn generic(&mut self, inst: &InstRef<'a>, st: &mut State) {
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

    fn load(&mut self, i: usize, inst: &InstRef<'a>, st: &mut State) {
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

    fn store(&mut self, i: usize, inst: &InstRef<'a>, st: &mut State) {
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

    fn atomic(&mut self, i: usize, inst: &InstRef<'a>, st: &mut State) {
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

    // ---- operands ----

    /// Source operand `k` for destination component `c` (swizzle and modifier applied).
    fn read(&self, st: &State, inst: &InstRef<'a>, k: usize, c: usize) -> Val {
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

    fn write(&mut self, st: &mut State, inst: &InstRef<'a>, d: &sm4::Operand, c: u8, mut v: Val) {
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
fn comps(d: &sm4::Operand) -> impl Iterator<Item = u8> + use<> {
    let m = d.mask();
    (0..4u8).filter(move |c| m & (1 << c) != 0)
}

fn saturate(x: u32) -> u32 {
    let f = f32::from_bits(x);
    if f.is_nan() {
        0
    } else {
        f.clamp(0.0, 1.0).to_bits()
    }
}

/// One node's value where paths meet.
fn join(vals: &[Option<&Val>], parts: &[State], mask: &Mask, group: &[u32]) -> Val {
    let od = vals.iter().flatten().any(|v| v.od);
    let allocs: HashSet<Option<usize>> = vals.iter().map(|v| v.and_then(|v| v.alloc)).collect();
    let alloc_od = allocs.len() > 1 && allocs.iter().any(|a| a.is_some());
    if vals.iter().all(|v| v.is_some_and(|v| v.known.is_some())) {
        let n = group.len();
        let mut out = vec![0u32; n];
        let mut ok = true;
        'threads: for t in mask.iter() {
            let mut seen = None;
            for (v, p) in vals.iter().zip(parts) {
                if !p.mask.get(t) {
                    continue;
                }
                let x = v.and_then(|v| v.known.as_ref()).map_or(0, |k| k.at(t));
                match seen {
                    None => seen = Some(x),
                    Some(y) if y != x => {
                        ok = false;
                        break 'threads;
                    }
                    _ => {}
                }
            }
            out[t] = seen.unwrap_or(0);
        }
        if ok {
            let mut v = Val::known(Known::V(out.into()));
            v.od = od || alloc_od;
            return v;
        }
    }
    Val {
        known: None,
        level: Level::Varying,
        od: od || alloc_od,
        alloc: if allocs.len() == 1 {
            allocs.into_iter().next().flatten()
        } else {
            None
        },
    }
}
