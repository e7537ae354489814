use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use crate::test_rng::Rng;

fn at(ms: u64) -> Instant {
    Instant::from_nanos(ms * 1_000_000)
}

/// Routers 1..=n joined by links (a, b, cost); router i's link to j is its site j (so each
/// router has at most one link per peer), every router serves one LAN whose writers'
/// participant is `[i; 12]` and reads topic "T" when `reads[i]`.
struct Net {
    paths: Vec<Paths>,
    links: Vec<(usize, usize, u32)>,
    /// Links cut (both directions lose everything).
    cut: BTreeSet<(usize, usize)>,
    /// Routers stopped (send and hear nothing).
    dead: BTreeSet<usize>,
    reads: Vec<bool>,
    loss: u64,
    rng: Rng,
    now: u64,
    /// Heartbeats sent so far (all routers).
    sent: u64,
}

fn site(j: usize) -> SiteId {
    SiteId(j as u16 + 1)
}

fn prefix(i: usize) -> GuidPrefix {
    GuidPrefix([i as u8; 12])
}

impl Net {
    fn new(
        n: usize,
        links: Vec<(usize, usize, u32)>,
        reads: Vec<bool>,
        loss: u64,
        seed: u64,
    ) -> Self {
        let mut paths: Vec<Paths> = (0..n)
            .map(|i| Paths::new(RouterId(i as u64 + 1), Detection::default(), 0))
            .collect();
        for &(a, b, c) in &links {
            paths[a].add_link(site(b), c);
            paths[b].add_link(site(a), c);
        }
        for (i, p) in paths.iter_mut().enumerate() {
            let topics: Vec<String> = if reads[i] { vec!["T".into()] } else { vec![] };
            p.set_local(at(0), vec![prefix(i)], &topics);
        }
        Net {
            paths,
            links,
            cut: BTreeSet::new(),
            dead: BTreeSet::new(),
            reads,
            loss,
            rng: Rng::new(seed),
            now: 0,
            sent: 0,
        }
    }

    fn live(&self, a: usize, b: usize) -> bool {
        !self.cut.contains(&(a.min(b), a.max(b)))
            && !self.dead.contains(&a)
            && !self.dead.contains(&b)
    }

    /// Runs the heartbeats for `ms` in steps of 50 ms (a heartbeat arrives in the step it
    /// is sent, or is lost).
    fn run(&mut self, ms: u64) {
        let end = self.now + ms;
        while self.now < end {
            self.now += 50;
            let now = at(self.now);
            for i in 0..self.paths.len() {
                if self.dead.contains(&i) {
                    continue;
                }
                self.paths[i].handle_timeout(now);
                let Some((sites, bytes)) = self.paths[i].poll_heartbeat(now) else {
                    continue;
                };
                self.sent += 1;
                for s in sites {
                    let j = usize::from(s.0) - 1;
                    if !self.live(i, j) || self.rng.chance(self.loss) {
                        continue;
                    }
                    self.paths[j].handle_heartbeat(now, site(i), &bytes);
                }
            }
        }
    }

    /// The shortest-path tree every router should compute from `origin` over the live links
    /// (ties to the lower parent id), computed here independently (Bellman-Ford).
    fn expected_parents(&self, origin: usize) -> BTreeMap<usize, Option<usize>> {
        let n = self.paths.len();
        let mut dist: Vec<Option<u64>> = vec![None; n];
        let mut parent: Vec<Option<usize>> = vec![None; n];
        if self.dead.contains(&origin) {
            return BTreeMap::new();
        }
        dist[origin] = Some(0);
        for _ in 0..n {
            for &(a, b, c) in &self.links {
                if !self.live(a, b) {
                    continue;
                }
                for (u, v) in [(a, b), (b, a)] {
                    let Some(du) = dist[u] else { continue };
                    let nd = du + u64::from(c.max(1));
                    if dist[v].is_none_or(|dv| nd < dv) {
                        dist[v] = Some(nd);
                        parent[v] = Some(u);
                    }
                }
            }
        }
        // Ties: the lowest-id neighbour on a shortest path.
        for v in 0..n {
            if v == origin || dist[v].is_none() {
                continue;
            }
            let best = self
                .links
                .iter()
                .filter(|&&(a, b, _)| self.live(a, b))
                .filter_map(|&(a, b, c)| {
                    let u = if a == v {
                        b
                    } else if b == v {
                        a
                    } else {
                        return None;
                    };
                    (dist[u]? + u64::from(c.max(1)) == dist[v]?).then_some(u)
                })
                .min();
            parent[v] = best;
        }
        (0..n)
            .filter(|&v| dist[v].is_some())
            .map(|v| (v, parent[v]))
            .collect()
    }

