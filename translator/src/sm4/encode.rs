//! Encoding a [`Program`] back into SM4/5 tokens.
//!
//! The inverse of the decoder: every field of the decoded form (reserved bits included) maps
//! back to the bits it came from, so `encode(decode(x)) == x` for every well-formed chunk.
//! An assembler builds a `Program` from text and calls [`encode`]; inconsistent programs
//! (an operand count that does not match the opcode, a payload of the wrong kind, an
//! instruction longer than 127 dwords without the long-length form) are reported, not
//! silently mis-encoded.

use super::decl::{Declaration, NameToken, ReturnTypeToken, UavFlags};
use super::enums::ReturnType;
use super::instruction::{InstData, Instruction, OpControl, Program, Version};
use super::opcodes::{Control, DeclKind, Layout, Opcode};
use super::operand::Operand;

/// An instruction that cannot be encoded as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("instruction {index} ({opcode}): {what}")]
pub struct EncodeError {
    /// Index of the instruction in the program.
    pub index: usize,
    pub opcode: &'static str,
    pub what: String,
}

/// Encodes a program into its dwords (version and length tokens included).
pub fn encode(program: &Program) -> Result<Vec<u32>, EncodeError> {
    let mut out = Vec::with_capacity(program.operands.len() * 3 + program.instructions.len() + 2);
    out.push(program.version.to_token());
    out.push(0);
    for (index, inst) in program.instructions.iter().enumerate() {
        let range = inst.operand_range.start as usize..inst.operand_range.end as usize;
        if program.operands.get(range).is_none() {
            return Err(EncodeError {
                index,
                opcode: inst.opcode.name(),
                what: format!(
                    "operand range {:?} is outside the operand array",
                    inst.operand_range
                ),
            });
        }
        encode_instruction(
            program.version,
            inst,
            program.operands_of(inst),
            &program.relative,
            &mut out,
        )
        .map_err(|what| EncodeError {
            index,
            opcode: inst.opcode.name(),
            what,
        })?;
    }
    out[1] = out.len() as u32;
    Ok(out)
}

