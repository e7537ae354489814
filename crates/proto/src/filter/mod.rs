//! DDS-SQL content filters (DDS 1.4 Annex B): lexer → parser (Ast) → parameter binding →
//! compile against a [`TypeDescriptor`](crate::types::TypeDescriptor) ([`Program`]) →
//! evaluation on serialized CDR. The reference evaluator in `eval` runs over a
//! [`FieldSource`]; the compiled one is tested against it.
//!
//! Must not: panic or recurse without bound on any expression; every limit is a named constant.
//! No I/O, no clock, no allocation sized from untrusted counts.
//!
//! # Overview
//! - [`tokenize`] turns text into [`Token`]s (DDS 1.4 Annex B tokens plus the common vendor
//!   extensions: `!=`, `TRUE`/`FALSE`, `MATCH`, `[n]` indices, hex integers; docs/interop-facts.md
//!   §4).
//! - [`Ast::parse`] is a recursive-descent parser with SQL precedence NOT > AND > OR. Its
//!   [`Display`](core::fmt::Display) form is canonical and fully parenthesised, and re-parses to
//!   the same [`Ast`].
//! - [`parse_parameter`] reads an expression parameter as sent by a peer, quoted (Fast DDS,
//!   RTI) or bare (OpenDDS) (docs/interop-facts.md §1.4); [`Ast::bind`] substitutes them.
//! - [`like_match`] is the LIKE wildcard matcher; [`MatchPattern`] the bounded, linear-time
//!   regular expression behind MATCH; [`BoundAst::evaluate`] is the reference
//!   evaluator with the type-promotion rules of docs/interop-facts.md §4.2 and three-valued logic
//!   for missing fields.
//! - [`Program::compile`] resolves field paths to accessors and type-checks;
//!   [`Program::evaluate`] walks a serialized sample once, without allocating, and
//!   [`Program::project`] extracts the referenced fields as a canonical memo key.
//!
//! Interop caveat (docs/interop-facts.md §4.2, unverified): Fast DDS 2.9 may fold AND/OR left to
//! right with equal precedence, so `a OR b AND c` could mean `(a OR b) AND c` to a Fast DDS reader.
//! We follow SQL (and RTI/OpenDDS); users should parenthesise mixed AND/OR expressions.

mod ast;
mod cdr_eval;
mod compile;
mod error;
mod eval;
mod lexer;
mod like;
mod param;
mod parser;
mod pattern;
mod vocabulary;

#[cfg(test)]
mod tests;

pub use ast::{
    Ast, BoundAst, Expr, FieldPath, Literal, Operand, ParamIndex, PathSegment, Predicate,
};
pub use compile::{MAX_FIELDS, MAX_PATH_STEPS, MAX_TYPE_DEPTH, Program};
pub use error::{FilterError, FilterErrorKind};
pub use eval::{EvalError, FieldSource, Value};
pub use lexer::{Token, TokenKind, tokenize};
pub use like::like_match;
pub use param::{parse_parameter, parse_parameters};
pub use pattern::{MAX_PATTERN_NEST, MAX_PATTERN_PROGRAM, MatchPattern};
pub use vocabulary::{Keyword, RelOp};

/// Longest filter expression (and longest single parameter) we accept, in bytes.
pub const MAX_EXPRESSION_LEN: usize = 8 * 1024;

/// Deepest nesting we accept: open parentheses plus `NOT`s while parsing, and the height of
/// the AND/OR/NOT tree. Bounds every recursion over an [`Ast`].
pub const MAX_DEPTH: usize = 64;

/// Number of expression parameters a filter may refer to: `%0` to `%99` (DDS 1.4 Annex B).
pub const MAX_PARAMETERS: usize = 100;
