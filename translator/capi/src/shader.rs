//! The shader handle: a copy of the caller's bytecode, checked once, that scan and translate
//! calls read.
//!
//! A layer creates the handle when the application creates the shader (where D3D wants errors
//! reported), scans it there, and translates it later, once per pipeline variant, from any
//! thread: the handle is immutable, so calls on one handle or on several run in parallel.

use std::ffi::{c_char, c_void};

use translator::container::{Container, ShaderVersion};

use crate::chain::{self, DXBC_SPIRV_STRUCTURE_TYPE_SHADER_CREATE_INFO, dxbc_spirv_structure_type};
use crate::status::{ApiError, ApiResult, dxbc_spirv_status, guard, in_ref, in_slice, out_ptr};

/// What the bytes are.
pub type dxbc_spirv_source_type = u32;
/// A DXBC container holding a Shader Model 4.0–5.1 program (SHDR/SHEX chunk).
pub const DXBC_SPIRV_SOURCE_TYPE_DXBC: dxbc_spirv_source_type = 1;
/// Direct3D 9 shader bytecode (SM1–3 token stream, no container). Translated like DXBC;
/// `dxbc_spirv_scan` refuses it with `DXBC_SPIRV_ERROR_UNSUPPORTED` (the translation's
/// reflection describes it).
pub const DXBC_SPIRV_SOURCE_TYPE_D3DBC: dxbc_spirv_source_type = 2;

/// How to create a shader handle.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_shader_create_info {
    /// `DXBC_SPIRV_STRUCTURE_TYPE_SHADER_CREATE_INFO`.
    pub s_type: dxbc_spirv_structure_type,
    /// No struct may be chained here yet (must be null).
    pub next: *const c_void,
    /// A `DXBC_SPIRV_SOURCE_TYPE_*`.
    pub source_type: dxbc_spirv_source_type,
    /// The bytecode; copied, so the caller may free it when the call returns.
    pub code: *const u8,
    /// Its size in bytes.
    pub code_size: usize,
}

const MAGIC: u64 = 0x6478_6263_7370_7276; // "dxbcsprv"
const DEAD: u64 = 0x6465_6164_6465_6164;

/// A checked copy of one shader's bytecode. Opaque to C.
pub struct dxbc_spirv_shader {
    magic: u64,
    pub(crate) bytes: Box<[u8]>,
    pub(crate) version: ShaderVersion,
    /// A Direct3D 9 token stream (`DXBC_SPIRV_SOURCE_TYPE_D3DBC`).
    pub(crate) d3d9: bool,
}

impl dxbc_spirv_shader {
    /// The handle behind a pointer the caller passed, checked as far as possible.
    ///
    /// # Safety
    /// `p` is null or a pointer `dxbc_spirv_shader_create` returned.
    pub(crate) unsafe fn from_ptr<'a>(p: *const dxbc_spirv_shader) -> ApiResult<&'a Self> {
        // SAFETY: caller's promise.
        let s = unsafe { in_ref(p, "shader")? };
        match s.magic {
            MAGIC => Ok(s),
            DEAD => Err(ApiError::invalid_argument(
                "shader was destroyed (use after dxbc_spirv_shader_destroy)",
            )),
            _ => Err(ApiError::invalid_argument(
                "shader is not a handle dxbc_spirv_shader_create returned",
            )),
        }
    }

    fn new(bytes: &[u8]) -> ApiResult<Self> {
        let container = Container::parse(bytes)
            .map_err(|e| ApiError::invalid_shader(format!("container: {e}")))?;
        let chunk = container.shader_chunk().ok_or_else(|| {
            ApiError::invalid_shader(
                "the container has no SHDR or SHEX chunk (DXIL and effects are not translated)",
            )
        })?;
        let version = ShaderVersion::from_program_chunk(chunk)
            .map_err(|e| ApiError::invalid_shader(format!("container: {e}")))?;
        Ok(dxbc_spirv_shader {
            magic: MAGIC,
            bytes: bytes.into(),
            version,
            d3d9: false,
        })
    }

    /// A Direct3D 9 token stream, decoded once to check it.
    fn new_d3d9(bytes: &[u8]) -> ApiResult<Self> {
        let program = translator::d3dbc::decode(bytes)
            .map_err(|e| ApiError::invalid_shader(format!("decode: {e}")))?;
        let v = program.version;
        let stage = match v.stage {
            translator::d3dbc::Stage::Vertex => translator::ShaderStage::Vertex,
            translator::d3dbc::Stage::Pixel => translator::ShaderStage::Pixel,
        };
        Ok(dxbc_spirv_shader {
            magic: MAGIC,
            bytes: bytes.into(),
            version: ShaderVersion {
                stage,
                major: v.major,
                minor: v.minor,
            },
            d3d9: true,
        })
    }
}

/// Copies and checks a shader (container header, chunk table, program version). On success
/// `*shader` is a handle to destroy with `dxbc_spirv_shader_destroy`; on failure it is null.
///
/// # Safety
/// Pointers are null or valid for the access their documentation states.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_shader_create(
    info: *const dxbc_spirv_shader_create_info,
    shader: *mut *mut dxbc_spirv_shader,
    error_message: *mut *mut c_char,
) -> dxbc_spirv_status {
    guard(error_message, || {
        let out = out_ptr(shader, "shader")?;
        // SAFETY: checked writable pointer.
        unsafe { out.write(std::ptr::null_mut()) };
        // SAFETY: caller's promise.
        let info = unsafe { in_ref(info, "info")? };
        chain::expect_type(info.s_type, DXBC_SPIRV_STRUCTURE_TYPE_SHADER_CREATE_INFO)?;
        // SAFETY: caller's promise.
        unsafe {
            chain::walk("dxbc_spirv_shader_create_info", info.next, &[], |_, _| {
                Ok(())
            })?
        };
        let d3d9 = match info.source_type {
            DXBC_SPIRV_SOURCE_TYPE_DXBC => false,
            // Direct3D 9: `dxbc_spirv_translate` detects the token stream itself; `scan::scan`
            // refuses it (its render state is chained as `dxbc_spirv_d3d9_state_info`).
            DXBC_SPIRV_SOURCE_TYPE_D3DBC => true,
            t => {
                return Err(ApiError::invalid_argument(format!(
                    "unknown source type {t}"
                )));
            }
        };
        // SAFETY: caller's promise.
        let bytes = unsafe { in_slice(info.code, info.code_size, "info.code")? };
        let handle = Box::new(if d3d9 {
            dxbc_spirv_shader::new_d3d9(bytes)?
        } else {
            dxbc_spirv_shader::new(bytes)?
        });
        // SAFETY: checked writable pointer.
        unsafe { out.write(Box::into_raw(handle)) };
        Ok(())
    })
}

/// Destroys a shader handle. Null is ignored. The handle must not be in use by another thread.
///
/// # Safety
/// `shader` is null or a handle `dxbc_spirv_shader_create` returned, not yet destroyed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_shader_destroy(shader: *mut dxbc_spirv_shader) {
    if shader.is_null() || !shader.is_aligned() {
        return;
    }
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: caller's promise; the magic check catches some misuse.
        let s = unsafe { &mut *shader };
        if s.magic != MAGIC {
            return;
        }
        // SAFETY: a valid, aligned field of the handle.
        unsafe { std::ptr::write_volatile(&mut s.magic, DEAD) };
        // SAFETY: allocated by `Box::into_raw` in `dxbc_spirv_shader_create`.
        drop(unsafe { Box::from_raw(shader) });
    }));
}
