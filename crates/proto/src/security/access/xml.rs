//! The XML plumbing of the access-control documents: bounded parsing, positions in errors,
//! children by name in any order, and the scalar forms (booleans, integers, date-times).
//!
//! Must not: know the document schemas (governance.rs and permissions.rs do).

use roxmltree::{Document, Node, ParsingOptions};

use super::{AccessError, MAX_DOCUMENT_LEN, MAX_ELEMENTS};

/// Parses `text` with the limits: size, node count, no DTD.
pub(crate) fn parse(text: &str) -> Result<Document<'_>, AccessError> {
    if text.len() > MAX_DOCUMENT_LEN {
        return Err(AccessError::TooLarge("document"));
    }
    let opt = ParsingOptions {
        allow_dtd: false,
        nodes_limit: u32::try_from(MAX_ELEMENTS.saturating_mul(4)).unwrap_or(u32::MAX),
        entity_resolver: None,
    };
    Document::parse_with_options(text, opt).map_err(|e| {
        let p = e.pos();
        AccessError::Document {
            line: p.row,
            col: p.col,
            message: format!("XML error: {e}"),
        }
    })
}

/// An error at `node`'s position.
pub(crate) fn err(node: Node<'_, '_>, message: impl Into<String>) -> AccessError {
    let p = node.document().text_pos_at(node.range().start);
    AccessError::Document {
        line: p.row,
        col: p.col,
        message: message.into(),
    }
}

/// The element children of `node`.
pub(crate) fn elements<'a, 'i>(node: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children().filter(|c| c.is_element())
}

/// The element children of `node` named `name`, in document order.
pub(crate) fn children<'a, 'i>(
    node: Node<'a, 'i>,
    name: &'static str,
) -> impl Iterator<Item = Node<'a, 'i>> {
    elements(node).filter(move |c| c.tag_name().name() == name)
}

/// The one child named `name`, if any; two is an error.
pub(crate) fn child<'a, 'i>(
    node: Node<'a, 'i>,
    name: &'static str,
) -> Result<Option<Node<'a, 'i>>, AccessError> {
    let mut it = children(node, name);
    let first = it.next();
    if let Some(second) = it.next() {
        return Err(err(second, format!("<{name}> given twice")));
    }
    Ok(first)
}

/// The one child named `name`; missing is an error.
pub(crate) fn required<'a, 'i>(
    node: Node<'a, 'i>,
    name: &'static str,
) -> Result<Node<'a, 'i>, AccessError> {
    child(node, name)?.ok_or_else(|| err(node, format!("<{name}> missing")))
}

/// The trimmed text of an element.
pub(crate) fn text<'a>(node: Node<'a, '_>) -> &'a str {
    node.text().map(str::trim).unwrap_or("")
}

/// xs:boolean: `true`, `false`, `1`, `0`.
pub(crate) fn boolean(node: Node<'_, '_>) -> Result<bool, AccessError> {
    match text(node) {
        "true" | "1" | "TRUE" => Ok(true),
        "false" | "0" | "FALSE" => Ok(false),
        t => Err(err(node, format!("not a boolean: {t:?}"))),
    }
}

/// A non-negative integer (a domain id).
pub(crate) fn uint(node: Node<'_, '_>) -> Result<u32, AccessError> {
    text(node)
        .parse::<u32>()
        .map_err(|_| err(node, format!("not a domain id: {:?}", text(node))))
}

/// xs:dateTime (`YYYY-MM-DDThh:mm:ss`, optional fraction, optional `Z` or `±hh:mm`; no zone
/// means UTC, as both vendors read it) as seconds since 1970-01-01T00:00:00Z.
pub(crate) fn date_time(node: Node<'_, '_>) -> Result<i64, AccessError> {
    parse_date_time(text(node))
        .ok_or_else(|| err(node, format!("not a dateTime: {:?}", text(node))))
}

fn num(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Days from 1970-01-01 to the civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> Option<i64> {
    let y = if m <= 2 { y.checked_sub(1)? } else { y };
    let era = y.checked_div_euclid(400)?;
    let yoe = y.checked_sub(era.checked_mul(400)?)?;
    let mp = if m > 2 {
        m.checked_sub(3)?
    } else {
        m.checked_add(9)?
    };
    let doy = mp
        .checked_mul(153)?
        .checked_add(2)?
        .checked_div(5)?
        .checked_add(d)?
        .checked_sub(1)?;
    let doe = yoe
        .checked_mul(365)?
        .checked_add(yoe.checked_div(4)?)?
        .checked_sub(yoe.checked_div(100)?)?
        .checked_add(doy)?;
    era.checked_mul(146_097)?
        .checked_add(doe)?
        .checked_sub(719_468)
}

pub(crate) fn parse_date_time(s: &str) -> Option<i64> {
    let (date, time) = s.split_once('T')?;
    let mut d = date.splitn(3, '-');
    let (y, mo, da) = (num(d.next()?)?, num(d.next()?)?, num(d.next()?)?);
    // The zone: Z, ±hh:mm, or none (UTC).
    let (clock, offset) = if let Some(c) = time.strip_suffix('Z') {
        (c, 0)
    } else if let Some(i) = time.rfind(['+', '-']) {
        let (c, z) = time.split_at(i);
        let sign = if z.starts_with('-') { -1 } else { 1 };
        let (hh, mm) = z.get(1..)?.split_once(':')?;
        (
            c,
            num(hh)?
                .checked_mul(3600)?
                .checked_add(num(mm)?.checked_mul(60)?)?
                .checked_mul(sign)?,
        )
    } else {
        (time, 0)
    };
    let clock = clock.split('.').next()?;
    let mut t = clock.splitn(3, ':');
    let (h, mi, se) = (num(t.next()?)?, num(t.next()?)?, num(t.next()?)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&da) || h > 24 || mi > 59 || se > 60 {
        return None;
    }
    let days = days_from_civil(y, mo, da)?;
    days.checked_mul(86_400)?
        .checked_add(h.checked_mul(3600)?)?
        .checked_add(mi.checked_mul(60)?)?
        .checked_add(se)?
        .checked_sub(offset)
}
