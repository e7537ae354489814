use super::*;

#[test]
fn the_overhead_covers_at_least_the_stored_structures() {
    // A change holds at least its CacheChange and a sequence number.
    let floor = core::mem::size_of::<crate::core::CacheChange>() + 8;
    assert!(
        PER_CHANGE_OVERHEAD > floor,
        "{PER_CHANGE_OVERHEAD} <= {floor}"
    );
    assert_eq!(change_footprint(32), 32 + PER_CHANGE_OVERHEAD);
    assert_eq!(change_footprint(usize::MAX), usize::MAX);
}
