//! Hostile peers over real UDP inside the sandbox (issue 15, `docs/security.md` §6): an
//! attacker socket at 127.0.0.3 forges HEARTBEAT, GAP, ACKNACK and SPDP dispose in the names
//! of a real writer and reader (`forge.rs`); a never-acknowledging reliable reader with a
//! 100,000 s lease sits on a KEEP_ALL writer; the attacker moves its own participant from
//! 127.0.0.3 to 127.0.0.4 with a higher SPDP sequence number. The real reader must keep
//! getting every sample (also when the forged HEARTBEAT and GAP come from the writer's own
//! host, which the source check lets through), the counters must show the drops, the writer must keep serving the
//! real reader once the stuck one is unresponsive, and the move must re-bind.

// A real attacker: plain sockets and real time in this harness.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::time::{Duration, Instant};

use siftdds::api::{DataReader, DataWriter, DomainParticipant, Error, PeerError};
use siftdds::core::discovery::{metatraffic_unicast_port, spdp_multicast_port};
use siftdds::core::writer::WriteError;
use siftdds::qos::{
    DataReaderQos, DataWriterQos, History, Length, PublisherQos, Reliability, ResourceLimits,
    SubscriberQos, TopicQos,
};
use siftdds::types::ShapeType;
use siftdds::wire::{Guid, Locator};

use crate::sandbox::may_open_sockets;
use crate::{forge, spoof};

/// The unresponsive-reader timeout of the writer's participant here (default 10 s).
const UNRESPONSIVE: Duration = Duration::from_secs(1);

fn participant(domain: u32) -> DomainParticipant {
    DomainParticipant::builder(domain)
        .announce_period(Duration::from_millis(200))
        .unresponsive_reader_timeout(UNRESPONSIVE)
        .build()
        .unwrap()
}

/// A KEEP_ALL reliable writer on `p` holding at most `max_samples`, and a reliable KEEP_ALL
/// reader on `q`, matched.
fn pair(
    p: &DomainParticipant,
    q: &DomainParticipant,
    max_samples: u32,
) -> (DataWriter<ShapeType>, DataReader<ShapeType>) {
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let mut wqos = DataWriterQos {
        history: History::KeepAll,
        resource_limits: ResourceLimits {
            max_samples: Length::Limited(max_samples),
            ..ResourceLimits::default()
        },
        ..DataWriterQos::default()
    };
    wqos.reliability.max_blocking_time =
        siftdds::time::Duration::from_std(Duration::from_millis(50));
    let w = p
        .create_publisher(PublisherQos::default())
        .create_datawriter(&topic, wqos)
        .unwrap();
    let rtopic = q.create_topic::<ShapeType>("Square", TopicQos::default());
    let rqos = DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        ..DataReaderQos::default()
    };
    let r = q
        .create_subscriber(SubscriberQos::default())
        .create_datareader(&rtopic, rqos)
        .unwrap();
    w.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    r.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    (w, r)
}

fn shape(i: i32) -> ShapeType {
    ShapeType {
        color: "BLUE".into(),
        x: i,
        y: 0,
        shapesize: 30,
        additional_payload_size: Vec::new(),
    }
}

