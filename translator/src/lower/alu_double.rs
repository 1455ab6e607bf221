//! Double-precision instructions (SM5.0 `d*`, `dtof`/`ftod`, SM5.0+ `dtoi`/`dtou`/`itod`/`utod`).
//!
//! A double occupies a pair of 32-bit components: `.xy` holds one (x = low 32 bits, y = high)
//! and `.zw` another, both for registers and, after swizzling, for sources (D3D11.3 functional
//! spec §22.14 and the SM5 instruction reference). Registers stay `u32` components; a double
//! source is read as the two `u32`s of each pair and bitcast to `double`, results are bitcast
//! back. The pairing rules:
//!
//! - double destination (`.xy`, `.zw`, `.xyzw`): pair k (0 = xy, 1 = zw) is computed from the
//!   double in swizzle positions 2k, 2k+1 of each double source, or from swizzle position k of a
//!   32-bit source (`ftod`, `itod`, `utod`, `dmovc`'s condition);
//! - 32-bit destination with double sources (`dtof`, `dtoi`, `dtou`, `deq`, ...; one or two
//!   components): the n-th written component receives the n-th double of the sources.
//!
//! Source modifiers act on the double; moves without modifiers copy bits. Comparisons follow the
//! float ones (ordered, `dne` unordered); `dmin`/`dmax` return the non-NaN operand; `dtoi`/`dtou`
//! round toward zero, saturate and map NaN to 0 like `ftoi`/`ftou` (SPIR-V leaves out-of-range
//! conversions undefined). The module needs the Float64 capability and the `shaderFloat64`
//! device feature.

use smallvec::SmallVec;
use spirv::{GlslStd450Op as Glsl, Op};

use super::alu::{dst_mask, without_modifier};
use super::{Lowerer, R};
use crate::ir::{Operand, Scalar, TypeTable};
use crate::sm4::{Components, InstRef, Opcode, Operand as Sm4Operand, OperandType};

impl<'p, 'm> Lowerer<'p, 'm> {
    /// Lowers a double-precision instruction; false when `inst` is not one.
    pub(super) fn alu_double(&mut self, inst: &InstRef<'p>) -> R<bool> {
        use Scalar::*;
        match inst.opcode {
            Opcode::DAdd
            | Opcode::DMul
            | Opcode::DDiv
            | Opcode::DMax
            | Opcode::DMin
            | Opcode::DFma
            | Opcode::DRcp
            | Opcode::DMov
            | Opcode::DMovc
            | Opcode::DEq
            | Opcode::DGe
            | Opcode::DLt
            | Opcode::DNe
            | Opcode::DtoF
            | Opcode::FtoD
            | Opcode::DtoI
            | Opcode::DtoU
            | Opcode::ItoD
            | Opcode::UtoD => {}
            _ => return Ok(false),
        }
        if self.opts.device_features.is_some_and(|f| !f.float64) {
            return Err(self.unsupported(
                "double-precision instructions: the device lacks shaderFloat64 (DeviceFeatures::float64)",
            ));
        }
        self.b.m.capability(spirv::Capability::Float64);
        self.need_feature("shaderFloat64");
        match inst.opcode {
            Opcode::DAdd => self.double_arith(inst, Arith::Op(Op::FAdd), 2)?,
            Opcode::DMul => self.double_arith(inst, Arith::Op(Op::FMul), 2)?,
            Opcode::DDiv => self.double_arith(inst, Arith::Op(Op::FDiv), 2)?,
            Opcode::DMax => self.double_arith(inst, Arith::Glsl(Glsl::NMax), 2)?,
            Opcode::DMin => self.double_arith(inst, Arith::Glsl(Glsl::NMin), 2)?,
            Opcode::DFma => self.double_arith(inst, Arith::Glsl(Glsl::Fma), 3)?,
            Opcode::DRcp => self.double_arith(inst, Arith::Rcp, 1)?,
            Opcode::DMov => self.dmov(inst)?,
            Opcode::DMovc => self.dmovc(inst)?,
            Opcode::DEq => self.double_compare(inst, Op::FOrdEqual)?,
            Opcode::DGe => self.double_compare(inst, Op::FOrdGreaterThanEqual)?,
            Opcode::DLt => self.double_compare(inst, Op::FOrdLessThan)?,
            Opcode::DNe => self.double_compare(inst, Op::FUnordNotEqual)?,
            Opcode::DtoF => self.double_to_single(inst, F32)?,
            Opcode::DtoI => self.double_to_single(inst, I32)?,
            Opcode::DtoU => self.double_to_single(inst, U32)?,
            Opcode::FtoD => self.single_to_double(inst, F32)?,
            Opcode::ItoD => self.single_to_double(inst, I32)?,
            Opcode::UtoD => self.single_to_double(inst, U32)?,
            _ => unreachable!("filtered above"),
        }
        Ok(true)
    }

