//! One line per RTPS submessage, in the spirit of tshark's summary column, and the totals.
//!
//! Must not: stop at a bad datagram (it is counted and the walk goes on), or print payload
//! bytes beyond the decoded fields.

use std::io::{self, Write};

use super::capture::Datagram;
use crate::cdr::{CdrReader, EncapsulationHeader, EncapsulationKind};
use crate::wire::data_holder::ParticipantGenericMessage;
use crate::wire::plist::{
    ContentFilterInfo, ContentFilterProperty, ParameterListView, describe, pid, pid_name,
};
use crate::wire::security::{CryptoHeader, SecureSubmessage};
use crate::wire::submessage::{
    AckNack, Data, DataFrag, DataPayload, Gap, Heartbeat, Submessage, SubmessageOutcome,
};
use crate::wire::{EntityId, Message, VendorId, is_vendor_ping};

/// What a whole capture amounted to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// UDP datagrams that started with the RTPS magic.
    pub messages: u64,
    /// Submessages seen in them (accepted, not understood and malformed alike).
    pub submessages: u64,
    /// Messages whose header or one of whose submessages was malformed.
    pub malformed: u64,
    /// Submessages skipped as not understood (vendor or unknown ids).
    pub not_understood: u64,
    /// UDP datagrams that are not RTPS at all (not counted as messages).
    pub not_rtps: u64,
    /// RTI Connext's 16-byte participant pings (`RTPS`, version, vendor, `NDDSPING`): counted
    /// here, not as messages or as malformed.
    pub pings: u64,
}

impl core::fmt::Display for Totals {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "messages: {}, submessages: {}, malformed: {}, not understood: {}",
            self.messages, self.submessages, self.malformed, self.not_understood
        )?;
        if self.pings > 0 {
            write!(f, ", pings: {}", self.pings)?;
        }
        Ok(())
    }
}

/// Decodes one datagram, printing a line per submessage and updating `totals`.
pub fn summarize(d: &Datagram, out: &mut impl Write, totals: &mut Totals) -> io::Result<()> {
    if !d.payload.starts_with(b"RTPS") {
        totals.not_rtps = totals.not_rtps.saturating_add(1);
        return Ok(());
    }
    let lead = format!("{:>6} {} > {}", d.frame, d.src, d.dst);
    if is_vendor_ping(&d.payload) {
        totals.pings = totals.pings.saturating_add(1);
        // RTPS 2.5 §8.3.3.1: the vendor id follows "RTPS" and the protocol version.
        let v = match d.payload.get(6..8) {
            Some(&[a, b]) => VendorId([a, b]),
            _ => VendorId::UNKNOWN,
        };
        return writeln!(out, "{lead} PING NDDSPING ({})", vendor_name(v));
    }
    totals.messages = totals.messages.saturating_add(1);
    let (header, iter) = match Message::parse(&d.payload) {
        Ok(parsed) => parsed,
        Err(e) => {
            totals.malformed = totals.malformed.saturating_add(1);
            return writeln!(out, "{lead} MALFORMED header: {e}");
        }
    };
    let mut vendor = header.vendor_id;
    for outcome in iter.with_understood(understood) {
        totals.submessages = totals.submessages.saturating_add(1);
        match outcome {
            SubmessageOutcome::Accept(sm) => {
                if let Submessage::InfoSrc(src) = &sm {
                    vendor = src.vendor_id;
                }
                writeln!(
                    out,
                    "{lead} {}",
                    describe_submessage(&sm, header.vendor_id, vendor)
                )?;
            }
            SubmessageOutcome::NotUnderstood { id, body, .. }
                if SecureSubmessage::parse(id, body).is_ok_and(|s| s.is_some()) =>
            {
                writeln!(out, "{lead} {}", describe_secure(id, body))?;
            }
            SubmessageOutcome::NotUnderstood { id, flags, body } => {
                totals.not_understood = totals.not_understood.saturating_add(1);
                writeln!(
                    out,
                    "{lead} NOT-UNDERSTOOD id=0x{id:02x} flags=0x{flags:02x} len={} (skipped)",
                    body.len()
                )?;
            }
            SubmessageOutcome::Malformed(e) => {
                totals.malformed = totals.malformed.saturating_add(1);
                writeln!(out, "{lead} MALFORMED {e} (rest of message dropped)")?;
            }
        }
    }
    Ok(())
}

