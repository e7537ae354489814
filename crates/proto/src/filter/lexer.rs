//! Lexer for DDS-SQL filter expressions: DDS 1.4 Annex B tokens plus the usual vendor
//! extensions (docs/interop-facts.md §4.1/§4.2): `!=`, `TRUE`/`FALSE`, `MATCH`, `[`/`]` for
//! indices, hex integers, and a backtick as an alternative opening quote.
//!
//! Must not: panic, allocate more than one token per input byte, or accept input longer than
//! [`MAX_EXPRESSION_LEN`]. Quoted literals have no escape mechanism (DDS 1.4 Annex B: a STRING
//! holds no newline and no right quote). Keywords are case-insensitive (RTI docs; Fast DDS
//! accepts only all-upper or all-lower, a subset).

use super::error::{FilterError, FilterErrorKind};
use super::vocabulary::{Keyword, RelOp};
use super::{MAX_EXPRESSION_LEN, MAX_PARAMETERS};

/// One token and the byte offset where it starts.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Token<'a> {
    /// What was read.
    pub kind: TokenKind<'a>,
    /// Byte offset of the token's first character in the expression text.
    pub position: usize,
}

/// The kinds of [`Token`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TokenKind<'a> {
    /// An identifier (a field name component): `[A-Za-z_][A-Za-z0-9_]*`, not a keyword.
    Ident(&'a str),
    /// A reserved word, matched case-insensitively.
    Keyword(Keyword),
    /// A symbolic comparison operator; `!=` and `<>` both give [`RelOp::Ne`].
    Op(RelOp),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `.`
    Dot,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `,` (reserved for ORDER BY lists and function calls; no rule uses it yet)
    Comma,
    /// An integer: optional sign, decimal digits or `0x` hex digits.
    Int(i128),
    /// A float: optional sign, digits, then a `.` fraction and/or an exponent.
    Float(f64),
    /// A quoted literal holding exactly one character (DDS 1.4 CHARVALUE).
    Char(char),
    /// A quoted literal holding any other number of characters (DDS 1.4 STRING), unquoted.
    Str(&'a str),
    /// `%n`, an expression parameter, `n` < [`MAX_PARAMETERS`].
    Param(u8),
    /// End of input; always the last token.
    End,
}

/// Splits `text` into tokens, ending with [`TokenKind::End`].
pub fn tokenize(text: &str) -> Result<Vec<Token<'_>>, FilterError> {
    if text.len() > MAX_EXPRESSION_LEN {
        return Err(FilterError::new(
            MAX_EXPRESSION_LEN,
            FilterErrorKind::TooLong,
        ));
    }
    let mut lexer = Lexer { text, pos: 0 };
    let mut tokens = Vec::new();
    loop {
        let token = lexer.next_token()?;
        tokens.push(token);
        if token.kind == TokenKind::End {
            return Ok(tokens);
        }
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn rest(&self) -> &'a str {
        self.text.get(self.pos..).unwrap_or("")
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek_second(&self) -> Option<char> {
        self.rest().chars().nth(1)
    }

    fn bump(&mut self, c: char) {
        self.pos = self.pos.saturating_add(c.len_utf8());
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.bump(c);
            true
        } else {
            false
        }
    }

    /// Advances past every char satisfying `f`; returns how many bytes were consumed.
    fn eat_while(&mut self, f: impl Fn(char) -> bool) -> usize {
        let start = self.pos;
        while let Some(c) = self.peek().filter(|&c| f(c)) {
            self.bump(c);
        }
        self.pos.saturating_sub(start)
    }

    fn slice(&self, start: usize) -> &'a str {
        self.text.get(start..self.pos).unwrap_or("")
    }

    fn next_token(&mut self) -> Result<Token<'a>, FilterError> {
        self.eat_while(|c| c.is_ascii_whitespace());
        let start = self.pos;
        let err = |kind| Err(FilterError::new(start, kind));
        let Some(c) = self.peek() else {
            return Ok(Token {
                kind: TokenKind::End,
                position: start,
            });
        };
        let kind = match c {
            '(' | ')' | '.' | '[' | ']' | ',' | '=' => {
                self.bump(c);
                match c {
                    '(' => TokenKind::LParen,
                    ')' => TokenKind::RParen,
                    '.' => TokenKind::Dot,
                    '[' => TokenKind::LBracket,
                    ']' => TokenKind::RBracket,
                    ',' => TokenKind::Comma,
                    _ => TokenKind::Op(RelOp::Eq),
                }
            }
            '<' => {
                self.bump(c);
                if self.eat('=') {
                    TokenKind::Op(RelOp::Le)
                } else if self.eat('>') {
                    TokenKind::Op(RelOp::Ne)
                } else {
                    TokenKind::Op(RelOp::Lt)
                }
            }
            '>' => {
                self.bump(c);
                TokenKind::Op(if self.eat('=') { RelOp::Ge } else { RelOp::Gt })
            }
            '!' if self.peek_second() == Some('=') => {
                self.pos = self.pos.saturating_add(2);
                TokenKind::Op(RelOp::Ne)
            }
            '\'' | '`' => self.quoted(start)?,
            '%' => self.parameter(start)?,
            '+' | '-' if self.peek_second().is_some_and(|d| d.is_ascii_digit()) => {
                self.number(start)?
            }
            '0'..='9' => self.number(start)?,
            c if c.is_ascii_alphabetic() || c == '_' => {
                self.eat_while(is_ident_char);
                let word = self.slice(start);
                match Keyword::from_word(word) {
                    Some(k) => TokenKind::Keyword(k),
                    None => TokenKind::Ident(word),
                }
            }
            other => return err(FilterErrorKind::UnexpectedChar(other)),
        };
        Ok(Token {
            kind,
            position: start,
        })
    }

    /// DDS 1.4 Annex B STRING/CHARVALUE: opens with `'` or a backtick, closes with `'`, no
    /// newline inside, no escapes.
    fn quoted(&mut self, start: usize) -> Result<TokenKind<'a>, FilterError> {
        if let Some(q) = self.peek() {
            self.bump(q);
        }
        let body = self.pos;
        self.eat_while(|c| c != '\'' && c != '\n' && c != '\r');
        let content = self.slice(body);
        if !self.eat('\'') {
            return Err(FilterError::new(start, FilterErrorKind::UnterminatedString));
        }
        let mut chars = content.chars();
        Ok(match (chars.next(), chars.next()) {
            (Some(c), None) => TokenKind::Char(c),
            _ => TokenKind::Str(content),
        })
    }

    /// `%n` with 0 <= n < 100 (DDS 1.4 Annex B PARAMETER).
    fn parameter(&mut self, start: usize) -> Result<TokenKind<'a>, FilterError> {
        self.bump('%');
        let digits_start = self.pos;
        let len = self.eat_while(|c| c.is_ascii_digit());
        if len == 0 || self.peek().is_some_and(is_ident_char) {
            return Err(FilterError::new(start, FilterErrorKind::MalformedParameter));
        }
        let digits = self.slice(digits_start);
        match digits.parse::<u8>() {
            Ok(n) if len <= 2 && usize::from(n) < MAX_PARAMETERS => Ok(TokenKind::Param(n)),
            _ => Err(FilterError::new(
                start,
                FilterErrorKind::ParameterOutOfRange,
            )),
        }
    }

    /// INTEGERVALUE (decimal or `0x` hex, optional sign) or FLOATVALUE (digits with a `.`
    /// fraction and/or an `e` exponent, optional sign).
    fn number(&mut self, start: usize) -> Result<TokenKind<'a>, FilterError> {
        let err = |kind| Err(FilterError::new(start, kind));
        let negative = self.eat('-');
        if !negative {
            self.eat('+');
        }
        let rest = self.rest();
        let kind = if rest.starts_with("0x") || rest.starts_with("0X") {
            self.pos = self.pos.saturating_add(2);
            let digits_start = self.pos;
            if self.eat_while(|c| c.is_ascii_hexdigit()) == 0 {
                return err(FilterErrorKind::MalformedNumber);
            }
            let magnitude = i128::from_str_radix(self.slice(digits_start), 16);
            let value = magnitude
                .ok()
                .and_then(|m| if negative { m.checked_neg() } else { Some(m) });
            match value {
                Some(v) => TokenKind::Int(v),
                None => return err(FilterErrorKind::IntegerOutOfRange),
            }
        } else {
            self.eat_while(|c| c.is_ascii_digit());
            let mut is_float = false;
            if self.eat('.') {
                is_float = true;
                self.eat_while(|c| c.is_ascii_digit());
            }
            if matches!(self.peek(), Some('e' | 'E')) {
                let mark = self.pos;
                self.bump('e');
                if !self.eat('-') {
                    self.eat('+');
                }
                if self.eat_while(|c| c.is_ascii_digit()) > 0 {
                    is_float = true;
                } else {
                    self.pos = mark;
                }
            }
            let text = self.slice(start);
            if is_float {
                match text.parse::<f64>() {
                    Ok(v) if v.is_finite() => TokenKind::Float(v),
                    Ok(_) => return err(FilterErrorKind::FloatOutOfRange),
                    Err(_) => return err(FilterErrorKind::MalformedNumber),
                }
            } else {
                match text.parse::<i128>() {
                    Ok(v) => TokenKind::Int(v),
                    Err(_) => return err(FilterErrorKind::IntegerOutOfRange),
                }
            }
        };
        if self.peek().is_some_and(|c| is_ident_char(c) || c == '.') {
            return err(FilterErrorKind::MalformedNumber);
        }
        Ok(kind)
    }
}
