//! The governance document (DDS-Security 1.1 §9.4.1.2): per domain, whether unauthenticated
//! participants are allowed, join access control, the discovery/liveliness/RTPS protection
//! kinds, and the topic rules.
//!
//! Must not: verify the signature (smime.rs does) or decide access (decide.rs does).
//!
//! The elements of a `domain_rule` and of a `topic_rule` are read in any order (Fast DDS 2.9
//! requires the XSD order, Cyclone does not; documents written here for vendors keep the XSD
//! order). Domain rules and topic rules apply first-match in document order (§9.4.1.2.4,
//! §9.4.1.2.6).

use roxmltree::Node;

use super::xml::{self, boolean, child, children, elements, err, required, text};
use super::{AccessError, fnmatch};

/// The most domain rules, topic rules or domain entries a document may hold.
pub const MAX_RULES: usize = 4096;

/// ProtectionKind. §9.4.1.2.5.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ProtectionKind {
    /// NONE.
    None,
    /// SIGN.
    Sign,
    /// ENCRYPT.
    Encrypt,
    /// SIGN_WITH_ORIGIN_AUTHENTICATION.
    SignWithOriginAuthentication,
    /// ENCRYPT_WITH_ORIGIN_AUTHENTICATION.
    EncryptWithOriginAuthentication,
}

impl ProtectionKind {
    fn parse(node: Node<'_, '_>) -> Result<Self, AccessError> {
        Ok(match text(node) {
            "NONE" => ProtectionKind::None,
            "SIGN" => ProtectionKind::Sign,
            "ENCRYPT" => ProtectionKind::Encrypt,
            "SIGN_WITH_ORIGIN_AUTHENTICATION" => ProtectionKind::SignWithOriginAuthentication,
            "ENCRYPT_WITH_ORIGIN_AUTHENTICATION" => ProtectionKind::EncryptWithOriginAuthentication,
            t => return Err(err(node, format!("unknown protection kind {t:?}"))),
        })
    }
}

/// BasicProtectionKind: the protection of a serialized payload. §9.4.1.2.5.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BasicProtectionKind {
    /// NONE.
    None,
    /// SIGN.
    Sign,
    /// ENCRYPT.
    Encrypt,
}

impl BasicProtectionKind {
    fn parse(node: Node<'_, '_>) -> Result<Self, AccessError> {
        Ok(match text(node) {
            "NONE" => BasicProtectionKind::None,
            "SIGN" => BasicProtectionKind::Sign,
            "ENCRYPT" => BasicProtectionKind::Encrypt,
            t => return Err(err(node, format!("unknown basic protection kind {t:?}"))),
        })
    }
}

/// A set of domain ids: single ids and inclusive ranges (`<id>`, `<id_range>` with `<min>`
/// and/or `<max>`). §9.4.1.2.2.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DomainIdSet {
    ranges: Vec<(u32, u32)>,
}

impl DomainIdSet {
    /// True when `domain_id` is in the set.
    pub fn contains(&self, domain_id: u32) -> bool {
        self.ranges
            .iter()
            .any(|(lo, hi)| (*lo..=*hi).contains(&domain_id))
    }

    /// Reads a `<domains>` element.
    pub(crate) fn parse(node: Node<'_, '_>) -> Result<Self, AccessError> {
        let mut ranges = Vec::new();
        for c in elements(node) {
            if ranges.len() >= MAX_RULES {
                return Err(AccessError::TooLarge("domain ids"));
            }
            match c.tag_name().name() {
                "id" => {
                    let id = xml::uint(c)?;
                    ranges.push((id, id));
                }
                "id_range" => {
                    let min = child(c, "min")?.map(xml::uint).transpose()?;
                    let max = child(c, "max")?.map(xml::uint).transpose()?;
                    if min.is_none() && max.is_none() {
                        return Err(err(c, "<id_range> without <min> or <max>"));
                    }
                    let (lo, hi) = (min.unwrap_or(0), max.unwrap_or(u32::MAX));
                    if lo > hi {
                        return Err(err(c, "<id_range> with min above max"));
                    }
                    ranges.push((lo, hi));
                }
                other => return Err(err(c, format!("unexpected <{other}> in <domains>"))),
            }
        }
        Ok(DomainIdSet { ranges })
    }
}

