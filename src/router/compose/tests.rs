use super::*;

fn f(expr: &str, params: &[&str]) -> ContentFilter {
    ContentFilter {
        content_filtered_topic_name: "cft".into(),
        related_topic_name: "T".into(),
        filter_class_name: DDSSQL.into(),
        filter_expression: expr.into(),
        expression_parameters: params.iter().map(|s| s.to_string()).collect(),
    }
}

#[test]
fn renumbers_outside_strings_only() {
    assert_eq!(
        renumber("x < %0 AND s = '%1' AND y > %1", 2).unwrap(),
        "x < %2 AND s = '%1' AND y > %3"
    );
    assert_eq!(renumber("x < %98", 2), None);
    assert_eq!(renumber("x % 2 = 0", 5).unwrap(), "x % 2 = 0");
}

#[test]
fn ors_filters_with_their_parameters() {
    let a = f("x < %0", &["50"]);
    let b = f("y > %0 AND z = %1", &["3", "4"]);
    let c = compose("T", "router_T", [Some(&a), Some(&b), Some(&a)]).unwrap();
    assert_eq!(c.filter_expression, "(x < %0) OR (y > %1 AND z = %2)");
    assert_eq!(c.expression_parameters, ["50", "3", "4"]);
    assert_eq!(c.related_topic_name, "T");
    let single = compose("T", "router_T", [Some(&a)]).unwrap();
    assert_eq!(single.filter_expression, "x < %0");
}

#[test]
fn an_unfiltered_reader_or_another_class_means_no_filter() {
    let a = f("x < %0", &["50"]);
    assert_eq!(compose("T", "n", [Some(&a), None]), None);
    let mut other = a.clone();
    other.filter_class_name = "MYCLASS".into();
    assert_eq!(compose("T", "n", [Some(&a), Some(&other)]), None);
    assert_eq!(compose("T", "n", []), None);
    let many: Vec<ContentFilter> = (0..=MAX_COMPOSED_FILTERS)
        .map(|i| f(&format!("x = {i}"), &[]))
        .collect();
    assert_eq!(compose("T", "n", many.iter().map(Some)), None);
}

#[test]
fn the_composition_parses_as_ddssql() {
    let a = f("x < %0", &["50"]);
    let b = f("x > %0", &["90"]);
    let c = compose("T", "n", [Some(&a), Some(&b)]).unwrap();
    assert!(crate::filter::Ast::parse(&c.filter_expression).is_ok());
}
