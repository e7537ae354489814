//! The key holder bounds and length codes, against the values the IDL generator computes.

use super::*;

#[test]
fn primitives_align_to_at_most_four_in_xcdr2() {
    assert_eq!(KeyEnd::primitive(4).at(0), Some(4));
    assert_eq!(KeyEnd::primitive(8).at(1), Some(12));
    assert_eq!(KeyEnd::primitive(2).at(3), Some(6));
    assert_eq!(KeyEnd::primitive(1).at(3), Some(4));
    assert_eq!(KeyEnd::primitive(16).at(1), None);
}

#[test]
fn strings_and_sequences_follow_the_generator() {
    // string<4>: length (4), at most 4 bytes and the NUL.
    assert_eq!(KeyEnd::string(Some(4)).at(0), Some(9));
    assert_eq!(KeyEnd::string(Some(4)).at(1), Some(13));
    assert_eq!(KeyEnd::string(Some(12)).at(0), None);
    assert_eq!(KeyEnd::string(None).at(0), None);
    // sequence<short, 2>: count, then per element its end plus 3.
    assert_eq!(KeyEnd::primitive(2).sequence(true, Some(2)).at(0), Some(15));
    assert_eq!(KeyEnd::primitive(2).sequence(true, Some(3)).at(0), None);
    // Non-primitive elements add a DHEADER.
    assert_eq!(KeyEnd::primitive(4).sequence(false, Some(0)).at(0), Some(8));
    assert_eq!(KeyEnd::primitive(4).sequence(true, None).at(0), None);
}

#[test]
fn composition_optionals_and_arrays() {
    // short, then double: 2, padded to 4, + 8 (XCDR2).
    assert_eq!(
        KeyEnd::primitive(2).then(KeyEnd::primitive(8)).at(0),
        Some(12)
    );
    assert_eq!(KeyEnd::EMPTY.then(KeyEnd::primitive(4)).at(2), Some(8));
    // An optional adds its presence byte.
    assert_eq!(KeyEnd::primitive(1).optional().at(0), Some(2));
    assert_eq!(KeyEnd::primitive(4).array(true, 3).at(0), Some(12));
    assert_eq!(KeyEnd::primitive(4).array(false, 2).at(0), Some(12));
    // Long arrays stop counting past 16 bytes; elements of no size end where they start.
    assert_eq!(KeyEnd::primitive(1).array(true, 1_000_000).at(0), None);
    assert_eq!(KeyEnd::EMPTY.array(true, 1_000_000).at(3), Some(3));
    assert_eq!(KeyEnd::UNBOUNDED.then(KeyEnd::EMPTY).at(0), None);
}

#[test]
fn ends_past_sixteen_count_as_unbounded() {
    assert_eq!(
        KeyEnd::from_ends([Some(16), Some(17), None, Some(3)]),
        KeyEnd::from_ends([Some(16), None, None, Some(3)])
    );
    assert_eq!(
        KeyEnd::primitive(8).then(KeyEnd::primitive(8)).at(0),
        Some(16)
    );
    assert_eq!(KeyEnd::primitive(8).then(KeyEnd::primitive(8)).at(1), None);
}

#[test]
fn length_codes_follow_the_generator() {
    assert_eq!(sequence_length_code(0), LengthCode::DualUse1);
    assert_eq!(sequence_length_code(1), LengthCode::DualUse1);
    assert_eq!(sequence_length_code(2), LengthCode::NextInt);
    assert_eq!(sequence_length_code(4), LengthCode::DualUse4);
    assert_eq!(sequence_length_code(8), LengthCode::DualUse8);
    assert_eq!(array_length_code(0), LengthCode::DualUse1);
    assert_eq!(array_length_code(4), LengthCode::NextInt);
    assert_eq!(primitive_length_code(2), LengthCode::Size2);
    assert_eq!(primitive_length_code(16), LengthCode::NextInt);
}
