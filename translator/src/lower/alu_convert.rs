//! Conversions between 32-bit floats, integers and 16-bit floats.
//!
//! SPIR-V's conversions are undefined exactly where D3D defines them (D3D11.3 functional spec
//! §22.13, §3.2.2; see `docs/semantics.md`):
//!
//! - `ftoi`/`ftou` round toward zero, clamp to the integer range and map NaN to 0; ConvertFToS
//!   and ConvertFToU are undefined out of range, so the input is clamped first. The largest
//!   float below 2^31 (2^32) is 2147483520.0 (4294967040.0): a clamp to `i32::MAX` would round
//!   up to 2^31 and overflow, so inputs ≥ 2^31 (2^32) select the maximum after converting;
//! - `f32tof16` rounds toward zero, turns finite values beyond the half range into ±65504 (only
//!   ±inf stays infinite), keeps NaN and clears the upper 16 bits. PackHalf2x16's rounding and
//!   overflow are unspecified, so the conversion is done on the bits instead;
//! - `f16tof32` converts half denormals to exact normal floats (UnpackHalf2x16 is exact).

use smallvec::SmallVec;
use spirv::{GlslStd450Op as Glsl, Op};

use super::alu::{Map, dst_mask, dst_width};
use super::regs::src_components;
use super::{Lowerer, R};
use crate::ir::{Operand, Scalar, TypeId, TypeTable};
use crate::sm4::{InstRef, Opcode, OperandType};

