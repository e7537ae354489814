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
mod tests;
