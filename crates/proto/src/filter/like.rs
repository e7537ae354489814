//! LIKE pattern matching (DDS 1.4 Annex B `like` RelOp): `%` matches any run of characters,
//! `_` exactly one; Fast DDS also accepts `*` and `?` for the same (docs/interop-facts.md §4.2).
//! Matching is on whole strings, case-sensitive, over Unicode scalar values.
//!
//! Must not: backtrack exponentially or allocate. Uses the classic two-pointer wildcard
//! algorithm, which remembers only the last `%` seen: O(|text| × |pattern|) worst case,
//! linear in typical use.
//!
//! Differences from Fast DDS, which turns the pattern into a std::regex without escaping:
//! other regex metacharacters (`.`, `[`, `+`, ...) are literal characters here. There is no
//! escape character (none in DDS 1.4), so `%`, `_`, `*`, `?` cannot be matched literally.

fn is_any_run(c: char) -> bool {
    c == '%' || c == '*'
}

fn is_any_one(c: char) -> bool {
    c == '_' || c == '?'
}

/// The string after its first char, and that char.
fn split_first(s: &str) -> Option<(char, &str)> {
    let mut chars = s.chars();
    chars.next().map(|c| (c, chars.as_str()))
}

/// Whether the whole of `text` matches the LIKE `pattern`.
pub fn like_match(text: &str, pattern: &str) -> bool {
    let (mut t, mut p) = (text, pattern);
    // After the last `%`: the pattern following it, and the text position it now covers up to.
    let mut star: Option<(&str, &str)> = None;
    while let Some((tc, t_rest)) = split_first(t) {
        match split_first(p) {
            Some((pc, p_rest)) if is_any_run(pc) => {
                star = Some((p_rest, t));
                p = p_rest;
            }
            Some((pc, p_rest)) if is_any_one(pc) || pc == tc => {
                p = p_rest;
                t = t_rest;
            }
            _ => match star {
                // Let the last `%` swallow one more character and retry from there.
                Some((p_after, t_at)) => {
                    let Some((_, t_next)) = split_first(t_at) else {
                        return false;
                    };
                    star = Some((p_after, t_next));
                    p = p_after;
                    t = t_next;
                }
                None => return false,
            },
        }
    }
    p.chars().all(is_any_run)
}
