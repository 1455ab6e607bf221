//! Signatures in assembly text: the `.input`/`.output`/`.patch` directives, the fxc comment
//! header's signature tables, the chunks written from them, and the directives printed from
//! a container (so that `directives + disassembly` assembles back to the same signatures).
//!
//! Directive syntax (`docs/assembler.md`):
//!
//! ```text
//! .input  NAME INDEX REGISTER[.MASK] TYPE [SYSVALUE] [rw=MASK] [mask=MASK] [stream=N] [precision=P]
//! .output SV_Target 0 o0.xyzw float
//! .output SV_Depth 0 oDepth float DEPTH
//! .tag output OSG5
//! .tag program SHDR
//! ```
//!
//! When a text has no signature directives, the tables of an fxc-style comment header
//! (`// Input signature:` …) are read instead; those tables do not show everything a chunk
//! holds (see the documentation for what is reconstructed and how).

use std::fmt::Write;

use crate::container::signature::{ComponentType, MinPrecision, SystemValue};
use crate::container::{ParsedContainer, ShaderStage, Signature, SignatureKind};
use crate::sm4::{ProgramType, SystemName};

use super::cursor::Cursor;
use super::error::{AsmError, Result};
use super::lexer::{Kind, Token};
use super::literal;

/// One signature element, as written to the chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub name: String,
    pub index: u32,
    /// `D3D_NAME` value.
    pub system_value: u32,
    /// `D3D_REGISTER_COMPONENT_TYPE` value.
    pub component_type: u32,
    /// `0xFFFFFFFF` for elements without a register.
    pub register: u32,
    pub mask: u8,
    pub rw_mask: u8,
    pub stream: u32,
    /// `D3D_MIN_PRECISION` value.
    pub min_precision: u32,
}

/// The elements of one signature and, when given, the chunk tag to write it as.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignatureDesc {
    pub elements: Vec<Element>,
    pub tag: Option<[u8; 4]>,
    /// Line of the `.tag` directive (for errors).
    pub tag_line: u32,
}

/// A stage's three signatures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Signatures {
    pub input: SignatureDesc,
    pub output: SignatureDesc,
    pub patch_constant: SignatureDesc,
}

impl Signatures {
    pub fn get_mut(&mut self, kind: SignatureKind) -> &mut SignatureDesc {
        match kind {
            SignatureKind::Input => &mut self.input,
            SignatureKind::Output => &mut self.output,
            SignatureKind::PatchConstant => &mut self.patch_constant,
        }
    }

    pub fn get(&self, kind: SignatureKind) -> &SignatureDesc {
        match kind {
            SignatureKind::Input => &self.input,
            SignatureKind::Output => &self.output,
            SignatureKind::PatchConstant => &self.patch_constant,
        }
    }
}

/// Whether the stage writes the signature's elements (outputs; a hull shader's patch
/// constants), which decides what the read/write mask means.
fn written(kind: SignatureKind, stage: ProgramType) -> bool {
    match kind {
        SignatureKind::Input => false,
        SignatureKind::Output => true,
        SignatureKind::PatchConstant => stage != ProgramType::Domain,
    }
}

/// The read/write mask fxc stores when the stage reads (inputs) or writes (outputs) every
/// component of the mask.
fn default_rw(mask: u8, written: bool) -> u8 {
    if written { !mask & 0xf } else { mask }
}

/// The layout of a signature chunk tag: (kind, element size, has stream, has precision).
fn layout(tag: &[u8; 4]) -> Option<(SignatureKind, usize, bool, bool)> {
    Some(match tag {
        b"ISGN" => (SignatureKind::Input, 24, false, false),
        b"OSGN" => (SignatureKind::Output, 24, false, false),
        b"PCSG" => (SignatureKind::PatchConstant, 24, false, false),
        b"OSG5" => (SignatureKind::Output, 28, true, false),
        b"ISG1" => (SignatureKind::Input, 32, true, true),
        b"OSG1" => (SignatureKind::Output, 32, true, true),
        b"PSG1" => (SignatureKind::PatchConstant, 32, true, true),
        _ => return None,
    })
}

