//! Registers: the variables behind the registers a program writes (created and given their
//! initial values at entry), reading sources (register file, relative addressing, swizzle,
//! source modifiers) and writing destinations (write mask, ps_1_x shift, `_sat`,
//! predication, co-issue).
//!
//! Every register the code writes is four promotable variables (`f32`; `i32` for `a0` and
//! `aL`, `bool` for `p0`) that the builder turns into values as it goes (`ir::ssa`). A write
//! records each component as a component of the written vector, extracted only when read
//! alone, so a register written whole and read whole in one block is that vector, with no
//! extracts and no construct. Registers never written read as their input (`v#`, `t#`) or as
//! 0 (an uninitialised temp, which D3D9's validator rejects and the peers read as 0).

use crate::rules::d3d9::D3d9Rule;
use spirv::{GlslStd450Op as G, Op};

use super::{D9, R};
use crate::d3dbc::{
    Instruction, Opcode, Register, RegisterType as RT, Relative, Source, SourceModifier as SM,
};
use crate::ir::{Operand, Scalar, TypeId, TypeTable, VarId};
use crate::reflect::ShaderStage;

/// `bvec4`.
pub(crate) const BVEC4: TypeId = TypeId(8);

/// The variables of the registers the code writes, by (type, number): a short list searched
/// in order. A program writes few registers and reads them often, so a scan of a few entries
/// is cheaper than hashing each read.
#[derive(Debug, Default)]
pub(crate) struct RegVars(Vec<((RT, u16), [VarId; 4])>);

impl RegVars {
    /// Forgets every register (the allocation is kept for the next program).
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// The variables of register `key`, if the code writes it.
    #[inline]
    pub fn get(&self, key: &(RT, u16)) -> Option<&[VarId; 4]> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Whether the code writes register `key`.
    #[inline]
    pub fn contains_key(&self, key: &(RT, u16)) -> bool {
        self.get(key).is_some()
    }

    /// Gives register `key` its variables (replacing any it had).
    pub fn insert(&mut self, key: (RT, u16), vars: [VarId; 4]) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = vars,
            None => self.0.push((key, vars)),
        }
    }
}

impl<'p, 'm> D9<'p, 'm> {
    /// The scalar kind of a register's variables.
    fn var_scalar(&self, ty: RT) -> Scalar {
        match ty {
            RT::AddrOrTexture if self.stage == ShaderStage::Vertex => Scalar::I32,
            RT::Loop => Scalar::I32,
            RT::Predicate => Scalar::Bool,
            _ => Scalar::F32,
        }
    }

    /// Creates the variables of every register the code writes (and of the outputs) with
    /// their initial values, then the outputs, constant buffers and samplers.
    pub(super) fn declare(&mut self) -> R<()> {
        self.declare_outputs()?;
        let mut keys: smallvec::SmallVec<[(RT, u16); 16]> =
            self.decl.written.iter().copied().collect();
        for o in &self.io.outputs {
            if !keys.contains(&o.reg) {
                keys.push(o.reg);
            }
        }
        if self.insts.iter().any(|i| i.opcode == Opcode::Loop) {
            keys.push((RT::Loop, 0));
        }
        for (ty, num) in keys {
            match ty {
                RT::Input
                | RT::Const
                | RT::Const2
                | RT::Const3
                | RT::Const4
                | RT::ConstInt
                | RT::ConstBool
                | RT::Sampler
                | RT::Label
                | RT::Misc => {
                    let offset = self
                        .insts
                        .iter()
                        .find(|i| i.dst.is_some_and(|d| d.reg.ty == ty && d.reg.num == num))
                        .map_or(0, |i| i.offset);
                    return Err(crate::lower::LowerError::invalid(
                        offset,
                        format!("{} is written", self.reg_name(Register { ty, num })),
                    )
                    .with_rule(D3d9Rule::RegisterWritable.name()));
                }
                _ => {}
            }
            let s = self.var_scalar(ty);
            let sty = TypeTable::vec(s, 1);
            let init: [Operand; 4] = match ty {
                RT::AddrOrTexture if self.stage == ShaderStage::Pixel => {
                    // ps_1_0–1_3 t#: the texture coordinate until written.
                    let v = self.texcoord_input(num);
                    [0, 1, 2, 3].map(|c| self.b.extract(v, c))
                }
                _ if s == Scalar::Bool => [self.b.boolc(false); 4],
                _ if s == Scalar::I32 => [self.b.i32c(0); 4],
                _ => self.output_default((ty, num)).map(|x| self.b.f32c(x)),
            };
            let mut vars = [VarId(0); 4];
            for c in 0..4 {
                vars[c] = self.b.f.new_var(sty);
                self.b.store_var(vars[c], init[c]);
            }
            self.regs.insert((ty, num), vars);
        }
        self.declare_resources()
    }

