//! SPDPdiscoveredParticipantData: what a participant announces about itself in SPDP DATA(p),
//! and the PL_CDR payload that carries it.
//!
//! Must not: keep lease timers or decide whether to accept a participant for a domain (that is
//! SPDP behaviour in core); panic; or keep more than the named limits of locators/properties.
//!
//! RTPS 2.5 §8.5.3.2 (attributes), §9.6.2.2 and Table 9.19 (PIDs, defaults: lease 100 s),
//! §9.6.2.2.1 (unknown PIDs). Interop (docs/interop-facts.md §5.3): Cyclone 0.10 requires
//! PARTICIPANT_GUID and BUILTIN_ENDPOINT_SET and omits DOMAIN_TAG when empty because 0x4014 is
//! must-understand; Fast DDS 2.9 takes the GUID from PARTICIPANT_GUID or else KEY_HASH and keeps a
//! lease of 0 when PARTICIPANT_LEASE_DURATION is absent, so we always send it.

use super::payload::{decode, encode, guid_from_key_hash, known, locator_params, push_locator};
use super::{BuiltinEndpointSet, DiscoveryError};
use crate::cdr::Endianness;
use crate::time::Duration;
use crate::wire::plist::pid::*;
use crate::wire::plist::{Parameter, Value};
use crate::wire::{EntityId, Guid, GuidPrefix, Locator, ProtocolVersion, VendorId};

/// The participant lease assumed when PID_PARTICIPANT_LEASE_DURATION is absent: 100 s.
/// RTPS 2.5 Table 9.19.
pub const DEFAULT_LEASE_DURATION: Duration = Duration {
    seconds: 100,
    fraction: 0,
};
/// The most PID_PROPERTY_LIST entries kept; extra ones are dropped (Fast DDS sends three).
pub const MAX_PROPERTIES: usize = 64;

/// SPDPdiscoveredParticipantData. RTPS 2.5 §8.5.3.2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParticipantProxyData {
    /// The participant's GUID prefix (its GUID has entity id ENTITYID_PARTICIPANT).
    pub guid_prefix: GuidPrefix,
    /// PID_PROTOCOL_VERSION (required; major must be 2).
    pub protocol_version: ProtocolVersion,
    /// PID_VENDORID, or the RTPS header's vendor when absent.
    pub vendor_id: VendorId,
    /// PID_DOMAIN_ID; `None` when absent (the receiver's own domain is meant). Always `Some`
    /// for our own participant, so that it is always sent.
    pub domain_id: Option<u32>,
    /// PID_DOMAIN_TAG; empty (the default) is not sent.
    pub domain_tag: String,
    /// PID_EXPECTS_INLINE_QOS (default false; sent only when true).
    pub expects_inline_qos: bool,
    /// PID_METATRAFFIC_UNICAST_LOCATOR entries (SEDP and directed SPDP go here).
    pub metatraffic_unicast_locators: Vec<Locator>,
    /// PID_METATRAFFIC_MULTICAST_LOCATOR entries.
    pub metatraffic_multicast_locators: Vec<Locator>,
    /// PID_DEFAULT_UNICAST_LOCATOR entries (user data for endpoints that announce none).
    pub default_unicast_locators: Vec<Locator>,
    /// PID_DEFAULT_MULTICAST_LOCATOR entries.
    pub default_multicast_locators: Vec<Locator>,
    /// PID_BUILTIN_ENDPOINT_SET (required).
    pub available_builtin_endpoints: BuiltinEndpointSet,
    /// PID_PARTICIPANT_LEASE_DURATION ([`DEFAULT_LEASE_DURATION`] when absent; always sent).
    pub lease_duration: Duration,
    /// PID_PARTICIPANT_MANUAL_LIVELINESS_COUNT (default 0).
    pub manual_liveliness_count: i32,
    /// PID_USER_DATA (default empty, sent only when non-empty).
    pub user_data: Vec<u8>,
    /// PID_ENTITY_NAME, if any.
    pub entity_name: Option<String>,
    /// PID_PROPERTY_LIST name/value pairs (binary properties are not kept); sent when
    /// non-empty. At most [`MAX_PROPERTIES`].
    pub properties: Vec<(String, String)>,
    /// PID_SIFTDDS_PGCACHE_CAPABILITY (siftdds vendor PID, read only from siftdds): the
    /// participant is a peer-group intermediary with this capacity and cache generation
    /// (docs/peer-group-cache.md). `None`: not one, and not sent.
    pub pgcache: Option<crate::wire::Capability>,
    /// PID_SIFTDDS_PGCACHE_EVICTED (siftdds vendor PID, read only from siftdds): the entries
    /// an intermediary evicted most recently, at most `wire::MAX_EVICTION_NOTICES`
    /// (docs/peer-group-cache.md §4.3). Empty (and not sent) otherwise.
    pub pgcache_evicted: Vec<crate::wire::EvictionNotice>,
}

