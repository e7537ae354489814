//! The TypeLookup service's client side (DDS-XTypes 1.3 §7.6.3.3): the builtin request
//! writer (0x000300c3, BuiltinEndpointSet bit 12) and reply reader (0x000301c4, bit 15), as
//! Cyclone DDS numbers them. `TypeLookupClient::request` asks a remote participant for a
//! type by its TypeIdentifier (from PID_TYPE_INFORMATION); getTypes requests carry an RPC
//! SampleIdentity (our request writer's GUID and the request sample's sequence number) that
//! replies echo, and are matched to the outstanding request by it (Cyclone DDS 0.10's, which
//! echo none, by the type they answer). Each returned TypeObject
//! whose bytes hash to its identifier (§7.3.4.4) is kept in the [`TypeRegistry`]. When a
//! requested type refers to other types, the server is asked for its whole dependency list
//! with getTypeDependencies (§7.6.3.3.4; continuation points followed for at most
//! [`MAX_DEPENDENCY_PAGES`] replies), and each listed type not yet known is fetched with
//! getTypes. Alongside, the identifiers each returned TypeObject refers to are fetched in
//! turn, to [`MAX_DEPENDENCY_DEPTH`], so a server that answers getTypeDependencies with an
//! error, another operation or not at all (PyPI `cyclonedds` 11's) delays nothing; it is not asked
//! that operation again. When a
//! requested type and everything it reaches are known, it is reported resolved; when a fetch
//! it needs is given up (no answer holding it after [`MAX_ATTEMPTS`] requests), it is reported
//! failed and not asked for again.
//!
//! Must not: keep more than [`MAX_OUTSTANDING_PER_PEER`] outstanding requests per peer or
//! [`MAX_OUTSTANDING`] in all (more wait in a queue of [`MAX_QUEUED_FETCHES`]), more than
//! [`MAX_REGISTRY_TYPES`] TypeObjects, [`MAX_ROOTS`] unresolved or [`MAX_GIVEN_UP`] failed
//! requested types; accept a
//! TypeObject that does not hash to the identifier it answers, or a reply to a request it
//! did not send; read clocks or perform I/O (the retry timer is driven through
//! `handle_timeout`/`poll_timeout`).

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use bytes::Bytes;

use crate::core::discovery::{BuiltinEndpointSet, ParticipantProxyData};
use crate::core::reader::{Reader, ReaderConfig};
use crate::core::writer::{QuietWriter, Writer, WriterConfig};
use crate::core::{ChangeKind, RemoteReader, RemoteWriter, Transmit, WriteRequest};
use crate::qos::History;
use crate::time::{Instant, Now, Timestamp};
use crate::types::xtypes::type_lookup::{
    ReplyReturn, RequestId, TypeLookupCall, TypeLookupReply, request_payload,
};
use crate::types::xtypes::{EquivalenceHash, TypeIdentifier, TypeObject};
use crate::wire::submessage::{AckNack, NackFrag, Submessage};
use crate::wire::{Guid, GuidPrefix, Locator};

use super::type_lookup::{
    TL_SVC_REPLY_READER, TL_SVC_REPLY_WRITER, TL_SVC_REQUEST_READER, TL_SVC_REQUEST_WRITER,
};

/// Requested types given up on that are remembered (and not asked for again).
pub const MAX_GIVEN_UP: usize = 256;

/// Outstanding (sent, unanswered) requests per peer.
pub const MAX_OUTSTANDING_PER_PEER: usize = 4;
/// Outstanding requests in all.
pub const MAX_OUTSTANDING: usize = 32;
/// Fetches waiting for a free request slot; more are dropped (counted).
pub const MAX_QUEUED_FETCHES: usize = 256;
/// An unanswered request is sent again after this long.
pub const RETRY_AFTER: Duration = Duration::from_secs(2);
/// Times a request is sent before it is given up.
pub const MAX_ATTEMPTS: u32 = 3;
/// How deep dependencies of a requested type are followed.
pub const MAX_DEPENDENCY_DEPTH: usize = 8;
/// getTypeDependencies replies (pages, linked by continuation points) followed per type.
pub const MAX_DEPENDENCY_PAGES: usize = 8;
/// TypeObjects kept in the registry; later ones are refused (counted).
pub const MAX_REGISTRY_TYPES: usize = 1024;
/// Requested, not yet resolved types.
pub const MAX_ROOTS: usize = 64;
/// Replies kept in the reply reader's history.
const REPLY_HISTORY: u32 = 16;

