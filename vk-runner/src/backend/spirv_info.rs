//! Reads what a SPIR-V module expects from its caller straight from the module: entry point,
//! interface variables (locations, built-ins, scalar types), descriptors (set, binding,
//! Vulkan descriptor type, array size, image shape), push constants, workgroup size,
//! capabilities and extensions.
//!
//! The vkd3d backend builds its [`translator::Reflection`] from this; it can also check our
//! translator's reflection against the module it describes.

use rspirv::dr::{Instruction, Module, Operand};
use spirv::{Decoration, Op, StorageClass};
use std::collections::HashMap;
use translator::reflect::{ComponentType, DescriptorType, ResourceDim, ReturnType, ShaderStage};

/// An interface variable (Input or Output).
#[derive(Debug, Clone, PartialEq)]
pub struct IoVar {
    pub name: Option<String>,
    pub location: Option<u32>,
    pub component: u32,
    pub builtin: Option<String>,
    pub scalar: Option<ComponentType>,
    /// Vector size (1 for scalars; element vector size for arrays).
    pub vec_size: u32,
}

/// Image type details of a descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageInfo {
    pub dim: ResourceDim,
    pub sampled_type: ReturnType,
    pub multisampled: bool,
    /// The SPIR-V image format is a concrete one (e.g. R32ui) rather than Unknown.
    pub format_r32ui: bool,
    pub comparison_hint: bool,
}

/// A resource variable.
#[derive(Debug, Clone, PartialEq)]
pub struct DescVar {
    pub name: Option<String>,
    pub set: u32,
    pub binding: u32,
    pub descriptor_type: DescriptorType,
    pub count: Option<u32>,
    pub image: Option<ImageInfo>,
    /// Byte size of a buffer block (uniform/storage buffers) when known.
    pub block_size: Option<u32>,
    pub non_writable: bool,
}

/// Everything read from a module.
#[derive(Debug, Clone, PartialEq)]
pub struct SpirvInfo {
    pub stage: ShaderStage,
    pub entry_point: String,
    pub inputs: Vec<IoVar>,
    pub outputs: Vec<IoVar>,
    pub descriptors: Vec<DescVar>,
    /// Push-constant block size in bytes, if the module has one.
    pub push_constant_size: Option<u32>,
    pub workgroup_size: Option<[u32; 3]>,
    pub capabilities: Vec<String>,
    pub extensions: Vec<String>,
}

struct Ctx<'a> {
    module: &'a Module,
    defs: HashMap<u32, &'a Instruction>,
    names: HashMap<u32, String>,
    decos: HashMap<u32, Vec<(Decoration, Vec<Operand>)>>,
    member_offsets: HashMap<(u32, u32), u32>,
}

fn lit(op: &Operand) -> Option<u32> {
    match op {
        Operand::LiteralBit32(v) => Some(*v),
        _ => None,
    }
}

fn id(op: &Operand) -> Option<u32> {
    match op {
        Operand::IdRef(v) => Some(*v),
        _ => None,
    }
}

