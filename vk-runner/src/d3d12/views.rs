//! View descriptions: the SRV, UAV and sampler descriptions a descriptor gets from the test
//! resource bound to it and the shader's declaration of its register (the view dimension is
//! the declaration's, as D3D12 requires; buffer views take the test's format and stride),
//! and the null views of registers the test leaves empty.

use super::ffi::types::*;
use super::resource::TestResource;
use super::scan::Kind;
use crate::parse::{AddressMode, Reduction, SamplerDecl};
use translator::sm4::ResourceDimension as Dim;

fn tex_words(w: &[u32]) -> [u32; 6] {
    let mut out = [0u32; 6];
    out[..w.len()].copy_from_slice(w);
    out
}

const ALL_MIPS: u32 = u32::MAX;

/// An SRV of `r` (or a null one: `None`) as a declaration of `kind` reads it.
pub fn srv_desc(r: Option<&TestResource>, kind: Kind) -> Result<ShaderResourceViewDesc, String> {
    let format = r.map_or(FORMAT_R32_FLOAT, |r| view_format(r.format));
    let buffer_elements =
        |stride: u32| r.map_or(0, |r| (r.res.desc.width / u64::from(stride.max(1))) as u32);
    let layers = r.map_or(1, |r| u32::from(r.res.desc.depth_or_array_size));
    let (format, dim, u) = match kind {
        Kind::Raw => (
            FORMAT_R32_TYPELESS,
            SRV_DIMENSION_BUFFER,
            SrvUnion {
                buffer: BufferSrv {
                    first_element: 0,
                    num_elements: buffer_elements(4),
                    structure_byte_stride: 0,
                    flags: BUFFER_FLAG_RAW,
                },
            },
        ),
        Kind::Structured(shader_stride) => {
            let stride = r.and_then(|r| r.decl.stride).unwrap_or(shader_stride);
            (
                FORMAT_UNKNOWN,
                SRV_DIMENSION_BUFFER,
                SrvUnion {
                    buffer: BufferSrv {
                        first_element: 0,
                        num_elements: buffer_elements(stride),
                        structure_byte_stride: stride,
                        flags: 0,
                    },
                },
            )
        }
        Kind::Typed(Dim::Buffer) => {
            let texel = r.map_or(4, |r| r.decl.format.texel_size);
            if r.is_some() && (format == FORMAT_UNKNOWN || texel == 0) {
                return Err("a typed buffer view needs a format: the [srv] gives none".into());
            }
            (
                format,
                SRV_DIMENSION_BUFFER,
                SrvUnion {
                    buffer: BufferSrv {
                        first_element: 0,
                        num_elements: buffer_elements(texel),
                        structure_byte_stride: 0,
                        flags: 0,
                    },
                },
            )
        }
        Kind::Typed(d) => {
            let (dim, words) = match d {
                Dim::Texture1D => (SRV_DIMENSION_TEXTURE1D, tex_words(&[0, ALL_MIPS])),
                Dim::Texture1DArray => (
                    SRV_DIMENSION_TEXTURE1DARRAY,
                    tex_words(&[0, ALL_MIPS, 0, layers]),
                ),
                Dim::Texture2D => (SRV_DIMENSION_TEXTURE2D, tex_words(&[0, ALL_MIPS])),
                Dim::Texture2DArray => (
                    SRV_DIMENSION_TEXTURE2DARRAY,
                    tex_words(&[0, ALL_MIPS, 0, layers]),
                ),
                Dim::Texture2DMS => (SRV_DIMENSION_TEXTURE2DMS, tex_words(&[])),
                Dim::Texture2DMSArray => (SRV_DIMENSION_TEXTURE2DMSARRAY, tex_words(&[0, layers])),
                Dim::Texture3D => (SRV_DIMENSION_TEXTURE3D, tex_words(&[0, ALL_MIPS])),
                Dim::TextureCube => (SRV_DIMENSION_TEXTURECUBE, tex_words(&[0, ALL_MIPS])),
                Dim::TextureCubeArray => (
                    SRV_DIMENSION_TEXTURECUBEARRAY,
                    tex_words(&[0, ALL_MIPS, 0, layers / 6]),
                ),
                other => return Err(format!("a shader resource of dimension {other:?}")),
            };
            if let Some(r) = r
                && r.res.desc.dimension == RESOURCE_DIMENSION_BUFFER
            {
                return Err(format!(
                    "the shader declares a {} but [srv {}] is a buffer",
                    d.name(),
                    r.decl.slot
                ));
            }
            (format, dim, SrvUnion { words })
        }
        Kind::Cbv { .. } | Kind::Sampler { .. } => {
            return Err("not a shader resource declaration".into());
        }
    };
    Ok(ShaderResourceViewDesc {
        format,
        view_dimension: dim,
        shader_4_component_mapping: DEFAULT_SHADER_4_COMPONENT_MAPPING,
        u,
    })
}

