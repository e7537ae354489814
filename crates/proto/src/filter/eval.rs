//! Reference evaluator: runs a [`BoundAst`] against sample values supplied by a
//! [`FieldSource`]. Compiled evaluators over serialized CDR are tested against it.
//!
//! Must not: panic, or recurse deeper than the [`BoundAst`] height bound. The comparison
//! rules ([`ValueRef`] and `apply_ref`) must not allocate: the compiled evaluator
//! (`cdr_eval`) calls them per sample.
//!
//! # Overview
//! - Type promotion follows Fast DDS (docs/interop-facts.md §4.2): bool↔int (as 0/1), int↔float
//!   (the int becomes a float; a `Float32` field pulls the other side to `f32`, as Fast DDS
//!   compares a float constant at the field's precision), char↔string (a char is a 1-char string),
//!   enum↔int (by value), enum↔enum (by value), enum↔string/char (by label, `=`/`<>` only:
//!   without the type we cannot order a label; Fast DDS resolves the label to its value and
//!   orders by value). A negative signed integer is below every unsigned one. Any other pair
//!   is incompatible.
//! - Three-valued logic (Kleene): a missing field, an incompatible pair of types, or a NaN
//!   makes a predicate *unknown*; NOT unknown is unknown, `false AND unknown` is false,
//!   `true OR unknown` is true, and an unknown result filters the sample out. So a missing
//!   field never lets a sample through, even under NOT.
//! - LIKE applies to string and char values with a string or char pattern ([`like_match`]).
//! - MATCH applies a regular expression to the whole string or char value (as Fast DDS's
//!   `std::regex_match`, docs/interop-facts.md §4.2) through [`MatchPattern`]; a pattern that does
//!   not compile is [`EvalError::BadPattern`].

use core::cmp::Ordering;
use core::convert::Infallible;

use super::ast::{BoundAst, Expr, FieldPath, Literal, Operand, Predicate};
use super::error::FilterErrorKind;
use super::like::like_match;
use super::pattern::MatchPattern;
use super::vocabulary::RelOp;
use crate::cdr::CdrError;

/// A value read from a sample.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// boolean
    Bool(bool),
    /// Any signed integer type (and integer literals).
    Int(i128),
    /// Any unsigned integer type.
    UInt(u128),
    /// double (and float literals).
    Float(f64),
    /// float: comparisons with it happen at `f32` precision.
    Float32(f32),
    /// char / wchar
    Char(char),
    /// string / wstring
    Str(String),
    /// An enumerator: its label and its value.
    Enum(String, i64),
}

/// Where the evaluator reads fields from.
pub trait FieldSource {
    /// The value at `path`, or `None` if the sample has no such member (absent optional,
    /// index past the end of a sequence, unknown name).
    fn field(&self, path: &FieldPath) -> Option<Value>;
}

/// Why an expression could not be evaluated.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EvalError {
    /// A MATCH pattern is not a regular expression we accept (the kind says why).
    BadPattern(FilterErrorKind),
    /// The serialized sample is malformed (truncated, bad length, bad boolean, string over
    /// its bound or not UTF-8, ...).
    Malformed(CdrError),
    /// The sample uses an encoding the compiled evaluator does not read (PL_CDR, PL_CDR2,
    /// XML, optional members in XCDR1, mutable nested types); the text names it.
    Unsupported(&'static str),
}

impl core::fmt::Display for EvalError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            EvalError::BadPattern(k) => write!(f, "MATCH pattern: {k}"),
            EvalError::Malformed(e) => write!(f, "malformed sample: {e}"),
            EvalError::Unsupported(what) => write!(f, "unsupported encoding: {what}"),
        }
    }
}

impl std::error::Error for EvalError {}

impl BoundAst {
    /// Whether the sample passes the filter (an unknown result does not pass).
    pub fn evaluate<S: FieldSource + ?Sized>(&self, source: &S) -> Result<bool, EvalError> {
        Ok(eval_expr(&self.root, source)? == Some(true))
    }
}

