//! End-to-end: the writer and a minimal reliable reader (written here, independent of
//! `core::reader`) as two nodes of the simulated network (`core::sim::SimNet`), which drops
//! 20% of datagrams each way.
//!
//! Must not: sleep or use sockets; time is the simulator's manual clock, writes come each ms.
//!
//! RTPS 2.5 §8.4.12 (reader behaviour, reduced to what this test needs: in-order delivery,
//! GAP, HEARTBEAT → ACKNACK, DATA_FRAG reassembly).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::*;
use crate::core::sim::{Node, SimNet, SimNode};
use crate::core::writer::WriteError;
use crate::qos::{History, Length, ResourceLimits};
use crate::wire::{Header, ProtocolVersion, VendorId, emit_message};

/// Where the writer listens for the reader's ACKNACKs.
const WRITER_AT: Locator = Locator::udpv4([127, 0, 0, 1], 7400);

/// Also the reader of the flow-control tests (`flow_sim.rs`).
#[derive(Default)]
pub(super) struct SimReader {
    received: BTreeMap<i64, Vec<u8>>,
    frags: BTreeMap<i64, (u32, BTreeMap<u32, Vec<u8>>)>,
    irrelevant: BTreeSet<i64>,
    pub(super) next: i64,
    pub(super) delivered: Vec<Vec<u8>>,
    last_hb: Option<i32>,
    acknack_count: i32,
    pub(super) strict: bool,
    /// ACKNACKs owed to the writer, sent on the next poll.
    pub(super) outbox: VecDeque<AckNack>,
}

impl SimReader {
    pub(super) fn new() -> Self {
        SimReader {
            next: 1,
            strict: true,
            ..Default::default()
        }
    }

    fn deliver(&mut self) {
        loop {
            if let Some(d) = self.received.remove(&self.next) {
                self.delivered.push(d);
            } else if !self.irrelevant.remove(&self.next) {
                break;
            }
            self.frags.remove(&self.next);
            self.next += 1;
        }
    }

    fn have(&self, sn: i64) -> bool {
        sn < self.next || self.received.contains_key(&sn) || self.irrelevant.contains(&sn)
    }

    /// Handles one datagram; returns the ACKNACK to send, if any.
    pub(super) fn handle(&mut self, payload: &[u8]) -> Option<AckNack> {
        let mut reply = None;
        for s in parse(payload) {
            match s {
                Sub::Data {
                    sn,
                    payload: Some(p),
                    ..
                } if !self.have(sn) => {
                    self.received.insert(sn, p);
                }
                Sub::Frag {
                    sn,
                    frag,
                    size,
                    bytes,
                    frag_size,
                    ..
                } if !self.have(sn) => {
                    let e = self.frags.entry(sn).or_insert((size, BTreeMap::new()));
                    e.1.insert(frag, bytes);
                    let total = size.div_ceil(u32::from(frag_size));
                    if e.1.len() as u32 == total {
                        let whole: Vec<u8> = e.1.values().flatten().copied().collect();
                        assert_eq!(whole.len() as u32, size);
                        self.received.insert(sn, whole);
                        self.frags.remove(&sn);
                    }
                }
                Sub::Gap {
                    start, base, set, ..
                } => {
                    for sn in (start.max(self.next)..base).chain(set) {
                        if !self.have(sn) {
                            self.irrelevant.insert(sn);
                        }
                    }
                }
                Sub::Hb {
                    first,
                    last,
                    fin,
                    count,
                    ..
                } => {
                    if self.last_hb.is_some_and(|c| count <= c) {
                        continue;
                    }
                    self.last_hb = Some(count);
                    self.deliver();
                    // A reliable KEEP_ALL writer never drops what we have not acknowledged;
                    // otherwise earlier changes are lost (RTPS 2.5 §8.4.12.x, HEARTBEAT firstSN).
                    assert!(
                        !self.strict || first <= self.next,
                        "writer dropped unacked data"
                    );
                    for sn in self.next..first {
                        if !self.have(sn) {
                            self.irrelevant.insert(sn);
                        }
                    }
                    self.deliver();
                    let missing: Vec<i64> = (self.next..=last.min(self.next + 255))
                        .filter(|sn| !self.have(*sn))
                        .collect();
                    if !fin || !missing.is_empty() {
                        self.acknack_count += 1;
                        reply = Some(acknack(self.next, &missing, self.acknack_count));
                    }
                }
                _ => {}
            }
        }
        self.deliver();
        reply
    }
}

fn payload_for(i: u32) -> Bytes {
    if i % 100 == 7 {
        // Every hundredth sample is large: DATA_FRAG under loss.
        Bytes::from(
            (0..20_000u32)
                .map(|b| (b.wrapping_mul(i) % 253) as u8)
                .collect::<Vec<_>>(),
        )
    } else {
        sample(i)
    }
}

/// The two ends on the simulated network: the writer under test and [`SimReader`].
enum End {
    Writer(Box<Writer>),
    Reader(SimReader),
}

impl SimNode for End {
    fn handle_datagram(&mut self, now: Now, _source: Locator, datagram: &[u8]) {
        match self {
            End::Writer(w) => {
                let (_, subs) = Message::parse(datagram).unwrap();
                for s in subs {
                    if let SubmessageOutcome::Accept(Submessage::AckNack(a)) = s {
                        w.handle_acknack(now, reader_guid(2), &a);
                    }
                }
            }
            End::Reader(r) => {
                let reply = r.handle(datagram);
                r.outbox.extend(reply);
            }
        }
    }

