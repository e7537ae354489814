//! `[[peer_group]]` in the router's TOML: compiled and checked, each site participant the
//! intermediary (`router::peer_group`).
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use crate::router::config::RouterConfig;
use crate::router::peer_group::for_site;

const FILE: &str = r#"
[[site]]
name = "A"
kind = "lan"
[[site]]
name = "B"
kind = "lan"

[[peer_group]]
name = "fleet"
topic = "Square"
members = ["pub-*"]
common = ["color"]
capacity = 2
"#;

#[test]
fn peer_group_tables_compile_and_each_site_is_the_intermediary_by_its_own_prefix() {
    let c = RouterConfig::from_toml(FILE).unwrap();
    let rules = c.rules().unwrap();
    let g = &rules.peer_groups;
    assert_eq!(g.len(), 1);
    assert_eq!(
        (g[0].capacity, g[0].common.clone()),
        (2, vec!["color".to_string()])
    );
    let a = for_site(g, crate::wire::GuidPrefix([7; 12]));
    assert!(a[0].is_intermediary(Some("siftdds-router-A"), [7; 12]));
    assert!(!a[0].is_intermediary(Some("siftdds-router-A"), [0; 12]));
    assert!(a[0].is_member("Square", Some("pub-1"), [0; 12]));
}

#[test]
fn a_bad_peer_group_is_a_configuration_error() {
    let bad = FILE.replace("capacity = 2", "capacity = 0");
    let e = RouterConfig::from_toml(&bad)
        .and_then(|c| c.rules())
        .unwrap_err();
    assert!(e.0.contains("capacity"), "{e}");
    let no_members = FILE.replace("members = [\"pub-*\"]", "members = []");
    let e = RouterConfig::from_toml(&no_members)
        .and_then(|c| c.rules())
        .unwrap_err();
    assert!(e.0.contains("members"), "{e}");
}
