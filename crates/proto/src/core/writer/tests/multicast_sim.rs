//! End to end: the multicast plan under loss. A filtering `Writer` and our own
//! `core::reader::Reader`s as listeners are nodes of the simulated network
//! (`core::sim::SimNet`), which loses datagrams from its seed; a datagram to the group reaches
//! every listener that joined it, each copy lost independently. Listeners that do not pass
//! drop the multicast on their PID_CONTENT_FILTER_INFO bit and never stall.
//!
//! Must not: sleep, open sockets or read clocks; time is the simulator's manual clock, a
//! sample is written every other millisecond.
//!
//! RTPS 2.5 §8.7.3.2-§8.7.3.4, §8.3.7.7 (INFO_DST), §8.3.7.2 (readerId ENTITYID_UNKNOWN).

use std::collections::BTreeSet;

use super::filter::{filtering_config, put, red, shape};
use super::multicast::{color, listener};
use super::*;
use crate::core::RemoteWriter;
use crate::core::discovery::ContentFilter;
use crate::core::reader::{Reader as CoreReader, ReaderConfig, ReaderFilter};
use crate::core::sim::{Node, SimNet, SimNode};
use crate::types::{ShapeType, TopicType};

/// Where the writer listens for the listeners' ACKNACKs (their `RemoteWriter` locator).
const WRITER_AT: Locator = Locator::udpv4([127, 0, 0, 200], 7411);

/// One listener: our reader, its filter, and what it took and heard.
struct Listener {
    remote: RemoteReader,
    reader: CoreReader,
    filter: Option<ContentFilter>,
    taken: Vec<i64>,
    gaps_received: usize,
}

fn node(n: u8, filter: Option<ContentFilter>, listens: bool) -> Listener {
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
            unicast_locators: vec![WRITER_AT],
            multicast_locators: Vec::new(),
            reliable: true,
            ownership_strength: 0,
            lifespan: None,
        },
    );
    Listener {
        remote: listener(n, listens),
        reader,
        filter,
        taken: Vec::new(),
        gaps_received: 0,
    }
}

/// Hands one datagram to `l` as a participant's receiver would: INFO_DST selects the
/// participant, readerId the reader (ENTITYID_UNKNOWN: every reader). RTPS 2.5 §8.3.7.7.
fn receive(l: &mut Listener, now: Now, payload: &[u8]) {
    let (_, iter) = Message::parse(payload).unwrap();
    let me = l.reader.guid();
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
                l.reader.handle_data(now, writer_guid(), ts, &d)
            }
            Submessage::Gap(g) if for_us && mine(g.reader_id) => {
                l.gaps_received += 1;
                l.reader.handle_gap(now, writer_guid(), &g)
            }
            Submessage::Heartbeat(h) if for_us && mine(h.reader_id) => {
                l.reader.handle_heartbeat(now, writer_guid(), &h)
            }
            _ => {}
        }
    }
}

/// The nodes on the simulated network: the writer (with the readers whose ACKNACK reached
/// it: a reliable reader is covered by multicasts only from then on) and the listeners.
enum End {
    Writer(Box<Writer>, BTreeSet<Guid>),
    Listener(Box<Listener>),
}

impl SimNode for End {
    fn handle_datagram(&mut self, now: Now, _source: Locator, datagram: &[u8]) {
        match self {
            End::Writer(w, acked) => {
                let (header, iter) = Message::parse(datagram).unwrap();
                for o in iter {
                    if let SubmessageOutcome::Accept(Submessage::AckNack(a)) = o {
                        let reader = Guid::new(header.guid_prefix, a.reader_id);
                        acked.insert(reader);
                        w.handle_acknack(now, reader, &a);
                    }
                }
            }
            End::Listener(l) => receive(l, now, datagram),
        }
    }

    fn handle_timeout(&mut self, now: Now) {
        match self {
            End::Writer(w, _) => w.handle_timeout(now),
            End::Listener(l) => l.reader.handle_timeout(now),
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        match self {
            End::Writer(w, _) => w.poll_timeout(),
            End::Listener(l) => l.reader.poll_timeout(),
        }
    }

    fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        match self {
            End::Writer(w, _) => w.poll_transmit(now),
            End::Listener(l) => l.reader.poll_transmit(now),
        }
    }
}

/// Runs `samples` through a writer and `nodes` on the simulated network with `loss` percent
/// of datagram copies dropped, until everything is acknowledged; returns the writer and puts
/// the listeners back in `nodes`.
fn run(nodes: &mut Vec<Listener>, samples: &[ShapeType], loss: u64, seed: u64) -> Writer {
    // Readers speak first: their pre-emptive ACKNACKs reach the writer before its HEARTBEAT.
    let mut w = Writer::new(filtering_config());
    for nd in nodes.iter() {
        w.matched_reader_add(at(0), nd.remote.clone());
        w.set_reader_filter(nd.remote.guid, nd.filter.as_ref());
    }
    let listeners = nodes.len();
    let mut ends = vec![Node {
        p: End::Writer(Box::new(w), BTreeSet::new()),
        locators: vec![WRITER_AT],
    }];
    for l in std::mem::take(nodes) {
        // Its unicast locator first (the source of what it sends), then the group it joined.
        let locators = l.remote.unicast_locators.iter();
        let locators = locators
            .chain(&l.remote.multicast_locators)
            .copied()
            .collect();
        ends.push(Node {
            p: End::Listener(Box::new(l)),
            locators,
        });
    }
    let mut net = SimNet::with_nodes(ends, seed);
    net.faults.loss_percent = loss;
    let mut written = 0;
    for ms in 0..60_000u64 {
        let now = net.now();
        let End::Writer(w, acked) = &mut net.nodes[0].p else {
            unreachable!("node 0 is the writer")
        };
        // One sample every other millisecond once every reader has ACKNACKed, or after 2 s of
        // loss.
        let ready = acked.len() == listeners || ms >= 2000;
        if ready && ms % 2 == 0 && written < samples.len() {
            put(w, now, &samples[written]);
            written += 1;
        }
        net.run_for(1);
        let now = net.now();
        for end in &mut net.nodes[1..] {
            let End::Listener(l) = &mut end.p else {
                unreachable!("nodes 1.. are listeners")
            };
            while let Some(c) = l.reader.take(now) {
                l.taken.push(c.sequence_number.0);
            }
        }
        let End::Writer(w, _) = &net.nodes[0].p else {
            unreachable!("node 0 is the writer")
        };
        if written == samples.len() && w.all_acked() {
            let mut ends = net.nodes.into_iter().map(|n| n.p);
            let Some(End::Writer(w, _)) = ends.next() else {
                unreachable!("node 0 is the writer")
            };
            nodes.extend(ends.map(|e| match e {
                End::Listener(l) => *l,
                End::Writer(..) => unreachable!("one writer"),
            }));
            return *w;
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

fn mixed_nodes() -> Vec<Listener> {
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
