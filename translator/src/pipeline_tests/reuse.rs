//! A [`crate::Translator`] kept across translations gives exactly what [`crate::translate`]
//! gives for each: shaders of different stages and sizes, options that change the output
//! (debug names, target), shaders failing in lowering, in a pass and in emit in between, and
//! a module with fragment shader
//! interlock (its entry point is written apart), and Direct3D 9 shaders between DXBC ones
//! (both paths reuse the same module).

use crate::{Options, TargetEnv, Translator};

const SAMPLE_PS: &str = "ps_5_0\n.input SV_Position 0 v0 float POS\n.input TEXCOORD 0 v1 float\n\
    .output SV_Target 0 o0 float\n\
    dcl_constantbuffer cb0[1], immediateIndexed\ndcl_sampler s0, mode_default\n\
    dcl_resource_texture2d (float,float,float,float) t0\n\
    dcl_input_ps linear v1.xy\ndcl_output o0.xyzw\ndcl_temps 1\n\
    sample r0.xyzw, v1.xyxx, t0.xyzw, s0\nmul o0.xyzw, r0.xyzw, cb0[0].xyzw\nret\n";

const LOOP_CS: &str = "cs_5_0\ndcl_globalFlags refactoringAllowed\n\
    dcl_uav_raw u0\ndcl_input vThreadID.x\ndcl_temps 2\ndcl_thread_group 8, 1, 1\n\
    mov r0.x, l(0)\nmov r1.x, l(0)\nloop\nuge r0.y, r1.x, l(4)\nbreakc_nz r0.y\n\
    iadd r0.x, r0.x, r1.x\nimul null, r0.z, r1.x, l(3)\niadd r0.x, r0.x, r0.z\n\
    iadd r1.x, r1.x, l(1)\nendloop\nishl r0.w, vThreadID.x, l(2)\n\
    store_raw u0.x, r0.w, r0.x\nret\n";

const ROV_PS: &str = "ps_5_0\n.input SV_Position 0 v0 float POS\n.output SV_Target 0 o0 uint\n\
    dcl_uav_typed_texture2d_rov (uint,uint,uint,uint) u1\n\
    dcl_input_ps_siv linear noperspective v0.xy, position\ndcl_output o0.xyzw\n\
    dcl_temps 2\nftou r0.xy, v0.xyxx\n\
    ld_uav_typed_indexable(texture2d)(uint,uint,uint,uint) r1.x, r0.xyyy, u1.xyzw\n\
    mov o0.xyzw, r1.xxxx\niadd r1.x, r1.x, l(1)\nstore_uav_typed u1.xyzw, r0.xyyy, r1.xxxx\n\
    ret\n";

/// Direct3D 9 shaders: a vertex shader with constants and a pixel shader with a loop and a
/// texture.
const D9_VS: &str = "vs_2_0\ndcl_position v0\ndcl_texcoord v1\ndef c10, 0.5, 1, 0, 0\n\
    m4x4 oPos, v0, c0\nmul oT0, v1, c10.x\n";
const D9_PS: &str = "ps_3_0\ndcl_texcoord0 v0.xy\ndcl_2d s0\ndefi i0, 3, 0, 1, 0\n\
    def c0, 0.25, 0, 0, 0\nmov r0, c0.y\nloop aL, i0\ntexld r1, v0, s0\nmad r0, r1, c0.x, r0\n\
    endloop\nmov oC0, r0\n";

/// Reads a register the program never declares: lowering fails part way.
const BAD_CS: &str = "cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\nmov r0.x, cb0[0].x\nret\n";

#[test]
fn a_kept_translator_gives_what_translate_gives() {
    let dxbc = |t: &str| crate::asm::assemble(t).unwrap_or_else(|e| panic!("{e}\n{t}"));
    let d3d9 = |t: &str| crate::d3dbc::asm::assemble(t).unwrap_or_else(|e| panic!("{e}\n{t}"));
    // Lowers fine, then the structurizer refuses it (too many loops for its work bound).
    let pass_fails = super::structurize::sequential_loops(2400);
    // Lowers and passes fine, then emit refuses it (an OpSwitch over SPIR-V's word count).
    let emit_fails = crate::asm::assemble(&super::flow::switch_of(16384)).unwrap();
    let programs: Vec<Vec<u8>> = vec![
        dxbc(SAMPLE_PS),
        d3d9(D9_VS),
        pass_fails,
        dxbc(LOOP_CS),
        d3d9(D9_PS),
        emit_fails,
        dxbc(ROV_PS),
        dxbc(BAD_CS),
    ];
    let bad = programs.len() - 1;
    // Where each failing program fails, so that a change making it translate is noticed.
    let failure = |p: usize, e: &crate::Error| match (p, e) {
        (2, crate::Error::Pass(_)) | (5, crate::Error::Emit(_)) | (7, crate::Error::Lower(_)) => {}
        _ => panic!("program {p} failed where it should not: {e:?}"),
    };
    let option_sets = [
        Options::default(),
        Options {
            debug_names: true,
            ..Default::default()
        },
        Options {
            target_env: TargetEnv::Vulkan1_1,
            ..Default::default()
        },
    ];
    let mut translator = Translator::new();
    let mut translated = 0;
    // Each program after each other one (largest before smallest and back), each options set.
    for round in 0..3 {
        for (p, dxbc) in programs.iter().enumerate() {
            let opts = &option_sets[(p + round) % option_sets.len()];
            let kept = translator.translate(dxbc, opts);
            let fresh = crate::translate(dxbc, opts);
            match (kept, fresh) {
                (Ok(k), Ok(f)) => {
                    assert_eq!(k.spirv, f.spirv, "program {p}, round {round}");
                    assert_eq!(k.reflection, f.reflection, "program {p}, round {round}");
                    translated += 1;
                }
                (Err(k), Err(f)) => {
                    failure(p, &k);
                    assert_eq!(k, f, "program {p}, round {round}");
                }
                (k, f) => panic!("program {p}, round {round}: kept {k:?}, fresh {f:?}"),
            }
        }
    }
    // Five programs translate, in each of the three rounds; the other three are refused each
    // time, each followed by one that translates.
    assert_eq!(translated, 15);
    assert!(
        translator
            .translate(&programs[bad], &option_sets[0])
            .is_err()
    );
}

