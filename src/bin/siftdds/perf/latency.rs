//! `siftdds perf ping` and `pong`: round trips of one KeyedSeq sample over
//! `DDSPerf{R,U}PingKS` and `DDSPerf{R,U}PongKS`, KEEP_LAST 1 as `ddsperf`.
//!
//! Must not: count a round trip for a stale echo (only the echo of the outstanding `seq`).
//!
//! `ddsperf` puts each pinger's pong reader in a partition named after its participant GUID
//! (`xxxxxxxx_xxxxxxxx_xxxxxxxx_xxxxxxxx`, hex) and the ponger writes pongs into it; our
//! pinger does the same, and our ponger writes into the partition pattern `*`, which matches
//! every pinger's partition (DDS 1.4 §2.2.3.13).

use std::time::{Duration, Instant};

use siftdds::qos::{Partition, PublisherQos, SubscriberQos};
use siftdds::wire::{EntityId, GuidPrefix};

use super::report::Latencies;
use super::{KeyedSeq, MATCH_TIMEOUT, PerfOptions, keyed_seq::FIXED_SIZE};

/// A ping not answered within this long is sent again (KEEP_LAST 1 may drop it).
const PING_TIMEOUT: Duration = Duration::from_secs(1);
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
    let start = Instant::now();
    let mut last_ping: Option<Instant> = None;
    let mut echoed = 0u64;
    loop {
        for s in reader.wait_take(Duration::from_millis(100))? {
            if let Some(v) = s.value {
                writer.write(&v)?;
                echoed += 1;
                last_ping = Some(Instant::now());
            }
        }
        if o.duration.is_some_and(|d| start.elapsed().as_secs_f64() >= d)
            || o.count.is_some_and(|n| echoed >= n)
        {
            break;
        }
        if last_ping.is_some_and(|t| t.elapsed() >= PONG_IDLE) && reader.matched_publications()? == 0 {
            break;
        }
    }
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
