//! Builds one outgoing RTPS message for a writer: the header, an optional INFO_DST, then as
//! many DATA / DATA_FRAG / GAP / HEARTBEAT submessages (with INFO_TS where the source timestamp
//! changes) as fit in the size limit.
//!
//! Must not: decide what to send (the writer does), exceed `max` bytes, copy payloads more than
//! once (straight into the datagram), or do I/O / read clocks.
//!
//! A DATA_FRAG fragment of at least [`SPLICE_MIN_FRAGMENT`] bytes is not copied at all: the
//! message records it as a [`Splice`] of the stored sample (one per message), which the
//! transport sends with the rest in one gather send.
//!
//! RTPS 2.5 §8.3.3 (message structure), §8.3.7.2-§8.3.7.5 (DATA, DATA_FRAG, GAP, HEARTBEAT),
//! §8.3.7.7 (INFO_DST), §8.3.7.11 (INFO_TS), §9.6.4.8-9 (PID_KEY_HASH, PID_STATUS_INFO),
//! §9.6.4.1 (PID_CONTENT_FILTER_INFO).

use crate::cdr::{CdrWriter, Endianness};
use crate::core::{CacheChange, ChangeKind, Splice, Transmit};
use crate::time::Timestamp;
use crate::wire::plist::ParameterListView;
use crate::wire::submessage::{
    Data, DataFrag, DataPayload, Gap, Heartbeat, HeartbeatGroupInfo, InfoDst, InfoTs, Submessage,
};
use crate::wire::{
    EntityId, FragmentNumber, Guid, GuidPrefix, Header, Locator, SequenceNumber, SequenceNumberSet,
};

use super::inline_qos::{inline_qos_into, patch_original_sn};

/// Byte order of everything we emit.
pub(super) const ENDIAN: Endianness = Endianness::Little;
/// Encoded HEARTBEAT size (4-byte header + 28-byte body). RTPS 2.5 §9.4.5.6.
pub(super) const HEARTBEAT_LEN: usize = 32;
/// Worst-case bytes around one DATA_FRAG payload in a message: header (20), INFO_DST (16),
/// INFO_TS (12), DATA_FRAG fixed part (4 + 32), inline QoS with KEY_HASH and STATUS_INFO and
/// the sentinel (32), PID_COHERENT_SET (12), the group parameters of a GROUP-scope writer
/// (PID_GROUP_SEQ_NUM 12, PID_GROUP_COHERENT_SET 12, PID_WRITER_GROUP_INFO 8) and room for a piggy-backed HEARTBEAT (32). A change's
/// PID_CONTENT_FILTER_INFO comes on top (`content_filter.rs` checks that it fits).
pub(super) const MESSAGE_OVERHEAD: usize = 192;
/// Smallest payload or fragment sent as a [`Splice`] rather than copied into the message:
/// below it, a copy costs less than the extra iovec and the shared handle.
pub(super) const SPLICE_MIN_FRAGMENT: usize = 16 * 1024;

/// What one message carried, for the writer's counters.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct Sent {
    pub(super) data: u64,
    pub(super) data_frag: u64,
    pub(super) gaps: u64,
    pub(super) heartbeats: u64,
    /// GAPs sent because of content filtering, and the (reader, SN) pairs they covered.
    pub(super) filter_gaps: u64,
    pub(super) filtered: u64,
    /// Abbreviated peer-group samples (`peer_group.rs`).
    pub(super) abbreviated: u64,
}

/// What an encoded inline QoS list depends on besides filter info, group stamp and
/// original writer: the change's kind, key hash and coherent set.
type QosOf = (ChangeKind, Option<[u8; 16]>, Option<SequenceNumber>);

