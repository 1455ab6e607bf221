//! The C structures, enumerations and interface IDs of the Direct3D 12 API that the executor
//! passes to vkd3d, declared in Rust with the layout of vkd3d's headers (`vkd3d_d3d12.h`,
//! `vkd3d_dxgibase.h`, `vkd3d_d3dcommon.h`). Names follow Rust's conventions; each type's
//! comment names its C type, and `tests/d3d12_layout.rs` compares sizes, field offsets and
//! constant values with the real header when it is available.
//!
//! Only what the executor uses is here. Unions are Rust unions whose fields are all plain
//! data: writing one is safe, and nothing here reads them back.

#![allow(dead_code)] // constants are listed by C enumeration, some unused

use std::ffi::{c_char, c_void};

/// `GUID` / `IID`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guid {
    pub data1: u32,
    pub data2: u16,
    pub data3: u16,
    pub data4: [u8; 8],
}

const fn guid(data1: u32, data2: u16, data3: u16, data4: [u8; 8]) -> Guid {
    Guid {
        data1,
        data2,
        data3,
        data4,
    }
}

pub const IID_ID3D12_DEVICE: Guid = guid(
    0x189819f1,
    0x1db6,
    0x4b57,
    [0xbe, 0x54, 0x18, 0x21, 0x33, 0x9b, 0x85, 0xf7],
);
pub const IID_ID3D12_DEVICE2: Guid = guid(
    0x30baa41e,
    0xb15b,
    0x475c,
    [0xa0, 0xbb, 0x1a, 0xf5, 0xc5, 0xb6, 0x43, 0x28],
);
pub const IID_ID3D12_COMMAND_QUEUE: Guid = guid(
    0x0ec870a6,
    0x5d7e,
    0x4c22,
    [0x8c, 0xfc, 0x5b, 0xaa, 0xe0, 0x76, 0x16, 0xed],
);
pub const IID_ID3D12_COMMAND_ALLOCATOR: Guid = guid(
    0x6102dee4,
    0xaf59,
    0x4b09,
    [0xb9, 0x99, 0xb4, 0x4d, 0x73, 0xf0, 0x9b, 0x24],
);
pub const IID_ID3D12_GRAPHICS_COMMAND_LIST: Guid = guid(
    0x5b160d0f,
    0xac1b,
    0x4185,
    [0x8b, 0xa8, 0xb3, 0xae, 0x42, 0xa5, 0xa4, 0x55],
);
pub const IID_ID3D12_GRAPHICS_COMMAND_LIST1: Guid = guid(
    0x553103fb,
    0x1fe7,
    0x4557,
    [0xbb, 0x38, 0x94, 0x6d, 0x7d, 0x0e, 0x7c, 0xa7],
);
pub const IID_ID3D12_FENCE: Guid = guid(
    0x0a753dcf,
    0xc4d8,
    0x4b91,
    [0xad, 0xf6, 0xbe, 0x5a, 0x60, 0xd9, 0x5a, 0x76],
);
pub const IID_ID3D12_RESOURCE: Guid = guid(
    0x696442be,
    0xa72e,
    0x4059,
    [0xbc, 0x79, 0x5b, 0x5c, 0x98, 0x04, 0x0f, 0xad],
);
pub const IID_ID3D12_DESCRIPTOR_HEAP: Guid = guid(
    0x8efb471d,
    0x616c,
    0x4f49,
    [0x90, 0xf7, 0x12, 0x7b, 0xb7, 0x63, 0xfa, 0x51],
);
pub const IID_ID3D12_ROOT_SIGNATURE: Guid = guid(
    0xc54a6b66,
    0x72df,
    0x4ee8,
    [0x8b, 0xe5, 0xa9, 0x46, 0xa1, 0x42, 0x92, 0x14],
);
pub const IID_ID3D12_PIPELINE_STATE: Guid = guid(
    0x765a30f3,
    0xf624,
    0x4c6f,
    [0xa8, 0x28, 0xac, 0xe9, 0x48, 0x62, 0x24, 0x45],
);

// --- enumerations (C enums are 32-bit) ---------------------------------------------------

/// `D3D_FEATURE_LEVEL_11_0`.
pub const FEATURE_LEVEL_11_0: u32 = 0xb000;
/// `D3D_ROOT_SIGNATURE_VERSION_1_0`.
pub const ROOT_SIGNATURE_VERSION_1_0: u32 = 1;

