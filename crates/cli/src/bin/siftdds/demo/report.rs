//! The demo's printed report: the per-subscriber table, then the writer's figures grouped
//! (what the filtering writer sent against what the no-filtering baseline sent, both
//! measured), what was saved, the multicast decision in one line, and what the GAPs and
//! the publisher's own byte count are.
//!
//! Must not: measure anything or change a number; it prints what the phases measured.

use siftdds::core::writer::WriterCounters;

use super::DemoArgs;
use super::phase::{PhaseFigures, Subscriber, Tally};
use crate::perf::report::percentiles;

/// Width of the filter column; longer filters wrap onto continuation lines.
const FILTER_WIDTH: usize = 36;

/// `text` cut at spaces into lines of at most `width` characters (a longer word stays whole).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let Some(line) = lines.last_mut() else {
            break;
        };
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// p50 and p99 in milliseconds, `-` without samples.
fn p50_p99(t: &Tally) -> (String, String) {
    if t.latencies_ns.is_empty() {
        return ("-".into(), "-".into());
    }
    let mut v = t.latencies_ns.clone();
    let p = percentiles(&mut v);
    (format!("{:.2}", p[0] / 1e3), format!("{:.2}", p[2] / 1e3))
}

fn all_latencies(subs: &[Subscriber], phase: usize) -> String {
    let mut all: Vec<u64> = subs
        .iter()
        .flat_map(|s| s.phases[phase].latencies_ns.iter().copied())
        .collect();
    if all.is_empty() {
        return "-".into();
    }
    let p = percentiles(&mut all);
    format!("{:.2} / {:.2}", p[0] / 1e3, p[2] / 1e3)
}

fn pct_saved(with: u64, without: u64) -> String {
    if without == 0 {
        return "-".into();
    }
    format!(
        "{:.1}%",
        100.0 * (without as f64 - with as f64) / without as f64
    )
}

/// Prints the report; returns true when every subscriber got exactly its samples in every
/// phase that ran.
pub fn print(
    o: &DemoArgs,
    subs: &[Subscriber],
    filtering: &PhaseFigures,
    baseline: Option<&PhaseFigures>,
) -> bool {
    let phases = if baseline.is_some() { 2 } else { 1 };
    let mut ok = true;
    println!(
        "\n{:<6} {:<FILTER_WIDTH$} {:>8} {:>8} {:>9} {:>9} {:>6} {:>6}",
        "reader", "filter", "received", "expected", "rx bytes", "baseline", "p50 ms", "p99 ms"
    );
    for s in subs {
        let t = &s.phases[0];
        let mut mark = String::new();
        for (i, t) in s.phases.iter().enumerate().take(phases) {
            if t.received != t.expected {
                ok = false;
                mark.push_str(&format!(
                    "  <-- MISMATCH{}: {} of {}",
                    if i == 1 { " (baseline)" } else { "" },
                    t.received,
                    t.expected
                ));
            }
        }
        let baseline_bytes = if phases == 2 {
            s.phases[1].wire_bytes.to_string()
        } else {
            "-".into()
        };
        let (p50, p99) = p50_p99(t);
        let lines = wrap(&s.filter, FILTER_WIDTH);
        let first = lines.first().map_or("", String::as_str);
        println!(
            "{:<6} {first:<FILTER_WIDTH$} {:>8} {:>8} {:>9} {:>9} {p50:>6} {p99:>6}{mark}",
            s.name, t.received, t.expected, t.wire_bytes, baseline_bytes
        );
        for more in lines.iter().skip(1) {
            println!("{:<6} {more}", "");
        }
    }
    println!(
        "(rx bytes: what the subscriber's participant received while the phase ran: the writer's DATA, GAPs \
         and HEARTBEATs, and every participant's discovery announcements; latency: write to the reader's listener)"
    );
    writer_figures(o, subs, filtering, baseline);
    println!(
        "\n{}",
        if ok {
            "every subscriber received exactly the samples its filter passes"
        } else {
            "SOME SUBSCRIBERS DIFFER (see MISMATCH)"
        }
    );
    ok
}

fn row(name: &str, with: String, without: Option<String>, note: &str) {
    let without = without.unwrap_or_else(|| "-".into());
    println!("  {name:<34} {with:>18} {without:>22}  {note}");
}

