//! Peer-group caching end to end over the simulated network (issue 18): two member writers
//! (nodes 0, 1), the intermediary (node 2, a reliable reader on the topic, as the router's
//! proxy reader), and a standard reader (node 3, not capable). Over random seeds at 20 %
//! loss, with a capacity of 2 and 5 rotating common sets, an intermediary restart and a
//! writer leaving the group: every reader gets every sample of each writer in order and
//! byte-identical to what was written (nothing wrongly restored, nothing lost), the
//! non-capable reader never gets an abbreviated sample, and the counters show the cache
//! worked. Must not: sleep or open sockets (manual clock).
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use proptest::prelude::*;

use crate::cdr::Endianness;
use crate::core::participant::{ReaderSpec, WriterSpec};
use crate::core::peer_group::config::{ParticipantMatch, PeerGroupConfig};
use crate::core::peer_group::tests::{common_names, sample, vehicle};
use crate::core::sim::{Faults, SimNet};
use crate::core::{ChangeKind, WriteRequest};
use crate::qos::{DataReaderQos, DataWriterQos, Durability, History, Reliability};
use crate::wire::Guid;

pub(super) const TOPIC: &str = "Vehicles";

pub(super) fn fast(config: &mut crate::core::participant::ParticipantConfig) {
    config.announce_period = core::time::Duration::from_millis(100);
    config.lease_duration = core::time::Duration::from_secs(1);
}

/// The group as every node configures it: members nodes 0 and 1 (`members`), the
/// intermediary node 2 at its current prefix.
fn group(net: &SimNet, members: &[usize], capacity: usize) -> PeerGroupConfig {
    let names: Vec<&str> = common_names().leak().iter().map(|s| s.as_str()).collect();
    let mut g = PeerGroupConfig::new(
        "fleet",
        TOPIC,
        &names,
        ParticipantMatch::Prefix(net.nodes[2].p.guid_prefix().0),
    );
    g.capacity = capacity;
    g.members = members
        .iter()
        .map(|&i| ParticipantMatch::Prefix(net.nodes[i].p.guid_prefix().0))
        .collect();
    g
}

fn configure(net: &mut SimNet, members: &[usize], capacity: usize) {
    let g = group(net, members, capacity);
    for i in 0..4 {
        net.nodes[i].p.set_peer_groups(vec![g.clone()]).unwrap();
    }
}

pub(super) fn writer_spec(keyed: bool) -> WriterSpec {
    let qos = DataWriterQos {
        history: History::KeepAll,
        reliability: Reliability::reliable(),
        durability: Durability::TransientLocal,
        ..DataWriterQos::default()
    };
    let mut s = WriterSpec::new(TOPIC, "Vehicle", keyed, qos);
    s.descriptor = Some(Arc::new(vehicle()));
    s
}

pub(super) fn reader_spec(keyed: bool) -> ReaderSpec {
    let qos = DataReaderQos {
        history: History::KeepAll,
        reliability: Reliability::reliable(),
        durability: Durability::TransientLocal,
        ..DataReaderQos::default()
    };
    ReaderSpec::new(TOPIC, "Vehicle", keyed, qos)
}

/// The samples a reader took (payload, key hash), per writer, in order.
pub(super) type Got = BTreeMap<Guid, Vec<(Vec<u8>, Option<[u8; 16]>)>>;

pub(super) fn take(net: &mut SimNet, node: usize, reader: Guid, got: &mut Got) {
    let now = net.now();
    while let Some(c) = net.nodes[node].p.take(now, reader) {
        got.entry(c.writer_guid)
            .or_default()
            .push((c.data.to_vec(), c.key_hash));
    }
}

struct Run {
    writers: [Guid; 2],
    /// Intermediary reader, standard reader.
    readers: [Guid; 2],
    written: Got,
    keyed: bool,
}

