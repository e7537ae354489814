//! Drawing a fresh GUID prefix. Lives in the runtime because it reads the clock and the
//! process id (RTPS 2.5 §9.3.1.1 only asks for uniqueness).
//!
//! Must not: be used by `core`, which receives its prefix in the configuration.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

use crate::wire::{GuidPrefix, VendorId};

/// A random GUID prefix: our vendor id, then 10 bytes from the OS-seeded hasher keyed with
/// the time, the process id and a per-process counter.
pub fn random_guid_prefix() -> GuidPrefix {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(n);
    h.write_u32(std::process::id());
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    let a = h.finish();
    h.write_u64(a);
    let b = h.finish();
    let mut p = [0u8; 12];
    p[..2].copy_from_slice(&VendorId::SIFTDDS.0);
    p[2..10].copy_from_slice(&a.to_le_bytes());
    p[10..12].copy_from_slice(&b.to_le_bytes()[..2]);
    GuidPrefix(p)
}
