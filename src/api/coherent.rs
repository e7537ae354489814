//! `Publisher::begin_coherent_changes` / `end_coherent_changes` (DDS 1.4 §2.2.2.4.1.10-11):
//! the writers this publisher created make one coherent set each, delivered all-or-nothing
//! by subscribers with PRESENTATION `coherent_access` (core: `writer::coherent`,
//! `reader::coherent`); and [`Subscriber::take_together`], the take of a
//! `begin_access`/`end_access` bracket (DDS 1.4 §2.2.2.5.2.8-9): several readers taken in one
//! turn of the event loop.
//!
//! Must not: block on the network; both calls only queue work on the event loop, after the
//! writes made before them (commands run in the order made).

use super::Error;
use super::endpoint::{DataReader, Publisher, Sample, Subscriber};
use crate::core::Participant;
use crate::core::reader::ReadSelection;
use crate::core::writer::WriteError;
use crate::qos::PresentationAccessScope;
use crate::time::Now;
use crate::types::TopicType;
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
    /// sends its end-of-set marker. `Error::Usage(UsageError::Write(NotInCoherentSet))`
    /// without a begin.
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
            .map_err(Error::from)
    }

    /// Records a new writer of this publisher; with PRESENTATION access scope GROUP and
    /// coherent or ordered access, the core puts the publisher's writers into one writer group
    /// (group sequence numbers, group coherent sets: RTPS 2.5 §8.7.6).
    pub(super) fn joined(&self, guid: Guid) -> Result<(), Error> {
        if let Ok(mut writers) = self.writers.write() {
            writers.push(guid);
        }
        let p = self.qos.presentation;
        if p.access_scope != PresentationAccessScope::Group
            || !(p.coherent_access || p.ordered_access)
        {
            return Ok(());
        }
        let writers = self.writer_guids();
        let coherent = p.coherent_access;
        self.participant
            .inner
            .handle
            .execute(move |p, now| p.join_writer_group(now, &writers, coherent))?;
        Ok(())
    }

    fn writer_guids(&self) -> Vec<Guid> {
        self.writers.read().map(|w| w.clone()).unwrap_or_default()
    }
}

impl Subscriber {
    /// Takes every available sample of each of `readers` (of this subscriber's participant)
    /// in one turn of the event loop, so that no datagram is handled between one reader's
    /// take and the next: the sets a publisher's writers end together are seen together, not
    /// split between two takes (what `begin_access` … `end_access` around the takes gives an
    /// application in DDS 1.4 §2.2.2.5.2.8). One vector per reader, in order.
    pub fn take_together<T: TopicType>(
        &self,
        readers: &[&DataReader<T>],
    ) -> Result<Vec<Vec<Sample<T>>>, Error> {
        let guids: Vec<Guid> = readers.iter().map(|r| r.guid).collect();
        let any = ReadSelection::any();
        let taken = self.participant.inner.handle.execute(move |p, now| {
            guids
                .iter()
                .map(|g| (*g, p.select(now, *g, &any, true)))
                .collect::<Vec<_>>()
        })?;
        Ok(taken
            .into_iter()
            .map(|(g, changes)| DataReader::<T>::samples(g, changes))
            .collect())
    }
}
