use super::*;

#[test]
fn reads_both_byte_orders() {
    let b = [0x12, 0x34, 0x56, 0x78];
    assert_eq!(
        CdrReader::new(&b, Endianness::Big).u32("x"),
        Ok(0x1234_5678)
    );
    assert_eq!(
        CdrReader::new(&b, Endianness::Little).u32("x"),
        Ok(0x7856_3412)
    );
}

#[test]
fn truncated_read_is_an_error_and_consumes_nothing() {
    let b = [1, 2, 3];
    let mut r = CdrReader::new(&b, Endianness::Big);
    assert_eq!(r.u32("word"), Err(CdrError::Truncated("word")));
    assert_eq!(r.position(), 0);
}

#[test]
fn string_round_trips_with_alignment() {
    let mut v = Vec::new();
    let mut w = CdrWriter::new(&mut v, Endianness::Little);
    w.u8(7);
    w.string(b"Square");
    assert_eq!(
        v,
        [
            7, 0, 0, 0, 7, 0, 0, 0, b'S', b'q', b'u', b'a', b'r', b'e', 0
        ]
    );
    let mut r = CdrReader::new(&v, Endianness::Little);
    assert_eq!(r.u8("pad"), Ok(7));
    assert_eq!(r.string(64, "s"), Ok(&b"Square"[..]));
}

#[test]
fn string_without_nul_is_invalid() {
    let b = [2, 0, 0, 0, b'a', b'b'];
    assert_eq!(
        CdrReader::new(&b, Endianness::Little).string(64, "s"),
        Err(CdrError::Invalid("s"))
    );
}

#[test]
fn huge_sequence_length_is_refused_before_allocation() {
    let b = [0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0];
    assert!(
        CdrReader::new(&b, Endianness::Little)
            .seq_len(4, "seq")
            .is_err()
    );
}
