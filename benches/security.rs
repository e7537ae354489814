//! What DDS Security costs the sans-IO participant in CPU (DDS-Security 1.1 §8–§9,
//! `docs/security.md` §7–§8), on the deterministic simulated network (`core::sim`), with the
//! identities and governance documents of `scripts/test-pki` (run at start into
//! `target/test-pki`; EC P-256 identities alice and bob, join, read and write access control).
//!
//! Must not: fail (it reports numbers only, docs/conventions.md §5), open sockets, read clocks
//! (criterion keeps time; the simulator's clock is simulated, started a day after the
//! certificates' notBefore, which `openssl x509` reads), or use crate internals: only public
//! APIs and the simulator of the `sim` feature.
//!
//! # Overview
//! Governances (`kind`): `unsecured` (no DDS Security), `none` (authenticated, access
//! control, nothing protected: governance_none), `sign` (discovery, liveliness, metadata and
//! data SIGN), `encrypt` (the same ENCRYPT), `rtps` (RTPS protection ENCRYPT only).
//!
//! Groups (criterion ids `group/kind`):
//! - `security_handshake`: two participants (alice, bob) from their creation to the first
//!   sample delivered: SPDP, under security the PKI-DH handshake (stateless messages), the
//!   volatile secure key exchange, then SEDP, the match of a reliable writer and reader, one
//!   sample written and taken (the match waits for what the governance protects: the
//!   handshake, and the keys of the protected endpoints). The CPU of both participants and the simulator's bookkeeping
//!   (the `unsecured` case is the baseline carrying the same bookkeeping); the
//!   participants are built untimed (their identities validated). Before measuring, each case
//!   prints the simulated time to the first delivery (driven by the protocol's resend timers
//!   and the channel's latency, not by CPU).
//! - `security_filtered_writer`: one best-effort KEEP_LAST 1 writer of ShapeType with
//!   writer-side filtering on alice, 100 content-filtered readers on bob (reader `i` filters
//!   `color = %0` with one of 5 colours, so each sample passes 20 of them); per iteration one
//!   sample written (the colours in turn) and every datagram it causes drained from
//!   `poll_transmit`: the writer's CPU per sample, protection included. Matched before timing.
//!
//! Run: `cargo bench --bench security -- --warm-up-time 1 --measurement-time 3`.

// A benchmark: it indexes and counts what it built itself and unwraps what must work; the
// parse-path lints of the workspace are siftdds-proto's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use criterion::{BatchSize, Criterion};
use siftdds::qos::{DataReaderQos, DataWriterQos, History, Reliability};
use siftdds::types::{ShapeType, TopicType, XcdrVersion};
use siftdds_proto::cdr::Endianness;
use siftdds_proto::core::discovery::ContentFilter;
use siftdds_proto::core::participant::{ReaderSpec, SecurityConfig, WriterSpec};
use siftdds_proto::core::sim::{Node, SPDP_GROUP, SimNet, sim_now};
use siftdds_proto::core::{ChangeKind, Participant, ParticipantConfig, WriteRequest};
use siftdds_proto::security::access::{Governance, Permissions};
use siftdds_proto::security::auth::{IdentityConfig, LocalIdentity};
use siftdds_proto::wire::{Guid, GuidPrefix, Locator};

const SEED: u64 = 26;
const KINDS: [&str; 5] = ["unsecured", "none", "sign", "encrypt", "rtps"];
const COLORS: [&str; 5] = ["RED", "BLUE", "GREEN", "YELLOW", "ORANGE"];
const FILTERED_READERS: usize = 100;

/// The test PKI, made by `scripts/test-pki`.
fn pki() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("target/test-pki");
    let ok = std::process::Command::new(root.join("scripts/test-pki"))
        .arg(&dir)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "scripts/test-pki failed");
    dir
}

/// Where the simulated clock starts, in nanoseconds after the simulator's fixed 2023 wall
/// date: a day after the test PKI's certificates became valid (they are made at run time).
fn start_nanos(pki: &Path) -> u64 {
    let cert = pki.join("ec/alice.pem");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"date -d "$(openssl x509 -in "$1" -noout -startdate | cut -d= -f2)" +%s"#)
        .arg("sh")
        .arg(&cert)
        .output()
        .unwrap();
    let not_before: u64 = String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let base = sim_now(0).wall.seconds as u64;
    (not_before + 86_400).saturating_sub(base) * 1_000_000_000
}

