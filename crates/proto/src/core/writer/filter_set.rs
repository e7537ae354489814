//! The writer's filter set: the remote readers' compiled filters, the memoized sample →
//! passing-reader-set lookup, and the slot table the PID_CONTENT_FILTER_INFO is built from.
//! Owned by the writer's filtering state (`content_filter.rs`); formerly `core::filtering`.
//!
//! Must not: perform I/O, evaluate a filter more than once per distinct (filter, projected
//! sample) while the table holds the answer, cap the number of filtered readers, or panic on
//! a sample or a filter a remote reader announced (the writer's no-panic lints apply).
//!
//! # Overview
//! RTPS 2.5 §8.7.3-§8.7.4 (writer filtering), DDS 1.4 Annex B. Each remote reader that
//! announced a usable filter (class DDSSQL, related topic = ours, compiles against our type)
//! gets a slot; identical filters (same signature) share one compiled program. A sample is
//! projected onto the fields the programs read — once per distinct field set — and the
//! concatenated projections key a bounded [`Memo`] whose value is the set of passing slots.
//! A miss evaluates each distinct program once. Any change to the set of filters bumps the
//! memo's generation, invalidating every entry without a scan. Readers without a usable
//! filter are not in the set: they receive everything (RTPS 2.5 §8.7.3.2 allows a writer not
//! to filter), and their own reader filters locally.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::core::discovery::ContentFilter;
use crate::filter::{EvalError, FieldPath, FilterError, Program, parse_parameters};
use crate::memo::Memo;
use crate::types::TypeDescriptor;
use crate::wire::Guid;
use crate::wire::plist::ContentFilterInfo;

/// The filter class we evaluate (docs/interop-facts.md §1.4: Fast DDS, RTI and OpenDDS default).
pub const DDSSQL: &str = "DDSSQL";

/// Default number of memoized samples per writer.
pub const DEFAULT_MEMO_CAPACITY: usize = 4096;

/// Why a reader's announced filter is not evaluated on the writer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotFiltering {
    /// A filter class other than DDSSQL.
    UnknownClass(String),
    /// The filter is for another topic.
    OtherTopic(String),
    /// It does not parse, bind or compile against our type.
    Invalid(FilterError),
    /// The writer's type has no descriptor to compile filters against.
    NoTypeDescriptor,
}

impl core::fmt::Display for NotFiltering {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            NotFiltering::UnknownClass(c) => write!(f, "unknown filter class {c:?}"),
            NotFiltering::OtherTopic(t) => write!(f, "filter is for topic {t:?}"),
            NotFiltering::Invalid(e) => write!(f, "invalid filter: {e}"),
            NotFiltering::NoTypeDescriptor => f.write_str("no type descriptor for the topic type"),
        }
    }
}

impl std::error::Error for NotFiltering {}

/// Reader → slot index of a [`FilterSet`] at one point in time.
type SlotMap = BTreeMap<Guid, usize>;

/// The readers a sample passes: bit `i` is slot `i` of the [`FilterSet`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassSet {
    words: Vec<u64>,
}

impl PassSet {
    fn with_len(n: usize) -> Self {
        PassSet {
            words: vec![0; n.div_ceil(64)],
        }
    }

    fn set(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i.wrapping_div(64)) {
            *w |= 1u64.wrapping_shl(bit(i));
        }
    }

    /// True when slot `i` passes.
    pub fn contains(&self, i: usize) -> bool {
        self.words
            .get(i.wrapping_div(64))
            .is_some_and(|w| w & 1u64.wrapping_shl(bit(i)) != 0)
    }

    /// Number of passing slots.
    pub fn count(&self) -> usize {
        self.words
            .iter()
            .map(|w| w.count_ones() as usize)
            .fold(0, usize::saturating_add)
    }
}

/// The bit of slot `i` within its word.
fn bit(i: usize) -> u32 {
    // `i % 64` < 64 always fits.
    u32::try_from(i.wrapping_rem(64)).unwrap_or(0)
}

