//! Test resources (`[srv]`, `[uav]`, `[rtv]`, `[dsv]`, `[vb]`, `[so]`) as D3D12 committed
//! resources: creation with the flags their kind needs, initial data uploaded through an
//! upload-heap buffer (`GetCopyableFootprints` places each subresource), and readback of a
//! subresource into tightly packed texels.
//!
//! Each resource lives in one "home" state that draws and dispatches use (shader resource,
//! unordered access, render target, depth write, stream out); copies and readbacks move it
//! to a copy state and back within their command list.

use super::ffi::types::*;
use super::ffi::{D3d12, Recorder, Resource};
use crate::parse::format::Format;
use crate::parse::{Dimensions, ResourceDecl, ResourceKind};
use crate::vk::resource::{RT_HEIGHT, RT_WIDTH};

/// A declared resource and its D3D12 resource.
pub struct TestResource {
    pub decl: ResourceDecl,
    pub res: Resource,
    /// The state draws, dispatches and copies start from and return to.
    pub state: u32,
    /// Bytes per element: format texel size, structure stride, or 4 for raw buffers.
    pub element_size: u32,
    /// The DXGI format of the resource (`FORMAT_UNKNOWN` for untyped buffers).
    pub format: u32,
}

/// The DXGI format of a runner format.
pub fn dxgi_format(f: &Format) -> Result<u32, String> {
    Ok(match f.name {
        "r32g32b32a32-float" => FORMAT_R32G32B32A32_FLOAT,
        "r32g32b32a32-sint" => FORMAT_R32G32B32A32_SINT,
        "r32g32b32a32-uint" => FORMAT_R32G32B32A32_UINT,
        "r32g32b32-float" => FORMAT_R32G32B32_FLOAT,
        "r32g32b32-uint" => FORMAT_R32G32B32_UINT,
        "r32g32b32-sint" => FORMAT_R32G32B32_SINT,
        "r32g32-float" => FORMAT_R32G32_FLOAT,
        "r32g32-sint" => FORMAT_R32G32_SINT,
        "r32g32-uint" => FORMAT_R32G32_UINT,
        // A depth texture sampled with comparison (D3D9's shadow sampling) is plain R32_FLOAT
        // to D3D12: SampleCmp works on it.
        "r32-float-shadow" | "r32-float" => FORMAT_R32_FLOAT,
        "r32-sint" => FORMAT_R32_SINT,
        "r32-uint" => FORMAT_R32_UINT,
        "r32-typeless" => FORMAT_R32_TYPELESS,
        "r16g16b16a16-float" => FORMAT_R16G16B16A16_FLOAT,
        "r16g16b16a16-uint" => FORMAT_R16G16B16A16_UINT,
        "r16g16b16a16-sint" => FORMAT_R16G16B16A16_SINT,
        "r16g16b16a16-unorm" => FORMAT_R16G16B16A16_UNORM,
        "r16g16-float" => FORMAT_R16G16_FLOAT,
        "r16-float" => FORMAT_R16_FLOAT,
        "r16-uint" => FORMAT_R16_UINT,
        "r8g8b8a8-unorm" => FORMAT_R8G8B8A8_UNORM,
        "r8g8b8a8-snorm" => FORMAT_R8G8B8A8_SNORM,
        "r8g8b8a8-uint" => FORMAT_R8G8B8A8_UINT,
        "r8g8b8a8-sint" => FORMAT_R8G8B8A8_SINT,
        "r8-unorm" => FORMAT_R8_UNORM,
        "d32-float" => FORMAT_D32_FLOAT,
        "unknown" => FORMAT_UNKNOWN,
        n => return Err(format!("format {n} has no DXGI format here")),
    })
}

