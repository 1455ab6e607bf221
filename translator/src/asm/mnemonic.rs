//! Mnemonics: the base opcode name and its suffixes.
//!
//! A mnemonic is one identifier with attached `(…)` groups and `_word` continuations, e.g.
//! `ld_aoffimmi_indexable(-1,2,0)(texture2d)(float,float,float,float)`,
//! `resinfo_indexable(texture2d)(uint,uint,uint,uint)_uint`, `sync_uglobal_g_t`,
//! `dcl_uav_typed_texture2d_glc`, `dcl_resource_texture2dms(4)`. It is split into words
//! and groups; the base name is the longest opcode name that its leading words spell and
//! that leaves a valid suffix sequence (so `dcl_resource_raw_buffer` falls back from
//! `dcl_resource_raw` to `dcl_resource` with dimension `raw_buffer`). Suffixes follow the
//! order of `docs/disassembly.md`.

use crate::sm4::opcodes::{ALL_OPCODES, Control, DeclKind, Layout};
use crate::sm4::{
    OpControl, Opcode, ResInfoReturnType, ResourceDimension, ReturnType, UavFlags, sync_flags,
};

use super::cursor::{Cursor, Group};
use super::error::{AsmError, Result};
use super::lexer::{Kind, Token};
use super::literal;

/// One part of a mnemonic.
#[derive(Debug, Clone)]
enum Part<'a> {
    Word {
        text: &'a str,
        line: u32,
        column: u32,
    },
    Group(Group<'a>),
}

impl Part<'_> {
    fn word(&self) -> Option<&str> {
        match self {
            Part::Word { text, .. } => Some(text),
            Part::Group(_) => None,
        }
    }

    fn error(&self, message: impl Into<String>) -> AsmError {
        match self {
            Part::Word { line, column, .. } => AsmError::new(*line, *column, message),
            Part::Group(g) => g.open.error(message),
        }
    }

    fn describe(&self) -> String {
        match self {
            Part::Word { text, .. } => format!("suffix '_{text}'"),
            Part::Group(_) => "a '(…)' group".into(),
        }
    }
}

/// What an executable instruction's mnemonic says.
#[derive(Debug, Clone, Default)]
pub struct ExecHead {
    pub saturate: bool,
    pub control: OpControl,
    /// `_aoffimmi(u,v,w)`.
    pub offsets: Option<[i8; 3]>,
    /// `_indexable(dim[, stride=n])`.
    pub dim: Option<(ResourceDimension, u16)>,
    /// `(t,t,t,t)`.
    pub return_type: Option<[ReturnType; 4]>,
}

/// What a declaration's mnemonic says besides the opcode.
#[derive(Debug, Clone, Default)]
pub struct DeclHead {
    pub dim: Option<ResourceDimension>,
    pub sample_count: Option<u8>,
    pub uav: UavFlags,
    pub dynamic_indexed: bool,
}

/// A resolved mnemonic.
#[derive(Debug, Clone)]
pub enum Head {
    Exec(Opcode, ExecHead),
    Decl(Opcode, DeclKind, DeclHead),
    /// `dcl_immediateConstantBuffer`.
    ImmediateConstantBuffer,
    /// `dcl_customdata`.
    CustomData,
}

/// Splits `text` (which starts at `line`/`column`) at underscores into words.
fn push_words<'a>(parts: &mut Vec<Part<'a>>, text: &'a str, line: u32, column: u32) {
    let mut offset = 0u32;
    for word in text.split('_') {
        if !word.is_empty() {
            parts.push(Part::Word {
                text: word,
                line,
                column: column + offset,
            });
        }
        offset += word.len() as u32 + 1;
    }
}

/// Reads the mnemonic whose first identifier is next and resolves it.
pub fn mnemonic<'a>(c: &mut Cursor<'_, 'a>) -> Result<(Token<'a>, Head)> {
    let first = c.ident("an instruction or declaration")?;
    let mut parts = Vec::new();
    push_words(&mut parts, first.text, first.line, first.column);
    loop {
        let t = c.peek();
        if t.space_before {
            break;
        }
        if t.is('(') {
            parts.push(Part::Group(c.group()?));
        } else if t.kind == Kind::Ident && t.text.starts_with('_') {
            c.next();
            push_words(&mut parts, t.text, t.line, t.column);
        } else {
            break;
        }
    }
    resolve(&first, &parts).map(|h| (first, h))
}

/// The names an assembler accepts as bases, split into words.
fn candidates(parts: &[Part<'_>]) -> Vec<(usize, Option<Opcode>, &'static str)> {
    let mut out = Vec::new();
    let words: Vec<&str> = parts.iter().map_while(Part::word).collect();
    let mut consider = |name: &'static str, opcode: Option<Opcode>| {
        let n = name.split('_').count();
        if n <= words.len() && name.split('_').zip(&words).all(|(a, b)| a == *b) {
            out.push((n, opcode, name));
        }
    };
    for &op in ALL_OPCODES {
        if op != Opcode::CustomData {
            consider(op.name(), Some(op));
        }
    }
    consider("dcl_immediateConstantBuffer", None);
    consider("dcl_customdata", None);
    out.sort_by_key(|c| std::cmp::Reverse(c.0));
    out
}

