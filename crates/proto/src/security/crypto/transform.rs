//! The builtin crypto transforms: encode and decode of a serialized payload, of a writer's or
//! reader's submessage, and of a whole RTPS message, with AES-GCM (encrypt) or AES-GMAC (sign)
//! at 128 or 256 bits, and receiver-specific MACs for any number of receivers.
//!
//! Must not: do I/O, pick keys (the caller hands in sessions and key material), panic on any
//! input, or return plaintext whose MAC did not verify.
//!
//! DDS-Security 1.1 §9.5.3.3.4 (encode_*), §9.5.3.3.5 (decode_*), §7.3.6-§7.3.7 (the secure
//! submessages). The layouts are the ones Cyclone DDS 0.10 (`crypto_transform.c`) and Fast DDS
//! 2.9 (`AESGCMGMAC_Transform.cpp`) put on the wire:
//! - serialized payload: `CryptoHeader`, then `CryptoContent` (GCM) or the plain payload
//!   (GMAC), then `CryptoFooter` with no receiver-specific MACs;
//! - submessage: `SEC_PREFIX`, then `SEC_BODY` (GCM, the whole plain submessage encrypted) or
//!   the plain submessage itself (GMAC), then `SEC_POSTFIX`;
//! - RTPS message: the RTPS header in clear, `SRTPS_PREFIX`, then `SEC_BODY` (GCM) or the
//!   plain submessages (GMAC) where the protected bytes are an `INFO_SRC` made from the header
//!   followed by the message's submessages, then `SRTPS_POSTFIX`.
//!
//! The common MAC is the GCM tag (no AAD) or the GMAC of the protected bytes; the IV is
//! `session_id ‖ initialization_vector_suffix` from the header. A receiver-specific MAC is the
//! GMAC of the common MAC under the receiver's SessionReceiverKey with the same IV.

use super::CryptoError;
use super::aead::mac_eq;
use super::keymat::KeyMaterial;
use super::session::{KeyUse, SenderSession, SessionKey, SessionKeyCache};
use crate::cdr::{CdrReader, Endianness};
use crate::wire::security::{
    CryptoContent, CryptoFooter, CryptoHeader, MAC_LEN, ReceiverSpecificMac, SEC_BODY, SEC_POSTFIX,
    SEC_PREFIX, SRTPS_POSTFIX, SRTPS_PREFIX, emit_body, emit_postfix, emit_prefix,
};
use crate::wire::submessage::{INFO_SRC, INFO_TS, MAX_SUBMESSAGES, PAD, SubmessageHeader};
use crate::wire::{Header, WireError};

/// The INFO_SRC submessage the RTPS-message transform puts in front of the protected
/// submessages: header (4) + unused (4) + version (2) + vendor (2) + guidPrefix (12).
const INFO_SRC_LEN: usize = 24;
/// The largest SEC_BODY body: octetsToNextHeader is 16 bits and SEC_BODY is never last.
const MAX_SEC_BODY: usize = u16::MAX as usize;

/// One receiver the sender adds a receiver-specific MAC for: the key material the sender
/// gave that receiver (its receiver_specific_key_id, master_receiver_specific_key and
/// master_salt), and the derived key of the current session.
#[derive(Debug)]
pub struct ReceiverSpecific {
    keymat: KeyMaterial,
    cache: SessionKeyCache,
}

impl ReceiverSpecific {
    /// A receiver for `keymat`, which must carry a receiver-specific key.
    pub fn new(keymat: KeyMaterial) -> Result<Self, CryptoError> {
        keymat.validate()?;
        if !keymat.has_receiver_specific_key() {
            return Err(CryptoError::Invalid(
                "key material without a receiver-specific key",
            ));
        }
        Ok(ReceiverSpecific {
            keymat,
            cache: SessionKeyCache::default(),
        })
    }

