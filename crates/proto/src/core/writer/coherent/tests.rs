use super::*;

#[test]
fn a_set_is_tagged_with_its_first_sn_and_ends_with_unknown() {
    let mut c = CoherentWrites::default();
    assert_eq!(c.tag(SequenceNumber(1)), None);
    c.begin();
    assert_eq!(c.tag(SequenceNumber(2)), Some(SequenceNumber(2)));
    assert_eq!(c.tag(SequenceNumber(3)), Some(SequenceNumber(2)));
    assert_eq!(c.end(), Ok(true));
    assert_eq!(c.tag(SequenceNumber(4)), Some(SequenceNumber::UNKNOWN));
    assert_eq!(c.tag(SequenceNumber(5)), None);
}

#[test]
fn nested_pairs_form_one_set_and_an_empty_set_has_no_marker() {
    let mut c = CoherentWrites::default();
    c.begin();
    c.begin();
    assert_eq!(c.tag(SequenceNumber(7)), Some(SequenceNumber(7)));
    assert_eq!(c.end(), Ok(false));
    assert_eq!(c.tag(SequenceNumber(8)), Some(SequenceNumber(7)));
    assert_eq!(c.end(), Ok(true));
    let mut empty = CoherentWrites::default();
    empty.begin();
    assert_eq!(empty.end(), Ok(false));
    assert_eq!(empty, CoherentWrites::Idle);
    assert_eq!(empty.end(), Err(WriteError::NotInCoherentSet));
}
