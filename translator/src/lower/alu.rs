//! Arithmetic, logic and move instructions, with D3D's semantics where SPIR-V's differ.
//!
//! Every ALU opcode of SM4.0–5.0 is lowered here or in the topic modules beside this one:
//! [`super::alu_bits`] (shifts, bit fields, bit scans, `msad`), [`super::alu_convert`]
//! (float/int/half conversions) and [`super::alu_double`] (double precision). This module holds
//! the dispatch, the shared helpers and the float/integer arithmetic. Each instruction works on
//! whole vectors across its destination mask, so one D3D instruction is usually one SPIR-V
//! instruction. The decisions are documented in `docs/semantics.md`, by D3D11.3 functional
//! spec section:
//!
//! - `min`/`max` use NMin/NMax (one NaN operand yields the other, §22.10.10-11); `_sat` uses
//!   NClamp (NaN → 0, §22.19.1);
//! - comparisons produce `0xffffffff`/`0` and are ordered except `ne` (unordered, §22.6);
//! - `movc`/`swapc` test all bits of the condition and move bits unchanged (§22.9.2);
//! - `udiv` by zero gives `0xffffffff` for both results (§22.12.9);
//! - multi-destination instructions compute every result before writing any, since a
//!   destination may alias a source (`imul`, `umul`, `udiv`, `uaddc`, `usubb`, `sincos`,
//!   `swapc`);
//! - `sincos` reduces its argument to [-π, π] first: Vulkan bounds the error of Sin/Cos only
//!   there, D3D on [-100π, 100π] (§22.10.20).

use smallvec::SmallVec;
use spirv::{GlslStd450Op as Glsl, Op};

use super::{Lowerer, R};
use crate::ir::{Operand, Scalar, Type, TypeId, TypeTable};
use crate::sm4::{Components, InstRef, Modifier, Opcode, Operand as Sm4Operand, OperandType};

/// How a simple instruction maps to SPIR-V.
#[derive(Clone, Copy)]
pub(super) enum Map {
    Op(Op),
    Glsl(Glsl),
}

/// The write mask of a destination (scalar operands write one component).
pub(super) fn dst_mask(dst: &Sm4Operand) -> u8 {
    match dst.components {
        Components::One | Components::Zero => 1,
        _ => dst.mask(),
    }
}

/// The number of components a destination writes (at least 1).
pub(super) fn dst_width(dst: &Sm4Operand) -> u8 {
    dst_mask(dst).count_ones().max(1) as u8
}

/// Whether an operand is `null` (an unused destination).
pub(super) fn is_null(op: &Sm4Operand) -> bool {
    op.ty == OperandType::Null
}

/// `op` without its source modifier (for reading raw bits).
pub(super) fn without_modifier(op: &Sm4Operand) -> Sm4Operand {
    let mut o = *op;
    o.modifier = Modifier::None;
    o
}

/// Results of a multi-destination instruction, written only after all are computed.
pub(super) type Pending = SmallVec<[(usize, Operand, Scalar); 2]>;

impl<'p, 'm> Lowerer<'p, 'm> {
    /// A struct of two `ty` members: the result type of the extended arithmetic instructions.
    /// Such structs carry no decorations, so one type serves every use (`unique` 0 is never
    /// handed out by `new_struct`).
    pub(super) fn pair_struct(&mut self, ty: TypeId) -> TypeId {
        self.b.m.types.intern(Type::Struct {
            members: vec![ty, ty],
            unique: 0,
        })
    }

    /// Emits a mapped operation on `args` with result type `ty`.
    pub(super) fn apply_map(&mut self, map: Map, ty: TypeId, args: &[Operand]) -> Operand {
        match map {
            Map::Op(op) => self.b.op(op, ty, args),
            Map::Glsl(g) => self.b.glsl(g, ty, args),
        }
    }

    /// dst = op(srcs...), component-wise, all operands of scalar kind `s`.
    pub(super) fn simple(&mut self, inst: &InstRef<'p>, s: Scalar, map: Map, nsrc: usize) -> R<()> {
        self.simple_to(inst, s, s, map, nsrc)
    }

