//! D3D9 render state as data (`translator::d3d9_state`): every state item, in each delivery
//! the item allows (specialization constant, push constant, baked), translates programs that
//! read it to SPIR-V that `spirv-val` accepts (Vulkan 1.1 and 1.3), lists the item in the
//! reflection with its resolved delivery, and puts the value where the reflection says
//! (`SpecId` decorations, the push block's `Offset`, or nothing external when baked). Items
//! that decide a declaration (flat shading, sampler type) refuse the run-time deliveries;
//! depth compare samples with `Dref` when baked on and chooses between both samples at run
//! time. The values' meaning is proven by
//! the runtime cases `shaders/runtime/d3d9/state-*.shader_test`.
//!
//! spirv-val runs only when it is installed (the structural checks always run).

use integration_tests::{spirv_val, spirv_val_or_narrow};
use rspirv::binary::Disassemble;
use translator::d3d9_state::{StateDelivery, StateItem, StateOptions};
use translator::{Options, TargetEnv};

/// A program that reads each item (the items a stage does not use are not read).
fn program(item: StateItem) -> &'static str {
    use StateItem::*;
    match item {
        PointSize | ClipPlaneMask | ClipPlanes => "vs_2_0\ndcl_position v0\nmov oPos, v0\n",
        Projected(_) | SamplerType(_) => "ps_1_1\ntex t0\nmov r0, t0\n",
        Unbound(_) => "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n",
        DepthCompare(_) => {
            "ps_2_0\ndcl t0\ndcl_2d s0\ntexldp r0, t0, s0\ntexldb r1, t0, s0\nadd oC0, r0, r1\n"
        }
        BumpEnv(_) => "ps_1_1\ntex t0\ntexbeml t1, t0\nmov r0, t1\n",
        _ => "ps_2_0\ndcl t0\ndcl v0\nadd r0, t0, v0\nmov oC0, r0\n",
    }
}

/// The items tested: the global ones, sampler 0's and stage 1's bump environment, taken from
/// `StateItem::all()` so that a new item is tested without being listed here.
fn items() -> Vec<StateItem> {
    use StateItem::*;
    StateItem::all()
        .into_iter()
        .filter(|i| match *i {
            SamplerType(n) | DepthCompare(n) | Projected(n) | Unbound(n) => n == 0,
            BumpEnv(n) => n == 1,
            _ => true,
        })
        .collect()
}

/// A non-default baked value of `item`.
fn baked(item: StateItem) -> Vec<u32> {
    use StateItem::*;
    match item {
        AlphaFunc => vec![2],
        FogMode => vec![4],
        SamplerType(_) => vec![2],
        _ if item.word_type() == translator::d3d9_state::WordType::F32 => {
            vec![0.5f32.to_bits(); item.words() as usize]
        }
        _ => vec![1; item.words() as usize],
    }
}

/// Options where every item but `item` is baked off, and `item` delivered as `d`; the other
/// items of the same stage feature stay at their defaults when the item needs them (the mode
/// of fog, the mask of clip planes, the function of alpha test) so that `item` is read.
fn options(item: StateItem, d: StateDelivery, env: TargetEnv) -> Options {
    use StateItem::*;
    let mut st = StateOptions::none();
    // An item is only read while its switch is not baked off.
    let switch = match item {
        AlphaRef => Some(AlphaFunc),
        FogSource | FogColour | FogParams => Some(FogMode),
        ClipPlanes => Some(ClipPlaneMask),
        _ => None,
    };
    if let Some(s) = switch {
        st.set(s, StateDelivery::Spec { first_id: None });
    }
    st.set(item, d);
    st.spec_id_base = 100;
    let mut o = Options {
        target_env: env,
        ..Default::default()
    };
    o.d3d9.state = st;
    o
}

fn deliveries(item: StateItem) -> Vec<StateDelivery> {
    let mut v = vec![StateDelivery::Baked { words: baked(item) }];
    if matches!(item, StateItem::BumpEnv(_)) {
        v.push(StateDelivery::Buffer);
    }
    if !item.bake_only() {
        v.push(StateDelivery::Spec { first_id: None });
        v.push(StateDelivery::Spec { first_id: Some(7) });
        v.push(StateDelivery::Push { offset: 16 });
    }
    v
}

