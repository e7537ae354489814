//! The siftdds router: bridges DDS networks (sites) by reading what some site subscribes to
//! from the others and writing it there again, exactly once per site even over redundant
//! paths and in a cycle of routers (docs/router.md).
//!
//! This module is the router's sans-IO core: [`Router`] takes the latest view of each site
//! ([`table::SiteView`], learnt from SEDP), samples read by its proxy readers, and `now`;
//! it hands out [`Action`]s (create/delete a proxy reader or a downstream writer) and
//! [`Forward`]s (write this change through that writer). The routing table
//! ([`table`]) decides the endpoints, the relation repository ([`repository`]) decides
//! each forward. [`driver`] runs it over real participants.
//!
//! Must not (outside `driver`): read clocks, open sockets, spawn threads or sleep.

pub mod compose;
pub mod config;
pub mod driver;
pub mod keys;
pub mod link;
pub mod marker;
pub mod paths;
pub mod peer_group;
pub mod replay;
pub mod repository;
pub mod route_filter;
pub mod standby;
pub mod table;
pub mod transcode;
pub mod wire_type;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, VecDeque};

use foldhash::HashMap;

use crate::core::{CacheChange, ChangeKind, SampleIdentity, WriteRequest};
use crate::qos::History;
use crate::time::Instant;
use crate::wire::SequenceNumber;
use config::TopicRules;
use keys::KeyType;
use paths::{Detection, PathCounters, Paths, Rpf};
use replay::{Replay, ReplayCounters};
use repository::{Incoming, Repository, RepositoryCounters, RepositoryLimits, Verdict};
use route_filter::{ROUTE_MEMO_CAPACITY, RouteFilterCounters, RouteFilters};
use standby::{Standby, StandbyCounters};
use table::{
    DiscoveredWriter, ProxyKey, ProxyReaderSpec, RouteWriterSpec, RouterId, RoutingTable, SiteId,
    SiteView, WriterKey,
};
use transcode::{TranscodeCounters, Transcoder};
use wire_type::{Announced, TypeKey, TypeRequest, WireTypeCounters, WireTypes};

/// How long a replaced proxy reader (its composed filter or path changed) keeps reading
/// after its successor was created: make before break; the repository drops the overlap.
pub const PROXY_GRACE: core::time::Duration = core::time::Duration::from_secs(2);

/// A router-local endpoint id (the driver maps it to a GUID).
pub type EndpointId = u64;

/// What the driver must do to the participants.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Create an upstream proxy reader.
    CreateReader {
        /// Its id.
        id: EndpointId,
        /// What it reads.
        spec: ProxyReaderSpec,
        /// Take what the upstream writers still hold (their history) rather than start at
        /// the match: a route it serves is watched (`router::standby`), so its repository
        /// drops what the downstream site already had from another router.
        from_history: bool,
    },
    /// Delete a proxy reader.
    DeleteReader {
        /// Its id.
        id: EndpointId,
        /// Its site.
        site: SiteId,
    },
    /// Create a downstream writer.
    CreateWriter {
        /// Its id.
        id: EndpointId,
        /// What it writes.
        spec: RouteWriterSpec,
        /// Its HISTORY (config override, else by durability).
        history: History,
    },
    /// Delete a downstream writer.
    DeleteWriter {
        /// Its id.
        id: EndpointId,
        /// Its site.
        site: SiteId,
    },
    /// Create a witness reader: on `spec.site`, it reads what other routers write there
    /// for that route ([`Router::on_witness`]); VOLATILE, with `spec`'s reliability,
    /// partitions, representation and ownership.
    CreateWitness {
        /// Its id.
        id: EndpointId,
        /// The route it watches.
        spec: RouteWriterSpec,
    },
    /// Delete a witness reader.
    DeleteWitness {
        /// Its id.
        id: EndpointId,
        /// Its site.
        site: SiteId,
    },
}

/// One write the driver must make.
#[derive(Clone, Debug, PartialEq)]
pub struct Forward {
    /// The downstream site.
    pub site: SiteId,
    /// The downstream writer.
    pub writer: EndpointId,
    /// The change, with its original writer's identity.
    pub request: WriteRequest,
}

