//! Tests of lazy downstream writers (`RoutingTable::lazy`, `FEED_GRACE`): a route that
//! serves only another router's proxy readers (a link) has a writer only while something
//! feeds it, and its first samples, written before the peer's proxy has matched it, still
//! reach that proxy (it takes the writer's history) — through real core endpoints on
//! `SimNet`.

use super::*;

/// Router `me` between LAN 0 (`lan_readers`, `lan_writers`) and a link (site 1) to router
/// `peer`, whose proxy readers on the link are `link_readers`.
fn update(
    r: &mut Router,
    now: Instant,
    peer: u64,
    lan: (Vec<RemoteReader>, Vec<RemoteWriter>),
    link_readers: Vec<RemoteReader>,
) {
    let mut v = view(None, lan.0);
    v.writers = lan.1;
    r.update_site(now, SiteId(0), v);
    r.update_site(now, SiteId(1), view(Some(peer), link_readers));
}

fn lan_writer(p: u8, topic: &str) -> RemoteWriter {
    RemoteWriter {
        guid: guid(p, 2),
        key: key(topic),
        class: RELIABLE,
        history: History::KeepAll,
    }
}

fn created_writers(actions: &[Action]) -> Vec<(EndpointId, SiteId, String)> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::CreateWriter { id, spec, .. } => Some((*id, spec.site, spec.key.topic.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_link_writer_exists_only_while_fed_and_its_first_sample_opens_it() {
    // Router 1: an application reader of "Ci" on its LAN, router 2's proxy for "Sq" on the
    // link (a reader of "Sq" behind router 2). No writer anywhere yet.
    let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default());
    let peer_proxy = reader(60, "Sq", None, &[2]);
    update(
        &mut r,
        at(0),
        2,
        (vec![reader(9, "Ci", None, &[])], vec![]),
        vec![peer_proxy.clone()],
    );
    let a = drain(&mut r);
    // The LAN reader is an application reader: its writer exists at once. Its subscription
    // spreads over the link (a proxy there, reading the peer's writers from their history).
    // The peer's proxy makes a proxy on the LAN, but no writer on the link: nothing feeds it.
    assert_eq!(
        created_writers(&a),
        [(a_id(&a, SiteId(0)), SiteId(0), "Ci".into())]
    );
    assert!(a.iter().any(|a| matches!(a,
        Action::CreateReader { spec, from_history: true, .. } if spec.site == SiteId(1))));
    let Some(&Action::CreateReader { id: lan_proxy, .. }) = a.iter().find(|a| {
        matches!(a, Action::CreateReader { spec, from_history: false, .. } if spec.site == SiteId(0))
    }) else {
        panic!("{a:?}")
    };
    let link_route = (SiteId(1), key("Sq"), RELIABLE, 0, false);
    assert!(r.table().lazy(&link_route) && !r.table().fed(&link_route));
    // The LAN writer's first sample reaches the proxy before its SEDP reaches the view: the
    // sample opens the link writer, and goes to it.
    let w = guid(5, 2);
    let f = r.on_change(at(10), lan_proxy, &change(w, 1, ChangeKind::Alive, 1));
    let a = drain(&mut r);
    let [(id, SiteId(1), ref topic)] = created_writers(&a)[..] else {
        panic!("{a:?}")
    };
    assert_eq!(topic, "Sq");
    assert_eq!(f.iter().map(|f| f.writer).collect::<Vec<_>>(), [id]);
    // Another site's view changes before the writer shows: the route is kept (FEED_GRACE).
    update(
        &mut r,
        at(20),
        2,
        (vec![], vec![]),
        vec![peer_proxy.clone()],
    );
    assert!(created_writers(&drain(&mut r)).is_empty());
    // The writer shows in the LAN's view: fed by the table; it outlives the grace.
    let fed = (vec![], vec![lan_writer(5, "Sq")]);
    update(&mut r, at(30), 2, fed.clone(), vec![peer_proxy.clone()]);
    r.handle_timeout(at(10_000));
    let a = drain(&mut r);
    assert!(a.is_empty(), "{a:?}");
    assert_eq!(r.poll_timeout(), None);
    // A second sample goes the same way, once.
    let f = r.on_change(at(10_001), lan_proxy, &change(w, 2, ChangeKind::Alive, 1));
    assert_eq!(f.iter().map(|f| f.writer).collect::<Vec<_>>(), [id]);
    // The writer leaves: its unregister still goes (the route lingers), then the route goes
    // FEED_GRACE after its last forward.
    update(
        &mut r,
        at(10_100),
        2,
        (vec![], vec![]),
        vec![peer_proxy.clone()],
    );
    assert!(drain(&mut r).is_empty());
    let mut gone = change(w, 0, ChangeKind::NotAliveNoWriters, 1);
    gone.data = Bytes::new();
    let f = r.on_change(at(10_200), lan_proxy, &gone);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].request.kind, ChangeKind::NotAliveUnregistered);
    // (The deadline set when the writer left is reconsidered first: the unregister moved it.)
    assert_eq!(r.poll_timeout(), Some(at(12_001)));
    r.handle_timeout(at(12_001));
    assert!(drain(&mut r).is_empty());
    assert_eq!(r.poll_timeout(), Some(at(12_200)));
    r.handle_timeout(at(12_199));
    assert!(drain(&mut r).is_empty());
    r.handle_timeout(at(12_200));
    assert_eq!(
        drain(&mut r),
        [Action::DeleteWriter {
            id,
            site: SiteId(1)
        }]
    );
    // With the writer back, the route too.
    update(&mut r, at(13_000), 2, fed, vec![peer_proxy.clone()]);
    assert_eq!(created_writers(&drain(&mut r)).len(), 1);
    // A peer router's downstream writer feeds as well (publications known along the path):
    // a second link (site 2) to router 3, whose proxy reads "Sq"; no LAN writer, but router
    // 2's writer of "Sq" on link 1.
    let mut peer_writer = lan_writer(70, "Sq");
    peer_writer.guid = guid(70, 3);
    let mut link1 = view(Some(2), vec![]);
    link1.writers.push(peer_writer);
    r.update_site(at(14_000), SiteId(0), view(None, vec![]));
    r.update_site(at(14_000), SiteId(1), link1);
    r.update_site(
        at(14_000),
        SiteId(2),
        view(Some(3), vec![reader(61, "Sq", None, &[3])]),
    );
    let into_link2 = (SiteId(2), key("Sq"), RELIABLE, 0, false);
    assert!(r.table().lazy(&into_link2) && r.table().fed(&into_link2));
    assert!(r.table().writers().contains_key(&into_link2));
}

