use super::*;
use crate::cdr::Endianness;

fn sn(n: i64) -> SequenceNumber {
    SequenceNumber(n)
}

#[test]
fn sn_set_golden_bytes_big_endian() {
    // base 5, numBits 33 -> two words; members 5 and 37 (offset 32 = MSB of word 1).
    let set = SequenceNumberSet::from_members(sn(5), [sn(5), sn(37)]).unwrap();
    assert_eq!(set.num_bits(), 33);
    let mut v = Vec::new();
    set.emit(&mut CdrWriter::new(&mut v, Endianness::Big));
    let golden = [
        0, 0, 0, 0, 0, 0, 0, 5, // base {high 0, low 5}
        0, 0, 0, 33, // numBits
        0x80, 0, 0, 0, 0x80, 0, 0, 0, // bitmap
    ];
    assert_eq!(v, golden);
    assert_eq!(set.buffer_len(), golden.len());
    let back = SequenceNumberSet::parse(&mut CdrReader::new(&golden, Endianness::Big)).unwrap();
    assert_eq!(back, set);
    assert_eq!(back.iter().collect::<Vec<_>>(), [sn(5), sn(37)]);
}

#[test]
fn sn_set_golden_bytes_little_endian() {
    let golden = [0, 0, 0, 0, 5, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0x60];
    let set = SequenceNumberSet::parse(&mut CdrReader::new(&golden, Endianness::Little)).unwrap();
    assert_eq!(set.iter().collect::<Vec<_>>(), [sn(6), sn(7)]);
    let mut v = Vec::new();
    set.emit(&mut CdrWriter::new(&mut v, Endianness::Little));
    assert_eq!(v, golden);
}

#[test]
fn sn_set_with_257_bits_is_malformed() {
    let mut b = vec![0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1];
    b.extend_from_slice(&[0; 36]);
    assert!(SequenceNumberSet::parse(&mut CdrReader::new(&b, Endianness::Big)).is_err());
}

#[test]
fn sn_set_with_256_bits_reads_eight_words() {
    let mut b = vec![0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0];
    b.extend_from_slice(&[0xff; 32]);
    let set = SequenceNumberSet::parse(&mut CdrReader::new(&b, Endianness::Big)).unwrap();
    assert_eq!(set.iter().count(), 256);
    assert_eq!(set.buffer_len(), b.len());
}

#[test]
fn bits_past_num_bits_are_not_members_but_round_trip() {
    let golden = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff];
    let set = SequenceNumberSet::parse(&mut CdrReader::new(&golden, Endianness::Big)).unwrap();
    assert_eq!(set.iter().collect::<Vec<_>>(), [sn(1)]);
    let mut v = Vec::new();
    set.emit(&mut CdrWriter::new(&mut v, Endianness::Big));
    assert_eq!(v, golden);
}

#[test]
fn members_outside_the_256_window_are_refused() {
    assert!(SequenceNumberSet::from_members(sn(10), [sn(9)]).is_err());
    assert!(SequenceNumberSet::from_members(sn(10), [sn(266)]).is_err());
    assert!(SequenceNumberSet::from_members(sn(10), [sn(265)]).is_ok());
}

#[test]
fn insert_outside_num_bits_is_refused() {
    let mut set = SequenceNumberSet::new(sn(1), 4).unwrap();
    assert!(set.insert(sn(4)));
    assert!(!set.insert(sn(5)));
    assert!(!set.insert(sn(0)));
    assert!(set.contains(sn(4)));
}

#[test]
fn fragment_set_round_trips() {
    let set =
        FragmentNumberSet::from_members(FragmentNumber(3), [FragmentNumber(4), FragmentNumber(3)])
            .unwrap();
    let mut v = Vec::new();
    set.emit(&mut CdrWriter::new(&mut v, Endianness::Little));
    assert_eq!(v, [3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0xc0]);
    let back = FragmentNumberSet::parse(&mut CdrReader::new(&v, Endianness::Little)).unwrap();
    assert_eq!(
        back.iter().collect::<Vec<_>>(),
        [FragmentNumber(3), FragmentNumber(4)]
    );
}

#[test]
fn fragment_set_golden_bytes_big_endian_and_truncation() {
    // base 7, numBits 2, members 7 and 8: a 4-byte base, unlike a SequenceNumberSet.
    let golden = [0, 0, 0, 7, 0, 0, 0, 2, 0xc0, 0, 0, 0];
    let set = FragmentNumberSet::from_members(FragmentNumber(7), [FragmentNumber(8)])
        .map(|mut s| {
            assert!(s.insert(FragmentNumber(7)));
            s
        })
        .unwrap();
    let mut v = Vec::new();
    set.emit(&mut CdrWriter::new(&mut v, Endianness::Big));
    assert_eq!(v, golden);
    assert_eq!(set.buffer_len(), golden.len());
    assert!(set.contains(FragmentNumber(8)));
    assert!(!set.contains(FragmentNumber(6)));
    assert!(FragmentNumberSet::from_members(FragmentNumber(7), [FragmentNumber(6)]).is_err());
    for cut in 0..golden.len() {
        let r = FragmentNumberSet::parse(&mut CdrReader::new(&golden[..cut], Endianness::Big));
        assert!(r.is_err(), "cut {cut}");
    }
}

#[test]
fn truncated_set_is_an_error_at_every_offset() {
    let golden = [
        0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 33, 0x80, 0, 0, 0, 0x80, 0, 0, 0,
    ];
    for cut in 0..golden.len() {
        let r = SequenceNumberSet::parse(&mut CdrReader::new(&golden[..cut], Endianness::Big));
        assert!(r.is_err(), "cut {cut}");
    }
}
