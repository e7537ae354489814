//! Redundant siftdds routers (issue 14, docs/router.md "Redundant routers"): two routers
//! between the same two LANs (`--lan L:A,R1,R2 --lan M:R1,R2,B`). The routers see each other
//! on both LANs and the lowest router id is the designated forwarder (`RoutingTable::
//! designated`, after the settle time of `router::standby`), so every sample reaches each
//! reader on B exactly once; the standby reads what the designated one writes on M into its
//! repository (witness readers), so when it takes over it forwards only what M has not had.
//!
//! - `redundant_routers_deliver_once_and_the_standby_takes_over`: both routers start at once
//!   (the start-up race), R1 is killed (SIGKILL: no goodbye) 3 s into the stream; R2 takes
//!   over once R1's lease (`driver::ROUTER_LEASE`) expired.
//! - `a_gracefully_stopped_router_hands_over_at_once`: R2 joins 1 s into the stream (it
//!   must stay quiet while it settles), R1 is stopped by SIGINT 6 s later: it leaves with a
//!   goodbye and R2 takes over without waiting for the lease.
//!
//! Each records the longest run of samples the reliable VOLATILE readers on B missed (printed
//! as `takeover`), and fails on any duplicate or disorder.
//!
//! Must not: pass on a count it did not parse from the processes' own output.

use std::time::Duration;

use super::router::{received, router_case};
use super::{Need, check, conclude, report, run_sites};

/// Samples written, one every [`PERIOD_MS`].
const N: i64 = 2500;
const PERIOD_MS: i64 = 4;

/// Runs `script` (R1, R2 and the Cyclone writer `Ha.pub` on A, readers `Ha.cyc`, `Ha.sift`
/// on B) and checks each reader got every sample at most once, in order, the last included.
fn takeover(test: &str, scenario: &'static str, script: &str) {
    let needs = [Need::Peer("cyclone/shapes_cyclone")];
    let Some(s) = run_sites(
        test,
        &needs,
        &["lan=L:A,R1,R2", "lan=M:R1,R2,B"],
        script,
        Duration::from_secs(110),
    ) else {
        return;
    };
    let last = 10 + 5 * (N - 1);
    let mut cases = Vec::new();
    for (sub, label) in [("Ha.cyc", "Cyclone"), ("Ha.sift", "siftdds")] {
        let (xs, _) = received(&s.out(sub), "Ha", "x");
        let in_order = xs.windows(2).all(|p| p[0] < p[1]);
        // The longest run of missing samples: the takeover.
        let gap = xs
            .windows(2)
            .map(|p| (p[1] - p[0]) / 5 - 1)
            .max()
            .unwrap_or(0);
        let ok =
            in_order && xs.first().is_some_and(|x| *x < 10 + 5 * 300) && xs.last() == Some(&last);
        if ok {
            report(&format!(
                "takeover, {scenario} ({label} reader on B): {} of {N} samples once in order; longest gap {gap} samples ≈ {} ms",
                xs.len(),
                gap * PERIOD_MS
            ));
        }
        cases.push(router_case(
            "Cyclone",
            &format!("Cyclone(A)→R1|R2→{label}(B)"),
            scenario,
            check(ok, || {
                format!(
                    "{} samples, in order {in_order}, first {:?}, last {:?} (want {last})\n{}\n{}\n{}",
                    xs.len(),
                    xs.first(),
                    xs.last(),
                    s.dump(sub),
                    s.dump("R1"),
                    s.dump("R2")
                )
            })
            .map(|()| {
                format!(
                    "{} of {N} once in order, takeover gap {gap} samples",
                    xs.len()
                )
            }),
        ));
    }
    conclude(test, &cases, &s);
}

#[test]
fn redundant_routers_deliver_once_and_the_standby_takes_over() {
    let script = format!(
        "run R1 80 R1 $SIFTDDS router --interfaces L,M --router-id 1
         run R2 80 R2 $SIFTDDS router --interfaces L,M --router-id 2
         sleep 1
         run Ha.cyc 80 B $CYCLONE sub -T Ha -k 0 -t 60
         run Ha.sift 80 B $SHAPE_MAIN -S -t Ha -r -k 0 --read-period 5
         sleep 5
         run Ha.pub 80 A $CYCLONE pub -T Ha -c RED -m 1 -k 0 -i {PERIOD_MS} -n {N} -l 5000 -t 60
         sleep 3; kill9 R1
         await Ha.pub 60; sleep 2; for p in Ha.cyc Ha.sift R2; do stop $p; done
        "
    );
    takeover(
        "redundant_routers_deliver_once_and_the_standby_takes_over",
        "killed",
        &script,
    );
}

#[test]
fn a_gracefully_stopped_router_hands_over_at_once() {
    let script = format!(
        "run R1 80 R1 $SIFTDDS router --interfaces L,M --router-id 1
         sleep 1
         run Ha.cyc 80 B $CYCLONE sub -T Ha -k 0 -t 60
         run Ha.sift 80 B $SHAPE_MAIN -S -t Ha -r -k 0 --read-period 5
         sleep 5
         run Ha.pub 80 A $CYCLONE pub -T Ha -c RED -m 1 -k 0 -i {PERIOD_MS} -n {N} -l 5000 -t 60
         sleep 1; run R2 80 R2 $SIFTDDS router --interfaces L,M --router-id 2
         sleep 6; stop R1
         await Ha.pub 60; sleep 2; for p in Ha.cyc Ha.sift R2; do stop $p; done
        "
    );
    takeover(
        "a_gracefully_stopped_router_hands_over_at_once",
        "graceful",
        &script,
    );
}