    /// Clamps a float scalar or vector to [0, 1].
    pub fn saturate(&mut self, v: Operand) -> Operand {
        let n = self.b.width_of(v);
        let zero = self.b.splat(Scalar::F32, n, 0);
        let one = self.b.splat(Scalar::F32, n, 1f32.to_bits() as u64);
        let ty = TypeTable::vec(Scalar::F32, n);
        self.b.glsl(G::NClamp, ty, &[v, zero, one])
    }

    /// A float vec4 with every component `x`.
    pub fn splat4(&mut self, x: Operand) -> Operand {
        self.b.construct(&[x, x, x, x])
    }

    /// A `bvec4` with every component `c`.
    pub fn bsplat4(&mut self, c: Operand) -> Operand {
        self.b.op(Op::CompositeConstruct, BVEC4, &[c, c, c, c])
    }

    /// The value of register `key` from its variables (f32 vec4), or what an unwritten
    /// register reads.
    pub fn register_vec4(&mut self, key: (RT, u16)) -> R<Operand> {
        if let Some(vars) = self.regs.get(&key).copied() {
            let v = match self.whole_vector(&vars) {
                Some(v) => v,
                None => {
                    let parts = vars.map(|v| self.b.load_var(v));
                    self.b.construct(&parts)
                }
            };
            return Ok(match self.var_scalar(key.0) {
                Scalar::I32 => self.b.op(Op::ConvertSToF, TypeId::VEC4, &[v]),
                Scalar::Bool => {
                    let one = self.b.splat(Scalar::F32, 4, 1f32.to_bits() as u64);
                    let zero = self.b.splat(Scalar::F32, 4, 0);
                    self.b.op(Op::Select, TypeId::VEC4, &[v, one, zero])
                }
                _ => v,
            });
        }
        Ok(self.b.splat(Scalar::F32, 4, 0))
    }

    /// The index a relative operand adds to its register number (i32).
    pub fn rel_index(&mut self, rel: &Relative) -> R<Operand> {
        let (key, c) = match rel {
            Relative::Implied => ((RT::AddrOrTexture, 0), 0),
            Relative::Register { reg, swizzle } => match reg.ty {
                RT::AddrOrTexture if self.stage == ShaderStage::Vertex => {
                    ((RT::AddrOrTexture, reg.num), swizzle.0[0])
                }
                RT::Loop => ((RT::Loop, 0), 0),
                _ => {
                    return Err(self.invalid(format!(
                        "relative addressing through {} (only a0 and aL index)",
                        self.reg_name(*reg)
                    )));
                }
            },
        };
        match self.regs.get(&key).copied() {
            Some(vars) => Ok(self.b.load_var(vars[c as usize])),
            // Never written: 0.
            None => Ok(self.b.i32c(0)),
        }
    }

