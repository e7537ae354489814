//! Flow control of one reliable matched reader: how much the writer may have sent it without
//! an acknowledgement (a window, in bytes, grown while acknowledgements keep up and cut when
//! the reader NACKs newly lost changes), when it is worth asking it for an acknowledgement,
//! which repairs were sent so recently that a NACK for them is a duplicate, and how often a
//! writer with many readers sends each of them an unsolicited HEARTBEAT.
//!
//! Must not: build messages, read a clock (every call takes `now`), trust ACKNACK contents
//! (everything here is capped), or stall a reader for good: a window always lets one change
//! through, and an unanswered request for an acknowledgement is repeated. Deciding that a
//! reader is unresponsive is not this module's job (the writer's hardening rules are).
//!
//! # Why
//! Without it a writer pushes as fast as it is written to: a fast writer overruns a reader's
//! socket buffer within the first second (the kernel drops what does not fit), and the
//! reader spends the rest of the run NACKing and the writer repairing (issue 16's table).
//! The scheme follows Cyclone DDS 0.10's writer (docs/interop-facts.md §11.1) per reader
//! instead of per writer: Cyclone throttles the whole writer on the unacknowledged bytes
//! of its history (an adaptive high-water mark that starts at 30 KiB, grows a little every
//! 10 ms while nothing is retransmitted and shrinks to 80 % when a retransmit starts) and
//! halves its heartbeat interval as that fill level rises; here each reader has its own
//! window, so a slow reader slows only what goes to it, and the window's fill level decides
//! when a HEARTBEAT asks that reader to acknowledge (RTPS 2.5 §8.4.15.1, piggy-backing).
//!
//! RTPS 2.5 §8.4.7.1 (heartbeatPeriod, nackResponseDelay), §8.4.9.2.7 (HEARTBEAT),
//! §8.4.9.2.8 (ACKNACK), §8.4.9.2.12 (repairs).

use std::collections::VecDeque;

use crate::time::Instant;
use crate::wire::SequenceNumber;

/// The window a reader starts with (Cyclone's initial high-water mark is 30 KiB for a whole
/// writer; readers in one process share a socket buffer, so each starts lower).
pub(super) const INITIAL_WINDOW: usize = 16 * 1024;
/// The smallest window: a reader that keeps losing still gets this much per round trip
/// (a hundred readers of one process at the minimum stay about within a default 208 KiB
/// Linux socket buffer).
pub(super) const MIN_WINDOW: usize = 2 * 1024;
/// Changes in flight below which a half-full window does not yet ask for an
/// acknowledgement (a small window would otherwise ask every few changes).
const MIN_SOLICIT_CHANGES: usize = 8;
/// The largest window (Cyclone's default high-water mark is 500 KB for a whole writer). At
/// 512 KiB, 16 KiB samples to one fast reader are bounded by the acknowledgement round trip
/// (32 per round trip); a KEEP_ALL history holds 2 MiB of payload anyway
/// (docs/performance.md, flow control).
pub(super) const MAX_WINDOW: usize = 2 * 1024 * 1024;
/// Bytes a change costs in the window besides its payload: the DATA submessage header,
/// INFO_TS / INFO_DST shares and inline QoS (key hash, filter info).
pub(super) const PER_CHANGE_OVERHEAD: usize = 64;
/// The most changes tracked in flight per reader; beyond it the window counts as full
/// (bounds this state to 64 KiB per reader).
const MAX_IN_FLIGHT: usize = 4096;
/// Repairs remembered per reader for NACK suppression.
const MAX_RECENT_REPAIRS: usize = 512;
/// Readers per heartbeat period a writer heartbeats unsolicited while it keeps writing; with
/// more, each reader's unsolicited period grows with their number (see
/// [`heartbeat_interval`]).
const READERS_PER_PERIOD: usize = 32;
/// The longest unsolicited heartbeat interval while writing, in heartbeat periods.
const MAX_PERIOD_SCALE: u32 = 10;

