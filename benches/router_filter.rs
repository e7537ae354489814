//! The router's next-hop selection by the downstream readers' filters
//! (`siftdds::router::route_filter`), through [`Router::on_change`]: a router with one
//! upstream site and 3 downstream sites of 4 filtered ShapeType readers each, with the memo
//! (`ROUTE_MEMO_CAPACITY` projections) and without it (capacity 0: every sample evaluated).
//!
//! Must not: fail (it reports numbers only, docs/conventions.md §5), touch sockets or clocks
//! (criterion keeps time), or use crate internals: only the public API.
//!
//! # Overview
//! Two workloads of 10,000 serialized samples (XCDR1 LE), each from a seeded generator:
//! - `colors`: every reader filters on the key (`color = '…'`, `color LIKE 'B%'`), 8
//!   colours: the projection has 8 values.
//! - `moving`: the readers' filters read color, x and y (the shapes demo's filters),
//!   5 colours moving in 0..250 by steps of 1–5: many distinct projections.
//!
//! It first prints, per workload and memo setting, the counters of one pass over the
//! samples (lookups, hits, filter evaluations per sample; a filter-per-reader evaluation
//! would be 12 per sample), then criterion times `on_change` per sample.
//!
//! Run: `cargo bench --bench router_filter -- --warm-up-time 1 --measurement-time 3`.

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

use bytes::Bytes;
use criterion::Criterion;
use siftdds::cdr::Endianness;
use siftdds::core::discovery::ContentFilter;
use siftdds::core::{CacheChange, ChangeKind};
use siftdds::router::config::TopicRules;
use siftdds::router::repository::RepositoryLimits;
use siftdds::router::route_filter::ROUTE_MEMO_CAPACITY;
use siftdds::router::table::{DiscoveredReader, RouteClass, RouterId, SiteId, SiteView, TopicKey};
use siftdds::router::{Action, EndpointId, Router};
use siftdds::time::Instant;
use siftdds::types::{ShapeType, TopicType, XcdrVersion};
use siftdds::wire::{EntityId, Guid, GuidPrefix, SequenceNumber};

const SAMPLES: usize = 10_000;

const COLOR_FILTERS: [[&str; 4]; 3] = [
    [
        "color = 'RED'",
        "color = 'BLUE'",
        "color = 'GREEN'",
        "color = 'CYAN'",
    ],
    [
        "color = 'YELLOW'",
        "color LIKE 'B%'",
        "color = 'MAGENTA'",
        "color = 'RED'",
    ],
    [
        "color = 'ORANGE'",
        "color = 'PURPLE'",
        "color = 'CYAN'",
        "color = 'GREEN'",
    ],
];
const COLORS_8: [&str; 8] = [
    "RED", "BLUE", "GREEN", "CYAN", "YELLOW", "MAGENTA", "ORANGE", "PURPLE",
];

const MOVING_FILTERS: [[&str; 4]; 3] = [
    [
        "color = 'RED'",
        "color = 'BLUE' AND x < 100",
        "x BETWEEN 0 AND 50",
        "y > 200",
    ],
    [
        "color = 'GREEN'",
        "x > 150",
        "color = 'YELLOW' AND y < 100",
        "x < 25",
    ],
    [
        "color LIKE 'B%' AND y > 120",
        "y BETWEEN 100 AND 150",
        "x >= 200",
        "color = 'PURPLE'",
    ],
];
const COLORS_5: [&str; 5] = ["RED", "BLUE", "GREEN", "YELLOW", "PURPLE"];

const VOLATILE: RouteClass = RouteClass {
    reliable: true,
    transient_local: false,
};

fn reader(site: u16, n: u8, expr: &str) -> DiscoveredReader {
    let mut prefix = [n; 12];
    prefix[0] = site as u8;
    DiscoveredReader {
        guid: Guid::new(GuidPrefix(prefix), EntityId([0, 0, 1, 0x07])),
        key: TopicKey {
            topic: "Square".into(),
            type_name: "ShapeType".into(),
            keyed: true,
            partitions: Vec::new(),
        },
        class: VOLATILE,
        representation: 0,
        exclusive: false,
        filter: Some(ContentFilter {
            content_filtered_topic_name: format!("cft{site}_{n}"),
            related_topic_name: "Square".into(),
            filter_class_name: "DDSSQL".into(),
            filter_expression: expr.into(),
            expression_parameters: Vec::new(),
        }),
        path: Vec::new(),
    }
}

