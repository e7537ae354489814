//! Source validation in the participant (`source_bind.rs`): HEARTBEAT, GAP, ACKNACK and SPDP
//! disposes forged in a known participant's name from a foreign host are dropped and counted,
//! the reader keeps delivering, and a participant that moves is re-bound. Deterministic: the
//! simulated LAN (every node at 127.0.0.1) and a manual clock.
#![allow(clippy::arithmetic_side_effects)]

use bytes::Bytes;

use crate::cdr::Endianness;
use crate::core::participant::*;
use crate::core::sim::SimNet;
use crate::core::{ChangeKind, WriteRequest};
use crate::qos::{DataReaderQos, DataWriterQos, History, Reliability};
use crate::wire::submessage::{AckNack, Gap, Heartbeat, InfoDst};
use crate::wire::{Header, SequenceNumber, SequenceNumberSet, emit_message};

/// The foreign host of these attacks: loopback, but not the 127.0.0.1 the nodes use.
const ATTACKER: Locator = Locator {
    kind: Locator::KIND_UDPV4,
    port: 40000,
    address: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 127, 0, 0, 3],
};

/// Node 0 writes reliably (KEEP_ALL), node 1 reads; both matched.
fn matched_pair() -> (SimNet, Guid, Guid) {
    let mut net = SimNet::new(2, 0x5eed, |_| {});
    net.run_for(100);
    let now = net.now();
    let wq = DataWriterQos {
        history: History::KeepAll,
        reliability: Reliability::reliable(),
        ..DataWriterQos::default()
    };
    let rq = DataReaderQos {
        history: History::KeepAll,
        reliability: Reliability::reliable(),
        ..DataReaderQos::default()
    };
    let w = net.nodes[0]
        .p
        .create_writer(now, WriterSpec::new("Square", "ShapeType", true, wq));
    let r = net.nodes[1]
        .p
        .create_reader(now, ReaderSpec::new("Square", "ShapeType", true, rq));
    net.run_for(300);
    (net, w, r)
}

/// Writes `n` samples and returns how many node 1's reader took.
fn write_and_take(net: &mut SimNet, w: Guid, r: Guid, n: u32) -> usize {
    let mut got = 0;
    for i in 0..n {
        let now = net.now();
        let mut payload = vec![0u8, 1, 0, 0];
        payload.extend_from_slice(&i.to_le_bytes());
        let req = WriteRequest::new(ChangeKind::Alive, Some([1; 16]), Bytes::from(payload));
        net.nodes[0].p.write(now, w, req).unwrap();
        net.run_for(5);
        let now = net.now();
        while net.nodes[1].p.take(now, r).is_some() {
            got += 1;
        }
    }
    net.run_for(200);
    let now = net.now();
    while net.nodes[1].p.take(now, r).is_some() {
        got += 1;
    }
    got
}

/// One message from `from` (its header's prefix) to `to` holding `sm` after an INFO_DST.
pub(super) fn forged(from: GuidPrefix, to: GuidPrefix, sm: Submessage<'_>) -> Vec<u8> {
    let dst = Submessage::InfoDst(InfoDst {
        endian: Endianness::Little,
        guid_prefix: to,
    });
    let mut buf = Vec::new();
    emit_message(&Header::new(from), &[dst, sm], &mut buf);
    buf
}

pub(super) fn heartbeat(w: Guid, r: Guid, first: i64, last: i64) -> Submessage<'static> {
    Submessage::Heartbeat(Heartbeat {
        endian: Endianness::Little,
        final_flag: false,
        liveliness: false,
        reader_id: r.entity_id,
        writer_id: w.entity_id,
        first_sn: SequenceNumber(first),
        last_sn: SequenceNumber(last),
        count: 1_000_000,
        group_info: None,
    })
}

pub(super) fn gap(w: Guid, r: Guid, start: i64, base: i64) -> Submessage<'static> {
    Submessage::Gap(Gap {
        endian: Endianness::Little,
        reader_id: r.entity_id,
        writer_id: w.entity_id,
        gap_start: SequenceNumber(start),
        gap_list: SequenceNumberSet::new(SequenceNumber(base), 0).unwrap(),
        group: None,
    })
}

