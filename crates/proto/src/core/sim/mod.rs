//! A deterministic network for the sans-IO core: N participants, a manual clock, and a seeded
//! channel that loses, duplicates, delays and reorders datagrams. Participants can be
//! silenced (their traffic dropped, so their lease expires elsewhere), unannounced (their SPDP
//! multicast dropped, unicast still flowing) and restarted (a new GUID prefix on the same
//! locators, all state lost), as a crashed process would be. Each node has its own domain id.
//! The one harness of the core's network tests: participants (`sim/tests.rs`,
//! `participant/tests.rs` and its `tests/`) or any other
//! sans-IO endpoint that implements [`SimNode`] (the bare writer and its independent reader in
//! `writer/tests/sim.rs`, the writer and `core::reader` listeners on a multicast group in
//! `writer/tests/multicast_sim.rs`).
//!
//! A node may be given a receive buffer ([`SimNet::set_receive_buffer`]): a queue of
//! datagrams that the node takes at a fixed rate of bytes per millisecond, dropping what
//! arrives while it is full, as a kernel socket buffer drops for a slow process (the
//! writer's flow-control tests, `writer/tests/flow_sim.rs`).
//!
//! Must not: use sockets, threads, the clock or sleeps; every random choice comes from the
//! seed, so a failing case replays exactly.

// Test support: indexes its own node table and does test arithmetic; the parse-path lints of
// the crate are for code that handles what peers send.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::participant::{Participant, ParticipantConfig};
use super::{Event, Transmit};
use crate::test_rng::Rng;
use crate::time::{Instant, Now, Timestamp};
use crate::wire::{GuidPrefix, Locator};

#[cfg(test)]
mod tests;

/// The SPDP multicast group every simulated participant joins.
pub const SPDP_GROUP: Locator = Locator::udpv4([239, 255, 0, 1], 7400);

/// What the channel does to each datagram copy, independently.
#[derive(Copy, Clone, Debug, Default)]
pub struct Faults {
    /// Percent of copies dropped.
    pub loss_percent: u64,
    /// Percent of copies delivered twice.
    pub duplicate_percent: u64,
    /// Percent of copies held back by up to `reorder_max_us` (so later ones overtake them).
    pub reorder_percent: u64,
    /// Longest extra delay of a reordered copy, in microseconds.
    pub reorder_max_us: u64,
}

/// One datagram on its way: delivery time, a sequence for stable ordering, destination node,
/// source locator, bytes, and whether it already passed the node's receive buffer (then it
/// is handed to the node at that time).
type InFlight = Reverse<(u64, u64, usize, Locator, Vec<u8>, bool)>;

/// A node's receive buffer: at most `capacity` bytes queued, taken at `bytes_per_ms`.
#[derive(Clone, Debug, Default)]
struct ReceiveBuffer {
    capacity: usize,
    bytes_per_ms: u64,
    /// Datagrams queued: when the node will have taken each, and its length.
    queued: VecDeque<(u64, usize)>,
    /// Copies dropped because the buffer was full.
    dropped: u64,
}

impl ReceiveBuffer {
    /// Admits a datagram of `len` bytes arriving at `now`: the time the node takes it, or
    /// `None` (dropped) when it does not fit.
    fn admit(&mut self, now: u64, len: usize) -> Option<u64> {
        while self.queued.front().is_some_and(|(done, _)| *done <= now) {
            self.queued.pop_front();
        }
        let used: usize = self.queued.iter().map(|(_, l)| l).sum();
        if used + len > self.capacity {
            self.dropped += 1;
            return None;
        }
        let start = self.queued.back().map_or(now, |(done, _)| (*done).max(now));
        let done = start + (len as u64 * 1_000_000).div_ceil(self.bytes_per_ms.max(1));
        self.queued.push_back((done, len));
        Some(done)
    }
}