/// A snapshot of a [`FilterSet`]'s slots: reader → slot, each slot's signature, and the size
/// of the full PID_CONTENT_FILTER_INFO listing them. Built once per change of the set
/// ([`FilterSet::slot_table`]) and shared by every change evaluated under it, so that a stored
/// [`PassSet`] keeps meaning what it meant when it was computed.
#[derive(Debug)]
pub struct SlotTable {
    generation: u64,
    by_reader: Arc<SlotMap>,
    signatures: Vec<[u8; 16]>,
    info_len: usize,
}

impl SlotTable {
    /// The [`FilterSet::generation`] this table was taken at.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.signatures.len()
    }

    /// True when no reader was filtered for.
    pub fn is_empty(&self) -> bool {
        self.signatures.is_empty()
    }

    /// The slot of a reader filtered for.
    pub fn slot_of(&self, reader: Guid) -> Option<usize> {
        self.by_reader.get(&reader).copied()
    }

    /// The signature of slot `slot`'s filter.
    pub fn signature(&self, slot: usize) -> Option<[u8; 16]> {
        self.signatures.get(slot).copied()
    }

    /// [`ContentFilterInfo::buffer_len`] of the full list ([`SlotTable::filter_info`]).
    pub fn info_len(&self) -> usize {
        self.info_len
    }

    /// PID_CONTENT_FILTER_INFO for a sample: one signature and one bit per slot, in slot
    /// order, each bit inverted when `invert` (RTPS 2.5 §9.6.4.1; MSB-first bitmaps).
    pub fn filter_info(&self, set: &PassSet, invert: bool) -> ContentFilterInfo {
        let mut info = ContentFilterInfo::new();
        for (i, s) in self.signatures.iter().enumerate() {
            info.push(*s, set.contains(i) != invert);
        }
        info
    }
}

/// Counters for the closing figures: how much evaluation the table saved.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FilterStats {
    /// Samples looked up.
    pub lookups: u64,
    /// Lookups answered by the table.
    pub hits: u64,
    /// Lookups that evaluated the filters.
    pub misses: u64,
    /// Program evaluations performed (one per distinct filter per miss).
    pub evaluations: u64,
    /// Evaluations a filter-per-reader writer would have done but we did not.
    pub evaluations_saved: u64,
    /// Samples that could not be decoded for filtering (sent to every reader).
    pub undecodable: u64,
}

struct Slot {
    signature: [u8; 16],
    /// Index into `programs`.
    program: usize,
}

struct Compiled {
    /// What the program computes: the expression and its parameters. Readers whose filters
    /// have different names (hence signatures) but the same expression share one program.
    semantics: (String, Vec<String>),
    program: Program,
    /// Index into `field_sets`.
    field_set: usize,
}

/// The filters of the readers matched with one writer.
pub struct FilterSet {
    descriptor: Arc<TypeDescriptor>,
    topic_name: String,
    slots: Vec<Slot>,
    /// Reader → slot. Shared with the changes evaluated under it (copy-on-write), so that a
    /// stored [`PassSet`] keeps meaning what it meant when it was computed.
    by_reader: Arc<SlotMap>,
    programs: Vec<Compiled>,
    field_sets: Vec<Vec<FieldPath>>,
    /// Field set index → a program that projects it.
    projector: Vec<usize>,
    memo: Memo<Vec<u8>, Arc<PassSet>>,
    /// Bumped on every change to the slots.
    generation: u64,
    /// The slot table at `generation`, built on demand.
    table: Option<Arc<SlotTable>>,
    /// The memo key being built: the concatenated projections (each is self-delimiting for
    /// its program, so the concatenation is injective).
    key: Vec<u8>,
    /// Scratch for one projection (`project_into` clears its output).
    projection: Vec<u8>,
    stats: FilterStats,
}

impl FilterSet {
    /// An empty set for a writer of `topic_name` whose samples are described by `descriptor`.
    pub fn new(descriptor: Arc<TypeDescriptor>, topic_name: &str, memo_capacity: usize) -> Self {
        FilterSet {
            descriptor,
            topic_name: topic_name.to_string(),
            slots: Vec::new(),
            by_reader: Arc::new(SlotMap::new()),
            programs: Vec::new(),
            field_sets: Vec::new(),
            projector: Vec::new(),
            memo: Memo::new(memo_capacity),
            generation: 0,
            table: None,
            key: Vec::new(),
            projection: Vec::new(),
            stats: FilterStats::default(),
        }
    }

