//! Matching of local user endpoints with remote ones: whether a writer and a reader (one
//! local, one remote) communicate (topic and type names, keyed-ness, RxO QoS, partitions),
//! and applying the outcome to the local side (match, unmatch, incompatible-QoS event).
//! RTPS 2.5 §8.5.5 (matching remote endpoints); DDS 1.4 §2.2.3 (RxO).
//!
//! Must not: perform I/O; store remote endpoints (discovery data arrives through `sedp.rs`,
//! which enforces `ParticipantConfig::max_remote_endpoints`); match anything that fails a
//! check (a partial match is an incompatibility, never a match).

use super::Participant;
use super::locator_select::select_unicast;
use crate::core::{Event, RemoteReader, RemoteWriter};
use crate::qos::{
    Durability, Offered, PublisherQos, ReliabilityKind, Requested, SubscriberQos,
    check_compatibility, partitions_match,
};
use crate::time::Now;
use crate::wire::{EntityId, Guid, GuidPrefix, Locator};

/// Entity kinds say whether a topic is keyed (docs/interop-facts.md §5.4; Fast DDS refuses a
/// mismatch).
fn is_keyed(id: EntityId) -> bool {
    matches!(
        id.kind(),
        EntityId::KIND_WRITER_WITH_KEY | EntityId::KIND_READER_WITH_KEY
    )
}

impl Participant {
    pub(super) fn match_local_writer(&mut self, now: Now, writer: Guid) {
        let remotes: Vec<Guid> = self.remote_readers.keys().copied().collect();
        for reader in remotes {
            self.evaluate_match(now, writer, reader);
        }
    }

    pub(super) fn match_local_reader(&mut self, now: Now, reader: Guid) {
        let remotes: Vec<Guid> = self.remote_writers.keys().copied().collect();
        for writer in remotes {
            self.evaluate_match(now, writer, reader);
        }
    }

    /// Decides whether `writer` and `reader` (one local, one remote) communicate, and makes
    /// the local side match, unmatch or report incompatible QoS. DDS 1.4 §2.2.3; RTPS 2.5
    /// §8.5.5 (topic and type names, keyed-ness, RxO, partitions).
    pub(super) fn evaluate_match(&mut self, now: Now, writer: Guid, reader: Guid) {
        let ours = self.config.guid_prefix;
        let (offered, publisher, w_topic, w_type) = if writer.prefix == ours {
            let Some(w) = self.writers.get(&writer.entity_id) else {
                return;
            };
            (
                w.spec.qos.clone(),
                w.spec.publisher_qos.clone(),
                w.spec.topic_name.clone(),
                w.spec.type_name.clone(),
            )
        } else {
            let Some(w) = self.remote_writers.get(&writer) else {
                return;
            };
            let publisher = PublisherQos {
                presentation: w.presentation,
                partition: w.partition.clone(),
                group_data: w.group_data.clone(),
                ..PublisherQos::default()
            };
            (
                w.qos.clone(),
                publisher,
                w.topic_name.clone(),
                w.type_name.clone(),
            )
        };
        let (requested, subscriber, r_topic, r_type) = if reader.prefix == ours {
            let Some(r) = self.readers.get(&reader.entity_id) else {
                return;
            };
            (
                r.spec.qos.clone(),
                r.spec.subscriber_qos.clone(),
                r.spec.topic_name.clone(),
                r.spec.type_name.clone(),
            )
        } else {
            let Some(r) = self.remote_readers.get(&reader) else {
                return;
            };
            let subscriber = SubscriberQos {
                presentation: r.presentation,
                partition: r.partition.clone(),
                group_data: r.group_data.clone(),
                ..SubscriberQos::default()
            };
            (
                r.qos.clone(),
                subscriber,
                r.topic_name.clone(),
                r.type_name.clone(),
            )
        };
        if w_topic != r_topic {
            return;
        }
        let same_type =
            w_type == r_type && is_keyed(writer.entity_id) == is_keyed(reader.entity_id);
        let partitions = partitions_match(&publisher.partition.names, &subscriber.partition.names);
        let rxo = check_compatibility(
            Offered {
                writer: &offered,
                publisher: &publisher,
            },
            Requested {
                reader: &requested,
                subscriber: &subscriber,
            },
        );
        let compatible = same_type && partitions && rxo.is_ok();
        if let Err(policies) = rxo {
            if same_type && partitions {
                let event = if writer.prefix == ours {
                    Event::OfferedIncompatibleQos {
                        writer,
                        reader,
                        policies,
                    }
                } else {
                    Event::RequestedIncompatibleQos {
                        reader,
                        writer,
                        policies,
                    }
                };
                self.push_event(event);
            }
        }
        if writer.prefix == ours {
            self.apply_writer_match(now, writer, reader, compatible);
        } else {
            self.apply_reader_match(now, writer, reader, compatible);
        }
    }

