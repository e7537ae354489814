//! Interop and end-to-end tests over the public API. Tests that open sockets run only inside
//! a private network namespace (see `sandbox`); `vendors` runs Cyclone DDS and Fast DDS peer
//! processes, `shape_main` the OMG Shapes app, `tshark` checks our bytes with Wireshark,
//! `xcdr2` XCDR2 with QoS profiles and the pip `cyclonedds` Python peer, `rti` RTI Connext
//! through the pip `rticonnextdds-connector`, `sites` cross-host
//! interop in `netns-sites` topologies, `asynch` the async API (tokio) against the Python peer.

// Test code over real sockets and processes: it indexes and counts what it built itself and
// unwraps what must work; the parse-path lints of the workspace are siftdds-proto's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

/// A path inside the repository, given from its root, as a `&'static str`: these test targets
/// belong to `crates/cli`, two levels below the root.
macro_rules! repo_path {
    ($rel:literal) => {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../", $rel)
    };
}

mod asynch;
mod captures;
mod cft_reference;
mod cli;
mod content_filter;
mod demo;
mod durability;
mod forge;
mod hostile;
mod loopback;
mod observe;
mod peer_lines;
mod perf;
mod perf_ddsperf;
mod presentation;
mod reading;
mod reflection;
mod rti;
mod sandbox;
mod security;
mod security_discovery;
mod security_protection;
mod shape_main;
mod sites;
mod skip;
mod spoof;
mod tshark;
mod vendors;
mod xcdr2;
mod xtypes;

/// A vendor peer built by `scripts/build-peers` under `target/peers/` (`rel`, e.g.
/// `cyclone/shapes_cyclone`).
pub(crate) fn vendor_peer(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(repo_path!("target/peers")).join(rel)
}
