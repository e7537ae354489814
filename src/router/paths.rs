//! Shortest-path forwarding between routers: the link-state view the routers exchange over
//! their links, the failure detection of each link, and the forwarding decision that follows
//! from them (docs/router.md, "Paths").
//!
//! Each router floods a link-state *advert* (its id, a sequence number, its live neighbour
//! routers with the link cost, the participants of the writers on its LANs — the *origins* it
//! serves — and the topics its LANs read) inside a heartbeat it sends on every link every
//! [`Detection::interval`]; a heartbeat carries every advert the sender knows. A link whose
//! peer was not heard for [`Detection::time`] (interval × misses) is down: the router's advert
//! changes and every router recomputes. A changed advert (ours, or one learnt) goes out at
//! once, not at the next interval (a triggered update). Per origin router O, every router
//! computes the same tree of shortest paths rooted at O (Dijkstra over the links both ends
//! announce, cost the larger of the two; ties broken by the lower router id, so all routers
//! agree) and decides:
//! a sample from O read on the link to peer P is taken only if P is its parent in O's tree
//! (reverse-path forwarding), and goes onto the link to peer C only if C is its child in O's
//! tree and a router in C's subtree has a reader of the topic. In steady state a sample
//! therefore crosses each link at most once, along the tree.
//!
//! Must not: open sockets, read clocks or decide anything about endpoints; a heartbeat from
//! the wire is parsed with bounds and never panics (a bad one is counted and dropped).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use super::table::{RouterId, SiteId};
use crate::time::Instant;
use crate::wire::GuidPrefix;

/// Default heartbeat period on each link.
pub const HEARTBEAT_INTERVAL: Duration = Duration::from_millis(500);
/// Default number of heartbeats missed before a link counts as down: with the interval, a
/// detection time of 3 s (`LINK_LEASE` is 40 s); six in a row are lost on a 20 % loss link
/// once in 15,625 intervals.
pub const HEARTBEAT_MISSES: u32 = 6;
/// Heartbeat intervals after the last change of the view before copies from off the reverse
/// path are dropped (until then the routers may disagree; the repositories keep exactly
/// once).
pub const SETTLE_HEARTBEATS: u32 = 4;
/// An advert of a router no longer reachable is forgotten after this long unheard.
pub const ADVERT_MAX_AGE: Duration = Duration::from_secs(60);
/// At most this many routers are kept (adverts of others are dropped and counted).
pub const MAX_ROUTERS: usize = 64;
/// At most this many neighbours per advert.
pub const MAX_NEIGHBOURS: usize = 32;
/// At most this many origins (participants) per advert.
pub const MAX_ORIGINS: usize = 1024;
/// At most this many topic names per advert, each at most [`MAX_TOPIC_LEN`] bytes.
pub const MAX_TOPICS: usize = 256;
/// The longest topic name carried in an advert (longer names are not announced: the router
/// then counts as interested in every topic).
pub const MAX_TOPIC_LEN: usize = 255;

const MAGIC: &[u8; 4] = b"SPT1";

/// The topic the heartbeats travel on between routers (never routed).
pub const HEARTBEAT_TOPIC: &str = "siftdds_router_paths";
/// Its type name.
pub const HEARTBEAT_TYPE: &str = "siftdds::RouterPaths";

/// The heartbeat-based failure detection of a link: a heartbeat every `interval`, the link
/// down after `misses` of them were not heard ([`Self::time`], the *detection time*).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Detection {
    /// Heartbeat period.
    pub interval: Duration,
    /// Heartbeats missed before the link counts as down.
    pub misses: u32,
}

impl Default for Detection {
    fn default() -> Self {
        Detection {
            interval: HEARTBEAT_INTERVAL,
            misses: HEARTBEAT_MISSES,
        }
    }
}

impl Detection {
    /// The detection time: how long a link's peer may stay unheard before the link is down.
    pub fn time(&self) -> Duration {
        self.interval.saturating_mul(self.misses.max(1))
    }

    /// How long the view must stay unchanged before the routers are taken to agree
    /// ([`SETTLE_HEARTBEATS`] intervals: a change spreads one link per heartbeat).
    pub fn settle(&self) -> Duration {
        self.interval.saturating_mul(SETTLE_HEARTBEATS)
    }
}

