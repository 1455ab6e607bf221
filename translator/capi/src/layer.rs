//! What a D3D12 layer such as vkd3d asks beyond a binding table, in: per-rule dynamic
//! descriptor offsets and mutable bindings (`dxbc_spirv_descriptor_rule_ext_info`, beside a
//! binding table), a binding callback that answers them too (`dxbc_spirv_binding_callback2_info`),
//! per-render-target output swizzles (`dxbc_spirv_output_swizzle_info`) and the device's
//! features (`dxbc_spirv_device_features_info`). Each is a struct of its own, so that the
//! structs of earlier versions stay as they were (`docs/capi.md`).

use std::ffi::c_void;

use translator::binding::{BindingLayout, Placement, RangeRequest, Resolver};
use translator::{DeviceFeatures, SwizzleComponent};

use crate::chain::dxbc_spirv_structure_type;
use crate::enums::*;
use crate::status::{ApiError, ApiResult, in_slice};
use crate::translate::{
    DXBC_SPIRV_BINDING_KIND_DESCRIPTOR, DXBC_SPIRV_BINDING_KIND_PUSH_CONSTANT,
    dxbc_spirv_binding_kind, dxbc_spirv_binding_request,
};

/// `dynamic_offset` value: no dynamic offset.
pub const DXBC_SPIRV_NO_DYNAMIC_OFFSET: u32 = 0xffff_ffff;

/// Placement flag: the binding is mutable (VK_EXT_mutable_descriptor_type); ranges of
/// different descriptor types may share it when every one of them says so.
pub const DXBC_SPIRV_DESCRIPTOR_MUTABLE: u32 = 1 << 0;

/// What a descriptor rule of the chained binding table adds (vkd3d's
/// `vkd3d_shader_descriptor_offset`, and a mutable binding).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_descriptor_rule_ext {
    /// Byte offset (a multiple of 4) in the push-constant block of a `u32` the module adds to
    /// the rule's array elements at run time (a descriptor table's offset in a heap), or
    /// `DXBC_SPIRV_NO_DYNAMIC_OFFSET`. The variables are then runtime arrays.
    pub dynamic_offset: u32,
    /// `DXBC_SPIRV_DESCRIPTOR_*` bits.
    pub flags: u32,
}

/// Per descriptor rule of the binding table chained to the same translate info (the two
/// arrays are parallel; the counts must be equal).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_descriptor_rule_ext_info {
    /// `DXBC_SPIRV_STRUCTURE_TYPE_DESCRIPTOR_RULE_EXT_INFO`.
    pub s_type: dxbc_spirv_structure_type,
    pub next: *const c_void,
    pub rule_count: u32,
    pub rules: *const dxbc_spirv_descriptor_rule_ext,
}

/// The `dynamic_offset` of a rule or answer as the translator's.
fn dynamic_offset(o: u32, what: &str) -> ApiResult<Option<u32>> {
    match o {
        DXBC_SPIRV_NO_DYNAMIC_OFFSET => Ok(None),
        o if o.is_multiple_of(4) && o <= u32::MAX - 4 => Ok(Some(o)),
        o => Err(ApiError::invalid_argument(format!(
            "{what}.dynamic_offset {o} is not a multiple of 4 below 2^32 - 4 (or DXBC_SPIRV_NO_DYNAMIC_OFFSET)"
        ))),
    }
}

fn mutable(flags: u32, what: &str) -> ApiResult<bool> {
    if flags & !DXBC_SPIRV_DESCRIPTOR_MUTABLE != 0 {
        return Err(ApiError::invalid_argument(format!(
            "{what}.flags {flags:#x} has bits no DXBC_SPIRV_DESCRIPTOR_* defines"
        )));
    }
    Ok(flags & DXBC_SPIRV_DESCRIPTOR_MUTABLE != 0)
}

/// Adds the extensions to the table's rules (`layout.descriptors`, in the table's order).
///
/// # Safety
/// `info.rules` is valid for `info.rule_count` elements.
pub(crate) unsafe fn apply_rule_exts(
    info: &dxbc_spirv_descriptor_rule_ext_info,
    layout: &mut BindingLayout,
) -> ApiResult {
    // SAFETY: caller's promise.
    let exts = unsafe { in_slice(info.rules, info.rule_count as usize, "rules")? };
    if exts.len() != layout.descriptors.len() {
        return Err(ApiError::invalid_argument(format!(
            "dxbc_spirv_descriptor_rule_ext_info.rule_count {} differs from the binding table's descriptor_rule_count {}",
            exts.len(),
            layout.descriptors.len()
        )));
    }
    for (i, (e, r)) in exts.iter().zip(&mut layout.descriptors).enumerate() {
        let what = format!("dxbc_spirv_descriptor_rule_ext_info.rules[{i}]");
        r.dynamic_offset = dynamic_offset(e.dynamic_offset, &what)?;
        r.mutable = mutable(e.flags, &what)?;
    }
    layout
        .validate()
        .map_err(|e| ApiError::invalid_argument(e.to_string()))
}

