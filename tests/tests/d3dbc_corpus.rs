//! The Direct3D 9 decoder, disassembler and assembler against the corpus and against an
//! independent decoder.
//!
//! Every `.d3dbc` under `../shared/corpus/d3dbc` must decode, disassemble, and assemble back
//! to its exact bytes (comments and bytes after END included). The instruction sequence we
//! decode (opcode, co-issue flag and operand count per instruction) must match what
//! `vkd3d-compiler -x d3dbc -b d3d-asm` prints for every file it reads, once the two
//! listings' naming differences (`docs/d3d9.md`) are normalized. Skips (recording why:
//! `integration_tests::skip`) when `../shared` or the tool is absent.
//!
//! The hand-written listings under `shaders/d3d9` (ps_1_x texture addressing, co-issue,
//! predication, loops and subroutines: what no HLSL compiler emits) must assemble and
//! disassemble back to their own text, and vkd3d must read the same instruction sequence
//! from the assembled bytes.

use std::path::Path;
use std::process::Command;

use integration_tests::{
    VKD3D, d3dbc_files, repo_root, shared_dir_or_skip, skip, vkd3d_compiler, vkd3d_compiler_or_skip,
};
use translator::d3dbc::{self, Extra, Instruction, Program};

fn corpus() -> Option<Vec<std::path::PathBuf>> {
    let shared = shared_dir_or_skip()?;
    let files = d3dbc_files(&shared.join("corpus/d3dbc"));
    if files.is_empty() {
        skip::skip(skip::CORPUS, "no .d3dbc files under ../shared/corpus/d3dbc");
        return None;
    }
    Some(files)
}

#[test]
fn every_blob_decodes_disassembles_and_reassembles_byte_for_byte() {
    let Some(files) = corpus() else { return };
    let mut failures = Vec::new();
    let (mut instructions, mut comments, mut ctabs, mut identical) = (0, 0, 0, 0);
    let mut outside_version = Vec::new();
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let name = path.display();
        if !d3dbc::is_d3dbc(&data) {
            failures.push(format!("{name}: not recognised by is_d3dbc"));
        }
        let program = match d3dbc::decode(&data) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{name}: decode: {e}"));
                continue;
            }
        };
        instructions += program.instructions().count();
        if let Err(e) = program.check_opcodes() {
            outside_version.push(format!(
                "{}: {e}",
                path.file_name().unwrap().to_string_lossy()
            ));
        }
        for c in program.comments() {
            comments += 1;
            match c.ctab() {
                Some(Ok(_)) => ctabs += 1,
                Some(Err(e)) => failures.push(format!("{name}: {e}")),
                None => {}
            }
        }
        match d3dbc::encode(&program) {
            Ok(bytes) if bytes == data => {}
            Ok(_) => failures.push(format!("{name}: re-encoding differs")),
            Err(e) => failures.push(format!("{name}: encode: {e}")),
        }
        let text = program.to_string();
        if !d3dbc::asm::is_d3d9_text(&text) {
            failures.push(format!("{name}: listing not recognised as D3D9 text"));
        }
        match d3dbc::asm::parse(&text) {
            Err(e) => failures.push(format!(
                "{name}: assemble: {e}: `{}`",
                text.lines().nth(e.line as usize - 1).unwrap_or("")
            )),
            Ok(p) if p != program => failures.push(format!("{name}: reassembled program differs")),
            Ok(p) => match d3dbc::encode(&p) {
                Ok(bytes) if bytes == data => identical += 1,
                _ => failures.push(format!("{name}: reassembled bytes differ")),
            },
        }
    }
    eprintln!(
        "{} blobs: {instructions} instructions, {comments} comments ({ctabs} CTAB), {identical} reassembled byte for byte",
        files.len()
    );
    eprintln!(
        "opcodes outside their version ({}):\n  {}",
        outside_version.len(),
        outside_version.join("\n  ")
    );
    // Wine's d3d9ex test of ps_2_0 with defi/defb, which the runtime must reject.
    assert!(
        outside_version.iter().any(
            |e| e.starts_with("test_unsupported_shaders__ps_2_0_boolint") && e.contains("ps_2_0")
        ),
        "ps_2_0 defb/defi not flagged"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// One instruction as compared: base mnemonic, co-issue, operand count.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    name: String,
    coissue: bool,
    operands: Option<usize>,
}

/// The name both listings reduce to: ours without controls and modifiers.
fn our_entry(i: &Instruction, p: &Program) -> Entry {
    let name = i.opcode.name(p.version).to_string();
    let plain = matches!(i.extra, Extra::None);
    Entry {
        name,
        coissue: i.coissue,
        operands: plain.then(|| i.src.len() + usize::from(i.dst.is_some())),
    }
}

/// vkd3d's mnemonic reduced to our base names.
fn normalize_vkd3d(mnemonic: &str) -> String {
    let n = mnemonic.to_ascii_lowercase();
    let base = n.split('_').next().unwrap_or("");
    match base {
        "texldp" | "texldb" => "texld".into(),
        _ => base.into(),
    }
}

/// Commas outside brackets and parentheses, plus one; 0 for nothing.
fn count_operands(rest: &str) -> usize {
    if rest.trim().is_empty() {
        return 0;
    }
    let mut depth = 0i32;
    let mut count = 1;
    for c in rest.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => count += 1,
            _ => {}
        }
    }
    count
}

