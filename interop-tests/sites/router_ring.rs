//! A ring of four routers A–B–C–D–A (`router::paths`, docs/router.md "Paths"), one site
//! behind each, the link RA–RB lossy: a Cyclone writer on A and a siftdds writer on C
//! (TRANSIENT_LOCAL, KEEP_ALL: the siftdds writer does not wait for its readers), Cyclone and
//! siftdds readers on every site, each getting every sample exactly once and in order;
//! captures of the four inter-router links show each sample crossing each link at most once
//! and the WAN carrying no more than 1.1 × the shortest-path ideal (each sample on the three
//! links of its tree). Then, mid-stream, the link RB–RC is cut (and restored) and the router
//! RB killed, under two streams from A at once: a reliable TRANSIENT_LOCAL KEEP_ALL one, which
//! every reader on C and D must get whole, exactly once and in order (the new children in the
//! trees are written again what they lacked, `router::replay`), and a reliable VOLATILE one,
//! which loses at most what was written during the detection time (plus a heartbeat interval
//! for the change to spread) per failure, at most once and in order; the gaps are measured.
//!
//! Must not: pass a case on a count it did not parse from the processes' own output or the
//! captures.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use siftdds::wire::inline_qos::InlineQos;
use siftdds::wire::submessage::{DataPayload, Submessage, SubmessageOutcome};

use super::router::{exactly, received, router_case};
use super::router_mesh::{config, start_router, udp_payloads, user_data};
use super::{Need, check, conclude, report, run_sites_impaired};

/// Samples per writer in the steady state.
const N: i64 = 400;
/// Samples of the failover stream, one every [`PERIOD_MS`].
const F: i64 = 3000;
const PERIOD_MS: i64 = 10;
/// The inter-router links, each captured on its first node's interface to the second.
const LINKS: [(&str, &str); 4] = [("RA", "RB"), ("RB", "RC"), ("RC", "RD"), ("RD", "RA")];

/// Per original sample (PID_ORIGINAL_WRITER_INFO: writer GUID and sequence number, as text)
/// in a capture of one link: how many distinct RTPS samples (sender, writer, sequence
/// number) carried it, either way (more than one is a sample that crossed the link twice),
/// and its payload length. Instance state changes (key-only or empty DATA) are not counted.
fn copies_per_sample(file: &std::path::Path) -> Result<HashMap<String, (usize, usize)>, String> {
    let mut carriers: HashMap<String, (HashSet<String>, usize)> = HashMap::new();
    for bytes in udp_payloads(file)? {
        let Ok((header, submessages)) = siftdds::wire::Message::parse(&bytes) else {
            continue;
        };
        for sm in submessages {
            let SubmessageOutcome::Accept(Submessage::Data(d)) = sm else {
                continue;
            };
            let Some(id) = d
                .inline_qos
                .as_ref()
                .and_then(|l| InlineQos::parse(l).original_writer_info)
            else {
                continue;
            };
            // Samples only: an instance's state change (a dispose or unregister with a key or
            // no payload, e.g. the unregisters a router sends when a writer leaves) is not one.
            let DataPayload::Data(p) = d.payload else {
                continue;
            };
            let len = p.len();
            let e = carriers
                .entry(format!("{:?}/{}", id.writer_guid, id.sequence_number.0))
                .or_default();
            e.0.insert(format!(
                "{:?}/{}/{}",
                header.guid_prefix, d.writer_id, d.writer_sn
            ));
            e.1 = len;
        }
    }
    Ok(carriers
        .into_iter()
        .map(|(k, (v, len))| (k, (v.len(), len)))
        .collect())
}

