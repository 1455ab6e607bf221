//! Snapshot tests: the SPIR-V our own test shaders translate to, checked in as rspirv
//! disassembly under `shaders/snapshots/`, so that a change in output shows up in review as a
//! diff of those files instead of only as a bench total.
//!
//! Sources (all in this repository, none from `../shared`; collected by
//! `integration_tests::programs::repo_programs`): `shaders/asm/*.asm`, `shaders/examples/*.dxbc`,
//! the Direct3D 9 listings `shaders/d3d9/*.asm`, and every `[... shader asm]` /
//! `[... shader dxbc-asm]` section of `shaders/runtime/**/*.shader_test`. Each is translated with the default options; a failure
//! is recorded as a `; error:` line. Run `BLESS=1 cargo test -p integration-tests --test
//! snapshots` to rewrite the files after a deliberate change, then review the diff.

use rspirv::binary::Disassemble;

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
    let sources = integration_tests::programs::repo_programs(&root);
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
    integration_tests::programs::files_with(&dir, "spvasm", &mut stale);
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
