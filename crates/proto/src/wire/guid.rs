//! Identifiers: GuidPrefix, EntityId, Guid, VendorId, ProtocolVersion.
//!
//! Must not: panic or allocate; these are plain fixed-size values.
//!
//! RTPS 2.5 §8.2.4 (GUID), §9.3.1.1-9.3.1.5 (mapping), Table 9.1-9.2 (entity kinds and
//! builtin entity ids), §9.3.1.8 (vendor id).

use crate::cdr::{CdrError, CdrReader, CdrWriter};

/// GuidPrefix_t: 12 octets identifying a participant. RTPS 2.5 §9.3.1.1.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct GuidPrefix(pub [u8; 12]);

// Ordered as the octets are (lexicographically), compared as big-endian integers: the
// derived order calls memcmp, and GUIDs are the keys of the maps looked up per received
// submessage (route, matched writers, instances).
impl Ord for GuidPrefix {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for GuidPrefix {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl GuidPrefix {
    /// The octets as big-endian integers (same order as the octets).
    fn key(&self) -> (u64, u32) {
        let [a, b, c, d, e, f, g, h, i, j, k, l] = self.0;
        (
            u64::from_be_bytes([a, b, c, d, e, f, g, h]),
            u32::from_be_bytes([i, j, k, l]),
        )
    }

    /// GUIDPREFIX_UNKNOWN.
    pub const UNKNOWN: GuidPrefix = GuidPrefix([0; 12]);

    /// Reads 12 octets.
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        Ok(GuidPrefix(r.take_array::<12>("guidPrefix")?))
    }

    /// Writes 12 octets.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.bytes(&self.0);
    }
}

impl core::fmt::Display for GuidPrefix {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for (i, chunk) in self.0.chunks(4).enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            for b in chunk {
                write!(f, "{b:02x}")?;
            }
        }
        Ok(())
    }
}

/// EntityId_t: 3 octets of key and one octet of kind. RTPS 2.5 §9.3.1.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct EntityId(pub [u8; 4]);

// Ordered as the octets are, compared as one big-endian integer (see GuidPrefix).
impl Ord for EntityId {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        u32::from_be_bytes(self.0).cmp(&u32::from_be_bytes(other.0))
    }
}

impl PartialOrd for EntityId {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl EntityId {
    /// ENTITYID_UNKNOWN.
    pub const UNKNOWN: EntityId = EntityId([0, 0, 0, 0]);
    /// ENTITYID_PARTICIPANT.
    pub const PARTICIPANT: EntityId = EntityId([0, 0, 1, 0xc1]);
    /// ENTITYID_SEDP_BUILTIN_TOPICS_ANNOUNCER.
    pub const SEDP_TOPICS_ANNOUNCER: EntityId = EntityId([0, 0, 2, 0xc2]);
    /// ENTITYID_SEDP_BUILTIN_TOPICS_DETECTOR.
    pub const SEDP_TOPICS_DETECTOR: EntityId = EntityId([0, 0, 2, 0xc7]);
    /// ENTITYID_SEDP_BUILTIN_PUBLICATIONS_ANNOUNCER.
    pub const SEDP_PUBLICATIONS_ANNOUNCER: EntityId = EntityId([0, 0, 3, 0xc2]);
    /// ENTITYID_SEDP_BUILTIN_PUBLICATIONS_DETECTOR.
    pub const SEDP_PUBLICATIONS_DETECTOR: EntityId = EntityId([0, 0, 3, 0xc7]);
    /// ENTITYID_SEDP_BUILTIN_SUBSCRIPTIONS_ANNOUNCER.
    pub const SEDP_SUBSCRIPTIONS_ANNOUNCER: EntityId = EntityId([0, 0, 4, 0xc2]);
    /// ENTITYID_SEDP_BUILTIN_SUBSCRIPTIONS_DETECTOR.
    pub const SEDP_SUBSCRIPTIONS_DETECTOR: EntityId = EntityId([0, 0, 4, 0xc7]);
    /// ENTITYID_SPDP_BUILTIN_PARTICIPANT_ANNOUNCER.
    pub const SPDP_PARTICIPANT_ANNOUNCER: EntityId = EntityId([0, 1, 0, 0xc2]);
    /// ENTITYID_SPDP_BUILTIN_PARTICIPANT_DETECTOR.
    pub const SPDP_PARTICIPANT_DETECTOR: EntityId = EntityId([0, 1, 0, 0xc7]);
    /// ENTITYID_P2P_BUILTIN_PARTICIPANT_MESSAGE_WRITER.
    pub const P2P_PARTICIPANT_MESSAGE_WRITER: EntityId = EntityId([0, 2, 0, 0xc2]);
    /// ENTITYID_P2P_BUILTIN_PARTICIPANT_MESSAGE_READER.
    pub const P2P_PARTICIPANT_MESSAGE_READER: EntityId = EntityId([0, 2, 0, 0xc7]);

    /// Entity kind: user-defined writer with key. RTPS 2.5 Table 9.1.
    pub const KIND_WRITER_WITH_KEY: u8 = 0x02;
    /// Entity kind: user-defined writer without key.
    pub const KIND_WRITER_NO_KEY: u8 = 0x03;
    /// Entity kind: user-defined reader without key.
    pub const KIND_READER_NO_KEY: u8 = 0x04;
    /// Entity kind: user-defined reader with key.
    pub const KIND_READER_WITH_KEY: u8 = 0x07;

