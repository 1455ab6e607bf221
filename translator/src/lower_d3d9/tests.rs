//! Tests of the D3D9 lowering on assembled programs (`docs/d3d9.md`, notes §4).
//!
//! Straight-line programs are run by a small evaluator over the finished IR (after every
//! pass), so the tests check the *values* D3D9 defines — 0 × ∞ = 0, `rcp` of the w, `mova`
//! rounding, constant clamping, output defaults — not our own output. The expected numbers
//! come from the D3D9 rules (Microsoft's reference, Wine's visual tests), never from a run.
//! Programs with control flow are checked for the SPIR-V they must contain.

use rustc_hash::FxHashMap as HashMap;
use spirv::Op;

use crate::d3dbc;
use crate::ir::{Const, GlobalId, Module, Operand, Scalar, Type, ValueId};
use crate::lower::ReflectionGlobals;
use crate::options::Options;
use crate::reflect::{InterfacePlacement, Reflection};

/// Options that compile no D3D9 render state in (the state items have their own tests in
/// `state_tests`), so the modules stay straight-line code without specialization constants.
fn no_state() -> Options {
    let mut o = Options::default();
    o.d3d9.state = crate::d3d9_state::StateOptions::none();
    o
}

/// [`super::lower`] with a reflection of its own, returned with the module.
fn lower_with_reflection(
    prog: &d3dbc::Program,
    opts: &Options,
    reuse: Option<Box<Module>>,
    kept: &mut super::Kept,
) -> Result<(Box<Module>, Reflection, ReflectionGlobals), crate::lower::LowerError> {
    let mut refl = Reflection::empty(crate::reflect::ShaderStage::Vertex);
    let (m, g) = super::lower(prog, opts, reuse, kept, &mut refl, Default::default())?;
    Ok((m, refl, g))
}

fn lowered(src: &str, opts: &Options) -> (Module, Reflection, ReflectionGlobals) {
    let bytes = d3dbc::asm::assemble(src).unwrap();
    let prog = d3dbc::decode(&bytes).unwrap();
    let mut kept = super::Kept::default();
    let (mut m, r, g) = lower_with_reflection(&prog, opts, None, &mut kept).unwrap();
    crate::passes::run(&mut m).unwrap();
    // The state code built in place (the evaluator runs IR; prebuilt code is SPIR-V words).
    for tail in &mut kept.tails.list {
        tail.template = None;
    }
    super::expand_tails(&mut m, &mut kept, opts);
    (*m, r, g)
}

fn lower_err(src: &str) -> crate::lower::LowerError {
    let bytes = d3dbc::asm::assemble(src).unwrap();
    let prog = d3dbc::decode(&bytes).unwrap();
    match lower_with_reflection(&prog, &no_state(), None, &mut super::Kept::default()) {
        Err(e) => e,
        Ok(_) => panic!("lowering succeeded"),
    }
}

/// A value of the evaluator: 32-bit components (f32 bits, i32/u32, bool 0/1), or a pointer
/// into a uniform buffer (global, row).
#[derive(Debug, Clone, PartialEq)]
enum Val {
    Bits(Vec<u32>),
    Ptr(GlobalId, u32),
}

impl Val {
    fn bits(&self) -> &[u32] {
        match self {
            Val::Bits(b) => b,
            Val::Ptr(..) => panic!("a pointer used as a value"),
        }
    }
    fn f(&self) -> Vec<f32> {
        self.bits().iter().map(|&b| f32::from_bits(b)).collect()
    }
}

