//! `siftdds spy`: joins a domain and prints, as they happen, discovery events (participants,
//! writers and readers appearing, changing and leaving; a reader's content filter with it)
//! and the samples of every topic matching `--topic` (size, writer, sequence number, key
//! hash, instance state, and the decoded fields when the type is known: the built-in
//! ShapeType, or the types of `--idl FILE`). `--filter` is a DDS-SQL condition evaluated here
//! on each sample of a known type. Runs until Ctrl-C, or for `--seconds`. Exit 0, or 2 on a
//! set-up error (bad IDL, a filter no known type accepts, no network).
//!
//! Must not: decode wire data itself (discovery gives the endpoints, the untyped readers of
//! `siftdds::api` the payloads, `siftdds::types::dynamic` the fields) or write anything on the
//! domain: its readers are the only entities it creates (one per topic, type and the QoS a
//! spied writer needs, `siftdds::api::reader_qos_matching`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use siftdds::api::{DiscoverySnapshot, DomainParticipant, UntypedDataReader, reader_qos_matching};
use siftdds::core::discovery::{ParticipantProxyData, PublicationData, SubscriptionData};
use siftdds::core::{CacheChange, ChangeKind};
use siftdds::filter::Program;
use siftdds::qos::{DataReaderQos, SubscriberQos};
use siftdds::types::dynamic::{self, DynamicValue};
use siftdds::types::{ShapeType, TypeDescriptor};
use siftdds::wire::{EntityId, Guid, GuidPrefix};

use crate::observe::{self, NetworkArgs};

/// `siftdds spy`: print discovery events and samples as they arrive.
#[derive(clap::Args, Clone, Debug)]
pub struct SpyArgs {
    #[command(flatten)]
    pub net: NetworkArgs,
    /// Stop after this many seconds (default: run until Ctrl-C).
    #[arg(short, long, value_parser = observe::seconds, value_name = "SECS", allow_negative_numbers = true)]
    pub seconds: Option<f64>,
    /// Only topics matching this glob (`Sq*`, `[A-C]?`); repeatable. Default: every topic.
    #[arg(short, long, value_name = "GLOB")]
    pub topic: Vec<String>,
    /// Decode the types defined in this IDL file (the built-in ShapeType is always known).
    #[arg(long, value_name = "FILE")]
    pub idl: Option<PathBuf>,
    /// With --idl: only this type of the file (fully qualified, `a::b::C`); it decodes the
    /// topics whose announced type name is NAME.
    #[arg(long = "type", value_name = "NAME", requires = "idl")]
    pub type_name: Option<String>,
    /// Show only samples passing this DDS-SQL condition (`x > 100 AND color = 'RED'`),
    /// evaluated here on samples of a known type; other samples are not shown.
    #[arg(short, long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// Print only discovery events, no samples (creates no readers).
    #[arg(long)]
    pub no_samples: bool,
    /// One JSON object per line instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Samples kept per instance by a spy reader between two polls.
const READER_DEPTH: u32 = 256;
/// How often the spy looks at discovery and takes samples.
const POLL: Duration = Duration::from_millis(20);
/// How often discovery is compared with what was printed.
const DISCOVERY_EVERY: Duration = Duration::from_millis(200);

/// A known type: its descriptor and, with `--filter`, the condition compiled for it (or why
/// it does not compile for this type).
struct Known {
    desc: TypeDescriptor,
    filter: Option<Result<Program, String>>,
}

/// Runs `siftdds spy`.
pub fn run(args: SpyArgs) -> ExitCode {
    let known = match known_types(&args) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("siftdds spy: {e}");
            return ExitCode::from(2);
        }
    };
    let globs = match args
        .topic
        .iter()
        .map(|g| glob::Pattern::new(g).map_err(|e| format!("--topic {g:?}: {e}")))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(g) => g,
        Err(e) => {
            eprintln!("siftdds spy: {e}");
            return ExitCode::from(2);
        }
    };
    // Ctrl-C ends the loop, so that the readers and the participant are deleted and
    // unannounced (DATA(r[UD]), DATA(p[UD])) instead of the peers waiting out our lease.
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = interrupted.clone();
    if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)) {
        eprintln!("siftdds spy: cannot catch Ctrl-C ({e}); it will end the process at once");
    }
    let participant = match observe::participant(&args.net, "siftdds spy") {
        Ok(p) => p,
        Err(e) => {
            eprintln!("siftdds spy: {e}");
            return ExitCode::from(2);
        }
    };
    let mut spy = Spy {
        args: &args,
        known,
        globs,
        start: Instant::now(),
        participant,
        shown: DiscoverySnapshot::default(),
        readers: Vec::new(),
        type_info: BTreeSet::new(),
        remote: BTreeMap::new(),
        warned: BTreeSet::new(),
        stdout_closed: false,
        interrupted,
    };
    match spy.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("siftdds spy: {e}");
            ExitCode::from(2)
        }
    }
}

