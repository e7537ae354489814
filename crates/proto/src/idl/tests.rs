//! Tests of the IDL front end: the corpus (`idl/test_types.idl`), `idl/shape.idl` against the
//! hand-written descriptor, golden error messages, and robustness (random input, deep
//! nesting).

mod corpus;
mod errors;

use std::path::Path;

use proptest::prelude::*;

use super::{IdlError, IdlSpec, MemLoader, parse_with};

/// Parses `files[0]` of an in-memory file set.
pub(super) fn parse_mem(files: &[(&str, &str)]) -> Result<IdlSpec, IdlError> {
    let loader = files
        .iter()
        .fold(MemLoader::new(), |l, (p, t)| l.with(p, t));
    let first = files.first().map_or("t.idl", |(p, _)| p);
    parse_with(&loader, Path::new(first), &[Path::new("inc").to_path_buf()])
}

/// The error text of parsing a single file `t.idl`.
pub(super) fn err(text: &str) -> String {
    match parse_mem(&[("t.idl", text)]) {
        Ok(_) => "parsed".to_owned(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let n = 100_000;
    let modules = "module m { ".repeat(n);
    assert!(
        err(&modules).ends_with("nesting deeper than 64 levels"),
        "{}",
        err(&modules)
    );
    let seqs = format!("typedef {}long{} T;", "sequence<".repeat(n), ">".repeat(n));
    assert!(err(&seqs).ends_with("nesting deeper than 64 levels"));
    let parens = format!("const long X = {}1{};", "(".repeat(n), ")".repeat(n));
    assert!(err(&parens).ends_with("nesting deeper than 64 levels"));
    let unary = format!("const long X = {}1;", "-".repeat(n));
    assert!(err(&unary).ends_with("nesting deeper than 64 levels"));
    let sum = format!("const long X = 1{};", "+1".repeat(n));
    assert!(
        err(&sum).ends_with("constant expression longer than 256 terms"),
        "{}",
        err(&sum)
    );
    let anns = format!("{} struct S {{ long x; }};", "@a(((1))) ".repeat(1000));
    assert_eq!(err(&anns), "parsed");
}

#[test]
fn include_chains_stop_at_the_depth_limit() {
    let files: Vec<(String, String)> = (0..40)
        .map(|i| {
            (
                format!("f{i}.idl"),
                format!("#include \"f{}.idl\"\n", i + 1),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let e = parse_mem(&refs).unwrap_err();
    assert_eq!(
        e.to_string(),
        "f15.idl:1:10: #include nested deeper than 16"
    );
}

#[test]
fn recursive_macros_do_not_loop() {
    assert_eq!(
        err("#define A B\n#define B A\nconst long X = 1; struct S { long A; };"),
        "parsed"
    );
    let blowup: String = (1..20)
        .map(|i| format!("#define M{i} M{p} M{p} M{p} M{p}\n", p = i - 1))
        .collect();
    let text = format!("#define M0\n{blowup}M19");
    assert_eq!(
        err(&text),
        "t.idl:21:1: macro expansion nested deeper than 16"
    );
}

fn idl_fragment() -> impl Strategy<Value = String> {
    let words = prop::sample::select(vec![
        "module",
        "struct",
        "union",
        "switch",
        "case",
        "default",
        "enum",
        "typedef",
        "const",
        "sequence",
        "string",
        "long",
        "unsigned",
        "short",
        "double",
        "char",
        "boolean",
        "octet",
        "X",
        "Y",
        "::",
        ":",
        ";",
        "{",
        "}",
        "(",
        ")",
        "<",
        ">",
        ">>",
        "[",
        "]",
        ",",
        "=",
        "@key",
        "@id(1)",
        "@value(2)",
        "@mutable",
        "1",
        "0x10",
        "'c'",
        "\"s\"",
        "-",
        "~",
        "*",
        "/",
        "%",
        "#define X 1\n",
        "#ifdef X\n",
        "#endif\n",
        "#include \"t.idl\"\n",
        "/*",
        "*/",
        "\n",
    ]);
    prop::collection::vec(words, 0..60).prop_map(|w| w.join(" "))
}

proptest! {
    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse_mem(&[("t.idl", &text)]);
    }

    #[test]
    fn random_token_soup_never_panics(text in idl_fragment()) {
        let _ = parse_mem(&[("t.idl", &text)]);
    }
}

#[test]
fn file_size_and_token_count_are_capped() {
    let big = " ".repeat(super::MAX_FILE_SIZE + 1);
    assert_eq!(err(&big), "t.idl:0:0: file larger than 4194304 bytes");
    let many = ";".repeat(super::MAX_TOKENS + 1);
    assert_eq!(
        err(&many),
        format!(
            "t.idl:1:{}: more than 1048576 tokens",
            super::MAX_TOKENS + 1
        )
    );
}
