//! The DXBC container: header, chunk table and the chunks a translator reads.
//!
//! A DXBC blob starts with a 32-byte header (`DXBC`, a 16-byte checksum, a version, the total
//! size and the chunk count), then a table of chunk offsets; each chunk is a four-character tag,
//! a size and its data. Everything here borrows from the input and checks every size and
//! offset against it before reading, so malformed input yields a [`ContainerError`] naming the
//! byte offset, never a panic or an allocation sized by an untrusted field.
//!
//! [`Container`] is the header and chunk table; one module per chunk kind parses its contents
//! ([`signature`], [`rdef`], [`stat`], [`sfi0`], [`ifce`]); [`ParsedContainer`] is the typed view
//! of all of them, and [`header`] prints it as fxc's disassembly comment header. `docs/formats.md`
//! describes the layouts.

pub mod checksum;
mod enums;
pub mod header;
pub mod ifce;
mod parsed;
pub mod rdef;
mod reader;
pub mod sfi0;
pub mod signature;
pub mod stat;
mod version;

pub use ifce::Interfaces;
pub use parsed::{ParsedContainer, chunk_description};
pub use rdef::ResourceDefinitions;
pub use sfi0::FeatureFlags;
pub use signature::{Signature, SignatureElement, SignatureKind};
pub use stat::Statistics;
pub use version::{ShaderStage, ShaderVersion};

/// What kind of problem a [`ContainerError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ContainerErrorKind {
    /// The data ends before a structure that must be there.
    Truncated,
    /// An offset, size or count points outside the data it indexes.
    OutOfBounds,
    /// A field holds a value the format does not allow.
    Invalid,
    /// Nesting or total size beyond what the parser accepts (hostile-looking input).
    TooComplex,
}

/// A malformed container.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte offset {offset:#x}: {what}")]
pub struct ContainerError {
    /// Byte offset in the container where the problem was found.
    pub offset: usize,
    pub kind: ContainerErrorKind,
    pub what: String,
}

impl ContainerError {
    /// An [`ContainerErrorKind::Invalid`] error.
    pub fn new(offset: usize, what: impl Into<String>) -> Self {
        ContainerError {
            offset,
            kind: ContainerErrorKind::Invalid,
            what: what.into(),
        }
    }

    pub fn with_kind(offset: usize, kind: ContainerErrorKind, what: impl Into<String>) -> Self {
        ContainerError {
            offset,
            kind,
            what: what.into(),
        }
    }
}

/// One chunk of a container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// Four-character tag, e.g. `*b"SHEX"`.
    pub tag: [u8; 4],
    /// Byte offset of the chunk's data (after its 8-byte header) in the container.
    pub offset: usize,
    /// The chunk's data.
    pub data: &'a [u8],
}

impl Chunk<'_> {
    /// The tag as text (lossy for non-ASCII tags).
    pub fn tag_str(&self) -> String {
        self.tag
            .iter()
            .map(|&b| if b.is_ascii_graphic() { b as char } else { '?' })
            .collect()
    }
}

/// A parsed container: its header fields and chunk table.
#[derive(Debug, Clone)]
pub struct Container<'a> {
    /// The whole blob.
    pub data: &'a [u8],
    /// The checksum stored in the header.
    pub checksum: [u8; 16],
    /// Container format version (major, minor); 1.0 in every known blob.
    pub version: (u16, u16),
    /// Chunks in table order.
    pub chunks: Vec<Chunk<'a>>,
}

const HEADER_SIZE: usize = 32;

fn read_u32(data: &[u8], offset: usize) -> Option<u32> {
    let bytes = data.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_le_bytes(bytes.try_into().ok()?))
}

