//! Peephole simplification after SSA construction.
//!
//! D3D bytecode is vector-register code with untyped 32-bit registers; lowering it one
//! instruction at a time yields chains like "bitcast to uint, through a register, bitcast to
//! float", "extract every component then rebuild the vector", and "compare → select(~0, 0) → compare
//! with zero" for every boolean. Once registers are SSA values these chains are visible and
//! fold here, in one forward walk (definitions come before uses in layout order, so a single
//! pass sees folded operands):
//!
//! - bitcasts of bitcasts and of constants; no-op bitcasts;
//! - extracting from constants, composites, shuffles and inserts; rebuilding a vector from its
//!   own components (→ the vector, or one shuffle); shuffles of shuffles; shuffles that select
//!   no inserted component read past the insert;
//! - D3D booleans: `x != 0` where `x = select(c, K, 0)` is `c`; `and`/`or`/`not` of such
//!   selects become logical operations on the conditions; `select(not c, a, b)` swaps;
//! - integer identities and constant folding of integer/bitwise operations;
//! - four stores to the components of one row of an array of 4-vectors (D3D writes indexable
//!   temps a component at a time) with nothing that touches memory between them: one store of
//!   the whole row, built by a `CompositeConstruct` that the walk then folds. Lavapipe turns
//!   each store through a dynamic index into a per-lane scatter, so this is what made
//!   `ps50_indexable` run 25 % slower than vkd3d-shader's output (docs/architecture.md, "Speed").

use smallvec::SmallVec;
use spirv::Op;

use super::repl::Replacements;
use crate::ir::builder::recast_const;
use crate::ir::{
    Args, Const, ConstId, ConstTable, Function, Global, GlobalId, Inst, Operand, Scalar,
    Terminator, Type, TypeId, TypeTable, ValueId, flags,
};

const MAX_ARGS: usize = 8;

/// `select(condition, true bits, false bits)` with constant arms.
type BoolSelect = (Operand, SmallVec<[u64; 4]>, SmallVec<[u64; 4]>);

/// A copy of an instruction's head and operands (cheap to take while the arena is mutated).
#[derive(Clone, Copy)]
struct Ins {
    op: Op,
    ty: TypeId,
    n: u8,
    buf: [Operand; MAX_ARGS],
}

impl Ins {
    fn args(&self) -> &[Operand] {
        &self.buf[..self.n as usize]
    }
}

struct Ctx<'a> {
    types: &'a mut TypeTable,
    consts: &'a mut ConstTable,
    repl: &'a mut Replacements,
    /// Instructions of the block being rebuilt.
    out: Vec<ValueId>,
}

fn ty_of(f: &Function, consts: &ConstTable, o: Operand) -> TypeId {
    match o {
        Operand::Value(v) => f.inst(v).ty,
        Operand::Const(c) => consts.get(c).ty(),
        _ => TypeId::VOID,
    }
}

