//! Control-flow-graph views of an IR function: reverse post-order, a dominator tree with O(1)
//! dominance queries, and a Graphviz rendering (through petgraph).
//!
//! [`Cfg`] and `CfgPreds` (tests) are petgraph's graph abstraction over our own arrays: they
//! implement petgraph's visit traits (`IntoNeighbors`, `IntoNodeIdentifiers`, `NodeIndexable`,
//! `Visitable`, and `IntoNeighborsDirected` with predecessors), so that petgraph's algorithms
//! (`tarjan_scc`, `simple_fast`, `Reversed` for post-dominators) run on a function without
//! copying it, as test oracles and on cold paths. The dominators themselves are computed on
//! dense arrays by the algorithm petgraph's `simple_fast` uses (see
//! [`immediate_dominators_into`] for why not petgraph's own); this module also adds the tree
//! numbering that the structurizer and CSE query many times. The hot walks of the
//! structurizer stay hand-written (they carry the documented limits on work; petgraph's `Dfs`
//! measured about twice their cost).

#[cfg(test)]
use petgraph::visit::IntoNeighborsDirected;
use petgraph::visit::{
    GraphBase, GraphRef, IntoNeighbors, IntoNodeIdentifiers, NodeCount, NodeIndexable, Visitable,
};
#[cfg(test)]
use smallvec::SmallVec;

use crate::ir::{BlockId, Function, Terminator};

/// Working buffers of the dominator computations, kept across functions and translations (see
/// [`super::Scratch`]).
#[derive(Debug, Default)]
pub struct Scratch {
    /// The edge list handed to [`immediate_dominators_into`].
    edges: Vec<(u32, u32)>,
    /// [`immediate_dominators_into`]'s temporaries.
    buf: Vec<u32>,
    /// The dominator-tree numbering's stack.
    stack: Vec<(BlockId, u32)>,
    /// A tree given back ([`Scratch::recycle`]) whose arrays the next one reuses.
    spare: Option<DomTree>,
}

impl Scratch {
    /// Keeps `t`'s arrays for the next [`DomTree::compute_with`].
    pub fn recycle(&mut self, t: DomTree) {
        self.spare = Some(t);
    }

    /// The edge list buffer, emptied (for callers of [`immediate_dominators_into`]), and the
    /// temporaries that function needs.
    pub fn edges_and_buf(&mut self) -> (&mut Vec<(u32, u32)>, &mut Vec<u32>) {
        self.edges.clear();
        (&mut self.edges, &mut self.buf)
    }
}

/// Predecessor lists of a function's blocks, in one array: each block's predecessors in layout
/// order, each once (the lists [`Function::predecessors`] gives, without one allocation per
/// block). Kept by the passes that need them, refilled per use.
#[derive(Debug, Default)]
pub struct Preds {
    /// `list[start[b]..start[b + 1]]` are `b`'s predecessors.
    start: Vec<u32>,
    list: Vec<BlockId>,
    /// The last block found branching to each block.
    last: Vec<u32>,
    /// (target, predecessor) edges as found, before bucketing.
    pairs: Vec<(u32, BlockId)>,
}

/// Groups `items` by key, keeping their order within a key (a counting sort): afterwards
/// `list[start[k]..start[k + 1]]` holds the values of key `k`, for keys `0..n`. `items` is
/// walked twice; `zero` only fills `list` before it is written.
#[inline]
pub fn bucket<T: Copy>(
    n: usize,
    items: impl Iterator<Item = (u32, T)> + Clone,
    zero: T,
    start: &mut Vec<u32>,
    list: &mut Vec<T>,
) {
    // Counts at `start[k + 2]`, prefix sums, then `start[k + 1]` is the fill cursor.
    start.clear();
    start.resize(n + 2, 0);
    for (k, _) in items.clone() {
        start[k as usize + 2] += 1;
    }
    for i in 0..n {
        start[i + 2] += start[i + 1];
    }
    list.clear();
    list.resize(start[n + 1] as usize, zero);
    for (k, v) in items {
        let at = &mut start[k as usize + 1];
        list[*at as usize] = v;
        *at += 1;
    }
    start.pop();
}

