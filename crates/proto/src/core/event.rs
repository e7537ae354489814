//! What the core tells the application layer: discovery and matching changes, incompatible
//! QoS, data arrival. DDS 1.4 §2.2.4 (communication statuses).
//!
//! Must not: carry sample data (samples are taken from the reader, not pushed as events).

use crate::core::writer::NotFiltering;
use crate::qos::IncompatiblePolicies;
use crate::wire::{Guid, GuidPrefix};

/// A local writer or reader, by its GUID.
pub type EndpointGuid = Guid;

/// Something the application may want to know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A remote type asked for with `Participant::request_writer_type`, or fetched because a
    /// match waited for it (docs/types.md, matching by type), is known, with every type it
    /// refers to (`Participant::remote_types`). DDS-XTypes 1.3 §7.6.3.3.
    RemoteTypeResolved(crate::types::xtypes::TypeIdentifier),
    /// A remote participant was discovered (first SPDP announcement).
    ParticipantDiscovered(GuidPrefix),
    /// A remote participant's lease expired or it announced its removal.
    ParticipantLost(GuidPrefix),
    /// A remote participant completed its DDS Security authentication handshake
    /// (DDS-Security 1.1 §9.3.2.5); it is matched on SEDP from now on, unless access
    /// control refuses it ([`Event::AccessDenied`] follows).
    ParticipantAuthenticated(GuidPrefix),
    /// Access control (DDS-Security 1.1 §9.4.3) refused a remote participant (its
    /// permissions do not verify, hold no grant for its subject, or do not let it join the
    /// domain) or one of its endpoints (its grant does not allow the topic or partitions, or
    /// the participant is unauthenticated and the topic is access controlled): it is not
    /// matched. Reported once per participant, and once per endpoint and reason.
    AccessDenied {
        /// The remote participant.
        participant: GuidPrefix,
        /// The remote endpoint refused, or `None` when the participant itself is.
        endpoint: Option<Guid>,
        /// The endpoint's topic, or `None` when the participant itself is refused.
        topic: Option<String>,
        /// Why (the rule or condition that decided).
        reason: String,
    },
    /// Authentication with a remote participant failed: it is not matched.
    AuthenticationFailed {
        /// The remote participant.
        participant: GuidPrefix,
        /// Why (a certificate refused, a bad signature, no answer, ...).
        reason: String,
    },
    /// A local writer matched (or, with `matched = false`, unmatched) a remote reader.
    /// DDS 1.4 §2.2.4.1 PUBLICATION_MATCHED.
    PublicationMatched {
        /// Our writer.
        writer: EndpointGuid,
        /// The remote reader.
        reader: Guid,
        /// True on match, false on unmatch.
        matched: bool,
    },
    /// A local reader matched or unmatched a remote writer. SUBSCRIPTION_MATCHED.
    SubscriptionMatched {
        /// Our reader.
        reader: EndpointGuid,
        /// The remote writer.
        writer: Guid,
        /// True on match, false on unmatch.
        matched: bool,
    },
    /// A remote reader on our writer's topic requested QoS we do not offer.
    /// OFFERED_INCOMPATIBLE_QOS.
    OfferedIncompatibleQos {
        /// Our writer.
        writer: EndpointGuid,
        /// The remote reader.
        reader: Guid,
        /// Every policy that failed.
        policies: IncompatiblePolicies,
    },
    /// A remote writer on our reader's topic offers less than we request.
    /// REQUESTED_INCOMPATIBLE_QOS.
    RequestedIncompatibleQos {
        /// Our reader.
        reader: EndpointGuid,
        /// The remote writer.
        writer: Guid,
        /// Every policy that failed.
        policies: IncompatiblePolicies,
    },
    /// A local writer did not write an instance within its DEADLINE period (once per missed
    /// period and instance). OFFERED_DEADLINE_MISSED, DDS 1.4 §2.2.3.7, §2.2.4.1; the total
    /// count is [`crate::core::Participant::offered_deadline_missed`].
    OfferedDeadlineMissed {
        /// Our writer.
        writer: EndpointGuid,
        /// The instance (`None` for a keyless topic).
        key_hash: Option<[u8; 16]>,
    },
    /// A local reader received no sample of an instance within its DEADLINE period (once
    /// per missed period and instance). REQUESTED_DEADLINE_MISSED, DDS 1.4 §2.2.3.7,
    /// §2.2.4.1; the total count is [`crate::core::Participant::requested_deadline_missed`].
    RequestedDeadlineMissed {
        /// Our reader.
        reader: EndpointGuid,
        /// The instance (`None` for a keyless topic).
        key_hash: Option<[u8; 16]>,
    },
    /// New samples can be taken from this reader. DATA_AVAILABLE.
    DataAvailable {
        /// Our reader.
        reader: EndpointGuid,
    },
    /// A remote writer with a finite LIVELINESS lease, matched with our reader, became alive
    /// (`alive = true`, also reported at match time) or was not asserted within its lease.
    /// LIVELINESS_CHANGED, DDS 1.4 §2.2.4.1; RTPS 2.5 §8.4.13.
    LivelinessChanged {
        /// Our reader.
        reader: EndpointGuid,
        /// The remote writer.
        writer: Guid,
        /// Its liveliness now.
        alive: bool,
    },
    /// A remote reader matched with our writer announced a content filter we cannot evaluate
    /// (unknown class, does not parse or type-check against our type, or our type has no
    /// descriptor): the writer sends it every sample (RTPS 2.5 §8.7.3: the reader filters
    /// itself). Reported once per writer and reader until the filter changes or is applied.
    RemoteFilterRejected {
        /// Our writer.
        writer: EndpointGuid,
        /// The remote reader.
        reader: Guid,
        /// Why the filter is not evaluated here.
        reason: NotFiltering,
    },
    /// Our MANUAL_BY_PARTICIPANT or MANUAL_BY_TOPIC writer was not asserted (written or
    /// `assert_liveliness`) within its lease (once per lapse). LIVELINESS_LOST, DDS 1.4
    /// §2.2.4.1.
    LivelinessLost {
        /// Our writer.
        writer: EndpointGuid,
    },
}
