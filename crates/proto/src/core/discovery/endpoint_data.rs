//! DiscoveredWriterData and DiscoveredReaderData: what SEDP DATA(w) and DATA(r) announce about
//! a user endpoint, and the PL_CDR payloads that carry them.
//!
//! Must not: match endpoints or judge QoS compatibility (that is `qos::check_compatibility`
//! and core matching), interpret type information, or panic on any input. Keyed-ness travels
//! only in the endpoint's entity kind, which the caller chooses (docs/interop-facts.md §5.4).
//!
//! # Overview
//! RTPS 2.5 §8.5.4.4 (attributes), §9.6.2.2.4 and Tables 9.18/9.19 (PIDs and defaults),
//! §8.7.3.1 (content filter). A missing PID takes the DDS default, except RELIABILITY, whose
//! default is RELIABLE for writers and BEST_EFFORT for readers (RTPS 2.5 Table 9.19;
//! DDS 1.4 §2.2.3). Fast DDS 2.9 assumes TRANSIENT_LOCAL for a writer without DURABILITY
//! (docs/interop-facts.md §5.4), so every payload carries RELIABILITY and DURABILITY, and — so that no peer's
//! own defaults are ever in play for matching — every other RxO policy too. Optional data
//! (user/topic/group data, partition, history, limits, ...) is sent only when it is not the
//! default. Cyclone requires ENDPOINT_GUID, TOPIC_NAME and TYPE_NAME and omits
//! PARTICIPANT_GUID; when present it must match the endpoint's prefix (`handle_sedp_checks`).

use super::payload::{decode, encode, guid_from_key_hash, known, locator_params, push_locator};
use super::qos_wire::*;
use super::{ContentFilter, DiscoveryError};
use crate::cdr::Endianness;
use crate::qos::{
    DataReaderQos, DataRepresentation, DataWriterQos, Deadline, DurabilityService, GroupData,
    History, LatencyBudget, Lifespan, OwnershipStrength, Partition, Presentation, Reliability,
    ResourceLimits, TimeBasedFilter, TopicData, TransportPriority, UserData,
};
use crate::wire::plist::pid::*;
use crate::wire::plist::{Parameter, Value};
use crate::wire::{EntityId, Guid, Locator, VendorId};

/// The most partition names accepted in PID_PARTITION; more makes the data invalid.
pub const MAX_PARTITIONS: usize = 64;
/// The most ids accepted in PID_DATA_REPRESENTATION (three exist).
pub const MAX_DATA_REPRESENTATIONS: usize = 8;

/// What DiscoveredWriterData and DiscoveredReaderData share (RTPS 2.5 §8.5.4.4: the
/// endpoint's identity, topic, locators and the group policies of its publisher or
/// subscriber), encoded and decoded once for both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndpointData {
    /// PID_ENDPOINT_GUID: the endpoint's GUID (writer entity kind 0x02 keyed, 0x03 unkeyed;
    /// reader 0x07 keyed, 0x04 unkeyed).
    pub guid: Guid,
    /// PID_PARTICIPANT_GUID, or the endpoint's prefix with ENTITYID_PARTICIPANT when absent.
    pub participant_guid: Guid,
    /// PID_TOPIC_NAME.
    pub topic_name: String,
    /// PID_TYPE_NAME.
    pub type_name: String,
    /// PID_UNICAST_LOCATOR entries (empty: use the participant's default locators).
    pub unicast_locators: Vec<Locator>,
    /// PID_MULTICAST_LOCATOR entries.
    pub multicast_locators: Vec<Locator>,
    /// PID_PRESENTATION (of the publisher or subscriber).
    pub presentation: Presentation,
    /// PID_PARTITION (of the publisher or subscriber), at most [`MAX_PARTITIONS`] names.
    pub partition: Partition,
    /// PID_GROUP_DATA (of the publisher or subscriber).
    pub group_data: GroupData,
    /// PID_TOPIC_DATA.
    pub topic_data: TopicData,
    /// PID_GROUP_GUID: the publisher or subscriber (writer group) the endpoint belongs to,
    /// when it is announced (our GROUP-scope writers, RTPS 2.5 §8.7.6, §9.6.2.2.4).
    pub group_guid: Option<Guid>,
    /// PID_TYPE_INFORMATION value bytes, kept as received (XCDR2 TypeInformation).
    pub type_information: Option<Vec<u8>>,
    /// PID_TYPE_OBJECTV1 value bytes, kept as received (at most
    /// [`MAX_TYPE_OBJECT_V1_SIZE`](crate::types::xtypes::type_object_v1::MAX_TYPE_OBJECT_V1_SIZE)):
    /// the XTypes 1.1/1.2 complete TypeObject Fast DDS 2.x puts inline in SEDP
    /// (`types::xtypes::type_object_v1`). Sent again as received (a router's proxy of the
    /// endpoint); ours announce none.
    pub type_object_v1: Option<Vec<u8>>,
    /// PID_SIFTDDS_ROUTER_PATH (siftdds vendor PID; read only from siftdds senders): the
    /// ids of the siftdds routers a router's proxy reader serves a subscription through,
    /// oldest first (docs/router.md). Empty for every other endpoint, and then not sent.
    pub router_path: Vec<u64>,
    /// PID_ENDPOINT_SECURITY_INFO (DDS-Security 1.1 §7.4.1.5): sent for an endpoint on a
    /// topic whose governance rule protects or controls anything.
    pub security_info: Option<EndpointSecurityInfo>,
    /// The sender's vendor (PID_VENDORID or the message header); not sent.
    pub vendor_id: VendorId,
}

