//! Constant expressions (OMG IDL 4.2 §7.4.1.3, rules (11)–(26)): `|`, `^`, `&`, shifts,
//! additive, multiplicative and unary operators, literals, scoped names and parentheses.
//!
//! Must not: build an expression of more than [`MAX_EXPR_NODES`] nodes or nest parentheses
//! deeper than [`MAX_NESTING`](crate::idl::MAX_NESTING).

use super::{MAX_EXPR_NODES, Parser};
use crate::idl::IdlError;
use crate::idl::ast::{BinaryOp, ConstExpr, ExprKind, UnaryOp};
use crate::idl::lexer::{Punct, Tok};

/// Binary operators by precedence level, loosest first.
const LEVELS: [&[(Punct, BinaryOp)]; 6] = [
    &[(Punct::Pipe, BinaryOp::Or)],
    &[(Punct::Caret, BinaryOp::Xor)],
    &[(Punct::Amp, BinaryOp::And)],
    &[(Punct::Shl, BinaryOp::Shl), (Punct::Shr, BinaryOp::Shr)],
    &[(Punct::Plus, BinaryOp::Add), (Punct::Minus, BinaryOp::Sub)],
    &[
        (Punct::Star, BinaryOp::Mul),
        (Punct::Slash, BinaryOp::Div),
        (Punct::Percent, BinaryOp::Rem),
    ],
];

impl Parser<'_> {
    /// An expression; `in_template` leaves a top-level `>>` to close the template.
    pub(super) fn expr(&mut self, in_template: bool) -> Result<ConstExpr, IdlError> {
        self.binary(0, in_template)
    }

    fn node(&mut self, kind: ExprKind, loc: crate::idl::Loc) -> Result<ConstExpr, IdlError> {
        self.expr_nodes = self.expr_nodes.saturating_add(1);
        if self.expr_nodes > MAX_EXPR_NODES {
            let msg = format!("constant expression longer than {MAX_EXPR_NODES} terms");
            return Err(IdlError::at(&loc, msg));
        }
        Ok(ConstExpr { kind, loc })
    }

    fn binary(&mut self, level: usize, in_template: bool) -> Result<ConstExpr, IdlError> {
        let Some(ops) = LEVELS.get(level) else {
            return self.unary();
        };
        let next = level.saturating_add(1);
        let mut lhs = self.binary(next, in_template)?;
        loop {
            let found = ops
                .iter()
                .find(|(p, _)| self.is_punct(*p))
                .map(|(_, op)| *op);
            let Some(op) = found.filter(|op| !(in_template && *op == BinaryOp::Shr)) else {
                return Ok(lhs);
            };
            let loc = self.loc();
            self.advance();
            let rhs = self.binary(next, in_template)?;
            lhs = self.node(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), loc)?;
        }
    }

    fn unary(&mut self) -> Result<ConstExpr, IdlError> {
        let op = match self.peek() {
            Tok::Punct(Punct::Minus) => Some(UnaryOp::Neg),
            Tok::Punct(Punct::Plus) => Some(UnaryOp::Plus),
            Tok::Punct(Punct::Tilde) => Some(UnaryOp::Not),
            _ => None,
        };
        let Some(op) = op else {
            return self.primary();
        };
        let loc = self.loc();
        self.advance();
        self.enter()?;
        let operand = self.unary();
        self.leave();
        self.node(ExprKind::Unary(op, Box::new(operand?)), loc)
    }

    fn primary(&mut self) -> Result<ConstExpr, IdlError> {
        let loc = self.loc();
        let kind = match self.peek().clone() {
            Tok::Int(v) => ExprKind::Int(v),
            Tok::Float(v) => ExprKind::Float(v),
            Tok::Char(c) => ExprKind::Char(c),
            Tok::Str(s) => {
                self.advance();
                let mut text = s;
                while let Tok::Str(more) = self.peek() {
                    text.push_str(more);
                    self.advance();
                }
                return self.node(ExprKind::Str(text), loc);
            }
            Tok::Ident(w) if w == "TRUE" || w == "FALSE" => ExprKind::Bool(w == "TRUE"),
            Tok::Ident(_) | Tok::Punct(Punct::ColonColon) => {
                let name = self.scoped_name("a constant name")?;
                return self.node(ExprKind::Name(name), loc);
            }
            Tok::Punct(Punct::LParen) => {
                self.advance();
                self.enter()?;
                let inner = self.expr(false);
                self.leave();
                let inner = inner?;
                self.expect_punct(Punct::RParen, "to close the parenthesis")?;
                return Ok(inner);
            }
            _ => return Err(self.error("a constant expression")),
        };
        self.advance();
        self.node(kind, loc)
    }
}
