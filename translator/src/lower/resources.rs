//! Resources: constant buffers, the immediate constant buffer, indexable temps, samplers,
//! shader resource views, unordered access views and thread-group shared memory — their
//! declarations (globals, bindings, reflection) and the memory accesses every other module
//! builds on.
//!
//! The texture, buffer, UAV and atomic *instructions* live in [`super::texture`] and
//! [`super::memory`]; this module owns what they look up: [`ResourceState`]. Where each
//! range goes in Vulkan is decided once for the whole program ([`plan`]); constant buffers
//! placed in push constants are in [`push`].

mod plan;
mod push;

pub(crate) use plan::{ICB_ID, USES_ATOMIC, USES_TYPED_LOAD, USES_TYPED_STORE};

use rustc_hash::FxHashMap as HashMap;

use spirv::{Decoration, Dim, ImageFormat, Op, StorageClass};

use super::regs::Idx;
use super::{Lowerer, R};
use crate::binding::Placement;
use crate::ir::{
    Const, DecorationTarget, GlobalId, ImageType, Operand, Scalar, Type, TypeId, TypeTable,
};
use crate::lower::LowerError;
use crate::reflect::{
    D3dOrigin, Descriptor, DescriptorType, RegisterClass, ResourceDim, ResourceShape,
    ReturnType as RReturn,
};
use crate::sm4::{
    CustomDataClass, Declaration, InstRef, Operand as Sm4Operand, OperandType, ResourceDimension,
    ReturnType,
};

/// A declared register range (SM5.1), or one register (SM4/5.0: lower = upper = register),
/// with where its descriptors are once declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Range {
    pub space: u32,
    pub lower: u32,
    /// Inclusive; `None` = unbounded.
    pub upper: Option<u32>,
    /// Array element of the binding that holds register `lower`.
    pub base: u32,
    /// Whether the variable is an array of descriptors (else `base` is 0 and the range one
    /// register).
    pub array: bool,
    /// The Vulkan descriptor type (for the indexing capabilities and features).
    pub descriptor_type: DescriptorType,
    /// Byte offset of the push constant added to every element (a placement's dynamic
    /// offset): the variable is then a runtime array.
    pub dynamic: Option<u32>,
}

impl Range {
    /// Number of descriptors, `None` when unbounded.
    pub fn count(&self) -> Option<u32> {
        self.upper
            .map(|u| u.saturating_sub(self.lower).saturating_add(1))
    }

    /// Whether the range is an array of descriptors in SPIR-V.
    pub fn is_array(&self) -> bool {
        self.array
    }
}

/// What kind of view an SRV or UAV is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ViewKind {
    /// A texture or typed buffer: image type, its sampled type and D3D dimension.
    Typed {
        image: TypeId,
        scalar: Scalar,
        dim: ResourceDimension,
    },
    /// A byte-address buffer (`u32` array).
    Raw,
    /// A structured buffer (`u32` array) with `stride` bytes per element.
    Structured { stride: u32 },
    /// A raw (`stride` 0) or structured view read as an R32_UINT texel buffer, one texel per
    /// dword (`texel_views.rs`): an SRV's uniform texel buffer, or (`storage`) a UAV's storage
    /// texel buffer; `image` is its image type.
    TexelBuffer {
        stride: u32,
        image: TypeId,
        storage: bool,
    },
}

#[derive(Debug, Clone)]
pub(crate) struct CbInfo {
    pub global: GlobalId,
    pub range: Range,
    /// Held in push constants: the member of the push-constant block (`global`).
    pub push: Option<push::PushMember>,
    /// Vectors of the buffer's SPIR-V array (uniform buffers; 0 in push constants).
    pub rows: u32,
}

#[derive(Debug, Clone)]
pub(crate) struct ViewInfo {
    pub global: GlobalId,
    pub kind: ViewKind,
    pub range: Range,
    /// Type of one descriptor (the image type, or the buffer block struct).
    pub elem_ty: TypeId,
    /// UAV counter and its range (placed on its own), for UAVs that have one.
    pub counter: Option<CounterInfo>,
    pub globally_coherent: bool,
}

/// A UAV's hidden counter.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CounterInfo {
    pub global: GlobalId,
    pub range: Range,
    /// The image type of a texel-buffer counter ([`crate::TexelBuffers::uav_counter`]); `None`
    /// for a storage buffer `{ uint[1] }`.
    pub image: Option<TypeId>,
}

#[derive(Debug, Clone)]
pub(crate) struct SamplerInfo {
    pub global: GlobalId,
    pub range: Range,
}

#[derive(Debug, Clone)]
pub(crate) struct TgsmInfo {
    pub global: GlobalId,
    /// Size in dwords.
    pub dwords: u32,
    /// Structure stride in bytes (structured TGSM), 0 for raw.
    pub stride: u32,
}

#[derive(Debug, Clone)]
pub(crate) struct IndexableInfo {
    pub global: GlobalId,
    pub size: u32,
}

#[derive(Debug, Default)]
pub(crate) struct ResourceState {
    pub cbs: HashMap<u32, CbInfo>,
    pub srvs: HashMap<u32, ViewInfo>,
    pub uavs: HashMap<u32, ViewInfo>,
    pub samplers: HashMap<u32, SamplerInfo>,
    pub tgsm: HashMap<u32, TgsmInfo>,
    pub indexable: HashMap<u32, IndexableInfo>,
    pub icb: Option<(GlobalId, u32)>,
    /// `{ u32 residency code, T texel }` result structs of sparse image ops, by `T`.
    pub sparse_structs: HashMap<TypeId, TypeId>,
    /// Private table of the standard sample positions (`samplepos`), once used.
    pub sample_positions: Option<GlobalId>,
    /// Where every declared range goes (built before the first declaration).
    pub plan: plan::Plan,
    /// The push-constant block and its members by constant buffer ID, once declared.
    pub push_block: Option<push::PushBlock>,
    /// A UAV is declared rasterizer-ordered (`_rov`); see `rov.rs`.
    pub rasterizer_ordered: bool,
    /// The `Uniform` vec4 pointer type and the constant 0 of a constant buffer row's access
    /// chain, once a row was loaded (looked up once, not per row).
    pub row_access: Option<(TypeId, Operand)>,
}

