//! The per-sample choice between one multicast datagram and unicast sends: the cost model,
//! its configuration, the index of multicast groups the matched readers listen on, and the
//! planning step that sends a sample once to a group when that is cheaper.
//!
//! Must not: send a sample on a group to a reader it is not known to listen on, cover a reader
//! that could not take the datagram (a reliable reader before its first ACKNACK: Cyclone 0.10
//! drops data before the first HEARTBEAT it sees), or decide anything for fragmented samples
//! (they always go unicast). No I/O, no clock.
//!
//! RTPS 2.5 §8.5.3.2-§8.5.4 (multicastLocatorList of an endpoint, or the participant's
//! defaultMulticastLocatorList), §8.7.3.2 (a datagram reaching readers with different filters
//! carries PID_CONTENT_FILTER_INFO for every filter applied), §8.3.7.2 (readerId
//! ENTITYID_UNKNOWN), §9.6.4.1 (ContentFilterInfo_t).
//!
//! # Overview
//! Each new change is planned once, in sequence-number order, before any push reaches it
//! ([`Planner::plan`]). For every multicast group `G` (a locator that at least one
//! matched reader announced) the *listeners* are the readers listening on `G`; of them, the
//! *covered* ones are those the push would send this change to next (cursor at or before it,
//! pushed to, past their first ACKNACK when reliable) and that the change passes. With
//! `P` covered passing listeners and `W` = listeners − `P` (receivers that do not pass, or
//! that get it anyway by unicast), the writer multicasts when
//!
//! ```text
//! cost_multicast = (1 + W)·(a + b·len_m) + k·(a + b·GAP_DATAGRAM)
//! cost_unicast   =      P ·(a + b·len_u) + k·b·GAP_LEN
//! ```
//!
//! is lower for multicast (`a` = [`MulticastConfig::datagram_cost`], `b` =
//! [`MulticastConfig::byte_cost`], `len_m` the multicast datagram, `len_u` one unicast DATA
//! datagram, `k` the covered listeners that still owe a GAP for earlier filtered changes: a
//! unicast DATA carries it in front, a multicast needs a GAP datagram of its own). The
//! multicast DATA has readerId ENTITYID_UNKNOWN and a PID_CONTENT_FILTER_INFO with one entry
//! per distinct filter among the group's filtered listeners, so a listener the change does
//! not pass drops it and counts the sequence number as filtered (no GAP needed for it);
//! unfiltered listeners take everything. Covered listeners' pushes then pass over the change
//! (`send.rs`). The formula, defaults and worked examples are in `docs/filtering.md`.

use std::collections::{BTreeSet, VecDeque};

use super::WriterConfig;
use super::change_filter::ChangeFilter;
use super::config::{MulticastConfig, MulticastMode};
use super::counters::WriterCounters;
use super::history::WriterHistory;
use super::message::{MessageBuilder, Sent};
use super::reader_proxy::ReaderProxy;
use super::readers::{ReaderKey, Readers};
use super::repair::succ;
use crate::core::Transmit;
use crate::wire::{Locator, SequenceNumber};

/// Bytes of a GAP submessage (4-byte header + 28-byte body, empty gapList). RTPS 2.5 §9.4.5.5.
const GAP_LEN: u64 = 32;
/// Bytes of a datagram carrying one GAP to one reader: header (20), INFO_DST (16), GAP.
const GAP_DATAGRAM: u64 = 20 + 16 + GAP_LEN;
/// Bytes a unicast DATA datagram has that a multicast one has not: INFO_DST.
const INFO_DST_LEN: u64 = 16;
/// Bytes of a one-signature PID_CONTENT_FILTER_INFO parameter (header + value).
const SINGLE_INFO_PARAM: u64 = 4 + 28;

