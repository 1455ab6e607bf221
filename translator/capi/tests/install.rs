//! docs/capi.md's install steps, run exactly as written: the block after the marker
//! `tests/install.rs runs the next block` runs in bash from the repository root with `PREFIX`
//! and `TMPDIR` in a scratch directory and no `LD_LIBRARY_PATH` or `PKG_CONFIG_PATH` (the
//! block builds with cargo, installs, compiles the C example with pkg-config against the
//! installed shared library and runs it). Then the installed files are checked: the SONAME
//! (the ABI major of `DXBC_SPIRV_API_VERSION`), the links, the `.pc` (its version and its
//! description naming D3D9), and that the program loaded the installed library. The same block
//! with `install.sh --pgo` (docs/capi.md's profile-guided build) runs too, where rustup can give
//! the toolchain's llvm-profdata, and is checked to have trained on the translator.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The first fenced block after the line holding `marker` in docs/capi.md.
pub fn doc_block(marker: &str) -> String {
    let doc = std::fs::read_to_string(repo_root().join("docs/capi.md")).unwrap();
    let at = doc
        .find(marker)
        .unwrap_or_else(|| panic!("docs/capi.md has no line with {marker:?}"));
    let rest = &doc[at..];
    let open = rest.find("\n```").expect("a fenced block after the marker") + 4;
    let body = &rest[open..];
    let body = &body[body.find('\n').unwrap() + 1..];
    let close = body.find("\n```").expect("the block's closing fence");
    body[..close + 1].to_string()
}

