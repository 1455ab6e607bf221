//! Shared helpers for the workspace-level tests: where the shared corpus and tools are.

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

/// Runs `spirv-val --target-env ENV FILE`; the error is spirv-val's message (or says that the
/// tool was not found).
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
