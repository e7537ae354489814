//! Tests for the DDS-SQL front end: lexer, parser (tables, precedence, limits, round trip),
//! parameters, LIKE, and the reference evaluator.

use std::collections::HashMap;

use proptest::prelude::*;

use super::ast::compare_rule;
use super::*;

/// The first 60 chars of `text`, for assertion messages.
fn head(text: &str) -> String {
    text.chars().take(60).collect()
}

fn parse(text: &str) -> Ast {
    Ast::parse(text).unwrap_or_else(|e| panic!("{:?} failed: {e}", head(text)))
}

fn err(text: &str) -> FilterError {
    match Ast::parse(text) {
        Ok(ast) => panic!("{:?} parsed as {}", head(text), head(&ast.to_string())),
        Err(e) => e,
    }
}

fn assert_round_trip(ast: &Ast) {
    let printed = ast.to_string();
    let again = parse(&printed);
    assert!(again == *ast, "{} re-parsed differently", head(&printed));
    assert_eq!(again.to_string(), printed);
}

// ---- lexer ---------------------------------------------------------------------------------

#[test]
fn lexer_reads_every_token_kind_with_positions() {
    let toks = tokenize("a.b[0x1F] <> -12 != 3.5e-2 `str' 'c' %7 , and").unwrap();
    let kinds: Vec<_> = toks.iter().map(|t| (t.kind, t.position)).collect();
    assert_eq!(
        kinds,
        vec![
            (TokenKind::Ident("a"), 0),
            (TokenKind::Dot, 1),
            (TokenKind::Ident("b"), 2),
            (TokenKind::LBracket, 3),
            (TokenKind::Int(31), 4),
            (TokenKind::RBracket, 8),
            (TokenKind::Op(RelOp::Ne), 10),
            (TokenKind::Int(-12), 13),
            (TokenKind::Op(RelOp::Ne), 17),
            (TokenKind::Float(0.035), 20),
            (TokenKind::Str("str"), 27),
            (TokenKind::Char('c'), 33),
            (TokenKind::Param(7), 37),
            (TokenKind::Comma, 40),
            (TokenKind::Keyword(Keyword::And), 42),
            (TokenKind::End, 45),
        ]
    );
}

#[test]
fn lexer_numbers() {
    fn one(s: &str) -> Result<Option<TokenKind<'_>>, FilterError> {
        tokenize(s).map(|t| t.first().map(|t| t.kind))
    }
    assert_eq!(one("1.").unwrap(), Some(TokenKind::Float(1.0)));
    assert_eq!(one("1e3").unwrap(), Some(TokenKind::Float(1000.0)));
    assert_eq!(one("+2E+2").unwrap(), Some(TokenKind::Float(200.0)));
    assert_eq!(one("-0x10").unwrap(), Some(TokenKind::Int(-16)));
    assert_eq!(one("0XfF").unwrap(), Some(TokenKind::Int(255)));
    assert_eq!(
        one("18446744073709551615").unwrap(),
        Some(TokenKind::Int(u64::MAX.into()))
    );
    let kind = |s: &str| tokenize(s).unwrap_err().kind;
    assert_eq!(kind("0x"), FilterErrorKind::MalformedNumber);
    assert_eq!(kind("12abc"), FilterErrorKind::MalformedNumber);
    assert_eq!(kind("1.2.3"), FilterErrorKind::MalformedNumber);
    assert_eq!(kind("1e999"), FilterErrorKind::FloatOutOfRange);
    assert_eq!(kind(&"9".repeat(50)), FilterErrorKind::IntegerOutOfRange);
    assert_eq!(kind("%100"), FilterErrorKind::ParameterOutOfRange);
    assert_eq!(kind("%"), FilterErrorKind::MalformedParameter);
    assert_eq!(kind("'abc"), FilterErrorKind::UnterminatedString);
    assert_eq!(kind("'ab\nc'"), FilterErrorKind::UnterminatedString);
    assert_eq!(kind("a ! b"), FilterErrorKind::UnexpectedChar('!'));
    assert_eq!(kind("a = é"), FilterErrorKind::UnexpectedChar('é'));
}

