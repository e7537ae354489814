//! The `shape_main` binary (the OMG dds-rtps harness's Shapes application) as the harness
//! drives it: as processes whose stdout is read through a pipe, line by line. Tests that open
//! sockets run only inside the sandbox; the one against Cyclone DDS also needs
//! `scripts/build-peers`. Each test runs in a network namespace of its own (`sandbox`).

// These tests drive real processes in real time, so they read the clock.
#![allow(clippy::disallowed_methods)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use crate::sandbox::may_open_sockets;
use crate::skip::skip;

pub(crate) const SHAPE_MAIN: &str = env!("CARGO_BIN_EXE_shape_main");

/// A running `shape_main` (or peer) whose stdout lines arrive on a channel. Killed by its PID
/// (we started it) if still running when dropped.
pub(crate) struct App {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl App {
    pub(crate) fn spawn(program: &str, args: &[&str]) -> App {
        Self::spawn_in(None, program, args)
    }

    /// [`App::spawn`] with `dir` as the working directory (`None`: ours).
    pub(crate) fn spawn_in(dir: Option<&std::path::Path>, program: &str, args: &[&str]) -> App {
        let mut cmd = Command::new(program);
        if let Some(dir) = dir {
            cmd.current_dir(dir);
        }
        cmd.args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        // Cyclone peer: loopback only (everything stays on the sandbox's lo).
        cmd.env(
            "CYCLONEDDS_URI",
            "<General><Interfaces><NetworkInterface name=\"lo\"/></Interfaces></General>",
        );
        let mut child = cmd.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        App {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Reads lines until one satisfies `pred`; panics with the output so far on timeout or EOF.
    pub(crate) fn expect(
        &mut self,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if pred(&line) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no {what} in {timeout:?}:\n{}", self.seen.join("\n"))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("EOF before {what}:\n{}", self.seen.join("\n"))
                }
            }
        }
    }

    /// Waits for the process to exit by itself; returns its exit code and every line.
    pub(crate) fn finish(mut self, timeout: Duration) -> (i32, Vec<String>) {
        let deadline = Instant::now() + timeout;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "did not exit in {timeout:?}:\n{}",
                self.seen.join("\n")
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        // The reader thread ends at EOF, which follows the exit.
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(line);
        }
        (status.code().unwrap_or(-1), std::mem::take(&mut self.seen))
    }

    /// The process id (to signal it).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGINT (as the harness stops us), then waits for a clean exit.
    pub(crate) fn interrupt(self, timeout: Duration) -> (i32, Vec<String>) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(sent.success());
        self.finish(timeout)
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A parsed sample line `%-10s %-10s %03d %03d [%d]`.
#[derive(Debug, PartialEq, Eq, Clone)]
pub(crate) struct SampleLine {
    pub(crate) topic: String,
    pub(crate) color: String,
    pub(crate) x: i32,
    pub(crate) y: i32,
    pub(crate) size: i32,
}

/// Parses a sample line, checking the exact column layout; `None` for other lines.
pub(crate) fn sample_line(line: &str) -> Option<SampleLine> {
    let (head, size) = line.strip_suffix(']')?.rsplit_once(" [")?;
    let size = size.parse().ok()?;
    let topic = head.get(..10)?.trim_end().to_string();
    let color = head.get(11..21)?.trim_end().to_string();
    let xy = head.get(22..)?;
    let (x, y) = xy.split_once(' ')?;
    // %03d: at least three digits.
    if x.len() < 3 || y.len() < 3 || head.get(10..11)? != " " || head.get(21..22)? != " " {
        return None;
    }
    Some(SampleLine {
        topic,
        color,
        x: x.parse().ok()?,
        y: y.parse().ok()?,
        size,
    })
}

pub(crate) fn is_sample(line: &str) -> bool {
    sample_line(line).is_some()
}

#[test]
fn sample_lines_parse_with_the_harness_columns() {
    let s = sample_line("Square     RED        007 250 [20]").unwrap();
    assert_eq!(
        (s.topic.as_str(), s.color.as_str(), s.x, s.y, s.size),
        ("Square", "RED", 7, 250, 20)
    );
    assert!(sample_line("Square RED 7 250 [20]").is_none());
    assert!(sample_line("on_publication_matched()").is_none());
}

