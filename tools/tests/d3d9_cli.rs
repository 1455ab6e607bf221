//! `dxbc asm`, `dxbc disasm` and `dxbc info` on Direct3D 9: a listing from `shaders/d3d9`
//! assembles to a bare token stream, which `disasm` prints back as the same text and `info`
//! recognises (text and JSON); a D3D9 error is one line naming the byte offset.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DXBC: &str = env!("CARGO_BIN_EXE_dxbc");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn run(args: &[&str]) -> Output {
    Command::new(DXBC).args(args).output().expect("run dxbc")
}

/// `dxbc asm SRC -o BLOB`, which must succeed.
fn assemble(src: &Path, blob: &Path) {
    let out = run(&["asm", src.to_str().unwrap(), "-o", blob.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn asm_disasm_info_on_a_d3d9_stream() {
    let src = repo().join("shaders/d3d9/ps_1_1_texbem_coissue.asm");
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("d3d9-cli");
    std::fs::create_dir_all(&tmp).unwrap();
    let blob = tmp.join("ps.d3dbc");
    assemble(&src, &blob);
    let bytes = std::fs::read(&blob).unwrap();
    assert_eq!(bytes[..4], [0x01, 0x01, 0xFF, 0xFF], "ps_1_1 version token");

    let out = run(&["disasm", blob.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&src).unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), text);

    let out = run(&["info", blob.to_str().unwrap()]);
    assert!(out.status.success());
    let info = String::from_utf8_lossy(&out.stdout);
    assert!(info.contains("shader:    ps_1_1"), "{info}");
    assert!(info.contains("11 instructions"), "{info}");
    let out = run(&["info", "--json", blob.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["shader"], "ps_1_1");
    assert_eq!(json["format"], "d3d9");

    // Truncated: one error line naming the offset.
    let cut = tmp.join("cut.d3dbc");
    std::fs::write(&cut, &bytes[..bytes.len() - 6]).unwrap();
    let out = run(&["disasm", cut.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("byte offset"), "{err}");
}

/// `translate` of a ps_2_0 program: by default its render state (alpha test, fog, …) is
/// compiled in as specialization constants; `--d3d9-no-state` bakes D3D9's initial state, so
/// none is left; a `--d3d9-state` choice still applies on top of it.
#[test]
fn translate_with_and_without_render_state() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("d3d9-cli-state");
    std::fs::create_dir_all(&tmp).unwrap();
    let src = tmp.join("ps.asm");
    std::fs::write(&src, "ps_2_0\ndcl t0\nmov oC0, t0\n").unwrap();
    let blob = tmp.join("ps.d3dbc");
    assemble(&src, &blob);
    let text = |extra: &[&str]| {
        let mut args = vec!["translate", "--text", blob.to_str().unwrap()];
        args.extend_from_slice(extra);
        let out = run(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let default = text(&[]);
    assert!(default.contains("SpecId"), "{default}");
    assert!(default.contains("OpDemoteToHelperInvocation"), "{default}");
    let plain = text(&["--d3d9-no-state"]);
    assert!(!plain.contains("SpecId"), "{plain}");
    assert!(!plain.contains("OpDemoteToHelperInvocation"), "{plain}");
    let alpha = text(&["--d3d9-no-state", "--d3d9-state", "alpha-func=spec"]);
    assert!(alpha.contains("SpecId"), "{alpha}");
    assert!(alpha.contains("OpDemoteToHelperInvocation"), "{alpha}");
}