/// Counters of the whole router.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RouterCounters {
    /// Changes read by proxy readers.
    pub received: u64,
    /// Changes read by a proxy reader the router no longer knows (raced with its deletion).
    pub unknown_proxy: u64,
    /// The repositories' counters, summed (live writers only).
    pub repository: RepositoryCounters,
    /// What the witnesses learnt from other routers (`router::standby`).
    pub standby: StandbyCounters,
    /// The next-hop selection by the downstream readers' filters (`router::route_filter`).
    pub route_filter: RouteFilterCounters,
    /// Payloads and keys re-serialized for the downstream writers' representation
    /// (`router::transcode`).
    pub transcode: TranscodeCounters,
    /// The shortest-path forwarding between routers (`router::paths`).
    pub paths: PathCounters,
    /// What new children in the paths' trees were sent again (`router::replay`).
    pub replay: ReplayCounters,
    /// The topic types learnt from the wire (`router::wire_type`).
    pub wire_type: WireTypeCounters,
    /// Endpoints our permissions on a secured site refused (`Router::access_denied`): each
    /// (site, read or write, topic and partitions) once.
    pub access_denied: u64,
}

/// How [`Router::route`] takes a change.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Pass {
    /// As a proxy reader read it.
    Live,
    /// Again, from the replay buffer, after the paths changed.
    Replay,
}

struct Route {
    id: EndpointId,
    repository: Repository,
}

/// The router's sans-IO core.
pub struct Router {
    table: RoutingTable,
    rules: TopicRules,
    limits: RepositoryLimits,
    next_id: EndpointId,
    proxies: BTreeMap<ProxyKey, (EndpointId, ProxyReaderSpec)>,
    /// Every live proxy reader (retiring ones too) → what it reads.
    proxy_keys: HashMap<EndpointId, ProxyKey>,
    /// The type of each proxy reader's topic, when known: the key hash of samples sent
    /// without PID_KEY_HASH (`keys`, keyed topics), and the payloads re-serialized for
    /// another representation (`transcode`).
    proxy_types: HashMap<EndpointId, std::sync::Arc<KeyType>>,
    /// The next hops of each proxy reader whose type is known, by its targets' filters.
    route_filters: RouteFilters,
    /// Each proxy reader's [`RoutingTable::targets`] at table generation `.0` (computed
    /// once per table change rather than per sample; at most one entry per proxy reader).
    targets: (u64, HashMap<EndpointId, Vec<WriterKey>>),
    retiring: Vec<(Instant, EndpointId, SiteId)>,
    writers: BTreeMap<WriterKey, Route>,
    actions: VecDeque<Action>,
    received: u64,
    unknown_proxy: u64,
    standby: Standby,
    transcoder: Transcoder,
    /// Shortest-path forwarding over the links (`None`: every link target, as without).
    paths: Option<PathState>,
    /// The topic types being learnt from the endpoints that announce them.
    wire_types: WireTypes,
    /// Refusals by our permissions learnt so far ([`Self::access_denied`]).
    access_denied: u64,
}

/// The router's use of `router::paths`: when the view last changed, and what a new child
/// in a tree may have lost on its old path (`router::replay`).
struct PathState {
    paths: Paths,
    /// When the view last changed, and its generation then.
    changed_at: Instant,
    last_generation: u64,
    /// The reliable changes accepted within the last two detection times.
    replay: Replay,
    /// Forwards decided by a replay, not yet polled ([`Router::poll_forward`]).
    replayed: VecDeque<Forward>,
}

impl PathState {
    /// Whether the view has not changed for the settle time: only then are copies from off
    /// the reverse path dropped (while the routers converge they may disagree, and a copy
    /// from a router still on the old tree is the only one; the repositories keep exactly
    /// once).
    fn settled(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.changed_at) >= self.paths.detection().settle()
    }
}

impl Router {
    /// A router `me` with topic `rules` and repository `limits`.
    pub fn new(me: RouterId, rules: TopicRules, limits: RepositoryLimits) -> Self {
        Router {
            table: RoutingTable::new(me),
            rules,
            limits,
            next_id: 1,
            proxies: BTreeMap::new(),
            proxy_keys: HashMap::default(),
            proxy_types: HashMap::default(),
            route_filters: RouteFilters::new(ROUTE_MEMO_CAPACITY),
            targets: (0, HashMap::default()),
            retiring: Vec::new(),
            writers: BTreeMap::new(),
            actions: VecDeque::new(),
            received: 0,
            unknown_proxy: 0,
            standby: Standby::new(core::time::Duration::ZERO),
            transcoder: Transcoder::new(),
            paths: None,
            wire_types: WireTypes::new(),
            access_denied: 0,
        }
    }

