//! Unit tests of the rules: per rule, a small assembled program that breaks it is rejected with
//! the rule named, and the same program made legal passes (so that each test can fail).

use super::{Rule, check};
use crate::container::Container;
use crate::container::signature::Signature;
use crate::lower::Signatures;

/// The rule `text` breaks, if any.
fn broken(text: &str) -> Option<Rule> {
    broken_after(text, |_| {})
}

/// The rule `text` breaks once `edit` has changed the decoded program (for operands the
/// assembler does not write), if any.
fn broken_after(text: &str, edit: impl FnOnce(&mut crate::sm4::Program)) -> Option<Rule> {
    let dxbc = crate::asm::assemble(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let c = Container::parse(&dxbc).unwrap();
    let chunk = c.shader_chunk().unwrap();
    let mut prog = crate::sm4::decode(chunk.data, chunk.offset).unwrap();
    edit(&mut prog);
    let sig = |tags: &[&[u8; 4]]| c.chunk_any(tags).map(|ch| Signature::parse(ch).unwrap());
    let input = sig(&[b"ISG1", b"ISGN"]);
    let output = sig(&[b"OSG1", b"OSG5", b"OSGN"]);
    let patch = sig(&[b"PSG1", b"PCSG"]);
    let sigs = Signatures {
        input: input.as_ref(),
        output: output.as_ref(),
        patch: patch.as_ref(),
    };
    check(&prog, sigs).err().map(|v| v.rule)
}

/// `bad` breaks `rule`, `good` breaks none.
fn pair(rule: Rule, bad: &str, good: &str) {
    assert_eq!(broken(bad), Some(rule), "{bad}");
    assert_eq!(broken(good), None, "{good}");
}

const GS: &str = "gs_4_0\ndcl_inputprimitive point\ndcl_outputtopology pointlist\ndcl_maxout 1\n";
const HS: &str = "hs_5_0\nhs_decls\ndcl_input_control_point_count 3\n\
    dcl_output_control_point_count 3\ndcl_tessellator_domain domain_tri\n\
    dcl_tessellator_partitioning partitioning_integer\n\
    dcl_tessellator_output_primitive output_triangle_cw\n";

#[test]
fn decl_register_file() {
    pair(
        Rule::DeclRegisterFile,
        "vs_4_0\ndcl_input o0.xyzw\nret\n",
        "vs_4_0\ndcl_input v0.xyzw\nret\n",
    );
    pair(
        Rule::DeclRegisterFile,
        "ps_4_0\ndcl_output v0.xyzw\nret\n",
        "ps_4_0\ndcl_output o0.xyzw\nret\n",
    );
}

#[test]
fn register_file_in_stage() {
    pair(
        Rule::RegisterFileInStage,
        "vs_5_0\ndcl_output oDepth\nret\n",
        "ps_5_0\ndcl_output oDepth\nret\n",
    );
    pair(
        Rule::RegisterFileInStage,
        "ps_5_0\ndcl_tgsm_raw g0, 16\nret\n",
        "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_tgsm_raw g0, 16\nret\n",
    );
    pair(
        Rule::RegisterFileInStage,
        "ds_5_0\ndcl_tessellator_domain domain_tri\ndcl_output o0.xyzw\n\
         mov o0.xyzw, v0.xyzw\nret\n",
        "ds_5_0\ndcl_tessellator_domain domain_tri\ndcl_input_control_point_count 3\n\
         dcl_input vicp[3][0].xyzw\ndcl_output o0.xyzw\nmov o0.xyzw, vicp[0][0].xyzw\nret\n",
    );
    // v# belongs to the control point phase of a hull shader.
    pair(
        Rule::RegisterFileInStage,
        &format!(
            "{HS}hs_fork_phase\ndcl_output_siv o0.x, finalTriUeq0EdgeTessFactor\n\
             mov o0.x, v0.x\nret\n"
        ),
        &format!(
            "{HS}hs_fork_phase\ndcl_input vicp[3][0].xyzw\n\
             dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor\nmov o0.x, vicp[0][0].x\nret\n"
        ),
    );
}

#[test]
fn system_value_in_stage() {
    // Pixel shaders have no dcl_output_siv (D3D11.3 §22.3.32): Position and the layer index as
    // pixel shader outputs (the classes the mutation sweep found).
    pair(
        Rule::SystemValueInStage,
        "ps_4_0\ndcl_output_siv o0.xyzw, position\nret\n",
        "vs_4_0\ndcl_output_siv o0.xyzw, position\nret\n",
    );
    pair(
        Rule::SystemValueInStage,
        "ps_4_0\ndcl_output_siv o0.x, rendertarget_array_index\nret\n",
        "gs_4_0\ndcl_inputprimitive point\ndcl_outputtopology pointlist\ndcl_maxout 1\n\
         dcl_output_siv o0.x, rendertarget_array_index\nret\n",
    );
    // System-generated values only where §23 says they are received: vertex_id by vertex
    // shaders, is_front_face by pixel shaders; primitive_id is output by geometry shaders only.
    pair(
        Rule::SystemValueInStage,
        "ps_4_0\ndcl_input_ps_sgv v0.x, vertex_id\nret\n",
        "vs_4_0\ndcl_input_sgv v0.x, vertex_id\nret\n",
    );
    pair(
        Rule::SystemValueInStage,
        "vs_4_0\ndcl_output_sgv o0.x, primitive_id\nret\n",
        "gs_4_0\ndcl_inputprimitive point\ndcl_outputtopology pointlist\ndcl_maxout 1\n\
         dcl_output_sgv o0.x, primitive_id\nret\n",
    );
    // System-interpreted values where nothing interprets them are data passed along unnamed
    // (§24.1–24.5): Position as a vertex shader input (found by the mutation sweep), the
    // render target array index read by a hull shader (found by the fuzz target).
    assert_eq!(
        broken("vs_4_0\ndcl_input_siv v0.xyzw, position\nret\n"),
        None
    );
    assert_eq!(
        broken(&format!(
            "{HS}hs_control_point_phase\ndcl_input_siv v[3][0].x, rendertarget_array_index\nret\n"
        )),
        None
    );
}

/// The relaxed system values translate, as plain data, into modules spirv-val accepts (the
/// builtins they name exist only where D3D interprets them).
#[test]
fn uninterpreted_system_values_translate_as_data() {
    for text in [
        "vs_4_0\ndcl_input_siv v0.xyzw, position\ndcl_output_siv o0.xyzw, position\n\
         mov o0.xyzw, v0.xyzw\nret\n",
        "vs_4_0\ndcl_input_siv v0.x, clip_distance\ndcl_output_siv o0.xyzw, position\n\
         mov o0.xyzw, v0.xxxx\nret\n",
        &format!(
            "{HS}hs_control_point_phase\ndcl_input_siv v[3][0].x, rendertarget_array_index\n\
             dcl_output o0.x\nmov o0.x, v[0][0].x\nret\n"
        ),
        "gs_4_0\ndcl_inputprimitive point\ndcl_outputtopology pointlist\ndcl_maxout 1\n\
         dcl_input_siv v[1][0].x, viewport_array_index\ndcl_output_siv o0.xyzw, position\n\
         mov o0.xyzw, v[0][0].xxxx\nemit\nret\n",
    ] {
        let dxbc = crate::asm::assemble(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let t = crate::translate(&dxbc, &crate::Options::default())
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        crate::pipeline_tests::validate(&t.spirv);
    }
}

#[test]
fn signature_system_value() {
    pair(
        Rule::SignatureSystemValue,
        "ps_4_0\n.output SV_Position 0 o0 float POS\nret\n",
        "vs_4_0\n.output SV_Position 0 o0 float POS\nret\n",
    );
}

#[test]
fn signature_overlap() {
    pair(
        Rule::SignatureOverlap,
        "vs_4_0\n.output A 0 o0.xy float\n.output B 0 o0.yz float\nret\n",
        "vs_4_0\n.output A 0 o0.xy float\n.output B 0 o0.zw float\nret\n",
    );
}

#[test]
fn signature_component_type() {
    pair(
        Rule::SignatureComponentType,
        "vs_4_0\n.output A 0 o0.x 65535\nret\n",
        "vs_4_0\n.output A 0 o0.x uint\nret\n",
    );
}

/// Found by the `translate` fuzz target: one register holding float, uint, float components
/// would give the float variable a span over the uint one (two outputs on one location and
/// component). Lowering refuses it rather than emit that.
#[test]
fn interleaved_component_types_are_refused() {
    let text = |z: &str| {
        format!(
            "vs_4_0\n.output A 0 o1.x float\n.output B 0 o1.y uint\n.output C 0 o1.z {z}\n\
             dcl_output o1.xyz\nmov o1.xyz, l(0, 0, 0, 0)\nret\n"
        )
    };
    let translate = |t: &str| {
        crate::translate(
            &crate::asm::assemble(t).unwrap(),
            &crate::Options::default(),
        )
    };
    match translate(&text("float")) {
        Err(crate::Error::Lower(crate::LowerError::Unsupported { what, .. })) => {
            assert!(what.contains("interleaved"), "{what}")
        }
        other => panic!("expected an unsupported error, got {other:?}"),
    }
    translate(&text("uint")).unwrap();
}

#[test]
fn signature_stream() {
    pair(
        Rule::SignatureStream,
        "vs_5_0\n.output A 0 o0 float stream=1\nret\n",
        &format!(
            "{}.output A 0 o0 float stream=1\nret\n",
            GS.replace("gs_4_0", "gs_5_0")
        ),
    );
}

#[test]
fn decl_overlap() {
    pair(
        Rule::DeclOverlap,
        "vs_4_0\ndcl_output o0.xy\ndcl_output o0.yz\nret\n",
        "vs_4_0\ndcl_output o0.xy\ndcl_output o0.zw\nret\n",
    );
}

#[test]
fn thread_group_size() {
    pair(
        Rule::ThreadGroupSize,
        "cs_5_0\nret\n",
        "cs_5_0\ndcl_thread_group 64, 1, 1\nret\n",
    );
    pair(
        Rule::ThreadGroupSize,
        "cs_5_0\ndcl_thread_group 2048, 1, 1\nret\n",
        "cs_5_0\ndcl_thread_group 1024, 1, 1\nret\n",
    );
    assert_eq!(
        broken("cs_5_0\ndcl_thread_group 32, 32, 2\nret\n"),
        Some(Rule::ThreadGroupSize)
    );
}

#[test]
fn stage_declaration() {
    pair(
        Rule::StageDeclaration,
        "ps_5_0\ndcl_thread_group 1, 1, 1\nret\n",
        "cs_5_0\ndcl_thread_group 1, 1, 1\nret\n",
    );
    pair(
        Rule::StageDeclaration,
        "gs_4_0\ndcl_outputtopology pointlist\ndcl_maxout 1\nret\n",
        &format!("{GS}ret\n"),
    );
    pair(
        Rule::StageDeclaration,
        "gs_4_0\ndcl_inputprimitive point\ndcl_outputtopology pointlist\nret\n",
        &format!("{GS}ret\n"),
    );
    pair(
        Rule::StageDeclaration,
        "ds_5_0\nret\n",
        "ds_5_0\ndcl_tessellator_domain domain_tri\nret\n",
    );
    pair(
        Rule::StageDeclaration,
        &HS.replace("dcl_tessellator_domain domain_tri\n", ""),
        HS,
    );
}

/// A geometry shader without `dcl_outputtopology` is what fxc makes of a shader without a
/// stream object: D3D12 creates it (vkd3d-proton's root-signature tests), so it translates —
/// unless it declares streams (§13.5.2 wants a topology per stream) or emits a vertex (§13.3:
/// the vertices take the declared topology).
#[test]
fn geometry_shader_without_topology() {
    let gs = |body: &str| {
        format!(
            "gs_5_1\ndcl_uav_raw u0[0:0], space=0\ndcl_inputprimitive point\ndcl_maxout 1\n{body}\
             atomic_iadd U0[0], l(0), l(1)\nret\n"
        )
    };
    let legal = gs("");
    assert_eq!(broken(&legal), None);
    let dxbc = crate::asm::assemble(&legal).unwrap();
    let t = crate::translate(&dxbc, &crate::Options::default()).unwrap();
    crate::pipeline_tests::validate(&t.spirv);
    assert_eq!(broken(&gs("dcl_stream m0\n")), Some(Rule::StageDeclaration));
    assert_eq!(
        broken(
            "gs_4_0\ndcl_inputprimitive point\ndcl_maxout 1\ndcl_output_siv o0.xyzw, position\n\
             mov o0.xyzw, l(0, 0, 0, 1)\nemit\nret\n"
        ),
        Some(Rule::StageDeclaration)
    );
}

#[test]
fn depth_output() {
    pair(
        Rule::DepthOutput,
        "ps_5_0\ndcl_output oDepthLE\nmov oDepthGE, l(1.0)\nret\n",
        "ps_5_0\ndcl_output oDepthGE\nmov oDepthGE, l(1.0)\nret\n",
    );
    pair(
        Rule::DepthOutput,
        "ps_5_0\ndcl_output oDepthLE\ndcl_output oDepth\nret\n",
        "ps_5_0\ndcl_output oDepth\nret\n",
    );
}

#[test]
fn destination_mask() {
    // A store's UAV destination writes its masked components (§22.4.11: x, xy, xyz, xyzw).
    pair(
        Rule::DestinationMask,
        "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_uav_raw u0\n\
         store_raw u0 {mask}, l(0), l(1, 2, 3, 4)\nret\n",
        "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_uav_raw u0\n\
         store_raw u0.x, l(0), l(1, 2, 3, 4)\nret\n",
    );
    pair(
        Rule::DestinationMask,
        "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_uav_structured u0, 16\n\
         store_structured u0 {mask}, l(0), l(0), l(1, 2, 3, 4)\nret\n",
        "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_uav_structured u0, 16\n\
         store_structured u0.xy, l(0), l(0), l(1, 2, 3, 4)\nret\n",
    );
}

/// An empty write mask on a register destination writes nothing (no D3D text refuses it):
/// the destination becomes `null`, and the instruction's other effects stay.
#[test]
fn empty_register_write_masks_translate() {
    for text in [
        "ps_5_0\ndcl_temps 1\nibfe r0 {mask}, r0.xxxx, r0.yyyy, r0.zzzz\nret\n",
        "ps_5_0\ndcl_output o0.xyzw\nmov o0 {mask}, l(1, 2, 3, 4)\nmov o0.xyzw, l(1, 2, 3, 4)\nret\n",
        "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_uav_raw u0\ndcl_temps 1\n\
         imm_atomic_iadd r0 {mask}, u0, l(0), l(1)\nret\n",
        // An atomic's memory destination selects no components: no rule for its mask.
        "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_uav_raw u0\n\
         atomic_iadd u0 {mask}, l(0), l(1)\nret\n",
    ] {
        assert_eq!(broken(text), None, "{text}");
        let dxbc = crate::asm::assemble(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let t = crate::translate(&dxbc, &crate::Options::default())
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        crate::pipeline_tests::validate(&t.spirv);
    }
}

#[test]
fn temp_range() {
    pair(
        Rule::TempRange,
        "ps_4_0\ndcl_temps 1\nmov r1.x, l(1.0)\nret\n",
        "ps_4_0\ndcl_temps 2\nmov r1.x, l(1.0)\nret\n",
    );
    pair(
        Rule::TempRange,
        "ps_4_0\ndcl_indexableTemp x0[4], 4\nmov x0[4].x, l(1.0)\nret\n",
        "ps_4_0\ndcl_indexableTemp x0[4], 4\nmov x0[3].x, l(1.0)\nret\n",
    );
    assert_eq!(
        broken("ps_4_0\nmov x1[0].x, l(1.0)\nret\n"),
        Some(Rule::TempRange)
    );
    // In relative indices too.
    assert_eq!(
        broken(
            "ps_4_0\ndcl_constantbuffer cb0[4], dynamicIndexed\ndcl_temps 1\n\
                mov r0.x, cb0[r3.x + 0].x\nret\n"
        ),
        Some(Rule::TempRange)
    );
}

#[test]
fn index_dimension() {
    pair(
        Rule::IndexDimension,
        &format!("{GS}dcl_temps 1\nmov r0.x, v0.x\nret\n"),
        &format!("{GS}dcl_temps 1\nmov r0.x, v[0][0].x\nret\n"),
    );
}

#[test]
fn index_range() {
    pair(
        Rule::IndexRange,
        &format!("{GS}dcl_temps 1\nmov r0.x, v[1][0].x\nret\n"),
        &format!("{GS}dcl_temps 1\nmov r0.x, v[0][0].x\nret\n"),
    );
    pair(
        Rule::IndexRange,
        "ds_5_0\ndcl_input_control_point_count 3\ndcl_tessellator_domain domain_tri\n\
         dcl_input vicp[3][0].xyzw\ndcl_output o0.xyzw\nmov o0.xyzw, vicp[3][0].xyzw\nret\n",
        "ds_5_0\ndcl_input_control_point_count 3\ndcl_tessellator_domain domain_tri\n\
         dcl_input vicp[3][0].xyzw\ndcl_output o0.xyzw\nmov o0.xyzw, vicp[2][0].xyzw\nret\n",
    );
}

/// A register index of a 64-bit representation above 2^32 - 1 breaks the rule whatever the
/// register file; one that fits does not.
#[test]
fn wide_index_range() {
    use crate::sm4::{Index, IndexRepr, Operand, OperandType as T};
    let text = "ps_4_0\ndcl_constantbuffer cb0[4], immediateIndexed\ndcl_temps 1\n\
        mov r0.x, cb0[1].x\nret\n";
    // The last operand of file `ty` gets `indices` (64-bit immediates).
    let with = |ty: T, indices: &[u64]| {
        broken_after(text, |prog| {
            let op = prog.operands.iter_mut().rev().find(|o| o.ty == ty).unwrap();
            let mut new = Operand::new(ty, op.components);
            for &value in indices {
                assert!(new.push_index(Index {
                    repr: IndexRepr::Imm64,
                    value,
                    relative: None,
                }));
            }
            *op = new;
        })
    };
    assert_eq!(broken(text), None);
    assert_eq!(with(T::ConstantBuffer, &[0, 1]), None);
    assert_eq!(
        with(T::ConstantBuffer, &[0, 1 << 32]),
        Some(Rule::IndexRange)
    );
    assert_eq!(
        with(T::ConstantBuffer, &[1 << 32, 1]),
        Some(Rule::IndexRange)
    );
    assert_eq!(with(T::Temp, &[0]), None);
    assert_eq!(with(T::Temp, &[1 << 32]), Some(Rule::IndexRange));
    assert_eq!(with(T::Temp, &[1]), Some(Rule::TempRange));
}

#[test]
fn resource_kind() {
    let ps = "ps_4_0\ndcl_sampler s0, mode_default\ndcl_output o0.xyzw\n";
    pair(
        Rule::ResourceKind,
        &format!(
            "{ps}dcl_resource_raw t0\nsample_l o0.xyzw, l(0.5, 0.5, 0, 0), t0.xyzw, s0, l(0)\nret\n"
        ),
        &format!(
            "{ps}dcl_resource_texture2d (float,float,float,float) t0\n\
                  sample_l o0.xyzw, l(0.5, 0.5, 0, 0), t0.xyzw, s0, l(0)\nret\n"
        ),
    );
    pair(
        Rule::ResourceKind,
        "ps_5_0\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_output o0.xyzw\n\
         ld_raw o0.xyzw, l(0), t0.xyzw\nret\n",
        "ps_5_0\ndcl_resource_raw t0\ndcl_output o0.xyzw\nld_raw o0.xyzw, l(0), t0.xyzw\nret\n",
    );
    pair(
        Rule::ResourceKind,
        "ps_4_1\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_output o0.xyzw\n\
         ldms o0.xyzw, l(0, 0, 0, 0), t0.xyzw, l(0)\nret\n",
        "ps_4_1\ndcl_resource_texture2dms(4) (float,float,float,float) t0\ndcl_output o0.xyzw\n\
         ldms o0.xyzw, l(0, 0, 0, 0), t0.xyzw, l(0)\nret\n",
    );
}

#[test]
fn resource_register_file() {
    // `ld` reads a shader resource view, not a UAV (`ld_uav_typed`).
    pair(
        Rule::ResourceKind,
        "ps_5_0\ndcl_uav_typed_texture2d (uint,uint,uint,uint) u1\ndcl_output o0.xyzw\n\
         ld o0.xyzw, l(0, 0, 0, 0), u1.xyzw\nret\n",
        "ps_5_0\ndcl_uav_typed_texture2d (uint,uint,uint,uint) u1\ndcl_output o0.xyzw\n\
         ld_uav_typed o0.xyzw, l(0, 0, 0, 0), u1.xyzw\nret\n",
    );
}

#[test]
fn stream_index() {
    let gs5 = GS.replace("gs_4_0", "gs_5_0");
    pair(
        Rule::StreamIndex,
        &format!("{gs5}dcl_stream m0\nemit_stream m4\nret\n"),
        &format!("{gs5}dcl_stream m0\nemit_stream m0\nret\n"),
    );
}

#[test]
fn declaration_order() {
    pair(
        Rule::DeclarationOrder,
        "cs_5_0\nnop\ndcl_thread_group 1, 1, 1\nret\n",
        "cs_5_0\ndcl_thread_group 1, 1, 1\nnop\nret\n",
    );
}

#[test]
fn translate_names_the_rule_and_offset() {
    let dxbc = crate::asm::assemble("ps_4_0\ndcl_output_siv o0.xyzw, position\nret\n").unwrap();
    let e = crate::translate(&dxbc, &crate::Options::default()).unwrap_err();
    // As data: the rule, the declaration's opcode and its offset.
    match &e {
        crate::Error::Lower(crate::LowerError::Invalid {
            rule,
            opcode,
            offset,
            ..
        }) => {
            assert_eq!(*rule, Some(Rule::SystemValueInStage.name()));
            assert_eq!(*opcode, Some("dcl_output_siv"));
            assert!(*offset > 0, "{offset}");
        }
        other => panic!("expected an invalid-program error, got {other:?}"),
    }
    // And in the message.
    let text = e.to_string();
    assert!(text.contains("rule system-value-in-stage"), "{text}");
    assert!(text.contains("at byte offset 0x"), "{text}");
}

/// `docs/rules.md` lists exactly the rules of the code, with what each refuses and its source
/// (`rules::doc::markdown`). `RULES_DOC=write cargo test -p translator rules_doc` rewrites the
/// generated part after a change to the table.
#[test]
fn rules_doc_matches_the_table() {
    use super::doc::{BEGIN, END, markdown};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/rules.md");
    let text = std::fs::read_to_string(&path).expect("docs/rules.md");
    let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
        panic!("docs/rules.md lacks the generated-part markers");
    };
    let start = b + BEGIN.len() + 1;
    let want = markdown();
    if text[start..e] != want {
        if std::env::var("RULES_DOC").as_deref() == Ok("write") {
            let new = format!("{}{}{}", &text[..start], want, &text[e..]);
            std::fs::write(&path, new).unwrap();
            return;
        }
        panic!(
            "docs/rules.md is out of date with the rule table; rerun with RULES_DOC=write.\n\
             Expected:\n{want}"
        );
    }
    // Every rule's name appears once in the page, and every source names Direct3D text.
    for r in Rule::ALL {
        assert_eq!(want.matches(&format!("| `{}` |", r.name())).count(), 1);
        assert!(
            r.source().contains('§') || r.source().contains("d3dcommon"),
            "{r:?}"
        );
    }
    for r in super::d3d9::D3d9Rule::ALL {
        assert_eq!(want.matches(&format!("| `{}` |", r.name())).count(), 1);
    }
}

/// Every DXBC rule has a test here that breaks it (a `pair` or `broken` check naming it).
#[test]
fn every_rule_is_tested() {
    let text = include_str!("tests.rs");
    for r in Rule::ALL {
        assert!(
            text.contains(&format!("Rule::{r:?},")) || text.contains(&format!("Rule::{r:?})")),
            "no test names Rule::{r:?}"
        );
    }
}

/// The checker's kept record, emptied in place after programs that fill it, is what a new one
/// is: `Seen::reset` names every field and gives each its default (compared as text:
/// contents, not capacities).
#[test]
fn the_kept_record_emptied_in_place_is_a_new_one() {
    let programs = [
        // Resources, I/O masks, an indexable temp and a depth output.
        "ps_5_0\n.input TEXCOORD 0 v1 float\n.output SV_Target 0 o0 float\n\
         .output SV_Depth 0 oDepth float\n\
         dcl_resource_texture2d (float,float,float,float) t0\n\
         dcl_uav_typed_texture2d (float,float,float,float) u1\n\
         dcl_input_ps linear v1.xy\ndcl_output o0.xyzw\ndcl_output oDepth\ndcl_temps 1\n\
         dcl_indexableTemp x0[4], 4\nmov o0.xyzw, v1.xyxy\nmov oDepth, v1.x\nret\n",
        // A geometry shader: its input primitive, topology and vertex count.
        "gs_4_0\ndcl_inputprimitive point\ndcl_outputtopology pointlist\ndcl_maxout 1\n\
         emit\nret\n",
    ];
    let new = format!("{:?}", super::Seen::default());
    for text in programs {
        let dxbc = crate::asm::assemble(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let c = Container::parse(&dxbc).unwrap();
        let chunk = c.shader_chunk().unwrap();
        let prog = crate::sm4::decode(chunk.data, chunk.offset).unwrap();
        let sig = |tags: &[&[u8; 4]]| c.chunk_any(tags).map(|ch| Signature::parse(ch).unwrap());
        let (input, output) = (sig(&[b"ISG1", b"ISGN"]), sig(&[b"OSG1", b"OSG5", b"OSGN"]));
        let sigs = Signatures {
            input: input.as_ref(),
            output: output.as_ref(),
            patch: None,
        };
        let mut scratch = super::Scratch::default();
        super::check_with(&prog, sigs, &mut scratch).unwrap_or_else(|v| panic!("{v:?}\n{text}"));
        assert_ne!(
            format!("{:?}", scratch.0),
            new,
            "the program left no record:\n{text}"
        );
        scratch.0.reset();
        assert_eq!(format!("{:?}", scratch.0), new, "{text}");
    }
}
