//! The runtime suite: D3D semantics proven on a Vulkan device. Runs the `vk-runner` binary
//! (our translator, the default backend) over every `.shader_test` under `shaders/runtime/`
//! (vk-runner's own deliberately failing case lives in `vk-runner/tests/fixtures/`), and
//! requires no failed check and at least
//! [`MIN_PASSED`] passing ones; a second run under the Khronos validation layer requires no
//! validation error.
//!
//! **Which binary.** The test asks the cargo running it (`$CARGO`) to build `vk-runner` in the
//! test's own profile — a no-op when it is fresh — and takes the executable's path from cargo's
//! JSON messages, so a stale binary is never tested. `VK_RUNNER_BIN` overrides this.
//!
//! **Which driver.** Under `../shared/tools/with-new-lavapipe` (which exports
//! `WITH_NEW_LAVAPIPE`) a child process would not see the newer lavapipe, so vk-runner is
//! started through the wrapper, as vk-runner's own CLI tests do.
//!
//! **No device, no compiler.** Without a Vulkan device (or without
//! `../shared/tools/vkd3d-compiler`, or the validation layer for the second test) every check
//! would be skipped. The test then prints a loud SKIPPED banner and returns — unless it runs in
//! CI (the `CI` environment variable, which GitHub Actions, GitLab CI and most others set) or
//! with `RUNTIME_SUITE_STRICT=1`: there it fails, because a CI machine that lost its Vulkan
//! driver must not turn the suite green by running nothing. CI is expected to provide lavapipe
//! (`mesa-vulkan-drivers`), the shared tools and `vulkan-validationlayers`.

use integration_tests::{repo_root, shared_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The fewest passing checks the suite must produce (the acceptance line).
const MIN_PASSED: u64 = 120;
/// Passing checks expected from `shaders/runtime/d3d9/` (the SM1–3 pass).
const MIN_D3D9_PASSED: usize = 200;

/// Whether a would-be skip must fail instead.
fn strict() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
        || std::env::var_os("RUNTIME_SUITE_STRICT").is_some_and(|v| v == "1")
}

/// Reports that the suite could not run: a loud skip, or a failure in strict mode.
fn cannot_run(why: &str) {
    let banner = "*".repeat(78);
    eprintln!(
        "{banner}\nruntime_suite: SKIPPED — {why}\nruntime_suite: no runtime check ran; this is NOT a pass.\n{banner}"
    );
    assert!(
        !strict(),
        "runtime_suite: {why} (CI or RUNTIME_SUITE_STRICT=1: the suite must run here)"
    );
}

/// The suite's directories: every directory under `shaders/runtime` holding at least one
/// `.shader_test`.
fn suite_dirs() -> Vec<PathBuf> {
    let runtime = repo_root().join("shaders/runtime");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&runtime)
        .unwrap_or_else(|e| panic!("{}: {e}", runtime.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_dir())
        .filter(|p| {
            std::fs::read_dir(p).is_ok_and(|mut it| {
                it.any(|e| {
                    e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "shader_test"))
                })
            })
        })
        .collect();
    dirs.sort();
    // Relative to the repository root (vk-runner runs there), for readable reports.
    let dirs: Vec<PathBuf> = dirs
        .iter()
        .map(|d| {
            d.strip_prefix(repo_root())
                .map_or(d.clone(), Path::to_path_buf)
        })
        .collect();
    assert!(
        dirs.len() >= 3,
        "expected the runtime suite's directories under {}, found {dirs:?}",
        runtime.display()
    );
    dirs
}

/// Builds vk-runner with the cargo running this test (same profile, same target directory)
/// and returns the executable cargo reports.
fn vk_runner_binary() -> PathBuf {
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

/// Runs vk-runner with `--json` over the suite; under with-new-lavapipe through the wrapper.
fn run_suite(extra: &[&str], compiler: &Path) -> Output {
    let bin = vk_runner_binary();
    let mut cmd = match std::env::var_os("WITH_NEW_LAVAPIPE") {
        Some(w) => {
            let mut c = Command::new(w);
            c.arg(&bin);
            c
        }
        None => Command::new(&bin),
    };
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runtime-suite-cache");
    cmd.current_dir(repo_root())
        .arg("--json")
        .arg("--hlsl-compiler")
        .arg(compiler)
        .arg("--cache-dir")
        .arg(cache)
        .args(extra)
        .args(suite_dirs());
    cmd.output()
        .unwrap_or_else(|e| panic!("run {}: {e}", bin.display()))
}

/// The HLSL compiler from `../shared`, or None (after reporting why) when it is absent.
fn compiler() -> Option<PathBuf> {
    let c = shared_dir().map(|s| s.join("tools/vkd3d-compiler"));
    match c {
        Some(c) if c.is_file() => Some(c),
        _ => {
            cannot_run(
                "../shared/tools/vkd3d-compiler not found (HLSL sections cannot be compiled)",
            );
            None
        }
    }
}

/// The parsed JSON report, or None (after reporting why) when no device was found.
fn report(out: &Output) -> Option<Value> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("NO VULKAN DEVICE") {
        let line = stderr.lines().find(|l| l.contains("NO VULKAN DEVICE"));
        cannot_run(&format!("no Vulkan device ({})", line.unwrap_or("").trim()));
        return None;
    }
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "vk-runner printed no JSON report ({e}); exit {:?}\nstderr:\n{stderr}",
            out.status.code()
        )
    });
    Some(v)
}

