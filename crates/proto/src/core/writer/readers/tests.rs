use super::*;
use crate::core::RemoteReader;
use crate::wire::{EntityId, GuidPrefix, SequenceNumber};

fn proxy(n: u8) -> ReaderProxy {
    let remote = RemoteReader {
        guid: Guid::new(GuidPrefix([n; 12]), EntityId([0, 0, 1, 0x07])),
        unicast_locators: Vec::new(),
        multicast_locators: Vec::new(),
        reliable: true,
        expects_inline_qos: false,
        wants_history: false,
    };
    ReaderProxy::new(remote, SequenceNumber::ONE)
}

fn guids(r: &Readers) -> Vec<u8> {
    r.iter().map(|p| p.guid().prefix.0[0]).collect()
}

#[test]
fn a_removed_readers_key_never_resolves_again_even_when_its_slot_is_reused() {
    let mut r = Readers::new();
    let a = r.insert(proxy(1));
    let b = r.insert(proxy(2));
    assert!(r.remove(proxy(1).guid()).is_some());
    assert!(r.get(a).is_none());
    let c = r.insert(proxy(3));
    assert_ne!(a, c, "the reused slot has a new generation");
    assert!(r.get(a).is_none());
    assert_eq!(r.get(b).map(|p| p.guid()), Some(proxy(2).guid()));
    assert_eq!(r.get(c).map(|p| p.guid()), Some(proxy(3).guid()));
    assert_eq!(r.find(proxy(3).guid()), Some(c));
    assert_eq!(r.find(proxy(1).guid()), None);
}

#[test]
fn iteration_stays_in_match_order_across_removals_and_reuse() {
    let mut r = Readers::new();
    for n in 1..=4 {
        r.insert(proxy(n));
    }
    r.remove(proxy(2).guid());
    r.insert(proxy(5));
    assert_eq!(guids(&r), vec![1, 3, 4, 5]);
    assert_eq!(r.len(), 4);
    assert_eq!(r.key_at(3), r.find(proxy(5).guid()));
    assert_eq!(r.entries().count(), 4);
    assert_eq!(r.iter_mut().count(), 4);
}

#[test]
fn membership_moves_on_every_addition_removal_and_update() {
    let mut r = Readers::new();
    let m0 = r.membership();
    r.insert(proxy(1));
    let m1 = r.membership();
    assert_ne!(m0, m1);
    r.changed();
    let m2 = r.membership();
    assert_ne!(m1, m2);
    assert!(r.remove(proxy(9).guid()).is_none());
    assert_eq!(
        r.membership(),
        m2,
        "removing an unknown reader changes nothing"
    );
    r.remove(proxy(1).guid());
    assert_ne!(r.membership(), m2);
    assert_eq!(r.len(), 0);
}
