//! Spoofed discovery datagrams for the attack-class tests (`tests/flood.rs` over the sans-IO
//! participant, `interop-tests/reflection.rs` over real UDP): an SPDP participant announcement
//! and an SEDP reader announcement whose locators name whatever address the test chooses.
//!
//! Must not: open sockets (the tests send these bytes however they like).

// An example/benchmark/test: it indexes and counts what it built itself and unwraps what must
// work; the parse-path lints of the workspace are siftdds-proto's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use siftdds::cdr::Endianness;
use siftdds::core::discovery::{EndpointData, ParticipantProxyData, SubscriptionData};
use siftdds::qos::{
    DataReaderQos, GroupData, History, Partition, Presentation, Reliability, TopicData,
};
use siftdds::wire::submessage::{Data, DataPayload, Submessage};
use siftdds::wire::{
    EntityId, Guid, GuidPrefix, Header, Locator, SequenceNumber, VendorId, emit_message,
};

/// A GUID prefix for fake participant `i`.
pub fn prefix(i: u32) -> GuidPrefix {
    let [a, b, c, d] = i.to_be_bytes();
    GuidPrefix([0xba, 0xd0, 0, 0, 0, 0, 0, 0, a, b, c, d])
}

/// One RTPS message holding DATA `sn` from `writer_id` to `reader_id` with `payload`.
fn message(
    prefix: GuidPrefix,
    writer_id: EntityId,
    reader_id: EntityId,
    sn: i64,
    payload: &[u8],
) -> Vec<u8> {
    let data = Data {
        endian: Endianness::Little,
        extra_flags: 0,
        reader_id,
        writer_id,
        writer_sn: SequenceNumber(sn),
        inline_qos: None,
        payload: DataPayload::Data(payload),
    };
    let mut buf = Vec::new();
    emit_message(&Header::new(prefix), &[Submessage::Data(data)], &mut buf);
    buf
}

/// SPDP DATA(p) of participant `prefix` in `domain` whose metatraffic and user unicast
/// locators are `meta` and `user`.
pub fn spdp(prefix: GuidPrefix, domain: u32, meta: Locator, user: Locator) -> Vec<u8> {
    let mut p = ParticipantProxyData::new(prefix, domain);
    p.metatraffic_unicast_locators = vec![meta];
    p.default_unicast_locators = vec![user];
    let payload = p
        .to_payload(Endianness::Little)
        .expect("encodable participant data");
    message(
        prefix,
        EntityId::SPDP_PARTICIPANT_ANNOUNCER,
        EntityId::SPDP_PARTICIPANT_DETECTOR,
        1,
        &payload,
    )
}

/// SEDP DATA(r) number `sn` of participant `prefix`: reader `key` of topic Square (ShapeType,
/// with or without a key as `keyed` says: the entity kind must match the writer's), reliable
/// KEEP_ALL, at `unicast`.
pub fn sedp_reader(
    prefix: GuidPrefix,
    key: u16,
    sn: i64,
    unicast: Locator,
    keyed: bool,
) -> Vec<u8> {
    let [a, b] = key.to_be_bytes();
    let kind = if keyed {
        EntityId::KIND_READER_WITH_KEY
    } else {
        EntityId::KIND_READER_NO_KEY
    };
    let r = SubscriptionData {
        endpoint: EndpointData {
            guid: Guid::new(prefix, EntityId([0, a, b, kind])),
            participant_guid: Guid::new(prefix, EntityId::PARTICIPANT),
            topic_name: "Square".into(),
            type_name: "ShapeType".into(),
            unicast_locators: vec![unicast],
            multicast_locators: Vec::new(),
            presentation: Presentation::default(),
            partition: Partition::default(),
            group_data: GroupData::default(),
            topic_data: TopicData::default(),
            group_guid: None,
            type_information: None,
            type_object_v1: None,
            router_path: Vec::new(),
            security_info: None,
            vendor_id: VendorId::UNKNOWN,
        },
        expects_inline_qos: false,
        qos: DataReaderQos {
            history: History::KeepAll,
            reliability: Reliability::reliable(),
            ..DataReaderQos::default()
        },
        content_filter: None,
    };
    let payload = r
        .to_payload(Endianness::Little)
        .expect("encodable subscription data");
    message(
        prefix,
        EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER,
        EntityId::SEDP_SUBSCRIPTIONS_DETECTOR,
        sn,
        &payload,
    )
}
