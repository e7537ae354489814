//! The DDS Security 1.1 submessages (SEC_BODY, SEC_PREFIX, SEC_POSTFIX, SRTPS_PREFIX,
//! SRTPS_POSTFIX) and the structures they carry: CryptoTransformIdentifier, CryptoHeader,
//! CryptoContent and CryptoFooter, each as a bounded view for decoding and an infallible emit.
//! (The security PIDs, 0x1001-0x1006, are in `wire::plist::pid`.)
//!
//! Must not: decrypt or verify anything (that is `security::crypto`), panic on any input, or
//! allocate from a wire count before checking the bytes are there (docs/conventions.md §4).
//!
//! DDS-Security 1.1 §7.3.6 (the secure submessages), §7.3.7 (their mapping), §9.5.2 (the
//! builtin plugin's CryptoHeader, CryptoContent and CryptoFooter).
//!
//! # Byte order
//! The submessage header follows its E flag as every RTPS submessage does. The contents are
//! octet arrays, except for two lengths: the CryptoContent length and the count of
//! receiver-specific MACs in the CryptoFooter. Both vendors (Cyclone DDS 0.10 and Fast DDS
//! 2.9) write those big-endian whatever the E flag says, so they are read and written
//! big-endian here too.

#[cfg(test)]
mod tests;

use crate::cdr::{CdrReader, CdrWriter, Endianness};
use crate::wire::WireError;
use crate::wire::submessage::emit_submessage;

/// SEC_BODY: a CryptoContent holding an encrypted submessage. DDS-Security 1.1 §7.3.7.3.
pub const SEC_BODY: u8 = 0x30;
/// SEC_PREFIX: the CryptoHeader in front of a protected submessage. §7.3.7.4.
pub const SEC_PREFIX: u8 = 0x31;
/// SEC_POSTFIX: the CryptoFooter after a protected submessage. §7.3.7.5.
pub const SEC_POSTFIX: u8 = 0x32;
/// SRTPS_PREFIX: the CryptoHeader of a protected RTPS message. §7.3.7.6.
pub const SRTPS_PREFIX: u8 = 0x33;
/// SRTPS_POSTFIX: the CryptoFooter of a protected RTPS message. §7.3.7.7.
pub const SRTPS_POSTFIX: u8 = 0x34;

/// The length of a common or receiver-specific MAC: an AES-GCM tag. §9.5.2.5.
pub const MAC_LEN: usize = 16;
/// The encoded length of a CryptoHeader. §9.5.2.3.
pub const CRYPTO_HEADER_LEN: usize = 20;
/// The encoded length of one ReceiverSpecificMAC (key id + MAC). §9.5.2.5.
pub const RECEIVER_SPECIFIC_MAC_LEN: usize = 20;
/// The most receiver-specific MACs one CryptoFooter may carry. A 64 KiB datagram holds at
/// most about 3,270; the bound keeps a forged count from costing more than that.
pub const MAX_RECEIVER_SPECIFIC_MACS: usize = 4096;

/// CryptoTransformIdentifier: which transformation and which key. §9.5.2.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CryptoTransformIdentifier {
    /// transformation_kind: {0,0,0,k} for the builtin kinds (§9.5.2.1.1).
    pub transformation_kind: [u8; 4],
    /// transformation_key_id: the sender_key_id of the key material used.
    pub transformation_key_id: [u8; 4],
}

/// CryptoHeader: transform identifier, session id and IV suffix. §9.5.2.3. The 12-byte
/// initialization vector is `session_id ‖ initialization_vector_suffix` (§9.5.3.3.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CryptoHeader {
    /// transform_identifier.
    pub transform_identifier: CryptoTransformIdentifier,
    /// session_id.
    pub session_id: [u8; 4],
    /// initialization_vector_suffix.
    pub initialization_vector_suffix: [u8; 8],
}

impl CryptoHeader {
    /// Reads the 20 octets.
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, WireError> {
        let b = r.take_array::<CRYPTO_HEADER_LEN>("CryptoHeader")?;
        let (kind, rest) = b.split_at(4);
        let (key_id, rest) = rest.split_at(4);
        let (session_id, iv) = rest.split_at(4);
        Ok(CryptoHeader {
            transform_identifier: CryptoTransformIdentifier {
                transformation_kind: arr(kind),
                transformation_key_id: arr(key_id),
            },
            session_id: arr(session_id),
            initialization_vector_suffix: arr(iv),
        })
    }

