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
use super::operand::{Components, Index, Operand};

/// How deep relative index operands may nest (`cb0[r0.x]` is depth 1). fxc never goes
/// beyond 1; the bound stops hostile input from recursing without end.
pub const MAX_RELATIVE_DEPTH: u32 = 4;

/// Opcode token bits that are opcode-specific controls (11–23).
const CONTROL_MASK: u32 = 0x00ff_f800;

/// Decodes a SHDR/SHEX chunk's data; `base_offset` is the byte offset of `data` in the
/// container, used in error messages and instruction offsets.
pub fn decode(data: &[u8], base_offset: usize) -> Result<Program, DecodeError> {
    let available = data.len() / 4;
    let mut r = Reader {
        data,
        base: base_offset,
        pos: 0,
        end: available.min(2),
    };
    let version_token = r.read("version token")?;
    let length = r.read("length token")?;
    let version = decode_version(version_token, base_offset)?;
    if length < 2 || length as usize > available {
        return Err(DecodeError::new(
            base_offset + 4,
            E::ProgramLength {
                declared: length,
                available,
            },
        ));
    }
    let program_end = length as usize;
    // Capacities from the input length: an instruction takes at least one dword and an
    // operand at least one; typical programs average about 5 and 3 dwords.
    let mut program = Program {
        version,
        base_offset,
        instructions: Vec::with_capacity(program_end / 5 + 4),
        operands: Vec::with_capacity(program_end / 3 + 4),
        trailing: data[program_end * 4..].to_vec(),
    };
    let mut d = Decoder {
        r,
        sm51: version.is_sm51(),
        program_end,
    };
    while d.r.pos < program_end {
        d.instruction(&mut program)?;
    }
    Ok(program)
}

fn decode_version(token: u32, base: usize) -> Result<Version, DecodeError> {
    let ty = token >> 16;
    let program_type = ProgramType::from_u32(ty).ok_or(DecodeError::new(
        base,
        E::BadValue {
            what: ProgramType::WHAT,
            value: ty,
        },
    ))?;
    let major = ((token >> 4) & 0xf) as u8;
    let minor = (token & 0xf) as u8;
    if !matches!((major, minor), (4, 0) | (4, 1) | (5, 0) | (5, 1)) {
        return Err(DecodeError::new(
            base,
            E::UnsupportedVersion { major, minor },
        ));
    }
    Ok(Version {
        program_type,
        major,
        minor,
        reserved: (token >> 8) as u8,
    })
}

/// Bounded little-endian dword reader.
struct Reader<'a> {
    data: &'a [u8],
    base: usize,
    /// Next dword to read.
    pos: usize,
    /// Reads stop here (end of the current instruction, or of the header).
    end: usize,
}

impl Reader<'_> {
    #[inline]
    fn offset(&self, pos: usize) -> usize {
        self.base + pos * 4
    }

    #[inline]
    fn read(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        if self.pos >= self.end {
            return Err(DecodeError::new(self.offset(self.pos), E::Truncated(what)));
        }
        let i = self.pos * 4;
        let v = u32::from_le_bytes([
            self.data[i],
            self.data[i + 1],
            self.data[i + 2],
            self.data[i + 3],
        ]);
        self.pos += 1;
        Ok(v)
    }

    fn remaining(&self) -> usize {
        self.end - self.pos
    }
}

/// Looks up an enumerated field, or reports it as invalid at `offset`.
fn field<T>(
    value: u32,
    lookup: fn(u32) -> Option<T>,
    what: &'static str,
    offset: usize,
) -> Result<T, DecodeError> {
    lookup(value).ok_or(DecodeError::new(offset, E::BadValue { what, value }))
}

struct Decoder<'a> {
    r: Reader<'a>,
    sm51: bool,
    program_end: usize,
}

