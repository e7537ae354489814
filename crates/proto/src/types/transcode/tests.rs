#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use super::*;
use crate::types::codec::{self, MutableWriter};
use crate::types::{ShapeType, TopicType};
use proptest::prelude::*;

const VERSIONS: [XcdrVersion; 2] = [XcdrVersion::Xcdr1, XcdrVersion::Xcdr2];
const ENDIANS: [Endianness; 2] = [Endianness::Little, Endianness::Big];

fn shape(color: &str, x: i32, payload: Vec<u8>) -> ShapeType {
    ShapeType {
        color: color.into(),
        x,
        y: -7,
        shapesize: 30,
        additional_payload_size: payload,
    }
}

/// The types of the Cyclone conformance vectors (tests/data/xcdr/README.md).
fn vector_types() -> Vec<TypeDescriptor> {
    let idl = include_str!("../../../tests/data/idl/xcdr_vectors.idl");
    let loader = crate::idl::MemLoader::new().with("v.idl", idl);
    let spec = crate::idl::parse_with(&loader, std::path::Path::new("v.idl"), &[]).unwrap();
    crate::idl::descriptors(&spec)
}

fn desc<'a>(types: &'a [TypeDescriptor], name: &str) -> &'a TypeDescriptor {
    types
        .iter()
        .find(|d| d.name == format!("xv::{name}"))
        .unwrap_or_else(|| panic!("no descriptor for {name}"))
}

/// A payload as Cyclone's Python serializer ends it: options 0, no trailing padding.
fn unpadded(mut p: Vec<u8>) -> Vec<u8> {
    let pad = usize::from(p[3] & 3);
    p.truncate(p.len() - pad);
    p[3] = 0;
    p
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

#[test]
fn a_shape_transcodes_to_what_the_typed_writer_sends_in_every_version_and_byte_order() {
    let d = ShapeType::descriptor();
    let s = shape("BLUE", 10, vec![1, 2, 3]);
    for from in VERSIONS {
        for fe in ENDIANS {
            let src = s.serialize_as(from, fe).unwrap();
            for to in VERSIONS {
                for te in ENDIANS {
                    // The typed ShapeType pads XCDR2 only; the transcoder pads both.
                    let want = unpadded(s.serialize_as(to, te).unwrap());
                    let got = unpadded(transcode(&src, d, to, te).unwrap());
                    assert_eq!(got, want, "{from:?} {fe:?}");
                }
            }
        }
    }
}

#[test]
fn the_vendors_four_member_shape_keeps_its_four_members() {
    // CDR_LE "RED", x=1, y=2, size=3: Cyclone's and Fast DDS's ShapeType.
    let mut x1 = vec![0, 1, 0, 0, 4, 0, 0, 0];
    x1.extend_from_slice(b"RED\0");
    for v in [1u32, 2, 3] {
        x1.extend_from_slice(&v.to_le_bytes());
    }
    let x2 = transcode(
        &x1,
        ShapeType::descriptor(),
        XcdrVersion::Xcdr2,
        Endianness::Little,
    );
    let x2 = x2.unwrap();
    // D_CDR2_LE, DHEADER 20, the four members.
    let mut want = vec![0, 9, 0, 0, 20, 0, 0, 0];
    want.extend_from_slice(&x1[4..]);
    assert_eq!(x2, want);
    let back = transcode(
        &x2,
        ShapeType::descriptor(),
        XcdrVersion::Xcdr1,
        Endianness::Little,
    );
    assert_eq!(back.unwrap(), x1);
}

/// Every vector of a type the descriptors express (unions and `wchar` excluded): Cyclone's
/// XCDR1 payload transcoded is Cyclone's XCDR2 payload, and the other way, in both byte
/// orders.
#[test]
fn cyclone_vectors_transcode_into_each_other() {
    let types = vector_types();
    let text = include_str!("../../../tests/data/xcdr/vectors.txt");
    let mut payloads: Vec<(String, XcdrVersion, Endianness, Vec<u8>)> = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split(' ').collect();
        if f[0] == "key" {
            continue;
        }
        let v = if f[1] == "xcdr1" {
            XcdrVersion::Xcdr1
        } else {
            XcdrVersion::Xcdr2
        };
        let e = if f[2] == "le" {
            Endianness::Little
        } else {
            Endianness::Big
        };
        payloads.push((f[0].to_string(), v, e, hex(f[3])));
    }
    let type_of = |value: &str| match value {
        "collections" | "collections_empty" => Some("Collections"),
        "enums" => Some("Enums"),
        "app_derived" | "app_derived_absent" => Some("AppDerived"),
        "mut" => Some("Mut"),
        "hashed" => Some("Hashed"),
        "keyed_final" => Some("KeyedFinal"),
        "nested_key" => Some("NestedKey"),
        _ => None, // prims (wchar), with_unions_* (unions)
    };
    let mut checked = 0;
    for (value, from, fe, src) in &payloads {
        let Some(name) = type_of(value) else { continue };
        let d = desc(&types, name);
        for (_, to, te, want) in payloads.iter().filter(|p| &p.0 == value) {
            let got = transcode(src, d, *to, *te)
                .unwrap_or_else(|e| panic!("{value} {from:?} {fe:?} -> {to:?} {te:?}: {e}"));
            assert_eq!(
                unpadded(got),
                *want,
                "{value} {from:?} {fe:?} -> {to:?} {te:?}"
            );
            checked += 1;
        }
    }
    // 9 values (of 7 types), 4 payloads each, into 4 payloads each.
    assert_eq!(checked, 9 * 16);
}