#[test]
fn a_heartbeat_far_ahead_from_a_foreign_host_is_dropped_and_the_reader_keeps_delivering() {
    let (mut net, w, r) = matched_pair();
    assert_eq!(write_and_take(&mut net, w, r, 10), 10);
    let (wp, rp) = (w.prefix, r.prefix);
    let now = net.now();
    let hb = forged(wp, rp, heartbeat(w, r, 10_000_000, 10_000_000));
    net.nodes[1].p.handle_datagram(now, ATTACKER, &hb);
    assert_eq!(net.nodes[1].p.stats().foreign_source, 1);
    assert_eq!(write_and_take(&mut net, w, r, 20), 20);
    assert!(net.nodes[0].p.all_acked(w));
}

#[test]
fn a_gap_of_ten_million_from_a_foreign_host_is_dropped_and_the_reader_keeps_delivering() {
    let (mut net, w, r) = matched_pair();
    assert_eq!(write_and_take(&mut net, w, r, 10), 10);
    let now = net.now();
    let g = forged(w.prefix, r.prefix, gap(w, r, 1, 10_000_000));
    net.nodes[1].p.handle_datagram(now, ATTACKER, &g);
    assert_eq!(net.nodes[1].p.stats().foreign_source, 1);
    assert_eq!(write_and_take(&mut net, w, r, 20), 20);
}

#[test]
fn an_acknack_from_a_foreign_host_is_dropped_at_the_writer() {
    let (mut net, w, r) = matched_pair();
    let now = net.now();
    let req = WriteRequest::new(
        ChangeKind::Alive,
        Some([1; 16]),
        Bytes::from_static(&[0, 1, 0, 0]),
    );
    net.nodes[0].p.write(now, w, req).unwrap();
    // Forged "everything up to 1000 acknowledged" before the real reader has answered.
    let ack = Submessage::AckNack(AckNack {
        endian: Endianness::Little,
        final_flag: true,
        reader_id: r.entity_id,
        writer_id: w.entity_id,
        reader_sn_state: SequenceNumberSet::new(SequenceNumber(1000), 0).unwrap(),
        count: 1_000_000,
    });
    net.nodes[0]
        .p
        .handle_datagram(now, ATTACKER, &forged(r.prefix, w.prefix, ack));
    assert_eq!(net.nodes[0].p.stats().foreign_source, 1);
    assert!(
        !net.nodes[0].p.all_acked(w),
        "the forged ACKNACK released the sample"
    );
    net.run_for(200);
    assert!(net.nodes[0].p.all_acked(w));
}

#[test]
fn an_spdp_dispose_from_a_foreign_host_does_not_remove_the_participant() {
    let (mut net, w, r) = matched_pair();
    let now = net.now();
    // The writer's real dispose, taken before it is sent, replayed from the attacker.
    net.nodes[0].p.leave(now);
    let dispose = net.nodes[0]
        .p
        .poll_transmit(now)
        .unwrap()
        .datagram()
        .to_vec();
    net.nodes[1].p.handle_datagram(now, ATTACKER, &dispose);
    assert_eq!(net.nodes[1].p.stats().foreign_source, 1);
    assert_eq!(net.nodes[1].p.remote_participants().count(), 1);
    assert!(!net.events(1).contains(&Event::ParticipantLost(w.prefix)));
    // From the bound host the same datagram removes it.
    let real = net.nodes[0].locators[0];
    net.nodes[1].p.handle_datagram(now, real, &dispose);
    assert_eq!(net.nodes[1].p.remote_participants().count(), 0);
    let _ = r;
}