fn which(tool: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs `block` in bash from the repository root with `PREFIX` and `TMPDIR` in `scratch` and no
/// `LD_LIBRARY_PATH`, `PKG_CONFIG_PATH` or `DESTDIR`, and checks that it succeeded and that its
/// last line is the example's `2 translated, 0 failed`: (PREFIX, TMPDIR, its standard error).
fn run_block(block: &str, scratch: &Path) -> (PathBuf, PathBuf, String) {
    let _ = std::fs::remove_dir_all(scratch);
    let prefix = scratch.join("prefix");
    let tmp = scratch.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    // cargo as the one running this test, first on PATH (what a user's shell has).
    let cargo = PathBuf::from(env!("CARGO"));
    let path = format!(
        "{}:{}",
        cargo.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = Command::new("bash")
        .args(["-euo", "pipefail", "-c", block])
        .current_dir(repo_root())
        .env("PATH", path)
        .env("PREFIX", &prefix)
        .env("TMPDIR", &tmp)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("PKG_CONFIG_PATH")
        .env_remove("DESTDIR")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(
        run.status.success(),
        "the install block failed ({}):\n{block}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        run.status
    );
    assert_eq!(
        stdout.lines().last(),
        Some("2 translated, 0 failed"),
        "{stdout}"
    );
    (prefix, tmp, stderr)
}

/// The C toolchain the install block needs, or the skip that says what is missing.
fn c_toolchain() -> bool {
    let missing: Vec<_> = ["cc", "pkg-config", "readelf", "bash"]
        .into_iter()
        .filter(|t| !which(t))
        .collect();
    if !missing.is_empty() {
        integration_tests::skip::skip("C toolchain", &format!("needs {missing:?} on PATH"));
        return false;
    }
    true
}

#[test]
fn documented_install_builds_links_and_runs() {
    if !c_toolchain() {
        return;
    }
    let block = doc_block("tests/install.rs runs the next block");
    assert!(block.contains("install.sh --prefix"), "{block}");
    assert!(
        block.contains("pkg-config --cflags --libs dxbc_spirv"),
        "{block}"
    );

    let scratch = std::env::temp_dir().join(format!("dxbc-spirv-install-{}", std::process::id()));
    let (prefix, tmp, _) = run_block(&block, &scratch);

    // The files, the links and the SONAME.
    let lib = prefix.join("lib");
    let version = env!("CARGO_PKG_VERSION");
    let major = dxbc_spirv::DXBC_SPIRV_API_VERSION >> 22;
    let soname = format!("libdxbc_spirv.so.{major}");
    let real = format!("libdxbc_spirv.so.{version}");
    assert!(lib.join(&real).is_file());
    assert_eq!(
        std::fs::read_link(lib.join(&soname)).unwrap(),
        Path::new(&real)
    );
    assert_eq!(
        std::fs::read_link(lib.join("libdxbc_spirv.so")).unwrap(),
        Path::new(&soname)
    );
    assert!(lib.join("libdxbc_spirv.a").is_file());
    assert!(prefix.join("include/dxbc_spirv.h").is_file());
    let dynamic = Command::new("readelf")
        .arg("-d")
        .arg(lib.join(&real))
        .output()
        .unwrap();
    let dynamic = String::from_utf8_lossy(&dynamic.stdout);
    assert!(
        dynamic.contains(&format!("Library soname: [{soname}]")),
        "the installed library's SONAME is not {soname}:\n{dynamic}"
    );
    let pc = std::fs::read_to_string(lib.join("pkgconfig/dxbc_spirv.pc")).unwrap();
    assert!(pc.contains(&format!("\nVersion: {version}\n")), "{pc}");
    let description = pc.lines().find(|l| l.starts_with("Description:")).unwrap();
    assert!(
        description.contains("DXBC") && description.contains("Direct3D 9"),
        "{description}"
    );

    // The program (in the block's mktemp directory) needs the SONAME and loads it from PREFIX.
    let exe = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().path().join("translate"))
        .find(|p| p.is_file())
        .expect("the block's program in its mktemp directory");
    let needed = Command::new("readelf")
        .arg("-d")
        .arg(&exe)
        .output()
        .unwrap();
    let needed = String::from_utf8_lossy(&needed.stdout);
    assert!(
        needed.contains(&format!("Shared library: [{soname}]")),
        "{needed}"
    );
    if which("ldd") {
        let ldd = Command::new("ldd")
            .arg(&exe)
            .env_remove("LD_LIBRARY_PATH")
            .output()
            .unwrap();
        let ldd = String::from_utf8_lossy(&ldd.stdout);
        let line = ldd
            .lines()
            .find(|l| l.contains(&soname))
            .unwrap_or_else(|| panic!("ldd does not list {soname}:\n{ldd}"));
        assert!(
            line.contains(&format!("{}/{soname}", lib.display())),
            "not loaded from the prefix: {line}"
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The Rust toolchain's `llvm-profdata` (rustup's `llvm-tools` component), where it is there.
fn toolchain_profdata() -> Option<PathBuf> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let sysroot = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
    std::fs::read_dir(sysroot.join("lib/rustlib"))
        .ok()?
        .map(|e| e.ok().map(|e| e.path().join("bin/llvm-profdata")))
        .find(|p| p.as_ref().is_some_and(|p| p.is_file()))
        .flatten()
}

/// `install.sh --pgo`: the same documented block with the profile-guided build. It trains on the
/// repository's shaders (`tools/pgo.sh` says how many), its profile holds the translator's
/// functions, and the installed library translates the examples.
#[test]
fn documented_install_with_pgo_trains_and_runs() {
    if !c_toolchain() {
        return;
    }
    // What tools/pgo.sh would do: add rustup's llvm-tools where it is missing. Where that
    // cannot be done (no rustup, or offline), this test cannot run here.
    let profdata = toolchain_profdata().or_else(|| {
        let added = which("rustup")
            && Command::new("rustup")
                .args(["component", "add", "llvm-tools"])
                .output()
                .is_ok_and(|o| o.status.success());
        if added { toolchain_profdata() } else { None }
    });
    let Some(profdata) = profdata else {
        integration_tests::skip::skip(
            "profile-guided build",
            "no llvm-profdata in the toolchain, and `rustup component add llvm-tools` could not \
             add it",
        );
        return;
    };
    let doc = std::fs::read_to_string(repo_root().join("docs/capi.md")).unwrap();
    assert!(
        doc.contains("install.sh --pgo --prefix"),
        "docs/capi.md names --pgo"
    );
    let block = doc_block("tests/install.rs runs the next block")
        .replace("install.sh --prefix", "install.sh --pgo --prefix");
    let scratch = std::env::temp_dir().join(format!("dxbc-spirv-pgo-{}", std::process::id()));
    let (prefix, _, stderr) = run_block(&block, &scratch);
    let trained: usize = stderr
        .lines()
        .find_map(|l| {
            l.strip_prefix("pgo.sh: training on ")?
                .strip_suffix(" programs")
        })
        .unwrap_or_else(|| panic!("no training line:\n{stderr}"))
        .parse()
        .unwrap();
    assert!(trained >= 100, "trained on {trained} programs");
    assert!(prefix.join("lib/libdxbc_spirv.a").is_file());

    // The profile counts the translator's own functions (the training went through it).
    let target = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| repo_root().join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        repo_root().join(target)
    };
    let show = Command::new(profdata)
        .args(["show", "--all-functions", "--counts"])
        .arg(target.join("pgo/merged.profdata"))
        .output()
        .unwrap();
    let show = String::from_utf8_lossy(&show.stdout);
    // `Translator::translate`'s entry: its busiest block ran once per translation at least.
    let counts: Vec<u64> = show
        .lines()
        .skip_while(|l| !(l.contains("Translator9translate") && l.ends_with(':')))
        .find_map(|l| l.trim().strip_prefix("Block counts: ["))
        .unwrap_or_else(|| panic!("no Translator::translate with block counts in the profile"))
        .trim_end_matches(']')
        .split(", ")
        .map(|c| c.parse().unwrap())
        .collect();
    let busiest = counts.iter().copied().max().unwrap_or(0);
    assert!(
        busiest >= trained as u64,
        "Translator::translate's busiest block ran {busiest} times for {trained} programs"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
