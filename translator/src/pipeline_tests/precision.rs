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

/// The ids of the `OpTypeFloat`/`OpTypeInt` types of `width` bits.
fn types_of_width(words: &[u32], width: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let len = ((words[i] >> 16) as usize).max(1);
        let op = words[i] & 0xffff;
        if (op == spirv::Op::TypeFloat as u32 || op == spirv::Op::TypeInt as u32)
            && words[i + 2] == width
        {
            out.push(words[i + 1]);
        }
        i += len;
    }
    out
}

/// (opcode, result type) of every instruction with a result type.
fn typed_ops(words: &[u32]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut i = 5;
    let mut in_function = false;
    while i < words.len() {
        let len = ((words[i] >> 16) as usize).max(1);
        let op = words[i] & 0xffff;
        if op == spirv::Op::Function as u32 {
            in_function = true;
        }
        if in_function && len >= 3 && op != spirv::Op::Decorate as u32 {
            out.push((op, words[i + 1]));
        }
        i += len;
    }
    out
}

#[test]
fn native16_computes_min_precision_arithmetic_on_16_bit_types() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shaders/asm/min_precision.asm"
    ))
    .unwrap();
    let dxbc = crate::asm::assemble(&text).unwrap();
    let opts = crate::Options {
        min_precision: crate::MinPrecisionMode::Native16,
        ..Default::default()
    };
    let t = crate::translate(&dxbc, &opts).unwrap();
    let w = &t.spirv;
    let t16 = types_of_width(w, 16);
    assert_eq!(t16.len(), 2, "one 16-bit float and one 16-bit int type");
    let ops = typed_ops(w);
    let on16 = |op: spirv::Op| {
        ops.iter()
            .filter(|&&(o, ty)| o == op as u32 && t16.contains(&ty))
            .count()
    };
    // mul and add (min16f) and iadd (min16i) on 16 bits; the add takes the mul's 16-bit
    // result directly (one FConvert narrows v0.x, one v0.y, one the constant, one the ftoi
    // result is not: ftoi's conversion keeps 32 bits).
    assert_eq!(on16(spirv::Op::FMul), 1);
    assert_eq!(on16(spirv::Op::FAdd), 1);
    assert_eq!(on16(spirv::Op::IAdd), 1);
    assert_eq!(on16(spirv::Op::ConvertFToS), 0);
    // Narrowing: v0.x, v0.y, 0.5 (FConvert), ftoi's result and 3 (SConvert); widening: the
    // add's result (FConvert), the iadd's (SConvert: min16int is sign-extended).
    assert_eq!(on16(spirv::Op::FConvert), 3);
    assert_eq!(on16(spirv::Op::SConvert), 2);
    // The full-precision mul stays 32-bit, and nothing 16-bit is stored or loaded.
    assert!(
        ops.iter()
            .any(|&(o, ty)| o == spirv::Op::FMul as u32 && !t16.contains(&ty))
    );
    assert_eq!(on16(spirv::Op::Load), 0);
    let r = &t.reflection;
    assert!(r.capabilities.iter().any(|c| c == "Float16"));
    assert!(r.capabilities.iter().any(|c| c == "Int16"));
    assert!(r.vulkan_features.iter().any(|f| f == "shaderFloat16"));
    assert!(r.vulkan_features.iter().any(|f| f == "shaderInt16"));
    // The 16-bit arithmetic keeps its RelaxedPrecision.
    let relaxed = decorated(w, spirv::Decoration::RelaxedPrecision);
    assert!(relaxed.len() >= 3);
}

#[test]
fn native16_without_min_precision_changes_nothing() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shaders/asm/alu.asm"
    ))
    .unwrap();
    let dxbc = crate::asm::assemble(&text).unwrap();
    let plain = crate::translate(&dxbc, &crate::Options::default()).unwrap();
    let opts = crate::Options {
        min_precision: crate::MinPrecisionMode::Native16,
        ..Default::default()
    };
    let native = crate::translate(&dxbc, &opts).unwrap();
    assert_eq!(plain.spirv, native.spirv);
    assert_eq!(plain.reflection, native.reflection);
}

/// `(target type, fast-math constant value)` of each `OpExecutionModeId FPFastMathDefault`.
fn fast_math_defaults(words: &[u32]) -> Vec<(u32, u32)> {
    let mut constants = std::collections::HashMap::new();
    let mut modes = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let len = ((words[i] >> 16) as usize).max(1);
        let op = words[i] & 0xffff;
        if op == spirv::Op::Constant as u32 && len == 4 {
            constants.insert(words[i + 2], words[i + 3]);
        }
        if op == spirv::Op::ExecutionModeId as u32
            && words[i + 2] == spirv::ExecutionMode::FPFastMathDefault as u32
        {
            modes.push((words[i + 3], words[i + 4]));
        }
        i += len;
    }
    modes
        .into_iter()
        .map(|(ty, c)| (ty, constants[&c]))
        .collect()
}

