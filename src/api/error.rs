//! The public error type, split by cause as rustls splits its errors (docs/conventions.md §4,
//! §7.3): what the application did wrong ([`UsageError`]), a configuration or QoS that cannot
//! be used ([`ConfigError`]), what a peer did ([`PeerError`]), local I/O ([`IoError`]), the
//! runtime having stopped, and a timeout. Each lower layer's error is sorted into one of
//! these kinds by one `From` impl here, so a call site never picks the kind itself.
//!
//! Must not: expose a lower layer's error except inside these kinds; hold a variant that no
//! call constructs.

use crate::core::peer_group::config::PeerGroupError;
use crate::core::writer::NotFiltering;
use crate::core::writer::WriteError;
use crate::qos::QosError;
use crate::qos::xml::QosXmlError;
use crate::runtime::durability_store::{PersistentWriteError, StoreError};
use crate::runtime::{InterfaceError, RuntimeStopped, StartError};
use crate::transport::TransportError;

/// Everything the public API can fail with, by cause.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The application used the API wrongly: a bad argument, an entity in the wrong state,
    /// a precondition not met. Retrying the same call fails the same way.
    Usage(UsageError),
    /// A QoS, a QoS profile, the interface selection, a QoS property or the security
    /// configuration cannot be used. Nothing was created.
    Config(ConfigError),
    /// The call failed because of what a peer did (or did not do).
    Peer(PeerError),
    /// Local I/O failed: sockets, the loop thread, the durability store.
    Io(IoError),
    /// The participant's event loop has stopped; no call on its entities can succeed.
    Stopped,
    /// The operation did not complete in the time given.
    Timeout,
}

/// The application used the API wrongly ([`Error::Usage`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum UsageError {
    /// The sample cannot be serialized: it breaks a bound of its type (a bounded string,
    /// sequence or array holds too many elements).
    InvalidSample {
        /// The topic type.
        type_name: &'static str,
    },
    /// A ContentFilteredTopic's expression or parameters do not parse, or do not type-check
    /// against the topic type (the reason carries the byte position in the expression).
    ContentFilter(NotFiltering),
    /// The writer refused the sample for a reason the application controls: RESOURCE_LIMITS
    /// max_instances reached, a sample over 4 GiB, no sequence number left, a deleted writer,
    /// or `end_coherent_changes` without a begin (DDS 1.4 §2.2.2.4.1.11:
    /// PRECONDITION_NOT_MET). A history full of unacknowledged changes is [`PeerError`].
    Write(WriteError),
    /// The arguments do not fit the entity (a condition of another reader).
    PreconditionNotMet(&'static str),
}

/// A configuration that cannot be used ([`Error::Config`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum ConfigError {
    /// The QoS given is inconsistent or invalid (DDS 1.4 §2.2.3: INCONSISTENT_POLICY).
    Qos(QosError),
    /// A QoS profile could not be used: unknown `Lib::Profile`, or a file error located as
    /// `file:line:col` (see [`crate::qos::xml::QosProvider`]).
    Profile(QosXmlError),
    /// The DATA_REPRESENTATION QoS names a representation (DDS-XTypes 1.3 §7.6.3.1.1 id) the
    /// topic type cannot write (a writer's first id) or decode (any id of a reader's list).
    UnsupportedDataRepresentation {
        /// The topic type.
        type_name: &'static str,
        /// The DataRepresentationId: 0 XCDR, 1 XML, 2 XCDR2.
        id: i16,
    },
    /// The interface selection names something this host does not have, or is malformed;
    /// nothing was opened.
    Interface(InterfaceError),
    /// A durability store setting (QoS property) has a value that cannot be used.
    StoreProperty(StoreError),
    /// A peer-group configuration is invalid (docs/peer-group-cache.md §2).
    PeerGroup(PeerGroupError),
    /// The DDS Security properties are incomplete, a file cannot be read, or the identity
    /// does not validate (the reason says which; `api::security`).
    Security(String),
}

/// A call failed because of a peer ([`Error::Peer`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum PeerError {
    /// KEEP_ALL (or a sample limit) is reached and matched reliable readers did not
    /// acknowledge a stored change within the writer's max_blocking_time.
    /// DDS 1.4 §2.2.3.14 (RELIABILITY max_blocking_time), §2.2.3.19.
    Unacknowledged(WriteError),
}

/// Local I/O failed ([`Error::Io`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum IoError {
    /// The participant's sockets could not be opened (ports taken, an OS error).
    Transport(TransportError),
    /// A thread (the participant's event loop, the router's) could not be started.
    Thread(std::io::Error),
    /// The PERSISTENT durability store (SQLite) could not be opened, read or written.
    Store(StoreError),
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::Usage(e) => e.fmt(f),
            Error::Config(e) => e.fmt(f),
            Error::Peer(e) => e.fmt(f),
            Error::Io(e) => e.fmt(f),
            Error::Stopped => f.write_str("participant stopped"),
            Error::Timeout => f.write_str("timed out"),
        }
    }
}