#[test]
fn shape_main_publisher_to_shape_main_subscriber() {
    if !may_open_sockets("shape_main_publisher_to_shape_main_subscriber") {
        return;
    }
    let wait = Duration::from_secs(20);
    let mut sub = App::spawn(SHAPE_MAIN, &["-S", "-t", "Square", "-d", "110"]);
    sub.expect("topic", wait, |l| l == "Create topic: Square");
    sub.expect("reader", wait, |l| l == "Create reader for topic: Square");
    let mut publisher = App::spawn(
        SHAPE_MAIN,
        &[
            "-P",
            "-t",
            "Square",
            "-c",
            "RED",
            "--num-iterations",
            "20",
            "-w",
            "-d",
            "110",
        ],
    );
    publisher.expect("topic", wait, |l| l == "Create topic: Square");
    publisher.expect("writer", wait, |l| {
        l == "Create writer for topic: Square color: RED"
    });
    sub.expect("match", wait, |l| {
        l == "on_subscription_matched() topic: 'Square'  type: 'ShapeType' : matched writers 1 \
              (change = 1)"
    });
    sub.expect("a sample", wait, is_sample);
    let (code, out) = publisher.finish(wait);
    assert_eq!(code, 0, "{out:?}");
    assert!(
        out.iter().any(|l| l.starts_with(
            "on_publication_matched() topic: 'Square'  type: 'ShapeType' : matched readers 1"
        )),
        "{out:?}"
    );
    assert_eq!(out.last().map(String::as_str), Some("Done."));
    let written: Vec<SampleLine> = out.iter().filter_map(|l| sample_line(l)).collect();
    assert_eq!(written.len(), 20, "{out:?}");
    for s in &written {
        assert_eq!(
            (s.topic.as_str(), s.color.as_str(), s.size),
            ("Square", "RED", 20)
        );
        assert!(
            (0..=240).contains(&s.x) && (0..=270).contains(&s.y),
            "{s:?}"
        );
    }
    // Consecutive samples move by at most 5 in each direction (1..=5 plus bounces).
    for w in written.windows(2) {
        assert!(
            (w[0].x - w[1].x).abs() <= 10 && (w[0].y - w[1].y).abs() <= 10,
            "{w:?}"
        );
    }
    let (code, out) = sub.interrupt(wait);
    assert_eq!(code, 0, "{out:?}");
    assert_eq!(out.last().map(String::as_str), Some("Done."));
    // `out` holds every line, including those read while waiting above.
    let received = sub_samples(&out);
    assert!(!received.is_empty());
    // Every sample the subscriber printed is one the publisher wrote, in order.
    let mut rest = written.iter();
    for r in &received {
        assert!(
            rest.any(|w| w == r),
            "{r:?} not written (or out of order): {written:?}"
        );
    }
}

#[test]
fn shape_main_reports_missed_deadlines_on_both_sides() {
    if !may_open_sockets("shape_main_reports_missed_deadlines_on_both_sides") {
        return;
    }
    let wait = Duration::from_secs(20);
    let mut sub = App::spawn(SHAPE_MAIN, &["-S", "-f", "100", "-d", "112"]);
    sub.expect("reader", wait, |l| l == "Create reader for topic: Square");
    // Writes every 300 ms with a 100 ms deadline: both sides miss it.
    let publisher = App::spawn(
        SHAPE_MAIN,
        &[
            "-P",
            "-f",
            "100",
            "--write-period",
            "300",
            "--num-iterations",
            "6",
            "-d",
            "112",
        ],
    );
    sub.expect("a sample", wait, is_sample);
    sub.expect("requested deadline missed", wait, |l| {
        l.starts_with(
            "on_requested_deadline_missed() topic: 'Square'  type: 'ShapeType' : (total = ",
        )
    });
    let (code, out) = publisher.finish(wait);
    assert_eq!(code, 0, "{out:?}");
    assert!(
        out.iter().any(|l| l.starts_with(
            "on_offered_deadline_missed() topic: 'Square'  type: 'ShapeType' : (total = "
        )),
        "{out:?}"
    );
    assert!(!out.iter().any(|l| l.contains("not supported")), "{out:?}");
}

