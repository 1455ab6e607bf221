//! Reading what a caller passed: the chain of structures behind `compile_info->next`, and the
//! arrays and strings they point to, checked before use (null, alignment, count) so that a
//! hostile caller gets `VKD3D_ERROR_INVALID_ARGUMENT` rather than a crash where the check can
//! tell (a pointer into unmapped memory cannot be told from a good one, as in any C API).

use std::ffi::{CStr, c_char, c_void};

use crate::abi::{self, Header};
use crate::report::Failure;

/// The most structures a chain may have (vkd3d defines 16 kinds; each may appear once).
const MAX_CHAIN: usize = 32;

/// The structures of one compile's chain, by kind.
#[derive(Default)]
pub struct Chain {
    pub interface: Option<*const abi::InterfaceInfo>,
    pub offsets: Option<*const abi::DescriptorOffsetInfo>,
    pub target: Option<*const abi::SpirvTargetInfo>,
    pub domain: Option<*const abi::SpirvDomainShaderTargetInfo>,
    pub xfb: Option<*const abi::TransformFeedbackInfo>,
    pub parameters: Option<*const abi::ParameterInfo>,
    pub d3dbc: Option<*const abi::D3dbcSourceInfo>,
    pub varying_map: bool,
    /// Output structures a compile fills: the signatures (the stand-in fills these itself).
    pub signature: Option<*mut abi::ScanSignatureInfo>,
    /// The other scan outputs (descriptors, combined samplers, hull-shader tessellation,
    /// thread-group size, denormal modes): structure type and where it is ([`crate::scan`]
    /// fills them).
    pub scan_outputs: Vec<(u32, *mut c_void)>,
    /// HLSL-only structures present (no meaning for bytecode).
    pub hlsl_only: Vec<u32>,
}

fn type_name(ty: u32) -> &'static str {
    match ty {
        abi::STRUCTURE_TYPE_COMPILE_INFO => "compile_info",
        abi::STRUCTURE_TYPE_INTERFACE_INFO => "interface_info",
        abi::STRUCTURE_TYPE_SCAN_DESCRIPTOR_INFO => "scan_descriptor_info",
        abi::STRUCTURE_TYPE_SPIRV_DOMAIN_SHADER_TARGET_INFO => "spirv_domain_shader_target_info",
        abi::STRUCTURE_TYPE_SPIRV_TARGET_INFO => "spirv_target_info",
        abi::STRUCTURE_TYPE_TRANSFORM_FEEDBACK_INFO => "transform_feedback_info",
        abi::STRUCTURE_TYPE_HLSL_SOURCE_INFO => "hlsl_source_info",
        abi::STRUCTURE_TYPE_PREPROCESS_INFO => "preprocess_info",
        abi::STRUCTURE_TYPE_DESCRIPTOR_OFFSET_INFO => "descriptor_offset_info",
        abi::STRUCTURE_TYPE_SCAN_SIGNATURE_INFO => "scan_signature_info",
        abi::STRUCTURE_TYPE_VARYING_MAP_INFO => "varying_map_info",
        abi::STRUCTURE_TYPE_SCAN_COMBINED_RESOURCE_SAMPLER_INFO => {
            "scan_combined_resource_sampler_info"
        }
        abi::STRUCTURE_TYPE_PARAMETER_INFO => "parameter_info",
        abi::STRUCTURE_TYPE_SCAN_HULL_SHADER_TESSELLATION_INFO => {
            "scan_hull_shader_tessellation_info"
        }
        abi::STRUCTURE_TYPE_SCAN_THREAD_GROUP_SIZE_INFO => "scan_thread_group_size_info",
        abi::STRUCTURE_TYPE_D3DBC_SOURCE_INFO => "d3dbc_source_info",
        abi::STRUCTURE_TYPE_SCAN_DENORMAL_MODE_INFO => "scan_denormal_mode_info",
        _ => "unknown",
    }
}

/// Checks that `p` is non-null and aligned for `T`.
pub fn check_ptr<T>(p: *const T, what: &str) -> Result<(), Failure> {
    if p.is_null() {
        return Err(Failure::invalid_argument(format!(
            "{what} is a null pointer"
        )));
    }
    if !(p as usize).is_multiple_of(std::mem::align_of::<T>()) {
        return Err(Failure::invalid_argument(format!(
            "{what} ({p:p}) is not aligned for its type"
        )));
    }
    Ok(())
}

/// The array `(p, count)` as a slice: empty when `count` is 0 (whatever `p`), else `p` must be
/// non-null and aligned and the array's size must fit in memory.
///
/// # Safety
/// When the checks pass, `p` must point to `count` valid elements that outlive `'a`.
pub unsafe fn slice<'a, T>(p: *const T, count: u32, what: &str) -> Result<&'a [T], Failure> {
    if count == 0 {
        return Ok(&[]);
    }
    check_ptr(p, what)?;
    if (count as usize)
        .checked_mul(std::mem::size_of::<T>())
        .is_none_or(|n| n > isize::MAX as usize)
    {
        return Err(Failure::invalid_argument(format!(
            "{what} has {count} elements, more than memory holds"
        )));
    }
    // SAFETY: checked non-null and aligned; the caller vouches for the elements.
    Ok(unsafe { std::slice::from_raw_parts(p, count as usize) })
}