/// Three-valued truth: `None` is unknown.
pub(super) type Truth = Option<bool>;

// Recursion is bounded by MAX_DEPTH (ast module invariant). Every child is evaluated (no
// short-circuit) so that errors do not depend on the data.
fn eval_expr<S: FieldSource + ?Sized>(
    expr: &Expr<Infallible>,
    src: &S,
) -> Result<Truth, EvalError> {
    Ok(match expr {
        Expr::Or(items) => {
            let all = items
                .iter()
                .map(|e| eval_expr(e, src))
                .collect::<Result<Vec<_>, _>>()?;
            kleene_fold(&all, true)
        }
        Expr::And(items) => {
            let all = items
                .iter()
                .map(|e| eval_expr(e, src))
                .collect::<Result<Vec<_>, _>>()?;
            kleene_fold(&all, false)
        }
        Expr::Not(inner) => eval_expr(inner, src)?.map(|b| !b),
        Expr::Predicate(p) => eval_predicate(p, src)?,
    })
}

/// OR (`dominant` = true) or AND (`dominant` = false) over Kleene truth values.
pub(super) fn kleene_fold(values: &[Truth], dominant: bool) -> Truth {
    if values.contains(&Some(dominant)) {
        Some(dominant)
    } else if values.contains(&None) {
        None
    } else {
        Some(!dominant)
    }
}

fn operand_value<S: FieldSource + ?Sized>(o: &Operand<Infallible>, src: &S) -> Option<Value> {
    match o {
        Operand::Field(path) => src.field(path),
        Operand::Literal(l) => Some(Value::from(l)),
        Operand::Param(never) => match *never {},
    }
}

fn eval_predicate<S: FieldSource + ?Sized>(
    p: &Predicate<Infallible>,
    src: &S,
) -> Result<Truth, EvalError> {
    Ok(match p {
        Predicate::Compare {
            op: RelOp::Match,
            lhs,
            rhs,
        } => {
            let (Some(l), Some(r)) = (operand_value(lhs, src), operand_value(rhs, src)) else {
                return Ok(None);
            };
            let (mut tbuf, mut pbuf) = ([0u8; 4], [0u8; 4]);
            match (
                text_of(&l.as_ref(), &mut tbuf),
                text_of(&r.as_ref(), &mut pbuf),
            ) {
                (Some(text), Some(pattern)) => {
                    let pattern = MatchPattern::new(pattern).map_err(EvalError::BadPattern)?;
                    Some(pattern.matches(text))
                }
                _ => None,
            }
        }
        Predicate::Compare { lhs, op, rhs } => {
            let (Some(l), Some(r)) = (operand_value(lhs, src), operand_value(rhs, src)) else {
                return Ok(None);
            };
            apply(*op, &l, &r)
        }
        Predicate::Between {
            field,
            negated,
            low,
            high,
        } => {
            let Some(v) = src.field(field) else {
                return Ok(None);
            };
            let (Some(lo), Some(hi)) = (operand_value(low, src), operand_value(high, src)) else {
                return Ok(None);
            };
            let inside = kleene_fold(
                &[apply(RelOp::Ge, &v, &lo), apply(RelOp::Le, &v, &hi)],
                false,
            );
            if *negated { inside.map(|b| !b) } else { inside }
        }
        Predicate::Bool(field) => match src.field(field) {
            Some(Value::Bool(b)) => Some(b),
            _ => None,
        },
    })
}