fn read(pki: &Path, file: &str) -> Vec<u8> {
    std::fs::read(pki.join(file)).unwrap()
}

/// Participant `i` (0 alice, 1 bob) under governance `kind`, on the simulated LAN.
fn node(pki: &Path, start: u64, i: usize, kind: &str) -> Node {
    let candidate = GuidPrefix([1, 0x5e, 0, 0, 0, 0, 0, 0, 0, 0, 0, i as u8 + 1]);
    let meta = Locator::udpv4([127, 0, 0, 1], 7410 + 2 * i as u16);
    let user = Locator::udpv4([127, 0, 0, 1], 7411 + 2 * i as u16);
    let mut config = ParticipantConfig::new(0, candidate);
    if kind != "unsecured" {
        let name = ["alice", "bob"][i];
        let id = IdentityConfig {
            identity_ca: read(pki, "ec/ca.pem"),
            identity_certificate: read(pki, &format!("ec/{name}.pem")),
            private_key: read(pki, &format!("ec/{name}.key")),
            password: None,
        };
        let wall = i64::from(sim_now(start).wall.seconds);
        let identity = LocalIdentity::validate(&id, &candidate, wall).unwrap();
        let text = |f: &str| String::from_utf8(read(pki, f)).unwrap();
        let governance = Governance::parse(&text(&format!("perm/governance_{kind}.xml"))).unwrap();
        let permissions = Permissions::parse(&text("perm/permissions.xml")).unwrap();
        config.guid_prefix = identity.guid_prefix();
        config.security = Some(Arc::new(SecurityConfig {
            identity,
            permissions_document: read(pki, "perm/permissions.p7s"),
            allow_unauthenticated: false,
            governance: Some(Arc::new(governance)),
            permissions_ca: Some(read(pki, "perm/ca.pem")),
            permissions: Some(Arc::new(permissions)),
        }));
    }
    config.metatraffic_unicast_locators = vec![meta];
    config.default_unicast_locators = vec![user];
    config.metatraffic_multicast_locators = vec![SPDP_GROUP];
    config.spdp_destinations = vec![SPDP_GROUP];
    Node {
        p: Participant::new(config),
        locators: vec![meta, user],
    }
}

/// Alice and bob under `kind`, the clock at `start`.
fn pair(pki: &Path, start: u64, kind: &str) -> SimNet {
    let nodes = vec![node(pki, start, 0, kind), node(pki, start, 1, kind)];
    let mut net = SimNet::with_nodes(nodes, SEED);
    net.now = start;
    net
}

/// Reliable KEEP_ALL, or best-effort KEEP_LAST 1.
fn kind_of(reliable: bool) -> (Reliability, History) {
    if reliable {
        (Reliability::reliable(), History::KeepAll)
    } else {
        (Reliability::best_effort(), History::KeepLast(1))
    }
}

fn writer_spec(reliable: bool) -> WriterSpec {
    let (reliability, history) = kind_of(reliable);
    let qos = DataWriterQos {
        history,
        reliability,
        ..DataWriterQos::default()
    };
    let mut spec = WriterSpec::new("Square", "ShapeType", true, qos);
    spec.descriptor = Some(Arc::new(ShapeType::descriptor().clone()));
    spec
}

fn reader_spec(reliable: bool, color: Option<&str>) -> ReaderSpec {
    let (reliability, history) = kind_of(reliable);
    let qos = DataReaderQos {
        history,
        reliability,
        ..DataReaderQos::default()
    };
    let mut spec = ReaderSpec::new("Square", "ShapeType", true, qos);
    if let Some(color) = color {
        spec.content_filter = Some(ContentFilter {
            content_filtered_topic_name: format!("Square_{color}"),
            related_topic_name: "Square".into(),
            filter_class_name: "DDSSQL".into(),
            filter_expression: "color = %0".into(),
            expression_parameters: vec![format!("'{color}'")],
        });
        spec.descriptor = Some(Arc::new(ShapeType::descriptor().clone()));
    }
    spec
}

