//! Compiles HLSL sections to DXBC with an external compiler invoked like vkd3d-compiler
//! (`-x hlsl -p PROFILE -b dxbc-tpf -e ENTRY`; `-b d3dbc` for the SM1–3 profiles `vs_2_0`,
//! `ps_3_0`, ...), caching results by content.
//!
//! Failures are cached too (as the compiler's message), because `[... shader fail]` sections
//! are expected to fail and would otherwise be recompiled on every run.

use crate::cache::{Cache, hash_parts, resolve_executable, run_tool, tool_identity, tool_version};
use std::path::PathBuf;

/// An HLSL → DXBC compiler.
#[derive(Debug, Clone)]
pub struct HlslCompiler {
    exe: PathBuf,
    version: String,
    identity: String,
    cache: Cache,
}

/// Why a shader did not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompileError {
    /// The compiler rejected the source (its message).
    Rejected(String),
    /// The compiler could not be run at all.
    Tool(String),
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompileError::Rejected(m) => write!(f, "HLSL compilation failed: {m}"),
            CompileError::Tool(m) => write!(f, "HLSL compiler unavailable: {m}"),
        }
    }
}

/// Maps a `[require] options:` word to compiler arguments; `None` when it cannot be expressed.
pub fn option_args(option: &str) -> Option<Vec<&'static str>> {
    match option {
        "none" | "unbounded-descriptor-arrays" => Some(vec![]),
        "row-major" => Some(vec!["--matrix-storage-order=row"]),
        "column-major" => Some(vec!["--matrix-storage-order=column"]),
        // D3DCOMPILE_ENABLE_BACKWARDS_COMPATIBILITY: SM1-3 semantic names and intrinsics, and
        // `half` globals (read as `float`, as the native compiler does under that flag).
        "backcompat" => Some(vec!["--semantic-compat-map", "--allow-half-globals"]),
        _ => None,
    }
}

/// The compiler arguments for a block's `[require] options:` words. Both packing orders
/// together: column-major wins (as the D3DCOMPILE_PACK_MATRIX_* flags combine in the
/// compilers vkd3d's tests describe).
pub fn options_args(options: &[String]) -> Result<Vec<&'static str>, String> {
    let both =
        options.iter().any(|o| o == "column-major") && options.iter().any(|o| o == "row-major");
    let mut args = Vec::new();
    for o in options.iter().filter(|o| !(both && *o == "row-major")) {
        args.extend(option_args(o).ok_or_else(|| format!("unsupported compile option '{o}'"))?);
    }
    Ok(args)
}

impl HlslCompiler {
    /// Finds the compiler (a path, or a name looked up in `PATH`) and checks that it runs
    /// (`--version`).
    pub fn new(cmd: &str, cache: Cache) -> Result<Self, String> {
        let exe =
            resolve_executable(cmd).ok_or_else(|| format!("HLSL compiler '{cmd}' not found"))?;
        let version = tool_version(&exe)?;
        let identity = format!("{}|{version}", tool_identity(&exe));
        Ok(HlslCompiler {
            exe,
            version,
            identity,
            cache,
        })
    }

    pub fn path(&self) -> &std::path::Path {
        &self.exe
    }

    /// The first line of the compiler's `--version`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Compiles `source` for `profile` (e.g. `ps_5_0`). `options` are `[require] options:` words.
    pub fn compile(
        &self,
        source: &str,
        profile: &str,
        entry: &str,
        options: &[String],
    ) -> Result<Vec<u8>, CompileError> {
        // SM1–3 profiles (`vs_2_0`, `ps_3_0`) produce D3D9 bytecode.
        let d3dbc = profile.as_bytes().get(3).is_some_and(|m| *m < b'4');
        let target = if d3dbc { "d3dbc" } else { "dxbc-tpf" };
        let mut args: Vec<&str> = vec!["-x", "hlsl", "-b", target, "-p", profile, "-e", entry];
        args.extend(options_args(options).map_err(CompileError::Tool)?);
        let joined = args.join(" ");
        let key = hash_parts(&[
            b"hlsl-v1",
            self.identity.as_bytes(),
            joined.as_bytes(),
            source.as_bytes(),
        ]);
        if let Some(dxbc) = self.cache.get(key, "dxbc") {
            return Ok(dxbc);
        }
        if let Some(err) = self.cache.get(key, "err") {
            return Err(CompileError::Rejected(
                String::from_utf8_lossy(&err).into_owned(),
            ));
        }
        args.extend(["-o", "-", "-"]);
        let out = run_tool(&self.exe, &args, source.as_bytes()).map_err(CompileError::Tool)?;
        let produced = if d3dbc {
            translator::d3dbc::is_d3dbc(&out.stdout)
        } else {
            out.stdout.starts_with(b"DXBC")
        };
        if out.success && produced {
            self.cache.put(key, "dxbc", &out.stdout);
            Ok(out.stdout)
        } else {
            let msg = first_lines(&out.stderr, 3);
            let msg = if msg.is_empty() {
                "no output".to_string()
            } else {
                msg
            };
            // Only cache genuine rejections (the tool ran and printed a diagnostic).
            if !out.stderr.is_empty() {
                self.cache.put(key, "err", msg.as_bytes());
            }
            Err(CompileError::Rejected(msg))
        }
    }
}

/// The first `n` non-empty lines of `s`, joined with ` / `.
pub fn first_lines(s: &str, n: usize) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(n)
        .collect::<Vec<_>>()
        .join(" / ")
}

#[cfg(test)]
mod tests {
    use super::options_args;

    fn args(words: &[&str]) -> Result<Vec<&'static str>, String> {
        options_args(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn compile_options() {
        assert_eq!(args(&["row-major"]), Ok(vec!["--matrix-storage-order=row"]));
        assert_eq!(
            args(&["column-major", "row-major"]),
            Ok(vec!["--matrix-storage-order=column"])
        );
        assert_eq!(
            args(&["backcompat"]),
            Ok(vec!["--semantic-compat-map", "--allow-half-globals"])
        );
        assert!(args(&["teleport"]).unwrap_err().contains("teleport"));
    }
}
