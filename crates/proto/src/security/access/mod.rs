//! DDS:Access:Permissions, the builtin access-control plugin (DDS-Security 1.1 §9.4): the
//! governance and permissions documents, their S/MIME signatures, subject-name matching, and
//! the access decisions the participant asks for.
//!
//! Must not: do I/O or read clocks (the caller passes the document bytes, the CA certificate
//! and `now`), panic or allocate unboundedly on any document (sizes and counts are bounded
//! and errors carry a line and column), or decide what to do with a denial (the participant
//! does).
//!
//! # Overview
//! [`smime::verify_smime`] checks a signed document against the permissions CA with the
//! vendors' `PKCS7_TEXT` semantics and gives the XML; [`Governance::parse`] and
//! [`Permissions::parse`] read it, tolerant of element order; the `check_*` functions of
//! [`decide`] answer allow or deny with a reason. Topic rules and grant rules apply
//! first-match, as the specification and both vendors do.

pub mod decide;
pub mod dn;
pub mod governance;
pub mod permissions;
pub mod smime;
#[cfg(test)]
pub(crate) mod test_docs;
#[cfg(test)]
pub(crate) mod tests;
mod xml;

pub use decide::{
    Decision, Endpoint, check_create_datareader, check_create_datawriter, check_create_participant,
    check_remote_datareader, check_remote_datawriter, check_remote_participant,
};
pub use dn::DistinguishedName;
pub use governance::{
    BasicProtectionKind, DomainIdSet, DomainRule, Governance, ProtectionKind, TopicRule,
};
pub use permissions::{Criteria, Grant, Permissions, Rule, RuleKind, Validity};
pub use smime::{verify_smime, verify_smime_with_ca_pem};

/// Why a document could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AccessError {
    /// The document is not well-formed XML, or breaks the schema, at a 1-based line and column.
    Document {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        col: u32,
        /// What is wrong.
        message: String,
    },
    /// The document exceeds a size or count limit.
    TooLarge(&'static str),
    /// The S/MIME signature did not verify against the CA, or the document is not S/MIME with
    /// a `text/plain` signed part.
    Signature(String),
    /// A subject name could not be parsed.
    SubjectName(String),
}

impl core::fmt::Display for AccessError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            AccessError::Document { line, col, message } => write!(f, "{line}:{col}: {message}"),
            AccessError::TooLarge(w) => write!(f, "{w} exceeds its limit"),
            AccessError::Signature(m) => write!(f, "signature: {m}"),
            AccessError::SubjectName(m) => write!(f, "subject name: {m}"),
        }
    }
}

impl std::error::Error for AccessError {}

/// The largest governance or permissions document accepted (signed or not).
pub const MAX_DOCUMENT_LEN: usize = 1 << 20;
/// The most elements a document may hold.
pub const MAX_ELEMENTS: usize = 20_000;

/// fnmatch(3) without flags, as both vendors match topic and partition expressions
/// (DDS-Security 1.1 §9.4.1.2.6.1, §9.4.1.3.2.3.2): `*`, `?`, `[...]` with `!` negation. An
/// expression that is not a valid pattern matches only itself.
pub fn fnmatch(pattern: &str, name: &str) -> bool {
    // glob treats `**` as a path wildcard that must stand alone; fnmatch treats it as `*`.
    let mut collapsed = String::with_capacity(pattern.len());
    for c in pattern.chars() {
        if !(c == '*' && collapsed.ends_with('*')) {
            collapsed.push(c);
        }
    }
    let opts = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: false,
        require_literal_leading_dot: false,
    };
    match glob::Pattern::new(&collapsed) {
        Ok(p) => p.matches_with(name, opts),
        Err(_) => pattern == name,
    }
}
