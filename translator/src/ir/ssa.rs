//! SSA construction while lowering: register variables become values and phis as the
//! builder goes, so that no pass has to promote them afterwards.
//!
//! This is Braun et al.'s construction ("Simple and Efficient Construction of Static Single
//! Assignment Form", CC 2013) over the graph lowering builds. Within a block the builder
//! answers a register read from the value last written or read there. A read of a variable
//! the block has not seen asks the predecessors: one predecessor answers for it; several make
//! a phi, which asks each of them and is dropped again when every answer is the same value.
//! A block's predecessors are recorded as the edges are made, and a block is *sealed* (no
//! more predecessors come) when it begins, except a loop header, which is sealed when the
//! loop's exit begins (its back edges come from the body). A read in an unsealed header makes
//! a phi whose inputs are filled in when the header is sealed. A register read before any
//! write reads 0 (D3D leaves it undefined; zero is what applications have come to rely on).
//! Blocks that no edge from a live block reaches (the code after a `ret`) are dead: their
//! edges are not recorded, so no phi has an input from a block the structurizer drops.
//!
//! Registers are untyped in D3D: a phi is made with its variable's type (`u32` for
//! registers) and holds whatever 32-bit values reach it. Every read of a phi goes through a
//! *view*, one bitcast per phi and type placed after the phis of its block, so the phi's
//! users are its views and other phis only. When the function is finished
//! ([`FnBuilder::finish_ssa`]), phis whose inputs turned out to be one value are dropped,
//! phis feeding each other are grouped into webs that take the one type their inputs have
//! once bitcasts are looked through (constants adapt to any type), inputs of another type
//! get a bitcast at the end of their predecessor, and views that now cast to the phi's own
//! type are left for the simplifier to fold away.
//!
//! A register written from one vector (`mov r0.xyzw, v1`) stays a vector: its components
//! are extracted only when read. Where blocks join (after an `if`, a `switch`'s cases) and
//! the first predecessor left a register so, the read asks every predecessor for the whole
//! group of components and, when each left them as one vector of the same shape or as
//! constants (one of them may build its vector from scalars), makes one phi of vectors
//! instead of a phi and an extract per component
//! ([`FnBuilder::read_vector_group`]). The test that rules this out costs one look-up in the
//! first predecessor's values ([`FnBuilder::vector_join`]), so reads that cannot use it pay
//! almost nothing for it. A loop header does the same before it is sealed, from the block
//! entering the loop, when that block left the register as all the components of one vector
//! in order: one vector phi, whose back-edge inputs come when the header is sealed
//! ([`FnBuilder::read_vector_header`]).

use smallvec::SmallVec;
use spirv::Op;

use super::builder::{FnBuilder, recast_const};
use super::{Args, BlockId, Inst, Operand, Terminator, TypeId, ValueId, VarId, flags};

/// Block state bits.
pub(crate) const BEGUN: u8 = 1;
pub(crate) const SEALED: u8 = 2;
pub(crate) const LIVE: u8 = 4;

/// A phi being filled in: its block, and the next predecessor to ask.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    phi: ValueId,
    block: BlockId,
    next: u32,
}

/// One step of a read across blocks: a block whose entry value is wanted, or a value found.
enum Step {
    Want(BlockId),
    Got(Operand),
}

/// The value of a variable at the end of a block: `value` itself, or, unless `comp` is
/// `u8::MAX`, component `comp` of it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EndDef {
    pub(super) var: u32,
    pub(super) comp: u8,
    pub(super) value: Operand,
}

/// A phi as the value of a variable in a block, in that block's list: the phi itself, or,
/// unless `comp` is `u8::MAX`, component `comp` of a vector phi.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PhiDef {
    pub(super) var: u32,
    pub(super) comp: u8,
    pub(super) value: Operand,
    pub(super) next: u32,
}

/// A phi the builder made, and its block.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PhiRec {
    pub value: ValueId,
    pub block: BlockId,
}

