//! Deterministic mutation testing of everything that reads untrusted DXBC: container parsing,
//! every chunk parser, the typed view and its comment header, `sm4::decode` and the
//! disassembly `Display`.
//!
//! Real blobs (the shared corpus and bench shaders when present, the bundled examples always)
//! are mutated with a seeded PRNG: truncations, bit flips, byte runs, splices from other blobs,
//! and targeted edits of size/offset/count fields — chunk sizes and offsets, the chunk count,
//! signature element counts and name offsets, RDEF counts and offsets (buffers, variables,
//! types, members, bindings, strings, RD11 sizes), IFCE counts, the SHDR/SHEX length token and
//! instruction length fields. Each case must return (no panic, caught with `catch_unwind`),
//! container errors must name an offset inside the blob, and the whole run must finish within a
//! time limit (a watchdog thread reports the case that hangs). A failing case is written to
//! the temp directory for reproduction.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use integration_tests::{repo_root, shared_dir_or_narrow};
use translator::container::header::{CommentFooter, CommentHeader};
use translator::container::{
    Container, ContainerError, FeatureFlags, Interfaces, ParsedContainer, ResourceDefinitions,
    ShaderVersion, Signature, Statistics, checksum,
};
use translator::sm4;

/// Mutated cases in total (spread over the seed blobs).
const CASES: usize = 120_000;

/// xorshift64* — small, deterministic, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
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
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