fn writer_figures(
    o: &DemoArgs,
    subs: &[Subscriber],
    f: &PhaseFigures,
    baseline: Option<&PhaseFigures>,
) {
    let w = &f.writer;
    let b: Option<&WriterCounters> = baseline.map(|p| &p.writer);
    let sum = |phase: usize, g: &dyn Fn(&Tally) -> u64| -> u64 {
        subs.iter().map(|s| g(&s.phases[phase])).sum()
    };
    let with_b = |g: &dyn Fn(usize) -> String| baseline.map(|_| g(1));
    println!(
        "\nwhat {} samples to {} readers cost, measured in both columns (the baseline phase wrote the same\n\
         samples to the same readers through a writer that cannot filter):",
        f.samples,
        subs.len()
    );
    println!(
        "  {:<34} {:>18} {:>22}",
        "", "filtering writer", "no filtering"
    );
    row(
        "samples reaching the readers",
        sum(0, &|t| t.arrived).to_string(),
        with_b(&|p| sum(p, &|t| t.arrived).to_string()),
        "filtering: one DATA per sample a reader's filter passes; baseline: every sample to every reader",
    );
    row(
        "DATA submessages built",
        w.data_sent.to_string(),
        b.map(|b| b.data_sent.to_string()),
        "one DATA built goes to every destination locator it is for",
    );
    row(
        "datagrams on the wire",
        w.wire_datagrams.to_string(),
        b.map(|b| b.wire_datagrams.to_string()),
        "one per destination locator",
    );
    row(
        "bytes on the wire",
        w.wire_bytes.to_string(),
        b.map(|b| b.wire_bytes.to_string()),
        "RTPS messages, without UDP/IP headers",
    );
    row(
        "HEARTBEATs / GAPs",
        format!("{} / {}", w.heartbeats_sent, w.gaps_sent),
        b.map(|b| format!("{} / {}", b.heartbeats_sent, b.gaps_sent)),
        "see GAPs below",
    );
    row(
        "repairs (DATA resent on request)",
        w.repairs_sent.to_string(),
        b.map(|b| b.repairs_sent.to_string()),
        "",
    );
    let table = f.filter.map_or("-".into(), |t| {
        format!(
            "{} ({}% hits)",
            t.evaluations,
            (t.hits * 100).checked_div(t.lookups).unwrap_or(0)
        )
    });
    row(
        "filter evaluations at the writer",
        table,
        with_b(&|_| "0".into()),
        &f.filter.map_or(String::new(), |t| {
            format!(
                "{} more answered by its table of (filter, sample) results",
                t.evaluations_saved
            )
        }),
    );
    row(
        "filter evaluations at the readers",
        sum(0, &|t| t.evaluated_here).to_string(),
        with_b(&|p| {
            format!(
                "{} ({} rej.)",
                sum(p, &|t| t.evaluated_here),
                sum(p, &|t| t.rejected_here)
            )
        }),
        "samples that came without the writer's verdict for the reader's filter",
    );
    row(
        "bytes received by the subscribers",
        sum(0, &|t| t.wire_bytes).to_string(),
        with_b(&|p| sum(p, &|t| t.wire_bytes).to_string()),
        "all their participants' traffic while the phase ran",
    );
    row(
        "delivery latency p50 / p99 (ms)",
        all_latencies(subs, 0),
        with_b(&|p| all_latencies(subs, p)),
        "write to the reader's listener, all readers",
    );
    if let Some(b) = b {
        println!(
            "saved by filtering at the writer: {} of the datagrams, {} of the bytes, {} of the readers' filter evaluations",
            pct_saved(w.wire_datagrams, b.wire_datagrams),
            pct_saved(w.wire_bytes, b.wire_bytes),
            pct_saved(sum(0, &|t| t.evaluated_here), sum(1, &|t| t.evaluated_here)),
        );
    }
    let deliveries = sum(0, &|t| t.received as u64);
    let p = &f.publisher;
    println!(
        "publisher participant: {} datagrams / {} bytes sent while the filtering phase ran: the writer's \
         {} / {} above, plus discovery (SPDP, SEDP) and liveliness",
        p.datagrams_sent, p.bytes_sent, w.wire_datagrams, w.wire_bytes
    );
    println!(
        "source validation: {} control submessages from an address their participant was not \
         discovered at dropped, {} participants re-bound after a move (docs/security.md §6)",
        f.foreign_source, f.rebound
    );
    println!(
        "multicast: {}",
        multicast_line(o, w, deliveries, f.samples, subs.len())
    );
    println!(
        "GAPs: {} GAP submessages told readers which sequence numbers their filter rejected (RTPS 2.5 \
         §8.7.3.2), each in front of the next DATA to that reader{}, so they cost bytes, not datagrams",
        w.gaps_sent,
        if o.best_effort {
            "; best-effort readers get them too (§8.4.9.1.4: a change not relevant to a reader is a GAP) \
             but no HEARTBEAT or repair"
        } else {
            " or with a HEARTBEAT"
        }
    );
    if o.sparse && deliveries > 0 {
        println!(
            "sparse efficiency: {} datagrams for {deliveries} delivered samples = {:.3} per delivery, {:.0} bytes per delivery",
            w.wire_datagrams,
            w.wire_datagrams as f64 / deliveries as f64,
            w.wire_bytes as f64 / deliveries as f64
        );
    }
}

/// Why the writer multicast or not, in one line.
fn multicast_line(
    o: &DemoArgs,
    w: &WriterCounters,
    deliveries: u64,
    samples: usize,
    readers: usize,
) -> String {
    let (m, u) = (w.samples_multicast, w.samples_unicast);
    if !o.multicast && o.interface.is_none() {
        return format!(
            "off: no subscriber listens on a multicast group (--multicast makes them), so all {u} samples went by unicast"
        );
    }
    let avg = deliveries as f64 / samples.max(1) as f64;
    match o.plan {
        super::Plan::Auto if m == 0 => format!(
            "auto, 0 of {samples} samples multicast: the cost model (docs/filtering.md) weighs 1 + (listeners - passing) \
             datagrams handled for a multicast against one unicast per passing reader; with {avg:.1} of {readers} \
             readers passing a sample on average, unicast was cheaper every time (--plan multicast forces it)"
        ),
        super::Plan::Auto => format!(
            "auto, {m} samples multicast and {u} with unicast: the cost model (docs/filtering.md) chose per \
             sample, a sample passing {avg:.1} of {readers} listeners on average"
        ),
        super::Plan::Unicast => format!("forced off by --plan unicast: {u} samples by unicast"),
        super::Plan::Multicast => format!(
            "forced by --plan multicast: {m} samples multicast, {u} (also) by unicast to readers a group did not cover"
        ),
    }
}

#[cfg(test)]
mod tests;
