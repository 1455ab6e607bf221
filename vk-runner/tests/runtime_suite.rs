//! The runtime suite: D3D semantics proven on a Vulkan device. Runs the `vk-runner` binary
//! (our translator, the default backend) over every `.shader_test` under `shaders/runtime/`
//! (vk-runner's own deliberately failing case lives in `vk-runner/tests/fixtures/`), and
//! requires no failed check and at least [`MIN_PASSED`] passing ones; a second run under the
//! Khronos validation layer requires no validation error.
//!
//! **Which binary.** The one cargo built for this test (`CARGO_BIN_EXE_vk-runner`), so a stale
//! binary is never tested and no second build (with other features) is made.
//!
//! **Which driver, which compiler.** Under `tools/lavapipe.sh` (which exports
//! `DXBC_SPIRV_LAVAPIPE`) a child process would not see Mesa 25's lavapipe, so vk-runner is
//! started through the script (`integration_tests::vulkan_command`). HLSL compiles with
//! `tools/vkd3d-compiler.sh`.
//!
//! **What it reports.** The first run records its counts for the `runtime:` line of
//! `tests/run.sh`'s summary, and each reason checks were skipped for (a device feature lavapipe
//! lacks, ...) as a skip group (`integration_tests::skip`).
//!
//! **No device, no compiler.** Without a Vulkan device (or with an HLSL compiler that does not
//! run, or without the validation layer for the second test) the checks would be skipped. The
//! test then records a loud skip and returns — unless it runs in CI (the `CI` environment
//! variable, which GitHub Actions, GitLab CI and most others set) or with
//! `RUNTIME_SUITE_STRICT=1`: there it fails, because a CI machine that lost its Vulkan driver
//! must not turn the suite green by running nothing.

use integration_tests::{repo_root, skip, vulkan_command};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The fewest passing checks the suite must produce (issue 29's acceptance line; 1,567 pass on
/// Mesa 25's lavapipe).
const MIN_PASSED: u64 = 1400;
/// Passing checks expected from `shaders/runtime/d3d9/` (the SM1–3 pass).
const MIN_D3D9_PASSED: usize = 200;

/// The skip group of the suite as a whole.
const GROUP: &str = "runtime suite";

/// Whether a would-be skip must fail instead.
fn strict() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
        || std::env::var_os("RUNTIME_SUITE_STRICT").is_some_and(|v| v == "1")
}

/// Reports that the suite could not run: a loud skip, or a failure in strict mode.
fn cannot_run(why: &str) {
    let banner = "*".repeat(78);
    eprintln!(
        "{banner}\nruntime_suite: SKIPPED — {why}\nruntime_suite: this is NOT a pass.\n{banner}"
    );
    assert!(
        !strict(),
        "runtime_suite: {why} (CI or RUNTIME_SUITE_STRICT=1: the suite must run here)"
    );
    skip::skip(GROUP, why);
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

/// Runs vk-runner with `--json` over the suite, on the test's driver.
fn run_suite(extra: &[&str]) -> Output {
    let bin = env!("CARGO_BIN_EXE_vk-runner");
    let compiler = repo_root().join("tools/vkd3d-compiler.sh");
    let mut cmd = vulkan_command(bin);
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runtime-suite-cache");
    cmd.current_dir(repo_root())
        .arg("--json")
        .arg("--hlsl-compiler")
        .arg(&compiler)
        .arg("--cache-dir")
        .arg(cache)
        .args(extra)
        .args(suite_dirs());
    cmd.output().unwrap_or_else(|e| panic!("run {bin}: {e}"))
}

/// The parsed JSON report.
fn parse(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "vk-runner printed no JSON report ({e}); exit {:?}\nstderr:\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Whether the checks could run: a device and an HLSL compiler; when not, reports why
/// ([`cannot_run`]) and returns false.
fn could_run(out: &Output, v: &Value) -> bool {
    let stderr = String::from_utf8_lossy(&out.stderr);
    if let Some(line) = stderr.lines().find(|l| l.contains("NO VULKAN DEVICE")) {
        cannot_run(&format!("no Vulkan device ({})", line.trim()));
        return false;
    }
    if let Some(why) = v["run"]["hlsl_compiler_error"].as_str() {
        cannot_run(&format!("cannot compile HLSL: {why}"));
        return false;
    }
    true
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

/// The skipped checks by reason: how many, and in which files. A probe skipped because the
/// draw or dispatch before it was skipped counts under that draw's reason.
fn skips_by_reason(v: &Value) -> BTreeMap<String, (usize, Vec<String>)> {
    let checks = v["checks"].as_array().expect("checks");
    let file = |c: &Value| c["file"].as_str().unwrap_or("?").to_string();
    let reason_at = |f: &str, line: u64| {
        checks
            .iter()
            .find(|c| c["status"] == "skip" && file(c) == f && c["line"].as_u64() == Some(line))
            .and_then(|c| c["message"].as_str())
    };
    let mut out: BTreeMap<String, (usize, Vec<String>)> = BTreeMap::new();
    for c in checks.iter().filter(|c| c["status"] == "skip") {
        let f = file(c);
        let mut reason = c["message"].as_str().unwrap_or("").to_string();
        if let Some(line) = reason
            .strip_prefix("the draw/dispatch at line ")
            .and_then(|r| r.strip_suffix(" did not run (skipped)"))
            .and_then(|n| n.parse().ok())
            && let Some(r) = reason_at(&f, line)
        {
            reason = r.to_string();
        }
        let e = out.entry(reason).or_default();
        e.0 += 1;
        let short = f.strip_prefix("shaders/runtime/").unwrap_or(&f).to_string();
        if !e.1.contains(&short) {
            e.1.push(short);
        }
    }
    out
}

#[test]
fn runtime_suite_passes_on_vulkan() {
    let out = run_suite(&[]);
    let v = parse(&out);
    let (passed, failed, skipped) = (
        count(&v, "passed"),
        count(&v, "failed"),
        count(&v, "skipped"),
    );
    eprintln!(
        "runtime_suite: {} — {passed} passed, {failed} failed, {skipped} skipped",
        v["run"]["device"].as_str().unwrap_or("no device")
    );
    skip::record_runtime(passed, failed, skipped);
    for (reason, (n, files)) in skips_by_reason(&v) {
        skip::skip_part(
            "runtime checks",
            &reason,
            &format!(
                "{n} check{} in {}",
                if n == 1 { "" } else { "s" },
                files.join(", ")
            ),
        );
    }
    let failures = checks_with(&v, "fail");
    assert!(
        failures.is_empty(),
        "{failed} runtime check(s) failed:\n{}",
        failures.join("\n")
    );
    if !could_run(&out, &v) {
        return;
    }
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
    let out = run_suite(&["--validate"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("VK_LAYER_KHRONOS_validation is not installed") {
        cannot_run("VK_LAYER_KHRONOS_validation is not installed (tools/lavapipe.sh brings it)");
        return;
    }
    let v = parse(&out);
    if !could_run(&out, &v) {
        return;
    }
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
    let out = run_suite(&["--float-controls2"]);
    let v = parse(&out);
    if !could_run(&out, &v) {
        return;
    }
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
        skip::skip(
            "runtime suite, float_controls2 form",
            &format!("the device lacks shaderFloatControls2 ({lacking} checks)"),
        );
        return;
    }
    assert!(
        passed >= MIN_PASSED,
        "only {passed} checks passed with --float-controls2 (at least {MIN_PASSED} expected); {skipped} skipped"
    );
    assert_eq!(out.status.code(), Some(0), "vk-runner exit status");
}
