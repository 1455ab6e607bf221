//! A cursor over the token list with the small helpers every grammar rule uses, and the two
//! shapes that recur across rules: `{…}` annotation groups and `(…)` mnemonic groups.

use super::error::{AsmError, Result};
use super::lexer::{Kind, Token};
use super::literal;

/// Reads tokens in order. The last token is always `Eof`, so `peek` never runs out.
pub struct Cursor<'t, 'a> {
    toks: &'t [Token<'a>],
    pos: usize,
}

/// One `item` or `item=value` of an annotation group.
#[derive(Debug, Clone, Copy)]
pub struct Note<'a> {
    pub key: Token<'a>,
    pub value: Option<Token<'a>>,
}

impl<'a> Note<'a> {
    /// The value as a 32-bit number.
    pub fn u32(&self) -> Result<u32> {
        match &self.value {
            Some(v) => literal::parse_u32(v, "a number"),
            None => Err(self.key.error(format!(
                "'{}' needs a value ({}=…)",
                self.key.text, self.key.text
            ))),
        }
    }

    pub fn error(&self, message: impl Into<String>) -> AsmError {
        self.key.error(message)
    }
}

/// One comma-separated item of a `(…)` group: `[-]word[=value]`.
#[derive(Debug, Clone, Copy)]
pub struct GroupItem<'a> {
    pub negative: bool,
    pub word: Token<'a>,
    pub value: Option<Token<'a>>,
}

/// A `(…)` group attached to a mnemonic.
#[derive(Debug, Clone)]
pub struct Group<'a> {
    pub open: Token<'a>,
    pub items: Vec<GroupItem<'a>>,
}

impl<'t, 'a> Cursor<'t, 'a> {
    pub fn new(toks: &'t [Token<'a>]) -> Self {
        debug_assert!(toks.last().is_some_and(|t| t.kind == Kind::Eof));
        Cursor { toks, pos: 0 }
    }

    pub fn peek(&self) -> Token<'a> {
        self.toks[self.pos.min(self.toks.len() - 1)]
    }

    pub fn peek_at(&self, ahead: usize) -> Token<'a> {
        self.toks[(self.pos + ahead).min(self.toks.len() - 1)]
    }

    pub fn next(&mut self) -> Token<'a> {
        let t = self.peek();
        if t.kind != Kind::Eof {
            self.pos += 1;
        }
        t
    }

    /// Consumes the punctuation `c` if it is next.
    pub fn eat(&mut self, c: char) -> Option<Token<'a>> {
        if self.peek().is(c) {
            Some(self.next())
        } else {
            None
        }
    }

    /// Consumes the punctuation `c` if it is next and touches the previous token.
    pub fn eat_attached(&mut self, c: char) -> Option<Token<'a>> {
        let t = self.peek();
        if t.is(c) && !t.space_before {
            Some(self.next())
        } else {
            None
        }
    }

    pub fn expect(&mut self, c: char) -> Result<Token<'a>> {
        self.eat(c)
            .ok_or_else(|| self.peek().expected(&format!("'{c}'")))
    }

    pub fn ident(&mut self, what: &str) -> Result<Token<'a>> {
        let t = self.peek();
        if t.kind == Kind::Ident {
            Ok(self.next())
        } else {
            Err(t.expected(what))
        }
    }

    /// Consumes the identifier `word` if it is next.
    pub fn eat_word(&mut self, word: &str) -> bool {
        let t = self.peek();
        if t.kind == Kind::Ident && t.text == word {
            self.next();
            true
        } else {
            false
        }
    }

    pub fn number(&mut self, what: &str) -> Result<Token<'a>> {
        let t = self.peek();
        if t.kind == Kind::Number {
            Ok(self.next())
        } else {
            Err(t.expected(what))
        }
    }

    pub fn u32(&mut self, what: &str) -> Result<u32> {
        let t = self.number(what)?;
        literal::parse_u32(&t, what)
    }

    pub fn at_line_end(&self) -> bool {
        matches!(self.peek().kind, Kind::Newline | Kind::Eof)
    }

    pub fn expect_line_end(&mut self) -> Result<()> {
        if self.at_line_end() {
            Ok(())
        } else {
            Err(self.peek().expected("end of line"))
        }
    }

    pub fn skip_newlines(&mut self) {
        while self.peek().kind == Kind::Newline {
            self.next();
        }
    }

    /// `{item, key=value, …}` when a `{` is next; otherwise no notes.
    pub fn notes(&mut self) -> Result<Vec<Note<'a>>> {
        let mut notes = Vec::new();
        if self.eat('{').is_none() {
            return Ok(notes);
        }
        if self.eat('}').is_some() {
            return Ok(notes);
        }
        loop {
            let key = self.ident("an annotation")?;
            let value = if self.eat('=').is_some() {
                let t = self.peek();
                if !matches!(t.kind, Kind::Ident | Kind::Number) {
                    return Err(t.expected("an annotation value"));
                }
                Some(self.next())
            } else {
                None
            };
            notes.push(Note { key, value });
            if self.eat(',').is_some() {
                continue;
            }
            self.expect('}')?;
            return Ok(notes);
        }
    }

    /// A `(…)` group whose `(` is next: `[-]word[=value]` items separated by commas.
    pub fn group(&mut self) -> Result<Group<'a>> {
        let open = self.expect('(')?;
        let mut items = Vec::new();
        if self.eat(')').is_some() {
            return Ok(Group { open, items });
        }
        loop {
            let negative = self.eat('-').is_some();
            let word = self.peek();
            if !matches!(word.kind, Kind::Ident | Kind::Number) {
                return Err(word.expected("a word or number"));
            }
            self.next();
            let value = if self.eat('=').is_some() {
                let t = self.peek();
                if !matches!(t.kind, Kind::Ident | Kind::Number) {
                    return Err(t.expected("a value"));
                }
                Some(self.next())
            } else {
                None
            };
            items.push(GroupItem {
                negative,
                word,
                value,
            });
            if self.eat(',').is_some() {
                continue;
            }
            self.expect(')')?;
            return Ok(Group { open, items });
        }
    }
}
