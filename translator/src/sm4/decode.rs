//! Decoding a SHDR/SHEX chunk into a [`Program`].
//!
//! The decoder walks the dword stream once. Every read is bounded by the end of the current
//! instruction (itself checked against the program length), so truncated or hostile input
//! gives a [`DecodeError`] naming the byte offset, never a panic; relative index operands
//! nest at most [`MAX_RELATIVE_DEPTH`] deep; and every allocation is sized by the input
//! length, never by a count field read from it.

use super::decl::{CustomData, Declaration, NameToken, ReturnTypeToken, UavFlags};
use super::enums::*;
use super::error::{DecodeError, DecodeErrorKind as E};
use super::instruction::{
    ExtOpcode, ExtOpcodes, InstData, Instruction, OpControl, Program, Version,
};
use super::opcodes::{self, Control, DeclKind, Layout, Opcode, OpcodeInfo};
use super::operand::{Components, Operand};

/// How deep relative index operands may nest (`cb0[r0.x]` is depth 1). fxc never goes
/// beyond 1; the bound stops hostile input from recursing without end.
pub const MAX_RELATIVE_DEPTH: u32 = 4;

/// Opcode token bits that are opcode-specific controls (11–23).
const CONTROL_MASK: u32 = 0x00ff_f800;

/// Decodes a SHDR/SHEX chunk's data; `base_offset` is the byte offset of `data` in the
/// container, used in error messages and instruction offsets.
pub fn decode(data: &[u8], base_offset: usize) -> Result<Program, DecodeError> {
    decode_boxed(data, base_offset, None).map_err(|e| *e)
}

/// [`decode`], filling the vectors of `reuse` (a program decoded earlier, whose contents are
/// dropped) instead of allocating new ones: a caller decoding many programs keeps the last
/// one for the next. The result is that of [`decode`].
pub fn decode_reusing(
    data: &[u8],
    base_offset: usize,
    reuse: Option<Program>,
) -> Result<Program, DecodeError> {
    decode_boxed(data, base_offset, reuse).map_err(|e| *e)
}

/// Errors travel boxed inside the decoder: a one-pointer `Err` keeps every `Result` on the
/// hot path small enough to return in registers.
type Res<T> = Result<T, Box<DecodeError>>;

#[cold]
#[inline(never)]
fn err(offset: usize, kind: E) -> Box<DecodeError> {
    Box::new(DecodeError::new(offset, kind))
}

fn decode_boxed(data: &[u8], base_offset: usize, reuse: Option<Program>) -> Res<Program> {
    let available = data.len() / 4;
    // The dwords are read in place (little-endian) rather than copied out first.
    let (words, _) = data.as_chunks::<4>();
    let mut r = Reader {
        words,
        base: base_offset,
        pos: 0,
        end: available.min(2),
    };
    let version_token = r.read("version token")?;
    let length = r.read("length token")?;
    let version = decode_version(version_token, base_offset)?;
    if length < 2 || length as usize > available {
        return Err(err(
            base_offset + 4,
            E::ProgramLength {
                declared: length,
                available,
            },
        ));
    }
    let program_end = length as usize;
    let mut program = match reuse {
        Some(mut p) => {
            // Kept vectors: cleared, their capacity (that of the largest program decoded
            // before) kept; they grow like any vector when this program is larger.
            p.clear();
            p.version = version;
            p.base_offset = base_offset;
            p
        }
        None => Program {
            version,
            base_offset,
            // Sized by a quick walk over the length fields.
            instructions: Vec::with_capacity(count_instructions(r.words, 2, program_end)),
            operands: Vec::new(),
            relative: Vec::new(),
            trailing: Vec::new(),
        },
    };
    // The operand array's capacity comes from the input length (an operand takes at least one
    // dword, never fewer than 2.4 on average in the corpus, so it rarely grows). Each
    // instruction is pushed whole, once (not written over a placeholder).
    program.operands.reserve(program_end / 2 + 4);
    program.trailing.extend_from_slice(&data[program_end * 4..]);
    let mut d = Decoder {
        r,
        sm51: version.is_sm51(),
        program_end,
        relative: std::mem::take(&mut program.relative),
    };
    while d.r.pos < program_end {
        d.instruction(&mut program)?;
    }
    program.relative = d.relative;
    Ok(program)
}

