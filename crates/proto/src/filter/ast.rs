//! Abstract syntax of DDS-SQL filter expressions (DDS 1.4 Annex B, with the vendor extensions
//! of docs/interop-facts.md §4) and its canonical text form.
//!
//! Must not: let an [`Ast`] exist whose AND/OR/NOT height exceeds [`MAX_DEPTH`]; every
//! recursive walk (printing, binding, evaluation) relies on that bound. An [`Ast`] is only made
//! by the parser or by [`Ast::from_expr`], which validates it without recursion.
//!
//! # Canonical form
//! `Display` prints AND/OR lists in parentheses (`(a = 1 AND b = 2)`), `NOT x` without extra
//! parentheses, keywords in upper case, `<>` for inequality, integers in decimal and floats
//! in Rust's shortest round-trip form. Printing a valid [`Ast`] and parsing the result gives
//! the same [`Ast`]; the printed form may be longer than the input (and, for inputs close to
//! [`MAX_EXPRESSION_LEN`](super::MAX_EXPRESSION_LEN), longer than that limit).

use core::convert::Infallible;
use core::fmt;

use super::error::{FilterError, FilterErrorKind};
use super::vocabulary::{Keyword, RelOp};
use super::{MAX_DEPTH, MAX_PARAMETERS};

/// A parsed filter expression whose parameters (`%n`) are not yet bound.
#[derive(Clone, Debug)]
pub struct Ast {
    pub(super) root: Expr<ParamIndex>,
    /// Each parameter referred to, with the byte position of its first use, sorted by index.
    pub(super) params: Vec<(ParamIndex, usize)>,
}

/// Two ASTs are equal when their trees are; parameter positions are ignored.
impl PartialEq for Ast {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root
    }
}

/// A filter expression with every parameter replaced by a [`Literal`]; made by
/// [`Ast::bind`]. Its `Display` form is for diagnostics: bare (OpenDDS) string parameters may
/// contain quotes, so it does not always re-parse.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundAst {
    pub(super) root: Expr<Infallible>,
}

/// A condition. `P` is the parameter type: [`ParamIndex`] before binding, `Infallible` after.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr<P> {
    /// Disjunction of two or more conditions.
    Or(Vec<Expr<P>>),
    /// Conjunction of two or more conditions.
    And(Vec<Expr<P>>),
    /// Negation.
    Not(Box<Expr<P>>),
    /// A leaf condition.
    Predicate(Predicate<P>),
}

/// A leaf condition (DDS 1.4 Annex B Predicate, plus a bare boolean field).
#[derive(Clone, Debug, PartialEq)]
pub enum Predicate<P> {
    /// `lhs op rhs`; at least one side is a field. For LIKE and MATCH the left side is a
    /// field and the right side a string or char literal or a parameter.
    Compare {
        /// Left operand.
        lhs: Operand<P>,
        /// Operator.
        op: RelOp,
        /// Right operand.
        rhs: Operand<P>,
    },
    /// `field [NOT] BETWEEN low AND high`; the bounds are literals or parameters.
    Between {
        /// The field tested.
        field: FieldPath,
        /// `NOT BETWEEN`.
        negated: bool,
        /// Inclusive lower bound.
        low: Operand<P>,
        /// Inclusive upper bound.
        high: Operand<P>,
    },
    /// A boolean field used as a condition on its own (vendor extension).
    Bool(FieldPath),
}

/// One side of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand<P> {
    /// A member of the sample.
    Field(FieldPath),
    /// A constant from the expression text.
    Literal(Literal),
    /// An expression parameter.
    Param(P),
}

/// A literal constant (DDS 1.4 Annex B INTEGERVALUE, FLOATVALUE, CHARVALUE, STRING, plus
/// BOOLEANVALUE). Enumerated values are string literals holding the label.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// `TRUE` / `FALSE`.
    Bool(bool),
    /// A decimal or hex integer.
    Int(i128),
    /// A finite float.
    Float(f64),
    /// A quoted single character.
    Char(char),
    /// A quoted string (not of length 1 when it comes from expression text).
    Str(String),
}

/// An expression parameter number, below [`MAX_PARAMETERS`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ParamIndex(u8);