/// A router with the readers of `filters` on sites 1–3 and its proxy reader on site 0.
fn router(filters: &[[&str; 4]; 3], memo: usize) -> (Router, EndpointId) {
    let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default())
        .with_route_memo(memo);
    let t = Instant::from_nanos(0);
    r.update_site(t, SiteId(0), SiteView::default());
    for (s, fs) in filters.iter().enumerate() {
        let site = s as u16 + 1;
        let readers = fs
            .iter()
            .enumerate()
            .map(|(n, e)| reader(site, n as u8, e))
            .collect();
        r.update_site(
            t,
            SiteId(site),
            SiteView {
                readers,
                ..SiteView::default()
            },
        );
    }
    let mut proxy = None;
    while let Some(a) = r.poll_action() {
        if let Action::CreateReader { id, spec, .. } = a
            && spec.site == SiteId(0)
        {
            proxy = Some(id);
        }
    }
    (r, proxy.expect("a proxy reader on site 0"))
}

struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

fn serialize(color: &str, x: i32, y: i32) -> Bytes {
    let s = ShapeType {
        color: color.into(),
        x,
        y,
        shapesize: 30,
        ..ShapeType::default()
    };
    Bytes::from(
        s.serialize_as(XcdrVersion::Xcdr1, Endianness::Little)
            .unwrap(),
    )
}

fn colors_workload() -> Vec<Bytes> {
    let mut rng = Lcg(1);
    (0..SAMPLES)
        .map(|_| {
            let c = COLORS_8[rng.next(8) as usize];
            serialize(c, rng.next(250) as i32, rng.next(250) as i32)
        })
        .collect()
}

fn moving_workload() -> Vec<Bytes> {
    let mut rng = Lcg(2);
    let mut pos: Vec<(i32, i32, i32, i32)> = COLORS_5
        .iter()
        .map(|_| (rng.next(250) as i32, rng.next(250) as i32, 1, 1))
        .collect();
    (0..SAMPLES)
        .map(|i| {
            let c = i % COLORS_5.len();
            let (x, y, dx, dy) = &mut pos[c];
            *dx = dx.signum() * (1 + rng.next(5) as i32);
            *dy = dy.signum() * (1 + rng.next(5) as i32);
            if !(0..250).contains(&(*x + *dx)) {
                *dx = -*dx;
            }
            if !(0..250).contains(&(*y + *dy)) {
                *dy = -*dy;
            }
            *x += *dx;
            *y += *dy;
            serialize(COLORS_5[c], *x, *y)
        })
        .collect()
}

fn change(data: &Bytes, sn: i64) -> CacheChange {
    CacheChange {
        kind: ChangeKind::Alive,
        writer_guid: Guid::new(GuidPrefix([0xAA; 12]), EntityId([0, 0, 1, 0x02])),
        sequence_number: SequenceNumber(sn),
        key_hash: None,
        source_timestamp: None,
        data: data.clone(),
        original_writer: None,
        coherent_set: None,
        group: None,
    }
}

fn main() {
    let workloads = [
        ("colors", &COLOR_FILTERS, colors_workload()),
        ("moving", &MOVING_FILTERS, moving_workload()),
    ];
    let mut c = Criterion::default().configure_from_args();
    for (name, filters, samples) in &workloads {
        for (memo_name, memo) in [("memo", ROUTE_MEMO_CAPACITY), ("no_memo", 0)] {
            let (mut r, proxy) = router(filters, memo);
            let mut forwards = 0usize;
            for (i, s) in samples.iter().enumerate() {
                let now = Instant::from_nanos(0);
                forwards += r.on_change(now, proxy, &change(s, i as i64 + 1)).len();
            }
            let f = r.counters().route_filter;
            println!(
                "router_filter {name}/{memo_name}: {} samples, lookups {}, hits {}, misses {}, \
                 evaluations {} ({:.2} per sample; 12 filters), skipped (sample, site) {}, \
                 forwards {forwards} ({:.2} sites per sample)",
                samples.len(),
                f.lookups,
                f.hits,
                f.misses,
                f.evaluations,
                f.evaluations as f64 / samples.len() as f64,
                f.skipped,
                forwards as f64 / samples.len() as f64,
            );
            let mut sn = samples.len() as i64;
            let mut i = 0usize;
            c.bench_function(&format!("router_filter/{name}/{memo_name}"), |b| {
                b.iter(|| {
                    sn += 1;
                    i = (i + 1) % samples.len();
                    let now = Instant::from_nanos(0);
                    black_box(r.on_change(now, proxy, &change(&samples[i], sn)))
                })
            });
        }
    }
    c.final_summary();
}
