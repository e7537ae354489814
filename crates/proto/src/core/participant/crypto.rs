//! Cryptography (`Cryptography`): the key exchange over the BuiltinParticipantVolatileMessageSecure
//! writer and reader (DDS-Security 1.1 §7.4.4, entity ids 0xff0202c3 / 0xff0202c4, reliable,
//! volatile) and the RTPS-message transforms of the participant (§8.5.1.9, §9.5.3.3.4.4,
//! §9.5.3.3.5.4): the send transform protects each outgoing datagram that carries a
//! user-endpoint submessage, the receive transform decodes SRTPS-protected datagrams and the
//! SEC_PREFIX … SEC_POSTFIX submessages of the volatile secure endpoints.
//!
//! Owns: our participant key material and its sender session (governance
//! `rtps_protection_kind`), the receiver-specific key material we gave each participant and
//! each matched remote endpoint under origin authentication (§9.5.2.1.1: a MAC per receiver on
//! what we protect), and per authenticated remote participant the key-exchange key
//! (KxKey, derived from the handshake's SharedSecret, §9.5.2.1.2), the remote's participant
//! key material once its CryptoTokens arrived, and the volatile secure writer's queue and the
//! reader's record of what it received from that participant.
//!
//! Must not: decide who is authenticated (the `Authentication` part does), keep state for a
//! participant that did not authenticate, deliver anything whose MAC did not verify, panic or
//! allocate unboundedly on what a peer sends (a datagram that does not decode is dropped and
//! counted by the participant), or resend without bound ([`MAX_VOLATILE_RESENDS`]).
//!
//! What is protected where (as Cyclone DDS 0.10 does, `ddsi_security_omg.c`,
//! `maybe_rtps_protected`): under RTPS protection a datagram is protected when it carries a
//! submessage of a user endpoint or of a secure SEDP or WLP endpoint; SPDP, the plain SEDP and
//! WLP, TypeLookup and the stateless handshake messages stay in clear, and the volatile secure
//! messages are protected submessage by submessage with the KxKey instead. Under discovery or
//! liveliness protection (§7.4.5-6) the secure SEDP and WLP endpoints (`sedp.rs`) are
//! protected endpoints like a user one: key material per `discovery_protection_kind` or
//! `liveliness_protection_kind`, created with the participant, their CryptoTokens sent when a
//! participant authenticates. Per endpoint on a topic whose governance rule sets
//! `metadata_protection_kind` or `data_protection_kind` (§8.4.2.4, §9.5.3.3.4.1-3): our
//! writer's or reader's key material is created when it is announced (its SEDP data carries
//! PID_ENDPOINT_SECURITY_INFO), its CryptoTokens go to each matched remote endpoint over the
//! volatile secure writer, the send transform wraps its submessages in SEC_PREFIX … SEC_POSTFIX
//! and encodes its DATA's serialized payload (a DATA_FRAG's fragments each on their own, as
//! both vendors do), and the receive transform decodes the remote endpoints' with their tokens
//! and drops what a protected remote endpoint sent in clear.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::sign::Signer;

use super::auth::generic_message_payload;
use crate::cdr::{CdrReader, EncapsulationHeader, Endianness};
use crate::core::Transmit;
use crate::core::discovery::{EndpointSecurityInfo, ParticipantSecurityInfo};
use crate::core::receiver::{self, Item};
use crate::security::access::governance::{
    BasicProtectionKind, DomainRule, ProtectionKind, TopicRule,
};
use crate::security::auth::SharedSecretHandle;
use crate::security::crypto::{
    CRYPTO_TOKEN_CLASS_ID, CRYPTO_TOKEN_KEYMAT, CryptoError, KeyMaterial, OsRandom, Protected,
    ReceiverSpecific, RemoteSender, SenderSession, TransformationKind, decode_rtps_message,
    decode_serialized_payload, decode_submessage, encode_rtps_message, encode_serialized_payload,
    encode_submessage, peek_crypto_header,
};
use crate::time::{Instant, Now};
use crate::wire::data_holder::{DataHolder, MessageIdentity, ParticipantGenericMessage};
use crate::wire::security::{SEC_PREFIX, SRTPS_PREFIX};
use crate::wire::submessage::{
    ACKNACK, AckNack, DATA, DATA_FRAG, Data, DataFrag, DataPayload, GAP, HEARTBEAT, HEARTBEAT_FRAG,
    Heartbeat, INFO_DST, INFO_TS, InfoDst, NACK_FRAG, PAD, Submessage, SubmessageHeader,
    SubmessageOutcome,
};
use crate::wire::{
    EntityId, Guid, GuidPrefix, Header, Locator, Message, SequenceNumber, SequenceNumberSet,
    emit_message,
};

/// BuiltinParticipantVolatileMessageSecureWriter (§7.4.4.3).
pub const VOLATILE_MESSAGE_SECURE_WRITER: EntityId = EntityId([0xff, 2, 2, 0xc3]);
/// BuiltinParticipantVolatileMessageSecureReader (§7.4.4.3).
pub const VOLATILE_MESSAGE_SECURE_READER: EntityId = EntityId([0xff, 2, 2, 0xc4]);
/// BuiltinEndpointSet bit of the volatile secure writer (§7.4.7.1).
pub const BUILTIN_PARTICIPANT_VOLATILE_MESSAGE_SECURE_WRITER: u32 = 1 << 24;
/// BuiltinEndpointSet bit of the volatile secure reader (§7.4.7.1).
pub const BUILTIN_PARTICIPANT_VOLATILE_MESSAGE_SECURE_READER: u32 = 1 << 25;
/// GenericMessageClassId of a participant's CryptoTokens (§7.4.4.5).
pub const GMCLASSID_SECURITY_PARTICIPANT_CRYPTO_TOKENS: &str = "dds.sec.participant_crypto_tokens";
/// GenericMessageClassId of a datawriter's CryptoTokens (§7.4.4.5).
pub const GMCLASSID_SECURITY_DATAWRITER_CRYPTO_TOKENS: &str = "dds.sec.datawriter_crypto_tokens";
/// GenericMessageClassId of a datareader's CryptoTokens (§7.4.4.5).
pub const GMCLASSID_SECURITY_DATAREADER_CRYPTO_TOKENS: &str = "dds.sec.datareader_crypto_tokens";
/// How often an unacknowledged volatile secure message is sent again.
pub const VOLATILE_RESEND_PERIOD: core::time::Duration = core::time::Duration::from_secs(1);
/// How many times the volatile secure writer resends to one participant before it gives up
/// on what is unacknowledged.
pub const MAX_VOLATILE_RESENDS: u32 = 60;
/// The least time between two sends of the volatile secure writer to one participant when an
/// ACKNACK asks for a resend.
const MIN_RESEND_INTERVAL: core::time::Duration = core::time::Duration::from_millis(100);
/// Most volatile secure messages kept unacknowledged per remote participant.
const MAX_UNACKED: usize = 64;
/// Most sequence numbers of a remote volatile writer remembered as received above the
/// acknowledged base.
const MAX_SEEN: usize = 256;

/// `KXSALTCOOKIE` and `KXKEYCOOKIE` of §9.5.2.1.2 (Table 67-68), as Cyclone DDS 0.10 spells
/// them (`crypto_key_factory.c`).
const KX_SALT_COOKIE: &[u8] = b"keyexchange salt";
const KX_KEY_COOKIE: &[u8] = b"key exchange key";

/// The participant's RTPS-level protection: what the governance domain rule asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Protection {
    /// `rtps_protection_kind`.
    pub(super) rtps: ProtectionKind,
    /// The domain rule (its topic rules' metadata and data protection kinds).
    pub(super) rule: Option<DomainRule>,
    /// True when anything is protected, so the volatile secure endpoints and the key exchange
    /// are needed.
    pub(super) key_exchange: bool,
}

impl Protection {
    /// The protection of domain rule `rule` (none without one).
    pub(super) fn of(rule: Option<&DomainRule>) -> Self {
        let Some(rule) = rule else {
            return Protection {
                rtps: ProtectionKind::None,
                rule: None,
                key_exchange: false,
            };
        };
        let topics = rule.topic_rules.iter().any(|t| {
            t.metadata_protection_kind != ProtectionKind::None
                || t.data_protection_kind
                    != crate::security::access::governance::BasicProtectionKind::None
        });
        Protection {
            rtps: rule.rtps_protection_kind,
            rule: Some(rule.clone()),
            key_exchange: topics
                || rule.rtps_protection_kind != ProtectionKind::None
                || rule.discovery_protection_kind != ProtectionKind::None
                || rule.liveliness_protection_kind != ProtectionKind::None,
        }
    }

    /// Whether the secure SEDP and WLP endpoints exist under domain rule `rule`, and how they
    /// are used (DDS-Security 1.1 §7.4.5-6): under `discovery_protection_kind` or
    /// `liveliness_protection_kind` other than NONE, or a topic rule with
    /// `enable_discovery_protection` (whose endpoints are announced on them). Liveliness goes
    /// on the secure WLP writer under liveliness protection.
    pub(super) fn secure_builtin(rule: Option<&DomainRule>) -> Option<super::sedp::SecureUse> {
        let rule = rule?;
        let liveliness = rule.liveliness_protection_kind != ProtectionKind::None;
        let used = liveliness
            || rule.discovery_protection_kind != ProtectionKind::None
            || rule
                .topic_rules
                .iter()
                .any(|t| t.enable_discovery_protection);
        used.then_some(super::sedp::SecureUse { liveliness })
    }