/// Remote TypeObjects known to this participant, by equivalence hash (minimal and complete
/// hashes never collide in practice; the object records its own kind).
#[derive(Default, Debug)]
pub struct TypeRegistry {
    by_hash: BTreeMap<EquivalenceHash, TypeObject>,
}

impl TypeRegistry {
    /// The TypeObject `id` names, when `id` is a hash identifier of a known type.
    pub fn get(&self, id: &TypeIdentifier) -> Option<&TypeObject> {
        match id {
            TypeIdentifier::Minimal(h) | TypeIdentifier::Complete(h) => self.by_hash.get(h),
            _ => None,
        }
    }

    /// Number of TypeObjects kept.
    pub fn len(&self) -> usize {
        self.by_hash.len()
    }

    /// True when no TypeObject is kept.
    pub fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }

    /// Keeps `object` under `id`'s hash. False when the registry is full.
    fn insert(&mut self, id: &TypeIdentifier, object: TypeObject) -> bool {
        let (TypeIdentifier::Minimal(h) | TypeIdentifier::Complete(h)) = id else {
            return false;
        };
        if self.by_hash.contains_key(h) {
            return true;
        }
        if self.by_hash.len() >= MAX_REGISTRY_TYPES {
            return false;
        }
        self.by_hash.insert(*h, object);
        true
    }

    /// The first hash identifier reachable from `id` that is not known, `None` when the type
    /// and everything it refers to are known.
    pub fn first_missing(&self, id: &TypeIdentifier) -> Option<TypeIdentifier> {
        self.missing(id).into_iter().next()
    }

    /// Every hash identifier reachable from `id` that is not known. Bounded: the walk visits
    /// each known type once and stops after [`MAX_REGISTRY_TYPES`] of them.
    pub fn missing(&self, id: &TypeIdentifier) -> Vec<TypeIdentifier> {
        let mut stack = Vec::new();
        id.hashes(&mut stack);
        let mut seen: Vec<TypeIdentifier> = Vec::new();
        let mut out: Vec<TypeIdentifier> = Vec::new();
        while let Some(next) = stack.pop() {
            if seen.contains(&next) || out.contains(&next) {
                continue;
            }
            let Some(object) = self.get(&next) else {
                out.push(next);
                continue;
            };
            seen.push(next);
            if seen.len() > MAX_REGISTRY_TYPES {
                break;
            }
            stack.extend(object.dependencies());
        }
        out
    }
}

/// Counters of the client.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TypeClientStats {
    /// getTypes and getTypeDependencies requests written (retries included).
    pub requests_sent: u64,
    /// Replies matched to an outstanding request.
    pub replies_matched: u64,
    /// Replies that did not decode.
    pub bad_replies: u64,
    /// TypeObjects refused: not hashing to their identifier, or the registry full.
    pub objects_refused: u64,
    /// Requests given up after [`MAX_ATTEMPTS`].
    pub given_up: u64,
    /// Fetches or requested types dropped at a bound.
    pub dropped: u64,
}

/// What a request asks for `id`.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Op {
    /// getTypes: its TypeObject.
    Types,
    /// getTypeDependencies: the identifiers it reaches, from `continuation` (empty: the
    /// first page), the `page`th reply.
    Dependencies { continuation: Vec<u8>, page: usize },
}

struct Outstanding {
    peer: GuidPrefix,
    id: TypeIdentifier,
    op: Op,
    depth: usize,
    sent_at: Instant,
    attempts: u32,
}

struct Fetch {
    peer: GuidPrefix,
    id: TypeIdentifier,
    op: Op,
    depth: usize,
    attempts: u32,
}

