//! DDS Security 1.1 (OMG formal/18-04-01): the builtin plugins, sans-IO. This module owns the
//! protocol side of security: authentication tokens and handshakes (`auth`), the cryptographic
//! transforms and key material (`crypto`), and the access-control documents (`access`); the
//! participant (`core::participant`) owns where they plug in.
//!
//! Must not: read files or clocks, open sockets, or panic on anything a peer sends
//! (certificates, tokens, documents and protected messages are untrusted input,
//! docs/conventions.md §4). The caller hands in keys, time and randomness.

pub mod access;
pub mod auth;
pub mod crypto;