    /// PID_PARTICIPANT_SECURITY_INFO for this protection (§7.4.1.6, §9.4.2.4): the
    /// participant mask says RTPS, discovery and liveliness protected (bits 0-2), the plugin
    /// mask encrypted (bits 0-2) and origin-authenticated (bits 3-5); bit 31 is valid.
    pub(super) fn security_info(rule: Option<&DomainRule>) -> ParticipantSecurityInfo {
        let Some(rule) = rule else {
            return ParticipantSecurityInfo::UNPROTECTED;
        };
        let mut info = ParticipantSecurityInfo::UNPROTECTED;
        let kinds = [
            rule.rtps_protection_kind,
            rule.discovery_protection_kind,
            rule.liveliness_protection_kind,
        ];
        // (protected, encrypted, origin-authenticated) bits of RTPS, discovery, liveliness.
        let bits: [(u32, u32, u32); 3] = [
            (1, 1, 1 << 3),
            (1 << 1, 1 << 1, 1 << 4),
            (1 << 2, 1 << 2, 1 << 5),
        ];
        for (kind, (protected, encrypted, origin)) in kinds.into_iter().zip(bits) {
            if kind == ProtectionKind::None {
                continue;
            }
            info.participant_security_attributes |= protected;
            if matches!(
                kind,
                ProtectionKind::Encrypt | ProtectionKind::EncryptWithOriginAuthentication
            ) {
                info.plugin_participant_security_attributes |= encrypted;
            }
            if matches!(
                kind,
                ProtectionKind::SignWithOriginAuthentication
                    | ProtectionKind::EncryptWithOriginAuthentication
            ) {
                info.plugin_participant_security_attributes |= origin;
            }
        }
        info
    }
}

/// The transformation kind of a protection kind: AES-256 as both vendors default to
/// (Cyclone's `dds.sec.crypto.keysize` 256). Origin authentication is not a transformation
/// kind: it adds receiver-specific keys and MACs ([`origin_authenticated`]).
fn transformation_kind(kind: ProtectionKind) -> TransformationKind {
    match kind {
        ProtectionKind::None => TransformationKind::None,
        ProtectionKind::Sign | ProtectionKind::SignWithOriginAuthentication => {
            TransformationKind::Aes256Gmac
        }
        ProtectionKind::Encrypt | ProtectionKind::EncryptWithOriginAuthentication => {
            TransformationKind::Aes256Gcm
        }
    }
}

/// True for the `*_WITH_ORIGIN_AUTHENTICATION` kinds (DDS-Security 1.1 §9.5.2.1.1): each
/// receiver gets its own receiver-specific key and each protected message a MAC per receiver.
/// Most octets protection adds to one submessage besides receiver-specific MACs: SEC_PREFIX
/// (24), SEC_BODY header, length and padding (11), SEC_POSTFIX (24), the payload's
/// CryptoHeader, content length, CryptoFooter and padding (47), with room to spare.
const SUBMESSAGE_PROTECTION_OVERHEAD: usize = 160;
/// Most octets RTPS protection adds to one message besides receiver-specific MACs:
/// SRTPS_PREFIX (24), SEC_BODY header, length and padding (11), SRTPS_POSTFIX (24).
const RTPS_PROTECTION_OVERHEAD: usize = 64;
/// Receivers a datagram under origin authentication is sized for (20 octets of MAC each):
/// one addressed to more may not fit a UDP datagram when it is full.
pub(super) const SIZED_RECEIVER_MACS: usize = 32;

fn origin_authenticated(kind: ProtectionKind) -> bool {
    matches!(
        kind,
        ProtectionKind::SignWithOriginAuthentication
            | ProtectionKind::EncryptWithOriginAuthentication
    )
}

/// The transformation kind of a `data_protection_kind`.
fn basic_transformation_kind(kind: BasicProtectionKind) -> TransformationKind {
    match kind {
        BasicProtectionKind::None => TransformationKind::None,
        BasicProtectionKind::Sign => TransformationKind::Aes256Gmac,
        BasicProtectionKind::Encrypt => TransformationKind::Aes256Gcm,
    }
}

/// EndpointSecurityAttributesMask bits (DDS-Security 1.1 §7.4.1.5).
const IS_READ_PROTECTED: u32 = 1;
const IS_WRITE_PROTECTED: u32 = 1 << 1;
const IS_DISCOVERY_PROTECTED: u32 = 1 << 2;
const IS_SUBMESSAGE_PROTECTED: u32 = 1 << 3;
const IS_PAYLOAD_PROTECTED: u32 = 1 << 4;
const IS_KEY_PROTECTED: u32 = 1 << 5;
const IS_LIVELINESS_PROTECTED: u32 = 1 << 6;
/// PluginEndpointSecurityAttributesMask bits (§9.5.2.2).
const IS_SUBMESSAGE_ENCRYPTED: u32 = 1;
const IS_PAYLOAD_ENCRYPTED: u32 = 1 << 1;
const IS_SUBMESSAGE_ORIGIN_AUTHENTICATED: u32 = 1 << 2;
/// The valid bit of both masks.
const SECURITY_INFO_VALID: u32 = 1 << 31;

/// PID_ENDPOINT_SECURITY_INFO of an endpoint on a topic of topic rule `rule` (§7.4.1.5,
/// §8.4.2.9.2, §9.4.2.5 get_datawriter/datareader_sec_attributes, §9.5.2.2), with the bits
/// Cyclone DDS 0.10 computes (`get_sec_attributes`): both vendors compare the masks with their
/// own endpoint's and match only equal ones.
pub(super) fn endpoint_security_info(rule: &TopicRule) -> EndpointSecurityInfo {
    let mut a = SECURITY_INFO_VALID;
    let flags = [
        (rule.enable_read_access_control, IS_READ_PROTECTED),
        (rule.enable_write_access_control, IS_WRITE_PROTECTED),
        (rule.enable_discovery_protection, IS_DISCOVERY_PROTECTED),
        (rule.enable_liveliness_protection, IS_LIVELINESS_PROTECTED),
        (
            rule.metadata_protection_kind != ProtectionKind::None,
            IS_SUBMESSAGE_PROTECTED,
        ),
        (
            rule.data_protection_kind != BasicProtectionKind::None,
            IS_PAYLOAD_PROTECTED,
        ),
        (
            rule.data_protection_kind == BasicProtectionKind::Encrypt,
            IS_KEY_PROTECTED,
        ),
    ];
    for (on, bit) in flags {
        if on {
            a |= bit;
        }
    }
    let mut plugin = SECURITY_INFO_VALID;
    if matches!(
        rule.metadata_protection_kind,
        ProtectionKind::Encrypt | ProtectionKind::EncryptWithOriginAuthentication
    ) {
        plugin |= IS_SUBMESSAGE_ENCRYPTED;
    }
    if rule.data_protection_kind == BasicProtectionKind::Encrypt {
        plugin |= IS_PAYLOAD_ENCRYPTED;
    }
    if matches!(
        rule.metadata_protection_kind,
        ProtectionKind::SignWithOriginAuthentication
            | ProtectionKind::EncryptWithOriginAuthentication
    ) {
        plugin |= IS_SUBMESSAGE_ORIGIN_AUTHENTICATED;
    }
    EndpointSecurityInfo {
        endpoint_security_attributes: a,
        plugin_endpoint_security_attributes: plugin,
    }
}

/// The KxKey of §9.5.2.1.2 from a completed handshake: AES256_GCM with key ids 0,
/// `master_salt = HMAC-SHA256(SHA256(challenge1 ‖ "keyexchange salt" ‖ challenge2),
/// SharedSecret)` and `master_sender_key = HMAC-SHA256(SHA256(challenge2 ‖ "key exchange key"
/// ‖ challenge1), SharedSecret)` (the hash is the HMAC key, as in Cyclone DDS 0.10
/// `calculate_kx_keys`). Both participants derive the same material.
pub(super) fn kx_key_material(secret: &SharedSecretHandle) -> Result<KeyMaterial, CryptoError> {
    let derive = |a: &[u8], cookie: &[u8], b: &[u8]| -> Result<Vec<u8>, CryptoError> {
        let mut h = openssl::sha::Sha256::new();
        h.update(a);
        h.update(cookie);
        h.update(b);
        let key = PKey::hmac(&h.finish())?;
        let mut signer = Signer::new(MessageDigest::sha256(), &key)?;
        signer.update(&secret.shared_secret)?;
        Ok(signer.sign_to_vec()?)
    };
    let (c1, c2) = (&secret.challenge1, &secret.challenge2);
    Ok(KeyMaterial {
        transformation_kind: TransformationKind::Aes256Gcm,
        master_salt: derive(c1, KX_SALT_COOKIE, c2)?,
        sender_key_id: [0; 4],
        master_sender_key: derive(c2, KX_KEY_COOKIE, c1)?,
        receiver_specific_key_id: [0; 4],
        master_receiver_specific_key: Vec::new(),
    })
}

/// What the receive transform made of a datagram.
#[derive(Debug)]
pub(super) enum Received {
    /// Nothing was protected: route the datagram as it is.
    Plain,
    /// The plain form to route instead; `rtps` when the whole message was protected.
    Decoded {
        /// The plain message.
        bytes: Vec<u8>,
        /// The message came SRTPS-protected.
        rtps: bool,
    },
    /// Nothing of it may be routed.
    Dropped,
}

/// The protected parts the receive transform refused in one datagram, and why.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Refused {
    /// Every refused part: unknown sender, no key yet, malformed, or a MAC that did not
    /// verify.
    pub all: u64,
    /// Of those, the parts whose MAC did not verify under a key we hold for the sender, or
    /// that carried no receiver-specific MAC for us: forgeries, or a key exchange that gave
    /// the two sides different keys.
    pub unverified: u64,
}

impl Refused {
    /// One more refused part; `why`, when it was the cryptography's verdict.
    fn add(&mut self, why: Option<&CryptoError>) {
        self.all = self.all.saturating_add(1);
        if matches!(
            why,
            Some(CryptoError::MacMismatch | CryptoError::ReceiverMacMissing)
        ) {
            self.unverified = self.unverified.saturating_add(1);
        }
    }

