#![allow(clippy::unwrap_used, clippy::arithmetic_side_effects)]
use super::*;

#[test]
fn projections_round_trip_and_refuse_ragged_empty_or_long_values() {
    let a = ProjectionAnnouncement {
        group: 0x0102_0304,
        digests: vec![0xdead_beef, u64::MAX],
    };
    let o = a.to_octets();
    assert_eq!(o.len(), 4 + 16);
    assert_eq!(&o[..4], &[1, 2, 3, 4]);
    assert_eq!(ProjectionAnnouncement::from_octets(&o), Some(a));
    assert_eq!(ProjectionAnnouncement::from_octets(&o[..4]), None);
    assert_eq!(ProjectionAnnouncement::from_octets(&o[..19]), None);
    assert_eq!(ProjectionAnnouncement::from_octets(&[]), None);
    let long = vec![0u8; 4 + 8 * (MAX_ANNOUNCED_PROJECTIONS + 1)];
    assert_eq!(ProjectionAnnouncement::from_octets(&long), None);
    let many = ProjectionAnnouncement {
        group: 1,
        digests: (0..10).collect(),
    };
    let back = ProjectionAnnouncement::from_octets(&many.to_octets()).unwrap();
    assert_eq!(back.digests, (0..4).collect::<Vec<u64>>());
}

#[test]
fn eviction_notices_round_trip_and_refuse_ragged_empty_or_long_values() {
    let n = [
        EvictionNotice {
            group: 7,
            digest: 9,
        },
        EvictionNotice {
            group: u32::MAX,
            digest: 0x0102_0304_0506_0708,
        },
    ];
    let o = EvictionNotice::list_to_octets(&n);
    assert_eq!(o.len(), 24);
    assert_eq!(&o[12..], &[0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(EvictionNotice::list_from_octets(&o).unwrap(), n);
    assert_eq!(EvictionNotice::list_from_octets(&o[..23]), None);
    assert_eq!(EvictionNotice::list_from_octets(&[]), None);
    let long = vec![0u8; EvictionNotice::LEN * (MAX_EVICTION_NOTICES + 1)];
    assert_eq!(EvictionNotice::list_from_octets(&long), None);
}

mod props {
    use super::super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any bytes: no panic, and whatever decodes encodes back to the same bytes.
        #[test]
        fn hostile_values_never_panic_and_decode_canonically(
            o in proptest::collection::vec(any::<u8>(), 0..300),
        ) {
            if let Some(a) = ProjectionAnnouncement::from_octets(&o) {
                prop_assert!(a.digests.len() <= MAX_ANNOUNCED_PROJECTIONS);
                prop_assert_eq!(a.to_octets(), o.clone());
            }
            if let Some(n) = EvictionNotice::list_from_octets(&o) {
                prop_assert!(n.len() <= MAX_EVICTION_NOTICES);
                prop_assert_eq!(EvictionNotice::list_to_octets(&n), o);
            }
        }
    }
}
