//! The forwarding-turn profile ([`TurnProfile`]): when [`TURN_PROFILE_VAR`] is set, how
//! long the loop's wakeups that both read and sent datagrams took (a router's forward, a
//! ponger's echo), by phase — reading and handling the datagrams, the work they caused
//! (commands, timeouts, waits and listeners), and the flush, with the part of it spent in
//! the send system calls — logged at `info` when the loop stops.
//!
//! Must not: read a clock (the loop hands in the durations), allocate per turn or grow
//! without bound (fixed histograms), or cost anything when off (the loop does not time a
//! turn then).
//!
//! It is what told where a hop's time goes: docs/performance.md "Router", hop latency.

use std::time::Duration;

/// Environment variable: profile the forwarding turns when set (to anything).
pub(crate) const TURN_PROFILE_VAR: &str = "SIFTDDS_TURN_PROFILE";
/// Width of a histogram bucket.
const BUCKET: Duration = Duration::from_nanos(100);
/// Buckets per histogram: 0–100 µs, the last one also holding everything longer.
const BUCKETS: usize = 1000;

/// The phases of one turn, as the loop measured them.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct Turn {
    /// Reading the ready sockets and handing each datagram to its protocol.
    pub(crate) receive: Duration,
    /// Commands, timeouts, waits and listeners (what the datagrams caused).
    pub(crate) work: Duration,
    /// Draining the transmits and sending them.
    pub(crate) flush: Duration,
    /// The part of `flush` spent in the transport's send calls.
    pub(crate) send: Duration,
}

/// Bounded histograms of the phases of the turns that read and sent datagrams.
pub(crate) struct TurnProfile {
    turns: u64,
    /// Total, receive, work, flush, send; [`BUCKETS`] counts each.
    hist: [Vec<u32>; 5],
}

impl TurnProfile {
    /// A profile if [`TURN_PROFILE_VAR`] is set, else `None` (the loop times nothing).
    pub(crate) fn from_env() -> Option<Self> {
        std::env::var_os(TURN_PROFILE_VAR).map(|_| Self::new())
    }

    pub(crate) fn new() -> Self {
        TurnProfile {
            turns: 0,
            hist: std::array::from_fn(|_| vec![0; BUCKETS]),
        }
    }

    /// Counts one turn.
    pub(crate) fn record(&mut self, t: Turn) {
        self.turns = self.turns.saturating_add(1);
        let total = t.receive + t.work + t.flush;
        for (h, d) in self
            .hist
            .iter_mut()
            .zip([total, t.receive, t.work, t.flush, t.send])
        {
            let i = usize::try_from(d.as_nanos() / BUCKET.as_nanos())
                .unwrap_or(usize::MAX)
                .min(BUCKETS - 1);
            if let Some(c) = h.get_mut(i) {
                *c = c.saturating_add(1);
            }
        }
    }

    /// Turns counted.
    pub(crate) fn turns(&self) -> u64 {
        self.turns
    }

    /// The `q` quantile (0..=1) of phase `phase` (0 total, 1 receive, 2 work, 3 flush,
    /// 4 send), as the upper edge of its bucket; zero with no turns.
    pub(crate) fn quantile(&self, phase: usize, q: f64) -> Duration {
        let Some(h) = self.hist.get(phase) else {
            return Duration::ZERO;
        };
        // The rank of the quantile among the turns, at least the first.
        let rank = ((self.turns as f64) * q).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        for (i, c) in h.iter().enumerate() {
            seen += u64::from(*c);
            if seen >= rank {
                return BUCKET * (i as u32 + 1);
            }
        }
        Duration::ZERO
    }

    /// One line: the turns counted and each phase's p50 / p90 in µs.
    pub(crate) fn summary(&self) -> String {
        let mut s = format!("forwarding turns {}:", self.turns);
        for (phase, name) in ["total", "receive", "work", "flush", "of which send"]
            .iter()
            .enumerate()
        {
            let us = |q| self.quantile(phase, q).as_secs_f64() * 1e6;
            s.push_str(&format!(
                " {name} p50 {:.1} p90 {:.1} us;",
                us(0.5),
                us(0.9)
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests;
