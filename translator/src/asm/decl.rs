//! Declarations: what follows a `dcl_*` mnemonic, per declaration layout, following the
//! declaration table of `docs/disassembly.md`.
//!
//! SM5.1 resource, sampler, constant-buffer and UAV declarations take a range
//! (`T1[10:*]`) and `, space=N`; a missing `space=` means space 0 (the disassembler always
//! prints it). Before SM5.1, a `space=` is an error.

use crate::sm4::opcodes::DeclKind;
use crate::sm4::{
    Declaration, IndexRepr, InterpolationMode, NameToken, Operand, Primitive, PrimitiveTopology,
    ReturnTypeToken, SamplerMode, SystemName, TessDomain, TessOutputPrimitive, TessPartitioning,
    global_flags,
};

use super::cursor::Cursor;
use super::error::Result;
use super::lexer::{Kind, Token};
use super::literal;
use super::mnemonic::{DeclHead, return_types};
use super::operand::{OperandContext, Role};

/// Bits of a declaration that come from its annotations.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeclNotes {
    /// `{namebits=…}`: bits 16–31 of a system-value name token.
    pub name_bits: u16,
    /// `{retbits=…}`: bits 16–31 of a return type token.
    pub ret_bits: u16,
}

/// A parsed declaration: its payload and its operand (if it has one).
pub struct Parsed {
    pub decl: Declaration,
    pub operand: Option<Operand>,
}

fn comma(c: &mut Cursor<'_, '_>) -> Result<()> {
    c.expect(',').map(|_| ())
}

/// `(t,t,t,t)` separated from the mnemonic by a space.
fn return_type_token(c: &mut Cursor<'_, '_>, bits: u16) -> Result<ReturnTypeToken> {
    if !c.peek().is('(') {
        return Err(c
            .peek()
            .expected("return types '(float,float,float,float)'"));
    }
    let g = c.group()?;
    Ok(ReturnTypeToken {
        types: return_types(&g)?,
        reserved: bits,
    })
}

/// `, space=N` (SM5.1; space 0 when absent) or nothing (before SM5.1).
fn space(c: &mut Cursor<'_, '_>, sm51: bool) -> Result<Option<u32>> {
    if c.peek().is(',') && c.peek_at(1).text == "space" {
        let at = c.next();
        c.next();
        c.expect('=')?;
        let s = c.u32("a register space")?;
        if !sm51 {
            return Err(at.error("register spaces need SM5.1"));
        }
        return Ok(Some(s));
    }
    Ok(sm51.then_some(0))
}

/// A name from an enumeration's spellings, or an error listing what was expected.
fn named<T>(t: &Token<'_>, lookup: fn(&str) -> Option<T>, what: &str) -> Result<T> {
    if t.kind == Kind::Ident
        && let Some(v) = lookup(t.text)
    {
        return Ok(v);
    }
    Err(t.expected(what))
}

fn name_token(c: &mut Cursor<'_, '_>, bits: u16) -> Result<NameToken> {
    comma(c)?;
    let t = c.next();
    Ok(NameToken {
        name: named(
            &t,
            SystemName::from_name,
            "a system value name (position, …)",
        )?,
        reserved: bits,
    })
}

/// Interpolation words (`linear noperspective centroid`); mode 0 when there are none.
fn interpolation(c: &mut Cursor<'_, '_>) -> Result<InterpolationMode> {
    const WORDS: [&str; 6] = [
        "constant",
        "linear",
        "noperspective",
        "centroid",
        "sample",
        "undefined",
    ];
    let first = c.peek();
    let mut words = Vec::new();
    while c.peek().kind == Kind::Ident && WORDS.contains(&c.peek().text) {
        words.push(c.next().text);
    }
    if words.is_empty() {
        return Ok(InterpolationMode::Undefined);
    }
    InterpolationMode::from_name(&words.join(" ")).ok_or_else(|| {
        first.error(format!(
            "unknown interpolation mode '{}' (constant, linear, linear centroid, linear \
             noperspective, linear noperspective centroid, linear sample, linear \
             noperspective sample)",
            words.join(" ")
        ))
    })
}

