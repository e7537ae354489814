//! The clap description of `shape_main`'s command line: the OMG dds-rtps harness's options
//! (`srcCxx/shape_main.cxx`, `srcC/shape_main.c`) with getopt's habits kept: bundled short
//! flags (`-Pwb`), attached values (`-tSquare`), `--long=value`, unambiguous abbreviations
//! of long options (`--num-it 5`, as `getopt_long`), a repeated option taking its last value,
//! negative numbers as values (`-s -1`). `-h`/`--help` print the harness's
//! usage text (`options::usage`), not clap's.
//!
//! Must not: decide defaults the profile should decide (QoS options stay `None` unless
//! named), panic, or touch the network or the file system.

use clap::{ArgAction, Parser};

use super::{DurabilityArg, FinalState, MAX_MS, Options, number};

fn non_empty(what: &'static str) -> impl Fn(&str) -> Result<String, String> + Clone {
    move |v: &str| {
        if v.is_empty() {
            Err(format!("incorrect value for {what} (empty)"))
        } else {
            Ok(v.to_string())
        }
    }
}

fn ranged<T: TryFrom<i64> + Clone + Send + Sync + 'static>(
    what: &'static str,
    min: i64,
    max: i64,
) -> impl Fn(&str) -> Result<T, String> + Clone {
    move |v: &str| number::<T>(v, what, min, max)
}

fn durability(v: &str) -> Result<DurabilityArg, String> {
    Ok(match v {
        "v" => DurabilityArg::Volatile,
        "l" => DurabilityArg::TransientLocal,
        "t" => DurabilityArg::Transient,
        "p" => DurabilityArg::Persistent,
        _ => return Err(format!("unrecognized value for durability {v}")),
    })
}

fn representation(v: &str) -> Result<u8, String> {
    match v {
        "1" => Ok(1),
        "2" => Ok(2),
        _ => Err(format!("unrecognized value for data representation {v}")),
    }
}

fn verbosity(v: &str) -> Result<bool, String> {
    match v {
        "d" => Ok(true),
        "e" => Ok(false),
        _ => Err(format!("unrecognized value for verbosity {v}")),
    }
}

fn final_state(v: &str) -> Result<FinalState, String> {
    match v {
        "u" => Ok(FinalState::Unregister),
        "d" => Ok(FinalState::Dispose),
        _ => Err(format!("unrecognized value for final-instance-state {v}")),
    }
}

fn access_scope(v: &str) -> Result<char, String> {
    match v {
        "i" => Ok('i'),
        "t" => Ok('t'),
        "g" => Ok('g'),
        _ => Err(format!("unrecognized value for access-scope {v}")),
    }
}

