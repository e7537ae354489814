//! Routers joined by links (no multicast, unicast initial peers): two routers over a lossy,
//! slow WAN (reliable exactly once; the WAN carries only what filtered readers want), and a
//! cycle of three routers in a full mesh (see `router.rs` for the harness
//! and the bridge of two LANs; docs/router.md for the design).
//!
//! Must not: pass a case on a count it did not parse from the processes' own output or the
//! capture.

use std::collections::HashMap;
use std::process::Command;
use std::time::Duration;

use siftdds::wire::Message;
use siftdds::wire::submessage::{DataPayload, Submessage, SubmessageOutcome};

use super::router::{exactly, received, router_case};
use super::{Need, Sites, check, conclude, report, run_sites, run_sites_impaired};

/// Samples of the reliable cases.
const N: i64 = 500;

/// User (non-builtin) DATA / DATA_FRAG in a capture, the routers' path heartbeats
/// (`router::paths`, payload `SPT1` after the encapsulation) left out: (datagrams, distinct
/// samples, their payload bytes counted once, payload bytes with every repair).
pub(super) fn user_data(file: &std::path::Path) -> Result<(usize, usize, usize, usize), String> {
    let payloads = udp_payloads(file)?;
    let mut datagrams = 0;
    let mut distinct: HashMap<String, usize> = HashMap::new();
    let mut total = 0;
    for bytes in payloads {
        datagrams += 1;
        let Ok((header, submessages)) = Message::parse(&bytes) else {
            continue;
        };
        for sm in submessages {
            let (key, len) = match sm {
                SubmessageOutcome::Accept(Submessage::Data(d)) if !d.writer_id.is_builtin() => {
                    let len = match d.payload {
                        DataPayload::Data(p) if p.get(4..8) == Some(b"SPT1".as_slice()) => {
                            continue;
                        }
                        DataPayload::Data(p) | DataPayload::Key(p) => p.len(),
                        DataPayload::None => 0,
                    };
                    (
                        format!("{:?}/{}/{}", header.guid_prefix, d.writer_id, d.writer_sn),
                        len,
                    )
                }
                SubmessageOutcome::Accept(Submessage::DataFrag(d)) if !d.writer_id.is_builtin() => {
                    (
                        format!(
                            "{:?}/{}/{}/{}",
                            header.guid_prefix, d.writer_id, d.writer_sn, d.fragment_starting_num
                        ),
                        d.fragments.len(),
                    )
                }
                _ => continue,
            };
            total += len;
            distinct.insert(key, len);
        }
    }
    Ok((datagrams, distinct.len(), distinct.values().sum(), total))
}

