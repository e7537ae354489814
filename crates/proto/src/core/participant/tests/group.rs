//! Group coherent sets and group order across writers of one publisher (PRESENTATION access
//! scope GROUP, RTPS 2.5 §8.7.6) on the simulated network, under loss, duplication and
//! reordering; and the assembler's drop rules on their own.
#![allow(clippy::arithmetic_side_effects)]

use bytes::Bytes;

use super::coherent::reader_of;
use crate::core::CacheChange;
use crate::core::participant::WriterSpec;
use crate::core::participant::group::writer_set_digest;
use crate::core::participant::group_sets::*;
use crate::core::reader::GroupPart;
use crate::core::sim::SimNet;
use crate::core::{ChangeKind, GroupStamp, WriteRequest};
use crate::qos::{
    DataWriterQos, History, Presentation, PresentationAccessScope, PublisherQos, Reliability,
};
use crate::wire::Guid;
use crate::wire::{EntityId, GroupDigest, GuidPrefix, SequenceNumber};

const SEED: u64 = 0x2545_f491_4f6c_dd1d;
const TOPICS: [&str; 3] = ["Square", "Circle", "Triangle"];

fn group(coherent: bool, ordered: bool) -> Presentation {
    Presentation {
        access_scope: PresentationAccessScope::Group,
        coherent_access: coherent,
        ordered_access: ordered,
    }
}

fn writer(topic: &str, p: Presentation) -> WriterSpec {
    let qos = DataWriterQos {
        history: History::KeepAll,
        reliability: Reliability::reliable(),
        ..DataWriterQos::default()
    };
    let mut spec = WriterSpec::new(topic, "ShapeType", true, qos);
    spec.fragment_size = 1024;
    spec.publisher_qos = PublisherQos::default().presentation(p);
    spec
}

fn write(net: &mut SimNet, w: Guid, key: u8, value: u32) {
    let now = net.now();
    let mut payload = vec![0u8, 1, 0, 0];
    payload.extend_from_slice(&value.to_le_bytes());
    if value % 7 == 0 {
        payload.resize(3000, 0xaa);
    }
    let req = WriteRequest::new(ChangeKind::Alive, Some([key; 16]), Bytes::from(payload));
    net.nodes[0].p.write(now, w, req).unwrap();
}

/// (value, group SN) of everything the readers hold, taken in one call as `take_together`
/// does.
fn take_all(net: &mut SimNet, readers: &[Guid]) -> Vec<Vec<(u32, i64)>> {
    let now = net.now();
    readers
        .iter()
        .map(|r| {
            let mut changes = Vec::new();
            net.nodes[1].p.take_all(now, *r, &mut changes);
            changes
                .iter()
                .map(|c| {
                    let v = u32::from_le_bytes(c.data[4..8].try_into().unwrap());
                    (v, c.group.map_or(0, |g| g.gsn.0))
                })
                .collect()
        })
        .collect()
}

fn setup(net: &mut SimNet, p: Presentation, writers: usize) -> (Vec<Guid>, Vec<Guid>) {
    net.run_for(100);
    let now = net.now();
    let ws: Vec<Guid> = TOPICS[..writers]
        .iter()
        .map(|t| net.nodes[0].p.create_writer(now, writer(t, p)))
        .collect();
    net.nodes[0]
        .p
        .join_writer_group(now, &ws, p.coherent_access);
    let rs: Vec<Guid> = TOPICS[..writers]
        .iter()
        .map(|t| net.nodes[1].p.create_reader(now, reader_of(t, p)))
        .collect();
    net.run_for(300);
    for w in &ws {
        assert_eq!(net.nodes[0].p.matched_readers(*w), 1);
    }
    (ws, rs)
}