/// The tag a signature is written as when no `.tag` says: the `…1` form when an element has a
/// minimum precision (or, for inputs and patch constants, a stream), `OSG5` for SM5 geometry
/// shader outputs (as fxc writes them) or when an output has a stream, else
/// `ISGN`/`OSGN`/`PCSG`.
pub fn default_tag(
    kind: SignatureKind,
    elements: &[Element],
    stage: ProgramType,
    major: u8,
) -> [u8; 4] {
    let precision = elements.iter().any(|e| e.min_precision != 0);
    let stream = elements.iter().any(|e| e.stream != 0);
    match kind {
        SignatureKind::Input | SignatureKind::PatchConstant if stream => match kind {
            SignatureKind::Input => *b"ISG1",
            _ => *b"PSG1",
        },
        SignatureKind::Input if precision => *b"ISG1",
        SignatureKind::Input => *b"ISGN",
        SignatureKind::Output if precision => *b"OSG1",
        SignatureKind::Output if (stage == ProgramType::Geometry && major >= 5) || stream => {
            *b"OSG5"
        }
        SignatureKind::Output => *b"OSGN",
        SignatureKind::PatchConstant if precision => *b"PSG1",
        SignatureKind::PatchConstant => *b"PCSG",
    }
}

/// Writes a signature chunk's data with this tag's layout. Names are stored once each, after
/// the element table, NUL-terminated; the chunk is padded to 4 bytes.
pub fn chunk_data(tag: &[u8; 4], elements: &[Element]) -> std::result::Result<Vec<u8>, String> {
    let (_, size, has_stream, has_precision) =
        layout(tag).ok_or_else(|| format!("{} is not a signature tag", tag_text(tag)))?;
    let mut out = Vec::new();
    let put = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
    put(&mut out, elements.len() as u32);
    put(&mut out, 8);
    let strings_start = 8 + elements.len() * size;
    let mut strings: Vec<u8> = Vec::new();
    let mut offsets: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    for e in elements {
        if !has_stream && e.stream != 0 {
            return Err(format!(
                "{} has no stream field; element {} {} is in stream {}",
                tag_text(tag),
                e.name,
                e.index,
                e.stream
            ));
        }
        if !has_precision && e.min_precision != 0 {
            return Err(format!(
                "{} has no minimum precision field; element {} {} has one",
                tag_text(tag),
                e.name,
                e.index
            ));
        }
        let name_offset = *offsets.entry(&e.name).or_insert_with(|| {
            let o = (strings_start + strings.len()) as u32;
            strings.extend_from_slice(e.name.as_bytes());
            strings.push(0);
            o
        });
        if has_stream {
            put(&mut out, e.stream);
        }
        put(&mut out, name_offset);
        put(&mut out, e.index);
        put(&mut out, e.system_value);
        put(&mut out, e.component_type);
        put(&mut out, e.register);
        put(&mut out, e.mask as u32 | (e.rw_mask as u32) << 8);
        if has_precision {
            put(&mut out, e.min_precision);
        }
    }
    out.extend_from_slice(&strings);
    while out.len() % 4 != 0 {
        out.push(0);
    }
    Ok(out)
}

fn tag_text(tag: &[u8; 4]) -> String {
    String::from_utf8_lossy(tag).into_owned()
}

/// A mask written as letters (`xyzw`, in order) or a number (`0x1f`).
fn mask_value(t: &Token<'_>) -> Result<u8> {
    if t.kind == Kind::Number {
        return Ok(literal::parse_unsigned(t, 0xff, "a mask")? as u8);
    }
    letters_mask(t)
}

fn letters_mask(t: &Token<'_>) -> Result<u8> {
    let mut mask = 0u8;
    let mut last = -1i32;
    for ch in t.text.chars() {
        let i = match ch {
            'x' => 0,
            'y' => 1,
            'z' => 2,
            'w' => 3,
            _ => return Err(t.expected("mask letters (xyzw) or a number")),
        };
        if i <= last {
            return Err(t.error("mask letters must be distinct and in xyzw order"));
        }
        last = i;
        mask |= 1 << i;
    }
    Ok(mask)
}

