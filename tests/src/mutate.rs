//! The mutations of corpus programs that the translator sweeps share
//! (`translate_mutations`, `translate_valid`): a seeded PRNG, the inputs (bundled examples,
//! `../shared`'s corpus and bench blobs) and one deterministic edit of a blob's program chunk.

use std::path::PathBuf;

use crate::shared_dir_or_narrow;

/// A small deterministic PRNG (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

pub fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut dirs: Vec<PathBuf> = vec![crate::repo_root().join("shaders/examples")];
    if let Some(shared) = shared_dir_or_narrow("the bundled examples") {
        dirs.push(shared.join("corpus/dxbc"));
        dirs.push(shared.join("bench/dxbc"));
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

pub fn mutate(rng: &mut Rng, blob: &[u8]) -> Vec<u8> {
    let mut b = blob.to_vec();
    let (lo, hi) = program_range(blob).unwrap_or((0, b.len()));
    if hi < lo + 4 || hi > b.len() {
        // Nothing left to edit (a blob already cut short by an earlier mutation).
        return b;
    }
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
            let w = rng.next_u64() as u32;
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
            b[i] = rng.next_u64() as u8;
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
