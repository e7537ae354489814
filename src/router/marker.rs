//! How routers recognise each other in standard discovery data: a router's participants say
//! `siftdds.router=<id>` in their USER_DATA (plain QoS every vendor passes through). Path
//! vectors travel in the siftdds vendor PID PID_SIFTDDS_ROUTER_PATH of the proxy readers'
//! SEDP data (`wire::plist::router_path_octets`, `EndpointData::router_path`).
//!
//! Must not: trust the bytes (a peer's data is parsed with bounds; anything else is "not a
//! router" / "no path").

use super::table::RouterId;

/// USER_DATA prefix of a router participant.
pub const ROUTER_PREFIX: &str = "siftdds.router=";

/// The USER_DATA of router `id`'s participants.
pub fn router_user_data(id: RouterId) -> Vec<u8> {
    format!("{ROUTER_PREFIX}{:x}", id.0).into_bytes()
}

/// The router id a participant's USER_DATA announces, if any.
pub fn router_of(user_data: &[u8]) -> Option<RouterId> {
    let text = core::str::from_utf8(user_data).ok()?;
    let hex = text.strip_prefix(ROUTER_PREFIX)?;
    u64::from_str_radix(hex.trim_end_matches('\0'), 16)
        .ok()
        .map(RouterId)
}

#[cfg(test)]
mod tests;
