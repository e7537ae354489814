//! `shape_main`: the OMG dds-rtps interoperability harness's Shapes application on siftdds.
//!
//! The harness (`interoperability_report.py`) starts one publisher (`-P`) and one or more
//! subscribers (`-S`) and reads their stdout through a pipe, matching, in order:
//! `Create topic:`, `Create writer for topic` / `Create reader for topic:` (or
//! `failed to create content filtered topic`), `on_publication_matched()` /
//! `on_offered_incompatible_qos` / `on_requested_incompatible_qos()`, then sample lines
//! `printf("%-10s %-10s %03d %03d [%d]")`. Every line is flushed as soon as it is written.
//! Options, defaults, output formats and exit codes (1 bad arguments, 2 initialisation
//! failed, 3 run failed) follow the harness's `srcCxx/shape_main.cxx` and `srcC/shape_main.c`.
//!
//! Every option of the OMG suite runs as the vendors' applications run it (nothing prints
//! `not supported`); `-R` reads with ANY_SAMPLE_STATE, as `dds_read` in `srcC/shape_main.c`
//! does, so a sample not taken yet is printed again by the next read.
//!
//! Must not: write anything but the harness's lines to stdout (the start-up line naming the
//! network scope and the announced addresses goes to stderr).
//!
//! Network: loopback only unless `--interface LIST` or `SIFTDDS_INTERFACES` selects
//! interfaces (inside `netns-run`/`netns-sites`: `auto`); see README, "Running across
//! machines".
//!
//! # Overview
//! - One participant, `--num-topics` topics (`Square`, `Square1`, ...), one writer or reader
//!   per topic. Status events come from [`DomainParticipant::wait_event`], which is also how
//!   the loops sleep between writes/takes, so match lines appear promptly.
//! - Subscriber content filters (`-c`, `--cft`) are checked with the reference evaluator of
//!   `siftdds::filter` (a filter it cannot apply to `ShapeType` fails the reader's creation)
//!   and announced with `create_filtered_datareader`. The core applies them on delivery
//!   unless the writer already did and said so (PID_CONTENT_FILTER_INFO, RTPS 2.5 §8.7.3.3).
//! - Instance states: the reader keeps, per instance (key hash), its color, the writers that
//!   wrote it and whether it is alive, so a dispose (which carries no data) can be printed with
//!   its color, and NOT_ALIVE_NO_WRITERS is printed when the last writer unregisters or the
//!   reader reports the instance has no writers left (`ChangeKind::NotAliveNoWriters`).
//! - QoS: a profile from `--qos-file`/`--qos-profile` (or the harness's defaults) overridden
//!   by the QoS options the command line names (see `qos.rs`); `-x 2` writes and accepts
//!   XCDR2 (the writer's DATA_REPRESENTATION picks the encoding).
//! - Instance QoS is the core's: `-f` prints `on_offered_deadline_missed()` /
//!   `on_requested_deadline_missed()` from the deadline events, `--lifespan`,
//!   `--time-filter` and `-s` (EXCLUSIVE ownership on a subscriber) are plain QoS, `-R`
//!   uses `DataReader::read` (each sample is returned once).
//! - PRESENTATION (`presentation.rs`): `--access-scope`, `--coherent`, `--ordered` set the
//!   Publisher and Subscriber policy; with `--coherent-sample-count n` the publisher wraps
//!   every `n` iterations in `begin_coherent_changes`/`end_coherent_changes` ("Started /
//!   Finished Coherent Set"), and the subscriber prints "Reading coherent sets" / "Reading
//!   with ordered access, iteration n" before each read, as the harness expects.

// An application, not the sans-IO core: it reads the clock to pace writes and reads
// (clippy.toml's disallowed `Instant::now`/`SystemTime::now` protect the layers below `runtime`).
// A command-line tool: it reads the clock and sleeps, and it is not a parse path (what peers
// send is decoded by siftdds-proto, under the workspace's parse-path lints).
#![allow(
    clippy::disallowed_methods,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

mod instances;
mod options;
mod presentation;
mod qos;
mod shape;
mod status;

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use siftdds::api::{DataReader, DataWriter, DomainParticipant, Sample, Topic};
use siftdds::qos::ReliabilityKind;
use siftdds::types::{ShapeType, TopicType};
use siftdds::wire::Guid;

