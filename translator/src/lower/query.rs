//! Resource queries: `resinfo`, `sampleinfo`, `samplepos`, `bufinfo` and `lod`.
//!
//! SPIR-V's image queries are close to D3D's but leave the edge cases undefined where D3D
//! defines them: a mip level past the view's last gives sizes of 0 (∞ with `_rcpFloat`) and
//! still the mip count in `.w`; UAVs have one mip; a sample index past the sample count gives
//! the position (0, 0); buffer sizes count elements, bytes or structures *of the view*. Each
//! query checks its inputs and selects the D3D answer, without branches. Sample positions come
//! from a private table of the standard D3D patterns (Vulkan's standard sample locations are
//! the same), since SPIR-V has no query for them.

use smallvec::SmallVec;
use spirv::{Capability, Op, StorageClass};

use super::resources::ViewKind;
use super::{Lowerer, R};
use crate::ir::{Const, Operand, Scalar, Type, TypeId, TypeTable};
use crate::sm4::{InstRef, OpControl, OperandType, ResInfoReturnType, ResourceDimension};

/// The D3D standard sample patterns for 1, 2, 4, 8 and 16 samples, in 1/16 pixel from the
/// pixel centre; the pattern for `n` samples starts at entry `n - 1`.
const SAMPLE_POSITIONS: [(i8, i8); 31] = [
    (0, 0),
    (4, 4),
    (-4, -4),
    (-2, -6),
    (6, -2),
    (-6, 2),
    (2, 6),
    (1, -3),
    (-1, 3),
    (5, 1),
    (-3, -5),
    (-5, 5),
    (-7, -1),
    (3, 7),
    (7, -7),
    (1, 1),
    (-1, -3),
    (-3, 2),
    (4, -1),
    (-5, -2),
    (2, 5),
    (5, 3),
    (3, -5),
    (-2, 6),
    (0, -7),
    (-4, -6),
    (-6, 4),
    (-8, 0),
    (7, -4),
    (6, 7),
    (-7, -8),
];

/// Components of the size vector SPIR-V's size queries return, and which of them is the
/// array layer count (if any).
fn size_shape(dim: ResourceDimension) -> (u8, Option<u8>) {
    match dim {
        ResourceDimension::Texture1D | ResourceDimension::Buffer => (1, None),
        ResourceDimension::Texture1DArray => (2, Some(1)),
        ResourceDimension::Texture2D
        | ResourceDimension::Texture2DMS
        | ResourceDimension::TextureCube => (2, None),
        ResourceDimension::Texture2DArray
        | ResourceDimension::Texture2DMSArray
        | ResourceDimension::TextureCubeArray => (3, Some(2)),
        ResourceDimension::Texture3D => (3, None),
        _ => (1, None),
    }
}

impl<'p, 'm> Lowerer<'p, 'm> {
    fn query_operands<'a>(&self, inst: &'a InstRef<'p>, n: usize) -> R<&'a [crate::sm4::Operand]> {
        if inst.operands.len() < n {
            return Err(self.invalid(format!(
                "{} with {} operands (expected {n})",
                inst.opcode.info().name,
                inst.operands.len()
            )));
        }
        Ok(inst.operands)
    }

    /// A bool vector of `n` copies of `c` (or `c` itself for one component).
    fn bool_splat(&mut self, c: Operand, n: u8) -> Operand {
        if n == 1 {
            return c;
        }
        let parts: SmallVec<[Operand; 4]> = (0..n).map(|_| c).collect();
        self.b.op(
            Op::CompositeConstruct,
            TypeTable::vec(Scalar::Bool, n),
            &parts,
        )
    }

