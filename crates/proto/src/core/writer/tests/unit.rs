//! Single-behaviour writer tests. RTPS 2.5 §8.4.9 (each test names the rule it checks).

use bytes::Bytes;

use super::*;
use crate::core::writer::WriteError;
use crate::qos::{History, Length, ResourceLimits};
use crate::wire::FragmentNumber;
use crate::wire::FragmentNumberSet;
use crate::wire::submessage::NackFrag;

#[test]
fn best_effort_reader_gets_each_sample_once() {
    let mut cfg = config();
    cfg.history = History::KeepLast(10);
    let mut w = Writer::new(cfg);
    w.matched_reader_add(at(0), remote(2, false, false));
    for i in 0..5 {
        write(&mut w, at(1), i);
    }
    let subs = parse_all(&drain(&mut w, at(1)));
    assert_eq!(data_sns(&subs), vec![1, 2, 3, 4, 5]);
    assert!(
        heartbeats(&subs).is_empty(),
        "no HEARTBEAT to a best-effort reader"
    );
    // Single reader: INFO_DST + its readerId. RTPS 2.5 §8.3.7.7.
    assert_eq!(subs.first(), Some(&Sub::Dst(reader_guid(2).prefix)));
    for t in [100, 200, 1000] {
        w.handle_timeout(at(t));
        assert!(drain(&mut w, at(t)).is_empty());
    }
    assert!(
        w.all_acked(),
        "best-effort readers do not hold acknowledgements"
    );
    assert_eq!(w.counters().data_sent, 5);
}

#[test]
fn best_effort_writer_never_heartbeats() {
    let mut cfg = config();
    cfg.reliable = false;
    let mut w = Writer::new(cfg);
    w.matched_reader_add(at(0), remote(2, true, false));
    write(&mut w, at(1), 1);
    assert_eq!(data_sns(&parse_all(&drain(&mut w, at(1)))), vec![1]);
    w.handle_timeout(at(500));
    assert!(drain(&mut w, at(500)).is_empty());
    assert_eq!(w.poll_timeout(), None);
}

#[test]
fn lost_data_is_repaired_after_nack_response_delay() {
    let mut w = Writer::new(config());
    w.matched_reader_add(at(0), remote(2, true, false));
    drain(&mut w, at(0));
    for i in 1..=3 {
        write(&mut w, at(1), i);
    }
    let subs = parse_all(&drain(&mut w, at(1)));
    assert_eq!(
        data_sns(&subs),
        vec![3],
        "KEEP_LAST(1) default: only the latest is stored"
    );
    // GAP for the replaced 1..2, then DATA 3 and a piggy-backed, non-final HEARTBEAT.
    assert!(subs.iter().any(|s| matches!(
        s,
        Sub::Gap {
            start: 1,
            base: 3,
            ..
        }
    )));
    assert_eq!(heartbeats(&subs), vec![(3, 3, false)]);

    // The DATA was lost: the reader NACKs it. Repairs wait for nack_response_delay (5 ms).
    w.handle_acknack(at(2), reader_guid(2), &acknack(3, &[3], 1));
    assert!(drain(&mut w, at(2)).is_empty());
    assert_eq!(w.poll_timeout(), Some(at(7).mono));
    let subs = parse_all(&drain(&mut w, at(7)));
    assert_eq!(data_sns(&subs), vec![3]);
    assert_eq!(heartbeats(&subs).len(), 1);
    assert!(
        subs.iter()
            .all(|s| !matches!(s, Sub::Data { reader, .. } if *reader != READER_ENTITY))
    );
    assert_eq!(w.counters().repairs_sent, 1);
    assert!(!w.all_acked());
    w.handle_acknack(at(8), reader_guid(2), &acknack(4, &[], 2));
    assert!(w.all_acked());
}

