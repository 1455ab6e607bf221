//! Reflection: what a translated SPIR-V module expects from the code that runs it.
//!
//! A D3D-on-Vulkan layer or a test harness must build descriptor set layouts, pipeline layouts,
//! vertex input state and stage linkage for a module it did not write. Everything it needs is
//! stated here, with the D3D origin of each item beside its Vulkan placement, so that callers
//! never have to parse the SPIR-V or guess the translator's conventions. The types are plain
//! data (serde) so that `dxbc reflect` can print them as JSON.

use serde::{Deserialize, Serialize};

mod classes;
pub(crate) mod names;

pub use crate::stage::ShaderStage;
pub use classes::{
    CLASS_INSTANCE_REGISTER, CLASS_MAX_SLOTS, CLASS_SLOT_STRIDE, ClassInstance, ClassLinkage,
    ClassType, FunctionTable, InterfaceDecl, SlotTables,
};

/// A name in the reflection: a capability, extension or feature name the translator knows is
/// borrowed from its static text (no allocation per translation); a name taken from the input
/// (a signature's semantic) or a deserialized one is owned. Reads as a `&str` either way.
pub type Name = std::borrow::Cow<'static, str>;

/// Everything a caller needs to run a translated module.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reflection {
    pub stage: ShaderStage,
    /// Name of the SPIR-V entry point.
    pub entry_point: String,
    /// Stage inputs (vertex attributes for a vertex shader), in signature order.
    pub inputs: Vec<InterfaceVar>,
    /// Stage outputs (render targets for a pixel shader), in signature order.
    pub outputs: Vec<InterfaceVar>,
    /// Patch-constant outputs (hull shader) or inputs (domain shader).
    pub patch_constants: Vec<InterfaceVar>,
    /// Every descriptor the module declares, sorted by (set, binding).
    pub descriptors: Vec<Descriptor>,
    /// Push-constant ranges, sorted by offset.
    pub push_constants: Vec<PushConstantRange>,
    /// Byte offsets in the push-constant block of the `u32` descriptor offsets the module
    /// reads (the descriptors' `dynamic_offset`s), sorted, each once; 4 bytes each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dynamic_offsets: Vec<u32>,
    /// Compute workgroup size, for compute shaders.
    pub workgroup_size: Option<[u32; 3]>,
    /// SPIR-V capabilities the module declares (e.g. "Shader", "ImageQuery").
    pub capabilities: Vec<Name>,
    /// SPIR-V extensions the module declares (e.g. "SPV_EXT_demote_to_helper_invocation").
    pub extensions: Vec<Name>,
    /// Vulkan device features the module needs, by the name of the member of the Vulkan
    /// feature struct (e.g. "shaderStorageImageReadWithoutFormat", "geometryShader").
    pub vulkan_features: Vec<Name>,
    /// Specialization constants the pipeline should set, by what they mean. (An entry may
    /// outlive the code that read it when that code turned out dead; Vulkan ignores map
    /// entries for IDs a module lacks.)
    #[serde(default)]
    pub spec_constants: Vec<SpecConstant>,
    /// Class linkage (HLSL interfaces): the class-instance buffer's layout and the IFCE
    /// chunk's class types, instances and slot tables; `None` when the program declares no
    /// interface.
    #[serde(default)]
    pub class_linkage: Option<ClassLinkage>,
    /// What a Direct3D 9 program needs beyond descriptors and interface variables (constant
    /// sets and samplers); `None` for DXBC programs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d3d9: Option<D3d9Info>,
    /// Transform feedback: where the stream-output declaration's entries went (present when
    /// the options had one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xfb: Option<XfbLayout>,
}

/// The constant sets and samplers of a Direct3D 9 program (`docs/d3d9.md`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct D3d9Info {
    /// The version (`vs_3_0`, `ps_1_4`).
    pub version: Name,
    /// The float (`c#`), integer (`i#`) and boolean (`b#`) sets the program reads.
    pub constants: Vec<D3d9ConstantSet>,
    /// Every sampler (`s#`, or texture stage in ps_1_x) the program samples.
    pub samplers: Vec<D3d9Sampler>,
    /// The per-stage bump-environment state ps_1_x `texbem`/`texbeml`/`bem` read, when any
    /// does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bump_env: Option<D3d9BumpEnv>,
    /// The render-state items the module reads and where each is delivered (spec IDs, push
    /// offset or the baked words), by item.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub state: Vec<D3d9StateEntry>,
}

/// One render-state item a Direct3D 9 module reads (`crate::d3d9_state`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct D3d9StateEntry {
    pub item: crate::d3d9_state::StateItem,
    /// Where it is: specialization constants `first_id`, `first_id + 1`, … (one per word),
    /// push-constant bytes from `offset` (4 per word), or the words baked in.
    pub delivery: crate::d3d9_state::StateDelivery,
}