    fn mac(
        &mut self,
        header: &CryptoHeader,
        common_mac: &[u8; MAC_LEN],
    ) -> Result<ReceiverSpecificMac, CryptoError> {
        let key = self
            .cache
            .get(&self.keymat, KeyUse::ReceiverSpecific, header.session_id)?;
        Ok(ReceiverSpecificMac {
            receiver_mac_key_id: self.keymat.receiver_specific_key_id,
            receiver_mac: key
                .cipher()
                .gmac(&header.initialization_vector(), &[common_mac])?,
        })
    }
}

/// What a receiver knows of one remote sender: the key material the sender gave it (the
/// sender's key and, with origin authentication, this receiver's specific key), and the
/// derived keys of the sender's current session.
#[derive(Debug)]
pub struct RemoteSender {
    keymat: KeyMaterial,
    sender: SessionKeyCache,
    receiver: SessionKeyCache,
    /// Receiver-specific keys the same sender key came with earlier, newest first (at most
    /// [`MAX_EARLIER_RECEIVER_KEYS`]; see [`RemoteSender::renewed`]).
    earlier: Vec<(KeyMaterial, SessionKeyCache)>,
}

/// Earlier receiver-specific keys a [`RemoteSender`] keeps for one sender key.
pub const MAX_EARLIER_RECEIVER_KEYS: usize = 3;

impl RemoteSender {
    /// The receiving side of `keymat`.
    pub fn new(keymat: KeyMaterial) -> Result<Self, CryptoError> {
        keymat.validate()?;
        Ok(RemoteSender {
            keymat,
            sender: SessionKeyCache::default(),
            receiver: SessionKeyCache::default(),
            earlier: Vec::new(),
        })
    }

    /// `newer` replaces `self` (set_remote_datawriter/datareader_crypto_tokens again for the
    /// same pairing). When both carry the same sender key with different receiver-specific
    /// keys, this receiver's earlier keys stay valid beside the newer one (at most
    /// [`MAX_EARLIER_RECEIVER_KEYS`]): a sender that registers one match twice (Cyclone DDS
    /// 0.10 does when discovery and the handshake's end race) sends tokens twice and may MAC
    /// with the key of either registration. Both came from the sender, protected with the
    /// KxKey, for this receiver alone, so accepting either keeps origin authentication.
    pub fn renewed(self, mut newer: RemoteSender) -> RemoteSender {
        let (old, new) = (&self.keymat, &newer.keymat);
        let same_sender = old.transformation_kind == new.transformation_kind
            && old.sender_key_id == new.sender_key_id
            && old.master_sender_key == new.master_sender_key
            && old.master_salt == new.master_salt;
        if !same_sender
            || !old.has_receiver_specific_key()
            || !new.has_receiver_specific_key()
            || old.receiver_specific_key_id == new.receiver_specific_key_id
        {
            return newer;
        }
        let mut earlier = self.earlier;
        earlier.insert(0, (self.keymat, self.receiver));
        earlier
            .retain(|(k, _)| k.receiver_specific_key_id != newer.keymat.receiver_specific_key_id);
        earlier.truncate(MAX_EARLIER_RECEIVER_KEYS);
        newer.earlier = earlier;
        newer
    }

    /// The key material.
    pub fn key_material(&self) -> &KeyMaterial {
        &self.keymat
    }