/// One router's link-state advert.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Advert {
    /// Whose.
    pub router: RouterId,
    /// Newer adverts of the same router replace older ones.
    pub seq: u64,
    /// Its live neighbour routers and the cost of the link to each (sorted by id).
    pub neighbours: Vec<(RouterId, u32)>,
    /// The participants of the (non-router) writers on its LANs: samples of their writers
    /// originate at this router.
    pub origins: Vec<GuidPrefix>,
    /// The topics read on its LANs; `None`: every topic (too many to list).
    pub topics: Option<Vec<String>>,
}

/// What a forwarding decision says for one sample.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rpf {
    /// No decision (origin unknown or not reachable, or the link's peer not known yet): the
    /// router forwards as without paths, the repositories keep exactly once.
    Unknown,
    /// Taken: it came from the origin's LAN or the parent towards the origin.
    Accept,
    /// Dropped: it came over a link that is not the reverse path towards its origin.
    Reject,
}

/// Counters of the path computation.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PathCounters {
    /// Heartbeats received and parsed.
    pub heartbeats: u64,
    /// Heartbeats dropped: malformed, or from a link not configured.
    pub bad_heartbeats: u64,
    /// Adverts dropped beyond [`MAX_ROUTERS`].
    pub adverts_dropped: u64,
    /// Links that went down by missed heartbeats.
    pub links_down: u64,
    /// Shortest-path recomputations (changes of the view).
    pub recomputations: u64,
    /// Samples from off the reverse path (dropped once the view has settled).
    pub rpf_rejected: u64,
    /// Link forwards left out because the link's peer is not a child in the origin's tree
    /// or no reader is below it.
    pub pruned: u64,
}

#[derive(Clone, Debug)]
struct Link {
    cost: u32,
    peer: Option<RouterId>,
    heard: Option<Instant>,
}

#[derive(Clone, Debug, Default)]
struct Tree {
    /// Every reachable router → its parent (the root has none).
    parent: BTreeMap<RouterId, Option<RouterId>>,
}

/// The path computation of one router.
#[derive(Clone, Debug)]
pub struct Paths {
    me: RouterId,
    detection: Detection,
    seq: u64,
    links: BTreeMap<SiteId, Link>,
    origins: Vec<GuidPrefix>,
    topics: Option<Vec<String>>,
    /// Every advert known (ours included) and when it was last learnt.
    adverts: BTreeMap<RouterId, (Advert, Instant)>,
    next_heartbeat: Option<Instant>,
    generation: u64,
    trees: BTreeMap<RouterId, Tree>,
    /// [`Self::onto`]'s answers per (origin, link) and topic, until the view changes.
    decisions: BTreeMap<(RouterId, SiteId), BTreeMap<String, Option<bool>>>,
    counters: PathCounters,
}

impl Paths {
    /// The paths of router `me`; its adverts start at sequence number `first_seq` (the driver
    /// gives a clock reading, so a restarted router's adverts replace its old ones).
    pub fn new(me: RouterId, detection: Detection, first_seq: u64) -> Self {
        let mut p = Paths {
            me,
            detection,
            seq: first_seq,
            links: BTreeMap::new(),
            origins: Vec::new(),
            topics: Some(Vec::new()),
            adverts: BTreeMap::new(),
            next_heartbeat: None,
            generation: 0,
            trees: BTreeMap::new(),
            decisions: BTreeMap::new(),
            counters: PathCounters::default(),
        };
        p.readvertise(Instant::ZERO);
        p
    }

    /// Our router id.
    pub fn me(&self) -> RouterId {
        self.me
    }

    /// The failure detection in use.
    pub fn detection(&self) -> Detection {
        self.detection
    }

    /// Adds `site` as a link to a peer router, of cost `cost` (at least 1).
    pub fn add_link(&mut self, site: SiteId, cost: u32) {
        self.links.insert(
            site,
            Link {
                cost: cost.max(1),
                peer: None,
                heard: None,
            },
        );
    }

    /// Whether `site` is a link.
    pub fn is_link(&self, site: SiteId) -> bool {
        self.links.contains_key(&site)
    }

    /// The live peer router of link `site`.
    pub fn peer(&self, site: SiteId) -> Option<RouterId> {
        self.links.get(&site).and_then(|l| l.peer)
    }