#[test]
fn shape_main_exclusive_subscriber_follows_the_strongest_publisher() {
    if !may_open_sockets("shape_main_exclusive_subscriber_follows_the_strongest_publisher") {
        return;
    }
    let wait = Duration::from_secs(20);
    let mut sub = App::spawn(SHAPE_MAIN, &["-S", "-s", "0", "-d", "113"]);
    sub.expect("reader", wait, |l| l == "Create reader for topic: Square");
    // Same instance (RED); the strong writer (size 30) stops after 40 samples.
    let strong = App::spawn(
        SHAPE_MAIN,
        &[
            "-P",
            "-c",
            "RED",
            "-s",
            "10",
            "-z",
            "30",
            "--num-iterations",
            "40",
            "-d",
            "113",
        ],
    );
    let weak = App::spawn(
        SHAPE_MAIN,
        &["-P", "-c", "RED", "-s", "5", "-z", "15", "-d", "113"],
    );
    sub.expect("a strong sample", wait, |l| {
        sample_line(l).is_some_and(|s| s.size == 30)
    });
    let (code, _) = strong.finish(wait);
    assert_eq!(code, 0);
    sub.expect("the weak writer takes over", wait, |l| {
        sample_line(l).is_some_and(|s| s.size == 15)
    });
    drop(weak);
    let (_, out) = sub.interrupt(wait);
    let sizes: Vec<i32> = sub_samples(&out).iter().map(|s| s.size).collect();
    let first_weak = sizes.iter().position(|s| *s == 15).unwrap_or(sizes.len());
    assert!(sizes[first_weak..].iter().all(|s| *s == 15), "{sizes:?}");
    assert!(sizes[..first_weak].iter().all(|s| *s == 30), "{sizes:?}");
}

#[test]
fn shape_main_rejects_a_bad_content_filter() {
    if !may_open_sockets("shape_main_rejects_a_bad_content_filter") {
        return;
    }
    let app = App::spawn(
        SHAPE_MAIN,
        &["-S", "-t", "Square", "-d", "111", "--cft", "x >"],
    );
    let (code, out) = app.finish(Duration::from_secs(20));
    assert_eq!(
        out.first().map(String::as_str),
        Some("Create topic: Square"),
        "{out:?}"
    );
    assert!(
        out.iter()
            .any(|l| l == "failed to create content filtered topic"),
        "{out:?}"
    );
    assert!(
        !out.iter().any(|l| l.starts_with("Create reader for topic")),
        "{out:?}"
    );
    assert_eq!(code, 2);
}

/// A QoS file that cannot be used ends the run before any socket with exit 2 and
/// `FILE:LINE:COL: what is wrong`; so does an unknown profile. Runs anywhere.
#[test]
fn shape_main_exits_2_naming_the_place_of_an_unusable_qos_file() {
    let data = repo_path!("tests/data/qos");
    let broken = format!("{data}/broken.xml");
    let shapes = format!("{data}/shapes.xml");
    let cases: [(&[&str], String); 3] = [
        (&["-S", "--qos-file", &broken], format!("{broken}:7:")),
        (
            &["-P", "--qos-file", &shapes, "--qos-profile", "Shapes::Nope"],
            "unknown QoS profile `Shapes::Nope`".into(),
        ),
        (
            &["-P", "--qos-file", &shapes, "--qos-file", &broken],
            format!("{broken}:7:"),
        ),
    ];
    for (args, want) in cases {
        let (code, out) = App::spawn(SHAPE_MAIN, args).finish(Duration::from_secs(20));
        assert_eq!(code, 2, "{args:?}: {out:?}");
        assert!(
            out.iter().any(|l| l.starts_with(&want) || l == &want),
            "{args:?}: {out:?}"
        );
        assert!(
            !out.iter().any(|l| l.starts_with("Create topic")),
            "{args:?}: {out:?}"
        );
    }
}

