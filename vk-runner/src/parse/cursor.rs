//! A tiny cursor over one line of a `.shader_test` file.
//!
//! The format is line oriented and word based (`probe uav 0 (1, 2) rgba (...) 4`), with C-style
//! numbers (`0x` hex, `strtof` floats, `inf`, `nan`). This cursor gives the parsers the handful
//! of primitives they need — keywords with word boundaries, numbers, punctuation — so that each
//! parser reads like the grammar it implements and every failure names what was expected.

/// Reads a line left to right.
#[derive(Debug, Clone, Copy)]
pub struct Cursor<'a> {
    rest: &'a str,
}

impl<'a> Cursor<'a> {
    pub fn new(s: &'a str) -> Self {
        Cursor { rest: s }
    }

    /// What is left, with leading whitespace removed.
    pub fn rest(&self) -> &'a str {
        self.rest.trim_start()
    }

    /// What is left, leading whitespace included.
    pub fn raw(&self) -> &'a str {
        self.rest
    }

    pub fn skip_ws(&mut self) {
        self.rest = self.rest.trim_start();
    }

    pub fn is_empty(&self) -> bool {
        self.rest.trim().is_empty()
    }

    /// Consumes `word` when it is next and is followed by whitespace, `(`, `)`, `]`, `,` or the
    /// end of the line (so `r` does not match the start of `rgba`).
    pub fn eat_word(&mut self, word: &str) -> bool {
        let s = self.rest.trim_start();
        if let Some(after) = s.strip_prefix(word) {
            let boundary = after
                .chars()
                .next()
                .is_none_or(|c| c.is_whitespace() || matches!(c, '(' | ')' | ']' | ','));
            if boundary {
                self.rest = after;
                return true;
            }
        }
        false
    }

    /// Consumes a sequence of words separated by any amount of whitespace.
    pub fn eat_words(&mut self, words: &str) -> bool {
        let save = *self;
        for w in words.split_whitespace() {
            if !self.eat_word(w) {
                *self = save;
                return false;
            }
        }
        true
    }

    /// Consumes `c` (after whitespace) when it is next.
    pub fn eat_char(&mut self, c: char) -> bool {
        let s = self.rest.trim_start();
        if let Some(after) = s.strip_prefix(c) {
            self.rest = after;
            true
        } else {
            false
        }
    }

    pub fn expect_char(&mut self, c: char) -> Result<(), String> {
        if self.eat_char(c) {
            Ok(())
        } else {
            Err(format!("expected '{c}' at '{}'", self.rest()))
        }
    }

    /// Peeks at the next non-space character.
    pub fn peek(&self) -> Option<char> {
        self.rest.trim_start().chars().next()
    }

    /// Takes the next run of characters up to whitespace or one of `stops`.
    pub fn take_token(&mut self, stops: &[char]) -> &'a str {
        let s = self.rest.trim_start();
        let end = s
            .find(|c: char| c.is_whitespace() || stops.contains(&c))
            .unwrap_or(s.len());
        self.rest = &s[end..];
        &s[..end]
    }

    /// An unsigned integer in C `strtoul(.., 0)` syntax: decimal, `0x` hex or `0` octal.
    /// A leading `-` wraps like `strtoul` does.
    pub fn u32(&mut self) -> Result<u32, String> {
        let save = *self;
        let tok = self.take_token(&[',', ')', '(', ']']);
        match parse_c_int(tok) {
            Some(v) if v >= i64::from(i32::MIN) && v <= i64::from(u32::MAX) => Ok(v as u32),
            _ => {
                *self = save;
                Err(format!("expected an integer at '{}'", save.rest()))
            }
        }
    }

    /// A signed 32-bit integer (`strtol(.., 0)` syntax); values up to `u32::MAX` wrap.
    pub fn i32(&mut self) -> Result<i32, String> {
        self.u32().map(|v| v as i32)
    }

    /// A 64-bit integer; negative values wrap.
    pub fn u64(&mut self) -> Result<u64, String> {
        let save = *self;
        let tok = self.take_token(&[',', ')', '(', ']']);
        match parse_c_int128(tok) {
            Some(v) if v >= i128::from(i64::MIN) && v <= i128::from(u64::MAX) => Ok(v as u64),
            _ => {
                *self = save;
                Err(format!("expected a 64-bit integer at '{}'", save.rest()))
            }
        }
    }

    /// A float in `strtof` syntax (`1`, `-2.5e3`, `inf`, `nan`, hex floats such as `0x1p-2`).
    pub fn f32(&mut self) -> Result<f32, String> {
        self.f64().map(|v| v as f32)
    }

    pub fn f64(&mut self) -> Result<f64, String> {
        let save = *self;
        let tok = self.take_token(&[',', ')', '(', ']']);
        match parse_c_float(tok) {
            Some(v) => Ok(v),
            None => {
                *self = save;
                Err(format!("expected a number at '{}'", save.rest()))
            }
        }
    }
}

/// Parses a C integer literal (`strtol` base 0 syntax) with an optional sign.
pub fn parse_c_int(tok: &str) -> Option<i64> {
    let v = parse_c_int128(tok)?;
    i64::try_from(v).ok()
}

