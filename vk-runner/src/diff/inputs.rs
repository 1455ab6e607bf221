//! The inputs a differential run feeds a shader, made deterministically from the seed and
//! the shader's own declarations: constant buffers (floats of few mantissa bits in a sane
//! range, small integers where RDEF or the program says a word is an integer, 0/1 booleans),
//! textures of every dimension with mip chains, typed/raw/structured buffers, UAVs, samplers,
//! vertex attributes and pixel-shader varyings.
//!
//! Everything stays inside D3D's defined territory: values are far from denormals and NaN
//! (floats are multiples of 1/64 or 1/256), integers are small (indices built from them stay in
//! bounds of the resources made here), resources are large enough for the invocations the run
//! makes, and D3D9 colours stay in [0, 1] (the range a D3D9 pixel shader can receive).

use super::rng::Rng;
use super::shader::{ResKind, ScalarKind, Shader, TexelKind, WordKind};
use crate::parse::format::Format;
use crate::parse::{AddressMode, CompareFunc, Dimensions, ResourceDecl, ResourceKind, SamplerDecl};
use crate::vk::context::Gpu;
use crate::vk::resource::{GpuObject, TestResource};
use crate::vk::sampler::create_sampler;
use ash::vk;
use std::collections::HashMap;
use translator::reflect::{Descriptor, RegisterClass, ResourceDim, ResourceShape, ReturnType};

/// Render-target width and height of a pixel-shader run (also the size of 2D UAVs).
pub const TARGET: u32 = 16;
/// Vertices of a vertex-shader run.
pub const VERTICES: u32 = 64;
/// Elements of typed and structured buffers (at least; compute runs size them by thread count).
const ELEMENTS: u32 = 256;

/// How big to make resources that invocations index.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// Invocations of the run (threads, pixels or vertices).
    pub invocations: u32,
    /// 2D extent UAV textures get (a compute run's thread grid; a pixel run's target).
    pub grid: [u32; 3],
    /// Words from one D3D9 boolean constant to the next in the side's buffer `b2`: ours packs
    /// them (1), vkd3d-shader gives each a 16-byte row (4).
    pub bool_stride: u32,
}

/// A resource the run reads back afterwards.
pub struct Readback {
    pub key: (ResourceKind, u32, u32),
    pub name: String,
    /// Scalar kind of each of the `channels` per element.
    pub kind: ScalarKind,
    pub channels: u32,
    /// Records of this many words in no defined order (elements appended through the
    /// UAV's counter).
    pub record: Option<u32>,
}

/// Every resource, sampler and constant buffer of one run, keyed as the binder wants them.
pub struct Inputs {
    device: ash::Device,
    pub resources: HashMap<(ResourceKind, u32, u32), TestResource>,
    pub samplers: HashMap<(u32, u32), vk::Sampler>,
    pub cbuffers: HashMap<(u32, u32), Vec<u32>>,
    pub readbacks: Vec<Readback>,
    /// One line per input, for reports ("cb0: 64 words", "t0: texture2d 16x16 rgba32f").
    pub described: Vec<String>,
}

impl Drop for Inputs {
    fn drop(&mut self) {
        // SAFETY: created by this device; the caller waited for the queue.
        unsafe {
            for s in self.samplers.values() {
                self.device.destroy_sampler(*s, None);
            }
        }
    }
}

fn format(name: &str) -> Format {
    Format::by_name(name).expect("a format vk-runner knows")
}

fn reg_name(class: RegisterClass, space: u32, reg: u32) -> String {
    if space == 0 {
        format!("{}{reg}", class.letter())
    } else {
        format!("{}{reg} (space {space})", class.letter())
    }
}

/// A float for a texel of `kind`.
fn texel_value(r: &mut Rng, kind: TexelKind) -> u32 {
    match kind {
        TexelKind::Unorm => r.quantized(0.0, 1.0, 256.0).to_bits(),
        TexelKind::Snorm => r.quantized(-1.0, 1.0, 128.0).to_bits(),
        TexelKind::Float => r.quantized(-2.0, 2.0, 64.0).to_bits(),
        TexelKind::Uint | TexelKind::Sint => r.range(0, 7) as u32,
    }
}