    /// The double pairs a double destination writes (0 = xy, 1 = zw).
    fn double_slots(&self, dst: &Sm4Operand) -> R<SmallVec<[u8; 2]>> {
        let mask = dst_mask(dst);
        let lo = mask & 3;
        let hi = mask & 12;
        if !matches!(lo, 0 | 3) || !matches!(hi, 0 | 12) || mask == 0 {
            return Err(self.invalid(format!(
                "double destination mask {mask:#x} is not .xy, .zw or .xyzw"
            )));
        }
        let mut s = SmallVec::new();
        if lo != 0 {
            s.push(0);
        }
        if hi != 0 {
            s.push(1);
        }
        Ok(s)
    }

    /// The doubles a 32-bit destination receives: one per written component, at most two.
    fn single_slots(&self, dst: &Sm4Operand) -> R<SmallVec<[u8; 2]>> {
        let n = dst_mask(dst).count_ones();
        if n == 0 || n > 2 {
            return Err(self.invalid(format!(
                "{n} destination components for a double-precision source (1 or 2 allowed)"
            )));
        }
        Ok((0..n as u8).collect())
    }

    /// The raw bits (a `u32` vector, low word first) of the doubles in `slots` of a double
    /// source, without its modifier. Immediates become constants.
    fn read_double_bits(&mut self, op: &Sm4Operand, slots: &[u8]) -> R<Operand> {
        if matches!(op.components, Components::One | Components::Zero) {
            if op.ty == OperandType::Immediate64 {
                let w = op.immediate_words();
                let (lo, hi) = (w[0] as u64, w[1] as u64);
                let bits: SmallVec<[u64; 4]> = slots.iter().flat_map(|_| [lo, hi]).collect();
                return Ok(Operand::Const(self.b.m.consts.vector(Scalar::U32, &bits)));
            }
            return Err(self.invalid("a one-component operand cannot hold a double"));
        }
        let swz = op.swizzle();
        let comps: SmallVec<[u8; 4]> = slots
            .iter()
            .flat_map(|&k| [swz[2 * k as usize], swz[2 * k as usize + 1]])
            .collect();
        if op.ty == OperandType::Immediate64 {
            let w = op.immediate_words();
            let bits: SmallVec<[u64; 4]> = comps
                .iter()
                .map(|&c| w.get(c as usize & 3).copied().unwrap_or(0) as u64)
                .collect();
            return Ok(Operand::Const(self.b.m.consts.vector(Scalar::U32, &bits)));
        }
        self.read_comps(&without_modifier(op), &comps, Scalar::U32)
    }

    /// The doubles in `slots` of a double source, as a `double` scalar or vector, with the
    /// source modifier applied.
    fn read_double(&mut self, op: &Sm4Operand, slots: &[u8]) -> R<Operand> {
        let n = slots.len() as u8;
        let dty = TypeTable::vec(Scalar::F64, n);
        let m = op.modifier;
        let bits = self.read_double_bits(op, slots)?;
        // Constant doubles are made directly (with the modifier folded into the sign bit).
        if let Operand::Const(c) = bits {
            let words: SmallVec<[u64; 4]> = (0..2 * n)
                .map(|i| {
                    let k = self.b.m.consts.component(c, i, &self.b.m.types);
                    k.and_then(|k| self.b.m.consts.scalar_bits(k)).unwrap_or(0)
                })
                .collect();
            let vals: SmallVec<[u64; 4]> = words
                .chunks(2)
                .map(|w| {
                    let mut v = w[0] | (w[1] << 32);
                    if m.abs() {
                        v &= !(1u64 << 63);
                    }
                    if m.neg() {
                        v ^= 1u64 << 63;
                    }
                    v
                })
                .collect();
            return Ok(Operand::Const(self.b.m.consts.vector(Scalar::F64, &vals)));
        }
        let mut v = self.b.bitcast(dty, bits);
        if m.abs() {
            v = self.b.glsl(Glsl::FAbs, dty, &[v]);
        }
        if m.neg() {
            v = self.b.op(Op::FNegate, dty, &[v]);
        }
        Ok(v)
    }

