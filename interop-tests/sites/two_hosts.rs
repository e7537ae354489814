//! Two hosts on one LAN (`--link A:B`): a writer on one host, a reader on the other, over the
//! veth link (198.18.1.0/24) and nothing else. Per peer (siftdds itself, Cyclone 0.10's
//! `ddsperf`, Fast DDS 2.9's shapes peer) and direction, three scenarios: reliable KEEP_ALL
//! 10,000 samples with none lost, best effort (some delivered), 100 KB fragmented samples.
//! Each peer is one test and one topology run; its cases run one after the other (each in a
//! domain of its own, each process bounded by `timeout`) and are printed as `MATRIX` rows.
//!
//! Must not: pass a case on a count it did not check (every figure printed is parsed from the
//! processes' own output).

use std::collections::BTreeSet;
use std::time::Duration;

use super::{Case, Need, Sites, check, conclude, perf_summary, run_sites, scope_line};

/// Samples of the reliable KEEP_ALL scenario.
const RELIABLE: u64 = 10_000;
/// Samples of the 100 KB scenario.
const BIG: u64 = 100;

/// The directions of a pairing: (label, writer node, reader node, writer is siftdds).
fn directions(peer: &str) -> [(String, &'static str, &'static str, bool); 2] {
    if peer == "siftdds" {
        [
            ("A→B".to_string(), "A", "B", true),
            ("B→A".to_string(), "B", "A", true),
        ]
    } else {
        [
            (format!("siftdds(A)→{peer}(B)"), "A", "B", true),
            (format!("{peer}(A)→siftdds(B)"), "A", "B", false),
        ]
    }
}

/// `name`'s siftdds start-up line must announce a 198.18.1.x address (the link), not only
/// 127.0.0.1; a missing line is a failure too (the feature prints it).
fn announces_link(s: &Sites, name: &str) -> Result<(), String> {
    let err = s.err(name);
    match scope_line(&err) {
        Some((_, ips)) if ips.iter().any(|ip| ip.starts_with("198.18.1.")) => Ok(()),
        Some((scope, ips)) => Err(format!(
            "{name} announces {ips:?} (scope {scope}), not its 198.18.1.x link address"
        )),
        None => Err(format!("{name} printed no 'siftdds: scope …' line")),
    }
}

/// A case's verdict from its sample check and its start-up-line check: both must pass; a
/// failure names the sample result first (the matrix prints the first line).
fn both(samples: Result<String, String>, announced: Result<(), String>) -> Result<String, String> {
    match (samples, announced) {
        (Ok(f), Ok(())) => Ok(f),
        (Ok(f), Err(a)) => Err(format!("{f}, but {a}")),
        (Err(e), Ok(())) => Err(e),
        (Err(e), Err(a)) => {
            let (head, rest) = e.split_once('\n').unwrap_or((&e, ""));
            Err(format!("{head}; {a}\n{rest}"))
        }
    }
}

/// What a reader must have received.
#[derive(Copy, Clone, Debug)]
enum Want {
    /// Exactly this many, none lost (reliable, the writer wrote this many).
    Exactly(u64),
    /// At least this many, none lost (reliable, the writer writes on).
    AtLeast(u64),
    /// Best effort: at least one; losses are allowed and reported.
    Some,
}

impl Want {
    fn met(self, n: f64, lost: f64) -> bool {
        match self {
            Want::Exactly(w) => n == w as f64 && lost == 0.0,
            Want::AtLeast(w) => n >= w as f64 && lost == 0.0,
            Want::Some => n > 0.0,
        }
    }
}

/// A `siftdds perf sub` result against `want` (its `summary:` samples and lost).
fn perf_sub(s: &Sites, name: &str, want: Want) -> Result<String, String> {
    let out = s.out(name);
    let sum = perf_summary(&out).ok_or_else(|| format!("no summary\n{}", s.dump(name)))?;
    let (n, lost) = (sum["samples"], sum["lost"]);
    check(want.met(n, lost), || {
        format!("{n} samples ({lost} lost), want {want:?}\n{}", s.dump(name))
    })?;
    Ok(format!(
        "{n} samples, {lost} lost, {:.0}/s, sub {:.1}s",
        sum["rate"],
        s.rc(name).map_or(0.0, |r| r.1)
    ))
}

/// The last `… total N lost L …` of a `ddsperf sub`: (total, lost).
fn ddsperf_totals(out: &str) -> Option<(f64, f64)> {
    let last = out.lines().rfind(|l| l.contains(" total "))?;
    let mut w = last.split_whitespace();
    w.find(|x| *x == "total")?;
    let total = w.next()?.parse().ok()?;
    w.find(|x| *x == "lost")?;
    Some((total, w.next()?.parse().ok()?))
}

