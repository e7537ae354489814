//! Peer-group caching (issue 18, docs/peer-group-cache.md), sans-IO: publishers of a group send
//! their common data to the intermediary once under a key, then abbreviated samples; the
//! intermediary restores the full samples for standard readers.
//!
//! Must not: perform I/O, read a clock, hold unbounded state, or restore a sample it cannot
//! rebuild exactly. The wire elements are in `crate::wire` (`CacheKey`, `KeyDefinition`,
//! `AbbreviatedData`); this module only decides and stores.
//!
//! Parts: [`alias`] (the intermediary's per-writer definition-SN bindings), [`config`] (the configured groups and their checks), [`split`] (common segments, digest, merge), [`publisher`] (per-peer acknowledged
//! keys and the full/define/abbreviated decision), [`intermediary`] (per-group bounded LRU
//! cache with membership and counters).
pub mod alias;
pub mod config;
pub mod intermediary;
pub mod publisher;
pub mod split;
#[cfg(test)]
pub(crate) mod tests;

use crate::wire::CacheKey;

pub use crate::qos::peer_group::group_id;

/// The key of a projection for a group, type and generation.
pub fn key_of(
    group: u32,
    generation: u32,
    type_hash: u64,
    projection: &split::Projection,
) -> CacheKey {
    CacheKey {
        group,
        generation,
        type_hash,
        digest: projection.digest,
    }
}
