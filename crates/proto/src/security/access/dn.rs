//! X.500 distinguished names as parsed RDNs, so that a permissions `<subject_name>` matches a
//! certificate's subject whatever order or spelling it was written in.
//!
//! Must not: compare names as strings, or accept an unbounded number of attributes.
//!
//! DDS-Security 1.1 §9.4.1.3.2.1: the subject_name is "the X.509 subject name ... in the
//! RFC 4514 (formerly RFC 2253) string form". Fast DDS 2.9 compares the strings in order and
//! Cyclone compares its RFC 2253 rendering; a name written `CN=a,O=b,C=c` and the OpenSSL
//! one-line form `/C=c/O=b/CN=a` of the identity token (`dds.cert.sn`) are the same subject,
//! so both forms are parsed here and compared as a set of (attribute type, value) pairs with
//! the type case-insensitive and known aliases folded (`emailAddress` = `E`, `ST` = `S`).

use super::AccessError;

/// The most attributes a name may hold.
pub const MAX_RDN_ATTRIBUTES: usize = 32;
/// The longest subject name string accepted.
pub const MAX_NAME_LEN: usize = 2048;

/// A parsed distinguished name: (attribute type in upper case, value), sorted.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DistinguishedName {
    attributes: Vec<(String, String)>,
}

impl DistinguishedName {
    /// Parses the RFC 4514 form (`CN=a,O=b,C=c`, `\` escapes, `+` multi-valued RDNs) or the
    /// OpenSSL one-line form (`/C=c/O=b/CN=a`).
    pub fn parse(s: &str) -> Result<Self, AccessError> {
        let s = s.trim();
        if s.len() > MAX_NAME_LEN {
            return Err(AccessError::TooLarge("subject name"));
        }
        let parts = if let Some(rest) = s.strip_prefix('/') {
            split_unescaped(rest, &['/'])
        } else {
            split_unescaped(s, &[',', ';', '+'])
        };
        let mut attributes = Vec::new();
        for part in parts {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            if attributes.len() >= MAX_RDN_ATTRIBUTES {
                return Err(AccessError::TooLarge("subject name attributes"));
            }
            let (ty, value) = part
                .split_once('=')
                .ok_or_else(|| AccessError::SubjectName(format!("no '=' in {part:?}")))?;
            let ty = canonical_type(ty.trim());
            if ty.is_empty() {
                return Err(AccessError::SubjectName(format!("empty type in {part:?}")));
            }
            attributes.push((ty, unescape(value.trim())));
        }
        if attributes.is_empty() {
            return Err(AccessError::SubjectName(format!("empty name {s:?}")));
        }
        attributes.sort();
        Ok(DistinguishedName { attributes })
    }

    /// The DN of an X.509 name (a certificate's subject), attribute by attribute.
    pub fn from_x509(name: &openssl::x509::X509NameRef) -> Result<Self, AccessError> {
        let mut attributes = Vec::new();
        for e in name.entries() {
            if attributes.len() >= MAX_RDN_ATTRIBUTES {
                return Err(AccessError::TooLarge("subject name attributes"));
            }
            let ty = e
                .object()
                .nid()
                .short_name()
                .map_err(|_| AccessError::SubjectName("unknown attribute type".into()))?;
            let value = e
                .data()
                .to_string()
                .map_err(|_| AccessError::SubjectName("attribute value not text".into()))?;
            attributes.push((canonical_type(ty), value));
        }
        attributes.sort();
        Ok(DistinguishedName { attributes })
    }
}

fn canonical_type(t: &str) -> String {
    let up = t.to_ascii_uppercase();
    match up.as_str() {
        "EMAILADDRESS" | "EMAIL" => "E".into(),
        "S" => "ST".into(),
        "OID.2.5.4.3" | "2.5.4.3" => "CN".into(),
        "OID.2.5.4.10" | "2.5.4.10" => "O".into(),
        "OID.2.5.4.6" | "2.5.4.6" => "C".into(),
        _ => up,
    }
}

/// Splits at any of `seps` not preceded by a backslash.
fn split_unescaped<'a>(s: &'a str, seps: &[char]) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let mut start = 0usize;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if seps.contains(&c) {
            parts.push(s.get(start..i).unwrap_or_default());
            start = i.saturating_add(c.len_utf8());
        }
    }
    parts.push(s.get(start..).unwrap_or_default());
    parts
}

/// Removes RFC 4514 backslash escapes (`\,` and `\2C` alike) and surrounding quotes.
fn unescape(v: &str) -> String {
    let v = v
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(v);
    let mut out = Vec::with_capacity(v.len());
    let b = v.as_bytes();
    let mut i = 0usize;
    while let Some(&c) = b.get(i) {
        i = i.saturating_add(1);
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let hex = b
            .get(i..i.saturating_add(2))
            .and_then(|h| core::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (hex, b.get(i)) {
            (Some(x), _) => {
                out.push(x);
                i = i.saturating_add(2);
            }
            (None, Some(&n)) => {
                out.push(n);
                i = i.saturating_add(1);
            }
            (None, None) => {}
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
