//! Tests of the router core: the routing table (split horizon, path vector, composed
//! filters), the relation repository (identity, instance state, limits and eviction order)
//! and the forwarding decision, alone and in a simulated mesh of routers whose links lose,
//! duplicate and reorder (seeded, `crate::test_rng::Rng`).

use bytes::Bytes;
use proptest::prelude::*;

use super::repository::{Incoming, InstancePolicy, Repository, RepositoryLimits, Verdict};
use super::table::{
    DiscoveredReader, DiscoveredWriter, RouteClass, RouterId, SiteId, SiteView, TopicKey,
};
use super::*;

mod access;
mod late;
mod mesh;
mod peer_group;
mod representation;
mod ring;
mod standby;
mod wire_type;
use crate::core::discovery::ContentFilter;
use crate::test_rng::Rng;
use crate::wire::{EntityId, Guid, GuidPrefix, SequenceNumber};

const RELIABLE: RouteClass = RouteClass {
    reliable: true,
    transient_local: false,
};

fn key(topic: &str) -> TopicKey {
    TopicKey {
        topic: topic.into(),
        type_name: "T".into(),
        keyed: true,
        partitions: Vec::new(),
    }
}

fn guid(p: u8, e: u8) -> Guid {
    Guid::new(GuidPrefix([p; 12]), EntityId([0, 0, e, 0x07]))
}

fn reader(p: u8, topic: &str, filter: Option<&str>, path: &[u64]) -> DiscoveredReader {
    DiscoveredReader {
        guid: guid(p, 1),
        key: key(topic),
        class: RELIABLE,
        representation: 0,
        exclusive: false,
        filter: filter.map(|e| ContentFilter {
            content_filtered_topic_name: "cft".into(),
            related_topic_name: topic.into(),
            filter_class_name: "DDSSQL".into(),
            filter_expression: e.into(),
            expression_parameters: Vec::new(),
        }),
        path: path.iter().copied().map(RouterId).collect(),
    }
}

fn view(peer: Option<u64>, readers: Vec<DiscoveredReader>) -> SiteView {
    SiteView {
        peer_router: peer.map(RouterId),
        routers: peer.map(RouterId).into_iter().collect(),
        router_participants: Vec::new(),
        readers,
        writers: Vec::new(),
    }
}

/// What router `i`'s forward `f` becomes at the router across the link: a change of that
/// downstream writer, with sequence number `sn`, carrying the original identity.
fn relayed(i: usize, f: &Forward, sn: i64) -> CacheChange {
    CacheChange {
        kind: f.request.kind,
        writer_guid: guid(100 + i as u8, f.writer as u8),
        sequence_number: SequenceNumber(sn),
        key_hash: f.request.key_hash,
        source_timestamp: None,
        data: f.request.data.clone(),
        original_writer: f.request.original_writer,
        coherent_set: None,
        group: None,
    }
}

fn drain(r: &mut Router) -> Vec<Action> {
    std::iter::from_fn(|| r.poll_action()).collect()
}

fn at(ms: u64) -> Instant {
    Instant::from_nanos(ms * 1_000_000)
}

fn change(w: Guid, sn: i64, kind: ChangeKind, k: u8) -> CacheChange {
    CacheChange {
        kind,
        writer_guid: w,
        sequence_number: SequenceNumber(sn),
        key_hash: Some([k; 16]),
        source_timestamp: None,
        data: Bytes::from(vec![0, 1, 0, 0, k]),
        original_writer: None,
        coherent_set: None,
        group: None,
    }
}

/// A router between two LANs, with one unfiltered reader on LAN 1.
fn two_lans_one_reader() -> Router {
    let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default());
    r.update_site(at(0), SiteId(0), view(None, vec![]));
    r.update_site(
        at(0),
        SiteId(1),
        view(None, vec![reader(9, "Sq", None, &[])]),
    );
    r
}

