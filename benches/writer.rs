//! Writer-side filtering CPU per sample with 1, 10, 100 and 1000 filtered readers, on memo
//! hits, on memo misses and without a table; the full sans-IO `Writer::write` with and without
//! draining `poll_transmit`; and the wire hot path (emit DATA / HEARTBEAT, parse a datagram).
//!
//! Must not: fail (it reports numbers only, docs/conventions.md §5), open sockets, read clocks
//! (criterion keeps time), or reach into `core::writer` internals: only public APIs, so that it
//! keeps compiling while the send path changes.
//!
//! # Overview
//! Reader filter sets (`kind`):
//! - `colors5`: reader `i` filters `color = %0` with one of 5 colours, so N readers share 5
//!   programs and one field set (the common case the table is built for).
//! - `distinct`: reader `i` filters `x = %0` with `%0 = i`, N distinct programs (the worst
//!   case: a miss evaluates N programs; they still share one field set).
//!
//! Samples: the *hit* ring has 5 samples (one per colour, `x` in 0..5), looked up before
//! timing, so every timed lookup hits. The *miss* ring has 2 × [`DEFAULT_MEMO_CAPACITY`]
//! samples with distinct `color` and `x`, so CLOCK has evicted each before it returns.
//!
//! Groups (criterion ids `group/kind/N`):
//! - `set_eval_{hit,miss}`: [`FilterSet::evaluate`] alone (project + lookup [+ evaluate +
//!   insert]).
//! - `set_decide_{hit,miss}`: the writer's per-change filtering work without the sends, via
//!   the public API: `evaluate`, then [`FilterSet::filter_info`] + its emit (the
//!   PID_CONTENT_FILTER_INFO every DATA carries, one signature per filtered reader) and
//!   [`FilterSet::passes`] for every reader (the per-reader DATA-or-GAP decision).
//! - `set_store_{hit,miss}`: what the writer does per change since it stores a shared slot
//!   table snapshot instead of an encoded PID_CONTENT_FILTER_INFO: `evaluate` +
//!   [`FilterSet::slot_table`] (flat in N on a hit).
//! - `notable_eval`: no table: each reader's own program evaluated on the sample.
//! - `notable_decide`: the same plus the PID_CONTENT_FILTER_INFO built and emitted, the
//!   like-for-like counterpart of `set_decide_*`.
//! - `writer_write`: [`Writer::write`] timed, the drain of `poll_transmit` done untimed.
//! - `writer_write_drain`: `write` plus draining every transmit (one DATA or GAP datagram
//!   per filtered reader: the sends, without sockets).
//! - `wire`: emit a HEARTBEAT message; re-emit and parse the DATA datagram a filtering writer
//!   sends to one of its readers (INFO_DST, INFO_TS, DATA with PID_CONTENT_FILTER_INFO), id
//!   suffixed with its size in bytes.
//!
//! The writer is best effort, unkeyed and KEEP_LAST(1), so that its state stays bounded
//! across millions of writes with no ACKs (a reliable writer's heartbeat and repair work is
//! timer-driven and not per sample).
//!
//! Run: `cargo bench --bench writer -- --warm-up-time 1 --measurement-time 3`.

// An example/benchmark/test: it indexes and counts what it built itself and unwraps what must
// work; the parse-path lints of the workspace are siftdds-proto's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::cell::RefCell;
use std::hint::black_box;
use std::sync::Arc;

use bytes::Bytes;
use criterion::{BatchSize, BenchmarkId, Criterion};
use siftdds::cdr::{self, Endianness};
use siftdds::core::discovery::ContentFilter;
use siftdds::core::writer::{DEFAULT_MEMO_CAPACITY, FilterSet, Writer, WriterConfig};
use siftdds::core::{ChangeKind, RemoteReader, WriteRequest};
use siftdds::filter::{Program, parse_parameters};
use siftdds::time::{Instant, Now, Timestamp};
use siftdds::types::{ShapeType, TopicType};
use siftdds::wire::plist::ContentFilterInfo;
use siftdds::wire::submessage::{Heartbeat, Submessage, SubmessageOutcome};
use siftdds::wire::{
    EntityId, Guid, GuidPrefix, Header, Locator, Message, SequenceNumber, emit_message,
};

