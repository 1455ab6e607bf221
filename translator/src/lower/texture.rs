//! Texture instructions on SRVs: sampling (`sample*`, with `_cl` LOD clamps), gathers
//! (`gather4*`, with programmable offsets), texel fetches (`ld`, `ld2dms`), and the sparse
//! feedback forms of all of them (`*_s`, `check_access_fully_mapped`).
//!
//! D3D keeps textures and samplers apart; SPIR-V samples through an `OpSampledImage` made next
//! to each use. The result of every texture instruction is a 4-component vector that D3D then
//! swizzles by the resource operand's swizzle before the destination mask applies
//! ([`Lowerer::write_texture_result`]). Depth comparisons sample through a sampled-image type
//! whose image has `Depth = 1`: SPIR-V says the comparison is a property of the opcode, but
//! drivers have long keyed shadow sampling on the type (KhronosGroup/VK-GL-CTS#88), so the
//! translator makes both agree, as DXC and DXVK do. Queries live in [`super::query`], UAV and
//! shared-memory access in [`super::memory`], `eval_*` in [`super::eval`].

use smallvec::SmallVec;
use spirv::{ImageOperands, Op, StorageClass};

use super::resources::{ViewInfo, ViewKind};
use super::{Lowerer, R};
use crate::ir::{ImageType, Operand, Scalar, Type, TypeId, TypeTable};
use crate::reflect::ShaderStage;
use crate::sm4::{InstRef, Opcode, Operand as Sm4Operand, OperandType, ResourceDimension};

/// Number of coordinate components of a dimension (array layer included).
pub(crate) fn coord_count(dim: ResourceDimension) -> u8 {
    match dim {
        ResourceDimension::Buffer | ResourceDimension::Texture1D => 1,
        ResourceDimension::Texture1DArray
        | ResourceDimension::Texture2D
        | ResourceDimension::Texture2DMS => 2,
        ResourceDimension::Texture2DArray
        | ResourceDimension::Texture2DMSArray
        | ResourceDimension::Texture3D
        | ResourceDimension::TextureCube => 3,
        ResourceDimension::TextureCubeArray => 4,
        _ => 1,
    }
}

/// Number of offset / gradient components of a dimension (no array layer).
pub(crate) fn offset_count(dim: ResourceDimension) -> u8 {
    match dim {
        ResourceDimension::Buffer
        | ResourceDimension::Texture1D
        | ResourceDimension::Texture1DArray => 1,
        ResourceDimension::Texture3D
        | ResourceDimension::TextureCube
        | ResourceDimension::TextureCubeArray => 3,
        _ => 2,
    }
}

fn is_cube(dim: ResourceDimension) -> bool {
    matches!(
        dim,
        ResourceDimension::TextureCube | ResourceDimension::TextureCubeArray
    )
}

/// Whether `op` is one of the sparse-feedback (`*_s`) opcodes, whose second destination
/// receives the residency code.
pub(crate) fn has_feedback(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Gather4S
            | Opcode::Gather4CS
            | Opcode::Gather4PoS
            | Opcode::Gather4PoCS
            | Opcode::LdS
            | Opcode::LdMsS
            | Opcode::LdUavTypedS
            | Opcode::LdRawS
            | Opcode::LdStructuredS
            | Opcode::SampleLS
            | Opcode::SampleCLzS
            | Opcode::SampleClampS
            | Opcode::SampleBClampS
            | Opcode::SampleDClampS
            | Opcode::SampleCClampS
    )
}

/// The sparse variant of an image opcode.
fn sparse_op(op: Op) -> Op {
    match op {
        Op::ImageSampleImplicitLod => Op::ImageSparseSampleImplicitLod,
        Op::ImageSampleExplicitLod => Op::ImageSparseSampleExplicitLod,
        Op::ImageSampleDrefImplicitLod => Op::ImageSparseSampleDrefImplicitLod,
        Op::ImageSampleDrefExplicitLod => Op::ImageSparseSampleDrefExplicitLod,
        Op::ImageFetch => Op::ImageSparseFetch,
        Op::ImageGather => Op::ImageSparseGather,
        Op::ImageDrefGather => Op::ImageSparseDrefGather,
        Op::ImageRead => Op::ImageSparseRead,
        other => other,
    }
}