/// The TypeLookup service's client side: requests out, replies in.
pub(super) struct TypeLookupClient {
    guid: Guid,
    request_writer: QuietWriter,
    reply_reader: Reader,
    /// The sequence number the request writer gives its next sample.
    next_sn: i64,
    /// By request sequence number.
    outstanding: BTreeMap<i64, Outstanding>,
    queue: VecDeque<Fetch>,
    /// Requested types not resolved yet, and the peer asked.
    roots: Vec<(TypeIdentifier, GuidPrefix)>,
    resolved: VecDeque<TypeIdentifier>,
    /// Requested types given up on, not yet reported.
    failed: VecDeque<TypeIdentifier>,
    /// The last [`MAX_GIVEN_UP`] requested types given up on: not asked for again.
    given_up: VecDeque<TypeIdentifier>,
    /// Peers that did not answer getTypeDependencies: asked per hash.
    no_dependencies: VecDeque<GuidPrefix>,
    pub(super) registry: TypeRegistry,
    pub(super) stats: TypeClientStats,
}

impl TypeLookupClient {
    /// The BuiltinEndpointSet bits of what this side implements (Cyclone DDS
    /// `DDSI_BUILTIN_ENDPOINT_TL_SVC_REQUEST_DATA_WRITER` = 1 << 12, `..._REPLY_DATA_READER`
    /// = 1 << 15).
    pub(super) const ENDPOINTS: u32 = BuiltinEndpointSet::TYPE_LOOKUP_REQUEST_WRITER
        | BuiltinEndpointSet::TYPE_LOOKUP_REPLY_READER;

    pub(super) fn new(prefix: GuidPrefix) -> Self {
        // §7.6.3.3.1: reliable, volatile, KEEP_LAST; unkeyed.
        let guid = Guid::new(prefix, TL_SVC_REQUEST_WRITER);
        let mut wc = WriterConfig::new(guid);
        wc.reliable = true;
        wc.keyed = false;
        wc.durability_transient_local = false;
        wc.history = History::KeepLast(MAX_OUTSTANDING as u32);
        let mut rc = ReaderConfig::new(Guid::new(prefix, TL_SVC_REPLY_READER), true, false);
        rc.history = History::KeepLast(REPLY_HISTORY);
        TypeLookupClient {
            guid,
            request_writer: QuietWriter::new(Writer::new(wc)),
            reply_reader: Reader::new(rc),
            next_sn: 1,
            outstanding: BTreeMap::new(),
            queue: VecDeque::new(),
            roots: Vec::new(),
            resolved: VecDeque::new(),
            failed: VecDeque::new(),
            given_up: VecDeque::new(),
            no_dependencies: VecDeque::new(),
            registry: TypeRegistry::default(),
            stats: TypeClientStats::default(),
        }
    }

    /// Matches the remote participant's request reader and reply writer, when announced.
    pub(super) fn add_remote_participant(
        &mut self,
        now: Now,
        p: &ParticipantProxyData,
        locators: &[Locator],
    ) {
        let set = p.available_builtin_endpoints;
        if set.contains(BuiltinEndpointSet::TYPE_LOOKUP_REQUEST_READER) {
            self.request_writer.matched_reader_add(
                now,
                RemoteReader {
                    guid: Guid::new(p.guid_prefix, TL_SVC_REQUEST_READER),
                    unicast_locators: locators.to_vec(),
                    multicast_locators: Vec::new(),
                    reliable: true,
                    expects_inline_qos: false,
                    wants_history: false,
                },
            );
        }
        if set.contains(BuiltinEndpointSet::TYPE_LOOKUP_REPLY_WRITER) {
            self.reply_reader.matched_writer_add(
                now,
                RemoteWriter {
                    guid: Guid::new(p.guid_prefix, TL_SVC_REPLY_WRITER),
                    unicast_locators: locators.to_vec(),
                    multicast_locators: Vec::new(),
                    reliable: true,
                    ownership_strength: 0,
                    lifespan: None,
                },
            );
        }
    }

    /// Forgets the peer: its matches, requests, queued fetches and unresolved types.
    pub(super) fn remove_remote_participant(&mut self, prefix: GuidPrefix) {
        self.request_writer
            .matched_reader_remove(Guid::new(prefix, TL_SVC_REQUEST_READER));
        self.reply_reader
            .matched_writer_remove(Guid::new(prefix, TL_SVC_REPLY_WRITER));
        self.outstanding.retain(|_, o| o.peer != prefix);
        self.queue.retain(|f| f.peer != prefix);
        self.roots.retain(|(_, p)| *p != prefix);
        self.no_dependencies.retain(|p| *p != prefix);
    }

