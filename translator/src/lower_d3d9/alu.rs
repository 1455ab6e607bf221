//! D3D9 arithmetic: moves, the vector and scalar ops, matrix ops, comparisons and selects,
//! `setp`, derivatives — with D3D9's float rules (`docs/d3d9.md`): 0 × anything = 0 in every
//! product unless `Options::d3d9.ieee_multiply`; scalar ops read the w of their swizzled
//! source; `rsq`, `log` and `pow` take |x|; `log(0)` is −FLT_MAX; `min`/`max`/`cmp`/`slt`/
//! `sge` are the selects Microsoft's reference gives.

use crate::rules::d3d9::D3d9Rule;
use spirv::{GlslStd450Op as G, Op};

use super::{D9, R};
use crate::d3dbc::{Instruction, Opcode, RegisterType as RT, Source};
use crate::ir::{Const, ConstId, Operand, Scalar, TypeId, TypeTable};

fn vec(n: u8) -> TypeId {
    TypeTable::vec(Scalar::F32, n)
}

impl<'p, 'm> D9<'p, 'm> {
    fn fc(&mut self, n: u8, x: f32) -> Operand {
        self.b.splat(Scalar::F32, n, x.to_bits() as u64)
    }

    fn bin(&mut self, op: Op, a: Operand, b: Operand) -> Operand {
        let ty = self.b.type_of(a);
        self.b.op(op, ty, &[a, b])
    }

    /// `a × b` per component, 0 when either factor is 0 (unless IEEE multiplication is asked
    /// for): `(b == 0 ? 0 : a) × (a == 0 ? 0 : b)`.
    pub fn fmul(&mut self, a: Operand, b: Operand) -> Operand {
        if self.opts.d3d9.ieee_multiply {
            return self.bin(Op::FMul, a, b);
        }
        let n = self.b.width_of(a);
        let ty = vec(n);
        let bty = TypeTable::vec(Scalar::Bool, n);
        let zero = self.fc(n, 0.0);
        // A constant factor with no zero component (a `def`, a literal) zeroes nothing: its
        // test and the other factor's select are left out here rather than folded later.
        let (a_nonzero, b_nonzero) = (self.nonzero_constant(a), self.nonzero_constant(b));
        let a2 = if b_nonzero {
            a
        } else {
            let bz = self.b.op(Op::FOrdEqual, bty, &[b, zero]);
            self.b.op(Op::Select, ty, &[bz, zero, a])
        };
        let b2 = if a_nonzero {
            b
        } else {
            let az = self.b.op(Op::FOrdEqual, bty, &[a, zero]);
            self.b.op(Op::Select, ty, &[az, zero, b])
        };
        self.b.op(Op::FMul, ty, &[a2, b2])
    }

    /// Whether `x` is a float constant none of whose components is ±0 (NaN and infinities
    /// count as non-zero: they are not equal to 0).
    fn nonzero_constant(&self, x: Operand) -> bool {
        let Operand::Const(c) = x else {
            return false;
        };
        let consts = &self.b.m.consts;
        let nonzero = |c: ConstId| consts.scalar_bits(c).is_some_and(|b| b & 0x7fff_ffff != 0);
        match consts.get(c) {
            Const::Composite { parts, .. } => parts.iter().all(|&p| nonzero(p)),
            _ => nonzero(c),
        }
    }

    /// The dot product of the first `n` components.
    pub fn dot(&mut self, a: Operand, b: Operand, n: u8) -> Operand {
        let sel = &[0, 1, 2, 3][..n as usize];
        let a = self.b.swizzle(a, sel);
        let b = self.b.swizzle(b, sel);
        if n == 1 {
            return self.fmul(a, b);
        }
        if self.opts.d3d9.ieee_multiply {
            return self.b.op(Op::Dot, TypeId::F32, &[a, b]);
        }
        let p = self.fmul(a, b);
        let mut s = self.b.extract(p, 0);
        for c in 1..n {
            let x = self.b.extract(p, c);
            s = self.b.op(Op::FAdd, TypeId::F32, &[s, x]);
        }
        s
    }

