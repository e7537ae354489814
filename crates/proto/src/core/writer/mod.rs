//! The stateful RTPS writer: history, per-reader proxies, push / repair / GAP / HEARTBEAT
//! logic, fragmentation, all as a sans-IO state machine.
//!
//! Must not: perform I/O, read clocks, spawn threads, or panic on anything a remote reader
//! sends (ACKNACK / NACK_FRAG contents are untrusted; all arithmetic is checked and every
//! per-reader set is capped).
//!
//! RTPS 2.5 §8.4.7 (writer), §8.4.8 (StatelessWriter, for best-effort semantics), §8.4.9
//! (StatefulWriter behaviour), §8.4.15 (implementation notes).
//!
//! # Overview
//! Quinn-style interface: inputs are [`Writer::write`], [`Writer::matched_reader_add`],
//! [`Writer::handle_acknack`], [`Writer::handle_nack_frag`] and [`Writer::handle_timeout`];
//! outputs are pulled with [`Writer::poll_transmit`] (drain until `None` after every input)
//! and [`Writer::poll_timeout`].
//!
//! - New changes are pushed (`push_mode`, and always to best-effort readers). Readers whose
//!   unsent cursor is at the same place share one datagram with readerId ENTITYID_UNKNOWN sent
//!   to the union of their locators; a single reader gets INFO_DST + its own readerId.
//!   A burst ends with a piggy-backed HEARTBEAT for reliable readers that had none during the
//!   last `heartbeat_period`.
//! - Content filtering (`content_filter.rs`): changes a reader's filter rejects are told to it
//!   lazily, in one GAP in front of its next DATA, with its next HEARTBEAT, or in answer to
//!   its ACKNACK (`send.rs`, `repair.rs`).
//! - Per sample, a change several readers on one multicast group pass may go once to the
//!   group instead of once per reader, when a configurable cost model says so
//!   (`multicast.rs`, `docs/filtering.md`).
//! - Flow control (`flow.rs`): a reliable reader gets new changes only while its window of
//!   unacknowledged bytes has room; half full, the next datagram asks it to acknowledge.
//!   HEARTBEATs announce only what was pushed to the reader; repairs are paced per reader
//!   and a NACK crossing a repair just sent is not answered twice.
//! - Reliable readers get a HEARTBEAT every `heartbeat_period` (spread out to up to ten
//!   periods while writing to many readers, `flow::heartbeat_interval`) while they have
//!   unacknowledged changes; none once everything is acknowledged. ACKNACK requests are answered after
//!   `nack_response_delay` with DATA / DATA_FRAG for stored changes and GAP for changes no
//!   longer stored (KEEP_LAST) or not relevant (before a VOLATILE late joiner's start),
//!   followed by a HEARTBEAT.
//! - Samples larger than `fragment_size` go as DATA_FRAG (one fragment per submessage, many
//!   per datagram); NACK_FRAG asks for single fragments.
//! - HEARTBEAT_FRAG is not sent (optional in RTPS 2.5 §8.4.9.2).
//!
//! # Components
//! The writer is made of owned parts, as quinn-proto's `Connection` is; each keeps its own
//! invariants and has its own tests, and a part reads its neighbours only through arguments:
//!
//! ```text
//! Writer
//! ├── config: WriterConfig          config.rs     clamped once in Writer::new
//! ├── history: WriterHistory        history.rs    changes by SN, KEEP_LAST/ALL, filter outcome
//! ├── readers: Readers              readers.rs    generational slab of ReaderProxy (stable
//! │                                               ReaderKeys, match order, membership count)
//! │     └── ReaderProxy             reader_proxy.rs  private fields: acked/requested sets,
//! │                                               push cursor + lazy GAP, TimerTable<ReaderTimer>,
//! │                                               multicast coverage recorded at planning
//! │           └── Flow              flow.rs       flow control: window of unacknowledged
//! │                                               bytes, ACK solicitation, recent repairs
//! ├── planner: Planner              multicast.rs  groups (derived from Readers::membership),
//! │                                               plan cursor, outbox; plan(&config, &history,
//! │                                               &readers) -> coverage, decided once
//! ├── queue: PushQueue              push_queue.rs who has work; invalidate(Input) is its only
//! │                                               invalidation; route(config, last, proxy)
//! ├── timers: TimerTable<WriterTimer> timer.rs    periodic HEARTBEAT (next_timeout)
//! ├── instances: InstanceTimers     instance.rs   DEADLINE per instance, LIFESPAN expiry
//! ├── announced: Announcements      heartbeat.rs  HEARTBEAT count, last announced SN, volume
//! ├── filtering: Option<Filtering>  content_filter.rs  FilterSet (filter_set.rs), announced
//! │                                               signatures; slots resolved in one place
//! └── counters: WriterCounters      counters.rs
//! ```
//!
//! Each ReaderProxy also holds its `Responsiveness` (`unresponsive.rs`): a reliable reader
//! with no acknowledgement progress for `unresponsive_reader_timeout` no longer bounds the
//! history (`ack_floor`). The byte limit counts each change's memory (`footprint.rs`).
//!
//! The per-change push decision is one function, `Burst::next_action` (`push.rs`,
//! unit-tested alone); `send.rs` runs it in one thin loop for a reader pushed to alone and
//! for readers sharing a datagram, then settles the burst (cursors, HEARTBEAT or backstop).
//! Per-reader control messages (repairs, lazy GAPs, owed HEARTBEATs) are `control.rs`,
//! repairs `repair.rs`, message building `message.rs`, liveliness HEARTBEATs
//! `liveliness.rs`. The inputs ACKNACK / NACK_FRAG are `acknack.rs`; the timed work of
//! `handle_timeout` (the periodic HEARTBEAT tick) is `periodic.rs`. The single-signature
//! PID_CONTENT_FILTER_INFO encoding is `ChangeFilter::info_for` in `content_filter.rs`.

