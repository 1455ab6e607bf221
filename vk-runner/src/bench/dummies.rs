//! Stand-in resources for benchmarking a shader: whatever its reflections ask for, made up with
//! plausible contents (constant buffers of the integer 3, so that loop counts read from them are
//! small and non-zero; float textures of 0.5; integer resources of 1), so that a translated
//! shader runs without a test file describing its inputs.

use crate::parse::format::Format;
use crate::parse::{Dimensions, ResourceDecl, ResourceKind, SamplerDecl};
use crate::vk::bind::BindSources;
use crate::vk::context::Gpu;
use crate::vk::resource::TestResource;
use crate::vk::sampler::create_sampler;
use ash::vk;
use rspirv::dr::{Instruction, Operand};
use spirv::{Decoration, Op};
use std::collections::{HashMap, HashSet};
use translator::reflect::{RegisterClass, ResourceDim, ResourceShape, ReturnType};

/// Texture width and height (cube faces, 3D and array textures are smaller).
const TEX: u32 = 256;
/// Elements of typed and structured buffers; bytes of raw buffers are 16 times this.
const ELEMENTS: u32 = 1 << 16;

/// Resources, samplers and constant buffers keyed as [`BindSources`] wants them.
pub struct Dummies {
    gpu_device: ash::Device,
    pub resources: HashMap<(ResourceKind, u32, u32), TestResource>,
    pub samplers: HashMap<(u32, u32), vk::Sampler>,
    pub cbuffers: HashMap<(u32, u32), Vec<u32>>,
    /// `t#` registers (space, register) sampled with depth comparison: depth-format stand-ins.
    depth_compared: HashSet<(u32, u32)>,
}

impl Drop for Dummies {
    fn drop(&mut self) {
        // SAFETY: created by this device; the caller waited for the queue.
        unsafe {
            for s in self.samplers.values() {
                self.gpu_device.destroy_sampler(*s, None);
            }
        }
    }
}

impl Dummies {
    /// Makes one resource per register any of `mods` uses; the first module naming a register
    /// decides its shape.
    pub fn new(gpu: &Gpu, mods: &[&translator::Translation]) -> Result<Dummies, String> {
        let mut d = Dummies {
            gpu_device: gpu.device.clone(),
            resources: HashMap::new(),
            samplers: HashMap::new(),
            cbuffers: HashMap::new(),
            depth_compared: HashSet::new(),
        };
        for m in mods {
            d.depth_compared.extend(depth_compared(m)?);
        }
        for r in mods.iter().map(|m| &m.reflection) {
            for desc in &r.descriptors {
                let o = &desc.origin;
                // Unbounded ranges get their first register only.
                let upper = o.upper.unwrap_or(o.lower).min(o.lower.saturating_add(63));
                for reg in o.lower..=upper {
                    d.add(gpu, o.class, o.space, reg, &desc.shape, desc.writable)?;
                }
            }
        }
        Ok(d)
    }

