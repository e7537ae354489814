//! Fuzz harnesses: one function per cargo-fuzz target in `fuzz/`, each target a single line.
//! Each harness decodes arbitrary bytes and, for whatever decodes, checks that encoding and
//! decoding again gives the same value (a round-trip oracle beyond "does not panic").
//!
//! Must not: perform I/O or keep state between calls. It is compiled in every build (hidden
//! from the docs) rather than only under `cfg(fuzzing)`, so that the test suite also runs the
//! harnesses over the committed captures and over every crash input kept as a regression test.

// Harness code: a fuzz target reports a broken round trip by panicking, and builds its inputs
// with test arithmetic; the parse paths it drives keep the crate's lints.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use crate::cdr::{
    CdrDecode, CdrEncode, CdrError, CdrReader, CdrWriter, EncapsulationHeader, Endianness,
    XcdrVersion,
};
use crate::wire::plist::{
    ContentFilterInfo, ContentFilterProperty, ListOutcome, ParameterListView,
    decode_parameter_list, emit_parameter_list,
};
use crate::wire::submessage::{SubmessageIter, SubmessageOutcome};
use crate::wire::{Message, VendorId};

/// Target `rtps_message`: parse a datagram; every accepted submessage must re-emit to bytes
/// that parse back to the same submessage.
pub fn rtps_message(data: &[u8]) {
    let Ok((_header, iter)) = Message::parse(data) else {
        return;
    };
    for outcome in iter {
        if let SubmessageOutcome::Accept(sm) = outcome {
            let mut buf = Vec::new();
            sm.emit(&mut buf);
            assert_eq!(
                buf.len(),
                sm.buffer_len(),
                "buffer_len disagrees with emit: {sm:?}"
            );
            match SubmessageIter::new(&buf).next() {
                Some(SubmessageOutcome::Accept(again)) => {
                    assert_eq!(again, sm, "submessage changed in a round trip")
                }
                other => panic!("re-emitted {sm:?} parsed as {other:?}"),
            }
        }
    }
}

/// Target `plist`: the first byte picks the byte order (bit 0) and the sender's vendor (bits
/// 1–3: Cyclone, Fast DDS, Connext, siftdds — whose vendor PIDs only a siftdds sender's list
/// is read with — else an unknown vendor); the rest is a parameter list. A decoded list must
/// re-emit to a list that decodes to the same parameters. The content-filter property and
/// info decoders get the same bytes.
pub fn plist(data: &[u8]) {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let endian = if selector & 1 == 1 {
        Endianness::Little
    } else {
        Endianness::Big
    };
    let vendor = match selector >> 1 & 7 {
        0 => VendorId::CYCLONE_DDS,
        1 => VendorId::FAST_DDS,
        2 => VendorId::RTI_CONNEXT,
        3 => VendorId::SIFTDDS,
        _ => VendorId::UNKNOWN,
    };
    if let Ok(view) = ParameterListView::new_checked(&mut CdrReader::new(body, endian)) {
        if let Ok(ListOutcome::Accept(params)) = decode_parameter_list(&view, vendor) {
            let mut buf = Vec::new();
            if emit_parameter_list(&params, &mut CdrWriter::new(&mut buf, endian)).is_ok() {
                let again = ParameterListView::new_checked(&mut CdrReader::new(&buf, endian))
                    .unwrap_or_else(|e| panic!("re-emitted list does not parse: {e}"));
                match decode_parameter_list(&again, vendor) {
                    Ok(ListOutcome::Accept(p2)) => assert_eq!(p2, params, "list changed"),
                    other => panic!("re-emitted list decoded as {other:?}"),
                }
            }
        }
    }
    if let Ok(cfp) = ContentFilterProperty::parse(&mut CdrReader::new(body, endian)) {
        let mut buf = Vec::new();
        cfp.emit(&mut CdrWriter::new(&mut buf, endian));
        let again = ContentFilterProperty::parse(&mut CdrReader::new(&buf, endian));
        assert_eq!(again.as_ref(), Ok(&cfp), "content filter property changed");
    }
    if let Ok(cfi) = ContentFilterInfo::parse(&mut CdrReader::new(body, endian)) {
        let mut buf = Vec::new();
        cfi.emit(&mut CdrWriter::new(&mut buf, endian));
        let again = ContentFilterInfo::parse(&mut CdrReader::new(&buf, endian));
        assert_eq!(again.as_ref(), Ok(&cfi), "content filter info changed");
    }
}

