use super::*;

#[test]
fn reliability_kinds_are_one_and_two_on_the_wire() {
    let mut buf = Vec::new();
    reliability_value(Reliability::reliable()).emit(&mut crate::cdr::CdrWriter::new(
        &mut buf,
        crate::cdr::Endianness::Big,
    ));
    assert_eq!(buf.get(..4), Some(&[0, 0, 0, 2][..]));
    let Value::Reliability {
        kind,
        max_blocking_time,
    } = reliability_value(Reliability::best_effort())
    else {
        panic!("shape")
    };
    assert_eq!(kind.to_wire(), 1);
    assert_eq!(
        reliability_from(kind, max_blocking_time),
        Reliability::best_effort()
    );
}

#[test]
fn kinds_round_trip_and_out_of_range_kinds_are_invalid() {
    for d in [
        Durability::Volatile,
        Durability::TransientLocal,
        Durability::Transient,
        Durability::Persistent,
    ] {
        let Value::QosKind(k) = durability_value(d) else {
            panic!("shape")
        };
        assert_eq!(durability_from(k), Ok(d));
    }
    assert!(durability_from(4).is_err());
    assert!(ownership_from(2).is_err());
    assert!(destination_order_from(2).is_err());
    assert!(liveliness_from(3, Duration::ZERO).is_err());
    assert!(presentation_from(3, false, false).is_err());
    assert_eq!(
        history_from(0, 0),
        Err(DiscoveryError::Invalid("history depth"))
    );
    assert_eq!(history_from(0, 5), Ok(History::KeepLast(5)));
    assert_eq!(history_from(1, -1), Ok(History::KeepAll));
    assert!(resource_limits_from(-2, -1, -1).is_err());
}