/// Image shape per D3D dimension: (Vulkan type, width, height, depth, layers, cube, levels).
fn image_shape(dim: ResourceDim, grid: [u32; 3]) -> (vk::ImageType, u32, u32, u32, u32, bool, u32) {
    let g = |i: usize, min: u32| grid[i].max(min);
    match dim {
        ResourceDim::Texture1D => (vk::ImageType::TYPE_1D, g(0, 16), 1, 1, 1, false, 5),
        ResourceDim::Texture1DArray => (vk::ImageType::TYPE_1D, g(0, 16), 1, 1, 3, false, 5),
        ResourceDim::Texture2D => (vk::ImageType::TYPE_2D, g(0, 16), g(1, 16), 1, 1, false, 5),
        ResourceDim::Texture2DArray => (vk::ImageType::TYPE_2D, g(0, 16), g(1, 16), 1, 3, false, 5),
        ResourceDim::Texture2DMS => (vk::ImageType::TYPE_2D, 16, 16, 1, 1, false, 1),
        ResourceDim::Texture2DMSArray => (vk::ImageType::TYPE_2D, 16, 16, 1, 2, false, 1),
        ResourceDim::Texture3D => (
            vk::ImageType::TYPE_3D,
            g(0, 8),
            g(1, 8),
            g(2, 8),
            1,
            false,
            4,
        ),
        ResourceDim::TextureCube => (vk::ImageType::TYPE_2D, 8, 8, 1, 6, true, 4),
        ResourceDim::TextureCubeArray => (vk::ImageType::TYPE_2D, 8, 8, 1, 12, true, 4),
        ResourceDim::Buffer => (vk::ImageType::TYPE_1D, 1, 1, 1, 1, false, 1),
    }
}