    /// Forwards along shortest paths between routers (`router::paths`) with this failure
    /// `detection`; our adverts start at sequence number `first_seq`. Links are then named
    /// with [`Self::add_link`].
    pub fn with_paths(mut self, detection: Detection, first_seq: u64) -> Self {
        self.paths = Some(PathState {
            paths: Paths::new(self.table.me(), detection, first_seq),
            changed_at: Instant::ZERO,
            last_generation: u64::MAX,
            replay: Replay::new(detection.time().saturating_mul(2)),
            replayed: VecDeque::new(),
        });
        self
    }

    /// Names `site` a link to a peer router, of `cost` (with paths only).
    pub fn add_link(&mut self, site: SiteId, cost: u32) {
        if let Some(p) = &mut self.paths {
            p.paths.add_link(site, cost);
        }
    }

    /// A path heartbeat received on link `site` (`router::paths`).
    pub fn handle_heartbeat(&mut self, now: Instant, site: SiteId, bytes: &[u8]) {
        if let Some(p) = &mut self.paths {
            p.paths.handle_heartbeat(now, site, bytes);
        }
        self.paths_changed(now);
    }

    /// The path heartbeat due now, if any: the links to send it on and its bytes.
    pub fn poll_heartbeat(&mut self, now: Instant) -> Option<(Vec<SiteId>, Vec<u8>)> {
        self.paths.as_mut()?.paths.poll_heartbeat(now)
    }

    /// The path computation, if enabled.
    pub fn paths(&self) -> Option<&Paths> {
        self.paths.as_ref().map(|p| &p.paths)
    }

    /// Notes when the view of the paths last changed ([`PathState::settled`]); when it did,
    /// replays the recent changes to the links whose peers are now children in their
    /// origins' trees (`router::replay`).
    fn paths_changed(&mut self, now: Instant) {
        let Some(p) = &mut self.paths else {
            return;
        };
        let generation = p.paths.generation();
        if p.last_generation == generation {
            return;
        }
        p.last_generation = generation;
        p.changed_at = now;
        self.replay(now);
    }

    /// Writes the recent changes again to the links whose peers are children below which
    /// their topics are read, as far as those routes have not had them (`router::replay`).
    fn replay(&mut self, now: Instant) {
        let Some(p) = &mut self.paths else {
            return;
        };
        p.replay.expire(now);
        if p.replay.is_empty() {
            return;
        }
        let recent = p.replay.recent();
        let mut written = 0;
        for (proxy, change) in recent {
            let forwards = self.route(now, proxy, &change, Pass::Replay);
            written += forwards.len();
            if let Some(p) = &mut self.paths {
                p.replayed.extend(forwards);
            }
        }
        if let Some(p) = &mut self.paths {
            p.replay.replayed(written);
        }
    }

    /// The next forward a change of the paths caused (a replay to a new child,
    /// `router::replay`), after [`Self::handle_heartbeat`], [`Self::handle_timeout`] and
    /// [`Self::update_site`]. The driver must hand these to their writers before any later
    /// forward of [`Self::on_change`] (the same lock), so each route stays in order.
    pub fn poll_forward(&mut self) -> Option<Forward> {
        self.paths.as_mut()?.replayed.pop_front()
    }

    /// Tells the paths what our LANs have: the participants of their writers (origins) and
    /// the topics their readers read.
    fn note_local(&mut self, now: Instant) {
        let Some(p) = &mut self.paths else {
            return;
        };
        let mut origins = Vec::new();
        let mut topics = Vec::new();
        for s in self.table.sites().filter(|s| !p.paths.is_link(*s)) {
            let Some(v) = self.table.site(s) else {
                continue;
            };
            origins.extend(
                v.writers
                    .iter()
                    .map(|w| w.guid.prefix)
                    .filter(|x| !v.router_participants.contains(x)),
            );
            topics.extend(v.readers.iter().map(|r| r.key.topic.clone()));
        }
        p.paths.set_local(now, origins, &topics);
        self.paths_changed(now);
    }

    /// Elects this router into or from a site only once it has been on it for `settle`
    /// where another router is present, else for at most `standby::UNCONTESTED_SETTLE`
    /// (`router::standby`; the driver uses the routers' SPDP lease). Zero (the default):
    /// at once.
    pub fn with_settle(mut self, settle: core::time::Duration) -> Self {
        self.standby = Standby::new(settle);
        self
    }