    /// Checks that `header` names this key material, verifies this receiver's own MAC when the
    /// key material carries a receiver-specific key (the other receivers' MACs are not ours to
    /// check), and returns the session key and IV.
    fn open(
        &mut self,
        header: &CryptoHeader,
        footer: &CryptoFooter<'_>,
    ) -> Result<([u8; 12], &mut SessionKey), CryptoError> {
        let id = &header.transform_identifier;
        if id.transformation_kind != self.keymat.transformation_kind.octets()
            || id.transformation_key_id != self.keymat.sender_key_id
        {
            return Err(CryptoError::KeyMismatch);
        }
        let iv = header.initialization_vector();
        if self.keymat.has_receiver_specific_key() {
            // Our MAC under the current receiver-specific key, else under an earlier one.
            let keys = core::iter::once((&self.keymat, &mut self.receiver))
                .chain(self.earlier.iter_mut().map(|(k, c)| (&*k, c)));
            let mut mine = None;
            for (keymat, cache) in keys {
                let id = keymat.receiver_specific_key_id;
                if let Some(m) = footer
                    .receiver_specific_macs()
                    .find(|m| m.receiver_mac_key_id == id)
                {
                    mine = Some((keymat, cache, m));
                    break;
                }
            }
            let (keymat, cache, mine) = mine.ok_or(CryptoError::ReceiverMacMissing)?;
            let key = cache.get(keymat, KeyUse::ReceiverSpecific, header.session_id)?;
            let expect = key.cipher().gmac(&iv, &[&footer.common_mac])?;
            if !mac_eq(&expect, &mine.receiver_mac) {
                return Err(CryptoError::MacMismatch);
            }
        }
        let key = self
            .sender
            .get(&self.keymat, KeyUse::Sender, header.session_id)?;
        Ok((iv, key))
    }

    /// Verifies (GMAC) or decrypts (GCM) `protected` and appends the plaintext to `out`.
    fn unprotect(
        &mut self,
        header: &CryptoHeader,
        footer: &CryptoFooter<'_>,
        protected: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), CryptoError> {
        let encrypts = self.keymat.transformation_kind.encrypts();
        let (iv, key) = self.open(header, footer)?;
        if encrypts {
            key.cipher()
                .gcm_decrypt(&iv, protected, &footer.common_mac, out)
        } else {
            let expect = key.cipher().gmac(&iv, &[protected])?;
            if !mac_eq(&expect, &footer.common_mac) {
                return Err(CryptoError::MacMismatch);
            }
            out.extend_from_slice(protected);
            Ok(())
        }
    }
}

/// Protects `plain` under `session`: appends the ciphertext (GCM) or `plain` itself (GMAC) to
/// `out` and returns the header and common MAC.
fn protect(
    session: &mut SenderSession,
    plain: &[&[u8]],
    out: &mut Vec<u8>,
) -> Result<(CryptoHeader, [u8; MAC_LEN]), CryptoError> {
    let len = plain.iter().fold(0usize, |n, p| n.saturating_add(p.len()));
    let encrypts = session.key_material().transformation_kind.encrypts();
    let (header, key) = session.next(len)?;
    let iv = header.initialization_vector();
    let mac = if encrypts {
        key.cipher().gcm_encrypt(&iv, plain, out)?
    } else {
        for p in plain {
            out.extend_from_slice(p);
        }
        key.cipher().gmac(&iv, plain)?
    };
    Ok((header, mac))
}

fn receiver_macs(
    header: &CryptoHeader,
    common_mac: &[u8; MAC_LEN],
    receivers: &mut [ReceiverSpecific],
) -> Result<Vec<ReceiverSpecificMac>, CryptoError> {
    receivers
        .iter_mut()
        .map(|r| r.mac(header, common_mac))
        .collect()
}

/// encode_serialized_payload (§9.5.3.3.4.1): appends `CryptoHeader`, the protected payload
/// and a `CryptoFooter` without receiver-specific MACs to `out`.
pub fn encode_serialized_payload(
    session: &mut SenderSession,
    plain: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), CryptoError> {
    let start = out.len();
    // The header is written once the session has given it; reserve its room first.
    out.resize(
        start.saturating_add(crate::wire::security::CRYPTO_HEADER_LEN),
        0,
    );
    let encrypts = session.key_material().transformation_kind.encrypts();
    if encrypts {
        out.extend_from_slice(
            &u32::try_from(plain.len())
                .map_err(|_| CryptoError::TooLarge("payload"))?
                .to_be_bytes(),
        );
    }
    let (header, mac) = protect(session, &[plain], out)?;
    let mut head = Vec::with_capacity(crate::wire::security::CRYPTO_HEADER_LEN);
    header.emit(&mut crate::cdr::CdrWriter::new(&mut head, Endianness::Big));
    out.splice(start..start.saturating_add(head.len()), head);
    let mut w = crate::cdr::CdrWriter::new(out, Endianness::Big);
    CryptoFooter::new(mac).emit(&[], &mut w);
    Ok(())
}

