//! The intermediary's alias bindings of one writer (docs/peer-group-cache.md §4.2, §5 rule
//! 16): definition SN → the key that definition stored. An abbreviated sample in the alias
//! form names a definition SN exactly (`wire::Alias::definition_sn`, always below the
//! sample's own SN), so a lookup is exact or fails; a failure is an unknown key (NACK, full
//! repair), never a guess.
//!
//! Must not: hold more than [`MAX_BINDINGS_PER_WRITER`] bindings, bind a definition the
//! cache did not store, or resolve an SN bound twice to different keys.

use std::collections::BTreeMap;

use crate::wire::{CacheKey, SequenceNumber};

/// Bindings kept per writer; the one of the oldest definition goes first (costs at most one
/// NACK and a full repair for a sample that still names it).
pub const MAX_BINDINGS_PER_WRITER: usize = 256;

/// One writer's bindings.
#[derive(Clone, Debug, Default)]
pub struct Bindings {
    /// Definition SN → its key; `None`: two definitions with this SN named different keys
    /// (not from a conforming writer): the SN resolves to nothing.
    by_sn: BTreeMap<SequenceNumber, Option<CacheKey>>,
}

impl Bindings {
    /// The definition at `sn` stored `key`.
    pub fn bind(&mut self, sn: SequenceNumber, key: CacheKey) {
        if let Some(held) = self.by_sn.get_mut(&sn) {
            if *held != Some(key) {
                *held = None;
            }
            return;
        }
        if self.by_sn.len() >= MAX_BINDINGS_PER_WRITER {
            self.by_sn.pop_first();
        }
        self.by_sn.insert(sn, Some(key));
    }

    /// The key the definition at `sn` stored, if it is bound.
    pub fn get(&self, sn: SequenceNumber) -> Option<CacheKey> {
        self.by_sn.get(&sn).copied().flatten()
    }

    /// Bindings held.
    pub fn len(&self) -> usize {
        self.by_sn.len()
    }

    /// True when nothing is bound.
    pub fn is_empty(&self) -> bool {
        self.by_sn.is_empty()
    }
}
