//! Filter evaluation cost per sample per reader on a serialized `ShapeType` (XCDR1, little
//! endian): the compiled [`Program`] against the reference path (deserialize, then walk the
//! [`BoundAst`]), the memo table's hit and miss cost ([`FilterSet::evaluate`] with one filtered
//! reader), and the projection that builds the memo key.
//!
//! Must not: fail (it reports numbers only, docs/conventions.md §5), touch sockets or clocks
//! (criterion keeps time), or use crate internals: only the public API, so that it keeps compiling
//! while the writer's internals change.
//!
//! # Overview
//! Three filters, from one equality on the key string to a LIKE plus a BETWEEN:
//! `color = 'RED'`, `x > 10 AND shapesize <= 20`, `color LIKE 'B%' AND y BETWEEN 0 AND 100`.
//! Groups (criterion ids `group/filter`):
//! - `eval_compiled`: [`Program::evaluate`] on the serialized sample.
//! - `eval_reference`: [`ShapeType::deserialize`] + [`BoundAst::evaluate`] over a
//!   [`FieldSource`] that reads the decoded struct (what a filter without a compiler costs).
//! - `project`: [`Program::project_into`] into a reused buffer (the memo key of one field set).
//! - `memo_hit`: [`FilterSet::evaluate`] on the same sample again (projection + table lookup).
//! - `memo_miss`: [`FilterSet::evaluate`] on a sample the table has not seen: a ring of
//!   distinct samples twice the table's capacity, so CLOCK has evicted each one before it
//!   comes back (projection + lookup + evaluation + insertion with eviction).
//!
//! Run: `cargo bench --bench filter -- --warm-up-time 1 --measurement-time 3`.

// An example/benchmark/test: it indexes and counts what it built itself and unwraps what must
// work; the parse-path lints of the workspace are siftdds-proto's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::Criterion;
use siftdds::cdr::Endianness;
use siftdds::core::discovery::ContentFilter;
use siftdds::core::writer::FilterSet;
use siftdds::filter::{Ast, BoundAst, FieldPath, FieldSource, Program, Value};
use siftdds::types::{ShapeType, TopicType};
use siftdds::wire::{EntityId, Guid, GuidPrefix};

/// The filters under test: (criterion id, DDS-SQL expression).
const FILTERS: [(&str, &str); 3] = [
    ("color_eq", "color = 'RED'"),
    ("x_gt_and_size_le", "x > 10 AND shapesize <= 20"),
    (
        "color_like_and_y_between",
        "color LIKE 'B%' AND y BETWEEN 0 AND 100",
    ),
];

/// Memo capacity for the hit/miss groups; the miss ring holds twice as many samples.
const MEMO_CAPACITY: usize = 1024;

/// A typical shape sample (no additional payload, like the vendors' demos).
fn shape(color: &str, x: i32, y: i32, shapesize: i32) -> ShapeType {
    ShapeType {
        color: color.to_owned(),
        x,
        y,
        shapesize,
        additional_payload_size: Vec::new(),
    }
}

/// The sample every group evaluates (passes filters 2 and 3, fails filter 1).
fn payload() -> Vec<u8> {
    shape("BLUE", 42, 57, 20).serialize(Endianness::Little)
}

/// Reads the fields of a decoded `ShapeType` for the reference evaluator (as the demo binary
/// does): top-level members only, strings cloned, integers widened.
struct ShapeFields<'a>(&'a ShapeType);

impl FieldSource for ShapeFields<'_> {
    fn field(&self, path: &FieldPath) -> Option<Value> {
        let [segment] = path.segments.as_slice() else {
            return None;
        };
        if !segment.indices.is_empty() {
            return None;
        }
        let s = self.0;
        match segment.name.as_str() {
            "color" => Some(Value::Str(s.color.clone())),
            "x" => Some(Value::Int(i128::from(s.x))),
            "y" => Some(Value::Int(i128::from(s.y))),
            "shapesize" => Some(Value::Int(i128::from(s.shapesize))),
            _ => None,
        }
    }
}

