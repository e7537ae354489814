//! The writer's timed work (`handle_timeout`): LIFESPAN and DEADLINE checks, the
//! unresponsive-reader check and the periodic HEARTBEAT tick (which readers are owed an
//! unsolicited HEARTBEAT, how often, and how many per tick).
//!
//! Must not: send anything (a HEARTBEAT owed is scheduled on the reader's proxy and built by
//! `send.rs`), read clocks (time is the `now` passed in), or do I/O.
//!
//! RTPS 2.5 §8.4.7.1 and §8.4.9.2.7 (heartbeatPeriod); DDS 1.4 §2.2.3.16 (LIFESPAN).

use super::Writer;
use super::flow;
use super::push_queue::Input;
use super::timer::WriterTimer;
use super::unresponsive::Change;
use crate::qos::History;
use crate::time::{Instant, Now};
use crate::wire::SequenceNumber;

impl Writer {
    /// Handles expired timers: LIFESPAN expiry and DEADLINE checks (`instance.rs`), then the
    /// periodic HEARTBEAT goes to every reliable reader with unacknowledged changes that had
    /// no HEARTBEAT during the last period (with its pending filtering GAP in front, `send.rs`)
    /// and is re-armed; once all is acknowledged it stops. RTPS 2.5 §8.4.9.2.7 (heartbeatPeriod).
    pub fn handle_timeout(&mut self, now: Now) {
        self.expire_lifespan(now);
        self.instances.check_deadlines(now);
        self.queue.invalidate(Input::Rescheduled, &mut self.readers);
        if !self.timers.is_due(WriterTimer::Heartbeat, now.mono) {
            return;
        }
        let last = self.history.last_sn();
        let reliable = self.config.reliable;
        let period = self.heartbeat_interval(now.mono);
        let timeout = self.config.unresponsive_reader_timeout;
        let mut marked = 0u64;
        for r in self.readers.iter_mut().filter(|r| reliable && r.reliable()) {
            let waiting = r.unacked(last);
            if r.responsiveness.check(now.mono, waiting, timeout) == Change::MarkedUnresponsive {
                marked = marked.saturating_add(1);
            }
        }
        if marked > 0 {
            let c = &mut self.counters.readers_marked_unresponsive;
            *c = c.saturating_add(marked);
            // Their unacknowledged changes no longer hold a VOLATILE KEEP_ALL history.
            self.collect_garbage();
        }
        let writing = self.writing(now.mono);
        let (mut any, mut capped, mut sent) = (false, false, 0usize);
        let n = self.readers.len();
        // Round-robin from where the last capped tick stopped.
        let from = self.heartbeat_from;
        for k in 0..n {
            let i = from.wrapping_add(k).checked_rem(n).unwrap_or(0);
            let Some(r) = self
                .readers
                .key_at(i)
                .and_then(|key| self.readers.get_mut(key))
            else {
                continue;
            };
            if !(reliable && r.unacked(last)) {
                continue;
            }
            // One HEARTBEAT per period is enough: skip a reader that had one (piggy-backed on
            // a push) during the last period, or whose push backstop is due (`send.rs`).
            // RTPS 2.5 §8.4.7.1 (heartbeatPeriod).
            // Once writing stopped, a backstop armed further out than a period (spread out
            // while writing to many readers, `flow::heartbeat_interval`) does not hold this
            // one back: the last changes are announced within a period.
            let scheduled = r
                .heartbeat_deadline()
                .is_some_and(|t| writing || t <= now.mono.saturating_add(period));
            // At most a tick's share at once: a thousand readers heartbeated in one go would
            // answer in one burst that overflows our own socket (`flow.rs`).
            if r.heartbeat_stale(now.mono, period) && !scheduled {
                if sent < flow::HEARTBEATS_PER_TICK {
                    r.unsolicited_heartbeat(now.mono, false);
                    sent = sent.saturating_add(1);
                } else if !capped {
                    capped = true;
                    self.heartbeat_from = i;
                }
            }
            any = true;
        }
        let tick = if capped {
            flow::capped_tick(self.config.heartbeat_period)
        } else {
            self.config.heartbeat_period
        };
        let next = any.then(|| now.mono.saturating_add(tick));
        self.timers.set(WriterTimer::Heartbeat, next);
    }

    /// The unsolicited HEARTBEAT interval per reader now (`flow::heartbeat_interval`).
    pub(super) fn heartbeat_interval(&self, now: Instant) -> core::time::Duration {
        let (period, writing) = (self.config.heartbeat_period, self.writing(now));
        // Nothing counted as removable: the room is the history's fill level, cheaply.
        let room = self.history.room(SequenceNumber(0));
        let max_samples = match self.config.resource_limits.max_samples {
            crate::qos::Length::Limited(n) => usize::try_from(n).ok(),
            crate::qos::Length::Unlimited => None,
        };
        let max_bytes = (self.config.history == History::KeepAll)
            .then_some(super::history::KEEP_ALL_BYTES_LIMIT);
        let fill = flow::fill_quarters(room, (max_samples, max_bytes));
        flow::heartbeat_interval(period, self.readers.len(), writing, fill)
    }

    /// True while changes keep being written (`flow::writing`).
    fn writing(&self, now: Instant) -> bool {
        flow::writing(self.last_write, now, self.config.heartbeat_period)
    }

    pub(super) fn arm_heartbeat(&mut self, now: Instant) {
        if self.config.reliable && self.timers.get(WriterTimer::Heartbeat).is_none() {
            let at = now.saturating_add(self.config.heartbeat_period);
            self.timers.set(WriterTimer::Heartbeat, Some(at));
        }
    }
}
