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
//! - The endpoints (ENTITYID_P2P_BUILTIN_PARTICIPANT_MESSAGE_WRITER/READER) live with the SEDP
//!   ones in `sedp.rs` (`Builtin::wlp_writer`/`wlp_reader`): reliable, keyed, the writer
//!   TRANSIENT_LOCAL KEEP_LAST(1) per instance, so a late joiner gets our last update of each
//!   kind. They are matched when the peer's BuiltinEndpointSet has bits 10/11.
//! - Sending: one AUTOMATIC update when the participant starts, then every half of the
//!   smallest finite AUTOMATIC lease among our writers (none while there is no such writer);
//!   a MANUAL update on [`Participant::assert_liveliness`]. A MANUAL_BY_TOPIC writer asserts
//!   itself with a HEARTBEAT carrying the L flag ([`Participant::assert_writer_liveliness`]);
//!   writes assert the writer that wrote.
//! - Local writers with a MANUAL_* kind and a finite lease report
//!   [`Event::LivelinessLost`] once per lapse (DDS 1.4 §2.2.4.1 LIVELINESS_LOST).
//! - Remote writers matched with one of our readers and announcing a finite lease are tracked:
//!   any message from their participant asserts AUTOMATIC writers (the participant is alive);
//!   a WLP MANUAL update also asserts MANUAL_BY_PARTICIPANT writers; DATA, DATA_FRAG and a
//!   HEARTBEAT with the L flag from the writer itself assert it whatever its kind. A writer not
//!   asserted within its lease is not alive; [`Event::LivelinessChanged`] reports each change to
//!   every matched reader (and the state at match time). The participant's SPDP lease still
//!   removes all its writers when it expires (`spdp.rs`).

use std::collections::BTreeMap;

use bytes::Bytes;

use super::Participant;
use crate::cdr::{CdrError, EncapsulationHeader, EncapsulationKind, Endianness, Reader, Writer};
use crate::core::{ChangeKind, Event, WriteRequest};
use crate::qos::LivelinessKind;
use crate::time::{Instant, Now};
use crate::wire::submessage::Submessage;
use crate::wire::{Guid, GuidPrefix};

/// PARTICIPANT_MESSAGE_DATA_KIND_AUTOMATIC_LIVELINESS_UPDATE. RTPS 2.5 §9.6.2.1.
pub const AUTOMATIC_LIVELINESS_UPDATE: [u8; 4] = [0, 0, 0, 1];
/// PARTICIPANT_MESSAGE_DATA_KIND_MANUAL_LIVELINESS_UPDATE. RTPS 2.5 §9.6.2.1.
pub const MANUAL_LIVELINESS_UPDATE: [u8; 4] = [0, 0, 0, 2];
/// Largest `data` octet sequence accepted in a received ParticipantMessageData.
pub const MAX_PARTICIPANT_MESSAGE_DATA: usize = 4096;
/// Shortest period of our AUTOMATIC updates, however short a writer's lease.
pub const MIN_AUTOMATIC_PERIOD: core::time::Duration = core::time::Duration::from_millis(10);

/// ParticipantMessageData, the sample type of the WLP endpoints. RTPS 2.5 §9.6.2.1: key
/// `{participantGuidPrefix, kind}`, then `sequence<octet> data`.
///
/// # Wire layout (observed)
/// Cyclone DDS 0.10 (`tests/data/captures/*-to-*.pcapng`, DATA from 000200c2): encapsulation
/// CDR_LE `00 01 00 00`, the 12-octet prefix, kind `00 00 00 01` (octets, not an integer),
/// sequence length 1 (little-endian), one octet `00`, three octets of padding to a multiple of
/// 4 (Cyclone's decoder requires it): 28 octets, no inline QoS. Fast DDS 2.9
/// (`WLP::send_liveliness_message`) labels the same plain-CDR body PL_CDR_LE (`00 03 00 00`),
/// sends an empty sequence plus four zero octets, and an inline PID_KEY_HASH.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParticipantMessageData {
    /// The participant whose liveliness this asserts.
    pub participant_guid_prefix: GuidPrefix,
    /// [`AUTOMATIC_LIVELINESS_UPDATE`], [`MANUAL_LIVELINESS_UPDATE`] or a vendor kind.
    pub kind: [u8; 4],
    /// Opaque data (we send one zero octet, as Cyclone does).
    pub data: Vec<u8>,
}

