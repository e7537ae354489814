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
//! killed. A second run does the same with RTI Connext 6.1 writers (`shapes_rti.py life`:
//! XCDR1, a 3 s participant lease): one disposes RED, one unregisters it, and one is killed
//! with RED and BLUE registered (both must then be NOT_ALIVE_NO_WRITERS).
//!
//! Must not: pass a case on a line it did not read from the readers' own output.

use std::process::Command;
use std::time::Duration;

use super::router::router_case;
use super::router_mesh::start_router;
use super::{Case, Need, Sites, check, conclude, run_sites};
use crate::skip::skip;

/// The type of the vendors' shapes peers, named per topic in the routers' config (they send
/// no PID_KEY_HASH: the routers compute it, `router::keys`).
const IDL: &str = "@final struct ShapeType { @key string<128> color; long x; long y; \
                   long shapesize; sequence<octet> additional_payload_size; };";

/// What a writer on A does to RED before it is killed (BLUE it only writes).
#[derive(Clone, Copy, PartialEq)]
enum Life {
    /// It writes BLUE only.
    BlueOnly,
    /// Nothing: it is killed with RED registered too.
    Kept,
    /// It disposes RED after its last sample.
    Disposed,
    /// It unregisters RED explicitly, autodispose off.
    Unregistered,
}

/// A writer on A: its topic, its label in the matrix, what it does to RED, and its command
/// (run in node A).
struct Writer {
    topic: &'static str,
    label: &'static str,
    life: Life,
    cmd: String,
}

/// The RTI peer (`life` mode: RED and BLUE, then ACTION on RED, a 3 s participant lease).
const RTI_PEER: &str = repo_path!("interop-tests/peers/python/shapes_rti.py");

/// The siftdds, Cyclone and Fast DDS writers.
fn native_writers() -> Vec<Writer> {
    let vendor = |bin: &str, topic: &str, action: &str| {
        format!("{bin} pub -T {topic} -c RED,BLUE -m 1 -k 0 -i 50 -n 20 {action} -l 80000 -t 85")
    };
    vec![
        Writer {
            topic: "DepS",
            label: "siftdds",
            life: Life::BlueOnly,
            cmd: "$SHAPE_MAIN -P -t DepS -c BLUE -r -k 0 --write-period 50 --num-iterations 1000"
                .into(),
        },
        Writer {
            topic: "DepC",
            label: "Cyclone",
            life: Life::Disposed,
            cmd: vendor("$CYCLONE", "DepC", "-x RED"),
        },
        Writer {
            topic: "DepF",
            label: "FastDDS",
            life: Life::Disposed,
            cmd: vendor("$FASTDDS", "DepF", "-x RED"),
        },
        Writer {
            topic: "DepCU",
            label: "Cyclone",
            life: Life::Unregistered,
            cmd: vendor("$CYCLONE", "DepCU", "-u RED -a 0"),
        },
        Writer {
            topic: "DepFU",
            label: "FastDDS",
            life: Life::Unregistered,
            cmd: vendor("$FASTDDS", "DepFU", "-u RED -a 0"),
        },
    ]
}

/// The RTI writers (on A's interface `L1`): one disposes RED, one unregisters it, one only
/// writes.
fn rti_writers() -> Vec<Writer> {
    let rti = |topic: &'static str, life: Life, action: &str| Writer {
        topic,
        label: "RTI",
        life,
        cmd: format!("env SHAPES_RTI_INTERFACES=L1 python3 {RTI_PEER} life 0 {topic} {action}"),
    };
    vec![
        rti("DepR", Life::Disposed, "dispose"),
        rti("DepRU", Life::Unregistered, "unregister"),
        rti("DepRK", Life::Kept, "none"),
    ]
}

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

