//! Golden bytes for every submessage kind, in both byte orders (RTPS 2.5 §9.4.5).
//! Must not: open sockets or read files.

// Test arithmetic works on small, known inputs; docs/conventions.md §4 targets parse paths.
#![allow(clippy::arithmetic_side_effects)]

use super::*;

// ---------- golden bytes, one test per kind ----------

#[test]
fn heartbeat_golden_literal_bytes_both_endiannesses() {
    let be = [
        0x07, 0x02, 0x00, 0x1c, 0, 0, 0x12, 0x07, 0, 0, 0x12, 0x02, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
        0, 0, 0, 0, 0, 9, 0, 0, 0, 3,
    ];
    let le = [
        0x07, 0x03, 0x1c, 0x00, 0, 0, 0x12, 0x07, 0, 0, 0x12, 0x02, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 9, 0, 0, 0, 3, 0, 0, 0,
    ];
    for (e, bytes) in [(Big, &be[..]), (Little, &le[..])] {
        let hb = Heartbeat {
            endian: e,
            final_flag: true,
            liveliness: false,
            reader_id: RID,
            writer_id: WID,
            first_sn: sn(1),
            last_sn: sn(9),
            count: 3,
            group_info: None,
        };
        check_golden(bytes, &Submessage::Heartbeat(hb), true);
    }
}

#[test]
fn heartbeat_with_liveliness_flag_round_trips() {
    for e in BOTH {
        let bytes = sub(
            HEARTBEAT,
            0x04,
            e,
            &[
                F::B(&RID.0),
                F::B(&WID.0),
                F::Sn(1, 2),
                F::Sn(1, 5),
                F::I32(-7),
            ],
        );
        let hb = Heartbeat {
            endian: e,
            final_flag: false,
            liveliness: true,
            reader_id: RID,
            writer_id: WID,
            first_sn: sn((1 << 32) | 2),
            last_sn: sn((1 << 32) | 5),
            count: -7,
            group_info: None,
        };
        check_golden(&bytes, &Submessage::Heartbeat(hb), true);
    }
}

#[test]
fn heartbeat_frag_golden_both_endiannesses() {
    for e in BOTH {
        let bytes = sub(
            HEARTBEAT_FRAG,
            0,
            e,
            &[
                F::B(&RID.0),
                F::B(&WID.0),
                F::Sn(0, 4),
                F::U32(12),
                F::I32(2),
            ],
        );
        let hf = HeartbeatFrag {
            endian: e,
            reader_id: RID,
            writer_id: WID,
            writer_sn: sn(4),
            last_fragment_num: FragmentNumber(12),
            count: 2,
        };
        check_golden(&bytes, &Submessage::HeartbeatFrag(hf), true);
    }
}

#[test]
fn acknack_golden_both_endiannesses() {
    for e in BOTH {
        // base 3, numBits 40 -> 2 words; missing 3 (bit 0) and 35 (offset 32).
        let bytes = sub(
            ACKNACK,
            0x02,
            e,
            &[
                F::B(&RID.0),
                F::B(&WID.0),
                F::Sn(0, 3),
                F::U32(40),
                F::U32(0x8000_0000),
                F::U32(0x8000_0000),
                F::I32(11),
            ],
        );
        let mut set = SequenceNumberSet::new(sn(3), 40).unwrap();
        assert!(set.insert(sn(3)) && set.insert(sn(35)));
        let an = AckNack {
            endian: e,
            final_flag: true,
            reader_id: RID,
            writer_id: WID,
            reader_sn_state: set,
            count: 11,
        };
        check_golden(&bytes, &Submessage::AckNack(an), true);
    }
}

#[test]
fn nack_frag_golden_both_endiannesses() {
    for e in BOTH {
        let bytes = sub(
            NACK_FRAG,
            0,
            e,
            &[
                F::B(&RID.0),
                F::B(&WID.0),
                F::Sn(0, 8),
                F::U32(2),
                F::U32(3),
                F::U32(0xa000_0000),
                F::I32(1),
            ],
        );
        let set = FragmentNumberSet::from_members(
            FragmentNumber(2),
            [FragmentNumber(2), FragmentNumber(4)],
        )
        .unwrap();
        let nf = NackFrag {
            endian: e,
            reader_id: RID,
            writer_id: WID,
            writer_sn: sn(8),
            fragment_number_state: set,
            count: 1,
        };
        check_golden(&bytes, &Submessage::NackFrag(nf), true);
    }
}

