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

#[test]
fn paths_and_link_costs() {
    let sites = "[[site]]\nname=\"a\"\nkind=\"lan\"\n[[site]]\nname=\"w\"\nkind=\"link\"\npeers=[\"1.2.3.4\"]\n";
    // Default: shortest paths on, 500 ms × 6 = 3 s detection, cost 1.
    let c = RouterConfig::from_toml(sites).unwrap();
    let d = c.paths.detection().unwrap();
    assert_eq!(d.time(), Duration::from_secs(3));
    assert_eq!(c.sites[1].cost, None);
    let c = RouterConfig::from_toml(&format!(
        "{sites}cost = 5\n[paths]\nheartbeat_ms = 200\nmisses = 4\n"
    ))
    .unwrap();
    assert_eq!(c.sites[1].cost, Some(5));
    let d = c.paths.detection().unwrap();
    assert_eq!(
        (d.interval, d.misses, d.time()),
        (Duration::from_millis(200), 4, Duration::from_millis(800))
    );
    let off = RouterConfig::from_toml(&format!("{sites}[paths]\nenabled = false\n")).unwrap();
    assert_eq!(off.paths.detection(), None);
    for bad in [
        "cost = 0\n",
        "[paths]\nmisses = 0\n",
        "[paths]\nheartbeat_ms = 0\n",
    ] {
        assert!(
            RouterConfig::from_toml(&format!("{sites}{bad}")).is_err(),
            "{bad}"
        );
    }
}

const SECURED: &str = r#"
[[site]]
name = "a"
kind = "lan"
[site.security]
identity_ca = "pki/ca.pem"
identity_certificate = "pki/router.pem"
private_key = "pki/router.key"
"dds.sec.access.builtin.Access-Permissions.permissions_ca" = "file:/abs/perm_ca.pem"
governance = "pki/governance.p7s"
permissions = "data:,<signed>"

[[site]]
name = "b"
kind = "lan"
"#;

#[test]
fn site_security_takes_short_standard_and_fast_dds_names_with_their_places() {
    let c = RouterConfig::from_toml(SECURED).unwrap();
    let p = &c.sites[0].security_properties;
    let names: Vec<&str> = p.iter().map(|p| p.property).collect();
    assert_eq!(
        names,
        [
            "dds.sec.auth.identity_ca",
            "dds.sec.auth.identity_certificate",
            "dds.sec.auth.private_key",
            "dds.sec.access.permissions_ca",
            "dds.sec.access.governance",
            "dds.sec.access.permissions",
        ]
    );
    assert_eq!(
        p[0].at,
        Place {
            line: 6,
            column: 15
        }
    );
    assert_eq!(p[3].at.line, 9);
    let paths: Vec<bool> = p.iter().map(SecurityProperty::is_path).collect();
    assert_eq!(paths, [true, true, true, false, true, false]);
    assert!(c.sites[1].security_properties.is_empty());
}

#[test]
fn site_security_errors_name_the_place() {
    let unknown = SECURED.replace("governance =", "governance_file =");
    let e = RouterConfig::from_toml(&unknown).unwrap_err();
    assert!(
        e.0.starts_with(
            "line 10, column 19: site \"a\": security: unknown key \"governance_file\""
        ),
        "{e}"
    );
    let twice = SECURED.replace(
        "governance = ",
        "\"dds.sec.access.governance\" = \"g\"\ngovernance = ",
    );
    let e = RouterConfig::from_toml(&twice).unwrap_err();
    assert!(e.0.contains("dds.sec.access.governance given twice"), "{e}");
    let no_key = SECURED.replace("private_key = \"pki/router.key\"\n", "");
    let e = RouterConfig::from_toml(&no_key).unwrap_err();
    assert!(
        e.0.starts_with("line 6, column 15: site \"a\": security: private_key"),
        "{e}"
    );
    let half_access = SECURED.replace("permissions = \"data:,<signed>\"\n", "");
    let e = RouterConfig::from_toml(&half_access).unwrap_err();
    assert!(
        e.0.contains("permissions (dds.sec.access.permissions) is missing"),
        "{e}"
    );
    // Identity only (authentication, no access control): fine.
    let identity_only: String = SECURED
        .lines()
        .filter(|l| !l.contains("permissions") && !l.contains("governance"))
        .map(|l| format!("{l}\n"))
        .collect();
    let c = RouterConfig::from_toml(&identity_only).unwrap();
    assert_eq!(c.sites[0].security_properties.len(), 3);
}
