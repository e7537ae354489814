//! Round-trip tests of the DDS-SQL parser and printer: generated ASTs print and re-parse to
//! themselves, and arbitrary text or token soup never panics and round-trips when valid.

use proptest::prelude::*;

use super::*;

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
