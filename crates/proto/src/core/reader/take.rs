//! The application side of the reader: `take` / `read` of what the delivery queue holds,
//! in presentation order, dropping samples whose lifespan ended, and resuming writers that
//! were stalled on a full queue.
//!
//! Must not: accept input from the network (the receive path is `mod.rs` and
//! `writer_proxy.rs`), reorder within an instance (only PRESENTATION ordered access may, by
//! `presentation.rs`), or do I/O / read clocks (time is the `now` passed in).
//!
//! DDS 1.4 §2.2.2.5.3.8 (read), §2.2.2.5.3.9 (take), §2.2.2.5.3.14-17 (per-instance reads),
//! §2.2.2.5.4 (SampleInfo), §2.2.3.16 (LIFESPAN), §2.2.3.6 (PRESENTATION).

use super::Reader;
use super::history::Selected;
use super::instance::InstanceTable;
use super::presentation::{presentation_order, presentation_order_by};
use super::sample_info::{
    InstanceHandle, InstanceSelector, InstanceView, ReadSelection, SampleInfo, SampleState,
    info_of, rank,
};
use super::writer_proxy::Sink;
use crate::core::CacheChange;
use crate::time::Now;

impl Reader {
    /// The next sample for the application, oldest first (in SN order per writer for a
    /// reliable reader), as [`Reader::take`] at the time of the latest input.
    pub fn poll_sample(&mut self) -> Option<CacheChange> {
        self.take(self.last_now)
    }

    /// Takes (removes) the next sample at `now`, read or not; samples whose lifespan ended
    /// are dropped (DDS 1.4 §2.2.3.16). Taking may unblock writers stalled on a full queue.
    /// DDS 1.4 §2.2.2.5.3.9 (take).
    pub fn take(&mut self, now: Now) -> Option<CacheChange> {
        let (change, expired) = self.queue.pop_live(now.wall.to_unix_nanos());
        self.count_expired(expired);
        let change = change?;
        self.unstall(now);
        Some(change)
    }

    /// Takes every queued sample at `now` into `out` (as repeated [`Reader::take`], with the
    /// stalled writers resumed once at the end); returns how many were added.
    pub fn take_all(&mut self, now: Now, out: &mut Vec<CacheChange>) -> usize {
        let before = out.len();
        let now_ns = now.wall.to_unix_nanos();
        loop {
            let mut progress = false;
            loop {
                let (change, expired) = self.queue.pop_live(now_ns);
                self.count_expired(expired);
                progress |= expired > 0;
                let Some(change) = change else { break };
                out.push(change);
                progress = true;
            }
            if !progress {
                break;
            }
            // Resuming a stalled writer may queue more (KEEP_ALL flow control): take those too.
            self.unstall(now);
            if self.queue.len() == 0 {
                break;
            }
        }
        if let Some(taken) = out.get_mut(before..) {
            presentation_order(&self.config.presentation, taken);
        }
        out.len().saturating_sub(before)
    }

    /// Returns every queued sample not returned by an earlier `read` and marks it READ; the
    /// samples stay queued for [`Reader::take`]. DDS 1.4 §2.2.2.5.3.8 (read with
    /// NOT_READ_SAMPLE_STATE).
    pub fn read(&mut self, now: Now) -> Vec<CacheChange> {
        let (mut samples, expired) = self.queue.read(now.wall.to_unix_nanos());
        presentation_order(&self.config.presentation, &mut samples);
        self.count_expired(expired);
        if expired > 0 {
            self.unstall(now);
        }
        samples
    }

    /// Reads (`take` false: the samples stay queued, marked READ) or takes the samples
    /// `selection` asks for, in presentation order, each with its [`SampleInfo`] (ranks
    /// relative to the returned collection). Every instance with a returned sample becomes
    /// NOT_NEW. Samples whose lifespan ended are dropped first. DDS 1.4 §2.2.2.5.3.8-9
    /// (read, take), §2.2.2.5.3.14-17 (the per-instance variants), §2.2.2.5.4 (SampleInfo).
    pub fn select(
        &mut self,
        now: Now,
        selection: &ReadSelection,
        take: bool,
    ) -> Vec<(CacheChange, SampleInfo)> {
        let expired = self.queue.drop_expired(now.wall.to_unix_nanos());
        self.count_expired(expired);
        let Some(target) = self.target_instance(selection) else {
            return Vec::new();
        };
        let max = selection.max_samples;
        let mut picked = self.pick(selection, target, take, max);
        if take {
            // KEEP_ALL flow control: taking made room, so writers stalled on the full queue
            // deliver again; take what they delivered as well (as `take_all` does).
            while picked.len() < max {
                let before = self.queue.len();
                self.unstall(now);
                if self.queue.len() <= before {
                    break;
                }
                let more = self.pick(selection, target, take, max.saturating_sub(picked.len()));
                if more.is_empty() {
                    break;
                }
                picked.extend(more);
            }
        }
        let instances = &self.instances;
        let mut out: Vec<(CacheChange, SampleInfo)> = picked
            .into_iter()
            .map(|(c, read, stamp)| {
                let id = instances.instance_of(&c);
                let handle = id.map_or(InstanceHandle::NIL, InstanceHandle::of_instance);
                let view = id.map_or(InstanceView::UNTRACKED, |id| instances.view_of(id));
                let info = info_of(&c, read, stamp.generations, stamp.reception, handle, view);
                (c, info)
            })
            .collect();
        presentation_order_by(&self.config.presentation, &mut out, |(c, _)| c);
        rank(&mut out, |(_, i)| i);
        for (c, _) in &out {
            if let Some(id) = self.instances.instance_of(c) {
                self.instances.accessed(id);
            }
        }
        if take || expired > 0 {
            self.unstall(now);
        }
        out
    }

