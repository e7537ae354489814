//! Authentication (`Authentication`): the BuiltinParticipantStatelessMessage writer and reader
//! (DDS-Security 1.1 §7.4.3, entity ids 0x000201c3 / 0x000201c4, best effort, keyless
//! `ParticipantGenericMessage`s of class `dds.sec.auth`) and one PKI-DH handshake per remote
//! participant that announces an identity token (`security::auth`).
//!
//! Owns: our identity and permissions document, the handshake state per remote participant,
//! the stateless writer's sequence numbers and the resend schedule. Produces: datagrams, and
//! [`AuthOutcome`]s the participant acts on (match the peer on SEDP, or report the refusal).
//!
//! Must not: match anything itself (SEDP matching waits in `Discovery` until this part says
//! so), keep state for more peers than discovery remembers, or resend without bound (a
//! handshake message is resent [`MAX_RESENDS`] times, then the handshake is failed).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::cdr::{CdrWriter, EncapsulationHeader, EncapsulationKind, Endianness};
use crate::core::Transmit;
use crate::core::discovery::ParticipantProxyData;
use crate::security::auth::{
    AuthError, Authenticated, HANDSHAKE_FINAL_CLASS_ID, HANDSHAKE_REPLY_CLASS_ID,
    HANDSHAKE_REQUEST_CLASS_ID, Handshake, HandshakeRole, LocalIdentity, handshake_role,
};
use crate::time::{Instant, Now};
use crate::wire::data_holder::{
    DataHolder, GMCLASSID_SECURITY_AUTH_HANDSHAKE, MessageIdentity, ParticipantGenericMessage,
};
use crate::wire::submessage::{Data, DataFrag, DataPayload, InfoDst, Submessage};
use crate::wire::{EntityId, Guid, GuidPrefix, Header, Locator, SequenceNumber, emit_message};

/// BuiltinParticipantStatelessMessageWriter (§7.4.3.3).
pub const STATELESS_MESSAGE_WRITER: EntityId = EntityId([0, 2, 1, 0xc3]);
/// BuiltinParticipantStatelessMessageReader (§7.4.3.3).
pub const STATELESS_MESSAGE_READER: EntityId = EntityId([0, 2, 1, 0xc4]);
/// BuiltinEndpointSet bit of the stateless writer (§7.4.7.1).
pub const BUILTIN_PARTICIPANT_STATELESS_MESSAGE_WRITER: u32 = 1 << 22;
/// BuiltinEndpointSet bit of the stateless reader (§7.4.7.1).
pub const BUILTIN_PARTICIPANT_STATELESS_MESSAGE_READER: u32 = 1 << 23;
/// BuiltinEndpointSet bit of the secure SPDP writer (§7.4.7.1). We have none; we announce
/// the bit because Cyclone DDS takes a participant for secure (and starts a handshake) only
/// when it is set beside PID_IDENTITY_TOKEN (`ddsi_discovery.c`, `is_secure`).
pub const SPDP_RELIABLE_BUILTIN_PARTICIPANT_SECURE_WRITER: u32 = 1 << 26;
/// How often an unanswered handshake message is sent again (the topic is best effort).
pub const RESEND_PERIOD: core::time::Duration = core::time::Duration::from_secs(1);
/// How many times an unanswered message is resent before the handshake fails.
pub const MAX_RESENDS: u32 = 30;
/// Largest handshake message reassembled from DATA_FRAGs.
pub const MAX_HANDSHAKE_MESSAGE: usize = 256 * 1024;
/// Most sources with a handshake message under reassembly at once.
pub const MAX_PARTIAL_SOURCES: usize = 16;

/// A fragmented handshake message under reassembly.
struct Partial {
    sn: i64,
    data: Vec<u8>,
    have: Vec<bool>,
}