fn resolve(first: &Token<'_>, parts: &[Part<'_>]) -> Result<Head> {
    let cands = candidates(parts);
    let mut first_error = None;
    for (n, opcode, name) in cands {
        let rest = &parts[n..];
        let result = match opcode {
            None => {
                if let Some(p) = rest.first() {
                    Err(p.error(format!("unexpected {} after '{name}'", p.describe())))
                } else if name == "dcl_customdata" {
                    Ok(Head::CustomData)
                } else {
                    Ok(Head::ImmediateConstantBuffer)
                }
            }
            Some(op) => match op.info().layout {
                Layout::Decl(kind) => {
                    decl_suffixes(first, op, kind, rest).map(|h| Head::Decl(op, kind, h))
                }
                _ => exec_suffixes(first, op, rest).map(|h| Head::Exec(op, h)),
            },
        };
        match result {
            Ok(h) => return Ok(h),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or_else(|| first.error(format!("unknown instruction '{}'", first.text))))
}

/// Walks the parts after the base name.
struct Suffixes<'p, 'a> {
    parts: &'p [Part<'a>],
    i: usize,
}

impl<'a> Suffixes<'_, 'a> {
    fn peek_word(&self) -> Option<&str> {
        self.parts.get(self.i).and_then(Part::word)
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if self.peek_word() == Some(word) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn group(&mut self) -> Option<&Group<'a>> {
        match self.parts.get(self.i) {
            Some(Part::Group(g)) => {
                self.i += 1;
                Some(g)
            }
            _ => None,
        }
    }

    /// Everything consumed, or an error naming the first part left over.
    fn finish(&self, name: &str) -> Result<()> {
        match self.parts.get(self.i) {
            None => Ok(()),
            Some(p) => Err(p.error(format!("unexpected {} in '{name}'", p.describe()))),
        }
    }

    /// The dimension spelled by the next one or two words.
    fn dimension(&mut self) -> Option<ResourceDimension> {
        let w0 = self.peek_word()?;
        if let Some(w1) = self.parts.get(self.i + 1).and_then(Part::word)
            && let Some(d) = ResourceDimension::from_name(&format!("{w0}_{w1}"))
        {
            self.i += 2;
            return Some(d);
        }
        let d = ResourceDimension::from_name(w0)?;
        self.i += 1;
        Some(d)
    }
}

fn exec_suffixes(first: &Token<'_>, op: Opcode, parts: &[Part<'_>]) -> Result<ExecHead> {
    let info = op.info();
    let name = info.name;
    let mut s = Suffixes { parts, i: 0 };
    let mut head = ExecHead::default();
    match info.control {
        Control::Sync => {
            let mut flags = 0;
            while let Some(w) = s.peek_word() {
                let Some((bit, _)) = sync_flags::NAMES.iter().find(|(_, n)| &n[1..] == w) else {
                    break;
                };
                if flags & bit != 0 {
                    return Err(parts[s.i].error(format!("sync flag '_{w}' given twice")));
                }
                flags |= bit;
                s.i += 1;
            }
            head.control = OpControl::Sync(flags);
        }
        Control::Test => {
            head.control = if s.eat_word("nz") {
                OpControl::Test { nonzero: true }
            } else if s.eat_word("z") {
                OpControl::Test { nonzero: false }
            } else {
                let at = parts.get(s.i);
                let message = format!("'{name}' needs a test suffix: '{name}_nz' or '{name}_z'");
                return Err(match at {
                    Some(p) => p.error(message),
                    None => first.error(message),
                });
            };
        }
        Control::ResInfo => head.control = OpControl::ResInfo(ResInfoReturnType::Float),
        Control::SampleInfo => head.control = OpControl::SampleInfo { uint: false },
        Control::Standard | Control::Decl => {}
    }
    let aoff = s.eat_word("aoffimmi");
    let indexable = s.eat_word("indexable");
    if aoff {
        let g = s
            .group()
            .ok_or_else(|| first.error("'_aoffimmi' needs its offsets: '_aoffimmi(u,v,w)'"))?;
        head.offsets = Some(offsets(g)?);
    }
    if indexable {
        let g = s.group().ok_or_else(|| {
            first.error("'_indexable' needs its resource dimension: '_indexable(texture2d)'")
        })?;
        head.dim = Some(dimension_group(g)?);
    }
    if let Some(g) = s.group() {
        head.return_type = Some(return_types(g)?);
    }
    match info.control {
        Control::ResInfo => {
            if s.eat_word("uint") {
                head.control = OpControl::ResInfo(ResInfoReturnType::Uint);
            } else if s.eat_word("rcpFloat") {
                head.control = OpControl::ResInfo(ResInfoReturnType::RcpFloat);
            }
        }
        Control::SampleInfo if s.eat_word("uint") => {
            head.control = OpControl::SampleInfo { uint: true };
        }
        _ => {}
    }
    head.saturate = s.eat_word("sat");
    s.finish(name)?;
    Ok(head)
}