/// A sans-IO endpoint the network can drive: datagrams and timeouts in, transmits out.
pub trait SimNode {
    /// One datagram from `source`.
    fn handle_datagram(&mut self, now: Now, source: Locator, datagram: &[u8]);
    /// Runs what is due at `now`.
    fn handle_timeout(&mut self, now: Now);
    /// The next time [`SimNode::handle_timeout`] has something to do.
    fn poll_timeout(&self) -> Option<Instant>;
    /// The next datagram to send.
    fn poll_transmit(&mut self, now: Now) -> Option<Transmit>;
}

impl SimNode for Participant {
    fn handle_datagram(&mut self, now: Now, source: Locator, datagram: &[u8]) {
        Participant::handle_datagram(self, now, source, datagram);
    }
    fn handle_timeout(&mut self, now: Now) {
        Participant::handle_timeout(self, now);
    }
    fn poll_timeout(&self) -> Option<Instant> {
        Participant::poll_timeout(self)
    }
    fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        Participant::poll_transmit(self, now)
    }
}

/// One endpoint (a participant unless said otherwise) and the locators it listens on.
pub struct Node<N = Participant> {
    /// The endpoint under test.
    pub p: N,
    /// Where it listens, the first being the source of what it sends: unicast locators (a
    /// participant's metatraffic and user locators) and any multicast group it joined. A copy
    /// to a locator reaches every node listing it, each copy lost independently; the SPDP group
    /// reaches every other node whether listed or not.
    pub locators: Vec<Locator>,
}

/// The simulated LAN.
pub struct SimNet<N = Participant> {
    /// The endpoints, by index.
    pub nodes: Vec<Node<N>>,
    /// Current time, nanoseconds since the start.
    pub now: u64,
    /// Applied to every copy sent from now on.
    pub faults: Faults,
    /// Nodes whose outgoing traffic is dropped.
    pub silenced: Vec<usize>,
    /// Nodes whose multicast (SPDP announcements) is dropped; their unicast still flows.
    pub unannounced: Vec<usize>,
    /// Copies delivered (duplicates included) and dropped, for reports.
    pub delivered: u64,
    /// Copies lost.
    pub lost: u64,
    /// When `Some`, every datagram a node sends (before loss), with the sender's index: for
    /// tests that inspect the wire.
    pub tap: Option<Vec<(usize, Vec<u8>)>>,
    rng: Rng,
    seq: u64,
    restarts: u8,
    in_flight: BinaryHeap<InFlight>,
    /// Receive buffers by node index (`None`: the node takes everything at once).
    buffers: Vec<Option<ReceiveBuffer>>,
    domains: Vec<u32>,
    configure: fn(&mut ParticipantConfig),
}

/// The core's `Now` at `nanos` of simulated time (the wall clock starts at a fixed 2023 date).
pub fn sim_now(nanos: u64) -> Now {
    Now {
        mono: Instant::from_nanos(nanos),
        wall: Timestamp::from_unix_nanos(1_700_000_000_000_000_000 + nanos),
    }
}

/// One-way latency of every copy (before any reorder delay): 50 µs.
const BASE_DELAY_NS: u64 = 50_000;

impl<N: SimNode> SimNet<N> {
    /// A network of the given endpoints (restarting one is for participants only).
    pub fn with_nodes(nodes: Vec<Node<N>>, seed: u64) -> Self {
        SimNet {
            domains: vec![0; nodes.len()],
            nodes,
            now: 0,
            faults: Faults::default(),
            silenced: Vec::new(),
            unannounced: Vec::new(),
            delivered: 0,
            lost: 0,
            tap: None,
            rng: Rng::new(seed),
            seq: 0,
            restarts: 0,
            in_flight: BinaryHeap::new(),
            buffers: Vec::new(),
            configure: |_| {},
        }
    }
}

impl SimNet {
    /// `n` participants in domain 0, each configured by `configure` after the defaults.
    pub fn new(n: usize, seed: u64, configure: fn(&mut ParticipantConfig)) -> Self {
        Self::in_domains(&vec![0; n], seed, configure)
    }