/// The bump-environment buffer of a ps_1_x program: per texture stage s (0–7), row 2s holds
/// (BUMPENVMAT00, BUMPENVMAT01, BUMPENVMAT10, BUMPENVMAT11) and row 2s + 1 holds
/// (BUMPENVLSCALE, BUMPENVLOFFSET, 0, 0) — 16 `vec4` rows, 256 bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct D3d9BumpEnv {
    /// The `b#` register (space 0) the buffer has in `descriptors`: 3.
    pub buffer_register: u32,
    /// The stages whose state the program reads.
    pub stages: Vec<u32>,
}

/// Which constant set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum D3d9ConstantKind {
    Float,
    Int,
    Bool,
}

/// One constant set: its buffer (if any register is read from it), what is read, and the
/// values the program defines itself (`def`, `defi`, `defb`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct D3d9ConstantSet {
    pub kind: D3d9ConstantKind,
    /// The `b#` register the set's buffer has in `descriptors` (float 0, int 1, bool 2), or
    /// `None` when every register read is defined by the program.
    pub buffer_register: Option<u32>,
    /// Registers the buffer holds (float: the version's count; int 16 `ivec4`; bool 16 `u32`
    /// packed four per 16-byte row).
    pub count: u32,
    /// Lowest and highest register read directly (a relative read counts its base).
    pub used: Option<[u32; 2]>,
    /// Read with relative addressing (`c[a0.x + n]`): any register may be read.
    pub relative: bool,
    /// Registers the program defines, with their raw values (floats as bits; a bool as 0/1).
    pub defs: Vec<D3d9Def>,
}

/// A constant the program defines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct D3d9Def {
    pub register: u32,
    pub value: [u32; 4],
}

/// A sampler and the texture type it samples.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct D3d9Sampler {
    pub register: u32,
    /// The declared type (`2d`, `cube`, `volume`, `1d`), or `unknown` (ps_1_x, or no `dcl`).
    pub declared: String,
    /// The image dimension the module samples (an unknown or 1D type is sampled as 2D).
    pub dim: ResourceDim,
}

/// The transform-feedback layout of a module translated with a stream-output declaration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct XfbLayout {
    /// The stream the pipeline rasterizes (`VkPipelineRasterizationStateStreamCreateInfoEXT`;
    /// other than 0 needs `transformFeedbackRasterizationStreamSelect`); `None`: nothing is
    /// rasterized (the pipeline sets `rasterizerDiscardEnable`).
    pub rasterized_stream: Option<u32>,
    /// The buffers the entries write, by slot.
    pub buffers: Vec<XfbBuffer>,
    /// The declaration's entries other than gaps, in declaration order.
    pub entries: Vec<XfbEntry>,
}

/// A transform-feedback buffer (`XfbBuffer` = slot).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct XfbBuffer {
    pub slot: u32,
    /// The stream whose vertices it receives.
    pub stream: u32,
    /// Bytes per vertex (`XfbStride`).
    pub stride: u32,
}

/// Where one stream-output entry is written and which variable holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct XfbEntry {
    /// Its index in the declaration (gaps counted).
    pub entry: u32,
    pub stream: u32,
    pub buffer: u32,
    /// Byte offset in the buffer's vertex (`Offset`).
    pub offset: u32,
    pub semantic_name: String,
    pub semantic_index: u32,
    /// The output register and its components written (bit 0 = x).
    pub register: u32,
    pub mask: u8,
    pub component_type: ComponentType,
    /// The variable decorated: the output's own variable when the entry covers it exactly,
    /// else one of its own at a `Location` past the outputs (which the next stage ignores).
    pub placement: InterfacePlacement,
}

/// A specialization constant of the module and the pipeline state it stands for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecConstant {
    /// Its `SpecId`.
    pub id: u32,
    pub meaning: SpecConstantMeaning,
    /// Its value when the pipeline does not set it.
    pub default: u32,
}

/// What a specialization constant stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpecConstantMeaning {
    /// The pipeline's rasterization sample count (a 32-bit unsigned integer: 1, 2, 4, 8, 16).
    RasterizerSampleCount,
}

/// One stage input or output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterfaceVar {
    /// D3D semantic name as written in the signature (e.g. "TEXCOORD", "SV_Position").
    pub semantic_name: Name,
    pub semantic_index: u32,
    /// D3D register (v#/o#) the element lives in; `None` for non-register system values.
    pub register: Option<u32>,
    /// Components of the register used by this element (bit 0 = x).
    pub mask: u8,
    /// Scalar type of the element.
    pub component_type: ComponentType,
    /// Where the element lives in SPIR-V.
    pub placement: InterfacePlacement,
}

/// Scalar type of an interface element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ComponentType {
    Float,
    Uint,
    Sint,
    Double,
}