/// Runs the entry block of a straight-line module; `inputs` gives input globals' values,
/// `buffers` uniform-buffer rows by (global, row). Returns what was stored to each global.
fn run(
    m: &Module,
    inputs: &HashMap<GlobalId, Vec<u32>>,
    buffers: &HashMap<(GlobalId, u32), Vec<u32>>,
) -> HashMap<GlobalId, Vec<f32>> {
    let f = &m.functions[0];
    assert_eq!(
        f.layout.len(),
        1,
        "the evaluator runs straight-line code only"
    );
    let mut vals: HashMap<ValueId, Val> = HashMap::default();
    let mut out = HashMap::default();
    fn konst(m: &Module, c: crate::ir::ConstId) -> Vec<u32> {
        match m.consts.get(c) {
            Const::Scalar { bits, .. } => vec![*bits as u32],
            Const::Composite { parts, .. } => parts.iter().flat_map(|&p| konst(m, p)).collect(),
            Const::Null(t) => vec![0; m.types.width(*t) as usize],
            c => panic!("constant {c:?}"),
        }
    }
    for &v in &f.block(f.layout[0]).insts {
        let inst = f.inst(v);
        let get = |o: &Operand| -> Val {
            match o {
                Operand::Value(x) => vals[x].clone(),
                Operand::Const(c) => Val::Bits(konst(m, *c)),
                o => panic!("operand {o:?}"),
            }
        };
        let fa = |i: usize| get(&inst.args[i]).f();
        let ua = |i: usize| get(&inst.args[i]).bits().to_vec();
        let from_f = |x: Vec<f32>| Val::Bits(x.into_iter().map(f32::to_bits).collect());
        let zip = |a: Vec<f32>, b: Vec<f32>, op: fn(f32, f32) -> f32| {
            from_f(a.iter().zip(&b).map(|(x, y)| op(*x, *y)).collect())
        };
        let cmp = |a: Vec<f32>, b: Vec<f32>, op: fn(f32, f32) -> bool| {
            Val::Bits(a.iter().zip(&b).map(|(x, y)| op(*x, *y) as u32).collect())
        };
        let r = match inst.op {
            Op::FAdd => zip(fa(0), fa(1), |x, y| x + y),
            Op::FSub => zip(fa(0), fa(1), |x, y| x - y),
            Op::FMul => zip(fa(0), fa(1), |x, y| x * y),
            Op::FDiv => zip(fa(0), fa(1), |x, y| x / y),
            Op::FNegate => from_f(fa(0).iter().map(|x| -x).collect()),
            Op::FOrdEqual => cmp(fa(0), fa(1), |x, y| x == y),
            Op::FOrdLessThan => cmp(fa(0), fa(1), |x, y| x < y),
            Op::FOrdGreaterThan => cmp(fa(0), fa(1), |x, y| x > y),
            Op::FOrdGreaterThanEqual => cmp(fa(0), fa(1), |x, y| x >= y),
            Op::FOrdLessThanEqual => cmp(fa(0), fa(1), |x, y| x <= y),
            Op::FUnordNotEqual => cmp(fa(0), fa(1), |x, y| x != y),
            Op::FUnordLessThan => cmp(fa(0), fa(1), |x, y| x < y || x.is_nan() || y.is_nan()),
            Op::FUnordGreaterThanEqual => {
                cmp(fa(0), fa(1), |x, y| x >= y || x.is_nan() || y.is_nan())
            }
            Op::IAdd => Val::Bits(
                ua(0)
                    .iter()
                    .zip(ua(1))
                    .map(|(x, y)| x.wrapping_add(y))
                    .collect(),
            ),
            Op::IEqual => Val::Bits(
                ua(0)
                    .iter()
                    .zip(ua(1))
                    .map(|(x, y)| (*x == y) as u32)
                    .collect(),
            ),
            Op::ULessThan => Val::Bits(
                ua(0)
                    .iter()
                    .zip(ua(1))
                    .map(|(x, y)| (*x < y) as u32)
                    .collect(),
            ),
            Op::LogicalNot => Val::Bits(ua(0).iter().map(|x| (*x == 0) as u32).collect()),
            Op::LogicalAnd => Val::Bits(ua(0).iter().zip(ua(1)).map(|(x, y)| x & y).collect()),
            Op::LogicalOr => Val::Bits(ua(0).iter().zip(ua(1)).map(|(x, y)| x | y).collect()),
            Op::Bitcast | Op::CopyObject => get(&inst.args[0]),
            Op::ConvertFToS => Val::Bits(fa(0).iter().map(|x| *x as i32 as u32).collect()),
            Op::ConvertSToF => from_f(ua(0).iter().map(|x| *x as i32 as f32).collect()),
            Op::Select => {
                let c = ua(0);
                let (a, b) = (ua(1), ua(2));
                Val::Bits(
                    (0..a.len())
                        .map(|i| {
                            if c[i.min(c.len() - 1)] != 0 {
                                a[i]
                            } else {
                                b[i]
                            }
                        })
                        .collect(),
                )
            }
            Op::CompositeExtract => {
                let x = ua(0);
                Val::Bits(vec![x[inst.args[1].lit().unwrap() as usize]])
            }
            Op::CompositeConstruct => Val::Bits((0..inst.args.len()).flat_map(ua).collect()),
            Op::VectorShuffle => {
                let mut both = ua(0);
                both.extend(ua(1));
                Val::Bits(
                    inst.args[2..]
                        .iter()
                        .map(|s| both[s.lit().unwrap() as usize])
                        .collect(),
                )
            }
            Op::Dot => from_f(vec![fa(0).iter().zip(fa(1)).map(|(x, y)| x * y).sum()]),
            Op::AccessChain => {
                let Operand::Global(g) = inst.args[0] else {
                    panic!()
                };
                Val::Ptr(g, ua(2)[0])
            }
            Op::Load => match inst.args[0] {
                Operand::Global(g) => Val::Bits(inputs[&g].clone()),
                Operand::Value(p) => match &vals[&p] {
                    Val::Ptr(g, row) => Val::Bits(buffers[&(*g, *row)].clone()),
                    v => panic!("load through {v:?}"),
                },
                o => panic!("load of {o:?}"),
            },
            Op::Store => {
                let Operand::Global(g) = inst.args[0] else {
                    panic!()
                };
                out.insert(g, get(&inst.args[1]).f());
                continue;
            }
            Op::ExtInst => {
                use spirv::GlslStd450Op as G;
                let e = G::from_u32(inst.args[0].lit().unwrap()).unwrap();
                let a = |i: usize| get(&inst.args[i + 1]).f();
                let map = |x: Vec<f32>, op: fn(f32) -> f32| from_f(x.into_iter().map(op).collect());
                match e {
                    G::FAbs => map(a(0), f32::abs),
                    G::Floor => map(a(0), f32::floor),
                    G::Fract => map(a(0), |x| x - x.floor()),
                    G::Exp2 => map(a(0), f32::exp2),
                    G::Log2 => map(a(0), f32::log2),
                    G::InverseSqrt => map(a(0), |x| 1.0 / x.sqrt()),
                    G::Sin => map(a(0), f32::sin),
                    G::Cos => map(a(0), f32::cos),
                    G::FSign => map(a(0), |x| {
                        if x > 0.0 {
                            1.0
                        } else if x < 0.0 {
                            -1.0
                        } else {
                            0.0
                        }
                    }),
                    G::Pow => zip(a(0), a(1), f32::powf),
                    G::NMax => zip(a(0), a(1), |x, y| {
                        if x.is_nan() {
                            y
                        } else if y.is_nan() {
                            x
                        } else {
                            x.max(y)
                        }
                    }),
                    G::NClamp => {
                        let (x, lo, hi) = (a(0), a(1), a(2));
                        from_f(
                            (0..x.len())
                                .map(|i| {
                                    if x[i].is_nan() {
                                        lo[i]
                                    } else {
                                        x[i].clamp(lo[i], hi[i])
                                    }
                                })
                                .collect(),
                        )
                    }
                    G::SClamp => {
                        let (x, lo, hi) = (ua(1), ua(2), ua(3));
                        Val::Bits(vec![(x[0] as i32).clamp(lo[0] as i32, hi[0] as i32) as u32])
                    }
                    e => panic!("ext inst {e:?}"),
                }
            }
            Op::DemoteToHelperInvocation => continue,
            op => panic!("the evaluator lacks {op:?}"),
        };
        vals.insert(v, r);
    }
    out
}

/// The global of output `name` `index` (a location or built-in).
fn output(r: &Reflection, g: &ReflectionGlobals, name: &str, index: u32) -> GlobalId {
    let i = r
        .outputs
        .iter()
        .position(|o| o.semantic_name == name && o.semantic_index == index)
        .unwrap_or_else(|| panic!("no output {name}{index}: {:?}", r.outputs));
    g.outputs[i]
}

