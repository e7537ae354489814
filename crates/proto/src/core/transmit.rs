//! A datagram the core wants sent: complete RTPS message bytes and where to.
//!
//! Must not: refer to sockets; the runtime maps locators to sockets.
//!
//! A large DATA_FRAG fragment is not copied into the message buffer: the [`Transmit`] carries
//! it as a [`Splice`], a shared slice of the stored sample, and the transport sends the
//! pieces with one gather send (`sendmsg` with an iovec per piece).

use std::borrow::Cow;

use bytes::Bytes;

use crate::wire::Locator;

/// Largest datagram the core builds (UDP payload limit minus headroom). Fragmentation keeps
/// every DATA_FRAG message under this.
pub const MAX_DATAGRAM: usize = 65_000;

/// One datagram to send to one or more locators (the same bytes to each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// Destinations (unicast or multicast locators).
    pub destinations: Vec<Locator>,
    /// A complete RTPS message: header and submessages, except the [`splice`](Self::splice)
    /// bytes when there are some.
    pub payload: Vec<u8>,
    /// Shared bytes that belong on the wire at `payload[splice.at..]` (between
    /// `payload[..at]` and `payload[at..]`); not copied into `payload`.
    pub splice: Option<Splice>,
}

/// Bytes of a stored sample inserted into a [`Transmit`]'s payload on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Splice {
    /// Offset in the payload where these bytes go.
    pub at: usize,
    /// The bytes (a slice of the stored sample).
    pub bytes: Bytes,
}

impl Transmit {
    /// A datagram of `payload` alone (no splice) to `destinations`.
    pub fn new(destinations: Vec<Locator>, payload: Vec<u8>) -> Self {
        Transmit {
            destinations,
            payload,
            splice: None,
        }
    }

    /// The datagram's length on the wire.
    pub fn len(&self) -> usize {
        self.payload
            .len()
            .saturating_add(self.splice.as_ref().map_or(0, |s| s.bytes.len()))
    }

    /// True when the datagram has no bytes at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The datagram as it goes on the wire, in at most three pieces (some possibly empty):
    /// `payload[..at]`, the splice, `payload[at..]`.
    pub fn parts(&self) -> [&[u8]; 3] {
        match &self.splice {
            None => [&self.payload, &[], &[]],
            Some(s) => {
                let (head, tail) = self.payload.split_at(s.at.min(self.payload.len()));
                [head, &s.bytes, tail]
            }
        }
    }

    /// The datagram in one piece: borrowed without a splice, assembled (a copy) with one.
    pub fn datagram(&self) -> Cow<'_, [u8]> {
        match &self.splice {
            None => Cow::Borrowed(&self.payload),
            Some(_) => Cow::Owned(self.parts().concat()),
        }
    }
}

#[cfg(test)]
mod tests;
