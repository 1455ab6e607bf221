//! Runs the vk-bench binary on three bench shaders (a compute shader, a pixel shader writing
//! several targets and depth, one sampling with depth comparison): each must be timed with
//! both translators, and the validation layer must report nothing about how the stand-in
//! resources, generated vertex shader and render targets are used.
//!
//! Needs a Vulkan device, `../shared/bench` and `tools/vkd3d-compiler.sh`; without them it
//! records why (`integration_tests::skip`) and returns early.

use std::path::PathBuf;

#[test]
fn times_compute_and_pixel_shaders_with_both_translators() {
    let Some(shared) = integration_tests::shared_dir_or_skip() else {
        return;
    };
    let Some((compiler, _)) = integration_tests::vkd3d_compiler_or_skip() else {
        return;
    };
    let bench = shared.join("bench/dxbc");
    let names = ["cs40_simple", "ps50_mrt_depth", "ps40_pcf"];
    let mut cmd = integration_tests::vulkan_command(env!("CARGO_BIN_EXE_vk-bench"));
    let cache = std::env::var_os("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
        .join("vk-runner-test-cache");
    cmd.args([
        "--validate",
        "--repeat",
        "2",
        "--rounds",
        "2",
        "--size",
        "32",
    ])
    .args(["--threads", "1024", "--vkd3d-compiler"])
    .arg(&compiler)
    .arg("--cache-dir")
    .arg(cache)
    .args(names.iter().map(|n| bench.join(format!("{n}.dxbc"))));
    let out = cmd.output().expect("run vk-bench");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("no Vulkan device") {
        integration_tests::skip::skip("Vulkan", stderr.trim());
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    for n in names {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(n))
            .unwrap_or_else(|| panic!("no line for {n}:\n{stdout}"));
        let nums: Vec<f64> = line
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        assert_eq!(nums.len(), 3, "{line}");
        assert!(nums.iter().all(|t| *t > 0.0 && t.is_finite()), "{line}");
    }
    assert!(
        stdout.contains("validation: 0 errors"),
        "{stdout}\n{stderr}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("total") && l.contains("all")),
        "{stdout}"
    );
}