mod acknack;
mod change_filter;
mod coherent;
mod config;
mod content_filter;
mod control;
mod counters;
mod filter_set;
mod flow;
mod footprint;
mod group;
mod heartbeat;
mod history;
mod inline_qos;
mod instance;
mod liveliness;
mod message;
mod multicast;
mod peer_group;
mod periodic;
mod push;
mod push_queue;
mod quiet;
mod reader_proxy;
mod readers;
mod repair;
mod send;
#[cfg(test)]
mod tests;
mod timer;
mod unresponsive;

use std::sync::Arc;

use bytes::Bytes;

pub use self::config::{MulticastConfig, MulticastMode, WriteError, WriterConfig};
use self::content_filter::Filtering;
pub use self::content_filter::{FilterUpdate, WriterFilterStats};
pub use self::counters::WriterCounters;
pub use self::filter_set::{
    DDSSQL, DEFAULT_MEMO_CAPACITY, FilterSet, FilterStats, NotFiltering, PassSet, SlotTable,
};
pub use self::footprint::{PER_CHANGE_OVERHEAD, change_footprint, request_footprint};
use self::heartbeat::Announcements;
pub use self::history::KEEP_ALL_BYTES_LIMIT;
use self::history::{AddError, WriterHistory};
use self::instance::InstanceTimers;
use self::message::MESSAGE_OVERHEAD;
use self::multicast::Planner;
pub use self::peer_group::{GroupMembership, PeerGroupWriterCounters};
use self::push_queue::{Input, PushQueue};
pub(crate) use self::quiet::QuietWriter;
use self::reader_proxy::ReaderProxy;
use self::readers::Readers;
use self::timer::{TimerTable, WriterTimer};
pub use self::unresponsive::DEFAULT_UNRESPONSIVE_READER_TIMEOUT;
use crate::core::deadline::InstanceId;
use crate::core::{
    CacheChange, ChangeKind, DeadlineMissedStatus, MAX_DATAGRAM, RemoteReader, WriteRequest,
};
use crate::qos::History;
use crate::time::{Instant, Now};
use crate::wire::{Guid, SequenceNumber};

/// The smallest `max_message_size` accepted; smaller values are raised to it.
pub const MIN_MESSAGE_SIZE: usize = 512;

