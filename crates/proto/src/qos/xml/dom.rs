//! XML plumbing for the QoS loader: bounded parsing, positions, child iteration with
//! "unknown element" errors, and the scalar forms of DDS-XML 1.0 §7.2 (booleans, integers,
//! `LENGTH_UNLIMITED`, durations, enum literals).
//!
//! Must not: know policy names or profile structure; callers pass the names they expect.

use std::sync::Arc;

use roxmltree::{Attribute, Document, Node, ParsingOptions};

use super::text_index::TextIndex;
use super::{MAX_DEPTH, MAX_ELEMENTS, MAX_FILE_SIZE, MAX_NAME_LEN, MAX_TEXT_LEN, QosXmlError};
use crate::qos::Length;
use crate::time::Duration;

/// A position in a loaded file, kept after the document is gone.
#[derive(Clone, Debug)]
pub(crate) struct Pos {
    /// The file name given to the loader.
    pub file: Arc<str>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

impl Pos {
    /// An error at this position.
    pub(crate) fn error(&self, message: String) -> QosXmlError {
        QosXmlError {
            file: self.file.to_string(),
            line: self.line,
            col: self.col,
            message,
        }
    }
}

impl core::fmt::Display for Pos {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// Parses `text` with the loader's limits: size, node count, no DTD, nesting depth.
pub(crate) fn parse<'i>(file: &Arc<str>, text: &'i str) -> Result<Document<'i>, QosXmlError> {
    let at_start = Pos {
        file: file.clone(),
        line: 1,
        col: 1,
    };
    if text.len() > MAX_FILE_SIZE {
        return Err(at_start.error(format!("file is larger than {MAX_FILE_SIZE} bytes")));
    }
    let nodes_limit = u32::try_from(MAX_ELEMENTS.saturating_mul(4)).unwrap_or(u32::MAX);
    let opt = ParsingOptions {
        allow_dtd: false,
        nodes_limit,
        entity_resolver: None,
    };
    let doc = Document::parse_with_options(text, opt).map_err(|e| {
        let p = e.pos();
        Pos {
            file: file.clone(),
            line: p.row,
            col: p.col,
        }
        .error(format!("XML error: {e}"))
    })?;
    check_shape(file, &doc)?;
    Ok(doc)
}

/// Rejects documents nested deeper than [`MAX_DEPTH`] or with more than [`MAX_ELEMENTS`]
/// elements. Iterative: `descendants` is a pre-order walk, so a parent's depth is known first.
fn check_shape(file: &Arc<str>, doc: &Document<'_>) -> Result<(), QosXmlError> {
    // Positions only for the error: indexing the text costs a pass over it.
    let err = |node: Node<'_, '_>, message: String| {
        let index = TextIndex::new(doc.input_text());
        let ctx = Ctx {
            file,
            doc,
            index: &index,
        };
        ctx.err(node, message)
    };
    let mut depth: Vec<u16> = Vec::new();
    let mut elements = 0usize;
    for node in doc.descendants() {
        let parent_depth = node
            .parent()
            .and_then(|p| depth.get(p.id().get_usize()).copied())
            .unwrap_or(0);
        let d = if node.is_element() {
            parent_depth.saturating_add(1)
        } else {
            parent_depth
        };
        // Ids are dense (bounded by the parser's node limit); a parent is visited first.
        let id = node.id().get_usize();
        if id >= depth.len() {
            depth.resize(id, 0);
            depth.push(d);
        } else if let Some(slot) = depth.get_mut(id) {
            *slot = d;
        }
        if node.is_element() {
            elements = elements.saturating_add(1);
            if usize::from(d) > MAX_DEPTH {
                return Err(err(
                    node,
                    format!("elements nested deeper than {MAX_DEPTH}"),
                ));
            }
            if elements > MAX_ELEMENTS {
                return Err(err(node, format!("more than {MAX_ELEMENTS} elements")));
            }
        }
    }
    Ok(())
}

/// The file name and document, for positions.
#[derive(Copy, Clone)]
pub(crate) struct Ctx<'a, 'i> {
    /// The file name for errors.
    pub file: &'a Arc<str>,
    /// The parsed document.
    pub doc: &'a Document<'i>,
    /// Line/column lookup for the document's text (built once per file).
    pub index: &'a TextIndex,
}

