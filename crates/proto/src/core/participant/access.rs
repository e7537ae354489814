//! Access control in the participant (`AccessControl`, DDS:Access:Permissions, DDS-Security
//! 1.1 §8.4.2, §9.4.3): the decisions of `security::access::decide` applied to our own
//! endpoints at creation, to a remote participant once it authenticated (its permissions
//! document from the handshake, `c.perm`), and to each remote endpoint SEDP announces.
//!
//! Owns: our governance, permissions, permissions CA and subject; per admitted remote
//! participant its subject and the grant its verified permissions give it; the remote
//! endpoints refused so far (so that a refusal is reported once, not at every announcement).
//! Produces: decisions with their reason; the participant reports and acts on them.
//!
//! Must not: match or unmatch anything itself, read a clock (`now` is passed in), keep more
//! refusals than [`MAX_REMEMBERED_REFUSALS`], or panic on a remote document (it is verified
//! and parsed by the bounded `security::access` code, and refused with the reason).

use std::collections::BTreeMap;
use std::sync::Arc;

use openssl::x509::X509;

use crate::security::access::decide::check_endpoint;
use crate::security::access::governance::{BasicProtectionKind, ProtectionKind, TopicRule};
use crate::security::access::{
    DistinguishedName, Endpoint, Governance, Permissions, check_create_participant,
    check_remote_participant, verify_smime,
};
use crate::time::Now;
use crate::wire::{Guid, GuidPrefix};

use super::SecurityConfig;

/// Most refused remote endpoints remembered (for reporting each once); beyond it a refusal
/// is still enforced, only its report may repeat.
pub const MAX_REMEMBERED_REFUSALS: usize = 4096;

/// What an authenticated and admitted remote participant may do: its subject and its grant.
struct Remote {
    subject: DistinguishedName,
    permissions: Permissions,
}

/// The participant's access-control part (see the module overview).
pub(super) struct AccessControl {
    governance: Arc<Governance>,
    permissions: Arc<Permissions>,
    /// The permissions CA, or why its PEM does not parse: then every remote participant is
    /// refused with that reason.
    permissions_ca: Result<X509, String>,
    /// Our subject (from our certificate's one-line form), or why it does not parse: then
    /// every local check fails with that reason.
    subject: Result<DistinguishedName, String>,
    domain_id: u32,
    remotes: BTreeMap<GuidPrefix, Remote>,
    refused: BTreeMap<Guid, String>,
}

fn now_unix(now: Now) -> i64 {
    i64::from(now.wall.seconds)
}

/// A topic rule an unauthenticated participant may use (DDS-Security 1.1 §8.8.2.1, §9.4.1.2.3
/// allow_unauthenticated_participants): no read or write access control and nothing
/// protected.
fn open_to_unauthenticated(rule: &TopicRule) -> bool {
    !rule.enable_read_access_control
        && !rule.enable_write_access_control
        && !rule.enable_discovery_protection
        && !rule.enable_liveliness_protection
        && rule.metadata_protection_kind == ProtectionKind::None
        && rule.data_protection_kind == BasicProtectionKind::None
}

impl AccessControl {
    /// The part for a configuration that holds all three access-control documents; `None`
    /// when it holds none of them (no access control). The documents were verified when the
    /// configuration was built (`api::security`).
    pub(super) fn new(config: &SecurityConfig, domain_id: u32) -> Option<Self> {
        let (Some(governance), Some(permissions), Some(ca)) = (
            config.governance.clone(),
            config.permissions.clone(),
            config.permissions_ca.clone(),
        ) else {
            return None;
        };
        let subject = DistinguishedName::parse(config.identity.subject())
            .map_err(|e| format!("our subject name: {e}"));
        Some(AccessControl {
            governance,
            permissions,
            permissions_ca: X509::from_pem(&ca).map_err(|e| format!("our permissions CA: {e}")),
            subject,
            domain_id,
            remotes: BTreeMap::new(),
            refused: BTreeMap::new(),
        })
    }

    /// check_create_participant (§9.4.3.1) for us.
    pub(super) fn check_local_participant(&self, now: Now) -> Result<(), String> {
        let d = check_create_participant(
            &self.governance,
            &self.permissions,
            self.subject.as_ref().map_err(Clone::clone)?,
            self.domain_id,
            now_unix(now),
        );
        d.allowed.then_some(()).ok_or(d.reason)
    }

