//! Reads `.shader_test` files (the format of vkd3d's `tests/hlsl/*.shader_test`) into
//! [`TestFile`]: a list of sections in file order.
//!
//! Splitting into sections and reading section headers happens here; the line grammars of
//! each kind of section live in [`decls`] and [`test_lines`]. A malformed line never aborts the
//! file: it is recorded in [`TestFile::errors`] and reported as a failed check at its line.

pub mod cursor;
pub mod decls;
pub mod format;
pub mod qualifier;
pub mod sections;
pub mod test_lines;

use cursor::Cursor;
use qualifier::Qualifier;
pub use sections::*;

/// What the lines after a header are for.
enum Body {
    Require(Require),
    Shader {
        stage: Stage,
        header: ShaderHeader,
        text: String,
    },
    Resource(ResourceDecl),
    Sampler(SamplerDecl),
    InputLayout(Vec<InputElement>),
    Test(Vec<TestLine>),
    Ignored(String),
    /// `[binding layout]`: the layout text, read when the section ends.
    BindingLayout(String),
    BindingLayoutFile(String),
    Binding(translator::binding::Binding),
    /// `[icb uniform-buffer bN [space S]]`.
    Icb(translator::IcbMode),
    /// `[min-precision native16|relaxed32]`.
    MinPrecision(translator::MinPrecisionMode),
    /// `[header]`: `test-shader-models (...)`.
    Header(Vec<qualifier::ShaderModel>),
    Descriptors(Vec<DescriptorMap>),
    StreamOutput(translator::StreamOutput),
    TranslatorOptions(LayerOptions),
    None,
}

/// What a shader header says besides the stage.
#[derive(Default)]
struct ShaderHeader {
    fail: Option<Qualifier>,
    notimpl: Option<Qualifier>,
    todo: Option<Qualifier>,
    entry: Option<String>,
    format: Option<String>,
}

/// Parses a whole file.
pub fn parse(text: &str) -> TestFile {
    let mut file = TestFile::default();
    let mut body = Body::None;
    let mut header_line = 0u32;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i as u32 + 1;
        if raw.starts_with('[') {
            finish(
                &mut file,
                header_line,
                std::mem::replace(&mut body, Body::None),
            );
            header_line = line_no;
            match header(raw) {
                Ok(b) => body = b,
                Err(e) => {
                    file.errors.push((line_no, e));
                    body = Body::Ignored(raw.to_string());
                }
            }
            continue;
        }
        if raw.starts_with('%') {
            // Assembly keeps its line numbers for error messages: a comment line stays as
            // an empty line.
            if let Body::Shader { header, text, .. } = &mut body
                && matches!(header.format.as_deref(), Some("asm" | "dxbc-asm"))
            {
                text.push('\n');
            }
            continue;
        }
        if let Body::Shader { text, .. } | Body::BindingLayout(text) = &mut body {
            text.push_str(raw);
            text.push('\n');
            continue;
        }
        let line = match raw.find('%') {
            Some(p) => &raw[..p],
            None => raw,
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let result = match &mut body {
            Body::Require(r) => decls::require_line(r, line),
            Body::Resource(r) => decls::resource_line(r, line),
            Body::Sampler(s) => decls::sampler_line(s, line),
            Body::InputLayout(v) => decls::input_layout_line(line).map(|e| v.push(e)),
            Body::Header(models) => header_directive(models, line),
            Body::Descriptors(v) => descriptors_line(line).map(|d| v.push(d)),
            Body::StreamOutput(so) => decls::stream_output_line(so, line),
            Body::TranslatorOptions(o) => o.line(line),
            Body::Test(v) => {
                let t = test_lines::test_line(line_no, line).unwrap_or_else(|e| TestLine {
                    line: line_no,
                    todo: None,
                    bug: None,
                    conditions: Vec::new(),
                    directive: Directive::Malformed(e),
                });
                v.push(t);
                Ok(())
            }
            Body::Shader { .. }
            | Body::Ignored(_)
            | Body::BindingLayout(_)
            | Body::Binding(_)
            | Body::Icb(_)
            | Body::MinPrecision(_) => Ok(()),
            Body::BindingLayoutFile(_) => Err(format!(
                "a [binding layout FILE] section has no body: '{line}'"
            )),
            Body::None => Err(format!("line outside any section: '{line}'")),
        };
        if let Err(e) = result {
            file.errors.push((line_no, e));
        }
    }
    finish(&mut file, header_line, body);
    file
}

