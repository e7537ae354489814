//! Golden bytes (both byte orders) for every submessage kind, validation rules, truncation at
//! every offset, the iterator's three outcomes, and a proptest round trip.
#![allow(clippy::arithmetic_side_effects)]

use super::*;
use crate::cdr::Endianness::{self, Big, Little};
use crate::time::Timestamp;
use crate::wire::plist::ParameterListView;
use crate::wire::{
    EntityId, FragmentNumber, FragmentNumberSet, GuidPrefix, Header, Locator, Message,
    ProtocolVersion, SequenceNumber, SequenceNumberSet, VendorId, emit_message,
};
use proptest::prelude::*;

// ---------- hand assembly from the spec layout (independent of cdr::Writer) ----------

#[derive(Clone, Copy)]
enum F<'s> {
    B(&'s [u8]),
    U16(u16),
    U32(u32),
    I32(i32),
    /// SequenceNumber_t {int32 high, uint32 low}.
    Sn(i32, u32),
}

fn body(e: Endianness, fields: &[F<'_>]) -> Vec<u8> {
    let mut v = Vec::new();
    for f in fields {
        match (*f, e) {
            (F::B(b), _) => v.extend_from_slice(b),
            (F::U16(x), Big) => v.extend_from_slice(&x.to_be_bytes()),
            (F::U16(x), Little) => v.extend_from_slice(&x.to_le_bytes()),
            (F::U32(x), Big) => v.extend_from_slice(&x.to_be_bytes()),
            (F::U32(x), Little) => v.extend_from_slice(&x.to_le_bytes()),
            (F::I32(x), Big) => v.extend_from_slice(&x.to_be_bytes()),
            (F::I32(x), Little) => v.extend_from_slice(&x.to_le_bytes()),
            (F::Sn(h, l), Big) => {
                v.extend_from_slice(&h.to_be_bytes());
                v.extend_from_slice(&l.to_be_bytes());
            }
            (F::Sn(h, l), Little) => {
                v.extend_from_slice(&h.to_le_bytes());
                v.extend_from_slice(&l.to_le_bytes());
            }
        }
    }
    v
}

/// A complete submessage: {id, flags | E, octetsToNextHeader} + body.
fn sub(id: u8, flags: u8, e: Endianness, fields: &[F<'_>]) -> Vec<u8> {
    let b = body(e, fields);
    let len = u16::try_from(b.len()).unwrap();
    let mut v = vec![id, flags | e.e_flag()];
    v.extend_from_slice(&match e {
        Big => len.to_be_bytes(),
        Little => len.to_le_bytes(),
    });
    v.extend_from_slice(&b);
    v
}

fn outcomes(bytes: &[u8]) -> Vec<SubmessageOutcome<'_>> {
    SubmessageIter::new(bytes).collect()
}

fn accept_one(bytes: &[u8]) -> Submessage<'_> {
    match outcomes(bytes).as_slice() {
        [SubmessageOutcome::Accept(s)] => s.clone(),
        other => panic!("expected one Accept, got {other:?}"),
    }
}

fn malformed_one(bytes: &[u8]) -> WireError {
    match outcomes(bytes).as_slice() {
        [SubmessageOutcome::Malformed(e)] => *e,
        other => panic!("expected one Malformed, got {other:?}"),
    }
}

/// Parses `bytes`, compares with `expected`, re-emits, and truncates at every offset.
/// `fixed_layout`: the body has no open-ended tail, so cutting the body alone must fail too.
fn check_golden(bytes: &[u8], expected: &Submessage<'_>, fixed_layout: bool) {
    assert_eq!(&accept_one(bytes), expected);
    let mut v = Vec::new();
    expected.emit(&mut v);
    assert_eq!(v, bytes, "emit reproduces the golden bytes");
    assert_eq!(expected.buffer_len(), bytes.len());
    for cut in 1..bytes.len() {
        malformed_one(&bytes[..cut]);
    }
    if fixed_layout {
        let hdr = SubmessageHeader::parse(&mut Reader::new(bytes, Big)).unwrap();
        let b = &bytes[SubmessageHeader::LEN..];
        for cut in 0..b.len() {
            assert!(
                Submessage::parse(hdr, &b[..cut]).is_err(),
                "body cut at {cut}"
            );
        }
    }
}

