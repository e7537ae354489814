//! Wire efficiency of writer-side filtering: filtered sequence numbers are told lazily (one
//! GAP in front of the next DATA, with the next HEARTBEAT, or in answer to a NACK), GAPs
//! answering requests fold nearby irrelevant SNs into the gapList bitmap, and continuous
//! writing piggy-backs at most one HEARTBEAT per reader and heartbeat period.
//!
//! RTPS 2.5 §8.3.7.4 (GAP), §8.4.7.1 (heartbeatPeriod), §8.4.9.2.4 / §8.4.9.2.12 (T4, T12),
//! §8.7.3.2 (GAP for filtered-out changes).

use super::filter::{filtering_config, put, red, shape};
use super::*;

/// Reader `n` says it is there: a first ACKNACK (nothing received yet). Until a reader's first
/// ACKNACK every push carries a HEARTBEAT (see `ReaderProxy::heartbeat_stale`).
fn hello(w: &mut Writer, n: u8) {
    w.handle_acknack(at(0), reader_guid(n), &acknack(1, &[], 0));
    drain(w, at(0));
}

/// Reader 1 (reliable or not) filtering RED, matched, heard from, and its HEARTBEATs drained.
fn red_reader(reliable: bool) -> Writer {
    let mut w = Writer::new(filtering_config());
    w.matched_reader_add(at(0), remote(1, reliable, false));
    w.set_reader_filter(reader_guid(1), Some(&red()));
    drain(&mut w, at(0));
    if reliable {
        hello(&mut w, 1);
    }
    w
}

fn gap(start: i64, base: i64, set: Vec<i64>) -> Sub {
    Sub::Gap {
        reader: READER_ENTITY,
        start,
        base,
        set,
    }
}

/// The submessages without INFO_TS and the DATA details: (kind, sn) shapes for comparison.
fn shape_of(subs: &[Sub]) -> Vec<String> {
    subs.iter()
        .map(|s| match s {
            Sub::Dst(_) => "DST".to_string(),
            Sub::Ts => "TS".to_string(),
            Sub::Data { sn, .. } => format!("DATA {sn}"),
            Sub::Gap {
                start, base, set, ..
            } => format!("GAP {start}..{base} {set:?}"),
            Sub::Hb {
                first, last, fin, ..
            } => format!("HB {first}..{last} {}", if *fin { "F" } else { "-" }),
            _ => "OTHER".to_string(),
        })
        .collect()
}

#[test]
fn consecutive_filtered_sns_fold_into_one_gap_in_front_of_the_next_data() {
    let mut w = red_reader(true);
    for (t, c) in [(1, "BLUE"), (2, "GREEN"), (3, "BLUE")] {
        put(&mut w, at(t), &shape(c, t as i32, 10, 0));
        assert!(
            drain(&mut w, at(t)).is_empty(),
            "no GAP per filtered sample"
        );
    }
    put(&mut w, at(4), &shape("RED", 4, 10, 0));
    let ts = drain(&mut w, at(4));
    assert_eq!(ts.len(), 1);
    assert_eq!(
        shape_of(&parse(&ts[0].payload)),
        ["DST", "GAP 1..4 []", "TS", "DATA 4", "HB 1..4 -"]
    );
    // The next DATA needs no GAP, and no HEARTBEAT (one went out 1 ms ago).
    put(&mut w, at(5), &shape("RED", 5, 10, 0));
    let ts = drain(&mut w, at(5));
    assert_eq!(shape_of(&parse(&ts[0].payload)), ["DST", "TS", "DATA 5"]);
    let s = w.filter_stats();
    assert_eq!((s.filter_gaps_sent, s.samples_filtered), (1, 3));
    // Reliability holds: the reader acknowledges everything.
    w.handle_acknack(at(6), reader_guid(1), &acknack(6, &[], 1));
    assert!(w.all_acked());
}

