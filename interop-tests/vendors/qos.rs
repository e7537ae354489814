//! QoS scenarios against Cyclone DDS 0.10 and Fast DDS 2.9, both directions: incompatible
//! QoS, domain isolation, partitions, liveliness, time-based filter. Harness and skip rules
//! in the parent module; each test has a domain of its own.

// These tests drive real vendor processes in real time, so they read the clock and poll.
#![allow(clippy::disallowed_methods)]

use super::*;

// --- 5. incompatible QoS ---------------------------------------------------------------------

fn wait_for_event(
    p: &DomainParticipant,
    timeout: Duration,
    pred: impl Fn(&Event) -> bool,
) -> Option<Event> {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if let Some(e) = p.wait_event(Duration::from_millis(200)).unwrap() {
            if pred(&e) {
                return Some(e);
            }
        }
    }
    None
}

/// The vendor's best-effort writer vs our reliable reader: REQUESTED_INCOMPATIBLE_QOS here,
/// OFFERED_INCOMPATIBLE_QOS there, and no match.
fn incompatible_vendor_writer(vendor: Vendor, domain: u32) {
    let p = participant(domain);
    let r = make_reader(&p, "Square", &[], reliable_reader_qos());
    let peer = spawn(
        vendor,
        &argv(&format!("pub -d {domain} -b -m 0 -n 0 -t 10 -l 8000")),
    );
    let e = wait_for_event(&p, Duration::from_secs(8), |e| {
        matches!(e, Event::RequestedIncompatibleQos { .. })
    });
    match e {
        Some(Event::RequestedIncompatibleQos { policies, .. }) => {
            assert!(
                policies.contains(QosPolicyId::Reliability),
                "{vendor:?}: {policies:?}"
            )
        }
        other => panic!(
            "{vendor:?}: no RequestedIncompatibleQos ({other:?})\n{}",
            peer.output()
        ),
    }
    assert!(
        peer.wait_line("pub: offered incompatible qos", Duration::from_secs(5)),
        "{vendor:?}:\n{}",
        peer.output()
    );
    assert_eq!(r.matched_publications().unwrap(), 0);
}

/// Our best-effort writer vs the vendor's reliable reader.
fn incompatible_vendor_reader(vendor: Vendor, domain: u32) {
    let p = participant(domain);
    let w = make_writer(
        &p,
        "Square",
        &[],
        writer_qos(false, Durability::Volatile, History::KeepLast(1)),
    );
    let peer = spawn(vendor, &argv(&format!("sub -d {domain} -n 0 -t 10")));
    let e = wait_for_event(&p, Duration::from_secs(8), |e| {
        matches!(e, Event::OfferedIncompatibleQos { .. })
    });
    match e {
        Some(Event::OfferedIncompatibleQos { policies, .. }) => {
            assert!(
                policies.contains(QosPolicyId::Reliability),
                "{vendor:?}: {policies:?}"
            )
        }
        other => panic!(
            "{vendor:?}: no OfferedIncompatibleQos ({other:?})\n{}",
            peer.output()
        ),
    }
    assert!(
        peer.wait_line("sub: requested incompatible qos", Duration::from_secs(5)),
        "{vendor:?}:\n{}",
        peer.output()
    );
    assert_eq!(w.matched_subscriptions().unwrap(), 0);
}

#[test]
fn cyclone_best_effort_writer_incompatible_with_siftdds_reliable_reader() {
    if ready(
        "cyclone_best_effort_writer_incompatible_with_siftdds_reliable_reader",
        Vendor::Cyclone,
    ) {
        incompatible_vendor_writer(Vendor::Cyclone, 42);
    }
}

#[test]
fn fastdds_best_effort_writer_incompatible_with_siftdds_reliable_reader() {
    if ready(
        "fastdds_best_effort_writer_incompatible_with_siftdds_reliable_reader",
        Vendor::FastDds,
    ) {
        incompatible_vendor_writer(Vendor::FastDds, 43);
    }
}

