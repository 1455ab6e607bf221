//! Splits assembly text into tokens that remember their line, column and whether whitespace
//! came before them.
//!
//! The syntax is line-oriented (one instruction per line) except inside the braces of an
//! immediate constant buffer or custom-data block, so newlines are tokens of their own and
//! the parser decides where they matter. Whether a token touches the previous one matters
//! too: `sample_indexable(texture2d)` is one mnemonic, while `dcl_resource_texture2d
//! (float,float,float,float)` is a mnemonic followed by its return types. `//` starts a
//! comment that runs to the end of the line.

use super::error::{AsmError, Result};

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `[A-Za-z_][A-Za-z0-9_]*`.
    Ident,
    /// Starts with a digit: `5`, `1.5`, `0x3f800000`, `1e-7`, `3u64`.
    Number,
    /// `"…"` (signature semantic names that are not identifiers); the text excludes quotes.
    String,
    /// Any other single character: `, ( ) [ ] { } . | - + : = *`.
    Punct(char),
    Newline,
    Eof,
}

/// One token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    pub kind: Kind,
    pub text: &'a str,
    pub line: u32,
    pub column: u32,
    /// Whitespace (or a comment, or the start of a line) separates it from the token before.
    pub space_before: bool,
}

impl Token<'_> {
    pub fn is(&self, c: char) -> bool {
        self.kind == Kind::Punct(c)
    }

    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self.kind {
            Kind::Newline => "end of line".into(),
            Kind::Eof => "end of input".into(),
            Kind::String => format!("\"{}\"", self.text),
            _ => format!("'{}'", self.text),
        }
    }

    pub fn error(&self, message: impl Into<String>) -> AsmError {
        AsmError::new(self.line, self.column, message)
    }

    /// "expected X, found Y".
    pub fn expected(&self, what: &str) -> AsmError {
        self.error(format!("expected {what}, found {}", self.describe()))
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Tokenizes the whole text. The result always ends with an `Eof` token.
pub fn tokenize(text: &str) -> Result<Vec<Token<'_>>> {
    let mut tokens = Vec::with_capacity(text.len() / 3 + 2);
    let mut line = 1u32;
    let mut column = 1u32;
    let mut space = true;
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        let (tok_line, tok_column) = (line, column);
        let mut push = |kind: Kind, end: usize, space: &mut bool| {
            tokens.push(Token {
                kind,
                text: &text[start..end],
                line: tok_line,
                column: tok_column,
                space_before: *space,
            });
            *space = false;
        };
        if c == '\n' {
            chars.next();
            push(Kind::Newline, start + 1, &mut space);
            space = true;
            line += 1;
            column = 1;
        } else if c.is_whitespace() {
            chars.next();
            column += 1;
            space = true;
        } else if c == '/' && text[start..].starts_with("//") {
            while let Some(&(_, c)) = chars.peek() {
                if c == '\n' {
                    break;
                }
                chars.next();
                column += 1;
            }
            space = true;
        } else if is_ident_start(c) {
            let mut end = start;
            while let Some(&(i, c)) = chars.peek() {
                if !is_ident_char(c) {
                    break;
                }
                end = i + 1;
                chars.next();
                column += 1;
            }
            push(Kind::Ident, end, &mut space);
        } else if c.is_ascii_digit() {
            let hex = text[start..].starts_with("0x") || text[start..].starts_with("0X");
            let mut end = start;
            let mut prev = c;
            while let Some(&(i, c)) = chars.peek() {
                let exponent_sign =
                    !hex && (c == '+' || c == '-') && (prev == 'e' || prev == 'E') && i > start;
                if !(is_ident_char(c) || c == '.' || exponent_sign) {
                    break;
                }
                end = i + 1;
                prev = c;
                chars.next();
                column += 1;
            }
            push(Kind::Number, end, &mut space);
        } else if c == '"' {
            chars.next();
            column += 1;
            let mut end = None;
            while let Some(&(i, c)) = chars.peek() {
                if c == '\n' {
                    break;
                }
                chars.next();
                column += 1;
                if c == '"' {
                    end = Some(i);
                    break;
                }
            }
            let Some(end) = end else {
                return Err(AsmError::new(
                    tok_line,
                    tok_column,
                    "unterminated string (a closing '\"' on the same line is expected)",
                ));
            };
            tokens.push(Token {
                kind: Kind::String,
                text: &text[start + 1..end],
                line: tok_line,
                column: tok_column,
                space_before: space,
            });
            space = false;
        } else {
            chars.next();
            column += 1;
            push(Kind::Punct(c), start + c.len_utf8(), &mut space);
        }
    }
    tokens.push(Token {
        kind: Kind::Eof,
        text: "",
        line,
        column,
        space_before: true,
    });
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Kind, &str, bool)> {
        tokenize(text)
            .unwrap()
            .iter()
            .map(|t| (t.kind, t.text, t.space_before))
            .collect()
    }

    #[test]
    fn splits_mnemonics_operands_and_numbers() {
        use Kind::*;
        assert_eq!(
            kinds("sample_indexable(texture2d) r0.xy, l(1e-7, -2.5, 0x10, 3u64) // c\n"),
            vec![
                (Ident, "sample_indexable", true),
                (Punct('('), "(", false),
                (Ident, "texture2d", false),
                (Punct(')'), ")", false),
                (Ident, "r0", true),
                (Punct('.'), ".", false),
                (Ident, "xy", false),
                (Punct(','), ",", false),
                (Ident, "l", true),
                (Punct('('), "(", false),
                (Number, "1e-7", false),
                (Punct(','), ",", false),
                (Punct('-'), "-", true),
                (Number, "2.5", false),
                (Punct(','), ",", false),
                (Number, "0x10", true),
                (Punct(','), ",", false),
                (Number, "3u64", true),
                (Punct(')'), ")", false),
                (Newline, "\n", true),
                (Eof, "", true),
            ]
        );
    }

    #[test]
    fn positions_count_characters() {
        let t = tokenize("ab\n  é x").unwrap();
        assert_eq!((t[0].line, t[0].column), (1, 1));
        assert_eq!(
            (t[2].kind, t[2].line, t[2].column),
            (Kind::Punct('é'), 2, 3)
        );
        assert_eq!((t[3].text, t[3].column), ("x", 5));
        // Hex numbers do not take a sign after an `e` digit.
        let t = tokenize("0x1e-5").unwrap();
        assert_eq!(t[0].text, "0x1e");
        assert!(tokenize("\"open").is_err());
        assert_eq!(tokenize("\"a b\"").unwrap()[0].text, "a b");
    }
}
