//! Runs the router core over real participants: one [`DomainParticipant`] per site (a LAN
//! on its interfaces, or a link to a peer router: unicast initial peers, no multicast), the
//! router's proxy readers and downstream writers as the public API's untyped endpoints
//! ([`UntypedDataReader`], [`UntypedDataWriter`]), and one router thread that turns
//! discovery snapshots ([`DomainParticipant::discovery_snapshot`]) into site views and the
//! core's actions into endpoints. All sites share one event loop thread (`same_loop_as`): a
//! proxy reader's samples are routed on it (its listener) and handed to the downstream
//! writers without waiting ([`UntypedWriteSender::try_write`]), which the loop runs in the
//! same wakeup: only a write without credit (a full or not yet measured downstream history)
//! goes to the router thread, which may wait; the writes of one downstream writer keep their
//! order (`Shared::pending`). Hop latency: docs/router.md.
//!
//! Must not: decide anything the core decides (routes, forwards); it only moves data between
//! the participants' event loops and [`Router`]; or reach the library other than through
//! `api` (no core participant, no runtime handle). The one module of `router` that uses
//! threads, channels and the clock (hence the `allow` below).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod paths;
mod site;
mod standby;

pub use site::{PEER_INDICES, Site, parse_peer};

use foldhash::HashMap;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use super::config::TopicRules;
use super::link;
use super::marker::{router_of, router_user_data};
use super::repository::RepositoryLimits;
use super::table::{
    Access, DiscoveredReader, DiscoveredWriter, RouteClass, RouterId, SiteId, SiteView, TopicKey,
};
use super::wire_type::Announced;
use super::{Action, EndpointId, Router, RouterCounters};
use crate::api::{
    ConfigError, DomainParticipant, Error, IoError, UntypedDataReader, UntypedDataWriter,
    UntypedReaderOptions, UntypedWriteSender,
};
use crate::core::discovery::EndpointData;
use crate::qos::{
    DataReaderQos, DataRepresentation, DataWriterQos, DomainParticipantQos, Durability, History,
    Ownership, Partition, PublisherQos, ReliabilityKind, SubscriberQos,
};
use crate::time::Instant;
use crate::wire::{EntityId, GuidPrefix, Locator};

/// How often the SEDP view of each site is refreshed.
pub const VIEW_PERIOD: Duration = Duration::from_millis(200);
/// How long a forward may wait for room in a full downstream KEEP_ALL history.
pub const MAX_BLOCKING: Duration = Duration::from_secs(30);
/// SPDP lease of the router's participants: how long a router that died without a goodbye
/// still counts as alive at its sites, so the standby of redundant routers takes over
/// after at most this (plus [`VIEW_PERIOD`] and endpoint matching).
pub const ROUTER_LEASE: Duration = Duration::from_secs(4);
/// SPDP announcement period of the router's participants (a few per [`ROUTER_LEASE`]).
pub const ROUTER_ANNOUNCE: Duration = Duration::from_secs(1);

/// The refusals [`RouterHandle::refusals`] keeps.
pub const MAX_REFUSALS_KEPT: usize = 256;

/// A running router; stops when dropped.
pub struct RouterHandle {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<RouterCounters>>,
    /// The participants' network summaries, one line per site.
    pub summary: Vec<String>,
    /// The site participants (for their counters, e.g. `peer_group_stats`).
    pub sites: Vec<DomainParticipant>,
    refusals: Arc<Mutex<Vec<String>>>,
}