    /// Components `slots` (swizzle positions) of a 32-bit source, as `s`, with modifiers.
    fn read_single_at(&mut self, op: &Sm4Operand, slots: &[u8], s: Scalar) -> R<Operand> {
        let swz = op.swizzle();
        let comps: SmallVec<[u8; 2]> = slots.iter().map(|&k| swz[k as usize]).collect();
        self.read_comps(op, &comps, s)
    }

    /// Writes doubles to a double destination, saturating first when `sat` (§22.19.1: NaN
    /// → 0).
    fn write_double(&mut self, dst: &Sm4Operand, v: Operand, n: u8, sat: bool) -> R<()> {
        let dty = TypeTable::vec(Scalar::F64, n);
        let mut v = v;
        if sat {
            let zero = self.b.splat(Scalar::F64, n, 0);
            let one = self.b.splat(Scalar::F64, n, 1.0f64.to_bits());
            v = self.b.glsl(Glsl::NClamp, dty, &[v, zero, one]);
        }
        let raw = self.b.bitcast(TypeTable::vec(Scalar::U32, 2 * n), v);
        self.write(dst, raw, Scalar::U32, false)
    }

    /// dst = f(srcs...) on doubles.
    fn double_arith(&mut self, inst: &InstRef<'p>, f: Arith, nsrc: usize) -> R<()> {
        let dst = &inst.operands[0];
        let slots = self.double_slots(dst)?;
        let n = slots.len() as u8;
        let dty = TypeTable::vec(Scalar::F64, n);
        let mut args: SmallVec<[Operand; 3]> = SmallVec::new();
        for i in 0..nsrc {
            args.push(self.read_double(&inst.operands[1 + i], &slots)?);
        }
        let r = match f {
            Arith::Op(op) => self.b.op(op, dty, &args),
            Arith::Glsl(g) => self.b.glsl(g, dty, &args),
            Arith::Rcp => {
                let one = self.b.splat(Scalar::F64, n, 1.0f64.to_bits());
                self.b.op(Op::FDiv, dty, &[one, args[0]])
            }
        };
        self.write_double(dst, r, n, inst.saturate)
    }

    /// `dmov`: a bit copy unless a modifier or `_sat` makes it arithmetic.
    fn dmov(&mut self, inst: &InstRef<'p>) -> R<()> {
        let dst = &inst.operands[0];
        let src = &inst.operands[1];
        let slots = self.double_slots(dst)?;
        if src.modifier.abs() || src.modifier.neg() || inst.saturate {
            let v = self.read_double(src, &slots)?;
            return self.write_double(dst, v, slots.len() as u8, inst.saturate);
        }
        let bits = self.read_double_bits(src, &slots)?;
        self.write(dst, bits, Scalar::U32, false)
    }

    /// `dmovc dst, cond, a, b`: pair k tests 32-bit condition component k (post-swizzle).
    fn dmovc(&mut self, inst: &InstRef<'p>) -> R<()> {
        let dst = &inst.operands[0];
        let slots = self.double_slots(dst)?;
        let n = slots.len() as u8;
        let c = self.read_single_at(&inst.operands[1], &slots, Scalar::U32)?;
        let cond = self.nonzero(c, n);
        let arith = inst.saturate
            || inst.operands[2..4]
                .iter()
                .any(|o| o.modifier.abs() || o.modifier.neg());
        if arith {
            let a = self.read_double(&inst.operands[2], &slots)?;
            let b = self.read_double(&inst.operands[3], &slots)?;
            let dty = TypeTable::vec(Scalar::F64, n);
            let r = self.b.op(Op::Select, dty, &[cond, a, b]);
            return self.write_double(dst, r, n, inst.saturate);
        }
        // Bit copy: select whole pairs of u32 (the condition repeated for both halves).
        let a = self.read_double_bits(&inst.operands[2], &slots)?;
        let b = self.read_double_bits(&inst.operands[3], &slots)?;
        let cond2: SmallVec<[Operand; 4]> = (0..n)
            .flat_map(|i| {
                let ci = self.b.extract(cond, i);
                [ci, ci]
            })
            .collect();
        let cond2 = self.b.construct(&cond2);
        let uty = TypeTable::vec(Scalar::U32, 2 * n);
        let r = self.b.op(Op::Select, uty, &[cond2, a, b]);
        self.write(dst, r, Scalar::U32, false)
    }

