//! How far apart two correct translations of a shader may compute each output, from the
//! operations the output depends on: a backward slice over the decoded program (every
//! instruction whose result can reach the output through registers, ignoring control flow),
//! each instruction contributing the difference the D3D11.3 functional spec lets two
//! conforming implementations have for it. Differences add up along the slice.
//!
//! Per operation (both sides within the spec's bound of the exact result, so twice the bound
//! apart at most; ULPs are counted at the larger of the two magnitudes and 1.0):
//! * add, sub, mul: 1 ULP (each within 0.5 ULP); mad: 2 (it may be fused or not); dp2/3/4:
//!   3/5/7 (their multiplies and adds); `deriv_*`: 1; div: 5 (2.5 ULP); sqrt: 2 (1 ULP);
//! * rcp, rsq, exp: relative error 2^-21 each, 16 ULP apart; log: the same, or an absolute
//!   2^-21 each in [0.5, 2]; sincos: absolute 0.0008 each;
//! * moves, selects, min/max, integer and bit operations, conversions from integers: exact.
//!
//! Comparisons, conversions to integers, rounding and `frc` are **barriers**: their results are
//! exact functions of their inputs, so the analysis does not look past them (an output behind
//! one must match exactly; where the inputs differ within tolerance the difference is
//! reported, and judged by hand). Texture sampling with coordinates that carry a tolerance
//! adds an absolute 2^-8 (filter weights) and is a barrier too. Index registers (relative
//! addressing) are not followed.
//!
//! D3D9 programs use the same table (their `m4x4`-style macros as their dot products, `pow`
//! and `lit` as log + mul + exp, `nrm` as dp3 + rsq + mul, `expp`/`logp` at their 10-bit
//! precision); their outputs are not attributed to registers, so every output gets the
//! tolerance of all output-writing instructions together.

use super::outputs::Source;
use super::shader::{Program, Shader};
use std::collections::{HashMap, HashSet};
use translator::d3dbc;
use translator::sm4::{self, Opcode as O, OperandType as T};

/// An allowed difference: `ulps` at the values' magnitude (at least 1.0) plus `abs`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Tol {
    pub ulps: f64,
    pub abs: f64,
}

impl Tol {
    pub const EXACT: Tol = Tol {
        ulps: 0.0,
        abs: 0.0,
    };

    pub const fn ulps(u: f64) -> Tol {
        Tol { ulps: u, abs: 0.0 }
    }

    pub fn is_exact(&self) -> bool {
        self.ulps == 0.0 && self.abs == 0.0
    }

    fn plus(self, o: Tol) -> Tol {
        Tol {
            ulps: self.ulps + o.ulps,
            abs: self.abs + o.abs,
        }
    }
}

/// What an instruction contributes, and whether the slice continues through its sources.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    /// Adds this and follows the sources.
    Through(Tol),
    /// Stops here (the result is exact given its inputs).
    Barrier,
    /// Sampling: stops, adding 2^-8 when a coordinate carries a tolerance.
    Sample,
}

const TEXEL: f64 = 1.0 / 256.0;

fn sm4_step(op: O) -> Step {
    use Step::*;
    let u = |n| Through(Tol::ulps(n));
    match op {
        O::Add
        | O::Mul
        | O::DerivRtx
        | O::DerivRty
        | O::DerivRtxCoarse
        | O::DerivRtxFine
        | O::DerivRtyCoarse
        | O::DerivRtyFine => u(1.0),
        O::Mad => u(2.0),
        O::Dp2 => u(3.0),
        O::Dp3 => u(5.0),
        O::Dp4 => u(7.0),
        O::Div => u(5.0),
        O::Sqrt => u(2.0),
        O::Rcp | O::Rsq | O::Exp => u(16.0),
        O::Log => Through(Tol {
            ulps: 16.0,
            abs: 2.0 * f64::powi(2.0, -21),
        }),
        O::SinCos => Through(Tol {
            ulps: 0.0,
            abs: 0.0016,
        }),
        O::Eq
        | O::Ne
        | O::Lt
        | O::Ge
        | O::FtoI
        | O::FtoU
        | O::RoundNe
        | O::RoundNi
        | O::RoundPi
        | O::RoundZ
        | O::Frc
        | O::F32toF16
        | O::F16toF32
        | O::DEq
        | O::DGe
        | O::DLt
        | O::DNe
        | O::DtoI
        | O::DtoU
        | O::DtoF
        | O::FtoD => Barrier,
        O::Sample
        | O::SampleB
        | O::SampleC
        | O::SampleCLz
        | O::SampleD
        | O::SampleL
        | O::Lod
        | O::Gather4
        | O::Gather4C
        | O::Gather4Po
        | O::Gather4PoC
        | O::Gather4S
        | O::Gather4CS
        | O::Gather4PoS
        | O::Gather4PoCS
        | O::SampleLS
        | O::SampleCLzS
        | O::SampleClampS => Sample,
        // Loads by integer address, moves, selects, integer and bit operations, min/max.
        _ => Through(Tol::EXACT),
    }
}

