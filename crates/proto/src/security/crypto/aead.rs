//! AES-GCM and AES-GMAC through OpenSSL: the one place the crypto transforms call the cipher.
//!
//! Must not: choose keys or IVs (the caller derives them), or compare MACs in variable time.
//!
//! DDS-Security 1.1 §9.5.3.3.4: GCM encrypts with no additional authenticated data; GMAC is
//! GCM over an empty plaintext with the protected bytes as AAD. Both vendors do exactly this
//! (OpenSSL `EVP_EncryptUpdate` with a null output buffer feeds AAD).
//!
//! A [`KeyedCipher`] keeps an OpenSSL cipher context with the key schedule of one session key,
//! so each operation only sets the IV: the key is expanded once per session, not per message
//! and receiver.

use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx;

use super::CryptoError;
use crate::wire::security::MAC_LEN;

/// The GCM initialization vector length.
pub(crate) const IV_LEN: usize = 12;
/// Room OpenSSL asks for past the input of an update.
const SLACK: usize = 16;

/// An AES-GCM context holding the key schedule of one 16- or 32-octet key.
pub(crate) struct KeyedCipher {
    ctx: CipherCtx,
}

impl core::fmt::Debug for KeyedCipher {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("KeyedCipher")
    }
}

impl KeyedCipher {
    /// A context for `key` (16 octets: AES-128, 32: AES-256).
    pub(crate) fn new(key: &[u8]) -> Result<Self, CryptoError> {
        let cipher = match key.len() {
            16 => Cipher::aes_128_gcm(),
            32 => Cipher::aes_256_gcm(),
            _ => return Err(CryptoError::Invalid("session key length")),
        };
        let mut ctx = CipherCtx::new()?;
        ctx.encrypt_init(Some(cipher), Some(key), None)?;
        Ok(KeyedCipher { ctx })
    }

    /// Encrypts `plain` and appends the ciphertext (as long as `plain`) to `out`; returns the
    /// tag.
    pub(crate) fn gcm_encrypt(
        &mut self,
        iv: &[u8; IV_LEN],
        plain: &[&[u8]],
        out: &mut Vec<u8>,
    ) -> Result<[u8; MAC_LEN], CryptoError> {
        self.ctx.encrypt_init(None, None, Some(iv))?;
        let start = out.len();
        let len = plain.iter().fold(0usize, |n, p| n.saturating_add(p.len()));
        out.resize(start.saturating_add(len).saturating_add(SLACK), 0);
        let mut at = start;
        for part in plain {
            let dst = out.get_mut(at..).ok_or(CryptoError::Invalid("buffer"))?;
            at = at.saturating_add(self.ctx.cipher_update(part, Some(dst))?);
        }
        let dst = out.get_mut(at..).ok_or(CryptoError::Invalid("buffer"))?;
        at = at.saturating_add(self.ctx.cipher_final(dst)?);
        out.truncate(at);
        let mut tag = [0u8; MAC_LEN];
        self.ctx.tag(&mut tag)?;
        Ok(tag)
    }

    /// Decrypts `cipher_text`, checking `tag`, and appends the plaintext to `out`. A wrong tag
    /// is [`CryptoError::MacMismatch`] and leaves `out` as it was.
    pub(crate) fn gcm_decrypt(
        &mut self,
        iv: &[u8; IV_LEN],
        cipher_text: &[u8],
        tag: &[u8; MAC_LEN],
        out: &mut Vec<u8>,
    ) -> Result<(), CryptoError> {
        let start = out.len();
        let result = self.decrypt_into(iv, cipher_text, tag, out, start);
        match result {
            Ok(end) => {
                out.truncate(end);
                Ok(())
            }
            Err(e) => {
                out.truncate(start);
                Err(e)
            }
        }
    }

    fn decrypt_into(
        &mut self,
        iv: &[u8; IV_LEN],
        cipher_text: &[u8],
        tag: &[u8; MAC_LEN],
        out: &mut Vec<u8>,
        start: usize,
    ) -> Result<usize, CryptoError> {
        self.ctx.decrypt_init(None, None, Some(iv))?;
        out.resize(
            start
                .saturating_add(cipher_text.len())
                .saturating_add(SLACK),
            0,
        );
        let dst = out.get_mut(start..).ok_or(CryptoError::Invalid("buffer"))?;
        let n = self.ctx.cipher_update(cipher_text, Some(dst))?;
        self.ctx.set_tag(tag)?;
        let dst = out
            .get_mut(start.saturating_add(n)..)
            .ok_or(CryptoError::Invalid("buffer"))?;
        let m = self
            .ctx
            .cipher_final(dst)
            .map_err(|_| CryptoError::MacMismatch)?;
        Ok(start.saturating_add(n).saturating_add(m))
    }

    /// The GMAC of `aad` (GCM over an empty plaintext): the tag.
    pub(crate) fn gmac(
        &mut self,
        iv: &[u8; IV_LEN],
        aad: &[&[u8]],
    ) -> Result<[u8; MAC_LEN], CryptoError> {
        self.ctx.encrypt_init(None, None, Some(iv))?;
        for part in aad {
            self.ctx.cipher_update(part, None)?;
        }
        let mut none = [0u8; SLACK];
        self.ctx.cipher_final(&mut none)?;
        let mut tag = [0u8; MAC_LEN];
        self.ctx.tag(&mut tag)?;
        Ok(tag)
    }
}

/// Compares two MACs in constant time.
pub(crate) fn mac_eq(a: &[u8; MAC_LEN], b: &[u8; MAC_LEN]) -> bool {
    openssl::memcmp::eq(a, b)
}
