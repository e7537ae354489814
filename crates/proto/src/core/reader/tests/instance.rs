//! Instance-level QoS on the reader (`reader/instance.rs`) and read/take, on a manual clock:
//! DEADLINE, LIFESPAN, TIME_BASED_FILTER, EXCLUSIVE ownership, NOT_ALIVE_NO_WRITERS.
//! DDS 1.4 §2.2.3.7, §2.2.3.9, §2.2.3.12, §2.2.3.16, §2.2.2.5.1.4, §2.2.2.5.3.8-9.

use core::time::Duration;

use super::*;

const WALL0: u64 = 1_700_000_000_000_000_000;

pub(super) fn wguid(n: u8) -> Guid {
    Guid::new(GuidPrefix([n; 12]), EntityId([0, 0, 1, 0x02]))
}

/// Monotonic and wall clocks both at `ms`.
pub(super) fn t(ms: u64) -> Now {
    Now {
        mono: Instant::from_nanos(ms * 1_000_000),
        wall: Timestamp::from_unix_nanos(WALL0 + ms * 1_000_000),
    }
}

pub(super) fn writer(n: u8, strength: i32, lifespan: Option<Duration>) -> RemoteWriter {
    RemoteWriter {
        guid: wguid(n),
        unicast_locators: vec![Locator::udpv4([10, 0, 0, n], 7411)],
        multicast_locators: Vec::new(),
        reliable: false,
        ownership_strength: strength,
        lifespan,
    }
}

/// A best-effort keyed reader with these tweaks, matched with writers 1..=n (strength n*?).
pub(super) fn reader(tweak: impl FnOnce(&mut ReaderConfig), writers: &[RemoteWriter]) -> Reader {
    let mut c = ReaderConfig::new(reader_guid(), false, true);
    c.history = History::KeepAll;
    tweak(&mut c);
    let mut r = Reader::new(c);
    for w in writers {
        r.matched_writer_add(t(0), w.clone());
    }
    r
}

/// Writer `w` sends SN `sn` of instance `key` (status flags `status`), stamped `ts_ms`.
pub(super) fn send(
    r: &mut Reader,
    now: Now,
    w: u8,
    sn: i64,
    key: u8,
    status: u8,
    ts_ms: Option<u64>,
) {
    let qos = inline_qos_bytes(status, [key; 16]);
    let payload = [0, 1, 0, 0, key, sn as u8];
    let mut d = data(sn, &payload);
    d.writer_id = wguid(w).entity_id;
    d.inline_qos = Some(ParameterListView::new_checked(&mut CdrReader::new(&qos, LE)).unwrap());
    if status != 0 {
        d.payload = DataPayload::None;
    }
    let ts = ts_ms.map(|ms| Timestamp::from_unix_nanos(WALL0 + ms * 1_000_000));
    r.handle_data(now, wguid(w), ts, &d);
}

/// (writer number, SN, key byte, kind) of every sample taken at `now`.
fn take_all(r: &mut Reader, now: Now) -> Vec<(u8, i64, u8, ChangeKind)> {
    std::iter::from_fn(|| r.take(now))
        .map(|c| {
            let key = c.key_hash.map_or(0, |k| k[0]);
            (c.writer_guid.prefix.0[0], c.sequence_number.0, key, c.kind)
        })
        .collect()
}

#[test]
fn requested_deadline_is_missed_once_per_period_per_instance() {
    let mut r = reader(
        |c| c.deadline = Some(Duration::from_millis(100)),
        &[writer(1, 0, None)],
    );
    assert_eq!(r.poll_timeout(), None, "no instance yet");
    send(&mut r, t(0), 1, 1, 0xa, 0, None);
    send(&mut r, t(0), 1, 2, 0xb, 0, None);
    for (sn, ms) in [(3, 90), (4, 180), (5, 270)] {
        r.handle_timeout(t(ms));
        send(&mut r, t(ms), 1, sn, 0xb, 0, None);
    }
    r.handle_timeout(t(300));
    let missed: Vec<_> = std::iter::from_fn(|| r.poll_deadline_missed()).collect();
    assert_eq!(
        missed,
        vec![Some([0xa; 16]); 3],
        "a at 100, 200, 300; b never"
    );
    assert_eq!(r.deadline_status().total_count, 3);
    assert_eq!(r.poll_timeout(), Some(t(370).mono), "b's next deadline");
    // A disposed instance is no longer watched.
    send(&mut r, t(301), 1, 6, 0xa, 0x1, None);
    send(&mut r, t(301), 1, 7, 0xb, 0x1, None);
    r.handle_timeout(t(2000));
    assert_eq!(r.poll_deadline_missed(), None);
}

