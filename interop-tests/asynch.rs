//! The async surface against Cyclone DDS (pip `cyclonedds` 11, `peers/python/shapes_xcdr.py`):
//! a Python Cyclone writer read through `DataReader::stream()` under tokio, and a
//! `write_async` writer with a small KEEP_ALL history (so that it waits for Cyclone's
//! acknowledgements) read by a Python Cyclone reader. Skipped, with the reason recorded,
//! when `python3` cannot import `cyclonedds`.
//!
//! Must not: run outside the sandbox (`python_ready` asks it), or sleep: every wait is
//! bounded by tokio's timer or the peer's own deadline.

use std::time::Duration;

use futures::StreamExt;
use siftdds::qos::{
    DataWriterQos, History, Length, PublisherQos, Reliability, ResourceLimits, TopicQos,
};
use siftdds::types::ShapeType;

use crate::vendors::participant;
use crate::xcdr2::{
    peer_samples, python_peer, python_ready, sample, square_reader_of_either_representation, xcdr2,
};

const WAIT: Duration = Duration::from_secs(30);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_cyclone_writer_to_siftdds_stream_under_tokio() {
    if !python_ready("python_cyclone_writer_to_siftdds_stream_under_tokio") {
        return;
    }
    let n = 200;
    let p = participant(166);
    let r = square_reader_of_either_representation(&p);
    let peer = python_peer(&["pub", "166", "Square", &n.to_string(), "--xcdr", "2"]);
    let mut stream = r.stream();
    let mut got = Vec::new();
    while got.len() < n as usize {
        match tokio::time::timeout(WAIT, stream.next()).await {
            Ok(Some(s)) => got.extend(s.value),
            Ok(None) => panic!("the stream ended"),
            Err(_) => break,
        }
    }
    drop(stream);
    let out = peer.finish(WAIT);
    let want: Vec<ShapeType> = (0..n)
        .map(|i| ShapeType {
            additional_payload_size: vec![],
            ..sample(i)
        })
        .collect();
    assert_eq!(got, want, "peer output:\n{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn siftdds_write_async_to_python_cyclone_reader() {
    if !python_ready("siftdds_write_async_to_python_cyclone_reader") {
        return;
    }
    let n = 200;
    let peer = python_peer(&["sub", "167", "Square", &n.to_string(), "--xcdr", "2"]);
    let p = participant(167);
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    // Four samples of history: the writer waits for Cyclone's ACKNACKs every few writes.
    let qos = DataWriterQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        resource_limits: ResourceLimits {
            max_samples: Length::Limited(4),
            max_instances: Length::Unlimited,
            max_samples_per_instance: Length::Limited(4),
        },
        ..DataWriterQos::default()
    }
    .data_representation(xcdr2());
    let w = p
        .create_publisher(PublisherQos::default())
        .create_datawriter(&topic, qos)
        .unwrap();
    let written = tokio::time::timeout(WAIT, async {
        w.wait_for_matched_async(1).await.unwrap();
        for i in 0..n {
            w.write_async(&sample(i)).await.unwrap();
        }
        w.wait_for_acknowledgments_async().await.unwrap();
    })
    .await;
    let out = peer.finish(WAIT);
    assert!(
        written.is_ok(),
        "the writes did not finish; peer output:\n{out}"
    );
    let want: Vec<_> = (0..n)
        .map(sample)
        .map(|s| (s.color, s.x, s.y, s.shapesize))
        .collect();
    assert_eq!(peer_samples(&out), want, "{out}");
}
