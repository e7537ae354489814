//! Compiled evaluator tests: compile errors, ShapeType payloads in both byte orders and both
//! XCDR versions (XCDR2 = D_CDR2 with a DHEADER, the type being appendable), a nested
//! type in XCDR1 and XCDR2, agreement with the reference evaluator, projections, memoization.

use proptest::prelude::*;

use super::super::{
    Ast, EvalError, FieldPath, FieldSource, FilterErrorKind, Literal, Program, Value,
    parse_parameters,
};
use crate::cdr::{CdrWriter, EncapsulationHeader, EncapsulationKind, Endianness, XcdrVersion};
use crate::memo::Memo;
use crate::types::{
    EnumDescriptor, Extensibility, Member, ShapeType, TopicType, TypeDescriptor, TypeKind,
    XcdrVersion as Repr,
};

fn shape(color: &str, x: i32, y: i32, shapesize: i32, extra: &[u8]) -> ShapeType {
    ShapeType {
        color: color.into(),
        x,
        y,
        shapesize,
        additional_payload_size: extra.to_vec(),
    }
}

fn program(text: &str, params: &[&str]) -> Program {
    let params = parse_parameters(params).unwrap();
    Program::compile_expression(text, &params, ShapeType::descriptor())
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The reference evaluator's view of a ShapeType.
struct Fields<'a>(&'a ShapeType);

impl FieldSource for Fields<'_> {
    fn field(&self, path: &FieldPath) -> Option<Value> {
        let [seg] = path.segments.as_slice() else {
            return None;
        };
        let s = self.0;
        Some(match (seg.name.as_str(), seg.indices.as_slice()) {
            ("color", []) => Value::Str(s.color.clone()),
            ("x", []) => Value::Int(s.x.into()),
            ("y", []) => Value::Int(s.y.into()),
            ("shapesize", []) => Value::Int(s.shapesize.into()),
            ("additional_payload_size", [i]) => {
                Value::UInt((*s.additional_payload_size.get(*i as usize)?).into())
            }
            _ => return None,
        })
    }
}

const ENDIANS: [Endianness; 2] = [Endianness::Little, Endianness::Big];

/// `s` in every encoding ShapeType writes: XCDR1 and XCDR2 (D_CDR2), both byte orders.
fn encodings(s: &ShapeType) -> Vec<(Repr, Endianness, Vec<u8>)> {
    let mut out = Vec::new();
    for v in [Repr::Xcdr1, Repr::Xcdr2] {
        for e in ENDIANS {
            out.push((v, e, s.serialize_as(v, e).unwrap()));
        }
    }
    out
}

#[test]
fn shape_filters_in_both_byte_orders_and_xcdr_versions() {
    let red = shape("RED", 12, 3, 20, &[5, 6]);
    let blue = shape("BLUE", 3, 3, 30, &[]);
    let cases: &[(&str, &[&str], bool, bool)] = &[
        ("color = 'RED'", &[], true, false),
        ("x > 10 AND shapesize <= 20", &[], true, false),
        ("color LIKE 'B%'", &[], false, true),
        ("NOT (x BETWEEN 1 AND 5)", &[], true, false),
        ("x NOT BETWEEN 1 AND 5", &[], true, false),
        ("color = %0", &["'RED'"], true, false),
        ("color = %0", &["RED"], true, false),
        ("shapesize > 2.5e1 OR y = 3", &[], true, true),
        ("additional_payload_size[1] = 6", &[], true, false),
        // Index past the end: missing, so never passes, even negated.
        ("NOT additional_payload_size[0] = 1", &[], true, false),
        ("y = x OR color <> 'RED'", &[], false, true),
    ];
    for &(text, params, want_red, want_blue) in cases {
        let p = program(text, params);
        for (v, e, bytes) in encodings(&red) {
            assert_eq!(
                p.evaluate(&bytes),
                Ok(want_red),
                "{text} on red {v:?} {e:?}"
            );
        }
        for (v, e, bytes) in encodings(&blue) {
            assert_eq!(
                p.evaluate(&bytes),
                Ok(want_blue),
                "{text} on blue {v:?} {e:?}"
            );
        }
    }
}