    fn one(why: Option<&CryptoError>) -> Refused {
        let mut r = Refused::default();
        r.add(why);
        r
    }
}

/// One authenticated remote participant.
struct Peer {
    /// Our volatile secure messages to it, protected with the KxKey.
    kx: SenderSession,
    /// Its volatile secure messages, protected with the same KxKey.
    kx_remote: RemoteSender,
    /// Its participant key material (from its CryptoTokens): decodes its protected messages.
    remote: Option<RemoteSender>,
    destinations: Vec<Locator>,
    /// The volatile writer's last sequence number to this participant.
    sn: i64,
    /// Sent and not acknowledged: sequence number → serialized payload.
    unacked: BTreeMap<i64, Vec<u8>>,
    next_resend: Option<Instant>,
    resends: u32,
    /// When the peer last made the volatile writer resend (its HEARTBEAT or NACK): the next
    /// such resend waits [`MIN_RESEND_INTERVAL`]. The first send and the timer's resends do
    /// not count: the peer's first HEARTBEAT, just after them, must not be held back.
    last_triggered: Option<Instant>,
    heartbeat_count: i32,
    acknack_count: i32,
    /// Its volatile writer's sequence numbers we received (bounded).
    seen: BTreeSet<i64>,
    /// Every sequence number below this was received or given up.
    seen_base: i64,
}

impl Peer {
    /// Our unacknowledged volatile secure messages again, at the peer's prompt, unless there
    /// are none or the last prompted resend was less than [`MIN_RESEND_INTERVAL`] ago.
    fn resend_now(&mut self, now: Now, ours: GuidPrefix, remote: GuidPrefix) -> Option<Transmit> {
        let recent = self
            .last_triggered
            .is_some_and(|t| now.mono < t.saturating_add(MIN_RESEND_INTERVAL));
        if self.unacked.is_empty() || recent {
            return None;
        }
        self.last_triggered = Some(now.mono);
        Cryptography::writer_datagram(ours, remote, self)
    }

    /// Records `sn` of the remote volatile writer as received (or irrelevant); false when it
    /// was already.
    fn mark_seen(&mut self, sn: i64) -> bool {
        if sn < self.seen_base || !self.seen.insert(sn) {
            return false;
        }
        if self.seen.len() > MAX_SEEN {
            if let Some(first) = self.seen.pop_first() {
                self.seen_base = self.seen_base.max(first.saturating_add(1));
            }
        }
        while self.seen.remove(&self.seen_base) {
            self.seen_base = self.seen_base.saturating_add(1);
        }
        true
    }
}

/// One of our writers or readers on a topic whose rule protects its submessages or payloads.
struct LocalEndpoint {
    /// Its submessages' key material (`metadata_protection_kind`), if protected.
    submessage: Option<SenderSession>,
    /// `metadata_protection_kind` is origin-authenticated: per matched remote endpoint
    /// (`receiver_of`, the same order) the submessage key material with the
    /// receiver-specific key we gave it, for a MAC per receiver (§9.5.3.3.4.2-3).
    receivers: Vec<ReceiverSpecific>,
    receiver_of: Vec<Guid>,
    origin: bool,
    /// Its DATA's serialized payloads' key material (`data_protection_kind`, writers only).
    payload: Option<SenderSession>,
    /// The topic's payloads are protected (a remote writer's must come so).
    data_protected: bool,
}

/// A remote writer or reader matched with one of our protected endpoints.
#[derive(Default)]
struct RemoteEndpoint {
    /// Its submessages must come protected (the topic's `metadata_protection_kind`).
    submessage_protected: bool,
    /// Its DATA's payloads must come protected (`data_protection_kind`).
    payload_protected: bool,
    /// Its submessage key material, from its CryptoTokens.
    submessage: Option<RemoteSender>,
    /// Its payload key material, from its CryptoTokens (writers).
    payload: Option<RemoteSender>,
}

/// The most remote endpoints whose protection is remembered.
const MAX_REMOTE_ENDPOINTS: usize = 65_536;

/// The participant's cryptography part (see the module overview).
pub(super) struct Cryptography {
    ours: GuidPrefix,
    /// Our participant key material's session (RTPS protection), if any.
    rtps: Option<SenderSession>,
    /// `rtps_protection_kind` is one of the origin-authenticated kinds: every peer gets a
    /// receiver-specific key with our tokens, every protected message a MAC per receiver, and
    /// a peer's messages must carry a valid one for us.
    rtps_origin: bool,
    /// Under RTPS origin authentication, per authenticated participant (`receiver_of`, the
    /// same order) our participant key material with the receiver-specific key we gave it:
    /// the MAC for it on each protected message.
    receivers: Vec<ReceiverSpecific>,
    receiver_of: Vec<GuidPrefix>,
    /// The governance domain rule, for the per-topic protection kinds.
    rule: Option<DomainRule>,
    /// Our protected writers and readers.
    local: BTreeMap<EntityId, LocalEndpoint>,
    /// The remote endpoints matched with them.
    remote_endpoints: BTreeMap<Guid, RemoteEndpoint>,
    /// (our endpoint, remote endpoint) pairs whose CryptoTokens were sent.
    tokens_sent: BTreeSet<(EntityId, Guid)>,
    /// Submessages of protected remote endpoints that came in clear, not yet taken.
    unprotected: u64,
    peers: BTreeMap<GuidPrefix, Peer>,
    outbox: VecDeque<Transmit>,
    rng: OsRandom,
}

impl Cryptography {
    /// The part for `protection`, or `None` when it protects nothing (no key exchange).
    pub(super) fn new(
        ours: GuidPrefix,
        protection: Protection,
    ) -> Result<Option<Self>, CryptoError> {
        if !protection.key_exchange {
            return Ok(None);
        }
        let mut rng = OsRandom;
        let kind = transformation_kind(protection.rtps);
        let rtps = if kind == TransformationKind::None {
            None
        } else {
            let keymat = KeyMaterial::generate(kind, false, &mut rng)?;
            Some(SenderSession::new(keymat, &mut rng)?)
        };
        // DDS-Security 1.1 §7.4.5-6, §8.4.2.4, Table 20: the secure SEDP endpoints protect
        // their submessages per `discovery_protection_kind`, the secure WLP ones per
        // `liveliness_protection_kind`, each with key material of its own exchanged as
        // datawriter/datareader CryptoTokens (as Cyclone DDS 0.10 `q_omg_security_register_*`
        // and Fast DDS 2.9 `register_local_builtin_writer/reader` do).
        let mut local = BTreeMap::new();
        if let Some(rule) = protection
            .rule
            .as_ref()
            .filter(|r| Protection::secure_builtin(Some(r)).is_some())
        {
            for (id, _, _) in super::sedp::SECURE_BUILTIN_PAIRS {
                let kind = match id {
                    super::sedp::PARTICIPANT_MESSAGE_SECURE_WRITER
                    | super::sedp::PARTICIPANT_MESSAGE_SECURE_READER => {
                        rule.liveliness_protection_kind
                    }
                    _ => rule.discovery_protection_kind,
                };
                let submessage = match transformation_kind(kind) {
                    TransformationKind::None => None,
                    kind => {
                        let keymat = KeyMaterial::generate(kind, false, &mut rng)?;
                        Some(SenderSession::new(keymat, &mut rng)?)
                    }
                };
                // Origin authentication of the secure builtin endpoints is not built: their
                // submessages carry no receiver-specific MACs (docs/security.md §8.5).
                let ep = LocalEndpoint {
                    submessage,
                    receivers: Vec::new(),
                    receiver_of: Vec::new(),
                    origin: false,
                    payload: None,
                    data_protected: false,
                };
                local.insert(id, ep);
            }
        }
        Ok(Some(Cryptography {
            ours,
            rtps_origin: rtps.is_some() && origin_authenticated(protection.rtps),
            rtps,
            receivers: Vec::new(),
            receiver_of: Vec::new(),
            rule: protection.rule,
            local,
            remote_endpoints: BTreeMap::new(),
            tokens_sent: BTreeSet::new(),
            unprotected: 0,
            peers: BTreeMap::new(),
            outbox: VecDeque::new(),
            rng,
        }))
    }

    /// True when datagrams from `src` must come SRTPS-protected: we protect RTPS messages
    /// and `src` authenticated (its user-endpoint submessages in clear are dropped).
    pub(super) fn rtps_required(&self, src: GuidPrefix) -> bool {
        self.rtps.is_some() && self.peers.contains_key(&src)
    }

    /// The participant key material `remote` sent us (tests: what a peer knows of another).
    #[cfg(test)]
    pub(super) fn remote_key_material(&self, remote: GuidPrefix) -> Option<&KeyMaterial> {
        Some(self.peers.get(&remote)?.remote.as_ref()?.key_material())
    }

    /// True when `remote`'s participant CryptoTokens arrived.
    pub(super) fn has_remote_keys(&self, remote: GuidPrefix) -> bool {
        self.peers.get(&remote).is_some_and(|p| p.remote.is_some())
    }

