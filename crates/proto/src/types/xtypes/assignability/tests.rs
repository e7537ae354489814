use super::*;
use crate::idl::to_type_object;
use crate::types::xtypes::TypeRepresentation;

/// One type, given as IDL, with its decoded TypeObjects.
struct Ty {
    rep: TypeRepresentation,
    objects: Vec<(TypeIdentifier, TypeObject)>,
}

fn ty(idl: &str, name: &str) -> Ty {
    let (rep, objects) = to_type_object::of_idl_text(idl, name);
    Ty { rep, objects }
}

impl Ty {
    fn id(&self, complete: bool) -> &TypeIdentifier {
        let i = &self.rep.information;
        match complete {
            true => &i.complete.typeid_with_size.type_id,
            false => &i.minimal.typeid_with_size.type_id,
        }
    }

    fn get(&self, id: &TypeIdentifier) -> Option<&TypeObject> {
        self.objects.iter().find(|(i, _)| i == id).map(|(_, o)| o)
    }
}

/// Checks `writer` against `reader` with both kinds of TypeObjects (complete, minimal) and
/// both mixed, and requires them to agree; returns the complete one's answer.
fn check_with(reader: &Ty, writer: &Ty, rules: AssignabilityRules) -> Result<(), NotAssignable> {
    let rl = |id: &TypeIdentifier| reader.get(id);
    let wl = |id: &TypeIdentifier| writer.get(id);
    let run = |rc: bool, wc: bool| is_assignable((reader.id(rc), &rl), (writer.id(wc), &wl), rules);
    let complete = run(true, true);
    for (rc, wc) in [(false, false), (true, false), (false, true)] {
        assert_eq!(
            run(rc, wc).is_ok(),
            complete.is_ok(),
            "kinds {rc}/{wc} disagree: {complete:?}"
        );
    }
    complete
}

fn check(reader: &Ty, writer: &Ty) -> Result<(), NotAssignable> {
    check_with(reader, writer, AssignabilityRules::default())
}

fn reason(r: Result<(), NotAssignable>) -> String {
    r.unwrap_err().0
}

const PROBE: &str = "@appendable struct Probe { @key long id; long x; string<8> s; };";

#[test]
fn a_type_is_assignable_to_itself() {
    let a = ty(PROBE, "Probe");
    assert_eq!(check(&a, &a), Ok(()));
    let rich = ty(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/xtypes/rich.idl"),
        )
        .unwrap(),
        "rich::Sample",
    );
    assert_eq!(check(&rich, &rich), Ok(()));
}

#[test]
fn different_member_types_under_one_name_are_not_assignable() {
    let reader = ty(PROBE, "Probe");
    let writer = ty(
        "@appendable struct Probe { @key long id; string x; string<8> s; };",
        "Probe",
    );
    let why = reason(check(&reader, &writer));
    assert!(why.contains("Probe.x"), "{why}");
    assert!(why.contains("int32 is not assignable from string"), "{why}");
}

#[test]
fn an_appendable_writer_with_an_added_member_is_assignable() {
    let reader = ty(PROBE, "Probe");
    let writer = ty(
        "@appendable struct Probe { @key long id; long x; string<8> s; double added; };",
        "Probe",
    );
    assert_eq!(check(&reader, &writer), Ok(()));
    // And the other way: the reader's added member gets its default.
    assert_eq!(check(&writer, &reader), Ok(()));
    // Unless the writer's type may not be wider.
    let strict = AssignabilityRules {
        prevent_type_widening: true,
        ..AssignabilityRules::default()
    };
    let why = reason(check_with(&reader, &writer, strict));
    assert!(why.contains("Probe.added"), "{why}");
    assert_eq!(check_with(&writer, &reader, strict), Ok(()));
}

#[test]
fn appendable_members_are_added_at_the_end_only() {
    let reader = ty(PROBE, "Probe");
    let writer = ty(
        "@appendable struct Probe { @key long id; double added; long x; string<8> s; };",
        "Probe",
    );
    assert!(check(&reader, &writer).is_err());
}

#[test]
fn final_types_need_the_same_members() {
    let reader = ty("@final struct P { long x; long y; };", "P");
    let writer = ty("@final struct P { long x; long y; long z; };", "P");
    let why = reason(check(&reader, &writer));
    assert!(why.contains("final"), "{why}");
    assert_eq!(check(&reader, &reader), Ok(()));
}

#[test]
fn extensibility_must_agree() {
    let reader = ty("@final struct P { long x; };", "P");
    let writer = ty("@appendable struct P { long x; };", "P");
    let why = reason(check(&reader, &writer));
    assert!(why.contains("final, the writer's appendable"), "{why}");
}

#[test]
fn mutable_members_match_by_id_in_any_order() {
    let reader = ty(
        "@mutable struct M { @id(1) long a; @id(2) string b; @id(3) double c; };",
        "M",
    );
    let writer = ty(
        "@mutable struct M { @id(3) double c; @id(1) long a; @id(4) short d; };",
        "M",
    );
    assert_eq!(check(&reader, &writer), Ok(()));
    // The same id with another name is a different member.
    let renamed = ty(
        "@mutable struct M { @id(1) long z; @id(3) double c; };",
        "M",
    );
    let why = reason(check(&reader, &renamed));
    assert!(why.contains("named differently"), "{why}");
    let lenient = AssignabilityRules {
        ignore_member_names: true,
        ..AssignabilityRules::default()
    };
    assert_eq!(check_with(&reader, &renamed, lenient), Ok(()));
}

