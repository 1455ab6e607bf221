//! What a scan reports of a DXBC (Shader Model 4.0–5.1) shader, read with the translator
//! crate's decoder: each declared constant buffer, sampler, SRV and UAV as a descriptor
//! (space, first register, count, resource type, the first component's return type), the flags
//! its use earns (UAV read, atomics and counter; raw buffers; comparison samplers), the
//! resource-sampler pairs the instructions use, the hull shader's tessellator output and
//! partitioning, and the compute shader's thread-group size. The rules are vkd3d-shader's
//! scan's, so that a caller (libvkd3d finds UAV counters this way) sees what the real library
//! would report, without the real library's parser reaching a shader it may not read.

use translator::container::Container;
use translator::sm4::{self, Declaration, Opcode, OperandType, ResourceDimension, ReturnType};

use super::Scanned;
use crate::abi;
use crate::report::Failure;

/// One descriptor, with the ID instructions name it by (the register before SM5.1, the range
/// ID from SM5.1 on).
struct Found {
    id: u32,
    info: abi::DescriptorInfo,
}

fn data_type(t: ReturnType) -> u32 {
    match t {
        ReturnType::Unused => abi::RESOURCE_DATA_NONE,
        // Unorm 1 … Continued 8: vkd3d's values are DXBC's.
        t => t as u32,
    }
}

/// The register range of a declaration's operand: (first, count).
fn range(op: &sm4::Operand, sm51: bool, at: usize) -> Result<(u32, u32), Failure> {
    let bad = |why: &str| Failure::invalid_shader(format!("at byte offset {at:#x}: {why}"));
    if sm51 {
        let lo = op.index(1).and_then(|i| i.as_immediate());
        let hi = op.index(2).and_then(|i| i.as_immediate());
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return Err(bad("an SM5.1 declaration without a register range"));
        };
        let (lo, hi) = (lo as u32, hi as u32);
        if hi == u32::MAX {
            return Ok((lo, u32::MAX));
        }
        if hi < lo {
            return Err(bad(&format!("register range {lo}..{hi} is empty")));
        }
        Ok((lo, hi - lo + 1))
    } else {
        let r = op
            .register()
            .ok_or_else(|| bad("a declaration without a register"))?;
        Ok((r, 1))
    }
}

