//! The router between sites with DDS Security identities of their own (issue 26,
//! docs/router.md "Security"), `A:R`, `R:B`, the router in R from a config file whose
//! `[site.security]` tables give its identity, permissions and governance per site (the PKI
//! of `scripts/test-pki`, governance `governance_rtps`: RTPS protection ENCRYPT, join, read
//! and write access control):
//!
//! - `a_secured_site_and_an_open_one`: A secured (the router as alice, a Cyclone 0.10 writer
//!   as bob, a Fast DDS 2.9 writer as dave, a siftdds `shape_main` writer as carol from a
//!   QoS XML profile), B open (Cyclone, Fast DDS and siftdds readers): every sample once and
//!   in order on B; the capture of A's LAN holds no sample's colour and no user DATA in
//!   clear (SRTPS-protected datagrams only), B's capture holds both.
//! - `two_secured_sites_under_different_cas`: A under the EC identity CA (router alice, a
//!   Cyclone writer bob), B under the other CA (router carol of the other CA, given by the
//!   standard `dds.sec.*` names; a Cyclone reader bob of the other CA): every sample once
//!   and in order; a Cyclone reader on B holding dave's certificate of A's CA cannot
//!   authenticate there and gets nothing.
//! - `permissions_denying_a_topic_on_a_secured_site_close_its_routes_both_ways`: the
//!   router's permissions on A deny Circle (`permissions_nocircle`): a Cyclone writer's Circle
//!   samples on A reach no reader on B (the router may not read Circle on A), an open Cyclone
//!   writer's Circle samples on B reach no reader on A (it may not write Circle there), the
//!   router's exit summary names both refusals, and Square from another Cyclone writer on A
//!   crosses.
//!
//! Must not: pass a case on a count it did not parse from the processes' own output or the
//! captures.

use std::path::Path;
use std::time::Duration;

use siftdds::wire::submessage::{Submessage, SubmessageOutcome};

use super::peer_group::each_message;
use super::router::{exactly, received, router_case};
use super::{Need, Sites, check, conclude, report, run_sites};
use crate::security::{Docs, Identity, cyclone_config_on, fastdds_security_args, pki, uri};

/// Samples per writer.
const N: i64 = 200;
/// The sample colours: markers that must not be seen in clear on a secured LAN.
const CYC_MARK: &str = "SIFTSECRETC";
const SIFT_MARK: &str = "SIFTSECRETS";
const FAST_MARK: &str = "SIFTSECRETF";
/// RTPS protection ENCRYPT with join, read and write access control.
const GOVERNANCE: &str = "governance_rtps.p7s";
/// DDS-Security 1.1 §7.3.6.5: the submessage that starts an SRTPS-protected message.
const SRTPS_PREFIX: u8 = 0x33;

/// A participant's identity and access-control documents under the PKI.
struct Who {
    ca: &'static str,
    cert: &'static str,
    permissions: &'static str,
}

const ALICE_EC: Who = Who {
    ca: "ec/ca.pem",
    cert: "ec/alice",
    permissions: "permissions.p7s",
};
const BOB_EC: Who = Who {
    ca: "ec/ca.pem",
    cert: "ec/bob",
    permissions: "permissions.p7s",
};
const CAROL_EC: Who = Who {
    ca: "ec/ca.pem",
    cert: "ec/carol",
    permissions: "permissions_sites.p7s",
};
const DAVE_EC: Who = Who {
    ca: "ec/ca.pem",
    cert: "ec/dave",
    permissions: "permissions_sites.p7s",
};
const BOB_OTHER: Who = Who {
    ca: "other/ca.pem",
    cert: "other/bob",
    permissions: "permissions.p7s",
};
const CAROL_OTHER: Who = Who {
    ca: "other/ca.pem",
    cert: "other/carol",
    permissions: "permissions_sites.p7s",
};

