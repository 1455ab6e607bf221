//! The binding plan of a program: before the first resource declaration is lowered, every
//! declared register range (and UAV counter) is collected and placed at once, because some
//! policies number bindings over the whole program. Declarations precede the code, so the
//! scan stops at the first executable instruction. The same single pass over the program
//! records how each UAV is used (counter, atomics, typed loads and stores), which the
//! declarations need and which would otherwise cost a scan of the program per UAV.

use rustc_hash::FxHashMap as HashMap;

use super::super::{Lowerer, R};
use crate::binding::{Placement, RangeRequest};
use crate::lower::LowerError;
use crate::reflect::{DescriptorType, RegisterClass};
use crate::sm4::{Declaration, Opcode, OperandType, ResourceDimension};

/// The program uses the UAV's hidden counter.
pub(crate) const USES_COUNTER: u8 = 1;
/// The program runs atomics on the UAV.
pub(crate) const USES_ATOMIC: u8 = 2;
/// The program reads the typed UAV (`ld_uav_typed`).
pub(crate) const USES_TYPED_LOAD: u8 = 4;
/// The program writes the typed UAV (`store_uav_typed`).
pub(crate) const USES_TYPED_STORE: u8 = 8;

/// The range ID the plan gives the immediate constant buffer's uniform buffer
/// ([`crate::IcbMode::UniformBuffer`]), beside the program's constant buffers.
pub(crate) const ICB_ID: u32 = u32::MAX;

/// Placements of every declared range, by (class, range ID, counter).
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub ready: bool,
    places: HashMap<(RegisterClass, u32, bool), Placement>,
    /// `USES_*` bits by UAV range ID.
    pub uav_usage: HashMap<u32, u8>,
    /// Raw and structured SRVs (range IDs) read as R32_UINT uniform texel buffers, because
    /// the program reads them with residency feedback ([`crate::RawFeedback::TexelBuffer`])
    /// or the options make every such SRV one ([`crate::TexelBuffers::raw_srv`]).
    pub texel_srvs: rustc_hash::FxHashSet<u32>,
    /// `build_plan`'s lists, kept (emptied) for the next program: the declared ranges, and
    /// the requests in order with what each stands for.
    scratch: PlanScratch,
}

/// The lists `build_plan` fills; their allocations serve the next program.
#[derive(Debug, Default)]
struct PlanScratch {
    /// (request, range ID, offset, may have a counter, counter flag) per declaration.
    decls: Vec<(RangeRequest, u32, usize, bool, bool)>,
    requests: Vec<RangeRequest>,
    /// (range ID, is the counter, offset) per request.
    meta: Vec<(u32, bool, usize)>,
}

impl Plan {
    /// Empties this plan in place for the next program (what `default()` makes), keeping its
    /// maps' allocations.
    pub fn recycle(&mut self) {
        let Plan {
            ready,
            places,
            uav_usage,
            texel_srvs,
            scratch,
        } = self;
        *ready = false;
        places.clear();
        uav_usage.clear();
        texel_srvs.clear();
        scratch.decls.clear();
        scratch.requests.clear();
        scratch.meta.clear();
    }

    pub fn placement(&self, class: RegisterClass, id: u32, counter: bool) -> Option<Placement> {
        self.places.get(&(class, id, counter)).copied()
    }

