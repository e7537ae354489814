//! The fixed vocabulary of DDS-SQL shared by the lexer (which produces it) and the AST (which
//! prints it): reserved words and comparison operators, with their canonical spellings.
//!
//! Must not: depend on any other filter module (it is the leaf both `lexer` and `ast` import).
//!
//! DDS 1.4 Annex B (keywords, RelOp) plus the vendor extensions of docs/interop-facts.md §4.1/§4.2 (`!=`,
//! `MATCH`, `TRUE`/`FALSE`).

/// Reserved words of DDS-SQL (DDS 1.4 Annex B plus `MATCH`, `TRUE`, `FALSE`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Keyword {
    /// `AND`
    And,
    /// `OR`
    Or,
    /// `NOT`
    Not,
    /// `BETWEEN`
    Between,
    /// `LIKE`
    Like,
    /// `MATCH` (vendor extension)
    Match,
    /// `TRUE` (vendor extension)
    True,
    /// `FALSE` (vendor extension)
    False,
}

impl Keyword {
    const ALL: [Keyword; 8] = [
        Keyword::And,
        Keyword::Or,
        Keyword::Not,
        Keyword::Between,
        Keyword::Like,
        Keyword::Match,
        Keyword::True,
        Keyword::False,
    ];

    /// Canonical (upper-case) spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Keyword::And => "AND",
            Keyword::Or => "OR",
            Keyword::Not => "NOT",
            Keyword::Between => "BETWEEN",
            Keyword::Like => "LIKE",
            Keyword::Match => "MATCH",
            Keyword::True => "TRUE",
            Keyword::False => "FALSE",
        }
    }

    /// The keyword spelled by `word`, ignoring ASCII case.
    pub fn from_word(word: &str) -> Option<Keyword> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(word))
    }
}

/// Comparison operators (DDS 1.4 Annex B RelOp, plus `!=` and MATCH).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RelOp {
    /// `=`
    Eq,
    /// `<>` or `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `LIKE`: `%`/`*` match any run, `_`/`?` one character.
    Like,
    /// `MATCH`: regular expression over the whole string (vendor extension; [`super::MatchPattern`]).
    Match,
}

impl RelOp {
    /// Canonical spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            RelOp::Eq => "=",
            RelOp::Ne => "<>",
            RelOp::Lt => "<",
            RelOp::Le => "<=",
            RelOp::Gt => ">",
            RelOp::Ge => ">=",
            RelOp::Like => "LIKE",
            RelOp::Match => "MATCH",
        }
    }

    /// Whether the right operand is a pattern (LIKE, MATCH).
    pub const fn is_pattern(self) -> bool {
        matches!(self, RelOp::Like | RelOp::Match)
    }
}