impl core::fmt::Display for UsageError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            UsageError::InvalidSample { type_name } => {
                write!(f, "a {type_name} sample breaks a bound of its type")
            }
            UsageError::ContentFilter(e) => write!(f, "content filter: {e}"),
            UsageError::Write(e) => write!(f, "write: {e}"),
            UsageError::PreconditionNotMet(why) => write!(f, "precondition not met: {why}"),
        }
    }
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ConfigError::Qos(e) => write!(f, "QoS: {e}"),
            ConfigError::Profile(e) => write!(f, "QoS profile: {e}"),
            ConfigError::UnsupportedDataRepresentation { type_name, id } => {
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
            ConfigError::Interface(e) => e.fmt(f),
            ConfigError::StoreProperty(e) => e.fmt(f),
            ConfigError::PeerGroup(e) => e.fmt(f),
            ConfigError::Security(e) => write!(f, "security: {e}"),
        }
    }
}

impl core::fmt::Display for PeerError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PeerError::Unacknowledged(e) => write!(f, "write: {e}"),
        }
    }
}

impl core::fmt::Display for IoError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            IoError::Transport(e) => write!(f, "transport: {e}"),
            IoError::Thread(e) => write!(f, "I/O: {e}"),
            IoError::Store(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    /// The lower layer's error behind this one, where there is one.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Usage(e) => e.source(),
            Error::Config(e) => e.source(),
            Error::Peer(e) => e.source(),
            Error::Io(e) => e.source(),
            Error::Stopped | Error::Timeout => None,
        }
    }
}

impl std::error::Error for UsageError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            UsageError::ContentFilter(e) => Some(e),
            UsageError::Write(e) => Some(e),
            UsageError::InvalidSample { .. } | UsageError::PreconditionNotMet(_) => None,
        }
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConfigError::Qos(e) => Some(e),
            ConfigError::Profile(e) => Some(e),
            ConfigError::Interface(e) => Some(e),
            ConfigError::StoreProperty(e) => Some(e),
            ConfigError::PeerGroup(e) => Some(e),
            ConfigError::UnsupportedDataRepresentation { .. } | ConfigError::Security(_) => None,
        }
    }
}

impl std::error::Error for PeerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PeerError::Unacknowledged(e) => Some(e),
        }
    }
}

impl std::error::Error for IoError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            IoError::Transport(e) => Some(e),
            IoError::Thread(e) => Some(e),
            IoError::Store(e) => Some(e),
        }
    }
}

impl From<UsageError> for Error {
    fn from(e: UsageError) -> Self {
        Error::Usage(e)
    }
}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Error::Config(e)
    }
}

impl From<IoError> for Error {
    fn from(e: IoError) -> Self {
        Error::Io(e)
    }
}

impl From<QosError> for Error {
    fn from(e: QosError) -> Self {
        Error::Config(ConfigError::Qos(e))
    }
}

impl From<QosXmlError> for Error {
    fn from(e: QosXmlError) -> Self {
        Error::Config(ConfigError::Profile(e))
    }
}

impl From<PeerGroupError> for Error {
    fn from(e: PeerGroupError) -> Self {
        Error::Config(ConfigError::PeerGroup(e))
    }
}

impl From<NotFiltering> for Error {
    fn from(e: NotFiltering) -> Self {
        Error::Usage(UsageError::ContentFilter(e))
    }
}

impl From<RuntimeStopped> for Error {
    fn from(_: RuntimeStopped) -> Self {
        Error::Stopped
    }
}

impl From<WriteError> for Error {
    /// A full history waits on the readers' acknowledgments: a peer's doing. Every other
    /// refusal follows from what the application wrote or configured.
    fn from(e: WriteError) -> Self {
        match e {
            WriteError::HistoryFull => Error::Peer(PeerError::Unacknowledged(e)),
            e => Error::Usage(UsageError::Write(e)),
        }
    }
}

impl From<StartError> for Error {
    fn from(e: StartError) -> Self {
        match e {
            StartError::Interface(e) => Error::Config(ConfigError::Interface(e)),
            StartError::Transport(e) => Error::Io(IoError::Transport(e)),
            StartError::Io(e) => Error::Io(IoError::Thread(e)),
        }
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Stopped => Error::Stopped,
            e @ StoreError::BadProperty { .. } => Error::Config(ConfigError::StoreProperty(e)),
            e => Error::Io(IoError::Store(e)),
        }
    }
}

impl From<PersistentWriteError> for Error {
    fn from(e: PersistentWriteError) -> Self {
        match e {
            PersistentWriteError::Write(e) => Error::from(e),
            PersistentWriteError::Store(e) => Error::from(e),
        }
    }
}

#[cfg(test)]
mod tests;