    /// Asks `peer` for the type `id` (a hash identifier) and what it refers to. A type
    /// already known is reported resolved at once. False when `id` is no hash identifier or
    /// too many types are being resolved.
    pub(super) fn request(&mut self, now: Now, peer: GuidPrefix, id: TypeIdentifier) -> bool {
        if !matches!(id, TypeIdentifier::Minimal(_) | TypeIdentifier::Complete(_)) {
            return false;
        }
        if self.registry.first_missing(&id).is_none() {
            self.resolved.push_back(id);
            return true;
        }
        if self.roots.iter().any(|(r, _)| *r == id) {
            return true;
        }
        if self.given_up.contains(&id) {
            return false;
        }
        if self.roots.len() >= MAX_ROOTS {
            self.stats.dropped = self.stats.dropped.saturating_add(1);
            return false;
        }
        self.roots.push((id.clone(), peer));
        self.enqueue(peer, id, 0, 0);
        self.pump(now);
        true
    }

    /// Keeps `object`, which a peer sent inline in its discovery data rather than through
    /// TypeLookup, under its identifier `id` (computed from its bytes, so verified). False
    /// when the registry is full.
    pub(super) fn insert_inline(&mut self, id: &TypeIdentifier, object: TypeObject) -> bool {
        if self.registry.insert(id, object) {
            self.check_roots();
            true
        } else {
            self.stats.objects_refused = self.stats.objects_refused.saturating_add(1);
            false
        }
    }

    /// The next requested type that became resolved.
    pub(super) fn poll_resolved(&mut self) -> Option<TypeIdentifier> {
        self.resolved.pop_front()
    }

    /// The next requested type given up on (no answer after [`MAX_ATTEMPTS`], or no usable
    /// one).
    pub(super) fn poll_failed(&mut self) -> Option<TypeIdentifier> {
        self.failed.pop_front()
    }

    /// True when the requested type `id` was given up on (and is not asked for again).
    pub(super) fn has_given_up(&self, id: &TypeIdentifier) -> bool {
        self.given_up.contains(id)
    }

    /// Queues a getTypes of `id`, unless it is known or already asked for.
    fn enqueue(&mut self, peer: GuidPrefix, id: TypeIdentifier, depth: usize, attempts: u32) {
        if !matches!(id, TypeIdentifier::Minimal(_) | TypeIdentifier::Complete(_)) {
            return;
        }
        let pending = self
            .outstanding
            .values()
            .any(|o| o.id == id && o.op == Op::Types)
            || self.queue.iter().any(|f| f.id == id && f.op == Op::Types);
        if pending || self.registry.get(&id).is_some() {
            return;
        }
        self.push_fetch(Fetch {
            peer,
            id,
            op: Op::Types,
            depth,
            attempts,
        });
    }

    fn push_fetch(&mut self, f: Fetch) {
        if self.queue.len() >= MAX_QUEUED_FETCHES {
            self.stats.dropped = self.stats.dropped.saturating_add(1);
            return;
        }
        self.queue.push_back(f);
    }

    /// Queues getTypes of the types `id`'s TypeObject refers to (the per-hash walk).
    fn enqueue_direct_dependencies(&mut self, peer: GuidPrefix, id: &TypeIdentifier, depth: usize) {
        if depth >= MAX_DEPENDENCY_DEPTH {
            return;
        }
        let deps = self
            .registry
            .get(id)
            .map(TypeObject::dependencies)
            .unwrap_or_default();
        for d in deps {
            self.enqueue(peer, d, depth.saturating_add(1), 0);
        }
    }

    /// Queues a getTypeDependencies of `id` (XTypes 1.3 §7.6.3.3.4), unless `peer` does not
    /// answer that operation.
    fn enqueue_dependencies(&mut self, peer: GuidPrefix, id: TypeIdentifier, depth: usize) {
        if self.no_dependencies.contains(&peer) {
            return;
        }
        self.push_fetch(Fetch {
            peer,
            id,
            op: Op::Dependencies {
                continuation: Vec::new(),
                page: 0,
            },
            depth,
            attempts: 0,
        });
    }