    /// dst = op(srcs...) with sources of kind `s` and a result of kind `rs`.
    pub(super) fn simple_to(
        &mut self,
        inst: &InstRef<'p>,
        s: Scalar,
        rs: Scalar,
        map: Map,
        nsrc: usize,
    ) -> R<()> {
        let dst = &inst.operands[0];
        let mask = dst_mask(dst);
        let ty = TypeTable::vec(rs, dst_width(dst));
        // A fixed array: these operations take at most three sources.
        let mut args = [Operand::Lit(0); 3];
        let args = &mut args[..nsrc];
        for (i, a) in args.iter_mut().enumerate() {
            *a = self.read(&inst.operands[1 + i], mask, s)?;
        }
        let r = self.apply_map(map, ty, args);
        self.write(dst, r, rs, inst.saturate)
    }

    /// Writes the results of a multi-destination instruction (after all were computed).
    pub(super) fn write_pending(&mut self, inst: &InstRef<'p>, results: Pending) -> R<()> {
        for (k, r, s) in results {
            self.write(&inst.operands[k], r, s, inst.saturate && s == Scalar::F32)?;
        }
        Ok(())
    }

    /// A comparison: dst = cmp(a, b) ? 0xffffffff : 0.
    fn compare(&mut self, inst: &InstRef<'p>, s: Scalar, op: Op) -> R<()> {
        let dst = &inst.operands[0];
        let mask = dst_mask(dst);
        let n = dst_width(dst);
        let a = self.read(&inst.operands[1], mask, s)?;
        let b = self.read(&inst.operands[2], mask, s)?;
        let c = self.b.op(op, TypeTable::vec(Scalar::Bool, n), &[a, b]);
        let r = self.bool_to_mask(c, n);
        self.write(dst, r, Scalar::U32, false)
    }

    /// D3D's boolean form of a bool vector: 0xffffffff / 0 per component.
    pub fn bool_to_mask(&mut self, c: Operand, n: u8) -> Operand {
        let t = self.b.splat(Scalar::U32, n, 0xffff_ffff);
        let f = self.b.splat(Scalar::U32, n, 0);
        self.b
            .op(Op::Select, TypeTable::vec(Scalar::U32, n), &[c, t, f])
    }

    /// `x != 0` per component, as a bool vector.
    pub fn nonzero(&mut self, x: Operand, n: u8) -> Operand {
        let zero = self.b.splat(Scalar::U32, n, 0);
        self.b
            .op(Op::INotEqual, TypeTable::vec(Scalar::Bool, n), &[x, zero])
    }

    /// Dot product of the first `k` components; `_sat` applies to the scalar, which is then
    /// replicated across the mask (§22.10.3-5).
    fn dot(&mut self, inst: &InstRef<'p>, k: u8) -> R<()> {
        let a = self.read_n(&inst.operands[1], k, Scalar::F32)?;
        let b = self.read_n(&inst.operands[2], k, Scalar::F32)?;
        let r = self.b.op(Op::Dot, TypeId::F32, &[a, b]);
        self.write(&inst.operands[0], r, Scalar::F32, inst.saturate)
    }

    /// `movc`: the condition is "any bit set", never a float test (§22.9.2).
    fn movc(&mut self, inst: &InstRef<'p>) -> R<()> {
        let dst = &inst.operands[0];
        let mask = dst_mask(dst);
        let n = dst_width(dst);
        let c = self.read(&inst.operands[1], mask, Scalar::U32)?;
        let cond = self.nonzero(c, n);
        let s = self.move_type(&inst.operands[2..4], inst.saturate);
        let a = self.read(&inst.operands[2], mask, s)?;
        let b = self.read(&inst.operands[3], mask, s)?;
        let r = self.b.op(Op::Select, TypeTable::vec(s, n), &[cond, a, b]);
        self.write(dst, r, s, inst.saturate)
    }

