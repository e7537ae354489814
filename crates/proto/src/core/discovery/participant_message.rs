//! ParticipantMessageData, the sample type of the Writer Liveliness Protocol's builtin
//! endpoints: its key, payload encoding and decoding. What the participant does with it is
//! `core::participant::liveliness`.
//!
//! Must not: allocate more than [`MAX_PARTICIPANT_MESSAGE_DATA`] for a received `data`, or panic
//! on any payload.
//!
//! RTPS 2.5 §9.6.2.1 (ParticipantMessageData), §8.4.13 (Writer Liveliness Protocol).

use crate::cdr::{
    CdrError, CdrReader, CdrWriter, EncapsulationHeader, EncapsulationKind, Endianness,
};
use crate::wire::GuidPrefix;

/// PARTICIPANT_MESSAGE_DATA_KIND_AUTOMATIC_LIVELINESS_UPDATE. RTPS 2.5 §9.6.2.1.
pub const AUTOMATIC_LIVELINESS_UPDATE: [u8; 4] = [0, 0, 0, 1];
/// PARTICIPANT_MESSAGE_DATA_KIND_MANUAL_LIVELINESS_UPDATE. RTPS 2.5 §9.6.2.1.
pub const MANUAL_LIVELINESS_UPDATE: [u8; 4] = [0, 0, 0, 2];
/// Largest `data` octet sequence accepted in a received ParticipantMessageData.
pub const MAX_PARTICIPANT_MESSAGE_DATA: usize = 4096;
/// ParticipantMessageData, the sample type of the WLP endpoints. RTPS 2.5 §9.6.2.1: key
/// `{participantGuidPrefix, kind}`, then `sequence<octet> data`.
///
/// # Wire layout (observed)
/// Cyclone DDS 0.10 (`tests/data/captures/*-to-*.pcapng`, DATA from 000200c2): encapsulation
/// CDR_LE `00 01 00 00`, the 12-octet prefix, kind `00 00 00 01` (octets, not an integer),
/// sequence length 1 (little-endian), one octet `00`, three octets of padding to a multiple of
/// 4 (Cyclone's decoder requires it): 28 octets, no inline QoS. Fast DDS 2.9
/// (`WLP::send_liveliness_message`) labels the same plain-CDR body PL_CDR_LE (`00 03 00 00`),
/// sends an empty sequence plus four zero octets, and an inline PID_KEY_HASH.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParticipantMessageData {
    /// The participant whose liveliness this asserts.
    pub participant_guid_prefix: GuidPrefix,
    /// [`AUTOMATIC_LIVELINESS_UPDATE`], [`MANUAL_LIVELINESS_UPDATE`] or a vendor kind.
    pub kind: [u8; 4],
    /// Opaque data (we send one zero octet, as Cyclone does).
    pub data: Vec<u8>,
}

impl ParticipantMessageData {
    /// An AUTOMATIC_LIVELINESS_UPDATE from `prefix`.
    pub fn automatic(prefix: GuidPrefix) -> Self {
        ParticipantMessageData {
            participant_guid_prefix: prefix,
            kind: AUTOMATIC_LIVELINESS_UPDATE,
            data: vec![0],
        }
    }

    /// A MANUAL_LIVELINESS_UPDATE from `prefix`.
    pub fn manual(prefix: GuidPrefix) -> Self {
        ParticipantMessageData {
            kind: MANUAL_LIVELINESS_UPDATE,
            ..Self::automatic(prefix)
        }
    }

    /// The instance key hash: the key `{prefix, kind}` serialized big-endian is exactly 16
    /// octets, so it is the hash itself (RTPS 2.5 §9.6.4.8; Fast DDS builds the same handle).
    pub fn key_hash(&self) -> [u8; 16] {
        let mut k = [0u8; 16];
        let (p, kind) = k.split_at_mut(12);
        p.copy_from_slice(&self.participant_guid_prefix.0);
        kind.copy_from_slice(&self.kind);
        k
    }

    /// The serialized payload: CDR encapsulation header and body, padded to a multiple of 4.
    pub fn to_payload(&self, endian: Endianness) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.data.len().saturating_add(28));
        let mut w = CdrWriter::new(&mut out, endian);
        EncapsulationHeader::new(EncapsulationKind::Cdr, endian).emit(&mut w);
        let mut body = w.nested();
        body.bytes(&self.participant_guid_prefix.0);
        body.bytes(&self.kind);
        body.u32(u32::try_from(self.data.len()).unwrap_or(u32::MAX));
        body.bytes(&self.data);
        body.align(4);
        out
    }

    /// Decodes a received payload. Plain CDR in either byte order; PL_CDR_* is accepted as
    /// plain CDR (Fast DDS 2.9 quirk, see the type's documentation). Trailing octets (padding)
    /// are ignored.
    pub fn from_payload(payload: &[u8]) -> Result<Self, CdrError> {
        let mut r = CdrReader::new(payload, Endianness::Big);
        let header = EncapsulationHeader::parse(&mut r)?;
        if !matches!(
            header.kind,
            EncapsulationKind::Cdr | EncapsulationKind::PlCdr
        ) {
            return Err(CdrError::Invalid("ParticipantMessageData encapsulation"));
        }
        let mut r = CdrReader::new(r.rest(), header.endian);
        let participant_guid_prefix = GuidPrefix(r.take_array::<12>("participantGuidPrefix")?);
        let kind = r.take_array::<4>("ParticipantMessageData.kind")?;
        let len = r.seq_len(1, "ParticipantMessageData.data")?;
        if len > MAX_PARTICIPANT_MESSAGE_DATA {
            return Err(CdrError::TooLarge("ParticipantMessageData.data"));
        }
        let data = r.take(len, "ParticipantMessageData.data")?.to_vec();
        Ok(ParticipantMessageData {
            participant_guid_prefix,
            kind,
            data,
        })
    }
}
