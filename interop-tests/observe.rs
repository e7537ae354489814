//! `siftdds ls` and `siftdds spy` as a user runs them, against real peers: a Fast DDS
//! publisher and content-filtered subscriber (the filter must be listed with its
//! parameters), Cyclone DDS publisher and subscriber (samples without PID_KEY_HASH, decoded),
//! and an in-process siftdds writer (decoded ShapeType fields, `--filter` evaluated by the
//! spy, `--idl` taking precedence over the built-in type). The `--json` output is parsed.
//! Set-up errors (a filter no type accepts, a bad duration) are checked without sockets.

// These tests drive real processes in real time.
#![allow(clippy::disallowed_methods)]

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use siftdds::api::DomainParticipant;
use siftdds::qos::{DataWriterQos, PublisherQos, TopicQos};
use siftdds::types::{ShapeType, TopicType};

use crate::sandbox::may_open_sockets;
use crate::vendors::{Peer, Vendor, ready};

fn siftdds(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_siftdds"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn peer(vendor: Vendor, args: &[&str]) -> Peer {
    let mut cmd = Command::new(vendor.binary());
    cmd.args(args);
    if let Vendor::Cyclone = vendor {
        cmd.env(
            "CYCLONEDDS_URI",
            "<General><Interfaces><NetworkInterface name=\"lo\"/></Interfaces></General>",
        );
    }
    Peer::spawn_command(cmd)
}

/// `spy --json` lines, parsed (every line must be one JSON object).
fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn events<'a>(lines: &'a [Value], event: &str) -> Vec<&'a Value> {
    lines.iter().filter(|v| v["event"] == event).collect()
}

