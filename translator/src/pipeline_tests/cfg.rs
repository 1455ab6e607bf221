//! petgraph as an oracle on real functions: our test shaders are lowered and structurized, and
//! petgraph's algorithms, run on the function through the `Cfg` view (no copy), must agree with
//! ours: `simple_fast` with our dominator tree, `simple_fast` on `Reversed` with our
//! generic dominators (post-dominators), and `tarjan_scc` with the structurizer's loops (every
//! cycle has a loop header that dominates it).

use petgraph::algo::dominators::simple_fast;
use petgraph::algo::tarjan_scc;
use petgraph::visit::Reversed;

use crate::ir::{Function, Merge, Terminator};
use crate::passes::cfg::{Cfg, CfgPreds, DomTree, dominators_of};

fn structurized_functions() -> Vec<(String, Function)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shaders/asm");
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("shaders/asm")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    paths.sort();
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap();
        let dxbc = crate::asm::assemble(&text).unwrap();
        let mut m = crate::translate::lower_container(&dxbc, &crate::Options::default()).unwrap();
        let mut f = m.functions.swap_remove(0);
        crate::passes::structurize::structurize(&mut f).unwrap();
        out.push((p.display().to_string(), f));
    }
    assert!(out.len() >= 8, "{} programs", out.len());
    out
}

#[test]
fn petgraph_agrees_with_our_cfg_algorithms_on_real_functions() {
    let (mut cycles, mut post_dominators) = (0, 0);
    for (name, f) in structurized_functions() {
        let cfg = Cfg::new(&f);
        let ours = DomTree::compute(&f);
        let theirs = simple_fast(cfg, f.entry());
        for &b in &f.layout {
            let want = if b == f.entry() {
                None
            } else {
                theirs.immediate_dominator(b)
            };
            assert_eq!(ours.idom(b), want, "{name}: idom of B{}", b.0);
        }
        // Every cycle lies in a loop whose header dominates all of it.
        for scc in tarjan_scc(cfg) {
            let b = scc[0];
            let cyclic = scc.len() > 1 || f.block(b).term.successors().contains(&b);
            if !cyclic {
                continue;
            }
            cycles += 1;
            // Nested loops share one strongly connected component: the outermost header
            // dominates it all.
            let dominating_header = scc.iter().any(|&h| {
                matches!(f.block(h).merge, Merge::Loop { .. })
                    && scc.iter().all(|&x| ours.dominates(h, x))
            });
            assert!(
                dominating_header,
                "{name}: no loop header dominates the cycle {scc:?}"
            );
        }
        // Post-dominators where there is one exit: our algorithm, generic over the traits, on
        // petgraph's `Reversed` view equals petgraph's own.
        let exits: Vec<_> = f
            .layout
            .iter()
            .copied()
            .filter(|&b| matches!(f.block(b).term, Terminator::Return))
            .collect();
        if let [exit] = exits[..] {
            post_dominators += 1;
            let preds = f.predecessors();
            let rev = Reversed(CfgPreds::new(&f, &preds));
            let ours = dominators_of(rev, exit);
            let theirs = simple_fast(rev, exit);
            for &b in &f.layout {
                let got = (ours[b.0 as usize] != u32::MAX).then(|| ours[b.0 as usize]);
                let want = if b == exit {
                    Some(exit.0)
                } else {
                    theirs.immediate_dominator(b).map(|d| d.0)
                };
                assert_eq!(got, want, "{name}: ipdom of B{}", b.0);
            }
        }
    }
    assert!(cycles > 0, "no program with a loop");
    assert!(post_dominators > 0, "no program with one exit");
}