/// A borrowed view of a [`Value`]: what the compiled evaluator reads out of a serialized
/// sample without allocating. All comparison and promotion rules are defined on it, so the
/// reference and compiled evaluators share them.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) enum ValueRef<'a> {
    Bool(bool),
    Int(i128),
    UInt(u128),
    Float(f64),
    Float32(f32),
    Char(char),
    Str(&'a str),
    Enum(&'a str, i64),
}

impl Value {
    /// The borrowed view.
    pub(super) fn as_ref(&self) -> ValueRef<'_> {
        match self {
            Value::Bool(b) => ValueRef::Bool(*b),
            Value::Int(v) => ValueRef::Int(*v),
            Value::UInt(v) => ValueRef::UInt(*v),
            Value::Float(v) => ValueRef::Float(*v),
            Value::Float32(v) => ValueRef::Float32(*v),
            Value::Char(c) => ValueRef::Char(*c),
            Value::Str(s) => ValueRef::Str(s),
            Value::Enum(l, v) => ValueRef::Enum(l, *v),
        }
    }
}

/// Outcome of comparing two values of compatible types.
enum Cmp {
    /// Totally ordered.
    Ordered(Ordering),
    /// Known to differ but not ordered (enum label against a different string).
    Unequal,
}

/// `l op r`, or unknown if the types are incompatible or the comparison is unordered.
/// MATCH is never applied here (unknown).
fn apply(op: RelOp, l: &Value, r: &Value) -> Truth {
    apply_ref(op, &l.as_ref(), &r.as_ref())
}

/// [`apply`] on borrowed values; shared with the compiled evaluator.
pub(super) fn apply_ref(op: RelOp, l: &ValueRef<'_>, r: &ValueRef<'_>) -> Truth {
    if op == RelOp::Like {
        let mut tbuf = [0u8; 4];
        let mut pbuf = [0u8; 4];
        return match (text_of(l, &mut tbuf), text_of(r, &mut pbuf)) {
            (Some(text), Some(pattern)) => Some(like_match(text, pattern)),
            _ => None,
        };
    }
    let outcome = compare(l, r)?;
    match (op, outcome) {
        (RelOp::Eq, Cmp::Ordered(o)) => Some(o == Ordering::Equal),
        (RelOp::Ne, Cmp::Ordered(o)) => Some(o != Ordering::Equal),
        (RelOp::Eq, Cmp::Unequal) => Some(false),
        (RelOp::Ne, Cmp::Unequal) => Some(true),
        (_, Cmp::Unequal) => None,
        (RelOp::Lt, Cmp::Ordered(o)) => Some(o == Ordering::Less),
        (RelOp::Le, Cmp::Ordered(o)) => Some(o != Ordering::Greater),
        (RelOp::Gt, Cmp::Ordered(o)) => Some(o == Ordering::Greater),
        (RelOp::Ge, Cmp::Ordered(o)) => Some(o != Ordering::Less),
        (RelOp::Like | RelOp::Match, _) => None,
    }
}

/// The text of a string or char value; a char is encoded into `buf`.
pub(super) fn text_of<'b>(v: &ValueRef<'b>, buf: &'b mut [u8; 4]) -> Option<&'b str> {
    match *v {
        ValueRef::Str(s) => Some(s),
        ValueRef::Char(c) => Some(c.encode_utf8(buf)),
        _ => None,
    }
}

/// Fast DDS promotion rank (docs/interop-facts.md §4.2): the lower-ranked side is promoted to the
/// higher.
fn rank(v: &ValueRef<'_>) -> u8 {
    match v {
        ValueRef::Bool(_) => 0,
        ValueRef::Enum(..) => 1,
        ValueRef::Int(_) | ValueRef::UInt(_) => 2,
        ValueRef::Float(_) | ValueRef::Float32(_) => 3,
        ValueRef::Char(_) => 4,
        ValueRef::Str(_) => 5,
    }
}

/// An integer view of `v`, for bool (0/1), enum (value) and integer values.
fn as_int<'a>(v: &ValueRef<'a>) -> Option<ValueRef<'a>> {
    match *v {
        ValueRef::Bool(b) => Some(ValueRef::Int(i128::from(b))),
        ValueRef::Enum(_, n) => Some(ValueRef::Int(i128::from(n))),
        ValueRef::Int(_) | ValueRef::UInt(_) => Some(*v),
        _ => None,
    }
}

