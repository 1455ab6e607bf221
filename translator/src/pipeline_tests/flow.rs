//! Bounds on control flow (nesting, switch size, inlining) through the whole pipeline.

use crate::lower::MAX_FLOW_DEPTH;

const HEAD: &str = "ps_5_0\n.input SV_Position 0 v0 float POS\n.output SV_Target 0 o0 float\n\
    dcl_input_ps_siv linear noperspective v0.xy, position\ndcl_output o0.xyzw\n\
    dcl_temps 2\nmov r0.xyzw, v0.xyxy\n";

/// The message of an unsupported error, checking that it is at an instruction `opcode`.
fn unsupported(text: &str, opcode: &str) -> String {
    let dxbc = crate::asm::assemble(text).unwrap();
    match crate::translate(&dxbc, &crate::Options::default()) {
        Err(crate::Error::Lower(crate::lower::LowerError::Unsupported {
            what,
            opcode: at,
            ..
        })) => {
            assert_eq!(at, Some(opcode), "{what}");
            what
        }
        other => panic!("expected an unsupported error, got {other:?}"),
    }
}

fn nested_ifs(depth: usize) -> String {
    let mut t = String::from(HEAD);
    for _ in 0..depth {
        t.push_str("lt r1.x, r0.x, l(1.0)\nif_nz r1.x\nadd r0.x, r0.x, l(1.0)\n");
    }
    t.push_str(&"endif\n".repeat(depth));
    t.push_str("mov o0.xyzw, r0.xyzw\nret\n");
    t
}

#[test]
fn flow_nesting_is_bounded() {
    let ok = crate::asm::assemble(&nested_ifs(MAX_FLOW_DEPTH)).unwrap();
    assert!(crate::translate(&ok, &crate::Options::default()).is_ok());
    let e = unsupported(&nested_ifs(MAX_FLOW_DEPTH + 1), "if");
    assert!(e.contains("nested deeper than 256"), "{e}");
}

/// A pixel shader switching over `cases` cases (16384 or more go over SPIR-V's limits).
pub(super) fn switch_of(cases: usize) -> String {
    let mut t = String::from(HEAD);
    t.push_str("ftou r1.x, v0.x\nswitch r1.x\n");
    for i in 0..cases {
        t.push_str(&format!("case l({i})\nadd r0.x, r0.x, l({i}.0)\nbreak\n"));
    }
    t.push_str("default\nbreak\nendswitch\nmov o0.xyzw, r0.xyzw\nret\n");
    t
}

#[test]
fn switch_cases_within_spirv_limits() {
    let ok = crate::asm::assemble(&switch_of(16000)).unwrap();
    assert!(crate::translate(&ok, &crate::Options::default()).is_ok());
    // One more (literal, label) pair than an OpSwitch may hold (and as many predecessors
    // of the merge's phi).
    let dxbc = crate::asm::assemble(&switch_of(16384)).unwrap();
    match crate::translate(&dxbc, &crate::Options::default()) {
        Err(crate::Error::Emit(crate::emit::EmitError::TooLong { op, words })) => {
            assert!(matches!(op, spirv::Op::Switch | spirv::Op::Phi), "{op:?}");
            assert!(words > 2 * 16383, "{words}");
        }
        other => panic!("expected an over-long instruction, got {other:?}"),
    }
}

#[test]
fn inlining_is_bounded() {
    // label i calls label i + 1 twice: 2^24 copies of the last body without a bound.
    let mut t = String::from(HEAD);
    t.push_str("call label0\nmov o0.xyzw, r0.xyzw\nret\n");
    for i in 0..24 {
        t.push_str(&format!("label label{i}\nadd r0.x, r0.x, l(1.0)\n"));
        if i < 23 {
            t.push_str(&format!("call label{0}\ncall label{0}\n", i + 1));
        }
        t.push_str("ret\n");
    }
    let e = unsupported(&t, "call");
    assert!(e.contains("inlining of more than"), "{e}");
}

#[test]
fn a_long_chain_of_joins_is_read_without_recursion() {
    // 20,000 `if`s one after another, and then a read of r0, written before all of them: the
    // read walks back through every join. On a thread with a small stack: the walk must not
    // recurse per join.
    let mut t = String::from(HEAD);
    t.push_str("mov r1.xy, l(1.0, 0, 0, 0)\n");
    for _ in 0..20_000 {
        t.push_str("if_nz r1.x\nadd r1.y, r1.y, l(1.0)\nendif\n");
    }
    t.push_str("add r0.x, r0.x, r1.y\nmov o0.xyzw, r0.xyzw\nret\n");
    let dxbc = crate::asm::assemble(&t).unwrap();
    let out = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || crate::translate(&dxbc, &crate::Options::default()).map(|t| t.spirv.len()))
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert!(out.is_ok(), "{out:?}");
}

