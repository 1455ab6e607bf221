//! The render-state code after a program's last instruction — fog and alpha test after a
//! pixel shader, user clip planes after a vertex shader — made after the passes.
//!
//! That code is most of what a small D3D9 module holds, and no pass can change it when its
//! state items are specialization or push constants: nothing in it folds, repeats or dies.
//! So lowering leaves a placeholder (an `Op::Nop` instruction, opaque to the passes, with the
//! values the code reads as operands) and declares everything module-wide the code needs
//! (globals, decorations, capabilities, reflection entries) where the code would have been;
//! [`expand`] then writes the instructions in its place, in structured form, exactly as
//! lowering would have and the passes left them. Items baked at translation, which the
//! simplifier folds, and returns inside flow control keep the code in line (`state`).

use smallvec::SmallVec;
use spirv::Op;

use super::prebuilt::Templates;
use super::state_code::{PushBlock, StateCode};
use crate::d3d9_state::StateTable;
use crate::ir::builder::FnBuilder;
use crate::ir::{BlockId, Function, GlobalId, Merge, Module, Operand, Terminator, ValueId};
use crate::options::Options;

/// Which state code a placeholder stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TailKind {
    /// Operands: the colour, then its four components; the result is the fogged colour.
    Fog,
    /// Operands: the alpha tested.
    AlphaTest,
    /// Operands: the position.
    ClipPlanes,
}

/// One placeholder.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tail {
    pub kind: TailKind,
    /// The placeholder instruction.
    pub at: ValueId,
    /// The first value made for it: an operand from `first` on (an extract made for it and
    /// left by the passes) moves to where the code reads it, as it would have been made.
    pub first: ValueId,
    /// Fog: the FOG input and FragCoord; clip planes: ClipDistance.
    pub globals: [Option<GlobalId>; 2],
    /// The prebuilt code for it (`prebuilt`), when there is one: the placeholder's operands
    /// go on with the module's types, constants and globals the code names.
    pub template: Option<u32>,
    /// Whether the emitter writes the prebuilt code in its place ([`expand`] decides).
    pub spliced: bool,
}

/// What a D3D9 lowering leaves for [`expand`] (kept by the `Translator`, emptied by every
/// lowering).
#[derive(Debug, Default)]
pub(crate) struct Tails {
    pub list: Vec<Tail>,
    /// The push block of the state items, when the options push any.
    pub push: Option<PushBlock>,
}

impl Tails {
    pub fn clear(&mut self) {
        self.list.clear();
        self.push = None;
    }
}