fn parse_c_int128(tok: &str) -> Option<i128> {
    let (neg, body) = match tok.as_bytes().first()? {
        b'-' => (true, &tok[1..]),
        b'+' => (false, &tok[1..]),
        _ => (false, tok),
    };
    if body.is_empty() {
        return None;
    }
    let v = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        if hex.is_empty() || hex.len() > 16 {
            return None;
        }
        i128::from(u64::from_str_radix(hex, 16).ok()?)
    } else if body.len() > 1 && body.starts_with('0') {
        i128::from(u64::from_str_radix(&body[1..], 8).ok()?)
    } else {
        if body.len() > 20 {
            return None;
        }
        i128::from(body.parse::<u64>().ok()?)
    };
    Some(if neg { -v } else { v })
}

/// Parses a C float literal as `strtod` would (decimal, exponent, `inf`, `infinity`, `nan`).
/// Values too large for the type become infinities, as with `strtof` (`1e99`).
pub fn parse_c_float(tok: &str) -> Option<f64> {
    let hex = tok
        .trim_start_matches(['-', '+'])
        .get(..2)
        .is_some_and(|p| p.eq_ignore_ascii_case("0x"));
    let t = tok
        .strip_suffix('f')
        .filter(|t| !hex && !t.is_empty() && !t.ends_with(['n', 'N']))
        .unwrap_or(tok);
    let lower = t.to_ascii_lowercase();
    let (neg, body) = match lower.as_bytes().first()? {
        b'-' => (true, &lower[1..]),
        b'+' => (false, &lower[1..]),
        _ => (false, &lower[..]),
    };
    let v = match body {
        "inf" | "infinity" => f64::INFINITY,
        "nan" => f64::NAN,
        // C99 hexadecimal floats, which `strtof` reads: `0x80000000` is 2147483648.0 (a value,
        // not bits), `0x1.8p1` is 3.0.
        _ if body.starts_with("0x") => parse_hex_float(&body[2..])?,
        _ => {
            if body.is_empty()
                || !body
                    .bytes()
                    .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'-' | b'+'))
            {
                return None;
            }
            if body.starts_with('e') {
                return None;
            }
            body.parse::<f64>().ok()?
        }
    };
    Some(if neg { -v } else { v })
}

/// The digits of a hexadecimal float after `0x`: `H[.H][pE]` (lower case).
fn parse_hex_float(s: &str) -> Option<f64> {
    let (mant, exp) = match s.split_once('p') {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut v = 0f64;
    for ch in int.chars().chain(frac.chars()) {
        v = v * 16.0 + f64::from(ch.to_digit(16)?);
    }
    let shift = i64::from(exp) - 4 * frac.len() as i64;
    Some(v * 2f64.powi(shift.clamp(-2000, 2000) as i32))
}

/// True when a data token should be read as a float rather than as integer bits: it has a
/// decimal point or an exponent, or is `inf`/`nan` (the rule of vkd3d's current runner).
pub fn token_is_float(tok: &str) -> bool {
    let l = tok.to_ascii_lowercase();
    let body = l.trim_start_matches(['-', '+']);
    if body.starts_with("0x") {
        return false;
    }
    body.contains('.') || body.contains('e') || body == "inf" || body == "infinity" || body == "nan"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_need_boundaries() {
        let mut c = Cursor::new("rgba (1, 2)");
        assert!(!c.eat_word("r"));
        assert!(!c.eat_word("rg"));
        assert!(c.eat_word("rgba"));
        assert!(c.eat_char('('));
        assert_eq!(c.u32(), Ok(1));
        assert!(c.eat_char(','));
        assert_eq!(c.u32(), Ok(2));
        assert!(c.eat_char(')'));
        assert!(c.is_empty());
    }

    #[test]
    fn c_numbers() {
        assert_eq!(parse_c_int("0x10"), Some(16));
        assert_eq!(parse_c_int("-5"), Some(-5));
        assert_eq!(parse_c_int("010"), Some(8));
        assert_eq!(parse_c_int("0xffffffff"), Some(0xffff_ffff));
        assert_eq!(parse_c_int("1.5"), None);
        assert_eq!(parse_c_float("1e99").map(|v| v as f32), Some(f32::INFINITY));
        assert_eq!(parse_c_float("-inf"), Some(f64::NEG_INFINITY));
        assert!(parse_c_float("nan").unwrap().is_nan());
        assert_eq!(parse_c_float("2.5e-1"), Some(0.25));
        assert_eq!(parse_c_float("1.0f"), Some(1.0));
        assert_eq!(parse_c_float("abc"), None);
        let mut c = Cursor::new("-1 0xffffffff");
        assert_eq!(c.i32(), Ok(-1));
        assert_eq!(c.u32(), Ok(u32::MAX));
    }

    #[test]
    fn float_tokens() {
        assert!(token_is_float("1.0"));
        assert!(token_is_float("-2e3"));
        assert!(token_is_float("nan"));
        assert!(!token_is_float("12"));
        assert!(!token_is_float("0xe0"));
    }
}