impl<'p, 'm> Lowerer<'p, 'm> {
    /// Lowers a conversion instruction; false when `inst` is not one.
    pub(super) fn alu_convert(&mut self, inst: &InstRef<'p>) -> R<bool> {
        use Scalar::*;
        match inst.opcode {
            Opcode::FtoI => self.float_to_int(inst, true)?,
            Opcode::FtoU => self.float_to_int(inst, false)?,
            Opcode::ItoF => self.simple_to(inst, U32, F32, Map::Op(Op::ConvertSToF), 1)?,
            Opcode::UtoF => self.simple_to(inst, U32, F32, Map::Op(Op::ConvertUToF), 1)?,
            Opcode::F32toF16 => self.f32_to_f16(inst)?,
            Opcode::F16toF32 => self.f16_to_f32(inst)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `ftoi`/`ftou` (§22.13.3-4): round toward zero, saturate to the integer range, NaN → 0.
    fn float_to_int(&mut self, inst: &InstRef<'p>, signed: bool) -> R<()> {
        let dst = &inst.operands[0];
        let mask = dst_mask(dst);
        let n = dst_width(dst);
        let fty = TypeTable::vec(Scalar::F32, n);
        let bty = TypeTable::vec(Scalar::Bool, n);
        let src = &inst.operands[1];
        let x = self.read(src, mask, Scalar::F32)?;
        // Integer results are typed u32 (SPIR-V's conversions take either signedness; the bits
        // go to u32 registers anyway).
        let s = Scalar::U32;
        let ity = TypeTable::vec(s, n);
        // A pixel's window coordinates (`int2(pos.xy)`, the usual texel address of a `Load`)
        // are finite and between 0 and the render target's size (D3D11's limit is 16384), so
        // they, their absolute value and (for ftoi) their negation are in range: the conversion
        // alone rounds toward zero as D3D's does, without the clamps and the NaN test.
        if src.ty == OperandType::Input
            && (signed || !src.modifier.neg())
            && src
                .register()
                .is_some_and(|r| self.input_is_window_xy(r, &src_components(src, mask)))
        {
            let op = if signed {
                Op::ConvertFToS
            } else {
                Op::ConvertFToU
            };
            let r = self.b.op(op, ity, &[x]);
            return self.write(dst, r, s, false);
        }
        let (lo, hi, limit, max, conv) = if signed {
            (
                -2147483648.0f32,
                2147483520.0f32,
                2147483648.0f32,
                0x7fff_ffffu64,
                Op::ConvertFToS,
            )
        } else {
            (
                0.0,
                4294967040.0,
                4294967296.0,
                0xffff_ffff,
                Op::ConvertFToU,
            )
        };
        let lo = self.b.splat(Scalar::F32, n, lo.to_bits() as u64);
        let hi = self.b.splat(Scalar::F32, n, hi.to_bits() as u64);
        // NClamp maps NaN to the lower bound: 0 for ftou, i32::MIN for ftoi (fixed below).
        let clamped = self.b.glsl(Glsl::NClamp, fty, &[x, lo, hi]);
        let conv = self.b.op(conv, ity, &[clamped]);
        let limit = self.b.splat(Scalar::F32, n, limit.to_bits() as u64);
        let over = self.b.op(Op::FOrdGreaterThanEqual, bty, &[x, limit]);
        let max = self.b.splat(s, n, max);
        let mut r = self.b.op(Op::Select, ity, &[over, max, conv]);
        if signed {
            let nan = self.b.op(Op::IsNan, bty, &[x]);
            let zero = self.b.splat(s, n, 0);
            r = self.b.op(Op::Select, ity, &[nan, zero, r]);
        }
        self.write(dst, r, s, false)
    }

    /// `f32tof16` (§22.13.2, §3.2.2): round toward zero; finite overflow → ±65504; ±inf
    /// kept; NaN stays NaN (0x7e00); the result in the low 16 bits, the high 16 bits 0.
    ///
    /// Done on the bits, exactly, for the whole vector at once: with `a = |x|` as bits,
    /// a half normal is `(a - (112 << 23)) >> 13` (rebias the exponent, drop 13 mantissa bits:
    /// toward zero); below 2^-14 the half is a denormal whose bits are `trunc(|x| * 2^24)`
    /// (ConvertFToU truncates). Neither PackHalf2x16's unspecified rounding nor its handling
    /// of half denormals is involved.
    fn f32_to_f16(&mut self, inst: &InstRef<'p>) -> R<()> {
        let dst = &inst.operands[0];
        let mask = dst_mask(dst);
        let n = dst_width(dst);
        let (f, u) = (Scalar::F32, Scalar::U32);
        let fty = TypeTable::vec(f, n);
        let uty = TypeTable::vec(u, n);
        let bty = TypeTable::vec(Scalar::Bool, n);
        let x = self.read(&inst.operands[1], mask, f)?;
        let bits = self.b.bitcast(uty, x);
        let k = |b: &mut Self, v: u32| b.b.splat(u, n, v as u64);
        let abs_mask = k(self, 0x7fff_ffff);
        let a = self.b.op(Op::BitwiseAnd, uty, &[bits, abs_mask]);
        // Half denormals (and the first normal binade, which continues the same grid).
        let af = self.b.bitcast(fty, a);
        let scale = self.b.splat(f, n, 16777216.0f32.to_bits() as u64);
        let t = self.b.op(Op::FMul, fty, &[af, scale]);
        let den = self.b.op(Op::ConvertFToU, uty, &[t]);
        // Half normals.
        let rebias = k(self, 112 << 23);
        let thirteen = k(self, 13);
        let nrm = self.b.op(Op::ISub, uty, &[a, rebias]);
        let nrm = self.b.op(Op::ShiftRightLogical, uty, &[nrm, thirteen]);
        let min_normal = k(self, 0x3880_0000);
        let small = self.b.op(Op::ULessThan, bty, &[a, min_normal]);
        let r = self.b.op(Op::Select, uty, &[small, den, nrm]);
        // Finite overflow: the largest half, 65504 (0x7bff).
        let max_half = k(self, 0x7bff);
        let r = self.b.glsl(Glsl::UMin, uty, &[r, max_half]);
        // ±inf → 0x7c00, NaN → 0x7e00.
        let inf = k(self, 0x7f80_0000);
        let nan = self.b.op(Op::UGreaterThan, bty, &[a, inf]);
        let qnan = k(self, 0x7e00);
        let hinf = k(self, 0x7c00);
        let special = self.b.op(Op::Select, uty, &[nan, qnan, hinf]);
        let not_finite = self.b.op(Op::UGreaterThanEqual, bty, &[a, inf]);
        let r = self.b.op(Op::Select, uty, &[not_finite, special, r]);
        // The sign, from bit 31 to bit 15.
        let sixteen = k(self, 16);
        let sign = self.b.op(Op::ShiftRightLogical, uty, &[bits, sixteen]);
        let sign_bit = k(self, 0x8000);
        let sign = self.b.op(Op::BitwiseAnd, uty, &[sign, sign_bit]);
        let r = self.b.op(Op::BitwiseOr, uty, &[r, sign]);
        self.write(dst, r, u, false)
    }

    /// `f16tof32` (§22.13.1): the half in the low 16 bits, converted exactly (denormals
    /// included: UnpackHalf2x16 is exact). Two halves are unpacked at once: components 2k
    /// and 2k+1 are joined into one word first.
    fn f16_to_f32(&mut self, inst: &InstRef<'p>) -> R<()> {
        let dst = &inst.operands[0];
        let mask = dst_mask(dst);
        let n = dst_width(dst);
        let x = self.read(&inst.operands[1], mask, Scalar::U32)?;
        let mut pairs: SmallVec<[Operand; 2]> = SmallVec::new();
        for k in (0..n).step_by(2) {
            let lo = self.b.extract(x, k);
            let word = if k + 1 < n {
                let hi = self.b.extract(x, k + 1);
                let sixteen = self.b.u32c(16);
                self.b
                    .op(Op::BitFieldInsert, TypeId::U32, &[lo, hi, sixteen, sixteen])
            } else {
                lo
            };
            pairs.push(self.b.glsl(Glsl::UnpackHalf2x16, TypeId::VEC2, &[word]));
        }
        let r = match n {
            1 => self.b.extract(pairs[0], 0),
            2 => pairs[0],
            _ => {
                let sel: SmallVec<[Operand; 6]> = [pairs[0], pairs[1]]
                    .into_iter()
                    .chain((0..n as u32).map(Operand::Lit))
                    .collect();
                self.b
                    .op(Op::VectorShuffle, TypeTable::vec(Scalar::F32, n), &sel)
            }
        };
        self.write(dst, r, Scalar::F32, inst.saturate)
    }
}
