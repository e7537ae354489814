//! Coherent changes of a publisher's writers: `begin_coherent_changes` /
//! `end_coherent_changes` applied to every writer the API's Publisher names (DDS 1.4
//! §2.2.2.4.1.10-11). Each writer marks and ends its own set (`core::writer::coherent`).
//!
//! Must not: know which writers form a publisher (the API passes them). With a writer group
//! (GROUP access scope, `group.rs`) the writers' end-of-set markers carry the group coherent
//! set's stamp and writerSet (RTPS 2.5 §8.7.6).
//!
//! The writers' end-of-set markers leave in as few datagrams as possible: what the writers
//! have to send right after `end_coherent_changes` is merged, per destination set, into one
//! RTPS message (RTPS 2.5 §8.3.4: one message may carry submessages of several writers of a
//! participant), so that a subscriber receives the ends of a publisher's sets together rather
//! than one datagram at a time.

use super::Participant;
use crate::cdr::Endianness;
use crate::core::Transmit;
use crate::core::writer::WriteError;
use crate::time::Now;
use crate::wire::submessage::InfoDst;
use crate::wire::{Guid, GuidPrefix, Header};

/// Largest merged datagram: an Ethernet MTU's UDP payload, so merging never makes a datagram
/// that the IP layer must fragment.
const MAX_MERGED: usize = 1472;
/// INFO_DST's submessage id (RTPS 2.5 §9.4.5.1).
const INFO_DST_ID: u8 = 0x0e;

impl Participant {
    /// Starts (or nests) a coherent set on each of `writers` (unknown ones are skipped: a
    /// deleted writer has nothing left to make coherent).
    pub fn begin_coherent_changes(&mut self, writers: &[Guid]) {
        for guid in writers {
            if let Some(w) = self.writers.get_mut(&guid.entity_id) {
                w.writer.begin_coherent_changes();
            }
        }
        self.group_begin(writers);
    }

    /// Ends the coherent set of each of `writers`: each writes its end-of-set marker. The
    /// first error is returned after every writer was ended.
    pub fn end_coherent_changes(&mut self, now: Now, writers: &[Guid]) -> Result<(), WriteError> {
        let mut result = Ok(());
        let mut out = Vec::new();
        let taking_part: Vec<_> = writers
            .iter()
            .map(|g| g.entity_id)
            .filter(|e| {
                self.writers
                    .get(e)
                    .is_some_and(|w| w.writer.coherent_set_closes_with_marker())
            })
            .collect();
        let stamps = self.group_end(writers, &taking_part);
        for guid in writers {
            let stamp = stamps
                .iter()
                .find(|(e, _)| *e == guid.entity_id)
                .map(|(_, s)| *s);
            if let Some(w) = self.writers.get_mut(&guid.entity_id) {
                if let Err(e) = w.writer.end_coherent_changes_stamped(now, stamp) {
                    result = result.and(Err(e));
                }
            }
            if stamp.is_some() {
                self.group_written(guid.entity_id);
            }
        }
        for guid in writers {
            if let Some(w) = self.writers.get_mut(&guid.entity_id) {
                while let Some(t) = w.writer.poll_transmit(now) {
                    out.push(t);
                }
            }
        }
        // `pending` goes out first, through the outbound gate like everything else.
        self.pending.extend(merge(out));
        result
    }
}

/// Merges consecutive transmits to the same destinations into one message while it stays
/// within [`MAX_MERGED`]: a follower's submessages are appended after its RTPS header, behind
/// an INFO_DST(UNKNOWN) unless it starts with its own INFO_DST (so the leader's INFO_DST does
/// not narrow it). Each writer's message carries its own INFO_TS before its DATA.
fn merge(transmits: Vec<Transmit>) -> Vec<Transmit> {
    let mut merged: Vec<Transmit> = Vec::new();
    for t in transmits {
        let bytes = t.datagram().into_owned();
        let body = bytes.get(Header::LEN..).unwrap_or_default();
        let needs_dst = body.first() != Some(&INFO_DST_ID);
        let extra = body.len().saturating_add(if needs_dst { 16 } else { 0 });
        match merged.last_mut() {
            Some(last)
                if last.destinations == t.destinations
                    && last.payload.len().saturating_add(extra) <= MAX_MERGED =>
            {
                if needs_dst {
                    InfoDst {
                        endian: Endianness::Little,
                        guid_prefix: GuidPrefix::UNKNOWN,
                    }
                    .emit(&mut last.payload);
                }
                last.payload.extend_from_slice(body);
            }
            _ => merged.push(Transmit::new(t.destinations, bytes)),
        }
    }
    merged
}

#[cfg(test)]
#[path = "coherent_tests.rs"]
pub(super) mod tests;