/// `D3D12_COMMAND_LIST_TYPE_DIRECT`.
pub const COMMAND_LIST_TYPE_DIRECT: u32 = 0;

/// `D3D12_HEAP_TYPE_*`.
pub const HEAP_TYPE_DEFAULT: u32 = 1;
pub const HEAP_TYPE_UPLOAD: u32 = 2;
pub const HEAP_TYPE_READBACK: u32 = 3;

/// `D3D12_RESOURCE_DIMENSION_*`.
pub const RESOURCE_DIMENSION_BUFFER: u32 = 1;
pub const RESOURCE_DIMENSION_TEXTURE1D: u32 = 2;
pub const RESOURCE_DIMENSION_TEXTURE2D: u32 = 3;
pub const RESOURCE_DIMENSION_TEXTURE3D: u32 = 4;

/// `D3D12_TEXTURE_LAYOUT_*`.
pub const TEXTURE_LAYOUT_UNKNOWN: u32 = 0;
pub const TEXTURE_LAYOUT_ROW_MAJOR: u32 = 1;

/// `D3D12_RESOURCE_FLAG_*`.
pub const RESOURCE_FLAG_ALLOW_RENDER_TARGET: u32 = 0x1;
pub const RESOURCE_FLAG_ALLOW_DEPTH_STENCIL: u32 = 0x2;
pub const RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS: u32 = 0x4;

/// `D3D12_RESOURCE_STATE_*`.
pub const RESOURCE_STATE_COMMON: u32 = 0;
pub const RESOURCE_STATE_VERTEX_AND_CONSTANT_BUFFER: u32 = 0x1;
pub const RESOURCE_STATE_RENDER_TARGET: u32 = 0x4;
pub const RESOURCE_STATE_UNORDERED_ACCESS: u32 = 0x8;
pub const RESOURCE_STATE_DEPTH_WRITE: u32 = 0x10;
pub const RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE: u32 = 0x40;
pub const RESOURCE_STATE_PIXEL_SHADER_RESOURCE: u32 = 0x80;
pub const RESOURCE_STATE_STREAM_OUT: u32 = 0x100;
pub const RESOURCE_STATE_COPY_DEST: u32 = 0x400;
pub const RESOURCE_STATE_COPY_SOURCE: u32 = 0x800;
pub const RESOURCE_STATE_RESOLVE_DEST: u32 = 0x1000;
pub const RESOURCE_STATE_RESOLVE_SOURCE: u32 = 0x2000;
pub const RESOURCE_STATE_GENERIC_READ: u32 = 0xac3;

/// `D3D12_RESOURCE_BARRIER_TYPE_*`.
pub const RESOURCE_BARRIER_TYPE_TRANSITION: u32 = 0;
pub const RESOURCE_BARRIER_TYPE_UAV: u32 = 2;
/// `D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES`.
pub const RESOURCE_BARRIER_ALL_SUBRESOURCES: u32 = 0xffff_ffff;

/// `D3D12_DESCRIPTOR_HEAP_TYPE_*`.
pub const DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV: u32 = 0;
pub const DESCRIPTOR_HEAP_TYPE_SAMPLER: u32 = 1;
pub const DESCRIPTOR_HEAP_TYPE_RTV: u32 = 2;
pub const DESCRIPTOR_HEAP_TYPE_DSV: u32 = 3;
/// `D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE`.
pub const DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE: u32 = 1;

/// `D3D12_SRV_DIMENSION_*`.
pub const SRV_DIMENSION_BUFFER: u32 = 1;
pub const SRV_DIMENSION_TEXTURE1D: u32 = 2;
pub const SRV_DIMENSION_TEXTURE1DARRAY: u32 = 3;
pub const SRV_DIMENSION_TEXTURE2D: u32 = 4;
pub const SRV_DIMENSION_TEXTURE2DARRAY: u32 = 5;
pub const SRV_DIMENSION_TEXTURE2DMS: u32 = 6;
pub const SRV_DIMENSION_TEXTURE2DMSARRAY: u32 = 7;
pub const SRV_DIMENSION_TEXTURE3D: u32 = 8;
pub const SRV_DIMENSION_TEXTURECUBE: u32 = 9;
pub const SRV_DIMENSION_TEXTURECUBEARRAY: u32 = 10;

