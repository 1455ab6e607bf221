//! Shared helpers for the workspace-level tests: where the shared corpus and tools are.

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `../shared` beside the repository, if present.
pub fn shared_dir() -> Option<PathBuf> {
    let p = repo_root().join("../shared");
    p.is_dir().then(|| p.canonicalize().unwrap_or(p))
}