#[test]
fn siftdds_best_effort_writer_incompatible_with_cyclone_reliable_reader() {
    if ready(
        "siftdds_best_effort_writer_incompatible_with_cyclone_reliable_reader",
        Vendor::Cyclone,
    ) {
        incompatible_vendor_reader(Vendor::Cyclone, 44);
    }
}

#[test]
fn siftdds_best_effort_writer_incompatible_with_fastdds_reliable_reader() {
    if ready(
        "siftdds_best_effort_writer_incompatible_with_fastdds_reliable_reader",
        Vendor::FastDds,
    ) {
        incompatible_vendor_reader(Vendor::FastDds, 45);
    }
}

// --- 6. different domains --------------------------------------------------------------------

/// The vendor on `theirs`, we on `ours`: nobody is discovered or matched, nothing arrives
/// (both directions: their sub on "Square" vs our writer, their pub on "Circle" vs our reader).
fn domains_isolated(vendor: Vendor, ours: u32, theirs: u32) {
    let sub = spawn(vendor, &argv(&format!("sub -d {theirs} -n 0 -t 4")));
    let publ = spawn(
        vendor,
        &argv(&format!(
            "pub -d {theirs} -T Circle -m 0 -n 30 -i 100 -c GREEN -t 6 -l 0"
        )),
    );
    let p = participant(ours);
    let w = make_writer(&p, "Square", &[], reliable_writer_qos());
    let r = make_reader(&p, "Circle", &[], reliable_reader_qos());
    let deadline = Instant::now() + Duration::from_secs(4);
    let mut i = 0;
    while Instant::now() < deadline {
        w.write(&shape(i, "BLUE")).unwrap();
        i += 1;
        assert!(
            r.take().unwrap().is_empty(),
            "{vendor:?}: got a sample across domains"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(p.discovered_participants().unwrap(), 0, "{vendor:?}");
    assert_eq!(w.matched_subscriptions().unwrap(), 0, "{vendor:?}");
    assert_eq!(r.matched_publications().unwrap(), 0, "{vendor:?}");
    let (_, out) = sub.finish_any(Duration::from_secs(6));
    assert!(
        out.contains("sub: received 0 samples") && !out.contains("matched writers 1"),
        "{vendor:?}:\n{out}"
    );
    let pub_out = publ.output();
    assert!(
        pub_out.contains("pub: 1 GREEN"),
        "{vendor:?} peer did not publish:\n{pub_out}"
    );
}

#[test]
fn cyclone_other_domain_does_not_match() {
    if ready("cyclone_other_domain_does_not_match", Vendor::Cyclone) {
        domains_isolated(Vendor::Cyclone, 46, 47);
    }
}

#[test]
fn fastdds_other_domain_does_not_match() {
    if ready("fastdds_other_domain_does_not_match", Vendor::FastDds) {
        domains_isolated(Vendor::FastDds, 48, 49);
    }
}

// --- 7. partitions ---------------------------------------------------------------------------

/// (ours, theirs, should match), one topic per case.
const PARTITION_CASES: [(&str, &str, bool); 4] = [
    ("A", "A", true),
    ("A", "B", false),
    ("A*", "AB", true),
    ("AB", "A*", true),
];

/// Our writers in partition `ours` → the vendor's readers in `theirs`.
fn partitions_to_vendor(vendor: Vendor, domain: u32) {
    let peers: Vec<Peer> = PARTITION_CASES
        .iter()
        .enumerate()
        .map(|(k, (_, theirs, m))| {
            let n = if *m { 3 } else { 0 };
            spawn(
                vendor,
                &argv(&format!(
                    "sub -d {domain} -T P{k} -P {theirs} -k 0 -n {n} -t 7"
                )),
            )
        })
        .collect();
    let p = participant(domain);
    let writers: Vec<_> = PARTITION_CASES
        .iter()
        .enumerate()
        .map(|(k, (ours, _, _))| make_writer(&p, &format!("P{k}"), &[ours], reliable_writer_qos()))
        .collect();
    for (k, ((ours, theirs, m), w)) in PARTITION_CASES.iter().zip(&writers).enumerate() {
        if *m {
            w.wait_for_matched(1, Duration::from_secs(6))
                .unwrap_or_else(|e| panic!("{vendor:?} case {k} {ours}/{theirs}: {e}"));
            assert!(
                peers[k].wait_line("sub: matched writers 1", Duration::from_secs(6)),
                "{vendor:?} case {k}"
            );
        }
        for i in 0..3 {
            w.write(&shape(i, "BLUE")).unwrap();
        }
    }
    for (k, ((ours, theirs, m), w)) in PARTITION_CASES.iter().zip(&writers).enumerate() {
        if *m {
            w.wait_for_acknowledgments(Duration::from_secs(5)).unwrap();
        } else {
            assert_eq!(
                w.matched_subscriptions().unwrap(),
                0,
                "{vendor:?} case {k} {ours}/{theirs}"
            );
        }
    }
    for (k, (peer, (ours, theirs, m))) in peers.into_iter().zip(PARTITION_CASES).enumerate() {
        let (_, out) = peer.finish_any(Duration::from_secs(8));
        let n = peer_samples(&out).len();
        assert_eq!(
            n,
            if m { 3 } else { 0 },
            "{vendor:?} case {k} ours {ours} theirs {theirs}:\n{out}"
        );
    }
}

/// The vendor's writers in `theirs` → our readers in `ours`.
fn partitions_from_vendor(vendor: Vendor, domain: u32) {
    let p = participant(domain);
    let readers: Vec<_> = PARTITION_CASES
        .iter()
        .enumerate()
        .map(|(k, (ours, _, _))| make_reader(&p, &format!("P{k}"), &[ours], reliable_reader_qos()))
        .collect();
    let mut peers: Vec<Peer> = PARTITION_CASES
        .iter()
        .enumerate()
        .map(|(k, (_, theirs, _))| {
            spawn(
                vendor,
                &argv(&format!(
                    "pub -d {domain} -T P{k} -P {theirs} -k 0 -n 3 -i 10 -c GREEN -t 6 -l 300"
                )),
            )
        })
        .collect();
    let mut got = vec![Vec::new(); PARTITION_CASES.len()];
    let deadline = Instant::now() + Duration::from_secs(7);
    while Instant::now() < deadline {
        for (g, r) in got.iter_mut().zip(&readers) {
            g.extend(alive_xs(&r.take().unwrap()));
        }
        let matched_done = PARTITION_CASES
            .iter()
            .zip(&got)
            .all(|((_, _, m), g)| !m || g.len() >= 3);
        if matched_done {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // A non-matching writer (wrongly) delivering would do so before its peer exits: every
    // peer stops by its `-t 6` deadline (a non-matching one waits for a match until then,
    // writes nothing, lingers and exits). Once all have exited, nothing more can arrive.
    for peer in &mut peers {
        assert!(
            peer.wait_exit(Duration::from_secs(10)),
            "{vendor:?} peer still running:\n{}",
            peer.output()
        );
    }
    for (g, r) in got.iter_mut().zip(&readers) {
        g.extend(alive_xs(&take_delivered(r)));
    }
    for (k, ((ours, theirs, m), (g, r))) in PARTITION_CASES
        .iter()
        .zip(got.iter().zip(&readers))
        .enumerate()
    {
        let outs = peers[k].output();
        if *m {
            assert_eq!(
                g,
                &vec![10, 15, 20],
                "{vendor:?} case {k} ours {ours} theirs {theirs}:\n{outs}"
            );
        } else {
            assert!(
                g.is_empty(),
                "{vendor:?} case {k} ours {ours} theirs {theirs}: {g:?}"
            );
            assert_eq!(r.matched_publications().unwrap(), 0);
        }
    }
}

#[test]
fn siftdds_partitions_to_cyclone() {
    if ready("siftdds_partitions_to_cyclone", Vendor::Cyclone) {
        partitions_to_vendor(Vendor::Cyclone, 50);
    }
}

#[test]
fn siftdds_partitions_to_fastdds() {
    if ready("siftdds_partitions_to_fastdds", Vendor::FastDds) {
        partitions_to_vendor(Vendor::FastDds, 51);
    }
}

#[test]
fn cyclone_partitions_to_siftdds() {
    if ready("cyclone_partitions_to_siftdds", Vendor::Cyclone) {
        partitions_from_vendor(Vendor::Cyclone, 52);
    }
}

#[test]
fn fastdds_partitions_to_siftdds() {
    if ready("fastdds_partitions_to_siftdds", Vendor::FastDds) {
        partitions_from_vendor(Vendor::FastDds, 53);
    }
}

// --- 8. liveliness (Writer Liveliness Protocol) ---------------------------------------------

fn automatic_lease(ms: u64) -> Liveliness {
    Liveliness {
        kind: LivelinessKind::Automatic,
        lease_duration: siftdds::time::Duration::from_std(Duration::from_millis(ms)),
    }
}

/// Both directions of WLP with Cyclone on one domain:
/// - Cyclone's writer (AUTOMATIC, lease 1 s) writes two samples and then only lingers: its WLP
///   updates must keep it alive for our reader for 5 s (no `alive: false`).
/// - Our writer (AUTOMATIC, lease 1 s) writes nothing: our WLP updates must keep it alive for
///   Cyclone's reader (no "not_alive=1"), and Cyclone's trace must show it took our
///   ParticipantMessageData (PMD) without complaint.
#[test]
fn cyclone_and_siftdds_automatic_liveliness_kept_by_wlp() {
    if !ready(
        "cyclone_and_siftdds_automatic_liveliness_kept_by_wlp",
        Vendor::Cyclone,
    ) {
        return;
    }
    let domain = 60;
    let trace =
        std::env::temp_dir().join(format!("siftdds-wlp-cyclone-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&trace);
    let p = participant(domain);
    let r = make_reader(
        &p,
        "Square",
        &[],
        reliable_reader_qos().liveliness(automatic_lease(2_000)),
    );
    let w = make_writer(
        &p,
        "Circle",
        &[],
        reliable_writer_qos().liveliness(automatic_lease(1_000)),
    );
    let publ = spawn(
        Vendor::Cyclone,
        &argv(&format!(
            "pub -d {domain} -L 1000 -n 2 -i 100 -c GREEN -t 20 -l 8000"
        )),
    );
    let sub_args = format!("sub -d {domain} -T Circle -L 1000 -n 0 -t 9");
    let sub_args: Vec<&str> = sub_args.split(' ').collect();
    let sub = Peer::spawn_traced(
        Vendor::Cyclone,
        &sub_args,
        Some(trace.display().to_string()),
    );
    let alive = wait_for_event(
        &p,
        Duration::from_secs(8),
        |e| matches!(e, Event::LivelinessChanged { reader, alive: true, .. } if *reader == r.guid()),
    );
    assert!(
        alive.is_some(),
        "Cyclone's writer never became alive:\n{}",
        publ.output()
    );
    assert!(
        sub.wait_line("sub: liveliness alive=1", Duration::from_secs(8)),
        "{}",
        sub.output()
    );
    w.wait_for_matched(1, Duration::from_secs(5)).unwrap();
    // Five seconds in which nobody writes: only WLP (and SPDP) traffic flows.
    let lapsed = wait_for_event(&p, Duration::from_secs(5), |e| {
        matches!(e, Event::LivelinessChanged { alive: false, .. })
    });
    assert!(lapsed.is_none(), "{lapsed:?}\n{}", publ.output());
    let got = collect(&r, Duration::from_secs(1), |s| s.len() >= 2);
    assert_eq!(alive_xs(&got), vec![10, 15]);
    let (_, out) = sub.finish_any(Duration::from_secs(6));
    assert!(
        !out.contains("not_alive=1"),
        "Cyclone's reader saw our writer lose liveliness:\n{out}"
    );
    // Cyclone traces each received ParticipantMessageData as "PMD ST<statusinfo> pp <guid>".
    let log = std::fs::read_to_string(&trace).unwrap_or_default();
    let prefix = p.guid_prefix().0;
    let ours = format!(
        "{:x}:{:x}:{:x}",
        u32::from_be_bytes(prefix[0..4].try_into().unwrap()),
        u32::from_be_bytes(prefix[4..8].try_into().unwrap()),
        u32::from_be_bytes(prefix[8..12].try_into().unwrap())
    );
    let pmd: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("PMD") && l.contains(&ours))
        .collect();
    assert!(
        pmd.len() >= 3,
        "Cyclone logged {} PMD from us ({ours}); trace {}",
        pmd.len(),
        trace.display()
    );
    assert!(pmd.iter().all(|l| !l.contains("PPunknown")), "{pmd:#?}");
    let bad: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(&ours) && (l.contains("malformed") || l.contains("invalid")))
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
    let _ = std::fs::remove_file(&trace);
    drop(publ);
}

// --- instance QoS: TIME_BASED_FILTER on our reader ------------------------------------------

/// The vendor writes RED and BLUE alternately every 50 ms (each instance every 100 ms); our
/// reader's TIME_BASED_FILTER of 300 ms keeps about one sample in three per instance. Cyclone
/// sends no PID_KEY_HASH, so this also checks that the reader computes key hashes itself
/// (a filter on the unattributed samples would drop one of the two colours).
fn time_based_filter_from_vendor(vendor: Vendor, domain: u32) {
    const N: usize = 40;
    let p = participant(domain);
    let mut qos = reliable_reader_qos();
    qos.time_based_filter = siftdds::qos::TimeBasedFilter {
        minimum_separation: siftdds::time::Duration::from_std(Duration::from_millis(300)),
    };
    let r = make_reader(&p, "Square", &[], qos);
    let peer = spawn(
        vendor,
        &argv(&format!(
            "pub -d {domain} -n {N} -i 50 -c RED,BLUE -t 12 -l 300"
        )),
    );
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(12);
    while Instant::now() < deadline && !peer.output().contains("pub: wrote") {
        got.extend(r.wait_take(Duration::from_millis(100)).unwrap());
    }
    // "pub: wrote" comes after the peer's acknowledgments and linger: all it sent is here.
    got.extend(take_delivered(&r));
    drop(peer);
    for color in ["RED", "BLUE"] {
        let times: Vec<u64> = got
            .iter()
            .filter(|s| s.value.as_ref().is_some_and(|v| v.color == color))
            .filter_map(|s| s.info.source_timestamp.and_then(|t| t.to_unix_nanos()))
            .collect();
        eprintln!(
            "{vendor:?} {color}: {} of {} samples passed the filter",
            times.len(),
            N / 2
        );
        assert!(
            (3..=10).contains(&times.len()),
            "{vendor:?} {color}: {} samples",
            times.len()
        );
        for pair in times.windows(2) {
            // 300 ms apart on arrival; allow for the writer's 100 ms grid and jitter.
            assert!(
                pair[1] - pair[0] >= 200_000_000,
                "{vendor:?} {color}: {pair:?}"
            );
        }
    }
}

#[test]
fn cyclone_writer_to_siftdds_reader_with_time_based_filter() {
    if ready(
        "cyclone_writer_to_siftdds_reader_with_time_based_filter",
        Vendor::Cyclone,
    ) {
        time_based_filter_from_vendor(Vendor::Cyclone, 70);
    }
}

#[test]
fn fastdds_writer_to_siftdds_reader_with_time_based_filter() {
    if ready(
        "fastdds_writer_to_siftdds_reader_with_time_based_filter",
        Vendor::FastDds,
    ) {
        time_based_filter_from_vendor(Vendor::FastDds, 71);
    }
}
