//! The routing table: per site, the remote readers and writers SEDP announced there (topic,
//! type, partitions, filter, reliability/durability/ownership/representation, the router
//! path they came along), and what follows from it — the upstream proxy readers and the
//! downstream writers the router must have.
//!
//! A reader on site D is a *subscription* of D. For every other site U it is routed from U
//! (a proxy reader in U) unless split horizon or the path vector forbid it: never back onto
//! the site it was learnt on, never towards a router already on its path, never one whose
//! path holds this router. One proxy reader per (U, topic, partitions, class) carries the
//! composed filter of the readers it serves and the shortest of their paths plus our id.
//! A route from U into D also needs the router's own permissions on a secured site: to read
//! the topic on U and to write it on D ([`RoutingTable::deny`], learnt when the site's
//! participant refused to create the endpoint).
//!
//! Must not: perform I/O or keep endpoint state beyond the latest view of each site; it is
//! recomputed from the views, never patched.

use std::collections::{BTreeMap, BTreeSet};

use super::compose::compose;
use crate::core::discovery::ContentFilter;
use crate::qos::History;
use crate::wire::{Guid, GuidPrefix};

/// A site of the router: one participant (a LAN, or a link to a peer router).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SiteId(pub u16);

/// A router's identity in path vectors.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RouterId(pub u64);

/// What routes are per: a topic, its type, and the reader's partitions (sorted).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TopicKey {
    /// Topic name.
    pub topic: String,
    /// Type name.
    pub type_name: String,
    /// Keyed type (entity kind).
    pub keyed: bool,
    /// PARTITION names (empty: the default partition).
    pub partitions: Vec<String>,
}

/// What the router's permissions on a site may refuse it (DDS-Security 1.1 §9.4.3.2-3,
/// check_create_datareader / check_create_datawriter).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Access {
    /// Reading the topic there (a proxy reader or a witness).
    Read,
    /// Writing the topic there (a downstream writer).
    Write,
}

/// The RxO class of a route: what the proxy reader requests and the downstream writer offers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RouteClass {
    /// RELIABLE (else BEST_EFFORT).
    pub reliable: bool,
    /// TRANSIENT_LOCAL or more (else VOLATILE).
    pub transient_local: bool,
}

/// A remote reader as SEDP announced it on a site (RTPS 2.5 §8.5.4.4, DiscoveredReaderData),
/// reduced to what the table routes by (from `core::discovery::SubscriptionData`). Not
/// `core::RemoteReader`, which is what a local writer knows of a matched reader.
#[derive(Clone, Debug, PartialEq)]
pub struct DiscoveredReader {
    /// Its GUID.
    pub guid: Guid,
    /// Topic, type, partitions.
    pub key: TopicKey,
    /// Reliability and durability requested.
    pub class: RouteClass,
    /// Its first accepted data representation (XCDR = 0, XCDR2 = 2).
    pub representation: i16,
    /// EXCLUSIVE ownership requested.
    pub exclusive: bool,
    /// Its content filter (PID_CONTENT_FILTER_PROPERTY).
    pub filter: Option<ContentFilter>,
    /// The routers it was relayed through (empty for an application reader).
    pub path: Vec<RouterId>,
}

/// A remote writer as SEDP announced it on a site (RTPS 2.5 §8.5.4.4, DiscoveredWriterData),
/// reduced to what the routes may expect upstream (from `core::discovery::PublicationData`).
#[derive(Clone, Debug, PartialEq)]
pub struct DiscoveredWriter {
    /// Its GUID.
    pub guid: Guid,
    /// Topic, type, partitions.
    pub key: TopicKey,
    /// Reliability and durability offered.
    pub class: RouteClass,
    /// Its HISTORY.
    pub history: History,
}

/// The latest view of one site.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SiteView {
    /// The router at the other end, when the site is a link to one (or a LAN with one).
    pub peer_router: Option<RouterId>,
    /// Every other router whose participant is alive on the site (USER_DATA marker).
    pub routers: Vec<RouterId>,
    /// Those routers' participants on the site: their writers' samples tell what the site
    /// already has (`router::standby`).
    pub router_participants: Vec<GuidPrefix>,
    /// Remote readers (the router's own endpoints excluded).
    pub readers: Vec<DiscoveredReader>,
    /// Remote writers (the router's own endpoints excluded).
    pub writers: Vec<DiscoveredWriter>,
}

/// An upstream proxy reader the router must have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProxyReaderSpec {
    /// Where it reads.
    pub site: SiteId,
    /// Topic, type, partitions.
    pub key: TopicKey,
    /// Requested reliability and durability.
    pub class: RouteClass,
    /// The composed filter of the readers it serves (`None`: everything).
    pub filter: Option<ContentFilter>,
    /// The path it announces: the shortest path of the readers it serves, then us.
    pub path: Vec<RouterId>,
}

/// Identity of a proxy reader in the table (its filter and path may change).
pub type ProxyKey = (SiteId, TopicKey, RouteClass);

