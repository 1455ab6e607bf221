//! Programs Direct3D accepts that lowering could not take as written, rewritten to what
//! Direct3D does with them.
//!
//! Why: a rule without a Direct3D source must not refuse (`docs/rules.md`); where such a
//! program's form would otherwise reach lowering in a shape it does not expect, it is rewritten
//! here, on the decoded program, to an equivalent form. Run after [`super::check`] and before
//! lowering, when the check saw such a form ([`super::Scratch::has_empty_destination`]: most
//! programs have none, and then the walk is skipped).
//!
//! - A register destination (`r#`, `x#`, `o#`, ...) whose write mask names no component writes
//!   nothing: it becomes `null`, the destination of a result no one keeps. The instruction still
//!   runs, so its other effects (an atomic's memory update, a second destination) remain.

use crate::sm4::{Components, OperandType as T, Program};

/// Whether destination `op` is the form [`relax`] rewrites: a register whose write mask names
/// no component. The rule check asks the same of each destination
/// ([`super::Scratch::has_empty_destination`]).
pub(super) fn writes_nothing(op: &crate::sm4::Operand) -> bool {
    op.components == Components::Mask(0) && matches!(op.ty, T::Temp | T::IndexableTemp | T::Output)
}

/// Rewrites `prog` in place (see the module documentation).
pub fn relax(prog: &mut Program) {
    let Program {
        instructions,
        operands,
        ..
    } = prog;
    for inst in instructions.iter() {
        let info = inst.opcode.info();
        if info.is_declaration() {
            continue;
        }
        let start = inst.operand_range.start as usize;
        let end = (inst.operand_range.end as usize).min(operands.len());
        let n = info.dsts().min(end.saturating_sub(start));
        for op in operands.iter_mut().skip(start).take(n) {
            if writes_nothing(op) {
                *op = crate::sm4::Operand::new(T::Null, Components::Zero);
            }
        }
    }
}
