//! Tests for RxO compatibility: each rule in both directions, plus properties.

use super::*;
use crate::qos::policy::{
    DataRepresentation, Deadline, DestinationOrder, Durability, LatencyBudget, Liveliness,
    LivelinessKind, Ownership, PresentationAccessScope, Reliability,
};
use crate::time::Duration;
use proptest::prelude::*;

fn secs(seconds: i32) -> Duration {
    Duration {
        seconds,
        fraction: 0,
    }
}

/// Checks a writer/reader pair with default publisher and subscriber QoS.
fn check(w: &DataWriterQos, r: &DataReaderQos) -> Result<(), IncompatiblePolicies> {
    check_groups(w, &PublisherQos::default(), r, &SubscriberQos::default())
}

fn check_groups(
    w: &DataWriterQos,
    p: &PublisherQos,
    r: &DataReaderQos,
    s: &SubscriberQos,
) -> Result<(), IncompatiblePolicies> {
    check_compatibility(
        Offered {
            writer: w,
            publisher: p,
        },
        Requested {
            reader: r,
            subscriber: s,
        },
    )
}

/// Asserts the pair fails with exactly `id`.
fn assert_only(result: Result<(), IncompatiblePolicies>, id: QosPolicyId) {
    let bad = result.expect_err("expected an incompatibility");
    assert_eq!(bad.iter().collect::<Vec<_>>(), vec![id], "{bad}");
}

#[test]
fn default_writer_matches_default_reader() {
    assert_eq!(
        check(&DataWriterQos::default(), &DataReaderQos::default()),
        Ok(())
    );
}

#[test]
fn reliable_reader_does_not_match_best_effort_writer() {
    let w = DataWriterQos::default().reliability(Reliability::best_effort());
    let r = DataReaderQos::default().reliability(Reliability::reliable());
    assert_only(check(&w, &r), QosPolicyId::Reliability);
}

#[test]
fn best_effort_reader_matches_reliable_writer() {
    let r = DataReaderQos::default().reliability(Reliability::best_effort());
    assert_eq!(check(&DataWriterQos::default(), &r), Ok(()));
}

#[test]
fn transient_local_reader_does_not_match_volatile_writer() {
    let r = DataReaderQos::default().durability(Durability::TransientLocal);
    assert_only(
        check(&DataWriterQos::default(), &r),
        QosPolicyId::Durability,
    );
}

#[test]
fn volatile_reader_matches_persistent_writer() {
    let w = DataWriterQos::default().durability(Durability::Persistent);
    assert_eq!(check(&w, &DataReaderQos::default()), Ok(()));
}

#[test]
fn reader_deadline_shorter_than_writer_deadline_does_not_match() {
    let w = DataWriterQos::default().deadline(Deadline { period: secs(2) });
    let r = DataReaderQos::default().deadline(Deadline { period: secs(1) });
    assert_only(check(&w, &r), QosPolicyId::Deadline);
}

#[test]
fn reader_deadline_longer_than_writer_deadline_matches() {
    let w = DataWriterQos::default().deadline(Deadline { period: secs(1) });
    let r = DataReaderQos::default().deadline(Deadline { period: secs(2) });
    assert_eq!(check(&w, &r), Ok(()));
    // A finite deadline offered to a default (infinite) request is fine; the reverse is not.
    assert_eq!(check(&w, &DataReaderQos::default()), Ok(()));
    assert_only(check(&DataWriterQos::default(), &r), QosPolicyId::Deadline);
}

#[test]
fn alternate_infinite_encoding_matches_canonical_infinity() {
    let alt = Duration {
        seconds: 0x7fff_ffff,
        fraction: 0x7fff_ffff,
    };
    let w = DataWriterQos::default().deadline(Deadline {
        period: Duration::INFINITE,
    });
    let r = DataReaderQos::default().deadline(Deadline { period: alt });
    assert_eq!(check(&w, &r), Ok(()));
}

#[test]
fn reader_latency_budget_below_writer_budget_does_not_match() {
    let w = DataWriterQos::default().latency_budget(LatencyBudget { duration: secs(1) });
    assert_only(
        check(&w, &DataReaderQos::default()),
        QosPolicyId::LatencyBudget,
    );
}

