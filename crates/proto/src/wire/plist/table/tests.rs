use super::*;

#[test]
fn vendor_pids_resolve_per_vendor() {
    assert_eq!(
        pid_name(0x8000, VendorId::CYCLONE_DDS),
        Some("ADLINK_BUILTIN_ENDPOINT_SET")
    );
    assert_eq!(
        pid_name(0x8000, VendorId::FAST_DDS),
        Some("PRODUCT_VERSION")
    );
    assert_eq!(pid_name(0x8007, VendorId::RTI_CONNEXT), None);
    assert_eq!(
        pid_name(PID_TOPIC_NAME, VendorId::UNKNOWN),
        Some("TOPIC_NAME")
    );
    assert_eq!(
        pid_name(PID_DOMAIN_TAG, VendorId::FAST_DDS),
        Some("DOMAIN_TAG")
    );
}

#[test]
fn every_id_appears_once_per_vendor() {
    for (i, a) in PID_TABLE.iter().enumerate() {
        for b in PID_TABLE.iter().skip(i + 1) {
            let overlap = a.vendors.is_empty()
                || b.vendors.is_empty()
                || a.vendors.iter().any(|v| b.vendors.contains(v));
            assert!(
                !(a.id == b.id && overlap),
                "{} and {} collide",
                a.name,
                b.name
            );
        }
    }
}

#[test]
fn standard_rows_are_below_the_vendor_range_and_vendor_rows_name_a_vendor() {
    for row in PID_TABLE {
        assert_eq!(
            row.id & PID_FLAG_VENDOR_SPECIFIC != 0,
            !row.vendors.is_empty(),
            "{}",
            row.name
        );
    }
}
