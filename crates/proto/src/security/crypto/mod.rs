//! DDS:Crypto:AES-GCM-GMAC, the builtin cryptographic plugin (DDS-Security 1.1 §9.5): key
//! material and its CryptoToken, session keys, and the encode/decode transforms of payloads,
//! submessages and RTPS messages.
//!
//! Must not: do I/O, read clocks, or draw randomness other than from the caller's
//! [`RandomSource`]; panic or allocate unboundedly on any input (a tampered, truncated or
//! oversized buffer is an error); decide which entity gets which key (the participant does,
//! from the governance and the key exchange).
//!
//! # Overview
//! The sender keeps a [`SenderSession`] per local key material and a [`ReceiverSpecific`] per
//! receiver it authenticates itself to; the receiver keeps a [`RemoteSender`] per key material
//! a remote sent it. `encode_*` append the protected form to a buffer; `decode_*` append the
//! plain form only when every MAC checked verified.

mod aead;
pub mod keymat;
pub mod session;
#[cfg(test)]
mod tests;
pub mod transform;

pub use keymat::{
    CRYPTO_TOKEN_CLASS_ID, CRYPTO_TOKEN_KEYMAT, KeyMaterial, OsRandom, RandomSource,
    TransformationKind, emit_crypto_token, emit_crypto_tokens, parse_crypto_token,
    parse_crypto_tokens,
};
pub use session::{
    DEFAULT_MAX_BLOCKS_PER_SESSION, KeyUse, SenderSession, SessionKey, SessionKeyCache,
    derive_session_key,
};
pub use transform::{
    Protected, ReceiverSpecific, RemoteSender, decode_rtps_message, decode_serialized_payload,
    decode_submessage, encode_rtps_message, encode_serialized_payload, encode_submessage,
    peek_crypto_header,
};

use crate::cdr::CdrError;
use crate::wire::WireError;

/// Why a crypto operation failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CryptoError {
    /// The input ended before the named field was complete.
    Truncated(&'static str),
    /// A field holds a value that is not allowed.
    Invalid(&'static str),
    /// A count or length exceeds its limit.
    TooLarge(&'static str),
    /// The CryptoHeader names another transformation kind or key than the receiver holds.
    KeyMismatch,
    /// A common or receiver-specific MAC did not verify.
    MacMismatch,
    /// Origin authentication is on but the footer carries no MAC for this receiver.
    ReceiverMacMissing,
    /// OpenSSL reported an error.
    Backend,
}

impl core::fmt::Display for CryptoError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CryptoError::Truncated(w) => write!(f, "truncated {w}"),
            CryptoError::Invalid(w) => write!(f, "invalid {w}"),
            CryptoError::TooLarge(w) => write!(f, "{w} exceeds its limit"),
            CryptoError::KeyMismatch => write!(f, "the crypto header names another key"),
            CryptoError::MacMismatch => write!(f, "MAC verification failed"),
            CryptoError::ReceiverMacMissing => write!(f, "no receiver-specific MAC for us"),
            CryptoError::Backend => write!(f, "OpenSSL error"),
        }
    }
}

impl std::error::Error for CryptoError {}

impl From<CdrError> for CryptoError {
    fn from(e: CdrError) -> Self {
        WireError::from(e).into()
    }
}

impl From<WireError> for CryptoError {
    fn from(e: WireError) -> Self {
        match e {
            WireError::Truncated(w) => CryptoError::Truncated(w),
            WireError::Invalid(w) => CryptoError::Invalid(w),
            WireError::TooLarge(w) => CryptoError::TooLarge(w),
        }
    }
}

impl From<openssl::error::ErrorStack> for CryptoError {
    fn from(_: openssl::error::ErrorStack) -> Self {
        CryptoError::Backend
    }
}