/// Translates `text` (the SPIR-V must pass spirv-val) and returns its lowered module.
fn lowered_valid(text: &str) -> crate::ir::Module {
    let dxbc = crate::asm::assemble(text).unwrap();
    let t = crate::translate(&dxbc, &crate::Options::default()).unwrap();
    super::validate(&t.spirv);
    crate::translate::lower_container(&dxbc, &crate::Options::default()).unwrap()
}

#[test]
fn switch_cases_take_the_blocks_left_after_a_jump() {
    // Entry, join, the four cases' blocks (case 0 takes the block after `switch`, the others
    // the blocks after each `break`), and the unreachable blocks after the last `break` and
    // after `ret` (twelve when each case began a block of its own).
    let blocks = |text: &str| lowered_valid(text).functions[0].blocks.len();
    assert_eq!(blocks(&switch_of(3)), 8);
    // Code after a `break` (never run) keeps its block: the next case gets a fresh one.
    let dead = switch_of(3).replacen(
        "break\ncase l(1)",
        "break\nadd r0.x, r0.x, l(5.0)\ncase l(1)",
        1,
    );
    assert_ne!(dead, switch_of(3));
    assert_eq!(blocks(&dead), 9);
}

/// The default and the cases of the (first) switch of `m`'s entry function.
fn switch_targets(m: &crate::ir::Module) -> (crate::ir::BlockId, Vec<(u32, crate::ir::BlockId)>) {
    let f = &m.functions[0];
    match f
        .layout
        .iter()
        .map(|&b| &f.block(b).term)
        .find(|t| matches!(t, crate::ir::Terminator::Switch { .. }))
    {
        Some(crate::ir::Terminator::Switch { default, cases, .. }) => (*default, cases.clone()),
        _ => panic!("no switch"),
    }
}

#[test]
fn a_repeated_case_value_goes_to_its_first_label() {
    // SPIR-V refuses an OpSwitch with a literal twice; the first label of a value wins (below
    // sixteen cases by a search of the cases, beyond by a set of the values), and the first
    // `default` (D3D allows one). A label that wins nothing adds no edge: its block is reached
    // only by falling into it, here not at all.
    let switch_cases = |text: &str| switch_targets(&lowered_valid(text));
    for cases in [3, 20] {
        let (_, got) = switch_cases(&switch_of(cases).replace(
            "default\nbreak\nendswitch",
            "case l(1)\nadd r0.x, r0.x, l(100.0)\nbreak\ndefault\nbreak\nendswitch",
        ));
        assert_eq!(got.len(), cases, "{got:?}");
        let mut values: Vec<u32> = got.iter().map(|c| c.0).collect();
        values.sort_unstable();
        values.dedup();
        assert_eq!(values.len(), cases);
        // Value 1 goes to the block of the first `case l(1)`, made before any later label's.
        let one = got.iter().find(|c| c.0 == 1).unwrap().1;
        assert!(got.iter().all(|c| c.0 == 1 || c.1 != one));
        assert!(one.0 < got.iter().map(|c| c.1.0).max().unwrap());
        // A repeated value beside a new one: the new one still reaches the shared block.
        let (_, got) = switch_cases(&switch_of(cases).replace(
            "default\nbreak\nendswitch",
            "case l(1)\ncase l(99)\nadd r0.x, r0.x, l(100.0)\nbreak\ndefault\nbreak\nendswitch",
        ));
        assert_eq!(got.len(), cases + 1, "{got:?}");
        let ninety_nine = got.iter().find(|c| c.0 == 99).unwrap().1;
        let one = got.iter().find(|c| c.0 == 1).unwrap().1;
        assert_ne!(ninety_nine, one);
    }
    // Two defaults: the first is the switch's.
    let m = lowered_valid(&switch_of(3).replace(
        "default\nbreak\nendswitch",
        "default\nadd r0.x, r0.x, l(7.0)\nbreak\ndefault\nbreak\nendswitch",
    ));
    let (default, _) = switch_targets(&m);
    let f = &m.functions[0];
    // The default's block adds 7.0 (the second `default`'s adds nothing).
    let adds_seven = f.block(default).insts.iter().any(|&v| {
        let i = f.inst(v);
        i.op == spirv::Op::FAdd
            && i.args.iter().any(|&a| {
                matches!(a, crate::ir::Operand::Const(c)
                    if m.consts.scalar_bits(c) == Some(7.0f32.to_bits() as u64))
            })
    });
    assert!(adds_seven, "default B{}", default.0);
}

