//! Which memory accesses of a walk race: two threads touching the same word (or texel) with
//! no barrier between them that orders them — threads of different groups are never ordered
//! within a dispatch, threads of one group are ordered by a `sync_*_t` covering the memory
//! (`_g` for shared memory, `_ugroup`/`_uglobal` for UAVs) between the accesses.
//!
//! A memory's final contents depend on the order threads run in where racing writes do not
//! commute: atomics of one kind (add, and, or, xor, min, max) commute with each other; stores,
//! exchanges and compare-and-stores commute only when they apply the same operands (the same
//! known values, or one value the same in both threads); anything else does not. A load
//! depends on the order when a write of another thread races with it, or when it reads a
//! word whose contents already depend on the order.

use super::Why;
use super::interp::{Access, Addr, Effect, Mask};
use super::setup::Setup;
use super::value::{Level, Val};
use std::collections::{HashMap, HashSet};

/// Limit on the work of the pairwise comparison, beyond which accesses are taken to race.
const MAX_WORK: u64 = 200_000_000;

/// What the races make order-dependent.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Loads (instruction index) whose value depends on the order threads run in.
    pub reads: HashSet<usize>,
    /// Per memory whose final contents depend on it: why, and the words (texels) that do, or
    /// None for any.
    pub mems: Vec<Option<(Why, Option<HashSet<Key>>)>>,
}

/// What one operand of a write is in one thread, for telling whether two threads write the
/// same thing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Ident {
    Value(u32),
    /// An unknown value, the same in every thread (of one group, for `Group`) making this
    /// access.
    Uniform(u32, usize),
    Group(u32, usize, u32),
    /// Different from every other thread's.
    Own(u32, usize, usize),
}

fn ident(a: &Access, k: usize, v: &Val, t: usize, group: &[u32]) -> Ident {
    match (&v.known, v.level, a.fixpoint) {
        (Some(x), _, _) => Ident::Value(x.at(t)),
        // One access of a loop iterated to a fixed point stands for every iteration.
        (None, Level::Uniform, false) => Ident::Uniform(a.id, k),
        (None, Level::Group, false) => Ident::Group(a.id, k, group[t]),
        _ => Ident::Own(a.id, k, t),
    }
}

/// A word of a buffer (its index) or a texel of a typed UAV (its coordinates).
pub type Key = [u32; 3];

/// Words an access may touch, per thread: known keys, or any.
fn keys(a: &Access, t: usize) -> Option<Vec<Key>> {
    let Addr::Known(k) = &a.addr else { return None };
    Some(
        a.cells
            .iter()
            .map(|(off, _)| [k[0].at(t).wrapping_add(*off), k[1].at(t), k[2].at(t)])
            .collect(),
    )
}

struct Judge<'a> {
    s: &'a Setup<'a>,
    work: u64,
}

/// Words whose contents depend on the order: all, or these.
#[derive(Default)]
struct Taint {
    all: bool,
    keys: HashSet<Key>,
}

impl Taint {
    /// The words of a write whose contents depend on the order.
    fn add(&mut self, a: &Access) {
        match (&a.addr, self.all) {
            (_, true) => {}
            (Addr::Known(_), _) => {
                for t in a.mask.iter() {
                    let ks = keys(a, t).unwrap_or_default();
                    for (k, (_, vals)) in ks.into_iter().zip(&a.cells) {
                        if a.od || cell_od(vals) {
                            self.keys.insert(k);
                        }
                    }
                }
            }
            _ => self.all = true,
        }
    }

    fn touches(&self, a: &Access) -> bool {
        if self.all {
            return true;
        }
        if self.keys.is_empty() {
            return false;
        }
        a.mask
            .iter()
            .any(|t| keys(a, t).is_none_or(|ks| ks.iter().any(|k| self.keys.contains(k))))
    }
}

/// Whether a write's operands for one word depend on the order (or are a counter's slot).
fn cell_od(vals: &[Val]) -> bool {
    vals.iter().any(|v| v.od || v.alloc.is_some())
}

pub fn judge(s: &Setup<'_>, accesses: &[Access]) -> Verdict {
    let mut j = Judge { s, work: 0 };
    let mut v = Verdict {
        reads: HashSet::new(),
        mems: vec![None; s.mems.len()],
    };
    for m in 0..s.mems.len() {
        let of: Vec<&Access> = accesses.iter().filter(|a| a.mem == m).collect();
        let writes: Vec<&Access> = of.iter().copied().filter(|a| a.write.is_some()).collect();
        let mut taint = Taint::default();
        let mut why = None;
        for w in &writes {
            if w.od || w.cells.iter().any(|(_, v)| cell_od(v)) {
                why = Some(Why::OrderDependentWrite);
                taint.add(w);
            }
        }
        for (i, a) in writes.iter().enumerate() {
            for b in &writes[i..] {
                let (Some(ea), Some(eb)) = (a.write, b.write) else {
                    continue;
                };
                if matches!((ea, eb), (Effect::Commute(x), Effect::Commute(y)) if x == y) {
                    continue;
                }
                match j.conflict(a, b, ea == eb) {
                    Conflict::None => {}
                    Conflict::At(ks) => {
                        why = Some(Why::RacingWrites);
                        if !taint.all {
                            taint.keys.extend(ks);
                        }
                    }
                    Conflict::Anywhere => {
                        why = Some(Why::RacingWrites);
                        taint.all = true;
                    }
                }
            }
        }
        for r in of.iter().filter(|a| a.read) {
            if v.reads.contains(&r.site) {
                continue;
            }
            let racing = taint.touches(r)
                || writes
                    .iter()
                    .any(|w| !matches!(j.conflict(r, w, false), Conflict::None));
            if racing {
                v.reads.insert(r.site);
            }
        }
        v.mems[m] = why.map(|w| (w, (!taint.all).then_some(taint.keys)));
    }
    v
}

