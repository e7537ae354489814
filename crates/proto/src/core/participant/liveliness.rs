//! The Writer Liveliness Protocol (WLP) and the LIVELINESS QoS: the ParticipantMessageData
//! carried by the builtin participant-message writer and reader, the AUTOMATIC update
//! schedule, manual assertions, and the liveliness of local and remote writers.
//!
//! Must not: perform I/O or read clocks (time arrives as `now`); let a ParticipantMessageData
//! assert writers of a participant other than the one that sent it; keep state a peer can grow
//! beyond the remote writers SEDP already caps (`ParticipantConfig::max_remote_endpoints`).
//!
//! RTPS 2.5 §8.4.13 (Writer Liveliness Protocol), §9.6.2.1 (ParticipantMessageData),
//! §8.3.7.5 (HEARTBEAT liveliness flag); DDS 1.4 §2.2.3.11 (LIVELINESS), §2.2.4.1
//! (LIVELINESS_LOST, LIVELINESS_CHANGED).
//!
//! # Overview
//! - The state is [`Liveliness`], a part of the participant: it decides, the participant
//!   writes the updates it returns and hands it the WLP samples received.
//! - The endpoints (ENTITYID_P2P_BUILTIN_PARTICIPANT_MESSAGE_WRITER/READER) live with the SEDP
//!   ones in `sedp.rs` (`Builtin::wlp_writer`/`wlp_reader`): reliable, keyed, the writer
//!   TRANSIENT_LOCAL KEEP_LAST(1) per instance, so a late joiner gets our last update of each
//!   kind. They are matched when the peer's BuiltinEndpointSet has bits 10/11.
//! - Sending: one AUTOMATIC update when the participant starts, then every half of the
//!   smallest finite AUTOMATIC lease among our writers (none while there is no such writer);
//!   a MANUAL update on `Participant::assert_liveliness`. A MANUAL_BY_TOPIC writer asserts
//!   itself with a HEARTBEAT carrying the L flag (`Participant::assert_writer_liveliness`);
//!   writes assert the writer that wrote.
//! - Local writers with a MANUAL_* kind and a finite lease report
//!   [`Event::LivelinessLost`] once per lapse (DDS 1.4 §2.2.4.1 LIVELINESS_LOST).
//! - Remote writers matched with one of our readers and announcing a finite lease are tracked:
//!   any message from their participant asserts AUTOMATIC writers (the participant is alive);
//!   a WLP MANUAL update also asserts MANUAL_BY_PARTICIPANT writers; DATA, DATA_FRAG and a
//!   HEARTBEAT with the L flag from the writer itself assert it whatever its kind. A writer not
//!   asserted within its lease is not alive; [`Event::LivelinessChanged`] reports each change to
//!   every matched reader (and the state at match time). The participant's SPDP lease still
//!   removes all its writers when it expires (`discovery.rs`).
//! - Each of our readers has a LIVELINESS_CHANGED status ([`LivelinessChangedStatus`]): its
//!   matched writers alive and not (an infinite lease is alive while matched), counted when
//!   asked, and the changes (a writer matched, unmatched, lost, regained) counted as they
//!   happen, with the writer of the last one and the counts when the status was last read.

use std::collections::BTreeMap;

use super::discovery::Discovery;
use super::endpoints::Endpoints;
use super::{EventQueue, ParticipantStats};
pub use crate::core::discovery::{
    AUTOMATIC_LIVELINESS_UPDATE, MANUAL_LIVELINESS_UPDATE, MAX_PARTICIPANT_MESSAGE_DATA,
    ParticipantMessageData,
};
use crate::core::{CacheChange, ChangeKind, Event};
use crate::qos::{Liveliness as LivelinessQos, LivelinessKind};
use crate::time::{Instant, Now};
use crate::wire::submessage::Submessage;
use crate::wire::{Guid, GuidPrefix};

/// Shortest period of our AUTOMATIC updates, however short a writer's lease.
pub const MIN_AUTOMATIC_PERIOD: core::time::Duration = core::time::Duration::from_millis(10);

/// Our AUTOMATIC update period for a lease: half of it (so one lost update is not yet a
/// lapse), at least [`MIN_AUTOMATIC_PERIOD`]. RTPS 2.5 §8.4.13.5 only asks for "faster than
/// the lease"; Cyclone uses lease − 0.2 s, Fast DDS the writer's announcement_period.
fn automatic_period(lease: core::time::Duration) -> core::time::Duration {
    lease
        .checked_div(2)
        .unwrap_or(lease)
        .max(MIN_AUTOMATIC_PERIOD)
}

