//! WLP unit tests: ParticipantMessageData against a Cyclone capture, the AUTOMATIC update
//! schedule, remote lease expiry and manual assertion, on a manual clock (no sockets).
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used
)]

use bytes::Bytes;

use crate::cdr::Endianness;
use crate::core::WriteRequest;
use crate::core::participant::liveliness::*;
use crate::core::participant::{Participant, ReaderSpec, WriterSpec};
use crate::core::sim::SimNet;
use crate::core::{ChangeKind, Event};
use crate::qos::LivelinessKind;
use crate::qos::{DataReaderQos, DataWriterQos, Liveliness, Reliability};
use crate::wire::GuidPrefix;

/// Cyclone DDS 0.10's WLP DATA payload, `tests/data/captures/cyclone-to-fastdds.pcapng`
/// frame 22 (writer 000200c2, 28 octets, CDR_LE).
const CYCLONE_PMD: [u8; 28] = [
    0x00, 0x01, 0x00, 0x00, // CDR_LE, options 0
    0x01, 0x10, 0x61, 0x19, 0x82, 0x22, 0xff, 0xe7, 0x92, 0xed, 0x9f, 0xe6, // prefix
    0x00, 0x00, 0x00, 0x01, // AUTOMATIC_LIVELINESS_UPDATE
    0x01, 0x00, 0x00, 0x00, // data length 1 (LE)
    0x00, 0x00, 0x00, 0x00, // data {0}, padding
];

fn cyclone_prefix() -> GuidPrefix {
    GuidPrefix([
        0x01, 0x10, 0x61, 0x19, 0x82, 0x22, 0xff, 0xe7, 0x92, 0xed, 0x9f, 0xe6,
    ])
}

#[test]
fn automatic_update_encodes_exactly_as_cyclone_sends_it() {
    let m = ParticipantMessageData::automatic(cyclone_prefix());
    assert_eq!(m.to_payload(Endianness::Little), CYCLONE_PMD);
    assert_eq!(
        ParticipantMessageData::from_payload(&CYCLONE_PMD).unwrap(),
        m
    );
    let mut key = [0u8; 16];
    key[..12].copy_from_slice(&cyclone_prefix().0);
    key[15] = 1;
    assert_eq!(m.key_hash(), key);
}

#[test]
fn fastdds_pl_cdr_labelled_update_with_empty_data_decodes() {
    // Fast DDS 2.9 WLP::send_liveliness_message: PL_CDR_LE id, empty sequence, 4 zero octets.
    let mut p = vec![0x00, 0x03, 0x00, 0x00];
    p.extend_from_slice(&cyclone_prefix().0);
    p.extend_from_slice(&MANUAL_LIVELINESS_UPDATE);
    p.extend_from_slice(&[0; 8]);
    let m = ParticipantMessageData::from_payload(&p).unwrap();
    assert_eq!(m.kind, MANUAL_LIVELINESS_UPDATE);
    assert_eq!(m.participant_guid_prefix, cyclone_prefix());
    assert!(m.data.is_empty());
}

#[test]
fn big_endian_update_round_trips() {
    let m = ParticipantMessageData {
        participant_guid_prefix: cyclone_prefix(),
        kind: MANUAL_LIVELINESS_UPDATE,
        data: vec![1, 2, 3, 4, 5],
    };
    let p = m.to_payload(Endianness::Big);
    assert_eq!(&p[..4], &[0, 0, 0, 0]);
    assert_eq!(&p[20..24], &[0, 0, 0, 5]);
    assert_eq!(p.len() % 4, 0);
    assert_eq!(ParticipantMessageData::from_payload(&p).unwrap(), m);
}

#[test]
fn truncated_oversized_or_foreign_payloads_are_errors() {
    for n in 0..25 {
        assert!(
            ParticipantMessageData::from_payload(&CYCLONE_PMD[..n]).is_err(),
            "len {n}"
        );
    }
    let mut huge = CYCLONE_PMD.to_vec();
    huge[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(ParticipantMessageData::from_payload(&huge).is_err());
    let mut cdr2 = CYCLONE_PMD.to_vec();
    cdr2[1] = 0x07;
    assert!(ParticipantMessageData::from_payload(&cdr2).is_err());
}

// --- participants on a manual clock ----------------------------------------------------------

/// The seed of the simulated channel (no test here sets faults, so nothing draws from it).
const SEED: u64 = 1;

/// Two participants on the simulated LAN, each hearing every datagram of the other unless
/// silenced.
fn pair() -> SimNet {
    SimNet::new(2, SEED, |_| {})
}

fn lease(kind: LivelinessKind, ms: u64) -> Liveliness {
    let d = crate::time::Duration::from_std(core::time::Duration::from_millis(ms));
    Liveliness {
        kind,
        lease_duration: d,
    }
}

fn writer_spec(l: Liveliness) -> WriterSpec {
    WriterSpec::new(
        "Square",
        "ShapeType",
        false,
        DataWriterQos::default().liveliness(l),
    )
}

fn reader_spec(l: Liveliness) -> ReaderSpec {
    let qos = DataReaderQos::default()
        .reliability(Reliability::reliable())
        .liveliness(l);
    ReaderSpec::new("Square", "ShapeType", false, qos)
}

/// WLP updates our participant wrote so far (the WLP writer's last sequence number).
fn updates(p: &Participant) -> i64 {
    p.discovery.wlp_writer().last_sn().0
}

fn changed(events: &[Event], alive: bool) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::LivelinessChanged { alive: a, .. } if *a == alive))
        .count()
}