/// The inputs of one decision (one change, one group).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Candidate {
    /// Covered listeners the change passes (`P`).
    pub(super) passing: u64,
    /// Listeners that receive a multicast without needing it (`W`).
    pub(super) wasted: u64,
    /// Covered passing listeners that owe a GAP for earlier changes (`k`).
    pub(super) gaps: u64,
    /// The multicast datagram's length (`len_m`).
    pub(super) multicast_len: u64,
    /// One unicast DATA datagram's length (`len_u`).
    pub(super) unicast_len: u64,
}

impl MulticastConfig {
    /// (cost of the multicast plan, cost of the unicast plan) for `c`; saturating.
    pub(super) fn costs(&self, c: &Candidate) -> (u64, u64) {
        let (a, b) = (self.datagram_cost, self.byte_cost);
        let per = |len: u64| a.saturating_add(b.saturating_mul(len));
        let multicast = c
            .wasted
            .saturating_add(1)
            .saturating_mul(per(c.multicast_len))
            .saturating_add(c.gaps.saturating_mul(per(GAP_DATAGRAM)));
        let unicast = c
            .passing
            .saturating_mul(per(c.unicast_len))
            .saturating_add(c.gaps.saturating_mul(b.saturating_mul(GAP_LEN)));
        (multicast, unicast)
    }

    /// True when `c` goes as one multicast datagram.
    pub(super) fn multicast(&self, c: &Candidate) -> bool {
        match self.mode {
            MulticastMode::AlwaysUnicast => false,
            MulticastMode::AlwaysMulticast => c.passing > 0,
            MulticastMode::Auto => {
                let enough = usize::try_from(c.passing).is_ok_and(|p| p >= self.min_listeners);
                let (m, u) = self.costs(c);
                enough && c.passing > 0 && m < u
            }
        }
    }
}

/// A multicast locator and the matched readers listening on it, with the distinct filters
/// among them (cached per filter-set generation).
#[derive(Clone, Debug)]
struct Group {
    locator: Locator,
    listeners: Vec<ReaderKey>,
    /// (slot-table generation, one slot per distinct signature among the filtered listeners):
    /// derived from the listeners (rebuilt with the group) and the generation (its key).
    info_slots: Option<(u64, Vec<usize>)>,
}

/// The send planner: the multicast groups of the matched readers (derived from
/// [`Readers::membership`]), the planning cursor, and the multicast datagrams planned and
/// not yet handed out. It reads the history and the readers it is given and decides each
/// change once; the writer applies the coverage it returns.
#[derive(Clone, Debug)]
pub(super) struct Planner {
    groups: Vec<Group>,
    /// The [`Readers::membership`] the groups were built from (`None`: never built).
    built_for: Option<u64>,
    /// Every change below this has been planned.
    plan_next: SequenceNumber,
    outbox: VecDeque<Transmit>,
}

/// What one planning pass reads.
struct Inputs<'a> {
    config: &'a WriterConfig,
    history: &'a WriterHistory,
    readers: &'a Readers,
}

/// True when reader `r` could take change `sn` from a multicast: the push would send it
/// `sn` next or later, it is pushed to, and `sn` was planned after it matched and, when
/// reliable, after its first ACKNACK (so it knows us: Cyclone 0.10 drops data before the
/// first HEARTBEAT it sees). Asked once, at planning: the readers it holds for are recorded
/// as covered ([`ReaderProxy::record_multicast`]) and their pushes pass over `sn`.
fn can_cover(config: &WriterConfig, r: &ReaderProxy, sn: SequenceNumber) -> bool {
    let reliable = config.reliable && r.reliable();
    let pushed = config.push_mode || !reliable;
    pushed
        && r.synced_from().is_some_and(|from| sn >= from)
        && sn >= r.start()
        && (r.next_unsent() < sn || r.cursor() == (sn, 1))
}

impl Planner {
    pub(super) fn new() -> Self {
        Planner {
            groups: Vec::new(),
            built_for: None,
            plan_next: SequenceNumber::ONE,
            outbox: VecDeque::new(),
        }
    }

