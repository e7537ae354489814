//! `siftdds perf pub` and `sub`: throughput of KeyedSeq samples on `DDSPerf{R,U}DataKS`.
//!
//! Must not: count a sample twice, or call a gap lost when it is only reordering (sequence
//! numbers below the expected one are counted as neither received-new nor lost).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use siftdds::api::{DomainParticipant, Error as DdsError};
use siftdds::core::ChangeKind;
use siftdds::qos::{PublisherQos, SubscriberQos};
use siftdds::types::TopicType;
use siftdds::wire::Guid;

use super::report::Meter;
use super::{KeyedSeq, MATCH_TIMEOUT, PerfOptions, keyed_seq::FIXED_SIZE};

/// Writes between two checks of the clock (report, duration, rate).
const WRITES_PER_TICK: u64 = 64;
/// The subscriber stops after this long without data once its publishers are gone…
const IDLE_UNMATCHED: Duration = Duration::from_secs(1);
/// …and after this long without data in any case.
const IDLE_MAX: Duration = Duration::from_secs(5);
/// How long a `pub --count` waits for the readers' acknowledgments.
const ACK_TIMEOUT: Duration = Duration::from_secs(60);

/// `pub`: writes samples until `--count` or `--duration`; returns whether every write
/// succeeded (and, with `--count`, was acknowledged).
pub fn publish(o: &PerfOptions) -> Result<bool, Box<dyn std::error::Error>> {
    let dp = o.participant()?;
    let sample = KeyedSeq {
        seq: 0,
        keyval: 0,
        baggage: vec![0xee; o.size.saturating_sub(FIXED_SIZE)],
    };
    let size = sample.size() as u64;
    publish_samples(o, &dp, sample, size, |s, seq| s.seq = seq, || Ok(()))
}

