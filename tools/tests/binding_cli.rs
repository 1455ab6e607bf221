//! `dxbc translate --layout / --binding-policy` and `dxbc reflect --table` on the DirectX
//! docs' SM5.1 example (`shaders/asm/docs_ps51.asm`) and its layout
//! (`shaders/runtime/bindings/docs-example.toml`): the placements shown side by side, and
//! one-line errors (exit 1) for malformed layouts, missing files and unmapped registers.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DXBC: &str = env!("CARGO_BIN_EXE_dxbc");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn tmp() -> PathBuf {
    let d = std::env::temp_dir().join(format!("dxbc-binding-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The docs' example as a container file.
fn docs_dxbc() -> PathBuf {
    let text = std::fs::read_to_string(repo().join("shaders/asm/docs_ps51.asm")).unwrap();
    let blob = translator::asm::assemble(&text).unwrap();
    // One file per call: the tests run in parallel, and a reader must never see another
    // test's half-written copy.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = tmp().join(format!("docs-{n}.dxbc"));
    std::fs::write(&p, blob).unwrap();
    p
}

fn run(args: &[&str]) -> Output {
    Command::new(DXBC).args(args).output().expect("run dxbc")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The single error line of a failed run.
fn error_line(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.starts_with("dxbc: error: "), "{e}");
    e
}

#[test]
fn reflect_table_under_the_layout() {
    let dxbc = docs_dxbc();
    let layout = repo().join("shaders/runtime/bindings/docs-example.toml");
    let o = run(&[
        "reflect",
        "--table",
        "--layout",
        layout.to_str().unwrap(),
        dxbc.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    let t = stdout(&o);
    let rows: Vec<Vec<&str>> = t
        .lines()
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    assert_eq!(rows[0], ["D3D", "space", "Vulkan", "type", "array length"]);
    assert_eq!(rows[1], ["s5", "0", "set 0 binding 0", "sampler", "1"]);
    assert_eq!(
        rows[2],
        ["t5", "0", "set 0 binding 1", "sampled image", "1"]
    );
    assert_eq!(
        rows[3],
        [
            "t0..t7",
            "1",
            "set 0 binding 2, elements 0-7",
            "sampled image",
            "8"
        ]
    );
    assert_eq!(
        rows[4],
        [
            "t10..",
            "0",
            "set 1 binding 0, elements 3-",
            "sampled image",
            "runtime"
        ]
    );
    // The JSON says the same.
    let o = run(&[
        "reflect",
        "--layout",
        layout.to_str().unwrap(),
        dxbc.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let t10 = &v["descriptors"][3];
    assert_eq!(t10["origin"]["lower"], 10);
    assert_eq!(t10["origin"]["upper"], serde_json::Value::Null);
    assert_eq!(
        (t10["set"].as_u64(), t10["binding"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(t10["array_offset"], 3);
}

#[test]
fn policies_on_the_command_line() {
    let dxbc = docs_dxbc();
    let out = tmp().join("docs.spv");
    for p in ["class-offsets", "per-range", "vkd3d"] {
        let o = run(&[
            "translate",
            "--binding-policy",
            p,
            dxbc.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{p}: {o:?}");
    }
    let o = run(&[
        "reflect",
        "--table",
        "--binding-policy",
        "vkd3d",
        dxbc.to_str().unwrap(),
    ]);
    let t = stdout(&o);
    assert!(t.contains("t0..t7  1      set 0 binding 3"), "{t}");
    // Unknown policy, and a layout with a policy: usage errors (exit 2).
    let o = run(&[
        "translate",
        "--binding-policy",
        "magic",
        dxbc.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&[
        "translate",
        "--binding-policy",
        "vkd3d",
        "--layout",
        "x.toml",
        dxbc.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn layout_errors_are_one_line() {
    let dxbc = docs_dxbc();
    let dir = tmp();
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let cases = [
        (
            write(
                "bad-class.toml",
                "[[descriptors]]\nclass = \"x\"\nset = 0\nbinding = 0\n",
            ),
            "unknown variant `x`",
        ),
        (
            write(
                "bad-json.json",
                "{\"descriptors\": [{\"class\": \"t\", \"set\": 0}]}",
            ),
            "missing field `binding`",
        ),
        (
            write(
                "overlap.toml",
                "[[descriptors]]\nclass = \"t\"\ncount = 4\nset = 0\nbinding = 0\n\
                 [[descriptors]]\nclass = \"t\"\nregister = 2\nset = 0\nbinding = 1\n",
            ),
            "cover the same registers",
        ),
        (
            // Valid, but places nothing for t0..t7 of space 1.
            write(
                "partial.toml",
                "[[descriptors]]\nclass = \"s\"\nregister = 5\nset = 0\nbinding = 0\n\
                 [[descriptors]]\nclass = \"t\"\nregister = 5\nset = 0\nbinding = 1\n\
                 [[descriptors]]\nclass = \"t\"\nregister = 10\ncount = \"unbounded\"\nset = 1\nbinding = 0\n",
            ),
            "no binding for t0..t7 in space 1",
        ),
        (dir.join("missing.toml"), "missing.toml"),
    ];
    for (layout, want) in cases {
        for cmd in ["translate", "reflect"] {
            let o = run(&[
                cmd,
                "--layout",
                layout.to_str().unwrap(),
                dxbc.to_str().unwrap(),
            ]);
            let e = error_line(&o);
            assert!(e.contains(want), "{cmd} {}: {e}", layout.display());
        }
    }
}
