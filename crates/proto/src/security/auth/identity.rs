//! Identities: our own (CA, certificate and private key, validated once) and a peer's
//! certificate (validated against our identity CA when its handshake message arrives), the
//! GUID prefix a certificate's subject gives (§9.3.3), subject names as parsed DNs, and the
//! identity, permissions and identity-status tokens.
//!
//! Must not: read files (an [`IdentityUri`] is resolved by the caller) or clocks (validity is
//! checked against the wall time passed in).

use openssl::bn::BigNumContext;
use openssl::ec::PointConversionForm;
use openssl::hash::{MessageDigest, hash};
use openssl::nid::Nid;
use openssl::pkey::{Id, PKey, Private, Public};
use openssl::rsa::Padding;
use openssl::sign::{RsaPssSaltlen, Signer, Verifier};
use openssl::stack::Stack;
use openssl::x509::store::X509StoreBuilder;
use openssl::x509::verify::X509VerifyParam;
use openssl::x509::{X509, X509NameRef, X509StoreContext};

use super::{AuthError, IDENTITY_TOKEN_CLASS_ID, PERMISSIONS_TOKEN_CLASS_ID};
use crate::wire::GuidPrefix;
use crate::wire::data_holder::DataHolder;

/// Where an identity property (`dds.sec.auth.identity_ca`, …) points: a file the caller
/// reads, or the bytes themselves (`data:,<PEM>`). DDS-Security 1.1 §9.3.1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdentityUri<'a> {
    /// `file:/abs`, `file:///abs` or `file:rel`: the path to read.
    File(&'a str),
    /// `data:,…`: the content.
    Data(&'a [u8]),
}

impl<'a> IdentityUri<'a> {
    /// Splits a property value into its scheme. `pkcs11:` and other schemes are refused.
    pub fn parse(value: &'a str) -> Result<Self, AuthError> {
        if let Some(rest) = value.strip_prefix("data:,") {
            return Ok(IdentityUri::Data(rest.as_bytes()));
        }
        if let Some(rest) = value.strip_prefix("file://") {
            // file:///abs has an empty authority; file://localhost/abs names this host.
            let path = rest.strip_prefix("localhost").unwrap_or(rest);
            return Ok(IdentityUri::File(path));
        }
        if let Some(rest) = value.strip_prefix("file:") {
            return Ok(IdentityUri::File(rest));
        }
        Err(AuthError::LocalIdentity(format!(
            "unsupported URI (file: or data:, expected): {}",
            value.chars().take(64).collect::<String>()
        )))
    }
}

/// The identity material of a participant, as bytes (PEM).
#[derive(Clone, Debug, Default)]
pub struct IdentityConfig {
    /// `dds.sec.auth.identity_ca`: the CA that signed every participant's certificate.
    pub identity_ca: Vec<u8>,
    /// `dds.sec.auth.identity_certificate`: our certificate (and any intermediates after it).
    pub identity_certificate: Vec<u8>,
    /// `dds.sec.auth.private_key`: the key of our certificate.
    pub private_key: Vec<u8>,
    /// `dds.sec.auth.password`: the private key's passphrase, if it is encrypted.
    pub password: Option<String>,
}

/// The handshake signature algorithm, chosen by the key type (§9.3.2.5.1 `c.dsign_algo`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SignatureAlgorithm {
    /// ECDSA over P-256 with SHA-256, DER signatures.
    EcdsaSha256,
    /// RSASSA-PSS with SHA-256 and MGF1-SHA-256.
    RsaPssSha256,
}

