//! HEARTBEATs and GAPs whose range jumps beyond anything the writer has sent (issue 15): the
//! reader cuts them back to what it was sent and keeps delivering what the writer sends next.
//! Cyclone DDS 0.10 and Fast DDS 2.9 take such a range whole (`docs/interop-facts.md` §10.2).

use super::*;

#[test]
fn a_heartbeat_far_beyond_what_was_sent_does_not_make_the_reader_drop_later_data() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_heartbeat(at(1), w, &heartbeat(1, 2, 1, true));
    r.handle_data(at(1), w, None, &data(1, b"a"));
    r.handle_data(at(1), w, None, &data(2, b"b"));
    assert_eq!(drain(&mut r), [1, 2]);
    // Forged: firstSN = lastSN = 10,000,000, a newer count.
    r.handle_heartbeat(at(2), w, &heartbeat(10_000_000, 10_000_000, 2, false));
    assert_eq!(r.counters().ranges_clamped, 1);
    assert_eq!(r.counters().samples_lost, 0);
    r.handle_data(at(3), w, None, &data(3, b"c"));
    r.handle_data(at(3), w, None, &data(4, b"d"));
    assert_eq!(drain(&mut r), [3, 4]);
}

#[test]
fn a_heartbeat_jump_still_gives_up_what_was_sent_and_is_gone() {
    // Within what the writer sent, firstSN is taken: 2 was sent (4 arrived) and lost, and
    // the writer says it no longer has it (RTPS 2.5 §8.4.10.4.3).
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_heartbeat(at(1), w, &heartbeat(1, 1, 1, true));
    r.handle_data(at(1), w, None, &data(1, b"a"));
    r.handle_data(at(1), w, None, &data(4, b"d"));
    r.handle_heartbeat(at(2), w, &heartbeat(3, 4, 2, true));
    r.handle_data(at(2), w, None, &data(3, b"c"));
    assert_eq!(drain(&mut r), [1, 3, 4]);
    assert_eq!(r.counters().samples_lost, 1);
    assert_eq!(r.counters().ranges_clamped, 0);
}

#[test]
fn a_late_joiner_takes_the_first_heartbeat_range_as_it_comes() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_heartbeat(at(1), w, &heartbeat(1_000, 1_000, 1, false));
    r.handle_data(at(1), w, None, &data(1_000, b"z"));
    assert_eq!(drain(&mut r), [1_000]);
    assert_eq!(r.counters().ranges_clamped, 0);
}

#[test]
fn a_gap_ahead_of_its_data_is_taken_once_the_data_corroborates_it() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_gap(at(1), w, &gap(1, 50_000, &[]));
    r.handle_data(at(1), w, None, &data(50_000, b"z"));
    assert_eq!(drain(&mut r), [50_000]);
}

#[test]
fn a_forged_gap_beyond_what_was_sent_costs_none_of_the_data_that_follows() {
    // GAP(1..10,000,000) from the writer's address after SNs 1-2: it may only name what the
    // writer has shown (sent or announced); SNs 3 and 4 then arrive as DATA and are delivered.
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_heartbeat(at(1), w, &heartbeat(1, 2, 1, true));
    r.handle_data(at(1), w, None, &data(1, b"a"));
    r.handle_data(at(1), w, None, &data(2, b"b"));
    r.handle_gap(at(2), w, &gap(1, 10_000_000, &[10_000_001]));
    assert_eq!(r.counters().ranges_clamped, 1);
    for sn in 3..=6 {
        r.handle_data(at(3), w, None, &data(sn, b"x"));
    }
    assert_eq!(drain(&mut r), [1, 2, 3, 4, 5, 6]);
    assert_eq!(r.counters().samples_lost, 0);
}

#[test]
fn a_gap_for_announced_but_filtered_changes_is_taken_at_once() {
    // A real writer whose last two changes are filtered out for us: HEARTBEAT(1, 4) then
    // GAP(3..5). The HEARTBEAT announced them, so the GAP is taken and nothing is missing.
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_heartbeat(at(1), w, &heartbeat(1, 2, 1, true));
    r.handle_data(at(1), w, None, &data(1, b"a"));
    r.handle_data(at(1), w, None, &data(2, b"b"));
    r.handle_heartbeat(at(2), w, &heartbeat(1, 4, 2, true));
    r.handle_gap(at(2), w, &gap(3, 5, &[]));
    assert_eq!(drain(&mut r), [1, 2]);
    // Nothing missing: the next final HEARTBEAT is not answered.
    while r.poll_transmit(at(10)).is_some() {}
    r.handle_heartbeat(at(20), w, &heartbeat(1, 4, 3, true));
    assert_eq!(r.poll_transmit(at(100)), None);
    r.handle_data(at(30), w, None, &data(5, b"e"));
    assert_eq!(drain(&mut r), [5]);
}

#[test]
fn a_heartbeat_count_far_ahead_does_not_silence_the_writers_heartbeats() {
    // A forged HEARTBEAT with count 2^30: the writer's own HEARTBEATs (counts 2, 3, …) are
    // still answered, so a lost DATA is repaired.
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_heartbeat(at(1), w, &heartbeat(1, 1, 1, true));
    r.handle_data(at(1), w, None, &data(1, b"a"));
    r.handle_heartbeat(at(2), w, &heartbeat(10_000_000, 10_000_000, 1 << 30, false));
    while r.poll_transmit(at(10)).is_some() {}
    // SN 2 is lost on the way; 3 arrives, and the writer's next HEARTBEAT announces both.
    r.handle_data(at(20), w, None, &data(3, b"c"));
    r.handle_heartbeat(at(20), w, &heartbeat(1, 3, 2, true));
    let t = r.poll_transmit(at(30)).expect("the HEARTBEAT is answered");
    let (ack, _) = parse_ack(&t);
    assert_eq!(missing(&ack), [2]);
    r.handle_data(at(31), w, None, &data(2, b"b"));
    assert_eq!(drain(&mut r), [1, 2, 3]);
}
