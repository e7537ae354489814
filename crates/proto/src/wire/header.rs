//! The 20-byte RTPS message header: protocol id, version, vendor and sender GuidPrefix.
//!
//! Must not: accept a message that is not RTPS 2.x, panic on any input, or allocate.
//!
//! RTPS 2.5 §8.3.3 (Header structure), §9.4.4 (mapping: 'R','T','P','S', ProtocolVersion_t,
//! VendorId_t, GuidPrefix_t; all octets, so the header has no byte order).

use crate::cdr::{CdrReader, CdrWriter, Endianness};
use crate::wire::{GuidPrefix, ProtocolVersion, VendorId, WireError};

/// The RTPS message header. RTPS 2.5 §8.3.3.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// The protocol version the sender speaks.
    pub version: ProtocolVersion,
    /// The sender's vendor.
    pub vendor_id: VendorId,
    /// The sender's participant prefix (sourceGuidPrefix).
    pub guid_prefix: GuidPrefix,
}

impl Header {
    /// Size on the wire.
    pub const LEN: usize = 20;
    /// The protocol id. RTPS 2.5 §9.4.4.
    pub const MAGIC: [u8; 4] = *b"RTPS";

    /// A header for a message we send: version 2.5, our vendor id.
    pub fn new(guid_prefix: GuidPrefix) -> Self {
        Header {
            version: ProtocolVersion::V2_5,
            vendor_id: VendorId::SIFTDDS,
            guid_prefix,
        }
    }

    /// Reads 20 octets. Errors on a wrong protocol id or a major version other than 2
    /// (RTPS 2.5 §8.3.6.3: a receiver drops messages of another major version).
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, WireError> {
        let magic = r.take_array::<4>("header.protocol")?;
        // RTPS 2.5 §9.4.4: the protocol id is exactly 'R','T','P','S'.
        if magic != Self::MAGIC {
            return Err(WireError::Invalid("header.protocol"));
        }
        let major = r.u8("header.version")?;
        let minor = r.u8("header.version")?;
        // RTPS 2.5 §8.3.6.3: only the major version must match.
        if major != 2 {
            return Err(WireError::Invalid("header.version.major"));
        }
        let vendor_id = VendorId(r.take_array::<2>("header.vendorId")?);
        let guid_prefix = GuidPrefix::parse(r)?;
        Ok(Header {
            version: ProtocolVersion { major, minor },
            vendor_id,
            guid_prefix,
        })
    }

    /// Appends the 20 octets.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        let mut w = CdrWriter::new(buf, Endianness::Big);
        w.bytes(&Self::MAGIC);
        w.u8(self.version.major);
        w.u8(self.version.minor);
        w.bytes(&self.vendor_id.0);
        self.guid_prefix.emit(&mut w);
        debug_assert_eq!(w.position(), Self::LEN);
    }

    /// Always [`Header::LEN`].
    pub fn buffer_len(&self) -> usize {
        Self::LEN
    }
}

/// Size of RTI Connext's participant ping datagram.
pub const VENDOR_PING_LEN: usize = 16;

/// True for RTI Connext's 16-byte ping: `RTPS`, two version octets, two vendor octets, then
/// `NDDSPING` (no GuidPrefix, no submessage). It is not an RTPS message, and not malformed
/// either: RTI's own UDP transport recognises it by exactly this shape and ignores it, and
/// Cyclone discards any datagram shorter than a header without counting it
/// (docs/interop-facts.md §5.11).
pub fn is_vendor_ping(datagram: &[u8]) -> bool {
    datagram.len() == VENDOR_PING_LEN
        && datagram.get(..4) == Some(&Header::MAGIC[..])
        && datagram.get(8..) == Some(&b"NDDSPING"[..])
}

#[cfg(test)]
mod tests;
