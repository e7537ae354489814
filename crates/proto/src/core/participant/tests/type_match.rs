//! Matching by type assignability (DDS-XTypes 1.3 §7.6.3.4, §7.2.4.4) between two
//! participants in the simulated network: both announce TypeInformation for a type of one
//! name, the remote TypeObject is fetched through the TypeLookup service, and the pair is
//! matched when the writer's type is assignable to the reader's, reported as
//! TYPE_CONSISTENCY_ENFORCEMENT when not.

use crate::core::Event;
use crate::core::participant::*;
use crate::core::sim::SimNet;
use crate::idl::to_type_object;
use crate::qos::{
    DataReaderQos, DataRepresentation, DataWriterQos, QosPolicyId, Reliability,
    TypeConsistencyEnforcement,
};
use crate::types::xtypes::TypeRepresentation;
use crate::wire::Guid;

fn probe(idl: &str) -> &'static TypeRepresentation {
    Box::leak(Box::new(to_type_object::of_idl_text(idl, "Probe").0))
}

const READER_TYPE: &str = "@appendable struct Probe { @key long id; long x; };";

fn xcdr2() -> DataRepresentation {
    DataRepresentation::new([DataRepresentation::XCDR2])
}

/// Two participants: node 0 with `Probe` typed `writer_idl`, node 1 with `reader_idl`.
fn nodes(seed: u64, writer_idl: &str, reader_idl: &str) -> SimNet {
    let mut net = SimNet::new(2, seed, |_| {});
    net.run_for(100);
    net.nodes[0].p.register_type("Probe", probe(writer_idl));
    net.nodes[1].p.register_type("Probe", probe(reader_idl));
    net
}

/// Creates a reliable writer of `Probe` on `topic` at node 0 (`repr` its
/// DATA_REPRESENTATION).
fn writer(net: &mut SimNet, topic: &str, repr: DataRepresentation) -> Guid {
    let now = net.now();
    let wqos = DataWriterQos {
        reliability: Reliability::reliable(),
        data_representation: repr,
        ..DataWriterQos::default()
    };
    net.nodes[0]
        .p
        .create_writer(now, WriterSpec::new(topic, "Probe", true, wqos))
}

/// Creates a reliable XCDR2 reader of `Probe` on topic `Probe` at node 1.
fn reader(net: &mut SimNet, enforcement: TypeConsistencyEnforcement) -> Guid {
    let now = net.now();
    let rqos = DataReaderQos {
        reliability: Reliability::reliable(),
        data_representation: xcdr2(),
        type_consistency: enforcement,
        ..DataReaderQos::default()
    };
    net.nodes[1]
        .p
        .create_reader(now, ReaderSpec::new("Probe", "Probe", true, rqos))
}

/// A writer of `Probe` typed `writer_idl` on node 0 and a reader typed `reader_idl` on node
/// 1 (`writer_repr` is the writer's DATA_REPRESENTATION), after discovery and type lookup.
fn pair(
    writer_idl: &str,
    writer_repr: DataRepresentation,
    reader_idl: &str,
    enforcement: TypeConsistencyEnforcement,
) -> (SimNet, Guid, Guid) {
    let mut net = nodes(0x7e57, writer_idl, reader_idl);
    let w = writer(&mut net, "Probe", writer_repr);
    let r = reader(&mut net, enforcement);
    net.run_for(1000);
    (net, w, r)
}

fn reader_matched(events: &[Event], w: Guid, r: Guid) -> bool {
    events.iter().any(|e| {
        matches!(e, Event::SubscriptionMatched { reader, writer, matched: true }
            if *reader == r && *writer == w)
    })
}

fn writer_matched(events: &[Event], w: Guid, r: Guid) -> bool {
    events.iter().any(|e| {
        matches!(e, Event::PublicationMatched { reader, writer, matched: true }
            if *reader == r && *writer == w)
    })
}

fn type_inconsistent(events: &[Event]) -> bool {
    events.iter().any(|e| match e {
        Event::RequestedIncompatibleQos { policies, .. }
        | Event::OfferedIncompatibleQos { policies, .. } => {
            policies.contains(QosPolicyId::TypeConsistencyEnforcement)
        }
        _ => false,
    })
}

#[test]
fn different_types_under_one_name_are_not_matched_and_reported() {
    let (mut net, w, r) = pair(
        "@appendable struct Probe { @key long id; string x; };",
        xcdr2(),
        READER_TYPE,
        TypeConsistencyEnforcement::default(),
    );
    let reader_events = net.events(1);
    assert!(!reader_matched(&reader_events, w, r), "{reader_events:?}");
    assert!(type_inconsistent(&reader_events), "{reader_events:?}");
    let writer_events = net.events(0);
    assert!(!writer_matched(&writer_events, w, r), "{writer_events:?}");
    assert!(type_inconsistent(&writer_events), "{writer_events:?}");
    // Each side fetched the other's type to decide.
    assert!(net.nodes[0].p.type_client_stats().replies_matched > 0);
    assert!(net.nodes[1].p.type_client_stats().replies_matched > 0);
}

