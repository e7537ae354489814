//! The iterator's three outcomes (accept, not understood, malformed) and whole messages.
//! Must not: open sockets or read files.

// Test arithmetic works on small, known inputs; docs/conventions.md §4 targets parse paths.
#![allow(clippy::arithmetic_side_effects)]

use super::*;

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
    let mut bytes = heartbeat_bytes((0, 0), (0, 1));
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
