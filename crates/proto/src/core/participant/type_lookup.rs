//! The types this participant announces (DDS-XTypes 1.3 §7.6.3.2) and the TypeLookup
//! service that serves them (§7.6.3.3): [`LocalTypes`] keeps each local type's
//! [`TypeRepresentation`] by type name, registered when an endpoint of that type is created
//! (discovery attaches its TypeInformation to SEDP as PID_TYPE_INFORMATION);
//! [`TypeLookupServer`] is the builtin request reader (0x000300c4) and reply writer
//! (0x000301c3), BuiltinEndpointSet bits 13 and 14 (as Cyclone DDS numbers them), which
//! answers getTypes with our TypeObjects and getTypeDependencies with our dependency lists.
//!
//! Must not: hold more than [`MAX_LOCAL_TYPES`] types; keep more than [`MAX_QUEUED_REQUESTS`]
//! unanswered requests per requester or [`MAX_REPLIES`] unacknowledged replies; answer a
//! request it cannot decode (it is counted and dropped); perform I/O.

use std::collections::BTreeMap;

use bytes::Bytes;

use crate::core::discovery::{BuiltinEndpointSet, ParticipantProxyData};
use crate::core::reader::{Reader, ReaderConfig};
use crate::core::writer::{QuietWriter, Writer, WriterConfig};
use crate::core::{ChangeKind, RemoteReader, RemoteWriter, Transmit, WriteRequest};
use crate::qos::History;
use crate::time::{Instant, Now, Timestamp};
use crate::types::xtypes::type_lookup::{
    TypeLookupCall, TypeLookupRequest, TypeLookupReturn, reply_payload,
};
use crate::types::xtypes::{
    TypeIdentifier, TypeIdentifierWithDependencies, TypeIdentifierWithSize, TypeRepresentation,
};
use crate::wire::submessage::{AckNack, NackFrag, Submessage};
use crate::wire::{EntityId, Guid, GuidPrefix, Locator};

/// ENTITYID_TL_SVC_REQ_WRITER (DDS-XTypes 1.3 §7.6.3.3.4, Table 67).
pub const TL_SVC_REQUEST_WRITER: EntityId = EntityId([0, 3, 0, 0xc3]);
/// ENTITYID_TL_SVC_REQ_READER.
pub const TL_SVC_REQUEST_READER: EntityId = EntityId([0, 3, 0, 0xc4]);
/// ENTITYID_TL_SVC_REPLY_WRITER.
pub const TL_SVC_REPLY_WRITER: EntityId = EntityId([0, 3, 1, 0xc3]);
/// ENTITYID_TL_SVC_REPLY_READER.
pub const TL_SVC_REPLY_READER: EntityId = EntityId([0, 3, 1, 0xc4]);

/// Requests queued per requester before the oldest is replaced (KEEP_LAST).
pub const MAX_QUEUED_REQUESTS: usize = 8;
/// Replies kept for retransmission (KEEP_LAST on the reply writer).
pub const MAX_REPLIES: usize = 16;

/// The most distinct type names registered; later ones are announced by name only.
pub const MAX_LOCAL_TYPES: usize = 1024;

/// The local types by type name.
#[derive(Default)]
pub(super) struct LocalTypes {
    by_name: BTreeMap<String, &'static TypeRepresentation>,
}

impl LocalTypes {
    /// Registers `type_name`'s representation (the first registration of a name wins).
    pub(super) fn register(&mut self, type_name: &str, rep: &'static TypeRepresentation) {
        if self.by_name.len() < MAX_LOCAL_TYPES && !self.by_name.contains_key(type_name) {
            self.by_name.insert(type_name.to_owned(), rep);
        }
    }

    /// The representation of `type_name`, if registered.
    pub(super) fn representation(&self, type_name: &str) -> Option<&'static TypeRepresentation> {
        self.by_name.get(type_name).copied()
    }

    /// The serialized TypeInformation of `type_name`, if registered.
    pub(super) fn information(&self, type_name: &str) -> Option<&'static [u8]> {
        self.by_name
            .get(type_name)
            .map(|r| r.information_bytes.as_slice())
    }

    /// The serialized TypeObject `id` names, from any registered type.
    pub(super) fn object(&self, id: &TypeIdentifier) -> Option<&'static [u8]> {
        self.by_name.values().find_map(|r| r.object(id))
    }

    /// The dependencies of the types `ids` name (each type's own list from its
    /// TypeInformation, of the same equivalence kind), each once.
    pub(super) fn dependencies(&self, ids: &[TypeIdentifier]) -> Vec<TypeIdentifierWithSize> {
        let mut out: Vec<TypeIdentifierWithSize> = Vec::new();
        let lists = self.by_name.values().flat_map(|r| {
            let i = &r.information;
            [&i.minimal, &i.complete]
        });
        for with_deps in lists {
            let TypeIdentifierWithDependencies {
                typeid_with_size,
                dependent_typeids,
                ..
            } = with_deps;
            if !ids.contains(&typeid_with_size.type_id) {
                continue;
            }
            for d in dependent_typeids {
                if !out.contains(d) {
                    out.push(d.clone());
                }
            }
        }
        out
    }
}

/// The TypeLookup service's server side: requests in, replies out.
pub(super) struct TypeLookupServer {
    request_reader: Reader,
    reply_writer: QuietWriter,
    /// Requests that did not decode (counted, dropped).
    pub(super) bad_requests: u64,
    /// Requests answered.
    pub(super) answered: u64,
}