#[test]
fn reader_latency_budget_above_writer_budget_matches() {
    let r = DataReaderQos::default().latency_budget(LatencyBudget { duration: secs(1) });
    assert_eq!(check(&DataWriterQos::default(), &r), Ok(()));
}

#[test]
fn exclusive_reader_does_not_match_shared_writer() {
    let r = DataReaderQos::default().ownership(Ownership::Exclusive);
    assert_only(check(&DataWriterQos::default(), &r), QosPolicyId::Ownership);
}

#[test]
fn shared_reader_does_not_match_exclusive_writer() {
    let w = DataWriterQos::default().ownership(Ownership::Exclusive);
    assert_only(check(&w, &DataReaderQos::default()), QosPolicyId::Ownership);
}

#[test]
fn manual_liveliness_reader_does_not_match_automatic_writer() {
    let r = DataReaderQos::default().liveliness(Liveliness {
        kind: LivelinessKind::ManualByTopic,
        lease_duration: Duration::INFINITE,
    });
    assert_only(
        check(&DataWriterQos::default(), &r),
        QosPolicyId::Liveliness,
    );
}

#[test]
fn automatic_liveliness_reader_matches_manual_writer() {
    let w = DataWriterQos::default().liveliness(Liveliness {
        kind: LivelinessKind::ManualByParticipant,
        lease_duration: secs(1),
    });
    assert_eq!(check(&w, &DataReaderQos::default()), Ok(()));
}

#[test]
fn reader_lease_shorter_than_writer_lease_does_not_match() {
    let w = DataWriterQos::default().liveliness(Liveliness {
        kind: LivelinessKind::Automatic,
        lease_duration: secs(10),
    });
    let r = DataReaderQos::default().liveliness(Liveliness {
        kind: LivelinessKind::Automatic,
        lease_duration: secs(5),
    });
    assert_only(check(&w, &r), QosPolicyId::Liveliness);
    assert_eq!(
        check(&w, &DataReaderQos::default()),
        Ok(()),
        "infinite requested lease"
    );
}

#[test]
fn source_timestamp_reader_does_not_match_reception_timestamp_writer() {
    let r = DataReaderQos::default().destination_order(DestinationOrder::BySourceTimestamp);
    assert_only(
        check(&DataWriterQos::default(), &r),
        QosPolicyId::DestinationOrder,
    );
}

#[test]
fn reception_timestamp_reader_matches_source_timestamp_writer() {
    let w = DataWriterQos::default().destination_order(DestinationOrder::BySourceTimestamp);
    assert_eq!(check(&w, &DataReaderQos::default()), Ok(()));
}

#[test]
fn group_scope_subscriber_does_not_match_instance_scope_publisher() {
    let s = SubscriberQos::default().presentation(Presentation {
        access_scope: PresentationAccessScope::Group,
        ..Presentation::default()
    });
    let (w, p, r) = (
        DataWriterQos::default(),
        PublisherQos::default(),
        DataReaderQos::default(),
    );
    assert_only(check_groups(&w, &p, &r, &s), QosPolicyId::Presentation);
}

#[test]
fn topic_scope_subscriber_matches_group_scope_publisher() {
    let p = PublisherQos::default().presentation(Presentation {
        access_scope: PresentationAccessScope::Group,
        coherent_access: true,
        ordered_access: true,
    });
    let s = SubscriberQos::default().presentation(Presentation {
        access_scope: PresentationAccessScope::Topic,
        ..Presentation::default()
    });
    let (w, r) = (DataWriterQos::default(), DataReaderQos::default());
    assert_eq!(check_groups(&w, &p, &r, &s), Ok(()));
}

#[test]
fn coherent_subscriber_does_not_match_incoherent_publisher() {
    let s = SubscriberQos::default().presentation(Presentation {
        coherent_access: true,
        ..Presentation::default()
    });
    let (w, p, r) = (
        DataWriterQos::default(),
        PublisherQos::default(),
        DataReaderQos::default(),
    );
    assert_only(check_groups(&w, &p, &r, &s), QosPolicyId::Presentation);
    // The reverse: offering coherence nobody asked for is fine.
    let p2 = PublisherQos::default().presentation(s.presentation);
    let s2 = SubscriberQos::default();
    assert_eq!(check_groups(&w, &p2, &r, &s2), Ok(()));
}

