//! Content-addressed cache for the outputs of external tools (HLSL → DXBC, DXBC → SPIR-V).
//!
//! Keys are 128-bit FNV-1a hashes of everything that determines a tool's output (the tool's
//! identity, its arguments and its input), so a repeated run reads files instead of spawning
//! processes. Writes go through a temporary file and a rename, so concurrent runs never see a
//! half-written entry. The cache is an optimisation only: any I/O failure just means a miss.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// 128-bit FNV-1a over a sequence of byte strings (each followed by a separator byte, so
/// `("ab", "c")` and `("a", "bc")` differ).
pub fn hash_parts(parts: &[&[u8]]) -> u128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013b;
    let mut h = OFFSET;
    for p in parts {
        for &b in p.iter().chain(std::iter::once(&0xffu8)) {
            h ^= u128::from(b);
            h = h.wrapping_mul(PRIME);
        }
    }
    h
}

/// A directory of cached tool outputs; `None` disables caching.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: Option<PathBuf>,
}

impl Cache {
    pub fn new(dir: Option<PathBuf>) -> Self {
        Cache { dir }
    }

    pub fn disabled() -> Self {
        Cache { dir: None }
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn path(&self, key: u128, ext: &str) -> Option<PathBuf> {
        self.dir
            .as_ref()
            .map(|d| d.join(format!("{key:032x}.{ext}")))
    }

    pub fn get(&self, key: u128, ext: &str) -> Option<Vec<u8>> {
        std::fs::read(self.path(key, ext)?).ok()
    }

    pub fn put(&self, key: u128, ext: &str, data: &[u8]) {
        let Some(path) = self.path(key, ext) else {
            return;
        };
        let Some(dir) = path.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let tmp = dir.join(format!(".{key:032x}.{ext}.{}.tmp", std::process::id()));
        if std::fs::write(&tmp, data).is_ok() && std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// The identity of an executable for cache keys: its resolved path, size and modification
/// time, so that replacing the tool invalidates what it produced.
pub fn tool_identity(path: &Path) -> String {
    let meta = std::fs::metadata(path);
    let (len, mtime) = match &meta {
        Ok(m) => (
            m.len(),
            m.modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos()),
        ),
        Err(_) => (0, 0),
    };
    format!("{}|{len}|{mtime}", path.display())
}

/// Runs `exe --version`: the first line it prints, or why the tool does not run (a wrapper
/// that fetches the tool may fail on a machine without network). Part of the cache keys, since
/// a wrapper's own file stays the same when the tool it runs is replaced by another version.
pub fn tool_version(exe: &Path) -> Result<String, String> {
    let out = run_tool(exe, &["--version"], b"")?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first = stdout.lines().map(str::trim).find(|l| !l.is_empty());
    match (out.success, first) {
        (true, Some(v)) => Ok(v.to_string()),
        (true, None) => Err(format!("{} --version printed nothing", exe.display())),
        (false, _) => Err(format!(
            "{} --version failed: {}",
            exe.display(),
            out.stderr
                .lines()
                .map(str::trim)
                .rfind(|l| !l.is_empty())
                .unwrap_or("no message")
        )),
    }
}

/// Finds an executable: a path with a `/` is taken as is, a bare name is looked up in `PATH`.
pub fn resolve_executable(cmd: &str) -> Option<PathBuf> {
    let p = Path::new(cmd);
    if cmd.contains('/') {
        return p
            .is_file()
            .then(|| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(cmd))
        .find(|c| c.is_file())
}

/// Output of a tool run.
pub struct ToolOutput {
    pub success: bool,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

/// Runs `exe args...` with `input` on stdin, collecting stdout and stderr.
pub fn run_tool(exe: &Path, args: &[&str], input: &[u8]) -> Result<ToolOutput, String> {
    use std::io::Write;
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_vec();
    // Feed stdin from a thread so a tool that writes a lot before reading cannot deadlock.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child
        .wait_with_output()
        .map_err(|e| format!("waiting for {}: {e}", exe.display()))?;
    let _ = writer.join();
    Ok(ToolOutput {
        success: out.status.success(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_separates_parts() {
        assert_ne!(hash_parts(&[b"ab", b"c"]), hash_parts(&[b"a", b"bc"]));
        assert_eq!(hash_parts(&[b"x"]), hash_parts(&[b"x"]));
    }

    #[test]
    fn cache_round_trip() {
        let dir = std::env::temp_dir().join(format!("vk-runner-cache-test-{}", std::process::id()));
        let c = Cache::new(Some(dir.clone()));
        assert!(c.get(7, "bin").is_none());
        c.put(7, "bin", b"hello");
        assert_eq!(c.get(7, "bin").as_deref(), Some(&b"hello"[..]));
        let _ = std::fs::remove_dir_all(dir);
        assert!(Cache::disabled().get(7, "bin").is_none());
    }
}