/// `(id, mode)` of each `FPFastMathMode` decoration.
fn fast_math_modes(words: &[u32]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let len = ((words[i] >> 16) as usize).max(1);
        if words[i] & 0xffff == spirv::Op::Decorate as u32
            && words[i + 2] == spirv::Decoration::FPFastMathMode as u32
        {
            out.push((words[i + 1], words[i + 3]));
        }
        i += len;
    }
    out
}

fn translate_fc2(src: &str) -> crate::Translation {
    let dxbc = crate::asm::assemble(src).unwrap();
    let opts = crate::Options {
        float_controls2: true,
        ..Default::default()
    };
    crate::translate(&dxbc, &opts).unwrap()
}

const CONTRACT_REASSOC: u32 =
    spirv::FPFastMathMode::ALLOW_CONTRACT.bits() | spirv::FPFastMathMode::ALLOW_REASSOC.bits();

#[test]
fn float_controls2_precise_by_default_is_the_default_with_no_flags() {
    // No refactoringAllowed: every float operation is precise, which the default says.
    let t = translate_fc2(
        "ps_5_0\ndcl_input_ps linear v0.xy\ndcl_output o0.xyzw\ndcl_temps 1\n\
         mul r0.x, v0.x, v0.y\nadd r0.x, r0.x, v0.x\nmov o0.xyzw, r0.xxxx\nret\n",
    );
    let f32_types = types_of_width(&t.spirv, 32);
    let defaults = fast_math_defaults(&t.spirv);
    assert_eq!(defaults.len(), 1, "{defaults:?}");
    assert!(f32_types.contains(&defaults[0].0));
    assert_eq!(defaults[0].1, 0, "no fast-math flags");
    assert!(fast_math_modes(&t.spirv).is_empty());
    assert!(decorated(&t.spirv, spirv::Decoration::NoContraction).is_empty());
    for (list, want) in [
        (&t.reflection.extensions, "SPV_KHR_float_controls2"),
        (&t.reflection.capabilities, "FloatControls2"),
        (&t.reflection.vulkan_features, "shaderFloatControls2"),
    ] {
        assert!(list.iter().any(|x| x == want), "{want} in {list:?}");
    }
    // The default form of the same program: NoContraction on both operations instead.
    let dxbc = crate::asm::assemble(
        "ps_5_0\ndcl_input_ps linear v0.xy\ndcl_output o0.xyzw\ndcl_temps 1\n\
         mul r0.x, v0.x, v0.y\nadd r0.x, r0.x, v0.x\nmov o0.xyzw, r0.xxxx\nret\n",
    )
    .unwrap();
    let plain = crate::translate(&dxbc, &crate::Options::default()).unwrap();
    assert_eq!(
        decorated(&plain.spirv, spirv::Decoration::NoContraction).len(),
        2
    );
    assert!(fast_math_defaults(&plain.spirv).is_empty());
    assert!(
        !plain
            .reflection
            .extensions
            .iter()
            .any(|e| e == "SPV_KHR_float_controls2")
    );
}

#[test]
fn float_controls2_refactorable_programs_mark_their_precise_operations() {
    // refactoringAllowed: the default allows contraction and reassociation; the one precise
    // add gets no fast-math flags, the mul none of its own.
    let t = translate_fc2(
        "ps_5_0\ndcl_globalFlags refactoringAllowed\ndcl_input_ps linear v0.xy\n\
         dcl_output o0.xyzw\ndcl_temps 1\n\
         mul r0.x, v0.x, v0.y\nadd [precise] r0.x, r0.x, v0.x\nmov o0.xyzw, r0.xxxx\nret\n",
    );
    let defaults = fast_math_defaults(&t.spirv);
    assert_eq!(defaults.len(), 1, "{defaults:?}");
    assert_eq!(defaults[0].1, CONTRACT_REASSOC);
    let modes = fast_math_modes(&t.spirv);
    assert_eq!(modes.len(), 1, "{modes:?}");
    assert_eq!(op_of(&t.spirv, modes[0].0), Some(spirv::Op::FAdd as u32));
    assert_eq!(modes[0].1, 0, "the precise add has no fast-math flags");
    assert!(decorated(&t.spirv, spirv::Decoration::NoContraction).is_empty());
}

#[test]
fn float_controls2_d3d9_programs_may_be_refactored() {
    let bytes =
        crate::d3dbc::asm::assemble("ps_2_0\ndcl t0\ndcl v0\nmad r0, t0, v0, v0\nmov oC0, r0\n")
            .unwrap();
    let mut opts = crate::Options {
        float_controls2: true,
        ..Default::default()
    };
    opts.d3d9.state = crate::d3d9_state::StateOptions::none();
    let t = crate::translate(&bytes, &opts).unwrap();
    let defaults = fast_math_defaults(&t.spirv);
    assert_eq!(defaults.len(), 1, "{defaults:?}");
    assert_eq!(defaults[0].1, CONTRACT_REASSOC);
    assert!(fast_math_modes(&t.spirv).is_empty());
}