/// SPDP DATA(p) of node `i` announcing its usual locators with sequence number `sn`.
fn announcement(net: &SimNet, i: usize, sn: i64, meta: Locator) -> Vec<u8> {
    let p = &net.nodes[i].p;
    let mut data = discovery::local_participant_data(p.config());
    data.metatraffic_unicast_locators = vec![meta];
    data.default_unicast_locators = vec![meta];
    let payload = data.to_payload(Endianness::Little).unwrap();
    let d = crate::wire::submessage::Data {
        endian: Endianness::Little,
        extra_flags: 0,
        reader_id: EntityId::SPDP_PARTICIPANT_DETECTOR,
        writer_id: EntityId::SPDP_PARTICIPANT_ANNOUNCER,
        writer_sn: SequenceNumber(sn),
        inline_qos: None,
        payload: crate::wire::submessage::DataPayload::Data(&payload),
    };
    let mut buf = Vec::new();
    emit_message(
        &Header::new(p.guid_prefix()),
        &[Submessage::Data(d)],
        &mut buf,
    );
    buf
}

#[test]
fn a_participant_that_moves_with_a_higher_spdp_sequence_number_is_rebound() {
    let (mut net, w, r) = matched_pair();
    let moved = Locator::udpv4([10, 9, 9, 9], 7410);
    let now = net.now();
    // Same sequence number as its announcements so far (1), from a new host: refused.
    let stale = announcement(&net, 0, 1, moved);
    net.nodes[1].p.handle_datagram(now, moved, &stale);
    assert_eq!(net.nodes[1].p.stats().foreign_source, 1);
    assert_eq!(net.nodes[1].p.stats().rebound, 0);
    // A higher one: the participant moved, and its HEARTBEATs from there are taken.
    let newer = announcement(&net, 0, 2, moved);
    net.nodes[1].p.handle_datagram(now, moved, &newer);
    assert_eq!(net.nodes[1].p.stats().rebound, 1);
    let hb = forged(w.prefix, r.prefix, heartbeat(w, r, 1, 0));
    net.nodes[1].p.handle_datagram(now, moved, &hb);
    assert_eq!(net.nodes[1].p.stats().foreign_source, 1);
    // The host it left is foreign now (10.9.9.9 is not on this host, so no local part).
    net.nodes[1]
        .p
        .handle_datagram(now, Locator::udpv4([127, 0, 0, 1], 7410), &hb);
    assert_eq!(net.nodes[1].p.stats().foreign_source, 2);
}

#[test]
fn heartbeat_frag_and_nack_frag_from_a_foreign_host_are_dropped_too() {
    use crate::wire::submessage::{HeartbeatFrag, NackFrag};
    use crate::wire::{FragmentNumber, FragmentNumberSet};
    let (mut net, w, r) = matched_pair();
    let now = net.now();
    let hbf = Submessage::HeartbeatFrag(HeartbeatFrag {
        endian: Endianness::Little,
        reader_id: r.entity_id,
        writer_id: w.entity_id,
        writer_sn: SequenceNumber(1),
        last_fragment_num: FragmentNumber(1000),
        count: 1_000_000,
    });
    let nf = Submessage::NackFrag(NackFrag {
        endian: Endianness::Little,
        reader_id: r.entity_id,
        writer_id: w.entity_id,
        writer_sn: SequenceNumber(1),
        fragment_number_state: FragmentNumberSet::new(FragmentNumber(1), 0).unwrap(),
        count: 1_000_000,
    });
    net.nodes[1]
        .p
        .handle_datagram(now, ATTACKER, &forged(w.prefix, r.prefix, hbf));
    net.nodes[0]
        .p
        .handle_datagram(now, ATTACKER, &forged(r.prefix, w.prefix, nf));
    assert_eq!(net.nodes[1].p.stats().foreign_source, 1);
    assert_eq!(net.nodes[0].p.stats().foreign_source, 1);
    // From the bound host they are taken (routed, not counted as foreign).
    let real = net.nodes[0].locators[0];
    net.nodes[1].p.handle_datagram(
        now,
        real,
        &forged(w.prefix, r.prefix, heartbeat(w, r, 1, 0)),
    );
    assert_eq!(net.nodes[1].p.stats().foreign_source, 1);
    assert_eq!(write_and_take(&mut net, w, r, 5), 5);
}