/// The buffers a translator keeps are bounded by the largest shader, not by how many it has
/// translated: the same loop program (whose structurizer adds blocks after lowering) over and
/// over keeps the same number of block lists. A pool that also kept the lists left over from
/// earlier functions grew by the added blocks on every translation (RSS grew ~9 KiB per
/// translation over the bench set).
#[test]
fn kept_buffers_do_not_grow_with_translations() {
    let cs = crate::asm::assemble(LOOP_CS).expect("assembles");
    let mut translator = Translator::new();
    let mut kept = Vec::new();
    for _ in 0..12 {
        translator
            .translate(&cs, &Options::default())
            .expect("translates");
        kept.push(translator.kept_block_lists());
    }
    assert!(
        kept[0] > 1,
        "the loop program keeps its blocks' lists: {kept:?}"
    );
    assert!(
        kept[1..].iter().all(|&k| k == kept[1]),
        "kept block lists grew: {kept:?}"
    );
}

/// A pixel shader of `n` `if` blocks in a row (three blocks each after lowering).
fn many_ifs_ps(n: usize) -> Vec<u8> {
    let mut src = String::from(
        "ps_5_0\n.input TEXCOORD 0 v1 float\n.output SV_Target 0 o0 float\n\
         dcl_input_ps linear v1.xy\ndcl_output o0.xyzw\ndcl_temps 1\nmov r0.xy, v1.xyxx\n",
    );
    for i in 0..n {
        src.push_str(&format!("if_nz r0.x\nadd r0.y, r0.y, l({i}.0)\nendif\n"));
    }
    src.push_str("mov o0.xyzw, r0.xyxy\nret\n");
    crate::asm::assemble(&src).unwrap_or_else(|e| panic!("{e}"))
}

/// The block lists a translator keeps for later functions are capped: after a program with
/// far more blocks than the cap it keeps exactly the cap (the newest lists), and a smaller
/// program after it, which takes its blocks' lists from that pool, translates as a fresh
/// translator translates it (a pool keeping only the last function's lists left a program
/// with more blocks than the one before it allocating a list per extra block).
#[test]
fn kept_block_lists_are_capped() {
    let cap = crate::ir::builder::POOLED_BLOCK_LISTS;
    let big = many_ifs_ps(cap);
    let small = many_ifs_ps(20);
    let mut translator = Translator::new();
    translator
        .translate(&big, &Options::default())
        .expect("translates");
    assert_eq!(translator.kept_block_lists(), cap);
    let kept = translator
        .translate(&small, &Options::default())
        .expect("translates");
    let fresh = crate::translate(&small, &Options::default()).expect("translates");
    assert_eq!(kept.spirv, fresh.spirv);
    assert_eq!(translator.kept_block_lists(), cap);
}

/// The SM4 lowering's kept state, emptied in place (`LowerScratch::recycle`, as each lowering
/// does first) after programs that fill it (I/O, resources and the binding plan, flow, a
/// rasterizer-ordered view), is what a new one is: the in-place resets name every field and
/// give each its default.
#[test]
fn kept_lowering_state_emptied_in_place_is_a_new_one() {
    let new = crate::lower::LowerScratch::default().contents();
    for src in [LOOP_CS, SAMPLE_PS, ROV_PS] {
        let mut kept = crate::lower::LowerScratch::default();
        let dxbc = crate::asm::assemble(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        crate::translate::lower_container_with(&dxbc, &Options::default(), &mut kept)
            .expect("lowers");
        assert_ne!(
            kept.contents(),
            new,
            "the program left state behind:\n{src}"
        );
        kept.recycle();
        assert_eq!(kept.contents(), new, "{src}");
    }
}
