//! Input values computed in the entry block, so that they dominate every use: each input part
//! is loaded once, and D3D's value is made from the built-in's there (`SV_Position.w` from
//! `FragCoord.w`, `SV_IsFrontFace` and `SV_InnerCoverage` from booleans, `SV_VertexID` and
//! `SV_InstanceID` relative to the base vertex and instance, clip/cull distances gathered from
//! their arrays).

use smallvec::SmallVec;
use spirv::{BuiltIn, Op, StorageClass};

use super::{IoPart, IoReg, PartKind};
use crate::ir::{GlobalId, Operand, Scalar, TypeId, TypeTable};
use crate::lower::Lowerer;

impl<'p, 'm> Lowerer<'p, 'm> {
    /// Loads a value in the entry block (so it dominates every use).
    pub(super) fn load_in_entry(&mut self, g: GlobalId, pointee: TypeId) -> Operand {
        let entry = self.b.f.entry();
        let v = self.b.f.add_inst(crate::ir::Inst::new(
            Op::Load,
            pointee,
            smallvec::smallvec![Operand::Global(g)],
        ));
        self.b.f.block_mut(entry).insts.push(v);
        Operand::Value(v)
    }

    pub(in crate::lower) fn entry_op(&mut self, op: Op, ty: TypeId, args: &[Operand]) -> Operand {
        let entry = self.b.f.entry();
        let v = self.b.f.add_inst(crate::ir::Inst::new(
            op,
            ty,
            crate::ir::Args::from_slice(args),
        ));
        self.b.f.block_mut(entry).insts.push(v);
        Operand::Value(v)
    }

    /// `v` as `u32`, computed in the entry block.
    pub(super) fn entry_bitcast_u32(&mut self, v: Operand) -> Operand {
        let ty = self.b.type_of(v);
        if ty == TypeId::U32 {
            return v;
        }
        if let Operand::Const(c) = v
            && let Some(k) = crate::ir::builder::recast_const(
                &mut self.b.m.consts,
                &self.b.m.types,
                c,
                TypeId::U32,
            )
        {
            return Operand::Const(k);
        }
        self.entry_op(Op::Bitcast, TypeId::U32, &[v])
    }

    /// Whether the pixel shader runs once per sample (it reads `SV_SampleIndex` or has an input
    /// with `sample` interpolation, which makes SPIR-V's FragCoord the sample's position) while
    /// its `SV_Position` is not `sample`-interpolated, so that xy must be moved back to the pixel
    /// centre D3D gives.
    fn position_at_pixel_centre_per_sample(&self) -> bool {
        use crate::sm4::{InterpolationMode as I, SystemName};
        let sample = |r: &IoReg| {
            matches!(
                r.interp,
                Some(I::LinearSample | I::LinearNoPerspectiveSample)
            )
        };
        let declared = || self.io.inputs.iter().filter(|r| r.declared);
        let per_sample = declared().any(|r| r.sysval == Some(SystemName::SampleIndex) || sample(r));
        let position_sample =
            declared().any(|r| r.sysval == Some(SystemName::Position) && sample(r));
        per_sample && !position_sample
    }

    /// The loaded value of an input part (loaded on first use), in the part's own type.
    pub(in crate::lower) fn load_part(&mut self, part: &IoPart) -> Operand {
        let pointee = TypeTable::vec(part.scalar, part.count);
        match part.kind {
            PartKind::Location | PartKind::BuiltIn => self.load_in_entry(part.global, pointee),
            PartKind::FragCoord => {
                let mut v = self.load_in_entry(part.global, TypeId::VEC4);
                if self.position_at_pixel_centre_per_sample() {
                    // Per-sample execution puts FragCoord.xy at the sample; D3D's SV_Position
                    // without `sample` interpolation stays at the pixel centre (§16.3).
                    let half = self.b.f32c(0.5);
                    for c in 0..2 {
                        let x =
                            self.entry_op(Op::CompositeExtract, TypeId::F32, &[v, Operand::Lit(c)]);
                        let floor = Operand::Lit(spirv::GlslStd450Op::Floor as u32);
                        let f = self.entry_op(Op::ExtInst, TypeId::F32, &[floor, x]);
                        let centre = self.entry_op(Op::FAdd, TypeId::F32, &[f, half]);
                        v = self.entry_op(
                            Op::CompositeInsert,
                            TypeId::VEC4,
                            &[centre, v, Operand::Lit(c)],
                        );
                    }
                }
                // D3D's SV_Position.w is clip-space w; FragCoord.w is 1/w.
                let w = self.entry_op(Op::CompositeExtract, TypeId::F32, &[v, Operand::Lit(3)]);
                let one = self.b.f32c(1.0);
                let rw = self.entry_op(Op::FDiv, TypeId::F32, &[one, w]);
                self.entry_op(Op::CompositeInsert, TypeId::VEC4, &[rw, v, Operand::Lit(3)])
            }
            PartKind::FrontFacing => {
                let v = self.load_in_entry(part.global, TypeId::BOOL);
                let t = self.b.u32c(!0);
                let f = self.b.u32c(0);
                self.entry_op(Op::Select, TypeId::U32, &[v, t, f])
            }
            PartKind::FullyCovered => {
                let v = self.load_in_entry(part.global, TypeId::BOOL);
                let t = self.b.u32c(1);
                let f = self.b.u32c(0);
                self.entry_op(Op::Select, TypeId::U32, &[v, t, f])
            }
            PartKind::VertexId | PartKind::InstanceId => {
                let (key, bi) = if part.kind == PartKind::VertexId {
                    ("BaseVertex", BuiltIn::BaseVertex)
                } else {
                    ("BaseInstance", BuiltIn::BaseInstance)
                };
                let base = self.builtin_global(key, bi, TypeId::I32, StorageClass::Input);
                let v = self.load_in_entry(part.global, TypeId::I32);
                let b = self.load_in_entry(base, TypeId::I32);
                self.entry_op(Op::ISub, TypeId::I32, &[v, b])
            }
            PartKind::SampleMask => {
                let zero = self.b.u32c(0);
                let ptr = self.b.m.types.pointer(StorageClass::Input, TypeId::U32);
                let p = self.entry_op(Op::AccessChain, ptr, &[Operand::Global(part.global), zero]);
                self.entry_op(Op::Load, TypeId::U32, &[p])
            }
            PartKind::TessLevel { index, .. } => {
                let ptr = self.b.m.types.pointer(StorageClass::Input, TypeId::F32);
                let idx = self.b.u32c(index as u32);
                let p = self.entry_op(Op::AccessChain, ptr, &[Operand::Global(part.global), idx]);
                self.entry_op(Op::Load, TypeId::F32, &[p])
            }
            PartKind::ClipCull { offset } => {
                let ptr = self.b.m.types.pointer(StorageClass::Input, TypeId::F32);
                let mut comps: SmallVec<[Operand; 4]> = SmallVec::new();
                for i in 0..part.count as u32 {
                    let idx = self.b.u32c(offset + i);
                    let p =
                        self.entry_op(Op::AccessChain, ptr, &[Operand::Global(part.global), idx]);
                    comps.push(self.entry_op(Op::Load, TypeId::F32, &[p]));
                }
                if comps.len() == 1 {
                    comps[0]
                } else {
                    let ty = TypeTable::vec(Scalar::F32, part.count);
                    self.entry_op(Op::CompositeConstruct, ty, &comps)
                }
            }
        }
    }
}