impl Inputs {
    /// Makes every resource `shader` declares, plus stand-ins for descriptors of `refl` the
    /// program does not declare (D3D9 stages sampled without `dcl`), shaped as the reflection
    /// says.
    pub fn new(
        gpu: &Gpu,
        shader: &Shader,
        refl: &[&Descriptor],
        seed: u64,
        sizes: Sizes,
    ) -> Result<Inputs, String> {
        let mut inp = Inputs {
            device: gpu.device.clone(),
            resources: HashMap::new(),
            samplers: HashMap::new(),
            cbuffers: HashMap::new(),
            readbacks: Vec::new(),
            described: Vec::new(),
        };
        for r in &shader.resources {
            inp.add(
                gpu,
                r.class,
                r.space,
                r.register,
                &r.kind,
                seed,
                sizes,
                &shader.appended,
            )?;
        }
        // Stand-ins for what the program leaves undeclared.
        for d in refl {
            let o = &d.origin;
            if o.uav_counter {
                continue;
            }
            let upper = o.upper.unwrap_or(o.lower).min(o.lower.saturating_add(7));
            for reg in o.lower..=upper {
                let present = match o.class {
                    RegisterClass::B => inp.cbuffers.contains_key(&(o.space, reg)),
                    RegisterClass::S => inp.samplers.contains_key(&(o.space, reg)),
                    RegisterClass::T => {
                        inp.resources
                            .contains_key(&(ResourceKind::Srv, o.space, reg))
                    }
                    RegisterClass::U => {
                        inp.resources
                            .contains_key(&(ResourceKind::Uav, o.space, reg))
                    }
                };
                if present {
                    continue;
                }
                let kind = match (&d.shape, o.class) {
                    // A buffer the program does not declare holds state the translator asks
                    // for (the D3D9 bump-environment matrices in b3): D3D's initial state, 0.
                    (ResourceShape::ConstantBuffer { size_bytes }, _) => {
                        let words = (size_bytes.div_ceil(16).max(1) * 4) as usize;
                        inp.described.push(format!(
                            "{}: {words} words of state, 0 (the initial state)",
                            reg_name(o.class, o.space, reg)
                        ));
                        inp.cbuffers.insert((o.space, reg), vec![0; words]);
                        continue;
                    }
                    (ResourceShape::Sampler { comparison }, _) => ResKind::Sampler {
                        comparison: *comparison,
                    },
                    (
                        ResourceShape::Image {
                            dim, return_type, ..
                        },
                        RegisterClass::T,
                    ) => ResKind::Texture {
                        dim: *dim,
                        texel: match return_type {
                            ReturnType::Uint => TexelKind::Uint,
                            ReturnType::Sint => TexelKind::Sint,
                            _ => TexelKind::Unorm,
                        },
                        samples: 1,
                        compared: false,
                    },
                    _ => continue,
                };
                inp.add(gpu, o.class, o.space, reg, &kind, seed, sizes, &[])?;
            }
        }
        Ok(inp)
    }

    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        gpu: &Gpu,
        class: RegisterClass,
        space: u32,
        reg: u32,
        kind: &ResKind,
        seed: u64,
        sizes: Sizes,
        appended: &[u32],
    ) -> Result<(), String> {
        let name = reg_name(class, space, reg);
        let mut rng = Rng::new(seed, &name);
        match kind {
            ResKind::ConstantBuffer { words, .. }
                if words.iter().all(|w| *w == WordKind::Bool) && sizes.bool_stride > 1 =>
            {
                // D3D9 booleans, each in its own row.
                let mut data = vec![0; words.len() * sizes.bool_stride as usize];
                for k in 0..words.len() {
                    data[k * sizes.bool_stride as usize] = rng.range(0, 1) as u32;
                }
                self.described
                    .push(format!("{name}: {} booleans, one per row", words.len()));
                self.cbuffers.insert((space, reg), data);
            }
            ResKind::ConstantBuffer { words, .. } => {
                let data = cbuffer_words(seed, space, reg, words);
                let ints = words.iter().filter(|w| **w != WordKind::Float).count();
                self.described
                    .push(format!("{name}: {} words ({ints} integer)", data.len()));
                self.cbuffers.insert((space, reg), data);
            }
            ResKind::Sampler { comparison } => {
                let mut s = SamplerDecl::new(reg);
                s.space = space;
                s.linear = [rng.coin(), rng.coin(), rng.coin()];
                let a = [
                    AddressMode::Wrap,
                    AddressMode::Mirror,
                    AddressMode::Clamp,
                    AddressMode::Border,
                ];
                for m in s.address.iter_mut() {
                    *m = a[rng.range(0, 3) as usize];
                }
                if *comparison {
                    let f = [
                        CompareFunc::Less,
                        CompareFunc::LessEqual,
                        CompareFunc::Greater,
                        CompareFunc::GreaterEqual,
                    ];
                    s.compare = Some(f[rng.range(0, 3) as usize]);
                }
                self.described.push(format!(
                    "{name}: filter {:?} address {:?} compare {:?}",
                    s.linear, s.address, s.compare
                ));
                self.samplers.insert((space, reg), create_sampler(gpu, &s)?);
            }
            ResKind::Texture {
                dim,
                texel,
                samples,
                compared,
            } => {
                let key = (ResourceKind::Srv, space, reg);
                let r = if *dim == ResourceDim::Buffer {
                    typed_buffer(gpu, key, *texel, false, &mut rng, sizes)?
                } else {
                    let fmt = if *compared {
                        format("r32-float-shadow")
                    } else {
                        rgba(*texel)
                    };
                    texture(gpu, key, *dim, fmt, *texel, *samples, &mut rng, [16, 16, 8])?
                };
                self.described.push(format!(
                    "{name}: {dim:?} {} {:?}",
                    r.decl.format.name, r.decl.dims
                ));
                self.resources.insert(key, r);
            }
            ResKind::RawBuffer | ResKind::StructuredBuffer { .. } => {
                let key = (ResourceKind::Srv, space, reg);
                let r = untyped_buffer(gpu, key, kind, &mut rng, sizes)?;
                self.described
                    .push(format!("{name}: buffer {:?}", r.decl.dims));
                self.resources.insert(key, r);
            }
            ResKind::UavTyped { dim, texel, r32 } => {
                let key = (ResourceKind::Uav, space, reg);
                let (r, channels) = if *dim == ResourceDim::Buffer {
                    let r = typed_buffer(gpu, key, *texel, *r32, &mut rng, sizes)?;
                    let c = r.decl.format.channels;
                    (r, c)
                } else {
                    let fmt = if *r32 {
                        r32_format(*texel)
                    } else {
                        rgba(*texel)
                    };
                    let r = texture(gpu, key, *dim, fmt, *texel, 1, &mut rng, sizes.grid)?;
                    (r, fmt.channels)
                };
                self.described.push(format!(
                    "{name}: {dim:?} {} {:?}",
                    r.decl.format.name, r.decl.dims
                ));
                self.readbacks.push(Readback {
                    key,
                    name: name.clone(),
                    kind: scalar(*texel),
                    channels,
                    record: None,
                });
                self.resources.insert(key, r);
            }
            ResKind::UavRaw | ResKind::UavStructured { .. } => {
                let key = (ResourceKind::Uav, space, reg);
                let r = untyped_buffer(gpu, key, kind, &mut rng, sizes)?;
                self.described
                    .push(format!("{name}: buffer {:?}", r.decl.dims));
                let record = match kind {
                    ResKind::UavStructured { stride } if appended.contains(&reg) => {
                        Some(stride.div_ceil(4).max(1))
                    }
                    _ => None,
                };
                self.readbacks.push(Readback {
                    key,
                    name: name.clone(),
                    kind: ScalarKind::U32,
                    channels: 1,
                    record,
                });
                self.resources.insert(key, r);
            }
        }
        Ok(())
    }
}

