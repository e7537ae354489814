use super::*;

#[test]
fn the_digest_ignores_order_and_duplicates_and_tells_sets_apart() {
    let a = EntityId([0, 0, 1, 0x02]);
    let b = EntityId([0, 0, 2, 0x02]);
    let c = EntityId([0, 0, 3, 0x02]);
    assert_eq!(writer_set_digest(&[a, b]), writer_set_digest(&[b, a, b]));
    assert_ne!(writer_set_digest(&[a, b]), writer_set_digest(&[a, b, c]));
    assert_ne!(writer_set_digest(&[a]), writer_set_digest(&[b]));
}

#[test]
fn a_group_numbers_its_writers_changes_in_one_sequence() {
    let (a, b) = (EntityId([0, 0, 1, 0x02]), EntityId([0, 0, 2, 0x02]));
    let mut g = WriterGroups::default();
    g.groups.insert(
        a,
        WriterGroup {
            writers: vec![a, b],
            coherent: true,
            ..WriterGroup::default()
        },
    );
    g.of_writer.insert(a, a);
    g.of_writer.insert(b, a);
    assert_eq!(
        g.stamp(a).map(|s| (s.gsn.0, s.coherent_set)),
        Some((1, None))
    );
    assert_eq!(g.stamp(b).map(|s| s.gsn.0), Some(2));
    if let Some(grp) = g.groups.get_mut(&a) {
        grp.depth = 1;
    }
    let s = g.stamp(b).map(|s| (s.gsn.0, s.coherent_set));
    assert_eq!(s, Some((3, Some(SequenceNumber(3)))));
    let s = g.stamp(a).map(|s| (s.gsn.0, s.coherent_set));
    assert_eq!(s, Some((4, Some(SequenceNumber(3)))));
    assert_eq!(g.stamp(EntityId([0, 0, 9, 0x02])), None);
}