/// Counts the instructions by following their length fields, stopping at the first one
/// that is malformed (the decoding pass reports it).
fn count_instructions(words: &[[u8; 4]], mut pos: usize, end: usize) -> usize {
    let mut n = 0;
    while pos < end {
        let t = u32::from_le_bytes(words[pos]);
        // Custom data and a zero length field keep the length in the next dword.
        let len = match (t >> 24) & 0x7f {
            l if l != 0 && t & 0x7ff != Opcode::CustomData as u32 => l as usize,
            _ => words
                .get(pos + 1)
                .map_or(0, |&l| u32::from_le_bytes(l) as usize),
        };
        n += 1;
        if len == 0 || len > end - pos {
            break;
        }
        pos += len;
    }
    n
}

fn decode_version(token: u32, base: usize) -> Res<Version> {
    let ty = token >> 16;
    let program_type = ProgramType::from_u32(ty).ok_or_else(|| {
        err(
            base,
            E::BadValue {
                what: ProgramType::WHAT,
                value: ty,
            },
        )
    })?;
    let major = ((token >> 4) & 0xf) as u8;
    let minor = (token & 0xf) as u8;
    if !matches!((major, minor), (4, 0) | (4, 1) | (5, 0) | (5, 1)) {
        return Err(err(base, E::UnsupportedVersion { major, minor }));
    }
    Ok(Version {
        program_type,
        major,
        minor,
        reserved: (token >> 8) as u8,
    })
}

/// Bounded dword reader.
struct Reader<'a> {
    /// The chunk's dwords, as little-endian bytes.
    words: &'a [[u8; 4]],
    base: usize,
    /// Next dword to read.
    pos: usize,
    /// Reads stop here (end of the current instruction, or of the header); never past
    /// `words.len()`.
    end: usize,
}

impl Reader<'_> {
    #[inline]
    fn offset(&self, pos: usize) -> usize {
        self.base + pos * 4
    }

    #[inline(always)]
    fn read(&mut self, what: &'static str) -> Res<u32> {
        match self.words.get(self.pos) {
            Some(&v) if self.pos < self.end => {
                self.pos += 1;
                Ok(u32::from_le_bytes(v))
            }
            _ => Err(self.truncated(what)),
        }
    }

    #[cold]
    #[inline(never)]
    fn truncated(&self, what: &'static str) -> Box<DecodeError> {
        err(self.offset(self.pos), E::Truncated(what))
    }

    fn remaining(&self) -> usize {
        self.end - self.pos
    }

    /// Dwords `start..end` (within `words`), copied out.
    fn dwords(&self, start: usize, end: usize) -> Box<[u32]> {
        self.words[start..end]
            .iter()
            .map(|&w| u32::from_le_bytes(w))
            .collect()
    }
}

/// Looks up an enumerated field, or reports it as invalid at `offset`.
#[inline(always)]
fn field<T>(value: u32, lookup: fn(u32) -> Option<T>, what: &'static str, offset: usize) -> Res<T> {
    match lookup(value) {
        Some(v) => Ok(v),
        None => Err(bad_value(offset, what, value)),
    }
}

struct Decoder<'a> {
    r: Reader<'a>,
    sm51: bool,
    program_end: usize,
    /// Relative index operands (becomes `Program::relative`).
    relative: Vec<Operand>,
}

