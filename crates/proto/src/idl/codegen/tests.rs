//! Generator tests on small IDL: rustfmt-stable output, module placement and relative paths,
//! `file:line:col` errors, reserved names, keywords and variant-name collisions. The generated
//! code itself is compiled and exercised by the `idl-tests` workspace member.

use std::path::{Path, PathBuf};

use super::*;
use crate::idl::MemLoader;

fn model(text: &str) -> Model {
    let loader = MemLoader::new().with("t.idl", text);
    parse_with(&loader, Path::new("t.idl"), &[]).unwrap().model
}

#[test]
fn output_is_rustfmt_stable() {
    let idl = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/idl"));
    let options = GenOptions {
        include_dirs: vec![idl.clone()],
        ..GenOptions::default()
    };
    let code = generate(
        &[idl.join("test_types.idl"), idl.join("shape.idl")],
        &options,
    )
    .unwrap();
    match rustfmt(&code) {
        Some(again) => assert_eq!(
            again, code,
            "generate() output is already rustfmt-formatted"
        ),
        // rustfmt is part of every toolchain CI uses; without it the output is unformatted.
        None => eprintln!("rustfmt not on PATH: formatting not checked"),
    }
}

#[test]
fn items_land_in_their_modules_with_relative_paths() {
    let code = generate_model(
        &model("module a { struct P { long x; }; module b { struct Q { a::P p; }; }; };"),
        "crate",
    )
    .unwrap();
    assert!(code.contains("pub mod a {"));
    assert!(code.contains("pub mod b {"));
    assert!(code.contains("pub p: super::P,"), "{code}");
    assert!(code.contains("use crate::types::codec as _rt;"));
}

#[test]
fn errors_carry_file_line_and_column() {
    let missing = generate(
        &[PathBuf::from("/nonexistent/x.idl")],
        &GenOptions::default(),
    );
    let e = missing.unwrap_err().to_string();
    assert!(e.starts_with("/nonexistent/x.idl:0:0: "), "{e}");
    let dir = std::env::temp_dir().join(format!("siftdds-codegen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.idl");
    std::fs::write(&bad, "module m {\n  struct S { long };\n};\n").unwrap();
    let e = generate(std::slice::from_ref(&bad), &GenOptions::default()).unwrap_err();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!((e.line, e.col), (2, 19), "{e}");
    assert!(e.to_string().contains("bad.idl:2:19: expected"), "{e}");
}

#[test]
fn rust_prelude_names_are_refused() {
    let e = generate_model(&model("struct String { long x; };"), "crate").unwrap_err();
    assert!(e.message.contains("reserved"), "{e}");
}

#[test]
fn keywords_become_raw_identifiers() {
    let code = generate_model(&model("struct S { long type; long self; };"), "crate").unwrap();
    assert!(code.contains("pub r#type: i32,"), "{code}");
    assert!(code.contains("pub self_: i32,"), "{code}");
}

#[test]
fn colliding_variant_names_fall_back_to_the_idl_names() {
    let code = generate_model(
        &model("enum E { a_b, aB }; const E C = aB; union U switch (E) { case a_b: long x; };"),
        "crate",
    )
    .unwrap();
    assert!(
        code.contains("a_b = 0,") && code.contains("aB = 1,"),
        "{code}"
    );
    assert!(code.contains("pub const C: E = E::aB;"), "{code}");
    assert!(code.contains("E::a_b"), "{code}");
}
