//! Peer-group caching through the router (issue 18, docs/peer-group-cache.md), `A:R`, `R:B`:
//! two siftdds publishers of one group on A (shape_main, `<siftdds_peer_group>` in their QoS
//! profile, common member `color`), the router on R as the intermediary (`[[peer_group]]`),
//! readers of Cyclone 0.10, Fast DDS 2.9 and siftdds (one XCDR1, one XCDR2-only, so the
//! router re-serializes restored samples) on B and a Cyclone reader on A. Every
//! reader gets every sample of both writers, in order, none lost (the values a direct run
//! delivers: sizes 1..=N per colour); a capture on A's link to R shows abbreviated
//! submessages (vendor 0x81) only towards the router's address, one on R's link to B and one
//! on A's loopback (towards the Cyclone reader on A) show none; the router's counters show
//! restores.
//!
//! Must not: pass a case on a count it did not parse from the processes' own output or the
//! captures.

use std::process::Command;
use std::time::Duration;

use siftdds::wire::GuidPrefix;
use siftdds::wire::submessage::{Submessage, SubmessageOutcome};
use siftdds::wire::{
    ABBREVIATED_FLAG_ALIAS, ABBREVIATED_FLAG_NARROW, Message, SIFTDDS_ABBREVIATED_DATA,
};

use super::router::{exactly, received, router_case, transcoded_samples};
use super::{Case, Need, Sites, check, conclude, report, run_sites};

/// Samples per writer.
const N: i64 = 400;

pub(super) const PROFILE: &str = r#"<dds><qos_library name="pg"><qos_profile name="members" is_default_qos="true">
  <siftdds_peer_group name="shapes" topic="PgT">
    <member>*</member>
    <common>color</common>
    <intermediary>siftdds-router-*</intermediary>
    <capacity>8</capacity>
  </siftdds_peer_group>
</qos_profile></qos_library></dds>"#;

const ROUTER: &str = r#"
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

[[peer_group]]
name = "shapes"
topic = "PgT"
members = ["*"]
common = ["color"]
capacity = 8
"#;

