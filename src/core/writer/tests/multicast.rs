//! The per-sample multicast/unicast choice: a dense pass set goes as one multicast datagram,
//! a sparse one as unicasts, mixed filtered/unfiltered listeners, the overrides, a reader with
//! a unicast locator only, and reliability with our own `core::reader::Reader` as listeners
//! over a seeded lossy in-memory network (listeners that do not pass drop the multicast on
//! their PID_CONTENT_FILTER_INFO bit and never stall).
//!
//! Must not: sleep, open sockets or read clocks; time is a manual 1 ms step.
//!
//! RTPS 2.5 §8.7.3.2-§8.7.3.4, §8.3.7.7 (INFO_DST), §8.3.7.2 (readerId ENTITYID_UNKNOWN).

use super::filter::{filtering_config, put, red, shape};
use super::*;
use crate::core::RemoteWriter;
use crate::core::discovery::ContentFilter;
use crate::core::reader::{Reader as CoreReader, ReaderConfig, ReaderFilter};
use crate::core::writer::{MulticastConfig, MulticastMode};
use crate::test_rng::Rng;
use crate::types::{ShapeType, TopicType};
use crate::wire::plist::ContentFilterInfo;
use crate::wire::plist::pid::PID_CONTENT_FILTER_INFO;

fn group() -> Locator {
    Locator::udpv4([239, 255, 0, 1], 7401)
}

fn color(c: &str) -> ContentFilter {
    let mut f = red();
    f.expression_parameters = vec![format!("'{c}'")];
    f.content_filtered_topic_name = format!("Square{c}");
    f
}

