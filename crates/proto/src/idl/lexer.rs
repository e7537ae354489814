//! IDL lexer (OMG IDL 4.2 §7.2: tokens, comments, identifiers, literals). Pulls one token at
//! a time so the preprocessor can skip inactive `#ifdef` regions without lexing them. A `#`
//! first on a line yields the whole line as a [`Tok::Directive`].
//!
//! Must not: panic or allocate beyond the input's size; every error carries the position of
//! the offending character.

use std::sync::Arc;

use super::{IdlError, Loc};

/// Punctuation and operators.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Punct {
    /// `;`
    Semi,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `,`
    Comma,
    /// `:`
    Colon,
    /// `::`
    ColonColon,
    /// `=`
    Eq,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `~`
    Tilde,
    /// `&`
    Amp,
    /// `|`
    Pipe,
    /// `^`
    Caret,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `@`
    At,
}

impl Punct {
    /// The token as written.
    pub fn text(self) -> &'static str {
        match self {
            Punct::Semi => ";",
            Punct::LBrace => "{",
            Punct::RBrace => "}",
            Punct::LParen => "(",
            Punct::RParen => ")",
            Punct::Lt => "<",
            Punct::Gt => ">",
            Punct::LBracket => "[",
            Punct::RBracket => "]",
            Punct::Comma => ",",
            Punct::Colon => ":",
            Punct::ColonColon => "::",
            Punct::Eq => "=",
            Punct::Plus => "+",
            Punct::Minus => "-",
            Punct::Star => "*",
            Punct::Slash => "/",
            Punct::Percent => "%",
            Punct::Tilde => "~",
            Punct::Amp => "&",
            Punct::Pipe => "|",
            Punct::Caret => "^",
            Punct::Shl => "<<",
            Punct::Shr => ">>",
            Punct::At => "@",
        }
    }
}

/// A token's kind and value.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An identifier or keyword (escaped identifiers keep their `_` here).
    Ident(String),
    /// An integer literal.
    Int(u128),
    /// A floating-point literal.
    Float(f64),
    /// A string literal (`L"..."` included).
    Str(String),
    /// A character literal (`L'x'` included).
    Char(char),
    /// Punctuation.
    Punct(Punct),
    /// A preprocessor line: the text after `#`, continuations joined.
    Directive(String),
    /// End of input.
    Eof,
}

impl Tok {
    /// How the token is named in "found X" messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Int(v) => format!("integer {v}"),
            Tok::Float(v) => format!("number {v}"),
            Tok::Str(_) => "a string literal".to_owned(),
            Tok::Char(_) => "a character literal".to_owned(),
            Tok::Punct(p) => format!("'{}'", p.text()),
            Tok::Directive(_) => "a preprocessor directive".to_owned(),
            Tok::Eof => "end of file".to_owned(),
        }
    }
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Its first character.
    pub loc: Loc,
}