const RID: EntityId = EntityId([0, 0, 0x12, 0x07]);
const WID: EntityId = EntityId([0, 0, 0x12, 0x02]);
const PREFIX: GuidPrefix = GuidPrefix([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
const BOTH: [Endianness; 2] = [Big, Little];

fn sn(n: i64) -> SequenceNumber {
    SequenceNumber(n)
}

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

// ---------- validation rules ----------

fn heartbeat_bytes(first: (i32, u32), last: (i32, u32)) -> Vec<u8> {
    sub(
        HEARTBEAT,
        0,
        Big,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(first.0, first.1),
            F::Sn(last.0, last.1),
            F::I32(1),
        ],
    )
}

#[test]
fn heartbeat_last_below_first_minus_one_is_malformed() {
    assert_eq!(
        malformed_one(&heartbeat_bytes((0, 5), (0, 3))),
        WireError::Invalid("HEARTBEAT.lastSN")
    );
}

#[test]
fn heartbeat_empty_history_last_equals_first_minus_one_is_accepted() {
    accept_one(&heartbeat_bytes((0, 1), (0, 0)));
}

#[test]
fn heartbeat_first_sn_zero_or_negative_is_malformed() {
    malformed_one(&heartbeat_bytes((0, 0), (0, 0)));
    malformed_one(&heartbeat_bytes((-1, 0), (0, 1)));
}

#[test]
fn heartbeat_frag_writer_sn_zero_or_last_fragment_zero_is_malformed() {
    malformed_one(&sub(
        HEARTBEAT_FRAG,
        0,
        Big,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 0),
            F::U32(1),
            F::I32(1),
        ],
    ));
    malformed_one(&sub(
        HEARTBEAT_FRAG,
        0,
        Big,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 1),
            F::U32(0),
            F::I32(1),
        ],
    ));
}

#[test]
fn acknack_preemptive_base_zero_num_bits_zero_is_accepted_as_vendor_quirk() {
    let bytes = sub(
        ACKNACK,
        0,
        Little,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 0),
            F::U32(0),
            F::I32(1),
        ],
    );
    let Submessage::AckNack(a) = accept_one(&bytes) else {
        panic!("not ACKNACK")
    };
    assert!(a.is_preemptive());
}

#[test]
fn acknack_base_zero_with_bits_is_malformed() {
    let bytes = sub(
        ACKNACK,
        0,
        Big,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 0),
            F::U32(1),
            F::U32(0),
            F::I32(1),
        ],
    );
    malformed_one(&bytes);
}

#[test]
fn acknack_with_more_than_256_bits_is_malformed() {
    let mut fields = vec![F::B(&RID.0), F::B(&WID.0), F::Sn(0, 1), F::U32(257)];
    fields.extend([F::U32(0); 9]);
    fields.push(F::I32(1));
    malformed_one(&sub(ACKNACK, 0, Big, &fields));
}

#[test]
fn nack_frag_base_zero_is_malformed() {
    let bytes = sub(
        NACK_FRAG,
        0,
        Big,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 1),
            F::U32(0),
            F::U32(0),
            F::I32(1),
        ],
    );
    malformed_one(&bytes);
}

#[test]
fn gap_start_zero_is_malformed() {
    let bytes = sub(
        GAP,
        0,
        Big,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 0),
            F::Sn(0, 1),
            F::U32(0),
        ],
    );
    malformed_one(&bytes);
}

fn data_bytes(flags: u8, to_qos: u16, sn: (i32, u32), extra: &[u8]) -> Vec<u8> {
    sub(
        DATA,
        flags,
        Big,
        &[
            F::U16(0),
            F::U16(to_qos),
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(sn.0, sn.1),
            F::B(extra),
            F::B(&[0, 0, 0, 0]),
        ],
    )
}

#[test]
fn data_with_d_and_k_is_malformed() {
    assert_eq!(
        malformed_one(&data_bytes(0x0c, 16, (0, 1), &[])),
        WireError::Invalid("DATA flags D and K")
    );
}

#[test]
fn data_writer_sn_zero_or_negative_is_malformed() {
    malformed_one(&data_bytes(0x04, 16, (0, 0), &[]));
    malformed_one(&data_bytes(0x04, 16, (-1, 5), &[]));
}

#[test]
fn data_octets_to_inline_qos_above_16_skips_unknown_octets() {
    let bytes = data_bytes(0x04, 20, (0, 1), &[9, 9, 9, 9]);
    let Submessage::Data(d) = accept_one(&bytes) else {
        panic!("not DATA")
    };
    assert_eq!(d.payload, DataPayload::Data(&[0, 0, 0, 0]));
}

#[test]
fn data_octets_to_inline_qos_below_16_is_malformed() {
    malformed_one(&data_bytes(0x04, 12, (0, 1), &[]));
}

fn frag_bytes(start: u32, count: u16, size: u16, sample: u32) -> Vec<u8> {
    sub(
        DATA_FRAG,
        0,
        Big,
        &[
            F::U16(0),
            F::U16(28),
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 1),
            F::U32(start),
            F::U16(count),
            F::U16(size),
            F::U32(sample),
            F::B(&[1, 2, 3, 4]),
        ],
    )
}

#[test]
fn data_frag_fragment_size_zero_is_malformed() {
    malformed_one(&frag_bytes(1, 1, 0, 100));
}

