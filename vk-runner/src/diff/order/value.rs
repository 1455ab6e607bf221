//! What the order analysis knows about one register component: its value per thread where
//! it follows from the thread's identity, constants and the run's constant buffers alone
//! (the same for every conforming implementation: integer operations, float moves,
//! conversions and correctly rounded add/mul), else how uniform it is; and whether it depends
//! on the order threads run in.

use std::rc::Rc;
use translator::sm4::Opcode as O;

/// How far an unknown value is the same across threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The same in every thread of the run.
    Uniform,
    /// The same in every thread of one thread group.
    Group,
    Varying,
}

/// A value known in every thread: one constant, or one value per thread.
#[derive(Debug, Clone)]
pub enum Known {
    C(u32),
    V(Rc<[u32]>),
}

impl PartialEq for Known {
    fn eq(&self, o: &Known) -> bool {
        match (self, o) {
            (Known::C(a), Known::C(b)) => a == b,
            (Known::V(a), Known::V(b)) => Rc::ptr_eq(a, b) || a == b,
            (Known::C(c), Known::V(v)) | (Known::V(v), Known::C(c)) => v.iter().all(|x| x == c),
        }
    }
}

impl Known {
    pub fn at(&self, t: usize) -> u32 {
        match self {
            Known::C(c) => *c,
            Known::V(v) => v.get(t).copied().unwrap_or(0),
        }
    }

    /// `f` applied per thread to the arguments (a constant when they all are).
    pub fn map(args: &[&Known], n: usize, f: impl Fn(&[u32]) -> u32) -> Known {
        let mut buf = vec![0u32; args.len()];
        if args.iter().all(|a| matches!(a, Known::C(_))) {
            for (b, a) in buf.iter_mut().zip(args) {
                *b = a.at(0);
            }
            return Known::C(f(&buf));
        }
        let v: Vec<u32> = (0..n)
            .map(|t| {
                for (b, a) in buf.iter_mut().zip(args) {
                    *b = a.at(t);
                }
                f(&buf)
            })
            .collect();
        Known::V(v.into())
    }

    /// How uniform the values are, given each thread's group.
    pub fn level(&self, group: &[u32]) -> Level {
        let Known::V(v) = self else {
            return Level::Uniform;
        };
        if v.iter().all(|x| *x == v[0]) {
            return Level::Uniform;
        }
        let same_in_group = v
            .iter()
            .zip(group)
            .zip(v.iter().zip(group).skip(1))
            .all(|((a, ga), (b, gb))| ga != gb || a == b);
        if same_in_group {
            Level::Group
        } else {
            Level::Varying
        }
    }
}

/// One register component.
#[derive(Debug, Clone, PartialEq)]
pub struct Val {
    pub known: Option<Known>,
    /// For unknown values.
    pub level: Level,
    /// The value depends on the order threads run in.
    pub od: bool,
    /// The value is an index a UAV counter handed out (`imm_atomic_alloc` on this memory):
    /// unique, but in no defined order.
    pub alloc: Option<usize>,
}

impl Val {
    pub fn konst(c: u32) -> Val {
        Val::known(Known::C(c))
    }

    pub fn known(k: Known) -> Val {
        Val {
            known: Some(k),
            level: Level::Uniform,
            od: false,
            alloc: None,
        }
    }

    pub fn unknown(level: Level, od: bool) -> Val {
        Val {
            known: None,
            level,
            od,
            alloc: None,
        }
    }

    /// A register never written: D3D does not define it.
    pub fn uninit() -> Val {
        Val::unknown(Level::Varying, false)
    }

    /// The level of the value whether known or not.
    pub fn level_in(&self, group: &[u32]) -> Level {
        match &self.known {
            Some(k) => k.level(group),
            None => self.level,
        }
    }
}

fn f(x: u32) -> f32 {
    let v = f32::from_bits(x);
    // D3D flushes denormal inputs of arithmetic.
    if v.is_subnormal() { 0.0 } else { v }
}

fn bits(v: f32) -> u32 {
    if v.is_subnormal() {
        (v * 0.0).to_bits()
    } else {
        v.to_bits()
    }
}

fn mask(b: bool) -> u32 {
    if b { u32::MAX } else { 0 }
}