/// A composite type exercising every XCDR1 rule the payload decoder has: alignment of each
/// primitive size, strings, sequences (of primitives and of strings), arrays and booleans.
#[derive(Clone, Debug, PartialEq)]
struct Sample {
    flag: bool,
    small: u8,
    short: i16,
    long: i32,
    name: String,
    wide: i64,
    real: f64,
    values: Vec<u32>,
    tags: Vec<String>,
    matrix: [u16; 3],
}

impl CdrEncode for Sample {
    fn encode(&self, w: &mut CdrWriter<'_>) {
        self.flag.encode(w);
        self.small.encode(w);
        self.short.encode(w);
        self.long.encode(w);
        self.name.encode(w);
        self.wide.encode(w);
        self.real.encode(w);
        self.values.encode(w);
        self.tags.encode(w);
        self.matrix.encode(w);
    }
}

impl<'a> CdrDecode<'a> for Sample {
    const MIN_SIZE: usize = 1;

    fn decode(r: &mut CdrReader<'a>) -> Result<Self, CdrError> {
        Ok(Sample {
            flag: CdrDecode::decode(r)?,
            small: CdrDecode::decode(r)?,
            short: CdrDecode::decode(r)?,
            long: CdrDecode::decode(r)?,
            name: CdrDecode::decode(r)?,
            wide: CdrDecode::decode(r)?,
            real: CdrDecode::decode(r)?,
            values: CdrDecode::decode(r)?,
            tags: CdrDecode::decode(r)?,
            matrix: CdrDecode::decode(r)?,
        })
    }
}

/// Target `cdr`: an encapsulation header, then a `Sample` body in XCDR1 (or XCDR2 when the
/// header says CDR2). Whatever decodes must encode back to bytes that decode to the same value.
pub fn cdr(data: &[u8]) {
    let mut r = CdrReader::new(data, Endianness::Big);
    let Ok(header) = EncapsulationHeader::parse(&mut r) else {
        return;
    };
    let version = match header.kind {
        crate::cdr::EncapsulationKind::Cdr2 => XcdrVersion::Xcdr2,
        _ => XcdrVersion::Xcdr1,
    };
    let mut body = CdrReader::new(r.rest(), header.endian);
    body.set_xcdr(version);
    let Ok(sample) = Sample::decode(&mut body) else {
        return;
    };
    let mut buf = Vec::new();
    let mut w = CdrWriter::new(&mut buf, header.endian);
    w.set_xcdr(version);
    sample.encode(&mut w);
    let mut again = CdrReader::new(&buf, header.endian);
    again.set_xcdr(version);
    let decoded = Sample::decode(&mut again).unwrap_or_else(|e| panic!("re-encoded sample: {e}"));
    // NaN != NaN: compare the bit patterns of the float.
    assert_eq!(decoded.real.to_bits(), sample.real.to_bits());
    assert_eq!(
        Sample {
            real: 0.0,
            ..decoded
        },
        Sample {
            real: 0.0,
            ..sample
        }
    );
}

/// Target `filter`: a DDS-SQL expression (lossy UTF-8). Whatever parses must print to a
/// canonical form that parses to the same AST.
pub fn filter(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(ast) = crate::filter::Ast::parse(&text) else {
        return;
    };
    let printed = ast.to_string();
    // The canonical form may exceed the input length limit (documented in filter::ast).
    if printed.len() <= crate::filter::MAX_EXPRESSION_LEN {
        let again = crate::filter::Ast::parse(&printed)
            .unwrap_or_else(|e| panic!("canonical form {printed:?} does not parse: {e}"));
        assert_eq!(
            again, ast,
            "AST changed through its canonical form {printed:?}"
        );
    }
    filter_on_payloads(&text);
}

