//! Writer-side content filtering: GAP instead of DATA for rejected samples (pushes and
//! repairs), PID_CONTENT_FILTER_INFO on every DATA / DATA_FRAG listing every filtered reader,
//! per-reader unicast for filtered readers, the test-only inverted-bit mode.
//!
//! RTPS 2.5 §8.7.3.2-§8.7.4, §9.6.4.1; docs/interop-facts.md §2.1, §2.3, §3.5.

use std::sync::Arc;

use super::*;
use crate::core::discovery::ContentFilter;
use crate::core::writer::FilterUpdate;
use crate::types::{ShapeType, TopicType};
use crate::wire::plist::ContentFilterInfo;
use crate::wire::plist::pid::PID_CONTENT_FILTER_INFO;

pub(super) fn filter(expr: &str, params: &[&str]) -> ContentFilter {
    ContentFilter {
        content_filtered_topic_name: "SquareFiltered".into(),
        related_topic_name: "Square".into(),
        filter_class_name: "DDSSQL".into(),
        filter_expression: expr.into(),
        expression_parameters: params.iter().map(|s| s.to_string()).collect(),
    }
}

pub(super) fn red() -> ContentFilter {
    filter("color = %0", &["'RED'"])
}

pub(super) fn filtering_config() -> WriterConfig {
    let mut c = config();
    c.keyed = true;
    c.topic_name = "Square".into();
    c.descriptor = Some(Arc::new(ShapeType::descriptor().clone()));
    c.history = crate::qos::History::KeepAll;
    c
}

pub(super) fn shape(color: &str, x: i32, size: i32, extra: usize) -> ShapeType {
    ShapeType {
        color: color.into(),
        x,
        y: 0,
        shapesize: size,
        additional_payload_size: vec![7; extra],
    }
}

pub(super) fn put(w: &mut Writer, now: Now, s: &ShapeType) -> i64 {
    let data = Bytes::from(s.serialize(Endianness::Little));
    w.write(
        now,
        WriteRequest::new(ChangeKind::Alive, s.key_hash(), data),
    )
    .unwrap()
    .0
}

/// One writer submessage as the filtering tests see it.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Data {
        sn: i64,
        cfi: Option<ContentFilterInfo>,
    },
    Frag {
        sn: i64,
        frag: u32,
        cfi: Option<ContentFilterInfo>,
    },
    Gap {
        start: i64,
        end: i64,
    },
    Hb,
}

fn cfi(q: &Option<ParameterListView<'_>>) -> Option<ContentFilterInfo> {
    let p = q.as_ref()?.find(PID_CONTENT_FILTER_INFO)?;
    Some(ContentFilterInfo::parse(&mut CdrReader::new(p.value, Endianness::Little)).unwrap())
}

/// What reader `n` (locator 127.0.0.n) received, and whether each datagram was for it alone.
fn seen_by(ts: &[Transmit], n: u8) -> Vec<Seen> {
    let loc = Locator::udpv4([127, 0, 0, n], 7400);
    let mut out = Vec::new();
    for t in ts.iter().filter(|t| t.destinations.contains(&loc)) {
        let (_, iter) = Message::parse(&t.payload).unwrap();
        for o in iter {
            let SubmessageOutcome::Accept(s) = o else {
                panic!("not accepted")
            };
            match s {
                Submessage::Data(d) => out.push(Seen::Data {
                    sn: d.writer_sn.0,
                    cfi: cfi(&d.inline_qos),
                }),
                Submessage::DataFrag(d) => out.push(Seen::Frag {
                    sn: d.writer_sn.0,
                    frag: d.fragment_starting_num.0,
                    cfi: cfi(&d.inline_qos),
                }),
                Submessage::Gap(g) => {
                    assert_eq!(g.gap_list.iter().count(), 0);
                    out.push(Seen::Gap {
                        start: g.gap_start.0,
                        end: g.gap_list.bitmap_base().0,
                    })
                }
                Submessage::Heartbeat(_) => out.push(Seen::Hb),
                _ => {}
            }
        }
    }
    out
}