#[test]
fn heartbeats_stop_when_all_acked() {
    let mut cfg = config();
    cfg.history = History::KeepLast(10);
    let mut w = Writer::new(cfg);
    w.matched_reader_add(at(0), remote(2, true, false));
    drain(&mut w, at(0));
    write(&mut w, at(1), 1);
    write(&mut w, at(1), 2);
    drain(&mut w, at(1));
    // Periodic HEARTBEAT while unacknowledged: not final. RTPS 2.5 §8.4.9.2.7.
    // Armed when the reliable reader matched at 0.
    let t = w.poll_timeout().unwrap();
    assert_eq!(t, at(100).mono);
    w.handle_timeout(at(101));
    let subs = parse_all(&drain(&mut w, at(101)));
    assert_eq!(heartbeats(&subs), vec![(1, 2, false)]);
    w.handle_acknack(at(102), reader_guid(2), &acknack(3, &[], 1));
    assert!(w.all_acked());
    assert!(w.is_acked_by_all(SequenceNumber(2)));
    w.handle_timeout(at(201));
    assert!(drain(&mut w, at(201)).is_empty());
    assert_eq!(
        w.poll_timeout(),
        None,
        "heartbeat timer disarmed once all is acknowledged"
    );
    // A new write re-arms it.
    write(&mut w, at(300), 3);
    drain(&mut w, at(300));
    assert_eq!(w.poll_timeout(), Some(at(400).mono));
}

#[test]
fn keep_last_1_answers_late_acknack_with_gap() {
    let mut w = Writer::new(config());
    w.matched_reader_add(at(0), remote(2, true, false));
    drain(&mut w, at(0));
    for i in 1..=3 {
        write(&mut w, at(i.into()), i);
        drain(&mut w, at(i.into())); // all lost
    }
    w.handle_acknack(at(10), reader_guid(2), &acknack(1, &[1, 2, 3], 1));
    let subs = parse_all(&drain(&mut w, at(20)));
    let gap = subs.iter().find_map(|s| match s {
        Sub::Gap {
            reader,
            start,
            base,
            set,
        } => Some((*reader, *start, *base, set.clone())),
        _ => None,
    });
    assert_eq!(
        gap,
        Some((READER_ENTITY, 1, 3, vec![])),
        "GAP [1, 3) for replaced samples"
    );
    assert_eq!(data_sns(&subs), vec![3]);
    assert_eq!(heartbeats(&subs), vec![(3, 3, false)]);
    assert_eq!(w.counters().gaps_sent, 1);
}

#[test]
fn keep_all_with_limit_is_full_until_acked() {
    let mut cfg = config();
    cfg.history = History::KeepAll;
    cfg.durability_transient_local = true;
    cfg.resource_limits = ResourceLimits {
        max_samples: Length::Limited(3),
        ..Default::default()
    };
    let mut w = Writer::new(cfg);
    w.matched_reader_add(at(0), remote(2, true, false));
    for i in 1..=3 {
        write(&mut w, at(1), i);
    }
    assert_eq!(
        w.write(at(1), WriteRequest::new(ChangeKind::Alive, None, sample(4))),
        Err(WriteError::HistoryFull)
    );
    drain(&mut w, at(1));
    assert_eq!(
        w.write(at(2), WriteRequest::new(ChangeKind::Alive, None, sample(4))),
        Err(WriteError::HistoryFull)
    );
    w.handle_acknack(at(3), reader_guid(2), &acknack(2, &[2, 3], 1));
    assert_eq!(
        w.write(at(4), WriteRequest::new(ChangeKind::Alive, None, sample(4))),
        Ok(SequenceNumber(4))
    );
    assert_eq!(w.history_len(), 3);
    assert_eq!(
        w.write(at(4), WriteRequest::new(ChangeKind::Alive, None, sample(5))),
        Err(WriteError::HistoryFull)
    );
    // Removing the only reader frees everything.
    w.matched_reader_remove(reader_guid(2));
    assert_eq!(
        w.write(at(5), WriteRequest::new(ChangeKind::Alive, None, sample(5))),
        Ok(SequenceNumber(5))
    );
}