    /// `swapc dst0, dst1, c, a, b`: dst0 = c ? b : a, dst1 = c ? a : b, from the old values.
    fn swapc(&mut self, inst: &InstRef<'p>) -> R<()> {
        let s = self.move_type(&inst.operands[3..5], inst.saturate);
        let mut results = Pending::new();
        for k in 0..2usize {
            let dst = &inst.operands[k];
            if is_null(dst) {
                continue;
            }
            let mask = dst_mask(dst);
            let n = dst_width(dst);
            let c = self.read(&inst.operands[2], mask, Scalar::U32)?;
            let a = self.read(&inst.operands[3], mask, s)?;
            let b = self.read(&inst.operands[4], mask, s)?;
            let cond = self.nonzero(c, n);
            let (t, f) = if k == 0 { (b, a) } else { (a, b) };
            let r = self.b.op(Op::Select, TypeTable::vec(s, n), &[cond, t, f]);
            results.push((k, r, s));
        }
        self.write_pending(inst, results)
    }

    /// The type a move reads its sources as: float when a source modifier or `_sat` needs
    /// it, raw bits otherwise (plain moves are bit-exact, §3.1.3.2).
    fn move_type(&self, srcs: &[Sm4Operand], sat: bool) -> Scalar {
        if sat || srcs.iter().any(|o| o.modifier != Modifier::None) {
            Scalar::F32
        } else {
            Scalar::U32
        }
    }

    /// `sincos dstSin, dstCos, src` (§22.10.20). Either destination may be null. The argument
    /// is reduced to [-π, π] (x - 2π·round(x / 2π)) because Vulkan bounds the error of Sin and
    /// Cos only there; ±inf and NaN stay NaN through the reduction, as D3D wants.
    fn sincos(&mut self, inst: &InstRef<'p>) -> R<()> {
        let mut results = Pending::new();
        let mut reduced: Option<(u8, Operand)> = None;
        for (k, func) in [(0usize, Glsl::Sin), (1, Glsl::Cos)] {
            let dst = &inst.operands[k];
            if is_null(dst) {
                continue;
            }
            let mask = dst_mask(dst);
            let n = dst_width(dst);
            let ty = TypeTable::vec(Scalar::F32, n);
            let x = match reduced {
                Some((m, x)) if m == mask => x,
                _ => {
                    let x = self.read(&inst.operands[2], mask, Scalar::F32)?;
                    let inv_2pi = self.b.splat(
                        Scalar::F32,
                        n,
                        (0.5 * std::f32::consts::FRAC_1_PI).to_bits() as u64,
                    );
                    let neg_2pi =
                        self.b
                            .splat(Scalar::F32, n, (-std::f32::consts::TAU).to_bits() as u64);
                    let turns = self.b.op(Op::FMul, ty, &[x, inv_2pi]);
                    let k = self.b.glsl(Glsl::RoundEven, ty, &[turns]);
                    let r = self.b.glsl(Glsl::Fma, ty, &[k, neg_2pi, x]);
                    reduced = Some((mask, r));
                    r
                }
            };
            let r = self.b.glsl(func, ty, &[x]);
            results.push((k, r, Scalar::F32));
        }
        self.write_pending(inst, results)
    }

    /// `imul`/`umul destHi, destLo, a, b` (§22.12.6, §22.12.13): one extended multiply gives
    /// both halves; a lone low half is a plain IMul.
    fn mul_extended(&mut self, inst: &InstRef<'p>, signed: bool) -> R<()> {
        let s = Scalar::U32;
        let (hi, lo) = (&inst.operands[0], &inst.operands[1]);
        let mut results = Pending::new();
        let same = !is_null(hi) && !is_null(lo) && dst_mask(hi) == dst_mask(lo);
        for (k, dst) in [(0usize, hi), (1, lo)] {
            if is_null(dst) || (same && k == 1) {
                continue;
            }
            let mask = dst_mask(dst);
            let ty = TypeTable::vec(s, dst_width(dst));
            let a = self.read(&inst.operands[2], mask, s)?;
            let b = self.read(&inst.operands[3], mask, s)?;
            if k == 1 {
                results.push((1, self.b.op(Op::IMul, ty, &[a, b]), s));
                continue;
            }
            let st = self.pair_struct(ty);
            let op = if signed {
                Op::SMulExtended
            } else {
                Op::UMulExtended
            };
            let both = self.b.op(op, st, &[a, b]);
            let h = self
                .b
                .op(Op::CompositeExtract, ty, &[both, Operand::Lit(1)]);
            results.push((0, h, s));
            if same {
                let l = self
                    .b
                    .op(Op::CompositeExtract, ty, &[both, Operand::Lit(0)]);
                results.push((1, l, s));
            }
        }
        self.write_pending(inst, results)
    }

