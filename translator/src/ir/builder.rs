//! A cursor for building one function: append instructions to the current block, start and
//! end blocks, make constants.
//!
//! Small folds happen right here (operations on constants, extracting from a composite that
//! was just built, bitcasting a bitcast back) because they are free at construction time and
//! keep the later passes' work small. For the same reason the current block remembers what it
//! already computed where repeats are common and cheap to recognise: rows of read-only memory,
//! extracted components, and two-operand integer arithmetic (compilers repeat address
//! arithmetic at every use), each made once per block.

use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;
use spirv::Op;

use super::{
    Args, BlockId, Const, ConstId, Function, GlobalId, Inst, Module, Operand, Scalar, Terminator,
    TypeId, TypeTable, ValueId, VarId,
};

/// Builds one function of a module.
pub struct FnBuilder<'m> {
    pub m: &'m mut Module,
    pub f: Function,
    cur: BlockId,
}

/// A builder's per-variable state and per-block maps, kept in the module between functions and
/// used there in place by the builder of the current one
/// (see [`Module::reset`]); stale until [`FnBuilder::new`] clears it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scratch {
    /// Per variable: its value in the current block, and whether the block's end records it
    /// (one record per variable, so that a read or write touches one place).
    pub(crate) vars: Vec<VarState>,
    /// Variables written (or read from an earlier block) in the current block, whose values
    /// its end records for the blocks after it (so rewriting a register within a block costs
    /// nothing).
    pub(crate) dirty: Vec<VarId>,
    /// Rows of read-only memory loaded in the current block, by (variable, row index).
    pub(super) rows: HashMap<(GlobalId, Operand), Operand>,
    /// Integer arithmetic made in the current block, by (opcode, type, operands): the same
    /// computation asked for again gives the same value ([`FnBuilder::op`]).
    ints: HashMap<(u32, u32, Operand, Operand), ValueId>,
    /// Components extracted in the current block, by vector (indexed by its `ValueId`):
    /// valid where the slot's stamp is `stamp` (a direct table, cheaper than hashing).
    extracts: Vec<ExtractSlot>,
    /// The current block's stamp for `extracts` (increases with every block begun, across
    /// functions, so that no table needs clearing).
    stamp: u32,
    /// Instruction lists of the last function's blocks, for new blocks to take.
    block_insts: Vec<Vec<ValueId>>,
    /// Set while instructions go to the end of a finished block ([`FnBuilder::extract_at_end`]):
    /// the extract cache, which is the current block's, is neither asked nor filled.
    no_cache: bool,
    /// SSA construction (see [`super::ssa`]).
    pub(crate) ssa: super::ssa::State,
}

/// The components of one vector extracted in the block of stamp `stamp`: the extract's
/// `ValueId` + 1 per component (0: none yet).
#[derive(Debug, Clone, Copy, Default)]
struct ExtractSlot {
    stamp: u32,
    comps: [u32; 4],
}

/// The operations [`FnBuilder::op`] gives one value per block for: pure two-operand integer
/// arithmetic, which no flag set after the fact (precise) applies to.
#[inline]
fn numbered(op: Op) -> bool {
    matches!(
        op,
        Op::IAdd
            | Op::ISub
            | Op::IMul
            | Op::ShiftLeftLogical
            | Op::ShiftRightLogical
            | Op::ShiftRightArithmetic
            | Op::BitwiseAnd
            | Op::BitwiseOr
            | Op::BitwiseXor
    )
}

/// Most instruction lists the builder keeps for new blocks (see [`Scratch::recycle`]).
pub(crate) const POOLED_BLOCK_LISTS: usize = 512;

impl Scratch {
    /// Empties `f`, the last function kept for its buffers: its blocks' instruction lists join
    /// the pool for the next functions' blocks (emptied, last block first, so that the entry
    /// block's list is the first taken), its instructions, variables and layout are dropped.
    /// The pool keeps at most [`POOLED_BLOCK_LISTS`] lists, the newest: a function with more
    /// blocks than the last one then still finds a list for each (up to that many), and the
    /// blocks the passes add to every function cannot grow it translation after translation.
    pub(super) fn recycle(&mut self, f: &mut Function) {
        // (A list that never held an instruction has no allocation to keep.)
        self.block_insts
            .extend(f.blocks.drain(..).rev().filter_map(|mut b| {
                b.insts.clear();
                (b.insts.capacity() > 0).then_some(b.insts)
            }));
        if self.block_insts.len() > POOLED_BLOCK_LISTS {
            let extra = self.block_insts.len() - POOLED_BLOCK_LISTS;
            self.block_insts.drain(..extra);
        }
        f.insts.clear();
        f.vars.clear();
        f.layout.clear();
    }