/// EndpointSecurityInfo (DDS-Security 1.1 §7.4.1.5, §9.4.2.5, §9.5.2.2).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EndpointSecurityInfo {
    /// EndpointSecurityAttributesMask (bit 31: valid; bits 0-6: read, write, discovery,
    /// submessage, payload, key and liveliness protected).
    pub endpoint_security_attributes: u32,
    /// PluginEndpointSecurityAttributesMask (bit 31: valid; bits 0-2: submessage encrypted,
    /// payload encrypted, submessage origin-authenticated).
    pub plugin_endpoint_security_attributes: u32,
}

impl EndpointSecurityInfo {
    fn to_bytes(self, endian: Endianness) -> [u8; 8] {
        super::participant_data::masks_to_bytes(
            self.endpoint_security_attributes,
            self.plugin_endpoint_security_attributes,
            endian,
        )
    }

    fn from_bytes(bytes: &[u8], endian: Endianness) -> Option<Self> {
        let (a, b) = super::participant_data::masks_from_bytes(bytes, endian)?;
        Some(EndpointSecurityInfo {
            endpoint_security_attributes: a,
            plugin_endpoint_security_attributes: b,
        })
    }
}

/// DiscoveredWriterData (SEDP DATA(w)): the shared [`EndpointData`] and the writer QoS.
/// RTPS 2.5 §8.5.4.4. Derefs to its [`EndpointData`], so `data.topic_name` reads through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicationData {
    /// Identity, topic, locators and publisher policies.
    pub endpoint: EndpointData,
    /// The writer QoS that travel in SEDP; `transport_priority` too, `writer_data_lifecycle`
    /// does not (it stays at its default when decoded).
    pub qos: DataWriterQos,
    /// PID_SIFTDDS_PEER_GROUP_PROJECTIONS (siftdds vendor PID, read only from siftdds senders):
    /// a peer-group member's group and current projection digests (docs/peer-group-cache.md
    /// §4.3). `None` for every other writer (and a malformed value), and then not sent.
    pub peer_group: Option<crate::wire::ProjectionAnnouncement>,
}

/// DiscoveredReaderData (SEDP DATA(r)): the shared [`EndpointData`], the reader QoS and
/// what only readers announce. RTPS 2.5 §8.5.4.4. Derefs to its [`EndpointData`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubscriptionData {
    /// Identity, topic, locators and subscriber policies.
    pub endpoint: EndpointData,
    /// PID_EXPECTS_INLINE_QOS (default false).
    pub expects_inline_qos: bool,
    /// The reader QoS that travel in SEDP (`reader_data_lifecycle` does not).
    pub qos: DataReaderQos,
    /// PID_CONTENT_FILTER_PROPERTY; `None` when absent or invalid (docs/interop-facts.md §1.3).
    pub content_filter: Option<ContentFilter>,
}