/// A UAV of `r` (or a null one) as a declaration of `kind` reads it; `counter`: the offset
/// of its counter in the counter buffer.
pub fn uav_desc(
    r: Option<&TestResource>,
    kind: Kind,
    counter: Option<u64>,
) -> Result<UnorderedAccessViewDesc, String> {
    let format = r.map_or(FORMAT_R32_FLOAT, |r| view_format(r.format));
    let buffer_elements =
        |stride: u32| r.map_or(0, |r| (r.res.desc.width / u64::from(stride.max(1))) as u32);
    let layers = r.map_or(1, |r| u32::from(r.res.desc.depth_or_array_size));
    let buffer = |format, stride_for_count, structure_byte_stride, flags| UnorderedAccessViewDesc {
        format,
        view_dimension: UAV_DIMENSION_BUFFER,
        u: UavUnion {
            buffer: BufferUav {
                first_element: 0,
                num_elements: buffer_elements(stride_for_count),
                structure_byte_stride,
                counter_offset_in_bytes: counter.unwrap_or(0),
                flags,
            },
        },
    };
    Ok(match kind {
        Kind::Raw => buffer(FORMAT_R32_TYPELESS, 4, 0, BUFFER_FLAG_RAW),
        Kind::Structured(shader_stride) => {
            let stride = r.and_then(|r| r.decl.stride).unwrap_or(shader_stride);
            buffer(FORMAT_UNKNOWN, stride, stride, 0)
        }
        Kind::Typed(Dim::Buffer) => {
            let texel = r.map_or(4, |r| r.decl.format.texel_size);
            if r.is_some() && (format == FORMAT_UNKNOWN || texel == 0) {
                return Err("a typed buffer view needs a format: the [uav] gives none".into());
            }
            buffer(format, texel, 0, 0)
        }
        Kind::Typed(d) => {
            if let Some(r) = r
                && r.res.desc.dimension == RESOURCE_DIMENSION_BUFFER
            {
                return Err(format!(
                    "the shader declares a {} but [uav {}] is a buffer",
                    d.name(),
                    r.decl.slot
                ));
            }
            let depth = layers;
            let (dim, words) = match d {
                Dim::Texture1D => (UAV_DIMENSION_TEXTURE1D, [0, 0, 0, 0]),
                Dim::Texture1DArray => (UAV_DIMENSION_TEXTURE1DARRAY, [0, 0, layers, 0]),
                Dim::Texture2D => (UAV_DIMENSION_TEXTURE2D, [0, 0, 0, 0]),
                Dim::Texture2DArray => (UAV_DIMENSION_TEXTURE2DARRAY, [0, 0, layers, 0]),
                Dim::Texture3D => (UAV_DIMENSION_TEXTURE3D, [0, 0, depth, 0]),
                other => return Err(format!("an unordered access view of dimension {other:?}")),
            };
            UnorderedAccessViewDesc {
                format,
                view_dimension: dim,
                u: UavUnion { words },
            }
        }
        Kind::Cbv { .. } | Kind::Sampler { .. } => {
            return Err("not an unordered access declaration".into());
        }
    })
}