    /// A stamp for a block begun now: the extracts of earlier blocks are forgotten.
    fn next_block(&mut self) {
        if self.stamp == u32::MAX {
            // Stamps wrapped: forget every slot the other way.
            self.extracts.clear();
            self.stamp = 0;
        }
        self.stamp += 1;
    }

    /// How many instruction lists the builder keeps for new blocks (tests: the pool is bounded).
    #[cfg(test)]
    pub(crate) fn pooled_block_lists(&self) -> usize {
        self.block_insts.len()
    }
}

impl Drop for FnBuilder<'_> {
    fn drop(&mut self) {
        // A huge function's extract table is not kept for the next ones (1.25 MiB at most
        // stays).
        let s = &mut self.m.spare.builder;
        if s.extracts.len() > 1 << 16 {
            s.extracts = Vec::new();
        }
    }
}

/// A variable's state in the builder ([`Scratch::vars`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct VarState {
    /// The block (id + 1) in which `value` is the variable's current value.
    block: u32,
    /// The block (id + 1) in which the variable is listed in [`Scratch::dirty`].
    pub(crate) dirty: u32,
    value: Operand,
    /// `WHOLE`, or the component of the vector `value` that is the variable's value (written
    /// lazily: no extract until someone needs the scalar).
    comp: u8,
}

impl VarState {
    /// A variable with no value in any block.
    const NONE: VarState = VarState {
        block: 0,
        dirty: 0,
        value: Operand::Lit(0),
        comp: WHOLE,
    };
}

/// `VarState::comp` value meaning "the value itself".
const WHOLE: u8 = u8::MAX;

impl<'m> FnBuilder<'m> {
    /// A builder positioned in a new entry block; `size_hint` = expected instruction count.
    /// It reuses the buffers the module keeps from its last function ([`Module::reset`]).
    pub fn new(m: &'m mut Module, size_hint: usize) -> Self {
        let mut f = std::mem::take(&mut m.spare.function);
        // The builder's per-variable state stays in the module (emptied here, used in place).
        let s = &mut m.spare.builder;
        // The last function's block lists to the pool (a `Translator` has done this when its
        // last translation ended: nothing is left).
        s.recycle(&mut f);
        // Room for what a typical shader makes, so that these lists seldom grow one
        // reallocation at a time: variables (four per temp register), blocks' pending stores.
        if f.insts.capacity() < size_hint {
            // A new buffer: growing the old one (realloc) would copy its stale contents.
            f.insts = Vec::with_capacity(size_hint);
        }
        f.vars.reserve(64);
        f.plain_flow = false;
        let mut entry_insts = s.block_insts.pop().unwrap_or_default();
        let entry = f.new_block();
        // Straight-line programs put everything in the entry block.
        entry_insts.clear();
        if entry_insts.capacity() < size_hint / 4 {
            // As for `f.insts`: a new list rather than a copying growth of a stale one.
            entry_insts = Vec::with_capacity(size_hint / 4);
        }
        f.blocks[entry.0 as usize].insts = entry_insts;
        f.layout.push(entry);
        s.vars.clear();
        s.dirty.clear();
        s.dirty.reserve(32);
        s.rows.clear();
        s.rows.reserve(16);
        s.ints.clear();
        s.next_block();
        s.ssa.reset(entry);
        FnBuilder { m, f, cur: entry }
    }

    /// A builder adding to `f`, a finished function of `m` (after the passes: it reads and
    /// writes no register variables), positioned nowhere until [`FnBuilder::resume_at`].
    pub fn resume(m: &'m mut Module, f: Function) -> Self {
        let s = &mut m.spare.builder;
        s.dirty.clear();
        s.rows.clear();
        s.ints.clear();
        s.next_block();
        s.ssa.track = false;
        let cur = f.layout.first().copied().unwrap_or(BlockId(0));
        FnBuilder { m, f, cur }
    }

    /// Makes `b` (already in the layout, open) the block instructions go to.
    pub fn resume_at(&mut self, b: BlockId) {
        self.m.spare.builder.rows.clear();
        self.m.spare.builder.ints.clear();
        self.m.spare.builder.next_block();
        self.cur = b;
    }

