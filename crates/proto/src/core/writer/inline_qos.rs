//! The inline QoS list of a writer's DATA / DATA_FRAG (`message.rs` builds the message
//! around it), and the in-place update of a relayed change's list for the next change of the
//! same instance and original writer (a router relays every change with
//! PID_ORIGINAL_WRITER_INFO, whose SN differs per change: re-encoding the whole list per
//! DATA was a tenth of the router's instructions, docs/router.md "Router cost per sample").
//!
//! Must not: emit a list another encoding of the same change would not produce (the patch
//! only rewrites the SN of a list it checked ends with that writer's
//! PID_ORIGINAL_WRITER_INFO), or do I/O.
//!
//! RTPS 2.5 §9.6.4.8-9 (PID_KEY_HASH, PID_STATUS_INFO), §9.6.4.1 (PID_CONTENT_FILTER_INFO),
//! §8.7.9 and §9.6.3 (PID_ORIGINAL_WRITER_INFO: OriginalWriterInfo_t).

use crate::cdr::{Endianness, Writer};
use crate::core::change::SampleIdentity;
use crate::core::{CacheChange, ChangeKind};
use crate::wire::WriterGroupInfo;
use crate::wire::plist::pid::{
    PID_COHERENT_SET, PID_CONTENT_FILTER_INFO, PID_GROUP_COHERENT_SET, PID_GROUP_SEQ_NUM,
    PID_KEY_HASH, PID_ORIGINAL_WRITER_INFO, PID_STATUS_INFO, PID_WRITER_GROUP_INFO,
};
use crate::wire::plist::{Parameter, RawParameter, Value, emit_parameter_list};

/// OriginalWriterInfo_t as we encode it: GUID (16), SN (8), an empty QoS list (4).
const ORIGINAL_INFO_LEN: usize = 28;

/// The inline QoS of a change: PID_KEY_HASH for keyed topics (and always for dispose /
/// unregister when known), PID_STATUS_INFO for anything not ALIVE (docs/interop-facts.md §5.6-§5.7:
/// inline KEY_HASH + STATUS_INFO and no payload, which Fast DDS 2.9 and Cyclone accept),
/// and the change's encoded PID_CONTENT_FILTER_INFO value when it was filtered (RTPS 2.5
/// §9.6.4.1; sent on every DATA / DATA_FRAG whatever expectsInlineQos says, docs/interop-facts.md
/// §2.1).
pub(super) fn inline_qos_into(
    change: &CacheChange,
    keyed: bool,
    cfi: Option<&[u8]>,
    definition: Option<&[u8]>,
    out: &mut Vec<u8>,
    original: &mut Vec<u8>,
    endian: Endianness,
) {
    out.clear();
    let alive = change.kind == ChangeKind::Alive;
    let key_hash = change
        .key_hash
        .filter(|_| keyed || !alive)
        .map(|k| Parameter::Known {
            pid: PID_KEY_HASH,
            value: Value::KeyHash(k),
        });
    // RTPS 2.5 §9.6.4.9: StatusInfo_t flags, D = 0x1, U = 0x2.
    let status_info = (!alive).then(|| Parameter::Known {
        pid: PID_STATUS_INFO,
        value: Value::StatusInfo(change.kind.status_info()),
    });
    let filter_info = cfi.map(|value| {
        Parameter::Unknown(RawParameter {
            pid: PID_CONTENT_FILTER_INFO,
            value,
        })
    });
    // RTPS 2.5 §8.7.5, §9.6.4.4: the change's coherent set (writer/coherent.rs).
    let coherent_set = change.coherent_set.map(|sn| Parameter::Known {
        pid: PID_COHERENT_SET,
        value: Value::SequenceNumber(sn),
    });
    // RTPS 2.5 §8.7.9: a relayed change names its original writer.
    original.clear();
    if let Some(id) = change.original_writer {
        id.emit(&mut Writer::new(original, endian));
    }
    let original_info = change.original_writer.map(|_| {
        Parameter::Unknown(RawParameter {
            pid: PID_ORIGINAL_WRITER_INFO,
            value: original,
        })
    });
    // RTPS 2.5 §8.7.6, §9.6.3: a writer group's change carries its group SN, its group
    // coherent set and (end-of-set marker) the set's writers. Not must-understand: a reader
    // without group support delivers the change as it would without them.
    let group = change.group;
    let group_sn = group.map(|g| Parameter::Known {
        pid: PID_GROUP_SEQ_NUM,
        value: Value::SequenceNumber(g.gsn),
    });
    let group_set = group
        .and_then(|g| g.coherent_set)
        .map(|sn| Parameter::Known {
            pid: PID_GROUP_COHERENT_SET,
            value: Value::SequenceNumber(sn),
        });
    let mut group_info = Vec::new();
    if let Some(set) = group.and_then(|g| g.writer_set) {
        WriterGroupInfo { writer_set: set }.emit(&mut Writer::new(&mut group_info, endian));
    }
    let writer_group = (!group_info.is_empty()).then(|| {
        Parameter::Unknown(RawParameter {
            pid: PID_WRITER_GROUP_INFO,
            value: &group_info,
        })
    });
    // docs/peer-group-cache.md §4.1: a definition's key (vendor PID, others skip it).
    let definition = definition.map(|value| {
        Parameter::Unknown(RawParameter {
            pid: crate::wire::PID_SIFTDDS_PGCACHE_KEY,
            value,
        })
    });
    let params = [
        key_hash,
        status_info,
        filter_info,
        coherent_set,
        group_sn,
        group_set,
        writer_group,
        original_info,
        definition,
    ];
    if params.iter().all(Option::is_none) {
        return;
    }
    if emit_parameter_list(params.iter().flatten(), &mut Writer::new(out, endian)).is_err() {
        out.clear();
    }
}