/// Filtered-reader counts.
const READERS: [usize; 4] = [1, 10, 100, 1000];

/// The five colours of the `colors5` set and of the hit ring.
const COLORS: [&str; 5] = ["RED", "BLUE", "GREEN", "YELLOW", "ORANGE"];

/// The topic every filter is for.
const TOPIC: &str = "Square";

/// How the readers filter.
#[derive(Copy, Clone)]
enum Kind {
    /// `color = %0`, 5 distinct parameters.
    Colors5,
    /// `x = %0`, a distinct parameter per reader.
    Distinct,
}

impl Kind {
    const ALL: [Kind; 2] = [Kind::Colors5, Kind::Distinct];

    fn name(self) -> &'static str {
        match self {
            Kind::Colors5 => "colors5",
            Kind::Distinct => "distinct",
        }
    }

    /// Reader `i`'s filter, as it would announce it in SEDP.
    fn filter(self, i: usize) -> ContentFilter {
        let (expr, param) = match self {
            Kind::Colors5 => ("color = %0", format!("'{}'", COLORS[i % COLORS.len()])),
            Kind::Distinct => ("x = %0", i.to_string()),
        };
        ContentFilter {
            content_filtered_topic_name: format!("Filtered{i}"),
            related_topic_name: TOPIC.into(),
            filter_class_name: "DDSSQL".into(),
            filter_expression: expr.into(),
            expression_parameters: vec![param],
        }
    }
}

fn descriptor() -> Arc<siftdds::types::TypeDescriptor> {
    Arc::new(ShapeType::descriptor().clone())
}

/// Reader `i`'s GUID: a distinct participant prefix per reader.
fn reader_guid(i: usize) -> Guid {
    let mut prefix = [0xab; 12];
    prefix[..8].copy_from_slice(&(i as u64).to_le_bytes());
    Guid::new(GuidPrefix(prefix), EntityId([0, 0, 1, 0x07]))
}

fn writer_guid() -> Guid {
    Guid::new(GuidPrefix([1; 12]), EntityId([0, 0, 1, 0x02]))
}

fn serialize(color: &str, x: i32, y: i32) -> Bytes {
    let s = ShapeType {
        color: color.into(),
        x,
        y,
        shapesize: 30,
        additional_payload_size: Vec::new(),
    };
    Bytes::from(s.serialize(Endianness::Little))
}

/// Five repeating samples: after one pass every lookup hits.
fn hit_ring() -> Vec<Bytes> {
    COLORS
        .iter()
        .enumerate()
        .map(|(k, c)| serialize(c, k as i32, 50))
        .collect()
}

/// Distinct samples, twice the memo capacity: every lookup misses.
fn miss_ring() -> Vec<Bytes> {
    (0..2 * DEFAULT_MEMO_CAPACITY as i32)
        .map(|i| serialize(&format!("C{i}"), i, 50))
        .collect()
}

/// A filter set with `n` readers filtering as `kind` says.
fn filter_set(kind: Kind, n: usize) -> FilterSet {
    let mut set = FilterSet::new(descriptor(), TOPIC, DEFAULT_MEMO_CAPACITY);
    for i in 0..n {
        set.set_reader_filter(reader_guid(i), Some(&kind.filter(i)))
            .expect("the bench filters compile against ShapeType");
    }
    set
}

/// Reports (never fails, docs/conventions.md §5) when a group did not measure what its name says.
fn warn_unless(ok: bool, id: &str, what: &str) {
    if !ok {
        eprintln!("warning: {id} {what}; its figure is not what the name says");
    }
}

/// A cycling cursor over a ring of samples.
struct Cycle<'a> {
    ring: &'a [Bytes],
    next: usize,
}

impl<'a> Cycle<'a> {
    fn new(ring: &'a [Bytes]) -> Self {
        Cycle { ring, next: 0 }
    }