fn describe_submessage(sm: &Submessage<'_>, header_vendor: VendorId, vendor: VendorId) -> String {
    let line = match sm {
        Submessage::Data(d) => describe_data(d, vendor),
        Submessage::DataFrag(d) => describe_data_frag(d, vendor),
        Submessage::Heartbeat(h) => describe_heartbeat(h),
        Submessage::HeartbeatFrag(h) => format!(
            "HEARTBEAT_FRAG w={} r={} sn={} lastFrag={} count={}",
            h.writer_id, h.reader_id, h.writer_sn, h.last_fragment_num, h.count
        ),
        Submessage::AckNack(a) => describe_acknack(a),
        Submessage::NackFrag(n) => format!(
            "NACK_FRAG r={} w={} sn={} missing={} count={}",
            n.reader_id,
            n.writer_id,
            n.writer_sn,
            list(n.fragment_number_state.iter().map(|f| f.0.to_string())),
            n.count
        ),
        Submessage::Gap(g) => describe_gap(g),
        Submessage::InfoTs(t) => match t.timestamp {
            Some(ts) => format!("INFO_TS {}.{:09}", ts.seconds, fraction_nanos(ts.fraction)),
            None => "INFO_TS invalidate".to_string(),
        },
        Submessage::InfoSrc(s) => format!(
            "INFO_SRC prefix={} vendor={} version={}.{}",
            s.guid_prefix,
            vendor_name(s.vendor_id),
            s.version.major,
            s.version.minor
        ),
        Submessage::InfoDst(d) => format!("INFO_DST prefix={}", d.guid_prefix),
        Submessage::InfoReply(r) => format!(
            "INFO_REPLY unicast={} multicast={}",
            list(r.unicast.iter().map(ToString::to_string)),
            list(r.multicast.iter().flatten().map(ToString::to_string))
        ),
        Submessage::InfoReplyIp4(r) => format!(
            "INFO_REPLY_IP4 unicast={}:{}{}",
            std::net::Ipv4Addr::from(r.unicast.address),
            r.unicast.port,
            r.multicast
                .map(|m| format!(
                    " multicast={}:{}",
                    std::net::Ipv4Addr::from(m.address),
                    m.port
                ))
                .unwrap_or_default()
        ),
        Submessage::Pad(p) => format!("PAD len={}", p.body_len),
    };
    if header_vendor == vendor {
        line
    } else {
        format!("{line} (vendor {})", vendor_name(vendor))
    }
}

/// One line for a secure submessage (DDS-Security 1.1 §7.3.7): the transform, key id, session
/// and IV of a prefix, the ciphertext length of a body, the MACs of a postfix. A malformed one
/// is described as such (the walk goes on: octetsToNextHeader was in bounds).
fn describe_secure(id: u8, body: &[u8]) -> String {
    let prefix = |name: &str, h: &CryptoHeader| {
        format!(
            "{name:<14} kind={} key={} session={} iv={}",
            transform_kind_name(h.transform_identifier.transformation_kind),
            hex(&h.transform_identifier.transformation_key_id),
            hex(&h.session_id),
            hex(&h.initialization_vector_suffix)
        )
    };
    match SecureSubmessage::parse(id, body) {
        Ok(Some(SecureSubmessage::SecPrefix(h))) => prefix("SEC_PREFIX", &h),
        Ok(Some(SecureSubmessage::SrtpsPrefix(h))) => prefix("SRTPS_PREFIX", &h),
        Ok(Some(SecureSubmessage::SecBody(c))) => {
            format!("SEC_BODY       content={} octets", c.crypto_content.len())
        }
        Ok(Some(SecureSubmessage::SecPostfix(f) | SecureSubmessage::SrtpsPostfix(f))) => {
            let name = if id == crate::wire::security::SEC_POSTFIX {
                "SEC_POSTFIX"
            } else {
                "SRTPS_POSTFIX"
            };
            format!(
                "{name:<14} common_mac={} receiver_macs={} keys={}",
                hex(&f.common_mac),
                f.receiver_specific_mac_count(),
                list(
                    f.receiver_specific_macs()
                        .map(|m| format!("key={}", hex(&m.receiver_mac_key_id)))
                )
            )
        }
        Ok(None) => format!("id=0x{id:02x}"),
        Err(e) => format!("MALFORMED secure submessage 0x{id:02x}: {e}"),
    }
}

/// The builtin transformation kinds. DDS-Security 1.1 §9.5.2.1.1.
fn transform_kind_name(kind: [u8; 4]) -> String {
    match kind {
        [0, 0, 0, 0] => "NONE".into(),
        [0, 0, 0, 1] => "AES128_GMAC".into(),
        [0, 0, 0, 2] => "AES128_GCM".into(),
        [0, 0, 0, 3] => "AES256_GMAC".into(),
        [0, 0, 0, 4] => "AES256_GCM".into(),
        k => hex(&k),
    }
}

