//! The composed filter of a route: the OR of the downstream readers' DDS-SQL filters, each
//! with its parameters renumbered, announced by the router's upstream proxy reader so that a
//! filtering writer at the source drops what no downstream site wants.
//!
//! Must not: evaluate filters (writers and readers do), or compose anything but `DDSSQL`
//! (another class, or one unfiltered reader, means no filter). DDS 1.4 §2.2.2.3.3
//! (ContentFilteredTopic), Annex B (parameters `%n`); RTPS 2.5 §9.6.3.1
//! (PID_CONTENT_FILTER_PROPERTY).

use crate::core::discovery::ContentFilter;

/// The filter class every vendor implements. DDS 1.4 Annex B.
pub const DDSSQL: &str = "DDSSQL";

/// At most this many readers' filters are ORed (beyond it the proxy reader takes everything):
/// the expression a writer compiles stays small. DDS 1.4 Annex B allows parameters `%0..%99`.
pub const MAX_COMPOSED_FILTERS: usize = 16;

/// The most parameters a composed filter may carry (`%0`..`%99`).
pub const MAX_COMPOSED_PARAMETERS: usize = 100;

/// The OR of `filters` (`None` entries: unfiltered readers) for `topic`, named
/// `filtered_topic_name`; `None` when any reader is unfiltered, a filter is not DDSSQL,
/// there are too many, or the list is empty.
pub fn compose<'a>(
    topic: &str,
    filtered_topic_name: &str,
    filters: impl IntoIterator<Item = Option<&'a ContentFilter>>,
) -> Option<ContentFilter> {
    let mut parts: Vec<&ContentFilter> = Vec::new();
    for f in filters {
        let f = f?;
        if !f.filter_class_name.eq_ignore_ascii_case(DDSSQL) {
            return None;
        }
        // Identical filters (same expression and parameters) are ORed once.
        if !parts.iter().any(|p| {
            p.filter_expression == f.filter_expression
                && p.expression_parameters == f.expression_parameters
        }) {
            parts.push(f);
        }
    }
    if parts.is_empty() || parts.len() > MAX_COMPOSED_FILTERS {
        return None;
    }
    let mut expression = String::new();
    let mut parameters: Vec<String> = Vec::new();
    for (i, f) in parts.iter().enumerate() {
        let offset = parameters.len();
        let renumbered = renumber(&f.filter_expression, offset)?;
        if i > 0 {
            expression.push_str(" OR ");
        }
        if parts.len() > 1 {
            expression.push('(');
            expression.push_str(&renumbered);
            expression.push(')');
        } else {
            expression.push_str(&renumbered);
        }
        parameters.extend(f.expression_parameters.iter().cloned());
        if parameters.len() > MAX_COMPOSED_PARAMETERS {
            return None;
        }
    }
    Some(ContentFilter {
        content_filtered_topic_name: filtered_topic_name.to_string(),
        related_topic_name: topic.to_string(),
        filter_class_name: DDSSQL.to_string(),
        filter_expression: expression,
        expression_parameters: parameters,
    })
}

/// `expression` with every parameter reference `%n` outside string literals replaced by
/// `%(n + offset)`; `None` when a result would exceed `%99`.
pub fn renumber(expression: &str, offset: usize) -> Option<String> {
    let mut out = String::with_capacity(expression.len() + 8);
    let mut chars = expression.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if c == '\'' {
            in_string = !in_string;
            out.push(c);
            continue;
        }
        if c != '%' || in_string {
            out.push(c);
            continue;
        }
        let mut digits = String::new();
        while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
            digits.push(d);
            chars.next();
        }
        if digits.is_empty() {
            out.push('%');
            continue;
        }
        let n: usize = digits.parse().ok()?;
        let m = n.checked_add(offset)?;
        if m >= MAX_COMPOSED_PARAMETERS {
            return None;
        }
        out.push('%');
        out.push_str(&m.to_string());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
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
}
