use super::*;

#[test]
fn walks_to_the_sentinel_and_leaves_the_payload() {
    let b = [
        0x05, 0x00, 0x04, 0x00, 1, 2, 3, 4, 0x01, 0x00, 0x00, 0x00, 0xaa,
    ];
    let mut r = CdrReader::new(&b, Endianness::Little);
    let pl = ParameterListView::new_checked(&mut r);
    let pl = pl.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.rest(), &[0xaa]);
    let params: Vec<_> = pl.iter().collect();
    assert_eq!(
        params,
        [RawParameter {
            pid: 5,
            value: &[1, 2, 3, 4]
        }]
    );
}

#[test]
fn missing_sentinel_is_truncated() {
    let b = [0x00, 0x05, 0x00, 0x04, 1, 2, 3, 4];
    assert!(ParameterListView::new_checked(&mut CdrReader::new(&b, Endianness::Big)).is_err());
}

#[test]
fn value_past_the_end_is_truncated() {
    let b = [0x00, 0x05, 0x00, 0x08, 1, 2, 3, 4];
    assert!(ParameterListView::new_checked(&mut CdrReader::new(&b, Endianness::Big)).is_err());
}
