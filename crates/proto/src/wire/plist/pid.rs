//! Parameter identifiers (PIDs) of RTPS 2.5, DDS-XTypes 1.3 and the vendor PIDs that
//! Cyclone DDS 0.10 and Fast DDS 2.9 put into SPDP/SEDP data and inline QoS.
//!
//! Must not: hold anything but constants. What each PID carries, its name and which vendor it
//! belongs to is the PID table's business (`table.rs`).
//!
//! Sources: RTPS 2.5 Tables 9.13 (ParameterId values), 9.18 (QoS), 9.19 (discovery), 9.20
//! (inline QoS); DDS-XTypes 1.3 §7.6.2.1 (DATA_REPRESENTATION, TYPE_CONSISTENCY_ENFORCEMENT,
//! TYPE_INFORMATION); Cyclone `q_protocol.h`; Fast DDS `ParameterTypes.hpp` (docs/interop-facts.md
//! §5.4, §5.9). The flag bits are RTPS 2.5 §9.6.2.2.1: 0x8000 vendor-specific, 0x4000
//! must-understand.

/// Bit 14 of a parameter id: the receiver must understand it or reject the list.
/// RTPS 2.5 §9.6.2.2.1.
pub const PID_FLAG_MUST_UNDERSTAND: u16 = 0x4000;
/// Bit 15 of a parameter id: vendor-specific, meaningful only with the sender's VendorId.
/// RTPS 2.5 §9.6.2.2.1.
pub const PID_FLAG_VENDOR_SPECIFIC: u16 = 0x8000;

// ---- RTPS 2.5 Table 9.13 / 9.18 / 9.19 / 9.20 ------------------------------------------------

