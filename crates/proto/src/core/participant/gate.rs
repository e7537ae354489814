//! The outbound gate: no volume of traffic to an address we have never heard from. Every
//! datagram the participant hands out passes here; a unicast destination whose host has not
//! sent us an RTPS message (and is not configured) gets at most a small budget per window.
//!
//! Must not: perform I/O or read a clock (time arrives as `now`), look inside the datagrams it
//! gates, or grow without bound (both address tables are capped).
//!
//! # Overview
//! The 2021 DDS reflection/amplification class (CVE-2021-38425 / -38429 / -38487, see
//! `docs/security.md`): an attacker announces a participant (SPDP, RTPS 2.5 §8.5.3) or a reader
//! (SEDP, §8.5.4) whose locators name a victim. Without a gate every writer then sends the
//! victim heartbeats (§8.4.7.2) and user data, at the writer's rate, for as long as the lease
//! lasts. The gate keys on the *host* (locator kind and address, port ignored):
//! - "heard from" means a datagram from that IP carried at least one RTPS submessage for us.
//!   IP, not IP:port, because DDS implementations send from a different socket than the one
//!   they announce (Fast DDS sends from an ephemeral port, Cyclone from its transmit socket),
//!   so IP:port would never match a real peer; and the victim of a reflection is a host, so
//!   one budget per IP (not per port) bounds what a victim can receive however many ports the
//!   attacker names.
//! - multicast destinations pass: they name a group, not a victim host, and reach only
//!   subscribed hosts on the local network; non-UDP locator kinds pass because the transport
//!   cannot send to them.
//! - configured destinations pass: the SPDP destinations (initial peers) and the allow list.
//! - every other destination spends from its host's budget ([`UNVERIFIED_DATAGRAM_BUDGET`]
//!   datagrams and [`UNVERIFIED_BYTE_BUDGET`] bytes per [`UNVERIFIED_BUDGET_WINDOW`]); beyond
//!   it the destination is dropped from the transmit and counted. That budget is what lets a
//!   peer whose SPDP reached us by a path its replies do not take still complete discovery.
//!
//! Limit: an attacker that can forge the *source* address of its datagrams can make a victim
//! look heard-from; plain RTPS carries no nonce to verify an address with (DDS Security's
//! handshake does). The per-host budget still holds for every address not forged that way.

use std::collections::BTreeMap;

use crate::core::Transmit;
use crate::time::Instant;
use crate::wire::Locator;

/// Datagrams one unverified host may receive per window.
pub const UNVERIFIED_DATAGRAM_BUDGET: u32 = 16;
/// Bytes one unverified host may receive per window.
pub const UNVERIFIED_BYTE_BUDGET: usize = 16 * 1024;
/// Length of the budget window.
pub const UNVERIFIED_BUDGET_WINDOW: core::time::Duration = core::time::Duration::from_secs(10);
/// Most hosts tracked in each table (heard-from, and unverified budgets).
pub const MAX_TRACKED_HOSTS: usize = 1024;

/// The gate's limits; [`GateConfig::default`] uses the constants above.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateConfig {
    /// Datagrams one unverified host may receive per window.
    pub unverified_datagrams: u32,
    /// Bytes one unverified host may receive per window.
    pub unverified_bytes: usize,
    /// Length of the budget window.
    pub window: core::time::Duration,
    /// Most hosts tracked in each table.
    pub max_tracked_hosts: usize,
    /// Unicast destinations always allowed (their host, any port).
    pub allow_list: Vec<Locator>,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            unverified_datagrams: UNVERIFIED_DATAGRAM_BUDGET,
            unverified_bytes: UNVERIFIED_BYTE_BUDGET,
            window: UNVERIFIED_BUDGET_WINDOW,
            max_tracked_hosts: MAX_TRACKED_HOSTS,
            allow_list: Vec::new(),
        }
    }
}

/// Counters of the gate's decisions.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct GateStats {
    /// Destinations sent to while their host was unverified (spent from a budget).
    pub unverified_sends: u64,
    /// Destinations removed from a transmit because their host's budget was spent.
    pub blocked: u64,
}

/// A host: locator kind and address, port ignored.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Host {
    kind: i32,
    address: [u8; 16],
}

impl Host {
    pub(super) fn of(l: &Locator) -> Self {
        Host {
            kind: l.kind,
            address: l.address,
        }
    }
}

/// What an unverified host has received in the current window.
#[derive(Copy, Clone, Debug)]
struct Budget {
    window_start: Instant,
    datagrams: u32,
    bytes: usize,
}