    /// Changes when the view changed: decisions computed before no longer hold.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The counters so far.
    pub fn counters(&self) -> PathCounters {
        self.counters
    }

    /// Sets what our LANs have: the participants of their writers (sorted, deduplicated and
    /// bounded here) and the topics they read.
    pub fn set_local(&mut self, now: Instant, mut origins: Vec<GuidPrefix>, topics: &[String]) {
        origins.sort();
        origins.dedup();
        origins.truncate(MAX_ORIGINS);
        let mut topics: Vec<String> = topics.to_vec();
        topics.sort();
        topics.dedup();
        let topics = (topics.len() <= MAX_TOPICS
            && topics.iter().all(|t| t.len() <= MAX_TOPIC_LEN))
        .then_some(topics);
        if origins != self.origins || topics != self.topics {
            self.origins = origins;
            self.topics = topics;
            self.readvertise(now);
        }
    }

    /// Adds `prefix` to our origins at once (a sample of a writer on our LAN that the views
    /// do not list yet): the changed advert goes out with the next heartbeat poll, so the
    /// routers downstream learn its origin about as soon as its first samples arrive.
    pub fn add_origin(&mut self, now: Instant, prefix: GuidPrefix) {
        if let Err(at) = self.origins.binary_search(&prefix)
            && self.origins.len() < MAX_ORIGINS
        {
            self.origins.insert(at, prefix);
            self.readvertise(now);
        }
    }

    fn neighbours(&self) -> Vec<(RouterId, u32)> {
        let mut n: BTreeMap<RouterId, u32> = BTreeMap::new();
        for l in self.links.values() {
            if let Some(p) = l.peer {
                let c = n.entry(p).or_insert(l.cost);
                *c = (*c).min(l.cost);
            }
        }
        n.into_iter().take(MAX_NEIGHBOURS).collect()
    }

    fn readvertise(&mut self, now: Instant) {
        self.seq = self.seq.wrapping_add(1);
        let advert = Advert {
            router: self.me,
            seq: self.seq,
            neighbours: self.neighbours(),
            origins: self.origins.clone(),
            topics: self.topics.clone(),
        };
        self.adverts.insert(self.me, (advert, now));
        self.changed();
    }

    fn changed(&mut self) {
        // A triggered update: the next heartbeat goes at once, so a change spreads in about
        // a round trip per hop rather than a heartbeat interval.
        self.next_heartbeat = None;
        self.generation = self.generation.wrapping_add(1);
        self.counters.recomputations = self.counters.recomputations.saturating_add(1);
        self.trees.clear();
        self.decisions.clear();
    }

    /// A heartbeat received on link `site`: the link is alive with its sender as peer, and
    /// the adverts it carries are learnt. A malformed one is counted and dropped.
    pub fn handle_heartbeat(&mut self, now: Instant, site: SiteId, bytes: &[u8]) {
        let Some((sender, adverts)) = decode(bytes) else {
            self.counters.bad_heartbeats = self.counters.bad_heartbeats.saturating_add(1);
            return;
        };
        if sender == self.me || !self.links.contains_key(&site) {
            self.counters.bad_heartbeats = self.counters.bad_heartbeats.saturating_add(1);
            return;
        }
        self.counters.heartbeats = self.counters.heartbeats.saturating_add(1);
        let mut ours_changed = false;
        if let Some(link) = self.links.get_mut(&site) {
            link.heard = Some(now);
            if link.peer != Some(sender) {
                link.peer = Some(sender);
                ours_changed = true;
            }
        }
        let mut changed = false;
        let mut new = Vec::new();
        for a in adverts {
            if a.router == self.me {
                // Our own advert back from before a restart: outrun it. (The one we sent
                // comes back with every heartbeat: equal is not newer.)
                if a.seq > self.seq {
                    self.seq = a.seq;
                    ours_changed = true;
                }
                continue;
            }
            match self.adverts.get_mut(&a.router) {
                Some((known, at)) => {
                    if a.seq > known.seq {
                        changed |= known.neighbours != a.neighbours
                            || known.origins != a.origins
                            || known.topics != a.topics;
                        *known = a;
                        *at = now;
                    } else if a.seq == known.seq {
                        *at = now;
                    }
                }
                None => new.push(a),
            }
        }
        for a in new {
            if self.adverts.len() < MAX_ROUTERS {
                self.adverts.insert(a.router, (a, now));
                changed = true;
            } else {
                self.counters.adverts_dropped = self.counters.adverts_dropped.saturating_add(1);
            }
        }
        if ours_changed {
            self.readvertise(now);
        } else if changed {
            self.changed();
        }
    }