    /// `peer` does not answer getTypeDependencies: remembered (bounded), and the types the
    /// request was for are walked per hash.
    fn dependencies_refused(&mut self, o: &Outstanding) {
        if !self.no_dependencies.contains(&o.peer) {
            if self.no_dependencies.len() >= MAX_GIVEN_UP {
                self.no_dependencies.pop_front();
            }
            self.no_dependencies.push_back(o.peer);
        }
        self.enqueue_direct_dependencies(o.peer, &o.id, o.depth);
    }

    /// Sends queued fetches while the bounds allow.
    fn pump(&mut self, now: Now) {
        let mut waiting = VecDeque::new();
        while let Some(f) = self.queue.pop_front() {
            let of_peer = self
                .outstanding
                .values()
                .filter(|o| o.peer == f.peer)
                .count();
            if self.outstanding.len() >= MAX_OUTSTANDING || of_peer >= MAX_OUTSTANDING_PER_PEER {
                waiting.push_back(f);
                continue;
            }
            self.send(now, f);
        }
        self.queue = waiting;
    }

    /// Writes one getTypes or getTypeDependencies request (XTypes 1.3 §7.6.3.3.4; RPC over DDS: the SampleIdentity
    /// is the request writer's GUID and the request sample's sequence number).
    fn send(&mut self, now: Now, f: Fetch) {
        let sn = self.next_sn;
        let request_id = RequestId {
            writer_guid: self.guid.to_bytes(),
            high: i32::try_from(sn >> 32).unwrap_or(i32::MAX),
            low: u32::try_from(sn & 0xFFFF_FFFF).unwrap_or(0),
        };
        let call = match &f.op {
            Op::Types => TypeLookupCall::GetTypes(vec![f.id.clone()]),
            Op::Dependencies { continuation, .. } => {
                TypeLookupCall::GetTypeDependencies(vec![f.id.clone()], continuation.clone())
            }
        };
        let payload = request_payload(&request_id, &call);
        let write = WriteRequest::new(ChangeKind::Alive, None, Bytes::from(payload));
        let Ok(written) = self.request_writer.write(now, write) else {
            self.stats.dropped = self.stats.dropped.saturating_add(1);
            return;
        };
        // The writer numbers its samples 1, 2, ...: the prediction holds; follow the writer
        // should it ever differ.
        self.next_sn = written.0.saturating_add(1);
        self.stats.requests_sent = self.stats.requests_sent.saturating_add(1);
        self.outstanding.insert(
            sn,
            Outstanding {
                peer: f.peer,
                id: f.id,
                op: f.op,
                depth: f.depth,
                sent_at: now.mono,
                attempts: f.attempts.saturating_add(1),
            },
        );
    }

    /// Routes a submessage from a remote reply writer and takes the replies it delivered.
    /// `None` when the submessage is not for the service.
    pub(super) fn handle_from_writer(
        &mut self,
        now: Now,
        writer: Guid,
        ts: Option<Timestamp>,
        sm: &Submessage<'_>,
    ) -> Option<()> {
        if writer.entity_id != TL_SVC_REPLY_WRITER {
            return None;
        }
        self.reply_reader
            .handle_writer_submessage(now, writer, ts, sm);
        while let Some(change) = self.reply_reader.poll_sample() {
            if change.kind != ChangeKind::Alive {
                continue;
            }
            self.take_reply(change.writer_guid.prefix, &change.data);
        }
        self.pump(now);
        Some(())
    }

