//! Peer-group caching across data representations (issue 18, docs/peer-group-cache.md §5,
//! docs/router.md *Data representations*), `A:R`, `R:B`: two shape_main group writers on A
//! write XCDR1 samples (abbreviated to the router after their definitions), the router on R
//! restores them and forwards them to an XCDR2-only siftdds reader on B (each restored
//! sample re-serialized, `router::transcode`) and to an XCDR1 siftdds reader on B (the
//! control, no conversion). Both readers get every sample of both writers once, in order,
//! with the values written; the router's peer-group counters show restores (hits > 0) and
//! its transcoding counter at least as many conversions as samples went to the XCDR2
//! reader restored; a capture on R's link to B shows user DATA in both encapsulations
//! (XCDR2 ids 0x0006..=0x000b for the XCDR2 reader: the reader decodes an XCDR1 payload
//! too, so its values alone would not show the conversion).
//!
//! Must not: pass a case on a count it did not parse from the processes' own output.

use std::time::Duration;

use siftdds::wire::submessage::{Submessage, SubmessageOutcome};

use super::pgcache::{PROFILE, counter, each_submessage};
use super::router::{exactly, received, router_case};
use super::{Case, Need, check, conclude, report, run_sites};

/// Samples per writer.
const N: i64 = 150;

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

/// User DATA on a capture with an XCDR1 and with an XCDR2 encapsulation id (RTPS 2.5
/// §10.5, XTypes 1.3 §7.6.3.1.2: 0x0000..=0x0003 XCDR1, 0x0006..=0x000b XCDR2).
fn encapsulations(file: &std::path::Path) -> Result<(usize, usize), String> {
    let (mut x1, mut x2) = (0, 0);
    each_submessage(file, |_, sm| {
        if let SubmessageOutcome::Accept(Submessage::Data(d)) = sm {
            if d.writer_id.is_builtin() {
                return;
            }
            match d.payload.bytes().and_then(|b| b.get(..2)) {
                Some([0, 0..=3]) => x1 += 1,
                Some([0, 6..=0x0b]) => x2 += 1,
                _ => {}
            }
        }
    })?;
    Ok((x1, x2))
}

/// The lines of `out` about colour `color`.
fn of_color(out: &str, color: &str) -> String {
    out.lines()
        .filter(|l| l.split_whitespace().any(|w| w == color))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn peer_group_restored_samples_transcoded_for_an_xcdr2_reader() {
    let script = format!(
        "cat >$OUT/pg.xml <<'EOF'\n{PROFILE}\nEOF\n\
         cat >$OUT/router.toml <<'EOF'\n{ROUTER}\nEOF\n\
         run capB 60 R tshark -q -i B -f udp -F pcap -w $OUT/B.pcap
         sleep 2
         run router 60 R $SIFTDDS router --config $OUT/router.toml
         sleep 1
         run PgT.x1 50 B $SHAPE_MAIN -S -t PgT -r -k 0 -D l -x 1 --read-period 5
         run PgT.x2 50 B $SHAPE_MAIN -S -t PgT -r -k 0 -D l -x 2 --read-period 5
         sleep 3
         run red 50 A $SHAPE_MAIN -P -t PgT -c RED -r -k 0 -D l -z 0 -x 1 --write-period 10 --num-iterations {N} --qos-file $OUT/pg.xml
         run blue 50 A $SHAPE_MAIN -P -t PgT -c BLUE -r -k 0 -D l -z 0 -x 1 --write-period 10 --num-iterations {N} --qos-file $OUT/pg.xml
         for c in x1 x2; do until_lines PgT.$c 'BLUE' {N} 30; until_lines PgT.$c 'RED' {N} 5; done
         sleep 3
         for n in PgT.x1 PgT.x2 red blue router capB; do stop $n; done
        "
    );
    let test = "peer_group_restored_samples_transcoded_for_an_xcdr2_reader";
    let Some(s) = run_sites(
        test,
        &[Need::Tool("tshark")],
        &["A:R", "R:B"],
        &script,
        Duration::from_secs(80),
    ) else {
        return;
    };
    let sizes: Vec<i64> = (1..=N).collect();
    let mut cases: Vec<Case> = Vec::new();
    for (sub, label) in [("PgT.x1", "XCDR1"), ("PgT.x2", "XCDR2 only")] {
        for color in ["RED", "BLUE"] {
            let got = received(&of_color(&s.out(sub), color), "PgT", "size");
            cases.push(router_case(
                "siftdds",
                &format!("{color} siftdds(A, XCDR1)→R→siftdds(B, {label})"),
                "peer-group",
                exactly(&s, sub, got, &sizes, None),
            ));
        }
    }
    let err = s.err("router");
    let pg = err
        .lines()
        .rfind(|l| l.contains("peer-group site A"))
        .map(str::to_string);
    let transcoded = err
        .lines()
        .rfind(|l| l.contains("router transcoding: samples "))
        .and_then(|l| l.split_once("router transcoding: samples "))
        .and_then(|(_, r)| r.split(',').next()?.trim().parse::<u64>().ok());
    report(&format!("router: {pg:?}, transcoded {transcoded:?}"));
    cases.push(router_case(
        "siftdds",
        "router",
        "restored, transcoded",
        pg.as_deref()
            .and_then(|l| Some((counter(l, "hits")?, counter(l, "defines")?)))
            .ok_or_else(|| format!("no peer-group counters line\n{}", s.dump("router")))
            .and_then(|(hits, defines)| {
                let t = transcoded.unwrap_or(0);
                // Every restored sample goes to the XCDR2 reader re-serialized once.
                check(hits > 0 && defines > 0 && t >= hits, || {
                    format!("hits {hits}, defines {defines}, transcoded {transcoded:?}")
                })?;
                Ok(format!("hits={hits} defines={defines} transcoded={t}"))
            }),
    ));
    let n = usize::try_from(2 * N).unwrap_or(usize::MAX);
    cases.push(router_case(
        "siftdds",
        "R→B capture",
        "encapsulations",
        encapsulations(&s.path("B.pcap")).and_then(|(x1, x2)| {
            check(x1 >= n && x2 >= n, || {
                format!("{x1} XCDR1 and {x2} XCDR2 user DATA, want at least {n} each")
            })?;
            Ok(format!("{x1} XCDR1 and {x2} XCDR2 user DATA"))
        }),
    ));
    conclude(test, &cases, &s);
}
