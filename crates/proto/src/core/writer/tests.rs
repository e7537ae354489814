//! Writer tests: deterministic, manual clock, no sockets. Every transmit is parsed back with
//! `wire::Message::parse`, so the tests also check that what we emit is valid RTPS.
//!
//! Must not: sleep, read clocks, or depend on `core::reader` (written concurrently).
//!
//! RTPS 2.5 §8.4.7-§8.4.9 (behaviour under test); `sim.rs` and `multicast_sim.rs` are
//! end-to-end lossy runs on `core::sim::SimNet`.
// Test arithmetic is on small known values; the parent's parse-path lint does not apply.
#![allow(clippy::arithmetic_side_effects)]

mod filter;
mod flow_sim;
mod instance;
mod lazy_gap;
mod multicast;
mod multicast_sim;
mod sim;
mod unit;

use bytes::Bytes;

use super::{Writer, WriterConfig};
use crate::cdr::{CdrReader, Endianness};
use crate::core::{ChangeKind, RemoteReader, Transmit, WriteRequest};
use crate::time::{Instant, Now, Timestamp};
use crate::wire::plist::ParameterListView;
use crate::wire::plist::pid::{PID_KEY_HASH, PID_STATUS_INFO};
use crate::wire::submessage::{AckNack, DataPayload, Submessage, SubmessageOutcome};
use crate::wire::{
    EntityId, Guid, GuidPrefix, Locator, Message, SequenceNumber, SequenceNumberSet,
};

pub(super) const READER_ENTITY: EntityId = EntityId([0, 0, 1, 0x07]);

pub(super) fn writer_guid() -> Guid {
    Guid::new(GuidPrefix([1; 12]), EntityId([0, 0, 1, 0x02]))
}

pub(super) fn reader_guid(n: u8) -> Guid {
    Guid::new(GuidPrefix([n; 12]), READER_ENTITY)
}

pub(super) fn remote(n: u8, reliable: bool, wants_history: bool) -> RemoteReader {
    RemoteReader {
        guid: reader_guid(n),
        unicast_locators: vec![Locator::udpv4([127, 0, 0, n], 7400)],
        multicast_locators: Vec::new(),
        reliable,
        expects_inline_qos: false,
        wants_history,
    }
}

pub(super) fn at(ms: u64) -> Now {
    Now {
        mono: Instant::from_nanos(ms * 1_000_000),
        wall: Timestamp::from_unix_nanos(1_700_000_000_000_000_000 + ms * 1_000_000),
    }
}

pub(super) fn config() -> WriterConfig {
    WriterConfig::new(writer_guid())
}

pub(super) fn sample(i: u32) -> Bytes {
    let mut v = vec![0x00, 0x01, 0x00, 0x00];
    v.extend_from_slice(&i.to_le_bytes());
    Bytes::from(v)
}

pub(super) fn write(w: &mut Writer, now: Now, i: u32) -> SequenceNumber {
    w.write(now, WriteRequest::new(ChangeKind::Alive, None, sample(i)))
        .unwrap()
}

pub(super) fn drain(w: &mut Writer, now: Now) -> Vec<Transmit> {
    let mut out = Vec::new();
    while let Some(t) = w.poll_transmit(now) {
        assert!(
            t.payload.len() <= w.config().max_message_size,
            "datagram too large"
        );
        out.push(t);
        assert!(out.len() < 100_000, "poll_transmit does not terminate");
    }
    out
}

/// An owned summary of one submessage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Sub {
    Dst(GuidPrefix),
    Ts,
    Data {
        reader: EntityId,
        sn: i64,
        payload: Option<Vec<u8>>,
        /// The serialized key (K flag).
        key_payload: Option<Vec<u8>>,
        key_hash: Option<Vec<u8>>,
        status: Option<u32>,
    },
    Frag {
        reader: EntityId,
        sn: i64,
        frag: u32,
        size: u32,
        bytes: Vec<u8>,
        frag_size: u16,
    },
    Gap {
        reader: EntityId,
        start: i64,
        base: i64,
        set: Vec<i64>,
    },
    Hb {
        reader: EntityId,
        first: i64,
        last: i64,
        fin: bool,
        count: i32,
    },
    Other,
}

