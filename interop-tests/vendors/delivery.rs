//! Delivery scenarios against Cyclone DDS 0.10 and Fast DDS 2.9, both directions: best
//! effort, TRANSIENT_LOCAL late joiners, 100 KB fragmented samples, dispose/unregister.
//! Harness and skip rules in the parent module; each test has a domain of its own.

// These tests drive real vendor processes in real time, so they read the clock and poll.
#![allow(clippy::disallowed_methods)]

use super::*;

// --- 1. best effort --------------------------------------------------------------------------

/// Our best-effort writer → the vendor's best-effort reader: ≥ 90 %, in order, no duplicates.
fn best_effort_to_vendor(vendor: Vendor, domain: u32) {
    const N: usize = 1000;
    let peer = spawn(
        vendor,
        &argv(&format!("sub -d {domain} -b -k 0 -n {N} -t 10")),
    );
    let p = participant(domain);
    // KEEP_ALL: with KEEP_LAST(1) a burst of writes replaces samples not yet sent (allowed).
    let w = make_writer(
        &p,
        "Square",
        &[],
        writer_qos(false, Durability::Volatile, History::KeepAll),
    );
    w.wait_for_matched(1, Duration::from_secs(8)).unwrap();
    assert!(
        peer.wait_line("sub: matched writers 1", Duration::from_secs(8)),
        "{vendor:?} never matched us"
    );
    for i in 0..N {
        w.write(&shape(i as i32, "BLUE")).unwrap();
        if i % 10 == 9 {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let (_, out) = peer.finish_any(Duration::from_secs(12));
    let xs: Vec<i32> = peer_samples(&out).iter().map(|s| s.x).collect();
    eprintln!("{vendor:?} best-effort reader got {} of {N}", xs.len());
    assert!(
        xs.len() * 10 >= N * 9,
        "{vendor:?}: only {} of {N}",
        xs.len()
    );
    assert!(
        strictly_increasing(&xs),
        "{vendor:?}: out of order or duplicated"
    );
}

/// The vendor's best-effort writer → our best-effort reader.
fn best_effort_from_vendor(vendor: Vendor, domain: u32) {
    const N: usize = 1000;
    let p = participant(domain);
    let r = make_reader(&p, "Square", &[], reader_qos(false, Durability::Volatile));
    let peer = spawn(
        vendor,
        &argv(&format!(
            "pub -d {domain} -b -k 0 -n {N} -i 1 -c GREEN -t 12 -l 200"
        )),
    );
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(12);
    while Instant::now() < deadline && !peer.output().contains("pub: wrote") {
        got.extend(r.wait_take(Duration::from_millis(100)).unwrap());
    }
    // "pub: wrote" comes after the peer's linger: every sample it sent is in our process.
    got.extend(take_delivered(&r));
    drop(peer);
    let xs = alive_xs(&got);
    eprintln!("{vendor:?} best-effort writer: we got {} of {N}", xs.len());
    assert!(
        xs.len() * 10 >= N * 9,
        "{vendor:?}: only {} of {N}",
        xs.len()
    );
    assert!(
        strictly_increasing(&xs),
        "{vendor:?}: out of order or duplicated"
    );
}

#[test]
fn siftdds_best_effort_writer_to_cyclone() {
    if ready("siftdds_best_effort_writer_to_cyclone", Vendor::Cyclone) {
        best_effort_to_vendor(Vendor::Cyclone, 24);
    }
}

#[test]
fn siftdds_best_effort_writer_to_fastdds() {
    if ready("siftdds_best_effort_writer_to_fastdds", Vendor::FastDds) {
        best_effort_to_vendor(Vendor::FastDds, 25);
    }
}

#[test]
fn cyclone_best_effort_writer_to_siftdds() {
    if ready("cyclone_best_effort_writer_to_siftdds", Vendor::Cyclone) {
        best_effort_from_vendor(Vendor::Cyclone, 26);
    }
}

#[test]
fn fastdds_best_effort_writer_to_siftdds() {
    if ready("fastdds_best_effort_writer_to_siftdds", Vendor::FastDds) {
        best_effort_from_vendor(Vendor::FastDds, 27);
    }
}

// --- 2. late joiner, TRANSIENT_LOCAL ---------------------------------------------------------

/// Our TRANSIENT_LOCAL writer writes 20 samples before the vendor's TRANSIENT_LOCAL reader
/// exists; the late reader gets the history (the last `depth`, or all with KEEP_ALL).
fn transient_local_to_vendor(vendor: Vendor, domain: u32, history: History) {
    const N: i32 = 20;
    let p = participant(domain);
    let w = make_writer(
        &p,
        "Square",
        &[],
        writer_qos(true, Durability::TransientLocal, history),
    );
    for i in 0..N {
        w.write(&shape(i, "BLUE")).unwrap();
    }
    let expected: Vec<i32> = match history {
        History::KeepLast(d) => (N - d as i32..N).collect(),
        History::KeepAll => (0..N).collect(),
    };
    let peer = spawn(
        vendor,
        &argv(&format!(
            "sub -d {domain} -D t -k 0 -n {} -t 10",
            expected.len()
        )),
    );
    let (status, out) = peer.finish_any(Duration::from_secs(12));
    let xs: Vec<i32> = peer_samples(&out).iter().map(|s| s.x).collect();
    assert_eq!(xs, expected, "{vendor:?} {history:?} ({status:?}):\n{out}");
    drop(w);
}

/// The vendor's TRANSIENT_LOCAL writer (KEEP_LAST 5) writes 20 samples with nobody matched;
/// our late TRANSIENT_LOCAL reader gets the last 5.
fn transient_local_from_vendor(vendor: Vendor, domain: u32) {
    let peer = spawn(
        vendor,
        &argv(&format!(
            "pub -d {domain} -D t -k 5 -m 0 -n 20 -i 0 -c GREEN -t 12 -l 8000"
        )),
    );
    assert!(
        peer.wait_line("pub: 20 GREEN", Duration::from_secs(8)),
        "{vendor:?}:\n{}",
        peer.output()
    );
    let p = participant(domain);
    let r = make_reader(
        &p,
        "Square",
        &[],
        reader_qos(true, Durability::TransientLocal),
    );
    let mut got = collect(&r, Duration::from_secs(8), |s| s.len() >= 5);
    // Nothing beyond the last 5 may arrive: wait out one writer HEARTBEAT period of quiet.
    got.extend(take_until_writer_quiet(&r, vendor));
    let expected: Vec<i32> = (15..20).map(|i| 10 + 5 * i).collect();
    assert_eq!(alive_xs(&got), expected, "{vendor:?}:\n{}", peer.output());
}

#[test]
fn siftdds_transient_local_keep_last_to_late_cyclone_reader() {
    if ready(
        "siftdds_transient_local_keep_last_to_late_cyclone_reader",
        Vendor::Cyclone,
    ) {
        transient_local_to_vendor(Vendor::Cyclone, 28, History::KeepLast(5));
    }
}

#[test]
fn siftdds_transient_local_keep_last_to_late_fastdds_reader() {
    if ready(
        "siftdds_transient_local_keep_last_to_late_fastdds_reader",
        Vendor::FastDds,
    ) {
        transient_local_to_vendor(Vendor::FastDds, 29, History::KeepLast(5));
    }
}

#[test]
fn siftdds_transient_local_keep_all_to_late_cyclone_reader() {
    if ready(
        "siftdds_transient_local_keep_all_to_late_cyclone_reader",
        Vendor::Cyclone,
    ) {
        transient_local_to_vendor(Vendor::Cyclone, 30, History::KeepAll);
    }
}

#[test]
fn siftdds_transient_local_keep_all_to_late_fastdds_reader() {
    if ready(
        "siftdds_transient_local_keep_all_to_late_fastdds_reader",
        Vendor::FastDds,
    ) {
        transient_local_to_vendor(Vendor::FastDds, 31, History::KeepAll);
    }
}

#[test]
fn cyclone_transient_local_writer_to_late_siftdds_reader() {
    if ready(
        "cyclone_transient_local_writer_to_late_siftdds_reader",
        Vendor::Cyclone,
    ) {
        transient_local_from_vendor(Vendor::Cyclone, 32);
    }
}

#[test]
fn fastdds_transient_local_writer_to_late_siftdds_reader() {
    if ready(
        "fastdds_transient_local_writer_to_late_siftdds_reader",
        Vendor::FastDds,
    ) {
        transient_local_from_vendor(Vendor::FastDds, 33);
    }
}

// --- 3. fragmented 100 KB samples ------------------------------------------------------------

const BIG: usize = 100_000;

fn big_payload() -> Vec<u8> {
    (0..BIG).map(|k| k as u8).collect()
}

/// Our writer sends 100 KB samples (DATA_FRAG); the vendor reader prints their payload length.
fn fragments_to_vendor(vendor: Vendor, domain: u32) {
    const N: usize = 5;
    let peer = spawn(vendor, &argv(&format!("sub -d {domain} -k 0 -n {N} -t 12")));
    let p = participant(domain);
    let w = make_writer(&p, "Square", &[], reliable_writer_qos());
    w.wait_for_matched(1, Duration::from_secs(8)).unwrap();
    assert!(
        peer.wait_line("sub: matched writers 1", Duration::from_secs(8)),
        "{vendor:?} never matched us"
    );
    for i in 0..N {
        w.write(&ShapeType {
            additional_payload_size: big_payload(),
            ..shape(i as i32, "BLUE")
        })
        .unwrap();
    }
    w.wait_for_acknowledgments(Duration::from_secs(10)).unwrap();
    let (status, out) = peer.finish_any(Duration::from_secs(12));
    let got = peer_samples(&out);
    assert_eq!(
        got.iter().map(|s| s.x).collect::<Vec<_>>(),
        (0..N as i32).collect::<Vec<_>>(),
        "{vendor:?} ({status:?}):\n{out}"
    );
    assert!(
        got.iter().all(|s| s.payload == BIG && s.color == "BLUE"),
        "{vendor:?}:\n{out}"
    );
}

/// The vendor writes 100 KB samples; we reassemble them intact.
fn fragments_from_vendor(vendor: Vendor, domain: u32) {
    const N: usize = 5;
    let p = participant(domain);
    let r = make_reader(&p, "Square", &[], reliable_reader_qos());
    let peer = spawn(
        vendor,
        &argv(&format!(
            "pub -d {domain} -k 0 -n {N} -i 50 -z {BIG} -c GREEN -t 12"
        )),
    );
    let got = collect(&r, Duration::from_secs(12), |s| s.len() >= N);
    let out = peer.output();
    drop(peer);
    let values: Vec<&ShapeType> = got.iter().filter_map(|s| s.value.as_ref()).collect();
    assert_eq!(values.len(), N, "{vendor:?}:\n{out}");
    let expected = big_payload();
    for (i, v) in values.iter().enumerate() {
        assert_eq!(v.x, 10 + 5 * i as i32);
        assert_eq!(
            v.additional_payload_size.len(),
            BIG,
            "{vendor:?} sample {i}"
        );
        assert!(
            v.additional_payload_size == expected,
            "{vendor:?} sample {i}: payload corrupted"
        );
    }
}

#[test]
fn siftdds_fragmented_100k_to_cyclone() {
    if ready("siftdds_fragmented_100k_to_cyclone", Vendor::Cyclone) {
        fragments_to_vendor(Vendor::Cyclone, 34);
    }
}

#[test]
fn siftdds_fragmented_100k_to_fastdds() {
    if ready("siftdds_fragmented_100k_to_fastdds", Vendor::FastDds) {
        fragments_to_vendor(Vendor::FastDds, 35);
    }
}

#[test]
fn cyclone_fragmented_100k_to_siftdds() {
    if ready("cyclone_fragmented_100k_to_siftdds", Vendor::Cyclone) {
        fragments_from_vendor(Vendor::Cyclone, 36);
    }
}

#[test]
fn fastdds_fragmented_100k_to_siftdds() {
    if ready("fastdds_fragmented_100k_to_siftdds", Vendor::FastDds) {
        fragments_from_vendor(Vendor::FastDds, 37);
    }
}

// --- 4. dispose / unregister -----------------------------------------------------------------

/// We write RED and BLUE, dispose RED and unregister BLUE; the vendor's reader reports both
/// instance state changes.
fn dispose_to_vendor(vendor: Vendor, domain: u32) {
    let peer = spawn(
        vendor,
        &argv(&format!("sub -d {domain} -k 0 -n 2 -w 2 -t 10")),
    );
    let p = participant(domain);
    let w = make_writer(&p, "Square", &[], reliable_writer_qos());
    w.wait_for_matched(1, Duration::from_secs(8)).unwrap();
    assert!(
        peer.wait_line("sub: matched writers 1", Duration::from_secs(8)),
        "{vendor:?} never matched us"
    );
    w.write(&shape(1, "RED")).unwrap();
    w.write(&shape(2, "BLUE")).unwrap();
    w.dispose(&shape(0, "RED")).unwrap();
    w.unregister_instance(&shape(0, "BLUE")).unwrap();
    w.wait_for_acknowledgments(Duration::from_secs(8)).unwrap();
    let (status, out) = peer.finish_any(Duration::from_secs(10));
    assert!(
        out.contains("sub: instance RED NOT_ALIVE_DISPOSED"),
        "{vendor:?} ({status:?}):\n{out}"
    );
    assert!(
        out.contains("sub: instance BLUE NOT_ALIVE_NO_WRITERS"),
        "{vendor:?} ({status:?}):\n{out}"
    );
}

/// The vendor writes RED and BLUE, disposes RED, unregisters BLUE; we see both, with the key
/// hashes of our own ShapeType.
fn dispose_from_vendor(vendor: Vendor, domain: u32) {
    let p = participant(domain);
    let r = make_reader(&p, "Square", &[], reliable_reader_qos());
    let peer = spawn(
        vendor,
        &argv(&format!(
            "pub -d {domain} -k 0 -n 2 -c RED,BLUE -x RED -u BLUE -t 10 -l 500"
        )),
    );
    let red = shape(0, "RED").key_hash();
    let blue = shape(0, "BLUE").key_hash();
    let has = |s: &[Sample<ShapeType>], kinds: &[ChangeKind], key| {
        s.iter()
            .any(|x| kinds.contains(&x.kind) && x.key_hash() == key)
    };
    // Both vendors' writers autodispose on unregister by default: BLUE may come as D|U.
    let disposed = [ChangeKind::NotAliveDisposed];
    let unregistered = [
        ChangeKind::NotAliveUnregistered,
        ChangeKind::NotAliveDisposedUnregistered,
    ];
    let got = collect(&r, Duration::from_secs(10), |s| {
        has(s, &disposed, red) && has(s, &unregistered, blue)
    });
    let out = peer.output();
    drop(peer);
    let summary: Vec<String> = got
        .iter()
        .map(|s| {
            format!(
                "{:?} {:?} {:02x?}",
                s.kind,
                s.value.as_ref().map(|v| &v.color),
                s.key_hash()
            )
        })
        .collect();
    assert_eq!(
        alive_xs(&got),
        vec![10, 15],
        "{vendor:?}: {summary:#?}\n{out}"
    );
    assert!(
        has(&got, &disposed, red),
        "{vendor:?}: no dispose of RED: {summary:#?}\n{out}"
    );
    assert!(
        has(&got, &unregistered, blue),
        "{vendor:?}: no unregister of BLUE: {summary:#?}\n{out}"
    );
}

#[test]
fn siftdds_dispose_unregister_seen_by_cyclone() {
    if ready(
        "siftdds_dispose_unregister_seen_by_cyclone",
        Vendor::Cyclone,
    ) {
        dispose_to_vendor(Vendor::Cyclone, 38);
    }
}

#[test]
fn siftdds_dispose_unregister_seen_by_fastdds() {
    if ready(
        "siftdds_dispose_unregister_seen_by_fastdds",
        Vendor::FastDds,
    ) {
        dispose_to_vendor(Vendor::FastDds, 39);
    }
}

#[test]
fn cyclone_dispose_unregister_seen_by_siftdds() {
    if ready(
        "cyclone_dispose_unregister_seen_by_siftdds",
        Vendor::Cyclone,
    ) {
        dispose_from_vendor(Vendor::Cyclone, 40);
    }
}

#[test]
fn fastdds_dispose_unregister_seen_by_siftdds() {
    if ready(
        "fastdds_dispose_unregister_seen_by_siftdds",
        Vendor::FastDds,
    ) {
        dispose_from_vendor(Vendor::FastDds, 41);
    }
}
