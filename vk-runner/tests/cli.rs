//! Runs the vk-runner binary on the harness's own `.shader_test` files.
//!
//! These tests need a Vulkan device (lavapipe is enough) and `tools/vkd3d-compiler.sh` (which
//! fetches vkd3d-compiler once); without either they record why (`integration_tests::skip`)
//! and return early.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn compiler() -> Option<PathBuf> {
    integration_tests::vkd3d_compiler_or_skip().map(|(c, _)| c)
}

fn cache_dir() -> PathBuf {
    let d = std::env::var_os("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    d.join("vk-runner-test-cache")
}

/// Runs the binary, on the driver the test runs on (`integration_tests::vulkan_command`);
/// `direct` runs it as is (for tests that hide the driver).
fn run_with(args: &[&str], env: &[(&str, &str)], direct: bool) -> Output {
    let bin = env!("CARGO_BIN_EXE_vk-runner");
    let mut cmd = if direct {
        Command::new(bin)
    } else {
        integration_tests::vulkan_command(bin)
    };
    cmd.current_dir(root())
        .args(args)
        .arg("--cache-dir")
        .arg(cache_dir());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run vk-runner")
}

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    run_with(args, env, false)
}

fn has_device(out: &Output) -> bool {
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("NO VULKAN DEVICE") {
        integration_tests::skip::skip(
            "Vulkan",
            &format!(
                "no Vulkan device ({})",
                err.lines()
                    .find(|l| l.contains("NO VULKAN"))
                    .unwrap_or("")
                    .trim()
            ),
        );
        return false;
    }
    true
}

fn summary(stdout: &str) -> (usize, usize, usize) {
    let line = stdout.lines().last().expect("a summary line");
    let nums: Vec<usize> = line
        .split([' ', ','])
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(
        line.ends_with("skipped") && nums.len() == 3,
        "bad summary line '{line}'"
    );
    (nums[0], nums[1], nums[2])
}

#[test]
fn wrong_expectation_fails_the_run() {
    let Some(c) = compiler() else { return };
    let c = c.to_string_lossy().into_owned();
    let out = run(
        &[
            "--backend",
            "vkd3d",
            "--hlsl-compiler",
            &c,
            "vk-runner/tests/fixtures/expected-failure.shader_test",
        ],
        &[],
    );
    if !has_device(&out) {
        return;
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "must exit 1 when a check fails:\n{stdout}"
    );
    assert_eq!(summary(&stdout), (2, 2, 0), "{stdout}");
    assert!(stdout.contains("expected-failure.shader_test:17: fail [probe]: at (0, 0): got (0.5, 0.25, 0.125, 1.0), expected (0.75, 0.25, 0.125, 1.0)"), "{stdout}");
    assert!(
        stdout.contains("expected-failure.shader_test:19: fail (todo) [probe]"),
        "{stdout}"
    );
    assert!(
        stdout.contains("expected-failure.shader_test:15: pass [probe]"),
        "{stdout}"
    );
}