#[test]
fn ordered_subscriber_does_not_match_unordered_publisher() {
    let s = SubscriberQos::default().presentation(Presentation {
        ordered_access: true,
        ..Presentation::default()
    });
    let (w, p, r) = (
        DataWriterQos::default(),
        PublisherQos::default(),
        DataReaderQos::default(),
    );
    assert_only(check_groups(&w, &p, &r, &s), QosPolicyId::Presentation);
}

#[test]
fn xcdr1_only_reader_does_not_match_xcdr2_writer() {
    let w = DataWriterQos::default()
        .data_representation(DataRepresentation::new([DataRepresentation::XCDR2]));
    assert_only(
        check(&w, &DataReaderQos::default()),
        QosPolicyId::DataRepresentation,
    );
}

#[test]
fn reader_listing_writers_first_representation_matches() {
    let w = DataWriterQos::default().data_representation(DataRepresentation::new([
        DataRepresentation::XCDR2,
        DataRepresentation::XCDR,
    ]));
    let r = DataReaderQos::default().data_representation(DataRepresentation::new([
        DataRepresentation::XCDR,
        DataRepresentation::XCDR2,
    ]));
    assert_eq!(check(&w, &r), Ok(()));
}

#[test]
fn reader_accepting_only_writers_second_representation_does_not_match() {
    // Only the writer's FIRST id counts (DDS-XTypes 1.3 §7.6.3.1.2; Cyclone).
    let w = DataWriterQos::default().data_representation(DataRepresentation::new([
        DataRepresentation::XCDR2,
        DataRepresentation::XCDR,
    ]));
    let r = DataReaderQos::default()
        .data_representation(DataRepresentation::new([DataRepresentation::XCDR]));
    assert_only(check(&w, &r), QosPolicyId::DataRepresentation);
}

#[test]
fn xcdr2_only_reader_does_not_match_default_writer() {
    let r = DataReaderQos::default()
        .data_representation(DataRepresentation::new([DataRepresentation::XCDR2]));
    assert_only(
        check(&DataWriterQos::default(), &r),
        QosPolicyId::DataRepresentation,
    );
}

#[test]
fn every_incompatible_policy_is_reported() {
    let w = DataWriterQos::default()
        .reliability(Reliability::best_effort())
        .ownership(Ownership::Exclusive);
    let r = DataReaderQos::default()
        .reliability(Reliability::reliable())
        .durability(Durability::TransientLocal);
    let bad = check(&w, &r).unwrap_err();
    let ids: Vec<_> = bad.iter().collect();
    assert_eq!(
        ids,
        vec![
            QosPolicyId::Durability,
            QosPolicyId::Ownership,
            QosPolicyId::Reliability
        ]
    );
    assert_eq!(bad.len(), 3);
    assert_eq!(bad.first(), Some(QosPolicyId::Durability));
    assert!(bad.contains(QosPolicyId::Ownership));
    assert!(!bad.contains(QosPolicyId::Deadline));
    assert_eq!(
        bad.to_string(),
        "incompatible QoS: Durability Ownership Reliability"
    );
}

#[test]
fn max_blocking_time_and_non_rxo_policies_do_not_affect_matching() {
    let w = DataWriterQos::default()
        .reliability(Reliability {
            max_blocking_time: secs(50),
            ..Reliability::reliable()
        })
        .history(crate::qos::policy::History::KeepAll);
    let r = DataReaderQos::default().reliability(Reliability {
        max_blocking_time: Duration::ZERO,
        ..Reliability::reliable()
    });
    assert_eq!(check(&w, &r), Ok(()));
}

// ---- properties ----

fn duration() -> impl Strategy<Value = Duration> {
    prop_oneof![
        Just(Duration::INFINITE),
        Just(Duration {
            seconds: 0x7fff_ffff,
            fraction: 0x7fff_ffff
        }),
        (0i32..100, any::<u32>()).prop_map(|(seconds, fraction)| Duration { seconds, fraction }),
    ]
}

/// The RxO-relevant policies shared by a writer and a reader.
#[derive(Clone, Debug)]
struct Shared {
    durability: Durability,
    presentation: Presentation,
    deadline: Duration,
    latency: Duration,
    ownership: Ownership,
    liveliness: Liveliness,
    reliability: Reliability,
    order: DestinationOrder,
    repr: Vec<i16>,
}

