//! Misuse of `#[derive(TopicType)]` is a compile error at the offending member, variant or
//! attribute: the expected messages are the committed `ui/*.stderr` files (regenerate with
//! `TRYBUILD=overwrite cargo test -p siftdds-derive --test compile_fail`, then review them).

#[test]
fn misuse_is_a_compile_error_at_its_span() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