    fn next_sample(&mut self) -> &'a Bytes {
        let s = &self.ring[self.next];
        self.next = (self.next + 1) % self.ring.len();
        s
    }
}

/// The per-change work of a filtering writer, minus the sends: the pass set, the
/// PID_CONTENT_FILTER_INFO value, and the DATA-or-GAP decision for every reader. Returns the
/// number of readers that get DATA (so nothing is optimised away).
fn decide(set: &mut FilterSet, readers: &[Guid], payload: &[u8], info_buf: &mut Vec<u8>) -> usize {
    let pass = set.evaluate(payload);
    let info = set.filter_info(&pass);
    info_buf.clear();
    info.emit(&mut cdr::CdrWriter::new(info_buf, Endianness::Little));
    readers.iter().filter(|&&r| set.passes(&pass, r)).count()
}

/// The writer's per-change work since the slot-table snapshot: `evaluate` plus the shared
/// `SlotTable` (an `Arc` clone on a hit; the PID_CONTENT_FILTER_INFO is built at send time,
/// one signature per unicast DATA). Returns the passing count (nothing optimised away).
fn store(set: &mut FilterSet, payload: &[u8]) -> usize {
    let pass = set.evaluate(payload);
    let table = set.slot_table();
    black_box(&table);
    pass.count()
}

/// `set_store_{hit,miss}`: [`store`] (what `Writer::write` now does per change).
fn bench_store(c: &mut Criterion) {
    let hits = hit_ring();
    let misses = miss_ring();
    for (table, ring) in [("hit", &hits), ("miss", &misses)] {
        let mut g = c.benchmark_group(format!("set_store_{table}"));
        for kind in Kind::ALL {
            for n in READERS {
                let mut set = filter_set(kind, n);
                let mut cycle = Cycle::new(ring);
                if table == "hit" {
                    for s in ring.iter() {
                        set.evaluate(s);
                    }
                }
                g.bench_function(BenchmarkId::new(kind.name(), n), |b| {
                    b.iter(|| store(&mut set, cycle.next_sample()))
                });
            }
        }
        g.finish();
    }
}

fn bench_filter_set(c: &mut Criterion) {
    let hits = hit_ring();
    let misses = miss_ring();
    for (table, ring) in [("hit", &hits), ("miss", &misses)] {
        for decide_too in [false, true] {
            let group = if decide_too {
                "set_decide_"
            } else {
                "set_eval_"
            };
            let mut g = c.benchmark_group(format!("{group}{table}"));
            for kind in Kind::ALL {
                for n in READERS {
                    let mut set = filter_set(kind, n);
                    let readers: Vec<Guid> = (0..n).map(reader_guid).collect();
                    let mut info_buf = Vec::new();
                    let mut cycle = Cycle::new(ring);
                    if table == "hit" {
                        for s in ring.iter() {
                            set.evaluate(s);
                        }
                    }
                    let before = set.stats();
                    g.bench_function(BenchmarkId::new(kind.name(), n), |b| {
                        b.iter(|| {
                            let s = cycle.next_sample();
                            if decide_too {
                                decide(&mut set, &readers, s, &mut info_buf)
                            } else {
                                set.evaluate(s).count()
                            }
                        })
                    });
                    let after = set.stats();
                    let new_misses = after.misses - before.misses;
                    let id = format!("{group}{table}/{}/{n}", kind.name());
                    match table {
                        "hit" => warn_unless(new_misses == 0, &id, "missed the table"),
                        _ => warn_unless(after.hits == before.hits, &id, "hit the table"),
                    }
                }
            }
            g.finish();
        }
    }
}