/// decode_serialized_payload (§9.5.3.3.5.1): checks and removes the protection of `encoded`
/// and appends the plain payload to `out`.
///
/// `encoded` is what a DATA carries after its inline QoS, so it may end in the submessage's
/// padding to 4 octets: Fast DDS 2.9 pads neither the plain payload (GMAC) nor the
/// ciphertext (GCM) and puts the footer right after, so up to 3 zero octets can follow it.
pub fn decode_serialized_payload(
    remote: &mut RemoteSender,
    encoded: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), CryptoError> {
    let mut r = CdrReader::new(encoded, Endianness::Big);
    let header = CryptoHeader::parse(&mut r)?;
    if remote.keymat.transformation_kind.encrypts() {
        let content = CryptoContent::parse(&mut r)?;
        // The footer's alignment counts from its own start (it follows the ciphertext as is).
        let mut f = CdrReader::new(r.rest(), Endianness::Big);
        let footer = payload_footer(&mut f)?;
        if !is_padding(f.rest()) {
            return Err(CryptoError::Invalid("bytes after the CryptoFooter"));
        }
        return remote.unprotect(&header, &footer, content.crypto_content, out);
    }
    // GMAC: the plain payload runs up to a footer of 20 octets (no receiver MACs on a
    // payload), then the padding; where the payload ends only the MAC tells, so each split
    // the trailing zeros allow is tried, the unpadded one first.
    let rest = r.rest();
    let mut outcome = Err(CryptoError::Truncated("CryptoFooter"));
    for pad in 0..=3usize {
        let Some(end) = rest.len().checked_sub(pad) else {
            break;
        };
        let (Some(signed), Some(trailer)) = (rest.get(..end), rest.get(end..)) else {
            break;
        };
        if !is_padding(trailer) {
            continue;
        }
        let Some(body_len) = end.checked_sub(MAC_LEN.saturating_add(4)) else {
            break;
        };
        let (body, foot) = signed.split_at(body_len);
        let footer = payload_footer(&mut CdrReader::new(foot, Endianness::Big))?;
        let mark = out.len();
        outcome = remote.unprotect(&header, &footer, body, out);
        if outcome.is_ok() {
            break;
        }
        out.truncate(mark);
    }
    outcome
}

/// A payload's CryptoFooter: it carries no receiver-specific MACs (§9.5.3.3.5.1).
fn payload_footer<'a>(r: &mut CdrReader<'a>) -> Result<CryptoFooter<'a>, CryptoError> {
    let footer = CryptoFooter::parse(r)?;
    if footer.receiver_specific_mac_count() != 0 {
        return Err(CryptoError::Invalid("receiver-specific MACs on a payload"));
    }
    Ok(footer)
}

/// At most 3 zero octets: a submessage's padding to 4.
fn is_padding(trailer: &[u8]) -> bool {
    trailer.len() <= 3 && trailer.iter().all(|b| *b == 0)
}

/// One submessage: its header and the whole of it (header included).
fn take_submessage<'a>(r: &mut CdrReader<'a>) -> Result<(SubmessageHeader, &'a [u8]), WireError> {
    let rest = r.rest();
    let header = SubmessageHeader::parse(r)?;
    let len = match usize::from(header.octets_to_next_header) {
        // RTPS 2.5 §9.4.5.1.3: 0 extends to the end of the message, except for PAD and
        // INFO_TS, where it means an empty body.
        0 if !matches!(header.id, PAD | INFO_TS) => r.remaining(),
        n => n,
    };
    r.take(len, "submessage body")?;
    let whole = rest
        .get(..len.saturating_add(SubmessageHeader::LEN))
        .ok_or(WireError::Truncated("submessage"))?;
    Ok((header, whole))
}