    /// One participant per entry of `domains`, in that domain, each configured by `configure`
    /// after the defaults. Every node hears the SPDP group whatever its domain (the
    /// participants tell domains apart, as on one LAN).
    pub fn in_domains(domains: &[u32], seed: u64, configure: fn(&mut ParticipantConfig)) -> Self {
        let n = domains.len();
        let mut net = SimNet {
            domains: domains.to_vec(),
            configure,
            ..SimNet::with_nodes(Vec::with_capacity(n), seed)
        };
        for i in 0..n {
            let node = net.make_node(i);
            net.nodes.push(node);
        }
        net
    }

    fn make_node(&self, i: usize) -> Node {
        let prefix = GuidPrefix([1, 0x5e, self.restarts, 0, 0, 0, 0, 0, 0, 0, 0, i as u8 + 1]);
        let meta = Locator::udpv4([127, 0, 0, 1], 7410 + 2 * i as u16);
        let user = Locator::udpv4([127, 0, 0, 1], 7411 + 2 * i as u16);
        let mut config = ParticipantConfig::new(self.domains[i], prefix);
        config.metatraffic_unicast_locators = vec![meta];
        config.default_unicast_locators = vec![user];
        config.metatraffic_multicast_locators = vec![SPDP_GROUP];
        config.spdp_destinations = vec![SPDP_GROUP];
        (self.configure)(&mut config);
        Node {
            p: Participant::new(config),
            locators: vec![meta, user],
        }
    }

    /// Replaces node `i` by a fresh participant (new GUID prefix, same locators), as if its
    /// process had crashed and started again. Its datagrams still in flight are dropped.
    pub fn restart(&mut self, i: usize) {
        self.restarts = self.restarts.wrapping_add(1);
        let node = self.make_node(i);
        self.nodes[i] = node;
        let pending = std::mem::take(&mut self.in_flight);
        self.in_flight = pending.into_iter().filter(|Reverse(f)| f.2 != i).collect();
    }

    /// The events node `i` has queued, in order.
    pub fn events(&mut self, i: usize) -> Vec<Event> {
        std::iter::from_fn(|| self.nodes[i].p.poll_event()).collect()
    }
}

impl<N: SimNode> SimNet<N> {
    /// Gives node `i` a receive buffer of `capacity` bytes that it empties at `bytes_per_ms`:
    /// a datagram arriving while the queued ones leave no room for it is dropped (counted in
    /// [`SimNet::receive_drops`]), the others reach the node once it has taken those ahead.
    pub fn set_receive_buffer(&mut self, i: usize, capacity: usize, bytes_per_ms: u64) {
        if self.buffers.len() <= i {
            self.buffers.resize(i + 1, None);
        }
        self.buffers[i] = Some(ReceiveBuffer {
            capacity,
            bytes_per_ms,
            ..ReceiveBuffer::default()
        });
    }

    /// Datagrams node `i`'s receive buffer dropped so far.
    pub fn receive_drops(&self, i: usize) -> u64 {
        self.buffers
            .get(i)
            .and_then(Option::as_ref)
            .map_or(0, |b| b.dropped)
    }

    /// The current instant for the core.
    pub fn now(&self) -> Now {
        sim_now(self.now)
    }

    fn enqueue(&mut self, dst: usize, src: Locator, payload: &[u8]) {
        let copies = if self.rng.chance(self.faults.duplicate_percent) {
            2
        } else {
            1
        };
        for _ in 0..copies {
            if self.rng.chance(self.faults.loss_percent) {
                self.lost += 1;
                continue;
            }
            let mut at = self.now + BASE_DELAY_NS;
            if self.rng.chance(self.faults.reorder_percent) && self.faults.reorder_max_us > 0 {
                at += (self.rng.next_u64() % self.faults.reorder_max_us) * 1_000;
            }
            self.seq += 1;
            let buffered = self.buffers.get(dst).is_some_and(Option::is_some);
            self.in_flight.push(Reverse((
                at,
                self.seq,
                dst,
                src,
                payload.to_vec(),
                !buffered,
            )));
        }
    }

