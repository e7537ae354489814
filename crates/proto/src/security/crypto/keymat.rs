//! KeyMaterial_AES_GCM_GMAC, its CDR form and the CryptoToken that carries it, and the
//! generation of fresh key material from an injected random source.
//!
//! Must not: read randomness other than through [`RandomSource`], or trust a decoded length
//! before checking it against the transformation kind.
//!
//! DDS-Security 1.1 §9.5.2.1 (KeyMaterial_AES_GCM_GMAC), §9.5.2.1.1 (transformation kinds),
//! §9.5.2.2-§9.5.2.3 (CryptoTokens: class `DDS:Crypto:AES_GCM_GMAC`, binary property
//! `dds.cryp.keymat`). The CDR of the key material is big-endian with `u32` sequence lengths,
//! as Fast DDS 2.9 (`KeyMaterialCDRSerialize`) and Cyclone DDS 0.10
//! (`serialize_master_key_material`) write it; key material of kind NONE is accepted in either
//! vendor's form.

use crate::cdr::{CdrReader, CdrWriter, Endianness};

use super::CryptoError;

/// The CryptoToken class id of the builtin plugin. §9.5.2.2.
pub const CRYPTO_TOKEN_CLASS_ID: &str = "DDS:Crypto:AES_GCM_GMAC";
/// The binary property holding the CDR of the key material. §9.5.2.2.
pub const CRYPTO_TOKEN_KEYMAT: &str = "dds.cryp.keymat";
/// The most CryptoTokens one sequence may carry when decoded.
pub const MAX_CRYPTO_TOKENS: usize = 16;
/// The most properties of either kind one CryptoToken may carry when decoded.
pub const MAX_TOKEN_PROPERTIES: usize = 16;
/// The longest string (class id, property name or value) read from a token.
const MAX_TOKEN_STRING: usize = 256;
/// The longest binary property value read from a token.
const MAX_TOKEN_BINARY: usize = 1024;

/// A source of random octets (keys, key ids, session ids, IV suffixes). The caller supplies
/// it, so a test or a replay can be deterministic.
pub trait RandomSource {
    /// Fills `buf` with random octets.
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), CryptoError>;
}

/// OpenSSL's CSPRNG (`RAND_bytes`).
#[derive(Copy, Clone, Debug, Default)]
pub struct OsRandom;

impl RandomSource for OsRandom {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), CryptoError> {
        openssl::rand::rand_bytes(buf).map_err(CryptoError::from)
    }
}

/// CryptoTransformKind of the builtin plugin. §9.5.2.1.1.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TransformationKind {
    /// CRYPTO_TRANSFORMATION_KIND_NONE {0,0,0,0}.
    None,
    /// CRYPTO_TRANSFORMATION_KIND_AES128_GMAC {0,0,0,1}.
    Aes128Gmac,
    /// CRYPTO_TRANSFORMATION_KIND_AES128_GCM {0,0,0,2}.
    Aes128Gcm,
    /// CRYPTO_TRANSFORMATION_KIND_AES256_GMAC {0,0,0,3}.
    Aes256Gmac,
    /// CRYPTO_TRANSFORMATION_KIND_AES256_GCM {0,0,0,4}.
    Aes256Gcm,
}

impl TransformationKind {
    /// The four octets on the wire.
    pub fn octets(self) -> [u8; 4] {
        let k = match self {
            TransformationKind::None => 0,
            TransformationKind::Aes128Gmac => 1,
            TransformationKind::Aes128Gcm => 2,
            TransformationKind::Aes256Gmac => 3,
            TransformationKind::Aes256Gcm => 4,
        };
        [0, 0, 0, k]
    }

    /// The kind named by four octets; an unknown value is an error.
    pub fn from_octets(o: [u8; 4]) -> Result<Self, CryptoError> {
        Ok(match o {
            [0, 0, 0, 0] => TransformationKind::None,
            [0, 0, 0, 1] => TransformationKind::Aes128Gmac,
            [0, 0, 0, 2] => TransformationKind::Aes128Gcm,
            [0, 0, 0, 3] => TransformationKind::Aes256Gmac,
            [0, 0, 0, 4] => TransformationKind::Aes256Gcm,
            _ => return Err(CryptoError::Invalid("transformation_kind")),
        })
    }

