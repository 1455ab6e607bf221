//! Raw and structured buffers (and UAV counters) as R32_UINT texel buffers, one texel per
//! dword, instead of storage buffers: SRVs as uniform texel buffers read with `OpImageFetch`,
//! UAVs as storage texel buffers (`R32ui`) read and written with `OpImageRead`/`OpImageWrite`,
//! their atomics and counters through `OpImageTexelPointer`.
//!
//! Two reasons lead here. Storage buffers have no residency query in SPIR-V, so an SRV read
//! with residency feedback (`ld_raw_s`, `ld_structured_s` with a status operand) is a texel
//! buffer read with `OpImageSparseFetch`, as DXVK and vkd3d-proton do through dxbc-spirv
//! (`useTypedForSparseFeedback`; [`crate::RawFeedback::Refuse`] keeps the old refusal). And a
//! D3D12 layer may bind every buffer view as a texel buffer (vkd3d does), which
//! [`crate::TexelBuffers`] asks for. The binding plan gives such views their texel-buffer
//! descriptor types (`resources/plan.rs`); the byte and structure addressing is `memory.rs`'s.

use smallvec::SmallVec;
use spirv::{Decoration, Dim, ImageFormat, Op, StorageClass};

use super::resources::{Range, ViewInfo, ViewKind};
use super::{Lowerer, R};
use crate::ir::{DecorationTarget, GlobalId, ImageType, Operand, Scalar, Type, TypeId, TypeTable};
use crate::reflect::{DescriptorType, RegisterClass, ResourceShape};
use crate::sm4::Operand as Sm4Operand;

impl Lowerer<'_, '_> {
    /// The R32_UINT buffer image type: sampled (`storage` false) or storage (`R32ui`).
    pub(super) fn texel_image(&mut self, storage: bool) -> TypeId {
        let image = self.b.m.types.intern(Type::Image(ImageType {
            sampled_type: Scalar::U32,
            dim: Dim::DimBuffer,
            depth: 0,
            arrayed: false,
            ms: false,
            sampled: if storage { 2 } else { 1 },
            format: if storage {
                ImageFormat::R32ui
            } else {
                ImageFormat::Unknown
            },
        }));
        self.image_capabilities(Dim::DimBuffer, false, false, storage);
        image
    }

    /// Declares raw (`stride` 0) or structured SRV `id` as an R32_UINT uniform texel buffer.
    pub(super) fn declare_texel_srv(&mut self, id: u32, mut range: Range, stride: u32) -> R<bool> {
        let image = self.texel_image(false);
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
                kind: ViewKind::TexelBuffer {
                    stride,
                    image,
                    storage: false,
                },
                range,
                elem_ty: image,
                counter: None,
                globally_coherent: false,
            },
        );
        Ok(true)
    }

    /// Declares raw (`stride` 0) or structured UAV `id` as an R32_UINT storage texel buffer;
    /// the caller records the view (with its counter).
    pub(super) fn declare_texel_uav(
        &mut self,
        id: u32,
        range: &mut Range,
        stride: u32,
        coherent: bool,
    ) -> R<(GlobalId, ViewKind, TypeId)> {
        let image = self.texel_image(true);
        let shape = if stride == 0 {
            ResourceShape::RawBuffer
        } else {
            ResourceShape::StructuredBuffer { stride }
        };
        let g = self.declare_descriptor(
            RegisterClass::U,
            range,
            id,
            image,
            StorageClass::UniformConstant,
            DescriptorType::StorageTexelBuffer,
            shape,
            true,
            false,
        )?;
        if coherent {
            self.b
                .m
                .decorate(DecorationTarget::Global(g), Decoration::Coherent, &[]);
        }
        let kind = ViewKind::TexelBuffer {
            stride,
            image,
            storage: true,
        };
        Ok((g, kind, image))
    }

    /// Declares the counter of UAV `id` as an R32_UINT storage texel buffer whose texel 0 is
    /// the count; returns its global and image type.
    pub(super) fn declare_texel_counter(
        &mut self,
        id: u32,
        range: &mut Range,
    ) -> R<(GlobalId, TypeId)> {
        let image = self.texel_image(true);
        let g = self.declare_descriptor(
            RegisterClass::U,
            range,
            id,
            image,
            StorageClass::UniformConstant,
            DescriptorType::StorageTexelBuffer,
            ResourceShape::Counter,
            true,
            true,
        )?;
        Ok((g, image))
    }

    /// A pointer (`Image` storage class) to texel `index` of the storage texel buffer the
    /// pointer `image_ptr` (to an `image` descriptor) names, for atomics.
    pub(super) fn texel_pointer(
        &mut self,
        image_ptr: Operand,
        index: Operand,
        non_uniform: bool,
    ) -> Operand {
        let ptr = self.b.m.types.pointer(StorageClass::Image, TypeId::U32);
        let zero = self.b.u32c(0);
        let p = self
            .b
            .op(Op::ImageTexelPointer, ptr, &[image_ptr, index, zero]);
        if non_uniform {
            self.mark_non_uniform(p);
        }
        p
    }

    /// Stores `value`'s components for `dst`'s mask to texels `base + component` of the
    /// storage texel buffer `dst` names (`base` `None`: a constant index past 2^32 dwords,
    /// which robustness drops).
    pub(super) fn store_texel_dwords(
        &mut self,
        dst: &Sm4Operand,
        value: &Sm4Operand,
        info: &ViewInfo,
        base: Operand,
    ) -> R<()> {
        let ViewKind::TexelBuffer { image, .. } = info.kind else {
            return Err(self.invalid("texel access to a storage buffer view"));
        };
        let mask = dst.mask();
        if mask == 0 {
            return Ok(());
        }
        let v = self.read(value, mask, Scalar::U32)?;
        let p = self.descriptor_pointer(
            dst,
            info.global,
            &info.range,
            image,
            StorageClass::UniformConstant,
        )?;
        let img = self.b.op(Op::Load, image, &[p]);
        if dst.non_uniform {
            self.mark_non_uniform(img);
        }
        let mut i = 0u8;
        for c in 0..4u32 {
            if mask & (1 << c) == 0 {
                continue;
            }
            let x = self.b.extract(v, i);
            i += 1;
            let idx = self.texel_index(base, c);
            // An R32 texel: only the first component is stored.
            let texel = self.b.construct(&[x, x, x, x]);
            self.b.op_void(Op::ImageWrite, &[img, idx, texel]);
        }
        Ok(())
    }

    /// Texel `base + c`.
    fn texel_index(&mut self, base: Operand, c: u32) -> Operand {
        if c == 0 {
            return base;
        }
        let k = self.b.u32c(c);
        self.b.op(Op::IAdd, TypeId::U32, &[base, k])
    }

    /// Loads the components `src` selects for `dst`'s mask from texels `base + component` of
    /// the texel-buffer SRV or UAV `src` names. With `status`, each fetch is sparse and `status`
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
        let ViewKind::TexelBuffer { image, storage, .. } = info.kind else {
            return Err(self.invalid("texel access to a storage buffer view"));
        };
        let (fetch, sparse_fetch) = if storage {
            (Op::ImageRead, Op::ImageSparseRead)
        } else {
            (Op::ImageFetch, Op::ImageSparseFetch)
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
            let idx = self.texel_index(base, c as u32);
            let texel = match sparse_ty {
                None => self.b.op(fetch, v4, &[img, idx]),
                Some(st) => {
                    let r = self.b.op(sparse_fetch, st, &[img, idx]);
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
