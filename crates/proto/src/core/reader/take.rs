//! The application side of the reader: `take` / `read` of what the delivery queue holds,
//! in presentation order, dropping samples whose lifespan ended, and resuming writers that
//! were stalled on a full queue.
//!
//! Must not: accept input from the network (the receive path is `mod.rs` and
//! `writer_proxy.rs`), reorder within an instance (only PRESENTATION ordered access may, by
//! `presentation.rs`), or do I/O / read clocks (time is the `now` passed in).
//!
//! DDS 1.4 §2.2.2.5.3.8 (read), §2.2.2.5.3.9 (take), §2.2.3.16 (LIFESPAN), §2.2.3.6
//! (PRESENTATION).

use super::Reader;
use super::presentation::{presentation_order, presentation_order_by};
use super::writer_proxy::Sink;
use crate::core::CacheChange;
use crate::time::Now;

impl Reader {
    /// The next sample for the application, oldest first (in SN order per writer for a
    /// reliable reader), as [`Reader::take`] at the time of the latest input.
    pub fn poll_sample(&mut self) -> Option<CacheChange> {
        self.take(self.last_now)
    }

    /// Takes (removes) the next sample at `now`, read or not; samples whose lifespan ended
    /// are dropped (DDS 1.4 §2.2.3.16). Taking may unblock writers stalled on a full queue.
    /// DDS 1.4 §2.2.2.5.3.9 (take).
    pub fn take(&mut self, now: Now) -> Option<CacheChange> {
        let (change, expired) = self.queue.pop_live(now.wall.to_unix_nanos());
        self.count_expired(expired);
        let change = change?;
        self.unstall(now);
        Some(change)
    }

    /// Takes every queued sample at `now` into `out` (as repeated [`Reader::take`], with the
    /// stalled writers resumed once at the end); returns how many were added.
    pub fn take_all(&mut self, now: Now, out: &mut Vec<CacheChange>) -> usize {
        let before = out.len();
        let now_ns = now.wall.to_unix_nanos();
        loop {
            let mut progress = false;
            loop {
                let (change, expired) = self.queue.pop_live(now_ns);
                self.count_expired(expired);
                progress |= expired > 0;
                let Some(change) = change else { break };
                out.push(change);
                progress = true;
            }
            if !progress {
                break;
            }
            // Resuming a stalled writer may queue more (KEEP_ALL flow control): take those too.
            self.unstall(now);
            if self.queue.len() == 0 {
                break;
            }
        }
        if let Some(taken) = out.get_mut(before..) {
            presentation_order(&self.config.presentation, taken);
        }
        out.len().saturating_sub(before)
    }

    /// Returns every queued sample not returned by an earlier `read` and marks it READ; the
    /// samples stay queued for [`Reader::take`]. DDS 1.4 §2.2.2.5.3.8 (read with
    /// NOT_READ_SAMPLE_STATE).
    pub fn read(&mut self, now: Now) -> Vec<CacheChange> {
        let (mut samples, expired) = self.queue.read(now.wall.to_unix_nanos());
        presentation_order(&self.config.presentation, &mut samples);
        self.count_expired(expired);
        if expired > 0 {
            self.unstall(now);
        }
        samples
    }

    /// Returns every queued sample with whether an earlier read had returned it (READ) and
    /// marks them all READ; they stay queued for [`Reader::take`]. DDS 1.4 §2.2.2.5.3.8 (read
    /// with ANY_SAMPLE_STATE).
    pub fn read_all(&mut self, now: Now) -> Vec<(CacheChange, bool)> {
        let (mut samples, expired) = self.queue.read_all(now.wall.to_unix_nanos());
        presentation_order_by(&self.config.presentation, &mut samples, |(c, _)| c);
        self.count_expired(expired);
        if expired > 0 {
            self.unstall(now);
        }
        samples
    }

    fn count_expired(&mut self, n: u64) {
        self.counters.samples_expired = self.counters.samples_expired.saturating_add(n);
    }

    /// Lets writers stalled on a full queue deliver again.
    fn unstall(&mut self, now: Now) {
        self.last_now = now;
        let mut sink = Sink {
            queue: &mut self.queue,
            counters: &mut self.counters,
            instances: &mut self.instances,
            now,
        };
        for p in self.writers.values_mut().filter(|p| p.is_stalled()) {
            p.pump(&mut sink);
        }
    }
}
