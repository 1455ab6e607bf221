//! Gives the shared library its SONAME, `libdxbc_spirv.so.MAJOR`, so that a program linked
//! against an installed `libdxbc_spirv.so` (a symlink, `translator/capi/install.sh`) records
//! the ABI it was built for and the loader finds it by that name.

/// The ABI major version: `DXBC_SPIRV_API_VERSION`'s major (`tests/install.rs` checks that
/// they agree). Raise both on an incompatible change of the C API.
const ABI_MAJOR: u32 = 0;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let family = std::env::var("CARGO_CFG_TARGET_FAMILY").unwrap_or_default();
    // ELF platforms; macOS (install names) and Windows (DLLs) version libraries otherwise.
    let elf = family.split(',').any(|f| f == "unix") && !matches!(os.as_str(), "macos" | "ios");
    if elf {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libdxbc_spirv.so.{ABI_MAJOR}");
    }
}
