//! Golden decodes of every DATA(p), DATA(w) and DATA(r) in the committed Cyclone DDS 0.10 /
//! Fast DDS 2.9 captures (tests/data/captures, see its README), re-encoding through our
//! encoder, key-only payloads, and truncation of each payload at every offset.
// Test arithmetic works on small, known inputs; docs/conventions.md §4 targets parse paths.
#![allow(clippy::arithmetic_side_effects)]

use std::path::{Path, PathBuf};

use super::*;
use crate::cdr::Endianness;
use crate::inspect::capture::for_each_datagram;
use crate::qos::{DataRepresentation, Durability, History, Reliability, ReliabilityKind};
use crate::time::Duration;
use crate::wire::plist::parse_pl_cdr_payload;
use crate::wire::submessage::{DataPayload, Submessage, SubmessageOutcome};
use crate::wire::{EntityId, Guid, Locator, Message, VendorId};

fn pids(payload: &[u8]) -> Vec<u16> {
    parse_pl_cdr_payload(payload)
        .unwrap()
        .iter()
        .map(|p| p.pid)
        .collect()
}

// ---- vendor captures ---------------------------------------------------------------------

/// One discovery DATA found in a capture.
struct Found {
    file: String,
    frame: u64,
    vendor: VendorId,
    writer: EntityId,
    /// K flag: a key-only payload (dispose/unregister).
    key: bool,
    payload: Vec<u8>,
}

fn captures() -> Vec<PathBuf> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/captures"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pcapng"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    files
}

/// Every DATA or key-only DATA written by the SPDP, SEDP publications or SEDP subscriptions
/// announcer, in `path`.
fn discovery_data(path: &Path) -> Vec<Found> {
    let mut out = Vec::new();
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    for_each_datagram(file, |d| {
        let Ok((header, iter)) = Message::parse(&d.payload) else {
            return;
        };
        for outcome in iter {
            let SubmessageOutcome::Accept(Submessage::Data(data)) = outcome else {
                continue;
            };
            let wanted = [
                EntityId::SPDP_PARTICIPANT_ANNOUNCER,
                EntityId::SEDP_PUBLICATIONS_ANNOUNCER,
                EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER,
            ];
            if !wanted.contains(&data.writer_id) {
                continue;
            }
            let (key, p) = match data.payload {
                DataPayload::Data(p) => (false, p),
                DataPayload::Key(p) => (true, p),
                DataPayload::None => continue,
            };
            out.push(Found {
                file: name.clone(),
                frame: d.frame,
                vendor: header.vendor_id,
                writer: data.writer_id,
                key,
                payload: p.to_vec(),
            });
        }
    })
    .unwrap();
    out
}

fn all_discovery_data() -> Vec<Found> {
    captures().iter().flat_map(|p| discovery_data(p)).collect()
}

fn samples() -> Vec<Found> {
    all_discovery_data()
        .into_iter()
        .filter(|f| !f.key)
        .collect()
}

fn where_(f: &Found) -> String {
    format!("{} frame {} ({})", f.file, f.frame, f.writer)
}

#[test]
fn every_vendor_discovery_payload_decodes_and_survives_our_encoder() {
    let found = samples();
    let count = |w: EntityId, v: VendorId| {
        found
            .iter()
            .filter(|f| f.writer == w && f.vendor == v)
            .count()
    };
    for v in [VendorId::CYCLONE_DDS, VendorId::FAST_DDS] {
        assert!(count(EntityId::SPDP_PARTICIPANT_ANNOUNCER, v) > 0);
        assert!(count(EntityId::SEDP_PUBLICATIONS_ANNOUNCER, v) > 0);
        assert!(count(EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER, v) > 0);
    }
    for f in &found {
        let w = where_(f);
        let guid = match f.writer {
            EntityId::SPDP_PARTICIPANT_ANNOUNCER => {
                let p = ParticipantProxyData::from_payload(&f.payload, f.vendor).expect(&w);
                for endian in [Endianness::Big, Endianness::Little] {
                    let again = p.to_payload(endian).expect(&w);
                    assert_eq!(
                        ParticipantProxyData::from_payload(&again, f.vendor).as_ref(),
                        Ok(&p),
                        "{w}"
                    );
                }
                p.guid()
            }
            EntityId::SEDP_PUBLICATIONS_ANNOUNCER => {
                let p = PublicationData::from_payload(&f.payload, f.vendor).expect(&w);
                for endian in [Endianness::Big, Endianness::Little] {
                    let again = p.to_payload(endian).expect(&w);
                    assert_eq!(
                        PublicationData::from_payload(&again, f.vendor).as_ref(),
                        Ok(&p),
                        "{w}"
                    );
                }
                p.guid
            }
            _ => {
                let p = SubscriptionData::from_payload(&f.payload, f.vendor).expect(&w);
                for endian in [Endianness::Big, Endianness::Little] {
                    let again = p.to_payload(endian).expect(&w);
                    assert_eq!(
                        SubscriptionData::from_payload(&again, f.vendor).as_ref(),
                        Ok(&p),
                        "{w}"
                    );
                }
                p.guid
            }
        };
        assert_eq!(key_from_payload(&f.payload, f.vendor), Ok(guid), "{w}");
    }
}

