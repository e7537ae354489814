//! siftdds to siftdds over real UDP sockets (inside the sandbox): the runtime, transport and
//! public API end to end. The peers are other vendors' processes in `vendors.rs`.

use std::time::Duration;

use siftdds::api::DomainParticipant;
use siftdds::qos::{
    DataReaderQos, DataWriterQos, Durability, History, PublisherQos, Reliability, SubscriberQos,
    TopicQos,
};
use siftdds::time::Timestamp;
use siftdds::types::ShapeType;

use crate::sandbox::may_open_sockets;

#[test]
fn reliable_shapes_flow_between_two_participants_over_udp() {
    if !may_open_sockets("reliable_shapes_flow_between_two_participants_over_udp") {
        return;
    }
    let a = DomainParticipant::builder(7)
        .announce_period(Duration::from_millis(200))
        .build()
        .unwrap();
    let b = DomainParticipant::builder(7)
        .announce_period(Duration::from_millis(200))
        .build()
        .unwrap();
    let topic = a.create_topic::<ShapeType>("Square", TopicQos::default());
    let qos = DataWriterQos {
        history: History::KeepAll,
        durability: Durability::TransientLocal,
        ..DataWriterQos::default()
    };
    let writer = a
        .create_publisher(PublisherQos::default())
        .create_datawriter(&topic, qos)
        .unwrap();
    let rqos = DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        ..DataReaderQos::default()
    };
    let reader = b
        .create_subscriber(SubscriberQos::default())
        .create_datareader(&topic, rqos)
        .unwrap();
    writer.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    reader.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    for i in 0..1000 {
        let s = ShapeType {
            color: "RED".into(),
            x: i,
            y: 2 * i,
            shapesize: 30,
            additional_payload_size: vec![],
        };
        writer.write(&s).unwrap();
    }
    writer
        .wait_for_acknowledgments(Duration::from_secs(20))
        .unwrap();
    let mut xs = Vec::new();
    while xs.len() < 1000 {
        let got = reader.wait_take(Duration::from_secs(5)).unwrap();
        assert!(!got.is_empty(), "stalled after {} samples", xs.len());
        xs.extend(got.into_iter().map(|s| s.value.unwrap().x));
    }
    assert_eq!(xs, (0..1000).collect::<Vec<_>>());
}

/// `write_w_timestamp` sets the source timestamp, from a `DataWriter` and from a listener: a
/// ping written with a fixed time is echoed by the other participant's listener with the
/// ping's timestamp (what `siftdds perf pong` does), and both arrive with exactly that time.
#[test]
fn write_w_timestamp_sets_the_source_timestamp_from_writer_and_listener() {
    if !may_open_sockets("write_w_timestamp_sets_the_source_timestamp_from_writer_and_listener") {
        return;
    }
    let a = DomainParticipant::builder(149)
        .announce_period(Duration::from_millis(200))
        .build()
        .unwrap();
    let b = DomainParticipant::builder(149)
        .announce_period(Duration::from_millis(200))
        .build()
        .unwrap();
    let wqos = DataWriterQos {
        history: History::KeepAll,
        durability: Durability::TransientLocal,
        ..DataWriterQos::default()
    };
    let rqos = DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        ..DataReaderQos::default()
    };
    let (ping_a, pong_a) = (
        a.create_topic::<ShapeType>("Ping", TopicQos::default()),
        a.create_topic::<ShapeType>("Pong", TopicQos::default()),
    );
    let (ping_b, pong_b) = (
        b.create_topic::<ShapeType>("Ping", TopicQos::default()),
        b.create_topic::<ShapeType>("Pong", TopicQos::default()),
    );
    let pinger = a
        .create_publisher(PublisherQos::default())
        .create_datawriter(&ping_a, wqos.clone())
        .unwrap();
    let pongs = a
        .create_subscriber(SubscriberQos::default())
        .create_datareader(&pong_a, rqos.clone())
        .unwrap();
    let ponger = b
        .create_publisher(PublisherQos::default())
        .create_datawriter(&pong_b, wqos)
        .unwrap();
    let pings = b
        .create_subscriber(SubscriberQos::default())
        .create_datareader(&ping_b, rqos)
        .unwrap();
    let echo = ponger.guid();
    pings
        .set_listener(move |samples, ctx| {
            for s in samples {
                let (v, ts) = (s.value.unwrap(), s.info.source_timestamp.unwrap());
                ctx.write_w_timestamp(echo, &v, ts).unwrap();
            }
            true
        })
        .unwrap();
    for (w, r) in [(&pinger, &pings), (&ponger, &pongs)] {
        w.wait_for_matched(1, Duration::from_secs(10)).unwrap();
        r.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    }
    // 1970: no clock reads this, so only the explicit timestamp can produce it.
    let stamp = Timestamp::from_unix_nanos(1_234_567_890);
    let s = ShapeType {
        color: "RED".into(),
        x: 7,
        y: 8,
        shapesize: 30,
        additional_payload_size: vec![],
    };
    pinger.write_w_timestamp(&s, stamp).unwrap();
    pinger.write(&ShapeType { x: 9, ..s.clone() }).unwrap();
    let mut got = Vec::new();
    while got.len() < 2 {
        let batch = pongs.wait_take(Duration::from_secs(5)).unwrap();
        assert!(!batch.is_empty(), "stalled after {} pongs", got.len());
        got.extend(
            batch
                .into_iter()
                .map(|p| (p.value.unwrap().x, p.info.source_timestamp.unwrap())),
        );
    }
    assert_eq!(got[0], (7, stamp), "the ping's timestamp, echoed");
    assert_eq!(got[1].0, 9);
    assert!(
        got[1].1.to_unix_nanos().unwrap() > 1_000_000_000_000_000_000,
        "a plain write is stamped now: {:?}",
        got[1].1
    );
}