impl Decoder<'_> {
    fn instruction(&mut self, program: &mut Program) -> Res<()> {
        let start = self.r.pos;
        let at = self.r.offset(start);
        self.r.end = self.program_end;
        let token = self.r.read("opcode token")?;
        let number = token & 0x7ff;

        if number == Opcode::CustomData as u32 {
            return self.custom_data(program, token, start);
        }
        let info = opcodes::info(number).ok_or_else(|| err(at, E::UnknownOpcode(number)))?;

        let mut long_length = false;
        let mut length = (token >> 24) & 0x7f;
        if length == 0 {
            long_length = true;
            length = self.r.read("instruction length dword")?;
            if length < 2 {
                return Err(err(at + 4, E::BadLength(length)));
            }
        }
        let remaining = self.program_end - start;
        if length as usize > remaining {
            return Err(err(at, E::InstructionPastEnd { length, remaining }));
        }
        self.r.end = start + length as usize;

        let mut ext = ExtOpcodes::default();
        let mut extended = token & 0x8000_0000 != 0;
        while extended {
            let ext_at = self.r.offset(self.r.pos);
            let t = self.r.read("extended opcode token")?;
            extended = t & 0x8000_0000 != 0;
            if let Err((what, value)) = ExtOpcode::from_token(t) {
                return Err(bad_value(ext_at, what, value));
            }
            if !ext.push_token(t) {
                return Err(err(ext_at, E::ExtendedOpcodes));
            }
        }

        let first_operand = program.operands.len() as u32;
        let control = token & CONTROL_MASK;
        let mut ctl = Controls::default();
        let mut data = InstData::None;
        match info.layout {
            Layout::Fixed { dsts, srcs } => {
                ctl = executable_control(info, control, at)?;
                for _ in 0..dsts as usize + srcs as usize {
                    self.push_operand_inline(program)?;
                }
            }
            Layout::InterfaceCall => {
                ctl = executable_control(info, control, at)?;
                data = InstData::FunctionIndex(self.r.read("function table index")?);
                self.push_operand(program)?;
            }
            Layout::Decl(kind) => {
                let (decl, used) = self.declaration(kind, token, at, program)?;
                ctl.used = used;
                data = InstData::Decl(decl);
            }
            Layout::CustomData => unreachable!("custom data is handled above"),
        }
        let padding: Box<[u32]> = if self.r.pos < self.r.end {
            let p = self.r.dwords(self.r.pos, self.r.end);
            self.r.pos = self.r.end;
            p
        } else {
            Box::default()
        };
        let end = program.operands.len() as u32;
        program.instructions.push(Instruction {
            opcode: info.opcode,
            offset: at,
            saturate: ctl.saturate,
            precise: ctl.precise,
            control: ctl.control,
            reserved_control: control & !ctl.used,
            ext,
            long_length,
            data,
            padding,
            operand_range: first_operand..end,
        });
        Ok(())
    }

    fn custom_data(&mut self, program: &mut Program, token: u32, start: usize) -> Res<()> {
        let at = self.r.offset(start);
        let class = field(
            token >> 11,
            CustomDataClass::from_u32,
            CustomDataClass::WHAT,
            at,
        )?;
        let length = self.r.read("custom data length")?;
        if length < 2 {
            return Err(err(at + 4, E::BadLength(length)));
        }
        let remaining = self.program_end - start;
        if length as usize > remaining {
            return Err(err(at + 4, E::InstructionPastEnd { length, remaining }));
        }
        self.r.end = start + length as usize;
        let data = self.r.dwords(self.r.pos, self.r.end);
        self.r.pos = self.r.end;
        let n = program.operands.len() as u32;
        program.instructions.push(Instruction {
            data: InstData::CustomData(CustomData { class, data }),
            operand_range: n..n,
            ..Instruction::new(Opcode::CustomData, at)
        });
        Ok(())
    }

    /// Reads a declaration's tokens; returns the payload and the control bits it used.
    fn declaration(
        &mut self,
        kind: DeclKind,
        token: u32,
        at: usize,
        program: &mut Program,
    ) -> Res<(Declaration, u32)> {
        use Declaration as D;
        let bits = |shift: u32, width: u32| (token >> shift) & ((1 << width) - 1);
        let mut used = 0u32;
        let decl = match kind {
            DeclKind::Resource => {
                let dim = field(
                    bits(11, 5),
                    ResourceDimension::from_u32,
                    ResourceDimension::WHAT,
                    at,
                )?;
                used |= 0xf800;
                let mut sample_count = 0;
                if dim.is_multisampled() {
                    sample_count = bits(16, 7) as u8;
                    used |= 0x7f_0000;
                }
                self.push_operand(program)?;
                let return_type = self.return_type_token()?;
                D::Resource {
                    dim,
                    sample_count,
                    return_type,
                    space: self.space()?,
                }
            }
            DeclKind::ConstantBuffer => {
                used |= 0x800;
                self.push_operand(program)?;
                let (size, space) = if self.sm51 {
                    (
                        Some(self.r.read("constant buffer size")?),
                        Some(self.r.read("register space")?),
                    )
                } else {
                    (None, None)
                };
                D::ConstantBuffer {
                    dynamic_indexed: bits(11, 1) != 0,
                    size,
                    space,
                }
            }
            DeclKind::Sampler => {
                let mode = field(bits(11, 4), SamplerMode::from_u32, SamplerMode::WHAT, at)?;
                used |= 0x7800;
                self.push_operand(program)?;
                D::Sampler {
                    mode,
                    space: self.space()?,
                }
            }
            DeclKind::IndexRange => {
                self.push_operand(program)?;
                D::IndexRange {
                    count: self.r.read("index range count")?,
                }
            }
            DeclKind::GsOutputTopology => {
                used |= 0x1_f800;
                D::GsOutputTopology(field(
                    bits(11, 6),
                    PrimitiveTopology::from_u32,
                    PrimitiveTopology::WHAT,
                    at,
                )?)
            }
            DeclKind::GsInputPrimitive => {
                used |= 0x1_f800;
                D::GsInputPrimitive(field(
                    bits(11, 6),
                    Primitive::from_u32,
                    Primitive::WHAT,
                    at,
                )?)
            }
            DeclKind::MaxOutputVertexCount => {
                D::MaxOutputVertexCount(self.r.read("max output vertex count")?)
            }
            DeclKind::Input => {
                self.push_operand(program)?;
                D::Input
            }
            DeclKind::Output => {
                self.push_operand(program)?;
                D::Output
            }
            DeclKind::InputSgv | DeclKind::InputSiv | DeclKind::OutputSgv | DeclKind::OutputSiv => {
                self.push_operand(program)?;
                let name = self.name_token()?;
                match kind {
                    DeclKind::InputSgv => D::InputSgv(name),
                    DeclKind::InputSiv => D::InputSiv(name),
                    DeclKind::OutputSgv => D::OutputSgv(name),
                    _ => D::OutputSiv(name),
                }
            }
            DeclKind::InputPs | DeclKind::InputPsSgv | DeclKind::InputPsSiv => {
                let mode = field(
                    bits(11, 4),
                    InterpolationMode::from_u32,
                    InterpolationMode::WHAT,
                    at,
                )?;
                used |= 0x7800;
                self.push_operand(program)?;
                match kind {
                    DeclKind::InputPs => D::InputPs(mode),
                    DeclKind::InputPsSgv => D::InputPsSgv(mode, self.name_token()?),
                    _ => D::InputPsSiv(mode, self.name_token()?),
                }
            }
            DeclKind::Temps => D::Temps(self.r.read("temp count")?),
            DeclKind::IndexableTemp => D::IndexableTemp {
                register: self.r.read("indexable temp register")?,
                size: self.r.read("indexable temp size")?,
                components: self.r.read("indexable temp component count")?,
            },
            DeclKind::GlobalFlags => {
                let flags = bits(11, 13) & global_flags::ALL;
                used |= flags << 11;
                D::GlobalFlags(flags)
            }
            DeclKind::Stream => {
                self.push_operand(program)?;
                D::Stream
            }
            DeclKind::FunctionBody => D::FunctionBody(self.r.read("function body index")?),
            DeclKind::FunctionTable => {
                let id = self.r.read("function table index")?;
                let count = self.r.read("function table length")?;
                let bodies = self.dword_list("function table", count)?;
                D::FunctionTable { id, bodies }
            }
            DeclKind::Interface => {
                used |= 0x800;
                let id = self.r.read("interface index")?;
                let table_length = self.r.read("interface function table length")?;
                let lengths = self.r.read("interface table and array lengths")?;
                let tables = self.dword_list("interface function table", lengths & 0xffff)?;
                D::Interface {
                    id,
                    dynamic_indexed: bits(11, 1) != 0,
                    table_length,
                    array_length: (lengths >> 16) as u16,
                    tables,
                }
            }
            DeclKind::InputControlPointCount | DeclKind::OutputControlPointCount => {
                used |= 0x1_f800;
                let n = bits(11, 6) as u8;
                if kind == DeclKind::InputControlPointCount {
                    D::InputControlPointCount(n)
                } else {
                    D::OutputControlPointCount(n)
                }
            }
            DeclKind::TessDomain => {
                used |= 0x1800;
                D::TessDomain(field(
                    bits(11, 2),
                    TessDomain::from_u32,
                    TessDomain::WHAT,
                    at,
                )?)
            }
            DeclKind::TessPartitioning => {
                used |= 0x3800;
                D::TessPartitioning(field(
                    bits(11, 3),
                    TessPartitioning::from_u32,
                    TessPartitioning::WHAT,
                    at,
                )?)
            }
            DeclKind::TessOutputPrimitive => {
                used |= 0x3800;
                D::TessOutputPrimitive(field(
                    bits(11, 3),
                    TessOutputPrimitive::from_u32,
                    TessOutputPrimitive::WHAT,
                    at,
                )?)
            }
            DeclKind::HsMaxTessFactor => {
                D::HsMaxTessFactor(f32::from_bits(self.r.read("max tess factor")?))
            }
            DeclKind::HsForkPhaseInstanceCount => {
                D::HsForkPhaseInstanceCount(self.r.read("instance count")?)
            }
            DeclKind::HsJoinPhaseInstanceCount => {
                D::HsJoinPhaseInstanceCount(self.r.read("instance count")?)
            }
            DeclKind::ThreadGroup => D::ThreadGroup([
                self.r.read("thread group size x")?,
                self.r.read("thread group size y")?,
                self.r.read("thread group size z")?,
            ]),
            DeclKind::UavTyped => {
                let dim = field(
                    bits(11, 5),
                    ResourceDimension::from_u32,
                    ResourceDimension::WHAT,
                    at,
                )?;
                used |= 0xf800 | 0x3_0000;
                self.push_operand(program)?;
                let return_type = self.return_type_token()?;
                D::UavTyped {
                    dim,
                    flags: uav_flags(token, false),
                    return_type,
                    space: self.space()?,
                }
            }
            DeclKind::UavRaw => {
                used |= 0x3_0000;
                self.push_operand(program)?;
                D::UavRaw {
                    flags: uav_flags(token, false),
                    space: self.space()?,
                }
            }
            DeclKind::UavStructured => {
                used |= 0x3_0000 | uav_flags::HAS_COUNTER;
                self.push_operand(program)?;
                let stride = self.r.read("structure stride")?;
                D::UavStructured {
                    flags: uav_flags(token, true),
                    stride,
                    space: self.space()?,
                }
            }
            DeclKind::TgsmRaw => {
                self.push_operand(program)?;
                D::TgsmRaw {
                    byte_count: self.r.read("byte count")?,
                }
            }
            DeclKind::TgsmStructured => {
                self.push_operand(program)?;
                let stride = self.r.read("structure stride")?;
                D::TgsmStructured {
                    stride,
                    count: self.r.read("structure count")?,
                }
            }
            DeclKind::ResourceRaw => {
                self.push_operand(program)?;
                D::ResourceRaw {
                    space: self.space()?,
                }
            }
            DeclKind::ResourceStructured => {
                self.push_operand(program)?;
                let stride = self.r.read("structure stride")?;
                D::ResourceStructured {
                    stride,
                    space: self.space()?,
                }
            }
            DeclKind::GsInstanceCount => D::GsInstanceCount(self.r.read("instance count")?),
        };
        Ok((decl, used))
    }

    /// Reads one operand onto the end of the program's operand array (the executable
    /// instructions' hot path: inlined there).
    #[inline(always)]
    fn push_operand_inline(&mut self, program: &mut Program) -> Res<()> {
        operand(
            &mut self.r,
            &mut self.relative,
            Some(&mut program.operands),
            0,
        )
        .map(|_| ())
    }

    /// Reads one operand onto the end of the program's operand array.
    #[inline(never)]
    fn push_operand(&mut self, program: &mut Program) -> Res<()> {
        operand(
            &mut self.r,
            &mut self.relative,
            Some(&mut program.operands),
            0,
        )
        .map(|_| ())
    }

    fn space(&mut self) -> Res<Option<u32>> {
        Ok(if self.sm51 {
            Some(self.r.read("register space")?)
        } else {
            None
        })
    }

    fn name_token(&mut self) -> Res<NameToken> {
        let at = self.r.offset(self.r.pos);
        let t = self.r.read("system value name token")?;
        Ok(NameToken {
            name: field(t & 0xffff, SystemName::from_u32, SystemName::WHAT, at)?,
            reserved: (t >> 16) as u16,
        })
    }

    fn return_type_token(&mut self) -> Res<ReturnTypeToken> {
        let at = self.r.offset(self.r.pos);
        let t = self.r.read("resource return type token")?;
        Ok(ReturnTypeToken {
            types: return_types(t, 0, at)?,
            reserved: (t >> 16) as u16,
        })
    }

    /// Reads `count` dwords, after checking that the instruction has that many left.
    fn dword_list(&mut self, what: &'static str, count: u32) -> Res<Box<[u32]>> {
        let available = self.r.remaining();
        if count as usize > available {
            return Err(err(
                self.r.offset(self.r.pos),
                E::CountTooLarge {
                    what,
                    count,
                    available,
                },
            ));
        }
        let list = self.r.dwords(self.r.pos, self.r.pos + count as usize);
        self.r.pos += count as usize;
        Ok(list)
    }
}