impl Preds {
    /// Fills the lists for `f`'s graph (edges from the blocks in the layout).
    pub fn compute(&mut self, f: &Function) {
        let n = f.blocks.len();
        self.last.clear();
        self.last.resize(n, NONE);
        // A block branching twice to one target is one predecessor (`last`: the last block
        // found for each target).
        self.pairs.clear();
        for &b in &f.layout {
            let term = &f.block(b).term;
            for i in 0..term.successor_count() {
                let s = term.successor(i).0 as usize;
                if self.last[s] != b.0 {
                    self.last[s] = b.0;
                    self.pairs.push((s as u32, b));
                }
            }
        }
        let pairs = self.pairs.iter().copied();
        bucket(n, pairs, BlockId(0), &mut self.start, &mut self.list);
    }

    /// `b`'s predecessors.
    pub fn of(&self, b: BlockId) -> &[BlockId] {
        let i = b.0 as usize;
        &self.list[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

/// A function's control-flow graph as a petgraph graph: nodes are the blocks in the layout,
/// edges the terminators' successors (in terminator order). Borrowed, nothing copied.
#[derive(Clone, Copy)]
pub struct Cfg<'f> {
    f: &'f Function,
}

impl<'f> Cfg<'f> {
    pub fn new(f: &'f Function) -> Self {
        Cfg { f }
    }

    fn func(&self) -> &'f Function {
        self.f
    }
}

/// [`Cfg`] with predecessor lists too, for algorithms that walk edges backwards
/// (`IntoNeighborsDirected`, petgraph's `Reversed`): the post-dominator oracle in tests.
#[cfg(test)]
#[derive(Clone, Copy)]
pub struct CfgPreds<'f> {
    cfg: Cfg<'f>,
    preds: &'f [SmallVec<[BlockId; 2]>],
}

#[cfg(test)]
impl<'f> CfgPreds<'f> {
    /// `preds` is `f.predecessors()`.
    pub fn new(f: &'f Function, preds: &'f [SmallVec<[BlockId; 2]>]) -> Self {
        CfgPreds {
            cfg: Cfg { f },
            preds,
        }
    }

    fn func(&self) -> &'f Function {
        self.cfg.f
    }
}

/// The trait impls both views share (through the successor view).
macro_rules! cfg_traits {
    ($t:ident) => {
        impl GraphBase for $t<'_> {
            type NodeId = BlockId;
            type EdgeId = (BlockId, BlockId);
        }
        impl GraphRef for $t<'_> {}
        impl NodeIndexable for $t<'_> {
            fn node_bound(&self) -> usize {
                self.func().blocks.len()
            }
            fn to_index(&self, b: BlockId) -> usize {
                b.0 as usize
            }
            fn from_index(&self, i: usize) -> BlockId {
                BlockId(i as u32)
            }
        }
        impl NodeCount for $t<'_> {
            fn node_count(&self) -> usize {
                self.func().layout.len()
            }
        }
        impl Visitable for $t<'_> {
            type Map = std::collections::HashSet<BlockId>;
            fn visit_map(&self) -> Self::Map {
                Self::Map::with_capacity(self.func().blocks.len())
            }
            fn reset_map(&self, map: &mut Self::Map) {
                map.clear();
            }
        }
        impl<'f> IntoNodeIdentifiers for $t<'f> {
            type NodeIdentifiers = std::iter::Copied<std::slice::Iter<'f, BlockId>>;
            fn node_identifiers(self) -> Self::NodeIdentifiers {
                self.func().layout.iter().copied()
            }
        }
        impl IntoNeighbors for $t<'_> {
            type Neighbors = smallvec::IntoIter<[BlockId; 8]>;
            fn neighbors(self, b: BlockId) -> Self::Neighbors {
                self.func().block(b).term.successors().into_iter()
            }
        }
    };
}

cfg_traits!(Cfg);
#[cfg(test)]
cfg_traits!(CfgPreds);

