//! Register copies in the SM4 lowering: a plain `mov` (no modifier, no saturation) from a temp
//! to a temp or an output copies the values the builder holds for the source components, as
//! they are, and a `mov` of a temp onto itself where every component stays in place does
//! nothing. These tests pin that such copies add no instruction to the lowered function (the
//! passes used to remove the vectors and bitcasts they made), and that copies of an input or
//! a constant keep their values' own type. What the copies compute is checked at run time by
//! `shaders/runtime/registers/register-copies.shader_test`.

use spirv::Op;

/// A pixel shader with `cb0[2]`, `SV_Position.xy` in `v0`, three temps and a float output.
const HEAD: &str = "ps_5_0\n.input SV_Position 0 v0 float POS\n.output SV_Target 0 o0 float\n\
    dcl_constantbuffer cb0[2], immediateIndexed\n\
    dcl_input_ps_siv linear noperspective v0.xy, position\ndcl_output o0.xyzw\ndcl_temps 3\n";

/// The entry function of `body` (after [`HEAD`], then `ret`) as lowered, before any pass; the
/// whole translation must pass spirv-val.
fn lowered(body: &str) -> crate::ir::Function {
    let text = format!("{HEAD}{body}\nret\n");
    let dxbc = crate::asm::assemble(&text).unwrap();
    let t = crate::translate(&dxbc, &crate::Options::default()).unwrap();
    super::validate(&t.spirv);
    crate::translate::lower_container(&dxbc, &crate::Options::default())
        .unwrap()
        .functions
        .remove(0)
}

/// The opcodes of the instructions placed in `f`'s blocks.
fn ops(f: &crate::ir::Function) -> Vec<Op> {
    f.blocks
        .iter()
        .flat_map(|b| b.insts.iter().map(|&v| f.inst(v).op))
        .collect()
}

/// The opcodes lowered for `compute` followed by `tail`.
fn ops_of(compute: &str, tail: &str) -> Vec<Op> {
    ops(&lowered(&format!("{compute}{tail}")))
}

#[test]
fn a_self_copy_adds_nothing() {
    let compute = "add r0.xyzw, cb0[0].xyzw, cb0[1].xyzw\n";
    let without = ops_of(compute, "mov o0.xyzw, r0.xyzw");
    let with = ops_of(
        compute,
        "mov r0.xyzw, r0.xyzw\nmov r0.xz, r0.xxzx\nmov o0.xyzw, r0.xyzw",
    );
    assert_eq!(with, without);
    // A swap is no self-copy: the lowered code differs (and spirv-val passes on it).
    let swapped = ops_of(compute, "mov r0.xy, r0.yxxx\nmov o0.xyzw, r0.xyzw");
    assert_ne!(swapped, without);
}

#[test]
fn copies_between_registers_add_nothing() {
    // Scalars computed one by one, copied through two temps with swizzles into the output,
    // lower to the same instructions as the output written from the first temp directly;
    // the same for a vector result whose components are copied around.
    let cases = [
        (
            "add r0.x, cb0[0].x, l(1.0)\nadd r0.y, cb0[0].y, l(2.0)\n",
            "mov o0.xyzw, r0.yxyx",
            "mov r1.xy, r0.yxxx\nmov r2.xyzw, r1.xyxy\nmov o0.xyzw, r2.xyzw",
        ),
        (
            "mul r0.xyzw, cb0[0].xyzw, cb0[1].xyzw\n",
            "mov o0.xyzw, r0.wzyx",
            "mov r1.xyzw, r0.wzyx\nmov r2.xyzw, r1.xyzw\nmov o0.xyzw, r2.xyzw",
        ),
    ];
    for (compute, direct, copied) in cases {
        assert_eq!(
            ops_of(compute, copied),
            ops_of(compute, direct),
            "{compute}"
        );
    }
}

#[test]
fn copies_of_inputs_and_constants_keep_their_type() {
    // The float input and the constants reach a float multiplication without a detour
    // through integer vectors: no bitcast anywhere in the lowered code.
    let f = lowered(
        "mov r0.xy, v0.xyxx\nmov r0.zw, l(0, 0, 1.0, 2.0)\nmov r1.xyzw, r0.xyzw\n\
         mul o0.xyzw, r1.xyzw, r1.xyzw",
    );
    let ops = ops(&f);
    assert!(!ops.contains(&Op::Bitcast), "{ops:?}");
    assert!(ops.contains(&Op::FMul), "{ops:?}");
}