impl SignatureAlgorithm {
    /// The `c.dsign_algo` value.
    pub fn name(self) -> &'static str {
        match self {
            SignatureAlgorithm::EcdsaSha256 => "ECDSA-SHA256",
            SignatureAlgorithm::RsaPssSha256 => "RSASSA-PSS-SHA256",
        }
    }

    /// Reads a `c.dsign_algo` or `dds.cert.algo` value in either spelling (the spec's
    /// `EC-prime256v1`/`RSA-2048`, or Fast DDS 2.x's signature names).
    pub fn from_name(name: &[u8]) -> Option<Self> {
        match trim_nul(name) {
            b"ECDSA-SHA256" | b"EC-prime256v1" => Some(SignatureAlgorithm::EcdsaSha256),
            b"RSASSA-PSS-SHA256" | b"RSA-2048" => Some(SignatureAlgorithm::RsaPssSha256),
            _ => None,
        }
    }

    /// The `dds.cert.algo` value of a key of this kind (§9.3.2.1).
    pub fn cert_algo(self) -> &'static str {
        match self {
            SignatureAlgorithm::EcdsaSha256 => "EC-prime256v1",
            SignatureAlgorithm::RsaPssSha256 => "RSA-2048",
        }
    }

    /// The algorithm for a key: EC P-256 or RSA-2048; anything else is refused.
    fn of_key<T: openssl::pkey::HasPublic>(key: &PKey<T>) -> Result<Self, String> {
        match key.id() {
            Id::EC => {
                let ec = key.ec_key().map_err(|e| e.to_string())?;
                match ec.group().curve_name() {
                    Some(Nid::X9_62_PRIME256V1) => Ok(SignatureAlgorithm::EcdsaSha256),
                    other => Err(format!("unsupported EC curve {other:?} (P-256 expected)")),
                }
            }
            Id::RSA if key.bits() == 2048 => Ok(SignatureAlgorithm::RsaPssSha256),
            Id::RSA => Err(format!("unsupported RSA key of {} bits", key.bits())),
            other => Err(format!("unsupported key type {other:?}")),
        }
    }

    /// Signs `data`. RSA-PSS uses a 32-byte salt (the digest length, as Fast DDS and the
    /// spec's example do).
    pub(super) fn sign(self, key: &PKey<Private>, data: &[u8]) -> Result<Vec<u8>, AuthError> {
        let mut signer = Signer::new(MessageDigest::sha256(), key)?;
        if self == SignatureAlgorithm::RsaPssSha256 {
            signer.set_rsa_padding(Padding::PKCS1_PSS)?;
            signer.set_rsa_pss_saltlen(RsaPssSaltlen::custom(32))?;
            signer.set_rsa_mgf1_md(MessageDigest::sha256())?;
        }
        signer.update(data)?;
        Ok(signer.sign_to_vec()?)
    }

    /// Verifies `sig` over `data`. RSA-PSS accepts any salt length: -2 is OpenSSL's
    /// RSA_PSS_SALTLEN_AUTO when verifying (Cyclone 0.10 signs with the maximum salt).
    pub(super) fn verify(self, key: &PKey<Public>, data: &[u8], sig: &[u8]) -> bool {
        let run = || -> Result<bool, openssl::error::ErrorStack> {
            let mut verifier = Verifier::new(MessageDigest::sha256(), key)?;
            if self == SignatureAlgorithm::RsaPssSha256 {
                verifier.set_rsa_padding(Padding::PKCS1_PSS)?;
                verifier.set_rsa_pss_saltlen(RsaPssSaltlen::custom(-2))?;
                verifier.set_rsa_mgf1_md(MessageDigest::sha256())?;
            }
            verifier.update(data)?;
            verifier.verify(sig)
        };
        run().unwrap_or(false)
    }
}

/// Strips one trailing NUL: Cyclone sends string-valued binary properties with one, Fast DDS
/// without.
pub(super) fn trim_nul(v: &[u8]) -> &[u8] {
    match v.split_last() {
        Some((0, rest)) => rest,
        _ => v,
    }
}

