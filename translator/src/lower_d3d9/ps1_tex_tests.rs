//! Tests of the ps_1_x texture-addressing lowering: each instruction's arithmetic, checked by
//! running the emitted SPIR-V of a straight-line pixel shader in a small evaluator against
//! values computed here from Microsoft's asm reference formulas.
//!
//! The evaluator's textures are the identity: sampling at coordinate `c` (2 or 3 components,
//! by the image's dimension) returns `(c.x, c.y, c.z or 0.5, 1)`, so a result shows the
//! coordinate an instruction computed and the image dimension it sampled.

use std::collections::HashMap;

use rspirv::dr::{self, Operand as DOp};
use rspirv::spirv::{BuiltIn, Decoration, Dim, Op, StorageClass};

use crate::d3dbc;
use crate::options::Options;
use crate::reflect::DescriptorType;

#[derive(Debug, Clone)]
enum V {
    F(Vec<f32>),
    /// Integers and booleans (0/1).
    U(Vec<u32>),
    /// A variable, and the row an access chain picked.
    Ptr(u32, Option<u32>),
    /// An image or sampled image: its coordinate count.
    Img(usize),
}

impl V {
    fn f(&self) -> &[f32] {
        match self {
            V::F(v) => v,
            other => panic!("not a float value: {other:?}"),
        }
    }
    fn u(&self) -> &[u32] {
        match self {
            V::U(v) => v,
            other => panic!("not an integer value: {other:?}"),
        }
    }
}

/// What a run produced: the colour at location 0, the depth, the sampled coordinate widths.
#[derive(Debug, Default)]
struct Run {
    color: Vec<f32>,
    depth: Option<f32>,
    sample_widths: Vec<usize>,
}

/// Runs `words` with texture coordinates `tc[n]` at location n and the uniform buffer rows
/// `rows` (the bump-environment buffer; every buffer reads the same rows).
/// The two translations of a ps_1_x program whose r0 leaves unsaturated
/// (`tests::ps1_unclamped`).
struct Ps1 {
    spirv: [Vec<u32>; 2],
    /// The reflection of the program as written.
    reflection: crate::reflect::Reflection,
}

/// Runs both translations: the colour is r0 as the program left it, the depth the program's.
fn run(p: &[Vec<u32>; 2], tc: &[[f32; 4]], rows: &[[f32; 4]]) -> Run {
    let a = run_words(&p[0], tc, rows);
    let b = run_words(&p[1], tc, rows);
    Run {
        color: super::super::tests::ps1_combine(&a.color, &b.color),
        ..a
    }
}

