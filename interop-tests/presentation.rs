//! PRESENTATION end to end: the OMG dds-rtps suite's Coherent/OrderedAccess cases between two
//! `shape_main` processes (the harness's own checks, `test_suite_functions.py`
//! `coherent_sets_w_instances` and `ordered_access_w_instances`, redone here), and against
//! the Cyclone DDS 0.10 and Fast DDS 2.9 peers for what they support: Cyclone announces and
//! matches PRESENTATION (RxO both ways) but writes no coherent sets; Fast DDS 2.9 announces it
//! but does not match on it (docs/interop-facts.md §8.2). The cases of one test run at once,
//! each on a domain of its own, to keep the wall time down.

// These tests drive real processes in real time, so they read the clock.
#![allow(clippy::disallowed_methods)]

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use crate::sandbox::may_open_sockets;
use crate::shape_main::{App, SHAPE_MAIN, is_sample, sample_line};
use crate::skip::skip;
use crate::vendors::{Peer, peer_samples};

const WAIT: Duration = Duration::from_secs(30);

/// The harness's `-S` argument list for domain `d` plus `extra`.
fn args(role: &str, domain: &str, extra: &str) -> Vec<String> {
    let mut v = vec![role.to_string(), "-d".to_string(), domain.to_string()];
    v.extend(extra.split_whitespace().map(str::to_string));
    v
}

fn spawn(role: &str, domain: &str, extra: &str) -> App {
    let a = args(role, domain, extra);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    App::spawn(SHAPE_MAIN, &a)
}

const INCOMPATIBLE_PUB: &str = "on_offered_incompatible_qos() topic: 'Square'  type: 'ShapeType' : \
                                3 (Presentation)";
const INCOMPATIBLE_SUB: &str =
    "on_requested_incompatible_qos() topic: 'Square'  type: 'ShapeType' : 3 (Presentation)";

/// Test_CoherentSets_1 and Test_OrderedAccess_9 (incompatible on both sides) and
/// Test_CoherentSets_7 / Test_OrderedAccess_6 (compatible, samples flow): PRESENTATION is RxO
/// through SEDP and no option prints "not supported".
#[test]
fn shape_main_presentation_matching_follows_the_suite() {
    if !may_open_sockets("shape_main_presentation_matching_follows_the_suite") {
        return;
    }
    let base = "-t Square -r -k 0";
    let cases = [
        (
            "140",
            "--coherent --access-scope i",
            "--coherent --access-scope t",
            false,
        ),
        (
            "141",
            "--access-scope t",
            "--ordered --access-scope t",
            false,
        ),
        (
            "142",
            "--coherent --access-scope g",
            "--coherent --access-scope t",
            true,
        ),
        (
            "143",
            "--ordered --access-scope g",
            "--ordered --access-scope i",
            true,
        ),
    ];
    let running: Vec<_> = cases
        .iter()
        .map(|(d, p, s, ok)| {
            let sub = spawn("-S", d, &format!("{base} {s}"));
            let publisher = spawn("-P", d, &format!("{base} {p}"));
            (d, sub, publisher, *ok)
        })
        .collect();
    for (d, mut sub, mut publisher, ok) in running {
        if ok {
            sub.expect("a sample", WAIT, is_sample);
        } else {
            sub.expect("requested incompatible", WAIT, |l| l == INCOMPATIBLE_SUB);
            publisher.expect("offered incompatible", WAIT, |l| l == INCOMPATIBLE_PUB);
        }
        let (_, pub_out) = publisher.interrupt(WAIT);
        let (code, sub_out) = sub.interrupt(WAIT);
        assert_eq!(code, 0, "domain {d}: {sub_out:?}");
        for l in pub_out.iter().chain(&sub_out) {
            assert!(!l.contains("not supported"), "domain {d}: {l}");
        }
        if !ok {
            assert!(!sub_out.iter().any(|l| is_sample(l)), "domain {d}");
        }
    }
}

/// The lines between two "Reading coherent sets" lines (one read iteration each).
fn read_iterations<'a>(out: &'a [String], marker: &str) -> Vec<Vec<&'a str>> {
    let mut iterations = Vec::new();
    for l in out {
        if l.starts_with(marker) {
            iterations.push(Vec::new());
        } else if let Some(current) = iterations.last_mut() {
            current.push(l.as_str());
        }
    }
    iterations
}