    /// `resinfo[_uint|_rcpFloat] dst, mip, t#/u#`.
    pub(super) fn resinfo(&mut self, inst: &InstRef<'p>) -> R<()> {
        let ops = self.query_operands(inst, 3)?;
        let (dst, mip_op, res) = (&ops[0], &ops[1], &ops[2]);
        let rt = match inst.control {
            OpControl::ResInfo(r) => r,
            _ => ResInfoReturnType::Float,
        };
        let (img, info) = self.load_image(res)?;
        let ViewKind::Typed { dim, .. } = info.kind else {
            unreachable!("load_image checks")
        };
        if dim == ResourceDimension::Buffer {
            return Err(self.invalid("resinfo on a buffer (bufinfo queries buffers)"));
        }
        self.b.m.capability(Capability::ImageQuery);
        let mip = self.read_scalar(mip_op, Scalar::U32)?;
        let (n, layer) = size_shape(dim);
        let uty = TypeTable::vec(Scalar::U32, n);
        // UAVs and multisampled views have exactly one mip.
        let single = res.ty == OperandType::UnorderedAccessView || dim.is_multisampled();
        let (size, levels, valid) = if single {
            let size = self.b.op(Op::ImageQuerySize, uty, &[img]);
            let levels = self.b.u32c(1);
            let valid = match mip {
                Operand::Const(c) if self.b.m.consts.scalar_bits(c) == Some(0) => None,
                _ => {
                    let zero = self.b.u32c(0);
                    Some(self.b.op(Op::IEqual, TypeId::BOOL, &[mip, zero]))
                }
            };
            (size, levels, valid)
        } else {
            let size = self.b.op(Op::ImageQuerySizeLod, uty, &[img, mip]);
            let levels = self.b.op(Op::ImageQueryLevels, TypeId::U32, &[img]);
            let valid = self.b.op(Op::ULessThan, TypeId::BOOL, &[mip, levels]);
            (size, levels, Some(valid))
        };
        let (scalar, sizes, levels) = match rt {
            ResInfoReturnType::Uint => {
                let sizes = match valid {
                    Some(c) => {
                        let cv = self.bool_splat(c, n);
                        let zero = self.b.splat(Scalar::U32, n, 0);
                        self.b.op(Op::Select, uty, &[cv, size, zero])
                    }
                    None => size,
                };
                (Scalar::U32, sizes, levels)
            }
            _ => {
                let fty = TypeTable::vec(Scalar::F32, n);
                let f = self.b.op(Op::ConvertUToF, fty, &[size]);
                let rcp = rt == ResInfoReturnType::RcpFloat;
                let mut r = f;
                if rcp {
                    let ones = self.b.splat(Scalar::F32, n, 1.0f32.to_bits() as u64);
                    r = self.b.op(Op::FDiv, fty, &[ones, f]);
                    if let Some(l) = layer {
                        // The array size is returned as is.
                        let mut args: SmallVec<[Operand; 6]> = smallvec::smallvec![r, f];
                        for i in 0..n {
                            let k = if i == l { n + i } else { i };
                            args.push(Operand::Lit(k as u32));
                        }
                        r = self.b.op(Op::VectorShuffle, fty, &args);
                    }
                }
                let sizes = match valid {
                    Some(c) => {
                        let cv = self.bool_splat(c, n);
                        let bad: SmallVec<[u64; 4]> = (0..n)
                            .map(|i| {
                                if rcp && layer != Some(i) {
                                    f32::INFINITY.to_bits() as u64
                                } else {
                                    0
                                }
                            })
                            .collect();
                        let bad = Operand::Const(self.b.m.consts.vector(Scalar::F32, &bad));
                        self.b.op(Op::Select, fty, &[cv, r, bad])
                    }
                    None => r,
                };
                let levels = match levels {
                    Operand::Const(_) => self.b.f32c(1.0),
                    l => self.b.op(Op::ConvertUToF, TypeId::F32, &[l]),
                };
                (Scalar::F32, sizes, levels)
            }
        };
        let zero = Operand::Const(self.b.m.consts.scalar(TypeTable::vec(scalar, 1), 0));
        let mut parts: SmallVec<[Operand; 4]> = (0..n).map(|i| self.b.extract(sizes, i)).collect();
        while parts.len() < 3 {
            parts.push(zero);
        }
        parts.push(levels);
        let v = self.b.construct(&parts);
        self.write_texture_result(dst, v, res, scalar, inst.saturate)
    }

    /// The sample count of a `t#` operand (1 for views that are not multisampled), or of the
    /// rasterizer: the caller's constant, or a specialization constant the pipeline sets (see
    /// `Options`), 1 by default.
    /// The flag says the count is known to be 1.
    fn sample_count(&mut self, res: &crate::sm4::Operand) -> R<(Operand, bool)> {
        if res.ty == OperandType::Rasterizer {
            if let Some(n) = self.opts.rasterizer_sample_count {
                // The caller's constant (a translation per sample count).
                return Ok((self.b.u32c(n), n == 1));
            }
            let id = self.opts.rasterizer_sample_count_spec_id;
            let c = self.b.m.consts.spec(TypeId::U32, id, 1);
            let spec = crate::reflect::SpecConstant {
                id,
                meaning: crate::reflect::SpecConstantMeaning::RasterizerSampleCount,
                default: 1,
            };
            if !self.refl.spec_constants.contains(&spec) {
                self.refl.spec_constants.push(spec);
            }
            return Ok((Operand::Const(c), false));
        }
        let (img, info) = self.load_image(res)?;
        let ViewKind::Typed { dim, .. } = info.kind else {
            unreachable!("load_image checks")
        };
        if !dim.is_multisampled() {
            return Ok((self.b.u32c(1), true));
        }
        self.b.m.capability(Capability::ImageQuery);
        Ok((self.b.op(Op::ImageQuerySamples, TypeId::U32, &[img]), false))
    }

