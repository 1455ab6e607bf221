//! Numeric literals: counts and indices, and the bit patterns of immediate values.
//!
//! The spelling of an immediate decides its bits (see `docs/disassembly.md`): a literal with
//! a `.` or an exponent is a float, parsed directly as `f32` (or `f64` inside `d(…)`) so that
//! the shortest round-trip decimals the disassembler prints come back bit-exactly; `0x…` is
//! the raw bit pattern; a decimal integer is its two's-complement bits.

use super::error::Result;
use super::lexer::Token;

fn is_hex(text: &str) -> Option<&str> {
    text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"))
}

fn is_float(text: &str) -> bool {
    is_hex(text).is_none() && text.contains(['.', 'e', 'E'])
}

/// An unsigned integer that must fit `max` (decimal or `0x` hex).
pub fn parse_unsigned(tok: &Token<'_>, max: u64, what: &str) -> Result<u64> {
    let text = tok.text;
    let value = match is_hex(text) {
        Some(digits) => u64::from_str_radix(digits, 16),
        None => text.parse::<u64>(),
    };
    match value {
        Ok(v) if v <= max => Ok(v),
        Ok(_) => Err(tok.error(format!("{what} {text} is larger than {max}"))),
        Err(_) => Err(tok.expected(what)),
    }
}

/// An unsigned 32-bit integer (counts, registers, strides).
pub fn parse_u32(tok: &Token<'_>, what: &str) -> Result<u32> {
    parse_unsigned(tok, u32::MAX as u64, what).map(|v| v as u32)
}

/// The bits of a 32-bit immediate (`l(…)`, immediate constant buffer, custom data);
/// `negative` when a `-` came before the literal.
pub fn imm32_bits(tok: &Token<'_>, negative: bool) -> Result<u32> {
    let text = tok.text;
    if is_float(text) {
        return match text.parse::<f32>() {
            Ok(v) if v.is_finite() => Ok(if negative { -v } else { v }.to_bits()),
            Ok(_) => Err(tok.error(format!(
                "{text} does not fit a 32-bit float (write infinities and NaNs as 0x bits)"
            ))),
            Err(_) => Err(tok.expected("a number")),
        };
    }
    if let Some(digits) = is_hex(text) {
        if negative {
            return Err(tok.error("a hex bit pattern cannot be negated; write the bits"));
        }
        return u32::from_str_radix(digits, 16)
            .map_err(|_| tok.error(format!("{text} is not a 32-bit hex value")));
    }
    let v: u64 = text
        .parse()
        .map_err(|_| tok.expected("a number (integer, float or 0x hex bits)"))?;
    if negative {
        if v > 1 << 31 {
            return Err(tok.error(format!("-{text} does not fit 32 bits")));
        }
        Ok((v as i64).wrapping_neg() as u32)
    } else {
        u32::try_from(v).map_err(|_| tok.error(format!("{text} does not fit 32 bits")))
    }
}

/// The bits of a 64-bit immediate (`d(…)`): floats as `f64`, hex as bits, integers converted
/// to the nearest double.
pub fn imm64_bits(tok: &Token<'_>, negative: bool) -> Result<u64> {
    let text = tok.text;
    if let Some(digits) = is_hex(text) {
        if negative {
            return Err(tok.error("a hex bit pattern cannot be negated; write the bits"));
        }
        return u64::from_str_radix(digits, 16)
            .map_err(|_| tok.error(format!("{text} is not a 64-bit hex value")));
    }
    let v: f64 = text.parse().map_err(|_| tok.expected("a number"))?;
    if !v.is_finite() {
        return Err(tok.error(format!(
            "{text} does not fit a 64-bit float (write infinities and NaNs as 0x bits)"
        )));
    }
    Ok(if negative { -v } else { v }.to_bits())
}

#[cfg(test)]
mod tests {
    use super::super::lexer::tokenize;
    use super::*;

    fn bits32(text: &str, neg: bool) -> Result<u32> {
        imm32_bits(&tokenize(text).unwrap()[0], neg)
    }

    #[test]
    fn immediates_keep_their_bits() {
        assert_eq!(bits32("1.0", false).unwrap(), 0x3f80_0000);
        assert_eq!(bits32("0.5", true).unwrap(), 0xbf00_0000);
        assert_eq!(bits32("1e-7", false).unwrap(), 1e-7f32.to_bits());
        // The shortest round-trip decimal of an f32 parses back to the same bits (parsing
        // via f64 would not for some values).
        for bits in [
            0x0000_0001u32,
            0x3dcc_cccd,
            0x7f7f_ffff,
            0x0080_0000,
            0x3eaa_aaab,
        ] {
            let text = format!("{:?}", f32::from_bits(bits));
            assert_eq!(bits32(&text, false).unwrap(), bits, "{text}");
        }
        assert_eq!(bits32("0x7fc00000", false).unwrap(), 0x7fc0_0000);
        assert_eq!(bits32("1", true).unwrap(), 0xffff_ffff);
        assert_eq!(bits32("2147483648", true).unwrap(), 0x8000_0000);
        assert_eq!(bits32("4294967295", false).unwrap(), u32::MAX);
        assert!(bits32("4294967296", false).is_err());
        assert!(bits32("2147483649", true).is_err());
        assert!(bits32("0x1", true).is_err());
        assert!(bits32("0x100000000", false).is_err());
        assert!(bits32("12abc", false).is_err());
        let t = tokenize("1.0").unwrap();
        assert_eq!(imm64_bits(&t[0], true).unwrap(), (-1.0f64).to_bits());
        let t = tokenize("3").unwrap();
        assert_eq!(imm64_bits(&t[0], false).unwrap(), 3.0f64.to_bits());
    }
}