fn rd32(d: &[u8], at: usize) -> Option<u32> {
    d.get(at..at.checked_add(4)?)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn rd16(d: &[u8], at: usize) -> Option<u16> {
    d.get(at..at.checked_add(2)?)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
}

/// A field worth editing: its offset in the blob and width (2 or 4 bytes).
#[derive(Clone, Copy, Debug)]
struct Field {
    at: usize,
    width: usize,
}

/// Finds size/offset/count fields by walking the blob with raw reads (independently of the
/// parsers under test, so fields are found even in chunks those parsers would reject).
fn interesting_fields(d: &[u8]) -> Vec<Field> {
    let mut f = Vec::new();
    let mut w32 = |at: usize| f.push(Field { at, width: 4 });
    w32(24); // total size
    w32(28); // chunk count
    let count = rd32(d, 28).unwrap_or(0).min(64) as usize;
    let mut chunks = Vec::new();
    for i in 0..count {
        let entry = 32 + 4 * i;
        w32(entry);
        let Some(start) = rd32(d, entry).map(|v| v as usize) else {
            continue;
        };
        let Some(size) = rd32(d, start + 4) else {
            continue;
        };
        w32(start + 4);
        if let Some(tag) = d.get(start..start + 4) {
            chunks.push((<[u8; 4]>::try_from(tag).unwrap(), start + 8, size as usize));
        }
    }
    let mut fields = Vec::new();
    let mut fields16 = Vec::new();
    for (tag, base, size) in chunks {
        let c = |off: usize| base + off;
        let in_chunk = |off: usize| off < size;
        match &tag {
            b"ISGN" | b"OSGN" | b"PCSG" | b"OSG5" | b"ISG1" | b"OSG1" | b"PSG1" => {
                fields.extend([c(0), c(4)]);
                let (esize, skip) = match &tag {
                    b"OSG5" => (28, 4),
                    b"ISG1" | b"OSG1" | b"PSG1" => (32, 4),
                    _ => (24, 0),
                };
                let n = rd32(d, c(0)).unwrap_or(0).min(32) as usize;
                let table = rd32(d, c(4)).unwrap_or(8) as usize;
                for i in 0..n {
                    let e = table + i * esize + skip;
                    if in_chunk(e) {
                        fields.extend([c(e), c(e + 16), c(e + 20)]);
                    }
                }
            }
            b"RDEF" => {
                fields.extend([0, 4, 8, 12, 16, 24].map(c));
                let sm5 = rd32(d, c(16)).is_some_and(|t| (t & 0xffff) >= 0x500);
                if sm5 {
                    fields.extend([32, 36, 40, 44, 48, 52].map(c));
                }
                let vsize = if sm5 { 40 } else { 24 };
                let bsize = if rd32(d, c(16)).is_some_and(|t| (t & 0xffff) >= 0x501) {
                    40
                } else {
                    32
                };
                let nb = rd32(d, c(8)).unwrap_or(0).min(64) as usize;
                let boff = rd32(d, c(12)).unwrap_or(0) as usize;
                for i in 0..nb {
                    let b = boff + i * bsize;
                    if in_chunk(b) {
                        fields.extend([c(b), c(b + 4), c(b + 12), c(b + 24)]);
                    }
                }
                let ncb = rd32(d, c(0)).unwrap_or(0).min(16) as usize;
                let cboff = rd32(d, c(4)).unwrap_or(0) as usize;
                let mut types = Vec::new();
                for i in 0..ncb {
                    let cb = cboff + i * 24;
                    if !in_chunk(cb) {
                        continue;
                    }
                    fields.extend([c(cb), c(cb + 4), c(cb + 8)]);
                    let nv = rd32(d, c(cb + 4)).unwrap_or(0).min(32) as usize;
                    let voff = rd32(d, c(cb + 8)).unwrap_or(0) as usize;
                    for v in 0..nv {
                        let var = voff + v * vsize;
                        if in_chunk(var) {
                            fields.extend([c(var), c(var + 8), c(var + 16), c(var + 20)]);
                            if let Some(t) = rd32(d, c(var + 16)) {
                                types.push(t as usize);
                            }
                        }
                    }
                }
                // Types and their members, a few levels down.
                let mut seen = std::collections::HashSet::new();
                while let Some(t) = types.pop() {
                    if !in_chunk(t) || !seen.insert(t) || seen.len() > 64 {
                        continue;
                    }
                    fields.push(c(t + 12));
                    // Array length and member count are 16-bit halves.
                    fields16.extend([c(t + 8), c(t + 10)]);
                    if sm5 {
                        fields.push(c(t + 32));
                    }
                    let nm = rd16(d, c(t + 10)).unwrap_or(0).min(16) as usize;
                    let moff = rd32(d, c(t + 12)).unwrap_or(0) as usize;
                    for m in 0..nm {
                        let mem = moff + m * 12;
                        if in_chunk(mem) {
                            fields.extend([c(mem), c(mem + 4)]);
                            if let Some(mt) = rd32(d, c(mem + 4)) {
                                types.push(mt as usize);
                            }
                        }
                    }
                }
            }
            b"IFCE" => fields.extend([0, 4, 8, 12, 20, 24].map(c)),
            b"SFI0" => fields.push(c(0)),
            b"SHDR" | b"SHEX" => {
                fields.extend([c(0), c(4)]);
                // Instruction length fields: bits 24–30 of each opcode token (customdata: the
                // next dword).
                let words = size / 4;
                let mut pos = 2;
                let mut n = 0;
                while pos < words && n < 512 {
                    let Some(tok) = rd32(d, c(pos * 4)) else {
                        break;
                    };
                    let len = if tok & 0x7ff == 0x35 {
                        fields.push(c(pos * 4 + 4));
                        rd32(d, c(pos * 4 + 4)).unwrap_or(0) as usize
                    } else {
                        fields.push(c(pos * 4));
                        ((tok >> 24) & 0x7f) as usize
                    };
                    if len == 0 {
                        break;
                    }
                    pos += len;
                    n += 1;
                }
            }
            _ => {}
        }
    }
    f.extend(fields.into_iter().map(|at| Field { at, width: 4 }));
    f.extend(fields16.into_iter().map(|at| Field { at, width: 2 }));
    f.retain(|fl| fl.at + fl.width <= d.len());
    f
}

fn interesting_value(rng: &mut Rng, old: u32, len: usize) -> u32 {
    let len = len as u32;
    match rng.below(24) {
        0 => 0,
        1 => 1,
        2 => 2,
        3 => 4,
        4 => 8,
        5 => 0x7f,
        6 => 0x80,
        7 => 0xff,
        8 => 0xffff,
        9 => 0x1_0000,
        10 => 0x7fff_ffff,
        11 => 0x8000_0000,
        12 => 0xffff_fffe,
        13 => 0xffff_ffff,
        14 => len.wrapping_sub(1),
        15 => len,
        16 => len.wrapping_add(1),
        17 => old.wrapping_add(1),
        18 => old.wrapping_sub(1),
        19 => old.wrapping_add(4),
        20 => old.wrapping_sub(4),
        21 => old.wrapping_mul(2),
        22 => old ^ (1 << rng.below(32)),
        _ => rng.next() as u32,
    }
}

fn set_total_size(d: &mut [u8]) {
    if d.len() >= 28 {
        let n = d.len() as u32;
        d[24..28].copy_from_slice(&n.to_le_bytes());
    }
}

fn fix_checksum(d: &mut [u8]) {
    if d.len() >= 20 {
        let sum = checksum::container_checksum(d);
        d[4..20].copy_from_slice(&sum);
    }
}

/// Applies one mutation; returns its description.
fn mutate(rng: &mut Rng, seed: &[u8], fields: &[Field], other: &[u8]) -> (Vec<u8>, String) {
    let mut d = seed.to_vec();
    let what = match rng.below(100) {
        0..=14 => {
            let cut = rng.below(d.len() + 1);
            d.truncate(cut);
            if rng.chance(85) {
                set_total_size(&mut d);
            }
            format!("truncate to {cut}")
        }
        15..=34 => {
            let flips = 1 + rng.below(8);
            for _ in 0..flips {
                let bit = rng.below(d.len() * 8);
                d[bit / 8] ^= 1 << (bit % 8);
            }
            format!("{flips} bit flips")
        }
        35..=79 if !fields.is_empty() => {
            let edits = 1 + rng.below(2);
            let mut text = String::new();
            for _ in 0..edits {
                let field = fields[rng.below(fields.len())];
                let old = rd32(&d, field.at).unwrap_or(0);
                let new = interesting_value(rng, old, d.len());
                if field.width == 2 {
                    d[field.at..field.at + 2].copy_from_slice(&(new as u16).to_le_bytes());
                } else {
                    d[field.at..field.at + 4].copy_from_slice(&new.to_le_bytes());
                }
                text += &format!("field {:#x}: {old:#x} -> {new:#x}; ", field.at);
            }
            text
        }
        80..=91 => {
            let at = rng.below(d.len());
            let n = (1 + rng.below(16)).min(d.len() - at);
            for b in &mut d[at..at + n] {
                *b = rng.next() as u8;
            }
            format!("{n} random bytes at {at:#x}")
        }
        92..=96 if !other.is_empty() => {
            let from = rng.below(other.len());
            let n = (1 + rng.below(256)).min(other.len() - from);
            let at = rng.below(d.len());
            let end = (at + n).min(d.len());
            d[at..end].copy_from_slice(&other[from..from + (end - at)]);
            format!("splice {} bytes from another blob at {at:#x}", end - at)
        }
        _ => {
            let at = rng.below(d.len());
            let n = rng.below(64).min(d.len() - at);
            d.drain(at..at + n);
            set_total_size(&mut d);
            format!("delete {n} bytes at {at:#x}")
        }
    };
    if rng.chance(30) {
        fix_checksum(&mut d);
    }
    (d, what)
}

#[derive(Default)]
struct Stats {
    container_ok: usize,
    parsed_ok: usize,
    decoded: usize,
    decode_errors: usize,
    decode_error_offsets_outside: usize,
}

fn check_container_error(e: &ContainerError, len: usize) -> Result<(), String> {
    if e.offset > len {
        return Err(format!(
            "container error offset {:#x} is outside the {len}-byte blob: {e}",
            e.offset
        ));
    }
    if e.what.contains('\n') {
        return Err(format!("container error message spans lines: {e:?}"));
    }
    Ok(())
}

/// Runs every reader on one blob.
fn exercise(data: &[u8], stats: &mut Stats) -> Result<(), String> {
    match Container::parse(data) {
        Err(e) => check_container_error(&e, data.len())?,
        Ok(c) => {
            stats.container_ok += 1;
            let _ = c.verify_checksum();
            for chunk in &c.chunks {
                let result = match &chunk.tag {
                    b"ISGN" | b"OSGN" | b"PCSG" | b"OSG5" | b"ISG1" | b"OSG1" | b"PSG1" => {
                        Signature::parse(chunk).map(|_| ())
                    }
                    b"RDEF" => ResourceDefinitions::parse(chunk).map(|_| ()),
                    b"STAT" => Statistics::parse(chunk).map(|_| ()),
                    b"SFI0" => FeatureFlags::parse(chunk).map(|_| ()),
                    b"IFCE" => Interfaces::parse(chunk).map(|_| ()),
                    b"SHDR" | b"SHEX" => {
                        match sm4::decode(chunk.data, chunk.offset) {
                            Ok(program) => {
                                stats.decoded += 1;
                                let text = program.to_string();
                                std::hint::black_box(text);
                            }
                            Err(e) => {
                                stats.decode_errors += 1;
                                if e.offset > data.len() {
                                    stats.decode_error_offsets_outside += 1;
                                }
                            }
                        }
                        ShaderVersion::from_program_chunk(chunk).map(|_| ())
                    }
                    _ => Ok(()),
                };
                if let Err(e) = result {
                    check_container_error(&e, data.len())?;
                }
            }
        }
    }
    match ParsedContainer::parse(data) {
        Ok(p) => {
            stats.parsed_ok += 1;
            let text = format!("{}{}", CommentHeader(&p), CommentFooter(&p));
            std::hint::black_box(text);
        }
        Err(e) => check_container_error(&e, data.len())?,
    }
    Ok(())
}

fn seed_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = Vec::new();
    if let Some(shared) = shared_dir_or_narrow("the bundled examples") {
        stack.push(shared.join("corpus/dxbc"));
        stack.push(shared.join("bench/dxbc"));
    }
    stack.push(repo_root().join("shaders/examples"));
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "dxbc") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

