use super::*;
use crate::transport::interface::{InterfaceErrorReason, InterfaceItem};

fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |name| {
        pairs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())
    }
}

#[test]
fn empty_environment_outside_a_namespace_is_loopback_only_without_multicast() {
    let scope = decide(&ScopeRequest::default(), |_| None).unwrap();
    assert_eq!(scope, Scope::loopback_only(true));
    let used = scope.interfaces(&[]).unwrap();
    assert_eq!(used, [Interface::loopback()]);
    assert!(used.iter().all(|i| !i.multicast && i.address.is_loopback()));
}

#[test]
fn inside_a_namespace_nothing_configured_is_auto() {
    let scope = decide(&ScopeRequest::default(), env(&[("NETNS_RUN_INSIDE", "1")])).unwrap();
    assert_eq!(scope.scope, NetworkScope::Auto);
    assert_eq!(scope.selection, Some(InterfaceSelection::Auto));
    // Only exactly "1" counts.
    let scope = decide(
        &ScopeRequest::default(),
        env(&[("NETNS_RUN_INSIDE", "yes")]),
    )
    .unwrap();
    assert_eq!(scope.scope, NetworkScope::LoopbackOnly);
}

#[test]
fn the_variable_configures_and_code_wins_over_it() {
    let vars = env(&[("SIFTDDS_INTERFACES", "B,198.18.2.0/24")]);
    let scope = decide(&ScopeRequest::default(), &vars).unwrap();
    assert_eq!(scope.scope, NetworkScope::Configured);
    let request = ScopeRequest {
        interfaces: Some(InterfaceSelection::parse("A").unwrap()),
        ..ScopeRequest::default()
    };
    let scope = decide(&request, &vars).unwrap();
    assert_eq!(
        scope.selection,
        Some(InterfaceSelection::List(vec![InterfaceItem::Name(
            "A".into()
        )]))
    );
    let auto = decide(
        &ScopeRequest::default(),
        env(&[("SIFTDDS_INTERFACES", "auto")]),
    );
    assert_eq!(auto.unwrap().scope, NetworkScope::Auto);
}

#[test]
fn loopback_only_wins_over_everything() {
    let vars = env(&[
        ("SIFTDDS_LOOPBACK_ONLY", "1"),
        ("SIFTDDS_INTERFACES", "B"),
        ("NETNS_RUN_INSIDE", "1"),
    ]);
    let request = ScopeRequest {
        interfaces: Some(InterfaceSelection::Auto),
        ..ScopeRequest::default()
    };
    assert_eq!(
        decide(&request, &vars).unwrap(),
        Scope::loopback_only(false)
    );
    let forced = ScopeRequest {
        loopback_only: true,
        ..ScopeRequest::default()
    };
    let scope = decide(&forced, env(&[("NETNS_RUN_INSIDE", "1")])).unwrap();
    assert_eq!(scope, Scope::loopback_only(false));
}

#[test]
fn a_bad_variable_is_an_error_naming_the_item() {
    let e = decide(
        &ScopeRequest::default(),
        env(&[("SIFTDDS_INTERFACES", "B,198.18.2.0/40")]),
    )
    .unwrap_err();
    assert_eq!(e.item, "198.18.2.0/40");
    assert!(matches!(e.reason, InterfaceErrorReason::BadCidr(_)));
}
