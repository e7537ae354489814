//! A reliable reader that never acknowledges (issue 15): after the unresponsive timeout it no
//! longer holds a KEEP_ALL writer back, the healthy reader gets every sample, and the stuck
//! one is served again once it acknowledges; a remote lease is capped. Deterministic: the
//! simulated LAN and a manual clock.
#![allow(clippy::arithmetic_side_effects)]

use bytes::Bytes;

use crate::core::participant::*;
use crate::core::sim::SimNet;
use crate::core::writer::WriteError;
use crate::core::{ChangeKind, WriteRequest};
use crate::qos::{DataReaderQos, DataWriterQos, History, Length, Reliability, ResourceLimits};

const TIMEOUT: core::time::Duration = core::time::Duration::from_secs(2);

fn configure(c: &mut ParticipantConfig) {
    c.unresponsive_reader_timeout = TIMEOUT;
    c.max_lease_duration = core::time::Duration::from_secs(30);
}

/// Node 0: a KEEP_ALL reliable writer holding at most 50 samples; nodes 1 and 2: reliable
/// KEEP_ALL readers, matched.
fn writer_and_two_readers() -> (SimNet, Guid, Guid, Guid) {
    let mut net = SimNet::new(3, 0xbad5eed, configure);
    net.run_for(100);
    let now = net.now();
    let wq = DataWriterQos {
        history: History::KeepAll,
        reliability: Reliability::reliable(),
        resource_limits: ResourceLimits {
            max_samples: Length::Limited(50),
            ..ResourceLimits::default()
        },
        ..DataWriterQos::default()
    };
    let rq = DataReaderQos {
        history: History::KeepAll,
        reliability: Reliability::reliable(),
        ..DataReaderQos::default()
    };
    let w = net.nodes[0]
        .p
        .create_writer(now, WriterSpec::new("Square", "ShapeType", true, wq));
    let healthy = net.nodes[1].p.create_reader(
        now,
        ReaderSpec::new("Square", "ShapeType", true, rq.clone()),
    );
    let stuck = net.nodes[2]
        .p
        .create_reader(now, ReaderSpec::new("Square", "ShapeType", true, rq));
    net.run_for(300);
    assert_eq!(net.nodes[0].p.matched_readers(w), 2);
    (net, w, healthy, stuck)
}

/// Writes `n` samples, one per millisecond when the history has room (else waits a
/// millisecond and tries again, as a blocking write would), taking what node 1 receives.
/// Returns (samples taken by node 1, simulated ms spent).
fn write_all(net: &mut SimNet, w: Guid, healthy: Guid, n: u32) -> (usize, u64) {
    let (mut taken, start) = (0, net.now);
    let mut i = 0;
    while i < n {
        let now = net.now();
        let payload = Bytes::from([vec![0u8, 1, 0, 0], i.to_le_bytes().to_vec()].concat());
        let req = WriteRequest::new(ChangeKind::Alive, Some([1; 16]), payload);
        match net.nodes[0].p.write(now, w, req) {
            Ok(_) => i += 1,
            Err(WriteError::HistoryFull) => {}
            Err(e) => panic!("{e:?}"),
        }
        net.run_for(1);
        let now = net.now();
        while net.nodes[1].p.take(now, healthy).is_some() {
            taken += 1;
        }
        assert!(net.now - start < 60_000_000_000, "writer blocked for good");
    }
    net.run_for(500);
    let now = net.now();
    while net.nodes[1].p.take(now, healthy).is_some() {
        taken += 1;
    }
    (taken, (net.now - start) / 1_000_000)
}

