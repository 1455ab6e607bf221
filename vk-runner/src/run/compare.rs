//! Comparing read-back texels with a probe's expected values.
//!
//! Floats compare within a number of units in the last place, as vkd3d's runner does (the
//! distance between the two values' bit patterns mapped to a monotonic integer line); a
//! NaN matches any NaN. Integers compare exactly.

use crate::parse::format::{DataKind, Format};
use crate::parse::{Expected, Probe, Region};
use crate::vk::bind::RunError;

/// Distance in ULPs between two f32s (0 for equal values, also +0/-0).
pub fn ulp_diff_f32(a: f32, b: f32) -> u64 {
    fn key(v: f32) -> i64 {
        let i = v.to_bits() as i32;
        if i < 0 {
            i64::from(i32::MIN) - i64::from(i)
        } else {
            i64::from(i)
        }
    }
    (key(a) - key(b)).unsigned_abs()
}

pub fn ulp_diff_f64(a: f64, b: f64) -> u128 {
    fn key(v: f64) -> i128 {
        let i = v.to_bits() as i64;
        if i < 0 {
            i128::from(i64::MIN) - i128::from(i)
        } else {
            i128::from(i)
        }
    }
    (key(a) - key(b)).unsigned_abs()
}

pub fn f32_matches(got: f32, want: f32, ulps: u32) -> bool {
    if got.is_nan() || want.is_nan() {
        return got.is_nan() && want.is_nan();
    }
    ulp_diff_f32(got, want) <= u64::from(ulps)
}

/// Reads channel `i` of a texel as a float (for float/unorm/snorm formats).
pub fn channel_f32(fmt: &Format, texel: &[u8], i: usize) -> Option<f32> {
    let per = (fmt.texel_size / fmt.channels.max(1)) as usize;
    let b = texel.get(i * per..(i + 1) * per)?;
    Some(match (fmt.kind, per) {
        (DataKind::Float | DataKind::Raw | DataKind::Uint | DataKind::Sint, 4) => {
            f32::from_bits(u32::from_le_bytes(b.try_into().ok()?))
        }
        (DataKind::Float, 2) => half_to_f32(u16::from_le_bytes(b.try_into().ok()?)),
        (DataKind::Unorm, 1) => f32::from(b[0]) / 255.0,
        (DataKind::Unorm, 2) => f32::from(u16::from_le_bytes(b.try_into().ok()?)) / 65535.0,
        (DataKind::Snorm, 1) => (f32::from(b[0] as i8) / 127.0).max(-1.0),
        _ => return None,
    })
}

/// Reads channel `i` as raw 32-bit integer bits.
pub fn channel_u32(fmt: &Format, texel: &[u8], i: usize) -> Option<u32> {
    let per = (fmt.texel_size / fmt.channels.max(1)) as usize;
    let b = texel.get(i * per..(i + 1) * per)?;
    Some(match per {
        4 => u32::from_le_bytes(b.try_into().ok()?),
        2 => {
            let v = u16::from_le_bytes(b.try_into().ok()?);
            if fmt.kind == DataKind::Sint {
                v as i16 as i32 as u32
            } else {
                u32::from(v)
            }
        }
        1 => {
            if fmt.kind == DataKind::Sint {
                b[0] as i8 as i32 as u32
            } else {
                u32::from(b[0])
            }
        }
        _ => return None,
    })
}

pub fn half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = (h >> 10) & 0x1f;
    let mant = u32::from(h & 0x3ff);
    let bits = match exp {
        0 if mant == 0 => sign,
        0 => {
            // Subnormal: normalise.
            let mut e = 127 - 15 + 1;
            let mut m = mant;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | ((e as u32) << 23) | ((m & 0x3ff) << 13)
        }
        0x1f => sign | 0x7f80_0000 | (mant << 13),
        _ => sign | ((u32::from(exp) + 127 - 15) << 23) | (mant << 13),
    };
    f32::from_bits(bits)
}

