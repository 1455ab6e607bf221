//! The typed view of a whole container: every chunk we know, parsed.
//!
//! `dxbc info`, the disassembly header and tests want all chunks at once; the translator may
//! instead parse just the chunks it needs with each module's `parse`. [`ParsedContainer::parse`]
//! checks the header and chunk table, then parses each known chunk (the first of each kind;
//! later duplicates and unknown tags are only listed), stopping at the first malformed one.
//! The checksum is not checked here (it costs a pass over the blob): callers that care call
//! [`ParsedContainer::checksum_matches`] and decide what a mismatch means.

use super::{
    Chunk, Container, ContainerError, FeatureFlags, Interfaces, ResourceDefinitions, ShaderVersion,
    Signature, SignatureKind, Statistics, signature,
};

/// What a chunk tag holds, for listings; `None` for tags this crate does not know.
pub fn chunk_description(tag: &[u8; 4]) -> Option<&'static str> {
    Some(match tag {
        b"SHDR" => "SM4 program",
        b"SHEX" => "SM5 program",
        b"ISGN" | b"ISG1" => "input signature",
        b"OSGN" | b"OSG1" | b"OSG5" => "output signature",
        b"PCSG" | b"PSG1" => "patch constant signature",
        b"RDEF" => "resource definitions",
        b"STAT" => "statistics",
        b"SFI0" => "feature flags",
        b"IFCE" => "interfaces",
        b"Aon9" => "feature level 9 program (not parsed)",
        b"XNAS" | b"XNAP" => "Xbox/level 9 program (not parsed)",
        b"SDBG" => "debug information (not parsed)",
        b"SPDB" => "PDB debug information (not parsed)",
        b"PRIV" => "private data (not parsed)",
        b"RTS0" => "root signature (not parsed)",
        b"ILDB" | b"ILDN" => "debug name (not parsed)",
        b"HASH" => "shader hash (not parsed)",
        b"DXIL" => "SM6 program (not parsed)",
        _ => return None,
    })
}

/// A container with every known chunk parsed.
#[derive(Debug, Clone)]
pub struct ParsedContainer<'a> {
    pub container: Container<'a>,
    /// The program chunk (SHEX or SHDR), if any.
    pub program: Option<Chunk<'a>>,
    /// Stage and model from the program chunk's version token.
    pub version: Option<ShaderVersion>,
    pub input_signature: Option<Signature<'a>>,
    pub output_signature: Option<Signature<'a>>,
    pub patch_constant_signature: Option<Signature<'a>>,
    pub resources: Option<ResourceDefinitions<'a>>,
    pub statistics: Option<Statistics>,
    pub features: Option<FeatureFlags>,
    pub interfaces: Option<Interfaces<'a>>,
}

impl<'a> ParsedContainer<'a> {
    /// Parses the container and every known chunk.
    pub fn parse(data: &'a [u8]) -> Result<Self, ContainerError> {
        let container = Container::parse(data)?;
        let mut parsed = ParsedContainer {
            program: None,
            version: None,
            input_signature: None,
            output_signature: None,
            patch_constant_signature: None,
            resources: None,
            statistics: None,
            features: None,
            interfaces: None,
            container,
        };
        for index in 0..parsed.container.chunks.len() {
            let chunk: &Chunk<'a> = &{ parsed.container.chunks[index] };
            match &chunk.tag {
                b"SHDR" | b"SHEX" if parsed.program.is_none() => {
                    parsed.version = Some(ShaderVersion::from_program_chunk(chunk)?);
                    parsed.program = Some(*chunk);
                }
                b"RDEF" if parsed.resources.is_none() => {
                    parsed.resources = Some(ResourceDefinitions::parse(chunk)?);
                }
                b"STAT" if parsed.statistics.is_none() => {
                    parsed.statistics = Some(Statistics::parse(chunk)?)
                }
                b"SFI0" if parsed.features.is_none() => {
                    parsed.features = Some(FeatureFlags::parse(chunk)?)
                }
                b"IFCE" if parsed.interfaces.is_none() => {
                    parsed.interfaces = Some(Interfaces::parse(chunk)?)
                }
                tag => {
                    let slot = match signature::signature_kind(tag) {
                        Some(SignatureKind::Input) => &mut parsed.input_signature,
                        Some(SignatureKind::Output) => &mut parsed.output_signature,
                        Some(SignatureKind::PatchConstant) => &mut parsed.patch_constant_signature,
                        None => continue,
                    };
                    if slot.is_none() {
                        *slot = Some(Signature::parse(chunk)?);
                    }
                }
            }
        }
        Ok(parsed)
    }