impl TypeLookupServer {
    pub(super) fn new(prefix: GuidPrefix) -> Self {
        // §7.6.3.3.1: reliable, volatile, KEEP_LAST; unkeyed (entity kinds 0xc3/0xc4).
        let mut rc = ReaderConfig::new(Guid::new(prefix, TL_SVC_REQUEST_READER), true, false);
        rc.history = History::KeepLast(MAX_QUEUED_REQUESTS as u32);
        let mut wc = WriterConfig::new(Guid::new(prefix, TL_SVC_REPLY_WRITER));
        wc.reliable = true;
        wc.keyed = false;
        wc.durability_transient_local = false;
        wc.history = History::KeepLast(MAX_REPLIES as u32);
        TypeLookupServer {
            request_reader: Reader::new(rc),
            reply_writer: QuietWriter::new(Writer::new(wc)),
            bad_requests: 0,
            answered: 0,
        }
    }

    /// The BuiltinEndpointSet bits of what this side implements.
    pub(super) const ENDPOINTS: u32 = BuiltinEndpointSet::TYPE_LOOKUP_REQUEST_READER
        | BuiltinEndpointSet::TYPE_LOOKUP_REPLY_WRITER;

    /// Matches the remote participant's request writer and reply reader, when announced.
    pub(super) fn add_remote_participant(
        &mut self,
        now: Now,
        p: &ParticipantProxyData,
        locators: &[Locator],
    ) {
        let set = p.available_builtin_endpoints;
        if set.contains(BuiltinEndpointSet::TYPE_LOOKUP_REQUEST_WRITER) {
            self.request_reader.matched_writer_add(
                now,
                RemoteWriter {
                    guid: Guid::new(p.guid_prefix, TL_SVC_REQUEST_WRITER),
                    unicast_locators: locators.to_vec(),
                    multicast_locators: Vec::new(),
                    reliable: true,
                    ownership_strength: 0,
                    lifespan: None,
                },
            );
        }
        if set.contains(BuiltinEndpointSet::TYPE_LOOKUP_REPLY_READER) {
            self.reply_writer.matched_reader_add(
                now,
                RemoteReader {
                    guid: Guid::new(p.guid_prefix, TL_SVC_REPLY_READER),
                    unicast_locators: locators.to_vec(),
                    multicast_locators: Vec::new(),
                    reliable: true,
                    expects_inline_qos: false,
                    wants_history: false,
                },
            );
        }
    }

    pub(super) fn remove_remote_participant(&mut self, prefix: GuidPrefix) {
        self.request_reader
            .matched_writer_remove(Guid::new(prefix, TL_SVC_REQUEST_WRITER));
        self.reply_writer
            .matched_reader_remove(Guid::new(prefix, TL_SVC_REPLY_READER));
    }

    /// Routes a submessage from a remote request writer and answers what it delivered.
    /// `None` when the submessage is not for the service.
    pub(super) fn handle_from_writer(
        &mut self,
        now: Now,
        writer: Guid,
        ts: Option<Timestamp>,
        sm: &Submessage<'_>,
        types: &LocalTypes,
    ) -> Option<()> {
        if writer.entity_id != TL_SVC_REQUEST_WRITER {
            return None;
        }
        self.request_reader
            .handle_writer_submessage(now, writer, ts, sm);
        while let Some(change) = self.request_reader.poll_sample() {
            if change.kind != ChangeKind::Alive {
                continue;
            }
            let Ok(request) = TypeLookupRequest::from_payload(&change.data) else {
                self.bad_requests = self.bad_requests.saturating_add(1);
                continue;
            };
            let payload = match &request.call {
                TypeLookupCall::GetTypes(ids) => {
                    let pairs = ids
                        .iter()
                        .filter_map(|id| Some((id.clone(), types.object(id)?)))
                        .collect();
                    reply_payload(&request.request_id, &TypeLookupReturn::Types(pairs))
                }
                TypeLookupCall::GetTypeDependencies(ids, _) => {
                    // Every dependency list fits one reply: no continuation point.
                    let deps = types.dependencies(ids);
                    let ret = TypeLookupReturn::Dependencies(deps, Vec::new());
                    reply_payload(&request.request_id, &ret)
                }
            };
            let write = WriteRequest::new(ChangeKind::Alive, None, Bytes::from(payload));
            if self.reply_writer.write(now, write).is_ok() {
                self.answered = self.answered.saturating_add(1);
            }
        }
        Some(())
    }

    /// Routes an ACKNACK for the reply writer. False when not ours.
    pub(super) fn handle_acknack(&mut self, now: Now, reader: Guid, a: &AckNack) -> bool {
        let ours = a.writer_id == TL_SVC_REPLY_WRITER;
        if ours {
            self.reply_writer.handle_acknack(now, reader, a);
        }
        ours
    }

    /// Routes a NACK_FRAG for the reply writer. False when not ours.
    pub(super) fn handle_nack_frag(&mut self, now: Now, reader: Guid, n: &NackFrag) -> bool {
        let ours = n.writer_id == TL_SVC_REPLY_WRITER;
        if ours {
            self.reply_writer.handle_nack_frag(now, reader, n);
        }
        ours
    }

    pub(super) fn handle_timeout(&mut self, now: Now) {
        self.reply_writer.handle_timeout(now);
        self.request_reader.handle_timeout(now);
    }

    pub(super) fn poll_timeout(&self) -> Option<Instant> {
        [
            self.reply_writer.poll_timeout(),
            self.request_reader.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    pub(super) fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        self.reply_writer
            .poll_transmit(now)
            .or_else(|| self.request_reader.poll_transmit(now))
    }
}

#[cfg(test)]
mod tests;