/// What reader `n` received, HEARTBEATs left out.
fn submessages_to(ts: &[Transmit], n: u8) -> Vec<Seen> {
    seen_by(ts, n)
        .into_iter()
        .filter(|s| *s != Seen::Hb)
        .collect()
}

fn bits(info: &ContentFilterInfo) -> Vec<bool> {
    (0..info.len()).map(|i| info.passed(i).unwrap()).collect()
}

fn one(sig: [u8; 16], passed: bool) -> Option<ContentFilterInfo> {
    let mut i = ContentFilterInfo::new();
    i.push(sig, passed);
    Some(i)
}

#[test]
fn filtered_reader_gets_gaps_for_rejected_sns_and_data_with_info_for_passing_ones() {
    let mut w = Writer::new(filtering_config());
    w.matched_reader_add(at(0), remote(1, true, false));
    w.matched_reader_add(at(0), remote(2, true, false));
    assert_eq!(
        w.set_reader_filter(reader_guid(1), Some(&red())),
        FilterUpdate::Applied
    );
    drain(&mut w, at(0));
    for (i, c) in ["RED", "BLUE", "BLUE", "RED", "GREEN"].iter().enumerate() {
        put(&mut w, at(1), &shape(c, i as i32, 30, 0));
    }
    let ts = drain(&mut w, at(1));
    let sig = red().signature();
    let r1: Vec<Seen> = submessages_to(&ts, 1);
    assert_eq!(
        r1,
        vec![
            Seen::Data {
                sn: 1,
                cfi: one(sig, true)
            },
            Seen::Gap { start: 2, end: 4 },
            Seen::Data {
                sn: 4,
                cfi: one(sig, true)
            },
            Seen::Gap { start: 5, end: 6 },
        ]
    );
    // The unfiltered reader gets every sample, alone: without info (it was not filtered for,
    // so no signature is its own; it filters itself, docs/interop-facts.md §2.3).
    let r2: Vec<Seen> = submessages_to(&ts, 2);
    let expect: Vec<Seen> = (1..=5).map(|sn| Seen::Data { sn, cfi: None }).collect();
    assert_eq!(r2, expect);
    // The filtered reader was never in a shared datagram.
    for t in &ts {
        if t.destinations.len() > 1 {
            assert!(
                !t.destinations
                    .contains(&Locator::udpv4([127, 0, 0, 1], 7400))
            );
        }
    }
    let s = w.filter_stats();
    assert_eq!(
        (s.filter_gaps_sent, s.samples_filtered, s.filtered_readers),
        (2, 3, 1)
    );
    assert_eq!(s.data_sent, 7);
    // Reliability does not stall: acknowledging the last SN acknowledges everything.
    w.handle_acknack(at(2), reader_guid(1), &acknack(6, &[], 1));
    w.handle_acknack(at(2), reader_guid(2), &acknack(6, &[], 1));
    assert!(w.all_acked());
}

/// A TRANSIENT_LOCAL reader whose filter is known only at its match (a late joiner, or a
/// router's proxy reader) gets the history filtered as live data: DATA with its own info for
/// what passes, GAPs for the rest, though no reader was filtered for when it was written.
#[test]
fn a_late_joining_filtered_reader_gets_the_history_filtered() {
    let mut cfg = filtering_config();
    cfg.durability_transient_local = true;
    let mut w = Writer::new(cfg);
    for (i, c) in ["RED", "BLUE", "BLUE", "RED", "GREEN"].iter().enumerate() {
        put(&mut w, at(1), &shape(c, i as i32, 30, 0));
    }
    drain(&mut w, at(1));
    w.matched_reader_add(at(2), remote(1, true, true));
    assert_eq!(
        w.set_reader_filter(reader_guid(1), Some(&red())),
        FilterUpdate::Applied
    );
    let seen: Vec<Seen> = submessages_to(&drain(&mut w, at(10)), 1);
    let sig = red().signature();
    assert_eq!(
        seen,
        vec![
            Seen::Data {
                sn: 1,
                cfi: one(sig, true)
            },
            Seen::Gap { start: 2, end: 4 },
            Seen::Data {
                sn: 4,
                cfi: one(sig, true)
            },
            Seen::Gap { start: 5, end: 6 },
        ]
    );
    // Changes written afterwards are filtered as usual.
    put(&mut w, at(11), &shape("BLUE", 9, 30, 0));
    put(&mut w, at(11), &shape("RED", 9, 30, 0));
    let live: Vec<Seen> = submessages_to(&drain(&mut w, at(11)), 1);
    assert_eq!(
        live,
        vec![
            Seen::Gap { start: 6, end: 7 },
            Seen::Data {
                sn: 7,
                cfi: one(sig, true)
            },
        ]
    );
}

