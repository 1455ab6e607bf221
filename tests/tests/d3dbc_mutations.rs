//! Deterministic mutation sweep of the Direct3D 9 decoder, disassembler and assembler.
//!
//! Seeds are the blobs of `../shared/corpus/d3dbc` (when present) and the assembled listings
//! under `shaders/d3d9` (always). Each case mutates one seed with a seeded PRNG —
//! truncation, bit flips, random dwords, crafted tokens (END, comments with large lengths,
//! instruction tokens with length fields, parameter tokens with the relative bit), dword
//! splices from other seeds, deletions and duplications — and must return without panicking
//! (caught with `catch_unwind`). An error must be one line naming a byte offset within the
//! data; a stream that decodes must disassemble, assemble back to the identical bytes, and
//! its CTAB comments must parse or fail cleanly. Every stream that decodes is also translated
//! to SPIR-V: translation returns a module or a one-line error (naming an offset within the
//! data when it names one), and the first distinct modules (up to [`VALIDATE`]) must pass
//! `spirv-val` for Vulkan 1.3 (when installed). Cases take turns translating with the default
//! D3D9 options, software vertex processing and relaxed limits ([`MODES`]). The whole sweep
//! must stay within a time limit (it takes a few seconds in release).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use integration_tests::{d3dbc_files, repo_root, shared_dir_or_narrow};
use translator::d3dbc;

/// Mutated cases in total.
const CASES: usize = 120_000;
/// Distinct translated modules run through `spirv-val`.
const VALIDATE: usize = 400;
/// The sweep fails if it takes longer (a hang or quadratic blow-up).
const LIMIT: Duration = Duration::from_secs(120);

/// The D3D9 option sets the cases take turns with: (name, software vertex processing,
/// relaxed limits).
const MODES: [(&str, bool, bool); 3] = [
    ("default", false, false),
    ("software vertex processing", true, false),
    ("relaxed limits", false, true),
];

fn mode_options(mode: usize) -> translator::Options {
    let (_, software_vertex_processing, relaxed_limits) = MODES[mode];
    translator::Options {
        d3d9: translator::D3d9Options {
            software_vertex_processing,
            relaxed_limits,
            ..Default::default()
        },
        ..Default::default()
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn seeds() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    if let Some(shared) = shared_dir_or_narrow("seeds from shaders/d3d9") {
        for f in d3dbc_files(&shared.join("corpus/d3dbc")) {
            out.push(std::fs::read(f).unwrap());
        }
    }
    let dir = repo_root().join("shaders/d3d9");
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "asm") {
            let text = std::fs::read_to_string(e.path()).unwrap();
            out.push(d3dbc::asm::assemble(&text).unwrap());
        }
    }
    out
}

fn word_count(d: &[u8]) -> usize {
    d.len() / 4
}

fn put(d: &mut [u8], word: usize, v: u32) {
    d[word * 4..word * 4 + 4].copy_from_slice(&v.to_le_bytes());
}

fn get(d: &[u8], word: usize) -> u32 {
    u32::from_le_bytes(d[word * 4..word * 4 + 4].try_into().unwrap())
}

/// A token worth planting: END, comments, instruction and parameter tokens.
fn crafted(rng: &mut Rng) -> u32 {
    let r = rng.next() as u32;
    match rng.below(8) {
        0 => 0x0000_FFFF,
        1 => 0xFFFE | (r & 0x7FFF_0000),
        2 => 0xFFFE | 0x7FFF_0000,
        // An instruction token: a real opcode, any controls/length/flags.
        3 => {
            let ops = &translator::d3dbc::opcodes::OPCODES;
            ops[rng.below(ops.len())].opcode as u32 | (r & 0x5FFF_0000)
        }
        // A parameter token with the relative bit.
        4 => 0x8000_2000 | (r & 0x7FFF_DFFF),
        5 => 0x8000_0000 | (r & 0x7FFF_FFFF),
        6 => 0xFFFE_0000 | (r & 0x03FF),
        _ => 0xFFFF_0000 | (r & 0x03FF),
    }
}

fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut d = seed.to_vec();
    let words = word_count(&d);
    match rng.below(8) {
        0 => d.truncate(rng.below(d.len() + 1)),
        1 => {
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(d.len());
                d[i] ^= 1 << rng.below(8);
            }
        }
        2 if words > 1 => put(&mut d, 1 + rng.below(words - 1), rng.next() as u32),
        3 if words > 1 => put(&mut d, 1 + rng.below(words - 1), crafted(rng)),
        // Splice a dword run from another seed over or into this one.
        4 if words > 1 && other.len() >= 8 => {
            let n = 1 + rng.below(4);
            let from = rng.below(word_count(other));
            let at = 1 + rng.below(words - 1);
            let run: Vec<u8> = (from..(from + n).min(word_count(other)))
                .flat_map(|w| get(other, w).to_le_bytes())
                .collect();
            let at = at * 4;
            if rng.below(2) == 0 {
                let end = (at + run.len()).min(d.len());
                d.splice(at..end, run);
            } else {
                d.splice(at..at, run);
            }
        }
        5 if words > 2 => {
            let at = 1 + rng.below(words - 1);
            d.drain(at * 4..at * 4 + 4);
        }
        6 if words > 2 => {
            let at = 1 + rng.below(words - 1);
            let n = 1 + rng.below((words - at).min(6));
            let run = d[at * 4..(at + n) * 4].to_vec();
            d.splice(at * 4..at * 4, run);
        }
        _ => {
            let i = rng.below(d.len());
            d[i] = rng.next() as u8;
        }
    }
    d
}