/// Compares one texel (or buffer element) with the expected values; returns the got values
/// as text on mismatch.
pub fn compare_texel(
    fmt: &Format,
    texel: &[u8],
    exp: &Expected,
    ulps: u32,
    raw_words: bool,
) -> Result<(), String> {
    let n = exp.len();
    let word = |i: usize| -> Option<u32> {
        if raw_words {
            texel
                .get(i * 4..i * 4 + 4)
                .map(|b| u32::from_le_bytes(b.try_into().expect("4")))
        } else {
            channel_u32(fmt, texel, i)
        }
    };
    let float = |i: usize| -> Option<f32> {
        if raw_words {
            word(i).map(f32::from_bits)
        } else {
            channel_f32(fmt, texel, i)
        }
    };
    let dword = |i: usize| -> Option<u64> {
        let lo = word(2 * i)?;
        let hi = word(2 * i + 1)?;
        Some(u64::from(lo) | (u64::from(hi) << 32))
    };
    let unreadable = || {
        format!(
            "cannot read {n} value(s) of this kind from format {}",
            fmt.name
        )
    };
    match exp {
        Expected::F32(want) => {
            let got: Option<Vec<f32>> = (0..n).map(float).collect();
            let got = got.ok_or_else(unreadable)?;
            if got.iter().zip(want).all(|(g, w)| f32_matches(*g, *w, ulps)) {
                Ok(())
            } else {
                Err(format!(
                    "got {}, expected {}",
                    fmt_list(&got),
                    fmt_list(want)
                ))
            }
        }
        Expected::U32(want) => {
            let got: Option<Vec<u32>> = (0..n).map(word).collect();
            let got = got.ok_or_else(unreadable)?;
            if got == *want {
                Ok(())
            } else {
                Err(format!("got {}, expected {}", fmt_hex(&got), fmt_hex(want)))
            }
        }
        Expected::I32(want) => {
            let got: Option<Vec<i32>> = (0..n).map(|i| word(i).map(|v| v as i32)).collect();
            let got = got.ok_or_else(unreadable)?;
            if got == *want {
                Ok(())
            } else {
                Err(format!(
                    "got {}, expected {}",
                    fmt_list(&got),
                    fmt_list(want)
                ))
            }
        }
        Expected::F64(want) => {
            let got: Option<Vec<f64>> = (0..n).map(|i| dword(i).map(f64::from_bits)).collect();
            let got = got.ok_or_else(unreadable)?;
            let ok = got.iter().zip(want).all(|(g, w)| {
                (g.is_nan() && w.is_nan()) || ulp_diff_f64(*g, *w) <= u128::from(ulps)
            });
            if ok {
                Ok(())
            } else {
                Err(format!(
                    "got {}, expected {}",
                    fmt_list(&got),
                    fmt_list(want)
                ))
            }
        }
        Expected::U64(want) => {
            let got: Option<Vec<u64>> = (0..n).map(dword).collect();
            let got = got.ok_or_else(unreadable)?;
            if got == *want {
                Ok(())
            } else {
                Err(format!(
                    "got {}, expected {}",
                    fmt_list(&got),
                    fmt_list(want)
                ))
            }
        }
        Expected::I64(want) => {
            let got: Option<Vec<i64>> = (0..n).map(|i| dword(i).map(|v| v as i64)).collect();
            let got = got.ok_or_else(unreadable)?;
            if got == *want {
                Ok(())
            } else {
                Err(format!(
                    "got {}, expected {}",
                    fmt_list(&got),
                    fmt_list(want)
                ))
            }
        }
    }
}

/// Checks a probe of a texture against tightly packed texels of `fmt`: `w` x `h` texels
/// from texel `z_offset` on (a 3D texture's slice, or 0).
pub fn probe_texels(
    fmt: &Format,
    data: &[u8],
    w: u32,
    h: u32,
    z_offset: u64,
    p: &Probe,
) -> Result<(), RunError> {
    let (l, t, rr, b) = match p.region {
        Region::Point { x, y, .. } => (x, y, x + 1, y + 1),
        Region::Rect {
            left,
            top,
            right,
            bottom,
        } => (left, top, right, bottom),
        Region::All => (0, 0, w, h),
    };
    if rr > w || b > h || l >= rr || t >= b {
        return Err(RunError::Fail(format!(
            "probe region ({l}, {t})-({rr}, {b}) outside the {w}x{h} resource"
        )));
    }
    let ts = u64::from(fmt.texel_size);
    let mut bad = 0u64;
    let mut first = None;
    for y in t..b {
        for x in l..rr {
            let off = ((z_offset + u64::from(y) * u64::from(w) + u64::from(x)) * ts) as usize;
            let Some(texel) = data.get(off..off + ts as usize) else {
                return Err(RunError::Fail(format!(
                    "texel ({x}, {y}) is outside the data read back"
                )));
            };
            if let Err(e) = compare_texel(fmt, texel, &p.expected, p.ulps, false) {
                if e.starts_with("cannot read") {
                    return Err(RunError::Skip(e));
                }
                bad += 1;
                first.get_or_insert((x, y, e));
            }
        }
    }
    match first {
        None => Ok(()),
        Some((x, y, e)) => {
            let total = u64::from(rr - l) * u64::from(b - t);
            let extra = if total > 1 {
                format!(" ({bad} of {total} texels differ)")
            } else {
                String::new()
            };
            let ulps = if p.ulps > 0 {
                format!(" within {} ulps", p.ulps)
            } else {
                String::new()
            };
            Err(RunError::Fail(format!("at ({x}, {y}): {e}{ulps}{extra}")))
        }
    }
}

