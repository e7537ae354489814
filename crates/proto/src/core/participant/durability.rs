//! The participant's durability service for TRANSIENT and PERSISTENT writers: one
//! [`TopicHistory`] per durable topic, fed by every write of such a writer; a new writer of
//! the topic starts with that history (a restarted PERSISTENT writer with what the runtime
//! loaded from its store); when the last writer of a topic is deleted, a service writer of
//! the participant goes on serving the history to late-joining readers.
//!
//! Must not: do I/O. For PERSISTENT topics it queues [`StoreAction`]s that the runtime takes
//! with [`Participant::take_store_actions`] and applies to its store.
//!
//! DDS 1.4 §2.2.3.4, §2.2.3.5. Overview in docs/durability.md.

use std::collections::{BTreeMap, VecDeque};

use super::Participant;
use super::endpoints::{LocalWriter, WriterSpec};
use crate::core::WriteRequest;
use crate::core::durability::{DurableSample, StoreAction, TopicHistory};
use crate::qos::{Durability, ResourceLimits};
use crate::time::Now;
use crate::wire::{EntityId, Guid};

/// Most queued store actions before the oldest are dropped (a runtime that never takes
/// them; the store then misses samples, logged).
const MAX_QUEUED_STORE_ACTIONS: usize = 65_536;

/// The durable histories, the service writers that serve them while no application writer
/// of the topic exists, and the store actions not yet taken.
#[derive(Debug, Default)]
pub(super) struct DurabilityState {
    topics: BTreeMap<String, Durable>,
    services: BTreeMap<String, EntityId>,
    actions: VecDeque<StoreAction>,
}

#[derive(Debug)]
struct Durable {
    history: TopicHistory,
    persistent: bool,
}

impl Participant {
    /// Hands the participant what the runtime loaded from its store for a PERSISTENT topic,
    /// before its first writer is created. Ignored when the topic already has a durable
    /// history here (it is at least as new as the store). Samples trimmed to the writers'
    /// DURABILITY_SERVICE limits become [`StoreAction::Remove`]s.
    pub fn restore_persistent(
        &mut self,
        topic: &str,
        type_name: &str,
        limits: crate::qos::DurabilityService,
        samples: Vec<DurableSample>,
    ) {
        // Already here: it is at least as new as the store (`durable_writer_created` makes
        // the store mirror it if TRANSIENT writers started it).
        if self.durability.topics.contains_key(topic) {
            return;
        }
        let mut history = TopicHistory::new(type_name, limits);
        for id in history.restore(samples) {
            self.push_store_action(StoreAction::Remove {
                topic: topic.to_string(),
                id,
            });
        }
        let durable = Durable {
            history,
            persistent: true,
        };
        self.durability.topics.insert(topic.to_string(), durable);
    }

    /// Takes the store actions queued for PERSISTENT topics, oldest first.
    pub fn take_store_actions(&mut self) -> Vec<StoreAction> {
        self.durability.actions.drain(..).collect()
    }

    /// The service writer serving `topic`'s durable history while no application writer of
    /// it exists, if there is one.
    pub fn durability_service_writer(&self, topic: &str) -> Option<Guid> {
        let id = self.durability.services.get(topic)?;
        Some(Guid::new(self.config.guid_prefix, *id))
    }

    /// Number of samples the durability service keeps for `topic`.
    pub fn durable_samples(&self, topic: &str) -> usize {
        self.durability
            .topics
            .get(topic)
            .map_or(0, |d| d.history.len())
    }

