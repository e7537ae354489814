//! The builtin authentication plugin, DDS:Auth:PKI-DH (DDS-Security 1.1 §9.3): identity
//! validation, the participant GUID derived from the certificate, the identity and
//! permissions tokens, and the three-message handshake in both roles, ending in a shared
//! secret for the cryptographic plugin.
//!
//! Must not: read files (identity material arrives as bytes; [`IdentityUri`] only says where
//! a property points), read clocks (the wall time to check validity against is passed in), or
//! panic on anything a peer sends. OpenSSL does the primitives: X.509 path validation
//! (`X509_verify_cert`, as both vendors do), ECDH P-256, DH MODP-2048-256, ECDSA and RSA-PSS.
//! Ephemeral keys and challenges come from OpenSSL's CSPRNG, so a handshake is not replayable
//! from its inputs (by design: a fresh challenge is what the handshake proves).
//!
//! # Interop rules (beyond the spec's letter)
//! - Key agreement: we always propose `ECDH+prime256v1-CEUM`. As replier we also accept
//!   `DH+MODP-2048-256` (Fast DDS 2.9's only choice), with `dh1` as raw big-endian bytes
//!   (Fast DDS, DDS-Security 1.2) or as a DER INTEGER (Cyclone), and answer in the form
//!   received.
//! - A Reply always carries `hash_c1`, `hash_c2`, `dh1` and `challenge1` (Fast DDS 2.9 refuses
//!   a Reply without the optional ones).
//! - Algorithm names are accepted in both spellings (`EC-prime256v1`/`ECDSA-SHA256`,
//!   `RSA-2048`/`RSASSA-PSS-SHA256`); binary property values with or without a trailing NUL;
//!   `hash_c1`/`hash_c2` are computed over the `c.*` properties exactly as received.
//! - RSA-PSS: we sign with a 32-byte salt and verify any salt length (Cyclone signs with the
//!   maximum).
//! - Subject names are compared as parsed distinguished names, never as strings.

mod handshake;
mod identity;
#[cfg(test)]
pub(crate) mod tests;

pub use handshake::{
    Authenticated, Handshake, HandshakeRole, KeyAgreement, SharedSecretHandle, handshake_role,
};
pub use identity::{
    DistinguishedName, IdentityConfig, IdentityUri, LocalIdentity, RemoteCertificate,
    SignatureAlgorithm, derive_guid_prefix, identity_status_token, permissions_token,
};

/// `DDS:Auth:PKI-DH:1.0`, the class of the identity token (§9.3.2.1).
pub const IDENTITY_TOKEN_CLASS_ID: &str = "DDS:Auth:PKI-DH:1.0";
/// Class of the handshake request token (§9.3.2.5.1).
pub const HANDSHAKE_REQUEST_CLASS_ID: &str = "DDS:Auth:PKI-DH:1.0+Req";
/// Class of the handshake reply token (§9.3.2.5.2).
pub const HANDSHAKE_REPLY_CLASS_ID: &str = "DDS:Auth:PKI-DH:1.0+Reply";
/// Class of the handshake final token (§9.3.2.5.3).
pub const HANDSHAKE_FINAL_CLASS_ID: &str = "DDS:Auth:PKI-DH:1.0+Final";
/// Class of the permissions token (§9.4.2.1).
pub const PERMISSIONS_TOKEN_CLASS_ID: &str = "DDS:Access:Permissions:1.0";

/// Why an identity or a handshake was refused. The text is what the log line and the
/// application event report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthError {
    /// Our own identity could not be loaded (bad PEM, key does not match, unsupported key).
    LocalIdentity(String),
    /// A certificate (ours or a peer's) does not verify against the identity CA: the reason
    /// is OpenSSL's (`certificate has expired`, `unable to get local issuer certificate`, …).
    Certificate(String),
    /// A handshake token is missing a property, has the wrong class, or a malformed value.
    Token(String),
    /// An echoed value (challenge, hash, public key) differs from what we sent.
    Mismatch(&'static str),
    /// A handshake signature does not verify.
    Signature,
    /// The peer's GUID prefix is not the one its certificate's subject gives (§9.3.3).
    GuidMismatch,
    /// A message arrived that the handshake's state does not expect.
    UnexpectedMessage,
    /// OpenSSL failed on a local operation.
    Crypto(String),
}

impl core::fmt::Display for AuthError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            AuthError::LocalIdentity(e) => write!(f, "local identity: {e}"),
            AuthError::Certificate(e) => write!(f, "certificate refused: {e}"),
            AuthError::Token(e) => write!(f, "bad handshake token: {e}"),
            AuthError::Mismatch(what) => write!(f, "{what} does not match what was sent"),
            AuthError::Signature => write!(f, "handshake signature does not verify"),
            AuthError::GuidMismatch => {
                write!(f, "GUID prefix is not derived from the certificate subject")
            }
            AuthError::UnexpectedMessage => write!(f, "unexpected handshake message"),
            AuthError::Crypto(e) => write!(f, "crypto failure: {e}"),
        }
    }
}

impl std::error::Error for AuthError {}

impl From<openssl::error::ErrorStack> for AuthError {
    fn from(e: openssl::error::ErrorStack) -> Self {
        AuthError::Crypto(e.to_string())
    }
}
