//! DDS Security 1.1 (OMG formal/18-04-01): the builtin plugins' sans-IO parts. Owns the
//! cryptographic transforms and the access-control documents; does no I/O, reads no clock and
//! holds no handles to sockets or threads (the caller hands in keys, time and randomness).

pub mod access;
pub mod crypto;