/// The SM4 lowering claims plain flow (`Function::plain_flow`) for nested `if`s and
/// `switch`es, with `break`, `breakc`, `ret`, `retc` and `discard` among them, and the
/// structurizer's shortcut for it gives what its general path finds; a loop, a case falling
/// through and a subroutine call make no claim.
/// Plain flow in a loop: a join the program states that is the loop's merge (here, made so by
/// hand: the `if` that breaks names the loop's exit as its join) cannot merge the `if` too. The
/// claim is not taken, and the result is the general path's.
#[test]
fn a_plain_join_that_is_a_loops_merge_takes_the_general_path() {
    let text = format!(
        "{HEAD}mov r1.x, l(0)\nloop\nuge r1.y, r1.x, l(4)\nif_nz r1.y\nbreak\nendif\n\
         iadd r1.x, r1.x, l(1)\nendloop\nmov o0.xyzw, r0.xyzw\nret\n"
    );
    let mut f = lowered_valid(&text).functions.remove(0);
    assert!(f.plain_flow);
    let exit = f
        .blocks
        .iter()
        .find_map(|b| b.loop_exit)
        .expect("a loop header");
    let header = (0..f.blocks.len() as u32)
        .map(crate::ir::BlockId)
        .find(|&b| {
            matches!(f.block(b).term, crate::ir::Terminator::CondBranch { .. })
                && f.block(b).join.is_some()
        })
        .expect("the if");
    f.block_mut(header).join = Some(exit);
    let mut general = f.clone();
    general.plain_flow = false;
    crate::passes::structurize::structurize(&mut f).unwrap();
    crate::passes::structurize::structurize(&mut general).unwrap();
    assert_ne!(
        f.block(header).merge,
        crate::ir::Merge::Selection(exit),
        "the loop's merge taken as the if's"
    );
    assert_eq!(f.blocks, general.blocks);
    assert_eq!(f.layout, general.layout);
}

/// In a loop, plain flow's joins are taken as they are stated: what the structurizer does not
/// check is trusted (the general path, which `DXBC_VALIDATE_IR` and debug builds run beside it,
/// is what checks the front end). Stating the `if`'s then-arm as its join, which passes the
/// cheap checks, shows it: that arm becomes the merge, where the general path finds the join;
/// and where the general path runs beside it, the misstated join is an internal error.
#[test]
fn plain_flow_in_a_loop_takes_the_stated_join() {
    let text = format!(
        "{HEAD}mov r1.x, l(0)\nloop\nuge r1.y, r1.x, l(4)\nif_nz r1.y\nadd r0.x, r0.x, l(1.0)\n\
         endif\niadd r1.x, r1.x, l(1)\nuge r1.y, r1.x, l(8)\nbreakc_nz r1.y\nendloop\n\
         mov o0.xyzw, r0.xyzw\nret\n"
    );
    use crate::ir::{BlockId, Merge, Terminator};
    let mut f = lowered_valid(&text).functions.remove(0);
    // The `if` opens the loop's first block (split from the loop header when structurized).
    let lowered_header = (0..f.blocks.len() as u32)
        .map(BlockId)
        .find(|&b| f.block(b).loop_exit.is_some())
        .expect("the loop");
    let Terminator::CondBranch { on_true, .. } = f.block(lowered_header).term else {
        panic!("the if's branch in the loop's first block")
    };
    let stated = f.block(lowered_header).join.expect("the if's join");
    let merge_of_if = |f: &crate::ir::Function| {
        let h = (0..f.blocks.len() as u32)
            .map(BlockId)
            .find(|&b| matches!(f.block(b).term, Terminator::CondBranch { on_true: t, .. } if t == on_true))
            .expect("the if after structurizing");
        f.block(h).merge
    };
    let mut general = f.clone();
    general.plain_flow = false;
    crate::passes::structurize::structurize(&mut general).unwrap();
    assert_eq!(merge_of_if(&general), Merge::Selection(stated));
    f.block_mut(lowered_header).join = Some(on_true);
    let result = crate::passes::structurize::structurize(&mut f);
    if crate::passes::checking() {
        let Err(crate::passes::PassError::Internal { what, .. }) = result else {
            panic!("the general path accepted a misstated join: {result:?}")
        };
        assert!(what.contains("stated joins"), "{what}");
    } else {
        result.unwrap();
        assert_eq!(merge_of_if(&f), Merge::Selection(on_true));
    }
}