/// Pipelined writes keep KEEP_ALL's limits and blocking: the reader queues at most 50 and
/// takes nothing (so it acknowledges 50: KEEP_ALL flow control), the writer keeps at most 600
/// unacknowledged; exactly 650 writes go through (more than two credits' worth, so grants
/// made on the way are used), the next one waits max_blocking_time and fails with
/// HistoryFull, and once the reader takes, all 650 arrive in order and writing resumes.
#[test]
fn pipelined_writes_keep_the_keep_all_limit_and_lose_nothing() {
    use siftdds::api::{Error, PeerError};
    use siftdds::core::writer::WriteError;
    use siftdds::qos::{Length, ResourceLimits};
    if !may_open_sockets("pipelined_writes_keep_the_keep_all_limit_and_lose_nothing") {
        return;
    }
    let a = DomainParticipant::builder(230)
        .announce_period(Duration::from_millis(200))
        .build()
        .unwrap();
    let b = DomainParticipant::builder(230)
        .announce_period(Duration::from_millis(200))
        .build()
        .unwrap();
    let limits = |n| ResourceLimits {
        max_samples: Length::Limited(n),
        ..ResourceLimits::default()
    };
    let mut reliability = Reliability::reliable();
    reliability.max_blocking_time = siftdds::time::Duration {
        seconds: 2,
        fraction: 0,
    };
    let qos = DataWriterQos {
        history: History::KeepAll,
        reliability,
        resource_limits: limits(600),
        ..DataWriterQos::default()
    };
    let writer = a
        .create_publisher(PublisherQos::default())
        .create_datawriter(
            &a.create_topic::<ShapeType>("Square", TopicQos::default()),
            qos,
        )
        .unwrap();
    let rqos = DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        resource_limits: limits(50),
        ..DataReaderQos::default()
    };
    let reader = b
        .create_subscriber(SubscriberQos::default())
        .create_datareader(
            &b.create_topic::<ShapeType>("Square", TopicQos::default()),
            rqos,
        )
        .unwrap();
    writer.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    reader.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    writer.set_pipelined(true);
    let shape = |x| ShapeType {
        color: "RED".into(),
        x,
        y: 0,
        shapesize: 30,
        additional_payload_size: vec![],
    };
    for x in 0..650 {
        writer
            .write(&shape(x))
            .unwrap_or_else(|e| panic!("write {x}: {e}"));
    }
    match writer.write(&shape(650)) {
        Err(Error::Peer(PeerError::Unacknowledged(WriteError::HistoryFull))) => {}
        other => panic!("write 650 on a full history: {other:?}"),
    }
    let mut xs = Vec::new();
    while xs.len() < 650 {
        let got = reader.wait_take(Duration::from_secs(5)).unwrap();
        assert!(!got.is_empty(), "stalled after {} samples", xs.len());
        xs.extend(got.into_iter().map(|s| s.value.unwrap().x));
    }
    assert_eq!(xs, (0..650).collect::<Vec<_>>());
    writer.write(&shape(650)).unwrap();
    let got = reader.wait_take(Duration::from_secs(5)).unwrap();
    assert_eq!(
        got.into_iter()
            .map(|s| s.value.unwrap().x)
            .collect::<Vec<_>>(),
        [650]
    );
}