/// Runs the chain with `writers` on A and returns its outputs (`None`: skipped).
fn run_chain(test: &str, writers: &[Writer]) -> Option<Sites> {
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
    for Writer { topic, .. } in writers {
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
    script.push_str("sleep 6\n");
    for w in writers {
        script.push_str(&format!("run {}.pub 90 A {}\n", w.topic, w.cmd));
    }
    let all = writers
        .iter()
        .map(|w| w.topic)
        .collect::<Vec<_>>()
        .join(" ");
    let unregisters = writers
        .iter()
        .filter(|w| w.life == Life::Unregistered)
        .map(|w| w.topic)
        .collect::<Vec<_>>()
        .join(" ");
    script.push_str(&format!(
        "for t in {all}; do until_lines $t.D \"^$t +BLUE \" 10 30; done
         # The explicit unregisters, at every reader, kept as each reader had them before
         # any writer is killed.
         for t in {unregisters}; do for n in B1 B2 D D.cyc D.fast; do
           until_lines $t.$n \"RED +NOT_ALIVE_NO_WRITERS\" 1 20
         done; done
         sleep 2
         for t in {unregisters}; do for n in B1 B2 D D.cyc D.fast; do
           cp $OUT/$t.$n.out $OUT/$t.$n.before-kill
         done; done
         for t in {all}; do kill9 $t.pub; done
         # Their leases (RTI 3 s, Cyclone 10 s, Fast DDS and siftdds 20 s at most) expire
         # at R1.
         for t in {all}; do until_lines $t.D \"^$t +BLUE +NOT_ALIVE_NO_WRITERS\" 1 40; done
         sleep 3
         for t in {all}; do for n in B1 B2 D D.cyc D.fast; do stop $t.$n; done; done
         for r in R1 R2 R3; do stop $r; done
        ",
    ));
    let needs = [
        Need::Peer("cyclone/shapes_cyclone"),
        Need::Peer("fastdds/shapes_fastdds"),
    ];
    run_sites(
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
    )
}

/// The cases of one run: per writer and reader, BLUE NOT_ALIVE_NO_WRITERS after the kill, RED
/// disposed where the writer disposed it and NOT_ALIVE_NO_WRITERS where it kept it; for an
/// explicit unregister, RED
/// NOT_ALIVE_NO_WRITERS (not disposed: autodispose off) in what each reader had printed before
/// any writer was killed, BLUE not yet.
fn chain_cases(s: &Sites, writers: &[Writer]) -> Vec<Case> {
    let mut cases = Vec::new();
    for w in writers {
        let (topic, writer) = (w.topic, w.label);
        for (sub, reader, hops) in readers_of(topic) {
            let direction = format!("{writer}(A)→{hops} router(s)→{reader}");
            if w.life == Life::Unregistered {
                let before = std::fs::read_to_string(s.path(&format!("{sub}.before-kill")))
                    .unwrap_or_default();
                let red = reports(&before, topic, "RED", "NOT_ALIVE_NO_WRITERS");
                let blue = reports(&before, topic, "BLUE", "NOT_ALIVE_NO_WRITERS");
                let disposed = reported(s, &sub, topic, "RED", "NOT_ALIVE_DISPOSED");
                cases.push(router_case(
                    writer,
                    &direction,
                    "explicit unregister",
                    check(red && !blue && !disposed, || {
                        format!(
                            "before the kill: RED NOT_ALIVE_NO_WRITERS {red}, BLUE {blue}; RED disposed {disposed}\n{}",
                            s.dump(&sub)
                        )
                    })
                    .map(|()| "unregister crossed, before the departure".to_string()),
                ));
                continue;
            }
            let no_writers = reported(s, &sub, topic, "BLUE", "NOT_ALIVE_NO_WRITERS");
            let (red, scenario) = match w.life {
                Life::Disposed => (
                    reported(s, &sub, topic, "RED", "NOT_ALIVE_DISPOSED"),
                    "dispose, exit",
                ),
                Life::Kept => (
                    reported(s, &sub, topic, "RED", "NOT_ALIVE_NO_WRITERS"),
                    "writer exit",
                ),
                _ => (true, "writer exit"),
            };
            cases.push(router_case(
                writer,
                &direction,
                scenario,
                check(no_writers && red, || {
                    format!(
                        "BLUE NOT_ALIVE_NO_WRITERS {no_writers}, RED as expected {red}\n{}",
                        s.dump(&sub)
                    )
                })
                .map(|()| "instance states crossed".to_string()),
            ));
        }
    }
    cases
}

#[test]
fn a_departed_writer_is_not_alive_no_writers_behind_one_two_and_three_routers() {
    let test = "a_departed_writer_is_not_alive_no_writers_behind_one_two_and_three_routers";
    let writers = native_writers();
    let Some(s) = run_chain(test, &writers) else {
        return;
    };
    conclude(test, &chain_cases(&s, &writers), &s);
}

/// The same chain with RTI Connext 6.1 writers (`shapes_rti.py life`, XCDR1, a 3 s lease):
/// RED disposed, RED unregistered (autodispose off), and each killed with BLUE registered.
#[test]
fn an_rti_writers_instance_states_cross_one_two_and_three_routers() {
    let test = "an_rti_writers_instance_states_cross_one_two_and_three_routers";
    let importable = Command::new("python3")
        .args(["-c", "import rticonnextdds_connector"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !importable {
        skip(
            test,
            "python3 cannot import rticonnextdds_connector (scripts/setup installs it)",
        );
        return;
    }
    let writers = rti_writers();
    let Some(s) = run_chain(test, &writers) else {
        return;
    };
    conclude(test, &chain_cases(&s, &writers), &s);
}
