//! The stateful RTPS reader: per matched writer it tracks received, missing and irrelevant
//! sequence numbers, reassembles fragments, answers HEARTBEATs with ACKNACK / NACK_FRAG and
//! hands samples to the application in order through a bounded delivery queue.
//!
//! Must not: perform I/O, read clocks, spawn threads or panic on any input. Everything it is
//! given on the receive path comes from the network (docs/conventions.md §4): every count, SN and
//! size is checked, and every piece of state a remote writer can create is capped.
//!
//! RTPS 2.5 §8.4.10-§8.4.12 (StatefulReader, WriterProxy, reliable and best-effort
//! behaviour), §8.4.14.1 (fragmentation), §8.4.15.7 (heartbeat counts); DDS 1.4 §2.2.3.18-19
//! (HISTORY, RESOURCE_LIMITS).
//!
//! # Overview
//! Quinn-style sans-IO: the participant's message receiver (which already resolved the source
//! GuidPrefix and INFO_TS) calls `handle_*`; the runtime pulls [`Reader::poll_sample`],
//! [`Reader::poll_transmit`] and [`Reader::poll_timeout`], and calls
//! [`Reader::handle_timeout`] when the deadline passes.
//!
//! - `take`: the application side, `take` / `read` in presentation order.
//! - `writer_proxy`: per-writer SN bookkeeping, GAP/HEARTBEAT handling, ACKNACK building.
//! - `reassembly`: DATA_FRAG → sample, bounded by `max_sample_size`, the in-flight cap and the
//!   reader-wide `max_reassembly_bytes`.
//! - `coherent`: per writer, coherent sets held until complete, then passed on together
//!   (RTPS 2.5 §8.7.5, DDS 1.4 §2.2.3.6).
//! - `presentation`: the order of a take under ordered access (DDS 1.4 §2.2.3.6).
//! - `history`: the delivery queue (KEEP_LAST per instance / KEEP_ALL with flow control).
//! - `inline_qos`: PID_STATUS_INFO / PID_KEY_HASH → [`ChangeKind`] and key hash.
//! - `instance`: instance-level QoS between in-order delivery and the queue: LIFESPAN,
//!   EXCLUSIVE ownership, TIME_BASED_FILTER, DEADLINE, and the DCPS instance states
//!   (DDS 1.4 §2.2.3.7, §2.2.3.9, §2.2.3.12, §2.2.3.16, §2.2.2.5.1.3-§2.2.2.5.1.8).
//! - `sample_info`: SampleInfo, the state masks, instance handles and ranks (DDS 1.4
//!   §2.2.2.5.4).
//!
//! [`Reader::take`] removes samples; [`Reader::read`] returns the samples not returned by a
//! previous `read` and leaves them queued; [`Reader::select`] reads or takes the samples a
//! [`ReadSelection`] asks for (state masks, instances, a query, max_samples), each with its
//! [`SampleInfo`].
mod coherent;
mod content_filter;
mod counters;
mod group;
mod history;
mod inline_qos;
mod instance;
mod key_hasher;
mod presentation;
mod reassembly;
mod sample_info;
mod take;
#[cfg(test)]
mod tests;
mod writer_proxy;

use std::collections::{BTreeMap, VecDeque};

use bytes::Bytes;

pub use coherent::{GroupPart, MAX_PENDING_PARTS};
pub use content_filter::ReaderFilter;
pub use counters::ReaderCounters;
pub use history::MAX_QUEUED_SAMPLES;
pub use instance::MAX_TRACKED_INSTANCES;
pub use key_hasher::KeyHasher;
pub use sample_info::{
    Generations, InstanceHandle, InstanceSelector, InstanceState, InstanceStateMask, InstanceView,
    ReadSelection, SampleInfo, SampleState, SampleStateMask, StateMasks, ViewState, ViewStateMask,
    rank,
};
pub use writer_proxy::{MAX_OUT_OF_ORDER_BYTES, PREEMPTIVE_ACKNACK_PERIOD};

