//! What redundant routers between the same sites need besides the routing table's election
//! (docs/router.md "Redundant routers"), so that exactly once per site does not depend on
//! which router forwards when:
//!
//! - **Settle.** A site we joined less than `settle` ago is *unsettled*: we may not have heard
//!   every router alive there yet, so [`RoutingTable::designated`] elects us neither into nor
//!   from it. Two routers that start at once both wait, hear each other's SPDP
//!   announcements meanwhile, and then only the lowest id forwards. The driver settles for
//!   the routers' SPDP lease: a router not heard from for a lease counts as gone (that is
//!   what makes a standby take over), so one not heard during our first lease on a site is
//!   absent by the same rule. That wait applies only where another router is present on
//!   the site (the router at the far end of a link does not count: it never competes): a
//!   site with none settles [`UNCONTESTED_SETTLE`] after we joined it, the time within which
//!   the participants already there answer our first SPDP announcement (they answer a new
//!   participant at once), so a lone router that restarts loses only its outage and
//!   rediscovery, not a lease more.
//! - **Witnesses.** On every site whose routes are contested (another router there is also
//!   on one of our other sites, [`RoutingTable::contested`]), one witness reader per
//!   downstream route we would have if elected ([`RoutingTable::writers_ignoring_election`]),
//!   whether we are elected or not. It reads the other routers' downstream writers there;
//!   their samples carry the original identity (PID_ORIGINAL_WRITER_INFO, RTPS 2.5 §8.7.9),
//!   which is learnt into that route's repository ([`Repository::learn`]) — kept here while
//!   we stand by, handed to the route when we take over, taken back when we stand by again.
//!   So a standby that takes over forwards only what the site has not had, and its proxy
//!   reader may take the upstream writer's history instead of starting at the match (what
//!   the designated router had not delivered is then not lost).
//!
//! Must not: read clocks, do I/O, or decide a forward (the repository does); learn from a
//! writer that is not a router's (by its participant's USER_DATA marker).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use foldhash::HashMap;

use super::repository::{Incoming, Repository};
use super::table::{RoutingTable, SiteId, WriterKey};
use super::{Action, EndpointId};
use crate::time::Instant;
use core::time::Duration;

/// How long a site without another router must be known before it settles: the routers
/// already on it answer our first SPDP announcement within this, so one that is there is
/// heard (and the site then waits the full settle time).
pub const UNCONTESTED_SETTLE: Duration = Duration::from_millis(500);

/// Whether a router other than the peer at the far end of a link is alive on `site`.
fn other_router_on(table: &RoutingTable, site: SiteId) -> bool {
    table
        .site(site)
        .is_some_and(|v| v.routers.iter().any(|r| Some(*r) != v.peer_router))
}

/// Counters of the standby machinery.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct StandbyCounters {
    /// Other routers' samples seen by the witnesses and learnt.
    pub learnt: u64,
    /// Witnessed samples ignored: not from a router's participant, without an identity, or
    /// for a witness already deleted.
    pub ignored: u64,
}

/// The settle state of the sites and the witnesses of one router.
#[derive(Debug)]
pub(super) struct Standby {
    settle: Duration,
    joined: BTreeMap<SiteId, Instant>,
    unsettled: BTreeSet<SiteId>,
    witnesses: BTreeMap<WriterKey, EndpointId>,
    by_id: HashMap<EndpointId, WriterKey>,
    /// What the other routers wrote into a route we have no writer for (standing by).
    learnt: BTreeMap<WriterKey, Repository>,
    counters: StandbyCounters,
}

impl Standby {
    /// Sites settle `settle` after they were first seen (zero: at once).
    pub(super) fn new(settle: Duration) -> Self {
        Standby {
            settle,
            joined: BTreeMap::new(),
            unsettled: BTreeSet::new(),
            witnesses: BTreeMap::new(),
            by_id: HashMap::default(),
            learnt: BTreeMap::new(),
            counters: StandbyCounters::default(),
        }
    }

    pub(super) fn counters(&self) -> StandbyCounters {
        self.counters
    }

    /// A view of `site` arrived at `now`: the first one starts its settle time.
    pub(super) fn note_site(&mut self, now: Instant, site: SiteId, table: &mut RoutingTable) {
        if self.joined.contains_key(&site) {
            return;
        }
        self.joined.insert(site, now);
        if !self.settle.is_zero() {
            self.unsettled.insert(site);
            table.set_settled(site, false);
        }
    }

