//! TRANSIENT and PERSISTENT durability end to end (docs/durability.md): the OMG dds-rtps
//! suite's durability cases between two `shape_main` processes, a late joiner of a
//! TRANSIENT and a PERSISTENT writer, a PERSISTENT writer restarted in a new process serving
//! what it wrote before the restart, and TRANSIENT history outliving its writer inside the
//! participant. Everything runs inside the sandbox, each test in a network namespace of its
//! own (`sandbox`).

// These tests drive real processes in real time, so they read the clock.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use siftdds::api::DomainParticipant;
use siftdds::qos::{
    DataReaderQos, DataWriterQos, Durability, DurabilityService, History, PublisherQos,
    Reliability, SubscriberQos, TopicQos,
};
use siftdds::runtime::durability_store::{DEFAULT_MAX_STORE_BYTES, DurableStore, SqliteStore};
use siftdds::types::ShapeType;

use crate::sandbox::may_open_sockets;
use crate::shape_main::{App, SHAPE_MAIN, SampleLine, is_sample, sample_line};
use crate::skip::skip;
use crate::vendors::{Vendor, ready};

const WAIT: Duration = Duration::from_secs(30);

/// A fresh directory of its own for a test's store files.
fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("siftdds-durability-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One of test_suite.py's Test_Durability_0..15: `-P -t Square -D w` and
/// `-S -t Square -D r`; returns whether the subscriber got samples (true) or both sides
/// reported an incompatible DURABILITY (false). Panics on anything else.
fn suite_case(dir: &Path, domain: u16, w: &str, r: &str) -> bool {
    let d = domain.to_string();
    let mut sub = App::spawn_in(
        Some(dir),
        SHAPE_MAIN,
        &["-S", "-t", "Square", "-D", r, "-d", &d],
    );
    let mut publ = App::spawn_in(
        Some(dir),
        SHAPE_MAIN,
        &["-P", "-t", "Square", "-D", w, "-d", &d],
    );
    let line = sub.expect("a sample or incompatible QoS", WAIT, |l| {
        is_sample(l) || l.starts_with("on_requested_incompatible_qos()")
    });
    let ok = is_sample(&line);
    if !ok {
        assert!(
            line.ends_with(": 2 (Durability)"),
            "-D {w} / -D {r}: {line}"
        );
        let l = publ.expect("offered incompatible", WAIT, |l| {
            l.starts_with("on_offered_incompatible_qos()")
        });
        assert!(l.ends_with(": 2 (Durability)"), "-D {w} / -D {r}: {l}");
    }
    let (code, out) = publ.interrupt(WAIT);
    assert_eq!(code, 0, "{out:?}");
    let (code, out) = sub.interrupt(WAIT);
    assert_eq!(code, 0, "{out:?}");
    assert!(!out.iter().any(|l| l.contains("not supported")), "{out:?}");
    ok
}

/// Test_Durability_0..15 of the OMG suite (harness 270eac2), shape_main with itself: a
/// writer and reader communicate iff the writer's kind is at least the reader's.
#[test]
fn shape_main_durability_cases_of_the_interoperability_suite() {
    if !may_open_sockets("shape_main_durability_cases_of_the_interoperability_suite") {
        return;
    }
    let dir = temp_dir("suite");
    let kinds = ["v", "l", "t", "p"];
    std::thread::scope(|s| {
        let mut cases = Vec::new();
        for (wi, w) in kinds.iter().enumerate() {
            for (ri, r) in kinds.iter().enumerate() {
                let domain = 200 + (4 * wi + ri) as u16;
                let dir = &dir;
                cases.push((
                    wi >= ri,
                    *w,
                    *r,
                    s.spawn(move || suite_case(dir, domain, w, r)),
                ));
            }
        }
        for (want, w, r, case) in cases {
            assert_eq!(case.join().unwrap(), want, "-D {w} writer, -D {r} reader");
        }
    });
}

/// Test_Durability_17 with TRANSIENT and PERSISTENT: the late-joining subscriber's first
/// sample is the publisher's first (size 1 with `-z 0`).
#[test]
fn shape_main_late_joiners_of_transient_and_persistent_writers_get_the_first_sample() {
    if !may_open_sockets("shape_main_late_joiners_get_the_first_sample") {
        return;
    }
    let dir = temp_dir("late");
    for (kind, domain) in [("t", "216"), ("p", "217")] {
        let args = [
            "-P", "-t", "Square", "-z", "0", "-r", "-k", "0", "-D", kind, "-w", "-d", domain,
        ];
        let mut publ = App::spawn_in(Some(&dir), SHAPE_MAIN, &args);
        for _ in 0..3 {
            publ.expect("a written sample", WAIT, is_sample);
        }
        let args = [
            "-S", "-t", "Square", "-r", "-k", "0", "-D", kind, "-d", domain,
        ];
        let mut sub = App::spawn_in(Some(&dir), SHAPE_MAIN, &args);
        let first = sub.expect("a sample", WAIT, is_sample);
        assert_eq!(
            sample_line(&first).map(|s| s.size),
            Some(1),
            "-D {kind}: {first}"
        );
        let (code, _) = sub.interrupt(WAIT);
        assert_eq!(code, 0);
        let (code, _) = publ.interrupt(WAIT);
        assert_eq!(code, 0);
    }
}

/// A QoS file whose default profile puts PERSISTENT samples in `store` and keeps every
/// sample in the durability service.
fn persistent_profile(dir: &Path, store: &Path) -> PathBuf {
    let file = dir.join("persistent.xml");
    let xml = format!(
        r#"<dds><qos_library name="Durable"><qos_profile name="P" is_default_qos="true">
  <domain_participant_qos><property><value>
    <element><name>siftdds.durability.persistent.file</name><value>{}</value></element>
  </value></property></domain_participant_qos>
  <datawriter_qos><durability_service>
    <history_kind>KEEP_ALL_HISTORY_QOS</history_kind>
  </durability_service></datawriter_qos>
</qos_profile></qos_library></dds>"#,
        store.display()
    );
    std::fs::write(&file, xml).unwrap();
    file
}

/// Process 1 writes five PERSISTENT RED samples and exits; process 2, with the same store
/// file, creates a PERSISTENT writer (publishing BLUE); a subscriber that joins after it gets
/// process 1's five samples, in order, with their values.
#[test]
fn a_restarted_persistent_writer_serves_what_it_wrote_before_the_restart() {
    if !may_open_sockets("a_restarted_persistent_writer_serves_what_it_wrote_before_the_restart") {
        return;
    }
    let dir = temp_dir("restart");
    let store = dir.join("store.sqlite3");
    let qos = persistent_profile(&dir, &store);
    let qos = qos.to_str().unwrap();
    let common = [
        "-t",
        "Square",
        "-D",
        "p",
        "-z",
        "0",
        "-k",
        "0",
        "-r",
        "-d",
        "218",
        "--qos-file",
        qos,
    ];
    let mut args = vec!["-P", "-c", "RED", "--num-iterations", "5", "-w"];
    args.extend(common);
    let (code, out) = App::spawn_in(Some(&dir), SHAPE_MAIN, &args).finish(WAIT);
    assert_eq!(code, 0, "{out:?}");
    let written: Vec<SampleLine> = out.iter().filter_map(|l| sample_line(l)).collect();
    assert_eq!(written.len(), 5, "{out:?}");
    assert!(store.exists());
    let mut args = vec!["-P", "-c", "BLUE"];
    args.extend(common);
    let mut restarted = App::spawn_in(Some(&dir), SHAPE_MAIN, &args);
    restarted.expect("writer", WAIT, |l| {
        l.starts_with("Create writer for topic: Square")
    });
    let mut args = vec!["-S"];
    args.extend(common);
    let mut sub = App::spawn_in(Some(&dir), SHAPE_MAIN, &args);
    // RED comes first (the restarted writer's history starts with it); BLUE samples follow
    // at the restarted writer's rate, so 100 samples bound the wait.
    let mut red = Vec::new();
    for _ in 0..100 {
        let line = sub.expect("process 1's samples", WAIT, is_sample);
        let s = sample_line(&line).unwrap();
        if s.color == "RED" {
            red.push(s);
        }
        if red.len() == 5 {
            break;
        }
    }
    assert_eq!(red, written);
    let (code, _) = sub.interrupt(WAIT);
    assert_eq!(code, 0);
    let (code, _) = restarted.interrupt(WAIT);
    assert_eq!(code, 0);
}

/// Crash safety: a PERSISTENT publisher killed with SIGKILL while writing every 5 ms has in
/// its store every sample whose write had returned (shape_main prints a sample after its
/// write returns).
#[test]
fn a_killed_persistent_writer_lost_no_sample_whose_write_returned() {
    if !may_open_sockets("a_killed_persistent_writer_lost_no_sample_whose_write_returned") {
        return;
    }
    let dir = temp_dir("crash");
    let store = dir.join("store.sqlite3");
    let qos = persistent_profile(&dir, &store);
    let args = [
        "-P",
        "-c",
        "RED",
        "-t",
        "Square",
        "-D",
        "p",
        "-z",
        "0",
        "-k",
        "0",
        "-r",
        "-w",
        "--write-period",
        "5",
        "-d",
        "215",
        "--qos-file",
        qos.to_str().unwrap(),
    ];
    let mut publ = App::spawn_in(Some(&dir), SHAPE_MAIN, &args);
    for _ in 0..20 {
        publ.expect("a written sample", WAIT, is_sample);
    }
    let pid = publ.pid().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &pid])
        .status();
    assert!(killed.unwrap().success());
    let (_, out) = publ.finish(WAIT);
    let printed = out.iter().filter(|l| is_sample(l)).count();
    let mut s = SqliteStore::open(&store, DEFAULT_MAX_STORE_BYTES).unwrap();
    let stored = s.load("Square", "ShapeType").unwrap();
    assert!(
        stored.len() >= printed,
        "{} stored, {printed} returned",
        stored.len()
    );
    let ids: Vec<u64> = stored.iter().map(|x| x.id).collect();
    assert_eq!(ids, (1..=stored.len() as u64).collect::<Vec<_>>());
}

