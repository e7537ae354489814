//! XCDR2 over real sockets: the @appendable ShapeType as D_CDR2 with a DHEADER (DDS-XTypes 1.3
//! §7.4.3.5), chosen by the DATA_REPRESENTATION QoS (§7.6.3.1.2). siftdds ↔ siftdds with QoS
//! profiles (`create_*_with_profile`), siftdds ↔ pip `cyclonedds` (Cyclone DDS 11 bundled in
//! the wheel; `peers/python/shapes_xcdr.py`) both ways, and `shape_main -x 2` ↔ the Python
//! peer. The Python tests are skipped, with the reason printed, when
//! `python3` cannot import `cyclonedds` (scripts/setup installs it).

// Real processes in real time: these tests read the clock and poll.
#![allow(clippy::disallowed_methods)]

use std::process::Command;
use std::time::{Duration, Instant};

use siftdds::api::{ConfigError, DataReader, DomainParticipant, Error};
use siftdds::core::Event;
use siftdds::qos::xml::QosProvider;
use siftdds::qos::{
    DataReaderQos, DataRepresentation, DataWriterQos, History, PublisherQos, QosPolicyId,
    Reliability, SubscriberQos, TopicQos,
};
use siftdds::types::{ShapeType, TopicType};
use siftdds::wire::Guid;

use crate::sandbox::may_open_sockets;
use crate::skip::skip;
use crate::vendors::Peer;

const SHAPES_XML: &str = repo_path!("tests/data/qos/shapes.xml");
const PEER: &str = repo_path!("interop-tests/peers/python/shapes_xcdr.py");
const SHAPE_MAIN: &str = env!("CARGO_BIN_EXE_shape_main");
const WAIT: Duration = Duration::from_secs(30);

/// True when the test may run: inside the sandbox, with pip `cyclonedds` importable.
pub(crate) fn python_ready(test: &str) -> bool {
    python_module_ready(test, "cyclonedds")
}

/// True when `test` may run inside the sandbox and `python3` imports `module`; otherwise
/// records why it is skipped (scripts/setup installs the PyPI peers).
pub(crate) fn python_module_ready(test: &str, module: &str) -> bool {
    if !may_open_sockets(test) {
        return false;
    }
    let ok = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip(
            test,
            &format!("python3 cannot import {module} (scripts/setup installs it)"),
        );
    }
    ok
}

/// `cmd` with Cyclone restricted to the sandbox's loopback.
fn on_loopback(mut cmd: Command) -> Command {
    cmd.env(
        "CYCLONEDDS_URI",
        "<General><Interfaces><NetworkInterface name=\"lo\"/></Interfaces></General>",
    );
    cmd
}

/// Starts `shapes_xcdr.py ARGS` (Cyclone on the sandbox's loopback only).
pub(crate) fn python_peer(args: &[&str]) -> Peer {
    let mut cmd = Command::new("python3");
    cmd.arg(PEER).args(args);
    Peer::spawn_command(on_loopback(cmd))
}

/// Starts `shape_main ARGS` as a peer process.
fn shape_main(args: &[&str]) -> Peer {
    let mut cmd = Command::new(SHAPE_MAIN);
    cmd.args(args);
    Peer::spawn_command(cmd)
}

fn participant(domain: u32) -> DomainParticipant {
    DomainParticipant::builder(domain)
        .announce_period(Duration::from_millis(300))
        .build()
        .unwrap()
}

pub(crate) fn xcdr2() -> DataRepresentation {
    DataRepresentation::new([DataRepresentation::XCDR2])
}

/// What the Python peer writes, and what we write to it: `additional_payload_size` is not in
/// the peer's 4-member type, so an appendable reader skips it (inside the DHEADER).
pub(crate) fn sample(i: i32) -> ShapeType {
    ShapeType {
        color: "RED".into(),
        x: i,
        y: 2 * i,
        shapesize: 30 + i % 7,
        additional_payload_size: vec![7; (i % 5) as usize],
    }
}

/// The peer's `SAMPLE color x y shapesize` lines.
pub(crate) fn peer_samples(out: &str) -> Vec<(String, i32, i32, i32)> {
    out.lines()
        .filter_map(|l| {
            let mut f = l.strip_prefix("SAMPLE ")?.split(' ');
            let color = f.next()?.to_string();
            let mut n = || f.next()?.parse::<i32>().ok();
            Some((color, n()?, n()?, n()?))
        })
        .collect()
}

