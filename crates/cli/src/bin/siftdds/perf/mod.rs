//! `siftdds perf pub|sub|ping|pong`: a `ddsperf`-class measuring tool. Same topics and type as
//! Cyclone's `ddsperf` (`DDSPerf{R,U}{Data,Ping,Pong}KS`, type `KeyedSeq`, default partition;
//! the pong reader sits in a partition named after the pinging participant's GUID, as
//! `ddsperf` does), so either side can be `ddsperf`.
//!
//! Must not: open sockets outside the network sandbox (the transport refuses), or report a
//! figure it did not measure.
//!
//! # Overview
//! * `pub` writes KeyedSeq samples of `--size` bytes (the 12-byte fixed part included, as
//!   `ddsperf`'s `size`) as fast as possible or at `--rate`, for `--duration` seconds or
//!   `--count` samples; with `--count` it then waits until every reader acknowledged.
//! * `sub` takes samples and counts gaps in each (writer, key)'s sequence numbers as lost.
//! * `ping` writes one sample, waits for its echo, repeats; `pong` echoes every ping.
//! * `udp-ping` / `udp-pong` do the same with bare UDP datagrams of `--size` bytes on
//!   127.0.0.1: the raw-UDP round trip the latency goal is measured against; `udp-relay`
//!   passes them between the two (`udp-ping --via-relay`): what a forwarder that only
//!   receives and sends adds to a round trip, the floor of a router's hop.
//!
//! * `--qos-file` / `--qos-profile`: the participant QoS from a QoS profile, e.g. the DDS
//!   Security `dds.sec.*` properties (a secured perf run); the endpoints keep `ddsperf`'s QoS.
//!
//! Each mode prints a line per second and one closing `summary:` line (see `report.rs`).

mod keyed_seq;
mod latency;
mod peer_group;
pub mod peer_group_seq;
pub mod report;
mod throughput;
mod udp;

use std::time::Duration;

use siftdds::api::DomainParticipant;
use siftdds::qos::xml::QosProvider;
use siftdds::qos::{
    DataReaderQos, DataWriterQos, DomainParticipantQos, Durability, History, Length, Reliability,
    ResourceLimits, TopicQos, UserData,
};
use siftdds::types::TopicType;

pub use keyed_seq::KeyedSeq;

/// How long a mode waits for its peer to be matched before giving up.
pub const MATCH_TIMEOUT: Duration = Duration::from_secs(30);

/// Samples a KEEP_ALL writer or reader holds at most (`ddsperf`'s resource limit).
pub const MAX_SAMPLES: u32 = 10_000;

/// Reliable write blocking time on a full history (`ddsperf`'s topic QoS: 10 s).
pub const MAX_BLOCKING: Duration = Duration::from_secs(10);

/// `siftdds perf MODE`: the modes, each with the same options.
#[derive(clap::Subcommand, Debug)]
pub enum PerfCommand {
    /// Write KeyedSeq samples as fast as possible or at --rate, for --duration or --count.
    Pub(PerfArgs),
    /// Take samples and count gaps in each (writer, key)'s sequence numbers as lost; waits
    /// up to 30 s for a writer.
    Sub(PerfArgs),
    /// Write one sample, wait for its echo, repeat (round-trip latency).
    Ping(PerfArgs),
    /// Echo every ping.
    Pong(PerfArgs),
    /// Raw-UDP round trips on 127.0.0.1 (the reference for the latency goal).
    UdpPing(PerfArgs),
    /// Echo raw-UDP pings.
    UdpPong(PerfArgs),
    /// Pass raw-UDP pings and their echoes between `udp-ping --via-relay` and `udp-pong`.
    UdpRelay(PerfArgs),
}

