//! Memo table: capacity bound, CLOCK eviction, generation invalidation, counters.

use proptest::prelude::*;

use super::*;

#[test]
fn capacity_bound_holds_and_evictions_are_counted() {
    let mut m = Memo::new(4);
    for k in 0..10u32 {
        m.insert(k, k * 10);
        assert!(m.len() <= 4);
    }
    let s = m.stats();
    assert_eq!((s.insertions, s.evictions), (10, 6));
    let present = (0..10u32).filter(|k| m.get(k).is_some()).count();
    assert_eq!(present, 4);
}

#[test]
fn clock_gives_recently_hit_entries_a_second_chance() {
    let mut m = Memo::new(3);
    for k in 0..3u32 {
        m.insert(k, k);
    }
    assert_eq!(m.get(&0), Some(0)); // referenced
    m.insert(3, 3); // evicts 1, the first unreferenced slot after the hand
    assert_eq!(m.get(&0), Some(0));
    assert_eq!(m.get(&1), None);
    assert_eq!(m.get(&2), Some(2));
    assert_eq!(m.get(&3), Some(3));
}

#[test]
fn invalidation_makes_old_entries_misses_without_evictions() {
    let mut m = Memo::new(2);
    m.insert("a".to_owned(), 1);
    m.insert("b".to_owned(), 2);
    assert_eq!(m.get("a"), Some(1));
    m.invalidate();
    assert_eq!(m.generation(), 1);
    assert_eq!(m.get("a"), None);
    assert_eq!(m.get("b"), None);
    m.insert("c".to_owned(), 3); // reuses the stale "a" slot
    m.insert("d".to_owned(), 4); // reuses the stale "b" slot
    assert_eq!(m.len(), 2);
    assert_eq!(m.get("c"), Some(3));
    assert_eq!(m.get("d"), Some(4));
    let s = m.stats();
    assert_eq!((s.evictions, s.hits, s.misses), (0, 3, 2));
    m.insert("d".to_owned(), 5); // overwrites in place
    assert_eq!(m.get("d"), Some(5));
    m.insert("e".to_owned(), 6); // now a current entry must go
    assert_eq!(m.stats().evictions, 1);
}

#[test]
fn get_or_insert_with_evaluates_only_on_miss() {
    let mut m = Memo::new(8);
    let mut calls = 0;
    for _ in 0..3 {
        let v = m.get_or_insert_with(&7u8, || {
            calls += 1;
            "seven"
        });
        assert_eq!(v, "seven");
    }
    assert_eq!(calls, 1);
    let s = m.stats();
    assert_eq!(
        (s.evaluations, s.hits, s.misses, s.insertions),
        (1, 2, 1, 1)
    );
}

#[test]
fn zero_capacity_stores_nothing_and_capacity_is_clamped() {
    let mut m = Memo::new(0);
    m.insert(1u8, 1u8);
    assert!(m.is_empty());
    assert_eq!(m.get(&1), None);
    assert_eq!(Memo::<u8, u8>::new(usize::MAX).capacity(), MAX_CAPACITY);
}

#[derive(Clone, Debug)]
enum Op {
    Get(u8),
    Insert(u8, u16),
    Invalidate,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => any::<u8>().prop_map(|k| Op::Get(k % 24)),
        4 => (any::<u8>(), any::<u16>()).prop_map(|(k, v)| Op::Insert(k % 24, v)),
        1 => Just(Op::Invalidate),
    ]
}

proptest! {
    /// Against a model (an unbounded map cleared on invalidation): a hit always returns the
    /// model's value; the size never exceeds the capacity.
    #[test]
    fn memo_never_returns_a_stale_or_wrong_value(cap in 0usize..8, ops in proptest::collection::vec(op(), 0..200)) {
        let mut m = Memo::new(cap);
        let mut model = std::collections::HashMap::new();
        for op in ops {
            match op {
                Op::Get(k) => {
                    if let Some(v) = m.get(&k) {
                        prop_assert_eq!(model.get(&k), Some(&v));
                    }
                }
                Op::Insert(k, v) => {
                    m.insert(k, v);
                    model.insert(k, v);
                    if cap > 0 {
                        prop_assert_eq!(m.get(&k), Some(v));
                    }
                }
                Op::Invalidate => {
                    m.invalidate();
                    model.clear();
                }
            }
            prop_assert!(m.len() <= cap);
        }
    }
}
