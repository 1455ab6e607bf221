//! Reading source operands and writing destination operands.
//!
//! A D3D operand names a register file, indices (possibly relative), a component selection
//! and modifiers; instructions read it as some scalar type. [`Lowerer::read`] returns the IR
//! vector of the components an instruction needs — one per destination component, taken
//! through the swizzle — bitcast to that type with `abs`/`neg` applied. [`Lowerer::write`]
//! applies `_sat` and stores each written component, as raw bits, into the register's
//! variables. Register values travel as `u32` so that any instruction may reinterpret them.

use smallvec::SmallVec;
use spirv::{GlslStd450Op as Glsl, Op};

use super::{Lowerer, R};
use crate::ir::{Operand, Scalar, TypeTable};
use crate::sm4::{Components, Index, Operand as Sm4Operand, OperandType};

/// An index value: immediate, or computed at run time (a `u32` IR value).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Idx {
    Imm(u32),
    Dyn(Operand),
}

/// Components of `op` read for each component set in `mask`, in order.
#[inline]
pub(crate) fn src_components(op: &Sm4Operand, mask: u8) -> Comps {
    let mut out = Comps { sel: [0; 4], n: 0 };
    match op.components {
        Components::One | Components::Zero => {
            out.n = mask.count_ones().clamp(1, 4) as u8;
        }
        _ => {
            for (c, &s) in op.swizzle().iter().enumerate() {
                if mask & (1 << c) != 0 {
                    out.sel[out.n as usize] = s;
                    out.n += 1;
                }
            }
        }
    }
    out
}

/// Source components, in destination order (at most four; a plain value, no allocation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Comps {
    sel: [u8; 4],
    n: u8,
}

impl std::ops::Deref for Comps {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.sel[..self.n as usize]
    }
}

impl IntoIterator for Comps {
    type Item = u8;
    type IntoIter = std::iter::Take<std::array::IntoIter<u8, 4>>;
    fn into_iter(self) -> Self::IntoIter {
        self.sel.into_iter().take(self.n as usize)
    }
}

impl<'a> IntoIterator for &'a Comps {
    type Item = &'a u8;
    type IntoIter = std::slice::Iter<'a, u8>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// The value of an operand index.
    #[inline]
    pub fn index_value(&mut self, idx: &Index) -> R<Idx> {
        if idx.relative.is_none() && idx.value <= u32::MAX as u64 {
            return Ok(Idx::Imm(idx.value as u32));
        }
        self.index_value_other(idx)
    }

    /// [`Lowerer::index_value`] of a relative (or too large) index.
    #[inline(never)]
    fn index_value_other(&mut self, idx: &Index) -> R<Idx> {
        let imm = idx.value;
        if imm > u32::MAX as u64 {
            return Err(self.unsupported("64-bit register index"));
        }
        let prog = self.prog;
        match prog.rel(idx) {
            None => Ok(Idx::Imm(imm as u32)),
            Some(rel) => {
                let r = self.read_scalar(rel, Scalar::U32)?;
                if imm == 0 {
                    Ok(Idx::Dyn(r))
                } else {
                    let k = self.b.u32c(imm as u32);
                    Ok(Idx::Dyn(self.b.op(
                        Op::IAdd,
                        crate::ir::TypeId::U32,
                        &[r, k],
                    )))
                }
            }
        }
    }

    /// An index as an IR operand (`u32`).
    pub fn idx_operand(&mut self, i: Idx) -> Operand {
        match i {
            Idx::Imm(v) => self.b.u32c(v),
            Idx::Dyn(o) => o,
        }
    }

    /// The first index of `op`, which must be immediate (`r5`, `v2`, `o0`).
    #[inline]
    pub fn imm_register(&self, op: &Sm4Operand) -> R<u32> {
        match op.register() {
            Some(r) => Ok(r),
            None => Err(self.relative_register(op)),
        }
    }

    /// The error for a relatively addressed operand where only an immediate index will do.
    #[cold]
    fn relative_register(&self, op: &Sm4Operand) -> super::error::LowerError {
        self.unsupported(format!("relative addressing of {} registers", op.ty.name()))
    }

