//! `dxbc_spirv_translate`: SPIR-V words (and optionally the reflection) out; target,
//! bindings and built-in parameters in.
//!
//! Bindings come from exactly one of: a built-in policy, a table (the translator's
//! `BindingLayout`: descriptor rules and push-constant rules, a D3D12 root signature written
//! down), or a caller's callback asked once per declared register range (DXVK's
//! `ResourceMapping`, dxil-spirv's remappers). Built-in parameters follow vkd3d-shader's
//! `parameter1`: each says how its value reaches the shader (immediate, specialization
//! constant, buffer); what the translator cannot deliver is refused with
//! `DXBC_SPIRV_ERROR_UNSUPPORTED`, never ignored.

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use translator::binding::{
    Binding, BindingLayout, BindingPolicy, Count, DescriptorRule, Placement, PushConstantRule,
    RangeRequest, Resolver, ResolverRef,
};
use translator::{Options, TargetEnv};

use crate::chain::{self, *};
use crate::enums::*;
use crate::reflection::{self, dxbc_spirv_reflection};
use crate::shader::dxbc_spirv_shader;
use crate::status::*;

/// The Vulkan version the SPIR-V targets (it fixes the SPIR-V version).
pub type dxbc_spirv_target_env = u32;
/// Vulkan 1.3, SPIR-V 1.6 (also what 0 means).
pub const DXBC_SPIRV_TARGET_ENV_VULKAN_1_3: dxbc_spirv_target_env = 0;
/// Vulkan 1.1, SPIR-V 1.3.
pub const DXBC_SPIRV_TARGET_ENV_VULKAN_1_1: dxbc_spirv_target_env = 1;
/// Vulkan 1.2, SPIR-V 1.5.
pub const DXBC_SPIRV_TARGET_ENV_VULKAN_1_2: dxbc_spirv_target_env = 2;
/// Vulkan 1.0, SPIR-V 1.0.
pub const DXBC_SPIRV_TARGET_ENV_VULKAN_1_0: dxbc_spirv_target_env = 3;

/// Emit `OpName`/`OpMemberName` debug names.
pub const DXBC_SPIRV_TRANSLATE_DEBUG_NAMES: u32 = 1 << 0;
/// Flush 32-bit float denormals (`DenormFlushToZero`, as D3D requires of fp32 math); set it
/// only when the device reports `shaderDenormFlushToZeroFloat32`.
pub const DXBC_SPIRV_TRANSLATE_DENORM_FLUSH_F32: u32 = 1 << 1;
/// Direct3D 9 vertex shaders for a software vertex-processing device
/// (`D3DCREATE_SOFTWARE_VERTEXPROCESSING`, or mixed with `SetSoftwareVertexProcessing(TRUE)`):
/// 8192 float, 2048 integer and 2048 boolean constants (`docs/d3d9.md`).
pub const DXBC_SPIRV_TRANSLATE_D3D9_SOFTWARE_VERTEX_PROCESSING: u32 = 1 << 2;
/// Direct3D 9 programs past the runtime's register limits are translated instead of refused:
/// constants past the range read from their buffer (the set grows), and ps_2_0/vs_2_0 may use
/// the 2_x instructions and constants (`docs/d3d9.md`).
pub const DXBC_SPIRV_TRANSLATE_D3D9_RELAXED_LIMITS: u32 = 1 << 3;
/// Compute minimum-precision operands (`min16float`, `min10float`, `min16int`, `min16uint`)
/// on 16-bit types instead of 32-bit ones decorated `RelaxedPrecision`; set it only when the
/// device has `shaderFloat16` and `shaderInt16` (the reflection lists what the module uses).
pub const DXBC_SPIRV_TRANSLATE_NATIVE_16BIT_MIN_PRECISION: u32 = 1 << 4;
/// Raw and structured SRVs as R32_UINT uniform texel buffers instead of read-only storage
/// buffers (the binding request and the reflection say `UNIFORM_TEXEL_BUFFER`).
pub const DXBC_SPIRV_TRANSLATE_RAW_SRV_TEXEL_BUFFERS: u32 = 1 << 5;
/// Raw and structured UAVs as R32_UINT storage texel buffers instead of storage buffers.
pub const DXBC_SPIRV_TRANSLATE_RAW_UAV_TEXEL_BUFFERS: u32 = 1 << 6;
/// UAV counters as R32_UINT storage texel buffers (texel 0 is the count) instead of storage
/// buffers.
pub const DXBC_SPIRV_TRANSLATE_UAV_COUNTER_TEXEL_BUFFERS: u32 = 1 << 7;
/// Typed UAVs the program reads are declared `R32f`/`R32ui`/`R32i` (devices without
/// `shaderStorageImageReadWithoutFormat`; vkd3d's `TYPED_UAV_READ_FORMAT_R32`).
pub const DXBC_SPIRV_TRANSLATE_TYPED_UAV_READ_R32: u32 = 1 << 8;
/// Pixel shaders: dual-source blending (`o0`/`oC0` to `Location 0 Index 0`, `o1` to
/// `Location 0 Index 1`; writes to other render targets are dropped).
pub const DXBC_SPIRV_TRANSLATE_DUAL_SOURCE_BLENDING: u32 = 1 << 9;
/// Vertex shaders write `PointSize` = 1.0.
pub const DXBC_SPIRV_TRANSLATE_VERTEX_POINT_SIZE: u32 = 1 << 10;
/// Vertex, domain and geometry shaders write `PointSize` = 1.0 (needs
/// `shaderTessellationAndGeometryPointSize`; vkd3d's `WRITE_TESS_GEOM_POINT_SIZE`).
pub const DXBC_SPIRV_TRANSLATE_TESS_GEOM_POINT_SIZE: u32 = 1 << 11;
/// Carry float precision as `SPV_KHR_float_controls2` fast-math defaults (`FPFastMathDefault`)
/// and per-operation `FPFastMathMode` decorations instead of `NoContraction` on every precise
/// operation: smaller modules, the same results. Set it only when the device has
/// `shaderFloatControls2` (`VK_KHR_shader_float_controls2`, core in Vulkan 1.4).
pub const DXBC_SPIRV_TRANSLATE_FLOAT_CONTROLS2: u32 = 1 << 12;

