//! Consistency checks of one entity's QoS (DDS `BAD_PARAMETER` / `INCONSISTENT_POLICY`), and the
//! typed [`QosError`] naming the offending policy.
//!
//! Must not: compare two entities (that is RxO matching in `matching`) or fix values up; a
//! check only reports the first problem it finds.
//!
//! DDS 1.4 §2.2.3 ("Consistency" notes in the QoS table), §2.2.3.18 (HISTORY vs
//! RESOURCE_LIMITS), §2.2.3.19 (RESOURCE_LIMITS), §2.2.3.12 (TIME_BASED_FILTER vs DEADLINE),
//! §2.2.3.5 (DURABILITY_SERVICE).

use core::cmp::Ordering;

use crate::qos::entity::{DataReaderQos, DataWriterQos, TopicQos};
use crate::qos::id::QosPolicyId;
use crate::qos::policy::{
    DurabilityService, History, Length, ReaderDataLifecycle, ResourceLimits, cmp_duration,
};
use crate::time::Duration;

/// Why a QoS value was rejected; each variant names the policy at fault.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum QosError {
    /// A policy value is out of range on its own (DDS `RETCODE_BAD_PARAMETER`).
    Invalid {
        /// The policy with the bad value.
        policy: QosPolicyId,
        /// Which field and what is wrong with it.
        reason: &'static str,
    },
    /// Two settings contradict each other (DDS `RETCODE_INCONSISTENT_POLICY`). `other` equals
    /// `policy` when the contradiction is between fields of one policy.
    Inconsistent {
        /// The policy reported as inconsistent.
        policy: QosPolicyId,
        /// The policy it contradicts.
        other: QosPolicyId,
        /// The rule that was broken.
        reason: &'static str,
    },
}

impl QosError {
    /// The policy at fault.
    pub fn policy(&self) -> QosPolicyId {
        match *self {
            QosError::Invalid { policy, .. } | QosError::Inconsistent { policy, .. } => policy,
        }
    }
}

impl core::fmt::Display for QosError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            QosError::Invalid { policy, reason } => write!(f, "invalid {policy} QoS: {reason}"),
            QosError::Inconsistent {
                policy,
                other,
                reason,
            } if policy == other => {
                write!(f, "inconsistent {policy} QoS: {reason}")
            }
            QosError::Inconsistent {
                policy,
                other,
                reason,
            } => {
                write!(f, "{policy} QoS inconsistent with {other}: {reason}")
            }
        }
    }
}

impl std::error::Error for QosError {}

/// The largest count an IDL `long` can carry; depths and limits above it cannot be sent.
const MAX_LONG: u32 = 0x7fff_ffff;

impl TopicQos {
    /// Checks every policy and the rules between them (DDS 1.4 §2.2.3).
    pub fn check_consistency(&self) -> Result<(), QosError> {
        check_durations(&[
            (
                self.deadline.period,
                QosPolicyId::Deadline,
                "period is negative",
            ),
            (
                self.latency_budget.duration,
                QosPolicyId::LatencyBudget,
                "duration is negative",
            ),
            (
                self.liveliness.lease_duration,
                QosPolicyId::Liveliness,
                "lease is negative",
            ),
            (
                self.reliability.max_blocking_time,
                QosPolicyId::Reliability,
                "blocking negative",
            ),
            (
                self.lifespan.duration,
                QosPolicyId::Lifespan,
                "duration is negative",
            ),
        ])?;
        check_durability_service(&self.durability_service)?;
        check_history_and_limits(self.history, &self.resource_limits)
    }
}

impl DataWriterQos {
    /// Checks every policy and the rules between them (DDS 1.4 §2.2.3).
    pub fn check_consistency(&self) -> Result<(), QosError> {
        check_durations(&[
            (
                self.deadline.period,
                QosPolicyId::Deadline,
                "period is negative",
            ),
            (
                self.latency_budget.duration,
                QosPolicyId::LatencyBudget,
                "duration is negative",
            ),
            (
                self.liveliness.lease_duration,
                QosPolicyId::Liveliness,
                "lease is negative",
            ),
            (
                self.reliability.max_blocking_time,
                QosPolicyId::Reliability,
                "blocking negative",
            ),
            (
                self.lifespan.duration,
                QosPolicyId::Lifespan,
                "duration is negative",
            ),
        ])?;
        check_durability_service(&self.durability_service)?;
        check_history_and_limits(self.history, &self.resource_limits)
    }
}