/// The untyped endpoints the router and `siftdds spy` use: a writer of caller-made requests
/// whose `try_write` gives the request back until its history's room is known (learnt by a
/// `write`, which may wait) and then hands writes over without waiting, also through a
/// sender a listener can own; an untyped reader with options, whose listener gets the
/// payloads as written.
#[test]
fn untyped_writer_hands_over_without_waiting_once_it_has_credit_and_the_untyped_reader_gets_all() {
    use bytes::Bytes;
    use siftdds::api::UntypedReaderOptions;
    use siftdds::cdr::Endianness;
    use siftdds::core::{ChangeKind, WriteRequest};
    use siftdds::types::TopicType;
    if !may_open_sockets("untyped_writer_hands_over_without_waiting") {
        return;
    }
    let a = DomainParticipant::builder(231)
        .announce_period(Duration::from_millis(200))
        .build()
        .unwrap();
    let b = DomainParticipant::builder(231)
        .announce_period(Duration::from_millis(200))
        .same_loop_as(&a)
        .build()
        .unwrap();
    let wqos = DataWriterQos {
        history: History::KeepAll,
        reliability: Reliability::reliable(),
        ..DataWriterQos::default()
    };
    let writer = a
        .create_publisher(PublisherQos::default())
        .create_untyped_datawriter("Untyped", ShapeType::type_name(), true, wqos)
        .unwrap();
    let rqos = DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        ..DataReaderQos::default()
    };
    let options = UntypedReaderOptions {
        router_path: vec![7],
        ..UntypedReaderOptions::default()
    };
    let reader = b
        .create_subscriber(SubscriberQos::default())
        .create_untyped_datareader_with("Untyped", ShapeType::type_name(), true, rqos, options)
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    reader
        .set_listener(move |changes, _| changes.into_iter().all(|c| tx.send(c.data).is_ok()))
        .unwrap();
    writer.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    reader.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    assert_eq!(reader.matched_publications().unwrap(), 1);
    assert_eq!(writer.matched_subscriptions().unwrap(), 1);
    let payload = |x| {
        let s = ShapeType {
            color: "RED".into(),
            x,
            y: 0,
            shapesize: 30,
            additional_payload_size: vec![],
        };
        (s.key_hash(), Bytes::from(s.serialize(Endianness::Little)))
    };
    let request = |x| {
        let (key, data) = payload(x);
        WriteRequest::new(ChangeKind::Alive, key, data)
    };
    // No room known yet: given back, then written by the write that may wait.
    let back = writer
        .try_write(request(0))
        .unwrap()
        .expect("no credit yet");
    writer.write(back, Duration::from_secs(2)).unwrap();
    // Now the room is known: handed over without waiting, here and through a sender.
    let sender = writer.sender();
    for x in 1..10 {
        let first = writer.try_write(request(x)).unwrap();
        assert!(first.is_none(), "write {x} was given back");
    }
    assert!(sender.try_write(request(10)).unwrap().is_none());
    assert_eq!(sender.guid(), writer.guid());
    let got: Vec<Bytes> = (0..11)
        .map(|_| rx.recv_timeout(Duration::from_secs(10)).unwrap())
        .collect();
    let want: Vec<Bytes> = (0..11).map(|x| payload(x).1).collect();
    assert_eq!(got, want);
    writer
        .wait_for_acknowledgments(Duration::from_secs(10))
        .unwrap();
    reader.delete();
    writer.delete();
}