fn decl_suffixes(
    first: &Token<'_>,
    op: Opcode,
    kind: DeclKind,
    parts: &[Part<'_>],
) -> Result<DeclHead> {
    let name = op.name();
    let mut s = Suffixes { parts, i: 0 };
    let mut head = DeclHead::default();
    let need_dim = |s: &Suffixes<'_, '_>| {
        let message = format!("'{name}' needs a resource dimension suffix ('{name}_texture2d')");
        match parts.get(s.i) {
            Some(p) => p.error(format!("{message}, found {}", p.describe())),
            None => first.error(message),
        }
    };
    match kind {
        DeclKind::Resource => {
            let dim = s.dimension().ok_or_else(|| need_dim(&s))?;
            head.dim = Some(dim);
            if let Some(g) = s.group() {
                let [item] = g.items.as_slice() else {
                    return Err(g.open.error("expected one sample count: '(4)'"));
                };
                if item.negative || item.value.is_some() {
                    return Err(item.word.expected("a sample count"));
                }
                head.sample_count =
                    Some(literal::parse_unsigned(&item.word, 127, "sample count")? as u8);
            }
        }
        DeclKind::UavTyped => {
            head.dim = Some(s.dimension().ok_or_else(|| need_dim(&s))?);
            head.uav.globally_coherent = s.eat_word("glc");
            head.uav.rasterizer_ordered = s.eat_word("rov");
        }
        DeclKind::UavRaw => {
            head.uav.globally_coherent = s.eat_word("glc");
            head.uav.rasterizer_ordered = s.eat_word("rov");
        }
        DeclKind::UavStructured => {
            head.uav.globally_coherent = s.eat_word("glc");
            head.uav.rasterizer_ordered = s.eat_word("rov");
            head.uav.has_counter = s.eat_word("opc");
        }
        DeclKind::Interface => head.dynamic_indexed = s.eat_word("dynamicindexed"),
        _ => {}
    }
    s.finish(name)?;
    Ok(head)
}

/// `(u,v,w)`: three offsets in −8…7.
fn offsets(g: &Group<'_>) -> Result<[i8; 3]> {
    if g.items.len() != 3 {
        return Err(g.open.error(format!(
            "expected three texel offsets '(u,v,w)', found {}",
            g.items.len()
        )));
    }
    let mut out = [0i8; 3];
    for (o, item) in out.iter_mut().zip(&g.items) {
        if item.word.kind != Kind::Number || item.value.is_some() {
            return Err(item.word.expected("a texel offset (-8…7)"));
        }
        let v = literal::parse_unsigned(&item.word, 0xff, "texel offset")? as i32;
        let v = if item.negative { -v } else { v };
        if !(-8..=7).contains(&v) {
            return Err(item.word.error(format!("texel offset {v} is outside -8…7")));
        }
        *o = v as i8;
    }
    Ok(out)
}

/// `(dim)` or `(dim, stride=n)`.
fn dimension_group(g: &Group<'_>) -> Result<(ResourceDimension, u16)> {
    let Some(first) = g.items.first() else {
        return Err(g.open.error("expected a resource dimension"));
    };
    let dim = (!first.negative && first.value.is_none())
        .then(|| ResourceDimension::from_name(first.word.text))
        .flatten()
        .ok_or_else(|| {
            first.word.expected(
                "a resource dimension (texture2d, buffer, raw_buffer, structured_buffer, …)",
            )
        })?;
    let mut stride = 0;
    match &g.items[1..] {
        [] => {}
        [item] if item.word.text == "stride" && !item.negative => {
            let v = item
                .value
                .ok_or_else(|| item.word.error("expected 'stride=N'"))?;
            stride = literal::parse_unsigned(&v, 0xfff, "structure stride")? as u16;
        }
        [item, ..] => return Err(item.word.expected("'stride=N' or ')'")),
    }
    Ok((dim, stride))
}

/// `(t,t,t,t)`.
pub fn return_types(g: &Group<'_>) -> Result<[ReturnType; 4]> {
    if g.items.len() != 4 {
        return Err(g.open.error(format!(
            "expected four return types '(float,float,float,float)', found {}",
            g.items.len()
        )));
    }
    let mut out = [ReturnType::Float; 4];
    for (o, item) in out.iter_mut().zip(&g.items) {
        *o = (!item.negative && item.value.is_none())
            .then(|| ReturnType::from_name(item.word.text))
            .flatten()
            .ok_or_else(|| {
                item.word.expected(
                    "a return type (unorm, snorm, sint, uint, float, mixed, double, continued, unused)",
                )
            })?;
    }
    Ok(out)
}