fn shared() -> impl Strategy<Value = Shared> {
    let durability = prop::sample::select(vec![
        Durability::Volatile,
        Durability::TransientLocal,
        Durability::Transient,
        Durability::Persistent,
    ]);
    let scope = prop::sample::select(vec![
        PresentationAccessScope::Instance,
        PresentationAccessScope::Topic,
        PresentationAccessScope::Group,
    ]);
    let presentation = (scope, any::<bool>(), any::<bool>()).prop_map(|(s, c, o)| Presentation {
        access_scope: s,
        coherent_access: c,
        ordered_access: o,
    });
    let ownership = prop::sample::select(vec![Ownership::Shared, Ownership::Exclusive]);
    let kind = prop::sample::select(vec![
        LivelinessKind::Automatic,
        LivelinessKind::ManualByParticipant,
        LivelinessKind::ManualByTopic,
    ]);
    let liveliness = (kind, duration()).prop_map(|(kind, lease_duration)| Liveliness {
        kind,
        lease_duration,
    });
    let reliability = (any::<bool>(), duration()).prop_map(|(rel, t)| Reliability {
        max_blocking_time: t,
        ..if rel {
            Reliability::reliable()
        } else {
            Reliability::best_effort()
        }
    });
    let order = prop::sample::select(vec![
        DestinationOrder::ByReceptionTimestamp,
        DestinationOrder::BySourceTimestamp,
    ]);
    let repr = proptest::collection::vec(0i16..4, 0..4);
    (
        (durability, presentation, duration(), duration(), ownership),
        (liveliness, reliability, order, repr),
    )
        .prop_map(
            |((durability, presentation, deadline, latency, ownership), rest)| {
                let (liveliness, reliability, order, repr) = rest;
                Shared {
                    durability,
                    presentation,
                    deadline,
                    latency,
                    ownership,
                    liveliness,
                    reliability,
                    order,
                    repr,
                }
            },
        )
}

fn build(s: &Shared) -> (DataWriterQos, PublisherQos, DataReaderQos, SubscriberQos) {
    let w = DataWriterQos::default()
        .durability(s.durability)
        .deadline(Deadline { period: s.deadline })
        .latency_budget(LatencyBudget {
            duration: s.latency,
        })
        .ownership(s.ownership)
        .liveliness(s.liveliness)
        .reliability(s.reliability)
        .destination_order(s.order)
        .data_representation(DataRepresentation::new(s.repr.clone()));
    let r = DataReaderQos::default()
        .durability(s.durability)
        .deadline(Deadline { period: s.deadline })
        .latency_budget(LatencyBudget {
            duration: s.latency,
        })
        .ownership(s.ownership)
        .liveliness(s.liveliness)
        .reliability(s.reliability)
        .destination_order(s.order)
        .data_representation(DataRepresentation::new(s.repr.clone()));
    let p = PublisherQos::default().presentation(s.presentation);
    let sub = SubscriberQos::default().presentation(s.presentation);
    (w, p, r, sub)
}

proptest! {
    #[test]
    fn identical_qos_is_always_compatible(s in shared()) {
        let (w, p, r, sub) = build(&s);
        prop_assert_eq!(check_groups(&w, &p, &r, &sub), Ok(()));
    }

    #[test]
    fn least_demanding_reader_matches_any_writer(a in shared(), b in shared()) {
        // A reader asking for the minimum of every ordered policy matches whatever the
        // writer offers; ownership and data representation are equality/membership rules.
        let (w, p, _, _) = build(&a);
        let (_, _, r, sub) = build(&b);
        if let Err(bad) = check_groups(&w, &p, &r, &sub) {
            prop_assert!(!bad.is_empty());
        }
        let least = DataReaderQos::default()
            .deadline(Deadline { period: Duration::INFINITE })
            .latency_budget(LatencyBudget { duration: Duration::INFINITE })
            .ownership(w.ownership)
            .data_representation(DataRepresentation::new([w.data_representation.offered_id()]));
        prop_assert_eq!(check_groups(&w, &p, &least, &SubscriberQos::default()), Ok(()));
    }
}