#[test]
fn every_item_in_every_delivery_translates_reflects_and_validates() {
    let val = spirv_val_or_narrow();
    let dir = std::env::temp_dir().join(format!("d3d9_state_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut checked = 0;
    for item in items() {
        let bytes = translator::d3dbc::asm::assemble(program(item)).unwrap();
        for d in deliveries(item) {
            for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
                let what = format!("{item} as {d:?} ({env:?})");
                let t = translator::translate(&bytes, &options(item, d.clone(), env))
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let info = t.reflection.d3d9.as_ref().expect("a D3D9 reflection");
                let entry = info
                    .state
                    .iter()
                    .find(|e| e.item == item)
                    .unwrap_or_else(|| panic!("{what}: not in the reflection {:?}", info.state));
                let text = rspirv::dr::load_words(&t.spirv).unwrap().disassemble();
                let spec_ids = |first: u32| {
                    (first..first + item.words())
                        .filter(|id| text.contains(&format!("SpecId {id}\n")))
                        .count() as u32
                };
                match (&d, &entry.delivery) {
                    (StateDelivery::Baked { words }, StateDelivery::Baked { words: w }) => {
                        assert_eq!(words, w, "{what}");
                    }
                    (
                        StateDelivery::Spec { first_id },
                        StateDelivery::Spec { first_id: Some(f) },
                    ) => {
                        let want = first_id.unwrap_or(100 + item.spec_slot());
                        assert_eq!(*f, want, "{what}");
                        // (A word the code does not use, such as the fog colour's alpha, may
                        // be gone: Vulkan ignores map entries for IDs a module lacks.)
                        let n = spec_ids(want);
                        assert!(n >= 1 && n <= item.words(), "{what}: {n} SpecIds: {text}");
                    }
                    (StateDelivery::Push { offset }, StateDelivery::Push { offset: o }) => {
                        assert_eq!(offset, o, "{what}");
                        assert!(text.contains("PushConstant"), "{what}");
                        assert!(text.contains(&format!("Offset {offset}\n")), "{what}");
                    }
                    (StateDelivery::Buffer, StateDelivery::Buffer) => {
                        let be = info.bump_env.as_ref().expect("the buffer's reflection");
                        assert_eq!(be.stages, [1], "{what}");
                    }
                    (a, b) => panic!("{what}: asked {a:?}, reflected {b:?}"),
                }
                if !matches!(d, StateDelivery::Buffer) {
                    assert!(info.bump_env.is_none(), "{what}: no buffer");
                }
                if !matches!(d, StateDelivery::Spec { .. }) {
                    assert_eq!(spec_ids(100 + item.spec_slot()), 0, "{what}");
                }
                if val {
                    let out = dir.join(format!("{}_{checked}.spv", item.name()));
                    let b: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
                    std::fs::write(&out, b).unwrap();
                    spirv_val(&out, env.spirv_val_name())
                        .unwrap_or_else(|e| panic!("{what}: spirv-val: {e}"));
                }
                checked += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(checked >= 80, "{checked} translations checked");
}

#[test]
fn baked_off_state_compiles_nothing_and_defaults_read_spec_constants() {
    let ps = translator::d3dbc::asm::assemble(program(StateItem::AlphaFunc)).unwrap();
    let mut none = Options::default();
    none.d3d9.state = StateOptions::none();
    let t = translator::translate(&ps, &none).unwrap();
    let text = rspirv::dr::load_words(&t.spirv).unwrap().disassemble();
    assert!(!text.contains("SpecId"), "{text}");
    assert!(!text.contains("Demote"), "no alpha test: {text}");
    assert!(
        t.reflection
            .d3d9
            .unwrap()
            .state
            .iter()
            .all(|e| matches!(e.delivery, StateDelivery::Baked { .. }))
    );
    // The default: alpha test and fog as specialization constants from the table.
    let t = translator::translate(&ps, &Options::default()).unwrap();
    let items: Vec<StateItem> = t
        .reflection
        .d3d9
        .unwrap()
        .state
        .iter()
        .map(|e| e.item)
        .collect();
    for i in [
        StateItem::AlphaFunc,
        StateItem::AlphaRef,
        StateItem::FogMode,
        StateItem::FogColour,
    ] {
        assert!(items.contains(&i), "{i} missing from {items:?}");
    }
    // Flat shading baked on decorates the colour input.
    let mut flat = Options::default();
    flat.d3d9.state.set(
        StateItem::FlatShading,
        StateDelivery::Baked { words: vec![1] },
    );
    let t = translator::translate(&ps, &flat).unwrap();
    let text = rspirv::dr::load_words(&t.spirv).unwrap().disassemble();
    assert!(text.contains("Flat"), "{text}");
}

#[test]
fn declaration_items_and_bad_choices_are_refused() {
    let ps = translator::d3dbc::asm::assemble(program(StateItem::Unbound(0))).unwrap();
    let with = |item, d| {
        let mut o = Options::default();
        o.d3d9.state.set(item, d);
        translator::translate(&ps, &o)
    };
    for (item, d) in [
        (
            StateItem::FlatShading,
            StateDelivery::Spec { first_id: None },
        ),
        (StateItem::SamplerType(0), StateDelivery::Push { offset: 0 }),
        (
            StateItem::FogColour,
            StateDelivery::Baked { words: vec![0] },
        ),
        (StateItem::AlphaRef, StateDelivery::Push { offset: 2 }),
        (StateItem::FogMode, StateDelivery::Buffer),
    ] {
        let e = with(item, d.clone()).expect_err(&format!("{item} {d:?}"));
        assert!(e.to_string().contains(&item.name()), "{e}");
    }
    // A volume cannot compare depth: baked on is refused naming the item; a run-time value
    // compiles no comparison (and is not read).
    let vol = translator::d3dbc::asm::assemble(
        "ps_2_0\ndcl t0\ndcl_volume s0\ntexld r0, t0, s0\nmov oC0, r0\n",
    )
    .unwrap();
    let mut o = Options::default();
    let item = StateItem::DepthCompare(0);
    o.d3d9
        .state
        .set(item, StateDelivery::Baked { words: vec![1] });
    let e = translator::translate(&vol, &o).expect_err("a volume compares");
    assert!(e.to_string().contains("depth-compare-0"), "{e}");
    o.d3d9
        .state
        .set(item, StateDelivery::Spec { first_id: None });
    let t = translator::translate(&vol, &o).unwrap();
    let text = rspirv::dr::load_words(&t.spirv).unwrap().disassemble();
    assert!(!text.contains("Dref"), "{text}");
}

#[test]
fn depth_compare_samples_with_dref_or_chooses_at_run_time() {
    let ps = translator::d3dbc::asm::assemble(program(StateItem::DepthCompare(0))).unwrap();
    let item = StateItem::DepthCompare(0);
    let text_with = |d| {
        let mut o = Options::default();
        o.d3d9.state.set(item, d);
        let t = translator::translate(&ps, &o).unwrap();
        rspirv::dr::load_words(&t.spirv).unwrap().disassemble()
    };
    let count = |t: &str, what: &str| t.matches(what).count();
    // Default (baked 0): colour samples only, a plain image.
    let t = text_with(StateDelivery::Baked { words: vec![0] });
    assert_eq!(count(&t, "ImageSampleDref"), 0, "{t}");
    assert!(t.contains(" 2D 0 0 0 1 Unknown"), "{t}");
    // Baked on: only comparisons, on a depth image; the reference clamped.
    let t = text_with(StateDelivery::Baked { words: vec![1] });
    assert_eq!(count(&t, "OpImageSampleDrefImplicitLod"), 2, "{t}");
    assert_eq!(count(&t, "OpImageSampleImplicitLod"), 0, "{t}");
    assert!(t.contains(" 2D 1 0 0 1 Unknown"), "{t}");
    assert!(t.contains("NClamp"), "{t}");
    // At run time: both samples, in the arms of a selection, on an image of either kind.
    for d in [
        StateDelivery::Spec { first_id: Some(3) },
        StateDelivery::Push { offset: 0 },
    ] {
        let t = text_with(d.clone());
        assert_eq!(count(&t, "OpImageSampleDrefImplicitLod"), 2, "{d:?}: {t}");
        assert_eq!(count(&t, "OpImageSampleImplicitLod"), 2, "{d:?}: {t}");
        assert!(t.contains("OpSelectionMerge"), "{d:?}: {t}");
        assert!(t.contains(" 2D 2 0 0 1 Unknown"), "{d:?}: {t}");
    }
}