/// The format a typed view reads: typeless and depth formats read as R32_FLOAT.
fn view_format(f: u32) -> u32 {
    match f {
        FORMAT_R32_TYPELESS | FORMAT_D32_FLOAT => FORMAT_R32_FLOAT,
        f => f,
    }
}

/// A sampler description from a `[sampler]` section (`None`: point sampling, clamped, for
/// array elements the test leaves empty).
pub fn sampler_desc(s: Option<&SamplerDecl>) -> SamplerDesc {
    let address = |a: AddressMode| match a {
        AddressMode::Wrap => TEXTURE_ADDRESS_MODE_WRAP,
        AddressMode::Mirror => TEXTURE_ADDRESS_MODE_MIRROR,
        AddressMode::Clamp => TEXTURE_ADDRESS_MODE_CLAMP,
        AddressMode::Border => TEXTURE_ADDRESS_MODE_BORDER,
        AddressMode::MirrorOnce => TEXTURE_ADDRESS_MODE_MIRROR_ONCE,
    };
    let Some(s) = s else {
        return SamplerDesc {
            address_u: TEXTURE_ADDRESS_MODE_CLAMP,
            address_v: TEXTURE_ADDRESS_MODE_CLAMP,
            address_w: TEXTURE_ADDRESS_MODE_CLAMP,
            comparison_func: COMPARISON_FUNC_NEVER,
            max_lod: f32::MAX,
            ..Default::default()
        };
    };
    let reduction = match (s.reduction, s.compare) {
        (Reduction::Minimum, _) => FILTER_REDUCTION_TYPE_MINIMUM,
        (Reduction::Maximum, _) => FILTER_REDUCTION_TYPE_MAXIMUM,
        (Reduction::Comparison, _) | (_, Some(_)) => FILTER_REDUCTION_TYPE_COMPARISON,
        (Reduction::Standard, None) => FILTER_REDUCTION_TYPE_STANDARD,
    };
    // D3D12_ENCODE_BASIC_FILTER: min linear in bit 4, mag in bit 2, mip in bit 0.
    let [min, mag, mip] = s.linear.map(u32::from);
    let filter = (min << 4) | (mag << 2) | mip | (reduction << 7);
    SamplerDesc {
        filter,
        address_u: address(s.address[0]),
        address_v: address(s.address[1]),
        address_w: address(s.address[2]),
        mip_lod_bias: 0.0,
        max_anisotropy: 1,
        comparison_func: s
            .compare
            .map_or(COMPARISON_FUNC_NEVER, |f| COMPARISON_FUNC_NEVER + f as u32),
        border_color: [0.0; 4],
        min_lod: 0.0,
        max_lod: f32::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::CompareFunc;

    #[test]
    fn sampler_filters() {
        let mut s = SamplerDecl::new(0);
        s.linear = [true, true, true];
        assert_eq!(sampler_desc(Some(&s)).filter, FILTER_MIN_MAG_MIP_LINEAR);
        s.compare = Some(CompareFunc::Less);
        let d = sampler_desc(Some(&s));
        assert_eq!(d.filter, 0x95, "D3D12_FILTER_COMPARISON_MIN_MAG_MIP_LINEAR");
        assert_eq!(d.comparison_func, 2, "D3D12_COMPARISON_FUNC_LESS");
        s.compare = None;
        s.linear = [false, true, false];
        s.reduction = Reduction::Maximum;
        assert_eq!(
            sampler_desc(Some(&s)).filter,
            0x184,
            "D3D12_FILTER_MAXIMUM_MIN_POINT_MAG_LINEAR_MIP_POINT"
        );
    }

    #[test]
    fn null_views_have_declared_dimensions() {
        let d = srv_desc(None, Kind::Typed(Dim::TextureCube)).unwrap();
        assert_eq!(d.view_dimension, SRV_DIMENSION_TEXTURECUBE);
        let d = uav_desc(None, Kind::Raw, None).unwrap();
        assert_eq!(
            (d.format, d.view_dimension),
            (FORMAT_R32_TYPELESS, UAV_DIMENSION_BUFFER)
        );
        assert!(srv_desc(None, Kind::Sampler { comparison: false }).is_err());
    }
}