/// Liveliness of one writer (local or remote) with a finite lease.
#[derive(Copy, Clone, Debug)]
struct Tracked {
    kind: LivelinessKind,
    lease: core::time::Duration,
    last_asserted: Instant,
    /// Remote: alive as last reported. Local: not lost.
    alive: bool,
}

impl Tracked {
    fn expires(&self) -> Instant {
        self.last_asserted.saturating_add(self.lease)
    }
}

/// LIVELINESS_CHANGED of one of our readers: how many of its matched writers are alive and
/// not, the change of each since the status was last taken, and the writer of the last
/// change. A writer with an infinite lease is alive while matched. DDS 1.4 §2.2.4.1.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LivelinessChangedStatus {
    /// Matched writers alive now.
    pub alive_count: u32,
    /// Matched writers whose lease lapsed (matched, not asserted since).
    pub not_alive_count: u32,
    /// `alive_count` minus its value when the status was last taken.
    pub alive_count_change: i32,
    /// `not_alive_count` minus its value when the status was last taken.
    pub not_alive_count_change: i32,
    /// The writer of the last change (`None` before the first).
    pub last_publication_handle: Option<Guid>,
    /// Changes so far (a writer matched or unmatched, lost or regained its liveliness),
    /// whether or not the counts moved: what a StatusCondition compares.
    pub total_changes: u64,
}

/// What the LIVELINESS_CHANGED status of one reader remembers between changes.
#[derive(Copy, Clone, Debug, Default)]
struct ReaderLiveliness {
    total_changes: u64,
    last_writer: Option<Guid>,
    /// (alive, not alive) when the status was last taken.
    taken: (u32, u32),
}

/// The participant's liveliness bookkeeping (see the module overview).
#[derive(Debug, Default)]
pub(super) struct Liveliness {
    initial_sent: bool,
    next_automatic: Option<Instant>,
    /// Our writers with a finite lease, by entity id.
    local: BTreeMap<crate::wire::EntityId, Tracked>,
    /// Remote writers with a finite lease matched with at least one of our readers.
    remote: BTreeMap<Guid, Tracked>,
    /// Our readers that saw a liveliness change (bounded by our readers: an entry goes with
    /// its reader, [`Liveliness::forget_reader`]).
    readers: BTreeMap<Guid, ReaderLiveliness>,
}

impl Liveliness {
    /// Our AUTOMATIC update period: half the smallest finite AUTOMATIC lease.
    fn automatic_period(&self) -> Option<core::time::Duration> {
        self.local
            .values()
            .filter(|t| t.kind == LivelinessKind::Automatic)
            .map(|t| automatic_period(t.lease))
            .min()
    }

    /// The earliest liveliness deadline (update to send or lease to check).
    pub(super) fn poll_timeout(&self) -> Option<Instant> {
        let local = self
            .local
            .values()
            .filter(|t| t.alive && t.kind != LivelinessKind::Automatic)
            .map(Tracked::expires);
        let remote = self
            .remote
            .values()
            .filter(|t| t.alive)
            .map(Tracked::expires);
        local.chain(remote).chain(self.next_automatic).min()
    }

    /// `Participant::assert_liveliness`: asserts every MANUAL_BY_PARTICIPANT writer; the
    /// caller sends the WLP MANUAL update.
    /// RTPS 2.5 §8.4.13.5.
    pub(super) fn assert_participant(&mut self, now: Now) {
        for t in self.local.values_mut() {
            if t.kind == LivelinessKind::ManualByParticipant {
                t.last_asserted = now.mono;
                t.alive = true;
            }
        }
    }

    /// Starts tracking a new local writer's liveliness (`q`: its LIVELINESS QoS).
    pub(super) fn writer_created(&mut self, now: Now, writer: Guid, q: LivelinessQos) {
        let Some(lease) = q.lease_duration.to_std() else {
            return;
        };
        let t = Tracked {
            kind: q.kind,
            lease,
            last_asserted: now.mono,
            alive: true,
        };
        self.local.insert(writer.entity_id, t);
        if q.kind == LivelinessKind::Automatic {
            // The new lease may be the shortest: the next update is due within its period.
            let period = automatic_period(lease);
            let at = now.mono.saturating_add(period);
            self.next_automatic = Some(self.next_automatic.map_or(at, |n| n.min(at)));
        }
    }

    /// A write (or assertion) on a local writer asserts it. DDS 1.4 §2.2.3.11.
    pub(super) fn writer_wrote(&mut self, now: Now, writer: Guid) {
        if let Some(t) = self.local.get_mut(&writer.entity_id) {
            t.last_asserted = now.mono;
            t.alive = true;
        }
    }