/// `D3D12_UAV_DIMENSION_*`.
pub const UAV_DIMENSION_BUFFER: u32 = 1;
pub const UAV_DIMENSION_TEXTURE1D: u32 = 2;
pub const UAV_DIMENSION_TEXTURE1DARRAY: u32 = 3;
pub const UAV_DIMENSION_TEXTURE2D: u32 = 4;
pub const UAV_DIMENSION_TEXTURE2DARRAY: u32 = 5;
pub const UAV_DIMENSION_TEXTURE3D: u32 = 8;

/// `D3D12_BUFFER_SRV_FLAG_RAW` / `D3D12_BUFFER_UAV_FLAG_RAW`.
pub const BUFFER_FLAG_RAW: u32 = 1;
/// `D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING`.
pub const DEFAULT_SHADER_4_COMPONENT_MAPPING: u32 = 0x1688;

/// `D3D12_DESCRIPTOR_RANGE_TYPE_*`.
pub const DESCRIPTOR_RANGE_TYPE_SRV: u32 = 0;
pub const DESCRIPTOR_RANGE_TYPE_UAV: u32 = 1;
pub const DESCRIPTOR_RANGE_TYPE_CBV: u32 = 2;
pub const DESCRIPTOR_RANGE_TYPE_SAMPLER: u32 = 3;

/// `D3D12_ROOT_PARAMETER_TYPE_*`.
pub const ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE: u32 = 0;
pub const ROOT_PARAMETER_TYPE_32BIT_CONSTANTS: u32 = 1;
pub const ROOT_PARAMETER_TYPE_CBV: u32 = 2;
/// `D3D12_SHADER_VISIBILITY_ALL`.
pub const SHADER_VISIBILITY_ALL: u32 = 0;
/// `D3D12_ROOT_SIGNATURE_FLAG_*`.
pub const ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT: u32 = 0x1;
pub const ROOT_SIGNATURE_FLAG_ALLOW_STREAM_OUTPUT: u32 = 0x40;

/// `D3D12_FILTER_REDUCTION_TYPE_*` (bits 7–8 of a `D3D12_FILTER`).
pub const FILTER_REDUCTION_TYPE_STANDARD: u32 = 0;
pub const FILTER_REDUCTION_TYPE_COMPARISON: u32 = 1;
pub const FILTER_REDUCTION_TYPE_MINIMUM: u32 = 2;
pub const FILTER_REDUCTION_TYPE_MAXIMUM: u32 = 3;
/// `D3D12_FILTER_MIN_MAG_MIP_LINEAR`: min (bit 4), mag (bit 2) and mip (bit 0) linear.
pub const FILTER_MIN_MAG_MIP_LINEAR: u32 = 0x15;

/// `D3D12_TEXTURE_ADDRESS_MODE_*`.
pub const TEXTURE_ADDRESS_MODE_WRAP: u32 = 1;
pub const TEXTURE_ADDRESS_MODE_MIRROR: u32 = 2;
pub const TEXTURE_ADDRESS_MODE_CLAMP: u32 = 3;
pub const TEXTURE_ADDRESS_MODE_BORDER: u32 = 4;
pub const TEXTURE_ADDRESS_MODE_MIRROR_ONCE: u32 = 5;

/// `D3D12_COMPARISON_FUNC_NEVER` (LESS = 2 ... ALWAYS = 8 follow in D3DCMPFUNC order).
pub const COMPARISON_FUNC_NEVER: u32 = 1;
pub const COMPARISON_FUNC_ALWAYS: u32 = 8;

/// `D3D12_TEXTURE_COPY_TYPE_*`.
pub const TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX: u32 = 0;
pub const TEXTURE_COPY_TYPE_PLACED_FOOTPRINT: u32 = 1;

