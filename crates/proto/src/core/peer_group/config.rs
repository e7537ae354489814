//! The peer-group configuration, defined in `crate::qos::peer_group` (plain data shared with
//! the QoS XML loader and the API) and re-exported here for the core.
//!
//! Must not: hold anything of its own.

pub use crate::qos::peer_group::*;
