//! `examples/translate.c`, compiled with `cc -std=c99 -Wall -Werror` against the built static
//! library: its `Build:` line (also in docs/capi.md) works as written from `translator/capi`;
//! over the repository's own shaders (`shaders/examples`, and `shaders/asm` and `shaders/d3d9`
//! assembled) it writes what the Rust API writes and valgrind reports no error and no leak;
//! over `shaders/examples` and `../shared/corpus/dxbc` it translates every shader that the Rust
//! API translates (and fails on exactly the others), and spirv-val accepts each output. Each
//! test skips, recording why (`integration_tests::skip`), without `cc`, the built library,
//! valgrind or spirv-val; without `../shared` the corpus test runs over the bundled examples
//! only.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The static library cargo built with this test: `cargo test` leaves it in `deps/` beside
/// the test binary (`cargo build` copies it up to `target/<profile>/`). The binary is argv[0]:
/// under `tools/lavapipe.sh` the executable (`current_exe`) is the dynamic loader.
fn static_library() -> PathBuf {
    let exe = PathBuf::from(std::env::args_os().next().unwrap());
    let exe = exe.canonicalize().unwrap_or(exe);
    let deps = exe.parent().unwrap();
    let fresh = deps.join("libdxbc_spirv.a");
    if fresh.is_file() {
        fresh
    } else {
        deps.parent().unwrap().join("libdxbc_spirv.a")
    }
}

