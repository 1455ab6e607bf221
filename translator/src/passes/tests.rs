//! IR-level tests of the passes: small functions built with `ir::builder`, run through the
//! pipeline up to the pass under test (validated after each pass), and checked for what that
//! pass must have done to the IR.

use spirv::{Op, StorageClass};

use super::{PIPELINE, PassCx, Scratch};
use crate::ir::builder::FnBuilder;
use crate::ir::validate::validate_function;
use crate::ir::{BlockId, Const, Function, GlobalId, Module, Operand, Terminator, TypeId, ValueId};
use crate::reflect::ShaderStage;

/// A pixel-stage module with a `u32` and an `f32` input and two outputs of each.
struct Fixture {
    m: Module,
    in_u: GlobalId,
    in_f: GlobalId,
    out_u: [GlobalId; 2],
    out_f: [GlobalId; 2],
}

fn fixture() -> Fixture {
    let mut m = Module::new(ShaderStage::Pixel);
    let in_u = m.add_global(TypeId::U32, StorageClass::Input, None);
    let in_f = m.add_global(TypeId::F32, StorageClass::Input, None);
    let out_u = [0, 1].map(|_| m.add_global(TypeId::U32, StorageClass::Output, None));
    let out_f = [0, 1].map(|_| m.add_global(TypeId::F32, StorageClass::Output, None));
    Fixture {
        m,
        in_u,
        in_f,
        out_u,
        out_f,
    }
}