    /// Handles one reply payload from participant `from`.
    fn take_reply(&mut self, from: GuidPrefix, payload: &[u8]) {
        let Ok(reply) = TypeLookupReply::from_payload(payload) else {
            self.stats.bad_replies = self.stats.bad_replies.saturating_add(1);
            return;
        };
        let sn = if reply.request_id.writer_guid == self.guid.to_bytes() {
            (i64::from(reply.request_id.high) << 32) | i64::from(reply.request_id.low)
        } else if let Some(sn) = self.unechoed_reply(from, &reply) {
            sn
        } else {
            // Replies go to every matched reply reader: those to other clients are not ours.
            return;
        };
        let Some(o) = self.outstanding.remove(&sn) else {
            return;
        };
        self.stats.replies_matched = self.stats.replies_matched.saturating_add(1);
        if let Op::Dependencies { page, .. } = o.op {
            self.take_dependencies(o, page, reply.ret);
            self.check_roots();
            return;
        }
        let ReplyReturn::Types(types) = reply.ret else {
            // An error or an answer to another call: try again later.
            self.retry_or_give_up(o);
            return;
        };
        let mut got = false;
        for t in types {
            if t.id != o.id || !t.verified {
                self.stats.objects_refused = self.stats.objects_refused.saturating_add(1);
                continue;
            }
            let has_dependencies = !t.object.dependencies().is_empty();
            if !self.registry.insert(&t.id, t.object) {
                self.stats.objects_refused = self.stats.objects_refused.saturating_add(1);
                continue;
            }
            got = true;
            if o.depth == 0 && has_dependencies {
                // A requested type: its whole dependency list in one call, alongside the
                // per-hash walk (a server that does not answer it delays nothing).
                self.enqueue_dependencies(o.peer, t.id.clone(), o.depth);
            }
            self.enqueue_direct_dependencies(o.peer, &t.id, o.depth);
        }
        if !got {
            // The server has not got it (an empty reply, or nothing that hashes to it), though
            // one of its endpoints announced it: asked again at the retry time, as if
            // unanswered, until the attempts are spent.
            self.outstanding.insert(sn, o);
            return;
        }
        self.check_roots();
    }

    /// Handles the reply to a getTypeDependencies of `o.id` (the `page`th): getTypes of each
    /// listed type not yet known, the next page while a continuation point is returned; a
    /// server answering otherwise is asked per hash.
    fn take_dependencies(&mut self, o: Outstanding, page: usize, ret: ReplyReturn) {
        let ReplyReturn::Dependencies(deps, continuation) = ret else {
            self.dependencies_refused(&o);
            return;
        };
        let depth = o.depth.saturating_add(1);
        for d in deps {
            self.enqueue(o.peer, d.type_id, depth, 0);
        }
        let next = page.saturating_add(1);
        if !continuation.is_empty() && next < MAX_DEPENDENCY_PAGES {
            self.push_fetch(Fetch {
                peer: o.peer,
                id: o.id,
                op: Op::Dependencies {
                    continuation,
                    page: next,
                },
                depth: o.depth,
                attempts: 0,
            });
        } else {
            // The list is complete (or its pages are exhausted): whatever it left out is
            // found by the per-hash walk from the objects fetched.
            self.enqueue_direct_dependencies(o.peer, &o.id, o.depth);
        }
    }

    /// The outstanding request a reply that echoes no request identity answers. Cyclone DDS
    /// 0.10 puts its own reply writer's GUID in `relatedRequestId` (each 4-byte word in
    /// little-endian order) and its reply's sequence number (`ddsi_typelookup.c`; Cyclone 11
    /// echoes the request): such a reply from `from` is taken for the request to `from` whose
    /// identifier one of its verified TypeObjects answers (the hash check, §7.3.4.4, makes
    /// the object right whoever asked for it).
    fn unechoed_reply(&self, from: GuidPrefix, reply: &TypeLookupReply) -> Option<i64> {
        let mut own = Guid::new(from, TL_SVC_REPLY_WRITER).to_bytes();
        for word in own.chunks_exact_mut(4) {
            word.reverse();
        }
        if reply.request_id.writer_guid != own {
            return None;
        }
        match &reply.ret {
            ReplyReturn::Types(types) => self
                .outstanding
                .iter()
                .find(|(_, o)| {
                    o.op == Op::Types
                        && o.peer == from
                        && types.iter().any(|t| t.verified && t.id == o.id)
                })
                .map(|(sn, _)| *sn),
            // A dependency list names no request: taken for the oldest getTypeDependencies
            // to `from` (what it lists is verified when fetched).
            ReplyReturn::Dependencies(..) => self
                .outstanding
                .iter()
                .find(|(_, o)| o.peer == from && matches!(o.op, Op::Dependencies { .. }))
                .map(|(sn, _)| *sn),
            ReplyReturn::Failed(_) => None,
        }
    }