/// The GUID prefix of a participant with the certificate subject `subject_der` (its DER
/// encoding) and the candidate prefix it would otherwise use (DDS-Security 1.1 §9.3.3):
/// bit 0 set, bits 1..47 the first 47 bits of SHA-256(subject); bytes 6..12 the first 6 bytes
/// of SHA-256(candidate prefix), so that several participants with one certificate differ.
pub fn derive_guid_prefix(subject_der: &[u8], candidate: &GuidPrefix) -> GuidPrefix {
    let high = sha256(subject_der);
    let low = sha256(&candidate.0);
    let mut out = [0u8; 12];
    let mut carry = 0x80u8;
    for (o, h) in out.iter_mut().zip(high.iter()).take(6) {
        *o = carry | (h >> 1);
        carry = h << 7;
    }
    for (o, l) in out.iter_mut().skip(6).zip(low.iter()) {
        *o = *l;
    }
    GuidPrefix(out)
}

/// Whether `prefix`'s first six bytes are those derived from `subject_der` (the part a peer
/// can check; §9.3.3).
pub(super) fn prefix_matches_subject(prefix: &GuidPrefix, subject_der: &[u8]) -> bool {
    let derived = derive_guid_prefix(subject_der, prefix);
    derived.0.get(..6) == prefix.0.get(..6)
}

pub(super) fn sha256(data: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    if let Ok(d) = hash(MessageDigest::sha256(), data) {
        for (o, b) in out.iter_mut().zip(d.iter()) {
            *o = *b;
        }
    }
    out
}

/// A distinguished name as its attributes (short name upper-cased, value), for comparing
/// subject names however they were written (§9.4.1.2.3: X.509 subject names are compared
/// as names, not as strings). Vendors write `/C=NL/O=x/CN=y` (OpenSSL's oneline form) in
/// tokens and `CN=y,O=x,C=NL` (RFC 2253) in permissions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistinguishedName(Vec<(String, String)>);

impl DistinguishedName {
    /// The attributes of an X.509 name.
    pub fn of(name: &X509NameRef) -> Self {
        let mut attrs: Vec<(String, String)> = name
            .entries()
            .map(|e| {
                let key = e
                    .object()
                    .nid()
                    .short_name()
                    .unwrap_or("?")
                    .to_ascii_uppercase();
                let value = e.data().to_string().unwrap_or_default();
                (key, value)
            })
            .collect();
        attrs.sort();
        DistinguishedName(attrs)
    }

    /// Parses `CN=y,O=x,C=NL` (RFC 2253, `\,` escapes) or `/C=NL/O=x/CN=y` (oneline).
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let parts: Vec<String> = if let Some(rest) = text.strip_prefix('/') {
            rest.split('/').map(str::to_owned).collect()
        } else {
            split_rfc2253(text)
        };
        let mut attrs = Vec::with_capacity(parts.len());
        for part in parts {
            let (k, v) = part.split_once('=')?;
            let key = match k.trim().to_ascii_uppercase().as_str() {
                "COMMONNAME" => "CN".to_owned(),
                "ORGANIZATIONNAME" => "O".to_owned(),
                "COUNTRYNAME" => "C".to_owned(),
                "LOCALITYNAME" => "L".to_owned(),
                "STATEORPROVINCENAME" => "ST".to_owned(),
                "ORGANIZATIONALUNITNAME" => "OU".to_owned(),
                "EMAILADDRESS" => "EMAILADDRESS".to_owned(),
                other => other.to_owned(),
            };
            attrs.push((key, v.trim().to_owned()));
        }
        attrs.sort();
        Some(DistinguishedName(attrs))
    }
}