    /// A local reader matched (or unmatched) a remote writer: start (or stop) tracking it and
    /// report its current liveliness to that reader.
    pub(super) fn reader_matched(
        &mut self,
        now: Now,
        (writer, reader, matched): (Guid, Guid, bool),
        discovery: &Discovery,
        endpoints: &Endpoints,
        events: &mut EventQueue,
    ) {
        // A writer matched or unmatched moves one of the reader's counts.
        count_change(&mut self.readers, reader, writer);
        if !matched {
            if !endpoints.any_reader_of(writer) {
                self.remote.remove(&writer);
            }
            return;
        }
        let Some(remote) = discovery.remote_writer(writer) else {
            return;
        };
        let q = remote.qos.liveliness;
        // An infinite lease never lapses: nothing to track or report.
        let Some(lease) = q.lease_duration.to_std() else {
            return;
        };
        let t = Tracked {
            kind: q.kind,
            lease,
            last_asserted: now.mono,
            alive: true,
        };
        let alive = self.remote.entry(writer).or_insert(t).alive;
        events.push(Event::LivelinessChanged {
            reader,
            writer,
            alive,
        });
    }

    /// A remote writer is gone (unmatched everywhere or its participant lost): each of
    /// `readers`, which were matched with it, counts a change.
    pub(super) fn forget_remote(&mut self, writer: Guid, readers: &[Guid]) {
        self.remote.remove(&writer);
        for reader in readers {
            count_change(&mut self.readers, *reader, writer);
        }
    }

    /// Our reader `reader` is deleted.
    pub(super) fn forget_reader(&mut self, reader: Guid) {
        self.readers.remove(&reader);
    }

    /// How many of our readers the LIVELINESS_CHANGED bookkeeping holds.
    #[cfg(test)]
    pub(super) fn tracked_readers(&self) -> usize {
        self.readers.len()
    }

    /// The LIVELINESS_CHANGED status of `reader`, whose matched writers are `matched`, its
    /// change counts relative to the last [`Liveliness::status_taken`]. DDS 1.4 §2.2.4.1.
    pub(super) fn reader_status(
        &self,
        reader: Guid,
        matched: impl Iterator<Item = Guid>,
    ) -> LivelinessChangedStatus {
        let (mut alive, mut not_alive) = (0u32, 0u32);
        for writer in matched {
            // Untracked: an infinite lease, alive while matched.
            match self.remote.get(&writer).is_none_or(|t| t.alive) {
                true => alive = alive.saturating_add(1),
                false => not_alive = not_alive.saturating_add(1),
            }
        }
        let r = self.readers.get(&reader).copied().unwrap_or_default();
        let change = |now: u32, then: u32| {
            let d = i64::from(now).saturating_sub(i64::from(then));
            i32::try_from(d).unwrap_or(if d < 0 { i32::MIN } else { i32::MAX })
        };
        LivelinessChangedStatus {
            alive_count: alive,
            not_alive_count: not_alive,
            alive_count_change: change(alive, r.taken.0),
            not_alive_count_change: change(not_alive, r.taken.1),
            last_publication_handle: r.last_writer,
            total_changes: r.total_changes,
        }
    }

    /// The application read `status` of `reader`: its counts become the base of the next
    /// change counts (DDS 1.4 §2.2.4.1: reading a status resets its changes).
    pub(super) fn status_taken(&mut self, reader: Guid, status: &LivelinessChangedStatus) {
        if let Some(r) = self.readers.get_mut(&reader) {
            r.taken = (status.alive_count, status.not_alive_count);
        }
    }

    /// Received submessages from `src`: the participant is alive, which asserts its AUTOMATIC
    /// writers. Called once per datagram and source (the same `now` for all its submessages).
    /// RTPS 2.5 §8.4.13.
    pub(super) fn heard_from(
        &mut self,
        now: Now,
        src: GuidPrefix,
        endpoints: &Endpoints,
        events: &mut EventQueue,
    ) {
        if self.remote.is_empty() {
            return;
        }
        self.assert_remote(
            now,
            src,
            |k| k == LivelinessKind::Automatic,
            endpoints,
            events,
        );
    }

