//! The library's exports: vkd3d-shader 2.1's 23 functions, each as `dxbc_spirv_shim_NAME`
//! (build.rs versions them `vkd3d_shader_NAME@@VKD3D_1_0`). `vkd3d_shader_compile` of DXBC
//! and Direct3D 9 bytecode to SPIR-V runs the translator and `vkd3d_shader_scan` of such
//! bytecode the stand-in's scan ([`crate::scan`]); the free functions of what the stand-in
//! allocates are `free` as vkd3d's are; everything else is forwarded to the real library
//! ([`crate::real`]). No panic crosses the boundary.

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::Ordering;

use crate::abi::{self, Code, CompileInfo, LogFn};
use crate::chain::{Chain, c_str, check_ptr};
use crate::report::{self, Failure, STATS};
use crate::{compile, real};

/// The environment variable that lets a refused shader go to the real compiler (off unless
/// it is `1`).
pub const ENV_FORWARD_REFUSED: &str = "DXBC_SPIRV_VKD3D_FORWARD_REFUSED";

/// Runs `f`, turning a panic into `on_panic` (and a log line).
fn guard<R>(what: &str, on_panic: R, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            report::log(&format!("internal error (panic) in {what}"));
            on_panic
        }
    }
}

/// Declares forwarded exports: the export's name, the real function's name (NUL-terminated),
/// its C parameters and result, and what it returns when the real library cannot be reached.
macro_rules! forward {
    ($(fn $name:ident = $real:literal ($($arg:ident: $ty:ty),*) -> $ret:ty = $fallback:expr;)*) => {$(
        #[doc = concat!("Forwards `", $real, "` to the real library.")]
        ///
        /// # Safety
        /// As the real function's.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
            type F = unsafe extern "C" fn($($ty),*) -> $ret;
            // SAFETY: F is the function's C type (vkd3d_shader.h).
            match unsafe { real::function::<F>(concat!($real, "\0").as_bytes()) } {
                // SAFETY: the caller's arguments, passed on.
                Some(f) => unsafe { f($($arg),*) },
                None => $fallback,
            }
        }
    )*};
}

type P = *mut c_void;
type CP = *const c_void;
type Msgs = *mut *mut c_char;
const NOT_IMPL: c_int = abi::VKD3D_ERROR_NOT_IMPLEMENTED;

forward! {
    fn dxbc_spirv_shim_get_version = "vkd3d_shader_get_version"
        (major: *mut c_uint, minor: *mut c_uint) -> *const c_char =
        c"vkd3d-shader (dxbc-spirv stand-in; the real library was not found)".as_ptr();
    fn dxbc_spirv_shim_get_supported_source_types = "vkd3d_shader_get_supported_source_types"
        (count: *mut c_uint) -> *const c_uint = no_types(count);
    fn dxbc_spirv_shim_get_supported_target_types = "vkd3d_shader_get_supported_target_types"
        (source_type: c_uint, count: *mut c_uint) -> *const c_uint = no_types(count);
    fn dxbc_spirv_shim_parse_root_signature = "vkd3d_shader_parse_root_signature"
        (dxbc: *const Code, root_signature: P, messages: Msgs) -> c_int = NOT_IMPL;
    fn dxbc_spirv_shim_free_root_signature = "vkd3d_shader_free_root_signature"
        (root_signature: P) -> () = ();
    fn dxbc_spirv_shim_serialize_root_signature = "vkd3d_shader_serialize_root_signature"
        (root_signature: CP, dxbc: *mut Code, messages: Msgs) -> c_int = NOT_IMPL;
    fn dxbc_spirv_shim_convert_root_signature = "vkd3d_shader_convert_root_signature"
        (dst: P, version: c_uint, src: CP) -> c_int = NOT_IMPL;
    fn dxbc_spirv_shim_parse_input_signature = "vkd3d_shader_parse_input_signature"
        (dxbc: *const Code, signature: P, messages: Msgs) -> c_int = NOT_IMPL;
    fn dxbc_spirv_shim_find_signature_element = "vkd3d_shader_find_signature_element"
        (signature: CP, semantic_name: *const c_char, semantic_index: c_uint,
         stream_index: c_uint) -> P = std::ptr::null_mut();
    fn dxbc_spirv_shim_free_shader_signature = "vkd3d_shader_free_shader_signature"
        (signature: P) -> () = ();
    fn dxbc_spirv_shim_preprocess = "vkd3d_shader_preprocess"
        (compile_info: *const CompileInfo, out: *mut Code, messages: Msgs) -> c_int = NOT_IMPL;
    fn dxbc_spirv_shim_free_dxbc = "vkd3d_shader_free_dxbc" (dxbc: P) -> () = ();
    fn dxbc_spirv_shim_parse_dxbc = "vkd3d_shader_parse_dxbc"
        (dxbc: *const Code, flags: u32, desc: P, messages: Msgs) -> c_int = NOT_IMPL;
    fn dxbc_spirv_shim_serialize_dxbc = "vkd3d_shader_serialize_dxbc"
        (section_count: usize, sections: CP, dxbc: *mut Code, messages: Msgs) -> c_int = NOT_IMPL;
    fn dxbc_spirv_shim_build_varying_map = "vkd3d_shader_build_varying_map"
        (output_signature: CP, input_signature: CP, count: *mut c_uint, varyings: P) -> () = ();
}