fn finish(file: &mut TestFile, line: u32, body: Body) {
    let kind = match body {
        Body::None => return,
        Body::Require(r) => SectionKind::Require(r),
        Body::Resource(r) => SectionKind::Resource(r),
        Body::Sampler(s) => SectionKind::Sampler(s),
        Body::InputLayout(v) => SectionKind::InputLayout(v),
        Body::Test(v) => SectionKind::Test(v),
        Body::Ignored(s) => SectionKind::Ignored(s),
        Body::Binding(b) => SectionKind::Binding(b),
        Body::Icb(m) => SectionKind::Icb(m),
        Body::MinPrecision(m) => SectionKind::MinPrecision(m),
        Body::Header(models) => SectionKind::Header(models),
        Body::Descriptors(v) => SectionKind::Descriptors(v),
        Body::StreamOutput(so) => SectionKind::StreamOutput(so),
        Body::TranslatorOptions(o) => SectionKind::TranslatorOptions(o),
        Body::BindingLayoutFile(f) => SectionKind::BindingLayoutFile(f),
        Body::BindingLayout(text) => match translator::binding::BindingLayout::parse(&text) {
            Ok(l) => SectionKind::Binding(l.into()),
            Err(e) => {
                file.errors.push((line, e.to_string()));
                // Later shaders must not run under some other placement.
                SectionKind::Unsupported(format!(
                    "the [binding layout] at line {line} is malformed"
                ))
            }
        },
        Body::Shader {
            stage,
            header,
            text,
        } => {
            let source = match header.format.as_deref() {
                None => ShaderSource::Hlsl(text),
                // D3D9 bytecode (SM1–3) goes the same way: the translator reads both.
                Some(f @ ("dxbc-tpf-hex" | "d3dbc-hex")) => match parse_hex(&text) {
                    Ok(bytes) => ShaderSource::DxbcHex(bytes),
                    Err(e) => {
                        file.errors.push((line, e));
                        ShaderSource::Unsupported {
                            format: f.into(),
                            reason: "malformed hex".into(),
                        }
                    }
                },
                // Assembly in the disassembler's syntax (ours, not vkd3d's; docs/assembler.md),
                // assembled by the translator crate's assembler into a DXBC container.
                // Errors name the file line (comment lines were kept as empty lines).
                // D3D9 assembly (first line `vs_2_0`, `ps_1_4`, ...: ours, docs/d3d9.md) is
                // assembled into D3D9 bytecode.
                Some(f @ ("asm" | "dxbc-asm")) => match assemble(&text) {
                    Ok(bytes) => ShaderSource::DxbcHex(bytes),
                    Err(e) => {
                        let reason = format!(
                            "{f}: line {}, column {}: {}",
                            line + e.line,
                            e.column,
                            e.message
                        );
                        // A section expected to fail is not an error in the file.
                        if header.fail.is_none() && header.notimpl.is_none() {
                            file.errors.push((line + e.line, reason.clone()));
                        }
                        ShaderSource::Unsupported {
                            format: f.to_string(),
                            reason: format!("the assembly does not assemble ({reason})"),
                        }
                    }
                },
                Some(f @ "dxbc-dxil-hex") => ShaderSource::Unsupported {
                    format: f.to_string(),
                    reason: format!(
                        "{f} shaders are DXIL (SM6), which the translator does not read"
                    ),
                },
                Some(f) => ShaderSource::Unsupported {
                    format: f.to_string(),
                    reason: format!("{f} shader sections are not supported yet"),
                },
            };
            SectionKind::Shader(ShaderSection {
                stage,
                source,
                fail: header.fail,
                notimpl: header.notimpl,
                todo: header.todo,
                entry: header.entry.unwrap_or_else(|| "main".to_string()),
            })
        }
    };
    file.sections.push(Section { line, kind });
}