/// A reader that changes its filter gets what it has not acknowledged under the new one: a
/// repair after the change follows the filter it announced last.
#[test]
fn a_changed_filter_applies_to_repairs_of_what_was_not_acknowledged() {
    let mut w = Writer::new(filtering_config());
    w.matched_reader_add(at(0), remote(1, true, false));
    w.set_reader_filter(reader_guid(1), Some(&red()));
    drain(&mut w, at(0));
    put(&mut w, at(1), &shape("RED", 1, 10, 0));
    put(&mut w, at(1), &shape("BLUE", 2, 10, 0));
    drain(&mut w, at(1)); // "lost"
    let blue = filter("color = %0", &["'BLUE'"]);
    assert_eq!(
        w.set_reader_filter(reader_guid(1), Some(&blue)),
        FilterUpdate::Applied
    );
    w.handle_acknack(at(2), reader_guid(1), &acknack(1, &[1, 2], 1));
    let seen: Vec<Seen> = submessages_to(&drain(&mut w, at(10)), 1);
    assert_eq!(
        seen,
        vec![
            Seen::Gap { start: 1, end: 2 },
            Seen::Data {
                sn: 2,
                cfi: one(blue.signature(), true)
            },
        ]
    );
}

#[test]
fn info_lists_every_filtered_reader_in_slot_order_with_its_bit() {
    let mut w = Writer::new(filtering_config());
    let filters = [
        red(),
        filter("color = %0", &["'BLUE'"]),
        filter("shapesize <= 20", &[]),
    ];
    for (i, f) in filters.iter().enumerate() {
        w.matched_reader_add(at(0), remote(i as u8 + 1, true, false));
        w.set_reader_filter(reader_guid(i as u8 + 1), Some(f));
    }
    // Two unfiltered readers at the same place share datagrams: those carry the full list.
    w.matched_reader_add(at(0), remote(9, true, false));
    w.matched_reader_add(at(0), remote(10, true, false));
    drain(&mut w, at(0));
    put(&mut w, at(1), &shape("BLUE", 1, 10, 0));
    put(&mut w, at(1), &shape("RED", 2, 40, 0));
    let ts = drain(&mut w, at(1));
    assert_eq!(seen_by(&ts, 9), seen_by(&ts, 10));
    let infos: Vec<ContentFilterInfo> = seen_by(&ts, 9)
        .into_iter()
        .filter_map(|s| match s {
            Seen::Data { cfi, .. } => cfi,
            _ => None,
        })
        .collect();
    assert_eq!(infos.len(), 2);
    let sigs: Vec<[u8; 16]> = filters.iter().map(ContentFilter::signature).collect();
    for i in &infos {
        assert_eq!(i.signatures(), sigs.as_slice());
    }
    assert_eq!(bits(&infos[0]), vec![false, true, true]);
    assert_eq!(bits(&infos[1]), vec![true, false, false]);
    // The BLUE reader (slot 1) got sample 1 with its own signature and bit only, and a GAP
    // for sample 2 (in front of the burst's HEARTBEAT).
    let r2: Vec<Seen> = submessages_to(&ts, 2);
    assert_eq!(
        r2,
        vec![
            Seen::Data {
                sn: 1,
                cfi: one(sigs[1], true)
            },
            Seen::Gap { start: 2, end: 3 }
        ]
    );
}