/// Reader `n`: unicast 127.0.0.n, and the group when `listens`.
fn listener(n: u8, listens: bool) -> RemoteReader {
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
                    ContentFilterInfo::parse(&mut Reader::new(p.value, Endianness::Little)).unwrap()
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

// ---- End to end with our own reader over a lossy network ---------------------------------

struct Node {
    remote: RemoteReader,
    reader: CoreReader,
    filter: Option<ContentFilter>,
    taken: Vec<i64>,
    gaps_received: usize,
    /// An ACKNACK of it reached the writer (it is then covered by multicasts).
    acked: bool,
}

fn node(n: u8, filter: Option<ContentFilter>, listens: bool) -> Node {
    let mut c = ReaderConfig::new(reader_guid(n), true, true);
    c.history = crate::qos::History::KeepAll;
    c.heartbeat_response_delay = core::time::Duration::from_millis(2);
    c.content_filter = filter
        .as_ref()
        .map(|f| ReaderFilter::compile(f, ShapeType::descriptor()).unwrap());
    let mut reader = CoreReader::new(c);
    reader.matched_writer_add(
        at(0),
        RemoteWriter {
            guid: writer_guid(),
            unicast_locators: vec![Locator::udpv4([127, 0, 0, 200], 7411)],
            multicast_locators: Vec::new(),
            reliable: true,
            ownership_strength: 0,
            lifespan: None,
        },
    );
    Node {
        remote: listener(n, listens),
        reader,
        filter,
        taken: Vec::new(),
        gaps_received: 0,
        acked: false,
    }
}

/// Hands one datagram to `node` as a participant's receiver would: INFO_DST selects the
/// participant, readerId the reader (ENTITYID_UNKNOWN: every reader). RTPS 2.5 §8.3.7.7.
fn receive(node: &mut Node, now: Now, payload: &[u8]) {
    let (_, iter) = Message::parse(payload).unwrap();
    let me = node.reader.guid();
    let mut for_us = true;
    let mut ts = None;
    for o in iter {
        let SubmessageOutcome::Accept(s) = o else {
            panic!("not accepted")
        };
        let mine = |id: EntityId| id == EntityId::UNKNOWN || id == me.entity_id;
        match s {
            Submessage::InfoDst(d) => {
                for_us = d.guid_prefix == me.prefix || d.guid_prefix == GuidPrefix([0; 12]);
            }
            Submessage::InfoTs(t) => ts = t.timestamp,
            Submessage::Data(d) if for_us && mine(d.reader_id) => {
                node.reader.handle_data(now, writer_guid(), ts, &d)
            }
            Submessage::Gap(g) if for_us && mine(g.reader_id) => {
                node.gaps_received += 1;
                node.reader.handle_gap(now, writer_guid(), &g)
            }
            Submessage::Heartbeat(h) if for_us && mine(h.reader_id) => {
                node.reader.handle_heartbeat(now, writer_guid(), &h)
            }
            _ => {}
        }
    }
}

/// Runs `samples` through a writer and `nodes` with `loss` percent of datagrams dropped each
/// way, until everything is acknowledged; returns the writer.
fn run(nodes: &mut [Node], samples: &[ShapeType], loss: u64, seed: u64) -> Writer {
    // Readers speak first: their pre-emptive ACKNACKs reach the writer before its HEARTBEAT.
    let mut w = Writer::new(filtering_config());
    for nd in nodes.iter() {
        w.matched_reader_add(at(0), nd.remote.clone());
        w.set_reader_filter(nd.remote.guid, nd.filter.as_ref());
    }
    let mut rng = Rng::new(seed);
    let mut written = 0;
    for ms in 0..60_000u64 {
        let now = at(ms);
        // One sample every other millisecond once every reader has ACKNACKed (a reliable
        // reader is covered by multicasts only from then on), or after 2 s of loss.
        let ready = nodes.iter().all(|n| n.acked) || ms >= 2000;
        if ready && ms % 2 == 0 && written < samples.len() {
            put(&mut w, now, &samples[written]);
            written += 1;
        }
        for nd in nodes.iter_mut() {
            while let Some(t) = nd.reader.poll_transmit(now) {
                if rng.chance(loss) {
                    continue;
                }
                let (_, iter) = Message::parse(&t.payload).unwrap();
                for o in iter {
                    if let SubmessageOutcome::Accept(Submessage::AckNack(a)) = o {
                        nd.acked = true;
                        w.handle_acknack(now, nd.remote.guid, &a);
                    }
                }
            }
            while let Some(c) = nd.reader.take(now) {
                nd.taken.push(c.sequence_number.0);
            }
        }
        if w.poll_timeout().is_some_and(|t| t <= now.mono) {
            w.handle_timeout(now);
        }
        while let Some(t) = w.poll_transmit(now) {
            for nd in nodes.iter_mut() {
                let hears = nd
                    .remote
                    .unicast_locators
                    .iter()
                    .chain(&nd.remote.multicast_locators);
                if hears.into_iter().any(|l| t.destinations.contains(l)) && !rng.chance(loss) {
                    receive(nd, now, &t.payload);
                }
            }
        }
        if written == samples.len() && w.all_acked() {
            return w;
        }
    }
    panic!("not all acknowledged after 60 s: the writer or a reader stalled")
}

/// The SNs (1-based) of `samples` that `filter` passes.
fn expected(samples: &[ShapeType], filter: Option<&ContentFilter>) -> Vec<i64> {
    let Some(f) = filter else {
        return (1..=samples.len() as i64).collect();
    };
    let rf = ReaderFilter::compile(f, ShapeType::descriptor()).unwrap();
    (1..=samples.len() as i64)
        .filter(|sn| rf.accepts(&samples[*sn as usize - 1].serialize(Endianness::Little)))
        .collect()
}

fn stream(n: usize) -> Vec<ShapeType> {
    // Mostly RED (dense: multicast), some BLUE and GREEN (sparse: unicast).
    (0..n)
        .map(|i| {
            let c = match i % 7 {
                3 => "BLUE",
                5 => "GREEN",
                _ => "RED",
            };
            shape(c, i as i32, 30, 0)
        })
        .collect()
}

fn mixed_nodes() -> Vec<Node> {
    vec![
        node(1, Some(red()), true),
        node(2, Some(red()), true),
        node(3, Some(red()), true),
        node(4, Some(color("BLUE")), true),
        node(5, None, true),
        node(6, Some(color("GREEN")), false),
        node(7, Some(red()), false),
    ]
}

#[test]
fn listeners_that_do_not_pass_drop_the_multicast_and_reliability_completes() {
    let samples = stream(140);
    let mut nodes = mixed_nodes();
    let w = run(&mut nodes, &samples, 0, 7);
    for nd in &nodes {
        assert_eq!(
            nd.taken,
            expected(&samples, nd.filter.as_ref()),
            "reader {:?}",
            nd.remote.guid
        );
    }
    let s = w.filter_stats();
    assert!(s.samples_multicast > 0 && s.samples_unicast > 0, "{s:?}");
    // The BLUE listener learnt most RED samples were filtered from the multicast's bit.
    assert!(nodes[3].reader.counters().content_filtered_by_writer > 0);
}

#[test]
fn a_listener_that_never_passes_needs_no_gap() {
    // Every sample RED: all go by multicast; the BLUE listener drops each on its bit.
    let samples: Vec<ShapeType> = (0..50).map(|i| shape("RED", i, 30, 0)).collect();
    let mut nodes = vec![
        node(1, Some(red()), true),
        node(2, Some(red()), true),
        node(3, Some(red()), true),
        node(4, Some(color("BLUE")), true),
    ];
    let w = run(&mut nodes, &samples, 0, 3);
    assert_eq!(w.filter_stats().samples_multicast, 50);
    assert_eq!(nodes[3].gaps_received, 0);
    assert_eq!(nodes[3].reader.counters().content_filtered_by_writer, 50);
    assert!(nodes[3].taken.is_empty());
}

#[test]
fn multicast_plan_survives_loss_without_stalling() {
    let samples = stream(300);
    for seed in [1, 2, 3] {
        let mut nodes = mixed_nodes();
        let w = run(&mut nodes, &samples, 20, seed);
        assert!(
            w.filter_stats().samples_multicast > 0,
            "seed {seed}: the multicast path ran"
        );
        for nd in &nodes {
            assert_eq!(
                nd.taken,
                expected(&samples, nd.filter.as_ref()),
                "seed {seed}"
            );
        }
    }
}