/// QoS errors of the entities (an entity-level `base_name` cycle, an inconsistent reader
/// QoS) end the run before any socket too: the start-up line naming the network scope, which
/// follows the participant's creation, never appears. Runs anywhere.
#[test]
fn shape_main_reports_entity_qos_errors_before_opening_a_socket() {
    let file = repo_path!("tests/data/qos/entity_errors.xml");
    for (args, want) in [
        (["-P", "--qos-profile", "Bad::A"], "base_name"),
        (["-S", "--qos-profile", "Bad::Inconsistent"], "inconsistent"),
    ] {
        let out = std::process::Command::new(SHAPE_MAIN)
            .args(args)
            .args(["--qos-file", file])
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stdout}{stderr}");
        assert!(stdout.contains(want), "{args:?}: {stdout}");
        assert!(!stdout.contains("Create topic"), "{args:?}: {stdout}");
        assert!(
            !stderr.contains("siftdds: "),
            "a participant started: {stderr}"
        );
    }
}

#[test]
fn shape_main_bad_arguments_print_usage_and_exit_1() {
    for args in [
        &["-S", "-d", "x"][..],
        &["-P", "-S"],
        &[],
        &["-S", "--bogus"],
        &["-S", "-k"],
    ] {
        let (code, out) = App::spawn(SHAPE_MAIN, args).finish(Duration::from_secs(20));
        assert_eq!(code, 1, "{args:?}: {out:?}");
        assert!(
            out.iter()
                .any(|l| l.contains("-P              : publish samples")),
            "{out:?}"
        );
    }
    let (code, out) = App::spawn(SHAPE_MAIN, &["-h"]).finish(Duration::from_secs(20));
    assert_eq!(code, 0);
    assert!(out.iter().any(|l| l.contains("--cft <expression>")));
}

/// Cyclone DDS publishes GREEN and YELLOW and disposes GREEN; `shape_main -c GREEN` must
/// print only GREEN samples (local filtering: Cyclone does not filter for us), then the
/// disposal with the instance's color.
#[test]
fn cyclone_publisher_to_filtered_shape_main_subscriber() {
    let cyclone = crate::vendor_peer("cyclone/shapes_cyclone");
    if !may_open_sockets("cyclone_publisher_to_filtered_shape_main_subscriber") {
        return;
    }
    if !cyclone.exists() {
        skip(
            "cyclone_publisher_to_filtered_shape_main_subscriber",
            &format!(
                "{} not built (scripts/build-peers builds it)",
                cyclone.display()
            ),
        );
        return;
    }
    let wait = Duration::from_secs(30);
    let mut sub = App::spawn(
        SHAPE_MAIN,
        &["-S", "-t", "Square", "-d", "112", "-c", "GREEN"],
    );
    sub.expect("reader", wait, |l| {
        l == "Create reader for topic: Square_filtered color: GREEN"
    });
    let peer = App::spawn(
        cyclone.to_str().unwrap(),
        &[
            "pub",
            "-d",
            "112",
            "-c",
            "GREEN,YELLOW",
            "-n",
            "20",
            "-i",
            "50",
            "-m",
            "1",
            "-x",
            "GREEN",
            "-l",
            "1000",
            "-t",
            "20",
        ],
    );
    sub.expect("match", wait, |l| {
        l.starts_with("on_subscription_matched() topic: 'Square'")
    });
    sub.expect("disposal", wait, |l| {
        l == "Square     GREEN      NOT_ALIVE_DISPOSED_INSTANCE_STATE"
    });
    let (code, _) = peer.finish(wait);
    assert_eq!(code, 0);
    let (code, out) = sub.interrupt(wait);
    assert_eq!(code, 0);
    let samples = sub_samples(&out);
    assert!(!samples.is_empty(), "{out:?}");
    assert!(
        samples.iter().all(|s| s.color == "GREEN" && s.size == 30),
        "{out:?}"
    );
    assert!(!out.iter().any(|l| l.contains("YELLOW")), "{out:?}");
}

pub(crate) fn sub_samples(out: &[String]) -> Vec<SampleLine> {
    out.iter().filter_map(|l| sample_line(l)).collect()
}
