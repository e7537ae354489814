//! TRANSIENT and PERSISTENT durability: the history of one topic that outlives its writers,
//! kept by the participant under the writers' DURABILITY_SERVICE QoS, and the store actions
//! that mirror a PERSISTENT topic's history into a store the runtime owns.
//!
//! Must not: do I/O. The participant owns one [`TopicHistory`] per durable topic; for a
//! PERSISTENT topic every admission hands out [`StoreAction`]s, which the runtime applies to
//! its store (`runtime::durability_store`, SQLite) before the write returns; what the runtime
//! loads back from the store comes in through [`TopicHistory::restore`].
//!
//! DDS 1.4 §2.2.3.4 (DURABILITY: TRANSIENT data outlives its writer, PERSISTENT data also
//! outlives the process), §2.2.3.5 (DURABILITY_SERVICE: the service's history and resource
//! limits). Design notes: docs/durability.md.

use std::collections::{BTreeMap, VecDeque};

use bytes::Bytes;

use crate::core::ChangeKind;
use crate::qos::{DurabilityService, History, Length};
use crate::time::Timestamp;

/// Most samples one topic's durable history keeps when its DURABILITY_SERVICE is unlimited
/// (KEEP_ALL without `max_samples`): the service never grows without bound.
pub const MAX_DURABLE_SAMPLES: usize = 65_536;

/// One change kept by the durability service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DurableSample {
    /// Order of admission within its topic (never reused, also across restarts of a
    /// PERSISTENT topic: the store keeps the highest).
    pub id: u64,
    /// ALIVE, dispose or unregister.
    pub kind: ChangeKind,
    /// The instance (keyed topics).
    pub key_hash: Option<[u8; 16]>,
    /// The serialized sample (encapsulation header included) or key.
    pub data: Bytes,
    /// The writer's source timestamp, kept so that late joiners see the original one.
    pub source_timestamp: Timestamp,
}

/// What the runtime must do to its store for a PERSISTENT topic (in order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreAction {
    /// Store this sample of `topic` (of type `type_name`).
    Put {
        /// Topic name.
        topic: String,
        /// Its type name as announced.
        type_name: String,
        /// The sample.
        sample: DurableSample,
    },
    /// The durability service no longer keeps sample `id` of `topic`.
    Remove {
        /// Topic name.
        topic: String,
        /// [`DurableSample::id`].
        id: u64,
    },
}

/// The durable history of one topic: samples by id, per instance in order, bounded by the
/// DURABILITY_SERVICE history and resource limits (and [`MAX_DURABLE_SAMPLES`]).
#[derive(Debug)]
pub struct TopicHistory {
    type_name: String,
    limits: DurabilityService,
    samples: BTreeMap<u64, DurableSample>,
    instances: BTreeMap<Option<[u8; 16]>, VecDeque<u64>>,
    next_id: u64,
}

impl TopicHistory {
    /// An empty history of a topic of `type_name` kept under `limits`.
    pub fn new(type_name: impl Into<String>, limits: DurabilityService) -> Self {
        TopicHistory {
            type_name: type_name.into(),
            limits,
            samples: BTreeMap::new(),
            instances: BTreeMap::new(),
            next_id: 1,
        }
    }

    /// The type name of the topic's samples.
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// The samples kept, oldest first.
    pub fn samples(&self) -> impl Iterator<Item = &DurableSample> {
        self.samples.values()
    }

    /// Number of samples kept.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// True when nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Takes back samples loaded from a store, in id order; the limits still hold afterwards
    /// (a store written under larger limits is trimmed). Returns the ids trimmed.
    pub fn restore(&mut self, mut loaded: Vec<DurableSample>) -> Vec<u64> {
        loaded.sort_by_key(|s| s.id);
        let mut trimmed = Vec::new();
        for s in loaded {
            if self.samples.contains_key(&s.id) {
                continue;
            }
            self.next_id = self.next_id.max(s.id.saturating_add(1));
            trimmed.extend(self.insert(s));
        }
        trimmed
    }

    /// Admits a new change; returns it (with its id) and the ids it evicted.
    pub fn admit(
        &mut self,
        kind: ChangeKind,
        key_hash: Option<[u8; 16]>,
        data: Bytes,
        source_timestamp: Timestamp,
    ) -> (DurableSample, Vec<u64>) {
        let sample = DurableSample {
            id: self.next_id,
            kind,
            key_hash,
            data,
            source_timestamp,
        };
        self.next_id = self.next_id.saturating_add(1);
        let evicted = self.insert(sample.clone());
        (sample, evicted)
    }

    /// Inserts `s` and evicts what the limits no longer allow; returns the evicted ids.
    fn insert(&mut self, s: DurableSample) -> Vec<u64> {
        let key = s.key_hash;
        let id = s.id;
        self.samples.insert(id, s);
        self.instances.entry(key).or_default().push_back(id);
        let mut evicted = Vec::new();
        // DDS 1.4 §2.2.3.5: per instance, the newest `depth` (KEEP_LAST) or
        // `max_samples_per_instance` (KEEP_ALL) samples.
        let per_instance = match self.limits.history {
            History::KeepLast(depth) => {
                min_len(depth as usize, self.limits.max_samples_per_instance)
            }
            History::KeepAll => min_len(usize::MAX, self.limits.max_samples_per_instance),
        };
        while self
            .instances
            .get(&key)
            .is_some_and(|q| q.len() > per_instance)
        {
            evicted.extend(self.pop_oldest_of(key));
        }
        // Too many instances: the one updated longest ago goes.
        let max_instances = min_len(usize::MAX, self.limits.max_instances);
        while self.instances.len() > max_instances {
            let stalest = self
                .instances
                .iter()
                .filter(|(k, _)| **k != key)
                .min_by_key(|(_, q)| q.back().copied())
                .map(|(k, _)| *k);
            let Some(stalest) = stalest else { break };
            while let Some(gone) = self.pop_oldest_of(stalest) {
                evicted.push(gone);
            }
        }
        // Too many samples in all: the oldest go.
        let max_samples = min_len(MAX_DURABLE_SAMPLES, self.limits.max_samples);
        while self.samples.len() > max_samples {
            let Some(oldest) = self.samples.values().next().map(|s| s.key_hash) else {
                break;
            };
            evicted.extend(self.pop_oldest_of(oldest));
        }
        evicted
    }

    fn pop_oldest_of(&mut self, key: Option<[u8; 16]>) -> Option<u64> {
        let q = self.instances.get_mut(&key)?;
        let id = q.pop_front();
        if q.is_empty() {
            self.instances.remove(&key);
        }
        if let Some(id) = id {
            self.samples.remove(&id);
        }
        id
    }
}

fn min_len(n: usize, limit: Length) -> usize {
    match limit {
        Length::Unlimited => n,
        Length::Limited(l) => n.min(l as usize),
    }
}

#[cfg(test)]
mod tests;