    /// `remote` authenticated with shared secret `secret`: derive the KxKey and send it our
    /// participant CryptoTokens (§8.8.4, §9.5.3.1.3) at `destinations`.
    pub(super) fn authenticated(
        &mut self,
        now: Now,
        remote: GuidPrefix,
        secret: &SharedSecretHandle,
        destinations: Vec<Locator>,
    ) -> Result<(), CryptoError> {
        let kx = kx_key_material(secret)?;
        let peer = Peer {
            kx: SenderSession::new(kx.clone(), &mut self.rng)?,
            kx_remote: RemoteSender::new(kx)?,
            remote: None,
            destinations,
            sn: 0,
            unacked: BTreeMap::new(),
            next_resend: None,
            resends: 0,
            last_triggered: None,
            heartbeat_count: 0,
            acknack_count: 0,
            seen: BTreeSet::new(),
            seen_base: 1,
        };
        self.peers.insert(remote, peer);
        // Our participant key material, or kind NONE when RTPS messages are not protected
        // (§9.5.3.1.3: the tokens are sent whatever the kind). Under origin authentication
        // the material carries a receiver-specific key of this participant's own
        // (§9.5.2.1.1, as Cyclone DDS 0.10 `register_matched_remote_participant`).
        let keymat = match &self.rtps {
            Some(s) if self.rtps_origin => {
                let keymat = receiver_specific_key_material(s.key_material(), &mut self.rng)?;
                self.forget_receiver(remote);
                self.receivers.push(ReceiverSpecific::new(keymat.clone())?);
                self.receiver_of.push(remote);
                keymat
            }
            Some(s) => s.key_material().clone(),
            None => KeyMaterial::none(),
        };
        let mut token = DataHolder::new(CRYPTO_TOKEN_CLASS_ID);
        token.push_binary(CRYPTO_TOKEN_KEYMAT, keymat.to_cdr());
        self.send_volatile(
            now,
            remote,
            GMCLASSID_SECURITY_PARTICIPANT_CRYPTO_TOKENS,
            vec![token],
        );
        Ok(())
    }

    /// Forgets the receiver-specific key material we gave `remote`.
    fn forget_receiver(&mut self, remote: GuidPrefix) {
        if let Some(i) = self.receiver_of.iter().position(|p| *p == remote) {
            self.receiver_of.remove(i);
            self.receivers.remove(i);
        }
    }

    /// Forgets a participant (lease expired, it left, or its authentication ended).
    pub(super) fn remove(&mut self, remote: GuidPrefix) {
        self.forget_receiver(remote);
        for ep in self.local.values_mut() {
            while let Some(i) = ep.receiver_of.iter().position(|g| g.prefix == remote) {
                ep.receiver_of.remove(i);
                ep.receivers.remove(i);
            }
        }
        self.peers.remove(&remote);
        self.remote_endpoints.retain(|g, _| g.prefix != remote);
        self.tokens_sent.retain(|(_, g)| g.prefix != remote);
    }

    // ---- endpoint protection ----

    /// How many submessages of protected remote endpoints came in clear (and were dropped)
    /// since the last call.
    pub(super) fn take_unprotected(&mut self) -> u64 {
        core::mem::take(&mut self.unprotected)
    }

    /// The topic rule of `topic` when it protects or controls anything (the endpoint then
    /// announces PID_ENDPOINT_SECURITY_INFO).
    fn topic_rule(&self, topic: &str) -> Option<&TopicRule> {
        self.rule.as_ref()?.topic_rule(topic)
    }

    /// Our endpoint `id` on `topic` is announced: creates its key material when the topic's
    /// rule protects its submessages or (a writer's) payloads, once (§8.8.5,
    /// register_local_datawriter/datareader), and returns the PID_ENDPOINT_SECURITY_INFO its
    /// SEDP data carries.
    /// The octets protection may add to a datagram of our writer on `topic`: per submessage
    /// (SEC_PREFIX, SEC_BODY's length and padding, SEC_POSTFIX, and the payload's crypto
    /// header and footer) and per message (SRTPS_PREFIX and SRTPS_POSTFIX), receiver-specific
    /// MACs for at most [`SIZED_RECEIVER_MACS`] receivers included. The writer builds its
    /// datagrams that much smaller, so a protected datagram still fits a UDP datagram.
    /// DDS-Security 1.1 §7.3.6-7, §9.5.3.3.
    pub(super) fn send_overhead(&self, topic: &str) -> (usize, usize) {
        let macs = |origin: bool| {
            if origin {
                SIZED_RECEIVER_MACS.saturating_mul(20)
            } else {
                0
            }
        };
        let per_message = match self.rtps {
            Some(_) => RTPS_PROTECTION_OVERHEAD.saturating_add(macs(self.rtps_origin)),
            None => 0,
        };
        let per_submessage = match self.topic_rule(topic) {
            Some(rule)
                if rule.metadata_protection_kind != ProtectionKind::None
                    || rule.data_protection_kind != BasicProtectionKind::None =>
            {
                SUBMESSAGE_PROTECTION_OVERHEAD
                    .saturating_add(macs(origin_authenticated(rule.metadata_protection_kind)))
            }
            _ => 0,
        };
        (per_submessage, per_message)
    }

    pub(super) fn local_endpoint(
        &mut self,
        id: EntityId,
        topic: &str,
        writer: bool,
    ) -> Option<EndpointSecurityInfo> {
        let rule = self.topic_rule(topic)?.clone();
        let info = endpoint_security_info(&rule);
        let submessage = transformation_kind(rule.metadata_protection_kind);
        let data_protected = rule.data_protection_kind != BasicProtectionKind::None;
        let payload = match writer {
            true => basic_transformation_kind(rule.data_protection_kind),
            false => TransformationKind::None,
        };
        if (submessage != TransformationKind::None || data_protected)
            && !self.local.contains_key(&id)
        {
            let mut session = |kind: TransformationKind| -> Option<SenderSession> {
                if kind == TransformationKind::None {
                    return None;
                }
                let keymat = KeyMaterial::generate(kind, false, &mut self.rng)
                    .and_then(|k| SenderSession::new(k, &mut self.rng));
                match keymat {
                    Ok(s) => Some(s),
                    Err(e) => {
                        log::error!("no key material for endpoint {id:?} on {topic}: {e}");
                        None
                    }
                }
            };
            let submessage = session(submessage);
            let payload = session(payload);
            self.local.insert(
                id,
                LocalEndpoint {
                    receivers: Vec::new(),
                    receiver_of: Vec::new(),
                    origin: submessage.is_some()
                        && origin_authenticated(rule.metadata_protection_kind),
                    submessage,
                    payload,
                    data_protected,
                },
            );
        }
        Some(info)
    }

    /// Forgets our endpoint `id` (deleted).
    pub(super) fn forget_local(&mut self, id: EntityId) {
        self.local.remove(&id);
        self.tokens_sent.retain(|(l, _)| *l != id);
    }

    /// Our endpoint `local` matched remote endpoint `remote` (a writer with a reader or the
    /// reverse): when `local` is protected, remembers what `remote` must protect and sends it
    /// `local`'s CryptoTokens once (§8.8.5-6, create_local_datawriter/datareader_crypto_tokens,
    /// §7.4.4.5: destination_endpoint_key is the remote endpoint, source_endpoint_key ours).
    pub(super) fn matched(&mut self, now: Now, local: Guid, remote: Guid) {
        let Some(ep) = self.local.get(&local.entity_id) else {
            return;
        };
        if !self.peers.contains_key(&remote.prefix) {
            return;
        }
        if !self.remote_endpoints.contains_key(&remote)
            && self.remote_endpoints.len() >= MAX_REMOTE_ENDPOINTS
        {
            log::warn!("too many protected remote endpoints; {remote} not registered");
            return;
        }
        let writer = local.entity_id.is_writer();
        let r = self.remote_endpoints.entry(remote).or_default();
        r.submessage_protected |= ep.submessage.is_some();
        // A remote writer's payloads are protected when the topic's are.
        if !writer {
            r.payload_protected |= ep.data_protected;
        }
        if !self.tokens_sent.insert((local.entity_id, remote)) {
            return;
        }
        let mut submessage = ep
            .submessage
            .as_ref()
            .map_or_else(KeyMaterial::none, |s| s.key_material().clone());
        // Origin authentication: the remote endpoint gets a receiver-specific key of its own
        // (§9.5.3.1.4, as Cyclone DDS 0.10 `register_matched_remote_datareader/writer`).
        if ep.origin {
            let ep = self.local.get_mut(&local.entity_id);
            let made = receiver_specific_key_material(&submessage, &mut self.rng)
                .and_then(|k| Ok((ReceiverSpecific::new(k.clone())?, k)));
            match (ep, made) {
                (Some(ep), Ok((receiver, keymat))) => {
                    if let Some(i) = ep.receiver_of.iter().position(|g| *g == remote) {
                        ep.receiver_of.remove(i);
                        ep.receivers.remove(i);
                    }
                    ep.receivers.push(receiver);
                    ep.receiver_of.push(remote);
                    submessage = keymat;
                }
                (_, Err(e)) => log::error!("no receiver-specific key for {remote}: {e}"),
                (None, _) => {}
            }
        }
        let Some(ep) = self.local.get(&local.entity_id) else {
            return;
        };
        // A writer's tokens: its submessage key material, then its payload key material
        // (§9.5.3.1.4.1; Cyclone DDS 0.10 takes one or two); a reader's: its submessage key
        // material (§9.5.3.1.4.2).
        let mut keymats = vec![submessage];
        let class = match writer {
            true => {
                if let Some(p) = &ep.payload {
                    keymats.push(p.key_material().clone());
                }
                GMCLASSID_SECURITY_DATAWRITER_CRYPTO_TOKENS
            }
            false => GMCLASSID_SECURITY_DATAREADER_CRYPTO_TOKENS,
        };
        let tokens = keymats
            .iter()
            .map(|k| {
                let mut token = DataHolder::new(CRYPTO_TOKEN_CLASS_ID);
                token.push_binary(CRYPTO_TOKEN_KEYMAT, k.to_cdr());
                token
            })
            .collect();
        log::debug!("sending the crypto tokens of {local} to {remote}");
        self.send_volatile_to(now, remote.prefix, class, tokens, (remote, local));
    }