/// The words of a constant buffer as a run fills it: floats `k/64` in [-2, 2], signed
/// values in [-1, 1], integers 0-3, booleans 0/1, as `words` types them.
pub fn cbuffer_words(seed: u64, space: u32, reg: u32, words: &[WordKind]) -> Vec<u32> {
    let mut rng = Rng::new(seed, &reg_name(RegisterClass::B, space, reg));
    words
        .iter()
        .map(|k| match k {
            WordKind::Float => rng.quantized(-2.0, 2.0, 64.0).to_bits(),
            WordKind::Signed => rng.quantized(-1.0, 1.0, 64.0).to_bits(),
            WordKind::Int => rng.range(0, 3) as u32,
            WordKind::Bool => rng.range(0, 1) as u32,
        })
        .collect()
}

/// Every constant buffer a DXBC shader declares, by (space, register), as a run fills it
/// (the same on both sides).
pub fn constant_buffers(shader: &Shader, seed: u64) -> HashMap<(u32, u32), Vec<u32>> {
    shader
        .resources
        .iter()
        .filter_map(|r| match &r.kind {
            ResKind::ConstantBuffer { words, .. } if r.class == RegisterClass::B => Some((
                (r.space, r.register),
                cbuffer_words(seed, r.space, r.register, words),
            )),
            _ => None,
        })
        .collect()
}

fn scalar(t: TexelKind) -> ScalarKind {
    match t {
        TexelKind::Uint => ScalarKind::U32,
        TexelKind::Sint => ScalarKind::I32,
        _ => ScalarKind::F32,
    }
}

fn rgba(t: TexelKind) -> Format {
    format(match t {
        TexelKind::Uint => "r32g32b32a32-uint",
        TexelKind::Sint => "r32g32b32a32-sint",
        _ => "r32g32b32a32-float",
    })
}

fn r32_format(t: TexelKind) -> Format {
    format(match t {
        TexelKind::Uint => "r32-uint",
        TexelKind::Sint => "r32-sint",
        _ => "r32-float",
    })
}

fn decl(kind: ResourceKind, key: (ResourceKind, u32, u32), fmt: Format) -> ResourceDecl {
    ResourceDecl {
        kind,
        slot: key.2,
        space: key.1,
        format: fmt,
        explicit_format: true,
        stride: None,
        dims: Dimensions::Unspecified,
        levels: 1,
        data: Vec::new(),
    }
}

fn buffer_elements(sizes: Sizes) -> u32 {
    ELEMENTS
        .max(sizes.invocations.saturating_mul(2))
        .min(1 << 20)
}

