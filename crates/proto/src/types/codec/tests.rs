//! Hand-assembled payloads for the runtime helpers: every EMHEADER length code, both PL_CDR
//! parameter forms, hostile lengths, bounds, wide types and `long double` alignment.

use super::*;

fn reader(b: &[u8], v: XcdrVersion) -> CdrReader<'_> {
    let mut r = CdrReader::new(b, Endianness::Little);
    r.set_xcdr(v);
    r
}

/// Members of a mutable type as (id, u32 value) pairs, read with `read_mutable`.
fn members(b: &[u8], v: XcdrVersion) -> Result<Vec<(u32, Vec<u8>)>, CdrError> {
    let mut out = Vec::new();
    read_mutable(&mut reader(b, v), |id, r| {
        if id == 99 {
            return Ok(false);
        }
        out.push((id, r.take_rest().to_vec()));
        Ok(true)
    })?;
    Ok(out)
}

#[test]
fn every_length_code_delimits_its_member() {
    let mut b = vec![0u8; 4]; // DHEADER, patched below
    let em = |lc: u32, id: u32| ((lc << 28) | id).to_le_bytes();
    b.extend_from_slice(&em(0, 1));
    b.extend_from_slice(&[7, 0, 0, 0]); // 1 byte + padding
    b.extend_from_slice(&em(4, 2));
    b.extend_from_slice(&3u32.to_le_bytes());
    b.extend_from_slice(&[1, 2, 3, 0]);
    b.extend_from_slice(&em(5, 3)); // string "ab": length word 3 is part of the member
    b.extend_from_slice(&3u32.to_le_bytes());
    b.extend_from_slice(&[b'a', b'b', 0, 0]);
    b.extend_from_slice(&em(6, 4)); // sequence<long> of 1
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&9u32.to_le_bytes());
    b.extend_from_slice(&em(7, 5)); // sequence<long long> of 1
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&[8; 8]);
    b.extend_from_slice(&em(2, 99)); // unknown, not must-understand: skipped
    b.extend_from_slice(&[0; 4]);
    let len = u32::try_from(b.len() - 4).unwrap();
    b[..4].copy_from_slice(&len.to_le_bytes());
    let got = members(&b, XcdrVersion::Xcdr2).unwrap();
    let ids: Vec<u32> = got.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [1, 2, 3, 4, 5]);
    assert_eq!(got[0].1, [7]);
    assert_eq!(got[1].1, [1, 2, 3]);
    assert_eq!(got[2].1, [3, 0, 0, 0, b'a', b'b', 0]);
    assert_eq!(got[3].1.len(), 8);
    assert_eq!(got[4].1.len(), 12);
    // The same unknown member with the must-understand flag is an error.
    let at = b.len() - 8;
    b[at + 3] |= 0x80;
    assert_eq!(
        members(&b, XcdrVersion::Xcdr2),
        Err(CdrError::Invalid("unknown must-understand member"))
    );
}

#[test]
fn lengths_beyond_the_input_are_errors_not_panics() {
    // DHEADER larger than the payload.
    let b = [0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0];
    assert!(members(&b, XcdrVersion::Xcdr2).is_err());
    // LC 7 with a huge count.
    let mut b = 12u32.to_le_bytes().to_vec();
    b.extend_from_slice(&((7u32 << 28) | 1).to_le_bytes());
    b.extend_from_slice(&u32::MAX.to_le_bytes());
    b.extend_from_slice(&[0; 4]);
    assert!(members(&b, XcdrVersion::Xcdr2).is_err());
    // XCDR1: a parameter longer than what is left, and a list without PID_LIST_END.
    let b = [0x01, 0x3f, 0x08, 0x00, 1, 0, 0, 0, 0xff, 0, 0, 0];
    assert!(members(&b, XcdrVersion::Xcdr1).is_err());
    let b = [0x05, 0x00, 0x04, 0x00, 1, 2, 3, 4];
    assert!(members(&b, XcdrVersion::Xcdr1).is_err());
}

#[test]
fn xcdr1_parameter_lists_accept_short_and_extended_forms() {
    let mut b = vec![0x05, 0x00, 0x04, 0x00, 1, 2, 3, 4]; // short PID 5
    b.extend_from_slice(&[0x03, 0x3f, 0x04, 0x00, 0, 0, 0, 0]); // PID_IGNORE
    b.extend_from_slice(&[0x01, 0x7f, 0x08, 0x00]); // PID_EXTENDED, must-understand
    b.extend_from_slice(&0x1234u32.to_le_bytes());
    b.extend_from_slice(&2u32.to_le_bytes());
    b.extend_from_slice(&[9, 9, 0, 0]);
    b.extend_from_slice(&[0x02, 0x7f, 0, 0]); // PID_LIST_END
    let got = members(&b, XcdrVersion::Xcdr1).unwrap();
    assert_eq!(got, [(5, vec![1, 2, 3, 4]), (0x1234, vec![9, 9])]);
}

#[test]
fn mutable_writer_and_reader_agree_in_both_versions() {
    for v in [XcdrVersion::Xcdr1, XcdrVersion::Xcdr2] {
        let mut buf = Vec::new();
        let mut w = CdrWriter::new(&mut buf, Endianness::Little);
        w.set_xcdr(v);
        write_mutable(&mut w, |m| {
            m.member(3, false, LengthCode::NextInt, |w| 7u16.xcdr_write(w))?;
            m.member(0x0fff_ffff, true, LengthCode::Size8, |w| 1u64.xcdr_write(w))
        })
        .unwrap();
        let got = members(&buf, v).unwrap();
        assert_eq!(got.len(), 2, "{v:?}");
        assert_eq!(got[1].0, 0x0fff_ffff);
    }
}