/// A participant's security configuration (the `dds.sec.*` properties, resolved).
#[derive(Debug)]
pub struct SecurityConfig {
    /// Our validated identity (`dds.sec.auth.*`).
    pub identity: LocalIdentity,
    /// Our signed permissions document (`dds.sec.access.permissions`) as read from its file,
    /// sent as `c.perm`.
    pub permissions_document: Vec<u8>,
    /// Governance `allow_unauthenticated_participants`: match participants that announce no
    /// identity token. False by default.
    pub allow_unauthenticated: bool,
    /// The verified governance document (`dds.sec.access.governance`, signed by the
    /// permissions CA). The participant applies the domain rule of its domain id: the RTPS,
    /// discovery and liveliness protection kinds and the per-topic metadata and data
    /// protection kinds. With it (and [`Self::permissions_ca`] and [`Self::permissions`])
    /// access control is enforced (`access.rs`). `None`: every protection kind is NONE and
    /// there is no access control.
    pub governance: Option<Arc<crate::security::access::governance::Governance>>,
    /// The permissions CA certificate, PEM (`dds.sec.access.permissions_ca`): a remote
    /// participant's permissions document (`c.perm`) must be signed by it.
    pub permissions_ca: Option<Vec<u8>>,
    /// Our verified permissions document (`dds.sec.access.permissions`).
    pub permissions: Option<Arc<crate::security::access::permissions::Permissions>>,
}

/// What a handshake message changed.
#[derive(Debug)]
pub(super) enum AuthOutcome {
    /// Authentication with the participant completed: it may be matched.
    Authenticated(GuidPrefix, Box<Authenticated>),
    /// Authentication failed; the reason is logged and reported.
    Failed(GuidPrefix, AuthError),
}

enum PeerState {
    /// We are the replier and wait for the Request.
    AwaitRequest,
    /// A handshake is under way.
    Running(Box<Handshake>),
    /// Completed; our last message (a Final or Reply) is kept to answer a repeat.
    Done(Option<DataHolder>),
    /// Failed; nothing more is sent.
    Failed,
}

struct Peer {
    state: PeerState,
    destinations: Vec<Locator>,
    /// The identity of the peer's last message (echoed as related_message_identity).
    related: MessageIdentity,
    next_resend: Option<Instant>,
    resends: u32,
}

/// The participant's authentication part (see the module overview).
pub(super) struct Authentication {
    config: Arc<SecurityConfig>,
    ours: GuidPrefix,
    /// Our SPDP data as `c.pdata`: a big-endian parameter list without encapsulation header
    /// (Cyclone's `validate_pdata` reads it so).
    pdata: Vec<u8>,
    sn: i64,
    peers: BTreeMap<GuidPrefix, Peer>,
    partials: BTreeMap<GuidPrefix, Partial>,
    outbox: Vec<Transmit>,
}

impl Authentication {
    pub(super) fn new(config: Arc<SecurityConfig>, local: &ParticipantProxyData) -> Self {
        let pdata = local
            .to_payload(Endianness::Big)
            .ok()
            .and_then(|p| p.get(4..).map(<[u8]>::to_vec))
            .unwrap_or_default();
        Authentication {
            ours: local.guid_prefix,
            config,
            pdata,
            sn: 0,
            peers: BTreeMap::new(),
            partials: BTreeMap::new(),
            outbox: Vec::new(),
        }
    }

    fn now_unix(now: Now) -> i64 {
        i64::from(now.wall.seconds)
    }

    /// A participant announced an identity token: start the handshake if we initiate
    /// (§8.8.2: the smaller GUID prefix does), else wait for its Request.
    pub(super) fn discovered(
        &mut self,
        now: Now,
        remote: GuidPrefix,
        destinations: Vec<Locator>,
    ) -> Option<AuthOutcome> {
        if self.peers.contains_key(&remote) {
            if let Some(p) = self.peers.get_mut(&remote) {
                p.destinations = destinations;
            }
            return None;
        }
        let mut peer = Peer {
            state: PeerState::AwaitRequest,
            destinations,
            related: MessageIdentity::default(),
            next_resend: None,
            resends: 0,
        };
        let mut outcome = None;
        let mut request = None;
        if handshake_role(&self.ours, &remote) == HandshakeRole::Initiator {
            let identity = &self.config.identity;
            let perm = &self.config.permissions_document;
            match Handshake::begin_request(identity, remote, &self.pdata, perm) {
                Ok((hs, token)) => {
                    request = Some(token);
                    peer.state = PeerState::Running(Box::new(hs));
                    peer.next_resend = Some(now.mono.saturating_add(RESEND_PERIOD));
                }
                Err(e) => {
                    peer.state = PeerState::Failed;
                    outcome = Some(AuthOutcome::Failed(remote, e));
                }
            }
        }
        self.peers.insert(remote, peer);
        if let Some(token) = request {
            let t = self.message(remote, token);
            self.outbox.extend(t);
        }
        outcome
    }

