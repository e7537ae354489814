//! A small shapes application built on siftdds the way a team outside the project builds one:
//! it depends on the `siftdds` crate alone, with its default features, and uses only its
//! public API. It derives its topic type ([`Shape`], wire-compatible with the OMG Shapes
//! demo's `ShapeType`), publishes with `write_async` and subscribes with
//! `DataReader::stream()` on tokio ([`publish`], [`receive`]), and follows instances through
//! a WaitSet with a ReadCondition, a QueryCondition and a StatusCondition ([`ShapeMonitor`]),
//! reading per instance with `lookup_instance` and `take_instance`. Its tests
//! (`consumer/tests/peers.rs`) run it against Cyclone DDS and Fast DDS processes.
//!
//! Must not: use anything an outside user could not (the `test-hooks` feature,
//! `siftdds-proto` directly, the repository's test helpers), or panic on what a peer sends.
//! DDS 1.4 §2.2.2.5 (the reading model), §2.2.2.5.3.33 (lookup_instance).

use std::time::Duration;

use futures::StreamExt;
use siftdds::TopicType;
use siftdds::api::{
    Condition, DataReader, DataWriter, DomainParticipant, Error, InstanceHandle, InstanceState,
    InstanceStateMask, QueryCondition, ReadCondition, Sample, StateMasks, StatusCondition,
    StatusMask, WaitSet,
};
use siftdds::qos::{
    DataReaderQos, DataRepresentation, DataWriterQos, History, PublisherQos, Reliability,
    SubscriberQos, TopicQos,
};

/// The shape the application publishes: the OMG Shapes demo's `ShapeType` (`@key string<128>
/// color; long x; long y; long shapesize;`), announced under that type name, plus the
/// trailing `sequence<octet> additional_payload_size` of the interoperability harness's
/// version, so that peers built from either IDL read it (the type is appendable: a peer whose
/// type lacks the last member skips it, and a sample without it decodes it empty).
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(type_name = "ShapeType")]
pub struct Shape {
    /// The instance key: one instance per colour.
    #[key]
    #[dds(bound = 128)]
    pub color: String,
    /// Horizontal position.
    pub x: i32,
    /// Vertical position.
    pub y: i32,
    /// Size in pixels.
    pub shapesize: i32,
    /// Padding the interoperability harness uses to make samples large; empty here.
    pub additional_payload_size: Vec<u8>,
}

impl Shape {
    /// A shape of `color` at (`x`, `y`), size 30.
    pub fn new(color: &str, x: i32, y: i32) -> Shape {
        Shape {
            color: color.to_owned(),
            x,
            y,
            shapesize: 30,
            additional_payload_size: Vec::new(),
        }
    }

    /// A sample holding only the key of `color`'s instance (for `lookup_instance`).
    pub fn key(color: &str) -> Shape {
        Shape {
            color: color.to_owned(),
            ..Shape::default()
        }
    }
}

/// A participant on `domain` that announces itself every 300 ms, so that peers started
/// after it find it quickly.
pub fn participant(domain: u32) -> Result<DomainParticipant, Error> {
    DomainParticipant::builder(domain)
        .announce_period(Duration::from_millis(300))
        .build()
}

/// The data representations the application reads: XCDR1 (what DDS 1.4 peers and Cyclone
/// 0.10's @final types write) and XCDR2.
fn either_representation() -> DataRepresentation {
    DataRepresentation::new([DataRepresentation::XCDR, DataRepresentation::XCDR2])
}

/// A reliable KEEP_ALL reader of [`Shape`] on `topic`, reading XCDR1 and XCDR2.
pub fn shape_reader(p: &DomainParticipant, topic: &str) -> Result<DataReader<Shape>, Error> {
    let topic = p.create_topic::<Shape>(topic, TopicQos::default());
    let qos = DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        ..DataReaderQos::default()
    }
    .data_representation(either_representation());
    p.create_subscriber(SubscriberQos::default())
        .create_datareader(&topic, qos)
}

/// A reliable KEEP_ALL writer of [`Shape`] on `topic`, writing `representation`
/// ([`DataRepresentation::XCDR`] or [`DataRepresentation::XCDR2`]).
pub fn shape_writer(
    p: &DomainParticipant,
    topic: &str,
    representation: i16,
) -> Result<DataWriter<Shape>, Error> {
    let topic = p.create_topic::<Shape>(topic, TopicQos::default());
    let qos = DataWriterQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        ..DataWriterQos::default()
    }
    .data_representation(DataRepresentation::new([representation]));
    p.create_publisher(PublisherQos::default())
        .create_datawriter(&topic, qos)
}

/// Waits for `readers` matched readers, writes `shapes` with `write_async` and waits until
/// every reader acknowledged them, without blocking a thread. Bound it with the executor's
/// timer (`tokio::time::timeout`).
pub async fn publish(
    writer: &DataWriter<Shape>,
    readers: usize,
    shapes: &[Shape],
) -> Result<(), Error> {
    writer.wait_for_matched_async(readers).await?;
    for shape in shapes {
        writer.write_async(shape).await?;
    }
    writer.wait_for_acknowledgments_async().await
}