/// The operands of an instruction with the feedback destination taken out: `[dst, srcs…]`,
/// and the feedback destination when it is not `null`.
pub(crate) type Split<'a> = (SmallVec<[Sm4Operand; 8]>, Option<&'a Sm4Operand>);

/// Image operands in the order SPIR-V requires (by mask bit).
#[derive(Default)]
pub(crate) struct ImageArgs {
    pub bias: Option<Operand>,
    pub lod: Option<Operand>,
    pub grad: Option<(Operand, Operand)>,
    pub const_offset: Option<Operand>,
    pub offset: Option<Operand>,
    pub sample: Option<Operand>,
    pub min_lod: Option<Operand>,
}

impl ImageArgs {
    /// Appends the mask and the operands to `args`.
    pub fn append<const N: usize>(&self, args: &mut SmallVec<[Operand; N]>) {
        let mut mask = ImageOperands::NONE;
        let start = args.len();
        args.push(Operand::Lit(0));
        if let Some(b) = self.bias {
            mask |= ImageOperands::BIAS;
            args.push(b);
        }
        if let Some(l) = self.lod {
            mask |= ImageOperands::LOD;
            args.push(l);
        }
        if let Some((x, y)) = self.grad {
            mask |= ImageOperands::GRAD;
            args.push(x);
            args.push(y);
        }
        if let Some(o) = self.const_offset {
            mask |= ImageOperands::CONST_OFFSET;
            args.push(o);
        }
        if let Some(o) = self.offset {
            mask |= ImageOperands::OFFSET;
            args.push(o);
        }
        if let Some(s) = self.sample {
            mask |= ImageOperands::SAMPLE;
            args.push(s);
        }
        if let Some(m) = self.min_lod {
            mask |= ImageOperands::MIN_LOD;
            args.push(m);
        }
        if mask.is_empty() {
            args.truncate(start);
        } else {
            args[start] = Operand::Lit(mask.bits());
        }
    }
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// The view an SRV (`t#`) or UAV (`u#`) operand names.
    pub fn view_info(&self, op: &Sm4Operand) -> R<ViewInfo> {
        let id = self
            .register_of(op)
            .ok_or_else(|| self.invalid("resource operand without a register"))?;
        let map = match op.ty {
            OperandType::Resource => &self.res.srvs,
            OperandType::UnorderedAccessView => &self.res.uavs,
            _ => return Err(self.invalid("expected a t# or u# operand")),
        };
        map.get(&id)
            .cloned()
            .ok_or_else(|| self.invalid(format!("{} is not declared", self.range_name(op.ty, id))))
    }

    /// Pointer to (or the global of) the descriptor an operand selects in its range.
    pub fn descriptor_pointer(
        &mut self,
        op: &Sm4Operand,
        global: crate::ir::GlobalId,
        range: &super::resources::Range,
        elem: TypeId,
        storage: StorageClass,
    ) -> R<Operand> {
        if !range.is_array() {
            return Ok(Operand::Global(global));
        }
        let el = self.descriptor_element(op, range)?;
        let ptr = self.b.m.types.pointer(storage, elem);
        let p = self
            .b
            .op(Op::AccessChain, ptr, &[Operand::Global(global), el]);
        if op.non_uniform {
            self.mark_non_uniform(p);
        }
        Ok(p)
    }

    /// The element of its descriptor range an operand selects (SM5.1 second index).
    pub fn descriptor_element(
        &mut self,
        op: &Sm4Operand,
        range: &super::resources::Range,
    ) -> R<Operand> {
        let index = if self.prog.version.is_sm51() {
            op.index(1)
        } else {
            None
        };
        if op.non_uniform && range.is_array() {
            self.descriptor_indexing(range.descriptor_type, true);
        }
        self.descriptor_index(range, index.as_ref())
    }

