//! Minimum-precision operands: 32-bit arithmetic decorated `RelaxedPrecision`, only on the
//! instructions whose destination asks for it.

/// Result ids decorated with `decoration`.
fn decorated(words: &[u32], decoration: spirv::Decoration) -> Vec<u32> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let len = ((words[i] >> 16) as usize).max(1);
        if words[i] & 0xffff == spirv::Op::Decorate as u32 && words[i + 2] == decoration as u32 {
            out.push(words[i + 1]);
        }
        i += len;
    }
    out
}

/// The opcode of the instruction whose result is `id`.
fn op_of(words: &[u32], id: u32) -> Option<u32> {
    let mut i = 5;
    while i < words.len() {
        let len = ((words[i] >> 16) as usize).max(1);
        let op = words[i] & 0xffff;
        // Instructions with a result type: the result id is the second operand.
        if len >= 3 && words[i + 2] == id && op != spirv::Op::Decorate as u32 {
            return Some(op);
        }
        i += len;
    }
    None
}

#[test]
fn min_precision_arithmetic_is_relaxed_and_the_rest_is_not() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shaders/asm/min_precision.asm"
    ))
    .unwrap();
    let dxbc = crate::asm::assemble(&text).unwrap();
    let t = crate::translate(&dxbc, &crate::Options::default()).unwrap();
    let relaxed = decorated(&t.spirv, spirv::Decoration::RelaxedPrecision);
    let mut ops: Vec<u32> = relaxed
        .iter()
        .map(|&id| op_of(&t.spirv, id).expect("decorated id is a result"))
        .collect();
    ops.sort();
    // mul, add (min16f), ftoi, iadd (min16i); not the full-precision itof and mul.
    let mut want = vec![
        spirv::Op::FMul as u32,
        spirv::Op::FAdd as u32,
        spirv::Op::ConvertFToS as u32,
        spirv::Op::IAdd as u32,
    ];
    want.sort();
    assert_eq!(ops, want);
}
