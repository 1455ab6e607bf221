//! Helpers the stand-in's tests share: the Debian root with vkd3d 2.x (fetched by the
//! project's own tools/debian-root.sh, the same package set as tools/in-vkd3d.sh uses), and
//! building C programs against its headers.

#![allow(dead_code)]

use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::process::Command;

use vkd3d_shader_shim::abi::{
    Code, CompileInfo, CompileOption, LOG_NONE, STRUCTURE_TYPE_COMPILE_INFO, TARGET_SPIRV_BINARY,
};

/// A compile of `bytes` (of `source_type`) to SPIR-V with `next` as its chain: no options, no
/// log, no source name. A test sets what else it needs with struct update syntax
/// (`CompileInfo { log_level: LOG_ERROR, ..compile_info(..) }`, [`with_options`]).
pub fn compile_info(bytes: &[u8], source_type: u32, next: *const c_void) -> CompileInfo {
    CompileInfo {
        ty: STRUCTURE_TYPE_COMPILE_INFO,
        next,
        source: Code {
            code: bytes.as_ptr().cast(),
            size: bytes.len(),
        },
        source_type,
        target_type: TARGET_SPIRV_BINARY,
        options: std::ptr::null(),
        option_count: 0,
        log_level: LOG_NONE,
        source_name: std::ptr::null(),
    }
}

/// `info` with `options` (which must outlive its use).
pub fn with_options(info: CompileInfo, options: &[CompileOption]) -> CompileInfo {
    CompileInfo {
        options: options.as_ptr(),
        option_count: options.len() as u32,
        ..info
    }
}

/// An empty code, for a compile to fill.
pub fn empty_code() -> Code {
    Code {
        code: std::ptr::null(),
        size: 0,
    }
}

/// The packages of tools/in-vkd3d.sh's root (lavapipe.sh's four plus vkd3d's).
pub const ROOT_PACKAGES: &[&str] = &[
    "mesa-vulkan-drivers",
    "libvulkan1",
    "vulkan-tools",
    "vulkan-validationlayers",
    "libvkd3d1",
    "libvkd3d-utils1",
    "libvkd3d-shader1",
    "libvkd3d-dev",
];

pub fn repo_root() -> PathBuf {
    integration_tests::repo_root()
}

/// The root's directory (its files under `root/`), fetching it on first use; `None`, having
/// said why on stderr, when it cannot be had (no apt, no network).
pub fn vkd3d_root() -> Option<PathBuf> {
    let out = Command::new(repo_root().join("tools/debian-root.sh"))
        .arg("sid")
        .args(ROOT_PACKAGES)
        .output();
    match out {
        Ok(o) if o.status.success() => {
            let dir = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
            dir.join("root").is_dir().then_some(dir)
        }
        Ok(o) => {
            integration_tests::skip::skip(
                "vkd3d",
                &format!(
                    "no Debian unstable root with vkd3d: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                ),
            );
            None
        }
        Err(e) => {
            integration_tests::skip::skip(
                "vkd3d",
                &format!("cannot run tools/debian-root.sh: {e}"),
            );
            None
        }
    }
}

pub fn include_dir(root: &Path) -> PathBuf {
    root.join("root/usr/include/vkd3d")
}

pub fn lib_dir(root: &Path) -> PathBuf {
    root.join(format!("root/usr/lib/{}-linux-gnu", std::env::consts::ARCH))
}

/// Compiles C `source` to an executable `out` with the host's `cc` against the root's vkd3d
/// headers, linking `libs` from the root (their newer glibc symbols are resolved at run time,
/// under the root's loader).
pub fn build_c(root: &Path, source: &Path, out: &Path, libs: &[&str]) -> Result<(), String> {
    let lib = lib_dir(root);
    let mut cmd = Command::new("cc");
    cmd.arg("-O1")
        .arg("-o")
        .arg(out)
        .arg(source)
        .arg(format!("-I{}", include_dir(root).display()));
    if !libs.is_empty() {
        cmd.arg(format!("-L{}", lib.display()))
            .arg(format!("-Wl,-rpath-link,{}", lib.display()))
            .arg("-Wl,--allow-shlib-undefined");
        for l in libs {
            cmd.arg(format!("-l{l}"));
        }
    }
    let o = cmd.output().map_err(|e| format!("cannot run cc: {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

/// A fresh scratch directory under the target directory.
pub fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The DXBC shaders of the shared corpus (`../shared/corpus/dxbc`), or, when it is absent,
/// the bundled examples and the assembler listings of `shaders/asm`: (name, bytes).
pub fn dxbc_corpus() -> Vec<(String, Vec<u8>)> {
    if let Some(shared) = integration_tests::shared_dir() {
        let dir = shared.join("corpus/dxbc");
        let files = integration_tests::dxbc_files(&dir);
        if !files.is_empty() {
            return files
                .iter()
                .map(|f| {
                    let name = f.strip_prefix(&dir).unwrap().display().to_string();
                    (name, std::fs::read(f).unwrap())
                })
                .collect();
        }
    }
    eprintln!("../shared is absent: using shaders/examples and shaders/asm");
    let root = repo_root();
    let mut out: Vec<(String, Vec<u8>)> =
        integration_tests::dxbc_files(&root.join("shaders/examples"))
            .iter()
            .map(|f| (f.display().to_string(), std::fs::read(f).unwrap()))
            .collect();
    let mut listings: Vec<PathBuf> = std::fs::read_dir(root.join("shaders/asm"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    listings.sort();
    for p in listings {
        if let Ok(b) = translator::asm::assemble(&std::fs::read_to_string(&p).unwrap()) {
            out.push((p.display().to_string(), b));
        }
    }
    out
}

/// The Direct3D 9 shaders of the shared corpus (`../shared/corpus/d3dbc`), or, when it is
/// absent, the bundled listings of `shaders/d3d9`: (name, bytes).
pub fn d3dbc_corpus() -> Vec<(String, Vec<u8>)> {
    if let Some(shared) = integration_tests::shared_dir() {
        let dir = shared.join("corpus/d3dbc");
        let files = integration_tests::d3dbc_files(&dir);
        if !files.is_empty() {
            return files
                .iter()
                .map(|f| {
                    let name = f.strip_prefix(&dir).unwrap().display().to_string();
                    (name, std::fs::read(f).unwrap())
                })
                .collect();
        }
    }
    eprintln!("../shared is absent: using the bundled listings of shaders/d3d9/");
    let dir = repo_root().join("shaders/d3d9");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let bytes = translator::d3dbc::asm::assemble(&text).unwrap();
            (f.file_name().unwrap().to_string_lossy().into_owned(), bytes)
        })
        .collect()
}
