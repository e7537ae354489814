//! Tests of `router::standby`: the election's settle time when two routers start at once,
//! and what a standby learns from the designated router's copies on the downstream site
//! (witness readers), so that it forwards only what the site has not had, also after it
//! stood by again. Deterministic: `now` is given, nothing sleeps.

use super::*;

const SETTLE: core::time::Duration = core::time::Duration::from_secs(4);

/// What the other routers' participants on a LAN are (router `n` has prefix `[n; 12]`).
fn lan_of(others: &[u64], readers: Vec<DiscoveredReader>) -> SiteView {
    SiteView {
        router_participants: others.iter().map(|&n| GuidPrefix([n as u8; 12])).collect(),
        ..lan_with(others, readers)
    }
}

fn endpoints(actions: &[Action]) -> usize {
    actions
        .iter()
        .filter(|a| matches!(a, Action::CreateReader { .. } | Action::CreateWriter { .. }))
        .count()
}

/// Both routers between LAN 0 and LAN 1 (a reader on LAN 1), given the routers each sees.
fn views(r: &mut Router, now: Instant, others: &[u64]) {
    r.update_site(now, SiteId(0), lan_of(others, vec![]));
    let readers = vec![reader(9, "Sq", None, &[])];
    r.update_site(now, SiteId(1), lan_of(others, readers));
}

#[test]
fn two_routers_starting_at_once_settle_and_then_only_the_lowest_forwards() {
    // Without a settle time both forward while they have not heard each other.
    for id in [1, 2] {
        let mut r = Router::new(RouterId(id), TopicRules::all(), RepositoryLimits::default());
        views(&mut r, at(0), &[]);
        assert_eq!(endpoints(&drain(&mut r)), 2, "router {id} forwards at once");
    }
    let mut low = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default())
        .with_settle(SETTLE);
    let mut high = Router::new(RouterId(2), TopicRules::all(), RepositoryLimits::default())
        .with_settle(SETTLE);
    // t = 0: neither has heard the other yet: neither forwards. Alone, each would settle
    // after `UNCONTESTED_SETTLE`.
    for r in [&mut low, &mut high] {
        views(r, at(0), &[]);
        assert!(drain(r).is_empty());
        assert_eq!(r.poll_timeout(), Some(at(500)));
    }
    // t = 0.3 s: they hear each other (each answers the other's first SPDP at once); the
    // route into LAN 1 is contested: a witness each, and the full settle time.
    views(&mut low, at(300), &[2]);
    views(&mut high, at(300), &[1]);
    for r in [&mut low, &mut high] {
        let a = drain(r);
        assert_eq!(a.len(), 1, "{a:?}");
        assert!(matches!(&a[0], Action::CreateWitness { spec, .. } if spec.site == SiteId(1)));
        assert_eq!(r.poll_timeout(), Some(at(4000)));
        r.handle_timeout(at(500));
        r.handle_timeout(at(3999));
        assert!(drain(r).is_empty(), "not settled before 4 s");
    }
    // t = 4 s: settled; only the lowest id forwards, its proxy takes the writers' history
    // (what its repository learns from the other's copies filters it).
    low.handle_timeout(at(4000));
    high.handle_timeout(at(4000));
    let a = drain(&mut low);
    assert_eq!(endpoints(&a), 2, "{a:?}");
    assert!(matches!(
        &a[0],
        Action::CreateReader {
            from_history: true,
            ..
        }
    ));
    assert!(drain(&mut high).is_empty(), "the other stands by");
    assert_eq!(low.poll_timeout(), None);
}

#[test]
fn a_router_alone_on_its_sites_forwards_once_it_has_heard_them_not_a_lease_later() {
    // A lone router (re)started: no other router answers on either LAN within
    // `UNCONTESTED_SETTLE`, so it forwards then, not after the 4 s settle time.
    let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default())
        .with_settle(SETTLE);
    views(&mut r, at(0), &[]);
    assert!(drain(&mut r).is_empty());
    r.handle_timeout(at(499));
    assert!(
        drain(&mut r).is_empty(),
        "not before the SPDP answers could come"
    );
    r.handle_timeout(at(500));
    assert_eq!(endpoints(&drain(&mut r)), 2);
    // A router at the far end of a link never competes: it does not hold the site back.
    let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default())
        .with_settle(SETTLE);
    r.update_site(at(0), SiteId(0), lan_of(&[], vec![]));
    let link = SiteView {
        peer_router: Some(RouterId(7)),
        ..lan_of(&[7], vec![reader(9, "Sq", None, &[])])
    };
    r.update_site(at(0), SiteId(1), link);
    r.handle_timeout(at(500));
    assert_eq!(endpoints(&drain(&mut r)), 2);
}

fn from_router(router: u8, original: Guid, sn: i64) -> CacheChange {
    let mut c = change(
        Guid::new(GuidPrefix([router; 12]), EntityId([0, 0, 7, 0x02])),
        1000 + sn,
        ChangeKind::Alive,
        1,
    );
    c.original_writer = Some(SampleIdentity {
        writer_guid: original,
        sequence_number: SequenceNumber(sn),
    });
    c
}

fn forwarded(r: &mut Router, now: Instant, proxy: EndpointId, w: Guid, sns: &[i64]) -> Vec<i64> {
    sns.iter()
        .filter(|&&sn| {
            !r.on_change(now, proxy, &change(w, sn, ChangeKind::Alive, 1))
                .is_empty()
        })
        .copied()
        .collect()
}

