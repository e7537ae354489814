use super::*;
use crate::qos::policy::{Length, LivelinessKind, PresentationAccessScope, ReliabilityKind};
use crate::time::Duration;

#[test]
fn writer_defaults_follow_the_spec_table() {
    let w = DataWriterQos::default();
    assert_eq!(w.reliability.kind, ReliabilityKind::Reliable);
    assert_eq!(
        w.reliability
            .max_blocking_time
            .to_std()
            .unwrap()
            .as_millis(),
        100
    );
    assert_eq!(w.durability, Durability::Volatile);
    assert_eq!(w.history, History::KeepLast(1));
    assert_eq!(w.deadline.period, Duration::INFINITE);
    assert_eq!(w.latency_budget.duration, Duration::ZERO);
    assert_eq!(w.liveliness.kind, LivelinessKind::Automatic);
    assert_eq!(w.liveliness.lease_duration, Duration::INFINITE);
    assert_eq!(w.destination_order, DestinationOrder::ByReceptionTimestamp);
    assert_eq!(w.ownership, Ownership::Shared);
    assert_eq!(w.ownership_strength.value, 0);
    assert_eq!(w.lifespan.duration, Duration::INFINITE);
    assert_eq!(w.transport_priority.value, 0);
    assert!(w.writer_data_lifecycle.autodispose_unregistered_instances);
    assert_eq!(w.resource_limits.max_samples, Length::Unlimited);
    assert_eq!(w.resource_limits.max_instances, Length::Unlimited);
    assert_eq!(
        w.resource_limits.max_samples_per_instance,
        Length::Unlimited
    );
    assert!(w.user_data.value.is_empty());
    assert!(w.data_representation.value.is_empty());
    let ds = &w.durability_service;
    assert_eq!(ds.service_cleanup_delay, Duration::ZERO);
    assert_eq!(ds.history, History::KeepLast(1));
    assert_eq!(ds.max_samples_per_instance, Length::Unlimited);
}

#[test]
fn reader_and_topic_default_to_best_effort() {
    let r = DataReaderQos::default();
    assert_eq!(r.reliability.kind, ReliabilityKind::BestEffort);
    assert_eq!(
        r.reliability
            .max_blocking_time
            .to_std()
            .unwrap()
            .as_millis(),
        100
    );
    assert_eq!(r.history, History::KeepLast(1));
    assert_eq!(r.durability, Durability::Volatile);
    assert_eq!(r.time_based_filter.minimum_separation, Duration::ZERO);
    assert_eq!(
        r.reader_data_lifecycle.autopurge_nowriter_samples_delay,
        Duration::INFINITE
    );
    assert_eq!(
        r.reader_data_lifecycle.autopurge_disposed_samples_delay,
        Duration::INFINITE
    );
    assert_eq!(
        TopicQos::default().reliability.kind,
        ReliabilityKind::BestEffort
    );
}

#[test]
fn group_and_participant_defaults() {
    let p = PublisherQos::default();
    assert_eq!(
        p.presentation.access_scope,
        PresentationAccessScope::Instance
    );
    assert!(!p.presentation.coherent_access && !p.presentation.ordered_access);
    assert!(p.partition.names.is_empty());
    assert!(p.entity_factory.autoenable_created_entities);
    assert_eq!(SubscriberQos::default().presentation, p.presentation);
    assert!(
        DomainParticipantQos::default()
            .entity_factory
            .autoenable_created_entities
    );
}

#[test]
fn setters_replace_one_policy() {
    let w = DataWriterQos::default()
        .reliability(Reliability::best_effort())
        .durability(Durability::TransientLocal)
        .history(History::KeepAll);
    assert_eq!(w.reliability.kind, ReliabilityKind::BestEffort);
    assert_eq!(w.durability, Durability::TransientLocal);
    assert_eq!(w.history, History::KeepAll);
    assert_eq!(w.deadline, Deadline::default());
    let s = SubscriberQos::default().partition(Partition::new(["a", "b*"]));
    assert_eq!(s.partition.names, vec!["a".to_string(), "b*".to_string()]);
}

#[test]
fn copy_from_topic_overwrites_shared_policies_only() {
    let topic = TopicQos::default()
        .durability(Durability::TransientLocal)
        .history(History::KeepLast(5));
    let w = DataWriterQos::default()
        .ownership_strength(OwnershipStrength { value: 9 })
        .with_topic_qos(&topic);
    assert_eq!(w.durability, Durability::TransientLocal);
    assert_eq!(w.history, History::KeepLast(5));
    // DDS semantics: the topic's BEST_EFFORT default replaces the writer's RELIABLE.
    assert_eq!(w.reliability.kind, ReliabilityKind::BestEffort);
    assert_eq!(w.ownership_strength.value, 9);
    let r = DataReaderQos::default().with_topic_qos(&topic);
    assert_eq!(r.durability, Durability::TransientLocal);
}