#[cfg(test)]
impl IntoNeighborsDirected for CfgPreds<'_> {
    type NeighborsDirected = smallvec::IntoIter<[BlockId; 8]>;
    fn neighbors_directed(self, b: BlockId, d: petgraph::Direction) -> Self::NeighborsDirected {
        match d {
            petgraph::Direction::Outgoing => self.cfg.f.block(b).term.successors().into_iter(),
            petgraph::Direction::Incoming => self.preds[b.0 as usize]
                .iter()
                .copied()
                .collect::<crate::ir::Succs>()
                .into_iter(),
        }
    }
}

/// Immediate dominators of any graph with petgraph's `IntoNeighbors`, `IntoNodeIdentifiers`
/// and `NodeIndexable` (a [`Cfg`], petgraph's `Reversed` of a [`CfgPreds`], a `DiGraph`), from
/// `root`, indexed by `to_index`: see [`immediate_dominators_into`].
#[cfg(test)]
pub fn dominators_of<G>(g: G, root: G::NodeId) -> Vec<u32>
where
    G: IntoNeighbors + IntoNodeIdentifiers + NodeIndexable,
{
    let mut edges = Vec::with_capacity(g.node_bound() * 2);
    for v in g.node_identifiers() {
        let from = g.to_index(v) as u32;
        for s in g.neighbors(v) {
            edges.push((from, g.to_index(s) as u32));
        }
    }
    immediate_dominators(g.node_bound(), g.to_index(root) as u32, &edges)
}

/// Blocks reachable from the entry, in reverse post-order of a depth-first search that visits
/// successors in terminator order.
pub fn reverse_post_order(f: &Function) -> Vec<BlockId> {
    let mut out = Vec::new();
    reverse_post_order_into(f, &mut out, &mut Vec::new(), &mut Vec::new());
    out
}

/// [`reverse_post_order`] into `out`, with working buffers kept by the caller (their contents
/// do not matter).
pub fn reverse_post_order_into(
    f: &Function,
    out: &mut Vec<BlockId>,
    visited: &mut Vec<bool>,
    stack: &mut Vec<(BlockId, u32)>,
) {
    let entry = f.entry();
    visited.clear();
    visited.resize(f.blocks.len(), false);
    out.clear();
    // Iterative DFS: (block, next successor index); successors are read from the terminator
    // by index, not listed (a switch may have thousands).
    stack.clear();
    stack.push((entry, 0));
    visited[entry.0 as usize] = true;
    while let Some((b, i)) = stack.last_mut() {
        let term = &f.block(*b).term;
        if (*i as usize) < term.successor_count() {
            let s = term.successor(*i as usize);
            *i += 1;
            if !visited[s.0 as usize] {
                visited[s.0 as usize] = true;
                stack.push((s, 0));
            }
        } else {
            out.push(*b);
            stack.pop();
        }
    }
    out.reverse();
}

const NONE: u32 = u32::MAX;

/// [`immediate_dominators_into`] into a new vector (tests).
#[cfg(test)]
pub fn immediate_dominators(n: usize, root: u32, edges: &[(u32, u32)]) -> Vec<u32> {
    let mut idom = Vec::new();
    immediate_dominators_into(n, root, edges, &mut Vec::new(), &mut idom);
    idom
}