/// The options every mode takes (`ddsperf`'s names where it has them).
#[derive(clap::Args, Clone, Debug)]
pub struct PerfArgs {
    /// Sample size in bytes, the 12-byte fixed part included (N, Nk, NKiB, NM, NMiB).
    #[arg(long, default_value = "12", value_parser = parse_sample_size)]
    size: usize,
    /// RELIABLE (the default).
    #[arg(long, conflicts_with = "best_effort")]
    reliable: bool,
    /// BEST_EFFORT.
    #[arg(long)]
    best_effort: bool,
    /// KEEP_LAST depth N (> 0), or `all` for KEEP_ALL (the default).
    #[arg(long, default_value = "all", value_name = "N|all", value_parser = parse_history)]
    history: HistoryArg,
    /// pub, sub: DURABILITY `volatile` (the default, as `ddsperf`) or `transient-local` (a
    /// reader matched late, e.g. behind a router, still gets every sample the writer keeps).
    #[arg(long, default_value = "volatile", value_name = "volatile|transient-local", value_parser = parse_durability)]
    durability: Durability,
    /// Hand writes to the event loop without waiting (several DATA per datagram).
    #[arg(long, default_value = "on", value_name = "on|off", action = clap::ArgAction::Set, value_parser = parse_on_off)]
    batch: bool,
    /// Writes (pub) or pings (ping) per second, finite and > 0; default: as fast as possible.
    #[arg(long, value_name = "HZ", allow_negative_numbers = true, value_parser = crate::args::rate)]
    rate: Option<f64>,
    /// Seconds to run (after matching), > 0; default: until --count or interrupted.
    #[arg(long, value_name = "SECS", allow_negative_numbers = true, value_parser = crate::args::seconds)]
    duration: Option<f64>,
    /// pub: samples to write; sub: samples to receive; ping: round trips (> 0).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(u64).range(1..))]
    count: Option<u64>,
    /// DDS domain (0..=232).
    #[arg(long, default_value = "0", allow_negative_numbers = true, value_parser = crate::args::domain)]
    domain: u32,
    /// Samples larger than this go as DATA_FRAGs of this size (64..=65000 bytes).
    #[arg(long, value_name = "BYTES", value_parser = parse_fragment_size)]
    fragment_size: Option<usize>,
    /// Network interfaces: auto, or names, IPv4 addresses and CIDR prefixes,
    /// comma-separated (overrides SIFTDDS_INTERFACES).
    #[arg(long, value_name = "LIST")]
    interface: Option<String>,
    /// sub: stop only after this many seconds without data (default: 1 s once the writers
    /// are gone, else 5 s).
    #[arg(long, value_name = "SECS", allow_negative_numbers = true, value_parser = crate::args::seconds)]
    idle_timeout: Option<f64>,
    /// pub, sub: PeerGroupSeq samples (topic `DDSPerf{R,U}DataPG`) whose `common` member is N
    /// serialized bytes (its length included; a multiple of 4), on top of --size
    /// (docs/peer-group-cache.md §8).
    #[arg(long, value_name = "N", value_parser = parse_size)]
    common_bytes: Option<usize>,
    /// pub, sub: which common content (0..): writers of one set share a cache entry.
    #[arg(long, value_name = "K", default_value = "0", requires = "common_bytes")]
    common_set: u32,
    /// pub: be a member of peer group G (common member `common`, intermediary
    /// `siftdds-router-*`, every participant a member); prints the upstream bytes.
    #[arg(long, value_name = "G", requires = "common_bytes")]
    peer_group: Option<String>,
    /// QoS profile file (OMG DDS-XML or Fast DDS XML; repeatable), loaded after the files
    /// SIFTDDS_QOS_PROFILES and ./USER_QOS_PROFILES.xml name. Only the participant QoS is
    /// taken from the profile (e.g. the DDS Security `dds.sec.*` properties); the endpoints
    /// keep `ddsperf`'s QoS.
    #[arg(long = "qos-file", value_name = "FILE", action = clap::ArgAction::Append)]
    qos_files: Vec<String>,
    /// The profile (`Library::Profile`) whose participant QoS to use; default: the loaded
    /// files' default profile (`is_default_qos="true"`), else the DDS defaults.
    #[arg(long, value_name = "LIB::PROFILE")]
    qos_profile: Option<String>,
    /// udp-ping: send through `udp-relay` (127.0.0.2) instead of straight to `udp-pong`.
    #[arg(long)]
    via_relay: bool,
    /// udp-*: the local address (default: loopback); other than loopback only inside the
    /// network sandbox.
    #[arg(long = "bind", value_name = "IP")]
    udp_bind: Option<std::net::Ipv4Addr>,
    /// udp-ping: the ponger's or relay's address; udp-relay: the ponger's (default:
    /// loopback); other than loopback only inside the network sandbox.
    #[arg(long = "to", value_name = "IP")]
    udp_to: Option<std::net::Ipv4Addr>,
}

/// `--durability`: the two kinds a perf writer can offer without a durability service.
fn parse_durability(s: &str) -> Result<Durability, String> {
    match s {
        "volatile" => Ok(Durability::Volatile),
        "transient-local" => Ok(Durability::TransientLocal),
        _ => Err(format!("`{s}`: want volatile or transient-local")),
    }
}