    /// The push-constant byte offsets of every placement's dynamic offset, sorted, each once.
    pub fn dynamic_offsets(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .places
            .values()
            .filter_map(|p| match *p {
                Placement::Descriptor { dynamic_offset, .. } => dynamic_offset,
                Placement::PushConstant { .. } => None,
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Register class and Vulkan descriptor type of a resource declaration; `None` for other
/// declarations.
pub(crate) fn descriptor_kind(decl: &Declaration) -> Option<(RegisterClass, DescriptorType)> {
    let buffer = |d: &ResourceDimension| matches!(d, ResourceDimension::Buffer);
    Some(match decl {
        Declaration::ConstantBuffer { .. } => (RegisterClass::B, DescriptorType::UniformBuffer),
        Declaration::Sampler { .. } => (RegisterClass::S, DescriptorType::Sampler),
        Declaration::Resource { dim, .. } if buffer(dim) => {
            (RegisterClass::T, DescriptorType::UniformTexelBuffer)
        }
        Declaration::Resource { .. } => (RegisterClass::T, DescriptorType::SampledImage),
        Declaration::ResourceRaw { .. } | Declaration::ResourceStructured { .. } => {
            (RegisterClass::T, DescriptorType::StorageBuffer)
        }
        Declaration::UavTyped { dim, .. } if buffer(dim) => {
            (RegisterClass::U, DescriptorType::StorageTexelBuffer)
        }
        Declaration::UavTyped { .. } => (RegisterClass::U, DescriptorType::StorageImage),
        Declaration::UavRaw { .. } | Declaration::UavStructured { .. } => {
            (RegisterClass::U, DescriptorType::StorageBuffer)
        }
        _ => return None,
    })
}

fn decl_space(decl: &Declaration) -> Option<u32> {
    match decl {
        Declaration::ConstantBuffer { space, .. }
        | Declaration::Sampler { space, .. }
        | Declaration::Resource { space, .. }
        | Declaration::ResourceRaw { space }
        | Declaration::ResourceStructured { space, .. }
        | Declaration::UavTyped { space, .. }
        | Declaration::UavRaw { space, .. }
        | Declaration::UavStructured { space, .. } => *space,
        _ => None,
    }
}

fn usage_bit(op: Opcode) -> u8 {
    use Opcode as O;
    match op {
        O::ImmAtomicAlloc | O::ImmAtomicConsume => USES_COUNTER,
        op if op.is_atomic() => USES_ATOMIC,
        O::LdUavTyped | O::LdUavTypedS => USES_TYPED_LOAD,
        O::StoreUavTyped => USES_TYPED_STORE,
        _ => 0,
    }
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// Builds the plan on first use.
    pub(super) fn ensure_plan(&mut self) -> R<()> {
        if self.res.plan.ready {
            return Ok(());
        }
        let saved = (self.offset, self.opcode);
        let r = self.build_plan();
        (self.offset, self.opcode) = saved;
        r
    }

    fn build_plan(&mut self) -> R<()> {
        let prog = self.prog;
        // Declarations first: (request, range ID, offset, may have a counter, counter flag).
        // The kept lists, empty (`Plan::recycle`), are taken and given back at the end (lost
        // only on an error).
        let PlanScratch {
            mut decls,
            mut requests,
            mut meta,
        } = std::mem::take(&mut self.res.plan.scratch);
        // Resources are declared before the first instruction (in a hull shader, before
        // the first phase's code); a declaration after it is refused when it is lowered.
        for inst in prog.iter() {
            let Some(decl) = inst.decl() else {
                if matches!(
                    inst.opcode,
                    Opcode::HsDecls
                        | Opcode::HsControlPointPhase
                        | Opcode::HsForkPhase
                        | Opcode::HsJoinPhase
                ) {
                    continue;
                }
                if let Some(cd) = inst.custom_data() {
                    if let (crate::IcbMode::UniformBuffer { space, register }, true) = (
                        self.opts.icb,
                        cd.class == crate::sm4::CustomDataClass::ImmediateConstantBuffer,
                    ) {
                        let req = RangeRequest {
                            class: RegisterClass::B,
                            space,
                            lower: register,
                            upper: Some(register),
                            counter: false,
                            descriptor_type: DescriptorType::UniformBuffer,
                        };
                        decls.push((req, ICB_ID, inst.offset, false, false));
                    }
                    continue;
                }
                break;
            };
            if matches!(decl, Declaration::Interface { .. }) {
                // Interfaces read the class-instance buffer (lower/classes.rs), placed like
                // a constant buffer at its reserved register.
                let reg = crate::reflect::CLASS_INSTANCE_REGISTER;
                if !decls
                    .iter()
                    .any(|d| d.1 == reg && d.0.class == RegisterClass::B)
                {
                    let req = RangeRequest {
                        class: RegisterClass::B,
                        space: 0,
                        lower: reg,
                        upper: Some(reg),
                        counter: false,
                        descriptor_type: DescriptorType::UniformBuffer,
                    };
                    decls.push((req, reg, inst.offset, false, false));
                }
                continue;
            }
            let Some((class, descriptor_type)) = descriptor_kind(decl) else {
                continue;
            };
            let Some(op) = inst.operands.first() else {
                continue;
            };
            self.at(&inst);
            let (id, range) = self.declared_range(op, decl_space(decl))?;
            let (buffer_uav, flagged) = match decl {
                Declaration::UavStructured { flags, .. } | Declaration::UavRaw { flags, .. } => {
                    (true, flags.has_counter)
                }
                _ => (false, false),
            };
            let req = RangeRequest {
                class,
                space: range.space,
                lower: range.lower,
                upper: range.upper,
                counter: false,
                descriptor_type,
            };
            decls.push((req, id, inst.offset, buffer_uav, flagged));
        }
        // The ICB's uniform buffer must not share a register with a declared constant buffer.
        if let Some(icb) = decls
            .iter()
            .find(|d| d.1 == ICB_ID && d.0.class == RegisterClass::B)
        {
            let (r, at) = (icb.0, icb.2);
            if let Some(cb) = decls.iter().find(|d| {
                d.1 != ICB_ID
                    && d.0.class == RegisterClass::B
                    && d.0.space == r.space
                    && d.0.lower <= r.lower
                    && d.0.upper.is_none_or(|u| u >= r.lower)
            }) {
                self.offset = at.max(cb.2);
                return Err(self.invalid(format!(
                    "the immediate constant buffer's uniform buffer (IcbMode::UniformBuffer) is b{} in space {}, which the program declares",
                    r.lower, r.space
                )));
            }
        }
        // How UAVs are used, and which raw/structured SRVs are read with residency feedback:
        // one pass over the program, only when it has UAVs or such SRVs.
        // The kept plan's maps (emptied by `Plan::recycled`), their allocations reused.
        let mut usage = std::mem::take(&mut self.res.plan.uav_usage);
        usage.clear();
        let mut texel_srvs = std::mem::take(&mut self.res.plan.texel_srvs);
        texel_srvs.clear();
        let texel = self.opts.texel_buffers;
        let feedback_srvs = self.opts.raw_feedback == crate::RawFeedback::TexelBuffer
            && !texel.raw_srv
            && decls.iter().any(|d| {
                d.0.class == RegisterClass::T
                    && d.0.descriptor_type == DescriptorType::StorageBuffer
            });
        if decls.iter().any(|d| d.0.class == RegisterClass::U) || feedback_srvs {
            for inst in prog.iter() {
                if feedback_srvs
                    && matches!(inst.opcode, Opcode::LdRawS | Opcode::LdStructuredS)
                    && inst
                        .operands
                        .get(1)
                        .is_some_and(|o| o.ty != OperandType::Null)
                    && let Some(res) = inst.operands.last()
                    && res.ty == OperandType::Resource
                    && let Some(i) = res.index(0)
                {
                    texel_srvs.insert(i.imm32());
                }
                let bit = usage_bit(inst.opcode);
                if bit == 0 {
                    continue;
                }
                for o in inst.operands {
                    if o.ty == OperandType::UnorderedAccessView
                        && let Some(i) = o.index(0)
                    {
                        *usage.entry(i.imm32()).or_default() |= bit;
                    }
                }
            }
        }
        // Raw and structured views the options make texel buffers (`Options::texel_buffers`).
        for d in decls.iter_mut() {
            match (d.0.class, d.0.descriptor_type) {
                (RegisterClass::T, DescriptorType::StorageBuffer) if texel.raw_srv => {
                    texel_srvs.insert(d.1);
                }
                (RegisterClass::U, DescriptorType::StorageBuffer) if texel.raw_uav => {
                    d.0.descriptor_type = DescriptorType::StorageTexelBuffer;
                }
                _ => {}
            }
            if d.0.class == RegisterClass::T && texel_srvs.contains(&d.1) {
                d.0.descriptor_type = DescriptorType::UniformTexelBuffer;
            }
        }
        // Requests in declaration order, each UAV counter right after its UAV.
        for &(req, id, offset, buffer_uav, flagged) in &decls {
            requests.push(req);
            meta.push((id, false, offset));
            let used = usage.get(&id).is_some_and(|u| u & USES_COUNTER != 0);
            if buffer_uav && (flagged || used) {
                requests.push(RangeRequest {
                    counter: true,
                    descriptor_type: if texel.uav_counter {
                        DescriptorType::StorageTexelBuffer
                    } else {
                        DescriptorType::StorageBuffer
                    },
                    ..req
                });
                meta.push((id, true, offset));
            }
        }
        let places = self.opts.binding.place_all(&requests).map_err(|error| {
            let offset = requests
                .iter()
                .zip(&meta)
                .find(|(r, _)| {
                    r.class.letter() == error.class
                        && r.space == error.space
                        && r.lower == error.register
                })
                .map_or(self.offset, |(_, m)| m.2);
            LowerError::Binding { error, offset }
        })?;
        let mut map = std::mem::take(&mut self.res.plan.places);
        map.clear();
        map.reserve(places.len());
        for ((r, &(id, counter, offset)), p) in requests.iter().zip(&meta).zip(places) {
            if map.insert((r.class, id, counter), p).is_some() {
                self.offset = offset;
                self.opcode = self
                    .prog
                    .iter()
                    .find(|i| i.offset == offset)
                    .map(|i| i.opcode);
                return Err(self.invalid(format!("{}{id} is declared twice", r.class.letter())));
            }
        }
        let plan = &mut self.res.plan;
        plan.places = map;
        plan.uav_usage = usage;
        plan.texel_srvs = texel_srvs;
        plan.scratch = PlanScratch {
            decls,
            requests,
            meta,
        };
        plan.ready = true;
        Ok(())
    }

    /// `USES_*` bits of UAV `id`.
    pub(super) fn uav_usage(&self, id: u32) -> u8 {
        self.res.plan.uav_usage.get(&id).copied().unwrap_or(0)
    }
}
