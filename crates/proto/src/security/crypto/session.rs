//! Session keys: their derivation from master key material (§9.5.3.3.3) and the sending side's
//! session state (session id, IV counter, blocks used, rotation).
//!
//! Must not: read randomness except through the injected [`RandomSource`], or reuse an IV with
//! the same session key.
//!
//! DDS-Security 1.1 §9.5.3.3.3:
//! `SessionKey = HMAC-SHA256(MasterSenderKey, "SessionKey" ‖ MasterSalt ‖ SessionId)` and
//! `SessionReceiverKey = HMAC-SHA256(MasterReceiverSpecificKey, "SessionReceiverKey" ‖
//! MasterSalt ‖ SessionId)`, truncated to the key length. Both vendors feed the HMAC the key
//! and salt at the kind's key length and the session id's four octets exactly as they appear in
//! the CryptoHeader (Cyclone converts its counter to big-endian for both; Fast DDS copies the
//! same octets for both), so the octets are used as they are here.

use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::sign::Signer;

use super::CryptoError;
use super::aead::KeyedCipher;
use super::keymat::{KeyMaterial, RandomSource, TransformationKind};
use crate::wire::security::{CryptoHeader, CryptoTransformIdentifier};

/// The AES block size: session use is counted in blocks of this many octets.
pub const BLOCK_LEN: usize = 16;
/// The default number of AES blocks encoded under one session key before the session id is
/// incremented and the key derived anew (2^32 blocks, 64 GiB).
pub const DEFAULT_MAX_BLOCKS_PER_SESSION: u64 = 1 << 32;

/// A derived session key: 16 or 32 octets, and the cipher context keyed with it.
pub struct SessionKey {
    bytes: [u8; 32],
    len: usize,
    cipher: KeyedCipher,
}

impl core::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SessionKey({} octets)", self.len)
    }
}

impl SessionKey {
    /// The key octets.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }

    /// The cipher context keyed with this key.
    pub(crate) fn cipher(&mut self) -> &mut KeyedCipher {
        &mut self.cipher
    }
}

/// Which of the two derivations of §9.5.3.3.3.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum KeyUse {
    /// "SessionKey" from the master sender key.
    Sender,
    /// "SessionReceiverKey" from the master receiver-specific key.
    ReceiverSpecific,
}

/// Derives the session key of `keymat` for `session_id`. §9.5.3.3.3.
pub fn derive_session_key(
    keymat: &KeyMaterial,
    key_use: KeyUse,
    session_id: [u8; 4],
) -> Result<SessionKey, CryptoError> {
    let n = keymat.transformation_kind.key_len();
    let (label, master): (&[u8], &[u8]) = match key_use {
        KeyUse::Sender => (b"SessionKey", &keymat.master_sender_key),
        KeyUse::ReceiverSpecific => (b"SessionReceiverKey", &keymat.master_receiver_specific_key),
    };
    let master = master
        .get(..n)
        .ok_or(CryptoError::Invalid("master key length"))?;
    let salt = keymat
        .master_salt
        .get(..n)
        .ok_or(CryptoError::Invalid("master salt length"))?;
    if n == 0 {
        return Err(CryptoError::Invalid("transformation kind NONE has no keys"));
    }
    let pkey = PKey::hmac(master)?;
    let mut signer = Signer::new(MessageDigest::sha256(), &pkey)?;
    signer.update(label)?;
    signer.update(salt)?;
    signer.update(&session_id)?;
    let mac = signer.sign_to_vec()?;
    let mut bytes = [0u8; 32];
    let out = bytes
        .get_mut(..n)
        .ok_or(CryptoError::Invalid("key length"))?;
    out.copy_from_slice(mac.get(..n).ok_or(CryptoError::Invalid("HMAC length"))?);
    let cipher = KeyedCipher::new(bytes.get(..n).unwrap_or_default())?;
    Ok(SessionKey {
        bytes,
        len: n,
        cipher,
    })
}

