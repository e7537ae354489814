//! DDS Security configuration of a participant from its PROPERTY QoS (set with
//! [`crate::api::ParticipantBuilder::property`] or a QoS XML participant profile): the standard
//! `dds.sec.*` properties (DDS-Security 1.1 §9.3.1, §9.4.1), with Fast DDS's
//! `dds.sec.auth.builtin.PKI-DH.*` / `dds.sec.access.builtin.Access-Permissions.*` spellings
//! as aliases. Resolves `file:` URIs (the one place that reads them), validates the identity
//! (`security::auth::LocalIdentity`), and verifies the governance and permissions documents
//! against the permissions CA (DDS-Security 1.1 §9.4.1.1, validate_local_permissions
//! §9.4.3.1): both must be S/MIME signed by it (`openssl smime -sign -text`), parse, and the
//! permissions must hold a grant for our subject that lets us join the domain.
//!
//! Must not: accept a partial configuration silently: with any `dds.sec.auth` property set,
//! every identity property must be there and valid, and with any `dds.sec.access` property
//! set, all three must be there and verify, or the participant does not start.

use std::sync::Arc;

use crate::core::participant::SecurityConfig;
use crate::qos::Property;
use crate::security::access::{
    DistinguishedName, Governance, Permissions, check_create_participant, verify_smime_with_ca_pem,
};
use crate::security::auth::{IdentityConfig, IdentityUri, LocalIdentity};
use crate::wire::GuidPrefix;

/// `dds.sec.auth.identity_ca`: the identity CA certificate (URI).
pub const IDENTITY_CA: &str = "dds.sec.auth.identity_ca";
/// `dds.sec.auth.identity_certificate`: our certificate (URI).
pub const IDENTITY_CERTIFICATE: &str = "dds.sec.auth.identity_certificate";
/// `dds.sec.auth.private_key`: our private key (URI).
pub const PRIVATE_KEY: &str = "dds.sec.auth.private_key";
/// `dds.sec.auth.password`: the private key's passphrase.
pub const PASSWORD: &str = "dds.sec.auth.password";
/// `dds.sec.access.permissions_ca`: the permissions CA certificate (URI).
pub const PERMISSIONS_CA: &str = "dds.sec.access.permissions_ca";
/// `dds.sec.access.governance`: the signed governance document (URI).
pub const GOVERNANCE: &str = "dds.sec.access.governance";
/// `dds.sec.access.permissions`: our signed permissions document (URI).
pub const PERMISSIONS: &str = "dds.sec.access.permissions";

/// The standard name → the Fast DDS alias of each property.
const ALIASES: [(&str, &str); 7] = [
    (IDENTITY_CA, "dds.sec.auth.builtin.PKI-DH.identity_ca"),
    (
        IDENTITY_CERTIFICATE,
        "dds.sec.auth.builtin.PKI-DH.identity_certificate",
    ),
    (PRIVATE_KEY, "dds.sec.auth.builtin.PKI-DH.private_key"),
    (PASSWORD, "dds.sec.auth.builtin.PKI-DH.password"),
    (
        PERMISSIONS_CA,
        "dds.sec.access.builtin.Access-Permissions.permissions_ca",
    ),
    (
        GOVERNANCE,
        "dds.sec.access.builtin.Access-Permissions.governance",
    ),
    (
        PERMISSIONS,
        "dds.sec.access.builtin.Access-Permissions.permissions",
    ),
];

fn get<'p>(property: &'p Property, name: &str) -> Option<&'p str> {
    property.get(name).or_else(|| {
        ALIASES
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, alias)| property.get(alias))
    })
}

/// Whether any authentication property is set.
pub fn configured(property: &Property) -> bool {
    [IDENTITY_CA, IDENTITY_CERTIFICATE, PRIVATE_KEY]
        .iter()
        .any(|n| get(property, n).is_some())
}

