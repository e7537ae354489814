//! The keyed TRANSIENT_LOCAL route: samples of a writer that sends no PID_KEY_HASH (Cyclone,
//! Fast DDS) get the key hash a siftdds writer would send, computed from the topic's type,
//! and the downstream writer keeps the upstream writers' HISTORY per instance.

use super::*;
use crate::cdr::Endianness;
use crate::types::{ShapeType, TopicType, XcdrVersion};

const TL: RouteClass = RouteClass {
    reliable: true,
    transient_local: true,
};

fn shape_key(topic: &str, type_name: &str) -> TopicKey {
    TopicKey {
        type_name: type_name.into(),
        ..key(topic)
    }
}

/// A router between two LANs: a TRANSIENT_LOCAL reader of `type_name` on LAN 1 and a
/// KEEP_LAST(3) writer of it on LAN 0; the proxy reader's id.
fn tl_route(r: &mut Router, type_name: &str) -> (EndpointId, History) {
    let mut lan0 = view(None, vec![]);
    lan0.writers.push(DiscoveredWriter {
        guid: guid(3, 2),
        key: shape_key("Sq", type_name),
        class: TL,
        history: History::KeepLast(3),
    });
    r.update_site(at(0), SiteId(0), lan0);
    let mut rd = reader(9, "Sq", None, &[]);
    rd.key = shape_key("Sq", type_name);
    rd.class = TL;
    r.update_site(at(0), SiteId(1), view(None, vec![rd]));
    let actions = drain(r);
    let proxy = actions.iter().find_map(|a| match a {
        Action::CreateReader { id, .. } => Some(*id),
        _ => None,
    });
    let history = actions.iter().find_map(|a| match a {
        Action::CreateWriter { history, .. } => Some(*history),
        _ => None,
    });
    (proxy.unwrap(), history.unwrap())
}

fn shape(color: &str, x: i32) -> ShapeType {
    ShapeType {
        color: color.into(),
        x,
        ..ShapeType::default()
    }
}

fn unkeyed(sn: i64, kind: ChangeKind, data: Vec<u8>) -> CacheChange {
    CacheChange {
        key_hash: None,
        data: Bytes::from(data),
        ..change(guid(3, 2), sn, kind, 0)
    }
}

#[test]
fn a_writer_without_key_hash_gets_one_instance_per_key_and_the_upstream_history() {
    let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default());
    let (proxy, history) = tl_route(&mut r, "ShapeType");
    // No override: the TRANSIENT_LOCAL downstream writer keeps what the writer upstream keeps.
    assert_eq!(history, History::KeepLast(3));
    let colors = ["RED", "BLUE", "GREEN"];
    let mut sn = 0;
    for x in 0..3 {
        for c in colors {
            sn += 1;
            let data = shape(c, x).serialize_as(XcdrVersion::Xcdr1, Endianness::Little);
            let f = r.on_change(at(1), proxy, &unkeyed(sn, ChangeKind::Alive, data.unwrap()));
            assert_eq!(f.len(), 1);
            // What a siftdds writer of ShapeType puts in PID_KEY_HASH.
            assert_eq!(f[0].request.key_hash, shape(c, x).key_hash(), "{c}");
        }
    }
    // A dispose carrying the serialized key (Cyclone 0.10) is that instance's, once.
    let key = shape("BLUE", 0).serialize_key_as(XcdrVersion::Xcdr1, Endianness::Little);
    let d = unkeyed(sn + 1, ChangeKind::NotAliveDisposed, key.unwrap());
    let f = r.on_change(at(2), proxy, &d);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].request.key_hash, shape("BLUE", 0).key_hash());
    assert!(r.on_change(at(2), proxy, &d).is_empty());
}

#[test]
fn an_unknown_type_stays_without_key_hash() {
    let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default());
    let (proxy, _) = tl_route(&mut r, "Opaque");
    let data = shape("RED", 1).serialize_as(XcdrVersion::Xcdr1, Endianness::Little);
    let f = r.on_change(at(1), proxy, &unkeyed(1, ChangeKind::Alive, data.unwrap()));
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].request.key_hash, None);
}
