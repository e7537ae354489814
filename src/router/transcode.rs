//! What a forwarded payload becomes on its way to a downstream writer: the router writes in
//! the data representation its downstream writer announces (the first one its readers
//! accept, `RouteWriterSpec::representation`), so a sample written in XCDR1 upstream reaches
//! an XCDR2-only reader as XCDR2 and the other way (DDS-XTypes 1.3 §7.6.3.1.1; Cyclone DDS
//! matches a reader only if its list holds the writer's first id, docs/interop-facts.md
//! §5.4). For a topic whose type the router knows (`router::keys`), the payload is
//! re-serialized (`types::transcode`); a dispose or unregister gets the serialized key the
//! downstream writer's representation carries — transcoded from the one it came with, or,
//! when it came with the key hash only (Fast DDS 2.9), built from the key of the last sample
//! of that instance, which this module keeps per topic (Cyclone DDS 0.10 needs the serialized
//! key of a non-fixed key, §5.7, and refuses an XCDR1 key from an XCDR2 writer, §5.10).
//!
//! Must not: panic or grow past its limits whatever the payloads ([`MAX_KEY_STORES`],
//! [`MAX_STORED_KEYS`], [`MAX_KEY_BYTES`]); change a payload already in the right
//! representation (it goes on as the received bytes); guess: an unknown type, an undecodable
//! payload or a key not known is forwarded as it came, and counted.

use std::collections::VecDeque;

use foldhash::HashMap;

use bytes::Bytes;

use super::keys::KeyType;
use crate::cdr::{EncapsulationHeader, Endianness};
use crate::core::ChangeKind;
use crate::types::XcdrVersion;
use crate::types::transcode::{
    key_of_key_payload, key_payload, payload_version, sample_key, transcode,
};

/// Topics whose instance keys are kept (one store per topic).
pub const MAX_KEY_STORES: usize = 1024;
/// Instance keys kept per topic; the oldest learnt goes first.
pub const MAX_STORED_KEYS: usize = 65_536;
/// The largest key kept (its key members serialized); a larger one is not kept.
pub const MAX_KEY_BYTES: usize = 1024;

/// What the transcoding step did, over all forwards.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TranscodeCounters {
    /// Samples re-serialized into the downstream writer's representation (per downstream
    /// representation, not per writer: one change to two XCDR2 writers counts once).
    pub transcoded: u64,
    /// Serialized keys of disposes and unregisters re-serialized into it.
    pub keys_transcoded: u64,
    /// Serialized keys built for a dispose or unregister that came with the key hash only.
    pub keys_built: u64,
    /// Payloads in another representation than the downstream writer's forwarded as they
    /// came: the type is not known, or the payload does not decode (or is a union, a
    /// mutable key).
    pub as_is: u64,
    /// Disposes and unregisters of a known keyed type sent on with the key hash only: no
    /// sample of that instance was seen (or its key was evicted).
    pub key_unknown: u64,
}

/// The instance keys of one topic: key hash → the key members (`types::transcode::
/// sample_key` form), bounded, first in first out.
#[derive(Debug, Default)]
struct KeyStore {
    /// The type they are keys of (a topic announced with two types keeps the first's).
    type_name: String,
    keys: HashMap<[u8; 16], Vec<u8>>,
    order: VecDeque<[u8; 16]>,
}

/// The transcoding step of the router core.
#[derive(Debug, Default)]
pub struct Transcoder {
    stores: HashMap<String, KeyStore>,
    counters: TranscodeCounters,
}

/// One change about to be forwarded, as the transcoding step needs it.
#[derive(Copy, Clone, Debug)]
pub struct Change<'a> {
    /// The topic name (instance keys are kept per topic and type).
    pub topic: &'a str,
    /// The topic's type, if the router knows it.
    pub ty: Option<&'a KeyType>,
    /// Whether the topic is keyed.
    pub keyed: bool,
    /// The kind it is forwarded as.
    pub kind: ChangeKind,
    /// Its instance.
    pub key_hash: Option<[u8; 16]>,
    /// The payload as received.
    pub data: &'a Bytes,
}

impl Transcoder {
    /// An empty step.
    pub fn new() -> Self {
        Self::default()
    }

    /// The counters so far.
    pub fn counters(&self) -> TranscodeCounters {
        self.counters
    }

