//! `vkd3d_shader_scan` of DXBC and Direct3D 9 bytecode, and the scan outputs a compile is
//! asked for, answered by the stand-in itself, so that the real library's parser never reads
//! a shader the translator compiles (vkd3d-shader's own scan of a shader it cannot parse may
//! fail or corrupt the heap where the translator has no trouble). Each output structure in the
//! chain is filled: descriptors, resource-sampler pairs, the hull shader's tessellation, the
//! thread-group size, denormal modes and signatures ([`dxbc`] and [`d3d9`] say how each is
//! found). Arrays are `calloc`ed as vkd3d-shader's are, so either library's free functions
//! free them.

pub mod d3d9;
pub mod dxbc;

use translator::reflect::Reflection;

use crate::abi;
use crate::chain::Chain;
use crate::report::Failure;

/// What a scan found, before it is copied out.
#[derive(Debug, Default)]
pub struct Scanned {
    pub descriptors: Vec<abi::DescriptorInfo>,
    pub combined: Vec<abi::CombinedResourceSamplerInfo>,
    /// `vkd3d_shader_tessellator_output_primitive` (0: none declared).
    pub output_primitive: u32,
    /// `vkd3d_shader_tessellator_partitioning` (0: none declared).
    pub partitioning: u32,
    /// `dcl_thread_group` (zeros: none declared).
    pub thread_group: [u32; 3],
}

/// The shader being scanned.
pub enum Source<'a> {
    /// DXBC bytes.
    Dxbc(&'a [u8]),
    /// Direct3D 9 bytes and the translator's reflection of them.
    D3d9(&'a [u8], &'a Reflection),
}

/// Whether samplers' data type is reported as `UINT` (API 1.15 and older; vkd3d's scan
/// assumes 1.2 when the options name none) rather than `NONE`.
pub fn sampler_uint(options: &[abi::CompileOption]) -> bool {
    let api = options
        .iter()
        .rev()
        .find(|o| o.name == abi::OPTION_API_VERSION)
        .map_or(abi::API_VERSION_1_2, |o| o.value);
    api <= abi::API_VERSION_1_15
}

/// `count` elements of `T` copied into a `calloc`ed array (null when empty).
fn calloc_copy<T: Copy>(items: &[T]) -> Result<*mut T, Failure> {
    if items.is_empty() {
        return Ok(std::ptr::null_mut());
    }
    // SAFETY: calloc of `len` elements of T, filled below.
    let p = unsafe { libc::calloc(items.len(), std::mem::size_of::<T>()) }.cast::<T>();
    if p.is_null() {
        return Err(Failure {
            result: abi::VKD3D_ERROR_OUT_OF_MEMORY,
            code: crate::report::E_INTERNAL,
            text: "out of memory for the scan's results".into(),
        });
    }
    // SAFETY: `p` holds `len` elements.
    unsafe { std::ptr::copy_nonoverlapping(items.as_ptr(), p, items.len()) };
    Ok(p)
}

/// Fills every scan output of `chain` (and the signatures, when asked for) for `source`.
/// Nothing is left allocated when it fails.
///
/// # Safety
/// The chain's output structures must be writable where the chain walk's checks pass.
pub unsafe fn fill(
    chain: &Chain,
    source: Source<'_>,
    options: &[abi::CompileOption],
) -> Result<(), Failure> {
    let uint = sampler_uint(options);
    let wants = |ty: u32| chain.scan_outputs.iter().any(|(t, _)| *t == ty);
    let needed = chain.scan_outputs.iter().any(|(t, _)| {
        matches!(
            *t,
            abi::STRUCTURE_TYPE_SCAN_DESCRIPTOR_INFO
                | abi::STRUCTURE_TYPE_SCAN_COMBINED_RESOURCE_SAMPLER_INFO
                | abi::STRUCTURE_TYPE_SCAN_HULL_SHADER_TESSELLATION_INFO
                | abi::STRUCTURE_TYPE_SCAN_THREAD_GROUP_SIZE_INFO
        )
    });
    let scanned = match (&source, needed) {
        (_, false) => Scanned::default(),
        (Source::Dxbc(bytes), true) => dxbc::scan(bytes, uint)?,
        (Source::D3d9(_, r), true) => r
            .d3d9
            .as_ref()
            .map_or_else(Scanned::default, |i| d3d9::scan(i, uint)),
    };
    let descriptors = if wants(abi::STRUCTURE_TYPE_SCAN_DESCRIPTOR_INFO) {
        calloc_copy(&scanned.descriptors)?
    } else {
        std::ptr::null_mut()
    };
    let combined = if wants(abi::STRUCTURE_TYPE_SCAN_COMBINED_RESOURCE_SAMPLER_INFO) {
        match calloc_copy(&scanned.combined) {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: allocated above (or null).
                unsafe { libc::free(descriptors.cast()) };
                return Err(e);
            }
        }
    } else {
        std::ptr::null_mut()
    };
    if let Some(sig) = chain.signature {
        let (bytes, d3d9) = match source {
            Source::Dxbc(b) => (b, None),
            Source::D3d9(b, r) => (b, Some(r)),
        };
        // SAFETY: checked by the chain walk; the caller owns the output.
        if let Err(e) = unsafe { crate::signature::fill(sig, bytes, d3d9) } {
            // SAFETY: allocated above (or null).
            unsafe {
                libc::free(descriptors.cast());
                libc::free(combined.cast());
            }
            return Err(e);
        }
    }
    for &(ty, p) in &chain.scan_outputs {
        // SAFETY: each pointer is the caller's structure of the type its header names,
        // writable (the chain walk checked it is non-null and aligned).
        unsafe {
            match ty {
                abi::STRUCTURE_TYPE_SCAN_DESCRIPTOR_INFO => {
                    let d = p.cast::<abi::ScanDescriptorInfo>();
                    (*d).descriptors = descriptors;
                    (*d).descriptor_count = scanned.descriptors.len() as u32;
                }
                abi::STRUCTURE_TYPE_SCAN_COMBINED_RESOURCE_SAMPLER_INFO => {
                    let c = p.cast::<abi::ScanCombinedResourceSamplerInfo>();
                    (*c).combined_samplers = combined;
                    (*c).combined_sampler_count = scanned.combined.len() as u32;
                }
                abi::STRUCTURE_TYPE_SCAN_HULL_SHADER_TESSELLATION_INFO => {
                    let h = p.cast::<abi::ScanHullShaderTessellationInfo>();
                    (*h).output_primitive = scanned.output_primitive;
                    (*h).partitioning = scanned.partitioning;
                }
                abi::STRUCTURE_TYPE_SCAN_THREAD_GROUP_SIZE_INFO => {
                    let t = p.cast::<abi::ScanThreadGroupSizeInfo>();
                    [(*t).x, (*t).y, (*t).z] = scanned.thread_group;
                }
                // Neither DXBC nor Direct3D 9 bytecode declares how denormals are treated.
                abi::STRUCTURE_TYPE_SCAN_DENORMAL_MODE_INFO => {
                    let m = p.cast::<abi::ScanDenormalModeInfo>();
                    (*m).f16_denormal_mode = abi::DENORMAL_MODE_ANY;
                    (*m).f32_denormal_mode = abi::DENORMAL_MODE_ANY;
                    (*m).f64_denormal_mode = abi::DENORMAL_MODE_ANY;
                }
                _ => {}
            }
        }
    }
    Ok(())
}
