//! The participant's tests, one module per topic under `tests/`. Here: participants in a
//! deterministic in-memory network (discovery, matching, reliable delivery under loss,
//! incompatible QoS, lease expiry, the remote writer index) with the helpers the topic
//! modules share. No sockets, no sleeps: a manual clock.
#![allow(clippy::arithmetic_side_effects)]

use bytes::Bytes;

use super::*;
use crate::core::discovery::ContentFilter;
use crate::core::sim::SimNet;
use crate::core::{CacheChange, ChangeKind, WriteRequest};
use crate::qos::{DataReaderQos, DataWriterQos, History, Reliability};
use crate::types::{ShapeType, TopicType};

/// The seed of these tests' channel (only the lossy ones draw from it).
const SEED: u64 = 0x2545_f491_4f6c_dd1d;

/// One participant per entry of `domains` on the simulated LAN, default configuration.
fn lan(domains: &[u32]) -> SimNet {
    SimNet::in_domains(domains, SEED, |_| {})
}

fn writer_spec(reliable: bool) -> WriterSpec {
    let reliability = if reliable {
        Reliability::reliable()
    } else {
        Reliability::best_effort()
    };
    let qos = DataWriterQos {
        history: History::KeepAll,
        reliability,
        ..DataWriterQos::default()
    };
    WriterSpec::new("Square", "ShapeType", true, qos)
}

fn reader_spec(reliable: bool) -> ReaderSpec {
    let reliability = if reliable {
        Reliability::reliable()
    } else {
        Reliability::best_effort()
    };
    let qos = DataReaderQos {
        history: History::KeepAll,
        reliability,
        ..DataReaderQos::default()
    };
    ReaderSpec::new("Square", "ShapeType", true, qos)
}

#[test]
fn participants_discover_each_other_and_match_endpoints() {
    let mut net = lan(&[0, 0]);
    net.run_for(100);
    assert!(
        net.events(0)
            .contains(&Event::ParticipantDiscovered(net.nodes[1].p.guid_prefix()))
    );
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, writer_spec(true));
    let r = net.nodes[1].p.create_reader(now, reader_spec(true));
    net.run_for(200);
    assert!(net.events(0).contains(&Event::PublicationMatched {
        writer: w,
        reader: r,
        matched: true
    }));
    assert!(net.events(1).contains(&Event::SubscriptionMatched {
        reader: r,
        writer: w,
        matched: true
    }));
    assert_eq!(net.nodes[0].p.matched_readers(w), 1);
}

/// The remote writer → matched local readers index (`Endpoints`) follows every match,
/// unmatch and reader deletion, and a sample reaches exactly the readers it lists.
#[test]
fn the_remote_writer_index_follows_matches_unmatches_and_reader_deletion() {
    let mut net = lan(&[0, 0]);
    net.run_for(100);
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, writer_spec(true));
    let r1 = net.nodes[1].p.create_reader(now, reader_spec(true));
    let r2 = net.nodes[1].p.create_reader(now, reader_spec(true));
    let mut other = reader_spec(true);
    other.topic_name = "Circle".into();
    let r3 = net.nodes[1].p.create_reader(now, other);
    net.run_for(300);
    let consistent = |net: &SimNet| {
        let p = &net.nodes[1].p;
        p.endpoints
            .index_is_consistent(&p.discovery.remote_writer_guids())
    };
    assert!(consistent(&net));
    assert_eq!(net.nodes[1].p.endpoints.readers_of(w), vec![r1, r2]);
    assert_eq!(net.nodes[1].p.matched_writers(r3), 0);

    let now = net.now();
    let sample = Bytes::from_static(&[0, 1, 0, 0, 7, 0, 0, 0]);
    let request = WriteRequest::new(ChangeKind::Alive, Some([1; 16]), sample);
    net.nodes[0].p.write(now, w, request).unwrap();
    net.run_for(100);
    let now = net.now();
    assert!(net.nodes[1].p.take(now, r1).is_some());
    assert!(net.nodes[1].p.take(now, r2).is_some());
    assert!(net.nodes[1].p.take(now, r3).is_none());

    net.nodes[1].p.delete_reader(now, r1);
    assert!(consistent(&net));
    assert_eq!(net.nodes[1].p.endpoints.readers_of(w), vec![r2]);

    net.nodes[0].p.delete_writer(now, w);
    net.run_for(300);
    assert!(consistent(&net));
    assert!(net.nodes[1].p.endpoints.readers_of(w).is_empty());
    assert!(net.events(1).contains(&Event::SubscriptionMatched {
        reader: r2,
        writer: w,
        matched: false
    }));
}

