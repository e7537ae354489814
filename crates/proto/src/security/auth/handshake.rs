//! The PKI-DH handshake (DDS-Security 1.1 §9.3.2.5), one value per remote participant, in
//! either role: the initiator sends Request, takes Reply and sends Final; the replier takes
//! Request, sends Reply and takes Final. Each step checks the peer's certificate, its GUID
//! against its subject, the echoed values and the signature, and either side ends with the
//! same [`SharedSecretHandle`].
//!
//! Must not: trust any field of a received token before checking it, or panic on a malformed
//! one; it keeps what it sent so that a duplicate Request or Reply gets the same answer.

use openssl::bn::{BigNum, BigNumContext};
use openssl::derive::Deriver;
use openssl::dh::Dh;
use openssl::ec::{EcGroup, EcKey, EcPoint};
use openssl::nid::Nid;
use openssl::pkey::{PKey, Params, Private};

use super::identity::{
    LocalIdentity, RemoteCertificate, SignatureAlgorithm, ec_point_bytes, prefix_matches_subject,
    sha256, trim_nul,
};
use super::{
    AuthError, HANDSHAKE_FINAL_CLASS_ID, HANDSHAKE_REPLY_CLASS_ID, HANDSHAKE_REQUEST_CLASS_ID,
};
use crate::cdr::{CdrWriter, Endianness};
use crate::wire::GuidPrefix;
use crate::wire::data_holder::{BinaryProperty, DataHolder, emit_binary_properties};

/// Length of the challenges we send (§9.3.2.5.1: 256 bits).
const CHALLENGE_LEN: usize = 32;
/// Longest DH public key accepted (a MODP-2048 key is 256 bytes, a DER INTEGER 4 more).
const MAX_DH_PUBLIC: usize = 600;

/// Which side of the handshake we are on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HandshakeRole {
    /// We send the Request.
    Initiator,
    /// We wait for the Request.
    Replier,
}

/// The role against `remote`: the participant with the smaller GUID prefix initiates
/// (Fast DDS `PKIDH::validate_remote_identity`: `local < remote` → PENDING_HANDSHAKE_REQUEST;
/// Cyclone orders the same way).
pub fn handshake_role(local: &GuidPrefix, remote: &GuidPrefix) -> HandshakeRole {
    if local < remote {
        HandshakeRole::Initiator
    } else {
        HandshakeRole::Replier
    }
}

/// The key agreement algorithm (`c.kagree_algo`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum KeyAgreement {
    /// `ECDH+prime256v1-CEUM`: ephemeral ECDH on P-256, uncompressed points.
    EcdhP256,
    /// `DH+MODP-2048-256`: RFC 5114 §2.3 group, public keys as raw big-endian bytes (`der`
    /// false, Fast DDS) or as a DER INTEGER (`der` true, Cyclone).
    Modp2048 {
        /// Whether the public keys travel DER-encoded.
        der: bool,
    },
}

impl KeyAgreement {
    fn name(self) -> &'static str {
        match self {
            KeyAgreement::EcdhP256 => "ECDH+prime256v1-CEUM",
            KeyAgreement::Modp2048 { .. } => "DH+MODP-2048-256",
        }
    }

    fn from_name(name: &[u8]) -> Option<Self> {
        match trim_nul(name) {
            b"ECDH+prime256v1-CEUM" => Some(KeyAgreement::EcdhP256),
            b"DH+MODP-2048-256" => Some(KeyAgreement::Modp2048 { der: false }),
            _ => None,
        }
    }
}

/// An ephemeral key pair of one handshake.
pub(super) enum DhKey {
    Ec(EcKey<Private>),
    Modp(Dh<Private>, bool),
}

