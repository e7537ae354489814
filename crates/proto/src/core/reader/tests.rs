//! Reader tests: deterministic, driven by hand-built wire reprs and a hand-moved clock.
//!
//! Must not: sleep, open sockets or read clocks.
//!
//! RTPS 2.5 §8.4.10-§8.4.12 (behaviours under test).
#![allow(clippy::arithmetic_side_effects)]

use proptest::prelude::*;

use super::*;
use crate::cdr::{CdrReader, Endianness};
use crate::core::ChangeKind;
use crate::wire::plist::ParameterListView;
use crate::wire::submessage::{AckNack, NackFrag, Submessage, SubmessageOutcome};
use crate::wire::{EntityId, FragmentNumber, GuidPrefix, Locator, Message, SequenceNumberSet};

mod fragment;
mod instance;
mod key_only;
mod presentation;
mod range_jump;
mod sample_info;

const LE: Endianness = Endianness::Little;

fn reader_guid() -> Guid {
    Guid::new(GuidPrefix([1; 12]), EntityId([0, 0, 1, 0x07]))
}

fn writer_guid() -> Guid {
    Guid::new(GuidPrefix([2; 12]), EntityId([0, 0, 1, 0x02]))
}

fn at(ms: u64) -> Now {
    Now {
        mono: Instant::from_nanos(ms * 1_000_000),
        wall: Timestamp::ZERO,
    }
}

fn remote(reliable: bool) -> RemoteWriter {
    RemoteWriter {
        guid: writer_guid(),
        unicast_locators: vec![Locator::udpv4([10, 0, 0, 2], 7411)],
        multicast_locators: Vec::new(),
        reliable,
        ownership_strength: 0,
        lifespan: None,
    }
}

fn config(reliable: bool) -> ReaderConfig {
    let mut c = ReaderConfig::new(reader_guid(), reliable, false);
    c.history = History::KeepAll;
    c.heartbeat_response_delay = core::time::Duration::from_millis(2);
    c
}

/// A reader matched with one writer, the pre-emptive ACKNACK already drained.
fn matched(config: ReaderConfig, writer_reliable: bool) -> Reader {
    let mut r = Reader::new(config);
    r.matched_writer_add(at(0), remote(writer_reliable));
    while r.poll_transmit(at(0)).is_some() {}
    r
}

fn data(sn: i64, payload: &[u8]) -> Data<'_> {
    Data {
        endian: LE,
        extra_flags: 0,
        reader_id: EntityId::UNKNOWN,
        writer_id: writer_guid().entity_id,
        writer_sn: SequenceNumber(sn),
        inline_qos: None,
        payload: DataPayload::Data(payload),
    }
}

fn heartbeat(first: i64, last: i64, count: i32, final_flag: bool) -> Heartbeat {
    Heartbeat {
        endian: LE,
        final_flag,
        liveliness: false,
        reader_id: EntityId::UNKNOWN,
        writer_id: writer_guid().entity_id,
        first_sn: SequenceNumber(first),
        last_sn: SequenceNumber(last),
        count,
        group_info: None,
    }
}

fn gap(start: i64, base: i64, members: &[i64]) -> Gap {
    let list = SequenceNumberSet::from_members(
        SequenceNumber(base),
        members.iter().map(|m| SequenceNumber(*m)),
    );
    Gap {
        endian: LE,
        reader_id: EntityId::UNKNOWN,
        writer_id: writer_guid().entity_id,
        gap_start: SequenceNumber(start),
        gap_list: list.unwrap(),
        group: None,
    }
}

fn frag(
    sn: i64,
    start: u32,
    count: u16,
    size: u16,
    sample_size: u32,
    bytes: &[u8],
) -> DataFrag<'_> {
    DataFrag {
        endian: LE,
        extra_flags: 0,
        reader_id: EntityId::UNKNOWN,
        writer_id: writer_guid().entity_id,
        writer_sn: SequenceNumber(sn),
        fragment_starting_num: FragmentNumber(start),
        fragments_in_submessage: count,
        fragment_size: size,
        sample_size,
        inline_qos: None,
        key: false,
        fragments: bytes,
    }
}

fn drain(r: &mut Reader) -> Vec<i64> {
    std::iter::from_fn(|| r.poll_sample())
        .map(|c| c.sequence_number.0)
        .collect()
}

