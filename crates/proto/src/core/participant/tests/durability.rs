//! The participant's durability service on the simulated network: TRANSIENT history outlives
//! its writer, a new writer takes over from the service writer, PERSISTENT writes hand out
//! store actions and a restored history reaches late joiners; RxO matching of the four
//! durability kinds as the OMG interoperability suite expects.
#![allow(clippy::arithmetic_side_effects)]

use bytes::Bytes;

use crate::core::durability::{DurableSample, StoreAction};
use crate::core::participant::*;
use crate::core::sim::SimNet;
use crate::core::{ChangeKind, WriteRequest};
use crate::qos::{
    DataReaderQos, DataWriterQos, Durability, DurabilityService, History, QosPolicyId, Reliability,
};
use crate::time::Timestamp;

fn writer(durability: Durability) -> WriterSpec {
    let qos = DataWriterQos {
        history: History::KeepAll,
        reliability: Reliability::reliable(),
        durability,
        durability_service: DurabilityService {
            history: History::KeepLast(3),
            ..DurabilityService::default()
        },
        ..DataWriterQos::default()
    };
    WriterSpec::new("Square", "ShapeType", true, qos)
}

fn reader(durability: Durability) -> ReaderSpec {
    let qos = DataReaderQos {
        history: History::KeepAll,
        reliability: Reliability::reliable(),
        durability,
        ..DataReaderQos::default()
    };
    ReaderSpec::new("Square", "ShapeType", true, qos)
}

fn write(net: &mut SimNet, w: Guid, key: u8, value: u8) {
    let now = net.now();
    let payload = Bytes::from(vec![0, 1, 0, 0, key, value]);
    let request = WriteRequest::new(ChangeKind::Alive, Some([key; 16]), payload);
    net.nodes[0].p.write(now, w, request).unwrap();
    net.flush();
}

/// (key, value) of every ALIVE sample `r` on node 1 has, taken (instance-state changes
/// are dropped).
fn taken(net: &mut SimNet, r: Guid) -> Vec<(u8, u8)> {
    let now = net.now();
    std::iter::from_fn(|| net.nodes[1].p.take(now, r))
        .filter(|c| c.kind == ChangeKind::Alive)
        .map(|c| (c.data[4], c.data[5]))
        .collect()
}

/// Node 0 writes key 1 four times and key 2 once with a TRANSIENT writer that node 1's
/// reader `early` receives; returns (net, writer, early).
fn transient_topic_written() -> (SimNet, Guid, Guid) {
    let mut net = SimNet::new(2, 7, |_| {});
    net.run_for(100);
    let now = net.now();
    let w = net.nodes[0]
        .p
        .create_writer(now, writer(Durability::Transient));
    let early = net.nodes[1]
        .p
        .create_reader(now, reader(Durability::Transient));
    net.run_for(300);
    for v in 1..=4 {
        write(&mut net, w, 1, v);
    }
    write(&mut net, w, 2, 9);
    net.run_for(300);
    (net, w, early)
}

#[test]
fn transient_history_outlives_its_writer_and_reaches_a_late_reader_once() {
    let (mut net, w, early) = transient_topic_written();
    assert_eq!(taken(&mut net, early).len(), 5);
    let now = net.now();
    net.nodes[0].p.delete_writer(now, w);
    net.run_for(500);
    let service = net.nodes[0].p.durability_service_writer("Square");
    assert!(service.is_some_and(|s| s != w));
    let now = net.now();
    let late = net.nodes[1]
        .p
        .create_reader(now, reader(Durability::Transient));
    net.run_for(500);
    // DURABILITY_SERVICE KEEP_LAST(3): the last three of key 1, the one of key 2.
    let mut got = taken(&mut net, late);
    got.sort();
    assert_eq!(got, vec![(1, 2), (1, 3), (1, 4), (2, 9)]);
    // The reader that had it from the deleted writer is not sent it again.
    assert_eq!(taken(&mut net, early), vec![]);
}

#[test]
fn a_new_transient_writer_takes_over_the_history_from_the_service_writer() {
    let (mut net, w, early) = transient_topic_written();
    taken(&mut net, early);
    let now = net.now();
    net.nodes[0].p.delete_writer(now, w);
    net.run_for(500);
    let now = net.now();
    let w2 = net.nodes[0]
        .p
        .create_writer(now, writer(Durability::Transient));
    assert_eq!(net.nodes[0].p.durability_service_writer("Square"), None);
    write(&mut net, w2, 3, 1);
    net.run_for(300);
    let now = net.now();
    let late = net.nodes[1]
        .p
        .create_reader(now, reader(Durability::TransientLocal));
    net.run_for(500);
    assert_eq!(taken(&mut net, late).len(), 5);
    // The early reader gets the new sample only (it matched the service writer, which the new
    // writer replaced).
    assert_eq!(taken(&mut net, early), vec![(3, 1)]);
    assert_eq!(net.nodes[0].p.durable_samples("Square"), 5);
}

#[test]
fn transient_local_history_does_not_outlive_its_writer() {
    let mut net = SimNet::new(2, 7, |_| {});
    net.run_for(100);
    let now = net.now();
    let w = net.nodes[0]
        .p
        .create_writer(now, writer(Durability::TransientLocal));
    write(&mut net, w, 1, 1);
    let now = net.now();
    net.nodes[0].p.delete_writer(now, w);
    assert_eq!(net.nodes[0].p.durability_service_writer("Square"), None);
    assert_eq!(net.nodes[0].p.durable_samples("Square"), 0);
    assert!(net.nodes[0].p.take_store_actions().is_empty());
}