#[test]
fn siftdds_across_two_hosts() {
    let mut script = String::new();
    let mut domain = 20;
    for (tag, w, r, _) in directions("siftdds") {
        let t = &tag[..1];
        script += &format!(
            "run rel{t}.sub 30 {r} $SIFTDDS perf sub --domain {domain} --count {RELIABLE}
             sleep 0.3; run rel{t}.pub 30 {w} $SIFTDDS perf pub --domain {domain} --count {RELIABLE}
             await rel{t}.pub 30; await rel{t}.sub 5
             run be{t}.sub 20 {r} $SIFTDDS perf sub --best-effort --domain {} --duration 2
             sleep 0.3; run be{t}.pub 20 {w} $SIFTDDS perf pub --best-effort --domain {} --count 5000 --rate 5000
             await be{t}.pub 20; await be{t}.sub 8
             run big{t}.sub 30 {r} $SIFTDDS perf sub --domain {} --count {BIG}
             sleep 0.3; run big{t}.pub 30 {w} $SIFTDDS perf pub --domain {} --count {BIG} --size 100k
             await big{t}.pub 30; await big{t}.sub 5
            ",
            domain + 1,
            domain + 1,
            domain + 2,
            domain + 2
        );
        domain += 3;
    }
    let test = "siftdds_across_two_hosts";
    let Some(s) = run_sites(test, &[], &["A:B"], &script, Duration::from_secs(300)) else {
        return;
    };
    let mut cases = Vec::new();
    for (tag, _, _, _) in directions("siftdds") {
        let t = &tag[..1];
        for (scenario, name, want) in [
            ("reliable-10k", "rel", Want::Exactly(RELIABLE)),
            ("best-effort", "be", Want::Some),
            ("100KB-frag", "big", Want::Exactly(BIG)),
        ] {
            let sub = format!("{name}{t}.sub");
            let pubr = format!("{name}{t}.pub");
            let result = both(
                perf_sub(&s, &sub, want),
                announces_link(&s, &pubr).and_then(|()| announces_link(&s, &sub)),
            );
            cases.push(Case {
                peer: "siftdds",
                direction: tag.clone(),
                scenario,
                result,
            });
        }
    }
    conclude(test, &cases, &s);
}

#[test]
fn cyclone_ddsperf_across_two_hosts() {
    // siftdds on A, ddsperf on B (pub → sub), then ddsperf on A, siftdds on B.
    let script = format!(
        "run rel1.sub 30 B ddsperf -i 30 -D 25 sub
         sleep 0.5; run rel1.pub 30 A $SIFTDDS perf pub --domain 30 --count {RELIABLE}
         await rel1.pub 30; until_lines rel1.sub ' total {RELIABLE} ' 1 5; stop rel1.sub
         run rel2.sub 30 B $SIFTDDS perf sub --domain 31 --count {RELIABLE}
         sleep 0.3; run rel2.pub 30 A ddsperf -i 31 -D 25 pub
         await rel2.sub 30; stop rel2.pub
         run be1.sub 20 B ddsperf -u -i 32 -D 15 sub
         sleep 0.5; run be1.pub 20 A $SIFTDDS perf pub --best-effort --domain 32 --count 5000 --rate 5000
         await be1.pub 20; sleep 1.5; stop be1.sub
         run be2.sub 20 B $SIFTDDS perf sub --best-effort --domain 33 --duration 2
         sleep 0.3; run be2.pub 20 A ddsperf -u -i 33 -D 15 pub
         await be2.sub 20; stop be2.pub
         run big1.sub 30 B ddsperf -i 34 -D 25 sub
         sleep 0.5; run big1.pub 30 A $SIFTDDS perf pub --domain 34 --count {BIG} --size 100k
         await big1.pub 30; until_lines big1.sub ' total {BIG} ' 1 5; stop big1.sub
         run big2.sub 30 B $SIFTDDS perf sub --domain 35 --count {BIG}
         sleep 0.3; run big2.pub 30 A ddsperf -i 35 -D 25 pub size 100k
         await big2.sub 30; stop big2.pub
        "
    );
    let test = "cyclone_ddsperf_across_two_hosts";
    let needs = [Need::Tool("ddsperf")];
    let Some(s) = run_sites(test, &needs, &["A:B"], &script, Duration::from_secs(300)) else {
        return;
    };
    let [(to, ..), (from, ..)] = directions("Cyclone");
    // siftdds → ddsperf sub: its `total` (samples after it matched; none before our first
    // sample was acknowledged is lost) and `lost`.
    let to_ddsperf = |name: &str, want: Want| -> Result<String, String> {
        let sub = format!("{name}.sub");
        let (total, lost) =
            ddsperf_totals(&s.out(&sub)).ok_or_else(|| format!("no totals\n{}", s.dump(&sub)))?;
        check(want.met(total, lost), || {
            format!(
                "ddsperf total {total} lost {lost}, want {want:?}\n{}",
                s.dump(&sub)
            )
        })?;
        let secs = s.rc(&format!("{name}.pub")).map_or(0.0, |r| r.1);
        Ok(format!("{total} samples, {lost} lost, pub {secs:.1}s"))
    };
    let from_ddsperf = |name: &str, want: Want| perf_sub(&s, &format!("{name}.sub"), want);
    let cases = vec![
        case(
            "Cyclone",
            &to,
            "reliable-10k",
            to_ddsperf("rel1", Want::Exactly(RELIABLE)),
            announces_link(&s, "rel1.pub"),
        ),
        case(
            "Cyclone",
            &from,
            "reliable-10k",
            from_ddsperf("rel2", Want::AtLeast(RELIABLE)),
            announces_link(&s, "rel2.sub"),
        ),
        case(
            "Cyclone",
            &to,
            "best-effort",
            to_ddsperf("be1", Want::Some),
            announces_link(&s, "be1.pub"),
        ),
        case(
            "Cyclone",
            &from,
            "best-effort",
            from_ddsperf("be2", Want::Some),
            announces_link(&s, "be2.sub"),
        ),
        case(
            "Cyclone",
            &to,
            "100KB-frag",
            to_ddsperf("big1", Want::Exactly(BIG)),
            announces_link(&s, "big1.pub"),
        ),
        case(
            "Cyclone",
            &from,
            "100KB-frag",
            from_ddsperf("big2", Want::AtLeast(BIG)),
            announces_link(&s, "big2.sub"),
        ),
    ];
    conclude(test, &cases, &s);
}

