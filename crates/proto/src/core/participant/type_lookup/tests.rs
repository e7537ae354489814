use super::*;
use crate::idl::{MemLoader, parse_with, to_type_object};
use crate::types::ShapeType;

fn leak(rep: TypeRepresentation) -> &'static TypeRepresentation {
    Box::leak(Box::new(rep))
}

fn nested() -> &'static TypeRepresentation {
    let idl = "@final struct P { long x; }; @appendable struct T { P a; sequence<P> b; };";
    let loader = MemLoader::new().with("t.idl", idl);
    let spec = parse_with(&loader, std::path::Path::new("t.idl"), &[]).unwrap();
    leak(to_type_object::type_representation(&spec.model, "T").unwrap())
}

#[test]
fn local_types_serve_objects_and_dependencies_by_identifier() {
    let mut types = LocalTypes::default();
    let shape = ShapeType::type_representation();
    let t = nested();
    types.register("ShapeType", shape);
    types.register("T", t);
    assert_eq!(
        types.information("ShapeType"),
        Some(shape.information_bytes.as_slice())
    );
    for (id, bytes) in shape.objects.iter().chain(&t.objects) {
        assert_eq!(types.object(id), Some(bytes.as_slice()));
    }
    // T depends on P: one minimal and one complete dependency, each asked for by kind.
    let min = &t.information.minimal;
    let com = &t.information.complete;
    assert_eq!(min.dependent_typeid_count, 1);
    let ids = [min.typeid_with_size.type_id.clone()];
    assert_eq!(types.dependencies(&ids), min.dependent_typeids);
    let ids = [com.typeid_with_size.type_id.clone()];
    assert_eq!(types.dependencies(&ids), com.dependent_typeids);
    assert!(
        types
            .dependencies(&[TypeIdentifier::Minimal([0; 14])])
            .is_empty()
    );
}

#[test]
fn local_types_are_bounded_and_the_first_registration_wins() {
    let mut types = LocalTypes::default();
    let shape = ShapeType::type_representation();
    let t = nested();
    types.register("X", shape);
    types.register("X", t);
    assert_eq!(
        types.information("X"),
        Some(shape.information_bytes.as_slice())
    );
    for i in 0..MAX_LOCAL_TYPES + 10 {
        types.register(&format!("T{i}"), t);
    }
    assert_eq!(types.by_name.len(), MAX_LOCAL_TYPES);
}
