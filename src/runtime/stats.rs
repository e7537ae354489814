//! Runtime counters, updated by the loop thread and read from any thread.
//!
//! Must not: lock; counters are relaxed atomics (monotonic, approximate across counters).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::transport::SendReport;

/// A snapshot of the runtime counters.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RuntimeStats {
    /// Datagrams read from any socket.
    pub datagrams_received: u64,
    /// Bytes in those datagrams.
    pub bytes_received: u64,
    /// Datagrams dropped before the protocol saw them (e.g. IPv6 source).
    pub datagrams_dropped: u64,
    /// Receive errors other than "would block".
    pub receive_errors: u64,
    /// Datagrams handed to the kernel (one per destination).
    pub datagrams_sent: u64,
    /// Bytes in those datagrams.
    pub bytes_sent: u64,
    /// Destinations skipped as unreachable or not allowed.
    pub destinations_skipped: u64,
    /// Sends that failed.
    pub send_errors: u64,
}

/// The live counters behind [`RuntimeStats`].
#[derive(Debug, Default)]
pub(crate) struct Counters {
    datagrams_received: AtomicU64,
    bytes_received: AtomicU64,
    datagrams_dropped: AtomicU64,
    receive_errors: AtomicU64,
    datagrams_sent: AtomicU64,
    bytes_sent: AtomicU64,
    destinations_skipped: AtomicU64,
    send_errors: AtomicU64,
    /// Waits and listeners the member has registered (not a counter: set by the loop).
    waits: AtomicUsize,
}

fn add(counter: &AtomicU64, n: u64) {
    counter.fetch_add(n, Ordering::Relaxed);
}

impl Counters {
    pub(crate) fn received(&self, len: usize) {
        add(&self.datagrams_received, 1);
        add(&self.bytes_received, u64::try_from(len).unwrap_or(u64::MAX));
    }

    pub(crate) fn dropped(&self) {
        add(&self.datagrams_dropped, 1);
    }

    pub(crate) fn receive_error(&self) {
        add(&self.receive_errors, 1);
    }

    pub(crate) fn sent(&self, report: &SendReport) {
        add(&self.datagrams_sent, report.sent);
        add(&self.bytes_sent, report.bytes);
        add(&self.destinations_skipped, report.skipped);
        add(&self.send_errors, report.errors);
    }

    /// Records how many waits and listeners the member has registered.
    pub(crate) fn set_waits(&self, n: usize) {
        self.waits.store(n, Ordering::Relaxed);
    }

    /// How many waits and listeners the member had registered when last recorded.
    #[cfg(any(test, feature = "test-hooks"))]
    pub(crate) fn waits(&self) -> usize {
        self.waits.load(Ordering::Relaxed)
    }

    pub(crate) fn snapshot(&self) -> RuntimeStats {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        RuntimeStats {
            datagrams_received: get(&self.datagrams_received),
            bytes_received: get(&self.bytes_received),
            datagrams_dropped: get(&self.datagrams_dropped),
            receive_errors: get(&self.receive_errors),
            datagrams_sent: get(&self.datagrams_sent),
            bytes_sent: get(&self.bytes_sent),
            destinations_skipped: get(&self.destinations_skipped),
            send_errors: get(&self.send_errors),
        }
    }
}