impl DhKey {
    fn generate(kagree: KeyAgreement) -> Result<Self, AuthError> {
        Ok(match kagree {
            KeyAgreement::EcdhP256 => {
                let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1)?;
                DhKey::Ec(EcKey::generate(&group)?)
            }
            KeyAgreement::Modp2048 { der } => DhKey::Modp(Dh::get_2048_256()?.generate_key()?, der),
        })
    }

    /// The public key as it goes on the wire.
    fn public(&self) -> Result<Vec<u8>, AuthError> {
        match self {
            DhKey::Ec(k) => ec_point_bytes(k),
            DhKey::Modp(dh, der) => {
                let raw = dh.public_key().to_vec();
                Ok(if *der { der_integer(&raw) } else { raw })
            }
        }
    }

    /// SharedSecret = SHA-256 of the agreed value as OpenSSL's EVP_PKEY_derive gives it, which
    /// both vendors hash (Fast DDS 2.9 `PKIDH::generate_sharedsecret`, Cyclone DDS 0.10
    /// `generate_shared_secret`): for ECDH the x coordinate in 32 octets, for MODP the
    /// big-endian number without leading zero octets.
    pub(super) fn agree(&self, peer: &[u8]) -> Result<[u8; 32], AuthError> {
        if peer.len() > MAX_DH_PUBLIC {
            return Err(AuthError::Token("DH public key too long".into()));
        }
        let bad = |_| AuthError::Token("DH public key is not valid".into());
        let secret = match self {
            DhKey::Ec(k) => {
                let mut ctx = BigNumContext::new()?;
                let point = EcPoint::from_bytes(k.group(), peer, &mut ctx).map_err(bad)?;
                let peer_key = EcKey::from_public_key(k.group(), &point).map_err(bad)?;
                peer_key.check_key().map_err(bad)?;
                let ours = PKey::from_ec_key(k.clone())?;
                let theirs = PKey::from_ec_key(peer_key)?;
                let mut deriver = Deriver::new(&ours)?;
                deriver.set_peer(&theirs).map_err(bad)?;
                deriver.derive_to_vec().map_err(bad)?
            }
            DhKey::Modp(dh, der) => {
                let raw = if *der {
                    parse_der_integer(peer).ok_or(AuthError::Token(
                        "DH public key is not a DER INTEGER".into(),
                    ))?
                } else {
                    peer
                };
                let y = BigNum::from_slice(raw).map_err(bad)?;
                // Not `Dh::compute_key`: it hands out DH_size octets whatever length
                // DH_compute_key returns, a shorter value shifted with zero octets after it
                // (about one MODP-2048 handshake in 135). Hashed so, the handshake completes
                // but our KxKey is not the peer's, and no volatile secure message (the
                // CryptoTokens) decodes on either side (docs/security.md §7).
                let params = || -> Result<Dh<Params>, openssl::error::ErrorStack> {
                    let q = dh.prime_q().map(|q| q.to_owned()).transpose()?;
                    Dh::from_pqg(dh.prime_p().to_owned()?, q, dh.generator().to_owned()?)
                };
                let keys = (dh.public_key().to_owned()?, dh.private_key().to_owned()?);
                let ours = PKey::from_dh(params()?.set_key(keys.0, keys.1)?)?;
                let theirs = PKey::from_dh(params()?.set_public_key(y).map_err(bad)?)?;
                let mut deriver = Deriver::new(&ours)?;
                deriver.set_peer(&theirs).map_err(bad)?;
                deriver.derive_to_vec().map_err(bad)?
            }
        };
        Ok(sha256(&secret))
    }
}

/// A DER INTEGER holding the unsigned big-endian `raw` (Cyclone's MODP public key form,
/// `auth_utils.c`).
pub(super) fn der_integer(raw: &[u8]) -> Vec<u8> {
    let trimmed = match raw.iter().position(|b| *b != 0) {
        Some(i) => raw.get(i..).unwrap_or_default(),
        None => &[0u8][..],
    };
    let pad = trimmed.first().is_some_and(|b| b & 0x80 != 0);
    let len = trimmed.len().saturating_add(usize::from(pad));
    let mut out = vec![0x02];
    if len < 0x80 {
        out.push(len as u8);
    } else if len <= 0xff {
        out.extend_from_slice(&[0x81, len as u8]);
    } else {
        out.extend_from_slice(&[0x82, (len >> 8) as u8, len as u8]);
    }
    if pad {
        out.push(0);
    }
    out.extend_from_slice(trimmed);
    out
}

