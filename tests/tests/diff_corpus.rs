//! Differential execution over the shared corpus and benchmark shaders (docs/differential.md):
//! runs `vk-runner diff` on them (our SPIR-V against vkd3d-shader's, on the Vulkan device the
//! tests run on — Mesa 25's lavapipe under the repository's wrappers) and requires
//!
//! * no difference except those docs/differential.md lists with the verdict "vkd3d wrong"
//!   (a new difference is either our bug, to fix, or theirs, to record with the spec section
//!   and a runtime test showing the spec's value through our translator);
//! * no crash of our side;
//! * at least 90 % of the DXBC vertex, pixel and compute shaders and the D3D9 vertex and pixel
//!   shaders run on both sides.
//!
//! Without `../shared`, a Vulkan device or a working vkd3d-compiler (`tools/vkd3d-compiler.sh`)
//! it prints a loud SKIPPED banner and returns — unless it runs in CI (`CI` set) or with
//! `DIFF_CORPUS_STRICT=1`, where it fails: a CI machine that lost its driver must not pass by
//! running nothing.

use integration_tests::{repo_root, shared_dir};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// The least share of the targeted classes that must run on both sides.
const MIN_COVERAGE: f64 = 0.90;
/// The classes the coverage counts.
const CLASSES: [&str; 5] = ["dxbc vs", "dxbc ps", "dxbc cs", "d3d9 vs", "d3d9 ps"];

fn strict() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
        || std::env::var_os("DIFF_CORPUS_STRICT").is_some_and(|v| v == "1")
}

fn cannot_run(why: &str) {
    let banner = "*".repeat(78);
    eprintln!(
        "{banner}\ndiff_corpus: SKIPPED — {why}\ndiff_corpus: nothing was compared; this is NOT a pass.\n{banner}"
    );
    assert!(
        !strict(),
        "diff_corpus: {why} (CI or DIFF_CORPUS_STRICT=1: the test must run here)"
    );
}

/// vk-runner, built by the cargo running this test in its profile.
fn vk_runner() -> PathBuf {
    if let Some(p) = std::env::var_os("VK_RUNNER_BIN") {
        return PathBuf::from(p);
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(repo_root())
        .args(["build", "-p", "vk-runner", "--bin", "vk-runner"])
        .arg("--message-format=json-render-diagnostics");
    if !cfg!(debug_assertions) {
        cmd.arg("--release");
    }
    let out = cmd.output().expect("run cargo build -p vk-runner");
    assert!(
        out.status.success(),
        "cargo build -p vk-runner failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "vk-runner")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo reported no vk-runner executable")
}

/// (shader path under the shared directory, verdict) of each row of docs/differential.md's
/// table of differences.
fn documented() -> Vec<(String, String)> {
    let doc = std::fs::read_to_string(repo_root().join("docs/differential.md"))
        .expect("docs/differential.md");
    doc.lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            // | `path` | output | verdict | spec | test |
            let path = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            let verdict = cells.get(3)?;
            (path.contains('/') && !path.contains(' '))
                .then(|| (path.to_string(), verdict.to_string()))
        })
        .collect()
}

#[test]
fn documented_table_is_readable() {
    let rows = documented();
    assert!(
        rows.len() >= 10,
        "docs/differential.md's table of differences reads as {rows:?}"
    );
    for (path, verdict) in &rows {
        assert!(
            verdict == "vkd3d wrong",
            "{path}: verdict '{verdict}' (ours-wrong differences are fixed, not listed)"
        );
    }
}

#[test]
fn corpus_differences_are_documented() {
    let Some(shared) = shared_dir() else {
        cannot_run("../shared (the shader corpus) is absent");
        return;
    };
    let compiler = repo_root().join("tools/vkd3d-compiler.sh");
    if !Command::new(&compiler)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        cannot_run(&format!("{} does not run", compiler.display()));
        return;
    }
    let json = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("diff-corpus.json");
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("diff-corpus-cache");
    let bin = vk_runner();
    let wrapper = ["DXBC_SPIRV_LAVAPIPE", "WITH_NEW_LAVAPIPE"]
        .iter()
        .find_map(|v| std::env::var_os(v).filter(|w| !w.is_empty()));
    let mut cmd = match wrapper {
        Some(w) => {
            let mut c = Command::new(w);
            c.arg(&bin);
            c
        }
        None => Command::new(&bin),
    };
    let out = cmd
        .current_dir(repo_root())
        .arg("diff")
        .arg("-q")
        .arg("--vkd3d-compiler")
        .arg(&compiler)
        .arg("--cache-dir")
        .arg(&cache)
        .arg("--json")
        .arg(&json)
        .arg(shared.join("corpus"))
        .arg(shared.join("bench"))
        .output()
        .expect("run vk-runner diff");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("NO VULKAN DEVICE") {
        cannot_run("no Vulkan device");
        return;
    }
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}); exit {:?}\n{stdout}\n{stderr}",
            out.status
        )
    }))
    .expect("a JSON report");
    // The closing lines (speed, counts) are part of the record.
    for l in stdout.lines().filter(|l| l.starts_with("diff: ")) {
        println!("{l}");
    }
    let rows = documented();
    let mut failures = Vec::new();
    for e in report["entries"].as_array().expect("entries") {
        let path = e["path"].as_str().unwrap_or("");
        if e["ours"]
            .as_str()
            .is_some_and(|s| s.contains("crashed (ours)"))
        {
            failures.push(format!("{path}: our side crashed: {}", e["ours"]));
        }
        if e["status"] != "differ" {
            continue;
        }
        let known = rows
            .iter()
            .any(|(p, v)| path.ends_with(p.as_str()) && v == "vkd3d wrong");
        if !known {
            failures.push(format!(
                "{path}: undocumented difference: {}",
                e["difference"]
            ));
        }
    }
    let (mut ran, mut total) = (0u64, 0u64);
    for c in CLASSES {
        let k = &report["classes"][c];
        ran += k["ran"].as_u64().unwrap_or(0);
        total += k["shaders"].as_u64().unwrap_or(0);
    }
    assert!(
        total > 400,
        "the corpus has {total} shaders of the classes counted"
    );
    let coverage = ran as f64 / total as f64;
    println!(
        "diff_corpus: {ran} of {total} VS/PS/CS shaders ran on both sides ({:.1} %)",
        100.0 * coverage
    );
    if coverage < MIN_COVERAGE {
        failures.push(format!(
            "coverage {:.1} % is under {:.0} %",
            100.0 * coverage,
            100.0 * MIN_COVERAGE
        ));
    }
    assert!(
        failures.is_empty(),
        "vk-runner diff over the corpus:\n{}",
        failures.join("\n")
    );
}