/// A `D3D_NAME` by fxc's short name (`POS`, `TARGET`; any case), by the `dcl_*_siv` name where
/// the values agree (`position`, `vertex_id`), or as a number.
fn system_value(t: &Token<'_>) -> Result<u32> {
    if t.kind == Kind::Number {
        return literal::parse_u32(t, "a system value");
    }
    for v in 0..=255u32 {
        if let Some(n) = SystemValue::from_raw(v).fxc_name()
            && n.eq_ignore_ascii_case(t.text)
        {
            return Ok(v);
        }
    }
    if let Some(n) = SystemName::from_name(t.text) {
        let v = n.to_u32();
        if (1..=10).contains(&v) || (23..=25).contains(&v) {
            return Ok(v);
        }
    }
    Err(t.expected(
        "a system value (NONE, POS, CLIPDST, CULLDST, RTINDEX, VPINDEX, VERTID, PRIMID, INSTID, \
         FFACE, SAMPLE, QUADEDGE, QUADINT, TRIEDGE, TRIINT, LINEDET, LINEDEN, TARGET, DEPTH, \
         COVERAGE, DEPTHGE, DEPTHLE, STENCILREF, INNERCOV, … or a number)",
    ))
}

fn component_type(t: &Token<'_>) -> Result<u32> {
    if t.kind == Kind::Number {
        return literal::parse_u32(t, "a component type");
    }
    if t.text == "sint" {
        return Ok(2);
    }
    (0..=3)
        .find(|&v| ComponentType::from_raw(v).fxc_name() == Some(t.text))
        .ok_or_else(|| t.expected("a component type (float, int, uint, unknown or a number)"))
}

fn min_precision(t: &Token<'_>) -> Result<u32> {
    if t.kind == Kind::Number {
        return literal::parse_u32(t, "a minimum precision");
    }
    [0u32, 1, 2, 3, 4, 5, 0xf0, 0xf1]
        .into_iter()
        .find(|&v| MinPrecision::from_raw(v).fxc_name() == Some(t.text))
        .ok_or_else(|| {
            t.expected(
                "a minimum precision (default, min16f, min2_8f, min16i, min16u, any16, any10)",
            )
        })
}

/// Parses the rest of a `.input`/`.output`/`.patch` directive line into `sigs`.
pub fn element_directive(
    c: &mut Cursor<'_, '_>,
    kind: SignatureKind,
    stage: ProgramType,
    sigs: &mut Signatures,
) -> Result<()> {
    let name = c.peek();
    if !matches!(name.kind, Kind::Ident | Kind::String) {
        return Err(name.expected("a semantic name"));
    }
    c.next();
    let index = c.u32("a semantic index")?;
    let reg = c.ident("a register (v0, o1, …) or a name for none (oDepth, none)")?;
    let register = match reg.text.find(|ch: char| ch.is_ascii_digit()) {
        Some(i) if i > 0 => literal::parse_u32(
            &Token {
                text: &reg.text[i..],
                ..reg
            },
            "a register number",
        )?,
        Some(_) => return Err(reg.expected("a register (v0, o1, …)")),
        None => u32::MAX,
    };
    let mut mask = if register == u32::MAX { 1 } else { 0xf };
    if c.peek().is('.') && !c.peek().space_before {
        c.next();
        let t = c.ident("mask letters")?;
        mask = letters_mask(&t)?;
    }
    let ty = c.next();
    if !matches!(ty.kind, Kind::Ident | Kind::Number) {
        return Err(ty.expected("a component type (float, int, uint)"));
    }
    let component_type = component_type(&ty)?;
    let mut element = Element {
        name: name.text.to_string(),
        index,
        system_value: 0,
        component_type,
        register,
        mask,
        rw_mask: 0,
        stream: 0,
        min_precision: 0,
    };
    let t = c.peek();
    if matches!(t.kind, Kind::Ident | Kind::Number) && !c.peek_at(1).is('=') {
        c.next();
        element.system_value = system_value(&t)?;
    }
    let mut rw = None;
    while !c.at_line_end() {
        let key = c.ident("'rw=', 'mask=', 'stream=' or 'precision='")?;
        c.expect('=')?;
        let v = c.next();
        if !matches!(v.kind, Kind::Ident | Kind::Number) {
            return Err(v.expected("a value"));
        }
        match key.text {
            "rw" => rw = Some(mask_value(&v)?),
            "mask" => element.mask = mask_value(&v)?,
            "stream" => element.stream = literal::parse_u32(&v, "a stream index")?,
            "precision" => element.min_precision = min_precision(&v)?,
            _ => {
                return Err(key.expected("'rw=', 'mask=', 'stream=' or 'precision='"));
            }
        }
    }
    element.rw_mask = rw.unwrap_or_else(|| default_rw(element.mask, written(kind, stage)));
    sigs.get_mut(kind).elements.push(element);
    Ok(())
}