use crate::core::deadline::InstanceId;
use crate::core::{CacheChange, ChangeKind, DeadlineMissedStatus, RemoteWriter, Transmit};
use crate::qos::{History, Length, Presentation, ResourceLimits};
use crate::time::{Instant, Now, Timestamp};
use crate::wire::submessage::{
    Data, DataFrag, DataPayload, Gap, Heartbeat, HeartbeatFrag, Submessage,
};
use crate::wire::{Guid, SequenceNumber};
use content_filter::Received;
use history::{DeliveryQueue, Stamp};
use inline_qos::{InlineInfo, PayloadKind};
use instance::InstanceTable;
use reassembly::{FragOutcome, FragRefusal};
use writer_proxy::{Sink, Slot, WriterProxy};

/// Default bound on a reassembled sample (docs/conventions.md §4 "maximum sample size").
pub const DEFAULT_MAX_SAMPLE_SIZE: usize = 16 * 1024 * 1024;
/// Default cap on samples being reassembled per remote writer.
pub const DEFAULT_MAX_FRAGMENTED_SAMPLES_IN_FLIGHT: usize = 16;
pub use reassembly::DEFAULT_MAX_REASSEMBLY_BYTES;
/// Default delay before answering a HEARTBEAT: none (Fast DDS waits 5 ms). Writers send
/// HEARTBEATs at most once per period or per block of data, so answering at once costs few
/// ACKNACKs, and a writer that blocks on its unacknowledged data (KEEP_ALL) waits one round
/// trip for room instead of that plus the delay (measured with `siftdds perf`: 5 ms capped
/// 16 KiB throughput near 2 MiB / 5 ms). RTPS 2.5 §8.4.12.1 (heartbeatResponseDelay).
pub const DEFAULT_HEARTBEAT_RESPONSE_DELAY: core::time::Duration = core::time::Duration::ZERO;
/// Most out-of-order changes buffered per remote writer (SNs beyond `first missing + this`
/// are dropped and re-requested). Lowered further by RESOURCE_LIMITS.max_samples. It must
/// cover what a writer has in flight: while the application is slow to take, a KEEP_ALL
/// reader's delivery queue is full and everything arriving waits here; what falls beyond the
/// window is re-requested at most 256 SNs per ACKNACK (RTPS 2.5 §9.4.2.6), a collapse to a
/// few thousand samples/s (measured with `siftdds perf`: 1024 → repairs of ~15% of the
/// samples at 16 B). The byte budget ([`MAX_OUT_OF_ORDER_BYTES`]) still bounds the memory.
pub const MAX_OUT_OF_ORDER: usize = 16 * 1024;