/// Builds the entry function with `body` and adds it to the module.
fn build(fx: &mut Fixture, body: impl FnOnce(&mut FnBuilder<'_>, &Fixture)) {
    let mut m = std::mem::replace(&mut fx.m, Module::new(ShaderStage::Pixel));
    let mut b = FnBuilder::new(&mut m, 32);
    body(&mut b, fx);
    if b.is_open() {
        b.terminate(Terminator::Return);
    }
    let f = b.finish();
    m.functions.push(f);
    fx.m = m;
}

/// Runs the pipeline's passes from `first` to `last` (inclusive), validating after each.
fn run(m: &mut Module, first: &str, last: &str) {
    let pos = |name: &str| {
        PIPELINE
            .iter()
            .position(|p| p.0 == name)
            .unwrap_or_else(|| panic!("no pass {name}"))
    };
    let mut f = m.functions.pop().expect("one function");
    let mut dom = None;
    let mut scratch = Scratch::default();
    for &(name, stage, pass) in &PIPELINE[pos(first)..=pos(last)] {
        let mut cx = PassCx {
            types: &mut m.types,
            consts: &mut m.consts,
            globals: &m.globals,
            dom: &mut dom,
            scratch: &mut scratch,
        };
        pass(&mut f, &mut cx).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(e) = validate_function(m, &f, 0, stage) {
            panic!("after {name}: {e}\n{}", dump(&f));
        }
    }
    m.functions.push(f);
}

/// Runs the pipeline from its start up to and including `last`.
fn run_until(m: &mut Module, last: &str) {
    run(m, PIPELINE[0].0, last);
}

fn dump(f: &Function) -> String {
    let mut s = String::new();
    let _ = crate::ir::display::write_function(&mut s, f);
    s
}

/// The placed instructions of `f` with opcode `op`.
fn placed(f: &Function, op: Op) -> Vec<ValueId> {
    f.layout
        .iter()
        .flat_map(|&b| f.block(b).insts.iter().copied())
        .filter(|&v| f.inst(v).op == op)
        .collect()
}

/// The value stored to global `g` (the one store of it).
fn stored_to(f: &Function, g: GlobalId) -> Operand {
    let stores: Vec<Operand> = placed(f, Op::Store)
        .into_iter()
        .filter(|&v| f.inst(v).args[0] == Operand::Global(g))
        .map(|v| f.inst(v).args[1])
        .collect();
    assert_eq!(stores.len(), 1, "stores of g{}:\n{}", g.0, dump(f));
    stores[0]
}

/// if (in_u != 0) x = a else x = b; out_u[0] = x — with `a` and `b` made in their branches.
fn diamond(
    b: &mut FnBuilder<'_>,
    fx: &Fixture,
    then_value: impl FnOnce(&mut FnBuilder<'_>) -> Operand,
    else_value: impl FnOnce(&mut FnBuilder<'_>) -> Operand,
) -> Operand {
    let x = b.f.new_var(TypeId::U32);
    let u = b.load_global(fx.in_u);
    let zero = b.u32c(0);
    let cond = b.op(Op::INotEqual, TypeId::BOOL, &[u, zero]);
    let entry = b.current();
    let (t, e, j) = (b.new_block(), b.new_block(), b.new_block());
    b.terminate(Terminator::CondBranch {
        cond,
        on_true: t,
        on_false: e,
    });
    b.f.block_mut(entry).join = Some(j);
    b.begin(t);
    let a = then_value(b);
    b.store_var(x, a);
    b.terminate(Terminator::Branch(j));
    b.begin(e);
    let c = else_value(b);
    b.store_var(x, c);
    b.terminate(Terminator::Branch(j));
    b.begin(j);
    b.load_var(x)
}

fn block_of(f: &Function, v: ValueId) -> BlockId {
    *f.layout
        .iter()
        .find(|&&b| f.block(b).insts.contains(&v))
        .expect("placed")
}

/// The phis of `f`'s placed instructions.
fn phis(f: &Function) -> Vec<ValueId> {
    placed(f, Op::Phi)
}

/// Whether any placed instruction of `f` still names a register variable.
fn uses_vars(f: &Function) -> bool {
    f.layout.iter().any(|&b| {
        f.block(b)
            .insts
            .iter()
            .any(|&v| f.inst(v).args.iter().any(|a| matches!(a, Operand::Var(_))))
    })
}

#[test]
fn lowering_makes_a_phi_at_the_join() {
    let mut fx = fixture();
    build(&mut fx, |b, fx| {
        let x = diamond(b, fx, |b| b.u32c(1), |b| b.u32c(2));
        b.op_void(Op::Store, &[Operand::Global(fx.out_u[0]), x]);
    });
    let f = &fx.m.functions[0];
    assert!(!uses_vars(f) && f.vars.is_empty(), "{}", dump(f));
    let p = phis(f);
    assert_eq!(p.len(), 1, "{}", dump(f));
    let phi = f.inst(p[0]);
    // (value, parent) pairs: the constants 1 and 2, one from each branch.
    let values: Vec<u32> = phi
        .args
        .chunks(2)
        .map(
            |p| match fx.m.consts.get(p[0].konst().expect("a constant")) {
                Const::Scalar { bits, .. } => *bits as u32,
                c => panic!("{c:?}"),
            },
        )
        .collect();
    assert_eq!(values.len(), 2);
    assert!(values.contains(&1) && values.contains(&2), "{values:?}");
    // The store reads the phi through its view, which the simplifier folds away.
    run_until(&mut fx.m, "simplify");
    let f = &fx.m.functions[0];
    assert_eq!(stored_to(f, fx.out_u[0]), Operand::Value(phis(f)[0]));
}

#[test]
fn a_phi_takes_the_type_of_the_values_it_carries() {
    let mut fx = fixture();
    build(&mut fx, |b, fx| {
        let fin = fx.in_f;
        let x = diamond(
            b,
            fx,
            |b| {
                let v = b.load_global(fin);
                let one = b.f32c(1.0);
                let s = b.op(Op::FAdd, TypeId::F32, &[v, one]);
                b.bitcast(TypeId::U32, s)
            },
            |b| {
                let v = b.load_global(fin);
                let two = b.f32c(2.0);
                let p = b.op(Op::FMul, TypeId::F32, &[v, two]);
                b.bitcast(TypeId::U32, p)
            },
        );
        let xf = b.bitcast(TypeId::F32, x);
        b.op_void(Op::Store, &[Operand::Global(fx.out_f[0]), xf]);
    });
    let f = &fx.m.functions[0];
    let p = phis(f);
    assert_eq!(p.len(), 1);
    assert_eq!(f.inst(p[0]).ty, TypeId::F32, "{}", dump(f));
    // The phi's inputs are the float results themselves, not bitcasts of them.
    for pair in f.inst(p[0]).args.chunks(2) {
        let v = pair[0].value().expect("a value");
        assert!(
            matches!(f.inst(v).op, Op::FAdd | Op::FMul),
            "{:?}",
            f.inst(v).op
        );
    }
    // The float store reads the phi itself once the simplifier has run.
    run_until(&mut fx.m, "simplify");
    let f = &fx.m.functions[0];
    assert_eq!(stored_to(f, fx.out_f[0]), Operand::Value(phis(f)[0]));
}

#[test]
fn phis_of_disagreeing_types_keep_the_register_type() {
    // One arm writes a float, the other an integer: the phi stays u32 and each input is
    // bitcast at the end of its arm.
    let mut fx = fixture();
    build(&mut fx, |b, fx| {
        let (fin, uin) = (fx.in_f, fx.in_u);
        let x = diamond(
            b,
            fx,
            |b| {
                let v = b.load_global(fin);
                let one = b.f32c(1.0);
                b.op(Op::FAdd, TypeId::F32, &[v, one])
            },
            |b| {
                let v = b.load_global(uin);
                let one = b.i32c(1);
                let vi = b.bitcast(TypeId::I32, v);
                b.op(Op::IAdd, TypeId::I32, &[vi, one])
            },
        );
        b.op_void(Op::Store, &[Operand::Global(fx.out_u[0]), x]);
    });
    let f = &fx.m.functions[0];
    let p = phis(f);
    assert_eq!(p.len(), 1);
    assert_eq!(f.inst(p[0]).ty, TypeId::U32, "{}", dump(f));
    for pair in f.inst(p[0]).args.chunks(2) {
        let v = pair[0].value().expect("a value");
        let from = pair[1].block().expect("a block");
        assert_eq!(f.inst(v).op, Op::Bitcast, "{}", dump(f));
        assert_eq!(block_of(f, v), from, "{}", dump(f));
    }
    run_until(&mut fx.m, "dce");
}

/// `x = 0; loop { if (x >= in_u) break; x = x + 1 }; out_u[0] = x` with `y` set before the
/// loop and only read in it (`out_u[1] = y` each trip).
fn counting_loop(b: &mut FnBuilder<'_>, fx: &Fixture) {
    let x = b.f.new_var(TypeId::U32);
    let y = b.f.new_var(TypeId::U32);
    let zero = b.u32c(0);
    b.store_var(x, zero);
    let u = b.load_global(fx.in_u);
    b.store_var(y, u);
    let (header, body, exit) = (b.new_block(), b.new_block(), b.new_block());
    b.begin_loop(header, exit);
    let xv = b.load_var(x);
    let done = b.op(Op::UGreaterThanEqual, TypeId::BOOL, &[xv, u]);
    b.terminate(Terminator::CondBranch {
        cond: done,
        on_true: exit,
        on_false: body,
    });
    b.f.block_mut(header).join = Some(body);
    b.begin(body);
    let yv = b.load_var(y);
    b.op_void(Op::Store, &[Operand::Global(fx.out_u[1]), yv]);
    let xv = b.load_var(x);
    let one = b.u32c(1);
    let next = b.op(Op::IAdd, TypeId::U32, &[xv, one]);
    b.store_var(x, next);
    b.terminate(Terminator::Branch(header));
    b.begin(exit);
    let xv = b.load_var(x);
    b.op_void(Op::Store, &[Operand::Global(fx.out_u[0]), xv]);
}

#[test]
fn a_loop_header_gets_a_phi_only_for_what_the_loop_changes() {
    let mut fx = fixture();
    build(&mut fx, counting_loop);
    let f = &fx.m.functions[0];
    // x changes in the loop: one phi in the header, 0 from before and x + 1 from the body.
    // y does not: its phi was dropped and the body reads the value from before the loop.
    let p = phis(f);
    assert_eq!(p.len(), 1, "{}", dump(f));
    assert_eq!(block_of(f, p[0]), BlockId(1));
    let inputs: Vec<Operand> = f.inst(p[0]).args.chunks(2).map(|x| x[0]).collect();
    assert!(inputs.contains(&Operand::Const(fx.m.consts.scalar(TypeId::U32, 0))));
    assert!(
        inputs
            .iter()
            .any(|i| i.value().is_some_and(|v| f.inst(v).op == Op::IAdd)),
        "{}",
        dump(f)
    );
    run_until(&mut fx.m, "dce");
    let f = &fx.m.functions[0];
    let loaded = placed(f, Op::Load)[0];
    assert_eq!(stored_to(f, fx.out_u[1]), Operand::Value(loaded));
    assert_eq!(stored_to(f, fx.out_u[0]), Operand::Value(phis(f)[0]));
}

#[test]
fn the_continue_block_merges_the_values_of_several_back_edges() {
    // loop { x = x + 1; if (x == in_u) continue; x = x + 2 } with a break on x > 100:
    // two back edges, which the structurizer sends through one continue block, whose phi
    // chooses between x + 1 and x + 3.
    let mut fx = fixture();
    build(&mut fx, |b, fx| {
        let x = b.f.new_var(TypeId::U32);
        let u = b.load_global(fx.in_u);
        let (header, exit) = (b.new_block(), b.new_block());
        b.begin_loop(header, exit);
        let xv = b.load_var(x);
        let hundred = b.u32c(100);
        let big = b.op(Op::UGreaterThan, TypeId::BOOL, &[xv, hundred]);
        let go = b.new_block();
        b.terminate(Terminator::CondBranch {
            cond: big,
            on_true: exit,
            on_false: go,
        });
        b.f.block_mut(header).join = Some(go);
        b.begin(go);
        let one = b.u32c(1);
        let x1 = b.op(Op::IAdd, TypeId::U32, &[xv, one]);
        b.store_var(x, x1);
        let eq = b.op(Op::IEqual, TypeId::BOOL, &[x1, u]);
        let rest = b.new_block();
        b.terminate(Terminator::CondBranch {
            cond: eq,
            on_true: header,
            on_false: rest,
        });
        b.f.block_mut(go).join = Some(rest);
        b.begin(rest);
        let two = b.u32c(2);
        let x3 = b.op(Op::IAdd, TypeId::U32, &[x1, two]);
        b.store_var(x, x3);
        b.terminate(Terminator::Branch(header));
        b.begin(exit);
        let xv = b.load_var(x);
        b.op_void(Op::Store, &[Operand::Global(fx.out_u[0]), xv]);
    });
    run_until(&mut fx.m, "dce");
    let f = &fx.m.functions[0];
    let cont = f
        .layout
        .iter()
        .find_map(|&b| match f.block(b).merge {
            crate::ir::Merge::Loop {
                continue_target, ..
            } => Some(continue_target),
            _ => None,
        })
        .expect("a loop");
    let in_cont: Vec<ValueId> = phis(f)
        .into_iter()
        .filter(|&p| block_of(f, p) == cont)
        .collect();
    assert_eq!(in_cont.len(), 1, "{}", dump(f));
    assert_eq!(f.inst(in_cont[0]).args.len(), 4, "{}", dump(f));
}

#[test]
fn simplify_folds_constants_and_bitcast_round_trips() {
    let mut fx = fixture();
    build(&mut fx, |b, fx| {
        let (two, three) = (b.u32c(2), b.u32c(3));
        let sum = b.op(Op::IAdd, TypeId::U32, &[two, three]);
        b.op_void(Op::Store, &[Operand::Global(fx.out_u[0]), sum]);
        let u = b.load_global(fx.in_u);
        let as_f = b.op(Op::Bitcast, TypeId::F32, &[u]);
        let back = b.op(Op::Bitcast, TypeId::U32, &[as_f]);
        b.op_void(Op::Store, &[Operand::Global(fx.out_u[1]), back]);
    });
    run_until(&mut fx.m, "structurize");
    let f = &fx.m.functions[0];
    assert_eq!(placed(f, Op::IAdd).len(), 1);
    run(&mut fx.m, "simplify", "simplify");
    let f = &fx.m.functions[0];
    let five = fx.m.consts.u32(5);
    assert_eq!(
        stored_to(f, fx.out_u[0]),
        Operand::Const(five),
        "{}",
        dump(f)
    );
    let load = placed(f, Op::Load);
    assert_eq!(load.len(), 1);
    assert_eq!(
        stored_to(f, fx.out_u[1]),
        Operand::Value(load[0]),
        "{}",
        dump(f)
    );
}

#[test]
fn cse_merges_repeated_pure_instructions() {
    let mut fx = fixture();
    build(&mut fx, |b, fx| {
        let v = b.load_global(fx.in_f);
        let one = b.f32c(1.0);
        let s1 = b.op(Op::FAdd, TypeId::F32, &[v, one]);
        let s2 = b.op(Op::FAdd, TypeId::F32, &[v, one]);
        b.op_void(Op::Store, &[Operand::Global(fx.out_f[0]), s1]);
        b.op_void(Op::Store, &[Operand::Global(fx.out_f[1]), s2]);
    });
    run_until(&mut fx.m, "simplify");
    assert_eq!(placed(&fx.m.functions[0], Op::FAdd).len(), 2);
    run(&mut fx.m, "cse", "cse");
    let f = &fx.m.functions[0];
    let adds = placed(f, Op::FAdd);
    assert_eq!(adds.len(), 1, "{}", dump(f));
    assert_eq!(stored_to(f, fx.out_f[0]), Operand::Value(adds[0]));
    assert_eq!(stored_to(f, fx.out_f[1]), Operand::Value(adds[0]));
}

#[test]
fn dce_removes_unused_values_and_keeps_stores() {
    let mut fx = fixture();
    build(&mut fx, |b, fx| {
        let v = b.load_global(fx.in_f);
        let two = b.f32c(2.0);
        b.op(Op::FMul, TypeId::F32, &[v, two]); // unused
        let one = b.f32c(1.0);
        let s = b.op(Op::FAdd, TypeId::F32, &[v, one]);
        b.op_void(Op::Store, &[Operand::Global(fx.out_f[0]), s]);
    });
    run_until(&mut fx.m, "cse");
    assert_eq!(placed(&fx.m.functions[0], Op::FMul).len(), 1);
    run(&mut fx.m, "dce", "dce");
    let f = &fx.m.functions[0];
    assert!(placed(f, Op::FMul).is_empty(), "{}", dump(f));
    let adds = placed(f, Op::FAdd);
    assert_eq!(adds.len(), 1);
    assert_eq!(stored_to(f, fx.out_f[0]), Operand::Value(adds[0]));
    assert_eq!(block_of(f, adds[0]), f.entry());
}

#[test]
fn structurize_keeps_a_returning_entry_block_alone() {
    // Straight-line code as lowering leaves it: the entry block returns, and the block begun
    // after the `ret` is dead.
    let mut fx = fixture();
    build(&mut fx, |b, fx| {
        let u = b.load_global(fx.in_u);
        b.op_void(Op::Store, &[Operand::Global(fx.out_u[0]), u]);
        b.terminate(Terminator::Return);
        let dead = b.new_block();
        b.begin(dead);
        b.terminate(Terminator::Unreachable);
    });
    assert_eq!(fx.m.functions[0].layout.len(), 2);
    run_until(&mut fx.m, "structurize");
    let f = &fx.m.functions[0];
    assert_eq!(f.layout, vec![BlockId(0)], "{}", dump(f));
    assert!(matches!(f.block(BlockId(0)).term, Terminator::Return));
    assert!(matches!(f.block(BlockId(0)).merge, crate::ir::Merge::None));
}

/// A switch on `in_u` with cases 0 → A, 1 → B, 2 → C and the join as default, where `wire`
/// ends A, B and C (given the three blocks and the join). Returns the blocks (A, B, C).
fn switch_with(
    fx: &mut Fixture,
    wire: impl FnOnce(&mut FnBuilder<'_>, [BlockId; 3], BlockId),
) -> [BlockId; 3] {
    let mut blocks = [BlockId(0); 3];
    build(fx, |b, fx| {
        let u = b.load_global(fx.in_u);
        let entry = b.current();
        let cases = [b.new_block(), b.new_block(), b.new_block()];
        let join = b.new_block();
        b.terminate(Terminator::Switch {
            selector: u,
            default: join,
            cases: vec![(0, cases[0]), (1, cases[1]), (2, cases[2])],
        });
        b.f.block_mut(entry).join = Some(join);
        wire(b, cases, join);
        b.begin(join);
        b.op_void(Op::Store, &[Operand::Global(fx.out_u[0]), u]);
        blocks = cases;
    });
    blocks
}

#[test]
fn structurize_puts_a_switch_case_before_the_case_it_falls_into() {
    // B falls through into A: SPIR-V wants B listed right before A.
    let mut fx = fixture();
    let [a, bb, c] = switch_with(&mut fx, |b, [a, bb, c], join| {
        b.begin(bb);
        b.terminate(Terminator::Branch(a));
        b.begin(a);
        b.terminate(Terminator::Branch(join));
        b.begin(c);
        b.terminate(Terminator::Branch(join));
    });
    run_until(&mut fx.m, "structurize");
    let f = &fx.m.functions[0];
    let Terminator::Switch { cases, .. } = &f.block(f.entry()).term else {
        panic!("no switch:\n{}", dump(f));
    };
    assert_eq!(cases, &vec![(1, bb), (0, a), (2, c)], "{}", dump(f));
}

/// `switch in_u { case 0: if (c) { break } else { } ; out_u[0] = 1; break; case 1: if (c) {
/// ret } else { ret } (dead code after) ; break } ; out_u[1] = in_u` as the SM4 lowering
/// builds it (a join per construct, dead blocks after `break` and `ret`), with plain flow
/// claimed when `plain`. Returns (switch join, the `if` headers and their joins).
fn plain_switch(fx: &mut Fixture, plain: bool) -> (BlockId, [(BlockId, BlockId); 2]) {
    let mut out = (BlockId(0), [(BlockId(0), BlockId(0)); 2]);
    build(fx, |b, fx| {
        let u = b.load_global(fx.in_u);
        let zero = b.u32c(0);
        let cond = b.op(Op::INotEqual, TypeId::BOOL, &[u, zero]);
        let entry = b.current();
        let (case0, case1, exit) = (b.new_block(), b.new_block(), b.new_block());
        b.terminate(Terminator::Switch {
            selector: u,
            default: exit,
            cases: vec![(0, case0), (1, case1)],
        });
        b.f.block_mut(entry).join = Some(exit);
        // case 0: the then-arm breaks; the join is reached from the else-arm.
        b.begin(case0);
        let (t0, e0, j0) = (b.new_block(), b.new_block(), b.new_block());
        b.terminate(Terminator::CondBranch {
            cond,
            on_true: t0,
            on_false: e0,
        });
        b.f.block_mut(case0).join = Some(j0);
        b.begin(t0);
        b.terminate(Terminator::Branch(exit));
        let dead = b.new_block();
        b.begin(dead);
        b.terminate(Terminator::Branch(j0));
        b.begin(e0);
        b.terminate(Terminator::Branch(j0));
        b.begin(j0);
        let one = b.u32c(1);
        b.op_void(Op::Store, &[Operand::Global(fx.out_u[0]), one]);
        b.terminate(Terminator::Branch(exit));
        // case 1: both arms return, so nothing reaches the join.
        b.begin(case1);
        let (t1, e1, j1) = (b.new_block(), b.new_block(), b.new_block());
        b.terminate(Terminator::CondBranch {
            cond,
            on_true: t1,
            on_false: e1,
        });
        b.f.block_mut(case1).join = Some(j1);
        for arm in [t1, e1] {
            b.begin(arm);
            b.terminate(Terminator::Return);
            let dead = b.new_block();
            b.begin(dead);
            b.terminate(Terminator::Branch(j1));
        }
        b.begin(j1);
        b.op_void(Op::Store, &[Operand::Global(fx.out_u[0]), u]);
        b.terminate(Terminator::Branch(exit));
        b.begin(exit);
        b.op_void(Op::Store, &[Operand::Global(fx.out_u[1]), u]);
        out = (exit, [(case0, j0), (case1, j1)]);
    });
    fx.m.functions[0].plain_flow = plain;
    out
}

#[test]
fn plain_flow_takes_the_stated_joins_as_merges() {
    let mut fx = fixture();
    let (exit, ifs) = plain_switch(&mut fx, true);
    let mut general = fx.m.functions[0].clone();
    general.plain_flow = false;
    run_until(&mut fx.m, "structurize");
    let f = &fx.m.functions[0];
    use crate::ir::Merge;
    assert_eq!(
        f.block(f.entry()).merge,
        Merge::Selection(exit),
        "{}",
        dump(f)
    );
    for (header, join) in ifs {
        assert_eq!(f.block(header).merge, Merge::Selection(join), "{}", dump(f));
    }
    // The join nothing reaches is an empty unreachable merge, laid out after its construct.
    let j1 = ifs[1].1;
    assert!(
        matches!(f.block(j1).term, Terminator::Unreachable),
        "{}",
        dump(f)
    );
    assert!(f.block(j1).insts.is_empty(), "{}", dump(f));
    let at = |b: BlockId| f.layout.iter().position(|&x| x == b);
    assert!(at(ifs[1].0) < at(j1) && at(j1) < at(exit), "{}", dump(f));
    // The general path finds the same structure, block for block.
    super::structurize::structurize(&mut general).expect("structurizes");
    assert_eq!(general.blocks, f.blocks, "{}\n{}", dump(&general), dump(f));
    assert_eq!(general.layout, f.layout);
}

#[test]
fn a_plain_flow_claim_that_does_not_hold_takes_the_general_path() {
    // if (c) { if (c) { } else { } } else { ret } with both `if`s naming the same join (which
    // both dominate): no plainly nested flow has that, and two headers cannot share a merge.
    // The claim is not taken, and the result is the general path's.
    let mut fx = fixture();
    let mut headers = [BlockId(0); 2];
    let mut shared = BlockId(0);
    build(&mut fx, |b, fx| {
        let u = b.load_global(fx.in_u);
        let zero = b.u32c(0);
        let cond = b.op(Op::INotEqual, TypeId::BOOL, &[u, zero]);
        let outer = b.current();
        let (inner, other, join) = (b.new_block(), b.new_block(), b.new_block());
        b.terminate(Terminator::CondBranch {
            cond,
            on_true: inner,
            on_false: other,
        });
        b.f.block_mut(outer).join = Some(join);
        b.begin(other);
        b.terminate(Terminator::Return);
        b.begin(inner);
        let (t, e) = (b.new_block(), b.new_block());
        b.terminate(Terminator::CondBranch {
            cond,
            on_true: t,
            on_false: e,
        });
        b.f.block_mut(inner).join = Some(join);
        for arm in [t, e] {
            b.begin(arm);
            b.terminate(Terminator::Branch(join));
        }
        b.begin(join);
        b.op_void(Op::Store, &[Operand::Global(fx.out_u[0]), u]);
        headers = [outer, inner];
        shared = join;
    });
    fx.m.functions[0].plain_flow = true;
    let mut general = fx.m.functions[0].clone();
    general.plain_flow = false;
    run_until(&mut fx.m, "structurize");
    let f = &fx.m.functions[0];
    super::structurize::structurize(&mut general).expect("structurizes");
    assert_eq!(general.blocks, f.blocks, "{}\n{}", dump(&general), dump(f));
    assert_eq!(general.layout, f.layout);
    use crate::ir::Merge;
    assert_eq!(
        f.block(headers[0]).merge,
        Merge::Selection(shared),
        "{}",
        dump(f)
    );
    assert!(
        !matches!(f.block(headers[1]).merge, Merge::Selection(m) if m == shared),
        "{}",
        dump(f)
    );
}

#[test]
fn writes_that_nothing_reads_leave_nothing() {
    // Both arms write x, which the join never reads: no store, no phi.
    let mut fx = fixture();
    build(&mut fx, |b, fx| {
        let x = b.f.new_var(TypeId::U32);
        let u = b.load_global(fx.in_u);
        let zero = b.u32c(0);
        let cond = b.op(Op::INotEqual, TypeId::BOOL, &[u, zero]);
        let entry = b.current();
        let (t, e, j) = (b.new_block(), b.new_block(), b.new_block());
        b.terminate(Terminator::CondBranch {
            cond,
            on_true: t,
            on_false: e,
        });
        b.f.block_mut(entry).join = Some(j);
        for (blk, k) in [(t, 1), (e, 2)] {
            b.begin(blk);
            let c = b.u32c(k);
            b.store_var(x, c);
            b.terminate(Terminator::Branch(j));
        }
        b.begin(j);
        b.op_void(Op::Store, &[Operand::Global(fx.out_u[0]), u]);
    });
    let f = &fx.m.functions[0];
    assert!(!uses_vars(f) && f.vars.is_empty(), "{}", dump(f));
    assert!(phis(f).is_empty(), "{}", dump(f));
    assert_eq!(placed(f, Op::Store).len(), 1, "{}", dump(f));
}

#[test]
fn a_read_before_any_write_is_zero_and_dead_code_adds_no_input() {
    // if (in_u) { x = 1; ret } ; out_u[0] = x: the join has one live predecessor (the
    // entry, where x is still 0), and the block after the `ret` is dead.
    let mut fx = fixture();
    build(&mut fx, |b, fx| {
        let x = b.f.new_var(TypeId::U32);
        let u = b.load_global(fx.in_u);
        let zero = b.u32c(0);
        let cond = b.op(Op::INotEqual, TypeId::BOOL, &[u, zero]);
        let entry = b.current();
        let (t, j) = (b.new_block(), b.new_block());
        b.terminate(Terminator::CondBranch {
            cond,
            on_true: t,
            on_false: j,
        });
        b.f.block_mut(entry).join = Some(j);
        b.begin(t);
        let one = b.u32c(1);
        b.store_var(x, one);
        b.terminate(Terminator::Return);
        let dead = b.new_block();
        b.begin(dead);
        let two = b.u32c(2);
        b.store_var(x, two);
        b.terminate(Terminator::Branch(j));
        b.begin(j);
        let xv = b.load_var(x);
        b.op_void(Op::Store, &[Operand::Global(fx.out_u[0]), xv]);
    });
    run_until(&mut fx.m, "dce");
    let f = &fx.m.functions[0];
    assert!(phis(f).is_empty(), "{}", dump(f));
    assert_eq!(
        stored_to(f, fx.out_u[0]),
        Operand::Const(fx.m.consts.scalar(TypeId::U32, 0))
    );
}

/// `v = load in4; v.w = 1 / v.w`: the loaded vector and the insert.
fn insert_reciprocal_w(b: &mut FnBuilder<'_>, in4: GlobalId) -> (Operand, Operand) {
    let v = b.load_global(in4);
    let w = b.op(Op::CompositeExtract, TypeId::F32, &[v, Operand::Lit(3)]);
    let one = b.f32c(1.0);
    let rw = b.op(Op::FDiv, TypeId::F32, &[one, w]);
    let ins = b.op(Op::CompositeInsert, TypeId::VEC4, &[rw, v, Operand::Lit(3)]);
    (v, ins)
}

#[test]
fn simplify_reads_past_inserts_that_are_not_read() {
    // v = in4; v.w = 1 / v.w; out2 = v.xy; out_f = v.z; out_w = v.w
    let mut fx = fixture();
    let vec2 = TypeId::VEC2;
    let in4 = fx.m.add_global(TypeId::VEC4, StorageClass::Input, None);
    let out2 = fx.m.add_global(vec2, StorageClass::Output, None);
    build(&mut fx, |b, fx| {
        let (_, ins) = insert_reciprocal_w(b, in4);
        let xy = b.op(
            Op::VectorShuffle,
            vec2,
            &[ins, ins, Operand::Lit(0), Operand::Lit(5)],
        );
        b.op_void(Op::Store, &[Operand::Global(out2), xy]);
        let z = b.op(Op::CompositeExtract, TypeId::F32, &[ins, Operand::Lit(2)]);
        b.op_void(Op::Store, &[Operand::Global(fx.out_f[0]), z]);
        let w2 = b.op(Op::CompositeExtract, TypeId::F32, &[ins, Operand::Lit(3)]);
        b.op_void(Op::Store, &[Operand::Global(fx.out_f[1]), w2]);
    });
    run_until(&mut fx.m, "dce");
    let f = &fx.m.functions[0];
    let load = Operand::Value(placed(f, Op::Load)[0]);
    // The shuffle and the .z read the load; .w is the quotient; the insert is gone.
    assert!(placed(f, Op::CompositeInsert).is_empty(), "{}", dump(f));
    let xy = stored_to(f, out2).value().expect("a shuffle");
    assert_eq!(f.inst(xy).op, Op::VectorShuffle, "{}", dump(f));
    assert_eq!(&f.inst(xy).args[..2], &[load, load], "{}", dump(f));
    let z = stored_to(f, fx.out_f[0]).value().expect("an extract");
    assert_eq!(f.inst(z).args[..], [load, Operand::Lit(2)], "{}", dump(f));
    let div = placed(f, Op::FDiv);
    assert_eq!(div.len(), 1, "{}", dump(f));
    assert_eq!(stored_to(f, fx.out_f[1]), Operand::Value(div[0]));

    // A shuffle that selects the inserted component keeps the insert.
    let mut fx = fixture();
    let in4 = fx.m.add_global(TypeId::VEC4, StorageClass::Input, None);
    let out2 = fx.m.add_global(vec2, StorageClass::Output, None);
    build(&mut fx, |b, _| {
        let (v, ins) = insert_reciprocal_w(b, in4);
        let yw = b.op(
            Op::VectorShuffle,
            vec2,
            &[v, ins, Operand::Lit(1), Operand::Lit(7)],
        );
        b.op_void(Op::Store, &[Operand::Global(out2), yw]);
    });
    run_until(&mut fx.m, "dce");
    let f = &fx.m.functions[0];
    let ins = placed(f, Op::CompositeInsert);
    assert_eq!(ins.len(), 1, "{}", dump(f));
    let yw = stored_to(f, out2).value().expect("a shuffle");
    assert_eq!(f.inst(yw).args[1], Operand::Value(ins[0]), "{}", dump(f));
}
