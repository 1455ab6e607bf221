//! What the order analysis knows before walking a program: the threads of the run (how the
//! differential run dispatches or draws the shader, and which thread group each is in), the
//! values each thread's identity gives (thread IDs; a pixel's position), the constant
//! buffers as the run fills them, the immediate constant buffer, and the memories the
//! program shares between threads (UAVs and thread-group shared memory) with their layouts.

use super::value::Known;
use crate::diff::exec::cs_groups;
use crate::diff::inputs::TARGET;
use crate::diff::shader::{MAX_RANGE, Shader};
use std::collections::HashMap;
use translator::sm4::{self, CustomDataClass, Declaration, OperandType as T, ResourceDimension};

/// How a memory is addressed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Layout {
    /// Byte addresses.
    Raw,
    /// Element index and byte offset, elements this many bytes apart.
    Structured(u32),
    /// Texel coordinates, this many of them.
    Typed(usize),
}

/// One memory threads share.
#[derive(Debug, Clone)]
pub struct Mem {
    pub uav: bool,
    pub space: u32,
    pub register: u32,
    pub layout: Layout,
    /// Its elements are compared as a multiset (appended through its counter).
    pub appended: bool,
    /// Some instruction writes it.
    pub written: bool,
}

/// The run, the program's constants and its shared memories.
pub struct Setup<'a> {
    pub prog: &'a sm4::Program,
    pub n: usize,
    /// The thread group of each thread (threads of a group are consecutive).
    pub group: Vec<u32>,
    pub sm51: bool,
    pub mems: Vec<Mem>,
    /// `u#` operand range id → (space, first register, last register).
    pub uav_ranges: HashMap<u32, (u32, u32, u32)>,
    /// `cb#` operand range id → (space, first register).
    pub cb_ranges: HashMap<u32, (u32, u32)>,
    /// Constant buffer words by (space, register), as the run fills them.
    pub cbs: &'a HashMap<(u32, u32), Vec<u32>>,
    pub icb: Vec<u32>,
    /// Known input components: (v# register, component).
    pub inputs: HashMap<(u32, u8), Known>,
    /// vThreadID, vThreadGroupID, vThreadIDInGroup (3 components each) and
    /// vThreadIDInGroupFlattened.
    pub thread_id: [Known; 3],
    pub group_id: [Known; 3],
    pub in_group: [Known; 3],
    pub flat: Known,
}

fn coords(dim: ResourceDimension) -> usize {
    use ResourceDimension as D;
    match dim {
        D::Buffer | D::Texture1D => 1,
        D::Texture1DArray | D::Texture2D | D::Texture2DMS => 2,
        _ => 3,
    }
}

