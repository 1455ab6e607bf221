//! The classification on small programs: what depends on the order threads run in, and
//! what commutes or is ordered and so is still compared.

use super::Order;
use crate::diff::inputs::constant_buffers;
use crate::diff::outputs::Source;
use crate::diff::shader;

fn order(asm: &str) -> Order {
    let bytes = translator::asm::assemble(asm).unwrap_or_else(|e| panic!("assembles: {e}\n{asm}"));
    let s = shader::load(bytes).expect("loads");
    let o = Order::of(&s, &constant_buffers(&s, 1));
    assert_eq!(o.gave_up, None, "the analysis follows the program");
    o
}

fn uav(o: &Order, r: u32) -> bool {
    o.why(
        &Source::Uav {
            register: r,
            space: 0,
        },
        0,
    )
    .is_some()
}

fn cs(group: &str, decls: &str, body: &str) -> String {
    format!("cs_5_0\n{decls}\ndcl_thread_group {group}\ndcl_temps 4\n{body}\nret\n")
}

/// InterlockedAdd and InterlockedOr on one shared word, read after the barrier: the word
/// depends on which came first (the bench shader `cs50_atomics` in small).
#[test]
fn different_atomics_on_one_shared_word_are_order_dependent() {
    let o = order(&cs(
        "8, 8, 1",
        "dcl_uav_raw u0\ndcl_tgsm_structured g0, 4, 64",
        "store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), l(0)\n\
         sync_g_t\n\
         and r0.x, vThreadIDInGroupFlattened.x, l(15)\n\
         mov r0.y, l(0)\n\
         atomic_iadd g0, r0.xyxx, l(1)\n\
         iadd r0.x, vThreadIDInGroupFlattened.x, l(1)\n\
         and r0.x, r0.x, l(63)\n\
         atomic_or g0, r0.xyxx, vThreadID.x\n\
         sync_g_t\n\
         ld_structured r1.x, vThreadIDInGroupFlattened.x, l(0), g0.xxxx\n\
         imad r2.x, vThreadGroupID.x, l(64), vThreadIDInGroupFlattened.x\n\
         ishl r2.x, r2.x, l(2)\n\
         store_raw u0.x, r2.x, r1.x",
    ));
    assert!(uav(&o, 0));
}

/// The same with only adds: the count after the barrier is the same in any order.
#[test]
fn an_atomic_count_read_after_a_barrier_is_compared() {
    let o = order(&cs(
        "8, 8, 1",
        "dcl_uav_raw u0\ndcl_tgsm_structured g0, 4, 64",
        "store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), l(0)\n\
         sync_g_t\n\
         and r0.x, vThreadIDInGroupFlattened.x, l(15)\n\
         mov r0.y, l(0)\n\
         atomic_iadd g0, r0.xyxx, l(1)\n\
         iadd r0.x, vThreadIDInGroupFlattened.x, l(1)\n\
         and r0.x, r0.x, l(63)\n\
         atomic_iadd g0, r0.xyxx, vThreadID.x\n\
         sync_g_t\n\
         ld_structured r1.x, vThreadIDInGroupFlattened.x, l(0), g0.xxxx\n\
         imad r2.x, vThreadGroupID.x, l(64), vThreadIDInGroupFlattened.x\n\
         ishl r2.x, r2.x, l(2)\n\
         store_raw u0.x, r2.x, r1.x",
    ));
    assert!(!uav(&o, 0));
}

/// Without the barrier the load races with the other threads' adds.
#[test]
fn a_load_racing_with_atomics_is_order_dependent() {
    let o = order(&cs(
        "8, 8, 1",
        "dcl_uav_raw u0\ndcl_tgsm_raw g0, 4",
        "atomic_iadd g0, l(0), l(1)\n\
         ld_raw r1.x, l(0), g0.xxxx\n\
         imad r2.x, vThreadGroupID.x, l(64), vThreadIDInGroupFlattened.x\n\
         ishl r2.x, r2.x, l(2)\n\
         store_raw u0.x, r2.x, r1.x",
    ));
    assert!(uav(&o, 0));
}