/// Within one process: a TRANSIENT writer writes and is deleted; a reader of another
/// participant that joins afterwards gets the samples from the participant's durability
/// service (DDS 1.4 §2.2.3.4), KEEP_LAST(2) per instance as its DURABILITY_SERVICE says.
#[test]
fn transient_samples_outlive_their_deleted_writer_within_the_participant() {
    if !may_open_sockets("transient_samples_outlive_their_deleted_writer_within_the_participant") {
        return;
    }
    let fast = |d| {
        DomainParticipant::builder(d)
            .announce_period(Duration::from_millis(200))
            .build()
            .unwrap()
    };
    let (a, b) = (fast(219), fast(219));
    let topic = a.create_topic::<ShapeType>("Square", TopicQos::default());
    let wqos = DataWriterQos {
        history: History::KeepAll,
        durability: Durability::Transient,
        durability_service: DurabilityService {
            history: History::KeepLast(2),
            ..DurabilityService::default()
        },
        ..DataWriterQos::default()
    };
    let writer = a
        .create_publisher(PublisherQos::default())
        .create_datawriter(&topic, wqos)
        .unwrap();
    for (color, x) in [("RED", 1), ("RED", 2), ("RED", 3), ("BLUE", 4)] {
        let s = ShapeType {
            color: color.into(),
            x,
            y: 0,
            shapesize: 30,
            additional_payload_size: vec![],
        };
        writer.write(&s).unwrap();
    }
    drop(writer);
    let rqos = DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        durability: Durability::Transient,
        ..DataReaderQos::default()
    };
    let topic_b = b.create_topic::<ShapeType>("Square", TopicQos::default());
    let reader = b
        .create_subscriber(SubscriberQos::default())
        .create_datareader(&topic_b, rqos)
        .unwrap();
    reader.wait_for_matched(1, WAIT).unwrap();
    let mut got = Vec::new();
    let deadline = std::time::Instant::now() + WAIT;
    while got.len() < 3 && std::time::Instant::now() < deadline {
        for s in reader.wait_take(Duration::from_millis(200)).unwrap() {
            if let Some(v) = s.value {
                got.push((v.color, v.x));
            }
        }
    }
    got.sort();
    let want = [("BLUE", 4), ("RED", 2), ("RED", 3)].map(|(c, x)| (c.to_string(), x));
    assert_eq!(got, want);
}

