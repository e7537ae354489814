//! Property tests on the simulated network (issue 7 §2): for random seeds, with loss,
//! duplication and reordering, reliable KEEP_ALL delivers every sample exactly once and in
//! order (fragmented ones included), a KEEP_LAST reader keeps the newest sample of each
//! instance, a restarted reader or writer is rediscovered and served, and a silent
//! participant's lease expires. Must not: sleep or open sockets (manual clock).

use bytes::Bytes;
use proptest::prelude::*;

use super::*;
use crate::core::participant::{ReaderSpec, WriterSpec};
use crate::core::{ChangeKind, Event, WriteRequest};
use crate::qos::{DataReaderQos, DataWriterQos, History, Reliability};
use crate::wire::Guid;

/// Fast discovery: announcements every 100 ms, leases of 1 s.
fn fast(config: &mut ParticipantConfig) {
    config.announce_period = core::time::Duration::from_millis(100);
    config.lease_duration = core::time::Duration::from_secs(1);
}

fn writer_spec(history: History) -> WriterSpec {
    let qos = DataWriterQos {
        history,
        reliability: Reliability::reliable(),
        ..DataWriterQos::default()
    };
    WriterSpec::new("Sim", "SimType", true, qos)
}

fn reader_spec(history: History) -> ReaderSpec {
    let qos = DataReaderQos {
        history,
        reliability: Reliability::reliable(),
        ..DataReaderQos::default()
    };
    ReaderSpec::new("Sim", "SimType", true, qos)
}

/// Sample `i` of instance `key`: CDR_LE header, the index, the key, then padding to `len`.
fn payload(i: u32, key: u8, len: usize) -> Bytes {
    let mut p = vec![0u8, 1, 0, 0];
    p.extend_from_slice(&i.to_le_bytes());
    p.push(key);
    p.resize(len.max(p.len()), i as u8);
    Bytes::from(p)
}

fn index_of(data: &[u8]) -> u32 {
    u32::from_le_bytes([data[4], data[5], data[6], data[7]])
}

/// Node 0 writes, node 1 reads; returns (writer, reader) once matched both ways.
fn matched_pair(net: &mut SimNet, wh: History, rh: History) -> (Guid, Guid) {
    net.run_for(300);
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, writer_spec(wh));
    let r = net.nodes[1].p.create_reader(now, reader_spec(rh));
    let matched = net.run_until(5_000, |n| {
        n.nodes[0].p.matched_readers(w) == 1 && n.nodes[1].p.matched_writers(r) == 1
    });
    assert!(matched, "no match");
    (w, r)
}

fn take_all(net: &mut SimNet, r: Guid) -> Vec<(u32, u8)> {
    let now = net.now();
    std::iter::from_fn(|| net.nodes[1].p.take(now, r))
        .map(|c| (index_of(&c.data), c.data[8]))
        .collect()
}

