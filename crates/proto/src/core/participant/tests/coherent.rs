//! PRESENTATION across participants on the simulated network: coherent sets arrive whole
//! under loss, duplication and reordering; access scope and coherent/ordered access are RxO.
#![allow(clippy::arithmetic_side_effects)]

use bytes::Bytes;

use crate::core::participant::{ReaderSpec, WriterSpec};
use crate::core::sim::SimNet;
use crate::core::{ChangeKind, Event, WriteRequest};
use crate::qos::{
    DataReaderQos, DataWriterQos, History, Presentation, PresentationAccessScope, PublisherQos,
    QosPolicyId, Reliability, SubscriberQos,
};
use crate::wire::Guid;

const SEED: u64 = 0x9e37_79b9_7f4a_7c15;

fn presentation(scope: PresentationAccessScope, coherent: bool, ordered: bool) -> Presentation {
    Presentation {
        access_scope: scope,
        coherent_access: coherent,
        ordered_access: ordered,
    }
}

fn writer(p: Presentation) -> WriterSpec {
    let qos = DataWriterQos {
        history: History::KeepAll,
        reliability: Reliability::reliable(),
        ..DataWriterQos::default()
    };
    let mut spec = WriterSpec::new("Square", "ShapeType", true, qos);
    spec.fragment_size = 1024;
    spec.publisher_qos = PublisherQos::default().presentation(p);
    spec
}

/// A reliable KEEP_ALL ShapeType reader of `topic` under presentation `p` (also used by
/// `tests/group.rs`).
pub(in crate::core::participant) fn reader_of(topic: &str, p: Presentation) -> ReaderSpec {
    let qos = DataReaderQos {
        history: History::KeepAll,
        reliability: Reliability::reliable(),
        ..DataReaderQos::default()
    };
    let mut spec = ReaderSpec::new(topic, "ShapeType", true, qos);
    spec.subscriber_qos = SubscriberQos::default().presentation(p);
    spec
}

fn reader(p: Presentation) -> ReaderSpec {
    reader_of("Square", p)
}

fn write(net: &mut SimNet, w: Guid, key: u8, value: u32) {
    let now = net.now();
    let mut payload = vec![0u8, 1, 0, 0];
    payload.extend_from_slice(&value.to_le_bytes());
    // Every 7th sample goes as DATA_FRAGs (fragment size 1024 below).
    if value % 7 == 0 {
        payload.resize(5000, 0xaa);
    }
    net.nodes[0]
        .p
        .write(
            now,
            w,
            WriteRequest::new(ChangeKind::Alive, Some([key; 16]), Bytes::from(payload)),
        )
        .unwrap();
}

fn take_values(net: &mut SimNet, r: Guid) -> Vec<u32> {
    let now = net.now();
    let mut out = Vec::new();
    while let Some(c) = net.nodes[1].p.take(now, r) {
        out.push(u32::from_le_bytes(c.data[4..8].try_into().unwrap()));
    }
    out
}

/// 40 sets of 4 instances × 3 samples, some fragmented; the reader takes after every single
/// write, so any partial delivery would show as a take that ends inside a set.
#[test]
fn coherent_sets_are_taken_whole_at_loss_duplication_and_reordering() {
    const SETS: u32 = 40;
    const PER_SET: u32 = 12;
    let mut net = SimNet::in_domains(&[0, 0], SEED, |_| {});
    net.run_for(100);
    let now = net.now();
    let p = presentation(PresentationAccessScope::Topic, true, false);
    let w = net.nodes[0].p.create_writer(now, writer(p));
    let r = net.nodes[1].p.create_reader(now, reader(p));
    net.run_for(300);
    assert_eq!(net.nodes[0].p.matched_readers(w), 1);
    net.faults.loss_percent = 20;
    net.faults.duplicate_percent = 5;
    net.faults.reorder_percent = 10;
    let mut got = Vec::new();
    for set in 0..SETS {
        net.nodes[0].p.begin_coherent_changes(&[w]);
        for i in 0..PER_SET {
            write(&mut net, w, (i % 4) as u8, set * PER_SET + i);
            net.run_for(1);
            let batch = take_values(&mut net, r);
            got.extend(batch);
            assert_eq!(
                got.len() % PER_SET as usize,
                0,
                "a partial set was taken: {got:?}"
            );
        }
        let now = net.now();
        net.nodes[0].p.end_coherent_changes(now, &[w]).unwrap();
        net.run_for(1);
        got.extend(take_values(&mut net, r));
        assert_eq!(
            got.len() % PER_SET as usize,
            0,
            "a partial set was taken: {got:?}"
        );
    }
    let done = net.run_until(60_000, |n| n.nodes[0].p.all_acked(w));
    assert!(done, "the writer's changes were not all acknowledged");
    got.extend(take_values(&mut net, r));
    // Reliable: every set arrives, each whole and in writer order.
    assert_eq!(got, (0..SETS * PER_SET).collect::<Vec<_>>());
}