fn save_case(data: &[u8], index: usize) -> PathBuf {
    let path = std::env::temp_dir().join(format!("dxbc-mutation-{index}.dxbc"));
    let _ = std::fs::write(&path, data);
    path
}

fn run_all(seeds: Vec<(PathBuf, Vec<u8>)>, progress: Arc<AtomicUsize>) -> (Stats, Vec<String>) {
    let fields: Vec<Vec<Field>> = seeds.iter().map(|(_, d)| interesting_fields(d)).collect();
    let mut stats = Stats::default();
    let mut failures = Vec::new();
    // Unmutated seeds first: they must all be read without trouble.
    for (path, data) in &seeds {
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| exercise(data, &mut Stats::default())))
            .unwrap_or_else(|p| Err(panic_text(&p)))
        {
            failures.push(format!("{}: unmutated: {e}", path.display()));
        }
    }
    for case in 0..CASES {
        progress.store(case, Ordering::Relaxed);
        let s = case % seeds.len();
        let mut rng = Rng::new(0xD8BC_0000 + case as u64);
        let other = &seeds[rng.below(seeds.len())].1;
        let (data, what) = mutate(&mut rng, &seeds[s].1, &fields[s], other);
        let result = catch_unwind(AssertUnwindSafe(|| exercise(&data, &mut stats)));
        let error = match result {
            Ok(Ok(())) => continue,
            Ok(Err(e)) => e,
            Err(p) => format!("panic: {}", panic_text(&p)),
        };
        if failures.len() < 20 {
            let saved = save_case(&data, case);
            failures.push(format!(
                "case {case} ({}; {what}): {error} [saved to {}]",
                seeds[s].0.display(),
                saved.display()
            ));
        } else {
            failures.push(String::new());
        }
    }
    (stats, failures)
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic".into())
}