fn body_of(whole: &[u8]) -> &[u8] {
    whole.get(SubmessageHeader::LEN..).unwrap_or_default()
}

/// encode_datawriter_submessage / encode_datareader_submessage (§9.5.3.3.4.2-3): appends
/// `SEC_PREFIX`, `SEC_BODY` (GCM) or `plain_submessage` (GMAC), and `SEC_POSTFIX` with one
/// receiver-specific MAC per entry of `receivers` (one encode serves every receiver of a
/// datagram). `plain_submessage` is a whole submessage, header included.
pub fn encode_submessage(
    session: &mut SenderSession,
    plain_submessage: &[u8],
    receivers: &mut [ReceiverSpecific],
    endian: Endianness,
    out: &mut Vec<u8>,
) -> Result<(), CryptoError> {
    encode_secure(
        session,
        &[plain_submessage],
        receivers,
        endian,
        out,
        SEC_PREFIX,
        SEC_POSTFIX,
    )
}

fn encode_secure(
    session: &mut SenderSession,
    plain: &[&[u8]],
    receivers: &mut [ReceiverSpecific],
    endian: Endianness,
    out: &mut Vec<u8>,
    prefix_id: u8,
    postfix_id: u8,
) -> Result<(), CryptoError> {
    let len = plain.iter().fold(0usize, |n, p| n.saturating_add(p.len()));
    let encrypts = session.key_material().transformation_kind.encrypts();
    if encrypts && len.saturating_add(4 + 3) > MAX_SEC_BODY {
        return Err(CryptoError::TooLarge("SEC_BODY"));
    }
    if !encrypts {
        check_clear_submessages(plain.get(1..).unwrap_or_default(), plain.first())?;
    }
    let mut protected = Vec::with_capacity(len.saturating_add(16));
    let (header, mac) = protect(session, plain, &mut protected)?;
    emit_prefix(out, prefix_id, endian, &header);
    if encrypts {
        emit_body(
            out,
            endian,
            &CryptoContent {
                crypto_content: &protected,
            },
        );
    } else {
        out.extend_from_slice(&protected);
    }
    let macs = receiver_macs(&header, &mac, receivers)?;
    emit_postfix(out, postfix_id, endian, &CryptoFooter::new(mac), &macs);
    Ok(())
}

/// Submessages sent in clear between a prefix and a postfix (GMAC) are found again by their
/// lengths, so each must end inside the buffer and none may "extend to the end of the
/// message" (octetsToNextHeader 0, RTPS 2.5 §9.4.5.1.3): the postfix follows it.
fn check_clear_submessages(rest: &[&[u8]], first: Option<&&[u8]>) -> Result<(), CryptoError> {
    // The first part of an RTPS message is the INFO_SRC made here; the submessages follow.
    let parts = first.into_iter().chain(rest);
    for part in parts {
        let mut r = CdrReader::new(part, Endianness::Big);
        let mut count = 0usize;
        while !r.is_empty() {
            count = count.saturating_add(1);
            if count > MAX_SUBMESSAGES {
                return Err(CryptoError::TooLarge("submessages"));
            }
            let (h, _) = take_submessage(&mut r)?;
            if h.octets_to_next_header == 0 && !matches!(h.id, PAD | INFO_TS) {
                return Err(CryptoError::Invalid(
                    "a submessage extending to the end of the message cannot be signed",
                ));
            }
        }
    }
    Ok(())
}

fn prefix_of(whole: &[u8], sh: &SubmessageHeader, id: u8) -> Result<CryptoHeader, CryptoError> {
    if sh.id != id {
        return Err(CryptoError::Invalid("secure prefix expected"));
    }
    Ok(CryptoHeader::parse(&mut CdrReader::new(
        body_of(whole),
        Endianness::Big,
    ))?)
}

