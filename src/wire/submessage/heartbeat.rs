//! HEARTBEAT and HEARTBEAT_FRAG: a writer announcing which sequence numbers (or fragments) it
//! has available.
//!
//! Must not: act on the heartbeat (core does), or panic on any input.
//!
//! RTPS 2.5 §8.3.7.5 (Heartbeat), §8.3.7.6 (HeartbeatFrag), §9.4.5.6 and §9.4.5.7 (mapping).

use super::data::parse_ids;
use super::{HEARTBEAT, HEARTBEAT_FRAG, SubmessageHeader, body_reader, emit_submessage};
use crate::cdr::Endianness;
use crate::wire::{EntityId, FragmentNumber, SequenceNumber, WireError};

/// HEARTBEAT flag F: final, no reply required. RTPS 2.5 §9.4.5.6.1.
pub const HEARTBEAT_FLAG_F: u8 = 0x02;
/// HEARTBEAT flag L: liveliness.
pub const HEARTBEAT_FLAG_L: u8 = 0x04;

/// readerId + writerId + firstSN + lastSN + count.
const HEARTBEAT_BODY_LEN: usize = 28;
/// readerId + writerId + writerSN + lastFragmentNum + count.
const HEARTBEAT_FRAG_BODY_LEN: usize = 24;

/// HEARTBEAT. RTPS 2.5 §8.3.7.5.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Heartbeat {
    /// Byte order of the submessage.
    pub endian: Endianness,
    /// F: the reader need not reply.
    pub final_flag: bool,
    /// L: the heartbeat asserts the writer's liveliness.
    pub liveliness: bool,
    /// readerId.
    pub reader_id: EntityId,
    /// writerId.
    pub writer_id: EntityId,
    /// firstSN: the first available sequence number (≥ 1).
    pub first_sn: SequenceNumber,
    /// lastSN: the last available sequence number (≥ firstSN − 1; equal means empty). A
    /// received lastSN below firstSN − 1 (RTI's habit) is read as firstSN − 1.
    pub last_sn: SequenceNumber,
    /// count: increments with each new heartbeat.
    pub count: i32,
}

impl Heartbeat {
    /// Parses a HEARTBEAT body.
    pub fn parse(flags: u8, body: &[u8]) -> Result<Self, WireError> {
        let mut r = body_reader(flags, body);
        let (reader_id, writer_id) = parse_ids(&mut r)?;
        let first_sn = SequenceNumber::parse(&mut r)?;
        let last_sn = SequenceNumber::parse(&mut r)?;
        let count = r.i32("HEARTBEAT.count")?;
        // RTPS 2.5 §8.3.7.5.3: firstSN ≥ 1 and lastSN ≥ firstSN − 1. A negative SN is
        // malformed. RTI Connext 6.1 writers also send 0 ≤ lastSN < firstSN − 1 (first 90,
        // last 86: the samples after 86 were filtered out for this reader, those up to 89 are
        // gone): read as what it says — nothing is available before firstSN and nothing
        // after it yet — i.e. lastSN = firstSN − 1, an empty range (docs/interop-facts.md
        // §5.8; Cyclone 0.10 and Fast DDS 2.9 refuse it and lose the rest of the datagram).
        if first_sn.0 <= 0 {
            return Err(WireError::Invalid("HEARTBEAT.firstSN"));
        }
        if last_sn.0 < 0 {
            return Err(WireError::Invalid("HEARTBEAT.lastSN"));
        }
        let Some(empty) = first_sn.checked_sub(1) else {
            return Err(WireError::Invalid("HEARTBEAT.firstSN"));
        };
        let last_sn = last_sn.max(empty);
        Ok(Heartbeat {
            endian: r.endian(),
            final_flag: flags & HEARTBEAT_FLAG_F != 0,
            liveliness: flags & HEARTBEAT_FLAG_L != 0,
            reader_id,
            writer_id,
            first_sn,
            last_sn,
            count,
        })
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        SubmessageHeader::LEN.saturating_add(HEARTBEAT_BODY_LEN)
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let f = if self.final_flag { HEARTBEAT_FLAG_F } else { 0 };
        let l = if self.liveliness { HEARTBEAT_FLAG_L } else { 0 };
        emit_submessage(
            buf,
            HEARTBEAT,
            f | l,
            self.endian,
            HEARTBEAT_BODY_LEN,
            |w| {
                self.reader_id.emit(w);
                self.writer_id.emit(w);
                self.first_sn.emit(w);
                self.last_sn.emit(w);
                w.i32(self.count);
            },
        );
    }
}

/// HEARTBEAT_FRAG. RTPS 2.5 §8.3.7.6.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct HeartbeatFrag {
    /// Byte order of the submessage.
    pub endian: Endianness,
    /// readerId.
    pub reader_id: EntityId,
    /// writerId.
    pub writer_id: EntityId,
    /// writerSN: the sample whose fragments are announced (≥ 1).
    pub writer_sn: SequenceNumber,
    /// lastFragmentNum: the highest fragment available (≥ 1).
    pub last_fragment_num: FragmentNumber,
    /// count.
    pub count: i32,
}

impl HeartbeatFrag {
    /// Parses a HEARTBEAT_FRAG body.
    pub fn parse(flags: u8, body: &[u8]) -> Result<Self, WireError> {
        let mut r = body_reader(flags, body);
        let (reader_id, writer_id) = parse_ids(&mut r)?;
        let writer_sn = SequenceNumber::parse(&mut r)?;
        let last_fragment_num = FragmentNumber::parse(&mut r)?;
        let count = r.i32("HEARTBEAT_FRAG.count")?;
        // RTPS 2.5 §8.3.7.6.3: writerSN ≥ 1 and lastFragmentNum ≥ 1.
        if writer_sn.0 <= 0 {
            return Err(WireError::Invalid("HEARTBEAT_FRAG.writerSN"));
        }
        if last_fragment_num.0 == 0 {
            return Err(WireError::Invalid("HEARTBEAT_FRAG.lastFragmentNum"));
        }
        Ok(HeartbeatFrag {
            endian: r.endian(),
            reader_id,
            writer_id,
            writer_sn,
            last_fragment_num,
            count,
        })
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        SubmessageHeader::LEN.saturating_add(HEARTBEAT_FRAG_BODY_LEN)
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        emit_submessage(
            buf,
            HEARTBEAT_FRAG,
            0,
            self.endian,
            HEARTBEAT_FRAG_BODY_LEN,
            |w| {
                self.reader_id.emit(w);
                self.writer_id.emit(w);
                self.writer_sn.emit(w);
                self.last_fragment_num.emit(w);
                w.i32(self.count);
            },
        );
    }
}