/// Changes written since the last HEARTBEAT after which the next push carries one whatever
/// the heartbeat period, when RESOURCE_LIMITS.max_samples does not set a smaller step (a
/// quarter of it): acknowledgements then keep pace with the data, so a fast KEEP_ALL writer
/// frees history room in time instead of stalling for a period (Cyclone solicits
/// acknowledgements by the writer history's fill level in the same way).
pub const HEARTBEAT_VOLUME: i64 = 4096;

/// A sans-IO stateful RTPS writer. RTPS 2.5 §8.4.9.
#[derive(Debug)]
pub struct Writer {
    config: WriterConfig,
    history: WriterHistory,
    /// The matched readers, by stable key (`readers.rs`).
    readers: Readers,
    /// What the HEARTBEATs announced so far (`heartbeat.rs`).
    announced: Announcements,
    /// The writer's own timers (the periodic HEARTBEAT, `timer.rs`).
    timers: TimerTable<WriterTimer, 1>,
    /// Round-robin start for per-reader control messages (fairness).
    next_reader: usize,
    counters: WriterCounters,
    /// Per-instance DEADLINE and LIFESPAN expiry.
    instances: InstanceTimers,
    /// Content filtering (`None` without a type descriptor). `content_filter.rs`.
    filtering: Option<Filtering>,
    /// The send planner: multicast groups, planning cursor, outbox (`multicast.rs`).
    planner: Planner,
    /// Which readers have push or control work (`push_queue.rs`): keeps the drain linear.
    queue: PushQueue,
    /// The coherent set new changes belong to (`coherent.rs`).
    coherent: coherent::CoherentWrites,
    /// The writer group's position, for HEARTBEAT GroupInfo (`group.rs`).
    group: group::GroupPosition,
    /// When the last change was written: while writing continues, unsolicited HEARTBEATs
    /// to many readers are spread out (`flow::heartbeat_interval`).
    last_write: Option<Instant>,
    /// Where the next periodic HEARTBEAT tick starts among the readers (round-robin when a
    /// tick is capped, `flow::HEARTBEATS_PER_TICK`).
    heartbeat_from: usize,
    /// Peer-group caching, when the writer is a member (`peer_group.rs`).
    peer_group: peer_group::PeerGroupWriter,
}

impl Writer {
    /// A writer with an empty history. `max_message_size` is clamped to
    /// `MIN_MESSAGE_SIZE..=MAX_DATAGRAM` and `fragment_size` to `1..=65535` and so that a
    /// DATA_FRAG with its overhead fits a message.
    pub fn new(mut config: WriterConfig) -> Self {
        config.max_message_size = config
            .max_message_size
            .clamp(MIN_MESSAGE_SIZE, MAX_DATAGRAM);
        let room = config.max_message_size.saturating_sub(MESSAGE_OVERHEAD);
        config.fragment_size = config
            .fragment_size
            .clamp(1, room.min(usize::from(u16::MAX)));
        let filtering = config.descriptor.as_ref().map(|d| {
            Filtering::new(FilterSet::new(
                Arc::clone(d),
                &config.topic_name,
                DEFAULT_MEMO_CAPACITY,
            ))
        });
        let mut w = Writer {
            history: WriterHistory::new(config.history, config.resource_limits),
            instances: InstanceTimers::new(config.deadline, config.lifespan),
            config,
            readers: Readers::new(),
            announced: Announcements::new(),
            timers: TimerTable::new(),
            next_reader: 0,
            counters: WriterCounters::default(),
            filtering,
            planner: Planner::new(),
            queue: PushQueue::new(),
            coherent: coherent::CoherentWrites::default(),
            group: group::GroupPosition::default(),
            last_write: None,
            heartbeat_from: 0,
            peer_group: peer_group::PeerGroupWriter::default(),
        };
        w.resolve_filter_slots();
        w
    }

    /// The configuration in use (after clamping).
    pub fn config(&self) -> &WriterConfig {
        &self.config
    }

    /// The writer's GUID.
    pub fn guid(&self) -> Guid {
        self.config.guid
    }