/// Where an interface element lives in SPIR-V.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterfacePlacement {
    /// A `Location` (and first `Component`) decoration.
    Location { location: u32, component: u32 },
    /// A SPIR-V built-in, by its name in the SPIR-V spec (e.g. "Position", "FragDepth").
    BuiltIn { builtin: Name },
    /// Declared in the signature but not used by the program, so not in the module.
    Unused,
}

/// D3D register class of a resource binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RegisterClass {
    /// `b#`: constant buffers.
    B,
    /// `t#`: shader resource views.
    T,
    /// `s#`: samplers.
    S,
    /// `u#`: unordered access views.
    U,
}

impl RegisterClass {
    pub fn letter(self) -> char {
        match self {
            RegisterClass::B => 'b',
            RegisterClass::T => 't',
            RegisterClass::S => 's',
            RegisterClass::U => 'u',
        }
    }
}

/// Where a descriptor came from on the D3D side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct D3dOrigin {
    pub class: RegisterClass,
    /// Register space (0 for SM4.0–5.0).
    pub space: u32,
    /// First register of the range.
    pub lower: u32,
    /// Last register of the range, inclusive; `None` for an unbounded range (`t1[10:*]`).
    pub upper: Option<u32>,
    /// SM5.1 range ID (equal to `lower` for SM4.0–5.0 programs).
    pub range_id: u32,
    /// True when this descriptor is the UAV counter of the `u#` range, not the UAV itself.
    pub uav_counter: bool,
}

/// Vulkan descriptor type of a binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DescriptorType {
    Sampler,
    /// An image and its sampler in one descriptor (Direct3D 9 `s#`, by option).
    CombinedImageSampler,
    SampledImage,
    StorageImage,
    UniformTexelBuffer,
    StorageTexelBuffer,
    UniformBuffer,
    StorageBuffer,
}

/// What the resource behind a descriptor is, so that a harness can create a matching one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ResourceShape {
    /// A constant buffer of `size_bytes` bytes as declared (`dcl_constantbuffer cb#[N]` → 16·N).
    ConstantBuffer {
        size_bytes: u32,
    },
    Sampler {
        comparison: bool,
    },
    /// A texture or typed buffer; `dim` is the D3D resource dimension. `multisampled` says
    /// whether the module's image is multisampled, so the bound image must have two or more
    /// samples: it is false for a `Texture2DMS[Array]` declared with one sample, which binds a
    /// single-sampled image.
    Image {
        dim: ResourceDim,
        return_type: ReturnType,
        multisampled: bool,
    },
    /// A raw (byte address) buffer.
    RawBuffer,
    /// A structured buffer with `stride` bytes per element.
    StructuredBuffer {
        stride: u32,
    },
    /// A UAV counter (one u32).
    Counter,
    /// The immediate constant buffer as a uniform buffer
    /// ([`crate::IcbMode::UniformBuffer`]): the caller uploads `data` (its rows, four words
    /// each, in order) to the buffer it binds.
    ImmediateConstantBuffer {
        data: Vec<u32>,
    },
}

/// D3D resource dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceDim {
    Buffer,
    Texture1D,
    Texture1DArray,
    Texture2D,
    Texture2DArray,
    Texture2DMS,
    Texture2DMSArray,
    Texture3D,
    TextureCube,
    TextureCubeArray,
}

/// Scalar type a typed resource returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReturnType {
    Float,
    Unorm,
    Snorm,
    Uint,
    Sint,
    Double,
    Mixed,
}

/// One descriptor binding the module uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Descriptor {
    pub set: u32,
    pub binding: u32,
    pub descriptor_type: DescriptorType,
    /// Array length the module declares: the binding needs at least this many descriptors
    /// (`array_offset` + registers in the range). `None` for a runtime-sized array (an
    /// unbounded range). 1 for a single descriptor.
    pub count: Option<u32>,
    /// Array element of the binding that holds the range's first register (`origin.lower`);
    /// register `origin.lower + i` is element `array_offset + i`. Several ranges may share a
    /// binding at different offsets when a layout says so.
    #[serde(default)]
    pub array_offset: u32,
    pub origin: D3dOrigin,
    pub shape: ResourceShape,
    /// True when the module writes through it (UAVs).
    pub writable: bool,
    /// The byte offset in the push-constant block of the `u32` the module adds to the array
    /// element at run time (a placement's dynamic offset): register `origin.lower + i` is
    /// element `push value + array_offset + i`. The variable is then a runtime array.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic_offset: Option<u32>,
    /// The placement said the binding is mutable (VK_EXT_mutable_descriptor_type): other
    /// entries at the same (set, binding) may have other descriptor types.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mutable: bool,
}

/// A push-constant range and the D3D root constants it holds: bytes `0..size` of constant
/// buffer `b{register}` of `space` are bytes `offset..offset + size` of the push constants.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushConstantRange {
    pub offset: u32,
    pub size: u32,
    /// The constant buffer (`b#` in a space) these root constants replace.
    pub space: u32,
    pub register: u32,
}