    /// Remote participant `remote`, authenticated, was matched on the secure SEDP and WLP
    /// endpoints its BuiltinEndpointSet `announced` names: each of ours sends the matching one
    /// its CryptoTokens, and what that one sends must come protected (§7.4.5-6, §8.8.5-6).
    pub(super) fn builtin_matched(&mut self, now: Now, remote: GuidPrefix, announced: u32) {
        for (ours, theirs, bit) in super::sedp::SECURE_BUILTIN_PAIRS {
            if announced & bit != 0 {
                let local = Guid::new(self.ours, ours);
                self.matched(now, local, Guid::new(remote, theirs));
            }
        }
    }

    /// Queues one volatile secure message to `remote` and sends it.
    fn send_volatile(&mut self, now: Now, remote: GuidPrefix, class: &str, data: Vec<DataHolder>) {
        let endpoints = (Guid::UNKNOWN, Guid::UNKNOWN);
        self.send_volatile_to(now, remote, class, data, endpoints);
    }

    /// Queues one volatile secure message to `remote` about `(destination, source)` endpoints
    /// and sends it.
    fn send_volatile_to(
        &mut self,
        now: Now,
        remote: GuidPrefix,
        class: &str,
        data: Vec<DataHolder>,
        (destination, source): (Guid, Guid),
    ) {
        let ours = self.ours;
        let Some(peer) = self.peers.get_mut(&remote) else {
            return;
        };
        if peer.unacked.len() >= MAX_UNACKED {
            log::warn!("volatile secure messages to {remote} are not acknowledged; dropping one");
            peer.unacked.pop_first();
        }
        peer.sn = peer.sn.saturating_add(1);
        let msg = ParticipantGenericMessage {
            message_identity: MessageIdentity {
                source_guid: Guid::new(ours, VOLATILE_MESSAGE_SECURE_WRITER),
                sequence_number: peer.sn,
            },
            related_message_identity: MessageIdentity::default(),
            destination_participant_key: Guid::new(remote, EntityId::PARTICIPANT),
            destination_endpoint_key: destination,
            source_endpoint_key: source,
            message_class_id: class.to_owned(),
            message_data: data,
        };
        peer.unacked.insert(peer.sn, generic_message_payload(&msg));
        peer.resends = 0;
        peer.next_resend = Some(now.mono.saturating_add(VOLATILE_RESEND_PERIOD));
        let t = Self::writer_datagram(ours, remote, peer);
        self.outbox.extend(t);
    }

    /// Every unacknowledged message to `remote` and a HEARTBEAT, in one datagram.
    fn writer_datagram(ours: GuidPrefix, remote: GuidPrefix, peer: &mut Peer) -> Option<Transmit> {
        let first = *peer.unacked.keys().next()?;
        peer.heartbeat_count = peer.heartbeat_count.wrapping_add(1);
        let mut plain = Vec::new();
        for (sn, payload) in &peer.unacked {
            plain.push(submessage_bytes(&Submessage::Data(Data {
                endian: Endianness::Little,
                extra_flags: 0,
                reader_id: VOLATILE_MESSAGE_SECURE_READER,
                writer_id: VOLATILE_MESSAGE_SECURE_WRITER,
                writer_sn: SequenceNumber(*sn),
                inline_qos: None,
                payload: DataPayload::Data(payload),
            })));
        }
        plain.push(submessage_bytes(&Submessage::Heartbeat(Heartbeat {
            endian: Endianness::Little,
            final_flag: false,
            liveliness: false,
            reader_id: VOLATILE_MESSAGE_SECURE_READER,
            writer_id: VOLATILE_MESSAGE_SECURE_WRITER,
            first_sn: SequenceNumber(first),
            last_sn: SequenceNumber(peer.sn),
            count: peer.heartbeat_count,
            group_info: None,
        })));
        secure_datagram(ours, remote, peer, &plain)
    }

    /// Resends unacknowledged volatile secure messages; gives up after
    /// [`MAX_VOLATILE_RESENDS`].
    pub(super) fn handle_timeout(&mut self, now: Now) {
        let ours = self.ours;
        for (remote, peer) in &mut self.peers {
            if peer.next_resend.is_none_or(|t| t > now.mono) {
                continue;
            }
            peer.resends = peer.resends.saturating_add(1);
            if peer.resends > MAX_VOLATILE_RESENDS || peer.unacked.is_empty() {
                if !peer.unacked.is_empty() {
                    log::warn!("participant {remote} never acknowledged our crypto tokens");
                }
                peer.unacked.clear();
                peer.next_resend = None;
                continue;
            }
            peer.next_resend = Some(now.mono.saturating_add(VOLATILE_RESEND_PERIOD));
            let t = Self::writer_datagram(ours, *remote, peer);
            self.outbox.extend(t);
        }
    }

    /// The next resend.
    pub(super) fn poll_timeout(&self) -> Option<Instant> {
        self.peers.values().filter_map(|p| p.next_resend).min()
    }

    /// The next volatile secure datagram.
    pub(super) fn poll_transmit(&mut self) -> Option<Transmit> {
        self.outbox.pop_front()
    }

    // ---- send transform ----

    /// The send transform: first each submessage of our protected endpoints is protected
    /// with its key material (§8.5.1.9.2-3, encode_datawriter_submessage /
    /// encode_datareader_submessage; a writer's DATA payload first with encode_serialized_payload,
    /// §8.5.1.9.1), then the datagram as one RTPS message with our participant key material
    /// when RTPS protection is on and it carries a user-endpoint submessage
    /// (encode_rtps_message). False when it could not be protected: it must not go out.
    pub(super) fn protect(&mut self, t: &mut Transmit) -> bool {
        if self.rtps.is_none() && self.local.is_empty() {
            return true;
        }
        let plain = t.datagram();
        let endpoint = match self.local.is_empty() {
            true => None,
            false => match self.protect_submessages(&plain) {
                Ok(p) => p,
                Err(e) => {
                    log::warn!("a submessage could not be protected ({e}); datagram not sent");
                    return false;
                }
            },
        };
        let user = carries_user_submessage(&plain);
        let current: &[u8] = endpoint.as_deref().unwrap_or(&plain);
        let rtps = match self.rtps.as_mut() {
            Some(session) if user => {
                let mut out = Vec::with_capacity(current.len().saturating_add(96));
                // One MAC for the participant the message is for (its INFO_DST), else one
                // for each (DDS-Security 1.1 §9.5.3.3.4.4: receiving_participant_crypto_list).
                let target = single_destination(current)
                    .and_then(|d| self.receiver_of.iter().position(|p| *p == d));
                let receivers = match target.and_then(|i| self.receivers.get_mut(i)) {
                    Some(one) => core::slice::from_mut(one),
                    None => self.receivers.as_mut_slice(),
                };
                let encoded =
                    encode_rtps_message(session, current, receivers, Endianness::Little, &mut out);
                match encoded {
                    Ok(()) => Some(out),
                    Err(e) => {
                        log::warn!("a datagram could not be protected ({e}); not sent");
                        return false;
                    }
                }
            }
            _ => None,
        };
        let Some(out) = rtps.or(endpoint) else {
            return true;
        };
        drop(plain);
        t.payload = out;
        t.splice = None;
        true
    }

    /// `plain` with each submessage of our protected endpoints protected; `None` when it
    /// holds none.
    fn protect_submessages(&mut self, plain: &[u8]) -> Result<Option<Vec<u8>>, CryptoError> {
        let mut out = Vec::with_capacity(plain.len().saturating_add(256));
        let destination = single_destination(plain);
        let (head, mut rest) = plain.split_at(Header::LEN.min(plain.len()));
        out.extend_from_slice(head);
        let mut changed = false;
        while !rest.is_empty() {
            let Some(len) = submessage_len(rest) else {
                out.extend_from_slice(rest);
                break;
            };
            let (sm, tail) = rest.split_at(len.min(rest.len()));
            rest = tail;
            let Some((id, writer_side)) = endpoint_of(sm) else {
                out.extend_from_slice(sm);
                continue;
            };
            let Some(ep) = self.local.get_mut(&id) else {
                out.extend_from_slice(sm);
                continue;
            };
            changed = true;
            let mut whole = normalized(sm)?;
            if let (true, Some(session)) = (writer_side, ep.payload.as_mut()) {
                if matches!(sm.first(), Some(&DATA) | Some(&DATA_FRAG)) {
                    whole = protect_payload(session, &whole)?;
                }
            }
            // One MAC for the remote endpoint the submessage is for (INFO_DST and its
            // readerId, or writerId from a reader), else one per matched remote endpoint
            // (§9.5.3.3.4.2-3: receiving_datareader/datawriter_crypto_list).
            let target = destination
                .zip(remote_entity_of(&whole))
                .filter(|(_, e)| *e != EntityId::UNKNOWN)
                .and_then(|(p, e)| ep.receiver_of.iter().position(|g| *g == Guid::new(p, e)));
            let receivers = match target.and_then(|i| ep.receivers.get_mut(i)) {
                Some(one) => core::slice::from_mut(one),
                None => ep.receivers.as_mut_slice(),
            };
            match ep.submessage.as_mut() {
                Some(session) => {
                    encode_submessage(session, &whole, receivers, Endianness::Little, &mut out)?;
                }
                None => out.extend_from_slice(&whole),
            }
        }
        Ok(changed.then_some(out))
    }

    // ---- receive transform ----

