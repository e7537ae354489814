//! The demo's participants and the run: the publisher, the subscribers (each a participant
//! with one content-filtered reader whose listener reports arrivals), the filtering phase,
//! the baseline phase, then the report and the picture.
//!
//! Must not: print figures (`report.rs` does) or compute a figure it could measure.

use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use siftdds::api::{DEFAULT_LOCAL_PEERS, DomainParticipant, ParticipantBuilder};
use siftdds::cdr::{CdrError, Endianness};
use siftdds::core::discovery::metatraffic_unicast_port;
use siftdds::core::writer::MulticastConfig;
use siftdds::filter::{Program, parse_parameters};
use siftdds::qos::{
    DataReaderQos, DataWriterQos, History, PublisherQos, Reliability, SubscriberQos, TopicQos,
};
use siftdds::types::{ShapeType, TopicType, TypeDescriptor, XcdrVersion};
use siftdds::wire::Locator;

use super::DemoArgs;
use super::phase::{self, Arrival, Subscriber};
use super::report;
use crate::progress::Progress;

/// The pause after discovery in which the subscribers' idle traffic is measured.
const QUIET: Duration = Duration::from_secs(1);

/// Colours of the shapes.
pub const COLORS: [&str; 5] = ["RED", "BLUE", "GREEN", "YELLOW", "ORANGE"];

/// The ShapeType as a writer that cannot filter sees it: the same type name and bytes, but
/// no descriptor, so the writer cannot compile its readers' filters and sends every reader
/// every sample (they filter on arrival), as a writer without writer-side filtering does.
pub struct Unfiltered(pub ShapeType);

impl TopicType for Unfiltered {
    fn type_name() -> &'static str {
        ShapeType::type_name()
    }
    fn is_keyed() -> bool {
        ShapeType::is_keyed()
    }
    fn serialize(&self, endian: Endianness) -> Vec<u8> {
        self.0.serialize(endian)
    }
    fn serialize_as(&self, version: XcdrVersion, endian: Endianness) -> Option<Vec<u8>> {
        self.0.serialize_as(version, endian)
    }
    fn supports(version: XcdrVersion) -> bool {
        ShapeType::supports(version)
    }
    fn deserialize(data: &[u8]) -> Result<Self, CdrError> {
        ShapeType::deserialize(data).map(Unfiltered)
    }
    fn key_hash(&self) -> Option<[u8; 16]> {
        self.0.key_hash()
    }
    fn serialize_key(&self, endian: Endianness) -> Option<Vec<u8>> {
        self.0.serialize_key(endian)
    }
    fn key_hash_from_serialized_key(data: &[u8]) -> Option<[u8; 16]> {
        ShapeType::key_hash_from_serialized_key(data)
    }
    fn descriptor() -> Option<&'static TypeDescriptor> {
        None
    }
}

/// The filter of subscriber `i`: a colour, and for most a region of the box; with `sparse`,
/// `x = i` (each sample then passes exactly one subscriber).
fn filter_of(i: usize, sparse: bool) -> (String, Vec<String>) {
    if sparse {
        return ("x = %0".into(), vec![i.to_string()]);
    }
    let color = COLORS[i % COLORS.len()];
    match (i / COLORS.len()) % 4 {
        0 => ("color = %0".into(), vec![format!("'{color}'")]),
        1 => (
            "color = %0 AND x < %1".into(),
            vec![format!("'{color}'"), "120".into()],
        ),
        2 => (
            "color = %0 AND shapesize BETWEEN 20 AND %1".into(),
            vec![format!("'{color}'"), "40".into()],
        ),
        _ => (
            "color = %0 OR y > %1".into(),
            vec![format!("'{color}'"), format!("{}", 200 + i)],
        ),
    }
}

/// `expression` with `%n` replaced by its parameter, for the table.
fn shown(expression: &str, parameters: &[String]) -> String {
    let mut s = expression.to_string();
    for (n, p) in parameters.iter().enumerate().rev() {
        s = s.replace(&format!("%{n}"), p);
    }
    s
}

