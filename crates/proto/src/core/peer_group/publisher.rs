//! The publisher side of the peer-group cache, for one (writer, intermediary peer) pair: which
//! keys the peer has acknowledged, and the one decision "full, full with a definition, or
//! abbreviated" per sample, and the alias naming the acknowledged definition's SN.
//! docs/peer-group-cache.md §5 rules 1–6, 10, 16.
//!
//! Must not: send anything, read a clock, or grow without bound (at most
//! [`MAX_TRACKED_KEYS`] keys and [`MAX_TRACKED_SENDS`] abbreviated sequence numbers per peer;
//! forgetting only costs a re-definition or a full repair).

use std::collections::{BTreeMap, VecDeque};

use crate::wire::{Alias, CacheKey, Capability, EvictionNotice, SequenceNumber, WIDE_WINDOW};

/// Keys whose acknowledgement state we remember per peer.
pub const MAX_TRACKED_KEYS: usize = 256;
/// Abbreviated sends (SN → key) remembered per peer, for NACKs of them.
pub const MAX_TRACKED_SENDS: usize = 4096;
/// An acknowledged key is defined again (a new binding) once its binding's definition is
/// this many SNs old: half the wide alias window, so the old binding still serves while the
/// new definition is acknowledged.
pub const REBIND_AFTER: i64 = WIDE_WINDOW / 2;

/// How to send one sample to the intermediary.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SendAs {
    /// An ordinary DATA.
    Full,
    /// An ordinary DATA carrying `PID_SIFTDDS_PEER_GROUP_KEY` (a definition).
    Define,
    /// The abbreviated vendor submessage.
    Abbreviated,
}

/// How the sample leaves the writer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Path {
    /// A first send by unicast to this peer only.
    Unicast,
    /// To a multicast group (others may listen: rule 5).
    Multicast,
    /// A retransmission of an earlier sequence number (rule 4).
    Repair,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum KeyState {
    /// Definitions went out at `first` and later up to `last`, none covered by an ACKNACK yet.
    Defined {
        first: SequenceNumber,
        last: SequenceNumber,
    },
    /// The peer's ACKNACK covered the definition at `def` (the alias names it); another one
    /// at `pending` is not covered yet.
    Acknowledged {
        def: SequenceNumber,
        pending: Option<SequenceNumber>,
    },
}

/// What one writer knows about one intermediary peer.
#[derive(Clone, Debug, Default)]
pub struct PeerCache {
    /// The peer's advertised capability (None: not capable, rule 2).
    capability: Option<Capability>,
    keys: BTreeMap<CacheKey, KeyState>,
    /// Insertion order of `keys`, oldest first (for the bound).
    order: VecDeque<CacheKey>,
    sends: BTreeMap<SequenceNumber, CacheKey>,
    /// The peer's eviction notices as last seen (SPDP): only new ones are applied.
    notices: Vec<EvictionNotice>,
}

impl PeerCache {
    /// A peer that has not advertised the capability.
    pub fn new() -> Self {
        Self::default()
    }

    /// The peer's discovery data changed. A new generation (or losing the capability) forgets
    /// everything: the peer's cache was dropped (restart, lease), rule "first sample in full".
    pub fn handle_capability(&mut self, capability: Option<Capability>) {
        let same = matches!((self.capability, capability),
            (Some(a), Some(b)) if a.generation == b.generation);
        if !same {
            self.keys.clear();
            self.order.clear();
            self.sends.clear();
            self.notices.clear();
        }
        self.capability = capability;
    }

    /// The peer's eviction notices (its SPDP, §4.3). A notice not in the previous list means
    /// the peer evicted that (group, digest) since: the key is no longer acknowledged, so the
    /// next sample with it re-defines it instead of being abbreviated, NACKed and repaired.
    /// A notice seen before is not applied again (the key may have been re-defined since).
    /// Returns how many acknowledged or pending keys were forgotten.
    pub fn handle_evictions(&mut self, notices: &[EvictionNotice]) -> usize {
        let fresh: Vec<EvictionNotice> = notices
            .iter()
            .filter(|n| !self.notices.contains(n))
            .copied()
            .collect();
        self.notices = notices.to_vec();
        let gone: Vec<CacheKey> = self
            .keys
            .keys()
            .filter(|k| {
                fresh
                    .iter()
                    .any(|n| n.group == k.group && n.digest == k.digest)
            })
            .copied()
            .collect();
        for k in &gone {
            self.keys.remove(k);
            self.order.retain(|o| o != k);
        }
        gone.len()
    }