fn postfix_of<'a>(
    whole: &'a [u8],
    sh: &SubmessageHeader,
    id: u8,
) -> Result<CryptoFooter<'a>, CryptoError> {
    if sh.id != id {
        return Err(CryptoError::Invalid("secure postfix expected"));
    }
    Ok(CryptoFooter::parse(&mut CdrReader::new(
        body_of(whole),
        Endianness::Big,
    ))?)
}

/// decode_datawriter_submessage / decode_datareader_submessage (§9.5.3.3.5.2-3): `encoded`
/// starts at a `SEC_PREFIX`; reads it, the protected submessage and the `SEC_POSTFIX`,
/// appends the plain submessage (header included) to `out`, and returns how many octets of
/// `encoded` the three took.
pub fn decode_submessage(
    remote: &mut RemoteSender,
    encoded: &[u8],
    out: &mut Vec<u8>,
) -> Result<usize, CryptoError> {
    let mut r = CdrReader::new(encoded, Endianness::Big);
    let (sh, whole) = take_submessage(&mut r)?;
    let header = prefix_of(whole, &sh, SEC_PREFIX)?;
    let (bh, body) = take_submessage(&mut r)?;
    let (ph, post) = take_submessage(&mut r)?;
    let footer = postfix_of(post, &ph, SEC_POSTFIX)?;
    let protected = if remote.keymat.transformation_kind.encrypts() {
        if bh.id != SEC_BODY {
            return Err(CryptoError::Invalid("SEC_BODY expected"));
        }
        CryptoContent::parse(&mut CdrReader::new(body_of(body), Endianness::Big))?.crypto_content
    } else {
        body
    };
    remote.unprotect(&header, &footer, protected, out)?;
    Ok(r.position())
}

/// The INFO_SRC that stands for the RTPS header inside the protected bytes (RTPS 2.5
/// §8.3.7.9, §9.4.5.10): unused, version, vendor id and GUID prefix of the header.
fn info_src(message_header: &[u8], endian: Endianness) -> Result<[u8; INFO_SRC_LEN], CryptoError> {
    let fields = message_header
        .get(4..Header::LEN)
        .ok_or(CryptoError::Truncated("RTPS header"))?;
    let mut s = [0u8; INFO_SRC_LEN];
    let (head, rest) = s.split_at_mut(8);
    head.copy_from_slice(&[INFO_SRC, endian.e_flag(), 0, 0, 0, 0, 0, 0]);
    let len = 20u16;
    let len = match endian {
        Endianness::Big => len.to_be_bytes(),
        Endianness::Little => len.to_le_bytes(),
    };
    if let Some(l) = head.get_mut(2..4) {
        l.copy_from_slice(&len);
    }
    rest.copy_from_slice(fields);
    Ok(s)
}

/// encode_rtps_message (§9.5.3.3.4.4): `plain_message` is a whole RTPS message (header and
/// submessages); appends its header, `SRTPS_PREFIX`, the protected INFO_SRC and submessages
/// (`SEC_BODY` for GCM, in clear for GMAC) and `SRTPS_POSTFIX` with one receiver-specific MAC
/// per entry of `receivers`.
pub fn encode_rtps_message(
    session: &mut SenderSession,
    plain_message: &[u8],
    receivers: &mut [ReceiverSpecific],
    endian: Endianness,
    out: &mut Vec<u8>,
) -> Result<(), CryptoError> {
    let (message_header, submessages) = plain_message
        .split_at_checked(Header::LEN)
        .ok_or(CryptoError::Truncated("RTPS header"))?;
    let src = info_src(message_header, endian)?;
    out.extend_from_slice(message_header);
    encode_secure(
        session,
        &[&src, submessages],
        receivers,
        endian,
        out,
        SRTPS_PREFIX,
        SRTPS_POSTFIX,
    )
}

