//! The `siftdds` command line: CLI parsing and wiring only.
//!
//! Subcommands:
//! * `siftdds inspect FILE` — decode the RTPS traffic in a pcap/pcapng capture
//!   (exit 0: clean, 1: malformed messages found, 2: the file cannot be read).
//! * `siftdds demo [--subscribers N] [--seconds S] [--rate HZ] [--domain D] [--sparse]
//!   [--multicast] [--interface LIST]` — writer-side filtering demo on loopback, or on the
//!   interfaces `--interface` selects (exit 0: every subscriber got
//!   exactly its samples); `--sparse` makes each sample pass exactly one subscriber and reports
//!   the wire efficiency against the ideal; `--best-effort` makes the subscribers
//!   best-effort (no GAPs or heartbeats owed); `--multicast` lets subscribers listen on the user
//!   multicast group (needs the network sandbox); `--plan` overrides the writer's per-sample
//!   multicast/unicast cost model.
//! * `siftdds idl FILE... [-I DIR] [-o OUT.rs] [--crate PATH]` — generate Rust types from IDL.
//! * `siftdds perf pub|sub|ping|pong|udp-ping|udp-pong [OPTIONS]` — throughput and latency,
//!   interoperable with Cyclone's `ddsperf` (exit 0: ran and lost nothing, 1: losses or no
//!   peer, 2: set-up error); `udp-ping`/`udp-pong` are the raw-UDP round-trip reference.

// The demo is an application: it paces writes with the clock and sleeps.
#![allow(clippy::disallowed_methods)]

mod demo;
mod idl;
mod perf;
mod router;

use std::process::ExitCode;

use siftdds::core::writer::MulticastMode;

const USAGE: &str = "usage: siftdds inspect FILE.pcap|FILE.pcapng\n       siftdds demo [--subscribers N] [--seconds S] [--rate HZ] [--domain D] [--sparse] [--best-effort] [--multicast [--plan auto|unicast|multicast]] [--interface LIST]\n       siftdds idl FILE... [-I DIR] [-o OUT.rs] [--crate PATH]\n       siftdds perf pub|sub|ping|pong [OPTIONS] (siftdds perf help)";

fn main() -> ExitCode {
    env_logger::init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["inspect", file] => inspect(file),
        ["demo", rest @ ..] => demo(rest),
        ["idl", rest @ ..] => idl::run(rest),
        ["perf", rest @ ..] => perf(rest),
        ["router", rest @ ..] => router::run(rest),
        ["-h" | "--help" | "help"] => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn inspect(file: &str) -> ExitCode {
    let input = match std::fs::File::open(file) {
        Ok(f) => std::io::BufReader::new(f),
        Err(e) => {
            eprintln!("siftdds inspect: {file}: {e}");
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match siftdds::inspect::run(input, &mut out) {
        Ok(totals) if totals.malformed == 0 => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(e) => {
            drop(out);
            eprintln!("siftdds inspect: {file}: {e}");
            ExitCode::from(2)
        }
    }
}

fn bad(flag: &str, value: &str) -> ExitCode {
    eprintln!("siftdds demo: bad option {flag} {value}\n{USAGE}");
    ExitCode::from(2)
}

fn demo(args: &[&str]) -> ExitCode {
    let mut o = demo::DemoOptions::default();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if *flag == "--sparse" {
            o.sparse = true;
            continue;
        }
        if *flag == "--multicast" {
            o.multicast = true;
            continue;
        }
        if *flag == "--best-effort" {
            o.best_effort = true;
            continue;
        }
        let Some(value) = it.next() else {
            eprintln!("siftdds demo: {flag} needs a value\n{USAGE}");
            return ExitCode::from(2);
        };
        let ok = match *flag {
            "--subscribers" => value.parse().map(|v| o.subscribers = v).is_ok(),
            "--seconds" => value.parse().map(|v| o.seconds = v).is_ok(),
            "--rate" => value.parse().map(|v: f64| o.rate = v.max(1.0)).is_ok(),
            "--domain" => value.parse().map(|v| o.domain = v).is_ok(),
            "--interface" => {
                o.interface = Some(value.to_string());
                true
            }
            "--plan" => {
                o.plan = match *value {
                    "auto" => MulticastMode::Auto,
                    "unicast" => MulticastMode::AlwaysUnicast,
                    "multicast" => MulticastMode::AlwaysMulticast,
                    _ => return bad(flag, value),
                };
                true
            }
            _ => false,
        };
        if !ok {
            return bad(flag, value);
        }
    }
    match demo::run(&o) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("siftdds demo: {e}");
            ExitCode::from(2)
        }
    }
}

fn perf(args: &[&str]) -> ExitCode {
    let options = match perf::PerfOptions::parse(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("siftdds perf: {e}\nusage: {}", perf::USAGE);
            return ExitCode::from(2);
        }
    };
    match perf::run(&options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("siftdds perf: {e}");
            ExitCode::from(2)
        }
    }
}
