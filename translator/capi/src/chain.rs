//! The chained input structs and the walk over a chain.
//!
//! Every input struct begins with a structure type and a `next` pointer, as Vulkan's and
//! vkd3d-shader's do, so later versions add structs (and callers add them to a chain) without
//! changing any existing layout. [`walk`] visits a chain once, refusing unknown structure
//! types, repeats and over-long or cyclic chains with an error naming the struct: a caller
//! built against a newer header learns that this library does not know what it asked for
//! instead of being silently ignored.

use std::ffi::c_void;

use crate::status::{ApiError, ApiResult};

/// Identifies an input struct (its first member).
pub type dxbc_spirv_structure_type = u32;

/// `dxbc_spirv_shader_create_info`.
pub const DXBC_SPIRV_STRUCTURE_TYPE_SHADER_CREATE_INFO: dxbc_spirv_structure_type = 1;
/// `dxbc_spirv_translate_info`.
pub const DXBC_SPIRV_STRUCTURE_TYPE_TRANSLATE_INFO: dxbc_spirv_structure_type = 2;
/// `dxbc_spirv_binding_policy_info`.
pub const DXBC_SPIRV_STRUCTURE_TYPE_BINDING_POLICY_INFO: dxbc_spirv_structure_type = 3;
/// `dxbc_spirv_binding_table_info`.
pub const DXBC_SPIRV_STRUCTURE_TYPE_BINDING_TABLE_INFO: dxbc_spirv_structure_type = 4;
/// `dxbc_spirv_binding_callback_info`.
pub const DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK_INFO: dxbc_spirv_structure_type = 5;
/// `dxbc_spirv_parameter_info`.
pub const DXBC_SPIRV_STRUCTURE_TYPE_PARAMETER_INFO: dxbc_spirv_structure_type = 6;
/// `dxbc_spirv_stream_output_info`.
pub const DXBC_SPIRV_STRUCTURE_TYPE_STREAM_OUTPUT_INFO: dxbc_spirv_structure_type = 7;
/// `dxbc_spirv_d3d9_state_info`.
pub const DXBC_SPIRV_STRUCTURE_TYPE_D3D9_STATE_INFO: dxbc_spirv_structure_type = 8;
/// `dxbc_spirv_descriptor_rule_ext_info`.
pub const DXBC_SPIRV_STRUCTURE_TYPE_DESCRIPTOR_RULE_EXT_INFO: dxbc_spirv_structure_type = 9;
/// `dxbc_spirv_binding_callback2_info`.
pub const DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK2_INFO: dxbc_spirv_structure_type = 10;
/// `dxbc_spirv_output_swizzle_info`.
pub const DXBC_SPIRV_STRUCTURE_TYPE_OUTPUT_SWIZZLE_INFO: dxbc_spirv_structure_type = 11;
/// `dxbc_spirv_device_features_info`.
pub const DXBC_SPIRV_STRUCTURE_TYPE_DEVICE_FEATURES_INFO: dxbc_spirv_structure_type = 12;

/// The two members every chained struct starts with.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_chain_header {
    pub s_type: dxbc_spirv_structure_type,
    pub next: *const c_void,
}

/// The name of a structure type, for messages.
pub fn type_name(t: dxbc_spirv_structure_type) -> Option<&'static str> {
    Some(match t {
        DXBC_SPIRV_STRUCTURE_TYPE_SHADER_CREATE_INFO => "dxbc_spirv_shader_create_info",
        DXBC_SPIRV_STRUCTURE_TYPE_TRANSLATE_INFO => "dxbc_spirv_translate_info",
        DXBC_SPIRV_STRUCTURE_TYPE_BINDING_POLICY_INFO => "dxbc_spirv_binding_policy_info",
        DXBC_SPIRV_STRUCTURE_TYPE_BINDING_TABLE_INFO => "dxbc_spirv_binding_table_info",
        DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK_INFO => "dxbc_spirv_binding_callback_info",
        DXBC_SPIRV_STRUCTURE_TYPE_PARAMETER_INFO => "dxbc_spirv_parameter_info",
        DXBC_SPIRV_STRUCTURE_TYPE_STREAM_OUTPUT_INFO => "dxbc_spirv_stream_output_info",
        DXBC_SPIRV_STRUCTURE_TYPE_D3D9_STATE_INFO => "dxbc_spirv_d3d9_state_info",
        DXBC_SPIRV_STRUCTURE_TYPE_DESCRIPTOR_RULE_EXT_INFO => "dxbc_spirv_descriptor_rule_ext_info",
        DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK2_INFO => "dxbc_spirv_binding_callback2_info",
        DXBC_SPIRV_STRUCTURE_TYPE_OUTPUT_SWIZZLE_INFO => "dxbc_spirv_output_swizzle_info",
        DXBC_SPIRV_STRUCTURE_TYPE_DEVICE_FEATURES_INFO => "dxbc_spirv_device_features_info",
        _ => return None,
    })
}

/// Longest chain accepted; longer ones are taken for a cycle.
const MAX_CHAIN: usize = 32;

/// Calls `visit(s_type, pointer)` for each struct chained after a head whose `next` is
/// `next`. `allowed` lists the structure types that may appear (each at most once).
///
/// # Safety
/// Each `next` pointer is null or points to a struct starting with a chain header.
pub unsafe fn walk(
    head: &str,
    mut next: *const c_void,
    allowed: &[dxbc_spirv_structure_type],
    mut visit: impl FnMut(dxbc_spirv_structure_type, *const c_void) -> ApiResult,
) -> ApiResult {
    let mut seen: Vec<dxbc_spirv_structure_type> = Vec::new();
    while !next.is_null() {
        if seen.len() == MAX_CHAIN {
            return Err(ApiError::invalid_argument(format!(
                "the chain after {head} has more than {MAX_CHAIN} structs (a cycle?)"
            )));
        }
        // SAFETY: caller's promise; alignment checked by `in_ref`.
        let h: &dxbc_spirv_chain_header =
            unsafe { crate::status::in_ref(next.cast(), "a chained struct")? };
        let name = type_name(h.s_type);
        if !allowed.contains(&h.s_type) {
            return Err(ApiError::invalid_argument(match name {
                Some(n) => format!("{n} cannot be chained to {head}"),
                None => format!(
                    "unknown structure type {} chained to {head} (a newer API version?)",
                    h.s_type
                ),
            }));
        }
        if seen.contains(&h.s_type) {
            return Err(ApiError::invalid_argument(format!(
                "{} is chained to {head} twice",
                name.unwrap_or("a struct")
            )));
        }
        seen.push(h.s_type);
        visit(h.s_type, next)?;
        next = h.next;
    }
    Ok(())
}

/// Checks the structure type of a struct passed directly.
pub fn expect_type(got: dxbc_spirv_structure_type, want: dxbc_spirv_structure_type) -> ApiResult {
    if got == want {
        return Ok(());
    }
    let want_name = type_name(want).unwrap_or("?");
    Err(ApiError::invalid_argument(format!(
        "{want_name}.s_type is {got}, expected {want} ({})",
        type_name(want)
            .map(|n| format!(
                "DXBC_SPIRV_STRUCTURE_TYPE_{}",
                n["dxbc_spirv_".len()..].to_uppercase()
            ))
            .unwrap_or_default()
    )))
}
