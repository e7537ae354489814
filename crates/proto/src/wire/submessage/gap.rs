//! GAP: a writer telling readers that some sequence numbers are irrelevant to them (never
//! written, filtered out, or no longer available).
//!
//! Must not: act on the gap (core does), or panic on any input.
//!
//! RTPS 2.5 §8.3.7.4 (Gap), §9.4.5.5 (mapping). The irrelevant set is
//! `[gapStart, gapList.bitmapBase − 1]` plus the members of gapList.

use super::data::parse_ids;
use super::{GAP, SubmessageHeader, body_reader, emit_submessage};
use crate::cdr::Endianness;
use crate::wire::{EntityId, SequenceNumber, SequenceNumberSet, WireError};

/// GAP flag G: group info (gapStartGSN, gapEndGSN) follows. RTPS 2.5 §9.4.5.5.1.
pub const GAP_FLAG_G: u8 = 0x02;

/// readerId + writerId + gapStart.
const FIXED_LEN: usize = 16;
/// gapStartGSN + gapEndGSN.
const GROUP_LEN: usize = 16;

/// The group sequence numbers of a GAP with the G flag. RTPS 2.5 §8.3.7.4.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct GapGroupInfo {
    /// gapStartGSN.
    pub gap_start_gsn: SequenceNumber,
    /// gapEndGSN.
    pub gap_end_gsn: SequenceNumber,
}

/// GAP. RTPS 2.5 §8.3.7.4.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Gap {
    /// Byte order of the submessage.
    pub endian: Endianness,
    /// readerId.
    pub reader_id: EntityId,
    /// writerId.
    pub writer_id: EntityId,
    /// gapStart: first irrelevant SN (≥ 1).
    pub gap_start: SequenceNumber,
    /// gapList: its base ends the contiguous range; its members are irrelevant too.
    pub gap_list: SequenceNumberSet,
    /// Present when the G flag is set.
    pub group: Option<GapGroupInfo>,
}

impl Gap {
    /// Parses a GAP body.
    pub fn parse(flags: u8, body: &[u8]) -> Result<Self, WireError> {
        let mut r = body_reader(flags, body);
        let (reader_id, writer_id) = parse_ids(&mut r)?;
        let gap_start = SequenceNumber::parse(&mut r)?;
        let gap_list = SequenceNumberSet::parse(&mut r)?;
        let group = if flags & GAP_FLAG_G != 0 {
            let gap_start_gsn = SequenceNumber::parse(&mut r)?;
            let gap_end_gsn = SequenceNumber::parse(&mut r)?;
            Some(GapGroupInfo {
                gap_start_gsn,
                gap_end_gsn,
            })
        } else {
            None
        };
        // RTPS 2.5 §8.3.7.4.3: gapStart ≥ 1 and gapList valid (bitmapBase ≥ 1, §9.4.2.6).
        if gap_start.0 <= 0 {
            return Err(WireError::Invalid("GAP.gapStart"));
        }
        if gap_list.bitmap_base().0 <= 0 {
            return Err(WireError::Invalid("GAP.gapList.bitmapBase"));
        }
        // A gapList base below gapStart is not listed as invalid by the spec; the contiguous
        // range is then simply empty (see `contains`).
        Ok(Gap {
            endian: r.endian(),
            reader_id,
            writer_id,
            gap_start,
            gap_list,
            group,
        })
    }

    /// True if `sn` is irrelevant according to this GAP.
    pub fn contains(&self, sn: SequenceNumber) -> bool {
        (sn >= self.gap_start && sn < self.gap_list.bitmap_base()) || self.gap_list.contains(sn)
    }

    fn body_len(&self) -> usize {
        let group = if self.group.is_some() { GROUP_LEN } else { 0 };
        FIXED_LEN
            .saturating_add(self.gap_list.buffer_len())
            .saturating_add(group)
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        self.body_len().saturating_add(SubmessageHeader::LEN)
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let g = if self.group.is_some() { GAP_FLAG_G } else { 0 };
        emit_submessage(buf, GAP, g, self.endian, self.body_len(), |w| {
            self.reader_id.emit(w);
            self.writer_id.emit(w);
            self.gap_start.emit(w);
            self.gap_list.emit(w);
            if let Some(g) = &self.group {
                g.gap_start_gsn.emit(w);
                g.gap_end_gsn.emit(w);
            }
        });
    }
}