    /// `sampleinfo[_uint] dst, t#/rasterizer`: (count, 0, 0, 0).
    pub(super) fn sampleinfo(&mut self, inst: &InstRef<'p>) -> R<()> {
        let ops = self.query_operands(inst, 2)?;
        let (dst, res) = (&ops[0], &ops[1]);
        let uint = matches!(inst.control, OpControl::SampleInfo { uint: true });
        let (count, single) = self.sample_count(res)?;
        let (s, count) = if uint {
            (Scalar::U32, count)
        } else if single {
            (Scalar::F32, self.b.f32c(1.0))
        } else {
            (
                Scalar::F32,
                self.b.op(Op::ConvertUToF, TypeId::F32, &[count]),
            )
        };
        let zero = Operand::Const(self.b.m.consts.scalar(TypeTable::vec(s, 1), 0));
        let v = self.b.construct(&[count, zero, zero, zero]);
        self.write_texture_result(dst, v, res, s, inst.saturate)
    }

    /// The private table of standard sample positions (created on first use).
    fn sample_position_table(&mut self) -> crate::ir::GlobalId {
        if let Some(g) = self.res.sample_positions {
            return g;
        }
        let parts: crate::ir::consts::Parts = SAMPLE_POSITIONS
            .iter()
            .map(|&(x, y)| {
                let bits = [
                    (x as f32 / 16.0).to_bits() as u64,
                    (y as f32 / 16.0).to_bits() as u64,
                ];
                self.b.m.consts.vector(Scalar::F32, &bits)
            })
            .collect();
        let len = self.b.m.consts.u32(SAMPLE_POSITIONS.len() as u32);
        let arr = self.b.m.types.intern(Type::Array {
            elem: TypeId::VEC2,
            len,
            stride: None,
        });
        let init = self.b.m.consts.intern(Const::Composite { ty: arr, parts });
        let g = self.b.m.add_global(arr, StorageClass::Private, Some(init));
        self.b.m.name(
            crate::ir::DecorationTarget::Global(g),
            format_args!("sample_positions"),
        );
        self.res.sample_positions = Some(g);
        g
    }

    /// `samplepos dst, t#/rasterizer, index`: (x, y, 0, 0), zero for a bad index.
    pub(super) fn samplepos(&mut self, inst: &InstRef<'p>) -> R<()> {
        let ops = self.query_operands(inst, 3)?;
        let (dst, res, index) = (&ops[0], &ops[1], &ops[2]);
        let (count, single) = self.sample_count(res)?;
        let i = self.read_scalar(index, Scalar::U32)?;
        let pos = if single {
            // One sample at the centre: (0, 0) for every index.
            self.b.splat(Scalar::F32, 2, 0)
        } else {
            let table = self.sample_position_table();
            let one = self.b.u32c(1);
            let first = self.b.op(Op::ISub, TypeId::U32, &[count, one]);
            let at = self.b.op(Op::IAdd, TypeId::U32, &[first, i]);
            let last = self.b.u32c(SAMPLE_POSITIONS.len() as u32 - 1);
            let at = self
                .b
                .glsl(spirv::GlslStd450Op::UMin, TypeId::U32, &[at, last]);
            let ptr = self.b.m.types.pointer(StorageClass::Private, TypeId::VEC2);
            let p = self
                .b
                .op(Op::AccessChain, ptr, &[Operand::Global(table), at]);
            let v = self.b.op(Op::Load, TypeId::VEC2, &[p]);
            let ok = self.b.op(Op::ULessThan, TypeId::BOOL, &[i, count]);
            let okv = self.bool_splat(ok, 2);
            let zero = self.b.splat(Scalar::F32, 2, 0);
            self.b.op(Op::Select, TypeId::VEC2, &[okv, v, zero])
        };
        let x = self.b.extract(pos, 0);
        let y = self.b.extract(pos, 1);
        let z = self.b.f32c(0.0);
        let v = self.b.construct(&[x, y, z, z]);
        self.write_texture_result(dst, v, res, Scalar::F32, inst.saturate)
    }