#[test]
fn compile_errors_name_the_problem_and_position() {
    let err =
        |text: &str| Program::compile_expression(text, &[], ShapeType::descriptor()).unwrap_err();
    let e = err("x = 1 AND colour = 'RED'");
    assert_eq!((e.position, e.kind), (10, FilterErrorKind::UnknownField));
    let e = err("x LIKE 'a%'");
    assert_eq!(e.position, 0);
    assert!(matches!(e.kind, FilterErrorKind::TypeMismatch(_)), "{e}");
    assert!(matches!(
        err("y = 1 OR color = 5").kind,
        FilterErrorKind::TypeMismatch(_)
    ));
    assert!(matches!(
        err("x.y = 1").kind,
        FilterErrorKind::TypeMismatch(_)
    ));
    assert!(matches!(
        err("x[0] = 1").kind,
        FilterErrorKind::TypeMismatch(_)
    ));
    assert!(matches!(
        err("additional_payload_size = 1").kind,
        FilterErrorKind::TypeMismatch(_)
    ));
    assert!(matches!(err("x").kind, FilterErrorKind::TypeMismatch(_)));
    assert!(matches!(
        err("color MATCH 'R(.*'").kind,
        FilterErrorKind::Invalid(_)
    ));
    assert!(matches!(
        err("x MATCH '1'").kind,
        FilterErrorKind::TypeMismatch(_)
    ));
    // A pattern whose compiled program exceeds the bound is refused, not built.
    assert!(matches!(
        err("color MATCH '(((a{1,100}){1,100}){1,100})'").kind,
        FilterErrorKind::Unsupported(_)
    ));
    // Without text, positions are 0.
    let ast = Ast::parse("y = 1 AND nope = 2").unwrap().bind(&[]).unwrap();
    let e = Program::compile(&ast, ShapeType::descriptor()).unwrap_err();
    assert_eq!((e.position, e.kind), (0, FilterErrorKind::UnknownField));
}

#[test]
fn referenced_fields_are_deduplicated_in_first_use_order() {
    let p = program("shapesize > 1 AND (color = 'A' OR shapesize < 9)", &[]);
    let names: Vec<String> = p
        .referenced_fields()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(names, ["shapesize", "color"]);
}

#[test]
fn vendor_four_member_form_has_a_missing_sequence_and_bad_payloads_are_errors() {
    let vendor = [
        0, 1, 0, 0, 4, 0, 0, 0, b'R', b'E', b'D', 0, 10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0,
    ];
    assert_eq!(program("shapesize = 30", &[]).evaluate(&vendor), Ok(true));
    let p = program("NOT additional_payload_size[0] = 1", &[]);
    assert_eq!(p.evaluate(&vendor), Ok(false));
    // A truncated sample never passes: cut at a member boundary of the appendable type, the
    // rest is missing; cut inside a value (header, color, shapesize), it is an error.
    let bytes = shape("BLUE", 1, 2, 3, &[]).serialize(Endianness::Little);
    let p = program("shapesize = 3", &[]);
    assert_eq!(p.evaluate(&bytes), Ok(true));
    // Bytes after the last referenced member (the sequence, from 28) are not read.
    for cut in 0..28 {
        let got = p.evaluate(bytes.get(..cut).unwrap());
        assert_ne!(got, Ok(true), "cut {cut}");
        if matches!(cut, 1..=3 | 5..=11 | 25..=27) {
            assert!(got.is_err(), "cut {cut}");
        }
    }
    let mut long = shape(&"R".repeat(129), 0, 0, 0, &[]).serialize(Endianness::Big);
    assert!(matches!(
        program("color = 'R'", &[]).evaluate(&long),
        Err(EvalError::Malformed(_))
    ));
    long[1] = 0x0a; // PL_CDR2_BE
    assert!(matches!(
        program("x = 0", &[]).evaluate(&long),
        Err(EvalError::Unsupported(_))
    ));
}

// ---- a nested type in XCDR1 and XCDR2 -----------------------------------------------------

fn color_enum() -> EnumDescriptor {
    EnumDescriptor {
        name: "Color".into(),
        labels: vec![("RED".into(), 0), ("GREEN".into(), 7)],
    }
}