impl core::ops::Deref for PublicationData {
    type Target = EndpointData;
    fn deref(&self) -> &EndpointData {
        &self.endpoint
    }
}

impl core::ops::DerefMut for PublicationData {
    fn deref_mut(&mut self) -> &mut EndpointData {
        &mut self.endpoint
    }
}

impl core::ops::Deref for SubscriptionData {
    type Target = EndpointData;
    fn deref(&self) -> &EndpointData {
        &self.endpoint
    }
}

impl core::ops::DerefMut for SubscriptionData {
    fn deref_mut(&mut self) -> &mut EndpointData {
        &mut self.endpoint
    }
}

/// Everything a DATA(w) or DATA(r) can carry, with DDS defaults; reliability stays `None`
/// when absent because its default depends on the side.
struct Decoded {
    endpoint: EndpointData,
    expects_inline_qos: bool,
    reliability: Option<Reliability>,
    w: DataWriterQos,
    time_based_filter: TimeBasedFilter,
    content_filter: Option<ContentFilter>,
    peer_group: Option<crate::wire::ProjectionAnnouncement>,
}

fn decode_endpoint(payload: &[u8], vendor: VendorId) -> Result<Decoded, DiscoveryError> {
    let params = decode(payload, vendor)?;
    // The byte order of opaque values (PL_CDR_LE = 0x0003, PL_CDR_BE = 0x0002).
    let endian = match payload.get(1) {
        Some(b) if b & 1 == 1 => Endianness::Little,
        _ => Endianness::Big,
    };
    let (mut guid, mut adlink_guid, mut key_hash, mut participant) = (None, None, None, None);
    let (mut topic_name, mut type_name) = (None, None);
    let mut d = Decoded {
        endpoint: EndpointData {
            guid: Guid::UNKNOWN,
            participant_guid: Guid::UNKNOWN,
            topic_name: String::new(),
            type_name: String::new(),
            unicast_locators: Vec::new(),
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
            vendor_id: vendor,
        },
        expects_inline_qos: false,
        reliability: None,
        w: DataWriterQos::default(),
        time_based_filter: TimeBasedFilter::default(),
        content_filter: None,
        peer_group: None,
    };
    for param in &params {
        let Parameter::Known { pid, value } = param else {
            continue;
        };
        let (e, q) = (&mut d.endpoint, &mut d.w);
        match (*pid, value) {
            (PID_ENDPOINT_GUID, Value::Guid(g)) => guid = Some(*g),
            // Cyclone's strict-mode copy of the endpoint GUID (vendor 01.10 only, by the table).
            (PID_ADLINK_ENDPOINT_GUID, Value::Guid(g)) => adlink_guid = Some(*g),
            (PID_KEY_HASH, Value::KeyHash(k)) => key_hash = Some(*k),
            (PID_PARTICIPANT_GUID, Value::Guid(g)) => participant = Some(*g),
            (PID_TOPIC_NAME, Value::String(s)) => topic_name = Some(*s),
            (PID_TYPE_NAME, Value::String(s)) => type_name = Some(*s),
            (PID_VENDORID, Value::VendorId(v)) => e.vendor_id = *v,
            (PID_UNICAST_LOCATOR, Value::Locator(l)) => push_locator(&mut e.unicast_locators, *l),
            (PID_MULTICAST_LOCATOR, Value::Locator(l)) => {
                push_locator(&mut e.multicast_locators, *l)
            }
            (PID_EXPECTS_INLINE_QOS, Value::Bool(b)) => d.expects_inline_qos = *b,
            (PID_DURABILITY, Value::QosKind(k)) => q.durability = durability_from(*k)?,
            (PID_DURABILITY_SERVICE, v) => q.durability_service = durability_service_from(v)?,
            (PID_DEADLINE, Value::Duration(t)) => q.deadline = Deadline { period: *t },
            (PID_LATENCY_BUDGET, Value::Duration(t)) => {
                q.latency_budget = LatencyBudget { duration: *t };
            }
            (
                PID_LIVELINESS,
                Value::Liveliness {
                    kind,
                    lease_duration,
                },
            ) => {
                q.liveliness = liveliness_from(*kind, *lease_duration)?;
            }
            (
                PID_RELIABILITY,
                Value::Reliability {
                    kind,
                    max_blocking_time,
                },
            ) => {
                d.reliability = Some(reliability_from(*kind, *max_blocking_time));
            }
            (PID_LIFESPAN, Value::Duration(t)) => q.lifespan = Lifespan { duration: *t },
            (PID_USER_DATA, Value::Octets(b)) => q.user_data = UserData { value: b.to_vec() },
            (PID_OWNERSHIP, Value::QosKind(k)) => q.ownership = ownership_from(*k)?,
            (PID_OWNERSHIP_STRENGTH, Value::I32(v)) => {
                q.ownership_strength = OwnershipStrength { value: *v };
            }
            (PID_DESTINATION_ORDER, Value::QosKind(k)) => {
                q.destination_order = destination_order_from(*k)?;
            }
            (PID_HISTORY, Value::History { kind, depth }) => {
                q.history = history_from(*kind, *depth)?
            }
            (
                PID_RESOURCE_LIMITS,
                Value::ResourceLimits {
                    max_samples,
                    max_instances,
                    max_samples_per_instance,
                },
            ) => {
                q.resource_limits =
                    resource_limits_from(*max_samples, *max_instances, *max_samples_per_instance)?;
            }
            (PID_TRANSPORT_PRIORITY, Value::I32(v)) => {
                q.transport_priority = TransportPriority { value: *v };
            }
            (PID_DATA_REPRESENTATION, Value::DataRepresentation(ids)) => {
                if ids.len() > MAX_DATA_REPRESENTATIONS {
                    return Err(DiscoveryError::TooLarge("PID_DATA_REPRESENTATION"));
                }
                q.data_representation = DataRepresentation { value: ids.clone() };
            }
            (PID_TIME_BASED_FILTER, Value::Duration(t)) => {
                d.time_based_filter = TimeBasedFilter {
                    minimum_separation: *t,
                };
            }
            (
                PID_PRESENTATION,
                Value::Presentation {
                    access_scope,
                    coherent_access,
                    ordered_access,
                },
            ) => {
                e.presentation =
                    presentation_from(*access_scope, *coherent_access, *ordered_access)?;
            }
            (PID_PARTITION, Value::StringSeq(names)) => {
                if names.len() > MAX_PARTITIONS {
                    return Err(DiscoveryError::TooLarge("PID_PARTITION"));
                }
                e.partition = Partition::new(names.iter().copied());
            }
            (PID_TOPIC_DATA, Value::Octets(b)) => e.topic_data = TopicData { value: b.to_vec() },
            (PID_GROUP_DATA, Value::Octets(b)) => e.group_data = GroupData { value: b.to_vec() },
            (PID_GROUP_GUID, Value::Guid(g)) => e.group_guid = Some(*g),
            (PID_CONTENT_FILTER_PROPERTY, Value::ContentFilterProperty(p)) => {
                d.content_filter = Some(ContentFilter::from_property(p));
            }
            (PID_TYPE_INFORMATION, Value::Opaque(b)) => e.type_information = Some(b.to_vec()),
            (PID_ENDPOINT_SECURITY_INFO, Value::Opaque(b)) => {
                e.security_info = EndpointSecurityInfo::from_bytes(b, endian);
            }
            (PID_TYPE_OBJECTV1, Value::Opaque(b))
                if b.len() <= crate::types::xtypes::type_object_v1::MAX_TYPE_OBJECT_V1_SIZE =>
            {
                e.type_object_v1 = Some(b.to_vec());
            }
            (PID_SIFTDDS_ROUTER_PATH, Value::Octets(b)) => {
                e.router_path = crate::wire::plist::router_path_from_octets(b);
            }
            (PID_SIFTDDS_PEER_GROUP_PROJECTIONS, Value::Octets(b)) => {
                d.peer_group = crate::wire::ProjectionAnnouncement::from_octets(b);
            }
            _ => {}
        }
    }
    let e = &mut d.endpoint;
    e.guid = match (guid.or(adlink_guid), key_hash) {
        (Some(g), _) => g,
        (None, Some(k)) => guid_from_key_hash(&k)?,
        (None, None) => return Err(DiscoveryError::Missing("PID_ENDPOINT_GUID")),
    };
    e.participant_guid = participant.unwrap_or(Guid::new(e.guid.prefix, EntityId::PARTICIPANT));
    // Cyclone `handle_sedp_checks`: a participant GUID must name the endpoint's participant.
    if e.participant_guid != Guid::new(e.guid.prefix, EntityId::PARTICIPANT) {
        return Err(DiscoveryError::Invalid(
            "participant GUID (not the endpoint's participant)",
        ));
    }
    e.topic_name = topic_name
        .ok_or(DiscoveryError::Missing("PID_TOPIC_NAME"))?
        .to_owned();
    e.type_name = type_name
        .ok_or(DiscoveryError::Missing("PID_TYPE_NAME"))?
        .to_owned();
    Ok(d)
}

