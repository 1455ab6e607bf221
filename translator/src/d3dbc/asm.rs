//! Assembly text (the syntax `Display for Program` prints, `docs/d3d9.md`) → [`Program`] →
//! token stream, so that `assemble(disassemble(blob)) == blob` and tests can write any
//! instruction, including the ps_1_x ones no HLSL compiler emits.
//!
//! The text is read line by line: the version line first (`vs_1_1` … `ps_3_0`, `_2_x`,
//! `_sw`), then instructions, `.comment` blocks (continued by lines of `0x` dwords) and an
//! optional final `.trailing` block of bytes. `//` and `;` start comments. The result is
//! encoded and decoded again, so anything the decoder would refuse (an operand count the
//! opcode does not take, say) is reported at its line; errors are [`AsmError`]s naming the
//! line and column.

use super::decode::decode;
use super::encode::{EncodeError, encode, instruction as encode_instruction};
use super::opcodes::{self, Layout, Opcode};
use super::types::*;
use crate::asm::AsmError;

type Result<T> = std::result::Result<T, AsmError>;

/// Parses a version line (`vs_2_0`, `ps_2_x`, `vs_3_sw`): D3D9 versions only.
pub fn parse_version(s: &str) -> Option<Version> {
    let mut parts = s.split('_');
    let stage = match parts.next()? {
        "vs" => Stage::Vertex,
        "ps" => Stage::Pixel,
        _ => return None,
    };
    let major: u8 = parts.next()?.parse().ok()?;
    let minor = match parts.next()? {
        "x" => 1,
        "sw" => 0xFF,
        n if n.len() == 1 => n.parse().ok()?,
        _ => return None,
    };
    if parts.next().is_some() || (major == 2 && minor == 1) && s.ends_with("_1") {
        return None;
    }
    let v = Version {
        stage,
        major,
        minor,
    };
    v.is_defined().then_some(v)
}

/// The first line that is not blank or a comment, trimmed.
fn first_line(text: &str) -> Option<(usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(n, l)| (n, strip_comment(l).trim()))
        .find(|(_, l)| !l.is_empty())
}

/// Whether `text` is D3D9 assembly: its first line is a D3D9 version (`vs_1_1` … `ps_3_0`).
pub fn is_d3d9_text(text: &str) -> bool {
    first_line(text).is_some_and(|(_, l)| parse_version(l).is_some())
}

fn strip_comment(line: &str) -> &str {
    let end = [line.find("//"), line.find(';')]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(line.len());
    &line[..end]
}

/// One line being parsed: its number and text, for errors.
struct Line<'a> {
    number: u32,
    text: &'a str,
}

impl Line<'_> {
    /// An error at byte position `at` of `part` (a slice of this line).
    fn err(&self, part: &str, at: usize, message: impl Into<String>) -> AsmError {
        let base = (part.as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize);
        let col = self
            .text
            .get(..base + at)
            .map_or(1, |s| s.chars().count() + 1);
        AsmError::new(self.number, col as u32, message)
    }
}

/// A small cursor over one operand.
struct Cur<'a, 'l> {
    line: &'l Line<'a>,
    s: &'a str,
    pos: usize,
}

impl<'a> Cur<'a, '_> {
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }
    fn skip_ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start().len();
    }
    fn eat(&mut self, p: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(p) {
            self.pos += p.len();
            true
        } else {
            false
        }
    }
    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let r = self.rest();
        let n = r.find(|c| !f(c)).unwrap_or(r.len());
        self.pos += n;
        &r[..n]
    }
    fn err(&self, message: impl Into<String>) -> AsmError {
        self.line.err(self.s, self.pos, message)
    }
    fn expect_end(&mut self) -> Result<()> {
        self.skip_ws();
        if self.rest().is_empty() {
            Ok(())
        } else {
            Err(self.err(format!("unexpected `{}`", self.rest())))
        }
    }
}

struct Parser {
    version: Version,
}

