//! Carries the path heartbeats (`router::paths`) over the links: on every link participant
//! one best-effort writer and one best-effort reader of the topic
//! [`HEARTBEAT_TOPIC`](crate::router::paths::HEARTBEAT_TOPIC), whose samples are a heartbeat's
//! bytes after a CDR encapsulation header. Received heartbeats go to the core under the
//! shared lock (on the loop, in the reader's listener), and the replays a changed tree
//! causes (`router::replay`) are handed to their writers under that same lock; due
//! heartbeats are written from the router thread, which never holds the lock while writing.
//!
//! Must not: decide anything about paths (the core does), or create endpoints on a LAN.

use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use bytes::Bytes;

use super::{Shared, lock, since};
use crate::api::{DomainParticipant, UntypedDataReader, UntypedDataWriter, UntypedReaderOptions};
use crate::core::{ChangeKind, WriteRequest};
use crate::qos::{
    DataReaderQos, DataWriterQos, Durability, History, PublisherQos, ReliabilityKind, SubscriberQos,
};
use crate::router::Forward;
use crate::router::paths::{HEARTBEAT_TOPIC, HEARTBEAT_TYPE};
use crate::router::table::SiteId;

/// CDR_LE with no options: the samples are opaque octets to every other reader.
const ENCAPSULATION: [u8; 4] = [0x00, 0x01, 0x00, 0x00];

/// The heartbeat endpoints of every link: a writer and a reader per link participant.
pub(super) struct Heartbeats {
    writers: Vec<(SiteId, UntypedDataWriter)>,
    _readers: Vec<UntypedDataReader>,
}

impl Heartbeats {
    /// Creates the endpoints on every link site of `participants` (`links[i]` is `Some` for
    /// a link); a site where they cannot be created carries no heartbeats (its link then
    /// counts as down: the paths avoid it).
    pub(super) fn open(
        participants: &[DomainParticipant],
        links: &[bool],
        shared: &Arc<Mutex<Shared>>,
        tx: &mpsc::Sender<Forward>,
        epoch: std::time::Instant,
    ) -> Self {
        let mut writers = Vec::new();
        let mut readers = Vec::new();
        for (i, p) in participants.iter().enumerate() {
            if !links.get(i).copied().unwrap_or(false) {
                continue;
            }
            let site = SiteId(i as u16);
            let mut wq = DataWriterQos::default();
            wq.reliability.kind = ReliabilityKind::BestEffort;
            wq.durability = Durability::Volatile;
            wq.history = History::KeepLast(1);
            let mut rq = DataReaderQos::default();
            rq.reliability.kind = ReliabilityKind::BestEffort;
            rq.durability = Durability::Volatile;
            rq.history = History::KeepLast(1);
            let w = p
                .create_publisher(PublisherQos::default())
                .create_untyped_datawriter(HEARTBEAT_TOPIC, HEARTBEAT_TYPE, false, wq);
            let r = p
                .create_subscriber(SubscriberQos::default())
                .create_untyped_datareader_with(
                    HEARTBEAT_TOPIC,
                    HEARTBEAT_TYPE,
                    false,
                    rq,
                    UntypedReaderOptions::default(),
                );
            let (Ok(w), Ok(r)) = (w, r) else {
                log::warn!("router: no path heartbeats on site {}", site.0);
                continue;
            };
            let (shared, tx) = (Arc::clone(shared), tx.clone());
            let _ = r.set_listener(move |changes, _| {
                let mut s = lock(&shared);
                for c in changes {
                    if let Some(bytes) = c.data.get(ENCAPSULATION.len()..) {
                        s.router.handle_heartbeat(since(epoch), site, bytes);
                    }
                }
                // A changed tree replays to its new children (`router::replay`), before
                // any later sample of theirs.
                s.forward_all(Vec::new(), &tx)
            });
            writers.push((site, w));
            readers.push(r);
        }
        Heartbeats {
            writers,
            _readers: readers,
        }
    }

    /// Writes the heartbeat the core has due, if any.
    pub(super) fn send(&self, shared: &Mutex<Shared>, epoch: std::time::Instant) {
        let due = lock(shared).router.poll_heartbeat(since(epoch));
        let Some((sites, bytes)) = due else {
            return;
        };
        let mut data = Vec::with_capacity(ENCAPSULATION.len() + bytes.len());
        data.extend_from_slice(&ENCAPSULATION);
        data.extend_from_slice(&bytes);
        let data = Bytes::from(data);
        for (site, w) in &self.writers {
            if sites.contains(site) {
                let request = WriteRequest::new(ChangeKind::Alive, None, data.clone());
                if let Err(e) = w.write(request, Duration::ZERO) {
                    log::debug!("router: heartbeat on site {}: {e:?}", site.0);
                }
            }
        }
    }
}