#[test]
fn ls_lists_a_fastdds_content_filtered_reader_with_its_parameters() {
    let test = "ls_lists_a_fastdds_content_filtered_reader_with_its_parameters";
    if !ready(test, Vendor::FastDds) {
        return;
    }
    let d = "160";
    let sub = peer(
        Vendor::FastDds,
        &[
            "sub",
            "-d",
            d,
            "-t",
            "20",
            "-f",
            "x > %0 AND color = %1",
            "-p",
            "50",
            "-p",
            "'RED'",
        ],
    );
    let publisher = peer(
        Vendor::FastDds,
        &[
            "pub", "-d", d, "-t", "20", "-n", "1000", "-i", "100", "-m", "0",
        ],
    );
    let (code, stdout, stderr) = siftdds(&["ls", "-d", d, "--wait", "4", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let participants = doc["participants"].as_array().unwrap();
    let names: Vec<&str> = participants
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(names.contains(&"shapes_fastdds_sub"), "{stdout}");
    assert!(names.contains(&"shapes_fastdds_pub"), "{stdout}");
    assert!(
        participants
            .iter()
            .all(|p| p["vendor"] == "Fast DDS" && p["vendor_id"] == "01.0f")
    );
    let square = doc["topics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Square")
        .unwrap_or_else(|| panic!("no Square topic: {stdout}"));
    assert_eq!(square["types"], serde_json::json!(["ShapeType"]));
    let writer = &square["writers"][0];
    assert_eq!(writer["qos"]["reliability"], "reliable");
    assert_eq!(writer["keyed"], true);
    let filter = &square["readers"][0]["content_filter"];
    assert_eq!(filter["filter_class"], "DDSSQL", "{stdout}");
    assert_eq!(filter["related_topic"], "Square");
    assert_eq!(filter["expression"], "x > %0 AND color = %1");
    assert_eq!(filter["parameters"], serde_json::json!(["50", "'RED'"]));
    // The same, for a person.
    let (code, text, stderr) = siftdds(&["ls", "-d", d, "--wait", "3"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        text.contains("filter DDSSQL \"x > %0 AND color = %1\" [%0=50, %1='RED']"),
        "{text}"
    );
    assert!(
        text.contains("Fast DDS      \"shapes_fastdds_pub\""),
        "{text}"
    );
    drop((sub, publisher));
}

#[test]
fn spy_shows_fastdds_discovery_and_decoded_samples() {
    let test = "spy_shows_fastdds_discovery_and_decoded_samples";
    if !ready(test, Vendor::FastDds) {
        return;
    }
    let d = "161";
    let sub = peer(Vendor::FastDds, &["sub", "-d", d, "-t", "20", "--cft"]);
    // The publisher waits for its two readers (the filtered one and the spy's), writes 40
    // samples in 2 s and leaves while the spy still runs.
    let publisher = peer(
        Vendor::FastDds,
        &[
            "pub", "-d", d, "-t", "20", "-n", "40", "-i", "50", "-m", "2", "-l", "200",
        ],
    );
    let (code, stdout, stderr) = siftdds(&["spy", "-d", d, "--seconds", "8", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let lines = json_lines(&stdout);
    let readers = events(&lines, "reader");
    let cft = readers
        .iter()
        .find_map(|r| r["reader"]["content_filter"].as_object())
        .unwrap_or_else(|| panic!("no filtered reader event: {stdout}"));
    assert_eq!(cft["expression"], "color = %0");
    assert_eq!(cft["parameters"], serde_json::json!(["'RED'"]));
    let samples = events(&lines, "sample");
    // Reliable, matched before the first write: every sample, once.
    assert_eq!(samples.len(), 40, "{stdout}");
    for s in &samples {
        assert_eq!(s["topic"], "Square");
        assert_eq!(s["instance_state"], "ALIVE");
        assert!(s["sn"].as_i64().unwrap() > 0);
        assert!(s["key_hash"].as_str().is_some_and(|k| k.len() == 32), "{s}");
        let color = s["value"]["color"].as_str().unwrap();
        assert!(["RED", "BLUE", "GREEN"].contains(&color), "{s}");
    }
    // Its writer and its participant left (Fast DDS unannounces both as it exits).
    let left = |event: &str| -> Vec<&Value> {
        events(&lines, event)
            .into_iter()
            .filter(|e| e["change"] == "left")
            .collect()
    };
    assert_eq!(left("writer").len(), 1, "{stdout}");
    let gone = left("participant");
    assert_eq!(gone.len(), 1, "{stdout}");
    assert_eq!(gone[0]["participant"]["name"], "shapes_fastdds_pub");
    drop((sub, publisher));
}

#[test]
fn ls_and_spy_show_cyclone_endpoints_and_samples() {
    let test = "ls_and_spy_show_cyclone_endpoints_and_samples";
    if !ready(test, Vendor::Cyclone) {
        return;
    }
    let d = "162";
    let sub = peer(
        Vendor::Cyclone,
        &["sub", "-d", d, "-t", "20", "-P", "part1"],
    );
    let publisher = peer(
        Vendor::Cyclone,
        &[
            "pub", "-d", d, "-t", "40", "-n", "1500", "-i", "20", "-m", "0", "-P", "part1",
        ],
    );
    let (code, stdout, stderr) = siftdds(&["ls", "-d", d, "--wait", "3", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let participants = doc["participants"].as_array().unwrap();
    assert!(participants.len() >= 2, "{stdout}");
    assert!(
        participants.iter().all(|p| p["vendor"] == "Cyclone DDS"),
        "{stdout}"
    );
    let square = &doc["topics"][0];
    assert_eq!(square["name"], "Square", "{stdout}");
    assert_eq!(
        square["writers"][0]["qos"]["partitions"],
        serde_json::json!(["part1"])
    );
    assert_eq!(square["writers"][0]["qos"]["history"]["depth"], 10);
    assert_eq!(square["readers"][0]["content_filter"], Value::Null);
    // Cyclone 0.10's idlc-generated ShapeType announces PID_TYPE_INFORMATION (XTypes).
    let info = &square["writers"][0]["type_information"];
    assert!(
        info["minimal"]
            .as_str()
            .is_some_and(|m| m.starts_with("minimal ") && m.len() == 36),
        "{stdout}"
    );
    assert!(
        info["complete"]
            .as_str()
            .is_some_and(|c| c.starts_with("complete ")),
        "{stdout}"
    );

    let (code, stdout, stderr) = siftdds(&["spy", "-d", d, "-s", "3", "-t", "Sq*", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let lines = json_lines(&stdout);
    let samples = events(&lines, "sample");
    assert!(samples.len() > 10, "{stdout}");
    for s in &samples {
        // Cyclone sends no PID_KEY_HASH: the spy computes it from the decoded key.
        let color = s["value"]["color"].as_str().unwrap().to_string();
        let expected = ShapeType {
            color,
            ..ShapeType::default()
        }
        .key_hash()
        .unwrap();
        let hex: String = expected.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(s["key_hash"], hex.as_str(), "{s}");
    }
    // The topic glob excludes what it does not match.
    let (code, stdout, _) = siftdds(&["spy", "-d", d, "-s", "2", "-t", "Circle", "--json"]);
    assert_eq!(code, 0);
    let lines = json_lines(&stdout);
    assert!(events(&lines, "sample").is_empty(), "{stdout}");
    assert!(events(&lines, "writer").is_empty(), "{stdout}");
    assert!(!events(&lines, "participant").is_empty(), "{stdout}");
    // --no-samples: the endpoints, no sample.
    let (code, stdout, _) = siftdds(&["spy", "-d", d, "-s", "2", "--no-samples", "--json"]);
    assert_eq!(code, 0);
    let lines = json_lines(&stdout);
    assert!(events(&lines, "sample").is_empty(), "{stdout}");
    assert_eq!(events(&lines, "writer").len(), 1, "{stdout}");
    drop((sub, publisher));
}

/// A siftdds writer in this process, writing RED and BLUE shapes until dropped.
struct ShapeWriter {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ShapeWriter {
    fn start(domain: u32) -> ShapeWriter {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let p = DomainParticipant::new(domain).unwrap();
            let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
            let w = p
                .create_publisher(PublisherQos::default())
                .create_datawriter(&topic, DataWriterQos::default())
                .unwrap();
            let mut i = 0;
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                let color = if i % 2 == 0 { "RED" } else { "BLUE" };
                let s = ShapeType {
                    color: color.into(),
                    x: i,
                    y: 2 * i,
                    shapesize: 30,
                    ..ShapeType::default()
                };
                w.write(&s).unwrap();
                i += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        ShapeWriter {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for ShapeWriter {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[test]
fn spy_decodes_a_siftdds_writer_and_applies_its_filter() {
    let test = "spy_decodes_a_siftdds_writer_and_applies_its_filter";
    if !may_open_sockets(test) {
        return;
    }
    // Two writers of the same topic and QoS: the spy shows each sample once.
    let _writers = (ShapeWriter::start(163), ShapeWriter::start(163));
    let (code, stdout, stderr) = siftdds(&[
        "spy",
        "-d",
        "163",
        "-s",
        "3",
        "--filter",
        "color = 'RED' AND x > 10",
        "--json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let lines = json_lines(&stdout);
    let writers = events(&lines, "writer");
    assert!(
        writers.iter().any(|w| w["writer"]["type"] == "ShapeType"),
        "{stdout}"
    );
    let samples = events(&lines, "sample");
    assert!(samples.len() > 10, "{stdout}");
    for s in &samples {
        assert_eq!(s["value"]["color"], "RED", "{s}");
        assert!(s["value"]["x"].as_i64().unwrap() > 10, "{s}");
        assert_eq!(s["value"]["y"], s["value"]["x"].as_i64().unwrap() * 2);
        // Our writer sends PID_KEY_HASH: it is the key hash of RED.
        let red = ShapeType {
            color: "RED".into(),
            ..ShapeType::default()
        };
        let hex: String = red
            .key_hash()
            .unwrap()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(s["key_hash"], hex.as_str());
    }
    // Per writer, consecutive RED samples: sequence numbers two apart (BLUE in between,
    // filtered out), none shown twice.
    let mut by_writer: std::collections::BTreeMap<&str, Vec<i64>> = Default::default();
    for s in &samples {
        by_writer
            .entry(s["writer"].as_str().unwrap())
            .or_default()
            .push(s["sn"].as_i64().unwrap());
    }
    assert_eq!(by_writer.len(), 2, "{stdout}");
    for sns in by_writer.values() {
        assert!(sns.windows(2).all(|w| w[1] - w[0] == 2), "{sns:?}");
    }

    // --idl: a type of the file named like the announced one wins over the built-in.
    let idl = std::env::temp_dir().join(format!("spy-{}.idl", std::process::id()));
    std::fs::write(
        &idl,
        "@appendable struct ShapeType { @key string<128> name; long a; long b; long c; };\n",
    )
    .unwrap();
    let idl_arg = idl.to_str().unwrap();
    let (code, stdout, stderr) = siftdds(&[
        "spy",
        "-d",
        "163",
        "-s",
        "2",
        "--idl",
        idl_arg,
        "--type",
        "ShapeType",
        "-f",
        "a < 0",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.contains("ALIVE"), "a < 0 passes nothing: {stdout}");
    let (code, stdout, stderr) = siftdds(&["spy", "-d", "163", "-s", "2", "--idl", idl_arg]);
    let _ = std::fs::remove_file(&idl);
    assert_eq!(code, 0, "{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.contains("ALIVE"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        line.contains("{name: \"RED\", a: ") || line.contains("{name: \"BLUE\", a: "),
        "{line}"
    );
}

#[test]
fn spy_and_ls_refuse_nonsense_before_joining_the_domain() {
    let (code, _, stderr) = siftdds(&["spy", "--filter", "nosuch > 1", "-s", "1"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("fits none of the known types"), "{stderr}");
    assert!(stderr.contains("nosuch"), "{stderr}");
    for bad in ["0", "-1", "nan", "inf"] {
        let (code, _, stderr) = siftdds(&["ls", "--wait", bad]);
        assert_eq!(code, 2, "--wait {bad}");
        assert!(
            stderr.contains("finite number of seconds above 0"),
            "{stderr}"
        );
    }
    let (code, _, stderr) = siftdds(&["spy", "--type", "X"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--idl"), "{stderr}");
    let (code, stdout, _) = siftdds(&["ls", "--help"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("--json"), "{stdout}");
}

/// RTI Connext through PyPI `rticonnextdds-connector` (`peers/python/observe_rti.py`): its
/// participant, writer and content-filtered reader (RTI names the filtered topic
/// `Square::SquareFiltered`), and its samples decoded.
#[test]
fn ls_and_spy_show_an_rti_connext_participant() {
    let test = "ls_and_spy_show_an_rti_connext_participant";
    if !may_open_sockets(test) {
        return;
    }
    let importable = Command::new("python3")
        .args(["-c", "import rticonnextdds_connector"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !importable {
        crate::skip::skip(
            test,
            "python3 cannot import rticonnextdds_connector (scripts/setup installs it)",
        );
        return;
    }
    let d = "164";
    let xml = std::env::temp_dir().join(format!("shapes-rti-{}.xml", std::process::id()));
    let script = PathBuf::from(repo_path!("interop-tests/peers/python/observe_rti.py"));
    let mut cmd = Command::new("python3");
    cmd.arg(script).args([d, "20", xml.to_str().unwrap()]);
    let rti = Peer::spawn_command(cmd);
    assert!(
        rti.wait_line("rti: ready", Duration::from_secs(20)),
        "the RTI peer did not start"
    );
    let (code, stdout, stderr) = siftdds(&["ls", "-d", d, "--wait", "3", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let p = &doc["participants"][0];
    assert_eq!(p["vendor"], "RTI Connext", "{stdout}");
    assert_eq!(p["name"], "shapes_rti");
    let square = &doc["topics"][0];
    assert_eq!(
        square["writers"][0]["qos"]["reliability"], "reliable",
        "{stdout}"
    );
    let filter = &square["readers"][0]["content_filter"];
    assert_eq!(filter["expression"], "x > %0", "{stdout}");
    assert_eq!(filter["parameters"], serde_json::json!(["7"]));

    let (code, stdout, stderr) = siftdds(&["spy", "-d", d, "-s", "3", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let lines = json_lines(&stdout);
    let samples = events(&lines, "sample");
    assert!(samples.len() > 10, "{stdout}");
    for s in &samples {
        assert_eq!(s["value"]["color"], "RED", "{s}");
        assert_eq!(s["value"]["x"], s["value"]["y"]);
        assert_eq!(
            s["value"]["additional_payload_size"],
            Value::Null,
            "4-member type: {s}"
        );
    }
    let _ = rti.finish_any(Duration::from_secs(1));
    let _ = std::fs::remove_file(&xml);
}

/// Ctrl-C ends `spy` cleanly: exit 0, and it leaves the domain at once (DATA(p[UD])), so a
/// peer forgets it long before its 20 s lease would expire.
#[test]
fn spy_leaves_the_domain_on_ctrl_c() {
    let test = "spy_leaves_the_domain_on_ctrl_c";
    if !may_open_sockets(test) {
        return;
    }
    let watcher = DomainParticipant::new(165).unwrap();
    let mut spy = Command::new(env!("CARGO_BIN_EXE_siftdds"))
        .args(["spy", "-d", "165"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let waited = |want: usize| {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while std::time::Instant::now() < deadline {
            if watcher.discovered_participants().unwrap() == want {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    };
    assert!(waited(1), "the spy was never discovered");
    // SIGINT to the process this test started, by its PID.
    let pid = spy.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    // Within 10 s, half the lease: only the spy's DATA(p[UD]) makes the watcher forget it.
    assert!(waited(0), "the spy did not leave");
    let status = spy.wait().unwrap();
    assert!(status.success(), "{status}");
}
