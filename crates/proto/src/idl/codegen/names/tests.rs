use super::*;

#[test]
fn paths_are_relative_to_the_current_module() {
    let here = vec!["a".to_owned(), "b".to_owned()];
    assert_eq!(path_to(&here, "a::b::C"), "C");
    assert_eq!(path_to(&here, "a::c::D"), "super::c::D");
    assert_eq!(path_to(&here, "X"), "super::super::X");
    assert_eq!(path_to(&[], "m::type::T"), "m::r#type::T");
}

#[test]
fn identifiers_and_variants() {
    assert_eq!(ident("type"), "r#type");
    assert_eq!(ident("self"), "self_");
    assert_eq!(upper_camel("RED_ALERT"), "RedAlert");
    assert_eq!(upper_camel("where"), "Where");
    assert_eq!(upper_camel("redAlert"), "RedAlert");
    assert_eq!(upper_camel("_1"), "V1");
    assert_eq!(
        variant_names(&["RED", "light_blue"], &[]),
        ["Red", "LightBlue"]
    );
    assert_eq!(variant_names(&["RED", "Red"], &[]), ["RED", "Red"]);
    assert_eq!(variant_names(&["no_member"], &["NoMember"]), ["no_member"]);
}
