//! The order analysis's walk: executes the program for all threads of the run at once, on
//! [`Val`]s instead of values. A thread's values are known where they follow from its
//! identity and the run's constants, so branches and loops on them are followed thread by
//! thread (loops unrolled while every thread's exit is known, else iterated to a fixed
//! point); what is not known is tracked by how uniform it is. On the way it records every
//! access to shared memory (which threads may make it, at which addresses, with which
//! operands, between which barriers) and which outputs receive a value that depends on the
//! order threads run in: the return value of an atomic, a read that [`super::races`] found
//! racing, anything computed from those or decided by them.
//!
//! The walk itself ([`Run`]) lives here; its parts are split by job: following blocks,
//! branches, switches and calls ([`walk`]), loops ([`loops`]), joining the states of paths
//! that meet ([`merge`]), the instructions' semantics on abstract values ([`alu`]), accesses
//! to memory and atomics ([`memory`]), reading and writing operands ([`operands`]), and
//! thread sets ([`mask`]).

mod alu;
mod loops;
mod mask;
mod memory;
mod merge;
mod operands;
mod walk;

pub use mask::Mask;
pub use memory::{Access, Addr, Effect, Epochs};

use super::Why;
use super::flow::Flow;
use super::setup::Setup;
use super::value::Val;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use translator::sm4::{InstRef, Opcode as O};

/// A register component: (file, register, component).
type Node = (u8, u32, u8);
const TEMP: u8 = 0;
const XTEMP: u8 = 1;
const OUT: u8 = 2;

/// Work limits: beyond them the analysis gives up (and the shader's outputs go uncompared).
const MAX_STEPS: u64 = 60_000_000;
const MAX_UNROLL: usize = 256;
const MAX_FIXPOINT: usize = 64;
const MAX_ACCESSES: usize = 20_000;
const MAX_CALL_DEPTH: usize = 16;
/// Barrier ids inside loops iterated to a fixed point: one per barrier instruction.
const SITE_EPOCH: u32 = 1 << 30;

#[derive(Clone, PartialEq)]
struct State {
    env: HashMap<Node, Val>,
    mask: Mask,
    /// Executing under a condition that depends on the order threads run in.
    ctl: bool,
    /// Some thread left (returned, broke out, was discarded) by such a condition.
    sticky: bool,
    ep_g: Epochs,
    ep_u: Epochs,
}

struct LoopCtx {
    switch: bool,
    breaks: Vec<State>,
    continues: Vec<State>,
}

/// One walk over the program.
pub struct Run<'a> {
    s: &'a Setup<'a>,
    flow: &'a Flow,
    /// Loads found racing in an earlier walk (instruction index).
    od_reads: &'a HashSet<usize>,
    pub accesses: Vec<Access>,
    /// Output register components given an order-dependent value.
    pub out_od: HashSet<(u32, u32)>,
    pub depth_od: bool,
    /// Every output (a pixel discarded by an order-dependent condition; an output written
    /// through a dynamic index with an order-dependent value).
    pub all_od: Option<Why>,
    pub failed: Option<String>,
    recording: bool,
    fixpoint: usize,
    next_epoch: u32,
    steps: u64,
    loops: Vec<LoopCtx>,
    frames: Vec<Vec<State>>,
    supported: HashMap<O, bool>,
}

impl<'a> Run<'a> {
    pub fn walk(s: &'a Setup<'a>, flow: &'a Flow, od_reads: &'a HashSet<usize>) -> Run<'a> {
        let mut r = Run {
            s,
            flow,
            od_reads,
            accesses: Vec::new(),
            out_od: HashSet::new(),
            depth_od: false,
            all_od: None,
            failed: None,
            recording: true,
            fixpoint: 0,
            next_epoch: 1,
            steps: 0,
            loops: Vec::new(),
            frames: Vec::new(),
            supported: HashMap::new(),
        };
        let start = State {
            env: HashMap::new(),
            mask: Mask::full(s.n),
            ctl: false,
            sticky: false,
            ep_g: Rc::new([0].into()),
            ep_u: Rc::new([0].into()),
        };
        r.block(&flow.main, start);
        r
    }

    fn fail(&mut self, why: impl Into<String>) {
        if self.failed.is_none() {
            self.failed = Some(why.into());
        }
    }

    fn inst(&self, i: usize) -> InstRef<'a> {
        self.s.prog.get(i).expect("an instruction of the program")
    }
}