fn header(raw: &str) -> Result<Body, String> {
    let inner = raw.trim_end();
    let inner = inner
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .ok_or_else(|| format!("malformed section header '{raw}'"))?
        .trim();
    let mut c = Cursor::new(inner);
    let stages = [
        ("vertex shader", Stage::Vertex),
        ("pixel shader", Stage::Pixel),
        ("compute shader", Stage::Compute),
        ("geometry shader", Stage::Geometry),
        ("hull shader", Stage::Hull),
        ("domain shader", Stage::Domain),
    ];
    for (name, stage) in stages {
        if c.eat_words(name) {
            let header = shader_header(&mut c)?;
            return Ok(Body::Shader {
                stage,
                header,
                text: String::new(),
            });
        }
    }
    // `N` or `N space S` (registers of other spaces than 0, for SM5.1 shaders).
    let slot = |c: &mut Cursor<'_>| -> Result<(u32, u32), String> {
        let n = c.u32()?;
        let space = if c.eat_word("space") { c.u32()? } else { 0 };
        if !c.is_empty() {
            return Err(format!("trailing text in header '{raw}'"));
        }
        if n > 1024 {
            return Err(format!("slot {n} out of range"));
        }
        Ok((n, space))
    };
    if inner == "header" {
        return Ok(Body::Header(Vec::new()));
    }
    if inner == "require" {
        return Ok(Body::Require(Require::default()));
    }
    if inner == "test" {
        return Ok(Body::Test(Vec::new()));
    }
    if inner == "input layout" {
        return Ok(Body::InputLayout(Vec::new()));
    }
    if inner == "dsv" {
        return Ok(Body::Resource(decls::new_resource(ResourceKind::Dsv, 0)));
    }
    for (words, kind) in [
        ("srv", ResourceKind::Srv),
        ("texture", ResourceKind::Srv),
        ("uav", ResourceKind::Uav),
        ("rtv", ResourceKind::Rtv),
        ("vb", ResourceKind::VertexBuffer),
        ("vertex buffer", ResourceKind::VertexBuffer),
        ("so", ResourceKind::StreamOutput),
    ] {
        if c.eat_words(words) {
            let (n, space) = slot(&mut c)?;
            if space != 0 && !matches!(kind, ResourceKind::Srv | ResourceKind::Uav) {
                return Err(format!(
                    "only SRVs, UAVs and samplers have register spaces: '{raw}'"
                ));
            }
            let mut r = decls::new_resource(kind, n);
            r.space = space;
            return Ok(Body::Resource(r));
        }
    }
    if c.eat_word("sampler") {
        let (n, space) = slot(&mut c)?;
        let mut s = SamplerDecl::new(n);
        s.space = space;
        return Ok(Body::Sampler(s));
    }
    if c.eat_words("binding layout") {
        // `[binding layout]` holds the layout; `[binding layout FILE]` names a file beside
        // the test.
        let file = c.rest().trim();
        return Ok(if file.is_empty() {
            Body::BindingLayout(String::new())
        } else {
            Body::BindingLayoutFile(file.to_string())
        });
    }
    if c.eat_words("min-precision") {
        // `[min-precision native16]`: minimum-precision arithmetic of the shaders translated
        // after it runs on 16-bit types (`relaxed32`: the default).
        return match c.rest().trim() {
            "native16" => Ok(Body::MinPrecision(translator::MinPrecisionMode::Native16)),
            "relaxed32" => Ok(Body::MinPrecision(translator::MinPrecisionMode::Relaxed32)),
            m => Err(format!(
                "unknown min-precision mode '{m}' (native16, relaxed32)"
            )),
        };
    }
    if c.eat_words("icb uniform-buffer") {
        // `[icb uniform-buffer b14 [space 1]]`: the immediate constant buffer of the shaders
        // translated after it is a uniform buffer placed like that constant buffer.
        let words: Vec<&str> = c.rest().split_whitespace().collect();
        let reg = |w: &str| w.strip_prefix('b').and_then(|n| n.parse::<u32>().ok());
        let mode = match words.as_slice() {
            [r] => reg(r).map(|register| (0, register)),
            [r, "space", sp] => reg(r).zip(sp.parse::<u32>().ok()).map(|(r, sp)| (sp, r)),
            _ => None,
        };
        let (space, register) =
            mode.ok_or_else(|| "expected [icb uniform-buffer bN [space S]]".to_string())?;
        return Ok(Body::Icb(translator::IcbMode::UniformBuffer {
            space,
            register,
        }));
    }
    if c.eat_words("binding policy") {
        let name = c.rest().trim();
        let p = translator::binding::BindingPolicy::from_name(name).ok_or_else(|| {
            format!("unknown binding policy '{name}' (class-offsets, per-range, vkd3d)")
        })?;
        return Ok(Body::Binding(p.into()));
    }
    if inner.starts_with("preproc") || inner.starts_with("effect") {
        return Ok(Body::Ignored(inner.to_string()));
    }
    if inner == "descriptors" {
        return Ok(Body::Descriptors(Vec::new()));
    }
    if inner == "stream output" {
        return Ok(Body::StreamOutput(translator::StreamOutput::default()));
    }
    if inner == "translator options" {
        return Ok(Body::TranslatorOptions(LayerOptions::default()));
    }
    Err(format!("unknown section '[{inner}]'"))
}

