//! Shared helpers for the workspace-level tests: where the shared corpus and tools are.

pub mod mutate;

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

/// Whether `spirv-val` can be run (tests that validate skip, saying so, when it cannot).
pub fn have_spirv_val() -> bool {
    std::process::Command::new("spirv-val")
        .arg("--version")
        .output()
        .is_ok()
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

/// `../shared/tools/vkd3d-compiler` and its `--version` text, when it is there and runs; else
/// `None`, having said on stderr why the caller's test skips.
pub fn vkd3d_compiler() -> Option<(PathBuf, String)> {
    let Some(shared) = shared_dir() else {
        eprintln!("skipping: ../shared is absent (no vkd3d-compiler)");
        return None;
    };
    let tool = shared.join("tools/vkd3d-compiler");
    match std::process::Command::new(&tool).arg("--version").output() {
        Ok(out) if out.status.success() => {
            Some((tool, String::from_utf8_lossy(&out.stdout).into_owned()))
        }
        Ok(out) => {
            eprintln!(
                "skipping: {} --version failed: {}",
                tool.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            None
        }
        Err(e) => {
            eprintln!("skipping: cannot run {}: {e}", tool.display());
            None
        }
    }
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
