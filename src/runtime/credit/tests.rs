use super::*;

/// An enabled credit refilled with `room`, as after a write that waited.
fn granted(room: (usize, usize)) -> WriteCredit {
    let c = WriteCredit::new();
    c.set_enabled(true);
    c.refill(room);
    c
}

#[test]
fn disabled_credit_grants_nothing_even_after_a_refill() {
    let c = WriteCredit::new();
    assert!(!c.is_enabled());
    c.refill((10, 1000));
    assert!(!c.try_take(1));
}

#[test]
fn enabled_credit_starts_at_zero_so_the_first_write_waits() {
    let c = WriteCredit::new();
    c.refill((10, 1000));
    c.set_enabled(true);
    assert!(c.is_enabled());
    assert!(!c.try_take(0));
}

#[test]
fn credit_is_taken_per_sample_and_per_byte() {
    let c = granted((2, 100));
    assert!(c.try_take(60));
    // 40 bytes left: a 41-byte write waits, and takes nothing.
    assert!(!c.try_take(41));
    assert!(c.try_take(40));
    // No sample left, whatever the bytes.
    c.refill((0, 100));
    assert!(!c.try_take(1));
}

#[test]
fn a_refused_sample_gives_back_its_bytes() {
    let c = granted((1, 100));
    assert!(c.try_take(10));
    // Bytes were enough but samples not: the 10 bytes are not lost.
    assert!(!c.try_take(10));
    c.refill((1, 90));
    assert!(c.try_take(90));
}

#[test]
fn samples_are_capped_at_max_pipelined_writes() {
    let c = granted((usize::MAX, usize::MAX));
    for _ in 0..MAX_PIPELINED_WRITES {
        assert!(c.try_take(1));
    }
    assert!(!c.try_take(1));
}

#[test]
fn disabling_and_enabling_again_zeroes_the_credit() {
    let c = granted((5, 500));
    c.set_enabled(false);
    assert!(!c.try_take(1));
    c.set_enabled(true);
    assert!(!c.try_take(1));
}

#[test]
fn concurrent_takers_never_take_more_than_granted() {
    let c = std::sync::Arc::new(granted((100, 1000)));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let c = std::sync::Arc::clone(&c);
            std::thread::spawn(move || (0..100).filter(|_| c.try_take(3)).count())
        })
        .collect();
    let taken: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
    // 100 samples and 1000 / 3 = 333 writes' bytes: the samples bound it.
    assert_eq!(taken, 100);
}