/// A `[header]` line: `test-shader-models (4.0 5.0 6.0)`, the shader models the file is to be
/// tested at (beside the lowest one of each family).
fn header_directive(models: &mut Vec<qualifier::ShaderModel>, line: &str) -> Result<(), String> {
    let mut c = Cursor::new(line);
    if !c.eat_word("test-shader-models") {
        return Err(format!("unknown header directive '{line}'"));
    }
    c.expect_char('(')?;
    while !c.eat_char(')') {
        if c.is_empty() {
            return Err("test-shader-models: missing ')'".into());
        }
        models.push(qualifier::ShaderModel::parse(&mut c)?);
    }
    if !c.is_empty() {
        return Err(format!("trailing text '{}'", c.rest()));
    }
    Ok(())
}

/// A `[descriptors]` line: `t[1:2], space 0, srv 5` or `u[0:0], space 1, uav 2`.
fn descriptors_line(line: &str) -> Result<DescriptorMap, String> {
    let bad = || {
        format!(
            "malformed descriptors line '{line}' (t[A:B], space S, srv N or u[A:B], space S, \
             uav N; samplers and CBVs are not mapped)"
        )
    };
    let (head, rest) = line.split_once('[').ok_or_else(bad)?;
    let (range, rest) = rest.split_once(']').ok_or_else(bad)?;
    let (lower, upper) = range.split_once(':').ok_or_else(bad)?;
    let num = |t: &str| cursor::parse_c_int(t.trim()).and_then(|v| u32::try_from(v).ok());
    let (kind, target_word) = match head.trim() {
        "t" => (ResourceKind::Srv, "srv"),
        "u" => (ResourceKind::Uav, "uav"),
        _ => return Err(bad()),
    };
    let words: Vec<&str> = rest
        .split([',', ' ', '\t'])
        .filter(|w| !w.is_empty())
        .collect();
    let ["space", space, word, target] = words[..] else {
        return Err(bad());
    };
    let (Some(lower), Some(upper), Some(space), Some(target)) =
        (num(lower), num(upper), num(space), num(target))
    else {
        return Err(bad());
    };
    if word != target_word || upper < lower || upper - lower >= 1024 {
        return Err(bad());
    }
    Ok(DescriptorMap {
        kind,
        lower,
        upper,
        space,
        target,
    })
}