impl Parser {
    /// A register name and number (no relative part).
    /// A register; the flag says whether digits were written (`None`: a named register such
    /// as `oPos` that takes none).
    fn register(&self, c: &mut Cur<'_, '_>) -> Result<(Register, Option<bool>)> {
        use RegisterType::*;
        c.skip_ws();
        let start = c.pos;
        let name = c.take_while(|ch| ch.is_ascii_alphabetic());
        let digits = c.take_while(|ch| ch.is_ascii_digit());
        let v = self.version;
        let fixed = |ty, num| Some((ty, num, false));
        let (ty, num, numbered) = match name {
            "oPos" => fixed(RastOut, 0),
            "oFog" => fixed(RastOut, 1),
            "oPts" => fixed(RastOut, 2),
            "oDepth" => fixed(DepthOut, 0),
            "vPos" => fixed(Misc, 0),
            "vFace" => fixed(Misc, 1),
            "aL" => fixed(Loop, 0),
            "r" => Some((Temp, 0, true)),
            "v" => Some((Input, 0, true)),
            "c" => Some((Const, 0, true)),
            "a" if v.is_vertex() => Some((AddrOrTexture, 0, true)),
            "t" if !v.is_vertex() => Some((AddrOrTexture, 0, true)),
            "oD" => Some((AttrOut, 0, true)),
            "oT" | "o" => Some((Output, 0, true)),
            "i" => Some((ConstInt, 0, true)),
            "oC" => Some((ColorOut, 0, true)),
            "s" => Some((Sampler, 0, true)),
            "b" => Some((ConstBool, 0, true)),
            "half" => Some((TempFloat16, 0, true)),
            "l" => Some((Label, 0, true)),
            "p" => Some((Predicate, 0, true)),
            _ => None,
        }
        .ok_or_else(|| {
            c.line.err(
                c.s,
                start,
                format!("unknown register `{name}{digits}` in {v}"),
            )
        })?;
        if !numbered {
            if !digits.is_empty() {
                return Err(c.line.err(c.s, start, format!("`{name}` takes no number")));
            }
            return Ok((Register { ty, num }, None));
        }
        if digits.is_empty() {
            return Ok((Register { ty, num: 0 }, Some(false)));
        }
        let n: u32 = digits
            .parse()
            .map_err(|_| c.line.err(c.s, start, "register number too large"))?;
        Ok((self.numbered(c, start, ty, n)?, Some(true)))
    }

    fn numbered(&self, c: &Cur<'_, '_>, at: usize, ty: RegisterType, n: u32) -> Result<Register> {
        let (ty, n) = match (ty, n) {
            (RegisterType::Const, 2048..=4095) => (RegisterType::Const2, n - 2048),
            (RegisterType::Const, 4096..=6143) => (RegisterType::Const3, n - 4096),
            (RegisterType::Const, 6144..=8191) => (RegisterType::Const4, n - 6144),
            _ => (ty, n),
        };
        if n > 0x7FF {
            return Err(c.line.err(c.s, at, "register number too large"));
        }
        Ok(Register { ty, num: n as u16 })
    }

    fn swizzle(&self, c: &mut Cur<'_, '_>) -> Result<Swizzle> {
        if !c.rest().starts_with('.') {
            return Ok(Swizzle::IDENTITY);
        }
        c.pos += 1;
        let at = c.pos;
        let letters = c.take_while(|ch| ch.is_ascii_alphabetic());
        if letters.is_empty() || letters.len() > 4 {
            return Err(c
                .line
                .err(c.s, at, "expected a swizzle of 1 to 4 components"));
        }
        let mut out = [0u8; 4];
        for (i, ch) in letters.chars().enumerate() {
            out[i] = component(ch).ok_or_else(|| {
                c.line
                    .err(c.s, at + i, format!("`{ch}` is not a component"))
            })?;
        }
        let last = out[letters.len() - 1];
        out[letters.len()..].fill(last);
        Ok(Swizzle(out))
    }

