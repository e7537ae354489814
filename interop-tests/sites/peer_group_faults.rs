//! Peer-group caching through the router under faults (issue 18, docs/peer-group-cache.md
//! §10), `A:R`, `R:B`: loss on the upstream link (`--impair A:R loss=10`) and the router
//! killed and started again mid-stream. Two shape_main group writers on A print what they
//! wrote (the reference), readers on B must get it byte-identical, once, in order (all of
//! it under loss; a leading and one contiguous run missing across the restart), and
//! `perf pub --peer-group` → `perf sub` checks every PeerGroupSeq sample byte for byte.
//!
//! Must not: pass a case on a count it did not parse from the processes' own output or the
//! captures.

use std::time::Duration;

use siftdds::wire::PID_SIFTDDS_PEER_GROUP_KEY;
use siftdds::wire::submessage::{Submessage, SubmessageOutcome};

use super::peer_group::{PROFILE, abbreviated, counter, each_message};
use super::router::router_case;
use super::{Case, Need, Sites, check, conclude, report, run_sites};

/// The router of the fault tests: the shapes group and the perf tool's group (`siftdds perf
/// pub --peer-group bench`, PeerGroupSeq samples checked byte for byte by `perf sub`).
const FAULT_ROUTER: &str = r#"
[[site]]
name = "A"
kind = "lan"
interfaces = ["A"]

[[site]]
name = "B"
kind = "lan"
interfaces = ["B"]

[[topic]]
name = "PgT"
history_depth = 0

[[topic]]
name = "DDSPerfRDataPG"
history_depth = 0

[[peer_group]]
name = "shapes"
topic = "PgT"
members = ["*"]
common = ["color"]
capacity = 8

[[peer_group]]
name = "bench"
topic = "DDSPerfRDataPG"
members = ["*"]
common = ["common"]
capacity = 8
"#;

/// Samples per shape writer in the fault tests.
const FAULT_N: i64 = 600;
/// PeerGroupSeq samples of the perf writer in the fault tests.
const PERF_N: u64 = 1000;

/// (x, y, size) of each sample of colour `color` a sub printed, in order: shape_main's
/// `<topic> RED x y [size]` or the vendor programs' `sub: <k> RED x=.. y=.. size=..`.
fn shapes(out: &str, topic: &str, color: &str) -> Vec<(i64, i64, i64)> {
    let mut v = Vec::new();
    for l in out.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if !w.contains(&color) {
            continue;
        }
        if w.first() == Some(&topic) && w.len() >= 5 && w[4].starts_with('[') {
            let t = (
                w[2].parse(),
                w[3].parse(),
                w[4].trim_matches(['[', ']']).parse(),
            );
            if let (Ok(x), Ok(y), Ok(z)) = t {
                v.push((x, y, z));
            }
        } else if w.first() == Some(&"sub:") {
            let f = |k: &str| {
                w.iter()
                    .find_map(|t| t.strip_prefix(k))
                    .and_then(|s| s.parse().ok())
            };
            if let (Some(x), Some(y), Some(z)) = (f("x="), f("y="), f("size=")) {
                v.push((x, y, z));
            }
        }
    }
    v
}

/// A reader's samples against what the writer printed it wrote (`-w`): byte-identical
/// values, strictly in the written order, none twice. `gaps_ok`: the samples may miss a
/// leading run (a VOLATILE reader matched after the first writes) and one run inside (the
/// router was down), but must end with the last one written (the stream resumed); otherwise
/// nothing may be missing. Returns how many inside the stream were missing.
fn against_written(
    got: &[(i64, i64, i64)],
    written: &[(i64, i64, i64)],
    gaps_ok: bool,
) -> Result<usize, String> {
    check(written.len() as i64 == FAULT_N, || {
        format!("the writer printed {} of {FAULT_N}", written.len())
    })?;
    let (mut at, mut lead, mut inside, mut runs) = (0usize, 0usize, 0usize, 0usize);
    for s in got {
        let Some(i) = written[at..].iter().position(|d| d == s) else {
            return Err(format!(
                "{s:?} is not a sample written after index {at}: wrong, duplicate or out of order"
            ));
        };
        match (at, i) {
            (_, 0) => {}
            (0, i) => lead = i,
            (_, i) => {
                inside += i;
                runs += 1;
            }
        }
        at += i + 1;
    }
    let tail = written.len() - at;
    let ok = match gaps_ok {
        true => tail == 0 && runs <= 1 && !got.is_empty(),
        false => got.len() == written.len(),
    };
    check(ok, || {
        format!(
            "{} of {}: {lead} missing first, {inside} inside in {runs} runs, {tail} at the end",
            got.len(),
            written.len()
        )
    })?;
    Ok(inside)
}

