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
mod tests;
