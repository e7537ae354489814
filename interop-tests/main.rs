//! Interop and end-to-end tests over the public API. Tests that open sockets run only inside
//! a private network namespace (see `sandbox`); scripted runs against Cyclone DDS and Fast DDS
//! peers come with the participant issue.

mod captures;
mod loopback;
mod sandbox;
mod tshark;
mod vendors;
