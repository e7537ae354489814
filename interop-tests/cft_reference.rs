//! Side-by-side reference for writer-side filtering: the same 32 Fast DDS 2.9
//! content-filtered readers (reader `i` passes only colour `C<i>`), served once by a Fast DDS
//! 2.9 writer (which filters writer-side for up to 32 readers without multicast locators,
//! docs/interop-facts.md §3.1) and once by our writer, writing the same samples at the same pace.
//! Both runs are captured on the sandbox's loopback and the writer-to-reader traffic (datagrams
//! holding DATA, DATA_FRAG, GAP, HEARTBEAT or HEARTBEAT_FRAG of a user writer) is counted the same
//! way for both. The test checks that every reader got exactly its samples from our writer; the
//! figures (and what the Fast DDS writer delivered) are printed and written to
//! `target/cft-reference.md`, never asserted.
//!
//! Domains 116 (Fast DDS writer) and 117 (our writer).

// These tests drive real vendor processes in real time.
#![allow(clippy::disallowed_methods)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use siftdds::inspect::capture::for_each_datagram;
use siftdds::qos::{DataWriterQos, History, PublisherQos, TopicQos};
use siftdds::types::ShapeType;
use siftdds::wire::Message;
use siftdds::wire::submessage::{Submessage, SubmessageOutcome};

use crate::skip::skip;
use crate::vendors::{Peer, Vendor, argv, participant, peer_samples, ready, spawn};

/// Readers (Fast DDS's default `reader_filters_allocation.maximum`).
const READERS: usize = 32;
/// Samples each reader passes; the writer writes `READERS * PER_READER`.
const PER_READER: usize = 20;
/// Pause between writes, both writers.
const INTERVAL_MS: u64 = 2;

fn color(i: usize) -> String {
    format!("C{i}")
}

/// Starts the 32 filtered Fast DDS readers on `domain`, each exiting after its samples.
fn start_readers(domain: u32) -> Vec<Peer> {
    (0..READERS)
        .map(|i| {
            let mut args = argv(&format!("sub -d {domain} -k 0 -n {PER_READER} -t 90 -f"));
            args.push("color = %0".into());
            args.push("-p".into());
            args.push(format!("'{}'", color(i)));
            spawn(Vendor::FastDds, &args)
        })
        .collect()
}

/// Waits for every reader (each exits after its `PER_READER` samples, or at its deadline) and
/// returns how many samples they delivered in all, with a line per reader that missed any.
/// A sample of another colour fails the test (the filter must hold).
fn wait_readers(readers: Vec<Peer>, run: &str) -> (usize, Vec<String>) {
    let mut delivered = 0;
    let mut short = Vec::new();
    for (i, r) in readers.into_iter().enumerate() {
        let (_, out) = r.finish_any(Duration::from_secs(90));
        let got = peer_samples(&out);
        assert!(
            got.iter().all(|s| s.color == color(i)),
            "{run}: reader {i} got a sample of another colour"
        );
        delivered += got.len();
        if got.len() != PER_READER {
            let want: Vec<i32> = (0..READERS * PER_READER)
                .filter(|k| k % READERS == i)
                .map(|k| 10 + 5 * k as i32)
                .filter(|x| !got.iter().any(|s| s.x == *x))
                .collect();
            short.push(format!(
                "{run}: reader {i} got {} of {PER_READER}, missing x = {want:?}",
                got.len()
            ));
        }
    }
    (delivered, short)
}

/// A tshark capture of one domain's ports, stopped with SIGINT (by the PID we started).
struct Capture {
    child: Child,
    path: PathBuf,
}

impl Capture {
    fn start(domain: u32, name: &str) -> Capture {
        let path =
            std::env::temp_dir().join(format!("siftdds-{name}-{}.pcapng", std::process::id()));
        let base = 7400 + 250 * domain;
        let filter = format!("udp and portrange {}-{}", base, base + 249);
        let child = crate::tshark::start_capture(&filter, &["-B", "64"], &path);
        Capture { child, path }
    }

    /// Lets the last datagrams land, stops tshark and returns the writer traffic's figures.
    fn stop(mut self) -> Traffic {
        std::thread::sleep(Duration::from_millis(500));
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
        let t = Traffic::read(&self.path);
        let _ = std::fs::remove_file(&self.path);
        t
    }
}

/// Writer-to-reader traffic of user writers in a capture.
#[derive(Default, Debug)]
struct Traffic {
    datagrams: u64,
    bytes: u64,
    data: u64,
    gaps: u64,
    heartbeats: u64,
}

impl Traffic {
    fn read(path: &Path) -> Traffic {
        let mut t = Traffic::default();
        let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
        for_each_datagram(file, |d| {
            let Ok((_, subs)) = Message::parse(&d.payload) else {
                return;
            };
            let (mut data, mut gaps, mut hbs) = (0, 0, 0);
            for s in subs {
                let SubmessageOutcome::Accept(sm) = s else {
                    continue;
                };
                match sm {
                    Submessage::Data(x) if !x.writer_id.is_builtin() => data += 1,
                    Submessage::DataFrag(x) if !x.writer_id.is_builtin() => data += 1,
                    Submessage::Gap(x) if !x.writer_id.is_builtin() => gaps += 1,
                    Submessage::Heartbeat(x) if !x.writer_id.is_builtin() => hbs += 1,
                    Submessage::HeartbeatFrag(x) if !x.writer_id.is_builtin() => hbs += 1,
                    _ => {}
                }
            }
            if data + gaps + hbs > 0 {
                t.datagrams += 1;
                t.bytes += d.payload.len() as u64;
                t.data += data;
                t.gaps += gaps;
                t.heartbeats += hbs;
            }
        })
        .unwrap();
        t
    }

