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
fn a_gap_of_ten_million_is_cut_back_and_later_data_is_delivered() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_heartbeat(at(1), w, &heartbeat(1, 2, 1, true));
    r.handle_data(at(1), w, None, &data(1, b"a"));
    r.handle_data(at(1), w, None, &data(2, b"b"));
    r.handle_gap(at(2), w, &gap(1, 10_000_000, &[]));
    assert_eq!(r.counters().ranges_clamped, 1);
    // At most one out-of-order window beyond what was sent may be marked irrelevant; the
    // writer's next SNs past it are delivered.
    let window = MAX_OUT_OF_ORDER as i64;
    let next = 2 + window + 1;
    r.handle_data(at(3), w, None, &data(next, b"n"));
    r.handle_heartbeat(at(3), w, &heartbeat(1, next, 2, true));
    assert_eq!(drain(&mut r), [1, 2, next]);
}

#[test]
fn a_gap_ahead_of_its_data_is_taken_once_the_data_corroborates_it() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_gap(at(1), w, &gap(1, 50_000, &[]));
    r.handle_data(at(1), w, None, &data(50_000, b"z"));
    assert_eq!(drain(&mut r), [50_000]);
}