fn shader_header(c: &mut Cursor<'_>) -> Result<ShaderHeader, String> {
    let mut h = ShaderHeader::default();
    while !c.is_empty() {
        if c.eat_word("todo") {
            h.todo = Some(Qualifier::parse_opt(c)?);
        } else if c.eat_word("fail") {
            h.fail = Some(Qualifier::parse_opt(c)?);
        } else if c.eat_word("notimpl") {
            h.notimpl = Some(Qualifier::parse_opt(c)?);
        } else if let Some(rest) = c.rest().strip_prefix("entry=") {
            let mut cc = Cursor::new(rest);
            let name = cc.take_token(&[]);
            if name.is_empty()
                || !name
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
            {
                return Err(format!("bad entry point name '{name}'"));
            }
            h.entry = Some(name.to_string());
            *c = cc;
        } else {
            let tok = c.take_token(&[]);
            match tok {
                "dxbc-tpf-hex" | "dxbc-asm" | "d3dbc-hex" | "dxbc-dxil-hex" | "asm" => {
                    h.format = Some(tok.to_string())
                }
                _ => return Err(format!("unknown shader section qualifier '{tok}'")),
            }
        }
    }
    Ok(h)
}

/// Assembles an `asm` section: D3D9 assembly when its first line is a D3D9 version, else
/// SM4–5 assembly into a DXBC container.
fn assemble(text: &str) -> Result<Vec<u8>, translator::asm::AsmError> {
    if translator::d3dbc::asm::is_d3d9_text(text) {
        translator::d3dbc::asm::assemble(text)
    } else {
        translator::asm::assemble(text)
    }
}

