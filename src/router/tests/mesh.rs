//! The router core in a simulated full mesh of three routers (discovery rounds, forwarding
//! over links that duplicate and reorder), and PID_ORIGINAL_WRITER_INFO through real core
//! endpoints on `SimNet` at 20 % loss.

use std::collections::BTreeMap;

use bytes::Bytes;

use super::*;
use crate::test_rng::Rng;
use crate::wire::SequenceNumber;

/// A simulated full mesh of three routers, each with a LAN (site 0) and links to the two
/// others (sites 1, 2). Discovery: each link's view is the peer's proxy readers on it.
struct Mesh {
    routers: Vec<Router>,
    /// Per router: live proxy readers (id → spec) and downstream writers (id → spec).
    readers: Vec<BTreeMap<EndpointId, ProxyReaderSpec>>,
    writers: Vec<BTreeMap<EndpointId, RouteWriterSpec>>,
    lan_readers: Vec<Vec<DiscoveredReader>>,
}

/// The link site of router `i` towards router `j`.
fn link(i: usize, j: usize) -> SiteId {
    SiteId(if (i + 1) % 3 == j { 1 } else { 2 })
}

impl Mesh {
    fn new() -> Self {
        Mesh {
            routers: (1..=3)
                .map(|id| Router::new(RouterId(id), TopicRules::all(), RepositoryLimits::default()))
                .collect(),
            readers: vec![BTreeMap::new(); 3],
            writers: vec![BTreeMap::new(); 3],
            lan_readers: vec![Vec::new(); 3],
        }
    }

    /// One round of discovery; the number of actions it caused.
    fn round(&mut self, now: Instant) -> usize {
        let mut n = 0;
        for i in 0..3 {
            let mut lan = view(None, self.lan_readers[i].clone());
            lan.writers.push(DiscoveredWriter {
                guid: guid(50 + i as u8, 2),
                key: key("Sq"),
                class: RELIABLE,
                history: History::KeepAll,
            });
            self.routers[i].update_site(now, SiteId(0), lan);
            for j in (0..3).filter(|&j| j != i) {
                let theirs: Vec<DiscoveredReader> = self.readers[j]
                    .iter()
                    .filter(|(_, s)| s.site == link(j, i))
                    .map(|(id, s)| DiscoveredReader {
                        guid: guid(j as u8 + 100, *id as u8),
                        key: s.key.clone(),
                        class: s.class,
                        representation: 0,
                        exclusive: false,
                        filter: s.filter.clone(),
                        path: s.path.clone(),
                    })
                    .collect();
                self.routers[i].update_site(now, link(i, j), view(Some(j as u64 + 1), theirs));
            }
            self.routers[i].handle_timeout(now);
            while let Some(a) = self.routers[i].poll_action() {
                n += 1;
                match a {
                    Action::CreateReader { id, spec, .. } => {
                        self.readers[i].insert(id, spec);
                    }
                    Action::DeleteReader { id, .. } => {
                        self.readers[i].remove(&id);
                    }
                    Action::CreateWriter { id, spec, .. } => {
                        self.writers[i].insert(id, spec);
                    }
                    Action::DeleteWriter { id, .. } => {
                        self.writers[i].remove(&id);
                    }
                    // Links only: no site is contested, so no witness is ever made.
                    Action::CreateWitness { .. } | Action::DeleteWitness { .. } => {
                        panic!("a witness in a mesh of links: {a:?}")
                    }
                }
            }
        }
        n
    }

    fn converge(&mut self, from_ms: u64) -> u64 {
        for r in 0..20 {
            if self.round(at(from_ms + r * 3000)) == 0 {
                return r;
            }
        }
        panic!("no convergence in 20 rounds: {:?}", self.readers);
    }
}