fn run_words(words: &[u32], tc: &[[f32; 4]], rows: &[[f32; 4]]) -> Run {
    let m = dr::load_words(words).unwrap();
    let mut location = HashMap::new();
    let mut builtin = HashMap::new();
    for a in &m.annotations {
        if a.class.opcode == Op::Decorate {
            let id = match a.operands[0] {
                DOp::IdRef(i) => i,
                _ => continue,
            };
            match (&a.operands[1], a.operands.get(2)) {
                (DOp::Decoration(Decoration::Location), Some(DOp::LiteralBit32(l))) => {
                    location.insert(id, *l);
                }
                (DOp::Decoration(Decoration::BuiltIn), Some(DOp::BuiltIn(b))) => {
                    builtin.insert(id, *b);
                }
                _ => {}
            }
        }
    }
    let mut float_types = std::collections::HashSet::new();
    let mut vec_of = HashMap::new();
    let mut pointee = HashMap::new();
    let mut image_dim = HashMap::new();
    let mut var_class = HashMap::new();
    let mut var_ty = HashMap::new();
    let mut vals: HashMap<u32, V> = HashMap::new();
    let id = |o: &DOp| match o {
        DOp::IdRef(i) => *i,
        other => panic!("not an id: {other:?}"),
    };
    for i in &m.types_global_values {
        let r = i.result_id.unwrap_or(0);
        match i.class.opcode {
            Op::TypeFloat => {
                float_types.insert(r);
            }
            Op::TypeVector => {
                vec_of.insert(r, id(&i.operands[0]));
            }
            Op::TypePointer => {
                pointee.insert(r, id(&i.operands[1]));
            }
            Op::TypeImage => {
                if let DOp::Dim(d) = i.operands[1] {
                    image_dim.insert(r, d);
                }
            }
            Op::TypeSampledImage => {
                let d = image_dim[&id(&i.operands[0])];
                image_dim.insert(r, d);
            }
            Op::TypeArray => {
                if let Some(&d) = image_dim.get(&id(&i.operands[0])) {
                    image_dim.insert(r, d);
                }
            }
            Op::Constant => {
                let bits = match i.operands[0] {
                    DOp::LiteralBit32(b) => b,
                    _ => panic!("64-bit constant"),
                };
                let t = i.result_type.unwrap();
                vals.insert(
                    r,
                    if float_types.contains(&t) {
                        V::F(vec![f32::from_bits(bits)])
                    } else {
                        V::U(vec![bits])
                    },
                );
            }
            Op::ConstantTrue => {
                vals.insert(r, V::U(vec![1]));
            }
            Op::ConstantFalse | Op::ConstantNull => {
                let t = i.result_type.unwrap();
                let t = vec_of.get(&t).copied().unwrap_or(t);
                vals.insert(
                    r,
                    if float_types.contains(&t) {
                        V::F(vec![0.0; 4])
                    } else {
                        V::U(vec![0; 4])
                    },
                );
            }
            Op::ConstantComposite => {
                let parts: Vec<V> = i.operands.iter().map(|o| vals[&id(o)].clone()).collect();
                vals.insert(r, concat(&parts));
            }
            Op::Variable => {
                if let DOp::StorageClass(c) = i.operands[0] {
                    var_class.insert(r, c);
                }
                var_ty.insert(r, pointee[&i.result_type.unwrap()]);
                vals.insert(r, V::Ptr(r, None));
            }
            _ => {}
        }
    }
    let f = &m.functions[0];
    let labels: HashMap<u32, usize> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(n, b)| (b.label.as_ref().unwrap().result_id.unwrap(), n))
        .collect();
    let mut out = Run::default();
    let mut block = 0;
    let mut prev = 0;
    'blocks: loop {
        let b = &f.blocks[block];
        let here = b.label.as_ref().unwrap().result_id.unwrap();
        for i in &b.instructions {
            let r = i.result_id.unwrap_or(0);
            let arg = |k: usize| vals[&id(&i.operands[k])].clone();
            let fbin = |g: fn(f32, f32) -> f32| {
                let (a, b) = (arg(0), arg(1));
                V::F(a.f().iter().zip(b.f()).map(|(x, y)| g(*x, *y)).collect())
            };
            let v = match i.class.opcode {
                Op::SelectionMerge | Op::LoopMerge => continue,
                Op::Branch => {
                    prev = here;
                    block = labels[&id(&i.operands[0])];
                    continue 'blocks;
                }
                Op::BranchConditional => {
                    prev = here;
                    let c = arg(0).u()[0] != 0;
                    block = labels[&id(&i.operands[if c { 1 } else { 2 }])];
                    continue 'blocks;
                }
                Op::Return => break 'blocks,
                Op::Phi => {
                    let k = (0..i.operands.len() / 2)
                        .find(|&k| id(&i.operands[2 * k + 1]) == prev)
                        .expect("phi predecessor");
                    arg(2 * k)
                }
                Op::Load => match arg(0) {
                    V::Ptr(var, row) => match var_class[&var] {
                        StorageClass::Input => {
                            let l = location[&var] as usize;
                            V::F(tc.get(l).copied().unwrap_or([0.0; 4]).to_vec())
                        }
                        StorageClass::Uniform => V::F(rows[row.unwrap() as usize].to_vec()),
                        StorageClass::UniformConstant => match image_dim.get(&var_ty[&var]) {
                            Some(Dim::Dim2D) => V::Img(2),
                            Some(_) => V::Img(3),
                            // A sampler.
                            None => V::Img(0),
                        },
                        c => panic!("load from {c:?}"),
                    },
                    other => panic!("load of {other:?}"),
                },
                Op::AccessChain => {
                    let var = id(&i.operands[0]);
                    let row = i.operands.get(2).map(|o| vals[&id(o)].u()[0]);
                    V::Ptr(var, row.or(Some(0)))
                }
                Op::Store => {
                    let var = id(&i.operands[0]);
                    let x = arg(1);
                    if builtin.get(&var) == Some(&BuiltIn::FragDepth) {
                        out.depth = Some(x.f()[0]);
                    } else if location.get(&var) == Some(&0) {
                        out.color = x.f().to_vec();
                    }
                    continue;
                }
                Op::SampledImage => arg(0),
                Op::ImageSampleImplicitLod => {
                    let n = match arg(0) {
                        V::Img(n) => n,
                        other => panic!("sampling {other:?}"),
                    };
                    let c = arg(1);
                    let c = c.f();
                    assert_eq!(c.len(), n, "coordinate width of the image's dimension");
                    out.sample_widths.push(n);
                    V::F(vec![c[0], c[1], if n > 2 { c[2] } else { 0.5 }, 1.0])
                }
                Op::CompositeExtract => {
                    let v = arg(0);
                    let k = match i.operands[1] {
                        DOp::LiteralBit32(k) => k as usize,
                        _ => unreachable!(),
                    };
                    match v {
                        V::F(x) => V::F(vec![x[k]]),
                        V::U(x) => V::U(vec![x[k]]),
                        other => panic!("extract from {other:?}"),
                    }
                }
                Op::CompositeConstruct => {
                    let parts: Vec<V> = (0..i.operands.len()).map(arg).collect();
                    concat(&parts)
                }
                Op::VectorShuffle => {
                    let (a, b) = (arg(0), arg(1));
                    let all: Vec<f32> = a.f().iter().chain(b.f()).copied().collect();
                    V::F(
                        i.operands[2..]
                            .iter()
                            .map(|o| match o {
                                DOp::LiteralBit32(k) => all[*k as usize],
                                _ => unreachable!(),
                            })
                            .collect(),
                    )
                }
                Op::CopyObject => arg(0),
                Op::FAdd => fbin(|x, y| x + y),
                Op::FSub => fbin(|x, y| x - y),
                Op::FMul => fbin(|x, y| x * y),
                Op::FDiv => fbin(|x, y| x / y),
                Op::VectorTimesScalar => {
                    let s = arg(1).f()[0];
                    V::F(arg(0).f().iter().map(|x| x * s).collect())
                }
                Op::FNegate => V::F(arg(0).f().iter().map(|x| -x).collect()),
                Op::Dot => {
                    let (a, b) = (arg(0), arg(1));
                    V::F(vec![a.f().iter().zip(b.f()).map(|(x, y)| x * y).sum()])
                }
                Op::FOrdEqual => {
                    let (a, b) = (arg(0), arg(1));
                    V::U(
                        a.f()
                            .iter()
                            .zip(b.f())
                            .map(|(x, y)| u32::from(x == y))
                            .collect(),
                    )
                }
                Op::Select => {
                    let c = arg(0);
                    let (a, b) = (arg(1), arg(2));
                    let n = c.u().len();
                    let pick = |k: usize| c.u()[if n == 1 { 0 } else { k }] != 0;
                    match (a, b) {
                        (V::F(a), V::F(b)) => V::F(
                            (0..a.len())
                                .map(|k| if pick(k) { a[k] } else { b[k] })
                                .collect(),
                        ),
                        (V::U(a), V::U(b)) => V::U(
                            (0..a.len())
                                .map(|k| if pick(k) { a[k] } else { b[k] })
                                .collect(),
                        ),
                        other => panic!("select of {other:?}"),
                    }
                }
                Op::ExtInst => {
                    let op = match i.operands[1] {
                        DOp::LiteralExtInstInteger(k) => k,
                        _ => unreachable!(),
                    };
                    let a: Vec<Vec<f32>> =
                        (2..i.operands.len()).map(|k| arg(k).f().to_vec()).collect();
                    let map3 = |g: &dyn Fn(f32, f32, f32) -> f32| {
                        V::F(
                            (0..a[0].len())
                                .map(|k| g(a[0][k], a[1][k], a[2][k]))
                                .collect(),
                        )
                    };
                    let map2 = |g: &dyn Fn(f32, f32) -> f32| {
                        V::F((0..a[0].len()).map(|k| g(a[0][k], a[1][k])).collect())
                    };
                    match op {
                        4 => V::F(a[0].iter().map(|x| x.abs()).collect()),
                        37 | 79 => map2(&f32::min),
                        40 | 80 => map2(&f32::max),
                        43 | 81 => map3(&|x, lo, hi| x.max(lo).min(hi)),
                        50 => map3(&|x, y, z| x * y + z),
                        k => panic!("GLSL.std.450 instruction {k}"),
                    }
                }
                other => panic!("the evaluator lacks {other:?}"),
            };
            vals.insert(r, v);
        }
        panic!("block without a terminator");
    }
    out
}

