//! The consumer application against other vendors' processes, over real sockets inside the
//! network sandbox: Cyclone DDS 0.10 (`shapes_cyclone`), Fast DDS 2.9 (`shapes_fastdds`) and
//! the PyPI `cyclonedds` binding (Cyclone DDS 11, `shapes_xcdr.py`). For each:
//!
//! * the vendor writes and the derived [`Shape`] arrives through the async `stream()` with
//!   its SampleInfo (valid, ALIVE, NEW on an instance's first sample, the instance handle of
//!   its key, a source timestamp);
//! * [`publish`] (`write_async`) writes and the vendor's reader prints every sample;
//! * the vendor writes three instances, disposes one, unregisters another (autodispose off)
//!   and exits: the [`ShapeMonitor`]'s WaitSet wakes on the NOT_ALIVE ReadCondition, the
//!   QueryCondition and the StatusCondition, and `lookup_instance`/`take_instance` give
//!   NOT_ALIVE_DISPOSED and NOT_ALIVE_NO_WRITERS (the Python peer disposes only).
//!
//! Domains 220-228. Each test is bounded (under 30 s); outside the sandbox, or without the
//! peer, it records a counted skip (`support::skip`).

// Test code driving real processes in real time: it unwraps what must work, indexes and
// counts what it built, and reads the clock to bound its loops.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::disallowed_methods
)]

mod support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use siftdds::api::{Error, InstanceHandle, InstanceState, SampleState, StatusMask, ViewState};
use siftdds::core::ChangeKind;
use siftdds::qos::DataRepresentation;
use siftdds::types::TopicType;
use siftdds_consumer::{
    Shape, ShapeMonitor, participant, publish, receive, shape_reader, shape_writer,
};

use support::{Peer, Vendor, ready};

/// The bound on each exchange with a peer.
const WAIT: Duration = Duration::from_secs(20);

fn handle(color: &str) -> InstanceHandle {
    InstanceHandle::from_key_hash(Shape::key(color).key_hash().unwrap())
}

/// The vendor's writer publishes `n` samples; the application's stream receives them.
async fn vendor_writer_to_stream(vendor: Vendor, domain: u32) {
    let n = 20;
    let p = participant(domain).unwrap();
    let reader = shape_reader(&p, "Square").unwrap();
    let (d, count) = (domain.to_string(), n.to_string());
    let args: Vec<&str> = match vendor {
        Vendor::Python => vec!["pub", &d, "Square", &count, "--xcdr", "2"],
        _ => vec![
            "pub", "-d", &d, "-n", &count, "-i", "20", "-c", "RED,BLUE", "-k", "0", "-t", "25",
            "-l", "1000",
        ],
    };
    let peer = Peer::spawn(vendor, &args);
    let got = receive(&reader, n, WAIT).await;
    let (_, out) = peer.finish(WAIT);
    let ctx = format!("{vendor:?}: {got:#?}\npeer:\n{out}");
    let data: Vec<&Shape> = got.iter().filter_map(|s| s.value.as_ref()).collect();
    assert_eq!(data.len(), n, "{ctx}");
    let mut by_color: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for s in &got {
        let i = &s.info;
        assert!(i.valid_data, "only writes: {ctx}");
        assert_eq!(s.kind, ChangeKind::Alive, "{ctx}");
        assert_eq!(i.instance_state, InstanceState::Alive, "{ctx}");
        assert_eq!(
            i.sample_state,
            SampleState::NotRead,
            "taken by the stream: {ctx}"
        );
        assert!(i.source_timestamp.is_some(), "{ctx}");
        let shape = s.value.as_ref().unwrap();
        assert_eq!(i.instance_handle, handle(&shape.color), "{ctx}");
        let xs = by_color.entry(&shape.color).or_default();
        if xs.is_empty() {
            assert_eq!(
                i.view_state,
                ViewState::New,
                "first of {}: {ctx}",
                shape.color
            );
        }
        xs.push(shape.x);
    }
    // One writer: one publication handle; each instance in the order written.
    assert!(
        got.windows(2)
            .all(|w| w[0].info.publication_handle == w[1].info.publication_handle)
    );
    assert!(
        by_color
            .values()
            .all(|xs| xs.windows(2).all(|w| w[0] < w[1])),
        "{ctx}"
    );
    let colors: Vec<&str> = by_color.keys().copied().collect();
    match vendor {
        // shapes_xcdr.py: RED, x = i, y = 2 i, shapesize = 30 + i % 7.
        Vendor::Python => {
            let want: Vec<Shape> = (0..n as i32)
                .map(|i| Shape {
                    shapesize: 30 + i % 7,
                    ..Shape::new("RED", i, 2 * i)
                })
                .collect();
            assert_eq!(data.into_iter().cloned().collect::<Vec<_>>(), want, "{ctx}");
        }
        _ => assert_eq!(colors, ["BLUE", "RED"], "{ctx}"),
    }
}

