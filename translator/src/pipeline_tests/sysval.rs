//! System values that come from Vulkan extensions: the SPIR-V they produce and how their
//! Vulkan value is turned into D3D's.

/// Words of every instruction with opcode `op`, operands only.
fn insts(words: &[u32], op: spirv::Op) -> Vec<&[u32]> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let len = ((words[i] >> 16) as usize).max(1);
        if words[i] & 0xffff == op as u32 {
            out.push(&words[i + 1..(i + len).min(words.len())]);
        }
        i += len;
    }
    out
}

/// `SV_InnerCoverage`: D3D11.3 gives a uint, 1 where conservative rasterization found the
/// pixel fully covered, 0 otherwise. Vulkan's `FullyCoveredEXT` is a bool: the translation
/// selects 1 or 0 from it (not FrontFacing's ~0).
#[test]
fn inner_coverage_is_fully_covered_as_uint_one_or_zero() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shaders/asm/ps_inner_coverage.asm"
    ))
    .unwrap();
    let dxbc = crate::asm::assemble(&text).unwrap();
    let t = crate::translate(&dxbc, &crate::Options::default()).unwrap();
    let w = &t.spirv;
    assert!(
        insts(w, spirv::Op::Capability)
            .iter()
            .any(|o| o[0] == spirv::Capability::FragmentFullyCoveredEXT as u32)
    );
    assert!(
        t.reflection
            .extensions
            .iter()
            .any(|e| e == "SPV_EXT_fragment_fully_covered")
    );
    let builtin = insts(w, spirv::Op::Decorate)
        .into_iter()
        .find(|o| {
            o[1] == spirv::Decoration::BuiltIn as u32
                && o[2] == spirv::BuiltIn::FullyCoveredEXT as u32
        })
        .expect("a FullyCoveredEXT variable");
    let var = builtin[0];
    // The bool is loaded and selects between the uint constants 1 and 0.
    let loaded = insts(w, spirv::Op::Load)
        .into_iter()
        .find(|o| o[2] == var)
        .expect("a load of it")[1];
    let consts: std::collections::HashMap<u32, u32> = insts(w, spirv::Op::Constant)
        .into_iter()
        .map(|o| (o[1], o[2]))
        .collect();
    let select = insts(w, spirv::Op::Select)
        .into_iter()
        .find(|o| o[2] == loaded)
        .expect("a select on it");
    assert_eq!(consts.get(&select[3]), Some(&1));
    assert_eq!(consts.get(&select[4]), Some(&0));
}

/// Outside a pixel shader the register is an invalid program, at its declaration, with an
/// error naming it.
#[test]
fn inner_coverage_outside_pixel_shaders_is_refused() {
    let text = "cs_5_0\ndcl_input vInnerCoverage\ndcl_thread_group 1, 1, 1\nret\n";
    let dxbc = crate::asm::assemble(text).unwrap();
    let e = crate::translate(&dxbc, &crate::Options::default()).unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::Invalid, "{e}");
    assert_eq!(e.opcode(), Some("dcl_input"), "{e}");
    assert!(e.to_string().contains("vInnerCoverage"), "{e}");
}

/// Register-less outputs (`oDepth`, `oMask`) are in the reflection like every other signature
/// element, with their built-ins, so that a caller knows to attach a depth buffer. (Found by
/// `vk-runner diff`: the reflection had left `SV_Depth` out; docs/differential.md.)
#[test]
fn depth_and_coverage_outputs_are_reflected() {
    let dxbc = crate::asm::assemble(
        "ps_5_0\n\
         .input SV_Position 0 v0.xyzw float POS\n\
         .output SV_Target 0 o0.xyzw float\n\
         .output SV_Depth 0 oDepth float\n\
         .output SV_Coverage 0 oMask uint\n\
         dcl_input_ps_siv linear noperspective v0.xyzw, position\n\
         dcl_output o0.xyzw\n\
         dcl_output oDepth\n\
         dcl_output oMask\n\
         mov o0.xyzw, v0.xyzw\n\
         mov oDepth, v0.z\n\
         mov oMask, l(1)\n\
         ret\n",
    )
    .unwrap();
    let t = crate::translate(&dxbc, &crate::Options::default()).unwrap();
    let placed = |name: &str| {
        t.reflection
            .outputs
            .iter()
            .find(|o| o.semantic_name == name)
            .map(|o| (o.placement.clone(), o.register, o.component_type))
    };
    use crate::reflect::{ComponentType, InterfacePlacement};
    let builtin = |b: &str| InterfacePlacement::BuiltIn {
        builtin: b.to_string().into(),
    };
    assert_eq!(
        placed("SV_Depth"),
        Some((builtin("FragDepth"), None, ComponentType::Float))
    );
    assert_eq!(
        placed("SV_Coverage"),
        Some((builtin("SampleMask"), None, ComponentType::Uint))
    );
    assert_eq!(t.reflection.outputs.len(), 3);
}