    /// `bufinfo dst, t#/u#`: elements of a typed buffer, bytes of a raw one, structures of a
    /// structured one, replicated to every written component.
    pub(super) fn bufinfo(&mut self, inst: &InstRef<'p>) -> R<()> {
        let ops = self.query_operands(inst, 2)?;
        let (dst, res) = (&ops[0], &ops[1]);
        let info = self.view_info(res)?;
        let v = match info.kind {
            ViewKind::Typed { dim, .. } => {
                if dim != ResourceDimension::Buffer {
                    return Err(self.invalid("bufinfo on a texture (resinfo queries textures)"));
                }
                let (img, _) = self.load_image(res)?;
                self.b.m.capability(Capability::ImageQuery);
                self.b.op(Op::ImageQuerySize, TypeId::U32, &[img])
            }
            ViewKind::Raw | ViewKind::Structured { .. } | ViewKind::TexelBuffer { .. } => {
                let dwords = if let ViewKind::TexelBuffer { image, .. } = info.kind {
                    // One R32_UINT texel per dword.
                    let p = self.descriptor_pointer(
                        res,
                        info.global,
                        &info.range,
                        image,
                        StorageClass::UniformConstant,
                    )?;
                    let img = self.b.op(Op::Load, image, &[p]);
                    self.b.m.capability(Capability::ImageQuery);
                    self.b.op(Op::ImageQuerySize, TypeId::U32, &[img])
                } else {
                    let p = self.descriptor_pointer(
                        res,
                        info.global,
                        &info.range,
                        info.elem_ty,
                        StorageClass::StorageBuffer,
                    )?;
                    self.b
                        .op(Op::ArrayLength, TypeId::U32, &[p, Operand::Lit(0)])
                };
                let stride = match info.kind {
                    ViewKind::Structured { stride } | ViewKind::TexelBuffer { stride, .. } => {
                        stride
                    }
                    _ => 0,
                };
                match (info.kind, stride) {
                    (ViewKind::Raw, _) | (ViewKind::TexelBuffer { .. }, 0) => {
                        let k = self.b.u32c(2);
                        self.b.op(Op::ShiftLeftLogical, TypeId::U32, &[dwords, k])
                    }
                    _ if stride > 0 && stride.is_multiple_of(4) => {
                        let k = self.b.u32c(stride / 4);
                        self.b.op(Op::UDiv, TypeId::U32, &[dwords, k])
                    }
                    _ => {
                        let k = self.b.u32c(2);
                        let bytes = self.b.op(Op::ShiftLeftLogical, TypeId::U32, &[dwords, k]);
                        let s = self.b.u32c(stride.max(1));
                        self.b.op(Op::UDiv, TypeId::U32, &[bytes, s])
                    }
                }
            }
        };
        self.write(dst, v, Scalar::U32, false)
    }

    /// `lod dst, coord, t#, s#`: (clamped LOD, unclamped LOD, 0, 0).
    pub(super) fn lod(&mut self, inst: &InstRef<'p>) -> R<()> {
        let ops = self.query_operands(inst, 4)?;
        let (dst, coord_op, t, s) = (&ops[0], &ops[1], &ops[2], &ops[3]);
        if self.stage != crate::reflect::ShaderStage::Pixel {
            return Err(self.invalid("lod (implicit derivatives) outside a pixel shader"));
        }
        let (si, info) = self.sampled_image(t, s, false)?;
        let ViewKind::Typed { dim, .. } = info.kind else {
            unreachable!()
        };
        if dim == ResourceDimension::Buffer || dim.is_multisampled() {
            return Err(self.invalid("lod on a buffer or multisampled texture"));
        }
        self.b.m.capability(Capability::ImageQuery);
        let coord = self.read_n(coord_op, super::texture::offset_count(dim), Scalar::F32)?;
        let r = self.b.op(Op::ImageQueryLod, TypeId::VEC2, &[si, coord]);
        let x = self.b.extract(r, 0);
        let y = self.b.extract(r, 1);
        let z = self.b.f32c(0.0);
        let v = self.b.construct(&[x, y, z, z]);
        self.write_texture_result(dst, v, t, Scalar::F32, inst.saturate)
    }
}