impl ParticipantProxyData {
    /// Data for a participant with GUID prefix `guid_prefix` in `domain_id`, speaking RTPS 2.5
    /// as siftdds, with the default builtin endpoints and lease, and no locators yet.
    pub fn new(guid_prefix: GuidPrefix, domain_id: u32) -> Self {
        ParticipantProxyData {
            guid_prefix,
            protocol_version: ProtocolVersion::V2_5,
            vendor_id: VendorId::SIFTDDS,
            domain_id: Some(domain_id),
            domain_tag: String::new(),
            expects_inline_qos: false,
            metatraffic_unicast_locators: Vec::new(),
            metatraffic_multicast_locators: Vec::new(),
            default_unicast_locators: Vec::new(),
            default_multicast_locators: Vec::new(),
            available_builtin_endpoints: BuiltinEndpointSet::DEFAULT,
            lease_duration: DEFAULT_LEASE_DURATION,
            manual_liveliness_count: 0,
            user_data: Vec::new(),
            entity_name: None,
            properties: Vec::new(),
            pgcache: None,
            pgcache_evicted: Vec::new(),
        }
    }

    /// The participant's GUID.
    pub fn guid(&self) -> Guid {
        Guid::new(self.guid_prefix, EntityId::PARTICIPANT)
    }

    /// PID_KEY_HASH of this participant's SPDP instance: its GUID octets.
    pub fn key_hash(&self) -> [u8; 16] {
        self.guid().to_bytes()
    }