    /// Reads `op` for the destination components in `mask`, as `s`, with modifiers.
    #[inline]
    pub fn read(&mut self, op: &Sm4Operand, mask: u8, s: Scalar) -> R<Operand> {
        let comps = src_components(op, mask);
        self.read_comps(op, &comps, s)
    }

    /// One component `c` of a temp `r#` (immediately indexed) as `s`: the commonest read,
    /// without the general path's dispatch and part list.
    #[inline]
    fn read_temp_component(&mut self, op: &Sm4Operand, c: u8, s: Scalar) -> Option<R<Operand>> {
        if op.ty != OperandType::Temp || op.index_dim() != 1 {
            return None;
        }
        let reg = op.register()?;
        let var = match self.temp_var(reg, c) {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        };
        let raw = self.b.load_var(var);
        let v = self.b.bitcast(TypeTable::vec(s, 1), raw);
        Some(self.apply_modifiers(op, v, s))
    }

    /// Reads the first `n` components of `op`'s swizzle (coordinates, offsets), as `s`.
    pub fn read_n(&mut self, op: &Sm4Operand, n: u8, s: Scalar) -> R<Operand> {
        let swz = op.swizzle();
        let comps: SmallVec<[u8; 4]> = match op.components {
            Components::One | Components::Zero => smallvec::smallvec![0; n as usize],
            _ => swz[..n as usize].iter().copied().collect(),
        };
        self.read_comps(op, &comps, s)
    }

    /// Reads one component of `op` (the first of its swizzle), as `s`.
    pub fn read_scalar(&mut self, op: &Sm4Operand, s: Scalar) -> R<Operand> {
        self.read_n(op, 1, s)
    }

    /// Reads components `comps` of `op` as a vector of `s`, with modifiers applied.
    pub fn read_comps(&mut self, op: &Sm4Operand, comps: &[u8], s: Scalar) -> R<Operand> {
        if comps.is_empty() {
            return Err(self.invalid("an operand read for an empty destination mask"));
        }
        if comps.len() == 1
            && let Some(r) = self.read_temp_component(op, comps[0], s)
        {
            return r;
        }
        let v = match self.vector_read(op, comps, s)? {
            Some(v) => v,
            None => {
                let parts = self.fetch(op, comps, s)?;
                self.b.construct(&parts)
            }
        };
        self.apply_modifiers(op, v, s)
    }