/// Rewrites in place the original SN of `qos`, a list of `len` bytes without its sentinel
/// whose last parameter is PID_ORIGINAL_WRITER_INFO of `id.writer_guid` (checked: false, and
/// `qos` untouched, otherwise). With the rest of the list unchanged, the result is what
/// [`inline_qos_into`] encodes for a change with identity `id`.
pub(super) fn patch_original_sn(
    qos: &mut [u8],
    len: usize,
    id: SampleIdentity,
    endian: Endianness,
) -> bool {
    let Some(start) = len.checked_sub(ORIGINAL_INFO_LEN + 4) else {
        return false;
    };
    let Some(param) = qos.get_mut(start..len) else {
        return false;
    };
    let (head, value) = param.split_at_mut(4);
    let u16_at = |at: std::ops::Range<usize>| {
        let b: [u8; 2] = head.get(at)?.try_into().ok()?;
        Some(match endian {
            Endianness::Little => u16::from_le_bytes(b),
            Endianness::Big => u16::from_be_bytes(b),
        })
    };
    if u16_at(0..2) != Some(PID_ORIGINAL_WRITER_INFO)
        || u16_at(2..4).map(usize::from) != Some(ORIGINAL_INFO_LEN)
        || value.get(..16) != Some(&id.writer_guid.to_bytes()[..])
    {
        return false;
    }
    let sn = id.sequence_number.0;
    // invariant: the shift/truncation split an i64 into its two 32-bit halves exactly
    // (SequenceNumber::emit).
    let (high, low) = ((sn >> 32) as i32, sn as u32);
    let mut bytes = [0u8; 8];
    let (h, l) = bytes.split_at_mut(4);
    match endian {
        Endianness::Little => {
            h.copy_from_slice(&high.to_le_bytes());
            l.copy_from_slice(&low.to_le_bytes());
        }
        Endianness::Big => {
            h.copy_from_slice(&high.to_be_bytes());
            l.copy_from_slice(&low.to_be_bytes());
        }
    }
    let Some(at) = value.get_mut(16..24) else {
        return false;
    };
    at.copy_from_slice(&bytes);
    true
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
mod tests {
    use super::*;
    use crate::core::writer::message::ENDIAN;
    use crate::wire::{EntityId, Guid, GuidPrefix, SequenceNumber};
    use bytes::Bytes;

    fn guid(b: u8) -> Guid {
        Guid::new(GuidPrefix([b; 12]), EntityId([0, 0, 1, 2]))
    }

    fn relayed(key: u8, writer: u8, sn: i64) -> CacheChange {
        CacheChange {
            kind: ChangeKind::Alive,
            writer_guid: guid(9),
            sequence_number: SequenceNumber(sn),
            key_hash: Some([key; 16]),
            source_timestamp: None,
            data: Bytes::new(),
            coherent_set: None,
            group: None,
            original_writer: Some(SampleIdentity {
                writer_guid: guid(writer),
                sequence_number: SequenceNumber(sn + (1 << 40)),
            }),
        }
    }

    /// The list for `c` and its length without the sentinel.
    fn encoded(c: &CacheChange) -> (Vec<u8>, usize) {
        encoded_in(c, ENDIAN)
    }

    fn encoded_in(c: &CacheChange, endian: Endianness) -> (Vec<u8>, usize) {
        let (mut out, mut scratch) = (Vec::new(), Vec::new());
        inline_qos_into(c, true, None, None, &mut out, &mut scratch, endian);
        let len = out.len() - 4;
        (out, len)
    }

    #[test]
    fn a_patched_list_is_the_next_changes_encoding() {
        for endian in [Endianness::Little, Endianness::Big] {
            let (mut qos, len) = encoded_in(&relayed(1, 7, 5), endian);
            for sn in [6, 7, 1 << 33, -1] {
                let next = relayed(1, 7, sn);
                let id = next.original_writer.unwrap();
                assert!(patch_original_sn(&mut qos, len, id, endian));
                assert_eq!(qos, encoded_in(&next, endian).0, "sn {sn} {endian:?}");
            }
        }
    }

    #[test]
    fn a_list_of_another_writer_or_shape_is_not_patched() {
        let (mut qos, len) = encoded(&relayed(1, 7, 5));
        let before = qos.clone();
        let other = relayed(1, 8, 6).original_writer.unwrap();
        assert!(!patch_original_sn(&mut qos, len, other, ENDIAN));
        // Not ending with PID_ORIGINAL_WRITER_INFO (no original writer at all).
        let mut plain = relayed(1, 7, 5);
        plain.original_writer = None;
        let (mut p, plen) = encoded(&plain);
        let id = relayed(1, 7, 6).original_writer.unwrap();
        assert!(!patch_original_sn(&mut p, plen, id, ENDIAN));
        assert!(!patch_original_sn(&mut qos, 3, id, ENDIAN));
        assert!(!patch_original_sn(&mut qos, len + 100, id, ENDIAN));
        assert_eq!(qos, before);
    }
}