/// Parses the rest of a `.tag KIND TAG` directive.
pub fn tag_directive(c: &mut Cursor<'_, '_>, sigs: &mut Signatures) -> Result<()> {
    let k = c.ident("'input', 'output', 'patch' or 'program'")?;
    let kind = match k.text {
        "input" => SignatureKind::Input,
        "output" => SignatureKind::Output,
        "patch" => SignatureKind::PatchConstant,
        _ => return Err(k.expected("'input', 'output', 'patch' or 'program'")),
    };
    let t = c.ident("a chunk tag")?;
    sigs.get_mut(kind).tag_line = k.line;
    let tag: [u8; 4] = t
        .text
        .as_bytes()
        .try_into()
        .ok()
        .filter(|tag| layout(tag).is_some_and(|l| l.0 == kind))
        .ok_or_else(|| {
            t.error(format!(
                "'{}' is not a tag for {} signatures ({})",
                t.text,
                k.text,
                match kind {
                    SignatureKind::Input => "ISGN, ISG1",
                    SignatureKind::Output => "OSGN, OSG5, OSG1",
                    SignatureKind::PatchConstant => "PCSG, PSG1",
                }
            ))
        })?;
    sigs.get_mut(kind).tag = Some(tag);
    Ok(())
}

/// Reads the signature tables of an fxc-style comment header (`// Input signature:` …).
pub fn comment_tables(text: &str, stage: ProgramType, sigs: &mut Signatures) -> Result<()> {
    let mut current: Option<SignatureKind> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i as u32 + 1;
        let Some(content) = raw.trim_start().strip_prefix("//") else {
            current = None;
            continue;
        };
        let content = content.trim();
        let title = match content {
            "Input signature:" => Some(SignatureKind::Input),
            "Output signature:" => Some(SignatureKind::Output),
            "Patch Constant signature:" => Some(SignatureKind::PatchConstant),
            _ => None,
        };
        if title.is_some() {
            current = title;
            continue;
        }
        let Some(kind) = current else { continue };
        if content.is_empty() {
            if !sigs.get(kind).elements.is_empty() {
                current = None;
            }
            continue;
        }
        if content.starts_with("no ") {
            current = None;
            continue;
        }
        if content.starts_with("Name ") || content.starts_with("---") {
            continue;
        }
        let column = (raw.len() - raw.trim_start().len()) as u32 + 1;
        let element = table_row(content, kind, stage)
            .map_err(|m| AsmError::new(line_no, column, format!("signature table row: {m}")))?;
        sigs.get_mut(kind).elements.push(element);
    }
    Ok(())
}

