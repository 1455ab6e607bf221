//! Deterministic mutation testing of the assembler: assembly texts (the hand-written files
//! in `shaders/asm/`, and the corpus disassemblies with their comment headers when
//! `../shared` is present) are mutated with a seeded PRNG — character deletions, insertions
//! of syntax characters, token replacements with hostile values (huge numbers, unknown
//! names, deep relative-index nesting, stray brackets and braces), line deletions,
//! duplications and swaps, truncations and splices from other texts.
//!
//! Every case must return (no panic, caught with `catch_unwind`); an error must name a line
//! and column inside the text; a text that assembles must give a container that parses,
//! and its disassembly must assemble again to the same program chunk. The run must finish
//! within a time limit (a watchdog names the case that hangs). A failing case is written to
//! the temp directory for reproduction.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use integration_tests::{repo_root, shared_dir_or_narrow};
use translator::asm;
use translator::container::ParsedContainer;
use translator::container::header::{CommentFooter, CommentHeader};
use translator::sm4;

/// Mutated cases in total (spread over the seed texts).
const CASES: usize = 20_000;

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
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Seed texts: the hand-written files, and corpus listings with headers when available.
fn seeds() -> Vec<String> {
    let mut out = Vec::new();
    let dir = repo_root().join("shaders/asm");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    files.sort();
    for f in files {
        out.push(std::fs::read_to_string(f).unwrap());
    }
    match shared_dir_or_narrow("the shaders/asm files") {
        None => {}
        Some(shared) => {
            let mut blobs = Vec::new();
            for sub in ["corpus/dxbc", "bench/dxbc"] {
                let mut stack = vec![shared.join(sub)];
                while let Some(d) = stack.pop() {
                    let Ok(entries) = std::fs::read_dir(&d) else {
                        continue;
                    };
                    for e in entries.flatten() {
                        let p = e.path();
                        if p.is_dir() {
                            stack.push(p);
                        } else if p.extension().is_some_and(|x| x == "dxbc") {
                            blobs.push(p);
                        }
                    }
                }
            }
            blobs.sort();
            // Every fourth blob keeps the run short while covering every stage and model.
            for p in blobs.iter().step_by(4) {
                let data = std::fs::read(p).unwrap();
                let Ok(parsed) = ParsedContainer::parse(&data) else {
                    continue;
                };
                let Some(chunk) = parsed.program else {
                    continue;
                };
                let Ok(program) = sm4::decode(chunk.data, chunk.offset) else {
                    continue;
                };
                out.push(format!(
                    "{}{program}{}",
                    CommentHeader(&parsed),
                    CommentFooter(&parsed)
                ));
            }
        }
    }
    out
}

const SYNTAX: &[char] = &[
    '[', ']', '{', '}', '(', ')', ',', '.', '|', '-', '+', ':', '=', '*', '"', '/', ' ', '\n', '0',
    '9', 'x', 'r', 'l', 'd', '_', 'é',
];

const HOSTILE: &[&str] = &[
    "4294967296",
    "4294967295",
    "18446744073709551616",
    "0xffffffffffffffffff",
    "-0x1",
    "1e999",
    "-1e-999",
    "3.4028236e38",
    "0x",
    "0u64",
    "99999999999u64",
    "r4294967295",
    "r99999999999",
    "cb0[",
    "]",
    "{",
    "}",
    "{c1,",
    "{bits=0xffffffff}",
    "{extbits=0x1}",
    "{control=0xffffffff}",
    "{pad=0x1, longlen}",
    "{extorder=RRR}",
    "l(",
    "l(1,2,3,4,5)",
    "d(1,2,3)",
    "T0[1:*]",
    "T0[0:0][4]",
    "x0[r0.x + 1]",
    "v[0][0][0][0]",
    "fp0[0][0][0]",
    "_sat",
    "_indexable(",
    "_aoffimmi(8,8,8)",
    "(float,float)",
    "(structured_buffer, stride=99999)",
    ".input",
    ".output A 0 o0 float rw=",
    ".tag output ISGN",
    ".tag program SHEX",
    "dcl_immediateConstantBuffer { { 1, 2, 3, 4, 5 } }",
    "dcl_customdata comment {",
    "// comment",
    "\"unterminated",
    "space=4294967295",
    "dcl_hs_max_tessfactor l(1e40)",
    "dcl_input_control_point_count 64",
    "dcl_interface fp0[65536][1] = {}",
    "{trailing=zz}",
];

/// `depth` nested relative indices, possibly unclosed.
fn nesting(rng: &mut Rng) -> String {
    let depth = 1 + rng.below(64);
    let mut s = String::new();
    for _ in 0..depth {
        let open: &&str = rng.pick(&["r0[", "x0[", "cb0[", "v[", "icb["]);
        s.push_str(open);
    }
    s.push('0');
    for _ in 0..rng.below(depth + 1) {
        s.push(']');
    }
    s
}