/// A `[[site]]` of the router on its interface `interface`, secured as `who` (`None`: open).
/// `standard`: the security entries by their `dds.sec.*` names as `file:` URIs, else by
/// their short names as plain paths.
fn site(pki: &Path, name: &str, who: Option<&Who>, standard: bool) -> String {
    let mut t = format!("[[site]]\nname = \"{name}\"\nkind = \"lan\"\ninterfaces = [\"{name}\"]\n");
    let Some(w) = who else {
        return t;
    };
    t.push_str("[site.security]\n");
    let entries = [
        ("identity_ca", "dds.sec.auth.identity_ca", w.ca.to_string()),
        (
            "identity_certificate",
            "dds.sec.auth.identity_certificate",
            format!("{}.pem", w.cert),
        ),
        (
            "private_key",
            "dds.sec.auth.private_key",
            format!("{}.key", w.cert),
        ),
        (
            "permissions_ca",
            "dds.sec.access.permissions_ca",
            "perm/ca.pem".to_string(),
        ),
        (
            "governance",
            "dds.sec.access.governance",
            format!("perm/{GOVERNANCE}"),
        ),
        (
            "permissions",
            "dds.sec.access.permissions",
            format!("perm/{}", w.permissions),
        ),
    ];
    for (short, long, file) in entries {
        let path = pki.join(file);
        if standard {
            t.push_str(&format!("\"{long}\" = \"{}\"\n", uri(&path)));
        } else {
            t.push_str(&format!("{short} = \"{}\"\n", path.display()));
        }
    }
    t
}

/// A script line writing Cyclone's configuration for `who` (on the node's interface `R`,
/// trace to `$OUT/NAME.log`) to `$OUT/NAME.xml`.
fn cyclone_xml(pki: &Path, name: &str, who: &Who) -> String {
    let xml = cyclone_config_on(
        pki,
        &Identity {
            ca: who.ca,
            cert: who.cert,
        },
        Docs {
            governance: GOVERNANCE,
            permissions: who.permissions,
        },
        Path::new(&format!("$OUT/{name}.log")),
        "R",
    );
    format!("cat >$OUT/{name}.xml <<EOF\n{xml}\nEOF\n")
}