/// The shape of a texture: dimension, width, height, depth or layers, sample count.
fn texture_shape(decl: &ResourceDecl) -> Result<(u32, u32, u32, u32, u32), String> {
    Ok(match decl.dims {
        Dimensions::Tex2d { width, height } => (RESOURCE_DIMENSION_TEXTURE2D, width, height, 1, 1),
        Dimensions::Tex2dMs {
            samples,
            width,
            height,
        } => (RESOURCE_DIMENSION_TEXTURE2D, width, height, 1, samples),
        Dimensions::Tex2dArray {
            width,
            height,
            layers,
        } => (RESOURCE_DIMENSION_TEXTURE2D, width, height, layers, 1),
        Dimensions::Tex3d {
            width,
            height,
            depth,
        } => (RESOURCE_DIMENSION_TEXTURE3D, width, height, depth, 1),
        Dimensions::Cube { size } => (RESOURCE_DIMENSION_TEXTURE2D, size, size, 6, 1),
        Dimensions::Unspecified if matches!(decl.kind, ResourceKind::Rtv | ResourceKind::Dsv) => {
            (RESOURCE_DIMENSION_TEXTURE2D, RT_WIDTH, RT_HEIGHT, 1, 1)
        }
        _ => return Err(format!("{} {}: no size given", decl.kind.name(), decl.slot)),
    })
}

/// The state a resource of `kind` lives in.
fn home_state(kind: ResourceKind) -> u32 {
    match kind {
        ResourceKind::Srv => {
            RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE | RESOURCE_STATE_PIXEL_SHADER_RESOURCE
        }
        ResourceKind::Uav => RESOURCE_STATE_UNORDERED_ACCESS,
        ResourceKind::Rtv => RESOURCE_STATE_RENDER_TARGET,
        ResourceKind::Dsv => RESOURCE_STATE_DEPTH_WRITE,
        ResourceKind::VertexBuffer => RESOURCE_STATE_GENERIC_READ,
        ResourceKind::StreamOutput => RESOURCE_STATE_STREAM_OUT,
    }
}

impl TestResource {
    pub fn create(dev: &D3d12, decl: &ResourceDecl) -> Result<TestResource, String> {
        let element_size = decl.stride.unwrap_or(if decl.format.texel_size == 0 {
            4
        } else {
            decl.format.texel_size
        });
        let data: Vec<u8> = decl.data.iter().flat_map(|w| w.to_le_bytes()).collect();
        let state = home_state(decl.kind);
        let buffer_size = match (decl.kind, decl.dims) {
            (ResourceKind::VertexBuffer, _) => Some(data.len() as u64),
            (_, Dimensions::Buffer { elements }) | (_, Dimensions::CounterBuffer { elements }) => {
                Some(u64::from(elements) * u64::from(element_size))
            }
            (_, Dimensions::RawBuffer { bytes }) => Some(u64::from(bytes)),
            _ => None,
        };
        let format = dxgi_format(&decl.format)?;
        if let Some(size) = buffer_size {
            // Sized by the data when that is larger, as vkd3d's runner sizes buffers.
            let size = size.max(data.len() as u64).next_multiple_of(4).max(4);
            if decl.kind == ResourceKind::VertexBuffer {
                let res = dev.create_buffer(HEAP_TYPE_UPLOAD, size, 0, state)?;
                res.write(0, &data)?;
                return Ok(TestResource {
                    decl: decl.clone(),
                    res,
                    state,
                    element_size,
                    format,
                });
            }
            let flags = if decl.kind == ResourceKind::Uav {
                RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS
            } else {
                0
            };
            let res =
                dev.create_buffer(HEAP_TYPE_DEFAULT, size, flags, RESOURCE_STATE_COPY_DEST)?;
            let mut padded = data;
            padded.resize(size as usize, 0);
            let upload =
                dev.create_buffer(HEAP_TYPE_UPLOAD, size, 0, RESOURCE_STATE_GENERIC_READ)?;
            upload.write(0, &padded)?;
            dev.submit(|rec| {
                rec.copy_buffer(&res, 0, &upload, 0, size);
                rec.transition(&res, RESOURCE_STATE_COPY_DEST, state);
                Ok(())
            })?;
            return Ok(TestResource {
                decl: decl.clone(),
                res,
                state,
                element_size,
                format,
            });
        }
        if decl.format.texel_size == 0 {
            return Err(format!(
                "{} {}: a texture needs a format",
                decl.kind.name(),
                decl.slot
            ));
        }
        let (dimension, w, h, depth_or_layers, samples) = texture_shape(decl)?;
        if w == 0 || h == 0 || depth_or_layers == 0 || depth_or_layers > 2048 {
            return Err(format!("{} {}: empty texture", decl.kind.name(), decl.slot));
        }
        let flags = match decl.kind {
            ResourceKind::Rtv => RESOURCE_FLAG_ALLOW_RENDER_TARGET,
            ResourceKind::Dsv => RESOURCE_FLAG_ALLOW_DEPTH_STENCIL,
            ResourceKind::Uav => RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS,
            // D3D12 multisampled textures must allow render targets (or depth).
            _ if samples > 1 && decl.format.is_depth() => RESOURCE_FLAG_ALLOW_DEPTH_STENCIL,
            _ if samples > 1 => RESOURCE_FLAG_ALLOW_RENDER_TARGET,
            _ => 0,
        };
        let desc = ResourceDesc {
            dimension,
            alignment: 0,
            width: u64::from(w),
            height: h,
            depth_or_array_size: depth_or_layers as u16,
            mip_levels: decl.levels.max(1) as u16,
            format,
            sample_desc: SampleDesc {
                count: samples,
                quality: 0,
            },
            layout: TEXTURE_LAYOUT_UNKNOWN,
            flags,
        };
        let initial = if data.is_empty() {
            state
        } else {
            RESOURCE_STATE_COPY_DEST
        };
        let res = dev.create_resource(HEAP_TYPE_DEFAULT, &desc, initial)?;
        if !data.is_empty() {
            if samples > 1 {
                return Err(
                    "initial data for multisampled textures: D3D12 cannot upload to them".into(),
                );
            }
            upload_texture(dev, &res, &desc, decl.format.texel_size, &data, state)?;
        }
        Ok(TestResource {
            decl: decl.clone(),
            res,
            state,
            element_size,
            format,
        })
    }