#[test]
fn vendor_participants_carry_lease_locators_and_builtin_endpoints() {
    use crate::wire::plist::pid::{PID_BUILTIN_ENDPOINT_SET, PID_PARTICIPANT_LEASE_DURATION};
    let sedp = BuiltinEndpointSet::PARTICIPANT_ANNOUNCER
        | BuiltinEndpointSet::PARTICIPANT_DETECTOR
        | BuiltinEndpointSet::PUBLICATIONS_ANNOUNCER
        | BuiltinEndpointSet::PUBLICATIONS_DETECTOR
        | BuiltinEndpointSet::SUBSCRIPTIONS_ANNOUNCER
        | BuiltinEndpointSet::SUBSCRIPTIONS_DETECTOR;
    for f in samples()
        .iter()
        .filter(|f| f.writer == EntityId::SPDP_PARTICIPANT_ANNOUNCER)
    {
        let w = where_(f);
        let p = ParticipantProxyData::from_payload(&f.payload, f.vendor).expect(&w);
        let pids = pids(&f.payload);
        assert!(pids.contains(&PID_PARTICIPANT_LEASE_DURATION), "{w}");
        assert!(pids.contains(&PID_BUILTIN_ENDPOINT_SET), "{w}");
        assert!(p.available_builtin_endpoints.contains(sedp), "{w}");
        assert!(!p.metatraffic_unicast_locators.is_empty(), "{w}");
        assert!(!p.default_unicast_locators.is_empty(), "{w}");
        assert_eq!(
            p.guid_prefix.0.get(..2),
            Some(&p.vendor_id.0[..]),
            "{w}: prefix starts with vendor"
        );
        assert!(p.domain_tag.is_empty(), "{w}");
        match p.vendor_id {
            VendorId::CYCLONE_DDS => {
                assert_eq!(
                    p.protocol_version,
                    crate::wire::ProtocolVersion { major: 2, minor: 1 },
                    "{w}"
                );
                assert_eq!(p.domain_id, Some(0), "{w}");
                assert_eq!(
                    p.lease_duration,
                    Duration {
                        seconds: 10,
                        fraction: 0
                    },
                    "{w}"
                );
                // Bits 0-5 and 10-15 (WLP and TypeLookup).
                assert_eq!(p.available_builtin_endpoints.0, 0xfc3f, "{w}");
                assert_eq!(
                    p.metatraffic_multicast_locators,
                    vec![Locator::udpv4(SPDP_MULTICAST_ADDRESS, 7400)]
                );
                assert!(
                    p.properties.iter().any(|(n, _)| n == "__ProcessName"),
                    "{w}"
                );
            }
            VendorId::FAST_DDS => {
                // Debian's Fast DDS is built with security: version 2.3 (README).
                assert_eq!(
                    p.protocol_version,
                    crate::wire::ProtocolVersion { major: 2, minor: 3 },
                    "{w}"
                );
                assert_eq!(p.domain_id, None, "{w}: Fast DDS sends no DOMAIN_ID");
                assert_eq!(
                    p.lease_duration,
                    Duration {
                        seconds: 20,
                        fraction: 0
                    },
                    "{w}"
                );
                // Bits 0-5, 10-11 and security endpoints 16-21, 26-27.
                assert_eq!(p.available_builtin_endpoints.0, 0x0c3f_0c3f, "{w}");
                let ports: Vec<u32> = p
                    .metatraffic_unicast_locators
                    .iter()
                    .map(|l| l.port)
                    .collect();
                assert!(
                    ports.iter().all(|&port| port == 7410 || port == 7412),
                    "{w}: {ports:?}"
                );
                assert!(
                    p.entity_name
                        .as_deref()
                        .is_some_and(|n| n.starts_with("shapes_fastdds")),
                    "{w}"
                );
                assert!(
                    p.properties
                        .iter()
                        .any(|(n, _)| n == "fastdds.physical_data.process"),
                    "{w}"
                );
            }
            v => panic!("{w}: unexpected vendor {v:?}"),
        }
    }
}

