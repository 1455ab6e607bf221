//! Malformed input never crashes the translator: corpus and bench blobs are mutated
//! deterministically (truncations, bit flips, random words, edits of the program's length and
//! opcode/operand tokens) and each is translated under `catch_unwind`. Every case must return
//! Ok or an error, and finish; a watchdog fails the test on a hang.
//!
//! Mutated programs are fed to `translate` with the container checksum left stale (the
//! translator does not require a valid checksum), so the decoder and every lowering path see
//! the corruption.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use integration_tests::shared_dir;

/// A small deterministic PRNG (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut dirs: Vec<PathBuf> = vec![integration_tests::repo_root().join("shaders/examples")];
    if let Some(shared) = shared_dir() {
        dirs.push(shared.join("corpus/dxbc"));
        dirs.push(shared.join("bench/dxbc"));
    } else {
        println!("../shared is absent: mutating the bundled examples only");
    }
    let mut out = Vec::new();
    while let Some(d) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "dxbc") {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Byte range of the program chunk's data (where mutations hurt the most).
fn program_range(blob: &[u8]) -> Option<(usize, usize)> {
    let c = translator::container::Container::parse(blob).ok()?;
    let chunk = c.shader_chunk()?;
    Some((chunk.offset, chunk.offset + chunk.data.len()))
}

fn mutate(rng: &mut Rng, blob: &[u8]) -> Vec<u8> {
    let mut b = blob.to_vec();
    let (lo, hi) = program_range(blob).unwrap_or((0, b.len()));
    let word_at = |rng: &mut Rng| lo + (rng.below((hi - lo) / 4)) * 4;
    match rng.below(6) {
        0 => {
            // Truncate the program (keeping the container's size field consistent is not needed:
            // a size mismatch is itself an input to test).
            let cut = lo + rng.below(hi - lo);
            b.truncate(cut);
        }
        1 => {
            for _ in 0..1 + rng.below(4) {
                let i = lo + rng.below(hi - lo);
                b[i] ^= 1 << rng.below(8);
            }
        }
        2 => {
            let i = word_at(rng);
            let w = rng.next() as u32;
            b[i..i + 4].copy_from_slice(&w.to_le_bytes());
        }
        3 => {
            // Small values in a word: opcode numbers, counts, register indices.
            let i = word_at(rng);
            let w = (rng.below(300)) as u32;
            b[i..i + 2].copy_from_slice(&(w as u16).to_le_bytes());
        }
        4 => {
            // The low byte of a token: opcode or operand type/selection bits.
            let i = word_at(rng);
            b[i] = rng.next() as u8;
        }
        _ => {
            // Swap two words of the program.
            let i = word_at(rng);
            let j = word_at(rng);
            for k in 0..4 {
                b.swap(i + k, j + k);
            }
        }
    }
    b
}

#[test]
fn mutated_programs_never_panic_or_hang() {
    let inputs = inputs();
    assert!(!inputs.is_empty());
    let cases_per_input = (30_000 / inputs.len()).max(50);
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            let start = Instant::now();
            while !done.load(Ordering::Relaxed) {
                if start.elapsed() > Duration::from_secs(600) {
                    eprintln!("translate_mutations: no progress for 10 minutes (hang?)");
                    std::process::exit(1);
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        })
    };
    let opts = translator::Options::default();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut total, mut ok, mut errors) = (0usize, 0usize, 0usize);
    let mut panics: Vec<String> = Vec::new();
    let prev_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for (name, blob) in &inputs {
        for case in 0..cases_per_input {
            let m = mutate(&mut rng, blob);
            total += 1;
            match std::panic::catch_unwind(|| translator::translate(&m, &opts)) {
                Ok(Ok(_)) => ok += 1,
                Ok(Err(e)) => {
                    errors += 1;
                    let msg = e.to_string();
                    assert!(
                        !msg.contains('\n'),
                        "multi-line error for {name} case {case}: {msg}"
                    );
                }
                Err(p) => {
                    let what = p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    if panics.len() < 20 {
                        let path = std::env::temp_dir()
                            .join(format!("translate-panic-{}.dxbc", panics.len()));
                        let _ = std::fs::write(&path, &m);
                        panics.push(format!(
                            "{name} case {case}: {what} (input saved to {})",
                            path.display()
                        ));
                    }
                }
            }
        }
    }
    std::panic::set_hook(prev_hook);
    done.store(true, Ordering::Relaxed);
    watchdog.join().unwrap();
    println!(
        "{total} mutated programs: {ok} translated, {errors} rejected with an error, {} panicked",
        panics.len()
    );
    assert!(
        total >= 10_000 || shared_dir().is_none(),
        "too few cases: {total}"
    );
    assert!(panics.is_empty(), "panics:\n{}", panics.join("\n"));
}