#[test]
fn mutated_blobs_never_panic_or_hang() {
    let seeds: Vec<(PathBuf, Vec<u8>)> = seed_files()
        .into_iter()
        .map(|p| {
            let d = std::fs::read(&p).unwrap();
            (p, d)
        })
        .filter(|(_, d)| d.len() >= 32)
        .collect();
    assert!(
        seeds.len() >= 2,
        "no seed blobs found (shaders/examples should always be there)"
    );
    let limit = if cfg!(debug_assertions) {
        Duration::from_secs(900)
    } else {
        Duration::from_secs(60)
    };

    // Quiet the default panic printing while panics are being caught; failures are reported
    // below with the case that caused them.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let progress = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel();
    let worker_progress = progress.clone();
    let seed_count = seeds.len();
    let start = Instant::now();
    std::thread::spawn(move || {
        let _ = tx.send(run_all(seeds, worker_progress));
    });
    let outcome = rx.recv_timeout(limit);
    std::panic::set_hook(default_hook);
    let (stats, failures) = match outcome {
        Ok(r) => r,
        Err(_) => panic!(
            "mutation run did not finish within {limit:?}: stuck at or after case {} (cases are reproducible: Rng::new(0xD8BC_0000 + case))",
            progress.load(Ordering::Relaxed)
        ),
    };
    let elapsed = start.elapsed();
    println!(
        "{CASES} mutated cases from {seed_count} seeds in {elapsed:.2?}: container parsed {}, full view parsed {}, \
         programs decoded {}, decode errors {} ({} naming an offset outside the blob)",
        stats.container_ok,
        stats.parsed_ok,
        stats.decoded,
        stats.decode_errors,
        stats.decode_error_offsets_outside
    );
    let shown: Vec<&String> = failures.iter().filter(|f| !f.is_empty()).collect();
    assert!(
        failures.is_empty(),
        "{} failing cases; first ones:\n{}",
        failures.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The mutations must reach past the header check often, or they test little.
    assert!(
        stats.container_ok > CASES / 4,
        "only {} of {CASES} cases got past the chunk table",
        stats.container_ok
    );
}

#[test]
fn field_finder_finds_fields() {
    let blob = std::fs::read(repo_root().join("shaders/examples/ps_texture.dxbc")).unwrap();
    let fields = interesting_fields(&blob);
    // Header (2) + 5 chunk offsets + 5 sizes + signature and RDEF fields + instructions.
    assert!(fields.len() > 40, "{} fields", fields.len());
    assert!(fields.iter().all(|f| f.at + f.width <= blob.len()));
}