impl<'a, 'i> Ctx<'a, 'i> {
    /// The position of byte `offset`.
    pub(crate) fn pos_at(&self, offset: usize) -> Pos {
        let (p, walked) = self.index.locate(self.doc.input_text(), offset);
        super::work::add(walked);
        Pos {
            file: self.file.clone(),
            line: p.line,
            col: p.col,
        }
    }

    /// The position of `node`'s start tag.
    pub(crate) fn pos(&self, node: Node<'_, '_>) -> Pos {
        self.pos_at(node.range().start)
    }

    /// An error at `node`.
    pub(crate) fn err(&self, node: Node<'_, '_>, message: String) -> QosXmlError {
        self.pos(node).error(message)
    }

    /// An error at attribute `attr`.
    pub(crate) fn attr_err(&self, attr: &Attribute<'_, '_>, message: String) -> QosXmlError {
        self.pos_at(attr.range().start).error(message)
    }

    /// "unknown element" at `node`, suggesting the closest of `expected`.
    pub(crate) fn unknown(&self, node: Node<'_, '_>, expected: &[&str]) -> QosXmlError {
        let name = node.tag_name().name();
        let parent = node
            .parent_element()
            .map(|p| p.tag_name().name())
            .unwrap_or("");
        let mut msg = format!("unknown element <{name}> in <{parent}>");
        if let Some(s) = suggest(name, expected) {
            msg.push_str(&format!(" (did you mean <{s}>?)"));
        }
        self.err(node, msg)
    }

    /// Checks that every attribute of `node` is in `allowed` (namespaced ones such as
    /// `xsi:schemaLocation` are ignored).
    pub(crate) fn check_attributes(
        &self,
        node: Node<'_, '_>,
        allowed: &[&str],
    ) -> Result<(), QosXmlError> {
        for attr in node.attributes() {
            if attr.namespace().is_some() || allowed.contains(&attr.name()) {
                continue;
            }
            let name = attr.name();
            let elem = node.tag_name().name();
            let mut msg = format!("unknown attribute `{name}` on <{elem}>");
            if let Some(s) = suggest(name, allowed) {
                msg.push_str(&format!(" (did you mean `{s}`?)"));
            }
            return Err(self.attr_err(&attr, msg));
        }
        Ok(())
    }

    /// The value of attribute `name`, bounded by [`MAX_NAME_LEN`], and its position.
    pub(crate) fn name_attr(
        &self,
        node: Node<'_, '_>,
        name: &str,
    ) -> Result<Option<(String, Pos)>, QosXmlError> {
        let Some(attr) = node.attribute_node(name) else {
            return Ok(None);
        };
        let value = attr.value().trim();
        if value.is_empty() || value.len() > MAX_NAME_LEN {
            let msg = format!("attribute `{name}` must be 1 to {MAX_NAME_LEN} bytes long");
            return Err(self.attr_err(&attr, msg));
        }
        Ok(Some((value.to_string(), self.pos_at(attr.range().start))))
    }

    /// A required [`Ctx::name_attr`].
    pub(crate) fn required_attr(
        &self,
        node: Node<'_, '_>,
        name: &str,
    ) -> Result<(String, Pos), QosXmlError> {
        let elem = node.tag_name().name();
        self.name_attr(node, name)?
            .ok_or_else(|| self.err(node, format!("<{elem}> needs a `{name}` attribute")))
    }

    /// A boolean attribute (absent = false).
    pub(crate) fn bool_attr(&self, node: Node<'_, '_>, name: &str) -> Result<bool, QosXmlError> {
        let Some(attr) = node.attribute_node(name) else {
            return Ok(false);
        };
        parse_bool(attr.value().trim())
            .ok_or_else(|| self.attr_err(&attr, format!("bad boolean `{}`", attr.value())))
    }

    /// The trimmed text of a leaf element; an error if it has child elements or is too long.
    pub(crate) fn text(&self, node: Node<'_, '_>) -> Result<String, QosXmlError> {
        let mut out = String::new();
        for child in node.children() {
            if child.is_element() {
                let (name, c) = (node.tag_name().name(), child.tag_name().name());
                return Err(self.err(child, format!("<{name}> takes text, not <{c}>")));
            }
            if let Some(t) = child.text().filter(|_| child.is_text()) {
                if out.len().saturating_add(t.len()) > MAX_TEXT_LEN {
                    let msg = format!("text longer than {MAX_TEXT_LEN} bytes");
                    return Err(self.err(node, msg));
                }
                out.push_str(t);
            }
        }
        Ok(out.trim().to_string())
    }