#[test]
fn strings_sequences_and_wide_types_honour_bounds() {
    let mut buf = Vec::new();
    let mut w = CdrWriter::new(&mut buf, Endianness::Big);
    assert_eq!(
        write_string(&mut w, "abcd", Some(3), "s"),
        Err(CdrError::TooLarge("s"))
    );
    write_string(&mut w, "abc", Some(3), "s").unwrap();
    assert_eq!(
        read_string(&mut reader(&[], XcdrVersion::Xcdr1), None, "s"),
        Err(CdrError::Truncated("s"))
    );
    let mut r = CdrReader::new(&buf, Endianness::Big);
    assert_eq!(
        read_string(&mut r.clone(), Some(2), "s"),
        Err(CdrError::TooLarge("s"))
    );
    assert_eq!(read_string(&mut r, Some(3), "s").as_deref(), Ok("abc"));

    let mut buf = Vec::new();
    let mut w = CdrWriter::new(&mut buf, Endianness::Little);
    write_wstring(&mut w, "h☃", None, "ws").unwrap();
    assert_eq!(buf, [4, 0, 0, 0, b'h', 0, 0x03, 0x26]);
    assert_eq!(
        read_wstring(&mut reader(&buf, XcdrVersion::Xcdr2), Some(2), "ws").as_deref(),
        Ok("h☃")
    );
    assert!(read_wstring(&mut reader(&buf, XcdrVersion::Xcdr2), Some(1), "ws").is_err());
    buf[0] = 3; // odd byte count
    assert!(read_wstring(&mut reader(&buf, XcdrVersion::Xcdr2), None, "ws").is_err());
    assert!(write_wchar(&mut CdrWriter::new(&mut Vec::new(), Endianness::Big), '😀').is_err());
    assert!(
        'Ω'.xcdr_write(&mut CdrWriter::new(&mut Vec::new(), Endianness::Big))
            .is_err()
    );
    let mut latin1 = Vec::new();
    'é'.xcdr_write(&mut CdrWriter::new(&mut latin1, Endianness::Big))
        .unwrap();
    assert_eq!(latin1, [0xe9]);
    assert!(read_wchar(&mut reader(&[0x00, 0xd8], XcdrVersion::Xcdr2)).is_err());

    let seq = [1u8, 2, 3];
    let mut buf = Vec::new();
    let mut w = CdrWriter::new(&mut buf, Endianness::Little);
    assert!(write_seq(&mut w, &seq, Some(2), false, "q", |w, e| e.xcdr_write(w)).is_err());
    write_seq(&mut w, &seq, Some(3), false, "q", |w, e| e.xcdr_write(w)).unwrap();
    let read = |bound| {
        read_seq(
            &mut reader(&buf, XcdrVersion::Xcdr2),
            bound,
            false,
            1,
            "q",
            u8::xcdr_read,
        )
    };
    assert_eq!(read(Some(3)), Ok(vec![1, 2, 3]));
    assert_eq!(read(Some(2)), Err(CdrError::TooLarge("q")));
}

#[test]
fn long_double_is_sixteen_bytes_in_stream_order_aligned_by_version() {
    let v = LongDouble(0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10);
    for (align, pad) in [(XcdrVersion::Xcdr1, 7), (XcdrVersion::Xcdr2, 3)] {
        let mut buf = Vec::new();
        let mut w = CdrWriter::new(&mut buf, Endianness::Big);
        w.set_xcdr(align);
        w.u8(0);
        v.xcdr_write(&mut w).unwrap();
        assert_eq!(buf.len(), 1 + pad + 16, "{align:?}");
        assert_eq!(buf[1 + pad], 0x01);
        let mut r = CdrReader::new(&buf, Endianness::Big);
        r.set_xcdr(align);
        r.u8("x").unwrap();
        assert_eq!(LongDouble::xcdr_read(&mut r), Ok(v));
    }
}

#[test]
fn payload_header_follows_version_and_extensibility() {
    use crate::cdr::EncapsulationKind as K;
    let cases = [
        (XcdrVersion::Xcdr1, Extensibility::Final, K::Cdr),
        (XcdrVersion::Xcdr1, Extensibility::Appendable, K::Cdr),
        (XcdrVersion::Xcdr1, Extensibility::Mutable, K::PlCdr),
        (XcdrVersion::Xcdr2, Extensibility::Final, K::Cdr2),
        (XcdrVersion::Xcdr2, Extensibility::Appendable, K::DCdr2),
        (XcdrVersion::Xcdr2, Extensibility::Mutable, K::PlCdr2),
    ];
    for (v, e, k) in cases {
        assert_eq!(encapsulation(v, e), k);
    }
    let bytes = serialize(
        &7u8,
        Extensibility::Final,
        XcdrVersion::Xcdr2,
        Endianness::Little,
    );
    assert_eq!(bytes, Ok(vec![0, 7, 0, 3, 7, 0, 0, 0]));
    assert_eq!(deserialize::<u8>(&[0, 7, 0, 3, 7, 0, 0, 0]), Ok(7));
    assert!(
        deserialize::<u8>(&[0, 4, 0, 0, 7]).is_err(),
        "XML is not CDR"
    );
}