    /// Key (and salt) length in octets: 16, 32, or 0 for NONE.
    pub fn key_len(self) -> usize {
        match self {
            TransformationKind::None => 0,
            TransformationKind::Aes128Gmac | TransformationKind::Aes128Gcm => 16,
            TransformationKind::Aes256Gmac | TransformationKind::Aes256Gcm => 32,
        }
    }

    /// True for the GCM kinds (encrypt), false for GMAC (sign only) and NONE.
    pub fn encrypts(self) -> bool {
        matches!(
            self,
            TransformationKind::Aes128Gcm | TransformationKind::Aes256Gcm
        )
    }
}

/// KeyMaterial_AES_GCM_GMAC. §9.5.2.1. The three keys are `transformation_kind.key_len()`
/// octets long (checked when decoded and when generated); `master_receiver_specific_key` is
/// empty when `receiver_specific_key_id` is zero (no origin authentication).
#[derive(Clone, PartialEq, Eq)]
pub struct KeyMaterial {
    /// transformation_kind.
    pub transformation_kind: TransformationKind,
    /// master_salt.
    pub master_salt: Vec<u8>,
    /// sender_key_id: the transformation_key_id of what this key protects.
    pub sender_key_id: [u8; 4],
    /// master_sender_key.
    pub master_sender_key: Vec<u8>,
    /// receiver_specific_key_id; zero means none.
    pub receiver_specific_key_id: [u8; 4],
    /// master_receiver_specific_key.
    pub master_receiver_specific_key: Vec<u8>,
}

impl core::fmt::Debug for KeyMaterial {
    /// Shows the kind and ids, never the keys.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyMaterial")
            .field("transformation_kind", &self.transformation_kind)
            .field("sender_key_id", &self.sender_key_id)
            .field("receiver_specific_key_id", &self.receiver_specific_key_id)
            .finish_non_exhaustive()
    }
}

impl KeyMaterial {
    /// Key material of kind NONE, no keys: what a token says of a protection that is off.
    pub fn none() -> Self {
        KeyMaterial {
            transformation_kind: TransformationKind::None,
            master_salt: Vec::new(),
            sender_key_id: [0; 4],
            master_sender_key: Vec::new(),
            receiver_specific_key_id: [0; 4],
            master_receiver_specific_key: Vec::new(),
        }
    }

    /// Fresh key material of `kind` from `rng`: random salt, sender key and sender key id
    /// (never zero), and, with `origin_authentication`, a random receiver-specific key and id.
    /// §9.5.3.1 (create_local_*_crypto_tokens).
    pub fn generate(
        kind: TransformationKind,
        origin_authentication: bool,
        rng: &mut dyn RandomSource,
    ) -> Result<Self, CryptoError> {
        let n = kind.key_len();
        let master_salt = random(rng, n)?;
        let master_sender_key = random(rng, n)?;
        let sender_key_id = nonzero_id(rng)?;
        let (receiver_specific_key_id, master_receiver_specific_key) =
            if origin_authentication && n > 0 {
                (nonzero_id(rng)?, random(rng, n)?)
            } else {
                ([0; 4], Vec::new())
            };
        Ok(KeyMaterial {
            transformation_kind: kind,
            master_salt,
            sender_key_id,
            master_sender_key,
            receiver_specific_key_id,
            master_receiver_specific_key,
        })
    }

    /// True when the material carries a receiver-specific key (origin authentication).
    pub fn has_receiver_specific_key(&self) -> bool {
        self.receiver_specific_key_id != [0; 4]
    }

    /// Checks the key lengths against the kind.
    pub fn validate(&self) -> Result<(), CryptoError> {
        let n = self.transformation_kind.key_len();
        let receiver = if self.has_receiver_specific_key() {
            n
        } else {
            0
        };
        if self.master_salt.len() != n
            || self.master_sender_key.len() != n
            || self.master_receiver_specific_key.len() != receiver
        {
            return Err(CryptoError::Invalid("key material length"));
        }
        Ok(())
    }

