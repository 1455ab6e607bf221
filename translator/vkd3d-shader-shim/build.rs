//! Makes the cdylib a stand-in for `libvkd3d-shader.so.1`: its SONAME, and vkd3d's exports
//! versioned `VKD3D_1_0` as libvkd3d binds them.
//!
//! rustc hands the linker a version script of its own listing every `#[no_mangle]` item, and
//! the linker applies the first one it is given, so the exports cannot simply be versioned
//! by ours. Instead the Rust functions are named `dxbc_spirv_shim_NAME` and `--defsym`
//! defines each `vkd3d_shader_NAME` at the same address: rustc's script does not name those,
//! so ours (`vkd3d_shader.map`, `vkd3d_shader_*` in `VKD3D_1_0`) versions them.

/// Every function the real libvkd3d-shader 2.1 exports (`objdump -T`), without the
/// `vkd3d_shader_` prefix. `src/exports.rs` defines `dxbc_spirv_shim_NAME` for each.
const EXPORTS: &[&str] = &[
    "build_varying_map",
    "compile",
    "convert_root_signature",
    "find_signature_element",
    "free_dxbc",
    "free_messages",
    "free_root_signature",
    "free_scan_combined_resource_sampler_info",
    "free_scan_descriptor_info",
    "free_scan_signature_info",
    "free_shader_code",
    "free_shader_signature",
    "get_supported_source_types",
    "get_supported_target_types",
    "get_version",
    "parse_dxbc",
    "parse_input_signature",
    "parse_root_signature",
    "preprocess",
    "scan",
    "serialize_dxbc",
    "serialize_root_signature",
    "set_log_callback",
];

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rerun-if-changed=vkd3d_shader.map");
    println!("cargo:rerun-if-changed=src/log.c");
    cc::Build::new()
        .file("src/log.c")
        .compile("dxbc_spirv_shim_log");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libvkd3d-shader.so.1");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={dir}/vkd3d_shader.map");
    for name in EXPORTS {
        println!(
            "cargo:rustc-cdylib-link-arg=-Wl,--defsym=vkd3d_shader_{name}=dxbc_spirv_shim_{name}"
        );
    }
}
