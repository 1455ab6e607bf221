//! IR validator, run after every pass in debug builds (and by tests in release).
//!
//! Passes rewrite the IR in place; a bug in one shows up as invalid SPIR-V much later or as a
//! wrong result on the GPU. Checking the IR's own invariants right after each pass names the
//! pass that broke them.

use super::{Function, Merge, Module, Operand, Terminator};

/// How far the pipeline has come; later stages have stricter rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// After lowering: register variables may still be loaded and stored.
    Lowered,
    /// After structurizing: every branch is annotated as SPIR-V requires.
    Structured,
    /// After SSA construction: no register variables remain; phis match predecessors.
    Ssa,
}

/// A broken invariant of the IR: the function and the first rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("IR function {function}: {what}")]
pub struct ValidationError {
    /// Index of the function in its module.
    pub function: usize,
    /// The rule broken, naming the block or value.
    pub what: String,
}

/// Checks `f` (function `index` of `m`); the error names the first broken rule.
pub fn validate_function(
    m: &Module,
    f: &Function,
    index: usize,
    stage: Stage,
) -> Result<(), ValidationError> {
    check_function(m, f, stage).map_err(|what| ValidationError {
        function: index,
        what,
    })
}

fn check_function(m: &Module, f: &Function, stage: Stage) -> Result<(), String> {
    let err = |what: String| Err(what);
    if f.layout.is_empty() {
        return err("no blocks".into());
    }
    let mut in_layout = vec![false; f.blocks.len()];
    for &b in &f.layout {
        if b.0 as usize >= f.blocks.len() {
            return err(format!("layout names missing block B{}", b.0));
        }
        if in_layout[b.0 as usize] {
            return err(format!("block B{} twice in layout", b.0));
        }
        in_layout[b.0 as usize] = true;
    }
    // Where each value is defined, and that it is defined once.
    let mut def_block = vec![u32::MAX; f.insts.len()];
    for &b in &f.layout {
        for &v in &f.block(b).insts {
            if v.0 as usize >= f.insts.len() {
                return err(format!("B{} holds missing value %{}", b.0, v.0));
            }
            if def_block[v.0 as usize] != u32::MAX {
                return err(format!("value %{} placed twice", v.0));
            }
            def_block[v.0 as usize] = b.0;
        }
    }
    let preds = f.predecessors();
    let check_operand = |o: &Operand, user: String| -> Result<(), String> {
        match *o {
            Operand::Value(v)
                if v.0 as usize >= f.insts.len() || def_block[v.0 as usize] == u32::MAX =>
            {
                return Err(format!(
                    "{user} uses %{} which is not placed in a live block",
                    v.0
                ));
            }
            Operand::Const(c) if c.0 as usize >= m.consts.len() => {
                return Err(format!("{user} uses missing constant c{}", c.0));
            }
            Operand::Global(g) if g.0 as usize >= m.globals.len() => {
                return Err(format!("{user} uses missing global g{}", g.0));
            }
            Operand::Var(v) => {
                if stage >= Stage::Ssa {
                    return Err(format!("{user} still uses register variable var{}", v.0));
                }
                if v.0 as usize >= f.vars.len() {
                    return Err(format!("{user} uses missing variable var{}", v.0));
                }
            }
            Operand::Block(b) if b.0 as usize >= f.blocks.len() || !in_layout[b.0 as usize] => {
                return Err(format!("{user} names dead block B{}", b.0));
            }
            _ => {}
        }
        Ok(())
    };
    for &b in &f.layout {
        let block = f.block(b);
        let mut seen_non_phi = false;
        for &v in &block.insts {
            let inst = f.inst(v);
            if inst.op == spirv::Op::Phi {
                if seen_non_phi {
                    return err(format!(
                        "phi %{} after non-phi instructions in B{}",
                        v.0, b.0
                    ));
                }
                if stage >= Stage::Ssa {
                    let incoming: Vec<_> = inst
                        .args
                        .chunks(2)
                        .filter_map(|p| p.get(1).and_then(|o| o.block()))
                        .collect();
                    let p = &preds[b.0 as usize];
                    if incoming.len() != p.len() || !p.iter().all(|x| incoming.contains(x)) {
                        return err(format!(
                            "phi %{} in B{} has incoming {:?} but predecessors {:?}",
                            v.0,
                            b.0,
                            incoming.iter().map(|b| b.0).collect::<Vec<_>>(),
                            p.iter().map(|b| b.0).collect::<Vec<_>>()
                        ));
                    }
                }
            } else {
                seen_non_phi = true;
            }
            for o in &inst.args {
                check_operand(o, format!("%{} ({:?}) in B{}", v.0, inst.op, b.0))?;
            }
        }
        let succ_ok = |t: &super::BlockId| in_layout.get(t.0 as usize).copied().unwrap_or(false);
        match &block.term {
            Terminator::Open => return err(format!("block B{} has no terminator", b.0)),
            Terminator::CondBranch { cond, .. } => {
                check_operand(cond, format!("branch of B{}", b.0))?
            }
            Terminator::Switch { selector, .. } => {
                check_operand(selector, format!("switch of B{}", b.0))?
            }
            _ => {}
        }
        for s in block.term.successors() {
            if !succ_ok(&s) {
                return err(format!("B{} branches to dead block B{}", b.0, s.0));
            }
        }
        match block.merge {
            Merge::None => {
                if stage >= Stage::Structured && matches!(&block.term, Terminator::Switch { .. }) {
                    return err(format!("switch in B{} has no merge", b.0));
                }
            }
            Merge::Selection(mb) => {
                if !succ_ok(&mb) {
                    return err(format!("B{} merges at dead block B{}", b.0, mb.0));
                }
            }
            Merge::Loop {
                merge,
                continue_target,
            } => {
                if !succ_ok(&merge) || !succ_ok(&continue_target) {
                    return err(format!(
                        "loop header B{} names a dead merge or continue block",
                        b.0
                    ));
                }
            }
        }
    }
    Ok(())
}