/// How a [`Reader`] behaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReaderConfig {
    /// Our GUID (the prefix goes in the RTPS header, the entity id in ACKNACK.readerId).
    pub guid: Guid,
    /// RELIABLE (true) or BEST_EFFORT. A reliable reader matched with a best-effort writer
    /// behaves best-effort for that writer (RTPS 2.5 §8.4.10).
    pub reliable: bool,
    /// HISTORY of the delivery queue.
    pub history: History,
    /// RESOURCE_LIMITS of the delivery queue (and of the out-of-order buffer).
    pub resource_limits: ResourceLimits,
    /// Delay before answering a HEARTBEAT.
    pub heartbeat_response_delay: core::time::Duration,
    /// Largest sampleSize accepted for reassembly.
    pub max_sample_size: usize,
    /// Samples reassembled at once per remote writer; the oldest is evicted beyond this.
    pub max_fragmented_samples_in_flight: usize,
    /// Bytes of reassembly buffers over all remote writers; a fragment that would start a
    /// sample beyond it is dropped (and re-requested later, when room has been made).
    pub max_reassembly_bytes: usize,
    /// The topic has a key (samples are grouped into instances by key hash).
    pub keyed: bool,
    /// DEADLINE period (`None`: infinite). DDS 1.4 §2.2.3.7.
    pub deadline: Option<core::time::Duration>,
    /// TIME_BASED_FILTER minimum_separation (`None` or zero: every sample). §2.2.3.12.
    pub time_based_filter: Option<core::time::Duration>,
    /// OWNERSHIP EXCLUSIVE: per instance only the strongest writer's samples. §2.2.3.9.
    pub exclusive_ownership: bool,
    /// Computes key hashes for writers that do not send PID_KEY_HASH (Cyclone DDS).
    pub key_hasher: Option<KeyHasher>,
    /// Our ContentFilteredTopic filter, applied on delivery unless the writer's
    /// PID_CONTENT_FILTER_INFO gives the result for its signature. RTPS 2.5 §8.7.3.3.
    pub content_filter: Option<ReaderFilter>,
    /// The subscriber's PRESENTATION: `coherent_access` makes each writer's coherent sets
    /// all-or-nothing (`coherent`), `ordered_access` with INSTANCE scope makes a `take`
    /// return the samples instance by instance (`presentation`). DDS 1.4 §2.2.3.6.
    pub presentation: Presentation,
    /// Take nothing a matched writer wrote before our first HEARTBEAT from it (its lastSN
    /// then), but what it sent us before that HEARTBEAT or before its SEDP: start where the
    /// writer stood at the match. The participant sets it for every VOLATILE reader,
    /// application or router proxy alike (`ReaderSpec::starts_at_match`,
    /// docs/durability.md); default false here.
    pub start_at_match: bool,
}

impl ReaderConfig {
    /// A configuration with the defaults above, KEEP_LAST(1) and unlimited resource limits.
    pub fn new(guid: Guid, reliable: bool, keyed: bool) -> Self {
        ReaderConfig {
            guid,
            reliable,
            history: History::default(),
            resource_limits: ResourceLimits::default(),
            heartbeat_response_delay: DEFAULT_HEARTBEAT_RESPONSE_DELAY,
            max_sample_size: DEFAULT_MAX_SAMPLE_SIZE,
            max_fragmented_samples_in_flight: DEFAULT_MAX_FRAGMENTED_SAMPLES_IN_FLIGHT,
            max_reassembly_bytes: DEFAULT_MAX_REASSEMBLY_BYTES,
            keyed,
            start_at_match: false,
            deadline: None,
            time_based_filter: None,
            exclusive_ownership: false,
            key_hasher: None,
            content_filter: None,
            presentation: Presentation::default(),
        }
    }
}

/// A sans-IO stateful reader. RTPS 2.5 §8.4.12.
#[derive(Debug)]
pub struct Reader {
    config: ReaderConfig,
    writers: BTreeMap<Guid, WriterProxy>,
    queue: DeliveryQueue,
    instances: InstanceTable,
    counters: ReaderCounters,
    /// Writers whose ACKNACK timer fired (`handle_timeout`), sent by `poll_transmit`.
    due: Vec<Guid>,
    /// The time of the latest input, for work done without one (`poll_sample`).
    last_now: Now,
    /// Queued changes counted at the last [`Reader::take_new_data`].
    delivered_mark: u64,
    /// With `start_at_match`: the lowest SN of each not yet matched writer whose DATA reached
    /// us before its SEDP did, at most [`MAX_EARLY_WRITERS`] (the oldest noted goes first).
    early: VecDeque<(Guid, SequenceNumber)>,
}

/// Writers whose DATA before their match a `start_at_match` reader remembers.
pub const MAX_EARLY_WRITERS: usize = 64;