/// Runs `src` (no inputs; `c` rows of the float buffer) and returns output `name` `index`.
fn eval_with(src: &str, opts: &Options, c: &[(u32, [f32; 4])], name: &str, index: u32) -> Vec<f32> {
    let (m, r, g) = lowered(src, opts);
    let mut buffers = HashMap::default();
    if let Some(cb) = g.descriptors.first() {
        for (row, v) in c {
            buffers.insert((*cb, *row), v.iter().map(|x| x.to_bits()).collect());
        }
    }
    let out = run(&m, &HashMap::default(), &buffers);
    out[&output(&r, &g, name, index)].clone()
}

fn eval(src: &str, name: &str, index: u32) -> Vec<f32> {
    eval_with(src, &no_state(), &[], name, index)
}

/// ps_1_x saturates its colour output (`docs/d3d9.md`), so a test that observes r0 as the
/// program left it runs the program twice with r0 scaled into range by four `_d2` shifts —
/// once r0/16, once −r0/16 — and takes 16 × (first − second): any value in [−16, 16] comes back
/// exactly. These are the two programs.
pub(super) fn ps1_unclamped(src: &str) -> [String; 2] {
    let shifts = "mov_d2 r0, r0\nmov_d2 r0, r0\nmov_d2 r0, r0\n";
    [
        format!("{src}mov_d2 r0, r0\n{shifts}"),
        format!("{src}mov_d2 r0, -r0\n{shifts}"),
    ]
}

/// 16 × (first − second): the r0 of [`ps1_unclamped`]'s two runs.
pub(super) fn ps1_combine(first: &[f32], second: &[f32]) -> Vec<f32> {
    first
        .iter()
        .zip(second)
        .map(|(p, n)| 16.0 * (p - n))
        .collect()
}

/// The colour a ps_1_x program leaves in r0, unsaturated (see [`ps1_unclamped`]).
fn eval_ps1(src: &str) -> Vec<f32> {
    let [a, b] = ps1_unclamped(src);
    ps1_combine(&eval(&a, "COLOR", 0), &eval(&b, "COLOR", 0))
}

fn spirv_text(src: &str, opts: &Options) -> String {
    use rspirv::binary::Disassemble;
    let bytes = d3dbc::asm::assemble(src).unwrap();
    let t = crate::translate(&bytes, opts).unwrap();
    rspirv::dr::load_words(&t.spirv).unwrap().disassemble()
}

#[test]
fn zero_times_anything_is_zero_unless_ieee() {
    // c1 comes from the API: (inf, NaN, 5, -inf); c0 = (0, 0, 2, 0).
    let src = "vs_2_0\ndef c0, 0, 0, 2, 0\nmul r0, c0, c1\nmad r1, c0, c1, c0\ndp4 r2.x, c0, c1\nmov oPos, r0\nmov oT0, r1\nmov oT1, r2.x\n";
    let c1 = [(1, [f32::INFINITY, f32::NAN, 5.0, f32::NEG_INFINITY])];
    let o = no_state();
    assert_eq!(
        eval_with(src, &o, &c1, "POSITION", 0),
        [0.0, 0.0, 10.0, 0.0]
    );
    assert_eq!(
        eval_with(src, &o, &c1, "TEXCOORD", 0),
        [0.0, 0.0, 12.0, 0.0]
    );
    assert_eq!(eval_with(src, &o, &c1, "TEXCOORD", 1), [10.0; 4]);
    let mut ieee = no_state();
    ieee.d3d9.ieee_multiply = true;
    let p = eval_with(src, &ieee, &c1, "POSITION", 0);
    assert!(
        p[0].is_nan() && p[1].is_nan() && p[2] == 10.0 && p[3].is_nan(),
        "{p:?}"
    );
}

#[test]
fn scalar_ops_read_w_and_have_d3d9_special_values() {
    // WINE test_scalar_instructions: rcp of c0 = (0.25, 0.5, 1, 2) is 1/c0.w = 0.5.
    let src = "vs_1_1\ndcl_position v0\ndef c0, 0.25, 0.5, 1, 2\ndef c1, 0, -4, 0, 0\nmov oPos, v0\nrcp oD0, c0\nrsq r0, c1.y\nlog r1, c1.x\npow r2, c1.x, c1.x\nmov oT0, r0\nmov oT1, r1\nmov oT2, r2\n";
    // vs_1_1 has no pow: assemble it as vs_2_0 where it exists.
    let src_vs1 = src
        .replace("pow r2, c1.x, c1.x\n", "")
        .replace("mov oT2, r2\n", "");
    let (m, r, g) = lowered(&src_vs1, &no_state());
    let pos = g.inputs[0];
    let mut inputs = HashMap::default();
    inputs.insert(pos, vec![0; 4]);
    let out = run(&m, &inputs, &HashMap::default());
    assert_eq!(out[&output(&r, &g, "COLOR", 0)], [0.5; 4]);
    // rsq(-4) = 1/sqrt(|-4|); log(0) = -FLT_MAX.
    assert_eq!(out[&output(&r, &g, "TEXCOORD", 0)], [0.5; 4]);
    assert_eq!(out[&output(&r, &g, "TEXCOORD", 1)], [-f32::MAX; 4]);
    let src2 = src.replace("vs_1_1", "vs_2_0");
    let (m, r, g) = lowered(&src2, &no_state());
    let mut inputs = HashMap::default();
    inputs.insert(g.inputs[0], vec![0; 4]);
    let out = run(&m, &inputs, &HashMap::default());
    // pow(0, 0) = 1.
    assert_eq!(out[&output(&r, &g, "TEXCOORD", 2)], [1.0; 4]);
}

