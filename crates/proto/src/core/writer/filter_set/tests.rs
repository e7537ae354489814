//! FilterSet: memoized answers equal direct evaluation, no reader cap, invalid filters.
#![allow(clippy::arithmetic_side_effects)]

use proptest::prelude::*;

use super::*;
use crate::cdr::Endianness;
use crate::types::{ShapeType, TopicType};
use crate::wire::{EntityId, GuidPrefix};

fn reader(i: u32) -> Guid {
    let [_, a, b, c] = i.to_be_bytes();
    Guid::new(
        GuidPrefix([1, 0x0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9]),
        EntityId([a, b, c, 0x07]),
    )
}

fn filter(expr: &str, params: &[&str]) -> ContentFilter {
    ContentFilter {
        content_filtered_topic_name: "SquareFiltered".into(),
        related_topic_name: "Square".into(),
        filter_class_name: DDSSQL.into(),
        filter_expression: expr.into(),
        expression_parameters: params.iter().map(|s| s.to_string()).collect(),
    }
}

fn set() -> FilterSet {
    FilterSet::new(Arc::new(ShapeType::descriptor().clone()), "Square", 64)
}

fn shape(color: &str, x: i32, size: i32) -> Vec<u8> {
    ShapeType {
        color: color.into(),
        x,
        y: 0,
        shapesize: size,
        additional_payload_size: vec![],
    }
    .serialize(Endianness::Little)
}

#[test]
fn a_thousand_readers_with_three_distinct_filters_cost_three_evaluations_per_miss() {
    let mut fs = set();
    let colors = ["'RED'", "'BLUE'", "'GREEN'"];
    for i in 0..1000 {
        fs.set_reader_filter(
            reader(i),
            Some(&filter("color = %0", &[colors[i as usize % 3]])),
        )
        .unwrap();
    }
    let pass = fs.evaluate(&shape("BLUE", 1, 2));
    assert_eq!(pass.count(), 333);
    assert_eq!(fs.stats().evaluations, 3);
    // Same projection (color) with other x: a hit, no evaluation.
    let again = fs.evaluate(&shape("BLUE", 99, 7));
    assert_eq!(again, pass);
    assert_eq!(fs.stats().evaluations, 3);
    assert_eq!(fs.stats().hits, 1);
    let info = fs.filter_info(&pass);
    assert_eq!(info.len(), 1000, "no 32-reader cap");
    assert_eq!(info.bitmaps().len(), 32);
    assert_eq!(info.passed(1), Some(true));
    assert_eq!(info.passed(0), Some(false));
    // The slot table snapshot lists the same, is shared until the set changes, and keeps
    // its meaning afterwards.
    let table = fs.slot_table();
    assert!(Arc::ptr_eq(&table, &fs.slot_table()));
    assert_eq!(table.filter_info(&pass, false), info);
    assert_eq!(table.info_len(), info.buffer_len());
    assert_eq!(table.slot_of(reader(1)), fs.slot_of(reader(1)));
    fs.remove_reader(reader(0));
    assert_ne!(fs.generation(), table.generation());
    assert!(!Arc::ptr_eq(&table, &fs.slot_table()));
    assert_eq!(table.slot_of(reader(1)), Some(1));
    assert_eq!(fs.slot_of(reader(1)), Some(0));
}

#[test]
fn unusable_filters_are_refused_and_such_readers_get_everything() {
    let mut fs = set();
    assert!(matches!(
        fs.set_reader_filter(reader(1), Some(&filter("nosuch = 1", &[]))),
        Err(NotFiltering::Invalid(_))
    ));
    let mut other = filter("x > 1", &[]);
    other.filter_class_name = "STRINGMATCH".into();
    assert!(matches!(
        fs.set_reader_filter(reader(2), Some(&other)),
        Err(NotFiltering::UnknownClass(_))
    ));
    other = filter("x > 1", &[]);
    other.related_topic_name = "Circle".into();
    assert!(matches!(
        fs.set_reader_filter(reader(3), Some(&other)),
        Err(NotFiltering::OtherTopic(_))
    ));
    assert!(fs.is_empty());
    let pass = fs.evaluate(&shape("RED", 0, 0));
    assert!(fs.passes(&pass, reader(1)));
}

