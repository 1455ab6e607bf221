//! Assembler unit tests: hand-checked encodings, syntax corners, and error positions.

use super::*;
use crate::sm4;

fn round_trip(text: &str) {
    let program = assemble_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(program.to_string(), text);
}

#[test]
fn simple_program_round_trips() {
    round_trip("ps_5_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(1.0, 0.5, 0.25, 1.0)\nret\n");
    let _ = sm4::encode;
}