#[test]
fn lexer_rejects_overlong_input() {
    let long = format!("a = '{}'", "x".repeat(MAX_EXPRESSION_LEN));
    assert_eq!(err(&long).kind, FilterErrorKind::TooLong);
}

// ---- parser: tables ------------------------------------------------------------------------

#[test]
fn valid_expressions_parse_print_canonically_and_round_trip() {
    let table: &[(&str, &str)] = &[
        // DDS 1.4 Annex B (the WHERE part of its TopicExpression example) and BNF forms.
        ("height < 1000 AND x < 23", "(height < 1000 AND x < 23)"),
        ("x > %0", "x > %0"),
        ("%1 <= a.b.c", "%1 <= a.b.c"),
        ("a = b", "a = b"),
        ("x BETWEEN 1 AND 5", "x BETWEEN 1 AND 5"),
        ("x NOT BETWEEN %0 AND %1", "x NOT BETWEEN %0 AND %1"),
        ("s LIKE 'abc%'", "s LIKE 'abc%'"),
        ("e = 'RED'", "e = 'RED'"),
        ("c = 'z'", "c = 'z'"),
        ("c = `quoted'", "c = 'quoted'"),
        // Shapes demo / Fast DDS docs style.
        ("color = %0", "color = %0"),
        ("shapesize <= 20", "shapesize <= 20"),
        (
            "color = 'RED' and shapesize > 40",
            "(color = 'RED' AND shapesize > 40)",
        ),
        ("message MATCH 'hello.*'", "message MATCH 'hello.*'"),
        (
            "flag = TRUE OR other != false",
            "(flag = TRUE OR other <> FALSE)",
        ),
        ("arr[3] = 0x10", "arr[3] = 16"),
        ("m[1][0x2].n[3] >= -1.5e3", "m[1][2].n[3] >= -1500.0"),
        ("enabled", "enabled"),
        ("NOT enabled AND x = 1", "(NOT enabled AND x = 1)"),
        (
            "x > 10 AND y < 5 OR NOT (a.b[2] BETWEEN 1 AND 0x10)",
            "((x > 10 AND y < 5) OR NOT a.b[2] BETWEEN 1 AND 16)",
        ),
        ("name LIKE 'A%_'", "name LIKE 'A%_'"),
        ("name like %3", "name LIKE %3"),
        (
            "a = 1 aNd b = 2 Or NoT c = 3",
            "((a = 1 AND b = 2) OR NOT c = 3)",
        ),
        ("x bEtWeEn 1 AnD 2", "x BETWEEN 1 AND 2"),
        ("((((a = 1))))", "a = 1"),
        ("(a = 1 OR b = 2) AND c = 3", "((a = 1 OR b = 2) AND c = 3)"),
        ("NOT NOT a", "NOT NOT a"),
        (
            "x = 1.0 AND y = 0.000001 AND z = 1e20",
            "(x = 1.0 AND y = 1e-6 AND z = 1e20)",
        ),
        ("s = ''", "s = ''"),
        ("  x=1  ", "x = 1"),
        ("_a1.B_2 <> 'multi word'", "_a1.B_2 <> 'multi word'"),
    ];
    for (input, canonical) in table {
        let ast = parse(input);
        assert_eq!(ast.to_string(), *canonical, "input {input:?}");
        assert_round_trip(&ast);
    }
}

