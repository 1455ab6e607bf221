//! Control-flow-graph views of an IR function: a petgraph graph of its blocks, reverse
//! post-order, and a dominator tree with O(1) dominance queries.
//!
//! Dominators come from petgraph (`simple_fast`); this module only adds the tree numbering
//! that the structurizer and SSA construction query many times.

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};

use crate::ir::{BlockId, Function};

/// The function's blocks as a petgraph graph; node `i` is block `i` (dead blocks are isolated).
pub fn graph(f: &Function) -> DiGraph<(), ()> {
    let n = f.blocks.len();
    let mut g = DiGraph::with_capacity(n, n * 2);
    for _ in 0..n {
        g.add_node(());
    }
    for &b in &f.layout {
        for s in f.block(b).term.successors() {
            g.add_edge(
                NodeIndex::new(b.0 as usize),
                NodeIndex::new(s.0 as usize),
                (),
            );
        }
    }
    g
}

/// Blocks reachable from the entry, in reverse post-order of a depth-first search that visits
/// successors in terminator order.
pub fn reverse_post_order(f: &Function) -> Vec<BlockId> {
    let n = f.blocks.len();
    let mut visited = vec![false; n];
    let mut post = Vec::with_capacity(n);
    // Iterative DFS: (block, next successor index).
    let mut stack: Vec<(BlockId, usize)> = vec![(f.entry(), 0)];
    visited[f.entry().0 as usize] = true;
    while let Some(&mut (b, ref mut i)) = stack.last_mut() {
        let succ = f.block(b).term.successors();
        if *i < succ.len() {
            let s = succ[*i];
            *i += 1;
            if !visited[s.0 as usize] {
                visited[s.0 as usize] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

const NONE: u32 = u32::MAX;

/// A dominator tree over a function's blocks (only blocks reachable from the entry are in it).
#[derive(Debug, Clone)]
pub struct DomTree {
    idom: Vec<u32>,
    children: Vec<Vec<BlockId>>,
    pre: Vec<u32>,
    post: Vec<u32>,
    root: BlockId,
}

impl DomTree {
    /// Dominators of `f`'s blocks, from the entry block.
    pub fn compute(f: &Function) -> Self {
        let g = graph(f);
        let root = f.entry();
        let doms = simple_fast(&g, NodeIndex::new(root.0 as usize));
        let n = f.blocks.len();
        let mut idom = vec![NONE; n];
        let mut children = vec![Vec::new(); n];
        for (i, slot) in idom.iter_mut().enumerate() {
            if let Some(d) = doms.immediate_dominator(NodeIndex::new(i)) {
                *slot = d.index() as u32;
                children[d.index()].push(BlockId(i as u32));
            }
        }
        let mut t = DomTree {
            idom,
            children,
            pre: vec![NONE; n],
            post: vec![NONE; n],
            root,
        };
        t.number();
        t
    }

    /// Builds a tree from an explicit immediate-dominator array (`None` for the root and for
    /// nodes outside the tree).
    pub fn from_idoms(root: BlockId, idoms: &[Option<BlockId>]) -> Self {
        let n = idoms.len();
        let mut idom = vec![NONE; n];
        let mut children = vec![Vec::new(); n];
        for (i, d) in idoms.iter().enumerate() {
            if let Some(d) = d {
                idom[i] = d.0;
                children[d.0 as usize].push(BlockId(i as u32));
            }
        }
        let mut t = DomTree {
            idom,
            children,
            pre: vec![NONE; n],
            post: vec![NONE; n],
            root,
        };
        t.number();
        t
    }

    fn number(&mut self) {
        let mut counter = 0u32;
        let mut post_counter = 0u32;
        let mut stack = vec![(self.root, 0usize)];
        self.pre[self.root.0 as usize] = counter;
        counter += 1;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            let kids = &self.children[b.0 as usize];
            if *i < kids.len() {
                let c = kids[*i];
                *i += 1;
                self.pre[c.0 as usize] = counter;
                counter += 1;
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
        &self.children[b.0 as usize]
    }

    /// True when `a` dominates `b` (every block dominates itself).
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        if !self.contains(a) || !self.contains(b) {
            return false;
        }
        self.pre[a.0 as usize] <= self.pre[b.0 as usize]
            && self.post[b.0 as usize] <= self.post[a.0 as usize]
    }

    /// Blocks of the tree in pre-order (dominators before the blocks they dominate).
    pub fn preorder(&self) -> Vec<BlockId> {
        let mut out = Vec::with_capacity(self.idom.len());
        let mut stack = vec![self.root];
        while let Some(b) = stack.pop() {
            out.push(b);
            stack.extend(self.children[b.0 as usize].iter().rev());
        }
        out
    }

    /// Dominance frontiers (Cooper, Harvey and Kennedy's algorithm).
    pub fn frontiers(
        &self,
        f: &Function,
        preds: &[smallvec::SmallVec<[BlockId; 2]>],
    ) -> Vec<Vec<BlockId>> {
        let mut df: Vec<Vec<BlockId>> = vec![Vec::new(); f.blocks.len()];
        for &b in &f.layout {
            let p = &preds[b.0 as usize];
            if p.len() < 2 || !self.contains(b) {
                continue;
            }
            let stop = self.idom(b);
            for &pred in p {
                let mut runner = Some(pred);
                while let Some(r) = runner {
                    if Some(r) == stop || !self.contains(r) {
                        break;
                    }
                    let list = &mut df[r.0 as usize];
                    if list.last() != Some(&b) {
                        list.push(b);
                    }
                    runner = self.idom(r);
                }
            }
        }
        df
    }
}

/// The function's control-flow graph in Graphviz form: one node per live block labelled with
/// its id, instruction count and merge annotation; edges in terminator order.
pub fn to_dot(f: &Function) -> String {
    use crate::ir::{Merge, Terminator};
    use petgraph::dot::{Config, Dot};
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
            Terminator::Kill => "\nkill",
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
