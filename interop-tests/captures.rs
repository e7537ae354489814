//! Real vendors' traffic: the captures of Cyclone DDS 0.10 and Fast DDS 2.9 committed under
//! `tests/data/captures/` (see its README for how they were recorded) must decode completely,
//! re-encode to the original bytes, and survive truncation at every offset.

use std::path::{Path, PathBuf};

use siftdds::cdr::{CdrReader, CdrWriter, Endianness};
use siftdds::inspect::capture::{Datagram, for_each_datagram};
use siftdds::wire::plist::{
    ContentFilterInfo, ContentFilterProperty, ListOutcome, ParameterListView,
    decode_parameter_list, emit_parameter_list, parse_pl_cdr_payload, pid,
};
use siftdds::wire::submessage::{DataPayload, Submessage, SubmessageOutcome};
use siftdds::wire::{Message, VendorId};

fn capture_dir() -> PathBuf {
    PathBuf::from(repo_path!("tests/data/captures"))
}

/// The vendor captures (everything but the hand-made bad one).
fn vendor_captures() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(capture_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pcap" || x == "pcapng"))
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with("bad-"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 4,
        "expected the committed vendor captures, found {files:?}"
    );
    files
}

fn rtps_datagrams(path: &Path) -> Vec<Datagram> {
    let mut out = Vec::new();
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    for_each_datagram(file, |d| {
        if d.payload.starts_with(b"RTPS") {
            out.push(d);
        }
    })
    .unwrap();
    assert!(!out.is_empty(), "{}: no RTPS datagrams", path.display());
    out
}

/// Each accepted submessage with the exact bytes it was decoded from.
fn submessages_with_bytes(msg: &[u8]) -> (VendorId, Vec<(Submessage<'_>, &[u8])>, usize) {
    let (header, mut iter) = Message::parse(msg).unwrap();
    let mut out = Vec::new();
    let mut not_understood = 0;
    loop {
        let before = iter.rest();
        let Some(outcome) = iter.next() else { break };
        let consumed = &before[..before.len() - iter.rest().len()];
        match outcome {
            SubmessageOutcome::Accept(sm) => out.push((sm, consumed)),
            SubmessageOutcome::NotUnderstood { id, .. } => {
                // Only vendor-specific ids (Fast DDS's 0x80 statistics submessage) are expected.
                assert!(id >= 0x80, "standard submessage 0x{id:02x} not understood");
                not_understood += 1;
            }
            SubmessageOutcome::Malformed(e) => panic!("malformed submessage: {e}"),
        }
    }
    (header.vendor_id, out, not_understood)
}

/// A parameter list must decode fully and re-emit to its original bytes plus the sentinel.
fn assert_plist_round_trips(view: &ParameterListView<'_>, vendor: VendorId, what: &str) {
    let ListOutcome::Accept(params) = decode_parameter_list(view, vendor).unwrap() else {
        panic!("{what}: a must-understand parameter was not understood");
    };
    let mut buf = Vec::new();
    emit_parameter_list(&params, &mut CdrWriter::new(&mut buf, view.endian())).unwrap();
    let mut expected = view.as_bytes().to_vec();
    let sentinel = match view.endian() {
        Endianness::Little => [1, 0, 0, 0],
        Endianness::Big => [0, 1, 0, 0],
    };
    expected.extend_from_slice(&sentinel);
    assert_eq!(
        buf, expected,
        "{what}: parameter list did not re-emit identically"
    );
}

#[test]
fn every_vendor_submessage_decodes_and_re_encodes_to_the_same_bytes() {
    for path in vendor_captures() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (mut submessages, mut plists) = (0usize, 0usize);
        for d in rtps_datagrams(&path) {
            let (vendor, subs, _) = submessages_with_bytes(&d.payload);
            for (sm, original) in subs {
                submessages += 1;
                let mut buf = Vec::new();
                sm.emit(&mut buf);
                assert_eq!(
                    buf, original,
                    "{name} frame {}: {sm:?} re-encoded differently",
                    d.frame
                );
                if let Some(qos) = sm.inline_qos() {
                    plists += 1;
                    assert_plist_round_trips(
                        qos,
                        vendor,
                        &format!("{name} frame {} inline QoS", d.frame),
                    );
                }
                if let Submessage::Data(data) = &sm {
                    if let DataPayload::Data(p) | DataPayload::Key(p) = data.payload {
                        if let Ok(view) = parse_pl_cdr_payload(p) {
                            plists += 1;
                            assert_plist_round_trips(
                                &view,
                                vendor,
                                &format!("{name} frame {} payload", d.frame),
                            );
                        }
                    }
                }
            }
            siftdds::fuzzing::rtps_message(&d.payload);
        }
        assert!(
            submessages > 0 && plists > 0,
            "{name}: {submessages} submessages, {plists} lists"
        );
    }
}

