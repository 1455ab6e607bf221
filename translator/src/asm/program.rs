//! The whole text: version line, instructions and declarations one per line, signature
//! directives, and the trailing-bytes line, into a [`Program`] and [`Signatures`].
//!
//! Each instruction is built field by field as the decoder would fill it; annotations set
//! the encoding details fxc's syntax cannot show. Once every line has parsed, the program is
//! encoded and decoded again and must come back unchanged: a combination the token format
//! cannot represent (reserved bits overlapping a field, a count that does not fit) is
//! reported at its line instead of silently encoding something else.

use crate::container::SignatureKind;
use crate::sm4::opcodes::Layout;
use crate::sm4::{
    self, CustomData, CustomDataClass, ExtOpcode, ExtOpcodes, InstData, Instruction, Opcode,
    Operand, Program, ProgramType, Version,
};

use super::cursor::{Cursor, Note};
use super::decl::{self, DeclNotes};
use super::error::{AsmError, Result};
use super::lexer::{self, Kind, Token};
use super::literal;
use super::mnemonic::{self, ExecHead, Head};
use super::operand::{OperandContext, Role};
use super::signature::{self, Signatures};

/// A parsed text.
pub struct Parsed {
    pub program: Program,
    pub signatures: Signatures,
    /// Whether any signature directive was given.
    pub directives: bool,
    /// `.tag program SHDR|SHEX`.
    pub program_tag: Option<[u8; 4]>,
    /// Line and column of each instruction's mnemonic.
    pub positions: Vec<(u32, u32)>,
}

struct State {
    version: Version,
    instructions: Vec<Instruction>,
    operands: Vec<Operand>,
    relative: Vec<Operand>,
    positions: Vec<(u32, u32)>,
    signatures: Signatures,
    directives: bool,
    program_tag: Option<[u8; 4]>,
    trailing: Option<Vec<u8>>,
}

/// Parses the text (no validation by re-decoding; see [`super::parse`]).
pub fn parse(text: &str) -> Result<Parsed> {
    let toks = lexer::tokenize(text)?;
    let mut c = Cursor::new(&toks);
    c.skip_newlines();
    let version = version_line(&mut c)?;
    let mut s = State {
        version,
        instructions: Vec::new(),
        operands: Vec::new(),
        relative: Vec::new(),
        positions: Vec::new(),
        signatures: Signatures::default(),
        directives: false,
        program_tag: None,
        trailing: None,
    };
    loop {
        c.skip_newlines();
        let t = c.peek();
        if t.kind == Kind::Eof {
            break;
        }
        if s.trailing.is_some() {
            return Err(t.error("nothing may follow the {trailing=…} line"));
        }
        if t.is('.') {
            directive(&mut c, &mut s)?;
        } else if t.is('{') {
            s.trailing = Some(trailing_line(&mut c)?);
        } else {
            instruction(&mut c, &mut s)?;
        }
        c.expect_line_end()?;
    }
    Ok(Parsed {
        program: Program {
            version: s.version,
            base_offset: 0,
            instructions: s.instructions,
            operands: s.operands,
            relative: s.relative,
            trailing: s.trailing.unwrap_or_default(),
        },
        signatures: s.signatures,
        directives: s.directives,
        program_tag: s.program_tag,
        positions: s.positions,
    })
}

/// `ps_5_0 [{bits=0x…}]`.
fn version_line(c: &mut Cursor<'_, '_>) -> Result<Version> {
    let t = c.peek();
    let bad = || t.expected("a version line (ps_5_0, vs_4_1, cs_5_1, …) first");
    if t.kind != Kind::Ident {
        return Err(bad());
    }
    let mut parts = t.text.split('_');
    let (Some(stage), Some(major), Some(minor), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad());
    };
    let program_type = ProgramType::from_name(stage).ok_or_else(bad)?;
    let (major, minor) = match (major, minor) {
        ("4", "0") => (4, 0),
        ("4", "1") => (4, 1),
        ("5", "0") => (5, 0),
        ("5", "1") => (5, 1),
        _ => {
            return Err(t.error(format!(
                "unsupported shader model {major}.{minor} (SM4.0, 4.1, 5.0 and 5.1 are)"
            )));
        }
    };
    c.next();
    let mut reserved = 0;
    for note in c.notes()? {
        match note.key.text {
            "bits" => {
                let v = note.u32()?;
                reserved = u8::try_from(v)
                    .map_err(|_| note.error("{bits=…} of the version token is 8 bits wide"))?;
            }
            _ => return Err(note.error(format!("unknown version annotation '{}'", note.key.text))),
        }
    }
    c.expect_line_end()?;
    Ok(Version {
        program_type,
        major,
        minor,
        reserved,
    })
}

