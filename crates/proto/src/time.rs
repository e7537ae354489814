//! Time as the protocol sees it: a monotonic [`Instant`] for timers and leases, a wall-clock
//! [`Timestamp`] (RTPS `Time_t`) for INFO_TS and source timestamps, and the RTPS [`Duration`]
//! (`Duration_t`) used by QoS policies.
//!
//! Must not: read any clock. `runtime/` owns the clock and hands [`Now`] down; everything here
//! is plain arithmetic so that tests can drive time by hand.
//!
//! RTPS 2.5 §9.3.2 (Time_t, Duration_t): seconds (int32) plus a fraction in units of 2^-32 s.

/// A point on the monotonic clock, in nanoseconds since an arbitrary origin chosen by the
/// runtime. Never sent on the wire.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Instant(u64);

impl Instant {
    /// The origin of the monotonic clock.
    pub const ZERO: Instant = Instant(0);

    /// An instant `nanos` nanoseconds after the origin.
    pub const fn from_nanos(nanos: u64) -> Self {
        Instant(nanos)
    }

    /// Nanoseconds since the origin.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }

    /// `self + d`, saturating at the end of time. An infinite duration gives the end of time.
    pub fn saturating_add(self, d: core::time::Duration) -> Self {
        let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        Instant(self.0.saturating_add(nanos))
    }

    /// Time elapsed from `earlier` to `self`, zero if `earlier` is later.
    pub fn saturating_duration_since(self, earlier: Instant) -> core::time::Duration {
        core::time::Duration::from_nanos(self.0.saturating_sub(earlier.0))
    }
}

/// RTPS `Time_t`: wall-clock time since the Unix epoch, seconds plus 2^-32 fractions.
/// RTPS 2.5 §9.3.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    pub seconds: i32,
    /// Fraction of a second in units of 2^-32 s.
    pub fraction: u32,
}

impl Timestamp {
    /// TIME_ZERO. RTPS 2.5 §9.3.2.
    pub const ZERO: Timestamp = Timestamp {
        seconds: 0,
        fraction: 0,
    };
    /// TIME_INVALID. RTPS 2.5 §9.3.2.
    pub const INVALID: Timestamp = Timestamp {
        seconds: -1,
        fraction: 0xffff_ffff,
    };
    /// TIME_INFINITE. RTPS 2.5 §9.3.2.
    pub const INFINITE: Timestamp = Timestamp {
        seconds: 0x7fff_ffff,
        fraction: 0xffff_ffff,
    };

    /// Builds a timestamp from nanoseconds since the Unix epoch (saturating at TIME_INFINITE).
    pub fn from_unix_nanos(nanos: u64) -> Self {
        let secs = nanos / 1_000_000_000;
        let sub = nanos % 1_000_000_000;
        match i32::try_from(secs) {
            Ok(seconds) => Timestamp {
                seconds,
                fraction: nanos_to_fraction(sub),
            },
            Err(_) => Timestamp::INFINITE,
        }
    }

    /// Nanoseconds since the Unix epoch, or `None` for negative or special values.
    pub fn to_unix_nanos(self) -> Option<u64> {
        if self == Self::INVALID || self == Self::INFINITE {
            return None;
        }
        let secs = u64::try_from(self.seconds).ok()?;
        secs.checked_mul(1_000_000_000)?
            .checked_add(fraction_to_nanos(self.fraction))
    }
}

/// RTPS `Duration_t`: seconds plus 2^-32 fractions. RTPS 2.5 §9.3.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration {
    /// Whole seconds.
    pub seconds: i32,
    /// Fraction of a second in units of 2^-32 s.
    pub fraction: u32,
}

impl Duration {
    /// DURATION_ZERO.
    pub const ZERO: Duration = Duration {
        seconds: 0,
        fraction: 0,
    };
    /// DURATION_INFINITE = {0x7fffffff, 0xffffffff} (docs/interop-facts.md §5.4; Cyclone
    /// `ddsi_time.h`).
    pub const INFINITE: Duration = Duration {
        seconds: 0x7fff_ffff,
        fraction: 0xffff_ffff,
    };

    /// True for DURATION_INFINITE, and for the {0x7fffffff, 0x7fffffff} form that some
    /// implementations write when they copy DDS's INFINITE_NSEC into the fraction.
    pub fn is_infinite(self) -> bool {
        self.seconds == 0x7fff_ffff
            && (self.fraction == 0xffff_ffff || self.fraction == 0x7fff_ffff)
    }

    /// Converts a std duration, saturating at DURATION_INFINITE.
    pub fn from_std(d: core::time::Duration) -> Self {
        match i32::try_from(d.as_secs()) {
            Ok(seconds) if seconds < 0x7fff_ffff => Duration {
                seconds,
                fraction: nanos_to_fraction(u64::from(d.subsec_nanos())),
            },
            _ => Duration::INFINITE,
        }
    }

    /// Converts to a std duration; `None` when infinite or negative.
    pub fn to_std(self) -> Option<core::time::Duration> {
        if self.is_infinite() {
            return None;
        }
        let secs = u64::try_from(self.seconds).ok()?;
        Some(core::time::Duration::from_nanos(
            secs.saturating_mul(1_000_000_000)
                .saturating_add(fraction_to_nanos(self.fraction)),
        ))
    }
}

/// Both clocks as read once by the runtime and passed to every time-dependent core call.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Now {
    /// Monotonic time for timers and leases.
    pub mono: Instant,
    /// Wall-clock time for INFO_TS and source timestamps.
    pub wall: Timestamp,
}

fn nanos_to_fraction(nanos: u64) -> u32 {
    // nanos < 1e9, so (nanos << 32) / 1e9 < 2^32.
    u32::try_from((nanos << 32) / 1_000_000_000).unwrap_or(u32::MAX)
}

fn fraction_to_nanos(fraction: u32) -> u64 {
    (u64::from(fraction) * 1_000_000_000) >> 32
}

#[cfg(test)]
mod tests;