    /// The function built, the builder's buffers back to the module.
    pub fn into_function(mut self) -> Function {
        std::mem::take(&mut self.f)
    }

    /// The finished function (its SSA form finished: see [`super::ssa`]).
    #[cfg(test)]
    pub fn finish(mut self) -> Function {
        assert!(self.finish_ssa(), "an edge came into a sealed block");
        std::mem::take(&mut self.f)
    }

    pub fn current(&self) -> BlockId {
        self.cur
    }

    /// True while the current block has no terminator.
    pub fn is_open(&self) -> bool {
        matches!(self.f.block(self.cur).term, Terminator::Open)
    }

    /// A new block, not yet placed in the layout.
    pub fn new_block(&mut self) -> BlockId {
        let b = self.f.new_block();
        if let Some(insts) = self.m.spare.builder.block_insts.pop() {
            self.f.blocks[b.0 as usize].insts = insts;
        }
        b
    }

    /// Makes `b` current and appends it to the layout. Every edge into `b` must be made by
    /// now (`b` is sealed: see [`super::ssa`]); a loop header begins with
    /// [`FnBuilder::begin_loop`].
    pub fn begin(&mut self, b: BlockId) {
        self.begin_with(b, true);
    }

    /// [`FnBuilder::begin`], leaving `b` unsealed unless `sealed`.
    pub(crate) fn begin_with(&mut self, b: BlockId, sealed: bool) {
        // (A per-block flag, not a search of the layout: debug builds of programs with many
        // blocks stay linear.)
        debug_assert!(
            !self.m.spare.builder.ssa.track
                || self.m.spare.builder.ssa.state(b) & super::ssa::BEGUN == 0,
            "B{} begun twice",
            b.0
        );
        // Writes in an unfinished block are recorded where they are.
        if !self.m.spare.builder.dirty.is_empty() && self.is_open() {
            self.record_defs();
        }
        self.m.spare.builder.dirty.clear();
        self.m.spare.builder.rows.clear();
        self.m.spare.builder.ints.clear();
        self.m.spare.builder.next_block();
        self.mark_begun(b, sealed);
        let insts = &mut self.f.block_mut(b).insts;
        if insts.capacity() == 0 {
            // A block takes a few instructions at least, a loop body or a branch of an `if`
            // often a few dozen: one allocation, not a series of growths.
            insts.reserve(32);
        }
        self.f.layout.push(b);
        self.cur = b;
    }

    /// Ends the current block (if still open) with `term`, recording the values of the
    /// variables it wrote for its successors (unless `term` leaves the function) and its
    /// edges.
    pub fn terminate(&mut self, term: Terminator) {
        if self.is_open() {
            self.end_block(&term);
            self.add_edges(&term);
            self.f.block_mut(self.cur).term = term;
        }
    }

    /// [`FnBuilder::terminate`] without recording the terminator's edges: the caller adds
    /// them with [`FnBuilder::add_edge`] as it learns them (a switch whose cases come later).
    pub fn terminate_edges_later(&mut self, term: Terminator) {
        if self.is_open() {
            self.end_block(&term);
            self.f.block_mut(self.cur).term = term;
        }
    }

    /// What ending the current block with `term` records of its variables.
    fn end_block(&mut self, term: &Terminator) {
        if matches!(term, Terminator::Return | Terminator::Unreachable) {
            // No successor reads the variables.
            // Emptied in place: the list keeps its allocation for the next block and program.
            for &v in &self.m.spare.builder.dirty {
                self.m.spare.builder.vars[v.0 as usize].dirty = 0;
            }
            self.m.spare.builder.dirty.clear();
        } else {
            self.record_defs();
        }
    }

    /// Ends the current block with a branch to `b` (if still open) and makes `b` current.
    pub fn branch_and_begin(&mut self, b: BlockId) {
        self.terminate(Terminator::Branch(b));
        self.begin(b);
    }

    /// Appends an instruction to the current block.
    #[inline]
    pub fn push(&mut self, inst: Inst) -> ValueId {
        let v = self.f.add_inst(inst);
        let cur = self.cur;
        self.f.block_mut(cur).insts.push(v);
        v
    }