    fn handle_timeout(&mut self, now: Now) {
        if let End::Writer(w) = self {
            w.handle_timeout(now);
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        match self {
            End::Writer(w) => w.poll_timeout(),
            End::Reader(_) => None,
        }
    }

    fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        match self {
            End::Writer(w) => {
                let t = w.poll_transmit(now)?;
                assert!(t.payload.len() <= w.config().max_message_size);
                Some(t)
            }
            End::Reader(r) => {
                let a = r.outbox.pop_front()?;
                let header = Header {
                    version: ProtocolVersion::V2_5,
                    vendor_id: VendorId::SIFTDDS,
                    guid_prefix: reader_guid(2).prefix,
                };
                let mut buf = Vec::new();
                emit_message(&header, &[Submessage::AckNack(a)], &mut buf);
                Some(Transmit::new(vec![WRITER_AT], buf))
            }
        }
    }
}

fn run(seed: u64, cfg: WriterConfig, total: u32) -> (Writer, SimReader, u64) {
    let mut w = Writer::new(cfg);
    let mut reader = SimReader::new();
    reader.strict = matches!(w.config().history, History::KeepAll);
    let matched = remote(2, true, false);
    let reader_at = matched.unicast_locators.clone();
    w.matched_reader_add(at(0), matched);
    let mut net = SimNet::with_nodes(
        vec![
            Node {
                p: End::Writer(Box::new(w)),
                locators: vec![WRITER_AT],
            },
            Node {
                p: End::Reader(reader),
                locators: reader_at,
            },
        ],
        seed,
    );
    net.faults.loss_percent = 20;
    let mut written = 0u32;
    for ms in 0..600_000u64 {
        let now = net.now();
        let End::Writer(w) = &mut net.nodes[0].p else {
            unreachable!("node 0 is the writer")
        };
        for _ in 0..5 {
            if written == total {
                break;
            }
            match w.write(
                now,
                WriteRequest::new(ChangeKind::Alive, None, payload_for(written)),
            ) {
                Ok(_) => written += 1,
                Err(WriteError::HistoryFull) => break,
                Err(e) => panic!("{e}"),
            }
        }
        // The writer's pushes, timers, the reader's ACKNACKs and the repairs they bring.
        net.run_for(1);
        let [writer_node, reader_node] = &net.nodes[..] else {
            unreachable!("two nodes")
        };
        let (End::Writer(w), End::Reader(r)) = (&writer_node.p, &reader_node.p) else {
            unreachable!("writer, then reader")
        };
        if written == total && r.next > i64::from(total) && w.all_acked() {
            let mut nodes = net.nodes.into_iter().map(|n| n.p);
            let (Some(End::Writer(w)), Some(End::Reader(r))) = (nodes.next(), nodes.next()) else {
                unreachable!("writer, then reader")
            };
            return (*w, r, ms);
        }
    }
    let End::Reader(r) = &net.nodes[1].p else {
        unreachable!("node 1 is the reader")
    };
    let End::Writer(w) = &net.nodes[0].p else {
        unreachable!("node 0 is the writer")
    };
    panic!(
        "no convergence: delivered {} of {total}, writer last {}",
        r.delivered.len(),
        w.last_sn()
    );
}

#[test]
fn thousand_samples_cross_a_lossy_channel_in_order() {
    let mut cfg = config();
    cfg.history = History::KeepAll;
    cfg.resource_limits = ResourceLimits {
        max_samples: Length::Limited(64),
        ..Default::default()
    };
    cfg.fragment_size = 4000;
    cfg.max_message_size = 9000;
    for seed in [0x5eed_u64, 42, 0xdead_beef] {
        let (w, reader, ms) = run(seed, cfg.clone(), 1000);
        let expected: Vec<Vec<u8>> = (0..1000).map(|i| payload_for(i).to_vec()).collect();
        assert!(
            reader.delivered == expected,
            "seed {seed}: wrong or out-of-order delivery"
        );
        let c = w.counters();
        assert!(
            c.repairs_sent > 0 && c.heartbeats_sent > 0,
            "seed {seed}: {c:?}"
        );
        assert!(ms < 60_000, "seed {seed}: took {ms} ms of simulated time");
        assert!(w.history_len() <= 64);
    }
}

#[test]
fn keep_last_writer_converges_with_gaps_under_loss() {
    // KEEP_LAST(4) may replace samples before the reader gets them: delivery is in order and
    // ends with the last sample; the rest are GAPs, never a stall.
    let mut cfg = config();
    cfg.history = History::KeepLast(4);
    let (w, reader, _) = run(7, cfg, 1000);
    assert_eq!(reader.delivered.last(), Some(&payload_for(999).to_vec()));
    let order: Vec<u32> = reader
        .delivered
        .iter()
        .filter(|d| d.len() == 8)
        .map(|d| u32::from_le_bytes([d[4], d[5], d[6], d[7]]))
        .collect();
    assert!(order.windows(2).all(|p| p[0] < p[1]));
    assert!(w.all_acked());
}
