//! The C types of vkd3d-shader's API (`include/vkd3d_shader.h`, vkd3d 2.x) that the stand-in
//! reads or fills, written from the header's declarations. Enumerations are plain `u32`
//! (a caller may pass any value; a Rust enum would make an unknown one undefined behaviour),
//! and C `bool` is `u8` for the same reason. `tests/layout.rs` compares every size and offset
//! with a C program compiled against the real header.

#![allow(non_camel_case_types, missing_docs)]

use std::ffi::{c_char, c_void};

// enum vkd3d_result
pub const VKD3D_OK: i32 = 0;
pub const VKD3D_ERROR: i32 = -1;
pub const VKD3D_ERROR_OUT_OF_MEMORY: i32 = -2;
pub const VKD3D_ERROR_INVALID_ARGUMENT: i32 = -3;
pub const VKD3D_ERROR_INVALID_SHADER: i32 = -4;
pub const VKD3D_ERROR_NOT_IMPLEMENTED: i32 = -5;

// enum vkd3d_shader_structure_type
pub const STRUCTURE_TYPE_COMPILE_INFO: u32 = 0;
pub const STRUCTURE_TYPE_INTERFACE_INFO: u32 = 1;
pub const STRUCTURE_TYPE_SCAN_DESCRIPTOR_INFO: u32 = 2;
pub const STRUCTURE_TYPE_SPIRV_DOMAIN_SHADER_TARGET_INFO: u32 = 3;
pub const STRUCTURE_TYPE_SPIRV_TARGET_INFO: u32 = 4;
pub const STRUCTURE_TYPE_TRANSFORM_FEEDBACK_INFO: u32 = 5;
pub const STRUCTURE_TYPE_HLSL_SOURCE_INFO: u32 = 6;
pub const STRUCTURE_TYPE_PREPROCESS_INFO: u32 = 7;
pub const STRUCTURE_TYPE_DESCRIPTOR_OFFSET_INFO: u32 = 8;
pub const STRUCTURE_TYPE_SCAN_SIGNATURE_INFO: u32 = 9;
pub const STRUCTURE_TYPE_VARYING_MAP_INFO: u32 = 10;
pub const STRUCTURE_TYPE_SCAN_COMBINED_RESOURCE_SAMPLER_INFO: u32 = 11;
pub const STRUCTURE_TYPE_PARAMETER_INFO: u32 = 12;
pub const STRUCTURE_TYPE_SCAN_HULL_SHADER_TESSELLATION_INFO: u32 = 13;
pub const STRUCTURE_TYPE_SCAN_THREAD_GROUP_SIZE_INFO: u32 = 14;
pub const STRUCTURE_TYPE_D3DBC_SOURCE_INFO: u32 = 15;
pub const STRUCTURE_TYPE_SCAN_DENORMAL_MODE_INFO: u32 = 16;

// enum vkd3d_shader_source_type / target_type
pub const SOURCE_DXBC_TPF: u32 = 1;
pub const SOURCE_D3D_BYTECODE: u32 = 3;
pub const TARGET_SPIRV_BINARY: u32 = 1;

// enum vkd3d_shader_log_level
pub const LOG_NONE: u32 = 0;
pub const LOG_ERROR: u32 = 1;
pub const LOG_WARNING: u32 = 2;

// enum vkd3d_shader_compile_option_name
pub const OPTION_STRIP_DEBUG: u32 = 1;
pub const OPTION_BUFFER_UAV: u32 = 2;
pub const OPTION_FORMATTING: u32 = 3;
pub const OPTION_API_VERSION: u32 = 4;
pub const OPTION_TYPED_UAV: u32 = 5;
pub const OPTION_WRITE_TESS_GEOM_POINT_SIZE: u32 = 6;
pub const OPTION_PACK_MATRIX_ORDER: u32 = 7;
pub const OPTION_BACKWARD_COMPATIBILITY: u32 = 8;
pub const OPTION_FRAGMENT_COORDINATE_ORIGIN: u32 = 9;
pub const OPTION_FEATURE: u32 = 10;
pub const OPTION_CHILD_EFFECT: u32 = 11;
pub const OPTION_WARN_IMPLICIT_TRUNCATION: u32 = 12;
pub const OPTION_INCLUDE_EMPTY_BUFFERS_IN_EFFECTS: u32 = 13;
pub const OPTION_DENORMAL_MODE_F16: u32 = 14;
pub const OPTION_DENORMAL_MODE_F32: u32 = 15;
pub const OPTION_DENORMAL_MODE_F64: u32 = 16;