/// `@appendable struct Outer { int8 a; Inner inner; sequence<string> tags; double d[2][2];
/// Color kind; [@optional int16 opt;] boolean flag; }` with `@appendable struct Inner
/// { string name; int64 v; }`.
fn outer(with_opt: bool) -> TypeDescriptor {
    let inner = TypeDescriptor {
        name: "Inner".into(),
        extensibility: Extensibility::Appendable,
        members: vec![
            Member::new("name", 0, TypeKind::String { bound: None }),
            Member::new("v", 1, TypeKind::I64),
        ],
    };
    let mut members = vec![
        Member::new("a", 0, TypeKind::I8),
        Member::new("inner", 1, TypeKind::Struct(Box::new(inner))),
        Member::new(
            "tags",
            2,
            TypeKind::Sequence {
                elem: Box::new(TypeKind::String { bound: None }),
                bound: Some(4),
            },
        ),
        Member::new(
            "d",
            3,
            TypeKind::Array {
                elem: Box::new(TypeKind::F64),
                dims: vec![2, 2],
            },
        ),
        Member::new("kind", 4, TypeKind::Enum(color_enum())),
    ];
    if with_opt {
        members.push(Member::new("opt", 5, TypeKind::I16).optional());
    }
    members.push(Member::new("flag", 6, TypeKind::Bool));
    TypeDescriptor {
        name: "Outer".into(),
        extensibility: Extensibility::Appendable,
        members,
    }
}

/// Writes `body` behind a DHEADER (XCDR2) or as is (XCDR1).
fn delimited(w: &mut CdrWriter<'_>, xcdr: XcdrVersion, body: impl FnOnce(&mut CdrWriter<'_>)) {
    if xcdr == XcdrVersion::Xcdr1 {
        return body(w);
    }
    let mut inner = Vec::new();
    let mut iw = CdrWriter::new(&mut inner, w.endian());
    iw.set_xcdr(xcdr);
    body(&mut iw);
    w.align(4);
    w.u32(inner.len() as u32);
    w.bytes(&inner);
}

fn encode_outer(e: Endianness, xcdr: XcdrVersion, opt: Option<Option<i16>>) -> Vec<u8> {
    let kind = match xcdr {
        XcdrVersion::Xcdr1 => EncapsulationKind::Cdr,
        XcdrVersion::Xcdr2 => EncapsulationKind::DCdr2,
    };
    let mut out = Vec::new();
    EncapsulationHeader::new(kind, e).emit(&mut CdrWriter::new(&mut out, e));
    let mut w = CdrWriter::new(&mut out, e);
    w.set_xcdr(xcdr);
    delimited(&mut w, xcdr, |w| {
        w.u8(0xfe); // a = -2
        delimited(w, xcdr, |w| {
            w.string(b"inner");
            w.align_prim(8);
            w.i64(-40);
        });
        delimited(w, xcdr, |w| {
            w.align(4);
            w.u32(2);
            w.string(b"alpha");
            w.string(b"beta");
        });
        for v in [0.5f64, 1.5, 2.5, 3.5] {
            w.align_prim(8);
            w.u64(v.to_bits());
        }
        w.align(4);
        w.i32(7); // GREEN
        if let Some(opt) = opt {
            w.u8(u8::from(opt.is_some()));
            if let Some(v) = opt {
                w.align(2);
                w.i16(v);
            }
        }
        w.u8(1);
    });
    out
}

