//! PRESENTATION on the receive path, from hand-built DATA: PID_COHERENT_SET and the
//! end-of-set marker (RTPS 2.5 §8.7.5), and the order of a take with ordered INSTANCE access.

use super::*;
use crate::qos::{Presentation, PresentationAccessScope};

/// Inline QoS with PID_COHERENT_SET = `set` (and PID_KEY_HASH = `key` if given), LE.
fn coherent_qos(set: SequenceNumber, key: Option<[u8; 16]>) -> Vec<u8> {
    let mut b = vec![0x56, 0x00, 0x08, 0x00];
    b.extend(i32::try_from(set.0 >> 32).unwrap().to_le_bytes());
    b.extend(u32::try_from(set.0 & 0xffff_ffff).unwrap().to_le_bytes());
    if let Some(k) = key {
        b.extend([0x70, 0x00, 0x10, 0x00]);
        b.extend(k);
    }
    b.extend([0x01, 0x00, 0x00, 0x00]);
    b
}

fn coherent_reader() -> Reader {
    let mut c = config(true);
    c.presentation = Presentation {
        access_scope: PresentationAccessScope::Topic,
        coherent_access: true,
        ordered_access: false,
    };
    matched(c, true)
}

/// DATA `sn` of the set that began at `set`; `None` payload: the end-of-set marker.
fn send(r: &mut Reader, sn: i64, set: SequenceNumber, payload: Option<&[u8]>) {
    let qos = coherent_qos(set, None);
    let mut d = data(sn, payload.unwrap_or(b""));
    d.inline_qos = Some(ParameterListView::new_checked(&mut CdrReader::new(&qos, LE)).unwrap());
    if payload.is_none() {
        d.payload = DataPayload::None;
    }
    r.handle_data(at(1), writer_guid(), None, &d);
}

#[test]
fn a_coherent_set_is_delivered_at_its_end_marker_even_when_reordered() {
    let mut r = coherent_reader();
    let set = SequenceNumber(1);
    send(&mut r, 2, set, Some(b"\0\x01\0\0b"));
    send(&mut r, 1, set, Some(b"\0\x01\0\0a"));
    assert_eq!(drain(&mut r), Vec::<i64>::new(), "held until the set ends");
    send(&mut r, 3, SequenceNumber::UNKNOWN, None);
    assert_eq!(
        drain(&mut r),
        vec![1, 2],
        "the marker itself is never delivered"
    );
}

#[test]
fn a_set_with_a_lost_change_is_never_delivered() {
    let mut r = coherent_reader();
    let set = SequenceNumber(1);
    send(&mut r, 1, set, Some(b"\0\x01\0\0a"));
    send(&mut r, 3, set, Some(b"\0\x01\0\0c"));
    // The writer no longer has 2: lost, so the set cannot be whole.
    r.handle_heartbeat(at(2), writer_guid(), &heartbeat(3, 4, 1, true));
    send(&mut r, 4, SequenceNumber::UNKNOWN, None);
    assert_eq!(drain(&mut r), Vec::<i64>::new());
    assert_eq!(r.counters().coherent_samples_dropped, 2);
    // The next set is whole again.
    send(&mut r, 5, SequenceNumber(5), Some(b"\0\x01\0\0e"));
    send(&mut r, 6, SequenceNumber::UNKNOWN, None);
    assert_eq!(drain(&mut r), vec![5]);
}

#[test]
fn a_gap_inside_a_set_leaves_it_whole() {
    let mut r = coherent_reader();
    let set = SequenceNumber(1);
    send(&mut r, 1, set, Some(b"\0\x01\0\0a"));
    r.handle_gap(at(1), writer_guid(), &gap(2, 3, &[]));
    send(&mut r, 3, set, Some(b"\0\x01\0\0c"));
    assert_eq!(drain(&mut r), Vec::<i64>::new());
    send(&mut r, 4, SequenceNumber::UNKNOWN, None);
    assert_eq!(drain(&mut r), vec![1, 3]);
}

#[test]
fn ordered_instance_access_takes_instance_by_instance() {
    let mut c = ReaderConfig::new(reader_guid(), true, true);
    c.history = History::KeepAll;
    c.presentation = Presentation {
        access_scope: PresentationAccessScope::Instance,
        coherent_access: false,
        ordered_access: true,
    };
    let mut r = matched(c, true);
    for (sn, key) in [(1, 0xa), (2, 0xb), (3, 0xa), (4, 0xc), (5, 0xb)] {
        let q = inline_qos_bytes(0, [key; 16]);
        let mut d = data(sn, b"\0\x01\0\0v");
        d.inline_qos = Some(ParameterListView::new_checked(&mut CdrReader::new(&q, LE)).unwrap());
        r.handle_data(at(1), writer_guid(), None, &d);
    }
    let mut out = Vec::new();
    r.take_all(at(2), &mut out);
    let got: Vec<i64> = out.iter().map(|c| c.sequence_number.0).collect();
    assert_eq!(got, vec![1, 3, 2, 5, 4]);
}