use instances::{Instances, Transition};
use options::{FinalState, Options, Parsed};
use presentation::PresentationArgs;
use qos::QosBase;
use shape::{Motion, Rng, ShapeFilter};

/// Exit code for bad arguments (harness `ERROR_PARSING_ARGUMENTS`).
const EXIT_ARGS: i32 = 1;
/// Exit code when entities cannot be created (harness `ERROR_INITIALIZING`).
const EXIT_INIT: i32 = 2;
/// Exit code when the run fails (harness `ERROR_RUNNING`).
const EXIT_RUN: i32 = 3;

/// Longest single wait, so that SIGINT/SIGTERM are noticed promptly.
const POLL_SLICE: Duration = Duration::from_millis(50);
/// How long a publisher that finished its iterations waits for reliable readers to
/// acknowledge before deleting its writers.
const FINAL_ACK_WAIT: Duration = Duration::from_secs(2);

/// Set by the signal handler; every loop checks it.
static STOP: AtomicBool = AtomicBool::new(false);

// `signal(2)` from the C library std already links: the one `unsafe` of this program, so that
// SIGINT (the harness's way of stopping us) and SIGTERM end the loops cleanly without adding
// a dependency. The handler only stores to an atomic, which is async-signal-safe.
unsafe extern "C" {
    fn signal(signum: i32, handler: extern "C" fn(i32)) -> usize;
}

/// SIGINT on Linux.
const SIGINT: i32 = 2;
/// SIGTERM on Linux.
const SIGTERM: i32 = 15;

extern "C" fn on_signal(_signum: i32) {
    STOP.store(true, Ordering::SeqCst);
}

fn install_signal_handlers() {
    // SAFETY: `on_signal` is an `extern "C" fn(i32)` that only stores to an atomic; replacing
    // the default disposition of SIGINT/SIGTERM has no other effect on this process.
    unsafe {
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
    }
}

fn stopping() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// Prints one line and flushes (the harness reads us through a pipe). A closed pipe ends
/// the run.
fn out(line: &str) {
    let mut stdout = std::io::stdout().lock();
    if writeln!(stdout, "{line}")
        .and_then(|()| stdout.flush())
        .is_err()
    {
        STOP.store(true, Ordering::SeqCst);
    }
}

fn main() {
    install_signal_handlers();
    let code = run();
    std::process::exit(code);
}

/// Logs to stderr: `RUST_LOG` as usual (default ERROR, `-v e`); `-v d` raises the default
/// to DEBUG (module directives in `RUST_LOG` still apply).
fn install_logger(debug: bool) {
    let mut b =
        env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("error"));
    if debug {
        b.filter_level(log::LevelFilter::Debug);
    }
    let _ = b.try_init();
}

fn run() -> i32 {
    let mut args = std::env::args();
    let prog = args.next().unwrap_or_else(|| "shape_main".to_string());
    let args: Vec<String> = args.collect();
    let opts = match options::parse(&args) {
        Ok(Parsed::Run(o)) => *o,
        Ok(Parsed::Help) => {
            out(&options::usage(&prog));
            return 0;
        }
        Ok(Parsed::Version(v)) => {
            out(v.trim_end());
            return 0;
        }
        Err(msg) => {
            out(&msg);
            out(&options::usage(&prog));
            return EXIT_ARGS;
        }
    };
    install_logger(opts.debug);
    for w in opts.warnings() {
        out(&w);
    }
    if opts.debug {
        out(&format!("Shape Options: {opts:#?}"));
    }
    // A file or profile that cannot be used: `FILE:LINE:COL: what is wrong`, before any socket.
    let topic_names: Vec<String> = (0..opts.num_topics)
        .map(|i| match i {
            0 => opts.topic.clone(),
            _ => format!("{}{i}", opts.topic),
        })
        .collect();
    let (base, participant_qos) = match QosBase::load(&opts).and_then(|b| {
        let qos = b.participant()?;
        b.preflight(&opts, &topic_names)?;
        Ok((b, qos))
    }) {
        Ok(loaded) => loaded,
        Err(e) => {
            out(&e);
            return EXIT_INIT;
        }
    };
    let mut builder = DomainParticipant::builder(opts.domain).qos(participant_qos);
    if opts.periodic_announcement_ms > 0 {
        builder = builder.announce_period(Duration::from_millis(opts.periodic_announcement_ms));
    }
    if let Some(list) = &opts.interface {
        builder = builder.interfaces([list]);
    }
    let participant = match builder.build() {
        Ok(p) => p,
        Err(e) => {
            out(&format!("failed to create participant: {e}"));
            return EXIT_INIT;
        }
    };
    eprintln!("siftdds: {}", participant.network());
    // docs/peer-group-cache.md: the profile's peer groups, before any writer exists.
    let groups = base.peer_groups();
    if let Err(e) = groups.and_then(|g| participant.set_peer_groups(g).map_err(|e| e.to_string())) {
        out(&e);
        return EXIT_INIT;
    }
    let mut app = App::new(participant, opts, base);
    let mut topics: Vec<Topic<ShapeType>> = Vec::new();
    for name in topic_names {
        out(&format!("Create topic: {name}"));
        let qos = match app.base.topic(&name) {
            Ok(q) => q,
            Err(e) => {
                out(&e);
                return EXIT_INIT;
            }
        };
        topics.push(app.participant.create_topic::<ShapeType>(&name, qos));
        app.topic_names.push(name);
    }
    let code = if app.opts.publish {
        app.run_publisher(&topics)
    } else {
        app.run_subscriber(&topics)
    };
    if code == 0 {
        out("Done.");
    }
    code
}