    /// `udiv destQuot, destRem, a, b` (§22.12.9): division by zero gives 0xffffffff for both.
    /// SPIR-V's UDiv/UMod by zero is undefined behaviour, so the divisor is made safe first.
    fn udiv(&mut self, inst: &InstRef<'p>) -> R<()> {
        let u = Scalar::U32;
        let mut results = Pending::new();
        let mut shared: Option<(u8, Operand, Operand, Operand)> = None;
        for k in 0..2usize {
            let dst = &inst.operands[k];
            if is_null(dst) {
                continue;
            }
            let mask = dst_mask(dst);
            let n = dst_width(dst);
            let ty = TypeTable::vec(u, n);
            let (a, safe, is_zero) = match shared {
                Some((m, a, safe, z)) if m == mask => (a, safe, z),
                _ => {
                    let a = self.read(&inst.operands[2], mask, u)?;
                    let b = self.read(&inst.operands[3], mask, u)?;
                    let zero = self.b.splat(u, n, 0);
                    let z = self
                        .b
                        .op(Op::IEqual, TypeTable::vec(Scalar::Bool, n), &[b, zero]);
                    let one = self.b.splat(u, n, 1);
                    let safe = self.b.op(Op::Select, ty, &[z, one, b]);
                    shared = Some((mask, a, safe, z));
                    (a, safe, z)
                }
            };
            let op = if k == 0 { Op::UDiv } else { Op::UMod };
            let q = self.b.op(op, ty, &[a, safe]);
            let all = self.b.splat(u, n, 0xffff_ffff);
            results.push((k, self.b.op(Op::Select, ty, &[is_zero, all, q]), u));
        }
        self.write_pending(inst, results)
    }

    /// `uaddc dst, carry, a, b` / `usubb dst, borrow, a, b` (§22.12.8, §22.12.14): the carry
    /// (borrow) is 1 or 0; IAddCarry/ISubBorrow compute exactly that (borrow = a < b).
    fn add_carry(&mut self, inst: &InstRef<'p>, op: Op) -> R<()> {
        let u = Scalar::U32;
        let mut results = Pending::new();
        let mut shared: Option<(u8, Operand)> = None;
        for k in 0..2usize {
            let dst = &inst.operands[k];
            if is_null(dst) {
                continue;
            }
            let mask = dst_mask(dst);
            let ty = TypeTable::vec(u, dst_width(dst));
            let both = match shared {
                Some((m, both)) if m == mask => both,
                _ => {
                    let a = self.read(&inst.operands[2], mask, u)?;
                    let b = self.read(&inst.operands[3], mask, u)?;
                    let st = self.pair_struct(ty);
                    let both = self.b.op(op, st, &[a, b]);
                    shared = Some((mask, both));
                    both
                }
            };
            let r = self
                .b
                .op(Op::CompositeExtract, ty, &[both, Operand::Lit(k as u32)]);
            results.push((k, r, u));
        }
        self.write_pending(inst, results)
    }

    /// `mad`/`imad`/`umad`: a multiply then an add (fusion is the driver's choice, §22.10.9;
    /// `precise` forbids it through NoContraction).
    fn mad(&mut self, inst: &InstRef<'p>, s: Scalar) -> R<()> {
        let dst = &inst.operands[0];
        let mask = dst_mask(dst);
        let ty = TypeTable::vec(s, dst_width(dst));
        let a = self.read(&inst.operands[1], mask, s)?;
        let b = self.read(&inst.operands[2], mask, s)?;
        let c = self.read(&inst.operands[3], mask, s)?;
        let (mul, add) = if s == Scalar::F32 {
            (Op::FMul, Op::FAdd)
        } else {
            (Op::IMul, Op::IAdd)
        };
        let p = self.b.op(mul, ty, &[a, b]);
        let r = self.b.op(add, ty, &[p, c]);
        self.write(dst, r, s, inst.saturate && s == Scalar::F32)
    }

