//! The writer's view of its writer group (a publisher with PRESENTATION access scope GROUP,
//! RTPS 2.5 §8.7.6): the group's highest sequence number and writer set as the participant
//! last told it, and the GroupInfo its HEARTBEATs carry.
//!
//! Must not: allocate group sequence numbers (the participant's `group` module does, across
//! the group's writers) or change the history.
//!
//! RTPS 2.5 §8.3.7.5: a HEARTBEAT with the GroupInfo flag says currentGSN (the highest group
//! SN any writer of the group had written), firstGSN / lastGSN (the group SNs of the changes at
//! firstSN / lastSN) and writerSet (the digest of the group's writers).

use super::Writer;
use crate::wire::submessage::HeartbeatGroupInfo;
use crate::wire::{GroupDigest, SequenceNumber};

/// Where the writer's group stands.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct GroupPosition {
    /// The group's highest SN so far and its writer set; `None`: the writer is in no group.
    current: Option<(SequenceNumber, GroupDigest)>,
}

impl Writer {
    /// Records the group's highest sequence number and writer set (the participant calls it
    /// on every writer of the group after each stamped write).
    pub fn set_group_position(&mut self, current_gsn: SequenceNumber, writer_set: GroupDigest) {
        self.group.current = Some((current_gsn, writer_set));
    }

    /// The GroupInfo of a HEARTBEAT announcing `[first, last]`, when the writer is in a
    /// group: firstGSN is the group SN of the first stamped change stored from `first` on,
    /// lastGSN that of the change at `last` (or of the last stamped change before it). An
    /// empty range announces lastGSN = firstGSN − 1 = currentGSN.
    pub(super) fn heartbeat_group_info(
        &self,
        first: SequenceNumber,
        last: SequenceNumber,
    ) -> Option<HeartbeatGroupInfo> {
        let (current, writer_set) = self.group.current?;
        let gsn = |sn: SequenceNumber| self.history.get(sn).and_then(|c| c.group).map(|g| g.gsn);
        let first_gsn = self
            .history
            .stored_from(first)
            .take_while(|s| *s <= last)
            .find_map(gsn);
        let last_gsn = gsn(last);
        let (first_gsn, last_gsn) = match (first_gsn, last_gsn) {
            (Some(f), Some(l)) if f <= l => (f, l),
            (Some(f), None) => (f, current.max(f)),
            _ => (current.checked_add(1)?, current),
        };
        let current_gsn = current.max(last_gsn);
        Some(HeartbeatGroupInfo {
            current_gsn,
            first_gsn: first_gsn.max(SequenceNumber::ONE),
            last_gsn,
            writer_set,
            secure_writer_set: GroupDigest::default(),
        })
    }
}