#[test]
fn gap_golden_both_endiannesses_with_and_without_group_info() {
    for e in BOTH {
        let bytes = sub(
            GAP,
            0,
            e,
            &[
                F::B(&RID.0),
                F::B(&WID.0),
                F::Sn(0, 5),
                F::Sn(0, 8),
                F::U32(1),
                F::U32(0x8000_0000),
            ],
        );
        let gap = Gap {
            endian: e,
            reader_id: RID,
            writer_id: WID,
            gap_start: sn(5),
            gap_list: SequenceNumberSet::from_members(sn(8), [sn(8)]).unwrap(),
            group: None,
        };
        assert!(gap.contains(sn(5)) && gap.contains(sn(7)) && gap.contains(sn(8)));
        assert!(!gap.contains(sn(4)) && !gap.contains(sn(9)));
        check_golden(&bytes, &Submessage::Gap(gap), true);

        let bytes = sub(
            GAP,
            GAP_FLAG_G_FOR_TESTS,
            e,
            &[
                F::B(&RID.0),
                F::B(&WID.0),
                F::Sn(0, 5),
                F::Sn(0, 6),
                F::U32(0),
                F::Sn(0, 100),
                F::Sn(0, 101),
            ],
        );
        let gap = Gap {
            endian: e,
            reader_id: RID,
            writer_id: WID,
            gap_start: sn(5),
            gap_list: SequenceNumberSet::new(sn(6), 0).unwrap(),
            group: Some(GapGroupInfo {
                gap_start_gsn: sn(100),
                gap_end_gsn: sn(101),
            }),
        };
        check_golden(&bytes, &Submessage::Gap(gap), true);
    }
}

const GAP_FLAG_G_FOR_TESTS: u8 = 0x02;

#[test]
fn info_ts_golden_both_endiannesses_and_invalidate_has_no_body() {
    for e in BOTH {
        let bytes = sub(INFO_TS, 0, e, &[F::I32(1_700_000_000), F::U32(0x8000_0000)]);
        let ts = InfoTs {
            endian: e,
            timestamp: Some(Timestamp {
                seconds: 1_700_000_000,
                fraction: 0x8000_0000,
            }),
        };
        check_golden(&bytes, &Submessage::InfoTs(ts), true);

        let bytes = sub(INFO_TS, 0x02, e, &[]);
        assert_eq!(bytes.len(), 4);
        check_golden(
            &bytes,
            &Submessage::InfoTs(InfoTs {
                endian: e,
                timestamp: None,
            }),
            false,
        );
    }
}

#[test]
fn info_src_golden_both_endiannesses() {
    for e in BOTH {
        let bytes = sub(
            INFO_SRC,
            0,
            e,
            &[F::U32(0), F::B(&[2, 2, 0x01, 0x0f]), F::B(&PREFIX.0)],
        );
        let is = InfoSrc {
            endian: e,
            unused: 0,
            version: ProtocolVersion { major: 2, minor: 2 },
            vendor_id: VendorId::FAST_DDS,
            guid_prefix: PREFIX,
        };
        check_golden(&bytes, &Submessage::InfoSrc(is), true);
    }
}

#[test]
fn info_dst_golden_both_endiannesses() {
    for e in BOTH {
        let bytes = sub(INFO_DST, 0, e, &[F::B(&PREFIX.0)]);
        check_golden(
            &bytes,
            &Submessage::InfoDst(InfoDst {
                endian: e,
                guid_prefix: PREFIX,
            }),
            true,
        );
    }
}

#[test]
fn info_reply_golden_both_endiannesses_with_multicast() {
    let addr = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 1];
    let mc = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 239, 255, 0, 1];
    for e in BOTH {
        let bytes = sub(
            INFO_REPLY,
            0x02,
            e,
            &[
                F::U32(1),
                F::I32(1),
                F::U32(7411),
                F::B(&addr),
                F::U32(1),
                F::I32(1),
                F::U32(7400),
                F::B(&mc),
            ],
        );
        let ir = InfoReply {
            endian: e,
            unicast: vec![Locator::udpv4([10, 0, 0, 1], 7411)],
            multicast: Some(vec![Locator::udpv4([239, 255, 0, 1], 7400)]),
        };
        check_golden(&bytes, &Submessage::InfoReply(ir), true);

        let bytes = sub(INFO_REPLY, 0, e, &[F::U32(0)]);
        let ir = InfoReply {
            endian: e,
            unicast: vec![],
            multicast: None,
        };
        check_golden(&bytes, &Submessage::InfoReply(ir), true);
    }
}

#[test]
fn info_reply_ip4_golden_both_endiannesses() {
    for e in BOTH {
        let bytes = sub(
            INFO_REPLY_IP4,
            0x02,
            e,
            &[
                F::U32(0x0a00_0001),
                F::U32(7411),
                F::U32(0xefff_0001),
                F::U32(7400),
            ],
        );
        let ir = InfoReplyIp4 {
            endian: e,
            unicast: Ip4Locator {
                address: 0x0a00_0001,
                port: 7411,
            },
            multicast: Some(Ip4Locator {
                address: 0xefff_0001,
                port: 7400,
            }),
        };
        assert_eq!(ir.unicast.to_locator(), Locator::udpv4([10, 0, 0, 1], 7411));
        check_golden(&bytes, &Submessage::InfoReplyIp4(ir), true);
    }
}

#[test]
fn pad_golden_both_endiannesses() {
    for e in BOTH {
        let bytes = sub(PAD, 0, e, &[F::U32(0), F::U32(0)]);
        check_golden(
            &bytes,
            &Submessage::Pad(Pad {
                endian: e,
                body_len: 8,
            }),
            false,
        );
    }
}

