//! PARTITION matching: do a publisher's and a subscriber's partition lists share a partition,
//! where names may be fnmatch-style patterns (`*`, `?`, `[...]`).
//!
//! Must not: recurse, allocate more than the (bounded) input, or panic: names come from remote
//! SEDP data. Partition mismatch is not an RxO incompatibility (DDS 1.4 §2.2.3.13), so this is
//! separate from `matching::check_compatibility`.
//!
//! # Overview
//! DDS 1.4 §2.2.3.13: an empty list means the default partition `""`; two lists match if some
//! name of one matches some name of the other; either side may hold a pattern (POSIX fnmatch),
//! but two patterns never match each other. Interop (docs/interop-facts.md §5.4 area):
//! * Fast DDS calls `fnmatch(.., FNM_NOESCAPE)` in both directions (so it *does* match `A*`
//!   against `A*`); Cyclone treats names with `*`/`?` as patterns and never matches two of
//!   them. We follow the spec and Cyclone on pattern-vs-pattern.
//! * Backslash is an ordinary character (FNM_NOESCAPE, as Fast DDS); `[!..]` and `[^..]`
//!   negate; `]` first in a set is literal; `-` first or last is literal; a `[` without a
//!   closing `]` is a literal `[`, unless its body ends in an open range (`[a-`): then, as
//!   in glibc, the pattern matches nothing; `*` and `?` match `/` and leading `.` (no flags). POSIX
//!   character classes (`[[:alpha:]]`) are not supported. Matching is per Unicode scalar.
//! * A name is a pattern if it contains `*`, `?` or a complete bracket expression.

/// Pattern matching is refused (no match) when the pattern or the name is longer than this many
/// bytes; it bounds the O(pattern × name) worst case. Literal names of any length still compare
/// by equality.
pub const MAX_PATTERN_LEN: usize = 256;

/// True if the partition lists `offered` (publisher) and `requested` (subscriber) share a
/// partition. Symmetric. Empty lists mean `[""]` (DDS 1.4 §2.2.3.13).
pub fn partitions_match(offered: &[String], requested: &[String]) -> bool {
    const DEFAULT: &[&str] = &[""];
    let a: Vec<&str> = offered.iter().map(String::as_str).collect();
    let b: Vec<&str> = requested.iter().map(String::as_str).collect();
    let a = if a.is_empty() { DEFAULT } else { a.as_slice() };
    let b = if b.is_empty() { DEFAULT } else { b.as_slice() };
    a.iter()
        .any(|x| b.iter().any(|y| partition_names_match(x, y)))
}

/// True if two partition names match: equal literals, or exactly one is a pattern that matches
/// the other (DDS 1.4 §2.2.3.13: two patterns never match).
pub fn partition_names_match(a: &str, b: &str) -> bool {
    match (is_pattern(a), is_pattern(b)) {
        (false, false) => a == b,
        (true, false) => wildcard_match(a, b),
        (false, true) => wildcard_match(b, a),
        (true, true) => false,
    }
}

/// True if `name` contains a wildcard: `*`, `?`, or a complete `[...]` bracket expression.
pub fn is_pattern(name: &str) -> bool {
    if name.contains(['*', '?']) {
        return true;
    }
    let chars: Vec<char> = name.chars().collect();
    let mut rest = chars.as_slice();
    while let Some(pos) = rest.iter().position(|&c| c == '[') {
        let Some(after) = rest.get(pos.saturating_add(1)..) else {
            return false;
        };
        if parse_class(after).is_some() {
            return true;
        }
        rest = after;
    }
    false
}

/// fnmatch(`pattern`, `name`, FNM_NOESCAPE): true if `name` matches `pattern` (see the module
/// overview for the exact syntax). False if either exceeds [`MAX_PATTERN_LEN`] bytes.
pub fn wildcard_match(pattern: &str, name: &str) -> bool {
    if pattern.len() > MAX_PATTERN_LEN || name.len() > MAX_PATTERN_LEN {
        return false;
    }
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    match tokenize(&pattern) {
        Some(tokens) => match_tokens(&tokens, &name),
        None => false,
    }
}

/// One element of a parsed pattern.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Token<'a> {
    /// Matches exactly this character.
    Literal(char),
    /// `?`: any one character.
    AnyOne,
    /// `*`: any sequence, including the empty one.
    Star,
    /// `[...]`: one character in (or, if negated, not in) `members`.
    Class { negated: bool, members: &'a [char] },
}

