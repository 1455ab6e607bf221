//! The real libvkd3d-shader, for everything the stand-in does not do itself (HLSL, DXIL,
//! root signatures, scans, DXBC parsing, disassembly, ...).
//!
//! The stand-in has the real library's SONAME, so when it is preloaded the dynamic loader
//! never loads the real one for libvkd3d's DT_NEEDED; it is opened here by its full path with
//! `RTLD_DEEPBIND`, so that its calls to its own exports (`vkd3d_shader_compile` from its scan,
//! say) bind inside itself rather than back to the stand-in. Where it lives:
//! `DXBC_SPIRV_VKD3D_SHADER_LIB` (a full path), else the first `libvkd3d-shader.so.1` found in
//! `LD_LIBRARY_PATH` and the system library directories that is not this library itself.

use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libloading::os::unix::Library;

/// The opened library and where it came from, or why there is none.
static REAL: OnceLock<Result<(Library, PathBuf), String>> = OnceLock::new();

/// The environment variable naming the real library's path.
pub const ENV_PATH: &str = "DXBC_SPIRV_VKD3D_SHADER_LIB";

fn own_path() -> Option<PathBuf> {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the loader's tables for an address inside this library.
    let ok = unsafe { libc::dladdr(own_path as *const c_void, &mut info) };
    if ok == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname is a NUL-terminated path owned by the loader.
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    let p = PathBuf::from(std::ffi::OsStr::new(
        std::str::from_utf8(name.to_bytes()).ok()?,
    ));
    p.canonicalize().ok()
}

fn candidates() -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os(ENV_PATH) {
        return vec![PathBuf::from(p)];
    }
    let mut dirs: Vec<PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    let multiarch = format!("{}-linux-gnu", std::env::consts::ARCH);
    for d in [
        format!("/usr/lib/{multiarch}"),
        format!("/lib/{multiarch}"),
        "/usr/lib64".into(),
        "/usr/lib".into(),
        "/usr/local/lib".into(),
    ] {
        dirs.push(d.into());
    }
    dirs.into_iter()
        .map(|d| d.join("libvkd3d-shader.so.1"))
        .collect()
}

fn open() -> Result<(Library, PathBuf), String> {
    let own = own_path();
    let mut tried = Vec::new();
    for p in candidates() {
        if !p.exists() {
            tried.push(format!("{} (absent)", p.display()));
            continue;
        }
        if own.is_some() && p.canonicalize().ok() == own {
            tried.push(format!("{} (this stand-in)", p.display()));
            continue;
        }
        let flags = libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND;
        // SAFETY: loading vkd3d-shader runs its initialisers, which have no preconditions.
        match unsafe { Library::open(Some(&p), flags) } {
            Ok(lib) => return Ok((lib, p)),
            Err(e) => tried.push(format!("{}: {e}", p.display())),
        }
    }
    Err(format!(
        "the real libvkd3d-shader.so.1 was not found (set {ENV_PATH}); tried {}",
        tried.join(", ")
    ))
}

/// The real library, opened on first use.
pub fn library() -> Result<&'static (Library, PathBuf), &'static str> {
    REAL.get_or_init(|| {
        let r = open();
        match &r {
            Ok((_, p)) => {
                if std::env::var_os("DXBC_SPIRV_VKD3D_STATS").is_some_and(|v| v == "1") {
                    crate::report::log(&format!(
                        "forwarding to the real vkd3d-shader at {}",
                        p.display()
                    ));
                }
            }
            Err(e) => crate::report::log(e),
        }
        r
    })
    .as_ref()
    .map_err(String::as_str)
}

/// Whether the real library can be reached.
pub fn available() -> bool {
    library().is_ok()
}

/// The real library's function `name` (NUL-terminated), as the function pointer type `F`.
///
/// # Safety
/// `F` must be the C type of that function.
pub unsafe fn function<F: Copy>(name: &[u8]) -> Option<F> {
    let (lib, _) = library().ok()?;
    // SAFETY: the caller names the function's true type.
    unsafe { lib.get::<F>(name).ok().map(|s| *s) }
}

/// Where the real library was found, if it was.
pub fn path() -> Option<&'static Path> {
    library().ok().map(|(_, p)| p.as_path())
}
