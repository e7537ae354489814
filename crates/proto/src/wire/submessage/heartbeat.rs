//! HEARTBEAT and HEARTBEAT_FRAG: a writer announcing which sequence numbers (or fragments) it
//! has available.
//!
//! Must not: act on the heartbeat (core does), or panic on any input.
//!
//! RTPS 2.5 §8.3.7.5 (Heartbeat), §8.3.7.6 (HeartbeatFrag), §9.4.5.6 and §9.4.5.7 (mapping).
//! With the GroupInfo flag (G, 0x08) a HEARTBEAT also carries the writer group's sequence
//! numbers (currentGSN, firstGSN, lastGSN) and two GroupDigest_t (writerSet, secureWriterSet)
//! after `count` (RTPS 2.5 §8.3.7.5, §8.7.6, §9.4.5.6; docs/interop-facts.md §8.4).

use super::data::parse_ids;
use super::{HEARTBEAT, HEARTBEAT_FRAG, SubmessageHeader, body_reader, emit_submessage};
use crate::cdr::Endianness;
use crate::wire::{EntityId, FragmentNumber, GroupDigest, SequenceNumber, WireError};

/// HEARTBEAT flag F: final, no reply required. RTPS 2.5 §9.4.5.6.1.
pub const HEARTBEAT_FLAG_F: u8 = 0x02;
/// HEARTBEAT flag L: liveliness.
pub const HEARTBEAT_FLAG_L: u8 = 0x04;
/// HEARTBEAT flag G: GroupInfo (currentGSN … secureWriterSet) follows `count`. RTPS 2.5
/// §9.4.5.6.1.
pub const HEARTBEAT_FLAG_G: u8 = 0x08;

/// readerId + writerId + firstSN + lastSN + count.
const HEARTBEAT_BODY_LEN: usize = 28;
/// currentGSN + firstGSN + lastGSN + writerSet + secureWriterSet.
const GROUP_INFO_LEN: usize = 32;

/// The writer group's sequence numbers in a HEARTBEAT with the G flag. RTPS 2.5 §8.3.7.5.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct HeartbeatGroupInfo {
    /// currentGSN: the highest group SN any writer of the group had written when the
    /// HEARTBEAT was sent.
    pub current_gsn: SequenceNumber,
    /// firstGSN: the group SN of the change at firstSN.
    pub first_gsn: SequenceNumber,
    /// lastGSN: the group SN of the change at lastSN.
    pub last_gsn: SequenceNumber,
    /// writerSet: digest of the writers in the group when currentGSN was written.
    pub writer_set: GroupDigest,
    /// secureWriterSet: reserved for DDS Security (sent as zero).
    pub secure_writer_set: GroupDigest,
}

impl HeartbeatGroupInfo {
    /// Reads the group info and checks it: firstGSN ≥ 1, lastGSN ≥ firstGSN − 1 and
    /// currentGSN ≥ lastGSN (RTPS 2.5 §8.3.7.5.3, read as for firstSN/lastSN).
    fn parse(r: &mut crate::cdr::CdrReader<'_>) -> Result<Self, WireError> {
        let current_gsn = SequenceNumber::parse(r)?;
        let first_gsn = SequenceNumber::parse(r)?;
        let last_gsn = SequenceNumber::parse(r)?;
        let writer_set = GroupDigest(r.take_array::<4>("HEARTBEAT.writerSet")?);
        let secure_writer_set = GroupDigest(r.take_array::<4>("HEARTBEAT.secureWriterSet")?);
        let empty = first_gsn.checked_sub(1);
        if first_gsn.0 <= 0 || empty.is_none_or(|e| last_gsn < e) || current_gsn < last_gsn {
            return Err(WireError::Invalid("HEARTBEAT.groupInfo"));
        }
        Ok(HeartbeatGroupInfo {
            current_gsn,
            first_gsn,
            last_gsn,
            writer_set,
            secure_writer_set,
        })
    }
}
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
    /// Present when the G flag is set (a writer of a GROUP-scope publisher).
    pub group_info: Option<HeartbeatGroupInfo>,
}