impl Token<'_> {
    /// True if this single-character token accepts `c` (never called for `Star`).
    fn accepts(self, c: char) -> bool {
        match self {
            Token::Literal(l) => l == c,
            Token::AnyOne => true,
            Token::Star => false,
            Token::Class { negated, members } => class_contains(members, c) != negated,
        }
    }
}

/// The pattern's tokens, or `None` if the pattern matches nothing (see [`dangling_range`]).
fn tokenize(pattern: &[char]) -> Option<Vec<Token<'_>>> {
    let mut tokens = Vec::with_capacity(pattern.len());
    let mut rest = pattern;
    loop {
        rest = match rest {
            [] => return Some(tokens),
            ['*', tail @ ..] => {
                // Consecutive stars are one star.
                if tokens.last() != Some(&Token::Star) {
                    tokens.push(Token::Star);
                }
                tail
            }
            ['?', tail @ ..] => {
                tokens.push(Token::AnyOne);
                tail
            }
            ['[', tail @ ..] => match parse_class(tail) {
                Some((class, after)) => {
                    tokens.push(class);
                    after
                }
                None if dangling_range(tail) => return None,
                None => {
                    tokens.push(Token::Literal('['));
                    tail
                }
            },
            [c, tail @ ..] => {
                tokens.push(Token::Literal(*c));
                tail
            }
        };
    }
}

/// Parses the bracket expression whose `[` has just been consumed. Returns the class and the
/// input after its `]`, or `None` if there is no closing `]` (then `[` is a literal).
fn parse_class(after_open: &[char]) -> Option<(Token<'_>, &[char])> {
    let (negated, body) = match after_open {
        ['!' | '^', body @ ..] => (true, body),
        body => (false, body),
    };
    // A `]` right after `[` or `[!` is a member, not the end.
    let skip = usize::from(body.first() == Some(&']'));
    let close = body
        .iter()
        .skip(skip)
        .position(|&c| c == ']')?
        .checked_add(skip)?;
    let (members, from_close) = body.split_at_checked(close)?;
    let after = from_close.get(1..)?;
    Some((Token::Class { negated, members }, after))
}

/// True if an unterminated bracket expression (`after_open` runs to the end of the pattern)
/// ends in a range with no upper bound, as `[a-`, `[ab-` or `[]-`: glibc's fnmatch, which
/// Fast DDS calls, then fails the whole match instead of reading the `[` as a literal
/// (checked against glibc 2.36: `fnmatch("[*-", "[-", FNM_NOESCAPE)` does not match, while
/// `"[-"` and `"[a-b-"` match themselves). We agree with it so both sides of a Fast DDS
/// match decide alike.
fn dangling_range(after_open: &[char]) -> bool {
    let body = match after_open {
        ['!' | '^', body @ ..] => body,
        body => body,
    };
    let mut rest = body;
    loop {
        rest = match rest {
            [] => return false,
            [_, '-'] => return true,
            [_, '-', _, tail @ ..] => tail,
            [_, tail @ ..] => tail,
        };
    }
}

/// Membership in a bracket body: `a-z` is an inclusive range, a `-` that cannot form a range
/// is literal. A reversed range (`z-a`) contains nothing.
fn class_contains(members: &[char], c: char) -> bool {
    let mut rest = members;
    loop {
        rest = match rest {
            [] => return false,
            [lo, '-', hi, tail @ ..] => {
                if *lo <= c && c <= *hi {
                    return true;
                }
                tail
            }
            [m, tail @ ..] => {
                if *m == c {
                    return true;
                }
                tail
            }
        };
    }
}

/// Iterative glob match with single-star backtracking: on a mismatch, retry from the last `*`
/// with it swallowing one more character. At most `tokens × name` steps, no recursion.
fn match_tokens(tokens: &[Token<'_>], name: &[char]) -> bool {
    let (mut t, mut n) = (0usize, 0usize);
    // (token index after the last star, name index that star's match ends at)
    let mut backtrack: Option<(usize, usize)> = None;
    loop {
        match (tokens.get(t), name.get(n)) {
            (Some(Token::Star), _) => {
                t = t.saturating_add(1);
                backtrack = Some((t, n));
                continue;
            }
            (Some(tok), Some(&c)) if tok.accepts(c) => {
                t = t.saturating_add(1);
                n = n.saturating_add(1);
                continue;
            }
            (None, None) => return true,
            _ => {}
        }
        // Mismatch: let the last star absorb one more character, if any are left.
        match backtrack {
            Some((bt, bn)) if bn < name.len() => {
                let bn = bn.saturating_add(1);
                backtrack = Some((bt, bn));
                t = bt;
                n = bn;
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests;