/// The application: participant, options, and what the status lines need.
struct App {
    participant: DomainParticipant,
    opts: Options,
    /// Where the entities' QoS come from before the command line's overrides.
    base: QosBase,
    topic_names: Vec<String>,
    /// Local writer or reader → topic index.
    endpoints: HashMap<Guid, usize>,
    /// Local writer or reader → current matched count.
    matched: HashMap<Guid, i64>,
    /// The subscriber's instance states.
    instances: Instances,
    /// Local writer or reader → missed deadlines so far (total_count).
    deadline_missed: HashMap<Guid, u64>,
}

impl App {
    fn new(participant: DomainParticipant, opts: Options, base: QosBase) -> Self {
        App {
            participant,
            opts,
            base,
            topic_names: Vec::new(),
            endpoints: HashMap::new(),
            matched: HashMap::new(),
            instances: Instances::default(),
            deadline_missed: HashMap::new(),
        }
    }

    fn topic_of(&self, endpoint: &Guid) -> Option<&str> {
        self.endpoints
            .get(endpoint)
            .and_then(|i| self.topic_names.get(*i))
            .map(String::as_str)
    }

    fn debug(&self, line: &str) {
        if self.opts.debug {
            out(line);
        }
    }

    /// Waits `period` while printing status events; returns early on a signal. `Err` when the
    /// participant stopped.
    fn pause(&mut self, period: Duration) -> Result<(), ()> {
        let deadline = Instant::now() + period;
        loop {
            if stopping() {
                return Ok(());
            }
            let remaining = deadline.saturating_duration_since(Instant::now());
            let event = if remaining.is_zero() {
                self.participant.poll_event()
            } else {
                self.participant.wait_event(remaining.min(POLL_SLICE))
            };
            match event {
                Ok(Some(e)) => self.handle_event(e),
                Ok(None) if remaining.is_zero() => return Ok(()),
                Ok(None) => {}
                Err(e) => {
                    out(&format!("participant failed: {e}"));
                    return Err(());
                }
            }
        }
    }

    // ---- publisher ----