enum Conflict {
    None,
    /// At these (known) words.
    At(Vec<Key>),
    /// Somewhere not known.
    Anywhere,
}

/// Threads of an access by group: (count, one thread).
fn groups(m: &Mask, group: &[u32]) -> HashMap<u32, (usize, usize)> {
    let mut g: HashMap<u32, (usize, usize)> = HashMap::new();
    for t in m.iter() {
        let e = g.entry(group[t]).or_insert((0, t));
        e.0 += 1;
    }
    g
}

impl Judge<'_> {
    /// Whether a thread of `a` and another thread of `b` may touch one word unordered (and,
    /// with `same_effect`, write different things there).
    fn conflict(&mut self, a: &Access, b: &Access, same_effect: bool) -> Conflict {
        let uav = self.s.mems[a.mem].uav;
        let same_epoch = !a.epochs.is_disjoint(&b.epochs);
        if !uav && !same_epoch {
            return Conflict::None;
        }
        let group = &self.s.group;
        match (&a.addr, &b.addr) {
            (Addr::Known(_), Addr::Known(_)) => self.known(a, b, same_effect, uav, same_epoch),
            // Elements a counter handed out are every thread's own.
            (Addr::Unique, Addr::Unique) => Conflict::None,
            _ => {
                if same_effect && self.one_operand(a, b) {
                    return Conflict::None;
                }
                self.work += 2 * self.s.n as u64;
                let (ga, gb) = (groups(&a.mask, group), groups(&b.mask, group));
                let across = uav && ga.keys().any(|x| gb.keys().any(|y| x != y));
                let within = same_epoch
                    && ga.iter().any(|(g, (na, ta))| {
                        gb.get(g)
                            .is_some_and(|(nb, tb)| !(*na == 1 && *nb == 1 && ta == tb))
                    });
                if across || within {
                    Conflict::Anywhere
                } else {
                    Conflict::None
                }
            }
        }
    }

    /// Whether every thread of both accesses writes the same operands everywhere.
    fn one_operand(&mut self, a: &Access, b: &Access) -> bool {
        let group = &self.s.group;
        let mut seen: Option<Vec<Ident>> = None;
        for x in [a, b] {
            for t in x.mask.iter() {
                self.work += 1;
                for (_, vals) in &x.cells {
                    let id: Vec<Ident> = vals
                        .iter()
                        .enumerate()
                        .map(|(k, v)| ident(x, k, v, t, group))
                        .collect();
                    match &seen {
                        None => seen = Some(id),
                        Some(s) if *s != id => return false,
                        _ => {}
                    }
                }
            }
        }
        true
    }

    fn known(
        &mut self,
        a: &Access,
        b: &Access,
        same_effect: bool,
        uav: bool,
        same_epoch: bool,
    ) -> Conflict {
        let group = &self.s.group;
        // b's threads per word: (group, operands) → (count, one thread).
        type Entry = (u32, Option<Vec<Ident>>, usize, usize);
        let mut at: HashMap<Key, Vec<Entry>> = HashMap::new();
        for t in b.mask.iter() {
            let ks = keys(b, t).unwrap_or_default();
            for (key, (_, vals)) in ks.into_iter().zip(&b.cells) {
                self.work += 1;
                let id = same_effect.then(|| {
                    vals.iter()
                        .enumerate()
                        .map(|(k, v)| ident(b, k, v, t, group))
                        .collect::<Vec<_>>()
                });
                let list = at.entry(key).or_default();
                match list.iter_mut().find(|e| e.0 == group[t] && e.1 == id) {
                    Some(e) => e.2 += 1,
                    None => list.push((group[t], id, 1, t)),
                }
            }
        }
        let mut found: Vec<Key> = Vec::new();
        for t in a.mask.iter() {
            let ks = keys(a, t).unwrap_or_default();
            for (key, (_, vals)) in ks.into_iter().zip(&a.cells) {
                let Some(list) = at.get(&key) else { continue };
                let id = same_effect.then(|| {
                    vals.iter()
                        .enumerate()
                        .map(|(k, v)| ident(a, k, v, t, group))
                        .collect::<Vec<_>>()
                });
                for e in list {
                    self.work += 1;
                    let ordered = if e.0 != group[t] {
                        !uav
                    } else {
                        !same_epoch || (e.2 == 1 && e.3 == t)
                    };
                    if ordered || (same_effect && e.1 == id) {
                        continue;
                    }
                    found.push(key);
                    break;
                }
            }
            if self.work > MAX_WORK {
                return Conflict::Anywhere;
            }
        }
        if found.is_empty() {
            Conflict::None
        } else {
            Conflict::At(found)
        }
    }
}