#[test]
fn a_standby_learns_what_the_site_had_and_forwards_only_the_rest() {
    let w = guid(5, 2); // the application writer on LAN 0
    let mut high = Router::new(RouterId(2), TopicRules::all(), RepositoryLimits::default());
    views(&mut high, at(0), &[1]);
    let a = drain(&mut high);
    let [Action::CreateWitness { id: witness, .. }] = a[..] else {
        panic!("{a:?}")
    };
    // Router 1 forwards samples 1..=5 into LAN 1; its copies reach our witness.
    for sn in 1..=5 {
        high.on_witness(at(0), witness, &from_router(1, w, sn));
    }
    // Not a router's writer (an application on LAN 1 with the same topic), or no identity:
    // nothing learnt.
    high.on_witness(at(0), witness, &from_router(7, w, 6));
    let mut plain = from_router(1, w, 6);
    plain.original_writer = None;
    high.on_witness(at(0), witness, &plain);
    high.on_witness(at(0), 999, &from_router(1, w, 6));
    assert_eq!(high.counters().standby.learnt, 5);
    assert_eq!(high.counters().standby.ignored, 3);
    // Router 1 leaves: we take over; the proxy takes the writer's history and the
    // repository drops what LAN 1 had.
    views(&mut high, at(100), &[]);
    let a = drain(&mut high);
    let Some(&Action::CreateReader {
        id: proxy,
        from_history: true,
        ..
    }) = a.first()
    else {
        panic!("{a:?}")
    };
    assert_eq!(endpoints(&a), 2, "{a:?}");
    assert_eq!(
        forwarded(&mut high, at(101), proxy, w, &[1, 2, 3, 4, 5, 6, 7, 8]),
        [6, 7, 8]
    );
    // Router 1 is back: we stand by again (the route's knowledge is kept for the witness),
    // it forwards 9 and 10, then leaves again: we forward only what came after.
    views(&mut high, at(200), &[1]);
    let a = drain(&mut high);
    assert!(
        a.iter().any(|a| matches!(a, Action::DeleteWriter { .. })) && endpoints(&a) == 0,
        "{a:?}"
    );
    // Uncontested while router 1 was away, the route got a new witness.
    let Some(&Action::CreateWitness { id: witness, .. }) =
        a.iter().find(|a| matches!(a, Action::CreateWitness { .. }))
    else {
        panic!("{a:?}")
    };
    for sn in 9..=10 {
        high.on_witness(at(0), witness, &from_router(1, w, sn));
    }
    views(&mut high, at(300), &[]);
    let a = drain(&mut high);
    let Some(&Action::CreateReader { id: proxy, .. }) = a.first() else {
        panic!("{a:?}")
    };
    assert_eq!(
        forwarded(&mut high, at(301), proxy, w, &[7, 8, 9, 10, 11]),
        [11]
    );
}

/// Router `router`'s copy of `original`'s change `sn`: `kind`, instance `k`.
fn copy_of(router: u8, original: Guid, sn: i64, kind: ChangeKind, k: u8) -> CacheChange {
    let mut c = from_router(router, original, sn);
    c.kind = kind;
    c.key_hash = Some([k; 16]);
    c
}

#[test]
fn a_witnessed_dispose_is_not_forwarded_twice_and_a_witnessed_instance_is_unregistered() {
    let (w1, w2) = (guid(5, 2), guid(6, 2)); // application writers on LAN 0
    let mut high = Router::new(RouterId(2), TopicRules::all(), RepositoryLimits::default());
    views(&mut high, at(0), &[1]);
    let a = drain(&mut high);
    let [Action::CreateWitness { id: witness, .. }] = a[..] else {
        panic!("{a:?}")
    };
    // Router 1 forwarded into LAN 1: instance 1 written by w1 then disposed, instance 2
    // written by w1.
    for c in [
        copy_of(1, w1, 1, ChangeKind::Alive, 1),
        copy_of(1, w1, 2, ChangeKind::NotAliveDisposed, 1),
        copy_of(1, w1, 3, ChangeKind::Alive, 2),
    ] {
        high.on_witness(at(10), witness, &c);
    }
    views(&mut high, at(100), &[]);
    let a = drain(&mut high);
    let Some(&Action::CreateReader { id: proxy, .. }) = a.first() else {
        panic!("{a:?}")
    };
    // w2 disposes instance 1 too: LAN 1 has it disposed already (from router 1).
    let f = high.on_change(
        at(101),
        proxy,
        &change(w2, 1, ChangeKind::NotAliveDisposed, 1),
    );
    assert!(f.is_empty(), "{f:?}");
    assert_eq!(high.counters().repository.instance_unchanged, 1);
    // w1 is lost upstream: instance 2, registered by w1 at LAN 1 through router 1, is
    // unregistered, once (without the witness's instance state it never would be: the
    // standby had no source for it).
    let mut lost = change(w1, 0, ChangeKind::NotAliveNoWriters, 2);
    lost.data = Bytes::new();
    let f = high.on_change(at(102), proxy, &lost);
    assert_eq!(
        f.iter().map(|f| f.request.kind).collect::<Vec<_>>(),
        [ChangeKind::NotAliveUnregistered]
    );
    assert!(high.on_change(at(103), proxy, &lost).is_empty());
}
