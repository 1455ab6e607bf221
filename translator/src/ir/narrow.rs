//! Which IR operations keep their meaning when computed on 16-bit types, the one fact that
//! both lowering (which flags minimum-precision arithmetic [`flags::HALF`](super::flags::HALF))
//! and the `passes::min16` rewrite need.

use spirv::{GlslStd450Op as Glsl, Op};

use super::{Inst, Operand};

impl Inst {
    /// Whether this is an operation that can run on 16-bit types: arithmetic whose operands
    /// and result are all of the result's kind (float, or integer) and whose meaning does not
    /// depend on the width beyond precision and range. Integer division and conversions are
    /// not (division by zero is guarded at 32 bits; conversions clamp to the 32-bit range).
    pub fn narrowable_to_16(&self) -> bool {
        match self.op {
            Op::FAdd
            | Op::FSub
            | Op::FMul
            | Op::FDiv
            | Op::FNegate
            | Op::Dot
            | Op::VectorTimesScalar
            | Op::IAdd
            | Op::ISub
            | Op::IMul
            | Op::SNegate => true,
            Op::ExtInst => matches!(self.args.first(), Some(Operand::Lit(g)) if narrow_glsl(*g)),
            _ => false,
        }
    }
}

/// GLSL.std.450 instructions whose operands are all floats of the result's type.
fn narrow_glsl(g: u32) -> bool {
    const OK: &[Glsl] = &[
        Glsl::Round,
        Glsl::RoundEven,
        Glsl::Trunc,
        Glsl::FAbs,
        Glsl::FSign,
        Glsl::Floor,
        Glsl::Ceil,
        Glsl::Fract,
        Glsl::Sqrt,
        Glsl::InverseSqrt,
        Glsl::Exp2,
        Glsl::Log2,
        Glsl::FMin,
        Glsl::FMax,
        Glsl::FClamp,
        Glsl::FMix,
        Glsl::Fma,
        Glsl::NMin,
        Glsl::NMax,
        Glsl::NClamp,
    ];
    OK.iter().any(|&o| o as u32 == g)
}