#[test]
fn data_frag_starting_num_zero_is_malformed() {
    malformed_one(&frag_bytes(0, 1, 4, 100));
}

#[test]
fn data_frag_fragment_beyond_sample_size_is_malformed() {
    // Fragment 3 of size 4 starts at offset 8; a sample of 8 octets has no fragment 3.
    malformed_one(&frag_bytes(3, 1, 4, 8));
    // First fragment inside, but the second of this submessage starts past the sample.
    malformed_one(&frag_bytes(2, 2, 4, 8));
    accept_one(&frag_bytes(2, 1, 4, 8));
    accept_one(&frag_bytes(2, 1, 4, 5));
}

#[test]
fn data_frag_writer_sn_zero_is_malformed() {
    let bytes = sub(
        DATA_FRAG,
        0,
        Big,
        &[
            F::U16(0),
            F::U16(28),
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 0),
            F::U32(1),
            F::U16(1),
            F::U16(4),
            F::U32(4),
        ],
    );
    malformed_one(&bytes);
}

#[test]
fn info_reply_locator_count_above_cap_is_refused_before_allocation() {
    // A count of 65 with 65 * 24 octets present: over our cap.
    let locs = vec![0u8; 65 * 24];
    let bytes = sub(INFO_REPLY, 0, Big, &[F::U32(65), F::B(&locs)]);
    assert_eq!(
        malformed_one(&bytes),
        WireError::TooLarge("INFO_REPLY.locatorList")
    );
    // A huge count with few bytes: truncated, checked before any allocation.
    let bytes = sub(INFO_REPLY, 0, Big, &[F::U32(0xffff_ffff), F::B(&[0; 24])]);
    malformed_one(&bytes);
}

#[test]
fn info_ts_with_zero_length_and_no_invalidate_flag_is_malformed() {
    // RTPS 2.5 §9.4.5.1.3: for INFO_TS, octetsToNextHeader 0 means an empty body.
    let mut bytes = vec![INFO_TS, 0x01, 0, 0];
    bytes.extend(sub(INFO_DST, 0, Little, &[F::B(&PREFIX.0)]));
    malformed_one(&bytes[..4]);
    let mut ok = vec![INFO_TS, 0x03, 0, 0];
    ok.extend(sub(INFO_DST, 0, Little, &[F::B(&PREFIX.0)]));
    assert_eq!(outcomes(&ok).len(), 2);
}

// ---------- iterator outcomes ----------

#[test]
fn vendor_submessage_is_not_understood_and_the_next_one_is_accepted() {
    let mut bytes = sub(0x80, 0x01, Little, &[F::U32(0xdead_beef)]);
    bytes.extend(sub(INFO_DST, 0, Big, &[F::B(&PREFIX.0)]));
    let out = outcomes(&bytes);
    assert_eq!(out.len(), 2);
    assert_eq!(
        out[0],
        SubmessageOutcome::NotUnderstood {
            id: 0x80,
            flags: 0x01,
            body: &bytes[4..8]
        }
    );
    assert!(matches!(
        out[1],
        SubmessageOutcome::Accept(Submessage::InfoDst(_))
    ));
}

#[test]
fn data_with_unknown_must_understand_inline_qos_is_not_understood() {
    let qos = body(
        Big,
        &[F::U16(0x4042), F::U16(4), F::U32(1), F::U16(1), F::U16(0)],
    );
    let bytes = sub(
        DATA,
        0x02 | 0x04,
        Big,
        &[
            F::U16(0),
            F::U16(16),
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 1),
            F::B(&qos),
            F::U32(0),
        ],
    );
    assert!(matches!(
        outcomes(&bytes)[..],
        [SubmessageOutcome::NotUnderstood { id: DATA, .. }]
    ));
    let understood: Vec<_> = SubmessageIter::new(&bytes)
        .with_understood(|pid| pid == 0x4042)
        .collect();
    assert!(matches!(
        understood[..],
        [SubmessageOutcome::Accept(Submessage::Data(_))]
    ));
}

#[test]
fn malformed_submessage_ends_the_iteration() {
    let mut bytes = heartbeat_bytes((0, 5), (0, 1));
    bytes.extend(sub(INFO_DST, 0, Big, &[F::B(&PREFIX.0)]));
    let out = outcomes(&bytes);
    assert_eq!(out.len(), 1);
    assert!(matches!(out[0], SubmessageOutcome::Malformed(_)));
}

#[test]
fn zero_octets_to_next_header_extends_data_to_the_end_of_the_message() {
    let mut bytes = data_bytes(0x04, 16, (0, 1), &[]);
    bytes[2] = 0;
    bytes[3] = 0;
    bytes.extend_from_slice(&[5, 6, 7, 8]);
    let Submessage::Data(d) = accept_one(&bytes) else {
        panic!("not DATA")
    };
    assert_eq!(d.payload, DataPayload::Data(&[0, 0, 0, 0, 5, 6, 7, 8]));
}

