//! TRANSIENT and PERSISTENT durability end to end (docs/durability.md): the OMG dds-rtps
//! suite's durability cases between two `shape_main` processes, a late joiner of a
//! TRANSIENT and a PERSISTENT writer, a PERSISTENT writer restarted in a new process serving
//! what it wrote before the restart, and TRANSIENT history outliving its writer inside the
//! participant. Everything runs inside the sandbox; each test has its own domains (200-219).

// These tests drive real processes in real time, so they read the clock.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use siftdds::api::DomainParticipant;
use siftdds::qos::{
    DataReaderQos, DataWriterQos, Durability, DurabilityService, History, PublisherQos,
    Reliability, SubscriberQos, TopicQos,
};
use siftdds::types::ShapeType;

use crate::sandbox::may_open_sockets;
use crate::shape_main::{App, SHAPE_MAIN, SampleLine, is_sample, sample_line};

const WAIT: Duration = Duration::from_secs(30);

/// A fresh directory of its own for a test's store files.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("siftdds-durability-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One of test_suite.py's Test_Durability_0..15: `-P -t Square -D w` and
/// `-S -t Square -D r`; returns whether the subscriber got samples (true) or both sides
/// reported an incompatible DURABILITY (false). Panics on anything else.
fn suite_case(dir: &Path, domain: u16, w: &str, r: &str) -> bool {
    let d = domain.to_string();
    let mut sub = App::spawn_in(Some(dir), SHAPE_MAIN, &["-S", "-t", "Square", "-D", r, "-d", &d]);
    let mut publ = App::spawn_in(Some(dir), SHAPE_MAIN, &["-P", "-t", "Square", "-D", w, "-d", &d]);
    let line = sub.expect("a sample or incompatible QoS", WAIT, |l| {
        is_sample(l) || l.starts_with("on_requested_incompatible_qos()")
    });
    let ok = is_sample(&line);
    if !ok {
        assert!(line.ends_with(": 2 (Durability)"), "-D {w} / -D {r}: {line}");
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
                cases.push((wi >= ri, *w, *r, s.spawn(move || suite_case(dir, domain, w, r))));
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
        let args = ["-P", "-t", "Square", "-z", "0", "-r", "-k", "0", "-D", kind, "-w", "-d", domain];
        let mut publ = App::spawn_in(Some(&dir), SHAPE_MAIN, &args);
        for _ in 0..3 {
            publ.expect("a written sample", WAIT, is_sample);
        }
        let args = ["-S", "-t", "Square", "-r", "-k", "0", "-D", kind, "-d", domain];
        let mut sub = App::spawn_in(Some(&dir), SHAPE_MAIN, &args);
        let first = sub.expect("a sample", WAIT, is_sample);
        assert_eq!(sample_line(&first).map(|s| s.size), Some(1), "-D {kind}: {first}");
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
    if !may_open_sockets("a_restarted_persistent_writer_serves_what_it_wrote_before_the_restart")
    {
        return;
    }
    let dir = temp_dir("restart");
    let store = dir.join("store.sqlite3");
    let qos = persistent_profile(&dir, &store);
    let qos = qos.to_str().unwrap();
    let common = ["-t", "Square", "-D", "p", "-z", "0", "-k", "0", "-r", "-d", "218", "--qos-file", qos];
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
    restarted.expect("writer", WAIT, |l| l.starts_with("Create writer for topic: Square"));
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

/// Within one process: a TRANSIENT writer writes and is deleted; a reader of another
/// participant that joins afterwards gets the samples from the participant's durability
/// service (DDS 1.4 §2.2.3.4), KEEP_LAST(2) per instance as its DURABILITY_SERVICE says.
#[test]
fn transient_samples_outlive_their_deleted_writer_within_the_participant() {
    if !may_open_sockets("transient_samples_outlive_their_deleted_writer_within_the_participant")
    {
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
