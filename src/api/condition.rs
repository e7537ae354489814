//! Conditions a [`WaitSet`](super::WaitSet) waits on: the [`GuardCondition`] the application
//! triggers, the [`ReadCondition`] and [`QueryCondition`] of a DataReader (true while it holds
//! samples in the given states, passing the query), and the [`StatusCondition`] of a reader or
//! writer (true while an enabled status changed and was not acknowledged).
//!
//! Must not: hold protocol state or block (a trigger value is computed by the core on the
//! loop thread: `Participant::any_selected` and the status getters), or own an API handle on
//! the loop thread (the loop side of a condition holds only its [`LoopSide`]: the signals to
//! notify and a flag the condition's drop sets).
//!
//! DDS 1.4 §2.2.2.1.7 (GuardCondition), §2.2.2.1.8 (StatusCondition), §2.2.2.5.8
//! (ReadCondition), §2.2.2.5.9 (QueryCondition).
//!
//! # Overview
//! Each condition has a [`ConditionId`] and the [`Signals`] of the WaitSets it is attached to.
//! A reader's or writer's condition registers a listener on the participant's loop
//! (`RuntimeHandle::attach`): after every wakeup that handled input or commands it evaluates
//! the trigger and, when true, notifies those WaitSets; the WaitSet then asks each condition
//! for its trigger value (a round trip to the loop), so what it returns is exactly the
//! conditions whose trigger is true at that moment.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};

use bitflags::bitflags;

use super::endpoint::DataReader;
use super::{DataWriter, DomainParticipant, Error, UsageError};
use crate::core::Participant;
use crate::core::discovery::ContentFilter;
use crate::core::reader::{ReadSelection, ReaderFilter, StateMasks};
use crate::core::writer::NotFiltering;
use crate::runtime::Signals;
use crate::time::Now;
use crate::types::TopicType;
use crate::wire::Guid;

/// Identifies a condition among those a [`WaitSet::wait`](super::WaitSet::wait) returns.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConditionId(u64);

impl ConditionId {
    fn next() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        ConditionId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// Something a [`WaitSet`](super::WaitSet) can wait on. DDS 1.4 §2.2.2.1.5.
pub trait Condition {
    /// This condition's id.
    fn id(&self) -> ConditionId;
    /// The trigger value now (false if the participant stopped).
    fn trigger_value(&self) -> bool;
    /// What the WaitSet attaches to.
    #[doc(hidden)]
    fn core(&self) -> &Arc<Core>;
}

/// What the loop side of a condition holds: the WaitSets' signals and whether the condition
/// still exists. Owns no API handle, so dropping it on the loop thread is harmless.
#[derive(Debug, Default)]
struct LoopSide {
    signals: Signals,
    dropped: AtomicBool,
}

/// The shared part of every condition: its id, its loop side, and how to compute its
/// trigger value from an application thread.
#[doc(hidden)]
pub struct Core {
    id: ConditionId,
    loop_side: Arc<LoopSide>,
    trigger: Box<dyn Fn() -> bool + Send + Sync>,
}

impl Core {
    fn new(trigger: impl Fn() -> bool + Send + Sync + 'static) -> Arc<Self> {
        Arc::new(Core {
            id: ConditionId::next(),
            loop_side: Arc::default(),
            trigger: Box::new(trigger),
        })
    }

    pub(super) fn id(&self) -> ConditionId {
        self.id
    }

    pub(super) fn signals(&self) -> &Signals {
        &self.loop_side.signals
    }

    /// The trigger value now.
    pub(super) fn trigger_value(&self) -> bool {
        (self.trigger)()
    }

