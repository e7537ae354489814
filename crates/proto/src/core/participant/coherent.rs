//! Coherent changes of a publisher's writers: `begin_coherent_changes` /
//! `end_coherent_changes` applied to every writer the API's Publisher names (DDS 1.4
//! §2.2.2.4.1.10-11), by the PRESENTATION part (`presentation.rs`). Each writer marks and ends
//! its own set (`core::writer::coherent`).
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

use crate::cdr::Endianness;
use crate::core::Transmit;
use crate::wire::submessage::InfoDst;
use crate::wire::{GuidPrefix, Header};

/// Largest merged datagram: an Ethernet MTU's UDP payload, so merging never makes a datagram
/// that the IP layer must fragment.
pub(super) const MAX_MERGED: usize = 1472;
/// INFO_DST's submessage id (RTPS 2.5 §9.4.5.1).
const INFO_DST_ID: u8 = 0x0e;

/// Merges consecutive transmits to the same destinations into one message while it stays
/// within [`MAX_MERGED`]: a follower's submessages are appended after its RTPS header, behind
/// an INFO_DST(UNKNOWN) unless it starts with its own INFO_DST (so the leader's INFO_DST does
/// not narrow it). Each writer's message carries its own INFO_TS before its DATA.
pub(super) fn merge(transmits: Vec<Transmit>) -> Vec<Transmit> {
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