/// An atomic's return value is which thread came first.
#[test]
fn atomic_return_values_are_order_dependent() {
    let o = order(&cs(
        "4, 1, 1",
        "dcl_uav_raw u0\ndcl_uav_raw u1",
        "imm_atomic_iadd r0.x, u0, l(0), l(1)\n\
         ishl r2.x, vThreadID.x, l(2)\n\
         store_raw u1.x, r2.x, r0.x",
    ));
    assert!(!uav(&o, 0), "the count itself commutes");
    assert!(uav(&o, 1));
}

/// Different atomics on different words of one UAV, each word one kind (Wine's
/// `test_atomic_instructions` pattern): commute.
#[test]
fn atomics_of_one_kind_per_word_are_compared() {
    let o = order(&cs(
        "4, 1, 1",
        "dcl_constantbuffer cb0[2], immediateIndexed\ndcl_uav_raw u0",
        "atomic_and u0, l(0), cb0[0].x\n\
         atomic_iadd u0, l(4), vThreadID.x\n\
         atomic_umax u0, l(8), vThreadID.x\n\
         atomic_cmp_store u0, l(12), cb0[0].y, cb0[0].x\n\
         atomic_imin u0, l(16), cb0[1].x",
    ));
    assert!(!uav(&o, 0));
    // A max and a min on one word do not commute.
    let o = order(&cs(
        "4, 1, 1",
        "dcl_uav_raw u0",
        "atomic_umax u0, l(8), vThreadID.x\natomic_umin u0, l(8), vThreadID.x",
    ));
    assert!(uav(&o, 0));
}

/// Exchanges and compare-and-stores commute only when every thread writes the same.
#[test]
fn exchanges_commute_only_with_the_same_operands() {
    let same = order(&cs(
        "4, 1, 1",
        "dcl_uav_structured u0, 4\ndcl_uav_raw u1",
        "atomic_cmp_store u0, l(8, 0, 0, 0), l(0), l(1)\n\
         imm_atomic_exch r0.x, u0, l(3, 0, 0, 0), l(7)",
    ));
    assert!(!uav(&same, 0));
    let differ = order(&cs(
        "4, 1, 1",
        "dcl_uav_structured u0, 4",
        "atomic_cmp_store u0, l(8, 0, 0, 0), l(0), vThreadID.x",
    ));
    assert!(uav(&differ, 0));
}

/// Plain stores: each thread's own element is compared; threads of the two groups storing
/// different values into the same element are not; the same value from every thread is.
#[test]
fn stores_race_only_where_threads_share_an_element() {
    let own = order(&cs(
        "8, 8, 1",
        "dcl_uav_typed_texture2d (uint,uint,uint,uint) u0\ndcl_uav_structured u1, 8",
        "store_uav_typed u0.xyzw, vThreadID.xyyy, vThreadIDInGroupFlattened.xxxx\n\
         imad r0.x, vThreadID.y, l(16), vThreadID.x\n\
         store_structured u1.xy, r0.x, l(0), vThreadID.xyxx",
    ));
    assert!(!uav(&own, 0) && !uav(&own, 1));
    let shared = order(&cs(
        "8, 8, 1",
        "dcl_uav_structured u0, 4",
        "store_structured u0.x, vThreadIDInGroupFlattened.x, l(0), vThreadID.x",
    ));
    assert!(uav(&shared, 0), "both groups store into elements 0-63");
    let same = order(&cs(
        "8, 8, 1",
        "dcl_uav_structured u0, 4",
        "store_structured u0.x, vThreadIDInGroupFlattened.x, l(0), vThreadIDInGroup.y",
    ));
    assert!(
        !uav(&same, 0),
        "both groups store the same value into each element"
    );
}

/// A neighbour's element read after a barrier: ordered by `sync_uglobal_t`, not by
/// `sync_g_t` (which orders shared memory only).
#[test]
fn barriers_order_only_their_memory() {
    let body = |sync: &str| {
        cs(
            "8, 1, 1",
            "dcl_uav_structured u0, 4\ndcl_uav_structured u1, 4",
            &format!(
                "store_structured u0.x, vThreadID.x, l(0), vThreadID.x\n{sync}\n\
                 xor r0.x, vThreadID.x, l(1)\n\
                 ld_structured r1.x, r0.x, l(0), u0.xxxx\n\
                 store_structured u1.x, vThreadID.x, l(0), r1.x"
            ),
        )
    };
    let o = order(&body("sync_uglobal_t"));
    assert!(!uav(&o, 0) && !uav(&o, 1));
    let o = order(&body("sync_g_t"));
    assert!(!uav(&o, 0) && uav(&o, 1));
}