    /// Takes every datagram the participants want to send and puts it on the channel.
    fn collect_transmits(&mut self) {
        let now = self.now();
        for i in 0..self.nodes.len() {
            while let Some(t) = self.nodes[i].p.poll_transmit(now) {
                if self.silenced.contains(&i) {
                    continue;
                }
                let src = self.nodes[i].locators[0];
                if let Some(tap) = self.tap.as_mut() {
                    tap.push((i, t.datagram().to_vec()));
                }
                for dst in &t.destinations {
                    if *dst == SPDP_GROUP && self.unannounced.contains(&i) {
                        continue;
                    }
                    for j in 0..self.nodes.len() {
                        let hit = if *dst == SPDP_GROUP {
                            j != i
                        } else {
                            self.nodes[j].locators.contains(dst)
                        };
                        if hit {
                            self.enqueue(j, src, &t.datagram());
                        }
                    }
                }
            }
        }
    }

    /// Advances to the next event (a delivery or a timer), at most `max_step_us` ahead, and
    /// processes everything due then.
    pub fn step(&mut self, max_step_us: u64) {
        self.collect_transmits();
        let limit = self.now + max_step_us * 1_000;
        let timer = self
            .nodes
            .iter()
            .filter_map(|n| n.p.poll_timeout())
            .map(|t| t.as_nanos())
            .min();
        let delivery = self.in_flight.peek().map(|Reverse(f)| f.0);
        let next = [timer, delivery]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(limit);
        self.now = next.clamp(self.now, limit);
        let now = self.now();
        while self
            .in_flight
            .peek()
            .is_some_and(|Reverse(f)| f.0 <= self.now)
        {
            let Some(Reverse((_, _, dst, src, bytes, admitted))) = self.in_flight.pop() else {
                break;
            };
            if !admitted {
                // Through the node's receive buffer: dropped, or taken when its turn comes.
                let buffer = self.buffers.get_mut(dst).and_then(Option::as_mut);
                if let Some(done) = buffer.and_then(|b| b.admit(self.now, bytes.len())) {
                    self.seq += 1;
                    self.in_flight
                        .push(Reverse((done, self.seq, dst, src, bytes, true)));
                } else {
                    self.lost += 1;
                }
                continue;
            }
            self.delivered += 1;
            self.nodes[dst].p.handle_datagram(now, src, &bytes);
        }
        for n in &mut self.nodes {
            if n.p.poll_timeout().is_some_and(|t| t.as_nanos() <= self.now) {
                n.p.handle_timeout(now);
            }
        }
        self.collect_transmits();
    }

    /// Delivers everything queued or in flight, advancing time only by the channel's latency
    /// (and whatever the deliveries make the participants send in turn; timers due meanwhile
    /// run too). For "this goes out at once, before any lease or period can run out".
    pub fn flush(&mut self) {
        for _ in 0..1000 {
            self.collect_transmits();
            let Some(next) = self.in_flight.peek().map(|Reverse(f)| f.0) else {
                return;
            };
            self.step(next.saturating_sub(self.now).div_ceil(1_000).max(1));
        }
    }

    /// Runs for `ms` milliseconds of simulated time.
    pub fn run_for(&mut self, ms: u64) {
        let end = self.now + ms * 1_000_000;
        while self.now < end {
            self.step((end - self.now).div_ceil(1_000).max(1));
        }
    }

    /// Runs until `done(self)` or `ms` milliseconds have passed; true when done.
    pub fn run_until(&mut self, ms: u64, mut done: impl FnMut(&mut Self) -> bool) -> bool {
        let end = self.now + ms * 1_000_000;
        while self.now < end {
            if done(self) {
                return true;
            }
            self.step(1_000);
        }
        done(self)
    }
}
