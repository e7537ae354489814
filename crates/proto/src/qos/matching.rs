//! Requested/offered (RxO) compatibility between a writer (with its publisher's group policies)
//! and a reader (with its subscriber's), reporting every incompatible policy at once so both
//! sides can raise OFFERED/REQUESTED_INCOMPATIBLE_QOS with the right ids.
//!
//! Must not: look at topic names, types or partitions (partition mismatch is not an RxO
//! incompatibility; see [`crate::qos::partitions_match`]), or allocate.
//!
//! DDS 1.4 §2.2.3 (QoS table, "RxO" column) and the per-policy sections cited below;
//! DDS-XTypes 1.3 §7.6.3.1.2 for DATA_REPRESENTATION. Cyclone checks the same set in
//! `q_qosmatch.c::qos_match_mask_p` (docs/interop-facts.md §5.4).

use core::cmp::Ordering;

use crate::qos::entity::{DataReaderQos, DataWriterQos, PublisherQos, SubscriberQos};
use crate::qos::id::QosPolicyId;
use crate::qos::policy::{Presentation, cmp_duration};

/// What a writer offers: its own QoS and its publisher's (for PRESENTATION).
#[derive(Copy, Clone, Debug)]
pub struct Offered<'a> {
    /// The DataWriter's QoS.
    pub writer: &'a DataWriterQos,
    /// The QoS of the writer's Publisher.
    pub publisher: &'a PublisherQos,
}

/// What a reader requests: its own QoS and its subscriber's (for PRESENTATION).
#[derive(Copy, Clone, Debug)]
pub struct Requested<'a> {
    /// The DataReader's QoS.
    pub reader: &'a DataReaderQos,
    /// The QoS of the reader's Subscriber.
    pub subscriber: &'a SubscriberQos,
}

/// A set of policy ids: the policies that made a pair incompatible. Iterates in ascending id
/// order. No allocation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct IncompatiblePolicies {
    bits: u64,
}

impl IncompatiblePolicies {
    /// The empty set.
    pub const fn new() -> Self {
        IncompatiblePolicies { bits: 0 }
    }

    fn bit(id: QosPolicyId) -> u64 {
        1u64.checked_shl(id.as_u32()).unwrap_or(0)
    }

    /// Adds `id`.
    pub fn insert(&mut self, id: QosPolicyId) {
        self.bits |= Self::bit(id);
    }

    /// True if `id` is in the set.
    pub fn contains(&self, id: QosPolicyId) -> bool {
        self.bits & Self::bit(id) != 0
    }

    /// True if no policy is in the set.
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }

    /// Number of policies in the set.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// The lowest id in the set: a deterministic choice for a status's `last_policy_id`.
    pub fn first(&self) -> Option<QosPolicyId> {
        self.iter().next()
    }

    /// The policies in ascending id order.
    pub fn iter(&self) -> impl Iterator<Item = QosPolicyId> + '_ {
        QosPolicyId::ALL.into_iter().filter(|id| self.contains(*id))
    }
}

impl core::fmt::Display for IncompatiblePolicies {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("incompatible QoS:")?;
        for id in self.iter() {
            write!(f, " {id}")?;
        }
        Ok(())
    }
}

impl std::error::Error for IncompatiblePolicies {}

/// Checks every RxO policy of `offered` against `requested` and returns all that fail
/// (DDS 1.4 §2.2.3). `Ok(())` means the pair is compatible as far as QoS goes; partitions,
/// topic names and types are checked elsewhere.
pub fn check_compatibility(
    offered: Offered<'_>,
    requested: Requested<'_>,
) -> Result<(), IncompatiblePolicies> {
    let (w, r) = (offered.writer, requested.reader);
    let mut bad = IncompatiblePolicies::new();
    let mut require = |ok: bool, id: QosPolicyId| {
        if !ok {
            bad.insert(id);
        }
    };
    // DDS 1.4 §2.2.3.4: offered durability kind >= requested.
    require(w.durability >= r.durability, QosPolicyId::Durability);
    // DDS 1.4 §2.2.3.6: access scope offered >= requested; coherent/ordered access offered
    // whenever requested.
    let (offered_p, requested_p) = (
        &offered.publisher.presentation,
        &requested.subscriber.presentation,
    );
    require(
        presentation_compatible(offered_p, requested_p),
        QosPolicyId::Presentation,
    );
    // DDS 1.4 §2.2.3.7: offered deadline period <= requested.
    require(
        cmp_duration(w.deadline.period, r.deadline.period) != Ordering::Greater,
        QosPolicyId::Deadline,
    );
    // DDS 1.4 §2.2.3.8: offered latency budget <= requested.
    require(
        cmp_duration(w.latency_budget.duration, r.latency_budget.duration) != Ordering::Greater,
        QosPolicyId::LatencyBudget,
    );
    // DDS 1.4 §2.2.3.9: ownership kinds must be equal.
    require(w.ownership == r.ownership, QosPolicyId::Ownership);
    // DDS 1.4 §2.2.3.11: offered kind >= requested, and offered lease <= requested.
    require(
        w.liveliness.kind >= r.liveliness.kind
            && cmp_duration(w.liveliness.lease_duration, r.liveliness.lease_duration)
                != Ordering::Greater,
        QosPolicyId::Liveliness,
    );
    // DDS 1.4 §2.2.3.14: offered reliability kind >= requested.
    require(
        w.reliability.kind >= r.reliability.kind,
        QosPolicyId::Reliability,
    );
    // DDS 1.4 §2.2.3.17: offered destination order kind >= requested.
    require(
        w.destination_order >= r.destination_order,
        QosPolicyId::DestinationOrder,
    );
    // DDS-XTypes 1.3 §7.6.3.1.2: the reader must accept the writer's (first) representation.
    require(
        r.data_representation
            .accepts(w.data_representation.offered_id()),
        QosPolicyId::DataRepresentation,
    );
    if bad.is_empty() { Ok(()) } else { Err(bad) }
}

/// DDS 1.4 §2.2.3.6 PRESENTATION RxO rule.
fn presentation_compatible(offered: &Presentation, requested: &Presentation) -> bool {
    offered.access_scope >= requested.access_scope
        && (offered.coherent_access || !requested.coherent_access)
        && (offered.ordered_access || !requested.ordered_access)
}

#[cfg(test)]
mod tests;
