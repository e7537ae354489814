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
//!   127.0.0.1: the raw-UDP round trip the latency goal is measured against.
//!
//! Each mode prints a line per second and one closing `summary:` line (see `report.rs`).

mod keyed_seq;
mod latency;
mod report;
mod throughput;
mod udp;

use std::time::Duration;

use siftdds::api::{DomainParticipant, Error as DdsError};
use siftdds::qos::{
    DataReaderQos, DataWriterQos, DomainParticipantQos, History, Length, Reliability,
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

/// Usage of the `perf` subcommand.
pub const USAGE: &str = "siftdds perf pub|sub|ping|pong|udp-ping|udp-pong [--size BYTES] [--reliable|--best-effort] [--history N|all] [--batch on|off] [--rate HZ] [--duration SECS] [--count N] [--domain D] [--fragment-size BYTES] [--interface LIST]";

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
}

/// Options of `siftdds perf`.
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
}

impl Default for PerfOptions {
    fn default() -> Self {
        PerfOptions {
            mode: Mode::Sub,
            size: keyed_seq::FIXED_SIZE,
            reliable: true,
            history: None,
            batch: true,
            rate: None,
            duration: None,
            count: None,
            domain: 0,
            fragment_size: siftdds::api::DEFAULT_FRAGMENT_SIZE,
            interface: None,
        }
    }
}

impl PerfOptions {
    /// Parses `MODE [OPTIONS]`.
    pub fn parse(args: &[&str]) -> Result<Self, String> {
        let mut o = PerfOptions::default();
        let (mode, rest) = args.split_first().ok_or("perf needs a mode")?;
        o.mode = match *mode {
            "pub" => Mode::Pub,
            "sub" => Mode::Sub,
            "ping" => Mode::Ping,
            "pong" => Mode::Pong,
            "udp-ping" => Mode::UdpPing,
            "udp-pong" => Mode::UdpPong,
            other => return Err(format!("unknown mode {other}")),
        };
        let mut it = rest.iter();
        while let Some(flag) = it.next() {
            match *flag {
                "--reliable" => o.reliable = true,
                "--best-effort" => o.reliable = false,
                _ => {
                    let value = it.next().ok_or(format!("{flag} needs a value"))?;
                    o.set(flag, value)
                        .map_err(|e| format!("{flag} {value}: {e}"))?;
                }
            }
        }
        if o.size < keyed_seq::FIXED_SIZE {
            return Err(format!("--size must be at least {}", keyed_seq::FIXED_SIZE));
        }
        Ok(o)
    }

    fn set(&mut self, flag: &str, value: &str) -> Result<(), String> {
        let bad = |e: &dyn std::fmt::Display| e.to_string();
        match flag {
            "--size" => self.size = parse_size(value)?,
            "--history" if value == "all" => self.history = None,
            "--history" => {
                self.history = Some(value.parse().map_err(|e| bad(&e))?).filter(|d| *d > 0)
            }
            "--batch" => {
                self.batch = match value {
                    "on" => true,
                    "off" => false,
                    _ => return Err("on or off".into()),
                }
            }
            "--rate" => {
                self.rate = Some(value.parse::<f64>().map_err(|e| bad(&e))?).filter(|r| *r > 0.0)
            }
            "--duration" => self.duration = Some(value.parse::<f64>().map_err(|e| bad(&e))?),
            "--count" => self.count = Some(value.parse().map_err(|e| bad(&e))?),
            "--domain" => self.domain = value.parse().map_err(|e| bad(&e))?,
            "--fragment-size" => self.fragment_size = parse_size(value)?,
            "--interface" => self.interface = Some(value.to_string()),
            _ => return Err("unknown option".into()),
        }
        Ok(())
    }

    /// `DDSPerf{R|U}{kind}KS`, `ddsperf`'s topic names for the KS type.
    fn topic_name(&self, kind: &str) -> String {
        format!("DDSPerf{}{kind}KS", if self.reliable { 'R' } else { 'U' })
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
            ..DataWriterQos::default()
        }
    }

    /// Data reader QoS, matching [`Self::data_writer_qos`].
    fn data_reader_qos(&self) -> DataReaderQos {
        DataReaderQos {
            reliability: self.reliability(),
            history: self.history(),
            resource_limits: Self::limits(),
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

    /// The participant; a pinger's or ponger's announces `ddsperf`'s USER_DATA (see
    /// [`ddsperf_user_data`]) so that `ddsperf` answers and expects its pongs. A publisher's or
    /// subscriber's does not: `ddsperf` would then expect ping/pong endpoints of it too.
    fn participant(&self) -> Result<DomainParticipant, DdsError> {
        let qos = match self.mode {
            Mode::Ping | Mode::Pong => DomainParticipantQos {
                user_data: UserData {
                    value: ddsperf_user_data(),
                },
                ..Default::default()
            },
            Mode::Pub | Mode::Sub | Mode::UdpPing | Mode::UdpPong => {
                DomainParticipantQos::default()
            }
        };
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

/// Runs a mode. `Ok(true)`: it ran and nothing was lost (reliable KEEP_ALL), or the ping got
/// its round trips; `Ok(false)`: losses or no peer.
pub fn run(o: &PerfOptions) -> Result<bool, Box<dyn std::error::Error>> {
    match o.mode {
        Mode::Pub => throughput::publish(o),
        Mode::Sub => throughput::subscribe(o),
        Mode::Ping => latency::ping(o),
        Mode::Pong => latency::pong(o),
        Mode::UdpPing => udp::ping(o),
        Mode::UdpPong => udp::pong(o),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_data_is_what_ddsperf_parses() {
        // ddsperf: sscanf(udata, "DDSPerf:%d:%ld%n", …) == 2, then ':' and the hostname up to
        // the end of the USER_DATA (no NUL inside).
        let text = String::from_utf8(ddsperf_user_data()).unwrap();
        let mut fields = text.splitn(4, ':');
        assert_eq!(fields.next(), Some("DDSPerf"));
        assert_eq!(fields.next(), Some("0"), "no Data reader");
        assert_eq!(fields.next(), Some(std::process::id().to_string().as_str()));
        let host = fields.next().unwrap();
        assert!(
            !host.is_empty() && !host.contains('\0') && !host.contains('\n'),
            "{host:?}"
        );
    }

    #[test]
    fn parses_ddsperf_style_sizes_and_every_option() {
        assert_eq!(parse_size("16"), Ok(16));
        assert_eq!(parse_size("1k"), Ok(1024));
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert!(parse_size("1x").is_err());
        let o = PerfOptions::parse(&[
            "pub",
            "--size",
            "16k",
            "--best-effort",
            "--history",
            "5",
            "--batch",
            "off",
            "--rate",
            "100",
            "--duration",
            "2.5",
            "--count",
            "7",
            "--domain",
            "3",
        ])
        .unwrap();
        assert_eq!(
            (o.mode, o.size, o.reliable, o.history, o.batch),
            (Mode::Pub, 16384, false, Some(5), false)
        );
        assert_eq!(
            (o.rate, o.duration, o.count, o.domain),
            (Some(100.0), Some(2.5), Some(7), 3)
        );
        assert_eq!(o.topic_name("Data"), "DDSPerfUDataKS");
        assert!(PerfOptions::parse(&["sub", "--size", "4"]).is_err());
        assert!(PerfOptions::parse(&["sub", "--bogus", "1"]).is_err());
        assert!(PerfOptions::parse(&["nope"]).is_err());
    }
}
