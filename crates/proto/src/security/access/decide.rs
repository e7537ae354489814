//! The access decisions of the builtin access-control plugin (DDS-Security 1.1 §9.4.3): may
//! a participant join a domain, may a writer or reader of a topic and partitions be created
//! locally or matched remotely. Each returns allow or deny with the reason.
//!
//! Must not: read a clock (`now` is seconds since the epoch, passed in) or look anything up
//! beyond the two documents and the subject name.
//!
//! The governance decides whether access control applies to the domain and topic (first
//! matching domain rule, first matching topic rule); the permissions grant of the subject
//! decides the rest: valid at `now`, then the first rule of the domain whose criteria apply,
//! else the grant's default. A local check uses the local permissions; a remote check uses the
//! permissions document the remote participant sent (already verified against the CA), with
//! the same rules (§9.4.3: check_remote_* "using the same algorithm").

use super::dn::DistinguishedName;
use super::governance::Governance;
use super::permissions::{Permissions, RuleKind};

/// An access decision and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// True when access is allowed.
    pub allowed: bool,
    /// The rule or condition that decided.
    pub reason: String,
}

impl Decision {
    fn allow(reason: impl Into<String>) -> Self {
        Decision {
            allowed: true,
            reason: reason.into(),
        }
    }

    fn deny(reason: impl Into<String>) -> Self {
        Decision {
            allowed: false,
            reason: reason.into(),
        }
    }
}

/// The kind of endpoint being checked.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// A DataWriter: publish criteria, enable_write_access_control.
    Writer,
    /// A DataReader: subscribe criteria, enable_read_access_control.
    Reader,
}

/// check_create_participant (§9.4.3.1): joining `domain_id`.
pub fn check_create_participant(
    governance: &Governance,
    permissions: &Permissions,
    subject: &DistinguishedName,
    domain_id: u32,
    now: i64,
) -> Decision {
    let Some(rule) = governance.domain_rule(domain_id) else {
        return Decision::deny(format!(
            "domain {domain_id} has no domain rule in the governance"
        ));
    };
    if !rule.enable_join_access_control {
        return Decision::allow("join access control is disabled for the domain");
    }
    let Some(grant) = permissions.grant_for(subject) else {
        return Decision::deny("no grant for the subject name");
    };
    if !grant.validity.contains(now) {
        return Decision::deny(format!("grant {:?} is not valid now", grant.name));
    }
    let named = grant
        .rules
        .iter()
        .any(|r| r.kind == RuleKind::Allow && r.domains.contains(domain_id));
    if named {
        Decision::allow(format!(
            "grant {:?} has an allow rule for the domain",
            grant.name
        ))
    } else if grant.default == RuleKind::Allow {
        Decision::allow(format!("grant {:?} defaults to ALLOW", grant.name))
    } else {
        Decision::deny(format!(
            "grant {:?} allows nothing in domain {domain_id}",
            grant.name
        ))
    }
}

/// check_remote_participant (§9.4.3.6): the same as [`check_create_participant`] with the
/// remote's permissions and subject.
pub fn check_remote_participant(
    governance: &Governance,
    remote_permissions: &Permissions,
    remote_subject: &DistinguishedName,
    domain_id: u32,
    now: i64,
) -> Decision {
    check_create_participant(
        governance,
        remote_permissions,
        remote_subject,
        domain_id,
        now,
    )
}

/// One endpoint check: governance first, then the grant's rules, first match, then default.
#[allow(clippy::too_many_arguments)]
pub fn check_endpoint(
    endpoint: Endpoint,
    governance: &Governance,
    permissions: &Permissions,
    subject: &DistinguishedName,
    domain_id: u32,
    topic: &str,
    partitions: &[&str],
    now: i64,
) -> Decision {
    let Some(domain_rule) = governance.domain_rule(domain_id) else {
        return Decision::deny(format!(
            "domain {domain_id} has no domain rule in the governance"
        ));
    };
    let Some(topic_rule) = domain_rule.topic_rule(topic) else {
        return Decision::deny(format!("no topic rule matches topic {topic:?}"));
    };
    let controlled = match endpoint {
        Endpoint::Writer => topic_rule.enable_write_access_control,
        Endpoint::Reader => topic_rule.enable_read_access_control,
    };
    if !controlled {
        return Decision::allow(format!(
            "topic rule {:?} does not control {} access",
            topic_rule.topic_expression,
            if endpoint == Endpoint::Writer {
                "write"
            } else {
                "read"
            }
        ));
    }
    let Some(grant) = permissions.grant_for(subject) else {
        return Decision::deny("no grant for the subject name");
    };
    if !grant.validity.contains(now) {
        return Decision::deny(format!("grant {:?} is not valid now", grant.name));
    }
    for (i, rule) in grant.rules.iter().enumerate() {
        if !rule.domains.contains(domain_id) {
            continue;
        }
        let criteria = match endpoint {
            Endpoint::Writer => &rule.publish,
            Endpoint::Reader => &rule.subscribe,
        };
        if criteria
            .iter()
            .any(|c| c.applies(topic, partitions, rule.kind))
        {
            let what = match rule.kind {
                RuleKind::Allow => "allow_rule",
                RuleKind::Deny => "deny_rule",
            };
            let reason = format!(
                "grant {:?} {what} #{} applies",
                grant.name,
                i.saturating_add(1)
            );
            return match rule.kind {
                RuleKind::Allow => Decision::allow(reason),
                RuleKind::Deny => Decision::deny(reason),
            };
        }
    }
    match grant.default {
        RuleKind::Allow => Decision::allow(format!("grant {:?} defaults to ALLOW", grant.name)),
        RuleKind::Deny => Decision::deny(format!("grant {:?} defaults to DENY", grant.name)),
    }
}

/// check_create_datawriter (§9.4.3.2).
pub fn check_create_datawriter(
    governance: &Governance,
    permissions: &Permissions,
    subject: &DistinguishedName,
    domain_id: u32,
    topic: &str,
    partitions: &[&str],
    now: i64,
) -> Decision {
    check_endpoint(
        Endpoint::Writer,
        governance,
        permissions,
        subject,
        domain_id,
        topic,
        partitions,
        now,
    )
}

/// check_create_datareader (§9.4.3.3).
pub fn check_create_datareader(
    governance: &Governance,
    permissions: &Permissions,
    subject: &DistinguishedName,
    domain_id: u32,
    topic: &str,
    partitions: &[&str],
    now: i64,
) -> Decision {
    check_endpoint(
        Endpoint::Reader,
        governance,
        permissions,
        subject,
        domain_id,
        topic,
        partitions,
        now,
    )
}

/// check_remote_datareader (§9.4.3.7): [`check_create_datareader`] with the remote's
/// permissions and subject.
pub use check_create_datareader as check_remote_datareader;
/// check_remote_datawriter (§9.4.3.8): [`check_create_datawriter`] with the remote's
/// permissions and subject.
pub use check_create_datawriter as check_remote_datawriter;
