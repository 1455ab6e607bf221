//! The SM4/5 decoder against the corpus and against an independent decoder.
//!
//! Every `.dxbc` under `../shared/corpus/dxbc` (and `../shared/bench/dxbc`) must decode,
//! disassemble and re-encode to its exact bytes; and the instruction sequence we decode
//! (opcode per instruction, operand count per executable instruction) must match what
//! `vkd3d-compiler -x dxbc-tpf -b d3d-asm` prints for the same file, once the two
//! disassemblers' naming differences are normalized. vkd3d's listings are cached under the
//! cargo target directory, keyed by file contents and tool identity, and produced by
//! parallel threads on a cold cache.
//!
//! Skips (recording why: `integration_tests::skip`) when `../shared` or the tool is absent or
//! cannot run.

use std::path::{Path, PathBuf};
use std::process::Command;

use integration_tests::{dxbc_files, shared_dir_or_skip, skip, vkd3d_compiler_or_skip};
use translator::container::Container;
use translator::sm4::{self, CustomDataClass, InstData, Program};

/// Decodes the shader chunk of a container file.
fn decode_file(data: &[u8]) -> Result<(Program, Vec<u8>), String> {
    let container = Container::parse(data).map_err(|e| format!("container: {e}"))?;
    let chunk = container.shader_chunk().ok_or("no SHDR/SHEX chunk")?;
    let program = sm4::decode(chunk.data, chunk.offset).map_err(|e| format!("decode: {e}"))?;
    Ok((program, chunk.data.to_vec()))
}

/// Every corpus and bench shader decodes, disassembles, and re-encodes to the same bytes.
#[test]
fn every_shader_decodes_disassembles_and_round_trips() {
    let Some(shared) = shared_dir_or_skip() else {
        return;
    };
    let mut files = dxbc_files(&shared.join("corpus/dxbc"));
    files.extend(dxbc_files(&shared.join("bench/dxbc")));
    if files.is_empty() {
        skip::skip(
            skip::CORPUS,
            "no .dxbc files under ../shared/corpus/dxbc or ../shared/bench/dxbc",
        );
        return;
    }
    let mut failures = Vec::new();
    let mut instructions = 0;
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let name = path.display();
        match decode_file(&data) {
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok((program, chunk)) => {
                instructions += program.instructions.len();
                let text = program.to_string();
                let v = program.version;
                let first = format!("{}_{}_{}", v.program_type.name(), v.major, v.minor);
                if text.lines().next() != Some(first.as_str()) {
                    failures.push(format!("{name}: listing does not start with {first}"));
                }
                match sm4::encode_chunk(&program) {
                    Ok(bytes) if bytes == chunk => {}
                    Ok(_) => failures.push(format!("{name}: re-encoding differs from the chunk")),
                    Err(e) => failures.push(format!("{name}: encode: {e}")),
                }
            }
        }
    }
    eprintln!("{} shaders, {instructions} instructions", files.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Corrupted corpus programs (flipped bits, random bytes and dwords, truncations) decode to a
/// program or an error, never a panic; whatever decodes disassembles and re-encodes to the
/// corrupted bytes.
#[test]
fn corrupted_shaders_never_panic() {
    let Some(shared) = shared_dir_or_skip() else {
        return;
    };
    let mut files = dxbc_files(&shared.join("corpus/dxbc"));
    files.extend(dxbc_files(&shared.join("bench/dxbc")));
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut cases, mut decoded) = (0, 0);
    let mut failures = Vec::new();
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let Ok((_, chunk)) = decode_file(&data) else {
            continue;
        };
        for case in 0..60 {
            let mut d = chunk.clone();
            match case % 4 {
                0 => d.truncate((next() as usize) % (d.len() + 1)),
                1 => {
                    let i = next() as usize % d.len();
                    d[i] ^= 1 << (next() % 8);
                }
                2 => {
                    let i = next() as usize % d.len();
                    d[i] = next() as u8;
                }
                _ => {
                    let i = (next() as usize % (d.len() / 4)) * 4;
                    d[i..i + 4].copy_from_slice(&(next() as u32).to_le_bytes());
                }
            }
            cases += 1;
            let result = std::panic::catch_unwind(|| match sm4::decode(&d, 0) {
                Ok(program) => {
                    let _ = program.to_string();
                    Some(sm4::encode_chunk(&program).ok() == Some(d.clone()))
                }
                Err(e) => {
                    assert!(!e.to_string().contains('\n'));
                    None
                }
            });
            match result {
                Err(_) => failures.push(format!("{}: case {case} panicked", path.display())),
                Ok(Some(false)) => failures.push(format!(
                    "{}: case {case} does not re-encode",
                    path.display()
                )),
                Ok(Some(true)) => decoded += 1,
                Ok(None) => {}
            }
        }
    }
    eprintln!("{cases} corrupted programs, {decoded} still decode");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One instruction as compared: base mnemonic and (for executable instructions) operand count.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    name: String,
    operands: Option<usize>,
}

