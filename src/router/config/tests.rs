use super::*;

const FILE: &str = r#"
domain = 3
router_id = 7

[[site]]
name = "lan"
kind = "lan"
interfaces = ["A"]

[[site]]
name = "wan"
kind = "link"
interfaces = ["RA"]
peers = ["198.18.2.2"]
domain = 4

[topics]
allow = ["Square*", "Circle"]
deny = ["*Secret"]
deny_types = ["Private*"]

[[topic]]
name = "Square*"
history_depth = 5
suppress_unchanged = true
min_interval_ms = 100

[[topic]]
name = "Reading*"
idl = "types/reading.idl"
type = "m::Reading"
"#;

#[test]
fn parses_the_documented_format() {
    let c = RouterConfig::from_toml(FILE).unwrap();
    assert_eq!(c.domain, 3);
    assert_eq!(c.router_id, Some(7));
    assert_eq!(c.sites.len(), 2);
    assert_eq!(c.sites[1].kind, SiteKind::Link);
    assert_eq!(c.sites[1].domain, Some(4));
    let r = c.rules().unwrap();
    assert!(r.routes("Square", "ShapeType"));
    assert!(r.routes("Circle", "ShapeType"));
    assert!(!r.routes("Triangle", "ShapeType"));
    assert!(!r.routes("SquareSecret", "ShapeType"));
    assert!(!r.routes("Square", "PrivateType"));
    assert_eq!(r.history("Square", false), History::KeepLast(5));
    assert_eq!(r.history("Circle", true), History::KeepLast(1));
    assert_eq!(r.history("Circle", false), History::KeepAll);
    assert!(r.policy("Square").suppress_unchanged);
    assert_eq!(
        r.policy("Square").min_interval,
        Some(Duration::from_millis(100))
    );
    assert!(!r.policy("Circle").suppress_unchanged);
    let idl: Vec<_> = r.idl_files().map(|(p, f, t)| (p.as_str(), f, t)).collect();
    assert_eq!(idl, [("Reading*", "types/reading.idl", Some("m::Reading"))]);
    assert_eq!(
        r.history_after("Readings", true, History::KeepLast(4)),
        History::KeepLast(4)
    );
    assert_eq!(
        r.history_after("Readings", false, History::KeepLast(4)),
        History::KeepAll
    );
}

#[test]
fn errors_say_where() {
    let e = RouterConfig::from_toml("domain = 1\n[[site]]\nname = 3\n").unwrap_err();
    assert!(e.0.contains("line 3"), "{e}");
    let e = RouterConfig::from_toml("[[site]]\nname=\"a\"\nkind=\"lan\"\n").unwrap_err();
    assert!(e.0.contains("at least two sites"), "{e}");
    let link = "[[site]]\nname=\"a\"\nkind=\"lan\"\n[[site]]\nname=\"w\"\nkind=\"link\"\n";
    assert!(
        RouterConfig::from_toml(link)
            .unwrap_err()
            .0
            .contains("peers")
    );
    let bad = format!("{link}peers=[\"1.2.3.4\"]\n[topics]\ndeny=[\"[\"]\n");
    assert!(
        RouterConfig::from_toml(&bad)
            .unwrap_err()
            .0
            .contains("topics.deny")
    );
}