    /// The next change to be planned: a reader marked synced now takes multicasts from it.
    pub(super) fn plan_next(&self) -> SequenceNumber {
        self.plan_next
    }

    /// The next multicast datagram planned.
    pub(super) fn pop_transmit(&mut self) -> Option<Transmit> {
        self.outbox.pop_front()
    }

    /// Plans every change written since the last call, in order: multicasts the ones the
    /// cost model says to (into the outbox) and counts how each sample went. Returns the
    /// (reader, change) pairs a multicast covered.
    pub(super) fn plan(
        &mut self,
        config: &WriterConfig,
        history: &WriterHistory,
        readers: &Readers,
        counters: &mut WriterCounters,
    ) -> Vec<(ReaderKey, SequenceNumber)> {
        let mut covered = Vec::new();
        let last = history.last_sn();
        if self.plan_next > last {
            return covered;
        }
        self.refresh(readers);
        let cx = Inputs {
            config,
            history,
            readers,
        };
        while self.plan_next <= last {
            let sn = self.plan_next;
            self.plan_next = succ(sn);
            self.plan_change(&cx, counters, sn, &mut covered);
        }
        covered
    }

    /// Rebuilds the groups if the matched readers changed since they were built.
    fn refresh(&mut self, readers: &Readers) {
        if self.built_for == Some(readers.membership()) {
            return;
        }
        let mut locators: BTreeSet<Locator> = BTreeSet::new();
        for r in readers.iter() {
            locators.extend(r.remote().multicast_locators.iter().copied());
        }
        self.groups = locators
            .into_iter()
            .map(|locator| Group {
                locator,
                listeners: readers
                    .entries()
                    .filter(|(_, r)| r.remote().multicast_locators.contains(&locator))
                    .map(|(k, _)| k)
                    .collect(),
                info_slots: None,
            })
            .collect();
        self.built_for = Some(readers.membership());
    }

    fn plan_change(
        &mut self,
        cx: &Inputs<'_>,
        counters: &mut WriterCounters,
        sn: SequenceNumber,
        covered: &mut Vec<(ReaderKey, SequenceNumber)>,
    ) {
        let Some(change) = cx.history.get(sn) else {
            return;
        };
        let passing_total = match cx.history.filter(sn) {
            Some(f) => f.passing_readers(cx.readers.len()),
            None => cx.readers.len(),
        };
        let fragmented = change.data.len() > cx.config.fragment_size;
        // Readers an earlier group's multicast of `sn` covered.
        let mut done: BTreeSet<ReaderKey> = BTreeSet::new();
        let mut passing = 0usize;
        if cx.config.multicast.mode != MulticastMode::AlwaysUnicast && !fragmented {
            for g in 0..self.groups.len() {
                // A reader on two groups is covered by the first that multicasts.
                let Some((n, t, keys)) = self.plan_group(cx, sn, g, &done) else {
                    continue;
                };
                counters.account(t.1, false);
                counters.count_wire(&t.0.destinations, t.0.len());
                self.outbox.push_back(t.0);
                covered.extend(keys.iter().map(|k| (*k, sn)));
                done.extend(keys);
                passing = passing.saturating_add(n);
            }
        }
        if passing > 0 {
            counters.samples_multicast = counters.samples_multicast.saturating_add(1);
        }
        if passing_total > passing {
            counters.samples_unicast = counters.samples_unicast.saturating_add(1);
        }
    }