fn bench_no_table(c: &mut Criterion) {
    let ring = hit_ring();
    for decide_too in [false, true] {
        let group = if decide_too {
            "notable_decide"
        } else {
            "notable_eval"
        };
        let mut g = c.benchmark_group(group);
        for kind in Kind::ALL {
            for n in READERS {
                // One program per reader, each compiled from its own announcement.
                let filters: Vec<ContentFilter> = (0..n).map(|i| kind.filter(i)).collect();
                let programs: Vec<Program> = filters
                    .iter()
                    .map(|f| {
                        let params = parse_parameters(&f.expression_parameters)
                            .expect("the bench parameters parse");
                        Program::compile_expression(
                            &f.filter_expression,
                            &params,
                            ShapeType::descriptor(),
                        )
                        .expect("the bench filters compile against ShapeType")
                    })
                    .collect();
                let signatures: Vec<[u8; 16]> =
                    filters.iter().map(ContentFilter::signature).collect();
                let mut pass = vec![false; n];
                let mut info_buf = Vec::new();
                let mut cycle = Cycle::new(&ring);
                g.bench_function(BenchmarkId::new(kind.name(), n), |b| {
                    b.iter(|| {
                        let s = cycle.next_sample();
                        for (p, prog) in pass.iter_mut().zip(&programs) {
                            *p = prog.evaluate(s) == Ok(true);
                        }
                        if decide_too {
                            let mut info = ContentFilterInfo::new();
                            for (sig, &p) in signatures.iter().zip(&pass) {
                                info.push(*sig, p);
                            }
                            info_buf.clear();
                            info.emit(&mut cdr::CdrWriter::new(&mut info_buf, Endianness::Little));
                        }
                        pass.iter().filter(|&&p| p).count()
                    })
                });
            }
        }
        g.finish();
    }
}

/// A fixed instant: the benches never advance time, so no timer fires.
fn now() -> Now {
    Now {
        mono: Instant::from_nanos(1_000_000_000),
        wall: Timestamp::from_unix_nanos(1_700_000_000_000_000_000),
    }
}

/// A best-effort, unkeyed, KEEP_LAST(1) filtering writer with `n` matched best-effort
/// readers filtering as `kind` says, its initial output drained.
fn filtering_writer(kind: Kind, n: usize) -> Writer {
    let mut config = WriterConfig::new(writer_guid());
    config.reliable = false;
    config.topic_name = TOPIC.into();
    config.descriptor = Some(descriptor());
    let mut w = Writer::new(config);
    for i in 0..n {
        let ip = [10, (i >> 16) as u8, (i >> 8) as u8, i as u8];
        w.matched_reader_add(
            now(),
            RemoteReader {
                guid: reader_guid(i),
                unicast_locators: vec![Locator::udpv4(ip, 7410)],
                multicast_locators: Vec::new(),
                reliable: false,
                expects_inline_qos: false,
                wants_history: false,
            },
        );
        w.set_reader_filter(reader_guid(i), Some(&kind.filter(i)));
    }
    drain(&mut w);
    w
}

/// Pulls every pending datagram; returns the bytes produced.
fn drain(w: &mut Writer) -> usize {
    let mut bytes = 0;
    while let Some(t) = w.poll_transmit(now()) {
        bytes += t.payload.len();
    }
    bytes
}

fn write(w: &mut Writer, sample: &Bytes) {
    // invariant: a best-effort KEEP_LAST writer never refuses an ALIVE change.
    w.write(
        now(),
        WriteRequest::new(ChangeKind::Alive, None, sample.clone()),
    )
    .expect("a best-effort KEEP_LAST(1) writer accepts every write");
}

