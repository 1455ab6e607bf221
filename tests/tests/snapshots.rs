//! Snapshot tests: the SPIR-V our own test shaders translate to, checked in as rspirv
//! disassembly under `shaders/snapshots/`, so that a change in output shows up in review as a
//! diff of those files instead of only as a bench total.
//!
//! Sources (all in this repository, none from `../shared`): `shaders/asm/*.asm`,
//! `shaders/examples/*.dxbc`, the Direct3D 9 listings `shaders/d3d9/*.asm`, and every `[... shader asm]` / `[... shader dxbc-asm]` section of
//! `shaders/runtime/**/*.shader_test`. Each is translated with the default options; a failure
//! is recorded as a `; error:` line. Run `BLESS=1 cargo test -p integration-tests --test
//! snapshots` to rewrite the files after a deliberate change, then review the diff.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rspirv::binary::Disassemble;

fn files_with(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_with(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

/// The assembly sections of a `.shader_test` file: (stage word, text).
fn asm_sections(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        if line.starts_with('[') {
            out.extend(current.take());
            let header = line.trim().trim_start_matches('[').trim_end_matches(']');
            let words: Vec<&str> = header.split_whitespace().collect();
            if let [stage, "shader", "asm" | "dxbc-asm"] = words[..] {
                current = Some((stage.to_string(), String::new()));
            }
        } else if let Some((_, body)) = current.as_mut()
            && !line.starts_with('%')
        {
            body.push_str(line);
            body.push('\n');
        }
    }
    out.extend(current);
    out
}

/// Every snapshot source: name → DXBC container.
fn sources(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let stem = |p: &Path| p.file_stem().unwrap().to_string_lossy().into_owned();
    let mut asm = Vec::new();
    files_with(&root.join("shaders/asm"), "asm", &mut asm);
    for p in asm {
        let text = std::fs::read_to_string(&p).unwrap();
        let dxbc =
            translator::asm::assemble(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        out.insert(format!("asm-{}", stem(&p)), dxbc);
    }
    let mut d3d9 = Vec::new();
    files_with(&root.join("shaders/d3d9"), "asm", &mut d3d9);
    for p in d3d9 {
        let text = std::fs::read_to_string(&p).unwrap();
        let bytes = translator::d3dbc::asm::assemble(&text)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        out.insert(format!("d3d9-{}", stem(&p)), bytes);
    }
    let mut examples = Vec::new();
    files_with(&root.join("shaders/examples"), "dxbc", &mut examples);
    for p in examples {
        out.insert(format!("example-{}", stem(&p)), std::fs::read(&p).unwrap());
    }
    let mut tests = Vec::new();
    files_with(&root.join("shaders/runtime"), "shader_test", &mut tests);
    for p in tests {
        let text = std::fs::read_to_string(&p).unwrap();
        let dir = p
            .parent()
            .and_then(|d| d.file_name())
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for (stage, body) in asm_sections(&text) {
            let n = seen.entry(stage.clone()).or_default();
            *n += 1;
            let suffix = if *n > 1 {
                format!("-{n}")
            } else {
                String::new()
            };
            let name = format!("runtime-{dir}-{}-{stage}{suffix}", stem(&p));
            // D3D9 assembly (first line `vs_2_0`, `ps_1_4`, ...) or SM4–5 assembly.
            let dxbc = if translator::d3dbc::asm::is_d3d9_text(&body) {
                translator::d3dbc::asm::assemble(&body)
            } else {
                translator::asm::assemble(&body)
            }
            .unwrap_or_else(|e| panic!("{} ({stage}): {e}", p.display()));
            out.insert(name, dxbc);
        }
    }
    out
}

/// The snapshot text of one container: rspirv's disassembly, or the error.
fn render(dxbc: &[u8]) -> String {
    match translator::translate(dxbc, &translator::Options::default()) {
        Ok(t) => {
            let module = rspirv::dr::load_words(&t.spirv).expect("our SPIR-V reloads");
            module.disassemble() + "\n"
        }
        Err(e) => format!("; error: {e}\n"),
    }
}

#[test]
fn spirv_snapshots() {
    let root = integration_tests::repo_root();
    let dir = root.join("shaders/snapshots");
    let bless = std::env::var_os("BLESS").is_some_and(|v| v != "0");
    let sources = sources(&root);
    assert!(
        sources.len() >= 20,
        "only {} snapshot sources",
        sources.len()
    );
    let mut problems = Vec::new();
    if bless {
        std::fs::create_dir_all(&dir).unwrap();
    }
    for (name, dxbc) in &sources {
        let path = dir.join(format!("{name}.spvasm"));
        let now = render(dxbc);
        match std::fs::read_to_string(&path) {
            Ok(old) if old == now => {}
            _ if bless => std::fs::write(&path, &now).unwrap(),
            Ok(old) => {
                let line = old
                    .lines()
                    .zip(now.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(old.lines().count().min(now.lines().count()));
                problems.push(format!(
                    "{}: differs from line {} ({} -> {} lines)",
                    path.display(),
                    line + 1,
                    old.lines().count(),
                    now.lines().count()
                ));
            }
            Err(_) => problems.push(format!("{}: missing", path.display())),
        }
    }
    // Snapshots whose source is gone.
    let mut stale = Vec::new();
    files_with(&dir, "spvasm", &mut stale);
    for p in stale {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        if !sources.contains_key(&name) {
            if bless {
                std::fs::remove_file(&p).unwrap();
            } else {
                problems.push(format!("{}: no source any more", p.display()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "SPIR-V output changed (review, then rerun with BLESS=1 to accept):\n{}",
        problems.join("\n")
    );
}
