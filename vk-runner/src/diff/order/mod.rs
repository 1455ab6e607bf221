//! Which outputs of a shader depend on the order its threads run in, which D3D leaves
//! undefined: the value an atomic returns, a load racing with another thread's write, the
//! final contents of memory that threads update with operations that do not commute, an
//! append order. Two correct translations may differ there, so those outputs are not
//! compared; everything else (a count built with atomic adds and read after a barrier, each
//! thread's own element) still is, exactly.
//!
//! The analysis walks the program for every thread of the run at once (`interp`), with the
//! values each thread's identity and the run's constant buffers determine, records every
//! access to shared memory, and finds the racing ones (`races`); loads found racing make
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

use super::outputs::{Output, Source, Unit};
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

/// A UAV whose final contents depend on the order: why, and where.
#[derive(Debug)]
struct Uav {
    why: Why,
    /// The words (buffers) or texels (typed UAVs) that do, or None for all.
    words: Option<HashSet<races::Key>>,
    layout: setup::Layout,
}

/// The order-dependent outputs of one shader.
#[derive(Debug, Default)]
pub struct Order {
    /// Output register components (`o#`, component).
    regs: HashSet<(u32, u32)>,
    depth: bool,
    /// Every register output, and why (a pixel discarded by an order-dependent condition).
    all_regs: Option<Why>,
    /// UAVs by (space, register) whose final contents depend on the order.
    uavs: HashMap<(u32, u32), Uav>,
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
                    .zip(v.mems)
                    .filter(|(m, _)| m.uav)
                    .filter_map(|(m, od)| {
                        let (why, words) = od?;
                        // Appended elements are compared as a multiset: all or nothing.
                        let words = words.filter(|_| !m.appended);
                        let layout = m.layout;
                        Some(((m.space, m.register), Uav { why, words, layout }))
                    })
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

    /// Why component `comp` of the output written from `source` (some elements of it, for
    /// a UAV) depends on the order, or None where it does not.
    pub fn why(&self, source: &Source, comp: u32) -> Option<String> {
        match &self.gave_up {
            Some(g) => Some(format!("the order analysis gave up: {g}")),
            None => self.reason(source, comp).map(|w| w.text().into()),
        }
    }

    /// Whether component `comp` of element `e` of output `o` depends on the order.
    pub fn skips(&self, o: &Output, e: usize, comp: u32) -> bool {
        if self.gave_up.is_some() {
            return true;
        }
        if let Source::Uav { register, space } = o.source {
            return self.uavs.get(&(space, register)).is_some_and(|u| {
                u.words
                    .as_ref()
                    .is_none_or(|w| w.contains(&key(o, e, u.layout)))
            });
        }
        self.reason(&o.source, comp).is_some()
    }

    fn reason(&self, source: &Source, comp: u32) -> Option<Why> {
        let own = match source {
            Source::Register(r) => self.regs.contains(&(*r, comp)),
            Source::Depth => self.depth,
            Source::Uav { register, space } => {
                return self.uavs.get(&(*space, *register)).map(|u| u.why);
            }
            Source::Any => false,
        };
        self.all_regs.or(own.then_some(Why::OrderDependentValue))
    }
}

/// The word or texel the analysis names element `e` of a UAV read back as `o`: buffers by
/// element (a word of raw and structured ones, a texel of typed ones), images by texel
/// coordinates, layers (or depth slices) after one another.
fn key(o: &Output, e: usize, layout: setup::Layout) -> races::Key {
    let e = e as u32;
    let Unit::Texel { width, height } = o.unit else {
        return [e, 0, 0];
    };
    let (w, h) = (width.max(1), height.max(1));
    let (x, y, z) = (e % w, e / w % h, e / (w * h));
    match layout {
        // A 1D array: (x, layer).
        setup::Layout::Typed(2) if h == 1 => [x, z, 0],
        setup::Layout::Typed(1) => [x, 0, 0],
        _ => [x, y, z],
    }
}
