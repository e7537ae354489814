//! The one seeded pseudo-random generator of the unit tests (the simulated network's faults,
//! the writer's lossy-channel tests, the QoS XML mutation loop): xorshift64* (Vigna 2016),
//! deterministic and dependency-free, so a failing seed replays exactly.
//!
//! Must not: be used outside tests (it is `#[cfg(test)]`), or read any entropy source.

/// xorshift64*: 64 bits of state, never zero.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (0 is mapped to 1: the state must not be zero).
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    /// The next 64 pseudo-random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// True with probability `percent` percent (never for 0).
    pub fn chance(&mut self, percent: u64) -> bool {
        percent > 0 && self.next_u64().checked_rem(100).unwrap_or(0) < percent
    }

    /// An index in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        #[allow(clippy::arithmetic_side_effects)] // n > 0 is the caller's promise
        let i = self.next_u64() % n as u64;
        i as usize
    }
}
