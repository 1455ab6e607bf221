//! Writes a DXBC container: header, chunk table, chunks, checksum.
//!
//! Chunks are written in the order given, each starting on a 4-byte boundary (a chunk's size
//! field is its exact data length; padding, if any, follows it); the header's checksum is computed last over everything after it
//! ([`crate::container::checksum`]).

use crate::container::checksum::container_checksum;

/// Builds a container from `(tag, data)` chunks in order.
pub fn write(chunks: &[([u8; 4], Vec<u8>)]) -> Vec<u8> {
    let header = 32 + 4 * chunks.len();
    let body: usize = chunks
        .iter()
        .map(|(_, d)| 8 + d.len().next_multiple_of(4))
        .sum();
    let mut out = Vec::with_capacity(header + body);
    out.extend_from_slice(b"DXBC");
    out.extend_from_slice(&[0; 16]);
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&((header + body) as u32).to_le_bytes());
    out.extend_from_slice(&(chunks.len() as u32).to_le_bytes());
    let mut offset = header;
    for (_, data) in chunks {
        out.extend_from_slice(&(offset as u32).to_le_bytes());
        offset += 8 + data.len().next_multiple_of(4);
    }
    for (tag, data) in chunks {
        out.extend_from_slice(tag);
        let padded = data.len().next_multiple_of(4);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
        out.resize(out.len() + padded - data.len(), 0);
    }
    let sum = container_checksum(&out);
    out[4..20].copy_from_slice(&sum);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::Container;

    #[test]
    fn writes_a_container_that_parses_and_verifies() {
        let blob = write(&[
            (*b"ISGN", vec![0, 0, 0, 0, 8, 0, 0, 0]),
            (*b"SHEX", vec![1, 2, 3]),
        ]);
        let c = Container::parse(&blob).unwrap();
        assert!(c.verify_checksum());
        assert_eq!(c.version, (1, 0));
        assert_eq!(c.chunks.len(), 2);
        assert_eq!(&c.chunks[1].tag, b"SHEX");
        assert_eq!(c.chunks[1].data, &[1, 2, 3]);
        assert_eq!(blob.len() % 4, 0);
        assert_eq!(c.chunks[0].offset, 32 + 8 + 8);
    }
}