    /// A TRANSIENT or PERSISTENT writer was created (not announced yet): it takes over from
    /// the topic's service writer and starts with the durable history.
    pub(super) fn durable_writer_created(&mut self, now: Now, guid: Guid) {
        let Some(w) = self.writers.get(&guid.entity_id) else {
            return;
        };
        if w.spec.qos.durability < Durability::Transient {
            return;
        }
        let topic = w.spec.topic_name.clone();
        let is_service = self.durability.services.get(&topic) == Some(&guid.entity_id);
        if !is_service && let Some(id) = self.durability.services.remove(&topic) {
            // The readers the service writer served already have the history.
            if let Some(service) = self.writers.remove(&id) {
                self.builtin
                    .unannounce_writer(now, Guid::new(self.config.guid_prefix, id));
                if let Some(w) = self.writers.get_mut(&guid.entity_id) {
                    w.served = service.matched;
                }
            }
        }
        let Some(w) = self.writers.get_mut(&guid.entity_id) else {
            return;
        };
        let durable = self
            .durability
            .topics
            .entry(topic.clone())
            .or_insert_with(|| Durable {
                history: TopicHistory::new(
                    &w.spec.type_name,
                    w.spec.qos.durability_service.clone(),
                ),
                persistent: w.spec.qos.durability == Durability::Persistent,
            });
        for s in durable.history.samples() {
            let request = WriteRequest::new(s.kind, s.key_hash, s.data.clone())
                .with_source_timestamp(Some(s.source_timestamp));
            if let Err(e) = w.writer.write(now, request) {
                log::warn!("writer {guid}: durable sample {} not taken: {e}", s.id);
            }
        }
        // The first PERSISTENT writer of a topic TRANSIENT writers started: from now on the
        // store mirrors the topic's history, beginning with what it holds.
        if w.spec.qos.durability == Durability::Persistent && !durable.persistent {
            durable.persistent = true;
            let type_name = durable.history.type_name().to_string();
            let puts: Vec<StoreAction> = (durable.history.samples())
                .map(|sample| StoreAction::Put {
                    topic: topic.clone(),
                    type_name: type_name.clone(),
                    sample: sample.clone(),
                })
                .collect();
            for put in puts {
                self.push_store_action(put);
            }
        }
    }

    /// A write of a TRANSIENT or PERSISTENT writer enters its topic's durable history.
    pub(super) fn durable_written(&mut self, now: Now, writer: Guid, request: &WriteRequest) {
        let Some(w) = self.writers.get(&writer.entity_id) else {
            return;
        };
        if w.spec.qos.durability < Durability::Transient {
            return;
        }
        let Some(durable) = self.durability.topics.get_mut(&w.spec.topic_name) else {
            return;
        };
        let ts = request.source_timestamp.unwrap_or(now.wall);
        let (sample, evicted) =
            durable
                .history
                .admit(request.kind, request.key_hash, request.data.clone(), ts);
        if !durable.persistent {
            return;
        }
        let topic = &w.spec.topic_name;
        let put = StoreAction::Put {
            topic: topic.clone(),
            type_name: durable.history.type_name().to_string(),
            sample,
        };
        let removes: Vec<StoreAction> = evicted
            .into_iter()
            .map(|id| StoreAction::Remove {
                topic: topic.clone(),
                id,
            })
            .collect();
        self.push_store_action(put);
        for r in removes {
            self.push_store_action(r);
        }
    }

    /// A writer was deleted (and unannounced): when it was the topic's last TRANSIENT or
    /// PERSISTENT writer and the history is not empty, a service writer of the participant
    /// serves it to late joiners from now on (not again to the readers `w` matched).
    pub(super) fn durable_writer_deleted(&mut self, now: Now, w: LocalWriter) {
        let topic = &w.spec.topic_name;
        if w.spec.qos.durability < Durability::Transient
            || self.durability.services.contains_key(topic)
            || self
                .durability
                .topics
                .get(topic)
                .is_none_or(|d| d.history.is_empty())
        {
            return;
        }
        let writers_left = self
            .writers
            .values()
            .any(|o| &o.spec.topic_name == topic && o.spec.qos.durability >= Durability::Transient);
        if writers_left {
            return;
        }
        // The service keeps its history under DURABILITY_SERVICE (DDS 1.4 §2.2.3.5).
        let ds = w.spec.qos.durability_service.clone();
        let mut spec: WriterSpec = w.spec.clone();
        spec.qos.history = ds.history;
        spec.qos.resource_limits = ResourceLimits {
            max_samples: ds.max_samples,
            max_instances: ds.max_instances,
            max_samples_per_instance: ds.max_samples_per_instance,
        };
        let kind = match spec.keyed {
            true => EntityId::KIND_WRITER_WITH_KEY,
            false => EntityId::KIND_WRITER_NO_KEY,
        };
        let id = self.next_entity_id(kind);
        self.durability.services.insert(topic.clone(), id);
        self.insert_writer(
            now,
            Guid::new(self.config.guid_prefix, id),
            spec,
            false,
            w.matched,
        );
    }

    fn push_store_action(&mut self, action: StoreAction) {
        if self.durability.actions.len() >= MAX_QUEUED_STORE_ACTIONS {
            log::warn!("durability: store actions not taken; dropping the oldest");
            self.durability.actions.pop_front();
        }
        self.durability.actions.push_back(action);
    }
}