/// ShapeType, and the IDL file's types; with `--filter`, the condition compiled for each
/// (an error when it compiles for none of them).
fn known_types(args: &SpyArgs) -> Result<Vec<Known>, String> {
    // The IDL file's types first: a type it defines wins over the built-in one of that name.
    let mut descs = Vec::new();
    if let Some(path) = &args.idl {
        let spec = siftdds::idl::parse_file(path, &[]).map_err(|e| e.to_string())?;
        match &args.type_name {
            Some(name) => {
                descs.push(siftdds::idl::descriptor(&spec, name).map_err(|e| e.to_string())?)
            }
            None => descs.extend(siftdds::idl::descriptors(&spec)),
        }
    }
    descs.push(ShapeType::descriptor().clone());
    let known: Vec<Known> = descs
        .into_iter()
        .map(|desc| {
            let filter = args.filter.as_ref().map(|f| {
                Program::compile_expression(f, &[], &desc).map_err(|e| format!("{f:?} {e}"))
            });
            Known { desc, filter }
        })
        .collect();
    if let Some(f) = &args.filter {
        if !known.iter().any(|k| matches!(k.filter, Some(Ok(_)))) {
            let why: Vec<String> = known
                .iter()
                .filter_map(|k| match &k.filter {
                    Some(Err(e)) => Some(format!("{}: {e}", k.desc.name)),
                    _ => None,
                })
                .collect();
            return Err(format!(
                "--filter {f:?} fits none of the known types ({})",
                why.join("; ")
            ));
        }
    }
    Ok(known)
}

/// Whether an announced type name is `name` (also when one of them has a leading `::`).
fn same_type(announced: &str, name: &str) -> bool {
    announced.trim_start_matches("::") == name.trim_start_matches("::")
}

/// One untyped reader and the writers it shows. It may also match other writers of its topic
/// (their QoS allowing), whose samples it ignores: the reader made for them shows them.
struct SpyReader {
    /// What the reader was created with: topic, type name, keyed, QoS, subscriber QoS.
    request: (String, String, bool, DataReaderQos, SubscriberQos),
    reader: UntypedDataReader,
    writers: BTreeSet<Guid>,
}

struct Spy<'a> {
    args: &'a SpyArgs,
    known: Vec<Known>,
    globs: Vec<glob::Pattern>,
    start: Instant,
    participant: DomainParticipant,
    /// What discovery events have been printed for.
    shown: DiscoverySnapshot,
    /// The spy's readers: one per topic, type and reader QoS that spied writers need.
    readers: Vec<SpyReader>,
    /// Followed writers whose type is not known locally but announced (PID_TYPE_INFORMATION,
    /// or Fast DDS 2.x's inline PID_TYPE_OBJECTV1): their types are asked for through
    /// TypeLookup.
    type_info: BTreeSet<Guid>,
    /// The types resolved so far, by writer.
    remote: BTreeMap<Guid, Known>,
    /// Topics whose "cannot decode / filter" notice was printed.
    warned: BTreeSet<String>,
    /// Stdout was closed: nothing more can be shown.
    stdout_closed: bool,
    /// Set by the Ctrl-C handler.
    interrupted: Arc<AtomicBool>,
}