fn one<T>(mut items: impl Iterator<Item = T>, what: &str) -> T {
    items.next().unwrap_or_else(|| panic!("no {what}"))
}

#[test]
fn fast_dds_cft_reader_announces_its_filter() {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/captures"))
        .join("fastdds-cft.pcapng");
    let found = discovery_data(&path);
    let f = one(
        found
            .iter()
            .filter(|f| f.writer == EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER && !f.key),
        "DATA(r)",
    );
    let r = SubscriptionData::from_payload(&f.payload, f.vendor).unwrap();
    assert_eq!(r.vendor_id, VendorId::FAST_DDS);
    assert_eq!(r.topic_name, "Square");
    assert_eq!(r.type_name, "ShapeType");
    assert_eq!(r.guid.entity_id.kind(), EntityId::KIND_READER_WITH_KEY);
    assert_eq!(r.qos.reliability.kind, ReliabilityKind::Reliable);
    assert_eq!(
        r.qos.reliability.max_blocking_time,
        Reliability::DEFAULT_MAX_BLOCKING_TIME
    );
    assert_eq!(r.qos.durability, Durability::Volatile);
    assert!(
        r.type_information.is_some(),
        "fastddsgen -typeobject announces type information"
    );
    let cf = r.content_filter.as_ref().expect("content filter");
    assert_eq!(cf.content_filtered_topic_name, "SquareFiltered");
    assert_eq!(cf.related_topic_name, "Square");
    assert_eq!(cf.filter_class_name, "DDSSQL");
    assert_eq!(cf.filter_expression, "color = %0");
    assert_eq!(cf.expression_parameters, vec!["'RED'".to_string()]);
    // The signature Fast DDS put into PID_CONTENT_FILTER_INFO of the filtered DATA (README).
    assert_eq!(
        cf.signature(),
        [
            0x47, 0xbb, 0x7e, 0x53, 0x66, 0x2f, 0xda, 0x80, 0x91, 0xcb, 0x7f, 0x1a, 0x47, 0xdb,
            0x53, 0xb7
        ]
    );
    // The writer in the same capture: unicast-only, RELIABLE, no content filter of its own.
    let f = one(
        found
            .iter()
            .filter(|f| f.writer == EntityId::SEDP_PUBLICATIONS_ANNOUNCER && !f.key),
        "DATA(w)",
    );
    let w = PublicationData::from_payload(&f.payload, f.vendor).unwrap();
    assert_eq!(
        (w.topic_name.as_str(), w.type_name.as_str()),
        ("Square", "ShapeType")
    );
    assert_eq!(w.qos.reliability.kind, ReliabilityKind::Reliable);
    assert!(!w.unicast_locators.is_empty() && w.multicast_locators.is_empty());
}