#[test]
fn volatile_keep_all_drops_changes_acked_by_all() {
    let mut cfg = config();
    cfg.history = History::KeepAll;
    let mut w = Writer::new(cfg);
    w.matched_reader_add(at(0), remote(2, true, false));
    for i in 1..=10 {
        write(&mut w, at(1), i);
    }
    drain(&mut w, at(1));
    assert_eq!(w.history_len(), 10);
    w.handle_acknack(at(2), reader_guid(2), &acknack(8, &[], 1));
    assert_eq!(w.history_len(), 3);
}

#[test]
fn preemptive_acknack_gets_a_heartbeat() {
    let mut cfg = config();
    cfg.push_mode = false;
    cfg.history = History::KeepLast(5);
    let mut w = Writer::new(cfg);
    w.matched_reader_add(at(0), remote(2, true, false));
    let subs = parse_all(&drain(&mut w, at(0)));
    assert_eq!(
        heartbeats(&subs),
        vec![(1, 0, true)],
        "empty history: first = last + 1"
    );
    // Fast DDS / RTI form: bitmapBase 0, numBits 0 (docs/interop-facts.md §5.8).
    w.handle_acknack(at(1), reader_guid(2), &acknack(0, &[], 1));
    let subs = parse_all(&drain(&mut w, at(10)));
    assert_eq!(heartbeats(&subs), vec![(1, 0, true)]);
    write(&mut w, at(11), 1);
    write(&mut w, at(11), 2);
    assert!(
        data_sns(&parse_all(&drain(&mut w, at(11)))).is_empty(),
        "push_mode off"
    );
    // Base 1, empty set: the reader does not know about 1..2 yet.
    w.handle_acknack(at(12), reader_guid(2), &acknack(1, &[], 2));
    let subs = parse_all(&drain(&mut w, at(20)));
    assert_eq!(heartbeats(&subs), vec![(1, 2, false)]);
    w.handle_acknack(at(21), reader_guid(2), &acknack(1, &[1, 2], 3));
    assert_eq!(data_sns(&parse_all(&drain(&mut w, at(30)))), vec![1, 2]);
}

#[test]
fn stale_and_hostile_acknacks_are_ignored_or_clamped() {
    let mut cfg = config();
    cfg.history = History::KeepLast(100);
    let mut w = Writer::new(cfg);
    w.matched_reader_add(at(0), remote(2, true, false));
    for i in 1..=5 {
        write(&mut w, at(1), i);
    }
    drain(&mut w, at(1));
    w.handle_acknack(at(2), reader_guid(2), &acknack(1, &[1], 5));
    w.handle_acknack(at(2), reader_guid(2), &acknack(1, &[2], 5)); // duplicate count
    w.handle_acknack(at(2), reader_guid(2), &acknack(1, &[3], 4)); // stale count
    assert_eq!(w.counters().acknacks_ignored, 2);
    assert_eq!(data_sns(&parse_all(&drain(&mut w, at(10)))), vec![1]);
    // Unknown reader.
    w.handle_acknack(at(11), reader_guid(9), &acknack(1, &[1], 1));
    assert_eq!(w.counters().acknacks_ignored, 3);
    // Claims beyond what we wrote are clamped; requests beyond last are dropped.
    let huge = i64::MAX - 300;
    w.handle_acknack(
        at(12),
        reader_guid(2),
        &acknack(huge, &[huge + 1, huge + 255], 6),
    );
    assert!(w.all_acked());
    assert!(
        drain(&mut w, at(30))
            .iter()
            .all(|t| data_sns(&parse(&t.payload)).is_empty())
    );
    assert_eq!(w.last_sn(), SequenceNumber(5));
}