    /// Forgets a participant (lease expired or it left).
    pub(super) fn remove(&mut self, remote: GuidPrefix) {
        self.peers.remove(&remote);
        self.partials.remove(&remote);
    }

    /// A DATA for the stateless reader. A message that does not decode, is not for us or is
    /// not an authentication message is dropped (`false`).
    pub(super) fn handle_data(
        &mut self,
        now: Now,
        src: GuidPrefix,
        d: &Data<'_>,
    ) -> (bool, Option<AuthOutcome>) {
        let DataPayload::Data(payload) = d.payload else {
            return (false, None);
        };
        self.handle_payload(now, src, payload)
    }

    /// A DATA_FRAG for the stateless reader: Cyclone fragments its Reply (about 5 KB) at
    /// 1344 bytes. One sample per source is reassembled at a time, at most
    /// [`MAX_HANDSHAKE_MESSAGE`] bytes and [`MAX_PARTIAL_SOURCES`] sources.
    pub(super) fn handle_frag(
        &mut self,
        now: Now,
        src: GuidPrefix,
        f: &DataFrag<'_>,
    ) -> (bool, Option<AuthOutcome>) {
        let size = usize::try_from(f.sample_size).unwrap_or(usize::MAX);
        let frag = usize::from(f.fragment_size);
        if size > MAX_HANDSHAKE_MESSAGE || frag == 0 || f.key {
            return (false, None);
        }
        let sn = f.writer_sn.0;
        if !self.partials.contains_key(&src) && self.partials.len() >= MAX_PARTIAL_SOURCES {
            return (false, None);
        }
        let total = size.div_ceil(frag);
        let fresh = || Partial {
            sn,
            data: vec![0; size],
            have: vec![false; total],
        };
        let partial = self.partials.entry(src).or_insert_with(fresh);
        if partial.sn != sn || partial.data.len() != size {
            *partial = fresh();
        }
        let first = usize::try_from(f.fragment_starting_num.0)
            .unwrap_or(0)
            .saturating_sub(1);
        for (i, chunk) in f
            .fragments
            .chunks(frag)
            .take(usize::from(f.fragments_in_submessage))
            .enumerate()
        {
            let n = first.saturating_add(i);
            let Some(dst) = partial.data.get_mut(n.saturating_mul(frag)..) else {
                return (false, None);
            };
            for (d, s) in dst.iter_mut().zip(chunk) {
                *d = *s;
            }
            if let Some(h) = partial.have.get_mut(n) {
                *h = true;
            }
        }
        if !partial.have.iter().all(|h| *h) {
            return (true, None);
        }
        let Some(done) = self.partials.remove(&src) else {
            return (true, None);
        };
        self.handle_payload(now, src, &done.data)
    }

    fn handle_payload(
        &mut self,
        now: Now,
        src: GuidPrefix,
        payload: &[u8],
    ) -> (bool, Option<AuthOutcome>) {
        let Ok((_, mut r)) = EncapsulationHeader::body(payload) else {
            return (false, None);
        };
        let Ok(msg) = ParticipantGenericMessage::parse(&mut r) else {
            return (false, None);
        };
        if msg.message_identity.source_guid.prefix != src {
            return (false, None);
        }
        // Other classes (Cyclone's `dds.sec.auth_request`, §9.3.2.5.4) are for features we do
        // not have: understood, ignored.
        if msg.message_class_id != GMCLASSID_SECURITY_AUTH_HANDSHAKE {
            return (true, None);
        }
        // A message for another participant (sent to a multicast or shared locator).
        let dest = msg.destination_participant_key.prefix;
        if dest != GuidPrefix::UNKNOWN && dest != self.ours {
            return (true, None);
        }
        let Some(token) = msg.message_data.first() else {
            return (false, None);
        };
        (
            true,
            self.handle_token(now, src, msg.message_identity, token),
        )
    }