    /// Encoded size of the CDR form.
    pub fn buffer_len(&self) -> usize {
        self.master_salt
            .len()
            .saturating_add(self.master_sender_key.len())
            .saturating_add(self.master_receiver_specific_key.len())
            .saturating_add(24)
    }

    /// Writes the CDR form (big-endian). §9.5.2.1.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.bytes(&self.transformation_kind.octets());
        octet_seq_be(w, &self.master_salt);
        w.bytes(&self.sender_key_id);
        octet_seq_be(w, &self.master_sender_key);
        w.bytes(&self.receiver_specific_key_id);
        octet_seq_be(w, &self.master_receiver_specific_key);
    }

    /// The CDR form as a new buffer: the value of the `dds.cryp.keymat` property.
    pub fn to_cdr(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(self.buffer_len());
        self.emit(&mut CdrWriter::new(&mut buf, Endianness::Big));
        buf
    }

    /// Reads the CDR form; the keys must have the kind's length (a receiver-specific key
    /// may be empty when its id is zero). Bytes after it are an error.
    pub fn from_cdr(bytes: &[u8]) -> Result<Self, CryptoError> {
        let mut r = CdrReader::new(bytes, Endianness::Big);
        let kind = TransformationKind::from_octets(r.take_array::<4>("transformation_kind")?)?;
        if kind == TransformationKind::None {
            // Nothing in it is a key: Fast DDS sends the kind and 40 zeros, Cyclone the kind,
            // empty sequences and the key ids (`serialize_master_key_material`).
            return Ok(KeyMaterial {
                transformation_kind: kind,
                master_salt: Vec::new(),
                sender_key_id: [0; 4],
                master_sender_key: Vec::new(),
                receiver_specific_key_id: [0; 4],
                master_receiver_specific_key: Vec::new(),
            });
        }
        let n = kind.key_len();
        let master_salt = read_key(&mut r, n, "master_salt")?;
        let sender_key_id = r.take_array::<4>("sender_key_id")?;
        let master_sender_key = read_key(&mut r, n, "master_sender_key")?;
        let receiver_specific_key_id = r.take_array::<4>("receiver_specific_key_id")?;
        let master_receiver_specific_key = if receiver_specific_key_id == [0; 4] {
            // No origin authentication: an empty sequence (Fast DDS) or a key that is unused.
            let len = usize::try_from(r.u32("master_receiver_specific_key")?)
                .map_err(|_| CryptoError::TooLarge("master_receiver_specific_key"))?;
            if len != 0 && len != n {
                return Err(CryptoError::Invalid("master_receiver_specific_key length"));
            }
            r.take(len, "master_receiver_specific_key")?;
            Vec::new()
        } else {
            read_key(&mut r, n, "master_receiver_specific_key")?
        };
        if !r.is_empty() {
            return Err(CryptoError::Invalid("bytes after the key material"));
        }
        Ok(KeyMaterial {
            transformation_kind: kind,
            master_salt,
            sender_key_id,
            master_sender_key,
            receiver_specific_key_id,
            master_receiver_specific_key,
        })
    }
}

fn random(rng: &mut dyn RandomSource, len: usize) -> Result<Vec<u8>, CryptoError> {
    let mut v = vec![0u8; len];
    rng.fill(&mut v)?;
    Ok(v)
}

fn nonzero_id(rng: &mut dyn RandomSource) -> Result<[u8; 4], CryptoError> {
    // A zero key id means "none" (§9.5.2.1); a source that keeps giving zeros is broken.
    for _ in 0..8 {
        let mut id = [0u8; 4];
        rng.fill(&mut id)?;
        if id != [0; 4] {
            return Ok(id);
        }
    }
    Err(CryptoError::Invalid("random source gives only zeros"))
}

fn octet_seq_be(w: &mut CdrWriter<'_>, b: &[u8]) {
    w.u32_be(u32::try_from(b.len()).unwrap_or(u32::MAX));
    w.bytes(b);
}

