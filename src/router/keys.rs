//! How the router tells the instances of a keyed topic apart when the writer sends no
//! PID_KEY_HASH (Cyclone DDS 0.10 and Fast DDS 2.9 writers, docs/interop-facts.md §5.12):
//! the type of each topic is known from an IDL file named per topic in the configuration
//! (`[[topic]] idl = …`, optionally `type = …`), else from the wire (the TypeObject a writer
//! of the topic announced, `router::wire_type`), else it is the built-in ShapeType when that
//! is the announced name, else the TypeObject a reader announced, and the key
//! hash is computed from the decoded sample exactly as a siftdds writer computes the
//! PID_KEY_HASH it sends (RTPS 2.5 §9.6.4.8, `types::dynamic::key_hash`). Also the HISTORY
//! a TRANSIENT_LOCAL downstream writer keeps, taken from the upstream writers' QoS.
//!
//! Must not: read files (the caller parses the IDL), or panic on a payload (untrusted bytes
//! go through `types::dynamic`, which is bounded). A payload it cannot decode has no key
//! hash: the router then sees one instance per writer, as before.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::table::{RoutingTable, SiteId, TopicKey};
use crate::cdr::{EncapsulationHeader, EncapsulationKind};
use crate::core::ChangeKind;
use crate::qos::History;
use crate::types::{Extensibility, ShapeType, TypeDescriptor, dynamic};

/// The types of the configured topics: per topic name pattern, an IDL file's structs and
/// optionally which of them is the topic's type (default: the one named as the type the
/// endpoints announce).
#[derive(Clone, Debug, Default)]
pub struct KeyTypes {
    topics: Vec<(glob::Pattern, Option<String>, Arc<Vec<TypeDescriptor>>)>,
    /// Types learnt from the wire, per (topic, announced type name) (`router::wire_type`),
    /// and whether a writer announced it (else a reader); at most [`MAX_LEARNT_TYPES`].
    learnt: BTreeMap<(String, String), (Arc<TypeDescriptor>, bool)>,
}

/// Topics whose type learnt from the wire is kept; later ones stay unknown.
pub const MAX_LEARNT_TYPES: usize = 1024;

/// The type of one topic, as the router decodes keys with it.
#[derive(Debug)]
pub struct KeyType {
    /// The whole type: what a payload is transcoded with (`router::transcode`).
    full: TypeDescriptor,
    /// The members up to the last key member: all a sample's key needs, so a large
    /// payload after the key is never decoded.
    desc: TypeDescriptor,
    /// The key members only, final: what a serialized key (a dispose, an unregister) holds.
    key_only: TypeDescriptor,
}

/// Whether an announced type name is `name` (also when one of them has a leading `::`).
fn same_type(announced: &str, name: &str) -> bool {
    announced.trim_start_matches("::") == name.trim_start_matches("::")
}

impl KeyTypes {
    /// No configured type: only the built-in ShapeType is known.
    pub fn new() -> Self {
        KeyTypes::default()
    }

    /// Adds the types of an IDL file for the topics matching `pattern`; `type_name` names
    /// the topic's type among `descs` (`None`: the type name the endpoints announce). The
    /// first pattern that matches a topic decides its type.
    pub fn add(
        &mut self,
        pattern: glob::Pattern,
        type_name: Option<String>,
        descs: Vec<TypeDescriptor>,
    ) {
        self.topics.push((pattern, type_name, Arc::new(descs)));
    }

    /// Whether an IDL file of the configuration gives `topic`'s type: then the type the
    /// wire announces is neither fetched nor used (the file overrides it).
    pub fn configured(&self, topic: &str) -> bool {
        self.topics.iter().any(|(p, _, _)| p.matches(topic))
    }

    /// Takes `desc`, learnt from the wire from a writer (`writer`) or a reader, as the type
    /// of `topic` announced as `type_name` (ignored for a configured topic, beyond
    /// [`MAX_LEARNT_TYPES`], or from a reader when a writer's is known).
    pub fn learn(&mut self, topic: &str, type_name: &str, desc: TypeDescriptor, writer: bool) {
        if self.configured(topic) {
            return;
        }
        let key = (topic.to_string(), type_name.to_string());
        match self.learnt.get(&key) {
            Some((_, true)) if !writer => return,
            None if self.learnt.len() >= MAX_LEARNT_TYPES => return,
            _ => {}
        }
        self.learnt.insert(key, (Arc::new(desc), writer));
    }

