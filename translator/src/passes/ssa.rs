//! SSA construction: turns the register variables lowering used for D3D's `r#` components
//! (and other promotable scalars) into SSA values and phis.
//!
//! Classic Cytron et al. construction over the dominator tree: phis go on the iterated
//! dominance frontier of each variable's stores — only for variables read in some block before
//! being written there ("semi-pruned" SSA, which leaves out most useless phis) — then one walk
//! down the dominator tree renames loads to the value that reaches them. A register read
//! before any write reads 0 (D3D leaves it undefined; zero is what applications have come to
//! rely on). Phis whose inputs are all one value are folded away afterwards, rewriting only
//! the instructions the renaming saw use a phi.
//!
//! Lowering's builder already answers every register read from the value written earlier in
//! the same block, so straight-line code reaches this pass with no loads of register variables
//! at all: the pass then only drops the (dead) stores and returns, and places no phis when no
//! block reads a variable before writing it.

use spirv::Op;

use super::cfg::{DomTree, bucket};
use crate::ir::{Args, BlockId, ConstTable, Function, Inst, Operand, TypeId, ValueId, flags};

/// Replacement map for values, with path compression.
///
/// Entries are operands packed into one word each (see [`pack`]), with 0 for "no
/// replacement": the map is one zero-filled allocation, not a loop writing `None` into every
/// slot. The passes share one map, sized by the whole instruction arena, through
/// [`super::PassCx`]; [`Replacements::reset`] empties it by zeroing only the slots that were
/// set.
pub struct Replacements {
    map: Vec<u64>,
    /// The slots set since the last reset.
    touched: Vec<u32>,
    any: bool,
}

/// An operand as a non-zero word: kind (1 to 6) in the high half, index or literal in the low.
fn pack(o: Operand) -> u64 {
    let (kind, x) = match o {
        Operand::Value(v) => (1u64, v.0),
        Operand::Const(c) => (2, c.0),
        Operand::Global(g) => (3, g.0),
        Operand::Var(v) => (4, v.0),
        Operand::Block(b) => (5, b.0),
        Operand::Lit(l) => (6, l),
    };
    kind << 32 | x as u64
}

/// The operand [`pack`] made `w` from; `None` for 0.
fn unpack(w: u64) -> Option<Operand> {
    let x = w as u32;
    Some(match w >> 32 {
        1 => Operand::Value(ValueId(x)),
        2 => Operand::Const(crate::ir::ConstId(x)),
        3 => Operand::Global(crate::ir::GlobalId(x)),
        4 => Operand::Var(crate::ir::VarId(x)),
        5 => Operand::Block(BlockId(x)),
        6 => Operand::Lit(x),
        _ => return None,
    })
}

impl Default for Replacements {
    fn default() -> Self {
        Replacements::new(0)
    }
}

impl Replacements {
    pub fn new(n: usize) -> Self {
        Replacements {
            map: vec![0; n],
            touched: Vec::new(),
            any: false,
        }
    }

    /// Forgets every replacement, and makes room for values `0..n` (a function's arena).
    pub fn reset(&mut self, n: usize) {
        for &i in &self.touched {
            self.map[i as usize] = 0;
        }
        self.touched.clear();
        self.any = false;
        if self.map.is_empty() {
            self.map = vec![0; n]; // zeroed by the allocator
            // Room for a pass's replacements (a small part of the arena, as a rule) without
            // growing the list step by step.
            self.touched.reserve(n / 4);
        } else if self.map.len() < n {
            self.map.resize(n, 0);
        }
    }

    pub fn set(&mut self, v: ValueId, to: Operand) {
        if self.map.len() <= v.0 as usize {
            self.map.resize(v.0 as usize + 1, 0);
        }
        let slot = &mut self.map[v.0 as usize];
        if *slot == 0 {
            self.touched.push(v.0);
        }
        *slot = pack(to);
        self.any = true;
    }

    pub fn is_empty(&self) -> bool {
        !self.any
    }

    fn get(&self, v: ValueId) -> Option<Operand> {
        unpack(self.map.get(v.0 as usize).copied().unwrap_or(0))
    }