/// Immediate dominators of the graph on nodes `0..n` with `edges` (from, to), from `root`,
/// into `idom` (emptied first): `idom[root] == root`, `NONE` for nodes the root does not
/// reach. The temporaries live in `buf` (a buffer kept by the caller; its contents do not
/// matter).
///
/// This is the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance
/// Algorithm") that petgraph's `simple_fast` implements too; petgraph keeps its predecessor sets
/// and results in hash maps, which cost more than the rest of structurization together on the
/// small graphs shaders have, so this version works on dense arrays. A test checks it against
/// petgraph's on thousands of random graphs.
pub fn immediate_dominators_into(
    n: usize,
    root: u32,
    edges: &[(u32, u32)],
    buf: &mut Vec<u32>,
    idom: &mut Vec<u32>,
) {
    // Every temporary lives in one buffer (one allocation, not ten): successor and predecessor
    // lists in compressed form (edge order kept), post-order numbers, the post-order itself,
    // the dominators by post-order number and the depth-first search's stack. Only the list
    // starts need zeros; the rest is written before it is read.
    let e = edges.len();
    buf.clear();
    buf.resize(2 * (n + 2) + 2 * e + 5 * n, 0);
    let (succ_start, rest) = buf.split_at_mut(n + 2);
    let (pred_start, rest) = rest.split_at_mut(n + 2);
    let (succ, rest) = rest.split_at_mut(e);
    let (pred, rest) = rest.split_at_mut(e);
    let (po, rest) = rest.split_at_mut(n);
    let (order, rest) = rest.split_at_mut(n);
    let (dom, stack) = rest.split_at_mut(n);
    // Counts at `start[key + 2]`, prefix sums, then `start[key + 1]` is the fill cursor: once
    // filled, `start[v]..start[v + 1]` is `v`'s list.
    let csr = |start: &mut [u32], list: &mut [u32], key: fn(&(u32, u32)) -> (u32, u32)| {
        for e in edges {
            start[key(e).0 as usize + 2] += 1;
        }
        for i in 0..n {
            start[i + 2] += start[i + 1];
        }
        for e in edges {
            let (a, b) = key(e);
            let at = &mut start[a as usize + 1];
            list[*at as usize] = b;
            *at += 1;
        }
    };
    csr(succ_start, succ, |&(a, b)| (a, b));
    csr(pred_start, pred, |&(a, b)| (b, a));
    // Post-order numbers by an iterative depth-first search (`SEEN`: on the stack). The stack
    // holds (node, next successor index) pairs; a node is pushed at most once.
    const SEEN: u32 = NONE - 1;
    po.fill(NONE);
    let mut m = 0usize;
    let mut depth = 1usize;
    stack[0] = root;
    stack[1] = succ_start[root as usize];
    po[root as usize] = SEEN;
    while depth > 0 {
        let top = 2 * (depth - 1);
        let (v, next) = (stack[top], stack[top + 1]);
        if next < succ_start[v as usize + 1] {
            let s = succ[next as usize];
            stack[top + 1] = next + 1;
            if po[s as usize] == NONE {
                po[s as usize] = SEEN;
                stack[2 * depth] = s;
                stack[2 * depth + 1] = succ_start[s as usize];
                depth += 1;
            }
        } else {
            po[v as usize] = m as u32;
            order[m] = v;
            m += 1;
            depth -= 1;
        }
    }
    // Predecessors as post-order numbers, lowest (deepest) first: a block many others branch
    // to (the merge of a loop with a `breakc` in every block) then meets each next predecessor
    // one step up the tree instead of walking the whole chain again.
    for v in 0..n {
        let list = &mut pred[pred_start[v] as usize..pred_start[v + 1] as usize];
        for p in list.iter_mut() {
            *p = po[*p as usize];
        }
        list.sort_unstable();
    }
    // Iterate to the fixed point in reverse post-order, on post-order numbers.
    let dom = &mut dom[..m];
    dom.fill(NONE);
    dom[m - 1] = (m - 1) as u32;
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..m - 1).rev() {
            let v = order[i] as usize;
            let mut new = NONE;
            for &p in &pred[pred_start[v] as usize..pred_start[v + 1] as usize] {
                if p == NONE || dom[p as usize] == NONE {
                    continue;
                }
                new = if new == NONE {
                    p
                } else {
                    let (mut a, mut b) = (new, p);
                    while a != b {
                        while a < b {
                            a = dom[a as usize];
                        }
                        while b < a {
                            b = dom[b as usize];
                        }
                    }
                    a
                };
            }
            if new != dom[i] {
                dom[i] = new;
                changed = true;
            }
        }
    }
    idom.clear();
    idom.resize(n, NONE);
    for (i, &v) in order[..m].iter().enumerate() {
        idom[v as usize] = order[dom[i] as usize];
    }
}

/// A dominator tree over a function's blocks (only blocks reachable from the entry are in it).
#[derive(Debug, Clone)]
pub struct DomTree {
    idom: Vec<u32>,
    /// Children of block `b`: `kids[kid_start[b]..kid_start[b + 1]]`, in block order.
    kid_start: Vec<u32>,
    kids: Vec<BlockId>,
    pre: Vec<u32>,
    post: Vec<u32>,
    /// The blocks of the tree in pre-order (by `pre`).
    order: Vec<BlockId>,
    root: BlockId,
}

