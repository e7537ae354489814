//! Proptest: every submessage kind emits and re-parses to itself, in both byte orders.
//! Must not: open sockets or read files.

// Test arithmetic works on small, known inputs; docs/conventions.md §4 targets parse paths.
#![allow(clippy::arithmetic_side_effects)]

use super::*;

// ---------- proptest round trip ----------

fn endian() -> impl Strategy<Value = Endianness> {
    prop_oneof![Just(Big), Just(Little)]
}

fn entity() -> impl Strategy<Value = EntityId> {
    any::<[u8; 4]>().prop_map(EntityId)
}

fn pos_sn() -> impl Strategy<Value = SequenceNumber> {
    (1i64..=i64::MAX / 2).prop_map(SequenceNumber)
}

fn sn_set(min_base: i64) -> impl Strategy<Value = SequenceNumberSet> {
    (
        min_base..=i64::MAX / 2,
        0u32..=256,
        proptest::collection::vec(any::<u32>(), 0..20),
    )
        .prop_map(|(base, nb, offs)| {
            let mut s = SequenceNumberSet::new(SequenceNumber(base), nb).unwrap();
            for o in offs {
                if nb > 0 {
                    s.insert(SequenceNumber(base + i64::from(o % nb)));
                }
            }
            s
        })
}

fn fn_set() -> impl Strategy<Value = FragmentNumberSet> {
    (
        1u32..=u32::MAX / 2,
        0u32..=256,
        proptest::collection::vec(any::<u32>(), 0..20),
    )
        .prop_map(|(base, nb, offs)| {
            let mut s = FragmentNumberSet::new(FragmentNumber(base), nb).unwrap();
            for o in offs {
                if nb > 0 {
                    s.insert(FragmentNumber(base + o % nb));
                }
            }
            s
        })
}

fn locators() -> impl Strategy<Value = Vec<Locator>> {
    proptest::collection::vec(
        (any::<i32>(), any::<u32>(), any::<[u8; 16]>()).prop_map(|(kind, port, address)| Locator {
            kind,
            port,
            address,
        }),
        0..5,
    )
}

fn ip4() -> impl Strategy<Value = Ip4Locator> {
    (any::<u32>(), any::<u32>()).prop_map(|(address, port)| Ip4Locator { address, port })
}

/// Kinds that borrow nothing.
fn owned_submessage() -> impl Strategy<Value = Submessage<'static>> {
    prop_oneof![
        (endian(), any::<u16>())
            .prop_map(|(endian, body_len)| Submessage::Pad(Pad { endian, body_len })),
        (
            endian(),
            any::<bool>(),
            entity(),
            entity(),
            sn_set(1),
            any::<i32>()
        )
            .prop_map(
                |(endian, final_flag, reader_id, writer_id, reader_sn_state, count)| {
                    Submessage::AckNack(AckNack {
                        endian,
                        final_flag,
                        reader_id,
                        writer_id,
                        reader_sn_state,
                        count,
                    })
                }
            ),
        (
            endian(),
            any::<bool>(),
            any::<bool>(),
            entity(),
            entity(),
            pos_sn(),
            0i64..1000,
            any::<i32>()
        )
            .prop_map(
                |(endian, final_flag, liveliness, reader_id, writer_id, first_sn, len, count)| {
                    Submessage::Heartbeat(Heartbeat {
                        endian,
                        final_flag,
                        liveliness,
                        reader_id,
                        writer_id,
                        first_sn,
                        last_sn: SequenceNumber(first_sn.0 - 1 + len),
                        count,
                        group_info: None,
                    })
                }
            ),
        (
            endian(),
            entity(),
            entity(),
            pos_sn(),
            sn_set(1),
            proptest::option::of((pos_sn(), pos_sn()))
        )
            .prop_map(|(endian, reader_id, writer_id, gap_start, gap_list, g)| {
                Submessage::Gap(Gap {
                    endian,
                    reader_id,
                    writer_id,
                    gap_start,
                    gap_list,
                    group: g.map(|(gap_start_gsn, gap_end_gsn)| GapGroupInfo {
                        gap_start_gsn,
                        gap_end_gsn,
                    }),
                })
            }),
        (endian(), proptest::option::of((any::<i32>(), any::<u32>()))).prop_map(|(endian, t)| {
            Submessage::InfoTs(InfoTs {
                endian,
                timestamp: t.map(|(seconds, fraction)| Timestamp { seconds, fraction }),
            })
        }),
        (
            endian(),
            any::<u32>(),
            any::<[u8; 2]>(),
            any::<[u8; 2]>(),
            any::<[u8; 12]>()
        )
            .prop_map(
                |(endian, unused, [major, minor], v, p)| Submessage::InfoSrc(InfoSrc {
                    endian,
                    unused,
                    version: ProtocolVersion { major, minor },
                    vendor_id: VendorId(v),
                    guid_prefix: GuidPrefix(p),
                })
            ),
        (endian(), ip4(), proptest::option::of(ip4())).prop_map(|(endian, unicast, multicast)| {
            Submessage::InfoReplyIp4(InfoReplyIp4 {
                endian,
                unicast,
                multicast,
            })
        }),
        (endian(), any::<[u8; 12]>()).prop_map(|(endian, p)| Submessage::InfoDst(InfoDst {
            endian,
            guid_prefix: GuidPrefix(p)
        })),
        (endian(), locators(), proptest::option::of(locators())).prop_map(
            |(endian, unicast, multicast)| {
                Submessage::InfoReply(InfoReply {
                    endian,
                    unicast,
                    multicast,
                })
            }
        ),
        (
            endian(),
            entity(),
            entity(),
            pos_sn(),
            fn_set(),
            any::<i32>()
        )
            .prop_map(
                |(endian, reader_id, writer_id, writer_sn, fragment_number_state, count)| {
                    Submessage::NackFrag(NackFrag {
                        endian,
                        reader_id,
                        writer_id,
                        writer_sn,
                        fragment_number_state,
                        count,
                    })
                }
            ),
        (endian(), entity(), entity(), pos_sn(), 1u32.., any::<i32>()).prop_map(
            |(endian, reader_id, writer_id, writer_sn, n, count)| {
                Submessage::HeartbeatFrag(HeartbeatFrag {
                    endian,
                    reader_id,
                    writer_id,
                    writer_sn,
                    last_fragment_num: FragmentNumber(n),
                    count,
                })
            }
        ),
    ]
}