/// `D3D12_FILL_MODE_SOLID`, `D3D12_CULL_MODE_NONE`.
pub const FILL_MODE_SOLID: u32 = 3;
pub const CULL_MODE_NONE: u32 = 1;
/// `D3D12_DEPTH_WRITE_MASK_ALL`.
pub const DEPTH_WRITE_MASK_ALL: u32 = 1;
/// `D3D12_COLOR_WRITE_ENABLE_ALL`.
pub const COLOR_WRITE_ENABLE_ALL: u8 = 0xf;
/// `D3D12_BLEND_ONE`, `D3D12_BLEND_ZERO`, `D3D12_BLEND_OP_ADD`, `D3D12_LOGIC_OP_NOOP`.
pub const BLEND_ZERO: u32 = 1;
pub const BLEND_ONE: u32 = 2;
/// `D3D12_BLEND_SRC1_COLOR`, `D3D12_BLEND_SRC1_ALPHA`: the second source of dual-source
/// blending.
pub const BLEND_SRC1_COLOR: u32 = 16;
pub const BLEND_SRC1_ALPHA: u32 = 18;
pub const BLEND_OP_ADD: u32 = 1;
pub const LOGIC_OP_NOOP: u32 = 4;
/// `D3D12_STENCIL_OP_KEEP`.
pub const STENCIL_OP_KEEP: u32 = 1;
/// `D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA`, `D3D12_APPEND_ALIGNED_ELEMENT`.
pub const INPUT_CLASSIFICATION_PER_VERTEX_DATA: u32 = 0;
pub const APPEND_ALIGNED_ELEMENT: u32 = 0xffff_ffff;

/// `D3D12_PRIMITIVE_TOPOLOGY_TYPE_*`.
pub const PRIMITIVE_TOPOLOGY_TYPE_POINT: u32 = 1;
pub const PRIMITIVE_TOPOLOGY_TYPE_LINE: u32 = 2;
pub const PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE: u32 = 3;
pub const PRIMITIVE_TOPOLOGY_TYPE_PATCH: u32 = 4;
/// `D3D_PRIMITIVE_TOPOLOGY_*`.
pub const PRIMITIVE_TOPOLOGY_POINTLIST: u32 = 1;
pub const PRIMITIVE_TOPOLOGY_LINELIST: u32 = 2;
pub const PRIMITIVE_TOPOLOGY_LINESTRIP: u32 = 3;
pub const PRIMITIVE_TOPOLOGY_TRIANGLELIST: u32 = 4;
pub const PRIMITIVE_TOPOLOGY_TRIANGLESTRIP: u32 = 5;
pub const PRIMITIVE_TOPOLOGY_1_CONTROL_POINT_PATCHLIST: u32 = 33;

/// `D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_*`.
pub const SUBOBJECT_ROOT_SIGNATURE: u32 = 0x0;
pub const SUBOBJECT_VS: u32 = 0x1;
pub const SUBOBJECT_PS: u32 = 0x2;
pub const SUBOBJECT_DS: u32 = 0x3;
pub const SUBOBJECT_HS: u32 = 0x4;
pub const SUBOBJECT_GS: u32 = 0x5;
pub const SUBOBJECT_STREAM_OUTPUT: u32 = 0x7;
pub const SUBOBJECT_BLEND: u32 = 0x8;
pub const SUBOBJECT_SAMPLE_MASK: u32 = 0x9;
pub const SUBOBJECT_RASTERIZER: u32 = 0xa;
pub const SUBOBJECT_INPUT_LAYOUT: u32 = 0xc;
pub const SUBOBJECT_PRIMITIVE_TOPOLOGY: u32 = 0xe;
pub const SUBOBJECT_RENDER_TARGET_FORMATS: u32 = 0xf;
pub const SUBOBJECT_DEPTH_STENCIL_FORMAT: u32 = 0x10;
pub const SUBOBJECT_SAMPLE_DESC: u32 = 0x11;
pub const SUBOBJECT_DEPTH_STENCIL1: u32 = 0x15;

/// `D3D12_CLEAR_FLAG_DEPTH`.
pub const CLEAR_FLAG_DEPTH: u32 = 1;

/// `D3D12_FEATURE_*`.
pub const FEATURE_D3D12_OPTIONS: u32 = 0;
pub const FEATURE_FORMAT_SUPPORT: u32 = 3;
pub const FEATURE_D3D12_OPTIONS1: u32 = 8;
pub const FEATURE_D3D12_OPTIONS2: u32 = 18;
/// `D3D12_FORMAT_SUPPORT1_*`, `D3D12_FORMAT_SUPPORT2_*`.
pub const FORMAT_SUPPORT1_TYPED_UNORDERED_ACCESS_VIEW: u32 = 0x0200_0000;
pub const FORMAT_SUPPORT2_UAV_TYPED_LOAD: u32 = 0x40;

