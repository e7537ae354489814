//! PID_CONTENT_FILTER_PROPERTY / _INFO golden layouts and the MD5 signature vectors of
//! docs/interop-facts.md §1.2, §2.1-§2.2 (RTPS 2.5 §9.6.4.1). Must not: open sockets or read files.

// Test arithmetic works on small, known inputs; docs/conventions.md §4 targets parse paths.
#![allow(clippy::arithmetic_side_effects)]

use super::*;
use crate::cdr::Endianness;

fn hex(s: &str) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

const FACTS_1_2_LE: [u8; 56] = [
    0x04, 0, 0, 0, b'c', b'f', b't', 0, //
    0x07, 0, 0, 0, b'S', b'q', b'u', b'a', b'r', b'e', 0, 0, //
    0x07, 0, 0, 0, b'D', b'D', b'S', b'S', b'Q', b'L', 0, 0, //
    0x07, 0, 0, 0, b'x', b' ', b'>', b' ', b'%', b'0', 0, 0, //
    0x01, 0, 0, 0, //
    0x03, 0, 0, 0, b'1', b'0', 0, 0,
];

fn facts_property() -> ContentFilterProperty<'static> {
    ContentFilterProperty {
        content_filtered_topic_name: "cft",
        related_topic_name: "Square",
        filter_class_name: "DDSSQL",
        filter_expression: "x > %0",
        expression_parameters: vec!["10"],
    }
}

fn be_of_le(le: &[u8]) -> Vec<u8> {
    // Swap every u32 length word of the docs/interop-facts.md §1.2 example; string bytes stay.
    let mut v = le.to_vec();
    for at in [0usize, 8, 20, 32, 44, 48] {
        v[at..at + 4].reverse();
    }
    v
}

#[test]
fn property_matches_facts_1_2_golden_bytes_in_both_byte_orders() {
    use crate::wire::plist::{Parameter, Value, pid::PID_CONTENT_FILTER_PROPERTY};
    let p = facts_property();
    for (endian, header, golden) in [
        (
            Endianness::Little,
            [0x35, 0x00, 0x38, 0x00],
            FACTS_1_2_LE.to_vec(),
        ),
        (
            Endianness::Big,
            [0x00, 0x35, 0x00, 0x38],
            be_of_le(&FACTS_1_2_LE),
        ),
    ] {
        // As a whole parameter: header `pid=0x0035, length=56` and the padded value.
        let param = Parameter::Known {
            pid: PID_CONTENT_FILTER_PROPERTY,
            value: Value::ContentFilterProperty(p.clone()),
        };
        let mut v = Vec::new();
        param.emit(&mut CdrWriter::new(&mut v, endian));
        assert_eq!(v[..4], header);
        assert_eq!(v[4..], golden[..]);
        assert_eq!(p.buffer_len(), golden.len() - 1); // the last pad octet is the list's
        assert_eq!(
            ContentFilterProperty::parse(&mut CdrReader::new(&golden, endian)),
            Ok(p.clone())
        );
    }
}

#[test]
fn property_truncated_at_every_offset_is_an_error() {
    for cut in 0..FACTS_1_2_LE.len() - 1 {
        let r = ContentFilterProperty::parse(&mut CdrReader::new(
            &FACTS_1_2_LE[..cut],
            Endianness::Little,
        ));
        assert!(r.is_err(), "cut at {cut}");
    }
}

#[test]
fn property_with_empty_class_name_or_too_many_parameters_is_invalid() {
    let mut p = facts_property();
    p.filter_class_name = "";
    assert!(p.validate().is_err());
    let mut v = Vec::new();
    p.emit(&mut CdrWriter::new(&mut v, Endianness::Little));
    assert!(ContentFilterProperty::parse(&mut CdrReader::new(&v, Endianness::Little)).is_err());

    let mut p = facts_property();
    p.expression_parameters = vec!["1"; MAX_FILTER_PARAMETERS + 1];
    assert!(p.validate().is_err());
    let mut v = Vec::new();
    p.emit(&mut CdrWriter::new(&mut v, Endianness::Little));
    assert_eq!(
        ContentFilterProperty::parse(&mut CdrReader::new(&v, Endianness::Little)),
        Err(WireError::TooLarge("expressionParameters"))
    );

    let long = "n".repeat(MAX_FILTER_NAME + 1);
    let mut p = facts_property();
    p.content_filtered_topic_name = &long;
    let mut v = Vec::new();
    p.emit(&mut CdrWriter::new(&mut v, Endianness::Little));
    assert!(ContentFilterProperty::parse(&mut CdrReader::new(&v, Endianness::Little)).is_err());
}