/// PID_PAD: padding, skipped.
pub const PID_PAD: u16 = 0x0000;
/// PID_SENTINEL: end of the list.
pub const PID_SENTINEL: u16 = 0x0001;
/// PID_PARTICIPANT_LEASE_DURATION: Duration_t.
pub const PID_PARTICIPANT_LEASE_DURATION: u16 = 0x0002;
/// PID_TIME_BASED_FILTER: Duration_t minimum_separation.
pub const PID_TIME_BASED_FILTER: u16 = 0x0004;
/// PID_TOPIC_NAME: string<256>.
pub const PID_TOPIC_NAME: u16 = 0x0005;
/// PID_OWNERSHIP_STRENGTH: long.
pub const PID_OWNERSHIP_STRENGTH: u16 = 0x0006;
/// PID_TYPE_NAME: string<256>.
pub const PID_TYPE_NAME: u16 = 0x0007;
/// PID_DOMAIN_ID: DomainId_t (uint32).
pub const PID_DOMAIN_ID: u16 = 0x000f;
/// PID_PROTOCOL_VERSION: ProtocolVersion_t.
pub const PID_PROTOCOL_VERSION: u16 = 0x0015;
/// PID_VENDORID: VendorId_t.
pub const PID_VENDORID: u16 = 0x0016;
/// PID_RELIABILITY: ReliabilityQosPolicy.
pub const PID_RELIABILITY: u16 = 0x001a;
/// PID_LIVELINESS: LivelinessQosPolicy.
pub const PID_LIVELINESS: u16 = 0x001b;
/// PID_DURABILITY: DurabilityQosPolicy.
pub const PID_DURABILITY: u16 = 0x001d;
/// PID_DURABILITY_SERVICE: DurabilityServiceQosPolicy.
pub const PID_DURABILITY_SERVICE: u16 = 0x001e;
/// PID_OWNERSHIP: OwnershipQosPolicy.
pub const PID_OWNERSHIP: u16 = 0x001f;
/// PID_PRESENTATION: PresentationQosPolicy.
pub const PID_PRESENTATION: u16 = 0x0021;
/// PID_DEADLINE: DeadlineQosPolicy.
pub const PID_DEADLINE: u16 = 0x0023;
/// PID_DESTINATION_ORDER: DestinationOrderQosPolicy.
pub const PID_DESTINATION_ORDER: u16 = 0x0025;
/// PID_LATENCY_BUDGET: LatencyBudgetQosPolicy.
pub const PID_LATENCY_BUDGET: u16 = 0x0027;
/// PID_PARTITION: PartitionQosPolicy (`sequence<string>`).
pub const PID_PARTITION: u16 = 0x0029;
/// PID_LIFESPAN: LifespanQosPolicy.
pub const PID_LIFESPAN: u16 = 0x002b;
/// PID_USER_DATA: `sequence<octet>`.
pub const PID_USER_DATA: u16 = 0x002c;
/// PID_GROUP_DATA: `sequence<octet>`.
pub const PID_GROUP_DATA: u16 = 0x002d;
/// PID_TOPIC_DATA: `sequence<octet>`.
pub const PID_TOPIC_DATA: u16 = 0x002e;
/// PID_UNICAST_LOCATOR: Locator_t.
pub const PID_UNICAST_LOCATOR: u16 = 0x002f;
/// PID_MULTICAST_LOCATOR: Locator_t.
pub const PID_MULTICAST_LOCATOR: u16 = 0x0030;
/// PID_DEFAULT_UNICAST_LOCATOR: Locator_t.
pub const PID_DEFAULT_UNICAST_LOCATOR: u16 = 0x0031;
/// PID_METATRAFFIC_UNICAST_LOCATOR: Locator_t.
pub const PID_METATRAFFIC_UNICAST_LOCATOR: u16 = 0x0032;
/// PID_METATRAFFIC_MULTICAST_LOCATOR: Locator_t.
pub const PID_METATRAFFIC_MULTICAST_LOCATOR: u16 = 0x0033;
/// PID_PARTICIPANT_MANUAL_LIVELINESS_COUNT: Count_t.
pub const PID_PARTICIPANT_MANUAL_LIVELINESS_COUNT: u16 = 0x0034;
/// PID_CONTENT_FILTER_PROPERTY: ContentFilterProperty_t (docs/interop-facts.md §1).
pub const PID_CONTENT_FILTER_PROPERTY: u16 = 0x0035;
/// PID_HISTORY: HistoryQosPolicy.
pub const PID_HISTORY: u16 = 0x0040;
/// PID_RESOURCE_LIMITS: ResourceLimitsQosPolicy.
pub const PID_RESOURCE_LIMITS: u16 = 0x0041;
/// PID_EXPECTS_INLINE_QOS: boolean.
pub const PID_EXPECTS_INLINE_QOS: u16 = 0x0043;
/// PID_PARTICIPANT_BUILTIN_ENDPOINTS: deprecated alias of BUILTIN_ENDPOINT_SET (RTPS 2.1).
pub const PID_PARTICIPANT_BUILTIN_ENDPOINTS: u16 = 0x0044;
/// PID_DEFAULT_MULTICAST_LOCATOR: Locator_t.
pub const PID_DEFAULT_MULTICAST_LOCATOR: u16 = 0x0048;
/// PID_TRANSPORT_PRIORITY: TransportPriorityQosPolicy (long).
pub const PID_TRANSPORT_PRIORITY: u16 = 0x0049;
/// PID_PARTICIPANT_GUID: GUID_t.
pub const PID_PARTICIPANT_GUID: u16 = 0x0050;
/// PID_PARTICIPANT_ENTITYID: EntityId_t (deprecated).
pub const PID_PARTICIPANT_ENTITYID: u16 = 0x0051;
/// PID_GROUP_GUID: GUID_t.
pub const PID_GROUP_GUID: u16 = 0x0052;
/// PID_GROUP_ENTITYID: EntityId_t (deprecated).
pub const PID_GROUP_ENTITYID: u16 = 0x0053;
/// PID_CONTENT_FILTER_INFO: ContentFilterInfo_t, inline QoS (docs/interop-facts.md §2).
pub const PID_CONTENT_FILTER_INFO: u16 = 0x0055;
/// PID_COHERENT_SET: SequenceNumber_t, inline QoS.
pub const PID_COHERENT_SET: u16 = 0x0056;
/// PID_DIRECTED_WRITE: sequence<GUID_t>, inline QoS.
pub const PID_DIRECTED_WRITE: u16 = 0x0057;
/// PID_BUILTIN_ENDPOINT_SET: BuiltinEndpointSet_t (uint32 bit set).
pub const PID_BUILTIN_ENDPOINT_SET: u16 = 0x0058;
/// PID_PROPERTY_LIST: sequence<Property_t> (+ sequence<BinaryProperty_t>).
pub const PID_PROPERTY_LIST: u16 = 0x0059;
/// PID_ENDPOINT_GUID: GUID_t.
pub const PID_ENDPOINT_GUID: u16 = 0x005a;
/// PID_TYPE_MAX_SIZE_SERIALIZED: long.
pub const PID_TYPE_MAX_SIZE_SERIALIZED: u16 = 0x0060;
/// PID_ORIGINAL_WRITER_INFO: OriginalWriterInfo_t, inline QoS.
pub const PID_ORIGINAL_WRITER_INFO: u16 = 0x0061;
/// PID_ENTITY_NAME: EntityName_t (string).
pub const PID_ENTITY_NAME: u16 = 0x0062;
/// PID_GROUP_COHERENT_SET: SequenceNumber_t, inline QoS.
pub const PID_GROUP_COHERENT_SET: u16 = 0x0063;
/// PID_GROUP_SEQ_NUM: SequenceNumber_t, inline QoS.
pub const PID_GROUP_SEQ_NUM: u16 = 0x0064;
/// PID_WRITER_GROUP_INFO: WriterGroupInfo_t, inline QoS.
pub const PID_WRITER_GROUP_INFO: u16 = 0x0065;
/// PID_SECURE_WRITER_GROUP_INFO: WriterGroupInfo_t, inline QoS (DDS-Security).
pub const PID_SECURE_WRITER_GROUP_INFO: u16 = 0x0066;
/// PID_TYPE_IDV1: legacy XTypes 1.1 TypeIdentifier (Fast DDS 2.x).
pub const PID_TYPE_IDV1: u16 = 0x0069;
/// PID_KEY_HASH: KeyHash_t (16 octets), inline QoS.
pub const PID_KEY_HASH: u16 = 0x0070;
/// PID_STATUS_INFO: StatusInfo_t (4 octets, big-endian), inline QoS.
pub const PID_STATUS_INFO: u16 = 0x0071;
/// PID_TYPE_OBJECTV1: legacy XTypes 1.1 TypeObject (Fast DDS 2.x).
pub const PID_TYPE_OBJECTV1: u16 = 0x0072;
/// PID_DATA_REPRESENTATION: `sequence<short>`. DDS-XTypes 1.3 §7.6.2.1.
pub const PID_DATA_REPRESENTATION: u16 = 0x0073;
/// PID_TYPE_CONSISTENCY_ENFORCEMENT. DDS-XTypes 1.3 §7.6.2.1.
pub const PID_TYPE_CONSISTENCY_ENFORCEMENT: u16 = 0x0074;
/// PID_TYPE_INFORMATION: XCDR2-LE TypeInformation. DDS-XTypes 1.3 §7.6.2.1.
pub const PID_TYPE_INFORMATION: u16 = 0x0075;
/// PID_BUILTIN_ENDPOINT_QOS: BuiltinEndpointQos_t (uint32 bit set).
pub const PID_BUILTIN_ENDPOINT_QOS: u16 = 0x0077;
/// PID_RELATED_SAMPLE_IDENTITY: SampleIdentity (GUID_t + SequenceNumber_t), inline QoS.
pub const PID_RELATED_SAMPLE_IDENTITY: u16 = 0x0083;
/// PID_IDENTITY_TOKEN (DDS-Security 1.1 Table 9).
pub const PID_IDENTITY_TOKEN: u16 = 0x1001;
/// PID_PERMISSIONS_TOKEN (DDS-Security 1.1 Table 9).
pub const PID_PERMISSIONS_TOKEN: u16 = 0x1002;
/// PID_DATA_TAGS (DDS-Security 1.1 Table 9).
pub const PID_DATA_TAGS: u16 = 0x1003;
/// PID_ENDPOINT_SECURITY_INFO (DDS-Security 1.1 Table 9).
pub const PID_ENDPOINT_SECURITY_INFO: u16 = 0x1004;
/// PID_PARTICIPANT_SECURITY_INFO (DDS-Security 1.1 Table 9).
pub const PID_PARTICIPANT_SECURITY_INFO: u16 = 0x1005;
/// PID_IDENTITY_STATUS_TOKEN (DDS-Security 1.1 Table 9).
pub const PID_IDENTITY_STATUS_TOKEN: u16 = 0x1006;
/// PID_DOMAIN_TAG: string; carries the must-understand bit (0x4000 | 0x14).
pub const PID_DOMAIN_TAG: u16 = 0x4014;

