//! Passes over the IR, run in order by [`run_with`] from one table, [`PIPELINE`]: structurize,
//! peephole simplification, common-subexpression elimination, dead-code elimination (once, at
//! the end: measured on the bench shaders, a DCE before CSE cost more than the CSE work it
//! saved). The functions come from lowering in SSA form already (`ir::ssa`). Every pass has one signature, [`Pass`]. In debug
//! builds (or with `DXBC_VALIDATE_IR` set) the IR validator checks each function after every
//! pass, so that a broken invariant names the pass that broke it; `DXBC_DUMP_IR` prints the IR
//! after the passes it names.

pub mod cfg;
pub mod cse;
pub mod dce;
pub mod min16;
pub mod phis;
pub mod repl;
pub mod simplify;
pub mod structurize;
#[cfg(test)]
mod tests;

use crate::ir::validate::{Stage, ValidationError, validate_function};
use crate::ir::{ConstTable, Function, Global, Module, TypeTable};
use cfg::DomTree;
use repl::Replacements;

/// Why a pass failed, naming the pass.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PassError {
    /// The program is valid but the pass cannot handle it (irreducible control flow, work
    /// over the pass's bounds).
    #[error("{pass}: unsupported {what}")]
    Unsupported { pass: &'static str, what: String },
    /// A bug in the pass: an invariant it relies on did not hold.
    #[error("{pass}: internal error: {what}")]
    Internal { pass: &'static str, what: String },
    /// The IR validator found a broken invariant right after the pass (a bug in that pass, or
    /// in lowering when `pass` is `"lowering"`).
    #[error("internal error after {pass}: {error}")]
    InvalidIr {
        pass: &'static str,
        error: ValidationError,
    },
}

impl PassError {
    /// What kind of failure this is.
    pub fn kind(&self) -> crate::ErrorKind {
        match self {
            PassError::Unsupported { .. } => crate::ErrorKind::Unsupported,
            PassError::Internal { .. } | PassError::InvalidIr { .. } => crate::ErrorKind::Internal,
        }
    }
}

/// What a pass may read and change besides the function: the module's tables, and the
/// dominator tree the structurizer leaves (no pass after it changes the control-flow graph).
pub struct PassCx<'m> {
    pub types: &'m mut TypeTable,
    pub consts: &'m mut ConstTable,
    pub globals: &'m [Global],
    pub dom: &'m mut Option<DomTree>,
    /// The passes' working buffers, kept across functions and translations.
    pub scratch: &'m mut Scratch,
}

/// The passes' working buffers: one field per pass (`repl` and `cfg` are shared by several),
/// cleared and refilled per function, never read across functions (no program state). A
/// [`crate::Translator`] keeps one from one translation to the next, so that steady-state
/// translation allocates little in the passes.
#[derive(Default)]
pub struct Scratch {
    /// A value replacement map the passes share (one allocation, not one per pass).
    pub repl: Replacements,
    pub cfg: cfg::Scratch,
    pub structurize: structurize::Scratch,
    pub simplify: simplify::Scratch,
    pub cse: cse::Scratch,
    pub dce: dce::Scratch,
}

impl PassCx<'_> {
    /// The dominator tree; computed here when no earlier pass left one.
    fn dom(&mut self, f: &Function) -> &DomTree {
        let scratch = &mut self.scratch.cfg;
        self.dom
            .get_or_insert_with(|| DomTree::compute_with(f, scratch))
    }
}