/// One row: `NAME INDEX MASK REGISTER SYSVALUE FORMAT USED`, where the mask and used columns
/// are positional letters (`x  w`), `N/A` and `YES`/`NO` for elements without a register.
fn table_row(
    content: &str,
    kind: SignatureKind,
    stage: ProgramType,
) -> std::result::Result<Element, String> {
    let toks: Vec<&str> = content.split_whitespace().collect();
    let is_letters = |s: &str| !s.is_empty() && s.chars().all(|c| "xyzw".contains(c));
    let letters = |s: &str| {
        s.chars()
            .fold(0u8, |m, c| m | 1 << "xyzw".find(c).unwrap_or(0))
    };
    let (name, stream) = match toks.first() {
        Some(n) => match n.strip_prefix('m').and_then(|r| r.split_once(':')) {
            Some((s, name)) if s.bytes().all(|b| b.is_ascii_digit()) && !s.is_empty() => {
                (name, s.parse::<u32>().map_err(|e| e.to_string())?)
            }
            _ => (*n, 0),
        },
        None => return Err("empty row".into()),
    };
    let index: u32 = toks
        .get(1)
        .and_then(|s| s.parse().ok())
        .ok_or("expected a semantic index after the name")?;
    let mut i = 2;
    let no_register = toks.get(i) == Some(&"N/A");
    let mut mask = 0u8;
    if no_register {
        i += 1;
        mask = 1;
    } else {
        while let Some(t) = toks.get(i).filter(|t| is_letters(t)) {
            mask |= letters(t);
            i += 1;
        }
    }
    let reg = toks.get(i).ok_or("expected a register column")?;
    let register = if no_register {
        u32::MAX
    } else {
        reg.parse::<u32>()
            .map_err(|_| format!("expected a register number, found '{reg}'"))?
    };
    let sv_text = toks.get(i + 1).ok_or("expected a system value column")?;
    let format = toks.get(i + 2).ok_or("expected a format column")?;
    let used_toks = &toks[(i + 3).min(toks.len())..];
    let sv_token = Token {
        kind: if sv_text.starts_with(|c: char| c.is_ascii_digit()) {
            Kind::Number
        } else {
            Kind::Ident
        },
        text: sv_text,
        line: 0,
        column: 0,
        space_before: true,
    };
    let mut system_value = system_value(&sv_token).map_err(|e| e.message)?;
    let written = written(kind, stage);
    // The table shows pixel shader outputs by the name-derived value (TARGET, DEPTH, …);
    // compilers store NONE for them.
    if written && (64..=70).contains(&system_value) {
        let derived = SystemValue::from_raw(system_value);
        let by_name = crate::container::SignatureElement {
            stream: 0,
            semantic_name: name,
            semantic_index: index,
            system_value: SystemValue::Undefined,
            component_type: ComponentType::Unknown,
            register,
            mask,
            rw_mask: 0,
            min_precision: MinPrecision::Default,
        }
        .system_value_by_name();
        if by_name == derived {
            system_value = 0;
        }
    }
    let (component_type, min_precision) = match *format {
        "float" => (3, 0),
        "int" => (2, 0),
        "uint" => (1, 0),
        "unknown" => (0, 0),
        "min16f" => (3, 1),
        "min2_8f" => (3, 2),
        "min16i" => (2, 4),
        "min16u" => (1, 5),
        other => match other.parse::<u32>() {
            Ok(v) => (v, 0),
            Err(_) => return Err(format!("unknown format '{other}'")),
        },
    };
    let used = if no_register {
        match used_toks {
            ["YES"] => mask,
            ["NO"] | [] => 0,
            _ => return Err("expected YES or NO in the used column".into()),
        }
    } else {
        let mut used = 0u8;
        for t in used_toks {
            if !is_letters(t) {
                return Err(format!("unexpected '{t}' in the used column"));
            }
            used |= letters(t);
        }
        used
    };
    let rw_mask = if written { !used & 0xf } else { used };
    Ok(Element {
        name: name.to_string(),
        index,
        system_value,
        component_type,
        register,
        mask,
        rw_mask,
        stream,
        min_precision,
    })
}

fn program_type(stage: ShaderStage) -> ProgramType {
    match stage {
        ShaderStage::Pixel => ProgramType::Pixel,
        ShaderStage::Vertex => ProgramType::Vertex,
        ShaderStage::Geometry => ProgramType::Geometry,
        ShaderStage::Hull => ProgramType::Hull,
        ShaderStage::Domain => ProgramType::Domain,
        ShaderStage::Compute => ProgramType::Compute,
    }
}