/// `DXGI_FORMAT_*` (those the runner's formats map to).
pub const FORMAT_UNKNOWN: u32 = 0;
pub const FORMAT_R32G32B32A32_FLOAT: u32 = 0x2;
pub const FORMAT_R32G32B32A32_UINT: u32 = 0x3;
pub const FORMAT_R32G32B32A32_SINT: u32 = 0x4;
pub const FORMAT_R32G32B32_FLOAT: u32 = 0x6;
pub const FORMAT_R32G32B32_UINT: u32 = 0x7;
pub const FORMAT_R32G32B32_SINT: u32 = 0x8;
pub const FORMAT_R16G16B16A16_FLOAT: u32 = 0xa;
pub const FORMAT_R16G16B16A16_UNORM: u32 = 0xb;
pub const FORMAT_R16G16B16A16_UINT: u32 = 0xc;
pub const FORMAT_R16G16B16A16_SINT: u32 = 0xe;
pub const FORMAT_R32G32_FLOAT: u32 = 0x10;
pub const FORMAT_R32G32_UINT: u32 = 0x11;
pub const FORMAT_R32G32_SINT: u32 = 0x12;
pub const FORMAT_R8G8B8A8_UNORM: u32 = 0x1c;
pub const FORMAT_R8G8B8A8_UINT: u32 = 0x1e;
pub const FORMAT_R8G8B8A8_SNORM: u32 = 0x1f;
pub const FORMAT_R8G8B8A8_SINT: u32 = 0x20;
pub const FORMAT_R16G16_FLOAT: u32 = 0x22;
pub const FORMAT_R32_TYPELESS: u32 = 0x27;
pub const FORMAT_D32_FLOAT: u32 = 0x28;
pub const FORMAT_R32_FLOAT: u32 = 0x29;
pub const FORMAT_R32_UINT: u32 = 0x2a;
pub const FORMAT_R32_SINT: u32 = 0x2b;
pub const FORMAT_R16_FLOAT: u32 = 0x36;
pub const FORMAT_R16_UINT: u32 = 0x39;
pub const FORMAT_R8_UNORM: u32 = 0x3d;

/// `S_OK`; `WAIT_OBJECT_0` of `vkd3d_wait_event`.
pub const S_OK: i32 = 0;
pub const WAIT_OBJECT_0: u32 = 0;

// --- structures --------------------------------------------------------------------------

/// `D3D12_COMMAND_QUEUE_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct CommandQueueDesc {
    pub type_: u32,
    pub priority: i32,
    pub flags: u32,
    pub node_mask: u32,
}

/// `D3D12_DESCRIPTOR_HEAP_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DescriptorHeapDesc {
    pub type_: u32,
    pub num_descriptors: u32,
    pub flags: u32,
    pub node_mask: u32,
}

/// `D3D12_CPU_DESCRIPTOR_HANDLE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuDescriptorHandle {
    pub ptr: usize,
}

/// `D3D12_GPU_DESCRIPTOR_HANDLE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GpuDescriptorHandle {
    pub ptr: u64,
}

/// `D3D12_HEAP_PROPERTIES`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct HeapProperties {
    pub type_: u32,
    pub cpu_page_property: u32,
    pub memory_pool_preference: u32,
    pub creation_node_mask: u32,
    pub visible_node_mask: u32,
}

/// `DXGI_SAMPLE_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SampleDesc {
    pub count: u32,
    pub quality: u32,
}

/// `D3D12_RESOURCE_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResourceDesc {
    pub dimension: u32,
    pub alignment: u64,
    pub width: u64,
    pub height: u32,
    pub depth_or_array_size: u16,
    pub mip_levels: u16,
    pub format: u32,
    pub sample_desc: SampleDesc,
    pub layout: u32,
    pub flags: u32,
}

/// `D3D12_RANGE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Range {
    pub begin: usize,
    pub end: usize,
}

/// `D3D12_RESOURCE_TRANSITION_BARRIER`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ResourceTransitionBarrier {
    pub resource: *mut c_void,
    pub subresource: u32,
    pub state_before: u32,
    pub state_after: u32,
}

/// `D3D12_RESOURCE_UAV_BARRIER`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ResourceUavBarrier {
    pub resource: *mut c_void,
}

/// The union of `D3D12_RESOURCE_BARRIER`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union BarrierUnion {
    pub transition: ResourceTransitionBarrier,
    pub uav: ResourceUavBarrier,
}

/// `D3D12_RESOURCE_BARRIER`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ResourceBarrier {
    pub type_: u32,
    pub flags: u32,
    pub u: BarrierUnion,
}