/// A C string, or `None` for null.
///
/// # Safety
/// A non-null `p` must point to a NUL-terminated string.
pub unsafe fn c_str<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller vouches for the string.
    Some(
        unsafe { CStr::from_ptr(p) }
            .to_str()
            .unwrap_or("<not UTF-8>"),
    )
}

impl Chain {
    /// Walks the chain from `next` (the compile info's), sorting the structures by kind.
    /// Refuses unknown structure types, a structure kind given twice, a chain that loops or
    /// is longer than any vkd3d defines, and null or misaligned links.
    ///
    /// # Safety
    /// Every non-null, aligned link must point to a structure of the kind its `type` names.
    pub unsafe fn walk(mut next: *const c_void) -> Result<Chain, Failure> {
        let mut c = Chain::default();
        let mut seen: Vec<*const c_void> = Vec::new();
        while !next.is_null() {
            if seen.len() >= MAX_CHAIN || seen.contains(&next) {
                return Err(Failure::invalid_argument(
                    "the chain of structures after compile_info loops or is longer than \
                     vkd3d defines",
                ));
            }
            seen.push(next);
            let h = next.cast::<Header>();
            check_ptr(h, "a chained structure")?;
            // SAFETY: non-null and aligned; every chained structure starts with this header.
            let Header { ty, next: after } = unsafe { *h };
            let dup = || {
                Failure::invalid_argument(format!(
                    "the chain holds two {} structures",
                    type_name(ty)
                ))
            };
            macro_rules! put {
                ($field:ident, $t:ty) => {{
                    if c.$field.is_some() {
                        return Err(dup());
                    }
                    check_ptr(next.cast::<$t>(), type_name(ty))?;
                    c.$field = Some(next.cast());
                }};
            }
            match ty {
                abi::STRUCTURE_TYPE_INTERFACE_INFO => put!(interface, abi::InterfaceInfo),
                abi::STRUCTURE_TYPE_DESCRIPTOR_OFFSET_INFO => {
                    put!(offsets, abi::DescriptorOffsetInfo)
                }
                abi::STRUCTURE_TYPE_SPIRV_TARGET_INFO => put!(target, abi::SpirvTargetInfo),
                abi::STRUCTURE_TYPE_SPIRV_DOMAIN_SHADER_TARGET_INFO => {
                    put!(domain, abi::SpirvDomainShaderTargetInfo)
                }
                abi::STRUCTURE_TYPE_TRANSFORM_FEEDBACK_INFO => {
                    put!(xfb, abi::TransformFeedbackInfo)
                }
                abi::STRUCTURE_TYPE_PARAMETER_INFO => put!(parameters, abi::ParameterInfo),
                abi::STRUCTURE_TYPE_D3DBC_SOURCE_INFO => put!(d3dbc, abi::D3dbcSourceInfo),
                abi::STRUCTURE_TYPE_SCAN_SIGNATURE_INFO => {
                    if c.signature.is_some() {
                        return Err(dup());
                    }
                    check_ptr(next.cast::<abi::ScanSignatureInfo>(), type_name(ty))?;
                    c.signature = Some(next.cast::<abi::ScanSignatureInfo>().cast_mut());
                }
                abi::STRUCTURE_TYPE_VARYING_MAP_INFO => {
                    if c.varying_map {
                        return Err(dup());
                    }
                    c.varying_map = true;
                }
                abi::STRUCTURE_TYPE_SCAN_DESCRIPTOR_INFO
                | abi::STRUCTURE_TYPE_SCAN_COMBINED_RESOURCE_SAMPLER_INFO
                | abi::STRUCTURE_TYPE_SCAN_HULL_SHADER_TESSELLATION_INFO
                | abi::STRUCTURE_TYPE_SCAN_THREAD_GROUP_SIZE_INFO
                | abi::STRUCTURE_TYPE_SCAN_DENORMAL_MODE_INFO => {
                    if c.scan_outputs.iter().any(|(t, _)| *t == ty) {
                        return Err(dup());
                    }
                    // Aligned as the header is: every one starts with it.
                    let p = next.cast_mut();
                    c.scan_outputs.push((ty, p));
                }
                abi::STRUCTURE_TYPE_HLSL_SOURCE_INFO | abi::STRUCTURE_TYPE_PREPROCESS_INFO => {
                    c.hlsl_only.push(ty);
                }
                _ => {
                    return Err(Failure::invalid_argument(format!(
                        "unknown structure type {ty} in the chain after compile_info{}",
                        if ty == abi::STRUCTURE_TYPE_COMPILE_INFO {
                            " (a second compile_info)"
                        } else {
                            ""
                        }
                    )));
                }
            }
            next = after;
        }
        Ok(c)
    }
}

/// The name of a structure type, for messages.
pub fn structure_name(ty: u32) -> &'static str {
    type_name(ty)
}