    /// Number of subresources.
    pub fn subresources(&self) -> u32 {
        let d = &self.res.desc;
        let layers = if d.dimension == RESOURCE_DIMENSION_TEXTURE3D {
            1
        } else {
            u32::from(d.depth_or_array_size)
        };
        u32::from(d.mip_levels) * layers
    }
}

/// The (width, height, depth) of a level.
fn level_extent(desc: &ResourceDesc, level: u32) -> (u32, u32, u32) {
    let d = if desc.dimension == RESOURCE_DIMENSION_TEXTURE3D {
        u32::from(desc.depth_or_array_size)
    } else {
        1
    };
    (
        ((desc.width as u32) >> level).max(1),
        (desc.height >> level).max(1),
        (d >> level).max(1),
    )
}

/// Uploads tightly packed `data` (levels of layer 0, then of layer 1, ...: D3D12's
/// subresource order) into a texture in COPY_DEST, then moves it to `state`. Data shorter
/// than the texture leaves the rest zero.
fn upload_texture(
    dev: &D3d12,
    res: &Resource,
    desc: &ResourceDesc,
    texel_size: u32,
    data: &[u8],
    state: u32,
) -> Result<(), String> {
    let levels = u32::from(desc.mip_levels);
    let layers = if desc.dimension == RESOURCE_DIMENSION_TEXTURE3D {
        1
    } else {
        u32::from(desc.depth_or_array_size)
    };
    let count = levels * layers;
    let (footprints, rows, total) = dev.copyable_footprints(desc, 0, count);
    let mut staging = vec![0u8; total as usize];
    let mut offset = 0usize;
    for sub in 0..count {
        let level = sub % levels;
        let (w, h, d) = level_extent(desc, level);
        let f = footprints[sub as usize];
        let row_bytes = (w * texel_size) as usize;
        for z in 0..d {
            for y in 0..h {
                if offset >= data.len() {
                    break;
                }
                let n = row_bytes.min(data.len() - offset);
                let dst = f.offset as usize
                    + (z as usize * rows[sub as usize] as usize + y as usize)
                        * f.footprint.row_pitch as usize;
                if dst + n > staging.len() {
                    return Err("texture upload outside its footprint".into());
                }
                staging[dst..dst + n].copy_from_slice(&data[offset..offset + n]);
                offset += row_bytes;
            }
        }
    }
    let upload = dev.create_buffer(HEAP_TYPE_UPLOAD, total, 0, RESOURCE_STATE_GENERIC_READ)?;
    upload.write(0, &staging)?;
    dev.submit(|rec| {
        for (sub, f) in footprints.iter().enumerate() {
            rec.copy_texture(
                super::ffi::CopyLocation::Subresource(res, sub as u32),
                super::ffi::CopyLocation::Footprint(&upload, *f),
            );
        }
        rec.transition(res, RESOURCE_STATE_COPY_DEST, state);
        Ok(())
    })
}

