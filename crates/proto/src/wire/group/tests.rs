use super::*;

#[test]
fn writer_group_info_round_trips_and_a_short_value_is_refused() {
    let info = WriterGroupInfo {
        writer_set: GroupDigest([1, 2, 3, 4]),
    };
    let mut buf = Vec::new();
    info.emit(&mut CdrWriter::new(&mut buf, crate::cdr::Endianness::Big));
    assert_eq!(buf, [1, 2, 3, 4]);
    assert_eq!(WriterGroupInfo::parse(&buf), Ok(info));
    assert!(WriterGroupInfo::parse(&buf[..3]).is_err());
}