    /// Registers the loop-side listener that notifies the attached WaitSets whenever
    /// `trigger` is true after a wakeup; it ends when the condition is dropped or `entity`
    /// is deleted.
    fn listen(
        &self,
        participant: &DomainParticipant,
        entity: Guid,
        mut trigger: impl FnMut(&mut Participant, Now) -> bool + Send + 'static,
    ) -> Result<(), Error> {
        let side = Arc::clone(&self.loop_side);
        participant.inner.handle.attach(move |p, now| {
            if side.dropped.load(Ordering::Acquire) || !entity_exists(p, entity) {
                return true;
            }
            if side.signals.any() && trigger(p, now) {
                side.signals.notify_all();
            }
            false
        })?;
        Ok(())
    }
}

impl Drop for Core {
    fn drop(&mut self) {
        self.loop_side.dropped.store(true, Ordering::Release);
    }
}

/// `f` on the loop thread of `participant` (false if it stopped).
fn on_loop(
    participant: &DomainParticipant,
    f: impl FnOnce(&mut Participant, Now) -> bool + Send + 'static,
) -> bool {
    participant.inner.handle.execute(f).unwrap_or(false)
}

fn entity_exists(p: &Participant, entity: Guid) -> bool {
    p.has_reader(entity) || p.writer_counters(entity).is_some()
}

/// A condition the application triggers. DDS 1.4 §2.2.2.1.7.
#[derive(Clone)]
pub struct GuardCondition {
    core: Arc<Core>,
    flag: Arc<AtomicBool>,
}

impl GuardCondition {
    /// A guard condition, not triggered.
    pub fn new() -> Self {
        let flag = Arc::new(AtomicBool::new(false));
        let f = Arc::clone(&flag);
        GuardCondition {
            core: Core::new(move || f.load(Ordering::Acquire)),
            flag,
        }
    }

    /// Sets the trigger value; `true` wakes the WaitSets it is attached to.
    pub fn set_trigger_value(&self, value: bool) {
        self.flag.store(value, Ordering::Release);
        if value {
            self.core.signals().notify_all();
        }
    }
}

impl Default for GuardCondition {
    fn default() -> Self {
        GuardCondition::new()
    }
}

/// True while its DataReader holds samples in the condition's states. Use it with
/// [`DataReader::read_w_condition`] / [`DataReader::take_w_condition`] and in a WaitSet.
/// DDS 1.4 §2.2.2.5.8.
#[derive(Clone)]
pub struct ReadCondition {
    core: Arc<Core>,
    reader: Guid,
    selection: ReadSelection,
}

impl ReadCondition {
    /// The states this condition selects.
    pub fn masks(&self) -> StateMasks {
        self.selection.masks
    }
}

/// A [`ReadCondition`] that also filters the samples' contents with a DDS-SQL expression
/// (compiled against the reader's type by the same compiler as content filters; `%n` are
/// the parameters). A sample that carries no data (an instance state change) never passes.
/// DDS 1.4 §2.2.2.5.9.
#[derive(Clone)]
pub struct QueryCondition {
    read: ReadCondition,
    expression: String,
    parameters: Vec<String>,
}

impl QueryCondition {
    /// The query expression.
    pub fn query_expression(&self) -> &str {
        &self.expression
    }

    /// The query parameters.
    pub fn query_parameters(&self) -> &[String] {
        &self.parameters
    }
}

impl AsRef<ReadCondition> for ReadCondition {
    fn as_ref(&self) -> &ReadCondition {
        self
    }
}

impl AsRef<ReadCondition> for QueryCondition {
    fn as_ref(&self) -> &ReadCondition {
        &self.read
    }
}

impl<T: TopicType> DataReader<T> {
    /// A condition true while this reader holds samples in the states `masks` selects.
    /// DDS 1.4 §2.2.2.5.3.4 (create_readcondition).
    pub fn create_readcondition(&self, masks: StateMasks) -> Result<ReadCondition, Error> {
        self.read_condition(ReadSelection::with_masks(masks))
    }

    /// A condition true while this reader holds samples in the states `masks` selects whose
    /// data pass the DDS-SQL `expression` with `parameters`. An expression that does not
    /// parse or type-check against `T` is an error. DDS 1.4 §2.2.2.5.3.5.
    pub fn create_querycondition(
        &self,
        masks: StateMasks,
        expression: &str,
        parameters: &[&str],
    ) -> Result<QueryCondition, Error> {
        let filter = ContentFilter {
            content_filtered_topic_name: String::new(),
            related_topic_name: String::new(),
            filter_class_name: "DDSSQL".to_string(),
            filter_expression: expression.to_string(),
            expression_parameters: parameters.iter().map(|s| s.to_string()).collect(),
        };
        let descriptor = T::descriptor().ok_or(Error::from(NotFiltering::NoTypeDescriptor))?;
        let compiled = ReaderFilter::compile(&filter, descriptor).map_err(Error::from)?;
        let selection = ReadSelection {
            query: Some(Arc::clone(compiled.program())),
            ..ReadSelection::with_masks(masks)
        };
        Ok(QueryCondition {
            read: self.read_condition(selection)?,
            expression: filter.filter_expression,
            parameters: filter.expression_parameters,
        })
    }