#[test]
fn cyclone_writer_omits_participant_guid_and_sends_type_information() {
    use crate::wire::plist::pid::{PID_DURABILITY, PID_PARTICIPANT_GUID};
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/captures"))
        .join("cyclone-to-fastdds.pcapng");
    let found = discovery_data(&path);
    let f = one(
        found
            .iter()
            .filter(|f| f.writer == EntityId::SEDP_PUBLICATIONS_ANNOUNCER && !f.key),
        "DATA(w)",
    );
    assert_eq!(f.vendor, VendorId::CYCLONE_DDS);
    let p = pids(&f.payload);
    assert!(
        !p.contains(&PID_PARTICIPANT_GUID),
        "Cyclone omits PARTICIPANT_GUID in SEDP"
    );
    assert!(
        !p.contains(&PID_DURABILITY),
        "Cyclone omits a VOLATILE durability"
    );
    let w = PublicationData::from_payload(&f.payload, f.vendor).unwrap();
    assert_eq!(
        w.participant_guid,
        Guid::new(w.guid.prefix, EntityId::PARTICIPANT)
    );
    assert_eq!(
        (w.topic_name.as_str(), w.type_name.as_str()),
        ("Square", "ShapeType")
    );
    assert_eq!(w.guid.entity_id.kind(), EntityId::KIND_WRITER_WITH_KEY);
    assert_eq!(
        w.qos.reliability,
        Reliability {
            kind: ReliabilityKind::Reliable,
            max_blocking_time: Duration {
                seconds: 1,
                fraction: 0
            }
        }
    );
    assert_eq!(w.qos.durability, Durability::Volatile);
    assert_eq!(w.qos.history, History::KeepLast(10));
    assert_eq!(
        w.qos.data_representation.value,
        vec![DataRepresentation::XCDR, DataRepresentation::XCDR2]
    );
    assert!(w.type_information.as_ref().is_some_and(|t| !t.is_empty()));
    assert!(
        w.unicast_locators.is_empty(),
        "Cyclone endpoints use the participant's locators"
    );
    // The Fast DDS reader it matched: no type information (README), RELIABLE, keyed.
    let f = one(
        found
            .iter()
            .filter(|f| f.writer == EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER && !f.key),
        "DATA(r)",
    );
    let r = SubscriptionData::from_payload(&f.payload, f.vendor).unwrap();
    assert_eq!(r.vendor_id, VendorId::FAST_DDS);
    assert!(r.type_information.is_none() && r.content_filter.is_none());
    assert_eq!(r.qos.reliability.kind, ReliabilityKind::Reliable);
    assert_eq!(r.guid.entity_id.kind(), EntityId::KIND_READER_WITH_KEY);
}

#[test]
fn key_only_vendor_payloads_name_the_entity_and_match_ours_byte_for_byte() {
    use crate::wire::plist::pid::{PID_ENDPOINT_GUID, PID_PARTICIPANT_GUID};
    let keys: Vec<Found> = all_discovery_data().into_iter().filter(|f| f.key).collect();
    // Cyclone disposes its participant and endpoints on shutdown with key-only DATA.
    assert!(
        keys.iter()
            .any(|f| f.writer == EntityId::SPDP_PARTICIPANT_ANNOUNCER)
    );
    assert!(
        keys.iter()
            .any(|f| f.writer == EntityId::SEDP_PUBLICATIONS_ANNOUNCER)
    );
    assert!(
        keys.iter()
            .any(|f| f.writer == EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER)
    );
    for f in &keys {
        let w = where_(f);
        let guid = key_from_payload(&f.payload, f.vendor).expect(&w);
        let pid = match f.writer {
            EntityId::SPDP_PARTICIPANT_ANNOUNCER => {
                assert_eq!(guid.entity_id, EntityId::PARTICIPANT, "{w}");
                PID_PARTICIPANT_GUID
            }
            EntityId::SEDP_PUBLICATIONS_ANNOUNCER => {
                assert!(guid.entity_id.is_writer(), "{w}");
                PID_ENDPOINT_GUID
            }
            _ => {
                assert!(guid.entity_id.is_reader(), "{w}");
                PID_ENDPOINT_GUID
            }
        };
        if f.vendor == VendorId::CYCLONE_DDS {
            assert_eq!(
                key_payload(pid, guid, Endianness::Little).unwrap(),
                f.payload,
                "{w}"
            );
        }
    }
}

#[test]
fn truncated_vendor_payloads_are_errors_never_panics() {
    for f in all_discovery_data() {
        let w = where_(&f);
        // The bytes that matter: encapsulation header plus the list up to its sentinel.
        let view = parse_pl_cdr_payload(&f.payload).expect(&w);
        let end = 4 + view.as_bytes().len() + 4;
        for cut in 0..end {
            let bytes = &f.payload[..cut];
            assert!(key_from_payload(bytes, f.vendor).is_err(), "{w} cut {cut}");
            assert!(
                ParticipantProxyData::from_payload(bytes, f.vendor).is_err(),
                "{w} cut {cut}"
            );
            assert!(
                PublicationData::from_payload(bytes, f.vendor).is_err(),
                "{w} cut {cut}"
            );
            assert!(
                SubscriptionData::from_payload(bytes, f.vendor).is_err(),
                "{w} cut {cut}"
            );
        }
    }
}