#[test]
fn address_register_floors_for_mov_and_rounds_for_mova() {
    // WINE test_mova: -2.4 floors to -3 (vs_1_1 mov) and rounds to -2 (mova); -1.6 rounds to -2.
    // c[a0.x + 3] then reads c0 (floor) or c1 (round); rows come from the buffer.
    let rows = [(0, [10.0, 0.0, 0.0, 0.0]), (1, [11.0, 0.0, 0.0, 0.0])];
    let vs1 = "vs_1_1\ndef c10, -2.4, -1.6, 0, 0\nmov a0.x, c10.x\nmov oPos, c[a0.x + 3]\n";
    assert_eq!(eval_with(vs1, &no_state(), &rows, "POSITION", 0)[0], 10.0);
    let vs2 = "vs_2_0\ndef c10, -2.4, -1.6, 0, 0\nmova a0.x, c10.x\nmov oPos, c[a0.x + 3]\n";
    assert_eq!(eval_with(vs2, &no_state(), &rows, "POSITION", 0)[0], 11.0);
    let vs2b = "vs_2_0\ndef c10, -2.4, -1.6, 0, 0\nmova a0.x, c10.y\nmov oPos, c[a0.x + 3]\n";
    assert_eq!(eval_with(vs2b, &no_state(), &rows, "POSITION", 0)[0], 11.0);
}

#[test]
fn relative_reads_see_defs_and_read_zero_past_the_set() {
    // Row 0 holds 5s: an index outside the set must not read it.
    let rows = [(0, [5.0; 4]), (5, [1.0, 2.0, 3.0, 4.0]), (6, [9.0; 4])];
    // a0.x = 1: c[a0.x + 5] is c6, which the program defines: its def wins over the API row.
    let src = "vs_2_0\ndef c6, 7, 7, 7, 7\ndef c10, 1, 300, 0, 0\nmova a0.xy, c10\nmov oPos, c[a0.x + 5]\nmov oT0, c[a0.y + 5]\nmov oT1, c[a0.x + 4]\n";
    assert_eq!(eval_with(src, &no_state(), &rows, "POSITION", 0), [7.0; 4]);
    // c305 is past the 256 float constants of vs_2_0: 0.
    assert_eq!(eval_with(src, &no_state(), &rows, "TEXCOORD", 0), [0.0; 4]);
    assert_eq!(
        eval_with(src, &no_state(), &rows, "TEXCOORD", 1),
        [1.0, 2.0, 3.0, 4.0]
    );
}

#[test]
fn vs_colour_outputs_saturate_before_3_0_only() {
    // WINE test_color_clamping: vs_1_1/2_0 clamp oD0 to 1, vs_3_0 does not.
    let src = "vs_2_0\ndef c0, 2, -1, 0.5, 1\nmov oPos, c0\nmov oD0, c0\nmov oFog, c0.x\n";
    assert_eq!(eval(src, "COLOR", 0), [1.0, 0.0, 0.5, 1.0]);
    assert_eq!(eval(src, "FOG", 0), [1.0]);
    let src3 =
        "vs_3_0\ndcl_position o0\ndcl_color0 o1\ndef c0, 2, -1, 0.5, 1\nmov o0, c0\nmov o1, c0\n";
    assert_eq!(eval(src3, "COLOR", 0), [2.0, -1.0, 0.5, 1.0]);
}