    fn read_condition(&self, selection: ReadSelection) -> Result<ReadCondition, Error> {
        let reader = self.guid;
        let (participant, sel) = (self.participant.clone(), selection.clone());
        let core = Core::new(move || {
            let sel = sel.clone();
            on_loop(&participant, move |p, now| {
                p.any_selected(now, reader, &sel)
            })
        });
        let sel = selection.clone();
        core.listen(&self.participant, reader, move |p, now| {
            p.any_selected(now, reader, &sel)
        })?;
        Ok(ReadCondition {
            core,
            reader,
            selection,
        })
    }

    /// [`DataReader::read_with`] with the condition's states (and query); `condition` must
    /// be this reader's. DDS 1.4 §2.2.2.5.3.6 (read_w_condition).
    pub fn read_w_condition(
        &self,
        condition: &impl AsRef<ReadCondition>,
        max_samples: usize,
    ) -> Result<Vec<super::Sample<T>>, Error> {
        self.select_w_condition(condition.as_ref(), max_samples, false)
    }

    /// [`DataReader::take_with`] with the condition's states (and query); `condition` must
    /// be this reader's. DDS 1.4 §2.2.2.5.3.7 (take_w_condition).
    pub fn take_w_condition(
        &self,
        condition: &impl AsRef<ReadCondition>,
        max_samples: usize,
    ) -> Result<Vec<super::Sample<T>>, Error> {
        self.select_w_condition(condition.as_ref(), max_samples, true)
    }

    fn select_w_condition(
        &self,
        condition: &ReadCondition,
        max_samples: usize,
        take: bool,
    ) -> Result<Vec<super::Sample<T>>, Error> {
        if condition.reader != self.guid {
            return Err(Error::Usage(UsageError::PreconditionNotMet(
                "the condition belongs to another reader",
            )));
        }
        let selection = ReadSelection {
            max_samples,
            ..condition.selection.clone()
        };
        self.select(selection, take)
    }

    /// This reader's StatusCondition with `enabled` statuses. DDS 1.4 §2.2.2.1.1.6.
    pub fn status_condition(&self, enabled: StatusMask) -> Result<StatusCondition, Error> {
        StatusCondition::new(&self.participant, self.guid, enabled)
    }
}

impl<T: TopicType> DataWriter<T> {
    /// This writer's StatusCondition with `enabled` statuses. DDS 1.4 §2.2.2.1.1.6.
    pub fn status_condition(&self, enabled: StatusMask) -> Result<StatusCondition, Error> {
        StatusCondition::new(&self.participant, self.guid(), enabled)
    }
}

bitflags! {
    /// The communication statuses a [`StatusCondition`] can watch: those the library tracks.
    /// DDS 1.4 §2.2.4.1.
    #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
    pub struct StatusMask: u8 {
        /// A reader holds samples no read returned yet.
        const DATA_AVAILABLE = 1;
        /// A reader's count of matched writers changed.
        const SUBSCRIPTION_MATCHED = 2;
        /// A writer's count of matched readers changed.
        const PUBLICATION_MATCHED = 4;
        /// A reader's instances missed their requested deadline.
        const REQUESTED_DEADLINE_MISSED = 8;
        /// A writer's instances missed their offered deadline.
        const OFFERED_DEADLINE_MISSED = 16;
        /// A reader's matched writers changed liveliness (matched, lost, regained, gone).
        const LIVELINESS_CHANGED = 32;
    }
}

/// The status values a StatusCondition compares with those last acknowledged.
const COUNTED: [StatusMask; 5] = [
    StatusMask::SUBSCRIPTION_MATCHED,
    StatusMask::PUBLICATION_MATCHED,
    StatusMask::REQUESTED_DEADLINE_MISSED,
    StatusMask::OFFERED_DEADLINE_MISSED,
    StatusMask::LIVELINESS_CHANGED,
];

/// A StatusCondition's enabled statuses and the values last acknowledged.
#[derive(Debug)]
struct StatusState {
    enabled: AtomicU8,
    acknowledged: [AtomicU64; 5],
}

impl StatusState {
    /// The current value of each counted status of `entity`.
    fn values(p: &Participant, entity: Guid) -> [u64; 5] {
        let count = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
        let total = |s: Option<crate::core::DeadlineMissedStatus>| s.map_or(0, |s| s.total_count);
        [
            count(p.matched_writers(entity)),
            count(p.matched_readers(entity)),
            total(p.requested_deadline_missed(entity)),
            total(p.offered_deadline_missed(entity)),
            p.liveliness_changed(entity).map_or(0, |s| s.total_changes),
        ]
    }