/// `shapes_fastdds`'s `--property` arguments for `who`, quoted for the script.
fn fastdds_args(pki: &Path, who: &Who) -> String {
    let id = Identity {
        ca: who.ca,
        cert: who.cert,
    };
    let docs = Docs {
        governance: GOVERNANCE,
        permissions: who.permissions,
    };
    fastdds_security_args(pki, &id, docs)
        .iter()
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A script line writing a QoS XML file `$OUT/NAME.xml` whose profile `Sec::Me` gives a
/// siftdds participant `who`'s identity and documents (standard `dds.sec.*` properties).
fn siftdds_xml(pki: &Path, name: &str, who: &Who) -> String {
    let element = |n: &str, file: String| {
        format!(
            "<element><name>{n}</name><value>{}</value></element>",
            uri(&pki.join(file))
        )
    };
    let xml = format!(
        r#"<dds><qos_library name="Sec"><qos_profile name="Me"><domain_participant_qos>
<property><value>{}{}{}{}{}{}</value></property>
</domain_participant_qos></qos_profile></qos_library></dds>"#,
        element("dds.sec.auth.identity_ca", who.ca.to_string()),
        element(
            "dds.sec.auth.identity_certificate",
            format!("{}.pem", who.cert)
        ),
        element("dds.sec.auth.private_key", format!("{}.key", who.cert)),
        element("dds.sec.access.permissions_ca", "perm/ca.pem".into()),
        element("dds.sec.access.governance", format!("perm/{GOVERNANCE}")),
        element(
            "dds.sec.access.permissions",
            format!("perm/{}", who.permissions)
        ),
    );
    format!("cat >$OUT/{name}.xml <<'EOF'\n{xml}\nEOF\n")
}

/// The router's config file `$OUT/router.toml` and its start in R.
fn router(config: &str) -> String {
    format!(
        "cat >$OUT/router.toml <<'EOF'\n{config}\nEOF\n\
         run router 110 R $SIFTDDS router --config $OUT/router.toml\nsleep 1\n"
    )
}

/// What a capture of a LAN carried: datagrams starting SRTPS-protected, user DATA
/// submessages in clear, and how often `mark` appears in its bytes.
struct Carried {
    protected: usize,
    clear_data: usize,
    marks: usize,
}

fn carried(file: &Path, mark: &str) -> Result<Carried, String> {
    let (mut protected, mut clear_data) = (0, 0);
    // Under RTPS protection a message holds one SRTPS_PREFIX in clear (what it protects is
    // encrypted): one per protected datagram.
    each_message(file, |_, _, _, sm| match sm {
        SubmessageOutcome::NotUnderstood { id, .. } if *id == SRTPS_PREFIX => protected += 1,
        SubmessageOutcome::Accept(Submessage::Data(d)) if !d.writer_id.is_builtin() => {
            clear_data += 1
        }
        _ => {}
    })?;
    let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let marks = bytes
        .windows(mark.len())
        .filter(|w| *w == mark.as_bytes())
        .count();
    Ok(Carried {
        protected,
        clear_data,
        marks,
    })
}

/// The router's exit-summary count of endpoints its permissions refused.
fn refused_count(s: &Sites) -> Option<u64> {
    s.err("router").lines().find_map(|l| {
        l.strip_prefix("siftdds: router access control: endpoints refused by our permissions ")?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    })
}

const NEEDS: [Need; 3] = [
    Need::Peer("cyclone/shapes_cyclone"),
    Need::Tool("tshark"),
    Need::Peer("fastdds/shapes_fastdds"),
];

#[test]
fn a_secured_site_and_an_open_one() {
    let test = "a_secured_site_and_an_open_one";
    let pki = pki();
    let config = format!(
        "{}\n{}\n[[topic]]\nname = \"SiftS\"\nhistory_depth = 0\n",
        site(&pki, "A", Some(&ALICE_EC), false),
        site(&pki, "B", None, false)
    );
    let mut script = cyclone_xml(&pki, "bob", &BOB_EC);
    script.push_str(&siftdds_xml(&pki, "carol", &CAROL_EC));
    script.push_str(
        "run capA 110 A tshark -q -i R -f udp -F pcap -w $OUT/A.pcap
         run capB 110 B tshark -q -i R -f udp -F pcap -w $OUT/B.pcap
         sleep 2\n",
    );
    script.push_str(&router(&config));
    let fast = fastdds_args(&pki, &DAVE_EC);
    script.push_str(&format!(
        "run CycS.cyc 90 B $CYCLONE sub -T CycS -k 0 -n {N} -t 80
         run CycS.fast 90 B $FASTDDS sub -T CycS -k 0 -n {N} -t 80
         run CycS.sift 90 B $SHAPE_MAIN -S -t CycS -r -k 0 --read-period 5
         run FastS.cyc 90 B $CYCLONE sub -T FastS -k 0 -n {N} -t 80
         run FastS.fast 90 B $FASTDDS sub -T FastS -k 0 -n {N} -t 80
         run FastS.sift 90 B $SHAPE_MAIN -S -t FastS -r -k 0 --read-period 5
         run SiftS.cyc 90 B $CYCLONE sub -T SiftS -k 0 -D t -n {N} -t 80
         run SiftS.fast 90 B $FASTDDS sub -T SiftS -k 0 -D t -n {N} -t 80
         run SiftS.sift 90 B $SHAPE_MAIN -S -t SiftS -r -k 0 -D l --read-period 5
         sleep 5
         run CycS.pub 90 A env CYCLONEDDS_URI=file://$OUT/bob.xml $CYCLONE pub -T CycS -c {CYC_MARK} -m 1 -k 0 -i 10 -n {N} -l 3000 -t 70
         run FastS.pub 90 A $FASTDDS pub -T FastS -c {FAST_MARK} -m 1 -k 0 -i 10 -n {N} -l 3000 -t 70 {fast}
         run SiftS.pub 90 A $SHAPE_MAIN -P -t SiftS -c {SIFT_MARK} -r -k 0 -D l -z 0 --write-period 20 --num-iterations {N} --qos-file $OUT/carol.xml --qos-profile Sec::Me
         for t in CycS FastS; do await $t.cyc 75; await $t.fast 20; done
         await SiftS.cyc 30; await SiftS.fast 20; await SiftS.pub 20
         for t in CycS FastS SiftS; do until_lines $t.sift \"^$t \" {N} 10; done
         sleep 2
         for n in CycS.sift FastS.sift SiftS.sift CycS.pub FastS.pub SiftS.pub router capA capB; do stop $n; done
        "
    ));
    let Some(s) = run_sites(
        test,
        &NEEDS,
        &["A:R", "R:B"],
        &script,
        Duration::from_secs(150),
    ) else {
        return;
    };
    let xs: Vec<i64> = (0..N).map(|i| 10 + 5 * i).collect();
    let sizes: Vec<i64> = (1..=N).collect();
    let mut cases = Vec::new();
    for (topic, writer, field, want) in [
        ("CycS", "Cyclone", "x", &xs),
        ("FastS", "FastDDS", "x", &xs),
        ("SiftS", "siftdds", "size", &sizes),
    ] {
        for (reader, label) in [("cyc", "Cyclone"), ("fast", "FastDDS"), ("sift", "siftdds")] {
            let sub = format!("{topic}.{reader}");
            let got = received(&s.out(&sub), topic, field);
            cases.push(router_case(
                writer,
                &format!("{writer}(A secured)→R→{label}(B open)"),
                "delivered",
                exactly(&s, &sub, got, want, None),
            ));
        }
    }
    for (file, lan, secured) in [("A.pcap", "A", true), ("B.pcap", "B", false)] {
        let result = [CYC_MARK, FAST_MARK, SIFT_MARK]
            .iter()
            .map(|m| carried(&s.path(file), m))
            .collect::<Result<Vec<_>, _>>()
            .and_then(|c| {
                let marks: usize = c.iter().map(|c| c.marks).sum();
                let (protected, clear) = (c[0].protected, c[0].clear_data);
                let figures =
                    format!("{marks} colour markers, {clear} user DATA in clear, {protected} SRTPS-protected datagrams");
                let ok = if secured {
                    marks == 0 && clear == 0 && protected >= N as usize
                } else {
                    marks >= 3 * N as usize && clear >= 3 * N as usize
                };
                check(ok, || format!("LAN {lan}: {figures}")).map(|()| figures)
            });
        cases.push(router_case(
            "capture",
            &format!("LAN {lan}"),
            if secured { "no plaintext" } else { "plaintext" },
            result,
        ));
    }
    cases.push(router_case(
        "router",
        "A→B",
        "no refusal",
        check(refused_count(&s) == Some(0), || {
            format!("refusals {:?}\n{}", refused_count(&s), s.dump("router"))
        })
        .map(|()| "0 refused".into()),
    ));
    report_router(&s);
    conclude(test, &cases, &s);
}

#[test]
fn two_secured_sites_under_different_cas() {
    let test = "two_secured_sites_under_different_cas";
    let pki = pki();
    let config = format!(
        "{}\n{}",
        site(&pki, "A", Some(&ALICE_EC), false),
        site(&pki, "B", Some(&CAROL_OTHER), true)
    );
    let mut script = cyclone_xml(&pki, "bob_ec", &BOB_EC);
    script.push_str(&cyclone_xml(&pki, "bob_other", &BOB_OTHER));
    script.push_str(&cyclone_xml(&pki, "dave_ec", &DAVE_EC));
    script.push_str(&router(&config));
    script.push_str(&format!(
        "run X.cyc 90 B env CYCLONEDDS_URI=file://$OUT/bob_other.xml $CYCLONE sub -T X -k 0 -n {N} -t 80
         run X.wrongca 90 B env CYCLONEDDS_URI=file://$OUT/dave_ec.xml $CYCLONE sub -T X -k 0 -n {N} -t 80
         sleep 6
         run X.pub 90 A env CYCLONEDDS_URI=file://$OUT/bob_ec.xml $CYCLONE pub -T X -c RED -m 1 -k 0 -i 10 -n {N} -l 3000 -t 70
         await X.cyc 75; sleep 2
         for n in X.wrongca X.pub router; do stop $n; done
        "
    ));
    let Some(s) = run_sites(
        test,
        &NEEDS[..1],
        &["A:R", "R:B"],
        &script,
        Duration::from_secs(130),
    ) else {
        return;
    };
    let xs: Vec<i64> = (0..N).map(|i| 10 + 5 * i).collect();
    let mut cases = vec![router_case(
        "Cyclone",
        "Cyclone(A, EC CA)→R→Cyclone(B, other CA)",
        "delivered",
        exactly(&s, "X.cyc", received(&s.out("X.cyc"), "X", "x"), &xs, None),
    )];
    let wrong = received(&s.out("X.wrongca"), "X", "x");
    let log = std::fs::read_to_string(s.path("dave_ec.log")).unwrap_or_default();
    // Cyclone's trace of the handshake it refused: the router's certificate on B (carol of
    // the other CA) does not chain to A's CA, which is all dave trusts.
    let refused = log
        .contains("Certificate not valid: error: unable to get local issuer certificate")
        && log.contains("CN=carol");
    cases.push(router_case(
        "Cyclone",
        "Cyclone(B, A's CA)",
        "not authenticated",
        check(wrong.0.is_empty() && refused, || {
            format!(
                "a reader of A's CA on B got {} samples, a refused handshake in its trace: \
                 {refused}\n{}",
                wrong.0.len(),
                s.dump("X.wrongca")
            )
        })
        .map(|()| "0 samples, its handshake refused (certificate of another CA)".into()),
    ));
    report_router(&s);
    conclude(test, &cases, &s);
}

#[test]
fn permissions_denying_a_topic_on_a_secured_site_close_its_routes_both_ways() {
    let test = "permissions_denying_a_topic_on_a_secured_site_close_its_routes_both_ways";
    let pki = pki();
    let router_who = Who {
        permissions: "permissions_nocircle.p7s",
        ..ALICE_EC
    };
    let config = format!(
        "{}\n{}",
        site(&pki, "A", Some(&router_who), false),
        site(&pki, "B", None, false)
    );
    let mut script = cyclone_xml(&pki, "bob", &BOB_EC);
    script.push_str(&cyclone_xml(&pki, "carol", &CAROL_EC));
    script.push_str(&cyclone_xml(&pki, "dave", &DAVE_EC));
    script.push_str(&router(&config));
    // A → B: Circle (RED) written on A, read on B: the router may not read it on A.
    // B → A: Circle (BLUE) written on B, read on A (dave): the router may not write it on A.
    // Square (carol, A → B) is allowed.
    script.push_str(&format!(
        "run Circle.cyc 90 B $CYCLONE sub -T Circle -k 0 -t 60
         run Circle.sift 90 B $SHAPE_MAIN -S -t Circle -r -k 0 --read-period 5
         run Square.cyc 90 B $CYCLONE sub -T Square -k 0 -n {N} -t 70
         run Circle.cycA 90 A env CYCLONEDDS_URI=file://$OUT/dave.xml $CYCLONE sub -T Circle -k 0 -t 60
         sleep 5
         run Circle.pub 90 A env CYCLONEDDS_URI=file://$OUT/bob.xml $CYCLONE pub -T Circle -c RED -m 0 -k 0 -i 10 -n {N} -l 3000 -t 50
         run Circle.pubB 90 B $CYCLONE pub -T Circle -c BLUE -m 0 -k 0 -i 10 -n {N} -l 3000 -t 50
         run Square.pub 90 A env CYCLONEDDS_URI=file://$OUT/carol.xml $CYCLONE pub -T Square -c RED -m 1 -k 0 -i 10 -n {N} -l 3000 -t 60
         await Square.cyc 65; await Circle.pub 20; await Circle.pubB 20; sleep 1
         for n in Circle.cyc Circle.sift Circle.cycA Square.pub router; do stop $n; done
        "
    ));
    let Some(s) = run_sites(
        test,
        &NEEDS[..1],
        &["A:R", "R:B"],
        &script,
        Duration::from_secs(130),
    ) else {
        return;
    };
    let xs: Vec<i64> = (0..N).map(|i| 10 + 5 * i).collect();
    let mut cases = vec![router_case(
        "Cyclone",
        "Cyclone(A)→R→Cyclone(B)",
        "Square allowed",
        exactly(
            &s,
            "Square.cyc",
            received(&s.out("Square.cyc"), "Square", "x"),
            &xs,
            None,
        ),
    )];
    let wrote = |pub_: &str| {
        s.out(pub_)
            .lines()
            .filter(|l| l.starts_with("pub: ") && l.contains(" x="))
            .count()
    };
    // The samples of `color` a reader printed.
    let of = |sub: &str, color: &str| {
        let out: String = s
            .out(sub)
            .lines()
            .filter(|l| l.split_whitespace().any(|w| w == color))
            .map(|l| format!("{l}\n"))
            .collect();
        received(&out, "Circle", "x").0.len()
    };
    // Each reader also gets the other colour from the writer on its own LAN: it was up.
    for (sub, label, from, wrote_by, local) in [
        (
            "Circle.cyc",
            "Cyclone(A)→R→Cyclone(B)",
            "RED",
            "Circle.pub",
            "BLUE",
        ),
        (
            "Circle.sift",
            "Cyclone(A)→R→siftdds(B)",
            "RED",
            "Circle.pub",
            "BLUE",
        ),
        (
            "Circle.cycA",
            "Cyclone(B)→R→Cyclone(A)",
            "BLUE",
            "Circle.pubB",
            "RED",
        ),
    ] {
        let (crossed, direct, written) = (of(sub, from), of(sub, local), wrote(wrote_by));
        cases.push(router_case(
            "Cyclone",
            label,
            "Circle denied",
            check(crossed == 0 && direct > 0 && written == N as usize, || {
                format!(
                    "{crossed} {from} Circle samples crossed ({written} written), {direct} {local} from its own LAN\n{}",
                    s.dump(sub)
                )
            })
            .map(|()| format!("0 of {written} crossed ({direct} {local} from its own LAN)")),
        ));
    }
    let err = s.err("router");
    let named = |what: &str| {
        err.lines()
            .find(|l| {
                l.starts_with("siftdds: router refused: topic \"Circle\"")
                    && l.contains(what)
                    && l.contains("deny_rule")
            })
            .map(str::to_string)
    };
    let (read, write) = (
        named("is not read from site A"),
        named("is not written into site A"),
    );
    cases.push(router_case(
        "router",
        "A",
        "refusals reported",
        check(
            read.is_some() && write.is_some() && refused_count(&s) == Some(2),
            || {
                format!(
                    "refusals {:?}, lines {read:?} {write:?}\n{}",
                    refused_count(&s),
                    s.dump("router")
                )
            },
        )
        .map(|()| {
            format!(
                "{} | {}",
                read.unwrap_or_default(),
                write.unwrap_or_default()
            )
        }),
    ));
    report_router(&s);
    conclude(test, &cases, &s);
}

/// The router's start and exit lines, for the record.
fn report_router(s: &Sites) {
    report(&format!(
        "router: {}",
        s.err("router")
            .lines()
            .filter(|l| l.contains("router left")
                || l.contains("access control")
                || l.contains("refused")
                || l.starts_with("siftdds router:"))
            .collect::<Vec<_>>()
            .join(" | ")
    ));
}