    /// Marks a value `NonUniform` (SM5.1 `NonUniformResourceIndex`).
    pub fn mark_non_uniform(&mut self, v: Operand) {
        if let Operand::Value(v) = v {
            self.b.f.inst_mut(v).flags |= crate::ir::flags::NON_UNIFORM;
            self.b.m.capability(spirv::Capability::ShaderNonUniform);
            if self.opts.target_env.spirv_version() < (1, 5) {
                self.b.m.extension("SPV_EXT_descriptor_indexing");
            }
        }
    }

    /// Loads the image of a typed view.
    pub fn load_image(&mut self, op: &Sm4Operand) -> R<(Operand, ViewInfo)> {
        let info = self.view_info(op)?;
        let ViewKind::Typed { image, .. } = info.kind else {
            return Err(self.invalid("typed access to a raw or structured buffer"));
        };
        let p = self.descriptor_pointer(
            op,
            info.global,
            &info.range,
            image,
            StorageClass::UniformConstant,
        )?;
        let img = self.b.op(Op::Load, image, &[p]);
        if op.non_uniform {
            self.mark_non_uniform(img);
        }
        Ok((img, info))
    }

    /// A sampled image made from a texture and a sampler operand; `dref` gives it an image
    /// type with `Depth = 1` for depth-comparison opcodes.
    pub fn sampled_image(
        &mut self,
        t: &Sm4Operand,
        s: &Sm4Operand,
        dref: bool,
    ) -> R<(Operand, ViewInfo)> {
        let (img, info) = self.load_image(t)?;
        let id = self
            .register_of(s)
            .ok_or_else(|| self.invalid("sampler operand without a register"))?;
        if s.ty != OperandType::Sampler {
            return Err(self.invalid("expected an s# operand"));
        }
        let sinfo = self.res.samplers.get(&id).cloned().ok_or_else(|| {
            self.invalid(format!(
                "{} is not declared",
                self.range_name(OperandType::Sampler, id)
            ))
        })?;
        let sty = self.b.m.types.intern(Type::Sampler);
        let sp = self.descriptor_pointer(
            s,
            sinfo.global,
            &sinfo.range,
            sty,
            StorageClass::UniformConstant,
        )?;
        let smp = self.b.op(Op::Load, sty, &[sp]);
        if s.non_uniform {
            self.mark_non_uniform(smp);
        }
        let ViewKind::Typed { mut image, .. } = info.kind else {
            unreachable!("checked by load_image")
        };
        if dref && let Type::Image(it) = self.b.m.types.get(image).clone() {
            image = self
                .b
                .m
                .types
                .intern(Type::Image(ImageType { depth: 1, ..it }));
        }
        let sity = self.b.m.types.intern(Type::SampledImage(image));
        let si = self.b.op(Op::SampledImage, sity, &[img, smp]);
        if t.non_uniform || s.non_uniform {
            self.mark_non_uniform(si);
        }
        Ok((si, info))
    }

    /// Writes a 4-component texture result through the resource swizzle and destination mask.
    pub fn write_texture_result(
        &mut self,
        dst: &Sm4Operand,
        result: Operand,
        res_op: &Sm4Operand,
        s: Scalar,
        sat: bool,
    ) -> R<()> {
        if dst.ty == OperandType::Null {
            return Ok(());
        }
        let mask = match dst.components {
            crate::sm4::Components::One | crate::sm4::Components::Zero => 1,
            _ => dst.mask(),
        };
        let swz = res_op.swizzle();
        let width = self.b.width_of(result);
        let sel: SmallVec<[u8; 4]> = (0..4u8)
            .filter(|c| mask & (1 << c) != 0)
            .map(|c| if width == 1 { 0 } else { swz[c as usize] })
            .collect();
        if sel.is_empty() {
            return Ok(());
        }
        let v = self.b.swizzle(result, &sel);
        self.write(dst, v, s, sat)
    }

