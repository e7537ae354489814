//! `Publisher::begin_coherent_changes` / `end_coherent_changes` (DDS 1.4 §2.2.2.4.1.10-11):
//! the writers this publisher created make one coherent set each, delivered all-or-nothing
//! by subscribers with PRESENTATION `coherent_access` (core: `writer::coherent`,
//! `reader::coherent`).
//!
//! Must not: block on the network; both calls only queue work on the event loop, after the
//! writes made before them (commands run in the order made).

use super::Error;
use super::endpoint::Publisher;
use crate::core::Participant;
use crate::core::writer::WriteError;
use crate::time::Now;
use crate::wire::Guid;

impl Publisher {
    /// Starts a coherent set on every DataWriter of this publisher: the samples written until
    /// [`Publisher::end_coherent_changes`] reach readers with coherent access together or not
    /// at all. Calls nest (the outermost pair makes the set). Without PRESENTATION
    /// `coherent_access` in the publisher's QoS this does nothing (DDS 1.4 §2.2.3.6).
    pub fn begin_coherent_changes(&self) -> Result<(), Error> {
        self.on_writers(|p, _, writers| {
            p.begin_coherent_changes(writers);
            Ok(())
        })
    }

    /// Ends the coherent set started by [`Publisher::begin_coherent_changes`]: each writer
    /// sends its end-of-set marker. `Error::Write(NotInCoherentSet)` without a begin.
    pub fn end_coherent_changes(&self) -> Result<(), Error> {
        self.on_writers(|p, now, writers| p.end_coherent_changes(now, writers))
    }

    /// Runs `f` on the loop with this publisher's writers, when its QoS has coherent access.
    fn on_writers(
        &self,
        f: fn(&mut Participant, Now, &[Guid]) -> Result<(), WriteError>,
    ) -> Result<(), Error> {
        if !self.qos.presentation.coherent_access {
            return Ok(());
        }
        let writers = self.writer_guids();
        self.participant
            .inner
            .handle
            .execute(move |p, now| f(p, now, &writers))?
            .map_err(Error::Write)
    }

    fn writer_guids(&self) -> Vec<Guid> {
        self.writers.read().map(|w| w.clone()).unwrap_or_default()
    }
}
