//! Submessages: the 4-byte submessage header, the id constants, one repr per kind gathered in
//! [`Submessage`], and the iterator over a message body with its three outcomes.
//!
//! Must not: panic on any input, allocate from a wire count before checking the bytes are
//! there, interpret inline-QoS values (the PID table does that), or read past
//! octetsToNextHeader.
//!
//! RTPS 2.5 §8.3.4 (receiver rules), §8.3.7 (submessage contents), §9.4.5 (mapping).
//!
//! # Overview
//! Each submessage is `{octet submessageId, octet flags, ushort octetsToNextHeader}` followed by
//! its body; the E flag (0x01) gives the byte order of the header's length and of the body
//! (RTPS 2.5 §9.4.5.1.1). [`SubmessageIter`] yields, per submessage:
//! - [`SubmessageOutcome::Accept`]: a known kind that parsed and validated;
//! - [`SubmessageOutcome::NotUnderstood`]: an unknown or vendor id, or a DATA/DATA_FRAG whose
//!   inline QoS holds a must-understand parameter we do not know; skipped using
//!   octetsToNextHeader (RTPS 2.5 §8.3.4.1, §9.6.2.2.1);
//! - [`SubmessageOutcome::Malformed`]: the rest of the datagram is dropped and the iterator
//!   ends (RTPS 2.5 §8.3.4.1: "the remainder of the Message is ignored").
//!
//! Every repr keeps the byte order it was parsed with (`endian`), so re-emitting a parsed
//! submessage reproduces its bytes, except for reserved flag bits, which are not kept, and
//! octetsToNextHeader, which is always written as the exact body length.

mod ack;
mod data;
mod gap;
mod heartbeat;
mod info;
#[cfg(test)]
mod tests;

pub use ack::{ACKNACK_FLAG_F, AckNack, NackFrag};
pub use data::{
    DATA_FLAG_D, DATA_FLAG_K, DATA_FLAG_Q, DATA_FRAG_FLAG_K, DATA_FRAG_FLAG_Q, Data, DataFrag,
    DataPayload,
};
pub use gap::{GAP_FLAG_G, Gap, GapGroupInfo};
pub use heartbeat::{
    HEARTBEAT_FLAG_F, HEARTBEAT_FLAG_G, HEARTBEAT_FLAG_L, Heartbeat, HeartbeatFrag,
    HeartbeatGroupInfo,
};
pub use info::{
    INFO_REPLY_FLAG_M, INFO_TS_FLAG_I, InfoDst, InfoReply, InfoReplyIp4, InfoSrc, InfoTs,
    Ip4Locator, MAX_REPLY_LOCATORS, Pad,
};

use crate::cdr::{CdrReader, CdrWriter, Endianness};
use crate::wire::plist::{PID_FLAG_MUST_UNDERSTAND, ParameterListView};
use crate::wire::{EntityId, WireError};

/// PAD. RTPS 2.5 Table 9.10 (submessage kinds).
pub const PAD: u8 = 0x01;
/// ACKNACK.
pub const ACKNACK: u8 = 0x06;
/// HEARTBEAT.
pub const HEARTBEAT: u8 = 0x07;
/// GAP.
pub const GAP: u8 = 0x08;
/// INFO_TS.
pub const INFO_TS: u8 = 0x09;
/// INFO_SRC.
pub const INFO_SRC: u8 = 0x0c;
/// INFO_REPLY_IP4.
pub const INFO_REPLY_IP4: u8 = 0x0d;
/// INFO_DST.
pub const INFO_DST: u8 = 0x0e;
/// INFO_REPLY.
pub const INFO_REPLY: u8 = 0x0f;
/// NACK_FRAG.
pub const NACK_FRAG: u8 = 0x12;
/// HEARTBEAT_FRAG.
pub const HEARTBEAT_FRAG: u8 = 0x13;
/// DATA.
pub const DATA: u8 = 0x15;
/// DATA_FRAG.
pub const DATA_FRAG: u8 = 0x16;

/// The E flag: set means the submessage is little-endian. RTPS 2.5 §9.4.5.1.1.
pub const FLAG_E: u8 = 0x01;

/// The most submessages we walk in one message: one per 4 bytes of a 64 KiB datagram. A
/// longer (non-UDP) message is reported as malformed at that point.
pub const MAX_SUBMESSAGES: usize = 16 * 1024;