impl<'a> Container<'a> {
    /// Parses the header and chunk table. Chunk contents are not looked at.
    pub fn parse(data: &'a [u8]) -> Result<Self, ContainerError> {
        if data.len() < HEADER_SIZE {
            return Err(ContainerError::with_kind(
                data.len(),
                ContainerErrorKind::Truncated,
                format!(
                    "truncated header: {} bytes, a DXBC header needs {HEADER_SIZE}",
                    data.len()
                ),
            ));
        }
        if &data[0..4] != b"DXBC" {
            return Err(ContainerError::new(
                0,
                "not a DXBC container (magic is not \"DXBC\")",
            ));
        }
        let checksum: [u8; 16] = data[4..20].try_into().expect("16 bytes");
        let version = read_u32(data, 20).expect("header checked");
        let total_size = read_u32(data, 24).expect("header checked") as usize;
        let chunk_count = read_u32(data, 28).expect("header checked") as usize;
        if total_size != data.len() {
            return Err(ContainerError::new(
                24,
                format!(
                    "header says the container is {total_size} bytes, but it is {} bytes",
                    data.len()
                ),
            ));
        }
        // Each chunk needs a 4-byte table entry and an 8-byte chunk header, so the count is
        // bounded by the input size before anything is allocated for it.
        let table_end = chunk_count
            .checked_mul(4)
            .and_then(|n| n.checked_add(HEADER_SIZE))
            .filter(|&end| end <= data.len())
            .ok_or_else(|| {
                ContainerError::with_kind(
                    28,
                    ContainerErrorKind::OutOfBounds,
                    format!("chunk count {chunk_count} does not fit in the container"),
                )
            })?;
        let mut chunks = Vec::with_capacity(chunk_count);
        for entry in (HEADER_SIZE..table_end).step_by(4) {
            let start = read_u32(data, entry).expect("table checked") as usize;
            let header_end = start
                .checked_add(8)
                .filter(|&e| e <= data.len())
                .ok_or_else(|| {
                    ContainerError::with_kind(
                        entry,
                        ContainerErrorKind::OutOfBounds,
                        format!("chunk offset {start:#x} is past the end of the container"),
                    )
                })?;
            if start < table_end {
                return Err(ContainerError::new(
                    entry,
                    format!("chunk offset {start:#x} points into the header or chunk table"),
                ));
            }
            let tag: [u8; 4] = data[start..start + 4].try_into().expect("4 bytes");
            let size = read_u32(data, start + 4).expect("checked") as usize;
            let end = header_end
                .checked_add(size)
                .filter(|&e| e <= data.len())
                .ok_or_else(|| {
                    ContainerError::with_kind(
                        start + 4,
                        ContainerErrorKind::OutOfBounds,
                        format!(
                            "chunk {} claims {size} bytes, but only {} remain",
                            Chunk {
                                tag,
                                offset: header_end,
                                data: &[]
                            }
                            .tag_str(),
                            data.len() - header_end
                        ),
                    )
                })?;
            chunks.push(Chunk {
                tag,
                offset: header_end,
                data: &data[header_end..end],
            });
        }
        Ok(Container {
            data,
            checksum,
            version: ((version & 0xffff) as u16, (version >> 16) as u16),
            chunks,
        })
    }

    /// The first chunk with this tag.
    pub fn chunk(&self, tag: &[u8; 4]) -> Option<&Chunk<'a>> {
        self.chunks.iter().find(|c| &c.tag == tag)
    }

    /// The first chunk with any of these tags, in the order given.
    pub fn chunk_any(&self, tags: &[&[u8; 4]]) -> Option<&Chunk<'a>> {
        tags.iter().find_map(|t| self.chunk(t))
    }

    /// The shader program chunk (`SHEX` for SM5, `SHDR` for SM4).
    pub fn shader_chunk(&self) -> Option<&Chunk<'a>> {
        self.chunk_any(&[b"SHEX", b"SHDR"])
    }

    /// The checksum the header should hold, computed over the blob.
    pub fn computed_checksum(&self) -> [u8; 16] {
        checksum::container_checksum(self.data)
    }

    /// Whether the stored checksum matches the blob.
    pub fn verify_checksum(&self) -> bool {
        self.computed_checksum() == self.checksum
    }

    /// Stage and shader model from the program chunk's version token.
    pub fn shader_version(&self) -> Result<ShaderVersion, ContainerError> {
        let chunk = self.shader_chunk().ok_or_else(|| {
            ContainerError::with_kind(
                0,
                ContainerErrorKind::Invalid,
                "the container has no SHDR or SHEX chunk",
            )
        })?;
        ShaderVersion::from_program_chunk(chunk)
    }
}

/// Formats a checksum as fxc and vkd3d print it: four 32-bit words in hex.
pub fn format_checksum(sum: &[u8; 16]) -> String {
    let w = |i: usize| u32::from_le_bytes([sum[i], sum[i + 1], sum[i + 2], sum[i + 3]]);
    format!("{:08x}-{:08x}-{:08x}-{:08x}", w(0), w(4), w(8), w(12))
}
