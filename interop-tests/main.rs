//! Interop and end-to-end tests over the public API. Tests that open sockets run only inside
//! a private network namespace (see `sandbox`); `vendors` runs Cyclone DDS and Fast DDS peer
//! processes, `shape_main` the OMG Shapes app, `tshark` checks our bytes with Wireshark.

mod captures;
mod demo;
mod content_filter;
mod loopback;
mod perf;
mod sandbox;
mod shape_main;
mod tshark;
mod vendors;