/// One topic_rule. §9.4.1.2.6.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicRule {
    /// topic_expression (fnmatch).
    pub topic_expression: String,
    /// enable_discovery_protection.
    pub enable_discovery_protection: bool,
    /// enable_liveliness_protection (false when absent, as in the 1.0 schema).
    pub enable_liveliness_protection: bool,
    /// enable_read_access_control.
    pub enable_read_access_control: bool,
    /// enable_write_access_control.
    pub enable_write_access_control: bool,
    /// metadata_protection_kind.
    pub metadata_protection_kind: ProtectionKind,
    /// data_protection_kind.
    pub data_protection_kind: BasicProtectionKind,
}

impl TopicRule {
    fn parse(node: Node<'_, '_>) -> Result<Self, AccessError> {
        let b = |name| -> Result<bool, AccessError> { boolean(required(node, name)?) };
        Ok(TopicRule {
            topic_expression: text(required(node, "topic_expression")?).to_string(),
            enable_discovery_protection: b("enable_discovery_protection")?,
            enable_liveliness_protection: child(node, "enable_liveliness_protection")?
                .map(boolean)
                .transpose()?
                .unwrap_or(false),
            enable_read_access_control: b("enable_read_access_control")?,
            enable_write_access_control: b("enable_write_access_control")?,
            metadata_protection_kind: ProtectionKind::parse(required(
                node,
                "metadata_protection_kind",
            )?)?,
            data_protection_kind: BasicProtectionKind::parse(required(
                node,
                "data_protection_kind",
            )?)?,
        })
    }
}

/// One domain_rule. §9.4.1.2.4.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomainRule {
    /// domains.
    pub domains: DomainIdSet,
    /// allow_unauthenticated_participants.
    pub allow_unauthenticated_participants: bool,
    /// enable_join_access_control.
    pub enable_join_access_control: bool,
    /// discovery_protection_kind.
    pub discovery_protection_kind: ProtectionKind,
    /// liveliness_protection_kind.
    pub liveliness_protection_kind: ProtectionKind,
    /// rtps_protection_kind.
    pub rtps_protection_kind: ProtectionKind,
    /// topic_access_rules, in document order.
    pub topic_rules: Vec<TopicRule>,
}

impl DomainRule {
    fn parse(node: Node<'_, '_>) -> Result<Self, AccessError> {
        let pk = |name| -> Result<ProtectionKind, AccessError> {
            ProtectionKind::parse(required(node, name)?)
        };
        let mut topic_rules = Vec::new();
        for t in children(required(node, "topic_access_rules")?, "topic_rule") {
            if topic_rules.len() >= MAX_RULES {
                return Err(AccessError::TooLarge("topic rules"));
            }
            topic_rules.push(TopicRule::parse(t)?);
        }
        Ok(DomainRule {
            domains: DomainIdSet::parse(required(node, "domains")?)?,
            allow_unauthenticated_participants: boolean(required(
                node,
                "allow_unauthenticated_participants",
            )?)?,
            enable_join_access_control: boolean(required(node, "enable_join_access_control")?)?,
            discovery_protection_kind: pk("discovery_protection_kind")?,
            liveliness_protection_kind: pk("liveliness_protection_kind")?,
            rtps_protection_kind: pk("rtps_protection_kind")?,
            topic_rules,
        })
    }

    /// The first topic rule whose expression matches `topic`. §9.4.1.2.6: "the first rule
    /// that matches applies".
    pub fn topic_rule(&self, topic: &str) -> Option<&TopicRule> {
        self.topic_rules
            .iter()
            .find(|r| fnmatch(&r.topic_expression, topic))
    }
}

/// A governance document. §9.4.1.2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Governance {
    /// The domain rules in document order.
    pub domain_rules: Vec<DomainRule>,
}

impl Governance {
    /// Parses the XML of a governance document (the verified content of the S/MIME file).
    pub fn parse(text: &str) -> Result<Self, AccessError> {
        let doc = xml::parse(text)?;
        let root = doc.root_element();
        if root.tag_name().name() != "dds" {
            return Err(err(root, "the root element is not <dds>"));
        }
        let rules = required(root, "domain_access_rules")?;
        let mut domain_rules = Vec::new();
        for r in children(rules, "domain_rule") {
            if domain_rules.len() >= MAX_RULES {
                return Err(AccessError::TooLarge("domain rules"));
            }
            domain_rules.push(DomainRule::parse(r)?);
        }
        Ok(Governance { domain_rules })
    }

    /// The first domain rule whose domains hold `domain_id`. §9.4.1.2.4.
    pub fn domain_rule(&self, domain_id: u32) -> Option<&DomainRule> {
        self.domain_rules
            .iter()
            .find(|r| r.domains.contains(domain_id))
    }
}