pub const BUFFER_UAV_STORAGE_TEXEL_BUFFER: u32 = 0;
pub const BUFFER_UAV_STORAGE_BUFFER: u32 = 1;
pub const TYPED_UAV_READ_FORMAT_R32: u32 = 0;
pub const TYPED_UAV_READ_FORMAT_UNKNOWN: u32 = 1;
pub const FEATURE_INT64: u32 = 1;
pub const FEATURE_FLOAT64: u32 = 2;
pub const FEATURE_WAVE_OPS: u32 = 4;
pub const FEATURE_ZERO_INITIALIZE_WORKGROUP_MEMORY: u32 = 8;
pub const DENORMAL_MODE_ANY: u32 = 0;
pub const DENORMAL_MODE_FLUSH_TO_ZERO: u32 = 2;

// enum vkd3d_shader_visibility
pub const VISIBILITY_ALL: u32 = 0;
pub const VISIBILITY_VERTEX: u32 = 1;
pub const VISIBILITY_HULL: u32 = 2;
pub const VISIBILITY_DOMAIN: u32 = 3;
pub const VISIBILITY_GEOMETRY: u32 = 4;
pub const VISIBILITY_PIXEL: u32 = 5;
pub const VISIBILITY_COMPUTE: u32 = 1_000_000_000;

// enum vkd3d_shader_descriptor_type
pub const DESCRIPTOR_TYPE_SRV: u32 = 0;
pub const DESCRIPTOR_TYPE_UAV: u32 = 1;
pub const DESCRIPTOR_TYPE_CBV: u32 = 2;
pub const DESCRIPTOR_TYPE_SAMPLER: u32 = 3;

// enum vkd3d_shader_binding_flag
pub const BINDING_FLAG_BUFFER: u32 = 1;
pub const BINDING_FLAG_IMAGE: u32 = 2;

// enum vkd3d_shader_spirv_environment
pub const SPIRV_ENVIRONMENT_NONE: u32 = 0;
pub const SPIRV_ENVIRONMENT_OPENGL_4_5: u32 = 1;
pub const SPIRV_ENVIRONMENT_VULKAN_1_0: u32 = 2;
pub const SPIRV_ENVIRONMENT_VULKAN_1_1: u32 = 3;

// enum vkd3d_shader_spirv_extension
pub const SPIRV_EXTENSION_EXT_DEMOTE_TO_HELPER_INVOCATION: u32 = 1;
pub const SPIRV_EXTENSION_EXT_DESCRIPTOR_INDEXING: u32 = 2;
pub const SPIRV_EXTENSION_EXT_STENCIL_EXPORT: u32 = 3;
pub const SPIRV_EXTENSION_EXT_VIEWPORT_INDEX_LAYER: u32 = 4;
pub const SPIRV_EXTENSION_EXT_FRAGMENT_SHADER_INTERLOCK: u32 = 5;
pub const SPIRV_EXTENSION_KHR_FLOAT_CONTROLS: u32 = 6;