#[test]
fn a_keep_all_writer_with_a_stuck_reader_keeps_serving_the_healthy_one() {
    let (mut net, w, healthy, stuck) = writer_and_two_readers();
    // Node 2 goes silent: it never acknowledges again (its SPDP and ACKNACKs are dropped).
    net.silenced.push(2);
    let (taken, ms) = write_all(&mut net, w, healthy, 500);
    assert_eq!(taken, 500);
    let c = net.nodes[0].p.writer_counters(w).unwrap();
    assert_eq!(c.readers_marked_unresponsive, 1, "{c:?}");
    // Blocked for about the timeout (50 samples fit at once), not for the stuck reader's lease.
    assert!(ms < TIMEOUT.as_millis() as u64 + 2_000, "{ms} ms");
    // It answers again: acknowledged progress makes it a reader the writer waits for again.
    net.silenced.clear();
    net.run_for(1_000);
    let c = net.nodes[0].p.writer_counters(w).unwrap();
    assert_eq!(c.readers_recovered, 1, "{c:?}");
    let _ = stuck;
    let (taken, _) = write_all(&mut net, w, healthy, 20);
    assert_eq!(taken, 20);
    let now = net.now();
    let mut out = Vec::new();
    net.nodes[2].p.take_all(now, stuck, &mut out);
    let got = out.len();
    assert!(
        got >= 20,
        "the recovered reader gets the new samples: {got}"
    );
}

#[test]
fn without_a_stuck_reader_no_reader_is_marked() {
    let (mut net, w, healthy, _) = writer_and_two_readers();
    let (taken, _) = write_all(&mut net, w, healthy, 300);
    assert_eq!(taken, 300);
    let c = net.nodes[0].p.writer_counters(w).unwrap();
    assert_eq!(c.readers_marked_unresponsive, 0, "{c:?}");
}

#[test]
fn an_announced_lease_is_capped() {
    let mut net = SimNet::new(2, 7, |c| {
        c.lease_duration = core::time::Duration::from_secs(100_000);
        c.max_lease_duration = core::time::Duration::from_secs(30);
    });
    net.run_for(100);
    assert_eq!(net.nodes[0].p.remote_participants().count(), 1);
    // Node 1 goes silent; its 100,000 s lease is held to 30 s.
    net.silenced.push(1);
    net.run_for(29_000);
    assert_eq!(net.nodes[0].p.remote_participants().count(), 1);
    net.run_for(2_000);
    assert_eq!(net.nodes[0].p.remote_participants().count(), 0);
}

#[test]
fn a_forgotten_participant_gets_no_more_heartbeats() {
    // Node 2 restarts (new GUID prefix, same locators): its old reader stays matched until
    // its lease ends, never acknowledges, and gets the writer's HEARTBEATs meanwhile. A
    // caller that knows it is gone (`router::link::replaced`) forgets it: none after that.
    let (mut net, w, healthy, _stuck) = writer_and_two_readers();
    let (taken, _) = write_all(&mut net, w, healthy, 20);
    assert_eq!(taken, 20);
    let old = net.nodes[2].p.guid_prefix();
    net.restart(2);
    let heartbeats = |net: &SimNet| {
        net.nodes[0]
            .p
            .writer_counters(w)
            .map_or(0, |c| c.heartbeats_sent)
    };
    // Written after the restart: the healthy reader acknowledges them, the old one cannot.
    assert_eq!(write_all(&mut net, w, healthy, 5).0, 5);
    let before = heartbeats(&net);
    net.run_for(5_000);
    let to_the_old = heartbeats(&net) - before;
    eprintln!("HEARTBEATs in 5 s, the old reader matched: {to_the_old}");
    assert!(to_the_old > 0, "the old reader is still served");
    assert!(net.nodes[0].p.forget_participant(old));
    assert!(!net.nodes[0].p.forget_participant(old), "known no more");
    assert_eq!(net.nodes[0].p.matched_readers(w), 1);
    assert_eq!(write_all(&mut net, w, healthy, 5).0, 5);
    let before = heartbeats(&net);
    net.run_for(5_000);
    let after = heartbeats(&net) - before;
    eprintln!("HEARTBEATs in 5 s after forgetting it: {after}");
    assert_eq!(after, 0);
}