/// Calls `f` with the destination and each RTPS submessage of every UDP datagram in a
/// capture.
fn each_submessage(
    file: &std::path::Path,
    mut f: impl FnMut(&str, &SubmessageOutcome<'_>),
) -> Result<(), String> {
    each_message(file, |_, dst, _, sm| f(dst, sm))
}

/// Calls `f` with the capture time (seconds from the first frame), the destination, the
/// sender's GUID prefix (the RTPS header's) and each RTPS submessage of every UDP datagram
/// in a capture.
pub(super) fn each_message(
    file: &std::path::Path,
    mut f: impl FnMut(f64, &str, GuidPrefix, &SubmessageOutcome<'_>),
) -> Result<(), String> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(file)
        .args([
            "-Y",
            "udp",
            "-T",
            "fields",
            "-e",
            "frame.time_relative",
            "-e",
            "ip.dst",
            "-e",
            "udp.payload",
        ])
        .output()
        .map_err(|e| format!("tshark: {e}"))?;
    check(out.status.success(), || {
        format!(
            "tshark -r {} failed: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let mut fields = line.split('\t');
        let (Some(t), Some(dst), Some(hex)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let Some(bytes) = unhex(hex) else {
            continue;
        };
        let Ok((header, submessages)) = Message::parse(&bytes) else {
            continue;
        };
        let t = t.trim().parse().unwrap_or(f64::NAN);
        for sm in submessages {
            f(t, dst, header.guid_prefix, &sm);
        }
    }
    Ok(())
}

/// What a capture carried: the destination of each abbreviated submessage, and how many
/// user DATA submessages (so a check of "none abbreviated" is not vacuous).
pub(super) fn abbreviated(file: &std::path::Path) -> Result<(Vec<String>, usize), String> {
    let (mut dsts, mut data) = (Vec::new(), 0);
    each_submessage(file, |dst, sm| match sm {
        SubmessageOutcome::NotUnderstood { id, .. } if *id == SIFTDDS_ABBREVIATED_DATA => {
            dsts.push(dst.to_string());
        }
        SubmessageOutcome::Accept(Submessage::Data(d)) if !d.writer_id.is_builtin() => {
            data += 1;
        }
        _ => {}
    })?;
    Ok((dsts, data))
}

/// Of a capture's abbreviated submessages, how many name their key by alias (flag A,
/// docs/peer-group-cache.md §4.2), and how many with the one-octet alias (flag N).
pub(super) fn aliased(file: &std::path::Path) -> Result<(usize, usize), String> {
    let (mut alias, mut narrow) = (0, 0);
    each_submessage(file, |_, sm| {
        if let SubmessageOutcome::NotUnderstood { id, flags, .. } = sm {
            if *id == SIFTDDS_ABBREVIATED_DATA && flags & ABBREVIATED_FLAG_ALIAS != 0 {
                alias += 1;
                narrow += usize::from(flags & ABBREVIATED_FLAG_NARROW != 0);
            }
        }
    })?;
    Ok((alias, narrow))
}

/// How many user DATA submessages of a capture carry an XCDR2 payload (encapsulation
/// identifiers 0x0006..=0x000b, XTypes 1.3 §7.6.3.1.2), and how many another one.
fn xcdr2_data(file: &std::path::Path) -> Result<(usize, usize), String> {
    let (mut xcdr2, mut other) = (0, 0);
    each_submessage(file, |_, sm| {
        let SubmessageOutcome::Accept(Submessage::Data(d)) = sm else {
            return;
        };
        if d.writer_id.is_builtin() {
            return;
        }
        if let Some([hi, lo, ..]) = d.payload.bytes() {
            match u16::from_be_bytes([*hi, *lo]) {
                0x0006..=0x000b => xcdr2 += 1,
                _ => other += 1,
            }
        }
    })?;
    Ok((xcdr2, other))
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    let s = s.trim().replace(':', "");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The lines of `out` about colour `color` (both output formats name it as a word).
fn of_color(out: &str, color: &str) -> String {
    out.lines()
        .filter(|l| l.split_whitespace().any(|w| w == color))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The router's last counters line for site A: `hits=… defines=… …`.
fn router_counters(s: &Sites) -> Option<String> {
    s.err("router")
        .lines()
        .rfind(|l| l.contains("peer-group site A"))
        .map(|l| l.to_string())
}

pub(super) fn counter(line: &str, name: &str) -> Option<u64> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{name}=")))
        .and_then(|v| v.parse().ok())
}

#[test]
fn peer_group_cache_through_the_router_to_three_vendors() {
    let script = format!(
        "cat >$OUT/pg.xml <<'EOF'\n{PROFILE}\nEOF\n\
         cat >$OUT/router.toml <<'EOF'\n{ROUTER}\nEOF\n\
         echo $ADDR_R_A >$OUT/router_addr
         run capA 120 A tshark -q -i R -f udp -F pcap -w $OUT/A.pcap
         run capLo 120 A tshark -q -i lo -f udp -F pcap -w $OUT/lo.pcap
         run capB 120 R tshark -q -i B -f udp -F pcap -w $OUT/B.pcap
         sleep 2
         run router 120 R $SIFTDDS router --config $OUT/router.toml
         sleep 1
         run PgT.cyc 90 B $CYCLONE sub -T PgT -k 0 -D t -t 80
         run PgT.fast 90 B $FASTDDS sub -T PgT -k 0 -D t -t 80
         run PgT.sift 90 B $SHAPE_MAIN -S -t PgT -r -k 0 -D l --read-period 5
         run PgT.x2 90 B $SHAPE_MAIN -S -t PgT -r -k 0 -D l -x 2 --read-period 5
         run PgT.cycA 90 A $CYCLONE sub -T PgT -k 0 -D t -t 80
         sleep 4
         run red 90 A $SHAPE_MAIN -P -t PgT -c RED -r -k 0 -D l -z 0 --write-period 10 --num-iterations {N} --qos-file $OUT/pg.xml
         run blue 90 A $SHAPE_MAIN -P -t PgT -c BLUE -r -k 0 -D l -z 0 --write-period 10 --num-iterations {N} --qos-file $OUT/pg.xml
         for c in cyc fast sift x2 cycA; do until_lines PgT.$c 'BLUE' {N} 40; done
         sleep 4
         for n in PgT.cyc PgT.fast PgT.sift PgT.x2 PgT.cycA red blue router capA capLo capB; do stop $n; done
        "
    );
    let test = "peer_group_cache_through_the_router_to_three_vendors";
    let needs = [
        Need::Tool("tshark"),
        Need::Peer("cyclone/shapes_cyclone"),
        Need::Peer("fastdds/shapes_fastdds"),
    ];
    let Some(s) = run_sites(
        test,
        &needs,
        &["A:R", "R:B"],
        &script,
        Duration::from_secs(160),
    ) else {
        return;
    };
    let sizes: Vec<i64> = (1..=N).collect();
    let mut cases: Vec<Case> = Vec::new();
    for (sub, label) in [
        ("PgT.cyc", "Cyclone(B)"),
        ("PgT.fast", "FastDDS(B)"),
        ("PgT.sift", "siftdds(B)"),
        ("PgT.x2", "siftdds(B, XCDR2 only)"),
        ("PgT.cycA", "Cyclone(A)"),
    ] {
        for color in ["RED", "BLUE"] {
            let got = received(&of_color(&s.out(sub), color), "PgT", "size");
            let path = if sub == "PgT.cycA" { "→" } else { "→R→" };
            cases.push(router_case(
                "siftdds",
                &format!("{color} siftdds(A){path}{label}"),
                "peer-group",
                exactly(&s, sub, got, &sizes, None),
            ));
        }
    }
    let router_addr = std::fs::read_to_string(s.path("router_addr")).unwrap_or_default();
    let router_addr = router_addr.trim();
    let a = abbreviated(&s.path("A.pcap"));
    cases.push(router_case(
        "siftdds",
        "A→R capture",
        "abbreviated",
        a.and_then(|(d, data)| {
            let elsewhere = d.iter().filter(|x| *x != router_addr).count();
            check(!d.is_empty() && elsewhere == 0, || {
                format!(
                    "{} abbreviated, {elsewhere} not to the router {router_addr}",
                    d.len()
                )
            })?;
            // Writers name the key by alias (flag A), each within its window.
            let (alias, narrow) = aliased(&s.path("A.pcap"))?;
            check(alias == d.len(), || {
                format!("{} abbreviated, {alias} by alias", d.len())
            })?;
            Ok(format!(
                "{} abbreviated ({alias} by alias, {narrow} one-octet), all to the router; \
                 {data} DATA",
                d.len()
            ))
        }),
    ));
    for (file, label) in [("B.pcap", "R→B capture"), ("lo.pcap", "A loopback capture")] {
        let got = abbreviated(&s.path(file));
        cases.push(router_case(
            "siftdds",
            label,
            "abbreviated",
            got.and_then(|(d, data)| {
                check(d.is_empty() && data > 0, || {
                    format!("{} abbreviated submessages, {data} DATA", d.len())
                })?;
                Ok(format!("0 abbreviated, {data} DATA"))
            }),
        ));
    }
    let line = router_counters(&s);
    report(&format!("router counters: {line:?}"));
    cases.push(router_case(
        "siftdds",
        "router",
        "restores",
        line.as_deref()
            .and_then(|l| Some((counter(l, "hits")?, counter(l, "defines")?)))
            .ok_or_else(|| format!("no counters line\n{}", s.dump("router")))
            .and_then(|(hits, defines)| {
                check(hits > 0 && defines > 0, || {
                    format!("hits {hits}, defines {defines}")
                })?;
                Ok(format!("hits={hits} defines={defines}"))
            }),
    ));
    // The XCDR2-only reader's downstream writer announces XCDR2, so the router re-serializes
    // every sample it forwards to it, restored ones included (`router::transcode`): of the 2N
    // samples, only the `defines` definitions arrived in full, so at least `hits` of the
    // transcoded ones were restored first (the router re-encodes a change once, whichever
    // downstream writers send it). The capture on R's link to B must show them as XCDR2: the
    // siftdds reader also decodes XCDR1, so its output alone would not tell (checked by
    // mutation: with the re-serialization switched off it printed every sample).
    let transcoded = transcoded_samples(&s, "router");
    let hits = line.as_deref().and_then(|l| counter(l, "hits"));
    let want = 2 * N;
    cases.push(router_case(
        "siftdds",
        "router",
        "restored, then transcoded",
        xcdr2_data(&s.path("B.pcap")).and_then(|(x2, other)| match (transcoded, hits) {
            (Some(t), Some(h)) if t >= want && h > 0 && x2 >= want as usize => Ok(format!(
                "transcoded {t} of {want} samples, {h} of them restored; R→B: {x2} XCDR2 \
                 DATA, {other} other"
            )),
            (t, h) => Err(format!(
                "transcoded {t:?}, hits {h:?}, R→B {x2} XCDR2 DATA; want at least {want} \
                 of each and hits > 0\n{}",
                s.dump("router")
            )),
        }),
    ));
    conclude(test, &cases, &s);
}