/// The ACKNACK and NACK_FRAGs of a transmit, checking the INFO_DST and header on the way.
fn parse_ack(t: &Transmit) -> (AckNack, Vec<NackFrag>) {
    let (header, subs) = Message::parse(&t.payload).unwrap();
    assert_eq!(header.guid_prefix, reader_guid().prefix);
    let subs: Vec<_> = subs
        .map(|s| match s {
            SubmessageOutcome::Accept(s) => s,
            other => panic!("{other:?}"),
        })
        .collect();
    match subs.first() {
        Some(Submessage::InfoDst(d)) => assert_eq!(d.guid_prefix, writer_guid().prefix),
        other => panic!("expected INFO_DST, got {other:?}"),
    }
    let Some(Submessage::AckNack(ack)) = subs.get(1) else {
        panic!("expected ACKNACK: {subs:?}");
    };
    assert_eq!(ack.reader_id, reader_guid().entity_id);
    assert_eq!(ack.writer_id, writer_guid().entity_id);
    let nacks = subs[2..]
        .iter()
        .map(|s| match s {
            Submessage::NackFrag(n) => *n,
            other => panic!("{other:?}"),
        })
        .collect();
    (*ack, nacks)
}

fn missing(ack: &AckNack) -> Vec<i64> {
    ack.reader_sn_state.iter().map(|s| s.0).collect()
}

#[test]
fn reordered_data_is_delivered_in_order() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_data(at(1), w, None, &data(3, b"c"));
    r.handle_data(at(1), w, None, &data(2, b"b"));
    assert_eq!(
        r.poll_sample(),
        None,
        "1 is missing, nothing may be delivered"
    );
    r.handle_data(at(1), w, None, &data(1, b"a"));
    let got: Vec<_> = std::iter::from_fn(|| r.poll_sample()).collect();
    assert_eq!(
        got.iter().map(|c| c.sequence_number.0).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(got[0].data.as_ref(), b"a");
    assert_eq!(got[2].data.as_ref(), b"c");
    assert_eq!(got[0].kind, ChangeKind::Alive);
}

#[test]
fn duplicate_data_is_suppressed() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    for sn in [1, 1, 3, 2, 3, 1] {
        r.handle_data(at(1), w, None, &data(sn, b"x"));
    }
    assert_eq!(drain(&mut r), [1, 2, 3]);
    assert_eq!(r.counters().duplicates, 3);
    assert_eq!(r.counters().samples_delivered, 3);
}

#[test]
fn gap_fills_holes() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_data(at(1), w, None, &data(1, b"a"));
    r.handle_data(at(1), w, None, &data(4, b"d"));
    r.handle_data(at(1), w, None, &data(7, b"g"));
    // [2, 3] contiguous, plus 5 and 6 as gapList members.
    r.handle_gap(at(1), w, &gap(2, 4, &[5, 6]));
    assert_eq!(drain(&mut r), [1, 4, 7]);
}

#[test]
fn huge_gap_is_skipped_in_one_step() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_gap(at(1), w, &gap(1, 1_000_000_000, &[]));
    r.handle_data(at(1), w, None, &data(1_000_000_000, b"z"));
    assert_eq!(drain(&mut r), [1_000_000_000]);
}

#[test]
fn preemptive_acknack_is_sent_when_a_reliable_writer_matches() {
    let mut r = Reader::new(config(true));
    r.matched_writer_add(at(0), remote(true));
    assert_eq!(r.poll_timeout(), Some(at(0).mono));
    let t = r.poll_transmit(at(0)).unwrap();
    assert_eq!(t.destinations, remote(true).unicast_locators);
    let (ack, nacks) = parse_ack(&t);
    assert_eq!(ack.reader_sn_state.bitmap_base(), SequenceNumber(1));
    assert_eq!(ack.reader_sn_state.num_bits(), 0);
    assert!(!ack.final_flag, "pre-emptive ACKNACK asks for a HEARTBEAT");
    assert!(nacks.is_empty());
    assert_eq!(r.poll_transmit(at(0)), None);
    // Repeated until the writer's first HEARTBEAT arrives.
    let again = at(PREEMPTIVE_ACKNACK_PERIOD.as_millis() as u64);
    assert_eq!(r.poll_timeout(), Some(again.mono));
    assert!(r.poll_transmit(again).is_some());
}

