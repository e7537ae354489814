//! Tests of DDS-SQL evaluation: LIKE (against a naive reference), parameters and their
//! binding, and the reference evaluator (comparisons, promotions, missing fields, MATCH).

use std::collections::HashMap;

use proptest::prelude::*;

use super::*;

// ---- LIKE ----------------------------------------------------------------------------------

proptest! {
    #[test]
    fn like_agrees_with_naive_reference(text in "[ab%_é]{0,10}", pattern in "[ab%_*?é]{0,8}") {
        let t: Vec<char> = text.chars().collect();
        let p: Vec<char> = pattern.chars().collect();
        prop_assert_eq!(like_match(&text, &pattern), naive_like(&t, &p));
    }
}

fn naive_like(t: &[char], p: &[char]) -> bool {
    match p.split_first() {
        None => t.is_empty(),
        Some(('%' | '*', rest)) => (0..=t.len()).any(|i| naive_like(&t[i..], rest)),
        Some(('_' | '?', rest)) => !t.is_empty() && naive_like(&t[1..], rest),
        Some((c, rest)) => t.first() == Some(c) && naive_like(&t[1..], rest),
    }
}

#[test]
fn like_wildcards() {
    assert!(like_match("Alice", "A%_"));
    assert!(!like_match("A", "A%_"));
    assert!(like_match("", "%"));
    assert!(!like_match("", "_"));
    assert!(like_match("héllo", "h_llo"));
    assert!(like_match("héllo", "h?l*"));
    assert!(like_match("a.c", "a.c"));
    assert!(!like_match("abc", "a.c"), "'.' is literal, not a regex dot");
    assert!(!like_match("abc", "ABC"), "case-sensitive");
}

#[test]
fn like_pathological_pattern_is_fast() {
    let text = "a".repeat(5_000);
    let pattern = format!("{}b", "%a".repeat(200));
    assert!(!like_match(&text, &pattern));
}

// ---- parameters ----------------------------------------------------------------------------

#[test]
fn parameters_quoted_and_bare() {
    let p = |s: &str| parse_parameter(s).unwrap();
    assert_eq!(p("'RED'"), Literal::Str("RED".into()));
    assert_eq!(p("RED"), Literal::Str("RED".into()));
    assert_eq!(p("5"), Literal::Int(5));
    assert_eq!(p(" -0x10 "), Literal::Int(-16));
    assert_eq!(p("3.5"), Literal::Float(3.5));
    assert_eq!(p("'c'"), Literal::Char('c'));
    assert_eq!(p("TRUE"), Literal::Bool(true));
    assert_eq!(p("false"), Literal::Bool(false));
    assert_eq!(p("''"), Literal::Str(String::new()));
    assert_eq!(p(""), Literal::Str(String::new()));
    assert_eq!(p("it's"), Literal::Str("it's".into()));
    assert_eq!(p("two words"), Literal::Str("two words".into()));
    assert_eq!(p("'a' 'b'"), Literal::Str("'a' 'b'".into()));
    assert_eq!(p("12abc"), Literal::Str("12abc".into()));
    assert_eq!(p("%1"), Literal::Str("%1".into()));
    let long = "x".repeat(MAX_EXPRESSION_LEN + 1);
    assert_eq!(
        parse_parameter(&long).unwrap_err().kind,
        FilterErrorKind::TooLong
    );
    assert_eq!(parse_parameters(&["'a'", "b", "7"]).unwrap().len(), 3);
    assert!(parse_parameters(&vec!["1"; MAX_PARAMETERS + 1]).is_err());
}

#[test]
fn bind_substitutes_and_reports_missing_parameters_at_first_use() {
    let ast = parse("x = %0 AND y BETWEEN %2 AND %0");
    assert_eq!(ast.required_parameters(), 3);
    let e = ast.bind(&[Literal::Int(1), Literal::Int(2)]).unwrap_err();
    assert_eq!(
        (e.position, e.kind),
        (21, FilterErrorKind::MissingParameter(2))
    );
    let bound = ast
        .bind(&[Literal::Int(1), Literal::Int(2), Literal::Str("z".into())])
        .unwrap();
    assert_eq!(bound.to_string(), "(x = 1 AND y BETWEEN 'z' AND 1)");
    let like = parse("s LIKE %0");
    let e = like.bind(&[Literal::Int(3)]).unwrap_err();
    assert_eq!(e.position, 7);
    assert!(like.bind(&[Literal::Char('a')]).is_ok());
    assert_eq!(parse("a = 1").required_parameters(), 0);
}

// ---- reference evaluator -------------------------------------------------------------------

struct Sample(HashMap<String, Value>);