    /// The receive transform: decodes an SRTPS-protected message with the sender's
    /// participant key material, and takes out the volatile secure submessages (decoded with
    /// the KxKey and handled here). Returns what to route and the protected parts refused.
    pub(super) fn receive(&mut self, now: Now, datagram: &[u8]) -> (Received, Refused) {
        let Some(src) = header_prefix(datagram) else {
            return (Received::Plain, Refused::default());
        };
        let mut rtps = false;
        let mut decoded = None;
        if datagram.get(Header::LEN) == Some(&SRTPS_PREFIX) {
            let Some(remote) = self.peers.get_mut(&src).and_then(|p| p.remote.as_mut()) else {
                return (Received::Dropped, Refused::one(None));
            };
            let mut out = Vec::with_capacity(datagram.len());
            let protected = without_trailer(datagram);
            if let Err(e) = decode_rtps_message(remote, protected, &mut out) {
                log::debug!("dropped a protected message from {src}: {e}");
                return (Received::Dropped, Refused::one(Some(&e)));
            }
            rtps = true;
            decoded = Some(out);
        }
        let message = decoded.as_deref().unwrap_or(datagram);
        let endpoints = self
            .remote_endpoints
            .range(Guid::new(src, EntityId([0; 4]))..=Guid::new(src, EntityId([0xff; 4])))
            .next()
            .is_some();
        if !endpoints && !has_submessage(message, SEC_PREFIX) {
            return match decoded {
                Some(bytes) => (Received::Decoded { bytes, rtps }, Refused::default()),
                None => (Received::Plain, Refused::default()),
            };
        }
        let (bytes, rejected) = self.take_secure_submessages(now, src, message);
        (Received::Decoded { bytes, rtps }, rejected)
    }

    /// Copies `message` without its SEC_PREFIX … SEC_POSTFIX groups; each group is decoded
    /// with the KxKey of `src` and handled as a volatile secure submessage. A group that does
    /// not decode ends the message (its length cannot be trusted).
    fn take_secure_submessages(
        &mut self,
        now: Now,
        src: GuidPrefix,
        message: &[u8],
    ) -> (Vec<u8>, Refused) {
        let mut out = Vec::with_capacity(message.len());
        let mut rejected = Refused::default();
        let (head, mut rest) = message.split_at(Header::LEN.min(message.len()));
        out.extend_from_slice(head);
        while !rest.is_empty() {
            if rest.first() == Some(&SEC_PREFIX) {
                let volatile = peek_crypto_header(rest, Protected::Submessage)
                    .is_ok_and(|h| h.transform_identifier.transformation_key_id == [0; 4]);
                let result = match volatile {
                    true => self.secure_submessage(now, src, rest),
                    false => self.endpoint_submessage(src, rest, &mut out),
                };
                match result {
                    Ok(used) => {
                        rest = rest.get(used..).unwrap_or_default();
                        continue;
                    }
                    Err(e) => {
                        log::debug!("dropped a protected submessage from {src}: {e}");
                        rejected.add(Some(&e));
                        break;
                    }
                }
            }
            let Some(len) = submessage_len(rest) else {
                break;
            };
            let (sm, tail) = rest.split_at(len.min(rest.len()));
            rest = tail;
            // DDS-Security 1.1 §8.4.2.4: what a remote endpoint on a topic with submessage
            // protection sends must come protected; its payloads likewise.
            let remote = endpoint_of(sm)
                .and_then(|(id, _)| self.remote_endpoints.get_mut(&Guid::new(src, id)));
            match remote {
                Some(r) if r.submessage_protected => {
                    self.unprotected = self.unprotected.saturating_add(1);
                }
                Some(r)
                    if r.payload_protected && matches!(sm.first(), Some(&DATA | &DATA_FRAG)) =>
                {
                    match r.payload.as_mut().map(|k| unprotect_payload(k, sm)) {
                        Some(Ok(plain)) => out.extend_from_slice(&plain),
                        Some(Err(e)) => rejected.add(Some(&e)),
                        None => rejected.add(None),
                    }
                }
                _ => out.extend_from_slice(sm),
            }
        }
        (out, rejected)
    }

