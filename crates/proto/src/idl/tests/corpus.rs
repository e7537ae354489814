//! `idl/shape.idl` and the construct corpus `idl/test_types.idl`.

use std::path::PathBuf;

use crate::filter::Program;
use crate::idl::model::{ConstValue, Decl, Ty};
use crate::idl::resolve::hash_id;
use crate::idl::{IdlSpec, descriptor, descriptors, parse_file};
use crate::types::{Extensibility, ShapeType, TypeKind};

fn idl_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/idl"))
}

fn corpus() -> IdlSpec {
    parse_file(&idl_dir().join("test_types.idl"), &[idl_dir()]).unwrap()
}

fn const_value(spec: &IdlSpec, name: &str) -> ConstValue {
    match spec.model.get(name) {
        Some(Decl::Const { value, .. }) => value.clone(),
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn shape_idl_matches_the_hand_written_descriptor() {
    let spec = parse_file(&idl_dir().join("shape.idl"), &[]).unwrap();
    assert_eq!(descriptors(&spec), [ShapeType::descriptor().clone()]);
    assert!(spec.warnings.is_empty());
}

#[test]
fn corpus_constants_evaluate() {
    let spec = corpus();
    let int = |n: &str| match const_value(&spec, n) {
        ConstValue::Int(v) => v,
        other => panic!("{n}: {other:?}"),
    };
    assert_eq!(int("corpus::S"), -3);
    assert_eq!(int("corpus::US"), 0xFFFF);
    assert_eq!(int("corpus::L"), 19);
    assert_eq!(int("corpus::UL"), 0xFFFF_FFFF);
    assert_eq!(int("corpus::LL"), 1_000_000_000_000);
    assert_eq!(int("corpus::ULL"), 0xFFFF_FFFF_FFFF_FFFF);
    assert_eq!(int("corpus::I8"), -128);
    assert_eq!(int("corpus::I16"), 6);
    assert_eq!(int("corpus::U64"), 14);
    assert_eq!(int("corpus::BOUND"), 8);
    assert_eq!(const_value(&spec, "corpus::D"), ConstValue::Float(1250.0));
    assert_eq!(const_value(&spec, "corpus::LD"), ConstValue::Float(3.0));
    assert_eq!(const_value(&spec, "corpus::WC"), ConstValue::Char('y'));
    assert_eq!(const_value(&spec, "corpus::B"), ConstValue::Bool(true));
    assert_eq!(
        const_value(&spec, "corpus::STR"),
        ConstValue::Str("concat".into())
    );
    assert_eq!(
        const_value(&spec, "corpus::FAVOURITE"),
        ConstValue::Enum {
            ty: "corpus::Color".into(),
            label: "BLUE".into(),
            value: 10
        }
    );
}

#[test]
fn corpus_types_resolve() {
    let spec = corpus();
    match spec.model.get("corpus::Color") {
        Some(Decl::Enum { enumerators, .. }) => {
            let values: Vec<i32> = enumerators.iter().map(|(_, v)| *v).collect();
            assert_eq!(values, [0, 1, 10, 11]);
        }
        other => panic!("{other:?}"),
    }
    let ty = |n: &str| match spec.model.get(n) {
        Some(Decl::Typedef { ty, .. }) => ty.clone(),
        other => panic!("{n}: {other:?}"),
    };
    let long_seq = Ty::Sequence {
        elem: Box::new(Ty::Prim(crate::idl::ast::Primitive::I32)),
        bound: Some(8),
    };
    assert_eq!(ty("corpus::LongSeqAlias"), long_seq);
    assert_eq!(
        ty("corpus::Names"),
        Ty::Array {
            elem: Box::new(Ty::String { bound: Some(16) }),
            dims: vec![4]
        }
    );
    assert_eq!(
        ty("corpus::inner::PointAlias"),
        Ty::Struct("corpus::inner::Point".into())
    );
    let hashed = spec.model.struct_type("corpus::Hashed").unwrap();
    let ids: Vec<u32> = hashed.members.iter().map(|m| m.id).collect();
    assert_eq!(
        ids,
        [hash_id("alpha"), hash_id("beta"), hash_id("renamed"), 3]
    );
    assert_eq!(ids[..3], [0x0343_172c, 0x00ca_7b98, 0x0a36_caac]); // MD5, computed independently
    assert_eq!(hashed.extensibility, Extensibility::Final);
    let choice = spec.model.union_type("corpus::Choice").unwrap();
    assert!(choice.key_discriminator);
    let labels: Vec<(Vec<i64>, bool, u32)> = choice
        .cases
        .iter()
        .map(|c| (c.labels.clone(), c.default, c.member.id))
        .collect();
    assert_eq!(
        labels,
        [
            (vec![0, 1], false, 1),
            (vec![10], false, 2),
            (vec![], true, 3)
        ]
    );
    let by_char = spec.model.union_type("corpus::ByChar").unwrap();
    let cases: Vec<(Vec<i64>, bool)> = by_char
        .cases
        .iter()
        .map(|c| (c.labels.clone(), c.default))
        .collect();
    assert_eq!(cases, [(vec![97], false), (vec![98], true)]);
    let all = spec.model.struct_type("corpus::AllPrimitives").unwrap();
    assert!(all.topic && all.members.len() == 20);
    assert_eq!(
        all.members.iter().map(|m| m.id).take(3).collect::<Vec<_>>(),
        [100, 101, 102]
    );
    assert!(
        spec.model
            .struct_type("corpus::inner::Point")
            .unwrap()
            .nested
    );
    assert_eq!(
        spec.warnings,
        [format!(
            "{}:126:9: unknown annotation @unknown_annotation ignored",
            idl_dir().join("test_types.idl").display()
        )]
    );
}

#[test]
fn corpus_descriptors_include_inherited_keys_and_skip_what_they_cannot_describe() {
    let spec = corpus();
    let names: Vec<String> = descriptors(&spec).into_iter().map(|d| d.name).collect();
    assert_eq!(
        names,
        [
            "base::Header",
            "corpus::inner::Point",
            "corpus::AllPrimitives",
            "corpus::Hashed",
            "corpus::Derived",
            "corpus::Empty"
        ]
    );
    let derived = descriptor(&spec, "corpus::Derived").unwrap();
    assert_eq!(
        derived.extensibility,
        Extensibility::Final,
        "inherited from base::Header"
    );
    let keys: Vec<(&str, u32)> = derived
        .members
        .iter()
        .filter(|m| m.key)
        .map(|m| (m.name.as_str(), m.id))
        .collect();
    assert_eq!(keys, [("source", 0), ("stamp", 2)]);
    let (_, color) = derived.member("color").unwrap();
    assert!(color.optional && matches!(color.kind, TypeKind::Enum(_)));
    let (_, cube) = derived.member("cube").unwrap();
    assert_eq!(
        cube.kind,
        TypeKind::Array {
            elem: Box::new(TypeKind::I32),
            dims: vec![2, 2, 2]
        }
    );
    let (_, pair) = derived.member("bounded_pair").unwrap();
    assert!(matches!(pair.kind, TypeKind::Array { .. }));
    assert!(derived.member("module").is_some(), "escaped identifier");
    let (_, choice) = derived.member("choice").unwrap();
    let TypeKind::Union(u) = &choice.kind else {
        panic!("{:?}", choice.kind)
    };
    assert_eq!(u.cases.len(), 3);
    let wide = descriptor(&spec, "corpus::Wide").unwrap_err();
    assert!(wide.message.contains("member 'wc': wchar"), "{wide}");
    let node = descriptor(&spec, "corpus::Node").unwrap_err();
    assert!(
        node.message.contains("recursive type 'corpus::Node'"),
        "{node}"
    );
}

#[test]
fn filters_on_types_with_unions_are_rejected_at_compile_time() {
    let spec = corpus();
    let derived = descriptor(&spec, "corpus::Derived").unwrap();
    let e = Program::compile_expression("stamp = 1", &[], &derived).unwrap_err();
    assert!(e.to_string().contains("union"), "{e}");
    let header = descriptor(&spec, "base::Header").unwrap();
    assert!(Program::compile_expression("source = 1", &[], &header).is_ok());
}