#[test]
fn late_joiner_of_transient_local_writer_gets_history() {
    let mut cfg = config();
    cfg.history = History::KeepLast(5);
    cfg.durability_transient_local = true;
    let mut w = Writer::new(cfg);
    for i in 1..=7 {
        write(&mut w, at(1), i);
    }
    assert!(drain(&mut w, at(1)).is_empty(), "no readers");
    w.matched_reader_add(at(2), remote(2, true, true));
    let ts = drain(&mut w, at(2));
    let subs = parse_all(&ts);
    assert_eq!(data_sns(&subs), vec![3, 4, 5, 6, 7]);
    assert!(subs.contains(&Sub::Dst(reader_guid(2).prefix)));
    assert!(heartbeats(&subs).contains(&(3, 7, false)));
    assert_eq!(ts[0].destinations, remote(2, true, true).unicast_locators);

    // A VOLATILE late joiner gets nothing old: its heartbeat starts after the history, and a
    // NACK for old changes is answered with GAP.
    w.matched_reader_add(at(3), remote(3, true, false));
    let subs = parse_all(&drain(&mut w, at(3)));
    assert!(data_sns(&subs).is_empty());
    assert_eq!(heartbeats(&subs), vec![(8, 7, true)]);
    w.handle_acknack(at(4), reader_guid(3), &acknack(3, &[3, 4], 1));
    let subs = parse_all(&drain(&mut w, at(10)));
    assert!(data_sns(&subs).is_empty());
    assert!(subs.iter().any(|s| matches!(
        s,
        Sub::Gap {
            start: 3,
            base: 8,
            ..
        }
    )));
}

#[test]
fn readers_at_the_same_place_share_one_datagram() {
    let mut w = Writer::new(config());
    w.matched_reader_add(at(0), remote(2, true, false));
    w.matched_reader_add(at(0), remote(3, false, false));
    drain(&mut w, at(0));
    write(&mut w, at(1), 1);
    let ts = drain(&mut w, at(1));
    assert_eq!(ts.len(), 1);
    assert_eq!(ts[0].destinations.len(), 2);
    let subs = parse(&ts[0].payload);
    assert!(!subs.iter().any(|s| matches!(s, Sub::Dst(_))));
    assert!(
        subs.iter()
            .any(|s| matches!(s, Sub::Data { reader, sn: 1, .. } if *reader == EntityId::UNKNOWN))
    );
    assert!(
        subs.iter()
            .any(|s| matches!(s, Sub::Hb { reader, .. } if *reader == EntityId::UNKNOWN))
    );
}

#[test]
fn keyed_dispose_carries_key_hash_and_status_info_without_payload() {
    let mut cfg = config();
    cfg.keyed = true;
    cfg.history = History::KeepLast(2);
    let mut w = Writer::new(cfg);
    w.matched_reader_add(at(0), remote(2, true, false));
    drain(&mut w, at(0));
    let key = [7u8; 16];
    w.write(
        at(1),
        WriteRequest::new(ChangeKind::Alive, Some(key), sample(1)),
    )
    .unwrap();
    w.write(
        at(1),
        WriteRequest::new(ChangeKind::NotAliveDisposed, Some(key), Bytes::new()),
    )
    .unwrap();
    w.write(
        at(1),
        WriteRequest::new(
            ChangeKind::NotAliveDisposedUnregistered,
            Some(key),
            Bytes::new(),
        ),
    )
    .unwrap();
    let subs = parse_all(&drain(&mut w, at(1)));
    let datas: Vec<_> = subs
        .iter()
        .filter_map(|s| match s {
            Sub::Data {
                sn,
                payload,
                key_hash,
                status,
                ..
            } => Some((*sn, payload.is_some(), key_hash.clone(), *status)),
            _ => None,
        })
        .collect();
    // KEEP_LAST(2) per instance: SN 1 was replaced (GAP), 2 and 3 remain.
    assert_eq!(
        datas,
        vec![
            (2, false, Some(key.to_vec()), Some(1)),
            (3, false, Some(key.to_vec()), Some(3))
        ]
    );
    assert!(subs.contains(&Sub::Ts), "INFO_TS precedes DATA");
}