#[test]
fn invalid_expressions_report_position_and_kind() {
    use FilterErrorKind as K;
    let expected = |expected, after| K::Expected { expected, after };
    let table: &[(&str, usize, FilterErrorKind)] = &[
        ("", 0, K::Empty),
        ("   ", 3, K::Empty),
        ("x >", 3, expected("a value", Some("'>'"))),
        ("x > AND y = 1", 4, expected("a value", Some("'>'"))),
        ("x = 1 AND", 9, expected("a condition", Some("AND"))),
        (
            "x = 1 y = 2",
            6,
            expected("AND, OR or end of expression", Some("a number")),
        ),
        ("(x = 1", 6, expected("')'", Some("a number"))),
        (
            "x = 1)",
            5,
            expected("AND, OR or end of expression", Some("a number")),
        ),
        ("5", 1, expected("a comparison operator", Some("a number"))),
        (
            "5 = 6",
            4,
            K::Invalid("a comparison needs a field on at least one side"),
        ),
        (
            "%0 = 'a'",
            5,
            K::Invalid("a comparison needs a field on at least one side"),
        ),
        ("x BETWEEN 1", 11, expected("AND", Some("a number"))),
        (
            "x BETWEEN y AND 2",
            10,
            K::Invalid("BETWEEN bounds must be literals or parameters"),
        ),
        (
            "5 BETWEEN 1 AND 2",
            0,
            K::Invalid("BETWEEN needs a field on the left"),
        ),
        ("x NOT LIKE 'a'", 6, expected("BETWEEN", Some("NOT"))),
        (
            "x LIKE 5",
            7,
            K::Invalid("LIKE and MATCH need a string pattern on the right"),
        ),
        (
            "'a' LIKE x",
            0,
            K::Invalid("LIKE and MATCH need a field on the left"),
        ),
        ("a. = 1", 3, expected("a field name", Some("'.'"))),
        ("a[x] = 1", 2, expected("an index", Some("'['"))),
        ("a[1 = 1", 4, expected("']'", Some("a number"))),
        ("a[-1] = 1", 2, K::IntegerOutOfRange),
        ("a[0x100000000] = 1", 2, K::IntegerOutOfRange),
        ("x = %100", 4, K::ParameterOutOfRange),
        ("x = 'open", 4, K::UnterminatedString),
        ("x = 1 AND y ! 2", 12, K::UnexpectedChar('!')),
        ("AND = 1", 0, expected("a condition", None)),
        ("x = 1 OR OR", 9, expected("a condition", Some("OR"))),
        ("()", 1, expected("a condition", Some("'('"))),
    ];
    for (input, position, kind) in table {
        let e = err(input);
        assert_eq!(
            (e.position, e.kind),
            (*position, *kind),
            "input {input:?}: {e}"
        );
    }
}

#[test]
fn error_display_names_position_and_previous_token() {
    assert_eq!(
        err("shapesize > ").to_string(),
        "at 12: expected a value after '>'"
    );
    assert_eq!(
        err("x = %100").to_string(),
        "at 4: parameter number above %99"
    );
}

// ---- parser: precedence and limits ---------------------------------------------------------

