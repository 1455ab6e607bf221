//! The structurizer: annotates a function's control-flow graph with the merge and continue
//! blocks that SPIR-V's structured control flow requires, and reshapes the graph where D3D's
//! flow is legal but SPIR-V's rules are not met.
//!
//! Lowering turns D3D flow (if/loop/switch, break(c), continue(c), ret(c), subroutines) into
//! plain blocks and branches with no structure attached. This pass rebuilds the structure
//! from the graph alone:
//!
//! 1. **Loops** are found from back edges (an edge to a block that dominates its source; any
//!    other retreating edge means irreducible flow, which is rejected). Each natural loop gets
//!    a merge block — the exit target that is not inside the loop construct, or, when every
//!    exit is a `ret` path, the busiest exit — and a fresh continue block that all back edges
//!    are redirected to, so each header has exactly one back edge. A header that would also
//!    have to be a selection header is split in two.
//! 2. Blocks are assigned to their innermost loop *construct* (SPIR-V's dominance-based
//!    definition, so `ret` paths leaving a natural loop stay inside its construct).
//! 3. **Selections** (conditional branches and switches) get the immediate post-dominator of
//!    their header as merge, computed per loop region with inner loops collapsed to one node
//!    and breaks, continues and returns treated as leaving the region. When every path leaves,
//!    a fresh unreachable merge block is made. A merge already claimed by an enclosing header
//!    gets a fresh forwarding block.
//! 4. **Switch** targets are ordered so that a case falling through into another is directly
//!    followed by it, as SPIR-V requires.
//! 5. Blocks are laid out in a reverse post-order that visits merge blocks last, so every block
//!    comes after its dominators and each construct's body before its merge.
//!
//! **Plain flow.** When the front end promises plainly nested `if`s, `switch`es and `loop`s
//! ([`Function::plain_flow`]), steps 2–4 have nothing to find: each selection's join is its
//! merge. Without a loop step 1 has nothing to do either: [`take_stated_joins`] checks what is
//! cheap to check and takes the joins, and only step 5 runs. With loops, step 1 runs as
//! always (the continue blocks, split headers and phis moved are the general path's own), then
//! the joins are taken and step 5 runs. Where the IR is checked, the general path runs on a
//! copy and must agree.

use super::cfg::{DomTree, Preds, immediate_dominators_into, reverse_post_order_into};
use super::{PassError, phis};
use crate::ir::{BlockId, Function, Merge, Terminator};

const TOP: usize = usize::MAX;

/// Restructuring loops costs about (loops × blocks): each loop recomputes predecessors,
/// renumbers the dominator tree (updated in place, not recomputed) and keeps a body set over
/// all blocks. Real programs stay far below this bound
/// (a hundred loops in ten thousand blocks is 2^20); a hostile one over it gets an error rather
/// than minutes of work and a quadratic amount of memory.
const MAX_LOOP_WORK: u64 = 1 << 24;

#[derive(Debug)]
struct Loop {
    header: BlockId,
    latches: Vec<BlockId>,
    body: Vec<bool>,
    merge: BlockId,
    cont: BlockId,
    parent: usize,
}

fn unsupported(what: impl Into<String>) -> PassError {
    PassError::Unsupported {
        pass: "structurize",
        what: what.into(),
    }
}

/// The error for irreducible control flow around block `s`, naming the size of the cycle it
/// is in (found by petgraph's `tarjan_scc` on the function's graph; a cold path).
fn irreducible(f: &Function, s: BlockId) -> PassError {
    let sccs = petgraph::algo::tarjan_scc(super::cfg::Cfg::new(f));
    let size = sccs.iter().find(|c| c.contains(&s)).map_or(0, |c| c.len());
    unsupported(format!(
        "irreducible control flow (a cycle of {size} blocks entered other than through its \
         header)"
    ))
}

/// Simplifies trivial branches: a conditional branch with one target becomes a branch, and so
/// does a switch whose every target is its exit.
fn fold_trivial_branches(f: &mut Function) {
    for b in f.blocks.iter_mut() {
        match &b.term {
            Terminator::CondBranch {
                on_true, on_false, ..
            } if on_true == on_false => {
                b.term = Terminator::Branch(*on_true);
            }
            // A switch whose every target is its exit is no construct at all; one whose cases
            // share a body stays a switch, since `break`s in that body leave it.
            Terminator::Switch { default, cases, .. }
                if cases.iter().all(|c| c.1 == *default)
                    && b.join.is_none_or(|j| j == *default) =>
            {
                b.term = Terminator::Branch(*default);
                b.join = None;
            }
            _ => {}
        }
    }
}

/// Size of each block's dominator subtree, into `size`.
fn subtree_sizes(dom: &DomTree, n: usize, size: &mut Vec<u32>) {
    size.clear();
    size.resize(n, 0);
    for &b in dom.preorder().iter().rev() {
        size[b.0 as usize] += 1;
        if let Some(p) = dom.idom(b) {
            size[p.0 as usize] += size[b.0 as usize];
        }
    }
}

/// A loop with header `header`, its vectors taken from `pool` (emptied) when it has one.
fn new_loop(pool: &mut Vec<Loop>, header: BlockId) -> Loop {
    let mut l = pool.pop().unwrap_or(Loop {
        header,
        latches: Vec::new(),
        body: Vec::new(),
        merge: header,
        cont: header,
        parent: TOP,
    });
    l.header = header;
    l.latches.clear();
    l.body.clear();
    l.merge = header;
    l.cont = header;
    l.parent = TOP;
    l
}