/// Compiles the example; `None` (with the reason printed) when it cannot be built here.
fn build_example(out: &Path) -> Option<PathBuf> {
    let lib = static_library();
    if !lib.is_file() {
        integration_tests::skip::skip("C toolchain", &format!("{} is not built", lib.display()));
        return None;
    }
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let exe = out.join("translate");
    let result = Command::new("cc")
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-O1",
            "-I",
        ])
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("examples/translate.c"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output();
    match result {
        Err(e) => {
            integration_tests::skip::skip("C toolchain", &format!("cannot run cc: {e} (apt: gcc)"));
            None
        }
        Ok(o) if !o.status.success() => panic!(
            "examples/translate.c does not compile:\n{}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Ok(_) => Some(exe),
    }
}

#[test]
fn c_example_translates_the_corpus() {
    if !integration_tests::spirv_val_or_skip() {
        return;
    }
    let work = std::env::temp_dir().join(format!("dxbc-spirv-c-example-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let Some(exe) = build_example(&work) else {
        return;
    };
    let mut files =
        integration_tests::dxbc_files(&integration_tests::repo_root().join("shaders/examples"));
    assert!(!files.is_empty());
    if let Some(shared) = integration_tests::shared_dir_or_narrow("the bundled examples") {
        files.extend(integration_tests::dxbc_files(&shared.join("corpus/dxbc")));
    }
    // One run per directory: file names repeat across directories.
    let mut dirs: Vec<&Path> = files.iter().map(|f| f.parent().unwrap()).collect();
    dirs.dedup();
    let (mut translated, mut failed, mut validated) = (0, 0, 0);
    for (n, dir) in dirs.iter().enumerate() {
        let in_dir: Vec<&PathBuf> = files.iter().filter(|f| f.parent() == Some(dir)).collect();
        let out_dir = work.join(n.to_string());
        std::fs::create_dir_all(&out_dir).unwrap();
        let run = Command::new(&exe)
            .arg(&out_dir)
            .args(&in_dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&run.stdout);
        let last = stdout.lines().last().unwrap_or_default().to_string();
        let mut expect_failed = 0;
        for f in &in_dir {
            let bytes = std::fs::read(f).unwrap();
            let rust = translator::translate(&bytes, &translator::Options::default());
            let spv = out_dir.join(format!("{}.spv", f.file_name().unwrap().to_string_lossy()));
            match rust {
                Ok(t) => {
                    let words: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
                    let written = std::fs::read(&spv).unwrap_or_else(|_| {
                        panic!("the C example did not write {}", spv.display())
                    });
                    assert_eq!(written, words, "{}: C and Rust outputs differ", f.display());
                    integration_tests::spirv_val(&spv, "vulkan1.3")
                        .unwrap_or_else(|e| panic!("{}: spirv-val: {e}", f.display()));
                    validated += 1;
                }
                Err(_) => {
                    assert!(
                        !spv.exists(),
                        "{}: the C API translated what Rust refused",
                        f.display()
                    );
                    expect_failed += 1;
                }
            }
        }
        let expect = format!(
            "{} translated, {expect_failed} failed",
            in_dir.len() - expect_failed
        );
        assert_eq!(last, expect, "{}", dir.display());
        assert_eq!(
            run.status.code(),
            Some(if expect_failed > 0 { 1 } else { 0 })
        );
        translated += in_dir.len() - expect_failed;
        failed += expect_failed;
    }
    eprintln!(
        "C example: {translated} translated ({validated} passed spirv-val), {failed} failed as the Rust API does, over {} directories",
        dirs.len()
    );
    // Bad usage.
    let usage = Command::new(&exe).output().unwrap();
    assert_eq!(usage.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&work);
}

/// The repository's shaders as files the example reads: the two examples, and every
/// assembly file of `shaders/asm` (DXBC) and `shaders/d3d9` (Direct3D 9 token streams).
fn bundled_shaders(dir: &Path) -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    let sorted = |d: &str, ext: &str| {
        let mut v: Vec<PathBuf> = std::fs::read_dir(root.join(d))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect();
        v.sort();
        v
    };
    for f in sorted("shaders/examples", "dxbc") {
        let to = dir.join(f.file_name().unwrap());
        std::fs::copy(&f, &to).unwrap();
        files.push(to);
    }
    for (d, ext) in [("shaders/asm", "dxbc"), ("shaders/d3d9", "d3dbc")] {
        for f in sorted(d, "asm") {
            let text = std::fs::read_to_string(&f).unwrap();
            let bytes = if ext == "dxbc" {
                translator::asm::assemble(&text).map_err(|e| e.to_string())
            } else {
                translator::d3dbc::asm::assemble(&text).map_err(|e| e.to_string())
            }
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let to = dir.join(format!(
                "{}.{ext}",
                f.file_stem().unwrap().to_string_lossy()
            ));
            std::fs::write(&to, bytes).unwrap();
            files.push(to);
        }
    }
    files
}

/// The `cc` line of `examples/translate.c`'s `Build:` comment (the static one, run from
/// `translator/capi`).
fn build_comment_line() -> String {
    let source = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/translate.c"),
    )
    .unwrap();
    let mut lines = source.lines();
    lines
        .find(|l| l.contains("Build, from translator/capi"))
        .expect("translate.c has a `Build, from translator/capi` comment");
    let line = lines.next().unwrap().trim_start_matches([' ', '*']).trim();
    assert!(line.starts_with("cc "), "{line}");
    line.to_string()
}