/// The content of a DER INTEGER that spans exactly `bytes`, or `None`.
pub(super) fn parse_der_integer(bytes: &[u8]) -> Option<&[u8]> {
    let (&tag, rest) = bytes.split_first()?;
    if tag != 0x02 {
        return None;
    }
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = match first {
        l if l < 0x80 => (usize::from(l), rest),
        0x81 => {
            let (&l, rest) = rest.split_first()?;
            (usize::from(l), rest)
        }
        0x82 => {
            let (l, rest) = rest.split_at_checked(2)?;
            let hi = usize::from(*l.first()?);
            let lo = usize::from(*l.get(1)?);
            (hi.checked_mul(256)?.checked_add(lo)?, rest)
        }
        _ => return None,
    };
    (rest.len() == len).then_some(rest)
}

/// Whether a received MODP public key is a DER INTEGER (Cyclone) rather than raw bytes.
fn looks_like_der_integer(bytes: &[u8]) -> bool {
    parse_der_integer(bytes).is_some()
}

/// What the crypto plugin needs from a completed handshake (§9.3.2.3 SharedSecretHandle).
#[derive(Clone, PartialEq, Eq)]
pub struct SharedSecretHandle {
    /// The initiator's challenge.
    pub challenge1: Vec<u8>,
    /// The replier's challenge.
    pub challenge2: Vec<u8>,
    /// SHA-256 of the agreed Diffie-Hellman value.
    pub shared_secret: [u8; 32],
}

impl core::fmt::Debug for SharedSecretHandle {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SharedSecretHandle(..)")
    }
}

/// A completed handshake: who the peer is, and the secret.
#[derive(Debug)]
pub struct Authenticated {
    /// The peer's validated certificate.
    pub remote: RemoteCertificate,
    /// The peer's signed permissions document (`c.perm`), for access control.
    pub remote_permissions: Vec<u8>,
    /// The peer's participant data (`c.pdata`), as received.
    pub remote_pdata: Vec<u8>,
    /// The key agreement that was used.
    pub key_agreement: KeyAgreement,
    /// The shared secret and challenges.
    pub secret: SharedSecretHandle,
}

#[derive(Debug, PartialEq, Eq)]
enum State {
    /// Initiator: Request sent.
    AwaitReply,
    /// Replier: Reply sent.
    AwaitFinal,
    /// Completed (initiator: Final sent).
    Done,
}

/// One handshake with one remote participant.
pub struct Handshake {
    role: HandshakeRole,
    state: State,
    remote_guid: GuidPrefix,
    kagree: KeyAgreement,
    dh: DhKey,
    /// Our last token, sent again if the peer repeats its message.
    last_sent: DataHolder,
    hash_c1: Vec<u8>,
    hash_c2: Vec<u8>,
    dh1: Vec<u8>,
    dh2: Vec<u8>,
    challenge1: Vec<u8>,
    challenge2: Vec<u8>,
    /// Replier: what the Request told us, kept until Final verifies.
    pending: Option<(RemoteCertificate, Vec<u8>, Vec<u8>)>,
}

impl core::fmt::Debug for Handshake {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Handshake")
            .field("role", &self.role)
            .field("state", &self.state)
            .field("remote_guid", &self.remote_guid)
            .field("kagree", &self.kagree)
            .finish_non_exhaustive()
    }
}

fn random_challenge() -> Result<Vec<u8>, AuthError> {
    let mut c = vec![0u8; CHALLENGE_LEN];
    openssl::rand::rand_bytes(&mut c)?;
    Ok(c)
}