    /// The operands without the feedback destination of a `*_s` opcode (see [`Split`]).
    pub fn split_feedback<'a>(&self, inst: &'a InstRef<'p>, min: usize) -> R<Split<'a>> {
        let ops = inst.operands;
        let (rest, status): (SmallVec<[Sm4Operand; 8]>, _) = if has_feedback(inst.opcode) {
            if ops.len() < 2 {
                return Err(self.invalid("sparse-feedback instruction without a status operand"));
            }
            let status = (ops[1].ty != OperandType::Null).then_some(&ops[1]);
            (
                std::iter::once(ops[0])
                    .chain(ops[2..].iter().copied())
                    .collect(),
                status,
            )
        } else {
            (ops.iter().copied().collect(), None)
        };
        if rest.len() < min {
            return Err(self.invalid(format!(
                "{} with {} operands (expected {min})",
                inst.opcode.info().name,
                rest.len()
            )));
        }
        Ok((rest, status))
    }

    /// Emits an image instruction returning `rty`; with `status`, its sparse form, whose
    /// residency code is written to `status`.
    pub fn image_op(
        &mut self,
        op: Op,
        rty: TypeId,
        args: &[Operand],
        status: Option<&Sm4Operand>,
    ) -> R<Operand> {
        let Some(status) = status else {
            return Ok(self.b.op(op, rty, args));
        };
        self.b.m.capability(spirv::Capability::SparseResidency);
        self.need_feature("shaderResourceResidency");
        let st = match self.res.sparse_structs.get(&rty) {
            Some(&t) => t,
            None => {
                let t = self.b.m.types.new_struct(vec![TypeId::U32, rty]);
                self.res.sparse_structs.insert(rty, t);
                t
            }
        };
        let r = self.b.op(sparse_op(op), st, args);
        let code = self
            .b
            .op(Op::CompositeExtract, TypeId::U32, &[r, Operand::Lit(0)]);
        self.write(status, code, Scalar::U32, false)?;
        Ok(self.b.op(Op::CompositeExtract, rty, &[r, Operand::Lit(1)]))
    }

    /// Immediate texel offsets (`_aoffimmi`) as an `ivecN` constant, if any is non-zero and
    /// the dimension takes offsets.
    fn const_offsets(&mut self, inst: &InstRef<'p>, dim: ResourceDimension) -> Option<Operand> {
        let o = inst.texel_offsets();
        if o == [0; 3] || is_cube(dim) || dim == ResourceDimension::Buffer {
            return None;
        }
        let n = offset_count(dim) as usize;
        let bits: SmallVec<[u64; 3]> = o[..n].iter().map(|&x| x as i32 as u32 as u64).collect();
        Some(Operand::Const(self.b.m.consts.vector(Scalar::I32, &bits)))
    }

    fn require_pixel(&self, inst: &InstRef<'p>) -> R<()> {
        if self.stage != ShaderStage::Pixel {
            return Err(self.invalid(format!(
                "{} (implicit derivatives) outside a pixel shader",
                inst.opcode.info().name
            )));
        }
        Ok(())
    }

    /// A `_cl` LOD clamp operand, or `None` when it is the constant 0 (no clamp).
    fn min_lod(&mut self, op: &Sm4Operand) -> R<Option<Operand>> {
        let v = self.read_scalar(op, Scalar::F32)?;
        if let Operand::Const(c) = v
            && self.b.m.consts.scalar_bits(c) == Some(0)
        {
            return Ok(None);
        }
        self.b.m.capability(spirv::Capability::MinLod);
        self.need_feature("shaderResourceMinLod");
        Ok(Some(v))
    }