    /// `deq`/`dge`/`dlt`/`dne`: 32-bit 0xffffffff/0 results, one per double compared.
    fn double_compare(&mut self, inst: &InstRef<'p>, op: Op) -> R<()> {
        let dst = &inst.operands[0];
        let slots = self.single_slots(dst)?;
        let n = slots.len() as u8;
        let a = self.read_double(&inst.operands[1], &slots)?;
        let b = self.read_double(&inst.operands[2], &slots)?;
        let c = self.b.op(op, TypeTable::vec(Scalar::Bool, n), &[a, b]);
        let r = self.bool_to_mask(c, n);
        self.write(dst, r, Scalar::U32, false)
    }

    /// `dtof`/`dtoi`/`dtou`: doubles to 32-bit values, one per written component.
    fn double_to_single(&mut self, inst: &InstRef<'p>, s: Scalar) -> R<()> {
        let dst = &inst.operands[0];
        let slots = self.single_slots(dst)?;
        let n = slots.len() as u8;
        let x = self.read_double(&inst.operands[1], &slots)?;
        // Integer results are typed u32 (ConvertFToS takes either signedness).
        let rs = if s == Scalar::F32 { s } else { Scalar::U32 };
        let ty = TypeTable::vec(rs, n);
        let dty = TypeTable::vec(Scalar::F64, n);
        let r = match s {
            // Round to nearest even (dtof reference); overflow gives ±inf as IEEE does.
            Scalar::F32 => self.b.op(Op::FConvert, ty, &[x]),
            Scalar::U32 => {
                // NClamp maps NaN to the lower bound, 0; both bounds are exact doubles.
                let lo = self.b.splat(Scalar::F64, n, 0.0f64.to_bits());
                let hi = self.b.splat(Scalar::F64, n, 4294967295.0f64.to_bits());
                let c = self.b.glsl(Glsl::NClamp, dty, &[x, lo, hi]);
                self.b.op(Op::ConvertFToU, ty, &[c])
            }
            _ => {
                let lo = self.b.splat(Scalar::F64, n, (-2147483648.0f64).to_bits());
                let hi = self.b.splat(Scalar::F64, n, 2147483647.0f64.to_bits());
                let c = self.b.glsl(Glsl::NClamp, dty, &[x, lo, hi]);
                let conv = self.b.op(Op::ConvertFToS, ty, &[c]);
                let nan = self.b.op(Op::IsNan, TypeTable::vec(Scalar::Bool, n), &[x]);
                let zero = self.b.splat(rs, n, 0);
                self.b.op(Op::Select, ty, &[nan, zero, conv])
            }
        };
        let sat = inst.saturate && s == Scalar::F32;
        self.write(dst, r, rs, sat)
    }

    /// `ftod`/`itod`/`utod`: pair k from 32-bit source component k (exact conversions).
    fn single_to_double(&mut self, inst: &InstRef<'p>, s: Scalar) -> R<()> {
        let dst = &inst.operands[0];
        let slots = self.double_slots(dst)?;
        let n = slots.len() as u8;
        // Integer sources are read as u32 (ConvertSToF takes either signedness).
        let rs = if s == Scalar::F32 { s } else { Scalar::U32 };
        let x = self.read_single_at(&inst.operands[1], &slots, rs)?;
        let op = match s {
            Scalar::F32 => Op::FConvert,
            Scalar::I32 => Op::ConvertSToF,
            _ => Op::ConvertUToF,
        };
        let r = self.b.op(op, TypeTable::vec(Scalar::F64, n), &[x]);
        self.write_double(dst, r, n, inst.saturate)
    }
}

/// The operation of a double arithmetic instruction.
#[derive(Clone, Copy)]
enum Arith {
    Op(Op),
    Glsl(Glsl),
    /// 1.0 / x.
    Rcp,
}