fn rough_faults() -> Faults {
    Faults {
        loss_percent: 20,
        duplicate_percent: 5,
        reorder_percent: 10,
        reorder_max_us: 3_000,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn reliable_keep_all_delivers_each_sample_once_in_order_under_loss_duplication_and_reordering(seed in any::<u64>()) {
        let mut net = SimNet::new(2, seed, fast);
        let (w, r) = matched_pair(&mut net, History::KeepAll, History::KeepAll);
        net.faults = rough_faults();
        let mut got = Vec::new();
        for i in 0u32..300 {
            // Every 25th sample is fragmented (5 fragments of 1024).
            let len = if i % 25 == 0 { 5000 } else { 16 };
            let now = net.now();
            net.nodes[0].p.write(now, w, WriteRequest::new(ChangeKind::Alive, Some([1; 16]), payload(i, 1, len))).unwrap();
            net.step(200);
            got.extend(take_all(&mut net, r).into_iter().map(|(i, _)| i));
        }
        let acked = net.run_until(60_000, |n| n.nodes[0].p.all_acked(w));
        got.extend(take_all(&mut net, r).into_iter().map(|(i, _)| i));
        prop_assert!(acked, "not all acknowledged (lost {} of {})", net.lost, net.delivered + net.lost);
        prop_assert_eq!(got, (0..300).collect::<Vec<_>>());
    }

    #[test]
    fn keep_last_reader_keeps_the_newest_sample_of_each_instance(seed in any::<u64>()) {
        let mut net = SimNet::new(2, seed, fast);
        let (w, r) = matched_pair(&mut net, History::KeepAll, History::KeepLast(1));
        net.faults = rough_faults();
        for i in 0u32..120 {
            let key = (i % 4) as u8;
            let now = net.now();
            net.nodes[0].p.write(now, w, WriteRequest::new(ChangeKind::Alive, Some([key; 16]), payload(i, key, 16))).unwrap();
            net.step(100);
        }
        prop_assert!(net.run_until(60_000, |n| n.nodes[0].p.all_acked(w)));
        let mut got = take_all(&mut net, r);
        got.sort_by_key(|&(_, k)| k);
        // Nothing taken before: each instance holds only its last sample, 116..119.
        prop_assert_eq!(got, vec![(116, 0), (117, 1), (118, 2), (119, 3)]);
    }
}

#[test]
fn a_restarted_reader_is_rediscovered_and_served_and_the_old_one_expires() {
    let mut net = SimNet::new(2, 7, fast);
    net.faults = Faults {
        loss_percent: 10,
        ..Faults::default()
    };
    let (w, _) = matched_pair(&mut net, History::KeepAll, History::KeepAll);
    let old = net.nodes[1].p.guid_prefix();
    net.restart(1);
    let now = net.now();
    let r = net.nodes[1]
        .p
        .create_reader(now, reader_spec(History::KeepAll));
    // The new reader matches; the old one's lease (1 s) expires and it is unmatched.
    let ok = net.run_until(5_000, |n| {
        n.nodes[1].p.matched_writers(r) == 1
            && n.nodes[0].p.matched_readers(w) == 1
            && !n.nodes[0]
                .p
                .remote_participants()
                .any(|p| p.guid_prefix == old)
    });
    assert!(ok, "matched readers {}", net.nodes[0].p.matched_readers(w));
    let lost: Vec<Event> = std::iter::from_fn(|| net.nodes[0].p.poll_event()).collect();
    assert!(lost.contains(&Event::ParticipantLost(old)), "{lost:?}");
    for i in 0u32..50 {
        let now = net.now();
        net.nodes[0]
            .p
            .write(
                now,
                w,
                WriteRequest::new(ChangeKind::Alive, Some([2; 16]), payload(i, 2, 16)),
            )
            .unwrap();
        net.step(200);
    }
    assert!(net.run_until(20_000, |n| n.nodes[0].p.all_acked(w)));
    let got: Vec<u32> = take_all(&mut net, r).into_iter().map(|(i, _)| i).collect();
    assert_eq!(got, (0..50).collect::<Vec<_>>());
}

#[test]
fn a_restarted_writer_is_rediscovered_by_the_reader() {
    let mut net = SimNet::new(2, 11, fast);
    net.faults = Faults {
        loss_percent: 10,
        ..Faults::default()
    };
    let (_, r) = matched_pair(&mut net, History::KeepAll, History::KeepAll);
    net.restart(0);
    let now = net.now();
    let w = net.nodes[0]
        .p
        .create_writer(now, writer_spec(History::KeepAll));
    let ok = net.run_until(5_000, |n| {
        n.nodes[0].p.matched_readers(w) == 1 && n.nodes[1].p.matched_writers(r) == 1
    });
    assert!(
        ok,
        "reader matched {} writers",
        net.nodes[1].p.matched_writers(r)
    );
    for i in 0u32..50 {
        let now = net.now();
        net.nodes[0]
            .p
            .write(
                now,
                w,
                WriteRequest::new(ChangeKind::Alive, Some([3; 16]), payload(i, 3, 16)),
            )
            .unwrap();
        net.step(200);
    }
    assert!(net.run_until(20_000, |n| n.nodes[0].p.all_acked(w)));
    let got: Vec<u32> = take_all(&mut net, r).into_iter().map(|(i, _)| i).collect();
    assert_eq!(got, (0..50).collect::<Vec<_>>());
}

#[test]
fn a_silenced_participant_expires_after_its_lease_and_its_endpoints_unmatch() {
    let mut net = SimNet::new(2, 3, fast);
    let (w, _) = matched_pair(&mut net, History::KeepAll, History::KeepAll);
    net.silenced.push(1);
    let start = net.now;
    assert!(net.run_until(5_000, |n| n.nodes[0].p.matched_readers(w) == 0));
    let waited_ms = (net.now - start) / 1_000_000;
    // Not before the 1 s lease, and not much after it (checked on the next announcement).
    assert!(
        (1_000..=1_500).contains(&waited_ms),
        "unmatched after {waited_ms} ms"
    );
}

/// A matched KEEP_ALL writer (with `fragment_size`) and reader on a fault-free start, then
/// 20 % loss from here on.
fn keep_all_pair_at_twenty_percent_loss(seed: u64, fragment_size: usize) -> (SimNet, Guid, Guid) {
    let mut net = SimNet::new(2, seed, fast);
    net.run_for(300);
    let now = net.now();
    let spec = WriterSpec {
        fragment_size,
        ..writer_spec(History::KeepAll)
    };
    let w = net.nodes[0].p.create_writer(now, spec);
    let r = net.nodes[1]
        .p
        .create_reader(now, reader_spec(History::KeepAll));
    assert!(
        net.run_until(5_000, |n| n.nodes[0].p.matched_readers(w) == 1
            && n.nodes[1].p.matched_writers(r) == 1)
    );
    net.faults = Faults {
        loss_percent: 20,
        ..Faults::default()
    };
    (net, w, r)
}

#[test]
fn large_fragments_sent_from_the_stored_sample_arrive_intact_under_loss() {
    // 30 000-byte fragments go out as splices of the stored sample (gather I/O), the short
    // last one copied; SimNet assembles each datagram as the transport's gather send would.
    let (mut net, w, r) = keep_all_pair_at_twenty_percent_loss(23, 30_000);
    let sent: Vec<Bytes> = (0u32..20).map(|i| payload(i, 1, 100_000)).collect();
    for p in &sent {
        let now = net.now();
        net.nodes[0]
            .p
            .write(
                now,
                w,
                WriteRequest::new(ChangeKind::Alive, Some([1; 16]), p.clone()),
            )
            .unwrap();
        net.step(200);
    }
    assert!(net.run_until(60_000, |n| n.nodes[0].p.all_acked(w)));
    let now = net.now();
    let got: Vec<Bytes> = std::iter::from_fn(|| net.nodes[1].p.take(now, r))
        .map(|c| c.data)
        .collect();
    assert_eq!(got, sent);
}

#[test]
fn large_unfragmented_samples_spliced_into_shared_datagrams_arrive_intact_under_loss() {
    // 20 000-byte samples under a 60 000-byte fragment size: a datagram carries up to three
    // DATA, the first spliced from the stored sample, the others copied.
    let (mut net, w, r) = keep_all_pair_at_twenty_percent_loss(29, 60_000);
    let sent: Vec<Bytes> = (0u32..30).map(|i| payload(i, 1, 20_000)).collect();
    for burst in sent.chunks(3) {
        let now = net.now();
        for p in burst {
            net.nodes[0]
                .p
                .write(
                    now,
                    w,
                    WriteRequest::new(ChangeKind::Alive, Some([1; 16]), p.clone()),
                )
                .unwrap();
        }
        net.step(200);
    }
    assert!(net.run_until(60_000, |n| n.nodes[0].p.all_acked(w)));
    let now = net.now();
    let got: Vec<Bytes> = std::iter::from_fn(|| net.nodes[1].p.take(now, r))
        .map(|c| c.data)
        .collect();
    assert_eq!(got, sent);
}
