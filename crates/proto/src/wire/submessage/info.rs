//! The interpreter submessages, which change the receiver's state for the submessages that
//! follow: INFO_TS, INFO_SRC, INFO_DST, INFO_REPLY, INFO_REPLY_IP4; and PAD.
//!
//! Must not: keep receiver state (core does), allocate from a locator count before checking
//! the bytes are there, or panic on any input.
//!
//! RTPS 2.5 §8.3.7.7 (InfoDestination), §8.3.7.8-§8.3.7.11 (InfoReply, InfoSource,
//! InfoTimestamp, Pad), §9.4.5.8-§9.4.5.14 (mapping, INFO_REPLY_IP4 in §9.4.5.14).

use super::{INFO_DST, INFO_REPLY, INFO_REPLY_IP4, INFO_SRC, INFO_TS, PAD, SubmessageHeader};
use super::{body_reader, emit_submessage};
use crate::cdr::{CdrReader, CdrWriter, Endianness};
use crate::time::Timestamp;
use crate::wire::{GuidPrefix, Locator, ProtocolVersion, VendorId, WireError};

/// INFO_TS flag I: invalidate, no timestamp follows. RTPS 2.5 §9.4.5.11.1.
pub const INFO_TS_FLAG_I: u8 = 0x02;
/// INFO_REPLY / INFO_REPLY_IP4 flag M: a multicast locator list follows. RTPS 2.5 §9.4.5.9.1.
pub const INFO_REPLY_FLAG_M: u8 = 0x02;
/// The most locators we accept in one INFO_REPLY list (docs/conventions.md §4; RustDDS issue #404
/// was an OOM from an unchecked count here).
pub const MAX_REPLY_LOCATORS: usize = 64;

/// INFO_TS. RTPS 2.5 §8.3.7.11.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct InfoTs {
    /// Byte order of the submessage.
    pub endian: Endianness,
    /// The source timestamp of what follows; `None` when the I flag invalidates it.
    pub timestamp: Option<Timestamp>,
}

impl InfoTs {
    /// Parses an INFO_TS body.
    pub fn parse(flags: u8, body: &[u8]) -> Result<Self, WireError> {
        let mut r = body_reader(flags, body);
        // RTPS 2.5 §9.4.5.11.1: with I set there is no timestamp.
        let timestamp = if flags & INFO_TS_FLAG_I != 0 {
            None
        } else {
            let seconds = r.i32("INFO_TS.seconds")?;
            let fraction = r.u32("INFO_TS.fraction")?;
            Some(Timestamp { seconds, fraction })
        };
        Ok(InfoTs {
            endian: r.endian(),
            timestamp,
        })
    }

    fn body_len(&self) -> usize {
        if self.timestamp.is_some() { 8 } else { 0 }
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        self.body_len().saturating_add(SubmessageHeader::LEN)
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let i = if self.timestamp.is_none() {
            INFO_TS_FLAG_I
        } else {
            0
        };
        emit_submessage(buf, INFO_TS, i, self.endian, self.body_len(), |w| {
            if let Some(t) = &self.timestamp {
                w.i32(t.seconds);
                w.u32(t.fraction);
            }
        });
    }
}

/// INFO_SRC. RTPS 2.5 §8.3.7.9.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct InfoSrc {
    /// Byte order of the submessage.
    pub endian: Endianness,
    /// The unused leading long, kept so that re-emitting reproduces the bytes.
    pub unused: u32,
    /// protocolVersion of the source.
    pub version: ProtocolVersion,
    /// vendorId of the source.
    pub vendor_id: VendorId,
    /// guidPrefix of the source.
    pub guid_prefix: GuidPrefix,
}

impl InfoSrc {
    const BODY_LEN: usize = 20;

