//! Bounds-checked reads from one chunk's bytes.
//!
//! Every chunk parser reads little-endian fields and NUL-terminated strings at offsets that come
//! from the (untrusted) input. [`ChunkReader`] does each read with a bounds check and turns a
//! failure into a [`ContainerError`] naming the byte offset in the *container* (the chunk's base
//! offset plus the offset inside the chunk) and what was being read, so parsers stay short and
//! cannot index out of range.

use super::{ContainerError, ContainerErrorKind};

/// Reads fields from one chunk's data. Offsets are relative to the chunk data; errors report
/// them relative to the container.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChunkReader<'a> {
    data: &'a [u8],
    base: usize,
    tag: &'static str,
}

impl<'a> ChunkReader<'a> {
    pub(crate) fn new(data: &'a [u8], base: usize, tag: &'static str) -> Self {
        ChunkReader { data, base, tag }
    }

    pub(crate) fn len(&self) -> usize {
        self.data.len()
    }

    /// An error at `offset` inside the chunk.
    pub(crate) fn error(
        &self,
        offset: usize,
        kind: ContainerErrorKind,
        what: impl AsRef<str>,
    ) -> ContainerError {
        ContainerError::with_kind(
            self.base.saturating_add(offset),
            kind,
            format!("{}: {}", self.tag, what.as_ref()),
        )
    }

    pub(crate) fn u32(&self, offset: usize, what: &str) -> Result<u32, ContainerError> {
        offset
            .checked_add(4)
            .and_then(|end| self.data.get(offset..end))
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| self.truncated(offset, 4, what))
    }

    pub(crate) fn u16(&self, offset: usize, what: &str) -> Result<u16, ContainerError> {
        offset
            .checked_add(2)
            .and_then(|end| self.data.get(offset..end))
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .ok_or_else(|| self.truncated(offset, 2, what))
    }

    fn truncated(&self, offset: usize, size: usize, what: &str) -> ContainerError {
        self.error(
            offset,
            ContainerErrorKind::Truncated,
            format!(
                "{what} ({size} bytes at {offset:#x}) is past the end of the {}-byte chunk",
                self.data.len()
            ),
        )
    }

    /// `len` bytes at `offset`, which the field at `field` gave (errors are reported there).
    pub(crate) fn bytes(
        &self,
        field: usize,
        offset: usize,
        len: usize,
        what: &str,
    ) -> Result<&'a [u8], ContainerError> {
        offset
            .checked_add(len)
            .and_then(|end| self.data.get(offset..end))
            .ok_or_else(|| {
                self.error(
                    field,
                    ContainerErrorKind::OutOfBounds,
                    format!(
                        "{what} ({len} bytes at {offset:#x}) is past the end of the {}-byte chunk",
                        self.data.len()
                    ),
                )
            })
    }

    /// Checks that `count` records of `size` bytes starting at `offset` lie inside the chunk,
    /// before anything is allocated for them. Returns the end offset. `field` is where the
    /// offset or count was read; errors are reported there.
    pub(crate) fn table(
        &self,
        field: usize,
        offset: usize,
        count: usize,
        size: usize,
        what: &str,
    ) -> Result<usize, ContainerError> {
        count
            .checked_mul(size)
            .and_then(|n| n.checked_add(offset))
            .filter(|&end| end <= self.data.len())
            .ok_or_else(|| {
                self.error(
                    field,
                    ContainerErrorKind::OutOfBounds,
                    format!(
                        "{count} {what} of {size} bytes at {offset:#x} do not fit in the {}-byte chunk",
                        self.data.len()
                    ),
                )
            })
    }

    /// The NUL-terminated string (without the NUL) at the offset stored in the 32-bit field at
    /// `field`. It must end inside the chunk and be valid UTF-8 (every compiler writes ASCII).
    /// Errors are reported at the field.
    pub(crate) fn str(&self, field: usize, what: &str) -> Result<&'a str, ContainerError> {
        let offset = self.u32(field, what)? as usize;
        self.str_at(field, offset, what)
    }

    /// The NUL-terminated string at `offset`, which the field at `field` gave.
    pub(crate) fn str_at(
        &self,
        field: usize,
        offset: usize,
        what: &str,
    ) -> Result<&'a str, ContainerError> {
        let rest = self
            .data
            .get(offset..)
            .filter(|r| !r.is_empty())
            .ok_or_else(|| {
                self.error(
                    field,
                    ContainerErrorKind::OutOfBounds,
                    format!(
                        "{what} offset {offset:#x} is past the end of the {}-byte chunk",
                        self.data.len()
                    ),
                )
            })?;
        let len = rest.iter().position(|&b| b == 0).ok_or_else(|| {
            self.error(
                field,
                ContainerErrorKind::Truncated,
                format!("{what} at {offset:#x} has no terminating NUL"),
            )
        })?;
        std::str::from_utf8(&rest[..len]).map_err(|_| {
            self.error(
                field,
                ContainerErrorKind::Invalid,
                format!("{what} at {offset:#x} is not UTF-8"),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_bounds() {
        let data = [4, 0, 0, 0, b'a', b'b', 0, 9];
        let r = ChunkReader::new(&data, 0x100, "TEST");
        assert_eq!(r.u32(0, "x").unwrap(), 4);
        assert_eq!(r.u16(4, "x").unwrap(), 0x6261);
        assert_eq!(r.str(0, "name").unwrap(), "ab");
        assert_eq!(r.str_at(0, 5, "name").unwrap(), "b");
        let e = r.u32(5, "field").unwrap_err();
        assert_eq!(e.offset, 0x105);
        assert_eq!(e.kind, ContainerErrorKind::Truncated);
        assert!(e.what.contains("TEST: field"), "{e}");
        // No NUL before the end; past the end; errors name the field, not the target.
        let e = r.str_at(2, 7, "name").unwrap_err();
        assert_eq!((e.kind, e.offset), (ContainerErrorKind::Truncated, 0x102));
        assert_eq!(
            r.str_at(2, 8, "name").unwrap_err().kind,
            ContainerErrorKind::OutOfBounds
        );
        assert_eq!(r.str_at(2, usize::MAX, "name").unwrap_err().offset, 0x102);
        assert!(r.table(0, 0, 2, 4, "things").is_ok());
        assert!(r.table(0, 4, 2, 4, "things").is_err());
        assert_eq!(
            r.table(3, 0, usize::MAX, 4, "things").unwrap_err().offset,
            0x103
        );
        assert!(r.bytes(0, usize::MAX, 2, "b").is_err());
    }
}
