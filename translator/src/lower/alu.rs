//! Arithmetic, logic and conversion instructions, with D3D's semantics where SPIR-V's differ
//! (see `docs/semantics.md` and `../shared/notes/semantics-traps.md`):
//!
//! - `min`/`max` use NMin/NMax (one NaN operand yields the other); `_sat` uses NClamp (NaN → 0);
//! - comparisons produce `0xffffffff`/`0` and are ordered except `ne` (unordered);
//! - `ftoi`/`ftou` round toward zero, clamp to the integer range and map NaN to 0;
//! - `udiv`/`urem` by zero give `0xffffffff`; shift counts use their low 5 bits;
//! - `movc` tests all bits of the condition, not its float value.

use smallvec::SmallVec;
use spirv::{GlslStd450Op as Glsl, Op};

use super::{Lowerer, R};
use crate::ir::{Operand, Scalar, TypeTable};
use crate::sm4::{InstRef, Opcode, Operand as Sm4Operand};

/// How a simple instruction maps to SPIR-V.
#[derive(Clone, Copy)]
enum Map {
    Op(Op),
    Glsl(Glsl),
}

impl<'p, 'm> Lowerer<'p, 'm> {
    fn dst_mask(dst: &Sm4Operand) -> u8 {
        match dst.components {
            crate::sm4::Components::One | crate::sm4::Components::Zero => 1,
            _ => dst.mask(),
        }
    }

    fn dst_width(dst: &Sm4Operand) -> u8 {
        Self::dst_mask(dst).count_ones().max(1) as u8
    }

    /// Emits a mapped operation on `args` with result type `ty`.
    fn apply_map(&mut self, map: Map, ty: crate::ir::TypeId, args: &[Operand]) -> Operand {
        match map {
            Map::Op(op) => self.b.op(op, ty, args),
            Map::Glsl(g) => self.b.glsl(g, ty, args),
        }
    }

    /// dst = op(srcs...), component-wise, all operands of scalar kind `s`.
    fn simple(&mut self, inst: &InstRef<'p>, s: Scalar, map: Map, nsrc: usize) -> R<()> {
        self.simple_to(inst, s, s, map, nsrc)
    }

    /// dst = op(srcs...) with sources of kind `s` and a result of kind `rs`.
    fn simple_to(
        &mut self,
        inst: &InstRef<'p>,
        s: Scalar,
        rs: Scalar,
        map: Map,
        nsrc: usize,
    ) -> R<()> {
        let dst = &inst.operands[0];
        let mask = Self::dst_mask(dst);
        let n = Self::dst_width(dst);
        let ty = TypeTable::vec(rs, n);
        let mut args: SmallVec<[Operand; 3]> = SmallVec::new();
        for i in 0..nsrc {
            args.push(self.read(&inst.operands[1 + i], mask, s)?);
        }
        let r = self.apply_map(map, ty, &args);
        self.write(dst, r, rs, inst.saturate)
    }