    fn run_publisher(&mut self, topics: &[Topic<ShapeType>]) -> i32 {
        let publisher = match self.base.publisher(&self.opts) {
            Ok(q) => self.participant.create_publisher(q),
            Err(e) => {
                out(&e);
                return EXIT_INIT;
            }
        };
        let color = self
            .opts
            .color
            .clone()
            .unwrap_or_else(|| "BLUE".to_string());
        let mut writers: Vec<DataWriter<ShapeType>> = Vec::new();
        let mut reliable = false;
        for (i, topic) in topics.iter().enumerate() {
            out(&format!(
                "Create writer for topic: {} color: {color}",
                topic.name()
            ));
            let qos = match self.base.writer(&self.opts, topic.name()) {
                Ok(q) => q,
                Err(e) => {
                    out(&e);
                    return EXIT_INIT;
                }
            };
            reliable |= qos.reliability.kind == ReliabilityKind::Reliable;
            let created = if self.opts.datafrag_size > 0 {
                let size = usize::try_from(self.opts.datafrag_size).unwrap_or(usize::MAX);
                publisher.create_datawriter_with_fragment_size(topic, qos, size)
            } else {
                publisher.create_datawriter(topic, qos)
            };
            match created {
                Ok(w) => {
                    self.endpoints.insert(w.guid(), i);
                    writers.push(w);
                }
                Err(e) => {
                    out(&format!(
                        "failed to create datawriter[{i}] topic: {}: {e}",
                        topic.name()
                    ));
                    return EXIT_INIT;
                }
            }
        }
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
            ^ (u64::from(std::process::id()) << 32);
        let mut motion = Motion::random(&mut Rng::new(seed));
        let mut payload =
            vec![0u8; usize::try_from(self.opts.additional_payload_size).unwrap_or(0)];
        if let Some(last) = payload.last_mut() {
            *last = 255;
        }
        let colors: Vec<String> = (0..self.opts.num_instances)
            .map(|j| {
                if j == 0 {
                    color.clone()
                } else {
                    format!("{color}{j}")
                }
            })
            .collect();
        let presentation = PresentationArgs::from(&self.opts);
        let mut n: u64 = 0;
        while !stopping() {
            motion.step();
            let size = shape::shapesize(self.opts.shapesize, self.opts.size_modulo, n);
            if presentation.starts_set(n) {
                out("Started Coherent Set");
                if let Err(e) = publisher.begin_coherent_changes() {
                    out(&format!("begin_coherent_changes failed: {e}"));
                }
            }
            for (writer, name) in writers.iter().zip(&self.topic_names) {
                for c in &colors {
                    let sample = ShapeType {
                        color: c.clone(),
                        x: motion.x,
                        y: motion.y,
                        shapesize: size,
                        additional_payload_size: payload.clone(),
                    };
                    if let Err(e) = writer.write(&sample) {
                        self.debug(&format!("write failed: {e}"));
                    }
                    if self.opts.print_writer_samples {
                        out(&shape::sample_line(name, &sample));
                    }
                }
            }
            if presentation.ends_set(n) {
                out("Finished Coherent Set");
                if let Err(e) = publisher.end_coherent_changes() {
                    out(&format!("end_coherent_changes failed: {e}"));
                }
            }
            if self
                .pause(Duration::from_millis(self.opts.write_period_ms))
                .is_err()
            {
                return EXIT_RUN;
            }
            n += 1;
            if self.opts.num_iterations != 0 && n >= self.opts.num_iterations {
                break;
            }
        }
        if let Some(state) = self.opts.final_state {
            for writer in &writers {
                for c in &colors {
                    let key = ShapeType {
                        color: c.clone(),
                        ..ShapeType::default()
                    };
                    let done = match state {
                        FinalState::Unregister => writer.unregister_instance(&key),
                        FinalState::Dispose => writer.dispose(&key),
                    };
                    if let Err(e) = done {
                        out(&format!("failed to {state:?} instance {c}: {e}"));
                    }
                }
            }
        }
        if !stopping() && reliable {
            // Let reliable readers catch up before the writers are deleted.
            for writer in &writers {
                let _ = writer.wait_for_acknowledgments(FINAL_ACK_WAIT);
            }
        }
        0
    }

    // ---- subscriber ----

