//! Shader stage and model, as the container states them.
//!
//! Two places name the stage and shader model: the first token of the SHDR/SHEX chunk and the
//! `target` field of RDEF. They encode it differently; both decode to [`ShaderVersion`], which
//! `dxbc info` and the disassembly header print (`ps_5_0`) without decoding the program.

use std::fmt;

use super::{Chunk, ContainerError, ContainerErrorKind};

pub use crate::stage::ShaderStage;

impl ShaderStage {
    /// From the program-type field of a SHDR/SHEX version token (bits 16–31).
    pub fn from_program_type(value: u32) -> Option<Self> {
        Some(match value {
            0 => ShaderStage::Pixel,
            1 => ShaderStage::Vertex,
            2 => ShaderStage::Geometry,
            3 => ShaderStage::Hull,
            4 => ShaderStage::Domain,
            5 => ShaderStage::Compute,
            _ => return None,
        })
    }

    /// From the program-type field of an RDEF target (bits 16–31): `0xFFFF` pixel, `0xFFFE`
    /// vertex, and the ASCII pairs `GS`, `HS`, `DS`, `CS` for the others.
    pub fn from_rdef_program_type(value: u32) -> Option<Self> {
        Some(match value {
            0xffff => ShaderStage::Pixel,
            0xfffe => ShaderStage::Vertex,
            0x4753 => ShaderStage::Geometry,
            0x4853 => ShaderStage::Hull,
            0x4453 => ShaderStage::Domain,
            0x4353 => ShaderStage::Compute,
            _ => return None,
        })
    }
}

/// Stage and shader model, e.g. `ps_5_0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct ShaderVersion {
    pub stage: ShaderStage,
    pub major: u8,
    pub minor: u8,
}

impl ShaderVersion {
    /// Decodes a SHDR/SHEX version token: minor in bits 0–3, major in bits 4–7, program type
    /// in bits 16–31.
    pub fn from_token(token: u32) -> Option<Self> {
        Some(ShaderVersion {
            stage: ShaderStage::from_program_type(token >> 16)?,
            major: ((token >> 4) & 0xf) as u8,
            minor: (token & 0xf) as u8,
        })
    }

    /// Decodes an RDEF target: minor in bits 0–7, major in bits 8–15, program type above.
    pub fn from_rdef_target(target: u32) -> Option<Self> {
        Some(ShaderVersion {
            stage: ShaderStage::from_rdef_program_type(target >> 16)?,
            major: ((target >> 8) & 0xff) as u8,
            minor: (target & 0xff) as u8,
        })
    }

    /// Reads the version token at the start of a SHDR/SHEX chunk.
    pub fn from_program_chunk(chunk: &Chunk<'_>) -> Result<Self, ContainerError> {
        let token = chunk
            .data
            .get(..4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| {
                ContainerError::with_kind(
                    chunk.offset,
                    ContainerErrorKind::Truncated,
                    format!("{}: the chunk has no version token", chunk.tag_str()),
                )
            })?;
        ShaderVersion::from_token(token).ok_or_else(|| {
            ContainerError::with_kind(
                chunk.offset,
                ContainerErrorKind::Invalid,
                format!(
                    "{}: unknown program type {:#x} in version token {token:#010x}",
                    chunk.tag_str(),
                    token >> 16
                ),
            )
        })
    }

    /// At least `major.minor`.
    pub fn at_least(self, major: u8, minor: u8) -> bool {
        (self.major, self.minor) >= (major, minor)
    }
}

impl fmt::Display for ShaderVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}_{}", self.stage.prefix(), self.major, self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_both_encodings() {
        let v = ShaderVersion::from_token(0x0000_0050).unwrap();
        assert_eq!(v.to_string(), "ps_5_0");
        assert_eq!(
            ShaderVersion::from_token(0x0001_0040).unwrap().to_string(),
            "vs_4_0"
        );
        assert_eq!(
            ShaderVersion::from_token(0x0005_0051).unwrap().to_string(),
            "cs_5_1"
        );
        assert!(ShaderVersion::from_token(0x0009_0050).is_none());
        assert_eq!(
            ShaderVersion::from_rdef_target(0xffff_0501)
                .unwrap()
                .to_string(),
            "ps_5_1"
        );
        assert_eq!(
            ShaderVersion::from_rdef_target(0xfffe_0400)
                .unwrap()
                .to_string(),
            "vs_4_0"
        );
        assert_eq!(
            ShaderVersion::from_rdef_target(0x4853_0500)
                .unwrap()
                .to_string(),
            "hs_5_0"
        );
        assert!(ShaderVersion::from_rdef_target(0x1234_0500).is_none());
        assert!(v.at_least(5, 0) && !v.at_least(5, 1));
    }
}
