//! Bounds on the structurizer's work, through the whole pipeline.

/// A pixel shader of `n` loops one after another, each counting to four.
pub(super) fn sequential_loops(n: usize) -> Vec<u8> {
    let mut text = String::from(
        "ps_5_0\n.input SV_Position 0 v0 float POS\n.output SV_Target 0 o0 float\n\
         dcl_input_ps_siv linear noperspective v0.xy, position\ndcl_output o0.xyzw\n\
         dcl_temps 3\nmov r0.xyzw, v0.xyxy\n",
    );
    for _ in 0..n {
        text.push_str(
            "mov r2.x, l(0)\nloop\nige r1.x, r2.x, l(4)\nbreakc_nz r1.x\n\
             add r0.x, r0.x, l(1.0)\niadd r2.x, r2.x, l(1)\nendloop\n",
        );
    }
    text.push_str("mov o0.xyzw, r0.xyzw\nret\n");
    crate::asm::assemble(&text).unwrap()
}

#[test]
fn loop_work_is_bounded() {
    let opts = crate::Options::default();
    // Well inside the bound: translates.
    assert!(crate::translate(&sequential_loops(200), &opts).is_ok());
    // 3000 loops in ~9000 blocks: over it, an error naming why instead of seconds of work.
    match crate::translate(&sequential_loops(3000), &opts) {
        Err(crate::Error::Pass(crate::passes::PassError::Unsupported {
            pass: "structurize",
            what,
        })) => assert!(what.contains("too large to structurize"), "{what}"),
        other => panic!("expected an unsupported error, got {other:?}"),
    }
}
