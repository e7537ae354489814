//! QoS profiles from XML: OMG DDS-XML 1.0 profile files (with the RTI Connext conventions) and
//! an import of Fast DDS XML profiles, loaded into a [`QosProvider`] that answers "which
//! `DataWriterQos` does profile `Lib::Profile` give topic `T`".
//!
//! Must not: panic, recurse on input, or allocate beyond the (bounded) file size; XML files are
//! untrusted input (docs/conventions.md §4 lints below). The only I/O in `qos` is here: reading the
//! files the application names ([`QosProvider::load_file`], [`QosProvider::from_environment`]).
//!
//! # Overview
//! * DDS-XML 1.0 (formal/18-10-01) §7.3.2 QoS building block: `<dds>` → `<qos_library name>` →
//!   `<qos_profile name [base_name] [is_default_qos]>` → entity QoS elements
//!   (`<datawriter_qos [topic_filter] [base_name]>` …) → one element per policy, mirroring the
//!   IDL structs (§7.2: enums as IDL literals, `<sec>`/`<nanosec>` durations, `LENGTH_UNLIMITED`,
//!   sequences as repeated `<element>`). An entity QoS element with a `name` directly inside a
//!   library is a one-element profile (§7.3.2.4.4).
//! * Inheritance (§7.3.2.4.2): a profile starts from its `base_name` profile; an entity QoS
//!   element with its own `base_name` starts from that profile's QoS of the same kind instead.
//!   Names are `Profile` (same library) or `Lib::Profile` (any library, any loaded file);
//!   references are resolved lazily at lookup, so forward references work and cycles are
//!   reported then.
//! * `topic_filter` (§7.3.2.4.3): within one profile, the first element of the wanted kind
//!   whose filter matches the topic name wins; an element without a filter (or with `*`) is
//!   used only when no filtered one matches. Filters are fnmatch patterns
//!   ([`crate::qos::wildcard_match`]).
//! * Setting a policy overrides only the fields written; the rest come from the base profile
//!   or the DDS default. A duration element is always replaced as a whole (missing `<sec>` or
//!   `<nanosec>` is 0).
//! * Fast DDS XML (docs/interop-facts.md §6.3) profiles become profiles named
//!   `fastdds::<profile_name>`.
//! * Limits: [`MAX_FILE_SIZE`], [`MAX_DEPTH`], [`MAX_ELEMENTS`], [`MAX_TEXT_LEN`]; DTDs are
//!   rejected (roxmltree `allow_dtd: false`), so no entity expansion.
mod dom;
mod fastdds;
mod omg;
mod omg_policy;
mod patch;
mod peer_group;
mod profile;
mod provider;
mod text_index;

pub use provider::QosProvider;

/// Work done by the loader in steps that depend on the input's size (bytes walked to locate
/// positions, name-table probes), counted per thread in tests so that a test can show loading
/// is linear in the number of profiles without timing it.
#[cfg(test)]
pub(crate) mod work {
    use std::cell::Cell;
    thread_local!(static STEPS: Cell<u64> = const { Cell::new(0) });
    pub(crate) fn add(n: usize) {
        STEPS.with(|s| s.set(s.get().saturating_add(u64::try_from(n).unwrap_or(u64::MAX))));
    }
    pub(crate) fn take() -> u64 {
        STEPS.with(|s| s.replace(0))
    }
}
#[cfg(not(test))]
pub(crate) mod work {
    pub(crate) fn add(_n: usize) {}
}

/// Largest XML file (or string) the loader accepts, in bytes.
pub const MAX_FILE_SIZE: usize = 4 * 1024 * 1024;
/// Deepest element nesting accepted (the root element is depth 1).
pub const MAX_DEPTH: usize = 32;
/// Most elements accepted in one file.
pub const MAX_ELEMENTS: usize = 100_000;
/// Longest text content or attribute value accepted, in bytes.
pub const MAX_TEXT_LEN: usize = 64 * 1024;
/// Longest profile, library or partition name accepted, in bytes.
pub const MAX_NAME_LEN: usize = 256;
/// Longest `base_name` chain followed before giving up.
pub const MAX_INHERITANCE_DEPTH: usize = 64;
/// Most profiles one [`QosProvider`] holds.
pub const MAX_PROFILES: usize = 10_000;

/// The file `QosProvider::from_environment` loads from the working directory (RTI convention).
pub const USER_QOS_PROFILES_FILE: &str = "USER_QOS_PROFILES.xml";
/// The environment variable listing further profile files, `;`-separated (RTI
/// `NDDS_QOS_PROFILES` style; a `file://` prefix is accepted).
pub const QOS_PROFILES_ENV: &str = "SIFTDDS_QOS_PROFILES";

/// A QoS XML problem, located in its source: displays as `file:line:col: message`.
///
/// Errors that have no place in a file (an unknown profile name passed to a lookup) have
/// `line == 0` and an empty `file`, and display as the message alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QosXmlError {
    /// The file path, or the name given to [`QosProvider::load_str`].
    pub file: String,
    /// 1-based line, 0 if unknown.
    pub line: u32,
    /// 1-based column (in characters), 0 if unknown.
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

impl QosXmlError {
    /// An error with no position (API misuse rather than a bad file).
    pub(crate) fn unplaced(message: String) -> Self {
        QosXmlError {
            file: String::new(),
            line: 0,
            col: 0,
            message,
        }
    }
}

impl core::fmt::Display for QosXmlError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (self.file.is_empty(), self.line) {
            (true, _) => f.write_str(&self.message),
            (false, 0) => write!(f, "{}: {}", self.file, self.message),
            (false, line) => write!(f, "{}:{}:{}: {}", self.file, line, self.col, self.message),
        }
    }
}

impl std::error::Error for QosXmlError {}

/// The six entity kinds a profile holds QoS for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum EntityKind {
    /// `<domain_participant_qos>`.
    Participant,
    /// `<topic_qos>`.
    Topic,
    /// `<publisher_qos>`.
    Publisher,
    /// `<subscriber_qos>`.
    Subscriber,
    /// `<datawriter_qos>`.
    DataWriter,
    /// `<datareader_qos>`.
    DataReader,
}

impl EntityKind {
    /// The DDS-XML element name, for messages.
    pub(crate) fn element(self) -> &'static str {
        match self {
            EntityKind::Participant => "domain_participant_qos",
            EntityKind::Topic => "topic_qos",
            EntityKind::Publisher => "publisher_qos",
            EntityKind::Subscriber => "subscriber_qos",
            EntityKind::DataWriter => "datawriter_qos",
            EntityKind::DataReader => "datareader_qos",
        }
    }

    /// True for the kinds that take a `topic_filter`.
    pub(crate) fn has_topic(self) -> bool {
        matches!(
            self,
            EntityKind::Topic | EntityKind::DataWriter | EntityKind::DataReader
        )
    }
}

#[cfg(test)]
mod tests;