#[test]
fn a_union_member_is_refused_not_guessed() {
    let types = vector_types();
    let d = desc(&types, "WithUnions");
    let text = include_str!("../../../tests/data/xcdr/vectors.txt");
    let line = text
        .lines()
        .find(|l| l.starts_with("with_unions_number xcdr1 le"))
        .unwrap();
    let src = hex(line.split(' ').nth(3).unwrap());
    assert!(transcode(&src, d, XcdrVersion::Xcdr2, Endianness::Little).is_err());
}

#[test]
fn the_key_of_a_sample_builds_the_key_payload_each_representation_sends() {
    let s = shape("BLUE", 10, vec![9; 40]);
    let d = ShapeType::descriptor();
    let key_only = TypeDescriptor {
        name: d.name.clone(),
        extensibility: Extensibility::Final,
        members: d.members.iter().filter(|m| m.key).cloned().collect(),
    };
    for from in VERSIONS {
        for fe in ENDIANS {
            let key = sample_key(&s.serialize_as(from, fe).unwrap(), d).unwrap();
            for to in VERSIONS {
                for te in ENDIANS {
                    let want = s.serialize_key_as(to, te).unwrap();
                    let got = key_payload(&key, &key_only, d.extensibility, to, te).unwrap();
                    assert_eq!(got, want, "{from:?} {fe:?} -> {to:?} {te:?}");
                    // And back from the key payload, as a dispose carries it.
                    assert_eq!(key_of_key_payload(&want, &key_only), Some(key.clone()));
                }
            }
        }
    }
    // pip cyclonedds 11's D_CDR2 key, behind a DHEADER (docs/interop-facts.md §5.10).
    let pip = [
        &[0u8, 9, 0, 0][..],
        &9u32.to_le_bytes(),
        &5u32.to_le_bytes(),
        b"BLUE\0",
    ]
    .concat();
    let key = sample_key(
        &s.serialize_as(XcdrVersion::Xcdr2, Endianness::Little)
            .unwrap(),
        d,
    );
    assert_eq!(key_of_key_payload(&pip, &key_only), Some(key.unwrap()));
}

/// A value drawn from `seed`, written in `version` by a walk of the descriptor through the
/// typed writers' helpers (`types::codec`): the same draws in both versions, so the two
/// payloads hold the same value.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn sample(seed: u64, d: &TypeDescriptor, version: XcdrVersion, endian: Endianness) -> Vec<u8> {
        let mut g = Gen(seed | 1);
        let kind = codec::encapsulation(version, d.extensibility);
        codec::encapsulate(kind, version, endian, true, |w| {
            g.strukt(w, d);
            Ok(())
        })
        .unwrap()
    }

    fn strukt(&mut self, w: &mut CdrWriter<'_>, d: &TypeDescriptor) {
        match d.extensibility {
            Extensibility::Final => self.members(w, d),
            Extensibility::Appendable => {
                codec::write_appendable(w, |w| {
                    self.members(w, d);
                    Ok(())
                })
                .unwrap();
            }
            Extensibility::Mutable => {
                codec::write_mutable(w, |mw: &mut MutableWriter<'_, '_>| {
                    for m in &d.members {
                        if m.optional && self.below(2) == 0 {
                            continue;
                        }
                        mw.member(m.id, false, length_code(&m.kind), |w| {
                            self.value(w, &m.kind);
                            Ok(())
                        })?;
                    }
                    Ok(())
                })
                .unwrap();
            }
        }
    }

    fn members(&mut self, w: &mut CdrWriter<'_>, d: &TypeDescriptor) {
        for m in &d.members {
            if m.optional {
                let present = self.below(2) == 1;
                codec::write_optional(w, m.id, present.then_some(&()), |w, _| {
                    self.value(w, &m.kind);
                    Ok(())
                })
                .unwrap();
            } else {
                self.value(w, &m.kind);
            }
        }
    }

    fn value(&mut self, w: &mut CdrWriter<'_>, kind: &TypeKind) {
        if let Some(size) = kind.primitive_size() {
            w.align_prim(size);
            let v = self.next();
            match (kind, size) {
                (TypeKind::Bool, _) => w.u8((v & 1) as u8),
                (TypeKind::Enum(e), _) => {
                    let i = self.below(e.labels.len() as u64) as usize;
                    w.i32(e.labels[i].1);
                }
                (_, 1) => w.u8(v as u8),
                (_, 2) => w.u16(v as u16),
                (_, 4) => w.u32(v as u32),
                _ => w.u64(v),
            }
            return;
        }
        match kind {
            TypeKind::String { bound } => {
                let n = self.below(u64::from(bound.unwrap_or(12)) + 1) as usize;
                let s: Vec<u8> = (0..n).map(|_| b'a' + self.below(26) as u8).collect();
                w.string(&s);
            }
            TypeKind::Struct(d) => self.strukt(w, d),
            TypeKind::Sequence { elem, bound } => {
                let n = self.below(u64::from(bound.unwrap_or(5)) + 1) as u32;
                let dheader =
                    elem.primitive_size().is_none() || matches!(**elem, TypeKind::Enum(_));
                codec::write_array(w, dheader, |w| {
                    w.align(4);
                    w.u32(n);
                    (0..n).for_each(|_| self.value(w, elem));
                    Ok(())
                })
                .unwrap();
            }
            TypeKind::Array { elem, dims } => {
                let n: u32 = dims.iter().product();
                let dheader =
                    elem.primitive_size().is_none() || matches!(**elem, TypeKind::Enum(_));
                codec::write_array(w, dheader, |w| {
                    (0..n).for_each(|_| self.value(w, elem));
                    Ok(())
                })
                .unwrap();
            }
            _ => unreachable!("no unions in the generated types"),
        }
    }
}