    fn handle_token(
        &mut self,
        now: Now,
        src: GuidPrefix,
        identity: MessageIdentity,
        token: &DataHolder,
    ) -> Option<AuthOutcome> {
        let now_unix = Self::now_unix(now);
        // The participant routes only messages of participants discovery knows, so this
        // map is as bounded as discovery's.
        let peer = self.peers.entry(src).or_insert_with(|| Peer {
            state: PeerState::AwaitRequest,
            destinations: Vec::new(),
            related: MessageIdentity::default(),
            next_resend: None,
            resends: 0,
        });
        peer.related = identity;
        let config = &self.config;
        let replier = handshake_role(&self.ours, &src) == HandshakeRole::Replier;
        let (reply, outcome, state) = match (&mut peer.state, token.class_id.as_str()) {
            // Already authenticated: the peer lost our Reply (or Final) and repeats itself.
            (PeerState::Done(Some(last)), HANDSHAKE_REQUEST_CLASS_ID) if replier => {
                (Some(last.clone()), None, None)
            }
            (PeerState::Done(Some(last)), HANDSHAKE_REPLY_CLASS_ID) if !replier => {
                (Some(last.clone()), None, None)
            }
            // A repeat of the Request we are answering: the same Reply again.
            (PeerState::Running(hs), HANDSHAKE_REQUEST_CLASS_ID)
                if replier && hs.answers(token) =>
            {
                (Some(hs.last_sent().clone()), None, None)
            }
            // A Request, or a new one (another challenge1: the peer began again): a fresh Reply.
            (PeerState::AwaitRequest | PeerState::Running(_), HANDSHAKE_REQUEST_CLASS_ID)
                if replier =>
            {
                match Handshake::begin_reply(
                    &config.identity,
                    src,
                    token,
                    &self.pdata,
                    &config.permissions_document,
                    now_unix,
                ) {
                    Ok((hs, reply)) => (Some(reply), None, Some(PeerState::Running(Box::new(hs)))),
                    Err(e) => (
                        None,
                        Some(AuthOutcome::Failed(src, e)),
                        Some(PeerState::Failed),
                    ),
                }
            }
            (PeerState::Running(hs), HANDSHAKE_REPLY_CLASS_ID) if !replier => {
                match hs.process_reply(&config.identity, token, now_unix) {
                    Ok((fin, done)) => (
                        Some(fin.clone()),
                        Some(AuthOutcome::Authenticated(src, Box::new(done))),
                        Some(PeerState::Done(Some(fin))),
                    ),
                    Err(e) => (
                        None,
                        Some(AuthOutcome::Failed(src, e)),
                        Some(PeerState::Failed),
                    ),
                }
            }
            (PeerState::Running(hs), HANDSHAKE_FINAL_CLASS_ID) if replier => {
                let last = hs.last_sent().clone();
                match hs.process_final(token) {
                    Ok(done) => (
                        None,
                        Some(AuthOutcome::Authenticated(src, Box::new(done))),
                        Some(PeerState::Done(Some(last))),
                    ),
                    Err(e) => (
                        None,
                        Some(AuthOutcome::Failed(src, e)),
                        Some(PeerState::Failed),
                    ),
                }
            }
            _ => (None, None, None),
        };
        if let Some(state) = state {
            peer.state = state;
            // The replier resends its Reply until the Final arrives.
            peer.next_resend = match &peer.state {
                PeerState::Running(_) => Some(now.mono.saturating_add(RESEND_PERIOD)),
                _ => None,
            };
            peer.resends = 0;
        }
        if let Some(token) = reply {
            let t = self.message(src, token);
            self.outbox.extend(t);
        }
        outcome
    }