    /// One pass of [`Reader::select`] over the queue: up to `max` selected samples.
    fn pick(
        &mut self,
        selection: &ReadSelection,
        target: Option<InstanceHandle>,
        take: bool,
        max: usize,
    ) -> Vec<Selected> {
        let instances = &self.instances;
        self.queue.select(take, max, |c, read| {
            selected(instances, selection, target, c, read)
        })
    }

    /// True if [`Reader::select`] would return a sample now (the trigger of a ReadCondition
    /// or QueryCondition, DDS 1.4 §2.2.2.5.8), not counting samples whose lifespan ended.
    pub fn any_selected(&self, now: Now, selection: &ReadSelection) -> bool {
        let Some(target) = self.target_instance(selection) else {
            return false;
        };
        let now_ns = now.wall.to_unix_nanos();
        self.queue
            .iter_live(now_ns)
            .any(|(c, read)| selected(&self.instances, selection, target, c, read))
    }

    /// True if the reader knows the instance `handle`: it has queued samples or its state
    /// is tracked. DDS 1.4 §2.2.2.5.3.33 (lookup_instance).
    pub fn has_instance(&self, handle: InstanceHandle) -> bool {
        self.instances.tracks(handle)
            || self
                .queue
                .iter()
                .any(|(c, _)| handle_of(&self.instances, c) == handle)
    }

    /// The instance a selection is limited to: `Some(None)` for every instance, `None` when
    /// a `Next` selection has no further instance with selected samples.
    fn target_instance(&self, selection: &ReadSelection) -> Option<Option<InstanceHandle>> {
        match selection.instance {
            InstanceSelector::Any => Some(None),
            InstanceSelector::Instance(h) => Some(Some(h)),
            // DDS 1.4 §2.2.2.5.3.16: the smallest handle greater than `after` that has
            // samples in the requested states.
            InstanceSelector::Next(after) => {
                let any = ReadSelection {
                    instance: InstanceSelector::Any,
                    ..selection.clone()
                };
                self.queue
                    .iter()
                    .filter(|(c, read)| selected(&self.instances, &any, None, c, *read))
                    .map(|(c, _)| handle_of(&self.instances, c))
                    .filter(|h| *h > after)
                    .min()
                    .map(Some)
            }
        }
    }

    fn count_expired(&mut self, n: u64) {
        self.counters.samples_expired = self.counters.samples_expired.saturating_add(n);
    }

    /// Lets writers stalled on a full queue deliver again.
    fn unstall(&mut self, now: Now) {
        self.last_now = now;
        let mut sink = Sink {
            queue: &mut self.queue,
            counters: &mut self.counters,
            instances: &mut self.instances,
            now,
        };
        for p in self.writers.values_mut().filter(|p| p.is_stalled()) {
            p.pump(&mut sink);
        }
    }
}

/// The handle of a queued change's instance ([`InstanceHandle::NIL`] when unattributed).
fn handle_of(instances: &InstanceTable, c: &CacheChange) -> InstanceHandle {
    instances
        .instance_of(c)
        .map_or(InstanceHandle::NIL, InstanceHandle::of_instance)
}

/// True if `selection` (limited to the instance `target`, if any) selects the queued change
/// `c`, given whether a read returned it.
fn selected(
    instances: &InstanceTable,
    selection: &ReadSelection,
    target: Option<InstanceHandle>,
    c: &CacheChange,
    read: bool,
) -> bool {
    let id = instances.instance_of(c);
    let handle = id.map_or(InstanceHandle::NIL, InstanceHandle::of_instance);
    if target.is_some_and(|t| t != handle) {
        return false;
    }
    let view = id.map_or(InstanceView::UNTRACKED, |id| instances.view_of(id));
    let sample = if read {
        SampleState::Read
    } else {
        SampleState::NotRead
    };
    selection.masks.matches(sample, view.view, view.state) && selection.passes_query(c)
}