/// `.input …`, `.output …`, `.patch …`, `.tag …`.
fn directive(c: &mut Cursor<'_, '_>, s: &mut State) -> Result<()> {
    let dot = c.next();
    let name = c.peek();
    if name.kind != Kind::Ident || name.space_before {
        return Err(name.expected("a directive name after '.' (input, output, patch, tag)"));
    }
    c.next();
    s.directives = true;
    let stage = s.version.program_type;
    match name.text {
        "input" => signature::element_directive(c, SignatureKind::Input, stage, &mut s.signatures),
        "output" => {
            signature::element_directive(c, SignatureKind::Output, stage, &mut s.signatures)
        }
        "patch" => {
            signature::element_directive(c, SignatureKind::PatchConstant, stage, &mut s.signatures)
        }
        "tag" if c.peek().text == "program" => {
            c.next();
            let t = c.ident("SHDR or SHEX")?;
            s.program_tag = Some(match t.text {
                "SHDR" => *b"SHDR",
                "SHEX" => *b"SHEX",
                _ => return Err(t.expected("SHDR or SHEX")),
            });
            Ok(())
        }
        "tag" => signature::tag_directive(c, &mut s.signatures),
        other => Err(dot.error(format!(
            "unknown directive '.{other}' (.input, .output, .patch, .tag)"
        ))),
    }
}

/// `{trailing=<hex bytes>}`.
fn trailing_line(c: &mut Cursor<'_, '_>) -> Result<Vec<u8>> {
    let notes = c.notes()?;
    let [note] = notes.as_slice() else {
        return Err(c.peek().error("expected '{trailing=<hex bytes>}'"));
    };
    if note.key.text != "trailing" {
        return Err(note.error(format!(
            "unknown annotation '{}' on a line of its own (only {{trailing=…}})",
            note.key.text
        )));
    }
    let v = note
        .value
        .ok_or_else(|| note.error("expected '{trailing=<hex bytes>}'"))?;
    let hex = v.text;
    if hex.len() % 2 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(v.error("expected an even number of hex digits"));
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| v.error("bad hex digits")))
        .collect()
}

fn instruction(c: &mut Cursor<'_, '_>, s: &mut State) -> Result<()> {
    let (first, head) = mnemonic::mnemonic(c)?;
    let operand_start = s.operands.len() as u32;
    let mut inst = match head {
        Head::ImmediateConstantBuffer => {
            let data = immediate_constant_buffer(c)?;
            custom_data(CustomDataClass::ImmediateConstantBuffer, data)
        }
        Head::CustomData => {
            let t =
                c.ident("a custom data class (comment, debuginfo, opaque, shadermessage, …)")?;
            let class = CustomDataClass::from_name(t.text)
                .filter(|&k| k != CustomDataClass::ImmediateConstantBuffer)
                .ok_or_else(|| {
                    t.expected(
                        "a custom data class (comment, debuginfo, opaque, shadermessage, \
                         clipplaneconstantmappings)",
                    )
                })?;
            let data = dword_block(c)?;
            custom_data(class, data)
        }
        Head::Exec(opcode, h) => executable(c, s, opcode, h, &first)?,
        Head::Decl(opcode, kind, h) => {
            let mut inst = Instruction::new(opcode, 0);
            let notes = c.notes()?;
            let mut padding = Vec::new();
            let mut dn = DeclNotes::default();
            for note in &notes {
                match note.key.text {
                    "namebits" => dn.name_bits = u16_note(note)?,
                    "retbits" => dn.ret_bits = u16_note(note)?,
                    _ => common_note(note, &mut inst, &mut padding)?,
                }
            }
            inst.padding = padding.into();
            let mut ctx = OperandContext {
                sm51: s.version.is_sm51(),
                relative: &mut s.relative,
            };
            let parsed = decl::declaration(c, &mut ctx, kind, &h, dn)?;
            s.operands.extend(parsed.operand);
            inst.data = InstData::Decl(parsed.decl);
            inst
        }
    };
    inst.operand_range = operand_start..s.operands.len() as u32;
    s.instructions.push(inst);
    s.positions.push((first.line, first.column));
    Ok(())
}

