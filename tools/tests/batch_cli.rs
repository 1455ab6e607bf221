//! End-to-end tests of `dxbc` over many inputs (`--out-dir`): a tree with same-named shaders in
//! two folders, a corrupt container, a text file and a Direct3D 9 token stream; the summary,
//! exit status, `--force`, `--update`, the `--json` report, standard output for one input,
//! assembly text told apart from other files, and outputs that do not depend on the thread
//! count (over `../shared`'s corpus when present).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const DXBC: &str = env!("CARGO_BIN_EXE_dxbc");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn example(name: &str) -> PathBuf {
    repo().join("shaders/examples").join(name)
}

fn run_in(cwd: &Path, args: &[&Path]) -> Output {
    Command::new(DXBC)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run dxbc")
}

fn run(args: &[&Path]) -> Output {
    run_in(&std::env::temp_dir(), args)
}

fn p(s: &str) -> &Path {
    Path::new(s)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dxbc-batch-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `in/a/s.dxbc` and `in/b/s.dxbc` (two different shaders of the same name), `in/a/s.hlsl` (a
/// source beside its blob: not a shader, so no collision), `in/corrupt.dxbc` (a container cut
/// short), `in/notes.txt`, and `in/old/vs.d3dbc` (a vs_2_0 token stream).
fn tree(dir: &Path) -> PathBuf {
    let input = dir.join("in");
    for sub in ["a", "b", "old"] {
        std::fs::create_dir_all(input.join(sub)).unwrap();
    }
    std::fs::copy(example("ps_texture.dxbc"), input.join("a/s.dxbc")).unwrap();
    std::fs::copy(example("vs_transform.dxbc"), input.join("b/s.dxbc")).unwrap();
    let blob = std::fs::read(example("ps_texture.dxbc")).unwrap();
    std::fs::write(input.join("corrupt.dxbc"), &blob[..200]).unwrap();
    std::fs::write(input.join("notes.txt"), "not a shader\n").unwrap();
    std::fs::write(
        input.join("a/s.hlsl"),
        "float4 main() : SV_Target { return 0; }\n",
    )
    .unwrap();
    // vs_2_0 version token, then the end token.
    let d3d9: Vec<u8> = [0xFFFE_0200u32, 0x0000_FFFF]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    std::fs::write(input.join("old/vs.d3dbc"), d3d9).unwrap();
    input
}

/// What `dxbc translate FILE` alone writes to standard output.
fn single(file: &Path) -> Vec<u8> {
    let out = run(&[p("translate"), file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    out.stdout
}

#[test]
fn tree_translates_each_good_shader_to_its_own_output() {
    let dir = scratch("tree");
    let input = tree(&dir);
    let out_dir = dir.join("out");
    let out = run(&[p("translate"), p("--out-dir"), &out_dir, &input]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a corrupt file must fail the run"
    );
    let stderr = text(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "one error line and the summary: {stderr}");
    assert!(
        lines[0].starts_with("dxbc: error: ") && lines[0].contains("corrupt.dxbc"),
        "{stderr}"
    );
    assert_eq!(
        lines[1],
        "3 translated, 1 failed, 2 skipped (not a shader: 2)"
    );
    // Each same-named shader has its own output, equal to translating it alone.
    for (sub, source) in [("a", "ps_texture.dxbc"), ("b", "vs_transform.dxbc")] {
        let spv = std::fs::read(out_dir.join(sub).join("s.spv")).unwrap();
        assert_eq!(&spv[..4], &0x0723_0203u32.to_le_bytes(), "SPIR-V magic");
        assert_eq!(spv, single(&example(source)), "{sub}/s.spv");
    }
    let mut written: Vec<String> = walk(&out_dir);
    written.sort();
    assert_eq!(
        written,
        ["a/s.spv", "b/s.spv", "old/vs.spv"],
        "nothing for bad or skipped files"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The files under `dir`, relative to it.
fn walk(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap();
                files.push(rel.display().to_string());
            }
        }
    }
    files
}

#[test]
fn existing_outputs_are_kept_without_force() {
    let dir = scratch("force");
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(example("ps_texture.dxbc"), input.join("s.dxbc")).unwrap();
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::write(out_dir.join("s.spv"), b"old").unwrap();

    let out = run(&[p("translate"), p("--out-dir"), &out_dir, &input]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("s.spv exists (--force overwrites it, --update if older)")
            && stderr.ends_with("0 translated, 1 failed, 0 skipped\n"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(out_dir.join("s.spv")).unwrap(), b"old");

    let out = run(&[
        p("translate"),
        p("--force"),
        p("--out-dir"),
        &out_dir,
        &input,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "1 translated, 0 failed, 0 skipped\n");
    assert_eq!(
        std::fs::read(out_dir.join("s.spv")).unwrap(),
        single(&example("ps_texture.dxbc"))
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_input_goes_to_stdout_with_dash_or_without_o() {
    let dir = scratch("stdout");
    let file = example("ps_texture.dxbc");
    let bare = run_in(&dir, &[p("translate"), &file]);
    let dash = run_in(&dir, &[p("translate"), &file, p("-o"), p("-")]);
    let named = run_in(&dir, &[p("translate"), &file, p("-o"), p("x.spv")]);
    for out in [&bare, &dash, &named] {
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    }
    assert_eq!(&bare.stdout[..4], &0x0723_0203u32.to_le_bytes());
    assert_eq!(dash.stdout, bare.stdout);
    assert!(named.stdout.is_empty());
    assert_eq!(std::fs::read(dir.join("x.spv")).unwrap(), bare.stdout);
    assert!(
        !dir.join("-").exists(),
        "-o - must not create a file named -"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn json_report_describes_every_file() {
    let dir = scratch("json");
    let input = tree(&dir);
    let out_dir = dir.join("out");
    let report = dir.join("report.json");
    let out = run(&[
        p("translate"),
        p("--out-dir"),
        &out_dir,
        p("--json"),
        &report,
        &input,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).expect("valid JSON");
    assert_eq!(v["command"], "translate");
    assert_eq!(
        v["summary"],
        serde_json::json!({"ok": 3, "failed": 1, "skipped": 2})
    );
    let files = v["files"].as_array().unwrap();
    let by_name = |suffix: &str| {
        files
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(suffix))
            .unwrap_or_else(|| panic!("no record for {suffix}: {v}"))
    };
    // Walk order: sorted by name in each directory.
    let order: Vec<&str> = files
        .iter()
        .map(|f| {
            let path = f["path"].as_str().unwrap();
            path.strip_prefix(input.to_str().unwrap()).unwrap()
        })
        .collect();
    assert_eq!(
        order,
        [
            "/a/s.dxbc",
            "/a/s.hlsl",
            "/b/s.dxbc",
            "/corrupt.dxbc",
            "/notes.txt",
            "/old/vs.d3dbc"
        ]
    );
    for sub in ["a/s", "b/s"] {
        let f = by_name(&format!("{sub}.dxbc"));
        assert_eq!(f["status"], "ok");
        let output = f["output"].as_str().unwrap();
        assert_eq!(Path::new(output), out_dir.join(format!("{sub}.spv")));
        let size = std::fs::metadata(output).unwrap().len();
        assert_eq!(f["output_size"].as_u64(), Some(size));
        assert!(f["time_ms"].as_f64().unwrap() > 0.0, "{f}");
        assert!(f.get("error").is_none());
    }
    let corrupt = by_name("corrupt.dxbc");
    assert_eq!(corrupt["status"], "error");
    assert_eq!(corrupt["error"]["kind"], "container");
    let message = corrupt["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("corrupt.dxbc") && message.contains("byte offset"),
        "{message}"
    );
    assert!(corrupt.get("output_size").is_none());
    assert_eq!(by_name("notes.txt")["status"], "skipped");
    assert!(by_name("notes.txt").get("output").is_none());
    assert_eq!(by_name("s.hlsl")["reason"], "not a shader");
    assert_eq!(by_name("notes.txt")["reason"], "not a shader");
    assert_eq!(by_name("vs.d3dbc")["status"], "ok");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn same_output_from_two_named_files_fails_the_second() {
    let dir = scratch("collide");
    let input = tree(&dir);
    let out_dir = dir.join("out");
    let (a, b) = (input.join("a/s.dxbc"), input.join("b/s.dxbc"));
    let out = run(&[p("translate"), p("--out-dir"), &out_dir, &a, &b]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("b/s.dxbc: its output") && stderr.contains("is that of"),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("1 translated, 1 failed, 0 skipped\n"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(out_dir.join("s.spv")).unwrap(),
        single(&example("ps_texture.dxbc")),
        "the first input keeps its output"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn disasm_info_reflect_over_a_tree() {
    let dir = scratch("others");
    let input = tree(&dir);
    for (cmd, extension) in [("disasm", "asm"), ("info", "txt"), ("reflect", "json")] {
        let out_dir = dir.join(cmd);
        let out = run(&[p(cmd), p("--out-dir"), &out_dir, &input]);
        assert_eq!(out.status.code(), Some(1), "{cmd}: {}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains("corrupt.dxbc"), "{cmd}: {stderr}");
        // Every command reads the Direct3D 9 stream too.
        assert!(stderr.contains(", 1 failed, 2 skipped"), "{cmd}: {stderr}");
        assert!(out_dir.join("old").join(format!("vs.{extension}")).exists());
        for (sub, source) in [("a", "ps_texture.dxbc"), ("b", "vs_transform.dxbc")] {
            let written = std::fs::read(out_dir.join(sub).join(format!("s.{extension}"))).unwrap();
            let alone = run(&[p(cmd), &example(source)]);
            assert_eq!(alone.status.code(), Some(0));
            if cmd == "info" {
                // The text names the file it describes.
                let written = text(&written);
                assert!(written.contains(&format!("{sub}/s.dxbc")), "{written}");
                assert_eq!(
                    written.lines().skip(1).collect::<Vec<_>>(),
                    text(&alone.stdout).lines().skip(1).collect::<Vec<_>>()
                );
            } else {
                assert_eq!(written, alone.stdout, "{cmd} {sub}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn usage_and_single_input_errors() {
    let dir = scratch("usage");
    let input = tree(&dir);
    // A directory or several inputs need --out-dir; stdin cannot be one of a batch's inputs.
    for args in [
        vec![p("translate"), &input],
        vec![
            p("disasm"),
            &example("ps_texture.dxbc"),
            &example("vs_transform.dxbc"),
        ],
        vec![p("translate"), p("--out-dir"), &dir, p("-")],
        vec![
            p("translate"),
            p("-j"),
            p("0"),
            p("--out-dir"),
            &dir,
            &input,
        ],
    ] {
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    // One D3D9 input translates.
    let out = run(&[p("translate"), &input.join("old/vs.d3dbc")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        &out.stdout[..4],
        &0x0723_0203u32.to_le_bytes(),
        "SPIR-V magic"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Outputs and messages do not depend on the thread count.
#[test]
fn outputs_do_not_depend_on_thread_count() {
    let dir = scratch("threads");
    let shared = repo().join("../shared");
    let inputs: Vec<PathBuf> = if shared.join("corpus/dxbc").is_dir() {
        vec![shared.join("corpus/dxbc"), shared.join("bench/dxbc")]
    } else {
        integration_tests::skip::skip_part(
            integration_tests::skip::CORPUS,
            integration_tests::skip::NO_CORPUS,
            "ran over the bundled examples only",
        );
        vec![tree(&dir)]
    };
    let mut results = Vec::new();
    for jobs in ["1", "2"] {
        let out_dir = dir.join(format!("j{jobs}"));
        let mut args = vec![p("translate"), p("-j"), p(jobs), p("--out-dir"), &out_dir];
        args.extend(inputs.iter().map(PathBuf::as_path));
        let out = run(&args);
        let mut files = walk(&out_dir);
        files.sort();
        assert!(files.len() >= 2, "{files:?}");
        let contents: Vec<Vec<u8>> = files
            .iter()
            .map(|f| std::fs::read(out_dir.join(f)).unwrap())
            .collect();
        results.push((out.status.code(), text(&out.stderr), files, contents));
    }
    let (j1, j2) = (&results[0], &results[1]);
    assert_eq!(j1.0, j2.0, "exit status");
    assert_eq!(j1.1, j2.1, "stderr (order of messages included)");
    assert_eq!(j1.2, j2.2, "output files");
    for (i, name) in j1.2.iter().enumerate() {
        assert!(j1.3[i] == j2.3[i], "{name} differs between -j1 and -j2");
    }
    println!("{} outputs identical with -j1 and -j2", j1.2.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Sets a file's modification time.
fn touch(path: &Path, time: std::time::SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

#[test]
fn update_redoes_only_missing_or_stale_outputs() {
    let dir = scratch("update");
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    for name in ["fresh", "stale", "missing"] {
        std::fs::copy(
            example("ps_texture.dxbc"),
            input.join(format!("{name}.dxbc")),
        )
        .unwrap();
    }
    std::fs::write(input.join("notes.txt"), "not a shader\n").unwrap();
    let out_dir = dir.join("out");
    let update = |extra: &[&Path]| {
        let mut args = vec![p("translate"), p("--update"), p("--out-dir"), &out_dir];
        args.extend_from_slice(extra);
        args.push(&input);
        run(&args)
    };
    // Nothing there yet: everything is translated.
    let out = update(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        "3 translated, 0 failed, 1 skipped (not a shader: 1)\n"
    );
    // fresh.spv newer than its input (and marked, to see it is kept), stale.spv older than
    // its input, missing.spv gone.
    let now = std::time::SystemTime::now();
    let hour = std::time::Duration::from_secs(3600);
    std::fs::write(out_dir.join("fresh.spv"), b"kept").unwrap();
    touch(&input.join("fresh.dxbc"), now - hour);
    touch(&out_dir.join("fresh.spv"), now);
    std::fs::write(out_dir.join("stale.spv"), b"old").unwrap();
    touch(&out_dir.join("stale.spv"), now - hour);
    // (Half an hour back, not now: a file written just after reads a coarse clock that can
    // lag the precise `now` by a tick, so a translation made at once could look older.)
    touch(&input.join("stale.dxbc"), now - hour / 2);
    std::fs::remove_file(out_dir.join("missing.spv")).unwrap();

    let out = update(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        "2 translated, 0 failed, 2 skipped (not a shader: 1, up to date: 1)\n"
    );
    let spirv = single(&example("ps_texture.dxbc"));
    assert_eq!(std::fs::read(out_dir.join("fresh.spv")).unwrap(), b"kept");
    assert_eq!(std::fs::read(out_dir.join("stale.spv")).unwrap(), spirv);
    assert_eq!(std::fs::read(out_dir.join("missing.spv")).unwrap(), spirv);

    // The report names what was up to date.
    let report = dir.join("report.json");
    let out = update(&[p("--json"), &report]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let reasons: Vec<&str> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["reason"].as_str())
        .collect();
    assert_eq!(
        reasons,
        ["up to date", "up to date", "not a shader", "up to date"]
    );

    // --update needs --out-dir and excludes --force.
    for args in [
        vec![
            p("translate"),
            p("--update"),
            p("--force"),
            p("--out-dir"),
            &out_dir,
            &input,
        ],
        vec![p("translate"), p("--update"), &input],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn assembly_text_gets_a_hint() {
    let dir = scratch("asm-hint");
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    let asm = input.join("shader.asm");
    std::fs::write(&asm, "// hand-written\nps_5_0\nret\n").unwrap();
    let d3d9 = input.join("old.txt");
    std::fs::write(&d3d9, "ps_1_1\ntex t0\nmov r0, t0\n").unwrap();
    std::fs::write(input.join("notes.txt"), "not a shader\n").unwrap();
    // One input: every command that reads a shader says what the file looks like and how to
    // assemble it.
    for command in ["translate", "reflect", "info", "disasm", "cfg", "bench"] {
        let out = run(&[p(command), &asm]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{command}: {}",
            text(&out.stderr)
        );
        let stderr = text(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{command}: {stderr}");
        let expect = format!(
            "looks like assembly text (ps_5_0), not a shader binary: assemble it first with `dxbc asm {} -o {}`",
            asm.display(),
            asm.with_extension("dxbc").display()
        );
        assert!(stderr.contains(&expect), "{command}: {stderr}");
    }
    let out = run(&[p("translate"), &d3d9, p("-o"), &dir.join("x.spv")]);
    assert!(
        text(&out.stderr).contains(&format!("-o {}`", d3d9.with_extension("d3dbc").display())),
        "{}",
        text(&out.stderr)
    );
    // The hint's command works, and its output translates.
    let out = run(&[p("asm"), &asm, p("-o"), &asm.with_extension("dxbc")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    std::fs::remove_file(asm.with_extension("dxbc")).unwrap();
    // A tree: assembly text is skipped under its own reason.
    let out = run(&[p("translate"), p("--out-dir"), &dir.join("out"), &input]);
    assert_eq!(
        text(&out.stderr),
        "0 translated, 0 failed, 3 skipped (assembly text (dxbc asm assembles it): 2, not a shader: 1)\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