#[test]
fn best_effort_pair_sends_no_acknack() {
    let mut r = Reader::new(config(true));
    r.matched_writer_add(at(0), remote(false));
    assert_eq!(r.poll_transmit(at(0)), None);
    r.handle_heartbeat(at(1), writer_guid(), &heartbeat(1, 5, 1, false));
    assert_eq!(r.poll_transmit(at(100)), None);
    assert_eq!(r.counters().heartbeats_ignored, 1);
}

#[test]
fn heartbeat_is_answered_with_the_missing_set_after_the_delay() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    for sn in [1, 3, 5] {
        r.handle_data(at(1), w, None, &data(sn, b"x"));
    }
    r.handle_heartbeat(at(10), w, &heartbeat(1, 6, 1, false));
    assert_eq!(r.poll_timeout(), Some(at(12).mono));
    assert_eq!(
        r.poll_transmit(at(11)),
        None,
        "heartbeat_response_delay not yet over"
    );
    let t = r.poll_transmit(at(12)).unwrap();
    let (ack, _) = parse_ack(&t);
    assert_eq!(ack.reader_sn_state.bitmap_base(), SequenceNumber(2));
    assert_eq!(missing(&ack), [2, 4, 6]);
    assert!(!ack.final_flag);
    assert_eq!(ack.count, 2, "the pre-emptive ACKNACK had count 1");
    assert_eq!(r.poll_transmit(at(12)), None);
    // The next reply increments the count.
    r.handle_heartbeat(at(20), w, &heartbeat(1, 6, 2, true));
    let (ack, _) = parse_ack(&r.poll_transmit(at(30)).unwrap());
    assert_eq!(ack.count, 3);
    assert_eq!(r.counters().acknacks_sent, 3);
}

#[test]
fn final_heartbeat_with_nothing_missing_gets_no_acknack() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_data(at(1), w, None, &data(1, b"a"));
    r.handle_data(at(1), w, None, &data(2, b"b"));
    r.handle_heartbeat(at(2), w, &heartbeat(1, 2, 1, true));
    assert_eq!(r.poll_timeout(), None);
    assert_eq!(r.poll_transmit(at(100)), None);
    // Without F the reader must answer, with a final ACKNACK acknowledging everything.
    r.handle_heartbeat(at(200), w, &heartbeat(1, 2, 2, false));
    let (ack, _) = parse_ack(&r.poll_transmit(at(300)).unwrap());
    assert_eq!(ack.reader_sn_state.bitmap_base(), SequenceNumber(3));
    assert_eq!(ack.reader_sn_state.num_bits(), 0);
    assert!(ack.final_flag);
}

#[test]
fn stale_heartbeat_count_is_ignored() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_heartbeat(at(1), w, &heartbeat(1, 0, 5, true));
    r.handle_heartbeat(at(1), w, &heartbeat(1, 3, 5, false));
    r.handle_heartbeat(at(1), w, &heartbeat(1, 3, 4, false));
    assert_eq!(r.counters().heartbeats_ignored, 2);
    assert_eq!(r.poll_transmit(at(100)), None);
}

#[test]
fn heartbeat_first_sn_skips_changes_the_writer_no_longer_has() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    r.handle_data(at(1), w, None, &data(2, b"b"));
    r.handle_data(at(1), w, None, &data(6, b"f"));
    r.handle_heartbeat(at(1), w, &heartbeat(5, 6, 1, true));
    assert_eq!(drain(&mut r), [2]);
    r.handle_data(at(1), w, None, &data(5, b"e"));
    assert_eq!(drain(&mut r), [5, 6]);
    assert_eq!(r.counters().samples_lost, 3, "1, 3 and 4");
}

