//! Tests for partition matching and the wildcard matcher.

// Test oracles index and count freely; docs/conventions.md §4 lints guard the production matcher.
#![allow(clippy::arithmetic_side_effects)]

use super::*;
use proptest::prelude::*;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn empty_lists_match_each_other_as_the_default_partition() {
    assert!(partitions_match(&[], &[]));
    assert!(partitions_match(&names(&[""]), &[]));
    assert!(partitions_match(&[], &names(&[""])));
}

#[test]
fn empty_list_does_not_match_a_named_partition() {
    assert!(!partitions_match(&[], &names(&["A"])));
    assert!(!partitions_match(&names(&["A"]), &[]));
}

#[test]
fn star_pattern_matches_the_default_partition() {
    // Cyclone `partitions_match_default`: a pattern matching "" matches an empty list.
    assert!(partitions_match(&names(&["*"]), &[]));
    assert!(!partitions_match(&names(&["?"]), &[]));
}

#[test]
fn lists_match_when_any_pair_matches() {
    assert!(partitions_match(&names(&["A", "B"]), &names(&["C", "B"])));
    assert!(!partitions_match(&names(&["A", "B"]), &names(&["C", "D"])));
}

#[test]
fn pattern_may_be_on_either_side() {
    assert!(partitions_match(
        &names(&["sensors/*"]),
        &names(&["sensors/temp"])
    ));
    assert!(partitions_match(
        &names(&["sensors/temp"]),
        &names(&["sensors/*"])
    ));
    assert!(!partitions_match(
        &names(&["sensors/*"]),
        &names(&["actuators/x"])
    ));
}

#[test]
fn two_patterns_never_match_even_if_identical() {
    assert!(!partition_names_match("A*", "A*"));
    assert!(!partition_names_match("A*", "A?"));
    assert!(!partition_names_match("[ab]", "[ab]"));
    assert!(!partitions_match(&names(&["*"]), &names(&["*"])));
}

#[test]
fn literals_compare_by_equality() {
    assert!(partition_names_match("A", "A"));
    assert!(!partition_names_match("A", "a"));
    assert!(
        partition_names_match("[x", "[x"),
        "unclosed bracket is a literal"
    );
    assert!(
        partition_names_match("a\\b", "a\\b"),
        "backslash is a literal"
    );
}

#[test]
fn pattern_detection() {
    assert!(is_pattern("*"));
    assert!(is_pattern("a?c"));
    assert!(is_pattern("[abc]"));
    assert!(is_pattern("x[y[]"));
    assert!(!is_pattern(""));
    assert!(!is_pattern("plain/name"));
    assert!(!is_pattern("[abc"));
    assert!(!is_pattern("[]"));
    assert!(!is_pattern("a]b"));
}

#[test]
fn star_and_question_mark() {
    assert!(wildcard_match("*", ""));
    assert!(wildcard_match("*", "anything"));
    assert!(wildcard_match("a*", "a"));
    assert!(wildcard_match("a*c", "abbbc"));
    assert!(!wildcard_match("a*c", "abbbd"));
    assert!(wildcard_match("*.txt", ".hidden.txt"), "no FNM_PERIOD");
    assert!(wildcard_match("a*b", "a/x/b"), "no FNM_PATHNAME");
    assert!(wildcard_match("??", "ab"));
    assert!(!wildcard_match("??", "abc"));
    assert!(!wildcard_match("?", ""));
    assert!(wildcard_match("a**b", "ab"));
    assert!(wildcard_match("*a*b*", "xxaxxbxx"));
    assert!(!wildcard_match("*a*b*", "xxbxxaxx"));
}

#[test]
fn bracket_expressions() {
    assert!(wildcard_match("[abc]", "b"));
    assert!(!wildcard_match("[abc]", "d"));
    assert!(wildcard_match("[a-c]x", "bx"));
    assert!(!wildcard_match("[a-c]x", "dx"));
    assert!(wildcard_match("[!a-c]", "d"));
    assert!(wildcard_match("[^a-c]", "d"));
    assert!(!wildcard_match("[!a-c]", "a"));
    assert!(wildcard_match("[]]", "]"));
    assert!(wildcard_match("[!]]", "a"));
    assert!(!wildcard_match("[!]]", "]"));
    assert!(wildcard_match("[a-]", "-"));
    assert!(wildcard_match("[-a]", "-"));
    assert!(!wildcard_match("[z-a]", "m"), "reversed range is empty");
    assert!(wildcard_match("[*?]", "*"));
    assert!(
        !wildcard_match("[*?]", "x"),
        "wildcards are literal inside brackets"
    );
}

#[test]
fn unclosed_bracket_is_literal() {
    assert!(wildcard_match("[ab", "[ab"));
    assert!(wildcard_match("*[", "xx["));
    assert!(!wildcard_match("[ab", "a"));
}

#[test]
fn matching_is_per_character_not_byte() {
    assert!(wildcard_match("?", "é"));
    assert!(wildcard_match("[à-ü]", "é"));
}

#[test]
fn over_long_inputs_never_match_a_pattern() {
    let long = "a".repeat(MAX_PATTERN_LEN + 1);
    assert!(!wildcard_match("*", &long));
    assert!(!wildcard_match(&format!("{long}*"), "a"));
    // ...but long literals still compare by equality.
    assert!(partition_names_match(&long, &long));
}

#[test]
fn pathological_pattern_finishes_quickly() {
    // Exponential for naive recursive matchers; quadratic-bounded here.
    let pattern = "a*".repeat(60) + "b";
    let name = "a".repeat(MAX_PATTERN_LEN);
    assert!(!wildcard_match(&pattern, &name));
    let pattern = format!("*{}*", "?".repeat(100));
    assert!(wildcard_match(&pattern, &name));
}

