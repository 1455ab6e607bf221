//! Vector phis where blocks join: a register that every predecessor left as the components
//! of one vector (or as constants) is read as a phi of those vectors, not as a phi and an
//! extract per component; and at loop headers, a register that enters the loop as one vector
//! is carried around it as one (its back edges' vectors added when the header is sealed).
//! Part of SSA construction while lowering (see the `ssa` module's documentation); split off
//! so that the scalar construction reads on its own.

use smallvec::SmallVec;
use spirv::Op;

use super::builder::{FnBuilder, recast_const};
use super::ssa::{SEALED, resolve};
use super::{Args, BlockId, Inst, Operand, TypeId, TypeTable, ValueId, VarId};

impl FnBuilder<'_> {
    /// The cheap test before [`FnBuilder::read_vector_group`]: whether block `cur` (sealed)
    /// joins several predecessors and the first of them recorded `var`, at its end, as a
    /// component of a vector not extracted yet. Where that is not so a vector phi is not
    /// tried (a value that the first predecessor got from a block before it, or extracted
    /// already, gets scalar phis as before).
    #[inline]
    pub(crate) fn vector_join(&self, var: VarId, cur: BlockId) -> bool {
        let s = &self.m.spare.builder.ssa;
        if !s.track {
            return false;
        }
        let Some(preds) = s.preds.get(cur.0 as usize) else {
            return false;
        };
        if preds.len() < 2 || s.state(cur) & SEALED == 0 {
            return false;
        }
        self.left_as_component(var, preds[0])
    }

    /// Whether block `p` recorded `var`, at its end, as a component of a vector not extracted
    /// yet (one look-up in its records, no walk).
    #[inline]
    fn left_as_component(&self, var: VarId, p: BlockId) -> bool {
        let s = &self.m.spare.builder.ssa;
        let (lo, hi) = s.end_range[p.0 as usize];
        s.end_defs[lo as usize..hi as usize]
            .iter()
            .any(|d| d.var == var.0 && d.comp != u8::MAX)
    }

    /// Reads `var`, which block `cur` (the current block, or a finished one a read walks
    /// through) has no value of its own for, as a component of a vector phi when the block
    /// joins several predecessors and the first of them left `var` as a component of a
    /// vector together with others (the rest of a register written from one vector): see
    /// [`FnBuilder::read_vector_across`]. True when it did.
    ///
    /// Callers ask [`FnBuilder::vector_join`] first, which rules out nearly every read for
    /// the cost of one look-up.
    #[inline(never)]
    pub(crate) fn read_vector_group(&mut self, var: VarId, cur: BlockId) -> bool {
        let s = &self.m.spare.builder.ssa;
        if !s.track || s.state(cur) & SEALED == 0 || s.preds[cur.0 as usize].len() < 2 {
            return false;
        }
        let p0 = s.preds[cur.0 as usize][0];
        let mut first = [(Operand::Lit(0), u8::MAX); 4];
        let Some(blk) = self.values_at_end_raw(&[var], p0, &mut first) else {
            return false;
        };
        let (v0, k0) = first[0];
        if k0 == u8::MAX {
            return false;
        }
        let s = &self.m.spare.builder.ssa;
        let (lo, hi) = s.end_range[blk.0 as usize];
        let mut group: SmallVec<[VarId; 4]> = SmallVec::new();
        for e in &s.end_defs[lo as usize..hi as usize] {
            if e.value == v0 && e.comp != u8::MAX && group.len() < 4 {
                group.push(VarId(e.var));
            }
        }
        if group.len() < 2 || !group.contains(&var) {
            return false;
        }
        group.sort_unstable();
        if cur == self.current() && group.iter().any(|&g| self.peek_var(g).is_some()) {
            return false;
        }
        // (A block the walk passed through has no value of its own for `var`; one of the
        // others may have one, which the vector must not hide.)
        if cur != self.current() && group.iter().any(|&g| self.has_value_in(g, cur)) {
            return false;
        }
        self.read_vector_across(&group, cur)
    }

    /// The cheap test before [`FnBuilder::read_vector_header`]: whether block `cur` is an
    /// unsealed loop header whose entering block (its first predecessor; the others are back
    /// edges) recorded `var`, at its end, as a component of a vector not extracted yet.
    #[inline]
    pub(crate) fn vector_header(&self, var: VarId, cur: BlockId) -> bool {
        let s = &self.m.spare.builder.ssa;
        if !s.track || s.state(cur) & SEALED != 0 {
            return false;
        }
        let Some(&p0) = s.preds.get(cur.0 as usize).and_then(|p| p.first()) else {
            return false;
        };
        self.left_as_component(var, p0)
    }

    /// Reads `var` at the start of loop header `cur` (unsealed: some of its back edges are
    /// still to come; the current block, or one a read walks through) as a component of a
    /// vector phi, when the block entering the loop left `var` as a component of a vector
    /// together with the vector's other components, in order, one register each (the rest of
    /// a register written from one vector): the phi takes that vector from the entering block
    /// now and its back edges' vectors when the header is sealed
    /// ([`FnBuilder::complete_vector_phi`]), instead of a phi per component and extracts on
    /// both sides. True when it did.
    #[inline(never)]
    pub(crate) fn read_vector_header(&mut self, var: VarId, cur: BlockId) -> bool {
        let s = &self.m.spare.builder.ssa;
        let Some(&p0) = s.preds.get(cur.0 as usize).and_then(|p| p.first()) else {
            return false;
        };
        let mut first = [(Operand::Lit(0), u8::MAX); 4];
        let Some(blk) = self.values_at_end_raw(&[var], p0, &mut first) else {
            return false;
        };
        let (v0, k0) = first[0];
        if k0 == u8::MAX || !matches!(v0, Operand::Value(_)) {
            return false;
        }
        let s = &self.m.spare.builder.ssa;
        let (lo, hi) = s.end_range[blk.0 as usize];
        // The registers holding the vector's components, by component.
        let mut by_comp = [None; 4];
        for e in &s.end_defs[lo as usize..hi as usize] {
            if e.value == v0 && e.comp < 4 && by_comp[e.comp as usize].is_none() {
                by_comp[e.comp as usize] = Some(VarId(e.var));
            }
        }
        let ty = self.type_of(v0);
        let Some((sc, width)) = self.m.types.shape(ty) else {
            return false;
        };
        if width < 2 || sc == super::Scalar::F64 || sc == super::Scalar::Bool {
            return false;
        }
        let mut group: SmallVec<[VarId; 4]> = SmallVec::new();
        for c in &by_comp[..width as usize] {
            match c {
                Some(g) => group.push(*g),
                None => return false,
            }
        }
        if !group.contains(&var) {
            return false;
        }
        // Each is that component at the end of the entering block (none written after it).
        let mut vals = [(Operand::Lit(0), u8::MAX); 4];
        if self.values_at_end_raw(&group, p0, &mut vals).is_none()
            || vals[..group.len()]
                .iter()
                .enumerate()
                .any(|(i, &(x, k))| x != v0 || k as usize != i)
        {
            return false;
        }
        if cur == self.current() && group.iter().any(|&g| self.peek_var(g).is_some()) {
            return false;
        }
        if cur != self.current() && group.iter().any(|&g| self.has_value_in(g, cur)) {
            return false;
        }
        let mut args = Args::with_capacity(6);
        args.push(v0);
        args.push(Operand::Block(p0));
        let phi = self.add_phi(ty, args, cur);
        let s = &mut self.m.spare.builder.ssa;
        s.incomplete_vec.push((cur, phi, group.clone()));
        // Read through a view, as a scalar phi is: the phi may turn out to be one value once
        // its back edges are in, and a view is what is rewritten then.
        let w = self.view(phi, ty);
        for (i, &g) in group.iter().enumerate() {
            if cur == self.current() {
                self.store_var_component(g, w, i as u8);
            } else {
                self.push_phi_def(cur, g, w, i as u8);
            }
        }
        true
    }

    /// Gives vector phi `phi` of loop header `header` (sealed now; its first input, from the
    /// entering block, is there) an input from each of its other predecessors: the vector
    /// whose components `vars` are there, in order (as components, or as extracts of it),
    /// or else one built at the predecessor's end from their values; then drops it if every
    /// input is one value.
    pub(super) fn complete_vector_phi(&mut self, header: BlockId, phi: ValueId, vars: &[VarId]) {
        let ty = self.f.inst(phi).ty;
        let Some((sc, _)) = self.m.types.shape(ty) else {
            return;
        };
        let sty = TypeTable::vec(sc, 1);
        let n = vars.len();
        let preds: SmallVec<[BlockId; 8]> = self.m.spare.builder.ssa.preds[header.0 as usize]
            .iter()
            .copied()
            .collect();
        for &p in preds.iter().skip(1) {
            let mut v = [(Operand::Lit(0), u8::MAX); 4];
            let whole = self
                .values_at_end_raw(vars, p, &mut v)
                .and_then(|_| one_vector(&v[..n]))
                .filter(|&(src, ks)| {
                    ks[..n].iter().enumerate().all(|(i, &k)| k as usize == i)
                        && self.type_of(src) == ty
                })
                .map(|(src, _)| src);
            let input = match whole {
                Some(src) => src,
                None => {
                    let mut parts: SmallVec<[Operand; 4]> = SmallVec::new();
                    for &g in vars {
                        let x = match self.end_def(g, p) {
                            Some(d) => d,
                            None => self.entry_value(g, p),
                        };
                        parts.push(self.through_dropped_view(x));
                    }
                    self.vector_at_end(p, ty, sty, &mut parts)
                }
            };
            self.add_input(phi, input, p);
        }
        self.remove_if_trivial(phi);
    }

    /// What `x` stands for when it is a view of a phi dropped already (as one value) of the
    /// view's own type: that value. (Views are rewritten only when the function is finished;
    /// until then a dropped phi's view hides that a loop leaves a register as it found it.)
    fn through_dropped_view(&mut self, x: Operand) -> Operand {
        let Operand::Value(v) = x else { return x };
        let inst = self.f.inst(v);
        if inst.flags & super::flags::VIEW == 0 {
            return x;
        }
        let p = inst.args[0];
        let r = resolve(&self.m.spare.builder.ssa, &self.f, p);
        if r != p && self.type_of(r) == self.type_of(x) {
            r
        } else {
            x
        }
    }

    /// The vector of type `ty` (components of type `sty`) whose components are `parts`, in
    /// order, at the end of block `p`: the vector they were extracted from, when they are its
    /// components in order, or one built there (each part cast to `sty` as needed).
    fn vector_at_end(
        &mut self,
        p: BlockId,
        ty: TypeId,
        sty: TypeId,
        parts: &mut SmallVec<[Operand; 4]>,
    ) -> Operand {
        if let Some((v, sels)) = self.extract_sources(parts)
            && sels.iter().enumerate().all(|(i, &k)| k as usize == i)
            && self.type_of(v) == ty
        {
            return v;
        }
        for x in parts.iter_mut() {
            *x = self.as_type_at_end(p, sty, *x);
        }
        self.construct_at_end(p, ty, parts)
    }

    /// `x` as scalar type `sty` at the end of block `p`: itself, the constant recast, or a
    /// bitcast placed there.
    fn as_type_at_end(&mut self, p: BlockId, sty: TypeId, x: Operand) -> Operand {
        if self.type_of(x) == sty {
            x
        } else if let Operand::Const(c) = x
            && let Some(c) = recast_const(&mut self.m.consts, &self.m.types, c, sty)
        {
            Operand::Const(c)
        } else {
            self.cast_at_end(p, sty, x)
        }
    }

    /// The vector of type `ty` made of `parts` by an instruction at the end of block `p`.
    fn construct_at_end(&mut self, p: BlockId, ty: TypeId, parts: &[Operand]) -> Operand {
        let c = self.f.add_inst(Inst::new(
            Op::CompositeConstruct,
            ty,
            Args::from_slice(parts),
        ));
        self.f.block_mut(p).insts.push(c);
        Operand::Value(c)
    }

    /// Whether block `b` (finished) records a value of its own for `var`.
    fn has_value_in(&self, var: VarId, b: BlockId) -> bool {
        let s = &self.m.spare.builder.ssa;
        let (lo, hi) = s.end_range[b.0 as usize];
        if s.end_defs[lo as usize..hi as usize]
            .iter()
            .any(|d| d.var == var.0)
        {
            return true;
        }
        let mut i = s.phi_head[b.0 as usize];
        while let Some(e) = s.phi_defs.get(i as usize) {
            if e.var == var.0 {
                return true;
            }
            i = e.next;
        }
        false
    }

    /// The values `vars` (at most four) have at the end of block `b` as recorded, without
    /// extracting a component or making a phi: (value, component or `u8::MAX`) each, into
    /// `out`, in one walk back through blocks with one predecessor (each variable's value is the
    /// first the walk meets, a block's recorded end before its phis; 0 at the entry). The block
    /// the walk ended at (`b` or one before it: for one variable, the block whose end records
    /// its value); `None` where a phi would be needed for one of them.
    fn values_at_end_raw(
        &mut self,
        vars: &[VarId],
        b: BlockId,
        out: &mut [(Operand, u8); 4],
    ) -> Option<BlockId> {
        let mut missing = (1u8 << vars.len()) - 1;
        let mut b = b;
        for _ in 0..self.m.spare.builder.ssa.preds.len() {
            let s = &self.m.spare.builder.ssa;
            let (lo, hi) = s.end_range[b.0 as usize];
            for e in &s.end_defs[lo as usize..hi as usize] {
                if take_def(
                    s,
                    &self.f,
                    vars,
                    &mut missing,
                    out,
                    (e.var, e.value, e.comp),
                ) {
                    break;
                }
            }
            let mut i = s.phi_head[b.0 as usize];
            while missing != 0
                && let Some(e) = s.phi_defs.get(i as usize)
            {
                take_def(
                    s,
                    &self.f,
                    vars,
                    &mut missing,
                    out,
                    (e.var, e.value, e.comp),
                );
                i = e.next;
            }
            if missing == 0 {
                return Some(b);
            }
            if s.state(b) & SEALED == 0 {
                return None;
            }
            match s.preds[b.0 as usize][..] {
                [] => {
                    for (k, &v) in vars.iter().enumerate() {
                        if missing & (1 << k) != 0 {
                            out[k] = (self.zero(v), u8::MAX);
                        }
                    }
                    return Some(b);
                }
                [p] => b = p,
                _ => return None,
            }
        }
        None
    }

    /// Reads register components `vars` (distinct, at the start of block `cur`, which has no
    /// value of its own for them: the current block, or a finished one a read walks through)
    /// as the components of one vector, when the predecessors left them so: several
    /// predecessors get a phi of their vectors (of vector constants for those that left
    /// constants, of a vector built at its end for at most one other), one predecessor its
    /// vector itself. On success each variable is the component of that vector in `cur`,
    /// and no scalar phi or extract is made.
    pub(crate) fn read_vector_across(&mut self, vars: &[VarId], cur: BlockId) -> bool {
        let s = &self.m.spare.builder.ssa;
        if !s.track || vars.len() < 2 || vars.len() > 4 || s.state(cur) & SEALED == 0 {
            return false;
        }
        let n = vars.len();
        let preds: SmallVec<[BlockId; 8]> = s.preds[cur.0 as usize].iter().copied().collect();
        if preds.is_empty() {
            return false;
        }
        // Each predecessor's values and the vector they are components of (when they are),
        // and the vector type and components the first such predecessor gives.
        let mut vals: SmallVec<[[(Operand, u8); 4]; 8]> = SmallVec::new();
        let mut vectors: SmallVec<[Option<Components>; 8]> = SmallVec::new();
        let mut shape: Option<(TypeId, [u8; 4])> = None;
        let mut any_value = false;
        for &p in &preds {
            let mut v = [(Operand::Lit(0), u8::MAX); 4];
            if self.values_at_end_raw(vars, p, &mut v).is_none() {
                return false;
            }
            let one = one_vector(&v[..n]);
            if let Some((src, ks)) = one {
                if shape.is_none() {
                    shape = Some((self.type_of(src), ks));
                }
                any_value |= matches!(src, Operand::Value(_));
            }
            vals.push(v);
            vectors.push(one);
        }
        // Only a predecessor whose vector is a value saves extracts: where every one left
        // constants, scalar phis of the constants are as small.
        let Some((ty, ks)) = shape.filter(|_| any_value) else {
            return false;
        };
        let Some((sc, width)) = self.m.types.shape(ty) else {
            return false;
        };
        if sc == super::Scalar::F64 || sc == super::Scalar::Bool {
            return false;
        }
        // Each predecessor's input: its vector, a constant vector, or (once) a vector built.
        let mut inputs: SmallVec<[Operand; 8]> = SmallVec::new();
        let mut built = false;
        let sty = TypeTable::vec(sc, 1);
        for (pi, v) in vals.iter().enumerate() {
            let v = &v[..n];
            if let Some((src, k2)) = vectors[pi]
                && k2 == ks
                && self.type_of(src) == ty
            {
                inputs.push(src);
                continue;
            }
            if let Some(all) = self.constant_components(v, &ks) {
                inputs.push(Operand::Const(
                    self.m.consts.vector(sc, &all[..width as usize]),
                ));
                continue;
            }
            // A vector built at the end of the predecessor: only when the vector is just
            // the components read, in order, and for one predecessor.
            if built
                || width as usize != n
                || ks[..n].iter().enumerate().any(|(i, &k)| k as usize != i)
            {
                return false;
            }
            built = true;
            let p = preds[pi];
            let mut parts: SmallVec<[Operand; 4]> = SmallVec::new();
            for &(x, k) in v {
                let x = if k == u8::MAX {
                    x
                } else {
                    self.extract_at_end(p, x, k)
                };
                let x = self.as_type_at_end(p, sty, x);
                parts.push(x);
            }
            inputs.push(self.construct_at_end(p, ty, &parts));
        }
        let value = if inputs.iter().all(|&x| x == inputs[0]) {
            inputs[0]
        } else {
            let mut args = Args::with_capacity(2 * inputs.len());
            for (&x, &p) in inputs.iter().zip(&preds) {
                args.push(x);
                args.push(Operand::Block(p));
            }
            Operand::Value(self.add_phi(ty, args, cur))
        };
        for (i, &var) in vars.iter().enumerate() {
            if cur == self.current() {
                self.store_var_component(var, value, ks[i]);
            } else {
                self.push_phi_def(cur, var, value, ks[i]);
            }
        }
        true
    }

    /// The bits of a constant vector whose component `ks[i]` is `vals[i]`, when every one of
    /// `vals` is a plain scalar constant (the other components 0).
    fn constant_components(&self, vals: &[(Operand, u8)], ks: &[u8; 4]) -> Option<[u64; 4]> {
        let mut all = [0u64; 4];
        for (i, &(x, k)) in vals.iter().enumerate() {
            let Operand::Const(c) = x else { return None };
            if k != u8::MAX {
                return None;
            }
            all[ks[i] as usize & 3] = self.m.consts.scalar_bits(c)?;
        }
        Some(all)
    }
}

/// Takes definition `def` (variable, value, component) into `out` when its variable is one of
/// `vars` still `missing` (bit `i` for `vars[i]`): a walk back keeps the first it meets. True
/// when none is missing any more.
#[inline(always)]
fn take_def(
    s: &super::ssa::State,
    f: &super::Function,
    vars: &[VarId],
    missing: &mut u8,
    out: &mut [(Operand, u8); 4],
    (var, value, comp): (u32, Operand, u8),
) -> bool {
    if let Some(i) = vars.iter().position(|v| v.0 == var)
        && *missing & (1 << i) != 0
    {
        out[i] = (resolve(s, f, value), comp);
        *missing &= !(1 << i);
    }
    *missing == 0
}

/// A vector and which of its components (in order) some values are.
type Components = (Operand, [u8; 4]);

/// The vector all of `vals` are components of, and which ones, when they are.
fn one_vector(vals: &[(Operand, u8)]) -> Option<Components> {
    let mut ks = [0u8; 4];
    let src = vals.first()?.0;
    for (i, &(x, k)) in vals.iter().enumerate() {
        if k == u8::MAX || x != src {
            return None;
        }
        ks[i] = k;
    }
    Some((src, ks))
}