fn a_id(actions: &[Action], site: SiteId) -> EndpointId {
    created_writers(actions)
        .iter()
        .find(|(_, s, _)| *s == site)
        .map(|(id, _, _)| *id)
        .unwrap_or(0)
}

/// The core endpoints of that case: the peer's VOLATILE proxy reader exists first; the lazy
/// writer is created (it matches the reader at once, being its own participant's remote
/// reader) and writes its first samples before its SEDP has reached the reader. A reader
/// that takes the writer's history gets them all; one that starts at the match (what link
/// proxies did before) loses them.
#[test]
fn the_first_samples_of_a_new_link_writer_reach_a_volatile_reader_taking_its_history() {
    use crate::core::participant::{ReaderSpec, WriterSpec};
    use crate::core::sim::{Faults, SimNet};
    use crate::qos::{DataReaderQos, DataWriterQos, Reliability};
    let mut lost_at_match = 0;
    let cases = (1..=6u64).flat_map(|seed| [(true, seed), (false, seed)]);
    for (from_history, seed) in cases {
        let mut net = SimNet::new(2, seed, |c| {
            c.announce_period = core::time::Duration::from_millis(100);
        });
        net.run_for(300);
        let now = net.now();
        let rq = DataReaderQos {
            history: History::KeepAll,
            reliability: Reliability::reliable(),
            ..DataReaderQos::default()
        };
        let mut spec = ReaderSpec::new("Sq", "T", true, rq);
        spec.start_at_match = !from_history;
        let r = net.nodes[1].p.create_reader(now, spec);
        assert!(net.run_until(5_000, |n| n.nodes[0].p.remote_readers().count() == 1));
        let wq = DataWriterQos {
            history: History::KeepAll,
            reliability: Reliability::reliable(),
            ..DataWriterQos::default()
        };
        // The WAN loses half the datagrams while the writer is new: its SEDP announcement or
        // its DATA, in either order (the race: DATA before the reader knows the writer).
        net.faults = Faults {
            loss_percent: 50,
            ..Faults::default()
        };
        let now = net.now();
        let w = net.nodes[0]
            .p
            .create_writer(now, WriterSpec::new("Sq", "T", true, wq));
        assert_eq!(net.nodes[0].p.matched_readers(w), 1, "matched at creation");
        for sn in 1..=5u8 {
            let data = Bytes::from(vec![0, 1, 0, 0, sn]);
            let request = WriteRequest::new(ChangeKind::Alive, Some([1; 16]), data);
            net.nodes[0].p.write(now, w, request).unwrap();
        }
        assert_eq!(
            net.nodes[1].p.matched_writers(r),
            0,
            "not yet matched there"
        );
        net.run_for(30);
        net.faults = Faults::default();
        assert!(net.run_until(10_000, |n| n.nodes[0].p.all_acked(w)));
        let now = net.now();
        let got: Vec<u8> = std::iter::from_fn(|| net.nodes[1].p.take(now, r))
            .map(|c| c.data[4])
            .collect();
        if from_history {
            assert_eq!(got, [1, 2, 3, 4, 5], "seed {seed}");
        } else {
            lost_at_match += 5 - got.len();
        }
    }
    assert!(
        lost_at_match > 0,
        "starting at the match loses first samples"
    );
}
