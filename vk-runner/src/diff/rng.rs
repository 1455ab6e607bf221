//! The generator's random numbers: SplitMix64 streams keyed by the seed and by what they fill
//! (`cb 0`, `t 3`, `vertex TEXCOORD 1`), so that each resource's contents depend only on the
//! seed and its own name — adding a resource to a shader never changes another's data, and a
//! report's seed reproduces it exactly, across versions (a crate's generator may change its
//! output between releases; this one is part of the report format).

/// A SplitMix64 generator.
pub struct Rng(u64);

impl Rng {
    /// The stream for `what`, under `seed`.
    pub fn new(seed: u64, what: &str) -> Rng {
        // FNV-1a over the name, mixed with the seed.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in what.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        let mut r = Rng(seed ^ h.rotate_left(17));
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo + 1) as u64;
        lo + (self.next_u64() % span) as i64
    }

    /// A float `k / denom` for `k` uniform in `lo * denom ..= hi * denom`: few mantissa
    /// bits, so sums and products of a few of them stay exact and far from denormals.
    pub fn quantized(&mut self, lo: f32, hi: f32, denom: f32) -> f32 {
        let (lo, hi) = ((lo * denom) as i64, (hi * denom) as i64);
        let mut k = self.range(lo, hi);
        // No exact halves: how round-to-nearest conversions break ties (D3D9 `mova`, `mov
        // a0`) is not specified.
        if (2 * k).rem_euclid(denom as i64) == 0 && k.rem_euclid(denom as i64) != 0 {
            k = if k < hi { k + 1 } else { k - 1 };
        }
        k as f32 / denom
    }

    pub fn coin(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn streams_are_fixed_and_independent() {
        let a: Vec<u64> = (0..3).map(|_| Rng::new(1, "cb 0").next_u64()).collect();
        assert_eq!(a[0], a[1], "the same stream twice gives the same numbers");
        let mut x = Rng::new(1, "cb 0");
        let mut y = Rng::new(1, "cb 1");
        let mut z = Rng::new(2, "cb 0");
        let (xv, yv, zv) = (x.next_u64(), y.next_u64(), z.next_u64());
        assert_ne!(xv, yv);
        assert_ne!(xv, zv);
        let mut r = Rng::new(7, "q");
        for _ in 0..1000 {
            let v = r.quantized(-2.0, 2.0, 64.0);
            assert!((-2.0..=2.0).contains(&v));
            assert_eq!((v * 64.0).fract(), 0.0);
            assert_ne!(v.fract().abs(), 0.5, "no ties for round-to-nearest");
        }
    }
}