    /// The 12-byte GCM initialization vector: session_id then the suffix. §9.5.3.3.3.
    pub fn initialization_vector(&self) -> [u8; 12] {
        let mut iv = [0u8; 12];
        let (a, b) = iv.split_at_mut(4);
        a.copy_from_slice(&self.session_id);
        b.copy_from_slice(&self.initialization_vector_suffix);
        iv
    }

    /// Writes the 20 octets.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.bytes(&self.transform_identifier.transformation_kind);
        w.bytes(&self.transform_identifier.transformation_key_id);
        w.bytes(&self.session_id);
        w.bytes(&self.initialization_vector_suffix);
    }
}

/// Copies a slice of known length into an array (the caller split it to that length).
fn arr<const N: usize>(s: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    if let Some(d) = a.get_mut(..s.len().min(N)) {
        d.copy_from_slice(s.get(..d.len()).unwrap_or_default());
    }
    a
}

/// CryptoContent: a big-endian length and that many octets of ciphertext. §9.5.2.4.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CryptoContent<'a> {
    /// The ciphertext.
    pub crypto_content: &'a [u8],
}

impl<'a> CryptoContent<'a> {
    /// Reads the length and the octets; a length past the bytes is `Truncated`. Bytes after
    /// the content (Fast DDS pads SEC_BODY to a multiple of 4) are left in `r`.
    pub fn parse(r: &mut CdrReader<'a>) -> Result<Self, WireError> {
        let len = usize::try_from(r.u32_be("CryptoContent.length")?)
            .map_err(|_| WireError::TooLarge("CryptoContent.length"))?;
        Ok(CryptoContent {
            crypto_content: r.take(len, "CryptoContent")?,
        })
    }

    /// Encoded size.
    pub fn buffer_len(&self) -> usize {
        self.crypto_content.len().saturating_add(4)
    }

    /// Writes the length (big-endian) and the octets.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.u32_be(u32::try_from(self.crypto_content.len()).unwrap_or(u32::MAX));
        w.bytes(self.crypto_content);
    }
}

/// One ReceiverSpecificMAC. §9.5.2.5.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReceiverSpecificMac {
    /// receiver_mac_key_id: the receiver_specific_key_id of the receiver's key material.
    pub receiver_mac_key_id: [u8; 4],
    /// receiver_mac.
    pub receiver_mac: [u8; MAC_LEN],
}

impl ReceiverSpecificMac {
    /// Writes the 20 octets.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.bytes(&self.receiver_mac_key_id);
        w.bytes(&self.receiver_mac);
    }
}

/// CryptoFooter: the common MAC and the receiver-specific MACs, borrowed. §9.5.2.5.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CryptoFooter<'a> {
    /// common_mac.
    pub common_mac: [u8; MAC_LEN],
    /// The receiver-specific MACs, `RECEIVER_SPECIFIC_MAC_LEN` octets each, checked in
    /// bounds at parse time.
    macs: &'a [u8],
}

impl<'a> CryptoFooter<'a> {
    /// Reads the common MAC, the big-endian count and the MACs. A count above
    /// [`MAX_RECEIVER_SPECIFIC_MACS`] is `TooLarge`; one past the bytes is `Truncated`.
    pub fn parse(r: &mut CdrReader<'a>) -> Result<Self, WireError> {
        let common_mac = r.take_array::<MAC_LEN>("CryptoFooter.common_mac")?;
        let n = usize::try_from(r.u32_be("CryptoFooter.receiver_specific_macs.length")?)
            .map_err(|_| WireError::TooLarge("CryptoFooter.receiver_specific_macs"))?;
        if n > MAX_RECEIVER_SPECIFIC_MACS {
            return Err(WireError::TooLarge("CryptoFooter.receiver_specific_macs"));
        }
        let len = n
            .checked_mul(RECEIVER_SPECIFIC_MAC_LEN)
            .ok_or(WireError::TooLarge("CryptoFooter.receiver_specific_macs"))?;
        let macs = r.take(len, "CryptoFooter.receiver_specific_macs")?;
        Ok(CryptoFooter { common_mac, macs })
    }

    /// A footer with the common MAC only.
    pub fn new(common_mac: [u8; MAC_LEN]) -> Self {
        CryptoFooter {
            common_mac,
            macs: &[],
        }
    }

    /// The number of receiver-specific MACs.
    pub fn receiver_specific_mac_count(&self) -> usize {
        self.macs.len() / RECEIVER_SPECIFIC_MAC_LEN
    }