/// Checks a probe of a buffer against its bytes (`fmt`: the buffer's format).
pub fn probe_buffer(fmt: &Format, data: &[u8], p: &Probe) -> Result<(), RunError> {
    let size = data.len() as u64;
    let stride = p.expected.byte_size() as u64;
    let (x0, x1) = match p.region {
        Region::Point { x, y: 0, layer: 0 } => (x, x + 1),
        Region::Rect {
            left,
            top: 0,
            right,
            bottom: 1,
        } => (left, right),
        Region::All => (0, (size / stride.max(1)) as u32),
        _ => return Err(RunError::Fail("a buffer probe takes (x) or (x, 0)".into())),
    };
    for x in x0..x1 {
        let off = u64::from(x) * stride;
        let Some(texel) = data.get(off as usize..(off + stride) as usize) else {
            return Err(RunError::Fail(format!(
                "probe element {x} is outside the {size}-byte buffer"
            )));
        };
        if let Err(e) = compare_texel(fmt, texel, &p.expected, p.ulps, true) {
            let ulps = if p.ulps > 0 {
                format!(" within {} ulps", p.ulps)
            } else {
                String::new()
            };
            return Err(RunError::Fail(format!("at ({x}): {e}{ulps}")));
        }
    }
    Ok(())
}

fn fmt_list<T: std::fmt::Debug>(v: &[T]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
    format!("({})", parts.join(", "))
}

fn fmt_hex(v: &[u32]) -> String {
    let parts: Vec<String> = v
        .iter()
        .map(|x| {
            if *x > 9 {
                format!("{x:#x}")
            } else {
                x.to_string()
            }
        })
        .collect();
    format!("({})", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulps() {
        assert_eq!(ulp_diff_f32(1.0, 1.0), 0);
        assert_eq!(ulp_diff_f32(0.0, -0.0), 0);
        assert_eq!(ulp_diff_f32(1.0, f32::from_bits(1.0f32.to_bits() + 1)), 1);
        assert_eq!(ulp_diff_f32(f32::from_bits(1), -f32::from_bits(1)), 2);
        assert!(f32_matches(f32::NAN, f32::NAN, 0));
        assert!(!f32_matches(f32::NAN, 1.0, 100));
        assert!(f32_matches(f32::INFINITY, f32::INFINITY, 0));
        assert!(!f32_matches(0.1, 0.2, 1000));
    }

    #[test]
    fn texels() {
        let f = Format::RGBA32F;
        let texel: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert!(
            compare_texel(
                &f,
                &texel,
                &Expected::F32(vec![1.0, 2.0, 3.0, 4.0]),
                0,
                false
            )
            .is_ok()
        );
        let e = compare_texel(
            &f,
            &texel,
            &Expected::F32(vec![1.0, 2.0, 3.0, 5.0]),
            0,
            false,
        )
        .unwrap_err();
        assert!(e.contains("expected (1.0, 2.0, 3.0, 5.0)"), "{e}");
        assert!(compare_texel(&f, &texel, &Expected::U32(vec![1.0f32.to_bits()]), 0, true).is_ok());
        let u = Format::by_name("r8g8b8a8-unorm").unwrap();
        assert!(
            compare_texel(
                &u,
                &[255, 0, 128, 255],
                &Expected::F32(vec![1.0, 0.0]),
                0,
                false
            )
            .is_ok()
        );
        assert_eq!(half_to_f32(0x3c00), 1.0);
        assert_eq!(half_to_f32(0xc000), -2.0);
        assert!(half_to_f32(0x7e00).is_nan());
        assert_eq!(half_to_f32(0x0001), 5.960_464_5e-8);
        let d: Vec<u8> = 2.5f64.to_le_bytes().to_vec();
        let rg = Format::by_name("r32g32-uint").unwrap();
        assert!(compare_texel(&rg, &d, &Expected::F64(vec![2.5]), 0, false).is_ok());
    }
}
