//! What one side of a differential run produced: every output of the shader, read back from
//! the device, named the same way for both translators (by signature semantic, built-in or
//! register) so that the two can be matched and compared. Sent from a worker process to the
//! parent as JSON.

use super::shader::ScalarKind;
use serde::{Deserialize, Serialize};

/// What wrote an output, for the tolerance analysis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A DXBC output register (`o#`).
    Register(u32),
    /// The depth output (`oDepth`).
    Depth,
    /// A UAV (`u#`, space).
    Uav { register: u32, space: u32 },
    /// Something the analysis cannot attribute to one register (D3D9 outputs, built-ins
    /// without a signature element): every output-writing instruction counts.
    Any,
}

/// What one element of an output is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Pixels of a render target `width` wide.
    Pixel {
        width: u32,
    },
    Vertex,
    /// Buffer elements.
    Element,
    /// Texels of an image (layers and depth slices one after another).
    Texel {
        width: u32,
        height: u32,
    },
}

/// One output: `comps` values per element, `data` element after element.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Output {
    pub name: String,
    pub source: Source,
    pub unit: Unit,
    pub comps: u32,
    /// The scalar type of each component.
    pub kinds: Vec<ScalarKind>,
    /// Components that count (bit i = component i); the others D3D leaves undefined.
    pub mask: u32,
    pub data: Vec<u32>,
    /// Elements written in no defined order (through a UAV counter): compared as multisets
    /// of records of this many words.
    #[serde(default)]
    pub unordered: Option<u32>,
}

impl Output {
    pub fn elements(&self) -> usize {
        self.data.len() / self.comps.max(1) as usize
    }

    /// "pixel (3, 5)", "vertex 7", "element 12", "texel (1, 2) slice 0".
    pub fn location(&self, element: usize) -> String {
        let e = element as u32;
        match self.unit {
            Unit::Pixel { width } => format!("pixel ({}, {})", e % width, e / width),
            Unit::Vertex => format!("vertex {e}"),
            Unit::Element => format!("element {e}"),
            Unit::Texel { width, height } => {
                let per = width * height;
                format!(
                    "texel ({}, {}) slice {}",
                    e % per % width,
                    e % per / width,
                    e / per
                )
            }
        }
    }
}

impl Output {
    /// The output with its float components clamped to [0, 1] (NaN kept).
    pub fn saturated(&self) -> Output {
        let mut o = self.clone();
        let comps = o.comps.max(1) as usize;
        for (i, v) in o.data.iter_mut().enumerate() {
            if o.kinds.get(i % comps) == Some(&ScalarKind::F32) {
                let f = f32::from_bits(*v);
                if !f.is_nan() {
                    *v = f.clamp(0.0, 1.0).to_bits();
                }
            }
        }
        o
    }
}

/// One side's result for one shader.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum SideResult {
    Ran {
        outputs: Vec<Output>,
        /// The inputs as made (one line each), for reports.
        inputs: Vec<String>,
    },
    /// The side could not run the shader: translation failed, the device lacks something,
    /// the pipeline could not be built. `unsupported` when it is a limit of this tool or the
    /// device rather than a failure of the translator.
    NotRun { reason: String, unsupported: bool },
}