fn bench_writer(c: &mut Criterion) {
    let hits = hit_ring();
    let misses = miss_ring();
    let cases = [
        ("hit_colors5", Kind::Colors5, &hits),
        ("miss_colors5", Kind::Colors5, &misses),
        ("hit_distinct", Kind::Distinct, &hits),
    ];

    let mut g = c.benchmark_group("writer_write");
    for (name, kind, ring) in cases {
        for n in READERS {
            let w = RefCell::new(filtering_writer(kind, n));
            if name.starts_with("hit") {
                for s in ring.iter() {
                    write(&mut w.borrow_mut(), s);
                    drain(&mut w.borrow_mut());
                }
            }
            let mut cycle = Cycle::new(ring);
            g.bench_function(BenchmarkId::new(name, n), |b| {
                b.iter_batched(
                    || {
                        drain(&mut w.borrow_mut());
                        cycle.next_sample().clone()
                    },
                    |s| write(&mut w.borrow_mut(), &s),
                    BatchSize::PerIteration,
                )
            });
        }
    }
    g.finish();

    let mut g = c.benchmark_group("writer_write_drain");
    g.sample_size(20);
    for (name, kind, ring) in cases {
        for n in READERS {
            let mut w = filtering_writer(kind, n);
            if name.starts_with("hit") {
                for s in ring.iter() {
                    write(&mut w, s);
                    drain(&mut w);
                }
            }
            let mut cycle = Cycle::new(ring);
            g.bench_function(BenchmarkId::new(name, n), |b| {
                b.iter(|| {
                    write(&mut w, cycle.next_sample());
                    drain(&mut w)
                })
            });
        }
    }
    g.finish();
}

/// The first datagram carrying a DATA that a `colors5` writer with `n` readers sends for a
/// RED sample: INFO_DST, INFO_TS, DATA with PID_CONTENT_FILTER_INFO (whose size depends on
/// how the writer lists signatures in a datagram for one reader).
fn data_datagram(n: usize) -> Vec<u8> {
    let mut w = filtering_writer(Kind::Colors5, n);
    write(&mut w, &serialize("RED", 1, 2));
    std::iter::from_fn(|| w.poll_transmit(now()))
        .map(|t| t.payload)
        .find(|p| {
            Message::parse(p).is_ok_and(|(_, subs)| {
                subs.into_iter()
                    .any(|o| matches!(o, SubmessageOutcome::Accept(Submessage::Data(_))))
            })
        })
        .expect("a RED sample reaches the RED readers as DATA")
}

fn bench_wire(c: &mut Criterion) {
    let mut g = c.benchmark_group("wire");
    let header = Header::new(writer_guid().prefix);
    let heartbeat = Submessage::Heartbeat(Heartbeat {
        endian: Endianness::Little,
        final_flag: false,
        liveliness: false,
        reader_id: EntityId::UNKNOWN,
        writer_id: writer_guid().entity_id,
        first_sn: SequenceNumber(1),
        last_sn: SequenceNumber(42),
        count: 7,
        group_info: None,
    });
    let mut buf = Vec::with_capacity(64 * 1024);
    g.bench_function("emit_heartbeat", |b| {
        b.iter(|| {
            buf.clear();
            emit_message(
                &header,
                std::slice::from_ref(black_box(&heartbeat)),
                &mut buf,
            );
            buf.len()
        })
    });
    {
        let datagram = data_datagram(100);
        let (header, subs) = Message::parse(&datagram).expect("we parse what we emit");
        let subs: Vec<Submessage<'_>> = subs
            .filter_map(|o| match o {
                SubmessageOutcome::Accept(s) => Some(s),
                _ => None,
            })
            .collect();
        g.bench_function(
            BenchmarkId::new("emit_data", format!("{}B", datagram.len())),
            |b| {
                b.iter(|| {
                    buf.clear();
                    emit_message(&header, black_box(&subs), &mut buf);
                    buf.len()
                })
            },
        );
        g.bench_function(
            BenchmarkId::new("parse_datagram", format!("{}B", datagram.len())),
            |b| {
                b.iter(|| {
                    let Ok((_, subs)) = Message::parse(black_box(&datagram)) else {
                        return 0;
                    };
                    subs.filter(|o| matches!(o, SubmessageOutcome::Accept(_)))
                        .count()
                })
            },
        );
    }
    g.finish();
}

/// Runs every group with the command-line configuration (what `criterion_group!` expands
/// to, written out so that it carries documentation).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    bench_filter_set(&mut c);
    bench_store(&mut c);
    bench_no_table(&mut c);
    bench_writer(&mut c);
    bench_wire(&mut c);
}
/// Runs every group, then prints criterion's summary (what `criterion_main!` expands to,
/// written out so that it carries documentation).
fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
