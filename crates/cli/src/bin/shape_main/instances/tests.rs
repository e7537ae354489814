use super::*;

fn guid(n: u8) -> Guid {
    Guid {
        entity_id: siftdds::wire::EntityId([0, 0, n, 2]),
        ..Guid::default()
    }
}

#[test]
fn dispose_then_unregister_reports_once() {
    let mut i = Instances::default();
    i.alive(0, [1; 16], "RED", guid(1));
    let d = i.not_alive(0, Some([1; 16]), guid(1), ChangeKind::NotAliveDisposed);
    assert_eq!(d, Transition::Now("RED".into(), DISPOSED));
    let u = i.not_alive(0, Some([1; 16]), guid(1), ChangeKind::NotAliveUnregistered);
    assert_eq!(u, Transition::Unchanged);
    let n = i.not_alive(0, Some([1; 16]), guid(1), ChangeKind::NotAliveNoWriters);
    assert_eq!(n, Transition::Unchanged);
}

#[test]
fn no_writers_only_when_the_last_writer_leaves() {
    let mut i = Instances::default();
    i.alive(0, [1; 16], "RED", guid(1));
    i.alive(0, [1; 16], "RED", guid(2));
    let u = i.not_alive(0, Some([1; 16]), guid(1), ChangeKind::NotAliveUnregistered);
    assert_eq!(u, Transition::Unchanged);
    let n = i.not_alive(0, Some([1; 16]), guid(2), ChangeKind::NotAliveNoWriters);
    assert_eq!(n, Transition::Now("RED".into(), NO_WRITERS));
}

#[test]
fn a_change_without_key_hash_is_the_writers_only_instance() {
    let mut i = Instances::default();
    i.alive(0, [1; 16], "RED", guid(1));
    let d = i.not_alive(0, None, guid(1), ChangeKind::NotAliveDisposed);
    assert_eq!(d, Transition::Now("RED".into(), DISPOSED));
    i.alive(0, [1; 16], "RED", guid(1));
    i.alive(0, [2; 16], "BLUE", guid(1));
    assert_eq!(
        i.not_alive(0, None, guid(1), ChangeKind::NotAliveDisposed),
        Transition::Unknown
    );
    assert_eq!(
        i.not_alive(1, Some([1; 16]), guid(1), ChangeKind::NotAliveDisposed),
        Transition::Unknown
    );
}