/// The expression compiled for ShapeType (with four fixed parameters) and run on serialized
/// samples: it must not panic, and must give the same answer on XCDR1 and XCDR2 payloads of
/// the same sample in both byte orders (the compiled evaluator walks each encoding its own
/// way), and equal projections must mean equal answers (the memo table's soundness).
fn filter_on_payloads(text: &str) {
    use crate::filter::{Program, parse_parameters};
    use crate::types::{ShapeType, TopicType, XcdrVersion};
    let Some(desc) = <ShapeType as TopicType>::descriptor() else {
        return;
    };
    let Ok(params) = parse_parameters(&["'RED'", "10", "2.5", "'B%'"]) else {
        return;
    };
    let Ok(program) = Program::compile_expression(text, &params, desc) else {
        return;
    };
    let shape = |color: &str, x: i32, extra: usize| ShapeType {
        color: color.into(),
        x,
        y: -x,
        shapesize: 10 + x,
        additional_payload_size: vec![3; extra],
    };
    let encodings = [
        (XcdrVersion::Xcdr1, Endianness::Little),
        (XcdrVersion::Xcdr1, Endianness::Big),
        (XcdrVersion::Xcdr2, Endianness::Little),
        (XcdrVersion::Xcdr2, Endianness::Big),
    ];
    let mut seen: Vec<(Vec<u8>, Option<bool>)> = Vec::new();
    for s in [
        shape("RED", 10, 0),
        shape("BLUE", -3, 2),
        shape("", 0, 5),
        shape("BR", 11, 1),
    ] {
        let mut answers = encodings.iter().filter_map(|&(v, e)| {
            let bytes = s.serialize_as(v, e)?;
            Some((program.evaluate(&bytes).ok(), program.project(&bytes).ok()))
        });
        let Some((first, key)) = answers.next() else {
            continue;
        };
        for (answer, _) in answers {
            assert_eq!(answer, first, "{text:?} on {s:?}: encodings disagree");
        }
        if let Some(key) = key {
            if let Some((_, earlier)) = seen.iter().find(|(k, _)| *k == key) {
                assert_eq!(
                    *earlier, first,
                    "{text:?}: equal projections, different answers"
                );
            }
            seen.push((key, first));
        }
    }
}

/// The vendors the `discovery` target decodes as, by the index [`discovery_selector`] packs.
const DISCOVERY_VENDORS: [VendorId; 4] = [
    VendorId::CYCLONE_DDS,
    VendorId::FAST_DDS,
    VendorId::RTI_CONNEXT,
    VendorId::SIFTDDS,
];

/// The `discovery` target's selector byte for a payload of `kind` (0 SPDP, 1 SEDP
/// publication, 2 SEDP subscription) sent by `vendor`: the kind in bits 1–2, the vendor in
/// bits 0 and 3 (Cyclone 0, Fast DDS 1, Connext 8, siftdds 9; any other vendor as Cyclone),
/// so the inputs kept from before siftdds and Connext were added keep their meaning.
pub fn discovery_selector(vendor: VendorId, kind: u8) -> u8 {
    let v = DISCOVERY_VENDORS
        .iter()
        .position(|x| *x == vendor)
        .unwrap_or(0) as u8;
    (v & 1) | (v & 2) << 2 | (kind & 3) << 1
}

