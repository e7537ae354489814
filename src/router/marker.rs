//! How routers recognise each other and carry path vectors in standard discovery data: a
//! router's participants say `siftdds.router=<id>` in their USER_DATA, and its proxy readers
//! carry `siftdds.path=<id>,<id>,…` (the routers the subscription came through) in their
//! subscriber's GROUP_DATA. Both are plain QoS every vendor passes through unchanged.
//!
//! Must not: trust the bytes (a peer's data is parsed with bounds; anything else is "not a
//! router" / "no path").

use super::table::RouterId;

/// USER_DATA prefix of a router participant.
pub const ROUTER_PREFIX: &str = "siftdds.router=";
/// GROUP_DATA prefix of a path vector.
pub const PATH_PREFIX: &str = "siftdds.path=";
/// Longest path vector read or written.
pub const MAX_PATH: usize = 32;

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

/// The GROUP_DATA carrying `path` (truncated to [`MAX_PATH`] hops, newest kept).
pub fn path_group_data(path: &[RouterId]) -> Vec<u8> {
    let skip = path.len().saturating_sub(MAX_PATH);
    let ids: Vec<String> = path
        .iter()
        .skip(skip)
        .map(|r| format!("{:x}", r.0))
        .collect();
    format!("{PATH_PREFIX}{}", ids.join(",")).into_bytes()
}

/// The path vector in an endpoint's GROUP_DATA (empty: an application endpoint). A path
/// that does not parse counts as longer than any other (it is never preferred) only by
/// being empty here; routers only read what routers wrote.
pub fn path_of(group_data: &[u8]) -> Vec<RouterId> {
    let Some(text) = core::str::from_utf8(group_data)
        .ok()
        .and_then(|t| t.strip_prefix(PATH_PREFIX))
    else {
        return Vec::new();
    };
    text.trim_end_matches('\0')
        .split(',')
        .take(MAX_PATH)
        .filter_map(|h| u64::from_str_radix(h, 16).ok().map(RouterId))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_others() {
        let id = RouterId(0xdead_beef_0042);
        assert_eq!(router_of(&router_user_data(id)), Some(id));
        assert_eq!(router_of(b"hello"), None);
        assert_eq!(router_of(b"siftdds.router=zz"), None);
        assert_eq!(router_of(&[0xff, 0xfe]), None);
        let path = [RouterId(1), RouterId(0xabc)];
        assert_eq!(path_of(&path_group_data(&path)), path);
        assert_eq!(path_of(b""), Vec::<RouterId>::new());
        assert_eq!(path_of(b"group data of an app"), Vec::<RouterId>::new());
        let long: Vec<RouterId> = (0..100).map(RouterId).collect();
        let got = path_of(&path_group_data(&long));
        assert_eq!(got.len(), MAX_PATH);
        assert_eq!(got.last(), Some(&RouterId(99)));
    }
}
