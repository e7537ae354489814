//! DDS Security configuration of a participant from its PROPERTY QoS (set with
//! [`crate::api::ParticipantBuilder::property`] or a QoS XML participant profile): the standard
//! `dds.sec.*` properties (DDS-Security 1.1 §9.3.1, §9.4.1), with Fast DDS's
//! `dds.sec.auth.builtin.PKI-DH.*` / `dds.sec.access.builtin.Access-Permissions.*` spellings
//! as aliases. Resolves `file:` URIs (the one place that reads them) and validates the
//! identity (`security::auth::LocalIdentity`).
//!
//! Must not: accept a partial configuration silently: with any `dds.sec.auth` property set,
//! every identity property must be there and valid, or the participant does not start.

use std::sync::Arc;

use crate::core::participant::SecurityConfig;
use crate::qos::Property;
use crate::security::access::governance::Governance;
use crate::security::access::smime::verify_smime_with_ca_pem;
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

/// The security configuration the PROPERTY QoS describes, validated at wall time
/// `now_unix`, or `None` when it sets no authentication property. `candidate` is the GUID
/// prefix the participant would otherwise have; its own is derived from the certificate.
pub fn from_properties(
    property: &Property,
    candidate: &GuidPrefix,
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
    // The permissions document is sent as c.perm; validating it against the permissions CA
    // is the access-control plugin's.
    let permissions = match get(property, PERMISSIONS) {
        Some(_) => read(property, PERMISSIONS)?,
        None => Vec::new(),
    };
    let governance = governance(property, now_unix)?.map(Arc::new);
    Ok(Some(SecurityConfig {
        identity,
        permissions,
        allow_unauthenticated: false,
        governance,
    }))
}

/// The governance document `dds.sec.access.governance` names, its S/MIME signature verified
/// against `dds.sec.access.permissions_ca` at `now_unix` (DDS-Security 1.1 §9.4.1.2), or
/// `None` when it is not set. A governance without a permissions CA, with a signature that
/// does not verify or with XML that does not parse is an error: the participant does not
/// start rather than run with less protection than the document asks for.
fn governance(property: &Property, now_unix: i64) -> Result<Option<Governance>, String> {
    if get(property, GOVERNANCE).is_none() {
        return Ok(None);
    }
    let signed = read(property, GOVERNANCE)?;
    let ca = read(property, PERMISSIONS_CA)?;
    let text = verify_smime_with_ca_pem(&signed, &ca, now_unix)
        .map_err(|e| format!("{GOVERNANCE}: {e}"))?;
    let governance = Governance::parse(&text).map_err(|e| format!("{GOVERNANCE}: {e}"))?;
    Ok(Some(governance))
}