/// Writes the state code of every placeholder of `m`'s entry function left in its layout
/// (one in a block the passes removed is dropped with it), or leaves the placeholder for the
/// emitter to write its prebuilt code (`prebuilt`) in its place where it can: when the code
/// opens no blocks or the placeholder's block returns (no phi then names the block the code
/// ends in), and no other code of the module declares the specialization constants the
/// prebuilt code declares.
pub(crate) fn expand(m: &mut Module, tails: &mut Tails, templates: &Templates, opts: &Options) {
    if tails.list.is_empty() {
        return;
    }
    let mut spliced_ids: SmallVec<[u32; 32]> = SmallVec::new();
    let mut rest = false;
    for tail in &mut tails.list {
        let Some(t) = tail.template else {
            rest = true;
            continue;
        };
        let code = &templates.template(t).code;
        let Some((li, _)) = find_in(&m.functions[0], tail.at) else {
            continue;
        };
        let f = &m.functions[0];
        let returns = matches!(
            f.block(f.layout[li]).term,
            Terminator::Return | Terminator::Unreachable
        );
        let own_specs = code
            .spec_ids
            .iter()
            .all(|&id| !m.consts.has_spec_id(id) && !spliced_ids.contains(&id));
        if (returns || !code.opens_blocks) && own_specs {
            tail.spliced = true;
            spliced_ids.extend_from_slice(&code.spec_ids);
        } else {
            rest = true;
        }
    }
    if !rest {
        return;
    }
    let table = StateTable::new(&opts.d3d9.state);
    let f = std::mem::take(&mut m.functions[0]);
    let mut b = FnBuilder::resume(m, f);
    for tail in &tails.list {
        if tail.spliced {
            continue;
        }
        let Some((li, pos)) = find(&b, tail.at) else {
            continue;
        };
        let block = b.f.layout[li];
        // The block splits at the placeholder: the code goes in its place, what followed
        // (and the terminator: the block returns) after it.
        let blk = b.f.block_mut(block);
        let rest: SmallVec<[ValueId; 8]> = blk.insts.drain(pos + 1..).collect();
        blk.insts.pop();
        let term = std::mem::replace(&mut blk.term, Terminator::Open);
        let merge = std::mem::replace(&mut blk.merge, Merge::None);
        let laid = b.f.layout.len();
        b.resume_at(block);
        let args: SmallVec<[Operand; 6]> = b.f.inst(tail.at).args[1..].iter().copied().collect();
        let mut code = StateCode {
            b: &mut b,
            table: &table,
            push: tails.push.as_ref(),
            structured: true,
        };
        let own = |b: &mut FnBuilder<'_>, x: Operand| take_own(b, block, tail, x);
        match tail.kind {
            TailKind::Fog => {
                let [fog, frag_coord] = tail.globals;
                let (fog, frag_coord) = (fog.expect("fog input"), frag_coord.expect("FragCoord"));
                let v = code.fog(
                    args[0],
                    |b, k| own(b, args[1 + k as usize]),
                    fog,
                    frag_coord,
                );
                // The fogged colour takes the placeholder's place (its users name it).
                let v = v.value().expect("the fog's result is a value");
                let inst = b.f.inst(v).clone();
                *b.f.inst_mut(tail.at) = inst;
                let cur = b.current();
                let last =
                    b.f.block_mut(cur)
                        .insts
                        .last_mut()
                        .expect("the fog's select");
                *last = tail.at;
            }
            TailKind::AlphaTest => code.alpha_test(
                |b| own(b, args[0]),
                |b| {
                    b.op_void(Op::DemoteToHelperInvocation, &[]);
                },
            ),
            TailKind::ClipPlanes => {
                code.clip_planes(args[0], tail.globals[0].expect("ClipDistance"));
            }
        }
        let end = b.current();
        let e = b.f.block_mut(end);
        e.insts.extend(rest);
        e.term = term;
        e.merge = merge;
        // Blocks the code began follow the split block.
        if b.f.layout.len() > laid {
            let added: SmallVec<[BlockId; 2]> = b.f.layout.drain(laid..).collect();
            b.f.layout.splice(li + 1..li + 1, added);
        }
    }
    m.functions[0] = b.into_function();
}

/// Where placeholder `at` is: its block's place in the layout and its index in the block.
fn find(b: &FnBuilder<'_>, at: ValueId) -> Option<(usize, usize)> {
    find_in(&b.f, at)
}

/// Searched from the end: placeholders are made at the program's end, so they are nearly
/// always in the last blocks, near their ends (a value is in at most one place).
fn find_in(f: &Function, at: ValueId) -> Option<(usize, usize)> {
    f.layout.iter().enumerate().rev().find_map(|(li, &blk)| {
        f.block(blk)
            .insts
            .iter()
            .rposition(|&v| v == at)
            .map(|pos| (li, pos))
    })
}

/// Operand `x` of a placeholder where its code reads it: an extract made for the
/// placeholder (from `tail.first` on) that the passes left moves from before the
/// placeholder in `block` to the end of the code made so far.
fn take_own(b: &mut FnBuilder<'_>, block: BlockId, tail: &Tail, x: Operand) -> Operand {
    if let Operand::Value(v) = x
        && (tail.first.0..tail.at.0).contains(&v.0)
        && b.f.inst(v).op == Op::CompositeExtract
    {
        let insts = &mut b.f.block_mut(block).insts;
        if let Some(i) = insts.iter().rposition(|&u| u == v) {
            insts.remove(i);
            let cur = b.current();
            b.f.block_mut(cur).insts.push(v);
        }
    }
    x
}