// ---- Cyclone DDS / ADLINK (vendor 01.10 and OpenSplice 01.02), `q_protocol.h` ---------------

/// PID_ADLINK_BUILTIN_ENDPOINT_SET.
pub const PID_ADLINK_BUILTIN_ENDPOINT_SET: u16 = 0x8000;
/// PID_ADLINK_READER_DATA_LIFECYCLE.
pub const PID_ADLINK_READER_DATA_LIFECYCLE: u16 = 0x8002;
/// PID_ADLINK_WRITER_DATA_LIFECYCLE.
pub const PID_ADLINK_WRITER_DATA_LIFECYCLE: u16 = 0x8003;
/// PID_ADLINK_ENDPOINT_GUID: GUID_t (strict-mode replacement for 0x005a).
pub const PID_ADLINK_ENDPOINT_GUID: u16 = 0x8004;
/// PID_ADLINK_SYNCHRONOUS_ENDPOINT.
pub const PID_ADLINK_SYNCHRONOUS_ENDPOINT: u16 = 0x8005;
/// PID_ADLINK_RELAXED_QOS_MATCHING (vendor + must-understand).
pub const PID_ADLINK_RELAXED_QOS_MATCHING: u16 = 0xc006;
/// PID_ADLINK_PARTICIPANT_VERSION_INFO (a.k.a. PRISMTECH_PARTICIPANT_VERSION_INFO).
pub const PID_ADLINK_PARTICIPANT_VERSION_INFO: u16 = 0x8007;
/// PID_ADLINK_NODE_NAME: string.
pub const PID_ADLINK_NODE_NAME: u16 = 0x8008;
/// PID_ADLINK_EXEC_NAME: string.
pub const PID_ADLINK_EXEC_NAME: u16 = 0x8009;
/// PID_ADLINK_PROCESS_ID: uint32.
pub const PID_ADLINK_PROCESS_ID: u16 = 0x800a;
/// PID_ADLINK_SERVICE_TYPE.
pub const PID_ADLINK_SERVICE_TYPE: u16 = 0x800b;
/// PID_ADLINK_ENTITY_FACTORY.
pub const PID_ADLINK_ENTITY_FACTORY: u16 = 0x800c;
/// PID_ADLINK_WATCHDOG_SCHEDULING.
pub const PID_ADLINK_WATCHDOG_SCHEDULING: u16 = 0x800d;
/// PID_ADLINK_LISTENER_SCHEDULING.
pub const PID_ADLINK_LISTENER_SCHEDULING: u16 = 0x800e;
/// PID_ADLINK_SUBSCRIPTION_KEYS.
pub const PID_ADLINK_SUBSCRIPTION_KEYS: u16 = 0x800f;
/// PID_ADLINK_READER_LIFESPAN.
pub const PID_ADLINK_READER_LIFESPAN: u16 = 0x8010;
/// PID_ADLINK_TYPE_DESCRIPTION.
pub const PID_ADLINK_TYPE_DESCRIPTION: u16 = 0x8012;
/// PID_ADLINK_LAN.
pub const PID_ADLINK_LAN: u16 = 0x8013;
/// PID_ADLINK_ENDPOINT_GID.
pub const PID_ADLINK_ENDPOINT_GID: u16 = 0x8014;
/// PID_ADLINK_GROUP_GID.
pub const PID_ADLINK_GROUP_GID: u16 = 0x8015;
/// PID_ADLINK_EOTINFO.
pub const PID_ADLINK_EOTINFO: u16 = 0x8016;
/// PID_ADLINK_PART_CERT_NAME.
pub const PID_ADLINK_PART_CERT_NAME: u16 = 0x8017;
/// PID_ADLINK_LAN_CERT_NAME.
pub const PID_ADLINK_LAN_CERT_NAME: u16 = 0x8018;
/// PID_CYCLONE_RECEIVE_BUFFER_SIZE: uint32.
pub const PID_CYCLONE_RECEIVE_BUFFER_SIZE: u16 = 0x8019;
/// PID_CYCLONE_TYPE_INFORMATION (pre-XTypes type discovery).
pub const PID_CYCLONE_TYPE_INFORMATION: u16 = 0x801a;
/// PID_CYCLONE_REQUESTS_KEYHASH: boolean.
pub const PID_CYCLONE_REQUESTS_KEYHASH: u16 = 0x801c;