/// Scans DXBC `bytes`. `sampler_uint`: report samplers' data type as `UINT` (API 1.15 and
/// older) instead of `NONE`.
pub fn scan(bytes: &[u8], sampler_uint: bool) -> Result<Scanned, Failure> {
    let container =
        Container::parse(bytes).map_err(|e| Failure::invalid_shader(format!("container: {e}")))?;
    let chunk = container
        .shader_chunk()
        .ok_or_else(|| Failure::invalid_shader("the DXBC container has no SHDR or SHEX chunk"))?;
    let program = sm4::decode(chunk.data, chunk.offset)
        .map_err(|e| Failure::invalid_shader(e.to_string()))?;
    let sm51 = program.version.is_sm51();
    let mut out = Scanned::default();
    let mut found: Vec<Found> = Vec::new();
    for inst in program.iter() {
        let Some(decl) = inst.decl() else { continue };
        let at = inst.offset;
        let (ty, resource_type, data, flags) = match decl {
            Declaration::ConstantBuffer { .. } => (
                abi::DESCRIPTOR_TYPE_CBV,
                abi::RESOURCE_BUFFER,
                abi::RESOURCE_DATA_UINT,
                0,
            ),
            Declaration::Sampler { mode, .. } => (
                abi::DESCRIPTOR_TYPE_SAMPLER,
                abi::RESOURCE_NONE,
                if sampler_uint {
                    abi::RESOURCE_DATA_UINT
                } else {
                    abi::RESOURCE_DATA_NONE
                },
                if *mode == sm4::SamplerMode::Comparison {
                    abi::DESCRIPTOR_INFO_FLAG_SAMPLER_COMPARISON_MODE
                } else {
                    0
                },
            ),
            Declaration::Resource {
                dim, return_type, ..
            } => (
                abi::DESCRIPTOR_TYPE_SRV,
                resource_type(*dim),
                data_type(return_type.types[0]),
                0,
            ),
            Declaration::UavTyped {
                dim, return_type, ..
            } => (
                abi::DESCRIPTOR_TYPE_UAV,
                resource_type(*dim),
                data_type(return_type.types[0]),
                0,
            ),
            Declaration::ResourceRaw { .. } | Declaration::UavRaw { .. } => (
                if matches!(decl, Declaration::UavRaw { .. }) {
                    abi::DESCRIPTOR_TYPE_UAV
                } else {
                    abi::DESCRIPTOR_TYPE_SRV
                },
                abi::RESOURCE_BUFFER,
                abi::RESOURCE_DATA_UINT,
                abi::DESCRIPTOR_INFO_FLAG_RAW_BUFFER,
            ),
            Declaration::ResourceStructured { .. } | Declaration::UavStructured { .. } => (
                if matches!(decl, Declaration::UavStructured { .. }) {
                    abi::DESCRIPTOR_TYPE_UAV
                } else {
                    abi::DESCRIPTOR_TYPE_SRV
                },
                abi::RESOURCE_BUFFER,
                abi::RESOURCE_DATA_UINT,
                0,
            ),
            Declaration::TessOutputPrimitive(p) => {
                out.output_primitive = *p as u32;
                continue;
            }
            Declaration::TessPartitioning(p) => {
                out.partitioning = *p as u32;
                continue;
            }
            Declaration::ThreadGroup(size) => {
                out.thread_group = *size;
                continue;
            }
            _ => continue,
        };
        let op = inst.operands.first().ok_or_else(|| {
            Failure::invalid_shader(format!(
                "at byte offset {at:#x}: a declaration without its register"
            ))
        })?;
        let (first, count) = range(op, sm51, at)?;
        found.push(Found {
            id: op.register().unwrap_or(first),
            info: abi::DescriptorInfo {
                ty,
                register_space: decl.space().unwrap_or(0),
                register_index: first,
                resource_type,
                resource_data_type: data,
                flags,
                count,
            },
        });
    }
    for inst in program.iter() {
        uav_flags(&inst, &mut found);
        if let Some((resource, sampler)) = sampler_use(&inst) {
            pair(&mut out.combined, &found, resource, sampler, sm51);
        }
    }
    out.descriptors = found.into_iter().map(|f| f.info).collect();
    Ok(out)
}

/// vkd3d's resource type of a dimension (raw and structured buffers are buffers).
fn resource_type(dim: ResourceDimension) -> u32 {
    match dim {
        ResourceDimension::RawBuffer | ResourceDimension::StructuredBuffer => abi::RESOURCE_BUFFER,
        // Unknown 0 … TextureCubeArray 10: vkd3d's values are DXBC's.
        d => d as u32,
    }
}

/// Sets a UAV descriptor's flags from one instruction: read (atomics, counters, typed, raw
/// and structured loads), atomics (the UAV an atomic writes) and counter
/// (`imm_atomic_alloc`/`consume`).
fn uav_flags(inst: &sm4::InstRef<'_>, found: &mut [Found]) {
    use Opcode as O;
    let op = inst.opcode;
    let counter = matches!(op, O::ImmAtomicAlloc | O::ImmAtomicConsume);
    let atomic = counter || op.is_atomic();
    let read = atomic
        || matches!(op, O::LdUavTyped | O::LdUavTypedS)
        || (matches!(
            op,
            O::LdRaw | O::LdRawS | O::LdStructured | O::LdStructuredS
        ) && inst
            .srcs()
            .iter()
            .any(|o| o.ty == OperandType::UnorderedAccessView));
    let mut flag = |o: &sm4::Operand, f: u32| {
        if o.ty != OperandType::UnorderedAccessView {
            return;
        }
        let Some(id) = o.register() else { return };
        if let Some(d) = found
            .iter_mut()
            .find(|d| d.info.ty == abi::DESCRIPTOR_TYPE_UAV && d.id == id)
        {
            d.info.flags |= f;
        }
    };
    if read {
        for o in inst.dsts().iter().chain(inst.srcs()) {
            flag(o, abi::DESCRIPTOR_INFO_FLAG_UAV_READ);
        }
    }
    if atomic {
        for o in inst.dsts() {
            flag(o, abi::DESCRIPTOR_INFO_FLAG_UAV_ATOMICS);
        }
    }
    if counter && let Some(o) = inst.srcs().first() {
        flag(o, abi::DESCRIPTOR_INFO_FLAG_UAV_COUNTER);
    }
}