fn case(
    peer: &'static str,
    dir: &str,
    scenario: &'static str,
    samples: Result<String, String>,
    announced: Result<(), String>,
) -> Case {
    Case {
        peer,
        direction: dir.to_string(),
        scenario,
        result: both(samples, announced),
    }
}

/// The shapesizes a Fast DDS `sub` printed (`sub: N COLOR x=.. y=.. size=S payload=P`), each
/// with its payload length.
fn fastdds_samples(out: &str) -> Vec<(u64, u64)> {
    out.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("sub: ")?;
            let size = rest
                .split_whitespace()
                .find_map(|w| w.strip_prefix("size="))?;
            let payload = rest
                .split_whitespace()
                .find_map(|w| w.strip_prefix("payload="))?;
            Some((size.parse().ok()?, payload.parse().ok()?))
        })
        .collect()
}

/// The x values of `shape_main -S` sample lines (`Square RED 010 020 [30] {159}`), with the
/// `{last payload byte}` field if any.
fn shape_samples(out: &str) -> Vec<(i64, Option<String>)> {
    out.lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            if w.len() < 5 || w[0] != "Square" || !w[4].starts_with('[') {
                return None;
            }
            Some((w[2].parse().ok()?, w.get(5).map(|s| s.to_string())))
        })
        .collect()
}

