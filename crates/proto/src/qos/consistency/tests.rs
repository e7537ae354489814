use super::*;
use crate::qos::policy::{Deadline, Liveliness, TimeBasedFilter};

fn limits(total: Length, per: Length) -> ResourceLimits {
    ResourceLimits {
        max_samples: total,
        max_instances: Length::Unlimited,
        max_samples_per_instance: per,
    }
}

fn secs(seconds: i32) -> Duration {
    Duration {
        seconds,
        fraction: 0,
    }
}

#[test]
fn defaults_are_consistent() {
    assert_eq!(TopicQos::default().check_consistency(), Ok(()));
    assert_eq!(DataWriterQos::default().check_consistency(), Ok(()));
    assert_eq!(DataReaderQos::default().check_consistency(), Ok(()));
}

#[test]
fn history_depth_above_max_samples_per_instance_is_inconsistent() {
    let w = DataWriterQos::default()
        .history(History::KeepLast(10))
        .resource_limits(limits(Length::Unlimited, Length::Limited(5)));
    let err = w.check_consistency().unwrap_err();
    assert_eq!(
        err,
        QosError::Inconsistent {
            policy: QosPolicyId::History,
            other: QosPolicyId::ResourceLimits,
            reason: "history depth exceeds max_samples_per_instance",
        }
    );
    assert_eq!(err.policy(), QosPolicyId::History);
    let ok = w.clone().history(History::KeepLast(5));
    assert_eq!(ok.check_consistency(), Ok(()));
    // KEEP_ALL is bounded by the limits themselves, not by a depth.
    assert_eq!(w.history(History::KeepAll).check_consistency(), Ok(()));
}

#[test]
fn max_samples_below_per_instance_is_inconsistent() {
    let r =
        DataReaderQos::default().resource_limits(limits(Length::Limited(2), Length::Limited(3)));
    assert_eq!(
        r.check_consistency().unwrap_err().policy(),
        QosPolicyId::ResourceLimits
    );
}

#[test]
fn zero_depth_and_zero_limits_are_invalid() {
    let t = TopicQos::default().history(History::KeepLast(0));
    assert!(matches!(
        t.check_consistency(),
        Err(QosError::Invalid {
            policy: QosPolicyId::History,
            ..
        })
    ));
    let t = TopicQos::default().resource_limits(limits(Length::Limited(0), Length::Unlimited));
    assert_eq!(
        t.check_consistency().unwrap_err().policy(),
        QosPolicyId::ResourceLimits
    );
    let t = TopicQos::default().history(History::KeepLast(MAX_LONG + 1));
    assert_eq!(
        t.check_consistency().unwrap_err().policy(),
        QosPolicyId::History
    );
}

#[test]
fn deadline_shorter_than_minimum_separation_is_inconsistent() {
    let r = DataReaderQos::default()
        .deadline(Deadline { period: secs(1) })
        .time_based_filter(TimeBasedFilter {
            minimum_separation: secs(2),
        });
    let err = r.check_consistency().unwrap_err();
    assert_eq!(err.policy(), QosPolicyId::Deadline);
    assert!(err.to_string().contains("TimeBasedFilter"), "{err}");
    let equal = r.time_based_filter(TimeBasedFilter {
        minimum_separation: secs(1),
    });
    assert_eq!(equal.check_consistency(), Ok(()));
    // An infinite deadline admits any separation.
    let inf = DataReaderQos::default().time_based_filter(TimeBasedFilter {
        minimum_separation: secs(1000),
    });
    assert_eq!(inf.check_consistency(), Ok(()));
}

#[test]
fn negative_durations_are_invalid() {
    let w = DataWriterQos::default().liveliness(Liveliness {
        lease_duration: secs(-1),
        ..Liveliness::default()
    });
    assert_eq!(
        w.check_consistency(),
        Err(QosError::Invalid {
            policy: QosPolicyId::Liveliness,
            reason: "lease is negative"
        })
    );
}

#[test]
fn durability_service_obeys_history_rules() {
    let ds = DurabilityService {
        history: History::KeepLast(4),
        max_samples_per_instance: Length::Limited(2),
        ..DurabilityService::default()
    };
    let w = DataWriterQos::default().durability_service(ds);
    assert_eq!(
        w.check_consistency().unwrap_err().policy(),
        QosPolicyId::DurabilityService
    );
}