/// A downstream writer the router must have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteWriterSpec {
    /// Where it writes.
    pub site: SiteId,
    /// Topic, type, partitions.
    pub key: TopicKey,
    /// Offered reliability and durability.
    pub class: RouteClass,
    /// Announced data representation.
    pub representation: i16,
    /// EXCLUSIVE ownership offered.
    pub exclusive: bool,
}

/// Identity of a downstream writer.
pub type WriterKey = (SiteId, TopicKey, RouteClass, i16, bool);

impl RouteWriterSpec {
    /// Its identity.
    pub fn key(&self) -> WriterKey {
        (
            self.site,
            self.key.clone(),
            self.class,
            self.representation,
            self.exclusive,
        )
    }
}

/// The routing table of one router.
#[derive(Clone, Debug)]
pub struct RoutingTable {
    me: RouterId,
    sites: BTreeMap<SiteId, SiteView>,
    /// Sites we joined too recently to have heard every router there (`router::standby`).
    unsettled: BTreeSet<SiteId>,
    /// Bumped by every change ([`Self::generation`]).
    generation: u64,
    /// What our permissions refuse us per site ([`Self::deny`]).
    denied: BTreeMap<(SiteId, Access), BTreeSet<TopicKey>>,
}

impl RoutingTable {
    /// An empty table for router `me`.
    pub fn new(me: RouterId) -> Self {
        RoutingTable {
            me,
            sites: BTreeMap::new(),
            unsettled: BTreeSet::new(),
            generation: 0,
            denied: BTreeMap::new(),
        }
    }

    /// A number that changes whenever the table does: what was computed from the table
    /// (e.g. [`Self::targets`]) at one generation holds until it changes.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Our router id.
    pub fn me(&self) -> RouterId {
        self.me
    }

    /// Replaces what is known of `site`.
    pub fn set_site(&mut self, site: SiteId, view: SiteView) {
        self.generation = self.generation.wrapping_add(1);
        self.sites.insert(site, view);
    }

    /// Records that our permissions on `site` refuse `access` to `key` (its topic in its
    /// partitions): no route reads it from there (`Read`) or writes it there (`Write`) from
    /// now on. False if it was known.
    pub fn deny(&mut self, site: SiteId, access: Access, key: &TopicKey) -> bool {
        let new = self
            .denied
            .entry((site, access))
            .or_default()
            .insert(key.clone());
        if new {
            self.generation = self.generation.wrapping_add(1);
        }
        new
    }

    /// Whether our permissions let a route carry `key` from `u` into `d` (as far as we
    /// know: a refusal is learnt when the site's participant refuses the endpoint).
    pub fn permitted(&self, u: SiteId, d: SiteId, key: &TopicKey) -> bool {
        let refused = |site, access| {
            self.denied
                .get(&(site, access))
                .is_some_and(|keys| keys.contains(key))
        };
        !refused(u, Access::Read) && !refused(d, Access::Write)
    }

