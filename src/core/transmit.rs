//! A datagram the core wants sent: complete RTPS message bytes and where to.
//!
//! Must not: refer to sockets; the runtime maps locators to sockets.

use crate::wire::Locator;

/// Largest datagram the core builds (UDP payload limit minus headroom). Fragmentation keeps
/// every DATA_FRAG message under this.
pub const MAX_DATAGRAM: usize = 65_000;

/// One datagram to send to one or more locators (the same bytes to each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// Destinations (unicast or multicast locators).
    pub destinations: Vec<Locator>,
    /// A complete RTPS message: header and submessages.
    pub payload: Vec<u8>,
}