#[test]
fn persistent_writes_hand_out_puts_and_the_evictions_as_removes() {
    let mut net = SimNet::new(2, 7, |_| {});
    let now = net.now();
    let w = net.nodes[0]
        .p
        .create_writer(now, writer(Durability::Persistent));
    for v in 1..=4 {
        write(&mut net, w, 1, v);
    }
    let actions = net.nodes[0].p.take_store_actions();
    let puts = actions
        .iter()
        .filter(|a| matches!(a, StoreAction::Put { topic, .. } if topic == "Square"))
        .count();
    assert_eq!(puts, 4);
    // The fourth write evicts the first (KEEP_LAST(3)).
    assert_eq!(
        actions.last(),
        Some(&StoreAction::Remove {
            topic: "Square".into(),
            id: 1
        })
    );
    assert!(net.nodes[0].p.take_store_actions().is_empty());
}

#[test]
fn a_restored_persistent_history_reaches_a_late_reader_of_the_new_writer() {
    let mut net = SimNet::new(2, 7, |_| {});
    net.run_for(100);
    let loaded = (1..=2)
        .map(|v| DurableSample {
            id: u64::from(v),
            kind: ChangeKind::Alive,
            key_hash: Some([5; 16]),
            data: Bytes::from(vec![0, 1, 0, 0, 5, v]),
            source_timestamp: Timestamp {
                seconds: 1,
                fraction: 0,
            },
        })
        .collect();
    let spec = writer(Durability::Persistent);
    let ds = spec.qos.durability_service.clone();
    net.nodes[0]
        .p
        .restore_persistent("Square", "ShapeType", ds, loaded);
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, spec);
    write(&mut net, w, 5, 3);
    let now = net.now();
    let late = net.nodes[1]
        .p
        .create_reader(now, reader(Durability::Persistent));
    net.run_for(500);
    assert_eq!(taken(&mut net, late), vec![(5, 1), (5, 2), (5, 3)]);
    // The new write continues the ids after the restored ones.
    let ids: Vec<u64> = net.nodes[0]
        .p
        .take_store_actions()
        .into_iter()
        .filter_map(|a| match a {
            StoreAction::Put { sample, .. } => Some(sample.id),
            StoreAction::Remove { .. } => None,
        })
        .collect();
    assert_eq!(ids, vec![3]);
}

#[test]
fn a_persistent_writer_after_transient_ones_has_the_store_mirror_the_topic_history() {
    let mut net = SimNet::new(2, 7, |_| {});
    let now = net.now();
    let t = net.nodes[0]
        .p
        .create_writer(now, writer(Durability::Transient));
    write(&mut net, t, 1, 1);
    write(&mut net, t, 2, 1);
    assert!(net.nodes[0].p.take_store_actions().is_empty());
    let now = net.now();
    let p = net.nodes[0]
        .p
        .create_writer(now, writer(Durability::Persistent));
    let ids: Vec<u64> = (net.nodes[0].p.take_store_actions().into_iter())
        .filter_map(|a| match a {
            StoreAction::Put { sample, .. } => Some(sample.id),
            StoreAction::Remove { .. } => None,
        })
        .collect();
    assert_eq!(ids, vec![1, 2]);
    // Later writes of either writer are stored too: the topic is PERSISTENT now.
    write(&mut net, t, 3, 1);
    write(&mut net, p, 4, 1);
    assert_eq!(net.nodes[0].p.take_store_actions().len(), 2);
}

/// OMG dds-rtps test_suite.py Test_Durability_0..15: a writer matches a reader when its
/// kind is at least the reader's (VOLATILE < TRANSIENT_LOCAL < TRANSIENT < PERSISTENT), and
/// both sides report an incompatible DURABILITY otherwise. DDS 1.4 §2.2.3.4.
#[test]
fn durability_kinds_match_as_the_interoperability_suite_expects() {
    use Durability::*;
    let kinds = [Volatile, TransientLocal, Transient, Persistent];
    for (wi, wk) in kinds.iter().enumerate() {
        for (ri, rk) in kinds.iter().enumerate() {
            let mut net = SimNet::new(2, 7, |_| {});
            let now = net.now();
            let w = net.nodes[0].p.create_writer(now, writer(*wk));
            let r = net.nodes[1].p.create_reader(now, reader(*rk));
            net.run_for(300);
            let (pub_events, sub_events) = (net.events(0), net.events(1));
            let matched = pub_events.contains(&Event::PublicationMatched {
                writer: w,
                reader: r,
                matched: true,
            });
            let offered_bad = pub_events.iter().any(|e| {
                matches!(e, Event::OfferedIncompatibleQos { policies, .. }
                    if policies.first() == Some(QosPolicyId::Durability))
            });
            let requested_bad = sub_events.iter().any(|e| {
                matches!(e, Event::RequestedIncompatibleQos { policies, .. }
                    if policies.first() == Some(QosPolicyId::Durability))
            });
            let ok = wi >= ri;
            assert_eq!(
                (matched, offered_bad, requested_bad),
                (ok, !ok, !ok),
                "{wk:?} writer, {rk:?} reader"
            );
        }
    }
}