    /// The register's value before swizzle and modifiers (f32 vec4).
    pub fn fetch(&mut self, reg: Register, rel: Option<&Relative>) -> R<Operand> {
        let key = (reg.ty, reg.num);
        match reg.ty {
            RT::Temp | RT::TempFloat16 => {
                self.no_relative(reg, rel)?;
                self.register_vec4(key)
            }
            RT::Input => match rel {
                None => self.input_register(reg.num),
                Some(rel) => self.relative_input(reg.num, rel),
            },
            RT::Const | RT::Const2 | RT::Const3 | RT::Const4 => {
                let rel = match rel {
                    Some(r) => Some(self.rel_index(r)?),
                    None => None,
                };
                self.float_const(crate::d3dbc::register_number(reg), rel)
            }
            RT::AddrOrTexture if self.stage == ShaderStage::Vertex => self.register_vec4(key),
            RT::AddrOrTexture => {
                self.no_relative(reg, rel)?;
                if self.regs.contains_key(&key) {
                    self.register_vec4(key)
                } else {
                    Ok(self.texcoord_input(reg.num))
                }
            }
            RT::ConstInt => {
                let v = self.int_const(reg.num);
                Ok(self.b.op(Op::ConvertSToF, TypeId::VEC4, &[v]))
            }
            RT::ConstBool => {
                let c = self.bool_const(reg.num);
                let one = self.b.f32c(1.0);
                let zero = self.b.f32c(0.0);
                let f = self.b.op(Op::Select, TypeId::F32, &[c, one, zero]);
                Ok(self.splat4(f))
            }
            RT::Loop | RT::Predicate => self.register_vec4(key),
            RT::Misc => self.misc_input(reg.num),
            RT::RastOut | RT::AttrOut | RT::Output | RT::ColorOut | RT::DepthOut
                if self.regs.contains_key(&key) =>
            {
                self.register_vec4(key)
            }
            _ => Err(self
                .invalid(format!("{} read as a value", self.reg_name(reg)))
                .with_rule(D3d9Rule::RegisterReadable.name())),
        }
    }

    fn no_relative(&self, reg: Register, rel: Option<&Relative>) -> R<()> {
        if rel.is_some() {
            return Err(self
                .invalid(format!("{} indexed relatively", self.reg_name(reg)))
                .with_rule(D3d9Rule::RelativeAddressing.name()));
        }
        Ok(())
    }

    /// `v[aL + n]` (SM3): a choice among the declared input registers; 0 outside them.
    fn relative_input(&mut self, base: u16, rel: &Relative) -> R<Operand> {
        let idx = self.rel_index(rel)?;
        let b = self.b.i32c(base.into());
        let idx = self.b.op(Op::IAdd, TypeId::I32, &[idx, b]);
        let mut regs: Vec<u16> = self
            .decl
            .semantics
            .iter()
            .filter(|s| s.reg.ty == RT::Input)
            .map(|s| s.reg.num)
            .collect();
        regs.sort_unstable();
        regs.dedup();
        let mut v = self.b.splat(Scalar::F32, 4, 0);
        for r in regs {
            let x = self.input_register(r)?;
            let k = self.b.i32c(r.into());
            let eq = self.b.op(Op::IEqual, TypeId::BOOL, &[idx, k]);
            let eq = self.bsplat4(eq);
            v = self.b.op(Op::Select, TypeId::VEC4, &[eq, x, v]);
        }
        Ok(v)
    }

    /// A source operand's value: register, `_dz/_dw`, swizzle, then the modifier (f32 vec4).
    pub fn read(&mut self, s: &Source) -> R<Operand> {
        self.read_lanes(s, 0xf)
    }

    /// [`D9::read`] where only the result lanes in `lanes` matter (bit 0 = x): the others may
    /// hold anything (a component-wise instruction writing fewer than four components).
    fn read_lanes(&mut self, s: &Source, lanes: u8) -> R<Operand> {
        if let Some(v) = self.read_temp_swizzled(s, lanes) {
            return self.modify(v, s.modifier);
        }
        let mut v = self.fetch(s.reg, s.relative.as_ref())?;
        if matches!(s.modifier, SM::Dz | SM::Dw) {
            // Divide by z or w, before the swizzle (ps_1_4 `texld`/`texcrd`); a zero divisor
            // gives 1 (MS "ps_1_4 source register modifiers": x' = 1.0 if z == 0).
            let d = self.b.extract(v, if s.modifier == SM::Dz { 2 } else { 3 });
            let zero = self.b.f32c(0.0);
            let d0 = self.b.op(Op::FOrdEqual, TypeId::BOOL, &[d, zero]);
            let d0 = self.bsplat4(d0);
            let d = self.splat4(d);
            let q = self.b.op(Op::FDiv, TypeId::VEC4, &[v, d]);
            let one = self.b.splat(Scalar::F32, 4, 1f32.to_bits() as u64);
            v = self.b.op(Op::Select, TypeId::VEC4, &[d0, one, q]);
        }
        let v = self.b.swizzle(v, &s.swizzle.0);
        self.modify(v, s.modifier)
    }