/// Destination `dst` of `op` from its source components, where every conforming
/// implementation computes the same bits; None for anything else.
pub fn eval(op: O, dst: usize, a: &[u32]) -> Option<u32> {
    let x = |i: usize| a.get(i).copied().unwrap_or(0);
    Some(match (op, dst) {
        (O::Mov, _) => x(0),
        (O::Movc, _) => {
            if x(0) != 0 {
                x(1)
            } else {
                x(2)
            }
        }
        (O::Swapc, 0) => {
            if x(0) != 0 {
                x(2)
            } else {
                x(1)
            }
        }
        (O::Swapc, _) => {
            if x(0) != 0 {
                x(1)
            } else {
                x(2)
            }
        }
        (O::IAdd, _) => x(0).wrapping_add(x(1)),
        (O::INeg, _) => x(0).wrapping_neg(),
        (O::IMul, 0) => ((i64::from(x(0) as i32) * i64::from(x(1) as i32)) >> 32) as u32,
        (O::IMul, _) | (O::UMul, 1) => x(0).wrapping_mul(x(1)),
        (O::UMul, _) => ((u64::from(x(0)) * u64::from(x(1))) >> 32) as u32,
        (O::UDiv, 0) => x(0).checked_div(x(1)).unwrap_or(u32::MAX),
        (O::UDiv, _) => x(0).checked_rem(x(1)).unwrap_or(u32::MAX),
        (O::IMad | O::UMad, _) => x(0).wrapping_mul(x(1)).wrapping_add(x(2)),
        (O::UAddc, 0) => x(0).wrapping_add(x(1)),
        (O::UAddc, _) => u32::from(x(0).checked_add(x(1)).is_none()),
        (O::USubb, 0) => x(0).wrapping_sub(x(1)),
        (O::USubb, _) => u32::from(x(0) < x(1)),
        (O::IShl, _) => x(0).wrapping_shl(x(1) & 31),
        (O::UShr, _) => x(0).wrapping_shr(x(1) & 31),
        (O::IShr, _) => ((x(0) as i32) >> (x(1) & 31)) as u32,
        (O::And, _) => x(0) & x(1),
        (O::Or, _) => x(0) | x(1),
        (O::Xor, _) => x(0) ^ x(1),
        (O::Not, _) => !x(0),
        (O::IMin, _) => (x(0) as i32).min(x(1) as i32) as u32,
        (O::IMax, _) => (x(0) as i32).max(x(1) as i32) as u32,
        (O::UMin, _) => x(0).min(x(1)),
        (O::UMax, _) => x(0).max(x(1)),
        (O::IEq, _) => mask(x(0) == x(1)),
        (O::INe, _) => mask(x(0) != x(1)),
        (O::ILt, _) => mask((x(0) as i32) < (x(1) as i32)),
        (O::IGe, _) => mask((x(0) as i32) >= (x(1) as i32)),
        (O::ULt, _) => mask(x(0) < x(1)),
        (O::UGe, _) => mask(x(0) >= x(1)),
        (O::CountBits, _) => x(0).count_ones(),
        (O::BfRev, _) => x(0).reverse_bits(),
        (O::UBfe, _) => {
            let (w, o) = (x(0) & 31, x(1) & 31);
            if w == 0 {
                0
            } else if w + o < 32 {
                (x(2) << (32 - (w + o))) >> (32 - w)
            } else {
                x(2) >> o
            }
        }
        (O::IBfe, _) => {
            let (w, o) = (x(0) & 31, x(1) & 31);
            if w == 0 {
                0
            } else if w + o < 32 {
                (((x(2) << (32 - (w + o))) as i32) >> (32 - w)) as u32
            } else {
                ((x(2) as i32) >> o) as u32
            }
        }
        (O::Bfi, _) => {
            let (w, o) = (x(0) & 31, x(1) & 31);
            let m = (((1u64 << w) - 1) << o) as u32;
            ((x(2) << o) & m) | (x(3) & !m)
        }
        (O::UtoF, _) => bits(x(0) as f32),
        (O::ItoF, _) => bits(x(0) as i32 as f32),
        (O::FtoU, _) => f(x(0)) as u32,
        (O::FtoI, _) => f(x(0)) as i32 as u32,
        (O::Add, _) => bits(f(x(0)) + f(x(1))),
        (O::Mul, _) => bits(f(x(0)) * f(x(1))),
        (O::Min, _) => bits(f(x(0)).min(f(x(1)))),
        (O::Max, _) => bits(f(x(0)).max(f(x(1)))),
        (O::Eq, _) => mask(f(x(0)) == f(x(1))),
        (O::Ne, _) => mask(f(x(0)) != f(x(1))),
        (O::Lt, _) => mask(f(x(0)) < f(x(1))),
        (O::Ge, _) => mask(f(x(0)) >= f(x(1))),
        (O::RoundNi, _) => bits(f(x(0)).floor()),
        (O::RoundPi, _) => bits(f(x(0)).ceil()),
        (O::RoundZ, _) => bits(f(x(0)).trunc()),
        (O::RoundNe, _) => bits(f(x(0)).round_ties_even()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_and_float_operations() {
        assert_eq!(eval(O::IMul, 0, &[u32::MAX, 2]), Some(u32::MAX), "hi of -2");
        assert_eq!(eval(O::IMul, 1, &[7, 6]), Some(42));
        assert_eq!(eval(O::UDiv, 0, &[7, 0]), Some(u32::MAX));
        assert_eq!(eval(O::UBfe, 0, &[4, 4, 0xabcd]), Some(0xc));
        assert_eq!(eval(O::IBfe, 0, &[4, 0, 0xf]), Some(u32::MAX));
        assert_eq!(eval(O::Bfi, 0, &[4, 4, 0x5, 0xffff]), Some(0xff5f));
        assert_eq!(eval(O::FtoU, 0, &[(-1.5f32).to_bits()]), Some(0));
        assert_eq!(eval(O::FtoU, 0, &[f32::NAN.to_bits()]), Some(0));
        assert_eq!(
            eval(O::Add, 0, &[1.5f32.to_bits(), 2.0f32.to_bits()]),
            Some(3.5f32.to_bits())
        );
        assert_eq!(eval(O::Mad, 0, &[0, 0, 0]), None, "mad may be fused or not");
    }

    #[test]
    fn levels() {
        let g = [0, 0, 1, 1];
        assert_eq!(Known::C(3).level(&g), Level::Uniform);
        assert_eq!(Known::V(vec![5, 5, 6, 6].into()).level(&g), Level::Group);
        assert_eq!(Known::V(vec![5, 6, 6, 6].into()).level(&g), Level::Varying);
        assert_eq!(Known::V(vec![2; 4].into()), Known::C(2));
    }
}
