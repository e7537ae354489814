//! A multi-homed host (`--link H:A --link H:B`): H has interface `A` (198.18.1.1) towards
//! host A and `B` (198.18.2.1) towards host B, and no route between A and B. A siftdds writer
//! on H with automatic interfaces must reach a reader on A and one on B, each getting every
//! sample exactly once, and a capture of each of H's links must show no DATA sample sent
//! twice towards its reader. Restricted to interface `A` (`--interface A`, or
//! `SIFTDDS_INTERFACES=A`), the writer must reach the reader on A only: the one on B never
//! matches.
//!
//! Must not: count a capture it could not decode as clean (an unreadable or empty capture
//! fails the test).

use std::collections::{BTreeSet, HashMap};
use std::process::Command;
use std::time::Duration;

use siftdds::wire::Message;
use siftdds::wire::submessage::{Submessage, SubmessageOutcome};

use super::{Need, Sites, check, perf_summary, report, run_sites, scope_line};

/// Samples the writer on H writes.
const SAMPLES: u64 = 3000;

/// The shapesizes `shape_main -S` printed (`Square BLUE 010 020 [S]`), in order.
fn shapesizes(out: &str) -> Vec<u64> {
    out.lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            if w.len() < 5 || w[0] != "Square" {
                return None;
            }
            w[4].strip_prefix('[')?.strip_suffix(']')?.parse().ok()
        })
        .collect()
}

/// What a capture of one of H's links holds: UDP datagrams sent by H, the DATA (and DATA_FRAG)
/// submessages of user writers in them, the distinct (writer, sequence number[, fragment])
/// among those, and those sent more than once.
struct LinkSummary {
    datagrams: usize,
    data: usize,
    distinct: usize,
    twice: Vec<String>,
}

