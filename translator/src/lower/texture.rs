//! Texture instructions: sampling, fetching and queries on SRVs (and typed UAV loads/stores).
//!
//! D3D keeps textures and samplers apart; SPIR-V samples through an `OpSampledImage` made next
//! to each use. The result of every texture instruction is a 4-component vector that D3D then
//! swizzles by the resource operand's swizzle before the destination mask applies.

use smallvec::SmallVec;
use spirv::{Dim, ImageOperands, Op, StorageClass};

use super::resources::{ViewInfo, ViewKind};
use super::{Lowerer, R};
use crate::ir::{Operand, Scalar, Type, TypeId, TypeTable};
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

impl<'p, 'm> Lowerer<'p, 'm> {
    /// The view an SRV (`t#`) or UAV (`u#`) operand names.
    pub fn view_info(&self, op: &Sm4Operand) -> R<ViewInfo> {
        let id = op
            .index(0)
            .map(|i| i.imm32())
            .ok_or_else(|| self.invalid("resource operand without a register"))?;
        let map = match op.ty {
            OperandType::Resource => &self.res.srvs,
            OperandType::UnorderedAccessView => &self.res.uavs,
            _ => return Err(self.invalid("expected a t# or u# operand")),
        };
        map.get(&id)
            .cloned()
            .ok_or_else(|| self.invalid(format!("{}{id} is not declared", op.ty.name())))
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
        let index = if self.prog.version.is_sm51() {
            op.index(1)
        } else {
            None
        };
        let el = self.descriptor_index(range, index.as_ref())?;
        let ptr = self.b.m.types.pointer(storage, elem);
        let p = self
            .b
            .op(Op::AccessChain, ptr, &[Operand::Global(global), el]);
        if op.non_uniform {
            self.mark_non_uniform(p);
        }
        Ok(p)
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

    /// A sampled image made from a texture and a sampler operand.
    fn sampled_image(&mut self, t: &Sm4Operand, s: &Sm4Operand) -> R<(Operand, ViewInfo)> {
        let (img, info) = self.load_image(t)?;
        let id = s
            .index(0)
            .map(|i| i.imm32())
            .ok_or_else(|| self.invalid("sampler operand without a register"))?;
        let sinfo = self
            .res
            .samplers
            .get(&id)
            .cloned()
            .ok_or_else(|| self.invalid(format!("s{id} is not declared")))?;
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
        let ViewKind::Typed { image, .. } = info.kind else {
            unreachable!("checked by load_image")
        };
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
        let v = self.b.swizzle(result, &sel);
        self.write(dst, v, s, sat)
    }

    /// Immediate texel offsets as an `ivecN` constant, if any is non-zero.
    fn const_offsets(&mut self, inst: &InstRef<'p>, dim: ResourceDimension) -> Option<Operand> {
        let o = inst.texel_offsets();
        if o == [0; 3] {
            return None;
        }
        let n = offset_count(dim) as usize;
        let bits: Vec<u64> = o[..n].iter().map(|&x| x as i32 as u32 as u64).collect();
        Some(Operand::Const(self.b.m.consts.vector(Scalar::I32, &bits)))
    }

    /// The `sample*` family.
    fn sample(&mut self, inst: &InstRef<'p>) -> R<()> {
        let ops = inst.operands;
        // dst, coord, t, s, [extra...]
        let (dst, coord_op, t, s) = (&ops[0], &ops[1], &ops[2], &ops[3]);
        let (si, info) = self.sampled_image(t, s)?;
        let ViewKind::Typed { scalar, dim, .. } = info.kind else {
            unreachable!()
        };
        let nc = coord_count(dim);
        let coord = self.read_n(coord_op, nc, Scalar::F32)?;
        let mut mask = ImageOperands::NONE;
        let mut extra: SmallVec<[Operand; 4]> = SmallVec::new();
        let mut dref = None;
        let op = match inst.opcode {
            Opcode::Sample => Op::ImageSampleImplicitLod,
            Opcode::SampleB => {
                mask |= ImageOperands::BIAS;
                extra.push(self.read_scalar(&ops[4], Scalar::F32)?);
                Op::ImageSampleImplicitLod
            }
            Opcode::SampleL => {
                mask |= ImageOperands::LOD;
                extra.push(self.read_scalar(&ops[4], Scalar::F32)?);
                Op::ImageSampleExplicitLod
            }
            Opcode::SampleD => {
                mask |= ImageOperands::GRAD;
                let n = offset_count(dim);
                extra.push(self.read_n(&ops[4], n, Scalar::F32)?);
                extra.push(self.read_n(&ops[5], n, Scalar::F32)?);
                Op::ImageSampleExplicitLod
            }
            Opcode::SampleC => {
                dref = Some(self.read_scalar(&ops[4], Scalar::F32)?);
                Op::ImageSampleDrefImplicitLod
            }
            Opcode::SampleCLz => {
                dref = Some(self.read_scalar(&ops[4], Scalar::F32)?);
                mask |= ImageOperands::LOD;
                extra.push(self.b.f32c(0.0));
                Op::ImageSampleDrefExplicitLod
            }
            _ => unreachable!("sample family"),
        };
        let implicit = matches!(
            op,
            Op::ImageSampleImplicitLod | Op::ImageSampleDrefImplicitLod
        );
        if implicit && self.stage != crate::reflect::ShaderStage::Pixel {
            return Err(self.invalid(format!(
                "{} outside a pixel shader",
                inst.opcode.info().name
            )));
        }
        if let Some(off) = self.const_offsets(inst, dim) {
            mask |= ImageOperands::CONST_OFFSET;
            extra.push(off);
        }
        let vty = TypeTable::vec(scalar, 4);
        let mut args: SmallVec<[Operand; 8]> = smallvec::smallvec![si, coord];
        if let Some(d) = dref {
            args.push(d);
        }
        if !mask.is_empty() {
            args.push(Operand::Lit(mask.bits()));
            args.extend(extra);
        }
        let rty = if dref.is_some() {
            TypeTable::vec(scalar, 1)
        } else {
            vty
        };
        let r = self.b.op(op, rty, &args);
        self.write_texture_result(dst, r, t, scalar, inst.saturate)
    }

    /// `ld`/`ldms`: fetch a texel by integer coordinates.
    fn load_texel(&mut self, inst: &InstRef<'p>) -> R<()> {
        let ops = inst.operands;
        let (dst, coord_op, t) = (&ops[0], &ops[1], &ops[2]);
        let (img, info) = self.load_image(t)?;
        let ViewKind::Typed { scalar, dim, .. } = info.kind else {
            unreachable!()
        };
        let nc = coord_count(dim);
        let coord = self.read_n(coord_op, nc, Scalar::I32)?;
        let mut mask = ImageOperands::NONE;
        let mut extra: SmallVec<[Operand; 3]> = SmallVec::new();
        let ms = matches!(
            dim,
            ResourceDimension::Texture2DMS | ResourceDimension::Texture2DMSArray
        );
        if ms {
            mask |= ImageOperands::SAMPLE;
            extra.push(self.read_scalar(&ops[3], Scalar::I32)?);
        } else if dim != ResourceDimension::Buffer {
            mask |= ImageOperands::LOD;
            let w = self.read_comps(coord_op, &[coord_op.swizzle()[3]], Scalar::I32)?;
            extra.push(w);
        }
        if dim != ResourceDimension::Buffer
            && let Some(off) = self.const_offsets(inst, dim)
        {
            mask |= ImageOperands::CONST_OFFSET;
            extra.push(off);
        }
        let vty = TypeTable::vec(scalar, 4);
        let mut args: SmallVec<[Operand; 6]> = smallvec::smallvec![img, coord];
        if !mask.is_empty() {
            args.push(Operand::Lit(mask.bits()));
            args.extend(extra);
        }
        let r = self.b.op(Op::ImageFetch, vty, &args);
        self.write_texture_result(dst, r, t, scalar, inst.saturate)
    }

    /// Lowers a texture/resource instruction; false when `inst` is not one.
    pub fn resource_op(&mut self, inst: InstRef<'p>) -> R<bool> {
        match inst.opcode {
            Opcode::Sample
            | Opcode::SampleB
            | Opcode::SampleL
            | Opcode::SampleD
            | Opcode::SampleC
            | Opcode::SampleCLz => self.sample(&inst)?,
            Opcode::Ld | Opcode::LdMs => self.load_texel(&inst)?,
            _ => return Ok(false),
        }
        let _ = Dim::Dim2D;
        Ok(true)
    }
}
