//! The runtime suite inside a real D3D12 layer: `vk-runner --executor d3d12` over every
//! `.shader_test` under `shaders/runtime`, through vkd3d 2.x on lavapipe (`tools/in-vkd3d.sh`),
//! in both of vkd3d's descriptor modes (its default descriptor heaps and
//! `VKD3D_CONFIG=virtual_heaps`), once with our translator standing in for libvkd3d-shader and
//! once with the stock compiler (`--stock`). Requires, per mode: no crashed file with our
//! translator, at least as many passing checks as the stock compiler, and a stats line from
//! the stand-in (every DXBC compile reached it). The direct executor runs the suite too (our
//! translator on the same lavapipe), and every check it passes that the D3D12 executor with the
//! stand-in does not must be listed in docs/vkd3d.md's table of them, with its reason; the
//! table must be exact (per file: the count, the lines, the modes).
//!
//! The binaries come from the cargo running the test (`cargo build --release -p vk-runner
//! -p vkd3d-shader-shim --lib`, a no-op when fresh; the paths from cargo's JSON messages). The Debian
//! root `tools/in-vkd3d.sh` needs is fetched once (apt, about 150 MB with Debian 13's
//! lavapipe); when it cannot be had, or vkd3d gives no device, the test says so loudly and
//! counts as skipped, not passed.

use integration_tests::repo_root;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

/// The packages of tools/in-vkd3d.sh's root (tools/lavapipe.sh's four plus vkd3d's).
const ROOT_PACKAGES: &[&str] = &[
    "mesa-vulkan-drivers",
    "libvulkan1",
    "vulkan-tools",
    "vulkan-validationlayers",
    "libvkd3d1",
    "libvkd3d-utils1",
    "libvkd3d-shader1",
    "libvkd3d-dev",
];

fn skipped(why: &str) {
    let banner = "*".repeat(78);
    eprintln!(
        "{banner}\nd3d12_suite: SKIPPED — {why}\nd3d12_suite: no check ran through vkd3d; this is NOT a pass.\n{banner}"
    );
}

/// Builds vk-runner and the stand-in in release with the cargo running this test; their
/// paths.
fn binaries() -> (PathBuf, PathBuf) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(repo_root())
        .args([
            "build",
            "--release",
            "-p",
            "vk-runner",
            "--bin",
            "vk-runner",
            "-p",
            "vkd3d-shader-shim",
            "--lib",
            "--message-format=json-render-diagnostics",
        ])
        .output()
        .expect("run cargo build");
    assert!(
        out.status.success(),
        "cargo build failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let messages: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|m: &Value| m["reason"] == "compiler-artifact")
        .collect();
    let runner = messages
        .iter()
        .filter(|m| m["target"]["name"] == "vk-runner")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo reported no vk-runner executable");
    let shim = messages
        .iter()
        .filter(|m| m["target"]["name"] == "vkd3d_shader_shim")
        .flat_map(|m| m["filenames"].as_array().cloned().unwrap_or_default())
        .filter_map(|f| f.as_str().map(PathBuf::from))
        .find(|f| f.extension().is_some_and(|x| x == "so"))
        .expect("cargo reported no libvkd3d_shader_shim.so");
    (runner, shim)
}

/// One run's report: the JSON, and the stand-in's stats lines (one per worker process).
struct Run {
    passed: u64,
    checks: Vec<Value>,
    crashed: Vec<String>,
    stats: Vec<String>,
    device: String,
}

fn run(runner: &PathBuf, shim: &PathBuf, stock: bool, mode: Option<&str>) -> Option<Run> {
    let mut cmd = Command::new(repo_root().join("tools/in-vkd3d.sh"));
    if stock {
        cmd.arg("--stock");
    }
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("d3d12-suite-cache");
    cmd.current_dir(repo_root())
        .arg(runner)
        .args(["--executor", "d3d12", "--json", "--hlsl-compiler"])
        .arg(repo_root().join("tools/vkd3d-compiler.sh"))
        .arg("--cache-dir")
        .arg(cache)
        .arg("shaders/runtime")
        .env("DXBC_SPIRV_VKD3D_SHIM", shim)
        .env("DXBC_SPIRV_VKD3D_STATS", "1")
        .env_remove("DXBC_SPIRV_VKD3D_FORWARD_REFUSED")
        .env_remove("VKD3D_CONFIG");
    if let Some(m) = mode {
        cmd.env("VKD3D_CONFIG", m);
    }
    let out = cmd.output().expect("run tools/in-vkd3d.sh");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("D3D12 EXECUTOR UNAVAILABLE") {
        let line = stderr
            .lines()
            .find(|l| l.contains("D3D12 EXECUTOR UNAVAILABLE"))
            .unwrap_or("");
        skipped(line.trim());
        return None;
    }
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "vk-runner printed no JSON report ({e}); exit {:?}\nstderr:\n{stderr}",
            out.status.code()
        )
    });
    let crashed = v["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["kind"] == "crash" && c["status"] == "fail")
        .map(|c| format!("{}: {}", c["file"], c["message"]))
        .collect();
    Some(Run {
        passed: v["passed"].as_u64().expect("passed"),
        checks: v["checks"].as_array().cloned().unwrap_or_default(),
        crashed,
        stats: stderr
            .lines()
            .filter(|l| l.starts_with("dxbc-spirv in vkd3d: "))
            .map(str::to_string)
            .collect(),
        device: v["run"]["device"].as_str().unwrap_or("?").to_string(),
    })
}

