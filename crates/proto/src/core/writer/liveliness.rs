//! Manual liveliness assertion by one writer: a HEARTBEAT with the Liveliness flag to every
//! matched reader (MANUAL_BY_TOPIC, and MANUAL_BY_PARTICIPANT writers asserted on their own).
//!
//! Must not: perform I/O or touch the history; the count shares the writer's HEARTBEAT count so
//! readers never see it go backwards.
//!
//! RTPS 2.5 §8.3.7.5 (HEARTBEAT.L "the DataWriter has manually asserted its liveliness"),
//! §8.4.13.5 (MANUAL_BY_TOPIC liveliness is asserted by the writer itself); DDS 1.4
//! §2.2.3.11.

use super::Writer;
use super::message::ENDIAN;
use crate::core::Transmit;
use crate::wire::submessage::{Heartbeat, Submessage};
use crate::wire::{EntityId, Header, Locator, SequenceNumber, emit_message};

impl Writer {
    /// One datagram with a HEARTBEAT whose L flag is set, addressed to all matched readers
    /// (readerId ENTITYID_UNKNOWN, the union of their locators). `None` without readers.
    /// The F flag is set when every reliable reader acknowledged everything (no reply owed).
    pub fn liveliness_heartbeat(&mut self) -> Option<Transmit> {
        let mut destinations: Vec<Locator> = Vec::new();
        for l in self.readers.iter().flat_map(|r| r.locators()) {
            if !destinations.contains(l) {
                destinations.push(*l);
            }
        }
        if destinations.is_empty() {
            return None;
        }
        let last = self.history.last_sn();
        // RTPS 2.5 §8.3.7.5: firstSN ≥ 1 and lastSN ≥ firstSN − 1 (empty: first = last + 1).
        let after_last = last.checked_add(1).unwrap_or(last);
        let first = self
            .history
            .first_sn()
            .max(SequenceNumber::ONE)
            .min(after_last);
        let count = self.announced.take_liveliness_count();
        let g = self.config.guid;
        let hb = Heartbeat {
            endian: ENDIAN,
            final_flag: self.all_acked(),
            liveliness: true,
            reader_id: EntityId::UNKNOWN,
            writer_id: g.entity_id,
            first_sn: first,
            last_sn: last,
            count,
            group_info: None,
        };
        let mut payload = Vec::with_capacity(64);
        emit_message(
            &Header::new(g.prefix),
            &[Submessage::Heartbeat(hb)],
            &mut payload,
        );
        let c = &mut self.counters;
        c.heartbeats_sent = c.heartbeats_sent.saturating_add(1);
        c.datagrams_sent = c.datagrams_sent.saturating_add(1);
        c.count_wire(&destinations, payload.len());
        Some(Transmit::new(destinations, payload))
    }
}
