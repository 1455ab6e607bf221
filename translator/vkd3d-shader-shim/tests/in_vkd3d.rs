//! The stand-in inside vkd3d: `tests/c/d3d12_compute.c`, built against Debian unstable's
//! vkd3d 2.x, creates a D3D12 device through libvkd3d-utils (vkd3d compiles its 12 internal
//! UAV-clear shaders, HLSL → DXBC → SPIR-V) and two compute pipelines from DXBC, under
//! `tools/in-vkd3d.sh` with `DXBC_SPIRV_VKD3D_STATS=1`. Every DXBC compile must reach the
//! translator (the stats line counts 14: 12 clear shaders and the two pipelines) and every HLSL
//! compile the real library (14 forwarded), none refused, in both of vkd3d's descriptor modes:
//! the default descriptor heaps (the descriptor-table pipeline's descriptor index comes from a
//! push constant, its binding is mutable, its buffers are texel buffers) and
//! `VKD3D_CONFIG=virtual_heaps` (static offsets). `--stock` runs the same program without the
//! stand-in. Skipped, saying so, when the Debian root cannot be had or no C compiler runs.

mod common;

use std::process::Command;

/// Runs the program; (status ok, stdout, stderr).
fn run(exe: &std::path::Path, stock: bool, config: Option<&str>) -> (bool, String, String) {
    // The cdylib cargo built for this test run sits beside the test executable (deps/);
    // target/PROFILE/ holds a copy only after a `cargo build`. (Run through a loader, as
    // lavapipe wrappers do, the current executable is the loader: argv[0] names the test.)
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    let by_target = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join(profile)
        .join("deps");
    let shim = [
        std::env::args().next().map(std::path::PathBuf::from),
        std::env::current_exe().ok(),
    ]
    .into_iter()
    .flatten()
    .filter_map(|p| p.parent().map(|d| d.join("libvkd3d_shader_shim.so")))
    .chain([by_target.join("libvkd3d_shader_shim.so")])
    .find(|p| p.exists())
    .unwrap_or_else(|| by_target.join("libvkd3d_shader_shim.so"));
    assert!(shim.exists(), "no stand-in at {}", shim.display());
    let mut cmd = Command::new(common::repo_root().join("tools/in-vkd3d.sh"));
    if stock {
        cmd.arg("--stock");
    }
    cmd.arg(exe)
        .env("DXBC_SPIRV_VKD3D_STATS", "1")
        .env("DXBC_SPIRV_VKD3D_SHIM", &shim)
        .env_remove("DXBC_SPIRV_VKD3D_FORWARD_REFUSED")
        .env_remove("VKD3D_CONFIG");
    if let Some(c) = config {
        cmd.env("VKD3D_CONFIG", c);
    }
    let out = cmd.output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The numbers of the stats line.
fn stats(stderr: &str) -> Option<(u64, u64, u64)> {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("dxbc-spirv in vkd3d: "))?;
    let n: Vec<u64> = line
        .split(", ")
        .map(|p| p.split(' ').next().unwrap().parse().unwrap())
        .collect();
    Some((n[0], n[1], n[2]))
}

#[test]
fn d3d12_compute_pipelines_compile_through_the_stand_in() {
    let Some(root) = common::vkd3d_root() else {
        return;
    };
    let dir = common::scratch("in-vkd3d");
    let exe = dir.join("d3d12_compute");
    let src = common::repo_root().join("translator/vkd3d-shader-shim/tests/c/d3d12_compute.c");
    if let Err(e) = common::build_c(&root, &src, &exe, &["vkd3d-utils"]) {
        integration_tests::skip::skip("vkd3d", &format!("cannot build the D3D12 program: {e}"));
        return;
    }

    let (ok, out, err) = run(&exe, true, None);
    assert!(ok, "stock vkd3d failed:\n{out}\n{err}");
    assert!(stats(&err).is_none(), "a stats line without the stand-in");
    eprintln!("stock:\n{out}");

    for config in [None, Some("virtual_heaps")] {
        let (ok, out, err) = run(&exe, false, config);
        eprintln!(
            "{}:\n{out}{err}",
            config.unwrap_or("default descriptor heaps")
        );
        assert!(ok, "the program failed under the stand-in");
        for what in [
            "device: created",
            "root-constant pipeline: created",
            "descriptor-table pipeline: created",
        ] {
            assert!(out.contains(what), "no \"{what}\"");
        }
        assert_eq!(
            stats(&err),
            Some((14, 14, 0)),
            "compiled, forwarded, refused"
        );
        assert!(!err.contains("refused "), "a refusal was logged");
    }
}