/// Inline QoS: PID_KEY_HASH (0x0070, 16 octets) + sentinel, in byte order `e`.
fn key_hash_qos(e: Endianness) -> Vec<u8> {
    body(
        e,
        &[
            F::U16(0x0070),
            F::U16(16),
            F::B(&[0xab; 16]),
            F::U16(0x0001),
            F::U16(0),
        ],
    )
}

#[test]
fn data_golden_literal_little_endian_bytes() {
    let bytes = [
        0x15, 0x05, 0x1c, 0x00, // DATA, E|D, 28 octets
        0x00, 0x00, 0x10, 0x00, // extraFlags, octetsToInlineQos 16
        0x00, 0x00, 0x00, 0x00, // readerId UNKNOWN
        0x00, 0x00, 0x12, 0x02, // writerId
        0x00, 0x00, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00, // writerSN 42
        0x00, 0x01, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef, // CDR_LE encapsulation + 4 bytes
    ];
    let d = Data {
        endian: Little,
        extra_flags: 0,
        reader_id: EntityId::UNKNOWN,
        writer_id: WID,
        writer_sn: sn(42),
        inline_qos: None,
        payload: DataPayload::Data(&bytes[24..]),
    };
    check_golden(&bytes, &Submessage::Data(d), false);
}

#[test]
fn data_with_inline_qos_golden_both_endiannesses() {
    let payload = [0, 1, 0, 0, 1, 2, 3, 4];
    for e in BOTH {
        let qos = key_hash_qos(e);
        for (flags, kind) in [(0x02 | 0x04, 'D'), (0x02 | 0x08, 'K'), (0x02, 'N')] {
            let pl: &[u8] = if kind == 'N' { &[] } else { &payload };
            let bytes = sub(
                DATA,
                flags,
                e,
                &[
                    F::U16(0),
                    F::U16(16),
                    F::B(&RID.0),
                    F::B(&WID.0),
                    F::Sn(0, 7),
                    F::B(&qos),
                    F::B(pl),
                ],
            );
            let parsed = accept_one(&bytes);
            let Submessage::Data(d) = parsed else {
                panic!("not DATA")
            };
            let q = d.inline_qos.expect("inline qos");
            let params: Vec<_> = q.iter().collect();
            assert_eq!(params.len(), 1);
            assert_eq!(params[0].pid, 0x0070);
            let want = match kind {
                'D' => DataPayload::Data(&payload),
                'K' => DataPayload::Key(&payload),
                _ => DataPayload::None,
            };
            assert_eq!(d.payload.bytes(), want.bytes());
            assert_eq!(
                d.payload,
                match kind {
                    'D' => DataPayload::Data(d.payload.bytes().unwrap()),
                    'K' => DataPayload::Key(d.payload.bytes().unwrap()),
                    _ => DataPayload::None,
                }
            );
            check_golden(&bytes, &Submessage::Data(d), false);
        }
    }
}

#[test]
fn data_frag_golden_both_endiannesses() {
    let frag = [7u8; 10];
    for e in BOTH {
        let qos = key_hash_qos(e);
        let bytes = sub(
            DATA_FRAG,
            0x02 | 0x04,
            e,
            &[
                F::U16(0),
                F::U16(28),
                F::B(&RID.0),
                F::B(&WID.0),
                F::Sn(0, 9),
                F::U32(3),
                F::U16(1),
                F::U16(10),
                F::U32(25),
                F::B(&qos),
                F::B(&frag),
            ],
        );
        let Submessage::DataFrag(d) = accept_one(&bytes) else {
            panic!("not DATA_FRAG")
        };
        assert!(d.key);
        assert_eq!(d.fragment_starting_num, FragmentNumber(3));
        assert_eq!(d.fragments_in_submessage, 1);
        assert_eq!(d.fragment_size, 10);
        assert_eq!(d.sample_size, 25);
        assert_eq!(d.fragments, &frag);
        assert_eq!(d.inline_qos.map(|q| q.iter().count()), Some(1));
        check_golden(&bytes, &Submessage::DataFrag(d), false);
    }
}

#[test]
fn entity_submessages_name_their_reader_and_writer_and_others_none() {
    let le = [
        0x07, 0x03, 0x1c, 0x00, 0, 0, 0x12, 0x07, 0, 0, 0x12, 0x02, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 9, 0, 0, 0, 3, 0, 0, 0,
    ];
    let hb = accept_one(&le);
    assert_eq!((hb.reader_id(), hb.writer_id()), (Some(RID), Some(WID)));
    let acknack = sub(
        ACKNACK,
        0,
        Little,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 1),
            F::U32(0),
            F::I32(1),
        ],
    );
    let an = accept_one(&acknack);
    assert_eq!((an.reader_id(), an.writer_id()), (Some(RID), Some(WID)));
    let pad = sub(PAD, 0, Little, &[F::U32(0)]);
    let pad = accept_one(&pad);
    assert_eq!((pad.reader_id(), pad.writer_id()), (None, None));
}
