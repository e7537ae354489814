//! `siftdds perf ping` and `pong`: round trips of one KeyedSeq sample over
//! `DDSPerf{R,U}PingKS` and `DDSPerf{R,U}PongKS`, KEEP_LAST 1 as `ddsperf`.
//!
//! Must not: count a round trip for a stale echo (only the echo of the outstanding `seq`).
//!
//! `ddsperf` puts each pinger's pong reader in a partition named after its participant GUID
//! (`xxxxxxxx_xxxxxxxx_xxxxxxxx_xxxxxxxx`, hex) and the ponger writes pongs into it; our
//! pinger does the same, and our ponger writes into the partition pattern `*`, which matches
//! every pinger's partition (DDS 1.4 §2.2.3.13).
//!
//! Like every `ddsperf` process, each side also has the other side's two endpoints, idle:
//! `ddsperf` expects a ping and a pong reader and writer of every participant announcing its
//! `DDSPerf:` USER_DATA and fails the run otherwise. The pong goes out with the ping's source
//! timestamp, as `ddsperf`'s pong does (`dds_write_ts`): its pinger takes the round trip from
//! that timestamp and pings again at once only for a pong whose timestamp has the lowest bit
//! set, as its own pings have (echoed unchanged here).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use siftdds::api::{DataReader, DataWriter, DomainParticipant, Topic};
use siftdds::qos::{Partition, PublisherQos, SubscriberQos};
use siftdds::wire::{EntityId, GuidPrefix};

use super::report::Latencies;
use super::{KeyedSeq, MATCH_TIMEOUT, PerfOptions, keyed_seq::FIXED_SIZE};

/// A ping not answered within this long is sent again (KEEP_LAST 1 may drop it).
const PING_TIMEOUT: Duration = Duration::from_secs(1);
/// How often the listener-driven pinger collects the round trips.
const COLLECT_EVERY: Duration = Duration::from_millis(20);
/// The ponger stops this long after the last ping once the pinger is gone.
const PONG_IDLE: Duration = Duration::from_secs(1);