#[test]
fn writers_last_sn_is_the_latest_announced_or_the_highest_received() {
    // What `siftdds perf sub` compares with what it took, to count loss at the tail. A real
    // writer's lastSN never goes back; a lower one replaces a claim no DATA bore out.
    let mut r = matched(config(true), true);
    let w = writer_guid();
    assert_eq!(r.writers_last_sn(), [(w, SequenceNumber(0))]);
    r.handle_data(at(1), w, None, &data(1, b"a"));
    assert_eq!(r.writers_last_sn(), [(w, SequenceNumber(1))]);
    r.handle_heartbeat(at(1), w, &heartbeat(1, 9, 1, true));
    assert_eq!(r.writers_last_sn(), [(w, SequenceNumber(9))]);
    r.handle_heartbeat(at(1), w, &heartbeat(1, 4, 2, true));
    assert_eq!(r.writers_last_sn(), [(w, SequenceNumber(4))]);
    r.handle_heartbeat(at(1), w, &heartbeat(1, 0, 3, true));
    assert_eq!(
        r.writers_last_sn(),
        [(w, SequenceNumber(1))],
        "not below what was received"
    );
}

#[test]
fn start_at_match_takes_nothing_written_before_the_first_heartbeat() {
    let mut c = config(true);
    c.start_at_match = true;
    let mut r = matched(c, true);
    let w = writer_guid();
    // The writer had 1..=10 (unacknowledged by someone else); its first HEARTBEAT says so.
    r.handle_heartbeat(at(1), w, &heartbeat(1, 10, 1, false));
    r.handle_data(at(1), w, None, &data(3, b"old"));
    r.handle_data(at(2), w, None, &data(11, b"new"));
    assert_eq!(drain(&mut r), [11]);
    // Without the flag the old ones are wanted (and NACKed).
    let mut plain = matched(config(true), true);
    plain.handle_heartbeat(at(1), w, &heartbeat(1, 10, 1, false));
    plain.handle_data(at(1), w, None, &data(1, b"old"));
    assert_eq!(drain(&mut plain), [1]);
    // A change pushed before the first HEARTBEAT is kept: we start there.
    let mut c = config(true);
    c.start_at_match = true;
    let mut early = matched(c, true);
    early.handle_data(at(1), w, None, &data(9, b"pushed"));
    early.handle_heartbeat(at(1), w, &heartbeat(1, 9, 1, false));
    assert_eq!(drain(&mut early), [9]);
}

#[test]
fn start_at_match_asks_for_data_that_overtook_the_writers_sedp() {
    // A router's proxy reader: the writer matched us and sent 7..=9 before its SEDP reached
    // us (dropped then: not matched). Its first HEARTBEAT says 1..=9; we start at 7, not 10,
    // and ask for 7..=9.
    let w = writer_guid();
    let mut c = config(true);
    c.start_at_match = true;
    let mut r = Reader::new(c);
    for sn in [8, 7, 9] {
        r.note_unmatched_data(w, SequenceNumber(sn));
    }
    r.matched_writer_add(at(0), remote(true));
    while r.poll_transmit(at(0)).is_some() {}
    r.handle_heartbeat(at(1), w, &heartbeat(1, 9, 1, false));
    let (ack, _) = parse_ack(&r.poll_transmit(at(10)).unwrap());
    assert_eq!(missing(&ack), [7, 8, 9]);
    for sn in 7..=10 {
        r.handle_data(at(11), w, None, &data(sn, b"x"));
    }
    assert_eq!(drain(&mut r), [7, 8, 9, 10]);
    // A plain reader does not note them (the writer decides what it gets).
    let mut plain = Reader::new(config(true));
    plain.note_unmatched_data(w, SequenceNumber(7));
    plain.matched_writer_add(at(0), remote(true));
    while plain.poll_transmit(at(0)).is_some() {}
    plain.handle_heartbeat(at(1), w, &heartbeat(1, 9, 1, false));
    let (ack, _) = parse_ack(&plain.poll_transmit(at(10)).unwrap());
    assert_eq!(missing(&ack), (1..=9).collect::<Vec<_>>());
}