#[test]
fn a_nack_for_a_pending_filtered_sn_gets_one_gap() {
    let mut w = red_reader(true);
    put(&mut w, at(1), &shape("RED", 1, 10, 0));
    drain(&mut w, at(1));
    put(&mut w, at(2), &shape("BLUE", 2, 10, 0));
    put(&mut w, at(2), &shape("GREEN", 3, 10, 0));
    assert!(drain(&mut w, at(2)).is_empty());
    // The reader learnt of 2..3 somehow (e.g. another HEARTBEAT) and NACKs them.
    let mut nack = acknack(2, &[2, 3], 1);
    nack.final_flag = false;
    w.handle_acknack(at(3), reader_guid(1), &nack);
    let subs = parse_all(&drain(&mut w, at(8)));
    assert_eq!(shape_of(&subs), ["DST", "GAP 2..4 []", "HB 2..3 -"]);
    w.handle_acknack(at(9), reader_guid(1), &acknack(4, &[], 2));
    assert!(w.all_acked());
    assert_eq!(w.filter_stats().samples_filtered, 2);
}

#[test]
fn a_repair_gap_folds_separate_filtered_requests_into_its_bitmap() {
    let mut w = red_reader(true);
    for (i, c) in ["RED", "BLUE", "RED", "BLUE", "RED", "GREEN", "BLUE"]
        .iter()
        .enumerate()
    {
        put(&mut w, at(1), &shape(c, i as i32, 10, 0));
    }
    drain(&mut w, at(1));
    // It has 1, 3, 5 and NACKs 2, 4, 6 (and 7).
    w.handle_acknack(at(2), reader_guid(1), &acknack(2, &[2, 4, 6, 7], 1));
    let subs = parse_all(&drain(&mut w, at(7)));
    // 2 is acknowledged-or-irrelevant for the only reader, so the history let it go
    // (`Writer::release_floor`).
    assert_eq!(shape_of(&subs), ["DST", "GAP 2..3 [4, 6, 7]", "HB 3..7 -"]);
    assert_eq!(subs[1], gap(2, 3, vec![4, 6, 7]));
    w.handle_acknack(at(8), reader_guid(1), &acknack(8, &[], 2));
    assert!(w.all_acked());
}

#[test]
fn a_reliable_reader_that_never_passes_gets_its_gaps_with_heartbeats_until_all_acked() {
    let mut w = red_reader(true);
    let mut to_reader = 0;
    let mut told = 1; // the reader's first SN not yet received or GAPed
    let mut count = 0;
    for t in 1..=1050u64 {
        put(&mut w, at(t), &shape("BLUE", t as i32, 10, 0));
        w.handle_timeout(at(t));
        for tx in drain(&mut w, at(t)) {
            to_reader += 1;
            let subs = parse(&tx.payload);
            for s in &subs {
                match s {
                    Sub::Gap { start, base, .. } if *start <= told => told = told.max(*base),
                    Sub::Data { .. } => panic!("the filter rejects everything"),
                    _ => {}
                }
            }
            // The reader answers each HEARTBEAT: everything before `told` received.
            if heartbeats(&subs).iter().any(|(_, _, fin)| !fin) {
                count += 1;
                w.handle_acknack(at(t), reader_guid(1), &acknack(told, &[], count));
            }
        }
    }
    // Not one datagram per sample: the answer to the reader's first ACKNACK (its `hello`,
    // which left SNs 1..5 unacknowledged when answered at t = 5), then one GAP + HEARTBEAT
    // per backstop (ten heartbeat periods when only filtered changes were passed over).
    assert_eq!(to_reader, 2, "{to_reader} datagrams");
    assert!(!w.all_acked());
    // The tail's backstop HEARTBEAT comes at most ten periods after the last write.
    let mut t = 1050;
    let mut subs = Vec::new();
    while subs.is_empty() && t <= 2050 {
        t += 1;
        w.handle_timeout(at(t));
        subs = parse_all(&drain(&mut w, at(t)));
    }
    assert_eq!(subs.len(), 3, "{subs:?}");
    assert!(matches!(
        subs[2],
        Sub::Hb {
            last: 1050,
            fin: false,
            ..
        }
    ));
    let Some(Sub::Gap { base, .. }) = subs.iter().find(|s| matches!(s, Sub::Gap { .. })) else {
        panic!("{subs:?}")
    };
    assert_eq!(*base, 1051);
    w.handle_acknack(at(t + 1), reader_guid(1), &acknack(1051, &[], count + 1));
    assert!(w.all_acked());
}