#[test]
fn truncating_vendor_messages_at_every_offset_is_an_error_never_a_panic() {
    for path in vendor_captures() {
        // Every distinct message shape is covered well by the first few dozen datagrams.
        for d in rtps_datagrams(&path).iter().take(40) {
            let msg = &d.payload;
            let (_, iter) = Message::parse(msg).unwrap();
            // Offsets where a submessage ends; cutting there leaves a valid shorter message.
            let mut boundaries = vec![20usize];
            let mut to_end = false;
            let mut it = iter;
            while let Some(_) = it.next() {
                boundaries.push(msg.len() - it.rest().len());
            }
            // A submessage with octetsToNextHeader = 0 extends to the end of the message,
            // so cutting inside it leaves a valid (shorter) submessage: RTPS 2.5 §9.4.5.1.3.
            if let Some(&last_start) = boundaries.iter().rev().nth(1) {
                to_end = msg.get(last_start + 2..last_start + 4) == Some(&[0, 0][..]);
            }
            for cut in 0..msg.len() {
                let truncated = &msg[..cut];
                let Ok((_, iter)) = Message::parse(truncated) else {
                    assert!(cut < 20, "header of {cut} bytes refused");
                    continue;
                };
                let malformed = iter
                    .filter(|o| matches!(o, SubmessageOutcome::Malformed(_)))
                    .count();
                let last_start = boundaries[boundaries.len() - 2];
                if boundaries.contains(&cut) || (to_end && cut > last_start + 4) {
                    assert_eq!(malformed, 0, "cut at a boundary {cut} reported malformed");
                } else {
                    assert_eq!(
                        malformed,
                        1,
                        "{} frame {}: cut at {cut} not reported",
                        path.display(),
                        d.frame
                    );
                }
            }
        }
    }
}

#[test]
fn fast_dds_content_filter_property_and_info_match_our_signature() {
    let path = capture_dir().join("fastdds-cft.pcapng");
    let mut signature = None;
    let (mut passed, mut gaps) = (0, 0);
    for d in rtps_datagrams(&path) {
        let (_, subs, _) = submessages_with_bytes(&d.payload);
        for (sm, _) in subs {
            match &sm {
                Submessage::Data(data) => {
                    if let DataPayload::Data(p) = data.payload {
                        if let Ok(view) = parse_pl_cdr_payload(p) {
                            if let Some(raw) = view.find(pid::PID_CONTENT_FILTER_PROPERTY) {
                                let cfp = ContentFilterProperty::parse(&mut CdrReader::new(
                                    raw.value,
                                    view.endian(),
                                ))
                                .unwrap();
                                assert_eq!(cfp.related_topic_name, "Square");
                                assert_eq!(cfp.filter_class_name, "DDSSQL");
                                assert_eq!(cfp.filter_expression, "color = %0");
                                assert_eq!(cfp.expression_parameters, ["'RED'"]);
                                signature = Some(cfp.signature());
                            }
                        }
                    }
                    if let Some(raw) = data
                        .inline_qos
                        .as_ref()
                        .and_then(|q| q.find(pid::PID_CONTENT_FILTER_INFO))
                    {
                        let endian = data.inline_qos.as_ref().unwrap().endian();
                        let cfi = ContentFilterInfo::parse(&mut CdrReader::new(raw.value, endian))
                            .unwrap();
                        let sig = signature
                            .expect("filter info before the reader's filter was announced");
                        // Fast DDS's writer evaluated the reader's filter and said it passed, under
                        // the very signature we compute from the announced property
                        // (docs/interop-facts.md §2.2).
                        assert_eq!(cfi.result_for(&sig), Some(true));
                        passed += 1;
                    }
                }
                Submessage::Gap(_) => gaps += 1,
                _ => {}
            }
        }
    }
    assert!(
        passed > 0 && gaps > 0,
        "filter info on {passed} DATA, {gaps} GAPs"
    );
}

