//! A writer's departure across chains of 1, 2 and 3 routers (docs/router.md "Instance
//! state"): LANs `L1:A,R1`, `L2:R1,B1,R2`, `L3:R2,B2,R3`, `L4:R3,D`, so a reader on B1 is
//! behind one router, on B2 behind two, on D behind three. A siftdds (`shape_main`), a
//! Cyclone 0.10 and a Fast DDS 2.9 writer on A each write BLUE (the vendors also RED, which
//! they dispose after their last sample) and are then killed (SIGKILL: no goodbye, their
//! lease expires at R1). The siftdds readers behind each chain must report RED
//! NOT_ALIVE_DISPOSED (the dispose crosses) and BLUE NOT_ALIVE_NO_WRITERS (R1's proxy reader
//! loses the writer and its downstream writer unregisters the instance, and each further
//! router passes that unregister on). Behind the three routers (D) a Cyclone and a Fast DDS
//! reader of each topic must report the same. A Cyclone and a Fast DDS writer of two more
//! topics unregister RED explicitly (autodispose off) and keep BLUE: every reader must have
//! reported RED NOT_ALIVE_NO_WRITERS (never disposed), and not BLUE, before any writer is
//! killed.
//!
//! Must not: pass a case on a line it did not read from the readers' own output.

use std::time::Duration;

use super::router::router_case;
use super::router_mesh::start_router;
use super::{Need, Sites, check, conclude, run_sites};

/// The type of the vendors' shapes peers, named per topic in the routers' config (they send
/// no PID_KEY_HASH: the routers compute it, `router::keys`).
const IDL: &str = "@final struct ShapeType { @key string<128> color; long x; long y; \
                   long shapesize; sequence<octet> additional_payload_size; };";

/// (topic, writer label, whether the writer disposes RED).
const WRITERS: [(&str, &str, bool); 3] = [
    ("DepS", "siftdds", false),
    ("DepC", "Cyclone", true),
    ("DepF", "FastDDS", true),
];

/// (topic, writer label): writers that unregister RED explicitly (`-u RED -a 0`).
const UNREGISTERS: [(&str, &str); 2] = [("DepCU", "Cyclone"), ("DepFU", "FastDDS")];

/// (reader node, routers in front of it).
const READERS: [(&str, usize); 3] = [("B1", 1), ("B2", 2), ("D", 3)];

/// The vendor readers behind the three routers: (label, script variable).
const VENDOR_READERS: [(&str, &str); 2] = [("cyc", "$CYCLONE"), ("fast", "$FASTDDS")];

fn config(id: u64, up: &str, down: &str) -> String {
    format!(
        "router_id = {id}
[[topic]]
name = \"Dep*\"
idl = \"shape.idl\"
[[site]]
name = \"{up}\"
kind = \"lan\"
interfaces = [\"{up}\"]
[[site]]
name = \"{down}\"
kind = \"lan\"
interfaces = [\"{down}\"]
"
    )
}

/// Whether a reader's output `out` reports `color` in `state`: shape_main prints
/// `topic color state`, the vendors' subs `sub: instance color state`.
fn reports(out: &str, topic: &str, color: &str, state: &str) -> bool {
    out.lines().any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        let shape = f.len() == 3 && f[0] == topic && f[1] == color && f[2].starts_with(state);
        let vendor = f.len() == 4
            && f[0] == "sub:"
            && f[1] == "instance"
            && f[2] == color
            && f[3].starts_with(state);
        shape || vendor
    })
}

/// Whether reader `sub` reported `color` in `state`.
fn reported(s: &Sites, sub: &str, topic: &str, color: &str, state: &str) -> bool {
    reports(&s.out(sub), topic, color, state)
}

/// The readers of `topic`: (process name, reader label, routers in front of it).
fn readers_of(topic: &str) -> Vec<(String, String, usize)> {
    let mut all: Vec<(String, String, usize)> = READERS
        .iter()
        .map(|(node, hops)| (format!("{topic}.{node}"), format!("siftdds({node})"), *hops))
        .collect();
    for (label, _) in VENDOR_READERS {
        let name = if label == "cyc" { "Cyclone" } else { "FastDDS" };
        all.push((format!("{topic}.D.{label}"), format!("{name}(D)"), 3));
    }
    all
}