    /// Parses an INFO_SRC body.
    pub fn parse(flags: u8, body: &[u8]) -> Result<Self, WireError> {
        let mut r = body_reader(flags, body);
        let unused = r.u32("INFO_SRC.unused")?;
        let major = r.u8("INFO_SRC.version")?;
        let minor = r.u8("INFO_SRC.version")?;
        let vendor_id = VendorId(r.take_array::<2>("INFO_SRC.vendorId")?);
        let guid_prefix = GuidPrefix::parse(&mut r)?;
        Ok(InfoSrc {
            endian: r.endian(),
            unused,
            version: ProtocolVersion { major, minor },
            vendor_id,
            guid_prefix,
        })
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        Self::BODY_LEN.saturating_add(SubmessageHeader::LEN)
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        emit_submessage(buf, INFO_SRC, 0, self.endian, Self::BODY_LEN, |w| {
            w.u32(self.unused);
            w.u8(self.version.major);
            w.u8(self.version.minor);
            w.bytes(&self.vendor_id.0);
            self.guid_prefix.emit(w);
        });
    }
}

/// INFO_DST. RTPS 2.5 §8.3.7.7.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct InfoDst {
    /// Byte order of the submessage.
    pub endian: Endianness,
    /// The participant the following submessages are for (UNKNOWN = any).
    pub guid_prefix: GuidPrefix,
}

impl InfoDst {
    const BODY_LEN: usize = 12;

    /// Parses an INFO_DST body.
    pub fn parse(flags: u8, body: &[u8]) -> Result<Self, WireError> {
        let mut r = body_reader(flags, body);
        let guid_prefix = GuidPrefix::parse(&mut r)?;
        Ok(InfoDst {
            endian: r.endian(),
            guid_prefix,
        })
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        Self::BODY_LEN.saturating_add(SubmessageHeader::LEN)
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        emit_submessage(buf, INFO_DST, 0, self.endian, Self::BODY_LEN, |w| {
            self.guid_prefix.emit(w)
        });
    }
}

/// INFO_REPLY. RTPS 2.5 §8.3.7.8.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InfoReply {
    /// Byte order of the submessage.
    pub endian: Endianness,
    /// unicastLocatorList (at most [`MAX_REPLY_LOCATORS`]).
    pub unicast: Vec<Locator>,
    /// multicastLocatorList, when the M flag is set (at most [`MAX_REPLY_LOCATORS`]).
    pub multicast: Option<Vec<Locator>>,
}

/// Reads a LocatorList: uint32 count then count × 24 octets. The count is capped and checked
/// against the remaining bytes before anything is allocated (docs/conventions.md §4).
fn parse_locator_list(r: &mut CdrReader<'_>) -> Result<Vec<Locator>, WireError> {
    let n = r.seq_len(Locator::LEN, "INFO_REPLY.locatorList")?;
    if n > MAX_REPLY_LOCATORS {
        return Err(WireError::TooLarge("INFO_REPLY.locatorList"));
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(Locator::parse(r)?);
    }
    Ok(out)
}

fn emit_locator_list(w: &mut CdrWriter<'_>, list: &[Locator]) {
    // invariant: lists longer than u32::MAX cannot exist in memory on our targets; saturate.
    w.u32(u32::try_from(list.len()).unwrap_or(u32::MAX));
    for l in list {
        l.emit(w);
    }
}

fn locator_list_len(list: &[Locator]) -> usize {
    list.len().saturating_mul(Locator::LEN).saturating_add(4)
}

impl InfoReply {
    /// Parses an INFO_REPLY body.
    pub fn parse(flags: u8, body: &[u8]) -> Result<Self, WireError> {
        let mut r = body_reader(flags, body);
        let unicast = parse_locator_list(&mut r)?;
        // RTPS 2.5 §9.4.5.9.1: the multicast list is present only with the M flag.
        let multicast = if flags & INFO_REPLY_FLAG_M != 0 {
            Some(parse_locator_list(&mut r)?)
        } else {
            None
        };
        Ok(InfoReply {
            endian: r.endian(),
            unicast,
            multicast,
        })
    }

