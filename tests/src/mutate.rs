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

/// The byte offsets of the system-value field of every element of `blob`'s signature chunks,
/// with the chunk's tag; patch-constant signatures (PCSG, PSG1) first.
pub fn signature_system_value_fields(blob: &[u8]) -> Vec<(usize, [u8; 4])> {
    let Ok(c) = translator::container::Container::parse(blob) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for ch in &c.chunks {
        let (size, stream) = match &ch.tag {
            b"ISGN" | b"OSGN" | b"PCSG" => (24, 0),
            b"OSG5" => (28, 4),
            b"ISG1" | b"OSG1" | b"PSG1" => (32, 4),
            _ => continue,
        };
        let word = |at: usize| {
            ch.data
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize)
        };
        let (Some(count), Some(table)) = (word(0), word(4)) else {
            continue;
        };
        for i in 0..count.min(64) {
            let at = table + i * size + stream + 8;
            if at + 4 <= ch.data.len() {
                out.push((ch.offset + at, ch.tag));
            }
        }
    }
    out.sort_by_key(|&(_, tag)| !matches!(&tag, b"PCSG" | b"PSG1"));
    out
}

/// One signature element's system value set to `value` (`D3D_NAME`: 0 none, 1 position,
/// 2 clip, 3 cull, 4 render-target array index, 5 viewport index, 6 vertex id, 7 primitive id,
/// 8 instance id, 9 is-front-face, 10 sample index, 11–16 tessellation factors, 23–25 the SM6
/// values; anything else is a value D3D does not define).
pub fn set_system_value(blob: &[u8], field: usize, value: u32) -> Vec<u8> {
    let mut b = blob.to_vec();
    b[field..field + 4].copy_from_slice(&value.to_le_bytes());
    b
}

/// The signature mutation class: a patch-constant element when the blob has one (three times
/// in four), else any signature element, gets a system value — one D3D defines (0–25) nineteen
/// times in twenty, else any word. `None` when the blob has no signature element.
pub fn mutate_signature(rng: &mut Rng, blob: &[u8]) -> Option<Vec<u8>> {
    let fields = signature_system_value_fields(blob);
    if fields.is_empty() {
        return None;
    }
    let patch = fields
        .iter()
        .filter(|f| matches!(&f.1, b"PCSG" | b"PSG1"))
        .count();
    let pick = if patch > 0 && rng.below(4) != 0 {
        rng.below(patch)
    } else {
        rng.below(fields.len())
    };
    let value = if rng.below(20) == 0 {
        rng.next_u64() as u32
    } else {
        rng.below(26) as u32
    };
    Some(set_system_value(blob, fields[pick].0, value))
}