    /// `rcp` (§22.10.18): 1/x. ±0 → ±inf and ±inf → ±0 as IEEE division gives them.
    fn rcp(&mut self, inst: &InstRef<'p>) -> R<()> {
        let dst = &inst.operands[0];
        let mask = dst_mask(dst);
        let n = dst_width(dst);
        let x = self.read(&inst.operands[1], mask, Scalar::F32)?;
        let one = self.b.splat(Scalar::F32, n, 1.0f32.to_bits() as u64);
        let r = self
            .b
            .op(Op::FDiv, TypeTable::vec(Scalar::F32, n), &[one, x]);
        self.write(dst, r, Scalar::F32, inst.saturate)
    }

    /// Derivatives (pixel shaders only).
    fn derivative(&mut self, inst: &InstRef<'p>) -> R<()> {
        if self.stage != crate::reflect::ShaderStage::Pixel {
            return Err(self.invalid("derivatives outside a pixel shader"));
        }
        let op = match inst.opcode {
            Opcode::DerivRtx => Op::DPdx,
            Opcode::DerivRty => Op::DPdy,
            Opcode::DerivRtxCoarse => Op::DPdxCoarse,
            Opcode::DerivRtyCoarse => Op::DPdyCoarse,
            Opcode::DerivRtxFine => Op::DPdxFine,
            _ => Op::DPdyFine,
        };
        if !matches!(op, Op::DPdx | Op::DPdy) {
            self.b.m.capability(spirv::Capability::DerivativeControl);
        }
        self.simple(inst, Scalar::F32, Map::Op(op), 1)
    }