/// Target `discovery`: SPDP and SEDP payloads, decoded as sent by the vendor the selector byte
/// names ([`discovery_selector`]: siftdds senders' vendor PIDs — the router's path vector,
/// the peer-group cache's capability, evictions and projections — are read only then).
/// Whatever decodes must encode to a payload that decodes to the same data.
pub fn discovery(data: &[u8]) {
    use crate::core::discovery::{ParticipantProxyData, PublicationData, SubscriptionData};
    let Some((&selector, payload)) = data.split_first() else {
        return;
    };
    let vendor = DISCOVERY_VENDORS[usize::from((selector & 1) | (selector >> 2 & 2))];
    match selector >> 1 & 3 {
        0 => {
            if let Ok(p) = ParticipantProxyData::from_payload(payload, vendor) {
                let again = p
                    .to_payload(Endianness::Little)
                    .map(|b| ParticipantProxyData::from_payload(&b, vendor));
                if let Ok(again) = again {
                    assert_eq!(again.as_ref().ok(), Some(&p), "participant data changed");
                }
            }
        }
        1 => {
            if let Ok(w) = PublicationData::from_payload(payload, vendor) {
                if let Ok(b) = w.to_payload(Endianness::Little) {
                    // The vendor is not part of the data we send: it comes from the sender's
                    // PID_VENDORID or message header, so compare the rest.
                    let again = PublicationData::from_payload(&b, vendor).map(|mut a| {
                        a.vendor_id = w.vendor_id;
                        a
                    });
                    assert_eq!(again.ok().as_ref(), Some(&w), "publication data changed");
                }
            }
        }
        _ => {
            if let Ok(r) = SubscriptionData::from_payload(payload, vendor) {
                if let Ok(b) = r.to_payload(Endianness::Little) {
                    let again = SubscriptionData::from_payload(&b, vendor).map(|mut a| {
                        a.vendor_id = r.vendor_id;
                        a
                    });
                    assert_eq!(again.ok().as_ref(), Some(&r), "subscription data changed");
                }
            }
        }
    }
}

/// A `discovery` input (selector byte included) for a siftdds sender, made from another
/// vendor's SPDP/SEDP payload of `kind` (as [`discovery_selector`] numbers them): decoded as
/// sent by `from`, given every field a siftdds sender adds under its vendor id (the router's
/// path vector, the peer-group cache's capability and eviction notices, a writer's
/// projections), encoded again. `None` when the payload does not decode. The seeder
/// (`fuzz/src/seed.rs`) adds these beside the captured inputs, so the fuzzer starts from
/// payloads that reach the siftdds vendor PIDs' decoders.
pub fn siftdds_discovery_seed(kind: u8, from: VendorId, payload: &[u8]) -> Option<Vec<u8>> {
    use crate::core::discovery::{ParticipantProxyData, PublicationData, SubscriptionData};
    use crate::wire::{Capability, EvictionNotice, ProjectionAnnouncement};
    let body = match kind {
        0 => {
            let mut p = ParticipantProxyData::from_payload(payload, from).ok()?;
            p.vendor_id = VendorId::SIFTDDS;
            p.peer_group = Some(Capability {
                capacity: 8,
                generation: 0x0102_0304,
            });
            p.peer_group_evicted = vec![
                EvictionNotice {
                    group: 1,
                    digest: 0x1122_3344_5566_7788,
                },
                EvictionNotice {
                    group: u32::MAX,
                    digest: 0,
                },
            ];
            p.to_payload(Endianness::Little).ok()?
        }
        1 => {
            let mut w = PublicationData::from_payload(payload, from).ok()?;
            w.vendor_id = VendorId::SIFTDDS;
            w.router_path = vec![7, 0xdead_beef];
            w.peer_group = Some(ProjectionAnnouncement {
                group: 3,
                digests: vec![1, u64::MAX],
            });
            w.to_payload(Endianness::Little).ok()?
        }
        _ => {
            let mut r = SubscriptionData::from_payload(payload, from).ok()?;
            r.vendor_id = VendorId::SIFTDDS;
            r.router_path = vec![3, 0xabc, 9];
            r.to_payload(Endianness::Little).ok()?
        }
    };
    let mut input = vec![discovery_selector(VendorId::SIFTDDS, kind)];
    input.extend_from_slice(&body);
    Some(input)
}