    /// What [`crate::vk::bind::bind`] binds from.
    pub fn sources(&mut self) -> BindSources<'_> {
        BindSources {
            resources: &mut self.resources,
            samplers: &self.samplers,
            cbuffers: &self.cbuffers,
            descriptors: &[],
            d3d9_state: None,
        }
    }

    fn add(
        &mut self,
        gpu: &Gpu,
        class: RegisterClass,
        space: u32,
        reg: u32,
        shape: &ResourceShape,
        writable: bool,
    ) -> Result<(), String> {
        match (class, shape) {
            (RegisterClass::B, ResourceShape::ConstantBuffer { size_bytes }) => {
                let words = (size_bytes / 4).max(4) as usize;
                self.cbuffers.entry((space, reg)).or_insert(vec![3; words]);
            }
            (RegisterClass::B, _) => {
                self.cbuffers.entry((space, reg)).or_insert(vec![3; 1024]);
            }
            (RegisterClass::S, s) => {
                if self.samplers.contains_key(&(space, reg)) {
                    return Ok(());
                }
                let mut decl = SamplerDecl::new(reg);
                decl.space = space;
                decl.linear = [true; 3];
                if matches!(s, ResourceShape::Sampler { comparison: true }) {
                    decl.compare = Some(crate::parse::CompareFunc::Less);
                }
                self.samplers
                    .insert((space, reg), create_sampler(gpu, &decl)?);
            }
            (RegisterClass::T | RegisterClass::U, shape) => {
                let kind = if class == RegisterClass::U {
                    ResourceKind::Uav
                } else {
                    ResourceKind::Srv
                };
                if self.resources.contains_key(&(kind, space, reg)) {
                    return Ok(());
                }
                let Some(mut decl) = resource_decl(kind, space, reg, shape, writable) else {
                    return Ok(());
                };
                if kind == ResourceKind::Srv && self.depth_compared.contains(&(space, reg)) {
                    // One channel of depth: a quarter of the words, each 0.5.
                    decl.format = format("r32-float-shadow");
                    decl.data.truncate(decl.data.len() / 4);
                }
                let r = TestResource::create(gpu, &decl)
                    .map_err(|e| format!("{}{reg}: {e}", class.letter()))?;
                self.resources.insert((kind, space, reg), r);
            }
        }
        Ok(())
    }
}

fn format(name: &str) -> Format {
    Format::by_name(name).expect("a format vk-runner knows")
}

/// The declaration of a stand-in for a `t#`/`u#` register; None for UAV counters (the binder
/// makes those itself).
fn resource_decl(
    kind: ResourceKind,
    space: u32,
    slot: u32,
    shape: &ResourceShape,
    writable: bool,
) -> Option<ResourceDecl> {
    let ones = |n: u32| vec![1u32; n as usize];
    let (fmt, stride, dims, data) = match *shape {
        ResourceShape::RawBuffer => (
            format("r32-uint"),
            None,
            Dimensions::RawBuffer {
                bytes: ELEMENTS * 16,
            },
            ones(ELEMENTS * 4),
        ),
        ResourceShape::StructuredBuffer { stride } => (
            format("r32-uint"),
            Some(stride.max(4)),
            Dimensions::Buffer { elements: ELEMENTS },
            ones(ELEMENTS * stride.max(4) / 4),
        ),
        ResourceShape::Image {
            dim, return_type, ..
        } => {
            // Integer UAVs may take atomics, which need a one-channel 32-bit format.
            let (fmt, word) = match (return_type, writable) {
                (ReturnType::Uint, true) => (format("r32-uint"), 1),
                (ReturnType::Sint, true) => (format("r32-sint"), 1),
                (ReturnType::Uint, false) => (format("r32g32b32a32-uint"), 1),
                (ReturnType::Sint, false) => (format("r32g32b32a32-sint"), 1),
                _ => (format("r32g32b32a32-float"), 0.5f32.to_bits()),
            };
            let (dims, texels) = match dim {
                ResourceDim::Buffer => (Dimensions::Buffer { elements: ELEMENTS }, ELEMENTS),
                ResourceDim::Texture1D | ResourceDim::Texture2D => (
                    Dimensions::Tex2d {
                        width: TEX,
                        height: TEX,
                    },
                    TEX * TEX,
                ),
                ResourceDim::Texture2DMS | ResourceDim::Texture2DMSArray => (
                    Dimensions::Tex2dMs {
                        samples: 4,
                        width: TEX,
                        height: TEX,
                    },
                    0,
                ),
                ResourceDim::Texture1DArray | ResourceDim::Texture2DArray => (
                    Dimensions::Tex2dArray {
                        width: TEX,
                        height: TEX,
                        layers: 4,
                    },
                    TEX * TEX * 4,
                ),
                ResourceDim::Texture3D => (
                    Dimensions::Tex3d {
                        width: 64,
                        height: 64,
                        depth: 64,
                    },
                    64 * 64 * 64,
                ),
                ResourceDim::TextureCube | ResourceDim::TextureCubeArray => {
                    (Dimensions::Cube { size: 64 }, 64 * 64 * 6)
                }
            };
            let words = texels * fmt.texel_size / 4;
            (fmt, None, dims, vec![word; words as usize])
        }
        ResourceShape::Counter
        | ResourceShape::ConstantBuffer { .. }
        | ResourceShape::ImmediateConstantBuffer { .. }
        | ResourceShape::Sampler { .. } => {
            return None;
        }
    };
    Some(ResourceDecl {
        kind,
        slot,
        space,
        format: fmt,
        explicit_format: true,
        stride,
        dims,
        levels: 1,
        data,
    })
}