/// The sending side of one key material: the current session and the IV counter. Owned by the
/// local writer, reader or participant whose key material it is.
#[derive(Debug)]
pub struct SenderSession {
    keymat: KeyMaterial,
    session_id: u32,
    iv_suffix: u64,
    blocks_used: u64,
    max_blocks_per_session: u64,
    key: SessionKey,
}

impl SenderSession {
    /// A session over `keymat` (not NONE) with a random session id and IV start from `rng`,
    /// rotated after [`DEFAULT_MAX_BLOCKS_PER_SESSION`] blocks.
    pub fn new(keymat: KeyMaterial, rng: &mut dyn RandomSource) -> Result<Self, CryptoError> {
        keymat.validate()?;
        if keymat.transformation_kind == TransformationKind::None {
            return Err(CryptoError::Invalid(
                "transformation kind NONE has no session",
            ));
        }
        let mut sid = [0u8; 4];
        rng.fill(&mut sid)?;
        let mut iv = [0u8; 8];
        rng.fill(&mut iv)?;
        let session_id = u32::from_be_bytes(sid);
        let key = derive_session_key(&keymat, KeyUse::Sender, session_id.to_be_bytes())?;
        Ok(SenderSession {
            keymat,
            session_id,
            iv_suffix: u64::from_be_bytes(iv),
            blocks_used: 0,
            max_blocks_per_session: DEFAULT_MAX_BLOCKS_PER_SESSION,
            key,
        })
    }

    /// Sets how many AES blocks one session key may protect (at least 1).
    pub fn with_max_blocks_per_session(mut self, max: u64) -> Self {
        self.max_blocks_per_session = max.max(1);
        self
    }

    /// The key material this session derives from.
    pub fn key_material(&self) -> &KeyMaterial {
        &self.keymat
    }

    /// The current session id as it goes on the wire.
    pub fn session_id(&self) -> [u8; 4] {
        self.session_id.to_be_bytes()
    }

    /// Accounts for protecting `plain_len` octets and returns the CryptoHeader and the
    /// session key to protect them with. Rotates to the next session id first when the blocks
    /// would exceed the session's budget (§9.5.3.3.3: "the session key is changed by
    /// incrementing the session_id"); every call takes a fresh IV suffix.
    pub fn next(
        &mut self,
        plain_len: usize,
    ) -> Result<(CryptoHeader, &mut SessionKey), CryptoError> {
        let blocks = u64::try_from(plain_len.div_ceil(BLOCK_LEN)).unwrap_or(u64::MAX);
        if self.blocks_used.saturating_add(blocks) > self.max_blocks_per_session
            && self.blocks_used > 0
        {
            self.session_id = self.session_id.wrapping_add(1);
            self.key = derive_session_key(&self.keymat, KeyUse::Sender, self.session_id())?;
            self.blocks_used = 0;
        }
        self.blocks_used = self.blocks_used.saturating_add(blocks);
        self.iv_suffix = self.iv_suffix.wrapping_add(1);
        let header = CryptoHeader {
            transform_identifier: CryptoTransformIdentifier {
                transformation_kind: self.keymat.transformation_kind.octets(),
                transformation_key_id: self.keymat.sender_key_id,
            },
            session_id: self.session_id(),
            initialization_vector_suffix: self.iv_suffix.to_be_bytes(),
        };
        Ok((header, &mut self.key))
    }
}

/// A cache of one derived key per session id: the receiving side keeps one per remote key
/// material and use, so a run of messages in one session derives the key once.
#[derive(Debug, Default)]
pub struct SessionKeyCache {
    last: Option<([u8; 4], SessionKey)>,
}

impl SessionKeyCache {
    /// The key of `keymat` for `session_id`, derived on a miss.
    pub fn get(
        &mut self,
        keymat: &KeyMaterial,
        key_use: KeyUse,
        session_id: [u8; 4],
    ) -> Result<&mut SessionKey, CryptoError> {
        let hit = matches!(&self.last, Some((id, _)) if *id == session_id);
        if !hit {
            self.last = Some((session_id, derive_session_key(keymat, key_use, session_id)?));
        }
        match &mut self.last {
            Some((_, k)) => Ok(k),
            None => Err(CryptoError::Invalid("session key cache")),
        }
    }
}