/// Target `participant_rx`: a sans-IO participant with one writer and one reader, on a fixed
/// clock, fed the input as a sequence of datagrams (2-byte big-endian length prefixes). It must
/// never panic, and everything it wants to send must be a well-formed RTPS message.
pub fn participant_rx(data: &[u8]) {
    use crate::core::participant::{ReaderSpec, WriterSpec};
    use crate::core::{Participant, ParticipantConfig};
    use crate::qos::{DataReaderQos, DataWriterQos};
    use crate::time::{Instant, Now, Timestamp};
    use crate::wire::{GuidPrefix, Locator};
    let mut config = ParticipantConfig::new(0, GuidPrefix([1, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]));
    config.spdp_destinations = vec![Locator::udpv4([239, 255, 0, 1], 7400)];
    config.max_remote_participants = 8;
    config.max_remote_endpoints = 32;
    let mut p = Participant::new(config);
    let mut now = Now {
        mono: Instant::from_nanos(1),
        wall: Timestamp::from_unix_nanos(1),
    };
    p.create_writer(
        now,
        WriterSpec {
            fragment_size: 512,
            ..WriterSpec::new("Square", "ShapeType", true, DataWriterQos::default())
        },
    );
    p.create_reader(
        now,
        ReaderSpec::new("Square", "ShapeType", true, DataReaderQos::default()),
    );
    let source = Locator::udpv4([127, 0, 0, 1], 7410);
    let mut rest = data;
    while let [a, b, tail @ ..] = rest {
        let len = usize::from(u16::from_be_bytes([*a, *b])).min(tail.len());
        let (datagram, after) = tail.split_at(len);
        p.handle_datagram(now, source, datagram);
        now.mono = Instant::from_nanos(now.mono.as_nanos().wrapping_add(1_000_000));
        p.handle_timeout(now);
        while let Some(t) = p.poll_transmit(now) {
            assert!(
                Message::parse(&t.datagram()).is_ok(),
                "we produced an unparsable message"
            );
        }
        rest = after;
    }
}

/// Target `qos_xml`: a QoS profile file (lossy UTF-8). Loading and resolving every profile
/// for every entity kind must never panic, whatever the file holds.
pub fn qos_xml(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut provider = crate::qos::xml::QosProvider::new();
    if provider.load_str("fuzz.xml", &text).is_err() {
        return;
    }
    let names: Vec<String> = provider.profile_names().map(str::to_string).collect();
    for name in names.iter().map(String::as_str).chain([""]) {
        let _ = provider.participant_qos(name);
        let _ = provider.datawriter_qos(name, "Square");
        let _ = provider.datareader_qos(name, "Square");
    }
}

/// Target `idl`: an IDL file (lossy UTF-8), with itself reachable as an include. Parsing,
/// resolving, building descriptors and generating Rust must never panic.
pub fn idl(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let loader = crate::idl::MemLoader::new()
        .with("fuzz.idl", &text)
        .with("inc.idl", &text);
    if let Ok(spec) = crate::idl::parse_with(&loader, std::path::Path::new("fuzz.idl"), &[]) {
        let _ = crate::idl::descriptors(&spec);
        let _ = crate::idl::codegen::generate_model(&spec.model, "crate");
        for st in spec.model.structs() {
            let _ = crate::idl::to_type_object::type_representation(&spec.model, &st.name);
        }
    }
}

/// Target `xtypes`: selector byte (bit 0: byte order, big-endian when set; bits 1–2: a
/// TypeIdentifier, a TypeObject or a TypeInformation, + its XCDR2 serialization, or a
/// PID_TYPE_OBJECTV1 value, Fast DDS 2.x's XCDR1 TypeObject with its encapsulation header);
/// whatever decodes must re-encode (little-endian XCDR2) to bytes that decode to the same
/// value.
pub fn xtypes(data: &[u8]) {
    use crate::types::xtypes::{TypeIdentifier, TypeInformation, TypeObject};
    let Some((selector, body)) = data.split_first() else {
        return;
    };
    let endian = if selector & 1 == 1 {
        Endianness::Big
    } else {
        Endianness::Little
    };
    match (selector >> 1) % 4 {
        0 => {
            if let Ok(id) = TypeIdentifier::from_bytes(body, endian) {
                let again = TypeIdentifier::from_bytes(&id.to_bytes(), Endianness::Little);
                assert_eq!(again, Ok(id));
            }
        }
        1 => {
            if let Ok(o) = TypeObject::from_bytes(body, endian) {
                let again = TypeObject::from_bytes(&o.to_bytes(), Endianness::Little);
                assert_eq!(again, Ok(o));
            }
        }
        3 => {
            if let Ok((_, o)) = crate::types::xtypes::type_object_v1::parse(body) {
                let again = TypeObject::from_bytes(&o.to_bytes(), Endianness::Little);
                assert_eq!(again, Ok(o));
            }
        }
        _ => {
            if let Ok(i) = TypeInformation::from_bytes(body, endian) {
                let again = TypeInformation::from_bytes(&i.to_bytes(), Endianness::Little);
                assert_eq!(again, Ok(i));
            }
        }
    }
}