#[test]
fn every_fragment_carries_the_info() {
    let mut c = filtering_config();
    c.fragment_size = 256;
    let mut w = Writer::new(c);
    w.matched_reader_add(at(0), remote(1, true, false));
    w.set_reader_filter(reader_guid(1), Some(&red()));
    drain(&mut w, at(0));
    put(&mut w, at(1), &shape("RED", 1, 10, 1000));
    put(&mut w, at(1), &shape("BLUE", 1, 10, 1000));
    let seen = seen_by(&drain(&mut w, at(1)), 1);
    let frags: Vec<&Seen> = seen
        .iter()
        .filter(|s| matches!(s, Seen::Frag { .. }))
        .collect();
    assert!(frags.len() >= 4, "{seen:?}");
    for f in &frags {
        let Seen::Frag { sn, cfi, .. } = f else {
            unreachable!()
        };
        assert_eq!(*sn, 1);
        assert_eq!(*cfi, one(red().signature(), true));
    }
    assert!(seen.contains(&Seen::Gap { start: 2, end: 3 }));
}

#[test]
fn a_nack_for_a_filtered_sn_is_answered_with_a_gap() {
    let mut w = Writer::new(filtering_config());
    w.matched_reader_add(at(0), remote(1, true, false));
    w.set_reader_filter(reader_guid(1), Some(&red()));
    drain(&mut w, at(0));
    put(&mut w, at(1), &shape("RED", 1, 10, 0));
    put(&mut w, at(1), &shape("BLUE", 1, 10, 0));
    put(&mut w, at(1), &shape("GREEN", 1, 10, 0));
    drain(&mut w, at(1)); // "lost"
    w.handle_acknack(at(2), reader_guid(1), &acknack(1, &[1, 2, 3], 1));
    let seen: Vec<Seen> = submessages_to(&drain(&mut w, at(10)), 1);
    assert_eq!(
        seen,
        vec![
            Seen::Data {
                sn: 1,
                cfi: one(red().signature(), true)
            },
            Seen::Gap { start: 2, end: 4 }
        ]
    );
    assert_eq!(w.filter_stats().samples_filtered, 4);
    w.handle_acknack(at(11), reader_guid(1), &acknack(4, &[], 2));
    assert!(w.all_acked());
}

#[test]
fn best_effort_filtered_reader_also_gets_gaps() {
    let mut w = Writer::new(filtering_config());
    w.matched_reader_add(at(0), remote(1, false, false));
    w.set_reader_filter(reader_guid(1), Some(&red()));
    put(&mut w, at(1), &shape("BLUE", 1, 10, 0));
    put(&mut w, at(1), &shape("RED", 1, 10, 0));
    let seen = seen_by(&drain(&mut w, at(1)), 1);
    assert_eq!(
        seen,
        vec![
            Seen::Gap { start: 1, end: 2 },
            Seen::Data {
                sn: 2,
                cfi: one(red().signature(), true)
            }
        ]
    );
}