    /// Number of readers filtered for.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when no reader is filtered for.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The counters.
    pub fn stats(&self) -> FilterStats {
        let mut s = self.stats;
        s.hits = self.memo.stats().hits;
        s
    }

    /// The slot of a filtered reader.
    pub fn slot_of(&self, reader: Guid) -> Option<usize> {
        self.by_reader.get(&reader).copied()
    }

    /// Counts changes to the set of slots: equal generations mean equal slots.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The current slots as a shared snapshot, rebuilt only after the set changed.
    pub fn slot_table(&mut self) -> Arc<SlotTable> {
        if let Some(t) = &self.table {
            return Arc::clone(t);
        }
        let signatures: Vec<[u8; 16]> = self.slots.iter().map(|s| s.signature).collect();
        let mut info = ContentFilterInfo::new();
        for s in &signatures {
            info.push(*s, false);
        }
        let t = Arc::new(SlotTable {
            generation: self.generation,
            by_reader: Arc::clone(&self.by_reader),
            signatures,
            info_len: info.buffer_len(),
        });
        self.table = Some(Arc::clone(&t));
        t
    }

    fn slots_changed(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        self.table = None;
        self.memo.invalidate();
    }

    /// Sets (or replaces, or with `None` removes) a reader's filter. Returns why the writer
    /// will not filter for it, if so; the reader then receives every sample.
    pub fn set_reader_filter(
        &mut self,
        reader: Guid,
        filter: Option<&ContentFilter>,
    ) -> Result<(), NotFiltering> {
        self.remove_reader(reader);
        let Some(f) = filter else { return Ok(()) };
        if f.filter_class_name != DDSSQL {
            return Err(NotFiltering::UnknownClass(f.filter_class_name.clone()));
        }
        if f.related_topic_name != self.topic_name {
            return Err(NotFiltering::OtherTopic(f.related_topic_name.clone()));
        }
        let signature = f.signature();
        let semantics = (f.filter_expression.clone(), f.expression_parameters.clone());
        let program = match self.programs.iter().position(|c| c.semantics == semantics) {
            Some(p) => p,
            None => {
                let params =
                    parse_parameters(&f.expression_parameters).map_err(NotFiltering::Invalid)?;
                let program =
                    Program::compile_expression(&f.filter_expression, &params, &self.descriptor)
                        .map_err(NotFiltering::Invalid)?;
                let fields = program.referenced_fields().to_vec();
                let field_set = match self.field_sets.iter().position(|s| *s == fields) {
                    Some(i) => i,
                    None => {
                        self.field_sets.push(fields);
                        self.projector.push(self.programs.len());
                        self.field_sets.len().saturating_sub(1)
                    }
                };
                self.programs.push(Compiled {
                    semantics,
                    program,
                    field_set,
                });
                self.programs.len().saturating_sub(1)
            }
        };
        let slot = self.slots.len();
        Arc::make_mut(&mut self.by_reader).insert(reader, slot);
        self.slots.push(Slot { signature, program });
        self.slots_changed();
        Ok(())
    }

    /// Forgets a reader's filter (it unmatched or stopped filtering).
    pub fn remove_reader(&mut self, reader: Guid) {
        if !self.by_reader.contains_key(&reader) {
            return;
        }
        let map = Arc::make_mut(&mut self.by_reader);
        let Some(i) = map.remove(&reader) else { return };
        if i < self.slots.len() {
            self.slots.remove(i);
        }
        for s in map.values_mut() {
            if *s > i {
                *s = s.saturating_sub(1);
            }
        }
        self.compact_programs();
        self.slots_changed();
    }