/// Byte offsets of character boundaries, for slicing.
fn boundary(text: &str, rng: &mut Rng) -> usize {
    let mut i = rng.below(text.len() + 1);
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn mutate(text: &str, other: &str, rng: &mut Rng) -> String {
    let mut s = text.to_string();
    for _ in 0..1 + rng.below(3) {
        match rng.below(9) {
            0 => {
                let a = boundary(&s, rng);
                let mut b = a + rng.below(16);
                b = b.min(s.len());
                while !s.is_char_boundary(b) {
                    b -= 1;
                }
                s.replace_range(a..b, "");
            }
            1 => {
                let at = boundary(&s, rng);
                s.insert(at, *rng.pick(SYNTAX));
            }
            2 | 3 => {
                // Replace one whitespace-separated token.
                let starts: Vec<usize> = s
                    .char_indices()
                    .filter(|(i, c)| {
                        !c.is_whitespace() && (*i == 0 || s[..*i].ends_with(char::is_whitespace))
                    })
                    .map(|(i, _)| i)
                    .collect();
                if starts.is_empty() {
                    continue;
                }
                let a = *rng.pick(&starts);
                let b = s[a..].find(char::is_whitespace).map_or(s.len(), |n| a + n);
                let with = if rng.below(4) == 0 {
                    nesting(rng)
                } else {
                    rng.pick(HOSTILE).to_string()
                };
                s.replace_range(a..b, &with);
            }
            4 => {
                let lines: Vec<&str> = s.lines().collect();
                if lines.is_empty() {
                    continue;
                }
                let i = rng.below(lines.len());
                let mut v: Vec<&str> = lines.clone();
                match rng.below(3) {
                    0 => {
                        v.remove(i);
                    }
                    1 => v.insert(i, lines[rng.below(lines.len())]),
                    _ => v.swap(i, rng.below(lines.len())),
                }
                s = v.join("\n");
            }
            5 => {
                let at = boundary(&s, rng);
                s.truncate(at);
            }
            6 => {
                let a = boundary(&s, rng);
                let b = boundary(other, rng);
                let c = (b + rng.below(200)).min(other.len());
                let mut c = c;
                while !other.is_char_boundary(c) {
                    c -= 1;
                }
                s.insert_str(a, &other[b..c.max(b)]);
            }
            7 => {
                // Insert a hostile token at a line start.
                let at = s
                    .match_indices('\n')
                    .map(|(i, _)| i + 1)
                    .nth(rng.below(s.lines().count().max(1)))
                    .unwrap_or(0);
                s.insert_str(at, &format!("{}\n", rng.pick(HOSTILE)));
            }
            _ => {
                // Replace a digit run with a huge or odd number.
                let digits: Vec<usize> = s
                    .char_indices()
                    .filter(|(_, c)| c.is_ascii_digit())
                    .map(|(i, _)| i)
                    .collect();
                if digits.is_empty() {
                    continue;
                }
                let a = *rng.pick(&digits);
                let b = s[a..]
                    .find(|c: char| !c.is_ascii_digit())
                    .map_or(s.len(), |n| a + n);
                let number: &&str = rng.pick(&[
                    "4294967295",
                    "0",
                    "99999999999",
                    "127",
                    "128",
                    "65535",
                    "65536",
                ]);
                s.replace_range(a..b, number);
            }
        }
    }
    s
}

/// Checks one text; `Err` describes a violated property.
fn check(text: &str) -> Result<bool, String> {
    match asm::parse(text) {
        Err(e) => {
            let lines = text.split('\n').count() as u32;
            if e.line == 0 || e.line > lines + 1 || e.column == 0 {
                return Err(format!("error position outside the text: {e}"));
            }
            Ok(false)
        }
        Ok(a) => {
            let blob = a.to_container();
            if let Ok(blob) = blob {
                ParsedContainer::parse(&blob).map_err(|e| format!("container: {e}"))?;
            }
            let listing = a.program.to_string();
            let again =
                asm::parse(&listing).map_err(|e| format!("reassembling the disassembly: {e}"))?;
            if again.chunk != a.chunk {
                return Err("the disassembly reassembles to a different chunk".into());
            }
            Ok(true)
        }
    }
}

#[test]
fn mutated_assembly_never_panics_or_hangs() {
    let seeds = seeds();
    assert!(!seeds.is_empty());
    let done = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel::<()>();
    let watchdog_done = done.clone();
    let limit = Duration::from_secs(600);
    let watchdog = std::thread::spawn(move || {
        if rx.recv_timeout(limit).is_err() {
            panic!(
                "mutation run exceeded {limit:?} (stuck near case {})",
                watchdog_done.load(Ordering::Relaxed)
            );
        }
    });
    let start = Instant::now();
    let mut rng = Rng::new(0x5eed_a55e);
    let mut accepted = 0;
    let mut failures = Vec::new();
    for case in 0..CASES {
        done.store(case, Ordering::Relaxed);
        let i = case % seeds.len();
        let other = &seeds[rng.below(seeds.len())];
        let text = mutate(&seeds[i], other, &mut rng);
        match catch_unwind(AssertUnwindSafe(|| check(&text))) {
            Ok(Ok(ok)) => accepted += ok as usize,
            Ok(Err(e)) => failures.push((case, e, text)),
            Err(_) => failures.push((case, "panic".into(), text)),
        }
    }
    let _ = tx.send(());
    watchdog.join().unwrap();
    eprintln!(
        "{CASES} mutated texts from {} seeds in {:?}: {accepted} assembled, {} rejected with errors, {} failures",
        seeds.len(),
        start.elapsed(),
        CASES - accepted - failures.len(),
        failures.len()
    );
    if let Some((case, e, text)) = failures.first() {
        let path = std::env::temp_dir().join(format!("asm-mutation-{case}.asm"));
        std::fs::write(&path, text).unwrap();
        panic!(
            "{} cases failed; first: case {case}: {e} (text written to {})",
            failures.len(),
            path.display()
        );
    }
}
