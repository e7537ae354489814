#![allow(clippy::arithmetic_side_effects)]

use super::*;
use crate::cdr::{CdrWriter, Endianness, XcdrVersion};
use crate::idl::{MemLoader, parse_with, to_type_object};
use crate::types::codec::{LengthCode, write_mutable};
use crate::types::dynamic::{DynamicValue, decode};
use crate::types::xtypes::{TypeRepresentation, begin_dheader, end_dheader};

fn rich() -> TypeRepresentation {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/xtypes/rich.idl");
    let idl = std::fs::read_to_string(path).unwrap();
    let loader = MemLoader::new().with("rich.idl", &idl);
    let spec = parse_with(&loader, std::path::Path::new("rich.idl"), &[]).unwrap();
    to_type_object::type_representation(&spec.model, "rich::Sample").unwrap()
}

/// The TypeObjects of `rep`, decoded, by identifier (what the TypeLookup client's registry
/// holds after resolving the type).
fn objects(rep: &TypeRepresentation) -> Vec<(TypeIdentifier, TypeObject)> {
    rep.objects
        .iter()
        .map(|(id, b)| {
            (
                id.clone(),
                TypeObject::from_bytes(b, Endianness::Little).unwrap(),
            )
        })
        .collect()
}

fn descriptor_of(rep: &TypeRepresentation, complete: bool) -> TypeDescriptor {
    let objects = objects(rep);
    let lookup = |id: &TypeIdentifier| objects.iter().find(|(i, _)| i == id).map(|(_, o)| o);
    let info = &rep.information;
    let id = if complete {
        &info.complete.typeid_with_size.type_id
    } else {
        &info.minimal.typeid_with_size.type_id
    };
    type_descriptor(&lookup, id).unwrap()
}

/// A `rich::Sample` in PL_CDR2 little-endian, as a Cyclone or siftdds writer sends it:
/// ident 7, shade BLUE, origin {1, 2.5}, points [{3, 4.5}], label absent, val `s = "hi"`
/// (discriminator 3), small [1, 2], grid 0..12, text "end".
fn sample_pl_cdr2() -> Vec<u8> {
    let mut buf = vec![0x00, 0x0b, 0x00, 0x00];
    let mut outer = CdrWriter::new(&mut buf, Endianness::Little);
    outer.set_xcdr(XcdrVersion::Xcdr2);
    let mut w = outer.nested();
    let point = |w: &mut CdrWriter<'_>, x: i32, y: f64| {
        w.i32(x);
        w.align_prim(8);
        w.bytes(&y.to_le_bytes());
    };
    write_mutable(&mut w, |m| {
        m.member(5, true, LengthCode::Size4, |w| {
            w.i32(7);
            Ok(())
        })?;
        m.member(10, false, LengthCode::Size4, |w| {
            w.i32(2);
            Ok(())
        })?;
        m.member(11, false, LengthCode::NextInt, |w| {
            point(w, 1, 2.5);
            Ok(())
        })?;
        m.member(12, false, LengthCode::DualUse1, |w| {
            let at = begin_dheader(w);
            w.u32(1);
            point(w, 3, 4.5);
            end_dheader(w, at);
            Ok(())
        })?;
        m.member(14, false, LengthCode::DualUse1, |w| {
            let at = begin_dheader(w);
            w.i32(3);
            w.string(b"hi");
            end_dheader(w, at);
            Ok(())
        })?;
        m.member(15, false, LengthCode::DualUse4, |w| {
            w.u32(2);
            w.i32(1);
            w.i32(2);
            Ok(())
        })?;
        m.member(16, false, LengthCode::NextInt, |w| {
            for i in 0..12i16 {
                w.i16(i);
            }
            Ok(())
        })?;
        m.member(17, false, LengthCode::NextInt, |w| {
            w.string(b"end");
            Ok(())
        })?;
        Ok(())
    })
    .unwrap();
    buf
}

#[test]
fn a_complete_type_object_gives_named_members_and_decodes_a_mutable_sample() {
    let rep = rich();
    let desc = descriptor_of(&rep, true);
    assert_eq!(desc.name, "rich::Sample");
    assert_eq!(desc.extensibility, Extensibility::Mutable);
    let names: Vec<_> = desc.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "ident", "shade", "origin", "points", "label", "val", "small", "grid", "text"
        ]
    );
    assert!(desc.members[0].key && desc.members[4].optional);
    let v = decode(&sample_pl_cdr2(), &desc).unwrap();
    assert_eq!(
        v.to_string(),
        "{ident: 7, shade: BLUE, origin: {x: 1, y: 2.5}, points: [{x: 3, y: 4.5}], \
         val: {s: \"hi\"}, small: [1, 2], grid: [0, 1, 2, 3, 4, 5, 6, 7, … 12 in all], \
         text: \"end\"}"
    );
    assert_eq!(v.field("label"), None);
    assert_eq!(v.field("val.s"), Some(&DynamicValue::Str("hi".into())));
    // The key hash from the key member (ident, PLAIN_CDR2 big-endian, zero-padded).
    let mut expect = [0u8; 16];
    expect[..4].copy_from_slice(&7i32.to_be_bytes());
    assert_eq!(crate::types::dynamic::key_hash(&v, &desc), Some(expect));
}

#[test]
fn a_minimal_type_object_names_members_by_id() {
    let rep = rich();
    let desc = descriptor_of(&rep, false);
    assert_eq!(desc.members[0].name, "#5");
    let v = decode(&sample_pl_cdr2(), &desc).unwrap();
    assert_eq!(v.field("#5"), Some(&DynamicValue::Int(7)));
}

