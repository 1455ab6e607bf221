//! Pull-model attribute evaluation: `eval_centroid`, `eval_sample_index`, `eval_snapped`.
//!
//! SPIR-V's `InterpolateAt*` take the Input *variable*, not a loaded value, so each component
//! is evaluated through the interface variable that holds it (one evaluation per variable and
//! instruction). D3D ignores the input's own centroid/sample qualifier here and does not force
//! sample-rate shading; so do the SPIR-V instructions. `eval_snapped` offsets are the low 4 bits
//! of each integer component, signed, in 1/16 pixel. Inputs that are not interpolated (flat,
//! integer, or built-ins such as the position) evaluate to their plain value.

use smallvec::SmallVec;
use spirv::{GlslStd450Op as Glsl, Op};

use super::io::{IoFile, PartKind};
use super::{Lowerer, R};
use crate::ir::{GlobalId, Operand, Scalar, TypeId, TypeTable};
use crate::reflect::ShaderStage;
use crate::sm4::{InstRef, InterpolationMode, Opcode, OperandType};

impl<'p, 'm> Lowerer<'p, 'm> {
    /// The `eval_*` family.
    pub(super) fn eval(&mut self, inst: &InstRef<'p>) -> R<()> {
        let ops = inst.operands;
        let need = if inst.opcode == Opcode::EvalCentroid {
            2
        } else {
            3
        };
        if ops.len() < need {
            return Err(self.invalid(format!(
                "{} with {} operands (expected {need})",
                inst.opcode.info().name,
                ops.len()
            )));
        }
        if self.stage != ShaderStage::Pixel {
            return Err(self.invalid("attribute evaluation outside a pixel shader"));
        }
        let (dst, src) = (&ops[0], &ops[1]);
        if src.ty != OperandType::Input || src.index_dim() != 1 {
            return Err(self.unsupported(format!(
                "{} of {} operands",
                inst.opcode.info().name,
                src.ty.name()
            )));
        }
        let reg = self.imm_register(src)?;
        let (ext, extra) = match inst.opcode {
            Opcode::EvalCentroid => (Glsl::InterpolateAtCentroid, None),
            Opcode::EvalSampleIndex => (
                Glsl::InterpolateAtSample,
                Some(self.read_scalar(&ops[2], Scalar::I32)?),
            ),
            Opcode::EvalSnapped => {
                let o = self.read_n(&ops[2], 2, Scalar::I32)?;
                let k = self.b.splat(Scalar::U32, 2, 28);
                let sh = self.b.op(Op::ShiftLeftLogical, TypeId::IVEC2, &[o, k]);
                let sx = self.b.op(Op::ShiftRightArithmetic, TypeId::IVEC2, &[sh, k]);
                let f = self.b.op(Op::ConvertSToF, TypeId::VEC2, &[sx]);
                let s = self
                    .b
                    .splat(Scalar::F32, 2, (1.0f32 / 16.0).to_bits() as u64);
                (
                    Glsl::InterpolateAtOffset,
                    Some(self.b.op(Op::FMul, TypeId::VEC2, &[f, s])),
                )
            }
            _ => unreachable!("eval family"),
        };
        let mask = match dst.components {
            crate::sm4::Components::One | crate::sm4::Components::Zero => 1,
            _ => dst.mask(),
        };
        let comps = super::regs::src_components(src, mask);
        if mask == 0 || comps.is_empty() {
            return Ok(());
        }
        let mut done: SmallVec<[(GlobalId, Operand); 2]> = SmallVec::new();
        let mut parts: SmallVec<[Operand; 4]> = SmallVec::new();
        for c in comps {
            let slot = self
                .io
                .file(IoFile::Input)
                .get(reg as usize)
                .ok_or_else(|| self.invalid(format!("input register v{reg} is not declared")))?;
            let flat = slot.interp == Some(InterpolationMode::Constant);
            let part = slot
                .parts
                .iter()
                .find(|p| c >= p.first && c < p.first + p.count)
                .map(|p| (p.global, p.first, p.count, p.scalar, p.kind));
            let value = match part {
                Some((g, first, count, Scalar::F32, PartKind::Location)) if !flat => {
                    let v = match done.iter().find(|d| d.0 == g) {
                        Some(&(_, v)) => v,
                        None => {
                            self.b
                                .m
                                .capability(spirv::Capability::InterpolationFunction);
                            let ty = TypeTable::vec(Scalar::F32, count);
                            let mut args: SmallVec<[Operand; 2]> =
                                smallvec::smallvec![Operand::Global(g)];
                            args.extend(extra);
                            let v = self.b.glsl(ext, ty, &args);
                            done.push((g, v));
                            v
                        }
                    };
                    self.b.extract(v, c - first)
                }
                _ => {
                    let (v, _) = self.read_input(reg, c)?;
                    self.b.bitcast(TypeId::F32, v)
                }
            };
            parts.push(value);
        }
        let mut v = self.b.construct(&parts);
        let ty = self.b.type_of(v);
        if src.modifier.abs() {
            v = self.b.glsl(Glsl::FAbs, ty, &[v]);
        }
        if src.modifier.neg() {
            v = self.b.op(Op::FNegate, ty, &[v]);
        }
        self.write(dst, v, Scalar::F32, inst.saturate)
    }
}