impl ResourceState {
    /// Empties this state in place for the next program (what `default()` makes), keeping its
    /// maps' allocations.
    pub fn recycle(&mut self) {
        // Every field named, so that a new one cannot be left out.
        let ResourceState {
            cbs,
            srvs,
            uavs,
            samplers,
            tgsm,
            indexable,
            icb,
            sparse_structs,
            sample_positions,
            plan,
            push_block,
            rasterizer_ordered,
            row_access,
        } = self;
        cbs.clear();
        srvs.clear();
        uavs.clear();
        samplers.clear();
        tgsm.clear();
        indexable.clear();
        *icb = None;
        sparse_structs.clear();
        *sample_positions = None;
        plan.recycle();
        *push_block = None;
        *rasterizer_ordered = false;
        *row_access = None;
    }
}

fn reflect_dim(d: ResourceDimension) -> ResourceDim {
    match d {
        ResourceDimension::Buffer
        | ResourceDimension::Unknown
        | ResourceDimension::RawBuffer
        | ResourceDimension::StructuredBuffer => ResourceDim::Buffer,
        ResourceDimension::Texture1D => ResourceDim::Texture1D,
        ResourceDimension::Texture1DArray => ResourceDim::Texture1DArray,
        ResourceDimension::Texture2D => ResourceDim::Texture2D,
        ResourceDimension::Texture2DArray => ResourceDim::Texture2DArray,
        ResourceDimension::Texture2DMS => ResourceDim::Texture2DMS,
        ResourceDimension::Texture2DMSArray => ResourceDim::Texture2DMSArray,
        ResourceDimension::Texture3D => ResourceDim::Texture3D,
        ResourceDimension::TextureCube => ResourceDim::TextureCube,
        ResourceDimension::TextureCubeArray => ResourceDim::TextureCubeArray,
    }
}

fn reflect_return(t: ReturnType) -> RReturn {
    match t {
        ReturnType::Unorm => RReturn::Unorm,
        ReturnType::Snorm => RReturn::Snorm,
        ReturnType::Sint => RReturn::Sint,
        ReturnType::Uint => RReturn::Uint,
        ReturnType::Double => RReturn::Double,
        ReturnType::Mixed => RReturn::Mixed,
        _ => RReturn::Float,
    }
}

/// SPIR-V image dimension, arrayed and multisampled flags of a D3D dimension.
pub(crate) fn image_shape(d: ResourceDimension) -> (Dim, bool, bool) {
    match d {
        ResourceDimension::Buffer
        | ResourceDimension::Unknown
        | ResourceDimension::RawBuffer
        | ResourceDimension::StructuredBuffer => (Dim::DimBuffer, false, false),
        ResourceDimension::Texture1D => (Dim::Dim1D, false, false),
        ResourceDimension::Texture1DArray => (Dim::Dim1D, true, false),
        ResourceDimension::Texture2D => (Dim::Dim2D, false, false),
        ResourceDimension::Texture2DArray => (Dim::Dim2D, true, false),
        ResourceDimension::Texture2DMS => (Dim::Dim2D, false, true),
        ResourceDimension::Texture2DMSArray => (Dim::Dim2D, true, true),
        ResourceDimension::Texture3D => (Dim::Dim3D, false, false),
        ResourceDimension::TextureCube => (Dim::DimCube, false, false),
        ResourceDimension::TextureCubeArray => (Dim::DimCube, true, false),
    }
}