/// 30 group sets over three writers (topics), 4 samples each per writer; the subscriber takes
/// all three readers after every write: any take that holds part of a set fails.
#[test]
fn a_group_set_across_three_writers_is_taken_whole_or_not_at_all() {
    const SETS: u32 = 30;
    const PER_WRITER: u32 = 4;
    let mut net = SimNet::in_domains(&[0, 0], SEED, |_| {});
    let (ws, rs) = setup(&mut net, group(true, false), 3);
    net.faults.loss_percent = 20;
    net.faults.duplicate_percent = 5;
    net.faults.reorder_percent = 10;
    let per_set = PER_WRITER as usize * ws.len();
    let mut got: Vec<Vec<u32>> = vec![Vec::new(); ws.len()];
    let check = |net: &mut SimNet, got: &mut Vec<Vec<u32>>| {
        let batch = take_all(net, &rs);
        let n: usize = batch.iter().map(Vec::len).sum();
        assert_eq!(n % per_set, 0, "part of a group set was taken: {batch:?}");
        for (g, b) in got.iter_mut().zip(batch) {
            g.extend(b.into_iter().map(|(v, _)| v));
        }
    };
    let mut value = 0;
    for _ in 0..SETS {
        net.nodes[0].p.begin_coherent_changes(&ws);
        for i in 0..PER_WRITER {
            for w in &ws {
                write(&mut net, *w, i as u8, value);
                value += 1;
                net.run_for(1);
                check(&mut net, &mut got);
            }
        }
        let now = net.now();
        net.nodes[0].p.end_coherent_changes(now, &ws).unwrap();
        net.run_for(1);
        check(&mut net, &mut got);
    }
    let done = net.run_until(60_000, |n| ws.iter().all(|w| n.nodes[0].p.all_acked(*w)));
    assert!(done, "the writers' changes were not all acknowledged");
    net.run_for(50);
    check(&mut net, &mut got);
    // Reliable: every set arrives, each writer's samples in its order.
    for (k, g) in got.iter().enumerate() {
        let want: Vec<u32> = (0..value).filter(|v| *v as usize % ws.len() == k).collect();
        assert_eq!(*g, want, "reader {k}");
    }
}

/// Group order: every change of a GROUP writer carries one group SN sequence across the
/// publisher's writers, so the subscriber can present the readers' samples in writing order.
#[test]
fn group_sequence_numbers_give_the_publishers_order_across_writers() {
    let mut net = SimNet::in_domains(&[0, 0], SEED ^ 1, |_| {});
    let (ws, rs) = setup(&mut net, group(false, true), 2);
    net.faults.loss_percent = 15;
    net.faults.reorder_percent = 10;
    net.faults.duplicate_percent = 5;
    // Writers take turns unevenly: 0 0 1 0 1 1 0 ...
    let order: Vec<usize> = (0..60u32).map(|i| ((i * 7 + i / 3) % 2) as usize).collect();
    for (value, k) in order.iter().enumerate() {
        write(&mut net, ws[*k], 0, value as u32);
        net.run_for(1);
    }
    let done = net.run_until(60_000, |n| ws.iter().all(|w| n.nodes[0].p.all_acked(*w)));
    assert!(done);
    let batch = take_all(&mut net, &rs);
    let mut merged: Vec<(i64, u32)> = batch.iter().flatten().map(|(v, g)| (*g, *v)).collect();
    merged.sort_unstable();
    let values: Vec<u32> = merged.iter().map(|(_, v)| *v).collect();
    assert_eq!(
        values,
        (0..60).collect::<Vec<_>>(),
        "group order is writing order"
    );
    let gsns: Vec<i64> = merged.iter().map(|(g, _)| *g).collect();
    assert_eq!(
        gsns,
        (1..=60).collect::<Vec<_>>(),
        "one GSN sequence, no gaps"
    );
}

fn part(writer: u8, set: i64, writer_set: Option<GroupDigest>, n: usize) -> GroupPart {
    let w = Guid::new(GuidPrefix([7; 12]), EntityId([0, 0, writer, 0x02]));
    let changes = (0..n)
        .map(|i| CacheChange {
            kind: ChangeKind::Alive,
            writer_guid: w,
            sequence_number: SequenceNumber(i as i64 + 1),
            key_hash: None,
            source_timestamp: None,
            data: Bytes::from_static(b"\0\x01\0\0x"),
            original_writer: None,
            coherent_set: Some(SequenceNumber(1)),
            group: Some(GroupStamp {
                gsn: SequenceNumber(set + i as i64),
                coherent_set: Some(SequenceNumber(set)),
                writer_set: None,
            }),
        })
        .collect();
    GroupPart {
        writer: w,
        set: SequenceNumber(set),
        writer_set,
        changes,
    }
}

fn ids(writers: &[u8]) -> GroupDigest {
    let e: Vec<EntityId> = writers.iter().map(|w| EntityId([0, 0, *w, 0x02])).collect();
    writer_set_digest(&e)
}