/// A tree reduction in shared memory (the bench's `cs50_reduction`): the loop is unrolled,
/// each step's reads and writes touch different halves, barriers order the steps.
#[test]
fn a_reduction_is_compared() {
    let o = order(&cs(
        "64, 1, 1",
        "dcl_uav_structured u0, 4\ndcl_tgsm_structured g0, 4, 64",
        "store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), vThreadID.x\n\
         sync_g_t\n\
         mov r0.x, l(32)\n\
         loop\n\
           uge r0.y, l(0), r0.x\n\
           breakc_nz r0.y\n\
           ult r0.y, vThreadIDInGroupFlattened.x, r0.x\n\
           if_nz r0.y\n\
             iadd r0.z, vThreadIDInGroupFlattened.x, r0.x\n\
             ld_structured r1.x, r0.z, l(0), g0.xxxx\n\
             ld_structured r1.y, vThreadIDInGroupFlattened.x, l(0), g0.xxxx\n\
             iadd r1.x, r1.x, r1.y\n\
             store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.x\n\
           endif\n\
           sync_g_t\n\
           ushr r0.x, r0.x, l(1)\n\
         endloop\n\
         if_z vThreadIDInGroupFlattened.x\n\
           ld_structured r1.x, l(0), l(0), g0.xxxx\n\
           store_structured u0.x, vThreadGroupID.x, l(0), r1.x\n\
         endif",
    ));
    assert!(!uav(&o, 0));
    // Without the barrier in the loop, step k+1 reads what step k's threads write.
    let racy = order(&cs(
        "64, 1, 1",
        "dcl_uav_structured u0, 4\ndcl_tgsm_structured g0, 4, 64",
        "store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), vThreadID.x\n\
         sync_g_t\n\
         mov r0.x, l(32)\n\
         loop\n\
           uge r0.y, l(0), r0.x\n\
           breakc_nz r0.y\n\
           ult r0.y, vThreadIDInGroupFlattened.x, r0.x\n\
           if_nz r0.y\n\
             iadd r0.z, vThreadIDInGroupFlattened.x, r0.x\n\
             ld_structured r1.x, r0.z, l(0), g0.xxxx\n\
             ld_structured r1.y, vThreadIDInGroupFlattened.x, l(0), g0.xxxx\n\
             iadd r1.x, r1.x, r1.y\n\
             store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.x\n\
           endif\n\
           ushr r0.x, r0.x, l(1)\n\
         endloop\n\
         sync_g_t\n\
         if_z vThreadIDInGroupFlattened.x\n\
           ld_structured r1.x, l(0), l(0), g0.xxxx\n\
           store_structured u0.x, vThreadGroupID.x, l(0), r1.x\n\
         endif",
    ));
    assert!(uav(&racy, 0));
}

/// A loop whose trip count the analysis does not know (read from a buffer) is iterated to a
/// fixed point; barriers on both sides of the shared-memory write still order it.
#[test]
fn a_loop_of_unknown_length_keeps_its_barriers() {
    let o = order(&cs(
        "64, 1, 1",
        "dcl_resource_buffer (uint,uint,uint,uint) t0\ndcl_uav_structured u0, 4\n\
         dcl_tgsm_structured g0, 4, 64",
        "store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), vThreadID.x\n\
         sync_g_t\n\
         ld r3.x, l(0, 0, 0, 0), t0.xxxx\n\
         mov r0.x, l(0)\n\
         loop\n\
           uge r0.y, r0.x, r3.x\n\
           breakc_nz r0.y\n\
           xor r0.z, vThreadIDInGroupFlattened.x, r0.x\n\
           and r0.z, r0.z, l(63)\n\
           ld_structured r1.x, r0.z, l(0), g0.xxxx\n\
           sync_g_t\n\
           store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.x\n\
           sync_g_t\n\
           iadd r0.x, r0.x, l(1)\n\
         endloop\n\
         ld_structured r1.x, vThreadIDInGroupFlattened.x, l(0), g0.xxxx\n\
         store_structured u0.x, vThreadID.x, l(0), r1.x",
    ));
    assert!(!uav(&o, 0));
}

