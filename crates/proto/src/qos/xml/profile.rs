//! A profile as read from an XML document (DDS-XML 1.0 §7.3.2 `<qos_profile>`, or a Fast DDS
//! `<profiles>` entry): plain data that the document readers (`omg`, `fastdds`) produce and the
//! provider resolves.
//!
//! Must not: parse XML or resolve `base_name` references; it is plain data.

use super::EntityKind;
use super::dom::Pos;
use super::patch::PolicyPatch;

/// One entity QoS element of a profile.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// Which entity it configures.
    pub kind: EntityKind,
    /// Its own `base_name`, overriding the profile's for this kind.
    pub base: Option<(String, Pos)>,
    /// `topic_filter`, `None` for none or `*`.
    pub filter: Option<String>,
    /// The policies in document order.
    pub patches: Vec<PolicyPatch>,
}

/// One profile: `Lib::Name` with its entries.
#[derive(Clone, Debug)]
pub(crate) struct Profile {
    /// `Library::Profile`.
    pub name: String,
    /// The library, for resolving unqualified `base_name`s.
    pub library: String,
    /// `base_name` of the profile.
    pub base: Option<(String, Pos)>,
    /// `is_default_qos="true"`.
    pub is_default: bool,
    /// Fast DDS `is_default_profile`: the kinds this profile is the default for.
    pub default_kinds: Vec<EntityKind>,
    /// The entity QoS elements in document order.
    pub entries: Vec<Entry>,
    /// The `<qos_profile>` position.
    pub pos: Pos,
    /// `<siftdds_peer_group>` elements (a siftdds extension, `peer_group.rs`).
    pub peer_groups: Vec<crate::qos::peer_group::PeerGroupConfig>,
}