    fn body_len(&self) -> usize {
        let m = self.multicast.as_deref().map_or(0, locator_list_len);
        locator_list_len(&self.unicast).saturating_add(m)
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        self.body_len().saturating_add(SubmessageHeader::LEN)
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let m = if self.multicast.is_some() {
            INFO_REPLY_FLAG_M
        } else {
            0
        };
        emit_submessage(buf, INFO_REPLY, m, self.endian, self.body_len(), |w| {
            emit_locator_list(w, &self.unicast);
            if let Some(list) = &self.multicast {
                emit_locator_list(w, list);
            }
        });
    }
}

/// An IPv4 locator as INFO_REPLY_IP4 carries it (LocatorUDPv4_t). RTPS 2.5 §9.4.5.14.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ip4Locator {
    /// The IPv4 address as a uint32 (a.b.c.d = a<<24 | b<<16 | c<<8 | d).
    pub address: u32,
    /// The UDP port.
    pub port: u32,
}

impl Ip4Locator {
    fn parse(r: &mut CdrReader<'_>) -> Result<Self, WireError> {
        let address = r.u32("INFO_REPLY_IP4.address")?;
        let port = r.u32("INFO_REPLY_IP4.port")?;
        Ok(Ip4Locator { address, port })
    }

    fn emit(&self, w: &mut CdrWriter<'_>) {
        w.u32(self.address);
        w.u32(self.port);
    }

    /// The equivalent UDPv4 [`Locator`] (ports above 65535 become invalid port 0).
    pub fn to_locator(&self) -> Locator {
        let mut l = Locator::udpv4(
            self.address.to_be_bytes(),
            u16::try_from(self.port).unwrap_or(0),
        );
        l.port = self.port;
        l
    }
}

/// INFO_REPLY_IP4. RTPS 2.5 §8.3.7.8, §9.4.5.14.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct InfoReplyIp4 {
    /// Byte order of the submessage.
    pub endian: Endianness,
    /// unicastLocator.
    pub unicast: Ip4Locator,
    /// multicastLocator, when the M flag is set.
    pub multicast: Option<Ip4Locator>,
}

impl InfoReplyIp4 {
    /// Parses an INFO_REPLY_IP4 body.
    pub fn parse(flags: u8, body: &[u8]) -> Result<Self, WireError> {
        let mut r = body_reader(flags, body);
        let unicast = Ip4Locator::parse(&mut r)?;
        // RTPS 2.5 §9.4.5.14.1: the multicast locator is present only with the M flag.
        let multicast = if flags & INFO_REPLY_FLAG_M != 0 {
            Some(Ip4Locator::parse(&mut r)?)
        } else {
            None
        };
        Ok(InfoReplyIp4 {
            endian: r.endian(),
            unicast,
            multicast,
        })
    }

    fn body_len(&self) -> usize {
        if self.multicast.is_some() { 16 } else { 8 }
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        self.body_len().saturating_add(SubmessageHeader::LEN)
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let m = if self.multicast.is_some() {
            INFO_REPLY_FLAG_M
        } else {
            0
        };
        emit_submessage(buf, INFO_REPLY_IP4, m, self.endian, self.body_len(), |w| {
            self.unicast.emit(w);
            if let Some(mc) = &self.multicast {
                mc.emit(w);
            }
        });
    }
}

/// PAD: fill, no meaning. RTPS 2.5 §8.3.7.10. The body's content is ignored; we emit zeros.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pad {
    /// Byte order of the submessage (only its length field has one).
    pub endian: Endianness,
    /// Length of the (ignored) body.
    pub body_len: u16,
}

impl Pad {
    /// Parses a PAD body: anything goes.
    pub fn parse(flags: u8, body: &[u8]) -> Result<Self, WireError> {
        let body_len = u16::try_from(body.len()).map_err(|_| WireError::TooLarge("PAD"))?;
        Ok(Pad {
            endian: Endianness::from_e_flag(flags),
            body_len,
        })
    }

    /// Encoded size, header included.
    pub fn buffer_len(&self) -> usize {
        usize::from(self.body_len).saturating_add(SubmessageHeader::LEN)
    }

    /// Appends the complete submessage.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let len = usize::from(self.body_len);
        emit_submessage(buf, PAD, 0, self.endian, len, |w| {
            for _ in 0..len {
                w.u8(0);
            }
        });
    }
}
