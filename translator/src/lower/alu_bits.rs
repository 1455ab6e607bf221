//! Bit instructions: shifts, bit-field extract/insert, bit scans and counts, `msad`.
//!
//! D3D defines these for every input; SPIR-V leaves several undefined (shift counts ≥ 32,
//! BitField* with offset + count > 32), so the D3D rules are applied first (D3D11.3
//! functional spec §22.11, see `docs/semantics.md`):
//!
//! - shift counts use their low 5 bits (§22.11.7/8/12);
//! - `ubfe`/`ibfe`/`bfi` take width and offset modulo 32; width 0 gives 0 (`bfi`: the base);
//!   width + offset ≥ 32 extracts up to bit 31 (a plain shift right) and `bfi` cuts its mask
//!   at bit 31 (§22.11.2/6/11) — both are BitField* with count = min(width, 32 - offset);
//! - `firstbit_hi`/`_shi` count from the most significant bit, and every variant returns
//!   0xffffffff when no bit matches (§22.11.5).
//!
//! Bit-field operands are usually immediates: those are folded here (`& 31`, the count, the
//! masks), and a field that differs per component becomes shift/mask vector code instead of
//! one scalar BitField* per component (SPIR-V's Offset and Count are scalars).

use smallvec::SmallVec;
use spirv::{GlslStd450Op as Glsl, Op};

use super::alu::{Map, dst_mask, dst_width};
use super::regs::src_components;
use super::{Lowerer, R};
use crate::ir::{Operand, Scalar, TypeTable};
use crate::sm4::{InstRef, Modifier, Opcode, Operand as Sm4Operand, OperandType};

/// A bit-field parameter (width or offset, already taken modulo 32) across the destination
/// components.
#[derive(Clone)]
enum Field {
    /// Immediate, one value per destination component.
    Consts(SmallVec<[u32; 4]>),
    /// One run-time value shared by every component (a `u32` scalar).
    Uniform(Operand),
    /// Run-time values that may differ per component: read per component.
    Varying,
}

/// The immediate values of `op` for source components `comps`, when `op` is an immediate.
fn imm_values(op: &Sm4Operand, comps: &[u8]) -> Option<SmallVec<[u32; 4]>> {
    if op.ty != OperandType::Immediate32 || op.modifier != Modifier::None {
        return None;
    }
    let imm = op.immediates();
    Some(
        comps
            .iter()
            .map(|&c| {
                if imm.len() == 1 {
                    imm[0]
                } else {
                    imm.get(c as usize & 3).copied().unwrap_or(0)
                }
            })
            .collect(),
    )
}