#[test]
fn build_comment_works_as_written() {
    let line = build_comment_line();
    let doc = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/capi.md"),
    )
    .unwrap();
    let marker = "tests/c_example.rs runs the next block";
    let after = &doc[doc
        .find(marker)
        .expect("docs/capi.md marks the static build")..];
    let block = after.split("```").nth(1).unwrap();
    assert_eq!(
        block.lines().nth(1).map(str::trim),
        Some(line.as_str()),
        "docs/capi.md and translate.c's Build: line differ"
    );
    let lib = static_library();
    if !lib.is_file() {
        integration_tests::skip::skip("C toolchain", &format!("{} is not built", lib.display()));
        return;
    }
    // The layout the line assumes, in a scratch tree: translator/capi/{include,examples} and
    // target/release/libdxbc_spirv.a (the test's own build may live elsewhere).
    let work = std::env::temp_dir().join(format!("dxbc-spirv-build-line-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let capi = work.join("translator/capi");
    std::fs::create_dir_all(&capi).unwrap();
    std::fs::create_dir_all(work.join("target/release")).unwrap();
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    std::os::unix::fs::symlink(crate_dir.join("include"), capi.join("include")).unwrap();
    std::os::unix::fs::symlink(crate_dir.join("examples"), capi.join("examples")).unwrap();
    std::os::unix::fs::symlink(&lib, work.join("target/release/libdxbc_spirv.a")).unwrap();
    let built = match Command::new("sh")
        .arg("-c")
        .arg(&line)
        .current_dir(&capi)
        .output()
    {
        Err(e) => {
            integration_tests::skip::skip("C toolchain", &format!("cannot run sh: {e}"));
            return;
        }
        Ok(o) => o,
    };
    assert!(
        built.status.success(),
        "`{line}` failed in translator/capi:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let out = work.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let root = crate_dir.join("../..");
    let run = Command::new(capi.join("translate"))
        .arg(&out)
        .arg(root.join("shaders/examples/ps_texture.dxbc"))
        .arg(root.join("shaders/examples/vs_transform.dxbc"))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&run.stdout).trim(),
        "2 translated, 0 failed"
    );
    assert!(out.join("ps_texture.dxbc.spv").is_file());
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn c_example_is_valgrind_clean_on_the_bundled_shaders() {
    let valgrind = Command::new("valgrind").arg("--version").output();
    if valgrind.is_err() {
        integration_tests::skip::skip("valgrind", "not installed (apt package valgrind)");
        return;
    }
    let work = std::env::temp_dir().join(format!("dxbc-spirv-valgrind-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let (input, out) = (work.join("in"), work.join("out"));
    std::fs::create_dir_all(&input).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let Some(exe) = build_example(&work) else {
        return; // build_example recorded why
    };
    let files = bundled_shaders(&input);
    assert!(files.len() >= 20, "{} bundled shaders", files.len());
    let run = Command::new("valgrind")
        .args([
            "--error-exitcode=99",
            "--leak-check=full",
            "--show-leak-kinds=all",
            "--errors-for-leak-kinds=all",
            "--track-origins=yes",
        ])
        .arg(&exe)
        .arg(&out)
        .args(&files)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("ERROR SUMMARY: 0 errors from 0 contexts"),
        "valgrind found errors:\n{stderr}"
    );
    assert!(
        stderr.contains("All heap blocks were freed"),
        "the example leaks:\n{stderr}"
    );
    // What the example wrote is what the Rust API writes, for the same shaders.
    let mut refused = 0;
    for f in &files {
        let spv = out.join(format!("{}.spv", f.file_name().unwrap().to_string_lossy()));
        match translator::translate(&std::fs::read(f).unwrap(), &translator::Options::default()) {
            Ok(t) => {
                let words: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
                let written = std::fs::read(&spv)
                    .unwrap_or_else(|_| panic!("the C example did not write {}", spv.display()));
                assert_eq!(written, words, "{}: C and Rust outputs differ", f.display());
            }
            Err(_) => {
                assert!(
                    !spv.exists(),
                    "{}: C translated what Rust refused",
                    f.display()
                );
                refused += 1;
            }
        }
    }
    assert_eq!(
        stdout.lines().last(),
        Some(format!("{} translated, {refused} failed", files.len() - refused).as_str()),
        "{stdout}\n{stderr}"
    );
    assert_eq!(run.status.code(), Some(if refused > 0 { 1 } else { 0 }));
    let summary = stderr
        .lines()
        .filter(|l| l.contains("ERROR SUMMARY") || l.contains("total heap usage"));
    for l in summary {
        eprintln!(
            "valgrind, {} bundled shaders: {}",
            files.len(),
            l.trim_start_matches(|c| c == '=' || char::is_numeric(c))
                .trim()
        );
    }
    let _ = std::fs::remove_dir_all(&work);
}
