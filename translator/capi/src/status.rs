//! Status codes, error messages and the guard that keeps panics inside the library.
//!
//! A C caller cannot catch a Rust panic (unwinding into C is undefined behaviour), and needs
//! both a code to branch on and a message to log. Every entry point therefore runs its body
//! in `guard`, which turns an [`ApiError`] or a caught panic into a status and an optional
//! message allocated here and freed by [`dxbc_spirv_free_message`].

use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What a call returns: `DXBC_SPIRV_OK` (0) or one of the negative `DXBC_SPIRV_ERROR_*`.
pub type dxbc_spirv_status = i32;

/// Success.
pub const DXBC_SPIRV_OK: dxbc_spirv_status = 0;
/// A null, misaligned or destroyed pointer, an unknown structure type, an enum value the API
/// does not define, a malformed binding table: the caller's mistake.
pub const DXBC_SPIRV_ERROR_INVALID_ARGUMENT: dxbc_spirv_status = -1;
/// The shader is malformed: a bad container, a corrupt token stream, a program breaking a rule
/// of its shader model. The message names the byte offset.
pub const DXBC_SPIRV_ERROR_INVALID_SHADER: dxbc_spirv_status = -2;
/// Well formed, but something the translator does not do (yet): an instruction, a source type
/// (D3D9 bytecode), a way of delivering a parameter. The message names it.
pub const DXBC_SPIRV_ERROR_UNSUPPORTED: dxbc_spirv_status = -3;
/// A declared register range has no binding: the table does not cover it, or the binding
/// callback refused it. The message names the register and space.
pub const DXBC_SPIRV_ERROR_BINDING: dxbc_spirv_status = -4;
/// A bug in the library (a broken invariant or a caught panic); please report the message.
pub const DXBC_SPIRV_ERROR_INTERNAL: dxbc_spirv_status = -5;

/// An error on its way to the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: dxbc_spirv_status,
    pub message: String,
}

impl ApiError {
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        ApiError {
            status: DXBC_SPIRV_ERROR_INVALID_ARGUMENT,
            message: message.into(),
        }
    }

    pub fn unsupported(message: impl Into<String>) -> Self {
        ApiError {
            status: DXBC_SPIRV_ERROR_UNSUPPORTED,
            message: message.into(),
        }
    }

    pub fn invalid_shader(message: impl Into<String>) -> Self {
        ApiError {
            status: DXBC_SPIRV_ERROR_INVALID_SHADER,
            message: message.into(),
        }
    }
}

impl From<translator::Error> for ApiError {
    fn from(e: translator::Error) -> Self {
        use translator::ErrorKind as K;
        let status = match e.kind() {
            K::Malformed | K::Invalid => DXBC_SPIRV_ERROR_INVALID_SHADER,
            K::Unsupported => DXBC_SPIRV_ERROR_UNSUPPORTED,
            K::Binding => DXBC_SPIRV_ERROR_BINDING,
            // The caller's declaration, like a bad field: D3D's E_INVALIDARG.
            K::StreamOutput => DXBC_SPIRV_ERROR_INVALID_ARGUMENT,
            K::Internal => DXBC_SPIRV_ERROR_INTERNAL,
        };
        ApiError {
            status,
            message: e.to_string(),
        }
    }
}

/// Result of an entry point's body.
pub type ApiResult<T = ()> = Result<T, ApiError>;

/// Allocates a message for C (interior NULs, which C cannot see, become spaces).
pub(crate) fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

/// Runs an entry point's body: stores `null` (success) or the message in `*error_message`
/// when the pointer is not null, and returns the status. A panic becomes
/// [`DXBC_SPIRV_ERROR_INTERNAL`].
pub(crate) fn guard(
    error_message: *mut *mut c_char,
    body: impl FnOnce() -> ApiResult,
) -> dxbc_spirv_status {
    let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        Err(ApiError {
            status: DXBC_SPIRV_ERROR_INTERNAL,
            message: format!("internal error: {what}"),
        })
    });
    let (status, message) = match outcome {
        Ok(()) => (DXBC_SPIRV_OK, None),
        Err(e) => (e.status, Some(e.message)),
    };
    if !error_message.is_null() && error_message.is_aligned() {
        let ptr = message.map_or(std::ptr::null_mut(), |m| c_string(&m).into_raw());
        // SAFETY: the caller passes a writable `char **` or null (checked above).
        unsafe { error_message.write(ptr) };
    }
    status
}