impl DomTree {
    /// Dominators of `f`'s blocks, from the entry block.
    pub fn compute(f: &Function) -> Self {
        Self::compute_with(f, &mut Scratch::default())
    }

    /// [`DomTree::compute`] with kept working buffers (and the arrays of a recycled tree).
    pub fn compute_with(f: &Function, scratch: &mut Scratch) -> Self {
        let mut t = scratch.spare.take().unwrap_or_default();
        t.recompute(f, scratch);
        t
    }

    /// [`DomTree::compute_with`] for a function whose layout orders what the entry reaches
    /// topologically but for loops' back edges: every edge from a reached block goes to a block
    /// later in the layout, or back to a loop's header (`loop_exit` set) that dominates the
    /// block (`Function::plain_flow`, its blocks in the order a front end began them). Then one
    /// pass in layout order is enough: a back edge changes no block's dominators, and a
    /// block's other predecessors all come before it, so its immediate dominator is their
    /// nearest common dominator, found by walking up from the later of two until they meet. No
    /// edge lists, search or iteration to a fixed point. `None` (the tree's arrays kept for the
    /// next) when another edge goes back, or one goes to a block outside the layout.
    pub fn compute_in_layout_order(f: &Function, scratch: &mut Scratch) -> Option<Self> {
        let n = f.blocks.len();
        let mut t = scratch.spare.take().unwrap_or_default();
        let root = f.entry();
        t.root = root;
        let pos = &mut scratch.buf;
        pos.clear();
        pos.resize(n, NONE);
        for (i, &b) in f.layout.iter().enumerate() {
            pos[b.0 as usize] = i as u32;
        }
        let idom = &mut t.idom;
        idom.clear();
        idom.resize(n, NONE);
        // The root stands for itself while the pass runs (a reached block has an immediate
        // dominator); the tree leaves it NONE, as `recompute` does.
        idom[root.0 as usize] = root.0;
        let mut forward = true;
        'blocks: for &b in &f.layout {
            if idom[b.0 as usize] == NONE {
                continue;
            }
            let term = &f.block(b).term;
            for i in 0..term.successor_count() {
                let s = term.successor(i).0;
                if pos[s as usize] == NONE {
                    forward = false;
                    break 'blocks;
                }
                if pos[s as usize] <= pos[b.0 as usize] {
                    // Back to a loop header that dominates `b` (whose dominators are final):
                    // an ancestor of `b`, met walking up before the blocks above `s`.
                    let mut x = b.0;
                    while pos[x as usize] > pos[s as usize] {
                        x = idom[x as usize];
                    }
                    if x != s || f.blocks[s as usize].loop_exit.is_none() {
                        forward = false;
                        break 'blocks;
                    }
                    continue;
                }
                let d = idom[s as usize];
                idom[s as usize] = if d == NONE {
                    b.0
                } else {
                    // The nearest common dominator of `d` and `b`, both placed already.
                    let (mut x, mut y) = (d, b.0);
                    while x != y {
                        if pos[x as usize] > pos[y as usize] {
                            x = idom[x as usize];
                        } else {
                            y = idom[y as usize];
                        }
                    }
                    x
                };
            }
        }
        if !forward {
            scratch.spare = Some(t);
            return None;
        }
        t.idom[root.0 as usize] = NONE;
        t.rebuild(scratch);
        Some(t)
    }

    /// Recomputes the tree in place for `f`'s graph as it is now.
    pub fn recompute(&mut self, f: &Function, scratch: &mut Scratch) {
        let root = f.entry();
        self.root = root;
        if f.layout.len() == 1 && f.block(root).term.successor_count() == 0 {
            // One block that leaves the function (straight-line code): the tree is the entry
            // alone.
            self.idom.clear();
            self.idom.resize(f.blocks.len(), NONE);
        } else {
            let edges = &mut scratch.edges;
            edges.clear();
            for &b in &f.layout {
                let term = &f.block(b).term;
                for i in 0..term.successor_count() {
                    edges.push((b.0, term.successor(i).0));
                }
            }
            immediate_dominators_into(
                f.blocks.len(),
                root.0,
                edges,
                &mut scratch.buf,
                &mut self.idom,
            );
            self.idom[root.0 as usize] = NONE;
        }
        self.rebuild(scratch);
    }

    /// The nearest block that dominates both `a` and `b` (both in the tree).
    pub fn common_dominator(&self, a: BlockId, b: BlockId) -> BlockId {
        let mut x = a;
        while !self.dominates(x, b) {
            x = self
                .idom(x)
                .expect("the root dominates every block of the tree");
        }
        x
    }

    /// Starts an update by hand, for a pass that changed the graph in ways whose effect on
    /// dominators it knows: blocks up to `n` exist (new ones outside the tree). The numbering
    /// (and so [`DomTree::dominates`]) stays that of the tree before the update until
    /// [`DomTree::finish_update`]; [`DomTree::idom`] and [`DomTree::common_dominator`] must
    /// not be called in between (they would read half-updated dominators against the old
    /// numbering).
    pub fn grow(&mut self, n: usize) {
        if self.idom.len() < n {
            self.idom.resize(n, NONE);
        }
    }

    /// Sets `b`'s immediate dominator (`None`: `b` is unreachable) during an update.
    pub fn set_idom(&mut self, b: BlockId, d: Option<BlockId>) {
        self.idom[b.0 as usize] = d.map_or(NONE, |d| d.0);
    }

    /// Makes `to` the immediate dominator of every block (but `to`) whose immediate dominator
    /// is `from`, during an update. Only blocks whose immediate dominator is already set move:
    /// call [`DomTree::set_idom`] for new blocks `from` dominates before this.
    pub fn move_children(&mut self, from: BlockId, to: BlockId) {
        for (i, d) in self.idom.iter_mut().enumerate() {
            if *d == from.0 && i != to.0 as usize {
                *d = to.0;
            }
        }
    }

    /// Ends an update: children lists and numbering from the immediate dominators set.
    pub fn finish_update(&mut self, scratch: &mut Scratch) {
        self.rebuild(scratch);
    }

    /// Whether `self` and `other` have the same immediate dominators (a check of updates).
    pub fn same_as(&self, other: &DomTree) -> bool {
        self.root == other.root && self.idom == other.idom
    }

    /// The children lists and numbering from `idom`.
    fn rebuild(&mut self, scratch: &mut Scratch) {
        let n = self.idom.len();
        // `kid_start[d]..kid_start[d + 1]` are `d`'s children.
        let children = (self.idom.iter().enumerate())
            .filter(|&(_, &d)| d != NONE)
            .map(|(i, &d)| (d, BlockId(i as u32)));
        bucket(n, children, BlockId(0), &mut self.kid_start, &mut self.kids);
        self.pre.clear();
        self.pre.resize(n, NONE);
        self.post.clear();
        self.post.resize(n, NONE);
        self.order.clear();
        self.number(&mut scratch.stack);
    }

    fn number(&mut self, stack: &mut Vec<(BlockId, u32)>) {
        let mut post_counter = 0u32;
        stack.clear();
        stack.push((self.root, 0));
        self.pre[self.root.0 as usize] = 0;
        self.order.push(self.root);
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            let at = self.kid_start[b.0 as usize] + *i;
            if at < self.kid_start[b.0 as usize + 1] {
                let c = self.kids[at as usize];
                *i += 1;
                self.pre[c.0 as usize] = self.order.len() as u32;
                self.order.push(c);
                stack.push((c, 0));
            } else {
                self.post[b.0 as usize] = post_counter;
                post_counter += 1;
                stack.pop();
            }
        }
    }

    pub fn root(&self) -> BlockId {
        self.root
    }

    /// True when `b` is in the tree (reachable from the root).
    pub fn contains(&self, b: BlockId) -> bool {
        self.pre.get(b.0 as usize).is_some_and(|&p| p != NONE)
    }

    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        let d = *self.idom.get(b.0 as usize)?;
        (d != NONE).then_some(BlockId(d))
    }

    pub fn children(&self, b: BlockId) -> &[BlockId] {
        let i = b.0 as usize;
        &self.kids[self.kid_start[i] as usize..self.kid_start[i + 1] as usize]
    }

    /// True when `a` dominates `b` (every block dominates itself).
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        if !self.contains(a) || !self.contains(b) {
            return false;
        }
        self.pre[a.0 as usize] <= self.pre[b.0 as usize]
            && self.post[b.0 as usize] <= self.post[a.0 as usize]
    }

    /// Blocks of the tree in pre-order (dominators before the blocks they dominate; children
    /// in block order).
    pub fn preorder(&self) -> &[BlockId] {
        &self.order
    }
}

