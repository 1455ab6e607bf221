//! Registers carried through a loop as vectors: a register that enters a loop holding one
//! vector in its components, in order (`mov r1.xyz, cb0[0].xyzx`), is read in the loop header
//! as one vector phi (`FnBuilder::read_vector_header`), whatever the body does to it, instead
//! of a phi per component with extracts before the loop and on every back edge. These tests
//! pin the phis the lowering makes; what such loops compute is checked at run time by
//! `shaders/runtime/registers/loop-vectors.shader_test`.

use spirv::Op;

/// A pixel shader with `cb0[2]`, `SV_Position.xy` in `v0`, four temps and a float output.
const HEAD: &str = "ps_5_0\n.input SV_Position 0 v0 float POS\n.output SV_Target 0 o0 float\n\
    dcl_constantbuffer cb0[2], immediateIndexed\n\
    dcl_input_ps_siv linear noperspective v0.xy, position\ndcl_output o0.xyzw\ndcl_temps 4\n";

/// The widths of the phis of `body` (after [`HEAD`], then `ret`) as lowered, before any pass,
/// in placement order; the whole translation must pass spirv-val.
fn phi_widths(body: &str) -> Vec<u8> {
    let text = format!("{HEAD}{body}\nret\n");
    let dxbc = crate::asm::assemble(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let t = crate::translate(&dxbc, &crate::Options::default()).unwrap();
    super::validate(&t.spirv);
    let m = crate::translate::lower_container(&dxbc, &crate::Options::default()).unwrap();
    let f = &m.functions[0];
    f.layout
        .iter()
        .flat_map(|&b| f.block(b).insts.iter())
        .filter(|&&v| f.inst(v).op == Op::Phi)
        .map(|&v| m.types.width(f.inst(v).ty))
        .collect()
}

/// A loop of `ftou(v0.x)` iterations (counter in `r3.x`) around `body`, then `tail`.
fn in_loop(before: &str, body: &str, tail: &str) -> String {
    format!(
        "ftou r3.y, v0.x\nmov r3.x, l(0)\n{before}loop\nuge r3.z, r3.x, r3.y\nbreakc_nz r3.z\n\
         {body}iadd r3.x, r3.x, l(1)\nendloop\n{tail}"
    )
}

#[test]
fn a_vector_changed_whole_in_a_loop_is_one_phi() {
    let widths = phi_widths(&in_loop(
        "mov r1.xyz, cb0[0].xyzx\n",
        "add r1.xyz, r1.xyzx, cb0[1].xyzx\n",
        "mov o0.xyz, r1.xyzx\nmov o0.w, l(1.0)\n",
    ));
    // The counter and the vector.
    assert_eq!(widths, [1, 3]);
}

#[test]
fn a_vector_changed_in_one_component_is_still_one_phi() {
    // The back edge builds the vector from the new component and the old ones.
    let widths = phi_widths(&in_loop(
        "mov r1.xyzw, cb0[0].xyzw\n",
        "add r1.y, r1.y, r1.x\n",
        "mov o0.xyzw, r1.xyzw\n",
    ));
    assert_eq!(widths, [1, 4]);
}

#[test]
fn a_vector_the_loop_leaves_alone_needs_no_phi() {
    let widths = phi_widths(&in_loop(
        "mov r1.xyzw, cb0[0].xyzw\nmov r2.x, l(0)\n",
        "add r2.x, r2.x, r1.y\n",
        "mov o0.xyz, r1.xyzx\nmov o0.w, r2.x\n",
    ));
    // The counter and the sum only.
    assert_eq!(widths, [1, 1]);
}

#[test]
fn components_that_enter_as_scalars_keep_a_phi_each() {
    // Written one by one before the loop: no vector to carry.
    let widths = phi_widths(&in_loop(
        "mov r1.x, cb0[0].x\nmov r1.y, cb0[1].y\n",
        "add r1.xy, r1.xyxx, cb0[1].xyxx\n",
        "mov o0.xy, r1.xyxx\nmov o0.zw, l(0, 0, 0, 1.0)\n",
    ));
    assert_eq!(widths, [1, 1, 1]);
}