/// DDS 1.4 §2.2.3.6 through SEDP (PID_PRESENTATION): the offered access scope must be at
/// least the requested one, and coherent/ordered access offered when requested. Both sides
/// report PRESENTATION as the incompatible policy.
#[test]
fn presentation_is_request_offered_on_both_sides() {
    use PresentationAccessScope::{Group, Instance, Topic};
    let cases = [
        // (offered, requested, compatible): the OMG suite's Coherent/OrderedAccess 0-9.
        (
            presentation(Instance, true, false),
            presentation(Instance, true, false),
            true,
        ),
        (
            presentation(Instance, true, false),
            presentation(Topic, true, false),
            false,
        ),
        (
            presentation(Topic, false, true),
            presentation(Group, false, true),
            false,
        ),
        (
            presentation(Group, false, true),
            presentation(Topic, false, true),
            true,
        ),
        (
            presentation(Topic, false, false),
            presentation(Topic, true, false),
            false,
        ),
        (
            presentation(Topic, false, false),
            presentation(Topic, false, true),
            false,
        ),
        (
            presentation(Group, true, true),
            presentation(Instance, false, false),
            true,
        ),
    ];
    for (offered, requested, compatible) in cases {
        let mut net = SimNet::in_domains(&[0, 0], SEED, |_| {});
        net.run_for(100);
        let now = net.now();
        let w = net.nodes[0].p.create_writer(now, writer(offered));
        let r = net.nodes[1].p.create_reader(now, reader(requested));
        net.run_for(300);
        let what = format!("{offered:?} offered, {requested:?} requested");
        assert_eq!(
            net.nodes[0].p.matched_readers(w),
            usize::from(compatible),
            "{what}"
        );
        let offered_bad = net.events(0).into_iter().any(|e| {
            matches!(e, Event::OfferedIncompatibleQos { writer, policies, .. }
                if writer == w && policies.contains(QosPolicyId::Presentation))
        });
        let requested_bad = net.events(1).into_iter().any(|e| {
            matches!(e, Event::RequestedIncompatibleQos { reader, policies, .. }
                if reader == r && policies.contains(QosPolicyId::Presentation))
        });
        assert_eq!(offered_bad, !compatible, "{what}");
        assert_eq!(requested_bad, !compatible, "{what}");
    }
}

/// A reader without coherent access gets the samples of a coherent writer as they come and
/// never the end-of-set marker.
#[test]
fn a_reader_without_coherent_access_never_sees_the_marker() {
    let mut net = SimNet::in_domains(&[0, 0], SEED, |_| {});
    net.run_for(100);
    let now = net.now();
    let w = net.nodes[0].p.create_writer(
        now,
        writer(presentation(PresentationAccessScope::Topic, true, false)),
    );
    let r = net.nodes[1]
        .p
        .create_reader(now, reader(Presentation::default()));
    net.run_for(300);
    net.nodes[0].p.begin_coherent_changes(&[w]);
    write(&mut net, w, 1, 10);
    net.run_for(5);
    assert_eq!(take_values(&mut net, r), vec![10], "not held back");
    let now = net.now();
    net.nodes[0].p.end_coherent_changes(now, &[w]).unwrap();
    write(&mut net, w, 1, 11);
    net.run_for(5);
    assert_eq!(take_values(&mut net, r), vec![11]);
}