fn read_key(r: &mut CdrReader<'_>, n: usize, what: &'static str) -> Result<Vec<u8>, CryptoError> {
    let len = usize::try_from(r.u32(what)?).map_err(|_| CryptoError::TooLarge(what))?;
    if len != n {
        return Err(CryptoError::Invalid(what));
    }
    Ok(r.take(len, what)?.to_vec())
}

/// Writes one CryptoToken (a DataHolder, §7.2.3) carrying `keymat`: the class id, no
/// properties, one binary property `dds.cryp.keymat`. The DataHolder is CDR in the byte
/// order of `w` (the ParticipantGenericMessage's); the key material inside stays big-endian.
pub fn emit_crypto_token(keymat: &KeyMaterial, w: &mut CdrWriter<'_>) {
    w.string(CRYPTO_TOKEN_CLASS_ID.as_bytes());
    w.align(4);
    w.u32(0);
    w.u32(1);
    w.string(CRYPTO_TOKEN_KEYMAT.as_bytes());
    w.align(4);
    let cdr = keymat.to_cdr();
    w.u32(u32::try_from(cdr.len()).unwrap_or(u32::MAX));
    w.bytes(&cdr);
}

/// Writes a CryptoTokenSeq (DataHolderSeq) of one token per key material.
pub fn emit_crypto_tokens(keymats: &[KeyMaterial], w: &mut CdrWriter<'_>) {
    w.align(4);
    w.u32(u32::try_from(keymats.len()).unwrap_or(u32::MAX));
    for k in keymats {
        emit_crypto_token(k, w);
    }
}

/// Reads one CryptoToken: the class id must be `DDS:Crypto:AES_GCM_GMAC` and a binary
/// property `dds.cryp.keymat` must hold valid key material; other properties are skipped.
pub fn parse_crypto_token(r: &mut CdrReader<'_>) -> Result<KeyMaterial, CryptoError> {
    let class_id = r.string(MAX_TOKEN_STRING, "CryptoToken.class_id")?;
    if class_id != CRYPTO_TOKEN_CLASS_ID.as_bytes() {
        return Err(CryptoError::Invalid("CryptoToken.class_id"));
    }
    let n = r.seq_len(8, "CryptoToken.properties")?;
    if n > MAX_TOKEN_PROPERTIES {
        return Err(CryptoError::TooLarge("CryptoToken.properties"));
    }
    for _ in 0..n {
        r.string(MAX_TOKEN_STRING, "Property.name")?;
        r.string(MAX_TOKEN_STRING, "Property.value")?;
    }
    let n = r.seq_len(8, "CryptoToken.binary_properties")?;
    if n > MAX_TOKEN_PROPERTIES {
        return Err(CryptoError::TooLarge("CryptoToken.binary_properties"));
    }
    let mut found = None;
    for _ in 0..n {
        let name = r.string(MAX_TOKEN_STRING, "BinaryProperty.name")?;
        let len = r.seq_len(1, "BinaryProperty.value")?;
        if len > MAX_TOKEN_BINARY {
            return Err(CryptoError::TooLarge("BinaryProperty.value"));
        }
        let value = r.take(len, "BinaryProperty.value")?;
        if name == CRYPTO_TOKEN_KEYMAT.as_bytes() && found.is_none() {
            found = Some(KeyMaterial::from_cdr(value)?);
        }
    }
    found.ok_or(CryptoError::Invalid("CryptoToken without dds.cryp.keymat"))
}

/// Reads a CryptoTokenSeq of at most [`MAX_CRYPTO_TOKENS`] tokens.
pub fn parse_crypto_tokens(r: &mut CdrReader<'_>) -> Result<Vec<KeyMaterial>, CryptoError> {
    let n = r.seq_len(12, "CryptoTokenSeq")?;
    if n > MAX_CRYPTO_TOKENS {
        return Err(CryptoError::TooLarge("CryptoTokenSeq"));
    }
    (0..n).map(|_| parse_crypto_token(r)).collect()
}
