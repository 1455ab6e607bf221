//! Residency feedback on raw and structured buffers (`ld_raw_s`, `ld_structured_s` with a
//! status operand). Storage buffers have no residency query in SPIR-V, so such an SRV is
//! declared as an R32_UINT uniform texel buffer instead (one texel per dword) and read with
//! `OpImageSparseFetch`, as DXVK and vkd3d-proton do through dxbc-spirv
//! (`useTypedForSparseFeedback`). The binding plan gives the SRV the texel buffer descriptor
//! type (`plan.rs`); [`crate::RawFeedback::Refuse`] keeps the old refusal.

use smallvec::SmallVec;
use spirv::{Dim, ImageFormat, Op, StorageClass};

use super::resources::{Range, ViewInfo, ViewKind};
use super::{Lowerer, R};
use crate::ir::{DecorationTarget, ImageType, Operand, Scalar, Type, TypeId, TypeTable};
use crate::reflect::{DescriptorType, RegisterClass, ResourceShape};
use crate::sm4::Operand as Sm4Operand;

impl Lowerer<'_, '_> {
    /// Declares raw (`stride` 0) or structured SRV `id` as an R32_UINT uniform texel buffer.
    pub(super) fn declare_texel_srv(&mut self, id: u32, mut range: Range, stride: u32) -> R<bool> {
        let image = self.b.m.types.intern(Type::Image(ImageType {
            sampled_type: Scalar::U32,
            dim: Dim::DimBuffer,
            depth: 0,
            arrayed: false,
            ms: false,
            sampled: 1,
            format: ImageFormat::Unknown,
        }));
        self.image_capabilities(Dim::DimBuffer, false, false, false);
        let shape = if stride == 0 {
            ResourceShape::RawBuffer
        } else {
            ResourceShape::StructuredBuffer { stride }
        };
        let g = self.declare_descriptor(
            RegisterClass::T,
            &mut range,
            id,
            image,
            StorageClass::UniformConstant,
            DescriptorType::UniformTexelBuffer,
            shape,
            false,
            false,
        )?;
        self.b
            .m
            .name(DecorationTarget::Global(g), format_args!("t{id}"));
        self.res.srvs.insert(
            id,
            ViewInfo {
                global: g,
                kind: ViewKind::TexelBuffer { stride, image },
                range,
                elem_ty: image,
                counter: None,
                globally_coherent: false,
            },
        );
        Ok(true)
    }

    /// Loads the components `src` selects for `dst`'s mask from texels `base + component` of
    /// the texel-buffer SRV `src` names. With `status`, each fetch is sparse and `status`
    /// gets a residency code that is resident only when every fetch was: the first
    /// non-resident fetch's code, else the last one's.
    pub(super) fn load_texel_dwords(
        &mut self,
        dst: &Sm4Operand,
        src: &Sm4Operand,
        info: &ViewInfo,
        base: Operand,
        status: Option<&Sm4Operand>,
    ) -> R<()> {
        let ViewKind::TexelBuffer { image, .. } = info.kind else {
            return Err(self.invalid("texel access to a storage buffer view"));
        };
        let mask = match dst.components {
            crate::sm4::Components::One | crate::sm4::Components::Zero => 1,
            _ => dst.mask(),
        };
        let comps = super::regs::src_components(src, mask);
        if mask == 0 || comps.is_empty() {
            return Ok(());
        }
        let p = self.descriptor_pointer(
            src,
            info.global,
            &info.range,
            image,
            StorageClass::UniformConstant,
        )?;
        let img = self.b.op(Op::Load, image, &[p]);
        if src.non_uniform {
            self.mark_non_uniform(img);
        }
        let v4 = TypeTable::vec(Scalar::U32, 4);
        let sparse_ty = status.map(|_| {
            self.b.m.capability(spirv::Capability::SparseResidency);
            self.need_feature("shaderResourceResidency");
            match self.res.sparse_structs.get(&v4) {
                Some(&t) => t,
                None => {
                    let t = self.b.m.types.new_struct(vec![TypeId::U32, v4]);
                    self.res.sparse_structs.insert(v4, t);
                    t
                }
            }
        });
        let mut loaded: [Option<Operand>; 4] = [None; 4];
        let mut code: Option<Operand> = None;
        let mut parts: SmallVec<[Operand; 4]> = SmallVec::new();
        for &c in &comps {
            let c = c as usize & 3;
            if let Some(v) = loaded[c] {
                parts.push(v);
                continue;
            }
            let idx = if c == 0 {
                base
            } else {
                let k = self.b.u32c(c as u32);
                self.b.op(Op::IAdd, TypeId::U32, &[base, k])
            };
            let texel = match sparse_ty {
                None => self.b.op(Op::ImageFetch, v4, &[img, idx]),
                Some(st) => {
                    let r = self.b.op(Op::ImageSparseFetch, st, &[img, idx]);
                    let this = self
                        .b
                        .op(Op::CompositeExtract, TypeId::U32, &[r, Operand::Lit(0)]);
                    code = Some(match code {
                        None => this,
                        Some(acc) => {
                            let resident =
                                self.b
                                    .op(Op::ImageSparseTexelsResident, TypeId::BOOL, &[acc]);
                            self.b.op(Op::Select, TypeId::U32, &[resident, this, acc])
                        }
                    });
                    self.b.op(Op::CompositeExtract, v4, &[r, Operand::Lit(1)])
                }
            };
            let v = self.b.extract(texel, 0);
            loaded[c] = Some(v);
            parts.push(v);
        }
        let v = self.b.construct(&parts);
        self.write(dst, v, Scalar::U32, false)?;
        if let (Some(status), Some(code)) = (status, code) {
            self.write(status, code, Scalar::U32, false)?;
        }
        Ok(())
    }
}
