//! Passes over the IR, run in order by [`run`]: structurize, SSA construction, phi retyping,
//! peephole simplification, common-subexpression elimination, dead-code elimination (once, at
//! the end: measured on the bench shaders, a DCE before CSE cost more than the CSE work it
//! saved). In debug builds the IR validator checks each function after every pass, so that a
//! broken invariant names the pass that broke it.

pub mod cfg;
pub mod cse;
pub mod dce;
pub mod retype;
pub mod simplify;
pub mod ssa;
pub mod structurize;

use crate::ir::validate::{Stage, ValidationError, validate_function};
use crate::ir::{Function, Module};

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

/// Whether to validate after every pass (always in debug builds and tests).
fn checking() -> bool {
    static CHECKING: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CHECKING
        .get_or_init(|| cfg!(debug_assertions) || std::env::var_os("DXBC_VALIDATE_IR").is_some())
}

/// Whether to print the IR after lowering and structurization (`DXBC_DUMP_IR`).
fn dumping() -> bool {
    static DUMPING: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DUMPING.get_or_init(|| std::env::var_os("DXBC_DUMP_IR").is_some())
}

fn check(
    m: &Module,
    f: &Function,
    i: usize,
    stage: Stage,
    pass: &'static str,
) -> Result<(), PassError> {
    if checking() {
        validate_function(m, f, i, stage).map_err(|error| PassError::InvalidIr { pass, error })?;
    }
    Ok(())
}

/// Runs the whole pass pipeline on every function of `m`.
pub fn run(m: &mut Module) -> Result<(), PassError> {
    let mut funcs = std::mem::take(&mut m.functions);
    let result = (|| {
        for (i, f) in funcs.iter_mut().enumerate() {
            check(m, f, i, Stage::Lowered, "lowering")?;
            let dump = dumping();
            if dump {
                let mut s = String::new();
                let _ = crate::ir::display::write_function(&mut s, f);
                eprintln!("=== function {i} after lowering\n{s}");
            }
            let dom = structurize::structurize(f)?;
            if dump {
                let mut s = String::new();
                let _ = crate::ir::display::write_function(&mut s, f);
                eprintln!("=== function {i} after structurize\n{s}");
            }
            check(m, f, i, Stage::Structured, "structurize")?;
            ssa::construct_ssa(f, &mut m.consts, &dom);
            check(m, f, i, Stage::Ssa, "ssa")?;
            retype::retype_phis(f, &m.types, &mut m.consts);
            check(m, f, i, Stage::Ssa, "retype")?;
            simplify::simplify(f, &mut m.types, &mut m.consts);
            check(m, f, i, Stage::Ssa, "simplify")?;
            cse::eliminate_common_subexpressions(f, &m.globals, &dom);
            check(m, f, i, Stage::Ssa, "cse")?;
            dce::eliminate_dead_code(f);
            check(m, f, i, Stage::Ssa, "dce")?;
        }
        Ok(())
    })();
    m.functions = funcs;
    result
}
