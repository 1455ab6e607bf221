//! The immediate constant buffer as a uniform buffer ([`crate::IcbMode::UniformBuffer`]).
//! By default the `icb` is a private array initialised in the module; large ones read with
//! dynamic indices run far slower that way on some drivers (DXVK lowers them to a constant
//! buffer for this reason), so a caller may ask for a uniform buffer instead. It is placed by
//! the binding layout like constant buffer `b{register}` of `space` (the plan requests it,
//! `plan.rs`), and the reflection's descriptor carries the words the caller uploads.

use spirv::{Op, StorageClass};

use super::regs::Idx;
use super::resources::Range;
use super::{Lowerer, R};
use crate::binding::Placement;
use crate::ir::{DecorationTarget, GlobalId, Operand, Scalar, TypeId, TypeTable};
use crate::reflect::{DescriptorType, RegisterClass, ResourceShape};

impl Lowerer<'_, '_> {
    /// Declares the `icb` of `rows` as a uniform buffer `{ uvec4 rows[n]; }`.
    pub(super) fn declare_icb_buffer(
        &mut self,
        rows: Vec<[u32; 4]>,
        space: u32,
        register: u32,
    ) -> R<()> {
        let id = super::resources::ICB_ID;
        // The plan holds an ICB met before the program's first instruction; one after it
        // (in a later hull shader phase) has no place.
        let place = match self.placement(RegisterClass::B, id, false) {
            Ok(p) => p,
            Err(_) if self.res.plan.ready => {
                return Err(self.unsupported(
                    "an immediate constant buffer after the program's first instruction as a uniform buffer (IcbMode::UniformBuffer)",
                ));
            }
            Err(e) => return Err(e),
        };
        if let Placement::PushConstant { .. } = place {
            return Err(self.unsupported(format!(
                "the immediate constant buffer as b{register} in space {space} placed in push constants"
            )));
        }
        if let Placement::Descriptor {
            dynamic_offset: Some(_),
            ..
        } = place
        {
            return Err(self.unsupported(format!(
                "the immediate constant buffer as b{register} in space {space} placed with a dynamic descriptor offset"
            )));
        }
        let n = rows.len() as u32;
        let st = self.b.m.row_block(TypeId::UVEC4, n);
        let mut range = Range {
            space,
            lower: register,
            upper: Some(register),
            base: 0,
            array: false,
            descriptor_type: DescriptorType::UniformBuffer,
            dynamic: None,
        };
        let data = rows.iter().flatten().copied().collect();
        let g = self.declare_descriptor(
            RegisterClass::B,
            &mut range,
            id,
            st,
            StorageClass::Uniform,
            DescriptorType::UniformBuffer,
            ResourceShape::ImmediateConstantBuffer { data },
            false,
            false,
        )?;
        self.b
            .m
            .name(DecorationTarget::Global(g), format_args!("icb"));
        self.res.icb = Some((g, n));
        Ok(())
    }

    /// Loads row `i` of the `icb` uniform buffer `g` of `rows` rows; out-of-bounds dynamic
    /// indices read zero (D3D: like a constant buffer, §7.5), constant ones fold to zero.
    pub(super) fn load_icb_buffer_row(&mut self, g: GlobalId, rows: u32, i: Idx) -> R<Operand> {
        let ptr = self.b.m.types.pointer(StorageClass::Uniform, TypeId::UVEC4);
        let zero = self.b.u32c(0);
        match i {
            Idx::Imm(k) => {
                if k >= rows {
                    return Ok(self.b.splat(Scalar::U32, 4, 0));
                }
                let k = self.b.u32c(k);
                let p = self
                    .b
                    .op(Op::AccessChain, ptr, &[Operand::Global(g), zero, k]);
                Ok(self.b.op(Op::Load, TypeId::UVEC4, &[p]))
            }
            Idx::Dyn(v) => {
                let last = self.b.u32c(rows - 1);
                let clamped = self
                    .b
                    .glsl(spirv::GlslStd450Op::UMin, TypeId::U32, &[v, last]);
                let p = self
                    .b
                    .op(Op::AccessChain, ptr, &[Operand::Global(g), zero, clamped]);
                let row = self.b.op(Op::Load, TypeId::UVEC4, &[p]);
                let n = self.b.u32c(rows);
                let inb = self.b.op(Op::ULessThan, TypeId::BOOL, &[v, n]);
                let zeros = self.b.splat(Scalar::U32, 4, 0);
                let bv = TypeTable::vec(Scalar::Bool, 4);
                let cond = self.b.op(Op::CompositeConstruct, bv, &[inb, inb, inb, inb]);
                Ok(self.b.op(Op::Select, TypeId::UVEC4, &[cond, row, zeros]))
            }
        }
    }
}