#[test]
fn a_reader_on_one_lan_makes_a_proxy_on_the_other_and_a_writer_at_home() {
    let mut r = two_lans_one_reader();
    let actions = drain(&mut r);
    assert_eq!(actions.len(), 2, "{actions:?}");
    let Action::CreateReader { spec, .. } = &actions[0] else {
        panic!("{actions:?}")
    };
    assert_eq!(spec.site, SiteId(0));
    assert_eq!(spec.path, [RouterId(1)]);
    assert_eq!(spec.filter, None);
    let Action::CreateWriter { spec, history, .. } = &actions[1] else {
        panic!("{actions:?}")
    };
    assert_eq!(spec.site, SiteId(1));
    assert_eq!(*history, History::KeepAll);
    // The same view again: nothing to do. The reader leaves: both go.
    r.update_site(
        at(1),
        SiteId(1),
        view(None, vec![reader(9, "Sq", None, &[])]),
    );
    assert!(drain(&mut r).is_empty());
    r.update_site(at(2), SiteId(1), view(None, vec![]));
    let gone = drain(&mut r);
    assert!(matches!(
        gone[0],
        Action::DeleteReader {
            site: SiteId(0),
            ..
        }
    ));
    assert!(matches!(
        gone[1],
        Action::DeleteWriter {
            site: SiteId(1),
            ..
        }
    ));
}

#[test]
fn filters_compose_and_a_changed_filter_is_made_before_broken() {
    let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default());
    r.update_site(at(0), SiteId(0), view(None, vec![]));
    let a = reader(8, "Sq", Some("x < 50"), &[]);
    r.update_site(at(0), SiteId(1), view(None, vec![a.clone()]));
    let first = drain(&mut r);
    let Action::CreateReader { id: old, spec, .. } = &first[0] else {
        panic!()
    };
    assert_eq!(spec.filter.as_ref().unwrap().filter_expression, "x < 50");
    let b = reader(7, "Sq", Some("x > 90"), &[]);
    r.update_site(at(10), SiteId(1), view(None, vec![a.clone(), b]));
    let second = drain(&mut r);
    let Action::CreateReader { id: new, spec, .. } = &second[0] else {
        panic!("{second:?}")
    };
    assert_ne!(old, new);
    assert_eq!(
        spec.filter.as_ref().unwrap().filter_expression,
        "(x < 50) OR (x > 90)"
    );
    // The old one reads on for PROXY_GRACE, then goes.
    assert_eq!(r.poll_timeout(), Some(at(10).saturating_add(PROXY_GRACE)));
    r.handle_timeout(at(11));
    assert!(drain(&mut r).is_empty());
    r.handle_timeout(at(10).saturating_add(PROXY_GRACE));
    assert_eq!(
        drain(&mut r),
        [Action::DeleteReader {
            id: *old,
            site: SiteId(0)
        }]
    );
    // An unfiltered reader joins: no filter at all.
    let c = reader(6, "Sq", None, &[]);
    r.update_site(at(20), SiteId(1), view(None, vec![a, c]));
    let third = drain(&mut r);
    let Action::CreateReader { spec, .. } = &third[0] else {
        panic!()
    };
    assert_eq!(spec.filter, None);
}

#[test]
fn split_horizon_and_the_path_vector() {
    let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default());
    // Site 0: a link to router 2, whose proxy reader came through 3 then 2.
    r.update_site(
        at(0),
        SiteId(0),
        view(Some(2), vec![reader(2, "Sq", None, &[3, 2])]),
    );
    // Site 1: a link to router 3. Site 2: a LAN.
    r.update_site(at(0), SiteId(1), view(Some(3), vec![]));
    r.update_site(at(0), SiteId(2), view(None, vec![]));
    let proxies = r.table().proxies();
    let sites: Vec<SiteId> = proxies.keys().map(|k| k.0).collect();
    // Not back onto site 0 (split horizon), not towards router 3 (on the path): only the LAN.
    assert_eq!(sites, [SiteId(2)]);
    assert_eq!(
        proxies.values().next().unwrap().path,
        [3, 2, 1].map(RouterId)
    );
    // A reader whose path holds us is ignored altogether.
    r.update_site(
        at(1),
        SiteId(0),
        view(Some(2), vec![reader(2, "Sq", None, &[1, 2])]),
    );
    assert!(r.table().proxies().is_empty());
    assert!(r.table().writers().is_empty());
}