/// Our instruction sequence.
fn our_entries(program: &Program) -> Vec<Entry> {
    program
        .iter()
        .map(|inst| match &inst.data {
            InstData::CustomData(c) if c.class == CustomDataClass::ImmediateConstantBuffer => {
                Entry {
                    name: "dcl_immediateconstantbuffer".into(),
                    operands: None,
                }
            }
            // vkd3d turns custom data it does not use into `nop`.
            InstData::CustomData(_) => Entry {
                name: "nop".into(),
                operands: None,
            },
            _ => Entry {
                name: inst.opcode.name().to_ascii_lowercase(),
                operands: (!inst.opcode.is_declaration()).then_some(inst.operands.len()),
            },
        })
        .collect()
}

/// vkd3d's mnemonic reduced to the base names of our opcode table.
fn normalize_vkd3d(mnemonic: &str) -> String {
    let mut n = mnemonic.to_ascii_lowercase();
    if let Some(i) = n.find('(') {
        n.truncate(i);
    }
    let mut words: Vec<&str> = n.split('_').collect();
    let strip = |words: &mut Vec<&str>, drop: &[&str]| words.retain(|w| !drop.contains(w));
    strip(&mut words, &["indexable", "aoffimmi", "sat"]);
    match words[0] {
        "if" | "breakc" | "breakp" | "continuec" | "continuep" | "retc" | "retp" | "discard"
        | "callc" | "callnz" => strip(&mut words, &["z", "nz"]),
        "sync" => strip(&mut words, &["g", "t", "ugroup", "uglobal"]),
        "resinfo" => strip(&mut words, &["uint", "rcpfloat"]),
        _ => {}
    }
    let mut n = words.join("_");
    if n.starts_with("sample_info") {
        n = "sampleinfo".into();
    }
    if n.starts_with("dcl_uav") {
        n = n
            .replace("_glc", "")
            .replace("_opc", "")
            .replace("_rov", "");
    }
    if n.starts_with("dcl_resource_") && n != "dcl_resource_raw" && n != "dcl_resource_structured" {
        n = "dcl_resource".into();
    }
    if n.starts_with("dcl_uav_typed_") {
        n = "dcl_uav_typed".into();
    }
    let renamed = match n.as_str() {
        "breakp" => "breakc",
        "continuep" => "continuec",
        "retp" => "retc",
        "dsx" => "deriv_rtx",
        "dsy" => "deriv_rty",
        "ld2dms" => "ldms",
        "ld2dms_s" => "ldms_s",
        "sample_pos" => "samplepos",
        "dcl_index_range" => "dcl_indexrange",
        "dcl_gs_instances" => "dcl_gsinstances",
        "dcl_interface_dynamicindexed" => "dcl_interface",
        "emit_then_cut" | "emitthencut" => "emit_then_cut",
        other => other,
    };
    renamed.to_string()
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
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => count += 1,
            _ => {}
        }
    }
    count
}

/// Splits a listing line into mnemonic and operands at the first space outside brackets
/// (vkd3d writes `bufinfo_indexable(structured_buffer, stride=4)(mixed,…) r0.x, t0.xyzw`).
fn split_mnemonic(line: &str) -> (&str, &str) {
    let mut depth = 0i32;
    for (i, c) in line.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ' ' if depth == 0 => return (&line[..i], &line[i + 1..]),
            _ => {}
        }
    }
    (line, "")
}