fn mask_text(m: u8) -> String {
    if m != 0 && m <= 0xf {
        (0..4)
            .filter(|i| m & (1 << i) != 0)
            .map(|i| ['x', 'y', 'z', 'w'][i])
            .collect()
    } else {
        format!("{m:#x}")
    }
}

/// The signatures of a container as directives, one line each (`.tag` lines where a chunk
/// tag is not the default one). Assembling them with the container's disassembly rebuilds
/// the same signature chunks (and program chunk tag).
pub fn directives(parsed: &ParsedContainer<'_>) -> String {
    let mut out = String::new();
    let (stage, major) = parsed.version.map_or((ProgramType::Pixel, 5), |v| {
        (program_type(v.stage), v.major)
    });
    if let Some(p) = &parsed.program {
        let default: &[u8; 4] = if major >= 5 { b"SHEX" } else { b"SHDR" };
        if &p.tag != default {
            let _ = writeln!(out, ".tag program {}", p.tag_str());
        }
    }
    for (kind, word) in [
        (SignatureKind::Input, "input"),
        (SignatureKind::Output, "output"),
        (SignatureKind::PatchConstant, "patch"),
    ] {
        let Some(sig) = parsed.signature(kind) else {
            continue;
        };
        let elements = elements_of(sig);
        let tag = sig.tag.as_bytes().try_into().unwrap_or(*b"ISGN");
        if tag != default_tag(kind, &elements, stage, major) {
            let _ = writeln!(out, ".tag {word} {}", sig.tag);
        }
        let written = written(kind, stage);
        for e in &elements {
            let ident = e
                .name
                .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && e.name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_');
            let name = if ident {
                e.name.clone()
            } else {
                let clean: String = e
                    .name
                    .chars()
                    .map(|c| if c == '"' || c.is_control() { '?' } else { c })
                    .collect();
                format!("\"{clean}\"")
            };
            let _ = write!(out, ".{word} {name} {}", e.index);
            let prefix = if written { 'o' } else { 'v' };
            let default_mask = if e.register == u32::MAX {
                let _ = write!(out, " none");
                1
            } else {
                let _ = write!(out, " {prefix}{}", e.register);
                0xf
            };
            let mask_key = if e.mask != 0 && e.mask <= 0xf {
                if e.mask != default_mask {
                    let _ = write!(out, ".{}", mask_text(e.mask));
                }
                false
            } else {
                true
            };
            match ComponentType::from_raw(e.component_type).fxc_name() {
                Some(n) => {
                    let _ = write!(out, " {n}");
                }
                None => {
                    let _ = write!(out, " {}", e.component_type);
                }
            }
            if e.system_value != 0 {
                match SystemValue::from_raw(e.system_value).fxc_name() {
                    Some(n) => {
                        let _ = write!(out, " {n}");
                    }
                    None => {
                        let _ = write!(out, " {}", e.system_value);
                    }
                }
            }
            if mask_key {
                let _ = write!(out, " mask={:#x}", e.mask);
            }
            if e.rw_mask != default_rw(e.mask, written) {
                let _ = write!(out, " rw={}", mask_text(e.rw_mask));
            }
            if e.stream != 0 {
                let _ = write!(out, " stream={}", e.stream);
            }
            if e.min_precision != 0 {
                match MinPrecision::from_raw(e.min_precision).fxc_name() {
                    Some(n) => {
                        let _ = write!(out, " precision={n}");
                    }
                    None => {
                        let _ = write!(out, " precision={}", e.min_precision);
                    }
                }
            }
            out.push('\n');
        }
    }
    out
}

fn elements_of(sig: &Signature<'_>) -> Vec<Element> {
    sig.elements
        .iter()
        .map(|e| Element {
            name: e.semantic_name.to_string(),
            index: e.semantic_index,
            system_value: e.system_value.raw(),
            component_type: e.component_type.raw(),
            register: e.register,
            mask: e.mask,
            rw_mask: e.rw_mask,
            stream: e.stream,
            min_precision: e.min_precision.raw(),
        })
        .collect()
}