    /// The whole type of `topic` whose endpoints announce `type_name` (what content filters
    /// compile against, `router::route_filter`), by precedence: the configured one (an IDL
    /// file); else one a writer announced; else the built-in ShapeType if that is the name;
    /// else one a reader announced; `None` when unknown. A writer's type describes the
    /// payloads the router decodes; a reader's may not (its extensibility, e.g. Cyclone's
    /// `@final` ShapeType and siftdds' `@appendable` one, changes XCDR2 bytes), so it is the
    /// last resort.
    pub fn descriptor(&self, topic: &str, type_name: &str) -> Option<&TypeDescriptor> {
        if let Some((_, named, descs)) = self.topics.iter().find(|(p, _, _)| p.matches(topic)) {
            let want = named.as_deref().unwrap_or(type_name);
            return descs.iter().find(|d| same_type(&d.name, want));
        }
        let learnt = self.learnt.get(&(topic.to_string(), type_name.to_string()));
        if let Some((desc, true)) = learnt {
            return Some(desc);
        }
        let shape = ShapeType::descriptor();
        if same_type(type_name, &shape.name) {
            return Some(shape);
        }
        learnt.map(|(desc, _)| &**desc)
    }

    /// The type of `topic` whose endpoints announce `type_name`, as keys are decoded with it
    /// ([`Self::descriptor`]); `None` when unknown.
    pub fn resolve(&self, topic: &str, type_name: &str) -> Option<Arc<KeyType>> {
        let desc = self.descriptor(topic, type_name)?.clone();
        let any_key = desc.members.iter().any(|m| m.key);
        let full = desc.clone();
        let mut desc = desc;
        if let Some(last) = desc.members.iter().rposition(|m| m.key) {
            desc.members.truncate(last.saturating_add(1));
        }
        let key_only = TypeDescriptor {
            name: desc.name.clone(),
            extensibility: Extensibility::Final,
            members: desc
                .members
                .iter()
                .filter(|m| m.key || !any_key)
                .cloned()
                .collect(),
        };
        Some(Arc::new(KeyType {
            full,
            desc,
            key_only,
        }))
    }
}

impl KeyType {
    /// The whole type.
    pub fn descriptor(&self) -> &TypeDescriptor {
        &self.full
    }

    /// The members up to the last key member (a sample's key needs no more).
    pub fn up_to_key(&self) -> &TypeDescriptor {
        &self.desc
    }

    /// The key members only, as a final struct: what a serialized key holds.
    pub fn key_only(&self) -> &TypeDescriptor {
        &self.key_only
    }

    /// The key hash of a change whose writer sent none: from the decoded sample (ALIVE) or
    /// serialized key (dispose, unregister); `None` when the payload does not decode.
    pub fn key_hash(&self, kind: ChangeKind, data: &[u8]) -> Option<[u8; 16]> {
        if kind != ChangeKind::Alive {
            if let Some(h) = key_payload_hash(self, data) {
                return Some(h);
            }
        }
        let v = dynamic::decode(data, &self.desc).ok()?;
        dynamic::key_hash(&v, &self.desc)
    }
}

/// The key hash of a serialized key. A D_CDR2 key has no DHEADER (`types::codec::key`, what
/// Cyclone writes): read as plain CDR2.
fn key_payload_hash(t: &KeyType, data: &[u8]) -> Option<[u8; 16]> {
    let (header, _) = EncapsulationHeader::body(data).ok()?;
    let v = if header.kind == EncapsulationKind::DCdr2 {
        let mut plain = data.to_vec();
        // D_CDR2_BE 0x0008 → CDR2_BE 0x0006, D_CDR2_LE 0x0009 → CDR2_LE 0x0007 (RTPS 2.5
        // §10.2).
        if let Some(b) = plain.get_mut(1) {
            *b = b.wrapping_sub(2);
        }
        dynamic::decode(&plain, &t.key_only).ok()?
    } else {
        dynamic::decode(data, &t.key_only).ok()?
    };
    dynamic::key_hash(&v, &t.desc)
}

/// The HISTORY of a TRANSIENT_LOCAL downstream writer on `site` for `key` when no override
/// gives one: what the upstream writers of that topic on the other sites keep (the deepest
/// KEEP_LAST, KEEP_ALL if any keeps all), so a late joiner gets per instance what it would
/// get from them directly; KEEP_LAST(1) when none is known yet.
pub fn upstream_history(table: &RoutingTable, site: SiteId, key: &TopicKey) -> History {
    let mut out: Option<History> = None;
    for s in table.sites().filter(|s| *s != site) {
        let Some(view) = table.site(s) else { continue };
        for w in view.writers.iter().filter(|w| &w.key == key) {
            out = Some(match (out, w.history) {
                (Some(History::KeepAll), _) | (_, History::KeepAll) => History::KeepAll,
                (Some(History::KeepLast(a)), History::KeepLast(b)) => History::KeepLast(a.max(b)),
                (None, h) => h,
            });
        }
    }
    out.unwrap_or(History::KeepLast(1))
}

#[cfg(test)]
mod tests;