fn concat(parts: &[V]) -> V {
    match &parts[0] {
        V::F(_) => V::F(parts.iter().flat_map(|p| p.f().to_vec()).collect()),
        _ => V::U(parts.iter().flat_map(|p| p.u().to_vec()).collect()),
    }
}

/// Options that compile no D3D9 render state in (the state items have their own tests in
/// `state_tests`), so the modules stay straight-line code without specialization constants.
fn no_state() -> Options {
    let mut o = Options::default();
    o.d3d9.state = crate::d3d9_state::StateOptions::none();
    o
}

fn translate(src: &str) -> Ps1 {
    let t = |s: &str| {
        let bytes = d3dbc::asm::assemble(s).unwrap();
        crate::translate(&bytes, &no_state()).unwrap().spirv
    };
    let [a, b] = super::super::tests::ps1_unclamped(src);
    let bytes = d3dbc::asm::assemble(src).unwrap();
    Ps1 {
        spirv: [t(&a), t(&b)],
        reflection: crate::translate(&bytes, &no_state()).unwrap().reflection,
    }
}

fn assert_near(got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-5, "{got:?} vs {want:?}");
    }
}

fn dot3(a: [f32; 4], b: [f32; 4]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The identity texture's result at a 2D coordinate.
fn tex2(c: [f32; 4]) -> [f32; 4] {
    [c[0], c[1], 0.5, 1.0]
}

/// 2·N·(N·E)/(N·N) − E.
fn reflect(n: [f32; 3], e: [f32; 3]) -> [f32; 3] {
    let ne = n[0] * e[0] + n[1] * e[1] + n[2] * e[2];
    let nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    let k = 2.0 * ne / nn;
    [0, 1, 2].map(|i| n[i] * k - e[i])
}

const TC: [[f32; 4]; 4] = [
    [0.5, 0.25, 0.75, 0.125],
    [1.0, 2.0, 3.0, 0.25],
    [0.0, 1.0, 0.5, -0.5],
    [2.0, 0.0, 1.0, 0.75],
];

#[test]
fn tex_and_texcoord() {
    let t = translate("ps_1_1\ntex t0\ntexcoord t1\nadd r0, t0, t1\n");
    let r = run(&t.spirv, &TC, &[]);
    // t1 = saturate(tc1.xyz), w = 1.
    let t0 = tex2(TC[0]);
    assert_near(
        &r.color,
        &[t0[0] + 1.0, t0[1] + 1.0, t0[2] + 1.0, t0[3] + 1.0],
    );
    assert_eq!(r.sample_widths, [2]);
}

#[test]
fn texm3x3spec_reflects_the_constant_eye_ray() {
    let t = translate(
        "ps_1_3\ndef c0, 0.0, 0.6, 0.8, 0.0\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\n\
         texm3x3spec t3, t0, c0\nmov r0, t3\n",
    );
    let s = tex2(TC[0]);
    let n = [dot3(TC[1], s), dot3(TC[2], s), dot3(TC[3], s)];
    let want = reflect(n, [0.0, 0.6, 0.8]);
    let r = run(&t.spirv, &TC, &[]);
    assert_near(&r.color, &[want[0], want[1], want[2], 1.0]);
    // The stage is sampled as a cube map (3 coordinates), its reflection says so.
    assert_eq!(r.sample_widths, [2, 3]);
    let d9 = t.reflection.d3d9.unwrap();
    let s3 = d9.samplers.iter().find(|s| s.register == 3).unwrap();
    assert_eq!(s3.declared, "unknown");
    assert_eq!(s3.dim, crate::reflect::ResourceDim::TextureCube);
}

#[test]
fn texm3x3vspec_takes_the_eye_ray_from_the_rows_w() {
    let t = translate(
        "ps_1_1\ntex t0\ntexm3x3pad t1, t0_bx2\ntexm3x3pad t2, t0_bx2\n\
         texm3x3vspec t3, t0_bx2\nmov r0, t3\n",
    );
    let s = tex2(TC[0]).map(|x| 2.0 * x - 1.0);
    let n = [dot3(TC[1], s), dot3(TC[2], s), dot3(TC[3], s)];
    let want = reflect(n, [TC[1][3], TC[2][3], TC[3][3]]);
    let r = run(&t.spirv, &TC, &[]);
    assert_near(&r.color, &[want[0], want[1], want[2], 1.0]);
}

#[test]
fn texm3x3_texm3x3tex_and_texdp3() {
    // texm3x3: (u, v, w, 1); texm3x3tex samples the cube at (u, v, w).
    let t = translate(
        "ps_1_2\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3 t3, t0\nmov r0, t3\n",
    );
    let s = tex2(TC[0]);
    let n = [dot3(TC[1], s), dot3(TC[2], s), dot3(TC[3], s)];
    assert_near(&run(&t.spirv, &TC, &[]).color, &[n[0], n[1], n[2], 1.0]);
    let t = translate(
        "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3tex t3, t0\nmov r0, t3\n",
    );
    let r = run(&t.spirv, &TC, &[]);
    assert_near(&r.color, &[n[0], n[1], n[2], 1.0]);
    assert_eq!(r.sample_widths, [2, 3]);
    // texdp3: the dot replicated; texdp3tex: a lookup at (dot, 0).
    let t = translate("ps_1_2\ntex t0\ntexdp3 t1, t0\nmov r0, t1\n");
    let d = dot3(TC[1], s);
    assert_near(&run(&t.spirv, &TC, &[]).color, &[d; 4]);
    let t = translate("ps_1_2\ntex t0\ntexdp3tex t1, t0\nmov r0, t1\n");
    assert_near(&run(&t.spirv, &TC, &[]).color, &tex2([d, 0.0, 0.0, 0.0]));
}

#[test]
fn texm3x2tex_and_texm3x2depth() {
    let t = translate("ps_1_1\ntex t0\ntexm3x2pad t1, t0\ntexm3x2tex t2, t0\nmov r0, t2\n");
    let s = tex2(TC[0]);
    let (u, v) = (dot3(TC[1], s), dot3(TC[2], s));
    assert_near(&run(&t.spirv, &TC, &[]).color, &tex2([u, v, 0.0, 0.0]));
    let t = translate("ps_1_3\ntex t0\ntexm3x2pad t1, t0\ntexm3x2depth t2, t0\nmov r0, t0\n");
    assert!(
        t.reflection
            .outputs
            .iter()
            .any(|o| o.semantic_name == "DEPTH")
    );
    // z / w, clamped to [0, 1]; w = 0 gives 1.
    let r = run(&t.spirv, &TC, &[]);
    assert_near(&[r.depth.unwrap()], &[(u / v).clamp(0.0, 1.0)]);
    let mut tc = TC;
    tc[1] = [0.1, 0.1, 0.1, 0.0];
    tc[2] = [-1.0, 2.0, 0.0, 0.0];
    let s = tex2(tc[0]);
    let (z, w) = (dot3(tc[1], s), dot3(tc[2], s));
    assert_eq!(w, 0.0);
    assert!(z > 0.0 && z < 1.0);
    assert_near(&[run(&t.spirv, &tc, &[]).depth.unwrap()], &[1.0]);
}

/// Bump-environment rows: stage s at rows 2s (matrix) and 2s + 1 (luminance).
fn bump_rows() -> Vec<[f32; 4]> {
    let mut rows = vec![[0.0; 4]; 16];
    rows[2] = [0.5, -0.25, 2.0, 1.0];
    rows[3] = [9.0, 9.0, 0.0, 0.0];
    rows[4] = [1.0, 0.5, -0.5, 0.25];
    rows[5] = [2.0, 0.25, 0.0, 0.0];
    rows
}

#[test]
fn texbem_and_texbeml_use_the_stage_matrix_and_luminance() {
    let t = translate("ps_1_1\ntex t0\ntexbem t1, t0\ntexbeml t2, t0\nadd r0, t1, t2\n");
    let rows = bump_rows();
    let s = tex2(TC[0]);
    let bem = |m: [f32; 4], tc: [f32; 4]| {
        [
            tc[0] + m[0] * s[0] + m[2] * s[1],
            tc[1] + m[1] * s[0] + m[3] * s[1],
        ]
    };
    let [u1, v1] = bem(rows[2], TC[1]);
    let [u2, v2] = bem(rows[4], TC[2]);
    let l = s[2] * rows[5][0] + rows[5][1];
    let t1 = tex2([u1, v1, 0.0, 0.0]);
    let t2 = tex2([u2, v2, 0.0, 0.0]).map(|x| x * l);
    let want: Vec<f32> = (0..4).map(|i| t1[i] + t2[i]).collect();
    assert_near(&run(&t.spirv, &TC, &rows).color, &want);
    // The buffer: b3 of space 0, 256 bytes, in the reflection with the stages read.
    let d9 = t.reflection.d3d9.as_ref().unwrap();
    let be = d9.bump_env.as_ref().unwrap();
    assert_eq!(be.buffer_register, 3);
    assert_eq!(be.stages, [1, 2]);
    let d = t
        .reflection
        .descriptors
        .iter()
        .find(|d| d.origin.class == crate::reflect::RegisterClass::B && d.origin.lower == 3)
        .unwrap();
    assert_eq!(d.descriptor_type, DescriptorType::UniformBuffer);
    assert_eq!(
        d.shape,
        crate::reflect::ResourceShape::ConstantBuffer { size_bytes: 256 }
    );
    // No bump-environment buffer without texbem/texbeml/bem.
    let t = translate("ps_1_1\ntex t0\nmov r0, t0\n");
    assert!(t.reflection.d3d9.unwrap().bump_env.is_none());
    assert!(
        t.reflection
            .descriptors
            .iter()
            .all(|d| d.origin.lower != 3 || d.origin.class != crate::reflect::RegisterClass::B)
    );
}

#[test]
fn texreg2_reads_the_source_components_as_coordinates() {
    let s = tex2(TC[0]);
    let t = translate("ps_1_1\ntex t0\ntexreg2ar t1, t0\nmov r0, t1\n");
    assert_near(
        &run(&t.spirv, &TC, &[]).color,
        &tex2([s[3], s[0], 0.0, 0.0]),
    );
    let t = translate("ps_1_1\ntex t0\ntexreg2gb t1, t0\nmov r0, t1\n");
    assert_near(
        &run(&t.spirv, &TC, &[]).color,
        &tex2([s[1], s[2], 0.0, 0.0]),
    );
    // texreg2rgb samples a volume at (r, g, b).
    let t = translate("ps_1_2\ntex t0\ntexreg2rgb t1, t0\nmov r0, t1\n");
    let r = run(&t.spirv, &TC, &[]);
    assert_near(&r.color, &[s[0], s[1], s[2], 1.0]);
    assert_eq!(r.sample_widths, [2, 3]);
}

#[test]
fn ps_1_4_projective_divide_by_zero_gives_one() {
    // MS "ps_1_4 source register modifiers for texld, texcrd": x' = 1.0 (and y') if the
    // divisor is 0, for _dz and _dw alike; a nonzero divisor divides.
    let t = translate("ps_1_4\ntexcrd r1.rg, t1_dw.xyw\nmov r0, r1\n");
    for (w, want) in [(0.0, [1.0, 1.0]), (-0.0, [1.0, 1.0]), (4.0, [0.75, -0.5])] {
        let mut tc = TC;
        tc[1] = [3.0, -2.0, 0.0, w];
        assert_near(&run(&t.spirv, &tc, &[]).color[..2], &want);
    }
    let t = translate("ps_1_4\ntexcrd r1.rgb, t1\nphase\ntexld r0, r1_dz\n");
    let mut tc = TC;
    tc[1] = [-0.5, 0.5, 0.0, 1.0];
    assert_near(&run(&t.spirv, &tc, &[]).color, &tex2([1.0, 1.0, 0.0, 0.0]));
}

#[test]
fn ps_1_4_texld_texcrd_bem_and_texdepth() {
    // texld r0, t0_dz samples stage 0 at tc0 / tc0.z; texcrd copies unclamped, _dw divides.
    let t = translate("ps_1_4\ntexld r0, t0_dz\ntexcrd r1.xyz, t1_dw.xyw\nadd r0, r0, r1\n");
    let z = TC[0][2];
    let t0 = tex2(TC[0].map(|x| x / z));
    let w = TC[1][3];
    let t1 = [TC[1][0] / w, TC[1][1] / w, TC[1][3] / w];
    let r = run(&t.spirv, &TC, &[]);
    assert_near(
        &r.color[..3],
        &[t0[0] + t1[0], t0[1] + t1[1], t0[2] + t1[2]],
    );
    // bem r(m).xy: s0.xy + BUMPENVMAT(m) · s1.xy.
    let t =
        translate("ps_1_4\ntexcrd r0.xyz, t0\ntexcrd r1.xyz, t1\nbem r2.xy, r0, r1\nmov r0, r2\n");
    let rows = bump_rows();
    let m = rows[4];
    let (a, b) = (TC[0], TC[1]);
    let want = [
        a[0] + m[0] * b[0] + m[2] * b[1],
        a[1] + m[1] * b[0] + m[3] * b[1],
    ];
    let r = run(&t.spirv, &TC, &rows);
    assert_near(&r.color[..2], &want);
    assert_eq!(t.reflection.d3d9.unwrap().bump_env.unwrap().stages, [2]);
    // texdepth r5: r5.r / min(r5.g, 1), 1 where that is 0, clamped to [0, 1].
    let t = translate("ps_1_4\ntexcrd r5.xyz, t1\ntexdepth r5\nmov r0, r5\n");
    for (xy, want) in [
        ([0.3, 0.6], 0.5),
        ([0.3, 2.0], 0.3),
        ([0.5, 0.0], 1.0),
        ([-0.5, 1.0], 0.0),
        ([3.0, 0.5], 1.0),
    ] {
        let mut tc = TC;
        tc[1] = [xy[0], xy[1], 0.0, 1.0];
        assert_near(&[run(&t.spirv, &tc, &[]).depth.unwrap()], &[want]);
    }
}

#[test]
fn broken_texm_sequences_are_rejected_naming_the_rule() {
    for src in [
        "ps_1_1\ntex t0\ntexm3x3tex t3, t0\nmov r0, t3\n",
        "ps_1_1\ntex t0\ntexm3x2pad t1, t0\ntexm3x3tex t3, t0\nmov r0, t3\n",
        "ps_1_1\ntex t0\ntexm3x2pad t1, t0\ntexm3x2pad t2, t0\nmov r0, t0\n",
        // Uncompleted: the program ends after the pads.
        "ps_1_1\ntex t0\ntexm3x2pad t1, t0\nmov r0, t0\n",
        "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\nmov r0, t0\n",
        // Mixed kinds: a 3x3 pad completed as a 3x2 matrix, a 3x2 pad followed by a 3x3 one.
        "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x2tex t2, t0\nmov r0, t2\n",
        "ps_1_1\ntex t0\ntexm3x2pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3tex t3, t0\nmov r0, t3\n",
    ] {
        let bytes = d3dbc::asm::assemble(src).unwrap();
        let e = crate::translate(&bytes, &no_state()).unwrap_err();
        assert_eq!(e.rule(), Some("texm-sequence"), "{e}");
    }
}

#[test]
fn ps1_output_registers_are_not_writable() {
    // ps_1_x has no oC#/oDepth: its colour is r0, its depth comes from texdepth/texm3x2depth.
    for src in ["ps_1_1\nmov oC0, v0\n", "ps_1_4\nmov oDepth, c0\n"] {
        let bytes = d3dbc::asm::assemble(src).unwrap();
        let e = crate::translate(&bytes, &no_state()).unwrap_err();
        assert_eq!(e.rule(), Some("register-writable"), "{e}");
    }
}

/// The bump-environment state baked into the module (state items `bump-env-N`) gives what
/// the same values read from the buffer give.
#[test]
fn baked_bump_environment_matches_the_buffer() {
    use crate::d3d9_state::{StateDelivery, StateItem};
    let src = "ps_1_1\ntex t0\ntexbem t1, t0\ntexbeml t2, t0\nadd r0, t1, t2\n";
    let rows = bump_rows();
    let from_buffer = run(&translate(src).spirv, &TC, &rows).color;
    let mut opts = no_state();
    for stage in [1u8, 2] {
        let (m, l) = (rows[2 * stage as usize], rows[2 * stage as usize + 1]);
        let words = [m[0], m[1], m[2], m[3], l[0], l[1]]
            .map(f32::to_bits)
            .to_vec();
        opts.d3d9
            .state
            .set(StateItem::BumpEnv(stage), StateDelivery::Baked { words });
    }
    let t = |s: &str| crate::translate(&d3dbc::asm::assemble(s).unwrap(), &opts).unwrap();
    assert!(t(src).reflection.d3d9.as_ref().unwrap().bump_env.is_none());
    // No buffer: the rows given to the evaluator are never read.
    let [a, b] = super::super::tests::ps1_unclamped(src);
    assert_near(
        &run(&[t(&a).spirv, t(&b).spirv], &TC, &[]).color,
        &from_buffer,
    );
}
