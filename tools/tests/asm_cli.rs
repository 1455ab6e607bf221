//! `dxbc asm` end to end: files and standard input/output, `dxbc disasm | dxbc asm -`
//! reproducing the program chunk, `--program-only`, and errors as one
//! `dxbc: error: FILE:LINE:COLUMN: message` line with exit status 1.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use translator::container::Container;

const DXBC: &str = env!("CARGO_BIN_EXE_dxbc");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(DXBC)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run dxbc");
    if let Some(data) = stdin {
        let _ = child.stdin.take().unwrap().write_all(data);
    }
    child.wait_with_output().unwrap()
}

fn program_chunk(blob: &[u8]) -> Vec<u8> {
    let c = Container::parse(blob).unwrap();
    assert!(c.verify_checksum());
    c.shader_chunk().unwrap().data.to_vec()
}

#[test]
fn assembles_files_and_pipes() {
    let tmp = std::env::temp_dir().join(format!("dxbc-asm-cli-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let out = tmp.join("alu.dxbc");
    let src = repo().join("shaders/asm/alu.asm");
    let o = run(
        &["asm", src.to_str().unwrap(), "-o", out.to_str().unwrap()],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.is_empty() && o.stderr.is_empty());
    let blob = std::fs::read(&out).unwrap();

    // Disassemble it and assemble the listing (comment header included) from stdin to stdout.
    let listing = run(&["disasm", out.to_str().unwrap()], None);
    assert!(listing.status.success());
    let again = run(&["asm", "-", "-o", "-"], Some(&listing.stdout));
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(program_chunk(&again.stdout), program_chunk(&blob));

    // The bundled example, compiled by vkd3d-compiler: disasm | asm gives its program back.
    let example = repo().join("shaders/examples/ps_texture.dxbc");
    let original = std::fs::read(&example).unwrap();
    let listing = run(&["disasm", example.to_str().unwrap()], None);
    let again = run(&["asm", "-", "-o", "-"], Some(&listing.stdout));
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(program_chunk(&again.stdout), program_chunk(&original));

    // --program-only: the chunk data alone.
    let chunk = run(
        &["asm", "-", "-o", "-", "--program-only"],
        Some(&listing.stdout),
    );
    assert!(chunk.status.success());
    assert_eq!(chunk.stdout, program_chunk(&original));
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn errors_are_one_line_with_position() {
    let o = run(
        &["asm", "-", "-o", "-"],
        Some(b"ps_5_0\nmov r0.x, r1.x\nadd r0.x, r1.x\n"),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        stderr,
        "dxbc: error: <stdin>:3:15: 'add' takes 3 operands (1 destination, 2 sources), found 2\n"
    );
    let o = run(&["asm", "-", "-o", "-"], Some(&[0xff, 0xfe]));
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not UTF-8"));
    let o = run(&["asm", "/nonexistent/x.asm", "-o", "-"], None);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
    // -o is required (usage error, status 2).
    assert_eq!(run(&["asm", "-"], Some(b"ps_5_0\n")).status.code(), Some(2));
}
