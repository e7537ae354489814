//! The driver's side of redundant routers (`router::standby`): the witness readers that
//! read what other routers write into a site, and the graceful leave (no more input, what
//! was taken written and acknowledged, then the participants' SPDP goodbye), so that a
//! standby takes over at once and knows everything this router delivered.
//!
//! Must not: decide what a witnessed sample means (`Router::on_witness` does) or wait on a
//! participant's loop while holding the shared lock.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use super::{Driver, lock, proxy_reader, since};
use crate::api::UntypedReaderOptions;
use crate::qos::{
    DataReaderQos, DataRepresentation, Durability, History, Ownership, ReliabilityKind,
};
use crate::router::table::RouteWriterSpec;
use crate::router::{EndpointId, Forward};

/// How long a leaving router waits for its downstream writers' samples to be acknowledged
/// by their readers (the standby's witnesses among them) before it says goodbye.
pub const LEAVE_FLUSH: Duration = Duration::from_secs(2);

impl Driver {
    /// A VOLATILE reader on `spec.site` matching what other routers write for that route
    /// (same reliability, partitions, ownership); its samples go to `Router::on_witness`
    /// on the site's loop.
    pub(super) fn create_witness(&mut self, id: EndpointId, spec: RouteWriterSpec) {
        let Some(p) = self.participants.get(usize::from(spec.site.0)) else {
            return;
        };
        let mut qos = DataReaderQos::default();
        qos.reliability.kind = if spec.class.reliable {
            ReliabilityKind::Reliable
        } else {
            ReliabilityKind::BestEffort
        };
        qos.durability = Durability::Volatile;
        qos.history = History::KeepAll;
        qos.ownership = if spec.exclusive {
            Ownership::Exclusive
        } else {
            Ownership::Shared
        };
        qos.data_representation = DataRepresentation {
            value: vec![DataRepresentation::XCDR, DataRepresentation::XCDR2],
        };
        let options = UntypedReaderOptions::default();
        let Ok(reader) = proxy_reader(p, spec.key, qos, options) else {
            return;
        };
        let (shared, epoch) = (Arc::clone(&self.shared), self.epoch);
        let _ = reader.set_listener(move |changes, _| {
            let mut s = lock(&shared);
            for c in &changes {
                s.router.on_witness(since(epoch), id, c);
            }
            true
        });
        self.endpoints.insert(id, reader);
    }

    /// Leaves gracefully: deletes the proxy readers and witnesses (nothing more is taken),
    /// writes what the listeners handed over, and waits — all within [`LEAVE_FLUSH`] — for every
    /// downstream writer to be acknowledged by all its reliable readers — the standby's
    /// witnesses among them, so its repository then holds all we delivered. The caller
    /// drops the writers and then the participants next, which sends their SPDP goodbye
    /// (DATA(p[UD])): the standby takes over without waiting for our lease.
    pub(super) fn leave(&mut self, rx: &mpsc::Receiver<Forward>) {
        // Deleted (and unannounced) as they drop.
        self.endpoints.clear();
        let deadline = std::time::Instant::now() + LEAVE_FLUSH;
        while let Ok(f) = rx.try_recv() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            self.write(f, left);
        }
        let mut unacked = 0;
        for (_, w) in self.writers.values() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if w.wait_for_acknowledgments(left).is_err() {
                unacked += 1;
            }
        }
        log::info!(
            "router {:x}: leaving ({unacked} downstream writers not fully acknowledged)",
            self.me.0
        );
    }
}