    /// Settles the sites whose settle time has passed; true if any did.
    pub(super) fn settle_due(&mut self, now: Instant, table: &mut RoutingTable) -> bool {
        let due: Vec<SiteId> = self
            .unsettled
            .iter()
            .copied()
            .filter(|s| self.deadline(*s, table).is_some_and(|t| t <= now))
            .collect();
        for s in &due {
            self.unsettled.remove(s);
            table.set_settled(*s, true);
        }
        !due.is_empty()
    }

    /// When `site` settles: the settle time after we joined it if another router is there,
    /// else [`UNCONTESTED_SETTLE`] (at most the settle time).
    fn deadline(&self, site: SiteId, table: &RoutingTable) -> Option<Instant> {
        let wait = if other_router_on(table, site) {
            self.settle
        } else {
            self.settle.min(UNCONTESTED_SETTLE)
        };
        self.joined.get(&site).map(|t| t.saturating_add(wait))
    }

    /// When the next site settles.
    pub(super) fn poll_timeout(&self, table: &RoutingTable) -> Option<Instant> {
        self.unsettled
            .iter()
            .filter_map(|s| self.deadline(*s, table))
            .min()
    }

    /// Creates and deletes witnesses to follow the table: one per route into a contested
    /// site. Knowledge kept for a route nobody watches any more goes (the route, if we
    /// have it, took it before: the router reconciles its writers first).
    pub(super) fn reconcile(
        &mut self,
        table: &RoutingTable,
        mut fresh: impl FnMut() -> EndpointId,
        actions: &mut VecDeque<Action>,
    ) {
        let wanted: BTreeMap<_, _> = table
            .writers_ignoring_election()
            .into_iter()
            .filter(|(k, _)| table.contested(k.0))
            .collect();
        let gone: Vec<WriterKey> = self
            .witnesses
            .keys()
            .filter(|k| !wanted.contains_key(*k))
            .cloned()
            .collect();
        for k in gone {
            if let Some(id) = self.witnesses.remove(&k) {
                self.by_id.remove(&id);
                self.learnt.remove(&k);
                actions.push_back(Action::DeleteWitness { id, site: k.0 });
            }
        }
        for (k, spec) in wanted {
            if self.witnesses.contains_key(&k) {
                continue;
            }
            let id = fresh();
            self.witnesses.insert(k.clone(), id);
            self.by_id.insert(id, k);
            actions.push_back(Action::CreateWitness { id, spec });
        }
        let witnesses = &self.witnesses;
        self.learnt.retain(|k, _| witnesses.contains_key(k));
    }

    /// The route witness `id` watches.
    pub(super) fn route_of(&self, id: EndpointId) -> Option<&WriterKey> {
        self.by_id.get(&id)
    }

    /// Counts a witnessed sample that taught nothing.
    pub(super) fn ignored(&mut self) {
        self.counters.ignored = self.counters.ignored.saturating_add(1);
    }

    /// Learns `c` (its identity and the state it leaves its instance in) for `key` into
    /// `repository` (the route's own when we have it), else into the one kept while
    /// standing by (made by `make` at first use).
    pub(super) fn learn(
        &mut self,
        now: Instant,
        key: &WriterKey,
        c: Incoming<'_>,
        repository: Option<&mut Repository>,
        make: impl FnOnce() -> Repository,
    ) {
        self.counters.learnt = self.counters.learnt.saturating_add(1);
        match repository {
            Some(r) => r.learn(now, c),
            None => self
                .learnt
                .entry(key.clone())
                .or_insert_with(make)
                .learn(now, c),
        }
    }

    /// The knowledge kept for `key` while standing by, for the route being created.
    pub(super) fn take(&mut self, key: &WriterKey) -> Option<Repository> {
        self.learnt.remove(key)
    }

    /// Keeps a deleted route's repository (we stand by again); [`Self::reconcile`] drops it
    /// unless a witness watches that route on.
    pub(super) fn keep(&mut self, key: WriterKey, repository: Repository) {
        self.learnt.insert(key, repository);
    }

    /// Whether we know what another router wrote for `key` (it is watched, or was until
    /// now): a proxy reader serving it may take the upstream writers' history.
    pub(super) fn knows(&self, key: &WriterKey) -> bool {
        self.witnesses.contains_key(key) || self.learnt.contains_key(key)
    }
}