/// Encodes a program into chunk bytes: its dwords, then `program.trailing`.
pub fn encode_chunk(program: &Program) -> Result<Vec<u8>, EncodeError> {
    let words = encode(program)?;
    let mut bytes = Vec::with_capacity(words.len() * 4 + program.trailing.len());
    for w in words {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    bytes.extend_from_slice(&program.trailing);
    Ok(bytes)
}

/// Appends one instruction's dwords to `out`.
pub fn encode_instruction(
    version: Version,
    inst: &Instruction,
    operands: &[Operand],
    relative: &[Operand],
    out: &mut Vec<u32>,
) -> Result<(), String> {
    let start = out.len();
    let info = inst.info();

    if let Layout::CustomData = info.layout {
        let InstData::CustomData(custom) = &inst.data else {
            return Err("customdata without a custom-data payload".into());
        };
        out.push(Opcode::CustomData as u32 | custom.class.to_u32() << 11);
        out.push(2 + custom.data.len() as u32);
        out.extend_from_slice(&custom.data);
        if !inst.padding.is_empty() {
            return Err("custom data has no padding".into());
        }
        return Ok(());
    }

    out.push(0);
    if inst.long_length {
        out.push(0);
    }
    let ext_count = inst.ext.len();
    for (i, &token) in inst.ext.tokens().iter().enumerate() {
        let more = if i + 1 < ext_count { 0x8000_0000 } else { 0 };
        out.push(token | more);
    }

    let control = match info.layout {
        Layout::Fixed { dsts, srcs } => {
            if operands.len() != dsts as usize + srcs as usize {
                return Err(format!(
                    "has {} operands, expected {}",
                    operands.len(),
                    dsts + srcs
                ));
            }
            if !matches!(inst.data, InstData::None) {
                return Err("unexpected payload".into());
            }
            for op in operands {
                encode_operand(op, relative, out)?;
            }
            executable_control(info.control, inst)?
        }
        Layout::InterfaceCall => {
            let InstData::FunctionIndex(index) = inst.data else {
                return Err("fcall without a function index".into());
            };
            let [op] = operands else {
                return Err(format!("has {} operands, expected 1", operands.len()));
            };
            out.push(index);
            encode_operand(op, relative, out)?;
            executable_control(info.control, inst)?
        }
        Layout::Decl(kind) => {
            let InstData::Decl(decl) = &inst.data else {
                return Err("declaration without a declaration payload".into());
            };
            if inst.saturate || inst.precise != 0 || inst.control != OpControl::None {
                return Err("declarations have no saturate, precise or test controls".into());
            }
            encode_decl(kind, decl, version, operands, relative, out)?
        }
        Layout::CustomData => unreachable!(),
    };
    if control & inst.reserved_control != 0 || inst.reserved_control & !0x00ff_f800 != 0 {
        return Err(format!(
            "reserved control bits {:#x} overlap defined fields",
            inst.reserved_control
        ));
    }

    out.extend_from_slice(&inst.padding);
    let length = (out.len() - start) as u32;
    let length_field = if inst.long_length {
        out[start + 1] = length;
        0
    } else if length > 127 {
        return Err(format!(
            "{length} dwords long; more than 127 needs the long-length form"
        ));
    } else {
        length
    };
    let ext_bit = if ext_count > 0 { 0x8000_0000 } else { 0 };
    out[start] =
        inst.opcode as u32 | control | inst.reserved_control | length_field << 24 | ext_bit;
    Ok(())
}

fn executable_control(control: Control, inst: &Instruction) -> Result<u32, String> {
    let mut bits = (inst.precise as u32 & 0xf) << 19;
    if inst.precise > 0xf {
        return Err("precise mask has more than 4 bits".into());
    }
    if inst.saturate {
        if control == Control::Sync {
            return Err("sync cannot saturate".into());
        }
        bits |= 1 << 13;
    }
    bits |= match (control, inst.control) {
        (Control::Standard, OpControl::None) => 0,
        (Control::Test, OpControl::Test { nonzero }) => (nonzero as u32) << 18,
        (Control::ResInfo, OpControl::ResInfo(t)) => t.to_u32() << 11,
        (Control::SampleInfo, OpControl::SampleInfo { uint }) => (uint as u32) << 11,
        (Control::Sync, OpControl::Sync(flags)) if flags <= 0xf => flags << 11,
        (_, c) => return Err(format!("control {c:?} does not fit this opcode")),
    };
    Ok(bits)
}

fn return_type_bits(types: [ReturnType; 4]) -> u32 {
    types
        .iter()
        .enumerate()
        .fold(0, |acc, (i, t)| acc | t.to_u32() << (4 * i))
}

/// Appends an operand's tokens (and its relative index operands', taken from `relative`).
pub fn encode_operand(
    op: &Operand,
    relative: &[Operand],
    out: &mut Vec<u32>,
) -> Result<(), String> {
    if op.has_ext_content() && !op.extended {
        return Err("operand modifiers need an extended operand token".into());
    }
    let mut token = op.components.to_bits()
        | op.ty.to_u32() << 12
        | (op.index_dim() as u32) << 20
        | op.reserved
        | if op.extended { 0x8000_0000 } else { 0 };
    for (i, index) in op.indices().enumerate() {
        token |= index.repr.to_u32() << (22 + 3 * i);
    }
    out.push(token);
    if op.extended {
        out.push(
            1 | op.modifier.to_u32() << 6
                | op.min_precision.to_u32() << 14
                | (op.non_uniform as u32) << 17
                | op.ext_reserved,
        );
    }
    for index in op.indices() {
        match index.repr.immediate_dwords() {
            0 => {}
            1 => out.push(index.value as u32),
            _ => {
                out.push((index.value >> 32) as u32);
                out.push(index.value as u32);
            }
        }
        match (index.relative, index.repr.has_relative()) {
            (Some(i), true) => {
                let rel = relative
                    .get(i as usize)
                    .ok_or("relative operand out of range")?;
                encode_operand(rel, relative, out)?
            }
            (None, false) => {}
            _ => return Err("relative index part does not match its representation".into()),
        }
    }
    out.extend_from_slice(op.immediate_words());
    Ok(())
}

fn name_token(n: NameToken) -> u32 {
    n.name.to_u32() | (n.reserved as u32) << 16
}

fn return_type_token(t: ReturnTypeToken) -> u32 {
    return_type_bits(t.types) | (t.reserved as u32) << 16
}

fn uav_bits(flags: UavFlags) -> u32 {
    use super::enums::uav_flags as f;
    (if flags.globally_coherent {
        f::GLOBALLY_COHERENT
    } else {
        0
    }) | (if flags.rasterizer_ordered {
        f::RASTERIZER_ORDERED
    } else {
        0
    }) | (if flags.has_counter { f::HAS_COUNTER } else { 0 })
}

/// Writes a declaration's operand and dwords; returns its control bits.
fn encode_decl(
    kind: DeclKind,
    decl: &Declaration,
    version: Version,
    operands: &[Operand],
    relative: &[Operand],
    out: &mut Vec<u32>,
) -> Result<u32, String> {
    use Declaration as D;
    let sm51 = version.is_sm51();
    let expected_operands = match kind {
        DeclKind::Resource
        | DeclKind::ConstantBuffer
        | DeclKind::Sampler
        | DeclKind::IndexRange
        | DeclKind::Input
        | DeclKind::InputSgv
        | DeclKind::InputSiv
        | DeclKind::InputPs
        | DeclKind::InputPsSgv
        | DeclKind::InputPsSiv
        | DeclKind::Output
        | DeclKind::OutputSgv
        | DeclKind::OutputSiv
        | DeclKind::Stream
        | DeclKind::UavTyped
        | DeclKind::UavRaw
        | DeclKind::UavStructured
        | DeclKind::TgsmRaw
        | DeclKind::TgsmStructured
        | DeclKind::ResourceRaw
        | DeclKind::ResourceStructured => 1,
        _ => 0,
    };
    if operands.len() != expected_operands {
        return Err(format!(
            "has {} operands, expected {expected_operands}",
            operands.len()
        ));
    }
    for op in operands {
        encode_operand(op, relative, out)?;
    }
    let space = |space: &Option<u32>, out: &mut Vec<u32>| -> Result<(), String> {
        match (space, sm51) {
            (Some(s), true) => out.push(*s),
            (None, false) => {}
            _ => return Err("register space must be given exactly for SM5.1".into()),
        }
        Ok(())
    };
    let mismatch = || Err(format!("payload {decl:?} does not match the opcode"));
    let control = match (kind, decl) {
        (
            DeclKind::Resource,
            D::Resource {
                dim,
                sample_count,
                return_type,
                space: s,
            },
        ) => {
            if *sample_count != 0 && !dim.is_multisampled() || *sample_count > 127 {
                return Err("sample count given for a dimension without samples".into());
            }
            out.push(return_type_token(*return_type));
            space(s, out)?;
            dim.to_u32() << 11 | (*sample_count as u32) << 16
        }
        (
            DeclKind::ConstantBuffer,
            D::ConstantBuffer {
                dynamic_indexed,
                size,
                space: s,
            },
        ) => {
            match (size, sm51) {
                (Some(n), true) => out.push(*n),
                (None, false) => {}
                _ => {
                    return Err("constant buffer size dword must be given exactly for SM5.1".into());
                }
            }
            space(s, out)?;
            (*dynamic_indexed as u32) << 11
        }
        (DeclKind::Sampler, D::Sampler { mode, space: s }) => {
            space(s, out)?;
            mode.to_u32() << 11
        }
        (DeclKind::IndexRange, D::IndexRange { count }) => {
            out.push(*count);
            0
        }
        (DeclKind::GsOutputTopology, D::GsOutputTopology(t)) => t.to_u32() << 11,
        (DeclKind::GsInputPrimitive, D::GsInputPrimitive(p)) => p.to_u32() << 11,
        (DeclKind::MaxOutputVertexCount, D::MaxOutputVertexCount(n))
        | (DeclKind::Temps, D::Temps(n))
        | (DeclKind::FunctionBody, D::FunctionBody(n))
        | (DeclKind::HsForkPhaseInstanceCount, D::HsForkPhaseInstanceCount(n))
        | (DeclKind::HsJoinPhaseInstanceCount, D::HsJoinPhaseInstanceCount(n))
        | (DeclKind::GsInstanceCount, D::GsInstanceCount(n)) => {
            out.push(*n);
            0
        }
        (DeclKind::Input, D::Input)
        | (DeclKind::Output, D::Output)
        | (DeclKind::Stream, D::Stream) => 0,
        (DeclKind::InputSgv, D::InputSgv(n))
        | (DeclKind::InputSiv, D::InputSiv(n))
        | (DeclKind::OutputSgv, D::OutputSgv(n))
        | (DeclKind::OutputSiv, D::OutputSiv(n)) => {
            out.push(name_token(*n));
            0
        }
        (DeclKind::InputPs, D::InputPs(mode)) => mode.to_u32() << 11,
        (DeclKind::InputPsSgv, D::InputPsSgv(mode, n))
        | (DeclKind::InputPsSiv, D::InputPsSiv(mode, n)) => {
            out.push(name_token(*n));
            mode.to_u32() << 11
        }
        (
            DeclKind::IndexableTemp,
            D::IndexableTemp {
                register,
                size,
                components,
            },
        ) => {
            out.extend_from_slice(&[*register, *size, *components]);
            0
        }
        (DeclKind::GlobalFlags, D::GlobalFlags(flags)) => {
            if *flags > 0x1fff {
                return Err("global flags wider than 13 bits".into());
            }
            flags << 11
        }
        (DeclKind::FunctionTable, D::FunctionTable { id, bodies }) => {
            out.push(*id);
            out.push(bodies.len() as u32);
            out.extend_from_slice(bodies);
            0
        }
        (
            DeclKind::Interface,
            D::Interface {
                id,
                dynamic_indexed,
                table_length,
                array_length,
                tables,
            },
        ) => {
            if tables.len() > 0xffff {
                return Err("more than 65535 function tables".into());
            }
            out.push(*id);
            out.push(*table_length);
            out.push(tables.len() as u32 | (*array_length as u32) << 16);
            out.extend_from_slice(tables);
            (*dynamic_indexed as u32) << 11
        }
        (DeclKind::InputControlPointCount, D::InputControlPointCount(n))
        | (DeclKind::OutputControlPointCount, D::OutputControlPointCount(n)) => {
            if *n > 63 {
                return Err("control point count wider than 6 bits".into());
            }
            (*n as u32) << 11
        }
        (DeclKind::TessDomain, D::TessDomain(v)) => v.to_u32() << 11,
        (DeclKind::TessPartitioning, D::TessPartitioning(v)) => v.to_u32() << 11,
        (DeclKind::TessOutputPrimitive, D::TessOutputPrimitive(v)) => v.to_u32() << 11,
        (DeclKind::HsMaxTessFactor, D::HsMaxTessFactor(f)) => {
            out.push(f.to_bits());
            0
        }
        (DeclKind::ThreadGroup, D::ThreadGroup(size)) => {
            out.extend_from_slice(size);
            0
        }
        (
            DeclKind::UavTyped,
            D::UavTyped {
                dim,
                flags,
                return_type,
                space: s,
            },
        ) => {
            if flags.has_counter {
                return Err("only structured UAVs have counters".into());
            }
            out.push(return_type_token(*return_type));
            space(s, out)?;
            dim.to_u32() << 11 | uav_bits(*flags)
        }
        (DeclKind::UavRaw, D::UavRaw { flags, space: s }) => {
            if flags.has_counter {
                return Err("only structured UAVs have counters".into());
            }
            space(s, out)?;
            uav_bits(*flags)
        }
        (
            DeclKind::UavStructured,
            D::UavStructured {
                flags,
                stride,
                space: s,
            },
        ) => {
            out.push(*stride);
            space(s, out)?;
            uav_bits(*flags)
        }
        (DeclKind::TgsmRaw, D::TgsmRaw { byte_count }) => {
            out.push(*byte_count);
            0
        }
        (DeclKind::TgsmStructured, D::TgsmStructured { stride, count }) => {
            out.extend_from_slice(&[*stride, *count]);
            0
        }
        (DeclKind::ResourceRaw, D::ResourceRaw { space: s }) => {
            space(s, out)?;
            0
        }
        (DeclKind::ResourceStructured, D::ResourceStructured { stride, space: s }) => {
            out.push(*stride);
            space(s, out)?;
            0
        }
        _ => return mismatch(),
    };
    Ok(control)
}