/// Reads hex text: 8-digit tokens are little-endian 32-bit words (as vkd3d writes them), other
/// even-length tokens are bytes in order. `0x` prefixes and `,` separators are allowed, and a
/// `%` starts a comment that runs to the end of its line (as in vkd3d's runner).
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for tok in text
        .lines()
        .flat_map(|l| {
            l.split('%')
                .next()
                .unwrap_or("")
                .split([' ', '\t', '\r', ','])
        })
        .filter(|t| !t.is_empty())
    {
        let t = tok.strip_prefix("0x").unwrap_or(tok);
        if t.is_empty() || t.len() % 2 != 0 || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("bad hex token '{tok}'"));
        }
        if t.len() == 8 {
            let w = u32::from_str_radix(t, 16).map_err(|e| e.to_string())?;
            out.extend_from_slice(&w.to_le_bytes());
        } else {
            for i in (0..t.len()).step_by(2) {
                out.push(u8::from_str_radix(&t[i..i + 2], 16).map_err(|e| e.to_string())?);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
[require]
shader model >= 5.0

[uav 0]
format r32-float
size (2d, 1, 1)

0.1

[compute shader]
RWTexture2D<float> u;
% a comment inside the shader is dropped
    [numthreads(1, 1, 1)]
void main()
{
    u[uint2(0, 0)] = 5 % 3;
}

[test]
todo(glsl) dispatch 1 1 1
probe uav 0 (0, 0) r (-123.0) % trailing comment

[pixel shader fail(sm<4) todo]
float4 main() : sv_target { return 0; }

[pixel shader dxbc-tpf-hex]
43425844 01020304
aabb
";

    #[test]
    fn sections_in_order() {
        let f = parse(SAMPLE);
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        let kinds: Vec<_> = f
            .sections
            .iter()
            .map(|s| (s.line, std::mem::discriminant(&s.kind)))
            .collect();
        assert_eq!(kinds.len(), 6);
        assert_eq!(f.sections[0].line, 1);
        assert_eq!(f.sections[1].line, 4);
        match &f.sections[1].kind {
            SectionKind::Resource(r) => {
                assert_eq!(r.kind, ResourceKind::Uav);
                assert_eq!(r.data, vec![0.1f32.to_bits()]);
            }
            o => panic!("{o:?}"),
        }
        match &f.sections[2].kind {
            SectionKind::Shader(s) => {
                assert_eq!(s.stage, Stage::Compute);
                let ShaderSource::Hlsl(src) = &s.source else {
                    panic!()
                };
                assert!(src.contains("5 % 3"), "a % inside HLSL is kept");
                assert!(!src.contains("comment inside"));
            }
            o => panic!("{o:?}"),
        }
        match &f.sections[3].kind {
            SectionKind::Test(lines) => {
                assert_eq!(lines.len(), 2);
                assert_eq!(lines[0].line, 20);
                assert_eq!(lines[1].line, 21);
            }
            o => panic!("{o:?}"),
        }
        match &f.sections[4].kind {
            SectionKind::Shader(s) => {
                assert!(s.fail.is_some());
                assert!(s.todo.is_some());
                assert_eq!(s.entry, "main");
            }
            o => panic!("{o:?}"),
        }
        match &f.sections[5].kind {
            SectionKind::Shader(s) => {
                assert_eq!(
                    s.source,
                    ShaderSource::DxbcHex(vec![0x44, 0x58, 0x42, 0x43, 4, 3, 2, 1, 0xaa, 0xbb])
                );
            }
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn errors_are_collected_not_fatal() {
        let f = parse(
            "[test]\ndraw quad\nfrobnicate 3\n[bogus section]\nstuff\n[vertex shader entry=vs_main]\nx\n",
        );
        // A bad section header is an error of the file; a bad `[test]` line is kept in its
        // block, to be judged where the block runs.
        assert_eq!(f.errors.len(), 1);
        assert_eq!(f.errors[0].0, 4);
        match &f.sections[0].kind {
            SectionKind::Test(lines) => {
                assert_eq!(lines[1].line, 3);
                assert!(
                    matches!(&lines[1].directive, Directive::Malformed(e) if e.contains("frobnicate")),
                    "{:?}",
                    lines[1]
                );
            }
            o => panic!("{o:?}"),
        }
        match &f.sections.last().unwrap().kind {
            SectionKind::Shader(s) => assert_eq!(s.entry, "vs_main"),
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn old_section_names() {
        let f = parse(
            "[texture 2]\nsize (2d, 1, 1)\n1.0 2.0 3.0 4.0\n[vertex buffer 1]\n1.0 2.0\n[sampler 0]\nfilter linear linear linear\n",
        );
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        match &f.sections[0].kind {
            SectionKind::Resource(r) => assert_eq!((r.kind, r.slot), (ResourceKind::Srv, 2)),
            o => panic!("{o:?}"),
        }
        match &f.sections[1].kind {
            SectionKind::Resource(r) => {
                assert_eq!((r.kind, r.slot), (ResourceKind::VertexBuffer, 1))
            }
            o => panic!("{o:?}"),
        }
    }

    /// Malformed files never panic: every truncation of the sample and every single-character
    /// replacement by format punctuation parses to sections and errors.
    #[test]
    fn mutations_never_panic() {
        let extra = "[test]\nprobe rect rgba (0, 0, 4, 4) (1, 2, 3, 4) 2\nprobe uav-1 (1, 2, 3) u64(1, 2)\n\
            draw 3 control point patch list 3 2\nclear rtv-0 f32(1, 2, 3, 4)\nif(sm>=5 | !msl) uniform 4 int4 1 2 3 4\n\
            [sampler 1]\nfilter minimum linear point linear\ncomparison not equal\n[input layout]\n0 r32-uint ID 2\n";
        let base = format!("{SAMPLE}{extra}");
        let chars: Vec<char> = base.chars().collect();
        for i in 0..=chars.len() {
            let t: String = chars[..i].iter().collect();
            let _ = parse(&t);
        }
        for i in 0..chars.len() {
            for c in [
                '[', ']', '(', ')', ',', '%', '-', '.', '0', '9', 'x', ' ', '\n', '|', '&', '!',
                '<', '=',
            ] {
                let mut m = chars.clone();
                m[i] = c;
                let t: String = m.into_iter().collect();
                let _ = parse(&t);
            }
        }
    }

    #[test]
    fn spaces_and_binding_sections() {
        let f = parse(
            "[srv 3 space 2]\nsize (2d, 1, 1)\n1.0\n[sampler 1 space 4]\n[uav 0]\n\
             [binding policy per-range]\n[binding layout]\n  [[descriptors]]\n  class = \"t\"\n  \
             space = 2\n  register = 3\n  set = 1\n  binding = 0\n[binding layout other.toml]\n",
        );
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        match &f.sections[0].kind {
            SectionKind::Resource(r) => {
                assert_eq!((r.kind, r.slot, r.space), (ResourceKind::Srv, 3, 2))
            }
            k => panic!("{k:?}"),
        }
        match &f.sections[1].kind {
            SectionKind::Sampler(s) => assert_eq!((s.slot, s.space), (1, 4)),
            k => panic!("{k:?}"),
        }
        match &f.sections[2].kind {
            SectionKind::Resource(r) => assert_eq!((r.slot, r.space), (0, 0)),
            k => panic!("{k:?}"),
        }
        match &f.sections[3].kind {
            SectionKind::Binding(b) => assert_eq!(
                *b,
                translator::binding::Binding::Policy(translator::binding::BindingPolicy::PerRange)
            ),
            k => panic!("{k:?}"),
        }
        match &f.sections[4].kind {
            SectionKind::Binding(translator::binding::Binding::Layout(l)) => {
                assert_eq!(l.descriptors.len(), 1);
                assert_eq!((l.descriptors[0].space, l.descriptors[0].register), (2, 3));
            }
            k => panic!("{k:?}"),
        }
        match &f.sections[5].kind {
            SectionKind::BindingLayoutFile(p) => assert_eq!(p, "other.toml"),
            k => panic!("{k:?}"),
        }
        // Errors: a malformed layout names its section line and makes later checks skip;
        // unknown policies, spaces on render targets and bodies after a file are errors.
        let f = parse("[binding layout]\n  [[descriptors]]\n  class = \"q\"\n[test]\ndraw quad\n");
        assert_eq!(f.errors.len(), 1, "{:?}", f.errors);
        assert_eq!(f.errors[0].0, 1);
        assert!(
            f.errors[0].1.contains("binding layout"),
            "{}",
            f.errors[0].1
        );
        assert!(matches!(f.sections[0].kind, SectionKind::Unsupported(_)));
        let f =
            parse("[binding policy magic]\n[rtv 0 space 1]\n[binding layout x.toml]\nclass = 1\n");
        assert_eq!(f.errors.len(), 3, "{:?}", f.errors);
    }

    #[test]
    fn header_section() {
        let f = parse("[header]\ntest-shader-models (4.0 5.0 6.0)\n[test]\ndraw quad\n");
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        match &f.sections[0].kind {
            SectionKind::Header(m) => assert_eq!(
                m,
                &[
                    qualifier::ShaderModel::new(4, 0),
                    qualifier::ShaderModel::new(5, 0),
                    qualifier::ShaderModel::new(6, 0)
                ]
            ),
            k => panic!("{k:?}"),
        }
        let f = parse("[header]\ntest-shader-models 4.0\nfrobnicate\n");
        assert_eq!(f.errors.len(), 2, "{:?}", f.errors);
    }

    #[test]
    fn descriptors_section() {
        let f =
            parse("[descriptors]\nt[1:2], space 0, srv 5\nu[3:3], space 2, uav 0\n[descriptors]\n");
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        let SectionKind::Descriptors(v) = &f.sections[0].kind else {
            panic!("{:?}", f.sections[0].kind)
        };
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].resolve(ResourceKind::Srv, 0, 2), Some(6));
        assert_eq!(v[0].resolve(ResourceKind::Srv, 0, 3), None);
        assert_eq!(v[0].resolve(ResourceKind::Uav, 0, 1), None);
        assert_eq!(v[1].resolve(ResourceKind::Uav, 2, 3), Some(0));
        assert!(matches!(&f.sections[1].kind, SectionKind::Descriptors(v) if v.is_empty()));
        let f = parse(
            "[descriptors]\nt[1:2], space 0, uav 5\ns[0:0], space 0, sampler 1\nt[2:1], space 0, srv 0\n",
        );
        assert_eq!(f.errors.len(), 3, "{:?}", f.errors);
    }

    #[test]
    fn hex() {
        assert_eq!(parse_hex("0x01020304, ff").unwrap(), vec![4, 3, 2, 1, 0xff]);
        assert!(parse_hex("xyz").is_err());
        assert!(parse_hex("abc").is_err());
        // `%` comments inside a hex section, after tokens and on their own lines.
        assert_eq!(
            parse_hex("01020304 % the tag\n% a comment line\n0a0b0c0d%x\n").unwrap(),
            vec![4, 3, 2, 1, 0xd, 0xc, 0xb, 0xa]
        );
    }
}