#[test]
fn reliable_keep_all_delivers_every_sample_in_order_at_twenty_percent_loss() {
    let mut net = lan(&[0, 0]);
    net.run_for(100);
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, writer_spec(true));
    let r = net.nodes[1].p.create_reader(now, reader_spec(true));
    net.run_for(300);
    net.faults.loss_percent = 20;
    let mut got = Vec::new();
    for i in 0u32..500 {
        let now = net.now();
        // Every 50th sample is fragmented (fragment_size 1024).
        let len = if i % 50 == 0 { 5000 } else { 8 };
        let mut payload = vec![0u8, 1, 0, 0];
        payload.extend_from_slice(&i.to_le_bytes());
        payload.resize(len, 0xaa);
        net.nodes[0]
            .p
            .write(
                now,
                w,
                WriteRequest::new(ChangeKind::Alive, Some([1; 16]), Bytes::from(payload)),
            )
            .unwrap();
        net.run_for(1);
        let now = net.now();
        while let Some(c) = net.nodes[1].p.take(now, r) {
            got.push(u32::from_le_bytes(c.data[4..8].try_into().unwrap()));
        }
    }
    for _ in 0..2000 {
        if net.nodes[0].p.all_acked(w) {
            break;
        }
        net.run_for(50);
    }
    let now = net.now();
    while let Some(c) = net.nodes[1].p.take(now, r) {
        got.push(u32::from_le_bytes(c.data[4..8].try_into().unwrap()));
    }
    assert_eq!(got, (0..500).collect::<Vec<_>>());
    assert!(net.nodes[0].p.all_acked(w));
}

#[test]
fn best_effort_writer_and_reliable_reader_report_incompatible_reliability_on_both_sides() {
    let mut net = lan(&[0, 0]);
    net.run_for(100);
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, writer_spec(false));
    let r = net.nodes[1].p.create_reader(now, reader_spec(true));
    net.run_for(300);
    let reliability = crate::qos::QosPolicyId::Reliability;
    let offered = net.events(0).into_iter().any(|e| {
        matches!(e,
        Event::OfferedIncompatibleQos { writer, reader, policies }
            if writer == w && reader == r && policies.contains(reliability))
    });
    let requested = net.events(1).into_iter().any(|e| {
        matches!(e,
        Event::RequestedIncompatibleQos { reader, writer, policies }
            if writer == w && reader == r && policies.contains(reliability))
    });
    assert!(offered && requested);
    assert_eq!(net.nodes[0].p.matched_readers(w), 0);
}

/// DDS-XTypes 1.3 §7.6.3.1.2 through SEDP: the reader's list (empty = XCDR) must contain the
/// writer's first id (empty = XCDR). The writer's participant judges a remote reader, the
/// reader's a remote writer; both see the ids the other announced (PID_DATA_REPRESENTATION).
#[test]
fn data_representation_matching_follows_the_writers_first_id_on_both_sides() {
    use crate::qos::{DataRepresentation, QosPolicyId};
    const X1: i16 = DataRepresentation::XCDR;
    const X2: i16 = DataRepresentation::XCDR2;
    let cases: &[(&[i16], &[i16], bool)] = &[
        (&[], &[], true),
        (&[X2], &[], false),
        (&[X2], &[X1, X2], true),
        (&[X2, X1], &[X1], false),
        (&[], &[X2], false),
        (&[X1], &[X2, X1], true),
    ];
    for &(w_ids, r_ids, compatible) in cases {
        let mut net = lan(&[0, 0]);
        net.run_for(100);
        let now = net.now();
        let mut ws = writer_spec(true);
        ws.qos.data_representation = DataRepresentation::new(w_ids.iter().copied());
        let mut rs = reader_spec(true);
        rs.qos.data_representation = DataRepresentation::new(r_ids.iter().copied());
        let w = net.nodes[0].p.create_writer(now, ws);
        let r = net.nodes[1].p.create_reader(now, rs);
        net.run_for(300);
        let repr = QosPolicyId::DataRepresentation;
        let offered = net.events(0).into_iter().any(|e| {
            matches!(e,
            Event::OfferedIncompatibleQos { writer, reader, policies }
                if writer == w && reader == r && policies.contains(repr))
        });
        let requested = net.events(1).into_iter().any(|e| {
            matches!(e,
            Event::RequestedIncompatibleQos { reader, writer, policies }
                if writer == w && reader == r && policies.contains(repr))
        });
        let case = format!("writer {w_ids:?} reader {r_ids:?}");
        assert_eq!((offered, requested), (!compatible, !compatible), "{case}");
        assert_eq!(
            net.nodes[0].p.matched_readers(w),
            usize::from(compatible),
            "{case}"
        );
        assert_eq!(
            net.nodes[1].p.matched_writers(r),
            usize::from(compatible),
            "{case}"
        );
    }
}

