//! Resource and rasterizer queries (`sampleinfo`, `samplepos`, ...) through the whole pipeline.

use spirv::{Decoration, Op};

use crate::reflect::{SpecConstant, SpecConstantMeaning};

/// Every instruction of a module as (opcode, operand words).
pub(super) fn insts(words: &[u32]) -> Vec<(Op, &[u32])> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let n = (words[i] >> 16) as usize;
        assert!(n > 0, "zero-length instruction at word {i}");
        if let Some(op) = Op::from_u32(words[i] & 0xffff) {
            out.push((op, &words[i + 1..i + n]));
        }
        i += n;
    }
    out
}

fn translate_asm(text: &str, spec_id: u32) -> crate::Translation {
    let dxbc = crate::asm::assemble(text).unwrap();
    let opts = crate::Options {
        rasterizer_sample_count_spec_id: spec_id,
        ..Default::default()
    };
    crate::translate(&dxbc, &opts).unwrap()
}

#[test]
fn rasterizer_sample_count_is_a_specialization_constant() {
    let t = translate_asm(
        "ps_5_0\n.output SV_Target 0 o0 uint\ndcl_output o0.xyzw\n\
         sampleinfo_uint o0.xyzw, rasterizer.xxxx\nret\n",
        7,
    );
    let insts = insts(&t.spirv);
    // One OpSpecConstant of default 1, decorated SpecId 7, written out unfolded.
    let specs: Vec<_> = insts
        .iter()
        .filter(|(op, _)| *op == Op::SpecConstant)
        .collect();
    assert_eq!(specs.len(), 1, "{insts:?}");
    let (_, w) = specs[0];
    assert_eq!(w[2], 1, "default sample count");
    let id = w[1];
    assert!(
        insts.iter().any(|(op, w)| *op == Op::Decorate
            && w[0] == id
            && w[1] == Decoration::SpecId as u32
            && w[2] == 7),
        "no SpecId 7 on %{id}"
    );
    assert_eq!(
        t.reflection.spec_constants,
        [SpecConstant {
            id: 7,
            meaning: SpecConstantMeaning::RasterizerSampleCount,
            default: 1,
        }]
    );
    // (count, 0, 0, 0) swizzled .xxxx is a splat of the constant: built from it, whether
    // as a spec-constant composite or in the function; never as a plain constant.
    assert!(
        insts
            .iter()
            .all(|(op, w)| *op != Op::ConstantComposite || !w[2..].contains(&id)),
        "a plain OpConstantComposite holds the specialization constant"
    );
}

#[test]
fn texture_sample_count_needs_no_specialization() {
    let t = translate_asm(
        "ps_5_0\n.output SV_Target 0 o0 float\n\
         dcl_resource_texture2dms(4) (float,float,float,float) t0\ndcl_output o0.xyzw\n\
         sampleinfo o0.xyzw, t0.xyzw\nret\n",
        0,
    );
    assert!(t.reflection.spec_constants.is_empty());
    assert!(
        !insts(&t.spirv)
            .iter()
            .any(|(op, _)| *op == Op::SpecConstant)
    );
}
