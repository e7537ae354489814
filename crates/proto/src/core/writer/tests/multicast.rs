//! The per-sample multicast/unicast choice: a dense pass set goes as one multicast datagram,
//! a sparse one as unicasts, mixed filtered/unfiltered listeners, the overrides, a reader with
//! a unicast locator only, the cost model. The plan end to end under loss, with our own
//! `core::reader::Reader` as listeners on the simulated network, is `multicast_sim.rs`.
//!
//! Must not: sleep, open sockets or read clocks; time is a manual 1 ms step.
//!
//! RTPS 2.5 §8.7.3.2-§8.7.3.4, §8.3.7.7 (INFO_DST), §8.3.7.2 (readerId ENTITYID_UNKNOWN).

use super::filter::{filtering_config, put, red, shape};
use super::*;
use crate::core::discovery::ContentFilter;
use crate::core::writer::{MulticastConfig, MulticastMode};
use crate::wire::plist::ContentFilterInfo;
use crate::wire::plist::pid::PID_CONTENT_FILTER_INFO;

fn group() -> Locator {
    Locator::udpv4([239, 255, 0, 1], 7401)
}

pub(super) fn color(c: &str) -> ContentFilter {
    let mut f = red();
    f.expression_parameters = vec![format!("'{c}'")];
    f.content_filtered_topic_name = format!("Square{c}");
    f
}

/// Reader `n`: unicast 127.0.0.n, and the group when `listens`.
pub(super) fn listener(n: u8, listens: bool) -> RemoteReader {
    let mut r = remote(n, true, false);
    if listens {
        r.multicast_locators = vec![group()];
    }
    r
}

/// A filtering writer with readers `(n, filter, listens)`, each past its first ACKNACK.
fn writer_with(readers: &[(u8, Option<ContentFilter>, bool)], mode: MulticastMode) -> Writer {
    let mut c = filtering_config();
    c.multicast = MulticastConfig {
        mode,
        ..MulticastConfig::default()
    };
    let mut w = Writer::new(c);
    for (n, f, listens) in readers {
        w.matched_reader_add(at(0), listener(*n, *listens));
        w.set_reader_filter(reader_guid(*n), f.as_ref());
        w.handle_acknack(at(0), reader_guid(*n), &acknack(1, &[], 1));
    }
    drain(&mut w, at(10));
    w
}

/// The datagrams sent to the group.
fn multicasts(ts: &[Transmit]) -> Vec<&Transmit> {
    ts.iter()
        .filter(|t| t.destinations.contains(&group()))
        .collect()
}

/// The PID_CONTENT_FILTER_INFO of the first DATA in `payload`, and that DATA's readerId.
fn first_data_info(payload: &[u8]) -> (EntityId, Option<ContentFilterInfo>) {
    let (_, iter) = Message::parse(payload).unwrap();
    for o in iter {
        if let SubmessageOutcome::Accept(Submessage::Data(d)) = o {
            let info = d
                .inline_qos
                .as_ref()
                .and_then(|q| q.find(PID_CONTENT_FILTER_INFO))
                .map(|p| {
                    ContentFilterInfo::parse(&mut CdrReader::new(p.value, Endianness::Little))
                        .unwrap()
                });
            return (d.reader_id, info);
        }
    }
    panic!("no DATA")
}

#[test]
fn a_dense_pass_set_goes_as_one_multicast_datagram() {
    let red_readers: Vec<_> = (1..=4).map(|n| (n, Some(red()), true)).collect();
    let mut w = writer_with(&red_readers, MulticastMode::Auto);
    put(&mut w, at(20), &shape("RED", 1, 30, 0));
    let ts = drain(&mut w, at(20));
    let m = multicasts(&ts);
    assert_eq!(m.len(), 1, "one multicast datagram");
    assert_eq!(m[0].destinations, vec![group()]);
    let subs = parse(&m[0].payload);
    assert!(
        !subs.iter().any(|s| matches!(s, Sub::Dst(_))),
        "no INFO_DST on a multicast"
    );
    let (reader, info) = first_data_info(&m[0].payload);
    assert_eq!(reader, EntityId::UNKNOWN);
    // Four readers with the same filter: one signature listed, with its bit.
    let info = info.unwrap();
    assert_eq!(info.signatures(), &[red().signature()]);
    assert_eq!(info.passed(0), Some(true));
    // Nothing else carries that DATA.
    assert_eq!(data_sns(&parse_all(&ts)), vec![1]);
    let s = w.filter_stats();
    assert_eq!((s.samples_multicast, s.samples_unicast), (1, 0));
}