    /// The checksum computed over the blob (compare with `container.checksum`).
    pub fn computed_checksum(&self) -> [u8; 16] {
        self.container.computed_checksum()
    }

    /// Whether the stored checksum matches the blob.
    pub fn checksum_matches(&self) -> bool {
        self.container.verify_checksum()
    }

    /// The signature of a kind, if the container has one.
    pub fn signature(&self, kind: SignatureKind) -> Option<&Signature<'a>> {
        match kind {
            SignatureKind::Input => self.input_signature.as_ref(),
            SignatureKind::Output => self.output_signature.as_ref(),
            SignatureKind::PatchConstant => self.patch_constant_signature.as_ref(),
        }
    }

    /// Chunks that are not parsed: unknown tags and repeats of a kind already parsed.
    pub fn unparsed_chunks(&self) -> impl Iterator<Item = &Chunk<'a>> {
        let mut seen: Vec<&'static str> = Vec::new();
        self.container.chunks.iter().filter(move |c| {
            let kind: Option<&'static str> = match &c.tag {
                b"SHDR" | b"SHEX" => Some("program"),
                b"RDEF" => Some("rdef"),
                b"STAT" => Some("stat"),
                b"SFI0" => Some("sfi0"),
                b"IFCE" => Some("ifce"),
                tag => signature::signature_kind(tag).map(|k| match k {
                    SignatureKind::Input => "in",
                    SignatureKind::Output => "out",
                    SignatureKind::PatchConstant => "pc",
                }),
            };
            match kind {
                Some(k) if !seen.contains(&k) => {
                    seen.push(k);
                    false
                }
                _ => true,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::checksum::container_checksum;

    /// Builds a container from (tag, data) pairs, with a valid checksum.
    fn build(chunks: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
        let mut out = vec![0u8; 32 + 4 * chunks.len()];
        out[..4].copy_from_slice(b"DXBC");
        out[20..24].copy_from_slice(&1u32.to_le_bytes());
        out[28..32].copy_from_slice(&(chunks.len() as u32).to_le_bytes());
        for (i, (tag, data)) in chunks.iter().enumerate() {
            let at = out.len() as u32;
            out[32 + 4 * i..36 + 4 * i].copy_from_slice(&at.to_le_bytes());
            out.extend_from_slice(*tag);
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(data);
        }
        let len = out.len() as u32;
        out[24..28].copy_from_slice(&len.to_le_bytes());
        let sum = container_checksum(&out);
        out[4..20].copy_from_slice(&sum);
        out
    }

    fn empty_signature() -> Vec<u8> {
        [0u32, 8].iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn parses_known_lists_unknown_and_repeats() {
        let shdr: Vec<u8> = [0x0000_0040u32, 2]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let blob = build(&[
            (b"ISGN", empty_signature()),
            (b"ABCD", vec![1, 2, 3]),
            (b"SHDR", shdr),
            (b"ISG1", empty_signature()),
            (b"OSGN", empty_signature()),
        ]);
        let p = ParsedContainer::parse(&blob).unwrap();
        assert!(p.checksum_matches());
        assert_eq!(p.version.unwrap().to_string(), "ps_4_0");
        assert_eq!(p.input_signature.as_ref().unwrap().tag, "ISGN");
        assert!(p.output_signature.is_some() && p.patch_constant_signature.is_none());
        assert!(p.resources.is_none() && p.statistics.is_none());
        let unparsed: Vec<String> = p.unparsed_chunks().map(|c| c.tag_str()).collect();
        assert_eq!(unparsed, ["ABCD", "ISG1"]);
        assert_eq!(chunk_description(b"ABCD"), None);
    }

    #[test]
    fn a_bad_chunk_is_an_error_at_its_offset() {
        let blob = build(&[(b"OSGN", vec![5, 0, 0, 0, 8, 0, 0, 0])]);
        let e = ParsedContainer::parse(&blob).unwrap_err();
        // The element count field is the first data byte of the only chunk: 32 + 4 + 8.
        assert_eq!(e.offset, 44);
        assert!(e.what.starts_with("OSGN:"), "{e}");
    }
}
