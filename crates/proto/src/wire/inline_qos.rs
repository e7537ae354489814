//! The inline QoS of a DATA / DATA_FRAG ([`InlineQos`]): the parameters a writer sends with
//! a change and a reader acts on, and the value of PID_ORIGINAL_WRITER_INFO
//! ([`SampleIdentity`], OriginalWriterInfo_t).
//!
//! Must not: panic on any input, allocate, or interpret parameters other than the nine
//! [`InlineQos`] names (the rest of a list is skipped).
//!
//! RTPS 2.5 §9.6.4.8 (PID_KEY_HASH: KeyHash_t), §9.6.4.9 (PID_STATUS_INFO: StatusInfo_t,
//! always big-endian: docs/interop-facts.md §5.7), §9.6.4.1 (PID_CONTENT_FILTER_INFO),
//! §9.6.4.4 (PID_COHERENT_SET), §8.7.6 and §9.6.3 (PID_GROUP_SEQ_NUM, PID_GROUP_COHERENT_SET,
//! PID_WRITER_GROUP_INFO), §8.7.9 and §9.6.3 (PID_ORIGINAL_WRITER_INFO), docs/peer-group-cache.md
//! §4.1 (PID_SIFTDDS_PEER_GROUP_KEY).

use crate::cdr::{CdrError, CdrReader, CdrWriter, Endianness};
use crate::wire::plist::pid::{
    PID_COHERENT_SET, PID_CONTENT_FILTER_INFO, PID_GROUP_COHERENT_SET, PID_GROUP_SEQ_NUM,
    PID_KEY_HASH, PID_ORIGINAL_WRITER_INFO, PID_STATUS_INFO, PID_WRITER_GROUP_INFO,
};
use crate::wire::plist::{Parameter, ParameterListView, RawParameter, Value};
use crate::wire::{
    Guid, PID_SIFTDDS_PEER_GROUP_KEY, SequenceNumber, WireError, WriterGroupInfo,
    plist::PID_SENTINEL,
};

/// Octets of a parameter header (parameterId, length). RTPS 2.5 §9.4.2.11.
const PARAM_HEADER_LEN: usize = 4;

/// The longest value a parameter's 16-bit length can describe once padded to 4.
const MAX_VALUE_LEN: usize = u16::MAX as usize & !3;

/// The identity of a sample end to end: its original writer and that writer's sequence
/// number, carried by a relaying router in PID_ORIGINAL_WRITER_INFO (OriginalWriterInfo_t,
/// RTPS 2.5 §8.7.9, §9.6.3: GUID_t, SequenceNumber_t, then a ParameterList of the original
/// writer's QoS, which we send empty and ignore).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SampleIdentity {
    /// The writer that first wrote the sample.
    pub writer_guid: Guid,
    /// Its sequence number in that writer.
    pub sequence_number: SequenceNumber,
}

impl SampleIdentity {
    /// Octets [`Self::emit`] writes: GUID (16), SN (8), an empty QoS list (4).
    pub const LEN: usize = 28;

    /// Decodes an OriginalWriterInfo_t value (the QoS list after the SN is not read).
    pub fn parse(value: &[u8], endian: Endianness) -> Result<Self, CdrError> {
        let mut r = CdrReader::new(value, endian);
        Ok(SampleIdentity {
            writer_guid: Guid::parse(&mut r)?,
            sequence_number: SequenceNumber::parse(&mut r)?,
        })
    }

    /// Encodes an OriginalWriterInfo_t value with an empty QoS list (PID_SENTINEL only).
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        self.writer_guid.emit(w);
        self.sequence_number.emit(w);
        // RTPS 2.5 §9.4.2.11: PID_SENTINEL, length 0.
        w.u16(PID_SENTINEL);
        w.u16(0);
    }
}

