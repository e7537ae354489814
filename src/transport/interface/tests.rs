use super::*;

fn iface(name: &str, addr: [u8; 4], prefix_len: u8, loopback: bool) -> Interface {
    Interface {
        name: name.to_string(),
        address: Ipv4Addr::from(addr),
        prefix_len,
        up: true,
        loopback,
        multicast: true,
    }
}

/// A host like a netns-sites node with links to A and B.
fn host() -> Vec<Interface> {
    vec![
        iface("lo", [127, 0, 0, 1], 8, true),
        iface("A", [198, 18, 1, 1], 24, false),
        iface("B", [198, 18, 2, 1], 24, false),
    ]
}

fn names(v: &[Interface]) -> Vec<&str> {
    v.iter().map(|i| i.name.as_str()).collect()
}

#[test]
fn parses_names_addresses_and_prefixes() {
    let s = InterfaceSelection::parse("B, 198.18.2.1,198.18.2.77/24").unwrap();
    assert_eq!(
        s,
        InterfaceSelection::List(vec![
            InterfaceItem::Name("B".into()),
            InterfaceItem::Address(Ipv4Addr::new(198, 18, 2, 1)),
            InterfaceItem::Prefix("198.18.2.0/24".parse().unwrap()),
        ])
    );
    assert_eq!(
        InterfaceSelection::parse("AUTO").unwrap(),
        InterfaceSelection::Auto
    );
}

#[test]
fn bad_cidr_names_the_item() {
    for (text, why) in [
        ("198.18.1.0/33", "prefix length above 32"),
        ("198.18.1.0/x", "prefix length is not a number"),
        ("198.18.1/24", "not an IPv4 address"),
    ] {
        let e = InterfaceSelection::parse(&format!("lo,{text}")).unwrap_err();
        assert_eq!(e.item, text);
        assert_eq!(e.reason, InterfaceErrorReason::BadCidr(why));
        assert_eq!(
            e.to_string(),
            format!("interface \"{text}\": bad CIDR prefix ({why})")
        );
    }
}

#[test]
fn auto_must_stand_alone_and_items_must_not_be_empty() {
    let e = InterfaceSelection::parse("auto,lo").unwrap_err();
    assert_eq!(e.reason, InterfaceErrorReason::AutoNotAlone);
    let e = InterfaceSelection::parse("lo,,B").unwrap_err();
    assert_eq!(e.reason, InterfaceErrorReason::Empty);
    let e = InterfaceSelection::from_items(Vec::<String>::new()).unwrap_err();
    assert_eq!(e.reason, InterfaceErrorReason::Empty);
}

#[test]
fn unknown_name_lists_the_interfaces_there_are() {
    let e = InterfaceSelection::parse("eth9")
        .unwrap()
        .select(&host())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "interface \"eth9\": no such interface (have: lo, A, B)"
    );
}

#[test]
fn address_or_prefix_matching_nothing_is_an_error() {
    let e = InterfaceSelection::parse("10.0.0.0/8")
        .unwrap()
        .select(&host())
        .unwrap_err();
    assert_eq!(e.item, "10.0.0.0/8");
    assert!(matches!(e.reason, InterfaceErrorReason::NoMatch(_)));
    assert!(e.to_string().contains("198.18.1.1/24 (A)"), "{e}");
    let e = InterfaceSelection::parse("198.18.1.9")
        .unwrap()
        .select(&host())
        .unwrap_err();
    assert_eq!(e.item, "198.18.1.9");
}

#[test]
fn a_down_interface_is_refused_by_name() {
    let mut h = host();
    h[2].up = false;
    let e = InterfaceSelection::parse("B")
        .unwrap()
        .select(&h)
        .unwrap_err();
    assert_eq!(e.to_string(), "interface \"B\": interface is down");
    assert_eq!(names(&InterfaceSelection::Auto.select(&h).unwrap()), ["A"]);
}

#[test]
fn list_selects_in_order_once_per_interface() {
    let s = InterfaceSelection::parse("B,198.18.1.0/24,198.18.2.1,lo").unwrap();
    let got = s.select(&host()).unwrap();
    assert_eq!(names(&got), ["B", "A", "lo"]);
    assert_eq!(got[1].address, Ipv4Addr::new(198, 18, 1, 1));
}

#[test]
fn a_named_interface_contributes_its_first_address() {
    let mut h = host();
    h.push(iface("A", [198, 18, 9, 1], 24, false));
    let got = InterfaceSelection::parse("A").unwrap().select(&h).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].address, Ipv4Addr::new(198, 18, 1, 1));
}

#[test]
fn auto_takes_multicast_capable_non_loopback_interfaces() {
    let mut h = host();
    h.push(Interface {
        multicast: false,
        ..iface("ptp0", [10, 9, 0, 1], 32, false)
    });
    assert_eq!(
        names(&InterfaceSelection::Auto.select(&h).unwrap()),
        ["A", "B"]
    );
}

#[test]
fn auto_falls_back_to_loopback() {
    let lo_only = vec![iface("lo", [127, 0, 0, 1], 8, true)];
    let got = InterfaceSelection::Auto.select(&lo_only).unwrap();
    assert_eq!(names(&got), ["lo"]);
    let e = InterfaceSelection::Auto.select(&[]).unwrap_err();
    assert_eq!(e.reason, InterfaceErrorReason::NothingUsable);
}

#[test]
fn netmask_gives_the_prefix_length() {
    assert_eq!(prefix_len_of(Ipv4Addr::new(255, 255, 255, 0)), 24);
    assert_eq!(prefix_len_of(Ipv4Addr::new(255, 0, 0, 0)), 8);
    assert_eq!(prefix_len_of(Ipv4Addr::BROADCAST), 32);
    let net = iface("A", [198, 18, 1, 1], 24, false).network();
    assert!(net.contains(&Ipv4Addr::new(198, 18, 1, 200)));
    assert!(!net.contains(&Ipv4Addr::new(198, 18, 2, 1)));
}