/// Waits for an incompatible-QoS event naming DATA_REPRESENTATION for `endpoint`.
fn wait_incompatible_representation(p: &DomainParticipant, endpoint: Guid) -> bool {
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline {
        match p.wait_event(Duration::from_millis(200)).unwrap() {
            Some(Event::OfferedIncompatibleQos {
                writer: e,
                policies,
                ..
            })
            | Some(Event::RequestedIncompatibleQos {
                reader: e,
                policies,
                ..
            }) if e == endpoint && policies.contains(QosPolicyId::DataRepresentation) => {
                return true;
            }
            _ => {}
        }
    }
    false
}

#[test]
fn profiles_give_an_xcdr2_writer_and_reader_and_an_xcdr1_reader_is_incompatible() {
    if !may_open_sockets(
        "profiles_give_an_xcdr2_writer_and_reader_and_an_xcdr1_reader_is_incompatible",
    ) {
        return;
    }
    let mut provider = QosProvider::new();
    provider.load_file(SHAPES_XML).unwrap();
    let profile = "Shapes::Xcdr2";
    let a = DomainParticipant::builder(170)
        .announce_period(Duration::from_millis(300))
        .qos_profile(&provider, profile)
        .unwrap()
        .build()
        .unwrap();
    let b = DomainParticipant::with_profile(170, &provider, profile).unwrap();
    let topic_a = a
        .create_topic_with_profile::<ShapeType>("Xcdr2Square", &provider, profile)
        .unwrap();
    let topic_b = b
        .create_topic_with_profile::<ShapeType>("Xcdr2Square", &provider, profile)
        .unwrap();
    let publisher = a.create_publisher_with_profile(&provider, profile).unwrap();
    let w = publisher
        .create_datawriter_with_profile(&topic_a, &provider, profile)
        .unwrap();
    let subscriber = b
        .create_subscriber_with_profile(&provider, profile)
        .unwrap();
    let r2: DataReader<ShapeType> = subscriber
        .create_datareader_with_profile(&topic_b, &provider, profile)
        .unwrap();
    let xcdr1_qos = DataReaderQos {
        reliability: Reliability::reliable(),
        ..DataReaderQos::default()
    };
    let r1: DataReader<ShapeType> = subscriber.create_datareader(&topic_b, xcdr1_qos).unwrap();
    w.wait_for_matched(1, WAIT).unwrap();
    r2.wait_for_matched(1, WAIT).unwrap();
    assert!(
        wait_incompatible_representation(&a, w.guid()),
        "no OFFERED_INCOMPATIBLE_QOS at the writer"
    );
    assert!(
        wait_incompatible_representation(&b, r1.guid()),
        "no REQUESTED_INCOMPATIBLE_QOS at the reader"
    );
    let sent: Vec<ShapeType> = (0..100).map(sample).collect();
    for s in &sent {
        w.write(s).unwrap();
    }
    w.wait_for_acknowledgments(WAIT).unwrap();
    let mut got = Vec::new();
    let deadline = Instant::now() + WAIT;
    while got.len() < sent.len() && Instant::now() < deadline {
        got.extend(
            r2.wait_take(Duration::from_millis(200))
                .unwrap()
                .into_iter()
                .filter_map(|s| s.value),
        );
    }
    assert_eq!(got, sent);
    assert_eq!(w.matched_subscriptions().unwrap(), 1);
    assert_eq!(r1.matched_publications().unwrap(), 0);
    // An unknown profile, and a representation ShapeType cannot write (XML).
    let nope = publisher.create_datawriter_with_profile(&topic_a, &provider, "Shapes::Nope");
    assert!(matches!(nope, Err(Error::Config(ConfigError::Profile(_)))));
    let xml = DataWriterQos::default()
        .data_representation(DataRepresentation::new([DataRepresentation::XML]));
    let refused = publisher.create_datawriter(&topic_a, xml);
    assert!(matches!(
        refused,
        Err(Error::Config(ConfigError::UnsupportedDataRepresentation {
            type_name: "ShapeType",
            id: 1
        }))
    ));
}