#[test]
fn harness_tests_pass_with_the_vkd3d_backend() {
    let Some(c) = compiler() else { return };
    let c = c.to_string_lossy().into_owned();
    let mut files: Vec<String> = std::fs::read_dir(root().join("shaders/runtime/harness"))
        .expect("harness dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "shader_test"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert!(files.len() >= 4, "harness files: {files:?}");
    let mut args = vec![
        "--backend",
        "vkd3d",
        "--validate",
        "--hlsl-compiler",
        &c,
        "--json",
    ];
    args.extend(files.iter().map(String::as_str));
    let mut out = run(&args, &[]);
    if String::from_utf8_lossy(&out.stderr).contains("VK_LAYER_KHRONOS_validation is not installed")
    {
        integration_tests::skip::skip_part(
            "Vulkan validation layer",
            "VK_LAYER_KHRONOS_validation not installed",
            "ran without it",
        );
        args.retain(|a| *a != "--validate");
        out = run(&args, &[]);
    }
    if !has_device(&out) {
        return;
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    let failed: Vec<&serde_json::Value> = v["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["status"] != "pass")
        .collect();
    assert!(failed.is_empty(), "checks that did not pass: {failed:#?}");
    assert!(v["passed"].as_u64().expect("passed") >= 25, "{v}");
    // The runner's own use of Vulkan must be valid. A module vkd3d-shader wrote that spirv-val
    // rejects (vkd3d-shader 2.1 declares a geometry shader's Position input twice) is
    // vkd3d-shader's error, not the runner's: recorded, not failed.
    let errors = v["run"]["validation"]["errors"].as_u64().unwrap_or(0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let reported: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("validation error: "))
        .collect();
    assert_eq!(reported.len() as u64, errors, "{stderr}");
    let runner_errors: Vec<&&str> = reported
        .iter()
        .filter(|l| {
            !l.contains("vkCreateShaderModule(): pCreateInfo->pCode (spirv-val produced an error)")
        })
        .collect();
    assert!(runner_errors.is_empty(), "validation errors: {stderr}");
    if errors > 0 {
        let vuids: std::collections::BTreeSet<&str> = stderr
            .split(['[', ']'])
            .filter(|w| w.starts_with("VUID-"))
            .collect();
        integration_tests::skip::skip_part(
            "Vulkan validation layer",
            "vkd3d-shader's SPIR-V fails spirv-val in the layer",
            &format!(
                "{errors} module(s) ({}); the runner's own Vulkan use validated",
                vuids.into_iter().collect::<Vec<_>>().join(", ")
            ),
        );
    }
    assert_eq!(out.status.code(), Some(if errors > 0 { 1 } else { 0 }));
}

#[test]
fn no_device_skips_everything_loudly() {
    let out = run_with(
        &[
            "--backend",
            "ours",
            "shaders/runtime/harness/pixel-uniforms.shader_test",
        ],
        &[
            ("VK_DRIVER_FILES", "/nonexistent/icd.json"),
            ("VK_ICD_FILENAMES", "/nonexistent/icd.json"),
        ],
        true,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stderr.contains("NO VULKAN DEVICE"), "stderr: {stderr}");
    assert_eq!(summary(&stdout), (0, 0, 5), "{stdout}");
    assert!(
        stdout.contains("pixel-uniforms.shader_test:16: skip [draw]: no Vulkan device"),
        "{stdout}"
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn parse_errors_are_failures() {
    let dir = std::env::var_os("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let f = dir.join("vk-runner-malformed.shader_test");
    // A malformed line in a block whose requirements keep it from running is judged as vkd3d's
    // runner judges it (never read): a skip, which names the parse error too.
    std::fs::write(
        &f,
        "[test]\nprobe (0, 0) rgba (1.0, 2.0)\nfrobnicate\n\
         [require]\nshader model >= 6.0\n[test]\nuniform 0 uint4 1\n",
    )
    .expect("write");
    let out = run_with(
        &[f.to_str().expect("utf-8 path")],
        &[
            ("VK_DRIVER_FILES", "/nonexistent/icd.json"),
            ("VK_ICD_FILENAMES", "/nonexistent/icd.json"),
        ],
        true,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(":2: fail [parse]: expected 4 values, got 2"),
        "{stdout}"
    );
    assert!(
        stdout.contains(":3: fail [parse]: unknown test directive 'frobnicate'"),
        "{stdout}"
    );
    assert!(
        stdout.contains(":7: skip [parse]: requires shader model 6.0..6.6")
            && stdout.contains("(and the line does not parse: expected an integer at ''"),
        "{stdout}"
    );
    assert_eq!(summary(&stdout), (0, 2, 1));
}

#[test]
fn shader_model_range() {
    let dir = std::env::var_os("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let f = dir.join("vk-runner-sm5.shader_test");
    std::fs::write(
        &f,
        "[require]\nshader model >= 5.0\n\n[test]\ndraw quad\nprobe (0, 0) f32(1, 2, 3, 4)\n",
    )
    .expect("write");
    let path = f.to_str().expect("utf-8 path");
    // No device needed: the block admits no model in 4.0..4.1, so both checks skip naming the
    // range (without a device the reason would be the device instead).
    let out = run(&["--max-shader-model", "4.1", path], &[]);
    if !has_device(&out) {
        return;
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(
            ":5: skip [draw]: requires shader model 5.0..6.6; this pass compiles DXBC for 4.0..4.1"
        ),
        "{stdout}"
    );
    assert_eq!(summary(&stdout), (0, 0, 2), "{stdout}");
    // An empty or malformed range is a usage error.
    for args in [
        &["--shader-model", "5.1", "--max-shader-model", "5.0", path][..],
        &["--max-shader-model", "5.x", path][..],
    ] {
        let out = run(args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn a_missing_hlsl_compiler_is_said_once_and_its_checks_skip() {
    let out = run(
        &[
            "--hlsl-compiler",
            "/nonexistent/vkd3d-compiler",
            "shaders/runtime/harness/pixel-uniforms.shader_test",
            "shaders/runtime/harness/compute-uav.shader_test",
        ],
        &[],
    );
    if !has_device(&out) {
        return;
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stderr.matches("CANNOT COMPILE HLSL").count(),
        1,
        "said once, at the top: {stderr}"
    );
    assert!(
        stderr.contains("--hlsl-compiler") && stderr.contains("tools/vkd3d-compiler.sh"),
        "says how to fix it: {stderr}"
    );
    let (passed, failed, skipped) = summary(&stdout);
    assert_eq!((passed, failed), (0, 0), "{stdout}");
    assert!(skipped >= 5, "{stdout}");
    let reason = "cannot compile HLSL: HLSL compiler '/nonexistent/vkd3d-compiler' not found";
    assert!(
        stdout.contains(&format!("skip [draw]: {reason}"))
            && stdout.contains(&format!("skip [dispatch]: {reason}")),
        "{stdout}"
    );
    assert_eq!(out.status.code(), Some(0), "skips do not fail the run");
}
