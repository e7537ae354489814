//! A topic whose type no IDL file gives: the router forwards its samples unfiltered and
//! without key hash until it learns the type from an endpoint that announced it
//! (`router::wire_type`), then filters, computes key hashes and transcodes with the type
//! the TypeObjects describe; an IDL file still overrides.

use super::*;
use crate::cdr::Endianness;
use crate::types::TypeDescriptor;
use crate::types::xtypes::to_descriptor::type_descriptor;
use crate::types::xtypes::{TypeIdentifier, TypeObject};
use wire_type::{Announced, TypeRequest};

const IDL: &str = "module m { @final struct Reading { @key long id; long v; }; };";

/// `m::Reading` as the router gets it from the wire: IDL → TypeObjects (what a peer's
/// TypeLookup server sends) → the descriptor `types::xtypes::to_descriptor` builds.
fn learnt_descriptor() -> (TypeDescriptor, Vec<u8>) {
    let loader = crate::idl::MemLoader::new().with("r.idl", IDL);
    let spec = crate::idl::parse_with(&loader, std::path::Path::new("r.idl"), &[]).unwrap();
    let rep = crate::idl::to_type_object::type_representation(&spec.model, "m::Reading").unwrap();
    let objects: Vec<(TypeIdentifier, TypeObject)> = rep
        .objects
        .iter()
        .map(|(id, b)| {
            (
                id.clone(),
                TypeObject::from_bytes(b, Endianness::Little).unwrap(),
            )
        })
        .collect();
    let lookup = |id: &TypeIdentifier| objects.iter().find(|(i, _)| i == id).map(|(_, o)| o);
    let id = &rep.information.complete.typeid_with_size.type_id;
    (type_descriptor(&lookup, id).unwrap(), rep.information_bytes)
}

/// An XCDR1 little-endian `m::Reading` sample.
fn reading(id: i32, v: i32) -> Bytes {
    let mut buf = vec![0x00, 0x01, 0x00, 0x00];
    buf.extend_from_slice(&id.to_le_bytes());
    buf.extend_from_slice(&v.to_le_bytes());
    Bytes::from(buf)
}

fn sample(sn: i64, id: i32, v: i32) -> CacheChange {
    // A Cyclone 0.10 writer: no PID_KEY_HASH.
    CacheChange {
        key_hash: None,
        data: reading(id, v),
        ..change(guid(5, 2), sn, ChangeKind::Alive, 0)
    }
}

/// A router between two LANs: on LAN 1 a reader of "Rd" (`m::Reading`) with the filter
/// `v < 10`; on LAN 0 its writer, which announced its type. Returns the router, its proxy
/// reader and the writer's announcement.
fn filtered_route(rules: TopicRules) -> (Router, EndpointId, Announced) {
    let mut r = Router::new(RouterId(1), rules, RepositoryLimits::default());
    let rd = TopicKey {
        type_name: "m::Reading".into(),
        ..key("Rd")
    };
    let writer = DiscoveredWriter {
        guid: guid(5, 2),
        key: rd.clone(),
        class: RELIABLE,
        history: History::KeepLast(1),
    };
    let mut lan0 = view(None, vec![]);
    lan0.writers.push(writer);
    r.update_site(at(0), SiteId(0), lan0);
    let filtered = DiscoveredReader {
        key: rd,
        ..reader(9, "Rd", Some("v < 10"), &[])
    };
    r.update_site(at(0), SiteId(1), view(None, vec![filtered]));
    let proxy = drain(&mut r)
        .into_iter()
        .find_map(|a| match a {
            Action::CreateReader { id, .. } => Some(id),
            _ => None,
        })
        .unwrap();
    let announced = Announced {
        guid: guid(5, 2),
        topic: "Rd".into(),
        type_name: "m::Reading".into(),
        writer: true,
        type_information: learnt_descriptor().1,
    };
    (r, proxy, announced)
}

#[test]
fn a_type_learnt_from_the_wire_filters_and_keys_the_samples_from_then_on() {
    let (mut r, proxy, announced) = filtered_route(TopicRules::all());
    // Unknown type: forwarded unfiltered, without key hash.
    let f = r.on_change(at(1), proxy, &sample(1, 7, 50));
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].request.key_hash, None);
    // The writer's announcement: its participant is asked for the type.
    r.note_announced_types(at(2), SiteId(0), std::slice::from_ref(&announced));
    let request = r.poll_type_request(at(2)).unwrap();
    assert_eq!(
        request,
        TypeRequest {
            key: ("Rd".into(), "m::Reading".into()),
            site: SiteId(0),
            endpoint: guid(5, 2),
            type_information: announced.type_information.clone(),
            writer: true,
        }
    );
    assert_eq!(r.types_asked(), vec![request.clone()]);
    let (desc, _) = learnt_descriptor();
    assert_eq!(
        r.type_learnt(at(30), &request, desc.clone()),
        Some(core::time::Duration::from_millis(28))
    );
    assert!(r.types_asked().is_empty());
    // From now on: v = 50 does not pass `v < 10` and is not forwarded; v = 3 is, with the
    // key hash of id 7 (big-endian PLAIN_CDR2 of the key, zero-padded: RTPS 2.5 §9.6.4.8).
    assert!(r.on_change(at(31), proxy, &sample(2, 7, 50)).is_empty());
    let f = r.on_change(at(32), proxy, &sample(3, 7, 3));
    assert_eq!(f.len(), 1);
    let mut want = [0u8; 16];
    want[..4].copy_from_slice(&7i32.to_be_bytes());
    assert_eq!(f[0].request.key_hash, Some(want));
    let c = r.counters();
    assert_eq!((c.wire_type.requests, c.wire_type.learnt), (1, 1));
    assert_eq!(c.route_filter.skipped, 1);
    // The same type announced again is not asked for.
    r.note_announced_types(at(40), SiteId(0), &[announced]);
    assert_eq!(r.poll_type_request(at(40)), None);
}

#[test]
fn an_idl_file_overrides_the_type_on_the_wire() {
    // The configured type has the key and `v` the other way round.
    let loader = crate::idl::MemLoader::new().with(
        "c.idl",
        "module m { @final struct Reading { long v; @key long id; }; };",
    );
    let spec = crate::idl::parse_with(&loader, std::path::Path::new("c.idl"), &[]).unwrap();
    let mut keys = keys::KeyTypes::new();
    keys.add(
        glob::Pattern::new("Rd").unwrap(),
        None,
        crate::idl::descriptors(&spec),
    );
    let (mut r, proxy, announced) = filtered_route(TopicRules::all().with_key_types(keys));
    r.note_announced_types(at(1), SiteId(0), &[announced]);
    assert_eq!(r.poll_type_request(at(1)), None, "not even asked");
    let (desc, _) = learnt_descriptor();
    let request = TypeRequest {
        key: ("Rd".into(), "m::Reading".into()),
        site: SiteId(0),
        endpoint: guid(5, 2),
        type_information: Vec::new(),
        writer: true,
    };
    assert_eq!(r.type_learnt(at(2), &request, desc), None);
    // The configured type reads v = 7 from (7, 50): passes `v < 10`.
    assert_eq!(r.on_change(at(3), proxy, &sample(1, 7, 50)).len(), 1);
    assert_eq!(r.counters().wire_type.requests, 0);
}