    /// One DATA on the stateless topic to `remote` (INFO_DST names it, as the vendors do).
    fn message(&mut self, remote: GuidPrefix, token: DataHolder) -> Option<Transmit> {
        let peer = self.peers.get(&remote)?;
        if peer.destinations.is_empty() {
            return None;
        }
        self.sn = self.sn.saturating_add(1);
        let msg = ParticipantGenericMessage {
            message_identity: MessageIdentity {
                source_guid: Guid::new(self.ours, STATELESS_MESSAGE_WRITER),
                sequence_number: self.sn,
            },
            related_message_identity: peer.related,
            destination_participant_key: Guid::new(remote, EntityId::PARTICIPANT),
            destination_endpoint_key: Guid::UNKNOWN,
            source_endpoint_key: Guid::UNKNOWN,
            message_class_id: GMCLASSID_SECURITY_AUTH_HANDSHAKE.to_owned(),
            message_data: vec![token],
        };
        let payload = generic_message_payload(&msg);
        let data = Data {
            endian: Endianness::Little,
            extra_flags: 0,
            reader_id: STATELESS_MESSAGE_READER,
            writer_id: STATELESS_MESSAGE_WRITER,
            writer_sn: SequenceNumber(self.sn),
            inline_qos: None,
            payload: DataPayload::Data(&payload),
        };
        let dst = InfoDst {
            endian: Endianness::Little,
            guid_prefix: remote,
        };
        let mut buf = Vec::new();
        emit_message(
            &Header::new(self.ours),
            &[Submessage::InfoDst(dst), Submessage::Data(data)],
            &mut buf,
        );
        Some(Transmit::new(peer.destinations.clone(), buf))
    }

    /// Where handshake messages to `remote` go (its metatraffic unicast locators, as
    /// discovery selected them); empty for a participant without a handshake.
    pub(super) fn destinations(&self, remote: GuidPrefix) -> Vec<Locator> {
        self.peers
            .get(&remote)
            .map_or_else(Vec::new, |p| p.destinations.clone())
    }

    /// Resends what is unanswered; fails handshakes that stay unanswered.
    pub(super) fn handle_timeout(&mut self, now: Now) -> Vec<AuthOutcome> {
        let mut out = Vec::new();
        let due: Vec<GuidPrefix> = self
            .peers
            .iter()
            .filter(|(_, p)| p.next_resend.is_some_and(|t| t <= now.mono))
            .map(|(k, _)| *k)
            .collect();
        for remote in due {
            let Some(peer) = self.peers.get_mut(&remote) else {
                continue;
            };
            peer.resends = peer.resends.saturating_add(1);
            if peer.resends > MAX_RESENDS {
                peer.state = PeerState::Failed;
                peer.next_resend = None;
                out.push(AuthOutcome::Failed(
                    remote,
                    AuthError::Token("no answer".into()),
                ));
                continue;
            }
            peer.next_resend = Some(now.mono.saturating_add(RESEND_PERIOD));
            let PeerState::Running(hs) = &peer.state else {
                continue;
            };
            let token = hs.last_sent().clone();
            let t = self.message(remote, token);
            self.outbox.extend(t);
        }
        out
    }

    /// The next resend.
    pub(super) fn poll_timeout(&self) -> Option<Instant> {
        self.peers.values().filter_map(|p| p.next_resend).min()
    }

    /// The next handshake datagram.
    pub(super) fn poll_transmit(&mut self) -> Option<Transmit> {
        if self.outbox.is_empty() {
            None
        } else {
            Some(self.outbox.remove(0))
        }
    }
}

/// The serialized payload of a ParticipantGenericMessage (the stateless and the volatile
/// secure topics): CDR_LE encapsulation, then the message (alignment from the body's start),
/// padded to 4 octets.
pub(super) fn generic_message_payload(msg: &ParticipantGenericMessage) -> Vec<u8> {
    let mut payload = Vec::new();
    let mut w = CdrWriter::new(&mut payload, Endianness::Little);
    EncapsulationHeader::new(EncapsulationKind::Cdr, Endianness::Little).emit(&mut w);
    msg.emit(&mut w.nested());
    // Pad the payload to 4 bytes and say so in the encapsulation options (DDS-XTypes
    // 1.3 §7.6.3.1.2): Cyclone refuses a DATA whose length is not a multiple of 4.
    let pad = payload.len().wrapping_neg() & 3;
    payload.resize(payload.len().saturating_add(pad), 0);
    if let Some(options) = payload.get_mut(3) {
        *options = pad as u8;
    }
    payload
}