/// How to translate. Chain a binding struct (policy, table or callback; at most one, default
/// the class-offsets policy), a `dxbc_spirv_parameter_info` and a
/// `dxbc_spirv_stream_output_info` after it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_translate_info {
    /// `DXBC_SPIRV_STRUCTURE_TYPE_TRANSLATE_INFO`.
    pub s_type: dxbc_spirv_structure_type,
    pub next: *const c_void,
    /// A `DXBC_SPIRV_TARGET_ENV_*`.
    pub target_env: dxbc_spirv_target_env,
    /// `DXBC_SPIRV_TRANSLATE_*` bits.
    pub flags: u32,
}

/// A built-in binding policy (`docs/bindings.md`).
pub type dxbc_spirv_binding_policy = u32;
/// set = space; binding = class base (b 0, s 16, t 32, u 160, counters 224) + register.
pub const DXBC_SPIRV_BINDING_POLICY_CLASS_OFFSETS: dxbc_spirv_binding_policy = 0;
/// set = space; one binding per declared range, numbered from 0 in the order b, s, t, u.
pub const DXBC_SPIRV_BINDING_POLICY_PER_RANGE: dxbc_spirv_binding_policy = 1;
/// vkd3d-shader's numbering without an interface: set 0, one binding per declaration.
pub const DXBC_SPIRV_BINDING_POLICY_VKD3D: dxbc_spirv_binding_policy = 2;

/// Places bindings by a built-in policy.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_binding_policy_info {
    /// `DXBC_SPIRV_STRUCTURE_TYPE_BINDING_POLICY_INFO`.
    pub s_type: dxbc_spirv_structure_type,
    pub next: *const c_void,
    /// A `DXBC_SPIRV_BINDING_POLICY_*`.
    pub policy: dxbc_spirv_binding_policy,
}

/// Registers `register_index .. register_index + count` of a class in a space live in
/// `binding` of `set`, register `r` at array element `array_offset + (r - register_index)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_descriptor_rule {
    /// A `DXBC_SPIRV_REGISTER_CLASS_*` (`UAV_COUNTER` places the counters of those UAVs).
    pub register_class: dxbc_spirv_register_class,
    pub register_space: u32,
    pub register_index: u32,
    /// Registers covered (at least 1), or `DXBC_SPIRV_UNBOUNDED`.
    pub count: u32,
    pub set: u32,
    pub binding: u32,
    pub array_offset: u32,
    /// Only ranges of these descriptor types (bits `1 << DXBC_SPIRV_DESCRIPTOR_TYPE_*`); 0: any.
    pub descriptor_type_mask: u32,
}

/// Constant buffer `b{register_index}` of a space is `size` bytes of push constants at byte
/// `offset` (D3D12 root constants); both multiples of 4.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_push_constant_rule {
    pub register_space: u32,
    pub register_index: u32,
    pub offset: u32,
    pub size: u32,
}

/// Places bindings by a table, validated before use (the translator's binding layout).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_binding_table_info {
    /// `DXBC_SPIRV_STRUCTURE_TYPE_BINDING_TABLE_INFO`.
    pub s_type: dxbc_spirv_structure_type,
    pub next: *const c_void,
    pub descriptor_rule_count: u32,
    pub descriptor_rules: *const dxbc_spirv_descriptor_rule,
    pub push_constant_rule_count: u32,
    pub push_constant_rules: *const dxbc_spirv_push_constant_rule,
}