#[test]
fn unwritten_outputs_take_their_defaults() {
    let src = "vs_3_0\ndcl_position o0\ndcl_color0 o1\ndcl_color1 o2\ndcl_texcoord0 o3\ndef c0, 0.5, 0.5, 0.5, 0.5\nmov o0, c0\nmov o1.x, c0\nmov o3.y, c0\n";
    assert_eq!(eval(src, "COLOR", 0), [0.5, 1.0, 1.0, 1.0]);
    assert_eq!(eval(src, "COLOR", 1), [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(eval(src, "TEXCOORD", 0), [0.0, 0.5, 0.0, 0.0]);
}

#[test]
fn ps_1_x_clamps_constants_and_applies_modifiers_and_shift() {
    // WINE constant_clamp_ps_test: def values past [-1, 1] are clamped too.
    let src = "ps_1_4\ndef c0, 2, -3, 0.75, 0.25\nmov r0, c0\n";
    assert_eq!(eval_ps1(src), [1.0, -1.0, 0.75, 0.25]);
    // _bx2: 2x - 1 = (0.5, -0.5, 0, 1); 1 - x = (0.25, 0.75, 0.5, 0).
    let src = "ps_1_4\ndef c0, 0.75, 0.25, 0.5, 1\nadd r0, c0_bx2, 1-c0\n";
    assert_eq!(eval_ps1(src), [0.75, 0.25, 0.5, 1.0]);
    // _bias: x - 0.5; -x.
    let src = "ps_1_4\ndef c0, 0.75, 0.25, 0.5, 1\nadd r0, c0_bias, -c0\n";
    assert_eq!(eval_ps1(src), [-0.5; 4]);
    let src = "ps_1_4\ndef c0, 0.75, 0.25, 0.5, 1\nmov_x2_sat r0, c0\nmov_d2 r0.a, c0\n";
    assert_eq!(eval_ps1(src), [1.0, 0.5, 1.0, 0.5]);
    // The output itself is saturated: r0 = (2, -3 → -1 clamped constant, ...) leaves as [0, 1].
    let src = "ps_1_4\ndef c0, 1, -1, 0.75, 0.25\nadd r0, c0, c0\n";
    assert_eq!(eval(src, "COLOR", 0), [1.0, 0.0, 1.0, 0.5]);
}

#[test]
fn co_issued_instructions_read_registers_from_before_the_pair() {
    // The `+` instruction reads r0.b as it was before `mov r0.rgb, c2` of its pair.
    let src = "ps_1_4\ndef c1, 0.1, 0.2, 0.3, 0.4\ndef c2, 0.9, 0.9, 0.9, 0.9\nmov r0, c1\nmov r0.rgb, c2\n+mov r0.a, r0.b\n";
    assert_eq!(eval(src, "COLOR", 0), [0.9, 0.9, 0.9, 0.3]);
}

#[test]
fn cnd_compares_r0_alpha_before_1_4_and_per_component_in_1_4() {
    let src = "ps_1_4\ndef c0, 0.6, 0.4, 0.5, 1\ndef c1, 1, 1, 1, 1\ndef c2, 0, 0, 0, 0\ncnd r0, c0, c1, c2\n";
    assert_eq!(eval(src, "COLOR", 0), [1.0, 0.0, 0.0, 1.0]);
    let src = "ps_1_1\ndef c0, 0.6, 0.4, 0.5, 0.2\ndef c1, 1, 1, 1, 1\ndef c2, 0, 0, 0, 0\nmov r0, c0\ncnd r0, r0.a, c1, c2\n";
    assert_eq!(eval(src, "COLOR", 0), [0.0; 4]);
}

#[test]
fn depth_output_is_clamped_and_replaces_depth() {
    let src = "ps_2_0\ndef c0, 1.5, 0, 0, 0\nmov oC0, c0\nmov oDepth, c0.x\n";
    assert_eq!(eval(src, "DEPTH", 0), [1.0]);
    assert!(spirv_text(src, &no_state()).contains("DepthReplacing"));
}

#[test]
fn predication_and_setp_select_per_component() {
    let src = "vs_2_x\ndef c0, 1, 2, 3, 4\ndef c1, 2, 2, 2, 2\ndef c2, 9, 9, 9, 9\nmov r0, c0\nsetp_gt p0, c0, c1\n(p0) mov r0, c2\n(!p0.x) add r0.x, r0.x, c2.x\nmov oPos, r0\n";
    assert_eq!(eval(src, "POSITION", 0), [10.0, 2.0, 9.0, 9.0]);
}

#[test]
fn matrix_ops_use_consecutive_rows() {
    let src = "vs_2_0\ndef c0, 1, 2, 3, 1\ndef c4, 1, 0, 0, 0\ndef c5, 0, 1, 0, 0\ndef c6, 0, 0, 1, 0\ndef c7, 0, 0, 0, 2\nm4x4 oPos, c0, c4\nm3x2 oT0.xy, c0, c5\n";
    assert_eq!(eval(src, "POSITION", 0), [1.0, 2.0, 3.0, 2.0]);
    assert_eq!(eval(src, "TEXCOORD", 0)[..2], [2.0, 3.0]);
}

#[test]
fn matrix_rows_count_as_used_and_are_held_to_the_limits() {
    // m4x4 reads c252-c255: the reflection says so (the caller uploads those four).
    let (_, r, _) = lowered(
        "vs_2_0\ndcl_position v0\nm4x4 oPos, v0, c252\nm3x2 oT0.xy, v0, c10\n",
        &no_state(),
    );
    assert_eq!(r.d3d9.unwrap().constants[0].used, Some([10, 255]));
    // c254-c257 run past vs_2_0's 256 float constants: refused as the runtime does, naming the
    // first register past the set.
    let e = lower_err("vs_2_0\ndcl_position v0\nm4x4 oPos, v0, c254\n");
    assert_eq!(e.rule(), Some("constant-register-range"), "{e}");
    assert!(e.to_string().contains("c256"), "{e}");
    // With relaxed limits the set grows to hold them.
    let mut relaxed = no_state();
    relaxed.d3d9.relaxed_limits = true;
    let (_, r, _) = lowered("vs_2_0\ndcl_position v0\nm4x4 oPos, v0, c254\n", &relaxed);
    let floats = &r.d3d9.unwrap().constants[0];
    assert_eq!((floats.used, floats.count), (Some([254, 257]), 258));
}

#[test]
fn lit_and_dst_follow_the_reference() {
    let src = "vs_2_0\ndef c0, 0.5, 4, 0, 2\ndef c1, -1, 4, 0, 2\nlit oPos, c0\nlit oT0, c1\ndst oT1, c0, c1\n";
    assert_eq!(eval(src, "POSITION", 0), [1.0, 0.5, 16.0, 1.0]);
    assert_eq!(eval(src, "TEXCOORD", 0), [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(eval(src, "TEXCOORD", 1), [1.0, 16.0, 0.0, 2.0]);
}

#[test]
fn nrm_of_zero_is_zero_and_sincos_writes_cos_sin() {
    let src = "vs_2_0\ndef c0, 0, 0, 0, 0\ndef c1, 0, 0, 0, 0\nnrm r0, c0\nmov oPos, r0\nsincos r1.xy, c1.x, c0, c0\nmov oT0, r1\n";
    assert_eq!(eval(src, "POSITION", 0), [0.0; 4]);
    assert_eq!(eval(src, "TEXCOORD", 0)[..2], [1.0, 0.0]);
}

#[test]
fn vpos_is_integral_and_vface_is_plus_minus_one() {
    let src = "ps_3_0\ndcl vPos.xy\ndcl vFace\nmov r0.xy, vPos\nmov r0.zw, vFace\nmov oC0, r0\n";
    let (m, r, g) = lowered(src, &no_state());
    let mut inputs = HashMap::default();
    for (i, v) in r.inputs.iter().enumerate() {
        match &v.placement {
            InterfacePlacement::BuiltIn { builtin } if builtin == "FragCoord" => {
                inputs.insert(
                    g.inputs[i],
                    [10.5f32, 3.5, 0.25, 1.0].map(f32::to_bits).to_vec(),
                );
            }
            InterfacePlacement::BuiltIn { builtin } if builtin == "FrontFacing" => {
                inputs.insert(g.inputs[i], vec![0]);
            }
            p => panic!("{p:?}"),
        }
    }
    let out = run(&m, &inputs, &HashMap::default());
    assert_eq!(out[&output(&r, &g, "COLOR", 0)], [10.0, 3.0, -1.0, -1.0]);
}

#[test]
fn d3d8_inputs_without_dcl_take_their_register_as_location() {
    let (_, r, _) = lowered("vs_1_1\nmov oPos, v3\nmov oD0, v5\n", &no_state());
    let locs: Vec<_> = r
        .inputs
        .iter()
        .map(|i| (i.register, i.placement.clone()))
        .collect();
    assert!(locs.contains(&(
        Some(3),
        InterfacePlacement::Location {
            location: 3,
            component: 0
        }
    )));
    assert!(locs.contains(&(
        Some(5),
        InterfacePlacement::Location {
            location: 5,
            component: 0
        }
    )));
}

#[test]
fn varyings_link_by_semantic() {
    let vs = lowered(
        "vs_1_1\ndcl_position v0\nmov oPos, v0\nmov oT3, v0\nmov oD1, v0\n",
        &no_state(),
    )
    .1;
    let ps = lowered(
        "ps_2_0\ndcl t3\ndcl v1\nadd r0, t3, v1\nmov oC0, r0\n",
        &no_state(),
    )
    .1;
    let ps3 = lowered(
        "ps_3_0\ndcl_texcoord3 v0\ndcl_color1 v7\nadd r0, v0, v7\nmov oC0, r0\n",
        &no_state(),
    )
    .1;
    let loc = |r: &Reflection, name: &str, i: u32, out: bool| {
        let l = if out { &r.outputs } else { &r.inputs };
        l.iter()
            .find(|v| v.semantic_name == name && v.semantic_index == i)
            .map(|v| v.placement.clone())
    };
    for (n, i) in [("TEXCOORD", 3), ("COLOR", 1)] {
        let o = loc(&vs, n, i, true);
        assert!(o.is_some());
        assert_eq!(o, loc(&ps, n, i, false), "{n}{i}");
        assert_eq!(o, loc(&ps3, n, i, false), "{n}{i}");
    }
    // The caller's map moves a pair in both stages.
    let mut opts = no_state();
    opts.d3d9
        .varying_locations
        .push(crate::options::VaryingLocation {
            usage: d3dbc::Usage::TexCoord,
            index: 3,
            location: 20,
        });
    let ps3 = lowered("ps_3_0\ndcl_texcoord3 v0\nmov oC0, v0\n", &opts).1;
    assert_eq!(
        loc(&ps3, "TEXCOORD", 3, false),
        Some(InterfacePlacement::Location {
            location: 20,
            component: 0
        })
    );
}

#[test]
fn constant_sets_and_samplers_are_reflected() {
    let (_, r, _) = lowered(
        "ps_3_0\ndcl_2d s1\ndcl_texcoord0 v0\ndef c3, 1, 1, 1, 1\ndefi i0, 2, 0, 1, 0\nloop aL, i0\nadd r0, c[aL + 4], c3\nendloop\ntexld r1, v0, s1\ntexld r2, v0, s2\nif b3\nmov r0, r1\nendif\nmad oC0, r0, r1, r2\n",
        &no_state(),
    );
    let d = r.d3d9.unwrap();
    let float = &d.constants[0];
    assert!(float.relative && float.buffer_register == Some(0) && float.count == 224);
    assert_eq!(float.defs.len(), 1);
    let int = &d.constants[1];
    assert_eq!(int.buffer_register, None, "i0 is def'd: no buffer");
    assert_eq!(d.constants[2].buffer_register, Some(2));
    assert_eq!(d.samplers.len(), 2);
    assert_eq!(
        (
            d.samplers[0].declared.as_str(),
            d.samplers[1].declared.as_str()
        ),
        ("2d", "unknown")
    );
    // Split: an image (t#) and a sampler (s#) per s#, plus the float and bool buffers.
    assert_eq!(r.descriptors.len(), 6);
}

#[test]
fn combined_samplers_by_option() {
    let mut opts = no_state();
    opts.d3d9.combined_samplers = true;
    let text = spirv_text(
        "ps_2_0\ndcl t0\ndcl_cube s0\ntexld r0, t0, s0\nmov oC0, r0\n",
        &opts,
    );
    assert!(
        text.contains("OpTypeSampledImage") && !text.contains("OpSampledImage"),
        "{text}"
    );
    assert!(text.contains("Cube"));
}

#[test]
fn texkill_demotes_testing_xyz_in_ps_1_x() {
    let t = spirv_text("ps_2_0\ndcl t0\ntexkill t0\nmov oC0, t0\n", &no_state());
    assert!(t.contains("OpDemoteToHelperInvocation"));
    assert_eq!(t.matches("OpFOrdLessThan").count(), 4);
    let t = spirv_text("ps_1_1\ntexkill t0\nmov r0, v0\n", &no_state());
    assert!(t.contains("OpDemoteToHelperInvocation"));
    assert_eq!(
        t.matches("OpFOrdLessThan").count(),
        3,
        "ps_1_x tests x, y, z only"
    );
}

#[test]
fn loops_count_separately_and_subroutines_inline() {
    let src = "vs_3_0\ndcl_position o0\ndefi i0, 3, 1, 0, 0\nmov r0, c0\nloop aL, i0\nadd r0, r0, c[aL]\ncall l1\nendloop\nrep i0\ncallnz l1, b0\nendrep\nmov o0, r0\nret\nlabel l1\nadd r0, r0, c1\nret\n";
    let t = spirv_text(src, &no_state());
    assert!(t.contains("OpLoopMerge"));
    assert_eq!(
        t.matches("OpFunction ").count(),
        1,
        "subroutines are inlined"
    );
    // `ret` inside an if, an else and a loop of a subroutine, and after them at its top
    // level: a returned flag, a break out of the loop and guards (structured, one function).
    let src = "vs_3_0\ndcl_position o0\ndefi i0, 3, 1, 0, 0\nmov r0, c0\nrep i0\ncall l1\nendrep\ncall l2\nmov o0, r0\nret\nlabel l1\nloop aL, i0\nif b1\nret\nendif\nadd r0, r0, c[aL]\nendloop\nadd r0, r0, c1\nret\nlabel l2\nif_gt r0.x, c2.x\nret\nelse\nif b2\nret\nendif\nendif\nmul r0, r0, c3\nret\nadd r0, r0, c4\nret\n";
    let t = spirv_text(src, &Options::default());
    assert_eq!(t.matches("OpFunction ").count(), 1);
    // Guards do not nest per `ret` or per construct after one (a long subroutine of them
    // stays shallow).
    let body = "if b0\nret\nendif\nadd r0, r0, c1\nret\n".repeat(300);
    let src = format!("vs_2_0\nmov r0, c0\ncall l0\nmov oPos, r0\nret\nlabel l0\n{body}");
    spirv_text(&src, &Options::default());
    // Recursion is refused.
    let e = lower_err("vs_2_0\ncall l0\nret\nlabel l0\ncall l0\nret\n");
    assert!(e.to_string().contains("nested deeper"), "{e}");
}

#[test]
fn runtime_limits_are_rules() {
    for (src, what) in [
        ("ps_2_0\nmov oC0, c32\n", "c32"),
        ("ps_1_1\nmov r0, c8\n", "c8"),
        ("vs_3_0\ndcl_position o0\nmov o0, c256\n", "c256"),
        (
            "vs_3_0\ndcl_position o0\nrep i16\nendrep\nmov o0, c0\n",
            "i16",
        ),
    ] {
        let e = lower_err(src);
        assert!(
            e.rule() == Some("constant-register-range") && e.to_string().contains(what),
            "{e}"
        );
        assert_eq!(e.kind(), crate::ErrorKind::Invalid);
    }
    let e = lower_err("ps_2_0\ndefb b0, true\nmov oC0, c0\n");
    assert_eq!(e.rule(), Some("opcode-in-version"), "{e}");
}

/// The sizes (register count, buffer bytes) of each constant set the program reads.
fn set_sizes(r: &Reflection) -> Vec<(u32, Option<u32>)> {
    let d = r.d3d9.as_ref().unwrap();
    d.constants
        .iter()
        .map(|c| {
            let bytes = c.buffer_register.and_then(|reg| {
                r.descriptors
                    .iter()
                    .find(|d| {
                        d.origin.class == crate::reflect::RegisterClass::B && d.origin.lower == reg
                    })
                    .and_then(|d| match d.shape {
                        crate::reflect::ResourceShape::ConstantBuffer { size_bytes } => {
                            Some(size_bytes)
                        }
                        _ => None,
                    })
            });
            (c.count, bytes)
        })
        .collect()
}

#[test]
fn software_vertex_processing_has_the_software_limits() {
    let mut swvp = no_state();
    swvp.d3d9.software_vertex_processing = true;
    // c300 in vs_2_0 (Wine's test_mvp_software_vertex_shaders), i16 and b2047 in vs_3_0.
    let src = "vs_3_0\ndcl_position o0\nmov r0, c8191\nrep i16\nadd r0, r0, c300\nendrep\nif b2047\nmov r0, c0\nendif\nmov o0, r0\n";
    assert_eq!(lower_err(src).rule(), Some("constant-register-range"));
    let (_, r, _) = lowered(src, &swvp);
    // 8192 vec4 floats, 2048 ivec4 integers, 2048 u32 bools four to a row.
    assert_eq!(
        set_sizes(&r),
        [
            (8192, Some(8192 * 16)),
            (2048, Some(2048 * 16)),
            (2048, Some(512 * 16))
        ]
    );
    // vs_1_1 too, and relative reads reach the whole software set.
    let src = "vs_1_1\ndef c0, 1, 1, 0, 0\nmov a0.x, c0.x\nmov oPos, c[a0.x + 299]\nmov oT0, c[a0.x + 8191]\n";
    let rows = [(0, [5.0; 4]), (300, [1.0, 2.0, 3.0, 4.0])];
    assert_eq!(
        eval_with(src, &swvp, &rows, "POSITION", 0),
        [1.0, 2.0, 3.0, 4.0]
    );
    assert_eq!(eval_with(src, &swvp, &rows, "TEXCOORD", 0), [0.0; 4]);
    assert_eq!(
        eval_with(src, &no_state(), &rows, "POSITION", 0),
        [0.0; 4],
        "c300 is past a hardware device's 256 constants"
    );
    // Pixel shaders keep their limits.
    let bytes = d3dbc::asm::assemble("ps_2_0\nmov oC0, c32\n").unwrap();
    let e = lower_with_reflection(
        &d3dbc::decode(&bytes).unwrap(),
        &swvp,
        None,
        &mut super::Kept::default(),
    )
    .unwrap_err();
    assert_eq!(e.rule(), Some("constant-register-range"));
}

#[test]
fn relaxed_limits_grow_the_sets_and_admit_2_x_opcodes_in_2_0() {
    let mut relaxed = no_state();
    relaxed.d3d9.relaxed_limits = true;
    // c32 in ps_2_0 reads the buffer's row 32 (the set grows to 33 rows).
    let rows = [(32, [1.0, 2.0, 3.0, 4.0])];
    let src = "ps_2_0\nmov oC0, c32\n";
    assert_eq!(
        eval_with(src, &relaxed, &rows, "COLOR", 0),
        [1.0, 2.0, 3.0, 4.0]
    );
    let (_, r, _) = lowered(src, &relaxed);
    assert_eq!(set_sizes(&r), [(33, Some(33 * 16))]);
    // A def past the range is an immediate as any other; ps_1_x still clamps it.
    let [a, b] = ps1_unclamped("ps_1_1\ndef c8, 0.5, 2, -3, 0.25\nmov r0, c8\n");
    assert_eq!(
        ps1_combine(
            &eval_with(&a, &relaxed, &[], "COLOR", 0),
            &eval_with(&b, &relaxed, &[], "COLOR", 0)
        ),
        [0.5, 1.0, -1.0, 0.25]
    );
    // ps_2_0 with defb/defi/rep/if behaves as ps_2_x (Wine's ps_2_0_boolint).
    let src = "ps_2_0\ndefb b0, true\ndefi i0, 1, 1, 1, 1\nrep i0\nif b0\nadd r0, r0, v0\nendif\nendrep\nmov oC0, r0\n";
    assert_eq!(lower_err(src).rule(), Some("opcode-in-version"));
    let t = spirv_text(src, &relaxed);
    assert!(
        t.contains("OpLoopMerge") && t.contains("OpSelectionMerge"),
        "{t}"
    );
    // i16/b16 in vs_3_0 grow their sets to 17.
    let (_, r, _) = lowered(
        "vs_3_0\ndcl_position o0\nrep i16\nendrep\nif b16\nendif\nmov o0, c0\n",
        &relaxed,
    );
    assert_eq!(
        set_sizes(&r),
        [
            (256, Some(256 * 16)),
            (17, Some(17 * 16)),
            (17, Some(5 * 16))
        ]
    );
    // Other rules stay.
    let bytes = d3dbc::asm::assemble("ps_2_0\ntexbem t1, t0\n").unwrap();
    let e = lower_with_reflection(
        &d3dbc::decode(&bytes).unwrap(),
        &relaxed,
        None,
        &mut super::Kept::default(),
    )
    .unwrap_err();
    assert_eq!(e.rule(), Some("opcode-in-version"), "{e}");
}

#[test]
fn bvec4_type_id_is_the_predefined_one() {
    let t = crate::ir::TypeTable::new();
    assert_eq!(t.get(super::regs::BVEC4), &Type::Vector(Scalar::Bool, 4));
}

#[test]
fn centroid_inputs_are_decorated_centroid() {
    // `_centroid` on a pixel-shader input dcl interpolates at the centroid (notes §4.20); the
    // other inputs keep centre sampling. A runtime case cannot tell the two apart portably.
    for src in [
        "ps_3_0\ndcl_texcoord0_centroid v0\ndcl_texcoord1 v1\nadd oC0, v0, v1\n",
        "ps_2_0\ndcl_centroid t0\ndcl t1\nadd r0, t0, t1\nmov oC0, r0\n",
    ] {
        let text = spirv_text(src, &Options::default());
        assert_eq!(text.matches(" Centroid").count(), 1, "{src}\n{text}");
    }
}

#[test]
fn bool_constant_rows_give_each_bool_a_row() {
    // (The evaluator runs straight-line code only, and `b#` is read by flow control, so the
    // layout is checked by size here; the D3D9 sweep through the vkd3d stand-in validates it.)
    let src = "vs_3_0\ndcl_position o0\ndef c0, 1, 1, 1, 1\ndef c1, 0, 0, 0, 0\nmov r0, c1\nif b5\nmov r0, c0\nendif\nmov o0, r0\n";
    let (_, r, _) = lowered(src, &no_state());
    assert_eq!(set_sizes(&r), [(256, None), (16, Some(4 * 16))]);
    let mut rows = no_state();
    rows.d3d9.bool_constant_rows = true;
    let (_, r, _) = lowered(src, &rows);
    assert_eq!(set_sizes(&r), [(256, None), (16, Some(16 * 16))]);
}

#[test]
fn a_texture_coordinate_passes_the_point_sprite_code_once_per_block() {
    // With the default state (point sprites a specialization constant), each read of t0 is
    // the select between it and PointCoord: made at the first read of the block, reused at
    // the second (the passes would merge a second copy; lowering makes none).
    let src = "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\ntexld r1, t0, s0\nadd r0, r0, r1\n\
               mov oC0, r0\n";
    let bytes = d3dbc::asm::assemble(src).unwrap();
    let prog = d3dbc::decode(&bytes).unwrap();
    let mut kept = super::Kept::default();
    let (m, _, _) = lower_with_reflection(&prog, &Options::default(), None, &mut kept).unwrap();
    let f = &m.functions[0];
    let vec2 = crate::ir::TypeTable::vec(Scalar::F32, 2);
    let count = |op: Op, ty: Option<crate::ir::TypeId>| {
        f.insts
            .iter()
            .filter(|i| i.op == op && ty.is_none_or(|t| i.ty == t))
            .count()
    };
    assert_eq!(count(Op::Load, Some(vec2)), 1, "PointCoord loads");
    assert_eq!(count(Op::ImageSampleImplicitLod, None), 2);
    // Both samples take their coordinates (a shuffle each) from the one select.
    let source = |v: Operand| {
        let i = f.inst(v.value().expect("a value"));
        assert_eq!(i.op, Op::VectorShuffle);
        i.args[0]
    };
    let coords: Vec<Operand> = f
        .insts
        .iter()
        .filter(|i| i.op == Op::ImageSampleImplicitLod)
        .map(|i| source(i.args[1]))
        .collect();
    assert_eq!(coords[0], coords[1]);
    assert_eq!(f.inst(coords[0].value().unwrap()).op, Op::Select);
}

#[test]
fn partial_writes_compute_the_lanes_they_write() {
    // Registers written in parts from different vectors, read whole and swizzled by
    // component-wise instructions that write fewer than four components (the values follow
    // from the MS reference's write-mask and swizzle rules; shaders/runtime/d3d9/
    // partial-writes.shader_test runs the same program).
    let src = "ps_3_0\ndef c0, 1.0, 2.0, 3.0, 4.0\ndef c1, 10.0, 20.0, 30.0, 40.0\n\
        def c2, 0.5, 0.0, 0.0, 0.0\nmov r0, c0\nadd r0.xy, r0, c1\nmul r1.xy, r0, c1\n\
        mov r1.zw, r0\nmad r2.yw, r0.wzyx, c1, c0\nmov r2.xz, r1.yyww\nmin r3.x, r2.y, r2.w\n\
        max r3.y, r1.x, r2.z\nlrp r3.z, c2.x, r0.w, r0.z\ncmp r3.w, -r0.x, c0.x, c1.x\n\
        add r4, r3, r2\nadd r4.yz, r4, r1.wzyx\nmov oC0, r4\n";
    assert_eq!(eval(src, "COLOR", 0), vec![502.0, 175.0, 447.5, 454.0]);
}

#[test]
fn a_partial_write_reads_only_the_lanes_it_writes() {
    // r0.xy comes from one vector (the sum), r0.zw from another (c0): `mul r1.xy, r0, c1`
    // needs lanes x and y only, which the sum holds in place, so no vector is built for r0.
    // The one vector built is the output's (r1.xy from the product, r1.zw from c0).
    let src = "ps_3_0\ndef c0, 1.0, 2.0, 3.0, 4.0\ndef c1, 10.0, 20.0, 30.0, 40.0\n\
        dcl_texcoord v0\nmov r0, c0\nadd r0.xy, r0, v0\nmul r1.xy, r0, c1\nmov r1.zw, c0\n\
        mov oC0, r1\n";
    let (m, _, _) = lowered(src, &no_state());
    let f = &m.functions[0];
    let constructs = f
        .layout
        .iter()
        .flat_map(|&b| f.block(b).insts.iter())
        .filter(|&&v| f.inst(v).op == Op::CompositeConstruct)
        .count();
    assert_eq!(constructs, 1);
}