// ---- Fast DDS (vendor 01.0f), `ParameterTypes.hpp` 2.9 ---------------------------------------

/// PID_PRODUCT_VERSION (Fast DDS).
pub const PID_FASTDDS_PRODUCT_VERSION: u16 = 0x8000;
/// PID_PERSISTENCE_GUID: GUID_t (Fast DDS).
pub const PID_FASTDDS_PERSISTENCE_GUID: u16 = 0x8002;
/// PID_DISABLE_POSITIVE_ACKS: boolean (Fast DDS; also accepted from RTI by Fast DDS).
pub const PID_FASTDDS_DISABLE_POSITIVE_ACKS: u16 = 0x8005;
/// PID_DATASHARING (Fast DDS).
pub const PID_FASTDDS_DATASHARING: u16 = 0x8006;
/// PID_CUSTOM_RELATED_SAMPLE_IDENTITY: legacy RELATED_SAMPLE_IDENTITY (docs/interop-facts.md §5.9).
pub const PID_FASTDDS_CUSTOM_RELATED_SAMPLE_IDENTITY: u16 = 0x800f;

// ---- siftdds (vendor 01.f0, `VendorId::SIFTDDS`) ----------------------------------------------

/// PID_SIFTDDS_ROUTER_PATH: the path vector of a siftdds router's proxy reader, the router
/// ids (uint64) the subscription came through, oldest first, as a `sequence<octet>` of 8-byte
/// big-endian ids (`plist::vendor`). Read only from siftdds senders (RTPS 2.5 §9.6.2.2.1).
pub const PID_SIFTDDS_ROUTER_PATH: u16 = 0x8001;

