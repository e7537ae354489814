//! Writer DEADLINE and LIFESPAN tests (`writer/instance.rs`), on a manual clock.
//! DDS 1.4 §2.2.3.7, §2.2.3.16.

use core::time::Duration;

use super::*;

fn gaps(subs: &[Sub]) -> Vec<(i64, i64, Vec<i64>)> {
    subs.iter()
        .filter_map(|s| match s {
            Sub::Gap {
                start, base, set, ..
            } => Some((*start, *base, set.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn offered_deadline_is_missed_once_per_period_per_instance() {
    let mut cfg = config();
    cfg.keyed = true;
    cfg.deadline = Some(Duration::from_millis(100));
    let mut w = Writer::new(cfg);
    let (a, b) = ([0xa; 16], [0xb; 16]);
    w.write(
        at(0),
        WriteRequest::new(ChangeKind::Alive, Some(a), sample(1)),
    )
    .unwrap();
    w.write(
        at(0),
        WriteRequest::new(ChangeKind::Alive, Some(b), sample(2)),
    )
    .unwrap();
    assert_eq!(w.poll_timeout(), Some(at(100).mono));
    // b keeps being written in time, a does not.
    for t in [60, 120, 180, 240, 300] {
        w.handle_timeout(at(t));
        w.write(
            at(t),
            WriteRequest::new(ChangeKind::Alive, Some(b), sample(t as u32)),
        )
        .unwrap();
    }
    let missed: Vec<_> = std::iter::from_fn(|| w.poll_deadline_missed()).collect();
    assert_eq!(
        missed,
        vec![Some(a), Some(a), Some(a)],
        "at 100, 200 and 300"
    );
    assert_eq!(w.deadline_status().total_count, 3);
    assert_eq!(w.deadline_status().last_instance, Some(a));
    // Unregistering stops the deadline.
    w.write(
        at(310),
        WriteRequest::new(ChangeKind::NotAliveUnregistered, Some(a), Bytes::new()),
    )
    .unwrap();
    w.write(
        at(310),
        WriteRequest::new(ChangeKind::NotAliveUnregistered, Some(b), Bytes::new()),
    )
    .unwrap();
    w.handle_timeout(at(1000));
    assert_eq!(w.poll_deadline_missed(), None);
    assert_eq!(w.poll_timeout(), None);
}

#[test]
fn expired_changes_leave_the_history_and_are_gapped_to_a_late_reader() {
    let mut cfg = config();
    cfg.history = crate::qos::History::KeepAll;
    cfg.durability_transient_local = true;
    cfg.lifespan = Some(Duration::from_millis(100));
    let mut w = Writer::new(cfg);
    write(&mut w, at(0), 1);
    write(&mut w, at(50), 2);
    write(&mut w, at(120), 3);
    assert_eq!(w.poll_timeout(), Some(at(100).mono), "SN 1 expires at 100");
    w.handle_timeout(at(100));
    assert_eq!(w.history_len(), 2);
    // A reliable late joiner that wants history: SN 2 expires before it asks.
    w.matched_reader_add(at(130), remote(2, true, true));
    drain(&mut w, at(130));
    w.handle_acknack(at(160), reader_guid(2), &acknack(1, &[1, 2, 3], 1));
    let subs = parse_all(&drain(&mut w, at(170)));
    assert_eq!(data_sns(&subs), vec![3], "expired SNs are never sent");
    assert!(!gaps(&subs).is_empty(), "SNs 1-2 are GAPped: {subs:?}");
    assert_eq!(w.counters().changes_expired, 2);
    assert_eq!(w.history_len(), 1);
    w.handle_timeout(at(220));
    assert_eq!(w.history_len(), 0);
}

#[test]
fn a_change_that_expires_before_it_is_pushed_is_gapped() {
    let mut cfg = config();
    cfg.lifespan = Some(Duration::from_millis(10));
    let mut w = Writer::new(cfg);
    w.matched_reader_add(at(0), remote(2, true, false));
    drain(&mut w, at(0));
    write(&mut w, at(1), 1);
    // Not pushed until after its lifespan.
    let subs = parse_all(&drain(&mut w, at(20)));
    assert!(data_sns(&subs).is_empty(), "{subs:?}");
    assert_eq!(gaps(&subs).len(), 1, "{subs:?}");
}
