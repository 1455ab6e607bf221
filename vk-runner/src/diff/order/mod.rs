//! Which outputs of a shader depend on the order its threads run in, which D3D leaves
//! undefined: the value an atomic returns, a load racing with another thread's write, the
//! final contents of memory that threads update with operations that do not commute, an
//! append order. Two correct translations may differ there, so those outputs are not
//! compared; everything else (a count built with atomic adds and read after a barrier, each
//! thread's own element) still is, exactly.
//!
//! The analysis walks the program for every thread of the run at once ([`interp`]), with the
//! values each thread's identity and the run's constant buffers determine, records every
//! access to shared memory, and finds the racing ones ([`races`]); loads found racing make
//! their results order-dependent, so the walk repeats until that set settles. Where it
//! cannot follow a program (interface calls, limits of work) it gives up and no output of
//! that shader is compared. Direct3D 9 shaders have no shared memory: nothing of theirs
//! depends on the order.

mod flow;
mod interp;
mod races;
mod setup;
mod value;

#[cfg(test)]
mod tests;

use super::outputs::Source;
use super::shader::{Program, Shader};
use std::collections::{HashMap, HashSet};
use translator::ShaderStage;

/// Walks before the set of racing loads must have settled (each adds one at least).
const MAX_ROUNDS: usize = 64;

/// Why an output depends on the order threads run in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// Threads write one element of it, unordered, with updates that do not commute.
    RacingWrites,
    /// Written with a value, at an address, or under a condition that depends on the order.
    OrderDependentWrite,
    /// Computed from, or decided by, an atomic's return value, a racing load or a counter's
    /// slot number.
    OrderDependentValue,
    /// A discard decided by such a value.
    Discard,
}

impl Why {
    pub fn text(self) -> &'static str {
        match self {
            Why::RacingWrites => {
                "threads write one element unordered, with updates that do not commute"
            }
            Why::OrderDependentWrite => {
                "written with a value, at an address or under a condition that depends on the order"
            }
            Why::OrderDependentValue => {
                "computed from an atomic's return value, a racing load or a counter's slot"
            }
            Why::Discard => "the pixel's discard depends on the order",
        }
    }
}

/// The order-dependent outputs of one shader.
#[derive(Debug, Default)]
pub struct Order {
    /// Output register components (`o#`, component).
    regs: HashSet<(u32, u32)>,
    depth: bool,
    /// Every register output, and why (a pixel discarded by an order-dependent condition).
    all_regs: Option<Why>,
    /// UAVs by (space, register), and why.
    uavs: HashMap<(u32, u32), Why>,
    /// Why the analysis could not follow the program: then no output is compared.
    pub gave_up: Option<String>,
}

impl Order {
    /// Nothing depends on the order.
    pub fn none() -> Order {
        Order::default()
    }

    /// The analysis of `shader` as a run with these constant buffers ((space, register) →
    /// words) executes it.
    pub fn of(shader: &Shader, cbs: &HashMap<(u32, u32), Vec<u32>>) -> Order {
        let Program::Sm4(p) = &shader.program else {
            return Order::none();
        };
        let runs = matches!(
            shader.stage,
            ShaderStage::Compute | ShaderStage::Pixel | ShaderStage::Vertex | ShaderStage::Geometry
        );
        if !runs || !setup::shares_memory(p) {
            return Order::none();
        }
        let gave_up = |why: String| Order {
            gave_up: Some(why),
            ..Order::default()
        };
        let flow = match flow::build(p) {
            Ok(f) => f,
            Err(e) => return gave_up(e),
        };
        let s = setup::Setup::new(shader, p, cbs);
        let mut racing: HashSet<usize> = HashSet::new();
        for _ in 0..MAX_ROUNDS {
            let run = interp::Run::walk(&s, &flow, &racing);
            if let Some(e) = run.failed {
                return gave_up(e);
            }
            let v = races::judge(&s, &run.accesses);
            if v.reads.is_subset(&racing) {
                let uavs = s
                    .mems
                    .iter()
                    .zip(&v.mems)
                    .filter_map(|(m, why)| Some(((m.space, m.register), (*why)?)).filter(|_| m.uav))
                    .collect();
                return Order {
                    regs: run.out_od,
                    depth: run.depth_od,
                    all_regs: run.all_od,
                    uavs,
                    gave_up: None,
                };
            }
            racing.extend(v.reads);
        }
        gave_up("the racing loads do not settle".into())
    }

    /// Why component `comp` of the output written from `source` depends on the order, or
    /// None where it does not (and is compared).
    pub fn why(&self, source: &Source, comp: u32) -> Option<String> {
        match &self.gave_up {
            Some(g) => Some(format!("the order analysis gave up: {g}")),
            None => self.reason(source, comp).map(|w| w.text().into()),
        }
    }

    /// Whether component `comp` of the output written from `source` depends on the order.
    pub fn skips(&self, source: &Source, comp: u32) -> bool {
        self.gave_up.is_some() || self.reason(source, comp).is_some()
    }

    fn reason(&self, source: &Source, comp: u32) -> Option<Why> {
        let own = match source {
            Source::Register(r) => self.regs.contains(&(*r, comp)),
            Source::Depth => self.depth,
            Source::Uav { register, space } => {
                return self.uavs.get(&(*space, *register)).copied();
            }
            Source::Any => false,
        };
        self.all_regs.or(own.then_some(Why::OrderDependentValue))
    }
}