    /// The operand `o` stands for after all replacements.
    pub fn resolve(&mut self, o: Operand) -> Operand {
        let Operand::Value(mut v) = o else { return o };
        // Most operands have no replacement: one look-up, nothing unpacked.
        let w = self.map.get(v.0 as usize).copied().unwrap_or(0);
        if w == 0 {
            return o;
        }
        let first = match unpack(w) {
            Some(to) => to,
            None => return o,
        };
        let next = match first {
            Operand::Value(next) if next != v => next,
            _ => return first,
        };
        // A chain of one (the usual case): nothing to follow or compress.
        if self.map.get(next.0 as usize).copied().unwrap_or(0) == 0 {
            return first;
        }
        let mut steps = 0;
        let result = loop {
            match self.get(v) {
                Some(Operand::Value(next)) if next != v && steps < 1_000_000 => {
                    v = next;
                    steps += 1;
                }
                Some(other) => break other,
                None => break Operand::Value(v),
            }
        };
        // Path compression.
        if let Operand::Value(start) = o {
            let packed = pack(result);
            let mut cur = start;
            while let Some(Operand::Value(next)) = self.get(cur) {
                if next == cur {
                    break;
                }
                self.map[cur.0 as usize] = packed;
                cur = next;
            }
        }
        result
    }

    /// Rewrites the operands of the phis of `f` (the only instructions that can use a value
    /// defined later in a dominator-order walk).
    pub fn apply_to_phis(&mut self, f: &mut Function) {
        if self.is_empty() {
            return;
        }
        for bi in 0..f.layout.len() {
            let b = f.layout[bi];
            for k in 0..f.block(b).insts.len() {
                let v = f.block(b).insts[k];
                if f.inst(v).op != Op::Phi {
                    break;
                }
                for a in f.inst_mut(v).args.iter_mut().step_by(2) {
                    if let Operand::Value(_) = *a {
                        *a = self.resolve(*a);
                    }
                }
            }
        }
    }
}

/// This pass's working buffers, kept across functions and translations (see
/// [`super::Scratch`]).
#[derive(Debug, Default)]
pub struct Scratch {
    /// (variable, block) for each block that stores the variable, in layout order.
    defs: Vec<(u32, BlockId)>,
    /// Whether each variable is read in some block before that block writes it.
    global: Vec<bool>,
    /// The last block found writing each variable.
    written_here: Vec<u32>,
    /// `def_blocks[def_start[v]..def_start[v + 1]]`: the blocks that store variable `v`.
    def_start: Vec<u32>,
    def_blocks: Vec<BlockId>,
    /// The phis placed, (block, phi, variable) in creation order, and bucketed by block:
    /// `block_phis[phi_start[b]..phi_start[b + 1]]`.
    phis: Vec<(u32, ValueId, u32)>,
    phi_start: Vec<u32>,
    block_phis: Vec<(ValueId, u32)>,
    /// Phi placement: predecessors, dominance frontiers, per-block marks, the work list.
    preds: super::cfg::Preds,
    df: super::cfg::Frontiers,
    has_phi: Vec<u32>,
    in_work: Vec<u32>,
    work: Vec<BlockId>,
    /// Renaming: each variable's current value, the undo log, the walk's stack, a spare
    /// instruction list, and what uses a phi (instructions; blocks by their terminator).
    current: Vec<Operand>,
    undo: Vec<(u32, Operand)>,
    stack: Vec<(BlockId, usize, bool)>,
    spare: Vec<ValueId>,
    phi_users: Vec<ValueId>,
    phi_terms: Vec<BlockId>,
}