/// DDS-Security 1.1 §7.4.3: ENTITYID_P2P_BUILTIN_PARTICIPANT_STATELESS_WRITER, the writer of
/// the authentication handshake messages (sent in clear).
const STATELESS_WRITER: EntityId = EntityId([0, 2, 1, 0xc3]);
/// DDS-Security 1.1 §7.4.4: ENTITYID_P2P_BUILTIN_PARTICIPANT_VOLATILE_SECURE_WRITER, the writer
/// of the key-exchange messages (always inside SEC_PREFIX … SEC_POSTFIX).
const VOLATILE_SECURE_WRITER: EntityId = EntityId([0xff, 2, 2, 0xc3]);

/// tshark's names for builtin writers: DATA(p), DATA(w), DATA(r), DATA(m); and the DDS
/// Security builtin writers': DATA(stateless), DATA(volatile).
fn data_label(writer: EntityId) -> &'static str {
    match writer {
        EntityId::SPDP_PARTICIPANT_ANNOUNCER => "DATA(p)",
        EntityId::SEDP_PUBLICATIONS_ANNOUNCER => "DATA(w)",
        EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER => "DATA(r)",
        EntityId::SEDP_TOPICS_ANNOUNCER => "DATA(t)",
        EntityId::P2P_PARTICIPANT_MESSAGE_WRITER => "DATA(m)",
        STATELESS_WRITER => "DATA(stateless)",
        VOLATILE_SECURE_WRITER => "DATA(volatile)",
        _ => "DATA",
    }
}

fn describe_data(d: &Data<'_>, vendor: VendorId) -> String {
    let mut s = format!(
        "{:<14} w={} r={} sn={}",
        data_label(d.writer_id),
        d.writer_id,
        d.reader_id,
        d.writer_sn
    );
    s += &inline_qos(d.inline_qos.as_ref(), vendor);
    match d.payload {
        DataPayload::None => {}
        DataPayload::Data(b) => {
            s += &payload(b, vendor, "data");
            if d.writer_id == STATELESS_WRITER {
                s += &generic_message(b);
            }
        }
        DataPayload::Key(b) => s += &payload(b, vendor, "key"),
    }
    s
}

/// The message class and the token class ids of a ParticipantGenericMessage (DDS-Security
/// 1.1 §7.2.6), e.g. ` class=dds.sec.auth tokens=[DDS:Auth:PKI-DH:1.0+Req]`: which step of the
/// handshake a stateless message is (§9.3.2.5). Peer strings are printed escaped.
fn generic_message(bytes: &[u8]) -> String {
    let message = EncapsulationHeader::body(bytes)
        .map_err(|e| e.to_string())
        .and_then(|(_, mut r)| ParticipantGenericMessage::parse(&mut r).map_err(|e| e.to_string()));
    match message {
        Ok(m) => format!(
            " class={} tokens={}",
            m.message_class_id.escape_debug(),
            list(
                m.message_data
                    .iter()
                    .map(|h| h.class_id.escape_debug().to_string())
            )
        ),
        Err(e) => format!(" message=INVALID({e})"),
    }
}

fn describe_data_frag(d: &DataFrag<'_>, vendor: VendorId) -> String {
    // Untrusted: a fragment number 0 or an empty DATA_FRAG must not underflow.
    let last = u64::from(d.fragment_starting_num.0)
        .saturating_add(u64::from(d.fragments_in_submessage))
        .saturating_sub(1);
    let mut s = format!(
        "DATA_FRAG      w={} r={} sn={} frags={}..{} fragSize={} sampleSize={}{}",
        d.writer_id,
        d.reader_id,
        d.writer_sn,
        d.fragment_starting_num,
        last,
        d.fragment_size,
        d.sample_size,
        if d.key { " key" } else { "" }
    );
    s += &inline_qos(d.inline_qos.as_ref(), vendor);
    s
}

fn describe_heartbeat(h: &Heartbeat) -> String {
    format!(
        "HEARTBEAT      w={} r={} sn={}..{} count={}{}{}",
        h.writer_id,
        h.reader_id,
        h.first_sn,
        h.last_sn,
        h.count,
        if h.final_flag { " F" } else { "" },
        if h.liveliness { " L" } else { "" }
    )
}

fn describe_acknack(a: &AckNack) -> String {
    format!(
        "ACKNACK        r={} w={} base={} missing={} count={}{}{}",
        a.reader_id,
        a.writer_id,
        a.reader_sn_state.bitmap_base(),
        list(a.reader_sn_state.iter().map(|sn| sn.to_string())),
        a.count,
        if a.final_flag { " F" } else { "" },
        if a.is_preemptive() { " preemptive" } else { "" }
    )
}

fn describe_gap(g: &Gap) -> String {
    let base = g.gap_list.bitmap_base();
    format!(
        "GAP            r={} w={} irrelevant={}..{}{}",
        g.reader_id,
        g.writer_id,
        g.gap_start,
        base.0.saturating_sub(1),
        {
            let extra: Vec<String> = g.gap_list.iter().map(|sn| sn.to_string()).collect();
            if extra.is_empty() {
                String::new()
            } else {
                format!(" +[{}]", extra.join(","))
            }
        }
    )
}

