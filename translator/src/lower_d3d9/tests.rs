//! Tests of the D3D9 lowering on assembled programs: the IR and SPIR-V properties each D3D9
//! semantic decision implies (`docs/d3d9.md`).

use crate::d3dbc;
use crate::options::Options;

fn translate(src: &str) -> crate::Translation {
    translate_with(src, &Options::default())
}

fn translate_with(src: &str, opts: &Options) -> crate::Translation {
    let bytes = d3dbc::asm::assemble(src).unwrap();
    crate::translate(&bytes, opts).unwrap()
}

#[test]
fn vs_2_0_mov_translates() {
    let t = translate("vs_2_0\ndcl_position v0\nmov oPos, v0\n");
    assert_eq!(t.reflection.inputs.len(), 1);
    assert_eq!(t.reflection.outputs.len(), 1);
}
