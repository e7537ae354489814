//! `siftdds perf ping` and `pong`: round trips of one KeyedSeq sample over
//! `DDSPerf{R,U}PingKS` and `DDSPerf{R,U}PongKS`, KEEP_LAST 1 as `ddsperf`.
//!
//! Must not: count a round trip for a stale echo (only the echo of the outstanding `seq`).
//!
//! `ddsperf` puts each pinger's pong reader in a partition named after its participant GUID
//! (`xxxxxxxx_xxxxxxxx_xxxxxxxx_xxxxxxxx`, hex) and the ponger writes pongs into it; our
//! pinger does the same, and our ponger writes into the partition pattern `*`, which matches
//! every pinger's partition (DDS 1.4 §2.2.3.13).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use siftdds::api::{DataReader, DataWriter};
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
    for (i, b) in prefix.0.iter().chain(EntityId::PARTICIPANT.0.iter()).enumerate() {
        if i > 0 && i % 4 == 0 {
            s.push('_');
        }
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// `ping`: round trips until `--count` or `--duration`; true when at least one completed.
pub fn ping(o: &PerfOptions) -> Result<bool, Box<dyn std::error::Error>> {
    let dp = o.participant()?;
    let ping_topic = o.topic::<KeyedSeq>(&dp, "Ping");
    let pong_topic = o.topic::<KeyedSeq>(&dp, "Pong");
    let writer = dp
        .create_publisher(PublisherQos::default())
        .create_datawriter_with_fragment_size(&ping_topic, o.ping_writer_qos(), o.fragment_size)?;
    writer.set_pipelined(o.batch);
    let sub_qos = SubscriberQos { partition: Partition::new([guid_partition(dp.guid_prefix())]), ..SubscriberQos::default() };
    let reader = dp.create_subscriber(sub_qos).create_datareader(&pong_topic, o.ping_reader_qos())?;
    println!("ping: {} size {}, waiting for a ponger", ping_topic.name(), o.size);
    if writer.wait_for_matched(1, MATCH_TIMEOUT).is_err() || reader.wait_for_matched(1, MATCH_TIMEOUT).is_err() {
        println!("ping: no ponger matched within {MATCH_TIMEOUT:?}");
        return Ok(false);
    }
    let mut sample = KeyedSeq { seq: 0, keyval: 0, baggage: vec![0xee; o.size.saturating_sub(FIXED_SIZE)] };
    if o.batch && o.rate.is_none() {
        return ping_from_listener(o, &writer, &reader, sample);
    }
    let mut lat = Latencies::default();
    let start = Instant::now();
    let mut next_report = start + Duration::from_secs(1);
    let mut timeouts = 0u64;
    loop {
        if o.count.is_some_and(|n| lat.count() as u64 >= n)
            || o.duration.is_some_and(|d| start.elapsed().as_secs_f64() >= d)
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
            if echoes.iter().any(|s| s.value.as_ref().is_some_and(|v| v.seq == sample.seq)) {
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
        let (outstanding, sent_at, stop) = (Arc::clone(&outstanding), Arc::clone(&sent_at), Arc::clone(&stop));
        let (w, mut next) = (writer.guid(), sample.clone());
        reader.set_listener(move |echoes, ctx| {
            for v in echoes.into_iter().filter_map(|s| s.value) {
                if v.seq != outstanding.load(Ordering::Acquire) {
                    continue;
                }
                let now = since_base();
                if rtts.send(now.saturating_sub(sent_at.load(Ordering::Acquire))).is_err() || stop.load(Ordering::Acquire) {
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
        if o.count.is_some_and(|n| lat.count() as u64 >= n) || o.duration.is_some_and(|d| start.elapsed().as_secs_f64() >= d) {
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
    let ping_topic = o.topic::<KeyedSeq>(&dp, "Ping");
    let pong_topic = o.topic::<KeyedSeq>(&dp, "Pong");
    let reader = dp.create_subscriber(SubscriberQos::default()).create_datareader(&ping_topic, o.ping_reader_qos())?;
    let pub_qos = PublisherQos { partition: Partition::new(["*"]), ..PublisherQos::default() };
    let writer = dp
        .create_publisher(pub_qos)
        .create_datawriter_with_fragment_size(&pong_topic, o.ping_writer_qos(), o.fragment_size)?;
    writer.set_pipelined(o.batch);
    println!("pong: echoing {} on {}", ping_topic.name(), pong_topic.name());
    // Echo on the event-loop thread (a listener): the pong leaves in the wakeup that
    // received the ping. `--batch off` echoes from this thread instead (two hand-offs more).
    let echoed = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    if o.batch {
        let (w, n, stop) = (writer.guid(), Arc::clone(&echoed), Arc::clone(&stop));
        reader.set_listener(move |samples, ctx| {
            for v in samples.into_iter().filter_map(|s| s.value) {
                if let Err(e) = ctx.write(w, &v) {
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
            for v in reader.wait_take(Duration::from_millis(100))?.into_iter().filter_map(|s| s.value) {
                writer.write(&v)?;
                echoed.fetch_add(1, Ordering::Relaxed);
            }
        }
        let n = echoed.load(Ordering::Relaxed);
        if n != last_count {
            (last_count, last_change) = (n, Instant::now());
        }
        if o.duration.is_some_and(|d| start.elapsed().as_secs_f64() >= d) || o.count.is_some_and(|c| n >= c) {
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
mod tests {
    use super::*;

    #[test]
    fn guid_partition_is_ddsperfs_format() {
        let p = guid_partition(GuidPrefix([0x01, 0x10, 0xab, 0xcd, 0, 0, 0, 1, 0xff, 0, 0, 2]));
        assert_eq!(p, "0110abcd_00000001_ff000002_000001c1");
    }
}