/// Writes `0..n`, retrying a write the full history refused, while taking what `r` gets;
/// `during(i)` runs before write `i`. Returns the x values taken, in order.
fn write_and_take(
    w: &DataWriter<ShapeType>,
    r: &DataReader<ShapeType>,
    n: i32,
    mut during: impl FnMut(i32),
) -> Vec<i32> {
    let mut xs = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    for i in 0..n {
        during(i);
        loop {
            match w.write(&shape(i)) {
                Ok(()) => break,
                Err(Error::Timeout)
                | Err(Error::Peer(PeerError::Unacknowledged(WriteError::HistoryFull))) => {}
                Err(e) => panic!("write {i}: {e}"),
            }
            assert!(Instant::now() < deadline, "writer blocked at sample {i}");
        }
        xs.extend(
            r.take()
                .unwrap()
                .into_iter()
                .filter_map(|s| s.value.map(|v| v.x)),
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    while xs.len() < n as usize && Instant::now() < deadline {
        let got = r.wait_take(Duration::from_secs(2)).unwrap();
        if got.is_empty() {
            break;
        }
        xs.extend(got.into_iter().filter_map(|s| s.value.map(|v| v.x)));
    }
    xs
}

fn attacker(last_octet: u8) -> UdpSocket {
    UdpSocket::bind(SocketAddrV4::new(Ipv4Addr::new(127, 0, 0, last_octet), 0)).unwrap()
}

fn meta(domain: u32, p: &DomainParticipant) -> SocketAddrV4 {
    let port = metatraffic_unicast_port(domain, u32::from(p.participant_id())).unwrap();
    SocketAddrV4::new(Ipv4Addr::LOCALHOST, port)
}

#[test]
fn forged_heartbeat_gap_acknack_and_dispose_from_a_foreign_address_are_dropped() {
    if !may_open_sockets(
        "forged_heartbeat_gap_acknack_and_dispose_from_a_foreign_address_are_dropped",
    ) {
        return;
    }
    const DOMAIN: u32 = 181;
    let (p, q) = (participant(DOMAIN), participant(DOMAIN));
    let (w, r) = pair(&p, &q, 5000);
    let (wg, rg): (Guid, Guid) = (w.guid(), r.guid());
    let evil = attacker(3);
    let (to_reader, to_writer) = (meta(DOMAIN, &q), meta(DOMAIN, &p));
    let n = 400;
    let xs = write_and_take(&w, &r, n, |i| {
        let datagram = match i {
            100 => forge::heartbeat(wg, rg, 10_000_000, 10_000_000),
            150 => forge::gap(wg, rg, 1, 10_000_000),
            200 => forge::spdp(
                wg.prefix,
                DOMAIN,
                1 << 20,
                20,
                Locator::udpv4([127, 0, 0, 3], 1),
                true,
            ),
            _ => return,
        };
        evil.send_to(&datagram, to_reader).unwrap();
        if i == 100 {
            // "Acknowledged up to 1,000,000": would release the writer's history.
            evil.send_to(&forge::acknack(rg, wg, 1_000_000), to_writer)
                .unwrap();
        }
    });
    let (rs, ws) = (q.stats().unwrap(), p.stats().unwrap());
    eprintln!(
        "hostile: reader got {} of {n}; reader's participant dropped {} foreign-source \
         submessages, writer's {}",
        xs.len(),
        rs.foreign_source,
        ws.foreign_source
    );
    assert_eq!(xs, (0..n).collect::<Vec<_>>());
    assert_eq!(rs.foreign_source, 3, "HEARTBEAT, GAP, SPDP dispose: {rs:?}");
    assert_eq!(ws.foreign_source, 1, "ACKNACK: {ws:?}");
    assert_eq!(
        r.matched_publications().unwrap(),
        1,
        "the dispose unmatched the writer"
    );
}

#[test]
fn forged_heartbeat_and_gap_from_the_writers_own_address_cost_no_later_samples() {
    if !may_open_sockets(
        "forged_heartbeat_and_gap_from_the_writers_own_address_cost_no_later_samples",
    ) {
        return;
    }
    const DOMAIN: u32 = 184;
    let (p, q) = (participant(DOMAIN), participant(DOMAIN));
    // A 100-sample KEEP_ALL history: without the reader's ACKNACKs the writer blocks.
    let (w, r) = pair(&p, &q, 100);
    let (wg, rg): (Guid, Guid) = (w.guid(), r.guid());
    // 127.0.0.1 is the writer's own (bound) host: the source check lets these through.
    let forger = attacker(1);
    let to_reader = meta(DOMAIN, &q);
    let (n, phase) = (900, 300);
    let mut marks = Vec::new();
    let xs = write_and_take(&w, &r, n, |i| {
        if i % phase == 0 {
            marks.push(Instant::now());
        }
        let datagram = match i {
            300 => forge::heartbeat(wg, rg, 10_000_000, 10_000_000),
            600 => forge::gap(wg, rg, 1, 10_000_000),
            _ => return,
        };
        forger.send_to(&datagram, to_reader).unwrap();
    });
    marks.push(Instant::now());
    // Samples of each phase delivered, per second of that phase.
    let rate = |k: usize| {
        let got = xs.iter().filter(|x| **x / phase == k as i32).count();
        got as f64 / (marks[k + 1] - marks[k]).as_secs_f64()
    };
    let c = r.counters().unwrap();
    eprintln!(
        "forged from the writer's address: reader got {} of {n}; samples/s before {:.0}, \
         after the HEARTBEAT {:.0}, after the GAP {:.0}; ranges clamped {}, foreign-source {}",
        xs.len(),
        rate(0),
        rate(1),
        rate(2),
        c.ranges_clamped,
        q.stats().unwrap().foreign_source
    );
    assert_eq!(
        q.stats().unwrap().foreign_source,
        0,
        "not from a foreign host"
    );
    assert_eq!(c.ranges_clamped, 2, "{c:?}");
    assert_eq!(xs, (0..n).collect::<Vec<_>>());
    assert!(
        rate(2) > rate(0) / 4.0 && rate(1) > rate(0) / 4.0,
        "the stream keeps its pace"
    );
}

/// The same forgeries under DDS Security (RTPS protection ENCRYPT, alice writes, bob reads),
/// sent from the writer's own host in its GUID prefix: they come in clear from an
/// authenticated participant, so the reader's participant drops them before any reader sees
/// them (`unprotected`), not even a range is clamped, and every sample arrives at its pace.
#[test]
fn under_rtps_protection_forged_heartbeat_and_gap_from_the_writers_address_are_dropped() {
    if !may_open_sockets(
        "under_rtps_protection_forged_heartbeat_and_gap_from_the_writers_address_are_dropped",
    ) {
        return;
    }
    use crate::security::{ALICE, BOB, RTPS_ENCRYPT, pki, siftdds_participant_with};
    const DOMAIN: u32 = 13;
    let pki = pki();
    let p = siftdds_participant_with(&pki, DOMAIN, &ALICE, RTPS_ENCRYPT).unwrap();
    let q = siftdds_participant_with(&pki, DOMAIN, &BOB, RTPS_ENCRYPT).unwrap();
    let (w, r) = pair(&p, &q, 100);
    let (wg, rg): (Guid, Guid) = (w.guid(), r.guid());
    let forger = attacker(1);
    let to_reader = meta(DOMAIN, &q);
    let n = 600;
    let before = q.stats().unwrap().unprotected;
    let xs = write_and_take(&w, &r, n, |i| {
        let datagram = match i {
            200 => forge::heartbeat(wg, rg, 10_000_000, 10_000_000),
            400 => forge::gap(wg, rg, 1, 10_000_000),
            _ => return,
        };
        forger.send_to(&datagram, to_reader).unwrap();
    });
    let stats = q.stats().unwrap();
    let c = r.counters().unwrap();
    eprintln!(
        "forged under RTPS protection: reader got {} of {n}; unprotected {} (before {before}), \
         crypto_rejected {}, ranges clamped {}",
        xs.len(),
        stats.unprotected,
        stats.crypto_rejected,
        c.ranges_clamped
    );
    assert_eq!(stats.foreign_source, 0, "not from a foreign host");
    assert_eq!(stats.unprotected - before, 2, "{stats:?}");
    assert_eq!(c.ranges_clamped, 0, "a forgery reached the reader: {c:?}");
    assert_eq!(xs, (0..n).collect::<Vec<_>>());
}

#[test]
fn a_never_acknowledging_reader_with_a_huge_lease_does_not_stop_the_writer() {
    if !may_open_sockets("a_never_acknowledging_reader_with_a_huge_lease_does_not_stop_the_writer")
    {
        return;
    }
    const DOMAIN: u32 = 182;
    let (p, q) = (participant(DOMAIN), participant(DOMAIN));
    let (w, r) = pair(&p, &q, 100);
    // One SPDP with a 100,000 s lease and one SEDP reliable reader; then silence.
    let evil = attacker(3);
    let sink = UdpSocket::bind(SocketAddrV4::new(Ipv4Addr::new(127, 0, 0, 3), 0)).unwrap();
    let at = Locator::udpv4([127, 0, 0, 3], sink.local_addr().unwrap().port());
    let fake = spoof::prefix(182);
    let group = SocketAddrV4::new(
        Ipv4Addr::new(239, 255, 0, 1),
        spdp_multicast_port(DOMAIN).unwrap(),
    );
    // Announced again until the writer matched it: a DATA(r) handled before the SPDP that
    // names its participant is dropped, as a real participant's would be (and repeated).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        evil.send_to(&forge::spdp(fake, DOMAIN, 1, 100_000, at, false), group)
            .unwrap();
        evil.send_to(&spoof::sedp_reader(fake, 1, 1, at, true), meta(DOMAIN, &p))
            .unwrap();
        if w.wait_for_matched(2, Duration::from_millis(500)).is_ok() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the forged reader was never matched: {:?}",
            p.stats()
        );
    }
    let start = Instant::now();
    let n = 1000;
    let xs = write_and_take(&w, &r, n, |_| {});
    let secs = start.elapsed().as_secs_f64();
    let c = w.counters().unwrap();
    eprintln!(
        "never-acking reader: real reader got {} of {n} in {secs:.2} s ({:.0} samples/s); \
         readers marked unresponsive {} (timeout {UNRESPONSIVE:?})",
        xs.len(),
        xs.len() as f64 / secs,
        c.readers_marked_unresponsive
    );
    assert_eq!(xs, (0..n).collect::<Vec<_>>());
    assert_eq!(c.readers_marked_unresponsive, 1, "{c:?}");
    assert_eq!(
        w.matched_subscriptions().unwrap(),
        2,
        "the stuck reader stays matched"
    );
}

