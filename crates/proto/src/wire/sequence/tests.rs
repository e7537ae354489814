use super::*;
use crate::cdr::Endianness;

#[test]
fn unknown_is_minus_one_zero_on_the_wire() {
    let mut v = Vec::new();
    SequenceNumber::UNKNOWN.emit(&mut CdrWriter::new(&mut v, Endianness::Big));
    assert_eq!(v, [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
    assert_eq!(
        SequenceNumber::parse(&mut CdrReader::new(&v, Endianness::Big)),
        Ok(SequenceNumber::UNKNOWN)
    );
}

#[test]
fn high_word_carries_bits_above_32() {
    let b = [1, 0, 0, 0, 2, 0, 0, 0];
    let sn = SequenceNumber::parse(&mut CdrReader::new(&b, Endianness::Little));
    assert_eq!(sn, Ok(SequenceNumber((1 << 32) | 2)));
}