impl Decoder<'_> {
    fn instruction(&mut self, program: &mut Program) -> Result<(), DecodeError> {
        let start = self.r.pos;
        let at = self.r.offset(start);
        self.r.end = self.program_end;
        let token = self.r.read("opcode token")?;
        let number = token & 0x7ff;

        if number == Opcode::CustomData as u32 {
            return self.custom_data(program, token, start);
        }
        let info = opcodes::info(number).ok_or(DecodeError::new(at, E::UnknownOpcode(number)))?;

        let mut long_length = false;
        let mut length = (token >> 24) & 0x7f;
        if length == 0 {
            long_length = true;
            length = self.r.read("instruction length dword")?;
            if length < 2 {
                return Err(DecodeError::new(at + 4, E::BadLength(length)));
            }
        }
        let remaining = self.program_end - start;
        if length as usize > remaining {
            return Err(DecodeError::new(
                at,
                E::InstructionPastEnd { length, remaining },
            ));
        }
        self.r.end = start + length as usize;

        let mut ext = ExtOpcodes::default();
        let mut extended = token & 0x8000_0000 != 0;
        while extended {
            let ext_at = self.r.offset(self.r.pos);
            let t = self.r.read("extended opcode token")?;
            extended = t & 0x8000_0000 != 0;
            if !ext.push(extended_opcode(t, ext_at)?) {
                return Err(DecodeError::new(ext_at, E::ExtendedOpcodes));
            }
        }

        let first_operand = program.operands.len() as u32;
        let control = token & CONTROL_MASK;
        let mut inst = Instruction {
            opcode: info.opcode,
            offset: at,
            saturate: false,
            precise: 0,
            control: OpControl::None,
            reserved_control: 0,
            ext,
            long_length,
            data: InstData::None,
            padding: Vec::new(),
            operand_range: first_operand..first_operand,
        };
        match info.layout {
            Layout::Fixed { dsts, srcs } => {
                inst.reserved_control =
                    control & !executable_control(info, control, &mut inst, at)?;
                for _ in 0..dsts as usize + srcs as usize {
                    let op = self.operand(0)?;
                    program.operands.push(op);
                }
            }
            Layout::InterfaceCall => {
                inst.reserved_control =
                    control & !executable_control(info, control, &mut inst, at)?;
                inst.data = InstData::FunctionIndex(self.r.read("function table index")?);
                let op = self.operand(0)?;
                program.operands.push(op);
            }
            Layout::Decl(kind) => {
                let (decl, used) = self.declaration(kind, token, at, program)?;
                inst.reserved_control = control & !used;
                inst.data = InstData::Decl(decl);
            }
            Layout::CustomData => unreachable!("custom data is handled above"),
        }
        while self.r.pos < self.r.end {
            inst.padding.push(self.r.read("padding")?);
        }
        inst.operand_range.end = program.operands.len() as u32;
        program.instructions.push(inst);
        Ok(())
    }

    fn custom_data(
        &mut self,
        program: &mut Program,
        token: u32,
        start: usize,
    ) -> Result<(), DecodeError> {
        let at = self.r.offset(start);
        let class = field(
            token >> 11,
            CustomDataClass::from_u32,
            CustomDataClass::WHAT,
            at,
        )?;
        let length = self.r.read("custom data length")?;
        if length < 2 {
            return Err(DecodeError::new(at + 4, E::BadLength(length)));
        }
        let remaining = self.program_end - start;
        if length as usize > remaining {
            return Err(DecodeError::new(
                at + 4,
                E::InstructionPastEnd { length, remaining },
            ));
        }
        self.r.end = start + length as usize;
        let mut data = Vec::with_capacity(length as usize - 2);
        while self.r.pos < self.r.end {
            data.push(self.r.read("custom data")?);
        }
        let n = program.operands.len() as u32;
        program.instructions.push(Instruction {
            opcode: Opcode::CustomData,
            offset: at,
            saturate: false,
            precise: 0,
            control: OpControl::None,
            reserved_control: 0,
            ext: ExtOpcodes::default(),
            long_length: false,
            data: InstData::CustomData(CustomData { class, data }),
            padding: Vec::new(),
            operand_range: n..n,
        });
        Ok(())
    }

    /// Reads one operand (and, recursively, its relative index operands).
    fn operand(&mut self, depth: u32) -> Result<Operand, DecodeError> {
        let at = self.r.offset(self.r.pos);
        let token = self.r.read("operand token")?;
        let components = match token & 3 {
            0 => Components::Zero,
            1 => Components::One,
            2 => match (token >> 2) & 3 {
                0 => Components::Mask(((token >> 4) & 0xf) as u8),
                1 => Components::Swizzle([
                    ((token >> 4) & 3) as u8,
                    ((token >> 6) & 3) as u8,
                    ((token >> 8) & 3) as u8,
                    ((token >> 10) & 3) as u8,
                ]),
                2 => Components::Select1(((token >> 4) & 3) as u8),
                mode => {
                    return Err(DecodeError::new(
                        at,
                        E::BadValue {
                            what: "component selection mode",
                            value: mode,
                        },
                    ));
                }
            },
            _ => Components::N,
        };
        let ty = field(
            (token >> 12) & 0xff,
            OperandType::from_u32,
            OperandType::WHAT,
            at,
        )?;
        let index_dim = ((token >> 20) & 3) as u8;
        let mut known = components.defined_bits() | 0x8000_0000 | 0x000f_f000 | 0x0030_0000;
        let mut op = Operand::new(ty, components);
        op.index_dim = index_dim;
        for i in 0..index_dim as usize {
            let shift = 22 + 3 * i;
            known |= 7 << shift;
            op.indices[i].repr = field(
                (token >> shift) & 7,
                IndexRepr::from_u32,
                IndexRepr::WHAT,
                at,
            )?;
        }
        op.reserved = token & !known;

        if token & 0x8000_0000 != 0 {
            let ext_at = self.r.offset(self.r.pos);
            let ext = self.r.read("extended operand token")?;
            if ext & 0x3f != 1 {
                return Err(DecodeError::new(
                    ext_at,
                    E::BadValue {
                        what: "extended operand type",
                        value: ext & 0x3f,
                    },
                ));
            }
            if ext & 0x8000_0000 != 0 {
                return Err(DecodeError::new(ext_at, E::ChainedExtendedOperand));
            }
            op.extended = true;
            op.modifier = field(
                (ext >> 6) & 0xff,
                Modifier::from_u32,
                Modifier::WHAT,
                ext_at,
            )?;
            op.min_precision = field(
                (ext >> 14) & 7,
                MinPrecision::from_u32,
                MinPrecision::WHAT,
                ext_at,
            )?;
            op.non_uniform = ext & (1 << 17) != 0;
            op.ext_reserved = ext & 0x7ffc_0000;
        }

        for i in 0..index_dim as usize {
            let repr = op.indices[i].repr;
            let value = match repr.immediate_dwords() {
                0 => 0,
                1 => self.r.read("operand index")? as u64,
                _ => {
                    let hi = self.r.read("64-bit operand index")? as u64;
                    let lo = self.r.read("64-bit operand index")? as u64;
                    hi << 32 | lo
                }
            };
            let relative = if repr.has_relative() {
                if depth >= MAX_RELATIVE_DEPTH {
                    return Err(DecodeError::new(
                        self.r.offset(self.r.pos),
                        E::NestingTooDeep(MAX_RELATIVE_DEPTH),
                    ));
                }
                Some(Box::new(self.operand(depth + 1)?))
            } else {
                None
            };
            op.indices[i] = Index {
                repr,
                value,
                relative,
            };
        }

        if ty.is_immediate() {
            if matches!(components, Components::Zero | Components::N) {
                return Err(DecodeError::new(
                    at,
                    E::BadValue {
                        what: "immediate operand component count (token bits 0-1)",
                        value: token & 3,
                    },
                ));
            }
            for i in 0..op.immediate_dwords() {
                op.imm[i] = self.r.read("immediate value")?;
            }
        }
        Ok(op)
    }

    /// Reads a declaration's tokens; returns the payload and the control bits it used.
    fn declaration(
        &mut self,
        kind: DeclKind,
        token: u32,
        at: usize,
        program: &mut Program,
    ) -> Result<(Declaration, u32), DecodeError> {
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

    fn push_operand(&mut self, program: &mut Program) -> Result<(), DecodeError> {
        let op = self.operand(0)?;
        program.operands.push(op);
        Ok(())
    }

    fn space(&mut self) -> Result<Option<u32>, DecodeError> {
        Ok(if self.sm51 {
            Some(self.r.read("register space")?)
        } else {
            None
        })
    }

    fn name_token(&mut self) -> Result<NameToken, DecodeError> {
        let at = self.r.offset(self.r.pos);
        let t = self.r.read("system value name token")?;
        Ok(NameToken {
            name: field(t & 0xffff, SystemName::from_u32, SystemName::WHAT, at)?,
            reserved: (t >> 16) as u16,
        })
    }

    fn return_type_token(&mut self) -> Result<ReturnTypeToken, DecodeError> {
        let at = self.r.offset(self.r.pos);
        let t = self.r.read("resource return type token")?;
        Ok(ReturnTypeToken {
            types: return_types(t, 0, at)?,
            reserved: (t >> 16) as u16,
        })
    }

    /// Reads `count` dwords, after checking that the instruction has that many left.
    fn dword_list(&mut self, what: &'static str, count: u32) -> Result<Vec<u32>, DecodeError> {
        let available = self.r.remaining();
        if count as usize > available {
            return Err(DecodeError::new(
                self.r.offset(self.r.pos),
                E::CountTooLarge {
                    what,
                    count,
                    available,
                },
            ));
        }
        (0..count).map(|_| self.r.read(what)).collect()
    }
}

