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
use crate::cdr::{CdrReader, Endianness};
use crate::time::Duration;
use crate::wire::data_holder::DataHolder;
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
    /// PID_SIFTDDS_PEER_GROUP_CAPABILITY (siftdds vendor PID, read only from siftdds): the
    /// participant is a peer-group intermediary with this capacity and cache generation
    /// (docs/peer-group-cache.md). `None`: not one, and not sent.
    pub peer_group: Option<crate::wire::Capability>,
    /// PID_SIFTDDS_PEER_GROUP_EVICTED (siftdds vendor PID, read only from siftdds): the entries
    /// an intermediary evicted most recently, at most `wire::MAX_EVICTION_NOTICES`
    /// (docs/peer-group-cache.md §4.3). Empty (and not sent) otherwise.
    pub peer_group_evicted: Vec<crate::wire::EvictionNotice>,
    /// PID_IDENTITY_TOKEN (DDS-Security 1.1 §7.4.1.4): the participant authenticates with
    /// this plugin before it is matched. `None`: not sent (no security).
    pub identity_token: Option<DataHolder>,
    /// PID_PERMISSIONS_TOKEN (DDS-Security 1.1 §7.4.1.4).
    pub permissions_token: Option<DataHolder>,
    /// PID_PARTICIPANT_SECURITY_INFO (DDS-Security 1.1 §7.4.1.6): participant and plugin
    /// security attribute masks.
    pub security_info: Option<ParticipantSecurityInfo>,
}

/// ParticipantSecurityInfo (DDS-Security 1.1 §7.4.1.6).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ParticipantSecurityInfo {
    /// ParticipantSecurityAttributesMask (bit 31: valid; bits 0-2: RTPS, discovery and
    /// liveliness protected).
    pub participant_security_attributes: u32,
    /// PluginParticipantSecurityAttributesMask (bit 31: valid).
    pub plugin_participant_security_attributes: u32,
}

impl ParticipantSecurityInfo {
    /// The masks of a participant whose governance protects nothing at the RTPS,
    /// discovery or liveliness level: only the valid bits (§9.4.2.4, §9.5.2.1).
    pub const UNPROTECTED: ParticipantSecurityInfo = ParticipantSecurityInfo {
        participant_security_attributes: 0x8000_0000,
        plugin_participant_security_attributes: 0x8000_0000,
    };

    fn to_bytes(self, endian: Endianness) -> [u8; 8] {
        masks_to_bytes(
            self.participant_security_attributes,
            self.plugin_participant_security_attributes,
            endian,
        )
    }

    fn from_bytes(bytes: &[u8], endian: Endianness) -> Option<Self> {
        let (a, b) = masks_from_bytes(bytes, endian)?;
        Some(ParticipantSecurityInfo {
            participant_security_attributes: a,
            plugin_participant_security_attributes: b,
        })
    }
}

/// The value of PID_PARTICIPANT_SECURITY_INFO or PID_ENDPOINT_SECURITY_INFO: an attributes
/// mask, then a plugin attributes mask, each a CDR u32 (DDS-Security 1.1 §7.4.1.5-6).
pub(super) fn masks_to_bytes(mask: u32, plugin_mask: u32, endian: Endianness) -> [u8; 8] {
    let (a, b) = match endian {
        Endianness::Big => (mask.to_be_bytes(), plugin_mask.to_be_bytes()),
        Endianness::Little => (mask.to_le_bytes(), plugin_mask.to_le_bytes()),
    };
    let mut out = [0u8; 8];
    for (o, v) in out.iter_mut().zip(a.iter().chain(b.iter())) {
        *o = *v;
    }
    out
}

/// The two masks [`masks_to_bytes`] wrote; `None` when the value is shorter.
pub(super) fn masks_from_bytes(bytes: &[u8], endian: Endianness) -> Option<(u32, u32)> {
    let mut r = CdrReader::new(bytes, endian);
    Some((r.u32("security info").ok()?, r.u32("security info").ok()?))
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
            peer_group: None,
            peer_group_evicted: Vec::new(),
            identity_token: None,
            permissions_token: None,
            security_info: None,
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
        let capability = self.peer_group.map(|c| c.to_octets());
        if let Some(c) = &capability {
            p.push(known(PID_SIFTDDS_PEER_GROUP_CAPABILITY, Value::Octets(c)));
        }
        let evicted = (!self.peer_group_evicted.is_empty())
            .then(|| crate::wire::EvictionNotice::list_to_octets(&self.peer_group_evicted));
        if let Some(e) = &evicted {
            p.push(known(PID_SIFTDDS_PEER_GROUP_EVICTED, Value::Octets(e)));
        }
        // DDS-Security 1.1 §7.4.1.4-6: the tokens in the payload's byte order.
        let identity = self.identity_token.as_ref().map(|t| t.to_bytes(endian));
        if let Some(t) = &identity {
            p.push(known(PID_IDENTITY_TOKEN, Value::Opaque(t)));
        }
        let permissions = self.permissions_token.as_ref().map(|t| t.to_bytes(endian));
        if let Some(t) = &permissions {
            p.push(known(PID_PERMISSIONS_TOKEN, Value::Opaque(t)));
        }
        let info = self.security_info.map(|i| i.to_bytes(endian));
        if let Some(i) = &info {
            p.push(known(PID_PARTICIPANT_SECURITY_INFO, Value::Opaque(i)));
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
        // PL_CDR_LE is 0x0003, PL_CDR_BE 0x0002 (RTPS 2.5 §10.2): the tokens' byte order.
        let endian = match payload.get(1) {
            Some(3) => Endianness::Little,
            _ => Endianness::Big,
        };
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
                (PID_SIFTDDS_PEER_GROUP_CAPABILITY, Value::Octets(b)) => {
                    out.peer_group = crate::wire::Capability::from_octets(b);
                }
                (PID_SIFTDDS_PEER_GROUP_EVICTED, Value::Octets(b)) => {
                    out.peer_group_evicted =
                        crate::wire::EvictionNotice::list_from_octets(b).unwrap_or_default();
                }
                (PID_ENTITY_NAME, Value::String(s)) => out.entity_name = Some((*s).to_owned()),
                // A token that does not decode is dropped: the participant then looks
                // unauthenticated, which security refuses when it must.
                (PID_IDENTITY_TOKEN, Value::Opaque(b)) => {
                    out.identity_token = DataHolder::from_bytes(b, endian).ok();
                }
                (PID_PERMISSIONS_TOKEN, Value::Opaque(b)) => {
                    out.permissions_token = DataHolder::from_bytes(b, endian).ok();
                }
                (PID_PARTICIPANT_SECURITY_INFO, Value::Opaque(b)) => {
                    out.security_info = ParticipantSecurityInfo::from_bytes(b, endian);
                }
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
mod tests;