fn setup(seed: u64, capacity: usize, keyed: bool) -> (SimNet, Run) {
    let mut net = SimNet::new(4, seed, fast);
    configure(&mut net, &[0, 1], capacity);
    net.run_for(300);
    let now = net.now();
    let w0 = net.nodes[0].p.create_writer(now, writer_spec(keyed));
    let w1 = net.nodes[1].p.create_writer(now, writer_spec(keyed));
    let r2 = net.nodes[2].p.create_reader(now, reader_spec(keyed));
    let r3 = net.nodes[3].p.create_reader(now, reader_spec(keyed));
    let ok = net.run_until(5_000, |n| {
        n.nodes[0].p.matched_readers(w0) == 2 && n.nodes[1].p.matched_readers(w1) == 2
    });
    assert!(ok, "no match");
    let run = Run {
        writers: [w0, w1],
        readers: [r2, r3],
        written: Got::new(),
        keyed,
    };
    (net, run)
}

/// Writes `count` samples from each writer, from index `from`, rotating over 5 common sets
/// (8 samples each, 30 ms apart).
fn write(net: &mut SimNet, run: &mut Run, from: u32, count: u32, got: &mut [Got; 2]) {
    for i in from..from + count {
        for (k, &w) in run.writers.iter().enumerate() {
            let n = i * 2 + k as u32;
            let data = sample(Endianness::Little, (i as usize / 8) % 5, n);
            // Keyed: one instance per writer and common set.
            let key = run.keyed.then_some([k as u8 * 8 + (i / 8 % 5) as u8; 16]);
            run.written.entry(w).or_default().push((data.clone(), key));
            let now = net.now();
            let req = WriteRequest::new(ChangeKind::Alive, key, Bytes::from(data));
            net.nodes[k].p.write(now, w, req).unwrap();
        }
        // 30 ms per sample: a set lasts a few heartbeat periods (100 ms), so definitions
        // are acknowledged while their set is in use.
        net.run_for(30);
        take(net, 2, run.readers[0], &mut got[0]);
        take(net, 3, run.readers[1], &mut got[1]);
    }
}

fn settle(net: &mut SimNet, run: &Run, got: &mut [Got; 2]) -> bool {
    let [w0, w1] = run.writers;
    let acked = net.run_until(60_000, |n| {
        n.nodes[0].p.all_acked(w0) && n.nodes[1].p.all_acked(w1)
    });
    take(net, 2, run.readers[0], &mut got[0]);
    take(net, 3, run.readers[1], &mut got[1]);
    acked
}

#[test]
fn lossless_two_members_abbreviate_towards_the_intermediary_only() {
    let (mut net, mut run) = setup(1, 64, false);
    let mut got = [Got::new(), Got::new()];
    write(&mut net, &mut run, 0, 60, &mut got);
    assert!(settle(&mut net, &run, &mut got));
    assert_eq!(got[0], run.written, "intermediary");
    assert_eq!(got[1], run.written, "standard reader");
    let w0 = net.nodes[0].p.peer_group_stats().writers;
    let w1 = net.nodes[1].p.peer_group_stats().writers;
    let i = net.nodes[2].p.peer_group_stats().cache;
    // A definition goes with each sample of a new set until it is acknowledged.
    assert!(w0.abbreviated >= 20 && w0.defines >= 5, "{w0:?}");
    // Lossless: every abbreviated sample was restored, none missed.
    assert_eq!(i.hits, w0.abbreviated + w1.abbreviated, "{i:?}");
    // Every abbreviated sample named its definition by alias, and every alias was bound.
    assert_eq!(w0.aliased, w0.abbreviated, "{w0:?}");
    assert_eq!(i.unbound_aliases, 0, "{i:?}");
    assert!(w0.upstream_bytes < 60 * sample(Endianness::Little, 4, 0).len() as u64);
    assert_eq!(
        (i.misses, i.refused_non_member, i.refused_bad),
        (0, 0, 0),
        "{i:?}"
    );
    // The standard reader's participant is no intermediary: no cache, nothing restored.
    assert_eq!(net.nodes[3].p.peer_group_stats().cache.hits, 0);
    assert_eq!(net.nodes[3].p.stats().not_understood, 0);
}