    /// A comparison: dst = cmp(a, b) ? 0xffffffff : 0.
    fn compare(&mut self, inst: &InstRef<'p>, s: Scalar, op: Op) -> R<()> {
        let dst = &inst.operands[0];
        let mask = Self::dst_mask(dst);
        let n = Self::dst_width(dst);
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

    /// Dot product of the first `k` components.
    fn dot(&mut self, inst: &InstRef<'p>, k: u8) -> R<()> {
        let a = self.read_n(&inst.operands[1], k, Scalar::F32)?;
        let b = self.read_n(&inst.operands[2], k, Scalar::F32)?;
        let r = self.b.op(Op::Dot, crate::ir::TypeId::F32, &[a, b]);
        self.write(&inst.operands[0], r, Scalar::F32, inst.saturate)
    }

    /// `ftoi`/`ftou`: round toward zero, saturate to the integer range, NaN → 0.
    fn float_to_int(&mut self, inst: &InstRef<'p>, signed: bool) -> R<()> {
        let dst = &inst.operands[0];
        let mask = Self::dst_mask(dst);
        let n = Self::dst_width(dst);
        let fty = TypeTable::vec(Scalar::F32, n);
        let x = self.read(&inst.operands[1], mask, Scalar::F32)?;
        let bty = TypeTable::vec(Scalar::Bool, n);
        let r = if signed {
            let ity = TypeTable::vec(Scalar::I32, n);
            let lo = self
                .b
                .splat(Scalar::F32, n, (-2147483648.0f32).to_bits() as u64);
            let hi = self
                .b
                .splat(Scalar::F32, n, 2147483520.0f32.to_bits() as u64);
            let clamped = self.b.glsl(Glsl::NClamp, fty, &[x, lo, hi]);
            let conv = self.b.op(Op::ConvertFToS, ity, &[clamped]);
            let limit = self
                .b
                .splat(Scalar::F32, n, 2147483648.0f32.to_bits() as u64);
            let over = self.b.op(Op::FOrdGreaterThanEqual, bty, &[x, limit]);
            let max = self.b.splat(Scalar::I32, n, 0x7fff_ffff);
            let sat = self.b.op(Op::Select, ity, &[over, max, conv]);
            let nan = self.b.op(Op::IsNan, bty, &[x]);
            let zero = self.b.splat(Scalar::I32, n, 0);
            self.b.op(Op::Select, ity, &[nan, zero, sat])
        } else {
            let uty = TypeTable::vec(Scalar::U32, n);
            let lo = self.b.splat(Scalar::F32, n, 0);
            let hi = self
                .b
                .splat(Scalar::F32, n, 4294967040.0f32.to_bits() as u64);
            // NClamp maps NaN to the lower bound, 0.
            let clamped = self.b.glsl(Glsl::NClamp, fty, &[x, lo, hi]);
            let conv = self.b.op(Op::ConvertFToU, uty, &[clamped]);
            let limit = self
                .b
                .splat(Scalar::F32, n, 4294967296.0f32.to_bits() as u64);
            let over = self.b.op(Op::FOrdGreaterThanEqual, bty, &[x, limit]);
            let max = self.b.splat(Scalar::U32, n, 0xffff_ffff);
            self.b.op(Op::Select, uty, &[over, max, conv])
        };
        self.write(
            dst,
            r,
            if signed { Scalar::I32 } else { Scalar::U32 },
            false,
        )
    }

    /// Shifts: the count uses its low 5 bits.
    fn shift(&mut self, inst: &InstRef<'p>, s: Scalar, op: Op) -> R<()> {
        let dst = &inst.operands[0];
        let mask = Self::dst_mask(dst);
        let n = Self::dst_width(dst);
        let ty = TypeTable::vec(s, n);
        let a = self.read(&inst.operands[1], mask, s)?;
        let c = self.read(&inst.operands[2], mask, Scalar::U32)?;
        let m = self.b.splat(Scalar::U32, n, 31);
        let c = self
            .b
            .op(Op::BitwiseAnd, TypeTable::vec(Scalar::U32, n), &[c, m]);
        let r = self.b.op(op, ty, &[a, c]);
        self.write(dst, r, s, false)
    }

    /// `movc`/`swapc` condition: all bits of the condition, not its float value.
    fn movc(&mut self, inst: &InstRef<'p>) -> R<()> {
        let dst = &inst.operands[0];
        let mask = Self::dst_mask(dst);
        let n = Self::dst_width(dst);
        let c = self.read(&inst.operands[1], mask, Scalar::U32)?;
        let cond = self.nonzero(c, n);
        let s = self.move_type(&inst.operands[2..4]);
        let a = self.read(&inst.operands[2], mask, s)?;
        let b = self.read(&inst.operands[3], mask, s)?;
        let r = self.b.op(Op::Select, TypeTable::vec(s, n), &[cond, a, b]);
        self.write(dst, r, s, inst.saturate)
    }

    /// The type a move reads its sources as: float when a source modifier needs it (or
    /// `_sat` applies), raw bits otherwise.
    fn move_type(&self, srcs: &[Sm4Operand]) -> Scalar {
        if srcs
            .iter()
            .any(|o| o.modifier != crate::sm4::Modifier::None)
        {
            Scalar::F32
        } else {
            Scalar::U32
        }
    }

    /// Lowers an ALU instruction; false when `inst` is not one.
    pub fn alu(&mut self, inst: InstRef<'p>) -> R<bool> {
        use Scalar::*;
        let f = |o: Op| Map::Op(o);
        let g = |o: Glsl| Map::Glsl(o);
        match inst.opcode {
            Opcode::Mov => {
                let dst = &inst.operands[0];
                let mask = Self::dst_mask(dst);
                let s = if inst.saturate {
                    F32
                } else {
                    self.move_type(&inst.operands[1..2])
                };
                let v = self.read(&inst.operands[1], mask, s)?;
                self.write(dst, v, s, inst.saturate)?;
            }
            Opcode::Movc => self.movc(&inst)?,
            Opcode::Swapc => {
                // dst0 = cond ? src2 : src1; dst1 = cond ? src1 : src2 (both from the old values).
                let (d0, d1) = (&inst.operands[0], &inst.operands[1]);
                let m0 = Self::dst_mask(d0);
                let m1 = Self::dst_mask(d1);
                let c0 = self.read(&inst.operands[2], m0, U32)?;
                let a0 = self.read(&inst.operands[3], m0, U32)?;
                let b0 = self.read(&inst.operands[4], m0, U32)?;
                let c1 = self.read(&inst.operands[2], m1, U32)?;
                let a1 = self.read(&inst.operands[3], m1, U32)?;
                let b1 = self.read(&inst.operands[4], m1, U32)?;
                let n0 = Self::dst_width(d0);
                let n1 = Self::dst_width(d1);
                let k0 = self.nonzero(c0, n0);
                let k1 = self.nonzero(c1, n1);
                let r0 = self
                    .b
                    .op(Op::Select, TypeTable::vec(U32, n0), &[k0, b0, a0]);
                let r1 = self
                    .b
                    .op(Op::Select, TypeTable::vec(U32, n1), &[k1, a1, b1]);
                self.write(d0, r0, U32, false)?;
                self.write(d1, r1, U32, false)?;
            }
            Opcode::Add => self.simple(&inst, F32, f(Op::FAdd), 2)?,
            Opcode::Mul => self.simple(&inst, F32, f(Op::FMul), 2)?,
            Opcode::Div => self.simple(&inst, F32, f(Op::FDiv), 2)?,
            Opcode::Mad => {
                let dst = &inst.operands[0];
                let mask = Self::dst_mask(dst);
                let ty = TypeTable::vec(F32, Self::dst_width(dst));
                let a = self.read(&inst.operands[1], mask, F32)?;
                let b = self.read(&inst.operands[2], mask, F32)?;
                let c = self.read(&inst.operands[3], mask, F32)?;
                let p = self.b.op(Op::FMul, ty, &[a, b]);
                let r = self.b.op(Op::FAdd, ty, &[p, c]);
                self.write(dst, r, F32, inst.saturate)?;
            }
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
            Opcode::Rcp => {
                let dst = &inst.operands[0];
                let mask = Self::dst_mask(dst);
                let n = Self::dst_width(dst);
                let x = self.read(&inst.operands[1], mask, F32)?;
                let one = self.b.splat(F32, n, 1.0f32.to_bits() as u64);
                let r = self.b.op(Op::FDiv, TypeTable::vec(F32, n), &[one, x]);
                self.write(dst, r, F32, inst.saturate)?;
            }
            Opcode::SinCos => {
                for (i, func) in [(0usize, Glsl::Sin), (1, Glsl::Cos)] {
                    let dst = &inst.operands[i];
                    if dst.ty == crate::sm4::OperandType::Null {
                        continue;
                    }
                    let mask = Self::dst_mask(dst);
                    let ty = TypeTable::vec(F32, Self::dst_width(dst));
                    let x = self.read(&inst.operands[2], mask, F32)?;
                    let r = self.b.glsl(func, ty, &[x]);
                    self.write(dst, r, F32, inst.saturate)?;
                }
            }
            Opcode::Dp2 => self.dot(&inst, 2)?,
            Opcode::Dp3 => self.dot(&inst, 3)?,
            Opcode::Dp4 => self.dot(&inst, 4)?,
            Opcode::Eq => self.compare(&inst, F32, Op::FOrdEqual)?,
            Opcode::Ne => self.compare(&inst, F32, Op::FUnordNotEqual)?,
            Opcode::Lt => self.compare(&inst, F32, Op::FOrdLessThan)?,
            Opcode::Ge => self.compare(&inst, F32, Op::FOrdGreaterThanEqual)?,
            Opcode::IEq => self.compare(&inst, U32, Op::IEqual)?,
            Opcode::INe => self.compare(&inst, U32, Op::INotEqual)?,
            Opcode::ILt => self.compare(&inst, I32, Op::SLessThan)?,
            Opcode::IGe => self.compare(&inst, I32, Op::SGreaterThanEqual)?,
            Opcode::ULt => self.compare(&inst, U32, Op::ULessThan)?,
            Opcode::UGe => self.compare(&inst, U32, Op::UGreaterThanEqual)?,
            Opcode::FtoI => self.float_to_int(&inst, true)?,
            Opcode::FtoU => self.float_to_int(&inst, false)?,
            Opcode::ItoF => self.simple_to(&inst, I32, F32, f(Op::ConvertSToF), 1)?,
            Opcode::UtoF => self.simple_to(&inst, U32, F32, f(Op::ConvertUToF), 1)?,
            Opcode::IAdd => self.simple(&inst, I32, f(Op::IAdd), 2)?,
            Opcode::INeg => self.simple(&inst, I32, f(Op::SNegate), 1)?,
            Opcode::IMin => self.simple(&inst, I32, g(Glsl::SMin), 2)?,
            Opcode::IMax => self.simple(&inst, I32, g(Glsl::SMax), 2)?,
            Opcode::UMin => self.simple(&inst, U32, g(Glsl::UMin), 2)?,
            Opcode::UMax => self.simple(&inst, U32, g(Glsl::UMax), 2)?,
            Opcode::And => self.simple(&inst, U32, f(Op::BitwiseAnd), 2)?,
            Opcode::Or => self.simple(&inst, U32, f(Op::BitwiseOr), 2)?,
            Opcode::Xor => self.simple(&inst, U32, f(Op::BitwiseXor), 2)?,
            Opcode::Not => self.simple(&inst, U32, f(Op::Not), 1)?,
            Opcode::IShl => self.shift(&inst, U32, Op::ShiftLeftLogical)?,
            Opcode::IShr => self.shift(&inst, I32, Op::ShiftRightArithmetic)?,
            Opcode::UShr => self.shift(&inst, U32, Op::ShiftRightLogical)?,
            Opcode::IMad | Opcode::UMad => {
                let s = if inst.opcode == Opcode::IMad {
                    I32
                } else {
                    U32
                };
                let dst = &inst.operands[0];
                let mask = Self::dst_mask(dst);
                let ty = TypeTable::vec(s, Self::dst_width(dst));
                let a = self.read(&inst.operands[1], mask, s)?;
                let b = self.read(&inst.operands[2], mask, s)?;
                let c = self.read(&inst.operands[3], mask, s)?;
                let p = self.b.op(Op::IMul, ty, &[a, b]);
                let r = self.b.op(Op::IAdd, ty, &[p, c]);
                self.write(dst, r, s, false)?;
            }
            Opcode::IMul | Opcode::UMul => {
                // dst_hi, dst_lo = a * b (either may be null).
                let s = if inst.opcode == Opcode::IMul {
                    I32
                } else {
                    U32
                };
                let (hi, lo) = (&inst.operands[0], &inst.operands[1]);
                let null = crate::sm4::OperandType::Null;
                let mut results: SmallVec<[(usize, Operand); 2]> = SmallVec::new();
                for (k, dst) in [(0usize, hi), (1, lo)] {
                    if dst.ty == null {
                        continue;
                    }
                    let mask = Self::dst_mask(dst);
                    let n = Self::dst_width(dst);
                    let ty = TypeTable::vec(s, n);
                    let a = self.read(&inst.operands[2], mask, s)?;
                    let b = self.read(&inst.operands[3], mask, s)?;
                    let r = if k == 1 {
                        self.b.op(Op::IMul, ty, &[a, b])
                    } else {
                        let st = self.b.m.types.new_struct(vec![ty, ty]);
                        let op = if s == I32 {
                            Op::SMulExtended
                        } else {
                            Op::UMulExtended
                        };
                        let both = self.b.op(op, st, &[a, b]);
                        self.b
                            .op(Op::CompositeExtract, ty, &[both, Operand::Lit(1)])
                    };
                    results.push((k, r));
                }
                // Write after computing both: a destination may alias a source.
                for (k, r) in results {
                    self.write(&inst.operands[k], r, s, false)?;
                }
            }
            Opcode::UDiv => {
                // dst_quot, dst_rem = a / b, a % b; division by zero gives 0xffffffff.
                let mut results: SmallVec<[(usize, Operand); 2]> = SmallVec::new();
                for k in 0..2usize {
                    let dst = &inst.operands[k];
                    if dst.ty == crate::sm4::OperandType::Null {
                        continue;
                    }
                    let mask = Self::dst_mask(dst);
                    let n = Self::dst_width(dst);
                    let ty = TypeTable::vec(U32, n);
                    let a = self.read(&inst.operands[2], mask, U32)?;
                    let b = self.read(&inst.operands[3], mask, U32)?;
                    let zero = self.b.splat(U32, n, 0);
                    let is_zero =
                        self.b
                            .op(Op::IEqual, TypeTable::vec(Scalar::Bool, n), &[b, zero]);
                    let one = self.b.splat(U32, n, 1);
                    let safe = self.b.op(Op::Select, ty, &[is_zero, one, b]);
                    let q = self
                        .b
                        .op(if k == 0 { Op::UDiv } else { Op::UMod }, ty, &[a, safe]);
                    let all = self.b.splat(U32, n, 0xffff_ffff);
                    results.push((k, self.b.op(Op::Select, ty, &[is_zero, all, q])));
                }
                for (k, r) in results {
                    self.write(&inst.operands[k], r, U32, false)?;
                }
            }
            Opcode::DerivRtx
            | Opcode::DerivRtxCoarse
            | Opcode::DerivRtxFine
            | Opcode::DerivRty
            | Opcode::DerivRtyCoarse
            | Opcode::DerivRtyFine => {
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
                self.simple(&inst, F32, f(op), 1)?;
            }
            Opcode::CountBits => self.simple(&inst, U32, f(Op::BitCount), 1)?,
            Opcode::BfRev => self.simple(&inst, U32, f(Op::BitReverse), 1)?,
            Opcode::FirstBitLo => self.simple(&inst, U32, g(Glsl::FindILsb), 1)?,
            Opcode::FirstBitHi | Opcode::FirstBitShi => {
                // D3D counts from the most significant bit; SPIR-V from the least. None → ~0.
                let dst = &inst.operands[0];
                let mask = Self::dst_mask(dst);
                let n = Self::dst_width(dst);
                let (s, func) = if inst.opcode == Opcode::FirstBitHi {
                    (U32, Glsl::FindUMsb)
                } else {
                    (I32, Glsl::FindSMsb)
                };
                let x = self.read(&inst.operands[1], mask, s)?;
                let uty = TypeTable::vec(U32, n);
                let m = self.b.glsl(func, uty, &[x]);
                let none = self.b.splat(U32, n, 0xffff_ffff);
                let is_none = self
                    .b
                    .op(Op::IEqual, TypeTable::vec(Scalar::Bool, n), &[m, none]);
                let k31 = self.b.splat(U32, n, 31);
                let flipped = self.b.op(Op::ISub, uty, &[k31, m]);
                let r = self.b.op(Op::Select, uty, &[is_none, none, flipped]);
                self.write(dst, r, U32, false)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}