impl ParticipantMessageData {
    /// An AUTOMATIC_LIVELINESS_UPDATE from `prefix`.
    pub fn automatic(prefix: GuidPrefix) -> Self {
        ParticipantMessageData {
            participant_guid_prefix: prefix,
            kind: AUTOMATIC_LIVELINESS_UPDATE,
            data: vec![0],
        }
    }

    /// A MANUAL_LIVELINESS_UPDATE from `prefix`.
    pub fn manual(prefix: GuidPrefix) -> Self {
        ParticipantMessageData {
            kind: MANUAL_LIVELINESS_UPDATE,
            ..Self::automatic(prefix)
        }
    }

    /// The instance key hash: the key `{prefix, kind}` serialized big-endian is exactly 16
    /// octets, so it is the hash itself (RTPS 2.5 §9.6.4.8; Fast DDS builds the same handle).
    pub fn key_hash(&self) -> [u8; 16] {
        let mut k = [0u8; 16];
        let (p, kind) = k.split_at_mut(12);
        p.copy_from_slice(&self.participant_guid_prefix.0);
        kind.copy_from_slice(&self.kind);
        k
    }

    /// The serialized payload: CDR encapsulation header and body, padded to a multiple of 4.
    pub fn to_payload(&self, endian: Endianness) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.data.len().saturating_add(28));
        let mut w = Writer::new(&mut out, endian);
        EncapsulationHeader::new(EncapsulationKind::Cdr, endian).emit(&mut w);
        let mut body = w.nested();
        body.bytes(&self.participant_guid_prefix.0);
        body.bytes(&self.kind);
        body.u32(u32::try_from(self.data.len()).unwrap_or(u32::MAX));
        body.bytes(&self.data);
        body.align(4);
        out
    }

    /// Decodes a received payload. Plain CDR in either byte order; PL_CDR_* is accepted as
    /// plain CDR (Fast DDS 2.9 quirk, see the type's documentation). Trailing octets (padding)
    /// are ignored.
    pub fn from_payload(payload: &[u8]) -> Result<Self, CdrError> {
        let mut r = Reader::new(payload, Endianness::Big);
        let header = EncapsulationHeader::parse(&mut r)?;
        if !matches!(
            header.kind,
            EncapsulationKind::Cdr | EncapsulationKind::PlCdr
        ) {
            return Err(CdrError::Invalid("ParticipantMessageData encapsulation"));
        }
        let mut r = Reader::new(r.rest(), header.endian);
        let participant_guid_prefix = GuidPrefix(r.take_array::<12>("participantGuidPrefix")?);
        let kind = r.take_array::<4>("ParticipantMessageData.kind")?;
        let len = r.seq_len(1, "ParticipantMessageData.data")?;
        if len > MAX_PARTICIPANT_MESSAGE_DATA {
            return Err(CdrError::TooLarge("ParticipantMessageData.data"));
        }
        let data = r.take(len, "ParticipantMessageData.data")?.to_vec();
        Ok(ParticipantMessageData {
            participant_guid_prefix,
            kind,
            data,
        })
    }
}

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

/// The participant's liveliness bookkeeping (see the module overview).
#[derive(Debug, Default)]
pub(super) struct LivelinessState {
    initial_sent: bool,
    next_automatic: Option<Instant>,
    /// Our writers with a finite lease, by entity id.
    local: BTreeMap<crate::wire::EntityId, Tracked>,
    /// Remote writers with a finite lease matched with at least one of our readers.
    remote: BTreeMap<Guid, Tracked>,
}

impl LivelinessState {
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
}

impl Participant {
    /// Asserts the liveliness of every MANUAL_BY_PARTICIPANT writer of this participant and
    /// sends a WLP MANUAL_LIVELINESS_UPDATE. DDS 1.4 §2.2.2.2.1.27 (assert_liveliness);
    /// RTPS 2.5 §8.4.13.5.
    pub fn assert_liveliness(&mut self, now: Now) {
        self.start(now);
        for t in self.liveliness.local.values_mut() {
            if t.kind == LivelinessKind::ManualByParticipant {
                t.last_asserted = now.mono;
                t.alive = true;
            }
        }
        self.write_wlp(now, ParticipantMessageData::manual(self.config.guid_prefix));
    }