    /// Reads 4 octets (an EntityId has no byte order).
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        Ok(EntityId(r.take_array::<4>("entityId")?))
    }

    /// Writes 4 octets.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.bytes(&self.0);
    }

    /// The entityKind octet.
    pub fn kind(&self) -> u8 {
        self.0[3]
    }

    /// True for writer kinds (user or builtin): low nibble 2 or 3. RTPS 2.5 Table 9.1.
    pub fn is_writer(&self) -> bool {
        matches!(self.kind() & 0x0f, 0x02 | 0x03)
    }

    /// True for reader kinds (user or builtin): low nibble 4 or 7.
    pub fn is_reader(&self) -> bool {
        matches!(self.kind() & 0x0f, 0x04 | 0x07)
    }

    /// True for builtin entities (kind bits 0xc0 = 0xc0).
    pub fn is_builtin(&self) -> bool {
        self.kind() & 0xc0 == 0xc0
    }
}

impl core::fmt::Display for EntityId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let [a, b, c, d] = self.0;
        write!(f, "{a:02x}{b:02x}{c:02x}{d:02x}")
    }
}

/// GUID_t = prefix + entity id. RTPS 2.5 §9.3.1.5. Ordered by prefix, then entity id (as the
/// 16 octets are).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Guid {
    /// The participant part.
    pub prefix: GuidPrefix,
    /// The entity within the participant.
    pub entity_id: EntityId,
}

impl Guid {
    /// GUID_UNKNOWN.
    pub const UNKNOWN: Guid = Guid {
        prefix: GuidPrefix::UNKNOWN,
        entity_id: EntityId::UNKNOWN,
    };

    /// A GUID from its two parts.
    pub const fn new(prefix: GuidPrefix, entity_id: EntityId) -> Self {
        Guid { prefix, entity_id }
    }

    /// Reads 16 octets.
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        Ok(Guid {
            prefix: GuidPrefix::parse(r)?,
            entity_id: EntityId::parse(r)?,
        })
    }

    /// Writes 16 octets.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        self.prefix.emit(w);
        self.entity_id.emit(w);
    }

    /// The 16 octets as one array (e.g. for a key hash or a map key).
    pub fn to_bytes(&self) -> [u8; 16] {
        let mut out = [0u8; 16];
        let (p, e) = out.split_at_mut(12);
        p.copy_from_slice(&self.prefix.0);
        e.copy_from_slice(&self.entity_id.0);
        out
    }
}

impl core::fmt::Display for Guid {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{}", self.prefix, self.entity_id)
    }
}

/// VendorId_t. RTPS 2.5 §9.3.1.8; values from the OMG vendor list (docs/interop-facts.md §5.1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct VendorId(pub [u8; 2]);

impl VendorId {
    /// VENDORID_UNKNOWN.
    pub const UNKNOWN: VendorId = VendorId([0, 0]);
    /// RTI Connext DDS.
    pub const RTI_CONNEXT: VendorId = VendorId([0x01, 0x01]);
    /// ADLINK OpenSplice.
    pub const OPENSPLICE: VendorId = VendorId([0x01, 0x02]);
    /// OCI OpenDDS.
    pub const OPENDDS: VendorId = VendorId([0x01, 0x03]);
    /// RTI Connext Micro.
    pub const RTI_MICRO: VendorId = VendorId([0x01, 0x0a]);
    /// eProsima Fast DDS.
    pub const FAST_DDS: VendorId = VendorId([0x01, 0x0f]);
    /// Eclipse Cyclone DDS.
    pub const CYCLONE_DDS: VendorId = VendorId([0x01, 0x10]);
    /// RustDDS (Atostek).
    pub const RUSTDDS: VendorId = VendorId([0x01, 0x12]);
    /// Dust DDS (S2E Software Systems).
    pub const DUST_DDS: VendorId = VendorId([0x01, 0x13]);
    /// siftdds. We have no id from the OMG yet; 0x01.0xf0 is outside the assigned range, so
    /// no peer mistakes us for one of the vendors whose quirks it works around
    /// (docs/interop-facts.md §5.1).
    pub const SIFTDDS: VendorId = VendorId([0x01, 0xf0]);

    /// A short name for known vendors.
    pub fn name(&self) -> Option<&'static str> {
        Some(match *self {
            Self::RTI_CONNEXT => "RTI Connext",
            Self::OPENSPLICE => "OpenSplice",
            Self::OPENDDS => "OpenDDS",
            Self::RTI_MICRO => "RTI Micro",
            Self::FAST_DDS => "Fast DDS",
            Self::CYCLONE_DDS => "Cyclone DDS",
            Self::RUSTDDS => "RustDDS",
            Self::DUST_DDS => "Dust DDS",
            Self::SIFTDDS => "siftdds",
            _ => return None,
        })
    }
}

/// ProtocolVersion_t. RTPS 2.5 §9.3.1.6.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProtocolVersion {
    /// Major version; we speak 2.
    pub major: u8,
    /// Minor version.
    pub minor: u8,
}

impl ProtocolVersion {
    /// The version we announce. Cyclone 0.10 drops minor < 1 (docs/interop-facts.md §5.1); 2.5 is
    /// ours.
    pub const V2_5: ProtocolVersion = ProtocolVersion { major: 2, minor: 5 };
}

#[cfg(test)]
mod tests;