#[test]
fn and_binds_tighter_than_or_and_not_tighter_than_and() {
    assert_eq!(parse("a OR b AND c"), parse("a OR (b AND c)"));
    assert_eq!(parse("a AND b OR c"), parse("(a AND b) OR c"));
    assert_eq!(parse("NOT a AND b"), parse("(NOT a) AND b"));
    assert_eq!(
        parse("NOT a OR b AND NOT c"),
        parse("(NOT a) OR (b AND (NOT c))")
    );
    assert_ne!(parse("a OR b AND c"), parse("(a OR b) AND c"));
    // BETWEEN consumes its own AND.
    assert_eq!(
        parse("x BETWEEN 1 AND 2 AND y").to_string(),
        "(x BETWEEN 1 AND 2 AND y)"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // 10,000 levels do not fit in MAX_EXPRESSION_LEN; the length check rejects them first.
    let deep = format!("{}a = 1{}", "(".repeat(10_000), ")".repeat(10_000));
    assert_eq!(err(&deep).kind, FilterErrorKind::TooLong);
    // As deep as fits in the length limit: the depth guard fires at the first level too many.
    let deep = format!("{}a = 1{}", "(".repeat(4_000), ")".repeat(4_000));
    assert_eq!(
        (err(&deep).position, err(&deep).kind),
        (MAX_DEPTH, FilterErrorKind::TooDeep)
    );
    let nots = format!("{}a", "NOT ".repeat(2_000));
    assert_eq!(err(&nots).kind, FilterErrorKind::TooDeep);
    let at_limit = format!("{}a = 1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
    assert!(Ast::parse(&at_limit).is_ok());
    let over = format!(
        "{}a = 1{}",
        "(".repeat(MAX_DEPTH + 1),
        ")".repeat(MAX_DEPTH + 1)
    );
    assert_eq!(err(&over).kind, FilterErrorKind::TooDeep);
    // Tree height is bounded too: alternating AND/OR inside parentheses.
    let mut text = String::from("a");
    for i in 0..MAX_DEPTH {
        text = format!("(b{i} {} {text})", if i % 2 == 0 { "OR" } else { "AND" });
    }
    assert_round_trip(&parse(&text));
    assert_eq!(err(&format!("NOT {text}")).kind, FilterErrorKind::TooDeep);
}

#[test]
fn long_flat_chains_are_fine() {
    let chain = vec!["a=1"; 1000].join(" AND ");
    let Expr::And(items) = parse(&chain).root().clone() else {
        panic!("not an AND")
    };
    assert_eq!(items.len(), 1000);
    // The canonical form is longer than the input; keep it under the limit for the round trip.
    let ast = parse(&vec!["a=1"; 500].join(" or "));
    assert_round_trip(&ast);
}

#[test]
fn field_path_parses_alone() {
    let p = FieldPath::parse("a.b[2][0x3].c").unwrap();
    assert_eq!(p.segments.len(), 3);
    assert_eq!(p.segments[1].indices, vec![2, 3]);
    assert_eq!(p.to_string(), "a.b[2][3].c");
    assert!(FieldPath::parse("a.").is_err());
    assert!(FieldPath::parse("a b").is_err());
}

#[test]
fn from_expr_rejects_what_the_parser_cannot_produce() {
    let field = |n: &str| FieldPath {
        segments: vec![PathSegment {
            name: n.into(),
            indices: vec![],
        }],
    };
    let pred = |p| Expr::Predicate(p);
    assert!(Ast::from_expr(Expr::And(vec![pred(Predicate::Bool(field("a")))])).is_err());
    assert!(Ast::from_expr(pred(Predicate::Bool(field("and")))).is_err());
    assert!(Ast::from_expr(pred(Predicate::Bool(field("1a")))).is_err());
    let lit = |l| Operand::Literal(l);
    let cmp = |l| {
        pred(Predicate::Compare {
            lhs: Operand::Field(field("a")),
            op: RelOp::Eq,
            rhs: lit(l),
        })
    };
    assert!(Ast::from_expr(cmp(Literal::Str("x".into()))).is_err());
    assert!(Ast::from_expr(cmp(Literal::Str("it's".into()))).is_err());
    assert!(Ast::from_expr(cmp(Literal::Float(f64::NAN))).is_err());
    assert!(Ast::from_expr(cmp(Literal::Char('x'))).is_ok());
    let mut deep = pred(Predicate::Bool(field("a")));
    for _ in 0..=MAX_DEPTH {
        deep = Expr::Not(Box::new(deep));
    }
    assert_eq!(
        Ast::from_expr(deep).unwrap_err().kind,
        FilterErrorKind::TooDeep
    );
}

// ---- round-trip proptest -------------------------------------------------------------------

fn ident() -> impl Strategy<Value = String> {
    "[a-zA-Z_][a-zA-Z0-9_]{0,6}".prop_filter("keyword", |s| Keyword::from_word(s).is_none())
}

fn field_path() -> impl Strategy<Value = FieldPath> {
    let segment = (ident(), prop::collection::vec(any::<u32>(), 0..3))
        .prop_map(|(name, indices)| PathSegment { name, indices });
    prop::collection::vec(segment, 1..4).prop_map(|segments| FieldPath { segments })
}

fn literal() -> impl Strategy<Value = Literal> {
    let text_char = any::<char>().prop_filter("quote", |c| !matches!(c, '\'' | '\n' | '\r'));
    prop_oneof![
        any::<bool>().prop_map(Literal::Bool),
        any::<i128>().prop_map(Literal::Int),
        any::<i64>().prop_map(|v| Literal::Int(v.into())),
        any::<f64>()
            .prop_filter("finite", |v| v.is_finite())
            .prop_map(Literal::Float),
        text_char.clone().prop_map(Literal::Char),
        prop::collection::vec(text_char, 0..8)
            .prop_filter("one char is a Char", |v| v.len() != 1)
            .prop_map(|v| Literal::Str(v.into_iter().collect())),
    ]
}

fn value() -> impl Strategy<Value = Operand<ParamIndex>> {
    prop_oneof![
        literal().prop_map(Operand::Literal),
        (0u8..100)
            .prop_filter_map("range", ParamIndex::new)
            .prop_map(Operand::Param),
    ]
}

fn operand() -> impl Strategy<Value = Operand<ParamIndex>> {
    prop_oneof![field_path().prop_map(Operand::Field), value()]
}

fn rel_op() -> impl Strategy<Value = RelOp> {
    use RelOp::*;
    prop::sample::select(vec![Eq, Ne, Lt, Le, Gt, Ge, Like, Match])
}

fn predicate() -> impl Strategy<Value = Predicate<ParamIndex>> {
    prop_oneof![
        (operand(), rel_op(), operand())
            .prop_filter("grammar", |(l, op, r)| compare_rule(l, *op, r).is_none())
            .prop_map(|(lhs, op, rhs)| Predicate::Compare { lhs, op, rhs }),
        (field_path(), any::<bool>(), value(), value()).prop_map(|(field, negated, low, high)| {
            Predicate::Between {
                field,
                negated,
                low,
                high,
            }
        }),
        field_path().prop_map(Predicate::Bool),
    ]
}

fn expr() -> impl Strategy<Value = Expr<ParamIndex>> {
    predicate()
        .prop_map(Expr::Predicate)
        .prop_recursive(6, 48, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 2..5).prop_map(Expr::Or),
                prop::collection::vec(inner.clone(), 2..5).prop_map(Expr::And),
                inner.prop_map(|e| Expr::Not(Box::new(e))),
            ]
        })
}

