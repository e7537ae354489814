use super::*;

#[test]
fn guid_partition_is_ddsperfs_format() {
    let p = guid_partition(GuidPrefix([
        0x01, 0x10, 0xab, 0xcd, 0, 0, 0, 1, 0xff, 0, 0, 2,
    ]));
    assert_eq!(p, "0110abcd_00000001_ff000002_000001c1");
}
