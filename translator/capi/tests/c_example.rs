//! `examples/translate.c`, compiled with `cc -std=c99 -Wall -Werror` against the built static
//! library, translates every shader of `shaders/examples` and of `../shared/corpus/dxbc` that
//! the Rust API translates (and fails on exactly the others), and spirv-val accepts each
//! output. Skips, recording why (`integration_tests::skip`), without `cc`, the built library or
//! spirv-val; without `../shared` it runs over the bundled examples only.

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