    fn row(&self, name: &str, delivered: usize, written: u64) -> String {
        format!(
            "| {name} | {delivered}/{written} | {} | {} | {} | {} | {} | {:.3} | {:.1} |",
            self.datagrams,
            self.bytes,
            self.data,
            self.gaps,
            self.heartbeats,
            self.datagrams as f64 / written as f64,
            self.bytes as f64 / written as f64,
        )
    }
}

/// What one run measured.
struct Run {
    traffic: Traffic,
    delivered: usize,
    short: Vec<String>,
}

fn fastdds_writer_run(domain: u32) -> Run {
    let capture = Capture::start(domain, "cft-ref-fastdds");
    let readers = start_readers(domain);
    let colors: Vec<String> = (0..READERS).map(color).collect();
    let n = READERS * PER_READER;
    let args = argv(&format!(
        "pub -d {domain} -k 0 -c {} -n {n} -m {READERS} -i {INTERVAL_MS} -l 60000 -t 90",
        colors.join(",")
    ));
    let writer = spawn(Vendor::FastDds, &args);
    // The writer lingers until every reader has all its samples (a loaded machine can be
    // slow to repair the last ones), then is stopped.
    let (delivered, short) = wait_readers(readers, "Fast DDS writer");
    drop(writer);
    Run {
        traffic: capture.stop(),
        delivered,
        short,
    }
}

fn siftdds_writer_run(domain: u32) -> Run {
    let capture = Capture::start(domain, "cft-ref-siftdds");
    let readers = start_readers(domain);
    let p = participant(domain);
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let qos = DataWriterQos {
        history: History::KeepAll,
        ..DataWriterQos::default()
    };
    let w = p
        .create_publisher(PublisherQos::default())
        .create_datawriter(&topic, qos)
        .unwrap();
    w.wait_for_matched(READERS, Duration::from_secs(30))
        .unwrap();
    // As the Fast DDS peer does: let the readers' side finish matching too.
    std::thread::sleep(Duration::from_millis(300));
    for k in 0..READERS * PER_READER {
        let s = ShapeType {
            color: color(k % READERS),
            x: 10 + 5 * k as i32,
            y: 20 + 3 * k as i32,
            shapesize: 30,
            additional_payload_size: vec![],
        };
        w.write(&s).unwrap();
        std::thread::sleep(Duration::from_millis(INTERVAL_MS));
    }
    w.wait_for_acknowledgments(Duration::from_secs(30)).unwrap();
    let (delivered, short) = wait_readers(readers, "siftdds writer");
    let stats = w.filter_stats().unwrap();
    let _ = writeln!(std::io::stderr(), "siftdds writer filter stats: {stats:?}");
    drop((w, p));
    Run {
        traffic: capture.stop(),
        delivered,
        short,
    }
}

#[test]
fn fastdds_and_siftdds_writers_serve_the_same_32_filtered_readers() {
    let test = "fastdds_and_siftdds_writers_serve_the_same_32_filtered_readers";
    if !ready(test, Vendor::FastDds) {
        return;
    }
    if Command::new("tshark").arg("--version").output().is_err() {
        skip(test, "tshark not installed (scripts/setup installs it)");
        return;
    }
    let fast = fastdds_writer_run(116);
    let ours = siftdds_writer_run(117);
    let written = (READERS * PER_READER) as u64;
    for line in fast.short.iter().chain(&ours.short) {
        let _ = writeln!(std::io::stderr(), "{line}");
    }
    let table = format!(
        "{READERS} Fast DDS 2.9 readers, reader i filters `color = %0` with 'C<i>'; \
         {written} samples written, each passing exactly one reader; reliable KEEP_ALL, one \
         write every {INTERVAL_MS} ms.\n\n\
         | writer | delivered | datagrams | bytes | DATA | GAP | HEARTBEAT | datagrams / sample | bytes / sample |\n\
         |---|---|---|---|---|---|---|---|---|\n{}\n{}\n",
        fast.traffic.row("Fast DDS 2.9.1", fast.delivered, written),
        ours.traffic.row("siftdds", ours.delivered, written),
    );
    let _ = writeln!(std::io::stderr(), "{table}");
    let out = Path::new(repo_path!("target/cft-reference.md"));
    let _ = std::fs::write(out, &table);
    // Our writer: every reader got exactly its samples, and no DATA went to a reader that
    // does not pass it (one DATA per sample). The Fast DDS run is a reference: reported, not
    // judged.
    assert!(ours.short.is_empty(), "siftdds writer: {:?}", ours.short);
    assert_eq!(
        ours.traffic.data, written,
        "siftdds sent a DATA to a reader that does not pass it"
    );
}
