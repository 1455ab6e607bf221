//! Input, output and patch-constant signatures (ISGN/ISG1, OSGN/OSG1/OSG5, PCSG/PSG1).
//!
//! A signature lists the values a stage exchanges with its neighbours: semantic name and
//! index, system value, component type, register and component masks. The translator needs
//! it to type and decorate I/O variables; the disassembler prints it. The chunk is a count, the
//! offset of the element table (8 in practice), then fixed-size elements whose names are
//! offsets into the chunk. Three element layouts exist: 24 bytes (ISGN/OSGN/PCSG), 28 bytes with
//! a leading stream index (OSG5), and 32 bytes with a stream index and a trailing minimum
//! precision (ISG1/OSG1/PSG1).

use super::enums::raw_enum;
use super::reader::ChunkReader;
use super::{Chunk, ContainerError, ContainerErrorKind};

raw_enum! {
    /// `D3D_NAME`: the system value an element carries.
    pub enum SystemValue {
        Undefined = 0 => "NONE",
        Position = 1 => "POS",
        ClipDistance = 2 => "CLIPDST",
        CullDistance = 3 => "CULLDST",
        RenderTargetArrayIndex = 4 => "RTINDEX",
        ViewportArrayIndex = 5 => "VPINDEX",
        VertexId = 6 => "VERTID",
        PrimitiveId = 7 => "PRIMID",
        InstanceId = 8 => "INSTID",
        IsFrontFace = 9 => "FFACE",
        SampleIndex = 10 => "SAMPLE",
        FinalQuadEdgeTessFactor = 11 => "QUADEDGE",
        FinalQuadInsideTessFactor = 12 => "QUADINT",
        FinalTriEdgeTessFactor = 13 => "TRIEDGE",
        FinalTriInsideTessFactor = 14 => "TRIINT",
        FinalLineDetailTessFactor = 15 => "LINEDET",
        FinalLineDensityTessFactor = 16 => "LINEDEN",
        Barycentrics = 23 => "BARYCEN",
        ShadingRate = 24 => "SHDINGRATE",
        CullPrimitive = 25 => "CULLPRIM",
        Target = 64 => "TARGET",
        Depth = 65 => "DEPTH",
        Coverage = 66 => "COVERAGE",
        DepthGreaterEqual = 67 => "DEPTHGE",
        DepthLessEqual = 68 => "DEPTHLE",
        StencilRef = 69 => "STENCILREF",
        InnerCoverage = 70 => "INNERCOV",
    }
}

raw_enum! {
    /// `D3D_REGISTER_COMPONENT_TYPE`: the type of an element's components.
    pub enum ComponentType {
        Unknown = 0 => "unknown",
        UInt32 = 1 => "uint",
        SInt32 = 2 => "int",
        Float32 = 3 => "float",
    }
}

raw_enum! {
    /// `D3D_MIN_PRECISION`: the minimum precision an element may be computed at (ISG1/OSG1/PSG1).
    pub enum MinPrecision {
        Default = 0 => "default",
        Float16 = 1 => "min16f",
        Float2_8 = 2 => "min2_8f",
        Reserved = 3 => "reserved",
        SInt16 = 4 => "min16i",
        UInt16 = 5 => "min16u",
        Any16 = 0xf0 => "any16",
        Any10 = 0xf1 => "any10",
    }
}

/// Which of a stage's signatures a chunk holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SignatureKind {
    Input,
    Output,
    PatchConstant,
}

/// How a signature chunk lays out its elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    kind: SignatureKind,
    tag: &'static str,
    element_size: usize,
    has_stream: bool,
    has_min_precision: bool,
}

fn layout(tag: &[u8; 4]) -> Option<Layout> {
    let (kind, tag_str, element_size, has_stream, has_min_precision) = match tag {
        b"ISGN" => (SignatureKind::Input, "ISGN", 24, false, false),
        b"OSGN" => (SignatureKind::Output, "OSGN", 24, false, false),
        b"PCSG" => (SignatureKind::PatchConstant, "PCSG", 24, false, false),
        b"OSG5" => (SignatureKind::Output, "OSG5", 28, true, false),
        b"ISG1" => (SignatureKind::Input, "ISG1", 32, true, true),
        b"OSG1" => (SignatureKind::Output, "OSG1", 32, true, true),
        b"PSG1" => (SignatureKind::PatchConstant, "PSG1", 32, true, true),
        _ => return None,
    };
    Some(Layout {
        kind,
        tag: tag_str,
        element_size,
        has_stream,
        has_min_precision,
    })
}