    /// Memoizes at most `capacity` sample projections per proxy reader when choosing next
    /// hops (`router::route_filter`; default [`ROUTE_MEMO_CAPACITY`], 0: evaluate the
    /// filters on every sample).
    pub fn with_route_memo(mut self, capacity: usize) -> Self {
        self.route_filters = RouteFilters::new(capacity);
        self
    }

    /// The routing table.
    pub fn table(&self) -> &RoutingTable {
        &self.table
    }

    /// Replaces the view of `site` (topics the rules do not route are dropped from it) and
    /// reconciles the endpoints with the table. Returns the unregisters owed downstream for
    /// the upstream writers that left the site (`writers_lost`).
    pub fn update_site(&mut self, now: Instant, site: SiteId, mut view: SiteView) -> Vec<Forward> {
        let rules = &self.rules;
        // The routers' path heartbeats (`router::paths`) are never routed.
        let routed = |k: &table::TopicKey| {
            k.topic != paths::HEARTBEAT_TOPIC && rules.routes(&k.topic, &k.type_name)
        };
        view.readers.retain(|r| routed(&r.key));
        view.writers.retain(|w| routed(&w.key));
        self.standby.note_site(now, site, &mut self.table);
        self.route_filters.table_changed();
        if self.table.site(site) == Some(&view) {
            return Vec::new();
        }
        let lost: Vec<DiscoveredWriter> = self
            .table
            .site(site)
            .map(|old| {
                old.writers
                    .iter()
                    .filter(|w| !view.writers.iter().any(|n| n.guid == w.guid))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        // Before the table changes: the proxy readers of the lost writers may go with it.
        let forwards = self.writers_lost(now, site, &lost);
        self.table.set_site(site, view);
        self.note_local(now);
        let before = self.link_writers();
        self.reconcile(now);
        // A new route onto a link (its peer's proxy reader just appeared, e.g. the link is
        // back and the paths switched before discovery): it gets what its tree owes it.
        if self.link_writers().iter().any(|id| !before.contains(id)) {
            self.replay(now);
        }
        forwards
    }

    /// The downstream writers on links (with paths).
    fn link_writers(&self) -> Vec<EndpointId> {
        let Some(p) = &self.paths else {
            return Vec::new();
        };
        self.writers
            .iter()
            .filter(|(k, _)| p.paths.is_link(k.0))
            .map(|(_, r)| r.id)
            .collect()
    }

    /// Upstream writers that left `site` (lease expired, deleted, their participant gone):
    /// every instance a downstream route has from one of them and from no other source is
    /// unregistered there, so its readers see NOT_ALIVE_NO_WRITERS (DDS 1.4 §2.2.2.5.1.4)
    /// also across further routers. The proxy reader reports such instances itself
    /// (`ChangeKind::NotAliveNoWriters`) only when it can attribute them: writers that send
    /// no PID_KEY_HASH (Cyclone 0.10, Fast DDS 2.9) leave it nothing to attribute, whereas
    /// the repositories know each instance's sources. A NOT_ALIVE_NO_WRITERS of the proxy
    /// that reads it goes through [`Self::on_change`] per instance; an instance already
    /// unregistered there is left alone (`Repository::decide`).
    fn writers_lost(
        &mut self,
        now: Instant,
        site: SiteId,
        lost: &[DiscoveredWriter],
    ) -> Vec<Forward> {
        let mut out = Vec::new();
        for w in lost {
            let proxies: Vec<EndpointId> = self
                .proxy_keys
                .iter()
                .filter(|(_, k)| {
                    k.0 == site && k.1.topic == w.key.topic && k.1.type_name == w.key.type_name
                })
                .map(|(id, _)| *id)
                .collect();
            let mut keys: Vec<[u8; 16]> = self
                .writers
                .values()
                .flat_map(|r| r.repository.instances_via(w.guid))
                .collect();
            keys.sort_unstable();
            keys.dedup();
            for proxy in proxies {
                for key in &keys {
                    let change = CacheChange {
                        kind: ChangeKind::NotAliveNoWriters,
                        writer_guid: w.guid,
                        sequence_number: SequenceNumber(0),
                        key_hash: Some(*key),
                        source_timestamp: None,
                        data: bytes::Bytes::new(),
                        original_writer: None,
                        coherent_set: None,
                        group: None,
                    };
                    out.extend(self.on_change(now, proxy, &change));
                }
            }
        }
        out
    }

    fn fresh_id(&mut self) -> EndpointId {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        id
    }

    fn reconcile(&mut self, now: Instant) {
        self.route_filters.table_changed();
        let wanted = self.table.proxies();
        let gone: Vec<ProxyKey> = self
            .proxies
            .keys()
            .filter(|k| !wanted.contains_key(*k))
            .cloned()
            .collect();
        for k in gone {
            if let Some((id, spec)) = self.proxies.remove(&k) {
                self.proxy_keys.remove(&id);
                self.proxy_types.remove(&id);
                self.route_filters.remove_proxy(id);
                self.actions.push_back(Action::DeleteReader {
                    id,
                    site: spec.site,
                });
            }
        }
        for (k, spec) in wanted {
            if self.proxies.get(&k).is_some_and(|(_, s)| *s == spec) {
                continue;
            }
            let id = self.fresh_id();
            if let Some((old, old_spec)) = self.proxies.remove(&k) {
                self.retiring
                    .push((now.saturating_add(PROXY_GRACE), old, old_spec.site));
                if let Some(p) = &mut self.paths {
                    p.replay.rename(old, id);
                }
            }
            self.proxy_keys.insert(id, k.clone());
            let from_history = self.table.targets(&k).iter().any(|t| self.standby.knows(t));
            self.type_proxy(id, &spec.key.topic, &spec.key.type_name);
            self.actions.push_back(Action::CreateReader {
                id,
                spec: spec.clone(),
                from_history,
            });
            self.proxies.insert(k, (id, spec));
        }
        let wanted = self.table.writers();
        let gone: Vec<WriterKey> = self
            .writers
            .keys()
            .filter(|k| !wanted.contains_key(*k))
            .cloned()
            .collect();
        for k in gone {
            if let Some(route) = self.writers.remove(&k) {
                self.actions.push_back(Action::DeleteWriter {
                    id: route.id,
                    site: k.0,
                });
                self.standby.keep(k, route.repository);
            }
        }
        for (k, spec) in wanted {
            if self.writers.contains_key(&k) {
                continue;
            }
            let id = self.fresh_id();
            let upstream = keys::upstream_history(&self.table, spec.site, &spec.key);
            let history =
                self.rules
                    .history_after(&spec.key.topic, spec.class.transient_local, upstream);
            let policy = self.rules.policy(&spec.key.topic);
            let repository = self
                .standby
                .take(&k)
                .unwrap_or_else(|| Repository::new(self.limits, policy));
            self.writers.insert(k, Route { id, repository });
            self.actions
                .push_back(Action::CreateWriter { id, spec, history });
        }
        let mut next_id = self.next_id;
        self.standby.reconcile(
            &self.table,
            || {
                let id = next_id;
                next_id = next_id.wrapping_add(1);
                id
            },
            &mut self.actions,
        );
        self.next_id = next_id;
    }

    /// Gives proxy reader `id` of `topic` and `type_name` the topic's type as now known
    /// (key hashes, transcoding, next hops by filter); none while it is unknown.
    fn type_proxy(&mut self, id: EndpointId, topic: &str, type_name: &str) {
        let keys = self.rules.key_types();
        if let Some(t) = keys.resolve(topic, type_name) {
            self.proxy_types.insert(id, t);
        }
        if let Some(desc) = keys.descriptor(topic, type_name) {
            self.route_filters.add_proxy(id, topic, desc);
        }
    }

    /// The endpoints of `site` that announce their type (PID_TYPE_INFORMATION): those of a
    /// routed topic whose type no IDL file gives and none was learnt for are asked in turn
    /// ([`Self::poll_type_request`], `router::wire_type`).
    pub fn note_announced_types(&mut self, now: Instant, site: SiteId, announced: &[Announced]) {
        let rules = &self.rules;
        self.wire_types
            .note(now, site, announced, |topic, type_name| {
                topic != paths::HEARTBEAT_TOPIC
                    && rules.routes(topic, type_name)
                    && !rules.key_types().configured(topic)
            });
    }

    /// The next endpoint whose participant the driver asks for its type (TypeLookup).
    pub fn poll_type_request(&mut self, now: Instant) -> Option<TypeRequest> {
        self.wire_types.poll_request(now)
    }

    /// The participant did not send the request for `key` (its TypeLookup client at a
    /// bound, or unusable TypeInformation), or gave up on it (no answer held the type): the
    /// next endpoint will be asked.
    pub fn type_refused(&mut self, key: &TypeKey) {
        self.wire_types.refused(key);
    }

    /// The requests whose answers the driver looks for.
    pub fn types_asked(&self) -> Vec<TypeRequest> {
        self.wire_types.asking().cloned().collect()
    }

    /// A type given up on (every endpoint asked, or none answered in time), once each: it
    /// stays unknown, so its samples are forwarded as they came.
    pub fn poll_type_failed(&mut self) -> Option<TypeKey> {
        self.wire_types.poll_failed()
    }

    /// `desc` is the type `request` asked for, resolved from the wire: from now on every
    /// proxy reader of its (topic, type name) computes key hashes, transcodes and picks next
    /// hops by filter with it (`keys::KeyTypes::descriptor` ranks a reader's type below the
    /// built-in ShapeType). Returns how long after the endpoint asked was first seen, or
    /// `None` when it was not taken (it was known already).
    pub fn type_learnt(
        &mut self,
        now: Instant,
        request: &TypeRequest,
        desc: crate::types::TypeDescriptor,
    ) -> Option<core::time::Duration> {
        let key = &request.key;
        let after = self.wire_types.learnt(now, key, request.writer)?;
        self.rules
            .key_types_mut()
            .learn(&key.0, &key.1, desc, request.writer);
        let proxies: Vec<EndpointId> = self
            .proxy_keys
            .iter()
            .filter(|(_, k)| k.1.topic == key.0 && k.1.type_name == key.1)
            .map(|(id, _)| *id)
            .collect();
        for id in proxies {
            self.type_proxy(id, &key.0, &key.1);
        }
        self.route_filters.table_changed();
        Some(after)
    }

    /// Deletes the proxy readers whose grace period ended.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.standby.settle_due(now, &mut self.table) {
            self.reconcile(now);
        }
        if let Some(p) = &mut self.paths {
            p.paths.handle_timeout(now);
        }
        self.paths_changed(now);
        let (due, keep): (Vec<_>, Vec<_>) =
            self.retiring.drain(..).partition(|(t, _, _)| *t <= now);
        self.retiring = keep;
        for (_, id, site) in due {
            self.proxy_keys.remove(&id);
            self.proxy_types.remove(&id);
            self.route_filters.remove_proxy(id);
            self.actions.push_back(Action::DeleteReader { id, site });
        }
    }