#[test]
fn pad_with_zero_length_is_empty_and_the_next_submessage_follows() {
    let mut bytes = vec![PAD, 0, 0, 0];
    bytes.extend(sub(INFO_DST, 0, Big, &[F::B(&PREFIX.0)]));
    let out = outcomes(&bytes);
    assert_eq!(out.len(), 2);
    assert_eq!(
        out[0],
        SubmessageOutcome::Accept(Submessage::Pad(Pad {
            endian: Big,
            body_len: 0
        }))
    );
}

#[test]
fn data_longer_than_65535_octets_is_emitted_with_zero_length_and_reparses() {
    let payload = vec![0x5a; 70_000];
    let d = Data {
        endian: Little,
        extra_flags: 0,
        reader_id: RID,
        writer_id: WID,
        writer_sn: sn(1),
        inline_qos: None,
        payload: DataPayload::Data(&payload),
    };
    let mut v = Vec::new();
    d.emit(&mut v);
    assert_eq!(v.len(), d.buffer_len());
    assert_eq!(&v[2..4], &[0, 0]);
    assert_eq!(accept_one(&v), Submessage::Data(d));
}

// ---------- whole messages ----------

fn sample_message() -> Vec<u8> {
    let mut v = Vec::new();
    Header {
        version: ProtocolVersion { major: 2, minor: 1 },
        vendor_id: VendorId::CYCLONE_DDS,
        guid_prefix: PREFIX,
    }
    .emit(&mut v);
    v.extend(sub(INFO_TS, 0, Little, &[F::I32(10), F::U32(20)]));
    v.extend(sub(INFO_DST, 0, Big, &[F::B(&PREFIX.0)]));
    v.extend(data_bytes(0x04, 16, (0, 3), &[]));
    v.extend(heartbeat_bytes((0, 1), (0, 3)));
    v
}

#[test]
fn message_parses_and_re_emits_identically() {
    let bytes = sample_message();
    let (header, iter) = Message::parse(&bytes).unwrap();
    let subs: Vec<_> = iter
        .map(|o| match o {
            SubmessageOutcome::Accept(s) => s,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(subs.len(), 4);
    let msg = Message {
        header,
        submessages: subs,
    };
    assert_eq!(msg.buffer_len(), bytes.len());
    let mut v = Vec::new();
    msg.emit(&mut v);
    assert_eq!(v, bytes);
    let mut w = Vec::new();
    emit_message(&msg.header, &msg.submessages, &mut w);
    assert_eq!(w, bytes);
}

#[test]
fn truncated_message_is_an_error_or_malformed_at_every_offset() {
    let bytes = sample_message();
    let full: Vec<_> = Message::parse(&bytes).unwrap().1.collect();
    let mut boundaries = vec![Header::LEN];
    for o in &full {
        let SubmessageOutcome::Accept(s) = o else {
            panic!()
        };
        boundaries.push(boundaries.last().unwrap() + s.buffer_len());
    }
    for cut in 0..bytes.len() {
        let Ok((_, iter)) = Message::parse(&bytes[..cut]) else {
            assert!(cut < Header::LEN);
            continue;
        };
        let out: Vec<_> = iter.collect();
        if boundaries.contains(&cut) {
            assert_eq!(
                out[..],
                full[..out.len()],
                "cut {cut} at a boundary keeps a prefix"
            );
        } else {
            let (last, prefix) = out.split_last().unwrap();
            assert!(matches!(last, SubmessageOutcome::Malformed(_)), "cut {cut}");
            assert_eq!(prefix[..], full[..prefix.len()]);
        }
    }
}

#[test]
fn message_that_is_not_rtps_is_an_error() {
    let mut bytes = sample_message();
    bytes[1] = b'X';
    assert!(Message::parse(&bytes).is_err());
}

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
            .map(|b| ParameterListView::new_checked(&mut Reader::new(b, e)).unwrap());
        let payload = match kind {
            0 => DataPayload::None,
            1 => DataPayload::Data(&payload),
            _ => DataPayload::Key(&payload),
        };
        round_trip(&Submessage::Data(Data {
            endian: e, extra_flags, reader_id: r, writer_id: w, writer_sn, inline_qos, payload,
        }));
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
            .map(|b| ParameterListView::new_checked(&mut Reader::new(b, e)).unwrap());
        round_trip(&Submessage::DataFrag(DataFrag {
            endian: e, extra_flags: 0, reader_id: r, writer_id: w, writer_sn,
            fragment_starting_num: FragmentNumber(start), fragments_in_submessage: count,
            fragment_size: size, sample_size, inline_qos, key, fragments: &fragments,
        }));
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
