use super::*;

#[test]
fn default_max_blocking_time_is_100_ms() {
    let std = Reliability::DEFAULT_MAX_BLOCKING_TIME.to_std().unwrap();
    assert_eq!(std, core::time::Duration::from_millis(100));
}

#[test]
fn both_infinite_encodings_compare_equal_and_above_finite() {
    let alt = Duration {
        seconds: 0x7fff_ffff,
        fraction: 0x7fff_ffff,
    };
    assert_eq!(cmp_duration(alt, Duration::INFINITE), Ordering::Equal);
    let big = Duration {
        seconds: 0x7fff_fffe,
        fraction: 0xffff_ffff,
    };
    assert_eq!(cmp_duration(big, alt), Ordering::Less);
    assert_eq!(cmp_duration(Duration::ZERO, big), Ordering::Less);
}

#[test]
fn length_round_trips_the_idl_long_form() {
    assert_eq!(Length::from_i32(-1), Some(Length::Unlimited));
    assert_eq!(Length::from_i32(-2), None);
    assert_eq!(Length::from_i32(5), Some(Length::Limited(5)));
    assert_eq!(Length::Unlimited.as_i32(), -1);
    assert_eq!(Length::Limited(7).as_i32(), 7);
    assert!(Length::Unlimited.allows(u32::MAX));
    assert!(!Length::Limited(3).allows(4));
}

#[test]
fn kinds_are_ordered_as_rxo_requires() {
    assert!(ReliabilityKind::BestEffort < ReliabilityKind::Reliable);
    assert!(Durability::Volatile < Durability::TransientLocal);
    assert!(Durability::Transient < Durability::Persistent);
    assert!(LivelinessKind::Automatic < LivelinessKind::ManualByParticipant);
    assert!(LivelinessKind::ManualByParticipant < LivelinessKind::ManualByTopic);
    assert!(DestinationOrder::ByReceptionTimestamp < DestinationOrder::BySourceTimestamp);
    assert!(PresentationAccessScope::Instance < PresentationAccessScope::Topic);
    assert!(PresentationAccessScope::Topic < PresentationAccessScope::Group);
}

#[test]
fn empty_data_representation_means_xcdr() {
    let empty = DataRepresentation::default();
    assert_eq!(empty.offered_id(), DataRepresentation::XCDR);
    assert!(empty.accepts(DataRepresentation::XCDR));
    assert!(!empty.accepts(DataRepresentation::XCDR2));
    let x2 = DataRepresentation::new([DataRepresentation::XCDR2, DataRepresentation::XCDR]);
    assert_eq!(x2.offered_id(), DataRepresentation::XCDR2);
    assert!(x2.accepts(DataRepresentation::XCDR));
}
