//! The DCPS reading model on the sans-IO reader (`reader/sample_info.rs`, the instance states
//! of `reader/instance.rs`, `Reader::select`): sample and view states, instance states and
//! generation counts through dispose, unregister and writer loss, ranks, masks, per-instance
//! reads. DDS 1.4 §2.2.2.5.1, §2.2.2.5.3.8-17, §2.2.2.5.4.

use std::collections::BTreeMap;

use super::instance::{reader, send, t, writer};
use super::*;

const DISPOSED: u8 = 0x1;
const UNREGISTERED: u8 = 0x2;

fn select(r: &mut Reader, masks: StateMasks, take: bool) -> Vec<(CacheChange, SampleInfo)> {
    r.select(t(1000), &ReadSelection::with_masks(masks), take)
}

fn handle(key: u8) -> InstanceHandle {
    InstanceHandle::from_key_hash([key; 16])
}

/// (SN, instance state, view state, valid data, disposed and no-writers generations).
fn summary(
    got: &[(CacheChange, SampleInfo)],
) -> Vec<(i64, InstanceState, ViewState, bool, u32, u32)> {
    got.iter()
        .map(|(c, i)| {
            (
                c.sequence_number.0,
                i.instance_state,
                i.view_state,
                i.valid_data,
                i.disposed_generation_count,
                i.no_writers_generation_count,
            )
        })
        .collect()
}

#[test]
fn read_marks_samples_read_and_the_instance_not_new() {
    let mut r = reader(|_| {}, &[writer(1, 0, None)]);
    send(&mut r, t(1), 1, 1, 0xa, 0, Some(1));
    send(&mut r, t(2), 1, 2, 0xa, 0, Some(2));
    let first = select(&mut r, StateMasks::ANY, false);
    assert_eq!(first.len(), 2);
    for (_, i) in &first {
        assert_eq!(i.sample_state, SampleState::NotRead);
        assert_eq!(i.view_state, ViewState::New);
        assert_eq!(i.instance_handle, handle(0xa));
        assert_eq!(i.publication_handle, super::instance::wguid(1));
    }
    assert_eq!(first[0].1.reception_timestamp, t(1).wall);
    assert_eq!(first[1].1.source_timestamp, Some(t(2).wall));
    // Nothing NOT_READ is left; with ANY both come back READ, the instance NOT_NEW.
    assert!(select(&mut r, StateMasks::NOT_READ, false).is_empty());
    let again = select(&mut r, StateMasks::ANY, false);
    assert!(
        again
            .iter()
            .all(|(_, i)| i.sample_state == SampleState::Read)
    );
    assert!(again.iter().all(|(_, i)| i.view_state == ViewState::NotNew));
    // A new sample is NOT_READ in a NOT_NEW instance; NEW selects nothing.
    send(&mut r, t(3), 1, 3, 0xa, 0, None);
    let new_view = StateMasks {
        view: ViewStateMask::NEW,
        ..StateMasks::ANY
    };
    assert!(select(&mut r, new_view, false).is_empty());
    let unread = select(&mut r, StateMasks::NOT_READ, true);
    assert_eq!(summary(&unread).len(), 1);
    assert_eq!(unread[0].0.sequence_number.0, 3);
    assert_eq!(
        r.samples_queued(),
        2,
        "take removed only the selected sample"
    );
}