/// Appending through a counter: the elements are compared as a multiset, so each thread's
/// slot does not matter — unless the slot number itself is stored.
#[test]
fn appends_are_compared_but_their_slots_are_not() {
    let o = order(&cs(
        "4, 1, 1",
        "dcl_uav_structured_opc u0, 4",
        "imm_atomic_alloc r0.x, u0\nstore_structured u0.x, r0.x, l(0), vThreadID.x",
    ));
    assert!(!uav(&o, 0));
    let o = order(&cs(
        "4, 1, 1",
        "dcl_uav_structured_opc u0, 4\ndcl_uav_structured u1, 4",
        "imm_atomic_alloc r0.x, u0\nstore_structured u0.x, r0.x, l(0), vThreadID.x\n\
         store_structured u1.x, vThreadID.x, l(0), r0.x",
    ));
    assert!(!uav(&o, 0) && uav(&o, 1));
}

/// Pixel shaders: each pixel's own texel (by its position) is compared; an output computed
/// from an atomic's return value is not, component by component; a branch on it taints
/// what it decides.
#[test]
fn pixel_shader_outputs() {
    let o = order(
        "ps_5_0\n.input SV_Position 0 v0.xyzw float\n.input COLOR 0 v1.xyzw float\n\
         .output SV_Target 0 o0.xyzw float\n.output SV_Target 1 o1.xyzw float\n\
         dcl_uav_structured u1, 4\ndcl_uav_typed_texture2d (float,float,float,float) u2\n\
         dcl_input_ps_siv linear noperspective v0.xy, position\ndcl_input_ps linear v1.xyzw\n\
         dcl_output o0.xyzw\ndcl_output o1.xyzw\ndcl_temps 2\n\
         imm_atomic_iadd r0.x, u1, l(0, 0, 0, 0), l(1)\n\
         atomic_umax u1, l(1, 0, 0, 0), v1.x\n\
         ftou r1.xy, v0.xyxx\n\
         store_uav_typed u2.xyzw, r1.xyyy, v1.xyzw\n\
         utof r0.x, r0.x\n\
         mov o0.xyzw, l(0, 0, 0, 1.0)\n\
         mov o0.x, r0.x\n\
         ult r0.y, r0.x, l(5)\n\
         mov o1.xyzw, l(1.0, 1.0, 1.0, 1.0)\n\
         if_nz r0.y\n\
           mov o1.y, l(0)\n\
         endif\n\
         ret\n",
    );
    let reg = |r, c| o.why(&Source::Register(r), c).is_some();
    assert!(reg(0, 0) && !reg(0, 1) && !reg(0, 3));
    assert!(!reg(1, 0) && reg(1, 1));
    assert!(!uav(&o, 1), "an add and a max on different words");
    assert!(!uav(&o, 2), "each pixel its own texel");
}

/// Shaders without shared memory are not analysed at all; D3D9 has none.
#[test]
fn no_shared_memory_nothing_depends_on_order() {
    let o = order(
        "ps_4_0\n.output SV_Target 0 o0.xyzw float\ndcl_output o0.xyzw\nmov o0.xyzw, l(1.0, 1.0, 1.0, 1.0)\nret\n",
    );
    assert!(o.why(&Source::Register(0), 0).is_none());
}