    /// The receiver-specific MACs in order.
    pub fn receiver_specific_macs(&self) -> impl Iterator<Item = ReceiverSpecificMac> + 'a {
        self.macs.chunks_exact(RECEIVER_SPECIFIC_MAC_LEN).map(|c| {
            let (id, mac) = c.split_at(4);
            ReceiverSpecificMac {
                receiver_mac_key_id: arr(id),
                receiver_mac: arr(mac),
            }
        })
    }

    /// Encoded size with `extra` receiver-specific MACs appended to the parsed ones.
    pub fn buffer_len(&self, extra: usize) -> usize {
        extra
            .saturating_add(self.receiver_specific_mac_count())
            .saturating_mul(RECEIVER_SPECIFIC_MAC_LEN)
            .saturating_add(MAC_LEN + 4)
    }

    /// Writes the footer: the common MAC, the count (big-endian), this footer's MACs, then
    /// `extra`.
    pub fn emit(&self, extra: &[ReceiverSpecificMac], w: &mut CdrWriter<'_>) {
        w.bytes(&self.common_mac);
        let n = self
            .receiver_specific_mac_count()
            .saturating_add(extra.len());
        w.u32_be(u32::try_from(n).unwrap_or(u32::MAX));
        w.bytes(self.macs);
        for m in extra {
            m.emit(w);
        }
    }
}

/// One parsed secure submessage.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SecureSubmessage<'a> {
    /// SEC_BODY.
    SecBody(CryptoContent<'a>),
    /// SEC_PREFIX.
    SecPrefix(CryptoHeader),
    /// SEC_POSTFIX.
    SecPostfix(CryptoFooter<'a>),
    /// SRTPS_PREFIX.
    SrtpsPrefix(CryptoHeader),
    /// SRTPS_POSTFIX.
    SrtpsPostfix(CryptoFooter<'a>),
}

impl<'a> SecureSubmessage<'a> {
    /// Parses the body of a secure submessage; `Ok(None)` for any other id. The contents are
    /// octets and big-endian lengths, so the E flag does not change how the body is read.
    /// Trailing bytes inside the body (alignment padding) are allowed.
    pub fn parse(id: u8, body: &'a [u8]) -> Result<Option<Self>, WireError> {
        let mut r = CdrReader::new(body, Endianness::Big);
        Ok(Some(match id {
            SEC_BODY => SecureSubmessage::SecBody(CryptoContent::parse(&mut r)?),
            SEC_PREFIX => SecureSubmessage::SecPrefix(CryptoHeader::parse(&mut r)?),
            SEC_POSTFIX => SecureSubmessage::SecPostfix(CryptoFooter::parse(&mut r)?),
            SRTPS_PREFIX => SecureSubmessage::SrtpsPrefix(CryptoHeader::parse(&mut r)?),
            SRTPS_POSTFIX => SecureSubmessage::SrtpsPostfix(CryptoFooter::parse(&mut r)?),
            _ => return Ok(None),
        }))
    }
}

/// Appends a SEC_PREFIX or SRTPS_PREFIX (`id`) carrying `header`.
pub fn emit_prefix(buf: &mut Vec<u8>, id: u8, endian: Endianness, header: &CryptoHeader) {
    emit_submessage(buf, id, 0, endian, CRYPTO_HEADER_LEN, |w| header.emit(w));
}

/// Appends a SEC_BODY carrying `content`, padded with zeros to a multiple of 4 octets as the
/// next submessage header must be aligned (RTPS 2.5 §9.4.1).
pub fn emit_body(buf: &mut Vec<u8>, endian: Endianness, content: &CryptoContent<'_>) {
    let len = content.buffer_len();
    let pad = len.wrapping_neg() & 3;
    emit_submessage(buf, SEC_BODY, 0, endian, len.saturating_add(pad), |w| {
        content.emit(w);
        for _ in 0..pad {
            w.u8(0);
        }
    });
}

/// Appends a SEC_POSTFIX or SRTPS_POSTFIX (`id`) carrying `footer` and then `extra` MACs.
pub fn emit_postfix(
    buf: &mut Vec<u8>,
    id: u8,
    endian: Endianness,
    footer: &CryptoFooter<'_>,
    extra: &[ReceiverSpecificMac],
) {
    emit_submessage(buf, id, 0, endian, footer.buffer_len(extra.len()), |w| {
        footer.emit(extra, w);
    });
}
