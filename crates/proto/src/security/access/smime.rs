//! S/MIME verification of the signed governance and permissions documents against the
//! permissions CA.
//!
//! Must not: read a clock (the verification time is passed in) or return content that did not
//! verify.
//!
//! DDS-Security 1.1 §9.4.1.1: the documents are S/MIME signed by the permissions CA. Both
//! vendors call `PKCS7_verify(p7, NULL, store, content, out, PKCS7_TEXT)` (Cyclone
//! `access_control_utils.c`, Fast DDS `Permissions.cpp`): the signed part must be
//! `Content-Type: text/plain` (what `openssl smime -sign -text` writes) and is hashed in its
//! CRLF-canonical form, and the header is removed from the verified content. The same call is
//! made here through the `openssl` crate, so a document verifies here exactly when it
//! verifies for them.

use openssl::pkcs7::{Pkcs7, Pkcs7Flags};
use openssl::stack::Stack;
use openssl::x509::store::X509StoreBuilder;
use openssl::x509::verify::X509VerifyParam;
use openssl::x509::{X509, X509Ref};

use super::{AccessError, MAX_DOCUMENT_LEN};

/// Verifies `smime` (a signed document as read from its file) against `ca` at `now` (seconds
/// since the epoch; the CA and signer certificates must be valid then) and returns the signed
/// text without its MIME header.
pub fn verify_smime(smime: &[u8], ca: &X509Ref, now: i64) -> Result<String, AccessError> {
    if smime.len() > MAX_DOCUMENT_LEN {
        return Err(AccessError::TooLarge("signed document"));
    }
    let sig = |e: openssl::error::ErrorStack| AccessError::Signature(e.to_string());
    let (p7, content) = Pkcs7::from_smime(smime).map_err(sig)?;
    let mut store = X509StoreBuilder::new().map_err(sig)?;
    store.add_cert(ca.to_owned()).map_err(sig)?;
    let mut param = X509VerifyParam::new().map_err(sig)?;
    param.set_time(now as _);
    store.set_param(&param).map_err(sig)?;
    let store = store.build();
    let certs: Stack<X509> = Stack::new().map_err(sig)?;
    let mut out = Vec::new();
    p7.verify(
        &certs,
        &store,
        content.as_deref(),
        Some(&mut out),
        Pkcs7Flags::TEXT,
    )
    .map_err(sig)?;
    String::from_utf8(out).map_err(|_| AccessError::Signature("content is not UTF-8".into()))
}

/// [`verify_smime`] with the CA given as PEM (the file a `permissions_ca` URI names).
pub fn verify_smime_with_ca_pem(
    smime: &[u8],
    ca_pem: &[u8],
    now: i64,
) -> Result<String, AccessError> {
    if ca_pem.len() > MAX_DOCUMENT_LEN {
        return Err(AccessError::TooLarge("CA certificate"));
    }
    let ca = X509::from_pem(ca_pem)
        .map_err(|e| AccessError::Signature(format!("CA certificate: {e}")))?;
    verify_smime(smime, &ca, now)
}