impl Spy<'_> {
    fn run(&mut self) -> Result<(), siftdds::api::Error> {
        let end = self
            .args
            .seconds
            .map(|s| self.start + Duration::from_secs_f64(s));
        let mut next_discovery = self.start;
        loop {
            let now = Instant::now();
            if end.is_some_and(|e| now >= e)
                || self.stdout_closed
                || self.interrupted.load(Ordering::Relaxed)
            {
                return Ok(());
            }
            if now >= next_discovery {
                let snapshot = self.participant.discovery_snapshot()?;
                self.discovery(snapshot)?;
                next_discovery = now + DISCOVERY_EVERY;
            }
            let mut changes = Vec::new();
            for r in &self.readers {
                let (topic, type_name) = (&r.request.0, &r.request.1);
                for c in r.reader.take()? {
                    if r.writers.contains(&c.writer_guid) {
                        changes.push((topic.clone(), type_name.clone(), c));
                    }
                }
            }
            for (topic, type_name, c) in changes {
                self.sample(&topic, &type_name, &c);
            }
            std::thread::sleep(POLL);
        }
    }

    fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    fn topic_selected(&self, topic: &str) -> bool {
        self.globs.is_empty() || self.globs.iter().any(|g| g.matches(topic))
    }

    /// Prints one event; a closed stdout (`spy | head`) ends the spy.
    fn emit(&mut self, text: String, value: Value) {
        use std::io::Write;
        let line = if self.args.json {
            value.to_string()
        } else {
            format!("{:9.3}s {text}", self.elapsed())
        };
        if writeln!(std::io::stdout(), "{line}").is_err() {
            self.stdout_closed = true;
        }
    }

    /// Prints what changed since the last snapshot and follows new writers with readers.
    fn discovery(&mut self, now: DiscoverySnapshot) -> Result<(), siftdds::api::Error> {
        let old = std::mem::take(&mut self.shown);
        let t = self.elapsed();
        let by_prefix = |v: &[ParticipantProxyData]| -> BTreeMap<GuidPrefix, ParticipantProxyData> {
            v.iter().map(|p| (p.guid_prefix, p.clone())).collect()
        };
        let (was, is) = (by_prefix(&old.participants), by_prefix(&now.participants));
        for (prefix, p) in &is {
            if !was.contains_key(prefix) {
                self.emit(
                    format!("+ participant {prefix}  {}", observe::participant_text(p)),
                    json!({"t": t, "event": "participant", "change": "appeared",
                           "participant": observe::participant_json(p)}),
                );
            }
        }
        let writers = |v: &[PublicationData]| -> BTreeMap<Guid, PublicationData> {
            v.iter().map(|w| (w.guid, w.clone())).collect()
        };
        let (was_w, is_w) = (writers(&old.writers), writers(&now.writers));
        for (g, w) in &is_w {
            if !self.topic_selected(&w.topic_name) {
                continue;
            }
            let change = match was_w.get(g) {
                None => "appeared",
                Some(o) if o != w => "changed",
                Some(_) => continue,
            };
            self.emit(
                format!(
                    "{} writer {}  {:?} [{}]  {}",
                    if change == "appeared" { '+' } else { '~' },
                    observe::guid(*g),
                    w.topic_name,
                    w.type_name,
                    observe::writer_qos_text(w)
                ),
                json!({"t": t, "event": "writer", "change": change, "writer": observe::writer_json(w)}),
            );
            if !self.args.no_samples {
                // A changed writer may need another reader (its QoS or partitions moved).
                self.unfollow(*g);
                if let Err(e) = self.follow(w) {
                    eprintln!(
                        "siftdds spy: cannot read writer {} of {:?}: {e}",
                        observe::guid(*g),
                        w.topic_name
                    );
                }
            }
        }
        let readers = |v: &[SubscriptionData]| -> BTreeMap<Guid, SubscriptionData> {
            v.iter().map(|r| (r.guid, r.clone())).collect()
        };
        let (was_r, is_r) = (readers(&old.readers), readers(&now.readers));
        for (g, r) in &is_r {
            if !self.topic_selected(&r.topic_name) {
                continue;
            }
            let change = match was_r.get(g) {
                None => "appeared",
                Some(o) if o != r => "changed",
                Some(_) => continue,
            };
            let filter = r
                .content_filter
                .as_ref()
                .map(|f| format!("\n           filter {}", observe::filter_text(f)))
                .unwrap_or_default();
            self.emit(
                format!(
                    "{} reader {}  {:?} [{}]  {}{filter}",
                    if change == "appeared" { '+' } else { '~' },
                    observe::guid(*g),
                    r.topic_name,
                    r.type_name,
                    observe::reader_qos_text(r)
                ),
                json!({"t": t, "event": "reader", "change": change, "reader": observe::reader_json(r)}),
            );
        }
        for (g, r) in &was_r {
            if !is_r.contains_key(g) && self.topic_selected(&r.topic_name) {
                self.emit(
                    format!("- reader {}  {:?}", observe::guid(*g), r.topic_name),
                    json!({"t": t, "event": "reader", "change": "left", "reader": observe::reader_json(r)}),
                );
            }
        }
        for (g, w) in &was_w {
            if !is_w.contains_key(g) && self.topic_selected(&w.topic_name) {
                self.unfollow(*g);
                self.emit(
                    format!("- writer {}  {:?}", observe::guid(*g), w.topic_name),
                    json!({"t": t, "event": "writer", "change": "left", "writer": observe::writer_json(w)}),
                );
            }
        }
        for (prefix, p) in &was {
            if !is.contains_key(prefix) {
                self.emit(
                    format!("- participant {prefix}  {}", observe::participant_text(p)),
                    json!({"t": t, "event": "participant", "change": "left",
                           "participant": observe::participant_json(p)}),
                );
            }
        }
        self.shown = now;
        Ok(())
    }

    /// Shows `w`'s samples: with the reader already made for its topic, type and needs, else
    /// with a new one (QoS from `reader_qos_matching`).
    fn follow(&mut self, w: &PublicationData) -> Result<(), siftdds::api::Error> {
        let known_locally = self
            .known
            .iter()
            .any(|k| same_type(&w.type_name, &k.desc.name));
        let announced = w.type_information.is_some() || w.type_object_v1.is_some();
        // A TypeObject sent inline (Fast DDS 2.x, PID_TYPE_OBJECTV1) costs no request: it is
        // taken even for a type known here, as the writer's own description, unless
        // `--filter` needs the local type.
        let filtering = self.known.iter().any(|k| k.filter.is_some());
        let inline = w.type_object_v1.is_some() && !filtering;
        if (!known_locally || inline) && announced {
            // DDS-XTypes 1.3 §7.6.3.3: ask the writer's participant for its type (or take the
            // TypeObject Fast DDS 2.x sent inline, docs/types.md).
            if self.participant.request_writer_type(w.guid)? {
                self.type_info.insert(w.guid);
            }
        }
        let (qos, subscriber) = reader_qos_matching(w, READER_DEPTH);
        let keyed = w.guid.entity_id.kind() == EntityId::KIND_WRITER_WITH_KEY;
        let request = (
            w.topic_name.clone(),
            w.type_name.clone(),
            keyed,
            qos,
            subscriber,
        );
        if let Some(r) = self.readers.iter_mut().find(|r| r.request == request) {
            r.writers.insert(w.guid);
            return Ok(());
        }
        let reader = self
            .participant
            .create_subscriber(request.4.clone())
            .create_untyped_datareader(&request.0, &request.1, keyed, request.3.clone())?;
        self.readers.push(SpyReader {
            request,
            reader,
            writers: BTreeSet::from([w.guid]),
        });
        Ok(())
    }

    /// Stops showing `writer`; a reader left with no writer is deleted.
    fn unfollow(&mut self, writer: Guid) {
        for r in &mut self.readers {
            r.writers.remove(&writer);
        }
        self.type_info.remove(&writer);
        self.remote.remove(&writer);
        self.readers.retain(|r| !r.writers.is_empty());
    }

    /// Prints one sample, decoded and filtered when its type is known.
    fn sample(&mut self, topic: &str, type_name: &str, c: &CacheChange) {
        self.resolve_remote(c.writer_guid);
        // A writer's own type, when learnt, describes its payloads best (follow: only types
        // not known here, or sent inline, are learnt).
        let known = self.remote.get(&c.writer_guid).or_else(|| {
            self.known
                .iter()
                .find(|k| same_type(type_name, &k.desc.name))
        });
        let alive = c.kind == ChangeKind::Alive;
        let decoded = match known {
            Some(k) if alive => Some(dynamic::decode(&c.data, &k.desc)),
            _ => None,
        };
        if let Some(filter) = &self.args.filter {
            let verdict = match known.and_then(|k| k.filter.as_ref()) {
                _ if !alive => Ok(true),
                Some(Ok(program)) => program.evaluate(&c.data).map_err(|e| e.to_string()),
                Some(Err(e)) => Err(e.clone()),
                None => Err(format!("type {type_name} is not known (give --idl)")),
            };
            match verdict {
                Ok(true) => {}
                Ok(false) => return,
                Err(e) => {
                    if self.warned.insert(topic.to_string()) {
                        eprintln!(
                            "siftdds spy: topic {topic:?}: --filter {filter:?} cannot be \
                             evaluated ({e}); its samples are not shown"
                        );
                    }
                    return;
                }
            }
        }
        // Writers need not send PID_KEY_HASH (Cyclone does not): computed from the decoded key.
        let key_hash = c.key_hash.or_else(|| match (known, &decoded) {
            (Some(k), Some(Ok(v))) => dynamic::key_hash(v, &k.desc),
            _ => None,
        });
        let key = key_hash
            .map(|k| k.iter().map(|b| format!("{b:02x}")).collect::<String>())
            .unwrap_or_else(|| "-".into());
        let state = instance_state(c.kind);
        let (text_value, json_value, error) = match &decoded {
            Some(Ok(v)) => (format!("  {v}"), to_json(v), None),
            Some(Err(e)) => (format!("  ({e})"), Value::Null, Some(e.to_string())),
            None => (String::new(), Value::Null, None),
        };
        self.emit(
            format!(
                "{topic:?} #{} {state} {} B from {} key {key}{text_value}",
                c.sequence_number.0,
                c.data.len(),
                observe::guid(c.writer_guid)
            ),
            json!({
                "t": self.elapsed(), "event": "sample", "topic": topic, "type": type_name,
                "writer": observe::guid(c.writer_guid), "sn": c.sequence_number.0,
                "size": c.data.len(), "key_hash": key_hash.map(|_| key.clone()),
                "instance_state": state, "value": json_value, "decode_error": error,
            }),
        );
    }
}