/// Wall-clock nanoseconds since the Unix epoch (the writers' source timestamps' clock).
fn wall_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Runs both phases and reports. Returns false when a subscriber got the wrong samples.
pub fn run(o: &DemoArgs) -> Result<bool, Box<dyn std::error::Error>> {
    let net = match (o.multicast, &o.interface) {
        (true, _) => "multicast discovery, subscribers also on the user multicast group",
        (false, Some(_)) => "the selected interfaces, multicast discovery",
        (false, None) => "UDP on 127.0.0.1, loopback-only, unicast discovery",
    };
    println!(
        "siftdds demo: 1 publisher, {} filtered subscribers (a participant each), {:.1} s at {} samples/s; {net}",
        o.subscribers, o.seconds, o.rate
    );
    if o.sparse {
        println!(
            "sparse: subscriber i filters x = i, sample n has x = n mod {}: each sample passes exactly one subscriber",
            o.subscribers
        );
    } else {
        println!(
            "shapes: {} colours, each round a closed path of {} positions (the writer's table answers repeats)",
            COLORS.len(),
            phase::PATH_STEPS
        );
    }
    let builder = || -> ParticipantBuilder {
        let mut b =
            DomainParticipant::builder(o.domain).announce_period(Duration::from_millis(500));
        if let Some(list) = &o.interface {
            return b.interfaces([list]);
        }
        if o.multicast {
            return b;
        }
        b = b.loopback_only();
        // Unicast discovery reaches the first DEFAULT_LOCAL_PEERS participant indices only:
        // with more participants, list every index as an initial peer (all on 127.0.0.1).
        let participants = o.subscribers as u32 + 1;
        if participants > DEFAULT_LOCAL_PEERS {
            for id in 0..participants + 2 {
                if let Some(port) = metatraffic_unicast_port(o.domain, id) {
                    b = b.initial_peer(Locator::udpv4([127, 0, 0, 1], port));
                }
            }
        }
        b
    };
    let plan = MulticastConfig {
        mode: o.plan.mode(),
        ..MulticastConfig::default()
    };
    let publisher = builder()
        .writer_multicast(plan)
        .entity_name("demo publisher")
        .build()?;
    eprintln!("siftdds: {}", publisher.network());
    let topic = publisher.create_topic::<ShapeType>("Square", TopicQos::default());
    let writer_qos = DataWriterQos {
        history: History::KeepAll,
        ..DataWriterQos::default()
    };
    let pub_entity = publisher.create_publisher(PublisherQos::default());
    let writer = pub_entity.create_datawriter(&topic, writer_qos.clone())?;
    let mut subs = Vec::with_capacity(o.subscribers);
    for i in 0..o.subscribers {
        let p = builder()
            .user_multicast(o.multicast)
            .entity_name(format!("demo subscriber {i}"))
            .build()?;
        let t = p.create_topic::<ShapeType>("Square", TopicQos::default());
        let (expression, parameters) = filter_of(i, o.sparse);
        let params: Vec<&str> = parameters.iter().map(String::as_str).collect();
        let reliability = if o.best_effort {
            Reliability::best_effort()
        } else {
            Reliability::reliable()
        };
        let qos = DataReaderQos {
            reliability,
            history: History::KeepAll,
            ..DataReaderQos::default()
        };
        let reader = p
            .create_subscriber(SubscriberQos::default())
            .create_filtered_datareader(
                &t,
                &format!("SquareFiltered{i}"),
                &expression,
                &params,
                qos,
            )?;
        // Arrivals are timed in the listener, on the subscriber's event loop, as they come.
        let (tx, rx) = mpsc::channel();
        reader.set_listener_serialized(move |changes, _| {
            let now = wall_ns();
            let batch: Vec<Arrival> = changes
                .iter()
                .map(|c| Arrival {
                    writer: c.writer_guid,
                    latency_ns: c
                        .source_timestamp
                        .and_then(|t| t.to_unix_nanos())
                        .map(|t| now.saturating_sub(t)),
                    bytes: c.data.len(),
                })
                .collect();
            tx.send(batch).is_ok()
        })?;
        let literals = parse_parameters(&parameters)?;
        let program = Program::compile_expression(&expression, &literals, ShapeType::descriptor())?;
        subs.push(Subscriber::new(
            format!("sub{i:02}"),
            shown(&expression, &parameters),
            program,
            reader,
            p,
            rx,
        ));
    }
    // Discovery among N + 1 participants takes longer with more of them.
    let wait = Duration::from_secs(30 + o.subscribers as u64);
    let progress = Progress::new("discovery", None);
    progress.println(&format!(
        "discovery: waiting up to {} s for {} matches",
        wait.as_secs(),
        o.subscribers
    ));
    writer.wait_for_matched(o.subscribers, wait)?;
    progress.finish("done");
    // What a subscriber receives while nothing is written: discovery (every participant's
    // SPDP announcements), measured, so the table's rx bytes can be read against it.
    let before: Vec<u64> = subs.iter().map(Subscriber::bytes_received).collect();
    std::thread::sleep(QUIET);
    let idle: u64 = subs
        .iter()
        .zip(&before)
        .map(|(s, b)| s.bytes_received().saturating_sub(*b))
        .sum();
    println!(
        "idle: with nothing written for {} s, a subscriber's participant received {:.0} bytes/s on average (discovery)",
        QUIET.as_secs(),
        idle as f64 / QUIET.as_secs_f64() / subs.len().max(1) as f64
    );

    // The writer that cannot filter, matched before either phase runs.
    let plain = match o.no_baseline {
        true => None,
        false => {
            let plain = pub_entity.create_datawriter(
                &publisher.create_topic::<Unfiltered>("Square", TopicQos::default()),
                writer_qos,
            )?;
            let progress = Progress::new("baseline", None);
            progress.println(&format!(
                "baseline: a second writer, that cannot filter, for the same samples to the same readers \
                 (waiting up to {} s for its matches)",
                wait.as_secs()
            ));
            plain.wait_for_matched(o.subscribers, wait)?;
            for s in &subs {
                s.wait_for_writers(2, wait)?;
            }
            progress.finish("matched");
            Some(plain)
        }
    };
    let mut baseline = None;
    if let (Some(plain), true) = (&plain, o.baseline_first) {
        baseline = Some(phase::publish(
            plain, Unfiltered, &mut subs, 1, o, &publisher,
        )?);
    }
    let filtering = phase::publish(&writer, |s| s, &mut subs, 0, o, &publisher)?;
    if let (Some(plain), false) = (&plain, o.baseline_first) {
        baseline = Some(phase::publish(
            plain, Unfiltered, &mut subs, 1, o, &publisher,
        )?);
    }
    let ok = report::print(o, &subs, &filtering, baseline.as_ref());
    if let Some(path) = &o.plot {
        super::plot::draw(path, &subs, &filtering, baseline.as_ref())?;
        println!("picture: {}", path.display());
    }
    Ok(ok)
}