#[test]
fn plain_flow_is_claimed_for_nested_ifs_switches_and_loops() {
    let program = |body: &str| format!("{HEAD}{body}\nmov o0.xyzw, r0.xyzw\nret\n");
    let plain = [
        "lt r1.x, r0.x, l(1.0)\nif_nz r1.x\nif_z r1.x\nmov r0.x, l(2.0)\nelse\nret\nendif\nelse\n\
         mov r0.y, l(3.0)\nendif",
        "ftoi r1.x, r0.x\nswitch r1.x\ncase l(0)\nif_nz r1.x\nbreak\nendif\nmov r0.x, l(1.0)\n\
         break\ncase l(1)\ncase l(2)\nbreakc_nz r1.x\nretc_z r1.x\nmov r0.y, l(1.0)\nbreak\n\
         default\nswitch r1.x\ncase l(3)\ndiscard_nz r1.x\nbreak\ndefault\nret\nendswitch\n\
         break\nendswitch",
        "lt r1.x, r0.x, l(1.0)\nif_nz r1.x\nret\nelse\nret\nendif\nmov r0.x, l(5.0)",
        // Loops: an exit test at the top (the header keeps its branch), `if`s that break and
        // continue, a nested loop, a switch inside a loop, a loop whose way back is dead.
        "mov r1.x, l(0)\nloop\nbreakc_nz r1.x\nmov r1.x, l(1)\nendloop",
        "mov r1.x, l(0)\nloop\nuge r1.y, r1.x, l(4)\nif_nz r1.y\nbreak\nendif\niadd r1.x, r1.x, l(1)\n\
         and r1.y, r1.x, l(1)\nif_nz r1.y\ncontinue\nendif\nadd r0.x, r0.x, l(1.0)\nendloop",
        "mov r1.x, l(0)\nloop\nuge r1.y, r1.x, l(3)\nbreakc_nz r1.y\nmov r1.z, l(0)\nloop\n\
         uge r1.w, r1.z, r1.x\nbreakc_nz r1.w\nadd r0.y, r0.y, l(1.0)\niadd r1.z, r1.z, l(1)\n\
         endloop\niadd r1.x, r1.x, l(1)\nendloop",
        "mov r1.x, l(0)\nloop\nswitch r1.x\ncase l(0)\nmov r0.x, l(1.0)\nbreak\ncase l(1)\n\
         continuec_nz r1.x\nbreak\ndefault\nretc_nz r1.x\nbreak\nendswitch\niadd r1.x, r1.x, l(1)\n\
         uge r1.y, r1.x, l(3)\nbreakc_nz r1.y\nendloop",
        "loop\nlt r1.x, r0.x, l(1.0)\nif_nz r1.x\nbreak\nelse\nret\nendif\nendloop",
    ];
    let irregular = [
        "ftoi r1.x, r0.x\nswitch r1.x\ncase l(0)\nmov r0.x, l(1.0)\ncase l(1)\nmov r0.y, l(1.0)\n\
         break\nendswitch",
    ];
    for body in plain {
        let mut f = lowered_valid(&program(body)).functions.remove(0);
        assert!(f.plain_flow, "{body}");
        let mut general = f.clone();
        general.plain_flow = false;
        let dom = crate::passes::structurize::structurize(&mut f).unwrap();
        let general_dom = crate::passes::structurize::structurize(&mut general).unwrap();
        assert_eq!(f.blocks, general.blocks, "{body}");
        assert_eq!(f.layout, general.layout, "{body}");
        for b in 0..f.blocks.len() as u32 {
            let b = crate::ir::BlockId(b);
            assert_eq!(dom.idom(b), general_dom.idom(b), "{body}");
        }
    }
    for body in irregular {
        assert!(
            !lowered_valid(&program(body)).functions[0].plain_flow,
            "{body}"
        );
    }
    let call = format!(
        "{HEAD}call label0\nmov o0.xyzw, r0.xyzw\nret\nlabel label0\nmov r0.x, l(1.0)\nret\n"
    );
    assert!(!lowered_valid(&call).functions[0].plain_flow);
}