    /// Whether every live router computes the expected tree for every live origin.
    fn agrees(&mut self) -> bool {
        let n = self.paths.len();
        let live: Vec<usize> = (0..n).filter(|o| !self.dead.contains(o)).collect();
        for &o in &live {
            let want = self.expected_parents(o);
            for &i in &live {
                for v in 0..n {
                    let got =
                        self.paths[i].parent_in(RouterId(o as u64 + 1), RouterId(v as u64 + 1));
                    let exp = want.get(&v).map(|p| p.map(|p| RouterId(p as u64 + 1)));
                    // Routers outside `i`'s component: `i` cannot know, skip.
                    if want.contains_key(&i) && got != exp {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// One sample from `origin`'s LAN, forwarded by the decisions: the routers whose LAN
    /// got it (each at most once: a router delivers only the first copy, as its repository
    /// does) and the link crossings.
    fn send(&mut self, origin: usize) -> (Vec<usize>, BTreeMap<(usize, usize), u32>) {
        let o = RouterId(origin as u64 + 1);
        let mut crossings: BTreeMap<(usize, usize), u32> = BTreeMap::new();
        let mut delivered = Vec::new();
        let mut seen = BTreeSet::new();
        // (router, site it was read on)
        let mut queue = vec![(origin, SiteId(0))];
        let mut steps = 0;
        while let Some((i, from)) = queue.pop() {
            steps += 1;
            assert!(steps < 10_000, "a forwarding storm");
            let accept = self.paths[i].rpf(o, from);
            assert_ne!(
                accept,
                Rpf::Unknown,
                "router {i}, origin {origin}, from {from:?}"
            );
            if accept == Rpf::Reject || !seen.insert(i) {
                continue;
            }
            if i != origin && self.reads[i] {
                delivered.push(i);
            }
            for j in 0..self.paths.len() {
                if site(j) == from || !self.paths[i].is_link(site(j)) {
                    continue;
                }
                if self.paths[i].onto(o, "T", site(j)) == Some(true) {
                    assert!(self.live(i, j), "onto a dead link {i}->{j}");
                    *crossings.entry((i, j)).or_default() += 1;
                    queue.push((j, site(i)));
                }
            }
        }
        delivered.sort();
        (delivered, crossings)
    }

    /// Checks each origin's sample in the converged state: delivered exactly once to every
    /// reading router reachable, each link at most once, and exactly the links of the
    /// pruned tree (the ideal).
    fn check_forwarding(&mut self) -> Result<(), TestCaseError> {
        let n = self.paths.len();
        let live: Vec<usize> = (0..n).filter(|o| !self.dead.contains(o)).collect();
        for o in live {
            let tree = self.expected_parents(o);
            let want: Vec<usize> = (0..n)
                .filter(|&i| i != o && self.reads[i] && tree.contains_key(&i))
                .collect();
            let (got, crossings) = self.send(o);
            prop_assert_eq!(&got, &want, "origin {}", o);
            prop_assert!(crossings.values().all(|&c| c == 1), "{:?}", crossings);
            // The ideal: the tree links with a reader at or below their far end.
            let ideal = (0..n)
                .filter(|&v| tree.get(&v).copied().flatten().is_some())
                .filter(|&v| {
                    (0..n).any(|r| {
                        self.reads[r] && tree.contains_key(&r) && {
                            let mut x = r;
                            loop {
                                if x == v {
                                    break true;
                                }
                                match tree.get(&x).copied().flatten() {
                                    Some(p) => x = p,
                                    None => break false,
                                }
                            }
                        }
                    })
                })
                .count();
            prop_assert_eq!(crossings.len(), ideal, "origin {}: {:?}", o, crossings);
        }
        Ok(())
    }
}

fn ring(n: usize) -> Vec<(usize, usize, u32)> {
    (0..n).map(|i| (i, (i + 1) % n, 1)).collect()
}

#[test]
fn a_heartbeat_round_trips_and_bad_ones_are_dropped() {
    let a = Advert {
        router: RouterId(7),
        seq: 3,
        neighbours: vec![(RouterId(1), 2), (RouterId(9), 1)],
        origins: vec![GuidPrefix([1; 12])],
        topics: Some(vec!["Circle".into(), "Square".into()]),
    };
    let b = Advert {
        topics: None,
        ..a.clone()
    };
    let bytes = encode(RouterId(7), &[&a, &b]);
    assert_eq!(decode(&bytes), Some((RouterId(7), vec![a, b])));
    for cut in 0..bytes.len() {
        assert_eq!(decode(&bytes[..cut]), None, "truncated at {cut}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(decode(&longer), None);
    let mut p = Paths::new(RouterId(1), Detection::default(), 0);
    p.add_link(SiteId(1), 1);
    p.handle_heartbeat(at(0), SiteId(1), &bytes[..10]);
    p.handle_heartbeat(at(0), SiteId(2), &bytes);
    assert_eq!(p.counters().bad_heartbeats, 2);
    assert_eq!(p.peer(SiteId(1)), None);
}

#[test]
fn the_detection_time_is_interval_times_misses() {
    let d = Detection::default();
    assert_eq!(d.time(), Duration::from_secs(3));
    assert!(d.time() < super::super::link::LINK_LEASE);
}

#[test]
fn a_ring_of_four_forwards_along_the_tree_and_fails_over_within_the_detection_time() {
    // A–B–C–D–A, readers everywhere.
    let mut net = Net::new(4, ring(4), vec![true; 4], 0, 1);
    net.run(2_000);
    assert!(net.agrees());
    net.check_forwarding().unwrap();
    // Quiet once converged: one heartbeat per router per interval, no triggered ones (a
    // router's own advert coming back is no change).
    let before = net.sent;
    net.run(10_000);
    assert_eq!(
        net.sent - before,
        4 * 20,
        "heartbeats in 10 s of a quiet ring"
    );
    // From A: B and D are its children, C hangs under B (tie to the lower id).
    assert_eq!(
        net.paths[2].parent_in(RouterId(1), RouterId(3)),
        Some(Some(RouterId(2)))
    );
    // Cut A–B: after the detection time (and a heartbeat to spread it) C is reached via D.
    net.cut.insert((0, 1));
    let detection = Detection::default().time().as_millis() as u64;
    let mut waited = 0;
    while !net.agrees() {
        net.run(50);
        waited += 50;
        assert!(waited <= detection + 1_000, "no failover after {waited} ms");
    }
    assert!(
        waited >= detection - 500,
        "failed over before the detection time: {waited} ms"
    );
    net.check_forwarding().unwrap();
    assert_eq!(
        net.paths[1].parent_in(RouterId(1), RouterId(2)),
        Some(Some(RouterId(3)))
    );
    // Kill D: A is alone with nothing to reach, B and C keep each other.
    net.dead.insert(3);
    net.run(detection + 1_000);
    assert!(net.agrees());
    net.check_forwarding().unwrap();
    assert_eq!(net.send(0).0, Vec::<usize>::new());
    assert_eq!(net.send(1).0, vec![2]);
}

#[test]
fn readers_prune_the_tree() {
    // A ring of four, readers only at C: from A one path (A–B–C), nothing towards D.
    let mut net = Net::new(4, ring(4), vec![false, false, true, false], 0, 2);
    net.run(2_000);
    let (got, crossings) = net.send(0);
    assert_eq!(got, vec![2]);
    assert_eq!(
        crossings.keys().copied().collect::<Vec<_>>(),
        vec![(0, 1), (1, 2)]
    );
}

#[test]
fn a_restarted_router_outruns_its_old_adverts() {
    let mut net = Net::new(3, ring(3), vec![true; 3], 0, 3);
    net.run(2_000);
    // Router 3 restarts with sequence numbers from 0 again and a cut link to 1.
    net.paths[2] = Paths::new(RouterId(3), Detection::default(), 0);
    net.paths[2].add_link(site(0), 1);
    net.paths[2].add_link(site(1), 1);
    net.paths[2].set_local(at(net.now), vec![prefix(2)], &["T".into()]);
    net.cut.insert((0, 2));
    net.run(Detection::default().time().as_millis() as u64 + 2_000);
    assert!(net.agrees());
    net.check_forwarding().unwrap();
}

/// A random connected topology: a ring, a tree, or a mesh (a spanning tree plus extra
/// links), costs 1–3, with redundant links between the same pair left out.
fn topology(rng: &mut Rng, n: usize) -> Vec<(usize, usize, u32)> {
    let kind = rng.below(3);
    let mut links = if kind == 0 {
        ring(n)
    } else {
        (1..n).map(|v| (rng.below(v), v, 1)).collect()
    };
    if kind == 2 {
        for _ in 0..n {
            let (a, b) = (rng.below(n), rng.below(n));
            if a != b
                && !links
                    .iter()
                    .any(|&(x, y, _)| (x, y) == (a, b) || (x, y) == (b, a))
            {
                links.push((a, b, 1));
            }
        }
    }
    for l in &mut links {
        l.2 = 1 + rng.below(3) as u32;
    }
    links
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random rings, trees and meshes of 3–8 routers, 20 % heartbeat loss, random readers,
    /// then random link cuts and a router killed: every router agrees on every tree within
    /// the detection time and a few heartbeats, and each sample reaches every reading router
    /// it can reach exactly once, crossing exactly the links of its pruned tree, each once.
    #[test]
    fn random_topologies_agree_and_forward_once_along_the_tree(seed in any::<u64>(), n in 3usize..=8) {
        let mut rng = Rng::new(seed);
        let links = topology(&mut rng, n);
        let reads: Vec<bool> = (0..n).map(|_| rng.chance(60)).collect();
        let mut net = Net::new(n, links.clone(), reads, 20, seed);
        let bound = Detection::default().time().as_millis() as u64 + 500 * (n as u64 + 4);
        let mut waited = 0;
        net.run(500);
        while !net.agrees() {
            net.run(50);
            waited += 50;
            prop_assert!(waited <= bound, "no agreement at start after {} ms", waited);
        }
        net.check_forwarding()?;
        for round in 0..3 {
            if round == 2 {
                net.dead.insert(rng.below(n));
            } else {
                let (a, b, _) = links[rng.below(links.len())];
                net.cut.insert((a.min(b), a.max(b)));
            }
            let mut waited = 0;
            net.run(50);
            while !net.agrees() {
                net.run(50);
                waited += 50;
                prop_assert!(waited <= bound, "round {}: no agreement after {} ms", round, waited);
            }
            net.check_forwarding()?;
        }
    }
}

proptest! {
    /// Untrusted heartbeats: random bytes, and valid ones with bytes flipped, never panic;
    /// whatever parses is within the bounds and re-encodes to what a decoder accepts.
    #[test]
    fn hostile_heartbeats_never_panic(
        noise in proptest::collection::vec(any::<u8>(), 0..256),
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8),
    ) {
        let _ = decode(&noise);
        let a = Advert {
            router: RouterId(3),
            seq: 9,
            neighbours: vec![(RouterId(1), 1), (RouterId(2), 7)],
            origins: vec![GuidPrefix([4; 12]), GuidPrefix([5; 12])],
            topics: Some(vec!["Sq".into()]),
        };
        let mut bytes = encode(RouterId(3), &[&a]);
        for (at, b) in flips {
            let i = at % bytes.len();
            bytes[i] ^= b;
        }
        if let Some((_, adverts)) = decode(&bytes) {
            prop_assert!(adverts.len() <= MAX_ROUTERS);
            let refs: Vec<&Advert> = adverts.iter().collect();
            prop_assert!(decode(&encode(RouterId(3), &refs)).is_some());
            let mut p = Paths::new(RouterId(1), Detection::default(), 0);
            p.add_link(SiteId(1), 1);
            p.handle_heartbeat(at(0), SiteId(1), &bytes);
            let _ = p.onto(RouterId(3), "Sq", SiteId(1));
        }
    }
}