    /// Reads that take their components from one vector (a constant-buffer row, an input
    /// register, an immediate, a temp written in this block as one vector): a swizzle of that
    /// vector, bitcast once, rather than per-component extracts and bitcasts.
    fn vector_read(&mut self, op: &Sm4Operand, comps: &[u8], s: Scalar) -> R<Option<Operand>> {
        if !matches!(s, Scalar::F32 | Scalar::U32 | Scalar::I32) {
            return Ok(None);
        }
        let n = comps.len() as u8;
        let v = match op.ty {
            OperandType::Temp => return Ok(self.lazy_temp_read(op, comps, s)),
            OperandType::Immediate32 => {
                let imm = op.immediates();
                // A fixed array: a vector has at most four components.
                let mut bits = [0u64; 4];
                let Some(bits) = bits.get_mut(..comps.len()) else {
                    return Ok(None);
                };
                for (b, &c) in bits.iter_mut().zip(comps) {
                    *b = if imm.len() == 1 {
                        imm[0] as u64
                    } else {
                        imm[c as usize & 3] as u64
                    };
                }
                return Ok(Some(Operand::Const(self.b.m.consts.vector(s, bits))));
            }
            OperandType::ConstantBuffer
            | OperandType::ImmediateConstantBuffer
            | OperandType::IndexableTemp
            | OperandType::ThisPointer => {
                let row = self.load_row(op)?;
                self.b.swizzle(row, comps)
            }
            OperandType::Input if op.index_dim() == 1 => {
                let Some(reg) = op.register() else {
                    return Ok(None);
                };
                match self.read_input_vector(reg, comps) {
                    Some(v) => v,
                    None => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(self.b.bitcast(TypeTable::vec(s, n), v)))
    }

    /// A plain `mov` from a temp to a temp or an output register (both named directly, no
    /// modifier, no saturation) as a copy of register values: each written component of `dst`
    /// takes the value its source component has in this block, as it is (a component of a
    /// vector stays one), with no vector read or built. False (nothing done) when a source
    /// component has no value in this block.
    pub fn copy_temp(&mut self, dst: &Sm4Operand, src: &Sm4Operand) -> R<bool> {
        let (Some(dreg), Some(sreg)) = (dst.register(), src.register()) else {
            return Ok(false);
        };
        let Some(svars) = self.temps.get(sreg as usize) else {
            return Ok(false);
        };
        let (mask, swz) = (dst.mask(), src.swizzle());
        // All read before any is written (`mov r0.xy, r0.yx`).
        let mut vals = [(Operand::Lit(0), 0u8); 4];
        for c in 0..4 {
            if mask & (1 << c) == 0 {
                continue;
            }
            let Some(var) = svars[swz[c] as usize & 3] else {
                return Ok(false);
            };
            let Some(v) = self.b.peek_var(var) else {
                return Ok(false);
            };
            vals[c] = v;
        }
        // Components of one vector are copied as such when they are the whole vector in
        // order (what a read would give: the vector itself). Any other selection of one
        // vector's components is read as one shuffle, which every later read of the copy
        // shares (copied as components, each block that reads them would build its own).
        // Where some components are values of their own, the others are extracted now, as a
        // read would extract them.
        let src0 = vals[mask.trailing_zeros() as usize & 3].0;
        let written = || (0..4).filter(move |&c| mask & (1 << c) != 0);
        if written().all(|c| vals[c].1 != u8::MAX && vals[c].0 == src0) {
            let in_order = written().enumerate().all(|(i, c)| vals[c].1 as usize == i);
            if !in_order || self.b.width_of(src0) as u32 != mask.count_ones() {
                return Ok(false);
            }
        } else {
            // Extracts of one vector, all of them: a read finds the vector (or makes the one
            // shuffle of it) for every later read to share, as above; the whole vector in
            // order is the vector itself, whose components are copied.
            let parts: SmallVec<[Operand; 4]> = written().map(|c| vals[c].0).collect();
            if written().all(|c| vals[c].1 == u8::MAX)
                && let Some((v, sels)) = self.b.extract_sources(&parts)
            {
                let in_order = sels.iter().enumerate().all(|(i, &k)| k as usize == i);
                if !in_order || self.b.width_of(v) as usize != sels.len() {
                    return Ok(false);
                }
                for (i, c) in written().enumerate() {
                    vals[c] = (v, i as u8);
                }
            }
            for c in written() {
                if vals[c].1 != u8::MAX {
                    let var = svars[swz[c] as usize & 3].expect("read above");
                    vals[c] = (self.b.load_var(var), u8::MAX);
                }
            }
        }
        for (c, &(v, k)) in vals.iter().enumerate() {
            if mask & (1 << c) == 0 {
                continue;
            }
            let var = if dst.ty == OperandType::Temp {
                self.temp_var(dreg, c as u8)?
            } else {
                self.output_var(dreg, c as u8)?
            };
            if k == u8::MAX {
                self.b.store_var(var, v);
            } else {
                self.b.store_var_component(var, v, k);
            }
        }
        Ok(true)
    }

    /// The one 32-bit type the components of `op` read under `mask` already have (a temp's
    /// values, fetched into this block; a constant-buffer row's float), so a copy needs no
    /// bitcasts.
    pub fn natural_type(&mut self, op: &Sm4Operand, mask: u8) -> Option<Scalar> {
        match op.ty {
            OperandType::ConstantBuffer => Some(Scalar::F32),
            OperandType::Temp => {
                let reg = op.register()? as usize;
                let mut found = None;
                for c in src_components(op, mask) {
                    let var = self.temps.get(reg)?[c as usize & 3]?;
                    // A value from an earlier block is fetched now (the copy reads it next
                    // anyway), so that a copy across a join keeps its type too.
                    let value = match self.b.peek_var(var) {
                        Some((v, _)) => v,
                        None => self.b.load_var(var),
                    };
                    // A constant takes whatever type the others have (it is recast for free).
                    if matches!(value, Operand::Const(_)) {
                        continue;
                    }
                    let ty = self.b.type_of(value);
                    let s = self.b.m.types.scalar(ty)?;
                    if found.is_some_and(|f| f != s) {
                        return None;
                    }
                    found = Some(s);
                }
                found.filter(|s| matches!(s, Scalar::F32 | Scalar::U32 | Scalar::I32))
            }
            // An input register read from one interface variable: that variable's type.
            OperandType::Input if op.index_dim() == 1 => {
                let comps = src_components(op, mask);
                self.input_scalar(op.register()?, &comps)
                    .filter(|s| matches!(s, Scalar::F32 | Scalar::U32 | Scalar::I32))
            }
            _ => None,
        }
    }

    /// A temp read whose components were all written in this block as components of one
    /// vector value: a swizzle of that vector, with no per-component loads and extracts.
    fn lazy_temp_read(&mut self, op: &Sm4Operand, comps: &[u8], s: Scalar) -> Option<Operand> {
        if op.ty != OperandType::Temp || comps.len() < 2 {
            return None;
        }
        let reg = op.register()? as usize;
        let vars = self.temps.get(reg)?;
        let mut src = None;
        // A fixed array: a vector has at most four components.
        let mut sel = [0u8; 4];
        let sel = sel.get_mut(..comps.len())?;
        for (k_out, &c) in sel.iter_mut().zip(comps) {
            let (value, k) = self.b.peek_var(vars[c as usize & 3]?)?;
            if k == u8::MAX || src.is_some_and(|x| x != value) {
                return None;
            }
            src = Some(value);
            *k_out = k;
        }
        let src = src?;
        let n = self.b.width_of(src);
        let v = self.b.bitcast(TypeTable::vec(s, n), src);
        Some(self.b.swizzle(v, sel))
    }

    #[inline]
    fn apply_modifiers(&mut self, op: &Sm4Operand, v: Operand, s: Scalar) -> R<Operand> {
        let m = op.modifier;
        if !m.abs() && !m.neg() {
            return Ok(v);
        }
        self.apply_modifiers_other(op, v, s)
    }

    /// [`Lowerer::apply_modifiers`] with a modifier to apply.
    #[inline(never)]
    fn apply_modifiers_other(&mut self, op: &Sm4Operand, mut v: Operand, s: Scalar) -> R<Operand> {
        let m = op.modifier;
        let ty = self.b.type_of(v);
        let float = matches!(s, Scalar::F32 | Scalar::F64);
        if m.abs() {
            v = if float {
                self.b.glsl(Glsl::FAbs, ty, &[v])
            } else {
                self.b.glsl(Glsl::SAbs, ty, &[v])
            };
        }
        if m.neg() {
            v = if float {
                self.b.op(Op::FNegate, ty, &[v])
            } else {
                self.b.op(Op::SNegate, ty, &[v])
            };
        }
        Ok(v)
    }

    /// The raw components of an operand, each bitcast to `s` (no modifiers).
    fn fetch(&mut self, op: &Sm4Operand, comps: &[u8], s: Scalar) -> R<SmallVec<[Operand; 4]>> {
        let sty = TypeTable::vec(s, 1);
        let mut out: SmallVec<[Operand; 4]> = SmallVec::new();
        match op.ty {
            OperandType::Temp => {
                let reg = self.imm_register(op)?;
                for &c in comps {
                    let var = self.temp_var(reg, c)?;
                    let raw = self.b.load_var(var);
                    out.push(self.b.bitcast(sty, raw));
                }
            }
            OperandType::Immediate32 => {
                let imm = op.immediates();
                for &c in comps {
                    let bits = if imm.len() == 1 {
                        imm[0]
                    } else {
                        imm[c as usize & 3]
                    };
                    out.push(crate::ir::Operand::Const(
                        self.b.m.consts.scalar(sty, bits as u64),
                    ));
                }
            }
            OperandType::Input if op.index_dim() == 2 => {
                // GS and HS control-point phase: v[vertex][register].
                return self.fetch_stage_operand(op, comps, s);
            }
            OperandType::Input => {
                if op.index_dim() != 1 {
                    return Err(self.invalid("input operand without a register index"));
                }
                let index = op.index(0).expect("one index");
                match self.index_value(&index)? {
                    Idx::Imm(reg) => {
                        for &c in comps {
                            let (v, _) = self.read_input(reg, c)?;
                            out.push(self.b.bitcast(sty, v));
                        }
                    }
                    Idx::Dyn(_) => {
                        // v[r + base]: the dynamic part, relative to `base`.
                        let prog = self.prog;
                        let rel = prog.rel(&index).expect("relative index");
                        let dynamic = self.read_scalar(rel, Scalar::U32)?;
                        for &c in comps {
                            let v = self.read_input_dynamic(index.imm32(), dynamic, c)?;
                            out.push(self.b.bitcast(sty, v));
                        }
                    }
                }
            }
            OperandType::Output => {
                let reg = self.imm_register(op)?;
                for &c in comps {
                    let var = self.output_var(reg, c)?;
                    let raw = self.b.load_var(var);
                    out.push(self.b.bitcast(sty, raw));
                }
            }
            OperandType::ConstantBuffer
            | OperandType::ImmediateConstantBuffer
            | OperandType::IndexableTemp
            | OperandType::ThisPointer => {
                let row = self.load_row(op)?;
                for &c in comps {
                    let x = self.b.extract(row, c);
                    out.push(self.b.bitcast(sty, x));
                }
            }
            OperandType::InputThreadId
            | OperandType::InputThreadGroupId
            | OperandType::InputThreadIdInGroup
            | OperandType::InputThreadIdInGroupFlattened
            | OperandType::InputPrimitiveId
            | OperandType::InputCoverageMask
            | OperandType::InnerCoverage => {
                for &c in comps {
                    let (v, _) = self.read_special(op.ty, c)?;
                    out.push(self.b.bitcast(sty, v));
                }
            }
            OperandType::Immediate64 => {
                return Err(self.unsupported("64-bit immediate in a 32-bit operation"));
            }
            OperandType::InputControlPoint
            | OperandType::OutputControlPoint
            | OperandType::InputPatchConstant
            | OperandType::InputDomainPoint
            | OperandType::InputGsInstanceId
            | OperandType::OutputControlPointId
            | OperandType::InputForkInstanceId
            | OperandType::InputJoinInstanceId => return self.fetch_stage_operand(op, comps, s),
            other => return Err(self.unsupported(format!("reading {} operands", other.name()))),
        }
        Ok(out)
    }

    /// Writes `value` (one component per bit of the destination mask, or one to replicate) to
    /// `dst` as type `s`, saturating first when `sat`.
    pub fn write(&mut self, dst: &Sm4Operand, value: Operand, s: Scalar, sat: bool) -> R<()> {
        if dst.ty == OperandType::Null {
            return Ok(());
        }
        let mut value = value;
        if sat && s == Scalar::F32 {
            let ty = self.b.type_of(value);
            let n = self.b.m.types.width(ty);
            let zero = self.b.splat(Scalar::F32, n, 0);
            let one = self.b.splat(Scalar::F32, n, 1.0f32.to_bits() as u64);
            value = self.b.glsl(Glsl::NClamp, ty, &[value, zero, one]);
        }
        let mask = match dst.components {
            Components::One | Components::Zero => 1,
            _ => dst.mask(),
        };
        let width = self.b.width_of(value);
        if dst.ty == OperandType::Temp {
            return self.write_temp(dst, mask, value, width);
        }
        if dst.ty == OperandType::IndexableTemp && mask & 0xf == 0xf {
            return self.store_indexable_row(dst, value, width);
        }
        let mut i = 0u8;
        for c in 0..4u8 {
            if mask & (1 << c) == 0 {
                continue;
            }
            if width > 1 && self.store_lazily(dst, c, value, i)? {
                i += 1;
                continue;
            }
            let comp = if width == 1 {
                value
            } else {
                self.b.extract(value, i)
            };
            i += 1;
            self.store_component(dst, c, comp)?;
        }
        Ok(())
    }

    /// [`Lowerer::write`] to a temp: the register is looked up once, and a vector value is
    /// kept whole (as [`Lowerer::store_lazily`] does) unless its components are free.
    fn write_temp(&mut self, dst: &Sm4Operand, mask: u8, value: Operand, width: u8) -> R<()> {
        if mask & 0xf == 0 {
            return Ok(());
        }
        let reg = self.imm_register(dst)?;
        let lazy = width > 1
            && matches!(value, Operand::Value(v) if self.b.f.inst(v).op != Op::CompositeConstruct);
        let mut i = 0u8;
        for c in 0..4u8 {
            if mask & (1 << c) == 0 {
                continue;
            }
            if lazy {
                let var = self.temp_var(reg, c)?;
                self.b.store_var_component(var, value, i);
            } else {
                let comp = if width == 1 {
                    value
                } else {
                    self.b.extract(value, i)
                };
                let var = self.temp_var(reg, c)?;
                self.b.store_var(var, comp);
            }
            i += 1;
        }
        Ok(())
    }

    /// Sets register component `c` of `dst` to component `i` of vector `value` without
    /// extracting it (temps and directly addressed outputs); false for other destinations.
    fn store_lazily(&mut self, dst: &Sm4Operand, c: u8, value: Operand, i: u8) -> R<bool> {
        // Constants and constructed vectors give their components for free; keeping those
        // per component lets bitcasts of the parts fold.
        match value {
            Operand::Value(v) if self.b.f.inst(v).op != Op::CompositeConstruct => {}
            _ => return Ok(false),
        }
        let var = match dst.ty {
            OperandType::Temp => {
                let reg = self.imm_register(dst)?;
                self.temp_var(reg, c)?
            }
            OperandType::Output if dst.index_dim() == 1 && dst.register().is_some() => {
                let reg = self.imm_register(dst)?;
                self.output_var(reg, c)?
            }
            _ => return Ok(false),
        };
        self.b.store_var_component(var, value, i);
        Ok(true)
    }

    /// Stores one 32-bit component to a destination operand. Register variables take the
    /// value in whatever 32-bit type it has (SSA construction reconciles types); memory takes
    /// its raw bits.
    fn store_component(&mut self, dst: &Sm4Operand, c: u8, raw: Operand) -> R<()> {
        match dst.ty {
            OperandType::Temp => {
                let reg = self.imm_register(dst)?;
                let var = self.temp_var(reg, c)?;
                self.b.store_var(var, raw);
            }
            OperandType::Output => {
                if dst.index_dim() != 1 {
                    return Err(self.unsupported("multi-dimensional output operands"));
                }
                let index = dst.index(0).expect("one index");
                if index.relative.is_some() {
                    // o[r + base]: one of the registers of a dcl_indexrange.
                    return self.write_output_dynamic(&index, c, raw);
                }
                let reg = self.imm_register(dst)?;
                let var = self.output_var(reg, c)?;
                self.b.store_var(var, raw);
            }
            OperandType::OutputDepth
            | OperandType::OutputDepthGreaterEqual
            | OperandType::OutputDepthLessEqual
            | OperandType::OutputCoverageMask
            | OperandType::OutputStencilRef => {
                let var = self.special_output_var(dst.ty)?;
                self.b.store_var(var, raw);
            }
            OperandType::IndexableTemp => {
                let bits = self.b.bitcast(crate::ir::TypeId::U32, raw);
                self.store_indexable(dst, c, bits)?
            }
            other => return Err(self.unsupported(format!("writing {} operands", other.name()))),
        }
        Ok(())
    }
}