/// The number just before `word` in `line`.
fn word_before(line: &str, word: &str) -> Option<u64> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let i = words.iter().position(|w| *w == word)?;
    words.get(i.checked_sub(1)?)?.parse().ok()
}

/// The perf subscriber's own checks: its byte-comparison line and its `summary:` loss.
fn perf_sub_result(s: &Sites, name: &str, want_lost: bool) -> Result<String, String> {
    let out = s.out(name);
    let line = out
        .lines()
        .find(|l| l.contains("byte-identical"))
        .ok_or_else(|| format!("no check line\n{}", s.dump(name)))?;
    let (ok, differing) = (word_before(line, "samples"), word_before(line, "differing"));
    let sum = super::perf_summary(&out).ok_or_else(|| format!("no summary\n{}", s.dump(name)))?;
    let received = sum.get("samples").copied().unwrap_or(0.0) as u64;
    // Across a router restart the samples come from the restarted router's writer, a new
    // stream to the reader's continuity check: what it missed is PERF_N - received.
    let lost = match want_lost {
        true => PERF_N.saturating_sub(received),
        false => sum.get("lost").copied().unwrap_or(f64::NAN) as u64,
    };
    let dup = out
        .lines()
        .find(|l| l.starts_with("sub: ") && l.contains(" duplicates, "))
        .and_then(|l| word_before(l, "duplicates,"));
    check(
        differing == Some(0)
            && ok == Some(received)
            && received + lost == PERF_N
            && (want_lost || lost == 0)
            && (!want_lost || received > 0),
        || {
            format!(
                "line {line:?}, received {received}, lost {lost}\n{}",
                s.dump(name)
            )
        },
    )?;
    // The reader's `received` counts not-alive changes too; the highest seq tells whether
    // the last sample arrived (no gap shows a missing last one).
    let reader = out
        .lines()
        .find(|l| l.starts_with("sub: ") && l.contains(" received, "))
        .unwrap_or("?");
    let highest = out
        .lines()
        .find_map(|l| l.strip_prefix("sub: highest seq checked "))
        .unwrap_or("?");
    Ok(format!(
        "{received} of {PERF_N} byte-identical, 0 differing, {lost} lost, reader duplicates \
         {dup:?}; {reader:?}; highest seq checked {highest}"
    ))
}

/// The counters of one router's last line for site A, as `name=value` pairs.
fn counters_of(err: &str) -> Option<String> {
    err.lines()
        .rfind(|l| l.contains("peer-group site A"))
        .map(|l| l.to_string())
}

fn fault_script(body: &str) -> String {
    format!(
        "cat >$OUT/pg.xml <<'EOF'\n{PROFILE}\nEOF\n\
         cat >$OUT/router.toml <<'EOF'\n{FAULT_ROUTER}\nEOF\n{body}"
    )
}

/// The two group writers (`-w`: each prints what it wrote, the reference of the checks).
fn shape_writers(period_ms: u32, durability: char) -> String {
    format!(
        "run red 150 A $SHAPE_MAIN -P -w -t PgT -c RED -r -k 0 -D {durability} -z 0 --write-period {period_ms} --num-iterations {FAULT_N} --qos-file $OUT/pg.xml
         run blue 150 A $SHAPE_MAIN -P -w -t PgT -c BLUE -r -k 0 -D {durability} -z 0 --write-period {period_ms} --num-iterations {FAULT_N} --qos-file $OUT/pg.xml"
    )
}

