//! Tests for the DDS-SQL front end: lexer and parser (tables, precedence, limits), with the
//! helpers the themed submodules share: round trips (`tests/round_trip.rs`) and evaluation
//! (`tests/evaluation.rs`: LIKE, parameters, the reference evaluator).

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

mod evaluation;
mod round_trip;
