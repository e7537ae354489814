//! CacheChange: one entry of a writer's or reader's history, and WriteRequest: the one value
//! a write is from the API to the writer that turns it into a change. RTPS 2.5 §8.2.2
//! (HistoryCache), §8.2.3 (CacheChange), DDS 1.4 §2.2.2.5 (instance lifecycle).
//!
//! Must not: copy payloads; the serialized bytes are shared (`Bytes`) between the history and
//! every reader the change is sent to.

use bytes::Bytes;

use crate::time::Timestamp;
pub use crate::wire::SampleIdentity;
use crate::wire::{GroupDigest, Guid, SequenceNumber};

/// A change's place in its writer group (a publisher with PRESENTATION access scope GROUP),
/// RTPS 2.5 §8.7.6, §9.6.3: its group sequence number (PID_GROUP_SEQ_NUM), the group
/// coherent set it belongs to (PID_GROUP_COHERENT_SET: the group SN of the set's first change)
/// and, on a writer's end-of-set marker, the writers taking part in that set
/// (PID_WRITER_GROUP_INFO).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct GroupStamp {
    /// PID_GROUP_SEQ_NUM.
    pub gsn: SequenceNumber,
    /// PID_GROUP_COHERENT_SET.
    pub coherent_set: Option<SequenceNumber>,
    /// PID_WRITER_GROUP_INFO's writerSet (end-of-set markers only).
    pub writer_set: Option<GroupDigest>,
}

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
    /// PID_ORIGINAL_WRITER_INFO: who first wrote it, when a router relays it.
    pub original_writer: Option<SampleIdentity>,
    /// PID_COHERENT_SET: the SN of the first change of the coherent set this change belongs
    /// to (RTPS 2.5 §8.7.5, §9.6.4.4). `Some(SequenceNumber::UNKNOWN)` with an ALIVE kind and
    /// no data is the end-of-set marker (see `core::writer::coherent`).
    pub coherent_set: Option<SequenceNumber>,
    /// The change's writer-group stamp (GROUP access scope), `core::participant::group`.
    pub group: Option<GroupStamp>,
}

impl CacheChange {
    /// True for the end-of-set marker a writer adds at `end_coherent_changes`: no data, no
    /// status, PID_COHERENT_SET only. It is never handed to the application.
    pub fn is_coherent_end(&self) -> bool {
        self.kind == ChangeKind::Alive && self.data.is_empty() && self.coherent_set.is_some()
    }
}

/// One write of the application: what `siftdds::api::DataWriter` asks for, handed
/// unchanged through the runtime and [`Participant::write`](crate::core::Participant::write)
/// to [`Writer::write`](crate::core::writer::Writer::write), which makes it a
/// [`CacheChange`]. DDS 1.4 §2.2.2.4.2.11 (write), §2.2.2.4.2.12 (write_w_timestamp),
/// §2.2.2.4.2.13 (dispose), §2.2.2.4.2.7 (unregister_instance); RTPS 2.5 §8.4.7.2 (new_change).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteRequest {
    /// ALIVE, dispose or unregister.
    pub kind: ChangeKind,
    /// The instance's key hash (keyed topics).
    pub key_hash: Option<[u8; 16]>,
    /// The serialized sample (encapsulation header included) for ALIVE, else the serialized
    /// key or empty.
    pub data: Bytes,
    /// The source timestamp (write_w_timestamp); `None`: the wall-clock time at which the
    /// writer takes the change.
    pub source_timestamp: Option<Timestamp>,
    /// The identity to announce in PID_ORIGINAL_WRITER_INFO (a router relaying a sample).
    pub original_writer: Option<SampleIdentity>,
    /// The writer-group stamp the participant gives the change (GROUP access scope); the API
    /// leaves it `None`.
    pub group: Option<GroupStamp>,
}

impl WriteRequest {
    /// A write of `data` as a change of `kind`, stamped with the time the writer takes it.
    pub fn new(kind: ChangeKind, key_hash: Option<[u8; 16]>, data: Bytes) -> Self {
        WriteRequest {
            kind,
            key_hash,
            data,
            source_timestamp: None,
            original_writer: None,
            group: None,
        }
    }

    /// The same write announcing `identity` as its original writer (RTPS 2.5 §8.7.9).
    pub fn with_original_writer(self, identity: Option<SampleIdentity>) -> Self {
        WriteRequest {
            original_writer: identity,
            ..self
        }
    }

    /// The same write with `timestamp` as its source timestamp (`None`: the write time).
    pub fn with_source_timestamp(self, timestamp: Option<Timestamp>) -> Self {
        WriteRequest {
            source_timestamp: timestamp,
            ..self
        }
    }
}