/// The submessage header. RTPS 2.5 §9.4.5.1.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SubmessageHeader {
    /// submessageId.
    pub id: u8,
    /// Flags; bit 0 is E.
    pub flags: u8,
    /// Body length in octets; 0 means "to the end of the message" except for PAD and INFO_TS.
    pub octets_to_next_header: u16,
}

impl SubmessageHeader {
    /// Size on the wire.
    pub const LEN: usize = 4;

    /// The byte order given by the E flag.
    pub fn endian(&self) -> Endianness {
        Endianness::from_e_flag(self.flags)
    }

    /// Reads the 4 octets; the length is read in the byte order of the E flag.
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, WireError> {
        // The 4 octets in one read (once per received submessage); field by field only when
        // fewer are left, so the error names the field that is cut.
        let (id, flags, b) = match r.take_array::<4>("submessage header") {
            Ok([id, flags, b0, b1]) => (id, flags, [b0, b1]),
            Err(_) => {
                let id = r.u8("submessageId")?;
                let flags = r.u8("submessage flags")?;
                (id, flags, r.take_array::<2>("octetsToNextHeader")?)
            }
        };
        let octets_to_next_header = match Endianness::from_e_flag(flags) {
            Endianness::Big => u16::from_be_bytes(b),
            Endianness::Little => u16::from_le_bytes(b),
        };
        Ok(SubmessageHeader {
            id,
            flags,
            octets_to_next_header,
        })
    }

    /// Writes the 4 octets in the byte order of the E flag.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let mut w = CdrWriter::new(buf, self.endian());
        w.u8(self.id);
        w.u8(self.flags);
        w.u16(self.octets_to_next_header);
    }
}

/// Writes a complete submessage: header (E flag from `endian`, octetsToNextHeader from
/// `body_len`), then the body via `body`, whose alignment origin is the submessage start.
/// RTPS 2.5 §9.4.5.1.3: a body longer than 65535 octets is written with octetsToNextHeader 0
/// ("extends to the end of the message") and so must be the last submessage.
pub(crate) fn emit_submessage(
    buf: &mut Vec<u8>,
    id: u8,
    flags: u8,
    endian: Endianness,
    body_len: usize,
    body: impl FnOnce(&mut CdrWriter<'_>),
) {
    let mut w = CdrWriter::new(buf, endian);
    w.u8(id);
    w.u8((flags & !FLAG_E) | endian.e_flag());
    w.u16(u16::try_from(body_len).unwrap_or(0));
    body(&mut w);
    debug_assert_eq!(w.position(), body_len.saturating_add(SubmessageHeader::LEN));
}

/// A reader over a submessage body in the byte order of its E flag.
pub(crate) fn body_reader(flags: u8, body: &[u8]) -> CdrReader<'_> {
    CdrReader::new(body, Endianness::from_e_flag(flags))
}

