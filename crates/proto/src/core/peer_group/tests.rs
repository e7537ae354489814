//! Peer-group cache tests, by theme: [`alias`] (definition-SN aliases: rebinding, reordering,
//! a lost definition), [`split`] (splitting against a real type, merge as the
//! exact inverse), [`roles`] (the publisher's decision table, the intermediary's checks,
//! collisions, LRU), [`cooperation`] (projection announcements and eviction notices),
//! [`departure`] (a member gone: the entries only it defined dropped and announced),
//! [`simulation`] (a seeded model of two writers and the intermediary over lossy links) and
//! [`discovery`] (SPDP/SEDP vendor PIDs, configuration checks). This module holds the shared
//! fixtures: the Vehicle type, its samples, and a group's configuration.
//! Must not: open sockets, read clocks or files.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

mod alias;
mod cooperation;
mod departure;
mod discovery;
mod roles;
mod simulation;
mod split;

use super::intermediary::GroupConfig;
use super::split::{Projection, common_segments, split};
use super::{group_id, key_of};
use crate::cdr::{CdrWriter, EncapsulationHeader, EncapsulationKind, Endianness};
use crate::types::{Extensibility, Member, TypeDescriptor, TypeKind};
use crate::wire::{EntityId, Guid, GuidPrefix, KeyDefinition};

pub(crate) const TYPE_HASH: u64 = 0x5151_5151_5151_5151;

/// counter u32, fleet string, model string, x f64, route string, calib sequence<octet>, speed f32.
pub(crate) fn vehicle() -> TypeDescriptor {
    let s = || TypeKind::String { bound: None };
    TypeDescriptor {
        name: "Vehicle".into(),
        extensibility: Extensibility::Final,
        members: vec![
            Member::new("counter", 0, TypeKind::U32),
            Member::new("fleet", 1, s()),
            Member::new("model", 2, s()),
            Member::new("x", 3, TypeKind::F64),
            Member::new("route", 4, s()),
            Member::new(
                "calib",
                5,
                TypeKind::Sequence {
                    elem: Box::new(TypeKind::Octet),
                    bound: None,
                },
            ),
            Member::new("speed", 6, TypeKind::F32),
        ],
    }
}

pub(crate) fn common_names() -> Vec<String> {
    ["fleet", "model", "route", "calib"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// A serialized Vehicle for common set `set` and varying values from `n`.
pub(crate) fn sample(endian: Endianness, set: usize, n: u32) -> Vec<u8> {
    let mut v = Vec::new();
    let mut w = CdrWriter::new(&mut v, endian);
    EncapsulationHeader::new(EncapsulationKind::Cdr, endian).emit(&mut w);
    let mut b = w.nested();
    b.u32(n);
    b.string(format!("fleet-{set}").as_bytes());
    b.string("model-XK-2000-long-description".repeat(set + 1).as_bytes());
    b.align(8);
    b.u64(f64::from(n).to_bits());
    b.string(format!("route {set}: A-B-C").as_bytes());
    b.align(4);
    b.u32(3 + set as u32);
    for i in 0..3 + set {
        b.u8(i as u8 ^ set as u8);
    }
    b.align(4);
    b.u32((n as f32 * 0.5).to_bits());
    v
}

pub(crate) fn project(payload: &[u8]) -> (Projection, Vec<u8>) {
    let segs = common_segments(&vehicle(), &common_names(), payload).unwrap();
    split(payload, segs).unwrap()
}

pub(crate) fn guid(n: u8) -> Guid {
    Guid::new(GuidPrefix([n; 12]), EntityId([0, 0, 1, 0x03]))
}

pub(crate) fn config(capacity: usize) -> GroupConfig {
    GroupConfig {
        group: group_id("fleet-a"),
        type_hash: TYPE_HASH,
        capacity,
    }
}

pub(crate) fn definition(generation0: u32, payload: &[u8]) -> (KeyDefinition, Vec<u8>) {
    let (p, rest) = project(payload);
    let key = key_of(group_id("fleet-a"), generation0, TYPE_HASH, &p);
    (KeyDefinition::new(key, p.segments).unwrap(), rest)
}