/// One reader's flow state. Owned by its `ReaderProxy`.
#[derive(Clone, Debug)]
pub(super) struct Flow {
    /// Changes sent to it (pushed, or delivered to it by a multicast) and not acknowledged,
    /// ascending, with what each costs in the window.
    in_flight: VecDeque<(SequenceNumber, usize)>,
    in_flight_bytes: usize,
    /// What may be in flight, in bytes.
    window: usize,
    /// Until the first loss the window doubles per window acknowledged (slow start), after
    /// it grows by about [`MIN_WINDOW`] per window acknowledged.
    lost_once: bool,
    /// NACKs for changes up to this one belong to the loss episode that already cut the
    /// window: they do not cut it again.
    recovery_until: SequenceNumber,
    /// When a HEARTBEAT asked it to acknowledge because the window filled, not yet
    /// answered by progress.
    solicited: Option<Instant>,
    /// Repairs sent recently, with when: a NACK for one of them within the hold-off
    /// crossed the repair on the wire and is not answered again.
    repaired: VecDeque<(SequenceNumber, Instant)>,
    /// Repairs put into a message, not yet stamped with the send time.
    repaired_unstamped: Vec<SequenceNumber>,
}

impl Default for Flow {
    fn default() -> Self {
        Flow {
            in_flight: VecDeque::new(),
            in_flight_bytes: 0,
            window: INITIAL_WINDOW,
            lost_once: false,
            recovery_until: SequenceNumber(0),
            solicited: None,
            repaired: VecDeque::new(),
            repaired_unstamped: Vec::new(),
        }
    }
}

impl Flow {
    /// Bytes that may be in flight.
    #[cfg(test)]
    pub(super) fn window(&self) -> usize {
        self.window
    }

    /// Bytes in flight.
    #[cfg(test)]
    pub(super) fn in_flight_bytes(&self) -> usize {
        self.in_flight_bytes
    }

    /// True while another change may be sent: something is left in the window, or
    /// nothing is in flight (a change larger than the window still goes, alone).
    pub(super) fn may_send(&self) -> bool {
        self.in_flight.is_empty()
            || (self.in_flight_bytes < self.window && self.in_flight.len() < MAX_IN_FLIGHT)
    }

    /// The oldest change in flight, if any.
    pub(super) fn oldest_in_flight(&self) -> Option<SequenceNumber> {
        self.in_flight.front().map(|(sn, _)| *sn)
    }

    /// Change `sn` of `len` payload bytes went to it (first transmission).
    pub(super) fn sent(&mut self, sn: SequenceNumber, len: usize) {
        if self.in_flight.back().is_some_and(|(last, _)| *last >= sn) {
            return;
        }
        let cost = len.saturating_add(PER_CHANGE_OVERHEAD);
        self.in_flight.push_back((sn, cost));
        self.in_flight_bytes = self.in_flight_bytes.saturating_add(cost);
    }

    /// True when the window is half full and no request for an acknowledgement is
    /// outstanding (or the last one, `resolicit` ago, went unanswered): the next datagram
    /// to it should carry a HEARTBEAT without the final flag. Cyclone asks for an
    /// acknowledgement once half of its high-water mark is unacknowledged (§11.1).
    pub(super) fn wants_ack(&self, now: Instant, resolicit: core::time::Duration) -> bool {
        let half = self.in_flight_bytes.saturating_mul(2) >= self.window
            && self.in_flight.len() >= MIN_SOLICIT_CHANGES;
        (half || !self.may_send())
            && self
                .solicited
                .is_none_or(|t| t.saturating_add(resolicit) <= now)
    }

    /// A HEARTBEAT asking it to acknowledge went out at `now`.
    pub(super) fn solicited(&mut self, now: Instant) {
        self.solicited = Some(now);
    }

