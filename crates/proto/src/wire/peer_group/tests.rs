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
        key: KeyRef::Full(KEY),
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
    def.emit(&mut CdrWriter::new(&mut v, Big));
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
    let mut w = CdrWriter::new(&mut v, Big);
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
        c.emit(&mut CdrWriter::new(&mut v, e));
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
            writer_sn: SequenceNumber(sn), key: KeyRef::Full(key), key_hash: None, rest: &rest,
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
        def.emit(&mut CdrWriter::new(&mut v, e));
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
            key_hash: Some([9; 16]),
            key: KeyRef::Digest(KEY.digest),
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

#[test]
fn alias_forms_golden_bytes_in_both_byte_orders() {
    let narrow = Alias {
        low: 0x2a,
        narrow: true,
    };
    let wide = Alias {
        low: 0x1234,
        narrow: false,
    };
    for (endian, e) in [(Big, 0u8), (Little, 1u8)] {
        let mut v = Vec::new();
        AbbreviatedData {
            key: KeyRef::Alias(narrow),
            ..abbreviated(endian, &[0xee])
        }
        .emit(&mut v);
        // Flags E, A, N; body 16 + 1 + 1.
        assert_eq!(v[1], e | 0x08 | 0x10);
        assert_eq!(v.len(), 4 + 18);
        assert_eq!(&v[20..], &[0x2a, 0xee]);
        let parsed = AbbreviatedData::parse(v[1], &v[4..]).unwrap();
        assert_eq!(parsed.key, KeyRef::Alias(narrow));
        let mut w = Vec::new();
        AbbreviatedData {
            key: KeyRef::Alias(wide),
            key_hash: Some([7; 16]),
            ..abbreviated(endian, &[0xee])
        }
        .emit(&mut w);
        assert_eq!(w[1], e | 0x08 | 0x02);
        assert_eq!(w.len(), 4 + 16 + 2 + 16 + 1);
        let want: [u8; 2] = if endian == Big {
            [0x12, 0x34]
        } else {
            [0x34, 0x12]
        };
        assert_eq!(&w[20..22], &want);
        let parsed = AbbreviatedData::parse(w[1], &w[4..]).unwrap();
        assert_eq!(parsed.key, KeyRef::Alias(wide));
        assert_eq!(parsed.key_hash, Some([7; 16]));
    }
}

#[test]
fn hostile_alias_forms_are_errors_not_panics() {
    let mut v = Vec::new();
    AbbreviatedData {
        key: KeyRef::Alias(Alias {
            low: 0x1234,
            narrow: false,
        }),
        ..abbreviated(Little, &[])
    }
    .emit(&mut v);
    let body = &v[4..];
    // Truncated: the ids alone, or one octet of a wide alias.
    assert!(AbbreviatedData::parse(v[1], &body[..16]).is_err());
    assert!(AbbreviatedData::parse(v[1], &body[..17]).is_err());
    // Narrow with nothing after the ids.
    assert!(AbbreviatedData::parse(v[1] | 0x10, &body[..16]).is_err());
    // S and A together are contradictory.
    assert_eq!(
        AbbreviatedData::parse(v[1] | 0x04, body),
        Err(WireError::Invalid("AbbreviatedData: flags S and A"))
    );
    // A key hash flag without its 16 octets.
    assert!(AbbreviatedData::parse(v[1] | 0x02, body).is_err());
}

#[test]
fn an_alias_names_exactly_its_definition_inside_its_window_and_nothing_outside() {
    let sn = SequenceNumber;
    // Narrow up to 256 back, wide up to 65536, then nothing.
    let a = Alias::for_definition(sn(10), sn(11)).unwrap();
    assert!(a.narrow && a.low == 10);
    assert_eq!(a.definition_sn(sn(11)), Some(sn(10)));
    let a = Alias::for_definition(sn(10), sn(266)).unwrap();
    assert!(a.narrow);
    assert_eq!(a.definition_sn(sn(266)), Some(sn(10)));
    let a = Alias::for_definition(sn(10), sn(267)).unwrap();
    assert!(!a.narrow && a.low == 10);
    assert_eq!(a.definition_sn(sn(267)), Some(sn(10)));
    assert!(Alias::for_definition(sn(10), sn(10 + 65536)).is_some());
    assert_eq!(Alias::for_definition(sn(10), sn(10 + 65537)), None);
    // Never the sample itself or later, never below 1.
    assert_eq!(Alias::for_definition(sn(10), sn(10)), None);
    assert_eq!(Alias::for_definition(sn(11), sn(10)), None);
    assert_eq!(Alias::for_definition(sn(0), sn(10)), None);
    let low5 = Alias {
        low: 5,
        narrow: true,
    };
    assert_eq!(low5.definition_sn(sn(5)), None); // 5 - 256 < 1
    assert_eq!(low5.definition_sn(sn(6)), Some(sn(5)));
    assert_eq!(low5.definition_sn(sn(261)), Some(sn(5)));
    assert_eq!(low5.definition_sn(sn(262)), Some(sn(261)));
    // Out of range: a "narrow" alias above 255 is no encoding; extremes do not overflow.
    assert_eq!(
        Alias {
            low: 300,
            narrow: true
        }
        .definition_sn(sn(1000)),
        None
    );
    for s in [i64::MIN, -1, 0, 1, i64::MAX] {
        for low in [0u16, 1, 255, 0xffff] {
            let _ = Alias { low, narrow: false }.definition_sn(sn(s));
        }
    }
}

proptest! {
    /// Whatever the SNs, the alias a writer may send names its definition and no other.
    #[test]
    fn alias_round_trips_through_the_sample_sn(d in 1i64..i64::MAX / 2, delta in 1i64..70_000) {
        let s = SequenceNumber(d + delta);
        match Alias::for_definition(SequenceNumber(d), s) {
            Some(a) => {
                prop_assert!(delta <= 65_536);
                prop_assert_eq!(a.narrow, delta <= 256);
                prop_assert_eq!(a.definition_sn(s), Some(SequenceNumber(d)));
                let mut v = Vec::new();
                let ad = AbbreviatedData { writer_sn: s, key: KeyRef::Alias(a), ..abbreviated(Big, &[1]) };
                ad.emit(&mut v);
                prop_assert_eq!(v.len(), ad.buffer_len());
                prop_assert_eq!(AbbreviatedData::parse(v[1], &v[4..]).unwrap(), ad);
            }
            None => prop_assert!(delta > 65_536),
        }
    }
}