impl DataReaderQos {
    /// Checks every policy and the rules between them (DDS 1.4 §2.2.3), including
    /// DEADLINE period ≥ TIME_BASED_FILTER minimum_separation (§2.2.3.12).
    pub fn check_consistency(&self) -> Result<(), QosError> {
        let ReaderDataLifecycle {
            autopurge_nowriter_samples_delay: nowriter,
            autopurge_disposed_samples_delay: disposed,
        } = self.reader_data_lifecycle;
        check_durations(&[
            (
                self.deadline.period,
                QosPolicyId::Deadline,
                "period is negative",
            ),
            (
                self.latency_budget.duration,
                QosPolicyId::LatencyBudget,
                "duration is negative",
            ),
            (
                self.liveliness.lease_duration,
                QosPolicyId::Liveliness,
                "lease is negative",
            ),
            (
                self.reliability.max_blocking_time,
                QosPolicyId::Reliability,
                "blocking negative",
            ),
            (
                self.time_based_filter.minimum_separation,
                QosPolicyId::TimeBasedFilter,
                "minimum_separation is negative",
            ),
            (
                nowriter,
                QosPolicyId::ReaderDataLifecycle,
                "nowriter delay is negative",
            ),
            (
                disposed,
                QosPolicyId::ReaderDataLifecycle,
                "disposed delay is negative",
            ),
        ])?;
        check_history_and_limits(self.history, &self.resource_limits)?;
        // DDS 1.4 §2.2.3.12: "the setting of the TIME_BASED_FILTER policy must be such that
        // minimum_separation <= period" of the DEADLINE policy.
        let sep = self.time_based_filter.minimum_separation;
        if cmp_duration(self.deadline.period, sep) == Ordering::Less {
            return Err(QosError::Inconsistent {
                policy: QosPolicyId::Deadline,
                other: QosPolicyId::TimeBasedFilter,
                reason: "deadline period is shorter than minimum_separation",
            });
        }
        Ok(())
    }
}

/// Every duration a policy carries must be non-negative (DDS 1.4 §2.2.3; Duration_t).
fn check_durations(items: &[(Duration, QosPolicyId, &'static str)]) -> Result<(), QosError> {
    match items.iter().find(|(d, _, _)| d.seconds < 0) {
        Some(&(_, policy, reason)) => Err(QosError::Invalid { policy, reason }),
        None => Ok(()),
    }
}

/// A limit is LENGTH_UNLIMITED or positive and representable as an IDL `long`.
fn check_length(len: Length, policy: QosPolicyId, reason: &'static str) -> Result<(), QosError> {
    match len {
        Length::Limited(n) if n == 0 || n > MAX_LONG => Err(QosError::Invalid { policy, reason }),
        _ => Ok(()),
    }
}

/// HISTORY depth and RESOURCE_LIMITS, shared by the topic, writer and reader checks and (under
/// `policy`) by DURABILITY_SERVICE.
fn check_history_limits_as(
    history: History,
    limits: &ResourceLimits,
    history_policy: QosPolicyId,
    limits_policy: QosPolicyId,
) -> Result<(), QosError> {
    // DDS 1.4 §2.2.3.18: KEEP_LAST depth is a positive `long`.
    if let History::KeepLast(depth) = history {
        if depth == 0 || depth > MAX_LONG {
            return Err(QosError::Invalid {
                policy: history_policy,
                reason: "keep-last depth must be in 1..=2^31-1",
            });
        }
    }
    check_length(
        limits.max_samples,
        limits_policy,
        "max_samples must be positive",
    )?;
    check_length(
        limits.max_instances,
        limits_policy,
        "max_instances must be positive",
    )?;
    check_length(
        limits.max_samples_per_instance,
        limits_policy,
        "max_samples_per_instance must be positive",
    )?;
    // DDS 1.4 §2.2.3.19: max_samples >= max_samples_per_instance.
    if let (Length::Limited(total), Length::Limited(per)) =
        (limits.max_samples, limits.max_samples_per_instance)
    {
        if total < per {
            return Err(QosError::Inconsistent {
                policy: limits_policy,
                other: limits_policy,
                reason: "max_samples is less than max_samples_per_instance",
            });
        }
    }
    // DDS 1.4 §2.2.3.19: HISTORY depth <= RESOURCE_LIMITS max_samples_per_instance.
    if let History::KeepLast(depth) = history {
        if !limits.max_samples_per_instance.allows(depth) {
            return Err(QosError::Inconsistent {
                policy: history_policy,
                other: limits_policy,
                reason: "history depth exceeds max_samples_per_instance",
            });
        }
    }
    Ok(())
}

fn check_history_and_limits(history: History, limits: &ResourceLimits) -> Result<(), QosError> {
    check_history_limits_as(
        history,
        limits,
        QosPolicyId::History,
        QosPolicyId::ResourceLimits,
    )
}

/// DDS 1.4 §2.2.3.5: the service's history/limits obey the same rules as HISTORY and
/// RESOURCE_LIMITS.
fn check_durability_service(ds: &DurabilityService) -> Result<(), QosError> {
    if ds.service_cleanup_delay.seconds < 0 {
        return Err(QosError::Invalid {
            policy: QosPolicyId::DurabilityService,
            reason: "service_cleanup_delay is negative",
        });
    }
    let limits = ResourceLimits {
        max_samples: ds.max_samples,
        max_instances: ds.max_instances,
        max_samples_per_instance: ds.max_samples_per_instance,
    };
    let id = QosPolicyId::DurabilityService;
    check_history_limits_as(ds.history, &limits, id, id)
}

#[cfg(test)]
mod tests {
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
        let r = DataReaderQos::default()
            .resource_limits(limits(Length::Limited(2), Length::Limited(3)));
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
}