/// Whether the stream decoded and whether it translated (its module then in `module`), or
/// what went wrong.
fn check(
    d: &[u8],
    opts: &translator::Options,
    module: &mut Option<Vec<u32>>,
) -> Result<(bool, bool), String> {
    match d3dbc::decode(d) {
        Err(e) => {
            let text = e.to_string();
            if text.contains('\n') {
                return Err(format!("multi-line error: {text}"));
            }
            if e.offset > d.len() {
                return Err(format!(
                    "offset {:#x} beyond {} bytes: {text}",
                    e.offset,
                    d.len()
                ));
            }
            Ok((false, false))
        }
        Ok(p) => {
            for c in p.comments() {
                if let Some(Err(e)) = c.ctab() {
                    let text = e.to_string();
                    if text.contains('\n') || e.offset > d.len() {
                        return Err(format!("bad CTAB error: {text}"));
                    }
                }
            }
            let text = p.to_string();
            let bytes = d3dbc::asm::assemble(&text).map_err(|e| format!("reassembly: {e}"))?;
            if bytes != d {
                return Err("reassembled bytes differ".into());
            }
            match translator::translate(d, opts) {
                Ok(t) => {
                    *module = Some(t.spirv);
                    Ok((true, true))
                }
                Err(e) => {
                    let text = e.to_string();
                    if text.contains('\n') || e.offset().is_some_and(|o| o > d.len()) {
                        return Err(format!("bad translation error: {text}"));
                    }
                    Ok((true, false))
                }
            }
        }
    }
}

#[test]
fn mutated_streams_decode_or_fail_cleanly_and_round_trip() {
    let seeds = seeds();
    assert!(!seeds.is_empty());
    let mut rng = Rng(0x0D3D_9D3D_9D3D_9D3D);
    let start = Instant::now();
    let (mut decoded, mut failures) = (0usize, Vec::new());
    let mut translated = [0usize; MODES.len()];
    let mut modules: Vec<Vec<u32>> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for case in 0..CASES {
        let seed = &seeds[case % seeds.len()];
        let other = &seeds[rng.below(seeds.len())];
        let d = mutate(&mut rng, seed, other);
        let mut module = None;
        let mode = case % MODES.len();
        let opts = mode_options(mode);
        match catch_unwind(AssertUnwindSafe(|| check(&d, &opts, &mut module))) {
            Err(_) => failures.push(format!("case {case}: panicked")),
            Ok(Err(what)) => failures.push(format!("case {case}: {what}")),
            Ok(Ok((true, t))) => {
                decoded += 1;
                translated[mode] += usize::from(t);
                if let Some(m) = module.filter(|_| modules.len() < VALIDATE)
                    && seen.insert(m.clone())
                {
                    modules.push(m);
                }
            }
            Ok(Ok((false, _))) => {
                let e = d3dbc::decode(&d).unwrap_err();
                let kind = format!("{:?}", e.kind);
                let kind = kind.split(['(', ' ', '{']).next().unwrap_or("").to_string();
                *kinds.entry(kind).or_default() += 1;
            }
        }
        if failures.len() == 1 {
            let path = std::env::temp_dir().join("d3dbc-mutation-failure.bin");
            let _ = std::fs::write(&path, &d);
            failures[0] += &format!(" (written to {})", path.display());
            failures.push(String::new());
        }
        assert!(
            start.elapsed() < LIMIT,
            "sweep exceeded {LIMIT:?} at case {case}"
        );
    }
    failures.retain(|f| !f.is_empty());
    let per_mode: Vec<String> = MODES
        .iter()
        .zip(translated)
        .map(|((name, ..), n)| format!("{n} {name}"))
        .collect();
    eprintln!(
        "{CASES} cases from {} seeds in {:.2?}: {decoded} decode (and reassemble byte for byte), {} translate ({}), {} errors {kinds:?}",
        seeds.len(),
        start.elapsed(),
        translated.iter().sum::<usize>(),
        per_mode.join(", "),
        CASES - decoded - failures.len()
    );
    let dir = std::env::temp_dir().join(format!("d3dbc_mutations_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut validated = 0;
    for (i, m) in modules.iter().enumerate() {
        let path = dir.join(format!("{i}.spv"));
        let bytes: Vec<u8> = m.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        match integration_tests::spirv_val(&path, "vulkan1.3") {
            Ok(()) => validated += 1,
            Err(e) if e.starts_with("spirv-val not found") => {
                integration_tests::skip::skip_part(
                    "spirv-val",
                    integration_tests::NO_SPIRV_VAL,
                    "modules not validated",
                );
                break;
            }
            Err(e) => failures.push(format!(
                "module {} fails spirv-val: {}",
                path.display(),
                e.lines().next().unwrap_or("")
            )),
        }
    }
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    eprintln!("{validated} distinct translated modules pass spirv-val");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}
