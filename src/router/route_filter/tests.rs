//! Tests of the next-hop selection: alone ([`RouteFilter`]) and through the router
//! ([`Router::on_change`]), against evaluating every reader's filter directly, over random
//! ShapeType samples (both representations and byte orders) and random reader-set changes.

use bytes::Bytes;
use proptest::prelude::*;

use super::*;
use crate::cdr::Endianness;
use crate::router::config::TopicRules;
use crate::router::repository::RepositoryLimits;
use crate::router::table::{DiscoveredReader, RouteClass, RouterId, SiteId, SiteView, TopicKey};
use crate::router::{Action, Router};
use crate::time::Instant;
use crate::types::{ShapeType, TopicType, XcdrVersion};
use crate::wire::{EntityId, Guid, GuidPrefix, SequenceNumber};

const TOPIC: &str = "Square";
const COLORS: [&str; 4] = ["RED", "BLUE", "GREEN", "YELLOW"];

fn cf(expr: &str, params: &[&str]) -> ContentFilter {
    ContentFilter {
        content_filtered_topic_name: "cft".into(),
        related_topic_name: TOPIC.into(),
        filter_class_name: DDSSQL.into(),
        filter_expression: expr.into(),
        expression_parameters: params.iter().map(|p| p.to_string()).collect(),
    }
}

/// The filters readers pick from: usable ones over one or two members, with parameters,
/// and three the router must treat as unfiltered (unknown member, other class, none).
fn pool(i: usize) -> Option<ContentFilter> {
    match i % 9 {
        0 => Some(cf("x < 50", &[])),
        1 => Some(cf("x >= %0", &["100"])),
        2 => Some(cf("color = 'RED'", &[])),
        3 => Some(cf("color = %0 AND y > %1", &["'BLUE'", "10"])),
        4 => Some(cf("x BETWEEN 20 AND 60 OR color LIKE 'G%'", &[])),
        5 => Some(cf("y < 5", &[])),
        6 => Some(cf("nosuch > 1", &[])),
        7 => Some(ContentFilter {
            filter_class_name: "OTHER".into(),
            ..cf("x < 10", &[])
        }),
        _ => None,
    }
}

fn sample(color: usize, x: i32, y: i32, xcdr2: bool, big: bool) -> Vec<u8> {
    let s = ShapeType {
        color: COLORS[color % COLORS.len()].into(),
        x,
        y,
        shapesize: 30,
        ..ShapeType::default()
    };
    let version = if xcdr2 {
        XcdrVersion::Xcdr2
    } else {
        XcdrVersion::Xcdr1
    };
    let endian = if big {
        Endianness::Big
    } else {
        Endianness::Little
    };
    s.serialize_as(version, endian).unwrap()
}

/// The oracle: a reader takes the sample unless its filter is usable (DDSSQL, our topic,
/// compiles) and evaluates to false; a target passes when one of its readers does.
fn reader_takes(f: &Option<ContentFilter>, payload: &[u8]) -> bool {
    let Some(f) = f else { return true };
    if f.filter_class_name != DDSSQL || f.related_topic_name != TOPIC {
        return true;
    }
    let Ok(params) = parse_parameters(&f.expression_parameters) else {
        return true;
    };
    match Program::compile_expression(&f.filter_expression, &params, ShapeType::descriptor()) {
        Ok(p) => p.evaluate(payload).unwrap_or(true),
        Err(_) => true,
    }
}

fn hop_takes(readers: &[Option<ContentFilter>], payload: &[u8]) -> bool {
    readers.is_empty() || readers.iter().any(|f| reader_takes(f, payload))
}

fn built(hops: &[Vec<Option<ContentFilter>>], capacity: usize) -> RouteFilter {
    let mut f = RouteFilter::new(capacity);
    f.rebuild(ShapeType::descriptor(), TOPIC, hops);
    f
}

fn passes(set: &Option<Arc<HopSet>>, i: usize) -> bool {
    set.as_ref().is_none_or(|s| s.contains(i))
}

