//! A TRANSIENT_LOCAL keyed late joiner across two routers (`A:RA`, `RA:RB`, `RB:B`, the WAN
//! lossy and slow as in `two_routers_over_a_lossy_wan`): Cyclone and Fast DDS writers on A,
//! which send no PID_KEY_HASH, write three instances KEEP_LAST 1; the routers know the type
//! from an IDL file named per topic in their config (`router::keys`), so their downstream
//! writers keep the newest sample of each instance, and a reader joining B afterwards gets
//! exactly those (docs/router.md).
//!
//! Must not: pass a case on a count it did not parse from the processes' own output.

use std::time::Duration;

use super::router::{received, router_case};
use super::router_mesh::start_router;
use super::{Need, check, conclude, run_sites_impaired};

/// The type of the vendors' shapes peers, named per topic in the routers' config.
const IDL: &str = "@final struct ShapeType { @key string<128> color; long x; long y; \
                   long shapesize; sequence<octet> additional_payload_size; };";

/// Samples each writer writes, round robin over three colours.
const WRITES: i64 = 9;

fn config(id: u64, lan: &str, link: &str, peer: &str) -> String {
    format!(
        "router_id = {id}
[[topic]]
name = \"Late*\"
idl = \"shape.idl\"
[[site]]
name = \"{lan}\"
kind = \"lan\"
interfaces = [\"{lan}\"]
[[site]]
name = \"to{link}\"
kind = \"link\"
interfaces = [\"{link}\"]
peers = [\"{peer}\"]
"
    )
}

#[test]
fn a_keyed_late_joiner_gets_the_newest_sample_of_each_instance_across_two_routers() {
    let mut script = format!("cat >$OUT/shape.idl <<'EOF'\n{IDL}\nEOF\n");
    script.push_str(&start_router(
        "ra",
        "RA",
        &config(1, "A", "RB", "$ADDR_RB_RA"),
        180,
    ));
    script.push_str(&start_router(
        "rb",
        "RB",
        &config(2, "B", "RA", "$ADDR_RA_RB"),
        180,
    ));
    script.push_str(&format!(
        "sleep 1
         # Early readers on B keep the routes up while the writers write, one of each kind
         # the late joiners are (so they share the routers' downstream writers).
         for t in LateC LateF; do
           run $t.early.cyc 170 B $CYCLONE sub -T $t -k 1 -D t -t 165
           run $t.early.sift 170 B $SHAPE_MAIN -S -t $t -r -k 1 -D l --read-period 5
         done
         sleep 6
         run LateC.pub 170 A $CYCLONE pub -T LateC -c RED,BLUE,GREEN -n {WRITES} -m 1 -k 1 -D t -i 50 -l 150000 -t 160
         run LateF.pub 170 A $FASTDDS pub -T LateF -c RED,BLUE,GREEN -n {WRITES} -m 1 -k 1 -D t -i 50 -l 150000 -t 160
         # The last sample written (GREEN, x = {last}) reached B. The writers linger: when
         # one is deleted, its instances are disposed and a late joiner gets none of them.
         for t in LateC LateF; do until_lines $t.early.sift \"^$t +GREEN +0*{last} \" 1 60; done
         sleep 3
         # The late joiners: what the routers' TRANSIENT_LOCAL writers on B still hold.
         for t in LateC LateF; do
           run $t.late.cyc 30 B $CYCLONE sub -T $t -k 1 -D t -t 12
           run $t.late.sift 30 B $SHAPE_MAIN -S -t $t -r -k 1 -D l --read-period 5
         done
         sleep 12
         for n in LateC.late.sift LateF.late.sift LateC.early.sift LateF.early.sift; do stop $n; done
         for n in LateC.early.cyc LateF.early.cyc LateC.pub LateF.pub ra rb; do stop $n; done
        ",
        last = 10 + 5 * (WRITES - 1)
    ));
    let test = "a_keyed_late_joiner_gets_the_newest_sample_of_each_instance_across_two_routers";
    let needs = [
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
        Duration::from_secs(220),
    ) else {
        return;
    };
    // Round robin RED, BLUE, GREEN with x = 10 + 5 i: the newest of each colour are the last
    // three written.
    let newest: Vec<i64> = (WRITES - 3..WRITES).map(|i| 10 + 5 * i).collect();
    let all: Vec<i64> = (0..WRITES).map(|i| 10 + 5 * i).collect();
    let mut cases = Vec::new();
    for (t, writer) in [("LateC", "Cyclone"), ("LateF", "FastDDS")] {
        for reader in ["cyc", "sift"] {
            let early = format!("{t}.early.{reader}");
            let late = format!("{t}.late.{reader}");
            let (mut got_early, _) = received(&s.out(&early), t, "x");
            let (mut got, _) = received(&s.out(&late), t, "x");
            got_early.sort();
            got.sort();
            // The early reader is KEEP_LAST 1 too: over the lossy WAN an older sample of an
            // instance may be replaced before it is taken, but each arrives at most once and
            // the newest of each instance arrives.
            let early_ok = got_early.windows(2).all(|p| p[0] < p[1])
                && got_early.iter().all(|x| all.contains(x))
                && newest.iter().all(|x| got_early.contains(x));
            let result = check(early_ok && got == newest, || {
                format!(
                    "early {early}: {got_early:?} (want the newest {newest:?} among {all:?}); \
                     late {late}: {got:?} (want {newest:?})\n{}\n{}",
                    s.dump(&late),
                    s.dump("rb")
                )
            })
            .map(|()| format!("early reader {}, late joiner {newest:?}", got_early.len()));
            cases.push(router_case(
                writer,
                &format!("{writer}(A)→RA→WAN→RB→late {reader}(B)"),
                "TRANSIENT_LOCAL keyed late joiner",
                result,
            ));
        }
    }
    conclude(test, &cases, &s);
}