fn find_loops(
    f: &Function,
    dom: &DomTree,
    loops: &mut Vec<Loop>,
    sc: &mut Scratch,
) -> Result<(), PassError> {
    let n = f.blocks.len();
    let rpo_index = &mut sc.index;
    rpo_index.clear();
    rpo_index.resize(n, u32::MAX);
    for (i, &b) in f.layout.iter().enumerate() {
        rpo_index[b.0 as usize] = i as u32;
    }
    // The loop whose header each block is (u32::MAX: none).
    let loop_of = &mut sc.loop_of;
    loop_of.clear();
    loop_of.resize(n, u32::MAX);
    for &b in &f.layout {
        for s in f.block(b).term.successors() {
            if rpo_index[s.0 as usize] > rpo_index[b.0 as usize] {
                continue;
            }
            if !dom.dominates(s, b) {
                return Err(irreducible(f, s));
            }
            match loops.get_mut(loop_of[s.0 as usize] as usize) {
                Some(l) => {
                    if !l.latches.contains(&b) {
                        l.latches.push(b)
                    }
                }
                None => {
                    loop_of[s.0 as usize] = loops.len() as u32;
                    let mut l = new_loop(&mut sc.loop_pool, s);
                    l.latches.push(b);
                    loops.push(l);
                }
            }
        }
    }
    // A D3D `loop` whose way back is dead code (every path breaks or returns) is still a loop
    // construct: `break`s inside it exit it. Such a loop gets a continue target nothing
    // reaches.
    for &b in &f.layout {
        if f.block(b).loop_exit.is_some() && loop_of[b.0 as usize] == u32::MAX {
            loop_of[b.0 as usize] = loops.len() as u32;
            loops.push(new_loop(&mut sc.loop_pool, b));
        }
    }
    if loops.len() as u64 * n as u64 > MAX_LOOP_WORK {
        return Err(unsupported(format!(
            "control flow too large to structurize: {} loops in {n} blocks (loops × blocks \
             may be at most {MAX_LOOP_WORK})",
            loops.len()
        )));
    }
    if loops.is_empty() {
        return Ok(());
    }
    sc.preds.compute(f);
    for l in loops.iter_mut() {
        let mut body = std::mem::take(&mut l.body);
        natural_body(f, l.header, &l.latches, &sc.preds, &mut body, &mut sc.stack);
        l.body = body;
    }
    // Parents: the smallest other loop whose body holds this loop's header.
    let sizes = &mut sc.sizes;
    sizes.clear();
    sizes.extend(
        loops
            .iter()
            .map(|l| l.body.iter().filter(|&&x| x).count() as u32),
    );
    for i in 0..loops.len() {
        let mut best = TOP;
        for j in 0..loops.len() {
            if i != j
                && loops[j].body[loops[i].header.0 as usize]
                && (best == TOP || sizes[j] < sizes[best])
            {
                best = j;
            }
        }
        loops[i].parent = best;
    }
    Ok(())
}

fn in_body(l: &Loop, b: BlockId) -> bool {
    l.body.get(b.0 as usize).copied().unwrap_or(false)
}

/// Adds a new block `b` to the body of every loop whose body holds `anchor`.
fn add_to_loops_holding(loops: &mut [Loop], anchor: BlockId, b: BlockId) {
    for l in loops.iter_mut() {
        if in_body(l, anchor) {
            if l.body.len() <= b.0 as usize {
                l.body.resize(b.0 as usize + 1, false);
            }
            l.body[b.0 as usize] = true;
        }
    }
}