/// The big-endian CDR of a BinaryPropertySeq (§9.3.2.5.1): what hash_c1, hash_c2 and the
/// Reply and Final signatures are computed over.
pub(super) fn cdr_of(props: &[BinaryProperty]) -> Vec<u8> {
    let mut out = Vec::new();
    emit_binary_properties(&mut CdrWriter::new(&mut out, Endianness::Big), props);
    out
}

pub(super) fn prop(name: &str, value: &[u8]) -> BinaryProperty {
    BinaryProperty {
        name: name.to_owned(),
        value: value.to_vec(),
    }
}

/// The `c.*` properties of a token exactly as received, in their order (hash_c1/hash_c2).
fn c_properties(token: &DataHolder) -> Vec<BinaryProperty> {
    token
        .binary_properties
        .iter()
        .filter(|p| p.name.starts_with("c."))
        .cloned()
        .collect()
}

fn required<'t>(token: &'t DataHolder, name: &'static str) -> Result<&'t [u8], AuthError> {
    token
        .binary_property(name)
        .ok_or_else(|| AuthError::Token(format!("{} lacks {name}", token.class_id)))
}

/// `value` equals `expected` when the peer sent it at all (an optional echo).
fn echo(token: &DataHolder, name: &'static str, expected: &[u8]) -> Result<(), AuthError> {
    match token.binary_property(name) {
        Some(v) if v != expected => Err(AuthError::Mismatch(name)),
        _ => Ok(()),
    }
}

fn check_class(token: &DataHolder, class: &str) -> Result<(), AuthError> {
    if token.class_id == class {
        Ok(())
    } else {
        Err(AuthError::Token(format!(
            "class {:?} where {class} was expected",
            token.class_id.chars().take(64).collect::<String>()
        )))
    }
}

/// The c.* properties of our own Request or Reply.
fn own_c_properties(
    local: &LocalIdentity,
    pdata: &[u8],
    permissions: &[u8],
    kagree: KeyAgreement,
) -> Vec<BinaryProperty> {
    vec![
        prop("c.id", &local.cert_pem),
        prop("c.perm", permissions),
        prop("c.pdata", pdata),
        prop("c.dsign_algo", local.algo.name().as_bytes()),
        prop("c.kagree_algo", kagree.name().as_bytes()),
    ]
}

/// Validates the peer's certificate from a Request or Reply and checks its GUID prefix.
fn remote_identity(
    local: &LocalIdentity,
    token: &DataHolder,
    remote_guid: &GuidPrefix,
    now_unix: i64,
) -> Result<RemoteCertificate, AuthError> {
    let remote = RemoteCertificate::validate(local, required(token, "c.id")?, now_unix)?;
    if !prefix_matches_subject(remote_guid, remote.subject_der()) {
        return Err(AuthError::GuidMismatch);
    }
    let dsign = required(token, "c.dsign_algo")?;
    if SignatureAlgorithm::from_name(dsign).is_none() {
        return Err(AuthError::Token(format!(
            "unknown c.dsign_algo {:?}",
            String::from_utf8_lossy(trim_nul(dsign))
        )));
    }
    Ok(remote)
}

impl Handshake {
    /// `begin_handshake_request` (§9.3.2.5.1): a new handshake as initiator and its Request.
    /// `pdata` is our ParticipantBuiltinTopicData as the peer should see it, `permissions`
    /// our signed permissions document.
    pub fn begin_request(
        local: &LocalIdentity,
        remote_guid: GuidPrefix,
        pdata: &[u8],
        permissions: &[u8],
    ) -> Result<(Self, DataHolder), AuthError> {
        // Always ECDH: Cyclone 0.10 cannot read a raw MODP dh1 (see the module header).
        Handshake::begin_request_with(
            local,
            remote_guid,
            pdata,
            permissions,
            KeyAgreement::EcdhP256,
        )
    }

