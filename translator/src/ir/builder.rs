//! A cursor for building one function: append instructions to the current block, start and
//! end blocks, make constants.
//!
//! Small folds happen right here (operations on constants, extracting from a composite that
//! was just built, bitcasting a bitcast back) because they are free at construction time and
//! keep the later passes' work small.

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
    /// Per variable: the block (id + 1) in which `var_values` holds its current value.
    var_block: Vec<u32>,
    var_values: Vec<Operand>,
}

impl<'m> FnBuilder<'m> {
    /// A builder positioned in a new entry block; `size_hint` = expected instruction count.
    pub fn new(m: &'m mut Module, size_hint: usize) -> Self {
        let mut f = Function {
            insts: Vec::with_capacity(size_hint),
            ..Default::default()
        };
        let entry = f.new_block();
        f.layout.push(entry);
        FnBuilder {
            m,
            f,
            cur: entry,
            var_block: Vec::new(),
            var_values: Vec::new(),
        }
    }

    /// The finished function.
    pub fn finish(self) -> Function {
        self.f
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
        self.f.new_block()
    }

    /// Makes `b` current and appends it to the layout.
    pub fn begin(&mut self, b: BlockId) {
        debug_assert!(!self.f.layout.contains(&b));
        self.f.layout.push(b);
        self.cur = b;
    }

    /// Ends the current block (if still open) with `term`.
    pub fn terminate(&mut self, term: Terminator) {
        if self.is_open() {
            self.f.block_mut(self.cur).term = term;
        }
    }

    /// Ends the current block with a branch to `b` (if still open) and makes `b` current.
    pub fn branch_and_begin(&mut self, b: BlockId) {
        self.terminate(Terminator::Branch(b));
        self.begin(b);
    }

    /// Appends an instruction to the current block.
    pub fn push(&mut self, inst: Inst) -> ValueId {
        let v = self.f.add_inst(inst);
        let cur = self.cur;
        self.f.block_mut(cur).insts.push(v);
        v
    }

    /// Appends `op` with result type `ty` and returns its result.
    pub fn op(&mut self, op: Op, ty: TypeId, args: &[Operand]) -> Operand {
        Operand::Value(self.push(Inst::new(op, ty, Args::from_slice(args))))
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

    pub fn undef(&mut self, ty: TypeId) -> Operand {
        Operand::Const(self.m.consts.undef(ty))
    }

    // ---- typing ------------------------------------------------------------------------------

    /// Result type of an operand (pointer type for globals and variables).
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
    pub fn bitcast(&mut self, to: TypeId, x: Operand) -> Operand {
        let from = self.type_of(x);
        if from == to {
            return x;
        }
        match x {
            Operand::Const(c) => {
                if let Some(c) = recast_const(&mut self.m.consts, &self.m.types, c, to) {
                    return Operand::Const(c);
                }
            }
            Operand::Value(v) => {
                let inst = self.f.inst(v);
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
    pub fn extract(&mut self, x: Operand, i: u8) -> Operand {
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
                        let sel = inst.args[2 + i as usize].lit().unwrap();
                        let ta = self.type_of(a);
                        let na = self.m.types.width(ta) as u32;
                        return if sel < na {
                            self.extract(a, sel as u8)
                        } else {
                            self.extract(b, (sel - na) as u8)
                        };
                    }
                    Op::CompositeExtract => {}
                    _ => {}
                }
            }
            _ => {}
        }
        let sty = TypeTable::vec(s, 1);
        self.op(Op::CompositeExtract, sty, &[x, Operand::Lit(i as u32)])
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
            let cs = parts.iter().map(|p| p.konst().unwrap()).collect();
            return Operand::Const(self.m.consts.intern(Const::Composite { ty, parts: cs }));
        }
        // All extracts from the same vector: that vector, or a shuffle of it.
        if let Some((src, sels)) = self.extract_sources(parts) {
            let src_ty = self.type_of(src);
            let n = self.m.types.width(src_ty) as usize;
            if n == parts.len() && sels.iter().enumerate().all(|(i, &s)| s as usize == i) {
                return src;
            }
            let mut args: SmallVec<[Operand; 8]> = SmallVec::new();
            args.push(src);
            args.push(src);
            args.extend(sels.iter().map(|&s| Operand::Lit(s as u32)));
            return self.op(Op::VectorShuffle, ty, &args);
        }
        self.op(Op::CompositeConstruct, ty, parts)
    }

    /// If every part is `CompositeExtract(src, k)` of one vector `src`, the selectors.
    fn extract_sources(&self, parts: &[Operand]) -> Option<(Operand, SmallVec<[u8; 4]>)> {
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
        let parts: SmallVec<[Operand; 4]> = sel.iter().map(|&s| self.extract(x, s)).collect();
        self.construct(&parts)
    }

    // ---- variables -----------------------------------------------------------------------------

    /// The value of a promotable variable. Within one block the value last stored or loaded is
    /// reused directly (local value numbering), so straight-line code makes no loads.
    pub fn load_var(&mut self, var: VarId) -> Operand {
        let i = var.0 as usize;
        if self.var_block.get(i) == Some(&(self.cur.0 + 1)) {
            return self.var_values[i];
        }
        let ty = self.f.vars[i].ty;
        let v = self.op(Op::Load, ty, &[Operand::Var(var)]);
        self.remember(var, v);
        v
    }

    pub fn store_var(&mut self, var: VarId, value: Operand) {
        self.op_void(Op::Store, &[Operand::Var(var), value]);
        self.remember(var, value);
    }

    fn remember(&mut self, var: VarId, value: Operand) {
        let i = var.0 as usize;
        if self.var_block.len() <= i {
            self.var_block.resize(i + 1, 0);
            self.var_values.resize(i + 1, Operand::Lit(0));
        }
        self.var_block[i] = self.cur.0 + 1;
        self.var_values[i] = value;
    }

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
        Operand::Var(v) => types.pointer(spirv::StorageClass::Function, f.vars[v.0 as usize].ty),
        Operand::Block(_) | Operand::Lit(_) => TypeId::VOID,
    }
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
    match consts.get(c).clone() {
        Const::Scalar { bits, .. } => Some(consts.scalar(to, bits)),
        Const::Composite { parts, .. } => {
            let sty = TypeTable::vec(s_to, 1);
            let p = parts
                .iter()
                .map(|&p| consts.scalar_bits(p).map(|b| consts.scalar(sty, b)))
                .collect::<Option<Vec<_>>>()?;
            Some(consts.intern(Const::Composite { ty: to, parts: p }))
        }
        Const::Null(_) => Some(consts.null(to)),
        Const::Undef(_) => Some(consts.undef(to)),
    }
}
