//! The block shapes of structured flow control, shared by the SM4/5 and D3D9 front ends.
//!
//! Both lower `if`/`else`/`endif` and loops to plain blocks and branches for the structurizer
//! (see `lower/flow.rs`), and it relies on one shape: an `if` ends its header with a
//! conditional branch to a fresh then-block and a fresh else-block, `else` sends the
//! then-branch to a fresh end block, `endif` joins at that end block (or at the else-block
//! when there was no `else`) and records the join on the header; a loop starts in a fresh
//! header block that records its exit. Building that in one place keeps the front ends from
//! drifting apart.

use super::builder::FnBuilder;
use super::{BlockId, Operand, Terminator};

/// An open `if`: the block whose conditional branch opened it, the block its false branch
/// goes to, and — once `else` came — the block the then-branch ends in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IfFrame {
    pub header: BlockId,
    pub else_block: BlockId,
    pub end: Option<BlockId>,
}

impl FnBuilder<'_> {
    /// `if`: ends the current block with a branch on `cond` and begins the then-block.
    pub fn open_if(&mut self, cond: Operand) -> IfFrame {
        let header = self.current();
        let then_block = self.new_block();
        let else_block = self.new_block();
        self.terminate(Terminator::CondBranch {
            cond,
            on_true: then_block,
            on_false: else_block,
        });
        self.begin(then_block);
        IfFrame {
            header,
            else_block,
            end: None,
        }
    }

    /// `else` of `frame` (which has had none): the then-branch goes to a fresh end block and
    /// the else-block begins.
    pub fn begin_else(&mut self, frame: &mut IfFrame) {
        debug_assert!(frame.end.is_none());
        let end = self.new_block();
        self.terminate(Terminator::Branch(end));
        self.begin(frame.else_block);
        frame.end = Some(end);
    }

    /// `endif`: both branches meet at the join, which begins.
    pub fn close_if(&mut self, frame: IfFrame) {
        let join = frame.end.unwrap_or(frame.else_block);
        self.f.block_mut(frame.header).join = Some(join);
        self.branch_and_begin(join);
    }

    /// Starts a loop: branches to `header` (a fresh block), begins it and records `exit` as
    /// where the loop goes on after it. The header takes its back edges until `exit` begins
    /// (it stays unsealed until then: see `ir::ssa`).
    pub fn begin_loop(&mut self, header: BlockId, exit: BlockId) {
        self.terminate(Terminator::Branch(header));
        self.begin_with(header, false);
        self.seal_when_begun(header, exit);
        self.f.block_mut(header).loop_exit = Some(exit);
    }
}
