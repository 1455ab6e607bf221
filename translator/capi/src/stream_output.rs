//! Stream output (transform feedback) in: D3D's stream-output declaration
//! (`D3D11_SO_DECLARATION_ENTRY`s, buffer strides, rasterized stream), chained to the
//! translate info as `dxbc_spirv_stream_output_info`. The translator checks it against the
//! shader; a declaration that does not fit is `DXBC_SPIRV_ERROR_INVALID_ARGUMENT` naming the
//! entry, as D3D answers `E_INVALIDARG`.

use std::ffi::{CStr, c_char, c_void};

use translator::{StreamOutput, StreamOutputEntry};

use crate::chain::dxbc_spirv_structure_type;
use crate::status::{ApiError, ApiResult, in_slice};

/// `rasterized_stream` value: nothing is rasterized (`D3D11_SO_NO_RASTERIZED_STREAM`).
pub const DXBC_SPIRV_NO_RASTERIZED_STREAM: u32 = 0xffff_ffff;

/// One `D3D11_SO_DECLARATION_ENTRY` / `D3D12_SO_DECLARATION_ENTRY` (members widened to 32 bits).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_stream_output_entry {
    /// The geometry shader stream (0 for vertex and domain shaders).
    pub stream: u32,
    /// The output's semantic (case-insensitive); null or `"$SKIP"`: a gap of
    /// `component_count` components, left unwritten.
    pub semantic_name: *const c_char,
    pub semantic_index: u32,
    /// First component written, counted from the output's own first component (0 = its x).
    pub start_component: u32,
    /// Components written (1-4).
    pub component_count: u32,
    /// The buffer (0-3).
    pub output_slot: u32,
}

/// A stream-output declaration for a vertex, domain or geometry shader: the module gets the
/// `Xfb` execution mode and `XfbBuffer`/`XfbStride`/`Offset` decorations, the reflection the
/// layout (`xfb_*`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_stream_output_info {
    /// `DXBC_SPIRV_STRUCTURE_TYPE_STREAM_OUTPUT_INFO`.
    pub s_type: dxbc_spirv_structure_type,
    pub next: *const c_void,
    pub entry_count: u32,
    pub entries: *const dxbc_spirv_stream_output_entry,
    /// Bytes per vertex of buffers `0..buffer_stride_count` (at most 4); a 0 stride, or a
    /// buffer past the count, packs its entries tightly.
    pub buffer_stride_count: u32,
    pub buffer_strides: *const u32,
    /// The stream the rasterizer draws (0-3), or `DXBC_SPIRV_NO_RASTERIZED_STREAM`.
    pub rasterized_stream: u32,
}

/// The translator's declaration from the C struct.
///
/// # Safety
/// The pointers in `info` are valid for the counts given, and each non-null semantic name is a
/// NUL-terminated string.
pub(crate) unsafe fn read(info: &dxbc_spirv_stream_output_info) -> ApiResult<StreamOutput> {
    // SAFETY: caller's promise.
    let entries = unsafe {
        in_slice(
            info.entries,
            info.entry_count as usize,
            "dxbc_spirv_stream_output_info.entries",
        )?
    };
    if info.buffer_stride_count > 4 {
        return Err(ApiError::invalid_argument(format!(
            "dxbc_spirv_stream_output_info.buffer_stride_count is {} (at most 4 buffers)",
            info.buffer_stride_count
        )));
    }
    // SAFETY: caller's promise.
    let given = unsafe {
        in_slice(
            info.buffer_strides,
            info.buffer_stride_count as usize,
            "dxbc_spirv_stream_output_info.buffer_strides",
        )?
    };
    let mut strides = [0u32; 4];
    strides[..given.len()].copy_from_slice(given);
    let small = |i: usize, what: &str, v: u32| {
        u8::try_from(v).map_err(|_| {
            ApiError::invalid_argument(format!(
                "dxbc_spirv_stream_output_info.entries[{i}].{what} is {v}"
            ))
        })
    };
    let mut out = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let semantic_name = if e.semantic_name.is_null() {
            None
        } else {
            // SAFETY: caller's promise (NUL-terminated).
            let s = unsafe { CStr::from_ptr(e.semantic_name) };
            Some(
                s.to_str()
                    .map_err(|_| {
                        ApiError::invalid_argument(format!(
                            "dxbc_spirv_stream_output_info.entries[{i}].semantic_name is not UTF-8"
                        ))
                    })?
                    .to_string(),
            )
        };
        out.push(StreamOutputEntry {
            stream: e.stream,
            semantic_name,
            semantic_index: e.semantic_index,
            start_component: small(i, "start_component", e.start_component)?,
            component_count: small(i, "component_count", e.component_count)?,
            output_slot: e.output_slot,
        });
    }
    Ok(StreamOutput {
        entries: out,
        strides,
        rasterized_stream: (info.rasterized_stream != DXBC_SPIRV_NO_RASTERIZED_STREAM)
            .then_some(info.rasterized_stream),
    })
}
