//! `vk-runner diff` end to end: three shaders written here with the DXBC assembler run through
//! our SPIR-V and vkd3d-shader's; they must agree, a deliberate miscompile of our side
//! (`--inject-miscompile swap-output`) must be reported as a difference with exit status 1,
//! and a crash of our worker (`--inject-miscompile crash`) must cost only the shader it
//! happened on. A pixel shader with an output made from an atomic's return value (which
//! depends on the order pixels run in) must have that output left out, saying why, and its
//! other output still compared: the miscompile is reported there.
//!
//! They need a Vulkan device and vkd3d-compiler (`tools/vkd3d-compiler.sh`); without either
//! they record why they are skipped (`integration_tests::skip`) and return.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// The repository's vkd3d-compiler, if it runs.
fn compiler() -> Option<PathBuf> {
    let c = root().join("tools/vkd3d-compiler.sh");
    let ok = Command::new(&c)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Some(c)
    } else {
        integration_tests::skip::skip(
            integration_tests::VKD3D,
            &format!("{} does not run", c.display()),
        );
        None
    }
}

/// Runs `vk-runner diff ARGS` (under the lavapipe wrapper the tests run under, if any), with
/// the cache of the test `test` (tests run in parallel: each has its own files).
fn diff(test: &str, args: &[&str], compiler: &Path) -> Output {
    let bin = env!("CARGO_BIN_EXE_vk-runner");
    let mut cmd = integration_tests::vulkan_command(bin);
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("diff-test-cache-{test}"));
    cmd.current_dir(root())
        .arg("diff")
        .arg("--vkd3d-compiler")
        .arg(compiler)
        .arg("--cache-dir")
        .arg(cache)
        .args(args);
    cmd.output().expect("run vk-runner diff")
}

/// Writes the test shaders: a pixel shader (arithmetic on a varying into a vector output), a
/// compute shader (thread IDs into a UAV) and a geometry shader (two vertices per point), into
/// a directory of the test `test`'s own (another test rewriting a file while vk-runner reads
/// it made a run fail).
fn shaders(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("diff-test-shaders-{test}"));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ps = "ps_5_0\n\
              .input TEXCOORD 0 v1.xyzw float\n\
              .output SV_Target 0 o0.xyzw float\n\
              dcl_input_ps linear v1.xyzw\n\
              dcl_output o0.xyzw\n\
              dcl_temps 1\n\
              add r0.xyzw, v1.xyzw, v1.yxwz\n\
              mul o0.xyzw, r0.xyzw, l(0.5, 2.0, 1.0, 3.0)\n\
              ret\n";
    let cs = "cs_5_0\n\
              dcl_uav_typed_buffer (uint,uint,uint,uint) u0\n\
              dcl_input vThreadID.x\n\
              dcl_temps 1\n\
              dcl_thread_group 8, 1, 1\n\
              imul null, r0.x, vThreadID.x, l(3)\n\
              store_uav_typed u0.xyzw, vThreadID.xxxx, r0.xxxx\n\
              ret\n";
    let gs = "gs_4_0\n\
              .input TEXCOORD 0 v0.xyzw float\n\
              .output SV_Position 0 o0.xyzw float POS\n\
              .output TEXCOORD 0 o1.xyzw float\n\
              dcl_input v[1][0].xyzw\n\
              dcl_inputprimitive point\n\
              dcl_outputtopology pointlist\n\
              dcl_output_siv o0.xyzw, position\n\
              dcl_output o1.xyzw\n\
              dcl_maxout 2\n\
              mov o0.xyzw, v[0][0].xyzw\n\
              add o1.xyzw, v[0][0].xyzw, v[0][0].yxwz\n\
              emit\n\
              mov o0.xyzw, v[0][0].wzyx\n\
              mul o1.xyzw, v[0][0].xyzw, l(2.0, 3.0, 0.5, 1.0)\n\
              emit\n\
              ret\n";
    for (name, text) in [("a_ps.dxbc", ps), ("b_cs.dxbc", cs), ("c_gs.dxbc", gs)] {
        let bytes = translator::asm::assemble(text).expect("the test shader assembles");
        std::fs::write(dir.join(name), bytes).expect("write the test shader");
    }
    dir
}

fn has_device(out: &Output) -> bool {
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("NO VULKAN DEVICE") {
        integration_tests::skip::skip("Vulkan", "no Vulkan device");
        return false;
    }
    true
}

fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn agreement_and_an_injected_miscompile() {
    let Some(c) = compiler() else { return };
    let dir = shaders("agree");
    let dir = dir.to_str().expect("utf-8 path");
    let out = diff("agree", &[dir], &c);
    if !has_device(&out) {
        return;
    }
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(
        t.lines()
            .any(|l| l == "diff: 3 shaders, 3 ran, 3 agree, 0 differ, 0 not run"),
        "{t}"
    );
    assert!(t.contains("shaders per second"), "{t}");

    let json = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("diff-inject.json");
    let json = json.to_str().expect("utf-8 path");
    let out = diff(
        "agree",
        &["--inject-miscompile", "swap-output", "--json", json, dir],
        &c,
    );
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "a difference exits 1: {t}");
    let line = t
        .lines()
        .find(|l| l.contains("a_ps.dxbc: differ"))
        .unwrap_or_else(|| panic!("the swapped output is reported: {t}"));
    assert!(line.contains("SV_TARGET0.x at pixel"), "{line}");
    assert!(
        line.contains("reproduce: vk-runner diff --seed 1"),
        "{line}"
    );
    // In the geometry shader, the swap happens before each emitted vertex (at vertex 0 the
    // two components are equal: x + y and y + x).
    assert!(
        t.lines()
            .any(|l| l.contains("c_gs.dxbc: differ: TEXCOORD0.x at vertex 1")),
        "{t}"
    );
    // The compute shader has no vector output to swap: our side cannot run it miscompiled.
    assert!(
        t.lines()
            .any(|l| l == "diff: 3 shaders, 2 ran, 0 agree, 2 differ, 1 not run"),
        "{t}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).expect("the JSON report"))
            .expect("valid JSON");
    assert_eq!(report["differ"], 2);
    let e = report["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .find(|e| e["status"] == "differ" && e["class"] == "dxbc ps")
        .expect("the differing entry");
    assert_eq!(e["difference"]["output"], "SV_TARGET0");
    assert_eq!(e["difference"]["component"], 0);
    assert_ne!(e["difference"]["ours"], e["difference"]["theirs"]);
    assert_eq!(e["reproduce"]["seed"], 1);
}

#[test]
fn a_crashing_worker_costs_one_shader() {
    let Some(c) = compiler() else { return };
    let dir = shaders("crash");
    let out = diff(
        "crash",
        &["--inject-miscompile", "crash", dir.to_str().expect("utf-8")],
        &c,
    );
    if !has_device(&out) {
        return;
    }
    let t = text(&out);
    // Every shader crashes our worker, which is restarted for the next.
    assert_eq!(
        t.matches("crashed (ours): killed by signal 6 (SIGABRT)")
            .count(),
        3,
        "{t}"
    );
    assert!(
        t.lines()
            .any(|l| l == "diff: 3 shaders, 0 ran, 0 agree, 0 differ, 3 not run"),
        "{t}"
    );
    assert_eq!(out.status.code(), Some(0), "{t}");
}

/// A pixel shader whose SV_Target1 is the value an atomic add returned (which pixel came
/// first) and whose SV_Target0 is arithmetic on a varying.
fn atomic_ps() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("diff-test-order");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ps = "ps_5_0\n\
              .input TEXCOORD 0 v1.xyzw float\n\
              .output SV_Target 0 o0.xyzw float\n\
              .output SV_Target 1 o1.x uint\n\
              dcl_uav_raw u2\n\
              dcl_input_ps linear v1.xyzw\n\
              dcl_output o0.xyzw\n\
              dcl_output o1.x\n\
              dcl_temps 1\n\
              imm_atomic_iadd o1.x, u2, l(0), l(1)\n\
              add r0.xyzw, v1.xyzw, v1.yxwz\n\
              mul o0.xyzw, r0.xyzw, l(0.5, 2.0, 1.0, 3.0)\n\
              ret\n";
    let bytes = translator::asm::assemble(ps).expect("the test shader assembles");
    std::fs::write(dir.join("atomic_ps.dxbc"), bytes).expect("write the test shader");
    dir
}

#[test]
fn order_dependent_outputs_are_left_out_and_the_rest_compared() {
    let Some(c) = compiler() else { return };
    let dir = atomic_ps();
    let dir = dir.to_str().expect("utf-8 path");
    let json = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("diff-order.json");
    let json = json.to_str().expect("utf-8 path");
    let out = diff("order", &["--json", json, dir], &c);
    if !has_device(&out) {
        return;
    }
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    let line = t
        .lines()
        .find(|l| l.contains("atomic_ps.dxbc: agree"))
        .unwrap_or_else(|| panic!("the shader agrees: {t}"));
    assert!(
        line.contains("1 output order-dependent, not compared: SV_TARGET1 (computed from an atomic's return value"),
        "{line}"
    );
    assert!(
        t.lines()
            .any(|l| l == "diff: 1 outputs of 1 shaders order-dependent, not compared"),
        "{t}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).expect("the JSON report"))
            .expect("valid JSON");
    assert_eq!(report["not_compared_outputs"], 1);
    let e = &report["entries"][0];
    assert_eq!(e["not_compared"][0]["output"], "SV_TARGET1");
    assert_eq!(e["not_compared"].as_array().map(Vec::len), Some(1), "{e}");
    // SV_Target0's four components at each of the 16x16 pixels, and the UAV (the count of
    // 256 adds and the words around it).
    assert!(e["values"].as_u64().is_some_and(|v| v > 1024), "{e}");

    let out = diff("order", &["--inject-miscompile", "swap-output", dir], &c);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "a difference exits 1: {t}");
    assert!(
        t.lines()
            .any(|l| l.contains("atomic_ps.dxbc: differ: SV_TARGET0.x at pixel")),
        "{t}"
    );
}
