//! `siftdds perf pub|sub --common-bytes N [--peer-group G]`: PeerGroupSeq samples (`peer_group_seq.rs`)
//! for the peer-group caching benchmarks (issue 18, docs/peer-group-cache.md §8). The
//! publisher, with `--peer-group G`, is a member of group G (every participant a member,
//! common member `common`, intermediary `siftdds-router-*`, as a `[[peer_group]]` of
//! `siftdds router` configures the other side) and prints its upstream counters; the
//! subscriber rebuilds every sample it receives and compares it byte for byte, and prints
//! the one-way latency from the write time the sample carries (the processes of one host
//! share its clock, netns-sites namespaces included).
//!
//! Must not: report a figure it did not measure (the bytes come from the writer's own
//! counters, the latency from the samples' own stamps).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{SystemTime, UNIX_EPOCH};

use siftdds::api::{ParticipantMatch, PeerGroup};
use siftdds::cdr::Endianness;
use siftdds::types::TopicType;

use super::PerfOptions;
use super::peer_group_seq::{COMMON_MEMBER, PeerGroupSeq, Shape};
use super::report::percentiles;
use super::throughput::{publish_samples, subscribe_samples};

/// One-way latencies a subscriber keeps at most (the first ones; 8 MB).
const MAX_LATENCIES: usize = 1 << 20;

/// Nanoseconds since the UNIX epoch (0 before it).
fn wall_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

fn shape(o: &PerfOptions) -> Result<Shape, Box<dyn std::error::Error>> {
    o.peer_group_shape
        .clone()
        .ok_or_else(|| "no --common-bytes".into())
}

/// `pub --common-bytes N [--peer-group G]`.
pub fn publish(o: &PerfOptions) -> Result<bool, Box<dyn std::error::Error>> {
    let shape = shape(o)?;
    let dp = o.participant()?;
    if let Some(g) = &o.peer_group {
        let group = PeerGroup::new(
            g,
            &o.topic_name("Data"),
            &[COMMON_MEMBER],
            ParticipantMatch::parse("siftdds-router-*"),
        )
        .member(ParticipantMatch::parse("*"));
        dp.set_peer_groups(vec![group])?;
    }
    let payload = shape.sample(0, 0, 0).serialize(Endianness::Little).len();
    println!(
        "pub: PeerGroupSeq payload {payload} bytes per sample ({} common), peer group {}",
        shape.common.len() + 4,
        o.peer_group.as_deref().unwrap_or("none")
    );
    let first = shape.sample(0, 0, wall_ns());
    let size = payload.saturating_sub(4) as u64;
    let closing = || {
        let Some(g) = &o.peer_group else {
            return Ok(());
        };
        let w = dp.peer_group_stats()?.writers;
        let pushes = w.full + w.defines + w.abbreviated;
        println!(
            "pub: peer-group {g}: full={} defines={} abbreviated={} aliased={} upstream_bytes={} \
             upstream_bytes_per_sample={:.1} (payload {payload})",
            w.full,
            w.defines,
            w.abbreviated,
            w.aliased,
            w.upstream_bytes,
            w.upstream_bytes as f64 / pushes.max(1) as f64
        );
        Ok(())
    };
    let ok = publish_samples(
        o,
        &dp,
        first,
        size,
        |s, seq| *s = shape.sample(seq, 0, wall_ns()),
        closing,
    )?;
    Ok(ok)
}

/// `sub --common-bytes N`: every sample checked against the one the shape rebuilds.
pub fn subscribe(o: &PerfOptions) -> Result<bool, Box<dyn std::error::Error>> {
    let shape = shape(o)?;
    let latencies = Arc::new(RwLock::new(Vec::<u64>::new()));
    let (differing, checked) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    // The highest seq checked, so a missing last sample (which no gap shows) is named.
    let highest = Arc::new(AtomicU64::new(0));
    let ok = {
        let (latencies, differing, checked, highest) = (
            Arc::clone(&latencies),
            Arc::clone(&differing),
            Arc::clone(&checked),
            Arc::clone(&highest),
        );
        subscribe_samples::<PeerGroupSeq>(o, move |data| match shape.check(data) {
            Ok((seq, keyval, len, stamp)) => {
                checked.fetch_add(1, Ordering::AcqRel);
                highest.fetch_max(u64::from(seq), Ordering::AcqRel);
                if let (Some(t), Ok(mut l)) = (stamp, latencies.write())
                    && l.len() < MAX_LATENCIES
                {
                    l.push(wall_ns().saturating_sub(t));
                }
                Some((seq, keyval, len.saturating_sub(4)))
            }
            Err(_) => {
                differing.fetch_add(1, Ordering::AcqRel);
                None
            }
        })?
    };
    let differing = differing.load(Ordering::Acquire);
    println!(
        "sub: {} samples byte-identical to the rebuilt ones, {differing} differing",
        checked.load(Ordering::Acquire)
    );
    println!(
        "sub: highest seq checked {}",
        highest.load(Ordering::Acquire)
    );
    let mut l = latencies.write().map(|l| l.clone()).unwrap_or_default();
    let p = percentiles(&mut l);
    println!(
        "sub: one-way latency samples={} p50_us={:.1} p90_us={:.1} p99_us={:.1} max_us={:.1}",
        l.len(),
        p[0],
        p[1],
        p[2],
        p[3]
    );
    Ok(ok && differing == 0)
}