#[test]
fn each_target_gets_what_one_of_its_readers_passes_and_the_memo_answers_equal_projections() {
    // Target 0: x < 50; target 1: color = 'RED' or x >= 100; target 2: unfiltered.
    let hops = vec![
        vec![pool(0)],
        vec![pool(2), pool(1)],
        vec![pool(8), pool(0)],
    ];
    let mut f = built(&hops, 16);
    let s = f.select(&sample(1, 10, 0, false, false));
    assert!(passes(&s, 0) && !passes(&s, 1) && passes(&s, 2));
    let s = f.select(&sample(0, 70, 0, true, true));
    assert!(!passes(&s, 0) && passes(&s, 1) && passes(&s, 2));
    let s = f.select(&sample(3, 120, 0, false, true));
    assert!(!passes(&s, 0) && passes(&s, 1));
    let before = f.counters();
    assert_eq!((before.misses, before.hits), (3, 0));
    // Only x and color are read: another y, representation and byte order is a hit.
    let s = f.select(&sample(1, 10, 7, true, false));
    assert!(passes(&s, 0) && !passes(&s, 1) && passes(&s, 2));
    let after = f.counters();
    assert_eq!((after.hits, after.evaluations), (1, before.evaluations));
    // Three distinct filters; evaluation stops at the first reader of a target that passes.
    // BLUE x=10: x<50 yes (target 0), RED no, x>=100 no: 3. RED x=70: x<50 no, RED yes: 2.
    // YELLOW x=120: x<50 no, RED no, x>=100 yes: 3.
    assert_eq!(before.evaluations, 8);
}

#[test]
fn filters_the_router_cannot_evaluate_count_as_unfiltered() {
    let mut other_topic = cf("x < 10", &[]);
    other_topic.related_topic_name = "Circle".into();
    let bad_param = cf("x < %0", &["'unterminated"]);
    let hops = vec![
        vec![pool(0), pool(6)],
        vec![pool(0), pool(7)],
        vec![Some(other_topic)],
        vec![Some(bad_param)],
        vec![pool(0)],
    ];
    let mut f = built(&hops, 16);
    let s = f.select(&sample(0, 90, 0, false, false));
    for i in 0..4 {
        assert!(passes(&s, i), "target {i}");
    }
    assert!(!passes(&s, 4));
    // A payload that does not decode goes everywhere.
    assert_eq!(f.select(&[0, 1, 0, 0, 5]), None);
    assert_eq!(f.counters().undecodable, 1);
}

#[test]
fn beyond_the_program_limit_nothing_is_filtered() {
    let many: Vec<Vec<Option<ContentFilter>>> = (0..=MAX_ROUTE_PROGRAMS)
        .map(|i| vec![Some(cf(&format!("x = {i}"), &[]))])
        .collect();
    let mut f = built(&many, 16);
    assert!(!f.filters());
    assert_eq!(f.select(&sample(0, 1000, 0, false, false)), None);
    let fits = built(&many[1..], 16);
    assert!(fits.filters());
}

#[test]
fn the_memo_stays_within_its_capacity_and_zero_evaluates_every_sample() {
    let hops = vec![vec![pool(0)], vec![pool(4)]];
    let mut small = built(&hops, 2);
    let mut none = built(&hops, 0);
    for x in 0..10 {
        for f in [&mut small, &mut none] {
            f.select(&sample(0, x, 0, false, false));
        }
        assert!(small.memo_stats().1 <= 2);
    }
    for _ in 0..3 {
        none.select(&sample(0, 1, 0, false, false));
    }
    assert_eq!(none.counters().hits, 0);
    assert_eq!(none.counters().misses, 13);
    assert_eq!(none.memo_stats().1, 0);
}

fn change_of(data: Vec<u8>, sn: i64, kind: ChangeKind) -> CacheChange {
    CacheChange {
        kind,
        writer_guid: Guid::new(GuidPrefix([0xAA; 12]), EntityId([0, 0, 1, 0x02])),
        sequence_number: SequenceNumber(sn),
        key_hash: None,
        source_timestamp: None,
        data: Bytes::from(data),
        original_writer: None,
        coherent_set: None,
        group: None,
    }
}

const VOLATILE: RouteClass = RouteClass {
    reliable: true,
    transient_local: false,
};

fn shape_reader(
    site: u16,
    n: u8,
    filter: Option<ContentFilter>,
    class: RouteClass,
) -> DiscoveredReader {
    let mut prefix = [n; 12];
    prefix[0] = u8::try_from(site).unwrap();
    DiscoveredReader {
        guid: Guid::new(GuidPrefix(prefix), EntityId([0, 0, 1, 0x07])),
        key: TopicKey {
            topic: TOPIC.into(),
            type_name: "ShapeType".into(),
            keyed: true,
            partitions: Vec::new(),
        },
        class,
        representation: 0,
        exclusive: false,
        filter,
        path: Vec::new(),
    }
}

fn lan(readers: Vec<DiscoveredReader>) -> SiteView {
    SiteView {
        readers,
        ..SiteView::default()
    }
}

fn at(ms: u64) -> Instant {
    Instant::from_nanos(ms * 1_000_000)
}