#[test]
fn samples_past_the_writers_lifespan_are_dropped_on_arrival_and_while_queued() {
    let life = Some(Duration::from_millis(100));
    let mut r = reader(|_| {}, &[writer(1, 0, life), writer(2, 0, None)]);
    send(&mut r, t(150), 1, 1, 1, 0, Some(0)); // expired at 100
    send(&mut r, t(150), 1, 2, 1, 0, Some(120)); // expires at 220
    send(&mut r, t(150), 2, 1, 1, 0, Some(0)); // writer 2 has no lifespan
    assert_eq!(r.counters().samples_expired, 1);
    assert_eq!(r.samples_queued(), 2);
    assert_eq!(take_all(&mut r, t(250)), vec![(2, 1, 1, ChangeKind::Alive)]);
    assert_eq!(r.counters().samples_expired, 2);
}

#[test]
fn samples_without_a_source_timestamp_expire_a_lifespan_after_reception() {
    // RustDDS 0.15.1 writers send no INFO_TS: the lifespan runs from reception.
    let life = Some(Duration::from_millis(100));
    let mut r = reader(|_| {}, &[writer(1, 0, life)]);
    send(&mut r, t(150), 1, 1, 1, 0, None); // expires at 250
    send(&mut r, t(200), 1, 2, 2, 0, None); // expires at 300
    assert_eq!(r.samples_queued(), 2);
    assert_eq!(take_all(&mut r, t(260)), vec![(1, 2, 2, ChangeKind::Alive)]);
    assert_eq!(r.counters().samples_expired, 1);
    send(&mut r, t(400), 1, 3, 1, 0, None);
    assert_eq!(take_all(&mut r, t(600)), vec![]);
    assert_eq!(r.counters().samples_expired, 2);
}

#[test]
fn time_based_filter_keeps_one_sample_per_instance_per_separation() {
    let mut r = reader(
        |c| c.time_based_filter = Some(Duration::from_millis(100)),
        &[writer(1, 0, None)],
    );
    for (sn, ms) in [(1, 0), (2, 30), (3, 60), (4, 110), (5, 150), (6, 220)] {
        send(&mut r, t(ms), 1, sn, 0xa, 0, None);
    }
    send(&mut r, t(30), 1, 7, 0xb, 0, None);
    let got: Vec<i64> = take_all(&mut r, t(300)).iter().map(|s| s.1).collect();
    assert_eq!(got, vec![1, 4, 6, 7]);
    assert_eq!(r.counters().samples_filtered, 3);
}

#[test]
fn exclusive_ownership_follows_the_strongest_writer_and_passes_on_when_it_goes() {
    let ws = [writer(1, 5, None), writer(2, 10, None), writer(3, 1, None)];
    let mut r = reader(|c| c.exclusive_ownership = true, &ws);
    send(&mut r, t(1), 1, 1, 0xa, 0, None); // first writer owns
    send(&mut r, t(2), 3, 1, 0xa, 0, None); // weaker: dropped
    send(&mut r, t(3), 2, 1, 0xa, 0, None); // stronger: takes over
    send(&mut r, t(4), 1, 2, 0xa, 0, None); // dropped
    send(&mut r, t(5), 3, 2, 0xb, 0, None); // other instance: its own owner
    let got: Vec<(u8, i64)> = take_all(&mut r, t(6)).iter().map(|s| (s.0, s.1)).collect();
    assert_eq!(got, vec![(1, 1), (2, 1), (3, 2)]);
    assert_eq!(r.counters().samples_not_owner, 2);
    // The owner goes: the strongest remaining writer of the instance (1, not 3) inherits it,
    // and the instance still has writers (no NOT_ALIVE_NO_WRITERS).
    assert!(r.matched_writer_remove(wguid(2)));
    send(&mut r, t(7), 3, 3, 0xa, 0, None);
    send(&mut r, t(8), 1, 3, 0xa, 0, None);
    let got: Vec<(u8, i64)> = take_all(&mut r, t(9)).iter().map(|s| (s.0, s.1)).collect();
    assert_eq!(got, vec![(1, 3)]);
    // Equal strength: the lower GUID wins.
    let mut r = reader(
        |c| c.exclusive_ownership = true,
        &[writer(4, 7, None), writer(3, 7, None)],
    );
    send(&mut r, t(1), 4, 1, 0xa, 0, None);
    send(&mut r, t(2), 3, 1, 0xa, 0, None);
    send(&mut r, t(3), 4, 2, 0xa, 0, None);
    let got: Vec<u8> = take_all(&mut r, t(4)).iter().map(|s| s.0).collect();
    assert_eq!(got, vec![4, 3]);
}

