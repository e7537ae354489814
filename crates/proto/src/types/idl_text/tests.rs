use super::*;
use crate::idl::to_type_object;
use crate::types::xtypes::to_descriptor::type_descriptor;
use crate::types::xtypes::{TypeIdentifier, TypeRepresentation};

fn representation(idl: &str, name: &str) -> TypeRepresentation {
    to_type_object::of_idl_text(idl, name).0
}

/// The descriptor a TypeLookup client builds from the complete TypeObjects of `name` in
/// `idl`.
fn fetched(idl: &str, name: &str) -> (TypeRepresentation, TypeDescriptor) {
    let (rep, objects) = to_type_object::of_idl_text(idl, name);
    let lookup = |id: &TypeIdentifier| objects.iter().find(|(i, _)| i == id).map(|(_, o)| o);
    let d = type_descriptor(&lookup, &rep.information.complete.typeid_with_size.type_id).unwrap();
    (rep, d)
}

#[test]
fn the_idl_of_a_fetched_type_describes_the_same_type() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/xtypes/rich.idl");
    let rich = std::fs::read_to_string(path).unwrap();
    let (rep, d) = fetched(&rich, "rich::Sample");
    let idl = to_idl(&d);
    for want in [
        "module rich {",
        "  enum Color {",
        "  @final",
        "  struct Point {",
        "  union Value switch (long) {",
        "    case 2:",
        "    default:",
        "  @mutable",
        "    @key @id(5) long ident;",
        "    @optional @id(13) string<32> label;",
        "    @id(16) short grid[3][4];",
        "    @id(12) sequence<rich::Point> points;",
    ] {
        assert!(idl.lines().any(|l| l == want), "no {want:?} in\n{idl}");
    }
    // Each type once, dependencies first.
    assert_eq!(idl.matches("struct Point").count(), 1);
    assert!(idl.find("struct Point").unwrap() < idl.find("struct Sample").unwrap());
    // Parsed again, it gives the very same type (the same complete and minimal hashes).
    let again = representation(&idl, "rich::Sample");
    assert_eq!(again.information, rep.information, "\n{idl}");
}

#[test]
fn enum_discriminators_are_labelled_by_enumerator() {
    let idl = "module m { enum E { A, B }; union U switch (E) { case A: long a; case B: string b; }; \
               @appendable struct S { U u; }; };";
    let (rep, d) = fetched(idl, "m::S");
    let text = to_idl(&d);
    assert!(text.contains("case m::B:"), "{text}");
    assert_eq!(
        representation(&text, "m::S").information,
        rep.information,
        "\n{text}"
    );
}