/// The fallback of the supported-type queries: none.
fn no_types(count: *mut c_uint) -> *const c_uint {
    if !count.is_null() {
        // SAFETY: the caller passes a writable count.
        unsafe { *count = 0 };
    }
    std::ptr::null()
}

/// `vkd3d_shader_set_log_callback`: the stand-in logs through it too.
///
/// # Safety
/// As vkd3d's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_shim_set_log_callback(callback: LogFn) {
    report::set_log_callback(callback);
    type F = unsafe extern "C" fn(LogFn);
    // SAFETY: the function's C type.
    if let Some(f) = unsafe { real::function::<F>(b"vkd3d_shader_set_log_callback\0") } {
        // SAFETY: passed on.
        unsafe { f(callback) };
    }
}

/// `vkd3d_shader_free_messages`: `free`, as vkd3d's (both libraries `malloc` messages).
///
/// # Safety
/// `messages` must be null or a message either library returned.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_shim_free_messages(messages: *mut c_char) {
    // SAFETY: malloc'ed or null.
    unsafe { libc::free(messages.cast()) };
}

/// `vkd3d_shader_free_shader_code`: `free`s `code->code`, as vkd3d's.
///
/// # Safety
/// `code` must be null or hold code either library returned (or null code).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_shim_free_shader_code(code: *mut Code) {
    if code.is_null() || check_ptr(code, "code").is_err() {
        return;
    }
    // SAFETY: checked; the code is malloc'ed or null.
    unsafe { libc::free((*code).code.cast_mut()) };
}

/// `vkd3d_shader_free_scan_signature_info`: frees the three signatures as vkd3d 2.x does
/// (each element's name, then the elements), which is how both the stand-in and the real
/// library's scan allocate them.
///
/// # Safety
/// `info` must be null or hold signatures either library filled.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_shim_free_scan_signature_info(
    info: *mut abi::ScanSignatureInfo,
) {
    if info.is_null() || check_ptr(info, "info").is_err() {
        return;
    }
    // SAFETY: checked; the signatures are ours or vkd3d's, allocated alike.
    unsafe {
        for s in [
            &mut (*info).input,
            &mut (*info).output,
            &mut (*info).patch_constant,
        ] {
            crate::signature::free(s.elements, s.element_count);
            s.elements = std::ptr::null_mut();
            s.element_count = 0;
        }
    }
}

/// `vkd3d_shader_free_scan_descriptor_info`: `free`s the descriptors, as vkd3d's.
///
/// # Safety
/// `info` must be null or hold descriptors either library's scan returned (or none).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_shim_free_scan_descriptor_info(
    info: *mut abi::ScanDescriptorInfo,
) {
    if info.is_null() || check_ptr(info, "info").is_err() {
        return;
    }
    // SAFETY: checked; the array is calloc'ed or null.
    unsafe {
        libc::free((*info).descriptors.cast());
        (*info).descriptors = std::ptr::null_mut();
        (*info).descriptor_count = 0;
    }
}

/// `vkd3d_shader_free_scan_combined_resource_sampler_info`: `free`s the pairs, as vkd3d's.
///
/// # Safety
/// `info` must be null or hold pairs either library's scan returned (or none).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_shim_free_scan_combined_resource_sampler_info(
    info: *mut abi::ScanCombinedResourceSamplerInfo,
) {
    if info.is_null() || check_ptr(info, "info").is_err() {
        return;
    }
    // SAFETY: checked; the array is calloc'ed or null.
    unsafe {
        libc::free((*info).combined_samplers.cast());
        (*info).combined_samplers = std::ptr::null_mut();
        (*info).combined_sampler_count = 0;
    }
}