    /// An ACKNACK acknowledged everything up to `acked` and requested `missing` (those at
    /// most 256 above its base). Grows the window by what was acknowledged, or cuts it
    /// when the request shows a new loss (a NACK above the last loss episode).
    pub(super) fn acknowledged(
        &mut self,
        acked: SequenceNumber,
        first_missing: Option<SequenceNumber>,
    ) {
        let mut freed = 0usize;
        while let Some(&(sn, cost)) = self.in_flight.front() {
            if sn > acked {
                break;
            }
            self.in_flight.pop_front();
            freed = freed.saturating_add(cost);
        }
        self.in_flight_bytes = self.in_flight_bytes.saturating_sub(freed);
        if freed > 0 {
            self.solicited = None;
        }
        match first_missing {
            Some(sn) if sn > self.recovery_until => {
                // One cut per loss episode: the episode ends with the last change sent now.
                self.lost_once = true;
                self.window = (self.window / 2).max(MIN_WINDOW);
                let last_sent = self.in_flight.back().map_or(sn, |(s, _)| *s);
                self.recovery_until = last_sent.max(sn);
            }
            Some(_) => {}
            None if freed > 0 => {
                let grow = if self.lost_once {
                    // About MIN_WINDOW per window acknowledged.
                    freed
                        .saturating_mul(MIN_WINDOW)
                        .checked_div(self.window)
                        .unwrap_or(freed)
                } else {
                    freed
                };
                self.window = self.window.saturating_add(grow.max(1)).min(MAX_WINDOW);
            }
            None => {}
        }
    }

    /// Drops from `requested` the changes whose repair went out less than `hold_off`
    /// before `now`: the reader's request crossed it. RTPS 2.5 §8.4.15.7 lets a writer
    /// ignore requests it already answered. Returns how many it dropped.
    pub(super) fn suppress_duplicates(
        &mut self,
        now: Instant,
        hold_off: core::time::Duration,
        requested: &mut Vec<SequenceNumber>,
    ) -> usize {
        while self
            .repaired
            .front()
            .is_some_and(|(_, t)| t.saturating_add(hold_off) <= now)
        {
            self.repaired.pop_front();
        }
        let before = requested.len();
        if !self.repaired.is_empty() {
            // Bounded: at most MAX_RECENT_REPAIRS repairs, 256 requests per ACKNACK.
            let mut recent: Vec<SequenceNumber> = self.repaired.iter().map(|(s, _)| *s).collect();
            recent.sort_unstable();
            requested.retain(|sn| recent.binary_search(sn).is_err());
        }
        before.saturating_sub(requested.len())
    }

    /// Change `sn` was put into a repair message (stamped by [`Flow::repairs_sent_at`]).
    pub(super) fn repaired(&mut self, sn: SequenceNumber) {
        if self.repaired_unstamped.len() < MAX_RECENT_REPAIRS {
            self.repaired_unstamped.push(sn);
        }
    }

    /// The repairs put into messages since the last call went out at `now`.
    pub(super) fn repairs_sent_at(&mut self, now: Instant) {
        for sn in self.repaired_unstamped.drain(..) {
            if self.repaired.len() >= MAX_RECENT_REPAIRS {
                self.repaired.pop_front();
            }
            self.repaired.push_back((sn, now));
        }
    }

    /// The highest SN below which nothing sent to it awaits its acknowledgement, given the
    /// start of its pending lazy GAP `gap_from` (everything before it was either sent, and
    /// is in flight until acknowledged, or irrelevant to it and told so). The writer's history may drop
    /// changes up to here for this reader: if it asks for one later the answer is a GAP,
    /// which is also the answer for a change irrelevant to it (RTPS 2.5 §8.4.9.2.12).
    pub(super) fn release_floor(&self, gap_from: SequenceNumber) -> SequenceNumber {
        let cursor = gap_from.checked_sub(1).unwrap_or(SequenceNumber(0));
        match self.oldest_in_flight() {
            Some(sn) => sn.checked_sub(1).unwrap_or(SequenceNumber(0)).min(cursor),
            None => cursor,
        }
    }

