//! [`Program`] → token stream, the inverse of [`super::decode`]: `encode(decode(x)) == x`
//! for every stream the decoder accepts.

use super::decode::END_TOKEN;
use super::types::*;

/// A program that has no encoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("instruction {index}: {length} operand dwords do not fit the 4-bit length field")]
    TooLong { index: usize, length: usize },
    #[error("comment {index}: {length} dwords do not fit the 15-bit comment length")]
    CommentTooLong { index: usize, length: usize },
    #[error("instruction {index}: {what}")]
    Invalid { index: usize, what: &'static str },
}

fn register_bits(r: Register) -> u32 {
    let ty = r.ty as u32;
    (ty & 7) << 28 | (ty & 0x18) << 8 | u32::from(r.num) & 0x7FF
}

fn relative(out: &mut Vec<u32>, rel: Option<Relative>) -> u32 {
    match rel {
        None => 0,
        Some(Relative::Implied) => 0x2000,
        Some(Relative::Register { reg, swizzle }) => {
            out.push(0x8000_0000 | register_bits(reg) | u32::from(swizzle.bits()) << 16);
            0x2000
        }
    }
}

/// Appends a source token (and its relative-address token).
pub fn source(out: &mut Vec<u32>, s: &Source) {
    let at = out.len();
    out.push(0);
    let rel = relative(out, s.relative);
    out[at] = 0x8000_0000
        | register_bits(s.reg)
        | rel
        | u32::from(s.swizzle.bits()) << 16
        | (s.modifier as u32) << 24;
}

/// Appends a destination token (and its relative-address token).
pub fn destination(out: &mut Vec<u32>, d: &Destination) {
    let at = out.len();
    out.push(0);
    let rel = relative(out, d.relative);
    let mods =
        u32::from(d.saturate) | u32::from(d.partial_precision) << 1 | u32::from(d.centroid) << 2;
    out[at] = 0x8000_0000
        | register_bits(d.reg)
        | rel
        | u32::from(d.mask & 0xF) << 16
        | mods << 20
        | (u32::from(d.shift as u8) & 0xF) << 24;
}

fn dcl_token(d: Declaration) -> u32 {
    0x8000_0000
        | match d {
            Declaration::Semantic { usage, index } => usage as u32 | u32::from(index & 0xF) << 16,
            Declaration::Sampler(t) => (t as u32) << 27,
        }
}

/// Appends one instruction's tokens.
pub fn instruction(
    out: &mut Vec<u32>,
    version: Version,
    index: usize,
    i: &Instruction,
) -> Result<(), EncodeError> {
    let at = out.len();
    out.push(0);
    if let Some(d) = &i.dst {
        if let Extra::Dcl(decl) = i.extra {
            out.push(dcl_token(decl));
        }
        destination(out, d);
    } else if i.extra != Extra::None {
        return Err(EncodeError::Invalid {
            index,
            what: "dcl/def without a destination",
        });
    }
    if let Some(p) = &i.predicate {
        source(out, p);
    }
    for s in &i.src {
        source(out, s);
    }
    match i.extra {
        Extra::None | Extra::Dcl(_) => {}
        Extra::Def(v) => out.extend(v),
        Extra::DefI(v) => out.extend(v.map(|x| x as u32)),
        Extra::DefB(v) => out.push(v),
    }
    let length = out.len() - at - 1;
    if length > 15 {
        return Err(EncodeError::TooLong { index, length });
    }
    let controls = match i.controls {
        Controls::None => 0,
        Controls::Compare(c) => c as u32,
        Controls::Project => 1,
        Controls::Bias => 2,
    };
    let length_field = if version.major >= 2 { length as u32 } else { 0 };
    out[at] = i.opcode as u32
        | controls << 16
        | length_field << 24
        | u32::from(i.predicate.is_some()) << 28
        | u32::from(i.coissue) << 30;
    Ok(())
}

/// Encodes a program to its bytes (version token through END and the trailing bytes).
pub fn encode(p: &Program) -> Result<Vec<u8>, EncodeError> {
    let mut out = vec![p.version.token()];
    for (index, item) in p.items.iter().enumerate() {
        match item {
            Item::Instruction(i) => instruction(&mut out, p.version, index, i)?,
            Item::Comment(c) => {
                if c.data.len() > 0x7FFF {
                    return Err(EncodeError::CommentTooLong {
                        index,
                        length: c.data.len(),
                    });
                }
                out.push(0xFFFE | (c.data.len() as u32) << 16);
                out.extend(&c.data);
            }
        }
    }
    out.push(END_TOKEN);
    let mut bytes: Vec<u8> = out.iter().flat_map(|w| w.to_le_bytes()).collect();
    bytes.extend(&p.trailing);
    Ok(bytes)
}