/// Parameters (pid without must-understand bit, not PAD/SENTINEL, value length × 4).
fn params() -> impl Strategy<Value = Option<Vec<(u16, Vec<u8>)>>> {
    proptest::option::of(proptest::collection::vec(
        (
            2u16..0x4000,
            proptest::collection::vec(any::<u8>(), 0..4).prop_map(|w| {
                let n = w.len() * 4;
                w.into_iter().cycle().take(n).collect::<Vec<u8>>()
            }),
        ),
        0..4,
    ))
}

fn qos_bytes(e: Endianness, params: &[(u16, Vec<u8>)]) -> Vec<u8> {
    let mut v = Vec::new();
    for (pid, value) in params {
        v.extend(body(
            e,
            &[
                F::U16(*pid),
                F::U16(u16::try_from(value.len()).unwrap()),
                F::B(value),
            ],
        ));
    }
    v.extend(body(e, &[F::U16(1), F::U16(0)]));
    v
}

fn round_trip(s: &Submessage<'_>) {
    let mut v = Vec::new();
    s.emit(&mut v);
    assert_eq!(v.len(), s.buffer_len());
    assert_eq!(&accept_one(&v), s);
}

proptest! {
    #[test]
    fn owned_submessages_round_trip(s in owned_submessage()) {
        round_trip(&s);
    }

    #[test]
    fn data_round_trips(
        e in endian(), extra_flags in any::<u16>(), r in entity(), w in entity(),
        writer_sn in pos_sn(),
        qos in params(), kind in 0u8..3, payload in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let qbuf = qos.as_ref().map(|q| qos_bytes(e, q));
        let inline_qos = qbuf
            .as_ref()
            .map(|b| ParameterListView::new_checked(&mut CdrReader::new(b, e)).unwrap());
        let payload = match kind {
            0 => DataPayload::None,
            1 => DataPayload::Data(&payload),
            _ => DataPayload::Key(&payload),
        };
        let data = Data {
            endian: e, extra_flags, reader_id: r, writer_id: w, writer_sn, inline_qos, payload,
        };
        round_trip(&Submessage::Data(data));
        // The head for a gather send, then the payload bytes: exactly what emit writes.
        let (mut whole, mut head) = (Vec::new(), Vec::new());
        data.emit(&mut whole);
        data.emit_head(&mut head);
        head.extend_from_slice(payload.bytes().unwrap_or_default());
        prop_assert_eq!(head, whole);
    }

    #[test]
    fn data_frag_round_trips(
        e in endian(), r in entity(), w in entity(), writer_sn in pos_sn(), qos in params(),
        start in 1u32..10_000, count in 1u16..20, size in 1u16..=u16::MAX, extra in 1u32..10_000,
        key in any::<bool>(), fragments in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let last_offset = (u64::from(start) + u64::from(count) - 2) * u64::from(size);
        let sample_size = u32::try_from(last_offset + u64::from(extra)).unwrap_or(u32::MAX);
        prop_assume!(u64::from(sample_size) > last_offset);
        let qbuf = qos.as_ref().map(|q| qos_bytes(e, q));
        let inline_qos = qbuf
            .as_ref()
            .map(|b| ParameterListView::new_checked(&mut CdrReader::new(b, e)).unwrap());
        let frag = DataFrag {
            endian: e, extra_flags: 0, reader_id: r, writer_id: w, writer_sn,
            fragment_starting_num: FragmentNumber(start), fragments_in_submessage: count,
            fragment_size: size, sample_size, inline_qos, key, fragments: &fragments,
        };
        round_trip(&Submessage::DataFrag(frag));
        // The head for a gather send, then the fragment bytes: exactly what emit writes.
        let (mut whole, mut head) = (Vec::new(), Vec::new());
        frag.emit(&mut whole);
        frag.emit_head(&mut head);
        head.extend_from_slice(&fragments);
        prop_assert_eq!(head, whole);
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_iterator(
        bytes in proptest::collection::vec(any::<u8>(), 0..256),
    ) {
        for o in SubmessageIter::new(&bytes) {
            if let SubmessageOutcome::Accept(s) = o {
                // Whatever we accept we can emit, and it parses back to the same repr.
                round_trip(&s);
            }
        }
    }
}
