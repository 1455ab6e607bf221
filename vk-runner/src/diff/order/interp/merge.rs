//! Where paths meet: the threads of each part keep the values of the path they took, and
//! what the paths disagree on for one thread becomes unknown; order dependence and the
//! barrier intervals of every part carry over.

use super::{Epochs, Mask, Node, Run, State};
use crate::diff::order::value::{Known, Level, Val};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

impl<'a> Run<'a> {
    /// The state after paths that meet: each thread takes its values from the paths it
    /// may be on; where those disagree, the value is unknown.
    pub(super) fn merge(&mut self, parts: Vec<State>) -> State {
        let (mut live, dead): (Vec<State>, Vec<State>) =
            parts.into_iter().partition(|p| !p.mask.is_empty());
        if live.is_empty() {
            return dead.into_iter().next().expect("merge of no state");
        }
        if live.len() == 1 {
            return live.pop().expect("one");
        }
        let mut mask = live[0].mask.clone();
        let mut ep_g: BTreeSet<u32> = BTreeSet::new();
        let mut ep_u: BTreeSet<u32> = BTreeSet::new();
        for p in &live {
            mask.or(&p.mask);
            ep_g.extend(p.ep_g.iter());
            ep_u.extend(p.ep_u.iter());
        }
        let mut keys: Vec<Node> = live.iter().flat_map(|p| p.env.keys().copied()).collect();
        keys.sort_unstable();
        keys.dedup();
        let mut env = HashMap::with_capacity(keys.len());
        for k in keys {
            let vals: Vec<Option<&Val>> = live.iter().map(|p| p.env.get(&k)).collect();
            let v = match vals[0] {
                Some(first) if vals.iter().all(|v| *v == Some(first)) => first.clone(),
                _ => {
                    self.steps += self.s.n as u64;
                    join(&vals, &live, &mask, &self.s.group)
                }
            };
            env.insert(k, v);
        }
        let pick = |e: &Epochs, all: BTreeSet<u32>| {
            if **e == all { e.clone() } else { Rc::new(all) }
        };
        State {
            ep_g: pick(&live[0].ep_g, ep_g),
            ep_u: pick(&live[0].ep_u, ep_u),
            env,
            mask,
            ctl: live.iter().any(|p| p.ctl),
            sticky: live.iter().any(|p| p.sticky),
        }
    }
}

/// One node's value where paths meet.
fn join(vals: &[Option<&Val>], parts: &[State], mask: &Mask, group: &[u32]) -> Val {
    let od = vals.iter().flatten().any(|v| v.od);
    let allocs: HashSet<Option<usize>> = vals.iter().map(|v| v.and_then(|v| v.alloc)).collect();
    let alloc_od = allocs.len() > 1 && allocs.iter().any(|a| a.is_some());
    if vals.iter().all(|v| v.is_some_and(|v| v.known.is_some())) {
        let n = group.len();
        let mut out = vec![0u32; n];
        let mut ok = true;
        'threads: for t in mask.iter() {
            let mut seen = None;
            for (v, p) in vals.iter().zip(parts) {
                if !p.mask.get(t) {
                    continue;
                }
                let x = v.and_then(|v| v.known.as_ref()).map_or(0, |k| k.at(t));
                match seen {
                    None => seen = Some(x),
                    Some(y) if y != x => {
                        ok = false;
                        break 'threads;
                    }
                    _ => {}
                }
            }
            out[t] = seen.unwrap_or(0);
        }
        if ok {
            let mut v = Val::known(Known::V(out.into()));
            v.od = od || alloc_od;
            return v;
        }
    }
    Val {
        known: None,
        level: Level::Varying,
        od: od || alloc_od,
        alloc: if allocs.len() == 1 {
            allocs.into_iter().next().flatten()
        } else {
            None
        },
    }
}
