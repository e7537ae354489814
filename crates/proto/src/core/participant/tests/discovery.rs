//! The discovery part on its own (no network): the announce timer and the cap on remote
//! endpoints.

use std::collections::BTreeSet;

use crate::core::discovery::PublicationData;
use crate::core::participant::discovery::{Discovery, Via, announcement_admitted};
use crate::core::participant::endpoints::Endpoints;
use crate::core::participant::{ParticipantConfig, ParticipantStats, WriterSpec};
use crate::core::sim::sim_now;
use crate::qos::DataWriterQos;
use crate::time::Instant;
use crate::wire::{EntityId, Guid, GuidPrefix};

fn config() -> ParticipantConfig {
    ParticipantConfig::new(0, GuidPrefix([1; 12]))
}

/// The SEDP data of a writer of participant `[n; 12]`.
fn remote_writer(n: u8) -> PublicationData {
    let config = ParticipantConfig::new(0, GuidPrefix([n; 12]));
    let guid = Guid::new(
        GuidPrefix([n; 12]),
        EntityId([0, 0, 1, EntityId::KIND_WRITER_WITH_KEY]),
    );
    let spec = WriterSpec::new("T", "T", true, DataWriterQos::default());
    let mut endpoints = Endpoints::default();
    endpoints.insert_writer(guid, spec, false, BTreeSet::new(), &config);
    endpoints.publication_data(guid, &config, None).unwrap()
}

#[test]
fn the_first_announcement_is_due_at_the_first_input_then_every_period() {
    let config = config();
    let mut d = Discovery::new(&config);
    assert_eq!(d.poll_timeout(), Instant::ZERO);
    let now = sim_now(5_000_000);
    d.start(now);
    assert_eq!(d.poll_timeout(), now.mono);
    assert!(d.announce_due(now, config.announce_period));
    assert!(!d.announce_due(now, config.announce_period));
    assert_eq!(
        d.poll_timeout(),
        now.mono.saturating_add(config.announce_period)
    );
}

#[test]
fn remote_endpoints_are_capped_but_known_ones_still_update() {
    let mut config = config();
    config.max_remote_endpoints = 2;
    let mut d = Discovery::new(&config);
    let mut stats = ParticipantStats::default();
    assert!(d.insert_remote_writer(remote_writer(2), Via::Plain, &config, &mut stats));
    assert!(d.insert_remote_writer(remote_writer(3), Via::Plain, &config, &mut stats));
    assert!(!d.insert_remote_writer(remote_writer(4), Via::Plain, &config, &mut stats));
    assert_eq!(stats.over_limit, 1);
    assert!(d.insert_remote_writer(remote_writer(3), Via::Plain, &config, &mut stats));
    assert_eq!(d.remote_writer_guids().len(), 2);
    assert!(d.remove_remote_writer(remote_writer(2).guid));
    assert!(!d.remove_remote_writer(remote_writer(2).guid));
    assert!(d.insert_remote_writer(remote_writer(4), Via::Plain, &config, &mut stats));
    assert_eq!(stats.over_limit, 1);
}

/// A Fast DDS 2.9.1 writer: its PID_TYPE_INFORMATION does not decode, its TypeObject came
/// inline (PID_TYPE_OBJECTV1): asking for its type resolves at once from that object, with
/// no TypeLookup request; the router's `request_endpoint_type` does not take it.
#[test]
fn a_writers_inline_type_object_v1_resolves_its_type_without_a_request() {
    use crate::types::xtypes::type_object_v1::tests::{FASTDDS_SHAPE_TYPE_OBJECT, hex};
    let config = config();
    let mut d = Discovery::new(&config);
    let mut stats = ParticipantStats::default();
    let mut w = remote_writer(2);
    w.endpoint.type_information = Some(vec![0, 1, 0, 0, 0xf1]);
    w.endpoint.type_object_v1 = Some(hex(FASTDDS_SHAPE_TYPE_OBJECT));
    let guid = w.guid;
    assert!(d.insert_remote_writer(w, Via::Plain, &config, &mut stats));
    let now = sim_now(0);
    assert!(!d.request_endpoint_type(now, guid));
    assert!(d.request_writer_type(now, guid));
    let id = d.poll_resolved_type().expect("resolved at once");
    assert_eq!(d.endpoint_type_id(guid), Some(id.clone()));
    assert!(d.type_registry().get(&id).is_some());
    assert_eq!(d.type_client_stats().requests_sent, 0);
    // An undecodable inline object gives nothing.
    let mut w = remote_writer(3);
    w.endpoint.type_object_v1 = Some(vec![0, 1, 0, 0, 0xf2]);
    let guid = w.guid;
    assert!(d.insert_remote_writer(w, Via::Plain, &config, &mut stats));
    assert!(!d.request_writer_type(now, guid));
}

/// DDS-Security 1.1 §7.4.5: an announcement on the secure SEDP readers is taken whatever the
/// topic; one on the plain readers only for a topic our governance does not discovery-protect
/// and an endpoint not learned on the secure readers.
#[test]
fn plain_announcements_of_discovery_protected_endpoints_are_not_admitted() {
    for protected in [false, true] {
        for learned_securely in [false, true] {
            assert!(announcement_admitted(
                Via::Secure,
                protected,
                learned_securely
            ));
            assert_eq!(
                announcement_admitted(Via::Plain, protected, learned_securely),
                !protected && !learned_securely,
                "plain, protected topic {protected}, learned securely {learned_securely}"
            );
        }
    }
}