/// The kind of signature a chunk tag holds, if it is a signature chunk.
pub fn signature_kind(tag: &[u8; 4]) -> Option<SignatureKind> {
    layout(tag).map(|l| l.kind)
}

/// One signature element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SignatureElement<'a> {
    /// Geometry-shader output stream (OSG5/OSG1; 0 elsewhere).
    pub stream: u32,
    pub semantic_name: &'a str,
    pub semantic_index: u32,
    /// The system value as stored. SM4/5 compilers store `Undefined` for pixel-shader outputs
    /// such as `SV_Target`; [`SignatureElement::system_value_by_name`] resolves those.
    pub system_value: SystemValue,
    pub component_type: ComponentType,
    /// Register index; `0xFFFFFFFF` for values with no register (e.g. `SV_PrimitiveID` in a
    /// geometry shader).
    pub register: u32,
    /// Components the element occupies (bit 0 = x).
    pub mask: u8,
    /// For inputs, the components the shader reads; for outputs, the components it *never*
    /// writes.
    pub rw_mask: u8,
    /// Minimum precision (ISG1/OSG1/PSG1; `Default` elsewhere).
    pub min_precision: MinPrecision,
}

impl SignatureElement<'_> {
    /// Whether the element has no register (`register == 0xFFFFFFFF`).
    pub fn has_no_register(&self) -> bool {
        self.register == u32::MAX
    }

    /// The system value, with the pixel-shader outputs that SM4/5 store as `Undefined`
    /// (`SV_Target`, `SV_Depth`, `SV_Coverage`, ...) resolved from the semantic name, as fxc's
    /// reflection does.
    pub fn system_value_by_name(&self) -> SystemValue {
        if self.system_value != SystemValue::Undefined {
            return self.system_value;
        }
        let name = self.semantic_name;
        for (sv_name, value) in [
            ("sv_target", SystemValue::Target),
            ("sv_depth", SystemValue::Depth),
            ("sv_coverage", SystemValue::Coverage),
            ("sv_depthgreaterequal", SystemValue::DepthGreaterEqual),
            ("sv_depthlessequal", SystemValue::DepthLessEqual),
            ("sv_stencilref", SystemValue::StencilRef),
            ("sv_innercoverage", SystemValue::InnerCoverage),
        ] {
            if name.eq_ignore_ascii_case(sv_name) {
                return value;
            }
        }
        SystemValue::Undefined
    }
}

/// A parsed signature chunk.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Signature<'a> {
    /// The chunk's tag as text (`ISGN`, `OSG5`, ...).
    pub tag: &'static str,
    pub kind: SignatureKind,
    pub elements: Vec<SignatureElement<'a>>,
}

impl<'a> Signature<'a> {
    /// Parses a signature chunk (any of the seven signature tags).
    pub fn parse(chunk: &Chunk<'a>) -> Result<Self, ContainerError> {
        let layout = layout(&chunk.tag).ok_or_else(|| {
            ContainerError::with_kind(
                chunk.offset,
                ContainerErrorKind::Invalid,
                format!("{} is not a signature chunk", chunk.tag_str()),
            )
        })?;
        let r = ChunkReader::new(chunk.data, chunk.offset, layout.tag);
        let count = r.u32(0, "element count")? as usize;
        let table = r.u32(4, "element table offset")? as usize;
        if table < 8 {
            return Err(r.error(
                4,
                ContainerErrorKind::Invalid,
                format!("element table offset {table:#x} overlaps the 8-byte header"),
            ));
        }
        r.table(0, table, count, layout.element_size, "signature elements")?;
        let mut elements = Vec::with_capacity(count);
        for i in 0..count {
            let mut at = table + i * layout.element_size;
            let stream = if layout.has_stream {
                at += 4;
                r.u32(at - 4, "stream index")?
            } else {
                0
            };
            // The element's index goes into the message only when there is an error (no
            // allocation on the common path).
            let semantic_name = r.str(at, "semantic name").map_err(|e| ContainerError {
                what: format!("{} (element {i})", e.what),
                ..e
            })?;
            let masks = r.u32(at + 20, "masks")?;
            elements.push(SignatureElement {
                stream,
                semantic_name,
                semantic_index: r.u32(at + 4, "semantic index")?,
                system_value: SystemValue::from_raw(r.u32(at + 8, "system value")?),
                component_type: ComponentType::from_raw(r.u32(at + 12, "component type")?),
                register: r.u32(at + 16, "register")?,
                mask: masks as u8,
                rw_mask: (masks >> 8) as u8,
                min_precision: if layout.has_min_precision {
                    MinPrecision::from_raw(r.u32(at + 24, "minimum precision")?)
                } else {
                    MinPrecision::Default
                },
            });
        }
        Ok(Signature {
            tag: layout.tag,
            kind: layout.kind,
            elements,
        })
    }