    /// check_create_datawriter / check_create_datareader (§9.4.3.2-3) for one of ours.
    pub(super) fn check_local_endpoint(
        &self,
        now: Now,
        kind: Endpoint,
        topic: &str,
        partitions: &[String],
    ) -> Result<(), String> {
        let partitions: Vec<&str> = partitions.iter().map(String::as_str).collect();
        let subject = self.subject.as_ref().map_err(Clone::clone)?;
        let d = check_endpoint(
            kind,
            &self.governance,
            &self.permissions,
            subject,
            self.domain_id,
            topic,
            &partitions,
            now_unix(now),
        );
        d.allowed.then_some(()).ok_or(d.reason)
    }

    /// validate_remote_permissions (§9.4.3.4) and check_remote_participant (§9.4.3.6) for a
    /// participant that authenticated with certificate subject `subject` and sent
    /// `document` as `c.perm`: the document must be signed by our permissions CA, valid
    /// now, hold a grant for the subject, and the grant must let it join our domain. On
    /// success its grant is kept for its endpoints.
    pub(super) fn admit_remote(
        &mut self,
        now: Now,
        prefix: GuidPrefix,
        subject: &str,
        document: &[u8],
    ) -> Result<(), String> {
        self.remotes.remove(&prefix);
        let subject = DistinguishedName::parse(subject).map_err(|e| e.to_string())?;
        // Cyclone sends string-valued binary properties with a trailing NUL.
        let document = document.strip_suffix(&[0]).unwrap_or(document);
        if document.is_empty() {
            return Err("it sent no permissions document".into());
        }
        let ca = self.permissions_ca.as_ref().map_err(Clone::clone)?;
        let xml = verify_smime(document, ca, now_unix(now))
            .map_err(|e| format!("its permissions document: {e}"))?;
        let all = Permissions::parse(&xml).map_err(|e| format!("its permissions document: {e}"))?;
        let Some(grant) = all.grant_for(&subject).cloned() else {
            return Err("its permissions document has no grant for its subject name".into());
        };
        let permissions = Permissions {
            grants: vec![grant],
        };
        let d = check_remote_participant(
            &self.governance,
            &permissions,
            &subject,
            self.domain_id,
            now_unix(now),
        );
        if !d.allowed {
            return Err(d.reason);
        }
        self.remotes.insert(
            prefix,
            Remote {
                subject,
                permissions,
            },
        );
        Ok(())
    }

    /// check_remote_datawriter / check_remote_datareader (§9.4.3.7-8) for remote endpoint
    /// `guid`: with the grant of its participant when that authenticated; for an
    /// unauthenticated participant (admitted because the governance allows them) only a topic
    /// without access control and protection is allowed.
    pub(super) fn check_remote_endpoint(
        &self,
        now: Now,
        guid: Guid,
        kind: Endpoint,
        topic: &str,
        partitions: &[String],
    ) -> Result<(), String> {
        let Some(remote) = self.remotes.get(&guid.prefix) else {
            let rule = self
                .governance
                .domain_rule(self.domain_id)
                .and_then(|r| r.topic_rule(topic));
            return match rule {
                Some(rule) if open_to_unauthenticated(rule) => Ok(()),
                Some(_) => Err(format!(
                    "topic {topic:?} is access controlled or protected and the participant is \
                     not authenticated"
                )),
                None => Err(format!("no topic rule matches topic {topic:?}")),
            };
        };
        let partitions: Vec<&str> = partitions.iter().map(String::as_str).collect();
        let d = check_endpoint(
            kind,
            &self.governance,
            &remote.permissions,
            &remote.subject,
            self.domain_id,
            topic,
            &partitions,
            now_unix(now),
        );
        d.allowed.then_some(()).ok_or(d.reason)
    }

    /// Remembers that `guid` was refused for `reason`; true when this refusal is new (not
    /// reported yet with the same reason).
    pub(super) fn refused(&mut self, guid: Guid, reason: &str) -> bool {
        if self.refused.get(&guid).is_some_and(|r| r == reason) {
            return false;
        }
        if self.refused.len() < MAX_REMEMBERED_REFUSALS || self.refused.contains_key(&guid) {
            self.refused.insert(guid, reason.to_owned());
        }
        true
    }

    /// A remote endpoint is allowed now, or is gone.
    pub(super) fn forget_endpoint(&mut self, guid: Guid) {
        self.refused.remove(&guid);
    }

    /// A remote participant is gone.
    pub(super) fn remove(&mut self, prefix: GuidPrefix) {
        self.remotes.remove(&prefix);
        self.refused.retain(|g, _| g.prefix != prefix);
    }
}
