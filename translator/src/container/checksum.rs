//! The DXBC container checksum: MD5 with a modified final block.
//!
//! The 16 bytes after the `DXBC` magic are a digest of everything after them (from byte 20 to
//! the end). The digest is MD5's compression function run over that data, but the last block is
//! laid out differently from standard MD5 padding: the bit count `n` (low 32 bits) goes into the
//! *first* word of the final block and `(n >> 2) | 1` into its *last* word, with the remaining
//! bytes and the `0x80` marker in between. When the remaining bytes plus the marker do not fit
//! between those two words (56 or more bytes left), they are flushed in a block of their own
//! (marker, zero padding) and the final block holds only the two words. The digest is the MD5
//! state words stored little-endian, which is how they appear in the header.
//!
//! MD5's compression function is implemented here; it is small and no dependency is needed.

/// Per-round left-rotation amounts.
const SHIFTS: [u32; 64] = [
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, //
    5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, //
    4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, //
    6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
];

/// `floor(abs(sin(i + 1)) * 2^32)`, as MD5 (RFC 1321) defines them.
const K: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
    0xfd469501, //
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e,
    0x49b40821, //
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681,
    0xe7d3fbc8, //
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9,
    0x8d2a4c8a, //
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60,
    0xbebfbc70, //
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8,
    0xc4ac5665, //
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d,
    0x85845dd1, //
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

const INIT: [u32; 4] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];

/// MD5's compression function: folds one 64-byte block into the state.
fn compress(state: &mut [u32; 4], block: &[u8; 64]) {
    let mut m = [0u32; 16];
    for (w, b) in m.iter_mut().zip(block.chunks_exact(4)) {
        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    let [mut a, mut b, mut c, mut d] = *state;
    for i in 0..64 {
        let (f, g) = match i / 16 {
            0 => ((b & c) | (!b & d), i),
            1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
            2 => (b ^ c ^ d, (3 * i + 5) % 16),
            _ => (c ^ (b | !d), (7 * i) % 16),
        };
        let rotated = a
            .wrapping_add(f)
            .wrapping_add(K[i])
            .wrapping_add(m[g])
            .rotate_left(SHIFTS[i]);
        a = d;
        d = c;
        c = b;
        b = b.wrapping_add(rotated);
    }
    state[0] = state[0].wrapping_add(a);
    state[1] = state[1].wrapping_add(b);
    state[2] = state[2].wrapping_add(c);
    state[3] = state[3].wrapping_add(d);
}

fn digest(state: [u32; 4]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (o, w) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// Runs the compression function over all whole 64-byte blocks; returns the state and the
/// leftover tail (< 64 bytes).
fn absorb(data: &[u8]) -> ([u32; 4], &[u8]) {
    let mut state = INIT;
    let mut blocks = data.chunks_exact(64);
    for block in &mut blocks {
        compress(&mut state, block.try_into().expect("64-byte chunk"));
    }
    (state, blocks.remainder())
}

/// The DXBC checksum of `hashed`, the container bytes from offset 20 to the end.
pub fn dxbc_md5(hashed: &[u8]) -> [u8; 16] {
    let (mut state, tail) = absorb(hashed);
    // Only the low 32 bits of the bit count are used, as the format defines it.
    let bits = (hashed.len() as u64).wrapping_mul(8) as u32;
    let mut block = [0u8; 64];
    if tail.len() < 56 {
        block[4..4 + tail.len()].copy_from_slice(tail);
        block[4 + tail.len()] = 0x80;
    } else {
        block[..tail.len()].copy_from_slice(tail);
        block[tail.len()] = 0x80;
        compress(&mut state, &block);
        block = [0u8; 64];
    }
    block[..4].copy_from_slice(&bits.to_le_bytes());
    block[60..].copy_from_slice(&((bits >> 2) | 1).to_le_bytes());
    compress(&mut state, &block);
    digest(state)
}

/// The checksum a container's header should hold. `container` is the whole blob; blobs of
/// 20 bytes or fewer hash nothing.
pub fn container_checksum(container: &[u8]) -> [u8; 16] {
    dxbc_md5(container.get(20..).unwrap_or(&[]))
}

/// Standard MD5 (RFC 1321), used to test the shared compression function.
#[cfg(test)]
fn md5(data: &[u8]) -> [u8; 16] {
    let (mut state, tail) = absorb(data);
    let mut block = [0u8; 64];
    block[..tail.len()].copy_from_slice(tail);
    block[tail.len()] = 0x80;
    if tail.len() >= 56 {
        compress(&mut state, &block);
        block = [0u8; 64];
    }
    block[56..].copy_from_slice(&((data.len() as u64).wrapping_mul(8)).to_le_bytes());
    compress(&mut state, &block);
    digest(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(d: [u8; 16]) -> String {
        d.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn md5_known_answers() {
        // RFC 1321 appendix A.5 test suite.
        assert_eq!(hex(md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hex(md5(b"message digest")),
            "f96b697d7cb7938d525a2f31aaf161d0"
        );
        assert_eq!(
            hex(md5(
                b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"
            )),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
    }

    /// The bundled example was compiled by vkd3d-compiler, which writes the checksum.
    #[test]
    fn example_checksum_matches() {
        for blob in [
            &include_bytes!("../../../shaders/examples/ps_texture.dxbc")[..],
            &include_bytes!("../../../shaders/examples/vs_transform.dxbc")[..],
        ] {
            assert_eq!(container_checksum(blob), blob[4..20]);
        }
    }

    #[test]
    fn every_tail_length_is_handled() {
        // Both final-block layouts (tail < 56 and tail >= 56) and block boundaries.
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7) as u8).collect();
        let mut seen = std::collections::HashSet::new();
        for len in 0..data.len() {
            assert!(
                seen.insert(dxbc_md5(&data[..len])),
                "collision at length {len}"
            );
        }
        assert_eq!(container_checksum(&[0; 10]), dxbc_md5(&[]));
    }
}