    /// The vector a register's four variables hold as its components in order, when the
    /// register was written whole from it in this block (read with no extracts).
    #[inline]
    fn whole_vector(&self, vars: &[VarId; 4]) -> Option<Operand> {
        match self.b.peek_var(vars[0]) {
            Some((v, 0)) if (1..4u8).all(|c| self.b.peek_var(vars[c as usize]) == Some((v, c))) => {
                Some(v)
            }
            _ => None,
        }
    }

    /// A temp `r#` read through its swizzle straight from the component variables: the
    /// components the swizzle names, in its order, with no whole-register vector in between
    /// (`None` for other registers and for `_dz`/`_dw`, which divide before the swizzle).
    fn read_temp_swizzled(&mut self, s: &Source, lanes: u8) -> Option<Operand> {
        if !matches!(s.reg.ty, RT::Temp | RT::TempFloat16)
            || s.relative.is_some()
            || matches!(s.modifier, SM::Dz | SM::Dw)
        {
            return None;
        }
        let vars = self.regs.get(&(s.reg.ty, s.reg.num)).copied()?;
        let sel = s.swizzle.0;
        if let Some(v) = self.whole_vector(&vars) {
            return Some(self.b.swizzle(v, &sel));
        }
        if lanes != 0xf && lanes != 0 {
            return Some(self.read_some_lanes(&vars, sel, lanes));
        }
        let parts = sel.map(|c| self.b.load_var(vars[c as usize & 3]));
        Some(self.b.construct(&parts))
    }

    /// A temp read through swizzle `sel` where only the result lanes in `lanes` (some, not all)
    /// matter: when those lanes' components are components of one vec4 at their own places
    /// (a register partly written from one vector), that vector swizzled, its other lanes
    /// whatever it holds there; else a vector of the lanes' components, each lane that does
    /// not matter repeating the first that does (no extract made for it).
    fn read_some_lanes(&mut self, vars: &[VarId; 4], sel: [u8; 4], lanes: u8) -> Operand {
        let matter = |l: usize| lanes & (1 << l) != 0;
        let first = lanes.trailing_zeros() as usize & 3;
        let var = |l: usize| vars[sel[l] as usize & 3];
        if let Some((v, _)) = self.b.peek_var(var(first))
            && self.b.width_of(v) == 4
            && (0..4).all(|l| !matter(l) || self.b.peek_var(var(l)) == Some((v, sel[l])))
        {
            return self.b.swizzle(v, &sel);
        }
        let p0 = self.b.load_var(var(first));
        let mut parts = [p0; 4];
        for (l, part) in parts.iter_mut().enumerate() {
            if matter(l) && l != first {
                *part = self.b.load_var(var(l));
            }
        }
        self.b.construct(&parts)
    }

    /// Applies a source modifier to a float vec4.
    pub fn modify(&mut self, v: Operand, m: SM) -> R<Operand> {
        let c = |l: &mut Self, x: f32| l.b.splat(Scalar::F32, 4, x.to_bits() as u64);
        let neg = |l: &mut Self, x: Operand| l.b.op(Op::FNegate, TypeId::VEC4, &[x]);
        Ok(match m {
            SM::None | SM::Dz | SM::Dw => v,
            SM::Neg => neg(self, v),
            SM::Bias | SM::BiasNeg => {
                let h = c(self, 0.5);
                let x = self.b.op(Op::FSub, TypeId::VEC4, &[v, h]);
                if m == SM::BiasNeg { neg(self, x) } else { x }
            }
            SM::Sign | SM::SignNeg => {
                let two = c(self, 2.0);
                let one = c(self, 1.0);
                let x = self.b.op(Op::FMul, TypeId::VEC4, &[v, two]);
                let x = self.b.op(Op::FSub, TypeId::VEC4, &[x, one]);
                if m == SM::SignNeg { neg(self, x) } else { x }
            }
            SM::Comp => {
                let one = c(self, 1.0);
                self.b.op(Op::FSub, TypeId::VEC4, &[one, v])
            }
            SM::X2 | SM::X2Neg => {
                let x = self.b.op(Op::FAdd, TypeId::VEC4, &[v, v]);
                if m == SM::X2Neg { neg(self, x) } else { x }
            }
            SM::Abs | SM::AbsNeg => {
                let x = self.b.glsl(G::FAbs, TypeId::VEC4, &[v]);
                if m == SM::AbsNeg { neg(self, x) } else { x }
            }
            SM::Not => {
                return Err(self
                    .invalid("the not modifier on a float operand")
                    .with_rule(D3d9Rule::SourceModifier.name()));
            }
        })
    }