    /// Asserts one writer's liveliness (DataWriter::assert_liveliness, DDS 1.4 §2.2.2.4.2.22):
    /// MANUAL_BY_TOPIC sends a HEARTBEAT with the L flag to its readers, MANUAL_BY_PARTICIPANT
    /// asserts the participant, AUTOMATIC needs nothing. False for an unknown writer.
    pub fn assert_writer_liveliness(&mut self, now: Now, writer: Guid) -> bool {
        let Some(w) = self.writers.get_mut(&writer.entity_id) else {
            return false;
        };
        match w.spec.qos.liveliness.kind {
            LivelinessKind::Automatic => {}
            LivelinessKind::ManualByParticipant => self.assert_liveliness(now),
            LivelinessKind::ManualByTopic => {
                if let Some(t) = w.writer.liveliness_heartbeat() {
                    self.pending.push_back(t);
                }
                self.liveliness_writer_wrote(now, writer);
            }
        }
        true
    }

    /// Starts tracking a new local writer's liveliness (called by `create_writer`).
    pub(super) fn liveliness_writer_created(&mut self, now: Now, writer: Guid) {
        let Some(w) = self.writers.get(&writer.entity_id) else {
            return;
        };
        let q = w.spec.qos.liveliness;
        let Some(lease) = q.lease_duration.to_std() else {
            return;
        };
        let t = Tracked {
            kind: q.kind,
            lease,
            last_asserted: now.mono,
            alive: true,
        };
        self.liveliness.local.insert(writer.entity_id, t);
        if q.kind == LivelinessKind::Automatic {
            // The new lease may be the shortest: the next update is due within its period.
            let period = automatic_period(lease);
            let at = now.mono.saturating_add(period);
            self.liveliness.next_automatic =
                Some(self.liveliness.next_automatic.map_or(at, |n| n.min(at)));
        }
    }

    /// A write (or assertion) on a local writer asserts it. DDS 1.4 §2.2.3.11.
    pub(super) fn liveliness_writer_wrote(&mut self, now: Now, writer: Guid) {
        if let Some(t) = self.liveliness.local.get_mut(&writer.entity_id) {
            t.last_asserted = now.mono;
            t.alive = true;
        }
    }

