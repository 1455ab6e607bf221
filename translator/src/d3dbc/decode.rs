//! Token stream → [`Program`]: version, instructions (1.x lengths from the opcode table,
//! 2.0+ from the length field), operands with their relative-address and predicate tokens,
//! `dcl`/`def*` data, comments and the END token.
//!
//! Hostile input: every read is bounds-checked, lengths are checked against the data left
//! before anything is allocated (allocations are bounded by the input's size), loops advance
//! by at least one dword, and every failure is a [`DecodeError`] naming the byte offset.

use super::error::{DecodeError, DecodeErrorKind as K};
use super::opcodes::{Layout, Opcode};
use super::types::*;

/// The END token.
pub const END_TOKEN: u32 = 0x0000_FFFF;

/// Whether `data` starts with a D3D9 version token (vs/ps 1.0–3.0, 2_x, `_sw`). A DXBC
/// container starts with `DXBC` and never matches.
pub fn is_d3dbc(data: &[u8]) -> bool {
    read_word(data, 0).is_some_and(|t| version(t).is_ok_and(|v| v.is_defined()))
}

fn read_word(data: &[u8], at: usize) -> Option<u32> {
    let b = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn version(t: u32) -> Result<Version, K> {
    let stage = match t >> 16 {
        0xFFFE => Stage::Vertex,
        0xFFFF => Stage::Pixel,
        _ => return Err(K::NotD3d9(t)),
    };
    Ok(Version {
        stage,
        major: (t >> 8) as u8,
        minor: t as u8,
    })
}

/// Decodes a D3D9 shader token stream (starting with its version token).
pub fn decode(data: &[u8]) -> Result<Program, DecodeError> {
    decode_reusing(data, Vec::new())
}

/// [`decode`], filling `items` (emptied first) instead of a new vector, so that a caller
/// translating many programs reuses one allocation.
pub fn decode_reusing(data: &[u8], mut items: Vec<Item>) -> Result<Program, DecodeError> {
    items.clear();
    let t =
        read_word(data, 0).ok_or_else(|| DecodeError::new(0, K::Truncated("the version token")))?;
    let version = version(t).map_err(|k| DecodeError::new(0, k))?;
    if !version.is_defined() {
        let stage = if version.is_vertex() { "vs" } else { "ps" };
        return Err(DecodeError::new(
            0,
            K::UnsupportedVersion {
                stage,
                major: version.major,
                minor: version.minor,
            },
        ));
    }
    // Room for the instructions of a typical program (three to four dwords each), capped
    // so that the reservation stays small next to the input.
    items.reserve((data.len() / 12).min(256));
    let mut pos = 4;
    loop {
        let token = read_word(data, pos)
            .ok_or_else(|| DecodeError::new(pos, K::Truncated("an instruction or END token")))?;
        if token == END_TOKEN {
            return Ok(Program {
                version,
                items,
                end_offset: pos,
                trailing: data[pos + 4..].to_vec(),
            });
        }
        let remaining = (data.len() - pos - 4) / 4;
        match token & 0xFFFF {
            0xFFFF => {
                return Err(DecodeError::new(
                    pos,
                    K::ReservedBits {
                        what: "END",
                        token,
                        bits: token & 0xFFFF_0000,
                    },
                ));
            }
            0xFFFE => {
                if token & 0x8000_0000 != 0 {
                    return Err(DecodeError::new(
                        pos,
                        K::ReservedBits {
                            what: "comment",
                            token,
                            bits: 0x8000_0000,
                        },
                    ));
                }
                let length = (token >> 16) & 0x7FFF;
                if length as usize > remaining {
                    return Err(DecodeError::new(
                        pos,
                        K::CommentPastEnd { length, remaining },
                    ));
                }
                // In bounds: `length` is at most the dwords remaining after the token.
                let start = pos + 4;
                let words = data[start..start + 4 * length as usize]
                    .chunks_exact(4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect();
                items.push(Item::Comment(Comment {
                    offset: pos,
                    data: words,
                }));
                pos += 4 + 4 * length as usize;
            }
            _ => {
                let words = instruction(data, pos, token, version, remaining, &mut items)?;
                pos += 4 + 4 * words;
            }
        }
    }
}

/// Reads operand tokens within one instruction's bounds.
struct Cursor<'a> {
    data: &'a [u8],
    /// Byte offset of the next token.
    pos: usize,
    /// Byte offset just past the instruction.
    end: usize,
    version: Version,
}

impl Cursor<'_> {
    fn next(&mut self, what: &'static str) -> Result<(usize, u32), DecodeError> {
        if self.pos >= self.end {
            return Err(DecodeError::new(self.pos, K::OperandPastEnd(what)));
        }
        let at = self.pos;
        let t = read_word(self.data, at).ok_or_else(|| DecodeError::new(at, K::Truncated(what)))?;
        self.pos += 4;
        Ok((at, t))
    }

    fn at_end(&self) -> bool {
        self.pos >= self.end
    }

    fn register(&self, at: usize, t: u32) -> Result<Register, DecodeError> {
        let ty = (t >> 28) & 7 | (t >> 8) & 0x18;
        let ty = RegisterType::from_u32(ty).ok_or_else(|| {
            DecodeError::new(
                at,
                K::BadValue {
                    what: "register type",
                    value: ty,
                },
            )
        })?;
        let num = (t & 0x7FF) as u16;
        let max = match ty {
            RegisterType::RastOut => 2,
            RegisterType::DepthOut | RegisterType::Loop => 0,
            RegisterType::Misc => 1,
            _ => 0x7FF,
        };
        if num > max {
            return Err(DecodeError::new(
                at,
                K::BadValue {
                    what: "register number",
                    value: num.into(),
                },
            ));
        }
        Ok(Register { ty, num })
    }

    /// Checks bit 31 (set) and bits 14–15 (clear) of a parameter token.
    fn check_param(at: usize, t: u32, what: &'static str, extra: u32) -> Result<(), DecodeError> {
        let bits = (!t & 0x8000_0000) | (t & (0xC000 | extra));
        if bits != 0 {
            return Err(DecodeError::new(
                at,
                K::ReservedBits {
                    what,
                    token: t,
                    bits,
                },
            ));
        }
        Ok(())
    }

    fn relative(&mut self, at: usize) -> Result<Relative, DecodeError> {
        if self.version.relative_token() {
            let (at, t) = self.next("the relative-address token")?;
            // The relative register is a plain source: no modifier, no relative bit.
            Self::check_param(at, t, "relative-address", 0x0F00_2000)?;
            Ok(Relative::Register {
                reg: self.register(at, t)?,
                swizzle: Swizzle::from_bits((t >> 16) as u8),
            })
        } else if self.version.is_vertex() {
            Ok(Relative::Implied)
        } else {
            Err(DecodeError::new(
                at,
                K::NotInVersion {
                    what: "relative addressing",
                    version: self.version.to_string(),
                },
            ))
        }
    }

    fn destination(&mut self) -> Result<Destination, DecodeError> {
        let (at, t) = self.next("a destination token")?;
        Self::check_param(at, t, "destination", 0x0080_0000)?;
        let reg = self.register(at, t)?;
        let relative = if t & 0x2000 != 0 {
            Some(self.relative(at)?)
        } else {
            None
        };
        let mods = (t >> 20) & 0xF;
        Ok(Destination {
            reg,
            mask: ((t >> 16) & 0xF) as u8,
            saturate: mods & 1 != 0,
            partial_precision: mods & 2 != 0,
            centroid: mods & 4 != 0,
            shift: (((t >> 24) & 0xF) as i8) << 4 >> 4,
            relative,
        })
    }

    fn source(&mut self, what: &'static str) -> Result<Source, DecodeError> {
        let (at, t) = self.next(what)?;
        Self::check_param(at, t, "source", 0)?;
        let reg = self.register(at, t)?;
        let m = (t >> 24) & 0xF;
        let modifier = SourceModifier::from_u32(m).ok_or_else(|| {
            DecodeError::new(
                at,
                K::BadValue {
                    what: "source modifier",
                    value: m,
                },
            )
        })?;
        let relative = if t & 0x2000 != 0 {
            Some(self.relative(at)?)
        } else {
            None
        };
        Ok(Source {
            reg,
            swizzle: Swizzle::from_bits((t >> 16) as u8),
            modifier,
            relative,
        })
    }

    fn raw(&mut self) -> Result<u32, DecodeError> {
        Ok(self.next("a constant value")?.1)
    }
}