impl Reader {
    /// A reader with no matched writers.
    pub fn new(config: ReaderConfig) -> Self {
        let queue = DeliveryQueue::new(config.history, config.resource_limits, config.keyed);
        let max_instances = match config.resource_limits.max_instances {
            Length::Limited(n) => usize::try_from(n).unwrap_or(usize::MAX),
            Length::Unlimited => usize::MAX,
        };
        let instances = InstanceTable::new(
            config.keyed,
            config.exclusive_ownership,
            config.time_based_filter,
            config.deadline,
            max_instances,
        );
        Reader {
            config,
            writers: BTreeMap::new(),
            queue,
            instances,
            counters: ReaderCounters::default(),
            due: Vec::new(),
            early: VecDeque::new(),
            last_now: Now {
                mono: Instant::ZERO,
                wall: Timestamp::ZERO,
            },
            delivered_mark: 0,
        }
    }

    /// Our GUID.
    pub fn guid(&self) -> Guid {
        self.config.guid
    }

    /// The counters so far.
    pub fn counters(&self) -> &ReaderCounters {
        &self.counters
    }

    /// Samples waiting in the delivery queue.
    pub fn samples_queued(&self) -> usize {
        self.queue.len()
    }

    /// Queued samples not yet returned by [`Reader::read`].
    pub fn samples_unread(&self) -> usize {
        self.queue.unread_len()
    }

    /// True once after changes were queued since the last call (DATA_AVAILABLE), including
    /// KEEP_LAST replacements and NOT_ALIVE_NO_WRITERS notifications.
    pub fn take_new_data(&mut self) -> bool {
        let n = self
            .counters
            .samples_delivered
            .saturating_add(self.counters.no_writers_notifications);
        let new = n != self.delivered_mark;
        self.delivered_mark = n;
        new
    }

    /// REQUESTED_DEADLINE_MISSED status. DDS 1.4 §2.2.4.1.
    pub fn deadline_status(&self) -> DeadlineMissedStatus {
        self.instances.deadline.status()
    }

    /// The next instance that missed its requested deadline (`Some(None)`: keyless topic).
    pub fn poll_deadline_missed(&mut self) -> Option<InstanceId> {
        self.instances.deadline.poll_missed()
    }

    /// Each matched writer with the highest sequence number known to exist from it (its
    /// latest HEARTBEAT's lastSN, or the greatest SN received): what a reader compares
    /// with what it got to see loss at the tail of a stream. RTPS 2.5 §8.4.10.4.4.
    pub fn writers_last_sn(&self) -> Vec<(Guid, SequenceNumber)> {
        self.writers
            .iter()
            .map(|(g, w)| (*g, w.available_max()))
            .collect()
    }

    /// True if `writer` is matched.
    pub fn is_matched(&self, writer: Guid) -> bool {
        self.writers.contains_key(&writer)
    }

    fn out_of_order_window(&self) -> usize {
        match self.config.resource_limits.max_samples {
            Length::Limited(n) => usize::try_from(n)
                .unwrap_or(usize::MAX)
                .clamp(1, MAX_OUT_OF_ORDER),
            Length::Unlimited => MAX_OUT_OF_ORDER,
        }
    }

    /// Matches a remote writer (from SEDP or builtin configuration). Re-adding a matched
    /// writer only updates its locators. A reliable pair owes a pre-emptive ACKNACK at once.
    /// RTPS 2.5 §8.4.10.4, §8.4.12.
    pub fn matched_writer_add(&mut self, now: Now, writer: RemoteWriter) {
        self.instances
            .writer_added(writer.guid, writer.ownership_strength, writer.lifespan);
        if let Some(p) = self.writers.get_mut(&writer.guid) {
            p.remote.unicast_locators = writer.unicast_locators;
            p.remote.multicast_locators = writer.multicast_locators;
            p.remote.ownership_strength = writer.ownership_strength;
            p.remote.lifespan = writer.lifespan;
            return;
        }
        let window = self.out_of_order_window();
        let budget = MAX_OUT_OF_ORDER_BYTES.max(self.config.max_sample_size);
        let reliable = self.config.reliable;
        let coherent = self.config.presentation.coherent_access;
        let mut proxy =
            WriterProxy::new(writer.clone(), reliable, window, budget, now.mono, coherent);
        proxy.start_at_match = self.config.start_at_match;
        if let Some(i) = self.early.iter().position(|(g, _)| *g == writer.guid) {
            proxy.early_from = self.early.remove(i).map(|(_, sn)| sn);
        }
        proxy.coherent_mut().set_group(self.group_coherent());
        self.writers.insert(writer.guid, proxy);
    }