impl EndpointData {
    /// The parameters both sides send. RTPS 2.5 §9.6.2.2.4.
    fn emit<'a>(&'a self, p: &mut Vec<Parameter<'a>>) {
        p.push(known(PID_ENDPOINT_GUID, Value::Guid(self.guid)));
        p.push(known(
            PID_PARTICIPANT_GUID,
            Value::Guid(self.participant_guid),
        ));
        p.push(known(PID_TOPIC_NAME, Value::String(&self.topic_name)));
        p.push(known(PID_TYPE_NAME, Value::String(&self.type_name)));
        locator_params(p, PID_UNICAST_LOCATOR, &self.unicast_locators);
        locator_params(p, PID_MULTICAST_LOCATOR, &self.multicast_locators);
        p.push(known(
            PID_PRESENTATION,
            presentation_value(self.presentation),
        ));
        if !self.partition.names.is_empty() {
            let names = self.partition.names.iter().map(String::as_str).collect();
            p.push(known(PID_PARTITION, Value::StringSeq(names)));
        }
        if !self.group_data.value.is_empty() {
            p.push(known(PID_GROUP_DATA, Value::Octets(&self.group_data.value)));
        }
        if !self.topic_data.value.is_empty() {
            p.push(known(PID_TOPIC_DATA, Value::Octets(&self.topic_data.value)));
        }
        if let Some(g) = self.group_guid {
            p.push(known(PID_GROUP_GUID, Value::Guid(g)));
        }
        if let Some(t) = &self.type_information {
            p.push(known(PID_TYPE_INFORMATION, Value::Opaque(t)));
        }
        if let Some(t) = &self.type_object_v1 {
            p.push(known(PID_TYPE_OBJECTV1, Value::Opaque(t)));
        }
    }

    /// [`emit`](Self::emit)'s vendor parameters, whose values are built here (owned).
    fn vendor_values(&self) -> Option<Vec<u8>> {
        (!self.router_path.is_empty())
            .then(|| crate::wire::plist::router_path_octets(&self.router_path))
    }

    /// PID_KEY_HASH of this endpoint's SEDP instance (for dispose/unregister): its GUID octets.
    pub fn key_hash(&self) -> [u8; 16] {
        self.guid.to_bytes()
    }
}