    /// Drops programs and field sets no slot uses any more.
    fn compact_programs(&mut self) {
        let used: Vec<bool> = (0..self.programs.len())
            .map(|p| self.slots.iter().any(|s| s.program == p))
            .collect();
        let mut remap = vec![usize::MAX; self.programs.len()];
        let mut kept = Vec::new();
        for ((c, used), to) in std::mem::take(&mut self.programs)
            .into_iter()
            .zip(used)
            .zip(remap.iter_mut())
        {
            if used {
                *to = kept.len();
                kept.push(c);
            }
        }
        self.programs = kept;
        for s in &mut self.slots {
            // invariant: every slot's program is used, so it was kept and remapped.
            s.program = remap.get(s.program).copied().unwrap_or(usize::MAX);
        }
        // Rebuild the field sets from the surviving programs.
        self.field_sets.clear();
        self.projector.clear();
        for (pi, c) in self.programs.iter_mut().enumerate() {
            let fields = c.program.referenced_fields().to_vec();
            c.field_set = match self.field_sets.iter().position(|s| *s == fields) {
                Some(i) => i,
                None => {
                    self.field_sets.push(fields);
                    self.projector.push(pi);
                    self.field_sets.len().saturating_sub(1)
                }
            };
        }
    }

    /// The set of slots `payload` passes, from the table or by evaluating each distinct
    /// filter once. A payload that cannot be decoded passes every slot (the readers filter it
    /// themselves).
    pub fn evaluate(&mut self, payload: &[u8]) -> Arc<PassSet> {
        let st = &mut self.stats;
        st.lookups = st.lookups.saturating_add(1);
        if self.slots.is_empty() {
            return Arc::new(PassSet::default());
        }
        self.key.clear();
        for &p in &self.projector {
            // invariant: `projector` only names existing programs.
            let projected = self
                .programs
                .get(p)
                .map(|c| c.program.project_into(payload, &mut self.projection));
            if !matches!(projected, Some(Ok(_))) {
                self.stats.undecodable = self.stats.undecodable.saturating_add(1);
                return Arc::new(self.all_pass());
            }
            self.key.extend_from_slice(&self.projection);
        }
        let (slots, programs) = (to_u64(self.slots.len()), to_u64(self.programs.len()));
        if let Some(hit) = self.memo.get(self.key.as_slice()) {
            let st = &mut self.stats;
            st.evaluations_saved = st.evaluations_saved.saturating_add(slots);
            return hit;
        }
        let results: Result<Vec<bool>, EvalError> = self
            .programs
            .iter()
            .map(|c| c.program.evaluate(payload))
            .collect();
        let st = &mut self.stats;
        st.misses = st.misses.saturating_add(1);
        st.evaluations = st.evaluations.saturating_add(programs);
        st.evaluations_saved = st
            .evaluations_saved
            .saturating_add(slots.saturating_sub(programs));
        let set = match results {
            Ok(results) => {
                let mut set = PassSet::with_len(self.slots.len());
                for (i, s) in self.slots.iter().enumerate() {
                    if results.get(s.program).copied().unwrap_or(true) {
                        set.set(i);
                    }
                }
                set
            }
            Err(_) => {
                self.stats.undecodable = self.stats.undecodable.saturating_add(1);
                self.all_pass()
            }
        };
        let set = Arc::new(set);
        self.memo.insert(self.key.clone(), Arc::clone(&set));
        set
    }

    fn all_pass(&self) -> PassSet {
        let mut set = PassSet::with_len(self.slots.len());
        for i in 0..self.slots.len() {
            set.set(i);
        }
        set
    }

    /// True when `reader` should get the sample: it passes, or it is not filtered for.
    pub fn passes(&self, set: &PassSet, reader: Guid) -> bool {
        match self.by_reader.get(&reader) {
            Some(&i) => set.contains(i),
            None => true,
        }
    }

    /// PID_CONTENT_FILTER_INFO for a sample: one signature and one bit per filtered reader,
    /// in slot order (RTPS 2.5 §9.6.4.1; MSB-first bitmaps; no 32-reader cap).
    pub fn filter_info(&self, set: &PassSet) -> ContentFilterInfo {
        let mut info = ContentFilterInfo::new();
        for (i, s) in self.slots.iter().enumerate() {
            info.push(s.signature, set.contains(i));
        }
        info
    }
}

fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;