    /// Counters so far.
    pub fn counters(&self) -> WriterCounters {
        self.counters
    }

    /// The highest sequence number written (0 before the first write).
    pub fn last_sn(&self) -> SequenceNumber {
        self.history.last_sn()
    }

    /// Number of changes currently stored.
    pub fn history_len(&self) -> usize {
        self.history.len()
    }

    /// Number of matched readers.
    pub fn matched_readers(&self) -> usize {
        self.readers.len()
    }

    fn reliable_reader(&self, r: &ReaderProxy) -> bool {
        self.config.reliable && r.reliable()
    }

    /// A reliable reader that may still hold the history back: not marked unresponsive
    /// (`unresponsive.rs`). The one rule both floors below apply.
    fn holds_history(&self, r: &ReaderProxy) -> bool {
        self.reliable_reader(r) && !r.responsiveness.is_unresponsive()
    }

    /// Highest SN up to which no reliable reader can still need a stored change: acknowledged,
    /// or irrelevant to it and never sent (`flow::Flow::release_floor`). What the history may
    /// drop; a request for a dropped change is answered with GAP. Unresponsive readers
    /// (`unresponsive.rs`) do not hold it back.
    fn release_floor(&self) -> SequenceNumber {
        let push = self.config.push_mode;
        self.readers
            .iter()
            .filter(|r| self.holds_history(r))
            .map(|r| {
                let released = if push {
                    r.flow().release_floor(r.gap_from())
                } else {
                    SequenceNumber(0)
                };
                r.acked().max(released)
            })
            .min()
            .unwrap_or_else(|| self.history.last_sn())
    }

    /// Highest SN every reliable reader has acknowledged (`last_sn` when there are none).
    /// Unresponsive readers (`unresponsive.rs`) do not count: they no longer hold the writer.
    fn ack_floor(&self) -> SequenceNumber {
        self.readers
            .iter()
            .filter(|r| self.holds_history(r))
            .map(ReaderProxy::acked)
            .min()
            .unwrap_or_else(|| self.history.last_sn())
    }

    /// Adds (or updates the locators and flags of) a matched reader. RTPS 2.5 §8.4.7.5,
    /// §8.4.9.2 (matched_reader_add). A reader of a TRANSIENT_LOCAL writer that wants history
    /// starts at the oldest stored change; any other starts at the next change to be written
    /// and learns so from an initial HEARTBEAT (DDS 1.4 §2.2.3.4, VOLATILE).
    pub fn matched_reader_add(&mut self, now: Now, remote: RemoteReader) {
        if let Some(r) = self
            .readers
            .find(remote.guid)
            .and_then(|k| self.readers.get_mut(k))
        {
            r.set_remote(remote);
            self.readers.changed();
            self.queue.invalidate(Input::Regrouped, &mut self.readers);
            return;
        }
        let start = if self.config.durability_transient_local && remote.wants_history {
            self.history.first_sn()
        } else {
            self.history.next_sn()
        };
        let mut proxy = ReaderProxy::new(remote, start);
        proxy.set_filter_slot(self.filter_slot_of(proxy.guid()));
        if self.config.reliable && proxy.reliable() {
            // RTPS 2.5 §8.4.9.2: announce the available range at once.
            proxy.schedule_heartbeat(now.mono);
            self.arm_heartbeat(now.mono);
        }
        let reliable = self.config.reliable && proxy.reliable();
        let key = self.readers.insert(proxy);
        if !reliable {
            self.mark_synced(key);
        }
        self.queue.invalidate(Input::Matched, &mut self.readers);
    }