/// Calls the real `vkd3d_shader_scan`.
///
/// # Safety
/// As vkd3d's.
unsafe fn real_scan(info: *const CompileInfo, messages: Msgs) -> c_int {
    type F = unsafe extern "C" fn(*const CompileInfo, Msgs) -> c_int;
    // SAFETY: the function's C type.
    match unsafe { real::function::<F>(b"vkd3d_shader_scan\0") } {
        // SAFETY: passed on.
        Some(f) => unsafe { f(info, messages) },
        None => NOT_IMPL,
    }
}

/// `vkd3d_shader_scan`: DXBC and Direct3D 9 bytecode scanned by the stand-in, the rest
/// forwarded.
///
/// # Safety
/// As vkd3d's: `compile_info` and its chain valid, `messages` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_shim_scan(
    compile_info: *const CompileInfo,
    messages: Msgs,
) -> c_int {
    guard("vkd3d_shader_scan", abi::VKD3D_ERROR, || {
        // SAFETY: as this function's.
        unsafe { scan_guarded(compile_info, messages) }
    })
}

/// The body of [`dxbc_spirv_shim_scan`].
///
/// # Safety
/// As [`dxbc_spirv_shim_scan`]'s.
unsafe fn scan_guarded(info_p: *const CompileInfo, messages: Msgs) -> c_int {
    if !messages.is_null() {
        if check_ptr(messages, "messages").is_err() {
            return abi::VKD3D_ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: checked.
        unsafe { *messages = std::ptr::null_mut() };
    }
    let fail = |f: Failure, name: &str, level: u32| {
        report::log(&format!("scan of {name} failed: {}", f.text));
        // SAFETY: messages checked above.
        unsafe { set_messages(messages, level, abi::LOG_ERROR, &f.message(name)) };
        f.result
    };
    if let Err(f) = check_ptr(info_p, "compile_info") {
        return fail(f, "<input>", abi::LOG_ERROR);
    }
    // SAFETY: checked non-null and aligned.
    let info = unsafe { &*info_p };
    if info.ty != abi::STRUCTURE_TYPE_COMPILE_INFO {
        return fail(
            Failure::invalid_argument(format!(
                "compile_info has structure type {}, not COMPILE_INFO",
                info.ty
            )),
            "<input>",
            abi::LOG_ERROR,
        );
    }
    if !matches!(
        info.source_type,
        abi::SOURCE_DXBC_TPF | abi::SOURCE_D3D_BYTECODE
    ) {
        // SAFETY: the caller's arguments, passed on.
        return unsafe { real_scan(info_p, messages) };
    }
    // SAFETY: a NUL-terminated string when non-null.
    let name = unsafe { c_str(info.source_name) }
        .unwrap_or("<anonymous>")
        .to_string();
    // SAFETY: as this function's.
    match unsafe { compile::scan(info) } {
        Ok(()) => abi::VKD3D_OK,
        Err(f) => fail(f, &name, info.log_level),
    }
}

fn forward_refused() -> bool {
    std::env::var_os(ENV_FORWARD_REFUSED).is_some_and(|v| v == "1")
}

/// Calls the real `vkd3d_shader_compile`.
///
/// # Safety
/// As vkd3d's.
unsafe fn real_compile(info: *const CompileInfo, out: *mut Code, messages: Msgs) -> c_int {
    type F = unsafe extern "C" fn(*const CompileInfo, *mut Code, Msgs) -> c_int;
    // SAFETY: the function's C type.
    match unsafe { real::function::<F>(b"vkd3d_shader_compile\0") } {
        // SAFETY: passed on.
        Some(f) => unsafe { f(info, out, messages) },
        None => NOT_IMPL,
    }
}

/// Writes `text` to `*messages` when the caller asked for messages at `level` or above.
///
/// # Safety
/// `messages` must be null or writable.
unsafe fn set_messages(messages: Msgs, log_level: u32, level: u32, text: &str) {
    if messages.is_null() || log_level < level || text.is_empty() {
        return;
    }
    // SAFETY: checked writable by the caller; a malloc'ed string (or null).
    unsafe { *messages = report::malloc_string(text) };
}

/// `vkd3d_shader_compile`: DXBC and Direct3D 9 bytecode to SPIR-V by the translator, the rest
/// forwarded.
///
/// # Safety
/// As vkd3d's: `compile_info` and its chain valid, `out` writable, `messages` null or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_shim_compile(
    compile_info: *const CompileInfo,
    out: *mut Code,
    messages: Msgs,
) -> c_int {
    guard("vkd3d_shader_compile", abi::VKD3D_ERROR, || {
        // SAFETY: as this function's.
        unsafe { compile_guarded(compile_info, out, messages) }
    })
}