    /// The `sample*` family, with `_cl` clamps and `_s` feedback.
    fn sample(&mut self, inst: &InstRef<'p>) -> R<()> {
        use Opcode as O;
        let min = match inst.opcode {
            O::Sample => 4,
            O::SampleB | O::SampleL | O::SampleC | O::SampleCLz => 5,
            O::SampleLS | O::SampleCLzS | O::SampleClampS => 5,
            O::SampleD | O::SampleBClampS | O::SampleCClampS => 6,
            O::SampleDClampS => 7,
            _ => unreachable!("sample family"),
        };
        let (ops, status) = self.split_feedback(inst, min)?;
        let (dst, coord_op, t, s) = (&ops[0], &ops[1], &ops[2], &ops[3]);
        let dref = matches!(
            inst.opcode,
            O::SampleC | O::SampleCLz | O::SampleCLzS | O::SampleCClampS
        );
        let (si, info) = self.sampled_image(t, s, dref)?;
        let ViewKind::Typed { scalar, dim, .. } = info.kind else {
            unreachable!()
        };
        if dim == ResourceDimension::Buffer || dim.is_multisampled() {
            return Err(self.invalid("sampling a buffer or multisampled texture"));
        }
        let coord = self.read_n(coord_op, coord_count(dim), Scalar::F32)?;
        let mut ia = ImageArgs::default();
        let mut dref_v = None;
        let explicit = match inst.opcode {
            O::Sample => false,
            O::SampleB => {
                ia.bias = Some(self.read_scalar(&ops[4], Scalar::F32)?);
                false
            }
            O::SampleBClampS => {
                ia.bias = Some(self.read_scalar(&ops[4], Scalar::F32)?);
                ia.min_lod = self.min_lod(&ops[5])?;
                false
            }
            O::SampleClampS => {
                ia.min_lod = self.min_lod(&ops[4])?;
                false
            }
            O::SampleL | O::SampleLS => {
                ia.lod = Some(self.read_scalar(&ops[4], Scalar::F32)?);
                true
            }
            O::SampleD | O::SampleDClampS => {
                let n = offset_count(dim);
                ia.grad = Some((
                    self.read_n(&ops[4], n, Scalar::F32)?,
                    self.read_n(&ops[5], n, Scalar::F32)?,
                ));
                if inst.opcode == O::SampleDClampS {
                    ia.min_lod = self.min_lod(&ops[6])?;
                }
                true
            }
            O::SampleC => {
                dref_v = Some(self.read_scalar(&ops[4], Scalar::F32)?);
                false
            }
            O::SampleCClampS => {
                dref_v = Some(self.read_scalar(&ops[4], Scalar::F32)?);
                ia.min_lod = self.min_lod(&ops[5])?;
                false
            }
            O::SampleCLz | O::SampleCLzS => {
                dref_v = Some(self.read_scalar(&ops[4], Scalar::F32)?);
                ia.lod = Some(self.b.f32c(0.0));
                true
            }
            _ => unreachable!(),
        };
        if !explicit {
            self.require_pixel(inst)?;
        }
        ia.const_offset = self.const_offsets(inst, dim);
        let op = match (dref_v.is_some(), explicit) {
            (false, false) => Op::ImageSampleImplicitLod,
            (false, true) => Op::ImageSampleExplicitLod,
            (true, false) => Op::ImageSampleDrefImplicitLod,
            (true, true) => Op::ImageSampleDrefExplicitLod,
        };
        let mut args: SmallVec<[Operand; 8]> = smallvec::smallvec![si, coord];
        if let Some(d) = dref_v {
            args.push(d);
        }
        ia.append(&mut args);
        let rty = if dref_v.is_some() {
            TypeTable::vec(scalar, 1)
        } else {
            TypeTable::vec(scalar, 4)
        };
        let r = self.image_op(op, rty, &args, status)?;
        self.write_texture_result(dst, r, t, scalar, inst.saturate)
    }