    /// Expires links whose peer was not heard for the detection time, and forgets adverts of
    /// unreachable routers unheard for [`ADVERT_MAX_AGE`].
    pub fn handle_timeout(&mut self, now: Instant) {
        let limit = self.detection.time();
        let mut down = false;
        for l in self.links.values_mut() {
            let expired = l
                .heard
                .is_some_and(|h| now.saturating_duration_since(h) > limit);
            if expired && l.peer.is_some() {
                l.peer = None;
                l.heard = None;
                down = true;
                self.counters.links_down = self.counters.links_down.saturating_add(1);
            }
        }
        if down {
            self.readvertise(now);
        }
        let me = self.me;
        let reachable: BTreeSet<RouterId> = self.tree(me).parent.keys().copied().collect();
        let before = self.adverts.len();
        self.adverts.retain(|r, (_, at)| {
            *r == me
                || reachable.contains(r)
                || now.saturating_duration_since(*at) <= ADVERT_MAX_AGE
        });
        if self.adverts.len() != before {
            self.changed();
        }
    }

    /// When [`Self::handle_timeout`] or [`Self::poll_heartbeat`] must run next.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let limit = self.detection.time();
        let expiry = self
            .links
            .values()
            .filter(|l| l.peer.is_some())
            .filter_map(|l| l.heard)
            .map(|h| {
                h.saturating_add(limit)
                    .saturating_add(Duration::from_nanos(1))
            })
            .min();
        match (expiry, self.next_heartbeat) {
            // A heartbeat is due now (the first one, or a triggered update).
            (_, None) => Some(Instant::ZERO),
            (Some(a), Some(b)) => Some(a.min(b)),
            (None, b) => b,
        }
    }

    /// The heartbeat to send on every link when one is due (then again after an interval):
    /// the links and the bytes (the same for all of them).
    pub fn poll_heartbeat(&mut self, now: Instant) -> Option<(Vec<SiteId>, Vec<u8>)> {
        if self.next_heartbeat.is_some_and(|t| t > now) {
            return None;
        }
        self.next_heartbeat = Some(now.saturating_add(self.detection.interval));
        if self.links.is_empty() {
            return None;
        }
        let adverts: Vec<&Advert> = self.adverts.values().map(|(a, _)| a).collect();
        Some((
            self.links.keys().copied().collect(),
            encode(self.me, &adverts),
        ))
    }

    /// The router whose LAN has the participant `prefix` (a writer's), if an advert says so.
    pub fn origin_of(&self, prefix: GuidPrefix) -> Option<RouterId> {
        self.adverts
            .values()
            .find(|(a, _)| a.origins.binary_search(&prefix).is_ok())
            .map(|(a, _)| a.router)
    }

    /// The reverse-path check for a sample from origin router `origin` read on `site`.
    pub fn rpf(&mut self, origin: RouterId, site: SiteId) -> Rpf {
        let me = self.me;
        let Some(link) = self.links.get(&site) else {
            // Read on a LAN: ours if it originated here.
            return if origin == me {
                Rpf::Accept
            } else {
                Rpf::Unknown
            };
        };
        let Some(peer) = link.peer else {
            return Rpf::Unknown;
        };
        let parent = self.tree(origin).parent.get(&me).copied();
        match parent {
            Some(Some(parent)) if parent == peer => Rpf::Accept,
            Some(Some(_)) => {
                self.counters.rpf_rejected = self.counters.rpf_rejected.saturating_add(1);
                Rpf::Reject
            }
            // We are the origin: nothing of ours comes back over a link.
            Some(None) => {
                self.counters.rpf_rejected = self.counters.rpf_rejected.saturating_add(1);
                Rpf::Reject
            }
            None => Rpf::Unknown,
        }
    }

    /// Whether a sample of `topic` from origin router `origin` goes onto link `site`: its
    /// peer is our child in the origin's tree and some router below it reads the topic.
    /// `None`: no decision (not a link, peer not known, origin not reachable).
    pub fn onto(&mut self, origin: RouterId, topic: &str, site: SiteId) -> Option<bool> {
        let peer = self.links.get(&site)?.peer?;
        let wanted = match self
            .decisions
            .get(&(origin, site))
            .and_then(|d| d.get(topic))
        {
            Some(w) => *w,
            None => {
                let w = self.decide(origin, topic, peer);
                self.decisions
                    .entry((origin, site))
                    .or_default()
                    .insert(topic.to_owned(), w);
                w
            }
        }?;
        if !wanted {
            self.counters.pruned = self.counters.pruned.saturating_add(1);
        }
        Some(wanted)
    }

    /// [`Self::onto`] computed from the tree (remembered until the view changes).
    fn decide(&mut self, origin: RouterId, topic: &str, peer: RouterId) -> Option<bool> {
        let me = self.me;
        let adverts = &self.adverts;
        let tree = self
            .trees
            .entry(origin)
            .or_insert_with(|| shortest_paths(adverts, origin));
        if !tree.parent.contains_key(&me) || !tree.parent.contains_key(&peer) {
            return None;
        }
        let child = tree.parent.get(&peer).copied().flatten() == Some(me);
        Some(
            child
                && tree
                    .parent
                    .keys()
                    .any(|r| reads(adverts, *r, topic) && below(&tree.parent, *r, peer)),
        )
    }

    /// The tree of shortest paths rooted at `origin`, computed once per view.
    fn tree(&mut self, origin: RouterId) -> &Tree {
        let adverts = &self.adverts;
        self.trees
            .entry(origin)
            .or_insert_with(|| shortest_paths(adverts, origin))
    }

    /// `origin`'s tree: every router it reaches and its parent there.
    pub fn tree_of(&mut self, origin: RouterId) -> Vec<(RouterId, Option<RouterId>)> {
        self.tree(origin).parent.clone().into_iter().collect()
    }

    /// The parent of `router` in `origin`'s tree (`Some(None)` for the root).
    pub fn parent_in(&mut self, origin: RouterId, router: RouterId) -> Option<Option<RouterId>> {
        self.tree(origin).parent.get(&router).copied()
    }
}