/// Test_CoherentSets_11 (TOPIC) and _12 (GROUP): 3 topics × 4 instances × 3 samples per set.
/// The harness's check: after the first two reads that got samples, every read that gets
/// samples gets exactly one set (36), and within a topic an instance's consecutive samples
/// come in runs that are multiples of 3 or not at all.
#[test]
fn shape_main_coherent_sets_arrive_whole() {
    if !may_open_sockets("shape_main_coherent_sets_arrive_whole") {
        return;
    }
    let publish = "-t Square -r -k 0 --num-topics 3 --num-instances 4 --coherent-sample-count 3 \
                   --write-period 100 -z 0";
    let subscribe = "-t Square -r -k 0 --num-topics 3 --take-read --read-period 100";
    let running: Vec<_> = [("144", "t"), ("145", "g")]
        .into_iter()
        .map(|(d, scope)| {
            let c = format!("--coherent --access-scope {scope}");
            let mut sub = spawn("-S", d, &format!("{subscribe} {c}"));
            sub.expect("reader", WAIT, |l| l == "Create reader for topic: Square2");
            let publisher = spawn("-P", d, &format!("{publish} {c}"));
            (d, sub, publisher)
        })
        .collect();
    for (d, mut sub, publisher) in running {
        // Six whole sets after the first sample: about 2 s.
        sub.expect("a sample", WAIT, is_sample);
        for _ in 0..6 * 36 {
            sub.expect("a sample", WAIT, is_sample);
        }
        let (_, pub_out) = publisher.interrupt(WAIT);
        assert!(
            pub_out.iter().any(|l| l == "Started Coherent Set")
                && pub_out.iter().any(|l| l == "Finished Coherent Set"),
            "{pub_out:?}"
        );
        let (code, out) = sub.interrupt(WAIT);
        assert_eq!(code, 0);
        let with_samples: Vec<usize> = read_iterations(&out, "Reading coherent sets, iteration ")
            .iter()
            .map(|it| it.iter().filter(|l| is_sample(l)).count())
            .filter(|n| *n > 0)
            .collect();
        assert!(with_samples.len() >= 5, "domain {d}: {with_samples:?}");
        // The harness ignores the first two non-empty reads (a set may have been
        // completed before the subscriber's first read).
        assert!(
            with_samples.iter().skip(2).all(|n| *n == 36),
            "domain {d}: samples per read {with_samples:?}"
        );
    }
}

/// Test_OrderedAccess_10: a TOPIC-scope ordered publisher of 4 instances; an INSTANCE-scope
/// subscriber's take returns the instances one after the other (more equal than different
/// consecutive colours per read), a TOPIC-scope one in writing order (more different).
#[test]
fn shape_main_ordered_access_follows_the_access_scope() {
    if !may_open_sockets("shape_main_ordered_access_follows_the_access_scope") {
        return;
    }
    let d = "146";
    let sub_args = "-t Square -r -k 0 --ordered --take-read --read-period 400";
    let mut by_instance = spawn("-S", d, &format!("{sub_args} --access-scope i"));
    let mut by_topic = spawn("-S", d, &format!("{sub_args} --access-scope t"));
    by_instance.expect("reader", WAIT, |l| l == "Create reader for topic: Square");
    by_topic.expect("reader", WAIT, |l| l == "Create reader for topic: Square");
    let publisher = spawn(
        "-P",
        d,
        "-t Square -r -k 0 --ordered --access-scope t -z 0 --num-instances 4 --write-period 100",
    );
    for sub in [&mut by_instance, &mut by_topic] {
        for _ in 0..48 {
            sub.expect("a sample", WAIT, is_sample);
        }
    }
    drop(publisher);
    for (sub, instance_scope) in [(by_instance, true), (by_topic, false)] {
        let (_, out) = sub.interrupt(WAIT);
        let iterations = read_iterations(&out, "Reading with ordered access, iteration ");
        let mut judged = 0;
        for it in &iterations {
            let colors: Vec<String> = it
                .iter()
                .filter_map(|l| sample_line(l))
                .map(|s| s.color)
                .collect();
            if colors.len() <= 5 {
                continue;
            }
            let equal = colors.windows(2).filter(|w| w[0] == w[1]).count();
            let different = colors.len() - 1 - equal;
            assert_eq!(
                equal > different,
                instance_scope,
                "instance scope {instance_scope}: {colors:?}"
            );
            judged += 1;
        }
        assert!(judged >= 2, "{out:?}");
    }
}

fn peer(name: &str) -> Option<PathBuf> {
    let path = crate::vendor_peer(name);
    path.exists().then_some(path)
}