/// The newest proxy reader on site 0 (a changed composed filter makes a new one).
fn proxy_on_0(r: &mut Router, proxy: &mut Option<EndpointId>) {
    while let Some(a) = r.poll_action() {
        match a {
            Action::CreateReader { id, spec, .. } if spec.site == SiteId(0) => *proxy = Some(id),
            Action::DeleteReader { id, .. } if Some(id) == *proxy => *proxy = None,
            _ => {}
        }
    }
}

fn sites_of(forwards: &[crate::router::Forward]) -> Vec<u16> {
    let mut s: Vec<u16> = forwards.iter().map(|f| f.site.0).collect();
    s.sort_unstable();
    s.dedup();
    s
}

#[test]
fn the_router_forwards_only_to_sites_with_a_passing_reader_and_follows_filter_changes() {
    let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default());
    r.update_site(at(0), SiteId(0), lan(vec![]));
    r.update_site(
        at(0),
        SiteId(1),
        lan(vec![shape_reader(1, 1, pool(0), VOLATILE)]),
    );
    r.update_site(
        at(0),
        SiteId(2),
        lan(vec![shape_reader(2, 1, pool(1), VOLATILE)]),
    );
    let mut proxy = None;
    proxy_on_0(&mut r, &mut proxy);
    let p = proxy.unwrap();
    let f = r.on_change(
        at(1),
        p,
        &change_of(sample(0, 10, 0, false, false), 1, ChangeKind::Alive),
    );
    assert_eq!(sites_of(&f), [1]);
    let f = r.on_change(
        at(1),
        p,
        &change_of(sample(0, 110, 0, true, false), 2, ChangeKind::Alive),
    );
    assert_eq!(sites_of(&f), [2]);
    let f = r.on_change(
        at(1),
        p,
        &change_of(sample(0, 70, 0, false, false), 3, ChangeKind::Alive),
    );
    assert!(f.is_empty());
    // A dispose reaches every site; so does a payload that does not decode.
    let f = r.on_change(
        at(1),
        p,
        &change_of(
            sample(0, 70, 0, false, false),
            4,
            ChangeKind::NotAliveDisposed,
        ),
    );
    assert_eq!(sites_of(&f), [1, 2]);
    let f = r.on_change(
        at(1),
        p,
        &change_of(vec![0, 1, 0, 0, 5], 5, ChangeKind::Alive),
    );
    assert_eq!(sites_of(&f), [1, 2]);
    let c = r.counters().route_filter;
    assert_eq!((c.lookups, c.misses, c.undecodable), (4, 3, 1));
    assert_eq!(c.skipped, 4);
    // A second reader on site 2 takes x < 50: the composed filter (and so the proxy) stays,
    // but the memo of x = 10 (site 1 only) must not answer.
    r.update_site(
        at(2),
        SiteId(2),
        lan(vec![
            shape_reader(2, 1, pool(1), VOLATILE),
            shape_reader(2, 2, pool(0), VOLATILE),
        ]),
    );
    proxy_on_0(&mut r, &mut proxy);
    assert_eq!(proxy, Some(p));
    let f = r.on_change(
        at(3),
        p,
        &change_of(sample(0, 10, 0, false, false), 6, ChangeKind::Alive),
    );
    assert_eq!(sites_of(&f), [1, 2]);
    // An unfiltered reader joins site 1: it takes what nobody else wants.
    r.update_site(
        at(4),
        SiteId(1),
        lan(vec![
            shape_reader(1, 1, pool(0), VOLATILE),
            shape_reader(1, 2, None, VOLATILE),
        ]),
    );
    proxy_on_0(&mut r, &mut proxy);
    let p = proxy.unwrap_or(p);
    let f = r.on_change(
        at(5),
        p,
        &change_of(sample(0, 70, 0, false, false), 7, ChangeKind::Alive),
    );
    assert_eq!(sites_of(&f), [1]);
    assert_eq!(r.counters().route_filter.rebuilds, 3);
}

#[test]
fn an_unknown_type_and_a_transient_local_route_go_everywhere() {
    let tl = RouteClass {
        reliable: true,
        transient_local: true,
    };
    let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default());
    r.update_site(at(0), SiteId(0), lan(vec![]));
    let mut unknown = shape_reader(1, 1, pool(0), VOLATILE);
    unknown.key.type_name = "OtherType".into();
    r.update_site(at(0), SiteId(1), lan(vec![unknown]));
    let mut proxy = None;
    proxy_on_0(&mut r, &mut proxy);
    let f = r.on_change(
        at(1),
        proxy.unwrap(),
        &change_of(sample(0, 90, 0, false, false), 1, ChangeKind::Alive),
    );
    assert_eq!(sites_of(&f), [1]);
    r.update_site(at(2), SiteId(1), lan(vec![shape_reader(1, 1, pool(0), tl)]));
    proxy_on_0(&mut r, &mut proxy);
    let f = r.on_change(
        at(3),
        proxy.unwrap(),
        &change_of(sample(0, 90, 0, false, false), 2, ChangeKind::Alive),
    );
    assert_eq!(sites_of(&f), [1]);
    assert_eq!(r.counters().route_filter.lookups, 0);
}