impl ParamIndex {
    /// `Some` when `n` < [`MAX_PARAMETERS`].
    pub fn new(n: u8) -> Option<Self> {
        (usize::from(n) < MAX_PARAMETERS).then_some(Self(n))
    }

    /// The parameter number.
    pub const fn get(self) -> u8 {
        self.0
    }
}

/// A dotted member path, `a.b[2].c` (DDS 1.4 FIELDNAME; `[n]` is an RTI/Fast DDS extension).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldPath {
    /// The components, outermost first; never empty.
    pub segments: Vec<PathSegment>,
}

/// One component of a [`FieldPath`]: a member name and its array/sequence indices.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PathSegment {
    /// The IDL member name.
    pub name: String,
    /// Indices applied in order (`m[1][2]` gives `[1, 2]`).
    pub indices: Vec<u32>,
}

impl fmt::Display for ParamIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Bool(true) => f.write_str("TRUE"),
            Literal::Bool(false) => f.write_str("FALSE"),
            Literal::Int(v) => write!(f, "{v}"),
            // `Debug` is the shortest form that round-trips and always has `.` or `e`.
            Literal::Float(v) => write!(f, "{v:?}"),
            Literal::Char(c) => write!(f, "'{c}'"),
            Literal::Str(s) => write!(f, "'{s}'"),
        }
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.segments.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            f.write_str(&seg.name)?;
            for index in &seg.indices {
                write!(f, "[{index}]")?;
            }
        }
        Ok(())
    }
}

impl<P: fmt::Display> fmt::Display for Operand<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Field(p) => p.fmt(f),
            Operand::Literal(l) => l.fmt(f),
            Operand::Param(p) => p.fmt(f),
        }
    }
}

impl<P: fmt::Display> fmt::Display for Predicate<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Predicate::Compare { lhs, op, rhs } => write!(f, "{lhs} {} {rhs}", op.as_str()),
            Predicate::Between {
                field,
                negated,
                low,
                high,
            } => {
                let not = if *negated { "NOT " } else { "" };
                write!(f, "{field} {not}BETWEEN {low} AND {high}")
            }
            Predicate::Bool(field) => field.fmt(f),
        }
    }
}

impl<P: fmt::Display> fmt::Display for Expr<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Recursion is bounded by MAX_DEPTH (module invariant).
        let (items, sep) = match self {
            Expr::Or(items) => (items, " OR "),
            Expr::And(items) => (items, " AND "),
            Expr::Not(inner) => return write!(f, "NOT {inner}"),
            Expr::Predicate(p) => return p.fmt(f),
        };
        f.write_str("(")?;
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                f.write_str(sep)?;
            }
            item.fmt(f)?;
        }
        f.write_str(")")
    }
}

impl fmt::Display for Ast {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.root.fmt(f)
    }
}

impl fmt::Display for BoundAst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.root.fmt(f)
    }
}

impl BoundAst {
    /// The bound condition tree (height at most [`MAX_DEPTH`]).
    pub fn root(&self) -> &Expr<Infallible> {
        &self.root
    }
}

impl Ast {
    /// The condition tree (height at most [`MAX_DEPTH`]).
    pub fn root(&self) -> &Expr<ParamIndex> {
        &self.root
    }

    /// How many parameters [`Ast::bind`] needs: one more than the highest `%n` used.
    pub fn required_parameters(&self) -> usize {
        self.params
            .last()
            .map_or(0, |(p, _)| usize::from(p.get()).saturating_add(1))
    }

    /// Byte position of the first use of parameter `index` (0 if unknown).
    pub(super) fn param_position(&self, index: ParamIndex) -> usize {
        self.params
            .iter()
            .find(|(p, _)| *p == index)
            .map_or(0, |(_, pos)| *pos)
    }