    /// [`Handshake::begin_request`] with a chosen key agreement (the tests play Fast DDS's
    /// and Cyclone's MODP requests with it).
    pub(super) fn begin_request_with(
        local: &LocalIdentity,
        remote_guid: GuidPrefix,
        pdata: &[u8],
        permissions: &[u8],
        kagree: KeyAgreement,
    ) -> Result<(Self, DataHolder), AuthError> {
        let dh = DhKey::generate(kagree)?;
        let dh1 = dh.public()?;
        let challenge1 = random_challenge()?;
        let c1 = own_c_properties(local, pdata, permissions, kagree);
        let hash_c1 = sha256(&cdr_of(&c1)).to_vec();
        let mut token = DataHolder::new(HANDSHAKE_REQUEST_CLASS_ID);
        token.binary_properties = c1;
        token.push_binary("hash_c1", hash_c1.clone());
        token.push_binary("dh1", dh1.clone());
        token.push_binary("challenge1", challenge1.clone());
        let hs = Handshake {
            role: HandshakeRole::Initiator,
            state: State::AwaitReply,
            remote_guid,
            kagree,
            dh,
            last_sent: token.clone(),
            hash_c1,
            hash_c2: Vec::new(),
            dh1,
            dh2: Vec::new(),
            challenge1,
            challenge2: Vec::new(),
            pending: None,
        };
        Ok((hs, token))
    }

    /// `begin_handshake_reply` (§9.3.2.5.2): a new handshake as replier to `request` and its
    /// Reply. Checks the peer's certificate at `now_unix` and its GUID.
    pub fn begin_reply(
        local: &LocalIdentity,
        remote_guid: GuidPrefix,
        request: &DataHolder,
        pdata: &[u8],
        permissions: &[u8],
        now_unix: i64,
    ) -> Result<(Self, DataHolder), AuthError> {
        check_class(request, HANDSHAKE_REQUEST_CLASS_ID)?;
        let remote = remote_identity(local, request, &remote_guid, now_unix)?;
        let kagree_name = required(request, "c.kagree_algo")?;
        let dh1 = required(request, "dh1")?.to_vec();
        let challenge1 = required(request, "challenge1")?.to_vec();
        if dh1.len() > MAX_DH_PUBLIC || challenge1.len() > 1024 {
            return Err(AuthError::Token("dh1 or challenge1 too long".into()));
        }
        let kagree = match KeyAgreement::from_name(kagree_name) {
            Some(KeyAgreement::Modp2048 { .. }) => KeyAgreement::Modp2048 {
                der: looks_like_der_integer(&dh1),
            },
            Some(k) => k,
            None => {
                return Err(AuthError::Token(format!(
                    "unsupported c.kagree_algo {:?}",
                    String::from_utf8_lossy(trim_nul(kagree_name))
                )));
            }
        };
        // hash_c1 over the c.* properties exactly as received; a sent hash_c1 must agree.
        let hash_c1 = sha256(&cdr_of(&c_properties(request))).to_vec();
        echo(request, "hash_c1", &hash_c1)?;
        let dh = DhKey::generate(kagree)?;
        let dh2 = dh.public()?;
        // Fail now on a bad dh1 rather than after the Final.
        dh.agree(&dh1)?;
        let challenge2 = random_challenge()?;
        let c2 = own_c_properties(local, pdata, permissions, kagree);
        let hash_c2 = sha256(&cdr_of(&c2)).to_vec();
        // Reply signature: Sign(hash_c2 | challenge2 | dh2 | challenge1 | dh1 | hash_c1).
        let signed = cdr_of(&[
            prop("hash_c2", &hash_c2),
            prop("challenge2", &challenge2),
            prop("dh2", &dh2),
            prop("challenge1", &challenge1),
            prop("dh1", &dh1),
            prop("hash_c1", &hash_c1),
        ]);
        let signature = local.algo.sign(&local.key, &signed)?;
        let mut token = DataHolder::new(HANDSHAKE_REPLY_CLASS_ID);
        token.binary_properties = c2;
        // Every optional field too: Fast DDS 2.9 refuses a Reply without them.
        token.push_binary("hash_c2", hash_c2.clone());
        token.push_binary("challenge2", challenge2.clone());
        token.push_binary("dh2", dh2.clone());
        token.push_binary("challenge1", challenge1.clone());
        token.push_binary("dh1", dh1.clone());
        token.push_binary("hash_c1", hash_c1.clone());
        token.push_binary("signature", signature);
        let remote_permissions = required(request, "c.perm").unwrap_or_default().to_vec();
        let remote_pdata = required(request, "c.pdata").unwrap_or_default().to_vec();
        let hs = Handshake {
            role: HandshakeRole::Replier,
            state: State::AwaitFinal,
            remote_guid,
            kagree,
            dh,
            last_sent: token.clone(),
            hash_c1,
            hash_c2,
            dh1,
            dh2,
            challenge1,
            challenge2,
            pending: Some((remote, remote_permissions, remote_pdata)),
        };
        Ok((hs, token))
    }