#[test]
fn union_cases_and_final_structs_decode_in_xcdr1_and_xcdr2() {
    let rep = rich();
    let desc = descriptor_of(&rep, true);
    let find = |n: &str| {
        desc.members
            .iter()
            .find(|m| m.name == n)
            .unwrap()
            .kind
            .clone()
    };
    let holder = |kind: TypeKind, ext: Extensibility| TypeDescriptor {
        name: "H".into(),
        extensibility: ext,
        members: vec![Member {
            name: "v".into(),
            id: 0,
            kind,
            key: false,
            optional: false,
        }],
    };
    // XCDR1 (CDR_LE), a final holder of the appendable union: no DHEADER; the default
    // case (discriminator 9) holds a Point.
    let d1 = holder(find("val"), Extensibility::Final);
    let mut p = vec![0x00, 0x01, 0x00, 0x00];
    p.extend_from_slice(&9i32.to_le_bytes());
    p.extend_from_slice(&5i32.to_le_bytes());
    // y at body offset 8: 8-aligned with no padding.
    p.extend_from_slice(&1.5f64.to_le_bytes());
    assert_eq!(
        decode(&p, &d1).unwrap().to_string(),
        "{v: {p: {x: 5, y: 1.5}}}"
    );
    // XCDR2 (CDR2_BE): the union behind its DHEADER, case 1.
    let mut p = vec![0x00, 0x06, 0x00, 0x00];
    p.extend_from_slice(&8u32.to_be_bytes());
    p.extend_from_slice(&1i32.to_be_bytes());
    p.extend_from_slice(&(-4i32).to_be_bytes());
    assert_eq!(decode(&p, &d1).unwrap().to_string(), "{v: {i: -4}}");
    // XCDR2 optional member of an appendable struct (D_CDR2): absent, then present.
    let mut d2 = holder(TypeKind::String { bound: None }, Extensibility::Appendable);
    d2.members[0].optional = true;
    let p = [0x00, 0x0b - 2, 0, 0, 1, 0, 0, 0, 0];
    assert_eq!(decode(&p, &d2).unwrap().to_string(), "{}");
    let mut p = vec![0x00, 0x09, 0x00, 0x00];
    p.extend_from_slice(&12u32.to_le_bytes());
    p.extend_from_slice(&[1, 0, 0, 0]);
    p.extend_from_slice(&3u32.to_le_bytes());
    p.extend_from_slice(b"ok\0\0");
    assert_eq!(decode(&p, &d2).unwrap().to_string(), "{v: \"ok\"}");
}

#[test]
fn mutated_samples_never_panic_nor_exceed_the_budget() {
    let rep = rich();
    let desc = descriptor_of(&rep, true);
    let sample = sample_pl_cdr2();
    let mut rng = crate::test_rng::Rng::new(0x7e57);
    let mut decoded = 0;
    for n in 0..sample.len() {
        let _ = decode(&sample[..n], &desc);
        for _ in 0..32 {
            let mut m = sample.clone();
            let at = rng.below(m.len());
            m[at] = rng.next_u64() as u8;
            if decode(&m, &desc).is_ok() {
                decoded += 1;
            }
        }
    }
    // Many mutations land in values and still decode.
    assert!(decoded > 0);
}

#[test]
fn missing_and_unsupported_references_are_errors() {
    let rep = rich();
    let objects = objects(&rep);
    let id = &rep.information.complete.typeid_with_size.type_id;
    // Without its dependencies: the first referenced type is missing.
    let only_top = |i: &TypeIdentifier| {
        objects
            .iter()
            .find(|(x, _)| x == i && x == id)
            .map(|(_, o)| o)
    };
    assert!(matches!(
        type_descriptor(&only_top, id),
        Err(DescriptorError::Missing(_))
    ));
    let none = |_: &TypeIdentifier| None;
    assert!(matches!(
        type_descriptor(&none, &TypeIdentifier::Primitive(TK_INT32)),
        Err(DescriptorError::NotAStruct)
    ));
}

#[test]
fn a_mutable_sample_decodes_from_xcdr1_parameters_in_any_order() {
    let rep = rich();
    let desc = descriptor_of(&rep, true);
    // PL_CDR_LE: text, then shade, then ident (member order does not matter); the rest
    // absent.
    let mut buf = vec![0x00, 0x03, 0x00, 0x00];
    let mut outer = CdrWriter::new(&mut buf, Endianness::Little);
    let mut w = outer.nested();
    write_mutable(&mut w, |m| {
        m.member(17, false, LengthCode::NextInt, |w| {
            w.string(b"xcdr1");
            Ok(())
        })?;
        m.member(10, false, LengthCode::Size4, |w| {
            w.i32(1);
            Ok(())
        })?;
        m.member(5, true, LengthCode::Size4, |w| {
            w.i32(-2);
            Ok(())
        })?;
        Ok(())
    })
    .unwrap();
    let v = decode(&buf, &desc).unwrap();
    assert_eq!(v.to_string(), "{ident: -2, shade: GREEN, text: \"xcdr1\"}");
    // A final type in a parameter-list encapsulation is refused.
    let point = match &desc.members[2].kind {
        TypeKind::Struct(d) => (**d).clone(),
        other => panic!("origin is {other:?}"),
    };
    assert!(decode(&buf, &point).is_err());
}
