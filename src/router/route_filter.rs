//! Which next hops a forwarded sample goes to: per proxy reader whose topic type the router
//! knows (`router::keys`), the DDS-SQL filters of the remote readers behind each of its
//! downstream writers (the routing table's targets) are evaluated on the sample, and only
//! the targets with at least one reader it passes are written to. The answer is memoized in
//! a bounded [`Memo`] keyed by the sample's projection on the members the filters read →
//! the set of passing targets ([`HopSet`]): the writer's memo table (`core::writer::
//! filter_set`) generalised from readers to next hops.
//!
//! Must not: drop a sample some reader behind a target may want. Whatever it cannot decide
//! goes everywhere, as before it existed: a type not known, a payload that does not decode,
//! a filter that is not DDSSQL, is for another topic or does not compile (that reader counts
//! as unfiltered), more than [`MAX_ROUTE_PROGRAMS`] distinct filters, a dispose or unregister
//! (RTPS 2.5 §8.7.4: instance state changes reach every reader), and a TRANSIENT_LOCAL route
//! (its downstream writer's history serves late joiners whose filters are not known yet).
//! No I/O, no clock; nothing sized from the wire (the memo is bounded).
//!
//! Invalidation: the table's readers and filters are read again whenever the routing table
//! changed ([`RouteFilters::table_changed`]) or the targets differ; when what the filters
//! would be built from differs, the programs are rebuilt and the memo invalidated (O(1),
//! by generation). DDS 1.4 Annex B (DDS-SQL), RTPS 2.5 §8.7.3 (content-filtered topics).

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use foldhash::HashMap;
use std::sync::Arc;

use super::EndpointId;
use super::compose::DDSSQL;
use super::table::{ProxyKey, RoutingTable, WriterKey};
use crate::core::discovery::ContentFilter;
use crate::core::{CacheChange, ChangeKind};
use crate::filter::{Program, parse_parameters};
use crate::memo::{Memo, MemoStats};
use crate::types::TypeDescriptor;

/// Memoized samples per proxy reader (distinct projections remembered).
pub const ROUTE_MEMO_CAPACITY: usize = 4096;

/// Most distinct filters (expression + parameters) one proxy reader evaluates; beyond it the
/// proxy forwards to every target (a miss stays cheap).
pub const MAX_ROUTE_PROGRAMS: usize = 64;

/// What the next-hop selection did, summed over the proxy readers (removed ones included).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RouteFilterCounters {
    /// Samples looked up (ALIVE, on a route with at least one filtered target).
    pub lookups: u64,
    /// Lookups answered by the memo.
    pub hits: u64,
    /// Lookups that evaluated filters.
    pub misses: u64,
    /// Filter evaluations (each distinct filter at most once per miss, and only until one
    /// of a target's readers passes).
    pub evaluations: u64,
    /// Samples that did not decode for filtering (sent to every target).
    pub undecodable: u64,
    /// (sample, target) pairs not forwarded: no reader behind the target passes.
    pub skipped: u64,
    /// Times a proxy reader's filters were rebuilt (its memo invalidated).
    pub rebuilds: u64,
}

impl RouteFilterCounters {
    fn add(&mut self, o: &RouteFilterCounters) {
        self.lookups = self.lookups.saturating_add(o.lookups);
        self.hits = self.hits.saturating_add(o.hits);
        self.misses = self.misses.saturating_add(o.misses);
        self.evaluations = self.evaluations.saturating_add(o.evaluations);
        self.undecodable = self.undecodable.saturating_add(o.undecodable);
        self.skipped = self.skipped.saturating_add(o.skipped);
        self.rebuilds = self.rebuilds.saturating_add(o.rebuilds);
    }
}

/// The targets a sample passes: bit `i` is target `i` in the order the filter was built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HopSet {
    words: Vec<u64>,
}

impl HopSet {
    fn set(&mut self, i: usize) {
        let w = i.wrapping_div(64);
        while self.words.len() <= w {
            self.words.push(0);
        }
        if let Some(word) = self.words.get_mut(w) {
            *word |= 1u64.wrapping_shl(bit(i));
        }
    }

    /// Whether target `i` passes.
    pub fn contains(&self, i: usize) -> bool {
        self.words
            .get(i.wrapping_div(64))
            .is_some_and(|w| w & 1u64.wrapping_shl(bit(i)) != 0)
    }
}

fn bit(i: usize) -> u32 {
    u32::try_from(i.wrapping_rem(64)).unwrap_or(0)
}

/// What one target's readers need.
#[derive(Clone, Debug)]
enum Hop {
    /// Some reader takes everything (unfiltered, or a filter we do not evaluate).
    All,
    /// Every reader filters: the indices of their distinct programs.
    Programs(Vec<usize>),
}