fn compare(l: &ValueRef<'_>, r: &ValueRef<'_>) -> Option<Cmp> {
    if rank(l) > rank(r) {
        return compare(r, l).map(|c| match c {
            Cmp::Ordered(o) => Cmp::Ordered(o.reverse()),
            Cmp::Unequal => Cmp::Unequal,
        });
    }
    use ValueRef as V;
    let ordered = |o: Option<Ordering>| o.map(Cmp::Ordered);
    let (mut lbuf, mut rbuf) = ([0u8; 4], [0u8; 4]);
    // From here rank(l) <= rank(r).
    match (l, r) {
        (V::Bool(a), V::Bool(b)) => ordered(Some(a.cmp(b))),
        (V::Enum(_, a), V::Enum(_, b)) => ordered(Some(a.cmp(b))),
        (V::Enum(label, _), V::Char(_) | V::Str(_)) => {
            let text = text_of(r, &mut rbuf)?;
            Some(if *label == text {
                Cmp::Ordered(Ordering::Equal)
            } else {
                Cmp::Unequal
            })
        }
        (V::Bool(_) | V::Enum(..) | V::Int(_) | V::UInt(_), V::Int(_) | V::UInt(_)) => {
            ordered(compare_ints(&as_int(l)?, r))
        }
        (V::Int(_) | V::UInt(_), V::Float(b)) => ordered(int_as_f64(l)?.partial_cmp(b)),
        (V::Int(_) | V::UInt(_), V::Float32(b)) => ordered(int_as_f32(l)?.partial_cmp(b)),
        (V::Float(a), V::Float(b)) => ordered(a.partial_cmp(b)),
        (V::Float32(a), V::Float32(b)) => ordered(a.partial_cmp(b)),
        // A float constant meets a float field at the field's precision.
        #[allow(clippy::cast_possible_truncation)]
        (V::Float(a), V::Float32(b)) => ordered((*a as f32).partial_cmp(b)),
        #[allow(clippy::cast_possible_truncation)]
        (V::Float32(a), V::Float(b)) => ordered(a.partial_cmp(&(*b as f32))),
        (V::Char(a), V::Char(b)) => ordered(Some(a.cmp(b))),
        (V::Char(_) | V::Str(_), V::Str(b)) => ordered(Some(text_of(l, &mut lbuf)?.cmp(b))),
        _ => None,
    }
}

fn compare_ints(l: &ValueRef<'_>, r: &ValueRef<'_>) -> Option<Ordering> {
    use ValueRef as V;
    Some(match (l, r) {
        (V::Int(a), V::Int(b)) => a.cmp(b),
        (V::UInt(a), V::UInt(b)) => a.cmp(b),
        (V::Int(a), V::UInt(b)) => u128::try_from(*a).map_or(Ordering::Less, |a| a.cmp(b)),
        (V::UInt(a), V::Int(b)) => u128::try_from(*b).map_or(Ordering::Greater, |b| a.cmp(&b)),
        _ => return None,
    })
}

#[allow(clippy::cast_precision_loss)]
fn int_as_f64(v: &ValueRef<'_>) -> Option<f64> {
    match v {
        ValueRef::Int(a) => Some(*a as f64),
        ValueRef::UInt(a) => Some(*a as f64),
        _ => None,
    }
}

#[allow(clippy::cast_precision_loss)]
fn int_as_f32(v: &ValueRef<'_>) -> Option<f32> {
    match v {
        ValueRef::Int(a) => Some(*a as f32),
        ValueRef::UInt(a) => Some(*a as f32),
        _ => None,
    }
}

impl From<&Literal> for Value {
    fn from(l: &Literal) -> Value {
        match l {
            Literal::Bool(b) => Value::Bool(*b),
            Literal::Int(v) => Value::Int(*v),
            Literal::Float(v) => Value::Float(*v),
            Literal::Char(c) => Value::Char(*c),
            Literal::Str(s) => Value::Str(s.clone()),
        }
    }
}