    /// `log2(|x|)`, −FLT_MAX for 0 (unless IEEE).
    fn log2_abs(&mut self, x: Operand) -> Operand {
        let a = self.b.glsl(G::FAbs, TypeId::F32, &[x]);
        let l = self.b.glsl(G::Log2, TypeId::F32, &[a]);
        if self.opts.d3d9.ieee_multiply {
            return l;
        }
        let m = self.b.f32c(-f32::MAX);
        self.b.glsl(G::NMax, TypeId::F32, &[l, m])
    }

    /// `pow(|x|, y)` as `exp2(y × log2|x|)` with the D3D9 product (so `pow(x, 0)` is 1).
    fn pow(&mut self, x: Operand, y: Operand) -> Operand {
        if self.opts.d3d9.ieee_multiply {
            let a = self.b.glsl(G::FAbs, TypeId::F32, &[x]);
            return self.b.glsl(G::Pow, TypeId::F32, &[a, y]);
        }
        let l = self.log2_abs(x);
        let p = self.fmul(y, l);
        self.b.glsl(G::Exp2, TypeId::F32, &[p])
    }

    fn select4(&mut self, cond: Operand, a: Operand, b: Operand) -> Operand {
        self.b.op(Op::Select, TypeId::VEC4, &[cond, a, b])
    }

    /// `src` with its register number increased by `k` (matrix rows).
    pub(super) fn row(s: &Source, k: u16) -> Source {
        let mut r = *s;
        r.reg.num = r.reg.num.wrapping_add(k);
        r
    }