/// One rule for where a reader starts (`ReaderSpec::starts_at_match`, docs/durability.md):
/// by durability unless overridden. A writer that answers a new VOLATILE reader with its
/// whole history (hdds 1.1 in OMG Test_Durability_16): its first HEARTBEAT says 1..=10, then
/// it sends 1..=10 again and the new 11. A VOLATILE reader asks for none of the old ones and
/// delivers only 11; a TRANSIENT_LOCAL one asks for and delivers 1..=11.
#[test]
fn a_volatile_reader_starts_where_the_writer_stood_a_transient_local_one_takes_its_history() {
    use crate::core::participant::ReaderSpec;
    use crate::qos::{DataReaderQos, Durability};
    let spec = |durability| {
        let q = DataReaderQos {
            durability,
            ..DataReaderQos::default()
        };
        ReaderSpec::new("T", "T", false, q)
    };
    assert!(spec(Durability::Volatile).starts_at_match());
    assert!(!spec(Durability::TransientLocal).starts_at_match());
    let mut s = spec(Durability::Volatile);
    s.start_at_match = Some(false);
    assert!(
        !s.starts_at_match(),
        "a router's standby proxy takes the history"
    );
    let mut s = spec(Durability::TransientLocal);
    s.start_at_match = Some(true);
    assert!(s.starts_at_match());
    let w = writer_guid();
    for (durability, asked, delivered) in [
        (Durability::Volatile, vec![], vec![11]),
        (
            Durability::TransientLocal,
            (1..=10).collect(),
            (1..=11).collect::<Vec<i64>>(),
        ),
    ] {
        let mut c = config(true);
        c.start_at_match = spec(durability).starts_at_match();
        let mut r = matched(c, true);
        r.handle_heartbeat(at(1), w, &heartbeat(1, 10, 1, false));
        let (ack, _) = parse_ack(&r.poll_transmit(at(10)).unwrap());
        assert_eq!(missing(&ack), asked, "{durability:?}");
        for sn in 1..=11 {
            r.handle_data(at(11), w, None, &data(sn, b"x"));
        }
        assert_eq!(drain(&mut r), delivered, "{durability:?}");
    }
}

#[test]
fn best_effort_counts_lost_samples_and_drops_older_ones() {
    let mut r = matched(config(false), true);
    let w = writer_guid();
    for sn in [1, 2, 5, 3, 5, 9] {
        r.handle_data(at(1), w, None, &data(sn, b"x"));
    }
    assert_eq!(drain(&mut r), [1, 2, 5, 9]);
    assert_eq!(r.counters().samples_lost, 5, "3, 4, 6, 7, 8");
    assert_eq!(r.counters().duplicates, 2);
}

/// `STATUS_INFO(flags) + KEY_HASH(key)` as a little-endian inline QoS list.
fn inline_qos_bytes(status: u8, key: [u8; 16]) -> Vec<u8> {
    let mut b = vec![
        0x71, 0x00, 0x04, 0x00, 0, 0, 0, status, 0x70, 0x00, 0x10, 0x00,
    ];
    b.extend(key);
    b.extend([0x01, 0x00, 0x00, 0x00]);
    b
}

#[test]
fn dispose_via_status_info_yields_not_alive_disposed_with_the_key_hash() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    let key = [7u8; 16];
    let qos = inline_qos_bytes(0x01, key);
    let view = ParameterListView::new_checked(&mut CdrReader::new(&qos, LE)).unwrap();
    let mut d = data(1, b"");
    d.inline_qos = Some(view);
    d.payload = DataPayload::None;
    let ts = Timestamp {
        seconds: 5,
        fraction: 0,
    };
    r.handle_data(at(1), w, Some(ts), &d);
    // A K-flag unregister carries the serialized key as its data.
    let qos2 = inline_qos_bytes(0x02, key);
    let mut k = data(2, b"");
    k.inline_qos = Some(ParameterListView::new_checked(&mut CdrReader::new(&qos2, LE)).unwrap());
    k.payload = DataPayload::Key(&[0, 1, 0, 0, 9, 9, 9, 9]);
    r.handle_data(at(1), w, None, &k);
    let c = r.poll_sample().unwrap();
    assert_eq!(c.kind, ChangeKind::NotAliveDisposed);
    assert_eq!(c.key_hash, Some(key));
    assert_eq!(c.source_timestamp, Some(ts));
    assert!(c.data.is_empty());
    let c = r.poll_sample().unwrap();
    assert_eq!(c.kind, ChangeKind::NotAliveUnregistered);
    assert_eq!(c.data.as_ref(), &[0, 1, 0, 0, 9, 9, 9, 9]);
}

