//! How the stand-in tells what it did: a failed compile's message in vkd3d's convention (the
//! `char **messages` text a caller frees with `vkd3d_shader_free_messages`, lines
//! `SOURCE: E####: text`), the log line every refusal gets (through the caller's vkd3d log
//! callback when one is set, else on stderr: refusals are never silent), and the counters
//! behind `DXBC_SPIRV_VKD3D_STATS=1`'s exit line.

use std::ffi::{CString, c_char};
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

use crate::abi;

/// Why a compile did not produce SPIR-V: the `vkd3d_result` to return, a message code in the
/// `E####` convention and the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub result: i32,
    pub code: u32,
    pub text: String,
}

/// Message codes of the stand-in (vkd3d's own codes are below 9000).
pub const E_INVALID_ARGUMENT: u32 = 9001;
pub const E_INVALID_SHADER: u32 = 9002;
pub const E_NOT_EXPRESSIBLE: u32 = 9003;
pub const E_BINDING: u32 = 9004;
pub const E_INTERNAL: u32 = 9005;

impl Failure {
    /// A caller error: a null or misaligned pointer, a malformed chain or option.
    pub fn invalid_argument(text: impl Into<String>) -> Self {
        Failure {
            result: abi::VKD3D_ERROR_INVALID_ARGUMENT,
            code: E_INVALID_ARGUMENT,
            text: text.into(),
        }
    }

    /// Malformed shader bytecode.
    pub fn invalid_shader(text: impl Into<String>) -> Self {
        Failure {
            result: abi::VKD3D_ERROR_INVALID_SHADER,
            code: E_INVALID_SHADER,
            text: text.into(),
        }
    }

    /// Something the caller asks that the translator cannot express (yet): a refusal.
    pub fn not_expressible(text: impl Into<String>) -> Self {
        Failure {
            result: abi::VKD3D_ERROR_NOT_IMPLEMENTED,
            code: E_NOT_EXPRESSIBLE,
            text: text.into(),
        }
    }

    /// A register the interface description places nowhere (vkd3d's "descriptor binding not
    /// found").
    pub fn binding(text: impl Into<String>) -> Self {
        Failure {
            result: abi::VKD3D_ERROR_INVALID_ARGUMENT,
            code: E_BINDING,
            text: text.into(),
        }
    }

    /// A translation error, by its kind.
    pub fn from_translator(e: &translator::Error) -> Self {
        use translator::ErrorKind;
        let text = e.to_string();
        match e.kind() {
            ErrorKind::Malformed | ErrorKind::Invalid => Failure::invalid_shader(text),
            ErrorKind::Binding => Failure::binding(text),
            ErrorKind::Unsupported => Failure::not_expressible(text),
            ErrorKind::StreamOutput => Failure::invalid_argument(text),
            ErrorKind::Internal => Failure {
                result: abi::VKD3D_ERROR,
                code: E_INTERNAL,
                text,
            },
        }
    }

    /// The message in vkd3d's convention, one line ending in a newline.
    pub fn message(&self, source_name: &str) -> String {
        format!("{source_name}: E{:04}: {}\n", self.code, self.text)
    }
}

/// Copies `text` into a `malloc`ed NUL-terminated string (freed with `free`, which is what
/// `vkd3d_shader_free_messages` does); null when out of memory.
pub fn malloc_string(text: &str) -> *mut c_char {
    let bytes = text.as_bytes();
    // SAFETY: malloc of len + 1 bytes, filled below within bounds.
    unsafe {
        let p = libc::malloc(bytes.len() + 1).cast::<u8>();
        if p.is_null() {
            return std::ptr::null_mut();
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        *p.add(bytes.len()) = 0;
        p.cast()
    }
}

/// The log callback the caller set with `vkd3d_shader_set_log_callback` (null: stderr).
static LOG_CALLBACK: AtomicPtr<std::ffi::c_void> = AtomicPtr::new(std::ptr::null_mut());

unsafe extern "C" {
    fn dxbc_spirv_shim_call_log(callback: *mut std::ffi::c_void, text: *const c_char);
}

/// Remembers the caller's log callback (null resets to stderr).
pub fn set_log_callback(callback: abi::LogFn) {
    let p = callback.map_or(std::ptr::null_mut(), |f| f as *mut std::ffi::c_void);
    LOG_CALLBACK.store(p, Ordering::SeqCst);
}

/// Logs one line (a newline is added): through the caller's vkd3d log callback, else stderr.
pub fn log(line: &str) {
    let text = format!("dxbc-spirv: {line}\n");
    let cb = LOG_CALLBACK.load(Ordering::SeqCst);
    if cb.is_null() {
        eprint!("{text}");
        return;
    }
    let c = CString::new(text.replace('\0', " ")).unwrap_or_default();
    // SAFETY: `cb` is the PFN_vkd3d_log the caller registered; log.c calls it with "%s".
    unsafe { dxbc_spirv_shim_call_log(cb, c.as_ptr()) };
}

/// What the stand-in did with the `vkd3d_shader_compile` calls of this process.
pub struct Stats {
    pub compiled: AtomicU64,
    pub forwarded: AtomicU64,
    pub refused: AtomicU64,
}

pub static STATS: Stats = Stats {
    compiled: AtomicU64::new(0),
    forwarded: AtomicU64::new(0),
    refused: AtomicU64::new(0),
};

impl Stats {
    /// `dxbc-spirv in vkd3d: N compiled, M forwarded, K refused`.
    pub fn line(&self) -> String {
        format!(
            "dxbc-spirv in vkd3d: {} compiled, {} forwarded, {} refused",
            self.compiled.load(Ordering::SeqCst),
            self.forwarded.load(Ordering::SeqCst),
            self.refused.load(Ordering::SeqCst)
        )
    }
}

/// Prints the exit line in a process that called `vkd3d_shader_compile` (a preloaded stand-in
/// is loaded into every process the command starts; only those using vkd3d report).
extern "C" fn print_stats_at_exit() {
    let used = STATS.compiled.load(Ordering::SeqCst)
        + STATS.forwarded.load(Ordering::SeqCst)
        + STATS.refused.load(Ordering::SeqCst);
    if used > 0 {
        eprintln!("{}", STATS.line());
    }
}

/// Registers the exit line when `DXBC_SPIRV_VKD3D_STATS=1` (run when the library loads).
extern "C" fn on_load() {
    if std::env::var_os("DXBC_SPIRV_VKD3D_STATS").is_some_and(|v| v == "1") {
        // SAFETY: registering a plain extern "C" function with the C library's atexit.
        unsafe { libc::atexit(print_stats_at_exit) };
    }
}

#[used]
#[unsafe(link_section = ".init_array")]
static ON_LOAD: extern "C" fn() = on_load;