impl Ctx<'_> {
    fn ty(&self, f: &Function, o: Operand) -> TypeId {
        ty_of(f, self.consts, o)
    }

    /// Appends a new instruction before the one being simplified.
    fn emit(&mut self, f: &mut Function, op: Op, ty: TypeId, args: &[Operand]) -> Operand {
        let v = f.add_inst(Inst::new(op, ty, Args::from_slice(args)));
        self.out.push(v);
        Operand::Value(v)
    }

    /// Per-component constant bits of a scalar/vector constant.
    fn const_bits(&self, c: ConstId) -> Option<SmallVec<[u64; 4]>> {
        match self.consts.get(c) {
            Const::Scalar { bits, .. } => Some(smallvec::smallvec![*bits]),
            Const::Composite { parts, .. } => {
                parts.iter().map(|&p| self.consts.scalar_bits(p)).collect()
            }
            Const::Null(ty) => Some(smallvec::smallvec![0; self.types.width(*ty) as usize]),
            Const::Undef(_) | Const::Spec { .. } => None,
        }
    }

    fn is_splat(&self, o: Operand, bits: u64) -> bool {
        match o {
            Operand::Const(c) => self
                .const_bits(c)
                .is_some_and(|b| b.iter().all(|&x| x == bits)),
            _ => false,
        }
    }

    fn is_zero(&self, o: Operand) -> bool {
        self.is_splat(o, 0)
    }

    /// A constant of type `ty` from per-component bits.
    fn make_const(&mut self, ty: TypeId, bits: &[u64]) -> Option<Operand> {
        let (s, n) = self.types.shape(ty)?;
        if bits.len() != n as usize {
            return None;
        }
        Some(Operand::Const(self.consts.vector(s, bits)))
    }

    /// If `o` (looking through bitcasts) is `select(c, t, f)` with constant arms, returns
    /// `(c, t_bits, f_bits)`.
    fn as_bool_select(&self, f: &Function, o: Operand) -> Option<BoolSelect> {
        let mut v = o.value()?;
        loop {
            let i = f.inst(v);
            match i.op {
                Op::Bitcast => v = i.args[0].value()?,
                Op::Select => {
                    let t = self.const_bits(i.args[1].konst()?)?;
                    let e = self.const_bits(i.args[2].konst()?)?;
                    return Some((i.args[0], t, e));
                }
                _ => return None,
            }
        }
    }

    fn not(&mut self, f: &mut Function, c: Operand) -> Operand {
        if let Operand::Value(v) = c
            && f.inst(v).op == Op::LogicalNot
        {
            return f.inst(v).args[0];
        }
        if let Operand::Const(k) = c
            && let Some(bits) = self.const_bits(k)
        {
            let ty = self.ty(f, c);
            let inv: SmallVec<[u64; 4]> = bits.iter().map(|&b| (b == 0) as u64).collect();
            if let Some(r) = self.make_const(ty, &inv) {
                return r;
            }
        }
        let ty = self.ty(f, c);
        self.emit(f, Op::LogicalNot, ty, &[c])
    }

    /// Tries to fold instruction `v`, whose opcode [`has_folds`]; returns the operand it is
    /// equal to, if any. Bitcasts and extracts (most of the calls) have rules of their own that
    /// read the instruction in place; the others go to [`Ctx::fold_copied`].
    #[inline]
    fn fold(&mut self, f: &mut Function, v: ValueId) -> Option<Operand> {
        match f.inst(v).op {
            Op::Bitcast => self.fold_bitcast(f, v),
            Op::CompositeExtract => self.fold_extract(f, v),
            _ => self.fold_copied(f, v),
        }
    }

    fn fold_bitcast(&mut self, f: &mut Function, v: ValueId) -> Option<Operand> {
        let i = f.inst(v);
        let (x, ty) = (i.args[0], i.ty);
        if self.ty(f, x) == ty {
            return Some(x);
        }
        if let Operand::Const(c) = x {
            return recast_const(self.consts, self.types, c, ty).map(Operand::Const);
        }
        if let Operand::Value(xv) = x
            && f.inst(xv).op == Op::Bitcast
        {
            let inner = f.inst(xv).args[0];
            if self.ty(f, inner) == ty {
                return Some(inner);
            }
            f.inst_mut(v).args[0] = inner;
        }
        None
    }

    fn fold_extract(&mut self, f: &mut Function, v: ValueId) -> Option<Operand> {
        let i = f.inst(v);
        if i.args.len() != 2 {
            return None;
        }
        let x = i.args[0];
        let idx = i.args[1].lit()? as u8;
        match x {
            Operand::Const(c) => self
                .consts
                .component(c, idx, self.types)
                .map(Operand::Const),
            Operand::Value(xv) => {
                let xi = f.inst(xv);
                let xa = &xi.args[..xi.args.len().min(MAX_ARGS)];
                match xi.op {
                    Op::CompositeConstruct => {
                        // Scalar parts only (vector parts would shift indices).
                        let all_scalar = xa.iter().all(|&p| self.types.width(self.ty(f, p)) == 1);
                        if all_scalar {
                            xa.get(idx as usize).copied()
                        } else {
                            None
                        }
                    }
                    Op::VectorShuffle => {
                        let sel = xa.get(2 + idx as usize)?.lit()?;
                        let na = self.types.width(self.ty(f, xa[0])) as u32;
                        let (src, k) = if sel < na {
                            (xa[0], sel)
                        } else {
                            (xa[1], sel - na)
                        };
                        let sw = self.types.width(self.ty(f, src));
                        if sw == 1 {
                            return Some(src);
                        }
                        f.inst_mut(v).args[0] = src;
                        f.inst_mut(v).args[1] = Operand::Lit(k);
                        self.fold(f, v)
                    }
                    // From an insert: the inserted object, or what it was inserted into.
                    Op::CompositeInsert if xa.len() == 3 => {
                        if xa[2].lit()? == u32::from(idx) {
                            return Some(xa[0]);
                        }
                        f.inst_mut(v).args[0] = xa[1];
                        self.fold(f, v)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The other rules, on a copy of the instruction (they may rewrite it while reading it).
    #[inline(never)] // a large frame that bitcasts and extracts should not pay for
    fn fold_copied(&mut self, f: &mut Function, v: ValueId) -> Option<Operand> {
        let inst = {
            let i = f.inst(v);
            if i.args.len() > MAX_ARGS {
                return None;
            }
            // An element-wise copy: a `copy_from_slice` of a variable length is a memcpy call.
            let mut args = [Operand::Lit(0); MAX_ARGS];
            for (d, s) in args.iter_mut().zip(i.args.iter()) {
                *d = *s;
            }
            Ins {
                op: i.op,
                ty: i.ty,
                n: i.args.len() as u8,
                buf: args,
            }
        };
        let a = |i: usize| inst.args()[i];
        match inst.op {
            Op::CompositeConstruct => {
                let n = self.types.width(inst.ty) as usize;
                if inst.args().len() != n {
                    return None;
                }
                if inst.args().iter().all(|p| matches!(p, Operand::Const(_))) {
                    let parts = inst
                        .args()
                        .iter()
                        .map(|p| p.konst().expect("checked above"))
                        .collect();
                    return Some(Operand::Const(
                        self.consts.intern(Const::Composite { ty: inst.ty, parts }),
                    ));
                }
                // Bitcasts of a vector's components, in order: one bitcast of the vector.
                if let Some(src) = self.bitcast_of_components(f, inst.args(), n) {
                    return Some(self.emit(f, Op::Bitcast, inst.ty, &[src]));
                }
                // All components extracted from one vector.
                let mut src = None;
                let mut sels: SmallVec<[u32; 4]> = SmallVec::new();
                for p in inst.args() {
                    let pv = p.value()?;
                    let pi = f.inst(pv);
                    if pi.op != Op::CompositeExtract || pi.args.len() != 2 {
                        return None;
                    }
                    if src.is_some_and(|s| s != pi.args[0]) {
                        return None;
                    }
                    src = Some(pi.args[0]);
                    sels.push(pi.args[1].lit()?);
                }
                let src = src?;
                let sw = self.types.width(self.ty(f, src)) as usize;
                if sw == n && sels.iter().enumerate().all(|(i, &s)| s as usize == i) {
                    return Some(src);
                }
                let mut args: SmallVec<[Operand; 8]> = smallvec::smallvec![src, src];
                args.extend(sels.iter().map(|&s| Operand::Lit(s)));
                let i = f.inst_mut(v);
                i.op = Op::VectorShuffle;
                i.args = args.into_iter().collect();
                None
            }
            Op::VectorShuffle => {
                let nx = self.types.width(self.ty(f, a(0))) as u32;
                let mut sels: SmallVec<[u32; 4]> = inst.args()[2..]
                    .iter()
                    .map(|s| s.lit().unwrap_or(0))
                    .collect();
                self.shuffle_past_inserts(f, v, nx, &sels);
                let (x, y) = (f.inst(v).args[0], f.inst(v).args[1]);
                // Shuffle of a shuffle (both inputs the same inner shuffle): compose.
                if x == y
                    && let Operand::Value(xv) = x
                    && f.inst(xv).op == Op::VectorShuffle
                    && f.inst(xv).args[0] == f.inst(xv).args[1]
                {
                    let inner = f.inst(xv).clone();
                    for s in sels.iter_mut() {
                        let k = if *s >= nx { *s - nx } else { *s };
                        *s = inner.args[2 + k as usize].lit().unwrap_or(0);
                    }
                    let src = inner.args[0];
                    let i = f.inst_mut(v);
                    i.args = std::iter::once(src)
                        .chain(std::iter::once(src))
                        .chain(sels.iter().map(|&s| Operand::Lit(s)))
                        .collect();
                    return self.fold(f, v);
                }
                if x == y {
                    let n = self.types.width(inst.ty) as u32;
                    let norm: SmallVec<[u32; 4]> = sels
                        .iter()
                        .map(|&s| if s >= nx { s - nx } else { s })
                        .collect();
                    if n == nx && norm.iter().enumerate().all(|(i, &s)| s == i as u32) {
                        return Some(x);
                    }
                }
                if let (Operand::Const(cx), Operand::Const(cy)) = (x, y) {
                    let bx = self.const_bits(cx)?;
                    let by = self.const_bits(cy)?;
                    let bits: SmallVec<[u64; 4]> = sels
                        .iter()
                        .map(|&s| {
                            if s < nx {
                                bx[s as usize]
                            } else {
                                by[(s - nx) as usize]
                            }
                        })
                        .collect();
                    return self.make_const(inst.ty, &bits);
                }
                None
            }
            Op::INotEqual | Op::IEqual => {
                let (x, y) = (a(0), a(1));
                let (x, y) = if self.is_zero(x) { (y, x) } else { (x, y) };
                if !self.is_zero(y) || matches!(x, Operand::Const(_)) {
                    return self.fold_int_const(f, &inst);
                }
                let (c, t, e) = self.as_bool_select(f, x)?;
                let t_nz = t.iter().all(|&b| b != 0);
                let e_z = e.iter().all(|&b| b == 0);
                let t_z = t.iter().all(|&b| b == 0);
                let e_nz = e.iter().all(|&b| b != 0);
                if self.ty(f, c) != inst.ty {
                    return None;
                }
                let positive = if t_nz && e_z {
                    true
                } else if t_z && e_nz {
                    false
                } else {
                    return None;
                };
                // x != 0 is c when positive; x == 0 is !c when positive.
                if (inst.op == Op::INotEqual) == positive {
                    Some(c)
                } else {
                    Some(self.not(f, c))
                }
            }
            Op::Select => {
                let c = a(0);
                if let Operand::Const(k) = c
                    && let Some(bits) = self.const_bits(k)
                    && bits.len() == 1
                {
                    return Some(if bits[0] != 0 { a(1) } else { a(2) });
                }
                if a(1) == a(2) {
                    return Some(a(1));
                }
                if let Operand::Value(cv) = c
                    && f.inst(cv).op == Op::LogicalNot
                {
                    let inner = f.inst(cv).args[0];
                    let i = f.inst_mut(v);
                    i.args = smallvec::smallvec![inner, a(2), a(1)];
                }
                None
            }
            Op::LogicalNot => {
                let x = a(0);
                if let Operand::Value(xv) = x {
                    let xi = f.inst(xv);
                    let inv = match xi.op {
                        Op::LogicalNot => return Some(xi.args[0]),
                        Op::FOrdEqual => Some(Op::FUnordNotEqual),
                        Op::FUnordNotEqual => Some(Op::FOrdEqual),
                        Op::IEqual => Some(Op::INotEqual),
                        Op::INotEqual => Some(Op::IEqual),
                        Op::SLessThan => Some(Op::SGreaterThanEqual),
                        Op::SGreaterThanEqual => Some(Op::SLessThan),
                        Op::ULessThan => Some(Op::UGreaterThanEqual),
                        Op::UGreaterThanEqual => Some(Op::ULessThan),
                        Op::FOrdLessThan => Some(Op::FUnordGreaterThanEqual),
                        Op::FOrdGreaterThanEqual => Some(Op::FUnordLessThan),
                        Op::FUnordGreaterThanEqual => Some(Op::FOrdLessThan),
                        Op::FUnordLessThan => Some(Op::FOrdGreaterThanEqual),
                        _ => None,
                    };
                    if let Some(op) = inv {
                        let args = xi.args.clone();
                        let ty = xi.ty;
                        return Some(self.emit(f, op, ty, &args));
                    }
                }
                if let Operand::Const(_) = x {
                    return Some(self.not(f, x));
                }
                None
            }
            Op::BitwiseAnd | Op::BitwiseOr | Op::BitwiseXor => self.fold_bitwise(f, v, &inst),
            Op::Not => {
                if let Some((c, t, e)) = self.as_bool_select(f, a(0))
                    && self.types.shape(self.ty(f, a(0))) == self.types.shape(inst.ty)
                {
                    let ty = inst.ty;
                    let nt: SmallVec<[u64; 4]> = t.iter().map(|&b| !b & 0xffff_ffff).collect();
                    let ne: SmallVec<[u64; 4]> = e.iter().map(|&b| !b & 0xffff_ffff).collect();
                    let kt = self.make_const(ty, &nt)?;
                    let ke = self.make_const(ty, &ne)?;
                    return Some(self.emit(f, Op::Select, ty, &[c, kt, ke]));
                }
                self.fold_int_const(f, &inst)
            }
            Op::IAdd
            | Op::ISub
            | Op::ShiftLeftLogical
            | Op::ShiftRightLogical
            | Op::ShiftRightArithmetic => {
                if self.is_zero(a(1)) && self.ty(f, a(0)) == inst.ty {
                    return Some(a(0));
                }
                if inst.op == Op::IAdd && self.is_zero(a(0)) && self.ty(f, a(1)) == inst.ty {
                    return Some(a(1));
                }
                self.fold_int_const(f, &inst)
            }
            Op::IMul => {
                if self.is_splat(a(1), 1) && self.ty(f, a(0)) == inst.ty {
                    return Some(a(0));
                }
                if self.is_splat(a(0), 1) && self.ty(f, a(1)) == inst.ty {
                    return Some(a(1));
                }
                self.fold_int_const(f, &inst)
            }
            Op::SNegate
            | Op::UGreaterThanEqual
            | Op::ULessThan
            | Op::SLessThan
            | Op::SGreaterThanEqual => self.fold_int_const(f, &inst),
            Op::FNegate => {
                let x = a(0);
                if let Operand::Value(xv) = x
                    && f.inst(xv).op == Op::FNegate
                {
                    return Some(f.inst(xv).args[0]);
                }
                if let Operand::Const(c) = x {
                    let bits = self.const_bits(c)?;
                    let nb: SmallVec<[u64; 4]> = bits.iter().map(|&b| b ^ 0x8000_0000).collect();
                    if inst.ty != TypeId::F64 && self.types.scalar(inst.ty) == Some(Scalar::F32) {
                        return self.make_const(inst.ty, &nb);
                    }
                }
                None
            }
            _ => None,
        }
    }

    /// A shuffle input that is `insert(object, base, k)` where the shuffle selects no component
    /// `k` of that input becomes `base` (same type), repeatedly: lowering's writes of single
    /// components (`1/w` of the pixel position, say) are often never read by the shuffle that
    /// follows, and then fall to DCE.
    fn shuffle_past_inserts(&self, f: &mut Function, v: ValueId, nx: u32, sels: &[u32]) {
        for side in 0..2 {
            loop {
                let o = f.inst(v).args[side];
                let Operand::Value(ov) = o else { break };
                let oi = f.inst(ov);
                if oi.op != Op::CompositeInsert || oi.args.len() != 3 {
                    break;
                }
                let (Some(k), base) = (oi.args[2].lit(), oi.args[1]) else {
                    break;
                };
                let (x, y) = (f.inst(v).args[0], f.inst(v).args[1]);
                let reads_k = sels
                    .iter()
                    .any(|&s| (s < nx && x == o && s == k) || (s >= nx && y == o && s - nx == k));
                if reads_k {
                    break;
                }
                let i = f.inst_mut(v);
                for p in i.args[..2].iter_mut() {
                    if *p == o {
                        *p = base;
                    }
                }
            }
        }
    }

    /// If `parts` are `bitcast(extract(v, i))` for i = 0..n of one n-component vector `v`, `v`.
    fn bitcast_of_components(&self, f: &Function, parts: &[Operand], n: usize) -> Option<Operand> {
        let mut src = None;
        for (i, p) in parts.iter().enumerate() {
            let b = f.inst(p.value()?);
            if b.op != Op::Bitcast {
                return None;
            }
            let e = f.inst(b.args[0].value()?);
            if e.op != Op::CompositeExtract || e.args.len() != 2 || e.args[1].lit()? != i as u32 {
                return None;
            }
            if src.is_some_and(|s| s != e.args[0]) {
                return None;
            }
            src = Some(e.args[0]);
        }
        let src = src?;
        (self.types.width(self.ty(f, src)) as usize == n).then_some(src)
    }

    fn fold_bitwise(&mut self, f: &mut Function, v: ValueId, inst: &Ins) -> Option<Operand> {
        let (x, y) = (inst.args()[0], inst.args()[1]);
        let (x, y) = if matches!(x, Operand::Const(_)) {
            (y, x)
        } else {
            (x, y)
        };
        let ty = inst.ty;
        let same_ty = self.ty(f, x) == ty;
        let all_ones = 0xffff_ffff;
        match inst.op {
            Op::BitwiseAnd => {
                if self.is_splat(y, all_ones) && same_ty {
                    return Some(x);
                }
                if self.is_zero(y) {
                    return self.make_const(ty, &vec![0; self.types.width(ty) as usize]);
                }
            }
            Op::BitwiseOr | Op::BitwiseXor if self.is_zero(y) && same_ty => {
                return Some(x);
            }
            _ => {}
        }
        if x == y && same_ty {
            return match inst.op {
                Op::BitwiseXor => self.make_const(ty, &vec![0; self.types.width(ty) as usize]),
                _ => Some(x),
            };
        }
        // Booleans in D3D form: select(c, K, 0) & M  →  select(c, K & M, 0).
        if let Some((c, t, e)) = self.as_bool_select(f, x)
            && self.types.shape(self.ty(f, x)).map(|s| s.1) == self.types.shape(ty).map(|s| s.1)
        {
            if let Operand::Const(k) = y {
                let m = self.const_bits(k)?;
                let op = |p: u64, q: u64| match inst.op {
                    Op::BitwiseAnd => p & q,
                    Op::BitwiseOr => p | q,
                    _ => p ^ q,
                };
                let nt: SmallVec<[u64; 4]> = t
                    .iter()
                    .zip(m.iter().cycle())
                    .map(|(&p, &q)| op(p, q))
                    .collect();
                let ne: SmallVec<[u64; 4]> = e
                    .iter()
                    .zip(m.iter().cycle())
                    .map(|(&p, &q)| op(p, q))
                    .collect();
                let kt = self.make_const(ty, &nt)?;
                let ke = self.make_const(ty, &ne)?;
                return Some(self.emit(f, Op::Select, ty, &[c, kt, ke]));
            }
            // select(c1, ~0, 0) op select(c2, ~0, 0)  →  select(c1 lop c2, ~0, 0)
            if let Some((c2, t2, e2)) = self.as_bool_select(f, y) {
                let canon = |t: &SmallVec<[u64; 4]>, e: &SmallVec<[u64; 4]>| {
                    t.iter().all(|&b| b == all_ones) && e.iter().all(|&b| b == 0)
                };
                let lop = match inst.op {
                    Op::BitwiseAnd => Op::LogicalAnd,
                    Op::BitwiseOr => Op::LogicalOr,
                    _ => Op::LogicalNotEqual,
                };
                if canon(&t, &e) && canon(&t2, &e2) && self.ty(f, c) == self.ty(f, c2) {
                    let bty = self.ty(f, c);
                    let lc = self.emit(f, lop, bty, &[c, c2]);
                    let kt = self.make_const(ty, &t)?;
                    let ke = self.make_const(ty, &e)?;
                    return Some(self.emit(f, Op::Select, ty, &[lc, kt, ke]));
                }
            }
        }
        let _ = v;
        self.fold_int_const(f, inst)
    }

    /// Folds integer/bitwise operations whose operands are all constants.
    fn fold_int_const(&mut self, f: &Function, inst: &Ins) -> Option<Operand> {
        if !inst.args().iter().all(|a| matches!(a, Operand::Const(_))) {
            return None;
        }
        let args: SmallVec<[SmallVec<[u64; 4]>; 3]> = inst
            .args()
            .iter()
            .map(|a| self.const_bits(a.konst().expect("all arguments are constants")))
            .collect::<Option<_>>()?;
        let n = self.types.width(inst.ty) as usize;
        let (rs, _) = self.types.shape(inst.ty)?;
        if !matches!(rs, Scalar::U32 | Scalar::I32 | Scalar::Bool) {
            return None;
        }
        let get =
            |k: usize, i: usize| -> u32 { args[k][if args[k].len() == 1 { 0 } else { i }] as u32 };
        let mut out: SmallVec<[u64; 4]> = SmallVec::new();
        for i in 0..n {
            let x = get(0, i);
            let y = if args.len() > 1 { get(1, i) } else { 0 };
            let r: u32 = match inst.op {
                Op::IAdd => x.wrapping_add(y),
                Op::ISub => x.wrapping_sub(y),
                Op::IMul => x.wrapping_mul(y),
                Op::BitwiseAnd => x & y,
                Op::BitwiseOr => x | y,
                Op::BitwiseXor => x ^ y,
                Op::Not => !x,
                Op::SNegate => (x as i32).wrapping_neg() as u32,
                Op::ShiftLeftLogical => x.wrapping_shl(y & 31),
                Op::ShiftRightLogical => x.wrapping_shr(y & 31),
                Op::ShiftRightArithmetic => ((x as i32).wrapping_shr(y & 31)) as u32,
                Op::IEqual => (x == y) as u32,
                Op::INotEqual => (x != y) as u32,
                Op::ULessThan => (x < y) as u32,
                Op::UGreaterThanEqual => (x >= y) as u32,
                Op::SLessThan => ((x as i32) < (y as i32)) as u32,
                Op::SGreaterThanEqual => ((x as i32) >= (y as i32)) as u32,
                _ => return None,
            };
            out.push(r as u64);
        }
        let _ = f;
        self.make_const(inst.ty, &out)
    }
}

/// The opcodes [`Ctx::fold`] has rules for (the arms of its `match`; `OpPhi` is not one):
/// every other instruction is left as it is without copying it out first.
#[inline]
fn has_folds(op: Op) -> bool {
    matches!(
        op,
        Op::Bitcast
            | Op::CompositeExtract
            | Op::CompositeConstruct
            | Op::VectorShuffle
            | Op::INotEqual
            | Op::IEqual
            | Op::Select
            | Op::LogicalNot
            | Op::BitwiseAnd
            | Op::BitwiseOr
            | Op::BitwiseXor
            | Op::Not
            | Op::IAdd
            | Op::ISub
            | Op::ShiftLeftLogical
            | Op::ShiftRightLogical
            | Op::ShiftRightArithmetic
            | Op::IMul
            | Op::SNegate
            | Op::UGreaterThanEqual
            | Op::ULessThan
            | Op::SLessThan
            | Op::SGreaterThanEqual
            | Op::FNegate
    )
}

/// This pass's working buffers, kept across functions and translations (see
/// [`super::Scratch`]).
#[derive(Debug, Default)]
pub struct Scratch {
    /// A copy of the list of the block being rebuilt (the block's own vector is refilled).
    insts: Vec<ValueId>,
}

/// Runs the peephole folds over `f`.
#[inline(never)] // a frame of its own in profiles (called once per function)
pub fn simplify(
    f: &mut Function,
    types: &mut TypeTable,
    consts: &mut ConstTable,
    globals: &[Global],
    repl: &mut Replacements,
    scratch: &mut Scratch,
) {
    merge_row_stores(f, types, consts, globals);
    let insts = &mut scratch.insts;
    repl.reset(f.insts.len());
    let mut cx = Ctx {
        types,
        consts,
        repl,
        out: Vec::new(),
    };
    for bi in 0..f.layout.len() {
        let b = f.layout[bi];
        // The block's list is copied out and its own vector refilled: no allocation unless
        // the folds add more instructions than they remove.
        cx.out = std::mem::take(&mut f.block_mut(b).insts);
        insts.clear();
        insts.extend_from_slice(&cx.out);
        cx.out.clear();
        for &v in insts.iter() {
            // Resolve operands through earlier folds.
            if !cx.repl.is_empty() {
                for a in f.inst_mut(v).args.iter_mut() {
                    if let Operand::Value(_) = *a {
                        *a = cx.repl.resolve(*a);
                    }
                }
            }
            // Tested here rather than in `fold`: most instructions have no rule, and `fold`'s
            // frame is large. Phis (used by later blocks) are never folded.
            if !has_folds(f.inst(v).op) {
                // Debug builds (the tests) check the list against `fold`'s rules: an opcode
                // given a rule but not listed would silently never fold.
                debug_assert!(
                    cx.fold(f, v).is_none(),
                    "simplify: {:?} folds but is missing from has_folds",
                    f.inst(v).op
                );
                cx.out.push(v);
                continue;
            }
            match cx.fold(f, v) {
                Some(r) if r != Operand::Value(v) => {
                    cx.repl.set(v, r);
                    f.inst_mut(v).flags |= flags::DEAD;
                }
                _ => cx.out.push(v),
            }
        }
        f.block_mut(b).insts = std::mem::take(&mut cx.out);
        let mut term = std::mem::replace(&mut f.block_mut(b).term, Terminator::Open);
        if let Terminator::CondBranch {
            cond,
            on_true,
            on_false,
        } = &mut term
        {
            *cond = cx.repl.resolve(*cond);
            if let Operand::Value(cv) = *cond
                && f.inst(cv).op == Op::LogicalNot
            {
                *cond = f.inst(cv).args[0];
                std::mem::swap(on_true, on_false);
            }
        }
        if let Terminator::Switch { selector, .. } = &mut term {
            *selector = cx.repl.resolve(*selector);
        }
        f.block_mut(b).term = term;
    }
    // Phis may use values folded later in layout order.
    cx.repl.apply_to_phis(f);
}

/// The row of an array-of-4-vectors global that `ptr` points into one component of:
/// `ptr = AccessChain(g, row, k)` with a constant `k` below 4 → (g, row, k, the row's type,
/// the global's storage class).
fn row_component(
    f: &Function,
    types: &TypeTable,
    consts: &ConstTable,
    globals: &[Global],
    ptr: Operand,
) -> Option<(GlobalId, Operand, u8, TypeId, spirv::StorageClass)> {
    let pi = f.inst(ptr.value()?);
    if pi.op != Op::AccessChain || pi.args.len() != 3 {
        return None;
    }
    let Operand::Global(g) = pi.args[0] else {
        return None;
    };
    let k = consts.scalar_bits(pi.args[2].konst()?)?;
    let global = globals.get(g.0 as usize)?;
    let Type::Pointer { pointee, .. } = *types.get(global.ty) else {
        return None;
    };
    let Type::Array { elem, .. } = *types.get(pointee) else {
        return None;
    };
    match types.shape(elem) {
        Some((_, 4)) if k < 4 => Some((g, pi.args[1], k as u8, elem, global.storage)),
        _ => None,
    }
}

/// Whether `a` and `b` are the same value: the same operand, or (before CSE merges them) the
/// same pure operation on the same values, looked for `depth` levels deep.
fn same_value(f: &Function, a: Operand, b: Operand, depth: u32) -> bool {
    if a == b {
        return true;
    }
    let (Operand::Value(x), Operand::Value(y)) = (a, b) else {
        return false;
    };
    let (xi, yi) = (f.inst(x), f.inst(y));
    depth > 0
        && xi.op == yi.op
        && xi.ty == yi.ty
        && is_pure(xi.op)
        && xi.op != Op::AccessChain
        && xi.args.len() == yi.args.len()
        && xi
            .args
            .iter()
            .zip(&yi.args)
            .all(|(&p, &q)| same_value(f, p, q, depth - 1))
}

/// Operations that neither read nor write memory nor have other side effects (GLSL.std.450
/// instructions, the only extended set the translator imports, have none): a group of
/// component stores may span them.
fn is_pure(op: Op) -> bool {
    matches!(
        op,
        Op::AccessChain
            | Op::CompositeExtract
            | Op::CompositeConstruct
            | Op::CompositeInsert
            | Op::VectorShuffle
            | Op::Bitcast
            | Op::ExtInst
            | Op::IAdd
            | Op::ISub
            | Op::IMul
            | Op::FAdd
            | Op::FSub
            | Op::FMul
            | Op::FDiv
            | Op::FNegate
            | Op::BitwiseAnd
            | Op::BitwiseOr
            | Op::BitwiseXor
            | Op::ShiftLeftLogical
            | Op::ShiftRightLogical
            | Op::ShiftRightArithmetic
            | Op::Select
            | Op::ConvertFToS
            | Op::ConvertFToU
            | Op::ConvertSToF
            | Op::ConvertUToF
    )
}

/// Replaces four stores to the four components of one row of an array of 4-vectors (in any
/// order, in one block, with only [`is_pure`] operations between them) by one store of the
/// row at the place of the last of them. Same memory afterwards; nothing between the stores
/// can observe the difference.
fn merge_row_stores(
    f: &mut Function,
    types: &mut TypeTable,
    consts: &ConstTable,
    globals: &[Global],
) {
    let has_rows = globals.iter().any(|g| match types.get(g.ty) {
        Type::Pointer { pointee, .. } => matches!(
            types.get(*pointee),
            Type::Array { elem, .. } if types.shape(*elem).is_some_and(|(_, n)| n == 4)
        ),
        _ => false,
    });
    if !has_rows {
        return;
    }
    for bi in 0..f.layout.len() {
        let b = f.layout[bi];
        // The group being gathered: (global, row), its stores' values by component, and the
        // row's type and storage.
        let mut key: Option<(GlobalId, Operand)> = None;
        let mut parts: [Option<(usize, Operand)>; 4] = [None; 4];
        let mut row_ty = (TypeId::VOID, spirv::StorageClass::Function);
        let mut i = 0;
        while i < f.block(b).insts.len() {
            let v = f.block(b).insts[i];
            let inst = f.inst(v);
            if inst.op != Op::Store {
                if !is_pure(inst.op) {
                    key = None;
                }
                i += 1;
                continue;
            }
            let Some((g, row, k, elem, storage)) =
                row_component(f, types, consts, globals, inst.args[0])
            else {
                key = None;
                i += 1;
                continue;
            };
            let value = inst.args[1];
            let (scalar, _) = types.shape(elem).expect("checked by row_component");
            if ty_of(f, consts, value) != TypeTable::vec(scalar, 1) {
                key = None;
                i += 1;
                continue;
            }
            let same_row = key.is_some_and(|(kg, kr)| kg == g && same_value(f, kr, row, 4));
            if !same_row || parts[k as usize].is_some() {
                key = Some((g, row));
                parts = [None; 4];
                row_ty = (elem, storage);
            }
            parts[k as usize] = Some((i, value));
            if parts.iter().all(Option::is_some) {
                let slots = parts.map(|p| p.expect("all some"));
                let ptr_ty = types.pointer(row_ty.1, row_ty.0);
                let ptr = f.add_inst(Inst::new(
                    Op::AccessChain,
                    ptr_ty,
                    Args::from_slice(&[Operand::Global(g), row]),
                ));
                let whole = f.add_inst(Inst::new(
                    Op::CompositeConstruct,
                    row_ty.0,
                    slots.iter().map(|&(_, x)| x).collect(),
                ));
                let store = f.add_inst(Inst::new(
                    Op::Store,
                    TypeId::VOID,
                    Args::from_slice(&[Operand::Value(ptr), Operand::Value(whole)]),
                ));
                // The last store (at `i`) becomes the row's; the other three go.
                let mut dead: SmallVec<[usize; 3]> = slots
                    .iter()
                    .map(|&(at, _)| at)
                    .filter(|&at| at != i)
                    .collect();
                dead.sort_unstable();
                let insts = &mut f.block_mut(b).insts;
                let mut gone: SmallVec<[ValueId; 4]> = smallvec::smallvec![insts[i]];
                insts.splice(i..=i, [ptr, whole, store]);
                for &at in dead.iter().rev() {
                    gone.push(insts.remove(at));
                }
                for v in gone {
                    f.inst_mut(v).flags |= flags::DEAD;
                }
                i = i + 3 - dead.len();
                key = None;
                continue;
            }
            i += 1;
        }
    }
}
