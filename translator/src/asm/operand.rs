//! Operands: `[-][|]register[indices][.components][|] [{annotations}]` and immediates.
//!
//! What the component letters mean depends on how the operand is used (a write mask for
//! destinations and declared registers, a swizzle or selected component for sources), and
//! an operand without letters gets the component encoding the disassembler leaves unprinted;
//! both follow the tables of `docs/disassembly.md`. Relative index operands (`cb0[r1.x + 4]`)
//! go into the program's relative pool in the order the decoder reads them (inner before
//! outer), and nest at most [`MAX_RELATIVE_DEPTH`] deep, as the decoder accepts.

use crate::sm4::{
    Components, Index, IndexRepr, MAX_RELATIVE_DEPTH, MinPrecision, Modifier, Operand, OperandType,
};

use super::cursor::{Cursor, Note};
use super::error::Result;
use super::lexer::{Kind, Token};
use super::literal;

/// How an operand is used, which decides what its component letters mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Destination of an executable instruction: letters are a write mask.
    Dst,
    /// Declared register: letters are a mask (a swizzle for constant buffers).
    Decl,
    /// Source or relative index: 4 letters are a swizzle, 1 a selected component.
    Src,
}

/// Register files whose operands are scalars: no letters means one component.
fn scalar_by_default(ty: OperandType, role: Role) -> bool {
    use OperandType as T;
    let depth_like = matches!(
        ty,
        T::OutputDepth | T::OutputDepthGreaterEqual | T::OutputDepthLessEqual | T::OutputStencilRef
    );
    match role {
        Role::Decl => depth_like,
        _ => {
            depth_like
                || matches!(
                    ty,
                    T::OutputCoverageMask
                        | T::InputPrimitiveId
                        | T::OutputControlPointId
                        | T::InputCoverageMask
                        | T::InnerCoverage
                )
        }
    }
}

/// The component encoding of an operand written without letters.
fn default_components(ty: OperandType, immediate_values: usize, role: Role) -> Components {
    if ty.is_immediate() {
        return if immediate_values == 1 {
            Components::One
        } else {
            Components::Mask(0)
        };
    }
    if role == Role::Decl && ty == OperandType::ConstantBuffer {
        return Components::Swizzle([0, 1, 2, 3]);
    }
    if scalar_by_default(ty, role) {
        Components::One
    } else {
        Components::Zero
    }
}

/// The register file spelled `prefix` (`r`, `cb`, `vThreadID`, SM5.1's `T`/`CB`, …).
pub fn register_file(prefix: &str) -> Option<OperandType> {
    OperandType::from_name(prefix).or(match prefix {
        "T" => Some(OperandType::Resource),
        "S" => Some(OperandType::Sampler),
        "CB" => Some(OperandType::ConstantBuffer),
        "U" => Some(OperandType::UnorderedAccessView),
        _ => None,
    })
}

/// Splits `r12` into `("r", Some("12"))`, `vPrim` into `("vPrim", None)`.
fn split_register(text: &str) -> (&str, Option<&str>) {
    match text.find(|c: char| c.is_ascii_digit()) {
        Some(i) => (&text[..i], Some(&text[i..])),
        None => (text, None),
    }
}

/// Where operands are parsed into: the program's version and relative pool.
pub struct OperandContext<'p> {
    pub sm51: bool,
    pub relative: &'p mut Vec<Operand>,
}

/// What was written as an index.
struct ParsedIndex {
    index: Index,
    /// The `[…]` was a plain immediate (may be taken as a function-table index).
    plain: Option<u32>,
}

/// A parsed operand and, for `fcall`, the function-table index taken from its last bracket.
pub struct Parsed {
    pub operand: Operand,
    pub function_index: Option<u32>,
    /// A fourth bracketed index, accepted only on an SM5.1 constant buffer declaration
    /// (where the last bracket may be the buffer size: `CB0[1][2u64][4]`).
    pub extra_index: Option<Index>,
}