/// A subresource read back: tightly packed texels, and its width, height and depth.
pub struct Readback {
    pub data: Vec<u8>,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
}

/// Copies subresource (level 0, `layer`) of a texture, or a whole buffer, to the CPU. A
/// multisampled texture is resolved (averaged) first, as D3D's `ResolveSubresource` does.
pub fn read_back(dev: &D3d12, r: &TestResource, layer: u32) -> Result<Readback, String> {
    let desc = r.res.desc;
    if desc.dimension == RESOURCE_DIMENSION_BUFFER {
        let size = desc.width;
        let rb = dev.create_buffer(HEAP_TYPE_READBACK, size, 0, RESOURCE_STATE_COPY_DEST)?;
        dev.submit(|rec| {
            rec.transition(&r.res, r.state, RESOURCE_STATE_COPY_SOURCE);
            rec.copy_buffer(&rb, 0, &r.res, 0, size);
            rec.transition(&r.res, RESOURCE_STATE_COPY_SOURCE, r.state);
            Ok(())
        })?;
        return Ok(Readback {
            data: rb.read()?,
            width: size as u32,
            height: 1,
            depth: 1,
        });
    }
    let levels = u32::from(desc.mip_levels);
    let mut src_desc = desc;
    let resolved;
    let (src, sub, src_state) = if desc.sample_desc.count > 1 {
        src_desc.sample_desc = SampleDesc {
            count: 1,
            quality: 0,
        };
        src_desc.flags = 0;
        resolved =
            dev.create_resource(HEAP_TYPE_DEFAULT, &src_desc, RESOURCE_STATE_RESOLVE_DEST)?;
        dev.submit(|rec| {
            rec.transition(&r.res, r.state, RESOURCE_STATE_RESOLVE_SOURCE);
            rec.resolve(&resolved, &r.res, r.format);
            rec.transition(&r.res, RESOURCE_STATE_RESOLVE_SOURCE, r.state);
            Ok(())
        })?;
        (&resolved, 0, RESOURCE_STATE_RESOLVE_DEST)
    } else {
        (&r.res, layer * levels, r.state)
    };
    let (footprints, rows, total) = dev.copyable_footprints(&src_desc, sub, 1);
    let f = footprints[0];
    let rb = dev.create_buffer(HEAP_TYPE_READBACK, total, 0, RESOURCE_STATE_COPY_DEST)?;
    dev.submit(|rec| {
        rec.transition(src, src_state, RESOURCE_STATE_COPY_SOURCE);
        rec.copy_texture(
            super::ffi::CopyLocation::Footprint(&rb, f),
            super::ffi::CopyLocation::Subresource(src, sub),
        );
        rec.transition(src, RESOURCE_STATE_COPY_SOURCE, src_state);
        Ok(())
    })?;
    let raw = rb.read()?;
    let (w, h, d) = (f.footprint.width, f.footprint.height, f.footprint.depth);
    let texel = r.decl.format.texel_size.max(1);
    let row_bytes = (w * texel) as usize;
    let mut data = Vec::with_capacity(row_bytes * (h * d) as usize);
    for z in 0..d {
        for y in 0..h {
            let at = f.offset as usize
                + (z as usize * rows[0] as usize + y as usize) * f.footprint.row_pitch as usize;
            let row = raw
                .get(at..at + row_bytes)
                .ok_or("readback outside its footprint")?;
            data.extend_from_slice(row);
        }
    }
    Ok(Readback {
        data,
        width: w,
        height: h,
        depth: d,
    })
}

/// Records a resource's move out of its home state and back around `f`.
pub fn with_state(rec: &mut Recorder, r: &TestResource, state: u32, f: impl FnOnce(&mut Recorder)) {
    rec.transition(&r.res, r.state, state);
    f(rec);
    rec.transition(&r.res, state, r.state);
}
