//! Rasterizer-ordered views (`_rov`) through the whole pipeline: the interlock critical
//! section, its kind (per pixel or per sample), `Coherent` on the view, the reflection, and
//! the unordered fallback.

use spirv::{Decoration, ExecutionMode, Op};

use super::query::insts;
use crate::RovMode;

fn translate(text: &str, rov: RovMode) -> crate::Translation {
    let dxbc = crate::asm::assemble(text).unwrap();
    let opts = crate::Options {
        rov,
        ..Default::default()
    };
    crate::translate(&dxbc, &opts).unwrap()
}

/// A pixel shader reading and writing a `_rov` view, with an early `retc` and a `discard`.
fn ps(extra_input: &str, extra_code: &str) -> String {
    format!(
        "ps_5_0\n.input SV_Position 0 v0 float POS\n{extra_input}.output SV_Target 0 o0 uint\n\
         dcl_uav_typed_texture2d_rov (uint,uint,uint,uint) u1\n\
         dcl_input_ps_siv linear noperspective v0.xy, position\n{}dcl_output o0.xyzw\n\
         dcl_temps 2\nftou r0.xy, v0.xyxx\n{extra_code}\
         ld_uav_typed_indexable(texture2d)(uint,uint,uint,uint) r1.x, r0.xyyy, u1.xyzw\n\
         mov o0.xyzw, r1.xxxx\nieq r1.y, r1.x, l(7)\ndiscard_nz r1.y\n\
         ige r1.y, r1.x, l(100)\nretc_nz r1.y\niadd r1.x, r1.x, l(1)\n\
         store_uav_typed u1.xyzw, r0.xyyy, r1.xxxx\nret\n",
        if extra_input.is_empty() {
            ""
        } else {
            "dcl_input_ps_sgv v1.x, sampleIndex\n"
        }
    )
}

fn mode_words(insts: &[(Op, &[u32])], mode: ExecutionMode) -> usize {
    insts
        .iter()
        .filter(|(op, w)| *op == Op::ExecutionMode && w[1] == mode as u32)
        .count()
}

#[test]
fn rov_pixel_shader_is_one_interlock_critical_section() {
    let t = translate(&ps("", ""), RovMode::Interlock);
    let insts = insts(&t.spirv);
    let entry = insts
        .iter()
        .find(|(op, _)| *op == Op::EntryPoint)
        .map(|(_, w)| w[1])
        .unwrap();
    // The entry function is Begin, one call of the program, End, return; nothing else in
    // the module begins or ends the critical section.
    let start = insts
        .iter()
        .position(|(op, w)| *op == Op::Function && w[1] == entry)
        .unwrap();
    let body: Vec<Op> = insts[start + 1..].iter().map(|(op, _)| *op).collect();
    assert_eq!(
        body,
        [
            Op::Label,
            Op::BeginInvocationInterlockEXT,
            Op::FunctionCall,
            Op::EndInvocationInterlockEXT,
            Op::Return,
            Op::FunctionEnd
        ],
        "the entry function is the last one"
    );
    for op in [
        Op::BeginInvocationInterlockEXT,
        Op::EndInvocationInterlockEXT,
    ] {
        assert_eq!(insts.iter().filter(|(o, _)| *o == op).count(), 1, "{op:?}");
    }
    // The program's own function keeps its early return and demote.
    assert_eq!(insts.iter().filter(|(o, _)| *o == Op::Return).count(), 3);
    assert!(
        insts
            .iter()
            .any(|(o, _)| *o == Op::DemoteToHelperInvocation)
    );
    assert_eq!(
        mode_words(&insts, ExecutionMode::PixelInterlockOrderedEXT),
        1
    );
    assert_eq!(
        mode_words(&insts, ExecutionMode::SampleInterlockOrderedEXT),
        0
    );
    assert!(
        insts
            .iter()
            .any(|(op, w)| *op == Op::Decorate && w[1] == Decoration::Coherent as u32),
        "the ordered view is Coherent"
    );
    let r = &t.reflection;
    assert!(
        r.extensions
            .iter()
            .any(|e| e == "SPV_EXT_fragment_shader_interlock")
    );
    assert!(
        r.capabilities
            .iter()
            .any(|c| c == "FragmentShaderPixelInterlockEXT")
    );
    assert!(
        r.vulkan_features
            .iter()
            .any(|f| f == "fragmentShaderPixelInterlock")
    );
}

#[test]
fn rov_per_sample_shader_orders_per_sample() {
    let input = ".input SV_SampleIndex 0 v1.x uint SAMPLE\n";
    // A sample index the program reads makes Vulkan run it per sample.
    let t = translate(&ps(input, "iadd r0.x, r0.x, v1.x\n"), RovMode::Interlock);
    let insts = insts(&t.spirv);
    assert_eq!(
        mode_words(&insts, ExecutionMode::SampleInterlockOrderedEXT),
        1
    );
    assert_eq!(
        mode_words(&insts, ExecutionMode::PixelInterlockOrderedEXT),
        0
    );
    assert!(
        t.reflection
            .vulkan_features
            .iter()
            .any(|f| f == "fragmentShaderSampleInterlock")
    );
    // One whose value is dead is not in the module: Vulkan runs the shader per pixel, and
    // the interlock orders per pixel.
    let t = translate(&ps(input, "mov r0.z, v1.x\n"), RovMode::Interlock);
    let insts = super::query::insts(&t.spirv);
    assert_eq!(
        mode_words(&insts, ExecutionMode::PixelInterlockOrderedEXT),
        1
    );
    assert_eq!(
        mode_words(&insts, ExecutionMode::SampleInterlockOrderedEXT),
        0
    );
}

#[test]
fn rov_unordered_fallback_emits_no_interlock() {
    let t = translate(&ps("", ""), RovMode::Unordered);
    let insts = insts(&t.spirv);
    assert!(!insts.iter().any(|(op, _)| matches!(
        op,
        Op::BeginInvocationInterlockEXT | Op::EndInvocationInterlockEXT | Op::FunctionCall
    )));
    assert_eq!(
        mode_words(&insts, ExecutionMode::PixelInterlockOrderedEXT),
        0
    );
    assert!(
        !t.reflection
            .vulkan_features
            .iter()
            .any(|f| f.contains("Interlock"))
    );
    assert!(
        !t.reflection
            .extensions
            .iter()
            .any(|e| e.contains("interlock"))
    );
}

#[test]
fn plain_uav_gets_no_interlock() {
    let text = ps("", "").replace("texture2d_rov", "texture2d");
    let t = translate(&text, RovMode::Interlock);
    assert!(
        !insts(&t.spirv)
            .iter()
            .any(|(op, _)| *op == Op::BeginInvocationInterlockEXT)
    );
}
