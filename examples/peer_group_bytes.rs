//! Upstream bytes per sample: full DATA vs zstd (with and without a trained dictionary) vs the
//! peer-group cache (issue 18, docs/peer-group-cache.md), on the same synthetic samples.
//! Bytes only, no timing. Run: `cargo run --release --example peer_group_bytes`.
//!
//! Case (a): 220-byte XCDR1 samples = 4 encapsulation + 4 counter + 188 common (six strings:
//! fleet, model, standard, firmware, operator, route) + 24 varying (x, y, speed as f64): a
//! fleet-telemetry record whose descriptive strings repeat across samples. Case (b): 4 KiB common
//! (sequence<octet> of 4092) + 64 varying (counter + octet[60]).
//! Cases (a') and (b'): the samples `siftdds perf pub --common-bytes N --size M` writes
//! (`PeerGroupSeq`, the very code of `crates/cli/src/bin/siftdds/perf/peer_group_seq.rs`): one
//! common set, the write
//! time advancing 1 ms per sample, so zstd is measured on the bytes the perf run sends
//! through the router (docs/peer-group-cache.md §8).
//! Each case has `SETS` publishers (one common set each); the dictionary is trained on 1,000
//! samples and measured on 1,000 others; the cache figure includes the amortised definitions.

// An example/benchmark/test: it indexes and counts what it built itself and unwraps what must
// work; the parse-path lints of the workspace are siftdds-proto's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use siftdds::cdr::{CdrWriter, EncapsulationHeader, EncapsulationKind, Endianness};
use siftdds::core::peer_group::split::{common_segments, split};
use siftdds::core::peer_group::{group_id, key_of};
use siftdds::types::{Extensibility, Member, TypeDescriptor, TypeKind};
use siftdds::wire::{Alias, CacheKey, KeyDefinition, SequenceNumber};

/// The perf tool's sample type and generator, shared with `siftdds perf` (not a copy).
#[path = "../crates/cli/src/bin/siftdds/perf/peer_group_seq.rs"]
#[allow(dead_code)]
mod peer_group_seq;

use siftdds::types::TopicType;

const SETS: usize = 4;
const TRAIN: usize = 1000;
const MEASURE: usize = 1000;

/// xorshift64*, so the run is reproducible.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn s() -> TypeKind {
    TypeKind::String { bound: None }
}

fn type_a() -> (TypeDescriptor, Vec<String>) {
    let names = [
        "fleet", "model", "standard", "firmware", "operator", "route",
    ];
    let mut members = vec![Member::new("counter", 0, TypeKind::U32)];
    for (i, n) in names.iter().enumerate() {
        members.push(Member::new(n, i as u32 + 1, s()));
    }
    for (i, n) in ["x", "y", "speed"].iter().enumerate() {
        members.push(Member::new(n, i as u32 + 7, TypeKind::F64));
    }
    let d = TypeDescriptor {
        name: "Vehicle".into(),
        extensibility: Extensibility::Final,
        members,
    };
    (d, names.iter().map(|s| s.to_string()).collect())
}