/// The filters of one proxy reader's targets and the memo of their answers.
#[derive(Debug)]
pub struct RouteFilter {
    hops: Vec<Hop>,
    programs: Vec<Program>,
    /// One program per distinct set of referenced fields: their projections, concatenated,
    /// are the memo key (each is self-delimiting for its program, so the key is injective).
    projectors: Vec<usize>,
    memo: Memo<Vec<u8>, Arc<HopSet>>,
    key: Vec<u8>,
    projection: Vec<u8>,
    results: Vec<Option<bool>>,
    counters: RouteFilterCounters,
}

impl RouteFilter {
    /// No targets yet, a memo of `memo_capacity` projections (0: evaluate every sample).
    pub fn new(memo_capacity: usize) -> Self {
        RouteFilter {
            hops: Vec::new(),
            programs: Vec::new(),
            projectors: Vec::new(),
            memo: Memo::new(memo_capacity),
            key: Vec::new(),
            projection: Vec::new(),
            results: Vec::new(),
            counters: RouteFilterCounters::default(),
        }
    }

    /// Rebuilds the filters for `hops` (per target, its readers' filters, `None` for an
    /// unfiltered reader) of samples of `desc` on `topic`, and invalidates the memo.
    pub fn rebuild(
        &mut self,
        desc: &TypeDescriptor,
        topic: &str,
        hops: &[Vec<Option<ContentFilter>>],
    ) {
        self.memo.invalidate();
        self.counters.rebuilds = self.counters.rebuilds.saturating_add(1);
        self.hops.clear();
        self.programs.clear();
        self.projectors.clear();
        let mut semantics: Vec<(&str, &[String])> = Vec::new();
        let mut field_sets: Vec<&[crate::filter::FieldPath]> = Vec::new();
        for readers in hops {
            let mut programs = Vec::new();
            let mut all = readers.is_empty();
            for f in readers {
                let Some(f) = f.as_ref().filter(|f| {
                    f.filter_class_name.eq_ignore_ascii_case(DDSSQL)
                        && f.related_topic_name == topic
                }) else {
                    all = true;
                    break;
                };
                let sem = (
                    f.filter_expression.as_str(),
                    f.expression_parameters.as_slice(),
                );
                let p = match semantics.iter().position(|s| *s == sem) {
                    Some(p) => p,
                    None => {
                        let compiled = parse_parameters(&f.expression_parameters)
                            .and_then(|ps| Program::compile_expression(sem.0, &ps, desc));
                        let Ok(program) = compiled else {
                            all = true;
                            break;
                        };
                        semantics.push(sem);
                        self.programs.push(program);
                        self.programs.len().saturating_sub(1)
                    }
                };
                if !programs.contains(&p) {
                    programs.push(p);
                }
            }
            self.hops.push(if all {
                Hop::All
            } else {
                Hop::Programs(programs)
            });
        }
        if self.programs.len() > MAX_ROUTE_PROGRAMS {
            self.hops.iter_mut().for_each(|h| *h = Hop::All);
            self.programs.clear();
        }
        for (i, p) in self.programs.iter().enumerate() {
            let fields = p.referenced_fields();
            if !field_sets.contains(&fields) {
                field_sets.push(fields);
                self.projectors.push(i);
            }
        }
        self.results = vec![None; self.programs.len()];
    }

    /// Whether some target filters (else every sample goes everywhere, unlooked-up).
    pub fn filters(&self) -> bool {
        self.hops.iter().any(|h| matches!(h, Hop::Programs(_)))
    }

    /// The targets `payload` (a serialized sample, encapsulation header included) passes;
    /// `None`: every target (nothing filters, or it does not decode).
    pub fn select(&mut self, payload: &[u8]) -> Option<Arc<HopSet>> {
        if !self.filters() {
            return None;
        }
        let c = &mut self.counters;
        c.lookups = c.lookups.saturating_add(1);
        self.key.clear();
        for &p in &self.projectors {
            let projected = self
                .programs
                .get(p)
                .map(|prog| prog.project_into(payload, &mut self.projection));
            if !matches!(projected, Some(Ok(()))) {
                self.counters.undecodable = self.counters.undecodable.saturating_add(1);
                return None;
            }
            self.key.extend_from_slice(&self.projection);
        }
        if let Some(hit) = self.memo.get(self.key.as_slice()) {
            self.counters.hits = self.counters.hits.saturating_add(1);
            return Some(hit);
        }
        self.counters.misses = self.counters.misses.saturating_add(1);
        self.results.iter_mut().for_each(|r| *r = None);
        let mut set = HopSet::default();
        for (i, hop) in self.hops.iter().enumerate() {
            let pass = match hop {
                Hop::All => true,
                Hop::Programs(ps) => ps.iter().any(|&p| {
                    let Some(slot) = self.results.get_mut(p) else {
                        return true;
                    };
                    *slot.get_or_insert_with(|| {
                        self.counters.evaluations = self.counters.evaluations.saturating_add(1);
                        // An evaluation error (the projection decoded, so not expected)
                        // passes: the readers filter themselves.
                        self.programs
                            .get(p)
                            .is_none_or(|prog| prog.evaluate(payload).unwrap_or(true))
                    })
                }),
            };
            if pass {
                set.set(i);
            }
        }
        let set = Arc::new(set);
        self.memo.insert(self.key.clone(), Arc::clone(&set));
        Some(set)
    }

