//! The runtime suite inside a real D3D12 layer: `vk-runner --executor d3d12` over every
//! `.shader_test` under `shaders/runtime`, through vkd3d 2.x on lavapipe (`tools/in-vkd3d.sh`),
//! in both of vkd3d's descriptor modes (its default descriptor heaps and
//! `VKD3D_CONFIG=virtual_heaps`), once with our translator standing in for libvkd3d-shader and
//! once with the stock compiler (`--stock`). Requires, per mode: no crashed file with our
//! translator, at least as many passing checks as the stock compiler, and a stats line from
//! the stand-in (every DXBC compile reached it). docs/vkd3d.md lists what fails and why.
//!
//! The binaries come from the cargo running the test (`cargo build --release -p vk-runner
//! -p vkd3d-shader-shim --lib`, a no-op when fresh; the paths from cargo's JSON messages). The Debian
//! root `tools/in-vkd3d.sh` needs is fetched once (apt, about 150 MB with Debian 13's
//! lavapipe); when it cannot be had, or vkd3d gives no device, the test says so loudly and
//! counts as skipped, not passed.

use integration_tests::repo_root;
use serde_json::Value;
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
        crashed,
        stats: stderr
            .lines()
            .filter(|l| l.starts_with("dxbc-spirv in vkd3d: "))
            .map(str::to_string)
            .collect(),
        device: v["run"]["device"].as_str().unwrap_or("?").to_string(),
    })
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
        if ours.stats.is_empty() {
            problems.push(format!(
                "{name}: no stats line: the stand-in compiled nothing (was it loaded?)"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
