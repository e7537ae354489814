//! What the vendor peers' subscribers (`interop-tests/peers/`) print, read back. Shared by the
//! `interop` and `lossy` test binaries (`lossy.rs` includes this file with `#[path]`), so both
//! read the one line format.
//!
//! Must not: judge what it read (the callers compare it with what they sent).

/// The `x` of every BLUE sample, in the order the peer printed them: one line
/// `sub: <k> BLUE x=<x> ...` per sample; other lines are passed over.
pub(crate) fn blue_xs(out: &str) -> Vec<usize> {
    out.lines()
        .filter_map(|l| {
            l.strip_prefix("sub: ")?
                .split_once(" BLUE x=")?
                .1
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .collect()
}