/// The body of [`dxbc_spirv_shim_compile`].
///
/// # Safety
/// As [`dxbc_spirv_shim_compile`]'s.
unsafe fn compile_guarded(info_p: *const CompileInfo, out: *mut Code, messages: Msgs) -> c_int {
    if !messages.is_null() {
        if check_ptr(messages, "messages").is_err() {
            return abi::VKD3D_ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: checked.
        unsafe { *messages = std::ptr::null_mut() };
    }
    let early = |f: Failure| {
        STATS.refused.fetch_add(1, Ordering::SeqCst);
        report::log(&format!("refused a compile: {}", f.text));
        // SAFETY: messages checked above.
        unsafe {
            set_messages(
                messages,
                abi::LOG_ERROR,
                abi::LOG_ERROR,
                &f.message("<input>"),
            )
        };
        f.result
    };
    if let Err(f) = check_ptr(info_p, "compile_info") {
        return early(f);
    }
    if let Err(f) = check_ptr(out, "out") {
        return early(f);
    }
    // SAFETY: checked non-null and aligned.
    let info = unsafe { &*info_p };
    // SAFETY: checked.
    unsafe {
        (*out).code = std::ptr::null();
        (*out).size = 0;
    }
    if info.ty != abi::STRUCTURE_TYPE_COMPILE_INFO {
        return early(Failure::invalid_argument(format!(
            "compile_info has structure type {}, not COMPILE_INFO",
            info.ty
        )));
    }
    let ours = matches!(
        info.source_type,
        abi::SOURCE_DXBC_TPF | abi::SOURCE_D3D_BYTECODE
    ) && info.target_type == abi::TARGET_SPIRV_BINARY;
    if !ours {
        STATS.forwarded.fetch_add(1, Ordering::SeqCst);
        // SAFETY: the caller's arguments, passed on.
        return unsafe { real_compile(info_p, out, messages) };
    }
    // SAFETY: a NUL-terminated string when non-null.
    let source_name = unsafe { c_str(info.source_name) }
        .unwrap_or("<anonymous>")
        .to_string();
    // SAFETY: the chain's links are checked as they are read.
    let result = unsafe { Chain::walk(info.next) }.and_then(|chain| {
        // SAFETY: as this function's.
        unsafe { compile::compile(info, &chain) }
    });
    match result {
        Ok(c) => {
            let bytes = c.spirv.len() * 4;
            // SAFETY: malloc of the module's size, filled below.
            let p = unsafe { libc::malloc(bytes.max(1)) }.cast::<u32>();
            if p.is_null() {
                return early(Failure {
                    result: abi::VKD3D_ERROR_OUT_OF_MEMORY,
                    code: report::E_INTERNAL,
                    text: "out of memory for the SPIR-V".into(),
                });
            }
            // SAFETY: `p` holds `len` words.
            unsafe {
                std::ptr::copy_nonoverlapping(c.spirv.as_ptr(), p, c.spirv.len());
                (*out).code = p.cast_const().cast();
                (*out).size = bytes;
            }
            STATS.compiled.fetch_add(1, Ordering::SeqCst);
            let text: String = c
                .notes
                .iter()
                .map(|n| format!("{source_name}: W{:04}: {n}\n", report::E_NOT_EXPRESSIBLE))
                .collect();
            // SAFETY: messages checked above.
            unsafe { set_messages(messages, info.log_level, abi::LOG_WARNING, &text) };
            abi::VKD3D_OK
        }
        Err(f) => {
            STATS.refused.fetch_add(1, Ordering::SeqCst);
            let fwd = forward_refused();
            report::log(&format!(
                "refused {}: {}{}",
                source_name,
                f.text,
                if fwd {
                    " (handed to the real compiler: DXBC_SPIRV_VKD3D_FORWARD_REFUSED=1)"
                } else {
                    ""
                }
            ));
            if fwd {
                STATS.forwarded.fetch_add(1, Ordering::SeqCst);
                // SAFETY: the caller's arguments, passed on.
                return unsafe { real_compile(info_p, out, messages) };
            }
            // SAFETY: messages checked above.
            unsafe {
                set_messages(
                    messages,
                    info.log_level,
                    abi::LOG_ERROR,
                    &f.message(&source_name),
                )
            };
            f.result
        }
    }
}