impl RouterHandle {
    /// What the router's permissions on its secured sites refused so far, one line per
    /// (site, read or write, topic and partitions), naming the rule (at most
    /// [`MAX_REFUSALS_KEPT`]; [`RouterCounters::access_denied`] counts them all).
    pub fn refusals(&self) -> Vec<String> {
        self.refusals
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Stops the router and returns its counters.
    pub fn stop(mut self) -> RouterCounters {
        self.stop.store(true, Ordering::SeqCst);
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for RouterHandle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Opens the sites and starts routing between them, along shortest paths between routers
/// with the default failure detection (`router::paths`).
pub fn start(sites: Vec<Site>, rules: TopicRules, id: Option<u64>) -> Result<RouterHandle, Error> {
    start_with(sites, rules, id, Some(super::paths::Detection::default()))
}

/// [`start`] with the failure detection of the paths between routers (`None`: forward over
/// every link, without paths).
pub fn start_with(
    sites: Vec<Site>,
    rules: TopicRules,
    id: Option<u64>,
    detection: Option<super::paths::Detection>,
) -> Result<RouterHandle, Error> {
    let me = RouterId(id.unwrap_or_else(random_id));
    let mut participants = Vec::new();
    let mut links = Vec::new();
    let mut summary = Vec::new();
    for s in &sites {
        let qos = DomainParticipantQos {
            user_data: crate::qos::UserData {
                value: router_user_data(me),
            },
            ..Default::default()
        };
        let (lease, announce) = match s.peers {
            Some(_) => (link::LINK_LEASE, link::LINK_PROBE),
            None => (ROUTER_LEASE, ROUTER_ANNOUNCE),
        };
        let mut b = DomainParticipant::builder(s.domain)
            .qos(qos)
            .entity_name(super::peer_group::site_participant_name(&s.name))
            .lease_duration(lease)
            .announce_period(announce)
            .only_interface_subnets(true);
        if !s.interfaces.is_empty() {
            b = b.interfaces(s.interfaces.iter().cloned());
        }
        // One loop thread for all sites: a forward wakes no other thread.
        if let Some(first) = participants.first() {
            b = b.same_loop_as(first);
        }
        if let Some(peers) = &s.peers {
            b = b.multicast(false);
            for p in peers {
                b = b.initial_peer(*p);
            }
        }
        // A secured site: the router's identity, permissions and governance there.
        for sec in &s.security {
            b = b.property(sec.property, sec.value.clone());
        }
        let p = b.build().map_err(|e| match (e, s.security.first()) {
            (Error::Config(ConfigError::Security(reason)), Some(first)) => {
                Error::Config(ConfigError::Security(format!(
                    "site \"{}\" ([site.security] at {}): {reason}",
                    s.name, first.at
                )))
            }
            (e, _) => e,
        })?;
        // A link's probes of its peer (`link::announcements`).
        let probes = s
            .peers
            .is_some()
            .then(|| p.spdp_destinations().unwrap_or_default());
        links.push(probes);
        // docs/peer-group-cache.md: this site's participant restores the groups' samples.
        if !rules.peer_groups.is_empty() {
            let groups = super::peer_group::for_site(&rules.peer_groups, p.guid_prefix());
            p.set_peer_groups(groups)?;
        }
        summary.push(format!("site {}: {}", s.name, p.network()));
        participants.push(p);
    }
    let handles = participants.clone();
    let names = sites.iter().map(|s| s.name.clone()).collect();
    let refusals = Arc::new(Mutex::new(Vec::new()));
    let refusals2 = Arc::clone(&refusals);
    // Shortest paths over the links (`router::paths`), with each link's cost.
    let paths = detection.map(|d| (d, sites.iter().map(|s| s.cost).collect::<Vec<u32>>()));
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = Arc::clone(&stop);
    let thread = std::thread::Builder::new()
        .name("siftdds-router".into())
        .spawn(move || {
            let opened = Opened {
                participants,
                names,
                refusals: refusals2,
                links,
            };
            run(me, opened, rules, stop2, paths)
        })
        .map_err(|e| Error::Io(IoError::Thread(e)))?;
    Ok(RouterHandle {
        stop,
        thread: Some(thread),
        summary,
        sites: handles,
        refusals,
    })
}

/// A random router id (when none is configured).
fn random_id() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    h.finish()
}

/// A downstream writer as the listeners see it: its site, and the hand-off of writes to it
/// that never waits (while its history is known to have room; a full KEEP_ALL history
/// still makes the write wait, on the router thread).
struct Downstream {
    site: SiteId,
    sender: UntypedWriteSender,
}

/// What the router thread and the proxy readers' listeners (on the sites' loops) share.
/// Never held while waiting for a loop (an API call, a blocking write): a loop's listener
/// may be waiting for it. Holds no API handle (the listeners may drop it on the loop, where
/// a handle's drop would wait for the loop itself).
struct Shared {
    router: Router,
    writers: HashMap<EndpointId, Downstream>,
    /// Per downstream writer: forwards handed to the router thread and not yet written.
    /// While there are any, later forwards of that writer go the same way (in order).
    pending: HashMap<EndpointId, usize>,
}

impl Shared {
    /// Hands `f` to its downstream loop without waiting if its writer has credit and nothing
    /// of it is pending; otherwise gives it back, counted pending, for the router thread.
    fn forward(&mut self, mut f: super::Forward) -> Option<super::Forward> {
        let idle = self.pending.get(&f.writer).copied().unwrap_or(0) == 0;
        if let Some(w) = self.writers.get(&f.writer).filter(|_| idle) {
            match w.sender.try_write(f.request) {
                Ok(None) => return None,
                Ok(Some(request)) => f.request = request,
                Err(_) => {
                    log::warn!("router: site {} stopped", w.site.0);
                    return None;
                }
            }
        }
        *self.pending.entry(f.writer).or_default() += 1;
        Some(f)
    }

    /// Hands `forwards`, then the forwards a change of the paths caused
    /// (`Router::poll_forward`), to their writers, the ones that must wait to the router
    /// thread; under the caller's lock, so no listener's later forward overtakes them.
    /// False once the router thread is gone.
    fn forward_all(
        &mut self,
        forwards: Vec<super::Forward>,
        tx: &mpsc::Sender<super::Forward>,
    ) -> bool {
        let replayed = std::iter::from_fn(|| self.router.poll_forward()).collect::<Vec<_>>();
        for f in forwards.into_iter().chain(replayed) {
            if let Some(f) = self.forward(f)
                && tx.send(f).is_err()
            {
                return false;
            }
        }
        true
    }
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    // Every update is a single map operation or a router call that leaves it consistent.
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

fn since(epoch: std::time::Instant) -> Instant {
    Instant::from_nanos(epoch.elapsed().as_nanos() as u64)
}

struct Driver {
    me: RouterId,
    /// Per site: its name, for the reports.
    names: Vec<String>,
    /// What our permissions refused, one line each (`RouterHandle::refusals`).
    refusals: Arc<Mutex<Vec<String>>>,
    participants: Vec<DomainParticipant>,
    /// Per site: a link's SPDP probes of its peer (`None`: a LAN).
    links: Vec<Option<Vec<Locator>>>,
    /// Per site: the peer routers last seen on a link, for `link::replaced`.
    link_peers: Vec<BTreeMap<GuidPrefix, Vec<Locator>>>,
    /// Proxy readers and witnesses (deleted when dropped).
    endpoints: HashMap<EndpointId, UntypedDataReader>,
    /// Downstream writers and their sites (deleted when dropped; the listeners have their
    /// senders).
    writers: HashMap<EndpointId, (SiteId, UntypedDataWriter)>,
    shared: Arc<Mutex<Shared>>,
    tx: mpsc::Sender<super::Forward>,
    epoch: std::time::Instant,
}

/// The sites as [`start_with`] opened them, for the router thread.
struct Opened {
    participants: Vec<DomainParticipant>,
    names: Vec<String>,
    refusals: Arc<Mutex<Vec<String>>>,
    links: Vec<Option<Vec<Locator>>>,
}

fn run(
    me: RouterId,
    opened: Opened,
    rules: TopicRules,
    stop: Arc<AtomicBool>,
    paths: Option<(super::paths::Detection, Vec<u32>)>,
) -> RouterCounters {
    let Opened {
        participants,
        names,
        refusals,
        links,
    } = opened;
    let (tx, rx) = mpsc::channel::<super::Forward>();
    let mut router = Router::new(me, rules, RepositoryLimits::default()).with_settle(ROUTER_LEASE);
    let is_link: Vec<bool> = links.iter().map(Option::is_some).collect();
    if let Some((detection, costs)) = paths.filter(|_| is_link.contains(&true)) {
        // Wall-clock milliseconds: a restarted router's adverts replace its old ones.
        let first_seq = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        router = router.with_paths(detection, first_seq);
        for (i, cost) in costs.iter().enumerate().filter(|(i, _)| is_link[*i]) {
            router.add_link(SiteId(i as u16), *cost);
        }
    }
    let shared = Arc::new(Mutex::new(Shared {
        router,
        writers: HashMap::default(),
        pending: HashMap::default(),
    }));
    let mut d = Driver {
        me,
        names,
        refusals,
        link_peers: vec![BTreeMap::new(); participants.len()],
        participants,
        links,
        endpoints: HashMap::default(),
        writers: HashMap::default(),
        shared,
        tx,
        epoch: std::time::Instant::now(),
    };
    let heartbeats = paths::Heartbeats::open(&d.participants, &is_link, &d.shared, &d.tx, d.epoch);
    let mut next_view = std::time::Instant::now();
    while !stop.load(Ordering::SeqCst) {
        heartbeats.send(&d.shared, d.epoch);
        if std::time::Instant::now() >= next_view {
            next_view = std::time::Instant::now() + VIEW_PERIOD;
            for i in 0..d.participants.len() {
                let site = SiteId(i as u16);
                if let Some((view, announced)) = d.view(site) {
                    let now = d.now();
                    // The unregisters of upstream writers that left the site.
                    let mut s = lock(&d.shared);
                    let lost = s.router.update_site(now, site, view);
                    s.router.note_announced_types(now, site, &announced);
                    s.forward_all(lost, &d.tx);
                }
            }
            let now = d.now();
            let mut s = lock(&d.shared);
            s.router.handle_timeout(now);
            s.forward_all(Vec::new(), &d.tx);
            drop(s);
        }
        // Every pass (at most 20 ms apart), not every view: a type is used as soon as its
        // TypeObjects are in.
        d.learn_types();
        loop {
            let action = lock(&d.shared).router.poll_action();
            match action {
                Some(a) => d.apply(a),
                None => break,
            }
        }
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(f) => d.write(f, MAX_BLOCKING),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    drop(heartbeats);
    d.leave(&rx);
    lock(&d.shared).router.counters()
}

fn class_of(reliable: bool, durability: Durability) -> RouteClass {
    RouteClass {
        reliable,
        transient_local: durability != Durability::Volatile,
    }
}

/// The RELIABILITY kind and DURABILITY of a route class.
fn class_qos(class: RouteClass) -> (ReliabilityKind, Durability) {
    let reliability = if class.reliable {
        ReliabilityKind::Reliable
    } else {
        ReliabilityKind::BestEffort
    };
    let durability = if class.transient_local {
        Durability::TransientLocal
    } else {
        Durability::Volatile
    };
    (reliability, durability)
}

/// An untyped reader of `key`'s topic and type in its partitions (a proxy or a witness).
fn proxy_reader(
    p: &DomainParticipant,
    key: TopicKey,
    qos: DataReaderQos,
    options: UntypedReaderOptions,
) -> Result<UntypedDataReader, Error> {
    let subscriber = p.create_subscriber(SubscriberQos {
        partition: Partition {
            names: key.partitions,
        },
        ..SubscriberQos::default()
    });
    subscriber.create_untyped_datareader_with(&key.topic, &key.type_name, key.keyed, qos, options)
}

fn key_of(e: &EndpointData) -> TopicKey {
    let mut partitions = e.partition.names.clone();
    partitions.sort();
    let kind = e.guid.entity_id.kind();
    TopicKey {
        topic: e.topic_name.clone(),
        type_name: e.type_name.clone(),
        keyed: kind == EntityId::KIND_READER_WITH_KEY || kind == EntityId::KIND_WRITER_WITH_KEY,
        partitions,
    }
}

impl Driver {
    fn now(&self) -> Instant {
        since(self.epoch)
    }

    /// Asks for the types the core wants learnt from the wire (`router::wire_type`) and
    /// hands it those resolved since (`DomainParticipant::remote_type`).
    fn learn_types(&mut self) {
        loop {
            let now = self.now();
            let Some(request) = lock(&self.shared).router.poll_type_request(now) else {
                break;
            };
            let asked = self
                .participants
                .get(usize::from(request.site.0))
                .and_then(|p| p.request_endpoint_type(request.endpoint).ok())
                .unwrap_or(false);
            if !asked {
                log::info!(
                    "router: type of topic {:?} ({}) not requested from {:?}",
                    request.key.0,
                    request.key.1,
                    request.endpoint
                );
                lock(&self.shared).router.type_refused(&request.key);
            }
        }
        let asked = lock(&self.shared).router.types_asked();
        for request in asked {
            let Some(p) = self.participants.get(usize::from(request.site.0)) else {
                continue;
            };
            let desc = match p.remote_type(request.type_information.clone()) {
                Ok(Some(desc)) => desc,
                Ok(None)
                    if p.remote_type_given_up(request.type_information.clone())
                        .unwrap_or(false) =>
                {
                    // No answer held it: the next endpoint is asked at once.
                    log::info!(
                        "router: type of topic {:?} ({}) not given by {:?}",
                        request.key.0,
                        request.key.1,
                        request.endpoint
                    );
                    lock(&self.shared).router.type_refused(&request.key);
                    continue;
                }
                _ => continue,
            };
            let members = desc.members.len();
            let now = self.now();
            let after = lock(&self.shared).router.type_learnt(now, &request, desc);
            if let Some(after) = after {
                log::info!(
                    "router: type of topic {:?} ({}) learnt from the wire, {members} members, \
                     from {} {:?} on site {}, {} ms after the router first saw it",
                    request.key.0,
                    request.key.1,
                    if request.writer { "writer" } else { "reader" },
                    request.endpoint,
                    request.site.0,
                    after.as_millis()
                );
            }
        }
        while let Some(key) = lock(&self.shared).router.poll_type_failed() {
            log::warn!(
                "router: type of topic {:?} ({}) not learnt from the wire: its samples are \
                 forwarded as they come",
                key.0,
                key.1
            );
        }
    }

    /// The SEDP view of `site` (our own router's endpoints left out), and its endpoints that
    /// announced their type.
    fn view(&mut self, site: SiteId) -> Option<(SiteView, Vec<Announced>)> {
        let p = self.participants.get(usize::from(site.0))?;
        let snap = p.discovery_snapshot().ok()?;
        if let Some(Some(probes)) = self.links.get(usize::from(site.0)) {
            let (period, want) = link::announcements(&snap.participants, probes);
            if p.set_spdp_announcements(period, want.clone()).ok()? {
                log::info!("router: link SPDP to {want:?}");
            }
            // A peer router restarted at the same locator: the old one is gone now, not
            // when its lease ends (no more HEARTBEATs to its readers).
            let last = self.link_peers.get_mut(usize::from(site.0))?;
            for old in link::replaced(&snap.participants, last) {
                log::info!("router: peer router {old:?} replaced on site {}", site.0);
                let _ = p.forget_participant(old);
            }
        }
        let parts: Vec<(GuidPrefix, Option<RouterId>)> = snap
            .participants
            .iter()
            .map(|r| (r.guid_prefix, router_of(&r.user_data)))
            .collect();
        let (readers, writers) = (snap.readers, snap.writers);
        log::debug!(
            "router {:x} site {}: participants {parts:?}, {} readers, {} writers",
            self.me.0,
            site.0,
            readers.len(),
            writers.len()
        );
        let ours: Vec<GuidPrefix> = parts
            .iter()
            .filter(|(_, r)| *r == Some(self.me))
            .map(|(g, _)| *g)
            .collect();
        let announced = writers
            .iter()
            .map(|w| (&w.endpoint, true))
            .chain(readers.iter().map(|r| (&r.endpoint, false)))
            .filter(|(e, _)| !ours.contains(&e.guid.prefix))
            .filter_map(|(e, writer)| {
                Some(Announced {
                    guid: e.guid,
                    topic: e.topic_name.clone(),
                    type_name: e.type_name.clone(),
                    writer,
                    type_information: e.type_information.clone()?,
                })
            })
            .collect();
        let router_participants = parts
            .iter()
            .filter(|(_, r)| r.is_some_and(|r| r != self.me))
            .map(|(g, _)| *g)
            .collect();
        let mut routers: Vec<RouterId> = parts
            .iter()
            .filter_map(|(_, r)| r.filter(|r| *r != self.me))
            .collect();
        routers.sort();
        routers.dedup();
        let peer_router = routers.first().copied();
        let readers = readers
            .iter()
            .filter(|r| !ours.contains(&r.endpoint.guid.prefix))
            .map(|r| DiscoveredReader {
                guid: r.endpoint.guid,
                key: key_of(&r.endpoint),
                class: class_of(
                    r.qos.reliability.kind == ReliabilityKind::Reliable,
                    r.qos.durability,
                ),
                representation: r
                    .qos
                    .data_representation
                    .value
                    .first()
                    .copied()
                    .unwrap_or(0),
                exclusive: r.qos.ownership == Ownership::Exclusive,
                filter: r.content_filter.clone(),
                path: r
                    .endpoint
                    .router_path
                    .iter()
                    .map(|&id| RouterId(id))
                    .collect(),
            })
            .collect();
        let writers = writers
            .iter()
            .filter(|w| !ours.contains(&w.endpoint.guid.prefix))
            .map(|w| DiscoveredWriter {
                guid: w.endpoint.guid,
                key: key_of(&w.endpoint),
                class: class_of(
                    w.qos.reliability.kind == ReliabilityKind::Reliable,
                    w.qos.durability,
                ),
                history: w.qos.history,
            })
            .collect();
        Some((
            SiteView {
                peer_router,
                routers,
                router_participants,
                readers,
                writers,
            },
            announced,
        ))
    }

    fn apply(&mut self, action: Action) {
        log::info!("router {:x}: {action:?}", self.me.0);
        match action {
            Action::CreateWitness { id, spec } => self.create_witness(id, spec),
            Action::CreateReader {
                id,
                spec,
                from_history,
            } => {
                let Some(p) = self.participants.get(usize::from(spec.site.0)) else {
                    return;
                };
                let mut qos = DataReaderQos::default();
                (qos.reliability.kind, qos.durability) = class_qos(spec.class);
                qos.history = History::KeepAll;
                qos.data_representation = DataRepresentation {
                    value: vec![DataRepresentation::XCDR, DataRepresentation::XCDR2],
                };
                let options = UntypedReaderOptions {
                    router_path: spec.path.iter().map(|r| r.0).collect(),
                    content_filter: spec.filter,
                    // Where a reader starts, by its durability (docs/durability.md): a
                    // VOLATILE route takes only what is written after the match, so a
                    // restarted router does not forward again what its predecessor had not
                    // had acked. Unless its routes are watched: their repositories know what
                    // the sites had, and it takes the writers' history.
                    start_at_match: from_history.then_some(false),
                    ..UntypedReaderOptions::default()
                };
                let (site, key) = (spec.site, spec.key.clone());
                let reader = match proxy_reader(p, spec.key, qos, options) {
                    Ok(reader) => reader,
                    Err(e) => return self.refused(site, Access::Read, &key, e),
                };
                let (tx, shared, epoch) = (self.tx.clone(), Arc::clone(&self.shared), self.epoch);
                // Routed here, on the proxy reader's loop, as the samples arrive.
                let _ = reader.set_listener(move |changes, _| {
                    let mut s = lock(&shared);
                    for c in changes {
                        for f in s.router.on_change(since(epoch), id, &c) {
                            if let Some(f) = s.forward(f)
                                && tx.send(f).is_err()
                            {
                                return false;
                            }
                        }
                    }
                    true
                });
                self.endpoints.insert(id, reader);
            }
            Action::CreateWriter { id, spec, history } => {
                let Some(p) = self.participants.get(usize::from(spec.site.0)) else {
                    return;
                };
                let mut qos = DataWriterQos::default();
                (qos.reliability.kind, qos.durability) = class_qos(spec.class);
                qos.history = history;
                qos.ownership = if spec.exclusive {
                    Ownership::Exclusive
                } else {
                    Ownership::Shared
                };
                qos.data_representation = DataRepresentation {
                    value: vec![spec.representation],
                };
                let publisher = p.create_publisher(PublisherQos {
                    partition: Partition {
                        names: spec.key.partitions.clone(),
                    },
                    ..PublisherQos::default()
                });
                match publisher.create_untyped_datawriter(
                    &spec.key.topic,
                    &spec.key.type_name,
                    spec.key.keyed,
                    qos,
                ) {
                    Ok(writer) => {
                        let w = Downstream {
                            site: spec.site,
                            sender: writer.sender(),
                        };
                        lock(&self.shared).writers.insert(id, w);
                        self.writers.insert(id, (spec.site, writer));
                    }
                    Err(e) => self.refused(spec.site, Access::Write, &spec.key, e),
                }
            }
            Action::DeleteReader { id, .. } | Action::DeleteWitness { id, .. } => {
                // Deleted (and unannounced) as it drops.
                self.endpoints.remove(&id);
            }
            Action::DeleteWriter { id, .. } => {
                lock(&self.shared).writers.remove(&id);
                // Deleted (and unannounced) as it drops, the shared lock released.
                self.writers.remove(&id);
            }
        }
    }

    /// An endpoint of `key` on `site` was not created: if our permissions there refused
    /// it (DDS-Security 1.1 §9.4.3.2-3), the core drops every route that needs it and it is
    /// reported once (a warning naming the site, the topic and the rule; the count in
    /// [`RouterCounters::access_denied`]); any other failure is logged.
    fn refused(&mut self, site: SiteId, access: Access, key: &TopicKey, e: Error) {
        let name = self
            .names
            .get(usize::from(site.0))
            .map_or("?", String::as_str);
        let Error::Config(ConfigError::Security(reason)) = &e else {
            log::warn!("router: site {name}: topic {:?}: {e}", key.topic);
            return;
        };
        let now = self.now();
        if lock(&self.shared)
            .router
            .access_denied(now, site, access, key)
        {
            let what = match access {
                Access::Read => "read from",
                Access::Write => "written into",
            };
            let line = format!(
                "topic {:?} (partitions {:?}) is not {what} site {name}: our permissions \
                 there refuse it ({reason}); not forwarded",
                key.topic, key.partitions
            );
            log::warn!("router: {line}");
            let mut refusals = self.refusals.lock().unwrap_or_else(PoisonError::into_inner);
            if refusals.len() < MAX_REFUSALS_KEPT {
                refusals.push(line);
            }
        }
    }

    /// Writes a forward the listener could not hand over without waiting (may wait up to
    /// `wait` for history room), then counts it done.
    fn write(&mut self, f: super::Forward, wait: Duration) {
        let writer = f.writer;
        if let Some((site, w)) = self.writers.get(&writer) {
            match w.write(f.request, wait) {
                Ok(()) => {}
                Err(Error::Stopped) => log::warn!("router: site {} stopped", site.0),
                Err(e) => log::warn!("router: write on site {}: {e}", site.0),
            }
        }
        let mut s = lock(&self.shared);
        if let Some(n) = s.pending.get_mut(&writer) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                s.pending.remove(&writer);
            }
        }
    }
}