    /// Appends `op` with result type `ty` and returns its result. Two-operand integer
    /// arithmetic the current block already computed (address arithmetic, repeated by
    /// compilers at every use) gives the earlier value instead.
    pub fn op(&mut self, op: Op, ty: TypeId, args: &[Operand]) -> Operand {
        if let &[a, b] = args
            && numbered(op)
            && !self.m.spare.builder.no_cache
        {
            return self.op_numbered(op, ty, a, b);
        }
        Operand::Value(self.push(Inst::new(op, ty, Args::from_slice(args))))
    }

    /// [`FnBuilder::op`] of an operation [`numbered`]. An earlier value whose instruction has
    /// flags (set after it was made: relaxed precision, non-uniform) is not reused for a
    /// computation that may need none of them.
    fn op_numbered(&mut self, op: Op, ty: TypeId, a: Operand, b: Operand) -> Operand {
        let key = (op as u32, ty.0, a, b);
        if let Some(&v) = self.m.spare.builder.ints.get(&key)
            && self.f.inst(v).flags == 0
        {
            return Operand::Value(v);
        }
        let v = self.push(Inst::new(op, ty, Args::from_slice(&[a, b])));
        self.m.spare.builder.ints.insert(key, v);
        Operand::Value(v)
    }

    /// Appends `op` without a result.
    pub fn op_void(&mut self, op: Op, args: &[Operand]) -> ValueId {
        self.push(Inst::new(op, TypeId::VOID, Args::from_slice(args)))
    }

    /// Appends a GLSL.std.450 extended instruction.
    pub fn glsl(&mut self, inst: spirv::GlslStd450Op, ty: TypeId, args: &[Operand]) -> Operand {
        let mut a: Args = SmallVec::with_capacity(args.len() + 1);
        a.push(Operand::Lit(inst as u32));
        a.extend_from_slice(args);
        Operand::Value(self.push(Inst::new(Op::ExtInst, ty, a)))
    }

    // ---- constants -------------------------------------------------------------------------

    pub fn u32c(&mut self, v: u32) -> Operand {
        Operand::Const(self.m.consts.u32(v))
    }

    pub fn i32c(&mut self, v: i32) -> Operand {
        Operand::Const(self.m.consts.i32(v))
    }

    pub fn f32c(&mut self, v: f32) -> Operand {
        Operand::Const(self.m.consts.f32(v))
    }

    pub fn boolc(&mut self, v: bool) -> Operand {
        Operand::Const(self.m.consts.bool(v))
    }

    /// A constant of scalar kind `s` with `n` components all equal to `bits`.
    pub fn splat(&mut self, s: Scalar, n: u8, bits: u64) -> Operand {
        let b = [bits; 4];
        Operand::Const(self.m.consts.vector(s, &b[..n.clamp(1, 4) as usize]))
    }

    // ---- typing ------------------------------------------------------------------------------

    /// Result type of an operand (pointer type for globals and variables).
    #[inline]
    pub fn type_of(&mut self, o: Operand) -> TypeId {
        type_of(
            &mut self.m.types,
            &self.m.consts,
            &self.f,
            &self.m.globals,
            o,
        )
    }

    /// Component count of a scalar/vector operand.
    pub fn width_of(&mut self, o: Operand) -> u8 {
        let t = self.type_of(o);
        self.m.types.width(t)
    }

    // ---- folding constructors -----------------------------------------------------------------

    /// `x` reinterpreted as `to` (same width).
    #[inline]
    pub fn bitcast(&mut self, to: TypeId, x: Operand) -> Operand {
        // Most reads already have the type wanted: that check stays inline at the caller.
        if self.type_of(x) == to {
            return x;
        }
        self.bitcast_other(to, x)
    }

    /// [`FnBuilder::bitcast`] of a value whose type differs from `to`.
    #[inline(never)]
    fn bitcast_other(&mut self, to: TypeId, x: Operand) -> Operand {
        match x {
            Operand::Const(c) => {
                if let Some(c) = recast_const(&mut self.m.consts, &self.m.types, c, to) {
                    return Operand::Const(c);
                }
            }
            Operand::Value(v) => {
                let inst = self.f.inst(v);
                if inst.flags & super::flags::VIEW != 0 {
                    // Another view of the same phi.
                    let Operand::Value(p) = inst.args[0] else {
                        unreachable!("a view casts a phi")
                    };
                    return self.view(p, to);
                }
                if inst.op == Op::Bitcast {
                    let inner = inst.args[0];
                    if self.type_of(inner) == to {
                        return inner;
                    }
                    return self.op(Op::Bitcast, to, &[inner]);
                }
            }
            _ => {}
        }
        self.op(Op::Bitcast, to, &[x])
    }