/// The gate state: hosts heard from, and the budgets of the others.
#[derive(Debug)]
pub(super) struct OutboundGate {
    config: GateConfig,
    /// Always-allowed hosts: the allow list and the configured SPDP destinations.
    configured: Vec<Host>,
    /// Hosts heard from, with when they were last heard (the oldest is evicted when full).
    heard: BTreeMap<Host, Instant>,
    budgets: BTreeMap<Host, Budget>,
    stats: GateStats,
}

impl OutboundGate {
    /// A gate that always allows `config.allow_list` and `configured` (the SPDP destinations).
    pub(super) fn new(config: GateConfig, configured: &[Locator]) -> Self {
        let configured = config
            .allow_list
            .iter()
            .chain(configured)
            .map(Host::of)
            .collect::<Vec<_>>();
        OutboundGate {
            config,
            configured,
            heard: BTreeMap::new(),
            budgets: BTreeMap::new(),
            stats: GateStats::default(),
        }
    }

    pub(super) fn stats(&self) -> GateStats {
        self.stats
    }

    /// Records that `source` sent us an RTPS message: its host is verified from now on (until
    /// evicted by [`MAX_TRACKED_HOSTS`] newer ones).
    pub(super) fn heard_from(&mut self, now: Instant, source: &Locator) {
        let host = Host::of(source);
        self.budgets.remove(&host);
        if !self.heard.contains_key(&host) && self.heard.len() >= self.config.max_tracked_hosts {
            let oldest = self.heard.iter().min_by_key(|(_, t)| **t).map(|(h, _)| *h);
            if let Some(oldest) = oldest {
                self.heard.remove(&oldest);
            }
        }
        if self.config.max_tracked_hosts > 0 {
            self.heard.insert(host, now);
        }
    }

    /// Removes from `transmit` every destination the gate refuses; false when none is left.
    pub(super) fn admit(&mut self, now: Instant, transmit: &mut Transmit) -> bool {
        let len = transmit.len();
        let mut destinations = core::mem::take(&mut transmit.destinations);
        destinations.retain(|d| self.allows(now, d, len));
        transmit.destinations = destinations;
        !transmit.destinations.is_empty()
    }

    fn allows(&mut self, now: Instant, dst: &Locator, len: usize) -> bool {
        if !gated_kind(dst) || is_multicast(dst) {
            return true;
        }
        let host = Host::of(dst);
        if self.heard.contains_key(&host) || self.configured.contains(&host) {
            return true;
        }
        if !self.budgets.contains_key(&host) && !self.make_room(now) {
            self.stats.blocked = self.stats.blocked.saturating_add(1);
            return false;
        }
        let window = self.config.window;
        let budget = self.budgets.entry(host).or_insert(Budget {
            window_start: now,
            datagrams: 0,
            bytes: 0,
        });
        if now.saturating_duration_since(budget.window_start) >= window {
            *budget = Budget {
                window_start: now,
                datagrams: 0,
                bytes: 0,
            };
        }
        let bytes = budget.bytes.saturating_add(len);
        if budget.datagrams >= self.config.unverified_datagrams
            || bytes > self.config.unverified_bytes
        {
            self.stats.blocked = self.stats.blocked.saturating_add(1);
            return false;
        }
        budget.datagrams = budget.datagrams.saturating_add(1);
        budget.bytes = bytes;
        self.stats.unverified_sends = self.stats.unverified_sends.saturating_add(1);
        true
    }

    /// Makes room for one more budget: drops budgets whose window has ended. Never evicts a
    /// live budget (that would hand its host a fresh one); false when the table stays full.
    fn make_room(&mut self, now: Instant) -> bool {
        if self.budgets.len() < self.config.max_tracked_hosts {
            return true;
        }
        let window = self.config.window;
        self.budgets
            .retain(|_, b| now.saturating_duration_since(b.window_start) < window);
        self.budgets.len() < self.config.max_tracked_hosts
    }
}

/// UDP locators are gated; others (e.g. Fast DDS shared memory) cannot be sent to anyway.
fn gated_kind(l: &Locator) -> bool {
    l.kind == Locator::KIND_UDPV4 || l.kind == Locator::KIND_UDPV6
}

/// IPv4 224.0.0.0/4 or IPv6 ff00::/8.
pub(super) fn is_multicast(l: &Locator) -> bool {
    match l.ipv4() {
        Some([a, ..]) => (224..=239).contains(&a),
        None => l.address.first() == Some(&0xff),
    }
}

#[cfg(test)]
// Test arithmetic works on small, known inputs; docs/conventions.md §4 targets the receive path.
#[allow(clippy::arithmetic_side_effects)]
mod tests;