    /// The SPDP DATA(p) payload: PL_CDR_BE/LE header, parameters, sentinel. Always carries
    /// PROTOCOL_VERSION, VENDORID, PARTICIPANT_GUID, BUILTIN_ENDPOINT_SET,
    /// PARTICIPANT_LEASE_DURATION and (when known) DOMAIN_ID; DOMAIN_TAG only when non-empty.
    ///
    /// Errors: a value too long for a parameter (user data over 64 KiB).
    pub fn to_payload(&self, endian: Endianness) -> Result<Vec<u8>, DiscoveryError> {
        let mut p: Vec<Parameter<'_>> = vec![
            known(
                PID_PROTOCOL_VERSION,
                Value::ProtocolVersion(self.protocol_version),
            ),
            known(PID_VENDORID, Value::VendorId(self.vendor_id)),
            known(PID_PARTICIPANT_GUID, Value::Guid(self.guid())),
        ];
        if let Some(d) = self.domain_id {
            p.push(known(PID_DOMAIN_ID, Value::U32(d)));
        }
        // Cyclone omits an empty tag: 0x4014 is must-understand (docs/interop-facts.md §5.3).
        if !self.domain_tag.is_empty() {
            p.push(known(PID_DOMAIN_TAG, Value::String(&self.domain_tag)));
        }
        if self.expects_inline_qos {
            p.push(known(PID_EXPECTS_INLINE_QOS, Value::Bool(true)));
        }
        locator_params(
            &mut p,
            PID_METATRAFFIC_UNICAST_LOCATOR,
            &self.metatraffic_unicast_locators,
        );
        locator_params(
            &mut p,
            PID_METATRAFFIC_MULTICAST_LOCATOR,
            &self.metatraffic_multicast_locators,
        );
        locator_params(
            &mut p,
            PID_DEFAULT_UNICAST_LOCATOR,
            &self.default_unicast_locators,
        );
        locator_params(
            &mut p,
            PID_DEFAULT_MULTICAST_LOCATOR,
            &self.default_multicast_locators,
        );
        p.push(known(
            PID_BUILTIN_ENDPOINT_SET,
            Value::U32(self.available_builtin_endpoints.0),
        ));
        p.push(known(
            PID_PARTICIPANT_LEASE_DURATION,
            Value::Duration(self.lease_duration),
        ));
        p.push(known(
            PID_PARTICIPANT_MANUAL_LIVELINESS_COUNT,
            Value::I32(self.manual_liveliness_count),
        ));
        if !self.user_data.is_empty() {
            p.push(known(PID_USER_DATA, Value::Octets(&self.user_data)));
        }
        if let Some(name) = &self.entity_name {
            p.push(known(PID_ENTITY_NAME, Value::String(name)));
        }
        if !self.properties.is_empty() {
            let properties = self
                .properties
                .iter()
                .map(|(n, v)| (n.as_str(), v.as_str()))
                .collect();
            p.push(known(
                PID_PROPERTY_LIST,
                Value::PropertyList {
                    properties,
                    rest: &[],
                },
            ));
        }
        let capability = self.pgcache.map(|c| c.to_octets());
        if let Some(c) = &capability {
            p.push(known(PID_SIFTDDS_PGCACHE_CAPABILITY, Value::Octets(c)));
        }
        let evicted = (!self.pgcache_evicted.is_empty())
            .then(|| crate::wire::EvictionNotice::list_to_octets(&self.pgcache_evicted));
        if let Some(e) = &evicted {
            p.push(known(PID_SIFTDDS_PGCACHE_EVICTED, Value::Octets(e)));
        }
        encode(&p, endian)
    }

    /// Decodes an SPDP DATA(p) payload sent in a message whose header names `vendor`.
    ///
    /// Errors: malformed bytes; an unknown must-understand PID; no PARTICIPANT_GUID (nor
    /// KEY_HASH) or a GUID whose entity id is not ENTITYID_PARTICIPANT; no PROTOCOL_VERSION or
    /// a major version other than 2; no BUILTIN_ENDPOINT_SET.
    pub fn from_payload(payload: &[u8], vendor: VendorId) -> Result<Self, DiscoveryError> {
        let params = decode(payload, vendor)?;
        let mut out = ParticipantProxyData::new(GuidPrefix::UNKNOWN, 0);
        out.vendor_id = vendor;
        out.domain_id = None;
        out.available_builtin_endpoints = BuiltinEndpointSet(0);
        let (mut guid, mut key_hash, mut version) = (None, None, None);
        let (mut endpoints, mut legacy_endpoints) = (None, None);
        for param in &params {
            let Parameter::Known { pid, value } = param else {
                continue;
            };
            match (*pid, value) {
                (PID_PARTICIPANT_GUID, Value::Guid(g)) => guid = Some(*g),
                (PID_KEY_HASH, Value::KeyHash(k)) => key_hash = Some(*k),
                (PID_PROTOCOL_VERSION, Value::ProtocolVersion(v)) => version = Some(*v),
                (PID_VENDORID, Value::VendorId(v)) => out.vendor_id = *v,
                (PID_DOMAIN_ID, Value::U32(d)) => out.domain_id = Some(*d),
                (PID_DOMAIN_TAG, Value::String(s)) => out.domain_tag = (*s).to_owned(),
                (PID_EXPECTS_INLINE_QOS, Value::Bool(b)) => out.expects_inline_qos = *b,
                (PID_METATRAFFIC_UNICAST_LOCATOR, Value::Locator(l)) => {
                    push_locator(&mut out.metatraffic_unicast_locators, *l);
                }
                (PID_METATRAFFIC_MULTICAST_LOCATOR, Value::Locator(l)) => {
                    push_locator(&mut out.metatraffic_multicast_locators, *l);
                }
                (PID_DEFAULT_UNICAST_LOCATOR, Value::Locator(l)) => {
                    push_locator(&mut out.default_unicast_locators, *l);
                }
                (PID_DEFAULT_MULTICAST_LOCATOR, Value::Locator(l)) => {
                    push_locator(&mut out.default_multicast_locators, *l);
                }
                (PID_BUILTIN_ENDPOINT_SET, Value::U32(b)) => endpoints = Some(*b),
                // RTPS 2.1's name for the same set; used only when the 2.2+ PID is absent.
                (PID_PARTICIPANT_BUILTIN_ENDPOINTS, Value::U32(b)) => legacy_endpoints = Some(*b),
                (PID_PARTICIPANT_LEASE_DURATION, Value::Duration(d)) => out.lease_duration = *d,
                (PID_PARTICIPANT_MANUAL_LIVELINESS_COUNT, Value::I32(c)) => {
                    out.manual_liveliness_count = *c;
                }
                (PID_USER_DATA, Value::Octets(b)) => out.user_data = b.to_vec(),
                (PID_SIFTDDS_PGCACHE_CAPABILITY, Value::Octets(b)) => {
                    out.pgcache = crate::wire::Capability::from_octets(b);
                }
                (PID_SIFTDDS_PGCACHE_EVICTED, Value::Octets(b)) => {
                    out.pgcache_evicted =
                        crate::wire::EvictionNotice::list_from_octets(b).unwrap_or_default();
                }
                (PID_ENTITY_NAME, Value::String(s)) => out.entity_name = Some((*s).to_owned()),
                (PID_PROPERTY_LIST, Value::PropertyList { properties, .. }) => {
                    out.properties = properties
                        .iter()
                        .take(MAX_PROPERTIES)
                        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                        .collect();
                }
                _ => {}
            }
        }
        // Fast DDS falls back to the key hash when PARTICIPANT_GUID is absent
        // (docs/interop-facts.md §5.3).
        let guid = match (guid, key_hash) {
            (Some(g), _) => g,
            (None, Some(k)) => guid_from_key_hash(&k)?,
            (None, None) => return Err(DiscoveryError::Missing("PID_PARTICIPANT_GUID")),
        };
        if guid.entity_id != EntityId::PARTICIPANT {
            return Err(DiscoveryError::Invalid("participant GUID entity id"));
        }
        out.guid_prefix = guid.prefix;
        out.protocol_version = version.ok_or(DiscoveryError::Missing("PID_PROTOCOL_VERSION"))?;
        // Fast DDS 2.9 rejects major < 2 (docs/interop-facts.md §5.1); a major 3 would be another
        // protocol.
        if out.protocol_version.major != 2 {
            return Err(DiscoveryError::Invalid("protocol version (major is not 2)"));
        }
        out.available_builtin_endpoints = BuiltinEndpointSet(
            endpoints
                .or(legacy_endpoints)
                .ok_or(DiscoveryError::Missing("PID_BUILTIN_ENDPOINT_SET"))?,
        );
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> ParticipantProxyData {
        let mut p =
            ParticipantProxyData::new(GuidPrefix([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]), 7);
        p.domain_tag = "tag".into();
        p.expects_inline_qos = true;
        p.metatraffic_unicast_locators = vec![Locator::udpv4([10, 0, 0, 1], 9160)];
        p.metatraffic_multicast_locators = vec![Locator::udpv4([239, 255, 0, 1], 9150)];
        p.default_unicast_locators = vec![
            Locator::udpv4([10, 0, 0, 1], 9161),
            Locator::udpv4([10, 0, 0, 2], 9161),
        ];
        p.default_multicast_locators = vec![Locator::udpv4([239, 255, 0, 1], 9151)];
        p.lease_duration = Duration {
            seconds: 20,
            fraction: 0,
        };
        p.manual_liveliness_count = 3;
        p.user_data = vec![1, 2, 3];
        p.entity_name = Some("router".into());
        p.properties = vec![("a".into(), "b".into())];
        p
    }

    #[test]
    fn round_trips_in_both_byte_orders() {
        for endian in [Endianness::Big, Endianness::Little] {
            let p = sample();
            let bytes = p.to_payload(endian).unwrap();
            assert_eq!(
                ParticipantProxyData::from_payload(&bytes, VendorId::UNKNOWN),
                Ok(p)
            );
            let minimal = ParticipantProxyData::new(GuidPrefix([9; 12]), 0);
            let bytes = minimal.to_payload(endian).unwrap();
            assert_eq!(
                ParticipantProxyData::from_payload(&bytes, VendorId::UNKNOWN),
                Ok(minimal)
            );
        }
    }

    #[test]
    fn empty_domain_tag_is_not_sent_and_mandatory_pids_are() {
        let bytes = ParticipantProxyData::new(GuidPrefix([9; 12]), 0)
            .to_payload(Endianness::Little)
            .unwrap();
        let params = decode(&bytes, VendorId::SIFTDDS).unwrap();
        let pids: Vec<u16> = params.iter().map(Parameter::pid).collect();
        assert!(!pids.contains(&PID_DOMAIN_TAG));
        for pid in [
            PID_PARTICIPANT_GUID,
            PID_BUILTIN_ENDPOINT_SET,
            PID_PROTOCOL_VERSION,
            PID_VENDORID,
            PID_PARTICIPANT_LEASE_DURATION,
            PID_DOMAIN_ID,
        ] {
            assert!(pids.contains(&pid), "0x{pid:04x} missing");
        }
    }

    fn payload(params: &[Parameter<'_>]) -> Vec<u8> {
        encode(params, Endianness::Little).unwrap()
    }

    #[test]
    fn defaults_fallbacks_and_rejections() {
        let g = Guid::new(GuidPrefix([4; 12]), EntityId::PARTICIPANT);
        let version = known(
            PID_PROTOCOL_VERSION,
            Value::ProtocolVersion(ProtocolVersion { major: 2, minor: 1 }),
        );
        let set = known(PID_BUILTIN_ENDPOINT_SET, Value::U32(0x3f));
        // Key hash instead of PARTICIPANT_GUID; no lease: 100 s; vendor from the header.
        let p = ParticipantProxyData::from_payload(
            &payload(&[
                version.clone(),
                set.clone(),
                known(PID_KEY_HASH, Value::KeyHash(g.to_bytes())),
            ]),
            VendorId::CYCLONE_DDS,
        )
        .unwrap();
        assert_eq!(p.guid(), g);
        assert_eq!(p.lease_duration, DEFAULT_LEASE_DURATION);
        assert_eq!(p.vendor_id, VendorId::CYCLONE_DDS);
        assert_eq!(p.domain_id, None);
        let guid = known(PID_PARTICIPANT_GUID, Value::Guid(g));
        let err = |params: &[Parameter<'_>]| {
            ParticipantProxyData::from_payload(&payload(params), VendorId::UNKNOWN)
        };
        assert_eq!(
            err(&[version.clone(), set.clone()]),
            Err(DiscoveryError::Missing("PID_PARTICIPANT_GUID"))
        );
        assert_eq!(
            err(&[version.clone(), guid.clone()]),
            Err(DiscoveryError::Missing("PID_BUILTIN_ENDPOINT_SET"))
        );
        assert_eq!(
            err(&[set.clone(), guid.clone()]),
            Err(DiscoveryError::Missing("PID_PROTOCOL_VERSION"))
        );
        let v1 = known(
            PID_PROTOCOL_VERSION,
            Value::ProtocolVersion(ProtocolVersion { major: 1, minor: 0 }),
        );
        assert!(matches!(
            err(&[v1, set.clone(), guid.clone()]),
            Err(DiscoveryError::Invalid(_))
        ));
        // The deprecated PID_PARTICIPANT_BUILTIN_ENDPOINTS stands in for the set.
        let legacy = known(PID_PARTICIPANT_BUILTIN_ENDPOINTS, Value::U32(0x3f));
        assert_eq!(
            err(&[version.clone(), legacy, guid.clone()]).map(|p| p.available_builtin_endpoints.0),
            Ok(0x3f)
        );
        // Unknown PIDs are skipped; an unknown must-understand PID is not understood.
        let raw = |pid| {
            Parameter::Unknown(crate::wire::plist::RawParameter {
                pid,
                value: &[0, 0, 0, 0],
            })
        };
        assert!(err(&[raw(0x0fff), version.clone(), set.clone(), guid.clone()]).is_ok());
        assert_eq!(
            err(&[raw(0x4fff), version, set, guid]),
            Err(DiscoveryError::NotUnderstood(0x4fff))
        );
    }

    #[test]
    fn more_than_max_locators_are_dropped() {
        let mut p = ParticipantProxyData::new(GuidPrefix([4; 12]), 0);
        p.default_unicast_locators = (0..40u16)
            .map(|i| Locator::udpv4([10, 0, 0, 1], i))
            .collect();
        let bytes = p.to_payload(Endianness::Big).unwrap();
        let back = ParticipantProxyData::from_payload(&bytes, VendorId::UNKNOWN).unwrap();
        assert_eq!(
            back.default_unicast_locators.len(),
            super::super::MAX_LOCATORS
        );
    }
}