/// A CDR_LE sample: encapsulation header, the counter `n`, then `fill`.
fn serialize(n: u32, fill: impl FnOnce(&mut CdrWriter<'_>)) -> Vec<u8> {
    let e = Endianness::Little;
    let mut v = Vec::new();
    let mut w = CdrWriter::new(&mut v, e);
    EncapsulationHeader::new(EncapsulationKind::Cdr, e).emit(&mut w);
    let mut b = w.nested();
    b.u32(n);
    fill(&mut b);
    v
}

fn sample_a(set: usize, n: u32, rng: &mut Rng) -> Vec<u8> {
    let v = serialize(n, |b| {
        // Five strings of 27 characters and one of 23: 5 × (4 + 28) + (4 + 24) = 188.
        let texts = [
            format!("fleet/north-{set:02}/depot-alpha-xx"),
            format!("model:ZX-4000-hybrid-rev{set:02}"),
            format!("std:ISO-26262-ASIL-D-2018-{set}"),
            format!("fw:v4.12.{set:02}-build-20260101"),
            format!("operator:acme-logistics-{set:03}"),
            format!("route:A12-B7-C3-hub-{set:02}"),
        ];
        for (i, t) in texts.iter().enumerate() {
            let len = if i == 5 { 23 } else { 27 };
            let mut t = t.clone().into_bytes();
            t.resize(len, b'.');
            b.string(&t);
        }
        for _ in 0..3 {
            b.align(8);
            b.u64(f64::from((rng.next() % 100_000) as u32).to_bits());
        }
    });
    assert_eq!(v.len(), 220);
    v
}

fn type_b() -> (TypeDescriptor, Vec<String>) {
    let d = TypeDescriptor {
        name: "Calibrated".into(),
        extensibility: Extensibility::Final,
        members: vec![
            Member::new("counter", 0, TypeKind::U32),
            Member::new(
                "table",
                1,
                TypeKind::Sequence {
                    elem: Box::new(TypeKind::Octet),
                    bound: None,
                },
            ),
            Member::new(
                "reading",
                2,
                TypeKind::Array {
                    elem: Box::new(TypeKind::Octet),
                    dims: vec![60],
                },
            ),
        ],
    };
    (d, vec!["table".into()])
}

fn sample_b(set: usize, n: u32, rng: &mut Rng) -> Vec<u8> {
    let v = serialize(n, |b| {
        b.u32(4092);
        let mut t = Rng(0x9e37_79b9 ^ (set as u64 + 1));
        for _ in 0..4092 {
            b.u8(t.next() as u8);
        }
        for _ in 0..60 {
            b.u8(rng.next() as u8);
        }
    });
    assert_eq!(v.len(), 4 + 4 + 4096 + 60);
    v
}

fn zstd_mean(samples: &[Vec<u8>], level: i32, dict: Option<&[u8]>) -> f64 {
    let mut c = match dict {
        Some(d) => zstd::bulk::Compressor::with_dictionary(level, d).unwrap(),
        None => zstd::bulk::Compressor::new(level).unwrap(),
    };
    let total: usize = samples.iter().map(|s| c.compress(s).unwrap().len()).sum();
    total as f64 / samples.len() as f64
}

fn run(
    name: &str,
    sets: usize,
    desc: &TypeDescriptor,
    common: &[String],
    make: &dyn Fn(usize, u32, &mut Rng) -> Vec<u8>,
) {
    let mut rng = Rng(42);
    let all: Vec<Vec<u8>> = (0..TRAIN + MEASURE)
        .map(|i| make(i % sets, i as u32, &mut rng))
        .collect();
    let (train, measure) = all.split_at(TRAIN);
    let full = measure.iter().map(Vec::len).sum::<usize>() as f64 / MEASURE as f64;
    let dict = zstd::dict::from_samples(train, 4096).unwrap();
    // Peer-group cache: per sample the key + rest; per distinct set one definition PID
    // (4-byte parameter header + value) on top of a full sample.
    let group = group_id("bench");
    // Each set is one writer with its own SNs; its definition's SN is what the alias names.
    let mut seen: Vec<(CacheKey, i64)> = Vec::new();
    let mut next_sn = vec![1i64; sets];
    let (mut cache_bytes, mut alias_bytes, mut rest_bytes) = (0usize, 0usize, 0usize);
    for (i, s) in measure.iter().enumerate() {
        let writer = (TRAIN + i) % sets;
        let sn = next_sn[writer];
        next_sn[writer] += 1;
        let segs = common_segments(desc, common, s).unwrap();
        let (p, rest) = split(s, segs).unwrap();
        let key = key_of(group, 1, 0x1234, &p);
        if let Some((_, def_sn)) = seen.iter().find(|(k, _)| *k == key) {
            let alias = Alias::for_definition(SequenceNumber(*def_sn), SequenceNumber(sn))
                .map_or(siftdds::wire::SHORT_KEY_LEN, |a| a.len());
            cache_bytes += siftdds::wire::SHORT_KEY_LEN + rest.len();
            alias_bytes += alias + rest.len();
            rest_bytes += rest.len();
        } else {
            let def = KeyDefinition::new(key, p.segments.clone()).unwrap();
            cache_bytes += s.len() + 4 + def.buffer_len();
            alias_bytes += s.len() + 4 + def.buffer_len();
            seen.push((key, sn));
        }
    }
    let cache = cache_bytes as f64 / MEASURE as f64;
    let aliased = alias_bytes as f64 / MEASURE as f64;
    println!(
        "## {name}: {MEASURE} samples, {sets} common sets, dictionary 4 KiB from {TRAIN} others"
    );
    println!("| method | bytes/sample | % of full |");
    println!("|---|---:|---:|");
    let row = |m: &str, b: f64| println!("| {m} | {b:.1} | {:.1} % |", 100.0 * b / full);
    row("full serialized sample", full);
    row("zstd -3, no dictionary", zstd_mean(measure, 3, None));
    row("zstd -3 + dictionary", zstd_mean(measure, 3, Some(&dict)));
    row("zstd -19 + dictionary", zstd_mean(measure, 19, Some(&dict)));
    row(
        "peer-group cache, before: 8 B short key + rest, definitions amortised",
        cache,
    );
    row(
        "peer-group cache: alias (1-2 B) + rest, definitions amortised",
        aliased,
    );
    row(
        "  of which rest only (steady state, without the key)",
        rest_bytes as f64 / (MEASURE - seen.len()) as f64,
    );
    println!(
        "(submessage framing not counted above: DATA adds 24 B, the abbreviated submessage 20 B)"
    );
    let framing = 20.0 * (MEASURE - seen.len()) as f64 / MEASURE as f64
        + 24.0 * seen.len() as f64 / MEASURE as f64;
    println!(
        "on the wire per sample: full DATA {:.1}, zstd+dict (-3) in a DATA {:.1}, \
         peer-group short key {:.1}, alias {:.1}\n",
        full + 24.0,
        zstd_mean(measure, 3, Some(&dict)) + 24.0,
        cache + framing,
        aliased + framing
    );
}

fn main() {
    let (a, ca) = type_a();
    run("(a) 220 B samples, 188 B common", SETS, &a, &ca, &sample_a);
    let (b, cb) = type_b();
    run("(b) 4 KiB common + 64 B varying", SETS, &b, &cb, &sample_b);
    let common = [peer_group_seq::COMMON_MEMBER.to_string()];
    for (name, common_bytes, size) in [
        (
            "(a') perf pub --common-bytes 188 --size 28 (PeerGroupSeq, 220 B)",
            188,
            28,
        ),
        (
            "(b') perf pub --common-bytes 4096 --size 64 (PeerGroupSeq, 4164 B)",
            4096,
            64,
        ),
    ] {
        let shape = peer_group_seq::Shape::new(common_bytes, size, 0).unwrap();
        // One writer, one common set: as the perf run.
        let make = |_set: usize, n: u32, _rng: &mut Rng| {
            let stamp = 1_764_633_600_000_000_000 + u64::from(n) * 1_000_000;
            shape
                .sample(n, 0, stamp)
                .serialize(siftdds::cdr::Endianness::Little)
        };
        run(
            name,
            1,
            peer_group_seq::PeerGroupSeq::type_descriptor(),
            &common,
            &make,
        );
    }
}