/// Whether router `r`'s advert says its LANs read `topic`.
fn reads(adverts: &BTreeMap<RouterId, (Advert, Instant)>, r: RouterId, topic: &str) -> bool {
    adverts.get(&r).is_some_and(|(a, _)| {
        a.topics
            .as_ref()
            .is_none_or(|t| t.binary_search_by(|x| x.as_str().cmp(topic)).is_ok())
    })
}

/// Whether `r` is `top` or below it in the tree given by `parent`.
fn below(parent: &BTreeMap<RouterId, Option<RouterId>>, mut r: RouterId, top: RouterId) -> bool {
    for _ in 0..=parent.len() {
        if r == top {
            return true;
        }
        match parent.get(&r).copied().flatten() {
            Some(p) => r = p,
            None => return false,
        }
    }
    false
}

/// The cost of the link `a`–`b` if both adverts announce it (the larger of the two costs).
fn edge(
    adverts: &BTreeMap<RouterId, (Advert, Instant)>,
    a: RouterId,
    b: RouterId,
    cost_ab: u32,
) -> Option<u32> {
    let (back, _) = adverts.get(&b)?;
    let cost_ba = back.neighbours.iter().find(|(n, _)| *n == a)?.1;
    Some(cost_ab.max(cost_ba).max(1))
}

/// Dijkstra from `origin` over the two-way links of `adverts`; among equal-cost paths a
/// router's parent is the lowest router id, so every router with the same adverts computes
/// the same tree.
fn shortest_paths(adverts: &BTreeMap<RouterId, (Advert, Instant)>, origin: RouterId) -> Tree {
    let mut dist: BTreeMap<RouterId, u64> = BTreeMap::new();
    let mut parent: BTreeMap<RouterId, Option<RouterId>> = BTreeMap::new();
    let mut done: BTreeSet<RouterId> = BTreeSet::new();
    let mut queue: BTreeSet<(u64, RouterId)> = BTreeSet::new();
    if !adverts.contains_key(&origin) {
        return Tree::default();
    }
    dist.insert(origin, 0);
    parent.insert(origin, None);
    queue.insert((0, origin));
    while let Some((d, u)) = queue.pop_first() {
        if !done.insert(u) {
            continue;
        }
        let Some((a, _)) = adverts.get(&u) else {
            continue;
        };
        for &(v, c) in &a.neighbours {
            let Some(c) = edge(adverts, u, v, c) else {
                continue;
            };
            if done.contains(&v) {
                continue;
            }
            let nd = d.saturating_add(u64::from(c));
            let better = match dist.get(&v) {
                None => true,
                Some(&old) => {
                    nd < old
                        || (nd == old && parent.get(&v).copied().flatten().is_some_and(|p| u < p))
                }
            };
            if better {
                if let Some(&old) = dist.get(&v) {
                    queue.remove(&(old, v));
                }
                dist.insert(v, nd);
                parent.insert(v, Some(u));
                queue.insert((nd, v));
            }
        }
    }
    Tree { parent }
}