#[test]
fn peer_group_cache_over_a_lossy_upstream_link() {
    let body = format!(
        "run capA 150 A tshark -q -i R -f udp -F pcap -w $OUT/A.pcap
         sleep 2
         run router 150 R $SIFTDDS router --config $OUT/router.toml
         sleep 1
         run PgT.cyc 130 B $CYCLONE sub -T PgT -k 0 -D t -t 120
         run PgT.sift 130 B $SHAPE_MAIN -S -t PgT -r -k 0 -D l --read-period 5
         run PgT.dirA 130 A $SHAPE_MAIN -S -t PgT -r -k 0 -D l --read-period 5
         run perf.sub 130 B $SIFTDDS perf sub --common-bytes 188 --size 28 --count {PERF_N} --durability transient-local
         sleep 5
         {writers}
         run perf.pub 130 A $SIFTDDS perf pub --common-bytes 188 --size 28 --count {PERF_N} --rate 100 --peer-group bench --durability transient-local
         for c in cyc sift dirA; do until_lines PgT.$c 'BLUE' {FAULT_N} 90; done
         await perf.sub 60
         sleep 3
         for n in PgT.cyc PgT.sift PgT.dirA perf.pub red blue router capA; do stop $n; done
        ",
        // TRANSIENT_LOCAL (as the three-vendor test), the perf pair too: a reader matched
        // late still gets the first samples, so every sample is owed to every reader. (With a
        // VOLATILE perf pair, 2 of 10 runs lost seq 0: the router forwarded it before its
        // writer on B had matched `perf sub`'s reader.)
        writers = shape_writers(10, 'l')
    );
    let test = "peer_group_cache_over_a_lossy_upstream_link";
    let needs = [Need::Tool("tshark"), Need::Peer("cyclone/shapes_cyclone")];
    let impair = [("A:R", "loss=10")];
    let Some(s) = super::run_sites_impaired(
        test,
        &needs,
        &["A:R", "R:B"],
        &impair,
        &fault_script(&body),
        Duration::from_secs(200),
    ) else {
        return;
    };
    let mut cases: Vec<Case> = Vec::new();
    for (color, writer) in [("RED", "red"), ("BLUE", "blue")] {
        let written = shapes(&s.out(writer), "PgT", color);
        for (sub, label) in [
            ("PgT.cyc", "→R→Cyclone(B)"),
            ("PgT.sift", "→R→siftdds(B)"),
            ("PgT.dirA", "→siftdds(A) direct"),
        ] {
            let got = shapes(&s.out(sub), "PgT", color);
            cases.push(router_case(
                "siftdds",
                &format!("{color} siftdds(A){label}, A:R loss=10"),
                "pg-loss",
                against_written(&got, &written, false)
                    .map(|_| format!("{} samples as written, once, in order", got.len()))
                    .map_err(|e| format!("{e}\n{}", s.dump(sub))),
            ));
        }
    }
    cases.push(router_case(
        "siftdds",
        "perf pub --peer-group→R→perf sub, A:R loss=10",
        "pg-loss",
        perf_sub_result(&s, "perf.sub", false),
    ));
    let pub_line = s
        .out("perf.pub")
        .lines()
        .find(|l| l.contains("peer-group bench:"))
        .map(str::to_string);
    let router = counters_of(&s.err("router"));
    let (d, data) = abbreviated(&s.path("A.pcap")).unwrap_or_default();
    report(&format!(
        "lossy A:R: router {router:?}; perf writer {pub_line:?}; capture on A: {} abbreviated, {data} DATA",
        d.len()
    ));
    cases.push(router_case(
        "siftdds",
        "router, A:R loss=10",
        "pg-loss",
        router
            .as_deref()
            .and_then(|l| {
                Some((
                    counter(l, "hits")?,
                    counter(l, "refused_bad")?,
                    counter(l, "collisions")?,
                ))
            })
            .ok_or_else(|| format!("no counters line\n{}", s.dump("router")))
            .and_then(|(hits, bad, coll)| {
                check(hits > 0 && bad == 0 && coll == 0 && !d.is_empty(), || {
                    format!(
                        "hits {hits}, refused_bad {bad}, collisions {coll}, {} abbreviated",
                        d.len()
                    )
                })?;
                Ok(format!("hits={hits}, {} abbreviated on A:R", d.len()))
            }),
    ));
    conclude(test, &cases, &s);
}

/// The definitions (user DATA with `PID_SIFTDDS_PEER_GROUP_KEY` 0x8100 in the inline QoS,
/// docs/peer-group-cache.md §4.1) on a capture, per writer (sender prefix and entity id):
/// `writer: t1 t2 …` (seconds into the capture), so a run tells which member defined when.
fn definitions_per_writer(file: &std::path::Path) -> Result<String, String> {
    let mut per: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    each_message(file, |t, _, prefix, sm| {
        if let SubmessageOutcome::Accept(Submessage::Data(d)) = sm {
            let defines = d
                .inline_qos
                .as_ref()
                .is_some_and(|q| q.find(PID_SIFTDDS_PEER_GROUP_KEY).is_some());
            if defines && !d.writer_id.is_builtin() {
                let w = format!("{:02x?}/{:?}", prefix.0, d.writer_id);
                per.entry(w.replace(", ", "")).or_default().push(t);
            }
        }
    })?;
    Ok(per
        .iter()
        .map(|(w, ts)| {
            let ts: Vec<String> = ts.iter().map(|t| format!("{t:.1}")).collect();
            format!("{w}: {}", ts.join(" "))
        })
        .collect::<Vec<_>>()
        .join("; "))
}