proptest! {
    /// XCDR1 → XCDR2 → XCDR1 is the original ShapeType sample, and each step is what the
    /// typed writer sends in that representation.
    #[test]
    fn shape_round_trips_through_xcdr2(
        color in "[A-Z]{0,100}", x in any::<i32>(), payload in proptest::collection::vec(any::<u8>(), 0..300),
        big in any::<bool>()
    ) {
        let s = shape(&color, x, payload);
        let d = ShapeType::descriptor();
        let e = if big { Endianness::Big } else { Endianness::Little };
        let x1 = s.serialize_as(XcdrVersion::Xcdr1, e).unwrap();
        let x2 = transcode(&x1, d, XcdrVersion::Xcdr2, e).unwrap();
        prop_assert_eq!(&x2, &s.serialize_as(XcdrVersion::Xcdr2, e).unwrap());
        // Equal up to the trailing padding the transcoder adds (counted in the options).
        let back = transcode(&x2, d, XcdrVersion::Xcdr1, e).unwrap();
        prop_assert_eq!(unpadded(back), unpadded(x1));
    }

    /// Random samples of the IDL-defined vector types (nested appendable structs, optional
    /// members, mutable types, sequences and arrays of structs, enums): the XCDR1 sample
    /// transcoded is the XCDR2 one, in any byte order, and back.
    #[test]
    fn idl_samples_round_trip_between_representations(seed in any::<u64>()) {
        let types = vector_types();
        for name in ["Collections", "Enums", "AppDerived", "Mut", "Hashed", "KeyedFinal", "NestedKey"] {
            let d = desc(&types, name);
            for fe in ENDIANS {
                let x1 = Gen::sample(seed, d, XcdrVersion::Xcdr1, fe);
                for te in ENDIANS {
                    let x2 = Gen::sample(seed, d, XcdrVersion::Xcdr2, te);
                    let got = transcode(&x1, d, XcdrVersion::Xcdr2, te).unwrap();
                    prop_assert_eq!(&got, &x2, "{}", name);
                    let back = transcode(&x2, d, XcdrVersion::Xcdr1, fe).unwrap();
                    prop_assert_eq!(&back, &x1, "{}", name);
                }
            }
        }
    }

    /// Hostile bytes behind every encapsulation header: an error or a payload, never a panic.
    #[test]
    fn hostile_bytes_never_panic(
        id in 0u8..12, body in proptest::collection::vec(any::<u8>(), 0..200)
    ) {
        let types = vector_types();
        let payload = [&[0, id, 0, 0][..], &body].concat();
        for d in types.iter().chain([ShapeType::descriptor()]) {
            for to in VERSIONS {
                let _ = transcode(&payload, d, to, Endianness::Little);
            }
            let _ = sample_key(&payload, d);
        }
    }

    /// A valid sample with one byte changed, or cut short anywhere: never a panic.
    #[test]
    fn corrupted_samples_never_panic(seed in any::<u64>(), at in any::<usize>(), byte in any::<u8>()) {
        let types = vector_types();
        for d in &types {
            if d.name == "xv::WithUnions" {
                continue;
            }
            for v in VERSIONS {
                let mut p = Gen::sample(seed, d, v, Endianness::Little);
                let i = 4 + at % (p.len() - 4).max(1);
                if let Some(b) = p.get_mut(i) {
                    *b = byte;
                }
                for n in 0..p.len() {
                    let _ = transcode(&p[..n], d, XcdrVersion::Xcdr1, Endianness::Big);
                    let _ = transcode(&p[..n], d, XcdrVersion::Xcdr2, Endianness::Big);
                }
            }
        }
    }
}