    /// Sign-extends the low 6 bits of each component (`gather4_po` offsets).
    fn sext6(&mut self, v: Operand) -> Operand {
        let ty = self.b.type_of(v);
        let n = self.b.m.types.width(ty);
        let k = self.b.splat(Scalar::U32, n, 26);
        let sh = self.b.op(Op::ShiftLeftLogical, ty, &[v, k]);
        self.b.op(Op::ShiftRightArithmetic, ty, &[sh, k])
    }

    /// The `gather4*` family: the sampler operand's selected component picks the channel.
    fn gather(&mut self, inst: &InstRef<'p>) -> R<()> {
        use Opcode as O;
        let (po, cmp) = match inst.opcode {
            O::Gather4 | O::Gather4S => (false, false),
            O::Gather4C | O::Gather4CS => (false, true),
            O::Gather4Po | O::Gather4PoS => (true, false),
            O::Gather4PoC | O::Gather4PoCS => (true, true),
            _ => unreachable!("gather family"),
        };
        let min = 4 + po as usize + cmp as usize;
        let (ops, status) = self.split_feedback(inst, min)?;
        let base = 2 + po as usize;
        let (dst, coord_op, t, s) = (&ops[0], &ops[1], &ops[base], &ops[base + 1]);
        let (si, info) = self.sampled_image(t, s, cmp)?;
        let ViewKind::Typed { scalar, dim, .. } = info.kind else {
            unreachable!()
        };
        if !matches!(
            dim,
            ResourceDimension::Texture2D
                | ResourceDimension::Texture2DArray
                | ResourceDimension::TextureCube
                | ResourceDimension::TextureCubeArray
        ) {
            return Err(self.invalid("gather on a texture that is not 2D or cube"));
        }
        let coord = self.read_n(coord_op, coord_count(dim), Scalar::F32)?;
        let mut ia = ImageArgs::default();
        if po {
            if is_cube(dim) {
                return Err(self.invalid("gather4_po on a cube texture"));
            }
            let off = self.read_n(&ops[2], 2, Scalar::I32)?;
            let off = self.sext6(off);
            if matches!(off, Operand::Const(_)) {
                ia.const_offset = Some(off);
            } else {
                self.b.m.capability(spirv::Capability::ImageGatherExtended);
                self.need_feature("shaderImageGatherExtended");
                ia.offset = Some(off);
            }
        } else {
            ia.const_offset = self.const_offsets(inst, dim);
        }
        let mut args: SmallVec<[Operand; 8]> = smallvec::smallvec![si, coord];
        let op = if cmp {
            let d = self.read_scalar(&ops[base + 2], Scalar::F32)?;
            args.push(d);
            Op::ImageDrefGather
        } else {
            let comp = s.swizzle()[0] as u32;
            args.push(self.b.u32c(comp));
            Op::ImageGather
        };
        ia.append(&mut args);
        let r = self.image_op(op, TypeTable::vec(scalar, 4), &args, status)?;
        self.write_texture_result(dst, r, t, scalar, inst.saturate)
    }

    /// `ld`/`ld2dms` (and `_s`): fetch a texel by integer coordinates.
    fn load_texel(&mut self, inst: &InstRef<'p>) -> R<()> {
        let ms_op = matches!(inst.opcode, Opcode::LdMs | Opcode::LdMsS);
        let (ops, status) = self.split_feedback(inst, 3 + ms_op as usize)?;
        let (dst, coord_op, t) = (&ops[0], &ops[1], &ops[2]);
        let (img, info) = self.load_image(t)?;
        let ViewKind::Typed { scalar, dim, .. } = info.kind else {
            unreachable!()
        };
        if is_cube(dim) {
            return Err(self.invalid("ld on a cube texture"));
        }
        let coord = self.read_n(coord_op, coord_count(dim), Scalar::I32)?;
        let mut ia = ImageArgs::default();
        if dim.is_multisampled() {
            if !ms_op {
                return Err(self.invalid("ld on a multisampled texture (needs ld2dms)"));
            }
            ia.sample = Some(self.read_scalar(&ops[3], Scalar::I32)?);
        } else if ms_op {
            // `ldms` on a view declared with one sample (a single-sampled image): its one
            // sample is mip 0's texel.
            ia.lod = Some(self.b.i32c(0));
        } else if dim != ResourceDimension::Buffer {
            let w = self.read_comps(coord_op, &[coord_op.swizzle()[3]], Scalar::I32)?;
            ia.lod = Some(w);
        }
        ia.const_offset = self.const_offsets(inst, dim);
        let mut args: SmallVec<[Operand; 6]> = smallvec::smallvec![img, coord];
        ia.append(&mut args);
        let r = self.image_op(Op::ImageFetch, TypeTable::vec(scalar, 4), &args, status)?;
        self.write_texture_result(dst, r, t, scalar, inst.saturate)
    }