// enum vkd3d_shader_parameter_type / data_type / name
pub const PARAMETER_TYPE_IMMEDIATE_CONSTANT: u32 = 1;
pub const PARAMETER_TYPE_SPECIALIZATION_CONSTANT: u32 = 2;
pub const PARAMETER_TYPE_BUFFER: u32 = 3;
pub const PARAMETER_DATA_TYPE_UINT32: u32 = 1;
pub const PARAMETER_DATA_TYPE_FLOAT32: u32 = 2;
pub const PARAMETER_DATA_TYPE_FLOAT32_VEC4: u32 = 3;
pub const PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT: u32 = 1;
pub const PARAMETER_NAME_ALPHA_TEST_FUNC: u32 = 2;
pub const PARAMETER_NAME_ALPHA_TEST_REF: u32 = 3;
pub const PARAMETER_NAME_FLAT_INTERPOLATION: u32 = 4;
pub const PARAMETER_NAME_CLIP_PLANE_MASK: u32 = 5;
pub const PARAMETER_NAME_CLIP_PLANE_0: u32 = 6;
pub const PARAMETER_NAME_POINT_SIZE: u32 = 14;
pub const PARAMETER_NAME_POINT_SIZE_MIN: u32 = 15;
pub const PARAMETER_NAME_POINT_SIZE_MAX: u32 = 16;
pub const PARAMETER_NAME_POINT_SPRITE: u32 = 17;
pub const PARAMETER_NAME_FOG_FRAGMENT_MODE: u32 = 18;
pub const PARAMETER_NAME_FOG_COLOUR: u32 = 19;
pub const PARAMETER_NAME_FOG_END: u32 = 20;
pub const PARAMETER_NAME_FOG_SCALE: u32 = 21;
pub const PARAMETER_NAME_FOG_SOURCE: u32 = 22;
pub const PARAMETER_NAME_BUMP_MATRIX_0: u32 = 23;
pub const PARAMETER_NAME_BUMP_LUMINANCE_SCALE_0: u32 = 29;
pub const PARAMETER_NAME_BUMP_LUMINANCE_OFFSET_0: u32 = 35;
pub const PARAMETER_NAME_PROJECTED_TEXTURE_MASK: u32 = 41;

// enum vkd3d_shader_resource_type (its values are DXBC's resource dimensions 0–10)
pub const RESOURCE_NONE: u32 = 0;
pub const RESOURCE_BUFFER: u32 = 1;
pub const RESOURCE_TEXTURE_1D: u32 = 2;
pub const RESOURCE_TEXTURE_2D: u32 = 3;
pub const RESOURCE_TEXTURE_3D: u32 = 5;
pub const RESOURCE_TEXTURE_CUBE: u32 = 6;

// enum vkd3d_shader_resource_data_type (its values are DXBC's return types 1–8)
pub const RESOURCE_DATA_NONE: u32 = 0;
pub const RESOURCE_DATA_UINT: u32 = 4;
pub const RESOURCE_DATA_FLOAT: u32 = 5;
pub const RESOURCE_DATA_CONTINUED: u32 = 8;

// enum vkd3d_shader_descriptor_info_flag
pub const DESCRIPTOR_INFO_FLAG_UAV_COUNTER: u32 = 1;
pub const DESCRIPTOR_INFO_FLAG_UAV_READ: u32 = 2;
pub const DESCRIPTOR_INFO_FLAG_SAMPLER_COMPARISON_MODE: u32 = 4;
pub const DESCRIPTOR_INFO_FLAG_UAV_ATOMICS: u32 = 8;
pub const DESCRIPTOR_INFO_FLAG_RAW_BUFFER: u32 = 0x10;

/// `VKD3D_SHADER_DUMMY_SAMPLER_INDEX`: the sampler of a resource-sampler pair whose
/// instruction reads the resource without a sampler.
pub const DUMMY_SAMPLER_INDEX: u32 = !0;

/// `VKD3D_SHADER_API_VERSION_1_15`: scans for this API version or older report samplers'
/// data type as `UINT`, later ones as `NONE`.
pub const API_VERSION_1_15: u32 = 15;
/// `VKD3D_SHADER_API_VERSION_1_2`: the API version a scan assumes when the caller gives none.
pub const API_VERSION_1_2: u32 = 2;

/// `VKD3D_SHADER_NO_SWIZZLE`: x, y, z, w in bytes 0–3.
pub const NO_SWIZZLE: u32 = 0x0302_0100;

/// `PFN_vkd3d_log`: `void (*)(const char *format, va_list args)`. The `va_list` is passed as
/// an opaque pointer-sized value; only `src/log.c` builds one.
pub type LogFn = Option<unsafe extern "C" fn(format: *const c_char, args: *mut c_void)>;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Header {
    pub ty: u32,
    pub next: *const c_void,
}

#[repr(C)]
pub struct Code {
    pub code: *const c_void,
    pub size: usize,
}

#[repr(C)]
pub struct CompileOption {
    pub name: u32,
    pub value: u32,
}