/// One declared register range the callback is asked to place.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_binding_request {
    /// The shader's stage.
    pub stage: dxbc_spirv_stage,
    /// A `DXBC_SPIRV_REGISTER_CLASS_*`; `UAV_COUNTER` for the hidden counter of a UAV.
    pub register_class: dxbc_spirv_register_class,
    pub register_space: u32,
    /// First register of the range.
    pub register_index: u32,
    /// Registers in the range, or `DXBC_SPIRV_UNBOUNDED`.
    pub count: u32,
    /// The Vulkan descriptor type the translator gives the range.
    pub descriptor_type: dxbc_spirv_descriptor_type,
}

/// Where the callback puts a range.
pub type dxbc_spirv_binding_kind = u32;
/// `set`, `binding`, `array_offset`: register `register_index + i` is element
/// `array_offset + i` of the binding.
pub const DXBC_SPIRV_BINDING_KIND_DESCRIPTOR: dxbc_spirv_binding_kind = 0;
/// A constant buffer held in push constants: `push_constant_size` bytes at byte
/// `push_constant_offset` (both multiples of 4; CBVs of one register only).
pub const DXBC_SPIRV_BINDING_KIND_PUSH_CONSTANT: dxbc_spirv_binding_kind = 1;

/// The callback's answer.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct dxbc_spirv_binding {
    /// A `DXBC_SPIRV_BINDING_KIND_*` (zero-initialised: a descriptor).
    pub kind: dxbc_spirv_binding_kind,
    pub set: u32,
    pub binding: u32,
    pub array_offset: u32,
    pub push_constant_offset: u32,
    pub push_constant_size: u32,
}

/// Places one register range: fill `*binding` and return nonzero, or return 0 to refuse it
/// (the translation then fails with `DXBC_SPIRV_ERROR_BINDING` naming the register). Called on
/// the translating thread, during the call, once per declared range (UAV counters separately).
pub type dxbc_spirv_binding_callback = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        request: *const dxbc_spirv_binding_request,
        binding: *mut dxbc_spirv_binding,
    ) -> crate::dxbc_spirv_bool,
>;

/// Places bindings by asking the caller.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_binding_callback_info {
    /// `DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK_INFO`.
    pub s_type: dxbc_spirv_structure_type,
    pub next: *const c_void,
    pub callback: dxbc_spirv_binding_callback,
    /// Passed to the callback as it is.
    pub user_data: *mut c_void,
}

/// Which built-in value a parameter supplies.
pub type dxbc_spirv_parameter_name = u32;
/// The rasterizer's sample count (`sampleinfo`/`samplepos` on `rasterizer`), uint32.
/// Deliverable as a specialization constant (the default, id 0) or an immediate constant (a
/// power of two from 1 to 64).
pub const DXBC_SPIRV_PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT: dxbc_spirv_parameter_name = 1;
/// The hull shader's tessellation factor limit, float32. Reserved: the translator clamps
/// factors to `dcl_hs_max_tessfactor` and 64 only, so any delivery is refused as unsupported.
pub const DXBC_SPIRV_PARAMETER_NAME_TESS_FACTOR_LIMIT: dxbc_spirv_parameter_name = 2;

/// How a parameter's value reaches the shader.
pub type dxbc_spirv_parameter_type = u32;
/// A constant in the SPIR-V (`u.immediate_constant`).
pub const DXBC_SPIRV_PARAMETER_TYPE_IMMEDIATE_CONSTANT: dxbc_spirv_parameter_type = 1;
/// A specialization constant (`u.specialization_constant.id`), set at pipeline creation.
pub const DXBC_SPIRV_PARAMETER_TYPE_SPECIALIZATION_CONSTANT: dxbc_spirv_parameter_type = 2;
/// Read from a buffer (`u.buffer`: set, binding, byte offset).
pub const DXBC_SPIRV_PARAMETER_TYPE_BUFFER: dxbc_spirv_parameter_type = 3;
/// Read from the push-constant block (`u.push_constant.offset`).
pub const DXBC_SPIRV_PARAMETER_TYPE_PUSH_CONSTANT: dxbc_spirv_parameter_type = 4;