    /// Lowers an ALU instruction; false when `inst` is not one.
    pub fn alu(&mut self, inst: InstRef<'p>) -> R<bool> {
        use Scalar::*;
        let f = Map::Op;
        let g = Map::Glsl;
        match inst.opcode {
            Opcode::Mov => {
                let dst = &inst.operands[0];
                let src = &inst.operands[1];
                let copy = !inst.saturate
                    && plain_temp(src)
                    && (plain_temp(dst) || plain_register(dst, OperandType::Output));
                if copy
                    && dst.ty == src.ty
                    && dst.register() == src.register()
                    && keeps_places(dst, src)
                {
                    // `mov r1.xyzw, r1.xyzw`: every written component gets the bits it holds.
                    return Ok(true);
                }
                let s = match self.move_type(&inst.operands[1..2], inst.saturate) {
                    // A plain copy moves the bits in the type they already have.
                    Scalar::U32 => self.natural_type(src, dst_mask(dst)).unwrap_or(Scalar::U32),
                    s => s,
                };
                // (`natural_type` has brought the components from earlier blocks in.)
                if copy && self.copy_temp(dst, src)? {
                    return Ok(true);
                }
                let v = self.read(src, dst_mask(dst), s)?;
                self.write(dst, v, s, inst.saturate)?;
            }
            Opcode::Movc => self.movc(&inst)?,
            Opcode::Swapc => self.swapc(&inst)?,
            Opcode::Add => self.simple(&inst, F32, f(Op::FAdd), 2)?,
            Opcode::Mul => self.simple(&inst, F32, f(Op::FMul), 2)?,
            Opcode::Div => self.simple(&inst, F32, f(Op::FDiv), 2)?,
            Opcode::Mad => self.mad(&inst, F32)?,
            Opcode::Min => self.simple(&inst, F32, g(Glsl::NMin), 2)?,
            Opcode::Max => self.simple(&inst, F32, g(Glsl::NMax), 2)?,
            Opcode::Sqrt => self.simple(&inst, F32, g(Glsl::Sqrt), 1)?,
            Opcode::Rsq => self.simple(&inst, F32, g(Glsl::InverseSqrt), 1)?,
            Opcode::Exp => self.simple(&inst, F32, g(Glsl::Exp2), 1)?,
            Opcode::Log => self.simple(&inst, F32, g(Glsl::Log2), 1)?,
            Opcode::Frc => self.simple(&inst, F32, g(Glsl::Fract), 1)?,
            Opcode::RoundNe => self.simple(&inst, F32, g(Glsl::RoundEven), 1)?,
            Opcode::RoundNi => self.simple(&inst, F32, g(Glsl::Floor), 1)?,
            Opcode::RoundPi => self.simple(&inst, F32, g(Glsl::Ceil), 1)?,
            Opcode::RoundZ => self.simple(&inst, F32, g(Glsl::Trunc), 1)?,
            Opcode::Rcp => self.rcp(&inst)?,
            Opcode::SinCos => self.sincos(&inst)?,
            Opcode::Dp2 => self.dot(&inst, 2)?,
            Opcode::Dp3 => self.dot(&inst, 3)?,
            Opcode::Dp4 => self.dot(&inst, 4)?,
            Opcode::Eq => self.compare(&inst, F32, Op::FOrdEqual)?,
            Opcode::Ne => self.compare(&inst, F32, Op::FUnordNotEqual)?,
            Opcode::Lt => self.compare(&inst, F32, Op::FOrdLessThan)?,
            Opcode::Ge => self.compare(&inst, F32, Op::FOrdGreaterThanEqual)?,
            Opcode::IEq => self.compare(&inst, U32, Op::IEqual)?,
            Opcode::INe => self.compare(&inst, U32, Op::INotEqual)?,
            Opcode::ILt => self.compare(&inst, U32, Op::SLessThan)?,
            Opcode::IGe => self.compare(&inst, U32, Op::SGreaterThanEqual)?,
            Opcode::ULt => self.compare(&inst, U32, Op::ULessThan)?,
            Opcode::UGe => self.compare(&inst, U32, Op::UGreaterThanEqual)?,
            Opcode::IAdd => self.simple(&inst, U32, f(Op::IAdd), 2)?,
            Opcode::INeg => self.simple(&inst, U32, f(Op::SNegate), 1)?,
            Opcode::IMin => self.simple(&inst, U32, g(Glsl::SMin), 2)?,
            Opcode::IMax => self.simple(&inst, U32, g(Glsl::SMax), 2)?,
            Opcode::UMin => self.simple(&inst, U32, g(Glsl::UMin), 2)?,
            Opcode::UMax => self.simple(&inst, U32, g(Glsl::UMax), 2)?,
            Opcode::And => self.simple(&inst, U32, f(Op::BitwiseAnd), 2)?,
            Opcode::Or => self.simple(&inst, U32, f(Op::BitwiseOr), 2)?,
            Opcode::Xor => self.simple(&inst, U32, f(Op::BitwiseXor), 2)?,
            Opcode::Not => self.simple(&inst, U32, f(Op::Not), 1)?,
            Opcode::IMad => self.mad(&inst, U32)?,
            Opcode::UMad => self.mad(&inst, U32)?,
            Opcode::IMul => self.mul_extended(&inst, true)?,
            Opcode::UMul => self.mul_extended(&inst, false)?,
            Opcode::UDiv => self.udiv(&inst)?,
            Opcode::UAddc => self.add_carry(&inst, Op::IAddCarry)?,
            Opcode::USubb => self.add_carry(&inst, Op::ISubBorrow)?,
            Opcode::DerivRtx
            | Opcode::DerivRtxCoarse
            | Opcode::DerivRtxFine
            | Opcode::DerivRty
            | Opcode::DerivRtyCoarse
            | Opcode::DerivRtyFine => self.derivative(&inst)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// A temp named directly (`r#`), with no modifier and no minimum precision: a `mov` between
/// two of these copies bits.
fn plain_temp(o: &Sm4Operand) -> bool {
    plain_register(o, OperandType::Temp)
}

/// A register of file `file` named directly (`r#`, `o#`), with no modifier and no minimum
/// precision.
fn plain_register(o: &Sm4Operand, file: OperandType) -> bool {
    o.ty == file
        && o.index_dim() == 1
        && o.register().is_some()
        && o.modifier == Modifier::None
        && o.min_precision == crate::sm4::MinPrecision::Default
}

/// Whether each component `dst` writes is read from the same component of `src`.
fn keeps_places(dst: &Sm4Operand, src: &Sm4Operand) -> bool {
    let (mask, swz) = (dst.mask(), src.swizzle());
    mask != 0 && (0..4).all(|c| mask & (1 << c) == 0 || swz[c] as usize == c)
}