/// The one signature of a pass.
pub type Pass = fn(&mut Function, &mut PassCx<'_>) -> Result<(), PassError>;

/// The pipeline, in order: each pass's name (as `DXBC_DUMP_IR` and errors name it), the
/// validator's rules for the IR it leaves, and the pass.
pub const PIPELINE: &[(&str, Stage, Pass)] = &[
    ("structurize", Stage::Structured, |f, cx| {
        let s = &mut *cx.scratch;
        *cx.dom = Some(structurize::structurize_with(
            f,
            &mut s.structurize,
            &mut s.cfg,
        )?);
        Ok(())
    }),
    ("simplify", Stage::Ssa, |f, cx| {
        let s = &mut *cx.scratch;
        simplify::simplify(
            f,
            cx.types,
            cx.consts,
            cx.globals,
            &mut s.repl,
            &mut s.simplify,
        );
        Ok(())
    }),
    ("cse", Stage::Ssa, |f, cx| {
        let globals = cx.globals;
        cx.dom(f);
        let dom = cx.dom.as_ref().expect("computed above");
        let s = &mut *cx.scratch;
        cse::eliminate_common_subexpressions(f, globals, dom, &mut s.repl, &mut s.cse);
        Ok(())
    }),
    ("dce", Stage::Ssa, |f, cx| {
        dce::eliminate_dead_code(f, &mut cx.scratch.dce);
        Ok(())
    }),
];

/// Whether to validate after every pass (always in debug builds and tests).
pub(crate) fn checking() -> bool {
    static CHECKING: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CHECKING
        .get_or_init(|| cfg!(debug_assertions) || std::env::var_os("DXBC_VALIDATE_IR").is_some())
}

/// The passes after which `DXBC_DUMP_IR` asks for the IR: `1` or `all` for every pass (and
/// lowering), else a comma-separated list of pass names (`lowering` included).
fn dump_after(pass: &str) -> bool {
    static DUMP: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    let dump = DUMP.get_or_init(|| std::env::var("DXBC_DUMP_IR").ok().filter(|v| !v.is_empty()));
    match dump.as_deref() {
        None => false,
        Some("1" | "all") => true,
        Some(list) => list.split(',').any(|p| p.trim() == pass),
    }
}

/// Validates and dumps function `i` after `pass`, as the environment asks.
fn after(
    m: &Module,
    f: &Function,
    i: usize,
    stage: Stage,
    pass: &'static str,
) -> Result<(), PassError> {
    if checking() {
        validate_function(m, f, i, stage).map_err(|error| PassError::InvalidIr { pass, error })?;
    }
    if dump_after(pass) {
        let mut s = String::new();
        let _ = crate::ir::display::write_function(&mut s, f);
        #[allow(clippy::print_stderr)] // the dump is what DXBC_DUMP_IR asks for
        {
            eprintln!("=== function {i} after {pass}\n{s}");
        }
    }
    Ok(())
}

/// Validates every function of `m` after a step outside the pipeline named `step` (when
/// validation is on: debug builds, tests, `DXBC_VALIDATE_IR`), and dumps it as
/// `DXBC_DUMP_IR` asks.
pub fn validate(m: &Module, step: &'static str) -> Result<(), PassError> {
    if !checking() && !dump_after(step) {
        return Ok(());
    }
    for (i, f) in m.functions.iter().enumerate() {
        after(m, f, i, Stage::Ssa, step)?;
    }
    Ok(())
}

/// Runs the whole pass pipeline on every function of `m`.
#[cfg(test)]
pub fn run(m: &mut Module) -> Result<(), PassError> {
    run_with(m, &mut Scratch::default())
}

/// Runs the whole pass pipeline on every function of `m`, with working buffers kept by the
/// caller (see [`Scratch`]).
pub fn run_with(m: &mut Module, scratch: &mut Scratch) -> Result<(), PassError> {
    let mut funcs = std::mem::take(&mut m.functions);
    let result = (|| {
        for (i, f) in funcs.iter_mut().enumerate() {
            after(m, f, i, Stage::Lowered, "lowering")?;
            let mut dom = None;
            for &(name, stage, pass) in PIPELINE {
                let mut cx = PassCx {
                    types: &mut m.types,
                    consts: &mut m.consts,
                    globals: &m.globals,
                    dom: &mut dom,
                    scratch,
                };
                pass(f, &mut cx)?;
                after(m, f, i, stage, name)?;
                crate::stage_times::end(crate::stage_times::Stage::of_pass(name));
            }
            if let Some(dom) = dom {
                scratch.cfg.recycle(dom);
            }
        }
        Ok(())
    })();
    m.functions = funcs;
    result
}

/// Runs [`min16::narrow`] and a dead-code sweep on every function of `m` (after [`run_with`], when
/// the options ask for native 16-bit minimum precision); says which 16-bit kinds are used.
pub fn run_min16(m: &mut Module, scratch: &mut Scratch) -> Result<min16::Used, PassError> {
    let mut funcs = std::mem::take(&mut m.functions);
    let mut used = min16::Used::default();
    let result = (|| {
        for (i, f) in funcs.iter_mut().enumerate() {
            let u = min16::narrow(f, &m.types, &m.consts);
            used.float16 |= u.float16;
            used.int16 |= u.int16;
            dce::eliminate_dead_code(f, &mut scratch.dce);
            after(m, f, i, Stage::Ssa, "min16")?;
        }
        Ok(())
    })();
    m.functions = funcs;
    result.map(|()| used)
}
