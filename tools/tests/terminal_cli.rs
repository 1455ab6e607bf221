//! `dxbc` with its output on a terminal, run in a pseudo-terminal by util-linux's `script`
//! (skipped, saying so, where `script` is missing): binary SPIR-V and a binary `asm` output are
//! refused there, pointing to `-o` and `--text`, while text output and `-o FILE` work; and the
//! batch progress bar's total is the number of files walked, those the plan settles included
//! (a source beside its blob, a text file).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DXBC: &str = env!("CARGO_BIN_EXE_dxbc");

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shaders/examples")
        .join(name)
}

/// Quotes a path for `sh`.
fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', "'\\''"))
}

/// Runs `dxbc ARGS` with standard output and error on a pseudo-terminal: what the terminal
/// showed and the exit status. `None` (said on stderr) without `script`.
fn on_terminal(args: &[String]) -> Option<(String, Option<i32>)> {
    let mut line = quote(Path::new(DXBC));
    for a in args {
        line.push(' ');
        line.push_str(a);
    }
    let out: Output = match Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("TERM", "xterm")
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            integration_tests::skip::skip(
                "terminal",
                &format!("no util-linux `script` to make a terminal ({e})"),
            );
            return None;
        }
    };
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if shown.is_empty() && stderr.starts_with("script:") {
        // No pseudo-terminal here (a container without /dev/pts).
        integration_tests::skip::skip(
            "terminal",
            &format!("`script` cannot make a terminal: {}", stderr.trim()),
        );
        return None;
    }
    Some((shown, out.status.code()))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dxbc-tty-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn binary_output_is_refused_on_a_terminal() {
    let dir = scratch("binary");
    let shader = quote(&example("ps_texture.dxbc"));
    let Some((shown, status)) = on_terminal(&["translate".into(), shader.clone()]) else {
        return;
    };
    assert_eq!(status, Some(2), "{shown}");
    assert!(
        shown.contains("refusing to write binary SPIR-V to a terminal")
            && shown.contains("-o FILE")
            && shown.contains("--text"),
        "{shown}"
    );
    assert!(!shown.contains('\u{0}'), "binary reached the terminal");
    let (shown, status) =
        on_terminal(&["translate".into(), shader.clone(), "-o".into(), "-".into()]).unwrap();
    assert_eq!(status, Some(2), "-o - is the terminal too: {shown}");
    // Text, or a file, is fine.
    let (shown, status) =
        on_terminal(&["translate".into(), shader.clone(), "--text".into()]).unwrap();
    assert_eq!(status, Some(0), "{shown}");
    assert!(shown.contains("OpCapability Shader"), "{shown}");
    let spv = dir.join("x.spv");
    let (shown, status) =
        on_terminal(&["translate".into(), shader, "-o".into(), quote(&spv)]).unwrap();
    assert_eq!(status, Some(0), "{shown}");
    assert_eq!(
        &std::fs::read(&spv).unwrap()[..4],
        &0x0723_0203u32.to_le_bytes()
    );
    // `dxbc asm -o -` writes a binary container.
    let asm = dir.join("s.asm");
    std::fs::write(&asm, "ps_5_0\nret\n").unwrap();
    let (shown, status) =
        on_terminal(&["asm".into(), quote(&asm), "-o".into(), "-".into()]).unwrap();
    assert_eq!(status, Some(1), "{shown}");
    assert!(
        shown.contains("refusing to write a binary shader to a terminal"),
        "{shown}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn progress_total_is_the_files_walked() {
    let dir = scratch("progress");
    let input = dir.join("in");
    std::fs::create_dir_all(input.join("sub")).unwrap();
    std::fs::copy(example("ps_texture.dxbc"), input.join("x.dxbc")).unwrap();
    std::fs::copy(example("ps_texture.hlsl"), input.join("x.hlsl")).unwrap();
    std::fs::copy(example("vs_transform.dxbc"), input.join("sub/y.dxbc")).unwrap();
    std::fs::write(input.join("notes.txt"), "not a shader\n").unwrap();
    std::fs::write(input.join("sub/z.asm"), "ps_5_0\nret\n").unwrap();
    let args = [
        "translate".into(),
        "--out-dir".into(),
        quote(&dir.join("out")),
        quote(&input),
    ];
    let Some((shown, status)) = on_terminal(&args) else {
        return;
    };
    assert_eq!(status, Some(0), "{shown}");
    // Every drawn state of the bar reads "pos/5".
    let states: Vec<&str> = shown
        .split(|c: char| c.is_whitespace() || c == '\r')
        .filter(|w| {
            let mut parts = w.split('/');
            matches!((parts.next(), parts.next(), parts.next()),
                (Some(a), Some(b), None) if !a.is_empty() && !b.is_empty()
                    && a.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit()))
        })
        .collect();
    assert!(!states.is_empty(), "no progress bar drawn: {shown:?}");
    assert!(states.iter().all(|s| s.ends_with("/5")), "{states:?}");
    assert!(
        shown.contains("2 translated, 0 failed, 3 skipped"),
        "{shown}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
