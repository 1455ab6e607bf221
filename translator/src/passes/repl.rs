//! A value replacement map the passes share: simplify, CSE and the others record that a value
//! now stands for another, and rewrite operands through it as they walk.

use spirv::Op;

use crate::ir::{BlockId, Function, Operand, ValueId};

/// Replacement map for values, with path compression.
///
/// Entries are operands packed into one word each (see [`pack`]), with 0 for "no
/// replacement": the map is one zero-filled allocation, not a loop writing `None` into every
/// slot. The passes share one map, sized by the whole instruction arena, through
/// [`super::PassCx`]; [`Replacements::reset`] empties it by zeroing only the slots that were
/// set.
pub struct Replacements {
    map: Vec<u64>,
    /// The slots set since the last reset.
    touched: Vec<u32>,
    any: bool,
}

/// An operand as a non-zero word: kind (1 to 6) in the high half, index or literal in the low.
fn pack(o: Operand) -> u64 {
    let (kind, x) = match o {
        Operand::Value(v) => (1u64, v.0),
        Operand::Const(c) => (2, c.0),
        Operand::Global(g) => (3, g.0),
        Operand::Var(v) => (4, v.0),
        Operand::Block(b) => (5, b.0),
        Operand::Lit(l) => (6, l),
    };
    kind << 32 | x as u64
}

/// The operand [`pack`] made `w` from; `None` for 0.
fn unpack(w: u64) -> Option<Operand> {
    let x = w as u32;
    Some(match w >> 32 {
        1 => Operand::Value(ValueId(x)),
        2 => Operand::Const(crate::ir::ConstId(x)),
        3 => Operand::Global(crate::ir::GlobalId(x)),
        4 => Operand::Var(crate::ir::VarId(x)),
        5 => Operand::Block(BlockId(x)),
        6 => Operand::Lit(x),
        _ => return None,
    })
}

impl Default for Replacements {
    fn default() -> Self {
        Replacements::new(0)
    }
}

impl Replacements {
    pub fn new(n: usize) -> Self {
        Replacements {
            map: vec![0; n],
            touched: Vec::new(),
            any: false,
        }
    }

    /// Forgets every replacement, and makes room for values `0..n` (a function's arena).
    pub fn reset(&mut self, n: usize) {
        for &i in &self.touched {
            self.map[i as usize] = 0;
        }
        self.touched.clear();
        self.any = false;
        if self.map.is_empty() {
            self.map = vec![0; n]; // zeroed by the allocator
            // Room for a pass's replacements (a small part of the arena, as a rule) without
            // growing the list step by step.
            self.touched.reserve(n / 4);
        } else if self.map.len() < n {
            self.map.resize(n, 0);
        }
    }

    pub fn set(&mut self, v: ValueId, to: Operand) {
        if self.map.len() <= v.0 as usize {
            self.map.resize(v.0 as usize + 1, 0);
        }
        let slot = &mut self.map[v.0 as usize];
        if *slot == 0 {
            self.touched.push(v.0);
        }
        *slot = pack(to);
        self.any = true;
    }

    pub fn is_empty(&self) -> bool {
        !self.any
    }

    fn get(&self, v: ValueId) -> Option<Operand> {
        unpack(self.map.get(v.0 as usize).copied().unwrap_or(0))
    }

    /// The operand `o` stands for after all replacements.
    pub fn resolve(&mut self, o: Operand) -> Operand {
        let Operand::Value(mut v) = o else { return o };
        // Most operands have no replacement: one look-up, nothing unpacked.
        let w = self.map.get(v.0 as usize).copied().unwrap_or(0);
        if w == 0 {
            return o;
        }
        let first = match unpack(w) {
            Some(to) => to,
            None => return o,
        };
        let next = match first {
            Operand::Value(next) if next != v => next,
            _ => return first,
        };
        // A chain of one (the usual case): nothing to follow or compress.
        if self.map.get(next.0 as usize).copied().unwrap_or(0) == 0 {
            return first;
        }
        let mut steps = 0;
        let result = loop {
            match self.get(v) {
                Some(Operand::Value(next)) if next != v && steps < 1_000_000 => {
                    v = next;
                    steps += 1;
                }
                Some(other) => break other,
                None => break Operand::Value(v),
            }
        };
        // Path compression.
        if let Operand::Value(start) = o {
            let packed = pack(result);
            let mut cur = start;
            while let Some(Operand::Value(next)) = self.get(cur) {
                if next == cur {
                    break;
                }
                self.map[cur.0 as usize] = packed;
                cur = next;
            }
        }
        result
    }

    /// Rewrites the operands of the phis of `f` (the only instructions that can use a value
    /// defined later in a dominator-order walk).
    pub fn apply_to_phis(&mut self, f: &mut Function) {
        if self.is_empty() {
            return;
        }
        for bi in 0..f.layout.len() {
            let b = f.layout[bi];
            for k in 0..f.block(b).insts.len() {
                let v = f.block(b).insts[k];
                if f.inst(v).op != Op::Phi {
                    break;
                }
                for a in f.inst_mut(v).args.iter_mut().step_by(2) {
                    if let Operand::Value(_) = *a {
                        *a = self.resolve(*a);
                    }
                }
            }
        }
    }
}
