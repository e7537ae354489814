//! The RTPS message receiver: walks the submessages of one datagram while keeping the
//! receiver state that INFO_* submessages change, and hands each entity submessage on with the
//! state that applies to it. RTPS 2.5 §8.3.4 (the receiver), §8.3.7.5-8.3.7.11 (INFO_*).
//!
//! Must not: keep state between datagrams (the state is reset per message, §8.3.4.1), decide
//! which endpoint gets a submessage (the participant routes), or fail on bad input: a
//! malformed submessage drops the rest of the datagram and is counted.
use crate::time::Timestamp;
use crate::wire::submessage::{Submessage, SubmessageOutcome};
use crate::wire::{GuidPrefix, Locator, Message, ProtocolVersion, VendorId, is_vendor_ping};

/// The receiver state in force for a submessage. RTPS 2.5 §8.3.4.1, Table 8.16.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceiverState {
    /// sourceGuidPrefix: the participant that sent the following submessages.
    pub source_guid_prefix: GuidPrefix,
    /// sourceVendorId.
    pub source_vendor_id: VendorId,
    /// sourceVersion.
    pub source_version: ProtocolVersion,
    /// destGuidPrefix: UNKNOWN means every participant on this socket.
    pub dest_guid_prefix: GuidPrefix,
    /// The timestamp from the last INFO_TS, if any (haveTimestamp).
    pub timestamp: Option<Timestamp>,
    /// unicastReplyLocatorList from INFO_REPLY (empty: reply to the endpoint's locators).
    pub unicast_reply_locators: Vec<Locator>,
}

/// What happened to one datagram.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiveOutcome {
    /// Entity submessages handed on.
    pub delivered: u32,
    /// Submessages skipped as not understood.
    pub not_understood: u32,
    /// True when the header or a submessage was malformed (the rest was dropped).
    pub malformed: bool,
    /// True when the datagram was addressed to another participant only.
    pub not_for_us: u32,
    /// True when the datagram was RTI's 16-byte participant ping (`wire::is_vendor_ping`):
    /// neither delivered nor malformed.
    pub ping: bool,
}

/// Walks `datagram`, calling `deliver` for each entity submessage (DATA, DATA_FRAG,
/// HEARTBEAT, HEARTBEAT_FRAG, GAP, ACKNACK, NACK_FRAG) addressed to `our_prefix` or to
/// everyone, with the receiver state that applies to it.
pub fn receive<'a>(
    datagram: &'a [u8],
    our_prefix: GuidPrefix,
    understood: fn(u16) -> bool,
    mut deliver: impl FnMut(&ReceiverState, Submessage<'a>),
) -> ReceiveOutcome {
    receive_items(datagram, our_prefix, understood, |state, item| {
        if let Item::Entity(sm) = item {
            deliver(state, sm);
        }
    })
}

/// What [`receive_items`] hands on.
pub enum Item<'a> {
    /// An entity submessage addressed to us.
    Entity(Submessage<'a>),
    /// A vendor-specific submessage (id 0x80–0xff) addressed to us, still counted as not
    /// understood: its meaning depends on `ReceiverState::source_vendor_id` (RTPS 2.5
    /// §9.4.5.1.1); the peer-group cache reads siftdds's own (`wire::AbbreviatedData`).
    Vendor {
        /// Submessage id.
        id: u8,
        /// Flags.
        flags: u8,
        /// Body.
        body: &'a [u8],
    },
}

/// [`receive`], also handing on vendor-specific submessages addressed to us.
pub fn receive_items<'a>(
    datagram: &'a [u8],
    our_prefix: GuidPrefix,
    understood: fn(u16) -> bool,
    mut deliver: impl FnMut(&ReceiverState, Item<'a>),
) -> ReceiveOutcome {
    let mut outcome = ReceiveOutcome::default();
    if is_vendor_ping(datagram) {
        outcome.ping = true;
        return outcome;
    }
    let Ok((header, iter)) = Message::parse(datagram) else {
        outcome.malformed = true;
        return outcome;
    };
    // RTPS 2.5 §8.3.4.1: initial state from the header.
    let mut state = ReceiverState {
        source_guid_prefix: header.guid_prefix,
        source_vendor_id: header.vendor_id,
        source_version: header.version,
        dest_guid_prefix: our_prefix,
        timestamp: None,
        unicast_reply_locators: Vec::new(),
    };
    for item in iter.with_understood(understood) {
        let sm = match item {
            SubmessageOutcome::Accept(sm) => sm,
            SubmessageOutcome::NotUnderstood { id, flags, body } => {
                outcome.not_understood = outcome.not_understood.saturating_add(1);
                if id >= 0x80 && state.dest_guid_prefix == our_prefix {
                    deliver(&state, Item::Vendor { id, flags, body });
                }
                continue;
            }
            SubmessageOutcome::Malformed(_) => {
                outcome.malformed = true;
                break;
            }
        };
        match sm {
            // RTPS 2.5 §8.3.7.7: INFO_DST changes destGuidPrefix; UNKNOWN means "any".
            Submessage::InfoDst(d) => {
                state.dest_guid_prefix = if d.guid_prefix == GuidPrefix::UNKNOWN {
                    our_prefix
                } else {
                    d.guid_prefix
                };
            }
            // RTPS 2.5 §8.3.7.9: INFO_SRC resets the source and the destination.
            Submessage::InfoSrc(s) => {
                state.source_guid_prefix = s.guid_prefix;
                state.source_vendor_id = s.vendor_id;
                state.source_version = s.version;
                state.unicast_reply_locators.clear();
                state.timestamp = None;
            }
            // RTPS 2.5 §8.3.7.11: INFO_TS sets or invalidates the timestamp.
            Submessage::InfoTs(t) => state.timestamp = t.timestamp,
            // RTPS 2.5 §8.3.7.8: INFO_REPLY replaces the reply locators.
            Submessage::InfoReply(r) => {
                state.unicast_reply_locators = r.unicast;
            }
            Submessage::InfoReplyIp4(r) => {
                let [a, b, c, d] = r.unicast.address.to_be_bytes();
                let port = u16::try_from(r.unicast.port).unwrap_or(0);
                state.unicast_reply_locators = vec![Locator::udpv4([a, b, c, d], port)];
            }
            Submessage::Pad(_) => {}
            entity => {
                if state.dest_guid_prefix == our_prefix {
                    outcome.delivered = outcome.delivered.saturating_add(1);
                    deliver(&state, Item::Entity(entity));
                } else {
                    outcome.not_for_us = outcome.not_for_us.saturating_add(1);
                }
            }
        }
    }
    outcome
}

#[cfg(test)]
mod tests;