    /// Sizes the datagrams for a protection transform that adds up to `per_submessage`
    /// octets to each submessage and `per_message` to each message after they are built (DDS
    /// Security 1.1 §7.3.6-7: the participant knows the governance), so that the protected
    /// datagram still fits the configured `max_message_size`; fragments shrink to match.
    /// Call it before the first write.
    pub fn set_protection_overhead(&mut self, per_submessage: usize, per_message: usize) {
        let c = &mut self.config;
        c.max_message_size = c
            .max_message_size
            .saturating_sub(per_message)
            .max(MIN_MESSAGE_SIZE);
        c.submessage_overhead = per_submessage;
        // A full fragment's DATA_FRAG and the HEARTBEAT reserved after it, both protected.
        let room = c
            .max_message_size
            .saturating_sub(MESSAGE_OVERHEAD)
            .saturating_sub(per_submessage.saturating_mul(2))
            .max(1);
        c.fragment_size = c.fragment_size.clamp(1, room.min(usize::from(u16::MAX)));
    }

    /// Forgets a matched reader (its acknowledgements no longer hold anything back).
    pub fn matched_reader_remove(&mut self, guid: Guid) {
        self.readers.remove(guid);
        self.peer_group.set_peer(guid, None, &[]);
        // The queue restarts in match order (the groups follow `Readers::membership`).
        self.queue.invalidate(Input::Unmatched, &mut self.readers);
        self.forget_reader_filter(guid);
        self.collect_garbage();
    }

    /// Adds a change to the history and returns its sequence number. `data` is the serialized
    /// sample (with encapsulation header) for ALIVE, else the serialized key (sent with the K
    /// flag, which Cyclone needs for non-fixed keys) or empty (inline KEY_HASH + STATUS_INFO
    /// only). RTPS 2.5 §8.4.7.2 (new_change).
    ///
    /// An XCDR1 serialized key of at most 16 bytes is zero-padded to [`MIN_KEY_PAYLOAD`]: Fast DDS
    /// 2.9 would take such a payload, encapsulation header included, as the instance handle
    /// instead of the inline key hash (docs/interop-facts.md §5.7); CDR readers ignore trailing
    /// zeros.
    ///
    /// KEEP_LAST replaces the instance's oldest change beyond depth; KEEP_ALL returns
    /// [`WriteError::HistoryFull`] while the limits are reached by unacknowledged changes.
    ///
    /// The change's source timestamp is the request's, else `now.wall` (the write time).
    pub fn write(&mut self, now: Now, request: WriteRequest) -> Result<SequenceNumber, WriteError> {
        let WriteRequest {
            kind,
            key_hash,
            data,
            source_timestamp,
            original_writer,
            group,
        } = request;
        let source_timestamp = source_timestamp.unwrap_or(now.wall);
        if u32::try_from(data.len()).is_err() {
            return Err(WriteError::SampleTooLarge);
        }
        let data = pad_key_payload(kind, data);
        let len = data.len();
        let floor = self.release_floor();
        let writer_guid = self.config.guid;
        // Evaluated once per change; the result rides with it. RTPS 2.5 §8.7.3.
        let filter = self.evaluate_change(kind, &data);
        let coherent = &mut self.coherent;
        let result = self
            .history
            .add(key_hash, len, floor, filter, |sn| CacheChange {
                kind,
                writer_guid,
                sequence_number: sn,
                key_hash,
                source_timestamp: Some(source_timestamp),
                coherent_set: coherent.tag(sn),
                group,
                data,
                original_writer,
            });
        let (sn, _removed) = result.map_err(|e| match e {
            AddError::Full => WriteError::HistoryFull,
            AddError::TooManyInstances => WriteError::TooManyInstances,
            AddError::SequenceExhausted => WriteError::SequenceNumbersExhausted,
        })?;
        self.announced.written(len);
        self.last_write = Some(now.mono);
        // Evicted changes need no bookkeeping: readers that still need them get a GAP when
        // the push cursor or a NACK reaches them.
        if self.readers.iter().any(|r| self.reliable_reader(r)) {
            self.arm_heartbeat(now.mono);
        }
        self.queue.invalidate(Input::Written, &mut self.readers);
        // The end-of-set marker (`coherent.rs`) is no instance's change.
        if !(kind == ChangeKind::Alive && len == 0) {
            self.on_written(now, kind, key_hash, sn);
        }
        self.collect_garbage();
        Ok(sn)
    }