fn count(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("report has no '{key}'"))
}

/// `file:line: status [kind]: message` for each check with `status`.
fn checks_with(v: &Value, status: &str) -> Vec<String> {
    v["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["status"] == status)
        .map(|c| {
            format!(
                "{}:{}: {status}{} [{}]: {}",
                c["file"].as_str().unwrap_or("?"),
                c["line"],
                if c["todo"] == true { " (todo)" } else { "" },
                c["kind"].as_str().unwrap_or(""),
                c["message"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn runtime_suite_passes_on_vulkan() {
    let Some(compiler) = compiler() else { return };
    let out = run_suite(&[], &compiler);
    let Some(v) = report(&out) else { return };
    let (passed, failed, skipped) = (
        count(&v, "passed"),
        count(&v, "failed"),
        count(&v, "skipped"),
    );
    eprintln!(
        "runtime_suite: {} — {passed} passed, {failed} failed, {skipped} skipped",
        v["run"]["device"].as_str().unwrap_or("?")
    );
    // Skipped draws and dispatches say why (their probes just follow them).
    for s in checks_with(&v, "skip") {
        if !s.contains("[probe]") {
            eprintln!("  {s}");
        }
    }
    let failures = checks_with(&v, "fail");
    assert!(
        failures.is_empty(),
        "{failed} runtime check(s) failed:\n{}",
        failures.join("\n")
    );
    assert!(
        passed >= MIN_PASSED,
        "only {passed} checks passed (at least {MIN_PASSED} expected); {skipped} skipped"
    );
    // The SM1–3 cases run in the default run too (their `[header]` lists 2.0/3.0).
    let d3d9 = checks_with(&v, "pass")
        .iter()
        .filter(|c| c.contains("runtime/d3d9/"))
        .count();
    assert!(
        d3d9 >= MIN_D3D9_PASSED,
        "only {d3d9} SM1–3 checks passed (at least {MIN_D3D9_PASSED} expected)"
    );
    assert_eq!(out.status.code(), Some(0), "vk-runner exit status");
}

#[test]
fn runtime_suite_has_no_validation_errors() {
    let Some(compiler) = compiler() else { return };
    let out = run_suite(&["--validate"], &compiler);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("VK_LAYER_KHRONOS_validation is not installed") {
        cannot_run("VK_LAYER_KHRONOS_validation is not installed (apt: vulkan-validationlayers)");
        return;
    }
    let Some(v) = report(&out) else { return };
    let errors = v["run"]["validation"]["errors"]
        .as_u64()
        .expect("a --validate report counts validation errors");
    let warnings = v["run"]["validation"]["warnings"].as_u64().unwrap_or(0);
    eprintln!(
        "runtime_suite --validate: {} passed, {} failed, {} skipped; {errors} validation errors, {warnings} warnings",
        count(&v, "passed"),
        count(&v, "failed"),
        count(&v, "skipped")
    );
    let messages: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("validation error"))
        .take(20)
        .collect();
    assert_eq!(
        errors,
        0,
        "validation errors over the runtime suite (first {}):\n{}",
        messages.len(),
        messages.join("\n")
    );
    assert!(
        count(&v, "passed") >= MIN_PASSED,
        "the validated run passed too few checks"
    );
}

/// The suite again with our translator's `SPV_KHR_float_controls2` form of the precision rules
/// (`Options::float_controls2`: fast-math defaults instead of `NoContraction`): every check
/// must give the same result, so none may fail. On a device without
/// `shaderFloatControls2` (VK_KHR_shader_float_controls2; Mesa 25's lavapipe has it, Debian
/// 12's does not) every module is skipped naming the feature, and the test reports a loud
/// skip — it fails there only in strict mode if the device has the feature but nothing ran.
#[test]
fn runtime_suite_passes_with_float_controls2() {
    let Some(compiler) = compiler() else { return };
    let out = run_suite(&["--float-controls2"], &compiler);
    let Some(v) = report(&out) else { return };
    let (passed, failed, skipped) = (
        count(&v, "passed"),
        count(&v, "failed"),
        count(&v, "skipped"),
    );
    let lacking = checks_with(&v, "skip")
        .iter()
        .filter(|c| c.contains("lacks shaderFloatControls2"))
        .count();
    eprintln!(
        "runtime_suite --float-controls2: {} — {passed} passed, {failed} failed, {skipped} skipped ({lacking} for want of shaderFloatControls2)",
        v["run"]["device"].as_str().unwrap_or("?")
    );
    let failures = checks_with(&v, "fail");
    assert!(
        failures.is_empty(),
        "{failed} runtime check(s) failed with --float-controls2:\n{}",
        failures.join("\n")
    );
    if lacking > 0 {
        let banner = "*".repeat(78);
        eprintln!(
            "{banner}\nruntime_suite: float_controls2 SKIPPED — the device lacks shaderFloatControls2 \
             ({lacking} checks skipped for it); run under tools/lavapipe.sh (Mesa 25) to test it.\n\
             runtime_suite: this is NOT a pass of the float_controls2 mode.\n{banner}"
        );
        return;
    }
    assert!(
        passed >= MIN_PASSED,
        "only {passed} checks passed with --float-controls2 (at least {MIN_PASSED} expected); {skipped} skipped"
    );
    assert_eq!(out.status.code(), Some(0), "vk-runner exit status");
}