/// The second callback's answer: `dxbc_spirv_binding`'s members, then a dynamic offset and
/// flags. The library fills it with defaults before each call (a descriptor at set 0, binding
/// 0, element 0, `DXBC_SPIRV_NO_DYNAMIC_OFFSET`, no flags), so a callback sets only what it
/// places.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_binding2 {
    /// A `DXBC_SPIRV_BINDING_KIND_*`.
    pub kind: dxbc_spirv_binding_kind,
    pub set: u32,
    pub binding: u32,
    pub array_offset: u32,
    pub push_constant_offset: u32,
    pub push_constant_size: u32,
    /// As in `dxbc_spirv_descriptor_rule_ext` (descriptors only).
    pub dynamic_offset: u32,
    /// `DXBC_SPIRV_DESCRIPTOR_*` bits (descriptors only).
    pub flags: u32,
}

/// Where a range goes: the callback of `dxbc_spirv_binding_callback2_info`. Fill `*binding`
/// and return nonzero, or return 0 to refuse the range (as `dxbc_spirv_binding_callback`).
pub type dxbc_spirv_binding_callback2 = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        request: *const dxbc_spirv_binding_request,
        binding: *mut dxbc_spirv_binding2,
    ) -> crate::dxbc_spirv_bool,
>;

/// Places bindings by asking the caller, whose answers may carry dynamic offsets and mutable
/// bindings (one of policy, table, callback and callback2 per translation).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_binding_callback2_info {
    /// `DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK2_INFO`.
    pub s_type: dxbc_spirv_structure_type,
    pub next: *const c_void,
    pub callback: dxbc_spirv_binding_callback2,
    /// Passed to the callback as it is.
    pub user_data: *mut c_void,
}

/// The caller's second callback as a translator [`Resolver`].
pub(crate) struct Callback2 {
    pub stage: dxbc_spirv_stage,
    pub callback: unsafe extern "C" fn(
        *mut c_void,
        *const dxbc_spirv_binding_request,
        *mut dxbc_spirv_binding2,
    ) -> crate::dxbc_spirv_bool,
    pub user_data: *mut c_void,
}

// SAFETY: the resolver lives in the `Options` of one call and is only used on the calling
// thread during that call; the pointers are the caller's, used as the caller asked.
unsafe impl Send for Callback2 {}
// SAFETY: as above.
unsafe impl Sync for Callback2 {}

impl Resolver for Callback2 {
    fn place(&self, r: &RangeRequest) -> Result<Placement, String> {
        let request = crate::translate::request(self.stage, r);
        let mut out = dxbc_spirv_binding2 {
            kind: DXBC_SPIRV_BINDING_KIND_DESCRIPTOR,
            set: 0,
            binding: 0,
            array_offset: 0,
            push_constant_offset: 0,
            push_constant_size: 0,
            dynamic_offset: DXBC_SPIRV_NO_DYNAMIC_OFFSET,
            flags: 0,
        };
        // SAFETY: the caller's function, called as its documentation says.
        let accepted = unsafe { (self.callback)(self.user_data, &request, &mut out) };
        if accepted == 0 {
            return Err("the binding callback refused it".into());
        }
        match out.kind {
            DXBC_SPIRV_BINDING_KIND_DESCRIPTOR => Ok(Placement::Descriptor {
                set: out.set,
                binding: out.binding,
                array_offset: out.array_offset,
                dynamic_offset: dynamic_offset(out.dynamic_offset, "the binding callback's answer")
                    .map_err(|e| e.message)?,
                mutable: mutable(out.flags, "the binding callback's answer")
                    .map_err(|e| e.message)?,
            }),
            DXBC_SPIRV_BINDING_KIND_PUSH_CONSTANT => crate::translate::push_placement(
                r,
                out.push_constant_offset,
                out.push_constant_size,
            ),
            k => Err(format!(
                "the binding callback returned kind {k}, which is not a DXBC_SPIRV_BINDING_KIND_*"
            )),
        }
    }
}