#[test]
fn rules_drop_denied_topics() {
    let config = config::RouterConfig::from_toml(
        "[[site]]\nname=\"a\"\nkind=\"lan\"\n[[site]]\nname=\"b\"\nkind=\"lan\"\n\
         [topics]\ndeny=[\"Secret*\"]\n",
    )
    .unwrap();
    let mut r = Router::new(
        RouterId(1),
        config.rules().unwrap(),
        RepositoryLimits::default(),
    );
    r.update_site(at(0), SiteId(0), view(None, vec![]));
    r.update_site(
        at(0),
        SiteId(1),
        view(None, vec![reader(9, "SecretPlans", None, &[])]),
    );
    assert!(drain(&mut r).is_empty());
}

#[test]
fn forwards_once_per_route_with_the_original_identity() {
    let mut r = two_lans_one_reader();
    let Action::CreateReader { id: proxy, .. } = drain(&mut r)[0].clone() else {
        panic!()
    };
    let w = guid(5, 2);
    let f = r.on_change(at(1), proxy, &change(w, 1, ChangeKind::Alive, 1));
    assert_eq!(f.len(), 1);
    let id = f[0].request.original_writer.unwrap();
    assert_eq!((id.writer_guid, id.sequence_number), (w, SequenceNumber(1)));
    assert!(
        r.on_change(at(2), proxy, &change(w, 1, ChangeKind::Alive, 1))
            .is_empty()
    );
    // A relayed copy of the same sample (another router's writer, same original) too.
    let mut relayed = change(guid(6, 3), 40, ChangeKind::Alive, 1);
    relayed.original_writer = Some(id);
    assert!(r.on_change(at(3), proxy, &relayed).is_empty());
    assert_eq!(r.counters().repository.duplicates, 2);
    assert!(
        r.on_change(at(4), 999, &change(w, 2, ChangeKind::Alive, 1))
            .is_empty()
    );
    assert_eq!(r.counters().unknown_proxy, 1);
}

fn incoming(w: Guid, sn: i64, kind: ChangeKind, k: u8) -> Incoming<'static> {
    Incoming {
        kind,
        identity: (kind != ChangeKind::NotAliveNoWriters).then_some(SampleIdentity {
            writer_guid: w,
            sequence_number: SequenceNumber(sn),
        }),
        via: w,
        key_hash: Some([k; 16]),
        data: b"abc",
    }
}

#[test]
fn dispose_and_unregister_are_forwarded_once() {
    use ChangeKind::*;
    use Verdict::{Duplicate, Forward, InstanceUnchanged};
    let mut repo = Repository::new(RepositoryLimits::default(), InstancePolicy::default());
    let (w1, w2) = (guid(1, 2), guid(2, 2));
    let steps = [
        (w1, 1, Alive, 1, Forward(Alive), "w1 writes"),
        (
            w2,
            1,
            Alive,
            1,
            Forward(Alive),
            "w2 writes the same instance",
        ),
        (
            w1,
            2,
            NotAliveDisposed,
            1,
            Forward(NotAliveDisposed),
            "w1 disposes",
        ),
        (
            w2,
            2,
            NotAliveDisposed,
            1,
            InstanceUnchanged,
            "already disposed",
        ),
        (
            w1,
            3,
            NotAliveUnregistered,
            1,
            InstanceUnchanged,
            "w2 still has it",
        ),
        (
            w2,
            3,
            NotAliveUnregistered,
            1,
            Forward(NotAliveUnregistered),
            "the last leaves",
        ),
        (
            w2,
            3,
            NotAliveUnregistered,
            1,
            Duplicate,
            "the same over another path",
        ),
        (w1, 4, Alive, 2, Forward(Alive), "another instance"),
        (
            w1,
            0,
            NotAliveNoWriters,
            2,
            Forward(NotAliveUnregistered),
            "its writer is lost",
        ),
        (
            w1,
            0,
            NotAliveNoWriters,
            2,
            InstanceUnchanged,
            "lost again elsewhere",
        ),
    ];
    for (w, sn, kind, key, want, why) in steps {
        assert_eq!(
            repo.decide(at(0), incoming(w, sn, kind, key)),
            want,
            "{why}"
        );
    }
}