    /// A DATA or DATA_FRAG `sn` of `writer`, not (yet) matched, reached the participant for
    /// us: its DATA overtook its SEDP announcement. A `start_at_match` reader remembers the
    /// lowest such SN and starts there rather than after the writer's first HEARTBEAT, so
    /// what the writer sent since it matched us is asked for, not lost (a router's proxy
    /// reader would otherwise drop the first samples of every writer that starts writing at
    /// once). Bounded by [`MAX_EARLY_WRITERS`]; other readers ignore it.
    pub fn note_unmatched_data(&mut self, writer: Guid, sn: SequenceNumber) {
        if !self.config.start_at_match || self.writers.contains_key(&writer) {
            return;
        }
        if let Some(e) = self.early.iter_mut().find(|(g, _)| *g == writer) {
            e.1 = e.1.min(sn);
            return;
        }
        if self.early.len() >= MAX_EARLY_WRITERS {
            self.early.pop_front();
        }
        self.early.push_back((writer, sn));
    }

    /// Unmatches a writer, dropping its buffered and partial samples (already delivered ones
    /// stay queued). Every alive instance it was the last writer of gets a
    /// [`ChangeKind::NotAliveNoWriters`] change (writer_guid = this writer, SN 0, no data);
    /// an exclusive instance it owned passes to the strongest remaining writer.
    /// Returns false if it was not matched. DDS 1.4 §2.2.2.5.1.4, §2.2.3.9.
    pub fn matched_writer_remove(&mut self, writer: Guid) -> bool {
        self.due.retain(|g| *g != writer);
        if self.writers.remove(&writer).is_none() {
            return false;
        }
        for (key, generations) in self.instances.writer_removed(writer) {
            let change = CacheChange {
                kind: ChangeKind::NotAliveNoWriters,
                writer_guid: writer,
                sequence_number: SequenceNumber(0),
                key_hash: key,
                source_timestamp: None,
                data: Bytes::new(),
                coherent_set: None,
                group: None,
                original_writer: None,
            };
            let stamp = Stamp {
                expires_ns: None,
                generations,
                reception: self.last_now.wall,
            };
            let c = &mut self.counters;
            if self.queue.push(change, stamp).is_ok() {
                c.no_writers_notifications = c.no_writers_notifications.saturating_add(1);
            } else {
                c.samples_rejected = c.samples_rejected.saturating_add(1);
            }
        }
        true
    }

    fn proxy_and_sink(&mut self, now: Now, writer: Guid) -> Option<(&mut WriterProxy, Sink<'_>)> {
        self.last_now = now;
        let Some(proxy) = self.writers.get_mut(&writer) else {
            self.counters.unknown_writer = self.counters.unknown_writer.saturating_add(1);
            return None;
        };
        let sink = Sink {
            queue: &mut self.queue,
            counters: &mut self.counters,
            instances: &mut self.instances,
            now,
        };
        Some((proxy, sink))
    }

    /// Any submessage a writer sends a reader (DATA, DATA_FRAG, HEARTBEAT, HEARTBEAT_FRAG,
    /// GAP), handed to the matching `handle_*`; anything else is ignored.
    pub fn handle_writer_submessage(
        &mut self,
        now: Now,
        writer: Guid,
        ts: Option<Timestamp>,
        sm: &Submessage<'_>,
    ) {
        match sm {
            Submessage::Data(d) => self.handle_data(now, writer, ts, d),
            Submessage::DataFrag(d) => self.handle_data_frag(now, writer, ts, d),
            Submessage::Heartbeat(h) => self.handle_heartbeat(now, writer, h),
            Submessage::HeartbeatFrag(h) => self.handle_heartbeat_frag(now, writer, h),
            Submessage::Gap(g) => self.handle_gap(now, writer, g),
            _ => {}
        }
    }