    /// Source `i` of `inst`.
    pub fn src(&self, inst: &Instruction, i: usize) -> R<Source> {
        inst.src
            .get(i)
            .copied()
            .ok_or_else(|| self.invalid(format!("{:?} lacks source {i}", inst.opcode)))
    }

    /// Source `i` of `inst`, read.
    pub fn read_src(&mut self, inst: &Instruction, i: usize) -> R<Operand> {
        let s = self.src(inst, i)?;
        // A component-wise instruction's result lane c depends on its sources' lane c only:
        // the lanes its destination does not write need no value.
        let lanes = match (inst.opcode, inst.dst) {
            (
                Opcode::Mov
                | Opcode::Add
                | Opcode::Sub
                | Opcode::Mul
                | Opcode::Mad
                | Opcode::Min
                | Opcode::Max
                | Opcode::Slt
                | Opcode::Sge
                | Opcode::Lrp
                | Opcode::Frc
                | Opcode::Sgn
                | Opcode::Abs
                | Opcode::Cmp,
                Some(d),
            ) => d.mask & 0xf,
            _ => 0xf,
        };
        self.read_lanes(&s, lanes)
    }

    /// The scalar a scalar instruction reads: the **w** of its swizzled source (the same as
    /// any component for the replicate swizzles the assembler writes; WINE's
    /// `test_scalar_instructions` pins w for the others).
    pub fn read_scalar(&mut self, inst: &Instruction, i: usize) -> R<Operand> {
        let v = self.read_src(inst, i)?;
        Ok(self.b.extract(v, 3))
    }

    /// A boolean condition from a `b#` or `p0` source (component `swizzle[0]`), with `not`.
    pub fn condition(&mut self, s: &Source) -> R<Operand> {
        let c = match s.reg.ty {
            RT::ConstBool => self.bool_const(s.reg.num),
            RT::Predicate => self.predicate(s, 0)?,
            _ => {
                return Err(self.invalid(format!(
                    "{} as a condition (only b# and p0)",
                    self.reg_name(s.reg)
                )));
            }
        };
        Ok(match s.modifier {
            SM::None => c,
            SM::Not if s.reg.ty == RT::ConstBool => self.b.op(Op::LogicalNot, TypeId::BOOL, &[c]),
            SM::Not => c,
            _ => return Err(self.invalid("a modifier other than not on a condition")),
        })
    }

    /// Component `swizzle[c]` of `p0` (negated by `not`).
    pub fn predicate(&mut self, p: &Source, c: usize) -> R<Operand> {
        if p.reg.ty != RT::Predicate {
            return Err(self.invalid("a predicate that is not p0"));
        }
        let comp = p.swizzle.0[c] as usize;
        let v = match self.regs.get(&(RT::Predicate, 0)) {
            Some(vars) => {
                let var = vars[comp];
                self.b.load_var(var)
            }
            None => self.b.boolc(false),
        };
        Ok(if p.modifier == SM::Not {
            self.b.op(Op::LogicalNot, TypeId::BOOL, &[v])
        } else {
            v
        })
    }

    /// Stores `value` in `var`, or holds it back while a co-issued pair is lowered.
    pub fn set_var(&mut self, var: VarId, value: Operand) {
        match &mut self.pending {
            Some(p) => p.push((var, value)),
            None => self.b.store_var(var, value),
        }
    }

    /// Performs the stores held back for a co-issued pair.
    pub fn flush_pending(&mut self) {
        if let Some(p) = self.pending.take() {
            for (var, value) in p {
                self.b.store_var(var, value);
            }
        }
    }