    /// A name-like text (partition name, topic name): 0 to [`MAX_NAME_LEN`] bytes.
    pub(crate) fn name_text(&self, node: Node<'_, '_>) -> Result<String, QosXmlError> {
        let text = self.text(node)?;
        if text.len() > MAX_NAME_LEN {
            return Err(self.err(node, format!("name longer than {MAX_NAME_LEN} bytes")));
        }
        Ok(text)
    }

    /// A boolean: `true`, `false`, `1`, `0` (DDS-XML 1.0 §7.2), or RTI `DDS_BOOLEAN_TRUE`….
    pub(crate) fn boolean(&self, node: Node<'_, '_>) -> Result<bool, QosXmlError> {
        let text = self.text(node)?;
        parse_bool(&text).ok_or_else(|| self.err(node, format!("bad boolean `{text}`")))
    }

    /// An IDL `long`: decimal or `0x` hex, optionally signed.
    pub(crate) fn long(&self, node: Node<'_, '_>) -> Result<i32, QosXmlError> {
        let text = self.text(node)?;
        parse_i32(&text).ok_or_else(|| self.err(node, format!("bad integer `{text}`")))
    }

    /// A non-negative count (history depth).
    pub(crate) fn count(&self, node: Node<'_, '_>) -> Result<u32, QosXmlError> {
        let v = self.long(node)?;
        u32::try_from(v).map_err(|_| self.err(node, format!("{v} is negative")))
    }

    /// A resource limit: `LENGTH_UNLIMITED` or -1, otherwise a non-negative `long`
    /// (DDS-XML 1.0 §7.2; positivity is the model's consistency check).
    pub(crate) fn length(&self, node: Node<'_, '_>) -> Result<Length, QosXmlError> {
        let text = self.text(node)?;
        if strip_dds(&text) == "LENGTH_UNLIMITED" {
            return Ok(Length::Unlimited);
        }
        let v = parse_i32(&text).ok_or_else(|| self.err(node, format!("bad length `{text}`")))?;
        Length::from_i32(v).ok_or_else(|| {
            self.err(
                node,
                format!("{v} is negative (use LENGTH_UNLIMITED for no limit)"),
            )
        })
    }

    /// One enum literal of `table` (rows: full IDL literal, short form, value); `DDS_`
    /// prefixes are accepted. `what` names the enum in the error.
    pub(crate) fn literal<T: Copy>(
        &self,
        node: Node<'_, '_>,
        what: &str,
        table: &[(&str, &str, T)],
    ) -> Result<T, QosXmlError> {
        let text = self.text(node)?;
        let key = strip_dds(&text);
        if let Some((_, _, v)) = table
            .iter()
            .find(|(full, short, _)| key == *full || key == *short)
        {
            return Ok(*v);
        }
        let names: Vec<&str> = table.iter().map(|(full, _, _)| *full).collect();
        let shorts: Vec<&str> = table.iter().map(|(_, short, _)| *short).collect();
        let mut msg = format!("bad {what} `{text}`");
        let near_short = suggest(key, &shorts).and_then(|s| {
            table
                .iter()
                .find(|(_, short, _)| *short == s)
                .map(|(full, _, _)| *full)
        });
        match suggest(key, &names).or(near_short) {
            Some(s) => msg.push_str(&format!(" (did you mean {s}?)")),
            None => msg.push_str(&format!(" (expected one of {})", names.join(", "))),
        }
        Err(self.err(node, msg))
    }

