//! Whether a writer is there, across participants on the simulated network: MANUAL_BY_PARTICIPANT
//! liveliness lost and regained, DEADLINE missed on both sides per silent instance, EXCLUSIVE
//! ownership handing over to the remaining writer. No sockets, no sleeps: a manual clock.
//! DDS 1.4 §2.2.3.7 (DEADLINE), §2.2.3.9 (OWNERSHIP), §2.2.3.11 (LIVELINESS).
#![allow(clippy::arithmetic_side_effects)]

use super::*;

fn manual_by_participant(lease_ms: u64) -> crate::qos::Liveliness {
    crate::qos::Liveliness {
        kind: crate::qos::LivelinessKind::ManualByParticipant,
        lease_duration: crate::time::Duration::from_std(core::time::Duration::from_millis(
            lease_ms,
        )),
    }
}

#[test]
fn manual_by_participant_liveliness_is_lost_and_regained_across_participants() {
    let mut net = lan(&[0, 0]);
    net.run_for(100);
    let now = net.now();
    let mut ws = writer_spec(true);
    ws.qos.liveliness = manual_by_participant(1_000);
    let mut rs = reader_spec(true);
    rs.qos.liveliness = manual_by_participant(1_500);
    let w = net.nodes[0].p.create_writer(now, ws);
    let r = net.nodes[1].p.create_reader(now, rs);
    net.run_for(300);
    let alive = |alive| Event::LivelinessChanged {
        reader: r,
        writer: w,
        alive,
    };
    assert!(net.events(1).contains(&alive(true)));
    // Asserting the participant (WLP MANUAL_LIVELINESS_UPDATE) every 600 ms keeps it alive,
    // under 10 % loss (the WLP endpoints are reliable).
    net.faults.loss_percent = 10;
    for _ in 0..8 {
        let now = net.now();
        net.nodes[0].p.assert_liveliness(now);
        net.run_for(600);
    }
    net.faults.loss_percent = 0;
    assert!(
        !net.events(0)
            .iter()
            .any(|e| matches!(e, Event::LivelinessLost { .. }))
    );
    assert!(!net.events(1).contains(&alive(false)));
    // Silence (the participant is still announced by SPDP): lost at the writer, not alive at
    // the reader.
    net.run_for(1_200);
    assert!(net.events(0).contains(&Event::LivelinessLost { writer: w }));
    assert!(net.events(1).contains(&alive(false)));
    assert_eq!(net.nodes[1].p.remote_participants().count(), 1);
    // One assertion brings it back.
    let now = net.now();
    net.nodes[0].p.assert_liveliness(now);
    net.run_for(100);
    assert!(net.events(1).contains(&alive(true)));
}

fn key_of(c: &CacheChange) -> u8 {
    c.key_hash.map_or(0, |k| k[0])
}

fn write_key(net: &mut SimNet, node: usize, w: Guid, key: u8, value: u8) {
    let now = net.now();
    let payload = Bytes::from(vec![0, 1, 0, 0, key, value]);
    net.nodes[node]
        .p
        .write(
            now,
            w,
            WriteRequest::new(ChangeKind::Alive, Some([key; 16]), payload),
        )
        .unwrap();
    net.flush();
}

#[test]
fn deadline_is_missed_on_both_sides_once_per_period_per_silent_instance() {
    let period = crate::time::Duration::from_std(core::time::Duration::from_millis(100));
    let mut net = lan(&[0, 0]);
    net.run_for(100);
    let now = net.now();
    let mut ws = writer_spec(true);
    ws.qos.deadline.period = period;
    let mut rs = reader_spec(true);
    rs.qos.deadline.period = period;
    let w = net.nodes[0].p.create_writer(now, ws);
    let r = net.nodes[1].p.create_reader(now, rs);
    net.run_for(300);
    net.events(0);
    net.events(1);
    write_key(&mut net, 0, w, 0xa, 1);
    write_key(&mut net, 0, w, 0xb, 1);
    // b is written every 50 ms, a never again: 5 periods of 100 ms.
    for i in 0..10 {
        net.run_for(50);
        write_key(&mut net, 0, w, 0xb, i);
    }
    net.run_for(20);
    let offered: Vec<_> = net
        .events(0)
        .into_iter()
        .filter_map(|e| match e {
            Event::OfferedDeadlineMissed { writer, key_hash } if writer == w => Some(key_hash),
            _ => None,
        })
        .collect();
    let requested: Vec<_> = net
        .events(1)
        .into_iter()
        .filter_map(|e| match e {
            Event::RequestedDeadlineMissed { reader, key_hash } if reader == r => Some(key_hash),
            _ => None,
        })
        .collect();
    assert_eq!(offered, vec![Some([0xa; 16]); 5]);
    assert_eq!(requested, vec![Some([0xa; 16]); 5]);
    assert_eq!(
        net.nodes[0]
            .p
            .offered_deadline_missed(w)
            .unwrap()
            .total_count,
        5
    );
    assert_eq!(
        net.nodes[1]
            .p
            .requested_deadline_missed(r)
            .unwrap()
            .total_count,
        5
    );
}

#[test]
fn exclusive_ownership_switches_to_the_remaining_writer_then_no_writers() {
    let mut net = lan(&[0, 0, 0]);
    net.run_for(100);
    let now = net.now();
    let exclusive = |strength| {
        let mut s = writer_spec(true);
        s.qos.ownership = crate::qos::Ownership::Exclusive;
        s.qos.ownership_strength.value = strength;
        s
    };
    let strong = net.nodes[0].p.create_writer(now, exclusive(10));
    let weak = net.nodes[1].p.create_writer(now, exclusive(5));
    let mut rs = reader_spec(true);
    rs.qos.ownership = crate::qos::Ownership::Exclusive;
    let r = net.nodes[2].p.create_reader(now, rs);
    net.run_for(300);
    assert_eq!(net.nodes[2].p.matched_writers(r), 2);
    let mut got = Vec::new();
    for i in 0..4 {
        write_key(&mut net, 0, strong, 0xa, i);
        net.run_for(10);
        write_key(&mut net, 1, weak, 0xa, 100 + i);
        net.run_for(10);
    }
    let now = net.now();
    while let Some(c) = net.nodes[2].p.take(now, r) {
        got.push((c.writer_guid, c.data[5]));
    }
    assert_eq!(
        got,
        (0..4).map(|i| (strong, i)).collect::<Vec<_>>(),
        "only the owner"
    );
    net.nodes[0].p.delete_writer(now, strong);
    net.run_for(300);
    assert_eq!(net.nodes[2].p.matched_writers(r), 1);
    write_key(&mut net, 1, weak, 0xa, 200);
    net.run_for(50);
    let now = net.now();
    let c = net.nodes[2]
        .p
        .take(now, r)
        .expect("the weaker writer now owns the instance");
    assert_eq!((c.writer_guid, c.data[5]), (weak, 200));
    assert!(
        net.nodes[2].p.take(now, r).is_none(),
        "no NO_WRITERS while weak remains"
    );
    net.nodes[1].p.delete_writer(now, weak);
    net.run_for(300);
    let now = net.now();
    let c = net.nodes[2].p.take(now, r).expect("NOT_ALIVE_NO_WRITERS");
    assert_eq!((c.kind, key_of(&c)), (ChangeKind::NotAliveNoWriters, 0xa));
    assert!(net.events(2).contains(&Event::DataAvailable { reader: r }));
}