impl<'a> Ctx<'a> {
    fn new(module: &'a Module) -> Self {
        let mut defs = HashMap::new();
        for inst in &module.types_global_values {
            if let Some(r) = inst.result_id {
                defs.insert(r, inst);
            }
        }
        let mut names = HashMap::new();
        for inst in &module.debug_names {
            if inst.class.opcode == Op::Name
                && let (Some(Operand::IdRef(t)), Some(Operand::LiteralString(s))) =
                    (inst.operands.first(), inst.operands.get(1))
            {
                names.insert(*t, s.clone());
            }
        }
        let mut decos: HashMap<u32, Vec<(Decoration, Vec<Operand>)>> = HashMap::new();
        let mut member_offsets = HashMap::new();
        for inst in &module.annotations {
            match inst.class.opcode {
                Op::Decorate => {
                    if let (Some(Operand::IdRef(t)), Some(Operand::Decoration(d))) =
                        (inst.operands.first(), inst.operands.get(1))
                    {
                        decos
                            .entry(*t)
                            .or_default()
                            .push((*d, inst.operands[2..].to_vec()));
                    }
                }
                Op::MemberDecorate => {
                    if let (
                        Some(Operand::IdRef(t)),
                        Some(Operand::LiteralBit32(m)),
                        Some(Operand::Decoration(Decoration::Offset)),
                        Some(Operand::LiteralBit32(o)),
                    ) = (
                        inst.operands.first(),
                        inst.operands.get(1),
                        inst.operands.get(2),
                        inst.operands.get(3),
                    ) {
                        member_offsets.insert((*t, *m), *o);
                    }
                }
                _ => {}
            }
        }
        Ctx {
            module,
            defs,
            names,
            decos,
            member_offsets,
        }
    }

    fn deco(&self, target: u32, d: Decoration) -> Option<&[Operand]> {
        self.decos
            .get(&target)?
            .iter()
            .find(|(x, _)| *x == d)
            .map(|(_, ops)| ops.as_slice())
    }

    fn deco_u32(&self, target: u32, d: Decoration) -> Option<u32> {
        self.deco(target, d).and_then(|o| o.first()).and_then(lit)
    }