    /// The register with an optional `[rel + n]` part.
    fn indexed(&self, c: &mut Cur<'_, '_>) -> Result<(Register, Option<Relative>)> {
        let start = c.pos;
        let (reg, digits) = self.register(c)?;
        if !c.rest().starts_with('[') {
            if digits == Some(false) {
                return Err(c.line.err(c.s, start, "the register needs a number"));
            }
            return Ok((reg, None));
        }
        c.pos += 1;
        let at = c.pos;
        let (rel_reg, rel_digits) = self.register(c)?;
        if rel_digits == Some(false) {
            return Err(c.line.err(c.s, at, "the index register needs a number"));
        }
        let swizzle = self.swizzle(c)?;
        let mut offset = 0u32;
        if c.eat("+") {
            c.skip_ws();
            let p = c.pos;
            offset = c
                .take_while(|ch| ch.is_ascii_digit())
                .parse()
                .map_err(|_| c.line.err(c.s, p, "expected an offset"))?;
        }
        if !c.eat("]") {
            return Err(c.err("expected `]`"));
        }
        let reg = match digits {
            None if offset != 0 => {
                return Err(c.line.err(c.s, start, "a named register takes no offset"));
            }
            None => reg,
            Some(_) => {
                let base = super::disasm::register_number(reg);
                self.numbered(c, start, reg.ty, base.saturating_add(offset))?
            }
        };
        let v = self.version;
        let rel = if v.relative_token() {
            Relative::Register {
                reg: rel_reg,
                swizzle,
            }
        } else if v.is_vertex()
            && rel_reg.ty == RegisterType::AddrOrTexture
            && rel_reg.num == 0
            && swizzle == Swizzle([0; 4])
        {
            Relative::Implied
        } else if v.is_vertex() {
            return Err(c.line.err(c.s, at, format!("{v} indexes only with a0.x")));
        } else {
            return Err(c
                .line
                .err(c.s, at, format!("{v} has no relative addressing")));
        };
        Ok((reg, Some(rel)))
    }

    fn source(&self, c: &mut Cur<'_, '_>) -> Result<Source> {
        c.skip_ws();
        let (mut neg, mut comp, mut not) = (false, false, false);
        if c.rest().starts_with('1') {
            c.pos += 1;
            if !c.eat("-") {
                return Err(c.err("expected `1 - register`"));
            }
            comp = true;
        } else if c.eat("-") {
            neg = true;
        } else if c.eat("!") {
            not = true;
        }
        c.skip_ws();
        let (reg, relative) = self.indexed(c)?;
        let mut suffix = "";
        if c.rest().starts_with('_') {
            c.pos += 1;
            suffix = c.take_while(|ch| ch.is_ascii_alphanumeric());
        }
        use SourceModifier as M;
        let modifier = match (suffix, neg) {
            _ if (comp || not) && !suffix.is_empty() => None,
            ("", _) if comp => Some(M::Comp),
            ("", _) if not => Some(M::Not),
            ("", false) => Some(M::None),
            ("", true) => Some(M::Neg),
            ("bias", n) => Some(if n { M::BiasNeg } else { M::Bias }),
            ("bx2", n) => Some(if n { M::SignNeg } else { M::Sign }),
            ("x2", n) => Some(if n { M::X2Neg } else { M::X2 }),
            ("abs", n) => Some(if n { M::AbsNeg } else { M::Abs }),
            ("dz" | "db", false) => Some(M::Dz),
            ("dw" | "da", false) => Some(M::Dw),
            _ => None,
        }
        .ok_or_else(|| {
            c.err(format!(
                "no source modifier is spelled this way (`_{suffix}`)"
            ))
        })?;
        let swizzle = self.swizzle(c)?;
        Ok(Source {
            reg,
            swizzle,
            modifier,
            relative,
        })
    }

    fn destination(&self, c: &mut Cur<'_, '_>) -> Result<Destination> {
        c.skip_ws();
        let (reg, relative) = self.indexed(c)?;
        let mut mask = 0xF;
        if c.rest().starts_with('.') {
            c.pos += 1;
            let at = c.pos;
            let letters = c.take_while(|ch| ch.is_ascii_alphabetic());
            mask = 0;
            if letters != "none" {
                for (i, ch) in letters.chars().enumerate() {
                    let bit = component(ch).map(|n| 1u8 << n);
                    match bit {
                        Some(b) if mask & b == 0 => mask |= b,
                        _ => {
                            return Err(c.line.err(
                                c.s,
                                at + i,
                                "invalid or repeated mask component",
                            ));
                        }
                    }
                }
                if mask == 0 {
                    return Err(c.line.err(c.s, at, "expected a write mask"));
                }
            }
        }
        Ok(Destination {
            reg,
            mask,
            saturate: false,
            partial_precision: false,
            centroid: false,
            shift: 0,
            relative,
        })
    }