#[test]
fn siftdds_xcdr2_writer_to_python_cyclone_xcdr2_reader() {
    if !python_ready("siftdds_xcdr2_writer_to_python_cyclone_xcdr2_reader") {
        return;
    }
    let n = 200;
    let peer = python_peer(&["sub", "171", "Square", &n.to_string(), "--xcdr", "2"]);
    let p = participant(171);
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let publisher = p.create_publisher(PublisherQos::default());
    // Our default (XCDR1) writer cannot match the XCDR2-only reader: §7.6.3.1.2.
    let x1 = publisher
        .create_datawriter(&topic, DataWriterQos::default())
        .unwrap();
    assert!(
        wait_incompatible_representation(&p, x1.guid()),
        "XCDR1 writer matched an XCDR2 reader"
    );
    drop(x1);
    let qos = DataWriterQos {
        history: History::KeepAll,
        ..DataWriterQos::default()
    }
    .data_representation(xcdr2());
    let w = publisher.create_datawriter(&topic, qos).unwrap();
    w.wait_for_matched(1, WAIT).unwrap();
    assert!(
        peer.wait_line("matched", WAIT),
        "the Python reader never matched us"
    );
    for i in 0..n {
        w.write(&sample(i)).unwrap();
    }
    // No dispose here: our XCDR2 key payload is Cyclone 0.10's form (D_CDR2 without a
    // DHEADER), which pip cyclonedds 11 refuses ("deserialization failed"); it wants a
    // DHEADER, which Cyclone 0.10 would misread. docs/interop-facts.md §5.10.
    w.wait_for_acknowledgments(WAIT).unwrap();
    let out = peer.finish(WAIT);
    let want: Vec<_> = (0..n)
        .map(sample)
        .map(|s| (s.color, s.x, s.y, s.shapesize))
        .collect();
    assert_eq!(peer_samples(&out), want, "{out}");
    assert!(
        out.contains("/cyclonedds.libs/libddsc-"),
        "the wheel's own libddsc: {out}"
    );
}

/// A reliable KEEP_ALL reader of "Square" on `p` that accepts XCDR and XCDR2.
pub(crate) fn square_reader_of_either_representation(
    p: &DomainParticipant,
) -> DataReader<ShapeType> {
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let qos = DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        ..DataReaderQos::default()
    }
    .data_representation(DataRepresentation::new([
        DataRepresentation::XCDR,
        DataRepresentation::XCDR2,
    ]));
    p.create_subscriber(SubscriberQos::default())
        .create_datareader(&topic, qos)
        .unwrap()
}

#[test]
fn python_cyclone_xcdr2_writer_to_siftdds_reader() {
    if !python_ready("python_cyclone_xcdr2_writer_to_siftdds_reader") {
        return;
    }
    let n = 200;
    let p = participant(172);
    let r = square_reader_of_either_representation(&p);
    let peer = python_peer(&[
        "pub",
        "172",
        "Square",
        &n.to_string(),
        "--xcdr",
        "2",
        "--dispose",
    ]);
    // pip cyclonedds 11 disposes RED with a D_CDR2 key behind a DHEADER and no PID_KEY_HASH
    // (docs/interop-facts.md §5.10): it must name RED's instance.
    let red = sample(0).key_hash();
    let mut got = Vec::new();
    let mut disposed = false;
    let deadline = Instant::now() + WAIT;
    while (got.len() < n as usize || !disposed) && Instant::now() < deadline {
        for s in r.wait_take(Duration::from_millis(200)).unwrap() {
            disposed |=
                s.kind == siftdds::core::ChangeKind::NotAliveDisposed && s.key_hash() == red;
            got.extend(s.value);
        }
    }
    let out = peer.finish(WAIT);
    let want: Vec<ShapeType> = (0..n)
        .map(|i| ShapeType {
            additional_payload_size: vec![],
            ..sample(i)
        })
        .collect();
    assert_eq!(got, want, "peer output:\n{out}");
    assert!(
        disposed,
        "no NOT_ALIVE_DISPOSED for RED; peer output:\n{out}"
    );
}

#[test]
fn shape_main_x2_publisher_to_python_cyclone_xcdr2_reader() {
    if !python_ready("shape_main_x2_publisher_to_python_cyclone_xcdr2_reader") {
        return;
    }
    let peer = python_peer(&["sub", "173", "Circle", "10", "--xcdr", "2"]);
    let publisher = shape_main(&[
        "-P",
        "-x",
        "2",
        "-d",
        "173",
        "-t",
        "Circle",
        "-c",
        "GREEN",
        "--write-period",
        "20",
        "--num-iterations",
        "1500",
    ]);
    assert!(
        publisher.wait_line("on_publication_matched()", WAIT),
        "shape_main -x 2 never matched"
    );
    let out = peer.finish(WAIT);
    let samples = peer_samples(&out);
    assert!(samples.len() >= 10, "{out}");
    assert!(
        samples
            .iter()
            .all(|(c, _, _, size)| c == "GREEN" && *size == 20),
        "{out}"
    );
}