fn cyclone_command(args: &[&str]) -> Option<Command> {
    let mut cmd = Command::new(peer("cyclone/shapes_cyclone")?);
    cmd.args(args).env(
        "CYCLONEDDS_URI",
        "<General><Interfaces><NetworkInterface name=\"lo\"/></Interfaces></General>",
    );
    Some(cmd)
}

/// Cyclone DDS 0.10 matches PRESENTATION as DDS 1.4 §2.2.3.6 says (`q_qosmatch.c`), and so do
/// we with Cyclone's announcement: an INSTANCE-scope coherent `shape_main` publisher and a
/// TOPIC-scope coherent Cyclone subscriber report PRESENTATION (id 3) on both sides, and a
/// Cyclone publisher without coherent access against a coherent `shape_main` subscriber too.
/// A compatible Cyclone subscriber receives our coherent sets' samples (Cyclone 0.10 does not
/// assemble sets: it delivers each sample) and nothing from the end-of-set markers.
#[test]
fn presentation_with_cyclone() {
    let test = "presentation_with_cyclone";
    if !may_open_sockets(test) {
        return;
    }
    let Some(cmd) = cyclone_command(&["sub", "-d", "147", "-A", "tc", "-t", "8"]) else {
        skip(
            test,
            "target/peers/cyclone/shapes_cyclone not built (scripts/build-peers)",
        );
        return;
    };
    // 1. shape_main INSTANCE coherent → Cyclone TOPIC coherent: incompatible both sides.
    let cyclone_sub = Peer::spawn_command(cmd);
    let mut publisher = spawn("-P", "147", "-r --coherent --access-scope i");
    publisher.expect("offered incompatible", WAIT, |l| l == INCOMPATIBLE_PUB);
    assert!(
        cyclone_sub.wait_line("sub: requested incompatible qos total=1 policy=3", WAIT),
        "Cyclone did not report PRESENTATION"
    );
    drop(publisher);
    drop(cyclone_sub);
    // 2. Cyclone TOPIC, no coherent access → shape_main coherent subscriber: incompatible.
    let cmd = cyclone_command(&[
        "pub", "-d", "148", "-A", "t", "-n", "1000", "-i", "50", "-t", "8",
    ]);
    let cyclone_pub = Peer::spawn_command(cmd.unwrap());
    let mut sub = spawn("-S", "148", "-r --coherent --access-scope t");
    sub.expect("requested incompatible", WAIT, |l| l == INCOMPATIBLE_SUB);
    assert!(
        cyclone_pub.wait_line("pub: offered incompatible qos total=1 policy=3", WAIT),
        "Cyclone did not report PRESENTATION"
    );
    drop(sub);
    drop(cyclone_pub);
    // 3. Compatible: sets of 3 from shape_main, samples only at Cyclone.
    let cmd = cyclone_command(&["sub", "-d", "147", "-A", "tc", "-n", "30", "-t", "20"]);
    coherent_publisher_to_peer(Peer::spawn_command(cmd.unwrap()), "147");
}

/// A coherent `shape_main` publisher (sets of 3, two topics: its two writers' set ends share
/// datagrams) on `domain` and a peer subscriber of `Square` started with `-n 30`: the peer
/// takes only valid RED samples, none from the end-of-set markers.
fn coherent_publisher_to_peer(peer_sub: Peer, domain: &str) {
    let publisher = spawn(
        "-P",
        domain,
        "-r -k 0 --coherent --access-scope g --coherent-sample-count 3 --write-period 20 -c RED \
         --num-topics 2",
    );
    let out = peer_sub.finish(WAIT);
    drop(publisher);
    // The peer stops after the batch that reached 30 samples.
    let samples = peer_samples(&out);
    assert!(samples.len() >= 30, "{out}");
    assert!(samples.iter().all(|s| s.color == "RED"), "{out}");
    assert!(
        !out.contains("instance"),
        "a marker showed as an instance change: {out}"
    );
}

fn fastdds_command(args: &[&str]) -> Option<Command> {
    let mut cmd = Command::new(peer("fastdds/shapes_fastdds")?);
    cmd.args(args);
    Some(cmd)
}