#[test]
fn a_ring_of_four_routers_forwards_along_shortest_paths_and_fails_over() {
    let mut script = String::new();
    let ring = ["A", "B", "C", "D"];
    for (i, site) in ring.iter().enumerate() {
        let (prev, next) = (ring[(i + 3) % 4], ring[(i + 1) % 4]);
        let name = format!("r{}", site.to_lowercase());
        let node = format!("R{site}");
        let links = [
            (format!("R{next}"), format!("$ADDR_R{next}_R{site}")),
            (format!("R{prev}"), format!("$ADDR_R{prev}_R{site}")),
        ];
        let links: Vec<(&str, &str)> = links
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        // TRANSIENT_LOCAL routes keep all (their default is the upstream writers' HISTORY,
        // KEEP_LAST 1 while none is known).
        let config = config(i as u64 + 1, Some(site), &links)
            + "[[topic]]\nname = \"Ring\"\nhistory_depth = 0\n"
            + "[[topic]]\nname = \"FailT\"\nhistory_depth = 0\n";
        script.push_str(&start_router(&name, &node, &config, 170));
    }
    let captures: String = LINKS
        .iter()
        .map(|(x, y)| {
            format!("run cap{x}{y} 60 {x} tshark -q -i {y} -f udp -F pcap -w $OUT/{x}-{y}.pcap\n")
        })
        .collect();
    script.push_str(&format!(
        "sleep 1
         for x in A B C D; do
           run $x.cyc 80 $x $CYCLONE sub -T Ring -k 0 -D t -n {both} -t 70
           run $x.sift 80 $x $SHAPE_MAIN -S -t Ring -r -k 0 -D l --read-period 5
         done
         sleep 10
         {captures}
         sleep 2
         run A.pub 80 A $CYCLONE pub -T Ring -c RED -m 3 -k 0 -D t -i 5 -n {N} -l 1000 -t 70
         run C.pub 80 C $SHAPE_MAIN -P -t Ring -c BLUE -r -k 0 -D l -z 0 --write-period 5 --num-iterations {N}
         for x in A B C D; do await $x.cyc 70; done
         for x in A B C D; do until_lines $x.sift '^Ring ' {both} 15; done
         sleep 2
         for x in {caps}; do stop $x; done
         # Failover: a stream from A, readers on C and D; cut RB–RC, restore it, kill RB.
         run F.C.cyc 80 C $CYCLONE sub -T Fail -k 0 -t 70
         run F.C.sift 80 C $SHAPE_MAIN -S -t Fail -r -k 0 --read-period 5
         run F.D.sift 80 D $SHAPE_MAIN -S -t Fail -r -k 0 --read-period 5
         run T.C.cyc 80 C $CYCLONE sub -T FailT -k 0 -D t -t 70
         run T.C.sift 80 C $SHAPE_MAIN -S -t FailT -r -k 0 -D l --read-period 5
         run T.D.sift 80 D $SHAPE_MAIN -S -t FailT -r -k 0 -D l --read-period 5
         sleep 8
         run F.pub 80 A $CYCLONE pub -T Fail -c RED -m 1 -k 0 -i {PERIOD_MS} -n {F} -l 1000 -t 70
         run T.pub 80 A $CYCLONE pub -T FailT -c BLUE -m 1 -k 0 -D t -i {PERIOD_MS} -n {F} -l 1000 -t 70
         sleep 6; echo \"cut $(date +%s.%N)\" >>$OUT/events; site RB ip link set RC down
         sleep 8; echo \"restore $(date +%s.%N)\" >>$OUT/events; site RB ip link set RC up
         sleep 8; echo \"kill $(date +%s.%N)\" >>$OUT/events; kill9 rb
         await F.pub 60; await T.pub 60; sleep 3
         for n in F.C.cyc F.C.sift F.D.sift T.C.cyc T.C.sift T.D.sift A.sift B.sift C.sift D.sift A.pub C.pub ra rc rd; do stop $n; done
        ",
        both = 2 * N,
        caps = LINKS
            .iter()
            .map(|(x, y)| format!("cap{x}{y}"))
            .collect::<Vec<_>>()
            .join(" "),
    ));
    let test = "a_ring_of_four_routers_forwards_along_shortest_paths_and_fails_over";
    let needs = [Need::Tool("tshark"), Need::Peer("cyclone/shapes_cyclone")];
    let links = [
        "A:RA", "B:RB", "C:RC", "D:RD", "RA:RB", "RB:RC", "RC:RD", "RD:RA",
    ];
    let impair = [("RA:RB", "loss=10")];
    let Some(s) = run_sites_impaired(
        test,
        &needs,
        &links,
        &impair,
        &script,
        Duration::from_secs(220),
    ) else {
        return;
    };
    let mut cases = Vec::new();
    // 1. Every reader: each writer's samples exactly once and in order.
    let xs: Vec<i64> = (0..N).map(|i| 10 + 5 * i).collect();
    let sizes: Vec<i64> = (1..=N).collect();
    for site in ["A", "B", "C", "D"] {
        for reader in ["cyc", "sift"] {
            let sub = format!("{site}.{reader}");
            let out = s.out(&sub);
            let of = |color: &str| -> String {
                out.lines()
                    .filter(|l| l.contains(color))
                    .map(|l| format!("{l}\n"))
                    .collect()
            };
            let red = exactly(&s, &sub, received(&of("RED"), "Ring", "x"), &xs, None);
            let blue = exactly(
                &s,
                &sub,
                received(&of("BLUE"), "Ring", "size"),
                &sizes,
                None,
            );
            let result = match (red, blue) {
                (Ok(_), Ok(_)) => Ok(format!("Cyclone {N} and siftdds {N} once in order")),
                (Err(e), _) => Err(format!("Cyclone writer: {e}")),
                (_, Err(e)) => Err(format!("siftdds writer: {e}")),
            };
            cases.push(router_case(
                "Cyclone",
                &format!("A(Cyclone)+C(siftdds)→{site} {reader}"),
                "ring exactly once",
                result,
            ));
        }
    }
    // 2. The WAN: each of the 2N samples on the 3 links of its tree, each at most once.
    let mut crossings = 0;
    let mut once = 0;
    let mut total = 0;
    let mut per_link = Vec::new();
    let mut wan = Ok(());
    // Each original sample: the links it crossed, and the most copies on one link.
    let mut links_of: HashMap<String, usize> = HashMap::new();
    let mut size_of: HashMap<String, usize> = HashMap::new();
    let mut twice = 0;
    for (x, y) in LINKS {
        let file = s.path(&format!("{x}-{y}.pcap"));
        match user_data(&file).and_then(|d| Ok((d, copies_per_sample(&file)?))) {
            Ok(((_, distinct, b_once, b_total), copies)) => {
                crossings += distinct;
                once += b_once;
                total += b_total;
                twice += copies.values().filter(|(c, _)| *c > 1).count();
                for (k, (_, len)) in copies {
                    *links_of.entry(k.clone()).or_default() += 1;
                    size_of.insert(k, len);
                }
                per_link.push(format!("{x}–{y} {distinct} samples {b_once} B"));
            }
            Err(e) => wan = Err(e),
        }
    }
    let off_tree = links_of.values().filter(|n| **n > 3).count();
    report(&format!(
        "ring WAN per original sample: {} samples seen, {twice} (sample, link) pairs with more than one copy, {off_tree} samples on more than the 3 links of a tree",
        links_of.len()
    ));
    let ideal_crossings = 2 * N as usize * 3;
    // The ideal from the topology: every sample on the 3 links of its tree, once.
    let ideal: usize = size_of.values().map(|len| 3 * len).sum();
    report(&format!(
        "ring WAN: {crossings} sample crossings (ideal {ideal_crossings}), {once} B once (ideal {ideal} B, ratio {:.3}), {total} B with repairs (ratio {:.3}); {}",
        once as f64 / ideal.max(1) as f64,
        total as f64 / ideal.max(1) as f64,
        per_link.join(", ")
    ));
    let wan = wan.and_then(|()| {
        check(
            twice == 0
                && links_of.len() == 2 * N as usize
                && (once as f64) <= 1.1 * ideal as f64
                && crossings > 0,
            || {
                format!(
                    "{twice} samples twice on a link, {} samples seen of {}, {crossings} crossings (ideal {ideal_crossings}): {}",
                    links_of.len(),
                    2 * N,
                    per_link.join(", ")
                )
            },
        )
        .map(|()| {
            format!("each sample at most once per link; {crossings} crossings of {ideal_crossings} ideal, {off_tree} samples off the tree, {once} B vs {ideal} B ideal")
        })
    });
    cases.push(router_case(
        "siftdds",
        "RA–RB–RC–RD–RA",
        "WAN ≤ 1.1 ideal",
        wan,
    ));
    // 3. Failover: at most once, in order, the last sample included; the gaps measured.
    let last = 10 + 5 * (F - 1);
    // The TRANSIENT_LOCAL KEEP_ALL stream: whole, exactly once and in order.
    let all: Vec<i64> = (0..F).map(|i| 10 + 5 * i).collect();
    for (sub, label) in [
        ("T.C.cyc", "Cyclone(C)"),
        ("T.C.sift", "siftdds(C)"),
        ("T.D.sift", "siftdds(D)"),
    ] {
        let got = received(&s.out(sub), "FailT", "x");
        report(&format!(
            "ring failover TRANSIENT_LOCAL, {label}: {} of {F} samples, {} missing",
            got.0.len(),
            all.iter().filter(|x| !got.0.contains(x)).count()
        ));
        cases.push(router_case(
            "Cyclone",
            &format!("Cyclone(A) TRANSIENT_LOCAL→{label}"),
            "cut, restore, kill: nothing lost",
            exactly(&s, sub, got, &all, None),
        ));
    }
    // The VOLATILE stream may lose what was written while the failure went unnoticed: the
    // detection time (3 s) and a heartbeat interval (0.5 s) for the change to spread, per
    // failure (the cut and the kill; the restore loses nothing), at one sample per period.
    let per_failure = (3_000 + 500) / PERIOD_MS;
    for (sub, label) in [
        ("F.C.cyc", "Cyclone(C)"),
        ("F.C.sift", "siftdds(C)"),
        ("F.D.sift", "siftdds(D)"),
    ] {
        let (xs, _) = received(&s.out(sub), "Fail", "x");
        let in_order = xs.windows(2).all(|p| p[0] < p[1]);
        let mut gaps: Vec<i64> = xs
            .windows(2)
            .map(|p| (p[1] - p[0]) / 5 - 1)
            .filter(|g| *g > 0)
            .collect();
        gaps.sort_unstable_by(|a, b| b.cmp(a));
        gaps.truncate(3);
        let ms: Vec<String> = gaps.iter().map(|g| format!("{}", g * PERIOD_MS)).collect();
        report(&format!(
            "ring failover, {label}: {} of {F} samples, in order {in_order}, longest gaps {gaps:?} samples ≈ [{}] ms",
            xs.len(),
            ms.join(", ")
        ));
        let lost = F - xs.len() as i64;
        let ok = in_order
            && xs.last() == Some(&last)
            && gaps.iter().all(|g| *g <= per_failure)
            && lost <= 2 * per_failure;
        cases.push(router_case(
            "Cyclone",
            &format!("Cyclone(A)→{label}"),
            "cut, restore, kill",
            check(ok, || {
                format!(
                    "{} samples ({lost} lost, at most {} allowed), in order {in_order}, last {:?} (want {last}), gaps {gaps:?} (each at most {per_failure})\n{}\n{}",
                    xs.len(),
                    2 * per_failure,
                    xs.last(),
                    s.dump(sub),
                    s.dump("rc")
                )
            })
            .map(|()| format!("once in order, {lost} lost, gaps {gaps:?} samples × {PERIOD_MS} ms")),
        ));
    }
    for r in ["ra", "rc", "rd"] {
        if let Some(l) = s.err(r).lines().find(|l| l.contains("router paths:")) {
            report(&format!("{r}: {l}"));
        }
    }
    conclude(test, &cases, &s);
}