#[test]
fn the_instance_policy_suppresses_unchanged_and_caps_the_rate() {
    let policy = InstancePolicy {
        suppress_unchanged: true,
        min_interval: Some(core::time::Duration::from_millis(100)),
    };
    let mut repo = Repository::new(RepositoryLimits::default(), policy);
    let w = guid(1, 2);
    let mut i = incoming(w, 1, ChangeKind::Alive, 1);
    assert!(matches!(repo.decide(at(0), i), Verdict::Forward(_)));
    i.identity.as_mut().unwrap().sequence_number = SequenceNumber(2);
    assert_eq!(repo.decide(at(500), i), Verdict::Policy); // same payload
    i.identity.as_mut().unwrap().sequence_number = SequenceNumber(3);
    i.data = b"abd";
    assert!(matches!(repo.decide(at(550), i), Verdict::Forward(_)));
    i.identity.as_mut().unwrap().sequence_number = SequenceNumber(4);
    i.data = b"abe";
    assert_eq!(repo.decide(at(560), i), Verdict::Policy); // within 100 ms
}

#[test]
fn limits_bound_the_repository_and_evict_in_the_documented_order() {
    let limits = RepositoryLimits {
        max_writers: 2,
        max_instances: 2,
    };
    let mut repo = Repository::new(limits, InstancePolicy::default());
    let t = at(0);
    // Instance 1 is disposed (not alive), 2 alive: a third evicts 1 although 2 is older.
    repo.decide(t, incoming(guid(1, 2), 1, ChangeKind::Alive, 2));
    repo.decide(t, incoming(guid(1, 2), 2, ChangeKind::Alive, 1));
    repo.decide(t, incoming(guid(1, 2), 3, ChangeKind::NotAliveDisposed, 1));
    repo.decide(t, incoming(guid(1, 2), 4, ChangeKind::Alive, 3));
    let alive: Vec<u8> = repo.alive_instances().keys().map(|k| k[0]).collect();
    assert_eq!(alive, [2, 3]);
    assert_eq!(repo.counters().instances_evicted, 1);
    // Writers: least recently forwarded goes first.
    repo.decide(t, incoming(guid(2, 2), 1, ChangeKind::Alive, 2));
    repo.decide(t, incoming(guid(3, 2), 1, ChangeKind::Alive, 2));
    assert_eq!(repo.len().0, 2);
    assert_eq!(repo.counters().writers_evicted, 1);
    // guid(1) was evicted: its old SN is forwarded again (the documented cost).
    assert!(matches!(
        repo.decide(t, incoming(guid(1, 2), 4, ChangeKind::Alive, 3)),
        Verdict::Forward(_)
    ));
    assert!(repo.len().0 <= 2 && repo.len().1 <= 2);
}