/// An RTPS message under construction.
pub(super) struct MessageBuilder {
    buf: Vec<u8>,
    max: usize,
    /// Bytes kept free for a final HEARTBEAT.
    reserve: usize,
    empty_len: usize,
    /// The INFO_TS state of the receiver so far: `None` before any INFO_TS.
    ts: Option<Option<Timestamp>>,
    reader_id: EntityId,
    writer_id: EntityId,
    keyed: bool,
    /// The encoded inline QoS of the last DATA / DATA_FRAG added, and the (kind, key hash)
    /// it was encoded for when it carried no filter info: the next change of the same
    /// instance reuses it.
    qos: Vec<u8>,
    qos_of: Option<QosOf>,
    /// The same for a relayed change's list, and its original writer: the next change of
    /// that instance and writer patches the SN (`inline_qos.rs`).
    relayed_of: Option<(QosOf, Guid)>,
    /// Length of `qos` without its sentinel (`None`: no list).
    qos_len: Option<usize>,
    /// A fragment sent from the stored sample rather than copied into `buf`.
    splice: Option<Splice>,
    /// Octets a protection transform adds to each submessage later, and the submessages
    /// added so far: the message leaves room for them.
    overhead: usize,
    submessages: usize,
    pub(super) sent: Sent,
}

/// The inline QoS list in `bytes` that `wire::InlineQos` encoded, `len` bytes without the
/// sentinel: valid by construction, not walked again for every DATA that carries it.
fn checked_view(bytes: &[u8], len: Option<usize>) -> Option<ParameterListView<'_>> {
    let list = bytes.get(..len?)?;
    Some(ParameterListView::prevalidated(list, ENDIAN))
}