/// vkd3d's instruction sequence from its d3d-asm listing. Operand counts are taken where
/// ours has one (executable instructions); declarations are compared by name only.
fn vkd3d_entries(listing: &str, ours: &[Entry]) -> Vec<Entry> {
    let mut out = Vec::new();
    for line in listing.lines().skip(1) {
        let line = line.trim();
        // Immediate constant buffer rows and the closing brace.
        if line.is_empty() || line.starts_with('{') || line.starts_with('}') {
            continue;
        }
        let (mnemonic, rest) = split_mnemonic(line);
        let counted = ours
            .get(out.len())
            .is_some_and(|e: &Entry| e.operands.is_some());
        out.push(Entry {
            name: normalize_vkd3d(mnemonic),
            operands: counted.then(|| count_operands(rest)),
        });
    }
    out
}

/// A cheap content hash for the cache key.
fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// vkd3d's listing for one file, from the cache or by running the tool.
fn vkd3d_listing(tool: &Path, tool_id: &str, cache: &Path, file: &Path) -> Result<String, String> {
    let data = std::fs::read(file).map_err(|e| e.to_string())?;
    let key = format!(
        "{:016x}-{:016x}.txt",
        fnv1a(&data),
        fnv1a(tool_id.as_bytes())
    );
    let cached = cache.join(&key);
    if let Ok(text) = std::fs::read_to_string(&cached) {
        return Ok(text);
    }
    let out = Command::new(tool)
        .args(["-x", "dxbc-tpf", "-b", "d3d-asm"])
        .arg(file)
        .output()
        .map_err(|e| format!("cannot run vkd3d-compiler: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "vkd3d-compiler failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let tmp = cache.join(format!("{key}.{:?}.tmp", std::thread::current().id()));
    if std::fs::write(&tmp, &text).is_ok() {
        let _ = std::fs::rename(&tmp, &cached);
    }
    Ok(text)
}

#[test]
fn instruction_sequence_matches_vkd3d() {
    let Some(shared) = shared_dir_or_skip() else {
        return;
    };
    let Some((tool, version)) = vkd3d_compiler_or_skip() else {
        return;
    };
    let files = dxbc_files(&shared.join("corpus/dxbc"));
    if files.is_empty() {
        skip::skip(skip::CORPUS, "no .dxbc files under ../shared/corpus/dxbc");
        return;
    }
    let meta = std::fs::metadata(&tool).ok();
    let tool_id = format!("{version}{:?}", meta.map(|m| (m.len(), m.modified().ok())));
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vkd3d-d3d-asm");
    std::fs::create_dir_all(&cache).unwrap();

    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 8);
    let results: Vec<(PathBuf, Result<String, String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (files, tool, tool_id, cache) = (&files, &tool, &tool_id, &cache);
                s.spawn(move || {
                    files
                        .iter()
                        .skip(t)
                        .step_by(threads)
                        .map(|f| (f.clone(), vkd3d_listing(tool, tool_id, cache, f)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });

    let mut failures = Vec::new();
    let mut compared = 0;
    for (path, listing) in results {
        let name = path.display();
        let listing = match listing {
            Ok(l) => l,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let data = std::fs::read(&path).unwrap();
        let program = match decode_file(&data) {
            Ok((p, _)) => p,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let ours = our_entries(&program);
        let theirs = vkd3d_entries(&listing, &ours);
        compared += ours.len();
        if let Some(i) = (0..ours.len().max(theirs.len())).find(|&i| ours.get(i) != theirs.get(i)) {
            failures.push(format!(
                "{name}: instruction {i} differs: ours {:?}, vkd3d {:?} ({} vs {} instructions)\n  ours:  {}\n  vkd3d: {}",
                ours.get(i),
                theirs.get(i),
                ours.len(),
                theirs.len(),
                program.instruction_text(i),
                listing.lines().filter(|l| !l.trim_start().starts_with(['{', '}'])).nth(i + 1).unwrap_or("")
            ));
        }
    }
    eprintln!(
        "compared {compared} instructions in {} shaders",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} shaders differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