    /// Keeps the key of an ALIVE sample's instance (once per instance), for the disposes
    /// that will come with its key hash only.
    pub fn learn(&mut self, c: Change<'_>) {
        let (Some(t), Some(h), true, ChangeKind::Alive) = (c.ty, c.key_hash, c.keyed, c.kind)
        else {
            return;
        };
        let type_name = &t.descriptor().name;
        if let Some(s) = self.stores.get(c.topic)
            && (s.keys.contains_key(&h) || &s.type_name != type_name)
        {
            return;
        }
        let Ok(key) = sample_key(c.data, t.up_to_key()) else {
            return;
        };
        if key.len() > MAX_KEY_BYTES {
            return;
        }
        if !self.stores.contains_key(c.topic) && self.stores.len() >= MAX_KEY_STORES {
            return;
        }
        let store = self
            .stores
            .entry(c.topic.to_string())
            .or_insert_with(|| KeyStore {
                type_name: type_name.clone(),
                ..KeyStore::default()
            });
        if store.keys.len() >= MAX_STORED_KEYS {
            if let Some(old) = store.order.pop_front() {
                store.keys.remove(&old);
            }
        }
        store.keys.insert(h, key);
        store.order.push_back(h);
    }

    /// The payload `c` is written with by a downstream writer announcing `representation`
    /// (a DataRepresentationId): the received bytes when they are already in it (or it is
    /// not XCDR1/XCDR2), else re-serialized in the received byte order.
    pub fn payload(&mut self, c: Change<'_>, representation: i16) -> Bytes {
        self.converted(c, representation)
            .unwrap_or_else(|| c.data.clone())
    }

    /// [`Self::payload`] when it took work (re-serialized, or counted because it could not
    /// be); `None` when the received bytes serve as they are, so a caller can keep only the
    /// payloads worth keeping and call again for the next writer at no cost and without
    /// counting twice.
    pub fn converted(&mut self, c: Change<'_>, representation: i16) -> Option<Bytes> {
        let want = XcdrVersion::from_representation_id(representation)?;
        let endian = EncapsulationHeader::body(c.data)
            .map(|(h, _)| h.endian)
            .unwrap_or(Endianness::Little);
        let have = payload_version(c.data);
        if c.kind == ChangeKind::Alive {
            if have == Some(want) {
                return None;
            }
            let out =
                c.ty.and_then(|t| transcode(c.data, t.descriptor(), want, endian).ok());
            return Some(self.count(out, Counter::Transcoded, c.data));
        }
        if !c.keyed {
            return None;
        }
        if !c.data.is_empty() {
            if have == Some(want) {
                return None;
            }
            let out = c.ty.and_then(|t| {
                let key = key_of_key_payload(c.data, t.key_only())?;
                let ext = t.descriptor().extensibility;
                key_payload(&key, t.key_only(), ext, want, endian).ok()
            });
            return Some(self.count(out, Counter::KeyTranscoded, c.data));
        }
        let (Some(t), Some(h)) = (c.ty, c.key_hash) else {
            return None;
        };
        let Some(key) = self
            .stores
            .get(c.topic)
            .filter(|s| s.type_name == t.descriptor().name)
            .and_then(|s| s.keys.get(&h))
        else {
            self.counters.key_unknown = self.counters.key_unknown.saturating_add(1);
            return Some(c.data.clone());
        };
        let ext = t.descriptor().extensibility;
        let out = key_payload(key, t.key_only(), ext, want, Endianness::Little).ok();
        Some(self.count(out, Counter::KeyBuilt, c.data))
    }

    fn count(&mut self, out: Option<Vec<u8>>, what: Counter, data: &Bytes) -> Bytes {
        let k = &mut self.counters;
        let (n, out) = match out {
            Some(v) => {
                let n = match what {
                    Counter::Transcoded => &mut k.transcoded,
                    Counter::KeyTranscoded => &mut k.keys_transcoded,
                    Counter::KeyBuilt => &mut k.keys_built,
                };
                (n, Bytes::from(v))
            }
            None => (&mut k.as_is, data.clone()),
        };
        *n = n.saturating_add(1);
        out
    }

    /// Keys kept, over all topics.
    pub fn stored_keys(&self) -> usize {
        self.stores.values().map(|s| s.keys.len()).sum()
    }
}

#[derive(Copy, Clone)]
enum Counter {
    Transcoded,
    KeyTranscoded,
    KeyBuilt,
}

#[cfg(test)]
mod tests;
