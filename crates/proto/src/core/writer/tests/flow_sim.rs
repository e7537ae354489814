//! End to end: flow control (`flow.rs`) on the simulated network. A KEEP_ALL writer writes
//! as fast as its history lets it to independent reliable readers (`sim.rs`'s `SimReader`),
//! some of which sit behind a small receive buffer (`SimNet::set_receive_buffer`: a queue
//! taken at a fixed byte rate that drops what does not fit, as a socket buffer does).
//!
//! Must not: sleep, open sockets or read clocks; time is the simulator's manual clock. No
//! timing thresholds: the assertions are about what arrived, what was repaired and what was
//! dropped, counted.
//!
//! RTPS 2.5 §8.4.9.2 (reliable StatefulWriter), §8.4.15.1 (piggy-backed HEARTBEATs).

use super::filter::{filter, filtering_config, put, shape};
use super::sim::SimReader;
use super::*;
use crate::core::sim::{Node, SimNet, SimNode};
use crate::core::writer::WriteError;
use crate::qos::{History, Length, ResourceLimits};
use crate::wire::{Header, ProtocolVersion, VendorId, emit_message};

/// Where the writer listens for the readers' ACKNACKs.
const WRITER_AT: Locator = Locator::udpv4([127, 0, 0, 250], 7400);

/// The writer or reader `n` (GUID `reader_guid(n)`, locator of `remote(n, ..)`).
enum End {
    Writer(Box<Writer>),
    Reader(u8, SimReader),
}

impl SimNode for End {
    fn handle_datagram(&mut self, now: Now, _source: Locator, datagram: &[u8]) {
        match self {
            End::Writer(w) => {
                let (header, subs) = Message::parse(datagram).unwrap();
                let reader = Guid::new(header.guid_prefix, READER_ENTITY);
                for s in subs {
                    if let SubmessageOutcome::Accept(Submessage::AckNack(a)) = s {
                        w.handle_acknack(now, reader, &a);
                    }
                }
            }
            End::Reader(_, r) => {
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
            End::Reader(..) => None,
        }
    }

    fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        match self {
            End::Writer(w) => w.poll_transmit(now),
            End::Reader(n, r) => {
                let a = r.outbox.pop_front()?;
                let header = Header {
                    version: ProtocolVersion::V2_5,
                    vendor_id: VendorId::SIFTDDS,
                    guid_prefix: reader_guid(*n).prefix,
                };
                let mut buf = Vec::new();
                emit_message(&header, &[Submessage::AckNack(a)], &mut buf);
                Some(Transmit::new(vec![WRITER_AT], buf))
            }
        }
    }
}

/// A KEEP_ALL writer (`max_samples`) matched with readers `1..=readers`, on a network.
fn network(readers: u8, max_samples: u32) -> SimNet<End> {
    network_with(config(), readers, max_samples)
}

/// The same with the writer configured from `cfg`.
fn network_with(mut cfg: WriterConfig, readers: u8, max_samples: u32) -> SimNet<End> {
    cfg.history = History::KeepAll;
    cfg.resource_limits = ResourceLimits {
        max_samples: Length::Limited(max_samples),
        ..Default::default()
    };
    let mut w = Writer::new(cfg);
    let mut nodes = Vec::new();
    for n in 1..=readers {
        let matched = remote(n, true, false);
        let locators = matched.unicast_locators.clone();
        w.matched_reader_add(at(0), matched);
        let mut r = SimReader::new();
        r.strict = true;
        nodes.push(Node {
            p: End::Reader(n, r),
            locators,
        });
    }
    nodes.insert(
        0,
        Node {
            p: End::Writer(Box::new(w)),
            locators: vec![WRITER_AT],
        },
    );
    SimNet::with_nodes(nodes, 0xf10_c0de)
}

fn writer(net: &mut SimNet<End>) -> &mut Writer {
    match &mut net.nodes[0].p {
        End::Writer(w) => w,
        End::Reader(..) => unreachable!("node 0 is the writer"),
    }
}