#[test]
fn signatures_match_the_facts_2_2_md5_vectors() {
    let params = ["5", "9"];
    let args = (
        "HelloWorldFilteredTopic1",
        "HelloWorldTopic",
        "DDSSQL",
        "index between %0 and %1",
    );
    assert_eq!(
        filter_signature(args.0, args.1, args.2, args.3, &params),
        hex("157ca25223c6ba52e7b703a8c4c14f16")
    );
    assert_eq!(
        filter_signature_rti61(args.0, args.1, args.2, args.3, &params),
        hex("7c1e4e982910c30b020ece6a6591eb6e")
    );
    assert_eq!(
        filter_signature("cft", "Square", "DDSSQL", "x > 10", &[]),
        hex("a6db7b3ae039ffdfa355f400fec470c4")
    );
    assert_eq!(
        filter_signature_rti61("cft", "Square", "DDSSQL", "x > 10", &[]),
        hex("76dc50087ddc8ac2ec8eb32be65600ce")
    );
}

fn facts_2_1_info() -> ContentFilterInfo {
    let mut info = ContentFilterInfo::new();
    info.push([0x11; 16], true);
    info.push([0x22; 16], false);
    info
}

#[test]
fn info_matches_facts_2_1_golden_bytes_in_both_byte_orders() {
    let info = facts_2_1_info();
    assert_eq!(info.bitmaps(), &[0x8000_0000]);
    let mut le = vec![1, 0, 0, 0, 0, 0, 0, 0x80, 2, 0, 0, 0];
    le.extend_from_slice(&[0x11; 16]);
    le.extend_from_slice(&[0x22; 16]);
    let mut be = vec![0, 0, 0, 1, 0x80, 0, 0, 0, 0, 0, 0, 2];
    be.extend_from_slice(&[0x11; 16]);
    be.extend_from_slice(&[0x22; 16]);
    for (endian, golden) in [(Endianness::Little, le), (Endianness::Big, be)] {
        let mut v = Vec::new();
        info.emit(&mut CdrWriter::new(&mut v, endian));
        assert_eq!(v, golden);
        assert_eq!(info.buffer_len(), 44);
        let back = ContentFilterInfo::parse(&mut CdrReader::new(&golden, endian)).unwrap();
        assert_eq!(back, info);
        assert_eq!(back.result_for(&[0x11; 16]), Some(true));
        assert_eq!(back.result_for(&[0x22; 16]), Some(false));
        for cut in 0..golden.len() {
            assert!(ContentFilterInfo::parse(&mut CdrReader::new(&golden[..cut], endian)).is_err());
        }
    }
}

#[test]
fn info_bit_33_is_msb_minus_one_of_the_second_word_and_there_is_no_32_cap() {
    let mut info = ContentFilterInfo::new();
    for i in 0..40u8 {
        info.push([i; 16], i == 33);
    }
    assert_eq!(info.bitmaps(), &[0, 0x4000_0000]);
    assert_eq!(info.passed(33), Some(true));
    assert_eq!(info.passed(32), Some(false));
    assert_eq!(info.passed(40), None);
    assert!(info.set(0, true));
    assert_eq!(info.bitmaps(), &[0x8000_0000, 0x4000_0000]);
    assert!(!info.set(40, true));
}

#[test]
fn info_with_wrong_bitmap_count_is_invalid() {
    // numBitmaps 2 for 1 signature.
    let mut b = vec![2, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 1, 0, 0, 0];
    b.extend_from_slice(&[0x11; 16]);
    assert!(ContentFilterInfo::parse(&mut CdrReader::new(&b, Endianness::Little)).is_err());
}

fn encoded(info: &ContentFilterInfo, endian: Endianness) -> Vec<u8> {
    let mut out = Vec::new();
    info.emit(&mut CdrWriter::new(&mut out, endian));
    out
}

fn bit_for(value: &[u8], endian: Endianness, signature: &[u8; 16]) -> Option<bool> {
    ContentFilterInfoView::new_checked(value, endian)
        .ok()?
        .bit_for(signature)
}

