//! One phase of the demo: the same sequence of shapes written through one writer to every
//! subscriber, paced at `--rate`, and what it cost, measured: the writer's counters, the
//! publisher participant's traffic, and per subscriber the samples, bytes, filter
//! evaluations and delivery latencies that arrived from that writer.
//!
//! Must not: print results (only progress), or derive a cost from a formula.

use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use siftdds::api::{DataReader, DataWriter, DomainParticipant};
use siftdds::cdr::Endianness;
use siftdds::core::reader::ReaderCounters;
use siftdds::core::writer::{FilterStats, WriterCounters};
use siftdds::filter::Program;
use siftdds::runtime::RuntimeStats;
use siftdds::types::{ShapeType, TopicType};
use siftdds::wire::Guid;

use super::DemoArgs;
use super::setup::COLORS;
use crate::progress::Progress;

/// Positions per lap of each colour's path.
pub const PATH_STEPS: usize = 60;

/// Samples written between two looks at the subscribers' arrivals.
const DRAIN_EVERY: usize = 50;

/// One sample's arrival at a subscriber, as its listener saw it.
pub struct Arrival {
    /// The writer that sent it.
    pub writer: Guid,
    /// Wall-clock time from the write (source timestamp) to the listener; `None` without a
    /// source timestamp.
    pub latency_ns: Option<u64>,
    /// Serialized payload bytes.
    pub bytes: usize,
}

/// What one subscriber got from one phase's writer.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Samples its filter passes (evaluated here on each written sample: the reference).
    pub expected: usize,
    /// Samples delivered from the phase's writer (taken in the listener).
    pub received: usize,
    /// Samples that reached the reader during the phase, before its own filter (the
    /// reader's `samples_received`).
    pub arrived: u64,
    /// Payload bytes of those samples.
    pub payload_bytes: u64,
    /// Bytes the subscriber's participant received during the phase (RTPS messages: data,
    /// GAPs, HEARTBEATs, discovery).
    pub wire_bytes: u64,
    /// Write-to-listener latencies, nanoseconds.
    pub latencies_ns: Vec<u64>,
    /// Samples whose filter the subscriber evaluated itself (the writer did not).
    pub evaluated_here: u64,
    /// Of those, the samples its filter rejected.
    pub rejected_here: u64,
}

/// A subscriber: its participant, its filtered reader and what it got in each phase.
pub struct Subscriber {
    /// Name in the table (`sub07`).
    pub name: String,
    /// The filter with its parameters in place.
    pub filter: String,
    program: Program,
    reader: DataReader<ShapeType>,
    participant: DomainParticipant,
    arrivals: Receiver<Vec<Arrival>>,
    /// Index 0: the filtering writer; 1: the baseline writer.
    pub phases: [Tally; 2],
    /// The writer of each phase, to attribute late arrivals.
    writers: [Option<Guid>; 2],
}

impl Subscriber {
    /// A subscriber whose listener sends its arrivals to `arrivals`.
    pub fn new(
        name: String,
        filter: String,
        program: Program,
        reader: DataReader<ShapeType>,
        participant: DomainParticipant,
        arrivals: Receiver<Vec<Arrival>>,
    ) -> Self {
        Subscriber {
            name,
            filter,
            program,
            reader,
            participant,
            arrivals,
            phases: Default::default(),
            writers: [None; 2],
        }
    }

    /// Bytes its participant has received so far (RTPS messages).
    pub fn bytes_received(&self) -> u64 {
        self.participant.runtime_stats().bytes_received
    }

    /// Waits until its reader matched `n` writers.
    pub fn wait_for_writers(&self, n: usize, timeout: Duration) -> Result<(), siftdds::api::Error> {
        self.reader.wait_for_matched(n, timeout)
    }

