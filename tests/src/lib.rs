//! Shared helpers for the workspace-level tests: where the shared corpus and the tools are,
//! and how a test that cannot run says so ([`skip`]).

pub mod mutate;
pub mod programs;
pub mod skip;

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `../shared` beside the repository, if present.
pub fn shared_dir() -> Option<PathBuf> {
    let p = repo_root().join("../shared");
    p.is_dir().then(|| p.canonicalize().unwrap_or(p))
}

/// `../shared`, or `None` after recording that the calling test skips whole (the corpus
/// sweeps group).
pub fn shared_dir_or_skip() -> Option<PathBuf> {
    let s = shared_dir();
    if s.is_none() {
        skip::skip(skip::CORPUS, skip::NO_CORPUS);
    }
    s
}

/// `../shared`, or `None` after recording that the calling test ran over `instead` only.
pub fn shared_dir_or_narrow(instead: &str) -> Option<PathBuf> {
    let s = shared_dir();
    if s.is_none() {
        skip::skip_part(
            skip::CORPUS,
            skip::NO_CORPUS,
            &format!("ran over {instead} only"),
        );
    }
    s
}

/// Whether `spirv-val` can be run (tests that validate skip, saying so, when it cannot).
pub fn have_spirv_val() -> bool {
    std::process::Command::new("spirv-val")
        .arg("--version")
        .output()
        .is_ok()
}

/// Why spirv-val checks skip.
pub const NO_SPIRV_VAL: &str = "not installed (apt package spirv-tools)";

/// Whether `spirv-val` can be run; when it cannot, records that the calling test skips whole.
pub fn spirv_val_or_skip() -> bool {
    let ok = have_spirv_val();
    if !ok {
        skip::skip("spirv-val", NO_SPIRV_VAL);
    }
    ok
}

/// Whether `spirv-val` can be run; when it cannot, records that the calling test's modules
/// are not validated.
pub fn spirv_val_or_narrow() -> bool {
    let ok = have_spirv_val();
    if !ok {
        skip::skip_part("spirv-val", NO_SPIRV_VAL, "modules not validated");
    }
    ok
}

/// A command that runs `program` on the Vulkan driver the test runs on: under
/// `tools/lavapipe.sh` (which exports `DXBC_SPIRV_LAVAPIPE`, its own path) a child process would
/// not see that driver, so the program is started through the script too.
pub fn vulkan_command(program: impl AsRef<std::ffi::OsStr>) -> std::process::Command {
    match std::env::var_os("DXBC_SPIRV_LAVAPIPE").filter(|w| !w.is_empty()) {
        Some(w) => {
            let mut c = std::process::Command::new(w);
            c.arg(program);
            c
        }
        None => std::process::Command::new(program),
    }
}

/// Runs `spirv-val --target-env ENV FILE`; the error is spirv-val's message (or says that the
/// tool was not found: tell that case apart with [`have_spirv_val`], not by the message).
pub fn spirv_val(file: &Path, env: &str) -> Result<(), String> {
    match std::process::Command::new("spirv-val")
        .arg("--target-env")
        .arg(env)
        .arg(file)
        .output()
    {
        Err(e) => Err(format!("spirv-val not found: {e}")),
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => {
            let mut msg = String::from_utf8_lossy(&out.stderr).to_string();
            msg.push_str(&String::from_utf8_lossy(&out.stdout));
            Err(msg)
        }
    }
}

/// The group of checks against vkd3d-compiler (and of HLSL compiled with it).
pub const VKD3D: &str = "vkd3d-compiler checks";

/// `tools/vkd3d-compiler.sh` (which fetches vkd3d-compiler once) and its `--version` text, or
/// why it cannot run (the fetch failed: no network or no Debian host).
pub fn vkd3d_compiler() -> Result<(PathBuf, String), String> {
    let tool = repo_root().join("tools/vkd3d-compiler.sh");
    match std::process::Command::new(&tool).arg("--version").output() {
        Ok(out) if out.status.success() => {
            Ok((tool, String::from_utf8_lossy(&out.stdout).into_owned()))
        }
        Ok(out) => Err(format!(
            "tools/vkd3d-compiler.sh --version failed: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        )),
        Err(e) => Err(format!("cannot run {}: {e}", tool.display())),
    }
}

/// [`vkd3d_compiler`], or `None` after recording that the calling test skips whole.
pub fn vkd3d_compiler_or_skip() -> Option<(PathBuf, String)> {
    vkd3d_compiler().map_err(|why| skip::skip(VKD3D, &why)).ok()
}

/// Every `.dxbc` file under `dir` (recursively), sorted.
pub fn dxbc_files(dir: &Path) -> Vec<PathBuf> {
    files_with_extension(dir, "dxbc")
}

/// Every `.d3dbc` file (a bare Direct3D 9 token stream) under `dir` (recursively), sorted.
pub fn d3dbc_files(dir: &Path) -> Vec<PathBuf> {
    files_with_extension(dir, "d3dbc")
}

/// Every file named `*.{extension}` under `dir` (recursively), sorted.
fn files_with_extension(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == extension) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The stage of a DXBC container by its program's version token (`"ps"`, `"vs"`, `"gs"`,
/// `"hs"`, `"ds"`, `"cs"`, `"other"`), if it has a program.
pub fn stage_of(bytes: &[u8]) -> Option<&'static str> {
    let c = translator::container::Container::parse(bytes).ok()?;
    let chunk = c.shader_chunk()?;
    let ver = u32::from_le_bytes(chunk.data.get(0..4)?.try_into().ok()?);
    Some(match ver >> 16 {
        0 => "ps",
        1 => "vs",
        2 => "gs",
        3 => "hs",
        4 => "ds",
        5 => "cs",
        _ => "other",
    })
}
