//! The `siftdds` command line: argument parsing (clap) and dispatch only.
//!
//! Each subcommand owns its arguments: an `Args` struct in its own module (`demo/`,
//! `perf/`, `idl.rs`, `inspect.rs`, `ls.rs`, `spy.rs`, `router.rs`) and a `run(Args) -> ExitCode`. Adding a subcommand is one
//! variant of [`Command`] and one line of [`main`]'s match. Exit codes: 0 success, 1 the
//! command ran and found a problem (mismatch, loss, malformed messages), 2 bad usage or a
//! set-up error (clap's own errors exit 2 too).
//!
//! Must not: hold any logic of a subcommand; value checks live next to the option they check
//! (`args.rs` holds the shared ones).

// The demo and perf are applications: they pace writes with the clock and sleep.
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

mod args;
mod demo;
mod idl;
mod inspect;
mod ls;
mod observe;
mod perf;
mod progress;
mod router;
mod spy;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// siftdds: an RTPS/DDS middleware with writer-side content filtering.
#[derive(Parser, Debug)]
#[command(name = "siftdds", version, propagate_version = true)]
#[command(arg_required_else_help = true, infer_subcommands = false)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
enum Command {
    /// Writer-side filtering demo: one publisher, N content-filtered subscribers (exit 0:
    /// every subscriber got exactly its samples).
    Demo(demo::DemoArgs),
    /// Throughput and latency, interoperable with Cyclone's `ddsperf` (exit 0: ran and lost
    /// nothing, 1: losses or no peer, 2: set-up error).
    #[command(subcommand)]
    Perf(perf::PerfCommand),
    /// Decode the RTPS traffic in a pcap/pcapng capture (exit 0: clean, 1: malformed
    /// messages found, 2: the file cannot be read).
    Inspect(inspect::InspectArgs),
    /// Generate Rust types from IDL (exit 1: an IDL error, printed as file:line:col).
    Idl(idl::IdlArgs),
    /// List a domain's participants, topics, writers and readers with their QoS and each
    /// reader's content filter, after listening a few seconds.
    Ls(ls::LsArgs),
    /// Print discovery events and samples live (decoded where the type is known), until
    /// Ctrl-C or --seconds.
    Spy(spy::SpyArgs),
    /// Route DDS traffic between sites (LANs, WAN links to other routers): every sample
    /// exactly once, filters composed upstream (docs/router.md).
    Router(router::RouterArgs),
}

fn main() -> ExitCode {
    env_logger::init();
    match Cli::parse().command {
        Command::Demo(a) => demo::run(a),
        Command::Perf(a) => perf::main(a),
        Command::Inspect(a) => inspect::run(a),
        Command::Idl(a) => idl::run(a),
        Command::Ls(a) => ls::run(a),
        Command::Spy(a) => spy::run(a),
        Command::Router(a) => router::run(a),
    }
}