/// Facts §5.7: Cyclone maps a dispose of a non-fixed key only through the serialized key (K
/// flag); Fast DDS 2.9 mistakes a key payload of ≤ 16 bytes for the instance handle, so short
/// keys are zero-padded to MIN_KEY_PAYLOAD. The inline KEY_HASH + STATUS_INFO stay.
#[test]
fn dispose_with_serialized_key_sends_k_flag_payload_padded_beyond_16_bytes() {
    let mut cfg = config();
    cfg.keyed = true;
    cfg.history = History::KeepLast(2);
    let mut w = Writer::new(cfg);
    w.matched_reader_add(at(0), remote(2, true, false));
    drain(&mut w, at(0));
    let key = [7u8; 16];
    let short = vec![0, 1, 0, 0, 4, 0, 0, 0, b'R', b'E', b'D', 0];
    let long: Vec<u8> = (0..24).collect();
    w.write(
        at(1),
        WriteRequest::new(
            ChangeKind::NotAliveDisposed,
            Some(key),
            Bytes::from(short.clone()),
        ),
    )
    .unwrap();
    w.write(
        at(1),
        WriteRequest::new(
            ChangeKind::NotAliveUnregistered,
            Some([8; 16]),
            Bytes::from(long.clone()),
        ),
    )
    .unwrap();
    let subs = parse_all(&drain(&mut w, at(1)));
    let datas: Vec<_> = subs
        .iter()
        .filter_map(|s| match s {
            Sub::Data {
                payload,
                key_payload,
                key_hash,
                status,
                ..
            } => Some((
                payload.is_some(),
                key_payload.clone(),
                key_hash.clone(),
                *status,
            )),
            _ => None,
        })
        .collect();
    let mut padded = short;
    padded.resize(crate::core::writer::MIN_KEY_PAYLOAD, 0);
    assert_eq!(
        datas,
        vec![
            (false, Some(padded), Some(key.to_vec()), Some(1)),
            (false, Some(long), Some(vec![8; 16]), Some(2)),
        ]
    );
}