/// `D3D12_BUFFER_SRV`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct BufferSrv {
    pub first_element: u64,
    pub num_elements: u32,
    pub structure_byte_stride: u32,
    pub flags: u32,
}

/// `D3D12_TEX2D_ARRAY_SRV`, the largest texture member of the SRV union; the other texture
/// views (`D3D12_TEX1D_SRV`, `D3D12_TEX2D_SRV`, `D3D12_TEXCUBE_SRV`, ...) are written as
/// their words in order through [`SrvUnion::words`].
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Tex2dArraySrv {
    pub most_detailed_mip: u32,
    pub mip_levels: u32,
    pub first_array_slice: u32,
    pub array_size: u32,
    pub plane_slice: u32,
    pub resource_min_lod_clamp: f32,
}

/// The union of `D3D12_SHADER_RESOURCE_VIEW_DESC`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union SrvUnion {
    pub buffer: BufferSrv,
    pub tex2d_array: Tex2dArraySrv,
    /// Any texture view, as 32-bit words (every texture member is made of them).
    pub words: [u32; 6],
}

/// `D3D12_SHADER_RESOURCE_VIEW_DESC`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ShaderResourceViewDesc {
    pub format: u32,
    pub view_dimension: u32,
    pub shader_4_component_mapping: u32,
    pub u: SrvUnion,
}

/// `D3D12_BUFFER_UAV`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct BufferUav {
    pub first_element: u64,
    pub num_elements: u32,
    pub structure_byte_stride: u32,
    pub counter_offset_in_bytes: u64,
    pub flags: u32,
}

/// The union of `D3D12_UNORDERED_ACCESS_VIEW_DESC`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union UavUnion {
    pub buffer: BufferUav,
    /// Any texture view (`D3D12_TEX2D_ARRAY_UAV`, `D3D12_TEX3D_UAV`, ...) as 32-bit words.
    pub words: [u32; 4],
}

/// `D3D12_UNORDERED_ACCESS_VIEW_DESC`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct UnorderedAccessViewDesc {
    pub format: u32,
    pub view_dimension: u32,
    pub u: UavUnion,
}

/// `D3D12_CONSTANT_BUFFER_VIEW_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ConstantBufferViewDesc {
    pub buffer_location: u64,
    pub size_in_bytes: u32,
}

/// `D3D12_SAMPLER_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SamplerDesc {
    pub filter: u32,
    pub address_u: u32,
    pub address_v: u32,
    pub address_w: u32,
    pub mip_lod_bias: f32,
    pub max_anisotropy: u32,
    pub comparison_func: u32,
    pub border_color: [f32; 4],
    pub min_lod: f32,
    pub max_lod: f32,
}

/// `D3D12_DESCRIPTOR_RANGE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DescriptorRange {
    pub range_type: u32,
    pub num_descriptors: u32,
    pub base_shader_register: u32,
    pub register_space: u32,
    pub offset_in_descriptors_from_table_start: u32,
}

/// `D3D12_ROOT_DESCRIPTOR_TABLE`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct RootDescriptorTable {
    pub num_descriptor_ranges: u32,
    pub descriptor_ranges: *const DescriptorRange,
}

/// `D3D12_ROOT_CONSTANTS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RootConstants {
    pub shader_register: u32,
    pub register_space: u32,
    pub num_32bit_values: u32,
}

/// `D3D12_ROOT_DESCRIPTOR`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RootDescriptor {
    pub shader_register: u32,
    pub register_space: u32,
}

/// The union of `D3D12_ROOT_PARAMETER`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union RootParameterUnion {
    pub descriptor_table: RootDescriptorTable,
    pub constants: RootConstants,
    pub descriptor: RootDescriptor,
}

/// `D3D12_ROOT_PARAMETER`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct RootParameter {
    pub parameter_type: u32,
    pub u: RootParameterUnion,
    pub shader_visibility: u32,
}

/// `D3D12_ROOT_SIGNATURE_DESC` (no static samplers: samplers live in a descriptor heap).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct RootSignatureDesc {
    pub num_parameters: u32,
    pub parameters: *const RootParameter,
    pub num_static_samplers: u32,
    pub static_samplers: *const c_void,
    pub flags: u32,
}

/// `D3D12_SHADER_BYTECODE`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ShaderBytecode {
    pub shader_bytecode: *const c_void,
    pub bytecode_length: usize,
}