#[test]
fn generations_count_rebirths_after_dispose_and_after_no_writers() {
    use InstanceState::{Alive, NotAliveDisposed as Disposed, NotAliveNoWriters as NoWriters};
    let mut r = reader(|_| {}, &[writer(1, 0, None), writer(2, 0, None)]);
    send(&mut r, t(1), 1, 1, 0xa, 0, None);
    let got = select(&mut r, StateMasks::ANY, true);
    assert_eq!(summary(&got), [(1, Alive, ViewState::New, true, 0, 0)]);
    // Disposed: an invalid sample; the instance is NOT_ALIVE_DISPOSED and still NOT_NEW.
    send(&mut r, t(2), 1, 2, 0xa, DISPOSED, None);
    let got = select(&mut r, StateMasks::ANY, true);
    assert_eq!(
        summary(&got),
        [(2, Disposed, ViewState::NotNew, false, 0, 0)]
    );
    // Reborn: NEW again, disposed_generation_count 1.
    send(&mut r, t(3), 1, 3, 0xa, 0, None);
    // Unregistered by its only writer: NOT_ALIVE_NO_WRITERS.
    send(&mut r, t(4), 1, 4, 0xa, UNREGISTERED, None);
    // Reborn by another writer: no_writers_generation_count 1.
    send(&mut r, t(5), 2, 1, 0xa, 0, None);
    let got = select(&mut r, StateMasks::ANY, false);
    assert_eq!(
        summary(&got),
        [
            (3, Alive, ViewState::New, true, 1, 0),
            (4, Alive, ViewState::New, false, 1, 0),
            (1, Alive, ViewState::New, true, 1, 1),
        ]
    );
    // Ranks relative to the collection: samples after each, generations to the last one
    // (MRSIC) and to the instance now.
    let ranks: Vec<(u32, u32, u32)> = got
        .iter()
        .map(|(_, i)| (i.sample_rank, i.generation_rank, i.absolute_generation_rank))
        .collect();
    assert_eq!(ranks, [(2, 1, 1), (1, 1, 1), (0, 0, 0)]);
    // Read only the first two: ranks are relative to that collection.
    let two = r.select(
        t(6),
        &ReadSelection {
            max_samples: 2,
            ..ReadSelection::any()
        },
        false,
    );
    let ranks: Vec<(u32, u32, u32)> = two
        .iter()
        .map(|(_, i)| (i.sample_rank, i.generation_rank, i.absolute_generation_rank))
        .collect();
    assert_eq!(ranks, [(1, 0, 1), (0, 0, 1)]);
    // Writer 2 goes: NOT_ALIVE_NO_WRITERS arrives as an invalid sample.
    assert!(r.matched_writer_remove(super::instance::wguid(2)));
    let not_alive = StateMasks {
        instance: InstanceStateMask::NOT_ALIVE,
        ..StateMasks::NOT_READ
    };
    let got = select(&mut r, not_alive, true);
    assert_eq!(
        summary(&got),
        [(0, NoWriters, ViewState::NotNew, false, 1, 1)]
    );
    assert_eq!(got[0].0.kind, ChangeKind::NotAliveNoWriters);
}

#[test]
fn unregister_by_one_of_two_writers_keeps_the_instance_alive() {
    let mut r = reader(|_| {}, &[writer(1, 0, None), writer(2, 0, None)]);
    send(&mut r, t(1), 1, 1, 0xa, 0, None);
    send(&mut r, t(1), 2, 1, 0xa, 0, None);
    send(&mut r, t(2), 1, 2, 0xa, UNREGISTERED, None);
    let got = select(&mut r, StateMasks::ANY, true);
    assert!(
        got.iter()
            .all(|(_, i)| i.instance_state == InstanceState::Alive)
    );
    assert_eq!(got.iter().filter(|(_, i)| !i.valid_data).count(), 1);
    // Dispose + unregister is NOT_ALIVE_DISPOSED even with a writer left.
    send(&mut r, t(3), 2, 2, 0xa, DISPOSED | UNREGISTERED, None);
    let got = select(&mut r, StateMasks::ANY, true);
    assert_eq!(got[0].1.instance_state, InstanceState::NotAliveDisposed);
}