impl OperandContext<'_> {
    /// Parses one operand used as `role`. With `function_index`, the last bracketed index is
    /// `fcall`'s function-table index rather than an index of the operand.
    pub fn operand(
        &mut self,
        c: &mut Cursor<'_, '_>,
        role: Role,
        function_index: bool,
    ) -> Result<Parsed> {
        self.operand_at(c, role, function_index, 0)
    }

    fn operand_at(
        &mut self,
        c: &mut Cursor<'_, '_>,
        role: Role,
        function_index: bool,
        depth: u32,
    ) -> Result<Parsed> {
        let start = c.peek();
        let neg = c.eat('-').is_some();
        let abs = c.eat('|').is_some();
        let modifier = match (neg, abs) {
            (false, false) => Modifier::None,
            (true, false) => Modifier::Neg,
            (false, true) => Modifier::Abs,
            (true, true) => Modifier::AbsNeg,
        };
        let name = c.ident("an operand (register or l(…))")?;
        let (ty, immediates, mut indices, range) =
            if matches!(name.text, "l" | "d") && c.peek().is('(') && !c.peek().space_before {
                let (ty, words) = immediate(c, name.text == "d")?;
                (ty, words, Vec::new(), false)
            } else {
                let (ty, indices, range) = self.register(c, &name, role, depth)?;
                (ty, Vec::new(), indices, range)
            };

        let mut function = None;
        if function_index {
            let last = indices.pop().filter(|_| !range);
            match last.and_then(|i| i.plain) {
                Some(v) => function = Some(v),
                None => {
                    return Err(name.error(
                        "'fcall' needs the function-table index as the last bracket: 'fp0[0][1]'",
                    ));
                }
            }
        }
        let mut extra_index = None;
        if indices.len() == 4
            && role == Role::Decl
            && ty == OperandType::ConstantBuffer
            && self.sm51
            && !range
        {
            extra_index = indices.pop().map(|i| i.index);
        }
        if indices.len() > 3 {
            return Err(name.error("an operand has at most 3 indices"));
        }

        let values = if ty == OperandType::Immediate64 {
            immediates.len() / 2
        } else {
            immediates.len()
        };
        let letters = if c.peek().is('.') && !c.peek().space_before {
            c.next();
            let t = c.ident("component letters (x, y, z, w)")?;
            Some(t)
        } else {
            None
        };
        if abs {
            c.expect('|')?;
        }
        let notes = c.notes()?;

        let mut op = Operand::new(ty, Components::Zero);
        op.modifier = modifier;
        let mut forced = None;
        let mut letter_mode = None;
        for note in &notes {
            match (note.key.text, note.value.is_some()) {
                ("c0", false) => forced = Some(Components::Zero),
                ("c1", false) => forced = Some(Components::One),
                ("cN", false) => forced = Some(Components::N),
                (mode @ ("mask" | "swz" | "sel"), false) => letter_mode = Some(mode),
                ("nonuniform", false) => op.non_uniform = true,
                ("ext", false) => op.extended = true,
                ("bits", true) => op.reserved = note.u32()?,
                ("extbits", true) => op.ext_reserved = note.u32()?,
                (p, false)
                    if MinPrecision::from_name(p).is_some_and(|p| p != MinPrecision::Default) =>
                {
                    op.min_precision = MinPrecision::from_name(p).expect("checked");
                }
                _ => return Err(unknown_note(note)),
            }
        }
        op.components = match (forced, letters) {
            (Some(_), Some(l)) => {
                return Err(l.error("component letters cannot be combined with {c0}, {c1} or {cN}"));
            }
            (Some(f), None) => {
                if letter_mode.is_some() {
                    return Err(start.error("{mask}, {swz}, {sel} need component letters"));
                }
                f
            }
            (None, None) => match letter_mode {
                Some("mask") => Components::Mask(0),
                Some(_) => return Err(start.error("{swz} and {sel} need component letters")),
                None => default_components(ty, values, role),
            },
            (None, Some(l)) => components(&l, role, ty, letter_mode)?,
        };
        if ty.is_immediate() {
            let one = op.components == Components::One;
            let four = !matches!(
                op.components,
                Components::Zero | Components::One | Components::N
            );
            if values == 1 && !one {
                return Err(start.error("a one-value immediate has one component"));
            }
            if values > 1 && !four {
                return Err(start.error("a four-component immediate needs four components"));
            }
        }
        op.set_immediates(&immediates);
        for i in &indices {
            op.push_index(i.index);
        }
        if op.has_ext_content() {
            op.extended = true;
        }
        // Token bits the fields account for may not be given again as reserved bits.
        let mut known = op.components.defined_bits() | 0x803f_f000;
        for i in 0..op.index_dim() {
            known |= 7 << (22 + 3 * i);
        }
        if op.reserved & known != 0 {
            return Err(start.error(format!(
                "{{bits={:#x}}} overlaps operand token fields (allowed: {:#x})",
                op.reserved, !known
            )));
        }
        if op.ext_reserved & !0x7ffc_0000 != 0 {
            return Err(start.error(format!(
                "{{extbits={:#x}}} is outside extended operand token bits 18-30",
                op.ext_reserved
            )));
        }
        Ok(Parsed {
            operand: op,
            function_index: function,
            extra_index,
        })
    }

    /// A register: file, inline first index, bracketed indices (or an SM5.1 declaration range
    /// `T1[10:*]`). Returns the indices and whether they were a range.
    fn register(
        &mut self,
        c: &mut Cursor<'_, '_>,
        name: &Token<'_>,
        role: Role,
        depth: u32,
    ) -> Result<(OperandType, Vec<ParsedIndex>, bool)> {
        let (prefix, digits) = split_register(name.text);
        let ty = register_file(prefix)
            .filter(|t| !t.is_immediate())
            .ok_or_else(|| name.error(format!("unknown register '{}'", name.text)))?;
        let mut indices = Vec::new();
        if let Some(d) = digits {
            let t = Token { text: d, ..*name };
            let v = literal::parse_u32(&t, "a register number")?;
            indices.push(ParsedIndex {
                index: Index::imm(v),
                plain: Some(v),
            });
        }
        let mut range = false;
        while let Some(open) = c.eat('[') {
            if indices.len() >= 4 {
                return Err(open.error("an operand has at most 3 indices"));
            }
            // `T1[10:20]`, `T1[10:*]`: an SM5.1 descriptor range in a declaration.
            if c.peek().kind == Kind::Number && c.peek_at(1).is(':') {
                if role != Role::Decl || !ty.is_descriptor() || indices.len() != 1 {
                    return Err(open.error(
                        "a range '[lower:upper]' is only for t, s, cb and u registers in declarations",
                    ));
                }
                if !self.sm51 {
                    return Err(open.error("descriptor ranges '[lower:upper]' need SM5.1"));
                }
                let lo = c.u32("a lower bound")?;
                c.expect(':')?;
                let hi = if c.eat('*').is_some() {
                    u32::MAX
                } else {
                    c.u32("an upper bound or '*'")?
                };
                c.expect(']')?;
                for v in [lo, hi] {
                    indices.push(ParsedIndex {
                        index: Index::imm(v),
                        plain: None,
                    });
                }
                range = true;
                break;
            }
            let index = self.index(c, depth)?;
            c.expect(']')?;
            indices.push(index);
        }
        Ok((ty, indices, range))
    }

    /// One bracketed index: `N`, `Nu64`, `REG`, `REG + N`, `REG + 0u32`, `REG + Nu64`.
    fn index(&mut self, c: &mut Cursor<'_, '_>, depth: u32) -> Result<ParsedIndex> {
        if c.peek().kind == Kind::Number {
            let t = c.next();
            let (value, wide) = index_value(&t)?;
            let repr = if wide {
                IndexRepr::Imm64
            } else {
                IndexRepr::Imm32
            };
            return Ok(ParsedIndex {
                index: Index {
                    repr,
                    value,
                    relative: None,
                },
                plain: (!wide).then_some(value as u32),
            });
        }
        let at = c.peek();
        if depth >= MAX_RELATIVE_DEPTH {
            return Err(at.error(format!(
                "relative indices nest more than {MAX_RELATIVE_DEPTH} deep"
            )));
        }
        let rel = self.operand_at(c, Role::Src, false, depth + 1)?.operand;
        let position = u32::try_from(self.relative.len())
            .map_err(|_| at.error("too many relative index operands"))?;
        self.relative.push(rel);
        let (repr, value) = if c.eat('+').is_some() {
            let t = c.number("an index offset")?;
            let explicit = t.text.ends_with("u32");
            let (value, wide) = index_value(&t)?;
            if wide {
                (IndexRepr::Imm64PlusRelative, value)
            } else if value == 0 && !explicit {
                (IndexRepr::Relative, 0)
            } else {
                (IndexRepr::Imm32PlusRelative, value)
            }
        } else {
            (IndexRepr::Relative, 0)
        };
        Ok(ParsedIndex {
            index: Index {
                repr,
                value,
                relative: Some(position),
            },
            plain: None,
        })
    }
}