#[test]
fn a_best_effort_filtered_reader_gets_gaps_only_in_front_of_data() {
    let mut w = red_reader(false);
    for t in 1..=3 {
        put(&mut w, at(t), &shape("BLUE", t as i32, 10, 0));
        w.handle_timeout(at(t));
        assert!(drain(&mut w, at(t)).is_empty());
    }
    w.handle_timeout(at(500));
    assert!(drain(&mut w, at(500)).is_empty(), "never a GAP alone");
    put(&mut w, at(501), &shape("RED", 4, 10, 0));
    let ts = drain(&mut w, at(501));
    assert_eq!(
        shape_of(&parse_all(&ts)),
        ["DST", "GAP 1..4 []", "TS", "DATA 4"]
    );
}

#[test]
fn continuous_writing_piggybacks_one_heartbeat_per_period() {
    let mut w = Writer::new(config());
    w.matched_reader_add(at(0), remote(1, true, false));
    drain(&mut w, at(0));
    hello(&mut w, 1);
    let mut subs = Vec::new();
    let mut datagrams = 0;
    let mut count = 1;
    for t in 1..=300u64 {
        write(&mut w, at(t), t as u32);
        w.handle_timeout(at(t));
        let ts = drain(&mut w, at(t));
        datagrams += ts.len();
        let new = parse_all(&ts);
        // The reader acknowledges every HEARTBEAT, as readers do (its flow-control window
        // stays open, `flow.rs`).
        if let Some((_, last, _)) = heartbeats(&new).last() {
            count += 1;
            w.handle_acknack(at(t), reader_guid(1), &acknack(last + 1, &[], count));
        }
        subs.extend(new);
    }
    // One datagram per sample (the HEARTBEATs ride on them), 3 or 4 HEARTBEATs, not 300.
    assert_eq!(datagrams, 300);
    let hbs = heartbeats(&subs);
    assert!((3..=4).contains(&hbs.len()), "{hbs:?}");
    assert!(hbs.iter().all(|(_, _, fin)| !fin));
}

#[test]
fn a_dropped_filter_flushes_the_pending_gap_before_shared_data() {
    let mut w = red_reader(true);
    w.matched_reader_add(at(0), remote(2, true, false));
    drain(&mut w, at(0));
    hello(&mut w, 2);
    put(&mut w, at(1), &shape("RED", 1, 10, 0));
    put(&mut w, at(1), &shape("BLUE", 2, 10, 0));
    drain(&mut w, at(1));
    put(&mut w, at(2), &shape("BLUE", 3, 10, 0));
    drain(&mut w, at(2));
    // Reader 1 drops its filter with SN 3 pending: it gets the GAP before any DATA.
    w.set_reader_filter(reader_guid(1), None);
    put(&mut w, at(3), &shape("BLUE", 4, 10, 0));
    let ts = drain(&mut w, at(3));
    let loc = Locator::udpv4([127, 0, 0, 1], 7400);
    let mine: Vec<Sub> = ts
        .iter()
        .filter(|t| t.destinations.contains(&loc))
        .flat_map(|t| parse(&t.payload))
        .collect();
    assert_eq!(shape_of(&mine), ["DST", "GAP 3..4 []", "TS", "DATA 4"]);
}