#[repr(C)]
pub struct CompileInfo {
    pub ty: u32,
    pub next: *const c_void,
    pub source: Code,
    pub source_type: u32,
    pub target_type: u32,
    pub options: *const CompileOption,
    pub option_count: u32,
    pub log_level: u32,
    pub source_name: *const c_char,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DescriptorBinding {
    pub set: u32,
    pub binding: u32,
    pub count: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ResourceBinding {
    pub ty: u32,
    pub register_space: u32,
    pub register_index: u32,
    pub shader_visibility: u32,
    pub flags: u32,
    pub binding: DescriptorBinding,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CombinedResourceSampler {
    pub resource_space: u32,
    pub resource_index: u32,
    pub sampler_space: u32,
    pub sampler_index: u32,
    pub shader_visibility: u32,
    pub flags: u32,
    pub binding: DescriptorBinding,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct UavCounterBinding {
    pub register_space: u32,
    pub register_index: u32,
    pub shader_visibility: u32,
    pub binding: DescriptorBinding,
    pub offset: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PushConstantBuffer {
    pub register_space: u32,
    pub register_index: u32,
    pub shader_visibility: u32,
    pub offset: u32,
    pub size: u32,
}

#[repr(C)]
pub struct InterfaceInfo {
    pub ty: u32,
    pub next: *const c_void,
    pub bindings: *const ResourceBinding,
    pub binding_count: u32,
    pub push_constant_buffers: *const PushConstantBuffer,
    pub push_constant_buffer_count: u32,
    pub combined_samplers: *const CombinedResourceSampler,
    pub combined_sampler_count: u32,
    pub uav_counters: *const UavCounterBinding,
    pub uav_counter_count: u32,
}

#[repr(C)]
pub struct TransformFeedbackElement {
    pub stream_index: u32,
    pub semantic_name: *const c_char,
    pub semantic_index: u32,
    pub component_index: u8,
    pub component_count: u8,
    pub output_slot: u8,
}

#[repr(C)]
pub struct TransformFeedbackInfo {
    pub ty: u32,
    pub next: *const c_void,
    pub elements: *const TransformFeedbackElement,
    pub element_count: u32,
    pub buffer_strides: *const u32,
    pub buffer_stride_count: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DescriptorOffset {
    pub static_offset: u32,
    pub dynamic_offset_index: u32,
}

#[repr(C)]
pub struct DescriptorOffsetInfo {
    pub ty: u32,
    pub next: *const c_void,
    pub descriptor_table_offset: u32,
    pub descriptor_table_count: u32,
    pub binding_offsets: *const DescriptorOffset,
    pub uav_counter_offsets: *const DescriptorOffset,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub union ParameterValue {
    pub u32_: u32,
    pub f32_: f32,
}

/// `struct vkd3d_shader_parameter`: the union holds an immediate constant (`u32`/`f32`) or a
/// specialization constant's ID, both one 32-bit word.
#[repr(C)]
pub struct Parameter {
    pub name: u32,
    pub ty: u32,
    pub data_type: u32,
    pub u: ParameterValue,
}

/// The union of `struct vkd3d_shader_parameter1`: an immediate (up to four 32-bit words), a
/// specialization constant ID, or a buffer's (set, binding, offset); 16 bytes, pointer-aligned.
#[repr(C)]
#[derive(Clone, Copy)]
pub union Parameter1Value {
    pub words: [u32; 4],
    pub pointer_pad: *const c_void,
}

#[repr(C)]
pub struct Parameter1 {
    pub name: u32,
    pub ty: u32,
    pub data_type: u32,
    pub u: Parameter1Value,
}

#[repr(C)]
pub struct ParameterInfo {
    pub ty: u32,
    pub next: *const c_void,
    pub parameters: *const Parameter1,
    pub parameter_count: u32,
}

#[repr(C)]
pub struct SpirvTargetInfo {
    pub ty: u32,
    pub next: *const c_void,
    pub entry_point: *const c_char,
    pub environment: u32,
    pub extensions: *const u32,
    pub extension_count: u32,
    pub parameters: *const Parameter,
    pub parameter_count: u32,
    pub dual_source_blending: u8,
    pub output_swizzles: *const u32,
    pub output_swizzle_count: u32,
}

#[repr(C)]
pub struct SpirvDomainShaderTargetInfo {
    pub ty: u32,
    pub next: *const c_void,
    pub output_primitive: u32,
    pub partitioning: u32,
}

#[repr(C)]
pub struct D3dbcSourceInfo {
    pub ty: u32,
    pub next: *const c_void,
    pub texture_dimensions: [u32; 6],
    pub shadow_samplers: u32,
}

#[repr(C)]
pub struct SignatureElement {
    pub semantic_name: *const c_char,
    pub semantic_index: u32,
    pub stream_index: u32,
    pub sysval_semantic: u32,
    pub component_type: u32,
    pub register_index: u32,
    pub mask: u32,
    pub used_mask: u32,
    pub min_precision: u32,
}

#[repr(C)]
pub struct Signature {
    pub elements: *mut SignatureElement,
    pub element_count: u32,
}

#[repr(C)]
pub struct ScanSignatureInfo {
    pub ty: u32,
    pub next: *const c_void,
    pub input: Signature,
    pub output: Signature,
    pub patch_constant: Signature,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DescriptorInfo {
    pub ty: u32,
    pub register_space: u32,
    pub register_index: u32,
    pub resource_type: u32,
    pub resource_data_type: u32,
    pub flags: u32,
    pub count: u32,
}

#[repr(C)]
pub struct ScanDescriptorInfo {
    pub ty: u32,
    pub next: *const c_void,
    pub descriptors: *mut DescriptorInfo,
    pub descriptor_count: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CombinedResourceSamplerInfo {
    pub resource_space: u32,
    pub resource_index: u32,
    pub sampler_space: u32,
    pub sampler_index: u32,
}

#[repr(C)]
pub struct ScanCombinedResourceSamplerInfo {
    pub ty: u32,
    pub next: *const c_void,
    pub combined_samplers: *mut CombinedResourceSamplerInfo,
    pub combined_sampler_count: u32,
}

#[repr(C)]
pub struct ScanHullShaderTessellationInfo {
    pub ty: u32,
    pub next: *const c_void,
    pub output_primitive: u32,
    pub partitioning: u32,
}

#[repr(C)]
pub struct ScanThreadGroupSizeInfo {
    pub ty: u32,
    pub next: *const c_void,
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

#[repr(C)]
pub struct ScanDenormalModeInfo {
    pub ty: u32,
    pub next: *const c_void,
    pub f16_denormal_mode: u32,
    pub f32_denormal_mode: u32,
    pub f64_denormal_mode: u32,
}

/// Sizes and field offsets of the types above, by C name, for the layout test.
pub fn layout_table() -> Vec<(&'static str, usize)> {
    use std::mem::{offset_of, size_of};
    macro_rules! t {
        ($v:ident; $cname:literal, $ty:ty; $($cf:literal => $f:tt),* $(,)?) => {
            $v.push((concat!("sizeof ", $cname), size_of::<$ty>()));
            $( $v.push((concat!($cname, ".", $cf), offset_of!($ty, $f))); )*
        };
    }
    let mut v = Vec::new();
    t!(v; "vkd3d_shader_code", Code; "code" => code, "size" => size);
    t!(v; "vkd3d_shader_compile_option", CompileOption; "name" => name, "value" => value);
    t!(v; "vkd3d_shader_compile_info", CompileInfo; "type" => ty, "next" => next,
        "source" => source, "source_type" => source_type, "target_type" => target_type,
        "options" => options, "option_count" => option_count, "log_level" => log_level,
        "source_name" => source_name);
    t!(v; "vkd3d_shader_descriptor_binding", DescriptorBinding; "set" => set,
        "binding" => binding, "count" => count);
    t!(v; "vkd3d_shader_resource_binding", ResourceBinding; "type" => ty,
        "register_space" => register_space, "register_index" => register_index,
        "shader_visibility" => shader_visibility, "flags" => flags, "binding" => binding);
    t!(v; "vkd3d_shader_combined_resource_sampler", CombinedResourceSampler;
        "resource_space" => resource_space, "resource_index" => resource_index,
        "sampler_space" => sampler_space, "sampler_index" => sampler_index,
        "shader_visibility" => shader_visibility, "flags" => flags, "binding" => binding);
    t!(v; "vkd3d_shader_uav_counter_binding", UavCounterBinding;
        "register_space" => register_space, "register_index" => register_index,
        "shader_visibility" => shader_visibility, "binding" => binding, "offset" => offset);
    t!(v; "vkd3d_shader_push_constant_buffer", PushConstantBuffer;
        "register_space" => register_space, "register_index" => register_index,
        "shader_visibility" => shader_visibility, "offset" => offset, "size" => size);
    t!(v; "vkd3d_shader_interface_info", InterfaceInfo; "type" => ty, "next" => next,
        "bindings" => bindings, "binding_count" => binding_count,
        "push_constant_buffers" => push_constant_buffers,
        "push_constant_buffer_count" => push_constant_buffer_count,
        "combined_samplers" => combined_samplers,
        "combined_sampler_count" => combined_sampler_count, "uav_counters" => uav_counters,
        "uav_counter_count" => uav_counter_count);
    t!(v; "vkd3d_shader_transform_feedback_element", TransformFeedbackElement;
        "stream_index" => stream_index, "semantic_name" => semantic_name,
        "semantic_index" => semantic_index, "component_index" => component_index,
        "component_count" => component_count, "output_slot" => output_slot);
    t!(v; "vkd3d_shader_transform_feedback_info", TransformFeedbackInfo; "type" => ty,
        "next" => next, "elements" => elements, "element_count" => element_count,
        "buffer_strides" => buffer_strides, "buffer_stride_count" => buffer_stride_count);
    t!(v; "vkd3d_shader_descriptor_offset", DescriptorOffset;
        "static_offset" => static_offset, "dynamic_offset_index" => dynamic_offset_index);
    t!(v; "vkd3d_shader_descriptor_offset_info", DescriptorOffsetInfo; "type" => ty,
        "next" => next, "descriptor_table_offset" => descriptor_table_offset,
        "descriptor_table_count" => descriptor_table_count,
        "binding_offsets" => binding_offsets, "uav_counter_offsets" => uav_counter_offsets);
    t!(v; "vkd3d_shader_parameter", Parameter; "name" => name, "type" => ty,
        "data_type" => data_type, "u" => u);
    t!(v; "vkd3d_shader_parameter1", Parameter1; "name" => name, "type" => ty,
        "data_type" => data_type, "u" => u);
    t!(v; "vkd3d_shader_parameter_info", ParameterInfo; "type" => ty, "next" => next,
        "parameters" => parameters, "parameter_count" => parameter_count);
    t!(v; "vkd3d_shader_spirv_target_info", SpirvTargetInfo; "type" => ty, "next" => next,
        "entry_point" => entry_point, "environment" => environment,
        "extensions" => extensions, "extension_count" => extension_count,
        "parameters" => parameters, "parameter_count" => parameter_count,
        "dual_source_blending" => dual_source_blending, "output_swizzles" => output_swizzles,
        "output_swizzle_count" => output_swizzle_count);
    t!(v; "vkd3d_shader_spirv_domain_shader_target_info", SpirvDomainShaderTargetInfo;
        "type" => ty, "next" => next, "output_primitive" => output_primitive,
        "partitioning" => partitioning);
    t!(v; "vkd3d_shader_d3dbc_source_info", D3dbcSourceInfo; "type" => ty, "next" => next,
        "texture_dimensions" => texture_dimensions, "shadow_samplers" => shadow_samplers);
    t!(v; "vkd3d_shader_signature_element", SignatureElement;
        "semantic_name" => semantic_name, "semantic_index" => semantic_index,
        "stream_index" => stream_index, "sysval_semantic" => sysval_semantic,
        "component_type" => component_type, "register_index" => register_index,
        "mask" => mask, "used_mask" => used_mask, "min_precision" => min_precision);
    t!(v; "vkd3d_shader_signature", Signature; "elements" => elements,
        "element_count" => element_count);
    t!(v; "vkd3d_shader_scan_signature_info", ScanSignatureInfo; "type" => ty,
        "next" => next, "input" => input, "output" => output,
        "patch_constant" => patch_constant);
    t!(v; "vkd3d_shader_descriptor_info", DescriptorInfo; "type" => ty,
        "register_space" => register_space, "register_index" => register_index,
        "resource_type" => resource_type, "resource_data_type" => resource_data_type,
        "flags" => flags, "count" => count);
    t!(v; "vkd3d_shader_scan_descriptor_info", ScanDescriptorInfo; "type" => ty,
        "next" => next, "descriptors" => descriptors, "descriptor_count" => descriptor_count);
    t!(v; "vkd3d_shader_combined_resource_sampler_info", CombinedResourceSamplerInfo;
        "resource_space" => resource_space, "resource_index" => resource_index,
        "sampler_space" => sampler_space, "sampler_index" => sampler_index);
    t!(v; "vkd3d_shader_scan_combined_resource_sampler_info",
        ScanCombinedResourceSamplerInfo; "type" => ty, "next" => next,
        "combined_samplers" => combined_samplers,
        "combined_sampler_count" => combined_sampler_count);
    t!(v; "vkd3d_shader_scan_hull_shader_tessellation_info", ScanHullShaderTessellationInfo;
        "type" => ty, "next" => next, "output_primitive" => output_primitive,
        "partitioning" => partitioning);
    t!(v; "vkd3d_shader_scan_thread_group_size_info", ScanThreadGroupSizeInfo;
        "type" => ty, "next" => next, "x" => x, "y" => y, "z" => z);
    t!(v; "vkd3d_shader_scan_denormal_mode_info", ScanDenormalModeInfo; "type" => ty,
        "next" => next, "f16_denormal_mode" => f16_denormal_mode,
        "f32_denormal_mode" => f32_denormal_mode, "f64_denormal_mode" => f64_denormal_mode);
    v
}

/// The enumeration values above by their C names, for the layout test.
pub fn constant_table() -> Vec<(&'static str, i64)> {
    macro_rules! c {
        ($($cname:literal = $v:expr),* $(,)?) => { vec![$(($cname, $v as i64)),*] };
    }
    c![
        "VKD3D_ERROR_NOT_IMPLEMENTED" = VKD3D_ERROR_NOT_IMPLEMENTED,
        "VKD3D_ERROR_INVALID_SHADER" = VKD3D_ERROR_INVALID_SHADER,
        "VKD3D_SHADER_STRUCTURE_TYPE_INTERFACE_INFO" = STRUCTURE_TYPE_INTERFACE_INFO,
        "VKD3D_SHADER_STRUCTURE_TYPE_DESCRIPTOR_OFFSET_INFO" =
            STRUCTURE_TYPE_DESCRIPTOR_OFFSET_INFO,
        "VKD3D_SHADER_STRUCTURE_TYPE_SCAN_SIGNATURE_INFO" = STRUCTURE_TYPE_SCAN_SIGNATURE_INFO,
        "VKD3D_SHADER_STRUCTURE_TYPE_PARAMETER_INFO" = STRUCTURE_TYPE_PARAMETER_INFO,
        "VKD3D_SHADER_STRUCTURE_TYPE_D3DBC_SOURCE_INFO" = STRUCTURE_TYPE_D3DBC_SOURCE_INFO,
        "VKD3D_SHADER_STRUCTURE_TYPE_SCAN_DENORMAL_MODE_INFO" =
            STRUCTURE_TYPE_SCAN_DENORMAL_MODE_INFO,
        "VKD3D_SHADER_SOURCE_D3D_BYTECODE" = SOURCE_D3D_BYTECODE,
        "VKD3D_SHADER_TARGET_SPIRV_BINARY" = TARGET_SPIRV_BINARY,
        "VKD3D_SHADER_COMPILE_OPTION_FEATURE" = OPTION_FEATURE,
        "VKD3D_SHADER_COMPILE_OPTION_DENORMAL_MODE_F64" = OPTION_DENORMAL_MODE_F64,
        "VKD3D_SHADER_COMPILE_OPTION_FEATURE_ZERO_INITIALIZE_WORKGROUP_MEMORY" =
            FEATURE_ZERO_INITIALIZE_WORKGROUP_MEMORY,
        "VKD3D_SHADER_DENORMAL_MODE_FLUSH_TO_ZERO" = DENORMAL_MODE_FLUSH_TO_ZERO,
        "VKD3D_SHADER_VISIBILITY_COMPUTE" = VISIBILITY_COMPUTE,
        "VKD3D_SHADER_SPIRV_ENVIRONMENT_VULKAN_1_1" = SPIRV_ENVIRONMENT_VULKAN_1_1,
        "VKD3D_SHADER_SPIRV_EXTENSION_KHR_FLOAT_CONTROLS" = SPIRV_EXTENSION_KHR_FLOAT_CONTROLS,
        "VKD3D_SHADER_PARAMETER_TYPE_BUFFER" = PARAMETER_TYPE_BUFFER,
        "VKD3D_SHADER_PARAMETER_DATA_TYPE_FLOAT32_VEC4" = PARAMETER_DATA_TYPE_FLOAT32_VEC4,
        "VKD3D_SHADER_PARAMETER_NAME_CLIP_PLANE_0" = PARAMETER_NAME_CLIP_PLANE_0,
        "VKD3D_SHADER_PARAMETER_NAME_POINT_SIZE" = PARAMETER_NAME_POINT_SIZE,
        "VKD3D_SHADER_PARAMETER_NAME_POINT_SPRITE" = PARAMETER_NAME_POINT_SPRITE,
        "VKD3D_SHADER_PARAMETER_NAME_FOG_SOURCE" = PARAMETER_NAME_FOG_SOURCE,
        "VKD3D_SHADER_PARAMETER_NAME_BUMP_MATRIX_0" = PARAMETER_NAME_BUMP_MATRIX_0,
        "VKD3D_SHADER_PARAMETER_NAME_BUMP_LUMINANCE_SCALE_0" =
            PARAMETER_NAME_BUMP_LUMINANCE_SCALE_0,
        "VKD3D_SHADER_PARAMETER_NAME_BUMP_LUMINANCE_OFFSET_0" =
            PARAMETER_NAME_BUMP_LUMINANCE_OFFSET_0,
        "VKD3D_SHADER_PARAMETER_NAME_PROJECTED_TEXTURE_MASK" =
            PARAMETER_NAME_PROJECTED_TEXTURE_MASK,
        "VKD3D_SHADER_RESOURCE_TEXTURE_3D" = RESOURCE_TEXTURE_3D,
        "VKD3D_SHADER_RESOURCE_TEXTURE_CUBE" = RESOURCE_TEXTURE_CUBE,
        "VKD3D_SHADER_NO_SWIZZLE" = NO_SWIZZLE,
        "VKD3D_SHADER_RESOURCE_BUFFER" = RESOURCE_BUFFER,
        "VKD3D_SHADER_RESOURCE_TEXTURE_CUBEARRAY" = 10,
        "VKD3D_SHADER_RESOURCE_DATA_UINT" = RESOURCE_DATA_UINT,
        "VKD3D_SHADER_RESOURCE_DATA_FLOAT" = RESOURCE_DATA_FLOAT,
        "VKD3D_SHADER_RESOURCE_DATA_CONTINUED" = RESOURCE_DATA_CONTINUED,
        "VKD3D_SHADER_DESCRIPTOR_INFO_FLAG_UAV_COUNTER" = DESCRIPTOR_INFO_FLAG_UAV_COUNTER,
        "VKD3D_SHADER_DESCRIPTOR_INFO_FLAG_UAV_READ" = DESCRIPTOR_INFO_FLAG_UAV_READ,
        "VKD3D_SHADER_DESCRIPTOR_INFO_FLAG_SAMPLER_COMPARISON_MODE" =
            DESCRIPTOR_INFO_FLAG_SAMPLER_COMPARISON_MODE,
        "VKD3D_SHADER_DESCRIPTOR_INFO_FLAG_UAV_ATOMICS" = DESCRIPTOR_INFO_FLAG_UAV_ATOMICS,
        "VKD3D_SHADER_DESCRIPTOR_INFO_FLAG_RAW_BUFFER" = DESCRIPTOR_INFO_FLAG_RAW_BUFFER,
        "VKD3D_SHADER_DUMMY_SAMPLER_INDEX" = DUMMY_SAMPLER_INDEX,
        "VKD3D_SHADER_API_VERSION_1_15" = API_VERSION_1_15,
        "VKD3D_SHADER_API_VERSION_1_2" = API_VERSION_1_2,
        "VKD3D_SHADER_TESSELLATOR_OUTPUT_TRIANGLE_CCW" = 4,
        "VKD3D_SHADER_TESSELLATOR_PARTITIONING_FRACTIONAL_EVEN" = 4,
    ]
}