#[test]
fn a_hundred_filtered_readers_each_get_their_own_signature_and_lazy_gaps() {
    let mut w = Writer::new(filtering_config());
    for i in 0..100u8 {
        w.matched_reader_add(at(0), remote(i + 1, true, false));
        let p = i.to_string();
        assert_eq!(
            w.set_reader_filter(reader_guid(i + 1), Some(&filter("x > %0", &[&p]))),
            FilterUpdate::Applied
        );
    }
    drain(&mut w, at(0));
    put(&mut w, at(1), &shape("RED", 50, 10, 0));
    let ts = drain(&mut w, at(1));
    // Readers 1..=50 (x > 0..49) get DATA with their own signature and bit; the others
    // nothing yet: their GAP waits for their next DATA or HEARTBEAT. Everyone unicast.
    assert_eq!(ts.len(), 50);
    assert!(ts.iter().all(|t| t.destinations.len() == 1));
    // The periodic HEARTBEATs go to at most 64 readers per tick, the rest a quarter
    // period later (`flow::HEARTBEATS_PER_TICK`).
    let ts = [
        ts,
        {
            w.handle_timeout(at(1001));
            drain(&mut w, at(1001))
        },
        {
            w.handle_timeout(at(1026));
            drain(&mut w, at(1026))
        },
    ]
    .concat();
    for n in 1..=100u8 {
        let seen: Vec<Seen> = seen_by(&ts, n)
            .into_iter()
            .filter(|s| *s != Seen::Hb)
            .collect();
        if n <= 50 {
            let [
                Seen::Data {
                    sn: 1,
                    cfi: Some(info),
                },
            ] = seen.as_slice()
            else {
                panic!("{n}: {seen:?}")
            };
            let p = (n - 1).to_string();
            assert_eq!(
                *info,
                one(filter("x > %0", &[&p]).signature(), true).unwrap()
            );
        } else {
            // With its HEARTBEAT, once writing stopped.
            assert_eq!(seen, vec![Seen::Gap { start: 1, end: 2 }], "{n}");
        }
    }
    let s = w.filter_stats();
    assert_eq!(
        (s.filter.evaluations, s.samples_filtered, s.filtered_readers),
        (100, 50, 100)
    );
}

#[test]
fn inverted_bit_mode_sends_everything_with_the_bit_flipped() {
    let mut c = filtering_config();
    c.invert_filter_bit_for_tests = true;
    let mut w = Writer::new(c);
    w.matched_reader_add(at(0), remote(1, true, false));
    w.set_reader_filter(reader_guid(1), Some(&red()));
    put(&mut w, at(1), &shape("RED", 1, 10, 0));
    put(&mut w, at(1), &shape("BLUE", 1, 10, 0));
    let seen: Vec<Seen> = submessages_to(&drain(&mut w, at(1)), 1);
    let sig = red().signature();
    assert_eq!(
        seen,
        vec![
            Seen::Data {
                sn: 1,
                cfi: one(sig, false)
            },
            Seen::Data {
                sn: 2,
                cfi: one(sig, true)
            }
        ]
    );
}

#[test]
fn filter_updates_unusable_filters_and_removal() {
    let mut w = Writer::new(filtering_config());
    w.matched_reader_add(at(0), remote(1, true, false));
    assert_eq!(
        w.set_reader_filter(reader_guid(1), Some(&red())),
        FilterUpdate::Applied
    );
    assert_eq!(
        w.set_reader_filter(reader_guid(1), Some(&red())),
        FilterUpdate::Unchanged
    );
    let blue = filter("color = %0", &["'BLUE'"]);
    assert_eq!(
        w.set_reader_filter(reader_guid(1), Some(&blue)),
        FilterUpdate::Applied
    );
    let bad = filter("no_such_field = 1", &[]);
    assert!(matches!(
        w.set_reader_filter(reader_guid(1), Some(&bad)),
        FilterUpdate::Rejected(_)
    ));
    assert_eq!(
        w.set_reader_filter(reader_guid(1), Some(&bad)),
        FilterUpdate::Unchanged
    );
    assert_eq!(w.filter_stats().filtered_readers, 0);
    // Unusable filter: it gets everything, without info (nobody is filtered for).
    put(&mut w, at(1), &shape("RED", 1, 10, 0));
    put(&mut w, at(1), &shape("BLUE", 1, 10, 0));
    let seen: Vec<Seen> = submessages_to(&drain(&mut w, at(1)), 1);
    assert_eq!(
        seen,
        vec![
            Seen::Data { sn: 1, cfi: None },
            Seen::Data { sn: 2, cfi: None }
        ]
    );
    assert_eq!(
        w.set_reader_filter(reader_guid(1), Some(&blue)),
        FilterUpdate::Applied
    );
    w.matched_reader_remove(reader_guid(1));
    assert_eq!(w.filter_stats().filtered_readers, 0);
    // A writer without a descriptor filters for nobody.
    let mut plain = Writer::new(config());
    assert!(matches!(
        plain.set_reader_filter(reader_guid(1), Some(&red())),
        FilterUpdate::Rejected(_)
    ));
}