#[test]
fn a_sparse_pass_set_goes_unicast() {
    let colors = ["RED", "BLUE", "GREEN", "YELLOW"];
    let readers: Vec<_> = colors
        .iter()
        .enumerate()
        .map(|(i, c)| (i as u8 + 1, Some(color(c)), true))
        .collect();
    let mut w = writer_with(&readers, MulticastMode::Auto);
    put(&mut w, at(20), &shape("BLUE", 1, 30, 0));
    let ts = drain(&mut w, at(20));
    assert!(multicasts(&ts).is_empty());
    let with_data: Vec<&Transmit> = ts
        .iter()
        .filter(|t| !data_sns(&parse(&t.payload)).is_empty())
        .collect();
    assert_eq!(with_data.len(), 1);
    assert_eq!(
        with_data[0].destinations,
        vec![Locator::udpv4([127, 0, 0, 2], 7400)]
    );
    assert!(parse(&with_data[0].payload).contains(&Sub::Dst(reader_guid(2).prefix)));
    let s = w.filter_stats();
    assert_eq!((s.samples_multicast, s.samples_unicast), (0, 1));
}

#[test]
fn mixed_listeners_share_one_multicast_with_one_entry_per_distinct_filter() {
    // Three RED, one BLUE, one unfiltered listener: a RED sample passes four of five.
    let mut readers: Vec<_> = (1..=3).map(|n| (n, Some(red()), true)).collect();
    readers.push((4, Some(color("BLUE")), true));
    readers.push((5, None, true));
    let mut w = writer_with(&readers, MulticastMode::Auto);
    put(&mut w, at(20), &shape("RED", 1, 30, 0));
    let ts = drain(&mut w, at(20));
    let m = multicasts(&ts);
    assert_eq!(m.len(), 1);
    let info = first_data_info(&m[0].payload).1.unwrap();
    let mut listed: Vec<([u8; 16], bool)> = info
        .signatures()
        .iter()
        .enumerate()
        .map(|(i, s)| (*s, info.passed(i).unwrap()))
        .collect();
    listed.sort();
    let mut want = vec![
        (red().signature(), true),
        (color("BLUE").signature(), false),
    ];
    want.sort();
    assert_eq!(listed, want);
    // Nobody gets that sample again by unicast, and the BLUE reader owes no GAP for it.
    assert_eq!(data_sns(&parse_all(&ts)), vec![1]);
    assert!(!parse_all(&ts).iter().any(|s| matches!(s, Sub::Gap { .. })));
}

#[test]
fn a_reader_with_a_unicast_locator_only_gets_its_own_datagram() {
    let mut readers: Vec<_> = (1..=3).map(|n| (n, Some(red()), true)).collect();
    readers.push((4, Some(red()), false));
    let mut w = writer_with(&readers, MulticastMode::Auto);
    put(&mut w, at(20), &shape("RED", 1, 30, 0));
    let ts = drain(&mut w, at(20));
    assert_eq!(multicasts(&ts).len(), 1);
    let unicast = Locator::udpv4([127, 0, 0, 4], 7400);
    let to_4: Vec<&Transmit> = ts
        .iter()
        .filter(|t| t.destinations.contains(&unicast))
        .collect();
    assert_eq!(to_4.len(), 1);
    assert_eq!(data_sns(&parse(&to_4[0].payload)), vec![1]);
    let s = w.filter_stats();
    assert_eq!((s.samples_multicast, s.samples_unicast), (1, 1));
}

