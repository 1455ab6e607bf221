//! Assembler unit tests: encodings checked against tokens assembled by hand from the field
//! layouts of d3d12TokenizedProgramFormat.hpp, the syntax corners of `docs/assembler.md`,
//! signatures, and error positions.

use super::*;
use crate::container::{Container, ParsedContainer, Signature};
use crate::sm4::{self, Components, IndexRepr, OperandType};

fn words(text: &str) -> Vec<u32> {
    let a = parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    a.chunk
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The dwords after the version and length tokens.
fn body(text: &str) -> Vec<u32> {
    let w = words(text);
    assert_eq!(w[1] as usize, w.len(), "length token");
    w[2..].to_vec()
}

fn round_trip(text: &str) {
    let program = assemble_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(program.to_string(), text);
}

fn err(text: &str) -> AsmError {
    match parse(text) {
        Ok(_) => panic!("should not assemble:\n{text}"),
        Err(e) => e,
    }
}

#[test]
fn version_tokens() {
    assert_eq!(words("ps_4_0\n"), [0x0000_0040, 2]);
    assert_eq!(words("vs_4_1\n"), [0x0001_0041, 2]);
    assert_eq!(words("gs_5_0\n"), [0x0002_0050, 2]);
    assert_eq!(words("hs_5_0\n"), [0x0003_0050, 2]);
    assert_eq!(words("ds_5_0\n"), [0x0004_0050, 2]);
    assert_eq!(words("cs_5_1 {bits=0x12}\n"), [0x0005_1251, 2]);
}

#[test]
fn mov_with_mask_and_swizzle() {
    // mov: opcode 0x36, length 5. r0.xyzw as destination: mask mode, mask 0xf, temp, 1D.
    // v1.xyzw as source: swizzle mode xyzw (0xe4 << 4), input, 1D.
    assert_eq!(
        body("ps_5_0\nmov r0.xyzw, v1.xyzw\n"),
        [0x0500_0036, 0x0010_00f2, 0, 0x0010_1e46, 1]
    );
}

#[test]
fn modifiers_select_and_relative_index() {
    // add_sat (bit 13), length 12.
    // r0.x: mask x.  -r1.y: select-1 y, extended (negate: 1 << 6).
    // |cb0[r2.z + 4].w|: select-1 w, 2D, index 1 imm32+relative (3 << 25), extended (abs:
    // 2 << 6); then index 0, index 1's immediate 4, and the relative operand r2.z.
    assert_eq!(
        body("ps_5_0\nadd_sat r0.x, -r1.y, |cb0[r2.z + 4].w|\n"),
        [
            0x0c00_2000,
            0x0010_0012,
            0,
            0x8010_001a,
            0x41,
            1,
            0x8620_803a,
            0x81,
            0,
            4,
            0x0010_002a,
            2,
        ]
    );
    // Relative-only (`+ 0`), explicit zero (`+ 0u32`) and 64-bit forms.
    let p = assemble_program(
        "vs_5_0\nmov r0.x, cb0[r1.x + 0].x\nmov r0.x, cb0[r1.x + 0u32].x\n\
         mov r0.x, cb0[7u64].x\nmov r0.x, cb0[r1.x + 5u64].x\n",
    )
    .unwrap();
    let reprs: Vec<IndexRepr> = p
        .iter()
        .map(|i| i.operands[1].index(1).unwrap().repr)
        .collect();
    assert_eq!(
        reprs,
        [
            IndexRepr::Relative,
            IndexRepr::Imm32PlusRelative,
            IndexRepr::Imm64,
            IndexRepr::Imm64PlusRelative
        ]
    );
    assert_eq!(p.get(2).unwrap().operands[1].index(1).unwrap().value, 7);
}

#[test]
fn sample_indexable_extended_tokens() {
    // sample (0x45) with two extended opcode tokens: resource dimension texture2d (2 | 3 << 6,
    // "more" bit) and return types float x4 (3 | 0x5555 << 6); length 11.
    assert_eq!(
        body(
            "ps_5_0\nsample_indexable(texture2d)(float,float,float,float) r0.xyzw, v1.xyxx, \
             t0.xyzw, s0\n"
        ),
        [
            0x8b00_0045,
            0x8000_00c2,
            0x0015_5543,
            0x0010_00f2,
            0,
            0x0010_1046,
            1,
            0x0010_7e46,
            0,
            0x0010_6000,
            0,
        ]
    );
    // Offsets (u,v,w) -1,2,0 in bits 9-12, 13-16, 17-20; order of the tokens kept.
    let w = body("ps_4_0\nld_aoffimmi(-1,2,0) r0.xyzw, r1.xyzw, t0.xyzw\n");
    assert_eq!(w[1], 1 | 0xf << 9 | 2 << 13);
    let w = body(
        "ps_5_0\nld_aoffimmi_indexable(1,0,0)(texture2d)(float,float,float,float) {extorder=RDS} \
         r0.xyzw, r1.xyzw, t0.xyzw\n",
    );
    assert_eq!(w[1] & 0x3f, 3);
    assert_eq!(w[2] & 0x3f, 2);
    assert_eq!(w[3], 1 | 1 << 9);
}

#[test]
fn controls_and_suffixes() {
    // if_nz: test bit 18. breakc_z: bit clear.
    assert_eq!(body("ps_5_0\nif_nz r0.x\n")[0], 0x0304_001f);
    assert_eq!(body("ps_5_0\nbreakc_z r0.x\n")[0], 0x0300_0003);
    // sync_uglobal_g_t: flags 8|2|1 in bits 11-14.
    assert_eq!(
        body("cs_5_0\nsync_uglobal_g_t\n")[0],
        0x0100_00be | 0xb << 11
    );
    // resinfo _uint (2 << 11), _rcpFloat (1 << 11); sampleinfo _uint (bit 11).
    assert_eq!(
        body("ps_5_0\nresinfo_uint r0.xyzw, l(0), t0.xyzw\n")[0] & 0x1800,
        2 << 11
    );
    assert_eq!(
        body("ps_5_0\nresinfo_rcpFloat r0.xyzw, l(0), t0.xyzw\n")[0] & 0x1800,
        1 << 11
    );
    assert_eq!(
        body("ps_5_0\nsampleinfo_uint r0.x, t0.x\n")[0] & 0x800,
        0x800
    );
    // precise(xy): bits 19-20.
    assert_eq!(
        body("ps_5_0\nadd [precise(xy)] r0.xy, r1.xyxx, r1.zwzz\n")[0] >> 19 & 0xf,
        3
    );
    // Suffix after the groups.
    round_trip(
        "ps_5_0\nresinfo_indexable(texture2d)(float,float,float,float)_uint r0.xyzw, l(0), \
         t0.xyzw\n",
    );
    round_trip("ps_5_0\nround_z_sat r0.x, r1.x\n");
}

#[test]
fn sm51_declarations_and_ranges() {
    // dcl_resource (0x58), texture2d (3 << 11); T1 as a 3D operand: ID 1, range 10..unbounded;
    // return type token, space.
    assert_eq!(
        body("ps_5_1\ndcl_resource_texture2d (float,float,float,float) T1[10:*], space=0\n"),
        [0x0700_1858, 0x0030_7000, 1, 10, u32::MAX, 0x5555, 0]
    );
    // dcl_constantbuffer (0x59): CB0[0:0] with swizzle xyzw, size 4 dwords, space 1.
    assert_eq!(
        body("ps_5_1\ndcl_constantbuffer CB0[0:0][4], immediateIndexed, space=1\n"),
        [0x0700_0059, 0x0030_8e46, 0, 0, 0, 4, 1]
    );
    // A missing `space=` is space 0; lower-case register files are accepted.
    assert_eq!(
        body("ps_5_1\ndcl_sampler s0[5:5], mode_default\n"),
        body("ps_5_1\ndcl_sampler S0[5:5], mode_default, space=0\n")
    );
    // T1[r1.x + 10]: 2D operand, index 1 imm32+relative.
    let p =
        assemble_program("ps_5_1\nsample r1.xyzw, r0.xyxx, T1[r1.x + 10].xyzw, S0[5]\n").unwrap();
    let inst = p.get(0).unwrap();
    let t = &inst.operands[2];
    assert_eq!((t.ty, t.index_dim()), (OperandType::Resource, 2));
    assert_eq!(t.index(1).unwrap().repr, IndexRepr::Imm32PlusRelative);
    assert_eq!(t.index(1).unwrap().value, 10);
    let rel = inst.rel(&t.index(1).unwrap()).unwrap();
    assert_eq!(
        (rel.ty, rel.components),
        (OperandType::Temp, Components::Select1(0))
    );
    // Without a range, the last bracket is the size; a size is required.
    round_trip("ps_5_1\ndcl_constantbuffer CB0[1][4], immediateIndexed, space=0\n");
    round_trip("ps_5_1\ndcl_constantbuffer CB0[1][2u64][4], immediateIndexed, space=0\n");
    round_trip("ps_5_1\ndcl_constantbuffer CB0[1][2u64].xxxx[4], immediateIndexed, space=0\n");
    assert!(
        err("ps_5_1\ndcl_constantbuffer CB0, immediateIndexed\n")
            .message
            .contains("size")
    );
    // Ranges and spaces need SM5.1.
    assert!(
        err("ps_5_0\ndcl_sampler s0[5:5], mode_default\n")
            .message
            .contains("SM5.1")
    );
    assert!(
        err("ps_5_0\ndcl_sampler s0, mode_default, space=1\n")
            .message
            .contains("SM5.1")
    );
}

#[test]
fn immediates_and_components() {
    // l(a) is one component; l(a,b,c,d) four with an empty mask; floats bit-exact.
    let p =
        assemble_program("ps_5_0\nmov r0.x, l(0.1)\nmov r0, l(1, -1, 0x7fc00000, 1e-7)\n").unwrap();
    let a = &p.get(0).unwrap().operands[1];
    assert_eq!(a.components, Components::One);
    assert_eq!(a.immediates(), [0.1f32.to_bits()]);
    let b = &p.get(1).unwrap().operands[1];
    assert_eq!(b.components, Components::Mask(0));
    assert_eq!(
        b.immediates(),
        [1, u32::MAX, 0x7fc0_0000, 1e-7f32.to_bits()]
    );
    assert_eq!(p.get(1).unwrap().operands[0].components, Components::Zero);
    // d(a, b): 64-bit values as (low, high) dwords.
    let p = assemble_program("cs_5_0\ndmov r0.xy, d(1.0)\ndmov r0.xyzw, d(-2.0, 0x1)\n").unwrap();
    assert_eq!(
        p.get(0).unwrap().operands[1].immediate_words(),
        [0, 0x3ff0_0000]
    );
    assert_eq!(
        p.get(1).unwrap().operands[1].immediate_words(),
        [0, 0xc000_0000, 1, 0]
    );
    // Sources: one letter selects, four swizzle, two or three repeat the last letter.
    let p = assemble_program("ps_5_0\nmov r0.xy, r1.zy\n").unwrap();
    assert_eq!(
        p.get(0).unwrap().operands[1].components,
        Components::Swizzle([2, 1, 1, 1])
    );
    // Scalar registers default to one component.
    let p = assemble_program("ps_5_0\nmov oDepth, vCoverage\n").unwrap();
    let i = p.get(0).unwrap();
    assert_eq!(i.operands[0].components, Components::One);
    assert_eq!(i.operands[1].components, Components::One);
}

#[test]
fn annotations_round_trip() {
    for text in [
        "ps_5_0\nmov r0.xyzw {ext}, v1.xyzw {min16f, nonuniform}\n",
        "ps_5_0\nmov r0.xyzw {swz}, v1.x {mask}\n",
        "ps_5_0\nmov r0.x {sel}, v1 {c1}\n",
        "ps_5_0\nmov r0 {mask}, v1 {cN, bits=0x2000000}\n",
        "ps_5_0\nmov {control=0x4000} r0.x, v1.x\n",
        "ps_5_0\nsamplepos {pad=0x0} r0.xy, t0.xyxx, l(0)\n",
        "ps_5_0\nmov {longlen, pad=0x1, pad=0x2} r0.x, v1.x\n",
        "ps_5_0\nmov r0.x, v1.x {extbits=0x40000}\n",
        "ps_5_0\ndcl_input_siv {namebits=0x3} v0.xyzw, position\n",
        "ps_5_0\ndcl_resource_texture2d {retbits=0x7} (float,float,float,float) t0\n",
        "ps_5_0\nsample_aoffimmi(1,1,0) {aoffbits=0x40} r0.xyzw, v0.xyxx, t0.xyzw, s0\n",
        "ps_5_0\nret\n{trailing=00ff10}\n",
    ] {
        round_trip(text);
    }
    // Reserved bits may not overlap a field.
    assert!(
        err("ps_5_0\nmov r0.x, v1.x {bits=0x1000}\n")
            .message
            .contains("overlaps")
    );
    assert!(
        err("ps_5_0\nmov {control=0x2000} r0.x, v1.x\n")
            .message
            .contains("decodes differently")
    );
    // dcl_temps uses no control bits; dcl_sampler's mode is bits 11-14.
    round_trip("ps_5_0\ndcl_temps {control=0x800} 1\n");
    assert_eq!(
        err("ps_5_0\ndcl_sampler {control=0x800} s0, mode_default\n").line,
        2
    );
}

#[test]
fn declarations_round_trip() {
    round_trip(
        "hs_5_0\nhs_decls\ndcl_input_control_point_count 3\ndcl_output_control_point_count 3\n\
         dcl_tessellator_domain domain_tri\ndcl_tessellator_partitioning partitioning_fractional_odd\n\
         dcl_tessellator_output_primitive output_triangle_cw\ndcl_hs_max_tessfactor l(64.0)\n\
         dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps\n\
         hs_fork_phase\ndcl_hs_fork_phase_instance_count 3\ndcl_input vForkInstanceID\n\
         dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor\ndcl_temps 1\n\
         mov o[r0.x + 0].x, l(1.0)\nret\nhs_join_phase\ndcl_hs_join_phase_instance_count 1\nret\n",
    );
    round_trip(
        "gs_5_0\ndcl_inputprimitive triangleadj\ndcl_outputtopology trianglestrip\ndcl_maxout 6\n\
         dcl_gsinstances 2\ndcl_stream m0\ndcl_stream m1\ndcl_input v[6][0].xyzw\n\
         dcl_input vGSInstanceID\ndcl_indexrange v[0][1].xyzw 2\nemit_stream m1\n\
         cut_stream m0\nemit_then_cut_stream m1\nret\n",
    );
    round_trip(
        "cs_5_0\ndcl_globalFlags refactoringAllowed\ndcl_uav_typed_texture2d_glc (uint,uint,uint,uint) u0\n\
         dcl_uav_raw_rov u1\ndcl_uav_structured_glc_opc u2, 16\ndcl_resource_raw t0\n\
         dcl_resource_structured t1, 24\ndcl_resource_texture2dms(4) (float,float,float,float) t2\n\
         dcl_tgsm_raw g0, 1024\ndcl_tgsm_structured g1, 4, 64\ndcl_thread_group 8, 8, 1\n\
         dcl_indexableTemp x0[16], 4\n\
         ld_structured_indexable(structured_buffer, stride=24)(mixed,mixed,mixed,mixed) r0.x, \
         vThreadID.x, l(0), t1.xxxx\nret\n",
    );
    round_trip(
        "ps_5_0\ndcl_immediateConstantBuffer { { 1.0, 0, 0, 0 },\n  { 0, 1.0, 0x7f800000, 0 },\n  \
         { 5, 6 } }\ndcl_input_ps_siv linear noperspective centroid v0.xy, position\n\
         dcl_input_ps_sgv constant v1.x, is_front_face\ndcl_input_ps linear sample v2.xyzw\n\
         dcl_customdata comment { 0x00000001, 0x00000002 }\nmov r0.x, icb[r1.x + 0].x\nret\n",
    );
    round_trip(
        "ps_5_0\ndcl_function_body fb0\ndcl_function_body fb1\ndcl_function_table ft0 = {fb0, fb1}\n\
         dcl_interface fp0[1][2] = {ft0}\ndcl_interface_dynamicindexed fp1[2][2] = {ft0, ft0}\n\
         fcall fp0[0][1]\nfcall fp1[r0.x + 0][0]\nlabel fb0\nret\nlabel fb1\nret\n",
    );
}

#[test]
fn subroutines_and_switch() {
    round_trip(
        "vs_5_0\ndcl_temps 1\ncall label0\ncallc_nz r0.x, label1\nret\nlabel label0\n\
         mov r0.x, l(1)\nret\nlabel label1\nswitch r0.x\n  case l(0)\n  case l(1)\n  \
         mov r0.y, l(2)\n  default\n  break\nendswitch\nret\n",
    );
}

#[test]
fn docs_spelling_of_sm51_assembles_like_ours() {
    // The DirectX docs print SM5.1 register files in lower case; ours in upper case.
    let docs = "ps_5_1\ndcl_sampler s0[5:5], mode_default, space=0\n\
                dcl_resource_texture2d (float,float,float,float) t1[10:*], space=0\n\
                sample r1.xyzw, r0.xyxx, t1[r1.x + 10].xyzw, s0[5]\n";
    let ours = "ps_5_1\ndcl_sampler S0[5:5], mode_default, space=0\n\
                dcl_resource_texture2d (float,float,float,float) T1[10:*], space=0\n\
                sample r1.xyzw, r0.xyxx, T1[r1.x + 10].xyzw, S0[5]\n";
    assert_eq!(words(docs), words(ours));
    round_trip(ours);
}

#[test]
fn containers_and_signatures() {
    let text = "ps_5_0\n.input SV_Position 0 v0 float POS\n.input TEXCOORD 3 v1.xy float rw=x\n\
                .output SV_Target 0 o0 float\n.output SV_Depth 0 oDepth float\n\
                dcl_output o0.xyzw\nret\n";
    let blob = assemble(text).unwrap();
    let parsed = ParsedContainer::parse(&blob).unwrap();
    assert!(parsed.checksum_matches());
    assert_eq!(parsed.program.unwrap().tag, *b"SHEX");
    let input = parsed.input_signature.as_ref().unwrap();
    assert_eq!(input.tag, "ISGN");
    let e = &input.elements;
    assert_eq!(
        (e[0].semantic_name, e[0].register, e[0].mask, e[0].rw_mask),
        ("SV_Position", 0, 0xf, 0xf)
    );
    assert_eq!(e[0].system_value.raw(), 1);
    assert_eq!(
        (e[1].semantic_index, e[1].mask, e[1].rw_mask),
        (3, 0x3, 0x1)
    );
    let out = &parsed.output_signature.as_ref().unwrap().elements;
    // Outputs: rw is the components never written, as fxc stores it.
    assert_eq!(
        (out[0].mask, out[0].rw_mask, out[0].system_value.raw()),
        (0xf, 0, 0)
    );
    assert_eq!(
        (out[1].register, out[1].mask, out[1].rw_mask),
        (u32::MAX, 1, 0xe)
    );
    // The directives printed from the container give the same chunks back.
    let again = assemble(&format!(
        "ps_5_0\n{}dcl_output o0.xyzw\nret\n",
        directives(&parsed)
    ))
    .unwrap();
    assert_eq!(again, blob);

    // Chunk tags: SM4 programs are SHDR; gs_5_0 outputs OSG5; precision selects the …1 forms.
    let c = assemble("vs_4_0\nret\n").unwrap();
    let c = Container::parse(&c).unwrap();
    let tags: Vec<[u8; 4]> = c.chunks.iter().map(|c| c.tag).collect();
    assert_eq!(tags, [*b"ISGN", *b"OSGN", *b"SHDR"]);
    let c = assemble("gs_5_0\n.output SV_Position 0 o0 float POS stream=1\n.input A 0 v0 float precision=min16f\nret\n").unwrap();
    let c = Container::parse(&c).unwrap();
    let tags: Vec<[u8; 4]> = c.chunks.iter().map(|c| c.tag).collect();
    assert_eq!(tags, [*b"ISG1", *b"OSG5", *b"SHEX"]);
    let s = Signature::parse(&c.chunks[1]).unwrap();
    assert_eq!(s.elements[0].stream, 1);
    let c =
        assemble("hs_5_0\n.patch SV_TessFactor 0 o0.x float QUADEDGE\n.tag program SHDR\nret\n")
            .unwrap();
    let c = Container::parse(&c).unwrap();
    let tags: Vec<[u8; 4]> = c.chunks.iter().map(|c| c.tag).collect();
    assert_eq!(tags, [*b"ISGN", *b"OSGN", *b"PCSG", *b"SHDR"]);
    let e = assemble("ps_5_0\n.tag output OSGN\n.output A 0 o0 float stream=2\nret\n").unwrap_err();
    assert_eq!(e.line, 2);
}

#[test]
fn comment_header_tables_give_signatures() {
    let text = "\
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// COORD                    0   x  w        0     NONE   float   x   
// SV_PrimitiveID           0    N/A   primID   PRIMID    uint    YES
//
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_TARGET                0   xyzw        0   TARGET   float   xy  
// SV_Depth                 0    N/A   oDepth    DEPTH   float    YES
//
ps_5_0
ret
// Approximately 1 instruction slots used
";
    let blob = assemble(text).unwrap();
    let parsed = ParsedContainer::parse(&blob).unwrap();
    let i = &parsed.input_signature.as_ref().unwrap().elements;
    assert_eq!(
        (i[0].semantic_name, i[0].mask, i[0].rw_mask),
        ("COORD", 0x9, 0x1)
    );
    assert_eq!(
        (
            i[1].register,
            i[1].mask,
            i[1].rw_mask,
            i[1].system_value.raw()
        ),
        (u32::MAX, 1, 1, 7)
    );
    assert_eq!(i[1].component_type.raw(), 1);
    let o = &parsed.output_signature.as_ref().unwrap().elements;
    // SV_TARGET's TARGET comes from its name: stored as NONE, as compilers do.
    assert_eq!(
        (o[0].system_value.raw(), o[0].mask, o[0].rw_mask),
        (0, 0xf, 0xc)
    );
    assert_eq!((o[1].system_value.raw(), o[1].rw_mask), (0, 0xe));
}

#[test]
fn errors_name_line_column_and_expectation() {
    let cases: &[(&str, (u32, u32), &str)] = &[
        ("", (1, 1), "expected a version line"),
        ("ps_3_0\n", (1, 1), "unsupported shader model 3.0"),
        (
            "ps_5_0\nfrobnicate r0\n",
            (2, 1),
            "unknown instruction 'frobnicate'",
        ),
        (
            "ps_5_0\nadd r0.x, r1.x\n",
            (2, 15),
            "'add' takes 3 operands (1 destination, 2 sources), found 2",
        ),
        (
            "ps_5_0\nmov r0.x, r1.x, r2.x\n",
            (2, 17),
            "'mov' takes 2 operands",
        ),
        ("ps_5_0\nmov r0.q, r1.x\n", (2, 8), "'q' is not a component"),
        ("ps_5_0\nmov r0.yx, r1.x\n", (2, 8), "xyzw order"),
        ("ps_5_0\nif r0.x\n", (2, 1), "needs a test suffix"),
        ("ps_5_0\nmov q0.x, r1.x\n", (2, 5), "unknown register 'q0'"),
        (
            "ps_5_0\nmov r0.x, l(1, 2)\n",
            (2, 12),
            "l(…) takes 1 or 4 values",
        ),
        (
            "ps_5_0\nmov r0.x, l(1e40)\n",
            (2, 13),
            "does not fit a 32-bit float",
        ),
        (
            "ps_5_0\nmov_foo r0.x, r1.x\n",
            (2, 5),
            "unexpected suffix '_foo'",
        ),
        (
            "ps_5_0\nsample_aoffimmi(9,0,0) r0, r0, t0, s0\n",
            (2, 17),
            "outside -8…7",
        ),
        (
            "ps_5_0\ndcl_resource_texturefoo (float,float,float,float) t0\n",
            (2, 14),
            "resource dimension",
        ),
        (
            "ps_5_0\ndcl_temps\n",
            (2, 10),
            "expected a register count, found end of line",
        ),
        ("ps_5_0\nmov r0.x, cb0[r1.x + 1\n", (2, 23), "expected ']'"),
        (
            "ps_5_0\n.input A 0 v0 floaty\n",
            (2, 15),
            "a component type",
        ),
        ("ps_5_0\n.frob\n", (2, 1), "unknown directive '.frob'"),
        (
            "ps_5_0\nret\n{trailing=0}\n",
            (3, 11),
            "even number of hex digits",
        ),
        (
            "ps_5_0\nmov r0.x, r1.x {frob}\n",
            (2, 17),
            "unknown operand annotation 'frob'",
        ),
        ("ps_5_0\n\"open\n", (2, 1), "unterminated string"),
    ];
    for (text, (line, column), message) in cases {
        let e = err(text);
        assert!(
            e.message.contains(message) && (e.line, e.column) == (*line, *column),
            "{text:?}: got {e}, expected line {line}, column {column}: {message}"
        );
    }
}

#[test]
fn deep_nesting_is_bounded() {
    let mut text = String::from("ps_5_0\nmov r0.x, ");
    for _ in 0..10_000 {
        text.push_str("r0[");
    }
    assert!(err(&text).message.contains("nest"));
    // Depth 4 is what the decoder accepts.
    round_trip("ps_5_0\nmov r0.x, x0[x0[x0[x0[r0.x + 0].x + 0].x + 0].x + 0].x\n");
    let _ = sm4::MAX_RELATIVE_DEPTH;
}

#[test]
fn large_inputs_take_linear_time() {
    // 200,000 padding dwords on one instruction and 200,000 signature elements: quadratic
    // handling of either would take minutes.
    let start = std::time::Instant::now();
    let mut text = String::from("ps_5_0\n");
    for i in 0..200_000 {
        text.push_str(&format!(".input N{i} 0 v{i} float\n"));
    }
    text.push_str("mov {longlen");
    for _ in 0..200_000 {
        text.push_str(", pad=0x0");
    }
    text.push_str("} r0.x, r1.x\nret\n");
    let a = parse(&text).unwrap();
    assert_eq!(a.program.instructions[0].padding.len(), 200_000);
    assert_eq!(a.signatures.input.elements.len(), 200_000);
    let blob = a.to_container().unwrap();
    assert!(ParsedContainer::parse(&blob).is_ok());
    assert!(
        start.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn every_executable_opcode_assembles() {
    use crate::sm4::opcodes::{ALL_OPCODES, Control, Layout};
    let mut n = 0;
    for &op in ALL_OPCODES {
        let info = op.info();
        let mut name = info.name.to_string();
        let operands = match info.layout {
            Layout::Fixed { dsts, srcs } => (0..dsts as usize + srcs as usize)
                .map(|i| if i < dsts as usize { "r0.x" } else { "r1.x" })
                .collect::<Vec<_>>()
                .join(", "),
            Layout::InterfaceCall => "fp0[0][1]".to_string(),
            _ => continue,
        };
        match info.control {
            Control::Test => name.push_str("_nz"),
            Control::Sync => name.push_str("_g_t"),
            _ => {}
        }
        let line = if operands.is_empty() {
            name
        } else {
            format!("{name} {operands}")
        };
        let text = format!("cs_5_0\n{line}\n");
        round_trip(&text);
        assert_eq!(assemble_program(&text).unwrap().instructions[0].opcode, op);
        n += 1;
    }
    assert!(n > 180, "{n} executable opcodes");
}

#[test]
fn every_declaration_assembles() {
    use crate::sm4::opcodes::{ALL_OPCODES, Layout};
    use std::collections::HashSet;
    let lines = [
        ("ps_5_0", "dcl_resource_buffer (sint,sint,sint,sint) t3"),
        (
            "ps_5_1",
            "dcl_resource_texture2dmsarray(8) (uint,uint,uint,uint) T0[1:2], space=3",
        ),
        ("ps_5_0", "dcl_constantbuffer cb1[4096], dynamicIndexed"),
        ("ps_5_0", "dcl_sampler s2, mode_comparison"),
        ("hs_5_0", "dcl_indexrange vpc0.xyzw 4"),
        ("gs_4_0", "dcl_outputtopology linestrip_adj"),
        ("gs_4_0", "dcl_inputprimitive patch32"),
        ("gs_4_0", "dcl_maxout 1024"),
        ("vs_4_0", "dcl_input v0.xyz"),
        ("vs_4_0", "dcl_input_sgv v1.x, vertex_id"),
        ("gs_4_0", "dcl_input_siv v[3][1].x, primitive_id"),
        ("ps_4_0", "dcl_input_ps constant v2.xy"),
        ("ps_4_1", "dcl_input_ps_sgv v1.x, sampleIndex"),
        (
            "ps_4_0",
            "dcl_input_ps_siv linear noperspective sample v0.xyzw, position",
        ),
        ("ps_4_0", "dcl_output oDepth"),
        ("vs_4_0", "dcl_output_sgv o3.x, instance_id"),
        ("vs_4_0", "dcl_output_siv o0.xyzw, position"),
        ("ps_4_0", "dcl_temps 4096"),
        ("ps_5_0", "dcl_indexableTemp x7[1024], 2"),
        (
            "ps_5_0",
            "dcl_globalFlags forceEarlyDepthStencil | allResourcesBound",
        ),
        ("gs_5_0", "dcl_stream m3"),
        ("ps_5_0", "dcl_function_body fb12"),
        ("ps_5_0", "dcl_function_table ft3 = {}"),
        ("ps_5_0", "dcl_interface fp2[3][4] = {ft0, ft1, ft2}"),
        ("hs_5_0", "dcl_input_control_point_count 32"),
        ("hs_5_0", "dcl_output_control_point_count 1"),
        ("hs_5_0", "dcl_tessellator_domain domain_isoline"),
        ("hs_5_0", "dcl_tessellator_partitioning partitioning_pow2"),
        ("hs_5_0", "dcl_tessellator_output_primitive output_line"),
        ("hs_5_0", "dcl_hs_max_tessfactor l(15.5)"),
        ("hs_5_0", "dcl_hs_fork_phase_instance_count 4"),
        ("hs_5_0", "dcl_hs_join_phase_instance_count 2"),
        ("cs_5_0", "dcl_thread_group 1024, 1, 64"),
        (
            "cs_5_1",
            "dcl_uav_typed_texture3d_glc_rov (unorm,unorm,unorm,unorm) U1[0:*], space=0",
        ),
        ("cs_5_0", "dcl_uav_raw_glc u7"),
        ("cs_5_0", "dcl_uav_structured_opc u1, 4"),
        ("cs_5_0", "dcl_tgsm_raw g3, 32768"),
        ("cs_5_0", "dcl_tgsm_structured g0, 12, 100"),
        ("cs_5_1", "dcl_resource_raw T4[0:0], space=9"),
        ("cs_5_0", "dcl_resource_structured t9, 128"),
        ("gs_5_0", "dcl_gsinstances 32"),
    ];
    let mut seen = HashSet::new();
    for (version, line) in lines {
        let text = format!("{version}\n{line}\n");
        round_trip(&text);
        seen.insert(assemble_program(&text).unwrap().instructions[0].opcode);
    }
    for &op in ALL_OPCODES {
        if let Layout::Decl(_) = op.info().layout {
            assert!(seen.contains(&op), "no test line for {}", op.name());
        }
    }
    // Custom data of every class.
    for class in [
        "comment",
        "debuginfo",
        "opaque",
        "shadermessage",
        "clipplaneconstantmappings",
    ] {
        round_trip(&format!(
            "ps_5_0\ndcl_customdata {class} {{ 0x00000001 }}\n"
        ));
    }
    round_trip("ps_5_0\ndcl_immediateConstantBuffer { }\n");
}