    /// A local reader matched (or unmatched) a remote writer: start (or stop) tracking it and
    /// report its current liveliness to that reader.
    pub(super) fn liveliness_reader_matched(
        &mut self,
        now: Now,
        writer: Guid,
        reader: Guid,
        matched: bool,
    ) {
        if !matched {
            if !self.readers.values().any(|r| r.reader.is_matched(writer)) {
                self.liveliness.remote.remove(&writer);
            }
            return;
        }
        let Some(remote) = self.remote_writers.get(&writer) else {
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
        let alive = self.liveliness.remote.entry(writer).or_insert(t).alive;
        self.push_event(Event::LivelinessChanged {
            reader,
            writer,
            alive,
        });
    }

    /// A remote writer is gone (unmatched everywhere or its participant lost).
    pub(super) fn liveliness_forget_remote(&mut self, writer: Guid) {
        self.liveliness.remote.remove(&writer);
    }

    /// Received submessages from `src`: the participant is alive, which asserts its AUTOMATIC
    /// writers. Called once per datagram and source (the same `now` for all its submessages).
    /// RTPS 2.5 §8.4.13.
    pub(super) fn liveliness_from_participant(&mut self, now: Now, src: GuidPrefix) {
        if self.liveliness.remote.is_empty() {
            return;
        }
        self.assert_remote(now, src, |k| k == LivelinessKind::Automatic);
    }

    /// Every received DATA, DATA_FRAG or HEARTBEAT with the L flag from `src` asserts its
    /// writer. RTPS 2.5 §8.4.13, §8.3.7.5.
    pub(super) fn liveliness_on_submessage(
        &mut self,
        now: Now,
        src: GuidPrefix,
        sm: &Submessage<'_>,
    ) {
        if self.liveliness.remote.is_empty() {
            return;
        }
        let writer = match sm {
            Submessage::Data(d) => d.writer_id,
            Submessage::DataFrag(d) => d.writer_id,
            Submessage::Heartbeat(h) if h.liveliness => h.writer_id,
            _ => return,
        };
        let guid = Guid::new(src, writer);
        if let Some(t) = self.liveliness.remote.get_mut(&guid) {
            t.last_asserted = now.mono;
            if !t.alive {
                t.alive = true;
                self.report_remote(guid, true);
            }
        }
    }

    /// Drains the WLP reader: each ParticipantMessageData asserts its sender's writers.
    /// RTPS 2.5 §8.4.13.5.
    pub(super) fn process_liveliness(&mut self, now: Now) {
        while let Some(change) = self.builtin.wlp_reader.poll_sample() {
            if change.kind != ChangeKind::Alive {
                continue;
            }
            let src = change.writer_guid.prefix;
            match ParticipantMessageData::from_payload(&change.data) {
                // Only a participant's own messages count (no relaying of others' liveliness).
                Ok(m) if m.participant_guid_prefix == src => {
                    if m.kind == MANUAL_LIVELINESS_UPDATE {
                        self.assert_remote(now, src, |k| k <= LivelinessKind::ManualByParticipant);
                    } else {
                        // AUTOMATIC, or a vendor kind: the participant is alive.
                        self.assert_remote(now, src, |k| k == LivelinessKind::Automatic);
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    log::debug!("bad ParticipantMessageData from {src}: {e}");
                    self.stats.bad_discovery_data = self.stats.bad_discovery_data.saturating_add(1);
                }
            }
        }
    }

    /// Sends what the schedule owes and checks leases. Called from `handle_timeout`.
    pub(super) fn liveliness_timeout(&mut self, now: Now) {
        let prefix = self.config.guid_prefix;
        if !self.liveliness.initial_sent {
            self.liveliness.initial_sent = true;
            self.write_wlp(now, ParticipantMessageData::automatic(prefix));
        }
        // Deleted writers leave the schedule and the lease checks.
        let writers = &self.writers;
        self.liveliness
            .local
            .retain(|id, _| writers.contains_key(id));
        if self
            .liveliness
            .next_automatic
            .is_some_and(|t| t <= now.mono)
        {
            self.write_wlp(now, ParticipantMessageData::automatic(prefix));
            let period = self.liveliness.automatic_period();
            self.liveliness.next_automatic = period.map(|p| now.mono.saturating_add(p));
        }
        let mut lost = Vec::new();
        for (id, t) in self.liveliness.local.iter_mut() {
            if t.alive && t.kind != LivelinessKind::Automatic && t.expires() <= now.mono {
                t.alive = false;
                lost.push(Guid::new(prefix, *id));
            }
        }
        for writer in lost {
            self.push_event(Event::LivelinessLost { writer });
        }
        let mut lapsed = Vec::new();
        for (guid, t) in self.liveliness.remote.iter_mut() {
            if t.alive && t.expires() <= now.mono {
                t.alive = false;
                lapsed.push(*guid);
            }
        }
        for writer in lapsed {
            self.report_remote(writer, false);
        }
    }

    /// Asserts the tracked writers of participant `src` whose kind passes `which`.
    fn assert_remote(&mut self, now: Now, src: GuidPrefix, which: impl Fn(LivelinessKind) -> bool) {
        let lo = Guid::new(src, crate::wire::EntityId([0; 4]));
        let hi = Guid::new(src, crate::wire::EntityId([0xff; 4]));
        let mut revived = Vec::new();
        for (guid, t) in self.liveliness.remote.range_mut(lo..=hi) {
            if which(t.kind) {
                t.last_asserted = now.mono;
                if !t.alive {
                    t.alive = true;
                    revived.push(*guid);
                }
            }
        }
        for writer in revived {
            self.report_remote(writer, true);
        }
    }

    /// One LivelinessChanged per local reader matched with `writer`.
    fn report_remote(&mut self, writer: Guid, alive: bool) {
        let readers: Vec<Guid> = self
            .readers
            .values()
            .filter(|r| r.reader.is_matched(writer))
            .map(|r| r.reader.guid())
            .collect();
        for reader in readers {
            self.push_event(Event::LivelinessChanged {
                reader,
                writer,
                alive,
            });
        }
    }

    /// Writes one update on the WLP writer (KEEP_LAST(1) per kind replaces the previous one).
    fn write_wlp(&mut self, now: Now, m: ParticipantMessageData) {
        let payload = Bytes::from(m.to_payload(Endianness::Little));
        if let Err(e) = self.builtin.wlp_writer.write(
            now,
            WriteRequest::new(ChangeKind::Alive, Some(m.key_hash()), payload),
        ) {
            log::warn!("cannot write a liveliness update: {e}");
        }
    }
}

#[cfg(test)]
mod tests;
