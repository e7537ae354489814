//! The option → QoS mapping: harness defaults, profile as base, explicit options override it.

use super::*;
use crate::options::{Parsed, parse};
use siftdds::qos::{Reliability, UserData};

const SHAPES: &str = concat!(
    concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
    "/tests/data/qos/shapes.xml"
);
const BROKEN: &str = concat!(
    concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
    "/tests/data/qos/broken.xml"
);

fn opts(args: &[&str]) -> Options {
    match parse(args) {
        Ok(Parsed::Run(o)) => *o,
        other => panic!("{args:?}: {other:?}"),
    }
}

fn secs(s: u64) -> siftdds::time::Duration {
    siftdds::time::Duration::from_std(std::time::Duration::from_secs(s))
}

fn xcdr2() -> DataRepresentation {
    DataRepresentation::new([DataRepresentation::XCDR2])
}

#[test]
fn without_a_profile_the_harness_defaults_apply() {
    let base = QosBase::harness();
    let o = opts(&["-S"]);
    let r = base.reader(&o, "Square").unwrap();
    assert_eq!(r.reliability.kind, ReliabilityKind::Reliable);
    assert_eq!(r.data_representation, DataRepresentation::default());
    let o = opts(&["-P"]);
    let w = base.writer(&o, "Square").unwrap();
    assert_eq!(w, DataWriterQos::default());
    let o = opts(&["-P", "-b", "-x", "2", "-k", "3", "-s", "4", "-f", "100"]);
    let w = base.writer(&o, "Square").unwrap();
    assert_eq!(w.reliability.kind, ReliabilityKind::BestEffort);
    assert_eq!(w.data_representation, xcdr2());
    assert_eq!(w.history, History::KeepLast(3));
    assert_eq!(
        (w.ownership, w.ownership_strength.value),
        (Ownership::Exclusive, 4)
    );
    assert_eq!(
        w.deadline.period,
        siftdds::time::Duration::from_std(std::time::Duration::from_millis(100))
    );
    let o = opts(&["-S", "-x", "2", "-s", "0", "--time-filter", "1000"]);
    let r = base.reader(&o, "Square").unwrap();
    assert_eq!(r.data_representation, xcdr2());
    assert_eq!(r.ownership, Ownership::Exclusive);
    assert_eq!(r.time_based_filter.minimum_separation, secs(1));
}

#[test]
fn the_profile_decides_every_qos_the_command_line_does_not_name() {
    let o = opts(&["-P", "--qos-file", SHAPES, "--qos-profile", "Shapes::Tuned"]);
    let base = QosBase::load(&o).unwrap();
    let w = base.writer(&o, "Square").unwrap();
    // Reliability included: neither -r nor -b.
    assert_eq!(
        w.reliability,
        Reliability {
            kind: ReliabilityKind::BestEffort,
            max_blocking_time: secs(7)
        }
    );
    assert_eq!(w.durability, Durability::TransientLocal);
    assert_eq!(w.history, History::KeepLast(5));
    assert_eq!(w.deadline.period, secs(2));
    assert_eq!(w.lifespan.duration, secs(3));
    assert_eq!(
        (w.ownership, w.ownership_strength.value),
        (Ownership::Exclusive, 9)
    );
    assert_eq!(
        w.data_representation,
        xcdr2(),
        "inherited from Shapes::Xcdr2"
    );
    assert_eq!(
        base.publisher(&o).unwrap().partition,
        Partition::new(["P1"])
    );
    assert_eq!(
        base.participant().unwrap().user_data,
        UserData {
            value: vec![1, 2, 3]
        }
    );
    let o = opts(&["-S", "--qos-file", SHAPES, "--qos-profile", "Shapes::Tuned"]);
    let r = base.reader(&o, "Square").unwrap();
    assert_eq!(r.reliability.kind, ReliabilityKind::BestEffort);
    assert_eq!(r.time_based_filter.minimum_separation, secs(1));
    assert_eq!(
        (r.ownership, r.data_representation.clone()),
        (Ownership::Exclusive, xcdr2())
    );
    assert_eq!(
        base.subscriber(&o).unwrap().partition,
        Partition::new(["P1"])
    );
}

