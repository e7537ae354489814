//! The values of siftdds's own vendor parameters (PIDs ≥ 0x8000 read only when the sender's
//! VendorId is [`VendorId::SIFTDDS`](crate::wire::VendorId::SIFTDDS), RTPS 2.5 §9.6.2.2.1):
//! PID_SIFTDDS_ROUTER_PATH, the path vector of a router's proxy reader.
//!
//! Must not: trust the bytes (a path is bounded and a ragged tail ignored) or panic.

/// Longest path vector encoded or decoded: more ids than this keep the newest.
pub const MAX_ROUTER_PATH: usize = 32;

/// The `sequence<octet>` value of PID_SIFTDDS_ROUTER_PATH for `path` (router ids, oldest
/// first): 8 big-endian bytes per id, the newest [`MAX_ROUTER_PATH`] kept.
pub fn router_path_octets(path: &[u64]) -> Vec<u8> {
    let skip = path.len().saturating_sub(MAX_ROUTER_PATH);
    path.iter()
        .skip(skip)
        .flat_map(|id| id.to_be_bytes())
        .collect()
}

/// The path in a PID_SIFTDDS_ROUTER_PATH value: whole 8-byte ids, at most
/// [`MAX_ROUTER_PATH`] of them; a ragged tail is ignored.
pub fn router_path_from_octets(octets: &[u8]) -> Vec<u64> {
    octets
        .chunks_exact(8)
        .take(MAX_ROUTER_PATH)
        .filter_map(|c| <[u8; 8]>::try_from(c).ok().map(u64::from_be_bytes))
        .collect()
}

#[cfg(test)]
mod tests;
