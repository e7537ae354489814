//! How long the loop polls after a wakeup that did work before it parks in `epoll_wait`
//! ([`SpinPolicy`]), and whether it yields the core while it does: read once per loop from
//! the environment, adapted per spin to whether the last one found work.
//!
//! Must not: read a clock or touch a socket (the loop measures the spin and polls); allow an
//! unbounded spin (every setting is capped by [`MAX_SPIN`]).
//!
//! Parking costs the next datagram a wake-up: measured on a 2-core VM, a router that parked
//! after every forward added about 5 µs to a ping-pong's round trip (two forwards). Polling without yielding keeps the core; with
//! yields, a runnable peer on the same core (the other end of a ping-pong, a build) may hold
//! it past the end of the spin. docs/performance.md "Router" has the measured trade-off.

use std::time::Duration;

/// Total spin when `SIFTDDS_SPIN_US` is not set.
pub(crate) const DEFAULT_SPIN: Duration = Duration::from_micros(50);
/// Busy (no-yield) part when `SIFTDDS_BUSY_POLL_US` is not set.
pub(crate) const DEFAULT_BUSY_POLL: Duration = Duration::ZERO;
/// Longest spin either variable may ask for.
pub(crate) const MAX_SPIN: Duration = Duration::from_millis(10);
/// Environment variable: total spin before parking, µs.
pub const SPIN_VAR: &str = "SIFTDDS_SPIN_US";
/// Environment variable: the first part of the spin that polls without yielding, µs.
pub const BUSY_POLL_VAR: &str = "SIFTDDS_BUSY_POLL_US";

/// The loop's spin before parking.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct SpinPolicy {
    /// Polls without yielding the core for this long, when the last spin found work.
    pub(crate) busy: Duration,
    /// Then polls, yielding between polls, until this long after the spin began; then parks.
    pub(crate) total: Duration,
}

impl SpinPolicy {
    /// The policy from [`SPIN_VAR`] and [`BUSY_POLL_VAR`] (unset or unreadable: the default).
    pub(crate) fn from_env() -> Self {
        let var = |name| std::env::var(name).ok();
        Self::parse(var(SPIN_VAR).as_deref(), var(BUSY_POLL_VAR).as_deref())
    }

    /// The policy for the two variables' values: whole µs, capped at [`MAX_SPIN`]; a busy
    /// part longer than the total extends the total. A value that is not a number is the
    /// default (and logged).
    pub(crate) fn parse(spin: Option<&str>, busy: Option<&str>) -> Self {
        let read = |value: Option<&str>, name: &str, default: Duration| match value {
            None => default,
            Some(v) => match v.trim().parse::<u64>() {
                Ok(us) => Duration::from_micros(us).min(MAX_SPIN),
                Err(_) => {
                    log::warn!("runtime: {name}={v:?} is not a number of µs; using {default:?}");
                    default
                }
            },
        };
        let busy = read(busy, BUSY_POLL_VAR, DEFAULT_BUSY_POLL);
        let total = read(spin, SPIN_VAR, DEFAULT_SPIN).max(busy);
        SpinPolicy { busy, total }
    }

    /// Whether a spin that has run for `spun` should yield the core before its next poll:
    /// once the busy part is over, or from the start when the last spin found nothing
    /// (`armed` false: traffic sparser than the spin gets no busy polling).
    pub(crate) fn yields(&self, spun: Duration, armed: bool) -> bool {
        !armed || spun >= self.busy
    }
}

#[cfg(test)]
mod tests;