    /// Counts the arrivals reported so far.
    fn drain(&mut self) {
        while let Ok(batch) = self.arrivals.try_recv() {
            for a in batch {
                let Some(i) = self.writers.iter().position(|w| *w == Some(a.writer)) else {
                    continue;
                };
                let t = &mut self.phases[i];
                t.received += 1;
                t.payload_bytes += a.bytes as u64;
                if let Some(ns) = a.latency_ns {
                    t.latencies_ns.push(ns);
                }
            }
        }
    }

    fn complete(&self, phase: usize) -> bool {
        self.phases[phase].received >= self.phases[phase].expected
    }
}

/// What a phase cost at the publisher.
#[derive(Clone, Debug)]
pub struct PhaseFigures {
    /// Samples written.
    pub samples: usize,
    /// What the writer's counters counted during the phase.
    pub writer: WriterCounters,
    /// Its filter table figures (`None`: the writer filters for nobody).
    pub filter: Option<FilterStats>,
    /// The publisher participant's traffic during the phase (the writer's, discovery's and
    /// liveliness').
    pub publisher: RuntimeStats,
    /// The publisher participant's source-validation counters at the phase's end
    /// (`ParticipantStats::foreign_source` and `rebound`, docs/security.md §6).
    pub foreign_source: u64,
    /// See `foreign_source`.
    pub rebound: u64,
}

/// The sample `n` of the sequence every phase writes: each colour moves round a closed
/// path of [`PATH_STEPS`] positions, as the Shapes demo's bouncing shapes do, so the same
/// (colour, position, size) comes back every lap; `sparse` sets x to `n mod subscribers`.
pub fn shape(n: usize, o: &DemoArgs) -> ShapeType {
    let c = n % COLORS.len();
    let k = (n / COLORS.len()) % PATH_STEPS;
    let mut s = ShapeType {
        color: COLORS[c].to_string(),
        x: ((k * 4 + c * 13) % 240) as i32,
        y: ((k * 9 + c * 7) % 270) as i32,
        shapesize: (15 + 5 * ((c + k) % 6)) as i32,
        additional_payload_size: vec![],
    };
    if o.sparse {
        s.x = (n % o.subscribers.max(1)) as i32;
    }
    s
}

fn runtime_delta(after: RuntimeStats, before: RuntimeStats) -> RuntimeStats {
    RuntimeStats {
        datagrams_received: after
            .datagrams_received
            .saturating_sub(before.datagrams_received),
        bytes_received: after.bytes_received.saturating_sub(before.bytes_received),
        datagrams_dropped: after
            .datagrams_dropped
            .saturating_sub(before.datagrams_dropped),
        receive_errors: after.receive_errors.saturating_sub(before.receive_errors),
        datagrams_sent: after.datagrams_sent.saturating_sub(before.datagrams_sent),
        bytes_sent: after.bytes_sent.saturating_sub(before.bytes_sent),
        destinations_skipped: after
            .destinations_skipped
            .saturating_sub(before.destinations_skipped),
        send_errors: after.send_errors.saturating_sub(before.send_errors),
    }
}

/// The writer's counters between two snapshots (those the report shows).
fn writer_delta(after: WriterCounters, before: WriterCounters) -> WriterCounters {
    let d = |a: u64, b: u64| a.saturating_sub(b);
    WriterCounters {
        data_sent: d(after.data_sent, before.data_sent),
        data_frag_sent: d(after.data_frag_sent, before.data_frag_sent),
        repairs_sent: d(after.repairs_sent, before.repairs_sent),
        gaps_sent: d(after.gaps_sent, before.gaps_sent),
        heartbeats_sent: d(after.heartbeats_sent, before.heartbeats_sent),
        datagrams_sent: d(after.datagrams_sent, before.datagrams_sent),
        wire_datagrams: d(after.wire_datagrams, before.wire_datagrams),
        wire_bytes: d(after.wire_bytes, before.wire_bytes),
        samples_multicast: d(after.samples_multicast, before.samples_multicast),
        samples_unicast: d(after.samples_unicast, before.samples_unicast),
        ..after
    }
}