/// The application writes `n` samples with `write_async`; the vendor's reader prints them.
async fn async_writer_to_vendor(vendor: Vendor, domain: u32) {
    let n: i32 = 20;
    let (d, count) = (domain.to_string(), n.to_string());
    let (args, matched): (Vec<&str>, &str) = match vendor {
        Vendor::Python => (vec!["sub", &d, "Square", &count, "--xcdr", "2"], "matched"),
        _ => (
            vec!["sub", "-d", &d, "-n", &count, "-k", "0", "-t", "25"],
            "sub: matched writers 1",
        ),
    };
    let mut peer = Peer::spawn(vendor, &args);
    let p = participant(domain).unwrap();
    // The Python peer reads XCDR2 only; the C peers' @final types are XCDR1.
    let representation = match vendor {
        Vendor::Python => DataRepresentation::XCDR2,
        _ => DataRepresentation::XCDR,
    };
    let writer = shape_writer(&p, "Square", representation).unwrap();
    let shapes: Vec<Shape> = (0..n)
        .map(|i| Shape::new(["RED", "BLUE"][i as usize % 2], i, 2 * i))
        .collect();
    // A volatile reader that has not matched us yet would miss the first samples: wait for
    // the peer to say it matched.
    tokio::time::timeout(WAIT, writer.wait_for_matched_async(1))
        .await
        .expect("the peer's reader never matched")
        .unwrap();
    assert!(
        peer.wait_line(matched, WAIT),
        "{vendor:?} never matched our writer"
    );
    let written = tokio::time::timeout(WAIT, publish(&writer, 1, &shapes)).await;
    let (_, out) = peer.finish(WAIT);
    assert!(matches!(written, Ok(Ok(()))), "{written:?}\npeer:\n{out}");
    let printed: Vec<(String, i32, i32)> = out
        .lines()
        .filter_map(|l| match vendor {
            // "SAMPLE color x y shapesize"
            Vendor::Python => {
                let mut f = l.strip_prefix("SAMPLE ")?.split(' ');
                Some((
                    f.next()?.into(),
                    f.next()?.parse().ok()?,
                    f.next()?.parse().ok()?,
                ))
            }
            // "sub: <k> <color> x=.. y=.. size=.. payload=.."
            _ => {
                let mut f = l.strip_prefix("sub: ")?.split(' ');
                f.next()?.parse::<u64>().ok()?;
                let color = f.next()?.into();
                let x = f.next()?.strip_prefix("x=")?.parse().ok()?;
                let y = f.next()?.strip_prefix("y=")?.parse().ok()?;
                Some((color, x, y))
            }
        })
        .collect();
    // Every sample once, each instance's in the order written (a reader's take returns the
    // samples grouped by instance).
    let per_instance = |all: Vec<(String, i32, i32)>| {
        let mut by: BTreeMap<String, Vec<(i32, i32)>> = BTreeMap::new();
        for (color, x, y) in all {
            by.entry(color).or_default().push((x, y));
        }
        by
    };
    let want = shapes.iter().map(|s| (s.color.clone(), s.x, s.y)).collect();
    assert_eq!(
        per_instance(printed),
        per_instance(want),
        "{vendor:?} printed:\n{out}"
    );
}

