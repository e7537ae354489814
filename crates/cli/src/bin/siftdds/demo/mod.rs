//! `siftdds demo`: one publisher and N content-filtered subscribers in one process, over real
//! UDP on 127.0.0.1 with unicast discovery (loopback-only, so it is safe on any machine). It
//! publishes moving shapes for a few seconds and reports, per subscriber, what arrived against
//! what its filter should let through, and the writer's filtering figures; then (unless
//! `--no-baseline`) it publishes the same samples to the same subscribers through a writer
//! that cannot filter, and reports what that cost: the no-filtering baseline, measured.
//!
//! With `--sparse`, subscriber `i` filters `x = %0` with `%0 = i` and sample `n` has
//! `x = n mod N`, so every sample passes exactly one subscriber; the demo then also prints the
//! wire efficiency against the ideal of one DATA datagram per delivered sample.
//!
//! With `--best-effort` the subscribers are best-effort: the writer owes them no HEARTBEAT
//! and no repair; it still tells each the sequence numbers its filter rejected with a GAP in
//! front of the next DATA it sends it (RTPS 2.5 §8.4.9.1.4, best-effort T4: a change not
//! relevant to the reader is a GAP), so GAPs add bytes but no datagrams.
//!
//! With `--multicast`, discovery uses the SPDP multicast group and every subscriber also
//! listens on the user multicast locator, so the writer chooses per sample between one
//! multicast datagram and unicasts (`core::writer`'s cost model; `--plan` overrides it).
//! `--interface LIST` puts every participant on those interfaces (multicast discovery).
//!
//! Must not: use multicast or any address outside 127/8 unless `--multicast` or
//! `--interface` is given; open a socket before every option was checked.

mod phase;
mod plot;
mod report;
mod setup;

use std::path::PathBuf;
use std::process::ExitCode;

use siftdds::core::writer::MulticastMode;

/// Participant indices the transport allots on one host and domain (`transport/port.rs`,
/// `MAX_AUTO_PARTICIPANT_ID` = 119, RTPS 2.5 §9.6.1.1 port mapping): every subscriber is a
/// participant of its own, and the publisher takes one index.
pub const MAX_SUBSCRIBERS: usize = 119;

/// Most samples one run writes (seconds × rate): the demo keeps every subscriber's arrival
/// times, and evaluates every filter on every sample to know what is expected.
pub const MAX_TOTAL_SAMPLES: f64 = 10_000_000.0;

/// Arguments of `siftdds demo`.
#[derive(clap::Args, Debug)]
pub struct DemoArgs {
    /// Number of content-filtered subscribers, each a participant of its own (1..=119: the
    /// transport allots participant indices 0..=119 per host and domain, and the publisher
    /// takes one).
    #[arg(long, default_value_t = 50, allow_negative_numbers = true, value_parser = parse_subscribers)]
    subscribers: usize,
    /// How long to publish, in seconds (> 0; the baseline phase takes as long again).
    #[arg(long, default_value = "5", allow_negative_numbers = true, value_parser = crate::args::seconds)]
    seconds: f64,
    /// Samples per second (finite, > 0).
    #[arg(long, default_value = "500", value_name = "HZ", allow_negative_numbers = true, value_parser = crate::args::rate)]
    rate: f64,
    /// DDS domain (0..=232).
    #[arg(long, default_value = "0", allow_negative_numbers = true, value_parser = crate::args::domain)]
    domain: u32,
    /// Each sample passes exactly one subscriber (`x = %0` filters, x cycling); prints the
    /// wire efficiency against one DATA datagram per delivered sample.
    #[arg(long)]
    sparse: bool,
    /// Best-effort subscribers (default reliable): no HEARTBEATs or repairs are owed them.
    #[arg(long)]
    best_effort: bool,
    /// Subscribers also listen on the user multicast group and discovery uses multicast
    /// (needs the network sandbox, or --interface).
    #[arg(long)]
    multicast: bool,
    /// The writer's per-sample multicast/unicast choice: auto (its cost model), unicast or
    /// multicast. Needs --multicast (without it no reader listens on a group).
    #[arg(long, value_enum, default_value_t = Plan::Auto, requires = "multicast")]
    plan: Plan,
    /// Network interfaces: auto, or names, IPv4 addresses and CIDR prefixes,
    /// comma-separated (overrides SIFTDDS_INTERFACES).
    #[arg(long, value_name = "LIST")]
    interface: Option<String>,
    /// Skip the second phase (the same samples through a writer that cannot filter).
    #[arg(long)]
    no_baseline: bool,
    /// Run the no-filtering phase first (to compare the phases' latencies in either order).
    #[arg(long, conflicts_with = "no_baseline")]
    baseline_first: bool,
    /// Draw the figures as an SVG picture: per-subscriber received vs expected, and the
    /// writer's traffic against the no-filtering baseline.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
}

/// `--plan`.
#[derive(clap::ValueEnum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// The cost model decides per sample.
    Auto,
    /// Always unicast.
    Unicast,
    /// Always multicast when a group covers two or more readers.
    Multicast,
}

impl Plan {
    fn mode(self) -> MulticastMode {
        match self {
            Plan::Auto => MulticastMode::Auto,
            Plan::Unicast => MulticastMode::AlwaysUnicast,
            Plan::Multicast => MulticastMode::AlwaysMulticast,
        }
    }
}

fn parse_subscribers(s: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a count"))?;
    if n == 0 {
        return Err("at least one subscriber is needed".into());
    }
    if n > MAX_SUBSCRIBERS {
        return Err(format!(
            "{n} is above {MAX_SUBSCRIBERS}: each subscriber is a participant of its own, the \
             transport allots participant indices 0..=119 per host and domain, and the \
             publisher takes one"
        ));
    }
    Ok(n)
}

/// Runs the demo: exit 0 when every subscriber got exactly its samples (in both phases),
/// 1 when one did not, 2 on a set-up error.
pub fn run(a: DemoArgs) -> ExitCode {
    let total = a.seconds * a.rate;
    if total > MAX_TOTAL_SAMPLES {
        eprintln!(
            "siftdds demo: --seconds {} × --rate {} = {total:.0} samples, above the {MAX_TOTAL_SAMPLES:.0} \
             one run keeps track of",
            a.seconds, a.rate
        );
        return ExitCode::from(2);
    }
    if total.round() < 1.0 {
        eprintln!(
            "siftdds demo: --seconds {} × --rate {} rounds to no sample at all",
            a.seconds, a.rate
        );
        return ExitCode::from(2);
    }
    if let Some(p) = &a.plot {
        if p.extension().is_none_or(|e| e != "svg") {
            eprintln!(
                "siftdds demo: --plot {}: the picture is SVG, name it FILE.svg",
                p.display()
            );
            return ExitCode::from(2);
        }
    }
    match setup::run(&a) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("siftdds demo: {e}");
            ExitCode::from(2)
        }
    }
}
