//! What the core tells the application layer: discovery and matching changes, incompatible
//! QoS, data arrival. DDS 1.4 §2.2.4 (communication statuses).
//!
//! Must not: carry sample data (samples are taken from the reader, not pushed as events).

use crate::qos::IncompatiblePolicies;
use crate::wire::{Guid, GuidPrefix};

/// A local writer or reader, by its GUID.
pub type EndpointGuid = Guid;

/// Something the application may want to know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A remote participant was discovered (first SPDP announcement).
    ParticipantDiscovered(GuidPrefix),
    /// A remote participant's lease expired or it announced its removal.
    ParticipantLost(GuidPrefix),
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
    /// New samples can be taken from this reader. DATA_AVAILABLE.
    DataAvailable {
        /// Our reader.
        reader: EndpointGuid,
    },
}