/// A heartbeat: `SPT1`, the sender's id, then the adverts (all integers big-endian).
pub fn encode(sender: RouterId, adverts: &[&Advert]) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&sender.0.to_be_bytes());
    out.extend_from_slice(&(adverts.len().min(MAX_ROUTERS) as u16).to_be_bytes());
    for a in adverts.iter().take(MAX_ROUTERS) {
        out.extend_from_slice(&a.router.0.to_be_bytes());
        out.extend_from_slice(&a.seq.to_be_bytes());
        let n = a.neighbours.len().min(MAX_NEIGHBOURS);
        out.extend_from_slice(&(n as u16).to_be_bytes());
        for (r, c) in a.neighbours.iter().take(n) {
            out.extend_from_slice(&r.0.to_be_bytes());
            out.extend_from_slice(&c.to_be_bytes());
        }
        let n = a.origins.len().min(MAX_ORIGINS);
        out.extend_from_slice(&(n as u16).to_be_bytes());
        for o in a.origins.iter().take(n) {
            out.extend_from_slice(&o.0);
        }
        match &a.topics {
            None => out.extend_from_slice(&u16::MAX.to_be_bytes()),
            Some(t) => {
                let t: Vec<&String> = t.iter().filter(|t| t.len() <= MAX_TOPIC_LEN).collect();
                let n = t.len().min(MAX_TOPICS);
                out.extend_from_slice(&(n as u16).to_be_bytes());
                for name in t.into_iter().take(n) {
                    out.push(name.len() as u8);
                    out.extend_from_slice(name.as_bytes());
                }
            }
        }
    }
    out
}

struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1)?.first().copied()
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_be_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_be_bytes(self.take(8)?.try_into().ok()?))
    }
}

/// Parses a heartbeat; `None` if malformed or beyond the bounds.
pub fn decode(bytes: &[u8]) -> Option<(RouterId, Vec<Advert>)> {
    let mut c = Cursor(bytes);
    if c.take(4)? != MAGIC {
        return None;
    }
    let sender = RouterId(c.u64()?);
    let count = usize::from(c.u16()?);
    if count > MAX_ROUTERS {
        return None;
    }
    let mut adverts = Vec::with_capacity(count);
    for _ in 0..count {
        let router = RouterId(c.u64()?);
        let seq = c.u64()?;
        let n = usize::from(c.u16()?);
        if n > MAX_NEIGHBOURS {
            return None;
        }
        let mut neighbours = Vec::with_capacity(n);
        for _ in 0..n {
            neighbours.push((RouterId(c.u64()?), c.u32()?));
        }
        let n = usize::from(c.u16()?);
        if n > MAX_ORIGINS {
            return None;
        }
        let mut origins = Vec::with_capacity(n);
        for _ in 0..n {
            origins.push(GuidPrefix(c.take(12)?.try_into().ok()?));
        }
        origins.sort();
        let n = c.u16()?;
        let topics = if n == u16::MAX {
            None
        } else {
            let n = usize::from(n);
            if n > MAX_TOPICS {
                return None;
            }
            let mut t = Vec::with_capacity(n);
            for _ in 0..n {
                let len = usize::from(c.u8()?);
                t.push(core::str::from_utf8(c.take(len)?).ok()?.to_owned());
            }
            t.sort();
            Some(t)
        };
        neighbours.sort();
        adverts.push(Advert {
            router,
            seq,
            neighbours,
            origins,
            topics,
        });
    }
    c.0.is_empty().then_some((sender, adverts))
}

#[cfg(test)]
mod tests;