    /// A `Duration_t`: `<sec>` and `<nanosec>` children (missing ones are 0), or the text
    /// `DURATION_INFINITY`/`DURATION_ZERO`. `DURATION_INFINITE_SEC` (or sec = 2^31-1) and
    /// `DURATION_INFINITE_NSEC` in either field make the whole duration infinite (DDS-XML 1.0
    /// §7.2; DDS 1.4 §2.3.2 INFINITE_SEC/NSEC).
    pub(crate) fn duration(&self, node: Node<'_, '_>) -> Result<Duration, QosXmlError> {
        if !node.children().any(|c| c.is_element()) {
            let text = self.text(node)?;
            return match strip_dds(&text) {
                "DURATION_INFINITY" | "DURATION_INFINITE" => Ok(Duration::INFINITE),
                "DURATION_ZERO" => Ok(Duration::ZERO),
                _ => Err(self.err(
                    node,
                    format!("bad duration `{text}` (expected <sec>/<nanosec>)"),
                )),
            };
        }
        let (mut sec, mut nanosec, mut infinite) = (0i32, 0u32, false);
        for child in elements(node) {
            let text = self.text(child)?;
            match (child.tag_name().name(), strip_dds(&text)) {
                (_, "DURATION_INFINITY" | "DURATION_INFINITE") => infinite = true,
                (_, "DURATION_ZERO") => {}
                ("sec", "DURATION_INFINITE_SEC") => infinite = true,
                ("sec", "DURATION_ZERO_SEC") => sec = 0,
                ("sec", t) => {
                    sec = parse_i32(t)
                        .ok_or_else(|| self.err(child, format!("bad seconds `{text}`")))?;
                    infinite |= sec == i32::MAX;
                }
                // The spec's own example writes DURATION_INFINITY_NSEC (docs/interop-facts.md
                // §6.1).
                ("nanosec", "DURATION_INFINITE_NSEC" | "DURATION_INFINITY_NSEC") => infinite = true,
                ("nanosec", "DURATION_ZERO_NSEC") => nanosec = 0,
                ("nanosec", t) => {
                    nanosec = parse_i32(t)
                        .and_then(|v| u32::try_from(v).ok())
                        .filter(|v| *v < 1_000_000_000)
                        .ok_or_else(|| self.err(child, format!("bad nanoseconds `{text}`")))?;
                }
                _ => return Err(self.unknown(child, &["sec", "nanosec"])),
            }
        }
        if infinite {
            return Ok(Duration::INFINITE);
        }
        let fraction = Duration::from_std(core::time::Duration::new(0, nanosec)).fraction;
        Ok(Duration {
            seconds: sec,
            fraction,
        })
    }
}

/// The element children of `node`.
pub(crate) fn elements<'a, 'i>(node: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children().filter(Node::is_element)
}

/// `s` without an RTI-style `DDS_` prefix.
pub(crate) fn strip_dds(s: &str) -> &str {
    s.strip_prefix("DDS_").unwrap_or(s)
}

fn parse_bool(s: &str) -> Option<bool> {
    match strip_dds(s) {
        "true" | "1" | "BOOLEAN_TRUE" => Some(true),
        "false" | "0" | "BOOLEAN_FALSE" => Some(false),
        _ => None,
    }
}

/// Decimal or `0x`-hex `long`, optionally signed.
pub(crate) fn parse_i32(s: &str) -> Option<i32> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None if digits.bytes().all(|b| b.is_ascii_digit()) => digits.parse::<i64>().ok()?,
        None => return None,
    };
    let value = if neg {
        magnitude.checked_neg()?
    } else {
        magnitude
    };
    i32::try_from(value).ok()
}

/// The candidate closest to `word` (case-insensitive edit distance ≤ max(2, len/3)), if any.
pub(crate) fn suggest<'s>(word: &str, candidates: &[&'s str]) -> Option<&'s str> {
    if word.len() > MAX_NAME_LEN {
        return None;
    }
    let word = word.to_ascii_lowercase();
    let limit = (word.chars().count() / 3).max(2);
    candidates
        .iter()
        .map(|c| (edit_distance(&word, &c.to_ascii_lowercase()), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over chars, two rows, saturating.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = Vec::with_capacity(prev.len());
        cur.push(i.saturating_add(1));
        for ((cb, diag), up) in b.iter().zip(prev.iter()).zip(prev.iter().skip(1)) {
            let left = cur.last().copied().unwrap_or(usize::MAX);
            let sub = diag.saturating_add(usize::from(ca != *cb));
            cur.push(sub.min(up.saturating_add(1)).min(left.saturating_add(1)));
        }
        prev = cur;
    }
    prev.last().copied().unwrap_or(usize::MAX)
}