/// decode_rtps_message (§9.5.3.3.5.4): checks and removes the protection of a whole message
/// and appends the plain message (the RTPS header, then the INFO_SRC and the submessages) to
/// `out`. The INFO_SRC must repeat the header's version, vendor and GUID prefix, so the
/// clear header is as authentic as the rest.
pub fn decode_rtps_message(
    remote: &mut RemoteSender,
    encoded: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), CryptoError> {
    let (message_header, rest) = encoded
        .split_at_checked(Header::LEN)
        .ok_or(CryptoError::Truncated("RTPS header"))?;
    if !message_header.starts_with(b"RTPS") {
        return Err(CryptoError::Invalid("RTPS header"));
    }
    let mut r = CdrReader::new(rest, Endianness::Big);
    let (sh, whole) = take_submessage(&mut r)?;
    let header = prefix_of(whole, &sh, SRTPS_PREFIX)?;
    let start = r.position();
    let protected: &[u8];
    let footer;
    if remote.keymat.transformation_kind.encrypts() {
        let (bh, body) = take_submessage(&mut r)?;
        if bh.id != SEC_BODY {
            return Err(CryptoError::Invalid("SEC_BODY expected"));
        }
        protected = CryptoContent::parse(&mut CdrReader::new(body_of(body), Endianness::Big))?
            .crypto_content;
        let (ph, post) = take_submessage(&mut r)?;
        footer = postfix_of(post, &ph, SRTPS_POSTFIX)?;
    } else {
        let mut count = 0usize;
        loop {
            count = count.saturating_add(1);
            if count > MAX_SUBMESSAGES {
                return Err(CryptoError::TooLarge("submessages"));
            }
            let before = r.position();
            let (h, s) = take_submessage(&mut r)?;
            if h.id == SRTPS_POSTFIX {
                protected = rest.get(start..before).unwrap_or_default();
                footer = postfix_of(s, &h, SRTPS_POSTFIX)?;
                break;
            }
        }
    }
    if !r.is_empty() {
        return Err(CryptoError::Invalid("bytes after SRTPS_POSTFIX"));
    }
    let begin = out.len();
    out.extend_from_slice(message_header);
    if let Err(e) = remote.unprotect(&header, &footer, protected, out) {
        out.truncate(begin);
        return Err(e);
    }
    // The INFO_SRC: id, then (after the 4 unused octets) the header's last 16 octets.
    let plain = out
        .get(begin.saturating_add(Header::LEN)..)
        .unwrap_or_default();
    let ok = plain.first() == Some(&INFO_SRC)
        && plain.get(8..INFO_SRC_LEN) == message_header.get(4..Header::LEN);
    if !ok {
        out.truncate(begin);
        return Err(CryptoError::Invalid(
            "INFO_SRC does not repeat the RTPS header",
        ));
    }
    Ok(())
}

/// The CryptoHeader of an encoded payload, submessage (starting at `SEC_PREFIX`) or RTPS
/// message (starting at the RTPS header), so the caller can pick the [`RemoteSender`] by its
/// transformation_key_id before decoding.
pub fn peek_crypto_header(encoded: &[u8], what: Protected) -> Result<CryptoHeader, CryptoError> {
    let mut r = CdrReader::new(encoded, Endianness::Big);
    match what {
        Protected::Payload => Ok(CryptoHeader::parse(&mut r)?),
        Protected::Submessage => {
            let (sh, whole) = take_submessage(&mut r)?;
            prefix_of(whole, &sh, SEC_PREFIX)
        }
        Protected::Message => {
            r.take(Header::LEN, "RTPS header")?;
            let (sh, whole) = take_submessage(&mut r)?;
            prefix_of(whole, &sh, SRTPS_PREFIX)
        }
    }
}

/// What an encoded buffer protects.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Protected {
    /// A serialized payload.
    Payload,
    /// A submessage (from its SEC_PREFIX).
    Submessage,
    /// A whole RTPS message.
    Message,
}