#[cold]
#[inline(never)]
fn bad_value(at: usize, what: &'static str, value: u32) -> Box<DecodeError> {
    err(at, E::BadValue { what, value })
}

/// Reads one operand and pushes it onto `out`, or onto `pool` when `out` is `None` (the
/// operand of a relative index); the operands of its own relative indices go to `pool`
/// first. Returns the operand's position in the vector it went to. The operand is built
/// from locals and pushed once.
#[inline(always)]
fn operand(
    r: &mut Reader<'_>,
    pool: &mut Vec<Operand>,
    out: Option<&mut Vec<Operand>>,
    depth: u32,
) -> Res<u32> {
    let at = r.offset(r.pos);
    let token = r.read("operand token")?;
    // Bits 0-1: component count; bits 2-3: selection mode (4 components only).
    let components = match token & 0xf {
        0b0000 | 0b0100 | 0b1000 | 0b1100 => Components::Zero,
        0b0001 | 0b0101 | 0b1001 | 0b1101 => Components::One,
        0b0010 => Components::Mask(((token >> 4) & 0xf) as u8),
        0b0110 => Components::Swizzle(SWIZZLES[((token >> 4) & 0xff) as usize]),
        0b1010 => Components::Select1(((token >> 4) & 3) as u8),
        0b1110 => return Err(bad_value(at, "component selection mode", 3)),
        _ => Components::N,
    };
    let ty_value = (token >> 12) & 0xff;
    let Some(ty) = OperandType::from_u32(ty_value) else {
        return Err(bad_value(at, OperandType::WHAT, ty_value));
    };
    let index_dim = ((token >> 20) & 3) as usize;
    let mut known = components.defined_bits() | 0x803f_f000;

    // Fast path for the common shape: a register whose indices are all plain 32-bit
    // immediates, without extended operand token.
    if token & 0xffc0_0000 == 0
        && !ty.is_immediate()
        && r.pos + index_dim <= r.end
        && let Some(words) = r.words.get(r.pos..r.pos + index_dim)
    {
        let dest = match out {
            Some(out) => out,
            None => pool,
        };
        // One arm per index count: a loop over a slice of unknown length became a
        // `memcpy` call per operand.
        let word = |i: usize| u32::from_le_bytes(words[i]);
        let data = match index_dim {
            0 => [0; 6],
            1 => [word(0), 0, 0, 0, 0, 0],
            2 => [word(0), word(1), 0, 0, 0, 0],
            _ => [word(0), word(1), word(2), 0, 0, 0],
        };
        dest.push(Operand::from_parts(
            ty,
            components,
            index_dim as u8,
            [IndexRepr::Imm32; 3],
            data,
            [u32::MAX; 3],
            token & !known,
            (false, Modifier::None, MinPrecision::Default, false, 0),
        ));
        r.pos += index_dim;
        return Ok(dest.len() as u32 - 1);
    }

    let mut reprs = [IndexRepr::Imm32; 3];
    let mut i = 0;
    while i < index_dim {
        let shift = 22 + 3 * i;
        known |= 7 << shift;
        let value = (token >> shift) & 7;
        let Some(repr) = IndexRepr::from_u32(value) else {
            return Err(bad_value(at, IndexRepr::WHAT, value));
        };
        reprs[i] = repr;
        i += 1;
    }

    let mut ext_fields = (false, Modifier::None, MinPrecision::Default, false, 0);
    if token & 0x8000_0000 != 0 {
        let ext_at = r.offset(r.pos);
        let ext = r.read("extended operand token")?;
        if ext & 0x3f != 1 {
            return Err(bad_value(ext_at, "extended operand type", ext & 0x3f));
        }
        if ext & 0x8000_0000 != 0 {
            return Err(err(ext_at, E::ChainedExtendedOperand));
        }
        ext_fields = (
            true,
            field(
                (ext >> 6) & 0xff,
                Modifier::from_u32,
                Modifier::WHAT,
                ext_at,
            )?,
            field(
                (ext >> 14) & 7,
                MinPrecision::from_u32,
                MinPrecision::WHAT,
                ext_at,
            )?,
            ext & (1 << 17) != 0,
            ext & 0x7ffc_0000,
        );
    }

    // Immediate values, or the immediate parts of the indices (low dwords, then high).
    let mut data = [0u32; 6];
    let mut rel = [u32::MAX; 3];
    if ty.is_immediate() {
        if index_dim != 0 {
            return Err(bad_value(
                at,
                "index dimension of an immediate operand",
                index_dim as u32,
            ));
        }
        let n = match components {
            Components::One => 1 + (ty == OperandType::Immediate64) as usize,
            Components::Zero | Components::N => {
                return Err(bad_value(
                    at,
                    "immediate operand component count (token bits 0-1)",
                    token & 3,
                ));
            }
            _ => 4,
        };
        let mut k = 0;
        while k < n {
            data[k] = r.read("immediate value")?;
            k += 1;
        }
    } else {
        let mut i = 0;
        while i < index_dim {
            let repr = reprs[i];
            match repr.immediate_dwords() {
                0 => {}
                1 => data[i] = r.read("operand index")?,
                _ => {
                    data[3 + i] = r.read("64-bit operand index")?;
                    data[i] = r.read("64-bit operand index")?;
                }
            }
            if repr.has_relative() {
                rel[i] = relative_operand(r, pool, depth)?;
            }
            i += 1;
        }
    }

    let dest = match out {
        Some(out) => out,
        None => pool,
    };
    dest.push(Operand::from_parts(
        ty,
        components,
        index_dim as u8,
        reprs,
        data,
        rel,
        token & !known,
        ext_fields,
    ));
    Ok(dest.len() as u32 - 1)
}