/// Lists inline QoS PIDs by name and decodes the content-filter info in full.
fn inline_qos(qos: Option<&ParameterListView<'_>>, vendor: VendorId) -> String {
    let Some(qos) = qos else { return String::new() };
    let mut names = Vec::new();
    let mut extra = String::new();
    for p in qos.iter() {
        names.push(pid_label(p.pid, vendor));
        if p.pid == pid::PID_CONTENT_FILTER_INFO {
            let mut r = CdrReader::new(p.value, qos.endian());
            extra += &match ContentFilterInfo::parse(&mut r) {
                Ok(cfi) => format!(
                    " filterInfo=[{}]",
                    (0..cfi.len())
                        .map(|i| format!(
                            "{}:{}",
                            hex(cfi.signatures().get(i).map(|s| &s[..]).unwrap_or(&[])),
                            match cfi.passed(i) {
                                Some(true) => "pass",
                                Some(false) => "fail",
                                None => "?",
                            }
                        ))
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                Err(e) => format!(" filterInfo=INVALID({e})"),
            };
        }
    }
    format!(" qos=[{}]{extra}", names.join(","))
}

/// Summarises a serialized payload: its encapsulation and size, and for parameter-list
/// payloads (discovery data) the PIDs, with a reader's content filter decoded.
fn payload(bytes: &[u8], vendor: VendorId, what: &str) -> String {
    let mut r = CdrReader::new(bytes, crate::cdr::Endianness::Big);
    let Ok(encap) = EncapsulationHeader::parse(&mut r) else {
        return format!(" {what}={}B", bytes.len());
    };
    let mut s = format!(
        " {what}={}B {}{}",
        bytes.len(),
        encap_name(encap.kind),
        endian_suffix(&encap)
    );
    if encap.kind == EncapsulationKind::PlCdr {
        r.set_endian(encap.endian);
        match ParameterListView::new_checked(&mut r) {
            Ok(pl) => {
                let names: Vec<String> = pl.iter().map(|p| pid_label(p.pid, vendor)).collect();
                s += &format!(" params=[{}]", names.join(","));
                if let Some(p) = pl.find(pid::PID_CONTENT_FILTER_PROPERTY) {
                    let mut pr = CdrReader::new(p.value, pl.endian());
                    s += &match ContentFilterProperty::parse(&mut pr) {
                        Ok(cf) => format!(
                            " filter={{{} on {} class={} expr=\"{}\" params={} sig={}}}",
                            cf.content_filtered_topic_name,
                            cf.related_topic_name,
                            cf.filter_class_name,
                            cf.filter_expression,
                            list(cf.expression_parameters.iter().map(|p| p.to_string())),
                            hex(&cf.signature())
                        ),
                        Err(e) => format!(" filter=INVALID({e})"),
                    };
                }
            }
            Err(e) => s += &format!(" params=INVALID({e})"),
        }
    }
    s
}

fn encap_name(kind: EncapsulationKind) -> &'static str {
    match kind {
        EncapsulationKind::Cdr => "CDR",
        EncapsulationKind::PlCdr => "PL_CDR",
        EncapsulationKind::Cdr2 => "CDR2",
        EncapsulationKind::DCdr2 => "D_CDR2",
        EncapsulationKind::PlCdr2 => "PL_CDR2",
        EncapsulationKind::Xml => "XML",
    }
}

fn endian_suffix(e: &EncapsulationHeader) -> &'static str {
    match (e.kind, e.endian) {
        (EncapsulationKind::Xml, _) => "",
        (_, crate::cdr::Endianness::Little) => "_LE",
        (_, crate::cdr::Endianness::Big) => "_BE",
    }
}

fn pid_label(id: u16, vendor: VendorId) -> String {
    match pid_name(id, vendor) {
        Some(name) => name.trim_start_matches("PID_").to_string(),
        None => format!("0x{id:04x}"),
    }
}

/// Must-understand inline QoS PIDs that the PID table knows (e.g. PID_DOMAIN_TAG).
fn understood(id: u16) -> bool {
    describe(id, VendorId::UNKNOWN).is_some()
}

fn vendor_name(v: VendorId) -> String {
    v.name()
        .map(str::to_string)
        .unwrap_or_else(|| format!("{:02x}.{:02x}", v.0[0], v.0[1]))
}

fn list(items: impl Iterator<Item = String>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(","))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn fraction_nanos(fraction: u32) -> u64 {
    (u64::from(fraction) * 1_000_000_000) >> 32
}

#[cfg(test)]
mod tests;