    /// Decides change `sn` on group `g` (`done`: readers an earlier group's multicast of `sn`
    /// covered). When the multicast is cheaper: the number of passing listeners it covers,
    /// the datagram, and every listener that can take it (those it passes and those it tells
    /// it is filtered).
    fn plan_group(
        &mut self,
        cx: &Inputs<'_>,
        sn: SequenceNumber,
        g: usize,
        done: &BTreeSet<ReaderKey>,
    ) -> Option<(usize, (Transmit, Sent), Vec<ReaderKey>)> {
        let filter = cx.history.filter(sn);
        let group = self.groups.get(g)?;
        let (listeners, locator) = (group.listeners.len(), group.locator);
        let receivers: Vec<ReaderKey> = group
            .listeners
            .iter()
            .copied()
            .filter(|&k| {
                cx.readers
                    .get(k)
                    .is_some_and(|r| can_cover(cx.config, r, sn))
            })
            .collect();
        let covered: Vec<&ReaderProxy> = receivers
            .iter()
            .filter(|k| !done.contains(k))
            .filter_map(|&k| cx.readers.get(k))
            .filter(|r| filter.is_none_or(|f| f.sends_to(cx.readers.filter_slot(r))))
            .collect();
        if covered.is_empty() {
            return None;
        }
        let gaps = covered
            .iter()
            .filter(|r| r.reliable() && r.next_unsent() == sn && r.gap_from() < sn)
            .count();
        let passing = covered.len();
        let info = filter.and_then(|f| {
            let slots = self.group_info_slots(g, f, cx.readers);
            f.group_info(&slots)
        });
        let (b, candidate) =
            multicast_candidate(cx, sn, info.as_deref(), listeners, passing, gaps)?;
        if !cx.config.multicast.multicast(&candidate) {
            return None;
        }
        Some((passing, b.finish(vec![locator]), receivers))
    }

    /// One slot of `f`'s table per distinct filter signature among group `g`'s filtered
    /// listeners (cached until the table or the group changes). RTPS 2.5 §8.7.3.2: every
    /// filter applied is listed; readers with equal signatures share one entry.
    fn group_info_slots(&mut self, g: usize, f: &ChangeFilter, readers: &Readers) -> Vec<usize> {
        let generation = f.table_generation();
        let Some(group) = self.groups.get_mut(g) else {
            return Vec::new();
        };
        if let Some((cached, slots)) = &group.info_slots {
            if *cached == generation {
                return slots.clone();
            }
        }
        let mut seen: BTreeSet<[u8; 16]> = BTreeSet::new();
        let mut slots = Vec::new();
        for r in group.listeners.iter().filter_map(|&k| readers.get(k)) {
            if let Some((slot, signature)) = f.slot_signature(readers.filter_slot(r)) {
                if seen.insert(signature) {
                    slots.push(slot);
                }
            }
        }
        group.info_slots = Some((generation, slots.clone()));
        slots
    }
}

/// The multicast DATA of change `sn` (with the group's filter `info`) and the inputs of the
/// cost model for it. `None` when the change is gone or does not fit.
fn multicast_candidate(
    cx: &Inputs<'_>,
    sn: SequenceNumber,
    info: Option<&[u8]>,
    listeners: usize,
    passing: usize,
    gaps: usize,
) -> Option<(MessageBuilder, Candidate)> {
    let change = cx.history.get(sn)?;
    let c = cx.config;
    let mut b = MessageBuilder::new(
        c.guid.prefix,
        c.guid.entity_id,
        None,
        c.max_message_size,
        0,
        c.keyed,
    )
    .with_submessage_overhead(c.submessage_overhead);
    if !b.data(change, info) {
        return None;
    }
    let len = to_u64(b.len());
    // The unicast DATA datagram: INFO_DST more, this reader's one-signature info instead
    // of the group's list.
    let (info_param, single) = match info {
        Some(i) => (to_u64(i.len()).saturating_add(4), SINGLE_INFO_PARAM),
        None => (0, 0),
    };
    let candidate = Candidate {
        passing: to_u64(passing),
        wasted: to_u64(listeners.saturating_sub(passing)),
        gaps: to_u64(gaps),
        multicast_len: len,
        unicast_len: len
            .saturating_add(INFO_DST_LEN)
            .saturating_sub(info_param)
            .saturating_add(single),
    };
    Some((b, candidate))
}

fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