    /// The arithmetic instructions.
    pub(super) fn alu(&mut self, inst: &Instruction) -> R<()> {
        use Opcode as O;
        let v = match inst.opcode {
            O::Mov | O::MovA => self.read_src(inst, 0)?,
            O::Add | O::Sub => {
                let a = self.read_src(inst, 0)?;
                let b = self.read_src(inst, 1)?;
                let op = if inst.opcode == O::Add {
                    Op::FAdd
                } else {
                    Op::FSub
                };
                self.bin(op, a, b)
            }
            O::Mul => {
                let a = self.read_src(inst, 0)?;
                let b = self.read_src(inst, 1)?;
                self.fmul(a, b)
            }
            O::Mad => {
                let a = self.read_src(inst, 0)?;
                let b = self.read_src(inst, 1)?;
                let c = self.read_src(inst, 2)?;
                let p = self.fmul(a, b);
                self.bin(Op::FAdd, p, c)
            }
            O::Rcp => {
                let x = self.read_scalar(inst, 0)?;
                let one = self.b.f32c(1.0);
                let r = self.b.op(Op::FDiv, TypeId::F32, &[one, x]);
                self.splat4(r)
            }
            O::Rsq => {
                let x = self.read_scalar(inst, 0)?;
                let a = self.b.glsl(G::FAbs, TypeId::F32, &[x]);
                let r = self.b.glsl(G::InverseSqrt, TypeId::F32, &[a]);
                self.splat4(r)
            }
            O::Dp3 | O::Dp4 => {
                let a = self.read_src(inst, 0)?;
                let b = self.read_src(inst, 1)?;
                let d = self.dot(a, b, if inst.opcode == O::Dp3 { 3 } else { 4 });
                self.splat4(d)
            }
            O::Min | O::Max => {
                let a = self.read_src(inst, 0)?;
                let b = self.read_src(inst, 1)?;
                // min: a < b ? a : b; max: a >= b ? a : b.
                let (op, x, y) = if inst.opcode == O::Min {
                    (Op::FOrdLessThan, a, b)
                } else {
                    (Op::FOrdGreaterThanEqual, a, b)
                };
                let c = self.b.op(op, super::regs::BVEC4, &[a, b]);
                self.select4(c, x, y)
            }
            O::Slt | O::Sge => {
                let a = self.read_src(inst, 0)?;
                let b = self.read_src(inst, 1)?;
                let op = if inst.opcode == O::Slt {
                    Op::FOrdLessThan
                } else {
                    Op::FOrdGreaterThanEqual
                };
                let c = self.b.op(op, super::regs::BVEC4, &[a, b]);
                let one = self.fc(4, 1.0);
                let zero = self.fc(4, 0.0);
                self.select4(c, one, zero)
            }
            O::Exp => {
                let x = self.read_scalar(inst, 0)?;
                let r = self.b.glsl(G::Exp2, TypeId::F32, &[x]);
                self.splat4(r)
            }
            O::Log => {
                let x = self.read_scalar(inst, 0)?;
                let r = self.log2_abs(x);
                self.splat4(r)
            }
            O::ExpP if self.ver.major < 2 => {
                // vs_1_x: (2^floor(x), frac(x), 2^x, 1).
                let x = self.read_scalar(inst, 0)?;
                let fl = self.b.glsl(G::Floor, TypeId::F32, &[x]);
                let a = self.b.glsl(G::Exp2, TypeId::F32, &[fl]);
                let f = self.b.op(Op::FSub, TypeId::F32, &[x, fl]);
                let e = self.b.glsl(G::Exp2, TypeId::F32, &[x]);
                let one = self.b.f32c(1.0);
                self.b.construct(&[a, f, e, one])
            }
            O::LogP if self.ver.major < 2 => {
                // vs_1_x: (exponent, mantissa in [1, 2), log2|x|, 1).
                let x = self.read_scalar(inst, 0)?;
                let l = self.log2_abs(x);
                let e = self.b.glsl(G::Floor, TypeId::F32, &[l]);
                let a = self.b.glsl(G::FAbs, TypeId::F32, &[x]);
                let p = self.b.glsl(G::Exp2, TypeId::F32, &[e]);
                let m = self.b.op(Op::FDiv, TypeId::F32, &[a, p]);
                let one = self.b.f32c(1.0);
                self.b.construct(&[e, m, l, one])
            }
            O::ExpP => {
                let x = self.read_scalar(inst, 0)?;
                let r = self.b.glsl(G::Exp2, TypeId::F32, &[x]);
                self.splat4(r)
            }
            O::LogP => {
                let x = self.read_scalar(inst, 0)?;
                let r = self.log2_abs(x);
                self.splat4(r)
            }
            O::Lit => self.lit(inst)?,
            O::Dst => {
                let a = self.read_src(inst, 0)?;
                let b = self.read_src(inst, 1)?;
                let one = self.b.f32c(1.0);
                let ay = self.b.extract(a, 1);
                let by = self.b.extract(b, 1);
                let y = self.fmul(ay, by);
                let z = self.b.extract(a, 2);
                let w = self.b.extract(b, 3);
                self.b.construct(&[one, y, z, w])
            }
            O::Lrp => {
                let a = self.read_src(inst, 0)?;
                let b = self.read_src(inst, 1)?;
                let c = self.read_src(inst, 2)?;
                let d = self.bin(Op::FSub, b, c);
                let p = self.fmul(a, d);
                self.bin(Op::FAdd, p, c)
            }
            O::Frc => {
                let a = self.read_src(inst, 0)?;
                self.b.glsl(G::Fract, TypeId::VEC4, &[a])
            }
            O::M4x4 | O::M4x3 | O::M3x4 | O::M3x3 | O::M3x2 => {
                let (n, rows) = matrix_shape(inst.opcode).expect("a matrix opcode");
                let a = self.read_src(inst, 0)?;
                let m = self.src(inst, 1)?;
                let mut parts = Vec::with_capacity(4);
                for k in 0..rows {
                    let r = Self::row(&m, k);
                    let rv = self.read(&r)?;
                    parts.push(self.dot(a, rv, n));
                }
                while parts.len() < 4 {
                    parts.push(self.b.f32c(0.0));
                }
                self.b.construct(&parts)
            }
            O::Pow => {
                let x = self.read_scalar(inst, 0)?;
                let y = self.read_scalar(inst, 1)?;
                let r = self.pow(x, y);
                self.splat4(r)
            }
            O::Crs => {
                let a = self.read_src(inst, 0)?;
                let b = self.read_src(inst, 1)?;
                let a3 = self.b.swizzle(a, &[0, 1, 2]);
                let b3 = self.b.swizzle(b, &[0, 1, 2]);
                let c = self.b.glsl(G::Cross, TypeId::VEC3, &[a3, b3]);
                let x = self.b.extract(c, 0);
                let y = self.b.extract(c, 1);
                let z = self.b.extract(c, 2);
                let zero = self.b.f32c(0.0);
                self.b.construct(&[x, y, z, zero])
            }
            O::Sgn => {
                let a = self.read_src(inst, 0)?;
                self.b.glsl(G::FSign, TypeId::VEC4, &[a])
            }
            O::Abs => {
                let a = self.read_src(inst, 0)?;
                self.b.glsl(G::FAbs, TypeId::VEC4, &[a])
            }
            O::Nrm => {
                let a = self.read_src(inst, 0)?;
                let d = self.dot(a, a, 3);
                let r = self.b.glsl(G::InverseSqrt, TypeId::F32, &[d]);
                let r = self.splat4(r);
                self.fmul(a, r)
            }
            O::SinCos => {
                let x = self.read_scalar(inst, 0)?;
                let c = self.b.glsl(G::Cos, TypeId::F32, &[x]);
                let s = self.b.glsl(G::Sin, TypeId::F32, &[x]);
                let zero = self.b.f32c(0.0);
                self.b.construct(&[c, s, zero, zero])
            }
            O::Cnd => {
                let a = self.read_src(inst, 0)?;
                let b = self.read_src(inst, 1)?;
                let c = self.read_src(inst, 2)?;
                // ps_1_1–1_3 compare r0.a (the w of the source); ps_1_4 per component.
                let a = if self.ver.ver() < 0x104 {
                    let w = self.b.extract(a, 3);
                    self.splat4(w)
                } else {
                    a
                };
                let half = self.fc(4, 0.5);
                let cond = self
                    .b
                    .op(Op::FOrdGreaterThan, super::regs::BVEC4, &[a, half]);
                self.select4(cond, b, c)
            }
            O::Cmp => {
                let a = self.read_src(inst, 0)?;
                let b = self.read_src(inst, 1)?;
                let c = self.read_src(inst, 2)?;
                let zero = self.fc(4, 0.0);
                let cond = self
                    .b
                    .op(Op::FOrdGreaterThanEqual, super::regs::BVEC4, &[a, zero]);
                self.select4(cond, b, c)
            }
            O::Dp2Add => {
                let a = self.read_src(inst, 0)?;
                let b = self.read_src(inst, 1)?;
                let c = self.read_src(inst, 2)?;
                let d = self.dot(a, b, 2);
                let c = self.b.extract(c, 0);
                let r = self.b.op(Op::FAdd, TypeId::F32, &[d, c]);
                self.splat4(r)
            }
            O::Dsx | O::Dsy => {
                if self.stage != crate::reflect::ShaderStage::Pixel {
                    return Err(self.invalid("derivatives outside a pixel shader"));
                }
                let a = self.read_src(inst, 0)?;
                let op = if inst.opcode == O::Dsx {
                    Op::DPdx
                } else {
                    Op::DPdy
                };
                self.b.op(op, TypeId::VEC4, &[a])
            }
            O::SetP => return self.setp(inst),
            _ => return Err(self.invalid("not an arithmetic instruction")),
        };
        if inst.opcode == O::Mov
            && inst.dst.is_some_and(|d| d.reg.ty == RT::AddrOrTexture)
            && self.stage == crate::reflect::ShaderStage::Vertex
            && self.ver.major >= 2
        {
            return Err(self
                .invalid("mov to a0 from vs_2_0 on")
                .with_rule(D3d9Rule::Mova.name()));
        }
        self.write(inst, v)
    }