/// The `t#` registers (space, register) a module samples with depth comparison (the image of
/// an `OpImage*Dref*`), found by following the sampled image back to its variable's binding.
fn depth_compared(m: &translator::Translation) -> Result<HashSet<(u32, u32)>, String> {
    let module = rspirv::dr::load_words(&m.spirv).map_err(|e| format!("SPIR-V: {e}"))?;
    let mut defs: HashMap<u32, &Instruction> = HashMap::new();
    for f in &module.functions {
        for b in &f.blocks {
            for i in &b.instructions {
                if let Some(id) = i.result_id {
                    defs.insert(id, i);
                }
            }
        }
    }
    let mut bindings: HashMap<u32, u32> = HashMap::new();
    let mut sets: HashMap<u32, u32> = HashMap::new();
    for a in &module.annotations {
        if let [
            Operand::IdRef(id),
            Operand::Decoration(d),
            Operand::LiteralBit32(v),
            ..,
        ] = a.operands[..]
        {
            match d {
                Decoration::Binding => {
                    bindings.insert(id, v);
                }
                Decoration::DescriptorSet => {
                    sets.insert(id, v);
                }
                _ => {}
            }
        }
    }
    // Walks from a value back to the variable it was loaded from.
    let variable = |mut id: u32| -> Option<u32> {
        for _ in 0..16 {
            match defs.get(&id) {
                None => return Some(id), // a global: the variable itself
                Some(i) => {
                    id = i.operands.iter().find_map(|o| match o {
                        Operand::IdRef(x) => Some(*x),
                        _ => None,
                    })?;
                }
            }
        }
        None
    };
    let mut out = HashSet::new();
    for f in &module.functions {
        for b in &f.blocks {
            for i in &b.instructions {
                let dref = matches!(
                    i.class.opcode,
                    Op::ImageSampleDrefImplicitLod
                        | Op::ImageSampleDrefExplicitLod
                        | Op::ImageSampleProjDrefImplicitLod
                        | Op::ImageSampleProjDrefExplicitLod
                        | Op::ImageDrefGather
                        | Op::ImageSparseSampleDrefImplicitLod
                        | Op::ImageSparseSampleDrefExplicitLod
                        | Op::ImageSparseDrefGather
                );
                let Some(Operand::IdRef(sampled)) = i.operands.first().filter(|_| dref) else {
                    continue;
                };
                // OpSampledImage's first operand is the image.
                let Some(image) = defs.get(sampled).and_then(|s| match s.operands.first() {
                    Some(Operand::IdRef(x)) if s.class.opcode == Op::SampledImage => Some(*x),
                    _ => None,
                }) else {
                    continue;
                };
                let Some(var) = variable(image) else { continue };
                let Some(&binding) = bindings.get(&var) else {
                    continue;
                };
                let set = sets.get(&var).copied().unwrap_or(0);
                for d in &m.reflection.descriptors {
                    if d.set == set && d.binding == binding && d.origin.class == RegisterClass::T {
                        let o = &d.origin;
                        let upper = o.upper.unwrap_or(o.lower).min(o.lower.saturating_add(63));
                        out.extend((o.lower..=upper).map(|r| (o.space, r)));
                    }
                }
            }
        }
    }
    Ok(out)
}
