//! The permissions document (DDS-Security 1.1 §9.4.1.3): grants by subject name, each with a
//! validity period, allow and deny rules over domains, topics and partitions, and a default.
//!
//! Must not: verify the signature (smime.rs does) or decide access (decide.rs does).
//!
//! Elements are read in any order; the rules of a grant keep their document order because
//! they apply first-match (§9.4.1.3.2.3: "the first rule that applies determines the
//! outcome"). Data tags are read but not used: no entity here has data tags, so a criterion
//! listing tags is treated as not applying.

use roxmltree::Node;

use super::dn::DistinguishedName;
use super::governance::{DomainIdSet, MAX_RULES};
use super::xml::{self, child, children, elements, err, required, text};
use super::{AccessError, fnmatch};

/// The validity period of a grant, in seconds since 1970-01-01T00:00:00Z. §9.4.1.3.2.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Validity {
    /// not_before.
    pub not_before: i64,
    /// not_after.
    pub not_after: i64,
}

impl Validity {
    /// True when `now` (seconds since the epoch) is inside the period, ends included.
    pub fn contains(&self, now: i64) -> bool {
        (self.not_before..=self.not_after).contains(&now)
    }
}

/// Whether a rule allows or denies.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// allow_rule.
    Allow,
    /// deny_rule.
    Deny,
}

/// One publish, subscribe or relay criterion. §9.4.1.3.2.3.2.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Criteria {
    /// topics (fnmatch expressions).
    pub topics: Vec<String>,
    /// partitions (fnmatch expressions); `None` when the element is absent, which stands for
    /// the default (empty) partition only.
    pub partitions: Option<Vec<String>>,
    /// True when the criterion lists data tags.
    pub has_data_tags: bool,
}

impl Criteria {
    fn parse(node: Node<'_, '_>) -> Result<Self, AccessError> {
        let list =
            |name: &'static str, item: &'static str| -> Result<Option<Vec<String>>, AccessError> {
                let Some(n) = child(node, name)? else {
                    return Ok(None);
                };
                let mut v = Vec::new();
                for i in children(n, item) {
                    if v.len() >= MAX_RULES {
                        return Err(AccessError::TooLarge("topics or partitions"));
                    }
                    v.push(text(i).to_string());
                }
                Ok(Some(v))
            };
        Ok(Criteria {
            topics: list("topics", "topic")?.unwrap_or_default(),
            partitions: list("partitions", "partition")?,
            has_data_tags: child(node, "data_tags")?.is_some(),
        })
    }

    /// True when the criterion names `topic`, and `partitions` (empty: the default
    /// partition) satisfy it: all of them for an allow rule, any of them for a deny rule
    /// (§9.4.1.3.2.3.2).
    pub fn applies(&self, topic: &str, partitions: &[&str], kind: RuleKind) -> bool {
        if self.has_data_tags || !self.topics.iter().any(|t| fnmatch(t, topic)) {
            return false;
        }
        let requested: &[&str] = if partitions.is_empty() {
            &[""]
        } else {
            partitions
        };
        let matches = |p: &str| match &self.partitions {
            Some(pats) => pats.iter().any(|pat| fnmatch(pat, p)),
            None => p.is_empty(),
        };
        match kind {
            RuleKind::Allow => requested.iter().all(|p| matches(p)),
            RuleKind::Deny => requested.iter().any(|p| matches(p)),
        }
    }
}

/// One allow_rule or deny_rule. §9.4.1.3.2.3.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// Allow or deny.
    pub kind: RuleKind,
    /// domains.
    pub domains: DomainIdSet,
    /// publish criteria.
    pub publish: Vec<Criteria>,
    /// subscribe criteria.
    pub subscribe: Vec<Criteria>,
    /// relay criteria.
    pub relay: Vec<Criteria>,
}

impl Rule {
    fn parse(node: Node<'_, '_>, kind: RuleKind) -> Result<Self, AccessError> {
        let mut rule = Rule {
            kind,
            domains: DomainIdSet::parse(required(node, "domains")?)?,
            publish: Vec::new(),
            subscribe: Vec::new(),
            relay: Vec::new(),
        };
        let mut count = 0usize;
        for c in elements(node) {
            let list = match c.tag_name().name() {
                "publish" => &mut rule.publish,
                "subscribe" => &mut rule.subscribe,
                "relay" => &mut rule.relay,
                "domains" => continue,
                other => return Err(err(c, format!("unexpected <{other}> in a rule"))),
            };
            count = count.saturating_add(1);
            if count > MAX_RULES {
                return Err(AccessError::TooLarge("criteria"));
            }
            list.push(Criteria::parse(c)?);
        }
        Ok(rule)
    }
}

/// One grant. §9.4.1.3.2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    /// The name attribute.
    pub name: String,
    /// subject_name, parsed.
    pub subject_name: DistinguishedName,
    /// validity.
    pub validity: Validity,
    /// The allow and deny rules in document order.
    pub rules: Vec<Rule>,
    /// default: what applies when no rule does.
    pub default: RuleKind,
}

impl Grant {
    fn parse(node: Node<'_, '_>) -> Result<Self, AccessError> {
        let subject = required(node, "subject_name")?;
        let subject_name =
            DistinguishedName::parse(text(subject)).map_err(|e| err(subject, e.to_string()))?;
        let validity = required(node, "validity")?;
        let validity = Validity {
            not_before: xml::date_time(required(validity, "not_before")?)?,
            not_after: xml::date_time(required(validity, "not_after")?)?,
        };
        let default = required(node, "default")?;
        let default = match text(default) {
            "ALLOW" => RuleKind::Allow,
            "DENY" => RuleKind::Deny,
            t => return Err(err(default, format!("unknown default {t:?}"))),
        };
        let mut rules = Vec::new();
        for c in elements(node) {
            let kind = match c.tag_name().name() {
                "allow_rule" => RuleKind::Allow,
                "deny_rule" => RuleKind::Deny,
                "subject_name" | "validity" | "default" => continue,
                other => return Err(err(c, format!("unexpected <{other}> in <grant>"))),
            };
            if rules.len() >= MAX_RULES {
                return Err(AccessError::TooLarge("rules"));
            }
            rules.push(Rule::parse(c, kind)?);
        }
        Ok(Grant {
            name: node.attribute("name").unwrap_or_default().to_string(),
            subject_name,
            validity,
            rules,
            default,
        })
    }
}

/// A permissions document. §9.4.1.3.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permissions {
    /// The grants in document order.
    pub grants: Vec<Grant>,
}

impl Permissions {
    /// Parses the XML of a permissions document (the verified content of the S/MIME file).
    pub fn parse(text: &str) -> Result<Self, AccessError> {
        let doc = xml::parse(text)?;
        let root = doc.root_element();
        if root.tag_name().name() != "dds" {
            return Err(err(root, "the root element is not <dds>"));
        }
        let perms = required(root, "permissions")?;
        let mut grants = Vec::new();
        for g in children(perms, "grant") {
            if grants.len() >= MAX_RULES {
                return Err(AccessError::TooLarge("grants"));
            }
            grants.push(Grant::parse(g)?);
        }
        Ok(Permissions { grants })
    }

    /// The first grant whose subject_name is `subject` (compared as parsed RDNs).
    pub fn grant_for(&self, subject: &DistinguishedName) -> Option<&Grant> {
        self.grants.iter().find(|g| &g.subject_name == subject)
    }
}