/// An index literal: `5`, `5u32` (32-bit), `5u64` (64-bit).
fn index_value(t: &Token<'_>) -> Result<(u64, bool)> {
    if let Some(text) = t.text.strip_suffix("u64") {
        let t = Token { text, ..*t };
        return Ok((literal::parse_unsigned(&t, u64::MAX, "an index")?, true));
    }
    let text = t.text.strip_suffix("u32").unwrap_or(t.text);
    let t = Token { text, ..*t };
    Ok((literal::parse_u32(&t, "an index")? as u64, false))
}

/// `l(a[, b, c, d])` or `d(a[, b])` after the `l`/`d`: the value dwords.
fn immediate(c: &mut Cursor<'_, '_>, double: bool) -> Result<(OperandType, Vec<u32>)> {
    let open = c.expect('(')?;
    let mut words = Vec::with_capacity(4);
    let mut count = 0;
    loop {
        let negative = c.eat('-').is_some();
        let t = c.number("a number")?;
        count += 1;
        if count > 4 {
            return Err(t.error("an immediate has at most 4 values"));
        }
        if double {
            let bits = literal::imm64_bits(&t, negative)?;
            words.extend_from_slice(&[bits as u32, (bits >> 32) as u32]);
        } else {
            words.push(literal::imm32_bits(&t, negative)?);
        }
        if c.eat(',').is_none() {
            break;
        }
    }
    c.expect(')')?;
    let ok = if double {
        matches!(count, 1 | 2)
    } else {
        matches!(count, 1 | 4)
    };
    if !ok {
        return Err(open.error(if double {
            "d(…) takes 1 or 2 values"
        } else {
            "l(…) takes 1 or 4 values"
        }));
    }
    let ty = if double {
        OperandType::Immediate64
    } else {
        OperandType::Immediate32
    };
    Ok((ty, words))
}