/// Target `xcdr`: a payload of a @mutable type built from every runtime helper generated
/// types use (`types::codec::fuzz`); whatever decodes must re-encode to the same value.
pub fn xcdr(data: &[u8]) {
    crate::types::codec::fuzz::round_trip(data);
}

/// Target `security_token`: selector byte (endianness in bit 0; bit 1: a
/// ParticipantGenericMessage rather than one DataHolder) + a DDS Security token in CDR. What
/// decodes must re-encode to bytes that decode to the same value.
pub fn security_token(data: &[u8]) {
    use crate::wire::data_holder::{DataHolder, ParticipantGenericMessage};
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let endian = if sel & 1 == 0 {
        Endianness::Big
    } else {
        Endianness::Little
    };
    if sel & 2 == 0 {
        if let Ok(h) = DataHolder::from_bytes(body, endian) {
            let again = DataHolder::from_bytes(&h.to_bytes(endian), endian);
            assert_eq!(again.as_ref(), Ok(&h));
        }
    } else if let Ok(m) = ParticipantGenericMessage::parse(&mut CdrReader::new(body, endian)) {
        let mut out = Vec::new();
        m.emit(&mut CdrWriter::new(&mut out, endian));
        let again = ParticipantGenericMessage::parse(&mut CdrReader::new(&out, endian));
        assert_eq!(again.as_ref(), Ok(&m));
    }
}