    /// The generation to put in keys for this peer, if it is capable.
    pub fn generation(&self) -> Option<u32> {
        self.capability.map(|c| c.generation)
    }

    /// The decision for sample `sn` whose common part has `key`, and its bookkeeping.
    pub fn decide(&mut self, key: CacheKey, sn: SequenceNumber, path: Path) -> SendAs {
        let Some(cap) = self.capability else {
            return SendAs::Full;
        };
        if key.generation != cap.generation {
            return SendAs::Full;
        }
        let state = self.keys.get(&key).copied();
        match (path, state) {
            // A binding getting old: this sample defines again (the old binding serves the
            // next samples until the new one is acknowledged).
            (Path::Unicast, Some(KeyState::Acknowledged { def, pending: None }))
                if sn.0.saturating_sub(def.0) >= REBIND_AFTER =>
            {
                self.keys.insert(
                    key,
                    KeyState::Acknowledged {
                        def,
                        pending: Some(sn),
                    },
                );
                SendAs::Define
            }
            // Rules 1, 3: abbreviated only by unicast, after the definition was acknowledged.
            (Path::Unicast, Some(KeyState::Acknowledged { .. })) => {
                if self.sends.len() >= MAX_TRACKED_SENDS {
                    self.sends.pop_first();
                }
                self.sends.insert(sn, key);
                SendAs::Abbreviated
            }
            // A definition already pending: send it again (ACKNACKs are cumulative, so the
            // first is covered first; the last is the binding used once covered).
            (Path::Unicast | Path::Multicast, Some(KeyState::Defined { first, .. })) => {
                self.keys.insert(key, KeyState::Defined { first, last: sn });
                SendAs::Define
            }
            (Path::Multicast, Some(KeyState::Acknowledged { .. })) => SendAs::Full,
            (Path::Unicast | Path::Multicast, None) => {
                self.remember(
                    key,
                    KeyState::Defined {
                        first: sn,
                        last: sn,
                    },
                );
                SendAs::Define
            }
            // Rule 4: repairs in full (plain DATA: a repair never binds).
            (Path::Repair, _) => SendAs::Full,
        }
    }

    /// How an abbreviated sample at `sn` names `key`: the alias of its acknowledged binding
    /// while that is in the alias window, `None` otherwise (send the short key).
    pub fn alias(&self, key: &CacheKey, sn: SequenceNumber) -> Option<Alias> {
        match self.keys.get(key)? {
            KeyState::Acknowledged { def, .. } => Alias::for_definition(*def, sn),
            KeyState::Defined { .. } => None,
        }
    }

    fn remember(&mut self, key: CacheKey, state: KeyState) {
        if self.keys.insert(key, state).is_none() {
            self.order.push_back(key);
            if self.order.len() > MAX_TRACKED_KEYS {
                if let Some(old) = self.order.pop_front() {
                    self.keys.remove(&old);
                }
            }
        }
    }

    /// The peer's ACKNACK: every SN below `base` was received (RTPS 2.5 §8.4.15.3). `missing`
    /// are the SNs it asks for; a NACK of an abbreviated SN means the peer does not know its
    /// key (evicted, collided, restarted): the key is no longer acknowledged (rule 6).
    /// Returns how many of `missing` were sent abbreviated (each is repaired in full).
    pub fn handle_acknack(&mut self, base: SequenceNumber, missing: &[SequenceNumber]) -> usize {
        let mut nacked = 0usize;
        for sn in missing {
            if let Some(key) = self.sends.remove(sn) {
                nacked = nacked.saturating_add(1);
                self.keys.remove(&key);
                self.order.retain(|k| *k != key);
            }
        }
        for state in self.keys.values_mut() {
            *state = match *state {
                KeyState::Defined { first, last } if first < base => KeyState::Acknowledged {
                    def: if last < base { last } else { first },
                    pending: (last >= base).then_some(last),
                },
                KeyState::Acknowledged {
                    pending: Some(p), ..
                } if p < base => KeyState::Acknowledged {
                    def: p,
                    pending: None,
                },
                other => other,
            };
        }
        // Abbreviated sends below base were restored: nothing to remember for them.
        self.sends = self.sends.split_off(&base);
        nacked
    }

    /// Keys currently acknowledged by the peer.
    pub fn acknowledged(&self) -> usize {
        self.keys
            .values()
            .filter(|s| matches!(s, KeyState::Acknowledged { .. }))
            .count()
    }
}