/// `--history`: a depth or KEEP_ALL.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HistoryArg(Option<u32>);

fn parse_history(s: &str) -> Result<HistoryArg, String> {
    if s == "all" {
        return Ok(HistoryArg(None));
    }
    match s.parse::<u32>() {
        Ok(0) => Err("0 is not a depth: use `all` for KEEP_ALL, or a depth > 0".into()),
        Ok(d) if d > MAX_SAMPLES => Err(format!(
            "depth {d} is above the {MAX_SAMPLES}-sample resource limit"
        )),
        Ok(d) => Ok(HistoryArg(Some(d))),
        Err(_) => Err(format!("'{s}' is neither a depth nor `all`")),
    }
}

fn parse_on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("'{s}': on or off")),
    }
}

/// Largest sample `--size` accepts: the 64 MiB the CDR layer accepts for one sample.
const MAX_SAMPLE_SIZE: usize = 64 << 20;

fn parse_sample_size(s: &str) -> Result<usize, String> {
    let n = parse_size(s)?;
    if n < keyed_seq::FIXED_SIZE {
        return Err(format!(
            "{n} bytes is below the {}-byte fixed part of a KeyedSeq sample",
            keyed_seq::FIXED_SIZE
        ));
    }
    if n > MAX_SAMPLE_SIZE {
        return Err(format!(
            "{n} bytes is above the {MAX_SAMPLE_SIZE}-byte limit of one sample"
        ));
    }
    Ok(n)
}

fn parse_fragment_size(s: &str) -> Result<usize, String> {
    let n = parse_size(s)?;
    if !(64..=65_000).contains(&n) {
        return Err(format!(
            "{n} bytes: a fragment is 64..=65000 bytes (it must fit one UDP datagram)"
        ));
    }
    Ok(n)
}

/// The mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Write data.
    Pub,
    /// Read data, count losses.
    Sub,
    /// Measure round trips.
    Ping,
    /// Echo pings.
    Pong,
    /// Raw-UDP round trips (the reference for the latency goal).
    UdpPing,
    /// Echo raw-UDP pings.
    UdpPong,
    /// Pass raw-UDP datagrams between a pinger and a ponger.
    UdpRelay,
}

/// Options of `siftdds perf`, as the modes read them.
#[derive(Clone, Debug)]
pub struct PerfOptions {
    /// What to do.
    pub mode: Mode,
    /// Sample size in bytes, fixed part included (at least 12).
    pub size: usize,
    /// RELIABLE (default) or BEST_EFFORT.
    pub reliable: bool,
    /// KEEP_LAST depth, `None` for KEEP_ALL (default).
    pub history: Option<u32>,
    /// Hand writes to the event loop without waiting (several DATA per datagram).
    pub batch: bool,
    /// Writes (pub) or pings (ping) per second; `None`: as fast as possible.
    pub rate: Option<f64>,
    /// Seconds to run (after matching); `None`: until `count` or interrupted.
    pub duration: Option<f64>,
    /// pub: samples to write; sub: samples to receive; ping: round trips.
    pub count: Option<u64>,
    /// DDS domain.
    pub domain: u32,
    /// DATA_FRAG size for samples larger than this.
    pub fragment_size: usize,
    /// `--interface`: the interface selection (overrides `SIFTDDS_INTERFACES`).
    pub interface: Option<String>,
    /// `--idle-timeout`: how long without data ends a subscriber.
    pub idle_timeout: Option<Duration>,
    /// `--common-bytes`, `--common-set`: PeerGroupSeq samples of this shape.
    pub peer_group_shape: Option<peer_group_seq::Shape>,
    /// `--peer-group`: the writer's peer group.
    pub peer_group: Option<String>,
    /// `--durability` of the data writer and reader.
    pub durability: Durability,
    /// `--qos-file`: QoS profile files, after the environment's.
    pub qos_files: Vec<String>,
    /// `--qos-profile`: the profile whose participant QoS to use.
    pub qos_profile: Option<String>,
    /// `--via-relay`: udp-ping sends through `udp-relay`.
    pub via_relay: bool,
    /// `--bind`: the raw-UDP modes' local address.
    pub udp_bind: Option<std::net::Ipv4Addr>,
    /// `--to`: where udp-ping and udp-relay send.
    pub udp_to: Option<std::net::Ipv4Addr>,
}