/// The fragment count of a payload of `len` bytes in `frag_size` pieces (≥ 1).
pub(super) fn fragment_count(len: usize, frag_size: usize) -> u32 {
    let n = len.div_ceil(frag_size.max(1)).max(1);
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl MessageBuilder {
    /// A message from participant `src` by writer `writer_id`. With `dst`, the message is for
    /// that one reader: INFO_DST(dst prefix) and readerId = its entity id; without, readerId
    /// is ENTITYID_UNKNOWN (RTPS 2.5 §8.3.7.7; docs/interop-facts.md §5.8).
    pub(super) fn new(
        src: GuidPrefix,
        writer_id: EntityId,
        dst: Option<Guid>,
        max: usize,
        reserve: usize,
        keyed: bool,
    ) -> Self {
        let mut buf = Vec::with_capacity(max.min(2048));
        Header::new(src).emit(&mut buf);
        let reader_id = match dst {
            Some(g) => {
                InfoDst {
                    endian: ENDIAN,
                    guid_prefix: g.prefix,
                }
                .emit(&mut buf);
                g.entity_id
            }
            None => EntityId::UNKNOWN,
        };
        let empty_len = buf.len();
        MessageBuilder {
            buf,
            max,
            reserve,
            empty_len,
            ts: None,
            reader_id,
            writer_id,
            keyed,
            qos: Vec::new(),
            qos_of: None,
            relayed_of: None,
            qos_len: None,
            splice: None,
            overhead: 0,
            submessages: 0,
            sent: Sent::default(),
        }
    }

    /// Leaves `overhead` octets of room per submessage (the final HEARTBEAT's included) for
    /// a protection transform applied after the message is built.
    pub(super) fn with_submessage_overhead(mut self, overhead: usize) -> Self {
        self.overhead = overhead;
        self
    }

    /// True when at least one submessage was added.
    pub(super) fn has_content(&self) -> bool {
        self.buf.len() > self.empty_len
    }

    /// Makes room for a message of `total` bytes (at most the size limit) at once: a burst
    /// of small changes then fills one buffer instead of regrowing (and copying) it.
    pub(super) fn reserve_total(&mut self, total: usize) {
        let total = total.min(self.max);
        self.buf.reserve(total.saturating_sub(self.buf.len()));
    }

    /// Bytes so far (a splice included).
    pub(super) fn len(&self) -> usize {
        self.buf
            .len()
            .saturating_add(self.splice.as_ref().map_or(0, |s| s.bytes.len()))
    }

    fn fits(&self, len: usize, reserve: usize) -> bool {
        // This submessage's protection, every earlier one's and the reserved HEARTBEAT's.
        let protection = self.overhead.saturating_mul(
            self.submessages
                .saturating_add(usize::from(reserve > 0))
                .saturating_add(1),
        );
        self.len()
            .saturating_add(len)
            .saturating_add(reserve)
            .saturating_add(protection)
            <= self.max
    }

    /// The INFO_TS needed before a change with `ts`, if the last one differs.
    fn info_ts_for(&self, ts: Option<Timestamp>) -> Option<InfoTs> {
        match self.ts {
            Some(prev) if prev == ts => None,
            None if ts.is_none() => None,
            _ => Some(InfoTs {
                endian: ENDIAN,
                timestamp: ts,
            }),
        }
    }

    /// Emits `sub` (preceded by INFO_TS for `ts` when needed) if it fits; false otherwise.
    fn push(
        &mut self,
        ts: Option<Option<Timestamp>>,
        sub: &Submessage<'_>,
        reserve: usize,
    ) -> bool {
        if !self.make_room(ts, sub.buffer_len(), reserve) {
            return false;
        }
        sub.emit(&mut self.buf);
        true
    }

    /// If a submessage of `len` bytes fits (after INFO_TS for `ts` when needed), emits that
    /// INFO_TS and returns true; else emits nothing and returns false.
    fn make_room(&mut self, ts: Option<Option<Timestamp>>, len: usize, reserve: usize) -> bool {
        let info = ts.and_then(|t| self.info_ts_for(t));
        let len = len.saturating_add(info.map_or(0, |i| i.buffer_len()));
        if !self.fits(len, reserve) {
            return false;
        }
        self.submessages = self.submessages.saturating_add(1);
        if let (Some(i), Some(t)) = (info, ts) {
            i.emit(&mut self.buf);
            self.ts = Some(t);
        }
        true
    }

    /// Encodes the inline QoS of `change` into `self.qos`, unless it holds that list already.
    fn prepare_inline_qos(&mut self, change: &CacheChange, cfi: Option<&[u8]>) {
        let of = (change.kind, change.key_hash, change.coherent_set);
        // A group-stamped change's list carries its own group SN: never reused.
        let plain = cfi.is_none() && change.group.is_none();
        let reusable = plain && change.original_writer.is_none();
        if reusable && self.qos_of == Some(of) {
            return;
        }
        // A relayed change's list differs from the last one's only by its original SN when
        // the rest is the same (`inline_qos.rs`).
        let relayed = change.original_writer.filter(|_| plain);
        if let (Some(id), Some(len)) = (relayed, self.qos_len)
            && self.relayed_of == Some((of, id.writer_guid))
            && patch_original_sn(&mut self.qos, len, id, ENDIAN)
        {
            return;
        }
        self.qos_len = inline_qos_into(change, self.keyed, cfi, None, &mut self.qos, ENDIAN);
        self.qos_of = reusable.then_some(of);
        self.relayed_of = relayed.map(|id| (of, id.writer_guid));
    }

    /// Adds a DATA for `change`: the sample (D flag) when ALIVE, else inline STATUS_INFO +
    /// KEY_HASH and the serialized key (K flag) when there is one; the message's first sample
    /// of at least [`SPLICE_MIN_FRAGMENT`] bytes is spliced, not copied.
    /// RTPS 2.5 §8.3.7.2, §9.4.5.3.
    /// `cfi` is the change's encoded PID_CONTENT_FILTER_INFO value, if any.
    pub(super) fn data(&mut self, change: &CacheChange, cfi: Option<&[u8]>) -> bool {
        self.prepare_inline_qos(change, cfi);
        self.data_with_prepared_qos(change)
    }

    /// [`data`](Self::data) with the inline QoS already in `self.qos`.
    fn data_with_prepared_qos(&mut self, change: &CacheChange) -> bool {
        // Taken out for the duration of the push (which borrows the builder mutably).
        let qos = core::mem::take(&mut self.qos);
        let payload = match change.kind {
            // RTPS 2.5 §8.7.5: the end-of-set marker has no payload (writer/coherent.rs).
            ChangeKind::Alive if change.is_coherent_end() => DataPayload::None,
            ChangeKind::Alive => DataPayload::Data(&change.data),
            _ if change.data.is_empty() => DataPayload::None,
            _ => DataPayload::Key(&change.data),
        };
        let data = Data {
            endian: ENDIAN,
            extra_flags: 0,
            reader_id: self.reader_id,
            writer_id: self.writer_id,
            writer_sn: change.sequence_number,
            inline_qos: checked_view(&qos, self.qos_len),
            payload,
        };
        let ok = self.make_room(
            Some(change.source_timestamp),
            data.buffer_len(),
            self.reserve,
        );
        if ok {
            let large = matches!(payload, DataPayload::Data(b) if b.len() >= SPLICE_MIN_FRAGMENT);
            if large && self.splice.is_none() {
                data.emit_head(&mut self.buf);
                let bytes = change.data.clone();
                self.splice = Some(Splice {
                    at: self.buf.len(),
                    bytes,
                });
            } else {
                data.emit(&mut self.buf);
            }
            self.sent.data = self.sent.data.saturating_add(1);
        }
        self.qos = qos;
        ok
    }

    /// Adds a DATA for `change` carrying the peer-group definition `def` in its inline QoS
    /// (docs/peer-group-cache.md §4.1). The cached inline QoS is not reused after it.
    pub(super) fn data_defining(
        &mut self,
        change: &CacheChange,
        cfi: Option<&[u8]>,
        def: &crate::wire::KeyDefinition,
    ) -> bool {
        let mut value = Vec::with_capacity(def.buffer_len());
        def.emit(&mut CdrWriter::new(&mut value, ENDIAN));
        self.qos_len =
            inline_qos_into(change, self.keyed, cfi, Some(&value), &mut self.qos, ENDIAN);
        // The list is this DATA's alone: the next change encodes its own.
        self.qos_of = None;
        self.relayed_of = None;
        self.data_with_prepared_qos(change)
    }

    /// Adds the abbreviated vendor submessage for `change`: `key` (writers send the alias,
    /// or the short key when the binding is too old) and `rest` (the sample without its
    /// common segments), with the key hash of a keyed change, preceded by INFO_TS when
    /// needed. Returns its size, 0 when it did not fit. docs/peer-group-cache.md §4.2.
    pub(super) fn abbreviated(
        &mut self,
        change: &CacheChange,
        key: crate::wire::KeyRef,
        rest: &[u8],
    ) -> usize {
        let a = crate::wire::AbbreviatedData {
            endian: ENDIAN,
            reader_id: self.reader_id,
            writer_id: self.writer_id,
            writer_sn: change.sequence_number,
            key,
            key_hash: change.key_hash.filter(|_| self.keyed),
            rest,
        };
        if !self.make_room(Some(change.source_timestamp), a.buffer_len(), self.reserve) {
            return 0;
        }
        a.emit(&mut self.buf);
        self.sent.abbreviated = self.sent.abbreviated.saturating_add(1);
        a.buffer_len()
    }

    /// Adds DATA_FRAG `frag` (1-based) of `change`, one fragment per submessage, with the
    /// inline QoS repeated on every fragment; the first fragment of at least
    /// [`SPLICE_MIN_FRAGMENT`] bytes in the message is spliced, not copied.
    /// RTPS 2.5 §8.3.7.3, §9.4.5.4.
    pub(super) fn data_frag(
        &mut self,
        change: &CacheChange,
        cfi: Option<&[u8]>,
        frag: u32,
        frag_size: usize,
    ) -> bool {
        let len = change.data.len();
        let start = usize::try_from(frag.saturating_sub(1))
            .unwrap_or(usize::MAX)
            .saturating_mul(frag_size);
        let end = start.saturating_add(frag_size).min(len);
        let (Some(bytes), Ok(size16), Ok(sample_size)) = (
            change.data.get(start..end),
            u16::try_from(frag_size),
            u32::try_from(len),
        ) else {
            return true; // invariant: callers pass frag ≤ fragment_count; nothing to send.
        };
        self.prepare_inline_qos(change, cfi);
        let qos = core::mem::take(&mut self.qos);
        let frag_sub = DataFrag {
            endian: ENDIAN,
            extra_flags: 0,
            reader_id: self.reader_id,
            writer_id: self.writer_id,
            writer_sn: change.sequence_number,
            fragment_starting_num: FragmentNumber(frag),
            fragments_in_submessage: 1,
            fragment_size: size16,
            sample_size,
            inline_qos: checked_view(&qos, self.qos_len),
            key: false,
            fragments: bytes,
        };
        let ts = Some(change.source_timestamp);
        let fits = self.make_room(ts, frag_sub.buffer_len(), self.reserve);
        if fits {
            if bytes.len() >= SPLICE_MIN_FRAGMENT && self.splice.is_none() {
                frag_sub.emit_head(&mut self.buf);
                let bytes = change.data.slice(start..end);
                self.splice = Some(Splice {
                    at: self.buf.len(),
                    bytes,
                });
            } else {
                frag_sub.emit(&mut self.buf);
            }
            self.sent.data_frag = self.sent.data_frag.saturating_add(1);
        }
        self.qos = qos;
        fits
    }

    /// Adds a GAP marking `[start, end)` irrelevant (gapList = {end, numBits 0}).
    /// RTPS 2.5 §8.3.7.4, §8.4.9.2.x (GAP for changes not in the history or not relevant).
    pub(super) fn gap(&mut self, start: SequenceNumber, end: SequenceNumber) -> bool {
        self.gap_list(start, end, &[], 0)
    }

    /// Adds a GAP for `[start, end)` sent because content filtering rejected `filtered` of
    /// those changes for this reader. RTPS 2.5 §8.7.3.2 (a filtered-out sample is a GAP).
    pub(super) fn filter_gap(
        &mut self,
        start: SequenceNumber,
        end: SequenceNumber,
        filtered: u64,
    ) -> bool {
        self.gap_list(start, end, &[], filtered)
    }

    /// Adds one GAP marking `[start, base)` and the `members` (each in `[base, base + 256)`)
    /// irrelevant: gapStart = `start`, gapList = {`base`, bits for `members`}. `filtered` is
    /// how many of them content filtering rejected (for the counters). Returns false only when
    /// it does not fit; nothing is added for an empty or invalid set. RTPS 2.5 §8.3.7.4
    /// (irrelevant = [gapStart, gapList.bitmapBase − 1] ∪ gapList), §8.7.3.2.
    pub(super) fn gap_list(
        &mut self,
        start: SequenceNumber,
        base: SequenceNumber,
        members: &[SequenceNumber],
        filtered: u64,
    ) -> bool {
        if start >= base || start.0 < 1 {
            return true;
        }
        let Ok(gap_list) = SequenceNumberSet::from_members(base, members.iter().copied()) else {
            return true; // invariant: callers keep members within 256 of base.
        };
        let sub = Submessage::Gap(Gap {
            endian: ENDIAN,
            reader_id: self.reader_id,
            writer_id: self.writer_id,
            gap_start: start,
            gap_list,
            group: None,
        });
        let ok = self.push(None, &sub, self.reserve);
        if ok {
            self.sent.gaps = self.sent.gaps.saturating_add(1);
            if filtered > 0 {
                self.sent.filter_gaps = self.sent.filter_gaps.saturating_add(1);
                self.sent.filtered = self.sent.filtered.saturating_add(filtered);
            }
        }
        ok
    }

    /// Adds a HEARTBEAT (may use the reserved room). RTPS 2.5 §8.3.7.5: firstSN ≥ 1 and
    /// lastSN ≥ firstSN − 1; F = no response required.
    pub(super) fn heartbeat(
        &mut self,
        first: SequenceNumber,
        last: SequenceNumber,
        count: i32,
        final_flag: bool,
        group_info: Option<HeartbeatGroupInfo>,
    ) -> bool {
        let sub = Submessage::Heartbeat(Heartbeat {
            endian: ENDIAN,
            final_flag,
            liveliness: false,
            reader_id: self.reader_id,
            writer_id: self.writer_id,
            first_sn: first,
            last_sn: last,
            count,
            group_info,
        });
        let ok = self.push(None, &sub, 0);
        if ok {
            self.sent.heartbeats = self.sent.heartbeats.saturating_add(1);
        }
        ok
    }

    /// The finished datagram, for `destinations`.
    pub(super) fn finish(self, destinations: Vec<Locator>) -> (Transmit, Sent) {
        let transmit = Transmit {
            destinations,
            payload: self.buf,
            splice: self.splice,
        };
        (transmit, self.sent)
    }
}
