//! The public error type. docs/conventions.md §4: keeps apart what a peer did, what the application
//! did wrong, and local I/O or resource trouble.
//!
//! Must not: expose a lower layer's error except through these variants.

use crate::cdr::CdrError;
use crate::core::writer::NotFiltering;
use crate::core::writer::WriteError;
use crate::qos::QosError;
use crate::qos::xml::QosXmlError;
use crate::runtime::StartError;

/// Everything the public API can fail with.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The participant could not start: its interface selection cannot be used (the error
    /// names the item, and nothing was opened), or its sockets or loop thread failed.
    Start(StartError),
    /// The QoS given is inconsistent.
    Qos(QosError),
    /// A QoS profile could not be used: unknown `Lib::Profile`, or a file error located as
    /// `file:line:col` (see [`crate::qos::xml::QosProvider`]).
    QosProfile(QosXmlError),
    /// The DATA_REPRESENTATION QoS names a representation (DDS-XTypes 1.3 §7.6.3.1.1 id) the
    /// topic type cannot write (a writer's first id) or decode (any id of a reader's list).
    UnsupportedDataRepresentation {
        /// The topic type.
        type_name: &'static str,
        /// The DataRepresentationId: 0 XCDR, 1 XML, 2 XCDR2.
        id: i16,
    },
    /// The sample cannot be serialized: it breaks a bound of its type (a bounded string,
    /// sequence or array holds too many elements).
    InvalidSample {
        /// The topic type.
        type_name: &'static str,
    },
    /// A ContentFilteredTopic's expression or parameters do not parse, or do not type-check
    /// against the topic type (the reason carries the byte position in the expression).
    ContentFilter(NotFiltering),
    /// The writer refused the sample (history full after max_blocking_time, ...).
    Write(WriteError),
    /// A received payload could not be decoded as the topic's type.
    Deserialize(CdrError),
    /// The operation did not complete in time.
    Timeout,
    /// The arguments do not fit the entity (a condition of another reader).
    PreconditionNotMet(&'static str),
    /// The participant's event loop has stopped.
    Stopped,
    /// Local I/O (spawning the event loop thread).
    Io(std::io::Error),
    /// The PERSISTENT durability store (SQLite) could not be opened, read or written.
    Store(crate::runtime::durability_store::StoreError),
    /// A peer-group configuration is invalid (docs/peer-group-cache.md §2).
    PeerGroup(crate::core::peer_group::config::PeerGroupError),
    /// The DDS Security properties are incomplete, a file cannot be read, or the identity
    /// does not validate (the reason says which; `api::security`).
    Security(String),
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::Start(e) => e.fmt(f),
            Error::Qos(e) => write!(f, "QoS: {e}"),
            Error::QosProfile(e) => write!(f, "QoS profile: {e}"),
            Error::UnsupportedDataRepresentation { type_name, id } => {
                let name = match *id {
                    0 => "XCDR",
                    1 => "XML",
                    2 => "XCDR2",
                    _ => "unknown",
                };
                write!(
                    f,
                    "type {type_name} does not support data representation {name} (id {id})"
                )
            }
            Error::InvalidSample { type_name } => {
                write!(f, "a {type_name} sample breaks a bound of its type")
            }
            Error::ContentFilter(e) => write!(f, "content filter: {e}"),
            Error::Write(e) => write!(f, "write: {e}"),
            Error::Deserialize(e) => write!(f, "cannot decode sample: {e}"),
            Error::Timeout => f.write_str("timed out"),
            Error::PreconditionNotMet(why) => write!(f, "precondition not met: {why}"),
            Error::Stopped => f.write_str("participant stopped"),
            Error::Io(e) => write!(f, "I/O: {e}"),
            Error::Store(e) => e.fmt(f),
            Error::PeerGroup(e) => e.fmt(f),
            Error::Security(e) => write!(f, "security: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<crate::runtime::RuntimeStopped> for Error {
    fn from(_: crate::runtime::RuntimeStopped) -> Self {
        Error::Stopped
    }
}

impl From<crate::runtime::durability_store::PersistentWriteError> for Error {
    fn from(e: crate::runtime::durability_store::PersistentWriteError) -> Self {
        use crate::runtime::durability_store::{PersistentWriteError, StoreError};
        match e {
            PersistentWriteError::Write(e) => Error::Write(e),
            PersistentWriteError::Store(StoreError::Stopped) => Error::Stopped,
            PersistentWriteError::Store(e) => Error::Store(e),
        }
    }
}