impl Default for DomTree {
    fn default() -> Self {
        DomTree {
            idom: Vec::new(),
            kid_start: Vec::new(),
            kids: Vec::new(),
            pre: Vec::new(),
            post: Vec::new(),
            order: Vec::new(),
            root: BlockId(0),
        }
    }
}

/// The function's control-flow graph in Graphviz form: one node per live block labelled with
/// its id, instruction count and merge annotation; edges in terminator order.
pub fn to_dot(f: &Function) -> String {
    use crate::ir::Merge;
    use petgraph::dot::{Config, Dot};
    use petgraph::graph::DiGraph;
    let mut g: DiGraph<String, &'static str> = DiGraph::new();
    let mut node = vec![None; f.blocks.len()];
    for &b in &f.layout {
        let blk = f.block(b);
        let merge = match blk.merge {
            Merge::None => String::new(),
            Merge::Selection(m) => format!("\nselection merge B{}", m.0),
            Merge::Loop {
                merge,
                continue_target,
            } => format!("\nloop merge B{} continue B{}", merge.0, continue_target.0),
        };
        let term = match blk.term {
            Terminator::Return => "\nret",
            Terminator::Unreachable => "\nunreachable",
            _ => "",
        };
        node[b.0 as usize] =
            Some(g.add_node(format!("B{} ({} insts){merge}{term}", b.0, blk.insts.len())));
    }
    for &b in &f.layout {
        let Some(from) = node[b.0 as usize] else {
            continue;
        };
        let term = &f.block(b).term;
        let labels: &[&'static str] = match term {
            Terminator::CondBranch { .. } => &["true", "false"],
            Terminator::Switch { .. } => &["default"],
            _ => &[""],
        };
        for (i, s) in term.successors().into_iter().enumerate() {
            if let Some(to) = node[s.0 as usize] {
                g.add_edge(from, to, labels.get(i).copied().unwrap_or("case"));
            }
        }
    }
    format!("{}", Dot::with_config(&g, &[Config::GraphContentOnly]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use petgraph::algo::dominators::simple_fast;
    use petgraph::graph::{DiGraph, NodeIndex};

    /// A xorshift generator from `seed`: each call gives a number below its argument.
    fn numbers(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        }
    }

    /// The one-pass computation for a layout in topological order gives the tree the general
    /// one does, on random functions (repeated edges, blocks the entry does not reach, blocks
    /// outside the layout that nothing reached targets); a layout with edges going back it
    /// takes exactly when each goes to a loop header that dominates its source.
    #[test]
    fn dominators_in_layout_order_match_the_general_computation() {
        use crate::ir::{Block, Operand, Terminator};
        let mut next = numbers(0x9e37_79b9_7f4a_7c15u64);
        let mut scratch = Scratch::default();
        let (mut declined, mut taken_with_loops) = (0, 0);
        for case in 0..4000 {
            let n = 1 + next(20) as usize;
            let mut f = Function::default();
            // Block k of the layout is block id perm[k]; edges go from layout position i to
            // positions after i, except in one case out of eight (an edge back).
            let mut perm: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                perm.swap(i, next(i as u64 + 1) as usize);
            }
            let back = case % 8 == 7;
            for _ in 0..n {
                f.blocks.push(Block::new());
            }
            for i in 0..n {
                let later = n - 1 - i;
                let target = |next: &mut dyn FnMut(u64) -> u64| {
                    if back && next(4) == 0 {
                        BlockId(perm[next(i as u64 + 1) as usize])
                    } else {
                        BlockId(perm[i + 1 + next(later as u64) as usize])
                    }
                };
                let term = match (later, next(4)) {
                    (0, _) | (_, 0) => Terminator::Return,
                    (_, 1) => Terminator::Branch(target(&mut next)),
                    (_, 2) => Terminator::CondBranch {
                        cond: Operand::Lit(0),
                        on_true: target(&mut next),
                        on_false: target(&mut next),
                    },
                    _ => Terminator::Switch {
                        selector: Operand::Lit(0),
                        default: target(&mut next),
                        cases: (0..next(4) as u32)
                            .map(|v| (v, target(&mut next)))
                            .collect(),
                    },
                };
                f.blocks[perm[i] as usize].term = term;
            }
            // The entry first; a block left out of the layout keeps its place unreachable.
            f.layout = perm.iter().map(|&b| BlockId(b)).collect();
            let general = DomTree::compute(&f);
            // Half the layouts with edges back mark every block a loop header: then an edge
            // back to a block that dominates its source is a loop's back edge, and the layout
            // is taken when every edge back is one.
            let headers = back && case % 16 == 15;
            if headers {
                for blk in &mut f.blocks {
                    blk.loop_exit = Some(BlockId(0));
                }
            }
            let at = |b: BlockId| perm.iter().position(|&x| x == b.0);
            let loops_only = (0..n as u32).map(BlockId).all(|b| {
                !general.contains(b)
                    || f.block(b)
                        .term
                        .successors()
                        .iter()
                        .all(|&s| at(s) > at(b) || (headers && general.dominates(s, b)))
            });
            match DomTree::compute_in_layout_order(&f, &mut scratch) {
                Some(t) => {
                    for b in 0..n as u32 {
                        let b = BlockId(b);
                        assert_eq!(t.idom(b), general.idom(b), "case {case}: B{}", b.0);
                        assert_eq!(t.contains(b), general.contains(b), "case {case}");
                    }
                    assert_eq!(t.preorder(), general.preorder(), "case {case}");
                    assert!(
                        loops_only,
                        "case {case}: took an edge back that is no loop's"
                    );
                    taken_with_loops += usize::from(back);
                    scratch.recycle(t);
                }
                None => {
                    assert!(
                        !loops_only,
                        "case {case}: declined a layout with loops only"
                    );
                    declined += 1;
                }
            }
        }
        assert!(
            declined > 100 && taken_with_loops > 20,
            "{declined} layouts with an edge back declined, {taken_with_loops} with loops taken"
        );
    }

    /// Our immediate dominators equal petgraph's on random graphs: dense and sparse, with
    /// self-loops, repeated edges and nodes the root does not reach.
    #[test]
    fn immediate_dominators_match_petgraph() {
        let mut next = numbers(0x2545_f491_4f6c_dd1du64);
        for case in 0..4000 {
            let n = 1 + next(24) as usize;
            let m = next(3 * n as u64 + 1) as usize;
            let edges: Vec<(u32, u32)> = (0..m)
                .map(|_| (next(n as u64) as u32, next(n as u64) as u32))
                .collect();
            let root = next(n as u64) as u32;
            let ours = immediate_dominators(n, root, &edges);
            let mut g: DiGraph<(), ()> = DiGraph::new();
            for _ in 0..n {
                g.add_node(());
            }
            for &(a, b) in &edges {
                g.add_edge(NodeIndex::new(a as usize), NodeIndex::new(b as usize), ());
            }
            let theirs = simple_fast(&g, NodeIndex::new(root as usize));
            for (v, &d) in ours.iter().enumerate() {
                let expected = if v as u32 == root {
                    Some(root)
                } else {
                    theirs
                        .immediate_dominator(NodeIndex::new(v))
                        .map(|d| d.index() as u32)
                };
                let got = (d != NONE).then_some(d);
                assert_eq!(
                    got, expected,
                    "case {case}: node {v} of {n}, root {root}, {edges:?}"
                );
            }
        }
    }
}