#[test]
fn a_cycle_of_three_routers_converges_delivers_exactly_once_and_unwinds() {
    let mut mesh = Mesh::new();
    for i in 0..3 {
        mesh.lan_readers[i] = vec![reader(10 + i as u8, "Sq", None, &[])];
    }
    let rounds = mesh.converge(0);
    assert!(rounds <= 6, "{rounds} rounds");
    // Each router has proxies on its LAN and its links, none with a loop in its path.
    for (i, rs) in mesh.readers.iter().enumerate() {
        for s in rs.values() {
            let me = RouterId(i as u64 + 1);
            assert_eq!(s.path.iter().filter(|r| **r == me).count(), 1, "{s:?}");
        }
    }
    // Data: a writer on every LAN, 50 samples each; link deliveries interleaved at random,
    // every copy duplicated with 20 % probability.
    let mut rng = Rng::new(7);
    let mut delivered: Vec<Vec<(Guid, i64)>> = vec![Vec::new(); 3];
    // (to router, on its site, change)
    let mut wire: Vec<(usize, SiteId, CacheChange)> = Vec::new();
    for i in 0..3 {
        let w = guid(50 + i as u8, 2);
        for sn in 1..=50 {
            wire.push((
                i,
                SiteId(0),
                change(w, sn, ChangeKind::Alive, (sn % 5) as u8),
            ));
        }
    }
    let mut steps = 0;
    while !wire.is_empty() {
        steps += 1;
        assert!(steps < 100_000, "a forwarding storm");
        // In order per (router, site): take the first entry of a random (router, site).
        let pick = rng.below(wire.len());
        let (to, site) = (wire[pick].0, wire[pick].1);
        let idx = wire
            .iter()
            .position(|(t, s, _)| *t == to && *s == site)
            .unwrap();
        let (i, site, c) = wire.remove(idx);
        let proxies: Vec<EndpointId> = mesh.readers[i]
            .iter()
            .filter(|(_, s)| s.site == site)
            .map(|(id, _)| *id)
            .collect();
        for p in proxies {
            for f in mesh.routers[i].on_change(at(100_000), p, &c) {
                if f.site == SiteId(0) {
                    let id = f.request.original_writer.unwrap();
                    delivered[i].push((id.writer_guid, id.sequence_number.0));
                    continue;
                }
                let copies = if rng.chance(20) { 2 } else { 1 };
                let j = (0..3).find(|&j| j != i && link(i, j) == f.site).unwrap();
                let relayed = relayed(i, &f, steps);
                for _ in 0..copies {
                    wire.push((j, link(j, i), relayed.clone()));
                }
            }
        }
    }
    // Every LAN got the other two LANs' 100 samples, each once and in order per writer,
    // although the mesh delivered redundant copies (the repositories dropped them).
    for (i, d) in delivered.iter().enumerate() {
        assert_eq!(d.len(), 100, "LAN {i}: {d:?}");
        for w in (0..3).filter(|&w| w != i) {
            let sns: Vec<i64> = d
                .iter()
                .filter(|(g, _)| *g == guid(50 + w as u8, 2))
                .map(|(_, sn)| *sn)
                .collect();
            assert_eq!(sns, (1..=50).collect::<Vec<_>>(), "LAN {i} from {w}");
        }
    }
    let duplicates: u64 = mesh
        .routers
        .iter()
        .map(|r| r.counters().repository.duplicates)
        .sum();
    assert!(duplicates > 0, "the mesh made redundant copies");
    // Every reader leaves: every endpoint goes, nothing keeps a loop alive.
    for i in 0..3 {
        mesh.lan_readers[i].clear();
    }
    mesh.converge(200_000);
    assert!(
        mesh.readers.iter().all(BTreeMap::is_empty),
        "{:?}",
        mesh.readers
    );
    assert!(mesh.writers.iter().all(BTreeMap::is_empty));
}

/// PID_ORIGINAL_WRITER_INFO end to end through real core endpoints on the simulated network
/// at 20 % loss, 5 % duplication and 10 % reordering: every relayed change (fragmented ones
/// included) arrives once, in order, with the identity the router wrote.
#[test]
fn original_writer_info_crosses_a_lossy_simulated_network() {
    use crate::core::participant::{ReaderSpec, WriterSpec};
    use crate::core::sim::{Faults, SimNet};
    use crate::qos::{DataReaderQos, DataWriterQos, Reliability};
    for seed in [1u64, 2, 3] {
        let mut net = SimNet::new(2, seed, |c| {
            c.announce_period = core::time::Duration::from_millis(100);
        });
        net.run_for(300);
        let now = net.now();
        let wq = DataWriterQos {
            history: History::KeepAll,
            reliability: Reliability::reliable(),
            ..DataWriterQos::default()
        };
        let rq = DataReaderQos {
            history: History::KeepAll,
            reliability: Reliability::reliable(),
            ..DataReaderQos::default()
        };
        let w = net.nodes[0]
            .p
            .create_writer(now, WriterSpec::new("R", "T", true, wq));
        let r = net.nodes[1]
            .p
            .create_reader(now, ReaderSpec::new("R", "T", true, rq));
        assert!(
            net.run_until(5_000, |n| n.nodes[0].p.matched_readers(w) == 1
                && n.nodes[1].p.matched_writers(r) == 1)
        );
        net.faults = Faults {
            loss_percent: 20,
            duplicate_percent: 5,
            reorder_percent: 10,
            reorder_max_us: 3_000,
        };
        let origin = guid(77, 2);
        let mut got = Vec::new();
        for i in 0..100i64 {
            let len = if i % 20 == 0 { 4000 } else { 12 };
            let mut data = vec![0u8, 1, 0, 0];
            data.resize(len, i as u8);
            let id = SampleIdentity {
                writer_guid: origin,
                sequence_number: SequenceNumber(1000 + i),
            };
            let request = WriteRequest::new(ChangeKind::Alive, Some([1; 16]), Bytes::from(data))
                .with_original_writer(Some(id));
            let now = net.now();
            net.nodes[0].p.write(now, w, request).unwrap();
            net.step(200);
            let now = net.now();
            got.extend(std::iter::from_fn(|| net.nodes[1].p.take(now, r)));
        }
        assert!(net.run_until(60_000, |n| n.nodes[0].p.all_acked(w)));
        let now = net.now();
        got.extend(std::iter::from_fn(|| net.nodes[1].p.take(now, r)));
        let ids: Vec<i64> = got
            .iter()
            .map(|c| {
                let id = c.original_writer.expect("the identity crossed");
                assert_eq!(id.writer_guid, origin);
                id.sequence_number.0
            })
            .collect();
        assert_eq!(ids, (1000..1100).collect::<Vec<_>>(), "seed {seed}");
    }
}
