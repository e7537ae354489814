//! Splitting a real type into common segments and rest, and merge as its exact inverse.
//! Must not: open sockets, read clocks or files.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use super::{common_names, project, sample, vehicle};
use crate::cdr::Endianness;
use crate::core::peer_group::split::{SplitError, common_segments, merge};

#[test]
fn split_then_merge_is_the_identity_in_both_byte_orders() {
    for e in [Endianness::Big, Endianness::Little] {
        for set in 0..5 {
            for n in [0, 1, 77, u32::MAX] {
                let s = sample(e, set, n);
                let (p, rest) = project(&s);
                assert!(rest.len() < s.len());
                assert_eq!(merge(&p.segments, &p.common, &rest).unwrap(), s);
            }
        }
    }
}

#[test]
fn same_common_values_give_the_same_digest_and_other_values_another() {
    let (a, _) = project(&sample(Endianness::Little, 1, 10));
    let (b, _) = project(&sample(Endianness::Little, 1, 11));
    let (c, _) = project(&sample(Endianness::Little, 2, 10));
    assert_eq!(a, b);
    assert_ne!(a.digest, c.digest);
}

#[test]
fn adjacent_common_members_are_one_segment_and_padding_stays_in_the_rest() {
    let (p, rest) = project(&sample(Endianness::Big, 0, 1));
    // fleet (4 + 8) and model follow each other with no padding: one segment. route
    // ("route 0: A-B-C" + NUL = 4 + 15) is followed by one octet of padding before calib's
    // length, so route and calib are two segments. counter, x and speed stay in the rest.
    assert_eq!(p.segments.len(), 3, "{:?}", p.segments);
    assert_eq!(p.segments[0].offset, 8);
    assert_eq!(p.segments[1].length, 19);
    assert_eq!(p.segments[2].offset, p.segments[1].offset + 20);
    // 4 encapsulation + 4 counter + x (8, with its padding) + 1 pad + speed 4 (+ padding).
    assert!(rest.len() < 40, "{}", rest.len());
}

#[test]
fn unsupported_encodings_and_kinds_are_not_split() {
    let mut s = sample(Endianness::Little, 0, 1);
    s[1] = 0x07; // CDR2_LE
    assert_eq!(
        common_segments(&vehicle(), &common_names(), &s),
        Err(SplitError::Unsupported("encoding other than plain XCDR1"))
    );
    let none: Vec<String> = vec!["nothing".into()];
    assert_eq!(
        common_segments(&vehicle(), &none, &sample(Endianness::Little, 0, 1)),
        Err(SplitError::NoCommon)
    );
    // Truncated anywhere: an error, never a panic.
    let s = sample(Endianness::Big, 3, 9);
    for n in 0..s.len() {
        assert!(common_segments(&vehicle(), &common_names(), &s[..n]).is_err());
    }
}

#[test]
fn sensitive_or_unknown_common_members_are_refused_at_configuration() {
    use crate::core::peer_group::split::{CommonConfigError, check_common};
    let d = vehicle();
    assert_eq!(check_common(&d, &common_names(), &[]), Ok(()));
    assert_eq!(
        check_common(&d, &common_names(), &["route".into()]),
        Err(CommonConfigError::Sensitive("route".into()))
    );
    assert_eq!(
        check_common(&d, &["nope".into()], &[]),
        Err(CommonConfigError::UnknownMember("nope".into()))
    );
    assert_eq!(check_common(&d, &[], &[]), Err(CommonConfigError::Empty));
}

#[test]
fn merge_refuses_a_rest_too_short_for_the_layout() {
    let s = sample(Endianness::Big, 2, 5);
    let (p, rest) = project(&s);
    let first = p.segments[0].offset as usize;
    assert!(merge(&p.segments, &p.common, &rest[..first - 1]).is_none());
}
