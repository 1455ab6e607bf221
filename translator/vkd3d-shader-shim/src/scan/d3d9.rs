//! What a scan reports of a Direct3D 9 shader, from the translator's reflection of it, in the
//! form vkd3d_shader.h documents for legacy shaders: each constant set the program takes
//! from outside (float, integer, boolean) as one constant buffer at register 0, 1 or 2;
//! each sampler as a texture (an SRV of the sampler's type, float data) and a sampler state
//! at the sampler's register; and each sampler as the resource-sampler pair of its own
//! register.

use translator::reflect::{D3d9ConstantKind, D3d9Info, ResourceDim};

use super::Scanned;
use crate::abi;

/// Scans the D3D9 part of a translation's reflection. `sampler_uint`: report samplers' data
/// type as `UINT` (API 1.15 and older) instead of `NONE`.
pub fn scan(info: &D3d9Info, sampler_uint: bool) -> Scanned {
    let mut out = Scanned::default();
    let one = |ty, register_index, resource_type, resource_data_type| abi::DescriptorInfo {
        ty,
        register_space: 0,
        register_index,
        resource_type,
        resource_data_type,
        flags: 0,
        count: 1,
    };
    for s in &info.samplers {
        let resource_type = match (s.declared.as_str(), s.dim) {
            ("1d", _) => abi::RESOURCE_TEXTURE_1D,
            (_, ResourceDim::TextureCube) => abi::RESOURCE_TEXTURE_CUBE,
            (_, ResourceDim::Texture3D) => abi::RESOURCE_TEXTURE_3D,
            _ => abi::RESOURCE_TEXTURE_2D,
        };
        out.descriptors.push(one(
            abi::DESCRIPTOR_TYPE_SAMPLER,
            s.register,
            abi::RESOURCE_NONE,
            if sampler_uint {
                abi::RESOURCE_DATA_UINT
            } else {
                abi::RESOURCE_DATA_NONE
            },
        ));
        out.descriptors.push(one(
            abi::DESCRIPTOR_TYPE_SRV,
            s.register,
            resource_type,
            abi::RESOURCE_DATA_FLOAT,
        ));
        out.combined.push(abi::CombinedResourceSamplerInfo {
            resource_space: 0,
            resource_index: s.register,
            sampler_space: 0,
            sampler_index: s.register,
        });
    }
    // A set counts when the registers from 0 to the highest the program reads or defines
    // are not all defined by the program (vkd3d-shader's rule: the translator may need no
    // buffer even then, when the registers read are all defined, but a caller binding what
    // the scan reports binds it), or when it is read with relative addressing.
    for c in &info.constants {
        let highest = c
            .used
            .map(|[_, hi]| hi)
            .into_iter()
            .chain(c.defs.iter().map(|d| d.register))
            .max();
        let external = c.relative
            || highest.is_some_and(|hi| (0..=hi).any(|r| !c.defs.iter().any(|d| d.register == r)));
        if external {
            let register = match c.kind {
                D3d9ConstantKind::Float => 0,
                D3d9ConstantKind::Int => 1,
                D3d9ConstantKind::Bool => 2,
            };
            out.descriptors.push(one(
                abi::DESCRIPTOR_TYPE_CBV,
                c.buffer_register.unwrap_or(register),
                abi::RESOURCE_BUFFER,
                abi::RESOURCE_DATA_UINT,
            ));
        }
    }
    out
}