impl ShaderBytecode {
    pub const NONE: ShaderBytecode = ShaderBytecode {
        shader_bytecode: std::ptr::null(),
        bytecode_length: 0,
    };
}

/// `D3D12_SO_DECLARATION_ENTRY`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SoDeclarationEntry {
    pub stream: u32,
    pub semantic_name: *const c_char,
    pub semantic_index: u32,
    pub start_component: u8,
    pub component_count: u8,
    pub output_slot: u8,
}

/// `D3D12_STREAM_OUTPUT_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct StreamOutputDesc {
    pub so_declaration: *const SoDeclarationEntry,
    pub num_entries: u32,
    pub buffer_strides: *const u32,
    pub num_strides: u32,
    pub rasterized_stream: u32,
}

/// `D3D12_RENDER_TARGET_BLEND_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RenderTargetBlendDesc {
    pub blend_enable: i32,
    pub logic_op_enable: i32,
    pub src_blend: u32,
    pub dest_blend: u32,
    pub blend_op: u32,
    pub src_blend_alpha: u32,
    pub dest_blend_alpha: u32,
    pub blend_op_alpha: u32,
    pub logic_op: u32,
    pub render_target_write_mask: u8,
}

/// `D3D12_BLEND_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct BlendDesc {
    pub alpha_to_coverage_enable: i32,
    pub independent_blend_enable: i32,
    pub render_target: [RenderTargetBlendDesc; 8],
}

/// `D3D12_RASTERIZER_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RasterizerDesc {
    pub fill_mode: u32,
    pub cull_mode: u32,
    pub front_counter_clockwise: i32,
    pub depth_bias: i32,
    pub depth_bias_clamp: f32,
    pub slope_scaled_depth_bias: f32,
    pub depth_clip_enable: i32,
    pub multisample_enable: i32,
    pub antialiased_line_enable: i32,
    pub forced_sample_count: u32,
    pub conservative_raster: u32,
}

/// `D3D12_DEPTH_STENCILOP_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DepthStencilOpDesc {
    pub stencil_fail_op: u32,
    pub stencil_depth_fail_op: u32,
    pub stencil_pass_op: u32,
    pub stencil_func: u32,
}

/// `D3D12_DEPTH_STENCIL_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DepthStencilDesc {
    pub depth_enable: i32,
    pub depth_write_mask: u32,
    pub depth_func: u32,
    pub stencil_enable: i32,
    pub stencil_read_mask: u8,
    pub stencil_write_mask: u8,
    pub front_face: DepthStencilOpDesc,
    pub back_face: DepthStencilOpDesc,
}

/// `D3D12_DEPTH_STENCIL_DESC1`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DepthStencilDesc1 {
    pub desc: DepthStencilDesc,
    pub depth_bounds_test_enable: i32,
}

/// `D3D12_RT_FORMAT_ARRAY`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RtFormatArray {
    pub rt_formats: [u32; 8],
    pub num_render_targets: u32,
}

/// `D3D12_PIPELINE_STATE_STREAM_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PipelineStateStreamDesc {
    pub size_in_bytes: usize,
    pub pipeline_state_subobject_stream: *mut c_void,
}

/// One subobject of a pipeline state stream: its type, then the structure, the whole
/// aligned to a pointer (as `CD3DX12_PIPELINE_STATE_STREAM_SUBOBJECT` lays it out).
#[repr(C, align(8))]
#[derive(Debug, Clone, Copy)]
pub struct Subobject<T> {
    pub type_: u32,
    pub inner: T,
}

/// `D3D12_INPUT_ELEMENT_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct InputElementDesc {
    pub semantic_name: *const c_char,
    pub semantic_index: u32,
    pub format: u32,
    pub input_slot: u32,
    pub aligned_byte_offset: u32,
    pub input_slot_class: u32,
    pub instance_data_step_rate: u32,
}

/// `D3D12_INPUT_LAYOUT_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct InputLayoutDesc {
    pub input_element_descs: *const InputElementDesc,
    pub num_elements: u32,
}

/// `D3D12_CACHED_PIPELINE_STATE`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CachedPipelineState {
    pub cached_blob: *const c_void,
    pub cached_blob_size_in_bytes: usize,
}