/// A register component the slice tracks: (register file, index, component).
type Node = (u32, u32, u32);

/// One instruction's dataflow: which nodes it writes, and per written node the nodes read.
struct Inst {
    step: Step,
    writes: Vec<(Node, Vec<Node>)>,
}

/// The tolerances of a shader's outputs.
pub struct Analysis {
    insts: Vec<Inst>,
    writers: HashMap<Node, Vec<usize>>,
    /// Every node an output-writing instruction writes (for `Source::Any`).
    outputs: Vec<Node>,
    cache: std::cell::RefCell<HashMap<Node, Tol>>,
    /// Nodes being summed (a sample in a loop reads its own result's slice).
    active: std::cell::RefCell<HashSet<Node>>,
}

// Register files as node tags.
const F_TEMP: u32 = 0;
const F_INDEXABLE: u32 = 1;
const F_OUTPUT: u32 = 2;
const F_DEPTH: u32 = 3;
const F_UAV: u32 = 4;
const F_TGSM: u32 = 5;
const F_D3D9: u32 = 16;

impl Analysis {
    pub fn of(shader: &Shader) -> Analysis {
        let insts = match &shader.program {
            Program::Sm4(p) => sm4_insts(p),
            Program::D3d9(p) => d3d9_insts(p),
        };
        let mut writers: HashMap<Node, Vec<usize>> = HashMap::new();
        let mut outputs = Vec::new();
        for (i, inst) in insts.iter().enumerate() {
            for (n, _) in &inst.writes {
                writers.entry(*n).or_default().push(i);
                let out = match &shader.program {
                    Program::Sm4(_) => n.0 == F_OUTPUT || n.0 == F_DEPTH,
                    Program::D3d9(_) => n.0 >= F_D3D9 && d3d9_is_output(n.0 - F_D3D9),
                };
                if out && !outputs.contains(n) {
                    outputs.push(*n);
                }
            }
        }
        Analysis {
            insts,
            writers,
            outputs,
            cache: Default::default(),
            active: Default::default(),
        }
    }

    /// The tolerance of component `comp` of an output from `source`.
    pub fn tolerance(&self, source: &Source, comp: u32) -> Tol {
        let nodes: Vec<Node> = match source {
            Source::Register(r) => vec![(F_OUTPUT, *r, comp)],
            Source::Depth => vec![(F_DEPTH, 0, 0)],
            Source::Uav { register, .. } => vec![(F_UAV, *register, 0)],
            Source::Any => self.outputs.clone(),
        };
        nodes
            .iter()
            .map(|n| self.node(*n))
            .fold(Tol::EXACT, |a, b| Tol {
                ulps: a.ulps.max(b.ulps),
                abs: a.abs.max(b.abs),
            })
    }

    /// The sum over the node's backward slice.
    fn node(&self, n: Node) -> Tol {
        if let Some(t) = self.cache.borrow().get(&n) {
            return *t;
        }
        if !self.active.borrow_mut().insert(n) {
            return Tol::EXACT;
        }
        let mut seen: HashSet<usize> = HashSet::new();
        let mut visited: HashSet<Node> = HashSet::new();
        let mut work = vec![n];
        let mut total = Tol::EXACT;
        while let Some(node) = work.pop() {
            if !visited.insert(node) {
                continue;
            }
            for &i in self.writers.get(&node).map_or(&[][..], |v| v) {
                let inst = &self.insts[i];
                let reads: Vec<Node> = inst
                    .writes
                    .iter()
                    .filter(|(w, _)| *w == node)
                    .flat_map(|(_, r)| r.iter().copied())
                    .collect();
                let first = seen.insert(i);
                match inst.step {
                    Step::Through(t) => {
                        if first {
                            total = total.plus(t);
                        }
                        work.extend(reads);
                    }
                    Step::Barrier => {}
                    Step::Sample => {
                        if first && reads.iter().any(|r| !self.node(*r).is_exact()) {
                            total = total.plus(Tol {
                                ulps: 0.0,
                                abs: TEXEL,
                            });
                        }
                    }
                }
            }
        }
        self.active.borrow_mut().remove(&n);
        self.cache.borrow_mut().insert(n, total);
        total
    }
}

