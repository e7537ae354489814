//! Expression parameters as peers send them (docs/interop-facts.md §1.4) and their substitution
//! into an [`Ast`]. Fast DDS and (probably) RTI send literals (`'RED'`, `5`, `3.5`, `'c'`, `TRUE`);
//! OpenDDS sends strings bare (`RED`). We try the literal grammar first and take anything that
//! is not exactly one literal as a bare string, so both forms work. The ambiguity is inherent:
//! a bare OpenDDS string `TRUE` or `12` reads as a boolean or integer.
//!
//! Must not: accept more than [`MAX_PARAMETERS`] parameters or one longer than
//! [`MAX_EXPRESSION_LEN`]; recurse deeper than the [`Ast`] height bound.

use core::convert::Infallible;

use super::ast::{self, Ast, BoundAst, Expr, Literal, Operand, ParamIndex, Predicate};
use super::error::{FilterError, FilterErrorKind};
use super::lexer::{TokenKind, tokenize};
use super::vocabulary::Keyword;
use super::{MAX_EXPRESSION_LEN, MAX_PARAMETERS};

/// Reads one expression parameter: a literal if the whole text (ignoring surrounding blanks)
/// is exactly one literal token (an optionally signed number, a quoted char or string,
/// `TRUE`/`FALSE`), otherwise the text itself as a bare string.
pub fn parse_parameter(text: &str) -> Result<Literal, FilterError> {
    if text.len() > MAX_EXPRESSION_LEN {
        return Err(FilterError::new(
            MAX_EXPRESSION_LEN,
            FilterErrorKind::TooLong,
        ));
    }
    if let Ok(tokens) = tokenize(text) {
        if let [only, end] = tokens.as_slice() {
            if end.kind == TokenKind::End {
                let literal = match only.kind {
                    TokenKind::Int(v) => Some(Literal::Int(v)),
                    TokenKind::Float(v) => Some(Literal::Float(v)),
                    TokenKind::Char(c) => Some(Literal::Char(c)),
                    TokenKind::Str(s) => Some(Literal::Str(s.to_owned())),
                    TokenKind::Keyword(Keyword::True) => Some(Literal::Bool(true)),
                    TokenKind::Keyword(Keyword::False) => Some(Literal::Bool(false)),
                    _ => None,
                };
                if let Some(literal) = literal {
                    return Ok(literal);
                }
            }
        }
    }
    Ok(Literal::Str(text.to_owned()))
}

/// Reads a peer's expression parameter list with [`parse_parameter`]; at most
/// [`MAX_PARAMETERS`] entries. Error positions are 0 (they are not in expression text).
pub fn parse_parameters<S: AsRef<str>>(params: &[S]) -> Result<Vec<Literal>, FilterError> {
    if params.len() > MAX_PARAMETERS {
        return Err(FilterError::new(
            0,
            FilterErrorKind::Invalid("more than 100 expression parameters"),
        ));
    }
    params
        .iter()
        .map(|p| parse_parameter(p.as_ref()).map_err(|e| FilterError::new(0, e.kind)))
        .collect()
}

impl Ast {
    /// Substitutes `params[n]` for each `%n`. Errors (positioned at the parameter's first use
    /// in the text) when a parameter is missing, or when a LIKE/MATCH pattern parameter is not
    /// a string or char. Extra parameters are ignored.
    pub fn bind(&self, params: &[Literal]) -> Result<BoundAst, FilterError> {
        for (index, position) in &self.params {
            if params.get(usize::from(index.get())).is_none() {
                return Err(FilterError::new(
                    *position,
                    FilterErrorKind::MissingParameter(index.get()),
                ));
            }
        }
        Ok(BoundAst {
            root: self.bind_expr(&self.root, params)?,
        })
    }

    // Recursion is bounded by MAX_DEPTH (ast module invariant).
    fn bind_expr(
        &self,
        expr: &Expr<ParamIndex>,
        params: &[Literal],
    ) -> Result<Expr<Infallible>, FilterError> {
        let list = |items: &[Expr<ParamIndex>]| -> Result<Vec<_>, FilterError> {
            items.iter().map(|e| self.bind_expr(e, params)).collect()
        };
        Ok(match expr {
            Expr::Or(items) => Expr::Or(list(items)?),
            Expr::And(items) => Expr::And(list(items)?),
            Expr::Not(inner) => Expr::Not(Box::new(self.bind_expr(inner, params)?)),
            Expr::Predicate(p) => Expr::Predicate(self.bind_predicate(p, params)?),
        })
    }

    fn bind_predicate(
        &self,
        p: &Predicate<ParamIndex>,
        params: &[Literal],
    ) -> Result<Predicate<Infallible>, FilterError> {
        Ok(match p {
            Predicate::Compare { lhs, op, rhs } => {
                let (lhs, rhs) = (
                    self.bind_operand(lhs, params)?,
                    self.bind_operand(rhs, params)?,
                );
                if let Some(rule) = ast::compare_rule(&lhs, *op, &rhs) {
                    let position = match (p, op.is_pattern()) {
                        (
                            Predicate::Compare {
                                rhs: Operand::Param(i),
                                ..
                            },
                            true,
                        ) => self.param_position(*i),
                        _ => 0,
                    };
                    return Err(FilterError::new(position, FilterErrorKind::Invalid(rule)));
                }
                Predicate::Compare { lhs, op: *op, rhs }
            }
            Predicate::Between {
                field,
                negated,
                low,
                high,
            } => Predicate::Between {
                field: field.clone(),
                negated: *negated,
                low: self.bind_operand(low, params)?,
                high: self.bind_operand(high, params)?,
            },
            Predicate::Bool(field) => Predicate::Bool(field.clone()),
        })
    }

    fn bind_operand(
        &self,
        o: &Operand<ParamIndex>,
        params: &[Literal],
    ) -> Result<Operand<Infallible>, FilterError> {
        Ok(match o {
            Operand::Field(f) => Operand::Field(f.clone()),
            Operand::Literal(l) => Operand::Literal(l.clone()),
            Operand::Param(i) => match params.get(usize::from(i.get())) {
                Some(l) => Operand::Literal(l.clone()),
                None => {
                    let kind = FilterErrorKind::MissingParameter(i.get());
                    return Err(FilterError::new(self.param_position(*i), kind));
                }
            },
        })
    }
}
