//! The alias form of an abbreviated sample's key (flag A, docs/peer-group-cache.md §4.2): the
//! low 8 (flag N) or 16 bits of the writerSN of the definition that bound the key. With the
//! abbreviated sample's own writerSN `s`, the alias names exactly one definition SN `d`: the
//! largest `d < s` with those low bits. A writer sends it only while `s - d` is within the
//! form's window ([`Alias::for_definition`]), so the intermediary never has to guess.
//!
//! Must not: panic or overflow on any wire value (SNs near 0 or `i64::MAX`), or name a
//! definition at or after the sample itself.

use crate::wire::SequenceNumber;

/// Octets of the narrow alias (flag N).
pub const NARROW_ALIAS_LEN: usize = 1;
/// Octets of the wide alias.
pub const WIDE_ALIAS_LEN: usize = 2;
/// Largest `s - d` the narrow form names unambiguously.
pub const NARROW_WINDOW: i64 = 1 << 8;
/// Largest `s - d` the wide form names unambiguously.
pub const WIDE_WINDOW: i64 = 1 << 16;

/// An alias: the low bits of a definition's writerSN.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Alias {
    /// The low 8 (narrow) or 16 bits of the definition's SN.
    pub low: u16,
    /// One octet on the wire (flag N) instead of two. Invariant: `low < 256` when set.
    pub narrow: bool,
}

impl Alias {
    /// The shortest alias by which a sample at `sn` names the definition at `definition`;
    /// `None` when the definition is not before the sample or too far back for two octets.
    pub fn for_definition(definition: SequenceNumber, sn: SequenceNumber) -> Option<Alias> {
        let delta = sn.0.checked_sub(definition.0)?;
        if definition.0 < 1 || delta < 1 {
            return None;
        }
        let low = u16::try_from(definition.0 & 0xffff).ok()?;
        if delta <= NARROW_WINDOW {
            return Some(Alias {
                low: low & 0xff,
                narrow: true,
            });
        }
        (delta <= WIDE_WINDOW).then_some(Alias { low, narrow: false })
    }

    /// The definition SN this alias names from a sample at `sn`: the largest SN below `sn`
    /// with these low bits; `None` if that is below 1 (no such definition can exist).
    pub fn definition_sn(&self, sn: SequenceNumber) -> Option<SequenceNumber> {
        let window = if self.narrow {
            NARROW_WINDOW
        } else {
            WIDE_WINDOW
        };
        let low = i64::from(self.low);
        if low >= window {
            return None; // a narrow alias above 255 is not an encoding (invariant).
        }
        let back = sn.0.checked_sub(low)?.rem_euclid(window);
        let back = if back == 0 { window } else { back };
        let d = sn.0.checked_sub(back)?;
        (d >= 1).then_some(SequenceNumber(d))
    }

    /// Octets on the wire.
    pub fn len(&self) -> usize {
        if self.narrow {
            NARROW_ALIAS_LEN
        } else {
            WIDE_ALIAS_LEN
        }
    }

    /// Never empty (clippy's `len_without_is_empty`).
    pub fn is_empty(&self) -> bool {
        false
    }
}
