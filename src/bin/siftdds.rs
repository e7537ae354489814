//! The `siftdds` command line.
fn main() {}