/// Decodes saturate, precise and the opcode-specific controls of an executable instruction
/// into `inst`; returns the control bits used.
fn executable_control(
    info: &OpcodeInfo,
    control: u32,
    inst: &mut Instruction,
    at: usize,
) -> Result<u32, DecodeError> {
    const SATURATE: u32 = 1 << 13;
    const PRECISE: u32 = 0xf << 19;
    inst.precise = ((control & PRECISE) >> 19) as u8;
    let mut used = PRECISE;
    if info.control != Control::Sync {
        inst.saturate = control & SATURATE != 0;
        used |= SATURATE;
    }
    match info.control {
        Control::Standard | Control::Decl => {}
        Control::Test => {
            inst.control = OpControl::Test {
                nonzero: control & (1 << 18) != 0,
            };
            used |= 1 << 18;
        }
        Control::ResInfo => {
            let value = (control >> 11) & 3;
            inst.control = OpControl::ResInfo(field(
                value,
                ResInfoReturnType::from_u32,
                ResInfoReturnType::WHAT,
                at,
            )?);
            used |= 0x1800;
        }
        Control::SampleInfo => {
            inst.control = OpControl::SampleInfo {
                uint: control & (1 << 11) != 0,
            };
            used |= 1 << 11;
        }
        Control::Sync => {
            inst.control = OpControl::Sync((control >> 11) & 0xf);
            used |= 0x7800;
        }
    }
    Ok(used)
}