impl Spy<'_> {
    /// Looks up the type of `writer` learnt through TypeLookup, once it is resolved.
    fn resolve_remote(&mut self, writer: Guid) {
        if self.remote.contains_key(&writer) {
            return;
        }
        if !self.type_info.contains(&writer) {
            return;
        }
        if let Ok(Some(desc)) = self.participant.remote_endpoint_type(writer) {
            self.remote.insert(writer, Known { desc, filter: None });
        }
    }
}

fn instance_state(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Alive => "ALIVE",
        ChangeKind::NotAliveDisposed => "DISPOSED",
        ChangeKind::NotAliveUnregistered => "UNREGISTERED",
        ChangeKind::NotAliveDisposedUnregistered => "DISPOSED+UNREGISTERED",
        ChangeKind::NotAliveNoWriters => "NO_WRITERS",
    }
}

/// A decoded value as JSON (absent members as `null`; 64-bit integers stay exact).
fn to_json(v: &DynamicValue) -> Value {
    match v {
        DynamicValue::Bool(b) => json!(b),
        DynamicValue::Char(c) => json!(c.to_string()),
        DynamicValue::Int(i) => json!(i),
        DynamicValue::UInt(u) => json!(u),
        DynamicValue::Float(x) => json!(x),
        DynamicValue::Str(s) => json!(s),
        DynamicValue::Enum { label, value } => match label {
            Some(l) => json!(l),
            None => json!(value),
        },
        DynamicValue::Struct(members) => Value::Object(
            members
                .iter()
                .map(|(n, v)| (n.clone(), v.as_ref().map_or(Value::Null, to_json)))
                .collect(),
        ),
        DynamicValue::Seq(items) => Value::Array(items.iter().map(to_json).collect()),
    }
}