/// Samples a reader received, those its filter was evaluated on at the reader, and how
/// many it rejected there, between two counter snapshots: samples received that carried no verdict of the
/// writer for this reader's filter (RTPS 2.5 §8.7.3.3, PID_CONTENT_FILTER_INFO).
fn evaluated_here(after: &ReaderCounters, before: &ReaderCounters) -> (u64, u64, u64) {
    let d = |a: u64, b: u64| a.saturating_sub(b);
    let received = d(after.samples_received, before.samples_received);
    let by_writer = d(
        after.content_passed_by_writer,
        before.content_passed_by_writer,
    ) + d(
        after.content_filtered_by_writer,
        before.content_filtered_by_writer,
    );
    let rejected = d(
        after.content_filtered_locally,
        before.content_filtered_locally,
    );
    (received, received.saturating_sub(by_writer), rejected)
}

/// Writes the sequence through `writer` (each sample wrapped by `wrap`), paced at the
/// demo's rate, then waits for acknowledgements and arrivals; `phase` indexes the tallies.
pub fn publish<W: TopicType>(
    writer: &DataWriter<W>,
    wrap: impl Fn(ShapeType) -> W,
    subs: &mut [Subscriber],
    phase: usize,
    o: &DemoArgs,
    publisher: &DomainParticipant,
) -> Result<PhaseFigures, Box<dyn std::error::Error>> {
    let total = (o.seconds * o.rate).round() as usize;
    let period = Duration::from_secs_f64(1.0 / o.rate);
    let mut before = Vec::with_capacity(subs.len());
    for s in subs.iter_mut() {
        s.writers[phase] = Some(writer.guid());
        before.push((s.reader.counters()?, s.participant.runtime_stats()));
    }
    let pub_before = publisher.runtime_stats();
    let writer_before = writer.counters()?;
    let label = if phase == 0 { "publishing" } else { "baseline" };
    let mut progress = Progress::new(label, Some(total as u64));
    let start = Instant::now();
    for n in 0..total {
        let sample = shape(n, o);
        let bytes = sample.serialize(Endianness::Little);
        writer.write(&wrap(sample))?;
        for s in subs.iter_mut() {
            if s.program.evaluate(&bytes).unwrap_or(true) {
                s.phases[phase].expected += 1;
            }
        }
        if n % DRAIN_EVERY == 0 || n + 1 == total {
            subs.iter_mut().for_each(Subscriber::drain);
            let got: usize = subs.iter().map(|s| s.phases[phase].received).sum();
            progress.update(n as u64 + 1, || format!("samples, {got} deliveries"));
        }
        if let Some(wait) = (start + period * (n as u32 + 1)).checked_duration_since(Instant::now())
        {
            std::thread::sleep(wait);
        }
    }
    progress.finish(&format!("{total} samples written"));
    if !o.best_effort {
        // A reader that is still missing samples then gets no more time below.
        let _ = writer.wait_for_acknowledgments(Duration::from_secs(20));
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        subs.iter_mut().for_each(Subscriber::drain);
        if subs.iter().all(|s| s.complete(phase)) || Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for (s, (counters, stats)) in subs.iter_mut().zip(before) {
        let after = s.reader.counters()?;
        let (arrived, evaluated, rejected) = evaluated_here(&after, &counters);
        let t = &mut s.phases[phase];
        t.arrived = arrived;
        t.evaluated_here = evaluated;
        t.rejected_here = rejected;
        t.wire_bytes = runtime_delta(s.participant.runtime_stats(), stats).bytes_received;
    }
    let fs = writer.filter_stats()?;
    let ps = publisher.stats()?;
    Ok(PhaseFigures {
        foreign_source: ps.foreign_source,
        rebound: ps.rebound,
        samples: total,
        writer: writer_delta(writer.counters()?, writer_before),
        filter: (fs.filtered_readers > 0).then_some(fs.filter),
        publisher: runtime_delta(publisher.runtime_stats(), pub_before),
    })
}