    /// The sites known so far.
    pub fn sites(&self) -> impl Iterator<Item = SiteId> + '_ {
        self.sites.keys().copied()
    }

    /// The view of `site`.
    pub fn site(&self, site: SiteId) -> Option<&SiteView> {
        self.sites.get(&site)
    }

    /// Whether `writer` is a writer SEDP announced on `site`.
    pub fn writer_on(&self, site: SiteId, writer: Guid) -> bool {
        self.sites
            .get(&site)
            .is_some_and(|v| v.writers.iter().any(|w| w.guid == writer))
    }

    /// Marks `site` settled (we have been on it long enough to have heard every router alive
    /// there) or not. An unsettled site is never elected into or from.
    pub fn set_settled(&mut self, site: SiteId, settled: bool) {
        self.generation = self.generation.wrapping_add(1);
        if settled {
            self.unsettled.remove(&site);
        } else {
            self.unsettled.insert(site);
        }
    }

    /// Whether we are the designated forwarder from `u` into `d`: both sites are settled
    /// and no router with a lower id is alive on both (redundant routers between the same
    /// two sites elect the lowest id; when it leaves, the next takes over). A peer router at
    /// the far end of a link is on `d` only, so it never competes.
    pub fn designated(&self, u: SiteId, d: SiteId) -> bool {
        if self.unsettled.contains(&u) || self.unsettled.contains(&d) {
            return false;
        }
        let (Some(uv), Some(dv)) = (self.sites.get(&u), self.sites.get(&d)) else {
            return true;
        };
        !dv.routers
            .iter()
            .any(|r| *r < self.me && uv.routers.contains(r))
    }

    /// Whether another router alive on `d` is also alive on some other site: routes into
    /// `d` are then contested (one of us forwards, the others stand by).
    pub fn contested(&self, d: SiteId) -> bool {
        let Some(dv) = self.sites.get(&d) else {
            return false;
        };
        self.sites
            .iter()
            .any(|(&u, uv)| u != d && dv.routers.iter().any(|r| uv.routers.contains(r)))
    }

    /// The readers of `d` that routes from `u` may serve: split horizon (`u != d`), the
    /// path vector (neither we nor the router at `u` are on the reader's path), and only
    /// if we are the designated forwarder from `u` into `d`.
    fn usable_from<'a>(
        &'a self,
        u: SiteId,
        d: SiteId,
        view: &'a SiteView,
    ) -> impl Iterator<Item = &'a DiscoveredReader> + 'a {
        let designated = u != d && self.designated(u, d);
        self.routable(u, d, view).filter(move |_| designated)
    }

    /// [`Self::usable_from`] whoever is elected: split horizon, the path vector and our
    /// permissions only.
    fn routable<'a>(
        &'a self,
        u: SiteId,
        d: SiteId,
        view: &'a SiteView,
    ) -> impl Iterator<Item = &'a DiscoveredReader> + 'a {
        let peer_u = self.sites.get(&u).and_then(|v| v.peer_router);
        let me = self.me;
        view.readers.iter().filter(move |r| {
            u != d
                && !r.path.contains(&me)
                && peer_u.is_none_or(|p| !r.path.contains(&p))
                && self.permitted(u, d, &r.key)
        })
    }

    /// The proxy readers the table calls for, by identity.
    pub fn proxies(&self) -> BTreeMap<ProxyKey, ProxyReaderSpec> {
        let mut served: BTreeMap<ProxyKey, Vec<&DiscoveredReader>> = BTreeMap::new();
        for &u in self.sites.keys() {
            for (&d, view) in &self.sites {
                for r in self.usable_from(u, d, view) {
                    served
                        .entry((u, r.key.clone(), r.class))
                        .or_default()
                        .push(r);
                }
            }
        }
        served
            .into_iter()
            .map(|(k, readers)| {
                let (site, key, class) = k.clone();
                let name = format!("siftdds_router_{}", key.topic);
                let filter = compose(&key.topic, &name, readers.iter().map(|r| r.filter.as_ref()));
                let mut path = readers
                    .iter()
                    .map(|r| &r.path)
                    .min_by_key(|p| p.len())
                    .cloned()
                    .unwrap_or_default();
                path.push(self.me);
                let spec = ProxyReaderSpec {
                    site,
                    key,
                    class,
                    filter,
                    path,
                };
                (k, spec)
            })
            .collect()
    }

    /// The downstream writers the table calls for: one per (site, topic, partitions, class,
    /// representation, ownership) that some reader there, routable from some other site,
    /// wants.
    pub fn writers(&self) -> BTreeMap<WriterKey, RouteWriterSpec> {
        self.writers_where(true)
    }

    /// The downstream writers the table would call for if we were elected everywhere: the
    /// routes a standby watches (`router::standby`).
    pub fn writers_ignoring_election(&self) -> BTreeMap<WriterKey, RouteWriterSpec> {
        self.writers_where(false)
    }

    fn writers_where(&self, elected: bool) -> BTreeMap<WriterKey, RouteWriterSpec> {
        let mut out = BTreeMap::new();
        for (&d, view) in &self.sites {
            for &u in self.sites.keys() {
                let designated = !elected || self.designated(u, d);
                for r in self.routable(u, d, view).filter(|_| designated) {
                    let spec = RouteWriterSpec {
                        site: d,
                        key: r.key.clone(),
                        class: r.class,
                        representation: r.representation,
                        exclusive: r.exclusive,
                    };
                    out.insert(spec.key(), spec);
                }
            }
        }
        out
    }

    /// The downstream writers a sample read by `proxy` goes to: on every other site, those
    /// serving a reader of the same topic, partitions and class that is routable from the
    /// proxy's site (split horizon and path vector again: no sample goes where its
    /// subscription did not come from).
    pub fn targets(&self, proxy: &ProxyKey) -> Vec<WriterKey> {
        let (u, key, class) = proxy;
        let mut out: Vec<WriterKey> = Vec::new();
        for (&d, view) in &self.sites {
            for r in self.usable_from(*u, d, view) {
                if &r.key == key && &r.class == class {
                    let k = (d, key.clone(), *class, r.representation, r.exclusive);
                    if !out.contains(&k) {
                        out.push(k);
                    }
                }
            }
        }
        out
    }

    /// The readers a sample read by `proxy` reaches through downstream writer `target` (one
    /// of [`Self::targets`]): those whose route it is (`router::route_filter` evaluates their
    /// filters).
    pub fn target_readers<'a>(
        &'a self,
        proxy: &'a ProxyKey,
        target: &'a WriterKey,
    ) -> impl Iterator<Item = &'a DiscoveredReader> + 'a {
        let (u, key, class) = proxy;
        let (d, _, _, representation, exclusive) = target;
        self.sites
            .get(d)
            .into_iter()
            .flat_map(move |view| self.usable_from(*u, *d, view))
            .filter(move |r| {
                &r.key == key
                    && &r.class == class
                    && r.representation == *representation
                    && r.exclusive == *exclusive
            })
    }
}