/// A pull lexer over one source text.
pub struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    file: Arc<str>,
    line: u32,
    col: u32,
    line_start: bool,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`, which is `file`.
    pub fn new(src: &'a str, file: Arc<str>) -> Self {
        Self::starting_at(src, file, 1, 1)
    }

    /// A lexer for a fragment of `file` that starts at `line:col` (directive bodies).
    pub fn starting_at(src: &'a str, file: Arc<str>, line: u32, col: u32) -> Self {
        Lexer {
            src,
            pos: 0,
            file,
            line,
            col,
            line_start: col == 1,
        }
    }

    /// The position of the next character.
    pub fn loc(&self) -> Loc {
        Loc::new(&self.file, self.line, self.col)
    }

    fn peek(&self) -> Option<char> {
        self.src.get(self.pos..).and_then(|s| s.chars().next())
    }

    fn peek2(&self) -> Option<char> {
        self.src.get(self.pos..).and_then(|s| s.chars().nth(1))
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos = self.pos.saturating_add(c.len_utf8());
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
            self.line_start = true;
        } else {
            self.col = self.col.saturating_add(1);
        }
        Some(c)
    }

    fn err(&self, loc: &Loc, msg: impl Into<String>) -> IdlError {
        IdlError::at(loc, msg)
    }

    /// Skips whitespace and comments.
    fn skip_trivia(&mut self) -> Result<(), IdlError> {
        loop {
            match (self.peek(), self.peek2()) {
                (Some(c), _) if c.is_whitespace() => {
                    self.bump();
                }
                (Some('/'), Some('/')) => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                (Some('/'), Some('*')) => {
                    let start = self.loc();
                    self.bump();
                    self.bump();
                    loop {
                        match self.bump() {
                            None => return Err(self.err(&start, "unterminated comment")),
                            Some('*') if self.peek() == Some('/') => {
                                self.bump();
                                break;
                            }
                            Some(_) => {}
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    /// The next token.
    pub fn next_token(&mut self) -> Result<Token, IdlError> {
        self.skip_trivia()?;
        let loc = self.loc();
        let at_line_start = self.line_start;
        self.line_start = false;
        let Some(c) = self.peek() else {
            return Ok(Token { tok: Tok::Eof, loc });
        };
        let tok = match c {
            '#' if at_line_start => {
                self.bump();
                Tok::Directive(self.rest_of_line())
            }
            '#' => return Err(self.err(&loc, "'#' must start a line")),
            'L' if matches!(self.peek2(), Some('\'' | '"')) => {
                self.bump();
                self.quoted(&loc)?
            }
            // IDL 4.2 §7.2.3: identifiers are ASCII letters, digits and underscores.
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    self.bump();
                }
                Tok::Ident(self.src.get(start..self.pos).unwrap_or_default().to_owned())
            }
            c if c.is_ascii_digit() => self.number(&loc)?,
            '.' if self.peek2().is_some_and(|c| c.is_ascii_digit()) => self.number(&loc)?,
            '\'' | '"' => self.quoted(&loc)?,
            _ => Tok::Punct(self.punct(&loc, c)?),
        };
        Ok(Token { tok, loc })
    }

    /// Skips an inactive `#ifdef` region: whole lines up to the next line starting with `#`,
    /// returned as a directive token (or end of input).
    pub fn skip_to_directive(&mut self) -> Token {
        loop {
            while self.peek().is_some_and(|c| c != '\n' && c.is_whitespace()) {
                self.bump();
            }
            let loc = self.loc();
            match self.peek() {
                None => return Token { tok: Tok::Eof, loc },
                Some('#') if self.line_start => {
                    self.line_start = false;
                    self.bump();
                    return Token {
                        tok: Tok::Directive(self.rest_of_line()),
                        loc,
                    };
                }
                Some(_) => {
                    self.line_start = false;
                    while self.bump().is_some_and(|c| c != '\n') {}
                }
            }
        }
    }

    /// The rest of the current line (backslash-newline continues it), newline consumed.
    fn rest_of_line(&mut self) -> String {
        let mut out = String::new();
        while let Some(c) = self.bump() {
            match c {
                '\n' => break,
                '\\' if self.peek() == Some('\n') => {
                    self.bump();
                    out.push(' ');
                }
                '\\' if self.peek() == Some('\r') && self.peek2() == Some('\n') => {
                    self.bump();
                    self.bump();
                    out.push(' ');
                }
                '\r' if self.peek() == Some('\n') => {}
                c => out.push(c),
            }
        }
        out
    }

    fn punct(&mut self, loc: &Loc, c: char) -> Result<Punct, IdlError> {
        self.bump();
        let two = |l: &mut Self, next: char, yes: Punct, no: Punct| {
            if l.peek() == Some(next) {
                l.bump();
                yes
            } else {
                no
            }
        };
        Ok(match c {
            ';' => Punct::Semi,
            '{' => Punct::LBrace,
            '}' => Punct::RBrace,
            '(' => Punct::LParen,
            ')' => Punct::RParen,
            '[' => Punct::LBracket,
            ']' => Punct::RBracket,
            ',' => Punct::Comma,
            '=' => Punct::Eq,
            '+' => Punct::Plus,
            '-' => Punct::Minus,
            '*' => Punct::Star,
            '/' => Punct::Slash,
            '%' => Punct::Percent,
            '~' => Punct::Tilde,
            '&' => Punct::Amp,
            '|' => Punct::Pipe,
            '^' => Punct::Caret,
            '@' => Punct::At,
            ':' => two(self, ':', Punct::ColonColon, Punct::Colon),
            '<' => two(self, '<', Punct::Shl, Punct::Lt),
            '>' => two(self, '>', Punct::Shr, Punct::Gt),
            c => return Err(self.err(loc, format!("unexpected character {c:?}"))),
        })
    }

    fn number(&mut self, loc: &Loc) -> Result<Tok, IdlError> {
        let start = self.pos;
        if self.peek() == Some('0') && matches!(self.peek2(), Some('x' | 'X')) {
            self.bump();
            self.bump();
            let digits_start = self.pos;
            while self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
                self.bump();
            }
            let digits = self.src.get(digits_start..self.pos).unwrap_or_default();
            return u128::from_str_radix(digits, 16)
                .map(Tok::Int)
                .map_err(|_| self.err(loc, format!("invalid hexadecimal literal '0x{digits}'")));
        }
        let mut float = false;
        while let Some(c) = self.peek() {
            match c {
                '0'..='9' => {}
                '.' if !float => float = true,
                'e' | 'E' => {
                    float = true;
                    self.bump();
                    if matches!(self.peek(), Some('+' | '-')) {
                        self.bump();
                    }
                    continue;
                }
                _ => break,
            }
            self.bump();
        }
        let text = self.src.get(start..self.pos).unwrap_or_default();
        if let Some(c) = self.peek().filter(|c| c.is_alphanumeric() || *c == '_') {
            let what = if matches!(c, 'd' | 'D') {
                "fixed-point literals are not supported".to_owned()
            } else {
                format!("invalid suffix '{c}' on number '{text}'")
            };
            return Err(self.err(loc, what));
        }
        if float {
            return text
                .parse::<f64>()
                .map(Tok::Float)
                .map_err(|_| self.err(loc, format!("invalid floating-point literal '{text}'")));
        }
        let (digits, radix) = match text.strip_prefix('0') {
            Some(rest) if !rest.is_empty() => (rest, 8),
            _ => (text, 10),
        };
        u128::from_str_radix(digits, radix)
            .map(Tok::Int)
            .map_err(|_| {
                self.err(
                    loc,
                    format!("invalid or too large integer literal '{text}'"),
                )
            })
    }

    /// A character or string literal starting at the quote.
    fn quoted(&mut self, loc: &Loc) -> Result<Tok, IdlError> {
        let quote = self.bump().unwrap_or('"');
        let mut text = String::new();
        loop {
            match self.bump() {
                None | Some('\n') => {
                    let what = if quote == '"' { "string" } else { "character" };
                    return Err(self.err(loc, format!("unterminated {what} literal")));
                }
                Some(c) if c == quote => break,
                Some('\\') => text.push(self.escape()?),
                Some(c) => text.push(c),
            }
        }
        if quote == '"' {
            return Ok(Tok::Str(text));
        }
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(Tok::Char(c)),
            _ => Err(self.err(loc, "a character literal holds exactly one character")),
        }
    }

    fn escape(&mut self) -> Result<char, IdlError> {
        let loc = self.loc();
        let Some(c) = self.bump() else {
            return Err(self.err(&loc, "unterminated escape sequence"));
        };
        let numeric = |l: &mut Self, radix: u32, max: usize| {
            let mut value: u32 = 0;
            let mut n = 0usize;
            while n < max {
                let Some(d) = l.peek().and_then(|c| c.to_digit(radix)) else {
                    break;
                };
                l.bump();
                value = value.saturating_mul(radix).saturating_add(d);
                n = n.saturating_add(1);
            }
            (n > 0).then(|| char::from_u32(value)).flatten()
        };
        let out = match c {
            'n' => Some('\n'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            'b' => Some('\u{8}'),
            'r' => Some('\r'),
            'f' => Some('\u{c}'),
            'a' => Some('\u{7}'),
            '\\' | '?' | '\'' | '"' => Some(c),
            '0'..='7' => {
                let mut value = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    let Some(d) = self.peek().and_then(|c| c.to_digit(8)) else {
                        break;
                    };
                    self.bump();
                    value = value.saturating_mul(8).saturating_add(d);
                }
                char::from_u32(value)
            }
            'x' => numeric(self, 16, 2),
            'u' => numeric(self, 16, 4),
            _ => None,
        };
        out.ok_or_else(|| self.err(&loc, format!("invalid escape sequence '\\{c}'")))
    }
}

#[cfg(test)]
mod tests;