fn typed_buffer(
    gpu: &Gpu,
    key: (ResourceKind, u32, u32),
    texel: TexelKind,
    r32: bool,
    rng: &mut Rng,
    sizes: Sizes,
) -> Result<TestResource, String> {
    let fmt = if r32 { r32_format(texel) } else { rgba(texel) };
    let elements = buffer_elements(sizes);
    let mut d = decl(key.0, key, fmt);
    d.dims = Dimensions::Buffer { elements };
    d.data = (0..elements * fmt.channels)
        .map(|_| texel_value(rng, texel))
        .collect();
    TestResource::create(gpu, &d)
}

/// Raw and structured buffers: small integers (their words' types are not declared; an index
/// read from one stays in bounds), except that every fourth word is a float.
fn untyped_buffer(
    gpu: &Gpu,
    key: (ResourceKind, u32, u32),
    kind: &ResKind,
    rng: &mut Rng,
    sizes: Sizes,
) -> Result<TestResource, String> {
    let elements = buffer_elements(sizes);
    let mut d = decl(key.0, key, Format::RAW);
    let words = match kind {
        ResKind::StructuredBuffer { stride } | ResKind::UavStructured { stride } => {
            let stride = (*stride).max(4);
            d.stride = Some(stride);
            d.format = format("r32-uint");
            d.dims = Dimensions::Buffer { elements };
            elements * stride.div_ceil(4)
        }
        _ => {
            d.format = format("r32-uint");
            d.dims = Dimensions::RawBuffer {
                bytes: elements * 16,
            };
            elements * 4
        }
    };
    d.data = (0..words)
        .map(|i| {
            if i % 4 == 3 {
                rng.quantized(-2.0, 2.0, 64.0).to_bits()
            } else {
                rng.range(0, 7) as u32
            }
        })
        .collect();
    TestResource::create(gpu, &d)
}

/// A texture of any dimension with its mip chain filled (multisampled ones: every sample of
/// a texel the same value, by a clear).
#[allow(clippy::too_many_arguments)]
fn texture(
    gpu: &Gpu,
    key: (ResourceKind, u32, u32),
    dim: ResourceDim,
    fmt: Format,
    texel: TexelKind,
    samples: u32,
    rng: &mut Rng,
    grid: [u32; 3],
) -> Result<TestResource, String> {
    let (ty, w, h, depth, layers, cube, levels) = image_shape(dim, grid);
    let samples = if matches!(
        dim,
        ResourceDim::Texture2DMS | ResourceDim::Texture2DMSArray
    ) {
        samples.max(1)
    } else {
        1
    };
    let levels = if samples > 1 || key.0 == ResourceKind::Uav {
        1
    } else {
        levels
    };
    let feats = gpu.format_features(fmt.vk).optimal_tiling_features;
    let mut usage = vk::ImageUsageFlags::empty();
    if feats.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE) {
        usage |= vk::ImageUsageFlags::SAMPLED;
    }
    if feats.contains(vk::FormatFeatureFlags::STORAGE_IMAGE)
        && (samples == 1 || gpu.enabled.f10.shader_storage_image_multisample != 0)
    {
        usage |= vk::ImageUsageFlags::STORAGE;
    }
    if fmt.is_depth() && feats.contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT) {
        usage |= vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT;
    }
    let img = gpu.create_image(
        ty,
        fmt.vk,
        vk::Extent3D {
            width: w,
            height: h,
            depth,
        },
        levels,
        layers,
        samples,
        cube,
        usage,
    )?;
    let value = |rng: &mut Rng| {
        if fmt.is_depth() {
            rng.quantized(0.0, 1.0, 256.0).to_bits()
        } else {
            texel_value(rng, texel)
        }
    };
    if samples > 1 {
        let v: [u32; 4] = std::array::from_fn(|_| value(rng));
        let range = img.full_range();
        // SAFETY: the image is valid and in GENERAL layout.
        gpu.submit(|cb| unsafe {
            gpu.device.cmd_clear_color_image(
                cb,
                img.image,
                vk::ImageLayout::GENERAL,
                &vk::ClearColorValue { uint32: v },
                &[range],
            )
        })?;
    } else {
        let mut data: Vec<u8> = Vec::new();
        let mut regions = Vec::new();
        for layer in 0..layers {
            for level in 0..levels {
                let e = img.level_extent(level);
                regions.push((level, layer, data.len() as u64));
                let n = e.width * e.height * e.depth * fmt.channels;
                for _ in 0..n {
                    data.extend_from_slice(&value(rng).to_le_bytes());
                }
            }
        }
        gpu.upload_image(&img, &data, &regions)?;
    }
    let mut d = decl(key.0, key, fmt);
    d.levels = levels;
    d.dims = match dim {
        ResourceDim::Texture2DMS | ResourceDim::Texture2DMSArray => Dimensions::Tex2dMs {
            samples,
            width: w,
            height: h,
        },
        ResourceDim::Texture3D => Dimensions::Tex3d {
            width: w,
            height: h,
            depth,
        },
        ResourceDim::TextureCube | ResourceDim::TextureCubeArray => Dimensions::Cube { size: w },
        _ if layers > 1 => Dimensions::Tex2dArray {
            width: w,
            height: h,
            layers,
        },
        _ => Dimensions::Tex2d {
            width: w,
            height: h,
        },
    };
    Ok(TestResource {
        element_size: fmt.texel_size,
        decl: d,
        obj: GpuObject::Image(img),
    })
}