/// The BitField* count for a D3D width and offset (both < 32): extraction or insertion stops
/// at bit 31.
fn field_count(width: u32, offset: u32) -> u32 {
    width.min(32 - offset)
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// Lowers a bit instruction; false when `inst` is not one.
    pub(super) fn alu_bits(&mut self, inst: &InstRef<'p>) -> R<bool> {
        use Scalar::*;
        match inst.opcode {
            Opcode::IShl => self.shift(inst, U32, Op::ShiftLeftLogical)?,
            Opcode::IShr => self.shift(inst, U32, Op::ShiftRightArithmetic)?,
            Opcode::UShr => self.shift(inst, U32, Op::ShiftRightLogical)?,
            Opcode::CountBits => self.simple(inst, U32, Map::Op(Op::BitCount), 1)?,
            Opcode::BfRev => self.simple(inst, U32, Map::Op(Op::BitReverse), 1)?,
            Opcode::FirstBitLo => self.simple(inst, U32, Map::Glsl(Glsl::FindILsb), 1)?,
            Opcode::FirstBitHi | Opcode::FirstBitShi => self.firstbit_high(inst)?,
            Opcode::UBfe | Opcode::IBfe => self.bitfield_extract(inst)?,
            Opcode::Bfi => self.bitfield_insert(inst)?,
            Opcode::Msad => self.msad(inst)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Shifts: the count uses its low 5 bits (an immediate count folds).
    fn shift(&mut self, inst: &InstRef<'p>, s: Scalar, op: Op) -> R<()> {
        let dst = &inst.operands[0];
        let mask = dst_mask(dst);
        let n = dst_width(dst);
        let ty = TypeTable::vec(s, n);
        let a = self.read(&inst.operands[1], mask, s)?;
        let c = self.read(&inst.operands[2], mask, Scalar::U32)?;
        let c = self.mod32(c, n);
        let r = self.b.op(op, ty, &[a, c]);
        self.write(dst, r, s, false)
    }

    /// `x & 31` for a `u32` scalar or vector of `n` components.
    fn mod32(&mut self, x: Operand, n: u8) -> Operand {
        let m = self.b.splat(Scalar::U32, n, 31);
        self.b
            .op(Op::BitwiseAnd, TypeTable::vec(Scalar::U32, n), &[x, m])
    }

    /// `firstbit_hi` / `firstbit_shi`: the index counted from the MSB of the first 1 bit
    /// (`_shi`: of the first bit that differs from the sign bit), 0xffffffff when none.
    /// Counting from the MSB is counting from the LSB of the bit-reversed value, and
    /// FindILsb already returns -1 for zero: 31 - FindUMsb(x) == FindILsb(BitReverse(x)).
    fn firstbit_high(&mut self, inst: &InstRef<'p>) -> R<()> {
        let dst = &inst.operands[0];
        let mask = dst_mask(dst);
        let n = dst_width(dst);
        let uty = TypeTable::vec(Scalar::U32, n);
        let mut x = self.read(&inst.operands[1], mask, Scalar::U32)?;
        if inst.opcode == Opcode::FirstBitShi {
            // Negative values: look for the first 0, i.e. the first 1 of ~x.
            let k31 = self.b.splat(Scalar::U32, n, 31);
            let sign = self.b.op(Op::ShiftRightArithmetic, uty, &[x, k31]);
            x = self.b.op(Op::BitwiseXor, uty, &[x, sign]);
        }
        let rev = self.b.op(Op::BitReverse, uty, &[x]);
        let r = self.b.glsl(Glsl::FindILsb, uty, &[rev]);
        self.write(dst, r, Scalar::U32, false)
    }

    /// Classifies a width or offset operand across the destination mask, taking it modulo 32.
    fn field(&mut self, op: &Sm4Operand, mask: u8) -> R<Field> {
        let comps = src_components(op, mask);
        if let Some(v) = imm_values(op, &comps) {
            return Ok(Field::Consts(v.iter().map(|x| x & 31).collect()));
        }
        if comps.iter().all(|&c| c == comps[0]) {
            let x = self.read_comps(op, &comps[..1], Scalar::U32)?;
            return Ok(Field::Uniform(self.mod32(x, 1)));
        }
        Ok(Field::Varying)
    }

    /// A field as one scalar operand, when it is the same for every component.
    fn field_scalar(&mut self, f: &Field) -> Option<(Operand, Option<u32>)> {
        match f {
            Field::Consts(v) if v.iter().all(|&x| x == v[0]) => {
                Some((self.b.u32c(v[0]), Some(v[0])))
            }
            Field::Uniform(x) => Some((*x, None)),
            _ => None,
        }
    }

    /// The scalar BitField* (offset, count) for width `w` and offset `o` scalars.
    fn field_offset_count(
        &mut self,
        w: (Operand, Option<u32>),
        o: (Operand, Option<u32>),
    ) -> (Operand, Operand) {
        let count = match (w.1, o.1) {
            (Some(w), Some(o)) => self.b.u32c(field_count(w, o)),
            _ => {
                let k32 = self.b.u32c(32);
                let room = self
                    .b
                    .op(Op::ISub, TypeTable::vec(Scalar::U32, 1), &[k32, o.0]);
                self.b
                    .glsl(Glsl::UMin, TypeTable::vec(Scalar::U32, 1), &[w.0, room])
            }
        };
        (o.0, count)
    }

    /// Width and offset of destination component `i` as scalars (per-component path).
    fn field_at(
        &mut self,
        f: &Field,
        op: &Sm4Operand,
        mask: u8,
        i: usize,
    ) -> R<(Operand, Option<u32>)> {
        Ok(match f {
            Field::Consts(v) => (self.b.u32c(v[i]), Some(v[i])),
            Field::Uniform(x) => (*x, None),
            Field::Varying => {
                let comps = src_components(op, mask);
                let x = self.read_comps(op, &comps[i..i + 1], Scalar::U32)?;
                (self.mod32(x, 1), None)
            }
        })
    }

    /// `ubfe`/`ibfe dst, width, offset, src` (§22.11.6, §22.11.11).
    fn bitfield_extract(&mut self, inst: &InstRef<'p>) -> R<()> {
        let signed = inst.opcode == Opcode::IBfe;
        let s = Scalar::U32;
        let op = if signed {
            Op::BitFieldSExtract
        } else {
            Op::BitFieldUExtract
        };
        let dst = &inst.operands[0];
        let mask = dst_mask(dst);
        let n = dst_width(dst);
        let ty = TypeTable::vec(s, n);
        let wf = self.field(&inst.operands[1], mask)?;
        let of = self.field(&inst.operands[2], mask)?;
        let x = self.read(&inst.operands[3], mask, s)?;
        // One field for every component: one BitField* instruction.
        if let (Some(w), Some(o)) = (self.field_scalar(&wf), self.field_scalar(&of)) {
            if w.1 == Some(0) {
                let zero = self.b.splat(s, n, 0);
                return self.write(dst, zero, s, false);
            }
            let (off, count) = self.field_offset_count(w, o);
            let r = self.b.op(op, ty, &[x, off, count]);
            return self.write(dst, r, s, false);
        }
        // Immediate fields that differ per component: shifts and masks by constant vectors.
        if let (Field::Consts(w), Field::Consts(o)) = (&wf, &of) {
            let r = if signed {
                // (x << (32 - w - o)) >> (32 - w) when the field ends below bit 32, else
                // x >> o; width 0 gives 0 (masked out after the shifts).
                let mut left: SmallVec<[u64; 4]> = SmallVec::new();
                let mut right: SmallVec<[u64; 4]> = SmallVec::new();
                let mut keep: SmallVec<[u64; 4]> = SmallVec::new();
                for (&w, &o) in w.iter().zip(o.iter()) {
                    let (l, r) = if w + o < 32 {
                        (32 - w - o, 32 - w)
                    } else {
                        (0, o)
                    };
                    left.push(l as u64);
                    right.push(r as u64);
                    keep.push(if w == 0 { 0 } else { 0xffff_ffff });
                }
                let l = Operand::Const(self.b.m.consts.vector(Scalar::U32, &left));
                let rr = Operand::Const(self.b.m.consts.vector(Scalar::U32, &right));
                let t = self.b.op(Op::ShiftLeftLogical, ty, &[x, l]);
                let mut r = self.b.op(Op::ShiftRightArithmetic, ty, &[t, rr]);
                if keep.contains(&0) {
                    let k = Operand::Const(self.b.m.consts.vector(Scalar::U32, &keep));
                    r = self.b.op(Op::BitwiseAnd, ty, &[r, k]);
                }
                r
            } else {
                // (x >> o) & ((1 << w) - 1): the mask also covers width 0 and fields that
                // run past bit 31 (the shift leaves only 32 - o bits).
                let shifts: SmallVec<[u64; 4]> = o.iter().map(|&o| o as u64).collect();
                let masks: SmallVec<[u64; 4]> =
                    w.iter().map(|&w| ((1u64 << w) - 1) & 0xffff_ffff).collect();
                let sh = Operand::Const(self.b.m.consts.vector(Scalar::U32, &shifts));
                let m = Operand::Const(self.b.m.consts.vector(Scalar::U32, &masks));
                let t = self.b.op(Op::ShiftRightLogical, ty, &[x, sh]);
                self.b.op(Op::BitwiseAnd, ty, &[t, m])
            };
            return self.write(dst, r, s, false);
        }
        // Run-time fields that differ per component: one scalar BitField* per component.
        let sty = TypeTable::vec(s, 1);
        let mut parts: SmallVec<[Operand; 4]> = SmallVec::new();
        for i in 0..n as usize {
            let w = self.field_at(&wf, &inst.operands[1], mask, i)?;
            let o = self.field_at(&of, &inst.operands[2], mask, i)?;
            let xi = self.b.extract(x, i as u8);
            let (off, count) = self.field_offset_count(w, o);
            parts.push(self.b.op(op, sty, &[xi, off, count]));
        }
        let r = self.b.construct(&parts);
        self.write(dst, r, s, false)
    }

    /// `bfi dst, width, offset, insert, base` (§22.11.2): the low `width` bits of `insert`
    /// replace bits `offset..` of `base`, the mask cut at bit 31.
    fn bitfield_insert(&mut self, inst: &InstRef<'p>) -> R<()> {
        let u = Scalar::U32;
        let dst = &inst.operands[0];
        let mask = dst_mask(dst);
        let n = dst_width(dst);
        let ty = TypeTable::vec(u, n);
        let wf = self.field(&inst.operands[1], mask)?;
        let of = self.field(&inst.operands[2], mask)?;
        let insert = self.read(&inst.operands[3], mask, u)?;
        let base = self.read(&inst.operands[4], mask, u)?;
        if let (Some(w), Some(o)) = (self.field_scalar(&wf), self.field_scalar(&of)) {
            if w.1 == Some(0) {
                return self.write(dst, base, u, false);
            }
            let (off, count) = self.field_offset_count(w, o);
            let r = self
                .b
                .op(Op::BitFieldInsert, ty, &[base, insert, off, count]);
            return self.write(dst, r, u, false);
        }
        if let (Field::Consts(w), Field::Consts(o)) = (&wf, &of) {
            // ((insert << o) & m) | (base & ~m), m = ((1 << w) - 1) << o cut to 32 bits.
            let shifts: SmallVec<[u64; 4]> = o.iter().map(|&o| o as u64).collect();
            let masks: SmallVec<[u64; 4]> = w
                .iter()
                .zip(o.iter())
                .map(|(&w, &o)| (((1u64 << w) - 1) << o) & 0xffff_ffff)
                .collect();
            let inv: SmallVec<[u64; 4]> = masks.iter().map(|&m| !m & 0xffff_ffff).collect();
            let sh = Operand::Const(self.b.m.consts.vector(u, &shifts));
            let m = Operand::Const(self.b.m.consts.vector(u, &masks));
            let im = Operand::Const(self.b.m.consts.vector(u, &inv));
            let t = self.b.op(Op::ShiftLeftLogical, ty, &[insert, sh]);
            let t = self.b.op(Op::BitwiseAnd, ty, &[t, m]);
            let k = self.b.op(Op::BitwiseAnd, ty, &[base, im]);
            let r = self.b.op(Op::BitwiseOr, ty, &[t, k]);
            return self.write(dst, r, u, false);
        }
        let sty = TypeTable::vec(u, 1);
        let mut parts: SmallVec<[Operand; 4]> = SmallVec::new();
        for i in 0..n as usize {
            let w = self.field_at(&wf, &inst.operands[1], mask, i)?;
            let o = self.field_at(&of, &inst.operands[2], mask, i)?;
            let ins = self.b.extract(insert, i as u8);
            let bs = self.b.extract(base, i as u8);
            let (off, count) = self.field_offset_count(w, o);
            parts.push(self.b.op(Op::BitFieldInsert, sty, &[bs, ins, off, count]));
        }
        let r = self.b.construct(&parts);
        self.write(dst, r, u, false)
    }

    /// `msad dst, ref, src, accum` (§22.12.15): accum + Σ |ref.byte[i] - src.byte[i]| over
    /// the bytes whose reference byte is not 0. The sum wraps (the spec allows wrapping or
    /// saturating).
    fn msad(&mut self, inst: &InstRef<'p>) -> R<()> {
        let u = Scalar::U32;
        let dst = &inst.operands[0];
        let mask = dst_mask(dst);
        let n = dst_width(dst);
        let ty = TypeTable::vec(u, n);
        let bty = TypeTable::vec(Scalar::Bool, n);
        let rf = self.read(&inst.operands[1], mask, u)?;
        let sr = self.read(&inst.operands[2], mask, u)?;
        let mut acc = self.read(&inst.operands[3], mask, u)?;
        let eight = self.b.u32c(8);
        let zero = self.b.splat(u, n, 0);
        for i in 0..4u32 {
            let off = self.b.u32c(8 * i);
            let r = self.b.op(Op::BitFieldUExtract, ty, &[rf, off, eight]);
            let s = self.b.op(Op::BitFieldUExtract, ty, &[sr, off, eight]);
            let d = self.b.op(Op::ISub, ty, &[r, s]);
            let d = self.b.glsl(Glsl::SAbs, ty, &[d]);
            let skip = self.b.op(Op::IEqual, bty, &[r, zero]);
            let d = self.b.op(Op::Select, ty, &[skip, zero, d]);
            acc = self.b.op(Op::IAdd, ty, &[acc, d]);
        }
        self.write(dst, acc, u, false)
    }
}
