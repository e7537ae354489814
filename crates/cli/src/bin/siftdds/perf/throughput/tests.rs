use super::*;
use siftdds::wire::{EntityId, GuidPrefix};

#[test]
fn tail_loss_is_what_heartbeats_announced_beyond_the_last_received() {
    let w = |b| Guid {
        prefix: GuidPrefix([b; 12]),
        entity_id: EntityId([0, 0, 1, 2]),
    };
    let mut t = Tail::default();
    t.received(w(1), 1_077_389);
    t.announced(w(1), 1_000_000);
    assert_eq!(t.lost(), 0, "an older HEARTBEAT owes nothing");
    t.announced(w(1), 1_077_441);
    assert_eq!(t.lost(), 52, "the issue's 52 samples lost at the tail");
    t.received(w(1), 1_077_441);
    assert_eq!(t.lost(), 0, "repaired: nothing lost");
    t.announced(w(2), 500);
    assert_eq!(t.lost(), 0, "nothing received from w2: not owed");
    t.received(w(2), 400);
    t.received(w(2), 300);
    assert_eq!(t.lost(), 100);
}

#[test]
fn continuity_counts_gaps_and_ignores_duplicates() {
    let w = Guid {
        prefix: GuidPrefix([1; 12]),
        entity_id: EntityId([0, 0, 1, 2]),
    };
    let mut c = Continuity::default();
    assert_eq!(c.observe(w, 0, 5), (true, 0));
    assert_eq!(c.observe(w, 0, 6), (true, 0));
    assert_eq!(c.observe(w, 0, 9), (true, 2));
    assert_eq!(c.observe(w, 0, 8), (false, 0));
    assert_eq!(c.observe(w, 0, 10), (true, 0));
    assert_eq!(c.observe(w, 1, 0), (true, 0));
    assert_eq!(c.observe(w, 2, u32::MAX), (true, 0));
    assert_eq!(c.observe(w, 2, 0), (true, 0), "wraps around");
    assert_eq!(
        c.observe(w, 0, 11),
        (true, 0),
        "key 0's expectation survives the others"
    );
    assert_eq!(c.observe(w, 1, 5), (true, 4));
    assert_eq!(c.observe(w, 0, 10), (false, 0));
}
