//! The command lines of `siftdds` and `shape_main` as a user meets them: `--help` on every
//! subcommand, `--version`, unknown commands and typos reported, and every refused value
//! refused with its reason and exit code 2 before anything starts.
//!
//! Help and version never open a socket and run anywhere; the refused values would start a
//! run if a check were missing, so those tests run only in the network sandbox.

use std::process::{Command, Output};

use crate::sandbox::may_open_sockets;

const SIFTDDS: &str = env!("CARGO_BIN_EXE_siftdds");

fn siftdds(args: &[&str]) -> Output {
    Command::new(SIFTDDS).args(args).output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn every_subcommand_has_help() {
    for (args, usage) in [
        (&["--help"][..], "Usage: siftdds <COMMAND>"),
        (&["help"], "Usage: siftdds <COMMAND>"),
        (&["demo", "--help"], "Usage: siftdds demo [OPTIONS]"),
        (&["help", "demo"], "Usage: siftdds demo [OPTIONS]"),
        (&["perf", "--help"], "Usage: siftdds perf <COMMAND>"),
        (&["perf", "help"], "Usage: siftdds perf <COMMAND>"),
        (
            &["perf", "pub", "--help"],
            "Usage: siftdds perf pub [OPTIONS]",
        ),
        (
            &["perf", "sub", "--help"],
            "Usage: siftdds perf sub [OPTIONS]",
        ),
        (
            &["perf", "ping", "--help"],
            "Usage: siftdds perf ping [OPTIONS]",
        ),
        (
            &["perf", "pong", "--help"],
            "Usage: siftdds perf pong [OPTIONS]",
        ),
        (
            &["perf", "udp-ping", "--help"],
            "Usage: siftdds perf udp-ping",
        ),
        (
            &["perf", "udp-pong", "--help"],
            "Usage: siftdds perf udp-pong",
        ),
        (
            &["perf", "udp-relay", "--help"],
            "Usage: siftdds perf udp-relay",
        ),
        (
            &["inspect", "--help"],
            "Usage: siftdds inspect <FILE.pcap|FILE.pcapng>",
        ),
        (
            &["idl", "--help"],
            "Usage: siftdds idl [OPTIONS] <FILE.idl>...",
        ),
    ] {
        let o = siftdds(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(usage), "{args:?}: {}", text(&o));
    }
    let o = siftdds(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        format!("siftdds {}", env!("CARGO_PKG_VERSION"))
    );
    let o = siftdds(&["demo", "--help"]);
    assert!(
        text(&o).contains("0..=119"),
        "the subscriber limit is documented"
    );
}

#[test]
fn unknown_commands_and_typos_are_reported() {
    for (args, want) in [
        (&["bogus"][..], "unrecognized subcommand 'bogus'"),
        (&["dmeo"], "a similar subcommand exists: 'demo'"),
        (&["perf", "pubb"], "'pub'"),
        (
            &["demo", "--subscriber", "3"],
            "a similar argument exists: '--subscribers'",
        ),
        (&["inspect"], "FILE.pcap|FILE.pcapng"),
        (&["idl"], "<FILE.idl>..."),
    ] {
        let o = siftdds(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(want), "{args:?}: {}", text(&o));
    }
}

#[test]
fn nonsense_values_are_refused_with_the_reason() {
    if !may_open_sockets("nonsense_values_are_refused_with_the_reason") {
        return;
    }
    for (args, want) in [
        (&["demo", "--rate", "inf"][..], "inf is not finite"),
        (&["demo", "--rate", "nan"], "nan is not finite"),
        (&["demo", "--rate", "0"], "0 is not > 0"),
        (&["demo", "--seconds", "-1"], "-1 is not > 0"),
        (&["demo", "--seconds", "0"], "0 is not > 0"),
        (&["demo", "--seconds", "nan"], "not finite"),
        (&["demo", "--subscribers", "0"], "at least one subscriber"),
        (
            &["demo", "--subscribers", "200"],
            "participant indices 0..=119",
        ),
        (&["demo", "--plan", "multicast"], "--multicast"),
        (&["demo", "--domain", "300"], "16 bits"),
        (
            &["demo", "--seconds", "86400", "--rate", "1000"],
            "above the 10000000",
        ),
        (
            &["demo", "--seconds", "0.001", "--rate", "1"],
            "no sample at all",
        ),
        (&["demo", "--plot", "out.png"], "name it FILE.svg"),
        (
            &["demo", "--no-baseline", "--baseline-first"],
            "cannot be used with",
        ),
        (&["perf", "pub", "--rate", "0"], "0 is not > 0"),
        (&["perf", "pub", "--rate", "-3"], "-3 is not > 0"),
        (&["perf", "pub", "--batch", "maybe"], "on or off"),
        (&["perf", "pub", "--duration", "inf"], "not finite"),
        (&["perf", "pub", "--count", "0"], "--count"),
        (&["perf", "sub", "--history", "0"], "use `all` for KEEP_ALL"),
        (
            &["perf", "sub", "--size", "4"],
            "below the 12-byte fixed part",
        ),
        (
            &["perf", "pub", "--reliable", "--best-effort"],
            "cannot be used with",
        ),
    ] {
        let o = siftdds(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(want), "{args:?}: {}", text(&o));
        assert!(
            !text(&o).contains("siftdds: scope"),
            "{args:?} started a participant: {}",
            text(&o)
        );
    }
}

#[test]
fn inspect_prints_its_summary_for_a_cut_capture() {
    let capture = repo_path!("tests/data/captures/cyclone-ddsperf.pcapng");
    let bytes = std::fs::read(capture).unwrap();
    let cut = std::env::temp_dir().join(format!("siftdds-cut-{}.pcapng", std::process::id()));
    // Cut inside the last record: the records before it are whole.
    std::fs::write(&cut, &bytes[..bytes.len() - 7]).unwrap();
    let o = Command::new(SIFTDDS)
        .arg("inspect")
        .arg(&cut)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&cut);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(stdout.contains("cut short after that"), "{stdout}");
    assert!(
        stdout
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("messages: ")),
        "no totals line: {stdout}"
    );
    assert!(text(&o).contains("capture cut short"), "{}", text(&o));
}