proptest! {
    /// Two paths each deliver one writer's samples in order, losing each copy with 20 %
    /// probability, interleaved at random: what the repository forwards is strictly
    /// increasing (exactly once, in order), and every sample that reached it before a
    /// newer one was forwarded is forwarded.
    #[test]
    fn two_lossy_paths_forward_each_sample_at_most_once_in_order(seed in any::<u64>(), n in 1i64..200) {
        let mut rng = Rng::new(seed);
        let w = guid(1, 2);
        let paths: Vec<Vec<i64>> = (0..2)
            .map(|_| (1..=n).filter(|_| !rng.chance(20)).collect())
            .collect();
        let (mut i, mut j) = (0, 0);
        let mut repo = Repository::new(RepositoryLimits::default(), InstancePolicy::default());
        let mut forwarded = Vec::new();
        while i < paths[0].len() || j < paths[1].len() {
            let take_first = j >= paths[1].len() || (i < paths[0].len() && rng.chance(50));
            let sn = if take_first { i += 1; paths[0][i - 1] } else { j += 1; paths[1][j - 1] };
            if let Verdict::Forward(_) = repo.decide(at(0), incoming(w, sn, ChangeKind::Alive, (sn % 7) as u8)) {
                forwarded.push(sn);
            }
        }
        prop_assert!(forwarded.windows(2).all(|p| p[0] < p[1]));
        let union: std::collections::BTreeSet<i64> = paths.iter().flatten().copied().collect();
        for sn in &forwarded { prop_assert!(union.contains(sn)); }
        // Reliable paths (no loss) forward everything.
        let mut repo = Repository::new(RepositoryLimits::default(), InstancePolicy::default());
        let all: Vec<i64> = (1..=n).flat_map(|s| [s, s]).collect();
        let got: Vec<i64> = all.into_iter().filter(|&s| matches!(repo.decide(at(0), incoming(w, s, ChangeKind::Alive, 1)), Verdict::Forward(_))).collect();
        prop_assert_eq!(got, (1..=n).collect::<Vec<_>>());
    }
}

/// A LAN view on which routers `others` are alive too.
fn lan_with(others: &[u64], readers: Vec<DiscoveredReader>) -> SiteView {
    SiteView {
        routers: others.iter().copied().map(RouterId).collect(),
        ..view(None, readers)
    }
}

#[test]
fn redundant_routers_elect_the_lowest_id_and_the_other_takes_over_when_it_leaves() {
    // Routers 1 and 2 both between LAN 0 and LAN 1, a reader on LAN 1.
    let mut low = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default());
    let mut high = Router::new(RouterId(2), TopicRules::all(), RepositoryLimits::default());
    for (r, other) in [(&mut low, 2), (&mut high, 1)] {
        r.update_site(at(0), SiteId(0), lan_with(&[other], vec![]));
        let readers = vec![reader(9, "Sq", None, &[])];
        r.update_site(at(0), SiteId(1), lan_with(&[other], readers));
    }
    // Each also watches the contested route into LAN 1 (`router::standby`).
    let creates = |a: &[Action]| {
        a.iter()
            .filter(|a| matches!(a, Action::CreateReader { .. } | Action::CreateWriter { .. }))
            .count()
    };
    assert_eq!(creates(&drain(&mut low)), 2, "the lowest id forwards");
    assert_eq!(creates(&drain(&mut high)), 0, "the other stands by");
    // A router on LAN 1 only (not between the same sites) does not compete.
    high.update_site(
        at(1),
        SiteId(1),
        lan_with(&[1, 3], vec![reader(9, "Sq", None, &[])]),
    );
    assert!(drain(&mut high).is_empty());
    high.update_site(at(1), SiteId(0), lan_with(&[3], vec![]));
    // Router 1 left LAN 0 (router 3 is on LAN 0 and 1 but has a higher id): 2 takes over.
    let took_over = drain(&mut high);
    assert_eq!(creates(&took_over), 2, "{took_over:?}");
    assert!(
        matches!(took_over[0], Action::CreateReader { ref spec, .. } if spec.site == SiteId(0))
    );
    assert!(
        matches!(took_over[1], Action::CreateWriter { ref spec, .. } if spec.site == SiteId(1))
    );
}

fn writer_on(p: u8, topic: &str) -> DiscoveredWriter {
    DiscoveredWriter {
        guid: guid(p, 2),
        key: key(topic),
        class: RELIABLE,
        history: History::KeepAll,
    }
}