#[test]
fn hand_made_bad_capture_reports_each_defect() {
    let file = std::fs::File::open(capture_dir().join("bad-messages.pcap")).unwrap();
    let mut out = Vec::new();
    let totals = siftdds::inspect::run(file, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(
        (
            totals.messages,
            totals.submessages,
            totals.malformed,
            totals.not_understood,
            totals.not_rtps
        ),
        (6, 7, 4, 1, 1),
        "{text}"
    );
    assert!(
        text.ends_with("messages: 6, submessages: 7, malformed: 4, not understood: 1\n"),
        "{text}"
    );
}

#[test]
fn inspect_command_exit_status_tells_clean_malformed_and_unreadable_apart() {
    let run = |file: &Path| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_siftdds"))
            .arg("inspect")
            .arg(file)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, _) = run(&capture_dir().join("fastdds-cft.pcapng"));
    assert_eq!(code, Some(0));
    assert!(
        stdout.lines().last().unwrap().starts_with("messages: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("filterInfo=[47bb7e53662fda8091cb7f1a47db53b7:pass]"),
        "{stdout}"
    );
    let (code, _, _) = run(&capture_dir().join("bad-messages.pcap"));
    assert_eq!(code, Some(1));
    let missing = capture_dir().join("no-such-file.pcap");
    let (code, _, stderr) = run(&missing);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("no-such-file.pcap"), "{stderr}");
    let (code, _, stderr) = run(&capture_dir().join("README.md"));
    assert_eq!(code, Some(2));
    assert!(stderr.contains("not a pcap or pcapng file"), "{stderr}");
}

/// RTI Connext 6.1's habits in a real capture (`tests/data/rti/README.md`): at least one
/// HEARTBEAT with lastSN < firstSN − 1 and at least one NDDSPING are in it, and `siftdds
/// inspect` counts no message as malformed and the pings as pings. docs/interop-facts.md §5.8,
/// §5.11.
#[test]
fn rti_capture_heartbeats_below_first_and_pings_inspect_clean() {
    let path = PathBuf::from(repo_path!(
        "tests/data/rti/connext-filtered-heartbeat.pcapng"
    ));
    let mut low_heartbeats = 0;
    let mut pings = 0;
    let file = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
    for_each_datagram(file, |d| {
        pings += usize::from(siftdds::wire::is_vendor_ping(&d.payload));
        if d.payload.len() < 20 || !d.payload.starts_with(b"RTPS") {
            return;
        }
        // The raw submessages: the parser normalizes lastSN, so read the octets.
        let mut at = 20;
        while let Some(h) = d.payload.get(at..at + 4) {
            let le = h[1] & 1 == 1;
            let u16_at = |b: &[u8]| {
                if le {
                    u16::from_le_bytes([b[0], b[1]])
                } else {
                    u16::from_be_bytes([b[0], b[1]])
                }
            };
            let len = usize::from(u16_at(&h[2..4]));
            let body = d.payload.get(at + 4..).unwrap_or(&[]);
            if h[0] == 0x07 && body.len() >= 28 {
                let sn = |o: usize| {
                    let hi = &body[o..o + 4];
                    let lo = &body[o + 4..o + 8];
                    let (hi, lo) = if le {
                        (
                            i32::from_le_bytes(hi.try_into().unwrap()),
                            u32::from_le_bytes(lo.try_into().unwrap()),
                        )
                    } else {
                        (
                            i32::from_be_bytes(hi.try_into().unwrap()),
                            u32::from_be_bytes(lo.try_into().unwrap()),
                        )
                    };
                    (i64::from(hi) << 32) | i64::from(lo)
                };
                if sn(16) < sn(8) - 1 {
                    low_heartbeats += 1;
                }
            }
            if len == 0 {
                break;
            }
            at += 4 + len;
        }
    })
    .unwrap();
    assert!(
        low_heartbeats >= 1,
        "no HEARTBEAT with lastSN < firstSN - 1"
    );
    assert!(pings >= 1, "no NDDSPING");
    let mut out = Vec::new();
    let totals = siftdds::inspect::run(std::fs::File::open(&path).unwrap(), &mut out).unwrap();
    assert_eq!(totals.malformed, 0, "{}", String::from_utf8_lossy(&out));
    assert_eq!(totals.pings, pings as u64);
}