    /// Wraps a tree built in code, checking every rule the parser enforces (height, list
    /// lengths, field and literal forms, operand kinds) so that it prints and re-parses to
    /// itself. Errors carry position 0.
    pub fn from_expr(root: Expr<ParamIndex>) -> Result<Ast, FilterError> {
        let bad = |what| Err(FilterError::new(0, FilterErrorKind::Invalid(what)));
        let mut params = Vec::new();
        let mut stack = vec![(&root, 0usize)];
        while let Some((expr, depth)) = stack.pop() {
            let children: &[Expr<ParamIndex>] = match expr {
                Expr::Or(items) | Expr::And(items) => {
                    if items.len() < 2 {
                        return bad("AND/OR needs two or more operands");
                    }
                    items
                }
                Expr::Not(inner) => core::slice::from_ref(&**inner),
                Expr::Predicate(p) => {
                    check_predicate(p, &mut params)?;
                    &[]
                }
            };
            if !children.is_empty() {
                let depth = depth.saturating_add(1);
                if depth > MAX_DEPTH {
                    return Err(FilterError::new(0, FilterErrorKind::TooDeep));
                }
                stack.extend(children.iter().map(|c| (c, depth)));
            }
        }
        params.sort();
        params.dedup();
        Ok(Ast {
            root,
            params: params.into_iter().map(|p| (p, 0)).collect(),
        })
    }
}

fn check_predicate(
    p: &Predicate<ParamIndex>,
    params: &mut Vec<ParamIndex>,
) -> Result<(), FilterError> {
    let bad = |what| Err(FilterError::new(0, FilterErrorKind::Invalid(what)));
    let operands: [&Operand<ParamIndex>; 2] = match p {
        Predicate::Compare { lhs, op, rhs } => {
            if let Some(what) = compare_rule(lhs, *op, rhs) {
                return bad(what);
            }
            [lhs, rhs]
        }
        Predicate::Between {
            field, low, high, ..
        } => {
            check_field(field)?;
            if matches!(low, Operand::Field(_)) || matches!(high, Operand::Field(_)) {
                return bad(BETWEEN_BOUNDS);
            }
            [low, high]
        }
        Predicate::Bool(field) => return check_field(field),
    };
    for operand in operands {
        match operand {
            Operand::Field(f) => check_field(f)?,
            Operand::Literal(l) => check_literal(l)?,
            Operand::Param(p) => params.push(*p),
        }
    }
    Ok(())
}

/// Rule text for BETWEEN bounds.
pub(super) const BETWEEN_BOUNDS: &str = "BETWEEN bounds must be literals or parameters";

/// The grammar rules for a comparison that the token structure alone does not enforce;
/// `Some(reason)` when `lhs op rhs` breaks one.
pub(super) fn compare_rule<P>(
    lhs: &Operand<P>,
    op: RelOp,
    rhs: &Operand<P>,
) -> Option<&'static str> {
    let is_field = |o: &Operand<P>| matches!(o, Operand::Field(_));
    if op.is_pattern() {
        if !is_field(lhs) {
            return Some("LIKE and MATCH need a field on the left");
        }
        let pattern_ok = matches!(
            rhs,
            Operand::Param(_) | Operand::Literal(Literal::Str(_) | Literal::Char(_))
        );
        if !pattern_ok {
            return Some("LIKE and MATCH need a string pattern on the right");
        }
    } else if !is_field(lhs) && !is_field(rhs) {
        return Some("a comparison needs a field on at least one side");
    }
    None
}

fn check_field(f: &FieldPath) -> Result<(), FilterError> {
    let valid_name = |name: &str| {
        let mut chars = name.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
            && Keyword::from_word(name).is_none()
    };
    if f.segments.is_empty() || !f.segments.iter().all(|s| valid_name(&s.name)) {
        return Err(FilterError::new(
            0,
            FilterErrorKind::Invalid("invalid field name"),
        ));
    }
    Ok(())
}

fn check_literal(l: &Literal) -> Result<(), FilterError> {
    let ok = match l {
        Literal::Float(v) => v.is_finite(),
        Literal::Char(c) => *c != '\'' && *c != '\n' && *c != '\r',
        Literal::Str(s) => s.chars().count() != 1 && !s.contains(['\'', '\n', '\r']),
        Literal::Bool(_) | Literal::Int(_) => true,
    };
    if ok {
        Ok(())
    } else {
        Err(FilterError::new(
            0,
            FilterErrorKind::Invalid("literal has no canonical text form"),
        ))
    }
}