fn find(q: &Option<ParameterListView<'_>>, pid: u16) -> Option<Vec<u8>> {
    q.as_ref()
        .and_then(|q| q.find(pid))
        .map(|p| p.value.to_vec())
}

/// Parses a datagram we emitted; panics on anything malformed.
pub(super) fn parse(payload: &[u8]) -> Vec<Sub> {
    let (header, iter) = Message::parse(payload).unwrap();
    assert_eq!(header.guid_prefix, writer_guid().prefix);
    let mut out = Vec::new();
    for o in iter {
        let s = match o {
            SubmessageOutcome::Accept(s) => s,
            other => panic!("not accepted: {other:?}"),
        };
        out.push(match s {
            Submessage::InfoDst(d) => Sub::Dst(d.guid_prefix),
            Submessage::InfoTs(_) => Sub::Ts,
            Submessage::Data(d) => Sub::Data {
                reader: d.reader_id,
                sn: d.writer_sn.0,
                payload: match d.payload {
                    DataPayload::Data(b) => Some(b.to_vec()),
                    _ => None,
                },
                key_payload: match d.payload {
                    DataPayload::Key(b) => Some(b.to_vec()),
                    _ => None,
                },
                key_hash: find(&d.inline_qos, PID_KEY_HASH),
                status: find(&d.inline_qos, PID_STATUS_INFO)
                    .map(|v| u32::from_be_bytes([v[0], v[1], v[2], v[3]])),
            },
            Submessage::DataFrag(d) => {
                assert_eq!(d.fragments_in_submessage, 1);
                Sub::Frag {
                    reader: d.reader_id,
                    sn: d.writer_sn.0,
                    frag: d.fragment_starting_num.0,
                    size: d.sample_size,
                    bytes: d.fragments.to_vec(),
                    frag_size: d.fragment_size,
                }
            }
            Submessage::Gap(g) => Sub::Gap {
                reader: g.reader_id,
                start: g.gap_start.0,
                base: g.gap_list.bitmap_base().0,
                set: g.gap_list.iter().map(|s| s.0).collect(),
            },
            Submessage::Heartbeat(h) => Sub::Hb {
                reader: h.reader_id,
                first: h.first_sn.0,
                last: h.last_sn.0,
                fin: h.final_flag,
                count: h.count,
            },
            _ => Sub::Other,
        });
    }
    out
}

pub(super) fn parse_all(ts: &[Transmit]) -> Vec<Sub> {
    ts.iter().flat_map(|t| parse(&t.payload)).collect()
}

pub(super) fn data_sns(subs: &[Sub]) -> Vec<i64> {
    subs.iter()
        .filter_map(|s| match s {
            Sub::Data { sn, .. } => Some(*sn),
            _ => None,
        })
        .collect()
}

pub(super) fn heartbeats(subs: &[Sub]) -> Vec<(i64, i64, bool)> {
    subs.iter()
        .filter_map(|s| match s {
            Sub::Hb {
                first, last, fin, ..
            } => Some((*first, *last, *fin)),
            _ => None,
        })
        .collect()
}

/// An ACKNACK from reader `n`: everything below `base` received, `missing` requested.
pub(super) fn acknack(base: i64, missing: &[i64], count: i32) -> AckNack {
    let reader_sn_state = if missing.is_empty() {
        SequenceNumberSet::new(SequenceNumber(base), 0).unwrap()
    } else {
        SequenceNumberSet::from_members(
            SequenceNumber(base),
            missing.iter().map(|s| SequenceNumber(*s)),
        )
        .unwrap()
    };
    AckNack {
        endian: Endianness::Little,
        final_flag: missing.is_empty(),
        reader_id: READER_ENTITY,
        writer_id: writer_guid().entity_id,
        reader_sn_state,
        count,
    }
}

#[test]
fn inline_qos_view_helper_reads_big_endian_status() {
    // Sanity of the test helper itself: STATUS_INFO is big-endian whatever the list's order.
    let bytes = [0x71, 0x00, 0x04, 0x00, 0, 0, 0, 1, 0x01, 0x00, 0x00, 0x00];
    let v =
        ParameterListView::new_checked(&mut CdrReader::new(&bytes, Endianness::Little)).unwrap();
    assert_eq!(find(&Some(v), PID_STATUS_INFO), Some(vec![0, 0, 0, 1]));
}