/// The fuzz `discovery` target reaches the siftdds vendor PIDs' decoders: every SPDP/SEDP
/// payload of the captures, turned into a siftdds sender's (`fuzzing::siftdds_discovery_seed`,
/// what the seeder adds to the corpus), decodes with those fields as a siftdds sender's and
/// round-trips through the harness, also truncated at every offset and with each byte
/// flipped (the harness panics on a changed round trip).
#[test]
fn siftdds_discovery_seeds_reach_the_vendor_pids_and_survive_mutation() {
    use siftdds::core::discovery::{ParticipantProxyData, PublicationData, SubscriptionData};
    use siftdds::fuzzing::{discovery, siftdds_discovery_seed};
    let mut seeds = [0usize; 3];
    for path in vendor_captures() {
        for d in rtps_datagrams(&path) {
            let (vendor, subs, _) = submessages_with_bytes(&d.payload);
            for (sm, _) in subs {
                let Submessage::Data(data) = sm else { continue };
                let kind = match data.writer_id.0 {
                    [0, 1, 0, 0xc2] => 0u8,
                    [0, 0, 3, 0xc2] => 1,
                    [0, 0, 4, 0xc2] => 2,
                    _ => continue,
                };
                let Some(p) = data.payload.bytes() else {
                    continue;
                };
                let Some(seed) = siftdds_discovery_seed(kind, vendor, p) else {
                    continue;
                };
                let body = &seed[1..];
                let ours = match kind {
                    0 => ParticipantProxyData::from_payload(body, VendorId::SIFTDDS)
                        .is_ok_and(|p| p.peer_group.is_some() && p.peer_group_evicted.len() == 2),
                    1 => PublicationData::from_payload(body, VendorId::SIFTDDS)
                        .is_ok_and(|w| w.peer_group.is_some() && w.router_path.len() == 2),
                    _ => SubscriptionData::from_payload(body, VendorId::SIFTDDS)
                        .is_ok_and(|r| r.router_path.len() == 3),
                };
                assert!(
                    ours,
                    "{}: seed of kind {kind} lost its siftdds fields",
                    path.display()
                );
                seeds[usize::from(kind)] += 1;
                discovery(&seed);
                for cut in 1..seed.len() {
                    discovery(&seed[..cut]);
                }
                let mut flipped = seed.clone();
                for i in 1..flipped.len() {
                    flipped[i] ^= 0xff;
                    discovery(&flipped);
                    flipped[i] ^= 0xff;
                }
            }
        }
    }
    assert!(
        seeds.iter().all(|n| *n > 0),
        "SPDP, DATA(w), DATA(r) seeds: {seeds:?}"
    );
}