#[test]
fn participants_in_different_domains_do_not_discover_each_other() {
    let mut net = lan(&[0, 1]);
    net.run_for(500);
    assert_eq!(net.nodes[0].p.remote_participants().count(), 0);
    assert_eq!(net.nodes[1].p.remote_participants().count(), 0);
}

#[test]
fn a_silent_participant_is_dropped_when_its_lease_expires_and_unmatched() {
    let mut net = lan(&[0, 0]);
    net.run_for(100);
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, writer_spec(true));
    let r = net.nodes[1].p.create_reader(now, reader_spec(true));
    net.run_for(300);
    net.events(0);
    net.silenced.push(1);
    net.run_for(19_000);
    assert_eq!(
        net.nodes[0].p.remote_participants().count(),
        1,
        "lease is 20 s"
    );
    net.run_for(2_000);
    let events = net.events(0);
    assert!(events.contains(&Event::ParticipantLost(net.nodes[1].p.guid_prefix())));
    assert!(events.contains(&Event::PublicationMatched {
        writer: w,
        reader: r,
        matched: false
    }));
}

#[test]
fn a_participant_whose_announcements_are_lost_stays_alive_while_its_data_arrives() {
    let mut net = lan(&[0, 0]);
    net.run_for(100);
    let now = net.now();
    let w = net.nodes[1].p.create_writer(now, writer_spec(true));
    let r = net.nodes[0].p.create_reader(now, reader_spec(true));
    net.run_for(300);
    net.events(0);
    net.unannounced.push(1);
    for i in 0u32..60 {
        let now = net.now();
        let payload = Bytes::from(
            [0u8, 1, 0, 0]
                .into_iter()
                .chain(i.to_le_bytes())
                .collect::<Vec<_>>(),
        );
        net.nodes[1]
            .p
            .write(
                now,
                w,
                WriteRequest::new(ChangeKind::Alive, Some([1; 16]), payload),
            )
            .unwrap();
        net.run_for(1_000);
    }
    // 60 s without an SPDP announcement from node 1, three leases, yet its data kept coming.
    assert!(
        !net.events(0)
            .contains(&Event::ParticipantLost(net.nodes[1].p.guid_prefix()))
    );
    assert_eq!(net.nodes[0].p.matched_writers(r), 1);
}

#[test]
fn deleting_a_reader_unmatches_it_at_the_remote_writer() {
    let mut net = lan(&[0, 0]);
    net.run_for(100);
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, writer_spec(true));
    let r = net.nodes[1].p.create_reader(now, reader_spec(true));
    net.run_for(300);
    net.events(0);
    let now = net.now();
    net.nodes[1].p.delete_reader(now, r);
    net.run_for(300);
    assert!(net.events(0).contains(&Event::PublicationMatched {
        writer: w,
        reader: r,
        matched: false
    }));
}

#[test]
fn a_leaving_participant_is_dropped_and_unmatched_at_once() {
    let mut net = lan(&[0, 0]);
    net.run_for(100);
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, writer_spec(true));
    let r = net.nodes[1].p.create_reader(now, reader_spec(true));
    net.run_for(300);
    net.events(0);
    let now = net.now();
    net.nodes[1].p.leave(now);
    // The announcement goes out without any time passing: no lease has to run out.
    net.flush();
    assert_eq!(net.nodes[0].p.remote_participants().count(), 0);
    let events = net.events(0);
    assert!(
        events.contains(&Event::ParticipantLost(net.nodes[1].p.guid_prefix())),
        "{events:?}"
    );
    assert!(events.contains(&Event::PublicationMatched {
        writer: w,
        reader: r,
        matched: false
    }));
}

#[test]
fn the_event_queue_keeps_the_newest_events_when_full() {
    let lost = |i: usize| {
        let mut prefix = [0u8; 12];
        prefix[..8].copy_from_slice(&(i as u64).to_be_bytes());
        Event::ParticipantLost(GuidPrefix(prefix))
    };
    let mut q = EventQueue::default();
    for i in 0..MAX_QUEUED_EVENTS + 2 {
        q.push(lost(i));
    }
    assert_eq!(q.pop(), Some(lost(2)));
    let mut rest = 1;
    while q.pop().is_some() {
        rest += 1;
    }
    assert_eq!(rest, MAX_QUEUED_EVENTS);
}

#[cfg(feature = "security")]
mod access;
mod coherent;
mod content_filter;
#[cfg(feature = "security")]
mod crypto;
mod discovery;
#[cfg(feature = "security")]
mod discovery_protection;
mod durability;
mod filter_event;
mod group;
mod liveliness;
#[cfg(feature = "security")]
mod origin;
mod peer_group;
mod peer_group_faults;
#[cfg(feature = "security")]
mod protected_filter;
#[cfg(feature = "security")]
mod protection;
#[cfg(feature = "security")]
mod security;
mod source;
mod stuck_reader;
mod type_match;
mod writer_presence;
