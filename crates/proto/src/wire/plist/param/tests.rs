//! Every PID of the table: golden bytes, decode/encode round trips in both byte orders, and
//! proptests over arbitrary parameter lists. Must not: open sockets or read files.

// Test arithmetic works on small, known inputs; docs/conventions.md §4 targets parse paths.
#![allow(clippy::arithmetic_side_effects)]

use super::*;
use crate::time::Duration;
use crate::wire::plist::pid::*;
use crate::wire::plist::{ContentFilterInfo, ContentFilterProperty, ReliabilityKind};
use crate::wire::{EntityId, Guid, GuidPrefix, Locator, ProtocolVersion, SequenceNumber};
use proptest::prelude::*;

fn guid() -> Guid {
    Guid::new(
        GuidPrefix([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
        EntityId::PARTICIPANT,
    )
}

fn known(pid: u16, value: Value<'static>) -> Parameter<'static> {
    Parameter::Known { pid, value }
}

fn view(bytes: &[u8], endian: Endianness) -> ParameterListView<'_> {
    ParameterListView::new_checked(&mut CdrReader::new(bytes, endian)).unwrap()
}

fn accept(bytes: &[u8], endian: Endianness, vendor: VendorId) -> Vec<Parameter<'_>> {
    match decode_parameter_list(&view(bytes, endian), vendor).unwrap() {
        ListOutcome::Accept(v) => v,
        other => panic!("{other:?}"),
    }
}

fn emit(params: &[Parameter<'_>], endian: Endianness) -> Vec<u8> {
    let mut v = Vec::new();
    emit_parameter_list(params, &mut CdrWriter::new(&mut v, endian)).unwrap();
    assert_eq!(v.len(), parameter_list_len(params));
    v
}

#[test]
fn small_list_matches_golden_bytes_in_both_byte_orders() {
    let params = [
        known(PID_TOPIC_NAME, Value::String("Square")),
        known(
            PID_RELIABILITY,
            Value::Reliability {
                kind: ReliabilityKind::Reliable,
                max_blocking_time: Duration {
                    seconds: 0,
                    fraction: 0x1999_9999,
                },
            },
        ),
        known(PID_DURABILITY, Value::QosKind(1)),
        known(PID_STATUS_INFO, Value::StatusInfo(3)),
    ];
    let le: &[u8] = &[
        0x05, 0x00, 0x0c, 0x00, 7, 0, 0, 0, b'S', b'q', b'u', b'a', b'r', b'e', 0, 0, //
        0x1a, 0x00, 0x0c, 0x00, 2, 0, 0, 0, 0, 0, 0, 0, 0x99, 0x99, 0x99, 0x19, //
        0x1d, 0x00, 0x04, 0x00, 1, 0, 0, 0, //
        0x71, 0x00, 0x04, 0x00, 0, 0, 0, 3, //
        0x01, 0x00, 0x00, 0x00,
    ];
    let be: &[u8] = &[
        0x00, 0x05, 0x00, 0x0c, 0, 0, 0, 7, b'S', b'q', b'u', b'a', b'r', b'e', 0, 0, //
        0x00, 0x1a, 0x00, 0x0c, 0, 0, 0, 2, 0, 0, 0, 0, 0x19, 0x99, 0x99, 0x99, //
        0x00, 0x1d, 0x00, 0x04, 0, 0, 0, 1, //
        0x00, 0x71, 0x00, 0x04, 0, 0, 0, 3, //
        0x00, 0x01, 0x00, 0x00,
    ];
    for (endian, golden) in [(Endianness::Little, le), (Endianness::Big, be)] {
        assert_eq!(emit(&params, endian), golden);
        assert_eq!(accept(golden, endian, VendorId::UNKNOWN), params);
    }
}

#[test]
fn unknown_pid_is_kept_raw_and_re_emitted_verbatim() {
    let b = [
        0x99, 0x00, 0x04, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x01, 0x00, 0x00, 0x00,
    ];
    let params = accept(&b, Endianness::Little, VendorId::FAST_DDS);
    assert_eq!(
        params,
        [Parameter::Unknown(RawParameter {
            pid: 0x99,
            value: &[0xde, 0xad, 0xbe, 0xef]
        })]
    );
    assert_eq!(emit(&params, Endianness::Little), b);
}

#[test]
fn unknown_must_understand_pid_makes_the_list_not_understood() {
    let b = [0x15, 0x40, 0x04, 0x00, 0, 0, 0, 0, 0x01, 0x00, 0x00, 0x00];
    let out = decode_parameter_list(&view(&b, Endianness::Little), VendorId::CYCLONE_DDS);
    assert_eq!(out, Ok(ListOutcome::NotUnderstood(0x4015)));
    // DOMAIN_TAG carries the bit but is known.
    let b = [
        0x14, 0x40, 0x08, 0x00, 1, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00, 0x00,
    ];
    assert_eq!(
        accept(&b, Endianness::Little, VendorId::UNKNOWN),
        [known(PID_DOMAIN_TAG, Value::String(""))]
    );
}

#[test]
fn vendor_pid_is_decoded_only_for_its_vendor() {
    let mut b = vec![0x02, 0x80, 0x10, 0x00];
    b.extend_from_slice(&guid().to_bytes());
    b.extend_from_slice(&[0x01, 0x00, 0x00, 0x00]);
    assert_eq!(
        accept(&b, Endianness::Little, VendorId::FAST_DDS),
        [known(PID_FASTDDS_PERSISTENCE_GUID, Value::Guid(guid()))]
    );
    let other = accept(&b, Endianness::Little, VendorId::RTI_CONNEXT);
    assert!(matches!(other.as_slice(), [Parameter::Unknown(_)]));
    // Cyclone's vendor + must-understand PID from someone else is not understood.
    let b = [0x06, 0xc0, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00];
    let out = decode_parameter_list(&view(&b, Endianness::Little), VendorId::FAST_DDS);
    assert_eq!(out, Ok(ListOutcome::NotUnderstood(0xc006)));
    assert!(matches!(
        decode_parameter_list(&view(&b, Endianness::Little), VendorId::CYCLONE_DDS),
        Ok(ListOutcome::Accept(_))
    ));
}

#[test]
fn reliability_kind_zero_is_malformed_and_bad_durability_kind_too() {
    let b = [
        0x1a, 0x00, 0x0c, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00, 0x00,
    ];
    assert!(decode_parameter_list(&view(&b, Endianness::Little), VendorId::UNKNOWN).is_err());
    let b = [0x1d, 0x00, 0x04, 0x00, 4, 0, 0, 0, 0x01, 0x00, 0x00, 0x00];
    assert!(decode_parameter_list(&view(&b, Endianness::Little), VendorId::UNKNOWN).is_err());
}

#[test]
fn invalid_content_filter_property_is_ignored_not_fatal() {
    // Empty class name: Fast DDS drops the filter but keeps the DATA(r) (docs/interop-facts.md
    // §1.3).
    let cfp = ContentFilterProperty {
        content_filtered_topic_name: "cft",
        related_topic_name: "Square",
        filter_class_name: "",
        filter_expression: "x > 1",
        expression_parameters: vec![],
    };
    let b = emit(
        &[known(
            PID_CONTENT_FILTER_PROPERTY,
            Value::ContentFilterProperty(cfp),
        )],
        Endianness::Little,
    );
    let params = accept(&b, Endianness::Little, VendorId::FAST_DDS);
    assert!(matches!(
        params.as_slice(),
        [Parameter::Unknown(RawParameter { pid: 0x35, .. })]
    ));
    assert_eq!(emit(&params, Endianness::Little), b);
}

#[test]
fn status_info_is_big_endian_in_a_little_endian_list() {
    let b = [0x71, 0x00, 0x04, 0x00, 0, 0, 0, 1, 0x01, 0x00, 0x00, 0x00];
    assert_eq!(
        accept(&b, Endianness::Little, VendorId::UNKNOWN),
        [known(PID_STATUS_INFO, Value::StatusInfo(1))]
    );
}

fn spdp_like() -> Vec<Parameter<'static>> {
    vec![
        known(PID_PARTICIPANT_GUID, Value::Guid(guid())),
        known(PID_BUILTIN_ENDPOINT_SET, Value::U32(0x0c3f)),
        known(
            PID_PROTOCOL_VERSION,
            Value::ProtocolVersion(ProtocolVersion::V2_5),
        ),
        known(PID_VENDORID, Value::VendorId(VendorId::SIFTDDS)),
        known(
            PID_PARTICIPANT_LEASE_DURATION,
            Value::Duration(Duration {
                seconds: 20,
                fraction: 0,
            }),
        ),
        known(PID_DOMAIN_ID, Value::U32(0)),
        known(
            PID_METATRAFFIC_UNICAST_LOCATOR,
            Value::Locator(Locator::udpv4([127, 0, 0, 1], 7410)),
        ),
        known(
            PID_DEFAULT_UNICAST_LOCATOR,
            Value::Locator(Locator::udpv4([127, 0, 0, 1], 7411)),
        ),
        known(PID_PARTITION, Value::StringSeq(vec!["a", "", "part*"])),
        known(PID_USER_DATA, Value::Octets(&[1, 2, 3])),
        known(PID_EXPECTS_INLINE_QOS, Value::Bool(true)),
        known(PID_HISTORY, Value::History { kind: 0, depth: 5 }),
        known(
            PID_RESOURCE_LIMITS,
            Value::ResourceLimits {
                max_samples: -1,
                max_instances: -1,
                max_samples_per_instance: 7,
            },
        ),
        known(
            PID_LIVELINESS,
            Value::Liveliness {
                kind: 0,
                lease_duration: Duration::INFINITE,
            },
        ),
        known(
            PID_DURABILITY_SERVICE,
            Value::DurabilityService {
                service_cleanup_delay: Duration::ZERO,
                history_kind: 0,
                history_depth: 1,
                max_samples: -1,
                max_instances: -1,
                max_samples_per_instance: -1,
            },
        ),
        known(
            PID_PRESENTATION,
            Value::Presentation {
                access_scope: 1,
                coherent_access: true,
                ordered_access: false,
            },
        ),
        known(
            PID_DATA_REPRESENTATION,
            Value::DataRepresentation(vec![0, 2]),
        ),
        known(
            PID_PROPERTY_LIST,
            Value::PropertyList {
                properties: vec![("PARTICIPANT_TYPE", "SIMPLE")],
                rest: &[],
            },
        ),
        known(PID_KEY_HASH, Value::KeyHash([9; 16])),
        known(
            PID_RELATED_SAMPLE_IDENTITY,
            Value::SampleIdentity {
                writer: guid(),
                sequence_number: SequenceNumber(5),
            },
        ),
        known(
            PID_DIRECTED_WRITE,
            Value::GuidSeq(vec![guid(), Guid::UNKNOWN]),
        ),
        known(
            PID_COHERENT_SET,
            Value::SequenceNumber(SequenceNumber(1 << 33)),
        ),
        known(
            PID_TYPE_INFORMATION,
            Value::Opaque(&[1, 2, 3, 4, 5, 6, 7, 8]),
        ),
        known(
            PID_CONTENT_FILTER_INFO,
            Value::ContentFilterInfo({
                let mut i = ContentFilterInfo::new();
                i.push([7; 16], true);
                i
            }),
        ),
    ]
}

#[test]
fn spdp_like_list_round_trips_in_both_byte_orders_and_as_pl_cdr_payload() {
    let params = spdp_like();
    for endian in [Endianness::Little, Endianness::Big] {
        let bytes = emit(&params, endian);
        let back = accept(&bytes, endian, VendorId::UNKNOWN);
        assert_eq!(back, params);
        assert_eq!(emit(&back, endian), bytes);

        let payload = serialize_pl_cdr_payload(&params, endian).unwrap();
        assert_eq!(
            &payload[..2],
            if endian == Endianness::Little {
                [0, 3]
            } else {
                [0, 2]
            }
        );
        let v = parse_pl_cdr_payload(&payload).unwrap();
        assert_eq!(
            decode_parameter_list(&v, VendorId::UNKNOWN),
            Ok(ListOutcome::Accept(params.clone()))
        );
    }
}

#[test]
fn truncating_each_parameter_value_at_every_offset_is_an_error() {
    for endian in [Endianness::Little, Endianness::Big] {
        for p in spdp_like() {
            if matches!(p.value(), Some(Value::Opaque(_))) {
                continue; // opaque values accept any length by design
            }
            let mut v = Vec::new();
            p.emit(&mut CdrWriter::new(&mut v, endian));
            let value = &v[4..];
            let meaningful = p.value().unwrap().buffer_len();
            for cut in 0..meaningful {
                let raw = RawParameter {
                    pid: p.pid(),
                    value: &value[..cut],
                };
                let out = Parameter::parse(raw, endian, VendorId::UNKNOWN);
                assert!(
                    matches!(
                        out,
                        ParamOutcome::Malformed(..) | ParamOutcome::Skipped(Parameter::Unknown(_))
                    ),
                    "pid {:#x} cut {cut}: {out:?}",
                    p.pid()
                );
            }
        }
        // And the whole list: every cut fails to validate or decode.
        let bytes = emit(&spdp_like(), endian);
        for cut in 0..bytes.len() {
            let r = ParameterListView::new_checked(&mut CdrReader::new(&bytes[..cut], endian));
            if let Ok(v) = r {
                assert!(
                    decode_parameter_list(&v, VendorId::UNKNOWN).is_err(),
                    "cut {cut}"
                );
            }
        }
    }
}

#[test]
fn oversized_value_is_refused_before_writing() {
    let big = vec![0u8; 70_000];
    let params = [Parameter::Known {
        pid: PID_USER_DATA,
        value: Value::Octets(&big),
    }];
    let mut v = Vec::new();
    assert!(emit_parameter_list(&params, &mut CdrWriter::new(&mut v, Endianness::Little)).is_err());
    assert!(v.is_empty());
}

fn any_value() -> impl Strategy<Value = (u16, Value<'static>)> {
    let s = prop::sample::select(vec!["", "a", "Square", "x > %0", "日本"]);
    prop_oneof![
        s.clone().prop_map(|t| (PID_TOPIC_NAME, Value::String(t))),
        prop::collection::vec(s.clone(), 0..4).prop_map(|v| (PID_PARTITION, Value::StringSeq(v))),
        prop::sample::select(vec![&b""[..], b"x", b"abcde"])
            .prop_map(|b| (PID_USER_DATA, Value::Octets(b))),
        any::<u32>().prop_map(|v| (PID_BUILTIN_ENDPOINT_SET, Value::U32(v))),
        (any::<bool>(), 0..i32::MAX, any::<u32>()).prop_map(|(r, seconds, fraction)| (
            PID_RELIABILITY,
            Value::Reliability {
                kind: if r {
                    ReliabilityKind::Reliable
                } else {
                    ReliabilityKind::BestEffort
                },
                max_blocking_time: Duration { seconds, fraction },
            }
        )),
        any::<[u8; 16]>().prop_map(|k| (PID_KEY_HASH, Value::KeyHash(k))),
        any::<u32>().prop_map(|s| (PID_STATUS_INFO, Value::StatusInfo(s))),
        (any::<i32>(), any::<u32>(), any::<[u8; 16]>()).prop_map(|(k, p, a)| (
            PID_UNICAST_LOCATOR,
            Value::Locator(Locator {
                kind: k,
                port: p,
                address: a
            })
        )),
        any::<bool>().prop_map(|b| (PID_EXPECTS_INLINE_QOS, Value::Bool(b))),
        prop::collection::vec(any::<i16>(), 0..5)
            .prop_map(|v| (PID_DATA_REPRESENTATION, Value::DataRepresentation(v))),
        prop::collection::vec(any::<bool>(), 1..70).prop_map(|bits| {
            let mut i = ContentFilterInfo::new();
            for (n, b) in bits.into_iter().enumerate() {
                i.push([n as u8; 16], b);
            }
            (PID_CONTENT_FILTER_INFO, Value::ContentFilterInfo(i))
        }),
        (s.clone(), prop::collection::vec(s, 0..3)).prop_map(|(e, ps)| (
            PID_CONTENT_FILTER_PROPERTY,
            Value::ContentFilterProperty(ContentFilterProperty {
                content_filtered_topic_name: "cft",
                related_topic_name: "Square",
                filter_class_name: "DDSSQL",
                filter_expression: if e.is_empty() { "x" } else { e },
                expression_parameters: ps,
            })
        )),
    ]
}

proptest! {
    #[test]
    fn plist_round_trips(
        values in prop::collection::vec(any_value(), 0..12),
        little in any::<bool>(),
    ) {
        let endian = if little { Endianness::Little } else { Endianness::Big };
        let params: Vec<_> =
            values.into_iter().map(|(pid, value)| Parameter::Known { pid, value }).collect();
        let bytes = emit(&params, endian);
        let back = accept(&bytes, endian, VendorId::UNKNOWN);
        prop_assert_eq!(&back, &params);
        prop_assert_eq!(emit(&back, endian), bytes);
    }

    #[test]
    fn arbitrary_lists_never_panic(
        b in prop::collection::vec(any::<u8>(), 0..96),
        little in any::<bool>(),
    ) {
        let endian = if little { Endianness::Little } else { Endianness::Big };
        if let Ok(v) = ParameterListView::new_checked(&mut CdrReader::new(&b, endian)) {
            for vendor in [VendorId::CYCLONE_DDS, VendorId::FAST_DDS] {
                if let Ok(ListOutcome::Accept(ps)) = decode_parameter_list(&v, vendor) {
                    let _ = emit(&ps, endian);
                }
            }
        }
    }
}