/// Target `secure`: a selector byte (transformation kind in bits 0-1, what is protected in
/// bits 2-3, origin authentication in bit 4) and bytes. The bytes are decoded as secure
/// submessages (a parsed CryptoHeader or CryptoFooter must re-emit to the same bytes) and as
/// an encoded payload, submessage and RTPS message under a fixed key (must fail or, rarely,
/// give plaintext, never panic); then they are protected as plaintext under that key and must
/// decode back to themselves, and with one byte flipped must not.
#[cfg(feature = "security")]
pub fn secure(data: &[u8]) {
    use crate::security::crypto::{
        KeyMaterial, ReceiverSpecific, RemoteSender, SenderSession, TransformationKind,
        decode_rtps_message, decode_serialized_payload, decode_submessage, encode_rtps_message,
        encode_serialized_payload, encode_submessage,
    };
    use crate::wire::security::{CryptoFooter, CryptoHeader, SecureSubmessage};

    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    for id in 0x30..=0x34u8 {
        match SecureSubmessage::parse(id, bytes) {
            Ok(Some(SecureSubmessage::SecPrefix(h) | SecureSubmessage::SrtpsPrefix(h))) => {
                let mut buf = Vec::new();
                h.emit(&mut CdrWriter::new(&mut buf, Endianness::Big));
                assert_eq!(&buf[..], &bytes[..20]);
                let again = CryptoHeader::parse(&mut CdrReader::new(&buf, Endianness::Big));
                assert_eq!(again, Ok(h));
            }
            Ok(Some(SecureSubmessage::SecPostfix(f) | SecureSubmessage::SrtpsPostfix(f))) => {
                let mut buf = Vec::new();
                f.emit(&[], &mut CdrWriter::new(&mut buf, Endianness::Big));
                assert_eq!(buf.len(), f.buffer_len(0));
                assert_eq!(&buf[..], &bytes[..buf.len()]);
                let again = CryptoFooter::parse(&mut CdrReader::new(&buf, Endianness::Big));
                assert_eq!(again, Ok(f));
            }
            _ => {}
        }
    }
    let kind = [
        TransformationKind::Aes128Gmac,
        TransformationKind::Aes128Gcm,
        TransformationKind::Aes256Gmac,
        TransformationKind::Aes256Gcm,
    ][usize::from(sel & 3)];
    let n = kind.key_len();
    let what = (sel >> 2) & 3;
    // A payload never carries receiver-specific MACs (DDS-Security 1.1 §9.5.3.3.4.1).
    let origin = sel & 0x10 != 0 && what != 0;
    let keymat = KeyMaterial {
        transformation_kind: kind,
        master_salt: vec![1; n],
        sender_key_id: [0, 0, 0, 1],
        master_sender_key: vec![2; n],
        receiver_specific_key_id: if origin { [0, 0, 0, 2] } else { [0; 4] },
        master_receiver_specific_key: if origin { vec![3; n] } else { Vec::new() },
    };
    let mut remote = RemoteSender::new(keymat.clone()).unwrap();
    let mut out = Vec::new();
    let _ = match what {
        0 => decode_serialized_payload(&mut remote, bytes, &mut out),
        1 => decode_submessage(&mut remote, bytes, &mut out).map(|_| ()),
        _ => decode_rtps_message(&mut remote, bytes, &mut out),
    };
    struct Fixed;
    impl crate::security::crypto::RandomSource for Fixed {
        fn fill(&mut self, buf: &mut [u8]) -> Result<(), crate::security::crypto::CryptoError> {
            buf.fill(7);
            Ok(())
        }
    }
    let mut session = SenderSession::new(keymat.clone(), &mut Fixed).unwrap();
    let mut receivers: Vec<ReceiverSpecific> = if origin {
        vec![ReceiverSpecific::new(keymat).unwrap()]
    } else {
        Vec::new()
    };
    let mut enc = Vec::new();
    let plain: Vec<u8> = match what {
        0 => {
            encode_serialized_payload(&mut session, bytes, &mut enc).unwrap();
            bytes.to_vec()
        }
        1 => {
            // A whole submessage: a header whose length is the rest.
            let body = &bytes[..bytes.len().min(60_000)];
            // PAD: a length of 0 is an empty body, not "to the end" (RTPS 2.5 §9.4.5.1.3).
            let mut sm = vec![0x01, 0x01];
            sm.extend_from_slice(&(body.len() as u16).to_le_bytes());
            sm.extend_from_slice(body);
            encode_submessage(
                &mut session,
                &sm,
                &mut receivers,
                Endianness::Little,
                &mut enc,
            )
            .unwrap();
            sm
        }
        _ => {
            let body = &bytes[..bytes.len().min(60_000)];
            let mut m = b"RTPS\x02\x05\x01\x10".to_vec();
            m.extend_from_slice(&[9; 12]);
            m.extend_from_slice(&[0x01, 0x01]);
            m.extend_from_slice(&(body.len() as u16).to_le_bytes());
            m.extend_from_slice(body);
            encode_rtps_message(&mut session, &m, &mut receivers, Endianness::Big, &mut enc)
                .unwrap();
            m
        }
    };
    let decode = |remote: &mut RemoteSender, b: &[u8], out: &mut Vec<u8>| match what {
        0 => decode_serialized_payload(remote, b, out),
        1 => decode_submessage(remote, b, out).map(|_| ()),
        _ => decode_rtps_message(remote, b, out),
    };
    let mut dec = Vec::new();
    decode(&mut remote, &enc, &mut dec).unwrap();
    if what >= 2 {
        // The decoded message holds the INFO_SRC made from the header after the header.
        assert_eq!(&dec[..20], &plain[..20]);
        assert_eq!(&dec[44..], &plain[20..]);
    } else {
        assert_eq!(dec, plain);
    }
    let mut at = usize::from(sel) * 7919 % enc.len();
    // The zeros that pad a SEC_BODY to 4 octets (RTPS 2.5 §9.4.1) are outside every MAC, in
    // the vendors' transforms as here; flip the byte before them instead.
    if kind.encrypts() && what != 0 {
        let footer = 4 + 20 + 20 * receivers.len();
        let protected = if what == 1 {
            plain.len()
        } else {
            plain.len() + 4
        };
        let pad = (4 + protected).wrapping_neg() & 3;
        let post = enc.len() - footer;
        if (post - pad..post).contains(&at) {
            at = post - pad - 1;
        }
    }
    enc[at] ^= 0x01;
    assert!(decode(&mut remote, &enc, &mut Vec::new()).is_err());
}

#[cfg(test)]
mod tests;