/// Fast DDS 2.9 announces PRESENTATION (a TOPIC-scope coherent Fast DDS publisher matches a
/// TOPIC-scope coherent `shape_main` subscriber, which needs Fast DDS's PID_PRESENTATION) but
/// does not match on it (`EDP::valid_matching` has no check: against a coherent `shape_main`
/// subscriber a default Fast DDS publisher reports nothing while we report PRESENTATION), and
/// has no coherent sets (`begin_coherent_changes` returns RETCODE_UNSUPPORTED). A Fast DDS
/// reader takes a coherent writer's samples and nothing from the end-of-set markers.
#[test]
fn presentation_with_fastdds() {
    let test = "presentation_with_fastdds";
    if !may_open_sockets(test) {
        return;
    }
    let args = [
        "pub", "-d", "138", "-A", "tc", "-n", "400", "-i", "20", "-t", "10",
    ];
    let Some(cmd) = fastdds_command(&args) else {
        skip(
            test,
            "target/peers/fastdds/shapes_fastdds not built (scripts/build-peers)",
        );
        return;
    };
    // 1. Fast DDS TOPIC coherent → shape_main TOPIC coherent: matched, samples flow.
    let fastdds_pub = Peer::spawn_command(cmd);
    let mut sub = spawn("-S", "138", "-r --coherent --access-scope t");
    sub.expect("a sample", WAIT, is_sample);
    drop(sub);
    drop(fastdds_pub);
    // 2. Fast DDS default PRESENTATION → shape_main coherent: only our side reports it.
    let args = ["pub", "-d", "137", "-n", "400", "-i", "20", "-t", "10"];
    let fastdds_pub = Peer::spawn_command(fastdds_command(&args).unwrap());
    let mut sub = spawn("-S", "137", "-r --coherent --access-scope t");
    sub.expect("requested incompatible", WAIT, |l| l == INCOMPATIBLE_SUB);
    std::thread::sleep(Duration::from_secs(1));
    let (_, sub_out) = sub.interrupt(WAIT);
    assert!(!sub_out.iter().any(|l| is_sample(l)), "{sub_out:?}");
    let (_, pub_out) = fastdds_pub.finish_any(Duration::from_millis(100));
    assert!(!pub_out.contains("offered incompatible"), "{pub_out}");
    // 3. Coherent shape_main writer → Fast DDS reader.
    let cmd = fastdds_command(&["sub", "-d", "139", "-n", "30", "-t", "20"]);
    coherent_publisher_to_peer(Peer::spawn_command(cmd.unwrap()), "139");
}

/// Wireshark's RTPS dissector (written by RTI) tracks coherent sets: it flags nothing in a
/// live capture of a coherent `shape_main` publisher and subscriber of two topics (the two
/// writers' set ends share datagrams), and marks our end-of-set markers as "End of coherent
/// set" (`rtps.coherent_set.end`: a DATA without payload right
/// after a set's last change ends it, its `rtps_util_detect_coherent_set_end_empty_data_case`).
#[test]
fn wireshark_sees_our_coherent_sets_end() {
    let test = "wireshark_sees_our_coherent_sets_end";
    if !may_open_sockets(test) {
        return;
    }
    if Command::new("tshark").arg("--version").output().is_err() {
        skip(test, "tshark not installed (scripts/setup installs it)");
        return;
    }
    let path = std::env::temp_dir().join(format!("siftdds-coherent-{}.pcapng", std::process::id()));
    // This test's domain only (ports 7400 + 250 * 136 on).
    let base = 7400 + 250 * 136;
    let filter = format!("udp and portrange {}-{}", base, base + 249);
    let mut capture = crate::tshark::start_capture(&filter, &["-a", "duration:5"], &path);
    let mut sub = spawn(
        "-S",
        "136",
        "-r -k 0 --coherent --access-scope g --num-topics 2",
    );
    sub.expect("reader", WAIT, |l| l == "Create reader for topic: Square1");
    let publisher = spawn(
        "-P",
        "136",
        "-r -k 0 --coherent --access-scope g --coherent-sample-count 3 --write-period 50 \
         --num-iterations 30 -c RED --num-topics 2",
    );
    let (code, _) = publisher.finish(WAIT);
    assert_eq!(code, 0);
    let (_, out) = sub.interrupt(WAIT);
    assert!(capture.wait().unwrap().success());
    let warnings = crate::tshark::expert_warnings(&path);
    let ends = crate::tshark::read_capture(
        &path,
        &[
            "-Y",
            "rtps.coherent_set.end",
            "-T",
            "fields",
            "-e",
            "frame.number",
        ],
    );
    if std::env::var_os("SIFTDDS_KEEP_CAPTURE").is_none() {
        let _ = std::fs::remove_file(&path);
    }
    assert_eq!(
        warnings.trim(),
        "",
        "tshark flagged our traffic:\n{warnings}"
    );
    // 30 iterations in sets of 3: 10 ends (the first sets may precede the match).
    assert!(
        ends.lines().count() >= 5,
        "set ends seen by tshark:\n{ends}"
    );
    assert!(out.iter().filter(|l| is_sample(l)).count() >= 15, "{out:?}");
}