/// The command line as clap reads it; [`Cli::into_options`] gives the [`Options`].
#[derive(Parser, Debug)]
#[command(
    name = "shape_main",
    version,
    disable_help_flag = true,
    disable_version_flag = true
)]
#[command(
    args_override_self = true,
    allow_negative_numbers = true,
    infer_long_args = true
)]
pub struct Cli {
    #[arg(short = 'h', long = "help", action = ArgAction::SetTrue)]
    pub help: bool,
    #[arg(long = "version", action = ArgAction::Version)]
    version: Option<bool>,
    #[arg(short = 'v', value_parser = verbosity)]
    debug: Option<bool>,
    #[arg(short = 'P')]
    publish: bool,
    #[arg(short = 'S')]
    subscribe: bool,
    #[arg(short = 'd', value_parser = ranged::<u32>("domain_id", 0, i64::from(u32::MAX)))]
    domain: Option<u32>,
    #[arg(short = 'b', overrides_with = "reliable")]
    best_effort: bool,
    #[arg(short = 'r', overrides_with = "best_effort")]
    reliable: bool,
    #[arg(short = 'k', value_parser = ranged::<u32>("history_depth", 0, i64::from(i32::MAX)))]
    history_depth: Option<u32>,
    #[arg(short = 'f', value_parser = ranged::<u64>("deadline_interval", 0, MAX_MS))]
    deadline_ms: Option<u64>,
    #[arg(short = 's', value_parser = ranged::<i32>("ownership_strength", -1, i64::from(i32::MAX)))]
    ownership_strength: Option<i32>,
    #[arg(short = 't', value_parser = non_empty("topic name"))]
    topic: Option<String>,
    #[arg(short = 'c')]
    color: Option<String>,
    #[arg(short = 'p')]
    partition: Option<String>,
    #[arg(short = 'D', value_parser = durability)]
    durability: Option<DurabilityArg>,
    #[arg(short = 'x', value_parser = representation)]
    data_representation: Option<u8>,
    #[arg(short = 'w')]
    print_writer_samples: bool,
    #[arg(short = 'z', value_parser = ranged::<i32>("shapesize", 0, i64::from(i32::MAX)))]
    shapesize: Option<i32>,
    #[arg(short = 'R')]
    use_read: bool,
    #[arg(long, value_parser = ranged::<u64>("write-period", 0, MAX_MS))]
    write_period: Option<u64>,
    #[arg(long, value_parser = ranged::<u64>("read-period", 0, MAX_MS))]
    read_period: Option<u64>,
    #[arg(long, value_parser = ranged::<u64>("time-filter", 0, MAX_MS))]
    time_filter: Option<u64>,
    #[arg(long, value_parser = ranged::<u64>("lifespan", 0, MAX_MS))]
    lifespan: Option<u64>,
    #[arg(long, value_parser = ranged::<u64>("num-iterations", 1, i64::MAX))]
    num_iterations: Option<u64>,
    #[arg(long, value_parser = ranged::<u32>("num-instances", 1, 10_000))]
    num_instances: Option<u32>,
    #[arg(long, value_parser = ranged::<u32>("num-topics", 1, 1_000))]
    num_topics: Option<u32>,
    #[arg(long, value_parser = final_state)]
    final_instance_state: Option<FinalState>,
    #[arg(long, value_parser = access_scope)]
    access_scope: Option<char>,
    #[arg(long)]
    coherent: bool,
    #[arg(long)]
    ordered: bool,
    #[arg(long, value_parser = ranged::<u32>("coherent-sample-count", 2, i64::from(u32::MAX)))]
    coherent_sample_count: Option<u32>,
    /// A sample must fit the 64 MiB the CDR layer accepts; 16 MiB is plenty for tests.
    #[arg(long, value_parser = ranged::<u32>("additional-payload-size", 1, 16 << 20))]
    additional_payload_size: Option<u32>,
    #[arg(long)]
    take_read: bool,
    #[arg(long, value_parser = ranged::<u64>("periodic-announcement", 0, MAX_MS))]
    periodic_announcement: Option<u64>,
    #[arg(long, value_parser = ranged::<u32>("datafrag-size", 0, 65_535))]
    datafrag_size: Option<u32>,
    #[arg(long, allow_hyphen_values = true)]
    cft: Option<String>,
    #[arg(long, value_parser = ranged::<u32>("size-modulo", 1, i64::from(i32::MAX)))]
    size_modulo: Option<u32>,
    #[arg(long = "qos-file", action = ArgAction::Append, value_parser = non_empty("qos-file"))]
    qos_files: Vec<String>,
    #[arg(long, value_parser = non_empty("qos-profile"))]
    qos_profile: Option<String>,
    #[arg(long, value_parser = non_empty("interface"))]
    interface: Option<String>,
}

impl Cli {
    /// The options, the harness's defaults where the command line names nothing.
    pub fn into_options(self) -> Options {
        let d = Options::default();
        Options {
            publish: self.publish,
            subscribe: self.subscribe,
            topic: self.topic.unwrap_or(d.topic),
            domain: self.domain.unwrap_or(d.domain),
            reliable: match (self.reliable, self.best_effort) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            },
            history_depth: self.history_depth,
            deadline_ms: self.deadline_ms,
            ownership_strength: self.ownership_strength,
            color: self.color,
            cft: self.cft,
            partition: self.partition,
            durability: self.durability,
            data_representation: self.data_representation,
            print_writer_samples: self.print_writer_samples,
            shapesize: self.shapesize.unwrap_or(d.shapesize),
            size_modulo: self.size_modulo.unwrap_or(d.size_modulo),
            use_read: self.use_read,
            write_period_ms: self.write_period.unwrap_or(d.write_period_ms),
            read_period_ms: self.read_period.unwrap_or(d.read_period_ms),
            time_filter_ms: self.time_filter,
            lifespan_ms: self.lifespan,
            num_iterations: self.num_iterations.unwrap_or(d.num_iterations),
            num_instances: self.num_instances.unwrap_or(d.num_instances),
            num_topics: self.num_topics.unwrap_or(d.num_topics),
            final_state: self.final_instance_state,
            access_scope: self.access_scope,
            coherent: self.coherent,
            ordered: self.ordered,
            coherent_sample_count: self
                .coherent_sample_count
                .unwrap_or(d.coherent_sample_count),
            additional_payload_size: self
                .additional_payload_size
                .unwrap_or(d.additional_payload_size),
            take_read: self.take_read,
            periodic_announcement_ms: self
                .periodic_announcement
                .unwrap_or(d.periodic_announcement_ms),
            datafrag_size: self.datafrag_size.unwrap_or(d.datafrag_size),
            debug: self.debug.unwrap_or(d.debug),
            qos_files: self.qos_files,
            qos_profile: self.qos_profile,
            interface: self.interface,
        }
    }
}
