//! The participant's durability service for TRANSIENT and PERSISTENT writers: one
//! [`TopicHistory`] per durable topic, fed by every write of such a writer; a new writer of
//! the topic starts with that history (a restarted PERSISTENT writer with what the runtime
//! loaded from its store); when the last writer of a topic is deleted, a service writer of
//! the participant goes on serving the history to late-joining readers.
//!
//! Owns ([`Durability`], a part of the participant): the durable histories, which service
//! writer serves which topic, and the store actions not yet taken. The local writers are the
//! endpoints part's (`endpoints.rs`), handed in.
//!
//! Must not: do I/O. For PERSISTENT topics it queues [`StoreAction`]s that the runtime takes
//! with `Participant::take_store_actions` and applies to its store.
//!
//! DDS 1.4 §2.2.3.4, §2.2.3.5. Overview in docs/durability.md.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::endpoints::{Endpoints, LocalWriter};
use super::spec::WriterSpec;
use crate::core::WriteRequest;
use crate::core::durability::{DurableSample, StoreAction, TopicHistory};
use crate::qos::{Durability as DurabilityKind, ResourceLimits};
use crate::time::Now;
use crate::wire::{EntityId, Guid};

/// Most queued store actions before the oldest are dropped (a runtime that never takes
/// them; the store then misses samples, logged).
const MAX_QUEUED_STORE_ACTIONS: usize = 65_536;

/// The durable histories, the service writers that serve them while no application writer
/// of the topic exists, and the store actions not yet taken.
#[derive(Debug, Default)]
pub(super) struct Durability {
    topics: BTreeMap<String, Durable>,
    services: BTreeMap<String, EntityId>,
    actions: VecDeque<StoreAction>,
}

#[derive(Debug)]
struct Durable {
    history: TopicHistory,
    persistent: bool,
}

/// A service writer to create: its GUID (entity id allocated), its spec, and the readers
/// already served.
pub(super) type ServiceWriter = (Guid, WriterSpec, BTreeSet<Guid>);

impl Durability {
    /// What the runtime loaded from its store for a PERSISTENT topic, before its first writer
    /// is created. Ignored when the topic already has a durable history here (it is at least
    /// as new as the store). Samples trimmed to the writers' DURABILITY_SERVICE limits become
    /// [`StoreAction::Remove`]s.
    pub(super) fn restore_persistent(
        &mut self,
        topic: &str,
        type_name: &str,
        limits: crate::qos::DurabilityService,
        samples: Vec<DurableSample>,
    ) {
        // Already here: it is at least as new as the store (`writer_created` makes the store
        // mirror it if TRANSIENT writers started it).
        if self.topics.contains_key(topic) {
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
        self.topics.insert(topic.to_string(), durable);
    }

    /// Takes the store actions queued for PERSISTENT topics, oldest first.
    pub(super) fn take_store_actions(&mut self) -> Vec<StoreAction> {
        self.actions.drain(..).collect()
    }

    /// The entity id of the service writer serving `topic`'s durable history, if any.
    pub(super) fn service_writer(&self, topic: &str) -> Option<EntityId> {
        self.services.get(topic).copied()
    }

    /// Number of samples kept for `topic`.
    pub(super) fn samples(&self, topic: &str) -> usize {
        self.topics.get(topic).map_or(0, |d| d.history.len())
    }

    /// A TRANSIENT or PERSISTENT writer was created (not announced yet): it takes over from
    /// the topic's service writer and starts with the durable history. Returns the service
    /// writer removed, for the caller to unannounce.
    pub(super) fn writer_created(
        &mut self,
        now: Now,
        guid: Guid,
        endpoints: &mut Endpoints,
    ) -> Option<Guid> {
        let w = endpoints.writer(guid)?;
        if w.spec.qos.durability < DurabilityKind::Transient {
            return None;
        }
        let topic = w.spec.topic_name.clone();
        let is_service = self.services.get(&topic) == Some(&guid.entity_id);
        let mut removed = None;
        let replaced = if is_service {
            None
        } else {
            self.services.remove(&topic)
        };
        if let Some(id) = replaced {
            // The readers the service writer served already have the history.
            let service_guid = Guid::new(guid.prefix, id);
            if let Some(service) = endpoints.remove_writer(service_guid) {
                removed = Some(service_guid);
                if let Some(w) = endpoints.writer_mut(guid) {
                    w.served = service.matched;
                }
            }
        }
        let w = endpoints.writer_mut(guid)?;
        let durable = self.topics.entry(topic.clone()).or_insert_with(|| Durable {
            history: TopicHistory::new(&w.spec.type_name, w.spec.qos.durability_service.clone()),
            persistent: w.spec.qos.durability == DurabilityKind::Persistent,
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
        if w.spec.qos.durability == DurabilityKind::Persistent && !durable.persistent {
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
        removed
    }

    /// A write of a TRANSIENT or PERSISTENT writer enters its topic's durable history.
    pub(super) fn written(
        &mut self,
        now: Now,
        writer: Guid,
        request: &WriteRequest,
        endpoints: &Endpoints,
    ) {
        let Some(w) = endpoints.writer(writer) else {
            return;
        };
        if w.spec.qos.durability < DurabilityKind::Transient {
            return;
        }
        let Some(durable) = self.topics.get_mut(&w.spec.topic_name) else {
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
    /// serves it to late joiners from now on (not again to the readers `w` matched). Returns
    /// the service writer for the caller to create (`w`'s prefix, an entity id allocated).
    pub(super) fn writer_deleted(
        &mut self,
        w: LocalWriter,
        endpoints: &mut Endpoints,
    ) -> Option<ServiceWriter> {
        let topic = &w.spec.topic_name;
        if w.spec.qos.durability < DurabilityKind::Transient
            || self.services.contains_key(topic)
            || self.topics.get(topic).is_none_or(|d| d.history.is_empty())
        {
            return None;
        }
        let writers_left = endpoints.writers().any(|(_, o)| {
            &o.spec.topic_name == topic && o.spec.qos.durability >= DurabilityKind::Transient
        });
        if writers_left {
            return None;
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
        let id = endpoints.next_entity_id(kind);
        self.services.insert(topic.clone(), id);
        let prefix = w.writer.guid().prefix;
        Some((Guid::new(prefix, id), spec, w.matched))
    }

    fn push_store_action(&mut self, action: StoreAction) {
        if self.actions.len() >= MAX_QUEUED_STORE_ACTIONS {
            log::warn!("durability: store actions not taken; dropping the oldest");
            self.actions.pop_front();
        }
        self.actions.push_back(action);
    }
}
