//! Peer-group cache wire elements: golden bytes, round trips in both byte orders, truncation
//! at every offset, the segment invariant, and vendor scoping through the real receiver.
//! Must not: open sockets or read files.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use super::*;
use crate::cdr::Endianness::{Big, Little};
use crate::core::receiver::receive;
use crate::wire::submessage::{Data, DataPayload, Submessage};
use crate::wire::{GuidPrefix, Header, emit_message};
use proptest::prelude::*;

const KEY: CacheKey = CacheKey {
    group: 0x0102_0304,
    generation: 7,
    type_hash: 0x1111_2222_3333_4444,
    digest: 0xaaaa_bbbb_cccc_dddd,
};

fn abbreviated(endian: Endianness, rest: &[u8]) -> AbbreviatedData<'_> {
    AbbreviatedData {
        endian,
        reader_id: EntityId::UNKNOWN,
        writer_id: EntityId([0, 0, 1, 0x03]),
        writer_sn: SequenceNumber(5),
        key: KEY,
        short_key: false,
        key_hash: None,
        rest,
    }
}

#[test]
fn abbreviated_data_golden_big_endian() {
    let mut v = Vec::new();
    abbreviated(Big, &[0xee, 0xff]).emit(&mut v);
    let mut want = vec![0x81, 0x00, 0x00, 42];
    want.extend([0, 0, 0, 0, 0, 0, 1, 3]); // readerId, writerId
    want.extend([0, 0, 0, 0, 0, 0, 0, 5]); // writerSN high, low
    want.extend([1, 2, 3, 4, 0, 0, 0, 7]);
    want.extend([0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44]);
    want.extend([0xaa, 0xaa, 0xbb, 0xbb, 0xcc, 0xcc, 0xdd, 0xdd]);
    want.extend([0xee, 0xff]);
    assert_eq!(v, want);
}

#[test]
fn abbreviated_data_golden_little_endian() {
    let mut v = Vec::new();
    abbreviated(Little, &[]).emit(&mut v);
    assert_eq!(&v[..4], &[0x81, 0x01, 40, 0]);
    assert_eq!(&v[20..24], &[4, 3, 2, 1]);
    let parsed = AbbreviatedData::parse(v[1], &v[4..]).unwrap();
    assert_eq!(parsed, abbreviated(Little, &[]));
}

#[test]
fn abbreviated_data_truncated_at_every_offset_is_an_error() {
    let mut v = Vec::new();
    abbreviated(Big, &[]).emit(&mut v);
    let body = &v[4..];
    for n in 0..body.len() {
        assert!(AbbreviatedData::parse(0, &body[..n]).is_err(), "cut at {n}");
    }
}

#[test]
fn abbreviated_data_with_sn_zero_is_invalid() {
    let mut a = abbreviated(Big, &[]);
    a.writer_sn = SequenceNumber(0);
    let mut v = Vec::new();
    a.emit(&mut v);
    assert_eq!(
        AbbreviatedData::parse(0, &v[4..]),
        Err(WireError::Invalid("AbbreviatedData.writerSN"))
    );
}

#[test]
fn key_definition_golden_and_truncation() {
    let def = KeyDefinition::new(
        KEY,
        vec![
            Segment {
                offset: 8,
                length: 16,
            },
            Segment {
                offset: 40,
                length: 4,
            },
        ],
    )
    .unwrap();
    let mut v = Vec::new();
    def.emit(&mut Writer::new(&mut v, Big));
    assert_eq!(v.len(), def.buffer_len());
    assert_eq!(&v[24..28], &[0, 0, 0, 2]);
    assert_eq!(&v[28..36], &[0, 0, 0, 8, 0, 0, 0, 16]);
    assert_eq!(KeyDefinition::parse(&v, Big).unwrap(), def);
    for n in 0..v.len() {
        assert!(KeyDefinition::parse(&v[..n], Big).is_err(), "cut at {n}");
    }
}

#[test]
fn key_definition_rejects_bad_segments() {
    let seg = |offset, length| Segment { offset, length };
    assert!(KeyDefinition::new(KEY, vec![]).is_err());
    assert!(KeyDefinition::new(KEY, vec![seg(0, 0)]).is_err());
    assert!(
        KeyDefinition::new(KEY, vec![seg(8, 8), seg(12, 4)]).is_err(),
        "overlap"
    );
    assert!(
        KeyDefinition::new(KEY, vec![seg(8, 8), seg(0, 4)]).is_err(),
        "order"
    );
    assert!(
        KeyDefinition::new(KEY, vec![seg(8, 8), seg(16, 4)]).is_ok(),
        "adjacent"
    );
    let many: Vec<_> = (0..=MAX_SEGMENTS as u32).map(|i| seg(i * 8, 4)).collect();
    assert!(KeyDefinition::new(KEY, many).is_err());
    // A wire count above the limit is refused before any segment is read.
    let mut v = Vec::new();
    let mut w = Writer::new(&mut v, Big);
    KEY.emit(&mut w);
    w.u32(u32::MAX);
    assert_eq!(
        KeyDefinition::parse(&v, Big),
        Err(WireError::TooLarge("KeyDefinition.segmentCount"))
    );
}

#[test]
fn capability_round_trips() {
    for e in [Big, Little] {
        let c = Capability {
            capacity: 64,
            generation: 3,
        };
        let mut v = Vec::new();
        c.emit(&mut Writer::new(&mut v, e));
        assert_eq!(v.len(), Capability::LEN);
        assert_eq!(Capability::parse(&v, e).unwrap(), c);
        assert!(Capability::parse(&v[..7], e).is_err());
    }
}

