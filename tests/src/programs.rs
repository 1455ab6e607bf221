//! The repository's own shader programs, assembled: what the snapshot test translates and what
//! the profile-guided build trains on (`repo-programs`, run by tools/pgo.sh).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The files under `dir` (recursively) whose extension is `ext`, appended to `out`.
pub fn files_with(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
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

/// Every shader program in this repository, by a name saying where it is from → its bytecode
/// (a DXBC container or a D3D9 token stream): `shaders/asm/*.asm`, `shaders/d3d9/*.asm`,
/// `shaders/examples/*.dxbc`, and every `[... shader asm]` / `[... shader dxbc-asm]` section of
/// `shaders/runtime/**/*.shader_test`. Panics naming the file when one does not assemble.
pub fn repo_programs(root: &Path) -> BTreeMap<String, Vec<u8>> {
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