/// Checks an output pointer before the body writes it.
pub(crate) fn out_ptr<T>(p: *mut T, name: &str) -> ApiResult<*mut T> {
    if p.is_null() {
        return Err(ApiError::invalid_argument(format!("{name} is null")));
    }
    if !p.is_aligned() {
        return Err(ApiError::invalid_argument(format!("{name} is misaligned")));
    }
    Ok(p)
}

/// Borrows an input struct the caller passes by pointer.
///
/// # Safety
/// `p` is null or points to a readable `T` for the duration of the call.
pub(crate) unsafe fn in_ref<'a, T>(p: *const T, name: &str) -> ApiResult<&'a T> {
    if p.is_null() {
        return Err(ApiError::invalid_argument(format!("{name} is null")));
    }
    if !p.is_aligned() {
        return Err(ApiError::invalid_argument(format!("{name} is misaligned")));
    }
    // SAFETY: non-null and aligned; validity is the caller's promise.
    Ok(unsafe { &*p })
}

/// Borrows an array the caller passes as pointer and count (null is fine for count 0).
///
/// # Safety
/// `p` points to `count` readable `T`s for the duration of the call, or `count` is 0.
pub(crate) unsafe fn in_slice<'a, T>(p: *const T, count: usize, name: &str) -> ApiResult<&'a [T]> {
    if count == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(ApiError::invalid_argument(format!(
            "{name} is null but its count is {count}"
        )));
    }
    if !p.is_aligned() {
        return Err(ApiError::invalid_argument(format!("{name} is misaligned")));
    }
    if count
        .checked_mul(size_of::<T>().max(1))
        .is_none_or(|b| b > isize::MAX as usize)
    {
        return Err(ApiError::invalid_argument(format!(
            "{name}: count {count} is too large"
        )));
    }
    // SAFETY: checked above; validity is the caller's promise.
    Ok(unsafe { std::slice::from_raw_parts(p, count) })
}

/// Frees a message returned through an `error_message` argument. Null is ignored.
///
/// # Safety
/// `message` is null or a message this library returned, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_free_message(message: *mut c_char) {
    if message.is_null() {
        return;
    }
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: allocated by `CString::into_raw` in `guard`.
        drop(unsafe { CString::from_raw(message) })
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(body: impl FnOnce() -> ApiResult) -> (dxbc_spirv_status, Option<String>) {
        let mut msg: *mut c_char = std::ptr::null_mut();
        let status = guard(&mut msg, body);
        let text = (!msg.is_null()).then(|| {
            // SAFETY: a message `guard` allocated.
            let s = unsafe { std::ffi::CStr::from_ptr(msg) }
                .to_string_lossy()
                .into_owned();
            // SAFETY: as above, freed once.
            unsafe { dxbc_spirv_free_message(msg) };
            s
        });
        (status, text)
    }

    #[test]
    fn a_panic_becomes_an_internal_error() {
        let (status, msg) = run(|| panic!("boom {}", 7));
        assert_eq!(status, DXBC_SPIRV_ERROR_INTERNAL);
        assert_eq!(msg.as_deref(), Some("internal error: boom 7"));
    }

    #[test]
    fn success_clears_the_message_and_errors_keep_their_status() {
        assert_eq!(run(|| Ok(())), (DXBC_SPIRV_OK, None));
        let (status, msg) = run(|| Err(ApiError::unsupported("no\0pe")));
        assert_eq!(status, DXBC_SPIRV_ERROR_UNSUPPORTED);
        assert_eq!(msg.as_deref(), Some("no pe"));
        // A null message pointer is fine.
        assert_eq!(
            guard(std::ptr::null_mut(), || Err(ApiError::invalid_argument(
                "x"
            ))),
            DXBC_SPIRV_ERROR_INVALID_ARGUMENT
        );
    }
}