    /// Moves roots whose whole closure is known to the resolved queue.
    fn check_roots(&mut self) {
        let registry = &self.registry;
        let resolved = &mut self.resolved;
        self.roots.retain(|(id, _)| {
            let done = registry.first_missing(id).is_none();
            if done {
                resolved.push_back(id.clone());
            }
            !done
        });
        self.drop_unneeded_dependency_requests();
    }

    /// Forgets getTypeDependencies requests of types no longer being resolved (resolved by
    /// the per-hash walk first, or given up): their answers are not needed.
    fn drop_unneeded_dependency_requests(&mut self) {
        let roots = &self.roots;
        let needed =
            |op: &Op, id: &TypeIdentifier| *op == Op::Types || roots.iter().any(|(r, _)| r == id);
        self.outstanding.retain(|_, o| needed(&o.op, &o.id));
        self.queue.retain(|f| needed(&f.op, &f.id));
    }

    fn retry_or_give_up(&mut self, o: Outstanding) {
        if o.attempts < MAX_ATTEMPTS {
            self.queue.push_front(Fetch {
                peer: o.peer,
                id: o.id,
                op: o.op,
                depth: o.depth,
                attempts: o.attempts,
            });
        } else if matches!(o.op, Op::Dependencies { .. }) {
            // getTypeDependencies unanswered: the types are still fetched per hash.
            self.dependencies_refused(&o);
        } else {
            self.give_up(&o.id);
        }
    }

    /// Gives up on `missing`: every root still needing it is dropped.
    fn give_up(&mut self, missing: &TypeIdentifier) {
        self.stats.given_up = self.stats.given_up.saturating_add(1);
        let registry = &self.registry;
        let (failed, given_up) = (&mut self.failed, &mut self.given_up);
        self.roots.retain(|(id, _)| {
            let keep = !registry.missing(id).contains(missing);
            if !keep {
                if given_up.len() >= MAX_GIVEN_UP {
                    given_up.pop_front();
                }
                given_up.push_back(id.clone());
                if failed.len() < MAX_GIVEN_UP {
                    failed.push_back(id.clone());
                }
            }
            keep
        });
        self.drop_unneeded_dependency_requests();
    }

    /// Routes an ACKNACK for the request writer. False when not ours.
    pub(super) fn handle_acknack(&mut self, now: Now, reader: Guid, a: &AckNack) -> bool {
        let ours = a.writer_id == TL_SVC_REQUEST_WRITER;
        if ours {
            self.request_writer.handle_acknack(now, reader, a);
        }
        ours
    }

    /// Routes a NACK_FRAG for the request writer. False when not ours.
    pub(super) fn handle_nack_frag(&mut self, now: Now, reader: Guid, n: &NackFrag) -> bool {
        let ours = n.writer_id == TL_SVC_REQUEST_WRITER;
        if ours {
            self.request_writer.handle_nack_frag(now, reader, n);
        }
        ours
    }

    /// The endpoints' timers and the request retry timer.
    pub(super) fn handle_timeout(&mut self, now: Now) {
        self.request_writer.handle_timeout(now);
        self.reply_reader.handle_timeout(now);
        let due: Vec<i64> = self
            .outstanding
            .iter()
            .filter(|(_, o)| o.sent_at.saturating_add(RETRY_AFTER) <= now.mono)
            .map(|(sn, _)| *sn)
            .collect();
        for sn in due {
            if let Some(o) = self.outstanding.remove(&sn) {
                self.retry_or_give_up(o);
            }
        }
        self.pump(now);
    }

    pub(super) fn poll_timeout(&self) -> Option<Instant> {
        let retry = self
            .outstanding
            .values()
            .map(|o| o.sent_at.saturating_add(RETRY_AFTER))
            .min();
        [
            self.request_writer.poll_timeout(),
            self.reply_reader.poll_timeout(),
            retry,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    pub(super) fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        self.request_writer
            .poll_transmit(now)
            .or_else(|| self.reply_reader.poll_transmit(now))
    }
}

#[cfg(test)]
mod tests;