fn scalar_of_return(t: ReturnType) -> Scalar {
    match t {
        ReturnType::Uint => Scalar::U32,
        ReturnType::Sint => Scalar::I32,
        _ => Scalar::F32,
    }
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// The range a declaration's register operand declares.
    fn declared_range(&self, op: &Sm4Operand, space: Option<u32>) -> R<(u32, Range)> {
        let idx: smallvec::SmallVec<[crate::sm4::Index; 3]> = op.indices().collect();
        if self.prog.version.is_sm51() {
            if idx.len() < 3 {
                return Err(self.invalid("SM5.1 resource declaration without range bounds"));
            }
            let id = idx[0].imm32();
            let lower = idx[1].imm32();
            let upper = idx[2].imm32();
            let upper = if upper == u32::MAX { None } else { Some(upper) };
            if let Some(u) = upper.filter(|&u| u < lower) {
                return Err(self.invalid(format!("range {lower}..{u} is empty")));
            }
            Ok((
                id,
                Range {
                    space: space.unwrap_or(0),
                    lower,
                    upper,
                    base: 0,
                    array: false,
                    descriptor_type: DescriptorType::Sampler,
                    dynamic: None,
                },
            ))
        } else {
            let reg = op
                .register()
                .ok_or_else(|| self.invalid("resource declaration without a register"))?;
            Ok((
                reg,
                Range {
                    space: 0,
                    lower: reg,
                    upper: Some(reg),
                    base: 0,
                    array: false,
                    descriptor_type: DescriptorType::Sampler,
                    dynamic: None,
                },
            ))
        }
    }

    /// The plan's placement of range `id` of `class` (or of its counter).
    pub(super) fn placement(
        &mut self,
        class: RegisterClass,
        id: u32,
        counter: bool,
    ) -> R<Placement> {
        self.ensure_plan()?;
        self.res.plan.placement(class, id, counter).ok_or_else(|| {
            self.unsupported(format!(
                "{}{id} declared after the program's first instruction",
                class.letter()
            ))
        })
    }

    /// Declares a descriptor variable for a range where the plan placed it: an array when the
    /// range has several registers or does not start at element 0 of its binding, a runtime
    /// array when it is unbounded. Records it in the reflection and completes `range`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn declare_descriptor(
        &mut self,
        class: RegisterClass,
        range: &mut Range,
        id: u32,
        elem: TypeId,
        storage: StorageClass,
        descriptor_type: DescriptorType,
        shape: ResourceShape,
        writable: bool,
        counter: bool,
    ) -> R<GlobalId> {
        let (set, binding, base, dynamic, mutable) = match self.placement(class, id, counter)? {
            Placement::Descriptor {
                set,
                binding,
                array_offset,
                dynamic_offset,
                mutable,
            } => (set, binding, array_offset, dynamic_offset, mutable),
            Placement::PushConstant { .. } => {
                return Err(LowerError::Internal {
                    what: format!("{}{id} placed in push constants", class.letter()),
                });
            }
        };
        range.base = base;
        range.descriptor_type = descriptor_type;
        range.dynamic = dynamic;
        if dynamic.is_some() {
            // Read through the push-constant block (declared once, with every offset word).
            self.ensure_push_block()?;
        }
        // Elements the variable spans: up to the range's last register; with a dynamic
        // offset, as many as the binding holds (a runtime array).
        let len = match range.count() {
            _ if dynamic.is_some() => None,
            Some(n) => Some(base.checked_add(n).ok_or_else(|| {
                self.invalid(format!(
                    "{}{} in space {}: array elements past 2^32",
                    class.letter(),
                    range.lower,
                    range.space
                ))
            })?),
            None => None,
        };
        range.array = len != Some(1);
        let pointee = match len {
            Some(1) => elem,
            Some(n) => {
                let len = self.b.m.consts.u32(n);
                self.b.m.types.intern(Type::Array {
                    elem,
                    len,
                    stride: None,
                })
            }
            None => {
                self.b
                    .m
                    .capability(spirv::Capability::RuntimeDescriptorArray);
                if self.opts.target_env.spirv_version() < (1, 5) {
                    self.b.m.extension("SPV_EXT_descriptor_indexing");
                }
                self.need_feature("runtimeDescriptorArray");
                self.b
                    .m
                    .types
                    .intern(Type::RuntimeArray { elem, stride: None })
            }
        };
        if storage == StorageClass::StorageBuffer && self.opts.target_env.spirv_version() < (1, 3) {
            self.b.m.extension("SPV_KHR_storage_buffer_storage_class");
        }
        let g = self.b.m.add_global(pointee, storage, None);
        let t = DecorationTarget::Global(g);
        self.b.m.decorate(t, Decoration::DescriptorSet, &[set]);
        self.b.m.decorate(t, Decoration::Binding, &[binding]);
        self.b.m.name(
            t,
            format_args!(
                "{}{}{}",
                class.letter(),
                range.lower,
                if counter { "_counter" } else { "" }
            ),
        );
        self.reflect_descriptor(
            g,
            Descriptor {
                set,
                binding,
                descriptor_type,
                count: len,
                array_offset: base,
                origin: D3dOrigin {
                    class,
                    space: range.space,
                    lower: range.lower,
                    upper: range.upper,
                    range_id: id,
                    uav_counter: counter,
                },
                shape,
                writable,
                dynamic_offset: dynamic,
                mutable,
            },
        );
        Ok(g)
    }

    /// A `{ u32[] }` block type for raw/structured buffers and counters.
    fn buffer_block(&mut self, runtime: bool) -> TypeId {
        let arr = if runtime {
            self.b.m.types.intern(Type::RuntimeArray {
                elem: TypeId::U32,
                stride: Some(4),
            })
        } else {
            let one = self.b.m.consts.u32(1);
            self.b.m.types.intern(Type::Array {
                elem: TypeId::U32,
                len: one,
                stride: Some(4),
            })
        };
        self.b.m.block_of(arr)
    }

    /// Declarations of resources and memory; false when `inst` is none of them.
    pub fn resource_declaration(&mut self, inst: InstRef<'p>) -> R<bool> {
        if let Some(cd) = inst.custom_data() {
            if cd.class == CustomDataClass::ImmediateConstantBuffer {
                self.declare_icb(cd.icb_rows().collect())?;
            }
            return Ok(true);
        }
        let Some(decl) = inst.decl() else {
            return Ok(false);
        };
        if let Declaration::IndexableTemp { register, size, .. } = decl {
            if *size == 0 || *size > 4096 * 4 {
                return Err(self.invalid(format!("indexable temp of {size} registers")));
            }
            // One row more than declared: dynamically indexed stores out of range land in it
            // (D3D drops them), so that they need no branch; nothing reads it.
            let len = self.b.m.consts.u32(*size + 1);
            let arr = self.b.m.types.intern(Type::Array {
                elem: TypeId::UVEC4,
                len,
                stride: None,
            });
            let null = self.b.m.consts.null(arr);
            let g = self.b.m.add_global(arr, StorageClass::Function, Some(null));
            self.b
                .m
                .name(DecorationTarget::Global(g), format_args!("x{register}"));
            self.res.indexable.insert(
                *register,
                IndexableInfo {
                    global: g,
                    size: *size,
                },
            );
            return Ok(true);
        }
        let Some(op) = inst.operands.first() else {
            return Ok(false);
        };
        if plan::descriptor_kind(decl).is_some() {
            self.ensure_plan()?;
        }
        match decl {
            Declaration::ConstantBuffer {
                size,
                space,
                dynamic_indexed,
            } => {
                let (id, mut range) = self.declared_range(op, *space)?;
                let rows = match size {
                    Some(s) => *s,
                    None => op.index(1).map(|i| i.imm32()).unwrap_or(0),
                };
                if rows > 4096 {
                    return Err(
                        self.invalid(format!("constant buffer of {rows} vectors (at most 4096)"))
                    );
                }
                let rows = rows.max(1);
                if let Placement::PushConstant { .. } =
                    self.placement(RegisterClass::B, id, false)?
                {
                    self.declare_push_cb(id, range)?;
                    return Ok(true);
                }
                // A dynamically indexed buffer may be read past its declared size, and D3D then
                // returns the bound buffer's data (trap 33: games rely on it); SPIR-V would make
                // that undefined for an array of the declared size, so such buffers are declared
                // at D3D's maximum of 4096 vectors. Reflection keeps the declared size.
                let spirv_rows = if *dynamic_indexed || self.classes.cb_by_register {
                    4096
                } else {
                    rows
                };
                let st = self.b.m.row_block(TypeId::VEC4, spirv_rows);
                let g = self.declare_descriptor(
                    RegisterClass::B,
                    &mut range,
                    id,
                    st,
                    StorageClass::Uniform,
                    DescriptorType::UniformBuffer,
                    ResourceShape::ConstantBuffer {
                        size_bytes: rows * 16,
                    },
                    false,
                    false,
                )?;
                self.res.cbs.insert(
                    id,
                    CbInfo {
                        global: g,
                        range,
                        push: None,
                        rows: spirv_rows,
                    },
                );
            }
            Declaration::Sampler { mode, space } => {
                let (id, mut range) = self.declared_range(op, *space)?;
                let comparison = *mode == crate::sm4::SamplerMode::Comparison;
                let st = self.b.m.types.intern(Type::Sampler);
                let g = self.declare_descriptor(
                    RegisterClass::S,
                    &mut range,
                    id,
                    st,
                    StorageClass::UniformConstant,
                    DescriptorType::Sampler,
                    ResourceShape::Sampler { comparison },
                    false,
                    false,
                )?;
                self.res
                    .samplers
                    .insert(id, SamplerInfo { global: g, range });
            }
            Declaration::Resource {
                dim,
                sample_count,
                return_type,
                space,
            } => {
                let (id, mut range) = self.declared_range(op, *space)?;
                let scalar = scalar_of_return(return_type.types[0]);
                // A multisampled view declared with one sample is a single-sampled image in
                // Vulkan (whose multisampled images need two or more samples): the view is
                // typed, fetched (`ldms` at mip 0) and queried as the plain 2D (array) texture.
                let view_dim = match (*dim, *sample_count) {
                    (ResourceDimension::Texture2DMS, 1) => ResourceDimension::Texture2D,
                    (ResourceDimension::Texture2DMSArray, 1) => ResourceDimension::Texture2DArray,
                    (d, _) => d,
                };
                let (sdim, arrayed, ms) = image_shape(view_dim);
                let image = self.b.m.types.intern(Type::Image(ImageType {
                    sampled_type: scalar,
                    dim: sdim,
                    depth: 0,
                    arrayed,
                    ms,
                    sampled: 1,
                    format: ImageFormat::Unknown,
                }));
                self.image_capabilities(sdim, arrayed, ms, false);
                let dt = if sdim == Dim::DimBuffer {
                    DescriptorType::UniformTexelBuffer
                } else {
                    DescriptorType::SampledImage
                };
                let shape = ResourceShape::Image {
                    dim: reflect_dim(*dim),
                    return_type: reflect_return(return_type.types[0]),
                    multisampled: ms,
                };
                let g = self.declare_descriptor(
                    RegisterClass::T,
                    &mut range,
                    id,
                    image,
                    StorageClass::UniformConstant,
                    dt,
                    shape,
                    false,
                    false,
                )?;
                self.res.srvs.insert(
                    id,
                    ViewInfo {
                        global: g,
                        kind: ViewKind::Typed {
                            image,
                            scalar,
                            dim: view_dim,
                        },
                        range,
                        elem_ty: image,
                        counter: None,
                        globally_coherent: false,
                    },
                );
            }
            Declaration::ResourceRaw { space } | Declaration::ResourceStructured { space, .. } => {
                let (id, mut range) = self.declared_range(op, *space)?;
                if self.res.plan.texel_srvs.contains(&id) {
                    let stride = match decl {
                        Declaration::ResourceStructured { stride, .. } => *stride,
                        _ => 0,
                    };
                    return self.declare_texel_srv(id, range, stride);
                }
                let st = self.buffer_block(true);
                let (kind, shape) = match decl {
                    Declaration::ResourceStructured { stride, .. } => (
                        ViewKind::Structured { stride: *stride },
                        ResourceShape::StructuredBuffer { stride: *stride },
                    ),
                    _ => (ViewKind::Raw, ResourceShape::RawBuffer),
                };
                let g = self.declare_descriptor(
                    RegisterClass::T,
                    &mut range,
                    id,
                    st,
                    StorageClass::StorageBuffer,
                    DescriptorType::StorageBuffer,
                    shape,
                    false,
                    false,
                )?;
                self.b
                    .m
                    .decorate(DecorationTarget::Global(g), Decoration::NonWritable, &[]);
                self.res.srvs.insert(
                    id,
                    ViewInfo {
                        global: g,
                        kind,
                        range,
                        elem_ty: st,
                        counter: None,
                        globally_coherent: false,
                    },
                );
            }
            Declaration::UavTyped {
                dim,
                flags,
                return_type,
                space,
            } => {
                let (id, mut range) = self.declared_range(op, *space)?;
                let scalar = scalar_of_return(return_type.types[0]);
                let (sdim, arrayed, ms) = image_shape(*dim);
                // Atomics need an R32 format; plain loads and stores work without a format,
                // unless the options say the device cannot read without one.
                let usage = self.uav_usage(id);
                let r32_read = usage & USES_TYPED_LOAD != 0
                    && self.opts.typed_uav_read == crate::TypedUavRead::R32;
                let format = if usage & USES_ATOMIC != 0 || r32_read {
                    if scalar == Scalar::I32 {
                        ImageFormat::R32i
                    } else if scalar == Scalar::U32 {
                        ImageFormat::R32ui
                    } else {
                        ImageFormat::R32f
                    }
                } else {
                    // Only what the program does to the view needs a format-less access.
                    if usage & USES_TYPED_LOAD != 0 {
                        self.b
                            .m
                            .capability(spirv::Capability::StorageImageReadWithoutFormat);
                        self.need_feature("shaderStorageImageReadWithoutFormat");
                    }
                    if usage & USES_TYPED_STORE != 0 {
                        self.b
                            .m
                            .capability(spirv::Capability::StorageImageWriteWithoutFormat);
                        self.need_feature("shaderStorageImageWriteWithoutFormat");
                    }
                    ImageFormat::Unknown
                };
                let image = self.b.m.types.intern(Type::Image(ImageType {
                    sampled_type: scalar,
                    dim: sdim,
                    depth: 0,
                    arrayed,
                    ms,
                    sampled: 2,
                    format,
                }));
                self.image_capabilities(sdim, arrayed, ms, true);
                let dt = if sdim == Dim::DimBuffer {
                    DescriptorType::StorageTexelBuffer
                } else {
                    DescriptorType::StorageImage
                };
                let shape = ResourceShape::Image {
                    dim: reflect_dim(*dim),
                    return_type: reflect_return(return_type.types[0]),
                    multisampled: ms,
                };
                let g = self.declare_descriptor(
                    RegisterClass::U,
                    &mut range,
                    id,
                    image,
                    StorageClass::UniformConstant,
                    dt,
                    shape,
                    true,
                    false,
                )?;
                if flags.globally_coherent || self.interlocked(flags) {
                    self.b
                        .m
                        .decorate(DecorationTarget::Global(g), Decoration::Coherent, &[]);
                }
                self.res.rasterizer_ordered |= flags.rasterizer_ordered;
                self.uav_stage_feature();
                self.res.uavs.insert(
                    id,
                    ViewInfo {
                        global: g,
                        kind: ViewKind::Typed {
                            image,
                            scalar,
                            dim: *dim,
                        },
                        range,
                        elem_ty: image,
                        counter: None,
                        globally_coherent: flags.globally_coherent,
                    },
                );
            }
            Declaration::UavRaw { flags, space }
            | Declaration::UavStructured { flags, space, .. } => {
                let (id, mut range) = self.declared_range(op, *space)?;
                let stride = match decl {
                    Declaration::UavStructured { stride, .. } => *stride,
                    _ => 0,
                };
                let coherent = flags.globally_coherent || self.interlocked(flags);
                let (g, kind, st) = if self.opts.texel_buffers.raw_uav {
                    self.declare_texel_uav(id, &mut range, stride, coherent)?
                } else {
                    let st = self.buffer_block(true);
                    let (kind, shape) = match decl {
                        Declaration::UavStructured { .. } => (
                            ViewKind::Structured { stride },
                            ResourceShape::StructuredBuffer { stride },
                        ),
                        _ => (ViewKind::Raw, ResourceShape::RawBuffer),
                    };
                    let g = self.declare_descriptor(
                        RegisterClass::U,
                        &mut range,
                        id,
                        st,
                        StorageClass::StorageBuffer,
                        DescriptorType::StorageBuffer,
                        shape,
                        true,
                        false,
                    )?;
                    if coherent {
                        self.b
                            .m
                            .decorate(DecorationTarget::Global(g), Decoration::Coherent, &[]);
                    }
                    (g, kind, st)
                };
                self.res.rasterizer_ordered |= flags.rasterizer_ordered;
                let counter = if self
                    .res
                    .plan
                    .placement(RegisterClass::U, id, true)
                    .is_some()
                {
                    let mut crange = range;
                    let (cg, image) = if self.opts.texel_buffers.uav_counter {
                        let (cg, image) = self.declare_texel_counter(id, &mut crange)?;
                        (cg, Some(image))
                    } else {
                        let cst = self.buffer_block(false);
                        let cg = self.declare_descriptor(
                            RegisterClass::U,
                            &mut crange,
                            id,
                            cst,
                            StorageClass::StorageBuffer,
                            DescriptorType::StorageBuffer,
                            ResourceShape::Counter,
                            true,
                            true,
                        )?;
                        (cg, None)
                    };
                    Some(CounterInfo {
                        global: cg,
                        range: crange,
                        image,
                    })
                } else {
                    None
                };
                self.uav_stage_feature();
                self.res.uavs.insert(
                    id,
                    ViewInfo {
                        global: g,
                        kind,
                        range,
                        elem_ty: st,
                        counter,
                        globally_coherent: flags.globally_coherent,
                    },
                );
            }
            Declaration::TgsmRaw { byte_count } => {
                let reg = op
                    .register()
                    .ok_or_else(|| self.invalid("TGSM declaration without a register"))?;
                self.declare_tgsm(reg, byte_count / 4, 0)?;
            }
            Declaration::TgsmStructured { stride, count } => {
                let reg = op
                    .register()
                    .ok_or_else(|| self.invalid("TGSM declaration without a register"))?;
                let dwords = (*stride as u64 / 4) * *count as u64;
                if dwords > 8192 {
                    return Err(self.invalid("thread group shared memory larger than 32 KiB"));
                }
                self.declare_tgsm(reg, dwords as u32, *stride)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn declare_tgsm(&mut self, reg: u32, dwords: u32, stride: u32) -> R<()> {
        if dwords == 0 || dwords > 8192 {
            return Err(self.invalid(format!("thread group shared memory of {dwords} dwords")));
        }
        let len = self.b.m.consts.u32(dwords);
        let arr = self.b.m.types.intern(Type::Array {
            elem: TypeId::U32,
            len,
            stride: None,
        });
        // Zero-initialised as D3D applications expect (D3D leaves it undefined): on Vulkan
        // 1.3, where the feature is core, or when the caller says the device has it.
        let zero_init = match self.opts.device_features {
            Some(f) => f.zero_initialize_workgroup_memory,
            None => self.opts.target_env.spirv_version() >= (1, 6),
        };
        let init = if zero_init {
            self.need_feature("shaderZeroInitializeWorkgroupMemory");
            Some(self.b.m.consts.null(arr))
        } else {
            None
        };
        let g = self.b.m.add_global(arr, StorageClass::Workgroup, init);
        self.b
            .m
            .name(DecorationTarget::Global(g), format_args!("g{reg}"));
        self.res.tgsm.insert(
            reg,
            TgsmInfo {
                global: g,
                dwords,
                stride,
            },
        );
        Ok(())
    }

    fn declare_icb(&mut self, rows: Vec<[u32; 4]>) -> R<()> {
        if rows.is_empty() || rows.len() > 4096 {
            return Err(self.invalid(format!(
                "immediate constant buffer of {} vectors",
                rows.len()
            )));
        }
        if let crate::IcbMode::UniformBuffer { space, register } = self.opts.icb {
            return self.declare_icb_buffer(rows, space, register);
        }
        let parts: crate::ir::consts::Parts = rows
            .iter()
            .map(|r| {
                let bits: Vec<u64> = r.iter().map(|&x| x as u64).collect();
                self.b.m.consts.vector(Scalar::U32, &bits)
            })
            .collect();
        let len = self.b.m.consts.u32(rows.len() as u32);
        let arr = self.b.m.types.intern(Type::Array {
            elem: TypeId::UVEC4,
            len,
            stride: None,
        });
        let init = self.b.m.consts.intern(Const::Composite { ty: arr, parts });
        let g = self.b.m.add_global(arr, StorageClass::Private, Some(init));
        self.b
            .m
            .name(DecorationTarget::Global(g), format_args!("icb"));
        self.res.icb = Some((g, rows.len() as u32));
        Ok(())
    }

    pub(super) fn image_capabilities(&mut self, dim: Dim, arrayed: bool, ms: bool, storage: bool) {
        use spirv::Capability as C;
        match dim {
            Dim::Dim1D => self
                .b
                .m
                .capability(if storage { C::Image1D } else { C::Sampled1D }),
            Dim::DimBuffer => self.b.m.capability(if storage {
                C::ImageBuffer
            } else {
                C::SampledBuffer
            }),
            Dim::DimCube if arrayed => {
                self.b.m.capability(if storage {
                    C::ImageCubeArray
                } else {
                    C::SampledCubeArray
                });
                self.need_feature("imageCubeArray");
            }
            _ => {}
        }
        if ms && arrayed && storage {
            self.b.m.capability(C::ImageMSArray);
        }
        if ms && storage {
            self.b.m.capability(C::StorageImageMultisample);
            self.need_feature("shaderStorageImageMultisample");
        }
    }

    fn uav_stage_feature(&mut self) {
        match self.stage {
            crate::reflect::ShaderStage::Pixel => self.need_feature("fragmentStoresAndAtomics"),
            crate::reflect::ShaderStage::Compute => {}
            _ => self.need_feature("vertexPipelineStoresAndAtomics"),
        }
    }

    // ---- rows of cb / icb / x# ------------------------------------------------------------------

    /// Loads the 4-component row an operand of `cb`, `icb` or `x#` names.
    pub fn load_row(&mut self, op: &Sm4Operand) -> R<Operand> {
        if let Some(row) = self.load_cb_row_fast(op) {
            return row;
        }
        self.load_row_other(op)
    }

    /// [`Lowerer::load_row`] of the commonest operand, `cb#[i]` or `cb#[r + i]` of a buffer
    /// declared once (no array of buffers, not in push constants): without collecting the
    /// operand's indices or copying the buffer's facts. `None` for every other operand.
    #[inline]
    fn load_cb_row_fast(&mut self, op: &Sm4Operand) -> Option<R<Operand>> {
        if op.ty != OperandType::ConstantBuffer {
            return None;
        }
        let need = if self.prog.version.is_sm51() { 3 } else { 2 };
        if op.index_dim() != need {
            return None;
        }
        let id = op.register()?;
        let info = self.res.cbs.get(&id)?;
        if info.push.is_some() || info.range.is_array() {
            return None;
        }
        let global = info.global;
        let offset = match self.index_value(&op.index(need - 1)?) {
            Ok(o) => o,
            Err(e) => return Some(Err(e)),
        };
        let offset = self.idx_operand(offset);
        let (ptr, zero) = match self.res.row_access {
            Some(r) => r,
            None => {
                let zero = self.b.u32c(0);
                let ptr = self.b.m.types.pointer(StorageClass::Uniform, TypeId::VEC4);
                self.res.row_access = Some((ptr, zero));
                (ptr, zero)
            }
        };
        Some(Ok(self.b.read_only_row(global, offset, |b| {
            let p = b.op(
                Op::AccessChain,
                ptr,
                &[Operand::Global(global), zero, offset],
            );
            b.op(Op::Load, TypeId::VEC4, &[p])
        })))
    }

    /// [`Lowerer::load_row`] of every operand [`Lowerer::load_cb_row_fast`] does not take.
    #[inline(never)]
    fn load_row_other(&mut self, op: &Sm4Operand) -> R<Operand> {
        match op.ty {
            OperandType::ConstantBuffer => {
                let idx: smallvec::SmallVec<[crate::sm4::Index; 3]> = op.indices().collect();
                let sm51 = self.prog.version.is_sm51();
                let need = if sm51 { 3 } else { 2 };
                if idx.len() < need {
                    return Err(self.invalid("constant buffer operand without an offset"));
                }
                if !sm51 && idx[0].relative.is_some() {
                    // cb[r#][…]: the buffer chosen at run time (a class instance's).
                    return self.load_row_any_cb(&idx[0], &idx[1]);
                }
                let id = idx[0].imm32();
                let info = self.res.cbs.get(&id).cloned().ok_or_else(|| {
                    self.invalid(format!(
                        "{} is not declared",
                        self.range_name(OperandType::ConstantBuffer, id)
                    ))
                })?;
                let offset = self.index_value(&idx[need - 1])?;
                if let Some(m) = info.push {
                    return Ok(self.load_push_row(info.global, m, offset));
                }
                let offset = self.idx_operand(offset);
                if !info.range.is_array() {
                    // The same row read again in this block is the same value. The constant 0
                    // and the pointer type are made at the first row loaded, as they were
                    // when looked up per row.
                    let (ptr, zero) = match self.res.row_access {
                        Some(r) => r,
                        None => {
                            let zero = self.b.u32c(0);
                            let ptr = self.b.m.types.pointer(StorageClass::Uniform, TypeId::VEC4);
                            self.res.row_access = Some((ptr, zero));
                            (ptr, zero)
                        }
                    };
                    return Ok(self.b.read_only_row(info.global, offset, |b| {
                        let p = b.op(
                            Op::AccessChain,
                            ptr,
                            &[Operand::Global(info.global), zero, offset],
                        );
                        b.op(Op::Load, TypeId::VEC4, &[p])
                    }));
                }
                let zero = self.b.u32c(0);
                let ptr = self.b.m.types.pointer(StorageClass::Uniform, TypeId::VEC4);
                let p = {
                    let el = self
                        .descriptor_index(&info.range, if sm51 { Some(&idx[1]) } else { None })?;
                    if op.non_uniform {
                        self.descriptor_indexing(info.range.descriptor_type, true);
                    }
                    let p = self.b.op(
                        Op::AccessChain,
                        ptr,
                        &[Operand::Global(info.global), el, zero, offset],
                    );
                    if op.non_uniform {
                        self.mark_non_uniform(p);
                    }
                    p
                };
                Ok(self.b.op(Op::Load, TypeId::VEC4, &[p]))
            }
            OperandType::ImmediateConstantBuffer => {
                let (g, rows) = self
                    .res
                    .icb
                    .ok_or_else(|| self.invalid("icb used but not declared"))?;
                let i = op
                    .index(0)
                    .ok_or_else(|| self.invalid("icb operand without an index"))?;
                let i = self.index_value(&i)?;
                if let crate::IcbMode::UniformBuffer { .. } = self.opts.icb {
                    return self.load_icb_buffer_row(g, rows, i);
                }
                self.load_array_row(g, rows, i, StorageClass::Private)
            }
            OperandType::ThisPointer => self.load_this_row(op),
            OperandType::IndexableTemp => {
                let (info, i) = self.indexable_temp(op)?;
                self.load_array_row(info.global, info.size, i, StorageClass::Function)
            }
            _ => Err(self.invalid("not a row operand")),
        }
    }

    /// Loads row `i` of a `uvec4` array; out-of-bounds dynamic indices read zero.
    fn load_array_row(
        &mut self,
        g: GlobalId,
        rows: u32,
        i: Idx,
        storage: StorageClass,
    ) -> R<Operand> {
        let ptr = self.b.m.types.pointer(storage, TypeId::UVEC4);
        match i {
            Idx::Imm(k) => {
                if k >= rows {
                    return Ok(self.b.splat(Scalar::U32, 4, 0));
                }
                let k = self.b.u32c(k);
                let p = self.b.op(Op::AccessChain, ptr, &[Operand::Global(g), k]);
                Ok(self.b.op(Op::Load, TypeId::UVEC4, &[p]))
            }
            Idx::Dyn(v) => {
                let last = self.b.u32c(rows - 1);
                let clamped = self
                    .b
                    .glsl(spirv::GlslStd450Op::UMin, TypeId::U32, &[v, last]);
                let p = self
                    .b
                    .op(Op::AccessChain, ptr, &[Operand::Global(g), clamped]);
                let row = self.b.op(Op::Load, TypeId::UVEC4, &[p]);
                let n = self.b.u32c(rows);
                let inb = self.b.op(Op::ULessThan, TypeId::BOOL, &[v, n]);
                let zero = self.b.splat(Scalar::U32, 4, 0);
                let bv = TypeTable::vec(Scalar::Bool, 4);
                let cond = self.b.op(Op::CompositeConstruct, bv, &[inb, inb, inb, inb]);
                Ok(self.b.op(Op::Select, TypeId::UVEC4, &[cond, row, zero]))
            }
        }
    }

    /// Stores a whole row of an indexable temp (a write with mask `xyzw`; `value` has
    /// `width` components, or one to replicate) as one store of the row, in the form that
    /// merging its four component stores would give; out-of-bounds stores are dropped.
    pub fn store_indexable_row(&mut self, dst: &Sm4Operand, value: Operand, width: u8) -> R<()> {
        // A computed 4-vector is stored as one bitcast of itself: what merging the bitcasts
        // of its four extracted components would give. (Constructed vectors, shuffles and
        // bitcasts give their components for free and go through the components.)
        if width == 4
            && let Operand::Value(v) = value
            && !matches!(
                self.b.f.inst(v).op,
                Op::CompositeConstruct | Op::VectorShuffle | Op::Bitcast
            )
            && self.b.f.inst(v).flags & crate::ir::flags::VIEW == 0
        {
            if let Some((row, global)) = self.indexable_row(dst)? {
                let p = self.row_pointer(global, row);
                let whole = self.b.bitcast(TypeId::UVEC4, value);
                self.b.op_void(Op::Store, &[p, whole]);
            }
            return Ok(());
        }
        let component = |l: &mut Self, c: u8| {
            let comp = if width == 1 {
                value
            } else {
                l.b.extract(value, c)
            };
            l.b.bitcast(TypeId::U32, comp)
        };
        // The first component's bits come before the index is read, as they would for the
        // first of four component stores: the instructions come out in the same order.
        let first = component(self, 0);
        let target = self.indexable_row(dst)?;
        let bits = [
            first,
            component(self, 1),
            component(self, 2),
            component(self, 3),
        ];
        if let Some((row, global)) = target {
            let p = self.row_pointer(global, row);
            let whole = self.b.op(Op::CompositeConstruct, TypeId::UVEC4, &bits);
            self.b.op_void(Op::Store, &[p, whole]);
        }
        Ok(())
    }

    /// A pointer to row `row` (a `uvec4`) of the indexable temp array `global`.
    #[inline]
    fn row_pointer(&mut self, global: GlobalId, row: Operand) -> Operand {
        let ptr = self
            .b
            .m
            .types
            .pointer(StorageClass::Function, TypeId::UVEC4);
        self.b
            .op(Op::AccessChain, ptr, &[Operand::Global(global), row])
    }

    /// The declared array an indexable temp operand (`x#[i]`) names, and its row index.
    #[inline]
    fn indexable_temp(&mut self, op: &Sm4Operand) -> R<(IndexableInfo, Idx)> {
        let idx: smallvec::SmallVec<[crate::sm4::Index; 3]> = op.indices().collect();
        if idx.len() < 2 {
            return Err(self.invalid("indexable temp operand without an index"));
        }
        let reg = idx[0].imm32();
        let info = self
            .res
            .indexable
            .get(&reg)
            .cloned()
            .ok_or_else(|| self.invalid(format!("x{reg} is not declared")))?;
        let i = self.index_value(&idx[1])?;
        Ok((info, i))
    }

    /// The row an indexable temp destination writes and its array (`None` for a constant
    /// index out of range: the store is dropped); a dynamic index past the end goes to the
    /// spare row past the end (see the declaration).
    fn indexable_row(&mut self, dst: &Sm4Operand) -> R<Option<(Operand, GlobalId)>> {
        let (info, i) = self.indexable_temp(dst)?;
        Ok(match i {
            Idx::Imm(k) if k < info.size => Some((self.b.u32c(k), info.global)),
            Idx::Imm(_) => None,
            Idx::Dyn(v) => {
                let spare = self.b.u32c(info.size);
                let row = self
                    .b
                    .glsl(spirv::GlslStd450Op::UMin, TypeId::U32, &[v, spare]);
                Some((row, info.global))
            }
        })
    }

    /// Stores one component of an indexable temp; out-of-bounds stores are dropped.
    pub fn store_indexable(&mut self, dst: &Sm4Operand, c: u8, raw: Operand) -> R<()> {
        if let Some((row, global)) = self.indexable_row(dst)? {
            let ptr = self.b.m.types.pointer(StorageClass::Function, TypeId::U32);
            let comp = self.b.u32c(c as u32);
            let p = self
                .b
                .op(Op::AccessChain, ptr, &[Operand::Global(global), row, comp]);
            self.b.op_void(Op::Store, &[p, raw]);
        }
        Ok(())
    }

    /// The array element of its binding an SM5.1 operand index selects in a range: the
    /// index is a register number of the space, so element = index − lower + base. A
    /// one-register range always gives its own element (SM5.0 operands have no such index,
    /// and the DirectX docs' SM5.1 listing indexes `t0[5:5]` as `t0[0]`). A dynamic index
    /// needs the dynamic-indexing capability and feature of the descriptor type.
    pub fn descriptor_index(
        &mut self,
        range: &Range,
        index: Option<&crate::sm4::Index>,
    ) -> R<Operand> {
        let static_index = match index {
            Some(i) if range.count() != Some(1) => {
                let shift = range.base.wrapping_sub(range.lower);
                match self.index_value(i)? {
                    Idx::Imm(k) => self.b.u32c(k.wrapping_add(shift)),
                    Idx::Dyn(v) => {
                        self.descriptor_indexing(range.descriptor_type, false);
                        if shift == 0 {
                            v
                        } else {
                            let k = self.b.u32c(shift);
                            self.b.op(Op::IAdd, TypeId::U32, &[v, k])
                        }
                    }
                }
            }
            _ => self.b.u32c(range.base),
        };
        let Some(offset) = range.dynamic else {
            return Ok(static_index);
        };
        // Plus the offset the push constant holds (dynamically uniform, but not constant).
        self.descriptor_indexing(range.descriptor_type, false);
        let word = self.load_push_word(offset)?;
        Ok(self.b.op(Op::IAdd, TypeId::U32, &[word, static_index]))
    }

    /// Declares what indexing an array of `t` descriptors with a dynamically uniform
    /// (`non_uniform` false) or non-uniform index needs: the SPIR-V capability and the
    /// Vulkan feature.
    pub fn descriptor_indexing(&mut self, t: DescriptorType, non_uniform: bool) {
        use spirv::Capability as C;
        let (cap, feature) = match (t, non_uniform) {
            (DescriptorType::UniformBuffer, false) => (
                C::UniformBufferArrayDynamicIndexing,
                "shaderUniformBufferArrayDynamicIndexing",
            ),
            (
                DescriptorType::Sampler
                | DescriptorType::SampledImage
                | DescriptorType::CombinedImageSampler,
                false,
            ) => (
                C::SampledImageArrayDynamicIndexing,
                "shaderSampledImageArrayDynamicIndexing",
            ),
            (DescriptorType::StorageBuffer, false) => (
                C::StorageBufferArrayDynamicIndexing,
                "shaderStorageBufferArrayDynamicIndexing",
            ),
            (DescriptorType::StorageImage, false) => (
                C::StorageImageArrayDynamicIndexing,
                "shaderStorageImageArrayDynamicIndexing",
            ),
            (DescriptorType::UniformTexelBuffer, false) => (
                C::UniformTexelBufferArrayDynamicIndexing,
                "shaderUniformTexelBufferArrayDynamicIndexing",
            ),
            (DescriptorType::StorageTexelBuffer, false) => (
                C::StorageTexelBufferArrayDynamicIndexing,
                "shaderStorageTexelBufferArrayDynamicIndexing",
            ),
            (DescriptorType::UniformBuffer, true) => (
                C::UniformBufferArrayNonUniformIndexing,
                "shaderUniformBufferArrayNonUniformIndexing",
            ),
            (
                DescriptorType::Sampler
                | DescriptorType::SampledImage
                | DescriptorType::CombinedImageSampler,
                true,
            ) => (
                C::SampledImageArrayNonUniformIndexing,
                "shaderSampledImageArrayNonUniformIndexing",
            ),
            (DescriptorType::StorageBuffer, true) => (
                C::StorageBufferArrayNonUniformIndexing,
                "shaderStorageBufferArrayNonUniformIndexing",
            ),
            (DescriptorType::StorageImage, true) => (
                C::StorageImageArrayNonUniformIndexing,
                "shaderStorageImageArrayNonUniformIndexing",
            ),
            (DescriptorType::UniformTexelBuffer, true) => (
                C::UniformTexelBufferArrayNonUniformIndexing,
                "shaderUniformTexelBufferArrayNonUniformIndexing",
            ),
            (DescriptorType::StorageTexelBuffer, true) => (
                C::StorageTexelBufferArrayNonUniformIndexing,
                "shaderStorageTexelBufferArrayNonUniformIndexing",
            ),
        };
        let needs_ext = non_uniform
            || matches!(
                t,
                DescriptorType::UniformTexelBuffer | DescriptorType::StorageTexelBuffer
            );
        if needs_ext && self.opts.target_env.spirv_version() < (1, 5) {
            self.b.m.extension("SPV_EXT_descriptor_indexing");
        }
        self.b.m.capability(cap);
        self.need_feature(feature);
    }
}