/// Swizzle selections by operand token bits 4–11 (the source component for x, y, z, w).
const SWIZZLES: [[u8; 4]; 256] = {
    let mut table = [[0; 4]; 256];
    let mut bits = 0;
    while bits < 256 {
        table[bits] = [
            (bits & 3) as u8,
            ((bits >> 2) & 3) as u8,
            ((bits >> 4) & 3) as u8,
            ((bits >> 6) & 3) as u8,
        ];
        bits += 1;
    }
    table
};

/// Reads the operand of a relative index into the pool; returns its position.
#[inline(never)]
fn relative_operand(r: &mut Reader<'_>, pool: &mut Vec<Operand>, depth: u32) -> Res<u32> {
    if depth >= MAX_RELATIVE_DEPTH {
        return Err(err(r.offset(r.pos), E::NestingTooDeep(MAX_RELATIVE_DEPTH)));
    }
    operand(r, pool, None, depth + 1)
}

/// The decoded controls of an executable instruction and the control bits they used.
#[derive(Default)]
struct Controls {
    saturate: bool,
    precise: u8,
    control: OpControl,
    used: u32,
}

/// Decodes saturate, precise and the opcode-specific controls of an executable instruction.
#[inline]
fn executable_control(info: &OpcodeInfo, control: u32, at: usize) -> Res<Controls> {
    const SATURATE: u32 = 1 << 13;
    const PRECISE: u32 = 0xf << 19;
    let mut c = Controls {
        precise: ((control & PRECISE) >> 19) as u8,
        used: PRECISE,
        ..Controls::default()
    };
    if info.control != Control::Sync {
        c.saturate = control & SATURATE != 0;
        c.used |= SATURATE;
    }
    match info.control {
        Control::Standard | Control::Decl => {}
        Control::Test => {
            c.control = OpControl::Test {
                nonzero: control & (1 << 18) != 0,
            };
            c.used |= 1 << 18;
        }
        Control::ResInfo => {
            let value = (control >> 11) & 3;
            c.control = OpControl::ResInfo(field(
                value,
                ResInfoReturnType::from_u32,
                ResInfoReturnType::WHAT,
                at,
            )?);
            c.used |= 0x1800;
        }
        Control::SampleInfo => {
            c.control = OpControl::SampleInfo {
                uint: control & (1 << 11) != 0,
            };
            c.used |= 1 << 11;
        }
        Control::Sync => {
            c.control = OpControl::Sync((control >> 11) & 0xf);
            c.used |= 0x7800;
        }
    }
    Ok(c)
}

fn uav_flags(token: u32, structured: bool) -> UavFlags {
    UavFlags {
        globally_coherent: token & uav_flags::GLOBALLY_COHERENT != 0,
        rasterizer_ordered: token & uav_flags::RASTERIZER_ORDERED != 0,
        has_counter: structured && token & uav_flags::HAS_COUNTER != 0,
    }
}

/// Four 4-bit return types starting at bit `shift`.
fn return_types(t: u32, shift: u32, at: usize) -> Res<[ReturnType; 4]> {
    let one = |i: u32| {
        field(
            (t >> (shift + 4 * i)) & 0xf,
            ReturnType::from_u32,
            ReturnType::WHAT,
            at,
        )
    };
    Ok([one(0)?, one(1)?, one(2)?, one(3)?])
}
