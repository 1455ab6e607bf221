//! `vk-runner --executor d3d12`: files through vkd3d's Direct3D 12 API.
//!
//! Two tests run anywhere: without vkd3d the executor says so once, loudly, and skips every
//! check; a worker that dies on a file costs that file only (`VK_RUNNER_D3D12_CRASH_ON`
//! makes the worker abort on purpose). The third runs real files through vkd3d on Mesa's
//! lavapipe, in both of vkd3d's descriptor modes, under `tools/lavapipe.sh` with Debian
//! unstable's vkd3d packages (fetched once by `tools/debian-root.sh`); where that root
//! cannot be made it says why and skips.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("vk-runner-d3d12-cache")
}

/// The packages `tools/lavapipe.sh` adds for the executor.
const VKD3D_PACKAGES: &str = "libvkd3d1 libvkd3d-utils1 libvkd3d-shader1 libvkd3d-dev";

fn summary(stdout: &str) -> (usize, usize, usize) {
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.ends_with("skipped"))
        .expect("a summary line");
    let n: Vec<usize> = line
        .split([' ', ','])
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(n.len(), 3, "bad summary line '{line}'");
    (n[0], n[1], n[2])
}

/// The binary with vkd3d hidden (a library that does not exist).
fn without_vkd3d(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vk-runner"));
    c.current_dir(root())
        .args(["--executor", "d3d12", "--cache-dir"])
        .arg(cache_dir())
        .args(args)
        .env("VK_RUNNER_VKD3D_UTILS", "/nonexistent/libvkd3d-utils.so.1");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run vk-runner")
}

#[test]
fn without_vkd3d_every_check_skips_loudly_once() {
    let out = without_vkd3d(
        &[
            "shaders/runtime/harness/textures.shader_test",
            "shaders/runtime/harness/compute-uav.shader_test",
        ],
        &[],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("D3D12 EXECUTOR UNAVAILABLE").count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains("/nonexistent/libvkd3d-utils.so.1"),
        "{stderr}"
    );
    let (pass, fail, skip) = summary(&stdout);
    assert_eq!((pass, fail), (0, 0), "{stdout}");
    assert!(skip >= 10, "{stdout}");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout
            .lines()
            .filter(|l| l.contains(": skip"))
            .all(|l| l.contains("no D3D12 device")),
        "{stdout}"
    );
}

#[test]
fn a_crashing_file_costs_that_file_only() {
    let files = [
        "shaders/runtime/harness/textures.shader_test",
        "shaders/runtime/harness/compute-uav.shader_test",
        "shaders/runtime/harness/geometry.shader_test",
    ];
    let out = without_vkd3d(&files, &[("VK_RUNNER_D3D12_CRASH_ON", "compute-uav")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let crashes: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains(": fail [crash]"))
        .collect();
    assert_eq!(crashes.len(), 1, "{stdout}");
    assert!(
        crashes[0].starts_with("shaders/runtime/harness/compute-uav.shader_test:0: fail [crash]")
            && crashes[0].contains("SIGABRT"),
        "{}",
        crashes[0]
    );
    // The files before and after ran (their checks skipped for want of vkd3d), in order.
    let first = stdout.find("textures.shader_test").expect("first file");
    let last = stdout.find("geometry.shader_test").expect("last file");
    assert!(first < last);
    assert!(stdout.contains("1 file(s) crashed"), "{stdout}");
    let (_, fail, skip) = summary(&stdout);
    assert_eq!(fail, 1);
    assert!(skip > 0);
    assert_eq!(out.status.code(), Some(1));
}

/// Runs the binary under `tools/lavapipe.sh` with vkd3d; `None` (said why) when the root
/// with vkd3d and lavapipe cannot be made or no device comes up.
fn with_vkd3d(files: &[&str], env: &[(&str, &str)]) -> Option<Output> {
    let mut c = Command::new(root().join("tools/lavapipe.sh"));
    c.current_dir(root())
        .arg(env!("CARGO_BIN_EXE_vk-runner"))
        .args([
            "--executor",
            "d3d12",
            "--hlsl-compiler",
            "tools/vkd3d-compiler.sh",
        ])
        .arg("--cache-dir")
        .arg(cache_dir())
        .args(files)
        .env("LAVAPIPE_SUITE", "sid")
        .env("LAVAPIPE_EXTRA_PACKAGES", VKD3D_PACKAGES)
        .env_remove("VK_RUNNER_VKD3D_UTILS");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run tools/lavapipe.sh");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("debian-root:") && !out.status.success() && out.stdout.is_empty() {
        integration_tests::skip::skip(
            "vkd3d",
            &format!(
                "the Debian unstable root with vkd3d could not be made: {}",
                stderr.lines().last().unwrap_or("")
            ),
        );
        return None;
    }
    if stderr.contains("D3D12 EXECUTOR UNAVAILABLE") {
        integration_tests::skip::skip(
            "vkd3d",
            &format!(
                "vkd3d did not give a D3D12 device: {}",
                stderr
                    .lines()
                    .find(|l| l.contains("UNAVAILABLE"))
                    .unwrap_or("")
            ),
        );
        return None;
    }
    if let Some(line) = stderr.lines().find(|l| l.contains("CANNOT COMPILE HLSL")) {
        integration_tests::skip::skip(
            integration_tests::VKD3D,
            line.trim_start_matches("vk-runner: "),
        );
        return None;
    }
    Some(out)
}

#[test]
fn files_run_through_vkd3d_in_both_descriptor_modes() {
    let files = [
        "shaders/runtime/harness",
        "shaders/runtime/resources/counters.shader_test",
        "shaders/runtime/resources/raw-structured.shader_test",
        "shaders/runtime/resources/typed-uav.shader_test",
        "shaders/runtime/bindings/spaces.shader_test",
        "shaders/runtime/bindings/unbounded-nonuniform.shader_test",
        "shaders/runtime/registers/cbuffer-index.shader_test",
        "shaders/runtime/stages/gs-streams.shader_test",
    ];
    for mode in ["", "virtual_heaps"] {
        let Some(out) = with_vkd3d(&files, &[("VKD3D_CONFIG", mode)]) else {
            return;
        };
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stdout.starts_with("vk-runner: device vkd3d D3D12"),
            "mode '{mode}':\n{stdout}\n{stderr}"
        );
        let (pass, fail, skip) = summary(&stdout);
        let bad: Vec<&str> = stdout
            .lines()
            .filter(|l| l.contains(": fail") || l.contains(": skip"))
            .collect();
        assert_eq!((fail, skip), (0, 0), "mode '{mode}':\n{}", bad.join("\n"));
        assert!(
            pass >= 120,
            "mode '{mode}': only {pass} checks passed\n{stdout}"
        );
        assert!(!stdout.contains(": fail [crash]"));
        assert!(
            !stderr.contains("the worker died"),
            "mode '{mode}': {stderr}"
        );
        assert_eq!(out.status.code(), Some(0), "mode '{mode}'");
        eprintln!("VKD3D_CONFIG='{mode}': {pass} checks passed through vkd3d");
    }
}