fn controls(opcode: Opcode, c: u32, at: usize, version: Version) -> Result<Controls, DecodeError> {
    let bad = |what| DecodeError::new(at, K::BadValue { what, value: c });
    if opcode.has_comparison() {
        return Comparison::ALL
            .get((c as usize).wrapping_sub(1))
            .map(|&c| Controls::Compare(c))
            .ok_or_else(|| bad("comparison"));
    }
    match (opcode, c) {
        (_, 0) => Ok(Controls::None),
        // texldp/texldb exist from 2.0 on (1.x `tex`/`texld` have no such forms).
        (Opcode::Tex, 1) if version.major >= 2 => Ok(Controls::Project),
        (Opcode::Tex, 2) if version.major >= 2 => Ok(Controls::Bias),
        _ => Err(bad("opcode controls")),
    }
}

fn dcl_token(at: usize, t: u32, reg: Register) -> Result<Declaration, DecodeError> {
    let reserved = |bits| {
        DecodeError::new(
            at,
            K::ReservedBits {
                what: "dcl",
                token: t,
                bits,
            },
        )
    };
    let bits = (!t & 0x8000_0000) | (t & 0x07F0_FFE0);
    if bits != 0 {
        return Err(reserved(bits));
    }
    if reg.ty == RegisterType::Sampler {
        if t & 0x000F_001F != 0 {
            return Err(reserved(t & 0x000F_001F));
        }
        let ty = (t >> 27) & 0xF;
        let ty = TextureType::ALL.get(ty as usize).copied().ok_or_else(|| {
            DecodeError::new(
                at,
                K::BadValue {
                    what: "sampler texture type",
                    value: ty,
                },
            )
        })?;
        Ok(Declaration::Sampler(ty))
    } else {
        if t & 0x7800_0000 != 0 {
            return Err(reserved(t & 0x7800_0000));
        }
        let usage = t & 0x1F;
        let usage = Usage::ALL.get(usage as usize).copied().ok_or_else(|| {
            DecodeError::new(
                at,
                K::BadValue {
                    what: "dcl usage",
                    value: usage,
                },
            )
        })?;
        Ok(Declaration::Semantic {
            usage,
            index: ((t >> 16) & 0xF) as u8,
        })
    }
}