fn reader(net: &SimNet<End>, i: usize) -> &SimReader {
    match &net.nodes[i].p {
        End::Reader(_, r) => r,
        End::Writer(_) => unreachable!("nodes 1.. are readers"),
    }
}

/// Writes up to `per_ms` samples each millisecond (as many as the history takes) for
/// `ms` milliseconds, until `total` are written; returns how many were.
fn write_flat_out(net: &mut SimNet<End>, written: &mut u32, total: u32, per_ms: u32, ms: u64) {
    for _ in 0..ms {
        let now = net.now();
        let w = writer(net);
        for _ in 0..per_ms {
            if *written == total {
                break;
            }
            match w.write(
                now,
                WriteRequest::new(ChangeKind::Alive, None, sample(*written)),
            ) {
                Ok(_) => *written += 1,
                Err(WriteError::HistoryFull) => break,
                Err(e) => panic!("{e}"),
            }
        }
        net.run_for(1);
    }
}

fn delivered_in_order(r: &SimReader, n: u32) -> bool {
    let expected: Vec<Vec<u8>> = (0..n).map(|i| sample(i).to_vec()).collect();
    r.delivered == expected
}

#[test]
fn a_reader_with_a_small_receive_buffer_gets_everything_with_bounded_repairs() {
    // 96 KiB of buffer taken at 2 kB per ms, offered 200 samples (about 8 kB) per ms.
    let mut net = network(1, 4000);
    net.set_receive_buffer(1, 96 * 1024, 2_000);
    let (mut written, total) = (0, 20_000);
    write_flat_out(&mut net, &mut written, total, 200, 20_000);
    net.run_for(2_000);
    assert_eq!(written, total);
    let r = reader(&net, 1);
    assert!(
        delivered_in_order(r, total),
        "delivered {}",
        r.delivered.len()
    );
    let c = writer(&mut net).counters();
    let drops = net.receive_drops(1);
    assert!(writer(&mut net).all_acked());
    // Bounded: the buffer overflowed a few times at most (each drop costs one datagram's
    // changes in repairs), not at every burst as an unthrottled push does.
    assert!(drops <= 5, "{drops} datagrams dropped");
    assert!(
        c.repairs_sent <= u64::from(total) / 10,
        "repairs {} for {total} samples, {drops} datagrams dropped: {c:?}",
        c.repairs_sent
    );
}

#[test]
fn the_writer_converges_to_the_rate_of_its_slowest_reader() {
    // Reader 1 takes everything at once; reader 2 takes 1 kB per ms.
    let mut net = network(2, 2000);
    net.set_receive_buffer(2, 96 * 1024, 1_000);
    let (mut written, total) = (0, u32::MAX);
    write_flat_out(&mut net, &mut written, total, 200, 1_000);
    let (fast0, slow0) = (
        reader(&net, 1).delivered.len(),
        reader(&net, 2).delivered.len(),
    );
    let drops0 = net.receive_drops(2);
    let c0 = writer(&mut net).counters();
    write_flat_out(&mut net, &mut written, total, 200, 2_000);
    let slow = reader(&net, 2).delivered.len() - slow0;
    let fast = reader(&net, 1).delivered.len() - fast0;
    let c = writer(&mut net).counters();
    // What reader 2's buffer lets through in those 2 s, in samples: 2,000 kB over the wire
    // bytes the writer sent per change in that time (both readers' copies counted, so the
    // ratio is per copy).
    let copies = (c.data_sent + c.repairs_sent) - (c0.data_sent + c0.repairs_sent);
    let bytes = c.wire_bytes - c0.wire_bytes;
    let capacity = 2_000_000 * copies / bytes.max(1);
    assert!(
        (slow as u64) * 2 >= capacity,
        "the slow reader took {slow} samples in 2 s, its buffer passes about {capacity}"
    );
    // The writer (KEEP_ALL, 2,000 samples) goes at the slow reader's pace: the fast one
    // gets no more than that plus the history.
    assert!(fast <= slow + 2_000, "fast {fast}, slow {slow}");
    // In the steady state the buffer rarely overflows: drops are a small share of copies.
    let drops = net.receive_drops(2) - drops0;
    assert!(drops * 50 <= copies, "{drops} drops for {copies} copies");
}

