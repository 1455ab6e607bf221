//! Test resources (`[srv]`, `[uav]`, `[rtv]`, `[dsv]`, `[vb]`, `[so]`) on the device.
//!
//! A declaration becomes one buffer or image, created with every usage its format supports so
//! that whichever descriptor type a backend's reflection asks for (texel buffer, storage
//! buffer, sampled or storage image) can be bound to it. Initial data is uploaded in D3D12
//! subresource order (mip levels of layer 0, then of layer 1, ...).

use super::context::Gpu;
use super::memory::{Buffer, Image};
use crate::parse::{Dimensions, ResourceDecl, ResourceKind};
use ash::vk;

/// The device object behind a test resource.
pub enum GpuObject {
    Buffer(Buffer),
    Image(Image),
}

/// A declared resource and its device object.
pub struct TestResource {
    pub decl: ResourceDecl,
    pub obj: GpuObject,
    /// Bytes per element: format texel size, structure stride, or 4 for raw buffers.
    pub element_size: u32,
}

/// Default render target size (vkd3d's runner uses 640x480).
pub const RT_WIDTH: u32 = 640;
pub const RT_HEIGHT: u32 = 480;

impl TestResource {
    pub fn create(gpu: &Gpu, decl: &ResourceDecl) -> Result<TestResource, String> {
        let element_size = decl.stride.unwrap_or(if decl.format.texel_size == 0 {
            4
        } else {
            decl.format.texel_size
        });
        let data: Vec<u8> = decl.data.iter().flat_map(|w| w.to_le_bytes()).collect();
        let buffer_usage = vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
            | vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER
            | vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::UNIFORM_BUFFER
            | vk::BufferUsageFlags::VERTEX_BUFFER;
        let buffer_usage = if decl.kind == ResourceKind::StreamOutput {
            if gpu.xfb.is_none() {
                return Err(format!(
                    "so {}: the device lacks transformFeedback (VK_EXT_transform_feedback)",
                    decl.slot
                ));
            }
            if decl.slot > 3 {
                return Err(format!("so {}: stream-output slots are 0-3", decl.slot));
            }
            buffer_usage | vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT
        } else {
            buffer_usage
        };
        let buffer_size = match (decl.kind, decl.dims) {
            (ResourceKind::VertexBuffer, _) => Some(data.len() as u64),
            (_, Dimensions::Buffer { elements }) | (_, Dimensions::CounterBuffer { elements }) => {
                Some(u64::from(elements) * u64::from(element_size))
            }
            (_, Dimensions::RawBuffer { bytes }) => Some(u64::from(bytes)),
            _ => None,
        };
        if let Some(size) = buffer_size {
            // vkd3d's runners size a buffer by its data; the declared size counts when it is
            // larger (a buffer given no data, or less than it holds).
            // Rounded up to whole words (16-bit structures can have strides like 6).
            let size = size.max(data.len() as u64).next_multiple_of(4);
            let buf = gpu.buffer_with_data(size, buffer_usage, &data)?;
            return Ok(TestResource {
                decl: decl.clone(),
                obj: GpuObject::Buffer(buf),
                element_size,
            });
        }
        let format = decl.format;
        if format.texel_size == 0 {
            return Err(format!(
                "{} {}: a texture needs a format",
                decl.kind.name(),
                decl.slot
            ));
        }
        let (image_type, w, h, d, layers, samples, cube) = match decl.dims {
            Dimensions::Tex2d { width, height } => {
                (vk::ImageType::TYPE_2D, width, height, 1, 1, 1, false)
            }
            Dimensions::Tex2dMs {
                samples,
                width,
                height,
            } => (vk::ImageType::TYPE_2D, width, height, 1, 1, samples, false),
            Dimensions::Tex2dArray {
                width,
                height,
                layers,
            } => (vk::ImageType::TYPE_2D, width, height, 1, layers, 1, false),
            Dimensions::Tex3d {
                width,
                height,
                depth,
            } => (vk::ImageType::TYPE_3D, width, height, depth, 1, 1, false),
            Dimensions::Cube { size } => (vk::ImageType::TYPE_2D, size, size, 1, 6, 1, true),
            Dimensions::Unspecified
                if matches!(decl.kind, ResourceKind::Rtv | ResourceKind::Dsv) =>
            {
                (vk::ImageType::TYPE_2D, RT_WIDTH, RT_HEIGHT, 1, 1, 1, false)
            }
            _ => return Err(format!("{} {}: no size given", decl.kind.name(), decl.slot)),
        };
        if w == 0 || h == 0 || d == 0 || layers == 0 {
            return Err(format!("{} {}: empty texture", decl.kind.name(), decl.slot));
        }
        if !samples.is_power_of_two() || samples > 64 {
            return Err(format!(
                "{} {}: bad sample count {samples}",
                decl.kind.name(),
                decl.slot
            ));
        }
        let feats = gpu.format_features(format.vk).optimal_tiling_features;
        let mut usage = vk::ImageUsageFlags::empty();
        if feats.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE) {
            usage |= vk::ImageUsageFlags::SAMPLED;
        }
        let ms_storage_ok = samples == 1 || gpu.enabled.f10.shader_storage_image_multisample != 0;
        if feats.contains(vk::FormatFeatureFlags::STORAGE_IMAGE) && ms_storage_ok {
            usage |= vk::ImageUsageFlags::STORAGE;
        }
        if format.is_depth() {
            if feats.contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT) {
                usage |= vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT;
            }
        } else if feats.contains(vk::FormatFeatureFlags::COLOR_ATTACHMENT) {
            usage |= vk::ImageUsageFlags::COLOR_ATTACHMENT;
        }
        if decl.kind == ResourceKind::Rtv && !usage.contains(vk::ImageUsageFlags::COLOR_ATTACHMENT)
        {
            return Err(format!(
                "format {} cannot be a render target on this device",
                format.name
            ));
        }
        let max_levels = 32 - w.max(h).max(d).leading_zeros();
        if decl.levels > max_levels {
            return Err(format!(
                "{} {}: {} levels for a {w}x{h} texture",
                decl.kind.name(),
                decl.slot,
                decl.levels
            ));
        }
        let img = gpu.create_image(
            image_type,
            format.vk,
            vk::Extent3D {
                width: w,
                height: h,
                depth: d,
            },
            decl.levels,
            layers,
            samples,
            cube,
            usage,
        )?;
        if !data.is_empty() {
            if samples > 1 {
                return Err("initial data for multisampled textures is not supported".into());
            }
            let mut regions = Vec::new();
            let mut offset = 0u64;
            'outer: for layer in 0..layers {
                for level in 0..decl.levels {
                    if offset >= data.len() as u64 {
                        break 'outer;
                    }
                    let e = img.level_extent(level);
                    let size = u64::from(e.width)
                        * u64::from(e.height)
                        * u64::from(e.depth)
                        * u64::from(format.texel_size);
                    regions.push((level, layer, offset));
                    offset += size;
                }
            }
            let mut padded = data;
            padded.resize(offset as usize, 0);
            gpu.upload_image(&img, &padded, &regions)?;
        }
        Ok(TestResource {
            decl: decl.clone(),
            obj: GpuObject::Image(img),
            element_size,
        })
    }
}