/// Decodes the instruction whose token (at byte `pos`) is `token`; returns it and the number
/// of operand dwords it spans.
fn instruction(
    data: &[u8],
    pos: usize,
    token: u32,
    version: Version,
    remaining: usize,
    items: &mut Vec<Item>,
) -> Result<usize, DecodeError> {
    let err = |k| DecodeError::new(pos, k);
    let opcode =
        Opcode::from_u16(token as u16).ok_or_else(|| err(K::UnknownOpcode(token & 0xFFFF)))?;
    if token & 0xA000_0000 != 0 {
        return Err(err(K::ReservedBits {
            what: "instruction",
            token,
            bits: token & 0xA000_0000,
        }));
    }
    let controls = controls(opcode, (token >> 16) & 0xFF, pos, version)?;
    let predicated = token & 0x1000_0000 != 0;
    let field = (token >> 24) & 0xF;
    let length = if version.major >= 2 {
        field as usize
    } else {
        if field != 0 {
            return Err(err(K::ReservedBits {
                what: "instruction (1.x has no length field)",
                token,
                bits: token & 0x0F00_0000,
            }));
        }
        if predicated {
            return Err(err(K::NotInVersion {
                what: "predication",
                version: version.to_string(),
            }));
        }
        match opcode.info().layout {
            Layout::Plain { dst, .. } => {
                usize::from(dst) + opcode.source_counts(version).first().copied().unwrap_or(0)
            }
            Layout::Dcl | Layout::Def1 => 2,
            Layout::Def4 => 5,
        }
    };
    if length > remaining {
        return Err(err(K::InstructionPastEnd {
            length: length as u32,
            remaining,
        }));
    }
    let mut cur = Cursor {
        data,
        pos: pos + 4,
        end: pos + 4 + 4 * length,
        version,
    };
    let mut inst = Instruction {
        offset: pos,
        opcode,
        controls,
        coissue: token & 0x4000_0000 != 0,
        predicate: None,
        dst: None,
        src: Sources::new(),
        extra: Extra::None,
    };
    let count_error = |expected, found| {
        err(K::OperandCount {
            opcode: opcode.info().name,
            expected,
            found,
        })
    };
    if predicated && !matches!(opcode.info().layout, Layout::Plain { .. }) {
        return Err(err(K::ReservedBits {
            what: "dcl/def (not predicable)",
            token,
            bits: 0x1000_0000,
        }));
    }
    match opcode.info().layout {
        Layout::Dcl => {
            let (at, t) = cur.next("a dcl usage token")?;
            let dst = cur.destination()?;
            inst.extra = Extra::Dcl(dcl_token(at, t, dst.reg)?);
            inst.dst = Some(dst);
        }
        Layout::Def4 | Layout::Def1 => {
            inst.dst = Some(cur.destination()?);
            inst.extra = if opcode == Opcode::DefB {
                Extra::DefB(cur.raw()?)
            } else {
                let v = [cur.raw()?, cur.raw()?, cur.raw()?, cur.raw()?];
                if opcode == Opcode::Def {
                    Extra::Def(v)
                } else {
                    Extra::DefI(v.map(|x| x as i32))
                }
            };
        }
        Layout::Plain { dst, .. } => {
            if dst {
                inst.dst = Some(cur.destination()?);
            }
            if predicated {
                inst.predicate = Some(cur.source("the predicate token")?);
            }
            while !cur.at_end() {
                // Bounded: each source consumes at least one dword of the instruction.
                inst.src.push(cur.source("a source token")?);
            }
            let counts = opcode.source_counts(version);
            if !counts.contains(&inst.src.len()) {
                let expected = match counts {
                    [0] => "no source",
                    [1] => "1 source",
                    [2] => "2 source",
                    [3] => "3 source",
                    _ => "4 source",
                };
                return Err(count_error(expected, inst.src.len()));
            }
        }
    }
    if !cur.at_end() {
        return Err(count_error("fewer", length));
    }
    // Pushed here, not returned: a returned instruction was copied once more on its way.
    items.push(Item::Instruction(inst));
    Ok(length)
}

impl Program {
    /// The first instruction whose opcode the version does not define (`defi` in ps_2_0,
    /// `texbem` in ps_2_0, `mova` in vs_1_1…), as an error naming its offset. Decoding does
    /// not apply this rule, so that such streams can still be shown; lowering does.
    pub fn check_opcodes(&self) -> Result<(), DecodeError> {
        self.check_opcodes_as(self.version)
    }

    /// [`Self::check_opcodes`] against the opcodes of `checked` (relaxed limits check a 2_0
    /// program against 2_x); errors name the program's own version.
    pub fn check_opcodes_as(&self, checked: Version) -> Result<(), DecodeError> {
        match self.instructions().find(|i| !i.opcode.valid_in(checked)) {
            None => Ok(()),
            Some(i) => Err(DecodeError::new(
                i.offset,
                K::NotInVersion {
                    what: i.opcode.name(self.version),
                    version: self.version.to_string(),
                },
            )),
        }
    }
}