#[test]
fn peer_group_cache_across_a_router_restart() {
    let body = format!(
        "run capA 150 A tshark -q -i R -f udp -F pcap -w $OUT/A.pcap
         sleep 2
         run router 150 R $SIFTDDS router --config $OUT/router.toml
         sleep 1
         run PgT.sift 130 B $SHAPE_MAIN -S -t PgT -r -k 0 -D v --read-period 5
         run perf.sub 130 B $SIFTDDS perf sub --common-bytes 188 --size 28 --count {PERF_N} --idle-timeout 30
         sleep 5
         {writers}
         run perf.pub 130 A $SIFTDDS perf pub --common-bytes 188 --size 28 --count {PERF_N} --rate 50 --peer-group bench
         until_lines PgT.sift 'BLUE' 150 60
         kill9 router
         sleep 3
         run router2 120 R $SIFTDDS router --config $OUT/router.toml
         until_lines blue 'BLUE' {FAULT_N} 90
         until_lines PgT.sift '\\[{FAULT_N}\\]' 2 30
         await perf.pub 40
         await perf.sub 40
         for n in PgT.sift red blue router2 capA; do stop $n; done
        ",
        writers = shape_writers(40, 'v')
    );
    let test = "peer_group_cache_across_a_router_restart";
    let needs = [Need::Tool("tshark")];
    let Some(s) = run_sites(
        test,
        &needs,
        &["A:R", "R:B"],
        &fault_script(&body),
        Duration::from_secs(200),
    ) else {
        return;
    };
    let mut cases: Vec<Case> = Vec::new();
    let mut lost = Vec::new();
    for (color, writer) in [("RED", "red"), ("BLUE", "blue")] {
        let written = shapes(&s.out(writer), "PgT", color);
        let routed = shapes(&s.out("PgT.sift"), "PgT", color);
        let r = against_written(&routed, &written, true).and_then(|missing| {
            check(missing > 0, || {
                "nothing missing inside the stream: the restart was not mid-stream".to_string()
            })?;
            lost.push(format!("{color} {missing}"));
            Ok(format!(
                "{} of {FAULT_N} as written, once, in order, to the last; {missing} lost while the router was down",
                routed.len()
            ))
        });
        cases.push(router_case(
            "siftdds",
            &format!("{color} siftdds(A)→R(restarted)→siftdds(B)"),
            "pg-restart",
            r.map_err(|e| format!("{e}\n{}", s.dump("PgT.sift"))),
        ));
    }
    cases.push(router_case(
        "siftdds",
        "perf pub --peer-group→R(restarted)→perf sub",
        "pg-restart",
        perf_sub_result(&s, "perf.sub", true),
    ));
    let (first, second) = (
        counters_of(&s.err("router")),
        counters_of(&s.err("router2")),
    );
    let (d, data) = abbreviated(&s.path("A.pcap")).unwrap_or_default();
    report(&format!(
        "restart: first router {first:?}; second {second:?}; lost {lost:?}; capture on A: {} abbreviated, {data} DATA; definitions per writer (s into the capture): {}",
        d.len(),
        definitions_per_writer(&s.path("A.pcap")).unwrap_or_else(|e| e)
    ));
    cases.push(router_case(
        "siftdds",
        "restarted router",
        "pg-restart",
        second
            .as_deref()
            .and_then(|l| {
                Some((
                    counter(l, "defines")?,
                    counter(l, "hits")?,
                    counter(l, "refused_bad")?,
                    counter(l, "collisions")?,
                ))
            })
            .ok_or_else(|| format!("no counters line\n{}", s.dump("router2")))
            .and_then(|(defines, hits, bad, coll)| {
                // Its cache started empty, so its restores needed definitions sent to it
                // after the restart. Not every member must define again: one that keeps
                // sending in full delivers nothing wrong (seen once: 2 of 3 defined,
                // docs/peer-group-cache.md §10).
                check(defines >= 1 && hits > 0 && bad == 0 && coll == 0, || {
                    format!("defines {defines}, hits {hits}, refused_bad {bad}, collisions {coll}")
                })?;
                Ok(format!("defines={defines} hits={hits} after the restart"))
            }),
    ));
    conclude(test, &cases, &s);
}