/// Per render target, the swizzle of a pixel shader's colour before it is written
/// (vkd3d-shader's `output_swizzles`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_output_swizzle_info {
    /// `DXBC_SPIRV_STRUCTURE_TYPE_OUTPUT_SWIZZLE_INFO`.
    pub s_type: dxbc_spirv_structure_type,
    pub next: *const c_void,
    /// Render targets 0 .. `swizzle_count` (at most 8); later ones are written as they are.
    pub swizzle_count: u32,
    /// Per render target: bits `8c .. 8c + 7` name the component (0 = x .. 3 = w) of the
    /// shader's colour that component `c` of the output gets (vkd3d-shader's swizzle
    /// packing: `0x03020100` is the identity, `0x02010003` moves alpha to red).
    pub swizzles: *const u32,
}

/// The translator's swizzles from the C struct.
///
/// # Safety
/// `info.swizzles` is valid for `info.swizzle_count` elements.
pub(crate) unsafe fn read_swizzles(
    info: &dxbc_spirv_output_swizzle_info,
) -> ApiResult<Vec<[SwizzleComponent; 4]>> {
    if info.swizzle_count > 8 {
        return Err(ApiError::invalid_argument(format!(
            "dxbc_spirv_output_swizzle_info.swizzle_count {} is more than the 8 render targets",
            info.swizzle_count
        )));
    }
    // SAFETY: caller's promise.
    let words = unsafe { in_slice(info.swizzles, info.swizzle_count as usize, "swizzles")? };
    words
        .iter()
        .enumerate()
        .map(|(i, &w)| {
            let mut s = [SwizzleComponent::X; 4];
            for (c, out) in s.iter_mut().enumerate() {
                *out = SwizzleComponent::from_index((w >> (8 * c)) & 0xff).ok_or_else(|| {
                    ApiError::invalid_argument(format!(
                        "dxbc_spirv_output_swizzle_info.swizzles[{i}] {w:#010x}: component {c} is not 0-3"
                    ))
                })?;
            }
            Ok(s)
        })
        .collect()
}

/// The device offers 64-bit floats (`shaderFloat64`).
pub const DXBC_SPIRV_DEVICE_FEATURE_FLOAT64: u32 = 1 << 0;
/// The device offers 64-bit integers (`shaderInt64`).
pub const DXBC_SPIRV_DEVICE_FEATURE_INT64: u32 = 1 << 1;
/// The device offers subgroup (wave) operations; no SM4-5 or D3D9 instruction needs them.
pub const DXBC_SPIRV_DEVICE_FEATURE_WAVE_OPS: u32 = 1 << 2;
/// The device zero-initialises workgroup memory (`shaderZeroInitializeWorkgroupMemory`).
pub const DXBC_SPIRV_DEVICE_FEATURE_ZERO_INITIALIZE_WORKGROUP_MEMORY: u32 = 1 << 3;

/// What the device offers (vkd3d-shader's compile feature flags). Without it the translator
/// assumes its defaults; with it, a program that needs a feature not listed is refused with
/// `DXBC_SPIRV_ERROR_UNSUPPORTED` naming the feature, and thread-group shared memory is
/// zero-initialised exactly when `ZERO_INITIALIZE_WORKGROUP_MEMORY` is set.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_device_features_info {
    /// `DXBC_SPIRV_STRUCTURE_TYPE_DEVICE_FEATURES_INFO`.
    pub s_type: dxbc_spirv_structure_type,
    pub next: *const c_void,
    /// `DXBC_SPIRV_DEVICE_FEATURE_*` bits.
    pub features: u32,
}

/// The translator's device features from the C struct.
pub(crate) fn read_features(info: &dxbc_spirv_device_features_info) -> ApiResult<DeviceFeatures> {
    let f = info.features;
    let known = DXBC_SPIRV_DEVICE_FEATURE_FLOAT64
        | DXBC_SPIRV_DEVICE_FEATURE_INT64
        | DXBC_SPIRV_DEVICE_FEATURE_WAVE_OPS
        | DXBC_SPIRV_DEVICE_FEATURE_ZERO_INITIALIZE_WORKGROUP_MEMORY;
    if f & !known != 0 {
        return Err(ApiError::invalid_argument(format!(
            "dxbc_spirv_device_features_info.features {:#x} has bits no DXBC_SPIRV_DEVICE_FEATURE_* defines",
            f & !known
        )));
    }
    Ok(DeviceFeatures {
        float64: f & DXBC_SPIRV_DEVICE_FEATURE_FLOAT64 != 0,
        int64: f & DXBC_SPIRV_DEVICE_FEATURE_INT64 != 0,
        wave_ops: f & DXBC_SPIRV_DEVICE_FEATURE_WAVE_OPS != 0,
        zero_initialize_workgroup_memory: f
            & DXBC_SPIRV_DEVICE_FEATURE_ZERO_INITIALIZE_WORKGROUP_MEMORY
            != 0,
    })
}
