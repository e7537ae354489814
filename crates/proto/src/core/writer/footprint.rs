//! What one stored change costs in memory, for the writer's byte limits: its payload plus a
//! fixed per-change overhead derived from the sizes of the structures that hold it. A limit in
//! payload bytes alone let a never-acknowledging reader grow a KEEP_ALL writer of 32-byte
//! samples to 19.5 MB against its 2 MiB (issue 15: each change cost ~230 bytes).
//!
//! Must not: hold state or do I/O; it is arithmetic on `size_of`.
//!
//! # The estimate
//! Per change the history holds:
//! - its window slot (`history::window::Entry`: the `CacheChange` and its filter outcome),
//!   counted twice because the `VecDeque` doubles its capacity as it grows;
//! - its sequence number in the instance index, also counted twice (same growth);
//! - the payload's heap block: the allocator's header and rounding (16 bytes with glibc's
//!   malloc: an 8-byte size header, 16-byte alignment), plus the 24-byte shared header
//!   `Bytes` allocates once a payload is cloned for sending (rounded to 32).
//!
//! A content filter's outcome per change is an `Arc` into the writer's memo table, whose size
//! the table's capacity bounds (`filter_set.rs`), so it is not counted here. The figure is
//! checked against a counting allocator by `tests/flood.rs`
//! (`a_never_acknowledging_reader_holds_a_keep_all_writer_within_its_byte_limit`).

/// Heap bytes of one payload allocation beyond its length: allocator header and rounding.
const ALLOCATION_OVERHEAD: usize = 16;
/// The `Bytes` shared header of a payload that was cloned (24 bytes, allocated as 32).
const SHARED_HEADER: usize = 32;

/// The size of the history's window slot (`history::window::Entry`: a sequence number and the
/// optional stored change with its filter outcome); `history/tests.rs` tests that it is no less.
pub(super) const ENTRY_SIZE: usize = core::mem::size_of::<crate::wire::SequenceNumber>()
    + core::mem::size_of::<
        Option<(
            crate::core::CacheChange,
            Option<super::change_filter::ChangeFilter>,
        )>,
    >();

/// Bytes one stored change costs besides its payload.
pub const PER_CHANGE_OVERHEAD: usize = 2 * ENTRY_SIZE
    + 2 * core::mem::size_of::<crate::wire::SequenceNumber>()
    + ALLOCATION_OVERHEAD
    + SHARED_HEADER;

/// The memory a stored change with `payload_len` payload bytes holds.
pub const fn change_footprint(payload_len: usize) -> usize {
    payload_len.saturating_add(PER_CHANGE_OVERHEAD)
}

/// The most memory a write of `request` can add to the history: a key payload (dispose,
/// unregister) is padded up to [`super::MIN_KEY_PAYLOAD`], so that much is counted for any
/// request. What a [`crate::core::Participant`]'s caller reserves before handing a write over.
pub fn request_footprint(request: &crate::core::WriteRequest) -> usize {
    change_footprint(request.data.len().max(super::MIN_KEY_PAYLOAD))
}

#[cfg(test)]
mod tests;
