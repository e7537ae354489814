//! The reader's counters: what it received, delivered and dropped, and every misbehaviour of
//! a peer (counted, never an error).
//!
//! Must not: hold anything but counts (no state the protocol depends on).
//!
//! RTPS 2.5 §8.4.12 (the StatefulReader whose work is counted); DDS 1.4 §2.2.4.1 (the
//! statuses some of them feed).

/// What the reader has seen and done; every misbehaviour of a peer lands here, never in an
/// `Err` (docs/conventions.md §4).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ReaderCounters {
    /// Whole samples received (DATA, or the last fragment of a DATA_FRAG sample).
    pub samples_received: u64,
    /// Samples put into the delivery queue.
    pub samples_delivered: u64,
    /// Changes for an SN that was already received, delivered or skipped.
    pub duplicates: u64,
    /// SNs never received: best-effort jumps, and reliable SNs below a HEARTBEAT's firstSN.
    pub samples_lost: u64,
    /// Samples the delivery queue refused (RESOURCE_LIMITS).
    pub samples_rejected: u64,
    /// Older samples replaced by KEEP_LAST.
    pub samples_replaced: u64,
    /// Reliable changes dropped because they were beyond the out-of-order window.
    pub out_of_window: u64,
    /// ACKNACKs built.
    pub acknacks_sent: u64,
    /// NACK_FRAGs built.
    pub nackfrags_sent: u64,
    /// DATA_FRAGs dropped for an inconsistent shape or a bad range.
    pub malformed_fragments_dropped: u64,
    /// DATA_FRAGs refused because sampleSize exceeded `max_sample_size`.
    pub oversized_samples_refused: u64,
    /// DATA_FRAGs refused because starting their sample would exceed `max_reassembly_bytes`.
    pub reassembly_budget_refusals: u64,
    /// HEARTBEAT / HEARTBEAT_FRAG with a stale count (or to a best-effort proxy), ignored.
    pub heartbeats_ignored: u64,
    /// Submessages from writers that are not matched.
    pub unknown_writer: u64,
    /// Samples dropped because source timestamp + the writer's lifespan had passed (on
    /// arrival, or while queued). DDS 1.4 §2.2.3.16.
    pub samples_expired: u64,
    /// Samples of an instance owned by a stronger writer (EXCLUSIVE ownership).
    pub samples_not_owner: u64,
    /// Samples dropped by TIME_BASED_FILTER.
    pub samples_filtered: u64,
    /// NOT_ALIVE_NO_WRITERS notifications queued.
    pub no_writers_notifications: u64,
    /// Samples our content filter rejected: by the writer's PID_CONTENT_FILTER_INFO bit.
    pub content_filtered_by_writer: u64,
    /// Samples our content filter rejected on evaluation here.
    pub content_filtered_locally: u64,
    /// Samples delivered on the writer's word (their bit was 1), not evaluated here.
    pub content_passed_by_writer: u64,
    /// Changes of coherent sets that could not be complete, dropped (RTPS 2.5 §8.7.5).
    pub coherent_samples_dropped: u64,
    /// HEARTBEATs and GAPs whose range reached beyond anything the writer has sent, cut back
    /// to it (`writer_proxy.rs`, `docs/security.md` §6).
    pub ranges_clamped: u64,
}