proptest! {
    #[test]
    fn printed_ast_reparses_to_the_same_ast(root in expr()) {
        let ast = Ast::from_expr(root).unwrap();
        let printed = ast.to_string();
        let again = Ast::parse(&printed).unwrap();
        prop_assert_eq!(&again, &ast);
        prop_assert_eq!(again.to_string(), printed);
    }

    #[test]
    fn arbitrary_text_never_panics_and_round_trips_when_valid(text in soup()) {
        if let Ok(ast) = Ast::parse(&text) {
            assert_round_trip(&ast);
        }
        let _ = parse_parameter(&text);
    }

    #[test]
    fn like_agrees_with_naive_reference(text in "[ab%_é]{0,10}", pattern in "[ab%_*?é]{0,8}") {
        let t: Vec<char> = text.chars().collect();
        let p: Vec<char> = pattern.chars().collect();
        prop_assert_eq!(like_match(&text, &pattern), naive_like(&t, &p));
    }
}

/// Character soup, arbitrary text, and token soup (which is often a valid expression).
fn soup() -> impl Strategy<Value = String> {
    let words = vec![
        "a", "b.c", "x[1]", "y[0x2].z", "=", "<>", "!=", "<", ">=", "AND", "or", "NOT", "(", ")",
        "BETWEEN", "LIKE", "MATCH", "1", "-2", "2.5", "'s'", "'str'", "%0", "%1", "TRUE",
    ];
    prop_oneof![
        "[a-c0-9 ().<>=!%'`x_\\[\\]-]{0,40}",
        "\\PC{0,40}",
        prop::collection::vec(prop::sample::select(words), 0..16).prop_map(|w| w.join(" ")),
    ]
}

fn naive_like(t: &[char], p: &[char]) -> bool {
    match p.split_first() {
        None => t.is_empty(),
        Some(('%' | '*', rest)) => (0..=t.len()).any(|i| naive_like(&t[i..], rest)),
        Some(('_' | '?', rest)) => !t.is_empty() && naive_like(&t[1..], rest),
        Some((c, rest)) => t.first() == Some(c) && naive_like(&t[1..], rest),
    }
}

// ---- LIKE ----------------------------------------------------------------------------------

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

#[test]
fn token_soup_finds_valid_expressions() {
    // Guards the soup strategy: it must reach the round-trip branch, not only errors.
    for text in [
        "a = 1 AND NOT ( b.c LIKE 'str' )",
        "x[1] BETWEEN -2 AND %0 or y[0x2].z",
    ] {
        assert_round_trip(&parse(text));
    }
}