#[test]
fn without_a_finite_automatic_lease_only_the_initial_update_is_sent() {
    let mut pair = pair();
    let now = pair.now();
    pair.nodes[0]
        .p
        .create_writer(now, writer_spec(Liveliness::default()));
    pair.nodes[0]
        .p
        .create_writer(now, writer_spec(lease(LivelinessKind::ManualByTopic, 300)));
    pair.run_for(10_000);
    assert_eq!(updates(&pair.nodes[0].p), 1);
}

#[test]
fn automatic_updates_come_every_half_of_the_smallest_automatic_lease() {
    let mut pair = pair();
    pair.run_for(100);
    let now = pair.now();
    pair.nodes[0]
        .p
        .create_writer(now, writer_spec(lease(LivelinessKind::Automatic, 2_000)));
    pair.run_for(10_000);
    // Initial + one per second.
    assert!(
        (10..=12).contains(&updates(&pair.nodes[0].p)),
        "{}",
        updates(&pair.nodes[0].p)
    );
    let before = updates(&pair.nodes[0].p);
    let now = pair.now();
    let w = pair.nodes[0]
        .p
        .create_writer(now, writer_spec(lease(LivelinessKind::Automatic, 400)));
    pair.run_for(2_000);
    let n = updates(&pair.nodes[0].p) - before;
    assert!(
        (9..=11).contains(&n),
        "{n} updates in 2 s with a 400 ms lease"
    );
    // Deleting the short-lease writer restores the longer period.
    let now = pair.now();
    pair.nodes[0].p.delete_writer(now, w);
    pair.run_for(300);
    let before = updates(&pair.nodes[0].p);
    pair.run_for(4_000);
    let n = updates(&pair.nodes[0].p) - before;
    assert!((3..=5).contains(&n), "{n} updates in 4 s with a 2 s lease");
}

/// A pair where node 0's AUTOMATIC writer (1 s lease) has matched node 1's reader (500 ms).
fn automatic_writer_matched() -> (SimNet, crate::wire::Guid, crate::wire::Guid) {
    let mut pair = pair();
    pair.run_for(100);
    let now = pair.now();
    let w = pair.nodes[0]
        .p
        .create_writer(now, writer_spec(lease(LivelinessKind::Automatic, 1_000)));
    let r = pair.nodes[1]
        .p
        .create_reader(now, reader_spec(Liveliness::default()));
    pair.run_for(500);
    (pair, w, r)
}

#[test]
fn remote_automatic_writer_is_not_alive_while_its_participant_is_silent() {
    let (mut pair, w, r) = automatic_writer_matched();
    let e = pair.events(1);
    assert!(
        e.contains(&Event::LivelinessChanged {
            reader: r,
            writer: w,
            alive: true
        }),
        "{e:?}"
    );
    // The WLP updates (every 500 ms) keep it alive although nothing is written.
    pair.run_for(5_000);
    assert_eq!(changed(&pair.events(1), false), 0);
    pair.silenced.push(0);
    pair.run_for(1_200);
    let e = pair.events(1);
    assert!(
        e.contains(&Event::LivelinessChanged {
            reader: r,
            writer: w,
            alive: false
        }),
        "{e:?}"
    );
    pair.silenced.clear();
    pair.run_for(1_000);
    let e = pair.events(1);
    assert!(
        e.contains(&Event::LivelinessChanged {
            reader: r,
            writer: w,
            alive: true
        }),
        "{e:?}"
    );
    assert!(pair.nodes[1].p.stats().bad_discovery_data == 0);
}