    fn run_subscriber(&mut self, topics: &[Topic<ShapeType>]) -> i32 {
        let subscriber = match self.base.subscriber(&self.opts) {
            Ok(q) => self.participant.create_subscriber(q),
            Err(e) => {
                out(&e);
                return EXIT_INIT;
            }
        };
        // The harness's filters: `-c` is `color = %0` with the quoted color (as RTI and Fast
        // DDS send it), `--cft` an expression without parameters.
        let filter_spec: Option<(String, Vec<String>)> = match (&self.opts.color, &self.opts.cft) {
            (Some(c), _) => Some(("color = %0".to_string(), vec![format!("'{c}'")])),
            (None, Some(expr)) => Some((expr.clone(), Vec::new())),
            (None, None) => None,
        };
        let mut readers: Vec<DataReader<ShapeType>> = Vec::new();
        for (i, topic) in topics.iter().enumerate() {
            let qos = match self.base.reader(&self.opts, topic.name()) {
                Ok(q) => q,
                Err(e) => {
                    out(&e);
                    return EXIT_INIT;
                }
            };
            let created = match &filter_spec {
                None => {
                    out(&format!("Create reader for topic: {}", topic.name()));
                    subscriber.create_datareader(topic, qos)
                }
                Some((expr, params)) => {
                    // Rejected here as the other vendors' apps do; applied by the core.
                    match ShapeFilter::new(expr, params) {
                        Ok(_) => {}
                        Err(reason) => {
                            out("failed to create content filtered topic");
                            let _ = writeln!(std::io::stderr(), "filter {expr:?}: {reason}");
                            return EXIT_INIT;
                        }
                    };
                    let cft_name = format!("{}_filtered", topic.name());
                    match &self.opts.color {
                        Some(c) => out(&format!("Create reader for topic: {cft_name} color: {c}")),
                        None => out(&format!("Create reader for topic: {cft_name}")),
                    }
                    let p: Vec<&str> = params.iter().map(String::as_str).collect();
                    subscriber.create_filtered_datareader(topic, &cft_name, expr, &p, qos)
                }
            };
            match created {
                Ok(r) => {
                    self.endpoints.insert(r.guid(), i);
                    readers.push(r);
                }
                Err(siftdds::api::Error::Usage(siftdds::api::UsageError::ContentFilter(
                    reason,
                ))) => {
                    // Does not type-check against ShapeType (e.g. `x = 'abc'`).
                    out("failed to create content filtered topic");
                    let expr = filter_spec.as_ref().map_or("", |(e, _)| e.as_str());
                    let _ = writeln!(std::io::stderr(), "filter {expr:?}: {reason}");
                    return EXIT_INIT;
                }
                Err(e) => {
                    out(&format!(
                        "failed to create datareader[{i}] topic: {}: {e}",
                        topic.name()
                    ));
                    return EXIT_INIT;
                }
            }
        }
        let presentation = PresentationArgs::from(&self.opts);
        let mut n: u64 = 0;
        while !stopping() {
            for line in presentation.reading_lines(n) {
                out(&line);
            }
            let batches = match presentation.take(&subscriber, &readers, self.opts.use_read) {
                Ok(b) => b,
                Err(e) => {
                    out(&format!("read/take failed: {e}"));
                    return EXIT_RUN;
                }
            };
            for (i, mut samples) in batches.into_iter().enumerate() {
                if !self.opts.take_read {
                    // take_next_instance(): the samples of one instance after another (in key
                    // hash order; the batch keeps each instance's own order).
                    samples.sort_by_key(instance_key);
                }
                for s in samples {
                    self.on_sample(i, s);
                }
            }
            n += 1;
            if self.opts.num_iterations != 0 && n >= self.opts.num_iterations {
                break;
            }
            if self
                .pause(Duration::from_millis(self.opts.read_period_ms))
                .is_err()
            {
                return EXIT_RUN;
            }
        }
        0
    }

    fn on_sample(&mut self, topic: usize, s: Sample<ShapeType>) {
        let name = self.topic_names.get(topic).cloned().unwrap_or_default();
        let key_hash = s.key_hash();
        if let Some(v) = s.value {
            out(&shape::sample_line(&name, &v));
            if let Some(key) = key_hash.or_else(|| v.key_hash()) {
                self.instances
                    .alive(topic, key, &v.color, s.info.publication_handle);
            }
            return;
        }
        match self
            .instances
            .not_alive(topic, key_hash, s.info.publication_handle, s.kind)
        {
            Transition::Now(color, state) => out(&shape::state_line(&name, &color, state)),
            Transition::Unchanged => {}
            Transition::Unknown => {
                self.debug(&format!(
                    "{:?} for an unknown instance from {}",
                    s.kind, s.info.publication_handle
                ));
            }
        }
    }
}

/// The grouping key of take_next_instance emulation: the key hash (samples without one last).
fn instance_key(s: &Sample<ShapeType>) -> (bool, [u8; 16]) {
    let key = s
        .key_hash()
        .or_else(|| s.value.as_ref().and_then(TopicType::key_hash));
    (key.is_none(), key.unwrap_or_default())
}