/// A DDSSQL filter on topic `Square` as a remote reader would announce it.
fn content_filter(expr: &str) -> ContentFilter {
    ContentFilter {
        content_filtered_topic_name: "SquareFiltered".into(),
        related_topic_name: "Square".into(),
        filter_class_name: "DDSSQL".into(),
        filter_expression: expr.into(),
        expression_parameters: Vec::new(),
    }
}

/// A filter set with one reader filtering on `expr`.
fn one_reader_set(expr: &str) -> FilterSet {
    let desc = Arc::new(ShapeType::descriptor().clone());
    let mut set = FilterSet::new(desc, "Square", MEMO_CAPACITY);
    let reader = Guid::new(GuidPrefix([7; 12]), EntityId([0, 0, 1, 0x07]));
    set.set_reader_filter(reader, Some(&content_filter(expr)))
        .expect("the bench filters compile against ShapeType");
    set
}

fn compile(expr: &str) -> Program {
    Program::compile_expression(expr, &[], ShapeType::descriptor())
        .expect("the bench filters compile against ShapeType")
}

/// Reports (never fails, docs/conventions.md §5) when a group did not measure what its name says.
fn warn_unless(ok: bool, group: &str, id: &str, what: &str) {
    if !ok {
        eprintln!("warning: {group}/{id} {what}; its figure is not what the name says");
    }
}

fn bench_eval(c: &mut Criterion) {
    let payload = payload();
    let mut g = c.benchmark_group("eval_compiled");
    for (id, expr) in FILTERS {
        let program = compile(expr);
        g.bench_function(id, |b| b.iter(|| program.evaluate(black_box(&payload))));
    }
    g.finish();

    let mut g = c.benchmark_group("eval_reference");
    for (id, expr) in FILTERS {
        let ast: BoundAst = Ast::parse(expr)
            .and_then(|a| a.bind(&[]))
            .expect("the bench filters parse and need no parameters");
        g.bench_function(id, |b| {
            b.iter(|| {
                let sample = ShapeType::deserialize(black_box(&payload))
                    .expect("the bench payload is well formed");
                ast.evaluate(&ShapeFields(&sample))
            })
        });
    }
    g.finish();
}

fn bench_project(c: &mut Criterion) {
    let payload = payload();
    let mut g = c.benchmark_group("project");
    for (id, expr) in FILTERS {
        let program = compile(expr);
        let mut out = Vec::new();
        g.bench_function(id, |b| {
            b.iter(|| {
                program
                    .project_into(black_box(&payload), &mut out)
                    .expect("the bench payload is well formed");
                out.len()
            })
        });
    }
    g.finish();
}

fn bench_memo(c: &mut Criterion) {
    let payload = payload();
    let mut g = c.benchmark_group("memo_hit");
    for (id, expr) in FILTERS {
        let mut set = one_reader_set(expr);
        set.evaluate(&payload);
        g.bench_function(id, |b| b.iter(|| set.evaluate(black_box(&payload))));
        warn_unless(
            set.stats().misses == 1,
            "memo_hit",
            id,
            "missed after the first lookup",
        );
    }
    g.finish();

    // Every referenced field differs between ring entries, so each is a distinct key.
    let ring: Vec<Vec<u8>> = (0..2 * MEMO_CAPACITY as i32)
        .map(|i| shape(&format!("B{i}"), i, i, i % 40).serialize(Endianness::Little))
        .collect();
    let mut g = c.benchmark_group("memo_miss");
    for (id, expr) in FILTERS {
        let mut set = one_reader_set(expr);
        let mut next = ring.iter().cycle();
        g.bench_function(id, |b| {
            b.iter(|| set.evaluate(next.next().expect("a cycle never ends")))
        });
        warn_unless(set.stats().hits == 0, "memo_miss", id, "hit the table");
    }
    g.finish();
}

/// Runs every group with the command-line configuration (what `criterion_group!` expands
/// to, written out so that it carries documentation).
fn benches() {
    let mut c = Criterion::default().configure_from_args();
    bench_eval(&mut c);
    bench_project(&mut c);
    bench_memo(&mut c);
}
/// Runs every group, then prints criterion's summary (what `criterion_main!` expands to,
/// written out so that it carries documentation).
fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