#[test]
fn key_members_must_agree() {
    let reader = ty(PROBE, "Probe");
    let writer = ty(
        "@appendable struct Probe { long id; long x; string<8> s; };",
        "Probe",
    );
    let why = reason(check(&reader, &writer));
    assert!(why.contains("Probe.id") && why.contains("key"), "{why}");
    let m1 = ty(
        "@mutable struct K { @id(1) @key long a; @id(2) long b; };",
        "K",
    );
    let m2 = ty("@mutable struct K { @id(2) long b; };", "K");
    let why = reason(check(&m1, &m2));
    assert!(why.contains("key member missing"), "{why}");
    let why = reason(check(&m2, &m1));
    assert!(why.contains("key member missing"), "{why}");
}

#[test]
fn types_with_no_member_in_common_are_not_assignable() {
    let reader = ty("@mutable struct M { @id(1) long a; };", "M");
    let writer = ty("@mutable struct M { @id(2) long b; };", "M");
    let why = reason(check(&reader, &writer));
    assert!(why.contains("no member in common"), "{why}");
}

#[test]
fn bounds_are_ignored_by_default_and_checked_when_asked() {
    let reader = ty(
        "@appendable struct B { string<8> s; sequence<long, 4> q; };",
        "B",
    );
    let writer = ty(
        "@appendable struct B { string<16> s; sequence<long, 10> q; };",
        "B",
    );
    assert_eq!(check(&reader, &writer), Ok(()));
    let strings = AssignabilityRules {
        ignore_string_bounds: false,
        ..AssignabilityRules::default()
    };
    let why = reason(check_with(&reader, &writer, strings));
    assert!(why.contains("B.s: string bound 8"), "{why}");
    let sequences = AssignabilityRules {
        ignore_sequence_bounds: false,
        ..AssignabilityRules::default()
    };
    let why = reason(check_with(&reader, &writer, sequences));
    assert!(why.contains("B.q: sequence bound 4"), "{why}");
    // A larger reader bound takes the writer's data.
    assert_eq!(check_with(&writer, &reader, strings), Ok(()));
    assert_eq!(check_with(&writer, &reader, sequences), Ok(()));
    // Arrays need the same dimensions whatever the options.
    let a1 = ty("@final struct A { long v[3]; };", "A");
    let a2 = ty("@final struct A { long v[4]; };", "A");
    assert!(reason(check(&a1, &a2)).contains("array dimensions"));
}

#[test]
fn enums_compare_their_enumerators() {
    let reader = ty(
        "@final enum Color { RED, GREEN, BLUE }; @final struct E { Color c; };",
        "E",
    );
    let same = ty(
        "@final enum Color { RED, GREEN, BLUE }; @final struct E { Color c; };",
        "E",
    );
    assert_eq!(check(&reader, &same), Ok(()));
    let more = ty(
        "@final enum Color { RED, GREEN, BLUE, CYAN }; @final struct E { Color c; };",
        "E",
    );
    assert!(reason(check(&reader, &more)).contains("E.c: final enums"));
    let swapped = ty(
        "@final enum Color { GREEN, RED, BLUE }; @final struct E { Color c; };",
        "E",
    );
    let why = reason(check(&reader, &swapped));
    assert!(why.contains("enumerator RED is 0"), "{why}");
    let not_enum = ty("@final struct E { long c; };", "E");
    assert!(reason(check(&reader, &not_enum)).contains("E.c: enum Color"));
}

#[test]
fn unions_compare_discriminators_and_cases() {
    let u = |body: &str| {
        ty(
            &format!(
                "@appendable union U switch (long) {{ {body} }}; @appendable struct S {{ U u; }};"
            ),
            "S",
        )
    };
    let reader = u("case 1: long i; case 2: string s;");
    assert_eq!(
        check(&reader, &u("case 1: long i; case 2: string s;")),
        Ok(())
    );
    let why = reason(check(&reader, &u("case 1: long i; case 2: double s;")));
    assert!(why.contains("S.u.s"), "{why}");
}

#[test]
fn aliases_are_resolved_and_structs_nest() {
    let reader = ty(
        "@final struct P { long x; }; @appendable struct T { P p; sequence<P> ps; };",
        "T",
    );
    let writer = ty(
        "@final struct P { double x; }; @appendable struct T { P p; sequence<P> ps; };",
        "T",
    );
    let why = reason(check(&reader, &writer));
    assert!(
        why.contains("T.p.x: int32 is not assignable from double"),
        "{why}"
    );
    let aliased = ty(
        "typedef long Len; @final struct P { Len x; }; @appendable struct T { P p; sequence<P> ps; };",
        "T",
    );
    assert_eq!(check(&reader, &aliased), Ok(()));
}

#[test]
fn a_missing_type_object_is_a_reason_not_a_panic() {
    let reader = ty(PROBE, "Probe");
    let rl = |id: &TypeIdentifier| reader.get(id);
    let none = |_: &TypeIdentifier| None;
    let r = is_assignable(
        (reader.id(true), &rl),
        (&TypeIdentifier::Complete([1; 14]), &none),
        AssignabilityRules::default(),
    );
    assert!(reason(r).contains("is not known"));
}

#[test]
fn a_wide_type_graph_is_compared_once_per_pair_of_types() {
    // Ten levels of a struct with two members of the level below: 2^10 paths, proven pairs
    // keep it linear; a budget bounds what is left.
    let mut idl = String::from("@final struct L0 { long v; };");
    for i in 1..=10 {
        idl.push_str(&format!(
            "@final struct L{i} {{ L{} a; L{} b; }};",
            i - 1,
            i - 1
        ));
    }
    let a = ty(&idl, "L10");
    let b = ty(&idl.replace("long v", "short v"), "L10");
    assert!(reason(check(&a, &b)).contains("L10.a.a.a.a.a.a.a.a.a.a.v"));
    let c = ty(&idl.replace("long v", "long v; long w"), "L10");
    assert!(check(&a, &c).is_err());
}