    /// Number of targets the filter was built for.
    pub fn hops(&self) -> usize {
        self.hops.len()
    }

    /// The counters.
    pub fn counters(&self) -> RouteFilterCounters {
        self.counters
    }

    /// The memo's counters and entries stored (never above its capacity).
    pub fn memo_stats(&self) -> (MemoStats, usize) {
        (self.memo.stats(), self.memo.len())
    }
}

struct Entry {
    topic: String,
    desc: Arc<TypeDescriptor>,
    /// The table epoch the inputs were read at.
    seen: Option<u64>,
    targets: Vec<WriterKey>,
    inputs: Vec<Vec<Option<ContentFilter>>>,
    filter: RouteFilter,
}

/// The [`RouteFilter`]s of the router's proxy readers whose type is known.
pub struct RouteFilters {
    capacity: usize,
    epoch: u64,
    proxies: HashMap<EndpointId, Entry>,
    /// Counters of the proxies removed since.
    removed: RouteFilterCounters,
}

impl RouteFilters {
    /// None yet; each proxy's memo holds `memo_capacity` projections.
    pub fn new(memo_capacity: usize) -> Self {
        RouteFilters {
            capacity: memo_capacity,
            epoch: 0,
            proxies: HashMap::default(),
            removed: RouteFilterCounters::default(),
        }
    }

    /// Proxy reader `id` reads `topic`, whose samples `desc` describes.
    pub fn add_proxy(&mut self, id: EndpointId, topic: &str, desc: &TypeDescriptor) {
        let entry = Entry {
            topic: topic.to_string(),
            desc: Arc::new(desc.clone()),
            seen: None,
            targets: Vec::new(),
            inputs: Vec::new(),
            filter: RouteFilter::new(self.capacity),
        };
        if let Some(old) = self.proxies.insert(id, entry) {
            self.removed.add(&old.filter.counters());
        }
    }

    /// Proxy reader `id` is gone.
    pub fn remove_proxy(&mut self, id: EndpointId) {
        if let Some(old) = self.proxies.remove(&id) {
            self.removed.add(&old.filter.counters());
        }
    }

    /// The routing table changed: each proxy reads its targets' readers again at its next
    /// sample.
    pub fn table_changed(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// The targets (of `targets`, which the table gives for `key`) a change read by proxy
    /// `id` must go to; `None`: all of them.
    pub fn select(
        &mut self,
        table: &RoutingTable,
        id: EndpointId,
        key: &ProxyKey,
        targets: &[WriterKey],
        change: &CacheChange,
    ) -> Option<Arc<HopSet>> {
        if change.kind != ChangeKind::Alive || key.2.transient_local {
            return None;
        }
        let e = self.proxies.get_mut(&id)?;
        if e.seen != Some(self.epoch) || e.targets != targets {
            let inputs: Vec<Vec<Option<ContentFilter>>> = targets
                .iter()
                .map(|t| {
                    table
                        .target_readers(key, t)
                        .map(|r| r.filter.clone())
                        .collect()
                })
                .collect();
            if e.seen.is_none() || e.targets != targets || e.inputs != inputs {
                e.filter.rebuild(&e.desc, &e.topic, &inputs);
                e.targets = targets.to_vec();
                e.inputs = inputs;
            }
            e.seen = Some(self.epoch);
        }
        let set = e.filter.select(&change.data)?;
        let skipped = (0..targets.len()).filter(|i| !set.contains(*i)).count();
        let c = &mut e.filter.counters;
        c.skipped = c
            .skipped
            .saturating_add(u64::try_from(skipped).unwrap_or(u64::MAX));
        Some(set)
    }

    /// The counters, summed over every proxy reader so far.
    pub fn counters(&self) -> RouteFilterCounters {
        let mut c = self.removed;
        for e in self.proxies.values() {
            c.add(&e.filter.counters());
        }
        c
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
mod tests;