/// Facts §5.10: an XCDR2 key (D_CDR2, Cyclone's form) goes out as written, its padding
/// counted in the options: only XCDR1 keys are padded for Fast DDS 2.9.
#[test]
fn an_xcdr2_key_payload_is_not_padded() {
    let mut cfg = config();
    cfg.keyed = true;
    let mut w = Writer::new(cfg);
    w.matched_reader_add(at(0), remote(2, true, false));
    drain(&mut w, at(0));
    let key = vec![0, 9, 0, 3, 5, 0, 0, 0, b'B', b'L', b'U', b'E', 0, 0, 0, 0];
    let request = WriteRequest::new(
        ChangeKind::NotAliveDisposed,
        Some([7; 16]),
        Bytes::from(key.clone()),
    );
    w.write(at(1), request).unwrap();
    let subs = parse_all(&drain(&mut w, at(1)));
    let sent: Vec<_> = subs
        .iter()
        .filter_map(|s| match s {
            Sub::Data { key_payload, .. } => key_payload.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(sent, vec![key]);
}

#[test]
fn keep_last_evicts_per_instance() {
    let mut cfg = config();
    cfg.keyed = true;
    cfg.history = History::KeepLast(1);
    let mut w = Writer::new(cfg);
    for k in 0..3u8 {
        w.write(
            at(1),
            WriteRequest::new(ChangeKind::Alive, Some([k; 16]), sample(k.into())),
        )
        .unwrap();
    }
    w.write(
        at(1),
        WriteRequest::new(ChangeKind::Alive, Some([0; 16]), sample(9)),
    )
    .unwrap();
    assert_eq!(w.history_len(), 3, "one per instance");
}

fn frag_config() -> WriterConfig {
    let mut cfg = config();
    cfg.fragment_size = 4000;
    cfg.max_message_size = 9000;
    cfg
}

#[test]
fn large_sample_goes_as_data_frag_and_nack_frag_repairs_one_fragment() {
    let mut w = Writer::new(frag_config());
    w.matched_reader_add(at(0), remote(2, true, false));
    drain(&mut w, at(0));
    let big: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    w.write(
        at(1),
        WriteRequest::new(ChangeKind::Alive, None, Bytes::from(big.clone())),
    )
    .unwrap();
    let ts = drain(&mut w, at(1));
    assert!(
        ts.len() >= 13,
        "25 fragments of 4000 bytes, two per 9000-byte datagram"
    );
    assert!(ts.iter().all(|t| t.payload.len() <= 9000));
    let subs = parse_all(&ts);
    let mut whole = vec![0u8; 100_000];
    let mut seen = 0;
    for s in &subs {
        if let Sub::Frag {
            sn: 1,
            frag,
            size,
            bytes,
            frag_size,
            ..
        } = s
        {
            assert_eq!((*size, *frag_size), (100_000, 4000));
            let off = (*frag as usize - 1) * 4000;
            whole[off..off + bytes.len()].copy_from_slice(bytes);
            seen += 1;
        }
    }
    assert_eq!(seen, 25);
    assert_eq!(whole, big);
    assert_eq!(heartbeats(&subs), vec![(1, 1, false)]);

    let nack = NackFrag {
        endian: Endianness::Little,
        reader_id: READER_ENTITY,
        writer_id: writer_guid().entity_id,
        writer_sn: SequenceNumber(1),
        fragment_number_state: FragmentNumberSet::from_members(
            FragmentNumber(5),
            [FragmentNumber(5), FragmentNumber(200)], // 200 is beyond the sample: dropped
        )
        .unwrap(),
        count: 1,
    };
    w.handle_nack_frag(at(2), reader_guid(2), &nack);
    w.handle_nack_frag(at(2), reader_guid(2), &nack); // duplicate count: ignored
    assert_eq!(w.counters().nack_frags_ignored, 1);
    let subs = parse_all(&drain(&mut w, at(10)));
    let frags: Vec<_> = subs
        .iter()
        .filter_map(|s| match s {
            Sub::Frag { frag, bytes, .. } => Some((*frag, bytes.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(frags, vec![(5, big[16_000..20_000].to_vec())]);

    // A whole-sample NACK resends every fragment, across several datagrams, paced one
    // datagram per nack_response_delay (`flow.rs`).
    w.handle_acknack(at(11), reader_guid(2), &acknack(1, &[1], 1));
    let mut ts = Vec::new();
    for t in (20..200).step_by(5) {
        w.handle_timeout(at(t));
        ts.extend(drain(&mut w, at(t)));
    }
    let n = parse_all(&ts)
        .iter()
        .filter(|s| matches!(s, Sub::Frag { .. }))
        .count();
    assert_eq!(n, 25);
}

#[test]
fn fragment_size_is_clamped_to_fit_the_message() {
    let mut cfg = config();
    cfg.fragment_size = 100_000;
    cfg.max_message_size = 1_000_000;
    let w = Writer::new(cfg);
    assert_eq!(w.config().max_message_size, crate::core::MAX_DATAGRAM);
    assert!(w.config().fragment_size <= usize::from(u16::MAX));
}

/// A reader that answers every HEARTBEAT, 2 ms later, with an ACKNACK acknowledging it all
/// (bitmapBase = lastSN + 1, no bits; `final_flag` as given), against a writer with nothing
/// written (an empty builtin SEDP writer): the HEARTBEATs the writer sends in `secs`.
fn heartbeats_to_an_echoing_reader(final_flag: bool, secs: u64) -> usize {
    let mut w = Writer::new(config());
    w.matched_reader_add(at(0), remote(2, true, false));
    let (mut sent, mut count, mut now) = (0, 0, 0);
    // The reader speaks first: its pre-emptive ACKNACK (hdds: bitmapBase 1, no bits).
    let mut reply_at = Some(0);
    while now <= secs * 1000 {
        if reply_at.is_some_and(|t| t <= now) {
            count += 1;
            let mut a = acknack(1, &[], count);
            a.final_flag = final_flag;
            w.handle_acknack(at(now), reader_guid(2), &a);
            reply_at = None;
        }
        w.handle_timeout(at(now));
        let hbs = heartbeats(&parse_all(&drain(&mut w, at(now)))).len();
        if hbs > 0 {
            sent += hbs;
            reply_at = Some(now + 2);
        }
        let next = w
            .poll_timeout()
            .map_or(u64::MAX, |t| t.as_nanos() / 1_000_000);
        now = next.max(now + 1).min(reply_at.unwrap_or(u64::MAX));
    }
    sent
}

#[test]
fn a_reader_answering_every_heartbeat_starts_no_loop() {
    // An empty writer (lastSN 0) and ACKNACK(1, {}), which acknowledges everything (RTPS 2.5
    // §8.4.9.2.8) and looks pre-emptive. Before: one HEARTBEAT per round trip, forever
    // (~190 datagrams/s each way with hdds 1.1). Now the first is answered, the repeats
    // within a heartbeat period are not, so the echo stops.
    for final_flag in [true, false] {
        let sent = heartbeats_to_an_echoing_reader(final_flag, 60);
        eprintln!("HEARTBEATs in 60 s to an echoing reader (final {final_flag}): {sent}");
        assert!(sent <= 3, "final {final_flag}: {sent}");
    }
}

/// A writer sized for protection (DDS Security) leaves each datagram room for what the
/// transform adds per submessage and per message: batched 1 KiB samples, repairs of many of
/// them and 100 KB fragmented samples all stay within `MAX_DATAGRAM` once protected.
#[test]
fn protection_overhead_leaves_room_in_every_datagram() {
    const PER_SUBMESSAGE: usize = 160;
    const PER_MESSAGE: usize = 64;
    let mut c = config();
    c.history = History::KeepAll;
    let mut w = Writer::new(c);
    w.set_protection_overhead(PER_SUBMESSAGE, PER_MESSAGE);
    w.matched_reader_add(at(0), remote(1, true, false));
    drain(&mut w, at(0));
    let kib = Bytes::from(vec![0u8; 1024]);
    let big = Bytes::from(vec![0u8; 100_000]);
    for _ in 0..200 {
        w.write(
            at(1),
            WriteRequest::new(ChangeKind::Alive, None, kib.clone()),
        )
        .unwrap();
    }
    for _ in 0..3 {
        w.write(
            at(1),
            WriteRequest::new(ChangeKind::Alive, None, big.clone()),
        )
        .unwrap();
    }
    let mut ts = drain(&mut w, at(1));
    // Everything lost: the repairs of all 203 changes.
    let all: Vec<i64> = (1..=203).collect();
    w.handle_acknack(at(2), reader_guid(1), &acknack(1, &all[..200], 1));
    ts.extend(drain(&mut w, at(10)));
    let mut batched = 0;
    for t in &ts {
        let (_, iter) = Message::parse(&t.payload).unwrap();
        let protected = iter
            .filter(|o| {
                matches!(
                    o,
                    SubmessageOutcome::Accept(
                        Submessage::Data(_)
                            | Submessage::DataFrag(_)
                            | Submessage::Heartbeat(_)
                            | Submessage::Gap(_)
                    )
                )
            })
            .count();
        batched = batched.max(protected);
        let total = t.payload.len() + protected * PER_SUBMESSAGE + PER_MESSAGE;
        assert!(
            total <= crate::core::MAX_DATAGRAM,
            "{total} octets once protected"
        );
    }
    assert!(batched > 20, "samples are still batched ({batched})");
}
