//! A small RTPS packet forger for the hostile-peer tests (`hostile.rs`): HEARTBEAT, GAP,
//! ACKNACK and SPDP dispose in another participant's name, and SPDP announcements with a
//! chosen sequence number and lease, all encoded with siftdds' own wire layer.
//!
//! Must not: open sockets (the tests send these bytes from whatever address they bind).

use siftdds::cdr::{CdrReader, Endianness};
use siftdds::core::discovery::ParticipantProxyData;
use siftdds::time::Duration as RtpsDuration;
use siftdds::wire::plist::ParameterListView;
use siftdds::wire::submessage::{AckNack, Data, DataPayload, Gap, Heartbeat, InfoDst, Submessage};
use siftdds::wire::{
    EntityId, Guid, GuidPrefix, Header, Locator, SequenceNumber, SequenceNumberSet, emit_message,
};

const LE: Endianness = Endianness::Little;

/// One message in `from`'s name: INFO_DST(`to`) then `sm`.
fn to(from: GuidPrefix, to: GuidPrefix, sm: Submessage<'_>) -> Vec<u8> {
    let dst = Submessage::InfoDst(InfoDst {
        endian: LE,
        guid_prefix: to,
    });
    let mut buf = Vec::new();
    emit_message(&Header::new(from), &[dst, sm], &mut buf);
    buf
}

/// HEARTBEAT from `writer` to `reader` announcing `[first, last]`, with a count no real
/// writer has reached yet.
pub fn heartbeat(writer: Guid, reader: Guid, first: i64, last: i64) -> Vec<u8> {
    let hb = Heartbeat {
        endian: LE,
        final_flag: false,
        liveliness: false,
        reader_id: reader.entity_id,
        writer_id: writer.entity_id,
        first_sn: SequenceNumber(first),
        last_sn: SequenceNumber(last),
        count: 1 << 30,
        group_info: None,
    };
    to(writer.prefix, reader.prefix, Submessage::Heartbeat(hb))
}

/// GAP from `writer` to `reader`: `[start, end)` irrelevant.
pub fn gap(writer: Guid, reader: Guid, start: i64, end: i64) -> Vec<u8> {
    let g = Gap {
        endian: LE,
        reader_id: reader.entity_id,
        writer_id: writer.entity_id,
        gap_start: SequenceNumber(start),
        gap_list: SequenceNumberSet::new(SequenceNumber(end), 0).expect("empty set"),
        group: None,
    };
    to(writer.prefix, reader.prefix, Submessage::Gap(g))
}

/// ACKNACK from `reader` to `writer` acknowledging everything below `base`.
pub fn acknack(reader: Guid, writer: Guid, base: i64) -> Vec<u8> {
    let a = AckNack {
        endian: LE,
        final_flag: true,
        reader_id: reader.entity_id,
        writer_id: writer.entity_id,
        reader_sn_state: SequenceNumberSet::new(SequenceNumber(base), 0).expect("empty set"),
        count: 1 << 30,
    };
    to(reader.prefix, writer.prefix, Submessage::AckNack(a))
}

/// SPDP DATA of `prefix` with sequence number `sn`: the dispose (key only, STATUS_INFO
/// disposed | unregistered inline, as a deleted participant sends) when `dispose`, else an
/// announcement with `lease` whose unicast locators are all `at`.
pub fn spdp(
    prefix: GuidPrefix,
    domain: u32,
    sn: i64,
    lease_s: i32,
    at: Locator,
    dispose: bool,
) -> Vec<u8> {
    let guid = Guid::new(prefix, EntityId::PARTICIPANT).to_bytes();
    // PID_STATUS_INFO (0x0071), 4 bytes, big-endian flags 3; PID_SENTINEL.
    let qos = [0x71, 0x00, 0x04, 0x00, 0, 0, 0, 3, 0x01, 0x00, 0x00, 0x00];
    let mut key = vec![0x00, 0x03, 0x00, 0x00, 0x50, 0x00, 0x10, 0x00];
    key.extend_from_slice(&guid);
    key.extend_from_slice(&[0x01, 0x00, 0x00, 0x00]);
    let mut p = ParticipantProxyData::new(prefix, domain);
    p.metatraffic_unicast_locators = vec![at];
    p.default_unicast_locators = vec![at];
    p.lease_duration = RtpsDuration::from_std(core::time::Duration::from_secs(lease_s as u64));
    let announcement = p.to_payload(LE).expect("encodable participant data");
    let inline_qos = dispose.then(|| {
        ParameterListView::new_checked(&mut CdrReader::new(&qos, LE)).expect("valid inline QoS")
    });
    let d = Data {
        endian: LE,
        extra_flags: 0,
        reader_id: EntityId::SPDP_PARTICIPANT_DETECTOR,
        writer_id: EntityId::SPDP_PARTICIPANT_ANNOUNCER,
        writer_sn: SequenceNumber(sn),
        inline_qos,
        payload: if dispose {
            DataPayload::Key(&key)
        } else {
            DataPayload::Data(&announcement)
        },
    };
    let mut buf = Vec::new();
    emit_message(&Header::new(prefix), &[Submessage::Data(d)], &mut buf);
    buf
}