#[test]
fn keep_last_one_keeps_the_newest_sample_per_instance() {
    let mut c = ReaderConfig::new(reader_guid(), true, true);
    c.history = History::KeepLast(1);
    let mut r = matched(c, true);
    let w = writer_guid();
    let (qa, qb) = (
        inline_qos_bytes(0, [0xa; 16]),
        inline_qos_bytes(0, [0xb; 16]),
    );
    for (sn, q) in [(1, &qa), (2, &qb), (3, &qa)] {
        let mut d = data(sn, b"v");
        d.inline_qos = Some(ParameterListView::new_checked(&mut CdrReader::new(q, LE)).unwrap());
        r.handle_data(at(1), w, None, &d);
    }
    let got: Vec<_> = std::iter::from_fn(|| r.poll_sample())
        .map(|c| (c.sequence_number.0, c.key_hash.map(|k| k[0])))
        .collect();
    assert_eq!(got, [(2, Some(0xb)), (3, Some(0xa))]);
    assert_eq!(r.counters().samples_replaced, 1);
}

#[test]
fn keep_all_full_queue_stops_acknowledging_until_the_application_takes() {
    let mut c = config(true);
    c.resource_limits.max_samples = Length::Limited(2);
    let mut r = matched(c, true);
    let w = writer_guid();
    for sn in 1..=3 {
        r.handle_data(at(1), w, None, &data(sn, b"x"));
    }
    assert_eq!(r.samples_queued(), 2);
    r.handle_heartbeat(at(2), w, &heartbeat(1, 3, 1, false));
    let (ack, _) = parse_ack(&r.poll_transmit(at(10)).unwrap());
    assert_eq!(
        ack.reader_sn_state.bitmap_base(),
        SequenceNumber(3),
        "3 is not acknowledged"
    );
    assert_eq!(r.poll_sample().map(|c| c.sequence_number.0), Some(1));
    assert_eq!(drain(&mut r), [2, 3]);
    assert_eq!(r.counters().samples_rejected, 0);
}

#[test]
fn take_all_drains_past_a_full_queue_the_stalled_writer_refills() {
    let mut c = config(true);
    c.resource_limits.max_samples = Length::Limited(2);
    let mut r = matched(c, true);
    let w = writer_guid();
    // The window is max_samples (2) wide: 3 and 4 wait in the writer proxy.
    for sn in [2, 1, 3, 4] {
        r.handle_data(at(1), w, None, &data(sn, b"x"));
    }
    assert_eq!(
        r.samples_queued(),
        2,
        "the queue holds two, the writer is stalled"
    );
    let mut out = Vec::new();
    assert_eq!(r.take_all(at(2), &mut out), 4);
    let sns: Vec<i64> = out.iter().map(|c| c.sequence_number.0).collect();
    assert_eq!(sns, [1, 2, 3, 4]);
    assert_eq!(r.take_all(at(2), &mut out), 0);
    assert_eq!(r.counters().samples_rejected, 0);
}

#[test]
fn select_take_drains_past_a_full_queue_the_stalled_writer_refills() {
    let mut c = config(true);
    c.resource_limits.max_samples = Length::Limited(2);
    let mut r = matched(c, true);
    let w = writer_guid();
    for sn in [2, 1, 3, 4] {
        r.handle_data(at(1), w, None, &data(sn, b"x"));
    }
    assert_eq!(r.samples_queued(), 2, "the writer is stalled");
    let three = ReadSelection {
        max_samples: 3,
        ..ReadSelection::any()
    };
    let sns = |got: Vec<(CacheChange, SampleInfo)>| -> Vec<i64> {
        got.iter().map(|(c, _)| c.sequence_number.0).collect()
    };
    assert_eq!(sns(r.select(at(2), &three, true)), [1, 2, 3]);
    assert_eq!(sns(r.select(at(2), &ReadSelection::any(), true)), [4]);
    assert_eq!(r.counters().samples_rejected, 0);
}

#[test]
fn data_from_an_unmatched_writer_is_counted_and_ignored() {
    let mut r = matched(config(true), true);
    let other = Guid::new(GuidPrefix([9; 12]), EntityId([0, 0, 2, 0x02]));
    r.handle_data(at(1), other, None, &data(1, b"x"));
    assert_eq!(r.poll_sample(), None);
    assert_eq!(r.counters().unknown_writer, 1);
    assert!(r.matched_writer_remove(writer_guid()));
    r.handle_data(at(1), writer_guid(), None, &data(1, b"x"));
    assert_eq!(r.counters().unknown_writer, 2);
}

