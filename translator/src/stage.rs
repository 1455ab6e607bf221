//! The pipeline stage of a shader: one enum for the container, the decoder's consumers, the IR,
//! the reflection and the tools (`container::ShaderStage` and `reflect::ShaderStage` are this
//! type). A leaf module, so that every front end (DXBC today, D3D9 next) names stages alike.

use serde::{Deserialize, Serialize};

/// A pipeline stage, in pipeline order (the order `Ord` sorts them in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShaderStage {
    Vertex,
    Hull,
    Domain,
    Geometry,
    Pixel,
    Compute,
}

impl ShaderStage {
    /// The two-letter prefix of D3D profiles: `vs`, `ps`, `gs`, `hs`, `ds`, `cs`.
    pub fn prefix(self) -> &'static str {
        match self {
            ShaderStage::Vertex => "vs",
            ShaderStage::Pixel => "ps",
            ShaderStage::Geometry => "gs",
            ShaderStage::Hull => "hs",
            ShaderStage::Domain => "ds",
            ShaderStage::Compute => "cs",
        }
    }

    /// The stage's name in lower case (`vertex`, `pixel`, ...), as serde writes it.
    pub fn name(self) -> &'static str {
        match self {
            ShaderStage::Vertex => "vertex",
            ShaderStage::Hull => "hull",
            ShaderStage::Domain => "domain",
            ShaderStage::Geometry => "geometry",
            ShaderStage::Pixel => "pixel",
            ShaderStage::Compute => "compute",
        }
    }
}
