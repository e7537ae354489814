//! The inline QoS a reader acts on (PID_STATUS_INFO, PID_KEY_HASH, PID_COHERENT_SET and our
//! own entry of PID_CONTENT_FILTER_INFO) and the rule that turns a DATA/DATA_FRAG's flags plus status info
//! into a [`ChangeKind`] or "nothing to deliver".
//!
//! Must not: allocate, panic on any input, or interpret parameters other than the four above.
//!
//! RTPS 2.5 §8.3.7.2 (Data flags), §9.6.4.8 (KeyHash_t), §9.6.4.9 (StatusInfo_t, always
//! big-endian: docs/interop-facts.md §5.7), §9.6.4.4 (PID_COHERENT_SET, a SequenceNumber_t
//! in the submessage's byte order).

use crate::cdr::{Endianness, Reader};
use crate::core::{ChangeKind, GroupStamp, SampleIdentity};
use crate::wire::plist::pid::{
    PID_COHERENT_SET, PID_CONTENT_FILTER_INFO, PID_GROUP_COHERENT_SET, PID_GROUP_SEQ_NUM,
    PID_KEY_HASH, PID_ORIGINAL_WRITER_INFO, PID_STATUS_INFO, PID_WRITER_GROUP_INFO,
};
use crate::wire::plist::{ContentFilterInfoView, ParameterListView};
use crate::wire::{SequenceNumber, WriterGroupInfo};

/// StatusInfo_t flag F: the sample was filtered out for this reader. RTPS 2.5 §9.6.4.9.
const STATUS_INFO_FILTERED: u32 = 0x4;

/// What the payload of a DATA/DATA_FRAG holds (its D/K flags). RTPS 2.5 §8.3.7.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum PayloadKind {
    /// D: the serialized sample.
    Data,
    /// K: the serialized key.
    Key,
    /// Neither: no serializedPayload.
    None,
}

/// The two inline-QoS parameters the reader understands.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct InlineInfo {
    /// PID_STATUS_INFO flags, when present and well formed.
    pub status_info: Option<u32>,
    /// PID_KEY_HASH, when present and exactly 16 octets.
    pub key_hash: Option<[u8; 16]>,
    /// The writer's filter result for our signature (PID_CONTENT_FILTER_INFO), when listed.
    pub filter_result: Option<bool>,
    /// PID_COHERENT_SET (the first SN of the change's coherent set), when well formed.
    pub coherent_set: Option<SequenceNumber>,
    /// PID_ORIGINAL_WRITER_INFO, when present and well formed (a relayed sample). RTPS 2.5
    /// §8.7.9.
    pub original_writer: Option<SampleIdentity>,
    /// The writer-group stamp (PID_GROUP_SEQ_NUM, with PID_GROUP_COHERENT_SET and
    /// PID_WRITER_GROUP_INFO when present and well formed). RTPS 2.5 §8.7.6, §9.6.3.
    pub group: Option<GroupStamp>,
}

impl InlineInfo {
    /// Extracts status info and key hash. A parameter with a malformed value is treated as
    /// absent (the rest of the submessage stays usable); the first occurrence wins.
    /// `signature` is our content filter's, if we have one. RTPS 2.5 §8.7.3.3.
    pub(super) fn parse(qos: Option<&ParameterListView<'_>>, signature: Option<&[u8; 16]>) -> Self {
        let Some(qos) = qos else {
            return InlineInfo::default();
        };
        // One walk over the list (it is walked per received DATA); the first occurrence of
        // each parameter wins.
        let (mut status, mut key, mut filter, mut coherent, mut original) =
            (None, None, None, None, None);
        let (mut gsn, mut group_set, mut writer_group) = (None, None, None);
        for p in qos.iter() {
            match p.pid {
                PID_STATUS_INFO if status.is_none() => status = Some(p.value),
                PID_KEY_HASH if key.is_none() => key = Some(p.value),
                PID_CONTENT_FILTER_INFO if filter.is_none() => filter = Some(p.value),
                PID_COHERENT_SET if coherent.is_none() => coherent = Some(p.value),
                PID_ORIGINAL_WRITER_INFO if original.is_none() => original = Some(p.value),
                PID_GROUP_SEQ_NUM if gsn.is_none() => gsn = Some(p.value),
                PID_GROUP_COHERENT_SET if group_set.is_none() => group_set = Some(p.value),
                PID_WRITER_GROUP_INFO if writer_group.is_none() => writer_group = Some(p.value),
                _ => {}
            }
        }
        // RTPS 2.5 §9.6.4.9 / docs/interop-facts.md §5.7: StatusInfo_t is read big-endian whatever
        // the submessage's E flag says (Cyclone `fromBE4u`, Fast DDS reads the 4th octet).
        let status_info = status.and_then(|v| {
            Reader::new(v, Endianness::Big)
                .u32_be("PID_STATUS_INFO")
                .ok()
        });
        // RTPS 2.5 §9.6.4.8: KeyHash_t is 16 octets, no byte order.
        let key_hash = key.and_then(|v| <[u8; 16]>::try_from(v).ok());
        // RTPS 2.5 §9.6.4.1: a malformed info gives no result (the reader filters itself).
        let filter_result = signature.zip(filter).and_then(|(sig, v)| {
            ContentFilterInfoView::new_checked(v, qos.endian())
                .ok()?
                .bit_for(sig)
        });
        let coherent_set =
            coherent.and_then(|v| SequenceNumber::parse(&mut Reader::new(v, qos.endian())).ok());
        let original_writer = original.and_then(|v| SampleIdentity::parse(v, qos.endian()).ok());
        let sn = |v: &[u8]| SequenceNumber::parse(&mut Reader::new(v, qos.endian())).ok();
        // A group SN below 1 is not one (RTPS 2.5 §8.7.6: group SNs start at 1): no stamp.
        let group = gsn.and_then(sn).filter(|g| g.0 > 0).map(|gsn| GroupStamp {
            gsn,
            coherent_set: group_set.and_then(sn).filter(|s| s.0 > 0),
            writer_set: writer_group
                .and_then(|v| WriterGroupInfo::parse(v).ok())
                .map(|i| i.writer_set),
        });
        InlineInfo {
            status_info,
            key_hash,
            filter_result,
            coherent_set,
            original_writer,
            group,
        }
    }

    /// The change this DATA describes, or `None` when it carries nothing for the application
    /// (the SN is then irrelevant, like a GAP entry).
    ///
    /// - Status info with F (filtered) ⇒ nothing. RTPS 2.5 §9.6.4.9.
    /// - Status info with D and/or U ⇒ that NOT_ALIVE kind, whatever the payload (K-flag key,
    ///   D-flag data or none: a dispose may be carried by inline QoS alone). RTPS 2.5 §8.3.7.2.
    /// - Otherwise only a D-flag payload is an ALIVE sample. A K-flag or empty DATA without
    ///   D/U status (e.g. an RTPS 2.1-style register) has no value to deliver ⇒ nothing.
    pub(super) fn change_kind(&self, payload: PayloadKind) -> Option<ChangeKind> {
        let status = self.status_info.unwrap_or(0);
        if status & STATUS_INFO_FILTERED != 0 {
            return None;
        }
        match ChangeKind::from_status_info(status) {
            ChangeKind::Alive => (payload == PayloadKind::Data).then_some(ChangeKind::Alive),
            not_alive => Some(not_alive),
        }
    }
}