/// Decodes the datagrams H sent in a capture: tshark reassembles the IP fragments (siftdds
/// sends datagrams of up to 64 KB, the veth MTU is 1500) and prints each UDP payload, which
/// siftdds' own wire parser then walks submessage by submessage.
fn summarize_capture(file: &std::path::Path, from: &str) -> Result<LinkSummary, String> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(file)
        .args(["-Y", &format!("udp && ip.src == {from}")])
        .args(["-T", "fields", "-e", "frame.number", "-e", "udp.payload"])
        .output()
        .map_err(|e| format!("tshark: {e}"))?;
    check(out.status.success(), || {
        format!(
            "tshark -r {} failed ({}): {}",
            file.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut datagrams = 0;
    let mut sent: HashMap<String, usize> = HashMap::new();
    for line in text.lines() {
        let Some((frame, hex)) = line.split_once('\t') else {
            continue;
        };
        datagrams += 1;
        let bytes = unhex(hex).ok_or_else(|| format!("frame {frame}: bad payload hex"))?;
        let Ok((_, submessages)) = Message::parse(&bytes) else {
            continue; // not RTPS
        };
        for sm in submessages {
            let key = match sm {
                SubmessageOutcome::Accept(Submessage::Data(d)) if !d.writer_id.is_builtin() => {
                    format!("{}/{}", d.writer_id, d.writer_sn)
                }
                SubmessageOutcome::Accept(Submessage::DataFrag(d)) if !d.writer_id.is_builtin() => {
                    format!(
                        "{}/{}/frag{}",
                        d.writer_id, d.writer_sn, d.fragment_starting_num
                    )
                }
                SubmessageOutcome::Malformed(e) => {
                    return Err(format!("frame {frame}: malformed submessage: {e}"));
                }
                _ => continue,
            };
            *sent.entry(key).or_default() += 1;
        }
    }
    let mut twice: Vec<String> = sent
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(k, n)| format!("{k}×{n}"))
        .collect();
    twice.sort();
    Ok(LinkSummary {
        datagrams,
        data: sent.values().sum(),
        distinct: sent.len(),
        twice,
    })
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    let s = s.trim().as_bytes();
    s.chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect()
}

/// H's start-up line: its scope and the addresses it announces, sorted.
fn h_scope(s: &Sites, name: &str) -> Result<(String, Vec<String>), String> {
    let (scope, mut ips) =
        scope_line(&s.err(name)).ok_or_else(|| format!("{name}: no 'siftdds: scope' line"))?;
    ips.sort();
    Ok((scope, ips))
}

#[test]
fn multi_homed_writer_reaches_both_links_once_each() {
    // TRANSIENT_LOCAL KEEP_ALL, so a reader matching after the first writes still gets all;
    // shapesizes 1, 2, 3, … number the samples.
    let script = format!(
        "run capA 40 H tshark -q -i A -f udp -F pcap -w $OUT/A.pcap
         run capB 40 H tshark -q -i B -f udp -F pcap -w $OUT/B.pcap
         for c in capA capB; do
           n=50; until grep -q Capturing $OUT/$c.err 2>/dev/null || [ $n = 0 ]; do sleep 0.1; n=$((n-1)); done
         done
         run subA 30 A $SHAPE_MAIN -S -d 50 -t Square -r -k 0 -D l --read-period 10
         run subB 30 B $SHAPE_MAIN -S -d 50 -t Square -r -k 0 -D l --read-period 10
         sleep 1
         run pub 30 H $SHAPE_MAIN -P -d 50 -t Square -r -k 0 -D l -z 0 --write-period 1 --num-iterations {SAMPLES}
         until_lines subA '^Square ' {SAMPLES} 28; until_lines subB '^Square ' {SAMPLES} 5
         await pub 5; sleep 0.5; stop subA; stop subB; sleep 0.5; stop capA; stop capB
        "
    );
    let test = "multi_homed_writer_reaches_both_links_once_each";
    let needs = [Need::Tool("tshark")];
    let links = ["H:A", "H:B"];
    let Some(s) = run_sites(test, &needs, &links, &script, Duration::from_secs(120)) else {
        return;
    };
    let mut failures = Vec::new();
    match h_scope(&s, "pub") {
        Ok((scope, ips)) if scope == "auto" && ips == ["198.18.1.1", "198.18.2.1"] => {}
        Ok(other) => failures.push(format!(
            "H announces {other:?}, want auto on 198.18.1.1 and 198.18.2.1"
        )),
        Err(e) => failures.push(e),
    }
    for reader in ["subA", "subB"] {
        let sizes = shapesizes(&s.out(reader));
        let distinct: BTreeSet<u64> = sizes.iter().copied().collect();
        let ok = sizes.len() as u64 == SAMPLES && distinct == (1..=SAMPLES).collect();
        report(&format!(
            "{test}: {reader} got {} samples ({} distinct) of {SAMPLES}",
            sizes.len(),
            distinct.len()
        ));
        if !ok {
            failures.push(format!(
                "{reader}: {} samples, {} distinct, want 1..={SAMPLES} once each\n{}",
                sizes.len(),
                distinct.len(),
                s.dump(reader)
            ));
        }
    }
    for (link, h) in [("A", "198.18.1.1"), ("B", "198.18.2.1")] {
        match summarize_capture(&s.path(&format!("{link}.pcap")), h) {
            Ok(c) => {
                report(&format!(
                    "CAPTURE link H–{link}: {} datagrams from H, {} DATA, {} distinct samples, {} sent twice",
                    c.datagrams,
                    c.data,
                    c.distinct,
                    c.twice.len()
                ));
                if !c.twice.is_empty() {
                    failures.push(format!(
                        "link {link}: DATA sent more than once: {:?}",
                        &c.twice[..c.twice.len().min(10)]
                    ));
                }
                if (c.distinct as u64) < SAMPLES {
                    failures.push(format!(
                        "link {link}: only {} distinct DATA from H crossed it, want {SAMPLES}",
                        c.distinct
                    ));
                }
            }
            Err(e) => failures.push(format!(
                "link {link}: {e}\n{}",
                s.dump(&format!("cap{link}"))
            )),
        }
    }
    report(&format!("{test}: topology run {:.1?}", s.elapsed));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn writer_restricted_to_one_link_matches_only_there() {
    // Two writers on H restricted to the link towards A, one by `--interface A` (shape_main,
    // domain 60), one by SIFTDDS_INTERFACES=A (siftdds perf, domain 61); readers on A and B.
    let script = "run shA 25 A $SHAPE_MAIN -S -d 60 -t Square -r --read-period 10
         run shB 25 B $SHAPE_MAIN -S -d 60 -t Square -r --read-period 10
         run perfA 25 A $SIFTDDS perf sub --domain 61 --count 2000
         run perfB 25 B $SIFTDDS perf sub --domain 61 --count 2000
         sleep 0.5
         run shP 25 H $SHAPE_MAIN -P -d 60 -t Square -r --interface A --write-period 5 --num-iterations 600
         run perfP 25 H env SIFTDDS_INTERFACES=A $SIFTDDS perf pub --domain 61 --count 2000
         await shP 25; await perfP 25; await perfA 3; sleep 2
         stop shA; stop shB; stop perfA; stop perfB
        ";
    let test = "writer_restricted_to_one_link_matches_only_there";
    let links = ["H:A", "H:B"];
    let Some(s) = run_sites(test, &[], &links, script, Duration::from_secs(90)) else {
        return;
    };
    let mut failures = Vec::new();
    for p in ["shP", "perfP"] {
        match h_scope(&s, p) {
            Ok((scope, ips)) if scope == "configured" && ips == ["198.18.1.1"] => {}
            Ok(other) => failures.push(format!(
                "{p} announces {other:?}, want configured on 198.18.1.1 only"
            )),
            Err(e) => failures.push(e),
        }
    }
    let matched = |name: &str| s.out(name).contains("on_subscription_matched()");
    let a_samples = shapesizes(&s.out("shA")).len();
    let b_samples = shapesizes(&s.out("shB")).len();
    report(&format!(
        "{test}: shape_main reader A matched {} ({a_samples} samples), reader B matched {} ({b_samples} samples)",
        matched("shA"),
        matched("shB")
    ));
    if !matched("shA") || a_samples == 0 {
        failures.push(format!("reader on A got nothing\n{}", s.dump("shA")));
    }
    if matched("shB") || b_samples > 0 {
        failures.push(format!(
            "reader on B matched a writer restricted to A\n{}",
            s.dump("shB")
        ));
    }
    let a = perf_summary(&s.out("perfA"));
    let b = perf_summary(&s.out("perfB"));
    report(&format!("{test}: perf reader A {a:?}, reader B {b:?}"));
    if a.as_ref()
        .is_none_or(|m| m["samples"] != 2000.0 || m["lost"] != 0.0)
    {
        failures.push(format!("perf reader on A: {a:?}\n{}", s.dump("perfA")));
    }
    // Once matched, `perf sub` prints a `[  1.000s] sub: …` line every second.
    let b_ticked = s.out("perfB").lines().any(|l| l.contains("] sub: "));
    if b_ticked || b.as_ref().is_some_and(|m| m["samples"] > 0.0) {
        failures.push(format!(
            "perf reader on B got samples: {b:?}\n{}",
            s.dump("perfB")
        ));
    }
    report(&format!("{test}: topology run {:.1?}", s.elapsed));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