/// The parameter's scalar type.
pub type dxbc_spirv_parameter_data_type = u32;
pub const DXBC_SPIRV_PARAMETER_DATA_TYPE_UINT32: dxbc_spirv_parameter_data_type = 1;
pub const DXBC_SPIRV_PARAMETER_DATA_TYPE_FLOAT32: dxbc_spirv_parameter_data_type = 2;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_parameter_specialization_constant {
    pub id: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_parameter_buffer {
    pub set: u32,
    pub binding: u32,
    pub offset: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_parameter_push_constant {
    pub offset: u32,
}

/// The value or where to find it, by the parameter's type.
#[repr(C)]
#[derive(Clone, Copy)]
pub union dxbc_spirv_parameter_value {
    /// The value's bits (a uint32, or a float32's bits).
    pub immediate_constant: u32,
    pub specialization_constant: dxbc_spirv_parameter_specialization_constant,
    pub buffer: dxbc_spirv_parameter_buffer,
    pub push_constant: dxbc_spirv_parameter_push_constant,
}

/// One built-in parameter (vkd3d-shader's `vkd3d_shader_parameter1`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct dxbc_spirv_parameter {
    /// A `DXBC_SPIRV_PARAMETER_NAME_*`.
    pub name: dxbc_spirv_parameter_name,
    /// A `DXBC_SPIRV_PARAMETER_TYPE_*`.
    pub r#type: dxbc_spirv_parameter_type,
    /// A `DXBC_SPIRV_PARAMETER_DATA_TYPE_*`.
    pub data_type: dxbc_spirv_parameter_data_type,
    pub u: dxbc_spirv_parameter_value,
}

/// Built-in parameters (each name at most once).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_parameter_info {
    /// `DXBC_SPIRV_STRUCTURE_TYPE_PARAMETER_INFO`.
    pub s_type: dxbc_spirv_structure_type,
    pub next: *const c_void,
    pub parameter_count: u32,
    pub parameters: *const dxbc_spirv_parameter,
}

/// SPIR-V words. Free with `dxbc_spirv_free_code`.
#[repr(C)]
#[derive(Debug)]
pub struct dxbc_spirv_code {
    pub words: *const u32,
    pub word_count: usize,
}

/// The caller's callback as a translator [`Resolver`].
struct Callback {
    stage: dxbc_spirv_stage,
    callback: unsafe extern "C" fn(
        *mut c_void,
        *const dxbc_spirv_binding_request,
        *mut dxbc_spirv_binding,
    ) -> crate::dxbc_spirv_bool,
    user_data: *mut c_void,
}

// SAFETY: the resolver lives in the `Options` of one call and is only used on the calling
// thread during that call; the pointers are the caller's, used as the caller asked.
unsafe impl Send for Callback {}
// SAFETY: as above.
unsafe impl Sync for Callback {}

/// The C request for a range.
pub(crate) fn request(stage: dxbc_spirv_stage, r: &RangeRequest) -> dxbc_spirv_binding_request {
    dxbc_spirv_binding_request {
        stage,
        register_class: register_class(r.class, r.counter),
        register_space: r.space,
        register_index: r.lower,
        count: r.count().unwrap_or(crate::DXBC_SPIRV_UNBOUNDED),
        descriptor_type: descriptor_type(r.descriptor_type),
    }
}

/// A callback's push-constant answer for `r`, checked.
pub(crate) fn push_placement(
    r: &RangeRequest,
    offset: u32,
    size: u32,
) -> Result<Placement, String> {
    if r.class != translator::reflect::RegisterClass::B || r.upper != Some(r.lower) {
        Err("the binding callback put it in push constants, which hold single constant buffers only".into())
    } else if size == 0
        || !size.is_multiple_of(4)
        || !offset.is_multiple_of(4)
        || offset.checked_add(size).is_none()
    {
        Err(format!(
            "the binding callback gave push-constant bytes {offset}+{size}; offset and size must be multiples of 4 and the size at least 4"
        ))
    } else {
        Ok(Placement::PushConstant { offset, size })
    }
}

impl Resolver for Callback {
    fn place(&self, r: &RangeRequest) -> Result<Placement, String> {
        let request = request(self.stage, r);
        let mut out = dxbc_spirv_binding::default();
        // SAFETY: the caller's function, called as its documentation says.
        let accepted = unsafe { (self.callback)(self.user_data, &request, &mut out) };
        if accepted == 0 {
            return Err("the binding callback refused it".into());
        }
        match out.kind {
            DXBC_SPIRV_BINDING_KIND_DESCRIPTOR => Ok(Placement::descriptor(
                out.set,
                out.binding,
                out.array_offset,
            )),
            DXBC_SPIRV_BINDING_KIND_PUSH_CONSTANT => {
                push_placement(r, out.push_constant_offset, out.push_constant_size)
            }
            k => Err(format!(
                "the binding callback returned kind {k}, which is not a DXBC_SPIRV_BINDING_KIND_*"
            )),
        }
    }
}