#[test]
fn a_departed_writer_is_not_alive_no_writers_behind_one_two_and_three_routers() {
    let test = "a_departed_writer_is_not_alive_no_writers_behind_one_two_and_three_routers";
    let mut script = format!("cat >$OUT/shape.idl <<'EOF'\n{IDL}\nEOF\n");
    for (id, (name, up, down)) in [("R1", "L1", "L2"), ("R2", "L2", "L3"), ("R3", "L3", "L4")]
        .into_iter()
        .enumerate()
    {
        script.push_str(&start_router(
            name,
            name,
            &config(id as u64 + 1, up, down),
            110,
        ));
    }
    script.push_str("sleep 1\n");
    let topics: Vec<&str> = WRITERS
        .iter()
        .map(|w| w.0)
        .chain(UNREGISTERS.iter().map(|w| w.0))
        .collect();
    for topic in &topics {
        for (node, _) in READERS {
            script.push_str(&format!(
                "run {topic}.{node} 100 {node} $SHAPE_MAIN -S -t {topic} -r -k 0 --read-period 5\n"
            ));
        }
        for (label, bin) in VENDOR_READERS {
            script.push_str(&format!(
                "run {topic}.D.{label} 100 D {bin} sub -T {topic} -k 0 -t 95\n"
            ));
        }
    }
    // The routers on L2 and L3 see each other there: those sites settle for the 4 s lease.
    script.push_str(
        "sleep 6
         run DepS.pub 90 A $SHAPE_MAIN -P -t DepS -c BLUE -r -k 0 --write-period 50 --num-iterations 1000
         run DepC.pub 90 A $CYCLONE pub -T DepC -c RED,BLUE -m 1 -k 0 -i 50 -n 20 -x RED -l 80000 -t 85
         run DepF.pub 90 A $FASTDDS pub -T DepF -c RED,BLUE -m 1 -k 0 -i 50 -n 20 -x RED -l 80000 -t 85
         run DepCU.pub 90 A $CYCLONE pub -T DepCU -c RED,BLUE -m 1 -k 0 -i 50 -n 20 -u RED -a 0 -l 80000 -t 85
         run DepFU.pub 90 A $FASTDDS pub -T DepFU -c RED,BLUE -m 1 -k 0 -i 50 -n 20 -u RED -a 0 -l 80000 -t 85
         for t in DepS DepC DepF DepCU DepFU; do until_lines $t.D \"^$t +BLUE \" 10 30; done
         # The explicit unregisters, at every reader, kept as each reader had them before
         # any writer is killed.
         for t in DepCU DepFU; do for n in B1 B2 D D.cyc D.fast; do
           until_lines $t.$n \"RED +NOT_ALIVE_NO_WRITERS\" 1 20
         done; done
         sleep 2
         for t in DepCU DepFU; do for n in B1 B2 D D.cyc D.fast; do
           cp $OUT/$t.$n.out $OUT/$t.$n.before-kill
         done; done
         for t in DepS DepC DepF DepCU DepFU; do kill9 $t.pub; done
         # Their leases (Cyclone 10 s, Fast DDS and siftdds 20 s at most) expire at R1.
         for t in DepS DepC DepF DepCU DepFU; do until_lines $t.D \"^$t +BLUE +NOT_ALIVE_NO_WRITERS\" 1 40; done
         sleep 3
         for t in DepS DepC DepF DepCU DepFU; do for n in B1 B2 D D.cyc D.fast; do stop $t.$n; done; done
         for r in R1 R2 R3; do stop $r; done
        ",
    );
    let needs = [
        Need::Peer("cyclone/shapes_cyclone"),
        Need::Peer("fastdds/shapes_fastdds"),
    ];
    let Some(s) = run_sites(
        test,
        &needs,
        &[
            "lan=L1:A,R1",
            "lan=L2:R1,B1,R2",
            "lan=L3:R2,B2,R3",
            "lan=L4:R3,D",
        ],
        &script,
        Duration::from_secs(150),
    ) else {
        return;
    };
    let mut cases = Vec::new();
    for (topic, writer, disposes) in WRITERS {
        for (sub, reader, hops) in readers_of(topic) {
            let no_writers = reported(&s, &sub, topic, "BLUE", "NOT_ALIVE_NO_WRITERS");
            let disposed = !disposes || reported(&s, &sub, topic, "RED", "NOT_ALIVE_DISPOSED");
            cases.push(router_case(
                writer,
                &format!("{writer}(A)→{hops} router(s)→{reader}"),
                "writer departure",
                check(no_writers && disposed, || {
                    format!(
                        "BLUE NOT_ALIVE_NO_WRITERS {no_writers}, RED disposed {disposed}\n{}",
                        s.dump(&sub)
                    )
                })
                .map(|()| "instance states crossed".to_string()),
            ));
        }
    }
    // The explicit unregister: RED NOT_ALIVE_NO_WRITERS (not disposed: autodispose off)
    // in what each reader had printed before any writer was killed, BLUE not yet.
    for (topic, writer) in UNREGISTERS {
        for (sub, reader, hops) in readers_of(topic) {
            let before =
                std::fs::read_to_string(s.path(&format!("{sub}.before-kill"))).unwrap_or_default();
            let red = reports(&before, topic, "RED", "NOT_ALIVE_NO_WRITERS");
            let blue = reports(&before, topic, "BLUE", "NOT_ALIVE_NO_WRITERS");
            let disposed = reported(&s, &sub, topic, "RED", "NOT_ALIVE_DISPOSED");
            cases.push(router_case(
                writer,
                &format!("{writer}(A)→{hops} router(s)→{reader}"),
                "explicit unregister",
                check(red && !blue && !disposed, || {
                    format!(
                        "before the kill: RED NOT_ALIVE_NO_WRITERS {red}, BLUE {blue}; RED disposed {disposed}\n{}",
                        s.dump(&sub)
                    )
                })
                .map(|()| "unregister crossed, before the departure".to_string()),
            ));
        }
    }
    conclude(test, &cases, &s);
}
