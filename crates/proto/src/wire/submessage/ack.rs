//! ACKNACK and NACK_FRAG: a reader telling a writer what it has and what it misses.
//!
//! Must not: act on the acknowledgement (core does), reject the pre-emptive ACKNACK vendor
//! quirk, or panic on any input.
//!
//! RTPS 2.5 §8.3.7.1 (AckNack), §8.3.7.8 (NackFrag), §9.4.5.2 and §9.4.5.10 (mapping).

use super::data::parse_ids;
use super::{ACKNACK, NACK_FRAG, SubmessageHeader, body_reader, emit_submessage};
use crate::cdr::Endianness;
use crate::wire::{EntityId, FragmentNumberSet, SequenceNumber, SequenceNumberSet, WireError};

/// ACKNACK flag F: final, the writer need not respond with a heartbeat. RTPS 2.5 §9.4.5.2.1.
pub const ACKNACK_FLAG_F: u8 = 0x02;

/// readerId + writerId + count.
const IDS_AND_COUNT_LEN: usize = 12;

/// ACKNACK. RTPS 2.5 §8.3.7.1.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct AckNack {
    /// Byte order of the submessage.
    pub endian: Endianness,
    /// F: the writer need not reply.
    pub final_flag: bool,
    /// readerId.
    pub reader_id: EntityId,
    /// writerId.
    pub writer_id: EntityId,
    /// readerSNState: base = first SN not yet received; set bits = missing.
    pub reader_sn_state: SequenceNumberSet,
    /// count.
    pub count: i32,
}

impl AckNack {
    /// Parses an ACKNACK body.
    ///
    /// Vendor quirk (docs/interop-facts.md §5.8): Fast DDS and RTI Connext send "pre-emptive"
    /// ACKNACKs with bitmapBase 0 and numBits 0, which RTPS 2.5 §9.4.2.6 forbids (bitmapBase ≥ 1).
    /// Cyclone patches them to base 1 for those vendors; we accept them from anyone here and let
    /// core, which knows the sender's VendorId and the strict-mode switch, decide (see
    /// [`AckNack::is_preemptive`]).
    pub fn parse(flags: u8, body: &[u8]) -> Result<Self, WireError> {
        let mut r = body_reader(flags, body);
        let (reader_id, writer_id) = parse_ids(&mut r)?;
        let reader_sn_state = SequenceNumberSet::parse(&mut r)?;
        let count = r.i32("ACKNACK.count")?;
        let ack = AckNack {
            endian: r.endian(),
            final_flag: flags & ACKNACK_FLAG_F != 0,
            reader_id,
            writer_id,
            reader_sn_state,
            count,
        };
        // RTPS 2.5 §9.4.2.6: bitmapBase ≥ 1, except for the pre-emptive quirk above.
        if reader_sn_state.bitmap_base() < SequenceNumber::ONE && !ack.is_preemptive() {
            return Err(WireError::Invalid("ACKNACK.readerSNState.bitmapBase"));
        }
        Ok(ack)
    }

    /// True for the Fast DDS / RTI pre-emptive form: bitmapBase 0 and numBits 0.
    pub fn is_preemptive(&self) -> bool {
        self.reader_sn_state.bitmap_base() == SequenceNumber(0)
            && self.reader_sn_state.num_bits() == 0
    }

    fn body_len(&self) -> usize {
        IDS_AND_COUNT_LEN.saturating_add(self.reader_sn_state.buffer_len())
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        self.body_len().saturating_add(SubmessageHeader::LEN)
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let f = if self.final_flag { ACKNACK_FLAG_F } else { 0 };
        emit_submessage(buf, ACKNACK, f, self.endian, self.body_len(), |w| {
            self.reader_id.emit(w);
            self.writer_id.emit(w);
            self.reader_sn_state.emit(w);
            w.i32(self.count);
        });
    }
}

/// NACK_FRAG. RTPS 2.5 §8.3.7.8.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct NackFrag {
    /// Byte order of the submessage.
    pub endian: Endianness,
    /// readerId.
    pub reader_id: EntityId,
    /// writerId.
    pub writer_id: EntityId,
    /// writerSN: the sample whose fragments are missing (≥ 1).
    pub writer_sn: SequenceNumber,
    /// fragmentNumberState: set bits = missing fragments; base ≥ 1.
    pub fragment_number_state: FragmentNumberSet,
    /// count.
    pub count: i32,
}

impl NackFrag {
    /// Parses a NACK_FRAG body.
    pub fn parse(flags: u8, body: &[u8]) -> Result<Self, WireError> {
        let mut r = body_reader(flags, body);
        let (reader_id, writer_id) = parse_ids(&mut r)?;
        let writer_sn = SequenceNumber::parse(&mut r)?;
        let fragment_number_state = FragmentNumberSet::parse(&mut r)?;
        let count = r.i32("NACK_FRAG.count")?;
        // RTPS 2.5 §8.3.7.8.3: writerSN ≥ 1; §9.4.2.8: bitmapBase ≥ 1.
        if writer_sn.0 <= 0 {
            return Err(WireError::Invalid("NACK_FRAG.writerSN"));
        }
        if fragment_number_state.bitmap_base().0 == 0 {
            return Err(WireError::Invalid(
                "NACK_FRAG.fragmentNumberState.bitmapBase",
            ));
        }
        Ok(NackFrag {
            endian: r.endian(),
            reader_id,
            writer_id,
            writer_sn,
            fragment_number_state,
            count,
        })
    }

    fn body_len(&self) -> usize {
        // + 8 for writerSN.
        IDS_AND_COUNT_LEN
            .saturating_add(8)
            .saturating_add(self.fragment_number_state.buffer_len())
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        self.body_len().saturating_add(SubmessageHeader::LEN)
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        emit_submessage(buf, NACK_FRAG, 0, self.endian, self.body_len(), |w| {
            self.reader_id.emit(w);
            self.writer_id.emit(w);
            self.writer_sn.emit(w);
            self.fragment_number_state.emit(w);
            w.i32(self.count);
        });
    }
}