#[test]
fn options_named_on_the_command_line_override_the_profile() {
    let args = [
        "-P",
        "--qos-file",
        SHAPES,
        "--qos-profile",
        "Shapes::Tuned",
        "-r",
        "-D",
        "v",
        "-k",
        "0",
        "-f",
        "0",
        "-s",
        "-1",
        "-x",
        "1",
        "-p",
        "Q",
        "--lifespan",
        "0",
    ];
    let o = opts(&args);
    let base = QosBase::load(&o).unwrap();
    let w = base.writer(&o, "Square").unwrap();
    // -r changes the kind only: the profile's max_blocking_time stays.
    assert_eq!(
        w.reliability,
        Reliability {
            kind: ReliabilityKind::Reliable,
            max_blocking_time: secs(7)
        }
    );
    assert_eq!(w.durability, Durability::Volatile);
    assert_eq!(w.history, History::KeepAll);
    assert_eq!(w.deadline, Deadline::default(), "-f 0: no deadline");
    assert_eq!(w.lifespan, Lifespan::default(), "--lifespan 0: infinite");
    assert_eq!(
        (w.ownership, w.ownership_strength),
        (Ownership::Shared, OwnershipStrength::default())
    );
    assert_eq!(
        w.data_representation,
        DataRepresentation::default(),
        "-x 1: XCDR, unannounced"
    );
    assert_eq!(base.publisher(&o).unwrap().partition, Partition::new(["Q"]));
    let o = opts(&[
        "-S",
        "--qos-file",
        SHAPES,
        "--qos-profile",
        "Shapes::Tuned",
        "-r",
        "-s",
        "-1",
        "--time-filter",
        "0",
    ]);
    let r = base.reader(&o, "Square").unwrap();
    assert_eq!(r.reliability.kind, ReliabilityKind::Reliable);
    assert_eq!(r.ownership, Ownership::Shared);
    assert_eq!(r.time_based_filter, TimeBasedFilter::default());
}

#[test]
fn files_without_a_named_or_default_profile_keep_the_harness_defaults() {
    let o = opts(&["-S", "--qos-file", SHAPES]);
    let r = QosBase::load(&o).unwrap().reader(&o, "Square").unwrap();
    assert_eq!(r.reliability.kind, ReliabilityKind::Reliable);
    assert_eq!(r.data_representation, DataRepresentation::default());
}

#[test]
fn unusable_files_and_profiles_are_errors_with_their_place() {
    let o = opts(&["-S", "--qos-file", BROKEN]);
    let e = QosBase::load(&o).err().unwrap();
    assert!(e.starts_with(&format!("{BROKEN}:7:")), "{e}");
    assert!(e.contains("SOMETIMES_RELIABILITY_QOS"), "{e}");
    let o = opts(&["-S", "--qos-file", SHAPES, "--qos-profile", "Shapes::Nope"]);
    let e = QosBase::load(&o).err().unwrap();
    assert!(e.contains("unknown QoS profile `Shapes::Nope`"), "{e}");
    let missing = format!("{SHAPES}.missing");
    let o = opts(&["-S", "--qos-file", &missing]);
    let e = QosBase::load(&o).err().unwrap();
    assert!(e.starts_with(&format!("{missing}: cannot open")), "{e}");
}

#[test]
fn a_profile_named_without_any_qos_file_is_an_error_that_says_where_files_come_from() {
    // The tests run in the crate root, which has no USER_QOS_PROFILES.xml.
    let o = opts(&["-S", "--qos-profile", "Shapes::Tuned"]);
    let e = QosBase::load(&o).err().unwrap();
    assert!(e.contains("USER_QOS_PROFILES.xml"), "{e}");
}
