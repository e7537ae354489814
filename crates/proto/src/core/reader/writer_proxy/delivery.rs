//! Delivery from one writer proxy to the reader: what a buffered sequence number holds
//! ([`Slot`]), the [`Sink`] in-order changes go to (instance-level QoS, delivery queue,
//! counters), and the hand-over through the writer's coherent-set assembly.
//!
//! Must not: decide which sequence numbers are in order, missing or acknowledged (that is the
//! proxy's, `writer_proxy.rs`), or read clocks (the `now` comes with the sink).
//!
//! RTPS 2.5 §8.4.10.4 (irrelevant changes), §8.4.12 (delivery by a reliable reader); DDS 1.4
//! §2.2.3.15 (KEEP_ALL flow control through the delivery queue).

use crate::core::CacheChange;
use crate::core::reader::ReaderCounters;
use crate::core::reader::coherent::CoherentSets;
use crate::core::reader::history::{DeliveryQueue, Stamp};
use crate::core::reader::instance::{InstanceTable, Verdict};
use crate::time::Now;
use crate::wire::SequenceNumber;

/// What a buffered sequence number holds.
#[derive(Debug)]
pub(in crate::core::reader) enum Slot {
    /// A received change waiting for the SNs below it.
    Sample(CacheChange),
    /// Irrelevant (GAP, filtered, or nothing to deliver). RTPS 2.5 §8.4.10.4.
    Irrelevant,
}

/// Memory one buffered SN holds besides its payload: its map entry (counted twice for the
/// B-tree's half-full nodes) and the payload allocation's header and rounding (16 bytes).
/// What [`MAX_OUT_OF_ORDER_BYTES`](super::MAX_OUT_OF_ORDER_BYTES) bounds is payload plus this
/// (issue 15: limits in bytes of memory, not of payload).
const SLOT_OVERHEAD: usize = 2 * core::mem::size_of::<(SequenceNumber, Slot)>() + 16;

impl Slot {
    /// Memory held: payload octets plus [`SLOT_OVERHEAD`].
    pub(super) fn len(&self) -> usize {
        match self {
            Slot::Sample(c) => c.data.len().saturating_add(SLOT_OVERHEAD),
            Slot::Irrelevant => SLOT_OVERHEAD,
        }
    }
}

/// Where delivered changes go and what gets counted.
pub(in crate::core::reader) struct Sink<'a> {
    /// The delivery queue.
    pub queue: &'a mut DeliveryQueue,
    /// The reader's counters.
    pub counters: &'a mut ReaderCounters,
    /// Instance-level QoS (lifespan, ownership, time-based filter, deadline).
    pub instances: &'a mut InstanceTable,
    /// The time of the input being handled.
    pub now: Now,
}

impl Sink<'_> {
    pub(in crate::core::reader) fn deliver(&mut self, slot: Slot) {
        let Slot::Sample(change) = slot else {
            return;
        };
        let c = &mut *self.counters;
        let stamp = match self.instances.admit(self.now, &change) {
            Verdict::Deliver {
                expires_ns,
                generations,
            } => Stamp {
                expires_ns,
                generations,
                reception: self.now.wall,
            },
            Verdict::Expired => {
                c.samples_expired = c.samples_expired.saturating_add(1);
                return;
            }
            Verdict::NotOwner => {
                c.samples_not_owner = c.samples_not_owner.saturating_add(1);
                return;
            }
            Verdict::Filtered => {
                c.samples_filtered = c.samples_filtered.saturating_add(1);
                return;
            }
        };
        match self.queue.push(change, stamp) {
            Ok(replaced) => {
                self.counters.samples_delivered = self.counters.samples_delivered.saturating_add(1);
                self.counters.samples_replaced = self
                    .counters
                    .samples_replaced
                    .saturating_add(u64::try_from(replaced).unwrap_or(u64::MAX));
            }
            Err(_) => {
                self.counters.samples_rejected = self.counters.samples_rejected.saturating_add(1);
            }
        }
    }
}

/// Passes the in-order slot of `sn` through the writer's coherent-set assembly to `sink`.
pub(super) fn hand_over(
    coherent: &mut CoherentSets,
    sn: SequenceNumber,
    slot: Slot,
    sink: &mut Sink<'_>,
) {
    let change = match slot {
        Slot::Sample(c) => Some(c),
        Slot::Irrelevant => None,
    };
    let dropped = coherent.pass(sn, change, &mut |c| sink.deliver(Slot::Sample(c)));
    let c = &mut sink.counters.coherent_samples_dropped;
    *c = c.saturating_add(dropped);
}

/// Tells the writer's coherent-set assembly that SNs were lost.
pub(super) fn hand_over_loss(coherent: &mut CoherentSets, sink: &mut Sink<'_>) {
    let dropped = coherent.lost();
    let c = &mut sink.counters.coherent_samples_dropped;
    *c = c.saturating_add(dropped);
}

/// True if delivering `slot` now would not hit a full delivery queue (KEEP_ALL flow control).
pub(super) fn slot_fits(slot: &Slot, queue: &DeliveryQueue) -> bool {
    match slot {
        Slot::Sample(c) => queue.has_room(c.key_hash),
        Slot::Irrelevant => true,
    }
}
