//! Golden error messages: `file:line:col: message` at the offending token.

use super::{err, parse_mem};

#[test]
fn syntax_errors_point_at_the_offending_token() {
    let cases: &[(&str, &str)] = &[
        (
            "struct A {\n  long x\n};",
            "t.idl:3:1: expected ';' after member declaration, found '}'",
        ),
        (
            "struct A { long x; }\nstruct B { long y; };",
            "t.idl:2:1: expected ';' after struct definition, found 'struct'",
        ),
        (
            "union U { case 1: long x; };",
            "t.idl:1:9: expected 'switch' after the union name, found '{'",
        ),
        (
            "struct A {\n  /* never closed\n",
            "t.idl:2:3: unterminated comment",
        ),
        (
            "const string S = \"abc;\n",
            "t.idl:1:18: unterminated string literal",
        ),
        (
            "struct A { unsigned x; };",
            "t.idl:1:21: expected 'short' or 'long' after 'unsigned', found 'x'",
        ),
        (
            "const long X = 1 +;",
            "t.idl:1:19: expected a constant expression, found ';'",
        ),
        (
            "struct struct { long x; };",
            "t.idl:1:8: expected a struct name, found keyword 'struct'",
        ),
        (
            "module M { struct A { long x; };",
            "t.idl:1:33: expected '}' to close the module, found end of file",
        ),
        (
            "typedef sequence<long, 3 long> T;",
            "t.idl:1:26: expected '>' to close sequence<...>, found 'long'",
        ),
        ("interface I {};", "t.idl:1:1: 'interface' is not supported"),
        (
            "struct A { long x$; };",
            "t.idl:1:18: unexpected character '$'",
        ),
        (
            "union U switch (long) { long x; };",
            "t.idl:1:25: expected 'case' or 'default', found 'long'",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(err(text), *want, "{text}");
    }
}

#[test]
fn semantic_errors_point_at_the_declaration() {
    let cases: &[(&str, &str)] = &[
        ("struct A { Foo x; };", "t.idl:1:12: unknown type 'Foo'"),
        (
            "struct A { long x; short x; };",
            "t.idl:1:26: duplicate member 'x' (first declared at t.idl:1:17)",
        ),
        (
            "struct B { long x; };\nstruct D : B { long x; };",
            "t.idl:2:21: duplicate member 'x' (first declared at t.idl:1:17)",
        ),
        ("const long X = 1 / 0;", "t.idl:1:18: division by zero"),
        (
            "const octet O = 256;",
            "t.idl:1:17: value 256 out of range for octet",
        ),
        ("const long X = Y + 1;", "t.idl:1:16: unknown constant 'Y'"),
        (
            "const long X = 1.5;",
            "t.idl:1:16: expected an integer constant",
        ),
        (
            "@key struct A { long x; };",
            "t.idl:1:1: @key does not apply to a struct",
        ),
        (
            "struct A { @key @optional long x; };",
            "t.idl:1:32: key member 'x' cannot be @optional",
        ),
        (
            "struct A { @id(1) long x; @id(1) long y; };",
            "t.idl:1:39: member id 1 of 'y' is already used by 'x'",
        ),
        (
            "union U switch (long) { case 1: long a; case 1: long b; };",
            "t.idl:1:46: duplicate case label 1",
        ),
        (
            "union U switch (float) { case 1: long a; };",
            "t.idl:1:7: expected an integer, char, wchar, boolean, octet or enum discriminator type",
        ),
        (
            "enum E { A, @value(0) B };",
            "t.idl:1:23: enumerator value 0 is already used by 'A'",
        ),
        (
            "struct A;\nstruct B { A a; };",
            "t.idl:2:12: 'A' is incomplete here (only sequences may refer to a forward-declared type)",
        ),
        ("struct A;", "t.idl:1:8: 'A' is declared but never defined"),
        (
            "struct A { long x; };\nenum A { X };",
            "t.idl:2:6: 'A' is already defined at t.idl:1:8",
        ),
        (
            "typedef long T;\nstruct D : T { long x; };",
            "t.idl:2:12: base of 'D' must be a struct, 'T' is not",
        ),
        (
            "typedef sequence<long, -1> T;",
            "t.idl:1:24: sequence bound must be positive, found -1",
        ),
        (
            "@final struct B { long x; };\n@mutable struct D : B { long y; };",
            "t.idl:2:17: 'D' must have the extensibility of its base 'B'",
        ),
        (
            "#define T Foo\nstruct A { T x; };",
            "t.idl:2:12: unknown type 'Foo'",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(err(text), *want, "{text}");
    }
}

#[test]
fn preprocessor_errors_point_into_the_right_file() {
    let cases: &[(&str, &str)] = &[
        (
            "#include \"missing.idl\"\n",
            "t.idl:1:10: include file not found: missing.idl",
        ),
        (
            "#include missing.idl\n",
            "t.idl:1:10: expected \"file\" or <file> after #include",
        ),
        (
            "#if X\n#endif\n",
            "t.idl:1:2: unsupported preprocessor directive #if",
        ),
        (
            "#ifdef X\nstruct A { long x; };\n",
            "t.idl:1:1: unterminated conditional: expected #endif",
        ),
        ("#endif\n", "t.idl:1:1: #endif without #ifdef"),
        (
            "#define F(x) x\n",
            "t.idl:1:10: function-like macros are not supported",
        ),
        ("#error stop here\n", "t.idl:1:1: #error stop here"),
        (
            "struct A { long x; }; #define X\n",
            "t.idl:1:23: '#' must start a line",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(err(text), *want, "{text}");
    }
    let cycle = parse_mem(&[
        ("a.idl", "#include \"b.idl\"\n"),
        ("b.idl", "\n  #include \"a.idl\"\n"),
    ]);
    assert_eq!(
        cycle.unwrap_err().to_string(),
        "b.idl:2:12: include cycle: a.idl -> b.idl -> a.idl"
    );
    let nested = parse_mem(&[
        ("a.idl", "#include <b.idl>\nstruct A { B b; };"),
        ("inc/b.idl", "struct B {\n  long x\n};"),
    ]);
    assert_eq!(
        nested.unwrap_err().to_string(),
        "inc/b.idl:3:1: expected ';' after member declaration, found '}'"
    );
    let missing = super::parse_with(&super::MemLoader::new(), std::path::Path::new("x.idl"), &[]);
    assert_eq!(
        missing.unwrap_err().to_string(),
        "x.idl:0:0: file not found"
    );
}

#[test]
fn arithmetic_and_lexical_limits_are_errors() {
    let cases: &[(&str, &str)] = &[
        (
            "const double D = 1.0 / 0;",
            "t.idl:1:22: floating-point overflow or division by zero",
        ),
        (
            "const long long X = 1 << 64;",
            "t.idl:1:23: shift amount must be 0..63",
        ),
        (
            "const long long X = 0x7FFFFFFFFFFFFFFF * 4;",
            "t.idl:1:21: value 36893488147419103228 out of range for int64",
        ),
        ("const char C = '\u{e9}';", "parsed"),
        (
            "const char C = '\u{100}';",
            "t.idl:1:16: expected a character constant",
        ),
        (
            "struct Caf\u{e9} { long x; };",
            "t.idl:1:11: unexpected character '\u{e9}'",
        ),
        (
            "const long X = 99999999999999999999999999999999999999999;",
            "t.idl:1:16: invalid or too large integer literal '99999999999999999999999999999999999999999'",
        ),
        (
            "const long X = 12abc;",
            "t.idl:1:16: invalid suffix 'a' on number '12'",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(err(text), *want, "{text}");
    }
}

/// Issue 15: bounds are checked against `MAX_GENERATED_TYPE_SIZE` (16 MiB), at the bound.
#[test]
fn arrays_and_sequences_beyond_the_generated_type_limit_are_errors() {
    let cases: &[(&str, &str)] = &[
        (
            "struct A { long a[4294967295]; };",
            "t.idl:1:19: array of at least 17179869180 bytes exceeds the generated type limit \
             of 16777216 bytes (MAX_GENERATED_TYPE_SIZE)",
        ),
        (
            "struct A {\n  double m[2048][1025];\n};",
            "t.idl:2:12: array of at least 16793600 bytes exceeds the generated type limit \
             of 16777216 bytes (MAX_GENERATED_TYPE_SIZE)",
        ),
        (
            "typedef sequence<long long, 4000000> S;",
            "t.idl:1:29: sequence of at least 32000000 bytes exceeds the generated type \
             limit of 16777216 bytes (MAX_GENERATED_TYPE_SIZE)",
        ),
        ("struct A { double m[2048][1024]; };", "parsed"),
        ("typedef sequence<octet, 16777216> S;", "parsed"),
    ];
    for (text, want) in cases {
        assert_eq!(err(text), *want, "{text}");
    }
}
