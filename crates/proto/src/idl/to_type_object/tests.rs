//! Golden vectors: Cyclone DDS 0.10's idlc output for idl/shape.idl and
//! tests/data/xtypes/rich.idl (written by scripts/gen-xtypes-vectors).

use std::path::{Path, PathBuf};

use super::type_representation;
use crate::cdr::{CdrReader, Endianness};
use crate::idl::{IdlSpec, parse_file};
use crate::types::xtypes::{
    EquivalenceKind, TypeIdentifier, TypeInformation, TypeObject, equivalence_hash,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn hex(s: &str) -> Vec<u8> {
    s.as_bytes()
        .chunks(2)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 16).unwrap())
        .collect()
}

/// (TYPE_INFO, TYPE_MAP) of the C type name `c_name` in `file`.
fn vectors(file: &str, c_name: &str) -> (Vec<u8>, Vec<u8>) {
    let text = std::fs::read_to_string(root().join("xtypes").join(file)).unwrap();
    let find = |kind: &str| {
        text.lines()
            .find_map(|l| {
                let mut f = l.split_whitespace();
                (f.next() == Some(kind) && f.next() == Some(c_name)).then(|| hex(f.next().unwrap()))
            })
            .unwrap()
    };
    (find("TYPE_INFO"), find("TYPE_MAP"))
}

/// The (identifier, serialized TypeObject) pairs of Cyclone's `TypeMapping` (a final struct
/// of two sequences of final pairs, then a sequence of identifier pairs).
fn type_mapping(bytes: &[u8]) -> Vec<(TypeIdentifier, Vec<u8>)> {
    let mut r = CdrReader::new(bytes, Endianness::Little);
    let mut out = Vec::new();
    for _ in 0..2 {
        r.align(4, "").unwrap();
        let _dheader = r.u32("").unwrap();
        let n = r.u32("").unwrap();
        for _ in 0..n {
            let id = TypeIdentifier::parse(&mut r, 0).unwrap();
            r.align(4, "").unwrap();
            let len = u32::from_le_bytes(r.rest()[..4].try_into().unwrap()) as usize;
            out.push((
                id,
                r.take(len.checked_add(4).unwrap(), "").unwrap().to_vec(),
            ));
        }
    }
    out
}

fn check(idl: &Path, name: &str, file: &str, c_name: &str) {
    check_spec(&parse_file(idl, &[]).unwrap(), name, file, c_name);
}

fn check_spec(spec: &IdlSpec, name: &str, file: &str, c_name: &str) {
    let ours = type_representation(&spec.model, name).unwrap();
    let (info, map) = vectors(file, c_name);
    assert_eq!(
        hex_of(&ours.information_bytes),
        hex_of(&info),
        "{name}: TypeInformation"
    );
    assert_eq!(
        TypeInformation::from_bytes(&info, Endianness::Little).unwrap(),
        ours.information
    );
    let theirs = type_mapping(&map);
    assert_eq!(
        theirs.len(),
        ours.objects.len(),
        "{name}: number of TypeObjects"
    );
    for (id, bytes) in &theirs {
        let hash = equivalence_hash(bytes);
        match id {
            TypeIdentifier::Minimal(h) | TypeIdentifier::Complete(h) => assert_eq!(*h, hash),
            _ => panic!("{name}: a TypeMapping pair without a hash identifier"),
        }
        let ours = ours.object(id).map(hex_of);
        assert_eq!(ours, Some(hex_of(bytes)), "{name}: TypeObject {id:?}");
        let decoded = TypeObject::from_bytes(bytes, Endianness::Little).unwrap();
        assert_eq!(
            &decoded.to_bytes(),
            bytes,
            "{name}: decode and re-encode {id:?}"
        );
        let kind = match id {
            TypeIdentifier::Minimal(_) => EquivalenceKind::Minimal,
            _ => EquivalenceKind::Complete,
        };
        assert_eq!(decoded.kind, kind);
    }
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn shape_type_matches_cyclone() {
    check(
        &root().join("idl/shape.idl"),
        "ShapeType",
        "shape.vectors",
        "ShapeType",
    );
}

#[test]
fn rich_types_match_cyclone() {
    let idl = root().join("xtypes/rich.idl");
    check(&idl, "rich::Point", "rich.vectors", "rich_Point");
    check(&idl, "rich::Value", "rich.vectors", "rich_Value");
    check(&idl, "rich::Sample", "rich.vectors", "rich_Sample");
}

#[test]
fn recursive_types_are_refused() {
    let dir = std::env::temp_dir().join(format!("siftdds-xtypes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let idl = dir.join("rec.idl");
    std::fs::write(&idl, "struct Node; struct Node { sequence<Node> next; };").unwrap();
    let result = parse_file(&idl, &[]).map(|spec| type_representation(&spec.model, "Node"));
    let _ = std::fs::remove_dir_all(&dir);
    if let Ok(r) = result {
        assert!(r.unwrap_err().message.contains("recursive"));
    }
}

#[test]
fn shape_type_representation_is_built_from_the_idl() {
    let spec = parse_file(&root().join("idl/shape.idl"), &[]).unwrap();
    let ours = type_representation(&spec.model, "ShapeType").unwrap();
    assert_eq!(&ours, crate::types::ShapeType::type_representation());
}