/// The publishing loop of `pub` for any sample type: `sample` is written with sequence
/// numbers 0, 1, … set by `set_seq` before each write; `size` is what the meter counts per
/// sample; `closing` runs after the writer's counters are printed, while it still exists.
pub fn publish_samples<T: TopicType>(
    o: &PerfOptions,
    dp: &DomainParticipant,
    mut sample: T,
    size: u64,
    mut set_seq: impl FnMut(&mut T, u32),
    closing: impl FnOnce() -> Result<(), DdsError>,
) -> Result<bool, Box<dyn std::error::Error>> {
    let topic = o.topic::<T>(dp, "Data");
    let writer = dp
        .create_publisher(PublisherQos::default())
        .create_datawriter_with_fragment_size(&topic, o.data_writer_qos(), o.fragment_size)?;
    writer.set_pipelined(o.batch);
    println!(
        "pub: {} size {} {} batch {}, waiting up to {} s for a reader",
        topic.name(),
        o.size,
        o.qos_summary(),
        if o.batch { "on" } else { "off" },
        MATCH_TIMEOUT.as_secs()
    );
    if writer.wait_for_matched(1, MATCH_TIMEOUT).is_err() {
        println!("pub: no reader matched within {MATCH_TIMEOUT:?}");
        return Ok(false);
    }
    let mut seq = 0u32;
    let mut meter = Meter::new("pub");
    if o.reliable {
        // The reader may not have matched us yet (discovery is not symmetric in time): data
        // it drops until then is repaired only after NACKs, at a fraction of the rate. The
        // first sample's acknowledgement shows the match on both sides.
        set_seq(&mut sample, seq);
        writer.write(&sample)?;
        seq = 1;
        if writer.wait_for_acknowledgments(MATCH_TIMEOUT).is_err() {
            println!("pub: the first sample was not acknowledged within {MATCH_TIMEOUT:?}");
            return Ok(false);
        }
        meter.restart();
        meter.record(1, size, 0);
    }
    let start = Instant::now();
    let mut failed = 0u64;
    let mut written = u64::from(seq);
    'write: loop {
        for _ in 0..WRITES_PER_TICK {
            if o.count.is_some_and(|n| written >= n) {
                break 'write;
            }
            set_seq(&mut sample, seq);
            match writer.write(&sample) {
                Ok(()) => meter.record(1, size, 0),
                Err(e) => {
                    failed += 1;
                    meter.record(0, 0, 1);
                    eprintln!("pub: write {seq}: {e}");
                }
            }
            written += 1;
            seq = seq.wrapping_add(1);
            if let Some(rate) = o.rate {
                // Pace against the schedule, not the previous write (no drift).
                let due = start + Duration::from_secs_f64(written as f64 / rate);
                let now = Instant::now();
                if due > now {
                    std::thread::sleep(due - now);
                }
            }
        }
        meter.tick();
        if o.duration
            .is_some_and(|d| start.elapsed().as_secs_f64() >= d)
        {
            break;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let mut acked = true;
    if o.reliable {
        // With --duration too: a reliable reader is owed the tail, and leaving before it is
        // acknowledged would lose it on purpose.
        acked = writer.wait_for_acknowledgments(ACK_TIMEOUT).is_ok();
        if !acked {
            println!("pub: not every sample was acknowledged within {ACK_TIMEOUT:?}");
        }
    }
    let c = writer.counters()?;
    println!(
        "pub: {} DATA, {} DATA_FRAG in {} datagrams; {} HEARTBEATs, {} ACKNACKs, {} repairs",
        c.data_sent,
        c.data_frag_sent,
        c.datagrams_sent,
        c.heartbeats_sent,
        c.acknacks_received,
        c.repairs_sent
    );
    let rs = dp.runtime_stats();
    println!(
        "pub: runtime sent {} datagrams, {} send errors, received {}",
        rs.datagrams_sent, rs.send_errors, rs.datagrams_received
    );
    println!("pub: {}", spoof_line(&dp.stats()?));
    closing()?;
    meter.summary(secs);
    Ok(failed == 0 && acked)
}

/// Per (writer, key) sequence tracking: the next expected `seq`. An ordered map (with the
/// usual one or few streams a lookup is a comparison or two, cheaper than SipHash), and the
/// stream of the previous sample kept aside, so a run of samples of one stream needs none.
#[derive(Default)]
struct Continuity {
    expected: BTreeMap<(Guid, u32), u32>,
    /// The previous sample's stream and its expectation (`None`: no sample yet); not in
    /// `expected` meanwhile.
    current: Option<((Guid, u32), Option<u32>)>,
}

impl Continuity {
    /// Returns (new sample?, samples newly known lost). The first sample of a stream sets the
    /// expectation (a late-joining reader has not lost what was written before it matched).
    fn observe(&mut self, writer: Guid, keyval: u32, seq: u32) -> (bool, u64) {
        let key = (writer, keyval);
        let exp = match &mut self.current {
            Some((k, exp)) if *k == key => exp,
            current => {
                if let Some((k, Some(e))) = current.take() {
                    self.expected.insert(k, e);
                }
                let e = self.expected.remove(&key);
                &mut current.insert((key, e)).1
            }
        };
        let next = seq.wrapping_add(1);
        match *exp {
            None => {
                *exp = Some(next);
                (true, 0)
            }
            Some(e) if seq == e => {
                *exp = Some(next);
                (true, 0)
            }
            Some(e) => {
                let ahead = seq.wrapping_sub(e);
                if ahead < u32::MAX / 2 {
                    *exp = Some(next);
                    (true, u64::from(ahead))
                } else {
                    // Older than expected: a duplicate or reordering; keep the expectation.
                    (false, 0)
                }
            }
        }
    }
}

/// Loss at the end of each writer's stream, which sequence-number continuity cannot see:
/// per writer the highest RTPS sequence number received (any change kind) and the highest
/// its HEARTBEATs announced (RTPS 2.5 §8.4.10.4.4, lastSN), polled while it is matched.
#[derive(Default)]
struct Tail {
    writers: BTreeMap<Guid, (i64, i64)>,
}

impl Tail {
    fn received(&mut self, writer: Guid, sn: i64) {
        let e = self.writers.entry(writer).or_default();
        e.0 = e.0.max(sn);
    }

    fn announced(&mut self, writer: Guid, sn: i64) {
        let e = self.writers.entry(writer).or_default();
        e.1 = e.1.max(sn);
    }

    /// Samples announced but never received after the last one received. A writer heard
    /// from only by HEARTBEAT (nothing received) is not counted: a late-joining reader is
    /// not owed what came before it.
    fn lost(&self) -> u64 {
        self.writers
            .values()
            .filter(|(got, _)| *got > 0)
            .map(|(got, announced)| u64::try_from(announced.saturating_sub(*got)).unwrap_or(0))
            .sum()
    }
}

/// What the subscriber's listener counted (read by the reporting thread).
#[derive(Default)]
struct Counts {
    samples: AtomicU64,
    bytes: AtomicU64,
    lost: AtomicU64,
    /// Changes the listener got that are not ALIVE (dispose, unregister): the reader's
    /// `received` counts them too.
    not_alive: AtomicU64,
    /// Nanoseconds from the start to the first and the latest sample (0: none yet).
    first_ns: AtomicU64,
    last_ns: AtomicU64,
}

/// `sub`: counts samples in a listener on the event-loop thread (as `ddsperf sub` does by
/// default) until `--count`, `--duration` (from the first sample) or the publishers are
/// gone; returns false when samples were lost in a reliable KEEP_ALL run.
pub fn subscribe(o: &PerfOptions) -> Result<bool, Box<dyn std::error::Error>> {
    // Serialized: only seq, keyval and the size are needed (no copy of the baggage).
    subscribe_samples::<KeyedSeq>(o, |data| KeyedSeq::peek(data).ok())
}

/// The receiving loop of `sub` for any sample type: `peek` gives a serialized sample's
/// (seq, keyval, size), `None` for one it refuses (counted as neither received nor lost).
pub fn subscribe_samples<T: TopicType>(
    o: &PerfOptions,
    mut peek: impl FnMut(&[u8]) -> Option<(u32, u32, usize)> + Send + 'static,
) -> Result<bool, Box<dyn std::error::Error>> {
    let dp = o.participant()?;
    let topic = o.topic::<T>(&dp, "Data");
    let reader = dp
        .create_subscriber(SubscriberQos::default())
        .create_datareader(&topic, o.data_reader_qos())?;
    println!(
        "sub: {} {}, waiting up to {} s for a writer",
        topic.name(),
        o.qos_summary(),
        MATCH_TIMEOUT.as_secs()
    );
    let start = Instant::now();
    let counts = Arc::new(Counts::default());
    let tail = Arc::new(RwLock::new(Tail::default()));
    let stop = Arc::new(AtomicBool::new(false));
    {
        let (counts, stop, tail) = (Arc::clone(&counts), Arc::clone(&stop), Arc::clone(&tail));
        let mut continuity = Continuity::default();
        reader.set_listener_serialized(move |changes, _| {
            let (mut n, mut bytes, mut lost) = (0u64, 0u64, 0u64);
            if let Ok(mut t) = tail.write() {
                for c in &changes {
                    t.received(c.writer_guid, c.sequence_number.0);
                }
            }
            let alive = changes
                .iter()
                .filter(|c| c.kind == ChangeKind::Alive)
                .count();
            let not_alive = changes.len().saturating_sub(alive) as u64;
            counts.not_alive.fetch_add(not_alive, Ordering::AcqRel);
            for c in changes.iter().filter(|c| c.kind == ChangeKind::Alive) {
                let Some((seq, keyval, size)) = peek(&c.data) else {
                    eprintln!(
                        "sub: sample from {} refused (undecodable or not as expected)",
                        c.writer_guid
                    );
                    continue;
                };
                let (new, gap) = continuity.observe(c.writer_guid, keyval, seq);
                lost += gap;
                if new {
                    n += 1;
                    bytes += size as u64;
                }
            }
            let now = u64::try_from(start.elapsed().as_nanos())
                .unwrap_or(u64::MAX)
                .max(1);
            let _ = counts
                .first_ns
                .compare_exchange(0, now, Ordering::AcqRel, Ordering::Acquire);
            counts.last_ns.store(now, Ordering::Release);
            counts.lost.fetch_add(lost, Ordering::AcqRel);
            counts.bytes.fetch_add(bytes, Ordering::AcqRel);
            counts.samples.fetch_add(n, Ordering::AcqRel);
            !stop.load(Ordering::Acquire)
        })?;
    }
    if reader.wait_for_matched(1, MATCH_TIMEOUT).is_err() {
        println!("sub: no writer matched within {MATCH_TIMEOUT:?}");
        Meter::new("sub").summary(1.0);
        return Ok(false);
    }
    let mut meter = Meter::new("sub");
    let (mut seen, mut seen_bytes, mut seen_lost) = (0u64, 0u64, 0u64);
    let mut last_matched_check = Instant::now();
    let mut stream_ended = false;
    loop {
        std::thread::sleep(Duration::from_millis(50));
        if o.reliable {
            // Asked before taking the lock: the listener takes it on the event loop, which
            // answers this question.
            let announced = reader.matched_writers_last_sn()?;
            if let Ok(mut t) = tail.write() {
                for (w, sn) in announced {
                    t.announced(w, sn);
                }
            }
        }
        let (n, bytes, lost) = (
            counts.samples.load(Ordering::Acquire),
            counts.bytes.load(Ordering::Acquire),
            counts.lost.load(Ordering::Acquire),
        );
        if seen == 0 && n > 0 {
            meter.restart();
        }
        meter.record(n - seen, bytes - seen_bytes, lost - seen_lost);
        (seen, seen_bytes, seen_lost) = (n, bytes, lost);
        meter.tick();
        let first = counts.first_ns.load(Ordering::Acquire);
        let last = counts.last_ns.load(Ordering::Acquire);
        let now = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        if o.count.is_some_and(|c| n >= c) {
            break;
        }
        if first > 0
            && o.duration
                .is_some_and(|d| now.saturating_sub(first) as f64 / 1e9 >= d)
        {
            break;
        }
        let idle = Duration::from_nanos(now.saturating_sub(last));
        if let Some(limit) = o.idle_timeout {
            // --idle-timeout: the stream may pause (a restarting router); only this long
            // without data ends it.
            if first > 0 && idle >= limit {
                stream_ended = true;
                break;
            }
        } else if first > 0
            && idle >= IDLE_UNMATCHED
            && last_matched_check.elapsed() >= IDLE_UNMATCHED
        {
            last_matched_check = Instant::now();
            if reader.matched_publications()? == 0 || idle >= IDLE_MAX {
                // The stream ended (not our --count or --duration): what its writers
                // announced and we never got is lost at the tail.
                stream_ended = true;
                break;
            }
        }
        if first == 0
            && o.duration
                .is_some_and(|d| start.elapsed().as_secs_f64() >= d + MATCH_TIMEOUT.as_secs_f64())
        {
            break;
        }
    }
    stop.store(true, Ordering::Release);
    let c = reader.counters()?;
    println!(
        "sub: {} received, {} duplicates, {} rejected, {} out of window, {} ACKNACKs, {} not alive",
        c.samples_received,
        c.duplicates,
        c.samples_rejected,
        c.out_of_window,
        c.acknacks_sent,
        counts.not_alive.load(Ordering::Acquire)
    );
    println!("sub: {}", spoof_line(&dp.stats()?));
    let (first, last) = (
        counts.first_ns.load(Ordering::Acquire),
        counts.last_ns.load(Ordering::Acquire),
    );
    let tail_lost = match stream_ended {
        true => tail.read().map_or(0, |t| t.lost()),
        false => 0,
    };
    if tail_lost > 0 {
        println!(
            "sub: {tail_lost} samples lost at the tail (announced by the writers' HEARTBEATs, never received)"
        );
        meter.record(0, 0, tail_lost);
    }
    meter.summary(last.saturating_sub(first) as f64 / 1e9);
    let strict = o.reliable && o.history.is_none();
    Ok(first > 0 && !(strict && meter.lost() > 0))
}

/// The source-validation counters of a participant (`docs/security.md` §6), one line.
pub fn spoof_line(s: &siftdds::core::participant::ParticipantStats) -> String {
    format!(
        "{} submessages from a foreign source dropped, {} participants re-bound",
        s.foreign_source, s.rebound
    )
}

#[cfg(test)]
mod tests;
