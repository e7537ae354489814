//! Coherent changes of one writer (PRESENTATION `coherent_access`, DDS 1.4 §2.2.2.4.1.10-11
//! `begin_coherent_changes` / `end_coherent_changes`): which coherent set a new change
//! belongs to, and the end-of-set marker.
//!
//! Must not: touch the history or the readers itself (the writer's `write` path stores the
//! changes), or send anything.
//!
//! RTPS 2.5 §8.7.5: every change written between begin and end carries PID_COHERENT_SET = the
//! SN of the set's first change. At the end the writer adds one more change, the end-of-set
//! marker: a DATA with neither payload nor status info whose only inline QoS is
//! PID_COHERENT_SET = SEQUENCENUMBER_UNKNOWN, so a reader knows the set is complete without
//! waiting for the writer's next sample (docs/interop-facts.md §8.1). A set with no change
//! gets no marker. Nested begin/end pairs form one set (the outermost pair).

use bytes::Bytes;

use super::{WriteError, Writer};
use crate::core::{ChangeKind, GroupStamp, WriteRequest};
use crate::time::Now;
use crate::wire::SequenceNumber;

/// Where the writer is in a coherent set.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) enum CoherentWrites {
    /// Changes belong to no set.
    #[default]
    Idle,
    /// Between begin and end, `depth` pairs deep; `first` is the set's first SN once written.
    Open {
        depth: u32,
        first: Option<SequenceNumber>,
    },
    /// `end_coherent_changes` is writing the marker.
    Ending,
}

impl CoherentWrites {
    /// The PID_COHERENT_SET value of the change about to get `sn`.
    pub(super) fn tag(&mut self, sn: SequenceNumber) -> Option<SequenceNumber> {
        match self {
            CoherentWrites::Idle => None,
            CoherentWrites::Open { first, .. } => Some(*first.get_or_insert(sn)),
            CoherentWrites::Ending => {
                *self = CoherentWrites::Idle;
                Some(SequenceNumber::UNKNOWN)
            }
        }
    }

    fn begin(&mut self) {
        *self = match *self {
            CoherentWrites::Open { depth, first } => CoherentWrites::Open {
                depth: depth.saturating_add(1),
                first,
            },
            CoherentWrites::Idle | CoherentWrites::Ending => CoherentWrites::Open {
                depth: 1,
                first: None,
            },
        };
    }

    /// Closes one pair; true when the set ended with at least one change (a marker is due).
    fn end(&mut self) -> Result<bool, WriteError> {
        match *self {
            CoherentWrites::Open { depth, first } if depth > 1 => {
                *self = CoherentWrites::Open {
                    depth: depth.saturating_sub(1),
                    first,
                };
                Ok(false)
            }
            CoherentWrites::Open { first, .. } => {
                *self = if first.is_some() {
                    CoherentWrites::Ending
                } else {
                    CoherentWrites::Idle
                };
                Ok(first.is_some())
            }
            CoherentWrites::Idle | CoherentWrites::Ending => Err(WriteError::NotInCoherentSet),
        }
    }
}

impl Writer {
    /// Starts (or nests) a coherent set: the changes written until the matching
    /// [`Writer::end_coherent_changes`] are delivered all-or-nothing by readers with
    /// coherent access. DDS 1.4 §2.2.2.4.1.10.
    pub fn begin_coherent_changes(&mut self) {
        self.coherent.begin();
    }

    /// Ends the coherent set (the outermost pair): writes the end-of-set marker when the
    /// set has changes and returns its SN. [`WriteError::NotInCoherentSet`] without a
    /// matching begin. DDS 1.4 §2.2.2.4.1.11; RTPS 2.5 §8.7.5.
    pub fn end_coherent_changes(&mut self, now: Now) -> Result<Option<SequenceNumber>, WriteError> {
        self.end_coherent_changes_stamped(now, None)
    }

    /// [`Writer::end_coherent_changes`] whose marker also carries `group` (the group
    /// coherent set's stamp with its writerSet, RTPS 2.5 §8.7.6; `core::participant::group`).
    pub fn end_coherent_changes_stamped(
        &mut self,
        now: Now,
        group: Option<GroupStamp>,
    ) -> Result<Option<SequenceNumber>, WriteError> {
        if !self.coherent.end()? {
            return Ok(None);
        }
        let mut marker = WriteRequest::new(ChangeKind::Alive, None, Bytes::new());
        marker.group = group;
        let written = self.write(now, marker);
        // Written or not, the set is over (a refused marker leaves the end implied by the
        // next change, which carries no or another PID_COHERENT_SET).
        self.coherent = CoherentWrites::Idle;
        written.map(Some)
    }

    /// True when the outermost open set has changes and the next end closes it (it will
    /// write an end-of-set marker).
    pub fn coherent_set_closes_with_marker(&self) -> bool {
        matches!(
            self.coherent,
            CoherentWrites::Open {
                depth: 1,
                first: Some(_)
            }
        )
    }

    /// True between `begin_coherent_changes` and the matching end.
    pub fn in_coherent_set(&self) -> bool {
        matches!(self.coherent, CoherentWrites::Open { .. })
    }
}

#[cfg(test)]
mod tests;