/// Picks each loop's merge block, gives it a dedicated continue block, and splits headers that
/// cannot carry OpLoopMerge directly. Lists the merges it made in `fresh_merges`, and leaves
/// `dom` the dominator tree of the reshaped graph (updated after each loop, so the caller need
/// not compute it again).
fn restructure_loops(
    f: &mut Function,
    loops: &mut [Loop],
    dom: &mut DomTree,
    fresh_merges: &mut Vec<(BlockId, usize)>,
    sc: &mut Scratch,
    cfg: &mut super::cfg::Scratch,
) -> Result<(), PassError> {
    // Inner loops first. Each loop adds blocks (continue target, forwarding exits, split
    // headers), so the dominators are updated after it (recomputed where a case falls
    // outside the known updates) and the next loop's natural body is computed afresh.
    let headers = &mut sc.headers;
    headers.clear();
    headers.extend(loops.iter().map(|l| l.header));
    let order = &mut sc.order;
    order.clear();
    order.extend(0..loops.len());
    order.sort_by_key(|&i| loops[i].body.iter().filter(|&&x| x).count());
    for (k, &li) in order.iter().enumerate() {
        let header = loops[li].header;
        let preds = &mut sc.preds;
        // The first loop sees the graph `find_loops` saw: its predecessors and natural body
        // stand. Each loop after it sees the blocks the ones before added.
        if k > 0 {
            preds.compute(f);
            let mut body = std::mem::take(&mut loops[li].body);
            natural_body(
                f,
                header,
                &loops[li].latches,
                preds,
                &mut body,
                &mut sc.stack,
            );
            loops[li].body = body;
        }
        // Exit targets (through single-entry forwarding chains such as `if (c) break;`
        // blocks) and how many edges reach each.
        let exits = &mut sc.exits;
        exits.clear();
        for (bi, &inside) in loops[li].body.iter().enumerate() {
            if !inside {
                continue;
            }
            for s in f.blocks[bi].term.successors() {
                if in_body(&loops[li], s) {
                    continue;
                }
                let mut s = s;
                let mut steps = 0;
                while steps < f.blocks.len()
                    && preds.of(s).len() == 1
                    && dom.dominates(header, s)
                    && !headers.contains(&s)
                    && !stated_exit(f, s)
                {
                    let succ = f.block(s).term.successors();
                    if succ.len() != 1 || in_body(&loops[li], succ[0]) || headers.contains(&succ[0])
                    {
                        break;
                    }
                    s = succ[0];
                    steps += 1;
                }
                match exits.iter_mut().find(|e| e.0 == s) {
                    Some(e) => e.1 += 1,
                    None => exits.push((s, 1)),
                }
            }
        }
        let outside = &mut sc.outside;
        outside.clear();
        outside.extend(
            exits
                .iter()
                .map(|e| e.0)
                .filter(|&t| !dom.dominates(header, t)),
        );
        // The program's own `endloop` exit is the merge when it is a real exit of this loop
        // (or, for a loop left only by returns, an unreachable block kept as the merge).
        let hinted = f
            .block(header)
            .loop_exit
            .filter(|&x| x != header && !in_body(&loops[li], x) && outside.iter().all(|&o| o == x));
        if let Some(x) = hinted
            && !preds.of(x).is_empty()
            && !dom.dominates(header, x)
        {
            // Reached from outside the loop too: exit through a forwarding block (below).
            outside.clear();
            outside.push(x);
        }
        // The dominators change only where the steps below say (new blocks are dominated by
        // the common dominator of the blocks branching to them; nothing else changes but a
        // split header's children): `full` when a case falls outside that.
        let mut full = false;
        let mut fwd_idom = None;
        if let Some(x) = hinted
            && preds.of(x).is_empty()
        {
            full |= dom.contains(x);
            let blk = f.block_mut(x);
            blk.insts.clear();
            blk.term = Terminator::Unreachable;
            blk.join = None;
            blk.loop_exit = None;
            if !f.layout.contains(&x) {
                f.layout.push(x);
            }
            fresh_merges.push((x, loops[li].parent));
            outside.clear();
        }
        let merge = if let Some(x) = hinted
            && outside.is_empty()
        {
            x
        } else if outside.len() > 1 {
            return Err(unsupported(format!(
                "a loop (B{}) with exits to several places outside it ({:?})",
                header.0,
                outside.iter().map(|b| b.0).collect::<Vec<_>>()
            )));
        } else if let Some(&m) = outside.first() {
            // The merge must be dominated by the header: exit through a block of its own.
            let fwd = f.new_block();
            f.block_mut(fwd).term = Terminator::Branch(m);
            f.layout.push(fwd);
            let mut d = None;
            let moved = &mut sc.moved;
            moved.clear();
            for bi in 0..f.blocks.len() {
                let b = BlockId(bi as u32);
                if b != fwd && dom.dominates(header, b) {
                    if branches_to(&f.block(b).term, m) {
                        d = Some(d.map_or(b, |d| dom.common_dominator(d, b)));
                        moved.push(b);
                    }
                    f.block_mut(b).term.replace_successor(m, fwd);
                }
            }
            phis::forward(f, m, fwd, moved, &mut sc.mark);
            // `m` keeps its dominator: it is reached from outside the header's blocks too.
            fwd_idom = Some((fwd, d));
            fresh_merges.push((fwd, loops[li].parent));
            fwd
        } else if let Some(best) = {
            // The busiest exit; between equals, the one heading the larger dominator subtree.
            let sizes = &mut sc.subtree;
            subtree_sizes(dom, f.blocks.len(), sizes);
            exits
                .iter()
                .max_by_key(|e| (e.1, sizes[e.0.0 as usize], std::cmp::Reverse(e.0.0)))
        } {
            best.0
        } else {
            let m = f.new_block();
            f.block_mut(m).term = Terminator::Unreachable;
            f.layout.push(m);
            fresh_merges.push((m, loops[li].parent));
            m
        };
        // A dedicated continue block holding the only back edge.
        let cont = f.new_block();
        f.block_mut(cont).term = Terminator::Branch(header);
        f.layout.push(cont);
        add_to_loops_holding(loops, header, cont);
        let mut cont_idom = None;
        let moved = &mut sc.moved;
        moved.clear();
        for &latch in &loops[li].latches {
            if branches_to(&f.block(latch).term, header) {
                moved.push(latch);
                if dom.contains(latch) {
                    cont_idom = Some(cont_idom.map_or(latch, |d| dom.common_dominator(d, latch)));
                }
            }
            f.block_mut(latch).term.replace_successor(header, cont);
        }
        phis::forward(f, header, cont, moved, &mut sc.mark);
        // The header must end in a branch, or a conditional branch that can exit the loop.
        let header_ok = match &f.block(header).term {
            Terminator::Branch(_) => true,
            Terminator::CondBranch {
                on_true, on_false, ..
            } => *on_true == merge || *on_false == merge,
            _ => false,
        };
        let mut split = None;
        if !header_ok {
            let body_start = f.new_block();
            split = Some(body_start);
            // The phis stay in the header; the rest of it moves.
            let np = phis::count(f, header);
            let insts = f.block_mut(header).insts.split_off(np);
            let term = std::mem::replace(
                &mut f.block_mut(header).term,
                Terminator::Branch(body_start),
            );
            let join = f.block_mut(header).join.take();
            for i in 0..term.successor_count() {
                phis::rename_pred(f, term.successor(i), header, body_start);
            }
            f.block_mut(body_start).insts = insts;
            f.block_mut(body_start).term = term;
            f.block_mut(body_start).join = join;
            f.layout.push(body_start);
            add_to_loops_holding(loops, header, body_start);
        }
        f.block_mut(header).merge = Merge::Loop {
            merge,
            continue_target: cont,
        };
        loops[li].merge = merge;
        loops[li].cont = cont;
        if full {
            dom.recompute(f, cfg);
        } else {
            dom.grow(f.blocks.len());
            if let Some((fwd, d)) = fwd_idom {
                dom.set_idom(fwd, d);
            }
            dom.set_idom(cont, cont_idom);
            if let Some(body_start) = split {
                // Everything the header dominated is now reached through its body's start. After
                // the `set_idom`s above: the new blocks the header dominates move too.
                dom.move_children(header, body_start);
                dom.set_idom(body_start, Some(header));
            }
            dom.finish_update(cfg);
            // Checked where the IR is (debug builds, tests, `DXBC_VALIDATE_IR`).
            if super::checking() && !dom.same_as(&DomTree::compute(f)) {
                return Err(PassError::Internal {
                    pass: "structurize",
                    what: format!(
                        "dominators updated after loop B{} differ from recomputed ones",
                        header.0
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Whether `b` is the block after some `endloop` (a loop exit the program states): exit chains
/// stop there, since it may be another loop's merge.
fn stated_exit(f: &Function, b: BlockId) -> bool {
    f.layout.iter().any(|&h| f.block(h).loop_exit == Some(b))
}

/// A natural loop's blocks: the header and everything that reaches a latch without passing it.
fn natural_body(
    f: &Function,
    header: BlockId,
    latches: &[BlockId],
    preds: &Preds,
    body: &mut Vec<bool>,
    stack: &mut Vec<BlockId>,
) {
    body.clear();
    body.resize(f.blocks.len(), false);
    body[header.0 as usize] = true;
    stack.clear();
    for &latch in latches {
        if !body[latch.0 as usize] {
            body[latch.0 as usize] = true;
            stack.push(latch);
        }
    }
    while let Some(x) = stack.pop() {
        for &p in preds.of(x) {
            if !body[p.0 as usize] {
                body[p.0 as usize] = true;
                stack.push(p);
            }
        }
    }
}

/// Innermost loop (index into `loops`, or TOP) whose construct holds each block.
fn assign_regions(
    f: &Function,
    loops: &[Loop],
    dom: &DomTree,
    fresh: &[(BlockId, usize)],
    region: &mut Vec<usize>,
    header_of: &mut Vec<usize>,
    is_merge: &mut Vec<bool>,
) {
    let n = f.blocks.len();
    region.clear();
    region.resize(n, TOP);
    header_of.clear();
    header_of.resize(n, TOP);
    // Whether some loop merges at each block (`loops[i].merge == b` tells which).
    is_merge.clear();
    is_merge.resize(n, false);
    for (i, l) in loops.iter().enumerate() {
        header_of[l.header.0 as usize] = i;
        is_merge[l.merge.0 as usize] = true;
    }
    for &b in dom.preorder() {
        let bi = b.0 as usize;
        let mut r = dom.idom(b).map_or(TOP, |p| region[p.0 as usize]);
        if header_of[bi] != TOP {
            r = header_of[bi];
        } else if is_merge[bi] {
            // Leaving the loops this block merges: its region is the outermost such loop's parent.
            let mut cur = r;
            while cur != TOP && loops[cur].merge != b {
                cur = loops[cur].parent;
            }
            if cur != TOP {
                let mut out = loops[cur].parent;
                // Several nested loops may share a merge block: leave all of them.
                while out != TOP && loops[out].merge == b {
                    out = loops[out].parent;
                }
                r = out;
            }
        }
        region[bi] = r;
    }
    for (i, l) in loops.iter().enumerate() {
        region[l.cont.0 as usize] = i;
    }
    for &(m, r) in fresh {
        region[m.0 as usize] = r;
    }
}

/// Gives every selection header its merge block.
fn place_selection_merges(
    f: &mut Function,
    loops: &[Loop],
    region: &mut Vec<usize>,
    dom: &DomTree,
    sc: &mut Scratch,
    cfg: &mut super::cfg::Scratch,
) -> Result<bool, PassError> {
    let n = f.blocks.len();
    let mut redirected_any = false;
    let claimed = &mut sc.claimed;
    claimed.clear();
    claimed.resize(n, false);
    for l in loops {
        claimed[l.merge.0 as usize] = true;
        claimed[l.cont.0 as usize] = true;
    }
    let header_loop = &mut sc.header_of;
    header_loop.clear();
    header_loop.resize(n, TOP);
    for (i, l) in loops.iter().enumerate() {
        header_loop[l.header.0 as usize] = i;
    }
    // Selection headers in dominator pre-order (outer before inner).
    let mut headers = std::mem::take(&mut sc.headers);
    headers.clear();
    headers.extend(dom.preorder().iter().copied().filter(|&b| {
        let blk = f.block(b);
        blk.merge == Merge::None
            && matches!(
                blk.term,
                Terminator::CondBranch { .. } | Terminator::Switch { .. }
            )
    }));
    if headers.is_empty() {
        sc.headers = headers;
        return Ok(false);
    }
    let preds = &mut sc.preds;
    preds.compute(f);
    // The join the program itself states (D3D's `endif`/`endswitch`, the code after
    // `breakc`/`retc`) is the merge when it is one: not the header, not already a loop's merge
    // or continue target, and dominated by the header (or unreachable: all paths left).
    let in_layout = &mut sc.in_layout;
    in_layout.clear();
    in_layout.resize(n, false);
    for &b in &f.layout {
        in_layout[b.0 as usize] = true;
    }
    let hinted = &mut sc.hinted;
    hinted.clear();
    hinted.resize(n, None);
    // Blocks already some header's hinted merge.
    let hint_taken = &mut sc.hint_taken;
    hint_taken.clear();
    hint_taken.resize(n, false);
    for &h in &headers {
        if let Some(j) = f.block(h).join
            && j != h
            && (j.0 as usize) < n
            && !claimed[j.0 as usize]
            && !hint_taken[j.0 as usize]
            && (!in_layout[j.0 as usize]
                || (dom.dominates(h, j)
                    && merge_is_clean(f, dom, preds, h, j, claimed, &mut sc.seen, &mut sc.stack)))
        {
            hinted[h.0 as usize] = Some(j);
            hint_taken[j.0 as usize] = true;
        }
    }
    // One post-dominator computation per region that has selection headers without a join.
    let regions = &mut sc.regions;
    regions.clear();
    regions.extend(
        headers
            .iter()
            .filter(|h| hinted[h.0 as usize].is_none())
            .map(|h| region[h.0 as usize]),
    );
    regions.sort_unstable();
    regions.dedup();
    let ipdom = &mut sc.ipdom;
    ipdom.clear();
    ipdom.resize(n, None);
    let to_sink = &mut sc.to_sink;
    to_sink.clear();
    to_sink.resize(n, false);
    let node_of = &mut sc.index;
    let nodes = &mut sc.nodes;
    for &r in regions.iter() {
        // Nodes: blocks of region r, child-loop headers (standing for the whole child loop), sink.
        node_of.clear();
        node_of.resize(n, u32::MAX);
        nodes.clear();
        for &b in &f.layout {
            let bi = b.0 as usize;
            let is_child_header = header_loop[bi] != TOP && loops[header_loop[bi]].parent == r;
            if region[bi] == r || is_child_header {
                node_of[bi] = nodes.len() as u32;
                nodes.push(b);
            }
        }
        let sink = nodes.len() as u32;
        let (own_merge, own_cont) = if r == TOP {
            (None, None)
        } else {
            (Some(loops[r].merge), Some(loops[r].cont))
        };
        // Post-dominators of the region's reversed graph; every block that ends the
        // invocation leaves to the sink. (Headers left with only the sink get their merge from
        // `join_after_exits` below.)
        {
            let (edges, buf) = cfg.edges_and_buf();
            let map = |s: BlockId| -> u32 {
                if Some(s) == own_merge || Some(s) == own_cont {
                    return sink;
                }
                let x = node_of[s.0 as usize];
                if x == u32::MAX { sink } else { x }
            };
            for (ni, &b) in nodes.iter().enumerate() {
                let bi = b.0 as usize;
                let succs: crate::ir::Succs =
                    if header_loop[bi] != TOP && loops[header_loop[bi]].parent == r {
                        smallvec::smallvec![loops[header_loop[bi]].merge]
                    } else {
                        f.block(b).term.successors()
                    };
                if succs.is_empty() {
                    edges.push((sink, ni as u32));
                }
                for s in succs {
                    // Reversed edges: post-dominators are dominators of the reversed graph.
                    edges.push((map(s), ni as u32));
                }
            }
            let pd = &mut sc.pd;
            immediate_dominators_into(nodes.len() + 1, sink, edges, buf, pd);
            for (ni, &b) in nodes.iter().enumerate() {
                let bi = b.0 as usize;
                match pd[ni] {
                    d if d != sink && d != u32::MAX => {
                        ipdom[bi] = Some(nodes[d as usize]);
                        to_sink[bi] = false;
                    }
                    _ => to_sink[bi] = true,
                }
            }
        }
    }
    for &h in &headers {
        let hi = h.0 as usize;
        if let Some(j) = hinted[hi]
            && !claimed[j.0 as usize]
        {
            if !in_layout[j.0 as usize] {
                // Every path left the construct: the join is an unreachable merge.
                make_unreachable_merge(f, j);
                f.layout.push(j);
                in_layout[j.0 as usize] = true;
                region[j.0 as usize] = region[hi];
            }
            claimed[j.0 as usize] = true;
            f.block_mut(h).merge = Merge::Selection(j);
            continue;
        }
        let joined = if to_sink[hi] {
            join_after_exits(f, h, loops, region, preds, dom, &mut sc.seen, &mut sc.stack)
        } else {
            None
        };
        let mut m = match ipdom[hi] {
            Some(m) if !to_sink[hi] => m,
            _ if let Some(j) = joined => j,
            _ => {
                let m = f.new_block();
                f.block_mut(m).term = Terminator::Unreachable;
                region.push(region[hi]);
                claimed.push(false);
                m
            }
        };
        if claimed[m.0 as usize] {
            // Claimed by an enclosing header: forward this construct's edges through a new block.
            let fwd = f.new_block();
            f.block_mut(fwd).term = Terminator::Branch(m);
            region.push(region[hi]);
            claimed.push(false);
            let moved = &mut sc.moved;
            moved.clear();
            for li in 0..f.layout.len() {
                let b = f.layout[li];
                if dom.dominates(h, b) && b != m {
                    // The terminator changes when it targets `m`.
                    if branches_to(&f.block(b).term, m) {
                        moved.push(b);
                    }
                    f.block_mut(b).term.replace_successor(m, fwd);
                }
            }
            phis::forward(f, m, fwd, moved, &mut sc.mark);
            if moved.is_empty() {
                return Err(PassError::Internal {
                    pass: "structurize",
                    what: format!(
                        "structurizer: merge B{} of header B{} is claimed and unreachable from it",
                        m.0, h.0
                    ),
                });
            }
            m = fwd;
            redirected_any = true;
        }
        claimed[m.0 as usize] = true;
        f.block_mut(h).merge = Merge::Selection(m);
    }
    sc.headers = headers;
    Ok(redirected_any)
}

/// Whether `term` has `m` among its targets.
fn branches_to(term: &Terminator, m: BlockId) -> bool {
    (0..term.successor_count()).any(|i| term.successor(i) == m)
}

/// Whether `m` can merge the construct headed by `h`: nothing reachable from the merge leads
/// back into the construct (blocks `h` dominates that `m` does not). A join the program states
/// can fail this when the construct it closes is not what it seems in the graph — a `loop`
/// whose back edge is dead code, say.
#[allow(clippy::too_many_arguments)] // the last two are working buffers
fn merge_is_clean(
    f: &Function,
    dom: &DomTree,
    preds: &Preds,
    h: BlockId,
    m: BlockId,
    loop_exits: &[bool],
    seen: &mut Vec<bool>,
    stack: &mut Vec<BlockId>,
) -> bool {
    // The walk below covers everything `m` dominates, which after a run of `if`s is the rest
    // of the program: first look for an edge from there into the construct (the blocks `h`
    // dominates and `m` does not, found from `h` without entering `m`'s subtree), which costs
    // only the construct. Without one the walk cannot find a way back either.
    seen.clear();
    seen.resize(f.blocks.len(), false);
    stack.clear();
    stack.push(h);
    seen[h.0 as usize] = true;
    let mut way_back = false;
    while let Some(u) = stack.pop() {
        if preds.of(u).iter().any(|&p| dom.dominates(m, p)) {
            way_back = true;
            break;
        }
        for v in f.block(u).term.successors() {
            if !seen[v.0 as usize] && dom.dominates(h, v) && !dom.dominates(m, v) {
                seen[v.0 as usize] = true;
                stack.push(v);
            }
        }
    }
    if !way_back {
        return true;
    }
    // The joins of constructs around `h` bound it too (a `break` out of an enclosing switch).
    let enclosing: smallvec::SmallVec<[BlockId; 8]> = f
        .layout
        .iter()
        .filter(|&&g| g != h && dom.dominates(g, h))
        .filter_map(|&g| f.block(g).join.or(f.block(g).loop_exit))
        .collect();
    stack.clear();
    stack.push(m);
    seen.fill(false);
    seen[m.0 as usize] = true;
    while let Some(u) = stack.pop() {
        for v in f.block(u).term.successors() {
            // Loops' merges and continue targets bound the construct: leaving to one is a
            // structured exit, not a way back in.
            if loop_exits.get(v.0 as usize).copied().unwrap_or(false) || enclosing.contains(&v) {
                continue;
            }
            if dom.dominates(h, v) && !dom.dominates(m, v) {
                return false;
            }
            if dom.dominates(m, v) && !seen[v.0 as usize] {
                seen[v.0 as usize] = true;
                stack.push(v);
            }
        }
    }
    true
}

/// The merge of a selection header whose paths do not all meet before leaving (some `break`,
/// `continue` or return): the block where the paths that stay meet.
///
/// Exits are edges to the enclosing loop's merge or continue block and blocks that end the
/// invocation with a single predecessor (early returns). With one non-exit successor, that
/// successor is the merge (`if (c) break;`). Otherwise each non-exit successor's dominance
/// subtree is walked (stopping at exits) for edges leaving it: a successor reached that way from
/// another one is the join (an `if` without `else`); else the single block so reached is.
#[allow(clippy::too_many_arguments)] // the last two are working buffers
fn join_after_exits(
    f: &Function,
    h: BlockId,
    loops: &[Loop],
    region: &[usize],
    preds: &Preds,
    dom: &DomTree,
    seen: &mut Vec<bool>,
    stack: &mut Vec<BlockId>,
) -> Option<BlockId> {
    let r = region[h.0 as usize];
    let (own_merge, own_cont) = if r == TOP {
        (None, None)
    } else {
        (Some(loops[r].merge), Some(loops[r].cont))
    };
    let is_exit = |b: BlockId| {
        Some(b) == own_merge
            || Some(b) == own_cont
            || (f.block(b).term.successors().is_empty() && preds.of(b).len() <= 1)
    };
    let mut targets: smallvec::SmallVec<[BlockId; 4]> = smallvec::SmallVec::new();
    for s in f.block(h).term.successors() {
        if !is_exit(s) && !targets.contains(&s) {
            targets.push(s);
        }
    }
    let ok = |m: BlockId| (m != h && dom.dominates(h, m)).then_some(m);
    match targets.len() {
        0 => return None,
        1 => return ok(targets[0]),
        _ => {}
    }
    let mut escapes: smallvec::SmallVec<[BlockId; 4]> = smallvec::SmallVec::new();
    seen.clear();
    seen.resize(f.blocks.len(), false);
    for &t in &targets {
        stack.clear();
        stack.push(t);
        seen[t.0 as usize] = true;
        while let Some(b) = stack.pop() {
            for s in f.block(b).term.successors() {
                if is_exit(s) || seen[s.0 as usize] && dom.dominates(t, s) {
                    continue;
                }
                if dom.dominates(t, s) {
                    seen[s.0 as usize] = true;
                    stack.push(s);
                } else if !escapes.contains(&s) {
                    escapes.push(s);
                }
            }
        }
    }
    if matches!(f.block(h).term, Terminator::Switch { .. }) {
        // A case reached from another case is a fall-through, not the join.
        escapes.retain(|e| !targets.contains(e));
    } else if let Some(&t) = targets.iter().find(|t| escapes.contains(t)) {
        // `if` without `else`: the branch that skips the body goes straight to the join.
        return ok(t);
    }
    if escapes.len() == 1 {
        ok(escapes[0])
    } else {
        None
    }
}

/// Orders each switch's cases so that fall-through targets directly follow their source.
fn order_switch_cases(f: &mut Function, dom: &DomTree, sc: &mut Scratch) -> Result<(), PassError> {
    const NONE: u32 = u32::MAX;
    // Per block: its index among the switch's targets (NONE when not one), then its rank in
    // the new order; entries are reset after each switch (a switch may have thousands of
    // cases, a function many switches).
    let index = &mut sc.index;
    index.clear();
    index.resize(f.blocks.len(), NONE);
    let targets = &mut sc.nodes;
    let subtree = &mut sc.stack;
    let falls_into = &mut sc.case_falls;
    let has_source = &mut sc.case_source;
    let order = &mut sc.case_order;
    for bi in 0..f.blocks.len() {
        let Terminator::Switch { default, cases, .. } = &f.blocks[bi].term else {
            continue;
        };
        let Merge::Selection(merge) = f.blocks[bi].merge else {
            continue;
        };
        let default = *default;
        // Distinct targets in source order, default first (SPIR-V's target order), and the
        // index of each.
        targets.clear();
        for t in std::iter::once(default).chain(cases.iter().map(|c| c.1)) {
            if t != merge && index[t.0 as usize] == NONE {
                index[t.0 as usize] = targets.len() as u32;
                targets.push(t);
            }
        }
        // falls_into[i] = index of the target case i falls through to.
        falls_into.clear();
        falls_into.resize(targets.len(), NONE);
        has_source.clear();
        has_source.resize(targets.len(), false);
        let mut result = Ok(());
        'targets: for (i, &t) in targets.iter().enumerate() {
            // The blocks `t` dominates, through the dominator tree.
            subtree.clear();
            if dom.contains(t) {
                subtree.push(t);
            }
            let mut k = 0;
            while k < subtree.len() {
                let b = subtree[k];
                subtree.extend_from_slice(dom.children(b));
                k += 1;
            }
            for &b in subtree.iter() {
                for s in f.block(b).term.successors() {
                    let j = index[s.0 as usize];
                    if j == NONE || j as usize == i {
                        continue;
                    }
                    // A second target, or a target something else already falls into.
                    if falls_into[i] != j && (falls_into[i] != NONE || has_source[j as usize]) {
                        result = Err(unsupported(
                            "switch case falling through into several cases",
                        ));
                        break 'targets;
                    }
                    falls_into[i] = j;
                    has_source[j as usize] = true;
                }
            }
        }
        let fallthrough = result.is_ok() && falls_into.iter().any(|&j| j != NONE);
        if fallthrough {
            // Chains, each starting at a target nothing falls into, in source order.
            order.clear();
            for start in (0..targets.len()).filter(|&s| !has_source[s]) {
                let mut cur = start as u32;
                let mut guard = 0;
                while cur != NONE && guard <= targets.len() {
                    order.push(targets[cur as usize]);
                    cur = falls_into[cur as usize];
                    guard += 1;
                }
            }
            if order.len() != targets.len() {
                result = Err(unsupported("switch cases falling through in a cycle"));
            }
        }
        if result.is_ok() && fallthrough {
            // Ranks in the new order, where the indices were.
            for (r, &t) in order.iter().enumerate() {
                index[t.0 as usize] = r as u32;
            }
            if let Terminator::Switch { cases, .. } = &mut f.blocks[bi].term {
                cases.sort_by_key(|c| index[c.1.0 as usize]);
            }
        }
        for &t in targets.iter() {
            index[t.0 as usize] = NONE;
        }
        result?;
    }
    Ok(())
}

/// Lays blocks out in reverse post-order, visiting a header's merge (and continue) block
/// before its other successors so that they come after the construct's body.
fn structured_layout(f: &mut Function, sc: &mut Scratch) {
    let n = f.blocks.len();
    let visited = &mut sc.seen;
    visited.clear();
    visited.resize(n, false);
    let mut post = std::mem::take(&mut sc.post);
    post.clear();
    // The `i`th block to visit from `b`: its merge (and continue) block, then its successors
    // in reverse (switch: default first in source order; visited in reverse so that RPO keeps
    // case order).
    let next = |f: &Function, b: BlockId, i: u32| -> Option<BlockId> {
        let blk = f.block(b);
        let mut i = i as usize;
        match blk.merge {
            Merge::Selection(m) => {
                if i == 0 {
                    return Some(m);
                }
                i -= 1;
            }
            Merge::Loop {
                merge,
                continue_target,
            } => match i {
                0 => return Some(merge),
                1 => return Some(continue_target),
                _ => i -= 2,
            },
            Merge::None => {}
        }
        let count = blk.term.successor_count();
        (i < count).then(|| blk.term.successor(count - 1 - i))
    };
    let entry = f.entry();
    let stack = &mut sc.walk;
    stack.clear();
    stack.push((entry, 0));
    visited[entry.0 as usize] = true;
    while let Some(top) = stack.last_mut() {
        if let Some(s) = next(f, top.0, top.1) {
            top.1 += 1;
            if !visited[s.0 as usize] {
                visited[s.0 as usize] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(top.0);
            stack.pop();
        }
    }
    post.reverse();
    sc.post = std::mem::replace(&mut f.layout, post);
}

/// This pass's working buffers, kept across functions and translations (see
/// [`super::Scratch`]).
#[derive(Debug, Default)]
pub struct Scratch {
    /// The loops found, and spare loops whose vectors the next ones reuse.
    loops: Vec<Loop>,
    loop_pool: Vec<Loop>,
    /// The merges made for loops: (block, region).
    fresh: Vec<(BlockId, usize)>,
    /// Each block's innermost loop construct (see [`assign_regions`]).
    region: Vec<usize>,
    preds: Preds,
    /// Per-block arrays: a number (layout index, region node, switch target), the loop a
    /// block heads, whether a loop merges there, dominator subtree sizes.
    index: Vec<u32>,
    loop_of: Vec<u32>,
    header_of: Vec<usize>,
    is_merge: Vec<bool>,
    subtree: Vec<u32>,
    /// Loops: their sizes, the order they are restructured in, their headers, exits.
    sizes: Vec<u32>,
    order: Vec<usize>,
    headers: Vec<BlockId>,
    exits: Vec<(BlockId, u32)>,
    outside: Vec<BlockId>,
    /// Selections: claimed merges, blocks in the layout, stated joins, post-dominators.
    claimed: Vec<bool>,
    in_layout: Vec<bool>,
    hinted: Vec<Option<BlockId>>,
    hint_taken: Vec<bool>,
    regions: Vec<usize>,
    ipdom: Vec<Option<BlockId>>,
    to_sink: Vec<bool>,
    nodes: Vec<BlockId>,
    pd: Vec<u32>,
    /// The blocks whose edges into a block were moved to a new one, and a mark per block
    /// (see `phis::forward`).
    moved: Vec<BlockId>,
    mark: Vec<bool>,
    /// Switches: per case target, the target it falls through into and whether one falls
    /// into it; the targets in their new order.
    case_falls: Vec<u32>,
    case_source: Vec<bool>,
    case_order: Vec<BlockId>,
    /// Walks: visited marks, work stacks, the layout being built.
    seen: Vec<bool>,
    stack: Vec<BlockId>,
    walk: Vec<(BlockId, u32)>,
    post: Vec<BlockId>,
}

/// Structurizes `f` in place (see the module documentation); returns the final dominator
/// tree, which the later passes reuse (they do not change the graph).
pub fn structurize(f: &mut Function) -> Result<DomTree, PassError> {
    structurize_with(
        f,
        &mut Scratch::default(),
        &mut super::cfg::Scratch::default(),
    )
}

/// [`structurize`] with kept working buffers (this pass's and the dominator computations').
pub fn structurize_with(
    f: &mut Function,
    sc: &mut Scratch,
    cfg: &mut super::cfg::Scratch,
) -> Result<DomTree, PassError> {
    // Straight-line code (most vertex and pixel shaders): the entry block leaves the function,
    // so it is the whole function and there is nothing to reshape.
    let entry = f.entry();
    if matches!(
        f.block(entry).term,
        Terminator::Return | Terminator::Unreachable
    ) {
        f.layout.clear();
        f.layout.push(entry);
        return Ok(DomTree::compute_with(f, cfg));
    }
    fold_trivial_branches(f);
    // Plain flow (`take_stated_joins`). The dominators come from one pass over the front end's
    // layout (its blocks were begun in an order every edge but a loop's back edge follows; dead
    // ones are in it, the tree holds what the entry reaches). Without a loop only the layout is
    // left to make then. With a loop (a `loop` is one even when its way back is dead code, as
    // `find_loops` counts), the general path restructures the loops first and the joins are
    // taken after.
    let mut plain_loops = false;
    let mut oracle = None;
    let mut plain_dom = None;
    if f.plain_flow {
        oracle = super::checking().then(|| f.clone());
        let has_loop = f.blocks.iter().any(|b| b.loop_exit.is_some());
        match DomTree::compute_in_layout_order(f, cfg) {
            // With loops: the tree serves the general path's loop steps below.
            Some(dom) if has_loop => {
                plain_dom = Some(dom);
                plain_loops = true;
            }
            Some(dom) => {
                if take_stated_joins(f, &dom, sc, &[]) {
                    structured_layout(f, sc);
                    if let Some(general) = oracle {
                        check_same_as_general(f, &dom, general)?;
                    }
                    return Ok(dom);
                }
                cfg.recycle(dom);
                oracle = None;
            }
            // Blocks begun out of order: the general path's dominators.
            None => plain_loops = true,
        }
    }
    let mut layout = std::mem::take(&mut sc.post);
    reverse_post_order_into(f, &mut layout, &mut sc.seen, &mut sc.walk);
    sc.post = std::mem::replace(&mut f.layout, layout);
    let mut dom = plain_dom.unwrap_or_else(|| DomTree::compute_with(f, cfg));
    let mut loops = std::mem::take(&mut sc.loops);
    let mut fresh = std::mem::take(&mut sc.fresh);
    let mut region = std::mem::take(&mut sc.region);
    let result = (|| {
        loops.clear();
        fresh.clear();
        find_loops(f, &dom, &mut loops, sc)?;
        if !loops.is_empty() {
            restructure_loops(f, &mut loops, &mut dom, &mut fresh, sc, cfg)?;
        }
        if plain_loops && take_stated_joins(f, &dom, sc, &loops) {
            structured_layout(f, sc);
            return Ok(true);
        }
        assign_regions(
            f,
            &loops,
            &dom,
            &fresh,
            &mut region,
            &mut sc.header_of,
            &mut sc.is_merge,
        );
        let redirected = place_selection_merges(f, &loops, &mut region, &dom, sc, cfg)?;
        if redirected {
            // The layout must hold the new blocks before dominators are computed from it (the
            // final layout below depends only on the graph, not on this one).
            structured_layout(f, sc);
            dom.recompute(f, cfg);
        }
        order_switch_cases(f, &dom, sc)?;
        structured_layout(f, sc);
        if cfg!(debug_assertions) {
            check_merges_dominated(f)?;
        }
        Ok(false)
    })();
    sc.loop_pool.append(&mut loops);
    // One huge function's loops are not all kept for the next ones: at most 64 spare loops,
    // none with a body list over 2^16 blocks.
    sc.loop_pool.truncate(64);
    for l in &mut sc.loop_pool {
        if l.body.capacity() > 1 << 16 {
            l.body = Vec::new();
        }
    }
    sc.loops = loops;
    sc.fresh = fresh;
    sc.region = region;
    match result {
        Ok(joins_taken) => {
            if joins_taken && let Some(general) = oracle {
                let checked = check_same_as_general(f, &dom, general);
                if let Err(e) = checked {
                    cfg.recycle(dom);
                    return Err(e);
                }
            }
            Ok(dom)
        }
        Err(e) => {
            cfg.recycle(dom);
            Err(e)
        }
    }
}

/// Plain flow (see [`Function::plain_flow`]): each selection header's merge is the join the
/// front end recorded. A plainly nested construct's join is where its paths meet, and the
/// paths that do not meet there leave for an enclosing loop's merge or continue block, an
/// enclosing switch's join, or end the invocation, so the join is what
/// [`place_selection_merges`] would find; without a case falling through there is no switch to
/// reorder. `loops` are the loops [`restructure_loops`] made (none without a loop): their
/// headers carry loop merges already and are passed over. What is cheap to check is checked:
/// every reachable selection header has a join of its own (no other header's, no loop's merge
/// or continue block) that it dominates, or that nothing reaches (then made an unreachable
/// merge, as the general path does). When a check fails nothing has changed and the caller
/// goes on with the general path.
fn take_stated_joins(f: &mut Function, dom: &DomTree, sc: &mut Scratch, loops: &[Loop]) -> bool {
    let n = f.blocks.len();
    let taken = &mut sc.hint_taken;
    taken.clear();
    taken.resize(n, false);
    // The reachable headers: those of the dominator tree.
    let headers = &mut sc.headers;
    headers.clear();
    for &h in dom.preorder() {
        let b = f.block(h);
        if b.merge != Merge::None
            || !matches!(
                b.term,
                Terminator::CondBranch { .. } | Terminator::Switch { .. }
            )
        {
            continue;
        }
        let Some(j) = b.join else { return false };
        let ji = j.0 as usize;
        if j == h
            || ji >= n
            || taken[ji]
            || (dom.contains(j) && !dom.dominates(h, j))
            || loops.iter().any(|l| l.merge == j || l.cont == j)
        {
            return false;
        }
        taken[ji] = true;
        headers.push(h);
    }
    for &h in headers.iter() {
        let j = f.block(h).join.expect("checked above");
        if !dom.contains(j) {
            make_unreachable_merge(f, j);
        }
        f.block_mut(h).merge = Merge::Selection(j);
    }
    true
}

/// Empties block `j`, a join every path of its construct left, into an unreachable merge.
fn make_unreachable_merge(f: &mut Function, j: BlockId) {
    let blk = f.block_mut(j);
    blk.insts.clear();
    blk.term = Terminator::Unreachable;
    blk.join = None;
    blk.loop_exit = None;
}

/// Where the IR is checked (debug builds, tests, `DXBC_VALIDATE_IR`): the general path, run on
/// `general` (the function as it came, plain flow not claimed), must give `f`'s blocks, layout
/// and dominator tree (`dom`).
#[cold]
fn check_same_as_general(
    f: &Function,
    dom: &DomTree,
    mut general: Function,
) -> Result<(), PassError> {
    general.plain_flow = false;
    let general_dom = structurize(&mut general)?;
    let same_tree = (0..f.blocks.len() as u32)
        .map(BlockId)
        .all(|b| dom.idom(b) == general_dom.idom(b) && dom.contains(b) == general_dom.contains(b));
    if general.blocks != f.blocks || general.layout != f.layout || !same_tree {
        return Err(PassError::Internal {
            pass: "structurize",
            what: "plain flow: the stated joins differ from the merges the general path finds"
                .into(),
        });
    }
    Ok(())
}

/// Every header must dominate its merge (unless the merge is unreachable).
fn check_merges_dominated(f: &Function) -> Result<(), PassError> {
    let dom = DomTree::compute(f);
    let preds = f.predecessors();
    for &b in &f.layout {
        let m = match f.block(b).merge {
            Merge::None => continue,
            Merge::Selection(m) => m,
            Merge::Loop { merge, .. } => merge,
        };
        if !preds[m.0 as usize].is_empty() && !dom.dominates(b, m) {
            return Err(PassError::Internal {
                pass: "structurize",
                what: format!(
                    "structurizer: header B{} does not dominate its merge B{}",
                    b.0, m.0
                ),
            });
        }
    }
    Ok(())
}