/// The inline QoS parameters of a DATA / DATA_FRAG, in the order [`InlineQos::emit`] writes
/// them. Values the PID table does not interpret for us (the content filter info and the
/// peer-group key) are kept as their encoded bytes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct InlineQos<'a> {
    /// PID_KEY_HASH (16 octets).
    pub key_hash: Option<[u8; 16]>,
    /// PID_STATUS_INFO flags (D = 0x1, U = 0x2, F = 0x4).
    pub status_info: Option<u32>,
    /// PID_CONTENT_FILTER_INFO's value (ContentFilterInfo_t, in the list's byte order).
    pub content_filter_info: Option<&'a [u8]>,
    /// PID_COHERENT_SET: the first SN of the change's coherent set.
    pub coherent_set: Option<SequenceNumber>,
    /// PID_GROUP_SEQ_NUM.
    pub group_seq_num: Option<SequenceNumber>,
    /// PID_GROUP_COHERENT_SET.
    pub group_coherent_set: Option<SequenceNumber>,
    /// PID_WRITER_GROUP_INFO.
    pub writer_group_info: Option<WriterGroupInfo>,
    /// PID_ORIGINAL_WRITER_INFO.
    pub original_writer_info: Option<SampleIdentity>,
    /// PID_SIFTDDS_PEER_GROUP_KEY's value (a peer-group definition, docs/peer-group-cache.md §4.1).
    pub peer_group_key: Option<&'a [u8]>,
}

impl<'a> InlineQos<'a> {
    /// Reads the parameters this type names from `list`. The first occurrence of each wins;
    /// a parameter whose value is malformed is treated as absent (the rest of the submessage
    /// stays usable), so this never fails.
    pub fn parse(list: &ParameterListView<'a>) -> Self {
        let endian = list.endian();
        let sn = |v: &[u8]| SequenceNumber::parse(&mut CdrReader::new(v, endian)).ok();
        let mut q = InlineQos::default();
        // One walk over the list (it is walked per received DATA). A value is decoded only
        // for the first occurrence of its PID; `seen` marks it even when malformed.
        let mut seen = 0u16;
        for p in list.iter() {
            let bit = match p.pid {
                PID_KEY_HASH => 1,
                PID_STATUS_INFO => 1 << 1,
                PID_CONTENT_FILTER_INFO => 1 << 2,
                PID_COHERENT_SET => 1 << 3,
                PID_GROUP_SEQ_NUM => 1 << 4,
                PID_GROUP_COHERENT_SET => 1 << 5,
                PID_WRITER_GROUP_INFO => 1 << 6,
                PID_ORIGINAL_WRITER_INFO => 1 << 7,
                PID_SIFTDDS_PEER_GROUP_KEY => 1 << 8,
                _ => continue,
            };
            if seen & bit != 0 {
                continue;
            }
            seen |= bit;
            let v = p.value;
            match p.pid {
                // RTPS 2.5 §9.6.4.8: KeyHash_t is 16 octets, no byte order.
                PID_KEY_HASH => q.key_hash = <[u8; 16]>::try_from(v).ok(),
                // RTPS 2.5 §9.6.4.9 / docs/interop-facts.md §5.7: StatusInfo_t is read
                // big-endian whatever the submessage's E flag says (Cyclone `fromBE4u`, Fast
                // DDS reads the 4th octet).
                PID_STATUS_INFO => {
                    q.status_info = CdrReader::new(v, Endianness::Big)
                        .u32_be("PID_STATUS_INFO")
                        .ok();
                }
                PID_CONTENT_FILTER_INFO => q.content_filter_info = Some(v),
                PID_COHERENT_SET => q.coherent_set = sn(v),
                PID_GROUP_SEQ_NUM => q.group_seq_num = sn(v),
                PID_GROUP_COHERENT_SET => q.group_coherent_set = sn(v),
                PID_WRITER_GROUP_INFO => q.writer_group_info = WriterGroupInfo::parse(v).ok(),
                PID_ORIGINAL_WRITER_INFO => {
                    q.original_writer_info = SampleIdentity::parse(v, endian).ok();
                }
                _ => q.peer_group_key = Some(v),
            }
        }
        q
    }

    /// True when no parameter is set (the DATA carries no inline QoS at all).
    pub fn is_empty(&self) -> bool {
        *self == InlineQos::default()
    }

    /// The parameters that the PID table encodes, in emit order (all but
    /// PID_WRITER_GROUP_INFO and PID_ORIGINAL_WRITER_INFO, which [`Self::emit`] writes itself).
    fn table_params(&self) -> [Option<Parameter<'a>>; 7] {
        let known = |pid, value| Parameter::Known { pid, value };
        let raw = |pid, value| Parameter::Unknown(RawParameter { pid, value });
        let sn = |pid, s: Option<SequenceNumber>| s.map(|s| known(pid, Value::SequenceNumber(s)));
        [
            self.key_hash
                .map(|k| known(PID_KEY_HASH, Value::KeyHash(k))),
            self.status_info
                .map(|s| known(PID_STATUS_INFO, Value::StatusInfo(s))),
            self.content_filter_info
                .map(|v| raw(PID_CONTENT_FILTER_INFO, v)),
            sn(PID_COHERENT_SET, self.coherent_set),
            sn(PID_GROUP_SEQ_NUM, self.group_seq_num),
            sn(PID_GROUP_COHERENT_SET, self.group_coherent_set),
            self.peer_group_key
                .map(|v| raw(PID_SIFTDDS_PEER_GROUP_KEY, v)),
        ]
    }

