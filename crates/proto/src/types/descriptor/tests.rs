use super::*;
use crate::types::ShapeType;
use crate::types::shape::COLOR_BOUND;

#[test]
fn shape_type_descriptor_matches_idl() {
    let d = ShapeType::descriptor();
    assert_eq!(d.name, "ShapeType");
    assert_eq!(d.extensibility, Extensibility::Appendable);
    let names: Vec<_> = d.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        ["color", "x", "y", "shapesize", "additional_payload_size"]
    );
    let ids: Vec<_> = d.members.iter().map(|m| m.id).collect();
    assert_eq!(ids, [0, 1, 2, 3, 4]);
    let keys: Vec<_> = d.members.iter().map(|m| m.key).collect();
    assert_eq!(keys, [true, false, false, false, false]);
    assert!(d.members.iter().all(|m| !m.optional));
    assert_eq!(
        d.members[0].kind,
        TypeKind::String {
            bound: Some(COLOR_BOUND as u32)
        }
    );
    for m in &d.members[1..4] {
        assert_eq!(m.kind, TypeKind::I32);
    }
    assert_eq!(
        d.members[4].kind,
        TypeKind::Sequence {
            elem: Box::new(TypeKind::U8),
            bound: None
        }
    );
    assert_eq!(d.member("y").map(|(i, _)| i), Some(2));
    assert_eq!(d.depth(), 3);
    assert!(std::ptr::eq(d, ShapeType::descriptor()), "built once");
}

#[test]
fn enum_labels_map_both_ways() {
    let e = EnumDescriptor {
        name: "Color".into(),
        labels: vec![("RED".into(), 0), ("GREEN".into(), 5)],
    };
    assert_eq!(e.value_of("GREEN"), Some(5));
    assert_eq!(e.value_of("BLUE"), None);
    assert_eq!(e.label_of(0), Some("RED"));
    assert_eq!(e.label_of(1), None);
}
