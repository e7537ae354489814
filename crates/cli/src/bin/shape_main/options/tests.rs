//! Command-line parsing tests: harness defaults, getopt bundling, errors, QoS options.

use super::*;

fn run(args: &[&str]) -> Options {
    match parse(args) {
        Ok(Parsed::Run(o)) => *o,
        other => panic!("{args:?}: {other:?}"),
    }
}

#[test]
fn defaults_follow_the_harness() {
    let o = run(&["-P"]);
    assert_eq!(o.topic, "Square");
    assert_eq!(o.reliable, None, "RELIABLE unless a profile says otherwise");
    assert_eq!(o.history_depth, None);
    assert_eq!((o.write_period_ms, o.read_period_ms), (33, 100));
    assert_eq!(o.shapesize, 20);
    assert_eq!(
        o.warnings(),
        vec!["warning: color was not specified, defaulting to \"BLUE\""]
    );
}

#[test]
fn qos_options_are_none_unless_named_and_qos_files_repeat() {
    let o = run(&[
        "-P",
        "--qos-file",
        "a.xml",
        "--qos-file=b.xml",
        "--qos-profile",
        "L::P",
    ]);
    assert_eq!(o.qos_files, ["a.xml", "b.xml"]);
    assert_eq!(o.qos_profile.as_deref(), Some("L::P"));
    assert_eq!(
        (o.reliable, o.durability, o.history_depth),
        (None, None, None)
    );
    assert_eq!(
        (o.deadline_ms, o.time_filter_ms, o.lifespan_ms),
        (None, None, None)
    );
    assert_eq!((o.ownership_strength, o.data_representation), (None, None));
    let o = run(&[
        "-S",
        "-r",
        "-f",
        "0",
        "-s",
        "-1",
        "-x",
        "1",
        "-D",
        "v",
        "--lifespan",
        "0",
    ]);
    assert_eq!(
        (o.reliable, o.durability),
        (Some(true), Some(DurabilityArg::Volatile))
    );
    assert_eq!((o.deadline_ms, o.lifespan_ms), (Some(0), Some(0)));
    assert_eq!(
        (o.ownership_strength, o.data_representation),
        (Some(-1), Some(1))
    );
}

#[test]
fn short_options_bundle_and_take_attached_values() {
    let o = run(&[
        "-Pwb",
        "-tCircle",
        "-d",
        "7",
        "-k",
        "0",
        "-c",
        "RED",
        "--num-iterations=5",
    ]);
    assert!(o.publish && o.print_writer_samples && o.reliable == Some(false));
    assert_eq!(
        (o.topic.as_str(), o.domain, o.history_depth),
        ("Circle", 7, Some(0))
    );
    assert_eq!((o.color.as_deref(), o.num_iterations), (Some("RED"), 5));
}

#[test]
fn bad_input_is_an_error_never_a_panic() {
    for bad in [
        &["-S", "-d", "x"][..],
        &["-S", "-d", "-3"],
        &["-S", "-k"],
        &["-S", "-D", "q"],
        &["-S", "--num-iterations", "0"],
        &["-S", "--bogus"],
        &["-S", "-Q"],
        &["-P", "-S"],
        &[],
        &["-S", "-c", "RED", "--cft", "x > 1"],
        &["-S", "--take-read=1"],
        &["-S", "stray"],
        &["-S", "-é"],
        &["-S", "--qos-file", ""],
        &["-S", "-x", "3"],
    ] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
    assert!(matches!(parse(&["-S", "-h"]), Ok(Parsed::Help)));
}

#[test]
fn nothing_the_suite_passes_is_refused_or_called_unsupported() {
    // Option sets of the OMG suite's cases (test_suite.py) and `-R`, which it never passes.
    for args in [
        &[
            "-S",
            "-D",
            "t",
            "-R",
            "--time-filter",
            "100",
            "-s",
            "3",
            "-f",
            "50",
        ][..],
        &["-P", "-D", "t"],
        &["-P", "-D", "p"],
        &["-S", "-x", "2"],
        &[
            "-P",
            "--coherent",
            "--access-scope",
            "g",
            "--coherent-sample-count",
            "3",
        ],
        &["-S", "--ordered", "--access-scope", "t"],
        &["-P", "-f", "100", "--lifespan", "50", "-s", "3"],
    ] {
        let o = run(args);
        assert!(
            o.warnings().iter().all(|w| !w.contains("not supported")),
            "{args:?}"
        );
    }
}

#[test]
fn getopt_habits_hold_under_clap() {
    // A repeated option takes its last value; -r/-b: the last one named wins; `-s -1`.
    let o = run(&["-S", "-d", "3", "-d", "4", "-b", "-r", "-s", "-1", "-vd"]);
    assert_eq!(
        (o.domain, o.reliable, o.ownership_strength, o.debug),
        (4, Some(true), Some(-1), true)
    );
    assert_eq!(run(&["-S", "-r", "-b"]).reliable, Some(false));
    assert!(matches!(parse(&["--help"]), Ok(Parsed::Help)));
    assert!(matches!(parse(&["--version"]), Ok(Parsed::Version(v)) if v.contains("shape_main")));
    let e = parse(&["-S", "--num-topics", "0"]).unwrap_err();
    assert!(e.contains("num-topics") && !e.contains('\n'), "{e}");
}

#[test]
fn usage_lines_keep_the_harness_indentation() {
    let u = usage("shape_main");
    let mut lines = u.lines();
    assert_eq!(lines.next(), Some("shape_main: "));
    for l in lines {
        assert!(l.starts_with("   "), "{l:?}");
    }
    assert!(u.contains("\n   --help, -h      : print this menu\n"));
    assert!(u.contains("\n                                     t: TRANSIENT, p: PERSISTENT]\n"));
}

#[test]
fn long_options_may_be_abbreviated_as_getopt_long_allows() {
    let o = run(&["-P", "--num-it", "5", "--write-p=7", "--coherent"]);
    assert_eq!((o.num_iterations, o.write_period_ms), (5, 7));
    assert!(
        o.coherent && o.coherent_sample_count == 0,
        "exact --coherent wins"
    );
    assert!(parse(&["-P", "--num", "5"]).is_err(), "ambiguous: --num-*");
}