/// The direct executor's run of the suite (our translator, `tools/lavapipe.sh`'s lavapipe: the
/// Mesa `tools/in-vkd3d.sh` runs vkd3d on): its checks.
fn direct_checks(runner: &PathBuf) -> Vec<Value> {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("d3d12-suite-cache");
    let out = Command::new(repo_root().join("tools/lavapipe.sh"))
        .current_dir(repo_root())
        .arg(runner)
        .args(["--json", "--hlsl-compiler"])
        .arg(repo_root().join("tools/vkd3d-compiler.sh"))
        .arg("--cache-dir")
        .arg(cache)
        .arg("shaders/runtime")
        .output()
        .expect("run tools/lavapipe.sh");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "the direct executor printed no JSON report ({e}); exit {:?}\nstderr:\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    v["checks"].as_array().cloned().unwrap_or_default()
}

/// What the D3D12 executor says of a check of a file's SM1–3 pass.
const SM13_SKIP: &str = "Direct3D 12 runs shader models 4.0-5.1 only";

/// The checks the direct executor passes and `ours` does not: how many are SM1–3 checks, and
/// the lines of the others per file (`shaders/runtime/` left out).
fn lost(direct: &[Value], ours: &[Value]) -> (usize, BTreeMap<String, Vec<u64>>) {
    type Key = (String, u64, String);
    let key = |c: &Value| -> Key {
        (
            c["file"].as_str().unwrap_or("").to_string(),
            c["line"].as_u64().unwrap_or(0),
            c["kind"].as_str().unwrap_or("").to_string(),
        )
    };
    // A line may hold a check of each pass (SM1–3 and SM4–5): compare counts per key.
    let mut passed: BTreeMap<Key, usize> = BTreeMap::new();
    for c in direct.iter().filter(|c| c["status"] == "pass") {
        *passed.entry(key(c)).or_default() += 1;
    }
    let mut sm13 = 0;
    let mut lines: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for c in ours.iter().filter(|c| c["status"] != "pass") {
        let Some(n) = passed.get_mut(&key(c)).filter(|n| **n > 0) else {
            continue;
        };
        *n -= 1;
        if c["message"].as_str().is_some_and(|m| m.contains(SM13_SKIP)) {
            sm13 += 1;
        } else {
            let (file, line, _) = key(c);
            let file = file.trim_start_matches("shaders/runtime/");
            let file = file.trim_end_matches(".shader_test").to_string();
            lines.entry(file).or_default().push(line);
        }
    }
    (sm13, lines)
}

/// One row of docs/vkd3d.md's table of checks the direct executor passes and the D3D12 one
/// does not.
#[derive(Debug)]
struct Row {
    /// `None`: the SM1–3 row.
    file: Option<String>,
    count: usize,
    /// Inclusive line ranges.
    lines: Vec<(u64, u64)>,
    virtual_heaps_only: bool,
}