// --- with Cyclone DDS 0.10 and Fast DDS 2.9 (interop-tests/peers, -D T|P) --------------------

/// Starts `vendor`'s peer in `dir` with `args` (`pub` or `sub` first). Fast DDS 2.9 creates
/// TRANSIENT endpoints only with its SQLite persistence plugin and a persistence GUID
/// (docs/interop-facts.md §7.2): it gets `--persistence` with a file of its role.
fn spawn_peer(vendor: Vendor, dir: &Path, args: &[&str]) -> App {
    let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    if let Vendor::FastDds = vendor {
        let db = dir.join(format!("fastdds-{}.db", args[0]));
        args.extend(["--persistence".into(), db.display().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    App::spawn_in(Some(dir), vendor.binary().to_str().unwrap(), &args)
}

/// `shape_main -P -D ours` writes; the peer's reader (`-D theirs`) joins after three samples
/// and its first sample is the first written (size 1), served from our durable history.
fn late_peer_reader(vendor: Vendor, ours: &str, theirs: &str, domain: &str) {
    let dir = temp_dir(&format!("late-peer-{domain}"));
    let args = [
        "-P", "-t", "Square", "-c", "RED", "-z", "0", "-r", "-k", "0", "-D", ours, "-w", "-d",
        domain,
    ];
    let mut publ = App::spawn_in(Some(&dir), SHAPE_MAIN, &args);
    for _ in 0..3 {
        publ.expect("a written sample", WAIT, is_sample);
    }
    let args = [
        "sub", "-D", theirs, "-d", domain, "-n", "1", "-k", "0", "-t", "20",
    ];
    let mut peer = spawn_peer(vendor, &dir, &args);
    let first = peer.expect("the peer's first sample", WAIT, |l| {
        l.starts_with("sub: 1 ")
    });
    assert!(
        first.starts_with("sub: 1 RED ") && first.contains(" size=1 "),
        "{vendor:?}: {first}"
    );
    let (code, out) = peer.finish(WAIT);
    assert_eq!(code, 0, "{out:?}");
    let (code, _) = publ.interrupt(WAIT);
    assert_eq!(code, 0);
}

/// The peer's writer (`-D theirs`) publishes to `shape_main -S -D ours`, which prints them.
fn peer_writer(vendor: Vendor, theirs: &str, ours: &str, domain: &str) {
    let dir = temp_dir(&format!("peer-writer-{domain}"));
    let mut sub = App::spawn_in(
        Some(&dir),
        SHAPE_MAIN,
        &["-S", "-t", "Square", "-D", ours, "-d", domain],
    );
    sub.expect("reader", WAIT, |l| {
        l.starts_with("Create reader for topic: Square")
    });
    let args = [
        "pub", "-D", theirs, "-d", domain, "-n", "5", "-m", "1", "-i", "50", "-l", "500", "-t",
        "20",
    ];
    let peer = spawn_peer(vendor, &dir, &args);
    sub.expect("the peer's samples", WAIT, is_sample);
    let (code, out) = peer.finish(WAIT);
    assert_eq!(code, 0, "{out:?}");
    let (code, _) = sub.interrupt(WAIT);
    assert_eq!(code, 0);
}

/// A TRANSIENT_LOCAL Cyclone reader: Cyclone 0.10's TRANSIENT and PERSISTENT readers take no
/// historical data from a writer (they leave it to a durability service it does not have;
/// docs/interop-facts.md §7.1), so the late joiner that shows our durable history is a
/// TRANSIENT_LOCAL one (PERSISTENT offered ≥ TRANSIENT_LOCAL requested).
#[test]
fn siftdds_persistent_writer_to_late_cyclone_transient_local_reader() {
    let test = "siftdds_persistent_writer_to_late_cyclone_transient_local_reader";
    if ready(test, Vendor::Cyclone) {
        late_peer_reader(Vendor::Cyclone, "p", "t", "210");
    }
}

#[test]
fn cyclone_transient_writer_to_siftdds_transient_reader() {
    if ready(
        "cyclone_transient_writer_to_siftdds_transient_reader",
        Vendor::Cyclone,
    ) {
        peer_writer(Vendor::Cyclone, "T", "t", "211");
    }
}

#[test]
fn siftdds_transient_writer_to_late_fastdds_transient_reader() {
    if ready(
        "siftdds_transient_writer_to_late_fastdds_transient_reader",
        Vendor::FastDds,
    ) {
        late_peer_reader(Vendor::FastDds, "t", "T", "212");
    }
}

#[test]
fn fastdds_transient_writer_to_siftdds_transient_reader() {
    if ready(
        "fastdds_transient_writer_to_siftdds_transient_reader",
        Vendor::FastDds,
    ) {
        peer_writer(Vendor::FastDds, "T", "t", "213");
    }
}

/// Fast DDS 2.9.1 refuses PERSISTENT endpoints (its QoS check), even with the persistence
/// plugin configured; checked so that a Fast DDS that accepts them shows up.
#[test]
fn fastdds_refuses_persistent_endpoints() {
    if !ready("fastdds_refuses_persistent_endpoints", Vendor::FastDds) {
        return;
    }
    let dir = temp_dir("fastdds-persistent");
    let args = [
        "pub", "-D", "P", "-d", "214", "-n", "1", "-m", "0", "-t", "5",
    ];
    let (code, out) = spawn_peer(Vendor::FastDds, &dir, &args).finish(WAIT);
    assert_eq!(code, 1, "Fast DDS created a PERSISTENT writer: {out:?}");
}

/// PERSISTENT between siftdds and Fast DDS cannot run: Fast DDS 2.9.1 has no PERSISTENT
/// endpoints ([`fastdds_refuses_persistent_endpoints`] checks that). A counted skip.
#[test]
fn siftdds_persistent_interop_with_fastdds() {
    skip(
        "siftdds_persistent_interop_with_fastdds",
        "Fast DDS 2.9.1 refuses PERSISTENT endpoints (\"PERSISTENT Durability not supported\")",
    );
}