/// The policies both DataWriterQos and DataReaderQos carry, borrowed.
struct SharedQos<'a> {
    durability: crate::qos::Durability,
    deadline: Deadline,
    latency_budget: LatencyBudget,
    liveliness: crate::qos::Liveliness,
    reliability: Reliability,
    ownership: crate::qos::Ownership,
    destination_order: crate::qos::DestinationOrder,
    history: History,
    resource_limits: ResourceLimits,
    user_data: &'a UserData,
    data_representation: &'a DataRepresentation,
}

fn emit_qos<'a>(p: &mut Vec<Parameter<'a>>, q: &SharedQos<'a>) {
    // Always sent (docs/interop-facts.md §5.4; see the module overview).
    p.push(known(PID_RELIABILITY, reliability_value(q.reliability)));
    p.push(known(PID_DURABILITY, durability_value(q.durability)));
    p.push(known(PID_DEADLINE, Value::Duration(q.deadline.period)));
    p.push(known(
        PID_LATENCY_BUDGET,
        Value::Duration(q.latency_budget.duration),
    ));
    p.push(known(PID_LIVELINESS, liveliness_value(q.liveliness)));
    p.push(known(PID_OWNERSHIP, ownership_value(q.ownership)));
    p.push(known(
        PID_DESTINATION_ORDER,
        destination_order_value(q.destination_order),
    ));
    // Sent when not the default.
    if q.history != History::default() {
        p.push(known(PID_HISTORY, history_value(q.history)));
    }
    if q.resource_limits != ResourceLimits::default() {
        p.push(known(
            PID_RESOURCE_LIMITS,
            resource_limits_value(q.resource_limits),
        ));
    }
    if !q.user_data.value.is_empty() {
        p.push(known(PID_USER_DATA, Value::Octets(&q.user_data.value)));
    }
    if !q.data_representation.value.is_empty() {
        p.push(known(
            PID_DATA_REPRESENTATION,
            Value::DataRepresentation(q.data_representation.value.clone()),
        ));
    }
}

