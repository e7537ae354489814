//! Which inline QoS parameters a writer's DATA / DATA_FRAG carries for a change
//! (`message.rs` builds the message around them; `wire::inline_qos` encodes them), and the
//! in-place update of a relayed change's list for the next change of the same instance and
//! original writer (a router relays every change with PID_ORIGINAL_WRITER_INFO, whose SN
//! differs per change: re-encoding the whole list per DATA was a tenth of the router's
//! instructions, docs/router.md "Router cost per sample").
//!
//! Must not: emit a list another encoding of the same change would not produce (the patch
//! only rewrites the SN of a list it checked ends with that writer's
//! PID_ORIGINAL_WRITER_INFO), or do I/O.
//!
//! RTPS 2.5 §9.6.4.8-9 (PID_KEY_HASH, PID_STATUS_INFO), §9.6.4.1 (PID_CONTENT_FILTER_INFO),
//! §8.7.5 (PID_COHERENT_SET), §8.7.6 (group parameters), §8.7.9 (PID_ORIGINAL_WRITER_INFO).

use crate::cdr::{CdrWriter, Endianness};
use crate::core::{CacheChange, ChangeKind};
use crate::wire::{InlineQos, WriterGroupInfo};

pub(super) use crate::wire::inline_qos::patch_original_sn;

/// The inline QoS of a change: PID_KEY_HASH for keyed topics (and always for dispose /
/// unregister when known), PID_STATUS_INFO for anything not ALIVE (docs/interop-facts.md §5.6-§5.7:
/// inline KEY_HASH + STATUS_INFO and no payload, which Fast DDS 2.9 and Cyclone accept),
/// and the change's encoded PID_CONTENT_FILTER_INFO value when it was filtered (RTPS 2.5
/// §9.6.4.1; sent on every DATA / DATA_FRAG whatever expectsInlineQos says, docs/interop-facts.md
/// §2.1). `definition` is a peer-group definition's encoded key (docs/peer-group-cache.md
/// §4.1). Returns the length of the list in `out` without its sentinel; `None` (and `out`
/// empty) when the change carries no inline QoS.
pub(super) fn inline_qos_into(
    change: &CacheChange,
    keyed: bool,
    cfi: Option<&[u8]>,
    definition: Option<&[u8]>,
    out: &mut Vec<u8>,
    endian: Endianness,
) -> Option<usize> {
    out.clear();
    let alive = change.kind == ChangeKind::Alive;
    // RTPS 2.5 §8.7.6, §9.6.3: a writer group's change carries its group SN, its group
    // coherent set and (end-of-set marker) the set's writers. Not must-understand: a reader
    // without group support delivers the change as it would without them.
    let group = change.group;
    let qos = InlineQos {
        key_hash: change.key_hash.filter(|_| keyed || !alive),
        // RTPS 2.5 §9.6.4.9: StatusInfo_t flags, D = 0x1, U = 0x2.
        status_info: (!alive).then(|| change.kind.status_info()),
        content_filter_info: cfi,
        // RTPS 2.5 §8.7.5, §9.6.4.4: the change's coherent set (writer/coherent.rs).
        coherent_set: change.coherent_set,
        group_seq_num: group.map(|g| g.gsn),
        group_coherent_set: group.and_then(|g| g.coherent_set),
        writer_group_info: group
            .and_then(|g| g.writer_set)
            .map(|writer_set| WriterGroupInfo { writer_set }),
        // RTPS 2.5 §8.7.9: a relayed change names its original writer.
        original_writer_info: change.original_writer,
        peer_group_key: definition,
    };
    if qos.is_empty() {
        return None;
    }
    // One allocation at the list's exact length: grown parameter by parameter from empty
    // (a new message's list), the buffer was reallocated three or four times per DATA.
    out.reserve(qos.buffer_len());
    if qos.emit(&mut CdrWriter::new(out, endian)).is_err() {
        out.clear();
        return None;
    }
    // The sentinel's 4 octets end the list.
    out.len().checked_sub(4)
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
mod tests;