/// Promotes every register variable of `f` to SSA values.
pub fn construct_ssa(
    f: &mut Function,
    consts: &mut ConstTable,
    dom: &DomTree,
    repl: &mut Replacements,
    scratch: &mut Scratch,
) {
    let nvars = f.vars.len();
    if nvars == 0 {
        return;
    }
    let nblocks = f.blocks.len();
    // One block (most vertex and pixel shaders): no phis, only renaming.
    let single = f.layout.len() == 1;
    let s = scratch;

    // Stores per variable (blocks), and whether the variable is read before written in a block.
    // Definitions are collected flat and bucketed by variable (one array, not one per
    // variable).
    s.defs.clear();
    s.global.clear();
    s.global.resize(nvars, false);
    s.written_here.clear();
    s.written_here.resize(nvars, u32::MAX);
    let mut loads = 0usize;
    let mut any_global = false;
    for &b in &f.layout {
        for &v in &f.block(b).insts {
            let inst = f.inst(v);
            match (inst.op, inst.args.first()) {
                (Op::Store, Some(Operand::Var(var))) => {
                    let vi = var.0 as usize;
                    if s.written_here[vi] != b.0 {
                        s.written_here[vi] = b.0;
                        s.defs.push((var.0, b));
                    }
                }
                (Op::Load, Some(Operand::Var(var))) => {
                    loads += 1;
                    if s.written_here[var.0 as usize] != b.0 {
                        s.global[var.0 as usize] = true;
                        any_global = true;
                    }
                }
                _ => {}
            }
        }
    }
    if loads == 0 {
        // Lowering answered every read from the value it knew (straight-line code, or code
        // whose registers do not live across blocks): the stores are dead, nothing to rename.
        if !s.defs.is_empty() {
            drop_var_stores(f);
        }
        f.vars.clear();
        return;
    }
    // Phis only where some variable is read in a block before that block writes it.
    let single = single || !any_global;

    // Phi placement on iterated dominance frontiers. The phis are numbered from `first_phi` on,
    // one after another, before any bitcast the renaming adds (`phi_ids` below).
    let first_phi = f.insts.len() as u32;
    s.phis.clear();
    if !single {
        place_phis(f, dom, s);
    }
    // The phis by block, each block's in creation order, and at the head of their blocks.
    let by_block = s.phis.iter().map(|&(b, phi, var)| (b, (phi, var)));
    bucket(
        nblocks,
        by_block,
        (ValueId(0), 0),
        &mut s.phi_start,
        &mut s.block_phis,
    );
    if !s.phis.is_empty() {
        for bi in 0..nblocks {
            let phis = &s.block_phis[s.phi_start[bi] as usize..s.phi_start[bi + 1] as usize];
            if !phis.is_empty() {
                let insts = &mut f.blocks[bi].insts;
                let len = insts.len();
                insts.resize(len + phis.len(), ValueId(0));
                insts.copy_within(0..len, phis.len());
                for (slot, p) in insts.iter_mut().zip(phis) {
                    *slot = p.0;
                }
            }
        }
    }

    // Renaming along the dominator tree.
    let current = &mut s.current;
    current.clear();
    let mut zero_of_u32 = None;
    for v in &f.vars {
        let z = if v.ty == TypeId::U32 {
            *zero_of_u32.get_or_insert_with(|| Operand::Const(consts.scalar(TypeId::U32, 0)))
        } else {
            Operand::Const(consts.scalar(v.ty, 0))
        };
        current.push(z);
    }
    let phi_ids = first_phi..f.insts.len() as u32;
    let is_phi = |o: Operand| matches!(o, Operand::Value(x) if phi_ids.contains(&x.0));
    // What uses a phi (instructions; blocks by their terminator): the only places that
    // trivial phis' removal rewrites, besides the phis themselves.
    let phi_users = &mut s.phi_users;
    let phi_terms = &mut s.phi_terms;
    phi_users.clear();
    phi_terms.clear();
    repl.reset(f.insts.len());
    let undo = &mut s.undo;
    undo.clear();
    let mut spare = std::mem::take(&mut s.spare);
    // Stack entries: (block, undo-log length at entry, entered?)
    let stack = &mut s.stack;
    stack.clear();
    stack.push((dom.root(), 0, false));
    let phis_of = |b: BlockId| {
        let i = b.0 as usize;
        s.phi_start[i] as usize..s.phi_start[i + 1] as usize
    };
    while let Some(&mut (b, ref mut mark, ref mut entered)) = stack.last_mut() {
        if *entered {
            // Leave: restore the definitions of the parent.
            let m = *mark;
            while undo.len() > m {
                let (var, old) = undo.pop().expect("undo log longer than the mark");
                current[var as usize] = old;
            }
            stack.pop();
            continue;
        }
        *entered = true;
        *mark = undo.len();
        for &(phi, var) in &s.block_phis[phis_of(b)] {
            undo.push((var, current[var as usize]));
            current[var as usize] = Operand::Value(phi);
        }
        let insts = std::mem::replace(&mut f.block_mut(b).insts, std::mem::take(&mut spare));
        let mut kept = std::mem::take(&mut f.block_mut(b).insts);
        kept.clear();
        kept.reserve(insts.len());
        for &v in &insts {
            let op = f.inst(v).op;
            let first = f.inst(v).args.first().copied();
            match (op, first) {
                (Op::Load, Some(Operand::Var(var))) => {
                    // Registers hold values of any 32-bit type; a load that wants another type
                    // becomes a bitcast of the current value.
                    let cur = current[var.0 as usize];
                    let cur_ty = match cur {
                        Operand::Value(x) => f.inst(x).ty,
                        Operand::Const(c) => consts.get(c).ty(),
                        _ => f.inst(v).ty,
                    };
                    if cur_ty == f.inst(v).ty {
                        repl.set(v, cur);
                        f.inst_mut(v).flags |= flags::DEAD;
                    } else {
                        let inst = f.inst_mut(v);
                        inst.op = Op::Bitcast;
                        inst.args = smallvec::smallvec![cur];
                        kept.push(v);
                        if is_phi(cur) {
                            phi_users.push(v);
                        }
                    }
                }
                (Op::Store, Some(Operand::Var(var))) => {
                    let val = repl.resolve(f.inst(v).args[1]);
                    undo.push((var.0, current[var.0 as usize]));
                    current[var.0 as usize] = val;
                    f.inst_mut(v).flags |= flags::DEAD;
                }
                _ => {
                    let mut uses_phi = false;
                    for a in f.inst_mut(v).args.iter_mut() {
                        if let Operand::Value(_) = a {
                            *a = repl.resolve(*a);
                            uses_phi |= is_phi(*a);
                        }
                    }
                    if uses_phi {
                        phi_users.push(v);
                    }
                    kept.push(v);
                }
            }
        }
        f.block_mut(b).insts = kept;
        spare = insts;
        let mut term = std::mem::replace(&mut f.block_mut(b).term, crate::ir::Terminator::Open);
        match &mut term {
            crate::ir::Terminator::CondBranch { cond: x, .. }
            | crate::ir::Terminator::Switch { selector: x, .. } => {
                *x = repl.resolve(*x);
                if is_phi(*x) {
                    phi_terms.push(b);
                }
            }
            _ => {}
        }
        // Each successor once, in terminator order (a switch may list one target for many
        // values; one with thousands of targets is sorted instead, as the order only places
        // the bitcasts below).
        let mut succs = term.successors();
        if succs.len() > 8 {
            succs.sort_unstable();
            succs.dedup();
        } else {
            let mut k = 0;
            for i in 0..succs.len() {
                if !succs[..k].contains(&succs[i]) {
                    succs[k] = succs[i];
                    k += 1;
                }
            }
            succs.truncate(k);
        }
        f.block_mut(b).term = term;
        for succ in succs {
            for &(phi, var) in &s.block_phis[phis_of(succ)] {
                let mut val = current[var as usize];
                let phi_ty = f.inst(phi).ty;
                let val_ty = match val {
                    Operand::Value(x) => f.inst(x).ty,
                    Operand::Const(c) => consts.get(c).ty(),
                    _ => phi_ty,
                };
                if val_ty != phi_ty {
                    // Bring the value to the phi's type at the end of this predecessor.
                    let bc = f.add_inst(Inst::new(Op::Bitcast, phi_ty, Args::from_slice(&[val])));
                    f.block_mut(b).insts.push(bc);
                    if is_phi(val) {
                        phi_users.push(bc);
                    }
                    val = Operand::Value(bc);
                }
                let args = &mut f.inst_mut(phi).args;
                args.push(val);
                args.push(Operand::Block(b));
            }
        }
        for &c in dom.children(b).iter().rev() {
            stack.push((c, 0, false));
        }
    }
    spare.clear();
    s.spare = spare;
    if !single {
        remove_trivial_phis(f, phi_users, phi_terms, repl);
    }
    f.vars.clear();
}