#[test]
fn manual_by_topic_writer_lives_by_assertions_and_writes_only() {
    let mut pair = pair();
    pair.run_for(100);
    let now = pair.now();
    let w = pair.nodes[0].p.create_writer(
        now,
        writer_spec(lease(LivelinessKind::ManualByTopic, 1_000)),
    );
    let r = pair.nodes[1].p.create_reader(
        now,
        reader_spec(lease(LivelinessKind::ManualByTopic, 1_000)),
    );
    pair.run_for(300);
    assert_eq!(changed(&pair.events(1), true), 1);
    for _ in 0..10 {
        let now = pair.now();
        assert!(pair.nodes[0].p.assert_writer_liveliness(now, w));
        pair.run_for(400);
    }
    assert!(
        !pair
            .events(0)
            .iter()
            .any(|e| matches!(e, Event::LivelinessLost { .. }))
    );
    assert_eq!(changed(&pair.events(1), false), 0);
    // Not asserted: lost here, not alive there (WLP AUTOMATIC updates do not help).
    pair.run_for(1_200);
    assert!(
        pair.events(0)
            .contains(&Event::LivelinessLost { writer: w })
    );
    let e = pair.events(1);
    assert!(
        e.contains(&Event::LivelinessChanged {
            reader: r,
            writer: w,
            alive: false
        }),
        "{e:?}"
    );
    // A write asserts it again.
    let now = pair.now();
    pair.nodes[0]
        .p
        .write(
            now,
            w,
            WriteRequest::new(ChangeKind::Alive, None, Bytes::from_static(&[0, 1, 0, 0])),
        )
        .unwrap();
    pair.run_for(100);
    let e = pair.events(1);
    assert!(
        e.contains(&Event::LivelinessChanged {
            reader: r,
            writer: w,
            alive: true
        }),
        "{e:?}"
    );
}

#[test]
fn participant_assertion_does_not_revive_a_manual_by_topic_writer() {
    let mut pair = pair();
    pair.run_for(100);
    let now = pair.now();
    let w = pair.nodes[0]
        .p
        .create_writer(now, writer_spec(lease(LivelinessKind::ManualByTopic, 500)));
    pair.run_for(300);
    for _ in 0..5 {
        let now = pair.now();
        pair.nodes[0].p.assert_liveliness(now);
        pair.run_for(200);
    }
    assert!(
        pair.events(0)
            .contains(&Event::LivelinessLost { writer: w })
    );
    // The MANUAL update went out (initial AUTOMATIC + 5 MANUAL on KEEP_LAST per kind).
    assert_eq!(updates(&pair.nodes[0].p), 6);
}

/// (alive_count, not_alive_count, alive_count_change, not_alive_count_change) of `reader`'s
/// LIVELINESS_CHANGED status, taken.
fn take_counts(p: &mut Participant, reader: crate::wire::Guid) -> (u32, u32, i32, i32) {
    let s = p.take_liveliness_changed(reader).unwrap();
    (
        s.alive_count,
        s.not_alive_count,
        s.alive_count_change,
        s.not_alive_count_change,
    )
}

#[test]
fn liveliness_changed_status_counts_writers_and_changes_since_taken() {
    let (mut pair, w, r) = automatic_writer_matched();
    // DDS 1.4 §2.2.4.1: matched and alive; the change counts from the reader's creation.
    let s = pair.nodes[1].p.liveliness_changed(r).unwrap();
    assert_eq!(s.last_publication_handle, Some(w));
    let matched_at = s.total_changes;
    assert!(matched_at >= 1, "{s:?}");
    assert_eq!(take_counts(&mut pair.nodes[1].p, r), (1, 0, 1, 0));
    // Taking it made those counts the base.
    let s = pair.nodes[1].p.liveliness_changed(r).unwrap();
    assert_eq!(
        (
            s.alive_count_change,
            s.not_alive_count_change,
            s.total_changes
        ),
        (0, 0, matched_at)
    );
    // Its participant falls silent: the writer is not alive.
    pair.silenced.push(0);
    pair.run_for(1_200);
    assert_eq!(take_counts(&mut pair.nodes[1].p, r), (0, 1, -1, 1));
    let lapsed_at = pair.nodes[1].p.liveliness_changed(r).unwrap().total_changes;
    assert_eq!(lapsed_at, matched_at + 1);
    // Heard again: alive.
    pair.silenced.clear();
    pair.run_for(1_000);
    assert_eq!(take_counts(&mut pair.nodes[1].p, r), (1, 0, 1, -1));
    // A writer with an infinite lease is alive while matched.
    let now = pair.now();
    let forever = pair.nodes[0]
        .p
        .create_writer(now, writer_spec(Liveliness::default()));
    pair.run_for(500);
    let s = pair.nodes[1].p.take_liveliness_changed(r).unwrap();
    assert_eq!((s.alive_count, s.alive_count_change), (2, 1), "{s:?}");
    assert_eq!(s.last_publication_handle, Some(forever));
    // A deleted writer leaves the count (its unmatch is a change).
    let now = pair.now();
    pair.nodes[0].p.delete_writer(now, forever);
    pair.run_for(500);
    let s = pair.nodes[1].p.take_liveliness_changed(r).unwrap();
    assert_eq!((s.alive_count, s.alive_count_change), (1, -1), "{s:?}");
    assert_eq!(s.last_publication_handle, Some(forever));
    // A deleted reader has no status, and its bookkeeping goes with it.
    let now = pair.now();
    pair.nodes[1].p.delete_reader(now, r);
    assert_eq!(pair.nodes[1].p.liveliness_changed(r), None);
    assert_eq!(pair.nodes[1].p.liveliness.tracked_readers(), 0);
}