    fn def(&self, id: u32) -> Result<&'a Instruction, String> {
        self.defs
            .get(&id)
            .copied()
            .ok_or_else(|| format!("SPIR-V id %{id} is not defined"))
    }

    fn constant_u32(&self, id: u32) -> Option<u32> {
        let d = self.defs.get(&id)?;
        (d.class.opcode == Op::Constant)
            .then(|| d.operands.first().and_then(lit))
            .flatten()
    }

    /// Scalar type and vector size of a (possibly array-of) scalar/vector type.
    fn scalar_of(&self, ty: u32) -> Result<(Option<ComponentType>, u32), String> {
        let d = self.def(ty)?;
        match d.class.opcode {
            Op::TypeFloat => {
                let w = d.operands.first().and_then(lit).unwrap_or(32);
                Ok((
                    Some(if w == 64 {
                        ComponentType::Double
                    } else {
                        ComponentType::Float
                    }),
                    1,
                ))
            }
            Op::TypeInt => {
                let signed = d.operands.get(1).and_then(lit).unwrap_or(0) != 0;
                Ok((
                    Some(if signed {
                        ComponentType::Sint
                    } else {
                        ComponentType::Uint
                    }),
                    1,
                ))
            }
            Op::TypeBool => Ok((Some(ComponentType::Uint), 1)),
            Op::TypeVector => {
                let (s, _) =
                    self.scalar_of(d.operands.first().and_then(id).ok_or("bad vector")?)?;
                Ok((s, d.operands.get(1).and_then(lit).unwrap_or(1)))
            }
            Op::TypeArray | Op::TypeRuntimeArray => {
                self.scalar_of(d.operands.first().and_then(id).ok_or("bad array")?)
            }
            _ => Ok((None, 1)),
        }
    }

    /// Byte size of a type laid out with explicit offsets/strides (for blocks).
    fn size_of(&self, ty: u32, depth: u32) -> Option<u32> {
        if depth > 32 {
            return None;
        }
        let d = self.defs.get(&ty)?;
        match d.class.opcode {
            Op::TypeFloat | Op::TypeInt => Some(d.operands.first().and_then(lit)? / 8),
            Op::TypeBool => Some(4),
            Op::TypeVector | Op::TypeMatrix => {
                let e = self.size_of(d.operands.first().and_then(id)?, depth + 1)?;
                e.checked_mul(d.operands.get(1).and_then(lit)?)
            }
            Op::TypeArray => {
                let elem = d.operands.first().and_then(id)?;
                let n = self.constant_u32(d.operands.get(1).and_then(id)?)?;
                let stride = self
                    .deco_u32(ty, Decoration::ArrayStride)
                    .or_else(|| self.size_of(elem, depth + 1))?;
                stride.checked_mul(n)
            }
            Op::TypeStruct => {
                let mut end = 0u32;
                for (i, m) in d.operands.iter().enumerate() {
                    let off = self
                        .member_offsets
                        .get(&(ty, i as u32))
                        .copied()
                        .unwrap_or(end);
                    let sz = self.size_of(id(m)?, depth + 1).unwrap_or(0);
                    end = end.max(off.checked_add(sz)?);
                }
                Some(end)
            }
            _ => None,
        }
    }

    fn io_var(&self, var: u32, pointee: u32) -> Result<IoVar, String> {
        let (scalar, vec_size) = self.scalar_of(pointee)?;
        let builtin = self
            .deco(var, Decoration::BuiltIn)
            .and_then(|o| o.first())
            .and_then(|o| match o {
                Operand::BuiltIn(b) => Some(format!("{b:?}")),
                _ => None,
            });
        Ok(IoVar {
            name: self.names.get(&var).cloned(),
            location: self.deco_u32(var, Decoration::Location),
            component: self.deco_u32(var, Decoration::Component).unwrap_or(0),
            builtin,
            scalar,
            vec_size,
        })
    }

    fn desc_var(&self, var: u32, storage: StorageClass, pointee: u32) -> Result<DescVar, String> {
        let mut ty = self.def(pointee)?;
        let mut count = Some(1);
        match ty.class.opcode {
            Op::TypeArray => {
                let len = ty.operands.get(1).and_then(id).ok_or("bad array")?;
                count = Some(
                    self.constant_u32(len)
                        .ok_or("array length is not a constant")?,
                );
                ty = self.def(ty.operands.first().and_then(id).ok_or("bad array")?)?;
            }
            Op::TypeRuntimeArray => {
                count = None;
                ty = self.def(ty.operands.first().and_then(id).ok_or("bad array")?)?;
            }
            _ => {}
        }
        let mut image = None;
        let mut block_size = None;
        let descriptor_type = match (storage, ty.class.opcode) {
            (StorageClass::Uniform, Op::TypeStruct) => {
                let tid = ty.result_id.unwrap_or(0);
                block_size = self.size_of(tid, 0);
                if self.deco(tid, Decoration::BufferBlock).is_some() {
                    DescriptorType::StorageBuffer
                } else {
                    DescriptorType::UniformBuffer
                }
            }
            (StorageClass::StorageBuffer, Op::TypeStruct) => {
                block_size = self.size_of(ty.result_id.unwrap_or(0), 0);
                DescriptorType::StorageBuffer
            }
            (StorageClass::UniformConstant, Op::TypeSampler) => DescriptorType::Sampler,
            (StorageClass::UniformConstant, Op::TypeImage) => {
                let info = self.image_info(ty)?;
                let sampled = ty.operands.get(5).and_then(lit).unwrap_or(0);
                image = Some(info);
                match (info.dim == ResourceDim::Buffer, sampled == 2) {
                    (true, false) => DescriptorType::UniformTexelBuffer,
                    (true, true) => DescriptorType::StorageTexelBuffer,
                    (false, false) => DescriptorType::SampledImage,
                    (false, true) => DescriptorType::StorageImage,
                }
            }
            (StorageClass::UniformConstant, Op::TypeSampledImage) => {
                return Err("combined image samplers are not supported".into());
            }
            (s, op) => return Err(format!("unsupported resource variable: {s:?} {op:?}")),
        };
        Ok(DescVar {
            name: self.names.get(&var).cloned(),
            set: self.deco_u32(var, Decoration::DescriptorSet).unwrap_or(0),
            binding: self
                .deco_u32(var, Decoration::Binding)
                .ok_or("resource variable without Binding")?,
            descriptor_type,
            count,
            image,
            block_size,
            non_writable: self.deco(var, Decoration::NonWritable).is_some(),
        })
    }

    fn image_info(&self, ty: &Instruction) -> Result<ImageInfo, String> {
        let sampled_ty = ty.operands.first().and_then(id).ok_or("bad image type")?;
        let (scalar, _) = self.scalar_of(sampled_ty)?;
        let sampled_type = match scalar {
            Some(ComponentType::Uint) => ReturnType::Uint,
            Some(ComponentType::Sint) => ReturnType::Sint,
            Some(ComponentType::Double) => ReturnType::Double,
            _ => ReturnType::Float,
        };
        let dim = match ty.operands.get(1) {
            Some(Operand::Dim(d)) => *d,
            _ => return Err("bad image type".into()),
        };
        let depth = ty.operands.get(2).and_then(lit).unwrap_or(0) == 1;
        let arrayed = ty.operands.get(3).and_then(lit).unwrap_or(0) != 0;
        let ms = ty.operands.get(4).and_then(lit).unwrap_or(0) != 0;
        let format_r32ui = matches!(
            ty.operands.get(6),
            Some(Operand::ImageFormat(spirv::ImageFormat::R32ui))
        );
        use spirv::Dim;
        let rd = match (dim, arrayed, ms) {
            (Dim::DimBuffer, _, _) => ResourceDim::Buffer,
            (Dim::Dim1D, false, _) => ResourceDim::Texture1D,
            (Dim::Dim1D, true, _) => ResourceDim::Texture1DArray,
            (Dim::Dim2D, false, false) => ResourceDim::Texture2D,
            (Dim::Dim2D, true, false) => ResourceDim::Texture2DArray,
            (Dim::Dim2D, false, true) => ResourceDim::Texture2DMS,
            (Dim::Dim2D, true, true) => ResourceDim::Texture2DMSArray,
            (Dim::Dim3D, _, _) => ResourceDim::Texture3D,
            (Dim::DimCube, false, _) => ResourceDim::TextureCube,
            (Dim::DimCube, true, _) => ResourceDim::TextureCubeArray,
            (d, _, _) => return Err(format!("unsupported image dimension {d:?}")),
        };
        Ok(ImageInfo {
            dim: rd,
            sampled_type,
            multisampled: ms,
            format_r32ui,
            comparison_hint: depth,
        })
    }
}