    fn apply_writer_match(&mut self, now: Now, writer: Guid, reader: Guid, compatible: bool) {
        let Some(remote) = self.remote_readers.get(&reader) else {
            return;
        };
        let (unicast, multicast) = self.endpoint_locators(
            reader.prefix,
            &remote.unicast_locators,
            &remote.multicast_locators,
        );
        let mut proxy = RemoteReader {
            guid: reader,
            unicast_locators: unicast,
            multicast_locators: multicast,
            reliable: remote.qos.reliability.kind == ReliabilityKind::Reliable,
            expects_inline_qos: remote.expects_inline_qos,
            wants_history: remote.qos.durability >= Durability::TransientLocal,
        };
        let filter = remote.content_filter.clone();
        let Some(w) = self.writers.get_mut(&writer.entity_id) else {
            return;
        };
        // A reader the durability service already served its history to (durability.rs).
        proxy.wants_history &= !w.served.contains(&reader);
        let was = w.matched.contains(&reader);
        if compatible {
            w.writer.matched_reader_add(now, proxy);
            w.matched.insert(reader);
            // RTPS 2.5 §8.7.3: filter for it if we can (a re-announced changed filter replaces
            // the old one); an unusable filter means it gets everything and filters itself.
            let update = w.writer.set_reader_filter(reader, filter.as_ref());
            if let Some(reason) = w.note_filter_update(reader, filter.is_some(), update) {
                log::warn!("writer {writer}: not filtering for reader {reader}: {reason}");
                self.push_event(Event::RemoteFilterRejected {
                    writer,
                    reader,
                    reason,
                });
            }
            self.pgcache_matched(writer, reader);
        } else if was {
            w.writer.matched_reader_remove(reader);
            w.matched.remove(&reader);
            w.filter_rejected.remove(&reader);
        }
        if compatible != was {
            self.push_event(Event::PublicationMatched {
                writer,
                reader,
                matched: compatible,
            });
        }
    }

    fn apply_reader_match(&mut self, now: Now, writer: Guid, reader: Guid, compatible: bool) {
        let Some(remote) = self.remote_writers.get(&writer) else {
            return;
        };
        let (unicast, multicast) = self.endpoint_locators(
            writer.prefix,
            &remote.unicast_locators,
            &remote.multicast_locators,
        );
        let proxy = RemoteWriter {
            guid: writer,
            unicast_locators: unicast,
            multicast_locators: multicast,
            reliable: remote.qos.reliability.kind == ReliabilityKind::Reliable,
            ownership_strength: remote.qos.ownership_strength.value,
            lifespan: remote.qos.lifespan.duration.to_std(),
        };
        let Some(r) = self.readers.get_mut(&reader.entity_id) else {
            return;
        };
        let was = r.reader.is_matched(writer);
        if compatible {
            r.reader.matched_writer_add(now, proxy);
        } else if was {
            r.reader.matched_writer_remove(writer);
        }
        if compatible != was {
            self.push_event(Event::SubscriptionMatched {
                reader,
                writer,
                matched: compatible,
            });
            self.liveliness_reader_matched(now, writer, reader, compatible);
        }
    }

    /// An endpoint's locators, or its participant's default ones when it announced none
    /// (Cyclone omits them in SEDP, docs/interop-facts.md §5.4 / discovery tests); of the unicast
    /// ones, the one we send to (`locator_select.rs`).
    fn endpoint_locators(
        &self,
        prefix: GuidPrefix,
        unicast: &[Locator],
        multicast: &[Locator],
    ) -> (Vec<Locator>, Vec<Locator>) {
        let ours = &self.config.interfaces;
        let Some(p) = self.remote_participants.get(&prefix) else {
            // Not reached (endpoints of unknown participants are not processed); where it
            // would be, nothing says the peer is on this host.
            return (select_unicast(ours, false, unicast), multicast.to_vec());
        };
        if !unicast.is_empty() || !multicast.is_empty() {
            return (p.unicast(ours, unicast), multicast.to_vec());
        }
        (
            p.unicast(ours, &p.data.default_unicast_locators),
            p.data.default_multicast_locators.clone(),
        )
    }
}
