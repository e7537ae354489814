//! [`KeyHasher`]: how the reader computes key hashes for writers that send no PID_KEY_HASH.
//!
//! Must not: know any type; the API supplies the function for its topic type.

use crate::core::ChangeKind;

/// Computes an instance's key hash from a serialized sample (`ChangeKind::Alive`) or a
/// serialized key (otherwise), encapsulation header included. Supplied by the type layer
/// (the API knows the topic type); `None` when it cannot be computed. RTPS 2.5 §9.6.4.8.
#[derive(Copy, Clone)]
pub struct KeyHasher(pub fn(ChangeKind, &[u8]) -> Option<[u8; 16]>);

impl core::fmt::Debug for KeyHasher {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("KeyHasher")
    }
}

impl PartialEq for KeyHasher {
    fn eq(&self, other: &Self) -> bool {
        core::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl Eq for KeyHasher {}