/// One parsed submessage. Variants borrow payloads and inline QoS from the datagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Submessage<'a> {
    /// PAD.
    Pad(Pad),
    /// ACKNACK.
    AckNack(AckNack),
    /// HEARTBEAT.
    Heartbeat(Heartbeat),
    /// GAP.
    Gap(Gap),
    /// INFO_TS.
    InfoTs(InfoTs),
    /// INFO_SRC.
    InfoSrc(InfoSrc),
    /// INFO_REPLY_IP4.
    InfoReplyIp4(InfoReplyIp4),
    /// INFO_DST.
    InfoDst(InfoDst),
    /// INFO_REPLY.
    InfoReply(InfoReply),
    /// NACK_FRAG.
    NackFrag(NackFrag),
    /// HEARTBEAT_FRAG.
    HeartbeatFrag(HeartbeatFrag),
    /// DATA.
    Data(Data<'a>),
    /// DATA_FRAG.
    DataFrag(DataFrag<'a>),
}

impl<'a> Submessage<'a> {
    /// Parses the body of a known kind. `Ok(None)` for an id we do not know.
    pub fn parse(header: SubmessageHeader, body: &'a [u8]) -> Result<Option<Self>, WireError> {
        let f = header.flags;
        Ok(Some(match header.id {
            PAD => Submessage::Pad(Pad::parse(f, body)?),
            ACKNACK => Submessage::AckNack(AckNack::parse(f, body)?),
            HEARTBEAT => Submessage::Heartbeat(Heartbeat::parse(f, body)?),
            GAP => Submessage::Gap(Gap::parse(f, body)?),
            INFO_TS => Submessage::InfoTs(InfoTs::parse(f, body)?),
            INFO_SRC => Submessage::InfoSrc(InfoSrc::parse(f, body)?),
            INFO_REPLY_IP4 => Submessage::InfoReplyIp4(InfoReplyIp4::parse(f, body)?),
            INFO_DST => Submessage::InfoDst(InfoDst::parse(f, body)?),
            INFO_REPLY => Submessage::InfoReply(InfoReply::parse(f, body)?),
            NACK_FRAG => Submessage::NackFrag(NackFrag::parse(f, body)?),
            HEARTBEAT_FRAG => Submessage::HeartbeatFrag(HeartbeatFrag::parse(f, body)?),
            DATA => Submessage::Data(Data::parse(f, body)?),
            DATA_FRAG => Submessage::DataFrag(DataFrag::parse(f, body)?),
            _ => return Ok(None),
        }))
    }

    /// The submessageId of this kind.
    pub fn id(&self) -> u8 {
        match self {
            Submessage::Pad(_) => PAD,
            Submessage::AckNack(_) => ACKNACK,
            Submessage::Heartbeat(_) => HEARTBEAT,
            Submessage::Gap(_) => GAP,
            Submessage::InfoTs(_) => INFO_TS,
            Submessage::InfoSrc(_) => INFO_SRC,
            Submessage::InfoReplyIp4(_) => INFO_REPLY_IP4,
            Submessage::InfoDst(_) => INFO_DST,
            Submessage::InfoReply(_) => INFO_REPLY,
            Submessage::NackFrag(_) => NACK_FRAG,
            Submessage::HeartbeatFrag(_) => HEARTBEAT_FRAG,
            Submessage::Data(_) => DATA,
            Submessage::DataFrag(_) => DATA_FRAG,
        }
    }

    /// Appends the complete submessage, header included.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        match self {
            Submessage::Pad(s) => s.emit(buf),
            Submessage::AckNack(s) => s.emit(buf),
            Submessage::Heartbeat(s) => s.emit(buf),
            Submessage::Gap(s) => s.emit(buf),
            Submessage::InfoTs(s) => s.emit(buf),
            Submessage::InfoSrc(s) => s.emit(buf),
            Submessage::InfoReplyIp4(s) => s.emit(buf),
            Submessage::InfoDst(s) => s.emit(buf),
            Submessage::InfoReply(s) => s.emit(buf),
            Submessage::NackFrag(s) => s.emit(buf),
            Submessage::HeartbeatFrag(s) => s.emit(buf),
            Submessage::Data(s) => s.emit(buf),
            Submessage::DataFrag(s) => s.emit(buf),
        }
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        match self {
            Submessage::Pad(s) => s.buffer_len(),
            Submessage::AckNack(s) => s.buffer_len(),
            Submessage::Heartbeat(s) => s.buffer_len(),
            Submessage::Gap(s) => s.buffer_len(),
            Submessage::InfoTs(s) => s.buffer_len(),
            Submessage::InfoSrc(s) => s.buffer_len(),
            Submessage::InfoReplyIp4(s) => s.buffer_len(),
            Submessage::InfoDst(s) => s.buffer_len(),
            Submessage::InfoReply(s) => s.buffer_len(),
            Submessage::NackFrag(s) => s.buffer_len(),
            Submessage::HeartbeatFrag(s) => s.buffer_len(),
            Submessage::Data(s) => s.buffer_len(),
            Submessage::DataFrag(s) => s.buffer_len(),
        }
    }

    /// The writerId of an entity submessage (DATA, DATA_FRAG, HEARTBEAT, HEARTBEAT_FRAG, GAP,
    /// ACKNACK, NACK_FRAG); `None` for PAD and the interpreter submessages. RTPS 2.5 §8.3.7.
    pub fn writer_id(&self) -> Option<EntityId> {
        Some(match self {
            Submessage::Data(d) => d.writer_id,
            Submessage::DataFrag(d) => d.writer_id,
            Submessage::Heartbeat(h) => h.writer_id,
            Submessage::HeartbeatFrag(h) => h.writer_id,
            Submessage::Gap(g) => g.writer_id,
            Submessage::AckNack(a) => a.writer_id,
            Submessage::NackFrag(n) => n.writer_id,
            _ => return None,
        })
    }

    /// The readerId of an entity submessage, as [`Self::writer_id`].
    pub fn reader_id(&self) -> Option<EntityId> {
        Some(match self {
            Submessage::Data(d) => d.reader_id,
            Submessage::DataFrag(d) => d.reader_id,
            Submessage::Heartbeat(h) => h.reader_id,
            Submessage::HeartbeatFrag(h) => h.reader_id,
            Submessage::Gap(g) => g.reader_id,
            Submessage::AckNack(a) => a.reader_id,
            Submessage::NackFrag(n) => n.reader_id,
            _ => return None,
        })
    }

    /// The inline QoS of a DATA or DATA_FRAG.
    pub fn inline_qos(&self) -> Option<&ParameterListView<'a>> {
        match self {
            Submessage::Data(d) => d.inline_qos.as_ref(),
            Submessage::DataFrag(d) => d.inline_qos.as_ref(),
            _ => None,
        }
    }
}

