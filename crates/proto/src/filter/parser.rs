//! Recursive-descent parser for DDS-SQL filter expressions (DDS 1.4 Annex B FilterExpression,
//! with the extensions of docs/interop-facts.md §4.2), producing an [`Ast`].
//!
//! Grammar (SQL precedence NOT > AND > OR; the Annex B BNF defines none):
//! ```text
//! or        := and ('OR' and)*
//! and       := unary ('AND' unary)*
//! unary     := 'NOT' unary | '(' or ')' | predicate
//! predicate := operand relop operand              -- at least one side a field
//!            | field ['NOT'] 'BETWEEN' value 'AND' value
//!            | field                               -- bare boolean field
//! relop     := '=' | '<>' | '!=' | '<' | '<=' | '>' | '>=' | 'LIKE' | 'MATCH'
//! operand   := field | value
//! value     := literal | '%n'
//! field     := IDENT ('[' INT ']')* ('.' IDENT ('[' INT ']')*)*
//! ```
//!
//! Must not: recurse deeper than [`MAX_DEPTH`] parentheses plus `NOT`s, or build a tree
//! whose AND/OR/NOT height exceeds [`MAX_DEPTH`] (both are checked while parsing, so deeply
//! nested input is an error, never a stack overflow).

use super::MAX_DEPTH;
use super::ast::{
    self, Ast, Expr, FieldPath, Literal, Operand, ParamIndex, PathSegment, Predicate,
};
use super::error::{FilterError, FilterErrorKind};
use super::lexer::{Token, TokenKind, tokenize};
use super::vocabulary::{Keyword, RelOp};

impl Ast {
    /// Parses a filter expression. The empty (or all-blank) expression is an error: callers
    /// treat an empty filter as "no filter" before parsing (docs/interop-facts.md §1.4).
    pub fn parse(text: &str) -> Result<Ast, FilterError> {
        let tokens = tokenize(text)?;
        let mut parser = Parser {
            tokens: &tokens,
            pos: 0,
            depth: 0,
            end: text.len(),
            params: Vec::new(),
        };
        let first = parser.peek();
        if first.kind == TokenKind::End {
            return Err(FilterError::new(first.position, FilterErrorKind::Empty));
        }
        let (root, _height) = parser.or()?;
        let next = parser.peek();
        if next.kind != TokenKind::End {
            return Err(parser.expected("AND, OR or end of expression"));
        }
        let mut params = parser.params;
        // Stable sort: dedup keeps the first use of each parameter.
        params.sort_by_key(|(p, _)| *p);
        params.dedup_by_key(|(p, _)| *p);
        Ok(Ast { root, params })
    }
}

impl FieldPath {
    /// Parses a field path on its own (`a.b[2].c`), as used in expressions.
    pub fn parse(text: &str) -> Result<FieldPath, FilterError> {
        let tokens = tokenize(text)?;
        let mut parser = Parser {
            tokens: &tokens,
            pos: 0,
            depth: 0,
            end: text.len(),
            params: Vec::new(),
        };
        let path = parser.field()?;
        if parser.peek().kind != TokenKind::End {
            return Err(parser.expected("end of field path"));
        }
        Ok(path)
    }
}

/// A subtree and its AND/OR/NOT height.
type Parsed = Result<(Expr<ParamIndex>, usize), FilterError>;

struct Parser<'t, 'a> {
    tokens: &'t [Token<'a>],
    pos: usize,
    /// Open parentheses plus pending `NOT`s.
    depth: usize,
    end: usize,
    params: Vec<(ParamIndex, usize)>,
}

