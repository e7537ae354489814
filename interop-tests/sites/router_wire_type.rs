//! The router learns a topic's type from the wire when its configuration names no IDL file
//! for it (`router::wire_type`, docs/router.md): it asks the participant of an endpoint that
//! announced PID_TYPE_INFORMATION for the TypeObjects (TypeLookup, DDS-XTypes 1.3 §7.6.3.3)
//! and filters, keys and transcodes with the type they describe (`A:R`, `R:B`).
//!
//! - `the_router_filters_a_cyclone_11_writer_with_a_type_learnt_from_the_wire`: a PyPI
//!   `cyclonedds` 11 writer on A writes a `@final` ShapeType in XCDR2 (no DHEADER, unlike the
//!   built-in `@appendable` ShapeType, so only the learnt type decodes it); a siftdds reader
//!   on B filters `x < 20`. The router forwards exactly the 20 passing samples of 100 (its
//!   counters), each re-serialized as XCDR1 for the reader, which gets exactly those.
//! - `the_router_keys_a_cyclone_010_dispose_with_a_type_learnt_from_the_wire`: a Cyclone 0.10
//!   writer (no PID_KEY_HASH) writes RED, BLUE and GREEN and disposes RED; the Cyclone 0.10
//!   and siftdds readers on B see RED, and only RED, disposed (the router computed the key
//!   hashes of the samples and of the dispose's serialized key with the type it learnt from
//!   the writer).
//!
//! Both print how long after the router first saw the writer it knew the writer's type.
//!
//! Must not: pass a case on a count it did not parse from the processes' own output.

use std::time::Duration;

use super::router::{received, router_case, transcoded_samples};
use super::{Need, Sites, check, conclude, report, run_sites};

const PEER: &str = repo_path!("interop-tests/peers/python/shapes_xcdr.py");