/// Removes the stores to promotable variables from `f` (when nothing loads them).
fn drop_var_stores(f: &mut Function) {
    for bi in 0..f.layout.len() {
        let b = f.layout[bi];
        let mut insts = std::mem::take(&mut f.block_mut(b).insts);
        insts.retain(|&v| {
            let inst = f.inst(v);
            !(inst.op == Op::Store && matches!(inst.args.first(), Some(Operand::Var(_))))
        });
        f.block_mut(b).insts = insts;
    }
}

/// Places the phis of the variables read across blocks (`s.global`) on the iterated dominance
/// frontiers of the blocks that store them (`s.defs`), listing them in `s.phis`.
fn place_phis(f: &mut Function, dom: &DomTree, s: &mut Scratch) {
    let nblocks = f.blocks.len();
    let nvars = f.vars.len();
    // The blocks storing each variable, in layout order.
    let defs = s.defs.iter().copied();
    bucket(nvars, defs, BlockId(0), &mut s.def_start, &mut s.def_blocks);
    s.preds.compute(f);
    dom.frontiers(f, &s.preds, &mut s.df);
    s.has_phi.clear();
    s.has_phi.resize(nblocks, u32::MAX);
    s.in_work.clear();
    s.in_work.resize(nblocks, u32::MAX);
    let work = &mut s.work;
    for var in 0..nvars {
        if !s.global[var] {
            continue;
        }
        work.clear();
        for &d in &s.def_blocks[s.def_start[var] as usize..s.def_start[var + 1] as usize] {
            s.in_work[d.0 as usize] = var as u32;
            work.push(d);
        }
        while let Some(x) = work.pop() {
            for &y in s.df.of(x) {
                if s.has_phi[y.0 as usize] != var as u32 {
                    s.has_phi[y.0 as usize] = var as u32;
                    let ty = f.vars[var].ty;
                    let phi = f.add_inst(Inst::new(Op::Phi, ty, Args::new()));
                    s.phis.push((y.0, phi, var as u32));
                    if s.in_work[y.0 as usize] != var as u32 {
                        s.in_work[y.0 as usize] = var as u32;
                        work.push(y);
                    }
                }
            }
        }
    }
}