/// The SSA state of one function being built, kept between functions (see
/// [`super::builder::Scratch`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct State {
    /// Whether reads and writes are tracked (off when a finished function is resumed).
    pub track: bool,
    /// Set when an edge came into a sealed block (a bug in the front end: the reads there
    /// may have missed a predecessor); [`FnBuilder::finish_ssa`] reports it.
    pub poisoned: bool,
    /// Per block: its predecessors so far (each once), and its state bits.
    pub preds: Vec<SmallVec<[BlockId; 2]>>,
    pub bstate: Vec<u8>,
    /// Loop headers waiting to be sealed, with the block whose beginning seals them.
    pub unsealed: Vec<(BlockId, BlockId)>,
    /// Phis of unsealed headers, their inputs still to come: (header, variable, phi).
    pub incomplete: Vec<(BlockId, VarId, ValueId)>,
    /// Vector phis of unsealed headers, their back-edge inputs still to come: (header, phi,
    /// the variables that are its components, in order). See
    /// [`FnBuilder::read_vector_header`].
    pub incomplete_vec: Vec<(BlockId, ValueId, SmallVec<[VarId; 4]>)>,
    /// Every phi made, in order, and each one's index there by value. Phis and views join
    /// the heads of their blocks when the function is finished (inserting them one by one
    /// as they come would cost a block's length each).
    pub phis: Vec<PhiRec>,
    /// Every view made, with its block.
    pub view_heads: Vec<(BlockId, ValueId)>,
    pub phi_index: rustc_hash::FxHashMap<u32, u32>,
    /// The values of the variables each finished block wrote or read, as they were at its end:
    /// block `b`'s are `end_defs[end_range[b].0..end_range[b].1]` (sorted by variable when
    /// there are more than eight). A value written as a component of a vector stays so
    /// (`EndDef::comp`) until a later block reads it: most such components of a block are
    /// never read after it, and are never extracted.
    pub end_defs: Vec<EndDef>,
    pub end_range: Vec<(u32, u32)>,
    /// The phis made for variables a block did not write, as the block's values for them: a
    /// list per block (`phi_head[b]`, then `next` links; `u32::MAX` ends it) in one pool.
    pub phi_head: Vec<u32>,
    pub phi_defs: Vec<PhiDef>,
    /// Views by `phi << 32 | type`.
    pub views: rustc_hash::FxHashMap<u64, ValueId>,
    /// What a dropped phi stands for.
    pub repl: rustc_hash::FxHashMap<u32, Operand>,
    /// The phis a read across blocks is filling in, innermost last.
    pub work: Vec<Frame>,
    /// Typing at the end: per phi, its web (union-find parent) and the web's type.
    parent: Vec<u32>,
    web_ty: Vec<u32>,
    /// Placing the heads: per block, where its phis and views start in `head_list`.
    head_start: Vec<u32>,
    head_list: Vec<ValueId>,
}

impl State {
    /// Emptied for a new function (`track` on), the entry block `entry` begun.
    pub fn reset(&mut self, entry: BlockId) {
        self.track = true;
        self.poisoned = false;
        // Only the blocks the last function had hold predecessors (the lists past them are
        // empty): clearing the rest would cost every function the largest one's block count.
        let used = self.bstate.len().min(self.preds.len());
        for p in &mut self.preds[..used] {
            p.clear();
        }
        self.bstate.clear();
        self.unsealed.clear();
        self.incomplete.clear();
        self.incomplete_vec.clear();
        self.phis.clear();
        self.view_heads.clear();
        self.phi_index.clear();
        self.end_defs.clear();
        self.end_range.clear();
        self.phi_head.clear();
        self.phi_defs.clear();
        self.views.clear();
        self.repl.clear();
        self.work.clear();
        // A huge function's maps are not kept for the next ones.
        if self.end_defs.capacity() > 1 << 16 {
            self.end_defs = Vec::new();
        }
        if self.preds.len() > 1 << 16 {
            self.preds = Vec::new();
        }
        self.grow(entry.0 as usize + 1);
        self.bstate[entry.0 as usize] = BEGUN | SEALED | LIVE;
    }

    /// Makes room for blocks `0..n`, and then some: blocks come one at a time, so the
    /// per-block lists grow to twice their length (at least 16) rather than by one each time.
    /// Entries past the blocks made hold what a new block starts with.
    #[inline]
    pub fn grow(&mut self, n: usize) {
        if self.bstate.len() < n {
            self.grow_to(n.max(2 * self.bstate.len()).max(16));
        }
    }

    #[cold]
    #[inline(never)]
    fn grow_to(&mut self, n: usize) {
        self.bstate.resize(n, 0);
        if self.preds.len() < n {
            self.preds.resize_with(n, SmallVec::new);
        }
        self.end_range.resize(n, (0, 0));
        self.phi_head.resize(n, u32::MAX);
    }

    #[inline]
    pub fn state(&self, b: BlockId) -> u8 {
        self.bstate.get(b.0 as usize).copied().unwrap_or(0)
    }
}

/// What `o` stands for once dropped phis are replaced (only a dropped phi, marked dead, has a
/// replacement: the map is asked for nothing else).
#[inline]
pub(super) fn resolve(s: &State, f: &super::Function, mut o: Operand) -> Operand {
    while let Operand::Value(v) = o
        && f.inst(v).flags & flags::DEAD != 0
        && let Some(&to) = s.repl.get(&v.0)
    {
        o = to;
    }
    o
}