    /// `lit`: (1, max(x, 0), x > 0 && y > 0 ? y^clamp(w, ±127.9961) : 0, 1).
    fn lit(&mut self, inst: &Instruction) -> R<Operand> {
        let s = self.read_src(inst, 0)?;
        let x = self.b.extract(s, 0);
        let y = self.b.extract(s, 1);
        let w = self.b.extract(s, 3);
        let zero = self.b.f32c(0.0);
        let one = self.b.f32c(1.0);
        let lim = self.b.f32c(127.9961);
        let nlim = self.b.f32c(-127.9961);
        let p = self.b.glsl(G::NClamp, TypeId::F32, &[w, nlim, lim]);
        let xpos = self.b.op(Op::FOrdGreaterThan, TypeId::BOOL, &[x, zero]);
        let ypos = self.b.op(Op::FOrdGreaterThan, TypeId::BOOL, &[y, zero]);
        let both = self.b.op(Op::LogicalAnd, TypeId::BOOL, &[xpos, ypos]);
        let py = self.pow(y, p);
        let z = self.b.op(Op::Select, TypeId::F32, &[both, py, zero]);
        let ry = self.b.op(Op::Select, TypeId::F32, &[xpos, x, zero]);
        Ok(self.b.construct(&[one, ry, z, one]))
    }

