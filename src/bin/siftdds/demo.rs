//! `siftdds demo`: one publisher and N content-filtered subscribers in one process, over real
//! UDP on 127.0.0.1 with unicast discovery (loopback-only, so it is safe on any machine). It
//! publishes moving shapes for a few seconds and reports, per subscriber, what arrived against
//! what its filter should let through, and the writer's filtering figures.
//!
//! With `--sparse`, subscriber `i` filters `x = %0` with `%0 = i` and sample `n` has
//! `x = n mod N`, so every sample passes exactly one subscriber. The demo then prints the wire
//! efficiency: the writer's datagrams and bytes against the ideal of one DATA datagram
//! (header, INFO_DST, INFO_TS, DATA with a one-signature PID_CONTENT_FILTER_INFO) per
//! delivered sample.
//!
//! With `--best-effort` the subscribers are best-effort: the writer then owes them no GAP and
//! no HEARTBEAT, so its traffic shows the cost of filtering alone; with reliable subscribers
//! (the default) each delivered sample also carries a GAP for the sequence numbers the reader
//! did not pass, plus the heartbeats reliability needs.
//!
//! With `--multicast`, the participants are not loopback-only: discovery uses the SPDP
//! multicast group and every subscriber also listens on the user multicast locator, so the
//! writer chooses per sample between one multicast datagram and unicasts (`core::writer`'s
//! cost model). Multicast needs a scope that has it: inside `netns-run` (`auto` over its
//! loopback), or interfaces chosen with `--interface LIST` / `SIFTDDS_INTERFACES`; outside a
//! namespace with nothing configured the participants stay on loopback without multicast.
//! `--interface LIST` puts every participant on those interfaces (multicast discovery).
//!
//! Must not: use multicast or any address outside 127/8 unless `--multicast` or
//! `--interface` is given.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};

use siftdds::api::{DataReader, DomainParticipant};
use siftdds::cdr::Endianness;
use siftdds::core::discovery::metatraffic_unicast_port;
use siftdds::core::writer::{MulticastConfig, MulticastMode};
use siftdds::filter::{Program, parse_parameters};
use siftdds::qos::{
    DataReaderQos, DataWriterQos, History, PublisherQos, Reliability, SubscriberQos, TopicQos,
};
use siftdds::types::{ShapeType, TopicType};
use siftdds::wire::Locator;

const COLORS: [&str; 5] = ["RED", "BLUE", "GREEN", "YELLOW", "ORANGE"];

/// Participant indices the builder's default unicast discovery reaches on this host (the
/// `DEFAULT_LOCAL_PEERS` of `api/participant.rs`).
const DEFAULT_LOCAL_PEERS: u32 = 60;

/// Positions per lap of each colour's path.
const PATH_STEPS: usize = 60;

/// Demo settings from the command line.
pub struct DemoOptions {
    /// Number of filtered subscribers.
    pub subscribers: usize,
    /// How long to publish.
    pub seconds: f64,
    /// Samples per second.
    pub rate: f64,
    /// DDS domain.
    pub domain: u32,
    /// Each sample passes exactly one subscriber (`x = %0` filters, x cycling).
    pub sparse: bool,
    /// Subscribers listen on the user multicast group too; discovery by multicast (sandbox).
    pub multicast: bool,
    /// `--interface`: the interface selection (overrides `SIFTDDS_INTERFACES`).
    pub interface: Option<String>,
    /// The writer's per-sample multicast/unicast choice (cost model or an override).
    pub plan: MulticastMode,
    /// Best-effort subscribers (default reliable): no GAPs or HEARTBEATs go to them, so the
    /// writer's traffic is the DATA alone (RTPS 2.5 §8.4.7.2, best-effort reader proxies).
    pub best_effort: bool,
}

impl Default for DemoOptions {
    fn default() -> Self {
        DemoOptions {
            subscribers: 50,
            seconds: 5.0,
            rate: 500.0,
            domain: 0,
            sparse: false,
            multicast: false,
            interface: None,
            plan: MulticastMode::Auto,
            best_effort: false,
        }
    }
}

