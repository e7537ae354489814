//! What a local writer needs to know about a matched remote reader, and a local reader about
//! a matched remote writer. Filled by discovery (SEDP) or configured for builtin endpoints.
//! RTPS 2.5 §8.4.7.5 (ReaderProxy), §8.4.10.4 (WriterProxy).
//!
//! Must not: hold protocol state (acknowledgements, missing sets): that lives in the writer's
//! and reader's own per-proxy state.

use crate::wire::{Guid, Locator};

/// A matched remote reader as seen by a local writer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteReader {
    /// The reader's GUID.
    pub guid: Guid,
    /// Where to send to it by unicast (from SEDP, else the participant's default locators).
    pub unicast_locators: Vec<Locator>,
    /// Multicast locators it listens on.
    pub multicast_locators: Vec<Locator>,
    /// RELIABLE (true) or BEST_EFFORT reader.
    pub reliable: bool,
    /// The reader asked for inline QoS on every DATA (PID_EXPECTS_INLINE_QOS).
    pub expects_inline_qos: bool,
    /// The reader is TRANSIENT_LOCAL or stronger and should receive the writer's history
    /// when it matches (late joiner). DDS 1.4 §2.2.3.4.
    pub wants_history: bool,
}

/// A matched remote writer as seen by a local reader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteWriter {
    /// The writer's GUID.
    pub guid: Guid,
    /// Where to send ACKNACKs to it.
    pub unicast_locators: Vec<Locator>,
    /// Multicast locators it announced.
    pub multicast_locators: Vec<Locator>,
    /// RELIABLE (true) or BEST_EFFORT writer.
    pub reliable: bool,
    /// Exclusive-ownership strength (0 when shared).
    pub ownership_strength: i32,
    /// The writer's LIFESPAN (from SEDP PublicationData), `None` when infinite: the reader
    /// drops samples whose source timestamp + lifespan has passed. DDS 1.4 §2.2.3.16.
    pub lifespan: Option<core::time::Duration>,
}