fn custom_data(class: CustomDataClass, data: Vec<u32>) -> Instruction {
    let mut inst = Instruction::new(Opcode::CustomData, 0);
    inst.data = InstData::CustomData(CustomData {
        class,
        data: data.into(),
    });
    inst
}

fn u16_note(note: &Note<'_>) -> Result<u16> {
    u16::try_from(note.u32()?).map_err(|_| note.error(format!("{} is 16 bits wide", note.key.text)))
}

/// Annotations every instruction may carry: `control=`, `longlen`, `pad=` (collected in
/// `padding`).
fn common_note(note: &Note<'_>, inst: &mut Instruction, padding: &mut Vec<u32>) -> Result<()> {
    match (note.key.text, note.value.is_some()) {
        ("control", true) => {
            let v = note.u32()?;
            if v & !0x00ff_f800 != 0 {
                return Err(note.error("{control=…} is opcode token bits 11-23 (mask 0xfff800)"));
            }
            inst.reserved_control = v;
        }
        ("longlen", false) => inst.long_length = true,
        ("pad", true) => padding.push(note.u32()?),
        _ => {
            return Err(note.error(format!(
                "unknown instruction annotation '{}' (control=, longlen, pad=, extorder=, \
                 aoffbits=, dimbits=, retbits=, namebits=)",
                note.key.text
            )));
        }
    }
    Ok(())
}

/// ` [precise]` / ` [precise(xy)]`.
fn precise(c: &mut Cursor<'_, '_>) -> Result<u8> {
    if !(c.peek().is('[') && c.peek_at(1).text == "precise") {
        return Ok(0);
    }
    c.next();
    c.next();
    let mut mask = 0xf;
    if c.eat('(').is_some() {
        let t = c.ident("component letters")?;
        mask = 0;
        let mut last = -1;
        for ch in t.text.chars() {
            let i = "xyzw"
                .find(ch)
                .ok_or_else(|| t.expected("component letters (xyzw)"))? as i32;
            if i <= last {
                return Err(t.error("precise letters must be distinct and in xyzw order"));
            }
            last = i;
            mask |= 1 << i;
        }
        c.expect(')')?;
    }
    c.expect(']')?;
    Ok(mask)
}