#[test]
fn a_set_is_held_until_every_writer_of_its_writer_set_is_in() {
    let mut g = GroupSets::default();
    let set = Some(ids(&[1, 2]));
    assert!(matches!(
        g.accept(EntityId([0, 0, 1, 4]), part(1, 5, set, 2), None),
        Outcome::Hold
    ));
    // A duplicate part adds nothing.
    assert!(matches!(
        g.accept(EntityId([0, 0, 1, 4]), part(1, 5, set, 2), None),
        Outcome::Hold
    ));
    match g.accept(EntityId([0, 0, 2, 4]), part(2, 5, set, 3), None) {
        Outcome::Deliver(p) => assert_eq!(p.held(), 5),
        _ => panic!("the set is whole"),
    }
    assert_eq!(g.held, 0);
}

#[test]
fn a_broken_part_or_a_writer_gone_drops_the_set_whole() {
    let mut g = GroupSets::default();
    let set = Some(ids(&[1, 2]));
    assert!(matches!(
        g.accept(EntityId([0, 0, 1, 4]), part(1, 5, set, 2), None),
        Outcome::Hold
    ));
    // Writer 2's part was lost for good: the set goes, and a late part of it too.
    match g.accept(EntityId([0, 0, 2, 4]), part(2, 5, None, 0), None) {
        Outcome::Drop(sets) => assert_eq!(sets.len(), 1),
        _ => panic!("the set must be dropped"),
    }
    assert!(matches!(
        g.accept(EntityId([0, 0, 2, 4]), part(2, 5, set, 1), None),
        Outcome::Drop(_)
    ));
    assert!(g.pending.is_empty());
    // A writer of the publisher goes away while a set waits.
    assert!(matches!(
        g.accept(EntityId([0, 0, 1, 4]), part(1, 9, set, 2), None),
        Outcome::Hold
    ));
    assert_eq!(g.writer_gone(GuidPrefix([7; 12])).len(), 1);
    assert_eq!(g.held, 0);
}

#[test]
fn pending_sets_are_bounded() {
    let mut g = GroupSets::default();
    let set = Some(ids(&[1, 2]));
    for s in 0..(MAX_PENDING_GROUP_SETS as i64 + 5) {
        let _ = g.accept(EntityId([0, 0, 1, 4]), part(1, 100 + s, set, 1), None);
    }
    assert_eq!(g.pending.len(), MAX_PENDING_GROUP_SETS);
    assert_eq!(g.dropped, 5);
}

/// The group's writers name their publisher in SEDP (PID_GROUP_GUID, entity kind 0x08).
#[test]
fn grouped_writers_announce_their_group_guid() {
    let mut net = SimNet::in_domains(&[0, 0], SEED ^ 2, |_| {});
    let (ws, _) = setup(&mut net, group(true, true), 2);
    let groups: Vec<Option<Guid>> = ws
        .iter()
        .map(|w| {
            net.nodes[1]
                .p
                .discovery
                .remote_writer(*w)
                .and_then(|d| d.group_guid)
        })
        .collect();
    let g = groups[0].expect("PID_GROUP_GUID announced");
    assert_eq!(groups, vec![Some(g), Some(g)]);
    assert_eq!(g.prefix, ws[0].prefix);
    assert_eq!(g.entity_id.0[3], 0x08);
}

/// Two publishers of one participant number their sets alike: their group GUIDs keep them
/// apart.
#[test]
fn sets_of_two_publishers_of_one_participant_are_kept_apart() {
    let mut g = GroupSets::default();
    let set = Some(ids(&[1, 2]));
    let pub_a = Some(Guid::new(GuidPrefix([7; 12]), EntityId([0, 0, 1, 0x08])));
    let pub_b = Some(Guid::new(GuidPrefix([7; 12]), EntityId([0, 0, 5, 0x08])));
    let r = EntityId([0, 0, 1, 4]);
    assert!(matches!(
        g.accept(r, part(1, 5, set, 1), pub_a),
        Outcome::Hold
    ));
    assert!(matches!(
        g.accept(r, part(2, 5, set, 1), pub_b),
        Outcome::Hold
    ));
    assert_eq!(g.pending.len(), 2);
    assert!(matches!(
        g.accept(r, part(2, 5, set, 1), pub_a),
        Outcome::Deliver(_)
    ));
}