/// Two LANs; `topic` has an override that names no IDL file.
fn config(topic: &str) -> String {
    format!(
        "[[site]]
name = \"A\"
kind = \"lan\"
interfaces = [\"A\"]
[[site]]
name = \"B\"
kind = \"lan\"
interfaces = [\"B\"]
[[topic]]
name = \"{topic}\"
"
    )
}

/// The router, logging what it learns (`router::driver` at info).
fn start_router(topic: &str) -> String {
    format!(
        "cat >$OUT/router.toml <<'EOF'\n{}EOF\n\
         run router 55 R env RUST_LOG=siftdds::router::driver=info $SIFTDDS router --config $OUT/router.toml\n\
         sleep 1\n",
        config(topic)
    )
}

/// The router's line saying it learnt `topic`'s type from a writer: (members, ms after it
/// first saw the writer).
fn learnt(s: &Sites, topic: &str) -> Option<(u32, u64)> {
    let needle = format!("type of topic \"{topic}\" (ShapeType) learnt from the wire, ");
    let line = s
        .err("router")
        .lines()
        .find(|l| l.contains(&needle) && l.contains(" from writer "))?
        .to_string();
    let rest = &line[line.find(&needle)? + needle.len()..];
    let members = rest.split_whitespace().next()?.parse().ok()?;
    let ms = rest
        .rsplit_once(", ")?
        .1
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some((members, ms))
}

/// A number after `label ` in the router's leaving line that starts with `prefix`.
fn counter(s: &Sites, prefix: &str, label: &str) -> Option<i64> {
    let line = s
        .err("router")
        .lines()
        .find(|l| l.contains(prefix))?
        .to_string();
    let at = line.find(&format!("{label} "))? + label.len() + 1;
    line[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

#[test]
fn the_router_filters_a_cyclone_11_writer_with_a_type_learnt_from_the_wire() {
    let test = "the_router_filters_a_cyclone_11_writer_with_a_type_learnt_from_the_wire";
    if !crate::xcdr2::python_ready(test) {
        return;
    }
    let mut script = start_router("WireT");
    // The writer waits 3 s after its match (the router's proxy reader): until the type is
    // known the router forwards unfiltered, as it came.
    script.push_str(&format!(
        "run WireT.sift 50 B $SHAPE_MAIN -S -t WireT -r -k 0 --read-period 5 --cft 'x < 20'
         sleep 3
         run WireT.pub 45 A python3 {PEER} pub 0 WireT 100 --xcdr 2 --final --delay 3
         await WireT.pub 40
         until_lines WireT.sift '^WireT ' 20 5
         sleep 1
         stop router; stop WireT.sift
        "
    ));
    let Some(s) = run_sites(test, &[], &["A:R", "R:B"], &script, Duration::from_secs(60)) else {
        return;
    };
    let pass: Vec<i64> = (0..20).collect();
    let got = received(&s.out("WireT.sift"), "WireT", "x");
    let received_all = counter(&s, "router left:", "received");
    let forwarded = counter(&s, "router left:", "forwarded");
    let skipped = counter(&s, "next hops by filter:", "pairs skipped");
    let transcoded = transcoded_samples(&s, "router");
    let learnt = learnt(&s, "WireT");
    report(&format!(
        "WireT: type learnt {learnt:?} (members, ms after the router saw the writer); received {received_all:?}, forwarded {forwarded:?}, skipped {skipped:?}, transcoded {transcoded:?}"
    ));
    let mut cases = Vec::new();
    // Received: the 100 samples and what the writer's deletion sends (dispose/unregister of
    // RED), which is never filtered (RTPS 2.5 §8.7.4): all but the 80 failing samples go on.
    let router_ok = learnt.is_some_and(|(m, _)| m == 4)
        && received_all.is_some_and(|r| r >= 100 && forwarded == Some(r - 80))
        && skipped == Some(80)
        && transcoded == Some(20);
    cases.push(router_case(
        "Cyclone",
        "Cyclone 11(A, @final XCDR2)→R→siftdds(B, x<20)",
        "router filters by learnt type",
        check(router_ok && s.out("WireT.pub").contains("done"), || {
            format!(
                "learnt {learnt:?} (want 4 members), received {received_all:?}, forwarded {forwarded:?} (want all but 80), skipped {skipped:?} (want 80), transcoded {transcoded:?} (want 20)\n{}\n{}",
                s.dump("WireT.pub"),
                s.dump("router")
            )
        })
        .map(|()| "20 of 100 forwarded, 80 kept off the link, 20 transcoded".to_string()),
    ));
    cases.push(router_case(
        "Cyclone",
        "Cyclone 11(A)→R→siftdds(B, x<20)",
        "filtered reader",
        super::router::exactly(&s, "WireT.sift", got, &pass, None),
    ));
    conclude(test, &cases, &s);
}

/// The colours whose instance a sub printed as disposed.
fn disposed(out: &str) -> Vec<&'static str> {
    ["RED", "BLUE", "GREEN"]
        .into_iter()
        .filter(|c| {
            out.lines()
                .any(|l| l.contains("NOT_ALIVE_DISPOSED") && l.split_whitespace().any(|w| w == *c))
        })
        .collect()
}

#[test]
fn the_router_keys_a_cyclone_010_dispose_with_a_type_learnt_from_the_wire() {
    let test = "the_router_keys_a_cyclone_010_dispose_with_a_type_learnt_from_the_wire";
    let mut script = start_router("WireK");
    // The readers go before the writer ends: its deletion would dispose BLUE and GREEN too
    // (autodispose_unregistered_instances).
    script.push_str(
        "run WireK.cyc 50 B $CYCLONE sub -T WireK -k 0 -w 1 -t 45
         run WireK.sift 50 B $SHAPE_MAIN -S -t WireK -r -k 0 --read-period 5
         sleep 3
         run WireK.pub 50 A $CYCLONE pub -T WireK -c RED,BLUE,GREEN -m 1 -k 0 -i 100 -n 30 -x RED -l 30000 -t 45
         until_lines WireK.cyc 'instance RED NOT_ALIVE_DISPOSED' 1 20
         sleep 1
         stop WireK.cyc; stop WireK.sift; stop router; stop WireK.pub
        ",
    );
    let needs = [Need::Peer("cyclone/shapes_cyclone")];
    let Some(s) = run_sites(
        test,
        &needs,
        &["A:R", "R:B"],
        &script,
        Duration::from_secs(60),
    ) else {
        return;
    };
    let learnt = learnt(&s, "WireK");
    let built = counter(&s, "router transcoding:", "keys built");
    report(&format!(
        "WireK: type learnt {learnt:?} (members, ms after the router saw the writer); keys built {built:?}"
    ));
    let mut cases = Vec::new();
    for (sub, label) in [("WireK.cyc", "Cyclone 0.10"), ("WireK.sift", "siftdds")] {
        let colours = disposed(&s.out(sub));
        let (values, _) = received(&s.out(sub), "WireK", "x");
        let ok = learnt.is_some_and(|(m, _)| m == 5)
            && colours == ["RED"]
            && s.out("WireK.pub").contains("dispose RED: Success");
        cases.push(router_case(
            "Cyclone",
            &format!("Cyclone 0.10(A)→R→{label}(B)"),
            "dispose keyed by learnt type",
            check(ok, || {
                format!(
                    "learnt {learnt:?} (want 5 members), disposed {colours:?} (want RED only), {} samples\n{}\n{}\n{}",
                    values.len(),
                    s.dump(sub),
                    s.dump("WireK.pub"),
                    s.dump("router")
                )
            })
            .map(|()| format!("RED disposed, {} samples", values.len())),
        ));
    }
    conclude(test, &cases, &s);
}