#[test]
fn an_attacker_moving_its_own_participant_is_rebound() {
    if !may_open_sockets("an_attacker_moving_its_own_participant_is_rebound") {
        return;
    }
    const DOMAIN: u32 = 183;
    let q = participant(DOMAIN);
    let fake = spoof::prefix(183);
    let (old, new) = (attacker(3), attacker(4));
    let to = meta(DOMAIN, &q);
    let at = |o: u8| Locator::udpv4([127, 0, 0, o], 7999);
    old.send_to(&forge::spdp(fake, DOMAIN, 1, 20, at(3), false), to)
        .unwrap();
    let wait = |f: &dyn Fn(&siftdds::core::participant::ParticipantStats) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !f(&q.stats().unwrap()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        q.stats().unwrap()
    };
    let discovered = Instant::now() + Duration::from_secs(5);
    while q.discovered_participants().unwrap() == 0 && Instant::now() < discovered {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(q.discovered_participants().unwrap(), 1);
    // The same sequence number from a new address is not a move: dropped.
    new.send_to(&forge::spdp(fake, DOMAIN, 1, 20, at(4), false), to)
        .unwrap();
    let s = wait(&|s| s.foreign_source >= 1);
    assert_eq!((s.foreign_source, s.rebound), (1, 0), "{s:?}");
    // A higher one is: re-bound, and its dispose from the new address is taken.
    new.send_to(&forge::spdp(fake, DOMAIN, 2, 20, at(4), false), to)
        .unwrap();
    let s = wait(&|s| s.rebound >= 1);
    assert_eq!((s.foreign_source, s.rebound), (1, 1), "{s:?}");
    old.send_to(&forge::spdp(fake, DOMAIN, 3, 20, at(3), true), to)
        .unwrap();
    let s = wait(&|s| s.foreign_source >= 2);
    assert_eq!(
        s.foreign_source, 2,
        "the dispose from the old address: {s:?}"
    );
    new.send_to(&forge::spdp(fake, DOMAIN, 3, 20, at(4), true), to)
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while q.discovered_participants().unwrap() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        q.discovered_participants().unwrap(),
        0,
        "the dispose from the new address"
    );
}