#[test]
fn per_instance_reads_follow_the_handle_order() {
    let mut r = reader(|_| {}, &[writer(1, 0, None)]);
    for (sn, key) in [(1, 0xc), (2, 0xa), (3, 0xb), (4, 0xa)] {
        send(&mut r, t(1), 1, sn, key, 0, None);
    }
    let next = |r: &mut Reader, after: InstanceHandle| {
        let sel = ReadSelection {
            instance: InstanceSelector::Next(after),
            ..ReadSelection::any()
        };
        let got = r.select(t(2), &sel, false);
        (
            got.first().map(|(_, i)| i.instance_handle),
            got.iter()
                .map(|(c, _)| c.sequence_number.0)
                .collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        next(&mut r, InstanceHandle::NIL),
        (Some(handle(0xa)), vec![2, 4])
    );
    assert_eq!(next(&mut r, handle(0xa)), (Some(handle(0xb)), vec![3]));
    assert_eq!(next(&mut r, handle(0xb)), (Some(handle(0xc)), vec![1]));
    assert_eq!(next(&mut r, handle(0xc)), (None, vec![]));
    // take_instance takes only that instance.
    let sel = ReadSelection {
        instance: InstanceSelector::Instance(handle(0xa)),
        ..ReadSelection::any()
    };
    assert_eq!(r.select(t(3), &sel, true).len(), 2);
    assert_eq!(r.samples_queued(), 2);
    assert!(
        r.has_instance(handle(0xa)),
        "its state outlives its samples"
    );
    assert!(!r.has_instance(handle(0xd)));
    // Next with masks skips instances without selected samples (all READ now).
    assert_eq!(
        r.select(
            t(4),
            &ReadSelection {
                instance: InstanceSelector::Next(InstanceHandle::NIL),
                ..ReadSelection::with_masks(StateMasks::NOT_READ)
            },
            false
        )
        .len(),
        0
    );
    assert!(!r.any_selected(t(4), &ReadSelection::with_masks(StateMasks::NOT_READ)));
    assert!(r.any_selected(t(4), &ReadSelection::any()));
}

proptest! {
    /// sample_rank counts the later samples of the same instance; generation_rank is the
    /// MRSIC's generation sum minus the sample's. DDS 1.4 §2.2.2.5.1.6.
    #[test]
    fn ranks_are_relative_to_the_collection(
        items in proptest::collection::vec((0u8..4, 0u32..3, 0u32..3), 0..24)
    ) {
        let base = SampleInfo {
            sample_state: SampleState::NotRead,
            view_state: ViewState::New,
            instance_state: InstanceState::Alive,
            disposed_generation_count: 0,
            no_writers_generation_count: 0,
            sample_rank: 99,
            generation_rank: 99,
            absolute_generation_rank: 0,
            source_timestamp: None,
            reception_timestamp: Timestamp::ZERO,
            instance_handle: InstanceHandle::NIL,
            publication_handle: Guid::default(),
            valid_data: true,
        };
        // Generations never decrease along one instance's samples.
        let mut gens = [(0u32, 0u32); 4];
        let mut infos: Vec<SampleInfo> = items
            .iter()
            .map(|&(k, dd, dn)| {
                let g = &mut gens[usize::from(k)];
                *g = (g.0 + dd, g.1 + dn);
                SampleInfo {
                    instance_handle: handle(k),
                    disposed_generation_count: g.0,
                    no_writers_generation_count: g.1,
                    ..base
                }
            })
            .collect();
        rank(&mut infos, |i| i);
        for (n, i) in infos.iter().enumerate() {
            let later: Vec<&SampleInfo> =
                infos[n + 1..].iter().filter(|j| j.instance_handle == i.instance_handle).collect();
            prop_assert_eq!(i.sample_rank as usize, later.len());
            let sum = |j: &SampleInfo| j.disposed_generation_count + j.no_writers_generation_count;
            let mrsic = later.last().map_or(sum(i), |j| sum(j));
            prop_assert_eq!(i.generation_rank, mrsic - sum(i));
        }
    }
}

/// One step of the instance-state property test.
#[derive(Clone, Debug)]
enum Step {
    Write(u8, u8),
    Dispose(u8, u8),
    Unregister(u8, u8),
    /// The writer unmatches (its participant is lost) and matches again.
    Rematch(u8),
}

fn step() -> impl Strategy<Value = Step> {
    let w = 1u8..=2;
    let k = prop_oneof![Just(0xa_u8), Just(0xb_u8)];
    prop_oneof![
        3 => (w.clone(), k.clone()).prop_map(|(w, k)| Step::Write(w, k)),
        1 => (w.clone(), k.clone()).prop_map(|(w, k)| Step::Dispose(w, k)),
        1 => (w.clone(), k).prop_map(|(w, k)| Step::Unregister(w, k)),
        1 => w.prop_map(Step::Rematch),
    ]
}

/// The reference model of one instance: DDS 1.4 §2.2.2.5.1.3-5 (figure 2.11).
#[derive(Clone, Debug)]
struct Model {
    state: InstanceState,
    writers: std::collections::BTreeSet<u8>,
    disposed: u32,
    no_writers: u32,
}

impl Model {
    fn new() -> Self {
        Model {
            state: InstanceState::Alive,
            writers: Default::default(),
            disposed: 0,
            no_writers: 0,
        }
    }

    fn write(&mut self, w: u8) {
        match self.state {
            InstanceState::NotAliveDisposed => self.disposed += 1,
            InstanceState::NotAliveNoWriters => self.no_writers += 1,
            InstanceState::Alive => {}
        }
        self.state = InstanceState::Alive;
        self.writers.insert(w);
    }

    fn leave(&mut self, w: u8) {
        self.writers.remove(&w);
        if self.writers.is_empty() && self.state == InstanceState::Alive {
            self.state = InstanceState::NotAliveNoWriters;
        }
    }
}

proptest! {
    /// Over any sequence of writes, disposes, unregisters and writer losses, each returned
    /// sample's instance state and generation counts are the reference model's.
    #[test]
    fn instance_states_and_generations_follow_the_model(steps in proptest::collection::vec(step(), 1..40)) {
        let mut r = reader(|_| {}, &[writer(1, 0, None), writer(2, 0, None)]);
        let mut models: BTreeMap<u8, Model> = BTreeMap::new();
        let mut sn = [0i64; 3];
        for (n, s) in steps.iter().enumerate() {
            let now = t(n as u64 + 1);
            match *s {
                Step::Write(w, k) => {
                    sn[usize::from(w)] += 1;
                    send(&mut r, now, w, sn[usize::from(w)], k, 0, None);
                    models.entry(k).or_insert_with(Model::new).write(w);
                }
                Step::Dispose(w, k) => {
                    sn[usize::from(w)] += 1;
                    send(&mut r, now, w, sn[usize::from(w)], k, DISPOSED, None);
                    models.entry(k).or_insert_with(Model::new).state = InstanceState::NotAliveDisposed;
                }
                Step::Unregister(w, k) => {
                    sn[usize::from(w)] += 1;
                    send(&mut r, now, w, sn[usize::from(w)], k, UNREGISTERED, None);
                    models.entry(k).or_insert_with(Model::new).leave(w);
                }
                Step::Rematch(w) => {
                    r.matched_writer_remove(super::instance::wguid(w));
                    r.matched_writer_add(now, writer(w, 0, None));
                    for m in models.values_mut() {
                        m.leave(w);
                    }
                }
            }
            let got = r.select(now, &ReadSelection::any(), true);
            for (c, i) in &got {
                let k = c.key_hash.map_or(0, |h| h[0]);
                let m = &models[&k];
                prop_assert_eq!(i.instance_state, m.state, "{:?} after {:?}", c.kind, s);
                prop_assert_eq!(
                    (i.disposed_generation_count, i.no_writers_generation_count),
                    (m.disposed, m.no_writers),
                    "{:?} after {:?}", c.kind, s
                );
                prop_assert_eq!(i.valid_data, c.kind == ChangeKind::Alive);
            }
        }
    }
}
