//! `[sampler N]` declarations as Vulkan samplers, with D3D's defaults (transparent black
//! border, unclamped LOD range).

use super::context::Gpu;
use crate::parse::{AddressMode, CompareFunc, Reduction, SamplerDecl};
use ash::vk;

pub fn compare_op(f: CompareFunc) -> vk::CompareOp {
    match f {
        CompareFunc::Never => vk::CompareOp::NEVER,
        CompareFunc::Less => vk::CompareOp::LESS,
        CompareFunc::Equal => vk::CompareOp::EQUAL,
        CompareFunc::LessEqual => vk::CompareOp::LESS_OR_EQUAL,
        CompareFunc::Greater => vk::CompareOp::GREATER,
        CompareFunc::NotEqual => vk::CompareOp::NOT_EQUAL,
        CompareFunc::GreaterEqual => vk::CompareOp::GREATER_OR_EQUAL,
        CompareFunc::Always => vk::CompareOp::ALWAYS,
    }
}

/// Creates a sampler; the caller destroys it.
pub fn create_sampler(gpu: &Gpu, s: &SamplerDecl) -> Result<vk::Sampler, String> {
    let filter = |linear: bool| {
        if linear {
            vk::Filter::LINEAR
        } else {
            vk::Filter::NEAREST
        }
    };
    let mut addr = [vk::SamplerAddressMode::CLAMP_TO_EDGE; 3];
    for (a, m) in addr.iter_mut().zip(s.address) {
        *a = match m {
            AddressMode::Wrap => vk::SamplerAddressMode::REPEAT,
            AddressMode::Mirror => vk::SamplerAddressMode::MIRRORED_REPEAT,
            AddressMode::Clamp => vk::SamplerAddressMode::CLAMP_TO_EDGE,
            AddressMode::Border => vk::SamplerAddressMode::CLAMP_TO_BORDER,
            AddressMode::MirrorOnce => {
                if gpu.enabled.f12.sampler_mirror_clamp_to_edge == 0 {
                    return Err("mirror_once needs samplerMirrorClampToEdge".into());
                }
                vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE
            }
        };
    }
    let mut info = vk::SamplerCreateInfo::default()
        .mag_filter(filter(s.linear[1]))
        .min_filter(filter(s.linear[0]))
        .mipmap_mode(if s.linear[2] {
            vk::SamplerMipmapMode::LINEAR
        } else {
            vk::SamplerMipmapMode::NEAREST
        })
        .address_mode_u(addr[0])
        .address_mode_v(addr[1])
        .address_mode_w(addr[2])
        .min_lod(0.0)
        .max_lod(vk::LOD_CLAMP_NONE)
        .border_color(vk::BorderColor::FLOAT_TRANSPARENT_BLACK);
    if let Some(f) = s.compare {
        info = info.compare_enable(true).compare_op(compare_op(f));
    }
    let mut reduction = vk::SamplerReductionModeCreateInfo::default();
    if matches!(s.reduction, Reduction::Minimum | Reduction::Maximum) {
        if gpu.enabled.f12.sampler_filter_minmax == 0 {
            return Err("minimum/maximum filtering needs samplerFilterMinmax".into());
        }
        reduction = reduction.reduction_mode(if s.reduction == Reduction::Minimum {
            vk::SamplerReductionMode::MIN
        } else {
            vk::SamplerReductionMode::MAX
        });
        info = info.push_next(&mut reduction);
    }
    // SAFETY: valid device and create info.
    unsafe { gpu.device.create_sampler(&info, None) }.map_err(|e| format!("vkCreateSampler: {e}"))
}
