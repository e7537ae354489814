//! What a reader makes of a DATA/DATA_FRAG's inline QoS (`wire::InlineQos` decodes it):
//! [`InlineInfo`], which keeps PID_STATUS_INFO, PID_KEY_HASH, PID_COHERENT_SET,
//! PID_ORIGINAL_WRITER_INFO, the writer-group stamp (PID_GROUP_SEQ_NUM, PID_GROUP_COHERENT_SET,
//! PID_WRITER_GROUP_INFO) and our own entry of PID_CONTENT_FILTER_INFO, and the rule that
//! turns the DATA's flags plus status info into a [`ChangeKind`] or "nothing to deliver".
//!
//! Must not: allocate or panic on any input.
//!
//! RTPS 2.5 §8.3.7.2 (Data flags), §9.6.4.9 (StatusInfo_t), §8.7.3.3 (content filter info),
//! §8.7.6 (group SNs start at 1).

use crate::core::{ChangeKind, GroupStamp, SampleIdentity};
use crate::wire::plist::{ContentFilterInfoView, ParameterListView};
use crate::wire::{InlineQos, SequenceNumber};

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

/// The inline QoS a reader acts on.
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
    /// Extracts what the reader acts on. A parameter with a malformed value is treated as
    /// absent (the rest of the submessage stays usable); the first occurrence wins.
    /// `signature` is our content filter's, if we have one. RTPS 2.5 §8.7.3.3.
    pub(super) fn parse(qos: Option<&ParameterListView<'_>>, signature: Option<&[u8; 16]>) -> Self {
        let Some(qos) = qos else {
            return InlineInfo::default();
        };
        let q = InlineQos::parse(qos);
        // RTPS 2.5 §9.6.4.1: a malformed info gives no result (the reader filters itself).
        let filter_result = signature.zip(q.content_filter_info).and_then(|(sig, v)| {
            ContentFilterInfoView::new_checked(v, qos.endian())
                .ok()?
                .bit_for(sig)
        });
        // A group SN below 1 is not one (RTPS 2.5 §8.7.6: group SNs start at 1): no stamp.
        let group = q.group_seq_num.filter(|g| g.0 > 0).map(|gsn| GroupStamp {
            gsn,
            coherent_set: q.group_coherent_set.filter(|s| s.0 > 0),
            writer_set: q.writer_group_info.map(|i| i.writer_set),
        });
        InlineInfo {
            status_info: q.status_info,
            key_hash: q.key_hash,
            filter_result,
            coherent_set: q.coherent_set,
            original_writer: q.original_writer_info,
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
