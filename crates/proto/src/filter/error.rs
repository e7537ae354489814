//! The one error type of the filter layer: a byte position in the expression text plus a kind.
//!
//! Must not: carry heap data or I/O errors; kinds use `&'static str` context only
//! (docs/conventions.md §4).

use core::fmt;

/// Why a filter expression or parameter was rejected.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FilterError {
    /// Byte offset in the text where the problem was found (0 when no text is involved,
    /// e.g. an [`Ast`](super::Ast) built with [`Ast::from_expr`](super::Ast::from_expr)).
    pub position: usize,
    /// What was wrong.
    pub kind: FilterErrorKind,
}

/// The kinds of [`FilterError`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FilterErrorKind {
    /// The text is longer than [`MAX_EXPRESSION_LEN`](super::MAX_EXPRESSION_LEN).
    TooLong,
    /// Nesting exceeds [`MAX_DEPTH`](super::MAX_DEPTH).
    TooDeep,
    /// The expression contains no condition.
    Empty,
    /// A character that starts no token.
    UnexpectedChar(char),
    /// A quoted literal without its closing `'` on the same line.
    UnterminatedString,
    /// Digits run into letters, or `0x` has no hex digits.
    MalformedNumber,
    /// An integer literal outside the range of `i128`, or an index outside `u32`.
    IntegerOutOfRange,
    /// A float literal that is not finite once parsed.
    FloatOutOfRange,
    /// `%` not followed by digits.
    MalformedParameter,
    /// A parameter number of 100 or more (DDS 1.4 Annex B allows `%0`..`%99`).
    ParameterOutOfRange,
    /// A different token was required; `after` names the token that was just read.
    Expected {
        /// What the grammar needs here ("a value", "')'", ...).
        expected: &'static str,
        /// The preceding token, if naming it helps ("'>'", "BETWEEN", ...).
        after: Option<&'static str>,
    },
    /// A structurally valid expression the grammar still forbids (the text says which rule).
    Invalid(&'static str),
    /// The expression refers to `%n` but fewer than `n + 1` parameters were supplied.
    MissingParameter(u8),
    /// A field path names no member of the type (the position is that of the unknown
    /// component when the expression text is known).
    UnknownField,
    /// Operand types that cannot be compared, or an operator the type does not support (the
    /// text says which rule; docs/interop-facts.md §4.2 type compatibility).
    TypeMismatch(&'static str),
    /// A string compared with an enum field is not one of the enum's labels.
    UnknownEnumLabel,
    /// A valid expression the compiled evaluator does not support (MATCH, a limit).
    Unsupported(&'static str),
}

impl fmt::Display for FilterErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLong => write!(
                f,
                "expression longer than {} bytes",
                super::MAX_EXPRESSION_LEN
            ),
            Self::TooDeep => write!(f, "nesting deeper than {} levels", super::MAX_DEPTH),
            Self::Empty => f.write_str("empty expression"),
            Self::UnexpectedChar(c) => write!(f, "unexpected character {c:?}"),
            Self::UnterminatedString => f.write_str("unterminated quoted literal"),
            Self::MalformedNumber => f.write_str("malformed number"),
            Self::IntegerOutOfRange => f.write_str("integer out of range"),
            Self::FloatOutOfRange => f.write_str("float out of range"),
            Self::MalformedParameter => f.write_str("expected digits after '%'"),
            Self::ParameterOutOfRange => f.write_str("parameter number above %99"),
            Self::Expected {
                expected,
                after: Some(after),
            } => {
                write!(f, "expected {expected} after {after}")
            }
            Self::Expected {
                expected,
                after: None,
            } => write!(f, "expected {expected}"),
            Self::Invalid(what) => f.write_str(what),
            Self::MissingParameter(n) => write!(f, "no value supplied for parameter %{n}"),
            Self::UnknownField => f.write_str("unknown field"),
            Self::TypeMismatch(what) => write!(f, "type mismatch: {what}"),
            Self::UnknownEnumLabel => f.write_str("not a label of the enum"),
            Self::Unsupported(what) => write!(f, "not supported: {what}"),
        }
    }
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.position, self.kind)
    }
}

impl std::error::Error for FilterError {}

impl FilterError {
    /// A new error at `position`.
    pub const fn new(position: usize, kind: FilterErrorKind) -> Self {
        Self { position, kind }
    }
}