#[derive(Clone, Debug)]
enum Op {
    Sample(usize, i32, i32, bool, bool),
    Readers(usize, Vec<usize>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0usize..4, 0i32..150, 0i32..20, any::<bool>(), any::<bool>())
            .prop_map(|(c, x, y, v, e)| Op::Sample(c, x, y, v, e)),
        1 => (0usize..4, prop::collection::vec(0usize..9, 0..4))
            .prop_map(|(h, rs)| Op::Readers(h, rs)),
    ]
}

proptest! {
    /// The memoized choice of targets equals evaluating every reader's filter directly,
    /// whatever the samples and however the readers change; the memo stays bounded.
    #[test]
    fn the_memoized_choice_equals_direct_evaluation(
        initial in prop::collection::vec(prop::collection::vec(0usize..9, 0..4), 1..4),
        ops in prop::collection::vec(op(), 1..120),
        capacity in 0usize..12,
    ) {
        let mut hops: Vec<Vec<Option<ContentFilter>>> =
            initial.iter().map(|rs| rs.iter().map(|&i| pool(i)).collect()).collect();
        let mut f = built(&hops, capacity);
        for op in ops {
            match op {
                Op::Sample(c, x, y, v, e) => {
                    let data = sample(c, x, y, v, e);
                    let set = f.select(&data);
                    for (i, readers) in hops.iter().enumerate() {
                        prop_assert_eq!(passes(&set, i), hop_takes(readers, &data), "target {}", i);
                    }
                    prop_assert!(f.memo_stats().1 <= capacity);
                }
                Op::Readers(h, rs) => {
                    let h = h % hops.len();
                    hops[h] = rs.iter().map(|&i| pool(i)).collect();
                    f.rebuild(ShapeType::descriptor(), TOPIC, &hops);
                }
            }
        }
    }

    /// Through the router: site 0 writes, sites 1–3 read with random filters that change
    /// at random; each sample goes to exactly the sites where one reader takes it.
    #[test]
    fn the_router_forwards_exactly_where_a_reader_takes_the_sample(
        ops in prop::collection::vec(op(), 1..80),
        capacity in 0usize..12,
    ) {
        let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default())
            .with_route_memo(capacity);
        r.update_site(at(0), SiteId(0), lan(vec![]));
        let mut sites: Vec<Vec<Option<ContentFilter>>> = vec![vec![pool(0)], vec![pool(2)], vec![pool(5), pool(3)]];
        let view = |s: usize, fs: &[Option<ContentFilter>]| {
            let site = u16::try_from(s + 1).unwrap();
            lan(fs.iter().enumerate().map(|(n, f)| shape_reader(site, u8::try_from(n).unwrap(), f.clone(), VOLATILE)).collect())
        };
        for (s, fs) in sites.iter().enumerate() {
            r.update_site(at(0), SiteId(u16::try_from(s + 1).unwrap()), view(s, fs));
        }
        let mut proxy = None;
        proxy_on_0(&mut r, &mut proxy);
        let mut sn = 0;
        let mut now = 1;
        for op in ops {
            now += 1;
            match op {
                Op::Sample(c, x, y, v, e) => {
                    let Some(p) = proxy else { continue };
                    sn += 1;
                    let data = sample(c, x, y, v, e);
                    let got = sites_of(&r.on_change(at(now), p, &change_of(data.clone(), sn, ChangeKind::Alive)));
                    let want: Vec<u16> = sites
                        .iter()
                        .enumerate()
                        .filter(|(_, fs)| !fs.is_empty() && hop_takes(fs, &data))
                        .map(|(s, _)| u16::try_from(s + 1).unwrap())
                        .collect();
                    prop_assert_eq!(got, want);
                }
                Op::Readers(h, rs) => {
                    let h = h % sites.len();
                    sites[h] = rs.iter().map(|&i| pool(i)).collect();
                    r.update_site(at(now), SiteId(u16::try_from(h + 1).unwrap()), view(h, &sites[h]));
                    proxy_on_0(&mut r, &mut proxy);
                }
            }
        }
    }
}
