//! The flow-control benchmark's siftdds side (`scripts/bench-flow`, not part of the tests):
//! one reliable KEEP_ALL ShapeType writer on "Square" that writes as fast as it may, cycling
//! the colours `C0..C<n-1>` so that each sample passes exactly one of `n` readers filtering
//! `color = %0` / `'C<i>'`, or a process hosting `n` such filtered readers.
//!
//! ```text
//! flow_bench pub READERS SECONDS [PAYLOAD]   wait for READERS matches, write SECONDS, drain
//! flow_bench sub READERS SECONDS             host READERS filtered readers for SECONDS
//! ```
//!
//! `pub` prints one `summary:` line: samples written, write seconds, samples/s over writing
//! and draining, CPU µs per sample (this process, `/proc/self/stat`), drain seconds (until
//! every reader acknowledged, at most 30 s), writes that blocked ≥ 100 ms, and the writer's
//! repairs, HEARTBEATs and ACKNACKs per sample. `sub` prints `sub: received total N` once a second and at the end.
//!
//! Runs inside the network sandbox only (`scripts/bench-flow` uses netns-run).

// An example/benchmark/test: it indexes and counts what it built itself and unwraps what must
// work; the parse-path lints of the workspace are siftdds-proto's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
// A measuring tool outside the sans-IO core: it reads the clock (as `siftdds perf` does).
#![allow(clippy::disallowed_methods)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use siftdds::api::DomainParticipant;
use siftdds::qos::{
    DataReaderQos, DataWriterQos, History, PublisherQos, Reliability, SubscriberQos, TopicQos,
};
use siftdds::types::ShapeType;

/// User + system CPU time of this process so far (`/proc/self/stat` fields 14 and 15, in
/// clock ticks of 10 ms: `getconf CLK_TCK` is 100 on Linux).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The command name may contain spaces: fields are counted after its closing ')'.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
    // After ')': state is field 3, so utime (14) and stime (15) are at 11 and 12.
    (ticks(11) + ticks(12)) / 100.0
}

fn reliability() -> Reliability {
    Reliability {
        max_blocking_time: siftdds::time::Duration::from_std(Duration::from_secs(1)),
        ..Reliability::reliable()
    }
}

fn publish(readers: usize, seconds: f64, payload: usize) -> Result<(), Box<dyn std::error::Error>> {
    let participant = DomainParticipant::new(0)?;
    let topic = participant.create_topic::<ShapeType>("Square", TopicQos::default());
    let qos = DataWriterQos {
        reliability: reliability(),
        history: History::KeepAll,
        ..DataWriterQos::default()
    };
    let writer = participant
        .create_publisher(PublisherQos::default())
        .create_datawriter(&topic, qos)?;
    writer.wait_for_matched(readers, Duration::from_secs(60))?;
    // Let the readers' side finish matching us (as the Fast DDS peer's pub does).
    let _ = writer.wait_for_matched(usize::MAX, Duration::from_millis(300));
    writer.set_pipelined(true);
    let colours: Vec<String> = (0..readers.max(1)).map(|i| format!("C{i}")).collect();
    let mut shape = ShapeType {
        color: String::new(),
        x: 0,
        y: 0,
        shapesize: 30,
        additional_payload_size: (0..payload).map(|k| k as u8).collect(),
    };
    let (cpu0, t0) = (cpu_seconds(), Instant::now());
    let end = t0 + Duration::from_secs_f64(seconds);
    let (mut written, mut blocked, mut failed) = (0u64, 0u64, 0u64);
    while Instant::now() < end {
        shape
            .color
            .clone_from(&colours[(written as usize) % colours.len()]);
        shape.x = written as i32;
        let w0 = Instant::now();
        match writer.write(&shape) {
            Ok(()) => written += 1,
            Err(_) => failed += 1,
        }
        if w0.elapsed() >= Duration::from_millis(100) {
            blocked += 1;
        }
    }
    let write_secs = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let drained = writer
        .wait_for_acknowledgments(Duration::from_secs(30))
        .is_ok();
    let drain = t1.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu0;
    let c = writer.counters()?;
    let per = |x: u64| x as f64 / (written.max(1) as f64);
    println!(
        "summary: writer=siftdds readers={readers} written={written} write_s={write_secs:.2} \
         rate={:.0} cpu_us_per_sample={:.1} drain_s={drain:.2} drained={drained} \
         blocked={blocked} failed={failed} repairs_per_sample={:.3} \
         heartbeats_per_sample={:.3} acknacks_per_sample={:.3} gaps_per_sample={:.3} \
         data_sent={} datagrams={}",
        written as f64 / (write_secs + drain),
        cpu * 1e6 / written.max(1) as f64,
        per(c.repairs_sent),
        per(c.heartbeats_sent),
        per(c.acknacks_received),
        per(c.gaps_sent),
        c.data_sent,
        c.datagrams_sent,
    );
    Ok(())
}

fn subscribe(readers: usize, seconds: f64) -> Result<(), Box<dyn std::error::Error>> {
    let participant = DomainParticipant::new(0)?;
    let topic = participant.create_topic::<ShapeType>("Square", TopicQos::default());
    let subscriber = participant.create_subscriber(SubscriberQos::default());
    let qos = DataReaderQos {
        reliability: reliability(),
        history: History::KeepAll,
        ..DataReaderQos::default()
    };
    let total = Arc::new(AtomicU64::new(0));
    let mut handles = Vec::with_capacity(readers);
    for i in 0..readers {
        let param = format!("'C{i}'");
        let reader = subscriber.create_filtered_datareader(
            &topic,
            &format!("SquareFiltered{i}"),
            "color = %0",
            &[param.as_str()],
            qos.clone(),
        )?;
        let total = Arc::clone(&total);
        reader.set_listener_serialized(move |changes, _| {
            total.fetch_add(changes.len() as u64, Ordering::Relaxed);
            true // keep listening
        })?;
        handles.push(reader);
    }
    println!("sub: {readers} readers");
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    // The running total once a second (the bench ends this process with SIGTERM and takes
    // the last line).
    while Instant::now() < end {
        // Examples use the public API only: pace with a wait on a reader.
        if let Some(r) = handles.first() {
            let _ = r.wait_for_matched(usize::MAX, Duration::from_secs(1));
        } else {
            break;
        }
        println!("sub: received total {}", total.load(Ordering::Relaxed));
    }
    println!("sub: received total {}", total.load(Ordering::Relaxed));
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: flow_bench pub|sub READERS SECONDS [PAYLOAD]";
    let (Some(mode), Some(n), Some(secs)) = (args.get(1), args.get(2), args.get(3)) else {
        return Err(usage.into());
    };
    let n: usize = n.parse()?;
    let secs: f64 = secs.parse()?;
    let payload: usize = args.get(4).map_or(Ok(32), |p| p.parse())?;
    match mode.as_str() {
        "pub" => publish(n, secs, payload),
        "sub" => subscribe(n, secs),
        _ => Err(usage.into()),
    }
}