#[test]
fn overrides_force_either_plan() {
    let red_readers: Vec<_> = (1..=4).map(|n| (n, Some(red()), true)).collect();
    let mut w = writer_with(&red_readers, MulticastMode::AlwaysUnicast);
    put(&mut w, at(20), &shape("RED", 1, 30, 0));
    let ts = drain(&mut w, at(20));
    assert!(multicasts(&ts).is_empty());
    assert_eq!(data_sns(&parse_all(&ts)), vec![1, 1, 1, 1]);

    let colors = ["RED", "BLUE", "GREEN", "YELLOW"];
    let readers: Vec<_> = colors
        .iter()
        .enumerate()
        .map(|(i, c)| (i as u8 + 1, Some(color(c)), true))
        .collect();
    let mut w = writer_with(&readers, MulticastMode::AlwaysMulticast);
    put(&mut w, at(20), &shape("BLUE", 1, 30, 0));
    let ts = drain(&mut w, at(20));
    assert_eq!(multicasts(&ts).len(), 1);
    assert_eq!(data_sns(&parse_all(&ts)), vec![1]);
}

#[test]
fn a_reliable_reader_is_not_covered_before_its_first_acknack() {
    let mut c = filtering_config();
    c.multicast = MulticastConfig::default();
    let mut w = Writer::new(c);
    for n in 1..=3 {
        w.matched_reader_add(at(0), listener(n, true));
        w.set_reader_filter(reader_guid(n), Some(&red()));
    }
    drain(&mut w, at(0));
    put(&mut w, at(1), &shape("RED", 1, 30, 0));
    let ts = drain(&mut w, at(1));
    assert!(
        multicasts(&ts).is_empty(),
        "Cyclone drops data before the first HEARTBEAT"
    );
    assert_eq!(data_sns(&parse_all(&ts)), vec![1, 1, 1]);
}

#[test]
fn a_late_joiner_on_the_group_gets_the_history_multicast_before_it_matched() {
    let mut c = filtering_config();
    c.durability_transient_local = true;
    let mut w = Writer::new(c);
    for n in 1..=3 {
        w.matched_reader_add(at(0), listener(n, true));
        w.set_reader_filter(reader_guid(n), Some(&red()));
        w.handle_acknack(at(0), reader_guid(n), &acknack(1, &[], 1));
    }
    drain(&mut w, at(0));
    for i in 0..3 {
        put(&mut w, at(1), &shape("RED", i, 30, 0));
    }
    assert_eq!(multicasts(&drain(&mut w, at(1))).len(), 3);
    // A TRANSIENT_LOCAL late joiner on the same group, already in contact.
    let mut late = listener(4, true);
    late.wants_history = true;
    w.matched_reader_add(at(2), late);
    w.set_reader_filter(reader_guid(4), Some(&red()));
    w.handle_acknack(at(2), reader_guid(4), &acknack(1, &[], 1));
    let ts = drain(&mut w, at(2));
    let unicast = Locator::udpv4([127, 0, 0, 4], 7400);
    let to_4: Vec<Transmit> = ts
        .into_iter()
        .filter(|t| t.destinations.contains(&unicast))
        .collect();
    assert_eq!(data_sns(&parse_all(&to_4)), vec![1, 2, 3]);
}

#[test]
fn cost_model_follows_the_documented_formula() {
    let c = MulticastConfig::default();
    // docs/filtering.md, example 1: 10 listeners, 8 pass, 150-byte multicast, 138 unicast.
    let dense = super::super::multicast::Candidate {
        passing: 8,
        wasted: 2,
        gaps: 0,
        multicast_len: 150,
        unicast_len: 138,
    };
    assert_eq!(c.costs(&dense), (3 * (1024 + 150), 8 * (1024 + 138)));
    assert!(c.multicast(&dense));
    // Example 2: 2 of 10 pass.
    let sparse = super::super::multicast::Candidate {
        passing: 2,
        wasted: 8,
        ..dense
    };
    assert_eq!(c.costs(&sparse), (9 * (1024 + 150), 2 * (1024 + 138)));
    assert!(!c.multicast(&sparse));
    // Two readers owing a GAP: each costs a GAP datagram on the multicast plan.
    let gaps = super::super::multicast::Candidate { gaps: 2, ..dense };
    assert_eq!(
        c.costs(&gaps),
        (
            3 * (1024 + 150) + 2 * (1024 + 68),
            8 * (1024 + 138) + 2 * 32
        )
    );
}