#[test]
fn nested_type_in_xcdr1_and_xcdr2() {
    let cases: &[(&str, bool)] = &[
        ("a = -2", true),
        ("inner.v < -39 AND inner.name = 'inner'", true),
        ("tags[1] LIKE 'b?t*'", true),
        ("tags[2] = 'x' OR tags[0] <> 'alpha'", false),
        ("d[1][0] = 2.5 AND d[0][1] BETWEEN 1 AND 2", true),
        ("kind = 'GREEN' AND kind = 7 AND kind > 6", true),
        ("kind <> 'RED' AND flag AND flag = TRUE", true),
        ("NOT flag", false),
    ];
    for (with_opt, xcdr, opt) in [
        (false, XcdrVersion::Xcdr1, None),
        (true, XcdrVersion::Xcdr2, Some(Some(-5))),
        (true, XcdrVersion::Xcdr2, Some(None)),
    ] {
        let desc = outer(with_opt);
        for e in ENDIANS {
            let bytes = encode_outer(e, xcdr, opt);
            for &(text, want) in cases {
                let p = Program::compile_expression(text, &[], &desc).unwrap();
                assert_eq!(
                    p.evaluate(&bytes),
                    Ok(want),
                    "{text} {xcdr:?} {e:?} opt {opt:?}"
                );
            }
            if with_opt {
                let p = Program::compile_expression("opt = -5 OR opt <> -5", &[], &desc).unwrap();
                assert_eq!(p.evaluate(&bytes), Ok(opt == Some(Some(-5))));
            }
        }
    }
    let desc = outer(true);
    let p = Program::compile_expression("flag", &[], &desc).unwrap();
    let xcdr1 = encode_outer(Endianness::Little, XcdrVersion::Xcdr1, None);
    assert!(matches!(p.evaluate(&xcdr1), Err(EvalError::Unsupported(_))));
    let e = Program::compile_expression("kind = 'BLUE'", &[], &desc).unwrap_err();
    assert_eq!(e.kind, FilterErrorKind::UnknownEnumLabel);
    let e = Program::compile_expression("kind < 'RED'", &[], &desc).unwrap_err();
    assert!(matches!(e.kind, FilterErrorKind::TypeMismatch(_)));
    let e = Program::compile_expression("d[2][0] = 1.0", &[], &desc).unwrap_err();
    assert!(matches!(e.kind, FilterErrorKind::TypeMismatch(_)));
    let e = Program::compile_expression("a = 1 AND inner.nope = 1", &[], &desc).unwrap_err();
    assert_eq!((e.position, e.kind), (16, FilterErrorKind::UnknownField));
}

// ---- agreement with the reference evaluator -------------------------------------------------

fn arb_shape() -> impl Strategy<Value = ShapeType> {
    let color = prop_oneof![
        Just("RED".to_owned()),
        Just("BLUE".to_owned()),
        "[A-Z]{0,6}"
    ];
    (
        color,
        -20i32..40,
        -20i32..40,
        0i32..40,
        proptest::collection::vec(0u8..4, 0..4),
    )
        .prop_map(|(c, x, y, s, extra)| shape(&c, x, y, s, &extra))
}

/// A random well-typed predicate over ShapeType.
fn arb_predicate() -> impl Strategy<Value = String> {
    let int_field = prop_oneof![
        Just("x".to_owned()),
        Just("y".to_owned()),
        Just("shapesize".to_owned()),
        (0u32..4).prop_map(|i| format!("additional_payload_size[{i}]")),
    ];
    let op = prop_oneof![
        Just("="),
        Just("<>"),
        Just("<"),
        Just("<="),
        Just(">"),
        Just(">=")
    ];
    let num = prop_oneof![
        (-25i32..45).prop_map(|v| v.to_string()),
        (-25.0f64..45.0).prop_map(|v| format!("{v:?}"))
    ];
    prop_oneof![
        (int_field.clone(), op.clone(), num.clone()).prop_map(|(f, o, n)| format!("{f} {o} {n}")),
        (int_field.clone(), op.clone(), int_field.clone())
            .prop_map(|(f, o, g)| format!("{f} {o} {g}")),
        (int_field, any::<bool>(), num.clone(), num).prop_map(|(f, neg, a, b)| {
            format!("{f} {}BETWEEN {a} AND {b}", if neg { "NOT " } else { "" })
        }),
        (
            op,
            prop_oneof![Just("'RED'"), Just("'BLUE'"), Just("'B'"), Just("''")]
        )
            .prop_map(|(o, s)| format!("color {o} {s}")),
        prop_oneof![Just("'R%'"), Just("'%E%'"), Just("'B_UE'"), Just("'*'")]
            .prop_map(|p| format!("color LIKE {p}")),
        prop_oneof![
            Just("'R.*'"),
            Just("'(RED|BLUE)'"),
            Just("'[A-C]+'"),
            Just("'.?'")
        ]
        .prop_map(|p| format!("color MATCH {p}")),
    ]
}

fn arb_filter() -> impl Strategy<Value = String> {
    arb_predicate().prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|e| format!("NOT ({e})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) AND ({b})")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("({a}) OR ({b})")),
        ]
    })
}