/// The shared policies of a DataWriterQos or DataReaderQos: one field list for both, so
/// both sides send the same set.
macro_rules! shared_qos_from {
    ($($qos:ty),+) => {$(
        impl<'a> From<&'a $qos> for SharedQos<'a> {
            fn from(q: &'a $qos) -> Self {
                SharedQos {
                    durability: q.durability,
                    deadline: q.deadline,
                    latency_budget: q.latency_budget,
                    liveliness: q.liveliness,
                    reliability: q.reliability,
                    ownership: q.ownership,
                    destination_order: q.destination_order,
                    history: q.history,
                    resource_limits: q.resource_limits,
                    user_data: &q.user_data,
                    data_representation: &q.data_representation,
                }
            }
        }
    )+};
}

shared_qos_from!(DataWriterQos, DataReaderQos);

/// The parameters of a DATA(w) or DATA(r) before the side-specific ones: the endpoint data
/// and the shared policies, then our vendor parameters' values (`vendor`, from
/// [`EndpointData::vendor_values`]). RTPS 2.5 §9.6.2.2.4.
fn shared_params<'a>(
    e: &'a EndpointData,
    q: SharedQos<'a>,
    vendor: Option<&'a [u8]>,
    security: Option<&'a [u8; 8]>,
) -> Vec<Parameter<'a>> {
    let mut p = Vec::new();
    e.emit(&mut p);
    emit_qos(&mut p, &q);
    if let Some(s) = security {
        p.push(known(PID_ENDPOINT_SECURITY_INFO, Value::Opaque(s)));
    }
    if let Some(path) = vendor {
        p.push(known(PID_SIFTDDS_ROUTER_PATH, Value::Octets(path)));
    }
    p
}

impl PublicationData {
    /// The SEDP DATA(w) payload: PL_CDR_BE/LE header, parameters, sentinel.
    ///
    /// Errors: a value too long for a parameter (user/topic/group data over 64 KiB).
    pub fn to_payload(&self, endian: Endianness) -> Result<Vec<u8>, DiscoveryError> {
        let q = &self.qos;
        let vendor = self.endpoint.vendor_values();
        let security = self.endpoint.security_info.map(|i| i.to_bytes(endian));
        let mut p = shared_params(
            &self.endpoint,
            SharedQos::from(q),
            vendor.as_deref(),
            security.as_ref(),
        );
        p.push(known(PID_LIFESPAN, Value::Duration(q.lifespan.duration)));
        if q.ownership_strength != OwnershipStrength::default() {
            p.push(known(
                PID_OWNERSHIP_STRENGTH,
                Value::I32(q.ownership_strength.value),
            ));
        }
        if q.durability_service != DurabilityService::default() {
            p.push(known(
                PID_DURABILITY_SERVICE,
                durability_service_value(&q.durability_service),
            ));
        }
        if q.transport_priority != TransportPriority::default() {
            p.push(known(
                PID_TRANSPORT_PRIORITY,
                Value::I32(q.transport_priority.value),
            ));
        }
        let projections = self.peer_group.as_ref().map(|a| a.to_octets());
        if let Some(o) = &projections {
            p.push(known(PID_SIFTDDS_PEER_GROUP_PROJECTIONS, Value::Octets(o)));
        }
        encode(&p, endian)
    }