/// `ddsperf`'s partition name for a participant's pong reader.
fn guid_partition(prefix: GuidPrefix) -> String {
    let mut s = String::with_capacity(35);
    for (i, b) in prefix
        .0
        .iter()
        .chain(EntityId::PARTICIPANT.0.iter())
        .enumerate()
    {
        if i > 0 && i % 4 == 0 {
            s.push('_');
        }
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The ping writer and the pong reader (a pinger's) or the ping reader and the pong writer (a
/// ponger's), created together with the other pair, idle (see the module header).
struct Endpoints {
    ping_writer: DataWriter<KeyedSeq>,
    ping_reader: DataReader<KeyedSeq>,
    pong_writer: DataWriter<KeyedSeq>,
    pong_reader: DataReader<KeyedSeq>,
}

impl Endpoints {
    fn new(
        o: &PerfOptions,
        dp: &DomainParticipant,
    ) -> Result<(Self, Topic<KeyedSeq>), siftdds::api::Error> {
        let ping_topic = o.topic::<KeyedSeq>(dp, "Ping");
        let pong_topic = o.topic::<KeyedSeq>(dp, "Pong");
        let writer = |partition: Option<&str>, topic: &Topic<KeyedSeq>| {
            let qos = PublisherQos {
                partition: Partition::new(partition),
                ..PublisherQos::default()
            };
            let w = dp
                .create_publisher(qos)
                .create_datawriter_with_fragment_size(
                    topic,
                    o.ping_writer_qos(),
                    o.fragment_size,
                )?;
            w.set_pipelined(o.batch);
            Ok::<_, siftdds::api::Error>(w)
        };
        let reader = |partition: Option<String>, topic: &Topic<KeyedSeq>| {
            let qos = SubscriberQos {
                partition: Partition::new(partition),
                ..SubscriberQos::default()
            };
            dp.create_subscriber(qos)
                .create_datareader(topic, o.ping_reader_qos())
        };
        let endpoints = Endpoints {
            ping_writer: writer(None, &ping_topic)?,
            ping_reader: reader(None, &ping_topic)?,
            pong_writer: writer(Some("*"), &pong_topic)?,
            pong_reader: reader(Some(guid_partition(dp.guid_prefix())), &pong_topic)?,
        };
        Ok((endpoints, ping_topic))
    }
}

/// `ping`: round trips until `--count` or `--duration`; true when at least one completed.
pub fn ping(o: &PerfOptions) -> Result<bool, Box<dyn std::error::Error>> {
    let dp = o.participant()?;
    let created = Instant::now();
    // The idle pair is bound (not `..`): it must live as long as the run.
    let (
        Endpoints {
            ping_writer: writer,
            pong_reader: reader,
            ping_reader: _idle_r,
            pong_writer: _idle_w,
        },
        ping_topic,
    ) = Endpoints::new(o, &dp)?;
    println!(
        "ping: {} size {}, waiting for a ponger",
        ping_topic.name(),
        o.size
    );
    if writer.wait_for_matched(1, MATCH_TIMEOUT).is_err()
        || reader.wait_for_matched(1, MATCH_TIMEOUT).is_err()
    {
        println!("ping: no ponger matched within {MATCH_TIMEOUT:?}");
        return Ok(false);
    }
    // Discovery, and under DDS Security the handshake and key exchange too.
    println!(
        "ping: matched {:.1} ms after the participant was created",
        created.elapsed().as_secs_f64() * 1e3
    );
    let mut sample = KeyedSeq {
        seq: 0,
        keyval: 0,
        baggage: vec![0xee; o.size.saturating_sub(FIXED_SIZE)],
    };
    if o.batch && o.rate.is_none() {
        return ping_from_listener(o, &writer, &reader, sample);
    }
    let mut lat = Latencies::default();
    let start = Instant::now();
    let mut next_report = start + Duration::from_secs(1);
    let mut timeouts = 0u64;
    loop {
        if o.count.is_some_and(|n| lat.count() as u64 >= n)
            || o.duration
                .is_some_and(|d| start.elapsed().as_secs_f64() >= d)
        {
            break;
        }
        if let Some(rate) = o.rate {
            let due = start + Duration::from_secs_f64(f64::from(sample.seq) / rate);
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
        }
        let sent = Instant::now();
        writer.write(&sample)?;
        let answered = loop {
            let left = PING_TIMEOUT.saturating_sub(sent.elapsed());
            if left.is_zero() {
                break false;
            }
            let echoes = reader.wait_take(left)?;
            if echoes
                .iter()
                .any(|s| s.value.as_ref().is_some_and(|v| v.seq == sample.seq))
            {
                break true;
            }
        };
        if answered {
            lat.record(sent.elapsed());
        } else {
            timeouts += 1;
        }
        sample.seq = sample.seq.wrapping_add(1);
        if Instant::now() >= next_report {
            lat.report_interval(start.elapsed().as_secs_f64());
            next_report += Duration::from_secs(1);
        }
    }
    if timeouts > 0 {
        println!("ping: {timeouts} pings timed out and were sent again");
    }
    lat.summary();
    Ok(lat.count() > 0)
}

/// `ping` as `ddsperf` does it: the next ping is written by the pong reader's listener, on
/// the event-loop thread that received the pong; this thread only collects the round trips
/// (and re-sends a ping lost for [`PING_TIMEOUT`]).
fn ping_from_listener(
    o: &PerfOptions,
    writer: &DataWriter<KeyedSeq>,
    reader: &DataReader<KeyedSeq>,
    mut sample: KeyedSeq,
) -> Result<bool, Box<dyn std::error::Error>> {
    let base = Instant::now();
    let since_base = move || u64::try_from(base.elapsed().as_nanos()).unwrap_or(u64::MAX);
    let outstanding = Arc::new(AtomicU32::new(0));
    let sent_at = Arc::new(AtomicU64::new(since_base()));
    let stop = Arc::new(AtomicBool::new(false));
    let (rtts, rtts_rx) = mpsc::channel::<u64>();
    {
        let (outstanding, sent_at, stop) = (
            Arc::clone(&outstanding),
            Arc::clone(&sent_at),
            Arc::clone(&stop),
        );
        let (w, mut next) = (writer.guid(), sample.clone());
        reader.set_listener(move |echoes, ctx| {
            for v in echoes.into_iter().filter_map(|s| s.value) {
                if v.seq != outstanding.load(Ordering::Acquire) {
                    continue;
                }
                let now = since_base();
                if rtts
                    .send(now.saturating_sub(sent_at.load(Ordering::Acquire)))
                    .is_err()
                    || stop.load(Ordering::Acquire)
                {
                    return false;
                }
                next.seq = v.seq.wrapping_add(1);
                outstanding.store(next.seq, Ordering::Release);
                sent_at.store(since_base(), Ordering::Release);
                if let Err(e) = ctx.write(w, &next) {
                    eprintln!("ping: {e}");
                }
            }
            true
        })?;
    }
    writer.write(&sample)?;
    let mut lat = Latencies::default();
    let start = Instant::now();
    let mut next_report = start + Duration::from_secs(1);
    let mut timeouts = 0u64;
    let mut last_rtt = Instant::now();
    loop {
        if o.count.is_some_and(|n| lat.count() as u64 >= n)
            || o.duration
                .is_some_and(|d| start.elapsed().as_secs_f64() >= d)
        {
            break;
        }
        // Collect by polling, not by blocking on the channel: a blocked receiver would be
        // woken by every round trip, a context switch that competes with the loop thread.
        std::thread::sleep(COLLECT_EVERY);
        let before = lat.count();
        for ns in rtts_rx.try_iter() {
            lat.record(Duration::from_nanos(ns));
            if o.count.is_some_and(|n| lat.count() as u64 >= n) {
                break;
            }
        }
        if lat.count() > before {
            last_rtt = Instant::now();
        } else if last_rtt.elapsed() >= PING_TIMEOUT {
            timeouts += 1;
            last_rtt = Instant::now();
            sample.seq = outstanding.load(Ordering::Acquire).wrapping_add(1);
            outstanding.store(sample.seq, Ordering::Release);
            sent_at.store(since_base(), Ordering::Release);
            writer.write(&sample)?;
        }
        if Instant::now() >= next_report {
            lat.report_interval(start.elapsed().as_secs_f64());
            next_report += Duration::from_secs(1);
        }
    }
    stop.store(true, Ordering::Release);
    if timeouts > 0 {
        println!("ping: {timeouts} pings timed out and were sent again");
    }
    lat.summary();
    Ok(lat.count() > 0)
}

/// `pong`: echoes every ping until `--duration` passes or the pinger has gone.
pub fn pong(o: &PerfOptions) -> Result<bool, Box<dyn std::error::Error>> {
    let dp = o.participant()?;
    let (
        Endpoints {
            ping_reader: reader,
            pong_writer: writer,
            ping_writer: _idle_w,
            pong_reader: _idle_r,
        },
        ping_topic,
    ) = Endpoints::new(o, &dp)?;
    println!(
        "pong: echoing {} on {}",
        ping_topic.name(),
        o.topic_name("Pong")
    );
    // Echo on the event-loop thread (a listener): the pong leaves in the wakeup that
    // received the ping. `--batch off` echoes from this thread instead (two hand-offs more).
    let echoed = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    if o.batch {
        let (w, n, stop) = (writer.guid(), Arc::clone(&echoed), Arc::clone(&stop));
        reader.set_listener(move |samples, ctx| {
            for (v, ts) in samples
                .into_iter()
                .filter_map(|s| Some((s.value?, s.info.source_timestamp)))
            {
                let written = match ts {
                    Some(ts) => ctx.write_w_timestamp(w, &v, ts),
                    None => ctx.write(w, &v),
                };
                if let Err(e) = written {
                    eprintln!("pong: {e}");
                }
                n.fetch_add(1, Ordering::Relaxed);
            }
            !stop.load(Ordering::Relaxed)
        })?;
    }
    let start = Instant::now();
    let mut last_count = 0;
    let mut last_change = Instant::now();
    loop {
        if o.batch {
            std::thread::sleep(Duration::from_millis(50));
        } else {
            for s in reader.wait_take(Duration::from_millis(100))? {
                match (s.value, s.info.source_timestamp) {
                    (Some(v), Some(ts)) => writer.write_w_timestamp(&v, ts)?,
                    (Some(v), None) => writer.write(&v)?,
                    (None, _) => continue,
                }
                echoed.fetch_add(1, Ordering::Relaxed);
            }
        }
        let n = echoed.load(Ordering::Relaxed);
        if n != last_count {
            (last_count, last_change) = (n, Instant::now());
        }
        if o.duration
            .is_some_and(|d| start.elapsed().as_secs_f64() >= d)
            || o.count.is_some_and(|c| n >= c)
        {
            break;
        }
        if n > 0 && last_change.elapsed() >= PONG_IDLE && reader.matched_publications()? == 0 {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let echoed = echoed.load(Ordering::Relaxed);
    println!("summary: samples={echoed}");
    Ok(echoed > 0)
}

#[cfg(test)]
mod tests;
