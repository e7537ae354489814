//! What the router's transcoding step costs per sample (`types::transcode`, used by
//! `router::transcode`): a ShapeType sample re-serialized from XCDR1 to XCDR2 and back, with
//! no additional payload (the vendors' shapes demo size) and with 1 KiB of it, and the key
//! of a sample taken for the router's key store (`transcode::sample_key`).
//!
//! Must not: fail (it reports numbers only, docs/conventions.md §5), touch sockets or clocks
//! (criterion keeps time), or use crate internals: only the public API.
//!
//! Run: `cargo bench --bench transcode -- --warm-up-time 1 --measurement-time 3`.

// Test code over real sockets and processes: it indexes and counts what it built itself and
// unwraps what must work; the parse-path lints of the workspace are siftdds-proto's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::hint::black_box;

use criterion::Criterion;
use siftdds::cdr::Endianness;
use siftdds::types::transcode::{sample_key, transcode};
use siftdds::types::{ShapeType, TopicType, XcdrVersion};

fn shape(payload: usize) -> ShapeType {
    ShapeType {
        color: "BLUE".into(),
        x: 10,
        y: 20,
        shapesize: 30,
        additional_payload_size: vec![7; payload],
    }
}

fn bench_transcode(c: &mut Criterion) {
    let d = ShapeType::descriptor();
    let mut g = c.benchmark_group("transcode");
    for (id, size) in [("shape", 0), ("shape_1k", 1024)] {
        let s = shape(size);
        let x1 = s
            .serialize_as(XcdrVersion::Xcdr1, Endianness::Little)
            .expect("XCDR1");
        let x2 = s
            .serialize_as(XcdrVersion::Xcdr2, Endianness::Little)
            .expect("XCDR2");
        g.bench_function(format!("{id}/xcdr1_to_xcdr2"), |b| {
            b.iter(|| transcode(black_box(&x1), d, XcdrVersion::Xcdr2, Endianness::Little))
        });
        g.bench_function(format!("{id}/xcdr2_to_xcdr1"), |b| {
            b.iter(|| transcode(black_box(&x2), d, XcdrVersion::Xcdr1, Endianness::Little))
        });
        g.bench_function(format!("{id}/byte_swap"), |b| {
            b.iter(|| transcode(black_box(&x1), d, XcdrVersion::Xcdr1, Endianness::Big))
        });
        g.bench_function(format!("{id}/sample_key"), |b| {
            b.iter(|| sample_key(black_box(&x1), d))
        });
    }
    g.finish();
}

/// Runs every group, then prints criterion's summary.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench_transcode(&mut c);
    Criterion::default().configure_from_args().final_summary();
}