    /// Octets [`Self::emit`] writes, sentinel included.
    pub fn buffer_len(&self) -> usize {
        let table = self.table_params();
        let fixed = [
            self.writer_group_info.map(|_| WriterGroupInfo::LEN),
            self.original_writer_info.map(|_| SampleIdentity::LEN),
        ];
        table
            .iter()
            .flatten()
            .map(Parameter::buffer_len)
            .chain(
                fixed
                    .into_iter()
                    .flatten()
                    .map(|n| n.saturating_add(PARAM_HEADER_LEN)),
            )
            .fold(PARAM_HEADER_LEN, usize::saturating_add)
    }

    /// Writes the list, sentinel included: PID_KEY_HASH, PID_STATUS_INFO,
    /// PID_CONTENT_FILTER_INFO, PID_COHERENT_SET, PID_GROUP_SEQ_NUM, PID_GROUP_COHERENT_SET,
    /// PID_WRITER_GROUP_INFO, PID_ORIGINAL_WRITER_INFO (last of the standard ones, so that
    /// [`patch_original_sn`] finds it) and PID_SIFTDDS_PEER_GROUP_KEY, each when set.
    ///
    /// Errors (nothing written): a raw value longer than a parameter length can describe.
    pub fn emit(&self, w: &mut CdrWriter<'_>) -> Result<(), WireError> {
        let raw_values = [self.content_filter_info, self.peer_group_key];
        if raw_values.iter().flatten().any(|v| v.len() > MAX_VALUE_LEN) {
            return Err(WireError::TooLarge("parameter value"));
        }
        let [key, status, cfi, coherent, gsn, group_set, peer_group_key] = self.table_params();
        for p in [key, status, cfi, coherent, gsn, group_set]
            .iter()
            .flatten()
        {
            p.emit(w);
        }
        if let Some(info) = self.writer_group_info {
            param_header(w, PID_WRITER_GROUP_INFO, WriterGroupInfo::LEN);
            info.emit(&mut w.nested());
        }
        if let Some(id) = self.original_writer_info {
            param_header(w, PID_ORIGINAL_WRITER_INFO, SampleIdentity::LEN);
            id.emit(&mut w.nested());
        }
        if let Some(p) = peer_group_key {
            p.emit(w);
        }
        // RTPS 2.5 §9.4.2.11: the sentinel's length is ignored; we write 0.
        param_header(w, PID_SENTINEL, 0);
        Ok(())
    }
}

/// Writes a parameter header for a value of `len` octets (a multiple of 4).
fn param_header(w: &mut CdrWriter<'_>, pid: u16, len: usize) {
    w.u16(pid);
    w.u16(u16::try_from(len).unwrap_or(u16::MAX));
}

/// Rewrites in place the original SN of `list`, an encoded list of `len` octets without its
/// sentinel whose last parameter is PID_ORIGINAL_WRITER_INFO of `id.writer_guid` (checked:
/// false, and `list` untouched, otherwise). With the rest of the list unchanged, the result is
/// what [`InlineQos::emit`] writes with `original_writer_info = Some(id)`.
pub fn patch_original_sn(
    list: &mut [u8],
    len: usize,
    id: SampleIdentity,
    endian: Endianness,
) -> bool {
    let Some(start) = len.checked_sub(SampleIdentity::LEN + PARAM_HEADER_LEN) else {
        return false;
    };
    let Some(param) = list.get_mut(start..len) else {
        return false;
    };
    let (head, value) = param.split_at_mut(PARAM_HEADER_LEN);
    let u16_at = |at: std::ops::Range<usize>| {
        let b: [u8; 2] = head.get(at)?.try_into().ok()?;
        Some(match endian {
            Endianness::Little => u16::from_le_bytes(b),
            Endianness::Big => u16::from_be_bytes(b),
        })
    };
    if u16_at(0..2) != Some(PID_ORIGINAL_WRITER_INFO)
        || u16_at(2..4).map(usize::from) != Some(SampleIdentity::LEN)
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
mod tests;