/// Ops whose result component c reads only component c of each source (after swizzle).
pub(super) fn componentwise(op: O) -> bool {
    !matches!(
        op,
        O::Dp2
            | O::Dp3
            | O::Dp4
            | O::Sample
            | O::SampleB
            | O::SampleC
            | O::SampleCLz
            | O::SampleD
            | O::SampleL
            | O::Lod
            | O::Gather4
            | O::Gather4C
            | O::Gather4Po
            | O::Gather4PoC
            | O::Ld
            | O::LdMs
            | O::ResInfo
            | O::BufInfo
            | O::SampleInfo
            | O::SamplePos
            | O::LdRaw
            | O::LdStructured
            | O::LdUavTyped
            | O::StoreRaw
            | O::StoreStructured
            | O::StoreUavTyped
            | O::Gather4S
            | O::Gather4CS
            | O::Gather4PoS
            | O::Gather4PoCS
            | O::SampleLS
            | O::SampleCLzS
            | O::SampleClampS
            | O::LdS
            | O::LdMsS
            | O::LdUavTypedS
            | O::LdRawS
            | O::LdStructuredS
            | O::Swapc
    ) && !format!("{op:?}").contains("Atomic")
}

/// The node of a register operand (its first index; indexable temps as whole arrays).
fn sm4_file(op: &sm4::Operand) -> Option<(u32, u32)> {
    let reg = op.imm_index(0).unwrap_or(0) as u32;
    Some(match op.ty {
        T::Temp => (F_TEMP, reg),
        T::IndexableTemp => (F_INDEXABLE, reg),
        T::Output => (F_OUTPUT, reg),
        T::OutputDepth | T::OutputDepthGreaterEqual | T::OutputDepthLessEqual => (F_DEPTH, 0),
        T::UnorderedAccessView => (F_UAV, reg),
        T::ThreadGroupSharedMemory => (F_TGSM, reg),
        _ => return None,
    })
}

/// Whether the file is tracked per component (memories are one node each).
fn per_component(file: u32) -> bool {
    matches!(file, F_TEMP | F_INDEXABLE | F_OUTPUT)
}

fn sm4_insts(p: &sm4::Program) -> Vec<Inst> {
    let mut out = Vec::new();
    for inst in p.iter() {
        if inst.opcode.is_declaration() {
            continue;
        }
        let ndst = inst.info().dsts().min(inst.operands.len());
        let (dsts, srcs) = inst.operands.split_at(ndst);
        // Memory writes (stores, atomics) name the UAV/TGSM as their destination: one node.
        let cw = componentwise(inst.opcode);
        let mut writes = Vec::new();
        for d in dsts {
            let Some((file, reg)) = sm4_file(d) else {
                continue;
            };
            if !per_component(file) {
                writes.push(((file, reg, 0), read_nodes(srcs, None)));
                continue;
            }
            let mask = d.mask();
            for c in 0..4u32 {
                if mask & (1 << c) == 0 {
                    continue;
                }
                let reads = read_nodes(srcs, cw.then_some(c));
                writes.push(((file, reg, c), reads));
            }
        }
        if !writes.is_empty() {
            out.push(Inst {
                step: sm4_step(inst.opcode),
                writes,
            });
        }
    }
    out
}

/// The nodes the sources read; `comp` for component-wise ops (the swizzled component).
fn read_nodes(srcs: &[sm4::Operand], comp: Option<u32>) -> Vec<Node> {
    let mut v = Vec::new();
    for s in srcs {
        let Some((file, reg)) = sm4_file(s) else {
            continue;
        };
        if !per_component(file) {
            v.push((file, reg, 0));
            continue;
        }
        match (s.components, comp) {
            (sm4::Components::Swizzle(sw), Some(c)) => {
                v.push((file, reg, u32::from(sw[c as usize])))
            }
            (sm4::Components::Swizzle(sw), None) => {
                v.extend(sw.iter().map(|c| (file, reg, u32::from(*c))))
            }
            (sm4::Components::Select1(c), _) => v.push((file, reg, u32::from(c))),
            (sm4::Components::Mask(m), _) => v.extend(
                (0..4u32)
                    .filter(|c| m & (1 << c) != 0)
                    .map(|c| (file, reg, c)),
            ),
            _ => v.push((file, reg, 0)),
        }
    }
    v
}

fn d3d9_is_output(ty: u32) -> bool {
    use d3dbc::RegisterType as R;
    [R::RastOut, R::AttrOut, R::Output, R::ColorOut, R::DepthOut]
        .iter()
        .any(|r| *r as u32 == ty)
        // ps_1_x writes its result in r0.
        || ty == 1000
}