/// `words` without its `OpExecutionModeId` instructions (`SPV_KHR_float_controls2`'s
/// `FPFastMathDefault`), which rspirv 0.13's loader does not take and nothing read here needs.
fn without_execution_mode_ids(words: &[u32]) -> std::borrow::Cow<'_, [u32]> {
    const HEADER: usize = 5;
    let id_mode = spirv::Op::ExecutionModeId as u32;
    let op_at = |i: usize| words[i] & 0xFFFF;
    let len_at = |i: usize| (words[i] >> 16) as usize;
    let mut i = HEADER;
    let mut found = false;
    while i < words.len() && len_at(i) > 0 {
        found |= op_at(i) == id_mode;
        i += len_at(i);
    }
    if !found || words.len() < HEADER {
        return words.into();
    }
    let mut out = words[..HEADER].to_vec();
    let mut i = HEADER;
    while i < words.len() && len_at(i) > 0 {
        let end = (i + len_at(i)).min(words.len());
        if op_at(i) != id_mode {
            out.extend_from_slice(&words[i..end]);
        }
        i = end;
    }
    out.into()
}

/// Reads a module. Errors name what could not be understood.
pub fn read(words: &[u32]) -> Result<SpirvInfo, String> {
    let words = without_execution_mode_ids(words);
    let module =
        rspirv::dr::load_words(&*words).map_err(|e| format!("SPIR-V does not parse: {e}"))?;
    let ctx = Ctx::new(&module);
    let ep = match module.entry_points.as_slice() {
        [ep] => ep,
        [] => return Err("SPIR-V module has no entry point".into()),
        _ => return Err("SPIR-V module has several entry points".into()),
    };
    let stage = match ep.operands.first() {
        Some(Operand::ExecutionModel(m)) => match m {
            spirv::ExecutionModel::Vertex => ShaderStage::Vertex,
            spirv::ExecutionModel::Fragment => ShaderStage::Pixel,
            spirv::ExecutionModel::Geometry => ShaderStage::Geometry,
            spirv::ExecutionModel::TessellationControl => ShaderStage::Hull,
            spirv::ExecutionModel::TessellationEvaluation => ShaderStage::Domain,
            spirv::ExecutionModel::GLCompute => ShaderStage::Compute,
            other => return Err(format!("unsupported execution model {other:?}")),
        },
        _ => return Err("bad OpEntryPoint".into()),
    };
    let entry_point = match ep.operands.get(2) {
        Some(Operand::LiteralString(s)) => s.clone(),
        _ => return Err("bad OpEntryPoint".into()),
    };
    let mut workgroup_size = None;
    for em in &module.execution_modes {
        if let Some(Operand::ExecutionMode(m)) = em.operands.get(1) {
            let vals: Vec<u32> = em.operands[2..].iter().filter_map(lit).collect();
            match m {
                spirv::ExecutionMode::LocalSize if vals.len() == 3 => {
                    workgroup_size = Some([vals[0], vals[1], vals[2]])
                }
                spirv::ExecutionMode::LocalSizeId => {
                    let ids: Vec<u32> = em.operands[2..].iter().filter_map(id).collect();
                    let v: Option<Vec<u32>> = ids.iter().map(|i| ctx.constant_u32(*i)).collect();
                    if let Some(v) = v.filter(|v| v.len() == 3) {
                        workgroup_size = Some([v[0], v[1], v[2]]);
                    }
                }
                _ => {}
            }
        }
    }
    let mut info = SpirvInfo {
        stage,
        entry_point,
        inputs: Vec::new(),
        outputs: Vec::new(),
        descriptors: Vec::new(),
        push_constant_size: None,
        workgroup_size,
        capabilities: module
            .capabilities
            .iter()
            .filter_map(|c| match c.operands.first() {
                Some(Operand::Capability(c)) => Some(format!("{c:?}")),
                _ => None,
            })
            .collect(),
        extensions: module
            .extensions
            .iter()
            .filter_map(|c| match c.operands.first() {
                Some(Operand::LiteralString(s)) => Some(s.clone()),
                _ => None,
            })
            .collect(),
    };
    for inst in &module.types_global_values {
        if inst.class.opcode != Op::Variable {
            continue;
        }
        let var = inst.result_id.ok_or("variable without id")?;
        let storage = match inst.operands.first() {
            Some(Operand::StorageClass(s)) => *s,
            _ => return Err("variable without storage class".into()),
        };
        let ptr = ctx.def(inst.result_type.ok_or("variable without type")?)?;
        let pointee = ptr
            .operands
            .get(1)
            .and_then(id)
            .ok_or("variable type is not a pointer")?;
        match storage {
            StorageClass::Input => info.inputs.push(ctx.io_var(var, pointee)?),
            StorageClass::Output => info.outputs.push(ctx.io_var(var, pointee)?),
            StorageClass::Uniform | StorageClass::UniformConstant | StorageClass::StorageBuffer => {
                info.descriptors.push(ctx.desc_var(var, storage, pointee)?)
            }
            StorageClass::PushConstant => {
                info.push_constant_size = Some(
                    ctx.size_of(pointee, 0)
                        .ok_or("push-constant block of unknown size")?,
                )
            }
            _ => {}
        }
    }
    let _ = ctx.module;
    info.descriptors.sort_by_key(|d| (d.set, d.binding));
    Ok(info)
}