fn split_rfc2253(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut escaped = false;
    for c in text.chars() {
        if escaped {
            cur.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == ',' || c == '+' {
            parts.push(core::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    parts.push(cur);
    parts
}

/// OpenSSL's `X509_NAME_oneline` form (`/C=NL/O=Siftdds Test/CN=alice`), which both vendors
/// put in `dds.cert.sn` and `dds.ca.sn`.
fn oneline(name: &X509NameRef) -> String {
    let mut out = String::new();
    for e in name.entries() {
        out.push('/');
        out.push_str(e.object().nid().short_name().unwrap_or("?"));
        out.push('=');
        if let Ok(v) = e.data().to_string() {
            out.push_str(&v);
        }
    }
    out
}

/// Checks `cert` (with `chain` as untrusted intermediates) against `ca` at wall time
/// `now_unix`: signature chain and validity periods, OpenSSL's `X509_verify_cert` as in both
/// vendors' plugins. The error is OpenSSL's reason.
fn verify_certificate(
    ca: &X509,
    cert: &X509,
    chain: &[X509],
    now_unix: i64,
) -> Result<(), AuthError> {
    let build = || -> Result<(bool, String), openssl::error::ErrorStack> {
        let mut store = X509StoreBuilder::new()?;
        store.add_cert(ca.clone())?;
        let mut param = X509VerifyParam::new()?;
        // time_t is i64 on the 64-bit targets we build for.
        param.set_time(now_unix as _);
        store.set_param(&param)?;
        let store = store.build();
        let mut untrusted = Stack::new()?;
        for c in chain {
            untrusted.push(c.clone())?;
        }
        let mut ctx = X509StoreContext::new()?;
        ctx.init(&store, cert, &untrusted, |c| {
            let ok = c.verify_cert()?;
            Ok((ok, c.error().error_string().to_owned()))
        })
    };
    match build() {
        Ok((true, _)) => Ok(()),
        Ok((false, reason)) => Err(AuthError::Certificate(reason)),
        Err(e) => Err(AuthError::Certificate(e.to_string())),
    }
}

/// Our validated identity: what the handshake signs with and what SPDP announces.
pub struct LocalIdentity {
    pub(super) ca: X509,
    pub(super) cert: X509,
    pub(super) cert_pem: Vec<u8>,
    pub(super) key: PKey<Private>,
    pub(super) algo: SignatureAlgorithm,
    guid_prefix: GuidPrefix,
    subject: String,
}

impl core::fmt::Debug for LocalIdentity {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LocalIdentity")
            .field("subject", &self.subject)
            .field("guid_prefix", &self.guid_prefix)
            .field("algo", &self.algo)
            .finish_non_exhaustive()
    }
}

impl LocalIdentity {
    /// `validate_local_identity` (§8.3.2.9.1, §9.3.2.5): loads the CA, certificate and key,
    /// checks the certificate against the CA at `now_unix` and the key against the
    /// certificate, and derives our GUID prefix from `candidate`.
    pub fn validate(
        config: &IdentityConfig,
        candidate: &GuidPrefix,
        now_unix: i64,
    ) -> Result<Self, AuthError> {
        let local = |e: openssl::error::ErrorStack| AuthError::LocalIdentity(e.to_string());
        let ca = X509::from_pem(&config.identity_ca).map_err(local)?;
        let mut certs = X509::stack_from_pem(&config.identity_certificate).map_err(local)?;
        if certs.is_empty() {
            return Err(AuthError::LocalIdentity("no certificate".into()));
        }
        let cert = certs.remove(0);
        let key = match &config.password {
            Some(p) => PKey::private_key_from_pem_passphrase(&config.private_key, p.as_bytes()),
            None => PKey::private_key_from_pem(&config.private_key),
        }
        .map_err(local)?;
        let public = cert.public_key().map_err(local)?;
        if !public.public_eq(&key) {
            return Err(AuthError::LocalIdentity(
                "private key does not match the certificate".into(),
            ));
        }
        let algo = SignatureAlgorithm::of_key(&key).map_err(AuthError::LocalIdentity)?;
        verify_certificate(&ca, &cert, &certs, now_unix)?;
        let subject_der = cert.subject_name().to_der().map_err(local)?;
        let cert_pem = config.identity_certificate.clone();
        Ok(LocalIdentity {
            guid_prefix: derive_guid_prefix(&subject_der, candidate),
            subject: oneline(cert.subject_name()),
            ca,
            cert,
            cert_pem,
            key,
            algo,
        })
    }

    /// The GUID prefix derived from our certificate (§9.3.3).
    pub fn guid_prefix(&self) -> GuidPrefix {
        self.guid_prefix
    }

    /// Our certificate's subject, oneline form.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// Our certificate's subject as a DN.
    pub fn subject_name(&self) -> DistinguishedName {
        DistinguishedName::of(self.cert.subject_name())
    }

    /// The IdentityToken announced in SPDP (§9.3.2.1): subject and algorithm of our
    /// certificate and of the CA.
    pub fn identity_token(&self) -> DataHolder {
        let mut t = DataHolder::new(IDENTITY_TOKEN_CLASS_ID);
        t.push_property("dds.cert.sn", &self.subject);
        t.push_property("dds.cert.algo", self.algo.cert_algo());
        t.push_property("dds.ca.sn", &oneline(self.ca.subject_name()));
        let ca_algo = self
            .ca
            .public_key()
            .ok()
            .and_then(|k| SignatureAlgorithm::of_key(&k).ok())
            .unwrap_or(self.algo);
        t.push_property("dds.ca.algo", ca_algo.cert_algo());
        t
    }
}

/// The PermissionsToken (§9.4.2.1). Only the class id: Cyclone and RustDDS send no
/// properties, and Fast DDS 2.9 compares the optional `dds.perm_ca.*` ones by exact string
/// when present.
pub fn permissions_token() -> DataHolder {
    DataHolder::new(PERMISSIONS_TOKEN_CLASS_ID)
}

/// The IdentityStatusToken (§9.3.2.2): the class id; we do no OCSP.
pub fn identity_status_token() -> DataHolder {
    DataHolder::new(IDENTITY_TOKEN_CLASS_ID)
}

/// A peer's certificate from its handshake message (`c.id`), validated against our CA.
pub struct RemoteCertificate {
    pub(super) public: PKey<Public>,
    pub(super) algo: SignatureAlgorithm,
    subject_der: Vec<u8>,
    subject: DistinguishedName,
    oneline: String,
}

impl core::fmt::Debug for RemoteCertificate {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RemoteCertificate")
            .field("subject", &self.oneline)
            .field("algo", &self.algo)
            .finish_non_exhaustive()
    }
}

impl RemoteCertificate {
    /// Parses `pem` (leaf first, then intermediates; a trailing NUL is allowed) and checks it
    /// against `local`'s identity CA at `now_unix`.
    pub fn validate(local: &LocalIdentity, pem: &[u8], now_unix: i64) -> Result<Self, AuthError> {
        let bad = |e: openssl::error::ErrorStack| AuthError::Token(format!("c.id: {e}"));
        let mut certs = X509::stack_from_pem(trim_nul(pem)).map_err(bad)?;
        if certs.is_empty() {
            return Err(AuthError::Token("c.id holds no certificate".into()));
        }
        let cert = certs.remove(0);
        verify_certificate(&local.ca, &cert, &certs, now_unix)?;
        let public = cert.public_key().map_err(bad)?;
        let algo = SignatureAlgorithm::of_key(&public).map_err(AuthError::Certificate)?;
        Ok(RemoteCertificate {
            public,
            algo,
            subject_der: cert.subject_name().to_der().map_err(bad)?,
            subject: DistinguishedName::of(cert.subject_name()),
            oneline: oneline(cert.subject_name()),
        })
    }

    /// The subject as a DN.
    pub fn subject(&self) -> &DistinguishedName {
        &self.subject
    }

    /// The subject in oneline form, for logs.
    pub fn subject_text(&self) -> &str {
        &self.oneline
    }

    pub(super) fn subject_der(&self) -> &[u8] {
        &self.subject_der
    }
}

/// An uncompressed EC point's bytes (for tests and the key agreement).
pub(super) fn ec_point_bytes(key: &openssl::ec::EcKeyRef<Private>) -> Result<Vec<u8>, AuthError> {
    let mut ctx = BigNumContext::new()?;
    Ok(key
        .public_key()
        .to_bytes(key.group(), PointConversionForm::UNCOMPRESSED, &mut ctx)?)
}