impl FieldSource for Sample {
    fn field(&self, path: &FieldPath) -> Option<Value> {
        self.0.get(&path.to_string()).cloned()
    }
}

fn sample() -> Sample {
    let mut m = HashMap::new();
    m.insert("color".into(), Value::Str("RED".into()));
    m.insert("shapesize".into(), Value::Int(20));
    m.insert("u".into(), Value::UInt(u64::MAX.into()));
    m.insert("neg".into(), Value::Int(-1));
    m.insert("d".into(), Value::Float(2.5));
    m.insert("f".into(), Value::Float32(0.1));
    m.insert("flag".into(), Value::Bool(true));
    m.insert("c".into(), Value::Char('x'));
    m.insert("kind".into(), Value::Enum("GREEN".into(), 1));
    m.insert("pos.xs[2]".into(), Value::Int(7));
    Sample(m)
}

fn eval_with(text: &str, params: &[&str]) -> Result<bool, EvalError> {
    let params = parse_parameters(params).unwrap();
    parse(text).bind(&params).unwrap().evaluate(&sample())
}

fn eval(text: &str) -> bool {
    eval_with(text, &[]).unwrap()
}

#[test]
fn evaluator_comparisons_and_promotions() {
    let truths = [
        "color = 'RED'",
        "'RED' = color",
        "color <> 'BLUE'",
        "shapesize <= 20",
        "shapesize < 20.5",
        "20 = shapesize",
        "shapesize BETWEEN 0x10 AND 20",
        "shapesize NOT BETWEEN 21 AND 30",
        "neg < u",
        "u > 0",
        "u = 18446744073709551615",
        "d > 2",
        "d = 2.5",
        "f = 0.1",
        "flag",
        "flag = TRUE",
        "flag = 1",
        "c = 'x'",
        "c < 'xa'",
        "kind = 'GREEN'",
        "kind <> 'RED'",
        "kind = 1",
        "kind < 2",
        "pos.xs[2] = 7",
        "color LIKE 'R%'",
        "c LIKE '_'",
        "NOT shapesize > 20",
        "shapesize = 1 OR color = 'RED' AND c = 'x'",
    ];
    for t in truths {
        assert!(eval(t), "{t} should be true");
    }
    let falsehoods = [
        "color = 'red'",
        "shapesize > 20",
        "neg > u",
        "flag = 0",
        "flag = 1.0",
        "color = 5",
        "kind < 'RED'",
        "d LIKE '2%'",
        "color LIKE 'R'",
    ];
    for t in falsehoods {
        assert!(!eval(t), "{t} should be false");
    }
}

#[test]
fn evaluator_missing_fields_never_pass_even_under_not() {
    for t in [
        "missing = 1",
        "missing <> 1",
        "NOT missing = 1",
        "missing",
        "NOT missing",
        "missing BETWEEN 1 AND 2",
        "missing NOT BETWEEN 1 AND 2",
        "NOT (color = 5)",
        "color = 'RED' AND missing = 1",
    ] {
        assert!(!eval(t), "{t} should not pass");
    }
    // Kleene: a known true OR unknown is true; a known false AND unknown is false.
    assert!(eval("missing = 1 OR color = 'RED'"));
    assert!(eval("NOT (missing = 1 AND color = 'BLUE')"));
}

#[test]
fn evaluator_with_parameters_quoted_and_bare() {
    assert!(eval_with("color = %0 AND shapesize < %1", &["'RED'", "30"]).unwrap());
    assert!(eval_with("color = %0 AND shapesize < %1", &["RED", "30"]).unwrap());
    assert!(eval_with("kind = %0", &["GREEN"]).unwrap());
    assert!(!eval_with("color = %0", &["BLUE"]).unwrap());
}

#[test]
fn match_is_a_whole_string_regular_expression() {
    // As Fast DDS's std::regex_match (docs/interop-facts.md §4.2): the pattern must cover the whole
    // value.
    assert_eq!(eval_with("color MATCH 'R.*'", &[]), Ok(true));
    assert_eq!(eval_with("color MATCH 'E'", &[]), Ok(false));
    assert_eq!(eval_with("color MATCH %0", &["'(RED|BLUE)'"]), Ok(true));
    assert_eq!(eval_with("NOT color MATCH '[a-z]+'", &[]), Ok(true));
    assert!(matches!(
        eval_with("color MATCH 'R(.*'", &[]),
        Err(EvalError::BadPattern(_))
    ));
    // Back-references (ECMAScript) are refused rather than silently mis-evaluated.
    assert!(matches!(
        eval_with("color MATCH '(R)\\1'", &[]),
        Err(EvalError::BadPattern(_))
    ));
}