    /// Whether the chunk format carries stream indices (OSG5/OSG1 and the `1` variants).
    pub fn has_streams(&self) -> bool {
        matches!(self.tag, "OSG5" | "ISG1" | "OSG1" | "PSG1")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(v: &mut Vec<u8>, words: &[u32]) {
        for w in words {
            v.extend_from_slice(&w.to_le_bytes());
        }
    }

    fn chunk<'a>(tag: &[u8; 4], data: &'a [u8]) -> Chunk<'a> {
        Chunk {
            tag: *tag,
            offset: 0x40,
            data,
        }
    }

    #[test]
    fn parses_each_layout() {
        // ISGN: one element, name at 32.
        let mut d = Vec::new();
        put(&mut d, &[1, 8, 32, 2, 1, 3, 5, 0x0307]);
        d.extend_from_slice(b"TEXCOORD\0");
        let s = Signature::parse(&chunk(b"ISGN", &d)).unwrap();
        assert_eq!(s.kind, SignatureKind::Input);
        let e = s.elements[0];
        assert_eq!(
            (
                e.semantic_name,
                e.semantic_index,
                e.system_value,
                e.component_type,
                e.register
            ),
            (
                "TEXCOORD",
                2,
                SystemValue::Position,
                ComponentType::Float32,
                5
            )
        );
        assert_eq!((e.mask, e.rw_mask, e.stream), (0x7, 0x3, 0));

        // OSG5: stream first.
        let mut d = Vec::new();
        put(&mut d, &[1, 8, 3, 36, 0, 0, 3, 1, 0x0e01]);
        d.extend_from_slice(b"SV_Target\0");
        let s = Signature::parse(&chunk(b"OSG5", &d)).unwrap();
        let e = s.elements[0];
        assert_eq!(
            (e.stream, e.semantic_name, e.register, e.mask, e.rw_mask),
            (3, "SV_Target", 1, 1, 0xe)
        );
        assert_eq!(e.system_value_by_name(), SystemValue::Target);

        // PSG1: stream and min precision.
        let mut d = Vec::new();
        put(&mut d, &[1, 8, 0, 40, 0, 11, 3, 0, 0x0101, 1]);
        d.extend_from_slice(b"SV_TessFactor\0");
        let s = Signature::parse(&chunk(b"PSG1", &d)).unwrap();
        assert_eq!(s.kind, SignatureKind::PatchConstant);
        assert_eq!(
            s.elements[0].system_value,
            SystemValue::FinalQuadEdgeTessFactor
        );
        assert_eq!(s.elements[0].min_precision, MinPrecision::Float16);
    }

    #[test]
    fn rejects_bad_counts_and_names() {
        let mut d = Vec::new();
        put(&mut d, &[0x4000_0000, 8]);
        let e = Signature::parse(&chunk(b"ISGN", &d)).unwrap_err();
        assert_eq!((e.offset, e.kind), (0x40, ContainerErrorKind::OutOfBounds));

        let mut d = Vec::new();
        put(&mut d, &[1, 8, 0x1000, 0, 0, 0, 0, 0]);
        let e = Signature::parse(&chunk(b"ISGN", &d)).unwrap_err();
        // Reported at the name-offset field of element 0.
        assert_eq!(e.offset, 0x48);
        assert!(e.what.contains("semantic name offset 0x1000"), "{e}");
        assert!(e.what.contains("element 0"), "{e}");

        let mut d = Vec::new();
        put(&mut d, &[0, 4]);
        assert_eq!(
            Signature::parse(&chunk(b"ISGN", &d)).unwrap_err().offset,
            0x44
        );
        assert!(Signature::parse(&chunk(b"ISGN", &[1, 0, 0])).is_err());
        assert!(Signature::parse(&chunk(b"RDEF", &d)).is_err());
        // An empty signature is fine.
        put(&mut d, &[]);
        let mut empty = Vec::new();
        put(&mut empty, &[0, 8]);
        assert!(
            Signature::parse(&chunk(b"OSGN", &empty))
                .unwrap()
                .elements
                .is_empty()
        );
    }
}
