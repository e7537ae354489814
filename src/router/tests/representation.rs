//! Routes into readers of different data representations: the router writes each in the
//! representation its downstream writer announces (`router::transcode`), for a topic whose
//! type it knows (here the built-in ShapeType).

use super::*;
use crate::cdr::Endianness;
use crate::types::{ShapeType, TopicType, XcdrVersion};

/// A router between two LANs: on LAN 1 an XCDR reader and an XCDR2-only reader of "Sq"
/// (ShapeType); the proxy reader's id and the downstream writers' ids by representation.
fn two_representations() -> (
    Router,
    EndpointId,
    std::collections::HashMap<i16, EndpointId>,
) {
    let mut r = Router::new(RouterId(1), TopicRules::all(), RepositoryLimits::default());
    r.update_site(at(0), SiteId(0), view(None, vec![]));
    let readers = [(8, 0), (9, 2)].map(|(p, representation)| DiscoveredReader {
        key: TopicKey {
            type_name: "ShapeType".into(),
            ..key("Sq")
        },
        representation,
        ..reader(p, "Sq", None, &[])
    });
    r.update_site(at(0), SiteId(1), view(None, readers.to_vec()));
    let mut proxy = None;
    let mut writers = std::collections::HashMap::new();
    for a in drain(&mut r) {
        match a {
            Action::CreateReader { id, .. } => proxy = Some(id),
            Action::CreateWriter { id, spec, .. } => {
                writers.insert(spec.representation, id);
            }
            _ => {}
        }
    }
    (r, proxy.unwrap(), writers)
}

#[test]
fn an_xcdr1_sample_reaches_an_xcdr2_only_reader_as_xcdr2_and_its_dispose_with_its_key() {
    let (mut r, proxy, writers) = two_representations();
    assert_eq!(writers.len(), 2, "one downstream writer per representation");
    let s = ShapeType {
        color: "PURPLE_AND_LONGER_THAN_16".into(),
        x: 5,
        ..ShapeType::default()
    };
    let x1 = s
        .serialize_as(XcdrVersion::Xcdr1, Endianness::Little)
        .unwrap();
    // A Cyclone XCDR1 writer: no PID_KEY_HASH.
    let mut c = change(guid(5, 2), 1, ChangeKind::Alive, 0);
    c.key_hash = None;
    c.data = Bytes::from(x1.clone());
    let f = r.on_change(at(1), proxy, &c);
    assert_eq!(f.len(), 2);
    for fw in &f {
        assert_eq!(fw.request.key_hash, s.key_hash());
        if fw.writer == writers[&0] {
            assert_eq!(&fw.request.data[..], &x1[..], "as received");
        } else {
            let want = s
                .serialize_as(XcdrVersion::Xcdr2, Endianness::Little)
                .unwrap();
            assert_eq!(&fw.request.data[..], &want[..]);
        }
    }
    // A Fast DDS dispose: the key hash only.
    let mut d = change(guid(5, 2), 2, ChangeKind::NotAliveDisposed, 0);
    d.key_hash = s.key_hash();
    d.data = Bytes::new();
    let f = r.on_change(at(2), proxy, &d);
    assert_eq!(f.len(), 2);
    for fw in &f {
        let version = if fw.writer == writers[&0] {
            XcdrVersion::Xcdr1
        } else {
            XcdrVersion::Xcdr2
        };
        let want = s.serialize_key_as(version, Endianness::Little).unwrap();
        assert_eq!(&fw.request.data[..], &want[..], "{version:?}");
    }
    let k = r.counters().transcode;
    assert_eq!((k.transcoded, k.keys_built, k.as_is), (1, 2, 0));
}