/// PID_SIFTDDS_PEER_GROUP_CAPABILITY (docs/peer-group-cache.md §4.1): in SPDP, the participant
/// restores abbreviated peer-group samples; a `sequence<octet>` of 8 octets, capacity and
/// generation as big-endian uint32 (`Capability::to_octets`). Read only from siftdds.
pub const PID_SIFTDDS_PEER_GROUP_CAPABILITY: u16 = 0x8101;

/// PID_SIFTDDS_PEER_GROUP_PROJECTIONS (docs/peer-group-cache.md §4.3): in SEDP DATA(w) of a
/// peer-group member writer, its group id and current projection digests, a `sequence<octet>`
/// of big-endian integers (`wire::ProjectionAnnouncement`). Read only from siftdds.
pub const PID_SIFTDDS_PEER_GROUP_PROJECTIONS: u16 = 0x8102;

/// PID_SIFTDDS_PEER_GROUP_EVICTED (docs/peer-group-cache.md §4.3): in SPDP of an intermediary,
/// the (group id, digest) entries it evicted most recently, a `sequence<octet>` of 12-octet
/// big-endian entries (`wire::EvictionNotice`). Read only from siftdds.
pub const PID_SIFTDDS_PEER_GROUP_EVICTED: u16 = 0x8103;