    /// `process_handshake` on the initiator (§9.3.2.5.2-3): checks the Reply and returns the
    /// Final to send and the completed handshake.
    pub fn process_reply(
        &mut self,
        local: &LocalIdentity,
        reply: &DataHolder,
        now_unix: i64,
    ) -> Result<(DataHolder, Authenticated), AuthError> {
        if self.state != State::AwaitReply {
            return Err(AuthError::UnexpectedMessage);
        }
        check_class(reply, HANDSHAKE_REPLY_CLASS_ID)?;
        let remote = remote_identity(local, reply, &self.remote_guid, now_unix)?;
        let kagree = required(reply, "c.kagree_algo")?;
        if trim_nul(kagree) != self.kagree.name().as_bytes() {
            return Err(AuthError::Mismatch("c.kagree_algo"));
        }
        echo(reply, "hash_c1", &self.hash_c1)?;
        echo(reply, "dh1", &self.dh1)?;
        echo(reply, "challenge1", &self.challenge1)?;
        let dh2 = required(reply, "dh2")?.to_vec();
        let challenge2 = required(reply, "challenge2")?.to_vec();
        if challenge2.len() > 1024 {
            return Err(AuthError::Token("challenge2 too long".into()));
        }
        let hash_c2 = sha256(&cdr_of(&c_properties(reply))).to_vec();
        echo(reply, "hash_c2", &hash_c2)?;
        let signed = cdr_of(&[
            prop("hash_c2", &hash_c2),
            prop("challenge2", &challenge2),
            prop("dh2", &dh2),
            prop("challenge1", &self.challenge1),
            prop("dh1", &self.dh1),
            prop("hash_c1", &self.hash_c1),
        ]);
        if !remote
            .algo
            .verify(&remote.public, &signed, required(reply, "signature")?)
        {
            return Err(AuthError::Signature);
        }
        let shared_secret = self.dh.agree(&dh2)?;
        // Final signature: Sign(hash_c1 | challenge1 | dh1 | challenge2 | dh2 | hash_c2).
        let final_signed = cdr_of(&[
            prop("hash_c1", &self.hash_c1),
            prop("challenge1", &self.challenge1),
            prop("dh1", &self.dh1),
            prop("challenge2", &challenge2),
            prop("dh2", &dh2),
            prop("hash_c2", &hash_c2),
        ]);
        let signature = local.algo.sign(&local.key, &final_signed)?;
        let mut token = DataHolder::new(HANDSHAKE_FINAL_CLASS_ID);
        token.push_binary("hash_c1", self.hash_c1.clone());
        token.push_binary("hash_c2", hash_c2.clone());
        token.push_binary("dh1", self.dh1.clone());
        token.push_binary("dh2", dh2.clone());
        token.push_binary("challenge1", self.challenge1.clone());
        token.push_binary("challenge2", challenge2.clone());
        token.push_binary("signature", signature);
        self.hash_c2 = hash_c2;
        self.dh2 = dh2;
        self.challenge2 = challenge2.clone();
        self.last_sent = token.clone();
        self.state = State::Done;
        let done = Authenticated {
            remote_permissions: reply.binary_property("c.perm").unwrap_or_default().to_vec(),
            remote_pdata: reply
                .binary_property("c.pdata")
                .unwrap_or_default()
                .to_vec(),
            remote,
            key_agreement: self.kagree,
            secret: SharedSecretHandle {
                challenge1: self.challenge1.clone(),
                challenge2,
                shared_secret,
            },
        };
        Ok((token, done))
    }