/// How an error message names a token that was just read.
fn describe(kind: TokenKind<'_>) -> &'static str {
    match kind {
        TokenKind::Ident(_) => "a field name",
        TokenKind::Keyword(k) => k.as_str(),
        TokenKind::Op(op) => match op {
            RelOp::Eq => "'='",
            RelOp::Ne => "'<>'",
            RelOp::Lt => "'<'",
            RelOp::Le => "'<='",
            RelOp::Gt => "'>'",
            RelOp::Ge => "'>='",
            RelOp::Like => "LIKE",
            RelOp::Match => "MATCH",
        },
        TokenKind::LParen => "'('",
        TokenKind::RParen => "')'",
        TokenKind::Dot => "'.'",
        TokenKind::LBracket => "'['",
        TokenKind::RBracket => "']'",
        TokenKind::Comma => "','",
        TokenKind::Int(_) | TokenKind::Float(_) => "a number",
        TokenKind::Char(_) | TokenKind::Str(_) => "a quoted literal",
        TokenKind::Param(_) => "a parameter",
        TokenKind::End => "the end",
    }
}

impl<'a> Parser<'_, 'a> {
    fn peek(&self) -> Token<'a> {
        self.tokens.get(self.pos).copied().unwrap_or(Token {
            kind: TokenKind::End,
            position: self.end,
        })
    }

    fn bump(&mut self) -> Token<'a> {
        let t = self.peek();
        self.pos = self.pos.saturating_add(1);
        t
    }

    fn eat_keyword(&mut self, k: Keyword) -> bool {
        let hit = self.peek().kind == TokenKind::Keyword(k);
        if hit {
            self.bump();
        }
        hit
    }

    /// "expected X after <previous token>" at the current token.
    fn expected(&self, expected: &'static str) -> FilterError {
        let after = self
            .pos
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map(|t| describe(t.kind));
        FilterError::new(
            self.peek().position,
            FilterErrorKind::Expected { expected, after },
        )
    }

    fn enter(&mut self) -> Result<(), FilterError> {
        self.depth = self.depth.saturating_add(1);
        if self.depth > MAX_DEPTH {
            return Err(FilterError::new(
                self.peek().position,
                FilterErrorKind::TooDeep,
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Checks the height of a new AND/OR/NOT node whose tallest child has `child` height.
    fn node_height(&self, child: usize, position: usize) -> Result<usize, FilterError> {
        let height = child.saturating_add(1);
        if height > MAX_DEPTH {
            return Err(FilterError::new(position, FilterErrorKind::TooDeep));
        }
        Ok(height)
    }

    /// Parses `sub (sep sub)*` into one operand or a list; returns the tree and its height.
    fn list(
        &mut self,
        sep: Keyword,
        sub: fn(&mut Self) -> Parsed,
        make: fn(Vec<Expr<ParamIndex>>) -> Expr<ParamIndex>,
    ) -> Parsed {
        let position = self.peek().position;
        let (first, mut height) = sub(self)?;
        if self.peek().kind != TokenKind::Keyword(sep) {
            return Ok((first, height));
        }
        let mut items = vec![first];
        while self.eat_keyword(sep) {
            let (item, h) = sub(self)?;
            height = height.max(h);
            items.push(item);
        }
        Ok((make(items), self.node_height(height, position)?))
    }

    fn or(&mut self) -> Parsed {
        self.list(Keyword::Or, Self::and, Expr::Or)
    }

    fn and(&mut self) -> Parsed {
        self.list(Keyword::And, Self::unary, Expr::And)
    }

    fn unary(&mut self) -> Parsed {
        let token = self.peek();
        match token.kind {
            TokenKind::Keyword(Keyword::Not) => {
                self.enter()?;
                self.bump();
                let (inner, h) = self.unary()?;
                self.leave();
                Ok((
                    Expr::Not(Box::new(inner)),
                    self.node_height(h, token.position)?,
                ))
            }
            TokenKind::LParen => {
                self.enter()?;
                self.bump();
                let inner = self.or()?;
                if self.peek().kind != TokenKind::RParen {
                    return Err(self.expected("')'"));
                }
                self.bump();
                self.leave();
                Ok(inner)
            }
            _ => Ok((Expr::Predicate(self.predicate()?), 0)),
        }
    }

    fn predicate(&mut self) -> Result<Predicate<ParamIndex>, FilterError> {
        let lhs_pos = self.peek().position;
        let Some(lhs) = self.operand()? else {
            return Err(self.expected("a condition"));
        };
        let op = match self.peek().kind {
            TokenKind::Op(op) => op,
            TokenKind::Keyword(Keyword::Like) => RelOp::Like,
            TokenKind::Keyword(Keyword::Match) => RelOp::Match,
            TokenKind::Keyword(k @ (Keyword::Between | Keyword::Not)) => {
                let Operand::Field(field) = lhs else {
                    return Err(FilterError::new(
                        lhs_pos,
                        FilterErrorKind::Invalid("BETWEEN needs a field on the left"),
                    ));
                };
                self.bump();
                let negated = k == Keyword::Not;
                if negated && !self.eat_keyword(Keyword::Between) {
                    return Err(self.expected("BETWEEN"));
                }
                let low = self.value()?;
                if !self.eat_keyword(Keyword::And) {
                    return Err(self.expected("AND"));
                }
                let high = self.value()?;
                return Ok(Predicate::Between {
                    field,
                    negated,
                    low,
                    high,
                });
            }
            _ => {
                return match lhs {
                    Operand::Field(field) => Ok(Predicate::Bool(field)),
                    _ => Err(self.expected("a comparison operator")),
                };
            }
        };
        self.bump();
        let rhs_pos = self.peek().position;
        let Some(rhs) = self.operand()? else {
            return Err(self.expected("a value"));
        };
        if let Some(rule) = ast::compare_rule(&lhs, op, &rhs) {
            let position = if op.is_pattern() && !matches!(lhs, Operand::Field(_)) {
                lhs_pos
            } else {
                rhs_pos
            };
            return Err(FilterError::new(position, FilterErrorKind::Invalid(rule)));
        }
        Ok(Predicate::Compare { lhs, op, rhs })
    }

    /// A literal or parameter (BETWEEN bounds).
    fn value(&mut self) -> Result<Operand<ParamIndex>, FilterError> {
        let position = self.peek().position;
        match self.operand()? {
            Some(Operand::Field(_)) => Err(FilterError::new(
                position,
                FilterErrorKind::Invalid(ast::BETWEEN_BOUNDS),
            )),
            Some(v) => Ok(v),
            None => Err(self.expected("a value")),
        }
    }

    fn operand(&mut self) -> Result<Option<Operand<ParamIndex>>, FilterError> {
        let token = self.peek();
        let literal = match token.kind {
            TokenKind::Ident(_) => return Ok(Some(Operand::Field(self.field()?))),
            TokenKind::Param(n) => {
                self.bump();
                let Some(index) = ParamIndex::new(n) else {
                    return Err(FilterError::new(
                        token.position,
                        FilterErrorKind::ParameterOutOfRange,
                    ));
                };
                self.params.push((index, token.position));
                return Ok(Some(Operand::Param(index)));
            }
            TokenKind::Int(v) => Literal::Int(v),
            TokenKind::Float(v) => Literal::Float(v),
            TokenKind::Char(c) => Literal::Char(c),
            TokenKind::Str(s) => Literal::Str(s.to_owned()),
            TokenKind::Keyword(Keyword::True) => Literal::Bool(true),
            TokenKind::Keyword(Keyword::False) => Literal::Bool(false),
            _ => return Ok(None),
        };
        self.bump();
        Ok(Some(Operand::Literal(literal)))
    }

    fn field(&mut self) -> Result<FieldPath, FilterError> {
        let mut segments = Vec::new();
        loop {
            let TokenKind::Ident(name) = self.peek().kind else {
                return Err(self.expected("a field name"));
            };
            self.bump();
            let mut indices = Vec::new();
            while self.peek().kind == TokenKind::LBracket {
                self.bump();
                let token = self.peek();
                let TokenKind::Int(v) = token.kind else {
                    return Err(self.expected("an index"));
                };
                let index = u32::try_from(v).map_err(|_| {
                    FilterError::new(token.position, FilterErrorKind::IntegerOutOfRange)
                })?;
                self.bump();
                if self.peek().kind != TokenKind::RBracket {
                    return Err(self.expected("']'"));
                }
                self.bump();
                indices.push(index);
            }
            segments.push(PathSegment {
                name: name.to_owned(),
                indices,
            });
            if self.peek().kind != TokenKind::Dot {
                return Ok(FieldPath { segments });
            }
            self.bump();
        }
    }
}