impl PerfOptions {
    /// The options of `command`; `Err` for a PeerGroupSeq shape the sizes cannot have.
    pub fn from_command(command: PerfCommand) -> Result<Self, String> {
        let (mode, a) = match command {
            PerfCommand::Pub(a) => (Mode::Pub, a),
            PerfCommand::Sub(a) => (Mode::Sub, a),
            PerfCommand::Ping(a) => (Mode::Ping, a),
            PerfCommand::Pong(a) => (Mode::Pong, a),
            PerfCommand::UdpPing(a) => (Mode::UdpPing, a),
            PerfCommand::UdpPong(a) => (Mode::UdpPong, a),
            PerfCommand::UdpRelay(a) => (Mode::UdpRelay, a),
        };
        let peer_group_shape = a
            .common_bytes
            .map(|n| peer_group_seq::Shape::new(n, a.size, a.common_set))
            .transpose()?;
        Ok(PerfOptions {
            mode,
            size: a.size,
            reliable: !a.best_effort,
            history: a.history.0,
            batch: a.batch,
            rate: a.rate,
            duration: a.duration,
            count: a.count,
            domain: a.domain,
            fragment_size: a
                .fragment_size
                .unwrap_or(siftdds::api::DEFAULT_FRAGMENT_SIZE),
            interface: a.interface,
            idle_timeout: a.idle_timeout.map(Duration::from_secs_f64),
            peer_group_shape,
            peer_group: a.peer_group,
            durability: a.durability,
            qos_files: a.qos_files,
            qos_profile: a.qos_profile,
            via_relay: a.via_relay,
            udp_bind: a.udp_bind,
            udp_to: a.udp_to,
        })
    }

    /// `RELIABLE` / `BEST_EFFORT` and `KEEP_ALL` / `KEEP_LAST n`, for the opening lines.
    pub fn qos_summary(&self) -> String {
        format!(
            "{} {}{}",
            if self.reliable {
                "RELIABLE"
            } else {
                "BEST_EFFORT"
            },
            match self.history {
                None => "KEEP_ALL".to_string(),
                Some(d) => format!("KEEP_LAST {d}"),
            },
            match self.durability {
                Durability::Volatile => "",
                _ => " TRANSIENT_LOCAL",
            }
        )
    }

    /// `DDSPerf{R|U}{kind}KS`, `ddsperf`'s topic names for the KS type.
    fn topic_name(&self, kind: &str) -> String {
        let ty = if self.peer_group_shape.is_some() {
            "PG"
        } else {
            "KS"
        };
        format!("DDSPerf{}{kind}{ty}", if self.reliable { 'R' } else { 'U' })
    }

    fn reliability(&self) -> Reliability {
        if self.reliable {
            Reliability {
                max_blocking_time: siftdds::time::Duration::from_std(MAX_BLOCKING),
                ..Reliability::reliable()
            }
        } else {
            Reliability::best_effort()
        }
    }

    fn history(&self) -> History {
        self.history.map_or(History::KeepAll, History::KeepLast)
    }

    fn limits() -> ResourceLimits {
        ResourceLimits {
            max_samples: Length::Limited(MAX_SAMPLES),
            ..ResourceLimits::default()
        }
    }

    /// Data writer QoS: `ddsperf`'s (history as chosen, 10 000 samples).
    fn data_writer_qos(&self) -> DataWriterQos {
        DataWriterQos {
            reliability: self.reliability(),
            history: self.history(),
            resource_limits: Self::limits(),
            durability: self.durability,
            ..DataWriterQos::default()
        }
    }

    /// Data reader QoS, matching [`Self::data_writer_qos`].
    fn data_reader_qos(&self) -> DataReaderQos {
        DataReaderQos {
            reliability: self.reliability(),
            history: self.history(),
            resource_limits: Self::limits(),
            durability: self.durability,
            ..DataReaderQos::default()
        }
    }

    /// Ping/pong QoS: KEEP_LAST 1, as `ddsperf`.
    fn ping_writer_qos(&self) -> DataWriterQos {
        DataWriterQos {
            reliability: self.reliability(),
            history: History::KeepLast(1),
            ..DataWriterQos::default()
        }
    }

    fn ping_reader_qos(&self) -> DataReaderQos {
        DataReaderQos {
            reliability: self.reliability(),
            history: History::KeepLast(1),
            ..DataReaderQos::default()
        }
    }

