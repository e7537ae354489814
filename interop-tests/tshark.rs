//! Our encoder against Wireshark's RTPS dissector: every submessage kind and the
//! content-filter parameters, in both byte orders, written to a pcap that `tshark` must
//! dissect without a malformed packet or an expert warning. Skipped (a counted skip, `skip.rs`)
//! when tshark is not installed; `scripts/setup` installs it.

use std::process::Command;

use siftdds::cdr::{CdrWriter, Endianness};
use siftdds::time::Timestamp;
use siftdds::wire::plist::{
    ContentFilterInfo, ContentFilterProperty, Parameter, ParameterListView, Value, pid,
    serialize_pl_cdr_payload,
};
use siftdds::wire::submessage::{
    AckNack, Data, DataFrag, DataPayload, Gap, Heartbeat, HeartbeatFrag, InfoDst, InfoReply,
    InfoReplyIp4, InfoSrc, InfoTs, Ip4Locator, NackFrag, Pad, Submessage,
};
use siftdds::wire::{
    EntityId, FragmentNumber, FragmentNumberSet, Guid, GuidPrefix, Header, Locator,
    ProtocolVersion, SequenceNumber, SequenceNumberSet, VendorId, emit_message,
};

use crate::skip::skip;

const PREFIX: GuidPrefix = GuidPrefix([1, 0xf0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
const PEER: GuidPrefix = GuidPrefix([1, 0x0f, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2]);
const WRITER: EntityId = EntityId([0, 0, 1, 0x02]);
const READER: EntityId = EntityId([0, 0, 1, 0x07]);

fn plist_bytes(params: &[Parameter<'_>], endian: Endianness) -> Vec<u8> {
    let mut buf = Vec::new();
    siftdds::wire::plist::emit_parameter_list(params, &mut CdrWriter::new(&mut buf, endian))
        .unwrap();
    buf
}

fn filter_info() -> ContentFilterInfo {
    let mut cfi = ContentFilterInfo::new();
    cfi.push([0x47; 16], true);
    cfi.push([0x11; 16], false);
    cfi
}

/// The messages to dissect, all kinds, in one byte order.
fn messages(e: Endianness) -> Vec<Vec<u8>> {
    let sn = SequenceNumber;
    let header = Header::new(PREFIX);
    let inline = plist_bytes(
        &[
            Parameter::Known {
                pid: pid::PID_KEY_HASH,
                value: Value::KeyHash([7; 16]),
            },
            Parameter::Known {
                pid: pid::PID_CONTENT_FILTER_INFO,
                value: Value::ContentFilterInfo(filter_info()),
            },
            // A GROUP-scope writer's change (RTPS 2.5 §8.7.6).
            Parameter::Known {
                pid: pid::PID_COHERENT_SET,
                value: Value::SequenceNumber(SequenceNumber(3)),
            },
            Parameter::Known {
                pid: pid::PID_GROUP_SEQ_NUM,
                value: Value::SequenceNumber(SequenceNumber(11)),
            },
            Parameter::Known {
                pid: pid::PID_GROUP_COHERENT_SET,
                value: Value::SequenceNumber(SequenceNumber(9)),
            },
            Parameter::Unknown(siftdds::wire::plist::RawParameter {
                pid: pid::PID_WRITER_GROUP_INFO,
                value: &[1, 2, 3, 4],
            }),
        ],
        e,
    );
    let inline_view =
        ParameterListView::new_checked(&mut siftdds::cdr::CdrReader::new(&inline, e)).unwrap();
    let dispose = plist_bytes(
        &[
            Parameter::Known {
                pid: pid::PID_KEY_HASH,
                value: Value::KeyHash([7; 16]),
            },
            Parameter::Known {
                pid: pid::PID_STATUS_INFO,
                value: Value::StatusInfo(3),
            },
        ],
        e,
    );
    let dispose_view =
        ParameterListView::new_checked(&mut siftdds::cdr::CdrReader::new(&dispose, e)).unwrap();
    let sample = [0u8, 1, 0, 0, 4, 0, 0, 0, b'R', b'E', b'D', 0, 10, 0, 0, 0];
    let big = vec![0xab; 3000];
    let cfp = ContentFilterProperty {
        content_filtered_topic_name: "SquareFiltered",
        related_topic_name: "Square",
        filter_class_name: "DDSSQL",
        filter_expression: "color = %0 AND x > %1",
        expression_parameters: vec!["'RED'", "10"],
    };
    let reader_guid = Guid::new(PREFIX, READER);
    let sedp = serialize_pl_cdr_payload(
        &[
            Parameter::Known {
                pid: pid::PID_ENDPOINT_GUID,
                value: Value::Guid(reader_guid),
            },
            Parameter::Known {
                pid: pid::PID_TOPIC_NAME,
                value: Value::String("Square"),
            },
            Parameter::Known {
                pid: pid::PID_TYPE_NAME,
                value: Value::String("ShapeType"),
            },
            Parameter::Known {
                pid: pid::PID_CONTENT_FILTER_PROPERTY,
                value: Value::ContentFilterProperty(cfp),
            },
        ],
        e,
    )
    .unwrap();
    let data = Submessage::Data(Data {
        endian: e,
        extra_flags: 0,
        reader_id: READER,
        writer_id: WRITER,
        writer_sn: sn(1),
        inline_qos: Some(inline_view),
        payload: DataPayload::Data(&sample),
    });
    let group = [
        vec![
            Submessage::InfoTs(InfoTs {
                endian: e,
                timestamp: Some(Timestamp {
                    seconds: 1_700_000_000,
                    fraction: 1 << 31,
                }),
            }),
            data,
            Submessage::Heartbeat(Heartbeat {
                endian: e,
                final_flag: false,
                liveliness: false,
                reader_id: EntityId::UNKNOWN,
                writer_id: WRITER,
                first_sn: sn(1),
                last_sn: sn(5),
                count: 1,
                group_info: None,
            }),
            Submessage::Heartbeat(Heartbeat {
                endian: e,
                final_flag: true,
                liveliness: false,
                reader_id: EntityId::UNKNOWN,
                writer_id: WRITER,
                first_sn: sn(1),
                last_sn: sn(5),
                count: 2,
                group_info: Some(siftdds::wire::submessage::HeartbeatGroupInfo {
                    current_gsn: sn(14),
                    first_gsn: sn(7),
                    last_gsn: sn(12),
                    writer_set: siftdds::wire::GroupDigest([1, 2, 3, 4]),
                    secure_writer_set: siftdds::wire::GroupDigest::default(),
                }),
            }),
        ],
        vec![
            Submessage::InfoDst(InfoDst {
                endian: e,
                guid_prefix: PEER,
            }),
            Submessage::AckNack(AckNack {
                endian: e,
                final_flag: true,
                reader_id: READER,
                writer_id: WRITER,
                reader_sn_state: SequenceNumberSet::from_members(sn(3), [sn(3), sn(5), sn(200)])
                    .unwrap(),
                count: 4,
            }),
            Submessage::NackFrag(NackFrag {
                endian: e,
                reader_id: READER,
                writer_id: WRITER,
                writer_sn: sn(2),
                fragment_number_state: FragmentNumberSet::from_members(
                    FragmentNumber(2),
                    [FragmentNumber(2), FragmentNumber(3)],
                )
                .unwrap(),
                count: 1,
            }),
        ],
        vec![
            Submessage::Gap(Gap {
                endian: e,
                reader_id: READER,
                writer_id: WRITER,
                gap_start: sn(2),
                gap_list: SequenceNumberSet::from_members(sn(4), [sn(6)]).unwrap(),
                group: None,
            }),
            Submessage::HeartbeatFrag(HeartbeatFrag {
                endian: e,
                reader_id: READER,
                writer_id: WRITER,
                writer_sn: sn(7),
                last_fragment_num: FragmentNumber(3),
                count: 1,
            }),
            Submessage::DataFrag(DataFrag {
                endian: e,
                extra_flags: 0,
                reader_id: READER,
                writer_id: WRITER,
                writer_sn: sn(7),
                fragment_starting_num: FragmentNumber(1),
                fragments_in_submessage: 1,
                fragment_size: 1000,
                sample_size: 3000,
                inline_qos: Some(inline_view),
                key: false,
                fragments: &big[..1000],
            }),
        ],
        vec![
            Submessage::InfoSrc(InfoSrc {
                endian: e,
                unused: 0,
                version: ProtocolVersion::V2_5,
                vendor_id: VendorId::SIFTDDS,
                guid_prefix: PEER,
            }),
            Submessage::InfoReply(InfoReply {
                endian: e,
                unicast: vec![Locator::udpv4([127, 0, 0, 1], 7411)],
                multicast: Some(vec![Locator::udpv4([239, 255, 0, 1], 7401)]),
            }),
            Submessage::InfoReplyIp4(InfoReplyIp4 {
                endian: e,
                unicast: Ip4Locator {
                    address: 0x7f00_0001,
                    port: 7413,
                },
                multicast: None,
            }),
            // Wireshark 4.0 flags a PAD with a body ("Should be ZERO"); we only send empty ones.
            Submessage::Pad(Pad {
                endian: e,
                body_len: 0,
            }),
        ],
        vec![Submessage::Data(Data {
            endian: e,
            extra_flags: 0,
            reader_id: EntityId::SEDP_SUBSCRIPTIONS_DETECTOR,
            writer_id: EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER,
            writer_sn: sn(1),
            inline_qos: None,
            payload: DataPayload::Data(&sedp),
        })],
        vec![Submessage::Data(Data {
            endian: e,
            extra_flags: 0,
            reader_id: READER,
            writer_id: WRITER,
            writer_sn: sn(9),
            inline_qos: Some(dispose_view),
            payload: DataPayload::None,
        })],
    ];
    group
        .iter()
        .map(|subs| {
            let mut buf = Vec::new();
            emit_message(&header, subs, &mut buf);
            buf
        })
        .collect()
}

fn ethernet_frame(payload: &[u8]) -> Vec<u8> {
    let udp_len = u16::try_from(8 + payload.len()).unwrap();
    let mut f = vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0x08, 0x00];
    f.extend_from_slice(&[0x45, 0]);
    f.extend_from_slice(&(udp_len + 20).to_be_bytes());
    f.extend_from_slice(&[0, 0, 0x40, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1]);
    f.extend_from_slice(&7411u16.to_be_bytes());
    f.extend_from_slice(&7413u16.to_be_bytes());
    f.extend_from_slice(&udp_len.to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    f.extend_from_slice(payload);
    f
}

#[test]
fn wireshark_dissects_every_submessage_we_encode_without_warnings() {
    if Command::new("tshark").arg("--version").output().is_err() {
        skip(
            "wireshark_dissects_every_submessage_we_encode_without_warnings",
            "tshark not installed (scripts/setup installs it)",
        );
        return;
    }
    let mut pcap = Vec::new();
    pcap.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    pcap.extend_from_slice(&[2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    pcap.extend_from_slice(&65535u32.to_le_bytes());
    pcap.extend_from_slice(&1u32.to_le_bytes());
    let mut expected_submessages = 0;
    for e in [Endianness::Little, Endianness::Big] {
        for m in messages(e) {
            expected_submessages += siftdds::wire::Message::parse(&m).unwrap().1.count();
            let frame = ethernet_frame(&m);
            let len = u32::try_from(frame.len()).unwrap();
            pcap.extend_from_slice(&[0; 8]);
            pcap.extend_from_slice(&len.to_le_bytes());
            pcap.extend_from_slice(&len.to_le_bytes());
            pcap.extend_from_slice(&frame);
        }
    }
    let path = std::env::temp_dir().join(format!("siftdds-tshark-{}.pcap", std::process::id()));
    std::fs::write(&path, &pcap).unwrap();
    let tshark = |args: &[&str]| {
        let out = Command::new("tshark")
            .arg("-r")
            .arg(&path)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "tshark failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    // Wireshark's RTPS heuristic dissector recognises the messages by their magic.
    let warnings = tshark(&[
        "-Y",
        "_ws.malformed || _ws.expert.severity >= warning",
        "-T",
        "fields",
        "-e",
        "frame.number",
        "-e",
        "_ws.expert.message",
        "-e",
        "_ws.malformed",
    ]);
    let ids = tshark(&["-T", "fields", "-e", "rtps.sm.id"]);
    let verbose = tshark(&["-V"]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(
        warnings.trim(),
        "",
        "tshark flagged our messages:\n{warnings}"
    );
    let dissected: usize = ids
        .lines()
        .map(|l| l.split(',').filter(|s| !s.is_empty()).count())
        .sum();
    assert_eq!(
        dissected, expected_submessages,
        "tshark saw other submessages:\n{ids}"
    );
    // The content-filter parameters are recognised by name, not shown as unknown.
    assert!(
        verbose.contains("PID_CONTENT_FILTER_INFO"),
        "no filter info in:\n{verbose}"
    );
    assert!(
        verbose.contains("PID_CONTENT_FILTER_PROPERTY"),
        "no filter property in:\n{verbose}"
    );
    assert!(
        verbose.contains("color = %0 AND x > %1"),
        "filter expression not dissected"
    );
}

/// Live traffic of two siftdds participants (discovery, reliable data, a 100 KB fragmented
/// sample, a dispose), captured on the sandbox's loopback by tshark itself: Wireshark's RTPS
/// dissector must find nothing malformed or suspicious in it.
#[test]
fn wireshark_finds_no_warning_in_our_live_traffic() {
    use siftdds::api::DomainParticipant;
    use siftdds::qos::{
        DataReaderQos, DataWriterQos, History, PublisherQos, Reliability, SubscriberQos, TopicQos,
    };
    use siftdds::types::ShapeType;
    use std::time::Duration;

    let test = "wireshark_finds_no_warning_in_our_live_traffic";
    if !crate::sandbox::may_open_sockets(test) {
        return;
    }
    if Command::new("tshark").arg("--version").output().is_err() {
        skip(test, "tshark not installed (scripts/setup installs it)");
        return;
    }
    let path = std::env::temp_dir().join(format!("siftdds-live-{}.pcapng", std::process::id()));
    // This test's domain only (its ports start at 7400 + 250 * domain), so that parallel
    // tests' traffic stays out of the capture. Each interop test has a domain of its own.
    let domain = 115;
    let base = 7400 + 250 * domain;
    let filter = format!("udp and portrange {}-{}", base, base + 249);
    let mut capture = start_capture(&filter, &["-a", "duration:8"], &path);
    let a = DomainParticipant::builder(domain)
        .announce_period(Duration::from_millis(300))
        .build()
        .unwrap();
    let b = DomainParticipant::builder(domain)
        .announce_period(Duration::from_millis(300))
        .build()
        .unwrap();
    let topic = a.create_topic::<ShapeType>("Square", TopicQos::default());
    let w = a
        .create_publisher(PublisherQos::default())
        .create_datawriter(
            &topic,
            DataWriterQos {
                history: History::KeepAll,
                ..DataWriterQos::default()
            },
        )
        .unwrap();
    let rqos = DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        ..DataReaderQos::default()
    };
    let r = b
        .create_subscriber(SubscriberQos::default())
        .create_datareader(&topic, rqos)
        .unwrap();
    w.wait_for_matched(1, Duration::from_secs(5)).unwrap();
    for i in 0..50 {
        w.write(&ShapeType {
            color: "RED".into(),
            x: i,
            y: i,
            shapesize: 20,
            additional_payload_size: vec![],
        })
        .unwrap();
    }
    let big = ShapeType {
        color: "BLUE".into(),
        x: 1,
        y: 2,
        shapesize: 3,
        additional_payload_size: vec![7; 100_000],
    };
    w.write(&big).unwrap();
    w.dispose(&big).unwrap();
    w.wait_for_acknowledgments(Duration::from_secs(5)).unwrap();
    let mut got = 0;
    while got < 52 {
        let s = r.wait_take(Duration::from_secs(5)).unwrap();
        assert!(!s.is_empty(), "reader stalled at {got}");
        got += s.len();
    }
    drop((w, r, a, b));
    assert!(capture.wait().unwrap().success());
    let warnings = expert_warnings(&path);
    let summary = read_capture(&path, &["-Y", "rtps"]);
    if std::env::var_os("SIFTDDS_KEEP_CAPTURE").is_none() {
        let _ = std::fs::remove_file(&path);
    }
    assert_eq!(
        warnings.trim(),
        "",
        "tshark flagged our traffic:\n{warnings}"
    );
    for kind in [
        "DATA(p)",
        "DATA(w)",
        "DATA(r)",
        "DATA_FRAG",
        "HEARTBEAT",
        "ACKNACK",
        "INFO_DST",
        "INFO_TS",
    ] {
        assert!(
            summary.contains(kind),
            "no {kind} in the capture:\n{summary}"
        );
    }
}

/// `tshark -r PATH ARGS...`: its stdout.
pub(crate) fn read_capture(path: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(path)
        .args(args)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// The frames of the capture at `path` that Wireshark finds malformed or warns about
/// (frame number and message per line; empty when none).
pub(crate) fn expert_warnings(path: &std::path::Path) -> String {
    read_capture(
        path,
        &[
            "-Y",
            "_ws.malformed || _ws.expert.severity >= warning",
            "-T",
            "fields",
            "-e",
            "frame.number",
            "-e",
            "_ws.expert.message",
        ],
    )
}

/// Starts `tshark -i lo -f FILTER EXTRA... -w PATH` and returns once it is capturing (it logs
/// "Capture started."); its stdout is discarded and its stderr drained so it never blocks.
pub(crate) fn start_capture(
    filter: &str,
    extra: &[&str],
    path: &std::path::Path,
) -> std::process::Child {
    let mut child = Command::new("tshark")
        .args(["-i", "lo", "-f", filter])
        .args(extra)
        .arg("-w")
        .arg(path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while !String::from_utf8_lossy(&seen).contains("Capture started") {
        if std::io::Read::read(&mut err, &mut byte).unwrap() == 0 {
            panic!("tshark did not start: {}", String::from_utf8_lossy(&seen));
        }
        seen.push(byte[0]);
    }
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    child
}