    /// The end of the first loss episode's range, for tests.
    #[cfg(test)]
    pub(super) fn recovery_until(&self) -> SequenceNumber {
        self.recovery_until
    }
}

/// The most readers the periodic HEARTBEAT tick heartbeats at once; the rest follow a
/// quarter period later ([`capped_tick`]), so that their ACKNACKs do not arrive in one burst.
pub(super) const HEARTBEATS_PER_TICK: usize = 64;

/// The next periodic tick when the last one was capped at [`HEARTBEATS_PER_TICK`].
pub(super) fn capped_tick(period: core::time::Duration) -> core::time::Duration {
    period.checked_div(4).unwrap_or(period)
}

/// Heartbeat periods without a write after which the writer counts as idle.
const IDLE_PERIODS: u32 = 2;

/// True while the writer counts as writing: a change was written within the last
/// [`IDLE_PERIODS`] periods (a write blocked for a moment by a full history is not the end
/// of writing; when writing ends, the readers' last changes are announced at the base
/// period, a tick's share at a time, [`HEARTBEATS_PER_TICK`]).
pub(super) fn writing(
    last_write: Option<Instant>,
    now: Instant,
    period: core::time::Duration,
) -> bool {
    let grace = period.saturating_mul(IDLE_PERIODS);
    last_write.is_some_and(|t| t.saturating_add(grace) > now)
}

/// How long a request for an acknowledgement, or a repair, is given before it is repeated
/// (answered): a fifth of the heartbeat period, Cyclone's shortest heartbeat interval
/// under load being 20 ms of its 100 ms (§11.1).
pub(super) fn resolicit(period: core::time::Duration) -> core::time::Duration {
    period.checked_div(5).unwrap_or(period)
}

/// The unsolicited HEARTBEAT interval per reader while the writer keeps writing to
/// `readers` reliable readers: `period` up to [`READERS_PER_PERIOD`] readers, then growing
/// with their number up to [`MAX_PERIOD_SCALE`] periods, so that the writer's HEARTBEATs
/// per written sample stay about constant as readers are added (each reader still gets one
/// whenever its window asks for an acknowledgement, [`Flow::wants_ack`]). Halved once the
/// history is half full and again at three quarters (`fill_quarters`, see [`fill_quarters`]),
/// as Cyclone does with its history's fill level (docs/interop-facts.md §11.1), so that
/// acknowledgements free the history before it blocks the writer. Idle: `period`.
pub(super) fn heartbeat_interval(
    period: core::time::Duration,
    readers: usize,
    writing: bool,
    fill_quarters: u32,
) -> core::time::Duration {
    if !writing {
        return period;
    }
    let scale = u32::try_from(readers.div_ceil(READERS_PER_PERIOD))
        .unwrap_or(MAX_PERIOD_SCALE)
        .clamp(1, MAX_PERIOD_SCALE);
    let interval = period.saturating_mul(scale);
    match fill_quarters {
        0 | 1 => interval,
        2 => interval.checked_div(2).unwrap_or(interval),
        _ => interval.checked_div(4).unwrap_or(interval),
    }
}

/// How full a history is, in quarters (0–4), from the room it has left and its limits, in
/// samples and in bytes (`None`: unlimited); the fuller of the two counts.
pub(super) fn fill_quarters(room: (usize, usize), limits: (Option<usize>, Option<usize>)) -> u32 {
    let quarters = |left: usize, max: Option<usize>| {
        max.filter(|m| *m > 0).map_or(0, |m| {
            let used = m.saturating_sub(left.min(m));
            let q = used.saturating_mul(4).checked_div(m).unwrap_or(4);
            u32::try_from(q).unwrap_or(4)
        })
    };
    quarters(room.0, limits.0).max(quarters(room.1, limits.1))
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)]
mod tests;
