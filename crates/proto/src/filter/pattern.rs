//! MATCH patterns: the vendor-extension operator `field MATCH 'regex'` (RTI, Fast DDS; not in
//! DDS 1.4 Annex B, docs/interop-facts.md §4.1), matched against the whole string as Fast DDS's
//! `std::regex_match` does (docs/interop-facts.md §4.2).
//!
//! Must not: backtrack, or let a pattern from a remote reader cost unbounded memory or time.
//! The `regex` crate matches in time linear in the text and refuses patterns whose compiled
//! form exceeds [`MAX_PATTERN_PROGRAM`] bytes or nests deeper than [`MAX_PATTERN_NEST`].
//!
//! Differences from Fast DDS (ECMAScript grammar): backreferences and look-around are not
//! supported and make the filter fail to compile (so the writer sends that reader everything,
//! RTPS 2.5 §8.7.3 allows it, and the reader filters itself); classes such as `\d` and `\w`
//! are Unicode-aware.

use regex::{Regex, RegexBuilder};

use super::error::FilterErrorKind;

/// Largest compiled MATCH program (and lazy-DFA cache) one pattern may use, in bytes.
pub const MAX_PATTERN_PROGRAM: usize = 256 * 1024;

/// Deepest nesting of groups and repetitions in a MATCH pattern.
pub const MAX_PATTERN_NEST: u32 = 32;

/// A compiled MATCH pattern, anchored at both ends.
#[derive(Clone, Debug)]
pub struct MatchPattern(Regex);

impl MatchPattern {
    /// Compiles `pattern` (the text of the string literal or parameter).
    pub fn new(pattern: &str) -> Result<Self, FilterErrorKind> {
        RegexBuilder::new(&format!("^(?:{pattern})$"))
            .size_limit(MAX_PATTERN_PROGRAM)
            .dfa_size_limit(MAX_PATTERN_PROGRAM)
            .nest_limit(MAX_PATTERN_NEST)
            .build()
            .map(MatchPattern)
            .map_err(|e| match e {
                regex::Error::CompiledTooBig(_) => {
                    FilterErrorKind::Unsupported("MATCH pattern too large")
                }
                _ => FilterErrorKind::Invalid("MATCH pattern is not a valid regular expression"),
            })
    }

    /// Whether the whole of `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        self.0.is_match(text)
    }
}