/// Takes samples from `reader`'s stream until `n` carried data or `timeout` passed (instance
/// state changes without data are kept too). Returns what arrived, in order.
pub async fn receive(
    reader: &DataReader<Shape>,
    n: usize,
    timeout: Duration,
) -> Vec<Sample<Shape>> {
    let mut got = Vec::new();
    // Time is up, or the stream ended (the participant stopped): what arrived is the answer.
    let _ = tokio::time::timeout(timeout, async {
        let mut stream = reader.stream();
        let mut with_data = 0usize;
        while with_data < n {
            let Some(sample) = stream.next().await else {
                break;
            };
            with_data = with_data.saturating_add(usize::from(sample.info.valid_data));
            got.push(sample);
        }
    })
    .await;
    got
}

/// What one [`ShapeMonitor::wait`] saw.
#[derive(Debug, Default)]
pub struct Wake {
    /// The samples read through the conditions that triggered (read, not taken: the
    /// instances keep them).
    pub samples: Vec<Sample<Shape>>,
    /// The ReadCondition on unread samples of instances no longer alive triggered.
    pub not_alive: bool,
    /// The QueryCondition on unread shapes at `x >=` the monitor's threshold triggered.
    pub far: bool,
    /// The statuses the StatusCondition reported changed (SUBSCRIPTION_MATCHED,
    /// DATA_AVAILABLE).
    pub status: Option<StatusMask>,
}

/// A WaitSet over one reader of shapes: a ReadCondition for unread samples of instances that
/// are no longer alive (disposed, or without writers), two QueryConditions splitting the
/// other unread shapes at an `x` threshold, and a StatusCondition for the subscription's
/// matches and data. Each wake reads only through the conditions that triggered, so every
/// unread sample is reported by a condition before it is read (the three conditions cover
/// every unread sample). DDS 1.4 §2.2.2.1.6-9, §2.2.2.5.8-9.
pub struct ShapeMonitor<'r> {
    reader: &'r DataReader<Shape>,
    waitset: WaitSet,
    not_alive: ReadCondition,
    near: QueryCondition,
    far: QueryCondition,
    status: StatusCondition,
}

impl<'r> ShapeMonitor<'r> {
    /// A monitor of `reader` whose QueryConditions split the shapes at `x = far_x`.
    pub fn new(reader: &'r DataReader<Shape>, far_x: i32) -> Result<Self, Error> {
        let not_alive = reader.create_readcondition(StateMasks {
            instance: InstanceStateMask::NOT_ALIVE,
            ..StateMasks::NOT_READ
        })?;
        let threshold = far_x.to_string();
        let alive_unread = StateMasks {
            instance: InstanceStateMask::ALIVE,
            ..StateMasks::NOT_READ
        };
        let near = reader.create_querycondition(alive_unread, "x < %0", &[&threshold])?;
        let far = reader.create_querycondition(StateMasks::NOT_READ, "x >= %0", &[&threshold])?;
        let status = reader
            .status_condition(StatusMask::SUBSCRIPTION_MATCHED | StatusMask::DATA_AVAILABLE)?;
        let mut waitset = WaitSet::new();
        waitset.attach(&not_alive);
        waitset.attach(&near);
        waitset.attach(&far);
        waitset.attach(&status);
        Ok(ShapeMonitor {
            reader,
            waitset,
            not_alive,
            near,
            far,
            status,
        })
    }

    /// Blocks until a condition triggers (or `timeout`: [`Error::Timeout`]), then reads the
    /// samples of the conditions that triggered and reports which did.
    pub fn wait(&self, timeout: Duration) -> Result<Wake, Error> {
        let triggered = self.waitset.wait(timeout)?;
        let mut wake = Wake::default();
        if triggered.contains(&self.status.id()) {
            wake.status = Some(self.status.take_changes()?);
        }
        if triggered.contains(&self.not_alive.id()) {
            wake.not_alive = true;
            let samples = self.reader.read_w_condition(&self.not_alive, usize::MAX)?;
            wake.samples.extend(samples);
        }
        if triggered.contains(&self.far.id()) {
            wake.far = true;
            wake.samples
                .extend(self.reader.read_w_condition(&self.far, usize::MAX)?);
        }
        if triggered.contains(&self.near.id()) {
            wake.samples
                .extend(self.reader.read_w_condition(&self.near, usize::MAX)?);
        }
        Ok(wake)
    }

    /// The state `color`'s instance is in, from its samples still in the reader (`None` when
    /// the reader has no such instance). `lookup_instance`, then `read_instance`.
    pub fn instance_state(&self, color: &str) -> Result<Option<InstanceState>, Error> {
        let handle = self.reader.lookup_instance(&Shape::key(color))?;
        if handle == InstanceHandle::NIL {
            return Ok(None);
        }
        let samples = self
            .reader
            .read_instance(handle, StateMasks::ANY, usize::MAX)?;
        Ok(samples.last().map(|s| s.info.instance_state))
    }

    /// Takes every sample of `color`'s instance (empty when the reader has none).
    pub fn take_instance(&self, color: &str) -> Result<Vec<Sample<Shape>>, Error> {
        let handle = self.reader.lookup_instance(&Shape::key(color))?;
        if handle == InstanceHandle::NIL {
            return Ok(Vec::new());
        }
        self.reader
            .take_instance(handle, StateMasks::ANY, usize::MAX)
    }
}