fn layout_from_table(t: &dxbc_spirv_binding_table_info) -> ApiResult<BindingLayout> {
    // SAFETY: caller's promise.
    let rules = unsafe {
        in_slice(
            t.descriptor_rules,
            t.descriptor_rule_count as usize,
            "descriptor_rules",
        )?
    };
    // SAFETY: caller's promise.
    let push = unsafe {
        in_slice(
            t.push_constant_rules,
            t.push_constant_rule_count as usize,
            "push_constant_rules",
        )?
    };
    let mut layout = BindingLayout::default();
    for (i, r) in rules.iter().enumerate() {
        let (class, counter) = from_register_class(r.register_class).ok_or_else(|| {
            ApiError::invalid_argument(format!(
                "descriptor_rules[{i}].register_class {} is not a DXBC_SPIRV_REGISTER_CLASS_*",
                r.register_class
            ))
        })?;
        let types = descriptor_types_in_mask(r.descriptor_type_mask).ok_or_else(|| {
            ApiError::invalid_argument(format!(
                "descriptor_rules[{i}].descriptor_type_mask {:#x} sets bits of no descriptor type",
                r.descriptor_type_mask
            ))
        })?;
        let count = match r.count {
            crate::DXBC_SPIRV_UNBOUNDED => Count::Unbounded,
            n => Count::Bounded(n),
        };
        layout.descriptors.push(DescriptorRule {
            class,
            space: r.register_space,
            register: r.register_index,
            count,
            set: r.set,
            binding: r.binding,
            array_offset: r.array_offset,
            counter,
            types,
            dynamic_offset: None,
            mutable: false,
        });
    }
    layout.push_constants = push
        .iter()
        .map(|p| PushConstantRule {
            space: p.register_space,
            register: p.register_index,
            offset: p.offset,
            size: p.size,
        })
        .collect();
    layout
        .validate()
        .map_err(|e| ApiError::invalid_argument(e.to_string()))?;
    Ok(layout)
}

fn apply_parameters(p: &dxbc_spirv_parameter_info, opts: &mut Options) -> ApiResult {
    // SAFETY: caller's promise.
    let params = unsafe { in_slice(p.parameters, p.parameter_count as usize, "parameters")? };
    let mut seen = Vec::new();
    for (i, param) in params.iter().enumerate() {
        let what = format!("parameters[{i}]");
        if seen.contains(&param.name) {
            return Err(ApiError::invalid_argument(format!(
                "{what}: parameter name {} given twice",
                param.name
            )));
        }
        seen.push(param.name);
        let delivery = match param.r#type {
            DXBC_SPIRV_PARAMETER_TYPE_IMMEDIATE_CONSTANT => "an immediate constant",
            DXBC_SPIRV_PARAMETER_TYPE_SPECIALIZATION_CONSTANT => "a specialization constant",
            DXBC_SPIRV_PARAMETER_TYPE_BUFFER => "a buffer",
            DXBC_SPIRV_PARAMETER_TYPE_PUSH_CONSTANT => "a push constant",
            t => {
                return Err(ApiError::invalid_argument(format!(
                    "{what}: type {t} is not a DXBC_SPIRV_PARAMETER_TYPE_*"
                )));
            }
        };
        match param.name {
            DXBC_SPIRV_PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT => {
                if param.data_type != DXBC_SPIRV_PARAMETER_DATA_TYPE_UINT32 {
                    return Err(ApiError::invalid_argument(format!(
                        "{what}: RASTERIZER_SAMPLE_COUNT is a uint32 (data type {})",
                        param.data_type
                    )));
                }
                match param.r#type {
                    DXBC_SPIRV_PARAMETER_TYPE_SPECIALIZATION_CONSTANT => {
                        // SAFETY: the union member the type names.
                        opts.rasterizer_sample_count_spec_id =
                            unsafe { param.u.specialization_constant.id };
                    }
                    DXBC_SPIRV_PARAMETER_TYPE_IMMEDIATE_CONSTANT => {
                        // SAFETY: the union member the type names.
                        let n = unsafe { param.u.immediate_constant };
                        if !n.is_power_of_two() || n > 64 {
                            return Err(ApiError::invalid_argument(format!(
                                "{what}: RASTERIZER_SAMPLE_COUNT {n} is not a sample count (1, 2, 4, ..., 64)"
                            )));
                        }
                        opts.rasterizer_sample_count = Some(n);
                    }
                    _ => {
                        return Err(ApiError::unsupported(format!(
                            "{what}: RASTERIZER_SAMPLE_COUNT as {delivery}; the translator delivers it as a specialization constant or an immediate constant"
                        )));
                    }
                }
            }
            DXBC_SPIRV_PARAMETER_NAME_TESS_FACTOR_LIMIT => {
                return Err(ApiError::unsupported(format!(
                    "{what}: TESS_FACTOR_LIMIT as {delivery}; the translator has no tessellation factor limit parameter yet (factors are clamped to dcl_hs_max_tessfactor and 64)"
                )));
            }
            n => {
                return Err(ApiError::invalid_argument(format!(
                    "{what}: name {n} is not a DXBC_SPIRV_PARAMETER_NAME_*"
                )));
            }
        }
    }
    Ok(())
}