/// Bytes of the ideal datagram for one delivered sample of `payload` bytes: RTPS header (20),
/// INFO_DST (16), INFO_TS (12), DATA header and fixed part (4 + 20), inline QoS with
/// PID_KEY_HASH (20), a one-signature PID_CONTENT_FILTER_INFO (4 + 28) and the sentinel (4),
/// then the payload. RTPS 2.5 §8.3.7.2, §9.4.5.3, §9.6.4.1.
fn ideal_datagram_len(payload: usize) -> usize {
    20 + 16 + 12 + 4 + 20 + 20 + 32 + 4 + payload
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

struct Subscriber {
    name: String,
    expression: String,
    parameters: Vec<String>,
    program: Program,
    reader: DataReader<ShapeType>,
    _participant: DomainParticipant,
    received: usize,
    expected: usize,
}

/// Runs the demo, printing to stdout. Returns false when a subscriber got the wrong samples.
pub fn run(o: &DemoOptions) -> Result<bool, Box<dyn std::error::Error>> {
    let out = &mut std::io::stdout();
    let net = match (o.multicast, &o.interface) {
        (true, _) => "multicast discovery, subscribers also on the user multicast group",
        (false, Some(_)) => "the selected interfaces, multicast discovery",
        (false, None) => "loopback-only, unicast discovery",
    };
    writeln!(
        out,
        "siftdds demo: 1 publisher, {} filtered subscribers, {:.1} s at {} samples/s, UDP on 127.0.0.1 ({net})",
        o.subscribers, o.seconds, o.rate
    )?;
    if o.sparse {
        writeln!(
            out,
            "sparse: subscriber i filters x = i, sample n has x = n mod {}: each sample passes exactly one subscriber",
            o.subscribers
        )?;
    } else {
        writeln!(
            out,
            "shapes: {} colours, each round a closed path of {PATH_STEPS} positions (the writer's table answers repeats)",
            COLORS.len()
        )?;
    }
    let builder = || {
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
        mode: o.plan,
        ..MulticastConfig::default()
    };
    let publisher = builder()
        .writer_multicast(plan)
        .entity_name("demo publisher")
        .build()?;
    eprintln!("siftdds: {}", publisher.network());
    let topic = publisher.create_topic::<ShapeType>("Square", TopicQos::default());
    let writer = publisher
        .create_publisher(PublisherQos::default())
        .create_datawriter(
            &topic,
            DataWriterQos {
                history: History::KeepAll,
                ..DataWriterQos::default()
            },
        )?;
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
        let literals = parse_parameters(&parameters)?;
        let program = Program::compile_expression(&expression, &literals, ShapeType::descriptor())?;
        subs.push(Subscriber {
            name: format!("sub{i:02}"),
            expression,
            parameters,
            program,
            reader,
            _participant: p,
            received: 0,
            expected: 0,
        });
    }
    write!(out, "discovery: waiting for {} matches ...", o.subscribers)?;
    out.flush()?;
    // Discovery among N + 1 participants takes longer with more of them.
    writer.wait_for_matched(
        o.subscribers,
        Duration::from_secs(30 + o.subscribers as u64),
    )?;
    writeln!(out, " done")?;

    let total = (o.seconds * o.rate).round() as usize;
    let period = Duration::from_secs_f64(1.0 / o.rate);
    let start = Instant::now();
    let mut ideal_bytes = 0usize;
    let mut shape = ShapeType {
        color: String::new(),
        x: 0,
        y: 0,
        shapesize: 20,
        additional_payload_size: vec![],
    };
    for n in 0..total {
        // Each colour moves round a closed path of PATH_STEPS positions, as the Shapes demo's
        // bouncing shapes do, so the same (colour, position, size) comes back every lap.
        let c = n % COLORS.len();
        let k = (n / COLORS.len()) % PATH_STEPS;
        shape.color = COLORS[c].to_string();
        shape.x = ((k * 4 + c * 13) % 240) as i32;
        shape.y = ((k * 9 + c * 7) % 270) as i32;
        shape.shapesize = (15 + 5 * ((c + k) % 6)) as i32;
        if o.sparse {
            shape.x = (n % o.subscribers.max(1)) as i32;
        }
        writer.write(&shape)?;
        let bytes = shape.serialize(Endianness::Little);
        for s in &mut subs {
            if s.program.evaluate(&bytes).unwrap_or(true) {
                s.expected += 1;
                ideal_bytes += ideal_datagram_len(bytes.len());
            }
        }
        if n % 100 == 0 || n + 1 == total {
            let got: usize = subs
                .iter_mut()
                .map(|s| {
                    s.received += s.reader.take().map_or(0, |v| v.len());
                    s.received
                })
                .sum();
            write!(
                out,
                "\rpublishing: {}/{} samples, {} deliveries",
                n + 1,
                total,
                got
            )?;
            out.flush()?;
        }
        if let Some(wait) = (start + period * (n as u32 + 1)).checked_duration_since(Instant::now())
        {
            std::thread::sleep(wait);
        }
    }
    writeln!(out)?;
    writer.wait_for_acknowledgments(Duration::from_secs(20))?;
    for s in &mut subs {
        let deadline = Instant::now() + Duration::from_secs(5);
        while s.received < s.expected && Instant::now() < deadline {
            s.received += s.reader.wait_take(Duration::from_millis(50))?.len();
        }
        s.received += s.reader.take()?.len();
    }

    let mut ok = true;
    writeln!(
        out,
        "\n{:<6} {:<52} {:>9} {:>9}",
        "reader", "filter", "received", "expected"
    )?;
    for s in &subs {
        let mark = if s.received == s.expected {
            ""
        } else {
            "  <-- MISMATCH"
        };
        ok &= s.received == s.expected;
        let filter = format!("{} {:?}", s.expression, s.parameters);
        writeln!(
            out,
            "{:<6} {:<52} {:>9} {:>9}{mark}",
            s.name, filter, s.received, s.expected
        )?;
    }
    let deliveries: usize = subs.iter().map(|s| s.received).sum();
    let stats = publisher.runtime_stats();
    let fs = writer.filter_stats()?;
    let f = fs.filter;
    let pct = |a: u64, b: u64| {
        if b == 0 {
            0.0
        } else {
            100.0 * a as f64 / b as f64
        }
    };
    let mut figures = BTreeMap::new();
    figures.insert("samples written", total.to_string());
    figures.insert("deliveries (sum over readers)", deliveries.to_string());
    figures.insert(
        "datagrams sent by the publisher",
        stats.datagrams_sent.to_string(),
    );
    figures.insert("bytes sent by the publisher", stats.bytes_sent.to_string());
    let ps = publisher.stats()?;
    figures.insert(
        "foreign-source submessages dropped / participants re-bound",
        format!("{} / {}", ps.foreign_source, ps.rebound),
    );
    figures.insert("filtered readers", fs.filtered_readers.to_string());
    figures.insert("DATA sent to filtered readers", fs.data_sent.to_string());
    figures.insert(
        "GAPs sent for filtered samples",
        fs.filter_gaps_sent.to_string(),
    );
    figures.insert(
        "samples multicast / unicast",
        format!(
            "{} / {} (per-sample choice)",
            fs.samples_multicast, fs.samples_unicast
        ),
    );
    figures.insert(
        "table lookups / hits / misses",
        format!(
            "{} / {} / {} ({:.1}% hit rate)",
            f.lookups,
            f.hits,
            f.misses,
            pct(f.hits, f.lookups)
        ),
    );
    figures.insert(
        "filter evaluations done / saved",
        format!("{} / {}", f.evaluations, f.evaluations_saved),
    );
    figures.insert(
        "writer: datagrams / bytes sent",
        format!("{} / {}", fs.datagrams_sent, fs.bytes_sent),
    );
    figures.insert(
        "writer: HEARTBEATs / GAPs sent",
        format!("{} / {}", fs.heartbeats_sent, fs.gaps_sent),
    );
    writeln!(out, "\nwriter:")?;
    for (k, v) in &figures {
        writeln!(out, "  {k:<34} {v}")?;
    }
    // Efficiency against the ideal: one DATA datagram (1-signature info) per delivered sample.
    // The writer's own traffic only (discovery is the participant's, counted above).
    let expected: usize = subs.iter().map(|s| s.expected).sum();
    let ratio = |a: u64, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    writeln!(
        out,
        "\nefficiency (writer traffic / ideal = one DATA datagram per delivered sample):"
    )?;
    writeln!(
        out,
        "  datagrams: {} / {} = {:.3}",
        fs.datagrams_sent,
        expected,
        ratio(fs.datagrams_sent, expected)
    )?;
    writeln!(
        out,
        "  bytes:     {} / {} = {:.3}",
        fs.bytes_sent,
        ideal_bytes,
        ratio(fs.bytes_sent, ideal_bytes)
    )?;
    writeln!(
        out,
        "\n{}",
        if ok {
            "every subscriber received exactly the samples its filter passes"
        } else {
            "SOME SUBSCRIBERS DIFFER (see MISMATCH)"
        }
    )?;
    Ok(ok)
}