/// The vendor writes RED, BLUE and GREEN, disposes RED, unregisters BLUE and exits (the
/// Python peer writes RED and disposes it): the monitor sees each state change.
fn vendor_instance_states(vendor: Vendor, domain: u32) {
    let p = participant(domain).unwrap();
    let reader = shape_reader(&p, "Square").unwrap();
    let monitor = ShapeMonitor::new(&reader, 15).unwrap();
    let d = domain.to_string();
    let (args, expect): (Vec<&str>, Vec<(&str, InstanceState)>) = match vendor {
        Vendor::Python => (
            vec!["pub", &d, "Square", "20", "--xcdr", "2", "--dispose"],
            vec![("RED", InstanceState::NotAliveDisposed)],
        ),
        _ => (
            vec![
                "pub",
                "-d",
                &d,
                "-k",
                "0",
                "-n",
                "6",
                "-i",
                "200",
                "-c",
                "RED,BLUE,GREEN",
                "-x",
                "RED",
                "-u",
                "BLUE",
                "-a",
                "0",
                "-t",
                "20",
                "-l",
                "300",
            ],
            vec![
                ("RED", InstanceState::NotAliveDisposed),
                ("BLUE", InstanceState::NotAliveNoWriters),
                ("GREEN", InstanceState::NotAliveNoWriters),
            ],
        ),
    };
    let peer = Peer::spawn(vendor, &args);
    let colors: Vec<&str> = expect.iter().map(|(c, _)| *c).collect();
    let color_of = |h: InstanceHandle| colors.iter().copied().find(|c| handle(c) == h);
    // Per colour, the instance states of the samples without data, as first read.
    let mut changes: BTreeMap<&str, Vec<InstanceState>> = BTreeMap::new();
    let (mut statuses, mut not_alive_wakes, mut far_wakes, mut wakes) =
        (StatusMask::empty(), 0, 0, 0);
    let deadline = Instant::now() + WAIT;
    let done = |changes: &BTreeMap<&str, Vec<InstanceState>>| {
        colors.iter().all(|c| {
            changes
                .get(c)
                .is_some_and(|s| s.iter().any(|s| *s != InstanceState::Alive))
        })
    };
    while !done(&changes) && Instant::now() < deadline {
        let wake = match monitor.wait(Duration::from_millis(500)) {
            Ok(wake) => wake,
            Err(Error::Timeout) => continue,
            Err(e) => panic!("{e}"),
        };
        wakes += 1;
        not_alive_wakes += usize::from(wake.not_alive);
        far_wakes += usize::from(wake.far);
        statuses |= wake.status.unwrap_or(StatusMask::empty());
        for s in wake.samples.iter().filter(|s| !s.info.valid_data) {
            let color = color_of(s.info.instance_handle).unwrap_or("?");
            changes
                .entry(color)
                .or_default()
                .push(s.info.instance_state);
        }
    }
    let (_, out) = peer.finish(WAIT);
    let ctx = format!(
        "{vendor:?}: {wakes} wakes, {not_alive_wakes} NOT_ALIVE, {far_wakes} x >= 15, \
         statuses {statuses:?}, changes {changes:?}\npeer:\n{out}"
    );
    assert!(not_alive_wakes >= 1, "{ctx}");
    assert!(far_wakes >= 1, "{ctx}");
    assert!(statuses.contains(StatusMask::SUBSCRIPTION_MATCHED), "{ctx}");
    assert!(statuses.contains(StatusMask::DATA_AVAILABLE), "{ctx}");
    assert_eq!(monitor.instance_state("PURPLE").unwrap(), None, "{ctx}");
    for (color, state) in expect {
        assert_eq!(
            monitor.instance_state(color).unwrap(),
            Some(state),
            "{color}: {ctx}"
        );
        let samples = monitor.take_instance(color).unwrap();
        assert!(
            samples.iter().any(|s| s.info.valid_data),
            "{color}: {samples:#?}"
        );
        // Every sample now reports the state the instance ended in, and all were read.
        assert!(
            samples.iter().all(|s| s.info.instance_state == state
                && s.info.sample_state == SampleState::Read
                && s.info.view_state == ViewState::NotNew
                && s.info.instance_handle == handle(color)),
            "{color}: {samples:#?}"
        );
        assert!(
            !samples.last().unwrap().info.valid_data,
            "{color}: {samples:#?}"
        );
        // What the writer did: disposed RED, unregistered BLUE (GREEN's writer went away).
        let kind = match color {
            "RED" => Some(ChangeKind::NotAliveDisposed),
            "BLUE" => Some(ChangeKind::NotAliveUnregistered),
            _ => None,
        };
        assert!(
            kind.is_none_or(|k| samples.iter().any(|s| s.kind == k)),
            "{color}: {samples:#?}"
        );
        assert!(
            monitor.take_instance(color).unwrap().is_empty(),
            "{color}: taken"
        );
    }
}

/// The three scenarios against `vendor`, as three tests named by the caller, on domains
/// `domain`, `domain + 1` and `domain + 2`; each records a counted skip when it cannot run.
macro_rules! scenarios {
    ($vendor:expr, $domain:literal, $stream:ident, $write:ident, $instances:ident) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $stream() {
            if ready(stringify!($stream), $vendor) {
                vendor_writer_to_stream($vendor, $domain).await;
            }
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $write() {
            if ready(stringify!($write), $vendor) {
                async_writer_to_vendor($vendor, $domain + 1).await;
            }
        }

        #[test]
        fn $instances() {
            if ready(stringify!($instances), $vendor) {
                vendor_instance_states($vendor, $domain + 2);
            }
        }
    };
}

scenarios!(
    Vendor::Cyclone,
    220,
    cyclone_writer_to_async_stream,
    async_writer_to_cyclone_reader,
    cyclone_dispose_unregister_exit_seen_through_waitset_and_take_instance
);

scenarios!(
    Vendor::FastDds,
    223,
    fastdds_writer_to_async_stream,
    async_writer_to_fastdds_reader,
    fastdds_dispose_unregister_exit_seen_through_waitset_and_take_instance
);

// The Python peer disposes RED only (it has no unregister or second instance).
scenarios!(
    Vendor::Python,
    226,
    python_cyclone_writer_to_async_stream,
    async_writer_to_python_cyclone_reader,
    python_cyclone_dispose_seen_through_waitset_and_take_instance
);