    /// Decodes a SEDP DATA(w) payload sent in a message whose header names `vendor`.
    ///
    /// Errors: malformed bytes or QoS values; an unknown must-understand PID; no endpoint GUID
    /// (PID_ENDPOINT_GUID, Cyclone's vendor copy, or PID_KEY_HASH), TOPIC_NAME or TYPE_NAME; a
    /// GUID that is not a writer; a participant GUID of another participant; over-long lists.
    pub fn from_payload(payload: &[u8], vendor: VendorId) -> Result<Self, DiscoveryError> {
        let d = decode_endpoint(payload, vendor)?;
        if !d.endpoint.guid.entity_id.is_writer() {
            return Err(DiscoveryError::Invalid("endpoint GUID (not a writer)"));
        }
        let mut qos = d.w;
        // RTPS 2.5 Table 9.19: a writer without PID_RELIABILITY is RELIABLE.
        qos.reliability = d.reliability.unwrap_or(Reliability::reliable());
        Ok(PublicationData {
            endpoint: d.endpoint,
            qos,
            peer_group: d.peer_group,
        })
    }
}

impl SubscriptionData {
    /// The SEDP DATA(r) payload: PL_CDR_BE/LE header, parameters, sentinel.
    ///
    /// Errors: a value too long for a parameter, or a content filter that peers would ignore
    /// (empty names or expression, over-long names, too many parameters; docs/interop-facts.md §1.3).
    pub fn to_payload(&self, endian: Endianness) -> Result<Vec<u8>, DiscoveryError> {
        let q = &self.qos;
        let vendor = self.endpoint.vendor_values();
        let security = self.endpoint.security_info.map(|i| i.to_bytes(endian));
        let mut p = shared_params(
            &self.endpoint,
            SharedQos::from(q),
            vendor.as_deref(),
            security.as_ref(),
        );
        if self.expects_inline_qos {
            p.push(known(PID_EXPECTS_INLINE_QOS, Value::Bool(true)));
        }
        if q.time_based_filter != TimeBasedFilter::default() {
            let t = q.time_based_filter.minimum_separation;
            p.push(known(PID_TIME_BASED_FILTER, Value::Duration(t)));
        }
        if let Some(f) = &self.content_filter {
            f.validate()?;
            p.push(known(
                PID_CONTENT_FILTER_PROPERTY,
                Value::ContentFilterProperty(f.as_property()),
            ));
        }
        encode(&p, endian)
    }

    /// Decodes a SEDP DATA(r) payload sent in a message whose header names `vendor`. An
    /// invalid content-filter property is ignored (the reader is kept, unfiltered), as Fast
    /// DDS does (docs/interop-facts.md §1.3).
    ///
    /// Errors: as [`PublicationData::from_payload`], with "not a reader" for the GUID kind.
    pub fn from_payload(payload: &[u8], vendor: VendorId) -> Result<Self, DiscoveryError> {
        let d = decode_endpoint(payload, vendor)?;
        if !d.endpoint.guid.entity_id.is_reader() {
            return Err(DiscoveryError::Invalid("endpoint GUID (not a reader)"));
        }
        let w = d.w;
        let qos = DataReaderQos {
            durability: w.durability,
            deadline: w.deadline,
            latency_budget: w.latency_budget,
            liveliness: w.liveliness,
            // RTPS 2.5 Table 9.19: a reader without PID_RELIABILITY is BEST_EFFORT.
            reliability: d.reliability.unwrap_or(Reliability::best_effort()),
            destination_order: w.destination_order,
            history: w.history,
            resource_limits: w.resource_limits,
            user_data: w.user_data,
            ownership: w.ownership,
            time_based_filter: d.time_based_filter,
            reader_data_lifecycle: Default::default(),
            data_representation: w.data_representation,
            // PID_TYPE_CONSISTENCY (0x0074) is not read: a remote reader is taken to enforce
            // the DDS-XTypes 1.3 §7.6.3.4.1 defaults.
            type_consistency: Default::default(),
        };
        Ok(SubscriptionData {
            endpoint: d.endpoint,
            expects_inline_qos: d.expects_inline_qos,
            qos,
            content_filter: d.content_filter,
        })
    }
}

#[cfg(test)]
mod tests;