    /// `setp_cmp p0.mask, a, b`: per written component.
    fn setp(&mut self, inst: &Instruction) -> R<()> {
        let dst = inst
            .dst
            .ok_or_else(|| self.invalid("setp without a destination"))?;
        if dst.reg.ty != RT::Predicate {
            return Err(self.invalid("setp writes a register other than p0"));
        }
        let a = self.read_src(inst, 0)?;
        let b = self.read_src(inst, 1)?;
        let vars = *self
            .regs
            .get(&(RT::Predicate, 0))
            .ok_or_else(|| self.invalid("p0 without variables"))?;
        let crate::d3dbc::Controls::Compare(cmp) = inst.controls else {
            return Err(self.invalid("setp without a comparison"));
        };
        use crate::d3dbc::Comparison as C;
        let op = match cmp {
            C::Gt => Op::FOrdGreaterThan,
            C::Eq => Op::FOrdEqual,
            C::Ge => Op::FOrdGreaterThanEqual,
            C::Lt => Op::FOrdLessThan,
            C::Ne => Op::FUnordNotEqual,
            C::Le => Op::FOrdLessThanEqual,
        };
        for c in 0..4u8 {
            if dst.mask & (1 << c) == 0 {
                continue;
            }
            let x = self.b.extract(a, c);
            let y = self.b.extract(b, c);
            let r = self.b.op(op, TypeId::BOOL, &[x, y]);
            let r = self.predicated(inst, c, vars[c as usize], r)?;
            self.set_var(vars[c as usize], r);
        }
        Ok(())
    }
}

/// A matrix instruction's (components per dot product, rows): `m4x3 dst, v, c4` takes three
/// four-component dot products of `v` with `c4`, `c5` and `c6`. `None` for other opcodes.
pub(super) fn matrix_shape(op: Opcode) -> Option<(u8, u16)> {
    Some(match op {
        Opcode::M4x4 => (4, 4),
        Opcode::M4x3 => (4, 3),
        Opcode::M3x4 => (3, 4),
        Opcode::M3x3 => (3, 3),
        Opcode::M3x2 => (3, 2),
        _ => return None,
    })
}