    /// DATA from `writer` (GUID resolved by the message receiver). RTPS 2.5 §8.3.7.2,
    /// §8.4.12.2 (reliable), §8.4.11.2 (best-effort).
    pub fn handle_data(
        &mut self,
        now: Now,
        writer: Guid,
        source_timestamp: Option<Timestamp>,
        data: &Data<'_>,
    ) {
        let sn = data.writer_sn;
        self.last_now = now;
        let signature = self.own_signature();
        // One lookup of the proxy for the whole DATA (the config and counters are disjoint).
        let Some(p) = self.writers.get_mut(&writer) else {
            self.counters.unknown_writer = self.counters.unknown_writer.saturating_add(1);
            return;
        };
        self.counters.samples_received = self.counters.samples_received.saturating_add(1);
        let mut sink = Sink {
            queue: &mut self.queue,
            counters: &mut self.counters,
            instances: &mut self.instances,
            now,
        };
        p.note_sent(sn, &mut sink);
        // Unwanted (duplicate or out of window): the proxy counts it; nothing is copied.
        let slot = if p.wants(sn) {
            let inline = InlineInfo::parse(data.inline_qos.as_ref(), signature.as_ref());
            let (kind, bytes) = match data.payload {
                DataPayload::Data(b) => (PayloadKind::Data, b),
                DataPayload::Key(b) => (PayloadKind::Key, b),
                DataPayload::None => (PayloadKind::None, &[][..]),
            };
            let received = Received {
                writer,
                sn,
                source_timestamp,
                inline,
                payload: kind,
                // The one copy: the sample is stored (docs/conventions.md §3).
                data: Bytes::copy_from_slice(bytes),
            };
            self.config.make_slot(sink.counters, received)
        } else {
            Slot::Irrelevant
        };
        p.receive(sn, slot, &mut sink);
    }

    /// DATA_FRAG from `writer`. RTPS 2.5 §8.3.7.3, §8.4.14.1.
    pub fn handle_data_frag(
        &mut self,
        now: Now,
        writer: Guid,
        source_timestamp: Option<Timestamp>,
        frag: &DataFrag<'_>,
    ) {
        let sn = frag.writer_sn;
        let (max_size, max_in_flight) = (
            self.config.max_sample_size,
            self.config.max_fragmented_samples_in_flight,
        );
        // A fragment that starts a new partial sample must fit the reader-wide budget.
        let starts = self
            .writers
            .get(&writer)
            .is_some_and(|p| !p.reassembly.contains(sn));
        let all = self.writers.values().map(|p| &p.reassembly);
        if starts && reassembly::over_budget(all, frag, max_size, self.config.max_reassembly_bytes)
        {
            let c = &mut self.counters.reassembly_budget_refusals;
            *c = c.saturating_add(1);
            return;
        }
        let signature = self.own_signature();
        let Some((p, mut sink)) = self.proxy_and_sink(now, writer) else {
            return;
        };
        p.note_sent(sn, &mut sink);
        if !p.wants(sn) {
            // Already have it (or beyond the window): no reassembly state is created.
            p.receive(sn, Slot::Irrelevant, &mut sink);
            return;
        }
        let inline = InlineInfo::parse(frag.inline_qos.as_ref(), signature.as_ref());
        let done =
            match p
                .reassembly
                .handle(frag, source_timestamp, inline, max_size, max_in_flight)
            {
                FragOutcome::Incomplete => return,
                FragOutcome::Refused(FragRefusal::TooLarge) => {
                    let c = &mut sink.counters.oversized_samples_refused;
                    *c = c.saturating_add(1);
                    return;
                }
                FragOutcome::Refused(_) => {
                    let c = &mut sink.counters.malformed_fragments_dropped;
                    *c = c.saturating_add(1);
                    return;
                }
                FragOutcome::Complete(done) => done,
            };
        self.counters.samples_received = self.counters.samples_received.saturating_add(1);
        let payload = if done.key {
            PayloadKind::Key
        } else {
            PayloadKind::Data
        };
        let received = Received {
            writer,
            sn,
            source_timestamp: done.source_timestamp,
            inline: done.inline,
            payload,
            data: done.data,
        };
        let slot = self.config.make_slot(&mut self.counters, received);
        if let Some((p, mut sink)) = self.proxy_and_sink(now, writer) {
            p.receive(sn, slot, &mut sink);
        }
    }