fn doc_rows() -> Vec<Row> {
    let doc = std::fs::read_to_string(repo_root().join("docs/vkd3d.md")).expect("docs/vkd3d.md");
    let title = "### Checks the direct executor passes that fail or skip through vkd3d";
    let at = doc
        .find(title)
        .expect("docs/vkd3d.md has no table of lost checks");
    let mut rows = Vec::new();
    for line in doc[at..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
    {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (first, second) = (cells[1], cells[2]);
        let count: usize = second
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("docs/vkd3d.md: no count in {line}"));
        let file = if first.starts_with("the SM1–3 passes") {
            None
        } else {
            Some(first.trim_matches('`').to_string())
        };
        let mut lines = Vec::new();
        if let (Some(a), Some(b)) = (second.find('('), second.find(')')) {
            for part in second[a + 1..b].split(',') {
                let mut ends = part.split('–').map(|n| {
                    n.trim()
                        .parse::<u64>()
                        .unwrap_or_else(|_| panic!("docs/vkd3d.md: bad lines in {line}"))
                });
                let lo = ends.next().unwrap();
                lines.push((lo, ends.next().unwrap_or(lo)));
            }
        }
        rows.push(Row {
            file,
            count,
            lines,
            virtual_heaps_only: second.contains("`virtual_heaps` only"),
        });
    }
    rows
}

/// Compares one mode's lost checks with the table; the differences.
fn check_table(
    rows: &[Row],
    mode: &str,
    virtual_heaps: bool,
    sm13: usize,
    lost: &BTreeMap<String, Vec<u64>>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for row in rows {
        let Some(file) = &row.file else {
            if row.count != sm13 {
                problems.push(format!(
                    "{mode}: docs/vkd3d.md counts {} SM1–3 checks, the run lost {sm13}",
                    row.count
                ));
            }
            continue;
        };
        let got = lost.get(file).map(Vec::as_slice).unwrap_or_default();
        let expected = if row.virtual_heaps_only && !virtual_heaps {
            0
        } else {
            row.count
        };
        if got.len() != expected {
            problems.push(format!(
                "{mode}: docs/vkd3d.md lists {expected} lost check(s) of {file} in this mode, the run lost {} (lines {got:?})",
                got.len()
            ));
        }
        for l in got {
            if !row.lines.iter().any(|(lo, hi)| (lo..=hi).contains(&l)) {
                problems.push(format!(
                    "{mode}: {file} line {l} is lost but outside the lines docs/vkd3d.md gives"
                ));
            }
        }
    }
    for (file, got) in lost {
        if !rows
            .iter()
            .any(|r| r.file.as_deref() == Some(file.as_str()))
        {
            problems.push(format!(
                "{mode}: {file} lines {got:?} pass in the direct executor, not through vkd3d, and docs/vkd3d.md does not list them"
            ));
        }
    }
    problems
}

#[test]
fn runtime_suite_through_vkd3d_with_our_translator() {
    // vkd3d's root (Debian unstable), and the root of Debian 13 whose lavapipe it runs on.
    for (suite, packages) in [("sid", ROOT_PACKAGES), ("trixie", &ROOT_PACKAGES[..4])] {
        let root = Command::new(repo_root().join("tools/debian-root.sh"))
            .arg(suite)
            .args(packages)
            .output();
        match root {
            Ok(o) if o.status.success() => {}
            Ok(o) => {
                return skipped(&format!(
                    "no Debian {suite} root: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                ));
            }
            Err(e) => return skipped(&format!("cannot run tools/debian-root.sh: {e}")),
        }
    }
    let (runner, shim) = binaries();
    let direct = direct_checks(&runner);
    let rows = doc_rows();
    let mut problems = Vec::new();
    for mode in [None, Some("virtual_heaps")] {
        let name = mode.unwrap_or("default descriptor heaps");
        let t = std::time::Instant::now();
        let Some(ours) = run(&runner, &shim, false, mode) else {
            return;
        };
        let Some(stock) = run(&runner, &shim, true, mode) else {
            return;
        };
        eprintln!(
            "d3d12_suite ({name}, {:.1} s): ours {} passed, stock {} passed ({} crashed file(s)); {}",
            t.elapsed().as_secs_f64(),
            ours.passed,
            stock.passed,
            stock.crashed.len(),
            ours.device
        );
        for s in &ours.stats {
            eprintln!("  {s}");
        }
        if !ours.crashed.is_empty() {
            problems.push(format!(
                "{name}: {} file(s) crashed with our translator:\n  {}",
                ours.crashed.len(),
                ours.crashed.join("\n  ")
            ));
        }
        if ours.passed < stock.passed {
            problems.push(format!(
                "{name}: our translator passed {} checks, the stock compiler {}",
                ours.passed, stock.passed
            ));
        }
        let (sm13, lost) = lost(&direct, &ours.checks);
        problems.extend(check_table(&rows, name, mode.is_some(), sm13, &lost));
        if ours.stats.is_empty() {
            problems.push(format!(
                "{name}: no stats line: the stand-in compiled nothing (was it loaded?)"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