/// One input of the property test.
#[derive(Clone, Debug)]
enum Event {
    Data(i64),
    Gap(i64, i64),
}

/// SNs 1..=n, each either written (`true`) or gapped, as events with some duplicated.
fn scenario() -> impl Strategy<Value = (Vec<bool>, Vec<Event>)> {
    prop::collection::vec((any::<bool>(), 1usize..3), 1..40).prop_flat_map(|sns| {
        let mut events = Vec::new();
        let mut run_start: Option<i64> = None;
        for (i, (w, copies)) in sns.iter().enumerate() {
            let sn = i as i64 + 1;
            // A run of gapped SNs is covered by growing GAPs [start, sn]; every third one starts
            // a new GAP, so single and range GAPs both occur, overlapping.
            if *w {
                run_start = None;
                for _ in 0..*copies {
                    events.push(Event::Data(sn));
                }
            } else {
                let start = run_start.filter(|s| (sn - s) % 3 != 0).unwrap_or(sn);
                run_start = Some(start);
                for _ in 0..*copies {
                    events.push(Event::Gap(start, sn + 1));
                }
            }
        }
        let written: Vec<bool> = sns.iter().map(|(w, _)| *w).collect();
        (Just(written), Just(events).prop_shuffle())
    })
}

proptest! {
    #[test]
    fn any_permutation_and_duplication_delivers_each_sn_once_in_order(
        (written, events) in scenario()
    ) {
        let mut r = matched(config(true), true);
        let w = writer_guid();
        for e in &events {
            match *e {
                Event::Data(sn) => r.handle_data(at(1), w, None, &data(sn, b"p")),
                Event::Gap(start, end) => r.handle_gap(at(1), w, &gap(start, end, &[])),
            }
        }
        // The writer's HEARTBEAT announces every SN; answering our ACKNACK it repeats the
        // GAPs that ran ahead of anything it had shown (those are not taken on trust).
        let n = written.len() as i64;
        r.handle_heartbeat(at(2), w, &heartbeat(1, n, 1, true));
        for e in &events {
            if let Event::Gap(start, end) = *e {
                r.handle_gap(at(2), w, &gap(start, end, &[]));
            }
        }
        let expected: Vec<i64> =
            (1..).zip(&written).filter(|(_, w)| **w).map(|(sn, _)| sn).collect();
        prop_assert_eq!(drain(&mut r), expected);
        // Nothing is missing any more: a HEARTBEAT gets a final ACKNACK past the last SN.
        while r.poll_transmit(at(5)).is_some() {}
        r.handle_heartbeat(at(6), w, &heartbeat(1, n, 2, false));
        let (ack, nacks) = parse_ack(&r.poll_transmit(at(10)).unwrap());
        prop_assert_eq!(ack.reader_sn_state.bitmap_base(), SequenceNumber(n + 1));
        prop_assert!(ack.final_flag && ack.reader_sn_state.is_empty() && nacks.is_empty());
    }
}

#[test]
fn reliable_change_beyond_the_out_of_order_window_is_dropped_and_nacked_later() {
    let mut r = matched(config(true), true);
    let w = writer_guid();
    let far = 1 + MAX_OUT_OF_ORDER as i64;
    r.handle_data(at(1), w, None, &data(far, b"far"));
    assert_eq!(r.counters().out_of_window, 1);
    r.handle_heartbeat(at(2), w, &heartbeat(1, 3, 1, true));
    let (ack, _) = parse_ack(&r.poll_transmit(at(10)).unwrap());
    assert_eq!(missing(&ack), [1, 2, 3]);
}

#[test]
fn out_of_order_bytes_are_bounded_but_the_next_in_order_change_is_always_taken() {
    let mut c = config(true);
    c.max_sample_size = 16;
    let mut r = matched(c, true);
    let w = writer_guid();
    let big = vec![0u8; MAX_OUT_OF_ORDER_BYTES / 2 + 1];
    r.handle_data(at(1), w, None, &data(2, &big));
    r.handle_data(at(1), w, None, &data(3, &big));
    assert_eq!(r.counters().out_of_window, 1, "3 exceeds the budget");
    r.handle_data(at(1), w, None, &data(1, &big));
    r.handle_data(at(1), w, None, &data(3, &big));
    assert_eq!(drain(&mut r), [1, 2, 3]);
}