    /// A descriptor register as the disassembly names it: `t3`, or in SM5.1 the range `T3`.
    pub fn range_name(&self, ty: OperandType, id: u32) -> String {
        let name = ty.name();
        if self.prog.version.is_sm51() {
            format!("{}{id}", name.to_ascii_uppercase())
        } else {
            format!("{name}{id}")
        }
    }

    /// `check_access_fully_mapped`: ~0 where the residency code says all texels were resident.
    fn check_access(&mut self, inst: &InstRef<'p>) -> R<()> {
        let ops = inst.operands;
        if ops.len() < 2 {
            return Err(self.invalid("check_access_fully_mapped without operands"));
        }
        let mask = match ops[0].components {
            crate::sm4::Components::One | crate::sm4::Components::Zero => 1,
            _ => ops[0].mask(),
        };
        let codes = super::regs::src_components(&ops[1], mask);
        if mask == 0 || codes.is_empty() {
            return Ok(());
        }
        self.b.m.capability(spirv::Capability::SparseResidency);
        self.need_feature("shaderResourceResidency");
        let mut parts: SmallVec<[Operand; 4]> = SmallVec::new();
        let t = self.b.u32c(!0);
        let f = self.b.u32c(0);
        for c in codes {
            let code = self.read_comps(&ops[1], &[c], Scalar::U32)?;
            let r = self
                .b
                .op(Op::ImageSparseTexelsResident, TypeId::BOOL, &[code]);
            parts.push(self.b.op(Op::Select, TypeId::U32, &[r, t, f]));
        }
        let v = self.b.construct(&parts);
        self.write(&ops[0], v, Scalar::U32, false)
    }

    /// Lowers a texture/resource instruction; false when `inst` is not one.
    pub fn resource_op(&mut self, inst: InstRef<'p>) -> R<bool> {
        use Opcode as O;
        match inst.opcode {
            O::Sample
            | O::SampleB
            | O::SampleL
            | O::SampleD
            | O::SampleC
            | O::SampleCLz
            | O::SampleLS
            | O::SampleCLzS
            | O::SampleClampS
            | O::SampleBClampS
            | O::SampleDClampS
            | O::SampleCClampS => self.sample(&inst)?,
            O::Gather4
            | O::Gather4C
            | O::Gather4Po
            | O::Gather4PoC
            | O::Gather4S
            | O::Gather4CS
            | O::Gather4PoS
            | O::Gather4PoCS => self.gather(&inst)?,
            O::Ld | O::LdMs | O::LdS | O::LdMsS => self.load_texel(&inst)?,
            O::CheckAccessFullyMapped => self.check_access(&inst)?,
            O::ResInfo => self.resinfo(&inst)?,
            O::SampleInfo => self.sampleinfo(&inst)?,
            O::SamplePos => self.samplepos(&inst)?,
            O::BufInfo => self.bufinfo(&inst)?,
            O::Lod => self.lod(&inst)?,
            O::EvalCentroid | O::EvalSampleIndex | O::EvalSnapped => self.eval(&inst)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}