impl Heartbeat {
    /// Parses a HEARTBEAT body.
    pub fn parse(flags: u8, body: &[u8]) -> Result<Self, WireError> {
        let mut r = body_reader(flags, body);
        let (reader_id, writer_id) = parse_ids(&mut r)?;
        let first_sn = SequenceNumber::parse(&mut r)?;
        let last_sn = SequenceNumber::parse(&mut r)?;
        let count = r.i32("HEARTBEAT.count")?;
        let group_info = if flags & HEARTBEAT_FLAG_G != 0 {
            Some(HeartbeatGroupInfo::parse(&mut r)?)
        } else {
            None
        };
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
            group_info,
        })
    }

    fn body_len(&self) -> usize {
        let group = if self.group_info.is_some() {
            GROUP_INFO_LEN
        } else {
            0
        };
        HEARTBEAT_BODY_LEN.saturating_add(group)
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        SubmessageHeader::LEN.saturating_add(self.body_len())
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let f = if self.final_flag { HEARTBEAT_FLAG_F } else { 0 };
        let l = if self.liveliness { HEARTBEAT_FLAG_L } else { 0 };
        let g = if self.group_info.is_some() {
            HEARTBEAT_FLAG_G
        } else {
            0
        };
        emit_submessage(
            buf,
            HEARTBEAT,
            f | l | g,
            self.endian,
            self.body_len(),
            |w| {
                self.reader_id.emit(w);
                self.writer_id.emit(w);
                self.first_sn.emit(w);
                self.last_sn.emit(w);
                w.i32(self.count);
                if let Some(gi) = &self.group_info {
                    gi.current_gsn.emit(w);
                    gi.first_gsn.emit(w);
                    gi.last_gsn.emit(w);
                    w.bytes(&gi.writer_set.0);
                    w.bytes(&gi.secure_writer_set.0);
                }
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

#[cfg(test)]
mod group_info_tests {
    use super::*;
    use crate::wire::submessage::{SubmessageIter, SubmessageOutcome};

    fn with_group(current: i64, first: i64, last: i64) -> Heartbeat {
        Heartbeat {
            endian: Endianness::Little,
            final_flag: false,
            liveliness: false,
            reader_id: EntityId::UNKNOWN,
            writer_id: EntityId([0, 0, 1, 0x02]),
            first_sn: SequenceNumber(1),
            last_sn: SequenceNumber(3),
            count: 4,
            group_info: Some(HeartbeatGroupInfo {
                current_gsn: SequenceNumber(current),
                first_gsn: SequenceNumber(first),
                last_gsn: SequenceNumber(last),
                writer_set: GroupDigest([9, 8, 7, 6]),
                secure_writer_set: GroupDigest::default(),
            }),
        }
    }

    #[test]
    fn group_info_round_trips_behind_the_g_flag() {
        let hb = with_group(12, 2, 10);
        let mut buf = Vec::new();
        hb.emit(&mut buf);
        assert_eq!(buf.len(), hb.buffer_len());
        assert_eq!(buf.len(), 4 + 28 + 32);
        assert_eq!(buf[1] & HEARTBEAT_FLAG_G, HEARTBEAT_FLAG_G);
        assert_eq!(Heartbeat::parse(buf[1], &buf[4..]), Ok(hb));
        // Without the flag the same bytes are a plain HEARTBEAT with trailing octets.
        let plain = Heartbeat::parse(buf[1] & !HEARTBEAT_FLAG_G, &buf[4..]).map(|h| h.group_info);
        assert_eq!(plain, Ok(None));
    }

    #[test]
    fn a_short_or_inconsistent_group_info_is_malformed() {
        let mut buf = Vec::new();
        with_group(12, 2, 10).emit(&mut buf);
        // Cut the secureWriterSet: the G flag promises 32 octets.
        assert!(Heartbeat::parse(buf[1], &buf[4..buf.len() - 4]).is_err());
        for (current, first, last) in [(12, 0, 10), (12, 5, 3), (9, 2, 10), (12, -3, 10)] {
            let mut b = Vec::new();
            with_group(current, first, last).emit(&mut b);
            assert_eq!(
                Heartbeat::parse(b[1], &b[4..]),
                Err(WireError::Invalid("HEARTBEAT.groupInfo")),
                "{current} {first} {last}"
            );
        }
        // An empty group range (lastGSN = firstGSN − 1) is valid.
        let mut b = Vec::new();
        with_group(4, 5, 4).emit(&mut b);
        assert!(Heartbeat::parse(b[1], &b[4..]).is_ok());
        // In a message walk an inconsistent group info is Malformed: the rest is dropped.
        let mut bad = Vec::new();
        with_group(9, 2, 10).emit(&mut bad);
        with_group(12, 2, 10).emit(&mut bad);
        let outcomes: Vec<_> = SubmessageIter::new(&bad).collect();
        assert_eq!(outcomes.len(), 1);
        assert!(matches!(outcomes[0], SubmessageOutcome::Malformed(_)));
    }
}