#[test]
fn an_upstream_writer_that_leaves_the_site_has_its_instances_unregistered_downstream() {
    // A Cyclone or Fast DDS writer on LAN 0 (no PID_KEY_HASH: its proxy reader cannot report
    // NOT_ALIVE_NO_WRITERS for its instances) writes instances 1 and 2, another writer
    // instance 2 as well; the first one's lease expires (it leaves the view of LAN 0).
    let mut r = two_lans_one_reader();
    let (w, other) = (writer_on(5, "Sq"), writer_on(6, "Sq"));
    let lan0 = |writers: Vec<DiscoveredWriter>| SiteView {
        writers,
        ..view(None, vec![])
    };
    assert!(
        r.update_site(at(1), SiteId(0), lan0(vec![w.clone(), other.clone()]))
            .is_empty()
    );
    let Some(Action::CreateReader { id: proxy, .. }) = drain(&mut r).into_iter().next() else {
        panic!("no proxy reader")
    };
    for (g, sn, k) in [(w.guid, 1, 1), (w.guid, 2, 2), (other.guid, 1, 2)] {
        assert_eq!(
            r.on_change(at(2), proxy, &change(g, sn, ChangeKind::Alive, k))
                .len(),
            1
        );
    }
    let f = r.update_site(at(3), SiteId(0), lan0(vec![other.clone()]));
    let unregistered: Vec<_> = f
        .iter()
        .map(|f| (f.request.kind, f.request.key_hash))
        .collect();
    assert_eq!(
        unregistered,
        [(ChangeKind::NotAliveUnregistered, Some([1; 16]))],
        "instance 2 still has a writer"
    );
    // Its proxy reader's own report of the same loss changes nothing more.
    let mut lost = change(w.guid, 0, ChangeKind::NotAliveNoWriters, 1);
    lost.data = Bytes::new();
    assert!(r.on_change(at(4), proxy, &lost).is_empty());
}

#[test]
fn an_upstream_routers_own_unregister_takes_the_sources_that_came_through_it() {
    // Behind two routers: samples of writer W reach us through router 1's writer R with
    // PID_ORIGINAL_WRITER_INFO; when W is lost, router 1 unregisters the instance in its own
    // name (no original writer; the next router relays it naming R as the original): the
    // instance loses every source that came through R and is unregistered here.
    let mut repo = Repository::new(RepositoryLimits::default(), InstancePolicy::default());
    let (w, relay) = (guid(5, 2), guid(7, 2));
    let mut alive = Incoming {
        kind: ChangeKind::Alive,
        identity: Some(SampleIdentity {
            writer_guid: w,
            sequence_number: SequenceNumber(1),
        }),
        via: relay,
        key_hash: Some([1; 16]),
        data: &[0, 1, 0, 0, 1],
    };
    assert_eq!(
        repo.decide(at(0), alive),
        Verdict::Forward(ChangeKind::Alive)
    );
    alive.identity = Some(SampleIdentity {
        writer_guid: relay,
        sequence_number: SequenceNumber(2),
    });
    alive.kind = ChangeKind::NotAliveUnregistered;
    assert_eq!(
        repo.decide(at(1), alive),
        Verdict::Forward(ChangeKind::NotAliveUnregistered)
    );
    // Behind three: router 2 relays router 1's unregister naming router 1's writer as the
    // original; the sources that came through router 2's writer go all the same.
    let mut repo = Repository::new(RepositoryLimits::default(), InstancePolicy::default());
    let relay2 = guid(8, 2);
    alive.kind = ChangeKind::Alive;
    alive.via = relay2;
    alive.identity = Some(SampleIdentity {
        writer_guid: w,
        sequence_number: SequenceNumber(1),
    });
    assert_eq!(
        repo.decide(at(0), alive),
        Verdict::Forward(ChangeKind::Alive)
    );
    alive.kind = ChangeKind::NotAliveUnregistered;
    alive.identity = Some(SampleIdentity {
        writer_guid: relay,
        sequence_number: SequenceNumber(2),
    });
    assert_eq!(
        repo.decide(at(1), alive),
        Verdict::Forward(ChangeKind::NotAliveUnregistered)
    );
}