fn d3d9_step(op: d3dbc::Opcode) -> Step {
    use Step::*;
    use d3dbc::Opcode as D;
    let u = |n| Through(Tol::ulps(n));
    match op {
        D::Add | D::Sub | D::Mul | D::Dsx | D::Dsy => u(1.0),
        D::Mad => u(2.0),
        D::Lrp => u(3.0),
        D::Crs => u(3.0),
        D::Dp3 | D::M3x3 | D::M3x2 | D::M4x3 | D::Dp2Add => u(5.0),
        D::Dp4 | D::M4x4 | D::M3x4 => u(7.0),
        D::Rcp | D::Rsq | D::Exp => u(16.0),
        D::Log => Through(Tol {
            ulps: 16.0,
            abs: 2.0 * f64::powi(2.0, -21),
        }),
        D::Nrm => u(22.0),
        D::Pow | D::Lit => Through(Tol {
            ulps: 64.0,
            abs: 2.0 * f64::powi(2.0, -20),
        }),
        D::ExpP | D::LogP => Through(Tol {
            ulps: 2.0 * f64::powi(2.0, 13),
            abs: 2.0 * f64::powi(2.0, -10),
        }),
        D::SinCos => Through(Tol {
            ulps: 0.0,
            abs: 0.0016,
        }),
        D::Bem => u(4.0),
        D::Slt | D::Sge | D::Frc | D::MovA | D::Sgn | D::SetP => Barrier,
        D::Tex
        | D::TexLdd
        | D::TexLdl
        | D::TexBem
        | D::TexBemL
        | D::TexReg2Ar
        | D::TexReg2Gb
        | D::TexReg2Rgb
        | D::TexM3x2Tex
        | D::TexM3x3Tex
        | D::TexM3x3Spec
        | D::TexM3x3VSpec
        | D::TexDp3Tex => Sample,
        _ => Through(Tol::EXACT),
    }
}

fn d3d9_insts(p: &d3dbc::Program) -> Vec<Inst> {
    let ps1 = !p.version.is_vertex() && p.version.major == 1;
    let mut out = Vec::new();
    let node = |r: &d3dbc::Register, c: u32| -> Node {
        let ty = r.ty as u32;
        // ps_1_x's result is r0.
        if ps1 && r.ty == d3dbc::RegisterType::Temp && r.num == 0 {
            return (F_D3D9 + 1000, 0, c);
        }
        (F_D3D9 + ty, u32::from(r.num), c)
    };
    for inst in p.instructions() {
        let Some(d) = &inst.dst else { continue };
        if matches!(
            inst.extra,
            d3dbc::Extra::Dcl(_)
                | d3dbc::Extra::Def(_)
                | d3dbc::Extra::DefI(_)
                | d3dbc::Extra::DefB(_)
        ) {
            continue;
        }
        let mut writes = Vec::new();
        for c in 0..4u32 {
            if d.mask & (1 << c) == 0 {
                continue;
            }
            // Component-wise reading is not worth the table here: every source component.
            let reads: Vec<Node> = inst
                .src
                .iter()
                .flat_map(|s| s.swizzle.0.iter().map(move |k| (s, *k)))
                .map(|(s, k)| node(&s.reg, u32::from(k)))
                .collect();
            writes.push((node(&d.reg, c), reads));
        }
        out.push(Inst {
            step: d3d9_step(inst.opcode),
            writes,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(asm: &str) -> Shader {
        let bytes = translator::asm::assemble(asm).expect("assembles");
        super::super::shader::load(bytes).expect("loads")
    }

    #[test]
    fn slices_sum_their_operations() {
        let s = program(
            "ps_5_0\ndcl_input_ps linear v0.xy\ndcl_output o0.xyzw\ndcl_output o1.xyzw\ndcl_temps 2\n\
             add r0.xy, v0.xyxx, v0.yxyy\nmul r1.x, r0.x, r0.y\nrcp r1.y, r0.x\nftoi r1.z, r0.x\n\
             mov o0.xyzw, r1.xyzz\nmov o1.xyzw, v0.xyxy\nret\n",
        );
        let a = Analysis::of(&s);
        let t = |c| a.tolerance(&Source::Register(0), c);
        assert_eq!(t(0), Tol::ulps(2.0), "mul after add");
        assert_eq!(t(1), Tol::ulps(17.0), "rcp after add");
        assert_eq!(t(2), Tol::EXACT, "ftoi is a barrier");
        assert_eq!(a.tolerance(&Source::Register(1), 0), Tol::EXACT, "a move");
    }
}