/// Translator options from a translate info and its chain.
fn options(shader: &dxbc_spirv_shader, info: &dxbc_spirv_translate_info) -> ApiResult<Options> {
    chain::expect_type(info.s_type, DXBC_SPIRV_STRUCTURE_TYPE_TRANSLATE_INFO)?;
    let target_env = match info.target_env {
        DXBC_SPIRV_TARGET_ENV_VULKAN_1_1 => TargetEnv::Vulkan1_1,
        DXBC_SPIRV_TARGET_ENV_VULKAN_1_2 => TargetEnv::Vulkan1_2,
        DXBC_SPIRV_TARGET_ENV_VULKAN_1_3 => TargetEnv::Vulkan1_3,
        DXBC_SPIRV_TARGET_ENV_VULKAN_1_0 => TargetEnv::Vulkan1_0,
        t => {
            return Err(ApiError::invalid_argument(format!(
                "target_env {t} is not a DXBC_SPIRV_TARGET_ENV_*"
            )));
        }
    };
    let known = DXBC_SPIRV_TRANSLATE_DEBUG_NAMES
        | DXBC_SPIRV_TRANSLATE_DENORM_FLUSH_F32
        | DXBC_SPIRV_TRANSLATE_D3D9_SOFTWARE_VERTEX_PROCESSING
        | DXBC_SPIRV_TRANSLATE_D3D9_RELAXED_LIMITS
        | DXBC_SPIRV_TRANSLATE_NATIVE_16BIT_MIN_PRECISION
        | DXBC_SPIRV_TRANSLATE_RAW_SRV_TEXEL_BUFFERS
        | DXBC_SPIRV_TRANSLATE_RAW_UAV_TEXEL_BUFFERS
        | DXBC_SPIRV_TRANSLATE_UAV_COUNTER_TEXEL_BUFFERS
        | DXBC_SPIRV_TRANSLATE_TYPED_UAV_READ_R32
        | DXBC_SPIRV_TRANSLATE_DUAL_SOURCE_BLENDING
        | DXBC_SPIRV_TRANSLATE_VERTEX_POINT_SIZE
        | DXBC_SPIRV_TRANSLATE_TESS_GEOM_POINT_SIZE
        | DXBC_SPIRV_TRANSLATE_FLOAT_CONTROLS2;
    if info.flags & !known != 0 {
        return Err(ApiError::invalid_argument(format!(
            "flags {:#x} has bits no DXBC_SPIRV_TRANSLATE_* defines",
            info.flags & !known
        )));
    }
    let mut opts = Options {
        target_env,
        debug_names: info.flags & DXBC_SPIRV_TRANSLATE_DEBUG_NAMES != 0,
        denorm_flush_f32: info.flags & DXBC_SPIRV_TRANSLATE_DENORM_FLUSH_F32 != 0,
        float_controls2: info.flags & DXBC_SPIRV_TRANSLATE_FLOAT_CONTROLS2 != 0,
        d3d9: translator::D3d9Options {
            software_vertex_processing: info.flags
                & DXBC_SPIRV_TRANSLATE_D3D9_SOFTWARE_VERTEX_PROCESSING
                != 0,
            relaxed_limits: info.flags & DXBC_SPIRV_TRANSLATE_D3D9_RELAXED_LIMITS != 0,
            ..Default::default()
        },
        min_precision: if info.flags & DXBC_SPIRV_TRANSLATE_NATIVE_16BIT_MIN_PRECISION != 0 {
            translator::MinPrecisionMode::Native16
        } else {
            translator::MinPrecisionMode::Relaxed32
        },
        texel_buffers: translator::TexelBuffers {
            raw_srv: info.flags & DXBC_SPIRV_TRANSLATE_RAW_SRV_TEXEL_BUFFERS != 0,
            raw_uav: info.flags & DXBC_SPIRV_TRANSLATE_RAW_UAV_TEXEL_BUFFERS != 0,
            uav_counter: info.flags & DXBC_SPIRV_TRANSLATE_UAV_COUNTER_TEXEL_BUFFERS != 0,
        },
        typed_uav_read: if info.flags & DXBC_SPIRV_TRANSLATE_TYPED_UAV_READ_R32 != 0 {
            translator::TypedUavRead::R32
        } else {
            translator::TypedUavRead::WithoutFormat
        },
        dual_source_blending: info.flags & DXBC_SPIRV_TRANSLATE_DUAL_SOURCE_BLENDING != 0,
        point_size: if info.flags & DXBC_SPIRV_TRANSLATE_TESS_GEOM_POINT_SIZE != 0 {
            translator::PointSize::AllStages
        } else if info.flags & DXBC_SPIRV_TRANSLATE_VERTEX_POINT_SIZE != 0 {
            translator::PointSize::Vertex
        } else {
            translator::PointSize::Unwritten
        },
        ..Options::default()
    };
    let mut table: Option<BindingLayout> = None;
    let mut rule_exts: Option<&crate::layer::dxbc_spirv_descriptor_rule_ext_info> = None;
    let mut binding: Option<Binding> = None;
    let mut set_binding = |b: Binding| {
        if binding.replace(b).is_some() {
            return Err(ApiError::invalid_argument(
                "more than one of binding policy, binding table and binding callback (or callback2) is chained",
            ));
        }
        Ok(())
    };
    let allowed = [
        DXBC_SPIRV_STRUCTURE_TYPE_BINDING_POLICY_INFO,
        DXBC_SPIRV_STRUCTURE_TYPE_BINDING_TABLE_INFO,
        DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK_INFO,
        DXBC_SPIRV_STRUCTURE_TYPE_PARAMETER_INFO,
        DXBC_SPIRV_STRUCTURE_TYPE_STREAM_OUTPUT_INFO,
        crate::chain::DXBC_SPIRV_STRUCTURE_TYPE_D3D9_STATE_INFO,
        DXBC_SPIRV_STRUCTURE_TYPE_DESCRIPTOR_RULE_EXT_INFO,
        DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK2_INFO,
        DXBC_SPIRV_STRUCTURE_TYPE_OUTPUT_SWIZZLE_INFO,
        DXBC_SPIRV_STRUCTURE_TYPE_DEVICE_FEATURES_INFO,
    ];
    // SAFETY: caller's promise; each struct is read as the type its s_type names.
    unsafe {
        chain::walk(
            "dxbc_spirv_translate_info",
            info.next,
            &allowed,
            |t, p| match t {
                DXBC_SPIRV_STRUCTURE_TYPE_BINDING_POLICY_INFO => {
                    let b: &dxbc_spirv_binding_policy_info = in_ref(p.cast(), "binding policy")?;
                    let policy = match b.policy {
                        DXBC_SPIRV_BINDING_POLICY_CLASS_OFFSETS => BindingPolicy::ClassOffsets,
                        DXBC_SPIRV_BINDING_POLICY_PER_RANGE => BindingPolicy::PerRange,
                        DXBC_SPIRV_BINDING_POLICY_VKD3D => BindingPolicy::Vkd3d,
                        p => {
                            return Err(ApiError::invalid_argument(format!(
                                "binding policy {p} is not a DXBC_SPIRV_BINDING_POLICY_*"
                            )));
                        }
                    };
                    set_binding(Binding::Policy(policy))
                }
                DXBC_SPIRV_STRUCTURE_TYPE_BINDING_TABLE_INFO => {
                    let t: &dxbc_spirv_binding_table_info = in_ref(p.cast(), "binding table")?;
                    table = Some(layout_from_table(t)?);
                    // Placed below, with the rules' extensions when they are chained.
                    set_binding(Binding::default())
                }
                DXBC_SPIRV_STRUCTURE_TYPE_DESCRIPTOR_RULE_EXT_INFO => {
                    rule_exts = Some(in_ref(p.cast(), "descriptor rule ext info")?);
                    Ok(())
                }
                DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK2_INFO => {
                    let c: &crate::layer::dxbc_spirv_binding_callback2_info =
                        in_ref(p.cast(), "binding callback2 info")?;
                    let callback = c.callback.ok_or_else(|| {
                        ApiError::invalid_argument(
                            "dxbc_spirv_binding_callback2_info.callback is null",
                        )
                    })?;
                    set_binding(Binding::Resolver(ResolverRef(Arc::new(
                        crate::layer::Callback2 {
                            stage: stage(shader.version.stage),
                            callback,
                            user_data: c.user_data,
                        },
                    ))))
                }
                DXBC_SPIRV_STRUCTURE_TYPE_OUTPUT_SWIZZLE_INFO => {
                    let s: &crate::layer::dxbc_spirv_output_swizzle_info =
                        in_ref(p.cast(), "output swizzle info")?;
                    opts.output_swizzles = crate::layer::read_swizzles(s)?;
                    Ok(())
                }
                DXBC_SPIRV_STRUCTURE_TYPE_DEVICE_FEATURES_INFO => {
                    let f: &crate::layer::dxbc_spirv_device_features_info =
                        in_ref(p.cast(), "device features info")?;
                    opts.device_features = Some(crate::layer::read_features(f)?);
                    Ok(())
                }
                DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK_INFO => {
                    let c: &dxbc_spirv_binding_callback_info =
                        in_ref(p.cast(), "binding callback info")?;
                    let callback = c.callback.ok_or_else(|| {
                        ApiError::invalid_argument(
                            "dxbc_spirv_binding_callback_info.callback is null",
                        )
                    })?;
                    set_binding(Binding::Resolver(ResolverRef(Arc::new(Callback {
                        stage: stage(shader.version.stage),
                        callback,
                        user_data: c.user_data,
                    }))))
                }
                DXBC_SPIRV_STRUCTURE_TYPE_PARAMETER_INFO => {
                    let p: &dxbc_spirv_parameter_info = in_ref(p.cast(), "parameter info")?;
                    apply_parameters(p, &mut opts)
                }
                DXBC_SPIRV_STRUCTURE_TYPE_STREAM_OUTPUT_INFO => {
                    let s: &crate::stream_output::dxbc_spirv_stream_output_info =
                        in_ref(p.cast(), "stream output info")?;
                    opts.stream_output = Some(crate::stream_output::read(s)?);
                    Ok(())
                }
                crate::chain::DXBC_SPIRV_STRUCTURE_TYPE_D3D9_STATE_INFO => {
                    let s: &crate::d3d9_state::dxbc_spirv_d3d9_state_info =
                        in_ref(p.cast(), "d3d9 state info")?;
                    opts.d3d9.state = crate::d3d9_state::read(s)?;
                    Ok(())
                }
                _ => Ok(()),
            },
        )?
    };
    match (table, rule_exts) {
        (Some(mut t), exts) => {
            if let Some(e) = exts {
                // SAFETY: caller's promise.
                unsafe { crate::layer::apply_rule_exts(e, &mut t)? };
            }
            binding = Some(Binding::Layout(Arc::new(t)));
        }
        (None, Some(_)) => {
            return Err(ApiError::invalid_argument(
                "dxbc_spirv_descriptor_rule_ext_info is chained without a dxbc_spirv_binding_table_info",
            ));
        }
        (None, None) => {}
    }
    if let Some(b) = binding {
        opts.binding = b;
    }
    Ok(opts)
}