    /// The enabled statuses that changed since acknowledged (DATA_AVAILABLE: unread
    /// samples now). Runs on the loop thread.
    fn changed(&self, p: &Participant, entity: Guid) -> StatusMask {
        let enabled = StatusMask::from_bits_truncate(self.enabled.load(Ordering::Acquire));
        let mut changed = StatusMask::empty();
        if enabled.contains(StatusMask::DATA_AVAILABLE) && p.has_unread(entity) {
            changed |= StatusMask::DATA_AVAILABLE;
        }
        let now = Self::values(p, entity);
        for ((flag, value), acked) in COUNTED.iter().zip(now).zip(&self.acknowledged) {
            if enabled.contains(*flag) && value != acked.load(Ordering::Acquire) {
                changed |= *flag;
            }
        }
        changed
    }
}

/// True while an enabled communication status of its reader or writer changed since the
/// application last acknowledged it ([`StatusCondition::take_changes`]); DATA_AVAILABLE is
/// true while the reader holds samples no read returned yet. DDS 1.4 §2.2.2.1.8.
#[derive(Clone)]
pub struct StatusCondition {
    core: Arc<Core>,
    participant: DomainParticipant,
    entity: Guid,
    status: Arc<StatusState>,
}

impl StatusCondition {
    fn new(
        participant: &DomainParticipant,
        entity: Guid,
        enabled: StatusMask,
    ) -> Result<Self, Error> {
        let status = Arc::new(StatusState {
            enabled: AtomicU8::new(enabled.bits()),
            acknowledged: Default::default(),
        });
        let (on, watched) = (participant.clone(), Arc::clone(&status));
        let core = Core::new(move || {
            let watched = Arc::clone(&watched);
            on_loop(&on, move |p, _| !watched.changed(p, entity).is_empty())
        });
        let watched = Arc::clone(&status);
        core.listen(participant, entity, move |p, _| {
            !watched.changed(p, entity).is_empty()
        })?;
        let condition = StatusCondition {
            core,
            participant: participant.clone(),
            entity,
            status,
        };
        // Start from the values now: a status "changes" from here on.
        condition.take_changes()?;
        Ok(condition)
    }

    /// The statuses it watches.
    pub fn enabled_statuses(&self) -> StatusMask {
        StatusMask::from_bits_truncate(self.status.enabled.load(Ordering::Acquire))
    }

    /// Watches `mask` from now on. DDS 1.4 §2.2.2.1.8.1 (set_enabled_statuses).
    pub fn set_enabled_statuses(&self, mask: StatusMask) {
        self.status.enabled.store(mask.bits(), Ordering::Release);
    }

    /// The enabled statuses that changed since last acknowledged, and acknowledges them (as
    /// reading those statuses does in DDS 1.4 §2.2.4.1). DATA_AVAILABLE stays until the
    /// unread samples are read or taken.
    pub fn take_changes(&self) -> Result<StatusMask, Error> {
        let (entity, status) = (self.entity, Arc::clone(&self.status));
        Ok(self.participant.inner.handle.execute(move |p, _| {
            let changed = status.changed(p, entity);
            for (acked, value) in status
                .acknowledged
                .iter()
                .zip(StatusState::values(p, entity))
            {
                acked.store(value, Ordering::Release);
            }
            changed
        })?)
    }
}

impl Condition for GuardCondition {
    fn id(&self) -> ConditionId {
        self.core.id()
    }
    fn trigger_value(&self) -> bool {
        self.core.trigger_value()
    }
    fn core(&self) -> &Arc<Core> {
        &self.core
    }
}

impl Condition for ReadCondition {
    fn id(&self) -> ConditionId {
        self.core.id()
    }
    fn trigger_value(&self) -> bool {
        self.core.trigger_value()
    }
    fn core(&self) -> &Arc<Core> {
        &self.core
    }
}

impl Condition for QueryCondition {
    fn id(&self) -> ConditionId {
        self.read.core.id()
    }
    fn trigger_value(&self) -> bool {
        self.read.core.trigger_value()
    }
    fn core(&self) -> &Arc<Core> {
        &self.read.core
    }
}

impl Condition for StatusCondition {
    fn id(&self) -> ConditionId {
        self.core.id()
    }
    fn trigger_value(&self) -> bool {
        self.core.trigger_value()
    }
    fn core(&self) -> &Arc<Core> {
        &self.core
    }
}