/// Folds phis whose inputs are all the same value (or the phi itself); `users` and `terms`
/// list every instruction and terminator that may use a phi.
fn remove_trivial_phis(
    f: &mut Function,
    users: &[ValueId],
    terms: &[BlockId],
    repl: &mut Replacements,
) {
    repl.reset(f.insts.len());
    loop {
        let mut changed = false;
        for bi in 0..f.layout.len() {
            let b = f.layout[bi];
            for k in 0..f.block(b).insts.len() {
                let v = f.block(b).insts[k];
                let inst = f.inst(v);
                if inst.op != Op::Phi {
                    break;
                }
                if inst.flags & flags::DEAD != 0 {
                    continue;
                }
                let mut same: Option<Operand> = None;
                let mut trivial = true;
                for pair in inst.args.chunks(2) {
                    let a = repl.resolve(pair[0]);
                    if a == Operand::Value(v) || Some(a) == same {
                        continue;
                    }
                    if same.is_some() {
                        trivial = false;
                        break;
                    }
                    same = Some(a);
                }
                if trivial {
                    let to = same.unwrap_or_else(|| pair_or_self(v));
                    if to != Operand::Value(v) {
                        repl.set(v, to);
                        f.inst_mut(v).flags |= flags::DEAD;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    if repl.is_empty() {
        return;
    }
    for bi in 0..f.layout.len() {
        let b = f.layout[bi];
        let Some(&v) = f.block(b).insts.first() else {
            continue;
        };
        if f.inst(v).op != Op::Phi {
            continue;
        }
        let mut insts = std::mem::take(&mut f.block_mut(b).insts);
        insts.retain(|&v| f.inst(v).flags & flags::DEAD == 0);
        f.block_mut(b).insts = insts;
    }
    repl.apply_to_phis(f);
    for &v in users {
        for a in f.inst_mut(v).args.iter_mut() {
            if let Operand::Value(_) = *a {
                *a = repl.resolve(*a);
            }
        }
    }
    for &b in terms {
        match &mut f.block_mut(b).term {
            crate::ir::Terminator::CondBranch { cond: x, .. }
            | crate::ir::Terminator::Switch { selector: x, .. } => *x = repl.resolve(*x),
            _ => {}
        }
    }
}

fn pair_or_self(v: ValueId) -> Operand {
    Operand::Value(v)
}
