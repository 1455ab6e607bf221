//! Sets of threads: which threads of the run a path of the walk, or an access to memory,
//! stands for; one bit per thread.

/// A set of threads.
#[derive(Debug, Clone, PartialEq)]
pub struct Mask(pub(super) Vec<u64>);

impl Mask {
    pub fn full(n: usize) -> Mask {
        let mut m = Mask(vec![0; n.div_ceil(64)]);
        for t in 0..n {
            m.set(t);
        }
        m
    }

    pub(super) fn set(&mut self, t: usize) {
        self.0[t / 64] |= 1 << (t % 64);
    }

    pub fn get(&self, t: usize) -> bool {
        self.0.get(t / 64).is_some_and(|w| w & (1 << (t % 64)) != 0)
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    pub(super) fn none(&self) -> Mask {
        Mask(vec![0; self.0.len()])
    }

    pub(super) fn or(&mut self, o: &Mask) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(i, w)| {
            (0..64)
                .filter(move |b| w & (1 << b) != 0)
                .map(move |b| i * 64 + b)
        })
    }
}