fn executable(
    c: &mut Cursor<'_, '_>,
    s: &mut State,
    opcode: Opcode,
    h: ExecHead,
    first: &Token<'_>,
) -> Result<Instruction> {
    let info = opcode.info();
    let mut inst = Instruction::new(opcode, 0);
    inst.saturate = h.saturate;
    inst.control = h.control;
    inst.precise = precise(c)?;
    let notes = c.notes()?;
    let (mut aoff_bits, mut dim_bits, mut ret_bits) = (0, 0, 0);
    let mut order: Option<(Token<'_>, &str)> = None;
    let mut padding = Vec::new();
    for note in &notes {
        match note.key.text {
            "aoffbits" => aoff_bits = note.u32()?,
            "dimbits" => dim_bits = note.u32()?,
            "retbits" => ret_bits = note.u32()?,
            "extorder" => {
                let v = note
                    .value
                    .ok_or_else(|| note.error("expected 'extorder=SDR'"))?;
                order = Some((v, v.text));
            }
            _ => common_note(note, &mut inst, &mut padding)?,
        }
    }
    inst.padding = padding.into();
    let mut present = String::new();
    let mut tokens = Vec::new();
    if let Some(offsets) = h.offsets {
        if aoff_bits & !0x7fe0_01c0 != 0 {
            return Err(first.error("{aoffbits=…} must be within 0x7fe001c0"));
        }
        present.push('S');
        tokens.push(ExtOpcode::SampleControls {
            offsets,
            reserved: aoff_bits,
        });
    } else if aoff_bits != 0 {
        return Err(first.error("{aoffbits=…} needs '_aoffimmi'"));
    }
    if let Some((dim, stride)) = h.dim {
        if dim_bits & !0x7f80_0000 != 0 {
            return Err(first.error("{dimbits=…} must be within 0x7f800000"));
        }
        present.push('D');
        tokens.push(ExtOpcode::ResourceDim {
            dim,
            stride,
            reserved: dim_bits,
        });
    } else if dim_bits != 0 {
        return Err(first.error("{dimbits=…} needs '_indexable(…)'"));
    }
    if let Some(types) = h.return_type {
        if ret_bits & !0x7fc0_0000 != 0 {
            return Err(first.error("{retbits=…} must be within 0x7fc00000"));
        }
        present.push('R');
        tokens.push(ExtOpcode::ReturnType {
            types,
            reserved: ret_bits,
        });
    } else if ret_bits != 0 {
        return Err(first.error("{retbits=…} needs return types '(…)'"));
    }
    let mut ext = ExtOpcodes::default();
    let order = match order {
        Some((t, o)) => {
            let mut sorted: Vec<char> = o.chars().collect();
            sorted.sort_by_key(|ch| "SDR".find(*ch));
            if sorted.iter().collect::<String>() != present || o.len() != present.len() {
                return Err(t.error(format!(
                    "extorder must list the extended tokens present ({present}) once each"
                )));
            }
            o.to_string()
        }
        None => present.clone(),
    };
    for kind in order.chars() {
        let i = present.find(kind).expect("checked against present");
        ext.push(tokens[i]);
    }
    inst.ext = ext;

    let sm51 = s.version.is_sm51();
    let mut ctx = OperandContext {
        sm51,
        relative: &mut s.relative,
    };
    match info.layout {
        Layout::InterfaceCall => {
            let parsed = ctx.operand(c, Role::Src, true)?;
            inst.data = InstData::FunctionIndex(parsed.function_index.unwrap_or(0));
            s.operands.push(parsed.operand);
        }
        Layout::Fixed { dsts, srcs } => {
            let expected = dsts as usize + srcs as usize;
            let mut n = 0;
            if !c.at_line_end() {
                loop {
                    if n == expected {
                        return Err(c.peek().error(format!(
                            "'{}' takes {}",
                            info.name,
                            operand_count(dsts, srcs)
                        )));
                    }
                    let role = if n < dsts as usize {
                        Role::Dst
                    } else {
                        Role::Src
                    };
                    let parsed = ctx.operand(c, role, false)?;
                    s.operands.push(parsed.operand);
                    n += 1;
                    if c.eat(',').is_none() {
                        break;
                    }
                }
            }
            if n != expected {
                return Err(c.peek().error(format!(
                    "'{}' takes {}, found {n}",
                    info.name,
                    operand_count(dsts, srcs)
                )));
            }
        }
        _ => unreachable!("executable heads have fixed or interface-call layouts"),
    }
    Ok(inst)
}

fn operand_count(dsts: u8, srcs: u8) -> String {
    let plural = |n: u8, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    match (dsts, srcs) {
        (0, 0) => "no operands".into(),
        (0, s) => plural(s, "source operand"),
        (d, 0) => plural(d, "destination operand"),
        (d, s) => format!(
            "{} ({}, {})",
            plural(d + s, "operand"),
            plural(d, "destination"),
            plural(s, "source")
        ),
    }
}

/// Skips newlines (allowed anywhere inside braces).
fn skip(c: &mut Cursor<'_, '_>) {
    c.skip_newlines();
}

/// One 32-bit value: `[-]number`.
fn value(c: &mut Cursor<'_, '_>) -> Result<u32> {
    skip(c);
    let negative = c.eat('-').is_some();
    let t = c.number("a number")?;
    literal::imm32_bits(&t, negative)
}

/// `{ { a, b, c, d }, … }` (rows of 4; the last may be shorter), flattened.
fn immediate_constant_buffer(c: &mut Cursor<'_, '_>) -> Result<Vec<u32>> {
    let mut data = Vec::new();
    skip(c);
    c.expect('{')?;
    skip(c);
    if c.eat('}').is_some() {
        return Ok(data);
    }
    let mut short_row: Option<Token<'_>> = None;
    loop {
        skip(c);
        let open = c.expect('{')?;
        if let Some(t) = short_row {
            return Err(t.error("only the last row may have fewer than 4 values"));
        }
        let mut n = 0;
        loop {
            data.push(value(c)?);
            n += 1;
            skip(c);
            if c.eat(',').is_none() {
                break;
            }
        }
        if n > 4 {
            return Err(open.error(format!("a row has at most 4 values, found {n}")));
        }
        if n < 4 {
            short_row = Some(open);
        }
        skip(c);
        c.expect('}')?;
        skip(c);
        if c.eat(',').is_none() {
            break;
        }
    }
    skip(c);
    c.expect('}')?;
    Ok(data)
}

/// `{ v, v, … }` for custom data.
fn dword_block(c: &mut Cursor<'_, '_>) -> Result<Vec<u32>> {
    let mut data = Vec::new();
    skip(c);
    c.expect('{')?;
    skip(c);
    if c.eat('}').is_some() {
        return Ok(data);
    }
    loop {
        data.push(value(c)?);
        skip(c);
        if c.eat(',').is_none() {
            break;
        }
    }
    skip(c);
    c.expect('}')?;
    Ok(data)
}

/// Encodes the program instruction by instruction (encoder errors name the line), decodes the
/// result and checks that it is the same program. Fills in instruction offsets (from 0, the
/// start of the chunk data).
pub fn validate(parsed: &mut Parsed) -> Result<Vec<u8>> {
    let program = &mut parsed.program;
    let at = |i: usize| {
        let (line, column) = parsed.positions.get(i).copied().unwrap_or((1, 1));
        (line, column)
    };
    let mut words = vec![program.version.to_token(), 0];
    let mut starts = Vec::with_capacity(program.instructions.len());
    for (i, inst) in program.instructions.iter().enumerate() {
        starts.push(words.len() * 4);
        let range = inst.operand_range.start as usize..inst.operand_range.end as usize;
        let operands = &program.operands[range];
        sm4::encode_instruction(
            program.version,
            inst,
            operands,
            &program.relative,
            &mut words,
        )
        .map_err(|what| {
            let (line, column) = at(i);
            AsmError::new(line, column, format!("cannot encode: {what}"))
        })?;
    }
    words[1] = words.len() as u32;
    let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    bytes.extend_from_slice(&program.trailing);
    for (inst, &start) in program.instructions.iter_mut().zip(&starts) {
        inst.offset = start;
    }
    let instruction_at = |offset: usize| starts.iter().rposition(|&s| s <= offset).unwrap_or(0);
    let decoded = sm4::decode(&bytes, 0).map_err(|e| {
        let (line, column) = at(instruction_at(e.offset));
        AsmError::new(
            line,
            column,
            format!("the encoded instruction does not decode: {}", e.kind),
        )
    })?;
    if decoded != *program {
        let n = decoded.instructions.len().max(program.instructions.len());
        let i = (0..n)
            .find(|&i| {
                decoded.get(i).map(|d| d.operands) != program.get(i).map(|p| p.operands)
                    || decoded.instructions.get(i) != program.instructions.get(i)
            })
            .unwrap_or(0);
        let (line, column) = at(i.min(program.instructions.len().saturating_sub(1)));
        return Err(AsmError::new(
            line,
            column,
            "the annotations ask for an encoding that decodes differently (reserved bits \
             overlapping a field, or values too wide for their fields)",
        ));
    }
    Ok(bytes)
}