// Moved from core/reader/content_filter.rs (the reader's hand-written scan is now the view).
#[test]
fn own_signature_bit_is_found_in_both_byte_orders_beyond_32_filters() {
    let mut info = ContentFilterInfo::new();
    for i in 0..40u8 {
        info.push([i; 16], i % 3 == 0);
    }
    for endian in [Endianness::Little, Endianness::Big] {
        let v = encoded(&info, endian);
        for i in 0..40u8 {
            assert_eq!(bit_for(&v, endian, &[i; 16]), Some(i % 3 == 0), "{i}");
        }
        assert_eq!(bit_for(&v, endian, &[200; 16]), None);
    }
}

// Moved from core/reader/content_filter.rs.
#[test]
fn malformed_or_truncated_info_gives_no_result() {
    let mut info = ContentFilterInfo::new();
    info.push([7; 16], true);
    let v = encoded(&info, Endianness::Little);
    for cut in 0..v.len() {
        assert_eq!(
            bit_for(&v[..cut], Endianness::Little, &[7; 16]),
            None,
            "{cut}"
        );
    }
    let mut bad = v.clone();
    bad[0] = 2; // numBitmaps 2 for one signature
    assert_eq!(bit_for(&bad, Endianness::Little, &[7; 16]), None);
}

#[test]
fn view_matches_facts_2_1_golden_bytes_in_both_byte_orders_and_ignores_padding() {
    let info = facts_2_1_info();
    for endian in [Endianness::Little, Endianness::Big] {
        let mut golden = encoded(&info, endian);
        golden.extend_from_slice(&[0, 0, 0, 0]); // trailing parameter padding
        let view = ContentFilterInfoView::new_checked(&golden, endian).unwrap();
        assert_eq!(view.len(), 2);
        assert!(!view.is_empty());
        assert_eq!(view.bitmaps().collect::<Vec<_>>(), vec![0x8000_0000]);
        assert_eq!(
            view.signatures().collect::<Vec<_>>(),
            vec![[0x11; 16], [0x22; 16]]
        );
        assert_eq!(view.passed(0), Some(true));
        assert_eq!(view.passed(1), Some(false));
        assert_eq!(view.passed(2), None);
        assert_eq!(view.bit_for(&[0x11; 16]), Some(true));
        assert_eq!(view.bit_for(&[0x22; 16]), Some(false));
        assert_eq!(view.bit_for(&[0x33; 16]), None);
        assert_eq!(ContentFilterInfo::from_view(&view), info);
    }
}

#[test]
fn view_truncated_at_every_offset_is_an_error_in_both_byte_orders() {
    let info = facts_2_1_info();
    for endian in [Endianness::Little, Endianness::Big] {
        let golden = encoded(&info, endian);
        for cut in 0..golden.len() {
            assert!(
                ContentFilterInfoView::new_checked(&golden[..cut], endian).is_err(),
                "cut at {cut}"
            );
        }
    }
}

#[test]
fn view_of_a_huge_signature_count_is_an_error_not_an_allocation() {
    // numBitmaps 0x0800_0000 (= ceil(u32::MAX / 32)), numSignatures u32::MAX, nothing else.
    let b = [0, 0, 0, 8, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
    assert!(ContentFilterInfoView::new_checked(&b, Endianness::Little).is_err());
    let b = [0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
    assert!(ContentFilterInfoView::new_checked(&b, Endianness::Big).is_err());
}

#[test]
fn single_signature_info_matches_golden_bytes_in_both_byte_orders() {
    let mut le_pass = vec![1, 0, 0, 0, 0, 0, 0, 0x80, 1, 0, 0, 0];
    le_pass.extend_from_slice(&[0x5a; 16]);
    let mut be_fail = vec![0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1];
    be_fail.extend_from_slice(&[0x5a; 16]);
    for (endian, passed, golden) in [
        (Endianness::Little, true, le_pass),
        (Endianness::Big, false, be_fail),
    ] {
        let mut v = Vec::new();
        ContentFilterInfo::emit_single(&mut CdrWriter::new(&mut v, endian), &[0x5a; 16], passed);
        assert_eq!(v, golden);
        assert_eq!(v.len(), SINGLE_FILTER_INFO_LEN);
        // The same bytes as the repr with one filter.
        let mut one = ContentFilterInfo::new();
        one.push([0x5a; 16], passed);
        assert_eq!(encoded(&one, endian), golden);
        assert_eq!(one.buffer_len(), SINGLE_FILTER_INFO_LEN);
        assert_eq!(bit_for(&golden, endian, &[0x5a; 16]), Some(passed));
    }
}
