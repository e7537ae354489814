//! Coherent changes of a publisher's writers: `begin_coherent_changes` /
//! `end_coherent_changes` applied to every writer the API's Publisher names (DDS 1.4
//! §2.2.2.4.1.10-11). Each writer marks and ends its own set (`core::writer::coherent`).
//!
//! Must not: know which writers form a publisher (the API passes them), or write group
//! coherent-set information (PID_GROUP_COHERENT_SET is not sent: each writer's set is
//! delivered on its own, docs/interop-facts.md §11.1).

use super::Participant;
use crate::core::writer::WriteError;
use crate::time::Now;
use crate::wire::Guid;

impl Participant {
    /// Starts (or nests) a coherent set on each of `writers` (unknown ones are skipped: a
    /// deleted writer has nothing left to make coherent).
    pub fn begin_coherent_changes(&mut self, writers: &[Guid]) {
        for guid in writers {
            if let Some(w) = self.writers.get_mut(&guid.entity_id) {
                w.writer.begin_coherent_changes();
            }
        }
    }

    /// Ends the coherent set of each of `writers`: each writes its end-of-set marker. The
    /// first error is returned after every writer was ended.
    pub fn end_coherent_changes(&mut self, now: Now, writers: &[Guid]) -> Result<(), WriteError> {
        let mut result = Ok(());
        for guid in writers {
            if let Some(w) = self.writers.get_mut(&guid.entity_id) {
                if let Err(e) = w.writer.end_coherent_changes(now) {
                    result = result.and(Err(e));
                }
            }
        }
        result
    }
}

#[cfg(test)]
#[path = "coherent_tests.rs"]
mod tests;
