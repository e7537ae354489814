//! CacheChange: one entry of a writer's or reader's history. RTPS 2.5 §8.2.2 (HistoryCache),
//! §8.2.3 (CacheChange), DDS 1.4 §2.2.2.5 (instance lifecycle).
//!
//! Must not: copy payloads; the serialized bytes are shared (`Bytes`) between the history and
//! every reader the change is sent to.

use bytes::Bytes;

use crate::time::Timestamp;
use crate::wire::{Guid, SequenceNumber};

/// ChangeKind_t. RTPS 2.5 §8.2.2.1; wire form PID_STATUS_INFO (§9.6.4.9).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// A new value of the instance (DATA with D flag).
    Alive,
    /// The writer disposed the instance (status info D).
    NotAliveDisposed,
    /// The writer unregistered the instance (status info U).
    NotAliveUnregistered,
    /// Both disposed and unregistered (status info D|U).
    NotAliveDisposedUnregistered,
    /// Reader-side notification: the last matched writer of the instance unmatched or its
    /// participant was lost, so the instance is NOT_ALIVE_NO_WRITERS (DDS 1.4 §2.2.2.5.1.4,
    /// §2.2.3.23). Never received from the wire; if written, it goes out as an unregister
    /// (status info U), which is what a writer's disappearance means to its readers.
    NotAliveNoWriters,
}

impl ChangeKind {
    /// The PID_STATUS_INFO flags for this kind (0 for Alive). RTPS 2.5 §9.6.4.9.
    pub fn status_info(self) -> u32 {
        match self {
            ChangeKind::Alive => 0,
            ChangeKind::NotAliveDisposed => 0x1,
            ChangeKind::NotAliveUnregistered | ChangeKind::NotAliveNoWriters => 0x2,
            ChangeKind::NotAliveDisposedUnregistered => 0x3,
        }
    }

    /// The kind for PID_STATUS_INFO flags (the filtered bit 0x4 is ignored here). Never
    /// [`ChangeKind::NotAliveNoWriters`], which only the local reader produces.
    pub fn from_status_info(flags: u32) -> Self {
        match flags & 0x3 {
            0x1 => ChangeKind::NotAliveDisposed,
            0x2 => ChangeKind::NotAliveUnregistered,
            0x3 => ChangeKind::NotAliveDisposedUnregistered,
            _ => ChangeKind::Alive,
        }
    }
}

/// One change in a history cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheChange {
    /// Alive data or an instance state change.
    pub kind: ChangeKind,
    /// The writer that made the change.
    pub writer_guid: Guid,
    /// Its sequence number in that writer.
    pub sequence_number: SequenceNumber,
    /// The instance's key hash (PID_KEY_HASH), when the topic is keyed.
    pub key_hash: Option<[u8; 16]>,
    /// Source timestamp (INFO_TS), when known.
    pub source_timestamp: Option<Timestamp>,
    /// The serialized payload including its 4-byte encapsulation header: the sample for
    /// `Alive`, the serialized key (or empty) otherwise.
    pub data: Bytes,
}
