//! The reflection/amplification attack over real UDP, inside the sandbox (issue 7 §4,
//! `docs/security.md` class 1). An attacker at 127.0.0.3 multicasts a spoofed SPDP
//! participant and a spoofed reliable reader whose locators name a victim socket at
//! 127.0.0.2. A siftdds writer publishes to a real siftdds reader meanwhile. The victim must
//! get no more than the outbound gate's budget of each participant that heard the
//! announcement (two here), and the real reader must get every sample.
//! This shows the runtime hands the core each datagram's real source address.

// A real attacker and victim: plain sockets and real time in this harness.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use siftdds::api::DomainParticipant;
use siftdds::core::discovery::{metatraffic_unicast_port, spdp_multicast_port};
use siftdds::core::participant::UNVERIFIED_BYTE_BUDGET;
use siftdds::core::writer::{KEEP_ALL_BYTES_LIMIT, change_footprint};
use siftdds::qos::{
    DataReaderQos, DataWriterQos, History, PublisherQos, Reliability, SubscriberQos, TopicQos,
};
use siftdds::types::ShapeType;
use siftdds::wire::Locator;

use crate::sandbox::may_open_sockets;
use crate::spoof;

const DOMAIN: u32 = 153;
/// Refusals by the gate to wait for after the data phase: some HEARTBEAT periods' worth
/// (the writer's default period is 100 ms).
const BLOCKED_MORE: u64 = 10;
/// Longest the writer is watched after the data phase (was a fixed 2 s sleep).
const OBSERVE: Duration = Duration::from_secs(2);

#[test]
fn spoofed_reader_at_a_victim_over_udp_gets_at_most_the_gate_budget() {
    if !may_open_sockets("spoofed_reader_at_a_victim_over_udp_gets_at_most_the_gate_budget") {
        return;
    }
    // The victim: counts every byte it is sent.
    let victim = UdpSocket::bind(SocketAddrV4::new(Ipv4Addr::new(127, 0, 0, 2), 0)).unwrap();
    victim
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let victim_port = victim.local_addr().unwrap().port();
    let (bytes, stop) = (
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicBool::new(false)),
    );
    let counter = {
        let (bytes, stop) = (Arc::clone(&bytes), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 65_536];
            while !stop.load(Ordering::Relaxed) {
                if let Ok(n) = victim.recv(&mut buf) {
                    bytes.fetch_add(n as u64, Ordering::Relaxed);
                }
            }
        })
    };
    let p = DomainParticipant::builder(DOMAIN)
        .announce_period(Duration::from_millis(200))
        .build()
        .unwrap();
    let q = DomainParticipant::builder(DOMAIN)
        .announce_period(Duration::from_millis(200))
        .build()
        .unwrap();
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let wqos = DataWriterQos {
        history: History::KeepAll,
        ..DataWriterQos::default()
    };
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

    // The attacker: a spoofed participant and reader at the victim, to the SPDP group.
    let attacker = UdpSocket::bind(SocketAddrV4::new(Ipv4Addr::new(127, 0, 0, 3), 0)).unwrap();
    let group = SocketAddrV4::new(
        Ipv4Addr::new(239, 255, 0, 1),
        spdp_multicast_port(DOMAIN).unwrap(),
    );
    let at_victim = Locator::udpv4([127, 0, 0, 2], victim_port);
    let fake = spoof::prefix(153);
    attacker
        .send_to(&spoof::spdp(fake, DOMAIN, at_victim, at_victim), group)
        .unwrap();
    let meta_port = metatraffic_unicast_port(DOMAIN, u32::from(p.participant_id())).unwrap();
    let meta = SocketAddrV4::new(Ipv4Addr::LOCALHOST, meta_port);
    attacker
        .send_to(&spoof::sedp_reader(fake, 1, 1, at_victim, true), meta)
        .unwrap();
    w.wait_for_matched(2, Duration::from_secs(10)).unwrap();

    // Samples of 1 KiB, as many as fill three quarters of what a KEEP_ALL writer may hold
    // unacknowledged (KEEP_ALL_BYTES_LIMIT, counted with each change's bookkeeping): the
    // writer would push (and repeat) ~1.5 MiB to the fake reader, which never acknowledges;
    // past the limit writes block until it is marked unresponsive (docs/security.md §6).
    let n = (KEEP_ALL_BYTES_LIMIT * 3 / 4 / change_footprint(1024 + 24)) as i32;
    assert!(n > 1000, "{n} samples");
    for i in 0..n {
        let s = ShapeType {
            color: "RED".into(),
            x: i,
            y: 0,
            shapesize: 30,
            additional_payload_size: vec![7; 1024],
        };
        w.write(&s).unwrap();
    }
    let mut xs = Vec::new();
    while xs.len() < n as usize {
        let got = r.wait_take(Duration::from_secs(5)).unwrap();
        assert!(
            !got.is_empty(),
            "real reader stalled after {} samples",
            xs.len()
        );
        xs.extend(got.into_iter().map(|s| s.value.unwrap().x));
    }
    // Let the writer keep serving the never-acknowledging fake reader (a HEARTBEAT every
    // period, and repairs) until the gate has refused it BLOCKED_MORE more times after the
    // data phase, so the budget is shown to hold while the writer keeps trying. Bounded by
    // OBSERVE, well inside one UNVERIFIED_BUDGET_WINDOW (a new window would rightly grant a
    // new budget).
    let blocked_after_data = p.stats().unwrap().gate.blocked;
    let deadline = Instant::now() + OBSERVE;
    while p.stats().unwrap().gate.blocked < blocked_after_data + BLOCKED_MORE
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::Relaxed);
    counter.join().unwrap();
    let got = bytes.load(Ordering::Relaxed);
    let gate = p.stats().unwrap().gate;
    let _ = writeln_stderr(&format!(
        "reflection over UDP: victim received {got} bytes from 2 participants (budget \
         {UNVERIFIED_BYTE_BUDGET} per participant per window); writer's participant: {} sends \
         to unverified hosts, {} destinations blocked",
        gate.unverified_sends, gate.blocked
    ));
    assert_eq!(xs, (0..n).collect::<Vec<_>>());
    assert!(
        gate.blocked > 0,
        "the writer never tried to flood the victim: the test shows nothing"
    );
    // Both participants heard the multicast announcement; each has its own budget.
    assert!(
        got <= 2 * UNVERIFIED_BYTE_BUDGET as u64,
        "victim got {got} bytes"
    );
}

fn writeln_stderr(line: &str) -> std::io::Result<()> {
    use std::io::Write;
    writeln!(std::io::stderr(), "{line}")
}