/// A deliberately naive recursive fnmatch (FNM_NOESCAPE) on short inputs, written
/// independently of the tokenizer, as an oracle.
fn reference_match(p: &[char], n: &[char]) -> bool {
    match p.first() {
        None => n.is_empty(),
        Some('*') => (0..=n.len()).any(|k| reference_match(&p[1..], &n[k..])),
        Some('?') => !n.is_empty() && reference_match(&p[1..], &n[1..]),
        Some('[') => {
            if let Some((set_len, negated, members)) = reference_class(&p[1..]) {
                let Some(&c) = n.first() else { return false };
                let mut hit = false;
                let mut i = 0;
                while i < members.len() {
                    if i + 2 < members.len() && members[i + 1] == '-' {
                        hit |= members[i] <= c && c <= members[i + 2];
                        i += 3;
                    } else {
                        hit |= members[i] == c;
                        i += 1;
                    }
                }
                hit != negated && reference_match(&p[1 + set_len..], &n[1..])
            } else if reference_open_range(&p[1..]) {
                false
            } else {
                n.first() == Some(&'[') && reference_match(&p[1..], &n[1..])
            }
        }
        Some(&l) => n.first() == Some(&l) && reference_match(&p[1..], &n[1..]),
    }
}

/// glibc's rule for an unterminated `[`: when its body ends in a range with no upper bound
/// (`[a-`, `[]-`), the whole match fails.
fn reference_open_range(p: &[char]) -> bool {
    let body = if matches!(p.first(), Some('!' | '^')) {
        &p[1..]
    } else {
        p
    };
    let mut i = 0;
    while i < body.len() {
        if i + 2 == body.len() && body[i + 1] == '-' {
            return true;
        }
        if i + 2 < body.len() && body[i + 1] == '-' {
            i += 3;
        } else {
            i += 1;
        }
    }
    false
}

#[test]
fn unterminated_bracket_ending_in_an_open_range_matches_nothing() {
    // glibc 2.36 fnmatch(.., FNM_NOESCAPE), which Fast DDS calls: each pair does not match.
    for (pattern, name) in [
        ("*[*-", "[-"),
        ("[a-", "[a-"),
        ("[ab-", "[ab-"),
        ("[]-", "[]-"),
    ] {
        assert!(!wildcard_match(pattern, name), "{pattern:?} vs {name:?}");
    }
    // ...while these do: the `-` is first, or follows a complete range.
    for (pattern, name) in [("[-", "[-"), ("[a-b-", "[a-b-"), ("*[!-", "[!-")] {
        assert!(wildcard_match(pattern, name), "{pattern:?} vs {name:?}");
    }
    // Partition names that are not patterns still match by equality.
    assert!(partition_names_match("[a-", "[a-"));
}

/// Returns (chars consumed after `[` including `]`, negated, members).
fn reference_class(p: &[char]) -> Option<(usize, bool, Vec<char>)> {
    let mut i = 0;
    let negated = matches!(p.first(), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let start = i;
    if p.get(i) == Some(&']') {
        i += 1;
    }
    while i < p.len() {
        if p[i] == ']' {
            return Some((i + 1, negated, p[start..i].to_vec()));
        }
        i += 1;
    }
    None
}

fn short_pattern() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop::sample::select(vec!['a', 'b', 'c', '*', '?', '[', ']', '!', '^', '-']),
        0..9,
    )
    .prop_map(|v| v.into_iter().collect())
}

fn short_name() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop::sample::select(vec!['a', 'b', 'c', '[', ']', '-', '*']),
        0..7,
    )
    .prop_map(|v| v.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn matcher_agrees_with_reference(pattern in short_pattern(), name in short_name()) {
        let p: Vec<char> = pattern.chars().collect();
        let n: Vec<char> = name.chars().collect();
        prop_assert_eq!(wildcard_match(&pattern, &name), reference_match(&p, &n));
    }

    #[test]
    fn literal_names_match_only_themselves(name in short_name(), other in short_name()) {
        // A literal with an unterminated `[` ending in an open range matches nothing as a
        // pattern (glibc's rule, see `dangling_range`); as a partition name it is compared by
        // equality.
        if !is_pattern(&name) && tokenize(&name.chars().collect::<Vec<_>>()).is_some() {
            prop_assert!(wildcard_match(&name, &name));
            prop_assert_eq!(wildcard_match(&name, &other), name == other);
        }
    }

    #[test]
    fn partition_matching_is_symmetric(
        a in proptest::collection::vec(short_pattern(), 0..3),
        b in proptest::collection::vec(short_pattern(), 0..3),
    ) {
        prop_assert_eq!(partitions_match(&a, &b), partitions_match(&b, &a));
    }
}

/// glibc's own fnmatch, the matcher Fast DDS uses on Linux, as a second oracle.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod glibc {
    use super::*;
    use std::ffi::{CString, c_char, c_int};

    const FNM_NOESCAPE: c_int = 1 << 1;

    unsafe extern "C" {
        fn fnmatch(pattern: *const c_char, string: *const c_char, flags: c_int) -> c_int;
    }

    fn glibc_match(pattern: &str, name: &str) -> bool {
        let p = CString::new(pattern).unwrap();
        let n = CString::new(name).unwrap();
        // SAFETY: both are valid NUL-terminated C strings that outlive the call.
        unsafe { fnmatch(p.as_ptr(), n.as_ptr(), FNM_NOESCAPE) == 0 }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn matcher_agrees_with_glibc_fnmatch(pattern in short_pattern(), name in short_name()) {
            prop_assert_eq!(wildcard_match(&pattern, &name), glibc_match(&pattern, &name));
        }
    }
}