/// What the iterator makes of one submessage. RTPS 2.5 §8.3.4.1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubmessageOutcome<'a> {
    /// A known kind that parsed and passed validation.
    Accept(Submessage<'a>),
    /// Skipped: unknown or vendor id (0x80..=0xff), or a must-understand inline QoS parameter
    /// we do not understand.
    NotUnderstood {
        /// submessageId.
        id: u8,
        /// Flags as received.
        flags: u8,
        /// The body (octetsToNextHeader octets).
        body: &'a [u8],
    },
    /// Invalid; the iterator ends after this.
    Malformed(WireError),
}

/// Decides whether a must-understand parameter id (bit 0x4000 set) is understood.
pub type UnderstoodPid = fn(u16) -> bool;

/// No must-understand parameter is understood: the PID table defines none yet.
fn understands_none(_pid: u16) -> bool {
    false
}

/// Iterator over the submessages of a message body (the bytes after the [`crate::wire::Header`]).
#[derive(Clone, Debug)]
pub struct SubmessageIter<'a> {
    r: CdrReader<'a>,
    done: bool,
    count: usize,
    understood: UnderstoodPid,
}

impl<'a> SubmessageIter<'a> {
    /// Walks `body`, the bytes following the message header.
    pub fn new(body: &'a [u8]) -> Self {
        SubmessageIter {
            r: CdrReader::new(body, Endianness::Big),
            done: false,
            count: 0,
            understood: understands_none,
        }
    }

    /// Uses `understood` to decide which must-understand inline QoS parameters are known
    /// (RTPS 2.5 §9.6.2.2.1); by default none is.
    pub fn with_understood(mut self, understood: UnderstoodPid) -> Self {
        self.understood = understood;
        self
    }

    /// The bytes not yet walked.
    pub fn rest(&self) -> &'a [u8] {
        self.r.rest()
    }

    fn malformed(&mut self, e: WireError) -> Option<SubmessageOutcome<'a>> {
        self.done = true;
        Some(SubmessageOutcome::Malformed(e))
    }

    fn not_understood_pid(&self, s: &Submessage<'a>) -> bool {
        s.inline_qos().is_some_and(|q| {
            q.iter()
                .any(|p| p.pid & PID_FLAG_MUST_UNDERSTAND != 0 && !(self.understood)(p.pid))
        })
    }
}

impl<'a> Iterator for SubmessageIter<'a> {
    type Item = SubmessageOutcome<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.r.is_empty() {
            return None;
        }
        self.count = self.count.saturating_add(1);
        if self.count > MAX_SUBMESSAGES {
            return self.malformed(WireError::TooLarge("submessage count"));
        }
        let header = match SubmessageHeader::parse(&mut self.r) {
            Ok(h) => h,
            Err(e) => return self.malformed(e),
        };
        let len = usize::from(header.octets_to_next_header);
        // RTPS 2.5 §9.4.5.1.3: octetsToNextHeader 0 means the submessage extends to the end of
        // the message, except for PAD and INFO_TS where it means an empty body.
        let body = if len == 0 && !matches!(header.id, PAD | INFO_TS) {
            self.r.take_rest()
        } else {
            match self.r.take(len, "submessage body") {
                Ok(b) => b,
                // RTPS 2.5 §8.3.4.1: a length running past the message makes it invalid.
                Err(e) => return self.malformed(e.into()),
            }
        };
        match Submessage::parse(header, body) {
            Ok(Some(s)) if self.not_understood_pid(&s) => Some(SubmessageOutcome::NotUnderstood {
                id: header.id,
                flags: header.flags,
                body,
            }),
            Ok(Some(s)) => Some(SubmessageOutcome::Accept(s)),
            // RTPS 2.5 §8.3.4.1: unknown (incl. vendor-specific 0x80..=0xff) ids are skipped.
            Ok(None) => Some(SubmessageOutcome::NotUnderstood {
                id: header.id,
                flags: header.flags,
                body,
            }),
            Err(e) => self.malformed(e),
        }
    }
}