/// The comparison end to end: a UAV of atomics' return values is left out, with why, even
/// where the two sides' values differ; the UAV of each thread's own element next to it is
/// still compared, and a deliberate error in it (two elements swapped) is reported.
#[test]
fn the_comparison_skips_only_what_depends_on_the_order() {
    use crate::diff::compare::compare;
    use crate::diff::outputs::{Output, Unit};
    use crate::diff::shader::ScalarKind;
    use crate::diff::tolerance::Analysis;
    let asm = cs(
        "8, 1, 1",
        "dcl_uav_raw u0\ndcl_uav_raw u1\ndcl_uav_raw u2",
        "imm_atomic_iadd r0.x, u2, l(0), l(1)\n\
         ishl r1.x, vThreadID.x, l(2)\n\
         imul null, r2.x, vThreadID.x, l(3)\n\
         store_raw u0.x, r1.x, r2.x\n\
         store_raw u1.x, r1.x, r0.x",
    );
    let bytes = translator::asm::assemble(&asm).expect("assembles");
    let s = shader::load(bytes).expect("loads");
    let o = Order::of(&s, &constant_buffers(&s, 1));
    let analysis = Analysis::of(&s);
    let out = |r: u32, data: Vec<u32>| Output {
        name: format!("u{r}"),
        source: Source::Uav {
            register: r,
            space: 0,
        },
        unit: Unit::Element,
        comps: 1,
        kinds: vec![ScalarKind::U32],
        mask: 1,
        data,
        unordered: None,
    };
    let own: Vec<u32> = (0..16).map(|t| 3 * t).collect();
    let count = vec![16];
    let ours = [
        out(0, own.clone()),
        out(1, (0..16).collect()),
        out(2, count.clone()),
    ];
    // The other side's threads came in another order.
    let theirs = [
        out(0, own.clone()),
        out(1, (0..16).rev().collect()),
        out(2, count.clone()),
    ];
    let c = compare(&ours, &theirs, &analysis, &o);
    assert_eq!(c.difference, None, "{c:?}");
    assert_eq!(c.values, 17, "u0's 16 elements and u2's count are compared");
    let skipped: Vec<&str> = c.not_compared.iter().map(|x| x.output.as_str()).collect();
    assert_eq!(skipped, ["u1"]);
    assert!(c.not_compared[0].why.contains("depends on the order"));

    let mut swapped = own.clone();
    swapped.swap(4, 5);
    let miscompiled = [out(0, swapped), ours[1].clone(), ours[2].clone()];
    let d = compare(&miscompiled, &theirs, &analysis, &o)
        .difference
        .expect("the swapped elements are a difference");
    assert_eq!((d.output.as_str(), d.element), ("u0", 4));
}

/// Within one UAV only the words that depend on the order are left out: a count of atomic
/// adds and each thread's own word are compared next to a word every thread exchanges into.
#[test]
fn only_the_racing_words_of_a_uav_are_left_out() {
    use crate::diff::compare::compare;
    use crate::diff::outputs::{Output, Unit};
    use crate::diff::shader::ScalarKind;
    use crate::diff::tolerance::Analysis;
    let asm = cs(
        "8, 1, 1",
        "dcl_uav_raw u0",
        "atomic_iadd u0, l(0), l(1)\n\
         imm_atomic_exch r0.x, u0, l(4), vThreadID.x\n\
         iadd r1.x, vThreadID.x, l(2)\n\
         ishl r1.x, r1.x, l(2)\n\
         store_raw u0.x, r1.x, vThreadID.x",
    );
    let bytes = translator::asm::assemble(&asm).expect("assembles");
    let s = shader::load(bytes).expect("loads");
    let o = Order::of(&s, &constant_buffers(&s, 1));
    let analysis = Analysis::of(&s);
    let out = |data: Vec<u32>| Output {
        name: "u0".into(),
        source: Source::Uav {
            register: 0,
            space: 0,
        },
        unit: Unit::Element,
        comps: 1,
        kinds: vec![ScalarKind::U32],
        mask: 1,
        data,
        unordered: None,
    };
    let ours: Vec<u32> = [16, 15].into_iter().chain(0..16).collect();
    let mut theirs = ours.clone();
    theirs[1] = 3; // another thread's exchange came last
    let c = compare(&[out(ours.clone())], &[out(theirs.clone())], &analysis, &o);
    assert_eq!(c.difference, None, "{c:?}");
    assert_eq!(c.values, 17, "the count and the 16 threads' own words");
    assert_eq!(c.not_compared.len(), 1);
    assert_eq!(
        (
            c.not_compared[0].output.as_str(),
            c.not_compared[0].elements
        ),
        ("u0", Some(1))
    );
    let mut wrong = theirs.clone();
    wrong[0] = 15; // a lost add
    let d = compare(&[out(ours)], &[out(wrong)], &analysis, &o)
        .difference
        .expect("the count is compared");
    assert_eq!(d.element, 0);
}