    fn instruction(&self, line: &Line<'_>, text: &str) -> Result<Instruction> {
        let mut c = Cur {
            line,
            s: text,
            pos: 0,
        };
        let coissue = c.eat("+");
        let mut predicate = None;
        if c.eat("(") {
            predicate = Some(self.source(&mut c)?);
            if !c.eat(")") {
                return Err(c.err("expected `)` after the predicate"));
            }
        }
        c.skip_ws();
        let m_at = c.pos;
        let mnemonic = c.take_while(|ch| !ch.is_whitespace());
        let mut parts = mnemonic.split('_');
        let base = parts.next().unwrap_or_default();
        let (mut opcode, mut controls) = match base {
            "texldp" => (Opcode::Tex, Controls::Project),
            "texldb" => (Opcode::Tex, Controls::Bias),
            _ => (
                opcodes::by_name(base)
                    .ok_or_else(|| line.err(text, m_at, format!("unknown instruction `{base}`")))?,
                Controls::None,
            ),
        };
        let mut dst_mods = (false, false, false, 0i8);
        let mut decl = None;
        for (k, part) in parts.enumerate() {
            let bad = || {
                line.err(
                    text,
                    m_at,
                    format!("`{mnemonic}`: unknown suffix `_{part}`"),
                )
            };
            if let Some(cmp) = Comparison::ALL.iter().find(|c| c.name() == part) {
                // `if_gt`/`break_ne` are Microsoft's spelling of ifc/breakc.
                match opcode {
                    Opcode::If if controls == Controls::None => opcode = Opcode::IfC,
                    Opcode::Break if controls == Controls::None => opcode = Opcode::BreakC,
                    _ => {}
                }
                if !opcode.has_comparison() || controls != Controls::None {
                    return Err(bad());
                }
                controls = Controls::Compare(*cmp);
                continue;
            }
            match part {
                "sat" => dst_mods.0 = true,
                "pp" => dst_mods.1 = true,
                "centroid" => dst_mods.2 = true,
                "x2" => dst_mods.3 = 1,
                "x4" => dst_mods.3 = 2,
                "x8" => dst_mods.3 = 3,
                "d2" => dst_mods.3 = -1,
                "d4" => dst_mods.3 = -2,
                "d8" => dst_mods.3 = -3,
                _ if part.starts_with("shift") => {
                    dst_mods.3 = part[5..]
                        .parse()
                        .ok()
                        .filter(|n| (-8..=7).contains(n))
                        .ok_or_else(bad)?;
                }
                _ if opcode == Opcode::Dcl && k == 0 => {
                    decl = Some(declaration(part).ok_or_else(bad)?);
                }
                _ => return Err(bad()),
            }
        }
        if opcode.has_comparison() && controls == Controls::None {
            return Err(line.err(
                text,
                m_at,
                format!("`{base}` needs a comparison (`{base}_gt`…)"),
            ));
        }
        // Operands, split at top-level commas.
        let ops_text = c.rest();
        let mut operands = Vec::new();
        let (mut depth, mut start) = (0i32, 0);
        for (i, ch) in ops_text.char_indices() {
            match ch {
                '[' | '(' => depth += 1,
                ']' | ')' => depth -= 1,
                ',' if depth == 0 => {
                    operands.push(&ops_text[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        if !ops_text.trim().is_empty() || start > 0 {
            operands.push(&ops_text[start..]);
        }
        let mut ops = operands.into_iter();
        let mut inst = Instruction {
            offset: 0,
            opcode,
            controls,
            coissue,
            predicate,
            dst: None,
            src: Sources::new(),
            extra: Extra::None,
        };
        let layout = opcode.info().layout;
        if opcode.has_destination() {
            let op = ops
                .next()
                .ok_or_else(|| line.err(text, text.len(), "expected a destination operand"))?;
            let mut oc = Cur {
                line,
                s: op,
                pos: 0,
            };
            let mut d = self.destination(&mut oc)?;
            oc.expect_end()?;
            (d.saturate, d.partial_precision, d.centroid, d.shift) = dst_mods;
            inst.dst = Some(d);
        } else if dst_mods != (false, false, false, 0) {
            return Err(line.err(text, m_at, format!("`{base}` has no destination to modify")));
        }
        let mut value = |what: &str| -> Result<&str> {
            ops.next()
                .ok_or_else(|| line.err(text, text.len(), format!("expected {what}")))
        };
        match layout {
            Layout::Dcl => {
                let reg = inst.dst.map(|d| d.reg.ty);
                let d = match decl {
                    None if reg == Some(RegisterType::Sampler) => {
                        Declaration::Sampler(TextureType::Unknown)
                    }
                    None => Declaration::Semantic {
                        usage: Usage::Position,
                        index: 0,
                    },
                    Some(d) => d,
                };
                if matches!(d, Declaration::Sampler(_)) != (reg == Some(RegisterType::Sampler)) {
                    return Err(line.err(
                        text,
                        m_at,
                        "samplers take a texture type (dcl_2d), other registers a usage",
                    ));
                }
                inst.extra = Extra::Dcl(d);
            }
            Layout::Def4 => {
                let mut vals = [0u32; 4];
                for v in &mut vals {
                    let op = value("four values")?;
                    *v = if opcode == Opcode::Def {
                        parse_f32(op.trim())
                    } else {
                        parse_int(op.trim())
                    }
                    .ok_or_else(|| line.err(op, 0, format!("invalid value `{}`", op.trim())))?;
                }
                inst.extra = if opcode == Opcode::Def {
                    Extra::Def(vals)
                } else {
                    Extra::DefI(vals.map(|x| x as i32))
                };
            }
            Layout::Def1 => {
                let op = value("a boolean")?;
                let v = match op.trim() {
                    "true" => Some(1),
                    "false" => Some(0),
                    s => parse_int(s),
                }
                .ok_or_else(|| line.err(op, 0, format!("invalid boolean `{}`", op.trim())))?;
                inst.extra = Extra::DefB(v);
            }
            Layout::Plain { .. } => {
                for op in ops.by_ref() {
                    let mut oc = Cur {
                        line,
                        s: op,
                        pos: 0,
                    };
                    inst.src.push(self.source(&mut oc)?);
                    oc.expect_end()?;
                }
            }
        }
        if let Some(op) = ops.next() {
            return Err(line.err(op, 0, "too many operands"));
        }
        Ok(inst)
    }
}

fn component(ch: char) -> Option<u8> {
    match ch {
        'x' | 'r' => Some(0),
        'y' | 'g' => Some(1),
        'z' | 'b' => Some(2),
        'w' | 'a' => Some(3),
        _ => None,
    }
}

fn declaration(part: &str) -> Option<Declaration> {
    if let Some(t) = TextureType::ALL.iter().find(|t| t.name() == part) {
        return Some(Declaration::Sampler(*t));
    }
    let name = part.trim_end_matches(|c: char| c.is_ascii_digit());
    let digits = &part[name.len()..];
    let usage = *Usage::ALL.iter().find(|u| u.name() == name)?;
    let index = if digits.is_empty() {
        0
    } else {
        digits.parse::<u8>().ok().filter(|&i| i < 16)?
    };
    Some(Declaration::Semantic { usage, index })
}

fn parse_hex(s: &str) -> Option<u32> {
    let h = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    u32::from_str_radix(h, 16).ok()
}

fn parse_f32(s: &str) -> Option<u32> {
    parse_hex(s).or_else(|| s.parse::<f32>().ok().map(f32::to_bits))
}

fn parse_int(s: &str) -> Option<u32> {
    parse_hex(s).or_else(|| s.parse::<i32>().ok().map(|v| v as u32))
}

/// Where a parsed item came from.
struct Parsed {
    program: Program,
    lines: Vec<u32>,
}

fn parse_text(text: &str) -> Result<Parsed> {
    let (first, vline) = first_line(text).ok_or_else(|| AsmError::new(1, 1, "empty text"))?;
    let version = parse_version(vline).ok_or_else(|| {
        AsmError::new(
            first as u32 + 1,
            1,
            format!("expected a D3D9 version line (vs_1_1 … ps_3_0), found `{vline}`"),
        )
    })?;
    let parser = Parser { version };
    let mut program = Program {
        version,
        items: Vec::new(),
        end_offset: 0,
        trailing: Vec::new(),
    };
    let mut lines = Vec::new();
    #[derive(PartialEq)]
    enum Mode {
        Code,
        Comment,
        Trailing,
    }
    let mut mode = Mode::Code;
    for (n, raw) in text.lines().enumerate().skip(first + 1) {
        let line = Line {
            number: n as u32 + 1,
            text: raw,
        };
        let body = strip_comment(raw).trim();
        if body.is_empty() {
            continue;
        }
        let words = |s: &str, bytes: bool| -> Result<Vec<u32>> {
            s.split_whitespace()
                .map(|w| {
                    let v = if bytes {
                        u8::from_str_radix(w, 16).ok().map(u32::from)
                    } else {
                        parse_hex(w)
                    };
                    v.ok_or_else(|| line.err(w, 0, format!("expected a hex value, found `{w}`")))
                })
                .collect()
        };
        if mode == Mode::Trailing {
            program
                .trailing
                .extend(words(body, true)?.into_iter().map(|b| b as u8));
        } else if let Some(rest) = body.strip_prefix(".comment") {
            program.items.push(Item::Comment(Comment {
                offset: 0,
                data: words(rest, false)?,
            }));
            lines.push(line.number);
            mode = Mode::Comment;
        } else if let Some(rest) = body.strip_prefix(".trailing") {
            program.trailing = words(rest, true)?.into_iter().map(|b| b as u8).collect();
            mode = Mode::Trailing;
        } else if mode == Mode::Comment && body.starts_with("0x") {
            if let Some(Item::Comment(c)) = program.items.last_mut() {
                c.data.extend(words(body, false)?);
            }
        } else {
            mode = Mode::Code;
            let inst = parser.instruction(&line, body)?;
            program.items.push(Item::Instruction(inst));
            lines.push(line.number);
        }
    }
    Ok(Parsed { program, lines })
}

/// Parses a text into a program (offsets filled in as the encoding places them), checking
/// that the decoder reads the encoding back as the same program.
pub fn parse(text: &str) -> Result<Program> {
    let Parsed { mut program, lines } = parse_text(text)?;
    let at_line = |index: usize, message: String| {
        AsmError::new(lines.get(index).copied().unwrap_or(1), 1, message)
    };
    // Offsets, as the encoder places the items.
    let mut pos = 4;
    let version = program.version;
    for (index, item) in program.items.iter_mut().enumerate() {
        match item {
            Item::Instruction(i) => {
                let mut tokens = Vec::new();
                encode_instruction(&mut tokens, version, index, i)
                    .map_err(|e| at_line(index, e.to_string()))?;
                i.offset = pos;
                pos += 4 * tokens.len();
            }
            Item::Comment(c) => {
                c.offset = pos;
                pos += 4 + 4 * c.data.len();
            }
        }
    }
    program.end_offset = pos;
    let bytes = encode(&program).map_err(|e| match e {
        EncodeError::TooLong { index, .. }
        | EncodeError::CommentTooLong { index, .. }
        | EncodeError::Invalid { index, .. } => at_line(index, e.to_string()),
    })?;
    let item_at = |offset: usize| {
        program
            .items
            .iter()
            .rposition(|i| match i {
                Item::Instruction(i) => i.offset <= offset,
                Item::Comment(c) => c.offset <= offset,
            })
            .unwrap_or(0)
    };
    let decoded = decode(&bytes).map_err(|e| at_line(item_at(e.offset), e.kind.to_string()))?;
    if let Some(index) =
        (0..program.items.len()).find(|&k| decoded.items.get(k) != program.items.get(k))
    {
        return Err(at_line(
            index,
            "the encoding does not decode to this instruction".into(),
        ));
    }
    Ok(program)
}

/// Assembles a text into a token stream.
pub fn assemble(text: &str) -> Result<Vec<u8>> {
    let program = parse(text)?;
    encode(&program).map_err(|e| AsmError::new(1, 1, e.to_string()))
}