/// The resource and sampler operands of an instruction that reads a resource: sampling and
/// gathers name both; loads, size and sample-count queries of an SRV only the resource.
fn sampler_use<'a>(
    inst: &'a sm4::InstRef<'a>,
) -> Option<(&'a sm4::Operand, Option<&'a sm4::Operand>)> {
    use Opcode as O;
    let s = inst.srcs();
    let srv = |o: &'a sm4::Operand| (o.ty == OperandType::Resource).then_some((o, None));
    match inst.opcode {
        O::Sample
        | O::SampleB
        | O::SampleC
        | O::SampleCLz
        | O::SampleD
        | O::SampleL
        | O::Gather4
        | O::Gather4C
        | O::Gather4S
        | O::Gather4CS
        | O::SampleLS
        | O::SampleCLzS
        | O::SampleClampS
        | O::SampleBClampS
        | O::SampleDClampS
        | O::SampleCClampS => Some((s.get(1)?, Some(s.get(2)?))),
        O::Gather4Po | O::Gather4PoC | O::Gather4PoS | O::Gather4PoCS => {
            Some((s.get(2)?, Some(s.get(3)?)))
        }
        O::Ld | O::LdMs | O::LdS | O::LdMsS => Some((s.get(1)?, None)),
        O::BufInfo | O::SampleInfo => srv(s.first()?),
        O::LdRaw | O::LdRawS | O::ResInfo => srv(s.get(1)?),
        O::LdStructured | O::LdStructuredS => srv(s.get(2)?),
        _ => None,
    }
}

/// Records a resource-sampler pair once: registers as the instruction names them (SM5.1: the
/// register within its range's space; a dynamically indexed one is not recorded), the sampler
/// `VKD3D_SHADER_DUMMY_SAMPLER_INDEX` when there is none.
fn pair(
    out: &mut Vec<abi::CombinedResourceSamplerInfo>,
    found: &[Found],
    resource: &sm4::Operand,
    sampler: Option<&sm4::Operand>,
    sm51: bool,
) {
    let reg = |o: &sm4::Operand| -> Option<u32> {
        let i = if sm51 { 1 } else { 0 };
        o.index(i)?.as_immediate().map(|v| v as u32)
    };
    let space = |o: &sm4::Operand, ty: u32| -> u32 {
        if !sm51 {
            return 0;
        }
        o.register()
            .and_then(|id| found.iter().find(|d| d.info.ty == ty && d.id == id))
            .map_or(0, |d| d.info.register_space)
    };
    let Some(resource_index) = reg(resource) else {
        return;
    };
    let (sampler_space, sampler_index) = match sampler {
        None => (0, abi::DUMMY_SAMPLER_INDEX),
        Some(s) => match reg(s) {
            Some(r) => (space(s, abi::DESCRIPTOR_TYPE_SAMPLER), r),
            None => return,
        },
    };
    let p = abi::CombinedResourceSamplerInfo {
        resource_space: space(resource, abi::DESCRIPTOR_TYPE_SRV),
        resource_index,
        sampler_space,
        sampler_index,
    };
    if !out.contains(&p) {
        out.push(p);
    }
}