    /// Every received DATA, DATA_FRAG or HEARTBEAT with the L flag from `src` asserts its
    /// writer. RTPS 2.5 §8.4.13, §8.3.7.5.
    pub(super) fn on_submessage(
        &mut self,
        now: Now,
        (src, sm): (GuidPrefix, &Submessage<'_>),
        endpoints: &Endpoints,
        events: &mut EventQueue,
    ) {
        if self.remote.is_empty() {
            return;
        }
        let writer = match sm {
            Submessage::Data(d) => d.writer_id,
            Submessage::DataFrag(d) => d.writer_id,
            Submessage::Heartbeat(h) if h.liveliness => h.writer_id,
            _ => return,
        };
        let guid = Guid::new(src, writer);
        if let Some(t) = self.remote.get_mut(&guid) {
            t.last_asserted = now.mono;
            if !t.alive {
                t.alive = true;
                report_remote(guid, true, (endpoints, &mut self.readers), events);
            }
        }
    }

    /// One sample of the WLP reader: a ParticipantMessageData asserts its sender's writers.
    /// RTPS 2.5 §8.4.13.5.
    pub(super) fn handle_wlp(
        &mut self,
        now: Now,
        change: &CacheChange,
        (endpoints, events, stats): (&Endpoints, &mut EventQueue, &mut ParticipantStats),
    ) {
        if change.kind != ChangeKind::Alive {
            return;
        }
        let src = change.writer_guid.prefix;
        match ParticipantMessageData::from_payload(&change.data) {
            // Only a participant's own messages count (no relaying of others' liveliness).
            Ok(m) if m.participant_guid_prefix == src => {
                if m.kind == MANUAL_LIVELINESS_UPDATE {
                    let manual = |k| k <= LivelinessKind::ManualByParticipant;
                    self.assert_remote(now, src, manual, endpoints, events);
                } else {
                    // AUTOMATIC, or a vendor kind: the participant is alive.
                    let automatic = |k| k == LivelinessKind::Automatic;
                    self.assert_remote(now, src, automatic, endpoints, events);
                }
            }
            Ok(_) => {}
            Err(e) => {
                log::debug!("bad ParticipantMessageData from {src}: {e}");
                stats.bad_discovery_data = stats.bad_discovery_data.saturating_add(1);
            }
        }
    }

    /// What the schedule owes and the lease checks: returns the WLP updates to write (with
    /// our prefix `ours`). Called from `Participant::handle_timeout`.
    pub(super) fn handle_timeout(
        &mut self,
        now: Now,
        ours: GuidPrefix,
        endpoints: &Endpoints,
        events: &mut EventQueue,
    ) -> Vec<ParticipantMessageData> {
        let mut out = Vec::new();
        if !self.initial_sent {
            self.initial_sent = true;
            out.push(ParticipantMessageData::automatic(ours));
        }
        // Deleted writers leave the schedule and the lease checks.
        self.local.retain(|id, _| endpoints.has_writer(*id));
        if self.next_automatic.is_some_and(|t| t <= now.mono) {
            out.push(ParticipantMessageData::automatic(ours));
            let period = self.automatic_period();
            self.next_automatic = period.map(|p| now.mono.saturating_add(p));
        }
        for (id, t) in self.local.iter_mut() {
            if t.alive && t.kind != LivelinessKind::Automatic && t.expires() <= now.mono {
                t.alive = false;
                events.push(Event::LivelinessLost {
                    writer: Guid::new(ours, *id),
                });
            }
        }
        for (guid, t) in self.remote.iter_mut() {
            if t.alive && t.expires() <= now.mono {
                t.alive = false;
                report_remote(*guid, false, (endpoints, &mut self.readers), events);
            }
        }
        out
    }

    /// Asserts the tracked writers of participant `src` whose kind passes `which`.
    fn assert_remote(
        &mut self,
        now: Now,
        src: GuidPrefix,
        which: impl Fn(LivelinessKind) -> bool,
        endpoints: &Endpoints,
        events: &mut EventQueue,
    ) {
        let lo = Guid::new(src, crate::wire::EntityId([0; 4]));
        let hi = Guid::new(src, crate::wire::EntityId([0xff; 4]));
        for (guid, t) in self.remote.range_mut(lo..=hi) {
            if which(t.kind) {
                t.last_asserted = now.mono;
                if !t.alive {
                    t.alive = true;
                    report_remote(*guid, true, (endpoints, &mut self.readers), events);
                }
            }
        }
    }
}

/// One LivelinessChanged per local reader matched with `writer`, each counted in `readers`.
fn report_remote(
    writer: Guid,
    alive: bool,
    (endpoints, readers): (&Endpoints, &mut BTreeMap<Guid, ReaderLiveliness>),
    events: &mut EventQueue,
) {
    for reader in endpoints.readers_of(writer) {
        count_change(readers, reader, writer);
        events.push(Event::LivelinessChanged {
            reader,
            writer,
            alive,
        });
    }
}

/// Counts a liveliness change of `writer` for our reader `reader`.
fn count_change(readers: &mut BTreeMap<Guid, ReaderLiveliness>, reader: Guid, writer: Guid) {
    let r = readers.entry(reader).or_default();
    r.total_changes = r.total_changes.saturating_add(1);
    r.last_writer = Some(writer);
}