    /// HEARTBEAT from `writer`. RTPS 2.5 §8.4.12.1.2, §8.4.10.4.3-4, §8.4.15.7.
    pub fn handle_heartbeat(&mut self, now: Now, writer: Guid, hb: &Heartbeat) {
        let delay = self.config.heartbeat_response_delay;
        let Some((p, mut sink)) = self.proxy_and_sink(now, writer) else {
            return;
        };
        if !p.handle_heartbeat(now.mono, delay, hb, &mut sink) {
            let c = &mut sink.counters.heartbeats_ignored;
            *c = c.saturating_add(1);
        }
    }

    /// HEARTBEAT_FRAG from `writer`. RTPS 2.5 §8.3.7.6, §8.4.12.1.
    pub fn handle_heartbeat_frag(&mut self, now: Now, writer: Guid, hbf: &HeartbeatFrag) {
        let delay = self.config.heartbeat_response_delay;
        let Some((p, sink)) = self.proxy_and_sink(now, writer) else {
            return;
        };
        if !p.handle_heartbeat_frag(now.mono, delay, hbf) {
            let c = &mut sink.counters.heartbeats_ignored;
            *c = c.saturating_add(1);
        }
    }

    /// GAP from `writer`. RTPS 2.5 §8.3.7.4, §8.4.12.2.
    pub fn handle_gap(&mut self, now: Now, writer: Guid, gap: &Gap) {
        if let Some((p, mut sink)) = self.proxy_and_sink(now, writer) {
            p.handle_gap(gap, &mut sink);
        }
    }

    /// The earliest ACKNACK or DEADLINE timer.
    pub fn poll_timeout(&self) -> Option<Instant> {
        if !self.due.is_empty() {
            return Some(Instant::ZERO);
        }
        self.writers
            .values()
            .filter_map(WriterProxy::ack_deadline)
            .chain(self.instances.deadline.poll_timeout())
            .min()
    }

    /// Fires the ACKNACK timers that expired at `now` (the messages are then pulled with
    /// [`Reader::poll_transmit`]) and records missed deadlines
    /// ([`Reader::poll_deadline_missed`]).
    pub fn handle_timeout(&mut self, now: Now) {
        self.last_now = now;
        self.instances.deadline.handle_timeout(now.mono);
        for (guid, p) in &mut self.writers {
            if p.take_due(now.mono) && !self.due.contains(guid) {
                self.due.push(*guid);
            }
        }
    }

    /// The next ACKNACK / NACK_FRAG message to send: `Header(our prefix) + INFO_DST(writer
    /// prefix) + ACKNACK [+ NACK_FRAG…]`. Timers that have expired by `now` are fired first.
    pub fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        self.handle_timeout(now);
        while let Some(guid) = self.due.pop() {
            if let Some(p) = self.writers.get_mut(&guid) {
                if let Some(t) = p.build_ack(now.mono, self.config.guid, &mut self.counters) {
                    return Some(t);
                }
            }
        }
        None
    }
}