    /// `process_handshake` on the replier (§9.3.2.5.3): checks the Final.
    pub fn process_final(&mut self, final_token: &DataHolder) -> Result<Authenticated, AuthError> {
        if self.state != State::AwaitFinal {
            return Err(AuthError::UnexpectedMessage);
        }
        check_class(final_token, HANDSHAKE_FINAL_CLASS_ID)?;
        echo(final_token, "hash_c1", &self.hash_c1)?;
        echo(final_token, "hash_c2", &self.hash_c2)?;
        echo(final_token, "dh1", &self.dh1)?;
        echo(final_token, "dh2", &self.dh2)?;
        if required(final_token, "challenge1")? != self.challenge1.as_slice() {
            return Err(AuthError::Mismatch("challenge1"));
        }
        if required(final_token, "challenge2")? != self.challenge2.as_slice() {
            return Err(AuthError::Mismatch("challenge2"));
        }
        let Some((remote, _, _)) = &self.pending else {
            return Err(AuthError::UnexpectedMessage);
        };
        let signed = cdr_of(&[
            prop("hash_c1", &self.hash_c1),
            prop("challenge1", &self.challenge1),
            prop("dh1", &self.dh1),
            prop("challenge2", &self.challenge2),
            prop("dh2", &self.dh2),
            prop("hash_c2", &self.hash_c2),
        ]);
        if !remote
            .algo
            .verify(&remote.public, &signed, required(final_token, "signature")?)
        {
            return Err(AuthError::Signature);
        }
        let shared_secret = self.dh.agree(&self.dh1)?;
        let Some((remote, remote_permissions, remote_pdata)) = self.pending.take() else {
            return Err(AuthError::UnexpectedMessage);
        };
        self.state = State::Done;
        Ok(Authenticated {
            remote,
            remote_permissions,
            remote_pdata,
            key_agreement: self.kagree,
            secret: SharedSecretHandle {
                challenge1: self.challenge1.clone(),
                challenge2: self.challenge2.clone(),
                shared_secret,
            },
        })
    }

    /// Our role in this handshake.
    pub fn role(&self) -> HandshakeRole {
        self.role
    }

    /// Whether this handshake has completed on our side.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// The token we sent last (Request, Reply or Final), to resend when the peer repeats
    /// itself or a resend timer fires.
    pub fn last_sent(&self) -> &DataHolder {
        &self.last_sent
    }

    /// Whether `request` repeats the Request this replier's handshake answered (the same
    /// challenge1): the peer did not get our Reply yet, and gets the same one again. A Reply
    /// made afresh would replace the DH key and challenge2 the peer may already have used for
    /// its Final (DDS-Security 1.1 §9.3.2.5: the Final echoes the Reply's challenge2).
    pub fn answers(&self, request: &DataHolder) -> bool {
        self.role == HandshakeRole::Replier
            && request
                .binary_property("challenge1")
                .is_some_and(|c| c == self.challenge1.as_slice())
    }

    /// The remote participant this handshake is with.
    pub fn remote_guid(&self) -> GuidPrefix {
        self.remote_guid
    }
}
