//! A write to all four components of an indexable-temp row becomes one vector store (lowering
//! stores the row whole; the simplifier merges a row written by several instructions); a
//! masked write stays per component.

use spirv::{Op, StorageClass};

use super::query::insts;

/// `ps_4_0` writing `x0[r0.x]` with `mask`, then reading the row back into `o0`.
fn program(mask: &str) -> String {
    program_writing(&format!("mov x0[r0.x + 0].{mask}, l(1, 2, 3, 4)"))
}

/// `ps_4_0` running `write` after setting `x0[0]` and `r0.x`, then reading `x0[r0.x]` into `o0`.
fn program_writing(write: &str) -> String {
    format!(
        "ps_4_0\n.input SV_Position 0 v0 float POS\n.output SV_Target 0 o0 uint\n\
         dcl_input_ps_siv linear noperspective v0.xy, position\ndcl_output o0.xyzw\n\
         dcl_temps 2\ndcl_indexableTemp x0[4], 4\nftou r0.x, v0.x\n\
         mov x0[0].xyzw, l(5, 6, 7, 8)\n{write}\n\
         mov o0.xyzw, x0[r0.x + 0].xyzw\nret\n"
    )
}

/// Stores through Function-storage pointers, as (to a whole vector, to one scalar) counts.
fn function_stores(text: &str) -> (usize, usize) {
    let dxbc = crate::asm::assemble(text).unwrap();
    let t = crate::translate(&dxbc, &crate::Options::default()).unwrap();
    let all = insts(&t.spirv);
    let def = |id: u32| {
        all.iter()
            .find(|(op, w)| *op != Op::Store && w.get(1) == Some(&id))
    };
    let (mut vector, mut scalar) = (0, 0);
    for (_, w) in all.iter().filter(|(op, _)| *op == Op::Store) {
        let (_, chain) = def(w[0]).expect("the stored-to pointer is defined");
        let (_, ptr_ty) = all
            .iter()
            .find(|(op, p)| *op == Op::TypePointer && p[0] == chain[0])
            .expect("a pointer type");
        if ptr_ty[1] != StorageClass::Function as u32 {
            continue;
        }
        match all.iter().find(|(_, p)| p.first() == Some(&ptr_ty[2])) {
            Some((Op::TypeVector, _)) => vector += 1,
            _ => scalar += 1,
        }
    }
    (vector, scalar)
}

#[test]
fn whole_row_writes_are_one_vector_store() {
    // x0[0] (constant index) and x0[r0.x] (dynamic): one vector store each.
    assert_eq!(function_stores(&program("xyzw")), (2, 0));
}

#[test]
fn masked_row_writes_stay_per_component() {
    assert_eq!(function_stores(&program("xy")), (1, 2));
    assert_eq!(function_stores(&program("xyz")), (1, 3));
}

#[test]
fn a_computed_vector_is_one_vector_store() {
    // A float product stored whole: one store of its bits, not four of its components.
    let text = program_writing(
        "mul r1.xyzw, v0.xyxy, l(2.0, 3.0, 4.0, 5.0)\nmov x0[r0.x + 0].xyzw, r1.xyzw",
    );
    assert_eq!(function_stores(&text), (2, 0));
}

#[test]
fn a_row_written_by_several_instructions_is_merged() {
    let text = program_writing("mov x0[1].xy, l(1, 2, 0, 0)\nmov x0[1].zw, l(0, 0, 3, 4)");
    assert_eq!(function_stores(&text), (2, 0));
}
