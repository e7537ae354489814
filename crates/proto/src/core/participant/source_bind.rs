//! Source validation without DDS Security: each remote participant is bound to the addresses
//! it was discovered at, and the submessages that steer our reliability state or end the
//! participant are taken only from those addresses.
//!
//! Must not: perform I/O, compare ports (peers send from other sockets than the ones they
//! announce: Fast DDS from an ephemeral port, Cyclone from its transmit socket; the outbound
//! gate, `gate.rs`, keys on the host for the same reason, and its `Host` is used here), or
//! grow without bound (at most [`MAX_BOUND_ADDRESSES`] addresses per participant).
//!
//! # Overview
//! Plain RTPS (RTPS 2.5 §8.3.3, §8.3.4) authenticates nothing: the GUID prefix in the header
//! names the sender, and anyone who has seen one datagram (SPDP is multicast in clear) can
//! claim it. Cyclone DDS 0.10 (`handle_Heartbeat` in `q_receive.c`) and Fast DDS 2.9
//! (`WriterProxy::process_heartbeat`) take a HEARTBEAT's range on trust and leave
//! authentication to DDS Security (`validate_msg_decoding` in Cyclone is only the Security
//! hook), so one forged HEARTBEAT, GAP or SPDP dispose from anywhere stops a reliable reader or
//! unmatches a participant (`docs/security.md` §6, `docs/interop-facts.md` §10.1).
//!
//! The binding of a participant is the set of hosts (locator kind and address) it may speak
//! from:
//! - the source addresses of the SPDP announcements we accepted from it;
//! - the addresses of the unicast locators it announced (metatraffic and default; a
//!   multi-homed peer announces one per interface, RTPS 2.5 §8.5.3.2). Multicast locators
//!   are never a datagram's source and are not bound;
//! - for a participant on this host (its SPDP came from a loopback address or one of ours),
//!   also 127.0.0.1 and our own interface addresses: the kernel gives a datagram sent to a
//!   local address that address (or 127.0.0.1 for loopback) as its source, whatever the peer
//!   announced. Other loopback addresses (127.0.0.3) stay foreign.
//!
//! [`SourceBinding::check`] decides for one submessage: HEARTBEAT, HEARTBEAT_FRAG, GAP,
//! ACKNACK, NACK_FRAG and SPDP disposes from a host outside the binding are dropped (the
//! participant counts them in `ParticipantStats::foreign_source`). An SPDP announcement from a
//! foreign host with a higher SPDP sequence number than any accepted is a participant that
//! moved: it is re-bound to the new source and the locators it announces (counted in
//! `ParticipantStats::rebound`). One from a foreign host with an old sequence number is
//! dropped too. An announcement from a bound host that names new locators re-binds to those.
//!
//! Limit: whoever can forge the source address itself (on the path, or on this host), or can
//! send an SPDP with a higher sequence number (they are in clear), defeats this; the DDS
//! Security handshake is the answer to that.

use super::gate::{Host, is_multicast};
use crate::wire::Locator;

/// Most hosts one participant is bound to (sources plus announced locators); further
/// announced locators are not bound (RTPS caps nothing; our SPDP decoder keeps 16 locators
/// per list, `MAX_LOCATORS`).
pub const MAX_BOUND_ADDRESSES: usize = 40;

/// What to do with one submessage claiming a bound participant's prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceVerdict {
    /// From a bound host (or a kind that is not checked): handle it.
    Accept,
    /// An SPDP announcement from a new host with a higher sequence number: the participant
    /// moved. Handle it and re-bind ([`SourceBinding::rebind`]).
    Rebind,
    /// From a foreign host: drop it and count it.
    Drop,
}

/// The hosts one remote participant may send its reliability and lifecycle submessages from.
#[derive(Clone, Debug)]
pub struct SourceBinding {
    /// SPDP sources we accepted, then the announced unicast hosts (deduplicated, capped).
    sources: Vec<Host>,
    announced: Vec<Host>,
    /// Local hosts a participant on this host may use (127.0.0.1 and our interfaces); empty
    /// for a remote host.
    local: Vec<Host>,
    /// Highest SPDP sequence number accepted.
    spdp_sn: i64,
}

impl SourceBinding {
    /// The binding of a participant first heard from `source` with SPDP sequence number
    /// `spdp_sn`, announcing `announced` (its unicast and multicast locators; multicast ones
    /// are skipped). `local` are the hosts a participant on this host may send from (empty
    /// when it is on another host; see [`local_hosts`]).
    pub fn new(source: &Locator, spdp_sn: i64, announced: &[Locator], local: &[Locator]) -> Self {
        let mut b = SourceBinding {
            sources: vec![Host::of(source)],
            announced: Vec::new(),
            local: local.iter().map(Host::of).collect(),
            spdp_sn,
        };
        b.set_announced(announced);
        b
    }

    fn set_announced(&mut self, announced: &[Locator]) {
        self.announced.clear();
        for l in announced {
            let h = Host::of(l);
            if is_multicast(l) || self.announced.contains(&h) {
                continue;
            }
            if self.sources.len().saturating_add(self.announced.len()) >= MAX_BOUND_ADDRESSES {
                break;
            }
            self.announced.push(h);
        }
    }

    /// True when `source` is one of the bound hosts.
    pub fn binds(&self, source: &Locator) -> bool {
        let h = Host::of(source);
        self.sources.contains(&h) || self.announced.contains(&h) || self.local.contains(&h)
    }

    /// The verdict for a submessage that is not an SPDP announcement (HEARTBEAT, GAP, ...,
    /// SPDP dispose) from `source`.
    pub fn check(&self, source: &Locator) -> SourceVerdict {
        if self.binds(source) {
            SourceVerdict::Accept
        } else {
            SourceVerdict::Drop
        }
    }

    /// The verdict for an SPDP announcement with sequence number `sn` from `source`.
    pub fn check_announcement(&self, source: &Locator, sn: i64) -> SourceVerdict {
        if self.binds(source) {
            SourceVerdict::Accept
        } else if sn > self.spdp_sn {
            SourceVerdict::Rebind
        } else {
            SourceVerdict::Drop
        }
    }

    /// An SPDP announcement accepted from a bound `source`: remembers its sequence number and
    /// source, and binds the locators it names now.
    pub fn accept_announcement(&mut self, source: &Locator, sn: i64, announced: &[Locator]) {
        self.spdp_sn = self.spdp_sn.max(sn);
        let h = Host::of(source);
        if !self.sources.contains(&h) && self.sources.len() < MAX_BOUND_ADDRESSES / 2 {
            self.sources.push(h);
        }
        self.set_announced(announced);
    }

    /// The participant moved: only `source` and what it announces now are bound.
    pub fn rebind(&mut self, source: &Locator, sn: i64, announced: &[Locator], local: &[Locator]) {
        *self = SourceBinding::new(source, sn, announced, local);
    }
}

/// The hosts a participant on this host may send from: 127.0.0.1 and our own addresses.
pub fn local_hosts(ours: &[ipnet::Ipv4Net]) -> Vec<Locator> {
    core::iter::once([127, 0, 0, 1])
        .chain(ours.iter().map(|n| n.addr().octets()))
        .map(|a| Locator::udpv4(a, 0))
        .collect()
}

#[cfg(test)]
mod tests;