/// Two writers of one publisher end their sets together: both end-of-set markers leave in one
/// datagram (`merge`), and the two readers then take whole sets.
#[test]
fn the_ends_of_a_publishers_sets_leave_in_one_datagram() {
    use crate::wire::Message;
    use crate::wire::submessage::{DataPayload, Submessage, SubmessageOutcome};
    let mut net = SimNet::in_domains(&[0, 0], SEED, |_| {});
    net.run_for(100);
    let now = net.now();
    let p = presentation(PresentationAccessScope::Group, true, false);
    let mut second = writer(p);
    second.topic_name = "Circle".to_string();
    let mut second_reader = reader(p);
    second_reader.topic_name = "Circle".to_string();
    let w1 = net.nodes[0].p.create_writer(now, writer(p));
    let w2 = net.nodes[0].p.create_writer(now, second);
    let r1 = net.nodes[1].p.create_reader(now, reader(p));
    let r2 = net.nodes[1].p.create_reader(now, second_reader);
    net.run_for(300);
    assert_eq!(net.nodes[0].p.matched_readers(w1), 1);
    assert_eq!(net.nodes[0].p.matched_readers(w2), 1);
    net.nodes[0].p.begin_coherent_changes(&[w1, w2]);
    write(&mut net, w1, 1, 1);
    write(&mut net, w2, 1, 2);
    net.run_for(5);
    let now = net.now();
    net.nodes[0].p.end_coherent_changes(now, &[w1, w2]).unwrap();
    let mut markers_per_datagram = Vec::new();
    while let Some(t) = net.nodes[0].p.poll_transmit(now) {
        let bytes = t.datagram().into_owned();
        let (_, subs) = Message::parse(&bytes).unwrap();
        let markers = subs
            .filter(|s| {
                matches!(s, SubmessageOutcome::Accept(Submessage::Data(d))
                    if matches!(d.payload, DataPayload::None))
            })
            .count();
        markers_per_datagram.push(markers);
    }
    assert!(
        markers_per_datagram.contains(&2),
        "{markers_per_datagram:?}"
    );
    // Those datagrams were taken here, not sent: the writers repair the markers after the
    // readers' ACKNACKs, and the sets then complete.
    assert_eq!(take_values(&mut net, r1), Vec::<u32>::new());
    let (mut got1, mut got2) = (Vec::new(), Vec::new());
    net.run_until(5_000, |n| {
        got1.extend(take_values(n, r1));
        got2.extend(take_values(n, r2));
        !got1.is_empty() && !got2.is_empty()
    });
    assert_eq!((got1, got2), (vec![1], vec![2]));
}

/// `merge`: same destinations are joined behind one RTPS header (INFO_DST(UNKNOWN) in front
/// of a writer's submessages unless they start with their own INFO_DST), other destinations
/// and what would pass the size cap stay separate.
#[test]
fn merge_joins_messages_to_the_same_destinations_within_the_cap() {
    use crate::core::Transmit;
    use crate::core::participant::coherent::{MAX_MERGED, merge};
    use crate::wire::{GuidPrefix, Header, Locator};
    let header = {
        let mut b = Vec::new();
        Header::new(GuidPrefix([3; 12])).emit(&mut b);
        b
    };
    let msg = |body: &[u8]| {
        let mut b = header.clone();
        b.extend_from_slice(body);
        b
    };
    let a = Locator::udpv4([127, 0, 0, 1], 7411);
    let b = Locator::udpv4([127, 0, 0, 1], 7413);
    // A HEARTBEAT-shaped body (id 0x07) and one starting with INFO_DST (id 0x0e).
    let hb = [0x07, 0x01, 0x04, 0x00, 1, 2, 3, 4];
    let dst = [0x0e, 0x01, 0x0c, 0x00, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9];
    let out = merge(vec![
        Transmit::new(vec![a], msg(&hb)),
        Transmit::new(vec![a], msg(&hb)),
        Transmit::new(vec![a], msg(&dst)),
        Transmit::new(vec![b], msg(&hb)),
    ]);
    assert_eq!(out.len(), 2);
    let first = &out[0].payload;
    // header + hb + INFO_DST(UNKNOWN) (16) + hb + dst (its own INFO_DST, nothing added)
    assert_eq!(first.len(), Header::LEN + 8 + 16 + 8 + 16);
    assert_eq!(first[Header::LEN + 8], 0x0e);
    assert_eq!(&first[Header::LEN + 8 + 4..Header::LEN + 8 + 16], &[0; 12]);
    assert_eq!(out[1].destinations, vec![b]);
    // Two messages that would pass the cap together stay apart.
    let big = vec![0x07u8; MAX_MERGED - Header::LEN];
    let out = merge(vec![
        Transmit::new(vec![a], msg(&big)),
        Transmit::new(vec![a], msg(&hb)),
    ]);
    assert_eq!(out.len(), 2);
    assert!(out.iter().all(|t| t.payload.len() <= MAX_MERGED));
}
