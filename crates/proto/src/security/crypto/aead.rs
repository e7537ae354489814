//! AES-GCM and AES-GMAC through OpenSSL: the one place the crypto transforms call the cipher.
//!
//! Must not: choose keys or IVs (the caller derives them), or compare MACs in variable time.
//!
//! DDS-Security 1.1 §9.5.3.3.4: GCM encrypts with no additional authenticated data; GMAC is
//! GCM over an empty plaintext with the protected bytes as AAD. Both vendors do exactly this
//! (OpenSSL `EVP_EncryptUpdate` with a null output buffer feeds AAD).

use openssl::symm::{Cipher, Crypter, Mode};

use super::CryptoError;
use crate::wire::security::MAC_LEN;

/// The GCM initialization vector length.
pub(crate) const IV_LEN: usize = 12;

fn cipher(key: &[u8]) -> Result<Cipher, CryptoError> {
    match key.len() {
        16 => Ok(Cipher::aes_128_gcm()),
        32 => Ok(Cipher::aes_256_gcm()),
        _ => Err(CryptoError::Invalid("session key length")),
    }
}

/// Encrypts `plain` and appends the ciphertext (as long as `plain`) to `out`; returns the tag.
pub(crate) fn gcm_encrypt(
    key: &[u8],
    iv: &[u8; IV_LEN],
    plain: &[u8],
    out: &mut Vec<u8>,
) -> Result<[u8; MAC_LEN], CryptoError> {
    let cipher = cipher(key)?;
    let mut c = Crypter::new(cipher, Mode::Encrypt, key, Some(iv))?;
    let start = out.len();
    // OpenSSL asks for one block of room past the input.
    out.resize(
        start
            .saturating_add(plain.len())
            .saturating_add(cipher.block_size()),
        0,
    );
    let tail = out.get_mut(start..).ok_or(CryptoError::Invalid("buffer"))?;
    let n = c.update(plain, tail)?;
    let m = c.finalize(tail.get_mut(n..).ok_or(CryptoError::Invalid("buffer"))?)?;
    out.truncate(start.saturating_add(n).saturating_add(m));
    let mut tag = [0u8; MAC_LEN];
    c.get_tag(&mut tag)?;
    Ok(tag)
}

/// Decrypts `cipher_text`, checking `tag`, and appends the plaintext to `out`. A wrong tag is
/// [`CryptoError::MacMismatch`] and leaves `out` as it was.
pub(crate) fn gcm_decrypt(
    key: &[u8],
    iv: &[u8; IV_LEN],
    cipher_text: &[u8],
    tag: &[u8; MAC_LEN],
    out: &mut Vec<u8>,
) -> Result<(), CryptoError> {
    let cipher = cipher(key)?;
    let mut c = Crypter::new(cipher, Mode::Decrypt, key, Some(iv))?;
    let start = out.len();
    out.resize(
        start
            .saturating_add(cipher_text.len())
            .saturating_add(cipher.block_size()),
        0,
    );
    let result = (|| {
        let tail = out.get_mut(start..).ok_or(CryptoError::Invalid("buffer"))?;
        let n = c.update(cipher_text, tail)?;
        c.set_tag(tag)?;
        let m = c
            .finalize(tail.get_mut(n..).ok_or(CryptoError::Invalid("buffer"))?)
            .map_err(|_| CryptoError::MacMismatch)?;
        Ok(n.saturating_add(m))
    })();
    match result {
        Ok(len) => {
            out.truncate(start.saturating_add(len));
            Ok(())
        }
        Err(e) => {
            out.truncate(start);
            Err(e)
        }
    }
}

/// The GMAC of `aad` (GCM over an empty plaintext): the tag.
pub(crate) fn gmac(
    key: &[u8],
    iv: &[u8; IV_LEN],
    aad: &[&[u8]],
) -> Result<[u8; MAC_LEN], CryptoError> {
    let mut c = Crypter::new(cipher(key)?, Mode::Encrypt, key, Some(iv))?;
    for part in aad {
        c.aad_update(part)?;
    }
    c.finalize(&mut [])?;
    let mut tag = [0u8; MAC_LEN];
    c.get_tag(&mut tag)?;
    Ok(tag)
}

/// Compares two MACs in constant time.
pub(crate) fn mac_eq(a: &[u8; MAC_LEN], b: &[u8; MAC_LEN]) -> bool {
    openssl::memcmp::eq(a, b)
}