#[test]
fn fastdds_across_two_hosts() {
    // siftdds's shape_main writes shapesizes 1, 2, 3, … (`-z 0`) as TRANSIENT_LOCAL KEEP_ALL,
    // so a Fast DDS reader that matches after the first writes still gets every one; the Fast
    // DDS writer waits for a match and writes x = 10 + 5 i.
    let sm_pub = "$SHAPE_MAIN -P -t Square -c RED -z 0";
    let fd_sub = "$FASTDDS sub -T Square -t 28";
    let sm_sub = "$SHAPE_MAIN -S -t Square --read-period 10";
    let fd_pub = "$FASTDDS pub -T Square -c RED -m 1 -l 500 -t 28";
    let script = format!(
        "run rel1.sub 30 B {fd_sub} -d 40 -k 0 -D t -n {RELIABLE}
         sleep 0.5; run rel1.pub 30 A {sm_pub} -d 40 -r -k 0 -D l --write-period 0 --num-iterations {RELIABLE}
         await rel1.sub 30; stop rel1.pub
         run rel2.sub 30 B {sm_sub} -d 41 -r -k 0
         sleep 0.3; run rel2.pub 30 A {fd_pub} -d 41 -k 0 -i 0 -n {RELIABLE}
         until_lines rel2.sub '^Square ' {RELIABLE} 28; sleep 0.5; stop rel2.sub; await rel2.pub 3
         run be1.sub 20 B {fd_sub} -d 42 -b -k 1
         sleep 0.5; run be1.pub 20 A {sm_pub} -d 42 -b -k 1 --write-period 1 --num-iterations 2000
         await be1.pub 20; sleep 1; stop be1.sub
         run be2.sub 20 B {sm_sub} -d 43 -b -k 1
         sleep 0.3; run be2.pub 20 A {fd_pub} -d 43 -b -k 1 -i 1 -n 2000
         await be2.pub 20; sleep 1; stop be2.sub
         run big1.sub 30 B {fd_sub} -d 44 -k 0 -D t -n {BIG}
         sleep 0.5; run big1.pub 30 A {sm_pub} -d 44 -r -k 0 -D l --write-period 10 --additional-payload-size 100000 --num-iterations {BIG}
         await big1.sub 30; stop big1.pub
         run big2.sub 30 B {sm_sub} -d 45 -r -k 0
         sleep 0.3; run big2.pub 30 A {fd_pub} -d 45 -k 0 -i 10 -z 100000 -n {BIG}
         until_lines big2.sub '^Square ' {BIG} 28; sleep 0.5; stop big2.sub; await big2.pub 3
        "
    );
    let test = "fastdds_across_two_hosts";
    let needs = [Need::Peer("fastdds/shapes_fastdds")];
    let Some(s) = run_sites(test, &needs, &["A:B"], &script, Duration::from_secs(300)) else {
        return;
    };
    let [(to, ..), (from, ..)] = directions("FastDDS");
    // siftdds → Fast DDS: every shapesize 1..=want exactly once (reliable) or some (BE).
    let to_fastdds = |name: &str, want: u64, payload: u64, reliable: bool| {
        let sub = format!("{name}.sub");
        let got = fastdds_samples(&s.out(&sub));
        let sizes: BTreeSet<u64> = got.iter().map(|g| g.0).collect();
        let ok = if reliable {
            got.len() as u64 == want && sizes == (1..=want).collect()
        } else {
            !got.is_empty() && got.len() == sizes.len()
        };
        check(ok && got.iter().all(|g| g.1 == payload), || {
            format!(
                "{} samples ({} distinct, payloads {:?}), want {want}\n{}",
                got.len(),
                sizes.len(),
                got.iter().map(|g| g.1).collect::<BTreeSet<_>>(),
                s.dump(&sub)
            )
        })?;
        let secs = s.rc(&sub).map_or(0.0, |r| r.1);
        Ok(format!("{} samples, sub {secs:.1}s", got.len()))
    };
    // Fast DDS → siftdds: x = 10 + 5 i for every i < want exactly once (reliable) or some.
    let from_fastdds = |name: &str, want: u64, last: Option<&str>, reliable: bool| {
        let sub = format!("{name}.sub");
        let got = shape_samples(&s.out(&sub));
        let xs: BTreeSet<i64> = got.iter().map(|g| g.0).collect();
        let all: BTreeSet<i64> = (0..want as i64).map(|i| 10 + 5 * i).collect();
        let ok = if reliable {
            got.len() as u64 == want && xs == all
        } else {
            !got.is_empty() && got.len() == xs.len() && xs.is_subset(&all)
        };
        check(ok && got.iter().all(|g| g.1.as_deref() == last), || {
            format!(
                "{} samples ({} distinct), want {want}\n{}",
                got.len(),
                xs.len(),
                s.dump(&sub)
            )
        })?;
        let secs = s.rc(&format!("{name}.pub")).map_or(0.0, |r| r.1);
        Ok(format!("{} samples, pub {secs:.1}s", got.len()))
    };
    // Fast DDS fills the payload with i mod 256: the last of 100,000 octets is 159.
    let cases = vec![
        case(
            "FastDDS",
            &to,
            "reliable-10k",
            to_fastdds("rel1", RELIABLE, 0, true),
            announces_link(&s, "rel1.pub"),
        ),
        case(
            "FastDDS",
            &from,
            "reliable-10k",
            from_fastdds("rel2", RELIABLE, None, true),
            announces_link(&s, "rel2.sub"),
        ),
        case(
            "FastDDS",
            &to,
            "best-effort",
            to_fastdds("be1", 2000, 0, false),
            announces_link(&s, "be1.pub"),
        ),
        case(
            "FastDDS",
            &from,
            "best-effort",
            from_fastdds("be2", 2000, None, false),
            announces_link(&s, "be2.sub"),
        ),
        case(
            "FastDDS",
            &to,
            "100KB-frag",
            to_fastdds("big1", BIG, 100_000, true),
            announces_link(&s, "big1.pub"),
        ),
        case(
            "FastDDS",
            &from,
            "100KB-frag",
            from_fastdds("big2", BIG, Some("{159}"), true),
            announces_link(&s, "big2.sub"),
        ),
    ];
    conclude(test, &cases, &s);
}