impl<'a> Setup<'a> {
    pub fn new(
        shader: &Shader,
        prog: &'a sm4::Program,
        cbs: &'a HashMap<(u32, u32), Vec<u32>>,
    ) -> Setup<'a> {
        let sm51 = prog.version.is_sm51();
        let mut s = Setup {
            prog,
            n: 2,
            group: vec![0, 1],
            sm51,
            mems: Vec::new(),
            uav_ranges: HashMap::new(),
            cb_ranges: HashMap::new(),
            cbs,
            icb: Vec::new(),
            inputs: HashMap::new(),
            thread_id: [Known::C(0), Known::C(0), Known::C(0)],
            group_id: [Known::C(0), Known::C(0), Known::C(0)],
            in_group: [Known::C(0), Known::C(0), Known::C(0)],
            flat: Known::C(0),
        };
        s.threads(shader);
        let written = written_memories(prog);
        for inst in prog.declarations() {
            if let Some(c) = inst.custom_data()
                && c.class == CustomDataClass::ImmediateConstantBuffer
            {
                s.icb = c.icb_rows().flatten().collect();
                continue;
            }
            let Some(decl) = inst.decl() else { continue };
            let Some(op) = inst.operands.first() else {
                continue;
            };
            let i = |k| op.imm_index(k).unwrap_or(0) as u32;
            let (id, lower, upper) = if sm51 {
                (i(0), i(1), i(2))
            } else {
                (i(0), i(0), i(0))
            };
            let space = decl.space().unwrap_or(0);
            let upper = upper.min(lower.saturating_add(MAX_RANGE - 1));
            let layout = match decl {
                Declaration::UavTyped { dim, .. } => Layout::Typed(coords(*dim)),
                Declaration::UavRaw { .. } | Declaration::TgsmRaw { .. } => Layout::Raw,
                Declaration::UavStructured { stride, .. }
                | Declaration::TgsmStructured { stride, .. } => Layout::Structured(*stride),
                Declaration::ConstantBuffer { .. } => {
                    s.cb_ranges.insert(id, (space, lower));
                    continue;
                }
                Declaration::InputPsSiv(_, name) if name.name == sm4::SystemName::Position => {
                    // Each pixel's centre: the run draws one single-sampled triangle over
                    // the whole target, so thread t is pixel (t mod 16, t / 16).
                    let (n, w) = (s.n, TARGET as usize);
                    let at = |f: &dyn Fn(usize) -> usize| -> Known {
                        Known::V((0..n).map(|t| (f(t) as f32 + 0.5).to_bits()).collect())
                    };
                    s.inputs.insert((i(0), 0), at(&|t| t % w));
                    s.inputs.insert((i(0), 1), at(&|t| t / w));
                    continue;
                }
                _ => continue,
            };
            if op.ty == T::ThreadGroupSharedMemory {
                s.mems.push(Mem {
                    uav: false,
                    space: 0,
                    register: id,
                    layout,
                    appended: false,
                    written: written.contains(&(false, id)),
                });
                continue;
            }
            let appended =
                matches!(decl, Declaration::UavStructured { .. }) && shader.appended.contains(&id);
            s.uav_ranges.insert(id, (space, lower, upper));
            for register in lower..=upper {
                s.mems.push(Mem {
                    uav: true,
                    space,
                    register,
                    layout,
                    appended,
                    written: written.contains(&(true, id)),
                });
            }
        }
        s
    }

    /// The threads of the run and what their identity gives.
    fn threads(&mut self, shader: &Shader) {
        use translator::ShaderStage as S;
        match shader.stage {
            S::Compute => {
                let [x, y, z] = shader.workgroup.map(|v| v.max(1) as usize);
                let per = (x * y * z).min(1024);
                let groups = cs_groups(shader.workgroup)[0] as usize;
                self.n = per * groups;
                let t = |f: &dyn Fn(usize, usize) -> usize| -> Known {
                    Known::V((0..self.n).map(|t| f(t / per, t % per) as u32).collect())
                };
                self.group = (0..self.n).map(|t| (t / per) as u32).collect();
                self.in_group = [
                    t(&|_, l| l % x),
                    t(&|_, l| l / x % y),
                    t(&|_, l| l / (x * y)),
                ];
                self.thread_id = [
                    t(&|g, l| g * x + l % x),
                    t(&|_, l| l / x % y),
                    t(&|_, l| l / (x * y)),
                ];
                self.group_id = [t(&|g, _| g), Known::C(0), Known::C(0)];
                self.flat = t(&|_, l| l);
            }
            S::Pixel => {
                self.n = (TARGET * TARGET) as usize;
                self.group = (0..self.n as u32).collect();
            }
            // Vertex and geometry shaders: two invocations stand for all (each its own
            // group); their identity is not modelled.
            _ => {}
        }
    }

    /// The memories an operand (`u#`, `g#`) names: one, or every register of an SM5.1 range
    /// indexed dynamically.
    pub fn mems_of(&self, op: &sm4::Operand) -> Vec<usize> {
        match op.ty {
            T::ThreadGroupSharedMemory => {
                let r = op.imm_index(0).unwrap_or(0) as u32;
                self.find(false, 0, r..=r)
            }
            T::UnorderedAccessView => {
                let id = op.imm_index(0).unwrap_or(0) as u32;
                let Some(&(space, lower, upper)) = self.uav_ranges.get(&id) else {
                    return Vec::new();
                };
                match (self.sm51, op.imm_index(1)) {
                    (false, _) => self.find(true, space, lower..=lower),
                    (true, Some(r)) => self.find(true, space, r as u32..=r as u32),
                    (true, None) => self.find(true, space, lower..=upper),
                }
            }
            _ => Vec::new(),
        }
    }

    fn find(&self, uav: bool, space: u32, regs: std::ops::RangeInclusive<u32>) -> Vec<usize> {
        (0..self.mems.len())
            .filter(|&m| {
                let x = &self.mems[m];
                x.uav == uav && x.space == space && regs.contains(&x.register)
            })
            .collect()
    }
}

/// (uav, operand range id) of every memory an instruction stores to or updates atomically.
fn written_memories(p: &sm4::Program) -> Vec<(bool, u32)> {
    let mut v = Vec::new();
    for inst in p.iter() {
        let op = inst.opcode;
        let writes = matches!(
            op,
            sm4::Opcode::StoreRaw | sm4::Opcode::StoreStructured | sm4::Opcode::StoreUavTyped
        ) || op.is_atomic();
        if !writes {
            continue;
        }
        for o in inst.operands {
            match o.ty {
                T::UnorderedAccessView => v.push((true, o.imm_index(0).unwrap_or(0) as u32)),
                T::ThreadGroupSharedMemory => v.push((false, o.imm_index(0).unwrap_or(0) as u32)),
                _ => {}
            }
        }
    }
    v
}

/// Whether the program writes memory other threads can see (or reads the cycle counter):
/// the only ways an output can depend on the order threads run in.
pub fn shares_memory(p: &sm4::Program) -> bool {
    !written_memories(p).is_empty()
        || p.iter().any(|i| {
            i.opcode == sm4::Opcode::ImmAtomicAlloc
                || i.opcode == sm4::Opcode::ImmAtomicConsume
                || i.operands.iter().any(|o| o.ty == T::CycleCounter)
        })
}