/// The forger as a tool, for the figures in `docs/security.md` §6 (not a test: ignored, and
/// run by hand inside `netns-run` against running `shape_main`s in domain 0):
/// `SIFTDDS_FORGE=heartbeat|gap|dispose|stuck-reader cargo test --test interop
/// hostile::forge_against_running_shape_mains -- --ignored`. It discovers the participants
/// with a participant of its own (no endpoints), then sends from 127.0.0.3, in every
/// discovered participant's name to every other, what `SIFTDDS_FORGE` names, to the
/// metatraffic unicast ports of participant ids 0-3 (shape_main's first writer is entity
/// 0x102, its first reader 0x107).
#[test]
#[ignore]
fn forge_against_running_shape_mains() {
    if !may_open_sockets("forge_against_running_shape_mains") {
        return;
    }
    use siftdds::core::Event;
    use siftdds::wire::EntityId;
    let what = std::env::var("SIFTDDS_FORGE").unwrap_or_default();
    let me = DomainParticipant::builder(0).build().unwrap();
    let mut prefixes = Vec::new();
    let until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < until {
        if let Some(Event::ParticipantDiscovered(p)) =
            me.wait_event(Duration::from_millis(100)).unwrap()
        {
            prefixes.push(p);
        }
    }
    let evil = attacker(3);
    let ports: Vec<SocketAddrV4> = (0..4)
        .map(|id| {
            SocketAddrV4::new(
                Ipv4Addr::LOCALHOST,
                metatraffic_unicast_port(0, id).unwrap(),
            )
        })
        .collect();
    let send = |d: &[u8]| {
        for p in &ports {
            let _ = evil.send_to(d, p);
        }
    };
    let writer = |p| Guid::new(p, EntityId([0, 0, 1, 0x02]));
    let reader = |p| Guid::new(p, EntityId([0, 0, 1, 0x07]));
    let at = Locator::udpv4([127, 0, 0, 3], 7999);
    for &p in &prefixes {
        for &q in prefixes.iter().filter(|q| **q != p) {
            match what.as_str() {
                "heartbeat" => send(&forge::heartbeat(
                    writer(p),
                    reader(q),
                    10_000_000,
                    10_000_000,
                )),
                "gap" => send(&forge::gap(writer(p), reader(q), 1, 10_000_000)),
                _ => {}
            }
        }
        if what == "dispose" {
            send(&forge::spdp(p, 0, 1 << 20, 20, at, true));
        }
    }
    if what == "stuck-reader" {
        let fake = spoof::prefix(15);
        let group = SocketAddrV4::new(
            Ipv4Addr::new(239, 255, 0, 1),
            spdp_multicast_port(0).unwrap(),
        );
        evil.send_to(&forge::spdp(fake, 0, 1, 100_000, at, false), group)
            .unwrap();
        send(&spoof::sedp_reader(fake, 1, 1, at, true));
    }
    eprintln!(
        "forged {what:?} among {} participants: {prefixes:?}",
        prefixes.len()
    );
}
