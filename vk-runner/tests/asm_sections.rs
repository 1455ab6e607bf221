//! `[… shader asm]` sections: the text is assembled in-process by `translator::asm`
//! (`dxbc-asm` is accepted as another name); errors become failed checks at the file line
//! of the bad assembly line, and a section expected to fail records no error.

use translator::container::Container;
use translator::sm4;
use vk_runner::parse::{self, SectionKind, ShaderSource, Stage};

const FILE: &str = "\
[require]
shader model >= 5.0

[pixel shader asm]
% A comment line inside the section keeps the line numbering.
ps_5_0
.input SV_Position 0 v0 float POS
.output SV_Target 0 o0 float
dcl_output o0.xyzw
mov o0.xyzw, l(0.0, 1.0, 0.0, 1.0)
ret

[compute shader dxbc-asm]
cs_5_0
dcl_thread_group 1, 1, 1
ret

[test]
draw quad
probe (0, 0) rgba (0.0, 1.0, 0.0, 1.0)
";

fn shader_sources(file: &parse::TestFile) -> Vec<(u32, Stage, &ShaderSource)> {
    file.sections
        .iter()
        .filter_map(|s| match &s.kind {
            SectionKind::Shader(sh) => Some((s.line, sh.stage, &sh.source)),
            _ => None,
        })
        .collect()
}

#[test]
fn asm_sections_are_assembled() {
    let file = parse::parse(FILE);
    assert!(file.errors.is_empty(), "{:?}", file.errors);
    let shaders = shader_sources(&file);
    assert_eq!(shaders.len(), 2);
    for ((line, stage, source), (want_line, want_stage, version)) in shaders
        .iter()
        .zip([(4, Stage::Pixel, "ps_5_0"), (13, Stage::Compute, "cs_5_0")])
    {
        assert_eq!((*line, *stage), (want_line, want_stage));
        let ShaderSource::DxbcHex(bytes) = source else {
            panic!("section at line {line} was not assembled: {source:?}");
        };
        let container = Container::parse(bytes).unwrap();
        assert!(container.verify_checksum());
        let chunk = container.shader_chunk().unwrap();
        let program = sm4::decode(chunk.data, chunk.offset).unwrap();
        assert!(program.to_string().starts_with(version));
    }
}

#[test]
fn assembly_errors_name_the_file_line() {
    let text = "[pixel shader asm]\nps_5_0\n% comment\n\nmov o0.xyzw, l(1.0, 2.0)\nret\n";
    let file = parse::parse(text);
    // `l(…)` takes 1 or 4 values: reported at file line 5.
    assert_eq!(file.errors.len(), 1, "{:?}", file.errors);
    let (line, message) = &file.errors[0];
    assert_eq!(*line, 5, "{message}");
    assert!(message.contains("line 5, column"), "{message}");
    match &shader_sources(&file)[0].2 {
        ShaderSource::Unsupported { reason, .. } => {
            assert!(reason.contains("does not assemble"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    // Expected to fail: no error in the file.
    let file = parse::parse("[pixel shader asm fail]\nps_5_0\nfrobnicate\n");
    assert!(file.errors.is_empty(), "{:?}", file.errors);
}