fn vkd3d_entries(listing: &str, ours: &[Entry]) -> Vec<Entry> {
    let mut out = Vec::new();
    for line in listing.lines().skip(1) {
        let mut line = line.trim();
        if line.is_empty() {
            continue;
        }
        let coissue = line.starts_with('+');
        line = line.trim_start_matches('+');
        // A predicate: `(p0.x) mov …`.
        if line.starts_with('(') {
            line = line.split_once(')').map_or(line, |(_, r)| r.trim_start());
        }
        let (mnemonic, rest) = line.split_once(' ').unwrap_or((line, ""));
        let counted = ours
            .get(out.len())
            .is_some_and(|e: &Entry| e.operands.is_some());
        out.push(Entry {
            name: normalize_vkd3d(mnemonic),
            coissue,
            operands: counted.then(|| count_operands(rest)),
        });
    }
    out
}

/// The hand-written listings: `disasm(asm(text)) == text` (lines holding only a comment
/// excepted), and vkd3d reads the same instruction sequence from the bytes.
#[test]
fn hand_written_listings_round_trip() {
    let dir = repo_root().join("shaders/d3d9");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "expected the listings under {}",
        dir.display()
    );
    let tool = vkd3d_compiler()
        .map_err(|why| skip::skip_part(VKD3D, &why, "round trip checked only"))
        .ok()
        .map(|(t, _)| t);
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("d3d9-listings");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut failures = Vec::new();
    let mut checked_by_vkd3d = 0;
    for path in &files {
        let name = path.display();
        let text = std::fs::read_to_string(path).unwrap();
        let bytes = match d3dbc::asm::assemble(&text) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let program = d3dbc::decode(&bytes).unwrap();
        let expected: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .map(|l| format!("{l}\n"))
            .collect();
        if program.to_string() != expected {
            failures.push(format!("{name}: listing differs:\n{program}"));
        }
        let Some(tool) = &tool else { continue };
        let blob = tmp.join(path.file_name().unwrap()).with_extension("d3dbc");
        std::fs::write(&blob, &bytes).unwrap();
        let out = Command::new(tool)
            .args(["-x", "d3dbc", "-b", "d3d-asm"])
            .arg(&blob)
            .output()
            .unwrap();
        if !out.status.success() {
            skip::skip_part(
                VKD3D,
                "vkd3d-compiler cannot read a listing",
                &format!(
                    "{} not compared ({})",
                    path.file_name().unwrap().to_string_lossy(),
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            );
            continue;
        }
        let listing = String::from_utf8_lossy(&out.stdout);
        let ours: Vec<Entry> = program
            .instructions()
            .map(|i| our_entry(i, &program))
            .collect();
        let theirs = vkd3d_entries(&listing, &ours);
        checked_by_vkd3d += 1;
        if ours != theirs {
            failures.push(format!("{name}: vkd3d reads\n{listing}"));
        }
    }
    eprintln!(
        "{} listings, {checked_by_vkd3d} also read by vkd3d",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn instruction_sequence_matches_vkd3d() {
    let Some(files) = corpus() else { return };
    let Some((tool, _)) = vkd3d_compiler_or_skip() else {
        return;
    };
    let listing = |file: &Path| -> Result<String, String> {
        let out = Command::new(&tool)
            .args(["-x", "d3dbc", "-b", "d3d-asm"])
            .arg(file)
            .output()
            .map_err(|e| e.to_string())?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
        }
    };
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 8);
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (files, listing) = (&files, &listing);
                s.spawn(move || {
                    files
                        .iter()
                        .skip(t)
                        .step_by(threads)
                        .map(|f| (f.clone(), listing(f)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let (mut compared, mut blobs, mut refused) = (0, 0, Vec::new());
    let mut failures = Vec::new();
    for (path, listing) in results {
        let name = path.display();
        let listing = match listing {
            Ok(l) => l,
            Err(e) => {
                refused.push(format!("{name}: {e}"));
                continue;
            }
        };
        let data = std::fs::read(&path).unwrap();
        let program = match d3dbc::decode(&data) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let ours: Vec<Entry> = program
            .instructions()
            .map(|i| our_entry(i, &program))
            .collect();
        let theirs = vkd3d_entries(&listing, &ours);
        compared += ours.len();
        blobs += 1;
        if let Some(i) = (0..ours.len().max(theirs.len())).find(|&i| ours.get(i) != theirs.get(i)) {
            failures.push(format!(
                "{name}: instruction {i} differs: ours {:?}, vkd3d {:?}\n  ours:  {}\n  vkd3d: {}",
                ours.get(i),
                theirs.get(i),
                program.instruction_text(i),
                listing.lines().nth(i + 1).unwrap_or("")
            ));
        }
    }
    eprintln!(
        "compared {compared} instructions in {blobs} blobs; vkd3d refused {}:\n  {}",
        refused.len(),
        refused.join("\n  ")
    );
    // vkd3d refuses vs_3_sw and ps_2_0 with defi/defb (notes §1); nothing else.
    assert!(refused.len() <= 2, "vkd3d refused more blobs than expected");
    assert!(
        failures.is_empty(),
        "{} of {} blobs differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// `translate` takes a D3D9 stream (the D3D9 front end, `lower_d3d9`) and reports a malformed
/// one as a D3D9 decode error.
#[test]
fn translate_takes_d3d9_and_reports_malformed_streams() {
    let bytes = d3dbc::asm::assemble("vs_2_0\ndcl_position v0\nmov oPos, v0\n").unwrap();
    let t = translator::translate(&bytes, &Default::default()).unwrap();
    assert_eq!(t.spirv[0], 0x0723_0203);
    assert_eq!(t.reflection.outputs[0].semantic_name, "POSITION");
    // A malformed stream is reported as such, at its offset.
    let malformed =
        translator::translate(&bytes[..bytes.len() - 4], &Default::default()).unwrap_err();
    assert!(
        matches!(malformed, translator::Error::D3d9Decode(_)),
        "{malformed}"
    );
    assert_eq!(malformed.kind(), translator::ErrorKind::Malformed);
}