/// Reads what a URI property points at: a file (`file:`) or the inline data (`data:,`).
fn read(property: &Property, name: &str) -> Result<Vec<u8>, String> {
    let value = get(property, name).ok_or_else(|| format!("{name} is not set"))?;
    match IdentityUri::parse(value).map_err(|e| format!("{name}: {e}"))? {
        IdentityUri::Data(bytes) => Ok(bytes.to_vec()),
        IdentityUri::File(path) => {
            std::fs::read(path).map_err(|e| format!("{name}: cannot read {path}: {e}"))
        }
    }
}

/// The verified access-control documents.
struct Access {
    governance: Arc<Governance>,
    permissions_ca: Vec<u8>,
    permissions: Arc<Permissions>,
}

/// Reads and verifies the governance and permissions against the permissions CA at
/// `now_unix`, and checks that the permissions let `identity` join `domain_id`
/// (check_create_participant). `None` when no access-control property is set.
fn access(
    property: &Property,
    identity: &LocalIdentity,
    domain_id: u32,
    now_unix: i64,
) -> Result<Option<Access>, String> {
    if [PERMISSIONS_CA, GOVERNANCE, PERMISSIONS]
        .iter()
        .all(|n| get(property, n).is_none())
    {
        return Ok(None);
    }
    let ca = read(property, PERMISSIONS_CA)?;
    let governance = read(property, GOVERNANCE)?;
    let governance = verify_smime_with_ca_pem(&governance, &ca, now_unix)
        .and_then(|xml| Governance::parse(&xml))
        .map_err(|e| format!("{GOVERNANCE}: {e}"))?;
    let permissions = read(property, PERMISSIONS)?;
    let permissions = verify_smime_with_ca_pem(&permissions, &ca, now_unix)
        .and_then(|xml| Permissions::parse(&xml))
        .map_err(|e| format!("{PERMISSIONS}: {e}"))?;
    let subject = DistinguishedName::parse(identity.subject())
        .map_err(|e| format!("our subject name: {e}"))?;
    if permissions.grant_for(&subject).is_none() {
        return Err(format!(
            "{PERMISSIONS}: no grant for our subject name {}",
            identity.subject()
        ));
    }
    let d = check_create_participant(&governance, &permissions, &subject, domain_id, now_unix);
    if !d.allowed {
        return Err(format!(
            "access control: joining domain {domain_id} is denied: {}",
            d.reason
        ));
    }
    Ok(Some(Access {
        governance: Arc::new(governance),
        permissions_ca: ca,
        permissions: Arc::new(permissions),
    }))
}

/// The security configuration the PROPERTY QoS describes for a participant of `domain_id`,
/// validated at wall time `now_unix`, or `None` when it sets no authentication property.
/// `candidate` is the GUID prefix the participant would otherwise have; its own is derived
/// from the certificate.
pub fn from_properties(
    property: &Property,
    candidate: &GuidPrefix,
    domain_id: u32,
    now_unix: i64,
) -> Result<Option<SecurityConfig>, String> {
    if !configured(property) {
        return Ok(None);
    }
    let identity = IdentityConfig {
        identity_ca: read(property, IDENTITY_CA)?,
        identity_certificate: read(property, IDENTITY_CERTIFICATE)?,
        private_key: read(property, PRIVATE_KEY)?,
        password: get(property, PASSWORD).map(str::to_owned),
    };
    let identity =
        LocalIdentity::validate(&identity, candidate, now_unix).map_err(|e| e.to_string())?;
    let access = access(property, &identity, domain_id, now_unix)?;
    // The permissions document is sent as c.perm, as read from its file.
    let permissions_document = match get(property, PERMISSIONS) {
        Some(_) => read(property, PERMISSIONS)?,
        None => Vec::new(),
    };
    // DDS-Security 1.1 §9.4.1.2.3: the first domain rule of our domain decides.
    let allow_unauthenticated = access
        .as_ref()
        .and_then(|a| a.governance.domain_rule(domain_id))
        .is_some_and(|r| r.allow_unauthenticated_participants);
    Ok(Some(SecurityConfig {
        identity,
        permissions_document,
        allow_unauthenticated,
        governance: access.as_ref().map(|a| a.governance.clone()),
        permissions_ca: access.as_ref().map(|a| a.permissions_ca.clone()),
        permissions: access.map(|a| a.permissions),
    }))
}
