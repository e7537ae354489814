//! Redundant siftdds routers (issue 14, docs/router.md "Redundant routers"): two routers
//! between the same two LANs (`--lan L:A,R1,R2 --lan M:R1,R2,B`). The routers see each other
//! on both LANs and the lowest router id is the designated forwarder (`RoutingTable::
//! designated`), so every sample reaches each reader on B exactly once; when it leaves
//! without a goodbye, the other takes over once its lease (`driver::ROUTER_LEASE`) expired.
//! The test records how many samples the reliable VOLATILE readers missed during the
//! takeover (printed as `takeover`), and fails on any duplicate or disorder.
//!
//! Must not: pass on a count it did not parse from the processes' own output.

use std::time::Duration;

use super::router::{received, router_case};
use super::{Need, check, conclude, report, run_sites};

/// Samples written, one every [`PERIOD_MS`].
const N: i64 = 2500;
const PERIOD_MS: i64 = 4;

#[test]
fn redundant_routers_deliver_once_and_the_standby_takes_over() {
    let script = format!(
        "run R1 70 R1 $SIFTDDS router --interfaces L,M --router-id 1
         run R2 70 R2 $SIFTDDS router --interfaces L,M --router-id 2
         sleep 1
         run Ha.cyc 70 B $CYCLONE sub -T Ha -k 0 -t 50
         run Ha.sift 70 B $SHAPE_MAIN -S -t Ha -r -k 0 --read-period 5
         sleep 5
         run Ha.pub 70 A $CYCLONE pub -T Ha -c RED -m 1 -k 0 -i {PERIOD_MS} -n {N} -l 5000 -t 50
         sleep 3; stop R1
         await Ha.pub 50; sleep 2; for p in Ha.cyc Ha.sift R2; do stop $p; done
        "
    );
    let test = "redundant_routers_deliver_once_and_the_standby_takes_over";
    let needs = [Need::Peer("cyclone/shapes_cyclone")];
    let Some(s) = run_sites(
        test,
        &needs,
        &["lan=L:A,R1,R2", "lan=M:R1,R2,B"],
        &script,
        Duration::from_secs(100),
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
                "takeover ({label} reader on B): {} of {N} samples once in order; longest gap {gap} samples ≈ {} ms",
                xs.len(),
                gap * PERIOD_MS
            ));
        }
        cases.push(router_case(
            "Cyclone",
            &format!("Cyclone(A)→R1|R2→{label}(B)"),
            "redundant routers",
            check(ok, || {
                format!(
                    "{} samples, in order {in_order}, first {:?}, last {:?} (want {last})\n{}\n{}",
                    xs.len(),
                    xs.first(),
                    xs.last(),
                    s.dump(sub),
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