proptest! {
    #[test]
    fn compiled_evaluator_agrees_with_the_reference(s in arb_shape(), text in arb_filter()) {
        let bound = Ast::parse(&text).unwrap().bind(&[]).unwrap();
        let p = Program::compile(&bound, ShapeType::descriptor()).unwrap();
        let want = bound.evaluate(&Fields(&s)).unwrap();
        for (v, e, bytes) in encodings(&s) {
            prop_assert_eq!(p.evaluate(&bytes), Ok(want), "{} on {:?} {:?} {:?}", text, s, v, e);
        }
    }

    #[test]
    fn projections_are_equal_exactly_when_referenced_fields_are(
        a in arb_shape(), b in arb_shape(), mix in any::<u8>(), text in arb_filter(),
    ) {
        // Make the two samples share some fields so that both outcomes occur.
        let mut b = b;
        if mix & 1 != 0 { b.color = a.color.clone(); }
        if mix & 2 != 0 { b.x = a.x; }
        if mix & 4 != 0 { b.y = a.y; }
        if mix & 8 != 0 { b.shapesize = a.shapesize; }
        if mix & 16 != 0 { b.additional_payload_size = a.additional_payload_size.clone(); }
        let p = program(&text, &[]);
        let same = p.referenced_fields().iter().all(|f| Fields(&a).field(f) == Fields(&b).field(f));
        let ka = p.project(&a.serialize(Endianness::Little)).unwrap();
        let kb = p.project(&b.serialize(Endianness::Big)).unwrap();
        prop_assert_eq!(ka == kb, same, "{}", text);
        // The projection does not depend on the encoding: XCDR2 (D_CDR2) keys equal XCDR1's.
        let kb2 = p.project(&b.serialize_as(Repr::Xcdr2, Endianness::Little).unwrap()).unwrap();
        prop_assert_eq!(kb2, kb, "{}", text);
    }

    #[test]
    fn arbitrary_payloads_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64), text in arb_filter()) {
        let p = program(&text, &[]);
        let mut payload = vec![0, 1, 0, 0];
        payload.extend_from_slice(&bytes);
        let _ = p.evaluate(&payload);
        let _ = p.project(&payload);
    }
}

// ---- memoization ---------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Step {
    Sample(ShapeType),
    ReplaceFilter(usize, String),
    Invalidate,
}

fn arb_step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => arb_shape().prop_map(Step::Sample),
        1 => (0usize..3, arb_filter()).prop_map(|(i, f)| Step::ReplaceFilter(i, f)),
        1 => Just(Step::Invalidate),
    ]
}

/// The memo key for a set of programs: each program's projection, length-prefixed.
fn key_of(programs: &[Program], payload: &[u8]) -> Vec<u8> {
    let mut key = Vec::new();
    for p in programs {
        let k = p.project(payload).unwrap();
        key.extend_from_slice(&(k.len() as u32).to_le_bytes());
        key.extend_from_slice(&k);
    }
    key
}

proptest! {
    /// "Which filters does this sample pass?" through a small memo (keyed by the projections,
    /// invalidated whenever a filter changes) always equals direct evaluation.
    #[test]
    fn memoized_passing_set_equals_direct_evaluation(
        filters in proptest::collection::vec(arb_filter(), 3),
        steps in proptest::collection::vec(arb_step(), 1..60),
        cap in 1usize..6,
    ) {
        let mut programs: Vec<Program> = filters.iter().map(|f| program(f, &[])).collect();
        let mut memo: Memo<Vec<u8>, Vec<bool>> = Memo::new(cap);
        for step in steps {
            match step {
                Step::Sample(s) => {
                    let payload = s.serialize(Endianness::Little);
                    let direct: Vec<bool> =
                        programs.iter().map(|p| p.evaluate(&payload).unwrap()).collect();
                    let key = key_of(&programs, &payload);
                    let memoized = memo.get_or_insert_with(&key, || direct.clone());
                    prop_assert_eq!(memoized, direct);
                }
                Step::ReplaceFilter(i, f) => {
                    programs[i] = program(&f, &[]);
                    memo.invalidate();
                }
                Step::Invalidate => memo.invalidate(),
            }
            prop_assert!(memo.len() <= cap);
        }
    }
}

#[test]
fn literal_parameters_bind_like_text() {
    let p =
        Program::compile_expression("x = %0", &[Literal::Int(4)], ShapeType::descriptor()).unwrap();
    assert_eq!(
        p.evaluate(&shape("A", 4, 0, 0, &[]).serialize(Endianness::Big)),
        Ok(true)
    );
}
