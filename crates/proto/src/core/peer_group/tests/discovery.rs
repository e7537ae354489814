//! The discovery side: SPDP carries the capability only between siftdds participants, and
//! the configured groups' checks.
//! Must not: open sockets, read clocks or files.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use crate::cdr::Endianness;
use crate::wire::{Capability, GuidPrefix};

#[test]
fn spdp_carries_the_capability_only_between_siftdds_participants() {
    use crate::core::discovery::ParticipantProxyData;
    use crate::wire::VendorId;
    let mut p = ParticipantProxyData::new(GuidPrefix([7; 12]), 0);
    p.peer_group = Some(Capability {
        capacity: 2,
        generation: 0x0102_0304,
    });
    for endian in [Endianness::Little, Endianness::Big] {
        let bytes = p.to_payload(endian).unwrap();
        let ours = ParticipantProxyData::from_payload(&bytes, VendorId::SIFTDDS).unwrap();
        assert_eq!(ours.peer_group, p.peer_group);
        // Another vendor's 0x8101 means something else: skipped.
        let theirs = ParticipantProxyData::from_payload(&bytes, VendorId::CYCLONE_DDS).unwrap();
        assert_eq!(theirs.peer_group, None);
    }
    p.peer_group = None;
    let bytes = p.to_payload(Endianness::Little).unwrap();
    let none = ParticipantProxyData::from_payload(&bytes, VendorId::SIFTDDS).unwrap();
    assert_eq!(none.peer_group, None);
    assert_eq!(Capability::from_octets(&[1, 2, 3]), None);
}

#[test]
fn group_configuration_checks() {
    use crate::core::peer_group::config::{
        ParticipantMatch, PeerGroupConfig, PeerGroupError, validate_all,
    };
    let router = ParticipantMatch::parse("siftdds-router-*");
    let mut g = PeerGroupConfig::new("fleet", "Vehicle", &["model"], router.clone());
    assert_eq!(g.validate(), Err(PeerGroupError::Empty("members")));
    g.members
        .push(ParticipantMatch::parse("010f0000.00000001.00000002"));
    assert_eq!(
        g.members[0],
        ParticipantMatch::Prefix([1, 0x0f, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2])
    );
    assert_eq!(g.validate(), Ok(()));
    let mut s = g.clone();
    s.sensitive.push("model".into());
    assert_eq!(s.validate(), Err(PeerGroupError::Sensitive("model".into())));
    let mut c = g.clone();
    c.capacity = 0;
    assert_eq!(c.validate(), Err(PeerGroupError::Capacity(0)));
    assert!(matches!(
        validate_all(&[g.clone(), g.clone()]),
        Err(PeerGroupError::DuplicateId(..))
    ));
    let mut other = g.clone();
    other.name = "other".into();
    assert_eq!(validate_all(&[g.clone(), other]), Ok(()));
    assert!(g.is_intermediary(Some("siftdds-router-lan-a"), [0; 12]));
    assert!(!g.is_intermediary(None, [0; 12]));
    assert!(ParticipantMatch::parse("*").matches(None, [0; 12]));
}