fn sample(i: usize) -> WriteRequest {
    let s = ShapeType {
        color: COLORS[i % COLORS.len()].into(),
        x: i as i32,
        y: 7,
        shapesize: 30,
        additional_payload_size: vec![],
    };
    let data = s
        .serialize_as(XcdrVersion::Xcdr1, Endianness::Little)
        .unwrap();
    WriteRequest::new(ChangeKind::Alive, s.key_hash(), Bytes::from(data))
}

/// From a fresh pair to the first sample taken: the simulated microseconds it took.
fn first_delivery(net: &mut SimNet, kind: &str) -> u64 {
    let start = net.now;
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, writer_spec(true));
    let r = net.nodes[1].p.create_reader(now, reader_spec(true, None));
    let ready = net.run_until(30_000, |net| {
        net.nodes[0].p.matched_readers(w) == 1 && net.nodes[1].p.matched_writers(r) == 1
    });
    assert!(
        ready,
        "{kind}: no match: {} {}, {:?} {:?}",
        net.nodes[0].p.matched_readers(w),
        net.nodes[1].p.matched_writers(r),
        net.nodes[0].p.stats(),
        net.nodes[1].p.stats()
    );
    let now = net.now();
    net.nodes[0].p.write(now, w, sample(0)).unwrap();
    let taken = net.run_until(5_000, |net| {
        let now = net.now();
        net.nodes[1].p.take(now, r).is_some()
    });
    assert!(taken, "{kind}: the first sample was not delivered");
    (net.now - start) / 1_000
}

fn bench_handshake(c: &mut Criterion, pki: &Path, start: u64) {
    let mut g = c.benchmark_group("security_handshake");
    g.sample_size(10);
    for kind in ["unsecured", "none", "encrypt", "rtps"] {
        let us = first_delivery(&mut pair(pki, start, kind), kind);
        eprintln!("security_handshake/{kind}: first sample delivered after {us} µs simulated time");
        g.bench_function(kind, |b| {
            b.iter_batched(
                || pair(pki, start, kind),
                |mut net| first_delivery(&mut net, kind),
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

/// Alice's filtering writer matched with bob's [`FILTERED_READERS`] filtered readers.
fn filtered_writer(pki: &Path, start: u64, kind: &str) -> (SimNet, Guid) {
    let mut net = pair(pki, start, kind);
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, writer_spec(false));
    for i in 0..FILTERED_READERS {
        net.nodes[1]
            .p
            .create_reader(now, reader_spec(false, Some(COLORS[i % COLORS.len()])));
    }
    let ready = net.run_until(60_000, |net| {
        net.nodes[0].p.matched_readers(w) == FILTERED_READERS
    });
    assert!(ready, "{kind}: the filtered readers did not all match");
    (net, w)
}

fn bench_filtered_writer(c: &mut Criterion, pki: &Path, start: u64) {
    let mut g = c.benchmark_group("security_filtered_writer");
    for kind in KINDS {
        let (mut net, w) = filtered_writer(pki, start, kind);
        let samples: Vec<WriteRequest> = (0..COLORS.len()).map(sample).collect();
        let now = net.now();
        let p = &mut net.nodes[0].p;
        let mut i = 0usize;
        let mut datagrams = 0u64;
        let mut bytes = 0u64;
        let mut writes = 0u64;
        g.bench_function(format!("{kind}/{FILTERED_READERS}"), |b| {
            b.iter(|| {
                p.write(now, w, samples[i % samples.len()].clone()).unwrap();
                i += 1;
                writes += 1;
                while let Some(t) = p.poll_transmit(now) {
                    datagrams += 1;
                    bytes += t.datagram().len() as u64;
                }
            })
        });
        eprintln!(
            "security_filtered_writer/{kind}/{FILTERED_READERS}: {:.2} datagrams and {:.0} bytes per sample",
            datagrams as f64 / writes.max(1) as f64,
            bytes as f64 / writes.max(1) as f64
        );
    }
    g.finish();
}

fn main() {
    let pki = pki();
    let start = start_nanos(&pki);
    let mut c = Criterion::default().configure_from_args();
    bench_handshake(&mut c, &pki, start);
    bench_filtered_writer(&mut c, &pki, start);
    c.final_summary();
}