#[test]
fn a_stuck_reader_fills_its_own_window_while_the_others_get_everything_the_history_holds() {
    // Reader 3 receives but never acknowledges (its ACKNACKs are dropped).
    let mut net = network(3, 1_000);
    net.silenced.push(3);
    let (mut written, total) = (0, u32::MAX);
    write_flat_out(&mut net, &mut written, total, 50, 2_000);
    // KEEP_ALL: the stuck reader holds the history, so writing stops at its limit (what
    // then happens to a reader that never acknowledges is the writer's hardening rules').
    assert_eq!(written, 1_000);
    for i in [1, 2] {
        assert!(
            delivered_in_order(reader(&net, i), written),
            "reader {i} got {} of {written}",
            reader(&net, i).delivered.len()
        );
    }
    // Its window bounds what went to the stuck reader: never acknowledged, the first window
    // (16 KiB at 8 + 64 bytes per change, about 228 changes) never grows; the others were
    // never held at its window.
    let got = reader(&net, 3).delivered.len();
    assert!((200..=240).contains(&got), "the stuck reader got {got}");
}

/// Readers `1..=readers` each filter `color = 'C<n>'`; the writer cycles the colours, 20
/// samples per ms for 2 s, then drains. Returns (HEARTBEATs, ACKNACKs, repairs) per sample.
fn control_per_sample(readers: u8) -> (f64, f64, f64) {
    let mut net = network_with(filtering_config(), readers, 20_000);
    for n in 1..=readers {
        let f = filter("color = %0", &[&format!("'C{n}'")]);
        let w = writer(&mut net);
        assert_eq!(
            w.set_reader_filter(reader_guid(n), Some(&f)),
            crate::core::writer::FilterUpdate::Applied
        );
    }
    let mut written = 0u32;
    for _ in 0..2_000 {
        let now = net.now();
        for _ in 0..20 {
            let colour = format!("C{}", written % u32::from(readers) + 1);
            put(
                writer(&mut net),
                now,
                &shape(&colour, written as i32, 30, 0),
            );
            written += 1;
        }
        net.run_for(1);
    }
    net.run_for(1_000);
    assert!(
        writer(&mut net).all_acked(),
        "{readers} readers: not all acknowledged"
    );
    for n in 1..=readers {
        let got = reader(&net, usize::from(n)).delivered.len() as u32;
        assert_eq!(got, written / u32::from(readers), "reader {n}");
    }
    let c = writer(&mut net).counters();
    let per = |x: u64| x as f64 / f64::from(written);
    (
        per(c.heartbeats_sent),
        per(c.acknacks_received),
        per(c.repairs_sent),
    )
}

#[test]
fn heartbeats_and_acknacks_per_sample_stay_low_as_filtered_readers_grow() {
    // Measured: 4 readers 0.0025 / 0.0025 / 0, 200 readers 0.065 / 0.065 / 0 (each sample
    // passes one reader, so at 200 each reader gets 100 samples a second). The bound is the
    // issue's goal, 0.1 per written sample: since the KEEP_ALL limit counts each change's
    // bookkeeping (`footprint.rs`) the history reads fuller, and heartbeats come faster as it
    // fills (`flow::heartbeat_interval`), which doubled the 200-reader figure from 0.032.
    let few = control_per_sample(4);
    let many = control_per_sample(200);
    for (hb, acknack, repairs) in [few, many] {
        assert!(hb <= 0.1 && acknack <= 0.1, "{few:?} {many:?}");
        assert_eq!(repairs, 0.0);
    }
}
