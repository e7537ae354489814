//! DDS Security 1.1: the builtin plugins, sans-IO. This module owns the protocol side of
//! security (tokens, handshakes, keys); the participant (`core::participant`) owns where it
//! plugs in.
//!
//! Must not: read files or clocks, open sockets, or panic on anything a peer sends
//! (certificates, tokens and handshake messages are untrusted input, docs/conventions.md §4).

pub mod auth;