impl FnBuilder<'_> {
    /// Records the edge `from -> to` (once), when `from` is live.
    pub fn add_edge(&mut self, from: BlockId, to: BlockId) {
        let s = &mut self.m.spare.builder.ssa;
        if !s.track || s.state(from) & LIVE == 0 {
            return;
        }
        s.grow(to.0 as usize + 1);
        let st = s.bstate[to.0 as usize];
        let preds = &mut s.preds[to.0 as usize];
        // The edges of one terminator are made one after another, and a switch's edges into
        // a case block one after another too: a repeat is the last entry (no scan, so a
        // block thousands of others branch to costs linear work).
        if preds.last() == Some(&from) {
            return;
        }
        // A sealed block answered its reads from the predecessors it had: one more would
        // make those answers wrong. Lowering never does this (every edge into a begun
        // block is a loop's back edge, and headers stay unsealed until the loop ends).
        debug_assert!(
            st & SEALED == 0,
            "edge B{} -> B{} into a sealed block",
            from.0,
            to.0
        );
        if st & SEALED != 0 {
            s.poisoned = true;
        }
        preds.push(from);
    }

    /// Makes the current block the target of an edge from `from` (none: no edge) when
    /// nothing has happened in it yet: it is still open and holds no instruction and no
    /// register read or write, so no read has asked its predecessors anything and one more
    /// changes no answer. Such a block can take the place of a fresh one (a `switch` case after
    /// a `break`, where lowering had begun a block for the code after the jump) or gain an edge
    /// after it began (a second label of a case). Returns whether it could; when not, nothing
    /// changed.
    pub(crate) fn enter_untouched(&mut self, from: Option<BlockId>) -> bool {
        let cur = self.current();
        let untouched = self.is_open()
            && self.f.block(cur).insts.is_empty()
            && self.m.spare.builder.dirty.is_empty()
            && self.m.spare.builder.rows.is_empty();
        if !untouched {
            return false;
        }
        let s = &mut self.m.spare.builder.ssa;
        if let Some(from) = from
            && s.track
            && s.state(from) & LIVE != 0
        {
            s.grow(cur.0 as usize + 1);
            let preds = &mut s.preds[cur.0 as usize];
            if preds.last() != Some(&from) {
                preds.push(from);
            }
            s.bstate[cur.0 as usize] |= LIVE;
        }
        true
    }

    /// Records the edges of the current block's terminator `term`.
    pub(crate) fn add_edges(&mut self, term: &Terminator) {
        let cur = self.current();
        for i in 0..term.successor_count() {
            self.add_edge(cur, term.successor(i));
        }
    }

    /// Marks `b` begun: sealed unless `sealed` is false, live when a live block leads to it.
    pub(crate) fn mark_begun(&mut self, b: BlockId, sealed: bool) {
        let s = &mut self.m.spare.builder.ssa;
        if !s.track {
            return;
        }
        // Beginning a loop's exit ends the loop: its header has every predecessor now.
        if let Some(i) = s.unsealed.iter().rposition(|&(_, exit)| exit == b) {
            let (header, _) = s.unsealed.remove(i);
            self.seal(header);
        }
        let s = &mut self.m.spare.builder.ssa;
        s.grow(b.0 as usize + 1);
        let live = s.preds[b.0 as usize]
            .iter()
            .any(|&p| s.bstate[p.0 as usize] & LIVE != 0);
        let mut st = BEGUN;
        if sealed {
            st |= SEALED;
        }
        if live {
            st |= LIVE;
        }
        s.bstate[b.0 as usize] = st;
    }

    /// Leaves loop header `header` unsealed until `exit` begins.
    pub(crate) fn seal_when_begun(&mut self, header: BlockId, exit: BlockId) {
        if self.m.spare.builder.ssa.track {
            self.m.spare.builder.ssa.unsealed.push((header, exit));
        }
    }

    /// Remembers the values of the variables the current block wrote or read as its values at
    /// its end (its successors read them from there).
    pub(crate) fn record_defs(&mut self) {
        let cur = self.current();
        let dirty = std::mem::take(&mut self.m.spare.builder.dirty);
        let start = self.m.spare.builder.ssa.end_defs.len();
        for &var in &dirty {
            self.m.spare.builder.vars[var.0 as usize].dirty = 0;
            let Some((value, comp)) = self.peek_var(var) else {
                continue;
            };
            self.m.spare.builder.ssa.end_defs.push(EndDef {
                var: var.0,
                comp,
                value,
            });
        }
        self.m.spare.builder.dirty = dirty;
        self.m.spare.builder.dirty.clear();
        let s = &mut self.m.spare.builder.ssa;
        if s.track && s.end_defs.len() > start {
            if s.end_defs.len() - start > 8 {
                s.end_defs[start..].sort_unstable_by_key(|d| d.var);
            }
            s.grow(cur.0 as usize + 1);
            s.end_range[cur.0 as usize] = (start as u32, s.end_defs.len() as u32);
        }
    }

    /// The value of `var` at the start of the current block, which has not seen it: from the
    /// predecessors (see the module documentation). A phi comes back as its view of the
    /// variable's type.
    pub(crate) fn read_across(&mut self, var: VarId) -> Operand {
        let cur = self.current();
        let v = self.entry_value(var, cur);
        match v {
            Operand::Value(p) if self.f.inst(p).op == Op::Phi => {
                let ty = match self.likely_type(p) {
                    Some(t) => t,
                    None => self.f.vars[var.0 as usize].ty,
                };
                self.view(p, ty)
            }
            other => other,
        }
    }

    /// The type phi `p` will most likely be given when the function is finished: the one
    /// type its inputs have (behind a bitcast to the phi's type; constants adapt), when it
    /// has all of them and none is a phi. A read takes its view of that type, so that what
    /// it computes is typed as it will be (a view of the phi's own type then folds away);
    /// the phi's web may still decide otherwise, and the view is then a real bitcast.
    fn likely_type(&self, p: ValueId) -> Option<TypeId> {
        let inst = self.f.inst(p);
        let s = &self.m.spare.builder.ssa;
        let block = s.phis[*s.phi_index.get(&p.0)? as usize].block;
        if s.state(block) & SEALED == 0 {
            return None;
        }
        let mut ty = None;
        for k in (0..inst.args.len()).step_by(2) {
            let Operand::Value(x) = inst.args[k] else {
                continue;
            };
            if self.f.inst(x).op == Op::Phi {
                return None;
            }
            let t = self.voted_type(x, inst.ty);
            if ty.is_some_and(|u| u != t) {
                return None;
            }
            ty = Some(t);
        }
        ty.filter(|&t| self.web_typable(t))
    }

    /// Whether a web of phis may take type `t`: a 32-bit scalar other than a boolean.
    fn web_typable(&self, t: TypeId) -> bool {
        self.m
            .types
            .shape(t)
            .is_some_and(|(s, w)| w == 1 && !matches!(s, super::Scalar::Bool | super::Scalar::F64))
    }

    /// The value of `var` at the end of block `b` when `b` has one recorded.
    #[inline(always)]
    pub(super) fn end_def(&mut self, var: VarId, b: BlockId) -> Option<Operand> {
        let s = &self.m.spare.builder.ssa;
        let (lo, hi) = s.end_range[b.0 as usize];
        let written = &s.end_defs[lo as usize..hi as usize];
        // A block writes a few variables as a rule: a scan, a binary search past eight.
        let found = if written.len() <= 8 {
            written.iter().position(|d| d.var == var.0)
        } else {
            written.binary_search_by_key(&var.0, |d| d.var).ok()
        };
        let d = match found {
            Some(i) => {
                let at = lo as usize + i;
                let e = s.end_defs[at];
                if e.comp == u8::MAX {
                    e.value
                } else {
                    // Extracted now, at the end of the block that wrote it, once.
                    let v = self.extract_at_end(b, e.value, e.comp);
                    self.m.spare.builder.ssa.end_defs[at] = EndDef {
                        var: var.0,
                        comp: u8::MAX,
                        value: v,
                    };
                    v
                }
            }
            None => {
                let mut i = s.phi_head[b.0 as usize];
                loop {
                    let e = *s.phi_defs.get(i as usize)?;
                    if e.var == var.0 {
                        if e.comp == u8::MAX {
                            break e.value;
                        }
                        break self.extract_phi_def(b, i);
                    }
                    i = e.next;
                }
            }
        };
        Some(resolve(&self.m.spare.builder.ssa, &self.f, d))
    }

    /// The component of a vector phi that `phi_defs[i]` (of block `b`) records, extracted at
    /// the end of `b` (once: the record then holds the extract).
    #[cold]
    #[inline(never)]
    fn extract_phi_def(&mut self, b: BlockId, i: u32) -> Operand {
        let e = self.m.spare.builder.ssa.phi_defs[i as usize];
        let v = self.extract_at_end(b, e.value, e.comp);
        let e = &mut self.m.spare.builder.ssa.phi_defs[i as usize];
        e.value = v;
        e.comp = u8::MAX;
        v
    }

    /// Records `value` (component `comp` of it, unless `u8::MAX`) as the value of `var` at
    /// the start of block `b`, which does not write it.
    pub(super) fn push_phi_def(&mut self, b: BlockId, var: VarId, value: Operand, comp: u8) {
        let s = &mut self.m.spare.builder.ssa;
        let head = &mut s.phi_head[b.0 as usize];
        s.phi_defs.push(PhiDef {
            var: var.0,
            comp,
            value,
            next: *head,
        });
        *head = s.phi_defs.len() as u32 - 1;
    }

    /// A zero of `var`'s type (what a register holds before any write).
    pub(super) fn zero(&mut self, var: VarId) -> Operand {
        let ty = self.f.vars[var.0 as usize].ty;
        Operand::Const(self.m.consts.scalar(ty, 0))
    }

    /// A new phi for `var` in `b`, without inputs yet (room for `inputs`); placed when the
    /// function is finished.
    fn new_phi(&mut self, var: VarId, b: BlockId, inputs: usize) -> ValueId {
        let ty = self.f.vars[var.0 as usize].ty;
        self.add_phi(ty, Args::with_capacity(2 * inputs), b)
    }

    /// A phi of type `ty` in block `b` with inputs `args` (value, block pairs; more may come),
    /// recorded for placing when the function is finished.
    pub(super) fn add_phi(&mut self, ty: TypeId, args: Args, b: BlockId) -> ValueId {
        let phi = self.f.add_inst(Inst::new(Op::Phi, ty, args));
        let s = &mut self.m.spare.builder.ssa;
        s.phi_index.insert(phi.0, s.phis.len() as u32);
        s.phis.push(PhiRec {
            value: phi,
            block: b,
        });
        phi
    }

    /// The value of `var` at the start of `b0`, which has no value of its own for it. The
    /// walk is iterative (a long chain of joins must not exhaust the stack): `work` holds
    /// the phis being filled in.
    pub(super) fn entry_value(&mut self, var: VarId, b0: BlockId) -> Operand {
        let base = self.m.spare.builder.ssa.work.len();
        let mut step = Step::Want(b0);
        loop {
            step = match step {
                Step::Want(b) => match self.walk_to_value(var, b) {
                    Some(v) => Step::Got(v),
                    None => self.next_input(var),
                },
                Step::Got(v) => {
                    let ssa = &self.m.spare.builder.ssa;
                    if ssa.work.len() == base {
                        return v;
                    }
                    let top = *ssa.work.last().expect("a phi being filled");
                    let pred = ssa.preds[top.block.0 as usize][top.next as usize - 1];
                    self.add_input(top.phi, v, pred);
                    self.next_input(var)
                }
            };
        }
    }

    /// Walks up from `b` through blocks with one predecessor and no value for `var` until a
    /// value is found (returned), or a block with several predecessors (a phi is made there
    /// and pushed on `work`: `None`). Only phis are remembered as the values of their blocks
    /// (a later read walks a chain of single-predecessor blocks again, which costs less than
    /// remembering the value in each).
    fn walk_to_value(&mut self, var: VarId, b: BlockId) -> Option<Operand> {
        let mut b = b;
        loop {
            let st = self.m.spare.builder.ssa.state(b);
            let n = self.m.spare.builder.ssa.preds[b.0 as usize].len();
            if n > 1
                && st & SEALED != 0
                && b != self.current()
                && self.vector_join(var, b)
                && self.read_vector_group(var, b)
            {
                return self.end_def(var, b);
            }
            if st & SEALED == 0
                && b != self.current()
                && self.vector_header(var, b)
                && self.read_vector_header(var, b)
            {
                return self.end_def(var, b);
            }
            if st & SEALED == 0 || n > 1 {
                let phi = self.new_phi(var, b, n.max(2));
                self.push_phi_def(b, var, Operand::Value(phi), u8::MAX);
                let s = &mut self.m.spare.builder.ssa;
                if st & SEALED == 0 {
                    s.incomplete.push((b, var, phi));
                    return Some(Operand::Value(phi));
                }
                s.work.push(Frame {
                    phi,
                    block: b,
                    next: 0,
                });
                return None;
            }
            if n == 0 {
                return Some(self.zero(var));
            }
            let p = self.m.spare.builder.ssa.preds[b.0 as usize][0];
            if let Some(d) = self.end_def(var, p) {
                return Some(d);
            }
            b = p;
        }
    }

    /// Asks the next predecessor of the phi on top of `work` for its input, or, when all
    /// have answered, finishes the phi and hands its value down.
    fn next_input(&mut self, var: VarId) -> Step {
        loop {
            let ssa = &mut self.m.spare.builder.ssa;
            let top = *ssa.work.last().expect("a phi being filled");
            let preds = &ssa.preds[top.block.0 as usize];
            if top.next as usize == preds.len() {
                ssa.work.pop();
                return Step::Got(self.remove_if_trivial(top.phi));
            }
            let pred = preds[top.next as usize];
            ssa.work.last_mut().expect("on top").next += 1;
            match self.end_def(var, pred) {
                Some(d) => self.add_input(top.phi, d, pred),
                None => return Step::Want(pred),
            }
        }
    }

    /// Adds the input `v` from `pred` to `phi` (a view stands for its phi).
    pub(super) fn add_input(&mut self, phi: ValueId, v: Operand, pred: BlockId) {
        let v = match v {
            Operand::Value(x) if self.f.inst(x).flags & flags::VIEW != 0 => self.f.inst(x).args[0],
            other => other,
        };
        let args = &mut self.f.inst_mut(phi).args;
        args.push(v);
        args.push(Operand::Block(pred));
    }

    /// `phi` itself, or the one value its inputs all are (the phi then dropped).
    pub(super) fn remove_if_trivial(&mut self, phi: ValueId) -> Operand {
        let mut same = None;
        for pair in self.f.inst(phi).args.chunks(2) {
            let a = resolve(&self.m.spare.builder.ssa, &self.f, pair[0]);
            if a == Operand::Value(phi) || Some(a) == same {
                continue;
            }
            if same.is_some() {
                return Operand::Value(phi);
            }
            same = Some(a);
        }
        // A phi with no input but itself is left (nothing else reaches it).
        let Some(same) = same else {
            return Operand::Value(phi);
        };
        self.drop_phi(phi, same);
        same
    }

    /// Drops `phi` (it is never placed), `to` standing for it from now on.
    fn drop_phi(&mut self, phi: ValueId, to: Operand) {
        self.m.spare.builder.ssa.repl.insert(phi.0, to);
        self.f.inst_mut(phi).flags |= flags::DEAD;
    }

    /// Seals loop header `header`: its incomplete phis get their inputs.
    fn seal(&mut self, header: BlockId) {
        let s = &mut self.m.spare.builder.ssa;
        s.grow(header.0 as usize + 1);
        s.bstate[header.0 as usize] |= SEALED;
        let mut i = 0;
        while i < self.m.spare.builder.ssa.incomplete.len() {
            let (b, var, phi) = self.m.spare.builder.ssa.incomplete[i];
            if b != header {
                i += 1;
                continue;
            }
            self.m.spare.builder.ssa.incomplete.swap_remove(i);
            let n = self.m.spare.builder.ssa.preds[header.0 as usize].len();
            for k in 0..n {
                let pred = self.m.spare.builder.ssa.preds[header.0 as usize][k];
                let v = match self.end_def(var, pred) {
                    Some(d) => d,
                    None => self.entry_value(var, pred),
                };
                self.add_input(phi, v, pred);
            }
            self.remove_if_trivial(phi);
        }
        let mut i = 0;
        while i < self.m.spare.builder.ssa.incomplete_vec.len() {
            if self.m.spare.builder.ssa.incomplete_vec[i].0 != header {
                i += 1;
                continue;
            }
            let (_, phi, vars) = self.m.spare.builder.ssa.incomplete_vec.swap_remove(i);
            self.complete_vector_phi(header, phi, &vars);
        }
    }

    /// The view of phi `p` as type `ty`: a bitcast placed after the phis of `p`'s block, made
    /// once per phi and type.
    pub(crate) fn view(&mut self, p: ValueId, ty: TypeId) -> Operand {
        let k = (p.0 as u64) << 32 | ty.0 as u64;
        if let Some(&v) = self.m.spare.builder.ssa.views.get(&k) {
            return Operand::Value(v);
        }
        let mut inst = Inst::new(Op::Bitcast, ty, Args::from_slice(&[Operand::Value(p)]));
        inst.flags = flags::VIEW;
        let v = self.f.add_inst(inst);
        let b = match self.m.spare.builder.ssa.phi_index.get(&p.0) {
            Some(&i) => self.m.spare.builder.ssa.phis[i as usize].block,
            None => self.current(),
        };
        self.m.spare.builder.ssa.view_heads.push((b, v));
        self.m.spare.builder.ssa.views.insert(k, v);
        Operand::Value(v)
    }

    /// Places the live phis, then the views, at the heads of their blocks (in the order
    /// they were made).
    fn place_heads(&mut self) {
        let s = &mut self.m.spare.builder.ssa;
        let n = self.f.blocks.len();
        s.head_start.clear();
        s.head_start.resize(n + 2, 0);
        let live = |f: &super::Function, v: ValueId| f.inst(v).flags & flags::DEAD == 0;
        for p in &s.phis {
            if live(&self.f, p.value) {
                s.head_start[p.block.0 as usize + 2] += 1;
            }
        }
        for &(b, _) in &s.view_heads {
            s.head_start[b.0 as usize + 2] += 1;
        }
        for i in 2..n + 2 {
            s.head_start[i] += s.head_start[i - 1];
        }
        let total = s.head_start[n + 1] as usize;
        s.head_list.clear();
        s.head_list.resize(total, ValueId(0));
        // `head_start[b + 1]` is block b's fill cursor.
        for p in &s.phis {
            if live(&self.f, p.value) {
                let c = &mut s.head_start[p.block.0 as usize + 1];
                s.head_list[*c as usize] = p.value;
                *c += 1;
            }
        }
        for &(b, v) in &s.view_heads {
            let c = &mut s.head_start[b.0 as usize + 1];
            s.head_list[*c as usize] = v;
            *c += 1;
        }
        // Now `head_start[b]..head_start[b + 1]` are block b's heads.
        for b in 0..n {
            let (lo, hi) = (s.head_start[b] as usize, s.head_start[b + 1] as usize);
            if lo < hi {
                let heads = &s.head_list[lo..hi];
                self.f.blocks[b].insts.splice(0..0, heads.iter().copied());
            }
        }
    }

    /// Finishes the function's SSA form (see the module documentation): seals what is left
    /// unsealed, drops phis whose inputs are one value, types phi webs, brings inputs to
    /// their phi's type and points views at what they view. False when an edge came into a
    /// sealed block (the SSA form may be wrong: an internal error).
    pub(crate) fn finish_ssa(&mut self) -> bool {
        if !self.m.spare.builder.ssa.track {
            return true;
        }
        while let Some((header, _)) = self.m.spare.builder.ssa.unsealed.pop() {
            self.seal(header);
        }
        if !self.m.spare.builder.ssa.phis.is_empty() {
            self.drop_trivial_phis();
            self.type_phis();
        }
        // Views read what their phi stands for now.
        for i in 0..self.m.spare.builder.ssa.view_heads.len() {
            let v = self.m.spare.builder.ssa.view_heads[i].1;
            let x = resolve(&self.m.spare.builder.ssa, &self.f, self.f.inst(v).args[0]);
            let inst = self.f.inst_mut(v);
            inst.args[0] = x;
            inst.flags &= !flags::VIEW;
        }
        if !self.m.spare.builder.ssa.phis.is_empty() {
            self.place_heads();
        }
        self.f.vars.clear();
        self.m.spare.builder.ssa.track = false;
        !self.m.spare.builder.ssa.poisoned
    }

    /// Drops the phis whose inputs are all one value (or the phi itself), until none is left.
    fn drop_trivial_phis(&mut self) {
        loop {
            let mut changed = false;
            for i in 0..self.m.spare.builder.ssa.phis.len() {
                let p = self.m.spare.builder.ssa.phis[i].value;
                if self.f.inst(p).flags & flags::DEAD != 0 {
                    continue;
                }
                // Inputs resolved first (a dropped phi's value stands in).
                for k in (0..self.f.inst(p).args.len()).step_by(2) {
                    let a = self.f.inst(p).args[k];
                    let r = resolve(&self.m.spare.builder.ssa, &self.f, a);
                    if r != a {
                        self.f.inst_mut(p).args[k] = r;
                    }
                }
                if self.remove_if_trivial(p) != Operand::Value(p) {
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Gives each web of phis feeding each other the one type their other inputs have behind
    /// bitcasts (constants adapt), or keeps their variables' type when they disagree; inputs
    /// of another type get a bitcast at the end of their predecessor.
    fn type_phis(&mut self) {
        const UNDECIDED: u32 = u32::MAX;
        const CONFLICT: u32 = u32::MAX - 1;
        let mut parent = std::mem::take(&mut self.m.spare.builder.ssa.parent);
        let mut web_ty = std::mem::take(&mut self.m.spare.builder.ssa.web_ty);
        let n = self.m.spare.builder.ssa.phis.len();
        parent.clear();
        parent.extend(0..n as u32);
        // (Every phi is one the builder made: the opcode answers before the map is asked.)
        let index = |s: &State, f: &super::Function, o: Operand| -> Option<u32> {
            match o {
                Operand::Value(v) if f.inst(v).op == Op::Phi => s.phi_index.get(&v.0).copied(),
                _ => None,
            }
        };
        for i in 0..n {
            let p = self.m.spare.builder.ssa.phis[i].value;
            if self.f.inst(p).flags & flags::DEAD != 0 {
                continue;
            }
            for k in (0..self.f.inst(p).args.len()).step_by(2) {
                if let Some(j) = index(&self.m.spare.builder.ssa, &self.f, self.f.inst(p).args[k]) {
                    let (x, y) = (find(&mut parent, i as u32), find(&mut parent, j));
                    if x != y {
                        parent[x as usize] = y;
                    }
                }
            }
        }
        web_ty.clear();
        web_ty.resize(n, UNDECIDED);
        for i in 0..n {
            let p = self.m.spare.builder.ssa.phis[i].value;
            let inst = self.f.inst(p);
            if inst.flags & flags::DEAD != 0 {
                continue;
            }
            let phi_ty = inst.ty;
            let root = find(&mut parent, i as u32) as usize;
            if self.m.types.shape(phi_ty).is_none_or(|(_, w)| w != 1) {
                web_ty[root] = CONFLICT;
            }
            for k in (0..inst.args.len()).step_by(2) {
                let a = inst.args[k];
                let t = match a {
                    Operand::Value(_) if index(&self.m.spare.builder.ssa, &self.f, a).is_some() => {
                        continue;
                    }
                    Operand::Value(x) => self.voted_type(x, phi_ty),
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
        for i in 0..n {
            let PhiRec { value: p, .. } = self.m.spare.builder.ssa.phis[i];
            if self.f.inst(p).flags & flags::DEAD != 0 {
                continue;
            }
            let old = self.f.inst(p).ty;
            let root = find(&mut parent, i as u32) as usize;
            let t = match web_ty[root] {
                UNDECIDED | CONFLICT => old,
                t => TypeId(t),
            };
            let t = if t != old && self.web_typable(t) {
                t
            } else {
                old
            };
            self.f.inst_mut(p).ty = t;
            for k in (0..self.f.inst(p).args.len()).step_by(2) {
                let a = self.f.inst(p).args[k];
                let pred = self.f.inst(p).args[k + 1]
                    .block()
                    .expect("phi inputs name their block");
                let fixed = self.input_as(a, old, t, pred);
                self.f.inst_mut(p).args[k] = fixed;
            }
        }
        self.m.spare.builder.ssa.parent = parent;
        self.m.spare.builder.ssa.web_ty = web_ty;
    }

    /// The type input value `x` of a phi of type `phi_ty` counts as in its web's type: its
    /// own, or — when it already has the phi's type and is a bitcast — what it casts.
    fn voted_type(&self, x: ValueId, phi_ty: TypeId) -> TypeId {
        let xi = self.f.inst(x);
        if xi.ty != phi_ty || xi.op != Op::Bitcast {
            return xi.ty;
        }
        match xi.args[0] {
            Operand::Value(y) => self.f.inst(y).ty,
            Operand::Const(c) => self.m.consts.get(c).ty(),
            _ => xi.ty,
        }
    }

    /// Input `a` of a phi once typed `t` (made with type `old`), from predecessor `pred`:
    /// phis of the web as they are, constants recast, a bitcast looked through, else a bitcast
    /// at the end of `pred`.
    fn input_as(&mut self, a: Operand, old: TypeId, t: TypeId, pred: BlockId) -> Operand {
        let ty_of = |b: &Self, o: Operand| match o {
            Operand::Value(x) => b.f.inst(x).ty,
            Operand::Const(c) => b.m.consts.get(c).ty(),
            _ => t,
        };
        match a {
            Operand::Value(x) if self.f.inst(x).op == Op::Phi => a,
            Operand::Const(c) => {
                if ty_of(self, a) == t {
                    return a;
                }
                match recast_const(&mut self.m.consts, &self.m.types, c, t) {
                    Some(c) => Operand::Const(c),
                    None => self.cast_at_end(pred, t, a),
                }
            }
            Operand::Value(x) => {
                let xt = self.f.inst(x).ty;
                if xt == t {
                    return a;
                }
                if xt == old && self.f.inst(x).op == Op::Bitcast {
                    let inner = self.f.inst(x).args[0];
                    if ty_of(self, inner) == t {
                        return inner;
                    }
                }
                self.cast_at_end(pred, t, a)
            }
            other => other,
        }
    }

    /// `a` bitcast to `t` by an instruction at the end of block `b`.
    pub(super) fn cast_at_end(&mut self, b: BlockId, t: TypeId, a: Operand) -> Operand {
        let v = self
            .f
            .add_inst(Inst::new(Op::Bitcast, t, Args::from_slice(&[a])));
        self.f.block_mut(b).insts.push(v);
        Operand::Value(v)
    }
}

fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let p = parent[x as usize];
        parent[x as usize] = parent[p as usize];
        x = p;
    }
    x
}