/// The UDP payloads of a capture (tshark).
pub(super) fn udp_payloads(file: &std::path::Path) -> Result<Vec<Vec<u8>>, String> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(file)
        .args(["-Y", "udp", "-T", "fields", "-e", "udp.payload"])
        .output()
        .map_err(|e| format!("tshark: {e}"))?;
    check(out.status.success(), || {
        format!(
            "tshark -r {}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(unhex)
        .collect())
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    let s = s.trim().as_bytes();
    if s.is_empty() {
        return None;
    }
    s.chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect()
}

/// A router config: `lan` interface (if any) and links `(interface, peer address)`.
pub(super) fn config(id: u64, lan: Option<&str>, links: &[(&str, &str)]) -> String {
    // The filtered topic's siftdds writer is TRANSIENT_LOCAL: KEEP_ALL downstream so every
    // passing sample reaches the readers (the default for TRANSIENT_LOCAL is KEEP_LAST 1).
    let mut c = format!("router_id = {id}\n[[topic]]\nname = \"Filt\"\nhistory_depth = 0\n");
    if let Some(l) = lan {
        c.push_str(&format!(
            "[[site]]\nname = \"{l}\"\nkind = \"lan\"\ninterfaces = [\"{l}\"]\n"
        ));
    }
    for (ifname, peer) in links {
        c.push_str(&format!(
            "[[site]]\nname = \"to{ifname}\"\nkind = \"link\"\ninterfaces = [\"{ifname}\"]\npeers = [\"{peer}\"]\n"
        ));
    }
    c
}

/// Writes `config` to `$OUT/NAME.toml` (the shell expands `$ADDR_…`) and starts the router.
pub(super) fn start_router(name: &str, node: &str, config: &str, secs: u32) -> String {
    format!(
        "cat >$OUT/{name}.toml <<EOF\n{config}EOF\nrun {name} {secs} {node} $SIFTDDS router --config $OUT/{name}.toml\n"
    )
}

#[test]
fn two_routers_over_a_lossy_wan() {
    let mut script = String::new();
    script.push_str(&start_router(
        "ra",
        "RA",
        &config(1, Some("A"), &[("RB", "$ADDR_RB_RA")]),
        150,
    ));
    script.push_str(&start_router(
        "rb",
        "RB",
        &config(2, Some("B"), &[("RA", "$ADDR_RA_RB")]),
        150,
    ));
    script.push_str(&format!(
        "sleep 1
         # 1. Filtered readers on B (x < 50): the siftdds writer on A filters for RA's proxy,
         #    which announces the filter RB composed; the WAN is captured meanwhile.
         run cap 60 RB tshark -q -i RA -f udp -F pcap -w $OUT/wan.pcap
         run Filt.fast 60 B $FASTDDS sub -T Filt -k 0 -D t -f 'x < %0' -p 50 -t 50
         run Filt.sift 60 B $SHAPE_MAIN -S -t Filt -r -k 0 -D l --read-period 5 --cft 'x < 50'
         # Write once RA's proxy reader on A announces the filter RB composed (discovery
         # over the lossy WAN takes seconds more on a loaded machine); at most 40 s.
         n=0; until site A $SIFTDDS ls -w 1 | grep -q '^ *filter '; do
           n=$((n+1)); [ $n -ge 40 ] && break; done
         run Filt.pub 60 A $SHAPE_MAIN -P -t Filt -c RED -r -k 0 -D l -z 0 --write-period 10 --num-iterations 300
         await Filt.pub 30; sleep 4; stop cap; stop Filt.fast; stop Filt.sift
         # 2. Reliable KEEP_ALL exactly once in order over 10 % loss.
         run Rel.cyc 90 B $CYCLONE sub -T Rel -k 0 -n {N} -t 80
         run Rel.sift 90 B $SHAPE_MAIN -S -t Rel -r -k 0 --read-period 5
         sleep 5
         run Rel.pub 90 A $CYCLONE pub -T Rel -c RED -m 1 -k 0 -i 1 -n {N} -l 3000 -t 80
         await Rel.cyc 80; until_lines Rel.sift '^Rel ' {N} 20; sleep 1; stop Rel.sift
         for n in Rel.pub ra rb; do stop $n; done
        "
    ));
    let test = "two_routers_over_a_lossy_wan";
    let needs = [
        Need::Tool("tshark"),
        Need::Peer("cyclone/shapes_cyclone"),
        Need::Peer("fastdds/shapes_fastdds"),
    ];
    let links = ["A:RA", "RA:RB", "RB:B"];
    let impair = [("RA:RB", "loss=10,rate=20mbit")];
    let Some(s) = run_sites_impaired(
        test,
        &needs,
        &links,
        &impair,
        &script,
        Duration::from_secs(200),
    ) else {
        return;
    };
    let mut cases = Vec::new();
    // 1. The filter: both readers get the same samples, all of them under 50, and the WAN
    //    carried no other user sample.
    let fast = received(&s.out("Filt.fast"), "Filt", "size");
    let sift = received(&s.out("Filt.sift"), "Filt", "size");
    let sift_x = received(&s.out("Filt.sift"), "Filt", "x");
    let passing = sift.0.len();
    let wan = user_data(&s.path("wan.pcap"));
    let filter = match &wan {
        Ok((datagrams, distinct, once, total)) => {
            let per_sample = if *distinct > 0 { once / distinct } else { 0 };
            let ideal = passing * per_sample;
            report(&format!(
                "WAN filtered: {passing} passing of 300 samples; WAN user DATA: {distinct} samples, {once} B once, {total} B with repairs, ideal {ideal} B ({datagrams} datagrams in the capture)"
            ));
            check(
                passing > 0
                    && sift_x.0.iter().all(|x| *x < 50)
                    && fast.0 == sift.0
                    && *distinct <= passing + passing / 10
                    && (*once as f64) <= 1.1 * ideal as f64,
                || {
                    format!(
                        "{passing} passing (siftdds), {} (Fast DDS), xs {:?}; the WAN carried {distinct} user samples\n{}",
                        fast.0.len(),
                        sift_x.0,
                        s.dump("Filt.sift")
                    )
                },
            )
            .map(|()| format!("{passing} samples pass; WAN {once} B once / {total} B with repairs vs ideal {ideal} B"))
        }
        Err(e) => Err(e.clone()),
    };
    cases.push(router_case(
        "siftdds",
        "siftdds(A)→RA→WAN→RB→FastDDS+siftdds(B)",
        "filter x<50",
        filter,
    ));
    let xs: Vec<i64> = (0..N).map(|i| 10 + 5 * i).collect();
    for (sub, label) in [("Rel.cyc", "Cyclone"), ("Rel.sift", "siftdds")] {
        let got = received(&s.out(sub), "Rel", "x");
        cases.push(router_case(
            "Cyclone",
            &format!("Cyclone(A)→WAN→{label}(B)"),
            "reliable 10% loss",
            exactly(&s, sub, got, &xs, None),
        ));
    }
    conclude(test, &cases, &s);
}

/// The datagrams per second on each inter-router link, from captures of `secs` seconds.
fn link_rates(s: &Sites, links: &[&str], secs: f64) -> Result<Vec<(String, f64)>, String> {
    links
        .iter()
        .map(|l| {
            let (datagrams, ..) = user_data(&s.path(&format!("{l}.pcap")))?;
            Ok((l.to_string(), datagrams as f64 / secs))
        })
        .collect()
}

/// Idle traffic above this many datagrams per second on a link is a storm (the periodic
/// baseline of three participants' SPDP, heartbeats and WLP is a few per second).
const STORM: f64 = 100.0;

#[test]
fn a_cycle_of_three_routers() {
    let mut script = String::new();
    script.push_str(&start_router(
        "ra",
        "RA",
        &config(
            1,
            Some("A"),
            &[("RB", "$ADDR_RB_RA"), ("RC", "$ADDR_RC_RA")],
        ),
        150,
    ));
    script.push_str(&start_router(
        "rb",
        "RB",
        &config(
            2,
            Some("B"),
            &[("RA", "$ADDR_RA_RB"), ("RC", "$ADDR_RC_RB")],
        ),
        150,
    ));
    script.push_str(&start_router(
        "rc",
        "RC",
        &config(
            3,
            Some("C"),
            &[("RA", "$ADDR_RA_RC"), ("RB", "$ADDR_RB_RC")],
        ),
        150,
    ));
    script.push_str(&format!(
        "sleep 1
         for x in A B C; do
           run $x.cyc 90 $x $CYCLONE sub -T Ring -k 0 -n {total} -t 80
           run $x.sift 90 $x $SHAPE_MAIN -S -t Ring -r -k 0 --read-period 5
         done
         sleep 8
         run A.pub 100 A $CYCLONE pub -T Ring -c RED -m 3 -k 0 -i 2 -n {N} -l 40000 -t 90
         run B.pub 100 B $CYCLONE pub -T Ring -c GREEN -m 3 -k 0 -i 2 -n {N} -l 40000 -t 90
         run C.pub 100 C $CYCLONE pub -T Ring -c BLUE -m 3 -k 0 -i 2 -n {N} -l 40000 -t 90
         for x in A B C; do await $x.cyc 80; done
         for x in A B C; do until_lines $x.sift '^Ring ' {total} 15; done
         sleep 5
         # Idle (writers lingering, readers matched): 10 s of every inter-router link.
         run capAB 20 RA tshark -q -a duration:10 -i RB -f udp -F pcap -w $OUT/RA-RB.pcap
         run capAC 20 RA tshark -q -a duration:10 -i RC -f udp -F pcap -w $OUT/RA-RC.pcap
         run capBC 20 RB tshark -q -a duration:10 -i RC -f udp -F pcap -w $OUT/RB-RC.pcap
         await capAB 15; await capAC 5; await capBC 5
         for n in A.sift B.sift C.sift A.pub B.pub C.pub ra rb rc; do stop $n; done
        ",
        total = 3 * N
    ));
    let test = "a_cycle_of_three_routers";
    let needs = [Need::Tool("tshark"), Need::Peer("cyclone/shapes_cyclone")];
    let links = ["A:RA", "B:RB", "C:RC", "RA:RB", "RB:RC", "RA:RC"];
    let Some(s) = run_sites(test, &needs, &links, &script, Duration::from_secs(200)) else {
        return;
    };
    let mut cases = Vec::new();
    let xs: Vec<i64> = (0..N).map(|i| 10 + 5 * i).collect();
    for site in ["A", "B", "C"] {
        for reader in ["cyc", "sift"] {
            let sub = format!("{site}.{reader}");
            let out = s.out(&sub);
            let mut per_color: Vec<String> = Vec::new();
            let mut result = Ok(String::new());
            for color in ["RED", "GREEN", "BLUE"] {
                let lines: String = out
                    .lines()
                    .filter(|l| l.contains(color))
                    .map(|l| format!("{l}\n"))
                    .collect();
                let got = received(&lines, "Ring", "x");
                match exactly(&s, &sub, got, &xs, None) {
                    Ok(_) => per_color.push(format!("{color} {N}")),
                    Err(e) => {
                        result = Err(format!("{color}: {e}"));
                        break;
                    }
                }
            }
            let result = result.map(|_| format!("{} once in order", per_color.join(", ")));
            cases.push(router_case(
                "Cyclone",
                &format!("all→{site} {reader}"),
                "cycle exactly once",
                result,
            ));
        }
    }
    let rates = link_rates(&s, &["RA-RB", "RA-RC", "RB-RC"], 10.0);
    let idle = match rates {
        Ok(r) => {
            let text: Vec<String> = r.iter().map(|(l, v)| format!("{l} {v:.1}/s")).collect();
            report(&format!(
                "cycle idle traffic (datagrams/s per link over 10 s): {}",
                text.join(", ")
            ));
            check(r.iter().all(|(_, v)| *v < STORM), || {
                format!("a storm: {}", text.join(", "))
            })
            .map(|()| text.join(", "))
        }
        Err(e) => Err(e),
    };
    cases.push(router_case("siftdds", "RA↔RB↔RC", "idle baseline", idle));
    conclude(test, &cases, &s);
}

#[test]
fn a_site_that_leaves_gets_no_more_traffic() {
    // B's only reader leaves (Cyclone exits): the router drops the subscription, deletes its
    // proxy reader on A, and the writer on A, which goes on writing, sends the router no more
    // user data. Measured 12 s after the exit: 4 s after it, data still flowed (the removal
    // came with the lease expiry; see docs/router.md).
    let script = "run router 50 R $SIFTDDS router --interfaces A,B
         sleep 1
         run Lv.sub 20 B $CYCLONE sub -T Lv -k 0 -t 8
         sleep 4
         run Lv.pub 50 A $CYCLONE pub -T Lv -c RED -m 1 -k 0 -i 10 -n 4000 -t 45
         await Lv.sub 15; sleep 12
         run cap 15 R tshark -q -a duration:5 -i A -f udp -F pcap -w $OUT/left.pcap
         await cap 10
         for n in Lv.pub router; do stop $n; done
        ";
    let test = "a_site_that_leaves_gets_no_more_traffic";
    let needs = [Need::Tool("tshark"), Need::Peer("cyclone/shapes_cyclone")];
    let Some(s) = run_sites(
        test,
        &needs,
        &["A:R", "R:B"],
        script,
        Duration::from_secs(60),
    ) else {
        return;
    };
    let (got, _) = received(&s.out("Lv.sub"), "Lv", "x");
    let result = user_data(&s.path("left.pcap")).and_then(|(datagrams, distinct, ..)| {
        report(&format!(
            "after the site left: {distinct} user samples in {datagrams} datagrams on A:R over 5 s ({} samples reached B before)",
            got.len()
        ));
        check(!got.is_empty() && distinct == 0, || {
            format!("{} samples before, {distinct} user samples after the reader left\n{}", got.len(), s.dump("Lv.sub"))
        })
        .map(|()| format!("{} samples while subscribed, 0 after", got.len()))
    });
    conclude(
        test,
        &[router_case(
            "Cyclone",
            "Cyclone(A)→R→(gone)",
            "site leaves",
            result,
        )],
        &s,
    );
}