/// `D3D12_GRAPHICS_PIPELINE_STATE_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct GraphicsPipelineStateDesc {
    pub root_signature: *mut c_void,
    pub vs: ShaderBytecode,
    pub ps: ShaderBytecode,
    pub ds: ShaderBytecode,
    pub hs: ShaderBytecode,
    pub gs: ShaderBytecode,
    pub stream_output: StreamOutputDesc,
    pub blend_state: BlendDesc,
    pub sample_mask: u32,
    pub rasterizer_state: RasterizerDesc,
    pub depth_stencil_state: DepthStencilDesc,
    pub input_layout: InputLayoutDesc,
    pub ib_strip_cut_value: u32,
    pub primitive_topology_type: u32,
    pub num_render_targets: u32,
    pub rtv_formats: [u32; 8],
    pub dsv_format: u32,
    pub sample_desc: SampleDesc,
    pub node_mask: u32,
    pub cached_pso: CachedPipelineState,
    pub flags: u32,
}

/// `D3D12_COMPUTE_PIPELINE_STATE_DESC`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ComputePipelineStateDesc {
    pub root_signature: *mut c_void,
    pub cs: ShaderBytecode,
    pub node_mask: u32,
    pub cached_pso: CachedPipelineState,
    pub flags: u32,
}

/// `D3D12_VIEWPORT`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Viewport {
    pub top_left_x: f32,
    pub top_left_y: f32,
    pub width: f32,
    pub height: f32,
    pub min_depth: f32,
    pub max_depth: f32,
}

/// `D3D12_RECT` (`RECT`, whose `LONG` is 32-bit in vkd3d's headers).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rect {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

/// `D3D12_VERTEX_BUFFER_VIEW`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct VertexBufferView {
    pub buffer_location: u64,
    pub size_in_bytes: u32,
    pub stride_in_bytes: u32,
}

/// `D3D12_STREAM_OUTPUT_BUFFER_VIEW`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct StreamOutputBufferView {
    pub buffer_location: u64,
    pub size_in_bytes: u64,
    pub buffer_filled_size_location: u64,
}

/// `D3D12_SUBRESOURCE_FOOTPRINT`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SubresourceFootprint {
    pub format: u32,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    pub row_pitch: u32,
}

/// `D3D12_PLACED_SUBRESOURCE_FOOTPRINT`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlacedSubresourceFootprint {
    pub offset: u64,
    pub footprint: SubresourceFootprint,
}

/// The union of `D3D12_TEXTURE_COPY_LOCATION`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union CopyLocationUnion {
    pub placed_footprint: PlacedSubresourceFootprint,
    pub subresource_index: u32,
}

/// `D3D12_TEXTURE_COPY_LOCATION`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TextureCopyLocation {
    pub resource: *mut c_void,
    pub type_: u32,
    pub u: CopyLocationUnion,
}

/// `D3D12_FEATURE_DATA_D3D12_OPTIONS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct FeatureDataOptions {
    pub double_precision_float_shader_ops: i32,
    pub output_merger_logic_op: i32,
    pub min_precision_support: u32,
    pub tiled_resources_tier: u32,
    pub resource_binding_tier: u32,
    pub ps_specified_stencil_ref_supported: i32,
    pub typed_uav_load_additional_formats: i32,
    pub rovs_supported: i32,
    pub conservative_rasterization_tier: u32,
    pub max_gpu_virtual_address_bits_per_resource: u32,
    pub standard_swizzle_64kb_supported: i32,
    pub cross_node_sharing_tier: u32,
    pub cross_adapter_row_major_texture_supported: i32,
    pub vp_and_rt_array_index_from_any_shader_feeding_rasterizer_supported_without_gs_emulation:
        i32,
    pub resource_heap_tier: u32,
}

/// `D3D12_FEATURE_DATA_D3D12_OPTIONS1`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct FeatureDataOptions1 {
    pub wave_ops: i32,
    pub wave_lane_count_min: u32,
    pub wave_lane_count_max: u32,
    pub total_lane_count: u32,
    pub expanded_compute_resource_states: i32,
    pub int64_shader_ops: i32,
}

/// `D3D12_FEATURE_DATA_D3D12_OPTIONS2`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct FeatureDataOptions2 {
    pub depth_bounds_test_supported: i32,
    pub programmable_sample_positions_tier: u32,
}

/// `D3D12_FEATURE_DATA_FORMAT_SUPPORT`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct FeatureDataFormatSupport {
    pub format: u32,
    pub support1: u32,
    pub support2: u32,
}
