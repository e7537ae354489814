//! What a writer counts: submessages, datagrams and bytes sent, requests received, and how
//! samples went (multicast or unicast).
//!
//! Must not: decide anything; counters only saturate, never wrap or panic.
//!
//! RTPS 2.5 §8.4.7 (writer); the figures behind `Writer::filter_stats` and the demo.

use super::message::Sent;

/// What a writer has sent and received so far.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WriterCounters {
    /// DATA submessages pushed (first transmissions).
    pub data_sent: u64,
    /// DATA_FRAG submessages pushed (first transmissions).
    pub data_frag_sent: u64,
    /// DATA / DATA_FRAG submessages resent because a reader asked.
    pub repairs_sent: u64,
    /// GAP submessages sent.
    pub gaps_sent: u64,
    /// HEARTBEAT submessages sent.
    pub heartbeats_sent: u64,
    /// Datagrams produced.
    pub datagrams_sent: u64,
    /// Datagrams put on the wire: each produced datagram once per destination locator.
    pub wire_datagrams: u64,
    /// Bytes put on the wire: each datagram's length once per destination locator (RTPS
    /// message only, no UDP/IP headers).
    pub wire_bytes: u64,
    /// ACKNACKs received for this writer (all).
    pub acknacks_received: u64,
    /// ACKNACKs ignored: unknown or best-effort reader, or stale / duplicate count.
    pub acknacks_ignored: u64,
    /// NACKed changes not answered again because their repair had just gone out
    /// (`flow.rs`: the request crossed the repair).
    pub nacks_suppressed: u64,
    /// NACK_FRAGs received (all).
    pub nack_frags_received: u64,
    /// NACK_FRAGs ignored: unknown reader, or stale / duplicate count.
    pub nack_frags_ignored: u64,
    /// Changes removed from the history because their lifespan ended.
    pub changes_expired: u64,
    /// GAP submessages sent because a filtered reader's filter rejected the changes. Known
    /// only while the history still stores a rejected change of the GAP's range: a writer
    /// whose readers are all best-effort drops each change once pushed, so its lazy GAPs
    /// (sent later, in front of the next DATA) count in `gaps_sent` alone.
    pub filter_gaps_sent: u64,
    /// (reader, SN) pairs answered with GAP instead of DATA by content filtering (counted
    /// as [`Self::filter_gaps_sent`] is, so the same undercount applies).
    pub samples_filtered: u64,
    /// Samples sent as one multicast datagram to a group (`multicast.rs`).
    pub samples_multicast: u64,
    /// Samples that at least one reader gets by unicast (pushed to it alone or with
    /// others at its unicast locators), multicast ones included when a reader is not covered.
    pub samples_unicast: u64,
    /// Reliable readers marked unresponsive: no acknowledgement progress for
    /// `WriterConfig::unresponsive_reader_timeout` while changes waited on them
    /// (`unresponsive.rs`); they stopped holding the history back.
    pub readers_marked_unresponsive: u64,
    /// Unresponsive readers that acknowledged again and hold the history back again.
    pub readers_recovered: u64,
}

impl WriterCounters {
    /// Counts what one datagram carried (`repair`: DATA / DATA_FRAG resent on request).
    pub(super) fn account(&mut self, sent: Sent, repair: bool) {
        let c = self;
        if repair {
            c.repairs_sent = c
                .repairs_sent
                .saturating_add(sent.data.saturating_add(sent.data_frag));
        } else {
            c.data_sent = c.data_sent.saturating_add(sent.data);
            c.data_frag_sent = c.data_frag_sent.saturating_add(sent.data_frag);
        }
        c.gaps_sent = c.gaps_sent.saturating_add(sent.gaps);
        c.filter_gaps_sent = c.filter_gaps_sent.saturating_add(sent.filter_gaps);
        c.samples_filtered = c.samples_filtered.saturating_add(sent.filtered);
        c.heartbeats_sent = c.heartbeats_sent.saturating_add(sent.heartbeats);
        c.datagrams_sent = c.datagrams_sent.saturating_add(1);
    }

    /// Counts one datagram sent to `destinations` in [`Self::wire_datagrams`] and
    /// [`Self::wire_bytes`].
    pub(super) fn count_wire(&mut self, destinations: &[crate::wire::Locator], len: usize) {
        let n = u64::try_from(destinations.len()).unwrap_or(u64::MAX);
        let len = u64::try_from(len).unwrap_or(u64::MAX);
        self.wire_datagrams = self.wire_datagrams.saturating_add(n);
        self.wire_bytes = self.wire_bytes.saturating_add(len.saturating_mul(n));
    }
}