fn uav_flags(token: u32, structured: bool) -> UavFlags {
    UavFlags {
        globally_coherent: token & uav_flags::GLOBALLY_COHERENT != 0,
        rasterizer_ordered: token & uav_flags::RASTERIZER_ORDERED != 0,
        has_counter: structured && token & uav_flags::HAS_COUNTER != 0,
    }
}

/// Four 4-bit return types starting at bit `shift`.
fn return_types(t: u32, shift: u32, at: usize) -> Result<[ReturnType; 4], DecodeError> {
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

fn extended_opcode(t: u32, at: usize) -> Result<ExtOpcode, DecodeError> {
    Ok(match t & 0x3f {
        1 => {
            let offset = |shift: u32| (((t >> shift) & 0xf) as i8) << 4 >> 4;
            ExtOpcode::SampleControls {
                offsets: [offset(9), offset(13), offset(17)],
                reserved: t & 0x7fe0_01c0,
            }
        }
        2 => ExtOpcode::ResourceDim {
            dim: field(
                (t >> 6) & 0x1f,
                ResourceDimension::from_u32,
                ResourceDimension::WHAT,
                at,
            )?,
            stride: ((t >> 11) & 0xfff) as u16,
            reserved: t & 0x7f80_0000,
        },
        3 => ExtOpcode::ReturnType {
            types: return_types(t, 6, at)?,
            reserved: t & 0x7fc0_0000,
        },
        other => {
            return Err(DecodeError::new(
                at,
                E::BadValue {
                    what: "extended opcode type",
                    value: other,
                },
            ));
        }
    })
}