#[test]
fn python_cyclone_xcdr2_writer_to_shape_main_x2_subscriber() {
    if !python_ready("python_cyclone_xcdr2_writer_to_shape_main_x2_subscriber") {
        return;
    }
    let sub = shape_main(&[
        "-S",
        "-x",
        "2",
        "-d",
        "174",
        "-t",
        "Triangle",
        "--read-period",
        "20",
    ]);
    assert!(sub.wait_line("Create reader for topic: Triangle", WAIT));
    let peer = python_peer(&["pub", "174", "Triangle", "50", "--xcdr", "2"]);
    assert!(
        sub.wait_line("on_subscription_matched()", WAIT),
        "shape_main -x 2 never matched"
    );
    // The last sample: x = 49, y = 98, shapesize 30 + 49 % 7 = 30.
    assert!(
        sub.wait_line("Triangle   RED        049 098 [30]", WAIT),
        "last sample not printed"
    );
    peer.finish(WAIT);
}

/// `target/peers/cyclone/shapes_cyclone_x2` (Cyclone DDS 0.10.2, the @appendable ShapeType,
/// XCDR2), or `None` after recording a skip.
fn cyclone_x2(test: &str) -> Option<std::path::PathBuf> {
    if !may_open_sockets(test) {
        return None;
    }
    let bin = crate::vendor_peer("cyclone/shapes_cyclone_x2");
    if !bin.exists() {
        skip(
            test,
            &format!(
                "{} not built (scripts/build-peers builds it)",
                bin.display()
            ),
        );
        return None;
    }
    Some(bin)
}

/// Starts the Cyclone 0.10 XCDR2 peer on the sandbox's loopback.
fn cyclone_x2_peer(bin: &std::path::Path, args: &[&str]) -> Peer {
    let mut cmd = Command::new(bin);
    cmd.args(args);
    Peer::spawn_command(on_loopback(cmd))
}

/// OMG FinalInstanceState_1, Cyclone → siftdds, under XCDR2: Cyclone 0.10 writes BLUE and RED
/// and disposes BLUE with
/// a D_CDR2 key payload without DHEADER and without PID_KEY_HASH (docs/interop-facts.md
/// §5.10); `shape_main -x 2` must tie it to BLUE's instance and print NOT_ALIVE_DISPOSED.
#[test]
fn cyclone_x2_dispose_reaches_shape_main_x2_subscriber() {
    let test = "cyclone_x2_dispose_reaches_shape_main_x2_subscriber";
    let Some(bin) = cyclone_x2(test) else {
        return;
    };
    let sub = shape_main(&["-S", "-r", "-x", "2", "-d", "175", "-t", "Square"]);
    assert!(sub.wait_line("Create reader for topic: Square", WAIT));
    // Two instances: with one, shape_main would tie a key it cannot read to the writer's only
    // instance and print the right line anyway.
    let args = [
        "pub", "-d", "175", "-c", "BLUE,RED", "-n", "10", "-i", "50", "-m", "1", "-x", "BLUE",
        "-l", "1500", "-t", "25",
    ];
    let peer = cyclone_x2_peer(&bin, &args);
    assert!(
        sub.wait_line(
            "Square     BLUE       NOT_ALIVE_DISPOSED_INSTANCE_STATE",
            WAIT
        ),
        "no NOT_ALIVE_DISPOSED for BLUE"
    );
    let out = peer.finish(WAIT);
    assert!(out.contains("pub: dispose BLUE: Success"), "{out}");
    assert!(!sub.wait_line(
        "Square     RED        NOT_ALIVE_DISPOSED",
        Duration::from_millis(200)
    ));
}

/// OMG FinalInstanceState_1, siftdds → Cyclone, under XCDR2: our `-x 2` writer's dispose key
/// is D_CDR2 like its samples; the Cyclone 0.10 reader must deserialize it and report BLUE
/// NOT_ALIVE_DISPOSED (it refused the XCDR1 key before: "deserialization failed").
#[test]
fn shape_main_x2_dispose_reaches_cyclone_x2_subscriber() {
    let test = "shape_main_x2_dispose_reaches_cyclone_x2_subscriber";
    let Some(bin) = cyclone_x2(test) else {
        return;
    };
    let peer = cyclone_x2_peer(
        &bin,
        &["sub", "-d", "176", "-n", "5", "-w", "1", "-t", "25"],
    );
    let publisher = shape_main(&[
        "-P",
        "-r",
        "-x",
        "2",
        "-d",
        "176",
        "-t",
        "Square",
        "-c",
        "BLUE",
        "--write-period",
        "50",
        "--num-iterations",
        "40",
        "--final-instance-state",
        "d",
    ]);
    assert!(
        peer.wait_line("sub: instance BLUE NOT_ALIVE_DISPOSED", WAIT),
        "Cyclone did not see the dispose"
    );
    let out = peer.finish(WAIT);
    assert!(out.contains("sub: received"), "{out}");
    drop(publisher);
}