#[test]
fn changing_a_filter_invalidates_the_table() {
    let mut fs = set();
    fs.set_reader_filter(reader(1), Some(&filter("x > 10", &[])))
        .unwrap();
    let s = shape("RED", 20, 5);
    let pass = fs.evaluate(&s);
    assert!(fs.passes(&pass, reader(1)));
    fs.set_reader_filter(reader(1), Some(&filter("x > 30", &[])))
        .unwrap();
    let pass = fs.evaluate(&s);
    assert!(!fs.passes(&pass, reader(1)));
    fs.remove_reader(reader(1));
    let pass = fs.evaluate(&s);
    assert!(fs.passes(&pass, reader(1)));
}

const EXPRESSIONS: &[(&str, &[&str])] = &[
    ("color = %0", &["'RED'"]),
    ("color = %0", &["BLUE"]),
    ("x > %0", &["50"]),
    ("x BETWEEN 10 AND 90 AND shapesize <= 20", &[]),
    ("color LIKE 'G%' OR shapesize > 25", &[]),
    ("NOT (x < 40)", &[]),
];

proptest! {
    /// The seed's promise: the memoized set equals evaluating every reader's filter, across
    /// readers joining, leaving and changing filters.
    #[test]
    fn memoized_pass_set_always_equals_direct_evaluation(
        ops in prop::collection::vec((0u32..40, 0usize..EXPRESSIONS.len() + 1), 1..60),
        samples in prop::collection::vec((0usize..4, 0i32..100, 0i32..40), 1..80),
    ) {
        let mut fs = FilterSet::new(Arc::new(ShapeType::descriptor().clone()), "Square", 8);
        let mut current: BTreeMap<Guid, usize> = BTreeMap::new();
        let colors = ["RED", "BLUE", "GREEN", "YELLOW"];
        for (step, &(r, e)) in ops.iter().enumerate() {
            let g = reader(r);
            if e == EXPRESSIONS.len() {
                fs.remove_reader(g);
                current.remove(&g);
            } else {
                let (expr, params) = EXPRESSIONS[e];
                fs.set_reader_filter(g, Some(&filter(expr, params))).unwrap();
                current.insert(g, e);
            }
            for &(c, x, size) in samples.iter().skip(step % samples.len()).take(5) {
                let payload = shape(colors[c], x, size);
                let pass = fs.evaluate(&payload);
                for (&g, &e) in &current {
                    let (expr, params) = EXPRESSIONS[e];
                    let lits = parse_parameters(params).unwrap();
                    let program = Program::compile_expression(expr, &lits, ShapeType::descriptor()).unwrap();
                    prop_assert_eq!(fs.passes(&pass, g), program.evaluate(&payload).unwrap());
                }
                prop_assert_eq!(fs.filter_info(&pass).len(), current.len());
            }
        }
    }
}

/// What `create_filtered_datareader` checks (issue 15): type errors fail like syntax errors,
/// positioned in the text; without a descriptor only syntax is checked.
#[test]
fn a_local_filter_that_does_not_type_check_is_rejected_with_its_position() {
    use crate::core::reader::ReaderFilter;
    let d = Some(ShapeType::descriptor());
    for (expr, at) in [("x = 'abc'", 0), ("color = 5", 0), ("x >", 3)] {
        match ReaderFilter::check(&filter(expr, &[]), d) {
            Err(NotFiltering::Invalid(e)) => {
                assert!(e.position >= at, "{expr}: {e}");
                if expr.starts_with("x =") || expr.starts_with("color") {
                    assert!(
                        matches!(e.kind, crate::filter::FilterErrorKind::TypeMismatch(_)),
                        "{expr}: {e}"
                    );
                }
            }
            other => panic!("{expr}: {other:?}"),
        }
    }
    assert_eq!(
        ReaderFilter::check(&filter("x > 3 AND color = 'RED'", &[]), d),
        Ok(())
    );
    assert_eq!(ReaderFilter::check(&filter("x = 'abc'", &[]), None), Ok(()));
    assert!(ReaderFilter::check(&filter("x >", &[]), None).is_err());
}