fn unknown_note(note: &Note<'_>) -> super::error::AsmError {
    note.error(format!(
        "unknown operand annotation '{}' (expected c0, c1, cN, mask, swz, sel, min16f, min2_8f, \
         min16i, min16u, nonuniform, ext, bits=…, extbits=…)",
        note.key.text
    ))
}

/// Component letters as 0–3 each.
fn letters(t: &Token<'_>) -> Result<Vec<u8>> {
    if t.text.len() > 4 {
        return Err(t.error("at most 4 component letters"));
    }
    t.text
        .chars()
        .map(|ch| match ch {
            'x' => Ok(0),
            'y' => Ok(1),
            'z' => Ok(2),
            'w' => Ok(3),
            _ => Err(t.error(format!("'{ch}' is not a component (x, y, z, w)"))),
        })
        .collect()
}

fn mask(t: &Token<'_>, comps: &[u8]) -> Result<Components> {
    if comps.windows(2).any(|w| w[0] >= w[1]) {
        return Err(t.error("mask letters must be distinct and in xyzw order"));
    }
    Ok(Components::Mask(comps.iter().fold(0, |m, c| m | 1 << c)))
}

/// What the letters `t` mean for an operand of this role.
fn components(
    t: &Token<'_>,
    role: Role,
    ty: OperandType,
    mode: Option<&str>,
) -> Result<Components> {
    let comps = letters(t)?;
    let swizzle_role =
        role == Role::Src || (role == Role::Decl && ty == OperandType::ConstantBuffer);
    let mode = mode.unwrap_or(if swizzle_role { "" } else { "mask" });
    match mode {
        "mask" => mask(t, &comps),
        "sel" => match comps.as_slice() {
            [c] => Ok(Components::Select1(*c)),
            _ => Err(t.error("{sel} takes one component letter")),
        },
        "swz" if comps.len() != 4 => Err(t.error("{swz} takes four component letters")),
        _ => match comps.as_slice() {
            [c] if mode != "swz" => Ok(Components::Select1(*c)),
            // `.xy` reads as `.xyyy`: the last letter repeats, as in the DirectX docs.
            _ => {
                let last = *comps.last().expect("an identifier is not empty");
                let mut s = [last; 4];
                s[..comps.len()].copy_from_slice(&comps);
                Ok(Components::Swizzle(s))
            }
        },
    }
}
