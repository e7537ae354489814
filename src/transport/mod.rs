//! UDP transport: the only place (with `runtime/`) that opens sockets.
//!
//! Must not: be imported by `wire`, `cdr`, `core` or anything below `runtime` except for
//! [`Locator`](crate::wire::Locator) conversions.
//!
//! Before any socket is opened, [`sandbox::check`] decides whether this process may talk on
//! the network at all (see the project README, "Network safety").

pub mod sandbox;