/// A datagram from `vendor`: an abbreviated sample, then an ordinary DATA.
fn datagram(vendor: VendorId) -> Vec<u8> {
    let mut header = Header::new(GuidPrefix([9; 12]));
    header.vendor_id = vendor;
    let data = Data {
        endian: Little,
        extra_flags: 0,
        reader_id: EntityId::UNKNOWN,
        writer_id: EntityId([0, 0, 1, 0x03]),
        writer_sn: SequenceNumber(6),
        inline_qos: None,
        payload: DataPayload::Data(&[0, 1, 0, 0, 42, 0, 0, 0]),
    };
    let mut v = Vec::new();
    emit_message(&header, &[], &mut v);
    abbreviated(Little, &[1, 2, 3]).emit(&mut v);
    Submessage::Data(data).emit(&mut v);
    v
}

#[test]
fn receiver_skips_the_vendor_submessage_and_delivers_the_next_data() {
    for vendor in [VendorId([0x01, 0x10]), VendorId::SIFTDDS] {
        let bytes = datagram(vendor);
        let mut delivered = Vec::new();
        let out = receive(
            &bytes,
            GuidPrefix([1; 12]),
            |_| false,
            |_, sm| delivered.push(sm.id()),
        );
        assert_eq!(out.not_understood, 1, "{vendor:?}");
        assert!(!out.malformed);
        assert_eq!(delivered, vec![crate::wire::submessage::DATA]);
    }
}

#[test]
fn abbreviated_data_is_interpreted_only_from_siftdds() {
    for (vendor, ours) in [
        (VendorId([0x01, 0x10]), false), // Cyclone / ADLINK
        (VendorId([0x01, 0x0f]), false), // eProsima
        (VendorId([0x01, 0x01]), false), // RTI
        (VendorId::SIFTDDS, true),
    ] {
        let bytes = datagram(vendor);
        let (header, iter) = crate::wire::Message::parse(&bytes).unwrap();
        let mut found = 0;
        for item in iter {
            if let crate::wire::submessage::SubmessageOutcome::NotUnderstood { id, flags, body } =
                item
            {
                if let Some(r) =
                    AbbreviatedData::from_not_understood(header.vendor_id, id, flags, body)
                {
                    assert_eq!(r.unwrap().rest, &[1, 2, 3]);
                    found += 1;
                }
            }
        }
        assert_eq!(found, usize::from(ours), "{vendor:?}");
    }
    // Another siftdds vendor submessage id is not ours either.
    assert!(AbbreviatedData::from_not_understood(VendorId::SIFTDDS, 0x80, 0, &[]).is_none());
}

fn endian() -> impl Strategy<Value = Endianness> {
    prop_oneof![Just(Big), Just(Little)]
}

fn key() -> impl Strategy<Value = CacheKey> {
    (any::<u32>(), any::<u32>(), any::<u64>(), any::<u64>()).prop_map(
        |(group, generation, type_hash, digest)| CacheKey {
            group,
            generation,
            type_hash,
            digest,
        },
    )
}

proptest! {
    #[test]
    fn abbreviated_data_round_trips(
        e in endian(), r in any::<[u8; 4]>(), w in any::<[u8; 4]>(), sn in 1i64..i64::MAX,
        key in key(), rest in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        let a = AbbreviatedData {
            endian: e, reader_id: EntityId(r), writer_id: EntityId(w),
            writer_sn: SequenceNumber(sn), key, short_key: false, key_hash: None, rest: &rest,
        };
        let mut v = Vec::new();
        a.emit(&mut v);
        prop_assert_eq!(v.len(), a.buffer_len());
        prop_assert_eq!(AbbreviatedData::parse(v[1], &v[4..]).unwrap(), a);
    }

    #[test]
    fn key_definition_round_trips(
        e in endian(), key in key(),
        gaps in proptest::collection::vec((0u32..100, 1u32..100), 1..=MAX_SEGMENTS),
    ) {
        let mut offset = 0u32;
        let segments: Vec<Segment> = gaps.iter().map(|&(gap, length)| {
            offset += gap;
            let s = Segment { offset, length };
            offset += length;
            s
        }).collect();
        let def = KeyDefinition::new(key, segments).unwrap();
        let mut v = Vec::new();
        def.emit(&mut Writer::new(&mut v, e));
        prop_assert_eq!(KeyDefinition::parse(&v, e).unwrap(), def);
    }

    #[test]
    fn parsers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..128), flags in any::<u8>()) {
        let _ = AbbreviatedData::parse(flags, &bytes);
        let _ = KeyDefinition::parse(&bytes, Big);
        let _ = Capability::parse(&bytes, Little);
    }
}

#[test]
fn short_key_and_key_hash_flags_round_trip_and_shrink_the_submessage() {
    for endian in [Little, Big] {
        let long = abbreviated(endian, &[1, 2, 3, 4]);
        let short = AbbreviatedData {
            short_key: true,
            key_hash: Some([9; 16]),
            key: CacheKey {
                group: 0,
                generation: 0,
                type_hash: 0,
                digest: KEY.digest,
            },
            ..long
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        long.emit(&mut a);
        short.emit(&mut b);
        // 16 octets fewer for the key, 16 more for the key hash.
        assert_eq!(a.len(), b.len());
        assert_eq!(b[1] & 0x06, 0x06);
        assert_eq!(AbbreviatedData::parse(b[1], &b[4..]).unwrap(), short);
        let bare = AbbreviatedData {
            key_hash: None,
            ..short
        };
        let mut c = Vec::new();
        bare.emit(&mut c);
        assert_eq!(c.len() + 16, a.len());
        assert_eq!(AbbreviatedData::parse(c[1], &c[4..]).unwrap(), bare);
        // A key hash flag without its 16 octets is malformed.
        assert!(AbbreviatedData::parse(0x02 | c[1], &c[4..]).is_err());
    }
}