    /// Decodes one SEC_PREFIX … SEC_POSTFIX group at the start of `encoded` with the key
    /// material of the remote endpoint of `src` whose key id it names (§8.5.1.9.6-7,
    /// decode_datawriter_submessage / decode_datareader_submessage) and appends the plain
    /// submessage to `out` (a DATA's payload decoded too when the topic protects payloads);
    /// returns the octets the group took. The plain submessage must be that endpoint's.
    fn endpoint_submessage(
        &mut self,
        src: GuidPrefix,
        encoded: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<usize, CryptoError> {
        let header = peek_crypto_header(encoded, Protected::Submessage)?;
        let key_id = header.transform_identifier.transformation_key_id;
        let range = Guid::new(src, EntityId([0; 4]))..=Guid::new(src, EntityId([0xff; 4]));
        let (guid, remote) = self
            .remote_endpoints
            .range_mut(range)
            .find(|(_, r)| {
                r.submessage
                    .as_ref()
                    .is_some_and(|k| k.key_material().sender_key_id == key_id)
            })
            .ok_or(CryptoError::KeyMismatch)?;
        let sender = remote.submessage.as_mut().ok_or(CryptoError::KeyMismatch)?;
        let mut plain = Vec::new();
        let used = decode_submessage(sender, encoded, &mut plain)?;
        // The plain submessage is that endpoint's, or an interpreter submessage it protects
        // with its key (Fast DDS 2.9 protects the INFO_TS before a writer's DATA on its own).
        match endpoint_of(&plain) {
            Some((id, _)) if Guid::new(src, id) != *guid => {
                return Err(CryptoError::Invalid("a submessage of another endpoint"));
            }
            None if !plain.first().is_some_and(|id| is_interpreter(*id)) => {
                return Err(CryptoError::Invalid(
                    "a protected submessage of unknown kind",
                ));
            }
            _ => {}
        }
        if remote.payload_protected && matches!(plain.first(), Some(&DATA | &DATA_FRAG)) {
            let key = remote.payload.as_mut().ok_or(CryptoError::KeyMismatch)?;
            plain = unprotect_payload(key, &plain)?;
        }
        out.extend_from_slice(&plain);
        Ok(used)
    }

    /// Decodes one SEC_PREFIX … SEC_POSTFIX group at the start of `encoded` and handles the
    /// volatile secure submessage in it; returns the octets the group took.
    fn secure_submessage(
        &mut self,
        now: Now,
        src: GuidPrefix,
        encoded: &[u8],
    ) -> Result<usize, CryptoError> {
        let header = peek_crypto_header(encoded, Protected::Submessage)?;
        let peer = self.peers.get_mut(&src).ok_or(CryptoError::KeyMismatch)?;
        // Key id 0 is the KxKey (§9.5.2.1.2); endpoint key material is not registered yet.
        if header.transform_identifier.transformation_key_id != [0; 4] {
            return Err(CryptoError::KeyMismatch);
        }
        let mut plain = Vec::new();
        let used = decode_submessage(&mut peer.kx_remote, encoded, &mut plain)?;
        // The plain submessage, read as the only one of a message from `src`.
        let mut message = Vec::with_capacity(plain.len().saturating_add(Header::LEN));
        Header::new(src).emit(&mut message);
        message.extend_from_slice(&plain);
        let mut items = Vec::new();
        receiver::receive_items(
            &message,
            self.ours,
            |_| false,
            |_, item| {
                if let Item::Entity(sm) = item {
                    items.push(VolatileItem::of(&sm));
                }
            },
        );
        for item in items.into_iter().flatten() {
            self.handle_volatile(now, src, item);
        }
        Ok(used)
    }

    fn handle_volatile(&mut self, now: Now, src: GuidPrefix, item: VolatileItem) {
        let (ours, origin) = (self.ours, self.rtps_origin);
        let Some(peer) = self.peers.get_mut(&src) else {
            return;
        };
        match item {
            VolatileItem::Data(sn, payload) => {
                if !peer.mark_seen(sn) {
                    return;
                }
                if let Some(msg) = Self::handle_tokens(ours, src, peer, &payload, origin) {
                    self.endpoint_tokens(src, &msg);
                }
            }
            VolatileItem::Gap(irrelevant) => {
                // The writer's sequence numbers are shared by all its readers (Cyclone DDS
                // writes to each participant from one counter): the others' are GAPs here.
                for sn in irrelevant {
                    peer.mark_seen(sn);
                }
            }
            VolatileItem::Heartbeat { first, last } => {
                // The peer's volatile writer speaks: it completed its side of the handshake
                // and matched our endpoints, so what we sent before that (and it could not
                // decode then) can be decoded now.
                let resend = peer.resend_now(now, ours, src);
                self.outbox.extend(resend);
                // Volatile: what the writer no longer has is not waited for.
                if first > peer.seen_base {
                    peer.seen_base = first;
                    peer.seen.retain(|s| *s >= first);
                    while peer.seen.remove(&peer.seen_base) {
                        peer.seen_base = peer.seen_base.saturating_add(1);
                    }
                }
                let base = SequenceNumber(peer.seen_base);
                let missing = (peer.seen_base..=last)
                    .filter(|s| !peer.seen.contains(s))
                    .take(crate::wire::MAX_SET_BITS as usize)
                    .map(SequenceNumber);
                let Ok(set) = SequenceNumberSet::from_members(base, missing) else {
                    return;
                };
                peer.acknack_count = peer.acknack_count.wrapping_add(1);
                let ack = submessage_bytes(&Submessage::AckNack(AckNack {
                    endian: Endianness::Little,
                    final_flag: true,
                    reader_id: VOLATILE_MESSAGE_SECURE_READER,
                    writer_id: VOLATILE_MESSAGE_SECURE_WRITER,
                    reader_sn_state: set,
                    count: peer.acknack_count,
                }));
                let t = secure_datagram(ours, src, peer, &[ack]);
                self.outbox.extend(t);
            }
            VolatileItem::AckNack { base } => {
                peer.unacked.retain(|sn, _| *sn >= base);
                if peer.unacked.is_empty() {
                    peer.next_resend = None;
                    return;
                }
                // Not everything acknowledged: a NACK.
                let t = peer.resend_now(now, ours, src);
                self.outbox.extend(t);
            }
        }
    }

    /// A volatile secure DATA's payload: registers the participant CryptoTokens it carries;
    /// returns a datawriter's or datareader's CryptoTokens message for us, which
    /// [`Self::endpoint_tokens`] registers.
    fn handle_tokens(
        ours: GuidPrefix,
        src: GuidPrefix,
        peer: &mut Peer,
        payload: &[u8],
        origin: bool,
    ) -> Option<ParticipantGenericMessage> {
        let (_, mut r) = EncapsulationHeader::body(payload).ok()?;
        let msg = ParticipantGenericMessage::parse(&mut r).ok()?;
        let dest = msg.destination_participant_key.prefix;
        if msg.message_identity.source_guid.prefix != src
            || (dest != GuidPrefix::UNKNOWN && dest != ours)
        {
            return None;
        }
        if msg.message_class_id == GMCLASSID_SECURITY_DATAWRITER_CRYPTO_TOKENS
            || msg.message_class_id == GMCLASSID_SECURITY_DATAREADER_CRYPTO_TOKENS
        {
            return Some(msg);
        }
        if msg.message_class_id != GMCLASSID_SECURITY_PARTICIPANT_CRYPTO_TOKENS {
            return None;
        }
        let keymat = msg
            .message_data
            .iter()
            .filter(|t| t.class_id == CRYPTO_TOKEN_CLASS_ID)
            .find_map(|t| t.binary_property(CRYPTO_TOKEN_KEYMAT))
            .map(KeyMaterial::from_cdr);
        match keymat {
            Some(Ok(k)) if k.transformation_kind == TransformationKind::None => {
                log::debug!("participant {src} protects no RTPS messages");
            }
            // Under origin authentication a sender's messages must carry a MAC for us, which
            // takes a receiver-specific key in its tokens: without one, nothing of it decodes.
            Some(Ok(k)) if origin && !k.has_receiver_specific_key() => {
                log::warn!(
                    "participant crypto tokens of {src} refused: no receiver-specific key \
                     under origin authentication"
                );
            }
            Some(Ok(k)) => match RemoteSender::new(k) {
                Ok(sender) => {
                    log::info!("received the participant crypto tokens of {src}");
                    peer.remote = Some(sender);
                }
                Err(e) => log::warn!("participant crypto tokens of {src} refused: {e}"),
            },
            Some(Err(e)) => log::warn!("participant crypto tokens of {src} refused: {e}"),
            None => log::warn!("participant crypto tokens of {src} without key material"),
        }
        None
    }

    /// Registers a remote writer's or reader's CryptoTokens (§8.8.5-6,
    /// set_remote_datawriter/datareader_crypto_tokens): its submessage key material, and a
    /// writer's payload key material (the second token; with one token, the first serves
    /// both, as Fast DDS 2.9 sends). Tokens for an endpoint of ours that is not protected are
    /// ignored.
    fn endpoint_tokens(&mut self, src: GuidPrefix, msg: &ParticipantGenericMessage) {
        let (source, dest) = (msg.source_endpoint_key, msg.destination_endpoint_key);
        let writer = msg.message_class_id == GMCLASSID_SECURITY_DATAWRITER_CRYPTO_TOKENS;
        if source.prefix != src
            || dest.prefix != self.ours
            || source.entity_id.is_writer() != writer
            || !self.local.contains_key(&dest.entity_id)
        {
            log::debug!("endpoint crypto tokens from {source} to {dest} ignored");
            return;
        }
        let origin = self.local.get(&dest.entity_id).is_some_and(|e| e.origin);
        // The tokens may arrive before our endpoint matched theirs (the peer matched first):
        // they are kept, and the match adds what the endpoint must protect.
        if !self.remote_endpoints.contains_key(&source)
            && self.remote_endpoints.len() >= MAX_REMOTE_ENDPOINTS
        {
            log::warn!("too many protected remote endpoints; tokens of {source} ignored");
            return;
        }
        let remote = self.remote_endpoints.entry(source).or_default();
        let keymats: Vec<KeyMaterial> = msg
            .message_data
            .iter()
            .filter(|t| t.class_id == CRYPTO_TOKEN_CLASS_ID)
            .filter_map(|t| t.binary_property(CRYPTO_TOKEN_KEYMAT))
            .take(2)
            .filter_map(|b| match KeyMaterial::from_cdr(b) {
                Ok(k) => Some(k),
                Err(e) => {
                    log::warn!("crypto tokens of {source} refused: {e}");
                    None
                }
            })
            .collect();
        let sender = |k: Option<&KeyMaterial>| -> Option<RemoteSender> {
            let k = k.filter(|k| k.transformation_kind != TransformationKind::None)?;
            RemoteSender::new(k.clone())
                .map_err(|e| log::warn!("crypto tokens of {source} refused: {e}"))
                .ok()
        };
        // Under origin authentication its submessages must carry a MAC for our endpoint,
        // which takes a receiver-specific key in its tokens.
        let first = keymats.first();
        if origin && first.is_some_and(|k| !k.has_receiver_specific_key()) {
            log::warn!(
                "crypto tokens of {source} refused: no receiver-specific key under origin \
                 authentication"
            );
            return;
        }
        // Tokens again for the same pairing: the newer replace the older, whose
        // receiver-specific key stays valid beside them (`RemoteSender::renewed`).
        remote.submessage = match (remote.submessage.take(), sender(first)) {
            (Some(older), Some(newer)) => Some(older.renewed(newer)),
            (_, newer) => newer,
        };
        if writer {
            // A payload carries no receiver-specific MACs (§9.5.3.3.4.1): a single token
            // (Fast DDS 2.9) serves payloads without its receiver-specific key.
            let payload = keymats.get(1).or(first).map(|k| KeyMaterial {
                receiver_specific_key_id: [0; 4],
                master_receiver_specific_key: Vec::new(),
                ..k.clone()
            });
            remote.payload = sender(payload.as_ref());
        }
        log::info!("received the crypto tokens of {source}");
    }
}

/// A volatile secure submessage, owned (it is handled after the decode's borrows end).
enum VolatileItem {
    Data(i64, Vec<u8>),
    /// The sequence numbers a GAP says are not for us (at most 256 past the range start).
    Gap(Vec<i64>),
    Heartbeat {
        first: i64,
        last: i64,
    },
    AckNack {
        base: i64,
    },
}

impl VolatileItem {
    fn of(sm: &Submessage<'_>) -> Option<Self> {
        match sm {
            Submessage::Data(d) if d.writer_id == VOLATILE_MESSAGE_SECURE_WRITER => {
                let DataPayload::Data(p) = d.payload else {
                    return None;
                };
                Some(VolatileItem::Data(d.writer_sn.0, p.to_vec()))
            }
            Submessage::Gap(g) if g.writer_id == VOLATILE_MESSAGE_SECURE_WRITER => {
                let (start, base) = (g.gap_start.0, g.gap_list.bitmap_base().0);
                let range = (start..base).take(crate::wire::MAX_SET_BITS as usize);
                let listed = g.gap_list.iter().map(|s| s.0);
                Some(VolatileItem::Gap(range.chain(listed).collect()))
            }
            Submessage::Heartbeat(h) if h.writer_id == VOLATILE_MESSAGE_SECURE_WRITER => {
                Some(VolatileItem::Heartbeat {
                    first: h.first_sn.0,
                    last: h.last_sn.0,
                })
            }
            Submessage::AckNack(a) if a.reader_id == VOLATILE_MESSAGE_SECURE_READER => {
                Some(VolatileItem::AckNack {
                    base: a.reader_sn_state.bitmap_base().0,
                })
            }
            _ => None,
        }
    }
}

/// The GUID prefix of a message's RTPS header.
pub(super) fn header_prefix(message: &[u8]) -> Option<GuidPrefix> {
    message
        .get(8..Header::LEN)
        .and_then(|b| <[u8; 12]>::try_from(b).ok())
        .map(GuidPrefix)
}

/// One submessage, header included.
fn submessage_bytes(sm: &Submessage<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    sm.emit(&mut out);
    out
}

/// A datagram to `remote`: INFO_DST, then each of `plain` (whole submessages) protected with
/// the KxKey (§7.4.4.4: the volatile secure endpoints' submessages are always protected).
fn secure_datagram(
    ours: GuidPrefix,
    remote: GuidPrefix,
    peer: &mut Peer,
    plain: &[Vec<u8>],
) -> Option<Transmit> {
    if peer.destinations.is_empty() {
        return None;
    }
    let dst = InfoDst {
        endian: Endianness::Little,
        guid_prefix: remote,
    };
    let mut buf = Vec::new();
    emit_message(&Header::new(ours), &[Submessage::InfoDst(dst)], &mut buf);
    for sm in plain {
        if let Err(e) = encode_submessage(&mut peer.kx, sm, &mut [], Endianness::Little, &mut buf) {
            log::warn!("a volatile secure submessage could not be protected: {e}");
            return None;
        }
    }
    Some(Transmit::new(peer.destinations.clone(), buf))
}

/// The most submessages walked to find the end of a protected message.
const MAX_WALKED: usize = 4096;

/// `datagram` up to the end of its SRTPS_POSTFIX. Fast DDS 2.9 built with statistics appends a
/// vendor submessage after the protected message (`RTPSMessageGroup::send`,
/// `add_statistics_submessage`): from a Fast DDS sender it is cut off here, unread (nothing
/// vouches for it). From any other sender, and when no SRTPS_POSTFIX is found, the datagram is
/// decoded whole (and bytes after the postfix refuse it).
fn without_trailer(datagram: &[u8]) -> &[u8] {
    if datagram.get(6..8) != Some(&crate::wire::VendorId::FAST_DDS.0[..]) {
        return datagram;
    }
    let mut at = Header::LEN;
    for _ in 0..MAX_WALKED {
        let rest = datagram.get(at..).unwrap_or_default();
        let Some(len) = submessage_len(rest) else {
            break;
        };
        let id = rest.first().copied();
        at = at.saturating_add(len);
        if id == Some(crate::wire::security::SRTPS_POSTFIX) {
            return datagram.get(..at).unwrap_or(datagram);
        }
    }
    datagram
}

/// The length (header included) of the submessage at the start of `rest`; `None` when its
/// header is cut. A length of 0 extends to the end (RTPS 2.5 §9.4.5.1.3).
fn submessage_len(rest: &[u8]) -> Option<usize> {
    let h = SubmessageHeader::parse(&mut CdrReader::new(rest, Endianness::Big)).ok()?;
    let body = usize::from(h.octets_to_next_header);
    if body == 0 && !matches!(h.id, PAD | INFO_TS) {
        return Some(rest.len());
    }
    Some(SubmessageHeader::LEN.saturating_add(body))
}

/// True when a submessage of `message` (after its header) has id `id`.
fn has_submessage(message: &[u8], id: u8) -> bool {
    let mut rest = message.get(Header::LEN..).unwrap_or_default();
    while let Some(len) = submessage_len(rest) {
        if rest.first() == Some(&id) {
            return true;
        }
        rest = rest.get(len..).unwrap_or_default();
    }
    false
}

/// True when `datagram` carries a submessage of a user endpoint, or a vendor submessage
/// (siftdds's abbreviated samples), which RTPS protection covers (`maybe_rtps_protected`).
/// The secure submessages of the volatile endpoints are protected already.
fn carries_user_submessage(datagram: &[u8]) -> bool {
    let Ok((_, iter)) = Message::parse(datagram) else {
        return true;
    };
    iter.with_understood(|_| true).any(|o| match o {
        SubmessageOutcome::Accept(sm) => concerns_user_endpoint(&sm),
        SubmessageOutcome::NotUnderstood { id, .. } => id >= 0x80,
        SubmessageOutcome::Malformed(_) => true,
    })
}

/// True when `sm` is from or to a user endpoint, or a secure SEDP or WLP endpoint: what RTPS
/// protection must cover (Cyclone DDS 0.10 `maybe_rtps_protected`).
pub(super) fn concerns_user_endpoint(sm: &Submessage<'_>) -> bool {
    let id = match sm {
        Submessage::Data(d) => d.writer_id,
        Submessage::DataFrag(d) => d.writer_id,
        Submessage::Heartbeat(h) => h.writer_id,
        Submessage::HeartbeatFrag(h) => h.writer_id,
        Submessage::Gap(g) => g.writer_id,
        Submessage::AckNack(a) => a.reader_id,
        Submessage::NackFrag(n) => n.reader_id,
        _ => return false,
    };
    !id.is_builtin() || super::sedp::is_secure_builtin(id)
}

/// The endpoint whose submessage `sm` (whole) is, and whether it is the writer's side:
/// DATA, DATA_FRAG, HEARTBEAT, HEARTBEAT_FRAG and GAP are their writer's, ACKNACK and
/// NACK_FRAG their reader's (RTPS 2.5 §8.3.7; the entity ids are octets, whatever the E flag).
fn endpoint_of(sm: &[u8]) -> Option<(EntityId, bool)> {
    let body = sm.get(SubmessageHeader::LEN..)?;
    let (at, writer): (usize, bool) = match *sm.first()? {
        DATA | DATA_FRAG => (8, true),
        HEARTBEAT | HEARTBEAT_FRAG | GAP => (4, true),
        ACKNACK | NACK_FRAG => (0, false),
        _ => return None,
    };
    let id = <[u8; 4]>::try_from(body.get(at..at.checked_add(4)?)?).ok()?;
    Some((EntityId(id), writer))
}

/// The entity id of the remote endpoint a submessage of ours addresses: the readerId of a
/// writer's DATA, DATA_FRAG, HEARTBEAT, HEARTBEAT_FRAG or GAP, the writerId of a reader's
/// ACKNACK or NACK_FRAG.
fn remote_entity_of(sm: &[u8]) -> Option<EntityId> {
    let body = sm.get(SubmessageHeader::LEN..)?;
    let at: usize = match *sm.first()? {
        DATA | DATA_FRAG | ACKNACK | NACK_FRAG => 4,
        HEARTBEAT | HEARTBEAT_FRAG | GAP => 0,
        _ => return None,
    };
    let id = <[u8; 4]>::try_from(body.get(at..at.checked_add(4)?)?).ok()?;
    Some(EntityId(id))
}

/// True for an interpreter submessage (RTPS 2.5 §8.3.7: INFO_TS, INFO_SRC, INFO_DST,
/// INFO_REPLY, INFO_REPLY_IP4) or PAD.
fn is_interpreter(id: u8) -> bool {
    use crate::wire::submessage::{INFO_DST, INFO_REPLY, INFO_REPLY_IP4, INFO_SRC};
    matches!(
        id,
        PAD | INFO_TS | INFO_SRC | INFO_DST | INFO_REPLY | INFO_REPLY_IP4
    )
}

/// `sm` (whole) with an explicit octetsToNextHeader: a submessage that extends to the end of
/// its message (length 0) is emitted again with its length, as it will no longer be last.
fn normalized(sm: &[u8]) -> Result<Vec<u8>, CryptoError> {
    let h = SubmessageHeader::parse(&mut CdrReader::new(sm, Endianness::Big))?;
    if h.octets_to_next_header != 0 {
        return Ok(sm.to_vec());
    }
    let body = sm.get(SubmessageHeader::LEN..).unwrap_or_default();
    let parsed = Submessage::parse(h, body)?.ok_or(CryptoError::Invalid("submessage"))?;
    Ok(submessage_bytes(&parsed))
}

/// A DATA (whole) with its serialized payload replaced by its encode_serialized_payload
/// (§9.5.3.3.4.1), or a DATA_FRAG with the fragments it carries replaced by theirs; the inline
/// QoS stays in clear. A DATA without a data payload (a dispose or a key) is returned as it is.
///
/// Fragments: DDS-Security 1.1 §8.5.1.9.1 hands encode_serialized_payload the serialized
/// payload, which suggests encoding before fragmenting; both vendors encode each DATA_FRAG's
/// fragments on their own instead (Fast DDS 2.9 `RTPSMessageGroup::add_data_frag`, Cyclone
/// 0.10 `create_fragment_message` → `nn_xmsg_serdata` and `decode_DataFrag` on receive), with
/// fragmentSize and sampleSize those of the plain sample. That is the form that interoperates,
/// so it is the one used here.
fn protect_payload(session: &mut SenderSession, sm: &[u8]) -> Result<Vec<u8>, CryptoError> {
    transform_payload(sm, |p, out| encode_serialized_payload(session, p, out))
}

/// A DATA (whole) with its protected serialized payload replaced by the plain one
/// (§9.5.3.3.5.1, decode_serialized_payload), or a DATA_FRAG with its protected fragments
/// replaced by the plain ones (see [`protect_payload`]).
fn unprotect_payload(remote: &mut RemoteSender, sm: &[u8]) -> Result<Vec<u8>, CryptoError> {
    transform_payload(sm, |p, out| decode_serialized_payload(remote, p, out))
}

/// `sm` (a DATA or DATA_FRAG, whole) with its data payload or fragments replaced by what
/// `transform` makes of them; any other submessage, or a DATA without a data payload, as it
/// is.
fn transform_payload(
    sm: &[u8],
    transform: impl FnOnce(&[u8], &mut Vec<u8>) -> Result<(), CryptoError>,
) -> Result<Vec<u8>, CryptoError> {
    let h = SubmessageHeader::parse(&mut CdrReader::new(sm, Endianness::Big))?;
    let body = sm.get(SubmessageHeader::LEN..).unwrap_or_default();
    let mut out = Vec::with_capacity(sm.len().saturating_add(64));
    match Submessage::parse(h, body)? {
        Some(Submessage::Data(d)) => {
            let DataPayload::Data(p) = d.payload else {
                return Ok(sm.to_vec());
            };
            transform(p, &mut out)?;
            Ok(submessage_bytes(&Submessage::Data(Data {
                payload: DataPayload::Data(&out),
                ..d
            })))
        }
        Some(Submessage::DataFrag(f)) => {
            transform(f.fragments, &mut out)?;
            Ok(submessage_bytes(&Submessage::DataFrag(DataFrag {
                fragments: &out,
                ..f
            })))
        }
        _ => Ok(sm.to_vec()),
    }
}

/// `common` (our participant key material) with a fresh receiver-specific key id and key
/// drawn from `rng`, for one receiver (§9.5.2.1.1: master_receiver_specific_key).
fn receiver_specific_key_material(
    common: &KeyMaterial,
    rng: &mut OsRandom,
) -> Result<KeyMaterial, CryptoError> {
    let fresh = KeyMaterial::generate(common.transformation_kind, true, rng)?;
    Ok(KeyMaterial {
        receiver_specific_key_id: fresh.receiver_specific_key_id,
        master_receiver_specific_key: fresh.master_receiver_specific_key,
        ..common.clone()
    })
}

/// The one participant `message` is for: the GUID prefix its INFO_DST submessages all name,
/// `None` when it has none, names several, or names GUIDPREFIX_UNKNOWN (RTPS 2.5 §8.3.7.7).
fn single_destination(message: &[u8]) -> Option<GuidPrefix> {
    let mut rest = message.get(Header::LEN..)?;
    let mut found = None;
    while !rest.is_empty() {
        let len = submessage_len(rest)?;
        let (sm, tail) = rest.split_at(len.min(rest.len()));
        rest = tail;
        if sm.first() != Some(&INFO_DST) {
            continue;
        }
        let prefix = GuidPrefix(sm.get(4..16)?.try_into().ok()?);
        if prefix == GuidPrefix::UNKNOWN || found.is_some_and(|f| f != prefix) {
            return None;
        }
        found = Some(prefix);
    }
    found
}

#[cfg(test)]
pub(super) mod tests;