#[test]
fn an_appendable_type_with_an_added_member_is_matched_under_default_enforcement() {
    let (mut net, w, r) = pair(
        "@appendable struct Probe { @key long id; long x; double added; };",
        xcdr2(),
        READER_TYPE,
        TypeConsistencyEnforcement::default(),
    );
    let reader_events = net.events(1);
    assert!(reader_matched(&reader_events, w, r), "{reader_events:?}");
    assert!(!type_inconsistent(&reader_events));
    assert!(writer_matched(&net.events(0), w, r));
    assert!(net.nodes[1].p.type_client_stats().replies_matched > 0);
}

#[test]
fn prevent_type_widening_refuses_the_added_member() {
    let strict = TypeConsistencyEnforcement {
        prevent_type_widening: true,
        ..TypeConsistencyEnforcement::default()
    };
    let (mut net, w, r) = pair(
        "@appendable struct Probe { @key long id; long x; double added; };",
        xcdr2(),
        READER_TYPE,
        strict,
    );
    let reader_events = net.events(1);
    assert!(!reader_matched(&reader_events, w, r));
    assert!(type_inconsistent(&reader_events));
}

#[test]
fn the_same_type_matches_without_a_type_lookup() {
    let (mut net, w, r) = pair(
        READER_TYPE,
        xcdr2(),
        READER_TYPE,
        TypeConsistencyEnforcement::default(),
    );
    assert!(reader_matched(&net.events(1), w, r));
    assert!(writer_matched(&net.events(0), w, r));
    assert_eq!(net.nodes[0].p.type_client_stats().requests_sent, 0);
    assert_eq!(net.nodes[1].p.type_client_stats().requests_sent, 0);
}

#[test]
fn a_writer_without_type_information_matches_by_type_name() {
    // An XCDR1 writer announces no TypeInformation: the type name decides.
    let (mut net, w, r) = pair(
        "@appendable struct Probe { @key long id; string x; };",
        DataRepresentation::new([DataRepresentation::XCDR2, DataRepresentation::XCDR]),
        READER_TYPE,
        TypeConsistencyEnforcement::default(),
    );
    assert!(reader_matched(&net.events(1), w, r));
    // Unless the reader forces type validation.
    let forced = TypeConsistencyEnforcement {
        force_type_validation: true,
        ..TypeConsistencyEnforcement::default()
    };
    let (mut net, w, r) = pair(
        "@appendable struct Probe { @key long id; string x; };",
        DataRepresentation::new([DataRepresentation::XCDR2, DataRepresentation::XCDR]),
        READER_TYPE,
        forced,
    );
    let events = net.events(1);
    assert!(!reader_matched(&events, w, r));
    assert!(type_inconsistent(&events));
}

#[test]
fn a_remote_type_that_cannot_be_fetched_falls_back_to_the_type_name() {
    let other = "@appendable struct Probe { @key long id; string x; };";
    let mut net = nodes(0x7e58, other, READER_TYPE);
    let r = reader(&mut net, TypeConsistencyEnforcement::default());
    net.run_for(500);
    let w = writer(&mut net, "Probe", xcdr2());
    // The reader's participant asks for the writer's type; the writer's participant falls
    // silent before it can answer, past every retry.
    assert!(net.run_until(2000, |n| n.nodes[1].p.type_client_stats().requests_sent > 0));
    net.silenced = vec![0];
    net.run_for(10_000);
    let stats = net.nodes[1].p.type_client_stats();
    assert!(stats.given_up >= 1, "{stats:?}");
    net.silenced.clear();
    net.run_for(2000);
    // Given up: the type name decides, and the reader matches.
    let events = net.events(1);
    assert!(reader_matched(&events, w, r), "{events:?}");
    assert!(!type_inconsistent(&events));
}

#[test]
fn nothing_is_fetched_for_endpoints_of_another_topic() {
    let other = "@appendable struct Probe { @key long id; string x; };";
    let mut net = nodes(0x7e59, other, READER_TYPE);
    writer(&mut net, "Other", xcdr2());
    reader(&mut net, TypeConsistencyEnforcement::default());
    net.run_for(1000);
    assert_eq!(net.nodes[0].p.type_client_stats().requests_sent, 0);
    assert_eq!(net.nodes[1].p.type_client_stats().requests_sent, 0);
}