/// `{ft0, ft1}` / `{fb0}`: a braced list of `prefix#`.
fn id_list(c: &mut Cursor<'_, '_>, prefix: &str) -> Result<Box<[u32]>> {
    c.expect('{')?;
    let mut out = Vec::new();
    if c.eat('}').is_none() {
        loop {
            out.push(prefixed(c, prefix)?);
            if c.eat(',').is_none() {
                break;
            }
        }
        c.expect('}')?;
    }
    Ok(out.into())
}

/// `fb3`, `ft0`, `fp1`, `x2`: a fixed prefix and a number in one identifier.
fn prefixed(c: &mut Cursor<'_, '_>, prefix: &str) -> Result<u32> {
    let t = c.peek();
    let digits = (t.kind == Kind::Ident)
        .then(|| t.text.strip_prefix(prefix))
        .flatten()
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
    let Some(d) = digits else {
        return Err(t.expected(&format!("'{prefix}N'")));
    };
    c.next();
    literal::parse_u32(&Token { text: d, ..t }, &format!("a {prefix} number"))
}

/// Parses the rest of a declaration line (after the mnemonic and its annotations).
pub fn declaration(
    c: &mut Cursor<'_, '_>,
    ctx: &mut OperandContext<'_>,
    kind: DeclKind,
    head: &DeclHead,
    notes: DeclNotes,
) -> Result<Parsed> {
    use Declaration as D;
    let sm51 = ctx.sm51;
    let mut operand = None;
    let mut decl_op = |c: &mut Cursor<'_, '_>, ctx: &mut OperandContext<'_>| -> Result<()> {
        operand = Some(ctx.operand(c, Role::Decl, false)?.operand);
        Ok(())
    };
    let decl = match kind {
        DeclKind::Resource => {
            let dim = head.dim.expect("resource declarations have a dimension");
            let sample_count = head.sample_count.unwrap_or(0);
            if sample_count != 0 && !dim.is_multisampled() {
                return Err(c.peek().error(format!(
                    "only multisampled resources have a sample count, not {}",
                    dim.name()
                )));
            }
            let return_type = return_type_token(c, notes.ret_bits)?;
            decl_op(c, ctx)?;
            D::Resource {
                dim,
                sample_count,
                return_type,
                space: space(c, sm51)?,
            }
        }
        DeclKind::ConstantBuffer => {
            let at = c.peek();
            let parsed = ctx.operand(c, Role::Decl, false)?;
            let mut op = parsed.operand;
            let size = if sm51 {
                if c.peek().is('[') {
                    if parsed.extra_index.is_some() {
                        return Err(at.error("an operand has at most 3 indices"));
                    }
                    c.next();
                    let n = c.u32("a constant buffer size")?;
                    c.expect(']')?;
                    Some(n)
                } else {
                    // `CB0[0][4]` without a range: the last bracket is the size.
                    let mut indices: Vec<_> = op.indices().collect();
                    indices.extend(parsed.extra_index);
                    // (`CB0` alone has no size: its 0 is the register.)
                    let inline_only =
                        indices.len() == 1 && at.text.contains(|ch: char| ch.is_ascii_digit());
                    let (Some((last, rest)), false) = (indices.split_last(), inline_only) else {
                        return Err(at.error("expected the constant buffer size: 'CB0[0:0][4]'"));
                    };
                    let Some(n) = last
                        .as_immediate()
                        .filter(|&v| v <= u32::MAX as u64 && last.repr == IndexRepr::Imm32)
                    else {
                        return Err(at.error("the constant buffer size must be a number"));
                    };
                    let mut fresh = Operand::new(op.ty, op.components);
                    fresh.modifier = op.modifier;
                    fresh.min_precision = op.min_precision;
                    fresh.non_uniform = op.non_uniform;
                    fresh.extended = op.extended;
                    fresh.reserved = op.reserved;
                    fresh.ext_reserved = op.ext_reserved;
                    for i in rest {
                        fresh.push_index(*i);
                    }
                    op = fresh;
                    Some(n as u32)
                }
            } else {
                None
            };
            operand = Some(op);
            comma(c)?;
            let t = c.next();
            let dynamic_indexed = match t.text {
                "immediateIndexed" if t.kind == Kind::Ident => false,
                "dynamicIndexed" if t.kind == Kind::Ident => true,
                _ => return Err(t.expected("'immediateIndexed' or 'dynamicIndexed'")),
            };
            D::ConstantBuffer {
                dynamic_indexed,
                size,
                space: space(c, sm51)?,
            }
        }
        DeclKind::Sampler => {
            decl_op(c, ctx)?;
            comma(c)?;
            let t = c.next();
            let mode = named(
                &t,
                SamplerMode::from_name,
                "a sampler mode (mode_default, mode_comparison, mode_mono)",
            )?;
            D::Sampler {
                mode,
                space: space(c, sm51)?,
            }
        }
        DeclKind::IndexRange => {
            decl_op(c, ctx)?;
            D::IndexRange {
                count: c.u32("the register count")?,
            }
        }
        DeclKind::GsOutputTopology => {
            let t = c.next();
            D::GsOutputTopology(named(
                &t,
                PrimitiveTopology::from_name,
                "an output topology (pointlist, linestrip, trianglestrip, …)",
            )?)
        }
        DeclKind::GsInputPrimitive => {
            let t = c.next();
            D::GsInputPrimitive(named(
                &t,
                Primitive::from_name,
                "an input primitive (point, line, triangle, lineadj, triangleadj, patch1…patch32)",
            )?)
        }
        DeclKind::MaxOutputVertexCount => D::MaxOutputVertexCount(c.u32("a vertex count")?),
        DeclKind::Temps => D::Temps(c.u32("a register count")?),
        DeclKind::HsForkPhaseInstanceCount => {
            D::HsForkPhaseInstanceCount(c.u32("an instance count")?)
        }
        DeclKind::HsJoinPhaseInstanceCount => {
            D::HsJoinPhaseInstanceCount(c.u32("an instance count")?)
        }
        DeclKind::GsInstanceCount => D::GsInstanceCount(c.u32("an instance count")?),
        DeclKind::Input | DeclKind::Output | DeclKind::Stream => {
            decl_op(c, ctx)?;
            match kind {
                DeclKind::Input => D::Input,
                DeclKind::Output => D::Output,
                _ => D::Stream,
            }
        }
        DeclKind::InputSgv | DeclKind::InputSiv | DeclKind::OutputSgv | DeclKind::OutputSiv => {
            decl_op(c, ctx)?;
            let n = name_token(c, notes.name_bits)?;
            match kind {
                DeclKind::InputSgv => D::InputSgv(n),
                DeclKind::InputSiv => D::InputSiv(n),
                DeclKind::OutputSgv => D::OutputSgv(n),
                _ => D::OutputSiv(n),
            }
        }
        DeclKind::InputPs | DeclKind::InputPsSgv | DeclKind::InputPsSiv => {
            let mode = interpolation(c)?;
            decl_op(c, ctx)?;
            match kind {
                DeclKind::InputPs => D::InputPs(mode),
                DeclKind::InputPsSgv => D::InputPsSgv(mode, name_token(c, notes.name_bits)?),
                _ => D::InputPsSiv(mode, name_token(c, notes.name_bits)?),
            }
        }
        DeclKind::IndexableTemp => {
            let register = prefixed(c, "x")?;
            c.expect('[')?;
            let size = c.u32("the array size")?;
            c.expect(']')?;
            comma(c)?;
            D::IndexableTemp {
                register,
                size,
                components: c.u32("the component count")?,
            }
        }
        DeclKind::GlobalFlags => {
            let mut flags = 0;
            if !c.at_line_end() && !c.peek().is('{') {
                loop {
                    let t = c.next();
                    let bit = global_flags::NAMES
                        .iter()
                        .find(|(_, n)| t.kind == Kind::Ident && *n == t.text)
                        .map(|(b, _)| *b)
                        .ok_or_else(|| t.expected("a global flag (refactoringAllowed, …)"))?;
                    flags |= bit;
                    if c.eat('|').is_none() {
                        break;
                    }
                }
            }
            D::GlobalFlags(flags)
        }
        DeclKind::FunctionBody => D::FunctionBody(prefixed(c, "fb")?),
        DeclKind::FunctionTable => {
            let id = prefixed(c, "ft")?;
            c.expect('=')?;
            D::FunctionTable {
                id,
                bodies: id_list(c, "fb")?,
            }
        }
        DeclKind::Interface => {
            let id = prefixed(c, "fp")?;
            c.expect('[')?;
            let array = c.number("the interface array length")?;
            let array_length = literal::parse_unsigned(&array, 0xffff, "array length")? as u16;
            c.expect(']')?;
            c.expect('[')?;
            let table_length = c.u32("the function table length")?;
            c.expect(']')?;
            c.expect('=')?;
            let at = c.peek();
            let tables = id_list(c, "ft")?;
            if tables.len() > 0xffff {
                return Err(at.error("at most 65535 function tables"));
            }
            D::Interface {
                id,
                dynamic_indexed: head.dynamic_indexed,
                table_length,
                array_length,
                tables,
            }
        }
        DeclKind::InputControlPointCount | DeclKind::OutputControlPointCount => {
            let t = c.number("a control point count")?;
            let n = literal::parse_unsigned(&t, 63, "control point count")? as u8;
            if kind == DeclKind::InputControlPointCount {
                D::InputControlPointCount(n)
            } else {
                D::OutputControlPointCount(n)
            }
        }
        DeclKind::TessDomain => {
            let t = c.next();
            D::TessDomain(named(
                &t,
                TessDomain::from_name,
                "a domain (domain_isoline, domain_tri, domain_quad)",
            )?)
        }
        DeclKind::TessPartitioning => {
            let t = c.next();
            D::TessPartitioning(named(
                &t,
                TessPartitioning::from_name,
                "a partitioning (partitioning_integer, partitioning_pow2, \
                 partitioning_fractional_odd, partitioning_fractional_even)",
            )?)
        }
        DeclKind::TessOutputPrimitive => {
            let t = c.next();
            D::TessOutputPrimitive(named(
                &t,
                TessOutputPrimitive::from_name,
                "an output primitive (output_point, output_line, output_triangle_cw, \
                 output_triangle_ccw)",
            )?)
        }
        DeclKind::HsMaxTessFactor => {
            let at = c.peek();
            if !c.eat_word("l") {
                return Err(at.expected("'l(value)'"));
            }
            c.expect('(')?;
            let negative = c.eat('-').is_some();
            let t = c.number("a number")?;
            let bits = literal::imm32_bits(&t, negative)?;
            c.expect(')')?;
            D::HsMaxTessFactor(f32::from_bits(bits))
        }
        DeclKind::ThreadGroup => {
            let x = c.u32("the thread group width")?;
            comma(c)?;
            let y = c.u32("the thread group height")?;
            comma(c)?;
            D::ThreadGroup([x, y, c.u32("the thread group depth")?])
        }
        DeclKind::UavTyped => {
            let return_type = return_type_token(c, notes.ret_bits)?;
            decl_op(c, ctx)?;
            D::UavTyped {
                dim: head.dim.expect("typed UAV declarations have a dimension"),
                flags: head.uav,
                return_type,
                space: space(c, sm51)?,
            }
        }
        DeclKind::UavRaw => {
            decl_op(c, ctx)?;
            D::UavRaw {
                flags: head.uav,
                space: space(c, sm51)?,
            }
        }
        DeclKind::UavStructured => {
            decl_op(c, ctx)?;
            comma(c)?;
            let stride = c.u32("the structure stride")?;
            D::UavStructured {
                flags: head.uav,
                stride,
                space: space(c, sm51)?,
            }
        }
        DeclKind::TgsmRaw => {
            decl_op(c, ctx)?;
            comma(c)?;
            D::TgsmRaw {
                byte_count: c.u32("the byte count")?,
            }
        }
        DeclKind::TgsmStructured => {
            decl_op(c, ctx)?;
            comma(c)?;
            let stride = c.u32("the structure stride")?;
            comma(c)?;
            D::TgsmStructured {
                stride,
                count: c.u32("the structure count")?,
            }
        }
        DeclKind::ResourceRaw => {
            decl_op(c, ctx)?;
            D::ResourceRaw {
                space: space(c, sm51)?,
            }
        }
        DeclKind::ResourceStructured => {
            decl_op(c, ctx)?;
            comma(c)?;
            let stride = c.u32("the structure stride")?;
            D::ResourceStructured {
                stride,
                space: space(c, sm51)?,
            }
        }
    };
    Ok(Parsed { decl, operand })
}