#[test]
fn the_last_writer_unmatching_makes_the_instance_not_alive_no_writers() {
    let mut r = reader(
        |c| c.deadline = Some(Duration::from_millis(100)),
        &[writer(1, 0, None), writer(2, 0, None)],
    );
    send(&mut r, t(1), 1, 1, 0xa, 0, None);
    send(&mut r, t(1), 2, 1, 0xa, 0, None);
    send(&mut r, t(1), 1, 2, 0xb, 0, None);
    take_all(&mut r, t(2));
    assert!(r.take_new_data());
    r.matched_writer_remove(wguid(1));
    assert!(r.take_new_data(), "the notification is DATA_AVAILABLE");
    assert_eq!(
        take_all(&mut r, t(3)),
        vec![(1, 0, 0xb, ChangeKind::NotAliveNoWriters)]
    );
    r.matched_writer_remove(wguid(2));
    assert_eq!(
        take_all(&mut r, t(4)),
        vec![(2, 0, 0xa, ChangeKind::NotAliveNoWriters)]
    );
    assert!(!r.matched_writer_remove(wguid(2)));
    assert_eq!(r.counters().no_writers_notifications, 2);
    // No writers: no deadline either.
    r.handle_timeout(t(1000));
    assert_eq!(r.poll_deadline_missed(), None);
}

#[test]
fn an_unregistered_instance_gets_no_second_no_writers_notification() {
    let mut r = reader(|_| {}, &[writer(1, 0, None)]);
    send(&mut r, t(1), 1, 1, 0xa, 0, None);
    send(&mut r, t(1), 1, 2, 0xa, 0x2, None);
    r.matched_writer_remove(wguid(1));
    let kinds: Vec<ChangeKind> = take_all(&mut r, t(2)).iter().map(|s| s.3).collect();
    assert_eq!(
        kinds,
        vec![ChangeKind::Alive, ChangeKind::NotAliveUnregistered]
    );
}

#[test]
fn read_returns_unread_samples_once_and_take_still_returns_them() {
    let mut r = reader(|_| {}, &[writer(1, 0, None)]);
    for sn in 1..=3 {
        send(&mut r, t(1), 1, sn, sn as u8, 0, None);
    }
    let sns = |v: Vec<CacheChange>| v.iter().map(|c| c.sequence_number.0).collect::<Vec<_>>();
    assert_eq!(sns(r.read(t(2))), vec![1, 2, 3]);
    assert_eq!(r.samples_unread(), 0);
    assert!(r.read(t(2)).is_empty(), "already READ");
    send(&mut r, t(3), 1, 4, 4, 0, None);
    assert_eq!(sns(r.read(t(3))), vec![4]);
    assert_eq!(r.samples_queued(), 4);
    let taken: Vec<i64> = take_all(&mut r, t(4)).iter().map(|s| s.1).collect();
    assert_eq!(taken, vec![1, 2, 3, 4]);
    assert!(r.read(t(5)).is_empty());
}

#[test]
fn a_key_hasher_attributes_samples_without_pid_key_hash() {
    fn hasher(_kind: ChangeKind, data: &[u8]) -> Option<[u8; 16]> {
        data.get(4).map(|k| [*k; 16])
    }
    let mut r = reader(
        |c| {
            c.time_based_filter = Some(Duration::from_millis(100));
            c.key_hasher = Some(KeyHasher(hasher));
        },
        &[writer(1, 0, None)],
    );
    for (sn, key) in [(1, 0xa), (2, 0xb), (3, 0xa)] {
        let payload = [0, 1, 0, 0, key];
        let mut d = data(sn, &payload);
        d.writer_id = wguid(1).entity_id;
        r.handle_data(t(1), wguid(1), None, &d);
    }
    let got: Vec<(i64, u8)> = take_all(&mut r, t(2)).iter().map(|s| (s.1, s.2)).collect();
    assert_eq!(
        got,
        vec![(1, 0xa), (2, 0xb)],
        "per-instance filter needs the key"
    );
}