    /// Component `i` of a vector `x` (a scalar is returned as is for `i == 0`).
    #[inline]
    pub fn extract(&mut self, x: Operand, i: u8) -> Operand {
        // Made earlier in this block: the cache holds only extracts that no fold answered,
        // so looking there first gives the same answer, cheaper.
        if let Operand::Value(xv) = x
            && i < 4
            && let Some(e) = self.m.spare.builder.extracts.get(xv.0 as usize)
            && e.stamp == self.m.spare.builder.stamp
            && e.comps[i as usize] != 0
        {
            return Operand::Value(ValueId(e.comps[i as usize] - 1));
        }
        self.extract_other(x, i)
    }

    /// [`FnBuilder::extract`] of a component not made earlier in this block.
    #[inline(never)]
    fn extract_other(&mut self, x: Operand, i: u8) -> Operand {
        let ty = self.type_of(x);
        let (s, n) = self
            .m
            .types
            .shape(ty)
            .expect("extract from a scalar/vector");
        if n == 1 {
            debug_assert_eq!(i, 0);
            return x;
        }
        match x {
            Operand::Const(c) => {
                if let Some(c) = self.m.consts.component(c, i, &self.m.types) {
                    return Operand::Const(c);
                }
            }
            Operand::Value(v) => {
                let inst = self.f.inst(v);
                match inst.op {
                    Op::CompositeConstruct if inst.args.len() == n as usize => {
                        return inst.args[i as usize];
                    }
                    Op::VectorShuffle => {
                        let a = inst.args[0];
                        let b = inst.args[1];
                        let sel = inst.args[2 + i as usize]
                            .lit()
                            .expect("shuffle selectors are literals");
                        let ta = self.type_of(a);
                        let na = self.m.types.width(ta) as u32;
                        return if sel < na {
                            self.extract(a, sel as u8)
                        } else {
                            self.extract(b, (sel - na) as u8)
                        };
                    }
                    // (Not through a view: its phi may be dropped when the function is
                    // finished, and only views are rewritten then.)
                    Op::Bitcast if inst.flags & super::flags::VIEW == 0 => {
                        // A component of a reinterpreted vector: the reinterpreted component,
                        // so that chains of bitcasts on scalars fold away.
                        let inner = inst.args[0];
                        let tin = self.type_of(inner);
                        if self.m.types.width(tin) == n {
                            let x = self.extract(inner, i);
                            return self.bitcast(TypeTable::vec(s, 1), x);
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        let sty = TypeTable::vec(s, 1);
        let Operand::Value(xv) = x else {
            return self.op(Op::CompositeExtract, sty, &[x, Operand::Lit(i as u32)]);
        };
        if self.m.spare.builder.no_cache {
            return self.op(Op::CompositeExtract, sty, &[x, Operand::Lit(i as u32)]);
        }
        // D3D code reads the same component many times: extract it once per block.
        let (slot, c) = (xv.0 as usize, i as usize & 3);
        let stamp = self.m.spare.builder.stamp;
        if let Some(e) = self.m.spare.builder.extracts.get(slot)
            && i < 4
            && e.stamp == stamp
            && e.comps[c] != 0
        {
            return Operand::Value(ValueId(e.comps[c] - 1));
        }
        let e = self.op(Op::CompositeExtract, sty, &[x, Operand::Lit(i as u32)]);
        if let Operand::Value(ev) = e
            && i < 4
            && let Some(id) = ev.0.checked_add(1)
        {
            let extracts = &mut self.m.spare.builder.extracts;
            if slot >= extracts.len() {
                let n = (slot + 1).max(self.f.insts.len()).max(2 * extracts.len());
                extracts.resize(n, ExtractSlot::default());
            }
            let e = &mut extracts[slot];
            if e.stamp != stamp {
                *e = ExtractSlot {
                    stamp,
                    comps: [0; 4],
                };
            }
            e.comps[c] = id;
        }
        e
    }

    /// Component `i` of `x` made by instructions at the end of block `b`, which is finished
    /// (its terminator stays where it is): a value a finished block left as a component of a
    /// vector, extracted only when a later block reads it.
    pub(crate) fn extract_at_end(&mut self, b: BlockId, x: Operand, i: u8) -> Operand {
        let cur = std::mem::replace(&mut self.cur, b);
        self.m.spare.builder.no_cache = true;
        let v = self.extract(x, i);
        self.m.spare.builder.no_cache = false;
        self.cur = cur;
        v
    }

    /// A vector of `parts` (scalars of one kind); one part gives the part itself.
    /// Recognises parts that are the components of one vector in order or in a shuffle.
    pub fn construct(&mut self, parts: &[Operand]) -> Operand {
        if parts.len() == 1 {
            return parts[0];
        }
        let sty = self.type_of(parts[0]);
        let s = self.m.types.scalar(sty).expect("scalar parts");
        let ty = TypeTable::vec(s, parts.len() as u8);
        // All constants: a composite constant.
        if parts.iter().all(|p| matches!(p, Operand::Const(_))) {
            // Scalar parts: through the vector cache, without building a `Const` to look up.
            let mut bits: SmallVec<[u64; 4]> = SmallVec::new();
            for p in parts {
                match self
                    .m
                    .consts
                    .get(p.konst().expect("all parts are constants"))
                {
                    Const::Scalar { bits: b, .. } => bits.push(*b),
                    _ => break,
                }
            }
            if bits.len() == parts.len() {
                return Operand::Const(self.m.consts.vector(s, &bits));
            }
            let cs = parts
                .iter()
                .map(|p| p.konst().expect("all parts are constants"))
                .collect();
            return Operand::Const(self.m.consts.intern(Const::Composite { ty, parts: cs }));
        }
        // All extracts from the same vector: that vector, or a shuffle of it.
        if let Some((src, sels)) = self.extract_sources(parts) {
            let src_ty = self.type_of(src);
            let n = self.m.types.width(src_ty) as usize;
            if n == parts.len() && sels.iter().enumerate().all(|(i, &s)| s as usize == i) {
                return src;
            }
            return self.shuffle(ty, src, &sels);
        }
        self.op(Op::CompositeConstruct, ty, parts)
    }

    /// `OpVectorShuffle` of type `ty` taking components `sels` of `src` (its only vector).
    #[inline]
    fn shuffle(&mut self, ty: TypeId, src: Operand, sels: &[u8]) -> Operand {
        let mut args: SmallVec<[Operand; 8]> = SmallVec::new();
        args.push(src);
        args.push(src);
        args.extend(sels.iter().map(|&s| Operand::Lit(s as u32)));
        self.op(Op::VectorShuffle, ty, &args)
    }

    /// If every part is `CompositeExtract(src, k)` of one vector `src`, the selectors.
    pub(crate) fn extract_sources(
        &self,
        parts: &[Operand],
    ) -> Option<(Operand, SmallVec<[u8; 4]>)> {
        let mut src = None;
        let mut sels = SmallVec::new();
        for p in parts {
            let v = p.value()?;
            let inst = self.f.inst(v);
            if inst.op != Op::CompositeExtract || inst.args.len() != 2 {
                return None;
            }
            match src {
                None => src = Some(inst.args[0]),
                Some(s) if s == inst.args[0] => {}
                _ => return None,
            }
            sels.push(inst.args[1].lit()? as u8);
        }
        Some((src?, sels))
    }

    /// Selects components of `x` by `sel` (indices into x), as a shuffle, extract or `x` itself.
    pub fn swizzle(&mut self, x: Operand, sel: &[u8]) -> Operand {
        let tx = self.type_of(x);
        let n = self.m.types.width(tx) as usize;
        if sel.len() == n && sel.iter().enumerate().all(|(i, &s)| s as usize == i) {
            return x;
        }
        if sel.len() == 1 {
            return self.extract(x, sel[0]);
        }
        // A vector no extract folds through (a load, an arithmetic result): one shuffle, not
        // an extract per component that `construct` would recognise as one.
        if let Operand::Value(v) = x
            && (!matches!(
                self.f.inst(v).op,
                Op::CompositeConstruct | Op::VectorShuffle | Op::Bitcast
            ) || self.f.inst(v).flags & super::flags::VIEW != 0)
        {
            let s = self.m.types.scalar(tx).expect("a vector");
            return self.shuffle(TypeTable::vec(s, sel.len() as u8), x, sel);
        }
        let parts: SmallVec<[Operand; 4]> = sel.iter().map(|&s| self.extract(x, s)).collect();
        self.construct(&parts)
    }

    // ---- variables -----------------------------------------------------------------------------

    /// The value of a promotable variable. Within one block the value last stored or loaded is
    /// reused directly (local value numbering), so straight-line code makes no loads.
    #[inline]
    pub fn load_var(&mut self, var: VarId) -> Operand {
        if let Some(v) = self.m.spare.builder.vars.get(var.0 as usize)
            && v.block == self.cur.0 + 1
            && v.comp == WHOLE
        {
            return v.value;
        }
        self.load_var_other(var)
    }

    /// [`FnBuilder::load_var`] of a variable not set in this block, or set lazily.
    #[inline(never)]
    fn load_var_other(&mut self, var: VarId) -> Operand {
        let i = var.0 as usize;
        if let Some(&v) = self.m.spare.builder.vars.get(i)
            && v.block == self.cur.0 + 1
        {
            if v.comp == WHOLE {
                return v.value;
            }
            let x = self.extract(v.value, v.comp);
            let v = &mut self.m.spare.builder.vars[i];
            v.value = x;
            v.comp = WHOLE;
            return x;
        }
        if (self.vector_join(var, self.cur) && self.read_vector_group(var, self.cur))
            || (self.vector_header(var, self.cur) && self.read_vector_header(var, self.cur))
        {
            // `var` is now a component of a vector: extracted as read.
            return self.load_var_other(var);
        }
        let v = self.read_across(var);
        self.remember(var, v, WHOLE);
        // Recorded at the block's end like a write, so that reads after the block find the
        // value here rather than walking back again.
        if self.m.spare.builder.ssa.track {
            self.mark_dirty(var);
        }
        v
    }

    /// Row `row` of read-only memory `g` (a constant buffer), loaded once per block by `load`.
    pub fn read_only_row(
        &mut self,
        g: GlobalId,
        row: Operand,
        load: impl FnOnce(&mut Self) -> Operand,
    ) -> Operand {
        if let Some(&v) = self.m.spare.builder.rows.get(&(g, row)) {
            return v;
        }
        let v = load(self);
        self.m.spare.builder.rows.insert((g, row), v);
        v
    }

    /// The value [`FnBuilder::remember_row`] left for (`g`, `key`) in the current block.
    pub fn cached_row(&self, g: GlobalId, key: Operand) -> Option<Operand> {
        self.m.spare.builder.rows.get(&(g, key)).copied()
    }

    /// Keeps `v` as the current block's value for (`g`, `key`): a value derived from
    /// read-only memory `g` alone (under a key no row of `g` uses), made once per block like
    /// [`FnBuilder::read_only_row`]'s rows.
    pub fn remember_row(&mut self, g: GlobalId, key: Operand, v: Operand) {
        self.m.spare.builder.rows.insert((g, key), v);
    }

    /// The value a variable holds in the current block without materializing it: the value
    /// and, for a lazily written component, its index in that vector value.
    pub fn peek_var(&self, var: VarId) -> Option<(Operand, u8)> {
        match self.m.spare.builder.vars.get(var.0 as usize) {
            Some(v) if v.block == self.cur.0 + 1 => Some((v.value, v.comp)),
            _ => None,
        }
    }

    /// Sets a variable (any 32-bit scalar type); the store is emitted at the block's end.
    pub fn store_var(&mut self, var: VarId, value: Operand) {
        self.remember(var, value, WHOLE);
        self.mark_dirty(var);
    }

    /// Sets a variable to component `c` of vector `value`, extracting it only when needed.
    pub fn store_var_component(&mut self, var: VarId, value: Operand, c: u8) {
        self.remember(var, value, c);
        self.mark_dirty(var);
    }

    fn mark_dirty(&mut self, var: VarId) {
        let v = &mut self.m.spare.builder.vars[var.0 as usize];
        if v.dirty != self.cur.0 + 1 {
            v.dirty = self.cur.0 + 1;
            self.m.spare.builder.dirty.push(var);
        }
    }

    #[inline]
    fn remember(&mut self, var: VarId, value: Operand, comp: u8) {
        let i = var.0 as usize;
        if self.m.spare.builder.vars.len() <= i {
            self.grow_var_state(i);
        }
        let v = &mut self.m.spare.builder.vars[i];
        v.block = self.cur.0 + 1;
        v.value = value;
        v.comp = comp;
    }

    /// Makes room in the per-variable state for variable `i`.
    #[cold]
    fn grow_var_state(&mut self, i: usize) {
        let n = (i + 1)
            .max(self.f.vars.len())
            .max(2 * self.m.spare.builder.vars.len())
            .max(32);
        self.m.spare.builder.vars.resize(n, VarState::NONE);
    }

    #[cfg(test)]
    pub fn load_global(&mut self, g: GlobalId) -> Operand {
        let (_, pointee) = self
            .m
            .types
            .pointee(self.m.globals[g.0 as usize].ty)
            .expect("global is a pointer");
        self.op(Op::Load, pointee, &[Operand::Global(g)])
    }
}

/// Result type of an operand in function `f` of a module.
#[inline]
pub fn type_of(
    types: &mut TypeTable,
    consts: &super::ConstTable,
    f: &Function,
    globals: &[super::Global],
    o: Operand,
) -> TypeId {
    match o {
        Operand::Value(v) => f.inst(v).ty,
        Operand::Const(c) => consts.get(c).ty(),
        Operand::Global(g) => globals[g.0 as usize].ty,
        Operand::Var(v) => var_pointer_type(types, f, v),
        Operand::Block(_) | Operand::Lit(_) => TypeId::VOID,
    }
}

/// The pointer type of a function variable (kept out of line: [`type_of`] is inlined).
fn var_pointer_type(types: &mut TypeTable, f: &Function, v: VarId) -> TypeId {
    types.pointer(spirv::StorageClass::Function, f.vars[v.0 as usize].ty)
}

/// A constant reinterpreted as another 32-bit scalar/vector type, if both have the same shape.
pub fn recast_const(
    consts: &mut super::ConstTable,
    types: &TypeTable,
    c: ConstId,
    to: TypeId,
) -> Option<ConstId> {
    let (s_to, n_to) = types.shape(to)?;
    let from = consts.get(c).ty();
    let (s_from, n_from) = types.shape(from)?;
    if n_to != n_from
        || matches!(s_to, Scalar::Bool | Scalar::F64)
        || matches!(s_from, Scalar::Bool | Scalar::F64)
    {
        return None;
    }
    // Matched by reference: a composite's parts are read, not copied with it.
    match *consts.get(c) {
        Const::Scalar { bits, .. } => Some(consts.scalar(to, bits)),
        Const::Composite { ref parts, .. } => {
            // A vector (`shape` said so): at most four parts, each a plain scalar; the
            // vector table gives the same constant `intern` of the composite would.
            let mut bits = [0u64; 4];
            let n = parts.len();
            for (b, &p) in bits.get_mut(..n)?.iter_mut().zip(parts) {
                *b = consts.scalar_bits(p)?;
            }
            Some(consts.vector(s_to, &bits[..n]))
        }
        Const::Null(_) => Some(consts.null(to)),
        Const::Undef(_) => Some(consts.undef(to)),
        Const::Spec { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use spirv::{Op, StorageClass};

    use super::FnBuilder;
    use crate::ir::{Module, Terminator, TypeId, flags};
    use crate::reflect::ShaderStage;

    #[test]
    fn integer_arithmetic_is_made_once_per_block() {
        let mut m = Module::new(ShaderStage::Pixel);
        let input = m.add_global(TypeId::U32, StorageClass::Input, None);
        let mut b = FnBuilder::new(&mut m, 32);
        let x = b.load_global(input);
        let three = b.u32c(3);
        let first = b.op(Op::IMul, TypeId::U32, &[x, three]);
        assert_eq!(b.op(Op::IMul, TypeId::U32, &[x, three]), first);
        // Other operands, opcode or type: another value.
        assert_ne!(b.op(Op::IMul, TypeId::U32, &[three, x]), first);
        assert_ne!(b.op(Op::IAdd, TypeId::U32, &[x, three]), first);
        assert_ne!(b.op(Op::IMul, TypeId::I32, &[x, three]), first);
        // An instruction given flags after it was made is not taken for a plain one.
        let sum = b.op(Op::IAdd, TypeId::U32, &[first, three]);
        b.f.inst_mut(sum.value().unwrap()).flags |= flags::RELAXED;
        let plain = b.op(Op::IAdd, TypeId::U32, &[first, three]);
        assert_ne!(plain, sum);
        assert_eq!(b.op(Op::IAdd, TypeId::U32, &[first, three]), plain);
        // Only within a block: the next one computes it again.
        let next = b.new_block();
        b.terminate(Terminator::Branch(next));
        b.begin(next);
        let again = b.op(Op::IMul, TypeId::U32, &[x, three]);
        assert_ne!(again, first);
        assert_eq!(b.op(Op::IMul, TypeId::U32, &[x, three]), again);
    }
}