/// The value a vertex attribute component carries at `vertex`: floats of few bits in
/// [-2, 2] (non-negative small integers for blend indices, which index constants), integers
/// in 0..=3.
pub fn vertex_value(
    seed: u64,
    semantic: &str,
    index: u32,
    kind: ScalarKind,
    vertex: u32,
    comp: u32,
) -> u32 {
    let mut r = Rng::new(seed, &format!("vertex {semantic} {index} {vertex} {comp}"));
    let name = semantic.to_ascii_uppercase();
    match kind {
        ScalarKind::F32 if name.starts_with("BLENDINDICES") => (r.range(0, 3) as f32).to_bits(),
        ScalarKind::F32 if name == "COLOR" => r.quantized(0.0, 1.0, 64.0).to_bits(),
        ScalarKind::F32 => r.quantized(-2.0, 2.0, 64.0).to_bits(),
        _ => r.range(0, 3) as u32,
    }
}

/// How a pixel-shader input component varies over the render target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Varying {
    /// `base + du·u + dv·v`, (u, v) = 0..1 across the target.
    Linear { base: f32, du: f32, dv: f32 },
    /// An integer, the same at every pixel (integer inputs are flat).
    Int(u32),
}

/// The varying for one input component. `unit` keeps floats in [0, 1] (D3D9 colours, and
/// every input of a ps_1_x shader, whose registers need only hold [-1, 1]).
pub fn varying(
    seed: u64,
    semantic: &str,
    index: u32,
    comp: u32,
    kind: ScalarKind,
    unit: bool,
) -> Varying {
    let mut r = Rng::new(
        seed,
        &format!("varying {} {index} {comp}", semantic.to_ascii_uppercase()),
    );
    match kind {
        ScalarKind::F32 if unit => Varying::Linear {
            base: r.quantized(0.0, 0.5, 64.0),
            du: r.quantized(0.0, 0.25, 64.0),
            dv: r.quantized(0.0, 0.25, 64.0),
        },
        // One sign over the whole target and at least 1/16 from zero: an interpolant that
        // crosses zero can land on a denormal at some pixel, which D3D flushes in arithmetic
        // and a Vulkan device need not.
        ScalarKind::F32 => {
            let sign = if r.coin() { 1.0 } else { -1.0 };
            let base = r.quantized(0.0625, 1.0, 32.0);
            let du = r.quantized(0.0, 0.5, 32.0);
            let dv = r.quantized(0.0, 0.5, 32.0);
            let (du, dv) = if r.coin() { (du, dv) } else { (-du, -dv) };
            // base + du·u + dv·v stays within [base − 1, base + 1]: shift it clear of zero.
            let base = if du < 0.0 { base - du - dv } else { base };
            Varying::Linear {
                base: sign * base,
                du: sign * du,
                dv: sign * dv,
            }
        }
        _ => Varying::Int(r.range(0, 3) as u32),
    }
}