/// Translates a shader to SPIR-V. On success `*spirv` holds the words (free with
/// `dxbc_spirv_free_code`) and, when `reflection` is not null, `*reflection` what the module
/// expects from the pipeline (free with `dxbc_spirv_free_reflection`). On failure `*spirv` is
/// empty and `*reflection` null. `info` may be null for the defaults (Vulkan 1.3, class-offsets
/// bindings, sample count as specialization constant 0).
///
/// # Safety
/// Pointers are null or valid for the access their documentation states.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_translate(
    shader: *const dxbc_spirv_shader,
    info: *const dxbc_spirv_translate_info,
    spirv: *mut dxbc_spirv_code,
    reflection: *mut *mut dxbc_spirv_reflection,
    error_message: *mut *mut c_char,
) -> dxbc_spirv_status {
    guard(error_message, || {
        let out = out_ptr(spirv, "spirv")?;
        // SAFETY: checked writable pointer.
        unsafe {
            out.write(dxbc_spirv_code {
                words: std::ptr::null(),
                word_count: 0,
            })
        };
        let refl_out = if reflection.is_null() {
            None
        } else {
            let r = out_ptr(reflection, "reflection")?;
            // SAFETY: checked writable pointer.
            unsafe { r.write(std::ptr::null_mut()) };
            Some(r)
        };
        // SAFETY: caller's promise.
        let shader = unsafe { dxbc_spirv_shader::from_ptr(shader)? };
        let opts = if info.is_null() {
            Options::default()
        } else {
            // SAFETY: caller's promise.
            options(shader, unsafe { in_ref(info, "info")? })?
        };
        let t = translate_on_this_thread(&shader.bytes, &opts)?;
        let refl = refl_out.map(|r| (r, reflection::build(&t.reflection)));
        let words = t.spirv.into_boxed_slice();
        let word_count = words.len();
        // SAFETY: checked writable pointers.
        unsafe {
            out.write(dxbc_spirv_code {
                words: Box::into_raw(words).cast::<u32>(),
                word_count,
            });
            if let Some((r, b)) = refl {
                r.write(b);
            }
        }
        Ok(())
    })
}