    /// Writes a float vec4 result to `inst`'s destination: ps_1_x shift, `_sat`, write mask,
    /// predicate; `a0` takes it floored (`mov`, vs_1_x) or rounded (`mova`).
    pub fn write(&mut self, inst: &Instruction, value: Operand) -> R<()> {
        let dst = inst
            .dst
            .ok_or_else(|| self.invalid("instruction without a destination"))?;
        let mut v = value;
        if dst.shift != 0 {
            if !self.ps1() {
                return Err(self
                    .invalid("a result shift outside ps_1_x")
                    .with_rule(D3d9Rule::ResultShift.name()));
            }
            let f = match dst.shift {
                1..=3 => (1u32 << dst.shift) as f32,
                -3..=-1 => 1.0 / (1u32 << -dst.shift) as f32,
                s => {
                    return Err(self
                        .invalid(format!("result shift {s}"))
                        .with_rule(D3d9Rule::ResultShift.name()));
                }
            };
            let k = self.b.splat(Scalar::F32, 4, f.to_bits() as u64);
            v = self.b.op(Op::FMul, TypeId::VEC4, &[v, k]);
        }
        if dst.saturate {
            v = self.saturate(v);
        }
        let key = (dst.reg.ty, dst.reg.num);
        let scalar = self.var_scalar(dst.reg.ty);
        if scalar == Scalar::I32 && dst.reg.ty == RT::AddrOrTexture {
            // `mova` rounds to nearest (halves up), `mov a0` (vs_1_x) floors; negatives too.
            if inst.opcode == Opcode::MovA {
                let h = self.b.splat(Scalar::F32, 4, 0.5f32.to_bits() as u64);
                v = self.b.op(Op::FAdd, TypeId::VEC4, &[v, h]);
            }
            let fl = self.b.glsl(G::Floor, TypeId::VEC4, &[v]);
            v = self
                .b
                .op(Op::ConvertFToS, TypeTable::vec(Scalar::I32, 4), &[fl]);
        } else if scalar != Scalar::F32 {
            return Err(self.invalid(format!(
                "{} written by {:?}",
                self.reg_name(dst.reg),
                inst.opcode
            )));
        }
        if let Some(rel) = &dst.relative {
            return self.write_relative_output(inst, dst.reg.num, rel, dst.mask, v);
        }
        let vars = *self
            .regs
            .get(&key)
            .ok_or_else(|| self.invalid("write to an undeclared register"))?;
        for c in 0..4u8 {
            if dst.mask & (1 << c) == 0 {
                continue;
            }
            if inst.predicate.is_none() && self.pending.is_none() {
                // The component is extracted only when something reads it alone.
                self.b.store_var_component(vars[c as usize], v, c);
                continue;
            }
            let x = self.b.extract(v, c);
            let x = self.predicated(inst, c, vars[c as usize], x)?;
            self.set_var(vars[c as usize], x);
        }
        Ok(())
    }

    /// `x`, or the variable's old value where the instruction's predicate is false.
    pub fn predicated(&mut self, inst: &Instruction, c: u8, var: VarId, x: Operand) -> R<Operand> {
        let Some(p) = inst.predicate else {
            return Ok(x);
        };
        let cond = self.predicate(&p, c as usize)?;
        let old = self.b.load_var(var);
        let ty = self.b.type_of(x);
        Ok(self.b.op(Op::Select, ty, &[cond, x, old]))
    }

    /// `o[aL + n]` (vs_3_0): each declared output register takes the value where the index
    /// names it.
    fn write_relative_output(
        &mut self,
        inst: &Instruction,
        base: u16,
        rel: &Relative,
        mask: u8,
        v: Operand,
    ) -> R<()> {
        let idx = self.rel_index(rel)?;
        let b = self.b.i32c(base.into());
        let idx = self.b.op(Op::IAdd, TypeId::I32, &[idx, b]);
        let regs: Vec<(RT, u16)> = self.io.declared_outputs.clone();
        for key in regs {
            let Some(vars) = self.regs.get(&key).copied() else {
                continue;
            };
            let k = self.b.i32c(key.1.into());
            let eq = self.b.op(Op::IEqual, TypeId::BOOL, &[idx, k]);
            for c in 0..4u8 {
                if mask & (1 << c) == 0 {
                    continue;
                }
                let x = self.b.extract(v, c);
                let x = self.predicated(inst, c, vars[c as usize], x)?;
                let old = self.b.load_var(vars[c as usize]);
                let x = self.b.op(Op::Select, TypeId::F32, &[eq, x, old]);
                self.set_var(vars[c as usize], x);
            }
        }
        Ok(())
    }
}