#[test]
fn a_definition_from_a_writer_outside_the_group_is_refused_and_counted() {
    let (mut net, mut run) = setup(2, 64, true);
    // Node 1 believes it is a member; the intermediary's configuration says otherwise.
    let only0 = group(&net, &[0], 64);
    net.nodes[2].p.set_peer_groups(vec![only0]).unwrap();
    let mut got = [Got::new(), Got::new()];
    write(&mut net, &mut run, 0, 30, &mut got);
    assert!(settle(&mut net, &run, &mut got));
    assert_eq!(got[0], run.written);
    assert_eq!(got[1], run.written);
    let i = net.nodes[2].p.peer_group_stats().cache;
    assert!(i.refused_non_member > 0, "{i:?}");
    assert!(i.hits > 0, "{i:?}");
}

proptest! {
    // 8 cases by default; PROPTEST_CASES still overrides it: `proptest!` applies the
    // environment (`contextualize_config`) on top of this literal.
    #![proptest_config(ProptestConfig { cases: 8, failure_persistence: None, ..ProptestConfig::default() })]

    /// 20 % loss each way, capacity 2 with 5 rotating sets (evictions), the intermediary
    /// restarting, then writer 1 leaving the group: every sample of each writer, in order,
    /// byte-identical, at both readers.
    #[test]
    fn loss_eviction_restart_and_leaving_lose_nothing_and_restore_nothing_wrong(seed in any::<u64>(), keyed in any::<bool>()) {
        let (mut net, mut run) = setup(seed, 2, keyed);
        net.faults = Faults { loss_percent: 20, ..Faults::default() };
        let mut got = [Got::new(), Got::new()];
        write(&mut net, &mut run, 0, 40, &mut got);
        prop_assert!(settle(&mut net, &run, &mut got));
        let before = net.nodes[2].p.peer_group_stats().cache;
        prop_assert!(before.evictions > 0, "{:?}", before);
        prop_assert_eq!(&got[0], &run.written);

        // The intermediary restarts (a new participant, all state lost) and is configured
        // again; its new reader gets the writers' history (TRANSIENT_LOCAL).
        net.restart(2);
        configure(&mut net, &[0, 1], 2);
        let now = net.now();
        run.readers[0] = net.nodes[2].p.create_reader(now, reader_spec(keyed));
        got[0].clear();
        write(&mut net, &mut run, 40, 30, &mut got);
        prop_assert!(settle(&mut net, &run, &mut got));

        // Writer 1 leaves the group (every node's configuration).
        configure(&mut net, &[0], 2);
        write(&mut net, &mut run, 70, 30, &mut got);
        prop_assert!(settle(&mut net, &run, &mut got));
        prop_assert_eq!(&got[0], &run.written, "intermediary");
        prop_assert_eq!(&got[1], &run.written, "standard reader");
        let after = net.nodes[2].p.peer_group_stats().cache;
        prop_assert!(before.hits + after.hits > 0, "{:?} {:?}", before, after);
        prop_assert_eq!(after.refused_bad, 0);
    }
}

/// docs/peer-group-cache.md §9: a restarted intermediary's generation takes every octet of
/// its GUID prefix, not only the first four (two of which are the vendor id): prefixes that
/// differ in any single bit start different generations (before, a flip past the fourth
/// octet kept the generation).
#[test]
fn the_first_generation_depends_on_every_octet_of_the_prefix() {
    use crate::core::participant::peer_group::first_generation;
    use crate::wire::GuidPrefix;
    let base = GuidPrefix([0x01, 0xf0, 0x12, 0x34, 5, 6, 7, 8, 9, 10, 11, 12]);
    let g = first_generation(base);
    for i in 0..12 {
        for bit in 0..8 {
            let mut p = base;
            p.0[i] ^= 1 << bit;
            assert_ne!(first_generation(p), g, "octet {i} bit {bit}");
        }
    }
}