thread_local! {
    /// Each thread's translator: its buffers serve every translation the thread runs.
    static TRANSLATOR: std::cell::RefCell<translator::Translator> =
        std::cell::RefCell::new(translator::Translator::new());
}

/// Translates with this thread's [`TRANSLATOR`], or with a new one when it is busy (a binding
/// callback that translates from inside a translation) or gone (called while the thread's
/// locals are being destroyed).
fn translate_on_this_thread(
    bytes: &[u8],
    opts: &Options,
) -> Result<translator::Translation, translator::Error> {
    TRANSLATOR
        .try_with(|t| match t.try_borrow_mut() {
            Ok(mut t) => t.translate(bytes, opts),
            Err(_) => translator::translate(bytes, opts),
        })
        .unwrap_or_else(|_| translator::translate(bytes, opts))
}

/// Frees the words of a `dxbc_spirv_code` and empties it. Null and empty codes are ignored.
///
/// # Safety
/// `code` is null or a `dxbc_spirv_code` that `dxbc_spirv_translate` filled, unchanged.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_free_code(code: *mut dxbc_spirv_code) {
    if code.is_null() || !code.is_aligned() {
        return;
    }
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: caller's promise.
        let c = unsafe { &mut *code };
        if c.words.is_null() {
            return;
        }
        let slice = std::ptr::slice_from_raw_parts_mut(c.words.cast_mut(), c.word_count);
        // SAFETY: allocated as a `Box<[u32]>` of this length in `dxbc_spirv_translate`.
        drop(unsafe { Box::from_raw(slice) });
        c.words = std::ptr::null();
        c.word_count = 0;
    }));
}