    /// The participant QoS of the profile in effect: `--qos-profile`, else the default
    /// profile of the files the environment and `--qos-file` name, else the DDS defaults.
    /// Reads those files (before any socket exists); `Err` names the file and place.
    fn profile_participant_qos(&self) -> Result<DomainParticipantQos, String> {
        let mut provider = QosProvider::from_environment().map_err(|e| e.to_string())?;
        for file in &self.qos_files {
            provider.load_file(file).map_err(|e| e.to_string())?;
        }
        let name = match (&self.qos_profile, provider.default_profile()) {
            (Some(named), _) => named.clone(),
            (None, Some(_)) => String::new(),
            (None, None) => return Ok(DomainParticipantQos::default()),
        };
        provider.participant_qos(&name).map_err(|e| e.to_string())
    }

    /// The participant, with the profile's participant QoS (see
    /// [`Self::profile_participant_qos`]); a pinger's or ponger's announces `ddsperf`'s
    /// USER_DATA (see [`ddsperf_user_data`]) so that `ddsperf` answers and expects its pongs.
    /// A publisher's or subscriber's does not: `ddsperf` would then expect ping/pong endpoints
    /// of it too.
    fn participant(&self) -> Result<DomainParticipant, Box<dyn std::error::Error>> {
        let mut qos = self.profile_participant_qos()?;
        if matches!(self.mode, Mode::Ping | Mode::Pong) {
            qos.user_data = UserData {
                value: ddsperf_user_data(),
            };
        }
        let mut builder = DomainParticipant::builder(self.domain)
            .entity_name(format!("siftdds perf {:?}", self.mode))
            .announce_period(Duration::from_millis(500))
            .qos(qos);
        if let Some(list) = &self.interface {
            builder = builder.interfaces([list]);
        }
        let dp = builder.build()?;
        eprintln!("siftdds: {}", dp.network());
        Ok(dp)
    }

    fn topic<T: TopicType>(&self, dp: &DomainParticipant, kind: &str) -> siftdds::api::Topic<T> {
        dp.create_topic::<T>(
            &self.topic_name(kind),
            TopicQos {
                reliability: self.reliability(),
                ..TopicQos::default()
            },
        )
    }
}

/// `ddsperf`'s participant USER_DATA, `DDSPerf:0:PID:HOSTNAME` (no terminating NUL; the `0`
/// says there is no reader of the Data topic). `ddsperf` creates a pong writer only for
/// participants that announce it, counts a pong from each of them before it pings again, and
/// expects their ping and pong endpoints to match.
fn ddsperf_user_data() -> Vec<u8> {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let host = match host.trim() {
        "" => "?",
        h => h,
    };
    format!("DDSPerf:0:{}:{host}", std::process::id()).into_bytes()
}

/// `N`, `Nk`/`NkB`/`NKiB` (×1024), `NM`/`NMB`/`NMiB` (×1024²), as `ddsperf` reads sizes.
fn parse_size(s: &str) -> Result<usize, String> {
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(digits);
    let n: usize = n.parse().map_err(|_| format!("bad size {s}"))?;
    let mul = match unit {
        "" | "B" => 1,
        "k" | "kB" | "KiB" | "K" => 1024,
        "M" | "MB" | "MiB" => 1024 * 1024,
        _ => return Err(format!("bad size unit {unit}")),
    };
    n.checked_mul(mul)
        .ok_or_else(|| format!("size {s} too large"))
}

/// Runs `siftdds perf MODE`: exit 0 when it ran and lost nothing, 1 on losses or no peer, 2
/// on a set-up error.
pub fn main(command: PerfCommand) -> std::process::ExitCode {
    use std::process::ExitCode;
    let options = match PerfOptions::from_command(command) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("siftdds perf: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("siftdds perf: {e}");
            ExitCode::from(2)
        }
    }
}

/// Runs a mode. `Ok(true)`: it ran and nothing was lost (reliable KEEP_ALL), or the ping got
/// its round trips; `Ok(false)`: losses or no peer.
pub fn run(o: &PerfOptions) -> Result<bool, Box<dyn std::error::Error>> {
    match o.mode {
        Mode::Pub if o.peer_group_shape.is_some() => peer_group::publish(o),
        Mode::Pub => throughput::publish(o),
        Mode::Sub if o.peer_group_shape.is_some() => peer_group::subscribe(o),
        Mode::Sub => throughput::subscribe(o),
        Mode::Ping => latency::ping(o),
        Mode::Pong => latency::pong(o),
        Mode::UdpPing => udp::ping(o),
        Mode::UdpPong => udp::pong(o),
        Mode::UdpRelay => udp::relay(o),
    }
}

#[cfg(test)]
mod tests;