    /// When [`Self::handle_timeout`] (or, with paths, [`Self::poll_heartbeat`]) must run next.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let retiring = self.retiring.iter().map(|(t, _, _)| *t).min();
        let paths = self.paths.as_ref().and_then(|p| p.paths.poll_timeout());
        [
            retiring,
            self.standby.poll_timeout(&self.table),
            paths,
            self.wire_types.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// The next endpoint action.
    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    /// A change read by proxy reader `proxy`: the writes it causes, each decided by the
    /// repository of its downstream route.
    pub fn on_change(
        &mut self,
        now: Instant,
        proxy: EndpointId,
        change: &CacheChange,
    ) -> Vec<Forward> {
        self.received = self.received.saturating_add(1);
        if !self.proxy_keys.contains_key(&proxy) {
            self.unknown_proxy = self.unknown_proxy.saturating_add(1);
            return Vec::new();
        }
        self.route(now, proxy, change, Pass::Live)
    }

    /// Where `change`, read by `proxy`, goes: as read ([`Pass::Live`]), or again from the
    /// replay buffer after the paths changed ([`Pass::Replay`]: only onto the links whose
    /// peers are children below which the topic is read, and only what their routes have
    /// not had).
    fn route(
        &mut self,
        now: Instant,
        proxy: EndpointId,
        change: &CacheChange,
        pass: Pass,
    ) -> Vec<Forward> {
        let Some(key) = self.proxy_keys.get(&proxy) else {
            return Vec::new();
        };
        let identity = (change.kind != ChangeKind::NotAliveNoWriters).then(|| {
            change.original_writer.unwrap_or(SampleIdentity {
                writer_guid: change.writer_guid,
                sequence_number: change.sequence_number,
            })
        });
        // Cyclone and Fast DDS writers send no PID_KEY_HASH: computed from the payload when
        // the topic's type is known, so instances stay apart (and the key hash goes on).
        let ty = self.proxy_types.get(&proxy).map(|t| &**t);
        let key_hash = change.key_hash.or_else(|| {
            (key.1.keyed && change.kind != ChangeKind::NotAliveNoWriters)
                .then_some(ty)
                .flatten()
                .and_then(|t| t.key_hash(change.kind, &change.data))
        });
        let mut shaped = transcode::Change {
            topic: &key.1.topic,
            ty,
            keyed: key.1.keyed,
            kind: change.kind,
            key_hash,
            data: &change.data,
        };
        if pass == Pass::Live {
            self.transcoder.learn(shaped);
        }
        // Per (representation, kind): the payload, re-serialized at most once per change.
        // Only payloads that took work are kept, so a change forwarded as received
        // allocates nothing here (`Vec::new` does not allocate).
        let mut payloads: Vec<(i16, ChangeKind, bytes::Bytes)> = Vec::new();
        let incoming = Incoming {
            kind: change.kind,
            identity,
            via: change.writer_guid,
            key_hash,
            data: &change.data,
        };
        // Shortest-path forwarding: the origin router of the sample (whose LAN has its
        // original writer), the reverse-path check, then only the tree's links below us.
        let me = self.table.me();
        let from_app = self
            .table
            .site(key.0)
            .is_none_or(|v| !v.router_participants.contains(&change.writer_guid.prefix));
        let (origin, root) = match (&mut self.paths, identity) {
            // Read on a LAN from an application writer: it originates here, whether or not
            // the view lists the writer yet (announced at once if not).
            (Some(p), Some(id)) if !p.paths.is_link(key.0) && from_app => {
                p.paths.add_origin(now, id.writer_guid.prefix);
                (Some(me), Some(me))
            }
            // Read on a link: the router an advert names for its writer; until the adverts
            // name it (a writer just discovered), the tree of the peer it came from (right
            // when it originated there; the repositories keep exactly once if not).
            (Some(p), Some(id)) => {
                let origin = p.paths.origin_of(id.writer_guid.prefix);
                (origin, origin.or_else(|| p.paths.peer(key.0)))
            }
            _ => (None, None),
        };
        // Off the reverse path once the view has settled: the sender takes us for its child
        // while we do not take it for our parent (it heard of a failure first and replays
        // what we may have lost, or it is behind). Our LANs may lack the sample: it goes
        // there (their repositories keep exactly once and in order), never onto a link.
        let mut lans_only = false;
        if let (Some(p), Some(o), Pass::Live) = (&mut self.paths, origin, pass) {
            let settled = p.settled(now);
            lans_only = p.paths.rpf(o, key.0) == Rpf::Reject && settled;
        }
        // Kept for a replay (`router::replay`): every reliable change, also from off the
        // reverse path (the sender may be right and our view behind: once it catches up,
        // the peers that became our children get what they lack from us).
        if let (Some(p), Some(_), Pass::Live, true) =
            (&mut self.paths, identity, pass, key.2.reliable)
        {
            p.replay.keep(now, proxy, change);
        }
        let mut out = Vec::new();
        let generation = self.table.generation();
        if self.targets.0 != generation {
            self.targets = (generation, HashMap::default());
        }
        let table = &self.table;
        let targets = self
            .targets
            .1
            .entry(proxy)
            .or_insert_with(|| table.targets(key));
        // Only the targets with a reader the sample passes (when the type is known).
        let hops = self
            .route_filters
            .select(&self.table, proxy, key, targets, change);
        for (i, target) in targets.iter().enumerate() {
            if hops.as_ref().is_some_and(|h| !h.contains(i)) {
                continue;
            }
            // Never back to the site its original writer is on (that site has it: a loop
            // of routers would otherwise return it there).
            if identity.is_some_and(|id| self.table.writer_on(target.0, id.writer_guid)) {
                continue;
            }
            let link = self
                .paths
                .as_ref()
                .is_some_and(|p| p.paths.is_link(target.0));
            if link && lans_only || !link && pass == Pass::Replay {
                continue;
            }
            if let (Some(p), Some(o)) = (&mut self.paths, root) {
                let onto = p.paths.onto(o, &key.1.topic, target.0);
                if onto == Some(false) || pass == Pass::Replay && onto != Some(true) {
                    continue;
                }
            }
            let Some(route) = self.writers.get_mut(target) else {
                continue;
            };
            // A replay writes only what this link has not had, silently (not a duplicate
            // that arrived: the buffer holds what the link's peer mostly has already).
            if pass == Pass::Replay && identity.is_none_or(|id| route.repository.has(id)) {
                continue;
            }
            if let Verdict::Forward(kind) = route.repository.decide(now, incoming) {
                // A NOT_ALIVE change carries the serialized key or nothing; the key hash
                // identifies the instance either way.
                let data = match payloads.iter().find(|p| p.0 == target.3 && p.1 == kind) {
                    Some(p) => p.2.clone(),
                    None => {
                        shaped.kind = kind;
                        match self.transcoder.converted(shaped, target.3) {
                            Some(data) => {
                                payloads.push((target.3, kind, data.clone()));
                                data
                            }
                            None => change.data.clone(),
                        }
                    }
                };
                let request = WriteRequest::new(kind, key_hash, data)
                    .with_source_timestamp(change.source_timestamp)
                    .with_original_writer(identity);
                out.push(Forward {
                    site: target.0,
                    writer: route.id,
                    request,
                });
            }
        }
        out
    }

    /// The counters so far.
    pub fn counters(&self) -> RouterCounters {
        let mut repository = RepositoryCounters::default();
        for r in self.writers.values() {
            let c = r.repository.counters();
            repository.forwarded += c.forwarded;
            repository.duplicates += c.duplicates;
            repository.instance_unchanged += c.instance_unchanged;
            repository.policy += c.policy;
            repository.writers_evicted += c.writers_evicted;
            repository.instances_evicted += c.instances_evicted;
        }
        RouterCounters {
            received: self.received,
            unknown_proxy: self.unknown_proxy,
            repository,
            standby: self.standby.counters(),
            route_filter: self.route_filters.counters(),
            transcode: self.transcoder.counters(),
            paths: self
                .paths
                .as_ref()
                .map(|p| p.paths.counters())
                .unwrap_or_default(),
            replay: self
                .paths
                .as_ref()
                .map(|p| p.replay.counters())
                .unwrap_or_default(),
            wire_type: self.wire_types.counters(),
            access_denied: self.access_denied,
        }
    }

    /// The participant of `site` refused to create an endpoint because our permissions
    /// there deny `access` to `key` (DDS-Security 1.1 §9.4.3.2-3): from now on no route
    /// reads `key` from `site` (`Read`) or writes it into `site` (`Write`), so a sample goes
    /// from U to D only where we may read it on U and write it on D. The endpoint that
    /// failed is deleted with the routes that needed it (a proxy reader that served only
    /// refused routes goes too). False when the refusal was known.
    pub fn access_denied(
        &mut self,
        now: Instant,
        site: SiteId,
        access: table::Access,
        key: &table::TopicKey,
    ) -> bool {
        let new = self.table.deny(site, access, key);
        if new {
            self.access_denied = self.access_denied.saturating_add(1);
            self.reconcile(now);
        }
        new
    }

    /// A change read by witness `witness` (`Action::CreateWitness`): if another router's
    /// participant wrote it, it is what the witness's site already has — its identity and,
    /// with its key hash, the state it leaves its instance in — learnt into the route's
    /// repository (or kept for it while we stand by).
    pub fn on_witness(&mut self, now: Instant, witness: EndpointId, change: &CacheChange) {
        let Some(key) = self.standby.route_of(witness).cloned() else {
            self.standby.ignored();
            return;
        };
        let from_router = self
            .table
            .site(key.0)
            .is_some_and(|v| v.router_participants.contains(&change.writer_guid.prefix));
        let Some(id) = change.original_writer.filter(|_| from_router) else {
            self.standby.ignored();
            return;
        };
        // The original writer stands for the upstream writer it came through (it is, for
        // the first router after it): its loss unregisters what it registered.
        let incoming = Incoming {
            kind: change.kind,
            identity: Some(id),
            via: id.writer_guid,
            key_hash: change.key_hash,
            data: &change.data,
        };
        let (limits, policy) = (self.limits, self.rules.policy(&key.1.topic));
        let route = self.writers.get_mut(&key).map(|r| &mut r.repository);
        self.standby.learn(now, &key, incoming, route, || {
            Repository::new(limits, policy)
        });
    }

    /// Live proxy readers and downstream writers (retiring readers included).
    pub fn endpoint_counts(&self) -> (usize, usize) {
        (self.proxy_keys.len(), self.writers.len())
    }
}