    /// The earliest time [`Writer::handle_timeout`] or [`Writer::poll_transmit`] has timed
    /// work to do.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.readers
            .iter()
            .filter_map(ReaderProxy::deadline)
            .chain(self.timers.next_timeout())
            .chain(self.instances.next_timeout())
            .min()
    }

    /// Bookkeeping after a change was added: its instance's deadline and its lifespan.
    fn on_written(
        &mut self,
        now: Now,
        kind: ChangeKind,
        key: Option<[u8; 16]>,
        sn: SequenceNumber,
    ) {
        self.instances.written(&self.history, now, kind, key, sn);
    }

    /// Removes expired changes from the history (an expired change is never sent: GAP
    /// instead). DDS 1.4 §2.2.3.16.
    fn expire_lifespan(&mut self, now: Now) {
        let removed = self.instances.expire(&mut self.history, now);
        let c = &mut self.counters;
        c.changes_expired = c.changes_expired.saturating_add(removed);
        // Readers that lack the removed changes learn so from the next HEARTBEAT.
        if removed > 0 && self.readers.iter().any(|r| self.reliable_reader(r)) {
            self.arm_heartbeat(now.mono);
        }
    }

    /// The next instance that missed its offered deadline (`Some(None)`: keyless topic).
    pub fn poll_deadline_missed(&mut self) -> Option<InstanceId> {
        self.instances.poll_missed()
    }

    /// OFFERED_DEADLINE_MISSED status. DDS 1.4 §2.2.4.1.
    pub fn deadline_status(&self) -> DeadlineMissedStatus {
        self.instances.status()
    }

    /// True if every reliable reader has acknowledged `sn` (true with no reliable readers).
    /// DDS 1.4 §2.2.2.4.2.22 (wait_for_acknowledgments), RTPS 2.5 §8.4.7.2 (is_acked_by_all).
    pub fn is_acked_by_all(&self, sn: SequenceNumber) -> bool {
        sn <= self.ack_floor()
    }

    /// Lower bounds on how many more changes, and payload bytes in all, [`Self::write`]
    /// accepts before it would return [`WriteError::HistoryFull`] (lets the API hand writes
    /// over without waiting).
    pub fn room(&self) -> (usize, usize) {
        self.history.room(self.release_floor())
    }

    /// True if every reliable reader has acknowledged every change written so far.
    pub fn all_acked(&self) -> bool {
        self.is_acked_by_all(self.history.last_sn())
    }

    /// The payloads of changes removed since the last call, to drop off the loop thread.
    pub fn take_released(&mut self) -> Vec<Bytes> {
        self.history.take_released()
    }

    /// A VOLATILE KEEP_ALL writer drops changes every reader is done with (nobody can ask).
    fn collect_garbage(&mut self) {
        if self.config.durability_transient_local || self.config.history != History::KeepAll {
            return;
        }
        let best_effort_floor = self
            .readers
            .iter()
            .filter(|r| !self.reliable_reader(r))
            .map(|r| r.next_unsent().checked_sub(1).unwrap_or(SequenceNumber(0)))
            .min();
        let floor = match best_effort_floor {
            Some(b) => b.min(self.release_floor()),
            None => self.release_floor(),
        };
        self.history.remove_through(floor);
    }
}

/// The smallest serialized key our writer sends (see [`Writer::write`]).
pub const MIN_KEY_PAYLOAD: usize = 20;

/// Zero-pads a non-empty XCDR1 serialized key (CDR_BE/CDR_LE) shorter than
/// [`MIN_KEY_PAYLOAD`] (docs/interop-facts.md §5.7). An XCDR2 key is sent as the type wrote it:
/// its options already count its padding, and Fast DDS 2.9, whose habit the padding is for,
/// reads XCDR1 only (§5.10).
fn pad_key_payload(kind: ChangeKind, data: Bytes) -> Bytes {
    let xcdr1 = matches!(data.get(..2), Some([0, 0] | [0, 1]));
    if kind == ChangeKind::Alive || !xcdr1 || data.len() >= MIN_KEY_PAYLOAD {
        return data;
    }
    let mut v = data.to_vec();
    v.resize(MIN_KEY_PAYLOAD, 0);
    Bytes::from(v)
}
